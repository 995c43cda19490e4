// RUN: mem-opt --mlir-print-debuginfo=false %s -split-input-file --train-accumulate-gradients=micro-batches=2 -verify-diagnostics | FileCheck %s
// RUN: mem-opt --mlir-print-debuginfo=false %s -split-input-file --train-accumulate-gradients=micro-batches=2 --train-verify-step -verify-diagnostics -o /dev/null
// RUN: mem-opt --mlir-print-debuginfo=false %s -split-input-file --train-accumulate-gradients=micro-batches=4 -verify-diagnostics | FileCheck %s --check-prefix=FOUR
// RUN: not mem-opt %s -split-input-file --train-accumulate-gradients 2>&1 | FileCheck %s --check-prefix=NO-COUNT
// RUN: not mem-opt %s -split-input-file --train-accumulate-gradients=micro-batches=-2 2>&1 | FileCheck %s --check-prefix=NEGATIVE
// NO-COUNT: error: train-accumulate-gradients needs micro-batches >= 1 (the micro-batches per optimizer step), got 0
// NEGATIVE: error: train-accumulate-gradients needs micro-batches >= 1 (the micro-batches per optimizer step), got -2

// The step becomes one of 2 micro-batches: the index state is read once,
// the updates skip every micro-batch but the last, each update first adds
// its gradient times 1/2 into the parameter's accumulator (restarted on
// micro-batch 0) and updates from it; the optimizer states and Adam's step
// count stay, and the index advances last (the second RUN line: the
// rewritten step is still a step).
// CHECK-LABEL: func.func @adam_step(
// CHECK-SAME:      %[[X:[^:]+]]: tensor<2x4xf32>
// CHECK-SAME:      %[[T:[^:]+]]: tensor<i64>
// CHECK:         %[[W:.+]] = train.param "w" : tensor<4x4xf32>
// CHECK:         %[[DW:.+]] = train.matmul %[[X]], %{{.+}} {transpose_lhs}
// CHECK:         %[[M:.+]] = train.opt_state "w.exp_avg"
// CHECK-NEXT:    %[[V:.+]] = train.opt_state "w.exp_avg_sq"
// CHECK-NEXT:    %[[I:.+]] = train.opt_state "grad_accumulation.micro_batch" : tensor<i64>
// CHECK-NEXT:    %[[SKIP:.+]] = train.micro_batch_skip %[[I]] {micro_batches = 2 : i64} : tensor<i64> -> tensor<i1>
// CHECK-NEXT:    %[[ACC:.+]] = train.opt_state "w.grad_accumulator" : tensor<4x4xf32>
// CHECK-NEXT:    train.accumulate %[[ACC]], %[[DW]] micro_batch(%[[I]] : tensor<i64>) {scale = 5.000000e-01 : f64} : tensor<4x4xf32>, tensor<4x4xf32>
// CHECK-NEXT:    train.adam %[[W]], %[[ACC]], %[[M]], %[[V]] step(%[[T]] : tensor<i64>) skip_if(%[[SKIP]] : tensor<i1>)
// CHECK-NEXT:    train.micro_batch_advance %[[I]] {micro_batches = 2 : i64} : tensor<i64>
// CHECK-NEXT:    return
// CHECK-NOT:     train.accumulate
// FOUR-LABEL: func.func @adam_step(
// FOUR:         train.micro_batch_skip %{{.+}} {micro_batches = 4 : i64}
// FOUR:         train.accumulate {{.+}} {scale = 2.500000e-01 : f64}
// FOUR:         train.micro_batch_advance %{{.+}} {micro_batches = 4 : i64}
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
// type, all skipping on one flag; an external function is left alone.
// CHECK-LABEL: func.func private @external(tensor<4xf32>)
// CHECK-LABEL: func.func @sgd_step(
// CHECK:         %[[A:.+]] = train.param "a" : tensor<4x4xbf16>
// CHECK:         %[[B:.+]] = train.param "b" : tensor<4xbf16>
// CHECK:         %[[I:.+]] = train.opt_state "grad_accumulation.micro_batch"
// CHECK-NEXT:    %[[SKIP:.+]] = train.micro_batch_skip %[[I]]
// CHECK-NEXT:    %[[ACCA:.+]] = train.opt_state "a.grad_accumulator" : tensor<4x4xbf16>
// CHECK-NEXT:    train.accumulate %[[ACCA]], %[[DA:.+]] micro_batch(%[[I]] : tensor<i64>) {scale = 5.000000e-01 : f64} : tensor<4x4xbf16>, tensor<4x4xbf16>
// CHECK-NEXT:    train.sgd %[[A]], %[[ACCA]] skip_if(%[[SKIP]] : tensor<i1>) {lr = 1.000000e-02 : f64}
// CHECK-NEXT:    %[[ACCB:.+]] = train.opt_state "b.grad_accumulator" : tensor<4xbf16>
// CHECK-NEXT:    train.accumulate %[[ACCB]], %[[DB:.+]] micro_batch(%[[I]] : tensor<i64>) {scale = 5.000000e-01 : f64} : tensor<4xbf16>, tensor<4xbf16>
// CHECK-NEXT:    train.sgd %[[B]], %[[ACCB]] skip_if(%[[SKIP]] : tensor<i1>) {lr = 1.000000e-02 : f64}
// CHECK-NEXT:    train.micro_batch_advance %[[I]]
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

