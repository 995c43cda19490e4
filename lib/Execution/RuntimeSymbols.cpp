//===- RuntimeSymbols.cpp - what a JIT-compiled step links to -------------===//

#include "memopt/Execution/RuntimeSymbols.h"

#include "memopt/Runtime/AllocHook.h"
#include "memopt/Runtime/Cublas.h"
#include "memopt/Runtime/MpiCollectives.h"
#include "memopt/Runtime/OneProcessCollectives.h"

#include "mlir/ExecutionEngine/CRunnerUtils.h"
#include "llvm/ADT/StringRef.h"

#include <cmath>

using namespace mlir::memopt;

llvm::orc::SymbolMap
execution::getRuntimeSymbols(llvm::orc::MangleAndInterner interner) {
  llvm::orc::SymbolMap symbols;
  auto addAddress = [&](llvm::StringRef name, void *address) {
    symbols[interner(name)] = llvm::orc::ExecutorSymbolDef(
        llvm::orc::ExecutorAddr::fromPtr(address),
        llvm::JITSymbolFlags::Exported | llvm::JITSymbolFlags::Callable);
  };
  auto add = [&](llvm::StringRef name, auto *function) {
    addAddress(name, reinterpret_cast<void *>(function));
  };
  add("_mlir_memref_to_llvm_alloc", &_mlir_memref_to_llvm_alloc);
  add("_mlir_memref_to_llvm_aligned_alloc",
      &_mlir_memref_to_llvm_aligned_alloc);
  add("_mlir_memref_to_llvm_free", &_mlir_memref_to_llvm_free);
  // The memory space of the allocations that follow (host offload).
  add("memopt_memory_space", &memopt_memory_space);
  add("memopt_memory_copy", &memopt_memory_copy);
  // Copies between memrefs that are not contiguous lower to this call.
  add("memrefCopy", &memrefCopy);
  // cuBLAS calls and collectives of emulated GPU code, on the CPU.
  add("memopt_cublas_gemm", &memopt_cublas_gemm);
  for (const ::memopt::runtime::RuntimeFunction &function :
       ::memopt::runtime::getOneProcessCollectives())
    addAddress(function.name, function.address);
  // Collectives of CPU code (memopt-shard-to-mpi); in a run of several
  // processes, emulated GPU code's memopt_nccl_* calls go to MPI too.
  for (const ::memopt::runtime::RuntimeFunction &function :
       ::memopt::runtime::getMpiCollectives())
    addAddress(function.name, function.address);
  if (::memopt::runtime::mpiStartedWorldSize() > 1)
    for (const ::memopt::runtime::RuntimeFunction &function :
         ::memopt::runtime::getMpiCollectivesAsNccl())
      addAddress(function.name, function.address);
  using F1 = float (*)(float);
  using D1 = double (*)(double);
  using F2 = float (*)(float, float);
  using D2 = double (*)(double, double);
#define MEMOPT_UNARY(name)                                                     \
  add(#name, static_cast<D1>(&::name));                                        \
  add(#name "f", static_cast<F1>(&::name##f));
#define MEMOPT_BINARY(name)                                                    \
  add(#name, static_cast<D2>(&::name));                                        \
  add(#name "f", static_cast<F2>(&::name##f));
  MEMOPT_UNARY(acos)
  MEMOPT_UNARY(acosh)
  MEMOPT_UNARY(asin)
  MEMOPT_UNARY(asinh)
  MEMOPT_UNARY(atan)
  MEMOPT_UNARY(atanh)
  MEMOPT_UNARY(cbrt)
  MEMOPT_UNARY(ceil)
  MEMOPT_UNARY(cos)
  MEMOPT_UNARY(cosh)
  MEMOPT_UNARY(erf)
  MEMOPT_UNARY(erfc)
  MEMOPT_UNARY(exp)
  MEMOPT_UNARY(exp2)
  MEMOPT_UNARY(expm1)
  MEMOPT_UNARY(fabs)
  MEMOPT_UNARY(floor)
  MEMOPT_UNARY(log)
  MEMOPT_UNARY(log10)
  MEMOPT_UNARY(log1p)
  MEMOPT_UNARY(log2)
  MEMOPT_UNARY(rint)
  MEMOPT_UNARY(round)
  MEMOPT_UNARY(roundeven)
  MEMOPT_UNARY(sin)
  MEMOPT_UNARY(sinh)
  MEMOPT_UNARY(sqrt)
  MEMOPT_UNARY(tan)
  MEMOPT_UNARY(tanh)
  MEMOPT_UNARY(trunc)
  MEMOPT_BINARY(atan2)
  MEMOPT_BINARY(copysign)
  MEMOPT_BINARY(fmax)
  MEMOPT_BINARY(fmin)
  MEMOPT_BINARY(fmod)
  MEMOPT_BINARY(pow)
#undef MEMOPT_UNARY
#undef MEMOPT_BINARY
  return symbols;
}
