//===- Pipeline.cpp - memopt-pipeline -------------------------------------===//

#include "memopt/Pipeline/Pipeline.h"

#include "memopt/Conversion/Passes.h"
#include "memopt/Report/Passes.h"
#include "memopt/Transforms/PassOptions.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Pass/PassRegistry.h"

using namespace mlir;
using namespace mlir::memopt;

void mlir::memopt::buildPipeline(OpPassManager &pm,
                                 const PipelineOptions &options) {
  if (options.precision != train::PrecisionMode::FP32) {
    TrainPrecisionPassOptions precision;
    precision.mode = options.precision;
    pm.nest<func::FuncOp>().addPass(createTrainPrecisionPass(precision));
  }
  if (options.autodiff) {
    TrainAutodiffPassOptions autodiff;
    autodiff.optimizer = options.optimizer;
    pm.nest<func::FuncOp>().addPass(createTrainAutodiffPass(autodiff));
  }
  // train-shard partitions the whole module (it adds the grid), after
  // train-precision and train-autodiff and before the passes that read the
  // partitioned step.
  if (options.tp != 1 || options.dp != 1 || options.zero != 0 ||
      options.sequenceParallel) {
    TrainShardPassOptions shard;
    shard.tp = options.tp;
    shard.dp = options.dp;
    shard.zero = options.zero;
    shard.sequenceParallel = options.sequenceParallel;
    shard.vocabParallel = options.vocabParallel;
    pm.addPass(createTrainShardPass(shard));
  }
  // train-pipeline after train-shard: the stages are the grid's last axis.
  // Its stages sum their micro-batches' gradients themselves.
  if (options.pp > 1) {
    TrainPipelinePassOptions pipeline;
    pipeline.stages = options.pp;
    pipeline.microBatches = options.microBatches;
    pipeline.schedule = options.pipelineSchedule;
    pipeline.virtualStages = options.pipelineVirtualStages;
    pipeline.split = options.pipelineSplit;
    pipeline.onlyStages = options.pipelineOnlyStages;
    pm.addPass(createTrainPipelinePass(pipeline));
  }
  OpPassManager &step = pm.nest<func::FuncOp>();
  // Accumulation rewrites the updates of the partitioned step: its buffers
  // hold the reduced gradients.
  // One micro-batch needs no accumulation (the options refuse fewer).
  if (options.microBatches > 1 && options.pp == 1) {
    TrainAccumulateGradientsPassOptions accumulate;
    accumulate.microBatches = options.microBatches;
    step.addPass(createTrainAccumulateGradientsPass(accumulate));
  }
  // The optimizer on the host after train-shard (each process offloads its
  // part), after accumulation (whose sums it moves to the host too) and
  // after train-pipeline (which differentiates each stage from the forward
  // pass: each stage then offloads its own updates).
  if (options.offloadOptimizer) {
    TrainOffloadPassOptions offload;
    offload.optimizer = "host";
    offload.params = options.offloadParams;
    step.addPass(createTrainOffloadPass(offload));
  }
  step.addPass(createTrainVerifyStepPass());
  // A lower base peak first: remat then has less to recompute.
  if (options.schedule)
    step.addPass(createTrainSchedulePass());
  if (options.lifetimes)
    step.addPass(createTrainLifetimesPass());
  if (!options.rematBudget.empty() ||
      options.rematAlgorithm != RematAlgorithm::Auto) {
    TrainRematPassOptions remat;
    remat.budget = options.rematBudget;
    remat.algorithm = options.rematAlgorithm;
    remat.offload = options.rematOffload;
    if (options.rematOffload)
      remat.device = options.rematDevice;
    step.addPass(createTrainRematPass(remat));
  }
  if (options.plan) {
    step.addPass(createTrainPlanMemoryPass());
    step.addPass(createTrainVerifyPlanPass());
  }
  if (options.report) {
    TrainMemoryReportPassOptions report;
    report.format = options.reportFormat;
    report.output = options.reportOutput;
    pm.addPass(createTrainMemoryReportPass(report));
  }
  switch (options.target) {
  case PipelineTarget::None:
    break;
  case PipelineTarget::CPU:
    pm.addPass(createConvertTrainToLinalgPass());
    buildLowerToCPUPipeline(pm);
    break;
  case PipelineTarget::GPU:
    pm.addPass(createConvertTrainToLinalgPass());
    buildLowerToGPUPipeline(pm, LowerToGPUOptions());
    break;
  }
}

