// train.hardswish in f64: the gradient rule is hardswish_grad on the saved input
// (0 below -3, x/3 + 1/2 between, 1 above).
// Inputs are scaled up (factor 10: the
// parameters start within 1/sqrt(6) of 0) so they span [-4, 4], every piece.
// RUN: mem-run %s --check-gradients --gradcheck-samples=100 | FileCheck %s
// CHECK: gradcheck x: 30 elements
// CHECK: gradcheck: passed, 1 parameters, 30 elements

func.func @f(%r: tensor<2x3x5xf64>) -> tensor<f64> {
  %x = train.param "x" : tensor<2x3x5xf64>
  %s = train.scale %x {factor = 1.000000e+01 : f64} : tensor<2x3x5xf64>
  %a = train.hardswish %s : tensor<2x3x5xf64>
  %y = train.mul %a, %r : tensor<2x3x5xf64>
  %l = train.reduce_sum %y {dims = array<i64: 0, 1, 2>} : tensor<2x3x5xf64> -> tensor<f64>
  return %l : tensor<f64>
}
