// `chain` needs a chain of layers: each layer reads only the layer before
// it (and parameters or inputs). A skip connection is not a chain.
// RUN: not mem-opt %s -split-input-file --train-autodiff=optimizer=sgd --train-lifetimes --train-remat='budget=600 algorithm=chain' -o /dev/null 2>&1 | FileCheck %s
// Without a budget too: `chain` fails on a step that is not a chain
// rather than keep everything silently (@tight is a chain: no error).
// RUN: not mem-opt %s -split-input-file --train-autodiff=optimizer=sgd --train-lifetimes --train-remat=algorithm=chain -o /dev/null 2>&1 | FileCheck %s --check-prefix=NOBUDGET
// NOBUDGET: error: train-remat: algorithm 'chain' cannot run on @skip: the step is not a chain of layers: layer 'l.2' (layer 2) reads a value of layer 'l.0' (layer 0), not only of the one before it
// NOBUDGET-NOT: error

// CHECK: error: train-remat: algorithm 'chain' found no schedule within the budget of 600 bytes: the step is not a chain of layers: layer 'l.2' (layer 2) reads a value of layer 'l.0' (layer 0), not only of the one before it; parameters and optimizer states alone take 128 bytes
func.func @skip() -> tensor<f32> {
  %w = train.param "w" : tensor<4x8xf32>
  %a = train.gelu %w : tensor<4x8xf32> loc("l.0")
  %b = train.gelu %a : tensor<4x8xf32> loc("l.1")
  %c = train.add %a, %b : tensor<4x8xf32> loc("l.2")
  %loss = train.reduce_sum %c {dims = array<i64: 0, 1>} : tensor<4x8xf32> -> tensor<f32> loc("loss")
  return %loss : tensor<f32>
}

// -----

// Below what any schedule of the chain model needs (beside w and the loss,
// the state a reversal reads and two gradients: 768 bytes), the error says
// what the model had.
// CHECK: error: train-remat: algorithm 'chain' found no schedule within the budget of 600 bytes: the chain model of 5 layers has no schedule in 340 bytes beside the 260 bytes of parameters, states, inputs and results; parameters and optimizer states alone take 256 bytes
func.func @tight() -> tensor<f32> {
  %w = train.param "w" : tensor<8x8xf32>
  %a = train.gelu %w : tensor<8x8xf32> loc("l.0")
  %b = train.gelu %a : tensor<8x8xf32> loc("l.1")
  %c = train.gelu %b : tensor<8x8xf32> loc("l.2")
  %d = train.gelu %c : tensor<8x8xf32> loc("l.3")
  %loss = train.reduce_sum %d {dims = array<i64: 0, 1>} : tensor<8x8xf32> -> tensor<f32> loc("loss")
  return %loss : tensor<f32>
}
