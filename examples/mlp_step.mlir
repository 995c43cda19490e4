// One training step of a 2-layer MLP, written out by hand: forward, MSE
// loss, the complete backward and an Adam update of every parameter.
//
//   out  = relu(x · W1 + b1) · W2 + b2        x: 8x16, hidden 32, out: 8x4
//   loss = mean((out - y)^2)
//
// Weights are stored input-major, `[in, out]` (y = x · W), so a PyTorch
// `nn.Linear` weight is the transpose of the tensor here. The program order
// is the schedule; `train.free` marks where each activation dies.
//
//   mem-opt --train-verify-step examples/mlp_step.mlir

func.func @mlp_step(%x: tensor<8x16xf32>, %y: tensor<8x4xf32>,
                    %step: tensor<i64>) -> tensor<f32> {
  // Parameters (persistent, updated in place by the optimizer at the end).
  %w1 = train.param "fc1.weight" : tensor<16x32xf32> loc("fc1")
  %b1 = train.param "fc1.bias" : tensor<32xf32> loc("fc1")
  %w2 = train.param "fc2.weight" : tensor<32x4xf32> loc("fc2")
  %b2 = train.param "fc2.bias" : tensor<4xf32> loc("fc2")

  //===--------------------------------------------------------------------===//
  // Forward
  //===--------------------------------------------------------------------===//
  %h1 = train.matmul %x, %w1 : tensor<8x16xf32>, tensor<16x32xf32> -> tensor<8x32xf32> loc("fc1")
  %z1 = train.bias_add %h1, %b1 : tensor<8x32xf32>, tensor<32xf32> -> tensor<8x32xf32> loc("fc1")
  train.free %h1 : tensor<8x32xf32> loc("fc1")
  // relu saves its output %a1 for backward; its input dies here.
  %a1 = train.relu %z1 : tensor<8x32xf32> loc("act1")
  train.free %z1 : tensor<8x32xf32> loc("act1")
  %h2 = train.matmul %a1, %w2 : tensor<8x32xf32>, tensor<32x4xf32> -> tensor<8x4xf32> loc("fc2")
  %out = train.bias_add %h2, %b2 : tensor<8x4xf32>, tensor<4xf32> -> tensor<8x4xf32> loc("fc2")
  train.free %h2 : tensor<8x4xf32> loc("fc2")
  %loss = train.mse_loss %out, %y : tensor<8x4xf32>, tensor<8x4xf32> -> tensor<f32> loc("loss")

  //===--------------------------------------------------------------------===//
  // Backward (reverse order); the loss gradient is seeded with 1.
  //===--------------------------------------------------------------------===//
  %dloss = arith.constant dense<1.000000e+00> : tensor<f32> loc("loss.grad")
  %dout = train.mse_loss_grad %dloss, %out, %y : tensor<f32>, tensor<8x4xf32>, tensor<8x4xf32> -> tensor<8x4xf32> loc("loss.grad")
  train.free %out : tensor<8x4xf32> loc("loss.grad")

  // fc2: out = a1 · W2 + b2.
  //   db2 = sum over the batch of dout
  //   dW2 = a1^T · dout              [32x8]·[8x4]  -> 32x4
  //   da1 = dout · W2^T              [8x4]·[4x32]  -> 8x32
  %db2 = train.reduce_sum %dout {dims = array<i64: 0>} : tensor<8x4xf32> -> tensor<4xf32> loc("fc2.grad")
  %dw2 = train.matmul %a1, %dout {transpose_lhs} : tensor<8x32xf32>, tensor<8x4xf32> -> tensor<32x4xf32> loc("fc2.grad")
  %da1 = train.matmul %dout, %w2 {transpose_rhs} : tensor<8x4xf32>, tensor<32x4xf32> -> tensor<8x32xf32> loc("fc2.grad")
  train.free %dout : tensor<8x4xf32> loc("fc2.grad")

  // act1: relu_grad masks by the saved relu output (a1 > 0).
  %dz1 = train.relu_grad %da1, %a1 : tensor<8x32xf32> loc("act1.grad")
  train.free %da1 : tensor<8x32xf32> loc("act1.grad")
  train.free %a1 : tensor<8x32xf32> loc("act1.grad")

  // fc1: z1 = x · W1 + b1. x is an input, so dx is not computed.
  //   db1 = sum over the batch of dz1
  //   dW1 = x^T · dz1                [16x8]·[8x32] -> 16x32
  %db1 = train.reduce_sum %dz1 {dims = array<i64: 0>} : tensor<8x32xf32> -> tensor<32xf32> loc("fc1.grad")
  %dw1 = train.matmul %x, %dz1 {transpose_lhs} : tensor<8x16xf32>, tensor<8x32xf32> -> tensor<16x32xf32> loc("fc1.grad")
  train.free %dz1 : tensor<8x32xf32> loc("fc1.grad")

  //===--------------------------------------------------------------------===//
  // Optimizer: Adam (PyTorch defaults, lr 1e-3), one update per parameter.
  //===--------------------------------------------------------------------===//
  %w1_m = train.opt_state "fc1.weight.exp_avg" : tensor<16x32xf32> loc("optimizer")
  %w1_v = train.opt_state "fc1.weight.exp_avg_sq" : tensor<16x32xf32> loc("optimizer")
  train.adam %w1, %dw1, %w1_m, %w1_v step(%step : tensor<i64>) {lr = 1.000000e-03 : f64} : tensor<16x32xf32>, tensor<16x32xf32>, tensor<16x32xf32>, tensor<16x32xf32> loc("optimizer")
  %b1_m = train.opt_state "fc1.bias.exp_avg" : tensor<32xf32> loc("optimizer")
  %b1_v = train.opt_state "fc1.bias.exp_avg_sq" : tensor<32xf32> loc("optimizer")
  train.adam %b1, %db1, %b1_m, %b1_v step(%step : tensor<i64>) {lr = 1.000000e-03 : f64} : tensor<32xf32>, tensor<32xf32>, tensor<32xf32>, tensor<32xf32> loc("optimizer")
  %w2_m = train.opt_state "fc2.weight.exp_avg" : tensor<32x4xf32> loc("optimizer")
  %w2_v = train.opt_state "fc2.weight.exp_avg_sq" : tensor<32x4xf32> loc("optimizer")
  train.adam %w2, %dw2, %w2_m, %w2_v step(%step : tensor<i64>) {lr = 1.000000e-03 : f64} : tensor<32x4xf32>, tensor<32x4xf32>, tensor<32x4xf32>, tensor<32x4xf32> loc("optimizer")
  %b2_m = train.opt_state "fc2.bias.exp_avg" : tensor<4xf32> loc("optimizer")
  %b2_v = train.opt_state "fc2.bias.exp_avg_sq" : tensor<4xf32> loc("optimizer")
  train.adam %b2, %db2, %b2_m, %b2_v step(%step : tensor<i64>) {lr = 1.000000e-03 : f64} : tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32> loc("optimizer")

  return %loss : tensor<f32> loc("return")
}
