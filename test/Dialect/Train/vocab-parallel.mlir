// RUN: mem-opt --mlir-print-debuginfo=false %s -split-input-file -verify-diagnostics | mem-opt --mlir-print-debuginfo=false -split-input-file | FileCheck %s
// RUN: mem-opt --mlir-print-debuginfo=false %s -split-input-file -verify-diagnostics --mlir-print-op-generic | mem-opt --mlir-print-debuginfo=false -split-input-file | FileCheck %s

// Round trip of the vocabulary-parallel ops (the forms train-shard creates)
// through the custom and the generic form, and their verifiers (the invalid
// cases below produce no output).

// CHECK-LABEL: func.func @vocab_parallel(
// CHECK:         %[[P:.+]] = shard.process_multi_index on @grid axes = [1] : index
// CHECK:         %[[E:.+]] = train.embedding %{{.+}}, %{{.+}} part %[[P]] of 2 : tensor<3x8xf32>, tensor<2x4xi64> -> tensor<2x4x8xf32>
// CHECK-NEXT:    %{{.+}} = train.embedding_grad %[[E]], %{{.+}} part %[[P]] of 2 : tensor<2x4x8xf32>, tensor<2x4xi64> -> tensor<3x8xf32>
// CHECK-NEXT:    %[[M:.+]] = train.row_max %{{.+}} : tensor<2x4x3xbf16> -> tensor<2x4xf32>
// CHECK-NEXT:    %[[S:.+]] = train.vocab_parallel_stats %{{.+}}, %[[M]], %{{.+}} part %[[P]] of 2 : tensor<2x4x3xbf16>, tensor<2x4xf32>, tensor<2x4xi64> -> tensor<2x2x4xf32>
// CHECK-NEXT:    %[[L:.+]] = train.cross_entropy_from_stats %[[S]], %{{.+}} {ignore_index = -100 : i64} : tensor<2x2x4xf32>, tensor<2x4xi64> -> tensor<f32>
// CHECK-NEXT:    %[[DS:.+]] = train.cross_entropy_from_stats_grad %[[L]], %[[S]], %{{.+}} {ignore_index = -100 : i64} : tensor<f32>, tensor<2x2x4xf32>, tensor<2x4xi64> -> tensor<2x2x4xf32>
// CHECK-NEXT:    %{{.+}} = train.vocab_parallel_stats_grad %[[DS]], %{{.+}}, %[[M]], %{{.+}} part %[[P]] of 2 : tensor<2x2x4xf32>, tensor<2x4x3xbf16>, tensor<2x4xf32>, tensor<2x4xi64> -> tensor<2x4x3xbf16>
shard.grid @grid(shape = 1x2)
func.func @vocab_parallel(%ids: tensor<2x4xi64>, %labels: tensor<2x4xi64>, %logits: tensor<2x4x3xbf16>) {
  %p = shard.process_multi_index on @grid axes = [1] : index
  %t = train.param "wte" : tensor<3x8xf32>
  %e = train.embedding %t, %ids part %p of 2 : tensor<3x8xf32>, tensor<2x4xi64> -> tensor<2x4x8xf32>
  %dt = train.embedding_grad %e, %ids part %p of 2 : tensor<2x4x8xf32>, tensor<2x4xi64> -> tensor<3x8xf32>
  %m = train.row_max %logits : tensor<2x4x3xbf16> -> tensor<2x4xf32>
  %s = train.vocab_parallel_stats %logits, %m, %labels part %p of 2 : tensor<2x4x3xbf16>, tensor<2x4xf32>, tensor<2x4xi64> -> tensor<2x2x4xf32>
  %l = train.cross_entropy_from_stats %s, %labels {ignore_index = -100 : i64} : tensor<2x2x4xf32>, tensor<2x4xi64> -> tensor<f32>
  %ds = train.cross_entropy_from_stats_grad %l, %s, %labels {ignore_index = -100 : i64} : tensor<f32>, tensor<2x2x4xf32>, tensor<2x4xi64> -> tensor<2x2x4xf32>
  %dl = train.vocab_parallel_stats_grad %ds, %logits, %m, %labels part %p of 2 : tensor<2x2x4xf32>, tensor<2x4x3xbf16>, tensor<2x4xf32>, tensor<2x4xi64> -> tensor<2x4x3xbf16>
  return
}

// -----

func.func @embedding_parts_without_part(%t: tensor<3x8xf32>, %ids: tensor<2xi64>) {
  // expected-error @+1 {{'train.embedding' op expected both a vocabulary part and a part count, or neither}}
  %e = "train.embedding"(%t, %ids) {parts = 2 : i64} : (tensor<3x8xf32>, tensor<2xi64>) -> tensor<2x8xf32>
  return
}

// -----

func.func @embedding_zero_parts(%t: tensor<3x8xf32>, %ids: tensor<2xi64>) {
  %p = arith.constant 0 : index
  // expected-error @+1 {{'train.embedding' op expected at least one vocabulary part, got 0}}
  %e = train.embedding %t, %ids part %p of 0 : tensor<3x8xf32>, tensor<2xi64> -> tensor<2x8xf32>
  return
}

// -----

func.func @embedding_grad_too_many_parts(%g: tensor<2x8xf32>, %ids: tensor<2xi64>) {
  %p = arith.constant 0 : index
  // expected-error @+1 {{'train.embedding_grad' op expected 4611686018427387904 parts of 3 rows to total at most 2^63 - 1}}
  %t = train.embedding_grad %g, %ids part %p of 4611686018427387904 : tensor<2x8xf32>, tensor<2xi64> -> tensor<3x8xf32>
  return
}

