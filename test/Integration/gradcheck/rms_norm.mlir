// train.rms_norm in f64 with the input and gamma both parameters, so both
// results of rms_norm_grad (dinput, dgamma) are checked. Only the normalized
// output feeds the loss (rstd is a statistic, not differentiable).
//
// Tolerances: rms_norm saves rstd as f32 even for f64 inputs (TrainOps.td),
// and rms_norm_grad recomputes xhat = x * rstd from it, so dinput carries an
// absolute error of about eps_f32 * rstd * |dy * gamma|, and
// dinput = rstd * (g - xhat * mean(g * xhat)) cancels, so that error is large
// relative to its smallest elements. A NumPy replica with rstd rounded to f32
// reproduces mem-run's analytic dinput to all printed digits (max deviation
// from finite differences 1.5e-7, max relative 3.0e-5 at x[34] = 1.89e-2),
// while the same formula with f64 rstd matches the finite differences to
// 1.2e-9. Hence --gradcheck-atol=1e-6 (6e-7 of the largest |dinput|, 1.75)
// and --gradcheck-rtol=1e-5; dgamma is within the default tolerances.
// RUN: mem-run %s --check-gradients --gradcheck-samples=100 --gradcheck-rtol=1e-5 --gradcheck-atol=1e-6 | FileCheck %s
// CHECK: gradcheck x: 60 elements
// CHECK: gradcheck gamma: 6 elements
// CHECK: gradcheck: passed, 2 parameters, 66 elements

func.func @f(%r: tensor<2x5x6xf64>) -> tensor<f64> {
  %x = train.param "x" : tensor<2x5x6xf64>
  %g = train.param "gamma" : tensor<6xf64>
  %y, %rstd = train.rms_norm %x, %g {epsilon = 1.000000e-06 : f64}
      : tensor<2x5x6xf64>, tensor<6xf64> -> tensor<2x5x6xf64>, tensor<2x5xf32>
  %z = train.mul %y, %r : tensor<2x5x6xf64>
  %l = train.reduce_sum %z {dims = array<i64: 0, 1, 2>} : tensor<2x5x6xf64> -> tensor<f64>
  return %l : tensor<f64>
}
