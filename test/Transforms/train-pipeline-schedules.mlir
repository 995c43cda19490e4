// RUN: mem-opt %s --mlir-print-debuginfo=false --train-autodiff=optimizer=sgd --train-pipeline='stages=2 microbatches=2 schedule=interleaved virtual=2' | FileCheck %s --check-prefix=INTER
// RUN: mem-opt %s --mlir-print-debuginfo=false --train-autodiff=optimizer=sgd --train-pipeline='stages=2 microbatches=3 schedule=zb-h1' | FileCheck %s --check-prefix=ZB

// The interleaved and zero-bubble schedules on a 4-layer network.
//
// Interleaved, 2 stages x 2 chunks: stage 0 holds chunks l0 and l2, stage 1
// l1 and l3 (the loss). With as many micro-batches as stages every forward
// pass comes first. Stage 1's chunk l1 sends to stage 0's chunk l2: the
// last stage sends forward to the first. Each exchange sends what a step of
// the schedule sends and receives what the next step needs (Megatron-LM's
// grouping): stage 0 receives l2's input of micro-batch 0 with l0's send of
// micro-batch 1. Each stage numbers its messages to the other in the order
// it sends them (k = 0, 1, ...): tag 2k forward, 2k + 1 backward.

// INTER-LABEL: func.func @mlp_stage0(
// INTER-SAME:      chunks = {{\[}}["l0"], ["l2"]]
// INTER-SAME:      layers = ["l0", "l2"]
// INTER-SAME:      schedule = "interleaved"
// INTER-SAME:      virtual = 2 : i64
// INTER:         %[[A0:.+]] = train.relu {{.+}} {train.layer = "l0"}
// INTER-NEXT:    train.p2p send %[[A0]] to [1] tags [0]
// INTER:         %[[A1:.+]] = train.relu {{.+}} {train.layer = "l0"}
// INTER-NEXT:    %[[IN:.+]] = train.p2p send %[[A1]] to [1] tags [2] : tensor<2x4xf32> recv from [1] tags [0]
// INTER-NEXT:    train.matmul %[[IN]], %{{.+}} {train.layer = "l2"}
// The first backward pass is the last chunk's (l2), micro-batch 0.
// INTER:         %[[G:.+]] = train.p2p send %{{.+}} to [1] tags [6] : tensor<2x4xf32> recv from [1] tags [5]
// INTER-NEXT:    train.relu_grad %[[G]]
// INTER-LABEL: func.func @mlp_stage1(
// INTER-SAME:      chunks = {{\[}}["l1"], ["l3"]]
// INTER:         train.p2p recv from [0] tags [0]
// INTER:         train.p2p send %{{.+}} to [0] tags [0] : tensor<2x4xf32> recv from [0] tags [2]
// INTER:         train.mse_loss
// INTER:         train.mse_loss
// INTER:         train.mse_loss_grad

// ZB-H1, 2 stages, 3 micro-batches: the last stage (s = 1) runs its first
// backward pass without its weight part, and from then on a forward, an
// input-gradient and a deferred weight-gradient part in turn; the last
// weight part comes at the end, after the last send. The weight-gradient
// matmuls (transpose_lhs) of micro-batch 0 come after micro-batch 1's send.

// ZB-LABEL: func.func @mlp_stage1(
// ZB-SAME:      schedule = "zb-h1"
// ZB:         %[[G0:.+]] = train.mse_loss_grad
// ZB-NOT:     transpose_lhs
// ZB:         train.p2p send %{{.+}} to [0] tags [1] : tensor<2x4xf32> recv from [0] tags [2]
// ZB-NOT:     transpose_lhs
// ZB:         train.p2p send %{{.+}} to [0] tags [3]
// ZB-NEXT:    train.matmul %{{.+}}, %[[G0]] {transpose_lhs}
// ZB-NEXT:    train.matmul {{.+}} {transpose_lhs}
// ZB-NEXT:    train.p2p recv from [0] tags [4]
// ZB:         train.p2p send %{{.+}} to [0] tags [5]
// ZB-NEXT:    train.matmul {{.+}} {transpose_lhs}
// ZB:         train.sgd
func.func @mlp(%x: tensor<2x4xf32>, %y: tensor<2x4xf32>) -> tensor<f32> {
  %w0 = train.param "l0.weight" {train.layer = "l0"} : tensor<4x4xf32>
  %h0 = train.matmul %x, %w0 {train.layer = "l0"} : tensor<2x4xf32>, tensor<4x4xf32> -> tensor<2x4xf32>
  %a0 = train.relu %h0 {train.layer = "l0"} : tensor<2x4xf32>
  %w1 = train.param "l1.weight" {train.layer = "l1"} : tensor<4x4xf32>
  %h1 = train.matmul %a0, %w1 {train.layer = "l1"} : tensor<2x4xf32>, tensor<4x4xf32> -> tensor<2x4xf32>
  %a1 = train.relu %h1 {train.layer = "l1"} : tensor<2x4xf32>
  %w2 = train.param "l2.weight" {train.layer = "l2"} : tensor<4x4xf32>
  %h2 = train.matmul %a1, %w2 {train.layer = "l2"} : tensor<2x4xf32>, tensor<4x4xf32> -> tensor<2x4xf32>
  %a2 = train.relu %h2 {train.layer = "l2"} : tensor<2x4xf32>
  %w3 = train.param "l3.weight" {train.layer = "l3"} : tensor<4x4xf32>
  %h3 = train.matmul %a2, %w3 {train.layer = "l3"} : tensor<2x4xf32>, tensor<4x4xf32> -> tensor<2x4xf32>
  %l = train.mse_loss %h3, %y : tensor<2x4xf32>, tensor<2x4xf32> -> tensor<f32>
  return %l : tensor<f32>
}