// -----

func.func @row_max_shape(%x: tensor<2x4x3xf32>) {
  // expected-error @+1 {{'train.row_max' op expected result of shape 2x4, got 2x3}}
  %m = train.row_max %x : tensor<2x4x3xf32> -> tensor<2x3xf32>
  return
}

// -----

func.func @row_max_type(%x: tensor<2x4x3xbf16>) {
  // expected-error @+1 {{'train.row_max' op expected an f32 or f64 result, got 'bf16'}}
  %m = train.row_max %x : tensor<2x4x3xbf16> -> tensor<2x4xbf16>
  return
}

// -----

func.func @stats_shape(%x: tensor<2x4x3xf32>, %m: tensor<2x4xf32>, %y: tensor<2x4xi64>) {
  %p = arith.constant 0 : index
  // expected-error @+1 {{'train.vocab_parallel_stats' op expected statistics of shape 2x2x4, got 2x4}}
  %s = train.vocab_parallel_stats %x, %m, %y part %p of 2 : tensor<2x4x3xf32>, tensor<2x4xf32>, tensor<2x4xi64> -> tensor<2x4xf32>
  return
}

// -----

func.func @stats_labels(%x: tensor<2x4x3xf32>, %m: tensor<2x4xf32>, %y: tensor<4xi64>) {
  %p = arith.constant 0 : index
  // expected-error @+1 {{'train.vocab_parallel_stats' op expected labels of shape 2x4, got 4}}
  %s = train.vocab_parallel_stats %x, %m, %y part %p of 2 : tensor<2x4x3xf32>, tensor<2x4xf32>, tensor<4xi64> -> tensor<2x2x4xf32>
  return
}

// -----

func.func @stats_max_type(%x: tensor<2x4x3xf32>, %m: tensor<2x4xbf16>, %y: tensor<2x4xi64>) {
  %p = arith.constant 0 : index
  // expected-error @+1 {{'train.vocab_parallel_stats' op expected an f32 or f64 max, got 'bf16'}}
  %s = train.vocab_parallel_stats %x, %m, %y part %p of 2 : tensor<2x4x3xf32>, tensor<2x4xbf16>, tensor<2x4xi64> -> tensor<2x2x4xbf16>
  return
}

// -----

func.func @stats_element_type(%x: tensor<2x4x3xf32>, %m: tensor<2x4xf32>, %y: tensor<2x4xi64>) {
  %p = arith.constant 0 : index
  // expected-error @+1 {{'train.vocab_parallel_stats' op expected statistics element type 'f32', got 'f64'}}
  %s = train.vocab_parallel_stats %x, %m, %y part %p of 2 : tensor<2x4x3xf32>, tensor<2x4xf32>, tensor<2x4xi64> -> tensor<2x2x4xf64>
  return
}

// -----

func.func @stats_zero_parts(%x: tensor<2x4x3xf32>, %m: tensor<2x4xf32>, %y: tensor<2x4xi64>) {
  %p = arith.constant 0 : index
  // expected-error @+1 {{'train.vocab_parallel_stats' op expected at least one vocabulary part, got -1}}
  %s = train.vocab_parallel_stats %x, %m, %y part %p of -1 : tensor<2x4x3xf32>, tensor<2x4xf32>, tensor<2x4xi64> -> tensor<2x2x4xf32>
  return
}

// -----

func.func @stats_grad_result(%g: tensor<2x2x4xf32>, %x: tensor<2x4x3xf32>, %m: tensor<2x4xf32>, %y: tensor<2x4xi64>) {
  %p = arith.constant 0 : index
  // expected-error @+1 {{'train.vocab_parallel_stats_grad' op expected result element type 'f32', got 'bf16'}}
  %d = train.vocab_parallel_stats_grad %g, %x, %m, %y part %p of 2 : tensor<2x2x4xf32>, tensor<2x4x3xf32>, tensor<2x4xf32>, tensor<2x4xi64> -> tensor<2x4x3xbf16>
  return
}

// -----

func.func @from_stats_rows(%s: tensor<3x4xf32>, %y: tensor<4xi64>) {
  // expected-error @+1 {{'train.cross_entropy_from_stats' op expected statistics of shape 2x4, got 3x4}}
  %l = train.cross_entropy_from_stats %s, %y : tensor<3x4xf32>, tensor<4xi64> -> tensor<f32>
  return
}

// -----

func.func @from_stats_labels(%s: tensor<2x4xf32>, %y: tensor<2xi64>) {
  // expected-error @+1 {{'train.cross_entropy_from_stats' op expected labels of shape 4, got 2}}
  %l = train.cross_entropy_from_stats %s, %y : tensor<2x4xf32>, tensor<2xi64> -> tensor<f32>
  return
}

// -----

func.func @from_stats_grad_result(%g: tensor<f32>, %s: tensor<2x4xf32>, %y: tensor<4xi64>) {
  // expected-error @+1 {{'train.cross_entropy_from_stats_grad' op expected result of shape 2x4, got 4}}
  %d = train.cross_entropy_from_stats_grad %g, %s, %y : tensor<f32>, tensor<2x4xf32>, tensor<4xi64> -> tensor<4xf32>
  return
}
