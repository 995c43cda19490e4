// train.rotary (RoPE) in f64; the gradient rule is rotary_grad, the inverse
// rotation. Checked on a 2 x 3 x 5 x 6 input (S = 5, D = 6) with the default
// theta and on a rank-2 4 x 8 input with theta = 50. The rotated tensor is
// squared so that the loss is not linear in the input.
// RUN: mem-run %s --func=rank4 --check-gradients --gradcheck-samples=200 | FileCheck %s --check-prefix=RANK4
// RUN: mem-run %s --func=rank2 --check-gradients --gradcheck-samples=200 | FileCheck %s --check-prefix=RANK2
// RANK4: gradcheck rank4.x: 180 elements
// RANK4: gradcheck: passed, 1 parameters, 180 elements
// RANK2: gradcheck rank2.x: 32 elements
// RANK2: gradcheck: passed, 1 parameters, 32 elements

func.func @rank4(%r: tensor<2x3x5x6xf64>) -> tensor<f64> {
  %x = train.param "rank4.x" : tensor<2x3x5x6xf64>
  %y = train.rotary %x : tensor<2x3x5x6xf64>
  %y2 = train.mul %y, %y : tensor<2x3x5x6xf64>
  %z = train.mul %y2, %r : tensor<2x3x5x6xf64>
  %l = train.reduce_sum %z {dims = array<i64: 0, 1, 2, 3>} : tensor<2x3x5x6xf64> -> tensor<f64>
  return %l : tensor<f64>
}

func.func @rank2(%r: tensor<4x8xf64>) -> tensor<f64> {
  %x = train.param "rank2.x" : tensor<4x8xf64>
  %y = train.rotary %x {theta = 5.000000e+01 : f64} : tensor<4x8xf64>
  %y2 = train.mul %y, %y : tensor<4x8xf64>
  %z = train.mul %y2, %r : tensor<4x8xf64>
  %l = train.reduce_sum %z {dims = array<i64: 0, 1>} : tensor<4x8xf64> -> tensor<f64>
  return %l : tensor<f64>
}
