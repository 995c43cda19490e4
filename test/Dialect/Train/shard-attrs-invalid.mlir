// The train dialect verifies the attributes train-shard writes: train.split
// on parameters, optimizer states and function arguments, and train.shard on
// functions.
// RUN: mem-opt %s -split-input-file -verify-diagnostics

// Valid attributes are accepted (a fused QKV weight split in 3 blocks over
// axis 1, a batch split over axis 0).
func.func @valid(%x: tensor<4x8xf32> {train.split = array<i64: 0, 1, 0>}) -> tensor<8x24xf32> attributes {train.shard = {dp = 2 : i64, grid = @grid, tp = 2 : i64, zero = 0 : i64}} {
  %w = train.param "qkv.weight" {train.split = array<i64: 1, 3, 1>} : tensor<8x24xf32>
  %m = train.opt_state "qkv.weight.exp_avg" {train.split = array<i64: 1, 3, 1, 0, 1, 0>} : tensor<8x24xf32>
  return %w : tensor<8x24xf32>
}

// -----

// A dimension the parameter does not have.
func.func @split_dim() -> tensor<8x8xf32> {
  // expected-error @+1 {{'train.split' triple (5, 1, 0) does not fit 'tensor<8x8xf32>'}}
  %w = train.param "w" {train.split = array<i64: 5, 1, 0>} : tensor<8x8xf32>
  return %w : tensor<8x8xf32>
}

// -----

// A block count that does not divide the dimension.
func.func @split_blocks() -> tensor<8x8xf32> {
  // expected-error @+1 {{'train.split' triple (1, 3, 1) does not fit 'tensor<8x8xf32>'}}
  %w = train.param "w" {train.split = array<i64: 1, 3, 1>} : tensor<8x8xf32>
  return %w : tensor<8x8xf32>
}

// -----

// A negative grid axis.
func.func @split_axis() -> tensor<8xf32> {
  // expected-error @+1 {{'train.split' triple (0, 1, -1) does not fit 'tensor<8xf32>'}}
  %s = train.opt_state "s" {train.split = array<i64: 0, 1, -1>} : tensor<8xf32>
  return %s : tensor<8xf32>
}

// -----

// Not a whole number of triples.
func.func @split_length() -> tensor<8x8xf32> {
  // expected-error @+1 {{'train.split' must be an array<i64> of (dim, blocks, axis) triples on a ranked tensor}}
  %w = train.param "w" {train.split = array<i64: 0, 1>} : tensor<8x8xf32>
  return %w : tensor<8x8xf32>
}

// -----

// On an op that is neither a parameter nor an optimizer state.
func.func @split_op(%x: tensor<8xf32>) -> tensor<8xf32> {
  // expected-error @+1 {{'train.split' belongs on a train.param, a train.opt_state or a function argument}}
  %y = train.relu %x {train.split = array<i64: 0, 1, 0>} : tensor<8xf32>
  return %y : tensor<8xf32>
}

// -----

// On a function argument: a 0-d tensor has no dimension to split.
// expected-error @+1 {{'train.split' triple (0, 1, 0) does not fit 'tensor<f32>'}}
func.func @split_arg(%x: tensor<f32> {train.split = array<i64: 0, 1, 0>}) -> tensor<f32> {
  return %x : tensor<f32>
}

// -----

// train.shard without its grid.
// expected-error @+1 {{'train.shard' must be a dictionary with a `grid` symbol on a function}}
func.func @shard_no_grid() attributes {train.shard = {dp = 1 : i64, tp = 2 : i64, zero = 0 : i64}} {
  return
}

// -----

// train.shard with a degree below 1.
// expected-error @+1 {{'train.shard' must have an integer 'tp' of at least 1}}
func.func @shard_tp() attributes {train.shard = {dp = 1 : i64, grid = @grid, tp = 0 : i64, zero = 0 : i64}} {
  return
}

// -----

// train.shard without its ZeRO stage.
// expected-error @+1 {{'train.shard' must have an integer 'zero' of at least 0}}
func.func @shard_zero() attributes {train.shard = {dp = 2 : i64, grid = @grid, tp = 1 : i64}} {
  return
}

// -----

// train.shard on an op that is not a function.
func.func @shard_op(%x: tensor<8xf32>) -> tensor<8xf32> {
  // expected-error @+1 {{'train.shard' must be a dictionary with a `grid` symbol on a function}}
  %y = train.relu %x {train.shard = {dp = 1 : i64, grid = @grid, tp = 2 : i64, zero = 0 : i64}} : tensor<8xf32>
  return %y : tensor<8xf32>
}

// -----

// train.shard's KV-head replicas (on a grid with replicated KV heads) are at
// least 2.
// expected-error @+1 {{'train.shard' must have an integer 'kv_replicas' of at least 2 when it has one}}
func.func @shard_kv_replicas() attributes {train.shard = {dp = 1 : i64, grid = @grid, kv_replicas = 1 : i64, tp = 2 : i64, zero = 0 : i64}} {
  return
}

// -----

// train.split_extent (a padded ZeRO part's whole extent) needs a
// train.split.
// expected-error @+1 {{'train.split_extent' must be a positive integer on a train.param with a train.split}}
%p = train.param "w" {train.split_extent = 7 : i64} : tensor<4x8xf32>

// -----

// expected-error @+1 {{'train.split_extent' must be a positive integer on a train.param with a train.split}}
%q = train.param "w" {train.split = array<i64: 0, 1, 0>, train.split_extent = 0 : i64} : tensor<4x8xf32>
