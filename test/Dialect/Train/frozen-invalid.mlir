// RUN: mem-opt %s -split-input-file -verify-diagnostics

// A frozen parameter (trainable = false) has no gradient: no optimizer op
// may update it.

func.func @sgd_frozen(%g: tensor<4x8xf32>) {
  %w = train.param "w" {trainable = false} : tensor<4x8xf32>
  // expected-error @+1 {{'train.sgd' op updates the frozen parameter 'w' (trainable = false)}}
  train.sgd %w, %g {lr = 0.01 : f64} : tensor<4x8xf32>, tensor<4x8xf32>
  return
}

// -----

func.func @adamw_frozen(%g: tensor<4x8xf32>, %t: tensor<i64>) {
  %w = train.param "w" {trainable = false} : tensor<4x8xf32>
  %m = train.opt_state "w.exp_avg" : tensor<4x8xf32>
  %v = train.opt_state "w.exp_avg_sq" : tensor<4x8xf32>
  // expected-error @+1 {{'train.adamw' op updates the frozen parameter 'w' (trainable = false)}}
  train.adamw %w, %g, %m, %v step(%t : tensor<i64>) {lr = 1.0e-3 : f64} : tensor<4x8xf32>, tensor<4x8xf32>, tensor<4x8xf32>, tensor<4x8xf32>
  return
}

// -----

func.func @not_bool() {
  // expected-error @+1 {{attribute 'trainable' failed to satisfy constraint: bool attribute}}
  %w = train.param "w" {trainable = 1 : i64} : tensor<4x8xf32>
  return
}
