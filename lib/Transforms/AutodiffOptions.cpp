//===- AutodiffOptions.cpp - a step's train-autodiff options --------------===//
//
// inferAutodiffOptions: the options train-autodiff ran with, read back from
// a step's optimizer updates (train-precision, train-shard and the passes
// that rewrite a step's forward pass derive its backward pass again with
// them).
//
//===----------------------------------------------------------------------===//

#include "memopt/Dialect/Train/IR/TrainOps.h"
#include "memopt/Transforms/Autodiff.h"

#include <optional>

using namespace mlir;
using namespace mlir::memopt;

/// The optimizer of a step whose updates include `a` and `b`, if they go
/// together: a step of 8-bit Adam keeps 32-bit Adam for small parameters.
static std::optional<AutodiffOptimizer> mergeOptimizers(AutodiffOptimizer a,
                                                        AutodiffOptimizer b) {
  if (a == b)
    return a;
  std::pair<AutodiffOptimizer, AutodiffOptimizer> pairs[] = {
      {AutodiffOptimizer::Adam, AutodiffOptimizer::Adam8bit},
      {AutodiffOptimizer::AdamW, AutodiffOptimizer::AdamW8bit}};
  for (auto [wide, narrow] : pairs)
    if ((a == wide && b == narrow) || (a == narrow && b == wide))
      return narrow;
  return std::nullopt;
}

/// The options of an adam-like update.
template <typename OpTy>
static AutodiffOptions readAdamOptions(OpTy op, AutodiffOptimizer kind) {
  AutodiffOptions options;
  options.optimizer = kind;
  options.lr = op.getLr().convertToDouble();
  options.beta1 = op.getBeta1().convertToDouble();
  options.beta2 = op.getBeta2().convertToDouble();
  options.epsilon = op.getEpsilon().convertToDouble();
  options.weightDecay = op.getWeightDecay().convertToDouble();
  return options;
}

FailureOr<AutodiffOptions> memopt::inferAutodiffOptions(func::FuncOp step) {
  AutodiffOptions options;
  Operation *first = nullptr;
  for (Operation &op : step.getBody().front()) {
    AutodiffOptions found;
    if (auto adam = dyn_cast<train::AdamOp>(op)) {
      found = readAdamOptions(adam, AutodiffOptimizer::Adam);
    } else if (auto adamw = dyn_cast<train::AdamWOp>(op)) {
      found = readAdamOptions(adamw, AutodiffOptimizer::AdamW);
    } else if (auto adam8bit = dyn_cast<train::Adam8bitOp>(op)) {
      found = readAdamOptions(adam8bit, AutodiffOptimizer::Adam8bit);
    } else if (auto adamw8bit = dyn_cast<train::AdamW8bitOp>(op)) {
      found = readAdamOptions(adamw8bit, AutodiffOptimizer::AdamW8bit);
    } else if (auto sgd = dyn_cast<train::SgdOp>(op)) {
      found.optimizer = AutodiffOptimizer::Sgd;
      found.lr = sgd.getLr().convertToDouble();
      found.momentum = sgd.getMomentum().convertToDouble();
      found.weightDecay = sgd.getWeightDecay().convertToDouble();
    } else {
      continue;
    }
    if (!first) {
      first = &op;
      options = found;
      continue;
    }
    std::optional<AutodiffOptimizer> merged =
        mergeOptimizers(options.optimizer, found.optimizer);
    if (merged)
      options.optimizer = found.optimizer = *merged;
    if (!merged || found.lr != options.lr || found.beta1 != options.beta1 ||
        found.beta2 != options.beta2 || found.epsilon != options.epsilon ||
        found.weightDecay != options.weightDecay ||
        found.momentum != options.momentum) {
      InFlightDiagnostic diag =
          op.emitOpError("has other optimizer settings than the first update "
                         "of the step; train-autodiff gives every parameter "
                         "the same update");
      diag.attachNote(first->getLoc()) << "the first update";
      return diag;
    }
  }
  if (first)
    return options;
  for (unsigned i = 0, e = step.getNumResults(); i < e; ++i)
    if (step.getResultAttr(i, train::TrainDialect::kGradOfAttrName)) {
      options.optimizer = AutodiffOptimizer::None;
      return options;
    }
  return step.emitOpError("is not a training step: it has no optimizer "
                          "update and returns no train.grad_of gradient");
}
