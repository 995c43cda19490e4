// RUN: mem-opt %s -split-input-file -verify-diagnostics --train-autodiff
// RUN: mem-opt %s -split-input-file -verify-diagnostics --train-autodiff='optimizer=sgd'

// The loss must be the first returned value, a 0-d float tensor.
func.func @no_scalar_loss(%x: tensor<4xf32>) -> tensor<4xf32> {
  %w = train.param "w" : tensor<4xf32>
  %y = train.mul %x, %w : tensor<4xf32>
  // expected-error @+1 {{'func.return' op expected the function's first returned value to be the loss, a 0-d float tensor, got 'tensor<4xf32>'}}
  return %y : tensor<4xf32>
}

// -----

func.func @nothing_returned(%x: tensor<4xf32>) {
  %w = train.param "w" : tensor<4xf32>
  // expected-error @+1 {{expected the function's first returned value to be the loss, a 0-d float tensor, but nothing is returned}}
  return
}

// -----

func.func @integer_loss(%x: tensor<i64>) -> tensor<i64> {
  // expected-error @+1 {{got 'tensor<i64>'}}
  return %x : tensor<i64>
}

// -----

// An op on the path from a parameter to the loss without a gradient rule.
func.func @no_gradient_rule(%x: tensor<4xf32>) -> tensor<f32> {
  %w = train.param "w" : tensor<4xf32>
  // expected-error @+1 {{'arith.mulf' op has no gradient rule; cannot differentiate the loss through it}}
  %y = arith.mulf %x, %w : tensor<4xf32>
  %l = train.reduce_sum %y {dims = array<i64: 0>} : tensor<4xf32> -> tensor<f32>
  return %l : tensor<f32>
}

// -----

// Gradient ops have no gradient rule of their own (no double backward).
func.func @gradient_op_in_forward(%x: tensor<4xf32>) -> tensor<f32> {
  %w = train.param "w" : tensor<4xf32>
  // expected-error @+1 {{'train.relu_grad' op has no gradient rule}}
  %y = train.relu_grad %x, %w : tensor<4xf32>
  %l = train.reduce_sum %y {dims = array<i64: 0>} : tensor<4xf32> -> tensor<f32>
  return %l : tensor<f32>
}

// -----

// Statistics are not differentiable.
func.func @gradient_into_statistics(%x: tensor<2x4xf32>) -> tensor<f32> {
  %g = train.param "g" : tensor<4xf32>
  %b = train.param "b" : tensor<4xf32>
  // expected-error @+1 {{'train.layer_norm' op has no gradient rule for result 1; only result 0 is differentiable}}
  %y, %mean, %rstd = train.layer_norm %x, %g, %b : tensor<2x4xf32>, tensor<4xf32>, tensor<4xf32> -> tensor<2x4xf32>, tensor<2xf32>, tensor<2xf32>
  %l1 = train.reduce_sum %y {dims = array<i64: 0, 1>} : tensor<2x4xf32> -> tensor<f32>
  %l2 = train.reduce_sum %mean {dims = array<i64: 0>} : tensor<2xf32> -> tensor<f32>
  %l = train.add %l1, %l2 : tensor<f32>
  return %l : tensor<f32>
}

// -----

// A loss that does not depend on a parameter.
func.func @no_parameters(%x: tensor<4xf32>) -> tensor<f32> {
  %l = train.reduce_sum %x {dims = array<i64: 0>} : tensor<4xf32> -> tensor<f32>
  // expected-error @+1 {{the loss does not depend on any trainable train.param; there is nothing to differentiate}}
  return %l : tensor<f32>
}

// -----

// A step that already has its update.
func.func @already_a_step(%g: tensor<4xf32>) -> tensor<f32> {
  %w = train.param "w" : tensor<4xf32>
  // expected-error @+1 {{'train.sgd' op the function already updates its parameters; train-autodiff expects forward and loss only}}
  train.sgd %w, %g {lr = 0.1 : f64} : tensor<4xf32>, tensor<4xf32>
  %l = train.reduce_sum %w {dims = array<i64: 0>} : tensor<4xf32> -> tensor<f32>
  return %l : tensor<f32>
}

// -----

// Every parameter frozen: nothing to differentiate.
func.func @all_frozen(%x: tensor<4x8xf32>, %y: tensor<4x16xf32>) -> tensor<f32> {
  %w1 = train.param "fc1.weight" {trainable = false} : tensor<8x16xf32>
  %h = train.matmul %x, %w1 : tensor<4x8xf32>, tensor<8x16xf32> -> tensor<4x16xf32>
  %l = train.mse_loss %h, %y : tensor<4x16xf32>, tensor<4x16xf32> -> tensor<f32>
  // expected-error @+1 {{the loss does not depend on any trainable train.param; there is nothing to differentiate}}
  return %l : tensor<f32>
}

// -----

// Two reads of one name must agree on trainable.
func.func @disagree(%x: tensor<4x8xf32>, %y: tensor<4x8xf32>) -> tensor<f32> {
  // expected-note @+1 {{the other read}}
  %w1 = train.param "w" : tensor<8x8xf32>
  %h = train.matmul %x, %w1 : tensor<4x8xf32>, tensor<8x8xf32> -> tensor<4x8xf32>
  // expected-error @+1 {{'train.param' op reads 'w' with trainable = false, another read has trainable = true}}
  %w2 = train.param "w" {trainable = false} : tensor<8x8xf32>
  %g = train.matmul %h, %w2 : tensor<4x8xf32>, tensor<8x8xf32> -> tensor<4x8xf32>
  %l = train.mse_loss %g, %y : tensor<4x8xf32>, tensor<4x8xf32> -> tensor<f32>
  return %l : tensor<f32>
}
