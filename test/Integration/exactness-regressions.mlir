// Cases the differential suite (differential.test) found where the measured
// peak and the memory model disagreed, reduced by hand. Each needs
// measured == predicted unplanned and measured == arena planned.

// A view nothing reads (here a transpose of %a) is dead code: the lowering
// erases it, so %a dies at its last real use (%b). The model used to count
// the dead view as a use and keep %a alive up to it (3072 predicted for
// 2048 measured: mem-gen random --seed 30 --train, 1856 vs 1792).
// RUN: mem-run %s --func dead_view --measure-peak | FileCheck %s --check-prefix=DEAD
// DEAD:      measured_peak_bytes: 2048
// DEAD-NEXT: predicted_peak_bytes: 2048
// train-lifetimes frees %a after %b and erases the dead view (a free before
// it would be a use after free).
// RUN: mem-opt %s --pass-pipeline='builtin.module(func.func(train-lifetimes,train-verify-step))' | FileCheck %s --check-prefix=LIFETIMES
// LIFETIMES-LABEL: func.func @dead_view
// LIFETIMES:       %[[A:.*]] = train.matmul
// LIFETIMES-NEXT:  train.relu %[[A]]
// LIFETIMES-NEXT:  train.free %[[A]]
// LIFETIMES-NOT:   train.transpose
// LIFETIMES-LABEL: func.func @concat
func.func @dead_view(%x: tensor<16x16xf32>) -> tensor<f32> {
  %w = train.param "w" : tensor<16x16xf32>
  %a = train.matmul %x, %w : tensor<16x16xf32>, tensor<16x16xf32> -> tensor<16x16xf32>
  %b = train.relu %a : tensor<16x16xf32>
  %c = train.relu %b : tensor<16x16xf32>
  %t = train.transpose %a {permutation = array<i64: 1, 0>} : tensor<16x16xf32> -> tensor<16x16xf32>
  %l = train.mse_loss %c, %x : tensor<16x16xf32>, tensor<16x16xf32> -> tensor<f32>
  return %l : tensor<f32>
}

// train.concat's result is placed in the planned arena like any other
// result: it is lowered into a tensor.empty destination (tensor.insert_slice
// of each input) rather than tensor.concat, whose buffer bufferization
// allocated outside the arena (mem-gen random --seed 1 --ops 8 --dtype bf16
// --optimizer sgd --train: 3008 measured for a 2816-byte arena).
// RUN: mem-run %s --func concat --measure-peak | FileCheck %s --check-prefix=CONCAT
// CONCAT:      measured_peak_bytes: 2176
// CONCAT-NEXT: predicted_peak_bytes: 2176
// RUN: mem-run %s --func concat --measure-peak --pipeline='func.func(train-plan-memory,train-verify-plan)' | FileCheck %s --check-prefix=CONCAT-PLAN
// CONCAT-PLAN:      measured_peak_bytes: [[ARENA:[0-9]+]]
// CONCAT-PLAN-NEXT: predicted_peak_bytes: 2176
// CONCAT-PLAN-NEXT: arena_bytes: [[ARENA]]
func.func @concat(%x: tensor<8x16xf32>) -> tensor<f32> {
  %w = train.param "w" : tensor<16x16xf32>
  %a = train.matmul %x, %w : tensor<8x16xf32>, tensor<16x16xf32> -> tensor<8x16xf32>
  %b = train.relu %a : tensor<8x16xf32>
  %c = train.concat %a, %b {axis = 0 : i64} : tensor<8x16xf32>, tensor<8x16xf32> -> tensor<16x16xf32>
  %t = train.relu %c : tensor<16x16xf32>
  %l = train.mse_loss %t, %c : tensor<16x16xf32>, tensor<16x16xf32> -> tensor<f32>
  return %l : tensor<f32>
}

