//===- Screening.cpp - one candidate's step, planned or screened ----------===//
//
// The memory of a candidate is never a formula: its step is built and
// memopt-pipeline (memopt::buildPipeline, the pass order defined once) runs
// on it: train-precision, train-autodiff, train-shard, gradient accumulation,
// train-verify-step, train-schedule, train-lifetimes, train-remat and, for a
// full plan, train-plan-memory with train-verify-plan. evaluateCandidate
// reads the planned arena of the whole model; screenCandidate composes the
// LOAD and cost of 2 and 3 layers where the model allows it.
//
//===----------------------------------------------------------------------===//

#include "memopt/Autoplan/Autoplan.h"

#include "memopt/Analysis/TensorLiveness.h"
#include "memopt/Dialect/Train/IR/TrainOps.h"
#include "memopt/Pipeline/Pipeline.h"
#include "memopt/Report/MemoryReport.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/Pass/PassManager.h"

#include <chrono>

using namespace mlir;
using namespace mlir::memopt;
using namespace mlir::memopt::autoplan;

/// Whether `module`'s function is already a whole step (has updates).
static bool isWholeStep(ModuleOp module) {
  return module
      .walk([](Operation *op) {
        return isa<train::SgdOp, train::AdamOp, train::AdamWOp>(op)
                   ? WalkResult::interrupt()
                   : WalkResult::advance();
      })
      .wasInterrupted();
}

static func::FuncOp getStepFunction(ModuleOp module) {
  func::FuncOp step;
  module.walk([&](func::FuncOp func) {
    if (!step && !func.isExternal())
      step = func;
  });
  return step;
}

/// The memopt-pipeline options that run the passes of `candidate` on the
/// fp32 model (`whole`: already a whole step, else differentiated with the
/// search's optimizer); `plan` plans the arena.
static void setPipelineOptions(PipelineOptions &pipeline,
                               const SearchOptions &options,
                               const Candidate &candidate, bool whole,
                               bool plan) {
  pipeline.precision = candidate.precision;
  pipeline.autodiff = !whole;
  pipeline.optimizer = options.optimizer;
  pipeline.tp = candidate.tp;
  pipeline.dp = candidate.dp;
  pipeline.zero = candidate.zero;
  pipeline.sequenceParallel = candidate.sequenceParallel;
  pipeline.microBatches = candidate.gradientAccumulation;
  switch (candidate.remat) {
  case RematChoice::None:
    break;
  case RematChoice::Selective:
    pipeline.rematAlgorithm = RematAlgorithm::Selective;
    break;
  case RematChoice::Full:
    pipeline.rematAlgorithm = RematAlgorithm::Layers;
    break;
  case RematChoice::Greedy:
    pipeline.rematAlgorithm = RematAlgorithm::Greedy;
    // train-remat bounds the LOAD; the arena adds alignment padding and
    // fragmentation, so greedy aims 1% lower. A plan whose arena still
    // misses the budget is TooLarge.
    pipeline.rematBudget =
        std::to_string(options.getBudget() - options.getBudget() / 100);
    break;
  }
  pipeline.plan = plan;
}

/// Runs the passes of `candidate` on `module` (its fp32 model): precision,
/// autodiff, the partition, accumulation, schedule, lifetimes, remat and,
/// with `plan`, the arena.
static LogicalResult runCandidatePasses(MLIRContext &context, ModuleOp module,
                                        const SearchOptions &options,
                                        const Candidate &candidate, bool plan) {
  if (!getStepFunction(module))
    return emitError(module.getLoc(), "the model has no function");
  PipelineOptions pipeline;
  setPipelineOptions(pipeline, options, candidate, isWholeStep(module), plan);
  PassManager pm(&context);
  buildPipeline(pm, pipeline);
  return pm.run(module);
}

FailureOr<OwningOpRef<ModuleOp>> mlir::memopt::autoplan::buildCandidateStep(
    MLIRContext &context, const StepSource &source,
    const SearchOptions &options, const Candidate &candidate) {
  OwningOpRef<ModuleOp> module =
      source.build(context, candidate.microBatch * candidate.dp);
  if (!module || failed(runCandidatePasses(context, *module, options, candidate,
                                           /*plan=*/true)))
    return failure();
  return module;
}

namespace {
/// Collects the first error diagnostic (with its location) while alive.
struct ErrorCollector {
  explicit ErrorCollector(MLIRContext &context)
      : handler(&context, [this](Diagnostic &diag) {
          if (diag.getSeverity() == DiagnosticSeverity::Error &&
              message.empty())
            message = diag.str();
          return success();
        }) {}
  std::string message;
  ScopedDiagnosticHandler handler;
};

double secondsSince(std::chrono::steady_clock::time_point start) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start)
      .count();
}
} // namespace

/// The verdict on a candidate whose passes failed with `error`:
/// train-remat's failure to reach the budget is a memory verdict.
static void setFailure(Evaluation &evaluation, const std::string &error) {
  evaluation.status = evaluation.candidate.remat == RematChoice::Greedy &&
                              StringRef(error).contains("budget")
                          ? Evaluation::Status::TooLarge
                          : Evaluation::Status::Invalid;
  evaluation.reason = error.empty() ? "the passes failed" : error;
}

static void setTokensPerSecond(Evaluation &evaluation, const StepSource &source,
                               const SearchOptions &options) {
  int64_t tokens = options.globalBatch * source.tokensPerSample;
  evaluation.tokensPerSecond =
      evaluation.cost.stepSeconds > 0
          ? static_cast<double>(tokens) / evaluation.cost.stepSeconds
          : 0.0;
}

