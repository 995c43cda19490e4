// train.transpose in f64; the gradient rule transposes dresult by the
// inverse permutation. Checked with a 3-cycle [2, 0, 1] on a 2 x 3 x 4
// parameter (its inverse [1, 2, 0] differs from it, so transposing by the
// permutation itself would show) and with [0, 3, 1, 2] on a 2 x 3 x 4 x 5
// parameter. The transposed tensor is multiplied elementwise with a
// parameter of the transposed shape (so both operand layouts matter) and the
// product is squared.
// RUN: mem-run %s --func=cycle --check-gradients --gradcheck-samples=200 | FileCheck %s --check-prefix=CYCLE
// RUN: mem-run %s --func=rank4 --check-gradients --gradcheck-samples=200 | FileCheck %s --check-prefix=RANK4
// CYCLE: gradcheck cycle.x: 24 elements
// CYCLE: gradcheck cycle.w: 24 elements
// CYCLE: gradcheck: passed, 2 parameters, 48 elements
// RANK4: gradcheck rank4.x: 120 elements
// RANK4: gradcheck: passed, 1 parameters, 120 elements

func.func @cycle(%r: tensor<4x2x3xf64>) -> tensor<f64> {
  %x = train.param "cycle.x" : tensor<2x3x4xf64>
  %w = train.param "cycle.w" : tensor<4x2x3xf64>
  %t = train.transpose %x {permutation = array<i64: 2, 0, 1>} : tensor<2x3x4xf64> -> tensor<4x2x3xf64>
  %p = train.mul %t, %w : tensor<4x2x3xf64>
  %p2 = train.mul %p, %p : tensor<4x2x3xf64>
  %y = train.mul %p2, %r : tensor<4x2x3xf64>
  %l = train.reduce_sum %y {dims = array<i64: 0, 1, 2>} : tensor<4x2x3xf64> -> tensor<f64>
  return %l : tensor<f64>
}

func.func @rank4(%r: tensor<2x5x3x4xf64>) -> tensor<f64> {
  %x = train.param "rank4.x" : tensor<2x3x4x5xf64>
  %t = train.transpose %x {permutation = array<i64: 0, 3, 1, 2>} : tensor<2x3x4x5xf64> -> tensor<2x5x3x4xf64>
  %t2 = train.mul %t, %t : tensor<2x5x3x4xf64>
  %y = train.mul %t2, %r : tensor<2x5x3x4xf64>
  %l = train.reduce_sum %y {dims = array<i64: 0, 1, 2, 3>} : tensor<2x5x3x4xf64> -> tensor<f64>
  return %l : tensor<f64>
}
