// RUN: mem-opt %s -split-input-file -verify-diagnostics --train-shard='tp=2 dp=2'
// RUN: not mem-opt %s --train-shard=tp=0 2>&1 | FileCheck %s --check-prefix=TP0
// RUN: not mem-opt %s --train-shard='tp=2 dp=0' 2>&1 | FileCheck %s --check-prefix=DP0
// RUN: not mem-opt %s --train-shard=tp=4294967296 2>&1 | FileCheck %s --check-prefix=TPMAX
// RUN: not mem-opt %s --train-shard='dp=65537' 2>&1 | FileCheck %s --check-prefix=DPMAX
// RUN: not mem-opt %s --train-shard='dp=2 zero=4' 2>&1 | FileCheck %s --check-prefix=ZERO4
// RUN: not mem-opt %s --train-shard='tp=2 zero=1' 2>&1 | FileCheck %s --check-prefix=ZERODP
// RUN: mem-gen mlp --batch 4 --train --precision=fp16-mixed | not mem-opt --train-shard='dp=2 zero=2' 2>&1 | FileCheck %s --check-prefix=ZERODYN

// A degree below 1 or above 65536 is an error of the pass options, before
// any IR is read.
// TP0: {{^}}mem-opt: error: train-shard: tp and dp must be from 1 to 65536 (processes per grid axis), got tp=0 dp=1{{$}}
// DP0: error: train-shard: tp and dp must be from 1 to 65536 (processes per grid axis), got tp=2 dp=0{{$}}
// TPMAX: error: train-shard: tp and dp must be from 1 to 65536 (processes per grid axis), got tp=4294967296 dp=1{{$}}
// DPMAX: error: train-shard: tp and dp must be from 1 to 65536 (processes per grid axis), got tp=1 dp=65537{{$}}

// ZeRO needs a stage from 0 to 3 and data-parallel processes to partition
// over; it cannot combine with dynamic loss scaling (each process would
// check only its part of the gradients).
// ZERO4: error: train-shard: zero must be a ZeRO stage from 0 to 3, got 4{{$}}
// ZERODP: error: train-shard: zero=1 partitions the model states over the data-parallel processes, and dp=1 has one; give dp > 1
// ZERODYN: <stdin>:2:3: error: train-shard: @mlp has dynamic loss scaling, which train-shard cannot combine with zero=2: each process would check only its part of the gradients for inf/NaN
// ZERODYN-NOT: see current operation

// 3 heads cannot be split over tp=2: in a region that closes (the heads
// reach a row-parallel matmul), an error of the input rather than a region
// train-shard keeps replicated.
func.func @heads(%x: tensor<2x4x12xf32>, %y: tensor<2x4x12xf32>) -> tensor<f32> {
  %wq = train.param "q.weight" : tensor<12x12xf32>
  %q = train.matmul %x, %wq : tensor<2x4x12xf32>, tensor<12x12xf32> -> tensor<2x4x12xf32>
  // expected-error @+1 {{'train.reshape' op cannot be sharded by train-shard: its 3 attention heads (dimension 2 of 'tensor<2x4x3x4xf32>') do not divide by tp=2; use a tp that divides the attention heads and the MLP width, and either divides the KV heads or is a multiple of them (each KV head is then replicated)}}
  %q1 = train.reshape %q : tensor<2x4x12xf32> -> tensor<2x4x3x4xf32>
  %q2 = train.reshape %q1 : tensor<2x4x3x4xf32> -> tensor<2x4x12xf32>
  %wo = train.param "o.weight" : tensor<12x12xf32>
  %o = train.matmul %q2, %wo : tensor<2x4x12xf32>, tensor<12x12xf32> -> tensor<2x4x12xf32>
  %l = train.mse_loss %o, %y : tensor<2x4x12xf32>, tensor<2x4x12xf32> -> tensor<f32>
  return %l : tensor<f32>
}

// -----

// A reshape into groups tp does not divide, in a region that would be
// kept replicated anyway (it reaches an mse_loss), is no error: the matmul
// stays replicated.
func.func @replicated_reshape(%x: tensor<2x4x12xf32>, %t: tensor<2x4x6xf32>) -> tensor<f32> {
  %w1 = train.param "fc1.weight" : tensor<12x16xf32>
  %h = train.matmul %x, %w1 : tensor<2x4x12xf32>, tensor<12x16xf32> -> tensor<2x4x16xf32>
  %w2 = train.param "fc2.weight" : tensor<16x12xf32>
  %o = train.matmul %h, %w2 : tensor<2x4x16xf32>, tensor<16x12xf32> -> tensor<2x4x12xf32>
  %wh = train.param "head.weight" : tensor<12x6xf32>
  // expected-warning @+1 {{train-shard keeps this matmul replicated}}
  %logits = train.matmul %o, %wh : tensor<2x4x12xf32>, tensor<12x6xf32> -> tensor<2x4x6xf32>
  %r = train.reshape %logits : tensor<2x4x6xf32> -> tensor<2x4x3x2xf32>
  %r2 = train.reshape %r : tensor<2x4x3x2xf32> -> tensor<2x4x6xf32>
  // expected-note @+1 {{reached here}}
  %l = train.mse_loss %r2, %t : tensor<2x4x6xf32>, tensor<2x4x6xf32> -> tensor<f32>
  return %l : tensor<f32>
}

// -----

