//===- TrainInterfaces.cpp - cost and aliasing interfaces -----------------===//

#include "memopt/Dialect/Train/IR/TrainInterfaces.h"
#include "memopt/Dialect/Train/IR/TrainTraits.h"
#include "mlir/IR/BuiltinTypes.h"

using namespace mlir;
using namespace mlir::memopt::train;

#include "memopt/Dialect/Train/IR/TrainInterfaces.cpp.inc"

int64_t mlir::memopt::train::getElementBytes(Type elementType) {
  // Index has no fixed width; the CPU and GPU targets use 64 bits.
  if (elementType.isIndex())
    return 8;
  if (elementType.isIntOrFloat())
    return (elementType.getIntOrFloatBitWidth() + 7) / 8;
  if (auto complex = dyn_cast<ComplexType>(elementType))
    return 2 * getElementBytes(complex.getElementType());
  // Train tensors only hold integers, floats and indices (ODS constraints).
  return 0;
}

int64_t mlir::memopt::train::getTensorBytes(Type type) {
  auto shaped = dyn_cast<RankedTensorType>(type);
  if (!shaped || !shaped.hasStaticShape())
    return 0;
  return shaped.getNumElements() * getElementBytes(shaped.getElementType());
}

int64_t mlir::memopt::train::detail::getDefaultBytesRead(Operation *op) {
  auto aliasing = dyn_cast<AliasingOpInterface>(op);
  // A view only computes new metadata for its source buffer.
  if (aliasing && op->getNumResults() > 0 &&
      llvm::all_of(llvm::seq(op->getNumResults()), [&](unsigned i) {
        return aliasing.getViewSource(i).has_value();
      }))
    return 0;
  int64_t bytes = 0;
  for (Value operand : op->getOperands())
    bytes += getTensorBytes(operand.getType());
  return bytes;
}

int64_t mlir::memopt::train::detail::getDefaultBytesWritten(Operation *op) {
  auto aliasing = dyn_cast<AliasingOpInterface>(op);
  int64_t bytes = 0;
  for (OpResult result : op->getResults())
    if (!aliasing || !aliasing.getViewSource(result.getResultNumber()))
      bytes += getTensorBytes(result.getType());
  if (aliasing)
    for (OpOperand &operand : op->getOpOperands())
      if (aliasing.isUpdatedInPlace(operand.getOperandNumber()))
        bytes += getTensorBytes(operand.get().getType());
  return bytes;
}

std::optional<PrecisionClass>
mlir::memopt::train::getPrecisionClass(Operation *op) {
  if (op->hasTrait<LowPrecisionSafe>())
    return PrecisionClass::LowPrecisionSafe;
  if (op->hasTrait<KeepFP32>())
    return PrecisionClass::KeepFP32;
  if (op->hasTrait<PromoteToWidest>())
    return PrecisionClass::PromoteToWidest;
  return std::nullopt;
}

StringRef mlir::memopt::train::stringifyPrecisionClass(PrecisionClass cls) {
  switch (cls) {
  case PrecisionClass::LowPrecisionSafe:
    return "low-precision-safe";
  case PrecisionClass::KeepFP32:
    return "keep-fp32";
  case PrecisionClass::PromoteToWidest:
    return "promote-to-widest";
  }
  llvm_unreachable("unknown precision class");
}
