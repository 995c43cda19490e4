// RUN: mem-opt --mlir-print-debuginfo=false %s -split-input-file --train-accumulate-gradients -verify-diagnostics | FileCheck %s
// RUN: mem-opt --mlir-print-debuginfo=false %s -split-input-file --train-accumulate-gradients --train-verify-step -verify-diagnostics -o /dev/null

// Each update first adds its gradient into the parameter's accumulator, in
// place, then updates from the accumulator; the optimizer states stay (the
// second RUN line: the rewritten step is still a step).
// CHECK-LABEL: func.func @adam_step(
// CHECK-SAME:      %[[X:[^:]+]]: tensor<2x4xf32>
// CHECK:         %[[W:.+]] = train.param "w" : tensor<4x4xf32>
// CHECK:         %[[DW:.+]] = train.matmul %[[X]], %{{.+}} {transpose_lhs}
// CHECK:         %[[M:.+]] = train.opt_state "w.exp_avg"
// CHECK-NEXT:    %[[V:.+]] = train.opt_state "w.exp_avg_sq"
// CHECK-NEXT:    %[[ACC:.+]] = train.opt_state "w.grad_accumulator" : tensor<4x4xf32>
// CHECK-NEXT:    train.accumulate %[[ACC]], %[[DW]] : tensor<4x4xf32>, tensor<4x4xf32>
// CHECK-NEXT:    train.adam %[[W]], %[[ACC]], %[[M]], %[[V]] step
// CHECK-NOT:     train.accumulate
func.func @adam_step(%x: tensor<2x4xf32>, %y: tensor<2x4xf32>,
                     %step: tensor<i64>) -> tensor<f32> {
  %w = train.param "w" : tensor<4x4xf32>
  %h = train.matmul %x, %w : tensor<2x4xf32>, tensor<4x4xf32> -> tensor<2x4xf32>
  %loss = train.mse_loss %h, %y : tensor<2x4xf32>, tensor<2x4xf32> -> tensor<f32>
  %dloss = arith.constant dense<1.000000e+00> : tensor<f32>
  %dh = train.mse_loss_grad %dloss, %h, %y : tensor<f32>, tensor<2x4xf32>, tensor<2x4xf32> -> tensor<2x4xf32>
  %dw = train.matmul %x, %dh {transpose_lhs} : tensor<2x4xf32>, tensor<2x4xf32> -> tensor<4x4xf32>
  %m = train.opt_state "w.exp_avg" : tensor<4x4xf32>
  %v = train.opt_state "w.exp_avg_sq" : tensor<4x4xf32>
  train.adam %w, %dw, %m, %v step(%step : tensor<i64>) {lr = 1.000000e-03 : f64} : tensor<4x4xf32>, tensor<4x4xf32>, tensor<4x4xf32>, tensor<4x4xf32>
  return %loss : tensor<f32>
}

// -----

// One accumulator per update, named after its parameter, of the parameter's
// type; an external function is left alone.
// CHECK-LABEL: func.func private @external(tensor<4xf32>)
// CHECK-LABEL: func.func @sgd_step(
// CHECK:         %[[A:.+]] = train.param "a" : tensor<4x4xbf16>
// CHECK:         %[[B:.+]] = train.param "b" : tensor<4xbf16>
// CHECK:         %[[ACCA:.+]] = train.opt_state "a.grad_accumulator" : tensor<4x4xbf16>
// CHECK-NEXT:    train.accumulate %[[ACCA]], %[[DA:.+]] : tensor<4x4xbf16>, tensor<4x4xbf16>
// CHECK-NEXT:    train.sgd %[[A]], %[[ACCA]] {lr = 1.000000e-02 : f64}
// CHECK-NEXT:    %[[ACCB:.+]] = train.opt_state "b.grad_accumulator" : tensor<4xbf16>
// CHECK-NEXT:    train.accumulate %[[ACCB]], %[[DB:.+]] : tensor<4xbf16>, tensor<4xbf16>
// CHECK-NEXT:    train.sgd %[[B]], %[[ACCB]] {lr = 1.000000e-02 : f64}
func.func private @external(tensor<4xf32>)
func.func @sgd_step(%x: tensor<2x4xbf16>, %y: tensor<2x4xbf16>) -> tensor<f32> {
  %a = train.param "a" : tensor<4x4xbf16>
  %b = train.param "b" : tensor<4xbf16>
  %h = train.matmul %x, %a : tensor<2x4xbf16>, tensor<4x4xbf16> -> tensor<2x4xbf16>
  %z = train.bias_add %h, %b : tensor<2x4xbf16>, tensor<4xbf16> -> tensor<2x4xbf16>
  %loss = train.mse_loss %z, %y : tensor<2x4xbf16>, tensor<2x4xbf16> -> tensor<f32>
  %dloss = arith.constant dense<1.000000e+00> : tensor<f32>
  %dz = train.mse_loss_grad %dloss, %z, %y : tensor<f32>, tensor<2x4xbf16>, tensor<2x4xbf16> -> tensor<2x4xbf16>
  %db = train.reduce_sum %dz {dims = array<i64: 0>} : tensor<2x4xbf16> -> tensor<4xbf16>
  %da = train.matmul %x, %dz {transpose_lhs} : tensor<2x4xbf16>, tensor<2x4xbf16> -> tensor<4x4xbf16>
  train.sgd %a, %da {lr = 1.000000e-02 : f64} : tensor<4x4xbf16>, tensor<4x4xbf16>
  train.sgd %b, %db {lr = 1.000000e-02 : f64} : tensor<4xbf16>, tensor<4xbf16>
  return %loss : tensor<f32>
}

// -----

// A forward + loss function has nothing to accumulate.
// expected-error @+1 {{gradient accumulation needs a step with optimizer updates (train-autodiff with an optimizer)}}
func.func @forward(%x: tensor<2x4xf32>, %y: tensor<2x4xf32>) -> tensor<f32> {
  %w = train.param "w" : tensor<4x4xf32>
  %h = train.matmul %x, %w : tensor<2x4xf32>, tensor<4x4xf32> -> tensor<2x4xf32>
  %loss = train.mse_loss %h, %y : tensor<2x4xf32>, tensor<2x4xf32> -> tensor<f32>
  return %loss : tensor<f32>
}
