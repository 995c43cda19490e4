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

  TensorLiveness before(func);
  ScheduleGraph graph(func, before);
  StringRef wanted = heuristic;
  bool all = wanted == "best";
  SmallVector<ScheduleCandidate> candidates;
  candidates.push_back(scheduleProgramOrder(graph));
  if (all || wanted == "eager")
    candidates.push_back(scheduleEager(graph));
  if (all || wanted == "greedy")
    candidates.push_back(scheduleGreedy(graph));
  // The best proposal so far, improved by sinking (with `best`).
  if (all) {
    const ScheduleCandidate *lowest = &candidates.front();
    for (const ScheduleCandidate &candidate : candidates)
      if (candidate.load < lowest->load)
        lowest = &candidate;
    ScheduleCandidate sunk = improveBySinking(graph, *lowest);
    if (sunk.load < lowest->load)
      candidates.push_back(std::move(sunk));
  }
  if (all || wanted == "exact") {
    std::optional<ScheduleCandidate> exact =
        scheduleExact(graph, static_cast<unsigned>(exactLimit));
    if (exact) {
      candidates.push_back(std::move(*exact));
    } else if (!all) {
      func.emitOpError() << "train-schedule: the step has " << graph.size()
                         << " ops, more than exact-limit="
                         << static_cast<unsigned>(exactLimit)
                         << " for the exact search; use heuristic=best";
      return signalPassFailure();
    }
  }
  if (candidates.front().load != before.getLoad()) {
    func.emitOpError() << "train-schedule: internal error: the schedule model "
                          "gives the program order a LOAD of "
                       << candidates.front().load
                       << " bytes, the liveness analysis " << before.getLoad();
    return signalPassFailure();
  }
  // The named heuristic, or with `best` the lowest LOAD (the first on ties).
  const ScheduleCandidate *chosen = &candidates.back();
  if (all) {
    chosen = &candidates.front();
    for (const ScheduleCandidate &candidate : candidates)
      if (candidate.load < chosen->load)
        chosen = &candidate;
  }
  if (!graph.isValidOrder(chosen->order)) {
    func.emitOpError() << "train-schedule: internal error: "
                       << chosen->heuristic
                       << " proposed an order that breaks a dependence";
    return signalPassFailure();
  }

  graph.apply(chosen->order);
  TensorLiveness after(func);
  if (after.getLoad() != chosen->load) {
    func.emitOpError() << "train-schedule: internal error: "
                       << chosen->heuristic << " was predicted a LOAD of "
                       << chosen->load
                       << " bytes, the liveness analysis measures "
                       << after.getLoad();
    return signalPassFailure();
  }
  Builder b(func.getContext());
  func->setAttr(
      TrainDialect::kScheduleAttrName,
      b.getDictionaryAttr(
          {b.getNamedAttr("heuristic", b.getStringAttr(chosen->heuristic)),
           b.getNamedAttr("load_after", b.getI64IntegerAttr(after.getLoad())),
           b.getNamedAttr("load_before",
                          b.getI64IntegerAttr(before.getLoad()))}));
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
}
