// RUN: mem-opt --mlir-print-debuginfo=false %s --train-shard='tp=2 sequence-parallel=true vocab-parallel=false' 2>/dev/null | FileCheck %s
// RUN: mem-opt --mlir-print-debuginfo=false %s --train-autodiff=optimizer=sgd --train-shard='tp=2 sequence-parallel=true vocab-parallel=false' 2>/dev/null | FileCheck %s --check-prefix=STEP

// Sharding the forward pass and then deriving the step gives the program
// train-shard derives from the whole step.
// RUN: mem-opt %s --train-shard='tp=2 dp=2 sequence-parallel=true vocab-parallel=false' --train-autodiff=optimizer=sgd --mlir-print-debuginfo=false -o %t.a 2>/dev/null
// RUN: mem-opt %s --train-autodiff=optimizer=sgd --train-shard='tp=2 dp=2 sequence-parallel=true vocab-parallel=false' --mlir-print-debuginfo=false -o %t.b 2>/dev/null
// RUN: diff %t.a %t.b
// RUN: mem-opt --mlir-print-debuginfo=false %s --train-shard='tp=2 sequence-parallel=true' | FileCheck %s --check-prefix=VOCAB
// RUN: mem-opt --mlir-print-debuginfo=false %s --train-autodiff=optimizer=sgd --train-shard='tp=2 sequence-parallel=true' | FileCheck %s --check-prefix=VSTEP
// RUN: mem-opt %s --train-shard='tp=2 dp=2 sequence-parallel=true' --train-autodiff=optimizer=sgd --mlir-print-debuginfo=false -o %t.c
// RUN: mem-opt %s --train-autodiff=optimizer=sgd --train-shard='tp=2 dp=2 sequence-parallel=true' --mlir-print-debuginfo=false -o %t.d
// RUN: diff %t.c %t.d

// Sequence parallelism with tp=2, the LM head per token (vocab-parallel=false;
// test/Transforms/train-shard-vocab.mlir has it vocabulary-parallel, the
// default): the token ids and labels are split along
// dimension 1 (the sequence) over grid axis 1, so the embedding, the layer
// norm, the residual add, the LM head and the loss each work on half of the
// tokens. The tables and norm weights those per-token ops read enter
// through copy_to_parallel (their gradients sum the processes' shares). The
// MLP's input is gathered along the sequence (instead of copy_to_parallel)
// and its partial sums reduce-scattered along it (instead of all-reduced).
// The loss is a process's share: it is averaged over the axis.
// CHECK-LABEL: func.func @block(
// CHECK-SAME:      %[[IDS:[^:]+]]: tensor<2x4xi64> {train.split = array<i64: 1, 1, 1>}, %[[L:[^:]+]]: tensor<2x4xi64> {train.split = array<i64: 1, 1, 1>}) -> tensor<f32>
// CHECK-SAME:      attributes {train.shard = {dp = 1 : i64, grid = @grid, sequence_parallel, tp = 2 : i64, zero = 0 : i64}}
// CHECK:         %[[WTE:.+]] = train.copy_to_parallel %wte on @grid grid_axes = [1] : tensor<16x8xf32>
// CHECK-NEXT:    %[[X:.+]] = train.embedding %[[WTE]], %[[IDS]] : tensor<16x8xf32>, tensor<2x4xi64> -> tensor<2x4x8xf32>
// CHECK:         train.copy_to_parallel %ln.weight on @grid grid_axes = [1] : tensor<8xf32>
// CHECK:         train.copy_to_parallel %ln.bias on @grid grid_axes = [1] : tensor<8xf32>
// CHECK:         %[[N:.+]], %{{.+}}, %{{.+}} = train.layer_norm %[[X]], {{.*}} -> tensor<2x4x8xf32>, tensor<2x4xf32>, tensor<2x4xf32>
// CHECK-NEXT:    %[[G:.+]] = shard.all_gather %[[N]] on @grid grid_axes = [1] gather_axis = 1 : tensor<2x4x8xf32> -> tensor<2x8x8xf32>
// CHECK-NEXT:    %fc1.weight = train.param "fc1.weight" {train.split = array<i64: 1, 1, 1>} : tensor<8x8xf32>
// CHECK-NEXT:    train.matmul %[[G]], %fc1.weight : tensor<2x8x8xf32>, tensor<8x8xf32> -> tensor<2x8x8xf32>
// CHECK:         %[[P:.+]] = train.matmul %{{.+}}, %fc2.weight : tensor<2x8x8xf32>, tensor<8x8xf32> -> tensor<2x8x8xf32>
// CHECK-NEXT:    %[[RS:.+]] = shard.reduce_scatter %[[P]] on @grid grid_axes = [1] scatter_axis = 1 : tensor<2x8x8xf32> -> tensor<2x4x8xf32>
// CHECK-NEXT:    %[[R:.+]] = train.add %[[X]], %[[RS]] : tensor<2x4x8xf32>
// CHECK:         %[[HEAD:.+]] = train.copy_to_parallel %head.weight on @grid grid_axes = [1] : tensor<8x16xf32>
// CHECK-NEXT:    %[[LOGITS:.+]] = train.matmul %[[R]], %[[HEAD]] : tensor<2x4x8xf32>, tensor<8x16xf32> -> tensor<2x4x16xf32>
// CHECK-NEXT:    %[[LOSS:.+]] = train.cross_entropy %[[LOGITS]], %[[L]] : tensor<2x4x16xf32>, tensor<2x4xi64> -> tensor<f32>
// CHECK-NEXT:    %[[AVG:.+]] = shard.all_reduce %[[LOSS]] on @grid grid_axes = [1] reduction = average : tensor<f32> -> tensor<f32>
// CHECK-NEXT:    return %[[AVG]] : tensor<f32>

