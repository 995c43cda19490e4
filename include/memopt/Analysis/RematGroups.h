//===- RematGroups.h - a training step coarsened for remat solvers -*- C++ -*-//
//
// train-remat's schedule solvers (the MILP of `optimal`, the rotor DP of
// `chain`) decide over groups of consecutive ops, not single activations.
// This header builds those groups from the IR of a step (TensorLiveness
// gives the sizes and lifetimes) and turns a solver's answer into a stage
// plan: for each group, the forward groups computed again right before it.
// Rewriting the IR by a plan is train-remat's (RematStrategies.h).
//
//===----------------------------------------------------------------------===//

#ifndef MEMOPT_ANALYSIS_REMATGROUPS_H
#define MEMOPT_ANALYSIS_REMATGROUPS_H

#include "memopt/Analysis/Remat.h"
#include "memopt/Analysis/TensorLiveness.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"

#include <string>

namespace mlir::memopt {

/// Whether `op` computes a forward value (the loss depends on it); state
/// reads are not computations: their values are always available.
bool computesForward(const TensorLiveness &liveness, Operation *op);

/// The activation buffers of `liveness`, in definition order.
SmallVector<const Buffer *> getActivations(const TensorLiveness &liveness);

/// The layer an op belongs to: its `train.layer` attribute (mem-gen writes
/// it), else the prefix of its location name up to the first purely numeric
/// component ("h.3" of "h.3.attn.c_attn"), or "".
std::string getLayerKey(Operation *op);

/// The ops a stage plan indexes: the body without `train.free`s and the
/// terminator, in program order. Identical for a step and its copies.
SmallVector<Operation *> getPlanOps(func::FuncOp func);

/// A step coarsened for the schedule solvers: contiguous groups of ops in
/// program order. Forward groups are segments of the forward pass (layers
/// where locations name them); backward groups are the runs of backward ops
/// reading the activations of one forward group (and the optimizer after
/// them). State reads belong to no group: their values are always available.
/// Node 0 of `graph` holds the persistent bytes (parameters, optimizer
/// states, inputs); node g + 1 is group g: cost its FLOPs, bytes the buffers
/// it defines that outlive it, workspace the most its other buffers and its
/// ops' scratch take at one point.
struct StepGroups {
  /// Indices into getPlanOps, per group.
  SmallVector<SmallVector<unsigned>> members;
  /// Whether each group is a forward group (the first numForward are).
  SmallVector<bool> forward;
  unsigned numForward = 0;
  RematGraph graph;

  /// The node of `graph` that models `group`.
  static int node(unsigned group) { return static_cast<int>(group) + 1; }
};

/// Builds the groups of `func` (which must have no `train.free`s) with at
/// most `segments` forward groups (at least 1). Fails when the step has no
/// forward op or its group model does not verify.
FailureOr<StepGroups> buildStepGroups(func::FuncOp func, unsigned segments);

/// A step seen as a chain of layers for solveChainRotor: forward groups
/// (layers, as `layers` finds them; one per forward op in a step without
/// layer names), then the backward groups B_{L-1}, ..., B_0. B_j is the run
/// of backward ops that read values of layer j or the output of layer j-1
/// (what layer j reads), and nothing else of the forward pass.
struct ChainGroups {
  /// Forward groups 0..L-1, then the nonempty B_j; `graph` is unused.
  StepGroups groups;
  /// Per layer, the group of B_j, or -1 when B_j is empty.
  SmallVector<int> backwardGroup;
  SmallVector<RematChainLayer> layers;
  /// Bytes outside the model: parameters, optimizer states, inputs, and
  /// the forward pass' constants and returned buffers (the loss).
  int64_t persistent = 0;
};

/// The most layers `chain` decides over; deeper steps merge runs of layers.
constexpr unsigned kMaxChainLayers = 64;

/// Builds the chain of `func` (which must have no `train.free`s); fails with
/// the reason in `why` when the step is not a chain.
FailureOr<ChainGroups> buildChainGroups(func::FuncOp func, std::string &why);

/// A stage plan over the groups of a step: for each group g, the forward
/// groups before it that are computed again right before it, in the order
/// they are computed.
using StagePlan = SmallVector<SmallVector<unsigned>>;

/// The stage plan of a schedule over `groups.graph`.
StagePlan getStagePlan(const StepGroups &groups, const RematSchedule &schedule);

/// The stage plan of a chain schedule: the recomputations before each B_j
/// (in execution order; those before an empty B_j go before the next B).
StagePlan getChainPlan(const ChainGroups &chain,
                       ArrayRef<RematChainAction> actions);

} // namespace mlir::memopt

#endif // MEMOPT_ANALYSIS_REMATGROUPS_H
