// train.scale in f64: dinput = factor * dresult, checked against central
// finite differences with a negative non-integer factor. The scaled tensor is
// squared so the loss is not linear in the parameter.
// RUN: mem-run %s --check-gradients --gradcheck-samples=100 | FileCheck %s
// CHECK: gradcheck x: 18 elements
// CHECK: gradcheck: passed, 1 parameters, 18 elements

func.func @f(%r: tensor<3x6xf64>) -> tensor<f64> {
  %x = train.param "x" : tensor<3x6xf64>
  %s = train.scale %x {factor = -7.500000e-01 : f64} : tensor<3x6xf64>
  %s2 = train.mul %s, %s : tensor<3x6xf64>
  %t = train.scale %s2 {factor = 1.300000e+00 : f64} : tensor<3x6xf64>
  %y = train.mul %t, %r : tensor<3x6xf64>
  %l = train.reduce_sum %y {dims = array<i64: 0, 1>} : tensor<3x6xf64> -> tensor<f64>
  return %l : tensor<f64>
}
