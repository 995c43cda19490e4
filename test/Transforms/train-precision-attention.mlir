// RUN: mem-opt --mlir-print-debuginfo=false %s --train-precision | FileCheck %s
// RUN: mem-opt --mlir-print-debuginfo=false %s --train-precision --train-autodiff --train-verify-step -o /dev/null

// Attention keeps its f32 log-sum-exp; softmax (KeepFP32) computes in f32.
// CHECK-LABEL: func.func @attn(
// CHECK:         train.attention {{.*}} : tensor<1x2x4x8xbf16>, tensor<1x2x4x8xbf16>, tensor<1x2x4x8xbf16> -> tensor<1x2x4x8xbf16>, tensor<1x2x4xf32>
// CHECK:         train.softmax {{.*}} : tensor<1x2x4x8xf32>
func.func @attn(%q: tensor<1x2x4x8xf32>) -> tensor<f32> {
  %w = train.param "w" : tensor<1x2x4x8xf32>
  %k = train.mul %q, %w : tensor<1x2x4x8xf32>
  %o, %lse = train.attention %q, %k, %k {scale = 0.25 : f64} : tensor<1x2x4x8xf32>, tensor<1x2x4x8xf32>, tensor<1x2x4x8xf32> -> tensor<1x2x4x8xf32>, tensor<1x2x4xf32>
  %s = train.softmax %o : tensor<1x2x4x8xf32>
  %l = train.reduce_sum %s {dims = array<i64: 0, 1, 2, 3>} : tensor<1x2x4x8xf32> -> tensor<f32>
  return %l : tensor<f32>
}
