//===- TrainQuantOps.cpp - dequantize ops of quantized frozen weights -----===//
//
// The verifiers, costs and gradient rules of train.dequantize_nf4 and
// train.dequantize_int8 (formats in Quantization.h).
//
//===----------------------------------------------------------------------===//

#include "TrainOpUtils.h"
#include "memopt/Dialect/Train/IR/Quantization.h"
#include "memopt/Dialect/Train/IR/TrainOps.h"

#include "llvm/Support/MathExtras.h"

using namespace mlir;
using namespace mlir::memopt::train;
using namespace mlir::memopt::train::detail;

/// Fails unless `storage` is read from a frozen train.param: quantized
/// storage is the weight's persistent state, and nothing updates it.
static LogicalResult checkStorage(Operation *op, StringRef what,
                                  Value storage) {
  auto param = storage.getDefiningOp<ParamOp>();
  if (!param)
    return op->emitOpError() << "expected the " << what
                             << " to be a train.param (the weight's "
                                "persistent storage)";
  if (param.getTrainable())
    return op->emitOpError()
           << "expected the " << what << " '" << param.getName()
           << "' to be frozen (trainable = false): quantized storage gets "
              "no gradient and no update";
  return success();
}

/// The checks the two dequantize ops share: a named weight, a float result
/// of at least 16 bits.
static LogicalResult checkWeight(Operation *op, StringRef weight,
                                 Value result) {
  if (weight.empty())
    return op->emitOpError("expected a non-empty weight name");
  Type element = elementTypeOf(result);
  if (element.getIntOrFloatBitWidth() < 16)
    return op->emitOpError() << "expected a result of at least 16 bits (f32, "
                                "bf16 or f16), got "
                             << element;
  return success();
}

/// Checks that `value` is a 1-d tensor of `elements` elements of `type`.
static LogicalResult checkVector(Operation *op, StringRef what, Value value,
                                 int64_t elements, Type type) {
  if (failed(checkShape(op, what, {elements}, shapeOf(value))))
    return failure();
  return checkElementType(op, what, type, elementTypeOf(value));
}

LogicalResult DequantizeNF4Op::verify() {
  if (failed(checkWeight(*this, getWeight(), getResult())))
    return failure();
  int64_t block = static_cast<int64_t>(getBlock());
  if (block < kMinNF4Block || block > kMaxNF4Block ||
      !llvm::isPowerOf2_64(block))
    return emitOpError() << "expected a block of a power of two from "
                         << kMinNF4Block << " to " << kMaxNF4Block << ", got "
                         << block;
  if (static_cast<bool>(getAbsmaxScale()) !=
      static_cast<bool>(getAbsmaxOffset()))
    return emitOpError("expected both an absmax scale and an absmax offset "
                       "(double quantization), or neither");
  Builder b(getContext());
  int64_t n = numElements(getResult());
  int64_t blocks = getNF4Blocks(n, block);
  if (failed(checkVector(*this, "codes (two per byte)", getCodes(),
                         getNF4CodeBytes(n), b.getI8Type())))
    return failure();
  // Double quantization stores each absmax as an 8-bit code.
  if (failed(checkVector(*this, "absmax (one per block)", getAbsmax(), blocks,
                         isDoubleQuant() ? Type(b.getI8Type())
                                         : Type(b.getF32Type()))))
    return failure();
  SmallVector<std::pair<StringRef, Value>> storage = {{"codes", getCodes()},
                                                      {"absmax", getAbsmax()}};
  if (isDoubleQuant()) {
    if (failed(checkVector(*this, "absmax scale (one per 256 absmaxes)",
                           getAbsmaxScale(), getDoubleQuantBlocks(blocks),
                           b.getF32Type())))
      return failure();
    storage.push_back({"absmax scale", getAbsmaxScale()});
    storage.push_back({"absmax offset", getAbsmaxOffset()});
  }
  for (auto [what, value] : storage)
    if (failed(checkStorage(*this, what, value)))
      return failure();
  return success();
}

int64_t DequantizeNF4Op::getFlops() {
  return (isDoubleQuant() ? 3 : 1) * numElements(getResult());
}

LogicalResult DequantizeNF4Op::buildGradients(OpBuilder &b,
                                              ValueRange resultGrads,
                                              ArrayRef<bool> needed,
                                              SmallVectorImpl<Value> &grads) {
  // The dequantized weight is a constant of the frozen storage: no gradient
  // flows into the codes or the scales (train-autodiff never asks for one,
  // as the storage is frozen).
  grads.assign(getNumOperands(), Value());
  return success();
}

LogicalResult DequantizeInt8Op::verify() {
  if (failed(checkWeight(*this, getWeight(), getResult())))
    return failure();
  int64_t rank = tensorType(getResult()).getRank();
  int64_t axis = static_cast<int64_t>(getAxis());
  if (axis < 0 || axis >= rank)
    return emitOpError() << "expected an axis in [0, " << rank
                         << ") (a dimension of the result), got " << axis;
  if (failed(checkShape(*this, "codes", shapeOf(getResult()),
                        shapeOf(getCodes()))))
    return failure();
  if (failed(checkShape(*this, "scale (one per index of the axis)",
                        {shapeOf(getResult())[axis]}, shapeOf(getScale()))))
    return failure();
  if (failed(checkStorage(*this, "codes", getCodes())))
    return failure();
  return checkStorage(*this, "scale", getScale());
}

int64_t DequantizeInt8Op::getFlops() { return 2 * numElements(getResult()); }

LogicalResult DequantizeInt8Op::buildGradients(OpBuilder &b,
                                               ValueRange resultGrads,
                                               ArrayRef<bool> needed,
                                               SmallVectorImpl<Value> &grads) {
  // A constant of the frozen storage, as train.dequantize_nf4's.
  grads.assign(getNumOperands(), Value());
  return success();
}

bool mlir::memopt::train::isQuantizedStorage(Value value) {
  return llvm::any_of(value.getUsers(), [](Operation *user) {
    return isa<DequantizeNF4Op, DequantizeInt8Op>(user);
  });
}
