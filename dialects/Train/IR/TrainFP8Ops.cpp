//===- TrainFP8Ops.cpp - fp8 with delayed scaling -------------------------===//
//
// The verifiers, costs and in-place operands of train.fp8_scale,
// train.quantize, train.scaled_matmul and train.amax_record. Their gradient
// rules are in TrainGradients.cpp.
//
//===----------------------------------------------------------------------===//

#include "TrainOpUtils.h"
#include "memopt/Dialect/Train/IR/Precision.h"
#include "memopt/Dialect/Train/IR/TrainOps.h"

using namespace mlir;
using namespace mlir::memopt::train;
using namespace mlir::memopt::train::detail;

/// Fails unless `history` is a persistent state (a train.opt_state): the
/// history outlives the step.
static LogicalResult checkHistory(Operation *op, Value history) {
  if (history.getDefiningOp<OptStateOp>())
    return success();
  return op->emitOpError("expected the amax history to be a train.opt_state "
                         "(it persists from step to step)");
}

LogicalResult FP8ScaleOp::verify() {
  if (!getFP8MaxFinite(getFormat()))
    return emitOpError() << "expected format f8E4M3FN or f8E5M2, got "
                         << getFormat();
  // Beyond 2^64 of headroom every scale would be a subnormal.
  int64_t margin = static_cast<int64_t>(getMargin());
  if (margin < 0 || margin > 64)
    return emitOpError() << "expected a margin in [0, 64], got " << margin;
  return checkHistory(*this, getAmaxHistory());
}
int64_t FP8ScaleOp::getFlops() { return numElements(getAmaxHistory()) + 2; }

LogicalResult QuantizeOp::verify() {
  Type input = elementTypeOf(getInput());
  if (input.getIntOrFloatBitWidth() <= 8)
    return emitOpError() << "expected an input of at least 16 bits, got "
                         << input;
  return checkShape(*this, "result", shapeOf(getInput()), shapeOf(getResult()));
}
int64_t QuantizeOp::getFlops() { return 3 * numElements(getInput()); }

LogicalResult ScaledMatmulOp::verify() {
  if (failed(verifyMatmulShapes(*this, getLhs(), getRhs(), getResult(),
                                getTransposeLhs(), getTransposeRhs())))
    return failure();
  // The sum is rounded before it is unscaled: f16's range cannot hold it.
  Type result = elementTypeOf(getResult());
  if (!result.isBF16() && !result.isF32())
    return emitOpError() << "expected a bf16 or f32 result (the unscaled sum "
                            "needs an 8-bit exponent), got "
                         << result;
  if (Value history = getGradHistory())
    return checkHistory(*this, history);
  return success();
}
int64_t ScaledMatmulOp::getFlops() {
  ArrayRef<int64_t> lhs = shapeOf(getLhs());
  int64_t k = getTransposeLhs() ? lhs[lhs.size() - 2] : lhs.back();
  return numElements(getResult()) * (2 * k + 1);
}

LogicalResult AmaxRecordOp::verify() {
  return checkHistory(*this, getAmaxHistory());
}
int64_t AmaxRecordOp::getFlops() { return numElements(getAmaxHistory()); }
bool AmaxRecordOp::isUpdatedInPlace(unsigned operandIndex) {
  return operandIndex == getAmaxHistoryMutable().getOperandNumber();
}
