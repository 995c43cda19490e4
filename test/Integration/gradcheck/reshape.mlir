// train.reshape in f64; the gradient rule reshapes dresult back to the input
// shape. Checked in both lowerings:
// - view: a contiguous 2 x 3 x 4 parameter reshaped to 6 x 4 (a view);
// - copy: the parameter is transposed to 4 x 2 x 3 (perm [2, 0, 1]) and the
//   non-adjacent dims are merged to 8 x 3, which needs a copy;
// - split: a 12 x 5 parameter split to 3 x 4 x 5, transposed to 3 x 5 x 4
//   and merged to 15 x 4 (a copy of a view), then split again (a view).
// Each result is multiplied with a matrix parameter afterwards and squared,
// so the position of every element matters and the loss is not linear.
// RUN: mem-run %s --func=view --check-gradients --gradcheck-samples=100 | FileCheck %s --check-prefix=VIEW
// RUN: mem-run %s --func=copy --check-gradients --gradcheck-samples=100 | FileCheck %s --check-prefix=COPY
// RUN: mem-run %s --func=split --check-gradients --gradcheck-samples=100 | FileCheck %s --check-prefix=SPLIT
// VIEW: gradcheck view.x: 24 elements
// VIEW: gradcheck view.w: 20 elements
// VIEW: gradcheck: passed, 2 parameters, 44 elements
// COPY: gradcheck copy.x: 24 elements
// COPY: gradcheck copy.w: 15 elements
// COPY: gradcheck: passed, 2 parameters, 39 elements
// SPLIT: gradcheck split.x: 60 elements
// SPLIT: gradcheck: passed, 1 parameters, 60 elements

func.func @view(%r: tensor<6x5xf64>) -> tensor<f64> {
  %x = train.param "view.x" : tensor<2x3x4xf64>
  %w = train.param "view.w" : tensor<4x5xf64>
  %f = train.reshape %x : tensor<2x3x4xf64> -> tensor<6x4xf64>
  %h = train.matmul %f, %w : tensor<6x4xf64>, tensor<4x5xf64> -> tensor<6x5xf64>
  %h2 = train.mul %h, %h : tensor<6x5xf64>
  %y = train.mul %h2, %r : tensor<6x5xf64>
  %l = train.reduce_sum %y {dims = array<i64: 0, 1>} : tensor<6x5xf64> -> tensor<f64>
  return %l : tensor<f64>
}

func.func @copy(%r: tensor<8x5xf64>) -> tensor<f64> {
  %x = train.param "copy.x" : tensor<2x3x4xf64>
  %w = train.param "copy.w" : tensor<3x5xf64>
  %t = train.transpose %x {permutation = array<i64: 2, 0, 1>} : tensor<2x3x4xf64> -> tensor<4x2x3xf64>
  %f = train.reshape %t : tensor<4x2x3xf64> -> tensor<8x3xf64>
  %h = train.matmul %f, %w : tensor<8x3xf64>, tensor<3x5xf64> -> tensor<8x5xf64>
  %h2 = train.mul %h, %h : tensor<8x5xf64>
  %y = train.mul %h2, %r : tensor<8x5xf64>
  %l = train.reduce_sum %y {dims = array<i64: 0, 1>} : tensor<8x5xf64> -> tensor<f64>
  return %l : tensor<f64>
}

func.func @split(%r: tensor<3x5x4xf64>) -> tensor<f64> {
  %x = train.param "split.x" : tensor<12x5xf64>
  %s = train.reshape %x : tensor<12x5xf64> -> tensor<3x4x5xf64>
  %t = train.transpose %s {permutation = array<i64: 0, 2, 1>} : tensor<3x4x5xf64> -> tensor<3x5x4xf64>
  %m = train.reshape %t : tensor<3x5x4xf64> -> tensor<15x4xf64>
  %m2 = train.mul %m, %m : tensor<15x4xf64>
  %u = train.reshape %m2 : tensor<15x4xf64> -> tensor<3x5x4xf64>
  %y = train.mul %u, %r : tensor<3x5x4xf64>
  %l = train.reduce_sum %y {dims = array<i64: 0, 1, 2>} : tensor<3x5x4xf64> -> tensor<f64>
  return %l : tensor<f64>
}
