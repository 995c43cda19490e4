//===- CompiledStep.h - run a lowered step in this process ------*- C++ -*-===//
//
// The second half of running a training step in-process: JIT-compile the
// lowered module (StepPlan.h: lowerStep) with MLIR's ExecutionEngine, fill
// its globals by the documented formulas, run steps, read the losses and
// summaries of the state back, and measure what each step allocates
// through the allocation hooks of libmemopt_runtime. The processes of a
// sharded run can share one compilation (SharedCompilation).
//
//   FailureOr<std::unique_ptr<CompiledStep>> compiled =
//       CompiledStep::create(module, plan);
//   (*compiled)->initialize(/*seed=*/0);
//   FailureOr<StepStats> stats = (*compiled)->runStep(1);
//
//===----------------------------------------------------------------------===//

#ifndef MEMOPT_EXECUTION_COMPILEDSTEP_H
#define MEMOPT_EXECUTION_COMPILEDSTEP_H

#include "memopt/Execution/StepPlan.h"

#include <functional>
#include <memory>
#include <optional>
#include <string>

namespace llvm::orc {
class LLJIT;
} // namespace llvm::orc

namespace mlir {
class ExecutionEngine;
class TimingScope;
} // namespace mlir

namespace mlir::memopt::execution {

/// Sum and sum of squares of a tensor's elements in double, one element at
/// a time in row-major order (so a Python loop reproduces them exactly).
struct TensorSummary {
  double sum = 0.0;
  double sumSquares = 0.0;
};

/// Summarizes a tensor whose global has been resolved.
TensorSummary summarize(const GlobalTensor &tensor);

/// Reads the 0-d float tensor `tensor` (resolved) as a double.
double loadScalarFloat(const GlobalTensor &tensor);

/// What one step allocated through the allocation hooks.
struct StepStats {
  /// The peak of the bytes live through the allocation hooks during the
  /// step, counting those live before it (0 when the step was not
  /// measured).
  uint64_t peakBytes = 0;
  /// The same in host memory (train-offload's host allocations).
  uint64_t hostPeakBytes = 0;
  /// Bytes still allocated after the step that were not before it (a leak
  /// in the lowered code).
  int64_t leakedBytes = 0;
};

/// How the processes of a sharded run share one compilation. They lower the
/// same program (each reads its rank at run time, from the collectives'
/// runtime), so one process compiles it and sends the object code with a
/// fingerprint of the lowered module it compiled (the module's text, the
/// optimization level and the host's CPU); every other process loads that
/// object into its own JIT if its own module has the same fingerprint, and
/// compiles the module itself otherwise.
struct SharedCompilation {
  /// Whether this process compiles and sends (one process of the run).
  bool isSender = false;
  /// Sends `message` from the sender to every other process, and on those
  /// replaces `message` with what was sent. Every process calls it once;
  /// the others wait while the sender compiles.
  std::function<void(std::string &message)> broadcast;
};

/// How CompiledStep::create compiles.
struct CompileOptions {
  /// LLVM optimization level (0-3) of both the IR optimization and the code
  /// generation.
  unsigned optLevel = 2;
  /// When set, the translation to LLVM IR, LLVM's optimization and the code
  /// generation are timed under this scope (mem-run --mlir-timing).
  TimingScope *timing = nullptr;
  /// When set, the compilation is shared with the run's other processes.
  const SharedCompilation *sharing = nullptr;
};

/// A lowered step compiled in this process, with its globals resolved.
class CompiledStep {
public:
  /// Compiles the lowered `module` as `options` say, links it against the
  /// runtime (RuntimeSymbols.h) and resolves the globals of `plan`, which
  /// must outlive the result.
  static FailureOr<std::unique_ptr<CompiledStep>>
  create(ModuleOp module, StepPlan &plan, const CompileOptions &options);

  /// Compiles at LLVM optimization level `optLevel` (0-3), in this process
  /// alone.
  static FailureOr<std::unique_ptr<CompiledStep>>
  create(ModuleOp module, StepPlan &plan, unsigned optLevel = 2);
  ~CompiledStep();

