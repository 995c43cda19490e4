//===- ComputeTypes.cpp - the types train ops compute in ------------------===//

#include "memopt/Dialect/Train/IR/ComputeTypes.h"

#include "mlir/IR/BuiltinTypes.h"

using namespace mlir;

Type mlir::memopt::train::getAccumulatorType(Type elementType) {
  if (elementType.getIntOrFloatBitWidth() < 32)
    return Float32Type::get(elementType.getContext());
  return elementType;
}

Type mlir::memopt::train::getComputeType(ArrayRef<Type> types) {
  Type widest = Float32Type::get(types.front().getContext());
  for (Type type : types)
    if (type.getIntOrFloatBitWidth() > widest.getIntOrFloatBitWidth())
      widest = type;
  return widest;
}

Type mlir::memopt::train::getWiderFloatType(Type a, Type b) {
  if (a == b)
    return a;
  unsigned wa = a.getIntOrFloatBitWidth(), wb = b.getIntOrFloatBitWidth();
  if (wa != wb)
    return wa > wb ? a : b;
  return Float32Type::get(a.getContext());
}

Type mlir::memopt::train::getLossComputeType(Type dataType, Type lossType) {
  return getWiderFloatType(getAccumulatorType(dataType), lossType);
}
