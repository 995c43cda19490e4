//===- RematStrategies.h - train-remat's algorithms -------------*- C++ -*-===//
//
// The algorithms of train-remat (docs/remat.md), one function each. A
// keep-set algorithm (sqrt, selective) says which activations of
// TensorLiveness a step keeps, `layers` which forward buffers; the others
// (greedy, chain, optimal) search, measuring each rewrite they consider,
// and return a RematCandidate: a rewrite of the step with its exact peak
// and recomputed FLOPs. The pass (TrainRemat.cpp) chooses among candidates
// and applies one.
//
//===----------------------------------------------------------------------===//

#ifndef MEMOPT_TRANSFORMS_REMATSTRATEGIES_H
#define MEMOPT_TRANSFORMS_REMATSTRATEGIES_H

#include "memopt/Analysis/RematGroups.h"
#include "memopt/Analysis/TensorLiveness.h"
#include "memopt/Autoplan/DeviceProfile.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "llvm/ADT/DenseSet.h"
#include "llvm/ADT/SmallBitVector.h"

#include <chrono>
#include <functional>
#include <optional>
#include <string>

namespace mlir::memopt {

/// A forward value, named so that the name holds in every rewrite of the
/// step: its defining op is the `forwardOp`-th op (program order) for which
/// computesForward holds, and it is that op's result `result`. Rewrites add
/// backward ops and copies and move backward ops, never forward ones.
struct ForwardValueKey {
  unsigned forwardOp = 0;
  unsigned result = 0;
  bool operator==(const ForwardValueKey &other) const {
    return forwardOp == other.forwardOp && result == other.result;
  }
};

/// A rewrite of the step (a keep-set or a stage plan) and its outcome.
struct RematCandidate {
  /// The algorithm that proposed it ("none", "greedy", ...).
  std::string algorithm;
  /// Rewrites a step (the original or a copy) and returns the recomputed
  /// FLOPs.
  std::function<int64_t(func::FuncOp)> apply;
  /// The exact peak (LOAD) of the rewritten step, bytes.
  int64_t peak = 0;
  /// The FLOPs of the recomputed ops.
  int64_t flops = 0;
  /// What the solver said (status, gap, time), for the remark; may be empty.
  std::string detail;
  /// The MILP's relative gap between its plan's cost and its proven bound
  /// (over its group model; 0 when proven optimal), for `optimal`'s plans.
  std::optional<double> gap;
  /// The keep-set, for the candidates that are one (getActivations order).
  std::optional<llvm::SmallBitVector> keep;
  /// The activations `apply` offloads to host memory (applyOffloads), and
  /// the bytes each direction of the host link carries for them.
  SmallVector<ForwardValueKey> offloaded;
  int64_t numOffloaded = 0;
  int64_t offloadedBytes = 0;
  /// The step's time by OffloadCostModel, when one was given (seconds), and
  /// the host's peak then (bytes).
  std::optional<double> seconds;
  int64_t hostPeak = 0;
};

//===----------------------------------------------------------------------===//
// Activation offload (RematOffload.cpp)
//===----------------------------------------------------------------------===//

/// What the device computes at and what its host link carries, for the
/// offload decisions and the time of a step.
struct OffloadCostModel {
  autoplan::DeviceProfile device;
  /// One direction of the host link (the two directions run at once).
  double linkBytesPerSecond = 0;
};

/// The seconds `op` takes on `device` by the roofline: its FLOPs at the peak
/// rate of the unit it runs on (tensor cores for matmuls, convolutions and
/// attention at their operands' type), or its bytes at the HBM bandwidth,
/// whichever is longer; 0 for ops without a cost.
double estimateOpSeconds(Operation *op, const autoplan::DeviceProfile &device);

/// The time of one step by `model`: the device runs its ops one after the
/// other; each direction of the host link runs its copies one after the
/// other, a copy starting when it is reached in program order (and its
/// source is ready) and the link is free; an op waits for the copies it
/// reads. Host ops (train-offload's) take no device time.
struct StepTime {
  double seconds = 0;
  /// The ops alone, and the waits for copies within `seconds`.
  double computeSeconds = 0;
  double stallSeconds = 0;
};
StepTime estimateStepTime(func::FuncOp func, const OffloadCostModel &model);

/// The bytes per second of `link`: `pcie4`, `pcie5`, `nvlink-c2c` (one
/// direction of a PCIe Gen4/Gen5 x16 link, of Grace Hopper's chip-to-chip
/// link) or a positive number of bytes per second; fails on anything else.
FailureOr<double> parseHostLink(StringRef link);

/// The forward values `apply` may offload in `func` as it is: activations on
/// the device (not persistent, not returned) that every backward op reads
/// directly (not through a view), whose backward reads all follow the last
/// forward read. `liveness` is the analysis of `func` without its frees.
SmallVector<ForwardValueKey> getOffloadable(func::FuncOp func,
                                            const TensorLiveness &liveness);

/// Rewrites `func` so that each value of `keys` (those getOffloadable
/// accepts; others are left as they are) is copied to host memory
/// (`train.to_host`) after its last forward read and back
/// (`train.to_device`) before its first backward read, which reads the copy:
/// early enough that the backward ops between take the copy's time by
/// `model` (a prefetch), never before the copy out. The copies carry
/// `train.offloaded`; frees are placed anew. Returns the bytes offloaded.
int64_t applyOffloads(func::FuncOp func, ArrayRef<ForwardValueKey> keys,
                      const OffloadCostModel &model);

/// Offload on top of `base`, a candidate of `func`: first, while its peak
/// is over `limit`, offloads the activation live at the peak that lowers it
/// most (of the few largest); then, for a keep-set, trades recomputed
/// activations for offloaded ones, largest first (while over `limit`, those
/// that lower the peak; within it, those that keep it within and lower the
/// time by `model`), and offloads at the peak once more. Recomputes no more
/// FLOPs than `base`. Nothing when no offload helps.
std::optional<RematCandidate> addOffloads(func::FuncOp func,
                                          const RematCandidate &base,
                                          std::optional<int64_t> limit,
                                          const OffloadCostModel &model);

//===----------------------------------------------------------------------===//
// Rewrites
//===----------------------------------------------------------------------===//

/// Rewrites `func` so that the activations (getActivations order) whose bit
/// in `keep` is clear are recomputed before their first backward use; places
/// the frees anew and drops a memory plan. A recomputation reads the values
/// of getNeverRecomputed as the forward pass left them (they stay live
/// until then). Backward ops a schedule hoisted into the forward pass that
/// read recomputed values move down first (see applyLayerCheckpoints).
/// Returns the FLOPs of the recomputed ops.
int64_t applyKeepSet(func::FuncOp func, const llvm::SmallBitVector &keep);

/// Rewrites `func` as `layers` does: its layer checkpoints
/// (getLayerCheckpoints) and getNeverRecomputed are kept and every other
/// forward value is recomputed from them before its first backward use;
/// places the frees anew and drops a memory plan. Backward ops a schedule
/// hoisted into the forward pass (a weight gradient's view of a forward value)
/// that read recomputed values move down to their first user first, so that no
/// recomputation runs in the forward pass. Returns the FLOPs of the
/// recomputed ops.
int64_t applyLayerCheckpoints(func::FuncOp func);

/// Rewrites `func` by a stage plan over `groups` (built on a copy of `func`
/// without frees): before the ops of group g, the forward groups plan[g] are
/// computed again from the latest copies of their operands, and every op
/// reads the latest copy of its operands. Recomputed ops nothing reads are
/// dropped; frees are placed anew. Returns the FLOPs of the recomputed ops.
int64_t applyStagePlan(func::FuncOp func, const StepGroups &groups,
                       ArrayRef<SmallVector<unsigned>> plan);

/// Applies `apply` to a copy of `func` and measures it.
RematCandidate evaluateRewrite(func::FuncOp func, StringRef algorithm,
                               std::function<int64_t(func::FuncOp)> apply);

/// Applies the keep-set `keep` to a copy of `func` and measures it.
RematCandidate evaluateKeepSet(func::FuncOp func, StringRef algorithm,
                               llvm::SmallBitVector keep);

//===----------------------------------------------------------------------===//
// Keep-set algorithms, over getActivations(liveness) of the step
//===----------------------------------------------------------------------===//

/// `layers` (full recomputation, as Megatron's): the forward buffers it
/// keeps. These are the layer boundaries, the forward values a forward op
/// of another layer (or of no layer) reads, directly or through views,
/// whether or not the backward pass reads them; and the activations outside
/// layers. A layer is a location-name prefix ending in a number
/// (getLayerKey). Not a keep-set over activations: under mixed precision a
/// boundary (the bf16 residual stream) is often no activation, only its
/// fp32 cast inside the next layer is.
SmallVector<const Buffer *> getLayerCheckpoints(const TensorLiveness &liveness);

/// The forward values a rewrite reads as the forward pass left them and
/// never recomputes (their buffers' defining values):
/// - the layer checkpoints (getLayerCheckpoints) of a float type narrower
///   than f32 that are no activations: under mixed precision, the
///   low-precision residual stream that the next layer reads only through a
///   cast. (An f32 one, such as a convolution output that only the next
///   op's ReLU reads where each op is a layer, stays recomputable: keeping
///   it to recompute the ReLU would save nothing.) Without them, recomputing a dropped
///   activation of a layer would recompute every layer before it, from the
///   embedding. They cost nothing while no recomputation reads them (the
///   backward pass does not);
/// - the results of forward ops that read state an in-place update placed
///   before the backward pass ends changes (fp8's scale, from an amax
///   history that train.amax_record updates in the forward pass): a copy
///   computed after the update would differ.
llvm::DenseSet<Value> getNeverRecomputed(func::FuncOp func,
                                         const TensorLiveness &liveness);

/// `sqrt` (Chen et al.): keeps every ceil(sqrt(n))-th of the n activations,
/// in program order.
llvm::SmallBitVector getSqrtKeepSet(const TensorLiveness &liveness);

/// `selective` (Megatron): keeps every activation but the attention scores,
/// softmax outputs and the dropout applied to them. All bits are set when
/// the step has no attention scores.
llvm::SmallBitVector getSelectiveKeepSet(const TensorLiveness &liveness);

//===----------------------------------------------------------------------===//
// Searches
//===----------------------------------------------------------------------===//

/// `greedy`, peak-directed: measures the step and, among the kept
/// activations live at its peak, drops the one of least added recompute
/// FLOPs per byte of peak removed (then batches of the next ranked ones
/// while they pay off about as well); repeats on the rewritten step. Returns
/// the first candidate whose peak meets `limit` or, when none does (or
/// without a limit), the lowest-peak one. `liveness` is the analysis of
/// `func`.
///
/// Keep-sets are evaluated on a KeepSetModel of the step, and the answer
/// once more by rewriting the IR; should they disagree (a step the model
/// gets wrong), the search runs again on rewrites of the IR, with a warning.
/// With `checkModel` every evaluation is compared with the rewrite and a
/// difference is an error (failure).
FailureOr<RematCandidate> runGreedyRemat(func::FuncOp func,
                                         const TensorLiveness &liveness,
                                         std::optional<int64_t> limit,
                                         bool checkModel = false);

/// The chain of layers of `func` (frees are ignored); fails with the reason
/// in `why` when the step is not a chain.
FailureOr<ChainGroups> getChainGroups(func::FuncOp func, std::string &why);

/// `chain`: the rotor DP over the step's layers. Its model approximates the
/// exact liveness, so the plan is measured exactly and, while it exceeds
/// `limit`, solved again with the model's memory lowered by the excess.
/// `peak` is the step's peak as it is. Without a candidate, `why` says why.
std::optional<RematCandidate> runChainRemat(func::FuncOp func, int64_t limit,
                                            int64_t peak, std::string &why);

/// The groups of `func` for `optimal` (frees are ignored), with at most
/// `segments` forward groups; fails when the step cannot be grouped.
FailureOr<StepGroups> getStepGroups(func::FuncOp func, unsigned segments);

/// The limits of runOptimalRemat.
struct OptimalRematLimits {
  /// Seconds for the whole algorithm from its start; 0: no wall clock.
  double timeLimitSeconds = 30.0;
  /// Branch-and-bound nodes per solve; 0: none.
  int64_t nodeLimit = 0;
  /// The recompute FLOPs of a candidate already in hand (greedy's): the
  /// solver looks only for plans its model says are cheaper.
  std::optional<int64_t> cutoffFlops;
};

/// `optimal`: Checkmate's MILP over `groups` (buildStepGroups of `func`).
/// The model's peak of a group plan bounds the exact one only approximately,
/// so the plan is measured exactly and, while it exceeds `limit`, solved
/// again with the model's budget lowered by the excess (at most 6 solves).
/// The time limit counts from `start` and covers every solve and
/// measurement. Without a candidate, `why` says why (it keeps its value
/// when no solve ran). `proven` tells whether the last solve settled its
/// model: the plan returned is optimal for it, or the model has no plan
/// within the budget (cheaper than the cutoff); false when a limit ended it.
/// With `offload`, the MILP also chooses among the forward groups
/// getGroupOffloads offers (copied out and back instead of kept or
/// recomputed), and the candidate offloads their values (applyOffloads).
std::optional<RematCandidate>
runOptimalRemat(func::FuncOp func, const StepGroups &groups, int64_t limit,
                const OptimalRematLimits &limits,
                std::chrono::steady_clock::time_point start, std::string &why,
                bool &proven, const OffloadCostModel *offload = nullptr);

/// The offloads optimal's MILP may choose over `groups` (getStepGroups of
/// `func`): one per forward group with values the backward pass reads that
/// can be offloaded (getOffloadable), those values, restored into the stage
/// of the first backward group that reads one; the rest of the group stays
/// (RematOffloadOption::keptBytes). Its cost is the copies' time
/// the step's computation does not hide (the copy out and back, one after
/// the other on the link, beyond the roofline time of the groups between
/// the group and its restore; by `model`), as FLOPs at the step's own rate
/// (its FLOPs over its roofline time), plus 1 so that ties keep. `keys[i]`
/// are option i's values.
struct GroupOffloads {
  std::vector<RematOffloadOption> options;
  SmallVector<SmallVector<ForwardValueKey>> keys;
};
GroupOffloads getGroupOffloads(func::FuncOp func, const StepGroups &groups,
                               const OffloadCostModel &model);

/// evaluateRewrite for a rewrite that may offload: also the host's peak,
/// the time by `model`, and the activations offloaded and their bytes.
RematCandidate
evaluateOffloadRewrite(func::FuncOp func, StringRef algorithm,
                       std::function<int64_t(func::FuncOp)> apply,
                       const OffloadCostModel &model);

} // namespace mlir::memopt

#endif // MEMOPT_TRANSFORMS_REMATSTRATEGIES_H
