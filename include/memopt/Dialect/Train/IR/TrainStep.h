//===- TrainStep.h - what the train passes expect of their input -*- C++
//-*-===//
//
// The analyses and transformations of memopt (liveness, lifetimes, remat,
// arena planning, the report) work on training steps in the train dialect.
// Run on lowered IR they would see no train ops and answer nonsense (a peak
// of the memrefs' handles, frees of linalg values), so they check their
// input first and say which pass to run before them.
//
//===----------------------------------------------------------------------===//

#ifndef MEMOPT_DIALECT_TRAIN_IR_TRAINSTEP_H
#define MEMOPT_DIALECT_TRAIN_IR_TRAINSTEP_H

#include "mlir/Interfaces/FunctionInterfaces.h"

namespace mlir::memopt::train {

/// Fails, with an error at the first offending op, when the body of `func`
/// is a lowered program: it holds buffers (memref, bufferization, gpu or llvm
/// ops), or linalg ops and no train op. `passName` runs on train IR, before
/// convert-train-to-linalg; linalg ops mixed into a train step are fine.
LogicalResult verifyNotLowered(FunctionOpInterface func, StringRef passName);

/// What the passes that read program order as the schedule expect of a
/// function with a body: one block (else an error on `func`), and a step
/// that is not lowered (verifyNotLowered).
LogicalResult verifyStepBody(FunctionOpInterface func, StringRef passName);

/// The first op of the train dialect in `root` (itself included), if any.
Operation *findTrainOp(Operation *root);

/// Whether `op` updates one of its operands in place (an optimizer update,
/// a loss-scale or amax-history update).
bool isInPlaceUpdate(Operation *op);

/// The first op in `root` that updates an operand in place (an optimizer
/// update, a loss-scale or amax-history update), if any: a forward + loss
/// function has none, a training step has some.
Operation *findInPlaceUpdate(Operation *root);

/// The grid axes over which train-shard's tensor-parallel collectives run
/// in `func`: axis 1, or axes 1 and 2 when its `train.shard` replicates KV
/// heads (`kv_replicas`); empty when train-shard did not partition it.
SmallVector<int16_t> getTensorParallelAxes(Operation *func);

} // namespace mlir::memopt::train

#endif // MEMOPT_DIALECT_TRAIN_IR_TRAINSTEP_H
