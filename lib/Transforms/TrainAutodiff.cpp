//===- TrainAutodiff.cpp - reverse-mode differentiation of a step ---------===//

#include "memopt/Dialect/Train/IR/TrainOps.h"
#include "memopt/Dialect/Train/IR/TrainStep.h"
#include "memopt/Transforms/PassOptions.h"
#include "memopt/Transforms/Passes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/IR/Builders.h"
#include "llvm/ADT/DenseSet.h"
#include "llvm/ADT/MapVector.h"

namespace mlir::memopt {
#define GEN_PASS_DEF_TRAINAUTODIFFPASS
#include "memopt/Transforms/Passes.h.inc"
} // namespace mlir::memopt

using namespace mlir;
using namespace mlir::memopt;

namespace {

struct TrainAutodiffPass
    : public memopt::impl::TrainAutodiffPassBase<TrainAutodiffPass> {
  using Base::Base;

  LogicalResult initializeOptions(
      StringRef options,
      function_ref<LogicalResult(const Twine &)> errorHandler) override {
    if (failed(checkEnumPassOption("train-autodiff", "optimizer", options,
                                   optimizer, errorHandler)))
      return failure();
    return parseOptionsNamingPass(
        "train-autodiff", options, errorHandler,
        [&](StringRef text,
            function_ref<LogicalResult(const Twine &)> handler) {
          return Base::initializeOptions(text, handler);
        });
  }

  void runOnOperation() override;

private:
  /// Appends the optimizer updates (or the gradient results).
  void emitUpdates(
      func::FuncOp func, OpBuilder &builder, AutodiffOptimizer kind,
      const llvm::MapVector<StringRef, std::pair<Value, Value>> &paramGrads);
};

} // namespace

/// A name location "<name>" nested in `loc`.
static Location named(MLIRContext *ctx, const Twine &name, Location loc) {
  return NameLoc::get(StringAttr::get(ctx, name), loc);
}

/// The loss of `func` when it is a forward + loss function train-autodiff
/// can differentiate: one block, train IR, the first returned value a 0-d
/// float tensor, no in-place update yet (a second update would apply the
/// gradients twice). Emits the reason otherwise.
static FailureOr<Value> getLossToDifferentiate(func::FuncOp func) {
  if (!func.getBody().hasOneBlock())
    return func.emitOpError(
        "expected a single-block function to differentiate");
  if (failed(train::verifyNotLowered(func, "train-autodiff")))
    return failure();
  Block &body = func.getBody().front();
  auto ret = dyn_cast<func::ReturnOp>(body.getTerminator());
  auto lossType = ret && ret.getNumOperands() > 0
                      ? dyn_cast<RankedTensorType>(ret.getOperand(0).getType())
                      : RankedTensorType();
  if (!lossType || lossType.getRank() != 0 ||
      !isa<FloatType>(lossType.getElementType())) {
    InFlightDiagnostic diag =
        body.getTerminator()->emitOpError()
        << "expected the function's first returned value to be the loss, a "
           "0-d float tensor";
    if (ret && ret.getNumOperands() > 0)
      diag << ", got " << ret.getOperand(0).getType();
    else
      diag << ", but nothing is returned";
    return failure();
  }
  for (Operation &op : body) {
    auto aliasing = dyn_cast<train::AliasingOpInterface>(op);
    if (!aliasing)
      continue;
    for (unsigned i = 0, e = op.getNumOperands(); i < e; ++i)
      if (aliasing.isUpdatedInPlace(i))
        return op.emitOpError("the function already updates its parameters; "
                              "train-autodiff expects forward and loss only");
  }
  return ret.getOperand(0);
}

