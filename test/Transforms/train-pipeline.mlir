// RUN: mem-opt %s --mlir-print-debuginfo=false --train-autodiff=optimizer=sgd --train-pipeline='stages=3 microbatches=2' | FileCheck %s
// RUN: mem-opt %s --mlir-print-debuginfo=false --train-autodiff=optimizer=sgd --train-pipeline='stages=3 microbatches=2 schedule=gpipe' | FileCheck %s --check-prefix=GPIPE
// RUN: mem-opt %s --mlir-print-debuginfo=false --train-autodiff=optimizer=sgd --train-pipeline='stages=2 microbatches=2 split=0,2' | FileCheck %s --check-prefix=SPLIT

// train-pipeline on a 3-layer network whose last layer also reads the
// first layer's output (a skip connection), so that a value crosses two
// stage boundaries: stage 1 receives it, relays it to stage 2 with its own
// output, and sends stage 0 the sum of the gradient stage 2 returns for it
// and its own. Each stage reads 2 micro-batches (its arguments are 2x the
// step's rows) and the last stage seeds each micro-batch's backward with
// 1/2, the mean of the two losses. The messages from one stage to another
// are numbered in the order they are sent, k = 0, 1, ..., with tag
// 2k for an activation and 2k + 1 for a gradient or the loss.

// CHECK:       shard.grid @grid(shape = 3)
// CHECK-LABEL: func.func @relay_stage0(
// CHECK-SAME:      %[[X:[^:]+]]: tensor<4x4xf32>, %{{[^:]+}}: tensor<4x4xf32>) -> tensor<f32>
// CHECK-SAME:      train.pipeline = {axis = 0 : i64, grid = @grid, layers = ["l0"], microbatches = 2 : i64, schedule = "1f1b", stage = 0 : i64, stages = 3 : i64, step = "relay"}
// CHECK:         %[[W0:.+]] = train.param "l0.weight"
// 1F1B on the first of 3 stages: two forward passes (a warm-up of
// min(M, P - 1) = 2), then the two backward passes.
// CHECK:         %[[X0:.+]] = train.slice %[[X]] {offsets = array<i64: 0, 0>} : tensor<4x4xf32> -> tensor<2x4xf32>
// CHECK:         %[[A0:.+]] = train.relu
// CHECK:         train.p2p send %[[A0]] to [1] tags [0] : tensor<2x4xf32>
// CHECK:         %[[X1:.+]] = train.slice %[[X]] {offsets = array<i64: 2, 0>}
// CHECK:         %[[A1:.+]] = train.relu
// The second forward's send and the first backward's receive: one exchange.
// CHECK:         %[[G0:.+]] = train.p2p send %[[A1]] to [1] tags [2] : tensor<2x4xf32> recv from [1] tags [1] : tensor<2x4xf32>
// CHECK:         train.relu_grad %[[G0]], %[[A0]]
// CHECK:         %[[D0:.+]] = train.matmul %[[X0]], %{{.+}} {transpose_lhs}
// CHECK:         %[[G1:.+]] = train.p2p recv from [1] tags [3] : tensor<2x4xf32>
// CHECK:         %[[D1:.+]] = train.matmul %[[X1]], %{{.+}} {transpose_lhs}
// The gradients of the micro-batches are summed, then applied once. Every
// stage returns the loss, which the last stage sends before the updates.
// CHECK:         %[[SUM:.+]] = train.add %[[D0]], %[[D1]] : tensor<4x4xf32>
// CHECK:         %[[LOSS:.+]] = train.p2p recv from [2] tags [1] : tensor<f32>
// CHECK:         train.sgd %[[W0]], %[[SUM]]
// CHECK:         return %[[LOSS]]

