//===- InitAll.h - register memopt dialects and passes ----------*- C++ -*-===//

#ifndef MEMOPT_INITALL_H
#define MEMOPT_INITALL_H

namespace mlir {
class DialectRegistry;

namespace memopt {

/// Registers the train dialect and the upstream dialects that memopt's
/// pipelines produce or consume (func, arith, math, tensor, linalg, memref,
/// scf, gpu, nvvm, llvm, shard, mpi, bufferization).
void registerAllDialects(DialectRegistry &registry);

/// Registers what memopt-lower-to-gpu needs to serialize kernels: the NVVM
/// target attribute's implementation and the NVVM and GPU translations to
/// LLVM IR (the builtin and LLVM translations are registered separately).
void registerGPUTargets(DialectRegistry &registry);

/// Registers every memopt pass and pipeline (memopt-pipeline,
/// memopt-lower-to-cpu, memopt-lower-to-gpu), plus the upstream generic
/// transforms (canonicalize, cse, ...) used around them.
void registerAllPasses();

} // namespace memopt
} // namespace mlir

#endif // MEMOPT_INITALL_H