  /// Fills the initial state: parameters by formula, optimizer states with
  /// zeros (as PyTorch's), the seed global with `seed` and the arguments
  /// (the first micro-batch's under gradient accumulation).
  void initialize(int64_t seed);

  /// Stores `stepNumber` into the optimizer step-count arguments and runs
  /// the step once, or under gradient accumulation once per micro-batch
  /// (StepPlan::microBatches), each call on the next micro-batch's
  /// arguments; with `measurePeak`, resets the peak of the allocation hooks
  /// first and reports it (over all the calls).
  FailureOr<StepStats> runStep(unsigned stepNumber, bool measurePeak = false);

  /// The first 0-d float result of the last step (the loss), if any; under
  /// gradient accumulation the mean over the step's micro-batches.
  std::optional<double> getLoss() const;

  /// The sum over the parameters of their summaries' sums.
  double getParamsChecksum() const;

  StepPlan &getPlan() { return plan; }
  const StepPlan &getPlan() const { return plan; }

  /// Whether the code was loaded from another process's compilation
  /// (SharedCompilation) rather than compiled here.
  bool isLoaded() const { return loaded != nullptr; }

private:
  CompiledStep(StepPlan &plan);

  /// Links the program (looks its entry up) and resolves the globals of
  /// `plan` in it.
  LogicalResult link();

  /// The address of `symbol` in the program.
  llvm::Expected<void *> lookup(StringRef symbol) const;

  /// Fills the float and integer arguments with micro-batch `microBatch`
  /// of the batch (docs/execution.md); 0 without gradient accumulation.
  void fillArguments(int64_t microBatch);

  /// The first 0-d float result of the last call, if any.
  std::optional<double> getLastLoss() const;

  /// The mean loss over the micro-batches of the last runStep.
  std::optional<double> meanLoss;

  /// The program: compiled here by MLIR's ExecutionEngine, or loaded from
  /// the object code another process compiled.
  std::unique_ptr<ExecutionEngine> engine;
  std::unique_ptr<llvm::orc::LLJIT> loaded;
  /// The packed entry (`_mlir_` + kStepEntryName), resolved by link().
  void (*entry)(void **) = nullptr;
  StepPlan &plan;
};

/// Tolerances and sampling of checkGradients; a zero step or tolerance
/// takes the default for the parameter's type.
struct GradientCheckOptions {
  /// Elements checked per parameter (evenly spaced; all if fewer).
  unsigned samples = 16;
  /// Finite-difference step (default: 1e-6 for f64 parameters, 1e-3
  /// otherwise).
  double step = 0.0;
  /// Relative tolerance (default: 1e-6 for f64, 2e-2 otherwise).
  double rtol = 0.0;
  /// Absolute tolerance (default: 1e-8 for f64, 1e-3 otherwise).
  double atol = 0.0;
};

/// The outcome of the gradient check of one parameter.
struct ParamGradientCheck {
  std::string name;
  int64_t samples = 0;
  double maxAbsError = 0.0;
  double maxRelError = 0.0;
  double rtol = 0.0;
  double atol = 0.0;
  /// The element with the largest error beyond the tolerance, if any.
  std::optional<int64_t> worst;
  double worstAnalytic = 0.0;
  double worstNumeric = 0.0;
};

/// Checks the analytic gradients a differentiated step returns (results
/// marked train.grad_of) against central finite differences of its loss
/// (the first result): perturbs sampled elements of each parameter by +-h
/// and requires |numeric - analytic| <= atol + rtol * |analytic|. Fails
/// (with a diagnostic) only when the check cannot run.
FailureOr<SmallVector<ParamGradientCheck>>
runGradientCheck(CompiledStep &step, const GradientCheckOptions &options);

} // namespace mlir::memopt::execution

#endif // MEMOPT_EXECUTION_COMPILEDSTEP_H
