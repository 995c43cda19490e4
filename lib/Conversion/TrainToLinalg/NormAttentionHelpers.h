//===- NormAttentionHelpers.h - norm and attention helpers ------*- C++ -*-===//
//
// Internal to lib/Conversion/TrainToLinalg: the tensor-type, linalg.generic,
// indexing-map and iterator helpers that NormLowering.cpp (where they are
// defined) shares with AttentionLowering.cpp.
//
//===----------------------------------------------------------------------===//

#ifndef MEMOPT_LIB_CONVERSION_TRAINTOLINALG_NORMATTENTIONHELPERS_H
#define MEMOPT_LIB_CONVERSION_TRAINTOLINALG_NORMATTENTIONHELPERS_H

#include "mlir/Dialect/Utils/StructuredOpsUtils.h"
#include "mlir/IR/AffineMap.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinTypes.h"

namespace mlir::memopt::normattn {

/// The body of a buildGeneric: scalars in, yielded values out.
using GenericBody =
    llvm::function_ref<SmallVector<Value>(OpBuilder &, Location, ValueRange)>;

/// The type of `v`, a ranked tensor.
RankedTensorType tensorTypeOf(Value v);

/// The element type of `v`, a ranked tensor.
Type elementTypeOf(Value v);

/// A linalg.generic over `inputs` into `inits`; `body` gets the input scalars
/// followed by the current output values and returns the yielded values.
SmallVector<Value> buildGeneric(OpBuilder &b, Location loc, ValueRange inputs,
                                ValueRange inits, ArrayRef<AffineMap> maps,
                                ArrayRef<utils::IteratorType> iterators,
                                GenericBody body);

/// (d0, ..., d{rank-1}) -> (d0, ..., d{rank-2}): one value per row.
AffineMap getRowMap(MLIRContext *ctx, int64_t rank);

/// Parallel loops, except the last one (a reduction over rows) or all but the
/// last one (a reduction over columns).
SmallVector<utils::IteratorType> getIterators(int64_t rank, bool reduceLast,
                                              bool reduceLeading);

} // namespace mlir::memopt::normattn

#endif // MEMOPT_LIB_CONVERSION_TRAINTOLINALG_NORMATTENTIONHELPERS_H