// CHECK-LABEL: func.func @relay_stage1(
// CHECK:         %[[IN0:.+]] = train.p2p recv from [0] tags [0] : tensor<2x4xf32>
// CHECK:         %[[H0:.+]] = train.matmul %[[IN0]]
// Relayed: stage 0's output goes on to stage 2 with this stage's output.
// CHECK:         train.p2p send %[[IN0]], %[[H0]] to [2, 2] tags [0, 2]
// CHECK:         %[[GR:.+]]:2 = train.p2p send {{.+}} recv from [2, 2] tags [1, 3]
// CHECK:         %[[GH:.+]] = train.matmul %[[GR]]#1, %{{.+}} {transpose_rhs}
// CHECK:         %[[GA:.+]] = train.add %[[GR]]#0, %[[GH]]
// CHECK:         train.p2p send %[[GA]] to [0] tags [1]

// CHECK-LABEL: func.func @relay_stage2(
// CHECK:         train.p2p recv from [1, 1] tags [0, 2]
// CHECK:         %[[Y0:.+]] = train.slice %{{.+}} {offsets = array<i64: 0, 0>}
// CHECK:         %[[L0:.+]] = train.mse_loss %{{.+}}, %[[Y0]]
// CHECK:         %[[SEED:.+]] = arith.constant dense<5.000000e-01> : tensor<f32>
// CHECK:         train.mse_loss_grad %[[SEED]]
// CHECK:         %[[L1:.+]] = train.mse_loss
// CHECK:         %[[LS:.+]] = train.add %[[L0]], %[[L1]] : tensor<f32>
// CHECK:         %[[MEAN:.+]] = train.scale %[[LS]] {factor = 5.000000e-01 : f64}
// CHECK:         train.p2p send %[[MEAN]], %[[MEAN]] to [0, 1] tags [1, 9]
// CHECK:         return %[[MEAN]]

// GPipe: every forward pass, then every backward pass, on every stage.
// GPIPE-LABEL: func.func @relay_stage0(
// GPIPE:         train.p2p send %{{.+}} to [1] tags [0]
// GPIPE-NEXT:    train.slice
// GPIPE:         train.p2p send %{{.+}} to [1] tags [2] : tensor<2x4xf32> recv from [1] tags [1]
// GPIPE-LABEL: func.func @relay_stage2(
// GPIPE:         train.mse_loss
// GPIPE-NOT:     train.mse_loss_grad
// GPIPE:         train.mse_loss
// GPIPE:         train.mse_loss_grad
// GPIPE:         train.mse_loss_grad

// split=0,2: stage 0 holds l0 and l1, stage 1 holds l2.
// SPLIT-LABEL: func.func @relay_stage0(
// SPLIT-SAME:      layers = ["l0", "l1"]
// SPLIT-LABEL: func.func @relay_stage1(
// SPLIT-SAME:      layers = ["l2"]
func.func @relay(%x: tensor<2x4xf32>, %y: tensor<2x4xf32>) -> tensor<f32> {
  %w0 = train.param "l0.weight" {train.layer = "l0"} : tensor<4x4xf32>
  %h0 = train.matmul %x, %w0 {train.layer = "l0"} : tensor<2x4xf32>, tensor<4x4xf32> -> tensor<2x4xf32>
  %a0 = train.relu %h0 {train.layer = "l0"} : tensor<2x4xf32>
  %w1 = train.param "l1.weight" {train.layer = "l1"} : tensor<4x4xf32>
  %h1 = train.matmul %a0, %w1 {train.layer = "l1"} : tensor<2x4xf32>, tensor<4x4xf32> -> tensor<2x4xf32>
  %s = train.add %h1, %a0 {train.layer = "l2"} : tensor<2x4xf32>
  %w2 = train.param "l2.weight" {train.layer = "l2"} : tensor<4x4xf32>
  %h2 = train.matmul %s, %w2 {train.layer = "l2"} : tensor<2x4xf32>, tensor<4x4xf32> -> tensor<2x4xf32>
  %l = train.mse_loss %h2, %y : tensor<2x4xf32>, tensor<2x4xf32> -> tensor<f32>
  return %l : tensor<f32>
}
