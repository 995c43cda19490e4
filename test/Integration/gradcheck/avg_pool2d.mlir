// train.avg_pool2d in f64 (count_include_pad: padded zeros count in the
// mean); the gradient rule is avg_pool2d_grad, which spreads dresult / (KH *
// KW) over each window. Checked with overlapping windows (stride < kernel)
// and zero padding. Every input element is checked. The pooled values are
// squared so that the loss is not linear.
// RUN: mem-run %s --func=overlap --check-gradients --gradcheck-samples=400 | FileCheck %s --check-prefix=OVERLAP
// RUN: mem-run %s --func=rect --check-gradients --gradcheck-samples=400 | FileCheck %s --check-prefix=RECT
// OVERLAP: gradcheck overlap.x: 336 elements
// OVERLAP: gradcheck: passed, 1 parameters, 336 elements
// RECT: gradcheck rect.x: 90 elements
// RECT: gradcheck: passed, 1 parameters, 90 elements

// overlap: kernel 3 x 3, strides 2, padding 1; tensor<2x3x7x8xf64> ->
// tensor<2x3x4x4xf64>.
func.func @overlap(%r: tensor<2x3x4x4xf64>) -> tensor<f64> {
  %x = train.param "overlap.x" : tensor<2x3x7x8xf64>
  %p = train.avg_pool2d %x {kernel = array<i64: 3, 3>, strides = array<i64: 2, 2>, padding = array<i64: 1, 1>} : tensor<2x3x7x8xf64> -> tensor<2x3x4x4xf64>
  %p2 = train.mul %p, %p : tensor<2x3x4x4xf64>
  %z = train.mul %p2, %r : tensor<2x3x4x4xf64>
  %l = train.reduce_sum %z {dims = array<i64: 0, 1, 2, 3>} : tensor<2x3x4x4xf64> -> tensor<f64>
  return %l : tensor<f64>
}

// rect: kernel 2 x 3, strides [1, 2], padding [0, 1]; tensor<1x2x5x9xf64> ->
// tensor<1x2x4x5xf64>.
func.func @rect(%r: tensor<1x2x4x5xf64>) -> tensor<f64> {
  %x = train.param "rect.x" : tensor<1x2x5x9xf64>
  %p = train.avg_pool2d %x {kernel = array<i64: 2, 3>, strides = array<i64: 1, 2>, padding = array<i64: 0, 1>} : tensor<1x2x5x9xf64> -> tensor<1x2x4x5xf64>
  %p2 = train.mul %p, %p : tensor<1x2x4x5xf64>
  %z = train.mul %p2, %r : tensor<1x2x4x5xf64>
  %l = train.reduce_sum %z {dims = array<i64: 0, 1, 2, 3>} : tensor<1x2x4x5xf64> -> tensor<f64>
  return %l : tensor<f64>
}
