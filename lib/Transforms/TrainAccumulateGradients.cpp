//===- TrainAccumulateGradients.cpp - gradient accumulation ---------------===//
//
// train-accumulate-gradients: the step of one micro-batch rewritten into one
// of N micro-batches of an optimizer step (mem-autoplan's candidates of more
// than one micro-batch per step; docs/autoplan.md). Called N times, the step
// adds each micro-batch's gradient / N into a persistent buffer (restarted
// on micro-batch 0) and updates the parameters from it on the last
// micro-batch only, so that N calls train as one step on the whole batch.
// The micro-batch index is a persistent counter that the step advances.
// Under loss scaling the 1/N goes into the backward's seed instead, the
// inf/NaN check reads the buffers and the scale is updated once per step.
//
//===----------------------------------------------------------------------===//

#include "memopt/Dialect/Train/IR/TrainOps.h"
#include "memopt/Transforms/Passes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/Matchers.h"
#include "llvm/ADT/DenseSet.h"
#include "llvm/ADT/TypeSwitch.h"

namespace mlir::memopt {
#define GEN_PASS_DEF_TRAINACCUMULATEGRADIENTSPASS
#include "memopt/Transforms/Passes.h.inc"
} // namespace mlir::memopt

using namespace mlir;
using namespace mlir::memopt;

namespace {

/// An optimizer update: its gradient operand and its optional skip flag
/// (`skip_if`, dynamic loss scaling's `found_nonfinite`).
struct Update {
  Operation *op;
  OpOperand *grad;
  MutableOperandRange skip;
};

} // namespace

/// The `skip_if` operand of an optimizer update.
static MutableOperandRange getSkipOperand(Operation *op) {
  return llvm::TypeSwitch<Operation *, MutableOperandRange>(op)
      .Case<train::SgdOp, train::AdamOp, train::AdamWOp, train::Adam8bitOp,
            train::AdamW8bitOp>(
          [](auto update) { return update.getFoundNonfiniteMutable(); });
}

/// The step's optimizer updates in program order; fails on a step that has
/// none, already accumulates, or updates something other than a parameter
/// of its body.
static FailureOr<SmallVector<Update>> collectUpdates(func::FuncOp step) {
  Block &body = step.getBody().front();
  SmallVector<Update> updates;
  Operation *accumulating = nullptr;
  step.walk([&](Operation *op) {
    if (isa<train::AccumulateOp, train::MicroBatchSkipOp,
            train::MicroBatchAdvanceOp>(op) &&
        !accumulating)
      accumulating = op;
    if (isa<train::SgdOp, train::AdamOp, train::AdamWOp, train::Adam8bitOp,
            train::AdamW8bitOp>(op))
      updates.push_back({op, &op->getOpOperand(1), getSkipOperand(op)});
  });
  if (accumulating)
    return accumulating->emitOpError()
           << "is already in the step: train-accumulate-gradients runs once "
              "on the step of one micro-batch";
  if (updates.empty())
    return step.emitError("gradient accumulation needs a step with optimizer "
                          "updates (train-autodiff with an optimizer)");
  for (const Update &update : updates) {
    if (!update.op->getOperand(0).getDefiningOp<train::ParamOp>())
      return update.op->emitOpError(
          "updates a value that is not a train.param");
    if (update.op->getBlock() != &body)
      return update.op->emitOpError(
          "is not in the step's body: gradient accumulation predicates the "
          "updates of a single-block step");
    if (train::isHostOp(update.op))
      return update.op->emitOpError(
          "runs on the host (train-offload): apply "
          "train-accumulate-gradients first, then train-offload, which moves "
          "the accumulation to the host with the updates");
  }
  return updates;
}

