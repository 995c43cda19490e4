//===- Pipelines.cpp - memopt-lower-to-cpu --------------------------------===//

#include "memopt/Conversion/Passes.h"

#include "mlir/Conversion/AffineToStandard/AffineToStandard.h"
#include "mlir/Conversion/ArithToLLVM/ArithToLLVM.h"
#include "mlir/Conversion/BufferizationToMemRef/BufferizationToMemRef.h"
#include "mlir/Conversion/ControlFlowToLLVM/ControlFlowToLLVM.h"
#include "mlir/Conversion/FuncToLLVM/ConvertFuncToLLVMPass.h"
#include "mlir/Conversion/IndexToLLVM/IndexToLLVM.h"
#include "mlir/Conversion/MathToLLVM/MathToLLVM.h"
#include "mlir/Conversion/MathToLibm/MathToLibm.h"
#include "mlir/Conversion/MemRefToLLVM/MemRefToLLVM.h"
#include "mlir/Conversion/ReconcileUnrealizedCasts/ReconcileUnrealizedCasts.h"
#include "mlir/Conversion/SCFToControlFlow/SCFToControlFlow.h"
#include "mlir/Dialect/Arith/Transforms/Passes.h"
#include "mlir/Dialect/Bufferization/Pipelines/Passes.h"
#include "mlir/Dialect/Bufferization/Transforms/Passes.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Linalg/Passes.h"
#include "mlir/Dialect/MemRef/Transforms/Passes.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Pass/PassRegistry.h"
#include "mlir/Transforms/Passes.h"

using namespace mlir;

void mlir::memopt::buildBufferizationPipeline(OpPassManager &pm) {
  bufferization::OneShotBufferizePassOptions bufferize;
  bufferize.bufferizeFunctionBoundaries = true;
  bufferize.functionBoundaryTypeConversion =
      bufferization::LayoutMapOption::IdentityLayoutMap;
  bufferize.bufferAlignment = kCPUBufferAlignment;
  pm.addPass(bufferization::createOneShotBufferizePass(bufferize));
  // Removes the self-copies bufferization leaves behind (e.g. of rows
  // updated in place inside loops, or of an optimizer's state written in
  // place into its global: CSE first merges the global's two reads).
  pm.addPass(createCSEPass());
  pm.addPass(createCanonicalizerPass());
  bufferization::buildBufferDeallocationPipeline(pm);
  // Clones the deallocation leaves (e.g. of a returned argument) become
  // memref allocations and copies.
  pm.addPass(createConvertBufferizationToMemRefPass());
  // Free each buffer right after its last use, as the memory model does.
  pm.addNestedPass<func::FuncOp>(createMemoptFreeAfterLastUsePass());
}

void mlir::memopt::buildLoopsToControlFlowPipeline(OpPassManager &pm) {
  pm.addPass(memref::createExpandStridedMetadataPass());
  pm.addPass(createLowerAffinePass());
  pm.addPass(createSCFToControlFlowPass());
  // bf16 and fp8 conversions in software (no libmlir_float16_utils needed):
  // E4M3FN and E5M2 first, since their conversions to bf16 truncate f32.
  pm.addPass(createMemoptExpandFP8ConversionsPass());
  arith::ArithExpandOpsPassOptions expand;
  expand.includeBf16 = true;
  expand.includeF8E8M0 = true;
  pm.addPass(arith::createArithExpandOpsPass(expand));
  // An 8-bit float conversion or computation left now would fail late in
  // LLVM, without a location.
  pm.addPass(createMemoptCheckFP8ConversionsPass());
}

void mlir::memopt::buildHostToLLVMPipeline(OpPassManager &pm) {
  pm.addPass(createConvertMathToLibmPass());
  pm.addPass(createConvertMathToLLVMPass());
  // Allocations go through _mlir_memref_to_llvm_alloc/free, which a runtime
  // (mem-run --measure-peak) can define to count live bytes.
  FinalizeMemRefToLLVMConversionPassOptions memrefToLLVM;
  memrefToLLVM.useGenericFunctions = true;
  // Ask the runtime for exactly the tensor's bytes at its alignment (rather
  // than size + alignment, aligned by hand), so counted bytes are model bytes.
  memrefToLLVM.useAlignedAlloc = true;
  pm.addPass(createFinalizeMemRefToLLVMConversionPass(memrefToLLVM));
  pm.addPass(createArithToLLVMConversionPass());
  pm.addPass(createConvertControlFlowToLLVMPass());
  pm.addPass(createConvertFuncToLLVMPass());
  pm.addPass(createConvertIndexToLLVMPass());
}

void mlir::memopt::buildLowerToCPUPipeline(OpPassManager &pm) {
  MemoptCheckLinalgInputPassOptions check;
  check.pipeline = "memopt-lower-to-cpu";
  pm.addPass(createMemoptCheckLinalgInputPass(check));
  // Collectives of a sharded step: MPI calls on buffers.
  pm.addPass(createMemoptShardToMpiPass());
  buildBufferizationPipeline(pm);
  // bf16/f16 contractions sum in f32, as cuBLAS does on the GPU path.
  pm.addPass(createMemoptWidenContractionAccumulatorsPass());
  pm.addPass(createConvertLinalgToLoopsPass());
  buildLoopsToControlFlowPipeline(pm);
  buildHostToLLVMPipeline(pm);
  pm.addPass(createReconcileUnrealizedCastsPass());
}

void mlir::memopt::registerLowerToCPUPipeline() {
  PassPipelineRegistration<>(
      "memopt-lower-to-cpu",
      "Lowers linalg on tensors (from convert-train-to-linalg) to the LLVM "
      "dialect for the CPU, with bufferization, deallocation and the "
      "generic allocation functions a runtime can count",
      [](OpPassManager &pm) { buildLowerToCPUPipeline(pm); });
}
