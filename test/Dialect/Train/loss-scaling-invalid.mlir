// RUN: mem-opt %s -split-input-file -verify-diagnostics

func.func @exponent_not_state(%e: tensor<i64>) -> tensor<f32> {
  // expected-error @+1 {{expected the exponent to be the train.opt_state "loss_scale.exponent"}}
  %s = train.loss_scale %e {initial_scale = 65536.0 : f64} : tensor<i64> -> tensor<f32>
  return %s : tensor<f32>
}

// -----

func.func @initial_scale() -> tensor<f32> {
  %e = train.opt_state "loss_scale.exponent" : tensor<i64>
  // expected-error @+1 {{expected a positive initial_scale, got 0}}
  %s = train.loss_scale %e {initial_scale = 0.0 : f64} : tensor<i64> -> tensor<f32>
  return %s : tensor<f32>
}

// -----

func.func @scale_type() -> tensor<f16> {
  %e = train.opt_state "loss_scale.exponent" : tensor<i64>
  // expected-error @+1 {{result #0 must be 0-d f32 tensor}}
  %s = train.loss_scale %e {initial_scale = 1.0 : f64} : tensor<i64> -> tensor<f16>
  return %s : tensor<f16>
}

// -----

func.func @no_inputs() -> tensor<i1> {
  // expected-error @+1 {{expected at least one input}}
  %f = "train.any_nonfinite"() : () -> tensor<i1>
  return %f : tensor<i1>
}

// -----

func.func @flag_type(%g: tensor<4xf32>) -> tensor<i8> {
  // expected-error @+1 {{result #0 must be 0-d i1 tensor}}
  %f = train.any_nonfinite %g : tensor<4xf32> -> tensor<i8>
  return %f : tensor<i8>
}

// -----

func.func @interval(%f: tensor<i1>) {
  %e = train.opt_state "loss_scale.exponent" : tensor<i64>
  %t = train.opt_state "loss_scale.growth_tracker" : tensor<i64>
  %k = train.opt_state "loss_scale.skipped_steps" : tensor<i64>
  // expected-error @+1 {{expected growth_interval >= 1, got 0}}
  train.loss_scale_update %e, %t, %k, %f {growth_interval = 0 : i64} : tensor<i64>, tensor<i64>, tensor<i64>, tensor<i1>
  return
}

// -----

func.func @swapped_counters(%f: tensor<i1>) {
  %e = train.opt_state "loss_scale.exponent" : tensor<i64>
  %t = train.opt_state "loss_scale.growth_tracker" : tensor<i64>
  %k = train.opt_state "loss_scale.skipped_steps" : tensor<i64>
  // expected-error @+1 {{expected the growth tracker to be the train.opt_state "loss_scale.growth_tracker"}}
  train.loss_scale_update %e, %k, %t, %f {growth_interval = 2 : i64} : tensor<i64>, tensor<i64>, tensor<i64>, tensor<i1>
  return
}

// -----

func.func @skipped_without_skip(%g: tensor<4xf32>, %t: tensor<i64>) {
  %w = train.param "w" : tensor<4xf32>
  %m = train.opt_state "w.exp_avg" : tensor<4xf32>
  %v = train.opt_state "w.exp_avg_sq" : tensor<4xf32>
  %k = train.opt_state "loss_scale.skipped_steps" : tensor<i64>
  // expected-error @+1 {{expected skip_if with skipped: the skipped steps are counted only under loss scaling}}
  train.adam %w, %g, %m, %v step(%t : tensor<i64>) skipped(%k : tensor<i64>) {lr = 1.0e-3 : f64} : tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>
  return
}

// -----

func.func @skipped_not_state(%g: tensor<4xf32>, %t: tensor<i64>, %f: tensor<i1>, %k: tensor<i64>) {
  %w = train.param "w" : tensor<4xf32>
  %m = train.opt_state "w.exp_avg" : tensor<4xf32>
  %v = train.opt_state "w.exp_avg_sq" : tensor<4xf32>
  // expected-error @+1 {{expected the skipped-step count to be the train.opt_state "loss_scale.skipped_steps"}}
  train.adam %w, %g, %m, %v step(%t : tensor<i64>) skip_if(%f : tensor<i1>) skipped(%k : tensor<i64>) {lr = 1.0e-3 : f64} : tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>
  return
}

// -----

func.func @scale_not_f32(%g: tensor<4xf32>, %s: tensor<f16>) {
  %w = train.param "w" : tensor<4xf32>
  // expected-error @+1 {{operand #2 must be 0-d f32 tensor, but got 'tensor<f16>'}}
  train.sgd %w, %g unscale(%s : tensor<f16>) {lr = 1.0e-2 : f64} : tensor<4xf32>, tensor<4xf32>
  return
}

// -----

func.func @skip_type(%f: tensor<i1>, %later: tensor<i8>) {
  %e = train.opt_state "loss_scale.exponent" : tensor<i64>
  %t = train.opt_state "loss_scale.growth_tracker" : tensor<i64>
  %k = train.opt_state "loss_scale.skipped_steps" : tensor<i64>
  // expected-error @+1 {{operand #4 must be 0-d i1 tensor}}
  train.loss_scale_update %e, %t, %k, %f skip_if(%later : tensor<i8>) {growth_interval = 2 : i64} : tensor<i64>, tensor<i64>, tensor<i64>, tensor<i1>
  return
}