/// Under dynamic loss scaling, the `train.any_nonfinite` that every update
/// skips on; null without loss scaling. Fails unless all updates or none
/// have a flag, one flag, from an any_nonfinite of exactly their gradients
/// (which then checks the accumulated buffers instead).
static FailureOr<train::AnyNonfiniteOp>
getLossScaleCheck(ArrayRef<Update> updates) {
  Value flag;
  for (const Update &update : updates) {
    Value skip = update.skip.empty() ? Value() : update.skip[0].get();
    if (&update == &updates.front()) {
      flag = skip;
      continue;
    }
    if (skip != flag)
      return update.op->emitOpError()
             << "skips on another flag than the step's first update; "
                "gradient accumulation needs one skip_if flag for all the "
                "updates (dynamic loss scaling's) or none";
  }
  if (!flag)
    return train::AnyNonfiniteOp();
  auto check = flag.getDefiningOp<train::AnyNonfiniteOp>();
  Operation *first = updates.front().op;
  if (!check)
    return first->emitOpError()
           << "skips on a flag that is not a train.any_nonfinite; gradient "
              "accumulation under loss scaling checks the accumulated "
              "gradients for inf/NaN instead, and cannot rewrite another flag";
  llvm::DenseSet<Value> grads, inputs;
  for (const Update &update : updates)
    grads.insert(update.grad->get());
  inputs.insert(check.getInputs().begin(), check.getInputs().end());
  if (grads.size() != updates.size() || inputs != grads ||
      check.getInputs().size() != grads.size())
    return check.emitOpError()
           << "does not check exactly the gradients of the step's "
           << updates.size()
           << " updates, one each; gradient accumulation under loss scaling "
              "checks their accumulated buffers instead";
  return check;
}

/// Under loss scaling (the updates `unscale(%s)`), puts the factor
/// `1 / microBatches` into the backward's seed, as `loss / accumulation
/// steps` puts it into the loss: every use of `%s` but the updates' unscale
/// reads a copy of it times that factor. Returns whether the step is loss
/// scaled; fails on updates that unscale by different values, or by one
/// that is neither a train.loss_scale nor a constant.
static FailureOr<bool> scaleLossSeed(ArrayRef<Update> updates,
                                     int64_t microBatches) {
  auto getScale = [](Operation *op) -> Value {
    return llvm::TypeSwitch<Operation *, Value>(op)
        .Case<train::SgdOp, train::AdamOp, train::AdamWOp, train::Adam8bitOp,
              train::AdamW8bitOp>(
            [](auto update) { return update.getGradScale(); });
  };
  Value scale = getScale(updates.front().op);
  for (const Update &update : updates.drop_front())
    if (getScale(update.op) != scale)
      return update.op->emitOpError()
             << "unscales by another value than the step's first update; "
                "gradient accumulation needs one loss scale for all the "
                "updates or none";
  if (!scale)
    return false;
  OpBuilder builder(scale.getContext());
  builder.setInsertionPointAfterValue(scale);
  auto type = cast<RankedTensorType>(scale.getType());
  double factor = 1.0 / static_cast<double>(microBatches);
  Value seed;
  if (auto lossScale = scale.getDefiningOp<train::LossScaleOp>()) {
    seed = train::LossScaleOp::create(
        builder, lossScale.getLoc(), type, lossScale.getExponent(),
        builder.getF64FloatAttr(lossScale.getInitialScale().convertToDouble() *
                                factor));
  } else if (DenseElementsAttr constant;
             matchPattern(scale, m_Constant(&constant)) && constant.isSplat() &&
             isa<FloatType>(type.getElementType())) {
    double value = constant.getSplatValue<APFloat>().convertToDouble();
    seed = arith::ConstantOp::create(
        builder, scale.getLoc(),
        DenseElementsAttr::get(
            type, builder.getFloatAttr(type.getElementType(), value * factor)));
  } else {
    return updates.front().op->emitOpError()
           << "unscales by a value that is neither a train.loss_scale nor a "
              "constant; gradient accumulation scales the backward's seed by "
              "1 / micro-batches and cannot rewrite it";
  }
  scale.replaceUsesWithIf(seed, [&](OpOperand &use) {
    return !isa<train::SgdOp, train::AdamOp, train::AdamWOp, train::Adam8bitOp,
                train::AdamW8bitOp>(use.getOwner());
  });
  return true;
}

