// RUN: mem-opt --mlir-print-debuginfo=false %s -split-input-file --train-shard=tp=4 | FileCheck %s
// RUN: mem-opt --mlir-print-debuginfo=false %s -split-input-file --train-autodiff --train-shard='tp=4 dp=2' | FileCheck %s --check-prefix=STEP
// RUN: mem-opt --mlir-print-debuginfo=false %s -split-input-file --train-shard='tp=4 sequence-parallel=true' | FileCheck %s --check-prefix=SP
// RUN: mem-opt --mlir-print-debuginfo=false %s -split-input-file --train-shard=tp=2 | FileCheck %s --check-prefix=TP2

// Sharding the forward pass and then deriving the step gives the program
// train-shard derives from a whole step.
// RUN: mem-opt %s -split-input-file --train-shard='tp=4 dp=2' --train-autodiff --mlir-print-debuginfo=false -o %t.a
// RUN: mem-opt %s -split-input-file --train-autodiff --train-shard='tp=4 dp=2' --mlir-print-debuginfo=false -o %t.b
// RUN: diff %t.a %t.b

// Grouped-query attention with 8 query heads over 2 KV heads (head size 4)
// and tp=4: tp exceeds the KV heads, so each KV head is replicated on 2
// processes. The tensor-parallel axis becomes two grid axes,
// 1x2x2: axis 1 numbers the KV heads, axis 2 the replicas of each, and a
// process's tensor-parallel index is kv * 2 + replica.
//
// The query and output projections and the MLP split over both axes (their
// train.split has a triple per axis). The K and V projections split over
// axis 1 only, one KV head per process, and their weights enter through
// copy_to_parallel over axis 2: the processes holding the same KV head
// compute its gradient from their own query heads, and the copy's gradient
// (an all-reduce over axis 2) sums those shares. Every tensor-parallel
// collective runs over axes [1, 2].
// CHECK:       shard.grid @grid(shape = 1x2x2)
// CHECK-LABEL: func.func @gqa(
// CHECK-SAME:      train.shard = {dp = 1 : i64, grid = @grid, kv_replicas = 2 : i64, tp = 4 : i64, zero = 0 : i64}
// CHECK:         %[[XP:.+]] = train.copy_to_parallel %{{.+}} on @grid grid_axes = [1, 2] : tensor<2x4x32xf32>
// CHECK:         %[[WQ:.+]] = train.param "q.weight" {train.split = array<i64: 0, 1, 1, 0, 1, 2>} : tensor<8x32xf32>
// CHECK:         train.matmul %[[XP]], %[[WQ]] {transpose_rhs} : tensor<2x4x32xf32>, tensor<8x32xf32> -> tensor<2x4x8xf32>
// CHECK:         %[[WK:.+]] = train.param "k.weight" {train.split = array<i64: 0, 1, 1>} : tensor<4x32xf32>
// CHECK-NEXT:    %[[WKR:.+]] = train.copy_to_parallel %[[WK]] on @grid grid_axes = [2] : tensor<4x32xf32>
// CHECK-NEXT:    train.matmul %[[XP]], %[[WKR]] {transpose_rhs} : tensor<2x4x32xf32>, tensor<4x32xf32> -> tensor<2x4x4xf32>
// CHECK:         %[[WV:.+]] = train.param "v.weight" {train.split = array<i64: 0, 1, 1>} : tensor<4x32xf32>
// CHECK-NEXT:    %[[WVR:.+]] = train.copy_to_parallel %[[WV]] on @grid grid_axes = [2] : tensor<4x32xf32>
// CHECK:         train.rotary %{{.+}} : tensor<2x1x4x4xf32>
// CHECK:         train.attention %{{.+}}, %{{.+}}, %{{.+}} {causal, scale = 5.000000e-01 : f64} : tensor<2x2x4x4xf32>, tensor<2x1x4x4xf32>, tensor<2x1x4x4xf32> -> tensor<2x2x4x4xf32>, tensor<2x2x4xf32>
// CHECK:         train.param "o.weight" {train.split = array<i64: 1, 1, 1, 1, 1, 2>} : tensor<32x8xf32>
// CHECK:         shard.all_reduce %{{.+}} on @grid grid_axes = [1, 2] : tensor<2x4x32xf32>

