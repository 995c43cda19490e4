// train.sub in f64: both operands are parameters, so both gradient results
// (dresult for lhs, -dresult for rhs) are checked against central finite
// differences. The difference is squared so the loss is not linear.
// RUN: mem-run %s --check-gradients --gradcheck-samples=100 | FileCheck %s
// CHECK: gradcheck a: 20 elements
// CHECK: gradcheck b: 20 elements
// CHECK: gradcheck: passed, 2 parameters, 40 elements

func.func @f(%r: tensor<4x5xf64>) -> tensor<f64> {
  %a = train.param "a" : tensor<4x5xf64>
  %b = train.param "b" : tensor<4x5xf64>
  %d = train.sub %a, %b : tensor<4x5xf64>
  %d2 = train.mul %d, %d : tensor<4x5xf64>
  %y = train.mul %d2, %r : tensor<4x5xf64>
  %l = train.reduce_sum %y {dims = array<i64: 0, 1>} : tensor<4x5xf64> -> tensor<f64>
  return %l : tensor<f64>
}
