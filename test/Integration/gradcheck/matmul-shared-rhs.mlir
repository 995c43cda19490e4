// train.matmul of a batched lhs with a shared rank-2 rhs (a linear layer's
// weight) in f64, lhs and weight both parameters: rank 3 x rank 2 in all four
// transpose combinations and rank 4 x rank 2 (batch 2 x 3) without and with
// both transposes, M = 3, K = 5, N = 4. The weight gradient sums over the
// batch (the rule flattens op(lhs) and dresult to matrices), and with
// transpose_lhs the lhs gradient is the transpose of dresult op(B)^T.
// RUN: mem-run %s --func=snn --check-gradients --gradcheck-samples=200 | FileCheck %s --check-prefix=SNN
// RUN: mem-run %s --func=stn --check-gradients --gradcheck-samples=200 | FileCheck %s --check-prefix=STN
// RUN: mem-run %s --func=snt --check-gradients --gradcheck-samples=200 | FileCheck %s --check-prefix=SNT
// RUN: mem-run %s --func=stt --check-gradients --gradcheck-samples=200 | FileCheck %s --check-prefix=STT
// RUN: mem-run %s --func=s4nn --check-gradients --gradcheck-samples=200 | FileCheck %s --check-prefix=S4NN
// RUN: mem-run %s --func=s4tt --check-gradients --gradcheck-samples=200 | FileCheck %s --check-prefix=S4TT
// SNN: gradcheck snn.a: 30 elements
// SNN: gradcheck snn.b: 20 elements
// SNN: gradcheck: passed, 2 parameters, 50 elements
// STN: gradcheck stn.a: 30 elements
// STN: gradcheck stn.b: 20 elements
// STN: gradcheck: passed, 2 parameters, 50 elements
// SNT: gradcheck snt.a: 30 elements
// SNT: gradcheck snt.b: 20 elements
// SNT: gradcheck: passed, 2 parameters, 50 elements
// STT: gradcheck stt.a: 30 elements
// STT: gradcheck stt.b: 20 elements
// STT: gradcheck: passed, 2 parameters, 50 elements
// S4NN: gradcheck s4nn.a: 90 elements
// S4NN: gradcheck s4nn.b: 20 elements
// S4NN: gradcheck: passed, 2 parameters, 110 elements
// S4TT: gradcheck s4tt.a: 90 elements
// S4TT: gradcheck s4tt.b: 20 elements
// S4TT: gradcheck: passed, 2 parameters, 110 elements

func.func @snn(%r: tensor<2x3x4xf64>) -> tensor<f64> {
  %a = train.param "snn.a" : tensor<2x3x5xf64>
  %b = train.param "snn.b" : tensor<5x4xf64>
  %c = train.matmul %a, %b : tensor<2x3x5xf64>, tensor<5x4xf64> -> tensor<2x3x4xf64>
  %y = train.mul %c, %r : tensor<2x3x4xf64>
  %l = train.reduce_sum %y {dims = array<i64: 0, 1, 2>} : tensor<2x3x4xf64> -> tensor<f64>
  return %l : tensor<f64>
}

func.func @stn(%r: tensor<2x3x4xf64>) -> tensor<f64> {
  %a = train.param "stn.a" : tensor<2x5x3xf64>
  %b = train.param "stn.b" : tensor<5x4xf64>
  %c = train.matmul %a, %b {transpose_lhs} : tensor<2x5x3xf64>, tensor<5x4xf64> -> tensor<2x3x4xf64>
  %y = train.mul %c, %r : tensor<2x3x4xf64>
  %l = train.reduce_sum %y {dims = array<i64: 0, 1, 2>} : tensor<2x3x4xf64> -> tensor<f64>
  return %l : tensor<f64>
}

func.func @snt(%r: tensor<2x3x4xf64>) -> tensor<f64> {
  %a = train.param "snt.a" : tensor<2x3x5xf64>
  %b = train.param "snt.b" : tensor<4x5xf64>
  %c = train.matmul %a, %b {transpose_rhs} : tensor<2x3x5xf64>, tensor<4x5xf64> -> tensor<2x3x4xf64>
  %y = train.mul %c, %r : tensor<2x3x4xf64>
  %l = train.reduce_sum %y {dims = array<i64: 0, 1, 2>} : tensor<2x3x4xf64> -> tensor<f64>
  return %l : tensor<f64>
}

func.func @stt(%r: tensor<2x3x4xf64>) -> tensor<f64> {
  %a = train.param "stt.a" : tensor<2x5x3xf64>
  %b = train.param "stt.b" : tensor<4x5xf64>
  %c = train.matmul %a, %b {transpose_lhs, transpose_rhs} : tensor<2x5x3xf64>, tensor<4x5xf64> -> tensor<2x3x4xf64>
  %y = train.mul %c, %r : tensor<2x3x4xf64>
  %l = train.reduce_sum %y {dims = array<i64: 0, 1, 2>} : tensor<2x3x4xf64> -> tensor<f64>
  return %l : tensor<f64>
}

func.func @s4nn(%r: tensor<2x3x3x4xf64>) -> tensor<f64> {
  %a = train.param "s4nn.a" : tensor<2x3x3x5xf64>
  %b = train.param "s4nn.b" : tensor<5x4xf64>
  %c = train.matmul %a, %b : tensor<2x3x3x5xf64>, tensor<5x4xf64> -> tensor<2x3x3x4xf64>
  %y = train.mul %c, %r : tensor<2x3x3x4xf64>
  %l = train.reduce_sum %y {dims = array<i64: 0, 1, 2, 3>} : tensor<2x3x3x4xf64> -> tensor<f64>
  return %l : tensor<f64>
}

func.func @s4tt(%r: tensor<2x3x3x4xf64>) -> tensor<f64> {
  %a = train.param "s4tt.a" : tensor<2x3x5x3xf64>
  %b = train.param "s4tt.b" : tensor<4x5xf64>
  %c = train.matmul %a, %b {transpose_lhs, transpose_rhs} : tensor<2x3x5x3xf64>, tensor<4x5xf64> -> tensor<2x3x3x4xf64>
  %y = train.mul %c, %r : tensor<2x3x3x4xf64>
  %l = train.reduce_sum %y {dims = array<i64: 0, 1, 2, 3>} : tensor<2x3x3x4xf64> -> tensor<f64>
  return %l : tensor<f64>
}