// dp averages the processes' losses and gradients: a sum over the batch
// would come out halved.
func.func @sum_loss(%x: tensor<4x8xf32>) -> tensor<f32> {
  %w1 = train.param "fc1.weight" : tensor<8x16xf32>
  %h = train.matmul %x, %w1 : tensor<4x8xf32>, tensor<8x16xf32> -> tensor<4x16xf32>
  %w2 = train.param "fc2.weight" : tensor<16x8xf32>
  %y = train.matmul %h, %w2 : tensor<4x16xf32>, tensor<16x8xf32> -> tensor<4x8xf32>
  // expected-note @+1 {{the loss is computed by 'train.reduce_sum'}}
  %l = train.reduce_sum %y {dims = array<i64: 0, 1>} : tensor<4x8xf32> -> tensor<f32>
  // expected-error @+1 {{'func.return' op returns a loss train-shard cannot make data-parallel: dp=2 averages the processes' losses and gradients, which equals the whole batch's only for a mean loss (train.cross_entropy, train.mse_loss)}}
  return %l : tensor<f32>
}

// -----

// A batch of 3 cannot be split over dp=2.
func.func @batch(
    // expected-error @+1 {{train-shard: argument 0 ('tensor<3x8xf32>') cannot be split over dp=2: its first (batch) dimension is not divisible}}
    %x: tensor<3x8xf32>, %t: tensor<3x8xf32>) -> tensor<f32> {
  %w1 = train.param "fc1.weight" : tensor<8x16xf32>
  %h = train.matmul %x, %w1 : tensor<3x8xf32>, tensor<8x16xf32> -> tensor<3x16xf32>
  %w2 = train.param "fc2.weight" : tensor<16x8xf32>
  %y = train.matmul %h, %w2 : tensor<3x16xf32>, tensor<16x8xf32> -> tensor<3x8xf32>
  %l = train.mse_loss %y, %t : tensor<3x8xf32>, tensor<3x8xf32> -> tensor<f32>
  return %l : tensor<f32>
}

// -----

// The module already has a symbol named like the grid train-shard creates.
// expected-error @+1 {{'shard.grid' op is named @grid, the grid train-shard creates; rename it or shard once}}
shard.grid @grid(shape = 2)
func.func @grid_taken(%x: tensor<4x8xf32>) -> tensor<f32> {
  %w = train.param "w" : tensor<8x8xf32>
  %y = train.matmul %x, %w : tensor<4x8xf32>, tensor<8x8xf32> -> tensor<4x8xf32>
  %l = train.reduce_sum %y {dims = array<i64: 0, 1>} : tensor<4x8xf32> -> tensor<f32>
  return %l : tensor<f32>
}

// -----

// A function train-shard already partitioned.
// expected-error @+1 {{'func.func' op was already partitioned by train-shard; apply it once, to the whole program}}
func.func @twice(%x: tensor<4x8xf32>) -> tensor<f32> attributes {train.shard = {dp = 2 : i64, grid = @other, tp = 1 : i64, zero = 0 : i64}} {
  %w = train.param "w" : tensor<8x8xf32>
  %y = train.matmul %x, %w : tensor<4x8xf32>, tensor<8x8xf32> -> tensor<4x8xf32>
  %l = train.reduce_sum %y {dims = array<i64: 0, 1>} : tensor<4x8xf32> -> tensor<f32>
  return %l : tensor<f32>
}

// -----

// Batch norm's statistics would be computed over a process's part of the
// batch: no data parallelism (the MLP after it is tensor-parallel).
func.func @batch_norm(%x: tensor<4x8x2x2xf32>, %t: tensor<4x8xf32>) -> tensor<f32> {
  %g = train.param "bn.weight" : tensor<8xf32>
  %b = train.param "bn.bias" : tensor<8xf32>
  // expected-error @+1 {{'train.batch_norm' op cannot be data-parallel: its statistics over a process's part of the batch differ from the whole batch's (train-shard has no synchronized batch norm)}}
  %y, %m, %r = train.batch_norm %x, %g, %b : tensor<4x8x2x2xf32>, tensor<8xf32>, tensor<8xf32> -> tensor<4x8x2x2xf32>, tensor<8xf32>, tensor<8xf32>
  %f = train.reshape %y : tensor<4x8x2x2xf32> -> tensor<4x32xf32>
  %w1 = train.param "fc1.weight" : tensor<32x16xf32>
  %h = train.matmul %f, %w1 : tensor<4x32xf32>, tensor<32x16xf32> -> tensor<4x16xf32>
  %w2 = train.param "fc2.weight" : tensor<16x8xf32>
  %o = train.matmul %h, %w2 : tensor<4x16xf32>, tensor<16x8xf32> -> tensor<4x8xf32>
  %l = train.mse_loss %o, %t : tensor<4x8xf32>, tensor<4x8xf32> -> tensor<f32>
  return %l : tensor<f32>
}

// -----

// tp=2 on a model whose only parameter matmul feeds an mse_loss: nothing
// can be column-parallel (the matmul is first kept replicated, with a
// warning). Before a cross-entropy it would be a vocabulary-parallel head.
// expected-error @+1 {{'func.func' op has no column-parallel layer for tp=2: no matmul of a parameter leads to a row-parallel one}}
func.func @no_column(%x: tensor<4x8xf32>, %t: tensor<4x6xf32>) -> tensor<f32> {
  %w = train.param "head.weight" : tensor<8x6xf32>
  // expected-warning @+1 {{train-shard keeps this matmul replicated (not column-parallel): its output reaches 'train.mse_loss' (no tensor-parallel rule)}}
  %y = train.matmul %x, %w : tensor<4x8xf32>, tensor<8x6xf32> -> tensor<4x6xf32>
  // expected-note @+1 {{reached here}}
  %l = train.mse_loss %y, %t : tensor<4x6xf32>, tensor<4x6xf32> -> tensor<f32>
  return %l : tensor<f32>
}
