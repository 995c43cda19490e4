// RUN: mem-opt --mlir-print-debuginfo=false %s -split-input-file --train-shard=tp=2 | FileCheck %s
// RUN: mem-opt --mlir-print-debuginfo=false %s -split-input-file --train-shard='tp=2 dp=2' | FileCheck %s --check-prefix=DP
// RUN: mem-opt --mlir-print-debuginfo=false %s -split-input-file --train-autodiff --train-shard=tp=2 | FileCheck %s --check-prefix=STEP
// RUN: mem-opt %s -split-input-file --train-shard=tp=2 -o /dev/null 2>&1 | FileCheck %s --check-prefix=WARN
// RUN: not mem-opt %s -split-input-file --train-shard='tp=2 vocab-parallel=false' -o /dev/null 2>&1 | FileCheck %s --check-prefix=OFF

// Sharding the forward pass and then deriving the step gives the program
// train-shard derives from the whole step.
// RUN: mem-opt %s -split-input-file --train-shard='tp=2 dp=2' --train-autodiff --mlir-print-debuginfo=false -o %t.a
// RUN: mem-opt %s -split-input-file --train-autodiff --train-shard='tp=2 dp=2' --mlir-print-debuginfo=false -o %t.b
// RUN: diff %t.a %t.b

// Vocabulary parallelism (Megatron-LM's vocab-parallel embedding and
// cross-entropy): a matmul of a parameter whose output reaches
// train.cross_entropy as the logits is column-parallel, its weight split
// along the classes, so each process holds the logits of its part of the
// vocabulary. The loss is computed from the row maximum (all-reduced with
// max) and the part's statistics (all-reduced with sum). An embedding of
// the head's table (tied) looks up the rows its part holds, and an
// all-reduce sums the parts' rows.

// CHECK-LABEL: func.func @tied(
// CHECK-SAME:      %[[IDS:[^:]+]]: tensor<2x4xi64>, %[[LABELS:[^:]+]]: tensor<2x4xi64>)
// CHECK-NEXT:    %[[P:.+]] = shard.process_multi_index on @grid axes = [1] : index
// CHECK-NEXT:    %[[WTE:.+]] = train.param "wte.weight" {train.split = array<i64: 0, 1, 1>} : tensor<6x8xf32>
// CHECK-NEXT:    %[[E:.+]] = train.embedding %[[WTE]], %[[IDS]] part %[[P]] of 2 : tensor<6x8xf32>, tensor<2x4xi64> -> tensor<2x4x8xf32>
// CHECK-NEXT:    %[[X:.+]] = shard.all_reduce %[[E]] on @grid grid_axes = [1] : tensor<2x4x8xf32> -> tensor<2x4x8xf32>
// CHECK:         %[[Y:.+]] = shard.all_reduce %{{.+}} on @grid grid_axes = [1] : tensor<2x4x8xf32> -> tensor<2x4x8xf32>
// CHECK-NEXT:    %[[YP:.+]] = train.copy_to_parallel %[[Y]] on @grid grid_axes = [1] : tensor<2x4x8xf32>
// CHECK-NEXT:    %[[LOGITS:.+]] = train.matmul %[[YP]], %[[WTE]] {transpose_rhs} : tensor<2x4x8xf32>, tensor<6x8xf32> -> tensor<2x4x6xf32>
// CHECK-NEXT:    %[[M:.+]] = train.row_max %[[LOGITS]] : tensor<2x4x6xf32> -> tensor<2x4xf32>
// CHECK-NEXT:    %[[MAX:.+]] = shard.all_reduce %[[M]] on @grid grid_axes = [1] reduction = max : tensor<2x4xf32> -> tensor<2x4xf32>
// CHECK-NEXT:    %[[S:.+]] = train.vocab_parallel_stats %[[LOGITS]], %[[MAX]], %[[LABELS]] part %[[P]] of 2 : tensor<2x4x6xf32>, tensor<2x4xf32>, tensor<2x4xi64> -> tensor<2x2x4xf32>
// CHECK-NEXT:    %[[SUM:.+]] = shard.all_reduce %[[S]] on @grid grid_axes = [1] : tensor<2x2x4xf32> -> tensor<2x2x4xf32>
// CHECK-NEXT:    %[[L:.+]] = train.cross_entropy_from_stats %[[SUM]], %[[LABELS]] : tensor<2x2x4xf32>, tensor<2x4xi64> -> tensor<f32>
// CHECK-NEXT:    return %[[L]] : tensor<f32>