/// Adds `grad * scale` of `update` into its accumulation buffer (at the
/// builder's insertion point) and makes the update read the buffer. Returns
/// the buffer.
static Value accumulate(OpBuilder &builder, const Update &update, Value index,
                        double scale) {
  Value param = update.op->getOperand(0);
  auto paramOp = param.getDefiningOp<train::ParamOp>();
  Location loc = update.op->getLoc();
  Value buffer = train::OptStateOp::create(
      builder, loc, param.getType(),
      (paramOp.getName() + ".grad_accumulator").str());
  train::AccumulateOp::create(builder, loc, buffer, update.grad->get(), index,
                              builder.getF64FloatAttr(scale));
  update.grad->set(buffer);
  return buffer;
}

/// Rewrites the step into one of `microBatches` micro-batches of an
/// optimizer step (see the file comment and Passes.td).
static LogicalResult addGradientAccumulation(func::FuncOp step,
                                             int64_t microBatches) {
  FailureOr<SmallVector<Update>> updates = collectUpdates(step);
  if (failed(updates))
    return failure();
  FailureOr<train::AnyNonfiniteOp> check = getLossScaleCheck(*updates);
  if (failed(check))
    return failure();
  FailureOr<bool> seedScaled = scaleLossSeed(*updates, microBatches);
  if (failed(seedScaled))
    return failure();
  // The mean of the micro-batches' gradients, unless the seed has the
  // factor already.
  double scale = *seedScaled ? 1.0 : 1.0 / static_cast<double>(microBatches);
  MLIRContext *context = step.getContext();
  OpBuilder builder(context);
  auto counterType = RankedTensorType::get({}, builder.getI64Type());
  auto flagType = RankedTensorType::get({}, builder.getI1Type());
  Location loc = NameLoc::get(StringAttr::get(context, "grad_accumulation"),
                              step.getLoc());

  // The index is read before anything uses it: before the loss-scale check
  // (whose inputs become the buffers) or the first update.
  Operation *anchor = *check ? check->getOperation() : updates->front().op;
  builder.setInsertionPoint(anchor);
  Value index = train::OptStateOp::create(builder, loc, counterType,
                                          train::kMicroBatchState);
  Value skip;
  if (!*check) {
    skip = train::MicroBatchSkipOp::create(builder, loc, flagType, index,
                                           /*found_nonfinite=*/Value(),
                                           microBatches);
    for (Update &update : *updates) {
      builder.setInsertionPoint(update.op);
      accumulate(builder, update, index, scale);
      update.skip.assign(skip);
    }
  } else {
    // Loss scaling: accumulate every gradient first, check the buffers
    // (GradScaler checks the summed gradients), skip on the check or a
    // micro-batch before the last, and update the scale once per step.
    llvm::DenseMap<Value, Value> bufferOf;
    for (const Update &update : *updates) {
      Value grad = update.grad->get();
      bufferOf[grad] = accumulate(builder, update, index, scale);
    }
    for (OpOperand &input : check->getInputsMutable())
      input.set(bufferOf.lookup(input.get()));
    Value found = check->getResult();
    builder.setInsertionPointAfter(*check);
    skip = train::MicroBatchSkipOp::create(builder, loc, flagType, index, found,
                                           microBatches);
    Value notLast = train::MicroBatchSkipOp::create(
        builder, loc, flagType, index, /*found_nonfinite=*/Value(),
        microBatches);
    for (Update &update : *updates)
      update.skip.assign(skip);
    for (Operation *user : llvm::to_vector(found.getUsers()))
      if (auto scaleUpdate = dyn_cast<train::LossScaleUpdateOp>(user))
        scaleUpdate.getSkipMutable().assign(notLast);
  }
  builder.setInsertionPoint(step.getBody().front().getTerminator());
  train::MicroBatchAdvanceOp::create(builder, loc, index, microBatches);
  return success();
}

namespace {

struct TrainAccumulateGradientsPass
    : public memopt::impl::TrainAccumulateGradientsPassBase<
          TrainAccumulateGradientsPass> {
  using Base::Base;

  void runOnOperation() override {
    func::FuncOp step = getOperation();
    if (step.isExternal())
      return markAllAnalysesPreserved();
    if (microBatches < 1) {
      step.emitError() << "train-accumulate-gradients needs micro-batches "
                          ">= 1 (the micro-batches per optimizer step), got "
                       << static_cast<int64_t>(microBatches);
      return signalPassFailure();
    }
    if (failed(addGradientAccumulation(step, microBatches)))
      return signalPassFailure();
  }
};

} // namespace
