// train.cast: the gradient rule passes dresult straight through, cast back
// to the input's element type. That is the true derivative only for a
// widening cast (exact, derivative 1); for a narrowing cast it is the
// straight-through convention, which finite differences reject (see
// checker-can-fail.mlir), so only widening casts are checked here: an f32
// parameter cast to f64, and an f16 parameter cast to f64, each followed by
// silu and a weighted sum in f64.
//
// Tolerances: the parameters are not f64, so mem-run defaults to step 1e-3,
// rtol 2e-2 and atol 1e-3. For f32 the loss is computed in f64, so the
// f32-sized step is only needed to be representable: with
// --gradcheck-step=1e-5 (the checker divides by the perturbation actually
// stored in f32) the truncation error of central differences, 4e-5 relative
// with h = 1e-3, drops far below the rounding of the gradient to f32
// (2^-24 relative), and the much tighter --gradcheck-rtol=1e-5
// --gradcheck-atol=1e-7 holds. For f16 the gradient is rounded to f16
// (2^-11 relative) and a step must exceed the f16 spacing (1.2e-4 near
// 0.2), so the f16 run keeps the defaults.
// RUN: mem-run %s --func=from_f32 --check-gradients --gradcheck-samples=100 --gradcheck-step=1e-5 --gradcheck-rtol=1e-5 --gradcheck-atol=1e-7 | FileCheck %s --check-prefix=F32
// RUN: mem-run %s --func=from_f16 --check-gradients --gradcheck-samples=100 | FileCheck %s --check-prefix=F16
// F32: gradcheck f32.w: 15 elements
// F32: gradcheck: passed, 1 parameters, 15 elements
// F16: gradcheck f16.w: 24 elements
// F16: gradcheck: passed, 1 parameters, 24 elements

func.func @from_f32(%r: tensor<3x5xf64>) -> tensor<f64> {
  %w = train.param "f32.w" : tensor<3x5xf32>
  %c = train.cast %w : tensor<3x5xf32> -> tensor<3x5xf64>
  %s = train.scale %c {factor = 3.000000e+00 : f64} : tensor<3x5xf64>
  %a = train.silu %s : tensor<3x5xf64>
  %y = train.mul %a, %r : tensor<3x5xf64>
  %l = train.reduce_sum %y {dims = array<i64: 0, 1>} : tensor<3x5xf64> -> tensor<f64>
  return %l : tensor<f64>
}

func.func @from_f16(%r: tensor<4x6xf64>) -> tensor<f64> {
  %w = train.param "f16.w" : tensor<4x6xf16>
  %c = train.cast %w : tensor<4x6xf16> -> tensor<4x6xf64>
  %s = train.scale %c {factor = 3.000000e+00 : f64} : tensor<4x6xf64>
  %a = train.silu %s : tensor<4x6xf64>
  %y = train.mul %a, %r : tensor<4x6xf64>
  %l = train.reduce_sum %y {dims = array<i64: 0, 1>} : tensor<4x6xf64> -> tensor<f64>
  return %l : tensor<f64>
}
