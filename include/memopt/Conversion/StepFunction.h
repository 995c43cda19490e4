//===- StepFunction.h - the training step of a module -----------*- C++ -*-===//
//
// Which func.func of a module is the training step: shared by
// memopt-add-step-entry and the execution library (mem-run), each with its
// own diagnostics' location and wording.
//
//===----------------------------------------------------------------------===//

#ifndef MEMOPT_CONVERSION_STEPFUNCTION_H
#define MEMOPT_CONVERSION_STEPFUNCTION_H

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/BuiltinOps.h"

#include <optional>

namespace mlir::memopt {

/// How findStepFunction reports a step it cannot find.
struct StepLookupOptions {
  /// Where every diagnostic goes; none: at the module, or at the function
  /// for a declaration.
  std::optional<Location> loc;
  /// Names the input in diagnostics; empty: not named.
  StringRef source;
  /// How the caller names the step (the hint when several functions could
  /// be it).
  StringRef nameOption = "func=NAME";
};

/// The func.func `name` names, or the only func.func with a body when `name`
/// is empty; a diagnostic when there is none, it is a declaration, or (no
/// name) several functions have a body.
FailureOr<func::FuncOp> findStepFunction(ModuleOp module, StringRef name,
                                         const StepLookupOptions &options = {});

} // namespace mlir::memopt

#endif // MEMOPT_CONVERSION_STEPFUNCTION_H
