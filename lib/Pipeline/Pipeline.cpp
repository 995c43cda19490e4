//===- Pipeline.cpp - memopt-pipeline -------------------------------------===//

#include "memopt/Pipeline/Pipeline.h"

#include "memopt/Conversion/Passes.h"
#include "memopt/Report/Passes.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Pass/PassRegistry.h"

using namespace mlir;

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
  OpPassManager &step = pm.nest<func::FuncOp>();
  // Accumulation rewrites the updates of the partitioned step: its buffers
  // hold the reduced gradients.
  if (options.accumulateGradients)
    step.addPass(createTrainAccumulateGradientsPass());
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

void mlir::memopt::registerPipeline() {
  PassPipelineRegistration<PipelineOptions>(
      "memopt-pipeline",
      "memopt's passes on a training step, in order: train-precision, "
      "train-autodiff, train-shard, train-accumulate-gradients, "
      "train-verify-step, train-schedule, "
      "train-lifetimes, train-remat, train-plan-memory with "
      "train-verify-plan, train-memory-report, and a lowering to the CPU or "
      "the GPU, each as its options ask",
      [](OpPassManager &pm, const PipelineOptions &options) {
        buildPipeline(pm, options);
      });
}
