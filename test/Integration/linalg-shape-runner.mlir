// Executes the shape ops (reshape, transpose, slice, slice_grad, concat) and
// embedding / embedding_grad after convert-train-to-linalg. Expected values:
// numpy (float64); the gradients are the exact gradients of the forward ops
// (checked against central finite differences when the expectations were
// computed) for a random upstream gradient.
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

  // reshape: through 1-D (2x3x4 -> 4x6), collapse (-> 6x4), expand (24 -> 4x3x2), 0-d -> 1x1
  %x = arith.constant dense<[[[0.0, 1.0, 2.0, 3.0], [4.0, 5.0, 6.0, 7.0], [8.0, 9.0, 10.0, 11.0]], [[12.0, 13.0, 14.0, 15.0], [16.0, 17.0, 18.0, 19.0], [20.0, 21.0, 22.0, 23.0]]]> : tensor<2x3x4xf32>
  %r1 = train.reshape %x : tensor<2x3x4xf32> -> tensor<4x6xf32>
  // CHECK: Unranked Memref {{.*}} sizes = [4, 6]
  // CHECK-NEXT: {{\[\[}}0, 1, 2, 3, 4, 5],
  // CHECK-NEXT: [6, 7, 8, 9, 10, 11],
  // CHECK-NEXT: [12, 13, 14, 15, 16, 17],
  // CHECK-NEXT: [18, 19, 20, 21, 22, 23]]
  %pu1 = tensor.cast %r1 : tensor<4x6xf32> to tensor<*xf32>
  call @printMemrefF32(%pu1) : (tensor<*xf32>) -> ()
  %r2 = train.reshape %x : tensor<2x3x4xf32> -> tensor<6x4xf32>
  %r3 = train.reshape %r2 : tensor<6x4xf32> -> tensor<24xf32>
  %r4 = train.reshape %r3 : tensor<24xf32> -> tensor<4x3x2xf32>
  // CHECK: Unranked Memref {{.*}} sizes = [4, 3, 2]
  // CHECK-NEXT: {{\[\[\[}}0, 1],
  // CHECK-NEXT: [2, 3],
  // CHECK-NEXT: [4, 5]],
  // CHECK-NEXT: {{\[\[}}6, 7],
  // CHECK-NEXT: [8, 9],
  // CHECK-NEXT: [10, 11]],
  // CHECK-NEXT: {{\[\[}}12, 13],
  // CHECK-NEXT: [14, 15],
  // CHECK-NEXT: [16, 17]],
  // CHECK-NEXT: {{\[\[}}18, 19],
  // CHECK-NEXT: [20, 21],
  // CHECK-NEXT: [22, 23]]]
  %pu2 = tensor.cast %r4 : tensor<4x3x2xf32> to tensor<*xf32>
  call @printMemrefF32(%pu2) : (tensor<*xf32>) -> ()
  %s0 = arith.constant dense<7.5> : tensor<f32>
  %r5 = train.reshape %s0 : tensor<f32> -> tensor<1x1xf32>
  // CHECK: Unranked Memref {{.*}} sizes = [1, 1]
  // CHECK-NEXT: {{\[\[}}7.5]]
  %pu3 = tensor.cast %r5 : tensor<1x1xf32> to tensor<*xf32>
  call @printMemrefF32(%pu3) : (tensor<*xf32>) -> ()

  // transpose
  %t1 = train.transpose %x {permutation = array<i64: 2, 0, 1>} : tensor<2x3x4xf32> -> tensor<4x2x3xf32>
  // CHECK: Unranked Memref {{.*}} sizes = [4, 2, 3]
  // CHECK-NEXT: {{\[\[\[}}0, 4, 8],
  // CHECK-NEXT: [12, 16, 20]],
  // CHECK-NEXT: {{\[\[}}1, 5, 9],
  // CHECK-NEXT: [13, 17, 21]],
  // CHECK-NEXT: {{\[\[}}2, 6, 10],
  // CHECK-NEXT: [14, 18, 22]],
  // CHECK-NEXT: {{\[\[}}3, 7, 11],
  // CHECK-NEXT: [15, 19, 23]]]
  %pu4 = tensor.cast %t1 : tensor<4x2x3xf32> to tensor<*xf32>
  call @printMemrefF32(%pu4) : (tensor<*xf32>) -> ()

  // slice with strides
  %l1 = train.slice %x {offsets = array<i64: 1, 0, 1>, strides = array<i64: 1, 2, 2>} : tensor<2x3x4xf32> -> tensor<1x2x2xf32>
  // CHECK: Unranked Memref {{.*}} sizes = [1, 2, 2]
  // CHECK-NEXT: {{\[\[\[}}13, 15],
  // CHECK-NEXT: [21, 23]]]
  %pu5 = tensor.cast %l1 : tensor<1x2x2xf32> to tensor<*xf32>
  call @printMemrefF32(%pu5) : (tensor<*xf32>) -> ()
  %l2 = train.slice %x {offsets = array<i64: 0, 1, 0>} : tensor<2x3x4xf32> -> tensor<2x2x3xf32>
  // CHECK: Unranked Memref {{.*}} sizes = [2, 2, 3]
  // CHECK-NEXT: {{\[\[\[}}4, 5, 6],
  // CHECK-NEXT: [8, 9, 10]],
  // CHECK-NEXT: {{\[\[}}16, 17, 18],
  // CHECK-NEXT: [20, 21, 22]]]
  %pu6 = tensor.cast %l2 : tensor<2x2x3xf32> to tensor<*xf32>
  call @printMemrefF32(%pu6) : (tensor<*xf32>) -> ()

  // slice_grad (f64): d/dx sum(dy * slice(x))
  %dy1 = arith.constant dense<[[-0.0992, 0.5453, -0.6072], [0.1268, -0.8923, 0.8415]]> : tensor<2x3xf64>
  %sg = train.slice_grad %dy1 {offsets = array<i64: 1, 0>, strides = array<i64: 1, 2>} : tensor<2x3xf64> -> tensor<3x5xf64>
  // CHECK: Unranked Memref {{.*}} sizes = [3, 5]
  // CHECK-NEXT: {{\[\[}}0, 0, 0, 0, 0],
  // CHECK-NEXT: [-0.0992, 0, 0.5453, 0, -0.6072],
  // CHECK-NEXT: [0.1268, 0, -0.8923, 0, 0.8415]]
  %pu7 = tensor.cast %sg : tensor<3x5xf64> to tensor<*xf64>
  call @printMemrefF64(%pu7) : (tensor<*xf64>) -> ()

  // concat along a negative axis and along axis 0
  %y = arith.constant dense<[[[100.0, 101.0, 102.0, 103.0]], [[104.0, 105.0, 106.0, 107.0]]]> : tensor<2x1x4xf32>
  %z = arith.constant dense<[[[200.0, 201.0, 202.0, 203.0], [204.0, 205.0, 206.0, 207.0]], [[208.0, 209.0, 210.0, 211.0], [212.0, 213.0, 214.0, 215.0]]]> : tensor<2x2x4xf32>
  %c1 = train.concat %x, %y, %z {axis = -2 : i64} : tensor<2x3x4xf32>, tensor<2x1x4xf32>, tensor<2x2x4xf32> -> tensor<2x6x4xf32>
  // CHECK: Unranked Memref {{.*}} sizes = [2, 6, 4]
  // CHECK-NEXT: {{\[\[\[}}0, 1, 2, 3],
  // CHECK-NEXT: [4, 5, 6, 7],
  // CHECK-NEXT: [8, 9, 10, 11],
  // CHECK-NEXT: [100, 101, 102, 103],
  // CHECK-NEXT: [200, 201, 202, 203],
  // CHECK-NEXT: [204, 205, 206, 207]],
  // CHECK-NEXT: {{\[\[}}12, 13, 14, 15],
  // CHECK-NEXT: [16, 17, 18, 19],
  // CHECK-NEXT: [20, 21, 22, 23],
  // CHECK-NEXT: [104, 105, 106, 107],
  // CHECK-NEXT: [208, 209, 210, 211],
  // CHECK-NEXT: [212, 213, 214, 215]]]
  %pu8 = tensor.cast %c1 : tensor<2x6x4xf32> to tensor<*xf32>
  call @printMemrefF32(%pu8) : (tensor<*xf32>) -> ()
  %c2 = train.concat %y, %z {axis = 1 : i64} : tensor<2x1x4xf32>, tensor<2x2x4xf32> -> tensor<2x3x4xf32>
  %c3 = train.concat %c2, %x {axis = 0 : i64} : tensor<2x3x4xf32>, tensor<2x3x4xf32> -> tensor<4x3x4xf32>
  // CHECK: Unranked Memref {{.*}} sizes = [4, 3, 4]
  // CHECK-NEXT: {{\[\[\[}}100, 101, 102, 103],
  // CHECK-NEXT: [200, 201, 202, 203],
  // CHECK-NEXT: [204, 205, 206, 207]],
  // CHECK-NEXT: {{\[\[}}104, 105, 106, 107],
  // CHECK-NEXT: [208, 209, 210, 211],
  // CHECK-NEXT: [212, 213, 214, 215]],
  // CHECK-NEXT: {{\[\[}}0, 1, 2, 3],
  // CHECK-NEXT: [4, 5, 6, 7],
  // CHECK-NEXT: [8, 9, 10, 11]],
  // CHECK-NEXT: {{\[\[}}12, 13, 14, 15],
  // CHECK-NEXT: [16, 17, 18, 19],
  // CHECK-NEXT: [20, 21, 22, 23]]]
  %pu9 = tensor.cast %c3 : tensor<4x3x4xf32> to tensor<*xf32>
  call @printMemrefF32(%pu9) : (tensor<*xf32>) -> ()

  // embedding: i32 ids (with repeats), and 0-d i64 ids
  %w = arith.constant dense<[[0.188, 0.3306, 0.4105], [-1.0108, 0.7832, 2.0567], [-1.6384, -1.7294, -1.5048], [0.8415, 0.1287, 1.0783], [0.7224, 0.2106, 0.284]]> : tensor<5x3xf32>
  %ids32 = arith.constant dense<[[4, 0, 2], [2, 2, 1]]> : tensor<2x3xi32>
  %e1 = train.embedding %w, %ids32 : tensor<5x3xf32>, tensor<2x3xi32> -> tensor<2x3x3xf32>
  // CHECK: Unranked Memref {{.*}} sizes = [2, 3, 3]
  // CHECK-NEXT: {{\[\[\[}}0.7224, 0.2106, 0.284],
  // CHECK-NEXT: [0.188, 0.3306, 0.4105],
  // CHECK-NEXT: [-1.6384, -1.7294, -1.5048]],
  // CHECK-NEXT: {{\[\[}}-1.6384, -1.7294, -1.5048],
  // CHECK-NEXT: [-1.6384, -1.7294, -1.5048],
  // CHECK-NEXT: [-1.0108, 0.7832, 2.0567]]]
  %pu10 = tensor.cast %e1 : tensor<2x3x3xf32> to tensor<*xf32>
  call @printMemrefF32(%pu10) : (tensor<*xf32>) -> ()
  %id0 = arith.constant dense<3> : tensor<i64>
  %e2 = train.embedding %w, %id0 : tensor<5x3xf32>, tensor<i64> -> tensor<3xf32>
  // CHECK: Unranked Memref {{.*}} sizes = [3]
  // CHECK-NEXT: [0.8415, 0.1287, 1.0783]
  %pu11 = tensor.cast %e2 : tensor<3xf32> to tensor<*xf32>
  call @printMemrefF32(%pu11) : (tensor<*xf32>) -> ()

  // embedding_grad (f64): d/dtable sum(dy * embedding(table, ids)); rows 3 is never used
  %dy2 = arith.constant dense<[[[-0.1698, 0.8685, -1.1297], [-0.4219, 0.2429, 1.8014], [-0.7645, -1.0791, -0.5633]], [[0.9693, -0.235, 1.3243], [-1.8725, 1.1285, 1.0349], [-1.4187, 0.1536, 1.2158]]]> : tensor<2x3x3xf64>
  %ids64 = arith.constant dense<[[4, 0, 2], [2, 2, 1]]> : tensor<2x3xi64>
  %eg1 = train.embedding_grad %dy2, %ids64 : tensor<2x3x3xf64>, tensor<2x3xi64> -> tensor<5x3xf64>
  // CHECK: Unranked Memref {{.*}} sizes = [5, 3]
  // CHECK-NEXT: {{\[\[}}-0.4219, 0.2429, 1.8014],
  // CHECK-NEXT: [-1.4187, 0.1536, 1.2158],
  // CHECK-NEXT: [-1.6677, -0.1856, 1.7959],
  // CHECK-NEXT: [0, 0, 0],
  // CHECK-NEXT: [-0.1698, 0.8685, -1.1297]]
  %pu12 = tensor.cast %eg1 : tensor<5x3xf64> to tensor<*xf64>
  call @printMemrefF64(%pu12) : (tensor<*xf64>) -> ()
  %dy3 = arith.constant dense<[0.0738, 1.5101, -0.009]> : tensor<3xf64>
  %id1 = arith.constant dense<1> : tensor<i32>
  %eg2 = train.embedding_grad %dy3, %id1 : tensor<3xf64>, tensor<i32> -> tensor<4x3xf64>
  // CHECK: Unranked Memref {{.*}} sizes = [4, 3]
  // CHECK-NEXT: {{\[\[}}0, 0, 0],
  // CHECK-NEXT: [0.0738, 1.5101, -0.009],
  // CHECK-NEXT: [0, 0, 0],
  // CHECK-NEXT: [0, 0, 0]]
  %pu13 = tensor.cast %eg2 : tensor<4x3xf64> to tensor<*xf64>
  call @printMemrefF64(%pu13) : (tensor<*xf64>) -> ()
  return
}
