// Executes train.matmul in every lowering path (linalg.matmul with and
// without transposes, batch_matmul for rank 3 and collapsed rank 4, a shared
// rank-2 rhs with and without transpose_lhs, a wider result type) and checks
// the numbers. Expected values: numpy (float64) on the same inputs.
// RUN: mem-opt %s --convert-train-to-linalg --memopt-lower-to-cpu \
// RUN:   | %mlir_runner -e main -entry-point-result=void %runner_libs \
// RUN:   | FileCheck %s
// The same through memopt-lower-to-gpu's kernels, run as CPU loops (every
// reduction a block reduction, matmuls through the CPU cuBLAS stand-in):
// RUN: mem-opt %s --convert-train-to-linalg %gpu_emulator \
// RUN:   | %mlir_runner -e main -entry-point-result=void %runner_libs \
// RUN:   | FileCheck %s

func.func private @printMemrefF32(tensor<*xf32>)
func.func private @printMemrefF64(tensor<*xf64>)

func.func @main() {

  // rank 2
  %a1 = arith.constant dense<[[0.0, 0.0, 2.0, 3.0], [-3.0, -2.0, 2.0, 3.0], [-2.0, -1.0, 3.0, -1.0]]> : tensor<3x4xf32>
  %b1 = arith.constant dense<[[-2.0, 2.0], [-2.0, -1.0], [1.0, 0.0], [-3.0, -3.0]]> : tensor<4x2xf32>
  %r1 = train.matmul %a1, %b1 : tensor<3x4xf32>, tensor<4x2xf32> -> tensor<3x2xf32>
  // CHECK: Unranked Memref {{.*}} sizes = [3, 2]
  // CHECK-NEXT: {{\[\[}}-7, -9],
  // CHECK-NEXT: [3, -13],
  // CHECK-NEXT: [12, 0]]
  %pu1 = tensor.cast %r1 : tensor<3x2xf32> to tensor<*xf32>
  call @printMemrefF32(%pu1) : (tensor<*xf32>) -> ()

  // rank 2, transpose_lhs
  %a2 = arith.constant dense<[[3.0, 2.0, 2.0], [0.0, 2.0, -1.0], [0.0, 2.0, -3.0], [-1.0, -3.0, 0.0]]> : tensor<4x3xf32>
  %b2 = arith.constant dense<[[3.0, -3.0], [-1.0, -1.0], [3.0, -2.0], [0.0, -2.0]]> : tensor<4x2xf32>
  %r2 = train.matmul %a2, %b2 {transpose_lhs} : tensor<4x3xf32>, tensor<4x2xf32> -> tensor<3x2xf32>
  // CHECK: Unranked Memref {{.*}} sizes = [3, 2]
  // CHECK-NEXT: {{\[\[}}9, -7],
  // CHECK-NEXT: [10, -6],
  // CHECK-NEXT: [-2, 1]]
  %pu2 = tensor.cast %r2 : tensor<3x2xf32> to tensor<*xf32>
  call @printMemrefF32(%pu2) : (tensor<*xf32>) -> ()

  // rank 2, transpose_rhs
  %a3 = arith.constant dense<[[-3.0, 2.0, -3.0, -2.0], [0.0, 0.0, -3.0, 3.0], [2.0, 3.0, -3.0, 2.0]]> : tensor<3x4xf32>
  %b3 = arith.constant dense<[[-1.0, 0.0, 3.0, -2.0], [2.0, -2.0, -1.0, 3.0]]> : tensor<2x4xf32>
  %r3 = train.matmul %a3, %b3 {transpose_rhs} : tensor<3x4xf32>, tensor<2x4xf32> -> tensor<3x2xf32>
  // CHECK: Unranked Memref {{.*}} sizes = [3, 2]
  // CHECK-NEXT: {{\[\[}}-2, -13],
  // CHECK-NEXT: [-15, 12],
  // CHECK-NEXT: [-15, 7]]
  %pu3 = tensor.cast %r3 : tensor<3x2xf32> to tensor<*xf32>
  call @printMemrefF32(%pu3) : (tensor<*xf32>) -> ()

  // rank 2, both transposed
  %a4 = arith.constant dense<[[-1.0, 0.0, -1.0], [-3.0, -1.0, 1.0], [0.0, 2.0, -1.0], [1.0, 2.0, 3.0]]> : tensor<4x3xf32>
  %b4 = arith.constant dense<[[-1.0, -3.0, 2.0, 0.0], [3.0, 0.0, -1.0, -3.0]]> : tensor<2x4xf32>
  %r4 = train.matmul %a4, %b4 {transpose_lhs, transpose_rhs} : tensor<4x3xf32>, tensor<2x4xf32> -> tensor<3x2xf32>
  // CHECK: Unranked Memref {{.*}} sizes = [3, 2]
  // CHECK-NEXT: {{\[\[}}10, -6],
  // CHECK-NEXT: [7, -8],
  // CHECK-NEXT: [-4, -11]]
  %pu4 = tensor.cast %r4 : tensor<3x2xf32> to tensor<*xf32>
  call @printMemrefF32(%pu4) : (tensor<*xf32>) -> ()

  // rank 3 batch_matmul, transpose_rhs
  %a5 = arith.constant dense<[[[0.0, 1.0, 2.0, 2.0], [-2.0, 1.0, 2.0, -2.0], [-1.0, 2.0, 1.0, 0.0]], [[1.0, 0.0, 3.0, 2.0], [-3.0, -2.0, 0.0, 2.0], [-3.0, 1.0, 2.0, 2.0]]]> : tensor<2x3x4xf32>
  %b5 = arith.constant dense<[[[3.0, -2.0, 0.0, 2.0], [-1.0, -2.0, 0.0, -3.0]], [[-2.0, 2.0, 1.0, 3.0], [2.0, 3.0, -1.0, 0.0]]]> : tensor<2x2x4xf32>
  %r5 = train.matmul %a5, %b5 {transpose_rhs} : tensor<2x3x4xf32>, tensor<2x2x4xf32> -> tensor<2x3x2xf32>
  // CHECK: Unranked Memref {{.*}} sizes = [2, 3, 2]
  // CHECK-NEXT: {{\[\[\[}}2, -8],
  // CHECK-NEXT: [-12, 6],
  // CHECK-NEXT: [-7, -3]],
  // CHECK-NEXT: {{\[\[}}7, -1],
  // CHECK-NEXT: [8, -12],
  // CHECK-NEXT: [16, -5]]]
  %pu5 = tensor.cast %r5 : tensor<2x3x2xf32> to tensor<*xf32>
  call @printMemrefF32(%pu5) : (tensor<*xf32>) -> ()

  // rank 3 batch_matmul, transpose_lhs
  %a6 = arith.constant dense<[[[1.0, -2.0, 3.0], [-3.0, 2.0, 1.0], [-2.0, 2.0, -1.0], [2.0, 3.0, -2.0]], [[0.0, -2.0, 1.0], [1.0, 2.0, 2.0], [3.0, 3.0, 3.0], [-2.0, -3.0, 0.0]]]> : tensor<2x4x3xf32>
  %b6 = arith.constant dense<[[[-1.0, 3.0], [2.0, -1.0], [1.0, 1.0], [3.0, -3.0]], [[0.0, 1.0], [0.0, 3.0], [3.0, 2.0], [0.0, 3.0]]]> : tensor<2x4x2xf32>
  %r6 = train.matmul %a6, %b6 {transpose_lhs} : tensor<2x4x3xf32>, tensor<2x4x2xf32> -> tensor<2x3x2xf32>
  // CHECK: Unranked Memref {{.*}} sizes = [2, 3, 2]
  // CHECK-NEXT: {{\[\[\[}}-3, -2],
  // CHECK-NEXT: [17, -15],
  // CHECK-NEXT: [-8, 13]],
  // CHECK-NEXT: {{\[\[}}9, 3],
  // CHECK-NEXT: [9, 1],
  // CHECK-NEXT: [9, 13]]]
  %pu6 = tensor.cast %r6 : tensor<2x3x2xf32> to tensor<*xf32>
  call @printMemrefF32(%pu6) : (tensor<*xf32>) -> ()

  // rank 4 (batch dims collapsed), transpose_lhs
  %a7 = arith.constant dense<[[[[-3.0, 1.0, -2.0], [-2.0, 1.0, 2.0], [3.0, -2.0, 3.0], [2.0, -1.0, -3.0]], [[2.0, 2.0, 0.0], [-2.0, -2.0, -1.0], [2.0, -1.0, -3.0], [1.0, 2.0, -2.0]]], [[[0.0, -1.0, 0.0], [-3.0, 1.0, -2.0], [0.0, -1.0, 1.0], [-3.0, -1.0, 1.0]], [[2.0, -1.0, -3.0], [2.0, 0.0, 1.0], [-2.0, 0.0, 3.0], [3.0, -1.0, 1.0]]]]> : tensor<2x2x4x3xf32>
  %b7 = arith.constant dense<[[[[-3.0, 2.0], [-2.0, -1.0], [3.0, 0.0], [3.0, -2.0]], [[2.0, 3.0], [-3.0, -2.0], [-2.0, -2.0], [-1.0, -3.0]]], [[[3.0, -2.0], [3.0, 2.0], [-2.0, 1.0], [2.0, -3.0]], [[-3.0, -1.0], [-3.0, -1.0], [0.0, 1.0], [1.0, 0.0]]]]> : tensor<2x2x4x2xf32>
  %r7 = train.matmul %a7, %b7 {transpose_lhs} : tensor<2x2x4x3xf32>, tensor<2x2x4x2xf32> -> tensor<2x2x3x2xf32>
  // CHECK: Unranked Memref {{.*}} sizes = [2, 2, 3, 2]
  // CHECK-NEXT: {{\[\[\[\[}}28, -8],
  // CHECK-NEXT: [-14, 3],
  // CHECK-NEXT: [2, 0]],
  // CHECK-NEXT: {{\[\[}}5, 3],
  // CHECK-NEXT: [10, 6],
  // CHECK-NEXT: [11, 14]]],
  // CHECK-NEXT: {{\[\[\[}}-15, 3],
  // CHECK-NEXT: [0, 6],
  // CHECK-NEXT: [-6, -6]],
  // CHECK-NEXT: {{\[\[}}-9, -6],
  // CHECK-NEXT: [2, 1],
  // CHECK-NEXT: [7, 5]]]]
  %pu7 = tensor.cast %r7 : tensor<2x2x3x2xf32> to tensor<*xf32>
  call @printMemrefF32(%pu7) : (tensor<*xf32>) -> ()

  // rank 4, both transposed
  %a8 = arith.constant dense<[[[[-2.0, 1.0, 0.0], [2.0, 1.0, 2.0], [1.0, -1.0, -2.0], [0.0, 1.0, -1.0]], [[-2.0, -3.0, -3.0], [-2.0, -1.0, -2.0], [-2.0, -1.0, 2.0], [-1.0, 3.0, 1.0]]], [[[-3.0, 3.0, 3.0], [2.0, -2.0, 2.0], [1.0, 2.0, 1.0], [1.0, -1.0, 3.0]], [[3.0, 1.0, -1.0], [0.0, 0.0, -3.0], [-3.0, 0.0, 0.0], [-2.0, -2.0, -3.0]]]]> : tensor<2x2x4x3xf32>
  %b8 = arith.constant dense<[[[[3.0, 0.0, -2.0, 2.0], [3.0, -1.0, 3.0, 2.0]], [[2.0, 0.0, 3.0, -2.0], [-3.0, 3.0, 0.0, -1.0]]], [[[2.0, -1.0, 1.0, 2.0], [2.0, -3.0, 3.0, 2.0]], [[1.0, -2.0, 3.0, -1.0], [3.0, -2.0, -3.0, 2.0]]]]> : tensor<2x2x2x4xf32>
  %r8 = train.matmul %a8, %b8 {transpose_lhs, transpose_rhs} : tensor<2x2x4x3xf32>, tensor<2x2x2x4xf32> -> tensor<2x2x3x2xf32>
  // CHECK: Unranked Memref {{.*}} sizes = [2, 2, 3, 2]
  // CHECK-NEXT: {{\[\[\[\[}}-8, -5],
  // CHECK-NEXT: [7, 1],
  // CHECK-NEXT: [2, -10]],
  // CHECK-NEXT: {{\[\[}}-8, 1],
  // CHECK-NEXT: [-15, 3],
  // CHECK-NEXT: [-2, 2]]],
  // CHECK-NEXT: {{\[\[\[}}-5, -7],
  // CHECK-NEXT: [8, 16],
  // CHECK-NEXT: [11, 9]],
  // CHECK-NEXT: {{\[\[}}-4, 14],
  // CHECK-NEXT: [3, -1],
  // CHECK-NEXT: [8, -3]]]]
  %pu8 = tensor.cast %r8 : tensor<2x2x3x2xf32> to tensor<*xf32>
  call @printMemrefF32(%pu8) : (tensor<*xf32>) -> ()

  // shared weight (linear layer), rank 3 lhs
  %a9 = arith.constant dense<[[[1.0, -1.0, 3.0, 3.0], [-3.0, 1.0, 2.0, 1.0], [1.0, 0.0, 0.0, -1.0]], [[-2.0, -1.0, 1.0, 3.0], [3.0, -2.0, -3.0, 3.0], [1.0, 2.0, 2.0, -1.0]]]> : tensor<2x3x4xf32>
  %b9 = arith.constant dense<[[3.0, 1.0], [1.0, -1.0], [-1.0, -1.0], [1.0, 0.0]]> : tensor<4x2xf32>
  %r9 = train.matmul %a9, %b9 : tensor<2x3x4xf32>, tensor<4x2xf32> -> tensor<2x3x2xf32>
  // CHECK: Unranked Memref {{.*}} sizes = [2, 3, 2]
  // CHECK-NEXT: {{\[\[\[}}2, -1],
  // CHECK-NEXT: [-9, -6],
  // CHECK-NEXT: [2, 1]],
  // CHECK-NEXT: {{\[\[}}-5, -2],
  // CHECK-NEXT: [13, 8],
  // CHECK-NEXT: [2, -3]]]
  %pu9 = tensor.cast %r9 : tensor<2x3x2xf32> to tensor<*xf32>
  call @printMemrefF32(%pu9) : (tensor<*xf32>) -> ()

  // shared weight, rank 4 lhs, transpose_rhs
  %a10 = arith.constant dense<[[[[-3.0, -3.0, -2.0, 0.0], [1.0, 3.0, 2.0, -2.0], [0.0, 2.0, 3.0, 0.0]], [[2.0, -2.0, 0.0, 3.0], [-1.0, -3.0, 2.0, -1.0], [0.0, 3.0, -1.0, -2.0]]], [[[-2.0, 2.0, -2.0, 1.0], [-2.0, 2.0, 2.0, 1.0], [-1.0, -1.0, 3.0, 2.0]], [[-1.0, -3.0, -3.0, 0.0], [0.0, -1.0, 3.0, 0.0], [2.0, -3.0, -1.0, -2.0]]]]> : tensor<2x2x3x4xf32>
  %b10 = arith.constant dense<[[-2.0, 0.0, -3.0, -1.0], [1.0, 2.0, 0.0, 1.0]]> : tensor<2x4xf32>
  %r10 = train.matmul %a10, %b10 {transpose_rhs} : tensor<2x2x3x4xf32>, tensor<2x4xf32> -> tensor<2x2x3x2xf32>
  // CHECK: Unranked Memref {{.*}} sizes = [2, 2, 3, 2]
  // CHECK-NEXT: {{\[\[\[\[}}12, -9],
  // CHECK-NEXT: [-6, 5],
  // CHECK-NEXT: [-9, 4]],
  // CHECK-NEXT: {{\[\[}}-7, 1],
  // CHECK-NEXT: [-3, -8],
  // CHECK-NEXT: [5, 4]]],
  // CHECK-NEXT: {{\[\[\[}}9, 3],
  // CHECK-NEXT: [-3, 3],
  // CHECK-NEXT: [-9, -1]],
  // CHECK-NEXT: {{\[\[}}11, -7],
  // CHECK-NEXT: [-9, -2],
  // CHECK-NEXT: [1, -6]]]]
  %pu10 = tensor.cast %r10 : tensor<2x2x3x2xf32> to tensor<*xf32>
  call @printMemrefF32(%pu10) : (tensor<*xf32>) -> ()

  // shared weight, transpose_lhs (generic)
  %a11 = arith.constant dense<[[[-1.0, 3.0, -2.0], [2.0, -3.0, 1.0], [-2.0, -1.0, -1.0], [2.0, 2.0, -2.0]], [[0.0, -3.0, 3.0], [3.0, -1.0, 0.0], [0.0, 2.0, -3.0], [0.0, 2.0, 1.0]]]> : tensor<2x4x3xf32>
  %b11 = arith.constant dense<[[0.0, -3.0], [3.0, -2.0], [-1.0, 1.0], [0.0, 0.0]]> : tensor<4x2xf32>
  %r11 = train.matmul %a11, %b11 {transpose_lhs} : tensor<2x4x3xf32>, tensor<4x2xf32> -> tensor<2x3x2xf32>
  // CHECK: Unranked Memref {{.*}} sizes = [2, 3, 2]
  // CHECK-NEXT: {{\[\[\[}}8, -3],
  // CHECK-NEXT: [-8, -4],
  // CHECK-NEXT: [4, 3]],
  // CHECK-NEXT: {{\[\[}}9, -6],
  // CHECK-NEXT: [-5, 13],
  // CHECK-NEXT: [3, -12]]]
  %pu11 = tensor.cast %r11 : tensor<2x3x2xf32> to tensor<*xf32>
  call @printMemrefF32(%pu11) : (tensor<*xf32>) -> ()

  // shared weight, both transposed (generic)
  %a12 = arith.constant dense<[[[1.0, -2.0, -3.0], [3.0, 2.0, -2.0], [1.0, 0.0, 2.0], [-2.0, 1.0, 2.0]], [[3.0, -2.0, 0.0], [-3.0, -3.0, -3.0], [0.0, -2.0, 2.0], [-2.0, 1.0, 0.0]]]> : tensor<2x4x3xf32>
  %b12 = arith.constant dense<[[-1.0, 0.0, 3.0, 3.0], [-2.0, 3.0, -2.0, 2.0]]> : tensor<2x4xf32>
  %r12 = train.matmul %a12, %b12 {transpose_lhs, transpose_rhs} : tensor<2x4x3xf32>, tensor<2x4xf32> -> tensor<2x3x2xf32>
  // CHECK: Unranked Memref {{.*}} sizes = [2, 3, 2]
  // CHECK-NEXT: {{\[\[\[}}-4, 1],
  // CHECK-NEXT: [5, 12],
  // CHECK-NEXT: [15, 0]],
  // CHECK-NEXT: {{\[\[}}-9, -19],
  // CHECK-NEXT: [-1, 1],
  // CHECK-NEXT: [6, -13]]]
  %pu12 = tensor.cast %r12 : tensor<2x3x2xf32> to tensor<*xf32>
  call @printMemrefF32(%pu12) : (tensor<*xf32>) -> ()

  // bf16 operands accumulate into an f32 result
  %a13 = arith.constant dense<[[256.0, 1.0, 0.5], [0.5, -3.0, 2.0]]> : tensor<2x3xbf16>
  %b13 = arith.constant dense<[[1.0, 1.0, 1.0], [1.25, 0.75, -1.5]]> : tensor<2x3xbf16>
  %r13 = train.matmul %a13, %b13 {transpose_rhs} : tensor<2x3xbf16>, tensor<2x3xbf16> -> tensor<2x2xf32>
  // CHECK: Unranked Memref {{.*}} sizes = [2, 2]
  // CHECK-NEXT: {{\[\[}}257.5, 320],
  // CHECK-NEXT: [-0.5, -4.625]]
  %pu13 = tensor.cast %r13 : tensor<2x2xf32> to tensor<*xf32>
  call @printMemrefF32(%pu13) : (tensor<*xf32>) -> ()

  // f32 operands accumulate into an f64 result
  %a14 = arith.constant dense<[[0.1, 0.2], [0.3, -0.7]]> : tensor<2x2xf32>
  %b14 = arith.constant dense<[[1.1, -2.3], [0.01, 4.0]]> : tensor<2x2xf32>
  %r14 = train.matmul %a14, %b14 : tensor<2x2xf32>, tensor<2x2xf32> -> tensor<2x2xf64>
  // CHECK: Unranked Memref {{.*}} sizes = [2, 2]
  // CHECK-NEXT: {{\[\[}}0.112, 0.57],
  // CHECK-NEXT: [0.323, -3.49]]
  %pu14 = tensor.cast %r14 : tensor<2x2xf64> to tensor<*xf64>
  call @printMemrefF64(%pu14) : (tensor<*xf64>) -> ()
  return
}
