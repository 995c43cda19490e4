// RUN: mem-opt %s -split-input-file --memopt-linalg-to-cublas --canonicalize | FileCheck %s

// Arguments of memopt_cublas_gemm: element types of X, Y, C (0 f32, 1 f64,
// 2 f16, 3 bf16), compute (0 f32, 1 f64), op(X), op(Y) (1 = transposed),
// rows, cols, depth of the column-major C = op(X) op(Y) + C, then address,
// offset and ld of X, Y and C, then the outer batch count and strides
// (X, Y, C), then the inner (strided-batched) count and strides.

// Row-major C = A B is computed as column-major C^T = B^T A^T: X = B read
// as an N x K column-major matrix (ld 32), Y = A as K x M (ld 16).
// CHECK-LABEL: func.func @matmul
// CHECK-NOT: linalg.matmul
// CHECK: call @memopt_cublas_gemm(%c0_i32, %c0_i32, %c0_i32, %c0_i32, %c0_i32, %c0_i32, %c32_i64, %c8_i64, %c16_i64, %{{.*}}, %{{.*}}, %c32_i64, %{{.*}}, %{{.*}}, %c16_i64, %{{.*}}, %{{.*}}, %c32_i64, %c1_i64, %c0_i64, %c0_i64, %c0_i64, %c1_i64, %c0_i64, %c0_i64, %c0_i64)
// CHECK: func.func private @memopt_cublas_gemm(i32, i32, i32, i32, i32, i32, i64, i64, i64, i64, i64, i64, i64, i64, i64, i64, i64, i64, i64, i64, i64, i64, i64, i64, i64, i64)
func.func @matmul(%a: memref<8x16xf32>, %b: memref<16x32xf32>, %c: memref<8x32xf32>) {
  linalg.matmul ins(%a, %b : memref<8x16xf32>, memref<16x32xf32>) outs(%c : memref<8x32xf32>)
  return
}

// -----

// A transposed right-hand side (X = W^T stored as 32 x 16 row-major: op T,
// ld 16) and bf16 operands accumulating into f32.
// CHECK-LABEL: func.func @matmul_transpose_rhs_bf16
// CHECK: call @memopt_cublas_gemm(%c3_i32, %c3_i32, %c0_i32, %c0_i32, %c1_i32, %c0_i32, %c32_i64, %c8_i64, %c16_i64, %{{.*}}, %{{.*}}, %c16_i64, %{{.*}}, %{{.*}}, %c16_i64, %{{.*}}, %{{.*}}, %c32_i64,
func.func @matmul_transpose_rhs_bf16(%a: memref<8x16xbf16>, %w: memref<32x16xbf16>, %c: memref<8x32xf32>) {
  linalg.matmul
    indexing_maps = [affine_map<(m, n, k) -> (m, k)>, affine_map<(m, n, k) -> (n, k)>, affine_map<(m, n, k) -> (m, n)>]
    ins(%a, %w : memref<8x16xbf16>, memref<32x16xbf16>) outs(%c : memref<8x32xf32>)
  return
}

// -----

// batch_matmul: the inner (strided) batch of 4 with strides 16*32, 8*16,
// 8*32 elements for B, A, C.
// CHECK-LABEL: func.func @batch_matmul
// CHECK: call @memopt_cublas_gemm(%c0_i32, %c0_i32, %c0_i32, %c0_i32, %c0_i32, %c0_i32, %c32_i64, %c8_i64, %c16_i64, {{.*}}, %c1_i64, %c0_i64, %c0_i64, %c0_i64, %c4_i64, %c512_i64, %c128_i64, %c256_i64)
func.func @batch_matmul(%a: memref<4x8x16xf32>, %b: memref<4x16x32xf32>, %c: memref<4x8x32xf32>) {
  linalg.batch_matmul ins(%a, %b : memref<4x8x16xf32>, memref<4x16x32xf32>) outs(%c : memref<4x8x32xf32>)
  return
}

// -----

