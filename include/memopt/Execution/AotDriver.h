//===- AotDriver.h - write a lowered step for an AOT build ------*- C++ -*-===//
//
// `mem-run --emit-aot=DIR`: the lowered step (StepPlan.h: lowerStep) as
// DIR/step.mlir, and DIR/main.c, a C driver that fills the step's globals
// by the formulas mem-run uses, runs the steps and prints what mem-run
// prints. scripts/aot-build.sh compiles and links them. The driver's fixed
// part is the template lib/Execution/AotDriver.c.in; only the tables of
// globals and a few constants depend on the step.
//
//===----------------------------------------------------------------------===//

#ifndef MEMOPT_EXECUTION_AOTDRIVER_H
#define MEMOPT_EXECUTION_AOTDRIVER_H

#include "memopt/Execution/StepPlan.h"

namespace mlir::memopt::execution {

/// Writes the C driver of `plan` to `path`: it runs `steps` steps (or its
/// first argument) with the seed global set to `seed`.
LogicalResult writeAotDriver(const StepPlan &plan, StringRef path,
                             unsigned steps, int64_t seed);

/// Writes DIR/step.mlir (the lowered `module`) and DIR/main.c
/// (writeAotDriver), creating `dir` if needed.
LogicalResult writeAotFiles(ModuleOp module, const StepPlan &plan,
                            StringRef dir, unsigned steps, int64_t seed);

} // namespace mlir::memopt::execution

#endif // MEMOPT_EXECUTION_AOTDRIVER_H
