//===- TrainInterfaces.h - cost and aliasing interfaces ---------*- C++ -*-===//

#ifndef MEMOPT_DIALECT_TRAIN_IR_TRAININTERFACES_H
#define MEMOPT_DIALECT_TRAIN_IR_TRAININTERFACES_H

#include "memopt/Dialect/Train/IR/TrainTraits.h"
#include "mlir/IR/OpDefinition.h"
#include "llvm/ADT/SmallVector.h"

namespace mlir::memopt::train {

/// Bytes of one element of `elementType` in memory: ceil(bitwidth / 8), so
/// i1 masks and fp8 take one byte each.
int64_t getElementBytes(Type elementType);

/// Bytes of a statically shaped tensor; 0 for anything else.
int64_t getTensorBytes(Type type);

/// The strides with which `newShape` views the elements of a tensor of shape
/// `shape` laid out with `strides`, if the reshape needs no copy (the rule of
/// PyTorch's `view`); std::nullopt if it does.
std::optional<SmallVector<int64_t>>
computeReshapeStrides(ArrayRef<int64_t> shape, ArrayRef<int64_t> strides,
                      ArrayRef<int64_t> newShape);

namespace detail {
/// Bytes read: every tensor operand, except for view ops (which read nothing).
int64_t getDefaultBytesRead(Operation *op);
/// Bytes written: every result that is not a view, plus operands updated in
/// place.
int64_t getDefaultBytesWritten(Operation *op);
} // namespace detail

} // namespace mlir::memopt::train

#include "memopt/Dialect/Train/IR/TrainInterfaces.h.inc"

#endif // MEMOPT_DIALECT_TRAIN_IR_TRAININTERFACES_H
