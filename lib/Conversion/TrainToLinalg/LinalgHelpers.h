//===- LinalgHelpers.h - shared by LinalgLowering, LossLowering -*- C++ -*-===//
//
// Internal to lib/Conversion/TrainToLinalg: the iterator, indexing-map and
// reshape helpers that LinalgLowering.cpp (where they are defined) shares
// with LossLowering.cpp.
//
//===----------------------------------------------------------------------===//

#ifndef MEMOPT_LIB_CONVERSION_TRAINTOLINALG_LINALGHELPERS_H
#define MEMOPT_LIB_CONVERSION_TRAINTOLINALG_LINALGHELPERS_H

#include "mlir/Dialect/Utils/StructuredOpsUtils.h"
#include "mlir/IR/AffineMap.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinTypes.h"

namespace mlir::memopt {

/// `rank` parallel iterators, except `reductionDims`.
SmallVector<utils::IteratorType>
getIterators(int64_t rank, ArrayRef<int64_t> reductionDims = {});

/// `(d0, ..., d{rank-1}) -> (the dims not in dropped)`.
AffineMap getDroppedDimsMap(MLIRContext *ctx, int64_t rank,
                            ArrayRef<int64_t> dropped);

/// The number of elements of `shape`.
int64_t product(ArrayRef<int64_t> shape);

/// Reshapes `value` (static shape) to `type` with the same elements in
/// row-major order; a view after bufferization.
Value reshapeStatic(OpBuilder &b, Location loc, Value value,
                    RankedTensorType type);

/// Reads the only element of a 0-d tensor.
Value extractScalar(OpBuilder &b, Location loc, Value tensor);

/// A 0-d tensor of `type` holding `value` (a reduction's accumulator).
Value createFilledScalar(OpBuilder &b, Location loc, Type type, double value);

} // namespace mlir::memopt

#endif // MEMOPT_LIB_CONVERSION_TRAINTOLINALG_LINALGHELPERS_H
