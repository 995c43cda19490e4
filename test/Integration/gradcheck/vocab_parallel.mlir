// The vocabulary-parallel ops in f64, one process holding part 1 of 2 of the
// vocabulary (`part` is a constant here; train-shard reads it from
// shard.process_multi_index). mem-run fills the integer arguments with
// (fnv1a32("arg1") + 7 i) mod n, n the whole vocabulary the ops declare: the
// labels are [6 1 8 3 10 5 0 7] (n = 12; 6, 8, 10 and 7 in the part's
// columns 6 to 11) and the ids [0 1 2 3 4 5 0 1] (n = 6; 3, 4 and 5 in the
// part's rows).
// - stats: vocab_parallel_stats then cross_entropy_from_stats, whose
//   gradient rules (vocab_parallel_stats_grad, cross_entropy_from_stats_grad)
//   differentiate this part's loss. The maximum is an argument, a constant
//   the loss is shifted by (train-shard's all-reduced row_max);
// - ignore: the same with ignore_index = 7 (the last position ignored);
// - embedding: rows 3 to 5 of a 6-row table; ids outside them read zeros and
//   give the part's rows no gradient.
// RUN: mem-run %s --func=stats --check-gradients --gradcheck-samples=100 | FileCheck %s --check-prefix=STATS
// RUN: mem-run %s --func=ignore --check-gradients --gradcheck-samples=100 | FileCheck %s --check-prefix=IGNORE
// RUN: mem-run %s --func=embedding --check-gradients --gradcheck-samples=100 | FileCheck %s --check-prefix=EMBED
// STATS: gradcheck stats.logits: 48 elements
// STATS: gradcheck: passed, 1 parameters, 48 elements
// IGNORE: gradcheck ignore.logits: 48 elements
// IGNORE: gradcheck: passed, 1 parameters, 48 elements
// EMBED: gradcheck embedding.table: 12 elements
// EMBED: gradcheck: passed, 1 parameters, 12 elements

func.func @stats(%m: tensor<2x4xf64>, %labels: tensor<2x4xi64>) -> tensor<f64> {
  %part = arith.constant 1 : index
  %logits = train.param "stats.logits" : tensor<2x4x6xf64>
  %s = train.vocab_parallel_stats %logits, %m, %labels part %part of 2 : tensor<2x4x6xf64>, tensor<2x4xf64>, tensor<2x4xi64> -> tensor<2x2x4xf64>
  %l = train.cross_entropy_from_stats %s, %labels : tensor<2x2x4xf64>, tensor<2x4xi64> -> tensor<f64>
  return %l : tensor<f64>
}

func.func @ignore(%m: tensor<2x4xf64>, %labels: tensor<2x4xi64>) -> tensor<f64> {
  %part = arith.constant 1 : index
  %logits = train.param "ignore.logits" : tensor<2x4x6xf64>
  %s = train.vocab_parallel_stats %logits, %m, %labels part %part of 2 : tensor<2x4x6xf64>, tensor<2x4xf64>, tensor<2x4xi64> -> tensor<2x2x4xf64>
  %l = train.cross_entropy_from_stats %s, %labels {ignore_index = 7 : i64} : tensor<2x2x4xf64>, tensor<2x4xi64> -> tensor<f64>
  return %l : tensor<f64>
}

func.func @embedding(%r: tensor<2x4x4xf64>, %ids: tensor<2x4xi64>) -> tensor<f64> {
  %part = arith.constant 1 : index
  %t = train.param "embedding.table" : tensor<3x4xf64>
  %e = train.embedding %t, %ids part %part of 2 : tensor<3x4xf64>, tensor<2x4xi64> -> tensor<2x4x4xf64>
  %e2 = train.mul %e, %e : tensor<2x4x4xf64>
  %y = train.mul %e2, %r : tensor<2x4x4xf64>
  %l = train.reduce_sum %y {dims = array<i64: 0, 1, 2>} : tensor<2x4x4xf64> -> tensor<f64>
  return %l : tensor<f64>
}
