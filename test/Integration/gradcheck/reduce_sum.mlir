// train.reduce_sum in f64; the gradient rule broadcasts dresult back over
// the reduced dimensions. Checked reducing dims [0, 2] of a 2 x 3 x 4 x 5
// parameter (non-adjacent dimensions, keeping 3 x 5) and reducing the last
// dim of a 3 x 4 parameter. The partial sums are squared so that the
// upstream gradient differs per kept element.
// RUN: mem-run %s --func=outer --check-gradients --gradcheck-samples=200 | FileCheck %s --check-prefix=OUTER
// RUN: mem-run %s --func=inner --check-gradients --gradcheck-samples=200 | FileCheck %s --check-prefix=INNER
// OUTER: gradcheck outer.x: 120 elements
// OUTER: gradcheck: passed, 1 parameters, 120 elements
// INNER: gradcheck inner.x: 12 elements
// INNER: gradcheck: passed, 1 parameters, 12 elements

func.func @outer(%r: tensor<3x5xf64>) -> tensor<f64> {
  %x = train.param "outer.x" : tensor<2x3x4x5xf64>
  %s = train.reduce_sum %x {dims = array<i64: 0, 2>} : tensor<2x3x4x5xf64> -> tensor<3x5xf64>
  %s2 = train.mul %s, %s : tensor<3x5xf64>
  %y = train.mul %s2, %r : tensor<3x5xf64>
  %l = train.reduce_sum %y {dims = array<i64: 0, 1>} : tensor<3x5xf64> -> tensor<f64>
  return %l : tensor<f64>
}

func.func @inner(%r: tensor<3xf64>) -> tensor<f64> {
  %x = train.param "inner.x" : tensor<3x4xf64>
  %s = train.reduce_sum %x {dims = array<i64: 1>} : tensor<3x4xf64> -> tensor<3xf64>
  %s2 = train.mul %s, %s : tensor<3xf64>
  %y = train.mul %s2, %r : tensor<3xf64>
  %l = train.reduce_sum %y {dims = array<i64: 0>} : tensor<3xf64> -> tensor<f64>
  return %l : tensor<f64>
}