/// The values that need a gradient: those that depend on a float parameter
/// and that the loss depends on.
static llvm::DenseSet<Value> getActiveValues(Block &body, Value loss) {
  llvm::DenseSet<Value> varying, useful, active;
  for (Operation &op : body) {
    if (isa<train::ParamOp>(op)) {
      if (isa<FloatType>(cast<RankedTensorType>(op.getResult(0).getType())
                             .getElementType()))
        varying.insert(op.getResult(0));
      continue;
    }
    if (llvm::any_of(op.getOperands(),
                     [&](Value v) { return varying.contains(v); }))
      varying.insert(op.getResults().begin(), op.getResults().end());
  }
  useful.insert(loss);
  for (Operation &op : llvm::reverse(body))
    if (llvm::any_of(op.getResults(),
                     [&](Value v) { return useful.contains(v); }))
      useful.insert(op.getOperands().begin(), op.getOperands().end());
  for (Value v : varying)
    if (useful.contains(v))
      active.insert(v);
  return active;
}

/// Builds the backward pass before `ret`: the gradient of every active value,
/// from d loss / d loss = 1 through each op's gradient rule in reverse
/// program order, gradients of a value read several times summed.
static LogicalResult buildBackward(OpBuilder &builder, Block &body,
                                   Operation *ret, Value loss,
                                   const llvm::DenseSet<Value> &active,
                                   llvm::DenseMap<Value, Value> &grads) {
  MLIRContext *ctx = builder.getContext();
  auto accumulate = [&](Value value, Value grad) {
    auto [it, inserted] = grads.try_emplace(value, grad);
    if (!inserted)
      it->second = train::AddOp::create(builder, grad.getLoc(), grad.getType(),
                                        it->second, grad);
  };
  auto lossType = cast<RankedTensorType>(loss.getType());
  Location lossLoc = loss.getDefiningOp() ? loss.getDefiningOp()->getLoc()
                                          : ret->getParentOp()->getLoc();
  grads[loss] = arith::ConstantOp::create(
      builder, named(ctx, "loss.grad.seed", lossLoc),
      DenseElementsAttr::get(
          lossType, builder.getFloatAttr(lossType.getElementType(), 1.0)));

  SmallVector<Operation *> forward;
  for (Operation &op : body)
    if (&op != ret)
      forward.push_back(&op);
  for (Operation *op : llvm::reverse(forward)) {
    if (isa<train::ParamOp>(op) ||
        llvm::none_of(op->getResults(),
                      [&](Value v) { return grads.contains(v); }))
      continue;
    SmallVector<bool> needed;
    for (Value operand : op->getOperands())
      needed.push_back(active.contains(operand));
    if (llvm::none_of(needed, [](bool b) { return b; }))
      continue;
    auto differentiable = dyn_cast<train::DifferentiableOpInterface>(op);
    if (!differentiable)
      return op->emitOpError("has no gradient rule; cannot differentiate the "
                             "loss through it");
    SmallVector<Value> resultGrads;
    for (Value result : op->getResults())
      resultGrads.push_back(grads.lookup(result));
    SmallVector<Value> operandGrads;
    if (failed(differentiable.buildGradients(builder, resultGrads, needed,
                                             operandGrads)))
      return failure();
    for (auto [operand, isNeeded, grad] :
         llvm::zip_equal(op->getOperands(), needed, operandGrads))
      if (isNeeded && grad)
        accumulate(operand, grad);
  }
  return success();
}

void TrainAutodiffPass::runOnOperation() {
  func::FuncOp func = getOperation();
  if (func.isExternal())
    return;
  FailureOr<Value> loss = getLossToDifferentiate(func);
  if (failed(loss))
    return signalPassFailure();
  Block &body = func.getBody().front();
  Operation *ret = body.getTerminator();
  llvm::DenseSet<Value> active = getActiveValues(body, *loss);
  if (!active.contains(*loss)) {
    ret->emitOpError("the loss does not depend on any train.param; there is "
                     "nothing to differentiate");
    return signalPassFailure();
  }

  OpBuilder builder(ret);
  llvm::DenseMap<Value, Value> grads;
  if (failed(buildBackward(builder, body, ret, *loss, active, grads)))
    return signalPassFailure();

  // One gradient per parameter name: reads of one name (tied weights) sum.
  llvm::MapVector<StringRef, std::pair<Value, Value>> paramGrads;
  for (auto param : body.getOps<train::ParamOp>()) {
    Value grad = grads.lookup(param.getResult());
    if (!grad)
      continue;
    auto [it, inserted] =
        paramGrads.try_emplace(param.getName(), param.getResult(), grad);
    if (!inserted)
      it->second.second = train::AddOp::create(
          builder, grad.getLoc(), grad.getType(), it->second.second, grad);
  }
  emitUpdates(func, builder, optimizer, paramGrads);
}

