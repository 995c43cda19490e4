// The gradient checker must be able to fail. Rounding to bf16 and back is
// piecewise constant, so its true derivative is 0 almost everywhere, while
// train.cast's gradient rule passes the gradient straight through (the
// "straight-through" convention mixed-precision training relies on). The
// finite differences disagree with the analytic gradient, and mem-run says so
// with a non-zero exit.
// RUN: not mem-run %s --check-gradients > %t 2>&1
// RUN: FileCheck %s < %t
// CHECK: gradcheck w: 8 elements
// CHECK: gradcheck w[{{[0-9]+}}]: analytic {{.*}} numeric
// CHECK: gradcheck: FAILED, 1 parameters, 8 elements
// CHECK: mem-run: error: gradient check failed

func.func @f(%x: tensor<8xf64>) -> tensor<f64> {
  %w = train.param "w" : tensor<8xf64>
  %h = train.cast %w : tensor<8xf64> -> tensor<8xbf16>
  %back = train.cast %h : tensor<8xbf16> -> tensor<8xf64>
  %y = train.mul %back, %x : tensor<8xf64>
  %l = train.reduce_sum %y {dims = array<i64: 0>} : tensor<8xf64> -> tensor<f64>
  return %l : tensor<f64>
}
