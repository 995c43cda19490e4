// The loss-scaling ops and the optimizers' loss-scaling operands round-trip.
// RUN: mem-opt %s | FileCheck %s
// RUN: mem-opt %s | mem-opt | FileCheck %s
// RUN: mem-opt %s --train-verify-step -o /dev/null

// CHECK-LABEL: func.func @scaled
// CHECK:         %[[E:.+]] = train.opt_state "loss_scale.exponent" : tensor<i64>
// CHECK:         %[[S:.+]] = train.loss_scale %[[E]] {initial_scale = 6.553600e+04 : f64} : tensor<i64> -> tensor<f32>
// CHECK:         %[[F:.+]] = train.any_nonfinite %{{.+}}, %{{.+}} : tensor<4xf16>, tensor<4xf16> -> tensor<i1>
// CHECK:         train.adam %{{.+}}, %{{.+}}, %{{.+}}, %{{.+}} step(%{{.+}} : tensor<i64>) unscale(%[[S]] : tensor<f32>) skip_if(%[[F]] : tensor<i1>) skipped(%[[K:.+]] : tensor<i64>) {lr = 1.000000e-03 : f64}
// CHECK:         train.sgd %{{.+}}, %{{.+}} unscale(%[[S]] : tensor<f32>) skip_if(%[[F]] : tensor<i1>) {lr = 1.000000e-02 : f64}
// CHECK:         train.loss_scale_update %[[E]], %{{.+}}, %[[K]], %[[F]] {growth_interval = 2000 : i64} : tensor<i64>, tensor<i64>, tensor<i64>, tensor<i1>
func.func @scaled(%x: tensor<4xf32>, %t: tensor<i64> {train.step}) -> tensor<f32> {
  %w = train.param "w" : tensor<4xf32>
  %u = train.param "u" : tensor<4xf32>
  %l = train.mse_loss %w, %x : tensor<4xf32>, tensor<4xf32> -> tensor<f32>
  %e = train.opt_state "loss_scale.exponent" : tensor<i64>
  %s = train.loss_scale %e {initial_scale = 65536.0 : f64} : tensor<i64> -> tensor<f32>
  %gw = train.cast %x : tensor<4xf32> -> tensor<4xf16>
  %gu = train.cast %w : tensor<4xf32> -> tensor<4xf16>
  %found = train.any_nonfinite %gw, %gu : tensor<4xf16>, tensor<4xf16> -> tensor<i1>
  %k = train.opt_state "loss_scale.skipped_steps" : tensor<i64>
  %m = train.opt_state "w.exp_avg" : tensor<4xf32>
  %v = train.opt_state "w.exp_avg_sq" : tensor<4xf32>
  train.adam %w, %gw, %m, %v step(%t : tensor<i64>) unscale(%s : tensor<f32>) skip_if(%found : tensor<i1>) skipped(%k : tensor<i64>) {lr = 1.0e-3 : f64} : tensor<4xf32>, tensor<4xf16>, tensor<4xf32>, tensor<4xf32>
  train.sgd %u, %gu unscale(%s : tensor<f32>) skip_if(%found : tensor<i1>) {lr = 1.0e-2 : f64} : tensor<4xf32>, tensor<4xf16>
  %tracker = train.opt_state "loss_scale.growth_tracker" : tensor<i64>
  train.loss_scale_update %e, %tracker, %k, %found {growth_interval = 2000 : i64} : tensor<i64>, tensor<i64>, tensor<i64>, tensor<i1>
  return %l : tensor<f32>
}

// Under gradient accumulation the scale is updated once per optimizer step.
// CHECK-LABEL: func.func @accumulating
// CHECK:         train.loss_scale_update %{{.+}}, %{{.+}}, %{{.+}}, %{{.+}} skip_if(%{{.+}} : tensor<i1>) {growth_interval = 2000 : i64} : tensor<i64>, tensor<i64>, tensor<i64>, tensor<i1>
func.func @accumulating(%found: tensor<i1>, %later: tensor<i1>) -> tensor<f32> {
  %e = train.opt_state "loss_scale.exponent" : tensor<i64>
  %k = train.opt_state "loss_scale.skipped_steps" : tensor<i64>
  %tracker = train.opt_state "loss_scale.growth_tracker" : tensor<i64>
  train.loss_scale_update %e, %tracker, %k, %found skip_if(%later : tensor<i1>) {growth_interval = 2000 : i64} : tensor<i64>, tensor<i64>, tensor<i64>, tensor<i1>
  %l = arith.constant dense<0.0> : tensor<f32>
  return %l : tensor<f32>
}
