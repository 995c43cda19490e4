// RUN: mem-opt --mlir-print-debuginfo=false %s -split-input-file --train-shard=tp=2 2>/dev/null | FileCheck %s
// RUN: mem-opt --mlir-print-debuginfo=false %s -split-input-file --train-shard=dp=2 | FileCheck %s --check-prefix=DP
// RUN: mem-opt %s -split-input-file -verify-diagnostics --train-shard=tp=2 -o /dev/null
// RUN: mem-opt --mlir-print-debuginfo=false %s -split-input-file --train-autodiff --train-shard=tp=2 2>/dev/null | FileCheck %s --check-prefix=STEP
// RUN: mem-opt --mlir-print-debuginfo=false %s -split-input-file --train-autodiff --train-shard='tp=2 dp=2' 2>/dev/null | FileCheck %s --check-prefix=DPSTEP

// Sharding the forward pass and then deriving the step gives the program
// train-shard derives from a whole step (the step is partitioned through its
// forward pass), for every function of this file.
// RUN: mem-opt %s -split-input-file --train-shard='tp=2 dp=2' --train-autodiff --mlir-print-debuginfo=false -o %t.a 2>/dev/null
// RUN: mem-opt %s -split-input-file --train-autodiff --train-shard='tp=2 dp=2' --mlir-print-debuginfo=false -o %t.b 2>/dev/null
// RUN: diff %t.a %t.b

// A 2-layer MLP with tp=2 (Megatron): fc1 is column-parallel (its weight
// split along the output features, dim 1, to 8x8) and reads its input through
// copy_to_parallel; relu works per column; fc2 is row-parallel (its weight
// split along the input features, dim 0) and its partial sums are
// all-reduced over the tensor-parallel axis before the loss.
// CHECK:       shard.grid @grid(shape = 1x2)
// CHECK-LABEL: func.func @mlp(
// CHECK-SAME:      %[[X:[^:]+]]: tensor<4x8xf32>, %[[L:[^:]+]]: tensor<4xi64>) -> tensor<f32>
// CHECK-SAME:      attributes {train.shard = {dp = 1 : i64, grid = @grid, tp = 2 : i64, zero = 0 : i64}}
// CHECK-NEXT:    %[[XP:.+]] = train.copy_to_parallel %[[X]] on @grid grid_axes = [1] : tensor<4x8xf32>
// CHECK-NEXT:    %[[W1:.+]] = train.param "fc1.weight" {train.split = array<i64: 1, 1, 1>} : tensor<8x8xf32>
// CHECK-NEXT:    %[[H:.+]] = train.matmul %[[XP]], %[[W1]] : tensor<4x8xf32>, tensor<8x8xf32> -> tensor<4x8xf32>
// CHECK-NEXT:    %[[A:.+]] = train.relu %[[H]] : tensor<4x8xf32>
// CHECK-NEXT:    %[[W2:.+]] = train.param "fc2.weight" {train.split = array<i64: 0, 1, 1>} : tensor<8x8xf32>
// CHECK-NEXT:    %[[P:.+]] = train.matmul %[[A]], %[[W2]] : tensor<4x8xf32>, tensor<8x8xf32> -> tensor<4x8xf32>
// CHECK-NEXT:    %[[Y:.+]] = shard.all_reduce %[[P]] on @grid grid_axes = [1] : tensor<4x8xf32> -> tensor<4x8xf32>
// CHECK-NEXT:    %[[LOSS:.+]] = train.cross_entropy %[[Y]], %[[L]] : tensor<4x8xf32>, tensor<4xi64> -> tensor<f32>
// CHECK-NEXT:    return %[[LOSS]] : tensor<f32>