// In the step, the K and V weights' gradients are summed over their
// replicas (axis 2) and then averaged over the data-parallel axis; the other
// weights' only over the data-parallel axis.
// STEP:       shard.grid @grid(shape = 2x2x2)
// STEP-LABEL: func.func @gqa(
// STEP-COUNT-2: shard.all_reduce %{{.+}} on @grid grid_axes = [2] : tensor<4x32xf32>
// STEP-NOT:   grid_axes = [2]
// STEP:       return

// Sequence parallelism gathers the input of the Q, K and V projections
// along the sequence over both axes, and reduce-scatters the output
// projection's partial sums.
// SP:       shard.grid @grid(shape = 1x2x2)
// SP:       train.split = array<i64: 1, 1, 1, 1, 1, 2>
// SP:       shard.all_gather %{{.+}} on @grid grid_axes = [1, 2] gather_axis = 1 : tensor<2x1x32xf32> -> tensor<2x4x32xf32>
// SP:       train.copy_to_parallel %{{.+}} on @grid grid_axes = [2] : tensor<4x32xf32>
// SP:       shard.reduce_scatter %{{.+}} on @grid grid_axes = [1, 2] scatter_axis = 1 : tensor<2x4x32xf32> -> tensor<2x1x32xf32>

// tp=2 divides the KV heads: nothing is replicated, and the grid keeps its
// two axes.
// TP2:       shard.grid @grid(shape = 1x2)
// TP2-NOT:   kv_replicas
// TP2:       train.param "k.weight" {train.split = array<i64: 0, 1, 1>} : tensor<4x32xf32>
// TP2-NEXT:  train.matmul
func.func @gqa(%x: tensor<2x4x32xf32>, %t: tensor<2x4x32xf32>) -> tensor<f32> {
  %wq = train.param "q.weight" : tensor<32x32xf32>
  %q = train.matmul %x, %wq {transpose_rhs} : tensor<2x4x32xf32>, tensor<32x32xf32> -> tensor<2x4x32xf32>
  %wk = train.param "k.weight" : tensor<8x32xf32>
  %k = train.matmul %x, %wk {transpose_rhs} : tensor<2x4x32xf32>, tensor<8x32xf32> -> tensor<2x4x8xf32>
  %wv = train.param "v.weight" : tensor<8x32xf32>
  %v = train.matmul %x, %wv {transpose_rhs} : tensor<2x4x32xf32>, tensor<8x32xf32> -> tensor<2x4x8xf32>
  %q1 = train.reshape %q : tensor<2x4x32xf32> -> tensor<2x4x8x4xf32>
  %q2 = train.transpose %q1 {permutation = array<i64: 0, 2, 1, 3>} : tensor<2x4x8x4xf32> -> tensor<2x8x4x4xf32>
  %k1 = train.reshape %k : tensor<2x4x8xf32> -> tensor<2x4x2x4xf32>
  %k2 = train.transpose %k1 {permutation = array<i64: 0, 2, 1, 3>} : tensor<2x4x2x4xf32> -> tensor<2x2x4x4xf32>
  %v1 = train.reshape %v : tensor<2x4x8xf32> -> tensor<2x4x2x4xf32>
  %v2 = train.transpose %v1 {permutation = array<i64: 0, 2, 1, 3>} : tensor<2x4x2x4xf32> -> tensor<2x2x4x4xf32>
  %qr = train.rotary %q2 : tensor<2x8x4x4xf32>
  %kr = train.rotary %k2 : tensor<2x2x4x4xf32>
  %a, %lse = train.attention %qr, %kr, %v2 {causal, scale = 0.5 : f64} : tensor<2x8x4x4xf32>, tensor<2x2x4x4xf32>, tensor<2x2x4x4xf32> -> tensor<2x8x4x4xf32>, tensor<2x8x4xf32>
  %a1 = train.transpose %a {permutation = array<i64: 0, 2, 1, 3>} : tensor<2x8x4x4xf32> -> tensor<2x4x8x4xf32>
  %a2 = train.reshape %a1 : tensor<2x4x8x4xf32> -> tensor<2x4x32xf32>
  %wo = train.param "o.weight" : tensor<32x32xf32>
  %o = train.matmul %a2, %wo {transpose_rhs} : tensor<2x4x32xf32>, tensor<32x32xf32> -> tensor<2x4x32xf32>
  %l = train.mse_loss %o, %t : tensor<2x4x32xf32>, tensor<2x4x32xf32> -> tensor<f32>
  return %l : tensor<f32>
}

// -----

