// train.mse_loss in f64 with the input and the target both parameters, so
// both gradients (dinput = 2 (input - target) / n * dresult, dtarget =
// -dinput) are checked. The input goes through silu first and the loss is
// scaled, so the upstream gradient is neither 1 nor uniform.
// RUN: mem-run %s --check-gradients --gradcheck-samples=100 | FileCheck %s
// CHECK: gradcheck x: 35 elements
// CHECK: gradcheck target: 35 elements
// CHECK: gradcheck: passed, 2 parameters, 70 elements

func.func @f(%r: tensor<5x7xf64>) -> tensor<f64> {
  %x = train.param "x" : tensor<5x7xf64>
  %t = train.param "target" : tensor<5x7xf64>
  %s = train.mul %x, %r : tensor<5x7xf64>
  %a = train.silu %s : tensor<5x7xf64>
  %m = train.mse_loss %a, %t : tensor<5x7xf64>, tensor<5x7xf64> -> tensor<f64>
  %l = train.scale %m {factor = 3.500000e+00 : f64} : tensor<f64>
  return %l : tensor<f64>
}
