// RUN: mem-opt %s --split-input-file --verify-diagnostics --train-autodiff=optimizer=sgd --train-pipeline='stages=2 microbatches=2'

// Two stages need two train.layer groups.
// expected-error @+1 {{has 1 train.layer groups, fewer than stages=2: every pipeline stage needs at least one layer}}
func.func @one_layer(%x: tensor<2x4xf32>, %y: tensor<2x4xf32>) -> tensor<f32> {
  %w0 = train.param "l0.weight" {train.layer = "l0"} : tensor<4x4xf32>
  %h0 = train.matmul %x, %w0 {train.layer = "l0"} : tensor<2x4xf32>, tensor<4x4xf32> -> tensor<2x4xf32>
  %l = train.mse_loss %h0, %y : tensor<2x4xf32>, tensor<2x4xf32> -> tensor<f32>
  return %l : tensor<f32>
}

// -----

// A layer's ops must be together: l0's relu after l1's matmul.
func.func @interleaved_layers(%x: tensor<2x4xf32>, %y: tensor<2x4xf32>) -> tensor<f32> {
  %w0 = train.param "l0.weight" {train.layer = "l0"} : tensor<4x4xf32>
  %h0 = train.matmul %x, %w0 {train.layer = "l0"} : tensor<2x4xf32>, tensor<4x4xf32> -> tensor<2x4xf32>
  %w1 = train.param "l1.weight" {train.layer = "l1"} : tensor<4x4xf32>
  %h1 = train.matmul %h0, %w1 {train.layer = "l1"} : tensor<2x4xf32>, tensor<4x4xf32> -> tensor<2x4xf32>
  // expected-error @+1 {{is in layer 'l0' after another layer's ops: train-pipeline needs each train.layer's ops together, in layer order}}
  %a = train.relu %h1 {train.layer = "l0"} : tensor<2x4xf32>
  %l = train.mse_loss %a, %y : tensor<2x4xf32>, tensor<2x4xf32> -> tensor<f32>
  return %l : tensor<f32>
}

// -----

// A later stage's layer that does not read the earlier stage's values.
// expected-error @+1 {{stage 1 reads nothing that earlier stages compute: the layers after 'l0' do not depend on those before}}
func.func @independent(%x: tensor<2x4xf32>, %y: tensor<2x4xf32>) -> tensor<f32> {
  %w0 = train.param "l0.weight" {train.layer = "l0"} : tensor<4x4xf32>
  %h0 = train.matmul %x, %w0 {train.layer = "l0"} : tensor<2x4xf32>, tensor<4x4xf32> -> tensor<2x4xf32>
  %w1 = train.param "l1.weight" {train.layer = "l1"} : tensor<4x4xf32>
  %h1 = train.matmul %x, %w1 {train.layer = "l1"} : tensor<2x4xf32>, tensor<4x4xf32> -> tensor<2x4xf32>
  %l = train.mse_loss %h1, %y : tensor<2x4xf32>, tensor<2x4xf32> -> tensor<f32>
  return %l : tensor<f32>
}