// With dp=2 the batch is split too; the loss is averaged over the
// data-parallel axis.
// DP-LABEL:   func.func @tied(
// DP:           train.vocab_parallel_stats %{{.+}}, %{{.+}}, %{{.+}} part %{{.+}} of 2 : tensor<1x4x6xf32>, tensor<1x4xf32>, tensor<1x4xi64> -> tensor<2x1x4xf32>
// DP:           %[[L:.+]] = train.cross_entropy_from_stats
// DP-NEXT:      %[[AVG:.+]] = shard.all_reduce %[[L]] on @grid grid_axes = [0] reduction = average : tensor<f32> -> tensor<f32>
// DP-NEXT:      return %[[AVG]] : tensor<f32>

// The backward pass: the loss gradient flows through the statistics (the
// maximum gets none), and the table's gradient sums the head's part and the
// embedding's part (ids outside the part add nothing).
// STEP-LABEL: func.func @tied(
// STEP:         %[[DS:.+]] = train.cross_entropy_from_stats_grad %{{.+}}, %{{.+}}, %{{.+}} : tensor<f32>, tensor<2x2x4xf32>, tensor<2x4xi64> -> tensor<2x2x4xf32>
// STEP-NEXT:    %[[DL:.+]] = train.vocab_parallel_stats_grad %[[DS]], %{{.+}}, %{{.+}}, %{{.+}} part %{{.+}} of 2 : tensor<2x2x4xf32>, tensor<2x4x6xf32>, tensor<2x4xf32>, tensor<2x4xi64> -> tensor<2x4x6xf32>
// STEP:         %[[DT:.+]] = train.embedding_grad %{{.+}}, %{{.+}} part %{{.+}} of 2 : tensor<2x4x8xf32>, tensor<2x4xi64> -> tensor<6x8xf32>
// STEP-NEXT:    %[[DW:.+]] = train.add %{{.+}}, %[[DT]] : tensor<6x8xf32>
// STEP:         train.adam %{{.+}}, %[[DW]],

// WARN-NOT: warning
func.func @tied(%ids: tensor<2x4xi64>, %labels: tensor<2x4xi64>) -> tensor<f32> {
  %wte = train.param "wte.weight" : tensor<12x8xf32>
  %x = train.embedding %wte, %ids : tensor<12x8xf32>, tensor<2x4xi64> -> tensor<2x4x8xf32>
  %w1 = train.param "fc1.weight" : tensor<8x16xf32>
  %h = train.matmul %x, %w1 : tensor<2x4x8xf32>, tensor<8x16xf32> -> tensor<2x4x16xf32>
  %a = train.relu %h : tensor<2x4x16xf32>
  %w2 = train.param "fc2.weight" : tensor<16x8xf32>
  %y = train.matmul %a, %w2 : tensor<2x4x16xf32>, tensor<16x8xf32> -> tensor<2x4x8xf32>
  %logits = train.matmul %y, %wte {transpose_rhs} : tensor<2x4x8xf32>, tensor<12x8xf32> -> tensor<2x4x12xf32>
  %l = train.cross_entropy %logits, %labels : tensor<2x4x12xf32>, tensor<2x4xi64> -> tensor<f32>
  return %l : tensor<f32>
}

// -----

