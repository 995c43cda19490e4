// train.swiglu in f64 (silu(gate) * up), with gate and up both parameters,
// so both results of swiglu_grad (dgate and dup) are checked. The gate is
// scaled up (factor 3) so it spans the curved region of silu.
// RUN: mem-run %s --check-gradients --gradcheck-samples=100 | FileCheck %s
// CHECK: gradcheck gate: 28 elements
// CHECK: gradcheck up: 28 elements
// CHECK: gradcheck: passed, 2 parameters, 56 elements

func.func @f(%r: tensor<4x7xf64>) -> tensor<f64> {
  %gate = train.param "gate" : tensor<4x7xf64>
  %up = train.param "up" : tensor<4x7xf64>
  %g = train.scale %gate {factor = 3.000000e+00 : f64} : tensor<4x7xf64>
  %a = train.swiglu %g, %up : tensor<4x7xf64>
  %y = train.mul %a, %r : tensor<4x7xf64>
  %l = train.reduce_sum %y {dims = array<i64: 0, 1>} : tensor<4x7xf64> -> tensor<f64>
  return %l : tensor<f64>
}
