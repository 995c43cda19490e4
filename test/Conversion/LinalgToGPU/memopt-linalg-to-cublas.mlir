// RUN: mem-opt %s -split-input-file --memopt-linalg-to-cublas --canonicalize | FileCheck %s

// Arguments of memopt_cublas_gemm: element types of X, Y, C (0 f32, 1 f64,
// 2 f16, 3 bf16), compute (0 f32, 1 f64), op(X), op(Y) (1 = transposed),
// rows, cols, depth of the column-major C = op(X) op(Y) + C, then address,
// offset and ld of X, Y and C, then the outer batch count and strides
// (X, Y, C), then the inner (strided-batched) count and strides.

// Host code (between memopt_memory_space(1) and (0): train-offload) runs on
// the CPU over host memory: its matmul stays; the device's becomes a call.
// CHECK-LABEL: func.func @host_code
// CHECK: call @memopt_memory_space
// CHECK-NEXT: linalg.matmul
// CHECK-NEXT: call @memopt_memory_space
// CHECK: call @memopt_cublas_gemm
func.func private @memopt_memory_space(i32)
func.func @host_code(%a: memref<8x16xf32>, %b: memref<16x32xf32>, %c: memref<8x32xf32>) {
  %host = arith.constant 1 : i32
  %device = arith.constant 0 : i32
  call @memopt_memory_space(%host) : (i32) -> ()
  linalg.matmul ins(%a, %b : memref<8x16xf32>, memref<16x32xf32>) outs(%c : memref<8x32xf32>)
  call @memopt_memory_space(%device) : (i32) -> ()
  linalg.matmul ins(%a, %b : memref<8x16xf32>, memref<16x32xf32>) outs(%c : memref<8x32xf32>)
  return
}

// -----

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

// Grouped-query attention's scores: loops (b, h, g, i, j, d) with three
// batch dimensions. B = 2 runs as an scf.for around the call (each call
// moves q by 1536, k by 768 and s by 96 elements), H = 2 as the runtime's
// outer loop, G = 2 as cuBLAS's batch, where k's stride is 0 (both query
// heads of a group read one key head).
// CHECK-LABEL: func.func @gqa_scores
// CHECK-DAG: %[[C1536:.+]] = arith.constant 1536 : index
// CHECK-DAG: %[[C768:.+]] = arith.constant 768 : index
// CHECK-DAG: %[[C96:.+]] = arith.constant 96 : index
// CHECK: scf.for %[[B:.+]] = %c0 to %c2 step %c1 {
// CHECK: arith.muli %[[B]], %[[C768]] : index
// CHECK: arith.muli %[[B]], %[[C1536]] : index
// CHECK: arith.muli %[[B]], %[[C96]] : index
// CHECK: call @memopt_cublas_gemm(%c0_i32, %c0_i32, %c0_i32, %c0_i32, %c1_i32, %c0_i32, %c6_i64, %c4_i64, %c16_i64, %{{.*}}, %{{.*}}, %c32_i64, %{{.*}}, %{{.*}}, %c64_i64, %{{.*}}, %{{.*}}, %c6_i64, %c2_i64, %c16_i64, %c32_i64, %c48_i64, %c2_i64, %c0_i64, %c16_i64, %c24_i64)
// CHECK-NEXT: }
func.func @gqa_scores(%q: memref<2x2x2x4x16xf32, strided<[1536, 32, 16, 64, 1]>>, %k: memref<2x2x6x16xf32, strided<[768, 16, 32, 1]>>, %s: memref<2x2x2x4x6xf32>) {
  linalg.generic {
    indexing_maps = [affine_map<(b, h, g, i, j, d) -> (b, h, g, i, d)>,
                     affine_map<(b, h, g, i, j, d) -> (b, h, j, d)>,
                     affine_map<(b, h, g, i, j, d) -> (b, h, g, i, j)>],
    iterator_types = ["parallel", "parallel", "parallel", "parallel", "parallel", "reduction"]}
    ins(%q, %k : memref<2x2x2x4x16xf32, strided<[1536, 32, 16, 64, 1]>>, memref<2x2x6x16xf32, strided<[768, 16, 32, 1]>>)
    outs(%s : memref<2x2x2x4x6xf32>) {
  ^bb0(%x: f32, %y: f32, %acc: f32):
    %p = arith.mulf %x, %y : f32
    %r = arith.addf %acc, %p : f32
    linalg.yield %r : f32
  }
  return
}

// -----

// The group sum of a key gradient: loops (b, h, j, d, g, i), reductions g
// and i. i is the GEMM's depth; g runs as an scf.for whose calls accumulate
// into the same output (stride 0 for dk), moving p by 24 and q by 64.
// CHECK-LABEL: func.func @gqa_group_sum
// CHECK-DAG: %[[C24:.+]] = arith.constant 24 : index
// CHECK-DAG: %[[C64:.+]] = arith.constant 64 : index
// CHECK: scf.for %[[G:.+]] = %c0 to %c2 step %c1 {
// CHECK: arith.muli %[[G]], %[[C64]] : index
// CHECK: arith.muli %[[G]], %[[C24]] : index
// CHECK-NOT: arith.muli
// CHECK: call @memopt_cublas_gemm(%c0_i32, %c0_i32, %c0_i32, %c0_i32, %c0_i32, %c1_i32, %c16_i64, %c6_i64, %c4_i64, %{{.*}}, %{{.*}}, %c16_i64, %{{.*}}, %{{.*}}, %c6_i64, %{{.*}}, %c0_i64, %c16_i64, %c1_i64, %c256_i64, %c96_i64, %c192_i64, %c2_i64, %c128_i64, %c48_i64, %c96_i64)
// CHECK-NEXT: }
// CHECK-NOT: memopt_cublas_gemm(
// CHECK: return
func.func @gqa_group_sum(%p: memref<1x2x2x4x6xf32>, %q: memref<1x2x2x4x16xf32>, %dk: memref<1x2x6x16xf32>) {
  linalg.generic {
    indexing_maps = [affine_map<(b, h, j, d, g, i) -> (b, h, g, i, j)>,
                     affine_map<(b, h, j, d, g, i) -> (b, h, g, i, d)>,
                     affine_map<(b, h, j, d, g, i) -> (b, h, j, d)>],
    iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction", "reduction"]}
    ins(%p, %q : memref<1x2x2x4x6xf32>, memref<1x2x2x4x16xf32>)
    outs(%dk : memref<1x2x6x16xf32>) {
  ^bb0(%x: f32, %y: f32, %acc: f32):
    %m = arith.mulf %x, %y : f32
    %r = arith.addf %acc, %m : f32
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

