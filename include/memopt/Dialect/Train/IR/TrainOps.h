//===- TrainOps.h - train dialect operations --------------------*- C++ -*-===//

#ifndef MEMOPT_DIALECT_TRAIN_IR_TRAINOPS_H
#define MEMOPT_DIALECT_TRAIN_IR_TRAINOPS_H

#include "memopt/Dialect/Train/IR/TrainDialect.h"
#include "memopt/Dialect/Train/IR/TrainInterfaces.h"
#include "memopt/Dialect/Train/IR/TrainTraits.h"
#include "mlir/Bytecode/BytecodeOpInterface.h"
#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/OpDefinition.h"
#include "mlir/IR/OpImplementation.h"
#include "mlir/IR/SymbolTable.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"

#define GET_OP_CLASSES
#include "memopt/Dialect/Train/IR/TrainOps.h.inc"

namespace mlir::memopt::train {

/// The persistent 0-d i64 state that holds, under gradient accumulation
/// (train-accumulate-gradients), the index of the micro-batch in its
/// optimizer step: read by train.accumulate and train.micro_batch_skip,
/// advanced by train.micro_batch_advance.
inline constexpr llvm::StringLiteral kMicroBatchState =
    "grad_accumulation.micro_batch";

/// Where a value's buffer lives.
enum class MemorySpace { Device, Host };

/// Whether `op` runs on the host: it carries `train.space = "host"`.
bool isHostOp(Operation *op);

/// Where `value` lives: on the host when it is a result of a host op or of
/// train.to_host, else (train.to_device's results, other results, block
/// arguments) on the device.
MemorySpace getMemorySpace(Value value);

/// Marks `op` as running on the host (`train.space = "host"`).
void setHostOp(Operation *op);

/// Whether `state`, a train.opt_state, is the device's copy of a host
/// parameter that train.refresh keeps (train-offload under gradient
/// accumulation): weights, not an optimizer state.
bool isRefreshedCopy(Operation *state);

/// Verifies `train.space` on `op`: the value "host", and only host operands.
LogicalResult verifySpaceAttribute(Operation *op, NamedAttribute attribute);

/// The element strides of `value` inside the buffer it lives in: row-major
/// strides for a new buffer, and for a view the strides that its chain of
/// views (transpose, slice, reshape) implies over the source buffer.
SmallVector<int64_t> getBufferStrides(Value value);

/// The padding a pooling of the NCHW shape `input` into `pooled` needs
/// after the input in spatial dimension `dim` (0: H, 1: W): `padding[dim]`,
/// or more where a ceil_mode window reaches past it.
int64_t getPoolEndPadding(ArrayRef<int64_t> input, ArrayRef<int64_t> pooled,
                          ArrayRef<int64_t> kernel, ArrayRef<int64_t> strides,
                          ArrayRef<int64_t> padding, unsigned dim);

/// Attaches the gradient rule of `shard.all_reduce` (an identity: see
/// TrainParallelOps.cpp) as an external DifferentiableOpInterface model.
void registerShardGradientModels(DialectRegistry &registry);

} // namespace mlir::memopt::train

#endif // MEMOPT_DIALECT_TRAIN_IR_TRAINOPS_H
