// The train passes work on training steps in the train dialect. On lowered
// IR they would see no train op and answer nonsense (frees of linalg values,
// a peak of nothing), so each refuses it and says what to run first; the
// lowering pipelines refuse train ops.
// RUN: not mem-opt %s --convert-train-to-linalg --train-lifetimes -o /dev/null 2>&1 | FileCheck %s --check-prefix=LIFETIMES
// LIFETIMES: error: train-lifetimes expects a training step in the train dialect, but @step is already lowered: it holds '{{(memref|linalg|bufferization)}}.
// LIFETIMES: note: run train-lifetimes on the step before --convert-train-to-linalg
// RUN: not mem-opt %s --convert-train-to-linalg --train-verify-step -o /dev/null 2>&1 | FileCheck %s --check-prefix=VERIFY
// VERIFY: error: train-verify-step expects a training step in the train dialect, but @step is already lowered
// RUN: not mem-opt %s --convert-train-to-linalg --train-remat -o /dev/null 2>&1 | FileCheck %s --check-prefix=REMAT
// REMAT: error: train-remat expects a training step in the train dialect, but @step is already lowered
// RUN: not mem-opt %s --convert-train-to-linalg --train-plan-memory -o /dev/null 2>&1 | FileCheck %s --check-prefix=PLAN
// PLAN: error: train-plan-memory expects a training step in the train dialect, but @step is already lowered
// RUN: not mem-opt %s --convert-train-to-linalg --train-memory-report -o /dev/null 2>&1 | FileCheck %s --check-prefix=REPORT
// REPORT: error: train-memory-report expects a training step in the train dialect, but @step is already lowered
// RUN: not mem-opt %s --convert-train-to-linalg --train-autodiff -o /dev/null 2>&1 | FileCheck %s --check-prefix=AUTODIFF
// AUTODIFF: error: train-autodiff expects a training step in the train dialect, but @step is already lowered

// train-verify-plan on a step without a plan says so instead of passing.
// RUN: not mem-opt %s --train-verify-plan -o /dev/null 2>&1 | FileCheck %s --check-prefix=UNPLANNED
// UNPLANNED: error: 'func.func' op has no arena plan to verify ('train.arena_bytes' is missing); run --train-plan-memory first

// The lowering pipelines start from linalg: a train op is named, with the
// pass to run first.
// RUN: not mem-opt %s --memopt-lower-to-gpu -o /dev/null 2>&1 | FileCheck %s --check-prefix=GPU
// GPU: error: memopt-lower-to-gpu expects linalg on tensors, but 'train.param' is a train op; run --convert-train-to-linalg first
// RUN: not mem-opt %s --memopt-lower-to-cpu -o /dev/null 2>&1 | FileCheck %s --check-prefix=CPU
// CPU: error: memopt-lower-to-cpu expects linalg on tensors, but 'train.param' is a train op; run --convert-train-to-linalg first

func.func @step(%x: tensor<2x4xf32>) -> tensor<f32> {
  %w = train.param "w" : tensor<4x4xf32>
  %h = train.matmul %x, %w : tensor<2x4xf32>, tensor<4x4xf32> -> tensor<2x4xf32>
  %l = train.reduce_sum %h {dims = array<i64: 0, 1>} : tensor<2x4xf32> -> tensor<f32>
  return %l : tensor<f32>
}
