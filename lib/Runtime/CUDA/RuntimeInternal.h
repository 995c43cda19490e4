//===- RuntimeInternal.h - shared by the CUDA runtime's files ---*- C++ -*-===//
//
// What CudaCollectives.cpp needs from CudaRuntime.cpp: the error exit and
// the runtime's one stream.
//
//===----------------------------------------------------------------------===//

#ifndef MEMOPT_LIB_RUNTIME_CUDA_RUNTIMEINTERNAL_H
#define MEMOPT_LIB_RUNTIME_CUDA_RUNTIMEINTERNAL_H

#include <cuda.h>

namespace memopt::cuda {

/// Prints "memopt-cuda-runtime: <message>" to stderr and exits with status 1.
[[noreturn]] void fatal(const char *format, ...)
    __attribute__((format(printf, 1, 2)));

/// The stream every kernel, cuBLAS call and collective runs on (loads the
/// driver and makes the device's context current on first use).
CUstream stream();

/// Waits for everything enqueued on stream().
void synchronize();

} // namespace memopt::cuda

#endif // MEMOPT_LIB_RUNTIME_CUDA_RUNTIMEINTERNAL_H
