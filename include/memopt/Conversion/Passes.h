//===- Passes.h - memopt conversion passes ----------------------*- C++ -*-===//

#ifndef MEMOPT_CONVERSION_PASSES_H
#define MEMOPT_CONVERSION_PASSES_H

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Bufferization/IR/Bufferization.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/Pass/Pass.h"
#include "mlir/Pass/PassOptions.h"

#ifndef MEMOPT_CUDA_TOOLKIT_PATH
#define MEMOPT_CUDA_TOOLKIT_PATH "/usr/local/cuda"
#endif

namespace mlir::memopt {

#define GEN_PASS_DECL
#include "memopt/Conversion/Passes.h.inc"

#define GEN_PASS_REGISTRATION
#include "memopt/Conversion/Passes.h.inc"

/// Naming conventions of convert-train-to-linalg, shared with runtimes that
/// feed and read a lowered step (mem-run).
/// Symbol of the global that holds parameter `name`.
std::string getParamGlobalName(StringRef name);
/// Symbol of the global that holds optimizer state `name`.
std::string getStateGlobalName(StringRef name);
/// Alignment of every buffer memopt-lower-to-cpu allocates; the allocation
/// functions receive sizes padded to a multiple of it.
inline constexpr int64_t kCPUBufferAlignment = 64;
/// The bytes a step planned by train-plan-memory adds to its arena at its
/// peak when convert-train-to-linalg lowers it onto the arena: the planned
/// buffers it returns, each padded to `alignment`. The caller owns and frees
/// every returned buffer, so none is a view of the arena: each is an
/// allocation of its own. One allocated after the arena's last use (the
/// arena is freed then) does not add to it: the peak is then the larger of
/// the arena with the buffers returned before, and all returned buffers.
/// 0 for an unplanned step. With `host`, the same for the host's arena (a
/// step with values in host memory) and the host values it returns.
int64_t getPlannedBytesOutsideArena(func::FuncOp func, int64_t alignment,
                                    bool host = false);
/// Symbol of the i64 global holding the step's random seed.
inline constexpr StringLiteral kSeedGlobalName = "__train_seed";

/// The calling convention of memopt-add-step-entry, through which mem-run
/// and its AOT driver run a step: the no-argument entry function, and the
/// globals it reads the step's argument `index` from and writes its result
/// `index` into.
inline constexpr StringLiteral kStepEntryName = "__memrun_entry";
std::string getStepArgumentGlobalName(unsigned index);
std::string getStepResultGlobalName(unsigned index);

/// Adds the passes that take a module of linalg-on-tensors (the output of
/// convert-train-to-linalg) to the LLVM dialect for the CPU: bufferization
/// with ownership-based deallocation, loops, and LLVM conversion with the
/// generic allocation functions (`_mlir_memref_to_llvm_alloc/free`) so a
/// runtime can count live bytes.
void buildLowerToCPUPipeline(OpPassManager &pm);

/// Registers `memopt-lower-to-cpu`.
void registerLowerToCPUPipeline();

/// Adds what memopt-lower-to-cpu and memopt-lower-to-gpu share: one-shot
/// bufferization (function boundaries with identity layouts, buffers aligned
/// to kCPUBufferAlignment), ownership-based deallocation made explicit, and
/// every dealloc moved right after the buffer's last use.
void buildBufferizationPipeline(OpPassManager &pm);

/// Memref strided metadata, affine and scf to cf, then bf16/fp8 arithmetic in
/// software: the steps between loops and LLVM both pipelines share.
void buildLoopsToControlFlowPipeline(OpPassManager &pm);

/// Host code to the LLVM dialect (math through libm, allocations through
/// the generic, aligned allocation functions a runtime can count), without
/// the final reconcile-unrealized-casts.
void buildHostToLLVMPipeline(OpPassManager &pm);

/// Options of `memopt-lower-to-gpu`.
struct LowerToGPUOptions : public PassPipelineOptions<LowerToGPUOptions> {
  PassOptions::Option<std::string> chip{
      *this, "chip", llvm::cl::desc("Target chip (SM version), e.g. sm_90"),
      llvm::cl::init("sm_90")};
  PassOptions::Option<std::string> features{
      *this, "features",
      llvm::cl::desc("PTX features, e.g. +ptx80 (sm_90 needs +ptx78 or newer)"),
      llvm::cl::init("+ptx80")};
  PassOptions::Option<std::string> format{
      *this, "format",
      llvm::cl::desc("Kernel binary format: bin (cubin, assembled by ptxas), "
                     "isa (PTX, JIT-compiled by the driver) or fatbin"),
      llvm::cl::init("bin")};
  PassOptions::Option<int> optLevel{
      *this, "opt-level",
      llvm::cl::desc("Optimization level of the NVPTX backend (0-3)"),
      llvm::cl::init(2)};
  PassOptions::Option<int64_t> blockSize{
      *this, "block-size",
      llvm::cl::desc("Threads per block of the mapped loops"),
      llvm::cl::init(256)};
  PassOptions::Option<int64_t> reductionMinExtent{
      *this, "reduction-min-extent",
      llvm::cl::desc("Fewest reduction iterations per output element for a "
                     "block reduction (shorter ones: one thread per output)"),
      llvm::cl::init(256)};
  PassOptions::Option<bool> cublas{
      *this, "cublas",
      llvm::cl::desc("Call cuBLAS for matmuls (false: matmuls become kernels)"),
      llvm::cl::init(true)};
  PassOptions::Option<std::string> toolkit{
      *this, "toolkit", llvm::cl::desc("CUDA toolkit root (ptxas, libdevice)"),
      llvm::cl::init(MEMOPT_CUDA_TOOLKIT_PATH)};
  PassOptions::Option<bool> emulate{
      *this, "emulate",
      llvm::cl::desc("Run the kernels as CPU loops instead of compiling them "
                     "(memopt-gpu-emulate-launches; cuBLAS calls then need a "
                     "CPU memopt_cublas_gemm, as libmemopt_runtime has): "
                     "checks the GPU lowering's results without a GPU"),
      llvm::cl::init(false)};
};

/// Adds the passes that take a module of linalg-on-tensors (the output of
/// convert-train-to-linalg) to host LLVM code with `gpu.binary` kernels for
/// an NVIDIA GPU: the bufferization of memopt-lower-to-cpu, matmuls as
/// cuBLAS calls, loops as kernels, NVVM, ptxas, and the generic allocation
/// functions, which the CUDA runtime (lib/Runtime/CUDA) serves from managed
/// memory.
void buildLowerToGPUPipeline(OpPassManager &pm,
                             const LowerToGPUOptions &options);

/// Registers `memopt-lower-to-gpu`.
void registerLowerToGPUPipeline();

} // namespace mlir::memopt

#endif // MEMOPT_CONVERSION_PASSES_H
