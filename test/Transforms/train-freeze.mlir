// RUN: mem-opt %s --train-freeze='params=fc1.*' | FileCheck %s --check-prefix=FWD
// RUN: mem-opt %s --train-freeze='params=fc1.*' --train-autodiff='optimizer=sgd' | FileCheck %s
// RUN: mem-opt %s --train-autodiff='optimizer=sgd' --train-freeze='params=fc1.*' | FileCheck %s
// RUN: mem-opt %s --train-freeze='params=fc2.*' --train-autodiff='optimizer=adam' | FileCheck %s --check-prefix=LAST

// train-freeze marks the matching parameters trainable = false.
// FWD: train.param "fc1.weight" {trainable = false}
// FWD: train.param "fc2.weight" : tensor<16x2xf32>

// Frozen first layer: train-autodiff builds the second layer's weight
// gradient and update only. The first layer's weight gradient is not
// built, nor its input gradient (nothing before it is trainable), nor the
// relu's: the backward pass ends at the relu's output gradient. Freezing a
// step train-autodiff derived derives it again: the same program.
// CHECK-LABEL: func.func @mlp
// CHECK:       %[[G:.*]] = train.mse_loss_grad
// CHECK-NEXT:  %[[DW2:.*]] = train.matmul %{{.*}}, %[[G]] {transpose_lhs}
// CHECK-NEXT:  train.sgd %fc2.weight, %[[DW2]]
// CHECK-NEXT:  return

// Frozen last layer: its input gradient is built (fc1 is trainable), its
// weight gradient is not; no Adam state for fc2.
// LAST-LABEL: func.func @mlp
// LAST:       train.mse_loss_grad
// LAST-NEXT:  train.matmul %{{.*}}, %fc2.weight {transpose_rhs}
// LAST-NEXT:  train.relu_grad
// LAST-NEXT:  train.matmul %{{.*}}, %{{.*}} {transpose_lhs}
// LAST-NEXT:  train.opt_state "fc1.weight.exp_avg"
// LAST-NEXT:  train.opt_state "fc1.weight.exp_avg_sq"
// LAST-NEXT:  train.adam %fc1.weight
// LAST-NOT:   fc2.weight.exp_avg
// LAST:       return
func.func @mlp(%x: tensor<4x8xf32>, %y: tensor<4x2xf32>) -> tensor<f32> {
  %w1 = train.param "fc1.weight" : tensor<8x16xf32>
  %h = train.matmul %x, %w1 : tensor<4x8xf32>, tensor<8x16xf32> -> tensor<4x16xf32>
  %r = train.relu %h : tensor<4x16xf32>
  %w2 = train.param "fc2.weight" : tensor<16x2xf32>
  %o = train.matmul %r, %w2 : tensor<4x16xf32>, tensor<16x2xf32> -> tensor<4x2xf32>
  %l = train.mse_loss %o, %y : tensor<4x2xf32>, tensor<4x2xf32> -> tensor<f32>
  return %l : tensor<f32>
}