// Dynamic loss scaling: the backward's seed is the scale times 1/2 (the
// updates still unscale by the scale), the gradients are accumulated
// unscaled by 1/2 before the check, which reads the buffers; the updates
// skip on the check or an earlier micro-batch, and the scale is updated on
// the last micro-batch only.
// CHECK-LABEL: func.func @loss_scaled_step(
// CHECK:         %[[E:.+]] = train.opt_state "loss_scale.exponent"
// CHECK-NEXT:    %[[S:.+]] = train.loss_scale %[[E]] {initial_scale = 6.553600e+04 : f64}
// CHECK-NEXT:    %[[SEED:.+]] = train.loss_scale %[[E]] {initial_scale = 3.276800e+04 : f64}
// CHECK-NEXT:    %[[DH:.+]] = train.mse_loss_grad %[[SEED]],
// CHECK-NEXT:    %[[DW:.+]] = train.matmul
// CHECK-NEXT:    %[[I:.+]] = train.opt_state "grad_accumulation.micro_batch"
// CHECK-NEXT:    %[[ACC:.+]] = train.opt_state "w.grad_accumulator" : tensor<4x4xf32>
// CHECK-NEXT:    train.accumulate %[[ACC]], %[[DW]] micro_batch(%[[I]] : tensor<i64>) : tensor<4x4xf32>, tensor<4x4xf16>
// CHECK-NEXT:    %[[FOUND:.+]] = train.any_nonfinite %[[ACC]] : tensor<4x4xf32> -> tensor<i1>
// CHECK-NEXT:    %[[SKIP:.+]] = train.micro_batch_skip %[[I]] or(%[[FOUND]] : tensor<i1>) {micro_batches = 2 : i64}
// CHECK-NEXT:    %[[NOTLAST:.+]] = train.micro_batch_skip %[[I]] {micro_batches = 2 : i64}
// CHECK:         train.adam %{{.+}}, %[[ACC]], {{.+}} unscale(%[[S]] : tensor<f32>) skip_if(%[[SKIP]] : tensor<i1>) skipped(
// CHECK:         train.loss_scale_update %[[E]], %{{.+}}, %{{.+}}, %[[FOUND]] skip_if(%[[NOTLAST]] : tensor<i1>)
// CHECK-NEXT:    train.micro_batch_advance %[[I]]
// CHECK-NEXT:    return
func.func @loss_scaled_step(%x: tensor<2x4xf16>, %y: tensor<2x4xf16>,
                            %step: tensor<i64>) -> tensor<f32> {
  %w = train.param "w" : tensor<4x4xf32>
  %wh = train.cast %w : tensor<4x4xf32> -> tensor<4x4xf16>
  %h = train.matmul %x, %wh : tensor<2x4xf16>, tensor<4x4xf16> -> tensor<2x4xf16>
  %loss = train.mse_loss %h, %y : tensor<2x4xf16>, tensor<2x4xf16> -> tensor<f32>
  %e = train.opt_state "loss_scale.exponent" : tensor<i64>
  %s = train.loss_scale %e {initial_scale = 6.553600e+04 : f64} : tensor<i64> -> tensor<f32>
  %dh = train.mse_loss_grad %s, %h, %y : tensor<f32>, tensor<2x4xf16>, tensor<2x4xf16> -> tensor<2x4xf16>
  %dw = train.matmul %x, %dh {transpose_lhs} : tensor<2x4xf16>, tensor<2x4xf16> -> tensor<4x4xf16>
  %found = train.any_nonfinite %dw : tensor<4x4xf16> -> tensor<i1>
  %skipped = train.opt_state "loss_scale.skipped_steps" : tensor<i64>
  %m = train.opt_state "w.exp_avg" : tensor<4x4xf32>
  %v = train.opt_state "w.exp_avg_sq" : tensor<4x4xf32>
  train.adam %w, %dw, %m, %v step(%step : tensor<i64>) unscale(%s : tensor<f32>) skip_if(%found : tensor<i1>) skipped(%skipped : tensor<i64>) {lr = 1.000000e-03 : f64} : tensor<4x4xf32>, tensor<4x4xf16>, tensor<4x4xf32>, tensor<4x4xf32>
  %tracker = train.opt_state "loss_scale.growth_tracker" : tensor<i64>
  train.loss_scale_update %e, %tracker, %skipped, %found {growth_interval = 2000 : i64} : tensor<i64>, tensor<i64>, tensor<i64>, tensor<i1>
  return %loss : tensor<f32>
}

