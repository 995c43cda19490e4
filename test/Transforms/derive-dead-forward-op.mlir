// RUN: mem-opt --mlir-print-debuginfo=false %s --train-autodiff=optimizer=sgd --train-shard=dp=2 | FileCheck %s
// RUN: mem-opt --mlir-print-debuginfo=false %s --train-autodiff=optimizer=sgd --train-precision=mode=bf16-mixed | FileCheck %s --check-prefix=PRECISION

// A forward op nothing reads (here a transpose, as random programs from
// mem-gen have) stays in the step train-autodiff derives. The passes that
// rewrite a whole step through its forward pass (train-shard,
// train-precision) recover that forward pass with the dead op in it, so
// the step still passes their derivation check, and the op stays.
// CHECK-LABEL: func.func @dead
// CHECK:         train.transpose
// CHECK:         train.sgd
// PRECISION-LABEL: func.func @dead
// PRECISION:       train.transpose
// PRECISION:       train.sgd
func.func @dead(%x: tensor<4x8xf32>, %t: tensor<4x6xf32>) -> tensor<f32> {
  %w = train.param "fc.weight" : tensor<8x6xf32>
  %unused = train.transpose %x {permutation = array<i64: 1, 0>} : tensor<4x8xf32> -> tensor<8x4xf32>
  %y = train.matmul %x, %w : tensor<4x8xf32>, tensor<8x6xf32> -> tensor<4x6xf32>
  %l = train.mse_loss %y, %t : tensor<4x6xf32>, tensor<4x6xf32> -> tensor<f32>
  return %l : tensor<f32>
}
