// RUN: mem-opt %s --split-input-file --verify-diagnostics --train-lora='rank=2 targets=q_proj'

// A target that matches no linear layer is an error (a misspelt name would
// otherwise fine-tune nothing).
// expected-error @+1 {{train-lora: no linear layer matches the target 'q_proj' (a target names a module whose weight a train.matmul reads, such as q_proj)}}
func.func @nothing(%x: tensor<3x6xf32>, %y: tensor<3x10xf32>) -> tensor<f32> {
  %w = train.param "mlp.fc.weight" : tensor<6x10xf32>
  %h = train.matmul %x, %w : tensor<3x6xf32>, tensor<6x10xf32> -> tensor<3x10xf32>
  %l = train.mse_loss %h, %y : tensor<3x10xf32>, tensor<3x10xf32> -> tensor<f32>
  return %l : tensor<f32>
}

// -----

// A suffix must end at a '.': "xq_proj" is not "q_proj".
// expected-error @+1 {{no linear layer matches the target 'q_proj'}}
func.func @partial(%x: tensor<3x6xf32>, %y: tensor<3x10xf32>) -> tensor<f32> {
  %w = train.param "attn.xq_proj.weight" : tensor<6x10xf32>
  %h = train.matmul %x, %w : tensor<3x6xf32>, tensor<6x10xf32> -> tensor<3x10xf32>
  %l = train.mse_loss %h, %y : tensor<3x10xf32>, tensor<3x10xf32> -> tensor<f32>
  return %l : tensor<f32>
}

// -----

// A weight two matmuls read (tied) would change both.
func.func @tied(%x: tensor<3x6xf32>, %y: tensor<3x6xf32>) -> tensor<f32> {
  %w = train.param "q_proj.weight" : tensor<6x6xf32>
  // expected-note @+1 {{the other read}}
  %h = train.matmul %x, %w : tensor<3x6xf32>, tensor<6x6xf32> -> tensor<3x6xf32>
  // expected-error @+1 {{'train.matmul' op train-lora: the weight 'q_proj.weight' is read by more than one matmul (a tied weight); an adapter on it would change every reader}}
  %g = train.matmul %h, %w {transpose_rhs} : tensor<3x6xf32>, tensor<6x6xf32> -> tensor<3x6xf32>
  %l = train.mse_loss %g, %y : tensor<3x6xf32>, tensor<3x6xf32> -> tensor<f32>
  return %l : tensor<f32>
}

// -----

func.func @again(%x: tensor<3x6xf32>, %y: tensor<3x10xf32>) -> tensor<f32> {
  %w = train.param "q_proj.weight" : tensor<6x10xf32>
  // expected-error @+1 {{'train.matmul' op train-lora: 'q_proj' already has an adapter}}
  %h = train.matmul %x, %w : tensor<3x6xf32>, tensor<6x10xf32> -> tensor<3x10xf32>
  %a = train.param "q_proj.lora_A.weight" : tensor<2x6xf32>
  %l = train.mse_loss %h, %y : tensor<3x10xf32>, tensor<3x10xf32> -> tensor<f32>
  return %l : tensor<f32>
}

// -----

func.func @narrow(%x: tensor<3x6xf32>, %y: tensor<3x1xf32>) -> tensor<f32> {
  %w = train.param "q_proj.weight" : tensor<6x1xf32>
  // expected-error @+1 {{'train.matmul' op train-lora: rank 2 exceeds the layer 'q_proj' (6 in, 1 out)}}
  %h = train.matmul %x, %w : tensor<3x6xf32>, tensor<6x1xf32> -> tensor<3x1xf32>
  %l = train.mse_loss %h, %y : tensor<3x1xf32>, tensor<3x1xf32> -> tensor<f32>
  return %l : tensor<f32>
}

// -----

// Before train-precision: the weights it would adapt are low copies then.
// expected-error @+1 {{'func.func' op carries 'train.precision': apply train-lora before train-precision and train-shard, to the fp32 program}}
func.func @lowered(%x: tensor<3x6xf32>, %y: tensor<3x10xf32>) -> tensor<f32> attributes {train.precision = {mode = "bf16-mixed", grads = "fp32"}} {
  %w = train.param "q_proj.weight" : tensor<6x10xf32>
  %h = train.matmul %x, %w : tensor<3x6xf32>, tensor<6x10xf32> -> tensor<3x10xf32>
  %l = train.mse_loss %h, %y : tensor<3x10xf32>, tensor<3x10xf32> -> tensor<f32>
  return %l : tensor<f32>
}
