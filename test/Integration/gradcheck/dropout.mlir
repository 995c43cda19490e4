// train.dropout in f64 at rate 0.3: the keep mask is a pure function of
// (seed, id, element index), so it is the same in every finite-difference
// run and the loss is differentiable in the input; the gradient rule is
// dropout_grad on the saved mask (dresult * mask / (1 - rate)). The input
// goes through silu first and the output is squared, so the upstream and
// downstream gradients are non-trivial. Only the output feeds the loss (the
// mask is not differentiable). The two dropouts (ids 5 and 6, seed 0) keep 27
// and 35 of the 42 elements.
// RUN: mem-run %s --check-gradients --gradcheck-samples=100 | FileCheck %s
// CHECK: gradcheck x: 42 elements
// CHECK: gradcheck: passed, 1 parameters, 42 elements

func.func @f(%r: tensor<6x7xf64>) -> tensor<f64> {
  %x = train.param "x" : tensor<6x7xf64>
  %s = train.scale %x {factor = 3.000000e+00 : f64} : tensor<6x7xf64>
  %a = train.silu %s : tensor<6x7xf64>
  %d, %mask = train.dropout %a {id = 5 : i64, rate = 3.000000e-01 : f64}
      : tensor<6x7xf64> -> tensor<6x7xf64>, tensor<6x7xi8>
  %d2 = train.mul %d, %d : tensor<6x7xf64>
  %e, %mask2 = train.dropout %d2 {id = 6 : i64, rate = 3.000000e-01 : f64}
      : tensor<6x7xf64> -> tensor<6x7xf64>, tensor<6x7xi8>
  %y = train.mul %e, %r : tensor<6x7xf64>
  %l = train.reduce_sum %y {dims = array<i64: 0, 1>} : tensor<6x7xf64> -> tensor<f64>
  return %l : tensor<f64>
}
