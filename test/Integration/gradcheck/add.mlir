// train.add in f64: both operands are parameters, so both gradient results
// (dresult passed through to lhs and to rhs) are checked against central
// finite differences. The loss weights the sum by a fixed argument %r.
// RUN: mem-run %s --check-gradients --gradcheck-samples=100 | FileCheck %s
// CHECK: gradcheck a: 15 elements
// CHECK: gradcheck b: 15 elements
// CHECK: gradcheck: passed, 2 parameters, 30 elements

func.func @f(%r: tensor<3x5xf64>) -> tensor<f64> {
  %a = train.param "a" : tensor<3x5xf64>
  %b = train.param "b" : tensor<3x5xf64>
  %s = train.add %a, %b : tensor<3x5xf64>
  // Square the sum so the loss is not linear in a and b.
  %s2 = train.mul %s, %s : tensor<3x5xf64>
  %y = train.mul %s2, %r : tensor<3x5xf64>
  %l = train.reduce_sum %y {dims = array<i64: 0, 1>} : tensor<3x5xf64> -> tensor<f64>
  return %l : tensor<f64>
}
