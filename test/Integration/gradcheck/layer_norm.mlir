// train.layer_norm in f64 with the input, gamma and beta all parameters, so
// every result of layer_norm_grad (dinput, dgamma, dbeta) is checked. Only
// the normalized output feeds the loss (mean and rstd are statistics, not
// differentiable).
//
// Tolerances: layer_norm saves its statistics mean and rstd as f32 even for
// f64 inputs (TrainOps.td), and layer_norm_grad recomputes xhat from them, so
// dinput carries an absolute error of about eps_f32 * rstd * |dy * gamma|
// (here rstd reaches 14 and rstd * |dy * gamma| reaches 6, i.e. up to ~7e-7),
// and dinput = rstd * (g - mean(g) - xhat * mean(g * xhat)) cancels, so that
// error is large relative to its smallest elements. A NumPy replica with the
// statistics rounded to f32 reproduces mem-run's analytic dinput to all
// printed digits (max deviation from finite differences 3.0e-7, max relative
// 6.9e-5 at x[12] = -1.43e-3), while the same formula with f64 statistics
// matches the finite differences to 8e-10. Hence --gradcheck-atol=1e-6 (5e-7
// of the largest |dinput|, 2.0) and --gradcheck-rtol=1e-5; dgamma and dbeta
// are within the default tolerances.
// RUN: mem-run %s --check-gradients --gradcheck-samples=100 --gradcheck-rtol=1e-5 --gradcheck-atol=1e-6 | FileCheck %s
// CHECK: gradcheck x: 84 elements
// CHECK: gradcheck gamma: 7 elements
// CHECK: gradcheck beta: 7 elements
// CHECK: gradcheck: passed, 3 parameters, 98 elements

func.func @f(%r: tensor<3x4x7xf64>) -> tensor<f64> {
  %x = train.param "x" : tensor<3x4x7xf64>
  %g = train.param "gamma" : tensor<7xf64>
  %b = train.param "beta" : tensor<7xf64>
  %y, %mean, %rstd = train.layer_norm %x, %g, %b {epsilon = 1.000000e-05 : f64}
      : tensor<3x4x7xf64>, tensor<7xf64>, tensor<7xf64>
      -> tensor<3x4x7xf64>, tensor<3x4xf32>, tensor<3x4xf32>
  // Squared, so that dbeta depends on beta.
  %y2 = train.mul %y, %y : tensor<3x4x7xf64>
  %z = train.mul %y2, %r : tensor<3x4x7xf64>
  %l = train.reduce_sum %z {dims = array<i64: 0, 1, 2>} : tensor<3x4x7xf64> -> tensor<f64>
  return %l : tensor<f64>
}
