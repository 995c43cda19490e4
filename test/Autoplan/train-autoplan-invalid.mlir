// RUN: mem-opt %s -split-input-file -verify-diagnostics --train-autoplan='devices=2 global-batch=8 device-memory=1MiB reserve=0 precision=bf16-mixed'

// A step needs a batch to split.
// expected-error @+1 {{expected @no_batch to take a static tensor with a batch dimension first, so that its batch can be split}}
func.func @no_batch() -> tensor<f32> {
  %w = train.param "w" : tensor<f32>
  return %w : tensor<f32>
}

// -----

func.func @one(%x: tensor<4x8xf32>) -> tensor<f32> {
  %w = train.param "w" : tensor<f32>
  return %w : tensor<f32>
}
// expected-error @+1 {{expected one function with a body, found @one and @two}}
func.func @two(%x: tensor<4x8xf32>) -> tensor<f32> {
  %w = train.param "w" : tensor<f32>
  return %w : tensor<f32>
}

// -----

// 1 MiB does not hold this MLP however it is partitioned: its parameters
// and states take 16 bytes per parameter of 1024x1024 weights (16 MiB), and
// with the optimizer on the host the bf16 weights the device computes with
// alone take 2 MiB (1 MiB a device at tp=2).
// expected-error @+1 {{train-autoplan: no configuration fits 1.00 MiB per device (1.00 MiB less the reserve of 0 B) on 2 devices: the smallest per-device peak reached is}}
func.func @mlp(%x: tensor<4x1024xf32>, %y: tensor<4xi64>) -> tensor<f32> {
  %w = train.param "fc.weight" : tensor<1024x1024xf32>
  %logits = train.matmul %x, %w {transpose_rhs} : tensor<4x1024xf32>, tensor<1024x1024xf32> -> tensor<4x1024xf32>
  %loss = train.cross_entropy %logits, %y : tensor<4x1024xf32>, tensor<4xi64> -> tensor<f32>
  return %loss : tensor<f32>
}
