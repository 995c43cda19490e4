//===- RuntimeSymbols.h - what a JIT-compiled step links to -----*- C++ -*-===//
//
// The symbol table a JIT-compiled step is linked against: the allocation
// hooks of libmemopt_runtime, the strided copy of MLIR's C runner utilities,
// the CPU cuBLAS and collectives (one process, or MPI's) for emulated GPU
// code, the MPI collectives of CPU code, and the
// C math functions the lowering calls.
//
//===----------------------------------------------------------------------===//

#ifndef MEMOPT_EXECUTION_RUNTIMESYMBOLS_H
#define MEMOPT_EXECUTION_RUNTIMESYMBOLS_H

#include "llvm/ExecutionEngine/Orc/Core.h"
#include "llvm/ExecutionEngine/Orc/Mangling.h"

namespace mlir::memopt::execution {

/// The runtime functions lowered code calls, by their mangled names, for
/// ExecutionEngine::registerSymbols: `_mlir_memref_to_llvm_alloc`,
/// `aligned_alloc` and `free` (counting live bytes), `memrefCopy`,
/// `memopt_cublas_gemm`, the `memopt_nccl_*` entry points (for one process,
/// or MPI's when MPI runs with several: mpiStartedWorldSize),
/// and the libm functions that math-to-libm and LLVM's intrinsic lowering
/// emit. The JIT would find the latter in the process too; naming them makes
/// the resolution independent of what the process happens to export.
llvm::orc::SymbolMap getRuntimeSymbols(llvm::orc::MangleAndInterner interner);

} // namespace mlir::memopt::execution

#endif // MEMOPT_EXECUTION_RUNTIMESYMBOLS_H
