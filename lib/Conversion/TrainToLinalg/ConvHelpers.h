//===- ConvHelpers.h - shared by ConvLowering, BatchNormLowering -*- C++
//-*-===//
//
// Internal to lib/Conversion/TrainToLinalg: the helpers that
// ConvLowering.cpp (where they are defined) shares with
// BatchNormLowering.cpp.
//
//===----------------------------------------------------------------------===//

#ifndef MEMOPT_LIB_CONVERSION_TRAINTOLINALG_CONVHELPERS_H
#define MEMOPT_LIB_CONVERSION_TRAINTOLINALG_CONVHELPERS_H

#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/IR/AffineMap.h"
#include "mlir/IR/Builders.h"

namespace mlir::memopt::conv {

/// A `linalg.generic` whose body yields `body`'s values.
linalg::GenericOp buildGeneric(
    OpBuilder &b, Location loc, TypeRange resultTypes, ValueRange inputs,
    ValueRange inits, ArrayRef<AffineMap> maps,
    ArrayRef<utils::IteratorType> iterators,
    llvm::function_ref<SmallVector<Value>(OpBuilder &, Location, ValueRange)>
        body);

/// Identity map over `rank` dimensions.
AffineMap identityMap(OpBuilder &b, unsigned rank);

} // namespace mlir::memopt::conv

#endif // MEMOPT_LIB_CONVERSION_TRAINTOLINALG_CONVHELPERS_H