// dp=2: every argument is split along its batch dimension over grid axis 0
// (halved), the parameters stay whole, and the loss is averaged over the
// axis.
// DP:          shard.grid @grid(shape = 2x1)
// DP-LABEL:    func.func @mlp(
// DP-SAME:         %[[X:[^:]+]]: tensor<2x8xf32> {train.split = array<i64: 0, 1, 0>},
// DP-SAME:         %[[L:[^:]+]]: tensor<2xi64> {train.split = array<i64: 0, 1, 0>}) -> tensor<f32>
// DP-SAME:         attributes {train.shard = {dp = 2 : i64, grid = @grid, tp = 1 : i64, zero = 0 : i64}}
// DP-NOT:        train.copy_to_parallel
// DP:            train.param "fc1.weight" : tensor<8x16xf32>
// DP:            train.matmul %[[X]], %{{.+}} : tensor<2x8xf32>, tensor<8x16xf32> -> tensor<2x16xf32>
// DP:            train.param "fc2.weight" : tensor<16x8xf32>
// DP:            %[[LOSS:.+]] = train.cross_entropy %{{.+}}, %[[L]] : tensor<2x8xf32>, tensor<2xi64> -> tensor<f32>
// DP-NEXT:       %[[AVG:.+]] = shard.all_reduce %[[LOSS]] on @grid grid_axes = [0] reduction = average : tensor<f32> -> tensor<f32>
// DP-NEXT:       return %[[AVG]] : tensor<f32>

// The whole step with tp=2: fc1's input is an argument (no gradient needed),
// so no collective appears in the backward pass; the weight gradients and
// Adam's states have the local (split) shapes.
// STEP-LABEL: func.func @mlp(
// STEP-SAME:      {train.step}
// STEP:         train.copy_to_parallel
// STEP:         shard.all_reduce %{{.+}} on @grid grid_axes = [1] : tensor<4x8xf32> -> tensor<4x8xf32>
// STEP-NOT:     shard.all_reduce
// STEP:         train.opt_state "fc1.weight.exp_avg" : tensor<8x8xf32>
// STEP:         train.adam %fc1.weight, {{.*}} : tensor<8x8xf32>, tensor<8x8xf32>, tensor<8x8xf32>, tensor<8x8xf32>
// STEP:         train.adam %fc2.weight, {{.*}} : tensor<8x8xf32>, tensor<8x8xf32>, tensor<8x8xf32>, tensor<8x8xf32>
// STEP:         return

func.func @mlp(%x: tensor<4x8xf32>, %labels: tensor<4xi64>) -> tensor<f32> {
  %w1 = train.param "fc1.weight" : tensor<8x16xf32>
  %h = train.matmul %x, %w1 : tensor<4x8xf32>, tensor<8x16xf32> -> tensor<4x16xf32>
  %a = train.relu %h : tensor<4x16xf32>
  %w2 = train.param "fc2.weight" : tensor<16x8xf32>
  %y = train.matmul %a, %w2 : tensor<4x16xf32>, tensor<16x8xf32> -> tensor<4x8xf32>
  %l = train.cross_entropy %y, %labels : tensor<4x8xf32>, tensor<4xi64> -> tensor<f32>
  return %l : tensor<f32>
}

// -----

// Biases: the column-parallel layer's bias is split with its output features
// (dim 0 of the bias); the row-parallel layer's bias stays whole and is added
// once, after the all-reduce.
// CHECK-LABEL: func.func @mlp_bias(
// CHECK:         %[[H:.+]] = train.matmul %{{.+}}, %{{.+}} : tensor<4x8xf32>, tensor<8x8xf32> -> tensor<4x8xf32>
// CHECK-NEXT:    %[[B1:.+]] = train.param "fc1.bias" {train.split = array<i64: 0, 1, 1>} : tensor<8xf32>
// CHECK-NEXT:    %[[HB:.+]] = train.bias_add %[[H]], %[[B1]] : tensor<4x8xf32>, tensor<8xf32> -> tensor<4x8xf32>
// CHECK-NEXT:    %[[A:.+]] = train.gelu %[[HB]] {approximate} : tensor<4x8xf32>
// CHECK-NEXT:    %[[W2:.+]] = train.param "fc2.weight" {train.split = array<i64: 0, 1, 1>} : tensor<8x8xf32>
// CHECK-NEXT:    %[[P:.+]] = train.matmul %[[A]], %[[W2]] : tensor<4x8xf32>, tensor<8x8xf32> -> tensor<4x8xf32>
// CHECK-NEXT:    %[[Y:.+]] = shard.all_reduce %[[P]] on @grid grid_axes = [1] : tensor<4x8xf32> -> tensor<4x8xf32>
// CHECK-NEXT:    %[[B2:.+]] = train.param "fc2.bias" : tensor<8xf32>
// CHECK-NEXT:    %{{.+}} = train.bias_add %[[Y]], %[[B2]] : tensor<4x8xf32>, tensor<8xf32> -> tensor<4x8xf32>
func.func @mlp_bias(%x: tensor<4x8xf32>, %labels: tensor<4xi64>) -> tensor<f32> {
  %w1 = train.param "fc1.weight" : tensor<8x16xf32>
  %h = train.matmul %x, %w1 : tensor<4x8xf32>, tensor<8x16xf32> -> tensor<4x16xf32>
  %b1 = train.param "fc1.bias" : tensor<16xf32>
  %hb = train.bias_add %h, %b1 : tensor<4x16xf32>, tensor<16xf32> -> tensor<4x16xf32>
  %a = train.gelu %hb {approximate} : tensor<4x16xf32>
  %w2 = train.param "fc2.weight" : tensor<16x8xf32>
  %y = train.matmul %a, %w2 : tensor<4x16xf32>, tensor<16x8xf32> -> tensor<4x8xf32>
  %b2 = train.param "fc2.bias" : tensor<8xf32>
  %yb = train.bias_add %y, %b2 : tensor<4x8xf32>, tensor<8xf32> -> tensor<4x8xf32>
  %l = train.cross_entropy %yb, %labels : tensor<4x8xf32>, tensor<4xi64> -> tensor<f32>
  return %l : tensor<f32>
}

