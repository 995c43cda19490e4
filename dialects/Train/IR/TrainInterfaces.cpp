//===- TrainInterfaces.cpp - train op interfaces --------------------------===//

#include "memopt/Dialect/Train/IR/TrainInterfaces.h"
#include "memopt/Dialect/Train/IR/TrainOps.h"
#include "memopt/Dialect/Train/IR/TrainTraits.h"
#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/Diagnostics.h"
#include "llvm/Support/MathExtras.h"

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
  // Verified types are bounded; an unverified huge one saturates rather than
  // wrapping around to a small or negative size.
  return getBoundedTensorBytes(type).value_or(kMaxTensorBytes + 1);
}

std::optional<int64_t> mlir::memopt::train::getBoundedTensorBytes(Type type) {
  auto shaped = dyn_cast<RankedTensorType>(type);
  if (!shaped || !shaped.hasStaticShape())
    return 0;
  bool overflow = false;
  uint64_t bytes = getElementBytes(shaped.getElementType());
  for (int64_t dim : shaped.getShape())
    bytes =
        llvm::SaturatingMultiply(bytes, static_cast<uint64_t>(dim), &overflow);
  if (overflow || bytes > static_cast<uint64_t>(kMaxTensorBytes))
    return std::nullopt;
  return static_cast<int64_t>(bytes);
}

LogicalResult mlir::memopt::train::verifyTensorSize(Location loc, Type type,
                                                    const Twine &what) {
  if (getBoundedTensorBytes(type))
    return success();
  return emitError(loc) << what << " has type " << type << ", larger than the "
                        << kMaxTensorBytes
                        << " bytes (16 TiB) memopt accepts for one tensor";
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

std::optional<SmallVector<int64_t>>
mlir::memopt::train::computeReshapeStrides(ArrayRef<int64_t> shape,
                                           ArrayRef<int64_t> strides,
                                           ArrayRef<int64_t> newShape) {
  SmallVector<int64_t> newStrides(newShape.size(), 1);
  // An empty tensor can take any strides; use row-major ones.
  if (llvm::is_contained(shape, 0) || shape.empty()) {
    int64_t stride = 1;
    for (int64_t d = static_cast<int64_t>(newShape.size()) - 1; d >= 0; --d) {
      newStrides[d] = stride;
      stride *= std::max<int64_t>(newShape[d], 1);
    }
    return newStrides;
  }
  // Walk the old dimensions from the innermost, grouping them into chunks
  // that are contiguous in memory; each chunk must be covered exactly by a
  // run of new dimensions, which then stride through the chunk.
  int64_t viewDim = static_cast<int64_t>(newShape.size()) - 1;
  int64_t chunkBaseStride = strides.back();
  int64_t tensorElements = 1, viewElements = 1;
  for (int64_t d = static_cast<int64_t>(shape.size()) - 1; d >= 0; --d) {
    tensorElements *= shape[d];
    bool chunkEnds =
        d == 0 || (shape[d - 1] != 1 &&
                   strides[d - 1] != tensorElements * chunkBaseStride);
    if (!chunkEnds)
      continue;
    while (viewDim >= 0 &&
           (viewElements < tensorElements || newShape[viewDim] == 1)) {
      newStrides[viewDim] = viewElements * chunkBaseStride;
      viewElements *= newShape[viewDim];
      --viewDim;
    }
    if (viewElements != tensorElements)
      return std::nullopt;
    if (d > 0) {
      chunkBaseStride = strides[d - 1];
      tensorElements = viewElements = 1;
    }
  }
  if (viewDim != -1)
    return std::nullopt;
  return newStrides;
}

//===----------------------------------------------------------------------===//
// IndexOperandsOpInterface: the values integer operands must hold
//===----------------------------------------------------------------------===//

/// Size of dimension `dim` of `value`'s shape (negative: from the back).
static int64_t getDimSize(Value value, int64_t dim) {
  ArrayRef<int64_t> shape = cast<ShapedType>(value.getType()).getShape();
  return shape[dim < 0 ? static_cast<int64_t>(shape.size()) + dim : dim];
}

std::optional<int64_t> EmbeddingOp::getIndexBound(unsigned operandIndex) {
  // Ids index the table's rows.
  if (operandIndex != getIdsMutable().getOperandNumber())
    return std::nullopt;
  return getDimSize(getTable(), 0) * getParts().value_or(1);
}

std::optional<int64_t> EmbeddingGradOp::getIndexBound(unsigned operandIndex) {
  // Ids index the rows of the table gradient.
  if (operandIndex != getIdsMutable().getOperandNumber())
    return std::nullopt;
  return getDimSize(getResult(), 0) * getParts().value_or(1);
}

std::optional<int64_t>
VocabParallelStatsOp::getIndexBound(unsigned operandIndex) {
  // Labels index the whole vocabulary, the parts' columns together.
  if (operandIndex != getLabelsMutable().getOperandNumber())
    return std::nullopt;
  return getDimSize(getLogits(), -1) * getParts();
}

std::optional<int64_t>
VocabParallelStatsGradOp::getIndexBound(unsigned operandIndex) {
  if (operandIndex != getLabelsMutable().getOperandNumber())
    return std::nullopt;
  return getDimSize(getLogits(), -1) * getParts();
}

std::optional<int64_t> CrossEntropyOp::getIndexBound(unsigned operandIndex) {
  // Labels index the classes, the logits' last dimension.
  if (operandIndex != getLabelsMutable().getOperandNumber())
    return std::nullopt;
  return getDimSize(getLogits(), -1);
}

std::optional<int64_t>
CrossEntropyGradOp::getIndexBound(unsigned operandIndex) {
  if (operandIndex != getLabelsMutable().getOperandNumber())
    return std::nullopt;
  return getDimSize(getLogits(), -1);
}

bool AdamOp::isStepCount(unsigned operandIndex) {
  return operandIndex == getStepMutable().getOperandNumber();
}

bool AdamWOp::isStepCount(unsigned operandIndex) {
  return operandIndex == getStepMutable().getOperandNumber();
}

bool Adam8bitOp::isStepCount(unsigned operandIndex) {
  return operandIndex == getStepMutable().getOperandNumber();
}

bool AdamW8bitOp::isStepCount(unsigned operandIndex) {
  return operandIndex == getStepMutable().getOperandNumber();
}

// Views and copies of their single operand.
bool ReshapeOp::forwardsValues(unsigned operandIndex) { return true; }
bool TransposeOp::forwardsValues(unsigned operandIndex) { return true; }
bool SliceOp::forwardsValues(unsigned operandIndex) { return true; }
