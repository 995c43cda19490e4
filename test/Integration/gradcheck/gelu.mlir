// train.gelu in f64, both forms: exact (erf) and the tanh approximation
// (`approximate`). The gradient rule is gelu_grad on the saved input.
// Inputs are scaled up (factor 3) so they span the curved region of gelu.
// RUN: mem-run %s --func=exact --check-gradients --gradcheck-samples=100 | FileCheck %s --check-prefix=EXACT
// RUN: mem-run %s --func=approx --check-gradients --gradcheck-samples=100 | FileCheck %s --check-prefix=APPROX
// EXACT: gradcheck exact.x: 35 elements
// EXACT: gradcheck: passed, 1 parameters, 35 elements
// APPROX: gradcheck approx.x: 35 elements
// APPROX: gradcheck: passed, 1 parameters, 35 elements

func.func @exact(%r: tensor<5x7xf64>) -> tensor<f64> {
  %x = train.param "exact.x" : tensor<5x7xf64>
  %s = train.scale %x {factor = 3.000000e+00 : f64} : tensor<5x7xf64>
  %g = train.gelu %s : tensor<5x7xf64>
  %y = train.mul %g, %r : tensor<5x7xf64>
  %l = train.reduce_sum %y {dims = array<i64: 0, 1>} : tensor<5x7xf64> -> tensor<f64>
  return %l : tensor<f64>
}

func.func @approx(%r: tensor<5x7xf64>) -> tensor<f64> {
  %x = train.param "approx.x" : tensor<5x7xf64>
  %s = train.scale %x {factor = 3.000000e+00 : f64} : tensor<5x7xf64>
  %g = train.gelu %s {approximate} : tensor<5x7xf64>
  %y = train.mul %g, %r : tensor<5x7xf64>
  %l = train.reduce_sum %y {dims = array<i64: 0, 1>} : tensor<5x7xf64> -> tensor<f64>
  return %l : tensor<f64>
}
