//===- RematStrategiesInternal.h - train-remat's rewrites -------*- C++ -*-===//
//
// Internal to lib/Transforms: the pieces of the train-remat rewrites that
// RematStrategies.cpp (where they are defined) shares with the strategy
// families: keep-sets (RematKeepSets.cpp), layer checkpoints
// (RematLayerCheckpoints.cpp) and stage plans (RematStagePlans.cpp).
//
//===----------------------------------------------------------------------===//

#ifndef MEMOPT_LIB_TRANSFORMS_REMATSTRATEGIESINTERNAL_H
#define MEMOPT_LIB_TRANSFORMS_REMATSTRATEGIESINTERNAL_H

#include "memopt/Analysis/TensorLiveness.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "llvm/ADT/DenseSet.h"

namespace mlir::memopt::remat {

/// Erases the `train.free`s of `func`: rewrites place them anew.
void eraseFrees(func::FuncOp func);

/// Whether `op` may read recomputed copies of forward values. In-place
/// updates may not: they run after the backward pass, and a recomputation
/// placed before one of them would run after the updates before it and read
/// the parameters they changed (an fp8 amax that train.amax_record reads
/// after the optimizer updates must be the forward pass's own). They read
/// the values as they are, which stay live until then.
bool readsRecomputed(Operation *op);

/// Rewrites `func` (without frees or a memory plan; `liveness` is its
/// analysis) so that every forward value whose buffer is not in `kept` is
/// recomputed before its first backward use, from the kept values; places
/// the frees anew. Returns the FLOPs of the recomputed ops.
int64_t recomputeUnkept(func::FuncOp func, const TensorLiveness &liveness,
                        const llvm::DenseSet<Value> &kept);

/// Whether sinkEarlyBackwardOps moves ops in `func`: not in a pipeline
/// stage (train.pipeline), whose micro-batches' forward and backward passes
/// interleave in the schedule's order (a backward op before the last
/// forward op is where 1F1B runs it).
bool sinksEarlyBackwardOps(func::FuncOp func);

/// Moves each side-effect-free backward op that the schedule placed before
/// the last forward op and that reads a value not available in the backward
/// pass (directly or through other such ops) down to its anchor: its first
/// user that does not move (a user that moves stands for its own anchor).
/// The ops moved before one anchor keep their order. train-schedule hoists
/// the views a weight gradient takes of a forward value (they cost nothing)
/// next to that value; a recomputation placed before such a view would run
/// in the forward pass and be held through it. KeepSetModel mirrors this.
void sinkEarlyBackwardOps(func::FuncOp func, const TensorLiveness &liveness,
                          const llvm::DenseSet<Value> &kept);

/// For each op of `func` that reads a buffer an in-place update (an
/// optimizer's) writes later in the block, the first such update:
/// sinkEarlyBackwardOps never moves the op past it (it would read the
/// updated state: a weight gradient's input gradient reads the weight,
/// whose update the schedule may place right after). KeepSetModel mirrors
/// this.
llvm::DenseMap<Operation *, Operation *>
getFirstLaterWriters(func::FuncOp func, const TensorLiveness &liveness);

/// Adds to `values` the results (their buffers' defining values) of the
/// forward ops that read, directly or through views, state that an in-place
/// update changes while a recomputation of them may still run: after the op
/// and before the last backward op that reads one of its results or a
/// forward value computed from them. (train-schedule runs an optimizer
/// update as soon as its gradient is complete, and fp8's amax updates in
/// the forward pass.)
void addStateReaders(func::FuncOp func, const TensorLiveness &liveness,
                     llvm::DenseSet<Value> &values);

} // namespace mlir::memopt::remat

#endif // MEMOPT_LIB_TRANSFORMS_REMATSTRATEGIESINTERNAL_H
