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
  OpPassManager &step = pm.nest<func::FuncOp>();
  if (options.precision != train::PrecisionMode::FP32) {
    TrainPrecisionPassOptions precision;
    precision.mode = options.precision;
    step.addPass(createTrainPrecisionPass(precision));
  }
  step.addPass(createTrainVerifyStepPass());
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
      "train-verify-step, "
      "train-lifetimes, train-remat, train-plan-memory with "
      "train-verify-plan, train-memory-report, and a lowering to the CPU or "
      "the GPU, each as its options ask",
      [](OpPassManager &pm, const PipelineOptions &options) {
        buildPipeline(pm, options);
      });
}
