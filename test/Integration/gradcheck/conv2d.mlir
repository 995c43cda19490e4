// train.conv2d (NCHW input, OIHW filter) in f64 with the input and the
// filter both parameters, so both gradient ops (conv2d_grad_input and
// conv2d_grad_filter) are checked against central finite differences, with
// strides, padding, dilation and groups, alone and combined (every element
// of every parameter is checked).
// RUN: mem-run %s --func=basic --check-gradients --gradcheck-samples=400 | FileCheck %s --check-prefix=BASIC
// RUN: mem-run %s --func=strided --check-gradients --gradcheck-samples=400 | FileCheck %s --check-prefix=STRIDED
// RUN: mem-run %s --func=dilated --check-gradients --gradcheck-samples=400 | FileCheck %s --check-prefix=DILATED
// RUN: mem-run %s --func=grouped --check-gradients --gradcheck-samples=400 | FileCheck %s --check-prefix=GROUPED
// RUN: mem-run %s --func=depthwise --check-gradients --gradcheck-samples=400 | FileCheck %s --check-prefix=DEPTHWISE
// BASIC: gradcheck basic.x: 180 elements
// BASIC: gradcheck basic.w: 72 elements
// BASIC: gradcheck: passed, 2 parameters, 252 elements
// STRIDED: gradcheck strided.x: 378 elements
// STRIDED: gradcheck strided.w: 135 elements
// STRIDED: gradcheck: passed, 2 parameters, 513 elements
// DILATED: gradcheck dilated.x: 84 elements
// DILATED: gradcheck dilated.w: 36 elements
// DILATED: gradcheck: passed, 2 parameters, 120 elements
// GROUPED: gradcheck grouped.x: 160 elements
// GROUPED: gradcheck grouped.w: 108 elements
// GROUPED: gradcheck: passed, 2 parameters, 268 elements
// DEPTHWISE: gradcheck depthwise.x: 252 elements
// DEPTHWISE: gradcheck depthwise.w: 36 elements
// DEPTHWISE: gradcheck: passed, 2 parameters, 288 elements

// basic: stride 1, no padding, a 3 x 2 kernel; tensor<2x3x5x6xf64> *
// tensor<4x3x3x2xf64> -> tensor<2x4x3x5xf64>.
func.func @basic(%r: tensor<2x4x3x5xf64>) -> tensor<f64> {
  %x = train.param "basic.x" : tensor<2x3x5x6xf64>
  %w = train.param "basic.w" : tensor<4x3x3x2xf64>
  %y = train.conv2d %x, %w : tensor<2x3x5x6xf64>, tensor<4x3x3x2xf64> -> tensor<2x4x3x5xf64>
  %z = train.mul %y, %r : tensor<2x4x3x5xf64>
  %l = train.reduce_sum %z {dims = array<i64: 0, 1, 2, 3>} : tensor<2x4x3x5xf64> -> tensor<f64>
  return %l : tensor<f64>
}

// strided: strides [2, 3] and padding [1, 1]; the windows start at padded
// columns 0, 3, 6, so the last input column is in no window (zero gradient);
// tensor<2x3x7x9xf64> * tensor<5x3x3x3xf64> -> tensor<2x5x4x3xf64>.
func.func @strided(%r: tensor<2x5x4x3xf64>) -> tensor<f64> {
  %x = train.param "strided.x" : tensor<2x3x7x9xf64>
  %w = train.param "strided.w" : tensor<5x3x3x3xf64>
  %y = train.conv2d %x, %w {strides = array<i64: 2, 3>, padding = array<i64: 1, 1>} : tensor<2x3x7x9xf64>, tensor<5x3x3x3xf64> -> tensor<2x5x4x3xf64>
  %z = train.mul %y, %r : tensor<2x5x4x3xf64>
  %l = train.reduce_sum %z {dims = array<i64: 0, 1, 2, 3>} : tensor<2x5x4x3xf64> -> tensor<f64>
  return %l : tensor<f64>
}

// dilated: dilation [2, 3] and padding [1, 0]; tensor<1x2x7x6xf64> *
// tensor<3x2x3x2xf64> -> tensor<1x3x5x3xf64>.
func.func @dilated(%r: tensor<1x3x5x3xf64>) -> tensor<f64> {
  %x = train.param "dilated.x" : tensor<1x2x7x6xf64>
  %w = train.param "dilated.w" : tensor<3x2x3x2xf64>
  %y = train.conv2d %x, %w {padding = array<i64: 1, 0>, dilation = array<i64: 2, 3>} : tensor<1x2x7x6xf64>, tensor<3x2x3x2xf64> -> tensor<1x3x5x3xf64>
  %z = train.mul %y, %r : tensor<1x3x5x3xf64>
  %l = train.reduce_sum %z {dims = array<i64: 0, 1, 2, 3>} : tensor<1x3x5x3xf64> -> tensor<f64>
  return %l : tensor<f64>
}

// grouped: groups = 2 (4 input and 6 output channels), padding 1;
// tensor<2x4x5x4xf64> * tensor<6x2x3x3xf64> -> tensor<2x6x5x4xf64>.
func.func @grouped(%r: tensor<2x6x5x4xf64>) -> tensor<f64> {
  %x = train.param "grouped.x" : tensor<2x4x5x4xf64>
  %w = train.param "grouped.w" : tensor<6x2x3x3xf64>
  %y = train.conv2d %x, %w {padding = array<i64: 1, 1>, groups = 2 : i64} : tensor<2x4x5x4xf64>, tensor<6x2x3x3xf64> -> tensor<2x6x5x4xf64>
  %z = train.mul %y, %r : tensor<2x6x5x4xf64>
  %l = train.reduce_sum %z {dims = array<i64: 0, 1, 2, 3>} : tensor<2x6x5x4xf64> -> tensor<f64>
  return %l : tensor<f64>
}

// depthwise: groups = 3 = C (depthwise, channel multiplier 2) with strides [2,
// 1], padding [1, 1] and dilation [1, 2]; tensor<2x3x6x7xf64> *
// tensor<6x1x2x3xf64> -> tensor<2x6x4x5xf64>.
func.func @depthwise(%r: tensor<2x6x4x5xf64>) -> tensor<f64> {
  %x = train.param "depthwise.x" : tensor<2x3x6x7xf64>
  %w = train.param "depthwise.w" : tensor<6x1x2x3xf64>
  %y = train.conv2d %x, %w {strides = array<i64: 2, 1>, padding = array<i64: 1, 1>, dilation = array<i64: 1, 2>, groups = 3 : i64} : tensor<2x3x6x7xf64>, tensor<6x1x2x3xf64> -> tensor<2x6x4x5xf64>
  %z = train.mul %y, %r : tensor<2x6x4x5xf64>
  %l = train.reduce_sum %z {dims = array<i64: 0, 1, 2, 3>} : tensor<2x6x4x5xf64> -> tensor<f64>
  return %l : tensor<f64>
}