// The step: each process's loss counts 1/tp (the seed is 0.5), the
// gradients of the gather and reduce-scatter are a reduce-scatter and a
// gather, the backward pass gathers the MLP's input again (each process
// saves only its part of it), and the per-token ops' weights get
// all-reduced gradients.
// STEP-LABEL: func.func @block(
// STEP:         %[[N:.+]], %{{.+}}, %{{.+}} = train.layer_norm
// STEP:         %cst = arith.constant dense<5.000000e-01> : tensor<f32>
// STEP:         shard.all_gather %{{.+}} on @grid grid_axes = [1] gather_axis = 1 : tensor<2x4x8xf32> -> tensor<2x8x8xf32>
// STEP:         %[[AGAIN:.+]] = shard.all_gather %[[N]] on @grid grid_axes = [1] gather_axis = 1 : tensor<2x4x8xf32> -> tensor<2x8x8xf32>
// STEP:         shard.reduce_scatter %{{.+}} on @grid grid_axes = [1] scatter_axis = 1 : tensor<2x8x8xf32> -> tensor<2x4x8xf32>
// STEP:         train.layer_norm_grad
// STEP:         %[[DWTE:.+]] = shard.all_reduce %{{.+}} on @grid grid_axes = [1] : tensor<16x8xf32> -> tensor<16x8xf32>
// STEP:         train.sgd %wte, %[[DWTE]]
// With the vocabulary-parallel head (the default; Megatron-LM combines the
// two): the ids and the labels are whole, the embedding looks up its
// vocabulary part's rows of the whole sequence and reduce-scatters them along
// it, the head is column-parallel with its input gathered along the
// sequence, and the loss, whole on every process, is not averaged over the
// axis: its gradient is seeded with 1.
// VOCAB-LABEL: func.func @block(
// VOCAB-SAME:      %[[IDS:[^:]+]]: tensor<2x8xi64>, %[[L:[^:]+]]: tensor<2x8xi64>) -> tensor<f32>
// VOCAB:         %[[P:.+]] = shard.process_multi_index on @grid axes = [1] : index
// VOCAB-NEXT:    %wte = train.param "wte" {train.split = array<i64: 0, 1, 1>} : tensor<8x8xf32>
// VOCAB-NEXT:    %[[E:.+]] = train.embedding %wte, %[[IDS]] part %[[P]] of 2 : tensor<8x8xf32>, tensor<2x8xi64> -> tensor<2x8x8xf32>
// VOCAB-NEXT:    %[[X:.+]] = shard.reduce_scatter %[[E]] on @grid grid_axes = [1] scatter_axis = 1 : tensor<2x8x8xf32> -> tensor<2x4x8xf32>
// VOCAB:         %[[R:.+]] = train.add %[[X]], %{{.+}} : tensor<2x4x8xf32>
// VOCAB-NEXT:    %[[G:.+]] = shard.all_gather %[[R]] on @grid grid_axes = [1] gather_axis = 1 : tensor<2x4x8xf32> -> tensor<2x8x8xf32>
// VOCAB-NEXT:    %head.weight = train.param "head.weight" {train.split = array<i64: 1, 1, 1>} : tensor<8x8xf32>
// VOCAB-NEXT:    %[[LOGITS:.+]] = train.matmul %[[G]], %head.weight : tensor<2x8x8xf32>, tensor<8x8xf32> -> tensor<2x8x8xf32>
// VOCAB:         train.vocab_parallel_stats %[[LOGITS]], %{{.+}}, %[[L]] part %[[P]] of 2
// VOCAB:         %[[LOSS:.+]] = train.cross_entropy_from_stats %{{.+}}, %[[L]] : tensor<2x2x8xf32>, tensor<2x8xi64> -> tensor<f32>
// VOCAB-NEXT:    return %[[LOSS]] : tensor<f32>
// VSTEP-LABEL: func.func @block(
// VSTEP:         arith.constant dense<1.000000e+00> : tensor<f32>
// VSTEP-NEXT:    train.cross_entropy_from_stats_grad
func.func @block(%ids: tensor<2x8xi64>, %labels: tensor<2x8xi64>) -> tensor<f32> {
  %wte = train.param "wte" : tensor<16x8xf32>
  %x = train.embedding %wte, %ids : tensor<16x8xf32>, tensor<2x8xi64> -> tensor<2x8x8xf32>
  %g = train.param "ln.weight" : tensor<8xf32>
  %b = train.param "ln.bias" : tensor<8xf32>
  %n, %mean, %rstd = train.layer_norm %x, %g, %b : tensor<2x8x8xf32>, tensor<8xf32>, tensor<8xf32> -> tensor<2x8x8xf32>, tensor<2x8xf32>, tensor<2x8xf32>
  %w1 = train.param "fc1.weight" : tensor<8x16xf32>
  %h = train.matmul %n, %w1 : tensor<2x8x8xf32>, tensor<8x16xf32> -> tensor<2x8x16xf32>
  %a = train.relu %h : tensor<2x8x16xf32>
  %w2 = train.param "fc2.weight" : tensor<16x8xf32>
  %y = train.matmul %a, %w2 : tensor<2x8x16xf32>, tensor<16x8xf32> -> tensor<2x8x8xf32>
  %r = train.add %x, %y : tensor<2x8x8xf32>
  %head = train.param "head.weight" : tensor<8x16xf32>
  %logits = train.matmul %r, %head : tensor<2x8x8xf32>, tensor<8x16xf32> -> tensor<2x8x16xf32>
  %loss = train.cross_entropy %logits, %labels : tensor<2x8x16xf32>, tensor<2x8xi64> -> tensor<f32>
  return %loss : tensor<f32>
}
