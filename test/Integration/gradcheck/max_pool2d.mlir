// train.max_pool2d in f64; the gradient rule is max_pool2d_grad, which
// recomputes each window's argmax from the saved input and routes dresult
// there (accumulating where overlapping windows share their maximum).
// Checked with overlapping windows (stride < kernel) and zero padding, which
// never wins the max. The input is a parameter shifted per channel by a bias
// parameter (bias_add, dim 1), so that many windows hold only negative values
// (overlap: 32 of 96 windows, 20 of them with padding; rect: 12 of 40, 5
// with padding): there the max is negative and must still come from the
// input. Every input element is checked. With these parameter names the
// smallest gap between the two largest values of a window is 7.4e-5
// (overlap) and 2.4e-4 (rect), far above the finite-difference step 1e-6, so
// no perturbation changes an argmax. The pooled values are squared so that
// the loss is not linear.
// RUN: mem-run %s --func=overlap --check-gradients --gradcheck-samples=400 | FileCheck %s --check-prefix=OVERLAP
// RUN: mem-run %s --func=rect --check-gradients --gradcheck-samples=400 | FileCheck %s --check-prefix=RECT
// OVERLAP: gradcheck overlap.data: 336 elements
// OVERLAP: gradcheck overlap.b: 3 elements
// OVERLAP: gradcheck: passed, 2 parameters, 339 elements
// RECT: gradcheck rect.x: 90 elements
// RECT: gradcheck rect.bias: 2 elements
// RECT: gradcheck: passed, 2 parameters, 92 elements
// ceil_mode (PyTorch's): a last, partial window at the bottom and right,
// without padding (ceil) and with it (ceil_pad).
// RUN: mem-run %s --func=ceil --check-gradients --gradcheck-samples=400 | FileCheck %s --check-prefix=CEIL
// RUN: mem-run %s --func=ceil_pad --check-gradients --gradcheck-samples=400 | FileCheck %s --check-prefix=CEILPAD
// CEIL: gradcheck ceil.x: 96 elements
// CEIL: gradcheck: passed, 2 parameters, 98 elements
// CEILPAD: gradcheck ceil_pad.x: 72 elements
// CEILPAD: gradcheck: passed, 2 parameters, 74 elements

// overlap: kernel 3 x 3, strides 2, padding 1; tensor<2x3x7x8xf64> ->
// tensor<2x3x4x4xf64>.
func.func @overlap(%r: tensor<2x3x4x4xf64>) -> tensor<f64> {
  %x = train.param "overlap.data" : tensor<2x3x7x8xf64>
  %b = train.param "overlap.b" : tensor<3xf64>
  %h = train.bias_add %x, %b {dim = 1 : i64} : tensor<2x3x7x8xf64>, tensor<3xf64> -> tensor<2x3x7x8xf64>
  %p = train.max_pool2d %h {kernel = array<i64: 3, 3>, strides = array<i64: 2, 2>, padding = array<i64: 1, 1>} : tensor<2x3x7x8xf64> -> tensor<2x3x4x4xf64>
  %p2 = train.mul %p, %p : tensor<2x3x4x4xf64>
  %z = train.mul %p2, %r : tensor<2x3x4x4xf64>
  %l = train.reduce_sum %z {dims = array<i64: 0, 1, 2, 3>} : tensor<2x3x4x4xf64> -> tensor<f64>
  return %l : tensor<f64>
}

// rect: kernel 3 x 2, strides [1, 2], padding [1, 0]; tensor<1x2x5x9xf64> ->
// tensor<1x2x5x4xf64>.
func.func @rect(%r: tensor<1x2x5x4xf64>) -> tensor<f64> {
  %x = train.param "rect.x" : tensor<1x2x5x9xf64>
  %b = train.param "rect.bias" : tensor<2xf64>
  %h = train.bias_add %x, %b {dim = 1 : i64} : tensor<1x2x5x9xf64>, tensor<2xf64> -> tensor<1x2x5x9xf64>
  %p = train.max_pool2d %h {kernel = array<i64: 3, 2>, strides = array<i64: 1, 2>, padding = array<i64: 1, 0>} : tensor<1x2x5x9xf64> -> tensor<1x2x5x4xf64>
  %p2 = train.mul %p, %p : tensor<1x2x5x4xf64>
  %z = train.mul %p2, %r : tensor<1x2x5x4xf64>
  %l = train.reduce_sum %z {dims = array<i64: 0, 1, 2, 3>} : tensor<1x2x5x4xf64> -> tensor<f64>
  return %l : tensor<f64>
}

// ceil: kernel 3 x 3, strides 2, ceil_mode; tensor<1x2x8x6xf64> ->
// tensor<1x2x4x3xf64>: the last window of each dimension covers rows 6..7
// (columns 4..5) and one position past the input.
func.func @ceil(%r: tensor<1x2x4x3xf64>) -> tensor<f64> {
  %x = train.param "ceil.x" : tensor<2x8x6xf64>
  %x4 = train.reshape %x : tensor<2x8x6xf64> -> tensor<1x2x8x6xf64>
  %b = train.param "ceil.bias" : tensor<2xf64>
  %h = train.bias_add %x4, %b {dim = 1 : i64} : tensor<1x2x8x6xf64>, tensor<2xf64> -> tensor<1x2x8x6xf64>
  %p = train.max_pool2d %h {ceil_mode, kernel = array<i64: 3, 3>, strides = array<i64: 2, 2>} : tensor<1x2x8x6xf64> -> tensor<1x2x4x3xf64>
  %p2 = train.mul %p, %p : tensor<1x2x4x3xf64>
  %z = train.mul %p2, %r : tensor<1x2x4x3xf64>
  %l = train.reduce_sum %z {dims = array<i64: 0, 1, 2, 3>} : tensor<1x2x4x3xf64> -> tensor<f64>
  return %l : tensor<f64>
}

// ceil_pad: kernel 3 x 3, strides 2, padding 1, ceil_mode;
// tensor<1x2x6x6xf64> -> tensor<1x2x4x4xf64>: the last window starts at
// row 5 (padded 6), the input's last row.
func.func @ceil_pad(%r: tensor<1x2x4x4xf64>) -> tensor<f64> {
  %x = train.param "ceil_pad.x" : tensor<2x6x6xf64>
  %x4 = train.reshape %x : tensor<2x6x6xf64> -> tensor<1x2x6x6xf64>
  %b = train.param "ceil_pad.bias" : tensor<2xf64>
  %h = train.bias_add %x4, %b {dim = 1 : i64} : tensor<1x2x6x6xf64>, tensor<2xf64> -> tensor<1x2x6x6xf64>
  %p = train.max_pool2d %h {ceil_mode, kernel = array<i64: 3, 3>, padding = array<i64: 1, 1>, strides = array<i64: 2, 2>} : tensor<1x2x6x6xf64> -> tensor<1x2x4x4xf64>
  %p2 = train.mul %p, %p : tensor<1x2x4x4xf64>
  %z = train.mul %p2, %r : tensor<1x2x4x4xf64>
  %l = train.reduce_sum %z {dims = array<i64: 0, 1, 2, 3>} : tensor<1x2x4x4xf64> -> tensor<f64>
  return %l : tensor<f64>
}
