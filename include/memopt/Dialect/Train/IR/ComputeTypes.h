//===- ComputeTypes.h - the types train ops compute in ----------*- C++ -*-===//
//
// One policy for the element types that ops compute and accumulate in. The
// verifiers (result types of promoting ops), the workspace model (the bytes
// of wider scratch buffers) and the lowering (the types it computes in) all
// read it here: measured == predicted peak depends on them agreeing.
//
//===----------------------------------------------------------------------===//

#ifndef MEMOPT_DIALECT_TRAIN_IR_COMPUTETYPES_H
#define MEMOPT_DIALECT_TRAIN_IR_COMPUTETYPES_H

#include "mlir/IR/Types.h"
#include "llvm/ADT/ArrayRef.h"

namespace mlir::memopt::train {

/// The type a reduction or a contraction over `elementType` accumulates in:
/// f32 for floats narrower than 32 bits (bf16, f16, the fp8 formats), the
/// type itself otherwise.
Type getAccumulatorType(Type elementType);

/// The type normalizations and attention compute their statistics in: f32,
/// or the widest of `types` when that is wider (f64 keeps f64). `types` must
/// not be empty.
Type getComputeType(ArrayRef<Type> types);

/// The type a binary op of `a` and `b` promotes to: the wider of the two;
/// two different types of one width (bf16 and f16, or the two fp8 formats)
/// promote to f32.
Type getWiderFloatType(Type a, Type b);

/// The type a loss (cross_entropy, mse_loss) and its gradient compute in:
/// the wider of the data's accumulator type and the loss's (or its
/// gradient's) own type.
Type getLossComputeType(Type dataType, Type lossType);

} // namespace mlir::memopt::train

#endif // MEMOPT_DIALECT_TRAIN_IR_COMPUTETYPES_H
