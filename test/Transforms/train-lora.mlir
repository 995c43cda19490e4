// RUN: mem-opt %s --train-lora='rank=2 alpha=4 targets=q_proj' | FileCheck %s
// RUN: mem-opt %s --train-lora='rank=2 alpha=4 dropout=0.1 targets=q_proj' | FileCheck %s --check-prefix=DROP
// RUN: mem-opt %s --train-lora='rank=2 alpha=4 targets=q_proj' --train-autodiff='optimizer=sgd' | FileCheck %s --check-prefix=STEP

// train-lora on a forward pass. A linear layer whose weight is
// "<module>.weight" with <module> ending in a target ("attn.q_proj" ends
// with "q_proj"; "attn.k_proj" matches nothing) computes
// W x + (alpha/rank) B(A x): A is rank x in, B out x rank, both read with
// transpose_rhs as PyTorch's nn.Linear weights, the sum joined after the
// layer's bias. Every other parameter is frozen, the new ones trainable.

// CHECK-LABEL: func.func @attn
// CHECK:       %[[Q:.*]] = train.param "attn.q_proj.weight" {trainable = false} : tensor<8x6xf32>
// CHECK:       %[[QX:.*]] = train.matmul %[[X:.*]], %[[Q]] {train.layer = "h.0", transpose_rhs} : tensor<2x4x6xf32>, tensor<8x6xf32> -> tensor<2x4x8xf32>
// CHECK:       %[[BIAS:.*]] = train.param "attn.q_proj.bias" {trainable = false}
// CHECK:       %[[QB:.*]] = train.bias_add %[[QX]], %[[BIAS]]
// CHECK-NEXT:  %[[A:.*]] = train.param "attn.q_proj.lora_A.weight" {train.layer = "h.0"} : tensor<2x6xf32>
// CHECK-NEXT:  %[[AX:.*]] = train.matmul %[[X]], %[[A]] {train.layer = "h.0", transpose_rhs} : tensor<2x4x6xf32>, tensor<2x6xf32> -> tensor<2x4x2xf32>
// CHECK-NEXT:  %[[B:.*]] = train.param "attn.q_proj.lora_B.weight" {train.layer = "h.0"} : tensor<8x2xf32>
// CHECK-NEXT:  %[[BAX:.*]] = train.matmul %[[AX]], %[[B]] {train.layer = "h.0", transpose_rhs} : tensor<2x4x2xf32>, tensor<8x2xf32> -> tensor<2x4x8xf32>
// CHECK-NEXT:  %[[S:.*]] = train.scale %[[BAX]] {factor = 2.000000e+00 : f64, train.layer = "h.0"} : tensor<2x4x8xf32>
// CHECK-NEXT:  %[[SUM:.*]] = train.add %[[QB]], %[[S]] {train.layer = "h.0"} : tensor<2x4x8xf32>
// CHECK:       train.param "attn.k_proj.weight" {trainable = false}
// CHECK-NOT:   lora
// CHECK:       train.add %[[SUM]],
// CHECK:       return

// With dropout, the adapter's input is dropped out (a dropout id no other
// dropout of the function uses).
// DROP-LABEL: func.func @attn
// DROP:       %[[D:.*]], %{{.*}} = train.dropout %{{.*}} {id = 8 : i64, rate = 1.000000e-01 : f64, train.layer = "h.0"}
// DROP-NEXT:  train.param "attn.q_proj.lora_A.weight"
// DROP-NEXT:  train.matmul %[[D]], %{{.*}} {train.layer = "h.0", transpose_rhs} : tensor<2x4x6xf32>, tensor<2x6xf32>

// Differentiated: only the adapters get gradients and updates. The frozen
// k_proj is a constant: its weight gradient is not built, and as nothing
// before it is trainable, its input gradient neither.
// STEP-LABEL: func.func @attn
// STEP-NOT:   train.sgd %attn.q_proj.weight
// STEP-NOT:   train.sgd %attn.k_proj
// STEP:       train.sgd %attn.q_proj.lora_A.weight
// STEP:       train.sgd %attn.q_proj.lora_B.weight
// STEP-NOT:   train.sgd
// STEP:       return
func.func @attn(%x: tensor<2x4x6xf32>, %y: tensor<2x4x8xf32>) -> tensor<f32> {
  %m, %mask = train.dropout %x {id = 7 : i64, rate = 0.0 : f64} : tensor<2x4x6xf32> -> tensor<2x4x6xf32>, tensor<2x4x6xi8>
  %q = train.param "attn.q_proj.weight" : tensor<8x6xf32>
  %qx = train.matmul %m, %q {train.layer = "h.0", transpose_rhs} : tensor<2x4x6xf32>, tensor<8x6xf32> -> tensor<2x4x8xf32>
  %qb = train.param "attn.q_proj.bias" : tensor<8xf32>
  %qy = train.bias_add %qx, %qb : tensor<2x4x8xf32>, tensor<8xf32> -> tensor<2x4x8xf32>
  %k = train.param "attn.k_proj.weight" : tensor<8x6xf32>
  %kx = train.matmul %m, %k {transpose_rhs} : tensor<2x4x6xf32>, tensor<8x6xf32> -> tensor<2x4x8xf32>
  %s = train.add %qy, %kx : tensor<2x4x8xf32>
  %l = train.mse_loss %s, %y : tensor<2x4x8xf32>, tensor<2x4x8xf32> -> tensor<f32>
  return %l : tensor<f32>
}
