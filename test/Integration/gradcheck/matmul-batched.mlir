// Batched train.matmul in f64 with operands of the same rank, lhs and rhs
// both parameters: rank 3 (batch 2) in all four transpose combinations, and
// rank 4 (batch 2 x 3) without and with both transposes, M = 3, K = 5, N = 4,
// checked against central finite differences.
// RUN: mem-run %s --func=bnn --check-gradients --gradcheck-samples=200 | FileCheck %s --check-prefix=BNN
// RUN: mem-run %s --func=btn --check-gradients --gradcheck-samples=200 | FileCheck %s --check-prefix=BTN
// RUN: mem-run %s --func=bnt --check-gradients --gradcheck-samples=200 | FileCheck %s --check-prefix=BNT
// RUN: mem-run %s --func=btt --check-gradients --gradcheck-samples=200 | FileCheck %s --check-prefix=BTT
// RUN: mem-run %s --func=r4nn --check-gradients --gradcheck-samples=200 | FileCheck %s --check-prefix=R4NN
// RUN: mem-run %s --func=r4tt --check-gradients --gradcheck-samples=200 | FileCheck %s --check-prefix=R4TT
// BNN: gradcheck bnn.a: 30 elements
// BNN: gradcheck bnn.b: 40 elements
// BNN: gradcheck: passed, 2 parameters, 70 elements
// BTN: gradcheck btn.a: 30 elements
// BTN: gradcheck btn.b: 40 elements
// BTN: gradcheck: passed, 2 parameters, 70 elements
// BNT: gradcheck bnt.a: 30 elements
// BNT: gradcheck bnt.b: 40 elements
// BNT: gradcheck: passed, 2 parameters, 70 elements
// BTT: gradcheck btt.a: 30 elements
// BTT: gradcheck btt.b: 40 elements
// BTT: gradcheck: passed, 2 parameters, 70 elements
// R4NN: gradcheck r4nn.a: 90 elements
// R4NN: gradcheck r4nn.b: 120 elements
// R4NN: gradcheck: passed, 2 parameters, 210 elements
// R4TT: gradcheck r4tt.a: 90 elements
// R4TT: gradcheck r4tt.b: 120 elements
// R4TT: gradcheck: passed, 2 parameters, 210 elements

func.func @bnn(%r: tensor<2x3x4xf64>) -> tensor<f64> {
  %a = train.param "bnn.a" : tensor<2x3x5xf64>
  %b = train.param "bnn.b" : tensor<2x5x4xf64>
  %c = train.matmul %a, %b : tensor<2x3x5xf64>, tensor<2x5x4xf64> -> tensor<2x3x4xf64>
  %y = train.mul %c, %r : tensor<2x3x4xf64>
  %l = train.reduce_sum %y {dims = array<i64: 0, 1, 2>} : tensor<2x3x4xf64> -> tensor<f64>
  return %l : tensor<f64>
}

func.func @btn(%r: tensor<2x3x4xf64>) -> tensor<f64> {
  %a = train.param "btn.a" : tensor<2x5x3xf64>
  %b = train.param "btn.b" : tensor<2x5x4xf64>
  %c = train.matmul %a, %b {transpose_lhs} : tensor<2x5x3xf64>, tensor<2x5x4xf64> -> tensor<2x3x4xf64>
  %y = train.mul %c, %r : tensor<2x3x4xf64>
  %l = train.reduce_sum %y {dims = array<i64: 0, 1, 2>} : tensor<2x3x4xf64> -> tensor<f64>
  return %l : tensor<f64>
}

func.func @bnt(%r: tensor<2x3x4xf64>) -> tensor<f64> {
  %a = train.param "bnt.a" : tensor<2x3x5xf64>
  %b = train.param "bnt.b" : tensor<2x4x5xf64>
  %c = train.matmul %a, %b {transpose_rhs} : tensor<2x3x5xf64>, tensor<2x4x5xf64> -> tensor<2x3x4xf64>
  %y = train.mul %c, %r : tensor<2x3x4xf64>
  %l = train.reduce_sum %y {dims = array<i64: 0, 1, 2>} : tensor<2x3x4xf64> -> tensor<f64>
  return %l : tensor<f64>
}

func.func @btt(%r: tensor<2x3x4xf64>) -> tensor<f64> {
  %a = train.param "btt.a" : tensor<2x5x3xf64>
  %b = train.param "btt.b" : tensor<2x4x5xf64>
  %c = train.matmul %a, %b {transpose_lhs, transpose_rhs} : tensor<2x5x3xf64>, tensor<2x4x5xf64> -> tensor<2x3x4xf64>
  %y = train.mul %c, %r : tensor<2x3x4xf64>
  %l = train.reduce_sum %y {dims = array<i64: 0, 1, 2>} : tensor<2x3x4xf64> -> tensor<f64>
  return %l : tensor<f64>
}

func.func @r4nn(%r: tensor<2x3x3x4xf64>) -> tensor<f64> {
  %a = train.param "r4nn.a" : tensor<2x3x3x5xf64>
  %b = train.param "r4nn.b" : tensor<2x3x5x4xf64>
  %c = train.matmul %a, %b : tensor<2x3x3x5xf64>, tensor<2x3x5x4xf64> -> tensor<2x3x3x4xf64>
  %y = train.mul %c, %r : tensor<2x3x3x4xf64>
  %l = train.reduce_sum %y {dims = array<i64: 0, 1, 2, 3>} : tensor<2x3x3x4xf64> -> tensor<f64>
  return %l : tensor<f64>
}

func.func @r4tt(%r: tensor<2x3x3x4xf64>) -> tensor<f64> {
  %a = train.param "r4tt.a" : tensor<2x3x5x3xf64>
  %b = train.param "r4tt.b" : tensor<2x3x4x5xf64>
  %c = train.matmul %a, %b {transpose_lhs, transpose_rhs} : tensor<2x3x5x3xf64>, tensor<2x3x4x5xf64> -> tensor<2x3x3x4xf64>
  %y = train.mul %c, %r : tensor<2x3x3x4xf64>
  %l = train.reduce_sum %y {dims = array<i64: 0, 1, 2, 3>} : tensor<2x3x3x4xf64> -> tensor<f64>
  return %l : tensor<f64>
}
