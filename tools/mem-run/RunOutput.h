//===- RunOutput.h - what mem-run prints ------------------------*- C++ -*-===//
//
// The lines mem-run prints after each step and at the end of a run, as
// docs/execution.md describes them.
//
//===----------------------------------------------------------------------===//

#ifndef MEMOPT_TOOLS_MEM_RUN_RUNOUTPUT_H
#define MEMOPT_TOOLS_MEM_RUN_RUNOUTPUT_H

#include "memopt/Execution/CompiledStep.h"
#include "memopt/Execution/StepPlan.h"

#include <optional>

namespace mlir::memopt::memrun {

/// Prints the 0-d results of one step: the first float one as the loss
/// (`loss`: the mean over its micro-batches under gradient accumulation).
void printStepLine(const execution::StepPlan &plan, unsigned stepNumber,
                   ArrayRef<const execution::GlobalTensor *> states,
                   std::optional<double> loss);

/// The number of NaN and infinite elements of a resolved float tensor.
int64_t countNonfinite(const execution::GlobalTensor &tensor);

/// Prints the --measure-peak lines of the last step; with several
/// processes (`worldSize`), every process's, gathered (every process calls
/// this).
void printPeak(const execution::StepPlan &plan,
               const execution::StepStats &stats, int64_t worldSize);

/// Prints the --check-gradients report; returns whether every parameter
/// passed.
bool printGradientChecks(ArrayRef<execution::ParamGradientCheck> checks);

} // namespace mlir::memopt::memrun

#endif // MEMOPT_TOOLS_MEM_RUN_RUNOUTPUT_H
