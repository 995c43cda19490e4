//===- Pipeline.cpp - memopt-lower-to-gpu ---------------------------------===//

#include "memopt/Conversion/Passes.h"

#include "mlir/Conversion/AffineToStandard/AffineToStandard.h"
#include "mlir/Conversion/ArithToLLVM/ArithToLLVM.h"
#include "mlir/Conversion/ControlFlowToLLVM/ControlFlowToLLVM.h"
#include "mlir/Conversion/FuncToLLVM/ConvertFuncToLLVMPass.h"
#include "mlir/Conversion/GPUCommon/GPUCommonPass.h"
#include "mlir/Conversion/GPUToNVVM/GPUToNVVMPass.h"
#include "mlir/Conversion/IndexToLLVM/IndexToLLVM.h"
#include "mlir/Conversion/MathToLLVM/MathToLLVM.h"
#include "mlir/Conversion/MathToLibm/MathToLibm.h"
#include "mlir/Conversion/MemRefToLLVM/MemRefToLLVM.h"
#include "mlir/Conversion/ReconcileUnrealizedCasts/ReconcileUnrealizedCasts.h"
#include "mlir/Conversion/SCFToControlFlow/SCFToControlFlow.h"
#include "mlir/Dialect/Arith/Transforms/Passes.h"
#include "mlir/Dialect/GPU/Transforms/Passes.h"
#include "mlir/Dialect/Linalg/Passes.h"
#include "mlir/Dialect/MemRef/Transforms/Passes.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Pass/PassRegistry.h"
#include "mlir/Transforms/Passes.h"

using namespace mlir;

void mlir::memopt::buildLowerToGPUPipeline(OpPassManager &pm,
                                           const LowerToGPUOptions &options) {
  MemoptGPUCheckTargetPassOptions target;
  target.chip = options.chip;
  target.features = options.features;
  target.format = options.format;
  pm.addPass(createMemoptGPUCheckTargetPass(target));
  MemoptCheckLinalgInputPassOptions check;
  check.pipeline = "memopt-lower-to-gpu";
  pm.addPass(createMemoptCheckLinalgInputPass(check));

  // Collectives of a sharded step: NCCL calls on buffers.
  pm.addPass(createMemoptShardToNcclPass());

  // Buffers, as on the CPU (the allocation functions serve managed memory).
  buildBufferizationPipeline(pm);
  // Copies between the device's and the host's memory (train-offload) as
  // runtime calls; the host code stays on the CPU in the passes below.
  pm.addPass(createMemoptGPUMemoryCopiesPass());
  if (options.cublas)
    pm.addPass(createMemoptLinalgToCublasPass());
  // The narrow contractions cuBLAS did not take (fp8 operands, strided
  // views) sum in f32 in their kernels, as cuBLAS and the CPU lowering do.
  MemoptWidenContractionAccumulatorsPassOptions widen;
  widen.parallel = true;
  pm.addPass(createMemoptWidenContractionAccumulatorsPass(widen));
  pm.addNestedPass<func::FuncOp>(createMemoptGPUPrepareLinalgPass());

  // Long reductions onto a block per output element, the other loops onto
  // a thread per parallel iteration, then kernels.
  MemoptGPUBlockReductionsPassOptions reductions;
  reductions.blockSize = options.blockSize;
  reductions.minExtent = options.reductionMinExtent;
  pm.addNestedPass<func::FuncOp>(
      createMemoptGPUBlockReductionsPass(reductions));
  pm.addPass(createConvertLinalgToParallelLoopsPass());
  MemoptGPUMapLoopsPassOptions mapLoops;
  mapLoops.blockSize = options.blockSize;
  pm.addNestedPass<func::FuncOp>(createMemoptGPUMapLoopsPass(mapLoops));

  // Emulation: the kernels as CPU loops, then the CPU's lowering.
  if (options.emulate) {
    pm.addNestedPass<func::FuncOp>(createMemoptGPUEmulateLaunchesPass());
    buildLoopsToControlFlowPipeline(pm);
    buildHostToLLVMPipeline(pm);
    pm.addPass(createReconcileUnrealizedCastsPass());
    return;
  }

  pm.addPass(createGpuKernelOutliningPass());
  pm.addPass(createMemoptGPUMergeKernelModulesPass());
  GpuNVVMAttachTargetOptions attach;
  attach.chip = options.chip;
  attach.features = options.features;
  attach.optLevel = options.optLevel;
  pm.addPass(createGpuNVVMAttachTarget(attach));

  // Host and device: strided metadata, affine, structured control flow.
  // bf16 and fp8 conversions in software, on both sides.
  buildLoopsToControlFlowPipeline(pm);

  // Device: NVVM (math through libdevice).
  OpPassManager &device = pm.nest<gpu::GPUModuleOp>();
  device.addPass(createConvertGpuOpsToNVVMOps());
  device.addPass(createCanonicalizerPass());
  device.addPass(createCSEPass());
  device.addPass(createReconcileUnrealizedCastsPass());

  // Host: as memopt-lower-to-cpu, then the launches.
  buildHostToLLVMPipeline(pm);
  pm.addPass(createGpuToLLVMConversionPass());
  pm.addPass(createReconcileUnrealizedCastsPass());
  pm.addPass(createMemoptGPUDeviceGlobalsPass());

  // Kernels to cubin (ptxas) or PTX.
  GpuModuleToBinaryPassOptions binary;
  binary.toolkitPath = options.toolkit;
  binary.compilationTarget = options.format;
  pm.addPass(createGpuModuleToBinaryPass(binary));
}

void mlir::memopt::registerLowerToGPUPipeline() {
  PassPipelineRegistration<LowerToGPUOptions>(
      "memopt-lower-to-gpu",
      "Lowers linalg on tensors (from convert-train-to-linalg) to host LLVM "
      "code and NVIDIA GPU kernels (gpu.binary): bufferization as "
      "memopt-lower-to-cpu, matmuls as cuBLAS calls, loops as kernels, "
      "NVVM, cubins assembled by ptxas",
      buildLowerToGPUPipeline);
}