Evaluation mlir::memopt::autoplan::evaluateCandidate(
    MLIRContext &context, const StepSource &source,
    const SearchOptions &options, const Candidate &candidate) {
  auto start = std::chrono::steady_clock::now();
  Evaluation evaluation;
  evaluation.candidate = candidate;
  evaluation.planned = true;
  FailureOr<OwningOpRef<ModuleOp>> module;
  std::string error;
  {
    ErrorCollector errors(context);
    module = buildCandidateStep(context, source, options, candidate);
    error = errors.message;
  }
  if (failed(module)) {
    setFailure(evaluation, error);
    evaluation.seconds = secondsSince(start);
    return evaluation;
  }
  func::FuncOp step = getStepFunction(**module);
  FailureOr<MemoryReport> report = MemoryReport::create(step);
  if (failed(report)) {
    setFailure(evaluation, "the memory report failed");
    evaluation.seconds = secondsSince(start);
    return evaluation;
  }
  evaluation.peakBytes = report->getPeakBytes();
  evaluation.loadBytes =
      report->getPlanLoadBytes().value_or(report->getLoadBytes());
  evaluation.modelStateBytes = report->getModelStates().getTotalBytes();
  evaluation.savedActivationBytes = report->getSavedActivations().totalBytes;
  evaluation.peakOp =
      (report->getPeakOpName() + " at " + report->getPeakLocation()).str();
  evaluation.cost =
      estimateStepCost(step, options.device, candidate.gradientAccumulation);
  setTokensPerSecond(evaluation, source, options);
  if (evaluation.peakBytes <= options.getBudget()) {
    evaluation.status = Evaluation::Status::Fits;
  } else {
    evaluation.status = Evaluation::Status::TooLarge;
    evaluation.reason =
        "the planned arena of " + formatBytes(evaluation.peakBytes) +
        " exceeds the budget of " + formatBytes(options.getBudget());
  }
  evaluation.seconds = secondsSince(start);
  return evaluation;
}

/// One point of a composition: the LOAD (at the planner's 256-byte
/// alignment) and the cost of `candidate` on the model of `layers` layers,
/// without planning.
static FailureOr<std::pair<int64_t, StepCost>>
measureLayers(MLIRContext &context, const StepSource &source,
              const SearchOptions &options, const Candidate &candidate,
              int64_t layers) {
  OwningOpRef<ModuleOp> module =
      source.buildLayers(context, candidate.microBatch * candidate.dp, layers);
  if (!module || failed(runCandidatePasses(context, *module, options, candidate,
                                           /*plan=*/false)))
    return failure();
  func::FuncOp step = getStepFunction(*module);
  TensorLiveness liveness(step, /*granularity=*/256);
  return std::make_pair(
      liveness.getLoad(),
      estimateStepCost(step, options.device, candidate.gradientAccumulation));
}

/// a + (b - a) * (n - 2), for values at 2 and 3 layers composed to n.
template <typename T> static T extend(T a, T b, int64_t n) {
  return a + (b - a) * static_cast<T>(n - 2);
}

Evaluation mlir::memopt::autoplan::screenCandidate(MLIRContext &context,
                                                   const StepSource &source,
                                                   const SearchOptions &options,
                                                   const Candidate &candidate) {
  if (!source.canCompose())
    return evaluateCandidate(context, source, options, candidate);
  auto start = std::chrono::steady_clock::now();
  Evaluation evaluation;
  evaluation.candidate = candidate;
  // The LOAD and cost at 2 and 3 layers.
  int64_t loads[2] = {0, 0};
  StepCost costs[2];
  std::string error;
  bool measured = true;
  {
    ErrorCollector errors(context);
    for (int64_t layers : {2, 3}) {
      FailureOr<std::pair<int64_t, StepCost>> point =
          measureLayers(context, source, options, candidate, layers);
      if (failed(point)) {
        measured = false;
        break;
      }
      loads[layers - 2] = point->first;
      costs[layers - 2] = point->second;
    }
    error = errors.message;
  }
  if (!measured) {
    setFailure(evaluation, error);
    evaluation.seconds = secondsSince(start);
    return evaluation;
  }
  int64_t n = source.layers;
  evaluation.loadBytes = extend(loads[0], loads[1], n);
  const StepCost &a = costs[0], &b = costs[1];
  StepCost &cost = evaluation.cost;
  cost.microBatchSeconds = extend(a.microBatchSeconds, b.microBatchSeconds, n);
  cost.recomputeSeconds = extend(a.recomputeSeconds, b.recomputeSeconds, n);
  cost.tensorParallelSeconds =
      extend(a.tensorParallelSeconds, b.tensorParallelSeconds, n);
  cost.dataParallelSeconds =
      extend(a.dataParallelSeconds, b.dataParallelSeconds, n);
  cost.optimizerSeconds = extend(a.optimizerSeconds, b.optimizerSeconds, n);
  cost.stepSeconds = extend(a.stepSeconds, b.stepSeconds, n);
  cost.flops = extend(a.flops, b.flops, n);
  cost.recomputeFlops = extend(a.recomputeFlops, b.recomputeFlops, n);
  cost.sentBytes = extend(a.sentBytes, b.sentBytes, n);
  setTokensPerSecond(evaluation, source, options);
  if (evaluation.loadBytes <= options.getBudget()) {
    evaluation.status = Evaluation::Status::Fits;
  } else {
    evaluation.status = Evaluation::Status::TooLarge;
    evaluation.reason = "its LOAD of " + formatBytes(evaluation.loadBytes) +
                        " (composed from 2 and 3 layers) exceeds the budget "
                        "of " +
                        formatBytes(options.getBudget());
  }
  evaluation.seconds = secondsSince(start);
  return evaluation;
}
