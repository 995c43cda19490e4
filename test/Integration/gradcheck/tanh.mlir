// train.tanh in f64: the gradient rule is tanh_grad on the saved output
// (1 - y * y).
// Inputs are scaled up (factor 10: the
// parameters start within 1/sqrt(6) of 0) so they span [-4, 4], the flat
// tails included.
// RUN: mem-run %s --check-gradients --gradcheck-samples=100 | FileCheck %s
// CHECK: gradcheck x: 30 elements
// CHECK: gradcheck: passed, 1 parameters, 30 elements

func.func @f(%r: tensor<2x3x5xf64>) -> tensor<f64> {
  %x = train.param "x" : tensor<2x3x5xf64>
  %s = train.scale %x {factor = 1.000000e+01 : f64} : tensor<2x3x5xf64>
  %a = train.tanh %s : tensor<2x3x5xf64>
  %y = train.mul %a, %r : tensor<2x3x5xf64>
  %l = train.reduce_sum %y {dims = array<i64: 0, 1, 2>} : tensor<2x3x5xf64> -> tensor<f64>
  return %l : tensor<f64>
}
