// RUN: mem-opt %s --mlir-print-debuginfo=false --train-autodiff=optimizer=adam --train-offload=optimizer=host | FileCheck %s
// RUN: mem-opt %s --mlir-print-debuginfo=false --train-autodiff=optimizer=adam --train-precision=mode=bf16-mixed --train-offload=optimizer=host | FileCheck %s --check-prefix=BF16
// RUN: mem-opt %s --mlir-print-debuginfo=false --train-autodiff=optimizer=sgd --train-precision=mode=fp16-mixed --train-offload=optimizer=host | FileCheck %s --check-prefix=SCALED
// RUN: mem-opt %s --train-autodiff=optimizer=adam --train-offload | FileCheck %s --check-prefix=DEVICE
// RUN: mem-opt %s --train-autodiff=optimizer=adam --train-offload=optimizer=host --train-verify-step -o /dev/null

// train-offload{optimizer=host} on a 2-layer network (ZeRO-Offload's
// placement): the parameters, the Adam moments and the updates get
// train.space = "host"; the device computes with train.to_device copies of
// the weights, made after each parameter read; each gradient goes to the
// host right after the op that completes it; the step number too.

// CHECK-LABEL: func.func @mlp(
// CHECK-SAME:      %[[X:[^:]+]]: tensor<2x4xf32>, %{{[^:]+}}: tensor<2x4xf32>, %[[T:[^:]+]]: tensor<i64> {train.step})
// CHECK:         %[[TH:.+]] = train.to_host %[[T]] : tensor<i64>
// CHECK:         %[[W0:.+]] = train.param "l0.weight" {train.layer = "l0", train.space = "host"}
// CHECK-NEXT:    %[[W0D:.+]] = train.to_device %[[W0]] : tensor<4x4xf32>
// CHECK-NEXT:    train.matmul %[[X]], %[[W0D]]
// CHECK:         %[[W1:.+]] = train.param "l1.weight" {train.layer = "l1", train.space = "host"}
// CHECK-NEXT:    %[[W1D:.+]] = train.to_device %[[W1]]
// The backward pass reads the same device copy.
// CHECK:         train.matmul %{{.+}}, %[[W1D]] {transpose_rhs}
// CHECK:         %[[G1:.+]] = train.matmul %{{.+}}, %{{.+}} {transpose_lhs}
// CHECK-NEXT:    %[[G1H:.+]] = train.to_host %[[G1]] : tensor<4x4xf32>
// CHECK:         %[[G0:.+]] = train.matmul %[[X]], %{{.+}} {transpose_lhs}
// CHECK-NEXT:    %[[G0H:.+]] = train.to_host %[[G0]] : tensor<4x4xf32>
// CHECK:         %[[M0:.+]] = train.opt_state "l0.weight.exp_avg" {train.space = "host"}
// CHECK:         %[[V0:.+]] = train.opt_state "l0.weight.exp_avg_sq" {train.space = "host"}
// CHECK:         train.adam %[[W0]], %[[G0H]], %[[M0]], %[[V0]] step(%[[TH]] : tensor<i64>) {lr = 1.000000e-03 : f64, train.space = "host"}
// CHECK:         train.adam %[[W1]], %[[G1H]], {{.+}} step(%[[TH]] : tensor<i64>) {{.+}}train.space = "host"

// bf16-mixed: the cast to the 16-bit weights runs on the host, so that the
// 16-bit copy (2 bytes a weight) crosses the link; the fp32 gradient the
// update reads goes to the host.
// BF16:         %[[W0:.+]] = train.param "l0.weight" {train.layer = "l0", train.space = "host"}
// BF16:         %[[C0:.+]] = train.cast %[[W0]] {train.layer = "l0", train.space = "host"} : tensor<4x4xf32> -> tensor<4x4xbf16>
// BF16-NEXT:    %[[C0D:.+]] = train.to_device %[[C0]] : tensor<4x4xbf16>
// BF16-NEXT:    train.matmul %{{.+}}, %[[C0D]]
// BF16:         %[[G:.+]] = train.cast %{{.+}} : tensor<4x4xbf16> -> tensor<4x4xf32>
// BF16-NEXT:    train.to_host %[[G]] : tensor<4x4xf32>

// fp16-mixed with dynamic loss scaling: the updates read the scale and the
// found-nonfinite flag, copied to the host; the scaler's own update stays
// on the device with its states.
// SCALED:       %[[SCALE:.+]] = train.to_host %{{.+}} : tensor<f32>
// SCALED:       %[[FOUND:.+]] = train.any_nonfinite
// SCALED-NEXT:  %[[FOUNDH:.+]] = train.to_host %[[FOUND]] : tensor<i1>
// SCALED:       train.sgd %{{.+}}, %{{.+}} unscale(%[[SCALE]] : tensor<f32>) skip_if(%[[FOUNDH]] : tensor<i1>) {{.+}}train.space = "host"
// SCALED:       train.loss_scale_update
// SCALED-NOT:   train.space

// The default, optimizer=device, changes nothing.
// DEVICE-NOT: train.space
// DEVICE-NOT: train.to_host
func.func @mlp(%x: tensor<2x4xf32>, %y: tensor<2x4xf32>) -> tensor<f32> {
  %w0 = train.param "l0.weight" {train.layer = "l0"} : tensor<4x4xf32>
  %h0 = train.matmul %x, %w0 {train.layer = "l0"} : tensor<2x4xf32>, tensor<4x4xf32> -> tensor<2x4xf32>
  %a0 = train.relu %h0 {train.layer = "l0"} : tensor<2x4xf32>
  %w1 = train.param "l1.weight" {train.layer = "l1"} : tensor<4x4xf32>
  %h1 = train.matmul %a0, %w1 {train.layer = "l1"} : tensor<2x4xf32>, tensor<4x4xf32> -> tensor<2x4xf32>
  %l = train.mse_loss %h1, %y : tensor<2x4xf32>, tensor<2x4xf32> -> tensor<f32>
  return %l : tensor<f32>
}