// -----

// A tiny attention block (2 heads of 4) with a fused QKV weight [8, 24] and
// bias [24], read by three slices of 8: the weight and bias are split in 3
// blocks (each process keeps its half of Q, of K and of V: 8x12 and 12), the
// slice offsets 0/8/16 become 0/4/8 of the local 12 columns, each process
// computes one head, and the output projection is row-parallel.
// CHECK-LABEL: func.func @attention(
// CHECK-SAME:      %[[X:[^:]+]]: tensor<2x4x8xf32>, %{{[^:]+}}: tensor<2x4x8xf32>)
// CHECK-NEXT:    %[[XP:.+]] = train.copy_to_parallel %[[X]] on @grid grid_axes = [1] : tensor<2x4x8xf32>
// CHECK-NEXT:    %[[W:.+]] = train.param "attn.qkv.weight" {train.split = array<i64: 1, 3, 1>} : tensor<8x12xf32>
// CHECK-NEXT:    %[[QKV:.+]] = train.matmul %[[XP]], %[[W]] : tensor<2x4x8xf32>, tensor<8x12xf32> -> tensor<2x4x12xf32>
// CHECK-NEXT:    %[[B:.+]] = train.param "attn.qkv.bias" {train.split = array<i64: 0, 3, 1>} : tensor<12xf32>
// CHECK-NEXT:    %[[QKVB:.+]] = train.bias_add %[[QKV]], %[[B]] : tensor<2x4x12xf32>, tensor<12xf32> -> tensor<2x4x12xf32>
// CHECK-NEXT:    %[[Q0:.+]] = train.slice %[[QKVB]] {offsets = array<i64: 0, 0, 0>} : tensor<2x4x12xf32> -> tensor<2x4x4xf32>
// CHECK-NEXT:    %[[Q1:.+]] = train.reshape %[[Q0]] : tensor<2x4x4xf32> -> tensor<2x4x1x4xf32>
// CHECK-NEXT:    %[[Q:.+]] = train.transpose %[[Q1]] {permutation = array<i64: 0, 2, 1, 3>} : tensor<2x4x1x4xf32> -> tensor<2x1x4x4xf32>
// CHECK-NEXT:    train.slice %[[QKVB]] {offsets = array<i64: 0, 0, 4>} : tensor<2x4x12xf32> -> tensor<2x4x4xf32>
// CHECK:         train.slice %[[QKVB]] {offsets = array<i64: 0, 0, 8>} : tensor<2x4x12xf32> -> tensor<2x4x4xf32>
// CHECK:         train.matmul %[[Q]], %{{.+}} {transpose_rhs} : tensor<2x1x4x4xf32>, tensor<2x1x4x4xf32> -> tensor<2x1x4x4xf32>
// CHECK-NEXT:    train.softmax %{{.+}} {causal, scale = 5.000000e-01 : f64} : tensor<2x1x4x4xf32>
// CHECK:         %[[C:.+]] = train.reshape %{{.+}} : tensor<2x4x1x4xf32> -> tensor<2x4x4xf32>
// CHECK-NEXT:    %[[WO:.+]] = train.param "attn.proj.weight" {train.split = array<i64: 0, 1, 1>} : tensor<4x8xf32>
// CHECK-NEXT:    %[[O:.+]] = train.matmul %[[C]], %[[WO]] : tensor<2x4x4xf32>, tensor<4x8xf32> -> tensor<2x4x8xf32>
// CHECK-NEXT:    shard.all_reduce %[[O]] on @grid grid_axes = [1] : tensor<2x4x8xf32> -> tensor<2x4x8xf32>
func.func @attention(%x: tensor<2x4x8xf32>, %t: tensor<2x4x8xf32>) -> tensor<f32> {
  %wqkv = train.param "attn.qkv.weight" : tensor<8x24xf32>
  %qkv = train.matmul %x, %wqkv : tensor<2x4x8xf32>, tensor<8x24xf32> -> tensor<2x4x24xf32>
  %bqkv = train.param "attn.qkv.bias" : tensor<24xf32>
  %qkvb = train.bias_add %qkv, %bqkv : tensor<2x4x24xf32>, tensor<24xf32> -> tensor<2x4x24xf32>
  %q0 = train.slice %qkvb {offsets = array<i64: 0, 0, 0>} : tensor<2x4x24xf32> -> tensor<2x4x8xf32>
  %q1 = train.reshape %q0 : tensor<2x4x8xf32> -> tensor<2x4x2x4xf32>
  %q = train.transpose %q1 {permutation = array<i64: 0, 2, 1, 3>} : tensor<2x4x2x4xf32> -> tensor<2x2x4x4xf32>
  %k0 = train.slice %qkvb {offsets = array<i64: 0, 0, 8>} : tensor<2x4x24xf32> -> tensor<2x4x8xf32>
  %k1 = train.reshape %k0 : tensor<2x4x8xf32> -> tensor<2x4x2x4xf32>
  %k = train.transpose %k1 {permutation = array<i64: 0, 2, 1, 3>} : tensor<2x4x2x4xf32> -> tensor<2x2x4x4xf32>
  %v0 = train.slice %qkvb {offsets = array<i64: 0, 0, 16>} : tensor<2x4x24xf32> -> tensor<2x4x8xf32>
  %v1 = train.reshape %v0 : tensor<2x4x8xf32> -> tensor<2x4x2x4xf32>
  %v = train.transpose %v1 {permutation = array<i64: 0, 2, 1, 3>} : tensor<2x4x2x4xf32> -> tensor<2x2x4x4xf32>
  %s = train.matmul %q, %k {transpose_rhs} : tensor<2x2x4x4xf32>, tensor<2x2x4x4xf32> -> tensor<2x2x4x4xf32>
  %p = train.softmax %s {causal, scale = 5.000000e-01 : f64} : tensor<2x2x4x4xf32>
  %c = train.matmul %p, %v : tensor<2x2x4x4xf32>, tensor<2x2x4x4xf32> -> tensor<2x2x4x4xf32>
  %c1 = train.transpose %c {permutation = array<i64: 0, 2, 1, 3>} : tensor<2x2x4x4xf32> -> tensor<2x4x2x4xf32>
  %c2 = train.reshape %c1 : tensor<2x4x2x4xf32> -> tensor<2x4x8xf32>
  %wo = train.param "attn.proj.weight" : tensor<8x8xf32>
  %o = train.matmul %c2, %wo : tensor<2x4x8xf32>, tensor<8x8xf32> -> tensor<2x4x8xf32>
  %l = train.mse_loss %o, %t : tensor<2x4x8xf32>, tensor<2x4x8xf32> -> tensor<f32>
  return %l : tensor<f32>
}

