// train.batch_norm (training mode) in f64 with the input, gamma and beta all
// parameters, so every result of batch_norm_grad (dinput, dgamma, dbeta) is
// checked. Only the normalized output feeds the loss (mean and rstd are
// statistics, not differentiable).
//
// Tolerance: batch_norm saves mean and rstd as f32 even for f64 inputs
// (TrainOps.td) and batch_norm_grad recomputes xhat from them, so dinput is
// accurate to ~1e-7 relative to its scale, not to f64 precision; its
// cancelling formula (as in layer_norm.mlir) makes the relative error of
// small elements larger. Measured: max relative error 1.5e-6 on dinput
// (6.1e-8 absolute), just inside the default rtol 1e-6 only thanks to the
// default atol; --gradcheck-rtol=1e-5 leaves a margin. dgamma and dbeta are
// within 4e-8 relative.
// RUN: mem-run %s --check-gradients --gradcheck-samples=200 --gradcheck-rtol=1e-5 | FileCheck %s
// CHECK: gradcheck x: 120 elements
// CHECK: gradcheck gamma: 3 elements
// CHECK: gradcheck beta: 3 elements
// CHECK: gradcheck: passed, 3 parameters, 126 elements

func.func @f(%r: tensor<2x3x4x5xf64>) -> tensor<f64> {
  %x = train.param "x" : tensor<2x3x4x5xf64>
  %g = train.param "gamma" : tensor<3xf64>
  %b = train.param "beta" : tensor<3xf64>
  %y, %mean, %rstd = train.batch_norm %x, %g, %b {epsilon = 1.000000e-05 : f64}
      : tensor<2x3x4x5xf64>, tensor<3xf64>, tensor<3xf64>
      -> tensor<2x3x4x5xf64>, tensor<3xf32>, tensor<3xf32>
  // Squared, so that dbeta depends on beta.
  %y2 = train.mul %y, %y : tensor<2x3x4x5xf64>
  %z = train.mul %y2, %r : tensor<2x3x4x5xf64>
  %l = train.reduce_sum %z {dims = array<i64: 0, 1, 2, 3>} : tensor<2x3x4x5xf64> -> tensor<f64>
  return %l : tensor<f64>
}
