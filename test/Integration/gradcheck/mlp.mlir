// train-autodiff on an MLP in f64: every parameter's gradient agrees with
// central finite differences of the loss (rtol 1e-6, atol 1e-8).
// RUN: mem-run %s --check-gradients --gradcheck-samples=32 | FileCheck %s
// CHECK: gradcheck fc1.weight: 32 elements
// CHECK: gradcheck fc1.bias: 12 elements
// CHECK: gradcheck fc2.weight: 32 elements
// CHECK: gradcheck fc2.bias: 3 elements
// CHECK: gradcheck: passed, 4 parameters, 79 elements

func.func @mlp(%x: tensor<5x7xf64>, %y: tensor<5x3xf64>) -> tensor<f64> {
  %w1 = train.param "fc1.weight" : tensor<7x12xf64>
  %b1 = train.param "fc1.bias" : tensor<12xf64>
  %w2 = train.param "fc2.weight" : tensor<12x3xf64>
  %b2 = train.param "fc2.bias" : tensor<3xf64>
  %h = train.matmul %x, %w1 : tensor<5x7xf64>, tensor<7x12xf64> -> tensor<5x12xf64>
  %hb = train.bias_add %h, %b1 : tensor<5x12xf64>, tensor<12xf64> -> tensor<5x12xf64>
  %a = train.silu %hb : tensor<5x12xf64>
  %o = train.matmul %a, %w2 : tensor<5x12xf64>, tensor<12x3xf64> -> tensor<5x3xf64>
  %ob = train.bias_add %o, %b2 : tensor<5x3xf64>, tensor<3xf64> -> tensor<5x3xf64>
  %l = train.mse_loss %ob, %y : tensor<5x3xf64>, tensor<5x3xf64> -> tensor<f64>
  return %l : tensor<f64>
}
