// Pipelined modules the report refuses (train.pipeline records it cannot
// read, stages that do not make one pipeline, train.p2p outside a stage),
// each with a clear error and a non-zero exit. The dialect's verifier
// already refuses a record without its keys or with a stage out of range
// (test/Dialect/Train/p2p.mlir).
// RUN: not mem-opt %s -split-input-file --train-memory-report -o /dev/null 2>&1 | FileCheck %s

// CHECK: pipeline-invalid.mlir:[[@LINE+2]]:1: error: 'func.func' op has a malformed train.pipeline: 'schedule' must be "1f1b", "gpipe", "interleaved" or "zb-h1"
shard.grid @grid(shape = 1)
func.func @f_stage0(%x: tensor<f32>) -> tensor<f32> attributes {train.pipeline = {axis = 0 : i64, grid = @grid, layers = ["l0"], microbatches = 2 : i64, schedule = "zb-h2", stage = 0 : i64, stages = 1 : i64, step = "f"}} {
  return %x : tensor<f32>
}

// -----

// CHECK: pipeline-invalid.mlir:[[@LINE+2]]:1: error: 'func.func' op has a malformed train.pipeline: schedule=interleaved needs virtual >= 2 model chunks per stage, got 1
shard.grid @grid(shape = 1)
func.func @f_stage0(%x: tensor<f32>) -> tensor<f32> attributes {train.pipeline = {axis = 0 : i64, grid = @grid, layers = ["l0"], microbatches = 2 : i64, schedule = "interleaved", stage = 0 : i64, stages = 1 : i64, step = "f"}} {
  return %x : tensor<f32>
}

// -----

// CHECK: pipeline-invalid.mlir:[[@LINE+2]]:1: error: 'func.func' op has a malformed train.pipeline: 'virtual' must be an integer from 1 to 1024
shard.grid @grid(shape = 1)
func.func @f_stage0(%x: tensor<f32>) -> tensor<f32> attributes {train.pipeline = {axis = 0 : i64, grid = @grid, layers = ["l0"], microbatches = 2 : i64, schedule = "interleaved", stage = 0 : i64, stages = 1 : i64, step = "f", virtual = 0 : i64}} {
  return %x : tensor<f32>
}

// -----

// CHECK: pipeline-invalid.mlir:[[@LINE+2]]:1: error: 'func.func' op has a malformed train.pipeline: 'chunks' must be an array of `virtual` arrays of strings
shard.grid @grid(shape = 1)
func.func @f_stage0(%x: tensor<f32>) -> tensor<f32> attributes {train.pipeline = {axis = 0 : i64, chunks = [["l0"]], grid = @grid, layers = ["l0", "l1"], microbatches = 2 : i64, schedule = "interleaved", stage = 0 : i64, stages = 1 : i64, step = "f", virtual = 2 : i64}} {
  return %x : tensor<f32>
}

// -----

// CHECK: pipeline-invalid.mlir:[[@LINE+2]]:1: error: 'func.func' op has a malformed train.pipeline: 'layers' must be an array of strings
shard.grid @grid(shape = 1)
func.func @f_stage0(%x: tensor<f32>) -> tensor<f32> attributes {train.pipeline = {axis = 0 : i64, grid = @grid, layers = [0], microbatches = 2 : i64, schedule = "1f1b", stage = 0 : i64, stages = 1 : i64, step = "f"}} {
  return %x : tensor<f32>
}

// -----

// CHECK: pipeline-invalid.mlir:[[@LINE+5]]:1: error: 'func.func' op is stage 0 of step 'f', as is @a
shard.grid @grid(shape = 1)
func.func @a(%x: tensor<f32>) -> tensor<f32> attributes {train.pipeline = {axis = 0 : i64, grid = @grid, layers = ["l0"], microbatches = 2 : i64, schedule = "1f1b", stage = 0 : i64, stages = 1 : i64, step = "f"}} {
  return %x : tensor<f32>
}
func.func @b(%x: tensor<f32>) -> tensor<f32> attributes {train.pipeline = {axis = 0 : i64, grid = @grid, layers = ["l0"], microbatches = 2 : i64, schedule = "1f1b", stage = 0 : i64, stages = 1 : i64, step = "f"}} {
  return %x : tensor<f32>
}

// -----

// CHECK: pipeline-invalid.mlir:[[@LINE+5]]:1: error: 'func.func' op is a pipeline stage of step 'f' whose stages, micro-batches or schedule differ from @f_stage0's (train.pipeline)
shard.grid @grid(shape = 2)
func.func @f_stage0(%x: tensor<f32>) -> tensor<f32> attributes {train.pipeline = {axis = 0 : i64, grid = @grid, layers = ["l0"], microbatches = 2 : i64, schedule = "1f1b", stage = 0 : i64, stages = 2 : i64, step = "f"}} {
  return %x : tensor<f32>
}
func.func @f_stage1(%x: tensor<f32>) -> tensor<f32> attributes {train.pipeline = {axis = 0 : i64, grid = @grid, layers = ["l1"], microbatches = 4 : i64, schedule = "1f1b", stage = 1 : i64, stages = 2 : i64, step = "f"}} {
  return %x : tensor<f32>
}

// -----

// The stages of two steps: without function= the report would have to
// choose between two pipelines.
// CHECK: error: the module holds the pipeline stages of two steps, 'f' and 'g'; choose the stage to report on with function=NAME
shard.grid @grid(shape = 1)
func.func @f_stage0(%x: tensor<f32>) -> tensor<f32> attributes {train.pipeline = {axis = 0 : i64, grid = @grid, layers = ["l0"], microbatches = 2 : i64, schedule = "1f1b", stage = 0 : i64, stages = 1 : i64, step = "f"}} {
  return %x : tensor<f32>
}
func.func @g_stage0(%x: tensor<f32>) -> tensor<f32> attributes {train.pipeline = {axis = 0 : i64, grid = @grid, layers = ["l0"], microbatches = 2 : i64, schedule = "1f1b", stage = 0 : i64, stages = 1 : i64, step = "g"}} {
  return %x : tensor<f32>
}

// -----

// A stage whose grid is not a shard.grid of the module.
// CHECK: pipeline-invalid.mlir:[[@LINE+1]]:1: error: 'func.func' op is a pipeline stage without a shard.grid of static shape and an axis of it in train.pipeline; the report counts communication on static grids only
func.func @f_stage0(%x: tensor<f32>) -> tensor<f32> attributes {train.pipeline = {axis = 0 : i64, grid = @nowhere, layers = ["l0"], microbatches = 2 : i64, schedule = "1f1b", stage = 0 : i64, stages = 1 : i64, step = "f"}} {
  return %x : tensor<f32>
}

// -----

// Point-to-point messages outside a stage have no peers the report knows.
func.func @step(%x: tensor<2xf32>) -> tensor<2xf32> {
  // CHECK: pipeline-invalid.mlir:[[@LINE+1]]:3: error: 'train.p2p' op is not in a pipeline stage (its function has no train.pipeline); the report counts the point-to-point traffic of train-pipeline's stages only
  train.p2p send %x to [1] tags [0] : tensor<2xf32>
  return %x : tensor<2xf32>
}

// CHECK-NOT: error
