// train.embedding in f64 with the table a parameter and the ids an integer
// argument (mem-run fills ids with (fnv1a32("arg1") + 7 i) mod rows). The
// gradient rule scatters dresult into the table rows (embedding_grad):
// - repeat: a 5 x 6 table looked up by 3 x 4 ids [1 3 0 2 4 1 3 0 2 4 1 3],
//   so every row is used two or three times and its gradient accumulates;
// - sparse: a 16 x 3 table looked up by 2 x 3 ids [2 9 0 7 14 5], so ten
//   rows are unused and must get a zero gradient.
// The looked-up rows are squared so that the loss is not linear in the table.
// RUN: mem-run %s --func=repeat --check-gradients --gradcheck-samples=100 | FileCheck %s --check-prefix=REPEAT
// RUN: mem-run %s --func=sparse --check-gradients --gradcheck-samples=100 | FileCheck %s --check-prefix=SPARSE
// REPEAT: gradcheck repeat.table: 30 elements
// REPEAT: gradcheck: passed, 1 parameters, 30 elements
// SPARSE: gradcheck sparse.table: 48 elements
// SPARSE: gradcheck: passed, 1 parameters, 48 elements

func.func @repeat(%r: tensor<3x4x6xf64>, %ids: tensor<3x4xi64>) -> tensor<f64> {
  %t = train.param "repeat.table" : tensor<5x6xf64>
  %e = train.embedding %t, %ids : tensor<5x6xf64>, tensor<3x4xi64> -> tensor<3x4x6xf64>
  %e2 = train.mul %e, %e : tensor<3x4x6xf64>
  %y = train.mul %e2, %r : tensor<3x4x6xf64>
  %l = train.reduce_sum %y {dims = array<i64: 0, 1, 2>} : tensor<3x4x6xf64> -> tensor<f64>
  return %l : tensor<f64>
}

func.func @sparse(%r: tensor<2x3x3xf64>, %ids: tensor<2x3xi64>) -> tensor<f64> {
  %t = train.param "sparse.table" : tensor<16x3xf64>
  %e = train.embedding %t, %ids : tensor<16x3xf64>, tensor<2x3xi64> -> tensor<2x3x3xf64>
  %e2 = train.mul %e, %e : tensor<2x3x3xf64>
  %y = train.mul %e2, %r : tensor<2x3x3xf64>
  %l = train.reduce_sum %y {dims = array<i64: 0, 1, 2>} : tensor<2x3x3xf64> -> tensor<f64>
  return %l : tensor<f64>
}
