// train.cross_entropy in f64; the gradient rule is cross_entropy_grad
// (softmax(logits) - onehot(labels), divided by the number of counted
// positions). The labels are an integer argument: mem-run fills them with
// (fnv1a32("arg1") + 7 i) mod 6 = [0 1 2 3 4 5 0 1] for the 2 x 4 positions.
// - plain: logits = x W + b from an argument x and parameters W and b (a
//   shared-weight matmul and a bias_add), mean over all 8 positions;
// - ignore: the same with ignore_index = 1, so positions 1 and 7 contribute
//   nothing and the mean is over the other 6 (their logits get no gradient);
// - direct: the rank-3 logits themselves are a parameter, with
//   ignore_index = 4 (position 4 ignored).
// RUN: mem-run %s --func=plain --check-gradients --gradcheck-samples=100 | FileCheck %s --check-prefix=PLAIN
// RUN: mem-run %s --func=ignore --check-gradients --gradcheck-samples=100 | FileCheck %s --check-prefix=IGNORE
// RUN: mem-run %s --func=direct --check-gradients --gradcheck-samples=100 | FileCheck %s --check-prefix=DIRECT
// PLAIN: gradcheck plain.w: 30 elements
// PLAIN: gradcheck plain.b: 6 elements
// PLAIN: gradcheck: passed, 2 parameters, 36 elements
// IGNORE: gradcheck ignore.w: 30 elements
// IGNORE: gradcheck ignore.b: 6 elements
// IGNORE: gradcheck: passed, 2 parameters, 36 elements
// DIRECT: gradcheck direct.logits: 48 elements
// DIRECT: gradcheck: passed, 1 parameters, 48 elements

func.func @plain(%x: tensor<2x4x5xf64>, %labels: tensor<2x4xi64>) -> tensor<f64> {
  %w = train.param "plain.w" : tensor<5x6xf64>
  %b = train.param "plain.b" : tensor<6xf64>
  %h = train.matmul %x, %w : tensor<2x4x5xf64>, tensor<5x6xf64> -> tensor<2x4x6xf64>
  %logits = train.bias_add %h, %b : tensor<2x4x6xf64>, tensor<6xf64> -> tensor<2x4x6xf64>
  %l = train.cross_entropy %logits, %labels : tensor<2x4x6xf64>, tensor<2x4xi64> -> tensor<f64>
  return %l : tensor<f64>
}

func.func @ignore(%x: tensor<2x4x5xf64>, %labels: tensor<2x4xi64>) -> tensor<f64> {
  %w = train.param "ignore.w" : tensor<5x6xf64>
  %b = train.param "ignore.b" : tensor<6xf64>
  %h = train.matmul %x, %w : tensor<2x4x5xf64>, tensor<5x6xf64> -> tensor<2x4x6xf64>
  %logits = train.bias_add %h, %b : tensor<2x4x6xf64>, tensor<6xf64> -> tensor<2x4x6xf64>
  %l = train.cross_entropy %logits, %labels {ignore_index = 1 : i64} : tensor<2x4x6xf64>, tensor<2x4xi64> -> tensor<f64>
  return %l : tensor<f64>
}

// %unused keeps the labels at argument 1, so they get the same values.
func.func @direct(%unused: tensor<3xf64>, %labels: tensor<2x4xi64>) -> tensor<f64> {
  %logits = train.param "direct.logits" : tensor<2x4x6xf64>
  %l = train.cross_entropy %logits, %labels {ignore_index = 4 : i64} : tensor<2x4x6xf64>, tensor<2x4xi64> -> tensor<f64>
  return %l : tensor<f64>
}
