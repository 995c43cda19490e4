// train.softmax in f64; the gradient rule is softmax_grad on the saved
// output (with the op's scale and axis). Checked on the default (last) axis,
// with `causal` and a scale on a 2 x 3 x 5 input (Q = 3 < K = 5, so the mask
// keeps j <= i + 2 and the masked inputs must get a zero gradient), and on a
// non-last axis (axis 1 of a rank-3 input) with a scale.
// RUN: mem-run %s --func=last --check-gradients --gradcheck-samples=100 | FileCheck %s --check-prefix=LAST
// RUN: mem-run %s --func=causal --check-gradients --gradcheck-samples=100 | FileCheck %s --check-prefix=CAUSAL
// RUN: mem-run %s --func=middle --check-gradients --gradcheck-samples=100 | FileCheck %s --check-prefix=MIDDLE
// LAST: gradcheck last.x: 24 elements
// LAST: gradcheck: passed, 1 parameters, 24 elements
// CAUSAL: gradcheck causal.x: 30 elements
// CAUSAL: gradcheck: passed, 1 parameters, 30 elements
// MIDDLE: gradcheck middle.x: 60 elements
// MIDDLE: gradcheck: passed, 1 parameters, 60 elements

func.func @last(%r: tensor<4x6xf64>) -> tensor<f64> {
  %x = train.param "last.x" : tensor<4x6xf64>
  %p = train.softmax %x : tensor<4x6xf64>
  %y = train.mul %p, %r : tensor<4x6xf64>
  %l = train.reduce_sum %y {dims = array<i64: 0, 1>} : tensor<4x6xf64> -> tensor<f64>
  return %l : tensor<f64>
}

func.func @causal(%r: tensor<2x3x5xf64>) -> tensor<f64> {
  %x = train.param "causal.x" : tensor<2x3x5xf64>
  %p = train.softmax %x {causal, scale = 2.500000e+00 : f64} : tensor<2x3x5xf64>
  %y = train.mul %p, %r : tensor<2x3x5xf64>
  %l = train.reduce_sum %y {dims = array<i64: 0, 1, 2>} : tensor<2x3x5xf64> -> tensor<f64>
  return %l : tensor<f64>
}

func.func @middle(%r: tensor<3x4x5xf64>) -> tensor<f64> {
  %x = train.param "middle.x" : tensor<3x4x5xf64>
  %p = train.softmax %x {axis = 1 : i64, scale = 1.700000e+00 : f64} : tensor<3x4x5xf64>
  %y = train.mul %p, %r : tensor<3x4x5xf64>
  %l = train.reduce_sum %y {dims = array<i64: 0, 1, 2>} : tensor<3x4x5xf64> -> tensor<f64>
  return %l : tensor<f64>
}
