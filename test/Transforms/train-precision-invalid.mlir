// RUN: mem-opt %s -split-input-file -verify-diagnostics --train-precision
// RUN: not mem-opt %s --train-precision='mode=fp4' 2>&1 | FileCheck %s --check-prefix=MODE
// RUN: not mem-opt %s --train-precision='mode=bf16-mixed grads=fp16' 2>&1 | FileCheck %s --check-prefix=GRADS
// RUN: not mem-opt %s --train-precision='mode=bf16-mixed loss-scale=1024' 2>&1 | FileCheck %s --check-prefix=BF16SCALE
// RUN: not mem-opt %s --train-precision='mode=fp16-mixed loss-scale=big' 2>&1 | FileCheck %s --check-prefix=SCALE
// RUN: not mem-opt %s --train-precision='mode=fp16-mixed growth-interval=0' 2>&1 | FileCheck %s --check-prefix=INTERVAL
// RUN: not mem-opt %s --train-precision='mode=fp8 amax-history=0' 2>&1 | FileCheck %s --check-prefix=HISTORY
// RUN: not mem-opt %s --train-precision='mode=fp8 margin=65' 2>&1 | FileCheck %s --check-prefix=HISTORY
// RUN: not mem-opt %s --train-precision='mode=bf16-mixed margin=1' 2>&1 | FileCheck %s --check-prefix=NOTFP8
// RUN: not mem-opt %s --train-precision='mode=fp8 loss-scale=dynamic' 2>&1 | FileCheck %s --check-prefix=BF16SCALE
// RUN: not mem-opt %s --train-precision='mode=fp16-mixed loss-scale=1e30' 2>&1 | FileCheck %s --check-prefix=HUGESCALE
// RUN: not mem-opt %s --train-precision='mode=fp16-mixed loss-scale=65505' 2>&1 | FileCheck %s --check-prefix=HUGESCALE
// RUN: not mem-opt %s --train-precision='mode=fp16-mixed initial-scale=1e300' 2>&1 | FileCheck %s --check-prefix=HUGEINITIAL

// MODE: {{^}}mem-opt: error: train-precision: unknown mode 'fp4'; expected one of fp32, bf16-mixed, fp16-mixed, bf16-pure, fp8{{$}}
// GRADS: error: train-precision: grads='fp16' does not fit mode=bf16-mixed; expected fp32 or bf16{{$}}
// BF16SCALE: error: train-precision: loss-scale applies to mode=fp16-mixed only (bf16 has fp32's exponent range and needs no loss scaling){{$}}
// SCALE: error: train-precision: loss-scale='big' is not dynamic, none or a positive number{{$}}
// INTERVAL: error: train-precision: initial-scale must be a positive number and growth-interval at least 1{{$}}
// HISTORY: error: train-precision: amax-history must be at least 1 and margin in [0, 64]{{$}}
// NOTFP8: error: train-precision: amax-history and margin apply to mode=fp8 only{{$}}
// HUGESCALE: error: train-precision: loss-scale={{1e30|65505}} is above fp16's largest value 65504: the scaled gradients would overflow fp16 to inf and the parameters become NaN (give a static scale of at most 65504, or loss-scale=dynamic){{$}}
// HUGEINITIAL: error: train-precision: initial-scale=1.000000e+300 is above f32's largest value 3.402823e+38 (the dynamic scale is computed in f32: it would be inf, and the steps would be skipped until it backed off into range){{$}}

// Applied twice.
// expected-error @+1 {{was already lowered by train-precision ({grads = "fp32", mode = "bf16-mixed"}); apply it once, to the fp32 program}}
func.func @twice(%x: tensor<4xf32>) -> tensor<f32> attributes {train.precision = {grads = "fp32", mode = "bf16-mixed"}} {
  %w = train.param "w" : tensor<4xf32>
  %y = train.mul %x, %w : tensor<4xf32>
  %l = train.reduce_sum %y {dims = array<i64: 0>} : tensor<4xf32> -> tensor<f32>
  return %l : tensor<f32>
}

// -----

