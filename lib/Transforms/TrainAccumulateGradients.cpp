//===- TrainAccumulateGradients.cpp - gradient accumulation ---------------===//
//
// train-accumulate-gradients: the step of one micro-batch rewritten into the
// last micro-batch of gradient accumulation, so that its peak is the peak of
// the whole optimizer step (mem-autoplan's candidates of more than one
// micro-batch per step; docs/autoplan.md).
//
//===----------------------------------------------------------------------===//

#include "memopt/Dialect/Train/IR/TrainOps.h"
#include "memopt/Transforms/Passes.h"

#include "mlir/IR/Builders.h"

namespace mlir::memopt {
#define GEN_PASS_DEF_TRAINACCUMULATEGRADIENTSPASS
#include "memopt/Transforms/Passes.h.inc"
} // namespace mlir::memopt

using namespace mlir;
using namespace mlir::memopt;

/// Rewrites the step of one micro-batch into the last micro-batch of
/// gradient accumulation: each optimizer update first adds its gradient, in
/// place, into a buffer of the parameter's type (fp32 master weights' under
/// mixed precision) that lives across the micro-batches (a `train.opt_state
/// "<param>.grad_accumulator"`, added to by `train.accumulate`), and then
/// updates from that buffer. The step's peak is then the peak of the whole
/// optimizer step: earlier micro-batches run the same ops without the updates.
static LogicalResult addGradientAccumulation(func::FuncOp step) {
  SmallVector<Operation *> updates;
  step.walk([&](Operation *op) {
    if (isa<train::SgdOp, train::AdamOp, train::AdamWOp>(op))
      updates.push_back(op);
  });
  if (updates.empty())
    return step.emitError("gradient accumulation needs a step with optimizer "
                          "updates (train-autodiff with an optimizer)");
  OpBuilder builder(step.getContext());
  for (Operation *update : updates) {
    OpOperand &gradOperand = update->getOpOperand(1);
    Value param = update->getOperand(0);
    auto paramOp = param.getDefiningOp<train::ParamOp>();
    if (!paramOp)
      return update->emitOpError("updates a value that is not a train.param");
    builder.setInsertionPoint(update);
    Location loc = update->getLoc();
    Value buffer = train::OptStateOp::create(
        builder, loc, param.getType(),
        (paramOp.getName() + ".grad_accumulator").str());
    train::AccumulateOp::create(builder, loc, buffer, gradOperand.get());
    gradOperand.set(buffer);
  }
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
    if (failed(addGradientAccumulation(step)))
      return signalPassFailure();
  }
};

} // namespace
