// RUN: mem-opt --mlir-print-debuginfo=false %s -split-input-file --memopt-shard-to-nccl --canonicalize | FileCheck %s

// Arguments of the runtime's collectives (lib/Runtime/CUDA/CudaCollectives.cpp):
// the group, the send and receive buffers (unranked memrefs: the element type
// is in the function's name), the element count (all_reduce: of either
// buffer; all_gather: of the send; reduce_scatter: of the receive) and the
// reduction (0 sum, 1 product, 2 max, 3 min, 4 average).
// memopt_nccl_group takes the grid's shape (four extents, 0 past its rank)
// and the collective's grid axes (four, -1 past their number).

// An all-reduce over both axes of a 2x4 grid, listed [1, 0]: the group is
// the whole grid, ordered by axis 1 then axis 0. The grid has no users left
// and is erased.
// CHECK-NOT: shard.grid
// CHECK-LABEL: func.func @all_reduce
// CHECK-SAME: (%[[A:.*]]: tensor<4x8xf32>)
// CHECK-DAG: %[[C2:.*]] = arith.constant 2 : i64
// CHECK-DAG: %[[C4:.*]] = arith.constant 4 : i64
// CHECK-DAG: %[[C0:.*]] = arith.constant 0 : i64
// CHECK-DAG: %[[C1:.*]] = arith.constant 1 : i64
// CHECK-DAG: %[[CM1:.*]] = arith.constant -1 : i64
// CHECK-DAG: %[[C32:.*]] = arith.constant 32 : i64
// CHECK-DAG: %[[SUM:.*]] = arith.constant 0 : i32
// CHECK: %[[G:.*]] = call @memopt_nccl_group(%[[C2]], %[[C4]], %[[C0]], %[[C0]], %[[C1]], %[[C0]], %[[CM1]], %[[CM1]])
// CHECK: %[[IN:.*]] = bufferization.to_buffer %[[A]] read_only : tensor<4x8xf32> to memref<4x8xf32>
// CHECK: %[[OUT:.*]] = memref.alloc() {alignment = 64 : i64} : memref<4x8xf32>
// CHECK: %[[INU:.*]] = memref.cast %[[IN]] : memref<4x8xf32> to memref<*xf32>
// CHECK: %[[OUTU:.*]] = memref.cast %[[OUT]] : memref<4x8xf32> to memref<*xf32>
// CHECK: call @memopt_nccl_all_reduce_f32(%[[G]], %[[INU]], %[[OUTU]], %[[C32]], %[[SUM]]) : (i64, memref<*xf32>, memref<*xf32>, i64, i32) -> ()
// CHECK: %[[R:.*]] = bufferization.to_tensor %[[OUT]] restrict writable : memref<4x8xf32> to tensor<4x8xf32>
// CHECK: return %[[R]]
// CHECK-DAG: func.func private @memopt_nccl_group(i64, i64, i64, i64, i64, i64, i64, i64) -> i64
// CHECK-DAG: func.func private @memopt_nccl_all_reduce_f32(i64, memref<*xf32>, memref<*xf32>, i64, i32)
shard.grid @grid(shape = 2x4)
func.func @all_reduce(%a: tensor<4x8xf32>) -> tensor<4x8xf32> {
  %0 = shard.all_reduce %a on @grid grid_axes = [1, 0] : tensor<4x8xf32> -> tensor<4x8xf32>
  return %0 : tensor<4x8xf32>
}

// -----

// A bf16 input reduced (max) in f32, as the op's result type says: the
// input is extended first.
// CHECK-LABEL: func.func @all_reduce_convert
// CHECK: %[[EXT:.*]] = linalg.generic
// CHECK: arith.extf %{{.*}} : bf16 to f32
// CHECK: bufferization.to_buffer %[[EXT]] read_only : tensor<16xf32> to memref<16xf32>
// CHECK: call @memopt_nccl_all_reduce_f32(%{{.*}}, %{{.*}}, %{{.*}}, %c16_i64, %c2_i32)
shard.grid @grid(shape = 8)
func.func @all_reduce_convert(%a: tensor<16xbf16>) -> tensor<16xf32> {
  %0 = shard.all_reduce %a on @grid grid_axes = [0] reduction = max : tensor<16xbf16> -> tensor<16xf32>
  return %0 : tensor<16xf32>
}

// -----

