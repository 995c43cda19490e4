// train.slice in f64; the gradient rule is slice_grad, which scatters
// dresult into a zero tensor of the input shape at the window's offsets and
// strides (untouched elements get a zero gradient). Checked:
// - strided: rows 1, 3 and columns 2, 4, 6 of a 5 x 7 parameter
//   (offsets [1, 2], strides [2, 2]);
// - rank3: offsets [0, 1, 1], strides [1, 3, 2] of a 2 x 6 x 5 parameter
//   (2 x 2 x 2), together with an overlapping unstrided 1 x 3 x 4 window of
//   the same parameter, so the two scattered gradients add up.
// The slices are squared so that the loss is not linear.
// RUN: mem-run %s --func=strided --check-gradients --gradcheck-samples=100 | FileCheck %s --check-prefix=STRIDED
// RUN: mem-run %s --func=rank3 --check-gradients --gradcheck-samples=100 | FileCheck %s --check-prefix=RANK3
// STRIDED: gradcheck strided.x: 35 elements
// STRIDED: gradcheck: passed, 1 parameters, 35 elements
// RANK3: gradcheck rank3.x: 60 elements
// RANK3: gradcheck: passed, 1 parameters, 60 elements

func.func @strided(%r: tensor<2x3xf64>) -> tensor<f64> {
  %x = train.param "strided.x" : tensor<5x7xf64>
  %s = train.slice %x {offsets = array<i64: 1, 2>, strides = array<i64: 2, 2>} : tensor<5x7xf64> -> tensor<2x3xf64>
  %s2 = train.mul %s, %s : tensor<2x3xf64>
  %y = train.mul %s2, %r : tensor<2x3xf64>
  %l = train.reduce_sum %y {dims = array<i64: 0, 1>} : tensor<2x3xf64> -> tensor<f64>
  return %l : tensor<f64>
}

func.func @rank3(%r: tensor<2x2x2xf64>, %r2: tensor<1x3x4xf64>) -> tensor<f64> {
  %x = train.param "rank3.x" : tensor<2x6x5xf64>
  %s = train.slice %x {offsets = array<i64: 0, 1, 1>, strides = array<i64: 1, 3, 2>} : tensor<2x6x5xf64> -> tensor<2x2x2xf64>
  %s2 = train.mul %s, %s : tensor<2x2x2xf64>
  %y = train.mul %s2, %r : tensor<2x2x2xf64>
  %l1 = train.reduce_sum %y {dims = array<i64: 0, 1, 2>} : tensor<2x2x2xf64> -> tensor<f64>
  %t = train.slice %x {offsets = array<i64: 1, 1, 0>} : tensor<2x6x5xf64> -> tensor<1x3x4xf64>
  %t2 = train.mul %t, %t : tensor<1x3x4xf64>
  %z = train.mul %t2, %r2 : tensor<1x3x4xf64>
  %l2 = train.reduce_sum %z {dims = array<i64: 0, 1, 2>} : tensor<1x3x4xf64> -> tensor<f64>
  %l = train.add %l1, %l2 : tensor<f64>
  return %l : tensor<f64>
}
