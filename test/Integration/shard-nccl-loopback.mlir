// Executes code lowered by memopt-shard-to-nccl on the CPU, with the NCCL
// entry points simulated by test/lib/Runtime/NcclLoopback.cpp: the process
// is rank 6 of a 2x4 grid (row 1, column 2), and the peer at place j of its
// group sent `send + (j - k)`, k being the process's own place (its column
// for axis 1, its row for axis 0, column * 2 + row for axes [1, 0]). The
// expected values follow the shard dialect's definitions; they check the
// group's order and the gather and scatter layouts (the transposes), which
// the runtime on a GPU only forwards to NCCL.
// RUN: mem-opt %s --memopt-shard-to-nccl --memopt-lower-to-cpu \
// RUN:   | env MEMOPT_LOOPBACK_RANK=6 %mlir_runner -e main -entry-point-result=void %runner_libs,%nccl_loopback \
// RUN:   | FileCheck %s

shard.grid @grid(shape = 2x4)
func.func private @printMemrefF32(tensor<*xf32>)
func.func private @printMemrefI32(tensor<*xi32>)

func.func @main() {
  %x = arith.constant dense<[[1.0, 2.0], [3.0, 4.0]]> : tensor<2x2xf32>

  // Sum over a row's 4 processes (k = 2): 4x + (0 + 1 + 2 + 3) - 4 * 2.
  // CHECK: sizes = [2, 2]
  // CHECK-NEXT: {{\[\[}}2, 6],
  // CHECK-NEXT: [10, 14]]
  %0 = shard.all_reduce %x on @grid grid_axes = [1] : tensor<2x2xf32> -> tensor<2x2xf32>
  %p0 = tensor.cast %0 : tensor<2x2xf32> to tensor<*xf32>
  call @printMemrefF32(%p0) : (tensor<*xf32>) -> ()

  // Gather along axis 1 over the row: chunk j (columns 2j, 2j+1) = x + j - 2.
  // CHECK: sizes = [2, 8]
  // CHECK-NEXT: {{\[\[}}-1, 0, 0, 1, 1, 2, 2, 3],
  // CHECK-NEXT: [1, 2, 2, 3, 3, 4, 4, 5]]
  %1 = shard.all_gather %x on @grid grid_axes = [1] gather_axis = 1 : tensor<2x2xf32> -> tensor<2x8xf32>
  %p1 = tensor.cast %1 : tensor<2x8xf32> to tensor<*xf32>
  call @printMemrefF32(%p1) : (tensor<*xf32>) -> ()

  // Gather along axis 0 over the column's 2 processes (k = 1): rows x - 1, x.
  // CHECK: sizes = [4, 2]
  // CHECK-NEXT: {{\[\[}}0, 1],
  // CHECK-NEXT: [2, 3],
  // CHECK-NEXT: [1, 2],
  // CHECK-NEXT: [3, 4]]
  %2 = shard.all_gather %x on @grid grid_axes = [0] gather_axis = 0 : tensor<2x2xf32> -> tensor<4x2xf32>
  %p2 = tensor.cast %2 : tensor<4x2xf32> to tensor<*xf32>
  call @printMemrefF32(%p2) : (tensor<*xf32>) -> ()

  // Gather over both axes listed [1, 0]: 8 processes ordered by column,
  // then row; this one is 2 * 2 + 1 = 5th, so chunk j = 10 + j - 5.
  // CHECK: sizes = [8, 1]
  // CHECK-NEXT: {{\[\[}}5],
  // CHECK-NEXT: [6],
  // CHECK-NEXT: [7],
  // CHECK-NEXT: [8],
  // CHECK-NEXT: [9],
  // CHECK-NEXT: [10],
  // CHECK-NEXT: [11],
  // CHECK-NEXT: [12]]
  %ten = arith.constant dense<[[10]]> : tensor<1x1xi32>
  %3 = shard.all_gather %ten on @grid grid_axes = [1, 0] gather_axis = 0 : tensor<1x1xi32> -> tensor<8x1xi32>
  %p3 = tensor.cast %3 : tensor<8x1xi32> to tensor<*xi32>
  call @printMemrefI32(%p3) : (tensor<*xi32>) -> ()

  // Reduce-scatter along axis 1 over the row (k = 2): chunk 2 is columns
  // 4 and 5, [[4, 5], [12, 13]]; the sum is 4 * chunk - 2.
  %y = arith.constant dense<[[0.0, 1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0], [8.0, 9.0, 10.0, 11.0, 12.0, 13.0, 14.0, 15.0]]> : tensor<2x8xf32>
  // CHECK: sizes = [2, 2]
  // CHECK-NEXT: {{\[\[}}14, 18],
  // CHECK-NEXT: [46, 50]]
  %4 = shard.reduce_scatter %y on @grid grid_axes = [1] scatter_axis = 1 : tensor<2x8xf32> -> tensor<2x2xf32>
  %p4 = tensor.cast %4 : tensor<2x2xf32> to tensor<*xf32>
  call @printMemrefF32(%p4) : (tensor<*xf32>) -> ()

  // Reduce-scatter along axis 0 over the column (k = 1): chunk 1 is rows 2
  // and 3 of z, [[4, 5], [6, 7]]; the sum is 2 * chunk - 1.
  %z = arith.constant dense<[[0.0, 1.0], [2.0, 3.0], [4.0, 5.0], [6.0, 7.0]]> : tensor<4x2xf32>
  // CHECK: sizes = [2, 2]
  // CHECK-NEXT: {{\[\[}}7, 9],
  // CHECK-NEXT: [11, 13]]
  %5 = shard.reduce_scatter %z on @grid grid_axes = [0] scatter_axis = 0 : tensor<4x2xf32> -> tensor<2x2xf32>
  %p5 = tensor.cast %5 : tensor<2x2xf32> to tensor<*xf32>
  call @printMemrefF32(%p5) : (tensor<*xf32>) -> ()

  // The process indices: linear 6, multi (1, 2).
  // CHECK: sizes = [3]
  // CHECK-NEXT: [6, 1, 2]
  %l = shard.process_linear_index on @grid : index
  %m:2 = shard.process_multi_index on @grid : index, index
  %l32 = arith.index_cast %l : index to i32
  %m0 = arith.index_cast %m#0 : index to i32
  %m1 = arith.index_cast %m#1 : index to i32
  %i32 = tensor.from_elements %l32, %m0, %m1 : tensor<3xi32>
  %p6 = tensor.cast %i32 : tensor<3xi32> to tensor<*xi32>
  call @printMemrefI32(%p6) : (tensor<*xi32>) -> ()
  return
}