// -----

// A layer norm before the MLP: the input of the column-parallel region now
// depends on parameters, so the whole step's backward pass sums the partial
// gradients of copy_to_parallel's input over the tensor-parallel axis
// (Megatron's f) before the layer norm's gradient.
// STEP-LABEL: func.func @block(
// STEP:         %[[N:[^ ]+]], %[[MEAN:[^ ]+]], %[[RSTD:[^ ]+]] = train.layer_norm
// STEP-NEXT:    %[[NP:.+]] = train.copy_to_parallel %[[N]] on @grid grid_axes = [1] : tensor<4x8xf32>
// STEP:         shard.all_reduce %{{.+}} on @grid grid_axes = [1] : tensor<4x8xf32> -> tensor<4x8xf32>
// STEP:         %[[DN:.+]] = train.matmul %{{.+}}, %fc1.weight {transpose_rhs} : tensor<4x8xf32>, tensor<8x8xf32> -> tensor<4x8xf32>
// STEP-NEXT:    %[[DW1:.+]] = train.matmul %[[NP]], %{{.+}} {transpose_lhs} : tensor<4x8xf32>, tensor<4x8xf32> -> tensor<8x8xf32>
// STEP-NEXT:    %[[DNS:.+]] = shard.all_reduce %[[DN]] on @grid grid_axes = [1] : tensor<4x8xf32> -> tensor<4x8xf32>
// STEP-NEXT:    train.layer_norm_grad %[[DNS]], %{{.+}}, %ln.weight, %[[MEAN]], %[[RSTD]]
// STEP:         train.adam %fc1.weight, %[[DW1]], {{.*}} : tensor<8x8xf32>,

