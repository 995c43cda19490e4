// RUN: mem-opt %s -split-input-file --memopt-shard-to-nccl -verify-diagnostics

shard.grid @grid(shape = 4)
func.func @all_to_all(%a: tensor<4x4xf32>) -> tensor<1x16xf32> {
  // expected-error@+1 {{'shard.all_to_all' has no NCCL lowering: memopt-shard-to-nccl lowers shard.all_reduce, shard.all_gather, shard.reduce_scatter and the process indices}}
  %0 = shard.all_to_all %a on @grid grid_axes = [0] split_axis = 0 concat_axis = 1 : tensor<4x4xf32> -> tensor<1x16xf32>
  return %0 : tensor<1x16xf32>
}

// -----

shard.grid @grid(shape = 2x?)
func.func @dynamic_grid(%a: tensor<4xf32>) -> tensor<4xf32> {
  // expected-error@+1 {{grid @grid has a dynamic shape; NCCL groups need a static grid}}
  %0 = shard.all_reduce %a on @grid grid_axes = [0] : tensor<4xf32> -> tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

shard.grid @grid(shape = 1x1x1x1x2)
func.func @five_axes(%a: tensor<4xf32>) -> tensor<4xf32> {
  // expected-error@+1 {{grid @grid has 5 axes; at most 4 are supported}}
  %0 = shard.all_reduce %a on @grid grid_axes = [4] : tensor<4xf32> -> tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

shard.grid @grid(shape = 2)
func.func @on_buffers(%a: memref<4xf32>) -> memref<4xf32> {
  // expected-error@+1 {{is on buffers; memopt-shard-to-nccl lowers collectives on tensors, before bufferization}}
  %0 = shard.all_reduce %a on @grid grid_axes = [0] : memref<4xf32> -> memref<4xf32>
  return %0 : memref<4xf32>
}

// -----

shard.grid @grid(shape = 2)
func.func @dynamic_tensor(%a: tensor<?xf32>) -> tensor<?xf32> {
  // expected-error@+1 {{has a dynamic shape; NCCL calls need static element counts}}
  %0 = shard.all_reduce %a on @grid grid_axes = [0] : tensor<?xf32> -> tensor<?xf32>
  return %0 : tensor<?xf32>
}

// -----

shard.grid @grid(shape = 2)
func.func @i16(%a: tensor<4xi16>) -> tensor<4xi16> {
  // expected-error@+1 {{element type 'i16' has no NCCL type (f32, f64, f16, bf16, i8, i32, i64)}}
  %0 = shard.all_reduce %a on @grid grid_axes = [0] : tensor<4xi16> -> tensor<4xi16>
  return %0 : tensor<4xi16>
}

// -----

shard.grid @grid(shape = 2)
func.func @int_to_float(%a: tensor<4xi32>) -> tensor<4xf32> {
  // expected-error@+1 {{converts 'i32' to 'f32'; only float-to-float conversions are lowered}}
  %0 = shard.all_reduce %a on @grid grid_axes = [0] : tensor<4xi32> -> tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

shard.grid @grid(shape = 2)
func.func @bitwise(%a: tensor<4xi32>) -> tensor<4xi32> {
  // expected-error@+1 {{reduction kind has no NCCL operation (sum, product, max, min and average do)}}
  %0 = shard.all_reduce %a on @grid grid_axes = [0] reduction = bitwise_or : tensor<4xi32> -> tensor<4xi32>
  return %0 : tensor<4xi32>
}

// -----

shard.grid @grid(shape = 2)
func.func @int_average(%a: tensor<4xi32>) -> tensor<2xi32> {
  // expected-error@+1 {{average of integers is not lowered (NCCL would truncate)}}
  %0 = shard.reduce_scatter %a on @grid grid_axes = [0] reduction = average scatter_axis = 0 : tensor<4xi32> -> tensor<2xi32>
  return %0 : tensor<2xi32>
}

// -----

// expected-error@+1 {{@memopt_nccl_group has type '() -> ()', but memopt-shard-to-nccl calls the runtime's '(i64, i64, i64, i64, i64, i64, i64, i64) -> i64'}}
func.func private @memopt_nccl_group()
shard.grid @grid(shape = 2)
func.func @declared(%a: tensor<4xf32>) -> tensor<4xf32> {
  %0 = shard.all_reduce %a on @grid grid_axes = [0] : tensor<4xf32> -> tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

// A transfer outside a pipeline stage's function has no peer to name.
func.func @not_a_stage(%a: tensor<4xf32>) {
  // expected-error@+1 {{is not in a pipeline stage's function (one with train.pipeline, as train-pipeline builds them)}}
  train.p2p send %a to [1] tags [0] : tensor<4xf32>
  return
}

// -----

shard.grid @grid(shape = 2)
func.func @no_nccl_type(%a: tensor<4xi16>) attributes {train.pipeline = {axis = 0 : i64, grid = @grid, layers = [], microbatches = 1 : i64, schedule = "1f1b", stage = 0 : i64, stages = 2 : i64, step = "s"}} {
  // expected-error@+1 {{element type 'i16' has no NCCL type (f32, f64, f16, bf16, i8, i32, i64)}}
  train.p2p send %a to [1] tags [0] : tensor<4xi16>
  return
}
