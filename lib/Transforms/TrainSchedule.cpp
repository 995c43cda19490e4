//===- TrainSchedule.cpp - a peak-lowering op order -----------------------===//
//
// train-schedule measures the orders the schedulers of StepSchedule.h
// propose, moves the step's ops into the one of lowest LOAD, checks the
// moved step's LOAD with the liveness analysis, and records the decision.
//
//===----------------------------------------------------------------------===//

#include "memopt/Analysis/StepSchedule.h"
#include "memopt/Analysis/TensorLiveness.h"
#include "memopt/Dialect/Train/IR/TrainOps.h"
#include "memopt/Dialect/Train/IR/TrainStep.h"
#include "memopt/Transforms/PassOptions.h"
#include "memopt/Transforms/Passes.h"

#include "mlir/IR/Builders.h"
#include "llvm/Support/FormatVariadic.h"

namespace mlir::memopt {
#define GEN_PASS_DEF_TRAINSCHEDULEPASS
#include "memopt/Transforms/Passes.h.inc"
} // namespace mlir::memopt

using namespace mlir;
using namespace mlir::memopt;
using train::TrainDialect;

namespace {

constexpr StringLiteral kHeuristics[] = {"best", "program", "eager", "greedy",
                                         "exact"};
constexpr unsigned kMaxExactLimit = 22;

struct TrainSchedulePass
    : public memopt::impl::TrainSchedulePassBase<TrainSchedulePass> {
  using Base::Base;

  LogicalResult initializeOptions(
      StringRef options,
      function_ref<LogicalResult(const Twine &)> errorHandler) override {
    if (failed(parseOptionsNamingPass(
            "train-schedule", options, errorHandler,
            [&](StringRef text,
                function_ref<LogicalResult(const Twine &)> handler) {
              return Base::initializeOptions(text, handler);
            })))
      return failure();
    if (!llvm::is_contained(kHeuristics, StringRef(heuristic)))
      return errorHandler("train-schedule: unknown heuristic '" + heuristic +
                          "'; expected best, program, eager, greedy or exact");
    if (exactLimit > kMaxExactLimit)
      return errorHandler("train-schedule: exact-limit must be at most " +
                          Twine(kMaxExactLimit) + " (the exact search takes " +
                          "2^ops steps), got " + Twine(exactLimit));
    return success();
  }

  void runOnOperation() override;
};

} // namespace

/// Whether `func` carries a memory plan (train-plan-memory's attributes).
static bool hasMemoryPlan(func::FuncOp func) {
  if (func->hasAttr(TrainDialect::kArenaBytesAttrName))
    return true;
  WalkResult walk = func.walk([](Operation *op) {
    return op->hasAttr(TrainDialect::kOffsetAttrName) ||
                   op->hasAttr(TrainDialect::kWorkspaceOffsetAttrName)
               ? WalkResult::interrupt()
               : WalkResult::advance();
  });
  return walk.wasInterrupted();
}

namespace {
/// What one round of scheduling did.
struct ScheduleRound {
  std::string heuristic;
  int64_t loadBefore = 0;
  int64_t loadAfter = 0;
};
} // namespace

