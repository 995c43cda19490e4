// RUN: mem-opt %s -split-input-file -verify-diagnostics --train-shard='tp=2 sequence-parallel=true' -o /dev/null
// RUN: not mem-opt %s --train-shard='sequence-parallel=true' 2>&1 | FileCheck %s --check-prefix=TP1
// RUN: mem-gen mlp --batch 4 --train --precision=fp16-mixed | not mem-opt --train-shard='tp=2 sequence-parallel=true' 2>&1 | FileCheck %s --check-prefix=DYNAMIC

// TP1: error: train-shard: sequence-parallel splits the sequence over the tensor-parallel processes, and tp=1 has one; give tp > 1
// DYNAMIC: error: train-shard: @mlp has dynamic loss scaling, which train-shard cannot combine with sequence-parallel

// A sequence of 3 tokens does not split over tp=2.
// expected-error @+1 {{train-shard: argument 0 ('tensor<2x3x8xf32>') cannot be split along the sequence over tp=2: sequence parallelism splits dimension 1 of every argument}}
func.func @odd_sequence(%x: tensor<2x3x8xf32>, %t: tensor<2x3x8xf32>) -> tensor<f32> {
  %w1 = train.param "fc1.weight" : tensor<8x16xf32>
  %h = train.matmul %x, %w1 : tensor<2x3x8xf32>, tensor<8x16xf32> -> tensor<2x3x16xf32>
  %w2 = train.param "fc2.weight" : tensor<16x8xf32>
  %y = train.matmul %h, %w2 : tensor<2x3x16xf32>, tensor<16x8xf32> -> tensor<2x3x8xf32>
  %l = train.mse_loss %y, %t : tensor<2x3x8xf32>, tensor<2x3x8xf32> -> tensor<f32>
  return %l : tensor<f32>
}

// -----

// A reduction over the sequence mixes the processes' tokens.
func.func @sum_over_sequence(%x: tensor<2x4x8xf32>, %t: tensor<2x8xf32>) -> tensor<f32> {
  %w1 = train.param "fc1.weight" : tensor<8x16xf32>
  %h = train.matmul %x, %w1 : tensor<2x4x8xf32>, tensor<8x16xf32> -> tensor<2x4x16xf32>
  %w2 = train.param "fc2.weight" : tensor<16x8xf32>
  %y = train.matmul %h, %w2 : tensor<2x4x16xf32>, tensor<16x8xf32> -> tensor<2x4x8xf32>
  // expected-error @+1 {{'train.reduce_sum' op cannot be sequence-parallel: no sequence-parallel rule; train-shard splits only per-token ops along the sequence}}
  %s = train.reduce_sum %y {dims = array<i64: 1>} : tensor<2x4x8xf32> -> tensor<2x8xf32>
  %l = train.mse_loss %s, %t : tensor<2x8xf32>, tensor<2x8xf32> -> tensor<f32>
  return %l : tensor<f32>
}

// -----

// A whole value that is not a parameter (a constant) cannot meet a
// sequence-split one.
func.func @constant(%x: tensor<2x4x8xf32>, %t: tensor<2x4x8xf32>) -> tensor<f32> {
  %c = arith.constant dense<1.0> : tensor<2x4x8xf32>
  // expected-error @+1 {{'train.add' op cannot be sequence-parallel: it combines a sequence-split value with a whole one that is not a parameter}}
  %xc = train.add %x, %c : tensor<2x4x8xf32>
  %w1 = train.param "fc1.weight" : tensor<8x16xf32>
  %h = train.matmul %xc, %w1 : tensor<2x4x8xf32>, tensor<8x16xf32> -> tensor<2x4x16xf32>
  %w2 = train.param "fc2.weight" : tensor<16x8xf32>
  %y = train.matmul %h, %w2 : tensor<2x4x16xf32>, tensor<16x8xf32> -> tensor<2x4x8xf32>
  %l = train.mse_loss %y, %t : tensor<2x4x8xf32>, tensor<2x4x8xf32> -> tensor<f32>
  return %l : tensor<f32>
}

// -----

// A vocabulary-parallel embedding looks up the ids of the whole sequence; ids
// that something else reads too (here a second, position-like embedding) are
// split along the sequence, and the vocabulary part cannot be looked up.
func.func @split_vocab_ids(%ids: tensor<2x8xi64>, %labels: tensor<2x8xi64>) -> tensor<f32> {
  %wte = train.param "wte" : tensor<16x8xf32>
  // expected-error @+1 {{'train.embedding' op cannot be sequence-parallel: a vocabulary-parallel embedding needs the ids of the whole sequence (dimension 1), as an argument that only such embeddings read}}
  %x = train.embedding %wte, %ids : tensor<16x8xf32>, tensor<2x8xi64> -> tensor<2x8x8xf32>
  %wpe = train.param "wpe" : tensor<32x8xf32>
  %p = train.embedding %wpe, %ids : tensor<32x8xf32>, tensor<2x8xi64> -> tensor<2x8x8xf32>
  %s = train.add %x, %p : tensor<2x8x8xf32>
  %w1 = train.param "fc1.weight" : tensor<8x16xf32>
  %h = train.matmul %s, %w1 : tensor<2x8x8xf32>, tensor<8x16xf32> -> tensor<2x8x16xf32>
  %a = train.relu %h : tensor<2x8x16xf32>
  %w2 = train.param "fc2.weight" : tensor<16x8xf32>
  %y = train.matmul %a, %w2 : tensor<2x8x16xf32>, tensor<16x8xf32> -> tensor<2x8x8xf32>
  %logits = train.matmul %y, %wte {transpose_rhs} : tensor<2x8x8xf32>, tensor<16x8xf32> -> tensor<2x8x16xf32>
  %loss = train.cross_entropy %logits, %labels : tensor<2x8x16xf32>, tensor<2x8xi64> -> tensor<f32>
  return %loss : tensor<f32>
}