/// Fails through `errorHandler` when the option string `text` gives an enum
/// option of `options` a value it does not name.
static LogicalResult
checkPipelineEnums(PipelineOptions &options, StringRef text,
                   function_ref<LogicalResult(const Twine &)> errorHandler) {
  StringRef name = "memopt-pipeline";
  return failure(
      failed(checkEnumPassOption(name, "precision", text, options.precision,
                                 errorHandler)) ||
      failed(checkEnumPassOption(name, "optimizer", text, options.optimizer,
                                 errorHandler)) ||
      failed(checkEnumPassOption(name, "remat-algorithm", text,
                                 options.rematAlgorithm, errorHandler)) ||
      failed(checkEnumPassOption(name, "report-format", text,
                                 options.reportFormat, errorHandler)) ||
      failed(checkEnumPassOption(name, "target", text, options.target,
                                 errorHandler)));
}

/// Checks the parsed options' values and combinations: a value out of its
/// range, or an option its stage would ignore, fails as an option error
/// (before any IR is read), naming the option.
static LogicalResult
checkPipelineOptions(const PipelineOptions &options,
                     function_ref<LogicalResult(const Twine &)> errorHandler) {
  if (failed(checkShardOptions("memopt-pipeline", options.tp, options.dp,
                               options.zero, options.sequenceParallel,
                               errorHandler)))
    return failure();
  if (options.microBatches < 1)
    return errorHandler("memopt-pipeline: micro-batches must be at least 1 "
                        "(the micro-batches per optimizer step), got " +
                        Twine(static_cast<int64_t>(options.microBatches)));
  if (options.pp < 1 || options.pp > 65536)
    return errorHandler("memopt-pipeline: pp must be from 1 to 65536, got " +
                        Twine(static_cast<int64_t>(options.pp)));
  if (options.optimizer.hasValue() && !options.autodiff)
    return errorHandler("memopt-pipeline: optimizer applies with "
                        "autodiff=true (the update train-autodiff appends); a "
                        "whole step has its optimizer already");
  if ((options.reportFormat.hasValue() || options.reportOutput.hasValue()) &&
      !options.report)
    return errorHandler("memopt-pipeline: report-format and report-output "
                        "apply with report=true");
  if (!options.rematBudget.empty()) {
    FailureOr<int64_t> budget = parseByteSize(options.rematBudget);
    if (failed(budget) || *budget == 0)
      return errorHandler("memopt-pipeline: remat-budget='" +
                          options.rematBudget +
                          "' is not a positive size; expected bytes with an "
                          "optional unit, e.g. 40GiB, 512MiB or 1000000");
  }
  return success();
}

void mlir::memopt::registerPipeline() {
  registerPassPipeline(
      "memopt-pipeline",
      "memopt's passes on a training step, in order: train-precision, "
      "train-autodiff, train-shard, train-accumulate-gradients, "
      "train-verify-step, train-schedule, "
      "train-lifetimes, train-remat, train-plan-memory with "
      "train-verify-plan, train-memory-report, and a lowering to the CPU or "
      "the GPU, each as its options ask",
      [](OpPassManager &pm, StringRef text,
         function_ref<LogicalResult(const Twine &)> errorHandler)
          -> LogicalResult {
        PipelineOptions options;
        if (failed(checkPipelineEnums(options, text, errorHandler)))
          return failure();
        // llvm::cl prints why a value does not parse; the error says where.
        if (failed(options.parseFromString(text)))
          return errorHandler("memopt-pipeline: cannot parse the options '" +
                              text + "' (the line above says which value)");
        if (failed(checkPipelineOptions(options, errorHandler)))
          return failure();
        buildPipeline(pm, options);
        return success();
      },
      [](function_ref<void(const detail::PassOptions &)> optHandler) {
        optHandler(PipelineOptions());
      });
}