/// Proposes orders for `func` as it stands, moves its ops into the chosen
/// one, and checks the LOAD the model predicted with the liveness analysis.
/// Remarks on the round, unless it is a repeated round that changed nothing.
static FailureOr<ScheduleRound> scheduleRound(func::FuncOp func,
                                              StringRef wanted,
                                              unsigned exactLimit,
                                              bool repeated) {
  TensorLiveness before(func);
  ScheduleGraph graph(func, before);
  SmallVector<ScheduleCandidate> candidates =
      proposeSchedules(graph, wanted, exactLimit);
  if (wanted == "exact" && candidates.size() == 1) {
    func.emitOpError() << "train-schedule: the step has " << graph.size()
                       << " ops, more than exact-limit=" << exactLimit
                       << " for the exact search; use heuristic=best";
    return failure();
  }
  if (candidates.front().load != before.getLoad()) {
    func.emitOpError() << "train-schedule: internal error: the schedule model "
                          "gives the program order a LOAD of "
                       << candidates.front().load
                       << " bytes, the liveness analysis " << before.getLoad();
    return failure();
  }
  // The named heuristic, or with `best` the lowest LOAD (the first on ties).
  const ScheduleCandidate *chosen = &pickSchedule(candidates, wanted);
  if (!graph.isValidOrder(chosen->order)) {
    func.emitOpError() << "train-schedule: internal error: "
                       << chosen->heuristic
                       << " proposed an order that breaks a dependence";
    return failure();
  }

  graph.apply(chosen->order);
  TensorLiveness after(func);
  if (after.getLoad() != chosen->load) {
    func.emitOpError() << "train-schedule: internal error: "
                       << chosen->heuristic << " was predicted a LOAD of "
                       << chosen->load
                       << " bytes, the liveness analysis measures "
                       << after.getLoad();
    return failure();
  }
  if (repeated && after.getLoad() == before.getLoad())
    return ScheduleRound{chosen->heuristic, before.getLoad(), after.getLoad()};
  std::string tried;
  llvm::raw_string_ostream os(tried);
  llvm::interleaveComma(candidates, os, [&](const ScheduleCandidate &c) {
    os << c.heuristic << " " << c.load;
  });
  double change =
      before.getLoad()
          ? 100.0 * (double(after.getLoad()) - double(before.getLoad())) /
                double(before.getLoad())
          : 0.0;
  mlir::emitRemark(func.getLoc())
      << "train-schedule: " << chosen->heuristic << ": LOAD "
      << before.getLoad() << " -> " << after.getLoad() << " bytes ("
      << (change >= 0 ? "+" : "") << llvm::formatv("{0:F1}", change).str()
      << "%); tried " << tried;
  return ScheduleRound{chosen->heuristic, before.getLoad(), after.getLoad()};
}

void TrainSchedulePass::runOnOperation() {
  func::FuncOp func = getOperation();
  if (func.isExternal())
    return;
  if (failed(train::verifyStepBody(func, "train-schedule")))
    return signalPassFailure();
  if (hasMemoryPlan(func)) {
    func.emitOpError("train-schedule: the step already has a memory plan "
                     "(train-plan-memory), which a new order would "
                     "invalidate; schedule before planning");
    return signalPassFailure();
  }

  // With `best`, scheduling repeats from the new order until no heuristic
  // lowers the LOAD (each round lowers it, so this ends): a heuristic's
  // order can itself be improved, and a pass run twice must give the IR of
  // a pass run once.
  StringRef wanted = heuristic;
  auto limit = static_cast<unsigned>(exactLimit);
  FailureOr<ScheduleRound> round =
      scheduleRound(func, wanted, limit, /*repeated=*/false);
  if (failed(round))
    return signalPassFailure();
  int64_t loadBefore = round->loadBefore;
  int64_t loadAfter = round->loadAfter;
  // The heuristics that moved ops, in order: a step scheduled again keeps
  // its LOAD before the first run and the names of the earlier runs.
  SmallVector<std::string> moved;
  if (auto previous = func->getAttrOfType<DictionaryAttr>(
          TrainDialect::kScheduleAttrName)) {
    if (auto previousLoad = previous.getAs<IntegerAttr>("load_before"))
      loadBefore = previousLoad.getInt();
    if (auto previousHeuristic = previous.getAs<StringAttr>("heuristic"))
      if (previousHeuristic.getValue() != "program")
        moved.push_back(previousHeuristic.getValue().str());
  }
  while (round->loadAfter < round->loadBefore) {
    if (moved.empty() || moved.back() != round->heuristic)
      moved.push_back(round->heuristic);
    if (wanted != "best")
      break;
    round = scheduleRound(func, wanted, limit, /*repeated=*/true);
    if (failed(round))
      return signalPassFailure();
    loadAfter = round->loadAfter;
  }
  std::string heuristicName =
      moved.empty() ? round->heuristic : llvm::join(moved, " then ");

  Builder b(func.getContext());
  func->setAttr(
      TrainDialect::kScheduleAttrName,
      b.getDictionaryAttr(
          {b.getNamedAttr("heuristic", b.getStringAttr(heuristicName)),
           b.getNamedAttr("load_after", b.getI64IntegerAttr(loadAfter)),
           b.getNamedAttr("load_before", b.getI64IntegerAttr(loadBefore))}));
}