// Multi-query attention (one KV head) with K and V biases: the K projection's
// output, 2x4x4, reshapes to one head, 2x4x1x4, and the split stays on that
// (unit) heads dimension. Every process holds the whole KV head: its weights
// and biases are split over axis 1, of extent 1, and summed over the 4
// replicas.
// CHECK:       shard.grid @grid(shape = 1x1x4)
// CHECK-LABEL: func.func @mqa(
// CHECK:         train.param "k.weight" {train.split = array<i64: 0, 1, 1>} : tensor<4x32xf32>
// CHECK-NEXT:    train.copy_to_parallel %{{.+}} on @grid grid_axes = [2] : tensor<4x32xf32>
// CHECK:         train.param "k.bias" {train.split = array<i64: 0, 1, 1>} : tensor<4xf32>
// CHECK-NEXT:    train.copy_to_parallel %{{.+}} on @grid grid_axes = [2] : tensor<4xf32>
// CHECK:         train.attention %{{.+}}, %{{.+}}, %{{.+}} {scale = 5.000000e-01 : f64} : tensor<2x1x4x4xf32>, tensor<2x1x4x4xf32>, tensor<2x1x4x4xf32> -> tensor<2x1x4x4xf32>, tensor<2x1x4xf32>

// STEP:       shard.grid @grid(shape = 2x1x4)
// STEP-LABEL: func.func @mqa(
// STEP-COUNT-3: shard.all_reduce %{{.+}} on @grid grid_axes = [2] : tensor<4{{.*}}xf32>
// STEP-NOT:   grid_axes = [2]
// STEP:       return

// TP2:       shard.grid @grid(shape = 1x1x2)
// TP2-LABEL: func.func @mqa(
// TP2-SAME:  kv_replicas = 2
func.func @mqa(%x: tensor<2x4x32xf32>, %t: tensor<2x4x32xf32>) -> tensor<f32> {
  %wq = train.param "q.weight" : tensor<16x32xf32>
  %q = train.matmul %x, %wq {transpose_rhs} : tensor<2x4x32xf32>, tensor<16x32xf32> -> tensor<2x4x16xf32>
  %wk = train.param "k.weight" : tensor<4x32xf32>
  %k0 = train.matmul %x, %wk {transpose_rhs} : tensor<2x4x32xf32>, tensor<4x32xf32> -> tensor<2x4x4xf32>
  %bk = train.param "k.bias" : tensor<4xf32>
  %k = train.bias_add %k0, %bk : tensor<2x4x4xf32>, tensor<4xf32> -> tensor<2x4x4xf32>
  %wv = train.param "v.weight" : tensor<4x32xf32>
  %v = train.matmul %x, %wv {transpose_rhs} : tensor<2x4x32xf32>, tensor<4x32xf32> -> tensor<2x4x4xf32>
  %q1 = train.reshape %q : tensor<2x4x16xf32> -> tensor<2x4x4x4xf32>
  %q2 = train.transpose %q1 {permutation = array<i64: 0, 2, 1, 3>} : tensor<2x4x4x4xf32> -> tensor<2x4x4x4xf32>
  %k1 = train.reshape %k : tensor<2x4x4xf32> -> tensor<2x4x1x4xf32>
  %k2 = train.transpose %k1 {permutation = array<i64: 0, 2, 1, 3>} : tensor<2x4x1x4xf32> -> tensor<2x1x4x4xf32>
  %v1 = train.reshape %v : tensor<2x4x4xf32> -> tensor<2x4x1x4xf32>
  %v2 = train.transpose %v1 {permutation = array<i64: 0, 2, 1, 3>} : tensor<2x4x1x4xf32> -> tensor<2x1x4x4xf32>
  %a, %lse = train.attention %q2, %k2, %v2 {scale = 0.5 : f64} : tensor<2x4x4x4xf32>, tensor<2x1x4x4xf32>, tensor<2x1x4x4xf32> -> tensor<2x4x4x4xf32>, tensor<2x4x4xf32>
  %a1 = train.transpose %a {permutation = array<i64: 0, 2, 1, 3>} : tensor<2x4x4x4xf32> -> tensor<2x4x4x4xf32>
  %a2 = train.reshape %a1 : tensor<2x4x4x4xf32> -> tensor<2x4x16xf32>
  %wo = train.param "o.weight" : tensor<32x16xf32>
  %o = train.matmul %a2, %wo {transpose_rhs} : tensor<2x4x16xf32>, tensor<32x16xf32> -> tensor<2x4x32xf32>
  %l = train.mse_loss %o, %t : tensor<2x4x32xf32>, tensor<2x4x32xf32> -> tensor<f32>
  return %l : tensor<f32>
}
