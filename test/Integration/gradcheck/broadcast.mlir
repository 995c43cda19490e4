// train.broadcast in f64; the gradient rule sums dresult over the new
// dimensions (reduce_sum). Checked broadcasting a 3 x 5 parameter along new
// dims [0, 2] to 2 x 3 x 4 x 5, and a 4-vector along a new last dim to 4 x 6.
// The broadcast tensor is squared so that the loss is not linear.
// RUN: mem-run %s --func=outer --check-gradients --gradcheck-samples=100 | FileCheck %s --check-prefix=OUTER
// RUN: mem-run %s --func=inner --check-gradients --gradcheck-samples=100 | FileCheck %s --check-prefix=INNER
// OUTER: gradcheck outer.x: 15 elements
// OUTER: gradcheck: passed, 1 parameters, 15 elements
// INNER: gradcheck inner.x: 4 elements
// INNER: gradcheck: passed, 1 parameters, 4 elements

func.func @outer(%r: tensor<2x3x4x5xf64>) -> tensor<f64> {
  %x = train.param "outer.x" : tensor<3x5xf64>
  %b = train.broadcast %x {dims = array<i64: 0, 2>} : tensor<3x5xf64> -> tensor<2x3x4x5xf64>
  %b2 = train.mul %b, %b : tensor<2x3x4x5xf64>
  %y = train.mul %b2, %r : tensor<2x3x4x5xf64>
  %l = train.reduce_sum %y {dims = array<i64: 0, 1, 2, 3>} : tensor<2x3x4x5xf64> -> tensor<f64>
  return %l : tensor<f64>
}

func.func @inner(%r: tensor<4x6xf64>) -> tensor<f64> {
  %x = train.param "inner.x" : tensor<4xf64>
  %b = train.broadcast %x {dims = array<i64: 1>} : tensor<4xf64> -> tensor<4x6xf64>
  %b2 = train.mul %b, %b : tensor<4x6xf64>
  %y = train.mul %b2, %r : tensor<4x6xf64>
  %l = train.reduce_sum %y {dims = array<i64: 0, 1>} : tensor<4x6xf64> -> tensor<f64>
  return %l : tensor<f64>
}