// The contraction convert-train-to-linalg builds for attention heads: two
// batch dimensions over a strided (transposed) view. B = 2 runs as the
// runtime's outer loop, H = 3 as cuBLAS's batch; q is [B, T, H, D] viewed
// as [B, H, T, D] (strides 96, 16, 48, 1), k^T contracts D.
// CHECK-LABEL: func.func @attention_scores
// CHECK: call @memopt_cublas_gemm(%c0_i32, %c0_i32, %c0_i32, %c0_i32, %c1_i32, %c0_i32, %c2_i64, %c2_i64, %c16_i64, %{{.*}}, %{{.*}}, %c48_i64, %{{.*}}, %{{.*}}, %c48_i64, %{{.*}}, %{{.*}}, %c2_i64, %c2_i64, %c96_i64, %c96_i64, %c12_i64, %c3_i64, %c16_i64, %c16_i64, %c4_i64)
func.func @attention_scores(%q: memref<2x3x2x16xf32, strided<[96, 16, 48, 1]>>, %k: memref<2x3x2x16xf32, strided<[96, 16, 48, 1]>>, %s: memref<2x3x2x2xf32>) {
  linalg.generic {
    indexing_maps = [affine_map<(b, h, m, n, k) -> (b, h, m, k)>,
                     affine_map<(b, h, m, n, k) -> (b, h, n, k)>,
                     affine_map<(b, h, m, n, k) -> (b, h, m, n)>],
    iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction"]}
    ins(%q, %k : memref<2x3x2x16xf32, strided<[96, 16, 48, 1]>>, memref<2x3x2x16xf32, strided<[96, 16, 48, 1]>>)
    outs(%s : memref<2x3x2x2xf32>) {
  ^bb0(%x: f32, %y: f32, %acc: f32):
    %p = arith.mulf %x, %y : f32
    %r = arith.addf %acc, %p : f32
    linalg.yield %r : f32
  }
  return
}

// -----

// What cuBLAS cannot compute stays a linalg op: mixed operand types, integer
// matmuls, a column stride that is not 1 in either dimension, a body that is
// not a multiply-add.
// CHECK-LABEL: func.func @unsupported
// CHECK-NOT: memopt_cublas_gemm
// CHECK: linalg.matmul ins(%{{.*}}, %{{.*}} : memref<8x16xf32>, memref<16x32xbf16>)
// CHECK: linalg.matmul ins(%{{.*}}, %{{.*}} : memref<8x16xi32>, memref<16x32xi32>)
// CHECK: linalg.matmul ins(%{{.*}}, %{{.*}} : memref<8x16xf32, strided<[32, 2]>>, memref<16x32xf32>)
// CHECK: linalg.generic
// CHECK-NOT: memopt_cublas_gemm
func.func @unsupported(%a: memref<8x16xf32>, %b: memref<16x32xbf16>, %c: memref<8x32xf32>,
                       %ai: memref<8x16xi32>, %bi: memref<16x32xi32>, %ci: memref<8x32xi32>,
                       %as: memref<8x16xf32, strided<[32, 2]>>, %bf: memref<16x32xf32>) {
  linalg.matmul ins(%a, %b : memref<8x16xf32>, memref<16x32xbf16>) outs(%c : memref<8x32xf32>)
  linalg.matmul ins(%ai, %bi : memref<8x16xi32>, memref<16x32xi32>) outs(%ci : memref<8x32xi32>)
  linalg.matmul ins(%as, %bf : memref<8x16xf32, strided<[32, 2]>>, memref<16x32xf32>) outs(%c : memref<8x32xf32>)
  linalg.generic {
    indexing_maps = [affine_map<(m, n, k) -> (m, k)>, affine_map<(m, n, k) -> (k, n)>, affine_map<(m, n, k) -> (m, n)>],
    iterator_types = ["parallel", "parallel", "reduction"]}
    ins(%a, %bf : memref<8x16xf32>, memref<16x32xf32>) outs(%c : memref<8x32xf32>) {
  ^bb0(%x: f32, %y: f32, %acc: f32):
    %p = arith.mulf %x, %y : f32
    %r = arith.maximumf %acc, %p : f32
    linalg.yield %r : f32
  }
  return
}
