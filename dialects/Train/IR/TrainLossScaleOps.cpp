//===- TrainLossScaleOps.cpp - dynamic loss scaling ops -------------------===//
//
// The verifiers, costs and in-place operands of train.loss_scale,
// train.any_nonfinite and train.loss_scale_update, and the loss-scaling
// operands the optimizer ops share.
//
//===----------------------------------------------------------------------===//

#include "TrainOpUtils.h"
#include "memopt/Dialect/Train/IR/Precision.h"
#include "memopt/Dialect/Train/IR/TrainOps.h"

using namespace mlir;
using namespace mlir::memopt::train;
using namespace mlir::memopt::train::detail;

/// Fails unless `value` is read from the persistent state `name`.
static LogicalResult checkState(Operation *op, StringRef what, Value value,
                                StringRef name) {
  auto state = value.getDefiningOp<OptStateOp>();
  if (state && state.getName() == name)
    return success();
  return op->emitOpError() << "expected " << what
                           << " to be the train.opt_state \"" << name << "\"";
}

LogicalResult mlir::memopt::train::detail::verifyLossScaledUpdate(
    Operation *op, Value foundNonfinite, Value skippedSteps) {
  if (!skippedSteps)
    return success();
  if (!foundNonfinite)
    return op->emitOpError("expected skip_if with skipped: the skipped steps "
                           "are counted only under loss scaling");
  // An update on the host (train-offload) reads the state's copy.
  if (auto copy = skippedSteps.getDefiningOp<ToHostOp>())
    skippedSteps = copy.getInput();
  return checkState(op, "the skipped-step count", skippedSteps,
                    kLossScaleSkippedState);
}

LogicalResult LossScaleOp::verify() {
  double scale = getInitialScale().convertToDouble();
  if (!(scale > 0.0))
    return emitOpError() << "expected a positive initial_scale, got " << scale;
  return checkState(*this, "the exponent", getExponent(),
                    kLossScaleExponentState);
}
int64_t LossScaleOp::getFlops() { return 2; }

LogicalResult AnyNonfiniteOp::verify() {
  if (getInputs().empty())
    return emitOpError("expected at least one input");
  return success();
}
int64_t AnyNonfiniteOp::getFlops() {
  int64_t flops = 0;
  for (Value input : getInputs())
    flops += numElements(input);
  return flops;
}

LogicalResult LossScaleUpdateOp::verify() {
  if (getGrowthInterval() < 1)
    return emitOpError() << "expected growth_interval >= 1, got "
                         << getGrowthInterval();
  if (failed(checkState(*this, "the exponent", getExponent(),
                        kLossScaleExponentState)) ||
      failed(checkState(*this, "the growth tracker", getGrowthTracker(),
                        kLossScaleGrowthTrackerState)))
    return failure();
  return checkState(*this, "the skipped-step count", getSkippedSteps(),
                    kLossScaleSkippedState);
}
int64_t LossScaleUpdateOp::getFlops() { return 4; }
bool LossScaleUpdateOp::isUpdatedInPlace(unsigned operandIndex) {
  // The three counters; not the flags.
  return operandIndex < getFoundNonfiniteMutable().getOperandNumber();
}
