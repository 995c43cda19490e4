// `layers` under mixed precision: each layer hands the next a bf16 copy of
// its output (l.N.out) that the next layer casts back to f32 (l.N.in), as
// train-precision's bf16-mixed makes the residual stream. A cast's gradient
// reads nothing, so the bf16 copies are no activations; they are still the
// layer boundaries, and `layers` keeps them. Each layer's backward then
// recomputes only its own values, from its own bf16 input.
// RUN: mem-opt %s --train-autodiff=optimizer=sgd --train-lifetimes --train-remat=algorithm=layers --train-verify-step | FileCheck %s

// Recomputed: the two casts back to f32 (32 FLOPs each) and l.0's matmul
// (2*4*8*8 = 512).
// CHECK:      func.func @casts({{.*}}train.remat = {algorithm = "layers"}, train.remat_flops = 576 : i64
// CHECK:      %[[A16:.*]] = train.cast %{{.*}} : tensor<4x8xf32> -> tensor<4x8xbf16>
// CHECK:      %[[B16:.*]] = train.cast %{{.*}} : tensor<4x8xf32> -> tensor<4x8xbf16>
// Layer l.2's backward reads a copy of its input cast from the kept b16.
// CHECK:      %[[B32:.*]] = train.cast %[[B16]] {train.recomputed} : tensor<4x8xbf16> -> tensor<4x8xf32>
// CHECK-NEXT: train.free %[[B16]]
// CHECK:      train.gelu_grad %{{.*}}, %[[B32]]
// CHECK:      %[[A32:.*]] = train.cast %[[A16]] {train.recomputed} : tensor<4x8xbf16> -> tensor<4x8xf32>
// CHECK-NEXT: train.free %[[A16]]
// CHECK:      train.gelu_grad %{{.*}}, %[[A32]]
// CHECK:      %[[H:.*]] = train.matmul %arg0, %w {train.recomputed}
// CHECK:      train.gelu_grad %{{.*}}, %[[H]]
func.func @casts(%x: tensor<4x8xf32>) -> tensor<f32> {
  %w = train.param "w" : tensor<8x8xf32>
  %h = train.matmul %x, %w : tensor<4x8xf32>, tensor<8x8xf32> -> tensor<4x8xf32> loc("l.0.fc")
  %a = train.gelu %h : tensor<4x8xf32> loc("l.0.act")
  %a16 = train.cast %a : tensor<4x8xf32> -> tensor<4x8xbf16> loc("l.0.out")
  %a32 = train.cast %a16 : tensor<4x8xbf16> -> tensor<4x8xf32> loc("l.1.in")
  %b = train.gelu %a32 : tensor<4x8xf32> loc("l.1.act")
  %b16 = train.cast %b : tensor<4x8xf32> -> tensor<4x8xbf16> loc("l.1.out")
  %b32 = train.cast %b16 : tensor<4x8xbf16> -> tensor<4x8xf32> loc("l.2.in")
  %c = train.gelu %b32 : tensor<4x8xf32> loc("l.2.act")
  %loss = train.reduce_sum %c {dims = array<i64: 0, 1>} : tensor<4x8xf32> -> tensor<f32> loc("loss")
  return %loss : tensor<f32>
}
