//===- RematStagePlans.cpp - train-remat's stage-plan strategies ----------===//
//
// The stage-plan family of train-remat: the rewrite by a plan over groups of
// the step's ops (applyStagePlan) and the model-based algorithms that propose
// one: chain (the rotor DP over the step's layers) and optimal (Checkmate's
// MILP over its groups). Each measures its plan exactly and, while the plan
// peaks over the budget, solves again with the model's memory lowered.
//
//===----------------------------------------------------------------------===//

#include "RematStrategiesInternal.h"

#include "memopt/Dialect/Train/IR/TrainOps.h"
#include "memopt/Transforms/Passes.h"
#include "memopt/Transforms/RematStrategies.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"
#include "llvm/Support/FormatVariadic.h"

#include <memory>

using namespace mlir;
using namespace mlir::memopt;
using namespace mlir::memopt::remat;
using train::TrainDialect;

//===----------------------------------------------------------------------===//
// Rewrites by a stage plan
//===----------------------------------------------------------------------===//

int64_t mlir::memopt::applyStagePlan(func::FuncOp func,
                                     const StepGroups &groups,
                                     ArrayRef<SmallVector<unsigned>> plan) {
  Block &block = func.getBody().front();
  removeMemoryPlan(func);
  eraseFrees(func);
  SmallVector<Operation *> ops = getPlanOps(func);
  IRMapping latest;
  SmallVector<Operation *> clones;
  auto remap = [&](Operation *op) {
    if (!readsRecomputed(op))
      return;
    for (OpOperand &use : op->getOpOperands())
      if (Value copy = latest.lookupOrNull(use.get()))
        use.set(copy);
  };
  for (auto [g, members] : llvm::enumerate(groups.members)) {
    OpBuilder builder(ops[members.front()]);
    for (unsigned k : plan[g]) {
      for (unsigned index : groups.members[k]) {
        Operation *clone = builder.clone(*ops[index], latest);
        clone->setAttr(TrainDialect::kRecomputedAttrName,
                       builder.getUnitAttr());
        clones.push_back(clone);
      }
    }
    for (unsigned index : members) {
      remap(ops[index]);
      // The op's own results are the latest copies from here on.
      for (Value result : ops[index]->getResults())
        latest.erase(result);
    }
  }
  remap(block.getTerminator());
  int64_t flops = 0;
  for (Operation *clone : llvm::reverse(clones)) {
    if (clone->use_empty() && isMemoryEffectFree(clone)) {
      clone->erase();
      continue;
    }
    if (auto cost = dyn_cast<train::CostOpInterface>(clone))
      flops += cost.getFlops();
  }
  makeLifetimesExplicit(func);
  return flops;
}

//===----------------------------------------------------------------------===//
// chain
//===----------------------------------------------------------------------===//

/// Whether the plan of a model-based algorithm (chain, optimal) peaks within
/// `limit` once applied; `why` says by how much it does not.
static bool fitsLimit(const RematCandidate &candidate, int64_t limit,
                      std::string &why) {
  if (candidate.peak <= limit)
    return true;
  why = (llvm::Twine("its best plan peaks at ") + llvm::Twine(candidate.peak) +
         " bytes")
            .str();
  return false;
}

FailureOr<ChainGroups> mlir::memopt::getChainGroups(func::FuncOp func,
                                                    std::string &why) {
  func::FuncOp copy = func.clone();
  eraseFrees(copy);
  FailureOr<ChainGroups> built = buildChainGroups(copy, why);
  copy.erase();
  return built;
}

std::optional<RematCandidate> mlir::memopt::runChainRemat(func::FuncOp func,
                                                          int64_t limit,
                                                          int64_t peak,
                                                          std::string &why) {
  FailureOr<ChainGroups> built = getChainGroups(func, why);
  if (failed(built)) {
    why = "the step is not a chain of layers: " + why;
    return std::nullopt;
  }
  auto chain = std::make_shared<ChainGroups>(std::move(*built));
  auto start = std::chrono::steady_clock::now();
  // The model holds some values longer than the step does (inputs that
  // die early count as persistent; a layer's input is held through its
  // whole backward part): where it needs more than the step for keeping
  // everything, start with that much more memory.
  int64_t keepAll = peak - chain->persistent;
  int64_t memory =
      limit - chain->persistent +
      std::max<int64_t>(0, chainKeepAllMemory(chain->layers) - keepAll);
  for (int attempt = 0; attempt < 8; ++attempt) {
    RematChainResult result = solveChainRotor(chain->layers, memory);
    if (result.status != RematStatus::Optimal) {
      why = (llvm::Twine("the chain model of ") +
             llvm::Twine(chain->layers.size()) + " layers has no schedule in " +
             llvm::Twine(std::max<int64_t>(memory, 0)) + " bytes beside the " +
             llvm::Twine(chain->persistent) +
             " bytes of parameters, states, inputs and results" +
             (result.error.empty() ? "" : ": " + result.error))
                .str();
      return std::nullopt;
    }
    StagePlan plan = getChainPlan(*chain, result.actions);
    RematCandidate candidate =
        evaluateRewrite(func, "chain", [chain, plan](func::FuncOp target) {
          return applyStagePlan(target, chain->groups, plan);
        });
    double seconds =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - start)
            .count();
    candidate.detail =
        (llvm::Twine("optimal over a chain of ") +
         llvm::Twine(chain->layers.size()) + " layers, model recompute " +
         llvm::formatv("{0:e3}", result.recomputeCost) + " FLOPs, unit " +
         llvm::Twine(result.unit) + " B, " + llvm::formatv("{0:f2}", seconds) +
         " s")
            .str();
    if (fitsLimit(candidate, limit, why))
      return candidate;
    memory -= std::max(candidate.peak - limit, result.unit);
  }
  return std::nullopt;
}

