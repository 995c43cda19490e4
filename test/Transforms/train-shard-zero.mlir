// RUN: mem-opt --mlir-print-debuginfo=false %s --train-autodiff=optimizer=sgd --train-shard='dp=2 zero=1' | FileCheck %s --check-prefixes=COMMON,ONE
// RUN: mem-opt --mlir-print-debuginfo=false %s --train-autodiff=optimizer=sgd --train-shard='dp=2 zero=2' | FileCheck %s --check-prefixes=COMMON,TWO
// RUN: mem-opt --mlir-print-debuginfo=false %s --train-autodiff=optimizer=sgd --train-shard='dp=2 zero=3' | FileCheck %s --check-prefixes=COMMON,THREE
// RUN: mem-opt --mlir-print-debuginfo=false %s --train-precision=mode=bf16-mixed --train-autodiff=optimizer=adam --train-shard='dp=2 zero=3' | FileCheck %s --check-prefix=MIXED
// RUN: mem-opt --mlir-print-debuginfo=false %s --train-precision='mode=bf16-mixed grads=bf16' --train-autodiff=optimizer=adam --train-shard='dp=2 zero=3' | FileCheck %s --check-prefix=BF16GRADS

// Sharding the forward pass and then deriving the step gives the program
// train-shard derives from the whole step, for every stage.
// RUN: mem-opt %s --train-shard='dp=2 zero=3' --train-autodiff=optimizer=sgd --mlir-print-debuginfo=false -o %t.a
// RUN: mem-opt %s --train-autodiff=optimizer=sgd --train-shard='dp=2 zero=3' --mlir-print-debuginfo=false -o %t.b
// RUN: diff %t.a %t.b
// RUN: mem-opt %s --train-shard='dp=2 zero=1' --train-autodiff=optimizer=sgd --mlir-print-debuginfo=false -o %t.c
// RUN: mem-opt %s --train-autodiff=optimizer=sgd --train-shard='dp=2 zero=1' --mlir-print-debuginfo=false -o %t.d
// RUN: diff %t.c %t.d

// ZeRO over dp=2. The weights' first dimensions (8 and 16) divide by 2:
// each process stores half of each (train.split (0, 1, 0): dimension 0 over
// grid axis 0) and updates that half, with a gradient of the same shape.
// Each half is gathered (shard.all_gather) just before its first use. The
// bias (5) does not divide: each process stores 3 elements, the second
// process's last one padding (train.split_extent = 5, as DeepSpeed pads its
// partitions), and a slice (a view) drops the padding after the gather.
// COMMON:       shard.grid @grid(shape = 2x1)
// COMMON-LABEL: func.func @mlp(
// COMMON-SAME:      zero = [[STAGE:[123]]] : i64
// COMMON:         %[[W1:.+]] = train.param "fc1.weight" {train.split = array<i64: 0, 1, 0>} : tensor<4x16xf32>
// COMMON-NEXT:    %[[G1:.+]] = shard.all_gather %[[W1]] on @grid grid_axes = [0] gather_axis = 0 : tensor<4x16xf32> -> tensor<8x16xf32>
// COMMON-NEXT:    train.matmul %{{.+}}, %[[G1]]
// COMMON:         %[[W2:.+]] = train.param "fc2.weight" {train.split = array<i64: 0, 1, 0>} : tensor<8x5xf32>
// COMMON-NEXT:    %[[G2:.+]] = shard.all_gather %[[W2]] on @grid grid_axes = [0] gather_axis = 0 : tensor<8x5xf32> -> tensor<16x5xf32>
// COMMON-NEXT:    train.matmul %{{.+}}, %[[G2]]
// COMMON:         %[[B2:.+]] = train.param "fc2.bias" {train.split = array<i64: 0, 1, 0>, train.split_extent = 5 : i64} : tensor<3xf32>
// COMMON-NEXT:    %[[GB:.+]] = shard.all_gather %[[B2]] on @grid grid_axes = [0] gather_axis = 0 : tensor<3xf32> -> tensor<6xf32>
// COMMON-NEXT:    %[[SB:.+]] = train.slice %[[GB]] {offsets = array<i64: 0>} : tensor<6xf32> -> tensor<5xf32>
// COMMON-NEXT:    train.bias_add %{{.+}}, %[[SB]]
// COMMON:         train.cross_entropy_grad
// COMMON:         %[[DB:.+]] = train.slice_grad %{{.+}} {offsets = array<i64: 0>} : tensor<5xf32> -> tensor<6xf32>
// TWO-NEXT:       %[[RB:.+]] = shard.reduce_scatter %[[DB]] on @grid grid_axes = [0] reduction = average scatter_axis = 0 : tensor<6xf32> -> tensor<3xf32>
// THREE-NEXT:     %[[RB:.+]] = shard.reduce_scatter %[[DB]] on @grid grid_axes = [0] reduction = average scatter_axis = 0 : tensor<6xf32> -> tensor<3xf32>

// Stages 1 and 2 read the forward's gathered fc2 weight in the backward
// pass; stage 3 gathers it again there, so the forward's copy dies with
// its forward use.
// ONE:            train.matmul %{{.+}}, %[[G2]] {transpose_rhs}
// TWO:            train.matmul %{{.+}}, %[[G2]] {transpose_rhs}
// THREE:          %[[AGAIN:.+]] = shard.all_gather %[[W2]] on @grid grid_axes = [0] gather_axis = 0 : tensor<8x5xf32> -> tensor<16x5xf32>
// THREE-NEXT:     train.matmul %{{.+}}, %[[AGAIN]] {transpose_rhs}

