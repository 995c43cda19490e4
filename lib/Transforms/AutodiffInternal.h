//===- AutodiffInternal.h - train-autodiff's parts, for train-pipeline ----===//
//
// The pieces of Autodiff.cpp that train-pipeline reuses to derive each
// pipeline stage's backward pass micro-batch by micro-batch: the active
// values, the reverse sweep from given seeds, and the optimizer updates.
//
//===----------------------------------------------------------------------===//

#ifndef MEMOPT_LIB_TRANSFORMS_AUTODIFFINTERNAL_H
#define MEMOPT_LIB_TRANSFORMS_AUTODIFFINTERNAL_H

#include "memopt/Dialect/Train/IR/Precision.h"
#include "memopt/Transforms/Autodiff.h"

#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/DenseSet.h"
#include "llvm/ADT/MapVector.h"

namespace mlir::memopt::autodiff {

/// A name location "<name>" nested in `loc`.
Location named(MLIRContext *ctx, const Twine &name, Location loc);

/// The values loss scaling threads through a step (all null without it).
struct LossScale {
  /// The 0-d f32 scale the loss gradient was seeded with.
  Value scale;
  /// Dynamic scaling: the persistent exponent of the scale.
  Value exponent;
  /// Dynamic scaling: whether a gradient is inf or NaN, and the count of
  /// steps skipped so far (read by Adam's bias correction).
  Value found;
  Value skipped;
};

/// The values of `ops` (in program order) that need a gradient: those that
/// depend on a trainable float parameter or on one of `sources`, and that
/// one of `sinks` depends on.
llvm::DenseSet<Value> getActiveValues(ArrayRef<Operation *> ops,
                                      ArrayRef<Value> sources,
                                      ArrayRef<Value> sinks);

/// The reverse sweep over `forward` (in program order), at the builder's
/// insertion point: from the gradients already in `grads` (the seeds),
/// through each op's gradient rule in reverse order, gradients of a value
/// read several times summed. Every active value reached gets its gradient
/// in `grads`.
LogicalResult buildBackward(OpBuilder &builder, ArrayRef<Operation *> forward,
                            const llvm::DenseSet<Value> &active,
                            llvm::DenseMap<Value, Value> &grads);

/// Whether `kind` appends Adam updates (which read the step counter).
bool isAdamLike(AutodiffOptimizer kind);

/// Appends the optimizer updates of `paramGrads` (name -> parameter value,
/// gradient), or with AutodiffOptimizer::None the gradients as results.
LogicalResult emitUpdates(
    func::FuncOp func, OpBuilder &builder, const AutodiffOptions &options,
    const llvm::MapVector<StringRef, std::pair<Value, Value>> &paramGrads,
    const LossScale &lossScale);

/// Gives each parameter gradient the type the optimizer receives under
/// `config`: the low type (the gradient of the parameter's low copy, before
/// the cast's gradient widens it) or f32.
void castGradients(
    OpBuilder &builder, const train::PrecisionConfig &config,
    llvm::MapVector<StringRef, std::pair<Value, Value>> &paramGrads);

/// Casts again, before its first use after `lastForward`, a cast of an
/// activation that the backward pass reads (one copy, not two, lives from
/// the forward pass to the backward).
void recastForBackward(OpBuilder &builder, Block &body, Operation *lastForward);

/// Dequantizes again, before its first use after `lastForward`, a weight
/// that train-quantize-frozen stores quantized (as QLoRA does).
void redequantizeForBackward(OpBuilder &builder, Block &body,
                             Operation *lastForward);

/// The number of sequence parts a sequence-parallel step's `loss` averages
/// (the tensor-parallel degree), else 1: the backward's seed is divided by it.
int64_t getLossSequenceParts(func::FuncOp func, Value loss);

/// In a step train-shard made data-parallel: every parameter gradient
/// averaged over the data-parallel grid axis before its update (ZeRO's
/// reduce-scatters made averages).
void averageOverDataParallel(
    func::FuncOp func, OpBuilder &builder,
    llvm::MapVector<StringRef, std::pair<Value, Value>> &paramGrads);

/// ZeRO-3 and sequence parallelism: the forward's gathers done again before
/// their first use after `lastForward`.
void regatherForBackward(func::FuncOp func, OpBuilder &builder,
                         Operation *lastForward);

} // namespace mlir::memopt::autodiff

#endif // MEMOPT_LIB_TRANSFORMS_AUTODIFFINTERNAL_H