// A linear layer on a transposed activation (%t, a strided view whose rows
// do not collapse into one dimension): the matmul reads it in place (one
// contraction over its batch dimension) instead of collapsing it, which
// bufferization did by a 2048-byte copy the model does not know (unplanned
// and outside the arena: mem-gen random --seed 30 --train planned, 5888
// measured for a 5120-byte arena).
// RUN: mem-run %s --func strided_lhs --measure-peak | FileCheck %s --check-prefix=STRIDED
// STRIDED:      measured_peak_bytes: 4096
// STRIDED-NEXT: predicted_peak_bytes: 4096
// RUN: mem-run %s --func strided_lhs --measure-peak --pipeline='func.func(train-plan-memory,train-verify-plan)' | FileCheck %s --check-prefix=STRIDED-PLAN
// STRIDED-PLAN:      measured_peak_bytes: [[ARENA:[0-9]+]]
// STRIDED-PLAN-NEXT: predicted_peak_bytes: 4096
// STRIDED-PLAN-NEXT: arena_bytes: [[ARENA]]
func.func @strided_lhs(%x: tensor<8x4x16xf32>, %y: tensor<4x8x16xf32>) -> tensor<f32> {
  %w = train.param "w" : tensor<16x16xf32>
  %h = train.matmul %x, %w : tensor<8x4x16xf32>, tensor<16x16xf32> -> tensor<8x4x16xf32>
  %t = train.transpose %h {permutation = array<i64: 1, 0, 2>} : tensor<8x4x16xf32> -> tensor<4x8x16xf32>
  %o = train.matmul %t, %w : tensor<4x8x16xf32>, tensor<16x16xf32> -> tensor<4x8x16xf32>
  %l = train.mse_loss %o, %y : tensor<4x8x16xf32>, tensor<4x8x16xf32> -> tensor<f32>
  return %l : tensor<f32>
}

// A planned step that returns several buffers (mem-gen --optimizer=none
// returns the gradients): the caller frees each returned buffer, so none is a
// view of the arena (two views freed the arena twice: "double free or
// corruption"); each is an allocation of its own, counted in arena_bytes
// (the arena, 3072 bytes here, plus 64 for the loss and 1024 for %b).
// RUN: mem-run %s --func two_results --steps 2 --measure-peak --pipeline='func.func(train-plan-memory,train-verify-plan)' | FileCheck %s --check-prefix=TWO
// TWO:      step 2: loss =
// TWO-NEXT: measured_peak_bytes: [[ARENA:[0-9]+]]
// TWO-NEXT: predicted_peak_bytes:
// TWO-NEXT: arena_bytes: [[ARENA]]
// TWO:      result 1: sum =
func.func @two_results(%x: tensor<16x16xf32>) -> (tensor<f32>, tensor<16x16xf32>) {
  %w = train.param "w" : tensor<16x16xf32>
  %a = train.matmul %x, %w : tensor<16x16xf32>, tensor<16x16xf32> -> tensor<16x16xf32>
  %b = train.relu %a : tensor<16x16xf32>
  %l = train.mse_loss %b, %x : tensor<16x16xf32>, tensor<16x16xf32> -> tensor<f32>
  return %l, %b : tensor<f32>, tensor<16x16xf32>
}

// cross_entropy and cross_entropy_grad on transposed logits (%t, a strided
// view whose rows do not collapse into one dimension): the lowering reduces
// over the 3-D shape in place instead of collapsing the logits into rows,
// which bufferization did by a 2048-byte copy the model does not know
// (unplanned and outside the arena: mem-gen random --seed 7 --ops 40 --dtype
// f16 --optimizer adam --train planned, 128 bytes outside the arena).
// RUN: mem-run %s --func strided_logits --measure-peak | FileCheck %s --check-prefix=CE
// CE:      measured_peak_bytes: 4416
// CE-NEXT: predicted_peak_bytes: 4416
// RUN: mem-run %s --func strided_logits --measure-peak --pipeline='func.func(train-plan-memory,train-verify-plan)' | FileCheck %s --check-prefix=CE-PLAN
// CE-PLAN:      measured_peak_bytes: [[ARENA:[0-9]+]]
// CE-PLAN-NEXT: predicted_peak_bytes: 4416
// CE-PLAN-NEXT: arena_bytes: [[ARENA]]
func.func @strided_logits(%x: tensor<8x4x16xf32>, %labels: tensor<4x8xi64>) -> tensor<f32> {
  %w = train.param "w" : tensor<16x16xf32>
  %h = train.matmul %x, %w : tensor<8x4x16xf32>, tensor<16x16xf32> -> tensor<8x4x16xf32>
  %t = train.transpose %h {permutation = array<i64: 1, 0, 2>} : tensor<8x4x16xf32> -> tensor<4x8x16xf32>
  %l = train.cross_entropy %t, %labels : tensor<4x8x16xf32>, tensor<4x8xi64> -> tensor<f32>
  %d = train.cross_entropy_grad %l, %t, %labels : tensor<f32>, tensor<4x8x16xf32>, tensor<4x8xi64> -> tensor<4x8x16xf32>
  %m = train.mse_loss %d, %t : tensor<4x8x16xf32>, tensor<4x8x16xf32> -> tensor<f32>
  return %m : tensor<f32>
}