// -----

// Static loss scaling: the seed is a constant copy of the scale times 1/2.
// CHECK-LABEL: func.func @static_scaled_step(
// CHECK:         %[[S:.+]] = arith.constant dense<1.024000e+03> : tensor<f32>
// CHECK-NEXT:    %[[SEED:.+]] = arith.constant dense<5.120000e+02> : tensor<f32>
// CHECK-NEXT:    train.mse_loss_grad %[[SEED]],
// CHECK:         train.accumulate %{{.+}}, %{{.+}} micro_batch(%{{.+}} : tensor<i64>) : tensor<4x4xf32>, tensor<4x4xf16>
// CHECK-NEXT:    train.sgd %{{.+}}, %{{.+}} unscale(%[[S]] : tensor<f32>) skip_if(
func.func @static_scaled_step(%x: tensor<2x4xf16>, %y: tensor<2x4xf16>) -> tensor<f32> {
  %w = train.param "w" : tensor<4x4xf32>
  %wh = train.cast %w : tensor<4x4xf32> -> tensor<4x4xf16>
  %h = train.matmul %x, %wh : tensor<2x4xf16>, tensor<4x4xf16> -> tensor<2x4xf16>
  %loss = train.mse_loss %h, %y : tensor<2x4xf16>, tensor<2x4xf16> -> tensor<f32>
  %s = arith.constant dense<1.024000e+03> : tensor<f32>
  %dh = train.mse_loss_grad %s, %h, %y : tensor<f32>, tensor<2x4xf16>, tensor<2x4xf16> -> tensor<2x4xf16>
  %dw = train.matmul %x, %dh {transpose_lhs} : tensor<2x4xf16>, tensor<2x4xf16> -> tensor<4x4xf16>
  train.sgd %w, %dw unscale(%s : tensor<f32>) {lr = 1.000000e-02 : f64} : tensor<4x4xf32>, tensor<4x4xf16>
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

// -----

// A step that already accumulates is not rewritten again.
func.func @twice(%dw: tensor<4x4xf32>) -> tensor<f32> {
  %w = train.param "w" : tensor<4x4xf32>
  %i = train.opt_state "grad_accumulation.micro_batch" : tensor<i64>
  %acc = train.opt_state "w.grad_accumulator" : tensor<4x4xf32>
  // expected-error @+1 {{'train.accumulate' op is already in the step: train-accumulate-gradients runs once on the step of one micro-batch}}
  train.accumulate %acc, %dw micro_batch(%i : tensor<i64>) : tensor<4x4xf32>, tensor<4x4xf32>
  train.sgd %w, %acc {lr = 1.000000e-02 : f64} : tensor<4x4xf32>, tensor<4x4xf32>
  %loss = arith.constant dense<0.000000e+00> : tensor<f32>
  return %loss : tensor<f32>
}

// -----

// Under loss scaling the check must read exactly the updates' gradients.
func.func @check_other_values(%dw: tensor<4x4xf16>, %other: tensor<4x4xf16>, %step: tensor<i64>) -> tensor<f32> {
  %w = train.param "w" : tensor<4x4xf32>
  %e = train.opt_state "loss_scale.exponent" : tensor<i64>
  %s = train.loss_scale %e {initial_scale = 6.553600e+04 : f64} : tensor<i64> -> tensor<f32>
  // expected-error @+1 {{'train.any_nonfinite' op does not check exactly the gradients of the step's 1 updates, one each; gradient accumulation under loss scaling checks their accumulated buffers instead}}
  %found = train.any_nonfinite %dw, %other : tensor<4x4xf16>, tensor<4x4xf16> -> tensor<i1>
  train.sgd %w, %dw unscale(%s : tensor<f32>) skip_if(%found : tensor<i1>) {lr = 1.000000e-02 : f64} : tensor<4x4xf32>, tensor<4x4xf16>
  %loss = arith.constant dense<0.000000e+00> : tensor<f32>
  return %loss : tensor<f32>
}

// -----

// The skip flag must come from train.any_nonfinite.
func.func @flag_argument(%dw: tensor<4x4xf32>, %flag: tensor<i1>) -> tensor<f32> {
  %w = train.param "w" : tensor<4x4xf32>
  // expected-error @+1 {{'train.sgd' op skips on a flag that is not a train.any_nonfinite; gradient accumulation under loss scaling checks the accumulated gradients for inf/NaN instead, and cannot rewrite another flag}}
  train.sgd %w, %dw skip_if(%flag : tensor<i1>) {lr = 1.000000e-02 : f64} : tensor<4x4xf32>, tensor<4x4xf32>
  %loss = arith.constant dense<0.000000e+00> : tensor<f32>
  return %loss : tensor<f32>
}

// -----

// All updates skip on one flag, or none does.
func.func @flag_some(%da: tensor<4x4xf32>, %db: tensor<4x4xf32>) -> tensor<f32> {
  %a = train.param "a" : tensor<4x4xf32>
  %b = train.param "b" : tensor<4x4xf32>
  %found = train.any_nonfinite %da : tensor<4x4xf32> -> tensor<i1>
  train.sgd %a, %da skip_if(%found : tensor<i1>) {lr = 1.000000e-02 : f64} : tensor<4x4xf32>, tensor<4x4xf32>
  // expected-error @+1 {{'train.sgd' op skips on another flag than the step's first update; gradient accumulation needs one skip_if flag for all the updates (dynamic loss scaling's) or none}}
  train.sgd %b, %db {lr = 1.000000e-02 : f64} : tensor<4x4xf32>, tensor<4x4xf32>
  %loss = arith.constant dense<0.000000e+00> : tensor<f32>
  return %loss : tensor<f32>
}

// -----

// All updates unscale by one value, or none does.
func.func @unscale_some(%da: tensor<4x4xf32>, %db: tensor<4x4xf32>) -> tensor<f32> {
  %a = train.param "a" : tensor<4x4xf32>
  %b = train.param "b" : tensor<4x4xf32>
  %s = arith.constant dense<1.024000e+03> : tensor<f32>
  train.sgd %a, %da unscale(%s : tensor<f32>) {lr = 1.000000e-02 : f64} : tensor<4x4xf32>, tensor<4x4xf32>
  // expected-error @+1 {{'train.sgd' op unscales by another value than the step's first update; gradient accumulation needs one loss scale for all the updates or none}}
  train.sgd %b, %db {lr = 1.000000e-02 : f64} : tensor<4x4xf32>, tensor<4x4xf32>
  %loss = arith.constant dense<0.000000e+00> : tensor<f32>
  return %loss : tensor<f32>
}

// -----

// A scale the pass cannot copy (a step argument) for the seed.
func.func @unscale_argument(%dw: tensor<4x4xf32>, %s: tensor<f32>) -> tensor<f32> {
  %w = train.param "w" : tensor<4x4xf32>
  // expected-error @+1 {{'train.sgd' op unscales by a value that is neither a train.loss_scale nor a constant; gradient accumulation scales the backward's seed by 1 / micro-batches and cannot rewrite it}}
  train.sgd %w, %dw unscale(%s : tensor<f32>) {lr = 1.000000e-02 : f64} : tensor<4x4xf32>, tensor<4x4xf32>
  %loss = arith.constant dense<0.000000e+00> : tensor<f32>
  return %loss : tensor<f32>
}

// -----

// An update already on the host (train-offload): offload comes after.
func.func @offloaded(%dw: tensor<4x4xf32>) -> tensor<f32> {
  %w = train.param "w" {train.space = "host"} : tensor<4x4xf32>
  %h = train.to_host %dw : tensor<4x4xf32>
  // expected-error @+1 {{'train.sgd' op runs on the host (train-offload): apply train-accumulate-gradients first, then train-offload, which moves the accumulation to the host with the updates}}
  train.sgd %w, %h {lr = 1.000000e-02 : f64, train.space = "host"} : tensor<4x4xf32>, tensor<4x4xf32>
  %loss = arith.constant dense<0.000000e+00> : tensor<f32>
  return %loss : tensor<f32>
}