// All-gather along axis 0: NCCL's concatenation is the result, reshaped.
// Group of 4 (axis 1 of a 2x4 grid); 6 elements sent.
// CHECK-LABEL: func.func @all_gather_axis0
// CHECK: %[[G:.*]] = call @memopt_nccl_group(%c2_i64, %c4_i64, %c0_i64, %c0_i64, %c1_i64, %c-1_i64, %c-1_i64, %c-1_i64)
// CHECK: %[[OUT:.*]] = memref.alloc() {alignment = 64 : i64} : memref<4x2x3xbf16>
// CHECK: call @memopt_nccl_all_gather_bf16(%[[G]], %{{.*}}, %{{.*}}, %c6_i64) : (i64, memref<*xbf16>, memref<*xbf16>, i64) -> ()
// CHECK: %[[T:.*]] = bufferization.to_tensor %[[OUT]]
// CHECK-NOT: linalg.transpose
// CHECK: tensor.collapse_shape %[[T]] {{\[}}[0, 1], [2]] : tensor<4x2x3xbf16> into tensor<8x3xbf16>
shard.grid @grid(shape = 2x4)
func.func @all_gather_axis0(%a: tensor<2x3xbf16>) -> tensor<8x3xbf16> {
  %0 = shard.all_gather %a on @grid grid_axes = [1] gather_axis = 0 : tensor<2x3xbf16> -> tensor<8x3xbf16>
  return %0 : tensor<8x3xbf16>
}

// -----

// All-gather along axis 1: the gathered [4, 2, 3] is transposed to
// [2, 4, 3] (the group dimension next to axis 1), then merged to [2, 12].
// CHECK-LABEL: func.func @all_gather_axis1
// CHECK: call @memopt_nccl_all_gather_i32(%{{.*}}, %{{.*}}, %{{.*}}, %c6_i64)
// CHECK: %[[T:.*]] = bufferization.to_tensor %{{.*}} restrict writable : memref<4x2x3xi32> to tensor<4x2x3xi32>
// CHECK: %[[P:.*]] = linalg.transpose ins(%[[T]] : tensor<4x2x3xi32>) outs(%{{.*}} : tensor<2x4x3xi32>) permutation = [1, 0, 2]
// CHECK: tensor.collapse_shape %[[P]] {{\[}}[0], [1, 2]] : tensor<2x4x3xi32> into tensor<2x12xi32>
shard.grid @grid(shape = 4)
func.func @all_gather_axis1(%a: tensor<2x3xi32>) -> tensor<2x12xi32> {
  %0 = shard.all_gather %a on @grid grid_axes = [0] gather_axis = 1 : tensor<2x3xi32> -> tensor<2x12xi32>
  return %0 : tensor<2x12xi32>
}

// -----

// Reduce-scatter along axis 0: the input's rows are already NCCL's chunks.
// CHECK-LABEL: func.func @reduce_scatter_axis0
// CHECK-SAME: (%[[A:.*]]: tensor<8x6xf64>)
// CHECK: %[[IN:.*]] = bufferization.to_buffer %[[A]] read_only : tensor<8x6xf64> to memref<8x6xf64>
// CHECK: %[[OUT:.*]] = memref.alloc() {alignment = 64 : i64} : memref<4x6xf64>
// CHECK: call @memopt_nccl_reduce_scatter_f64(%{{.*}}, %{{.*}}, %{{.*}}, %c24_i64, %c0_i32) : (i64, memref<*xf64>, memref<*xf64>, i64, i32) -> ()
shard.grid @grid(shape = 2x4)
func.func @reduce_scatter_axis0(%a: tensor<8x6xf64>) -> tensor<4x6xf64> {
  %0 = shard.reduce_scatter %a on @grid grid_axes = [0] scatter_axis = 0 : tensor<8x6xf64> -> tensor<4x6xf64>
  return %0 : tensor<4x6xf64>
}

// -----

// Reduce-scatter along axis 1 over a group of 2: axis 1 (6) splits into
// [2, 3] and the 2 moves outermost, so chunk k is columns 3k..3k+2.
// CHECK-LABEL: func.func @reduce_scatter_axis1
// CHECK-SAME: (%[[A:.*]]: tensor<8x6xf16>)
// CHECK: %[[E:.*]] = tensor.expand_shape %[[A]] {{\[}}[0], [1, 2]] output_shape [8, 2, 3] : tensor<8x6xf16> into tensor<8x2x3xf16>
// CHECK: %[[P:.*]] = linalg.transpose ins(%[[E]] : tensor<8x2x3xf16>) outs(%{{.*}} : tensor<2x8x3xf16>) permutation = [1, 0, 2]
// CHECK: bufferization.to_buffer %[[P]] read_only : tensor<2x8x3xf16> to memref<2x8x3xf16>
// CHECK: call @memopt_nccl_reduce_scatter_f16(%{{.*}}, %{{.*}}, %{{.*}}, %c24_i64, %c3_i32)
shard.grid @grid(shape = 2x4)
func.func @reduce_scatter_axis1(%a: tensor<8x6xf16>) -> tensor<8x3xf16> {
  %0 = shard.reduce_scatter %a on @grid grid_axes = [0] reduction = min scatter_axis = 1 : tensor<8x6xf16> -> tensor<8x3xf16>
  return %0 : tensor<8x3xf16>
}

