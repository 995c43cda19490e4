// RUN: mem-opt %s --train-autodiff=optimizer=sgd --train-offload=optimizer=host --test-print-tensor-liveness -o /dev/null | FileCheck %s

// Two memories (train-offload): the 4x4 f32 weights (64 B) and the host's
// copies of their gradients live on the host; the device holds the
// weights' copies (to_device, parameters but not persistent: made each
// step) and computes as before. Each side has its own live bytes, load and
// persistent bytes; the device's are the top-level numbers.

// CHECK:      l0.weight: 64 bytes, parameter, live [0, 18], persistent, host
// CHECK-NEXT: train.to_device@1: 64 bytes, parameter, live [1, 2]{{$}}
// CHECK:      l1.weight: 64 bytes, parameter, live [0, 18], persistent, host
// CHECK-NEXT: train.to_device@5: 64 bytes, parameter, live [5, 10]{{$}}
// The device's gradient is staged until its copy to the host, which the
// update reads; both are gradients.
// CHECK:      train.matmul@11: 64 bytes, gradient, live [11, 12]{{$}}
// CHECK-NEXT: train.to_host@12: 64 bytes, gradient, live [12, 17], host
// CHECK:      train.matmul@14: 64 bytes, gradient, live [14, 15]{{$}}
// CHECK-NEXT: train.to_host@15: 64 bytes, gradient, live [15, 16], host
// Nothing persists on the device; its load is the backward pass's
// (64 B weight copy + 64 B activation + 36 B temporaries + 68 B inputs).
// CHECK:      persistent: 0
// CHECK-NEXT: load: 232 at point 9 (train.mse_loss_grad)
// The host's: both weights (128 B) and, once the second gradient is
// copied, both gradients.
// CHECK-NEXT: by class at peak: parameter=64 gradient=0 optimizer_state=0 activation=64 temporary=36 input=68
// CHECK-NEXT: host persistent: 128
// CHECK-NEXT: host load: 256 at point 15 (train.to_host)
// CHECK-NEXT: host by class at peak: parameter=128 gradient=128 optimizer_state=0 activation=0 temporary=0 input=0
func.func @mlp(%x: tensor<2x4xf32>, %y: tensor<2x4xf32>) -> tensor<f32> {
  %w0 = train.param "l0.weight" {train.layer = "l0"} : tensor<4x4xf32>
  %h0 = train.matmul %x, %w0 {train.layer = "l0"} : tensor<2x4xf32>, tensor<4x4xf32> -> tensor<2x4xf32>
  %a0 = train.relu %h0 {train.layer = "l0"} : tensor<2x4xf32>
  %w1 = train.param "l1.weight" {train.layer = "l1"} : tensor<4x4xf32>
  %h1 = train.matmul %a0, %w1 {train.layer = "l1"} : tensor<2x4xf32>, tensor<4x4xf32> -> tensor<2x4xf32>
  %l = train.mse_loss %h1, %y : tensor<2x4xf32>, tensor<2x4xf32> -> tensor<f32>
  return %l : tensor<f32>
}
