// train.concat in f64 with three parameter inputs; the gradient rule slices
// dresult back into one window per input (at the running offset along the
// axis). Checked along axis 1 (sizes 2, 3, 4 -> 9, in the middle of a
// rank-3 tensor) and along axis 0 (sizes 1, 3, 2 -> 6). The result is squared
// so that the loss is not linear.
// RUN: mem-run %s --func=middle --check-gradients --gradcheck-samples=100 | FileCheck %s --check-prefix=MIDDLE
// RUN: mem-run %s --func=first --check-gradients --gradcheck-samples=100 | FileCheck %s --check-prefix=FIRST
// MIDDLE: gradcheck middle.a: 20 elements
// MIDDLE: gradcheck middle.b: 30 elements
// MIDDLE: gradcheck middle.c: 40 elements
// MIDDLE: gradcheck: passed, 3 parameters, 90 elements
// FIRST: gradcheck first.a: 4 elements
// FIRST: gradcheck first.b: 12 elements
// FIRST: gradcheck first.c: 8 elements
// FIRST: gradcheck: passed, 3 parameters, 24 elements

func.func @middle(%r: tensor<2x9x5xf64>) -> tensor<f64> {
  %a = train.param "middle.a" : tensor<2x2x5xf64>
  %b = train.param "middle.b" : tensor<2x3x5xf64>
  %c = train.param "middle.c" : tensor<2x4x5xf64>
  %x = train.concat %a, %b, %c {axis = 1 : i64} : tensor<2x2x5xf64>, tensor<2x3x5xf64>, tensor<2x4x5xf64> -> tensor<2x9x5xf64>
  %x2 = train.mul %x, %x : tensor<2x9x5xf64>
  %y = train.mul %x2, %r : tensor<2x9x5xf64>
  %l = train.reduce_sum %y {dims = array<i64: 0, 1, 2>} : tensor<2x9x5xf64> -> tensor<f64>
  return %l : tensor<f64>
}

func.func @first(%r: tensor<6x4xf64>) -> tensor<f64> {
  %a = train.param "first.a" : tensor<1x4xf64>
  %b = train.param "first.b" : tensor<3x4xf64>
  %c = train.param "first.c" : tensor<2x4xf64>
  %x = train.concat %a, %b, %c {axis = 0 : i64} : tensor<1x4xf64>, tensor<3x4xf64>, tensor<2x4xf64> -> tensor<6x4xf64>
  %x2 = train.mul %x, %x : tensor<6x4xf64>
  %y = train.mul %x2, %r : tensor<6x4xf64>
  %l = train.reduce_sum %y {dims = array<i64: 0, 1>} : tensor<6x4xf64> -> tensor<f64>
  return %l : tensor<f64>
}