void TrainAutodiffPass::emitUpdates(
    func::FuncOp func, OpBuilder &builder, AutodiffOptimizer kind,
    const llvm::MapVector<StringRef, std::pair<Value, Value>> &paramGrads) {
  MLIRContext *ctx = &getContext();
  auto f64 = [&](double v) { return builder.getF64FloatAttr(v); };

  if (kind == AutodiffOptimizer::None) {
    auto ret = cast<func::ReturnOp>(func.getBody().front().getTerminator());
    SmallVector<Value> results(ret.getOperands());
    for (auto &entry : paramGrads)
      results.push_back(entry.second.second);
    unsigned first = ret.getNumOperands();
    ret->setOperands(results);
    func.setType(FunctionType::get(ctx, func.getArgumentTypes(),
                                   ValueRange(results).getTypes()));
    // Name the parameter each gradient belongs to, for tools that read them.
    for (auto [index, entry] : llvm::enumerate(paramGrads))
      func.setResultAttr(first + index, train::TrainDialect::kGradOfAttrName,
                         StringAttr::get(ctx, entry.first));
    return;
  }

  Value step;
  if (kind == AutodiffOptimizer::Adam || kind == AutodiffOptimizer::AdamW) {
    for (BlockArgument arg : func.getArguments())
      if (func.getArgAttr(arg.getArgNumber(),
                          train::TrainDialect::kStepAttrName))
        step = arg;
    if (!step) {
      unsigned index = func.getNumArguments();
      auto stepType = RankedTensorType::get({}, builder.getI64Type());
      if (failed(func.insertArgument(
              index, stepType,
              builder.getDictionaryAttr(builder.getNamedAttr(
                  train::TrainDialect::kStepAttrName, builder.getUnitAttr())),
              named(ctx, "step", func.getLoc()))))
        return signalPassFailure();
      step = func.getArgument(index);
    }
  }

  for (auto &[name, entry] : paramGrads) {
    auto [param, grad] = entry;
    Location loc = named(ctx, name + ".update", param.getLoc());
    Type type = param.getType();
    auto state = [&](StringRef suffix) {
      return train::OptStateOp::create(builder, loc, type,
                                       (name + "." + suffix).str());
    };
    switch (kind) {
    case AutodiffOptimizer::Adam:
    case AutodiffOptimizer::AdamW: {
      Value m = state("exp_avg"), v = state("exp_avg_sq");
      if (kind == AutodiffOptimizer::Adam)
        train::AdamOp::create(builder, loc, param, grad, m, v, step, f64(lr),
                              f64(beta1), f64(beta2), f64(epsilon),
                              f64(weightDecay));
      else
        train::AdamWOp::create(builder, loc, param, grad, m, v, step, f64(lr),
                               f64(beta1), f64(beta2), f64(epsilon),
                               f64(weightDecay));
      break;
    }
    case AutodiffOptimizer::Sgd: {
      Value buffer = momentum > 0.0 ? Value(state("momentum_buffer")) : Value();
      train::SgdOp::create(builder, loc, param, grad, buffer, f64(lr),
                           f64(momentum), f64(weightDecay));
      break;
    }
    case AutodiffOptimizer::None:
      llvm_unreachable("handled above");
    }
  }
}
