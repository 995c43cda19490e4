// RUN: mem-opt --mlir-print-debuginfo=false %s -split-input-file -verify-diagnostics | mem-opt --mlir-print-debuginfo=false -split-input-file | FileCheck %s
// RUN: mem-opt --mlir-print-debuginfo=false %s -split-input-file -verify-diagnostics --mlir-print-op-generic | mem-opt --mlir-print-debuginfo=false -split-input-file | FileCheck %s

// Round trip of train.p2p (the pipeline stages' exchanges) through the
// custom and the generic form (the invalid cases below produce no output),
// the verifier of the op and of train.pipeline on functions.

// CHECK-LABEL: func.func @exchanges(
// CHECK-SAME:      %[[X:[^:]+]]: tensor<2x4xf32>)
// CHECK-NEXT:    train.p2p send %[[X]] to [1] tags [0] : tensor<2x4xf32>
// CHECK-NEXT:    %[[G:.+]] = train.p2p send %[[X]] to [1] tags [2] : tensor<2x4xf32> recv from [1] tags [1] : tensor<2x4xf32>
// CHECK-NEXT:    %[[A:.+]]:2 = train.p2p recv from [1, 1] tags [3, 4] : tensor<2x4xf32>, tensor<f32>
// CHECK-NEXT:    return %[[A]]#1 : tensor<f32>
shard.grid @grid(shape = 2)
func.func @exchanges(%x: tensor<2x4xf32>) -> tensor<f32> attributes {train.pipeline = {axis = 0 : i64, grid = @grid, layers = ["l0"], microbatches = 2 : i64, schedule = "1f1b", stage = 0 : i64, stages = 2 : i64, step = "f"}} {
  train.p2p send %x to [1] tags [0] : tensor<2x4xf32>
  %g = train.p2p send %x to [1] tags [2] : tensor<2x4xf32> recv from [1] tags [1] : tensor<2x4xf32>
  %a:2 = train.p2p recv from [1, 1] tags [3, 4] : tensor<2x4xf32>, tensor<f32>
  return %a#1 : tensor<f32>
}

// -----

func.func @peers(%x: tensor<2x4xf32>) {
  // expected-error @+1 {{has 1 sent tensors but 2 peers and 1 tags; expected one of each per tensor}}
  train.p2p send %x to [1, 2] tags [0] : tensor<2x4xf32>
  return
}

// -----

func.func @negative_peer() -> tensor<2x4xf32> {
  // expected-error @+1 {{peer stage -1 is negative}}
  %a = train.p2p recv from [-1] tags [0] : tensor<2x4xf32>
  return %a : tensor<2x4xf32>
}

// -----

func.func @tag(%x: tensor<2x4xf32>) {
  // expected-error @+1 {{tag 4294967296 is outside [0, 2^31 - 1] (MPI's tags)}}
  train.p2p send %x to [1] tags [4294967296] : tensor<2x4xf32>
  return
}

// -----

func.func @nothing() {
  // expected-error @+1 {{sends and receives nothing}}
  train.p2p
  return
}

// -----

func.func @twice() -> tensor<2x4xf32> {
  // expected-error @+1 {{receives twice from stage 1 with tag 3}}
  %a:2 = train.p2p recv from [1, 1] tags [3, 3] : tensor<2x4xf32>, tensor<2x4xf32>
  return %a#0 : tensor<2x4xf32>
}

// -----

// expected-error @+1 {{'train.pipeline' has stage 2 of 2 stages}}
func.func @stage_out_of_range() attributes {train.pipeline = {axis = 0 : i64, grid = @grid, layers = [], microbatches = 1 : i64, schedule = "1f1b", stage = 2 : i64, stages = 2 : i64, step = "f"}} {
  return
}

// -----

// expected-error @+1 {{'train.pipeline' must have an integer 'microbatches' of at least 1}}
func.func @no_microbatches() attributes {train.pipeline = {axis = 0 : i64, grid = @grid, layers = [], schedule = "1f1b", stage = 0 : i64, stages = 2 : i64, step = "f"}} {
  return
}

// -----

// expected-error @+1 {{'train.pipeline' must be a dictionary with a `grid` symbol, a `schedule`, a `step` and `layers` on a function}}
func.func @no_grid() attributes {train.pipeline = {axis = 0 : i64, layers = [], microbatches = 1 : i64, schedule = "1f1b", stage = 0 : i64, stages = 2 : i64, step = "f"}} {
  return
}