// The gradient of the gather is a reduce-scatter, averaged over dp. Stage 1
// reduces every gradient after the whole backward pass; stages 2 and 3 as
// soon as the gradient is complete (fc2's before fc1's gradient is
// computed). The bias's gradient (padded back by slice_grad, so the
// padding's gradient is zero) is the first to be complete.
// COMMON:         %[[D2:.+]] = train.matmul %{{.+}}, %{{.+}} {transpose_lhs} : tensor<2x16xf32>, tensor<2x5xf32> -> tensor<16x5xf32>
// TWO-NEXT:       %[[R2:.+]] = shard.reduce_scatter %[[D2]] on @grid grid_axes = [0] reduction = average scatter_axis = 0 : tensor<16x5xf32> -> tensor<8x5xf32>
// THREE-NEXT:     %[[R2:.+]] = shard.reduce_scatter %[[D2]] on @grid grid_axes = [0] reduction = average scatter_axis = 0 : tensor<16x5xf32> -> tensor<8x5xf32>
// COMMON:         %[[D1:.+]] = train.matmul %{{.+}}, %{{.+}} {transpose_lhs} : tensor<2x8xf32>, tensor<2x16xf32> -> tensor<8x16xf32>
// COMMON-NEXT:    %[[R1:.+]] = shard.reduce_scatter %[[D1]] on @grid grid_axes = [0] reduction = average scatter_axis = 0 : tensor<8x16xf32> -> tensor<4x16xf32>
// ONE-NEXT:       %[[R2:.+]] = shard.reduce_scatter %[[D2]] on @grid grid_axes = [0] reduction = average scatter_axis = 0 : tensor<16x5xf32> -> tensor<8x5xf32>
// ONE-NEXT:       %[[RB:.+]] = shard.reduce_scatter %[[DB]] on @grid grid_axes = [0] reduction = average scatter_axis = 0 : tensor<6xf32> -> tensor<3xf32>
// COMMON-NEXT:    train.sgd %[[W1]], %[[R1]] {{.*}} : tensor<4x16xf32>, tensor<4x16xf32>
// COMMON-NEXT:    train.sgd %[[W2]], %[[R2]] {{.*}} : tensor<8x5xf32>, tensor<8x5xf32>
// COMMON-NEXT:    train.sgd %[[B2]], %[[RB]] {{.*}} : tensor<3xf32>, tensor<3xf32>

// Mixed precision: the fp32 master part is the parameter; its bf16 copy is
// what is gathered (half the bytes). With fp32 gradients (bf16-mixed's
// default) the bf16 gradient is widened before the reduce-scatter, so the
// average is taken in fp32 (as Megatron-LM reduces its fp32 gradient
// buffer); with bf16 gradients the reduce-scatter carries bf16. Adam's
// moments take the part's shape.
// MIXED-LABEL: func.func @mlp(
// MIXED:         %[[W1:.+]] = train.param "fc1.weight" {train.split = array<i64: 0, 1, 0>} : tensor<4x16xf32>
// MIXED:         %[[L1:.+]] = train.cast %[[W1]] : tensor<4x16xf32> -> tensor<4x16xbf16>
// MIXED-NEXT:    shard.all_gather %[[L1]] on @grid grid_axes = [0] gather_axis = 0 : tensor<4x16xbf16> -> tensor<8x16xbf16>
// MIXED:         %[[D1:.+]] = train.matmul %{{.+}}, %{{.+}} {transpose_lhs} : tensor<2x8xbf16>, tensor<2x16xbf16> -> tensor<8x16xbf16>
// MIXED-NEXT:    %[[W:.+]] = train.cast %[[D1]] : tensor<8x16xbf16> -> tensor<8x16xf32>
// MIXED-NEXT:    %[[R1:.+]] = shard.reduce_scatter %[[W]] on @grid grid_axes = [0] reduction = average scatter_axis = 0 : tensor<8x16xf32> -> tensor<4x16xf32>
// MIXED:         train.opt_state "fc1.weight.exp_avg" : tensor<4x16xf32>
// MIXED:         train.adam %[[W1]], %[[R1]]
// BF16GRADS:     shard.reduce_scatter %{{.+}} on @grid grid_axes = [0] reduction = average scatter_axis = 0 : tensor<8x16xbf16> -> tensor<4x16xbf16>
func.func @mlp(%x: tensor<4x8xf32>, %labels: tensor<4xi64>) -> tensor<f32> {
  %w1 = train.param "fc1.weight" : tensor<8x16xf32>
  %h = train.matmul %x, %w1 : tensor<4x8xf32>, tensor<8x16xf32> -> tensor<4x16xf32>
  %a = train.relu %h : tensor<4x16xf32>
  %w2 = train.param "fc2.weight" : tensor<16x5xf32>
  %y = train.matmul %a, %w2 : tensor<4x16xf32>, tensor<16x5xf32> -> tensor<4x5xf32>
  %b2 = train.param "fc2.bias" : tensor<5xf32>
  %yb = train.bias_add %y, %b2 : tensor<4x5xf32>, tensor<5xf32> -> tensor<4x5xf32>
  %loss = train.cross_entropy %yb, %labels : tensor<4x5xf32>, tensor<4xi64> -> tensor<f32>
  return %loss : tensor<f32>
}
