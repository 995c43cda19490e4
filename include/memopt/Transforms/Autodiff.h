//===- Autodiff.h - reverse-mode differentiation of a step ------*- C++ -*-===//
//
// What train-autodiff does, as functions: train-precision re-derives the
// backward pass of a whole step with them, so that a step lowered in
// precision after autodiff is the program autodiff derives from a forward
// pass lowered before it.
//
//===----------------------------------------------------------------------===//

#ifndef MEMOPT_TRANSFORMS_AUTODIFF_H
#define MEMOPT_TRANSFORMS_AUTODIFF_H

#include "memopt/Transforms/Passes.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"

namespace mlir::memopt {

/// train-autodiff's options.
struct AutodiffOptions {
  AutodiffOptimizer optimizer = AutodiffOptimizer::Adam;
  double lr = 1.0e-3;
  double beta1 = 0.9;
  double beta2 = 0.999;
  double epsilon = 1.0e-8;
  double weightDecay = 0.0;
  double momentum = 0.0;
};

/// Appends the backward pass and the optimizer updates (or the gradient
/// results) to `func`, a forward + loss function (train-autodiff). A function
/// that train-precision lowered (it carries `train.precision`) gets its
/// gradients in the precision the attribute names, and loss scaling.
/// Emits a diagnostic and fails when `func` cannot be differentiated.
LogicalResult appendBackward(func::FuncOp func, const AutodiffOptions &options);

/// The options train-autodiff ran with to produce `step`, read from its
/// optimizer ops (which must agree) or its `train.grad_of` results. Fails
/// with a diagnostic when `step` has neither, or mixes optimizers.
FailureOr<AutodiffOptions> inferAutodiffOptions(func::FuncOp step);

/// Erases what train-autodiff appended to `step`: every op after the loss's
/// that the non-gradient results do not depend on, and the `train.grad_of`
/// results. What is left is the forward + loss function, dead forward ops
/// included.
void eraseBackward(func::FuncOp step);

/// Whether `func` is a whole step (it updates parameters or returns
/// gradients) rather than a forward + loss function.
bool isTrainingStep(func::FuncOp func);

/// Whether `step` is exactly (locations aside) what appendBackward with
/// `options` derives from `forward`. Passes that rewrite a whole step
/// through its forward pass check this first: deriving the step again
/// would drop what another pass or a person changed. Fails with
/// appendBackward's diagnostic when `forward` cannot be differentiated.
FailureOr<bool> isDerivedFrom(func::FuncOp step, func::FuncOp forward,
                              const AutodiffOptions &options);

/// Applies `rewrite` to the forward + loss function of `func`: to `func`
/// itself when it is one, else (a whole step) to its forward pass, whose
/// backward pass is then derived again with the step's optimizer settings.
/// Such a step must be what train-autodiff derived: `passName` names the
/// pass in the diagnostic otherwise.
LogicalResult
rewriteForwardPass(func::FuncOp func, StringRef passName,
                   function_ref<LogicalResult(func::FuncOp)> rewrite);

} // namespace mlir::memopt

#endif // MEMOPT_TRANSFORMS_AUTODIFF_H
