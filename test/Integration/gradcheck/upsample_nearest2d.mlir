// train.upsample_nearest2d in f64; the gradient rule is
// upsample_nearest2d_grad, which sums dresult over each scale x scale block.
// Checked with scale 2 (2 x 3 x 4 x 5 -> 2 x 3 x 8 x 10) and scale 3
// (1 x 2 x 3 x 2 -> 1 x 2 x 9 x 6). The upsampled values are squared so that
// the loss is not linear.
// RUN: mem-run %s --func=two --check-gradients --gradcheck-samples=200 | FileCheck %s --check-prefix=TWO
// RUN: mem-run %s --func=three --check-gradients --gradcheck-samples=200 | FileCheck %s --check-prefix=THREE
// TWO: gradcheck two.x: 120 elements
// TWO: gradcheck: passed, 1 parameters, 120 elements
// THREE: gradcheck three.x: 12 elements
// THREE: gradcheck: passed, 1 parameters, 12 elements

func.func @two(%r: tensor<2x3x8x10xf64>) -> tensor<f64> {
  %x = train.param "two.x" : tensor<2x3x4x5xf64>
  %u = train.upsample_nearest2d %x {scale = 2 : i64} : tensor<2x3x4x5xf64> -> tensor<2x3x8x10xf64>
  %u2 = train.mul %u, %u : tensor<2x3x8x10xf64>
  %y = train.mul %u2, %r : tensor<2x3x8x10xf64>
  %l = train.reduce_sum %y {dims = array<i64: 0, 1, 2, 3>} : tensor<2x3x8x10xf64> -> tensor<f64>
  return %l : tensor<f64>
}

func.func @three(%r: tensor<1x2x9x6xf64>) -> tensor<f64> {
  %x = train.param "three.x" : tensor<1x2x3x2xf64>
  %u = train.upsample_nearest2d %x {scale = 3 : i64} : tensor<1x2x3x2xf64> -> tensor<1x2x9x6xf64>
  %u2 = train.mul %u, %u : tensor<1x2x9x6xf64>
  %y = train.mul %u2, %r : tensor<1x2x9x6xf64>
  %l = train.reduce_sum %y {dims = array<i64: 0, 1, 2, 3>} : tensor<1x2x9x6xf64> -> tensor<f64>
  return %l : tensor<f64>
}