// -----

// The process indices: the runtime's rank, delinearized by the grid.
// CHECK-LABEL: func.func @indices
// CHECK: %[[R:.*]] = call @memopt_nccl_rank() : () -> i64
// CHECK: %[[I:.*]] = arith.index_cast %[[R]] : i64 to index
// CHECK: %[[M:.*]]:3 = affine.delinearize_index %{{.*}} into (2, 3, 4)
// CHECK: return %[[I]], %[[M]]#2, %[[M]]#0
shard.grid @grid(shape = 2x3x4)
func.func @indices() -> (index, index, index) {
  %0 = shard.process_linear_index on @grid : index
  %1:2 = shard.process_multi_index on @grid axes = [2, 0] : index, index
  return %0, %1#0, %1#1 : index, index, index
}

// -----

// A pipeline exchange (train.p2p) in stage 1 of 2 on a 2x2 grid whose axis 0
// holds the stages: the peer, stage 0, is 2 ranks away (rank delta -2). Each
// message is posted with its rank delta, tag, buffer and element count,
// then one wait ends the exchange (the runtime issues the messages there,
// by tag, as one NCCL group), and each sent buffer's use ends after it.
// CHECK-LABEL: func.func @exchange
// CHECK-SAME: (%[[A:.*]]: tensor<2x3xf32>)
// CHECK-NOT: train.pipeline
// CHECK-DAG: %[[C4:.*]] = arith.constant 4 : i64
// CHECK-DAG: %[[C2:.*]] = arith.constant 2 : i64
// CHECK-DAG: %[[C6:.*]] = arith.constant 6 : i64
// CHECK-DAG: %[[C1:.*]] = arith.constant 1 : i64
// CHECK-DAG: %[[CM2:.*]] = arith.constant -2 : i64
// CHECK: %[[IN:.*]] = bufferization.to_buffer %[[A]] read_only
// CHECK: %[[INU:.*]] = memref.cast %[[IN]] : memref<2x3xf32> to memref<*xf32>
// CHECK: call @memopt_nccl_p2p_send_f32(%[[CM2]], %[[C1]], %[[INU]], %[[C6]])
// CHECK: %[[OUT:.*]] = memref.alloc() {{.*}} : memref<4xbf16>
// CHECK: %[[OUTU:.*]] = memref.cast %[[OUT]] : memref<4xbf16> to memref<*xbf16>
// CHECK: call @memopt_nccl_p2p_recv_bf16(%[[CM2]], %[[C2]], %[[OUTU]], %[[C4]])
// CHECK: %[[R:.*]] = bufferization.to_tensor %[[OUT]] restrict writable
// CHECK: call @memopt_nccl_p2p_wait() : () -> ()
// CHECK: %[[SENT:.*]] = memref.cast %[[IN]] : memref<2x3xf32> to memref<*xf32>
// CHECK: call @memopt_nccl_p2p_sent_f32(%[[SENT]])
// CHECK: return %[[R]]
shard.grid @grid(shape = 2x2)
func.func @exchange(%a: tensor<2x3xf32>) -> tensor<4xbf16> attributes {train.pipeline = {axis = 0 : i64, grid = @grid, layers = ["l1"], microbatches = 1 : i64, schedule = "1f1b", stage = 1 : i64, stages = 2 : i64, step = "s"}} {
  %r = train.p2p send %a to [0] tags [1] : tensor<2x3xf32> recv from [0] tags [2] : tensor<4xbf16>
  return %r : tensor<4xbf16>
}

// -----

// A module without shard ops is left alone.
// CHECK-LABEL: func.func @no_shard
// CHECK-NEXT: return
func.func @no_shard(%a: tensor<4xf32>) -> tensor<4xf32> {
  return %a : tensor<4xf32>
}