//===----------------------------------------------------------------------===//
// optimal
//===----------------------------------------------------------------------===//

FailureOr<StepGroups> mlir::memopt::getStepGroups(func::FuncOp func,
                                                  unsigned segments) {
  func::FuncOp copy = func.clone();
  eraseFrees(copy);
  FailureOr<StepGroups> built = buildStepGroups(copy, segments);
  copy.erase();
  return built;
}

std::optional<RematCandidate>
mlir::memopt::runOptimalRemat(func::FuncOp func, const StepGroups &steps,
                              int64_t limit, const OptimalRematLimits &limits,
                              std::chrono::steady_clock::time_point start,
                              std::string &why, bool &proven,
                              const OffloadCostModel *offload) {
  proven = false;
  GroupOffloads offloads;
  if (offload)
    offloads = getGroupOffloads(func, steps, *offload);
  auto elapsed = [&] {
    return std::chrono::duration<double>(std::chrono::steady_clock::now() -
                                         start)
        .count();
  };
  double seconds = limits.timeLimitSeconds;
  // The calibrated model reproduces the step's peak, so start from the
  // budget itself; lower it while the exact peak of the plan is over.
  int64_t modelBudget = limit;
  for (int attempt = 0; attempt < 6; ++attempt) {
    RematOptimalOptions options;
    if (seconds > 0.0) {
      double left = seconds - elapsed();
      if (left <= 0.0) {
        why =
            (llvm::Twine("the time limit of ") + llvm::formatv("{0}", seconds) +
             " s ran out after " + llvm::Twine(attempt) + " solves" +
             (attempt ? " (" + why + ")" : std::string()))
                .str();
        break;
      }
      options.timeLimitSeconds = left;
    } else {
      options.timeLimitSeconds = 0.0;
    }
    options.nodeLimit = limits.nodeLimit;
    if (limits.cutoffFlops)
      options.costCutoff = static_cast<double>(*limits.cutoffFlops);
    options.offloads = offloads.options;
    RematResult result = solveOptimal(steps.graph, modelBudget, options);
    if (!result.hasSchedule() && limits.cutoffFlops &&
        result.status == RematStatus::NoSolution) {
      why = (llvm::Twine("the solver's model of ") +
             llvm::Twine(steps.members.size()) + " groups (" +
             llvm::Twine(steps.numForward) + " forward) has no plan within " +
             llvm::Twine(modelBudget) + " model bytes cheaper than " +
             llvm::Twine(*limits.cutoffFlops) + " recomputed FLOPs" +
             (result.cutoffProven ? " (proven)" : " within its limits"))
                .str();
      proven = result.cutoffProven;
      break;
    }
    if (!result.hasSchedule()) {
      proven = result.status == RematStatus::Infeasible;
      why = (llvm::Twine("the solver's model of ") +
             llvm::Twine(steps.members.size()) + " groups (" +
             llvm::Twine(steps.numForward) + " forward) says " +
             stringifyRematStatus(result.status) + " at " +
             llvm::Twine(modelBudget) + " model bytes" +
             (result.error.empty() ? "" : ": " + result.error))
                .str();
      break;
    }
    StagePlan plan = getStagePlan(steps, result.schedule);
    RematCandidate candidate;
    if (offload) {
      // The values of the groups the solver offloads, after its plan.
      SmallVector<ForwardValueKey> keys;
      for (int option : result.offloads)
        llvm::append_range(keys, offloads.keys[option]);
      candidate = evaluateOffloadRewrite(
          func, "optimal",
          [&steps, plan, keys, model = *offload](func::FuncOp target) {
            int64_t flops = applyStagePlan(target, steps, plan);
            applyOffloads(target, keys, model);
            return flops;
          },
          *offload);
      candidate.offloaded = std::move(keys);
    } else {
      candidate =
          evaluateRewrite(func, "optimal", [&steps, plan](func::FuncOp target) {
            return applyStagePlan(target, steps, plan);
          });
    }
    candidate.gap = result.gap();
    candidate.detail =
        (llvm::Twine(stringifyRematStatus(result.status)) + " over " +
         llvm::Twine(steps.members.size()) + " groups (" +
         llvm::Twine(steps.numForward) + " forward), model recompute " +
         llvm::formatv("{0:e3}", result.recomputeCost) + " FLOPs" +
         (result.offloads.empty()
              ? std::string()
              : ", " + std::to_string(result.offloads.size()) +
                    " groups offloaded") +
         ", gap " + llvm::formatv("{0:f4}", result.gap()) + ", " +
         llvm::formatv("{0:f2}", elapsed()) + " s")
            .str();
    if (fitsLimit(candidate, limit, why)) {
      proven = result.status == RematStatus::Optimal;
      return candidate;
    }
    modelBudget -= candidate.peak - limit;
  }
  return std::nullopt;
}
