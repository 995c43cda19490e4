//===- Cublas.h - memopt_cublas_gemm, the cuBLAS entry point ----*- C++ -*-===//
//
// The function memopt-linalg-to-cublas's calls reach, with the arguments and
// column-major semantics of cublasGemmStridedBatchedEx (alpha = beta = 1).
// Two implementations: lib/Runtime/CUDA (cuBLAS, on the GPU) and
// lib/Runtime/CublasReference.cpp (in libmemopt_runtime, on the CPU, for
// `memopt-lower-to-gpu{emulate=true}`: it sums over the depth in order, in
// f32 (f64 for f64), rounds once and adds C, as cuBLAS does with beta = 1),
// so that the operand descriptions the pass derives (transposes, leading
// dimensions, batch strides) are checked by execution.
//
//===----------------------------------------------------------------------===//

#ifndef MEMOPT_RUNTIME_CUBLAS_H
#define MEMOPT_RUNTIME_CUBLAS_H

#include <cstdint>

extern "C" {
/// C = op(X) op(Y) + C, column-major, `rows x cols`, for `outer` x `inner`
/// batches; element types 0 f32, 1 f64, 2 f16, 3 bf16; compute 0 f32, 1 f64;
/// pointers are buffer addresses plus element offsets; strides in elements.
void memopt_cublas_gemm(int32_t typeX, int32_t typeY, int32_t typeC,
                        int32_t compute, int32_t transX, int32_t transY,
                        int64_t rows, int64_t cols, int64_t depth,
                        int64_t xBase, int64_t xOffset, int64_t ldx,
                        int64_t yBase, int64_t yOffset, int64_t ldy,
                        int64_t cBase, int64_t cOffset, int64_t ldc,
                        int64_t outer, int64_t xOuter, int64_t yOuter,
                        int64_t cOuter, int64_t inner, int64_t xInner,
                        int64_t yInner, int64_t cInner);
}

#endif // MEMOPT_RUNTIME_CUBLAS_H