// With dp=2 as well, every parameter's gradient is averaged over the
// data-parallel axis before its update, and the returned loss is averaged.
// DPSTEP:      shard.grid @grid(shape = 2x2)
// DPSTEP-LABEL: func.func @block(
// DPSTEP-SAME:     %{{[^:]+}}: tensor<2x8xf32> {train.split = array<i64: 0, 1, 0>}, %{{[^:]+}}: tensor<2xi64> {train.split = array<i64: 0, 1, 0>}, %{{[^:]+}}: tensor<i64> {train.step})
// DPSTEP-SAME:     attributes {train.shard = {dp = 2 : i64, grid = @grid, tp = 2 : i64, zero = 0 : i64}}
// DPSTEP:        %[[LOSS:.+]] = shard.all_reduce %{{.+}} on @grid grid_axes = [0] reduction = average : tensor<f32> -> tensor<f32>
// DPSTEP:        %[[DN:.+]] = train.matmul %{{.+}}, %fc1.weight {transpose_rhs} : tensor<2x8xf32>, tensor<8x8xf32> -> tensor<2x8xf32>
// DPSTEP:        shard.all_reduce %[[DN]] on @grid grid_axes = [1] : tensor<2x8xf32> -> tensor<2x8xf32>
// DPSTEP:        %[[DG:[^ ]+]], %[[DB:[^ ]+]] = train.layer_norm_grad
// DPSTEP-DAG:    %[[AG:.+]] = shard.all_reduce %[[DG]] on @grid grid_axes = [0] reduction = average : tensor<8xf32> -> tensor<8xf32>
// DPSTEP-DAG:    %[[AB:.+]] = shard.all_reduce %[[DB]] on @grid grid_axes = [0] reduction = average : tensor<8xf32> -> tensor<8xf32>
// DPSTEP-DAG:    %[[AW1:.+]] = shard.all_reduce %{{.+}} on @grid grid_axes = [0] reduction = average : tensor<8x8xf32> -> tensor<8x8xf32>
// DPSTEP:        train.adam %ln.weight, %[[AG]],
// DPSTEP:        train.adam %ln.bias, %[[AB]],
// DPSTEP:        train.adam %fc1.weight, %[[AW1]],
// DPSTEP:        train.adam %fc2.weight, %{{.+}}, {{.*}} : tensor<8x8xf32>,
// DPSTEP:        return %[[LOSS]] : tensor<f32>
func.func @block(%x: tensor<4x8xf32>, %labels: tensor<4xi64>) -> tensor<f32> {
  %g = train.param "ln.weight" : tensor<8xf32>
  %b = train.param "ln.bias" : tensor<8xf32>
  %n, %mean, %rstd = train.layer_norm %x, %g, %b : tensor<4x8xf32>, tensor<8xf32>, tensor<8xf32> -> tensor<4x8xf32>, tensor<4xf32>, tensor<4xf32>
  %w1 = train.param "fc1.weight" : tensor<8x16xf32>
  %h = train.matmul %n, %w1 : tensor<4x8xf32>, tensor<8x16xf32> -> tensor<4x16xf32>
  %a = train.relu %h : tensor<4x16xf32>
  %w2 = train.param "fc2.weight" : tensor<16x8xf32>
  %y = train.matmul %a, %w2 : tensor<4x16xf32>, tensor<16x8xf32> -> tensor<4x8xf32>
  %l = train.cross_entropy %y, %labels : tensor<4x8xf32>, tensor<4xi64> -> tensor<f32>
  return %l : tensor<f32>
}
