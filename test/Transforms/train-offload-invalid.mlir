// RUN: mem-opt %s -split-input-file -verify-diagnostics --train-offload=optimizer=host
// RUN: not mem-opt %s --train-offload=optimizer=cpu 2>&1 | FileCheck %s --check-prefix=VALUE
// RUN: not mem-opt %s --train-offload='params=host' 2>&1 | FileCheck %s --check-prefix=PARAMS
// RUN: not mem-opt %s --train-offload='grads=host' 2>&1 | FileCheck %s --check-prefix=GRADS
// RUN: not mem-opt %s --train-offload='optimizer=host params=cpu' 2>&1 | FileCheck %s --check-prefix=PARAMS-VALUE
// RUN: not mem-opt %s --train-offload='params=micro-batch' 2>&1 | FileCheck %s --check-prefix=MICRO
// RUN: not mem-opt %s --train-offload='optimizer=host bogus=1' 2>&1 | FileCheck %s --check-prefix=UNKNOWN

// VALUE: train-offload: optimizer must be device or host, got 'cpu'
// PARAMS: train-offload: params=host needs optimizer=host (the weights' home on the host is beside the fp32 masters the host's updates write)
// PARAMS-VALUE: train-offload: params must be device, micro-batch or host, got 'cpu'
// MICRO: train-offload: params=micro-batch needs optimizer=host (it says how often the device copies the weights the host updates)
// GRADS: train-offload: grads=host without optimizer=host is not built yet (with optimizer=host the gradients go to the host)
// UNKNOWN: no such option bogus

// A forward + loss function has no update to move.
// expected-error@+1 {{'func.func' op has no optimizer update to offload (apply train-autodiff with an optimizer first)}}
func.func @forward(%x: tensor<2x4xf32>, %y: tensor<2x4xf32>) -> tensor<f32> {
  %w = train.param "w" : tensor<4x4xf32>
  %h = train.matmul %x, %w : tensor<2x4xf32>, tensor<4x4xf32> -> tensor<2x4xf32>
  %l = train.mse_loss %h, %y : tensor<2x4xf32>, tensor<2x4xf32> -> tensor<f32>
  return %l : tensor<f32>
}

// -----

// Applied twice.
func.func @twice(%g: tensor<4xf32>) {
  // expected-error@+1 {{'train.param' op is already placed on the host or copied between memories: apply train-offload once}}
  %w = train.param "w" {train.space = "host"} : tensor<4xf32>
  %gh = train.to_host %g : tensor<4xf32>
  train.sgd %w, %gh {lr = 0.1 : f64, train.space = "host"} : tensor<4xf32>, tensor<4xf32>
  return
}