// A program already in low precision: the pass chooses the precisions of an
// fp32 program, it does not guess which casts were meant.
func.func @already_low(%x: tensor<4xf32>) -> tensor<f32> {
  // expected-error @+1 {{'train.param' op train-precision lowers fp32 programs, but this tensor is 'bf16'; generate the program in fp32 (mem-gen without --dtype) and let the pass choose the precisions}}
  %w = train.param "w" : tensor<4xbf16>
  %x16 = train.cast %x : tensor<4xf32> -> tensor<4xbf16>
  %y = train.mul %x16, %w : tensor<4xbf16>
  %l = train.reduce_sum %y {dims = array<i64: 0>} : tensor<4xbf16> -> tensor<bf16>
  %f = train.cast %l : tensor<bf16> -> tensor<f32>
  return %f : tensor<f32>
}

// -----

func.func @low_argument(
    // expected-error @+1 {{argument #0: train-precision lowers fp32 programs, but this tensor is 'f16'}}
    %x: tensor<4xf16>) -> tensor<f32> {
  %l = train.reduce_sum %x {dims = array<i64: 0>} : tensor<4xf16> -> tensor<f16>
  %f = train.cast %l : tensor<f16> -> tensor<f32>
  return %f : tensor<f32>
}

// -----

// A step changed after train-autodiff (here by train-lifetimes' frees) is not
// re-derived: that would silently drop the change.
// expected-error @+1 {{@changed is not the step train-autodiff derives from its forward pass}}
func.func @changed(%x: tensor<4xf32>, %t: tensor<i64> {train.step}) -> tensor<f32> {
  %w = train.param "w" : tensor<4xf32>
  %y = train.mul %x, %w : tensor<4xf32>
  %l = train.reduce_sum %y {dims = array<i64: 0>} : tensor<4xf32> -> tensor<f32>
  %one = arith.constant dense<1.0> : tensor<f32>
  %dy = train.broadcast %one {dims = array<i64: 0>} : tensor<f32> -> tensor<4xf32>
  %dw = train.mul %dy, %x : tensor<4xf32>
  train.free %dy : tensor<4xf32>
  %m = train.opt_state "w.exp_avg" : tensor<4xf32>
  %v = train.opt_state "w.exp_avg_sq" : tensor<4xf32>
  train.adam %w, %dw, %m, %v step(%t : tensor<i64>) {lr = 1.0e-3 : f64} : tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>
  return %l : tensor<f32>
}

// -----

// Two updates with different settings: train-autodiff never writes that, so
// the step cannot be derived again.
func.func @mixed_optimizers(%x: tensor<4xf32>, %t: tensor<i64> {train.step}) -> tensor<f32> {
  %w = train.param "w" : tensor<4xf32>
  %u = train.param "u" : tensor<4xf32>
  %y = train.mul %x, %w : tensor<4xf32>
  %z = train.mul %y, %u : tensor<4xf32>
  %l = train.reduce_sum %z {dims = array<i64: 0>} : tensor<4xf32> -> tensor<f32>
  %m = train.opt_state "w.exp_avg" : tensor<4xf32>
  %v = train.opt_state "w.exp_avg_sq" : tensor<4xf32>
  // expected-note @+1 {{the first update}}
  train.adam %w, %x, %m, %v step(%t : tensor<i64>) {lr = 1.0e-3 : f64} : tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>
  // expected-error @+1 {{has other optimizer settings than the first update of the step}}
  train.sgd %u, %x {lr = 1.0e-2 : f64} : tensor<4xf32>, tensor<4xf32>
  return %l : tensor<f32>
}

// -----

// A malformed record.
// expected-error @+1 {{'train.precision' needs a 'mode': fp32, bf16-mixed, fp16-mixed, bf16-pure or fp8}}
func.func @bad_record(%x: tensor<4xf32>) -> tensor<f32> attributes {train.precision = {grads = "fp32"}} {
  %l = train.reduce_sum %x {dims = array<i64: 0>} : tensor<4xf32> -> tensor<f32>
  return %l : tensor<f32>
}
