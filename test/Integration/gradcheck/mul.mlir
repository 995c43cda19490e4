// train.mul in f64: both operands are parameters, so both gradient results
// (dlhs = dresult * rhs, drhs = dresult * lhs) are checked against central
// finite differences. A second mul by the fixed argument %r makes the
// upstream gradient non-uniform.
// RUN: mem-run %s --check-gradients --gradcheck-samples=100 | FileCheck %s
// CHECK: gradcheck a: 12 elements
// CHECK: gradcheck b: 12 elements
// CHECK: gradcheck: passed, 2 parameters, 24 elements

func.func @f(%r: tensor<2x3x2xf64>) -> tensor<f64> {
  %a = train.param "a" : tensor<2x3x2xf64>
  %b = train.param "b" : tensor<2x3x2xf64>
  %p = train.mul %a, %b : tensor<2x3x2xf64>
  %y = train.mul %p, %r : tensor<2x3x2xf64>
  %l = train.reduce_sum %y {dims = array<i64: 0, 1, 2>} : tensor<2x3x2xf64> -> tensor<f64>
  return %l : tensor<f64>
}