// An untied head (Llama's lm_head, [V, H] read transposed, with the logits
// cast to f32 as under mixed precision) and an embedding table with as many
// rows as the vocabulary, read only by embeddings: both are split along the
// vocabulary. The position embedding (another row count) stays whole.
// ignore_index carries over to the loss. Without vocabulary parallelism the
// head stays replicated, with a warning (a tied head stays replicated
// silently: its weight is not its own), and this function, with no other
// layer, cannot be sharded.
// CHECK-LABEL: func.func @untied(
// CHECK:         %[[P:.+]] = shard.process_multi_index on @grid axes = [1] : index
// CHECK-NEXT:    %[[TOK:.+]] = train.param "embed.weight" {train.split = array<i64: 0, 1, 1>} : tensor<6x8xf32>
// CHECK-NEXT:    %[[E:.+]] = train.embedding %[[TOK]], %{{.+}} part %[[P]] of 2 : tensor<6x8xf32>, tensor<2x4xi64> -> tensor<2x4x8xf32>
// CHECK-NEXT:    %{{.+}} = shard.all_reduce %[[E]] on @grid grid_axes = [1] : tensor<2x4x8xf32> -> tensor<2x4x8xf32>
// CHECK-NEXT:    %[[POS:.+]] = train.param "pos.weight" : tensor<4x8xf32>
// CHECK-NEXT:    %{{.+}} = train.embedding %[[POS]], %{{.+}} : tensor<4x8xf32>, tensor<2x4xi64> -> tensor<2x4x8xf32>
// CHECK:         %[[HEAD:.+]] = train.param "lm_head.weight" {train.split = array<i64: 0, 1, 1>} : tensor<6x8xf32>
// CHECK-NEXT:    %[[HEAD16:.+]] = train.cast %[[HEAD]] : tensor<6x8xf32> -> tensor<6x8xbf16>
// CHECK-NEXT:    %[[LOGITS:.+]] = train.matmul %{{.+}}, %[[HEAD16]] {transpose_rhs} : tensor<2x4x8xbf16>, tensor<6x8xbf16> -> tensor<2x4x6xbf16>
// CHECK-NEXT:    %[[WIDE:.+]] = train.cast %[[LOGITS]] : tensor<2x4x6xbf16> -> tensor<2x4x6xf32>
// CHECK-NEXT:    %{{.+}} = train.row_max %[[WIDE]] : tensor<2x4x6xf32> -> tensor<2x4xf32>
// CHECK:         train.cross_entropy_from_stats %{{.+}}, %{{.+}} {ignore_index = -100 : i64} : tensor<2x2x4xf32>, tensor<2x4xi64> -> tensor<f32>
// OFF: warning: train-shard keeps this matmul replicated (not column-parallel): its output reaches 'train.cross_entropy' (no tensor-parallel rule)
// OFF: error: 'func.func' op has no column-parallel layer for tp=2
func.func @untied(%ids: tensor<2x4xi64>, %pos: tensor<2x4xi64>, %labels: tensor<2x4xi64>) -> tensor<f32> {
  %embed = train.param "embed.weight" : tensor<12x8xf32>
  %e = train.embedding %embed, %ids : tensor<12x8xf32>, tensor<2x4xi64> -> tensor<2x4x8xf32>
  %wpe = train.param "pos.weight" : tensor<4x8xf32>
  %p = train.embedding %wpe, %pos : tensor<4x8xf32>, tensor<2x4xi64> -> tensor<2x4x8xf32>
  %x = train.add %e, %p : tensor<2x4x8xf32>
  %x16 = train.cast %x : tensor<2x4x8xf32> -> tensor<2x4x8xbf16>
  %w = train.param "lm_head.weight" : tensor<12x8xf32>
  %w16 = train.cast %w : tensor<12x8xf32> -> tensor<12x8xbf16>
  %logits = train.matmul %x16, %w16 {transpose_rhs} : tensor<2x4x8xbf16>, tensor<12x8xbf16> -> tensor<2x4x12xbf16>
  %wide = train.cast %logits : tensor<2x4x12xbf16> -> tensor<2x4x12xf32>
  %l = train.cross_entropy %wide, %labels {ignore_index = -100 : i64} : tensor<2x4x12xf32>, tensor<2x4xi64> -> tensor<f32>
  return %l : tensor<f32>
}

// -----

