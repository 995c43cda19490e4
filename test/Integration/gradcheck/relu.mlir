// train.relu in f64: the gradient rule masks dresult by `result > 0` (the
// saved output). The input is a parameter shifted by a bias parameter, so
// both are checked; with these parameter values the smallest |pre-activation|
// is 2.5e-3 (17 of 24 positive, 7 clamped), far from the kink at 0 compared
// with the finite-difference step 1e-6, so the loss is smooth at every
// sampled point.
// RUN: mem-run %s --check-gradients --gradcheck-samples=100 | FileCheck %s
// CHECK: gradcheck x: 24 elements
// CHECK: gradcheck b: 6 elements
// CHECK: gradcheck: passed, 2 parameters, 30 elements

func.func @f(%r: tensor<4x6xf64>) -> tensor<f64> {
  %x = train.param "x" : tensor<4x6xf64>
  %b = train.param "b" : tensor<6xf64>
  %h = train.bias_add %x, %b : tensor<4x6xf64>, tensor<6xf64> -> tensor<4x6xf64>
  %a = train.relu %h : tensor<4x6xf64>
  // Squared, so that the loss is not piecewise linear.
  %a2 = train.mul %a, %a : tensor<4x6xf64>
  %y = train.mul %a2, %r : tensor<4x6xf64>
  %l = train.reduce_sum %y {dims = array<i64: 0, 1>} : tensor<4x6xf64> -> tensor<f64>
  return %l : tensor<f64>
}
