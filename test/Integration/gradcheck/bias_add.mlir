// train.bias_add in f64, with the input and the bias both parameters:
// dinput = dresult, dbias = reduce_sum of dresult over every dimension but
// `dim`. Checked for dim = 1 (NCHW channels of a rank-4 input) and for the
// default dim = -1 (the last dimension of a rank-3 input).
// RUN: mem-run %s --func=channel --check-gradients --gradcheck-samples=200 | FileCheck %s --check-prefix=DIM1
// RUN: mem-run %s --func=last --check-gradients --gradcheck-samples=200 | FileCheck %s --check-prefix=LAST
// DIM1: gradcheck dim1.x: 120 elements
// DIM1: gradcheck dim1.b: 3 elements
// DIM1: gradcheck: passed, 2 parameters, 123 elements
// LAST: gradcheck last.x: 60 elements
// LAST: gradcheck last.b: 5 elements
// LAST: gradcheck: passed, 2 parameters, 65 elements

func.func @channel(%r: tensor<2x3x4x5xf64>) -> tensor<f64> {
  %x = train.param "dim1.x" : tensor<2x3x4x5xf64>
  %b = train.param "dim1.b" : tensor<3xf64>
  %y = train.bias_add %x, %b {dim = 1 : i64} : tensor<2x3x4x5xf64>, tensor<3xf64> -> tensor<2x3x4x5xf64>
  // Squared, so that the bias gradient depends on the bias value.
  %y2 = train.mul %y, %y : tensor<2x3x4x5xf64>
  %z = train.mul %y2, %r : tensor<2x3x4x5xf64>
  %l = train.reduce_sum %z {dims = array<i64: 0, 1, 2, 3>} : tensor<2x3x4x5xf64> -> tensor<f64>
  return %l : tensor<f64>
}

func.func @last(%r: tensor<3x4x5xf64>) -> tensor<f64> {
  %x = train.param "last.x" : tensor<3x4x5xf64>
  %b = train.param "last.b" : tensor<5xf64>
  %y = train.bias_add %x, %b {dim = -1 : i64} : tensor<3x4x5xf64>, tensor<5xf64> -> tensor<3x4x5xf64>
  %y2 = train.mul %y, %y : tensor<3x4x5xf64>
  %z = train.mul %y2, %r : tensor<3x4x5xf64>
  %l = train.reduce_sum %z {dims = array<i64: 0, 1, 2>} : tensor<3x4x5xf64> -> tensor<f64>
  return %l : tensor<f64>
}