// A classifier with an MLP before its head: the MLP is tensor-parallel
// (column- then row-parallel) and the head vocabulary-parallel.
// CHECK-LABEL: func.func @lm_head(
// CHECK:         %[[P:.+]] = shard.process_multi_index on @grid axes = [1] : index
// CHECK:         %[[Y:.+]] = shard.all_reduce %{{.+}} on @grid grid_axes = [1] : tensor<4x8xf32> -> tensor<4x8xf32>
// CHECK-NEXT:    %[[YP:.+]] = train.copy_to_parallel %[[Y]] on @grid grid_axes = [1] : tensor<4x8xf32>
// CHECK-NEXT:    %[[WH:.+]] = train.param "head.weight" {train.split = array<i64: 1, 1, 1>} : tensor<8x3xf32>
// CHECK-NEXT:    %[[LOGITS:.+]] = train.matmul %[[YP]], %[[WH]] : tensor<4x8xf32>, tensor<8x3xf32> -> tensor<4x3xf32>
// CHECK-NEXT:    %[[M:.+]] = train.row_max %[[LOGITS]] : tensor<4x3xf32> -> tensor<4xf32>
// CHECK-NEXT:    %[[MAX:.+]] = shard.all_reduce %[[M]] on @grid grid_axes = [1] reduction = max : tensor<4xf32> -> tensor<4xf32>
// CHECK-NEXT:    %[[S:.+]] = train.vocab_parallel_stats %[[LOGITS]], %[[MAX]], %{{.+}} part %[[P]] of 2 : tensor<4x3xf32>, tensor<4xf32>, tensor<4xi64> -> tensor<2x4xf32>
// CHECK-NEXT:    %[[SUM:.+]] = shard.all_reduce %[[S]] on @grid grid_axes = [1] : tensor<2x4xf32> -> tensor<2x4xf32>
// CHECK-NEXT:    %[[L:.+]] = train.cross_entropy_from_stats %[[SUM]], %{{.+}} : tensor<2x4xf32>, tensor<4xi64> -> tensor<f32>
// CHECK-NEXT:    return %[[L]] : tensor<f32>
// OFF: warning: train-shard keeps this matmul replicated (not column-parallel): its output reaches 'train.cross_entropy' (no tensor-parallel rule)
func.func @lm_head(%x: tensor<4x8xf32>, %labels: tensor<4xi64>) -> tensor<f32> {
  %w1 = train.param "fc1.weight" : tensor<8x16xf32>
  %h = train.matmul %x, %w1 : tensor<4x8xf32>, tensor<8x16xf32> -> tensor<4x16xf32>
  %a = train.relu %h : tensor<4x16xf32>
  %w2 = train.param "fc2.weight" : tensor<16x8xf32>
  %y = train.matmul %a, %w2 : tensor<4x16xf32>, tensor<16x8xf32> -> tensor<4x8xf32>
  %wh = train.param "head.weight" : tensor<8x6xf32>
  %logits = train.matmul %y, %wh : tensor<4x8xf32>, tensor<8x6xf32> -> tensor<4x6xf32>
  %l = train.cross_entropy %logits, %labels : tensor<4x6xf32>, tensor<4xi64> -> tensor<f32>
  return %l : tensor<f32>
}

// -----

// A head whose classes tp does not divide stays replicated, with a warning
// (Megatron-LM pads the vocabulary instead); the MLP before it is still
// tensor-parallel.
// CHECK-LABEL: func.func @indivisible(
// CHECK:         %[[Y:.+]] = shard.all_reduce %{{.+}} on @grid grid_axes = [1] : tensor<4x8xf32> -> tensor<4x8xf32>
// CHECK-NEXT:    %[[WH:.+]] = train.param "head.weight" : tensor<8x5xf32>
// CHECK-NEXT:    %[[LOGITS:.+]] = train.matmul %[[Y]], %[[WH]] : tensor<4x8xf32>, tensor<8x5xf32> -> tensor<4x5xf32>
// CHECK-NEXT:    train.cross_entropy %[[LOGITS]], %{{.+}} : tensor<4x5xf32>, tensor<4xi64> -> tensor<f32>
// WARN: warning: train-shard keeps this matmul replicated (not vocabulary-parallel): its 5 classes do not divide by tp=2; pad the vocabulary to a multiple of tp (mem-gen --vocab) to split it, as Megatron-LM does
// WARN-NOT: warning
func.func @indivisible(%x: tensor<4x8xf32>, %labels: tensor<4xi64>) -> tensor<f32> {
  %w1 = train.param "fc1.weight" : tensor<8x16xf32>
  %h = train.matmul %x, %w1 : tensor<4x8xf32>, tensor<8x16xf32> -> tensor<4x16xf32>
  %a = train.relu %h : tensor<4x16xf32>
  %w2 = train.param "fc2.weight" : tensor<16x8xf32>
  %y = train.matmul %a, %w2 : tensor<4x16xf32>, tensor<16x8xf32> -> tensor<4x8xf32>
  %wh = train.param "head.weight" : tensor<8x5xf32>
  %logits = train.matmul %y, %wh : tensor<4x8xf32>, tensor<8x5xf32> -> tensor<4x5xf32>
  %l = train.cross_entropy %logits, %labels : tensor<4x5xf32>, tensor<4xi64> -> tensor<f32>
  return %l : tensor<f32>
}
