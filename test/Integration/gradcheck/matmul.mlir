// train.matmul of two matrices in f64, lhs and rhs both parameters, in all
// four transpose combinations (nn: A x B, tn: A^T x B, nt: A x B^T,
// tt: A^T x B^T) with M = 3, K = 5, N = 4, so that every branch of the
// gradient rule (dlhs = g op(B)^T or op(B) g^T; drhs = op(A)^T g or g^T op(A))
// is checked against central finite differences.
// RUN: mem-run %s --func=nn --check-gradients --gradcheck-samples=200 | FileCheck %s --check-prefix=NN
// RUN: mem-run %s --func=tn --check-gradients --gradcheck-samples=200 | FileCheck %s --check-prefix=TN
// RUN: mem-run %s --func=nt --check-gradients --gradcheck-samples=200 | FileCheck %s --check-prefix=NT
// RUN: mem-run %s --func=tt --check-gradients --gradcheck-samples=200 | FileCheck %s --check-prefix=TT
// NN: gradcheck nn.a: 15 elements
// NN: gradcheck nn.b: 20 elements
// NN: gradcheck: passed, 2 parameters, 35 elements
// TN: gradcheck tn.a: 15 elements
// TN: gradcheck tn.b: 20 elements
// TN: gradcheck: passed, 2 parameters, 35 elements
// NT: gradcheck nt.a: 15 elements
// NT: gradcheck nt.b: 20 elements
// NT: gradcheck: passed, 2 parameters, 35 elements
// TT: gradcheck tt.a: 15 elements
// TT: gradcheck tt.b: 20 elements
// TT: gradcheck: passed, 2 parameters, 35 elements

func.func @nn(%r: tensor<3x4xf64>) -> tensor<f64> {
  %a = train.param "nn.a" : tensor<3x5xf64>
  %b = train.param "nn.b" : tensor<5x4xf64>
  %c = train.matmul %a, %b : tensor<3x5xf64>, tensor<5x4xf64> -> tensor<3x4xf64>
  %y = train.mul %c, %r : tensor<3x4xf64>
  %l = train.reduce_sum %y {dims = array<i64: 0, 1>} : tensor<3x4xf64> -> tensor<f64>
  return %l : tensor<f64>
}

func.func @tn(%r: tensor<3x4xf64>) -> tensor<f64> {
  %a = train.param "tn.a" : tensor<5x3xf64>
  %b = train.param "tn.b" : tensor<5x4xf64>
  %c = train.matmul %a, %b {transpose_lhs} : tensor<5x3xf64>, tensor<5x4xf64> -> tensor<3x4xf64>
  %y = train.mul %c, %r : tensor<3x4xf64>
  %l = train.reduce_sum %y {dims = array<i64: 0, 1>} : tensor<3x4xf64> -> tensor<f64>
  return %l : tensor<f64>
}

func.func @nt(%r: tensor<3x4xf64>) -> tensor<f64> {
  %a = train.param "nt.a" : tensor<3x5xf64>
  %b = train.param "nt.b" : tensor<4x5xf64>
  %c = train.matmul %a, %b {transpose_rhs} : tensor<3x5xf64>, tensor<4x5xf64> -> tensor<3x4xf64>
  %y = train.mul %c, %r : tensor<3x4xf64>
  %l = train.reduce_sum %y {dims = array<i64: 0, 1>} : tensor<3x4xf64> -> tensor<f64>
  return %l : tensor<f64>
}

func.func @tt(%r: tensor<3x4xf64>) -> tensor<f64> {
  %a = train.param "tt.a" : tensor<5x3xf64>
  %b = train.param "tt.b" : tensor<4x5xf64>
  %c = train.matmul %a, %b {transpose_lhs, transpose_rhs} : tensor<5x3xf64>, tensor<4x5xf64> -> tensor<3x4xf64>
  %y = train.mul %c, %r : tensor<3x4xf64>
  %l = train.reduce_sum %y {dims = array<i64: 0, 1>} : tensor<3x4xf64> -> tensor<f64>
  return %l : tensor<f64>
}
