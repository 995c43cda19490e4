// Every op of the conv family lowers all the way to the LLVM dialect.
// RUN: mem-opt %s --convert-train-to-linalg --memopt-lower-to-cpu | FileCheck %s
// RUN: mem-opt %s --convert-train-to-linalg --memopt-lower-to-cpu \
// RUN:   | FileCheck %s --check-prefix=NONE

// Nothing of the train, linalg, tensor or bufferization dialects is left.
// NONE-NOT: {{train\.|linalg\.|tensor\.|bufferization\.}}

// CHECK-LABEL: llvm.func @conv2d(
func.func @conv2d(%x: tensor<2x3x8x8xf32>, %w: tensor<4x3x3x3xf32>) -> tensor<2x4x4x4xf32> {
  %y = train.conv2d %x, %w {strides = array<i64: 2, 2>, padding = array<i64: 1, 1>}
      : tensor<2x3x8x8xf32>, tensor<4x3x3x3xf32> -> tensor<2x4x4x4xf32>
  return %y : tensor<2x4x4x4xf32>
}

// CHECK-LABEL: llvm.func @conv2d_grouped_bf16(
func.func @conv2d_grouped_bf16(%x: tensor<1x4x8x6xbf16>, %w: tensor<6x2x3x3xbf16>) -> tensor<1x6x2x6xbf16> {
  %y = train.conv2d %x, %w {strides = array<i64: 2, 1>, dilation = array<i64: 2, 1>, padding = array<i64: 0, 1>, groups = 2 : i64}
      : tensor<1x4x8x6xbf16>, tensor<6x2x3x3xbf16> -> tensor<1x6x2x6xbf16>
  return %y : tensor<1x6x2x6xbf16>
}

// CHECK-LABEL: llvm.func @conv2d_grad_input(
func.func @conv2d_grad_input(%dy: tensor<2x4x4x4xf32>, %w: tensor<4x3x3x3xf32>) -> tensor<2x3x8x8xf32> {
  %dx = train.conv2d_grad_input %dy, %w {strides = array<i64: 2, 2>, padding = array<i64: 1, 1>}
      : tensor<2x4x4x4xf32>, tensor<4x3x3x3xf32> -> tensor<2x3x8x8xf32>
  return %dx : tensor<2x3x8x8xf32>
}

// CHECK-LABEL: llvm.func @conv2d_grad_input_grouped(
func.func @conv2d_grad_input_grouped(%dy: tensor<1x6x2x6xf32>, %w: tensor<6x2x3x3xf32>) -> tensor<1x4x8x6xf32> {
  %dx = train.conv2d_grad_input %dy, %w {strides = array<i64: 2, 1>, dilation = array<i64: 2, 1>, padding = array<i64: 0, 1>, groups = 2 : i64}
      : tensor<1x6x2x6xf32>, tensor<6x2x3x3xf32> -> tensor<1x4x8x6xf32>
  return %dx : tensor<1x4x8x6xf32>
}

// CHECK-LABEL: llvm.func @conv2d_grad_filter(
func.func @conv2d_grad_filter(%dy: tensor<2x4x4x4xf32>, %x: tensor<2x3x8x8xf32>) -> tensor<4x3x3x3xf32> {
  %dw = train.conv2d_grad_filter %dy, %x {strides = array<i64: 2, 2>, padding = array<i64: 1, 1>}
      : tensor<2x4x4x4xf32>, tensor<2x3x8x8xf32> -> tensor<4x3x3x3xf32>
  return %dw : tensor<4x3x3x3xf32>
}

// CHECK-LABEL: llvm.func @conv2d_grad_filter_grouped(
func.func @conv2d_grad_filter_grouped(%dy: tensor<1x6x2x6xbf16>, %x: tensor<1x4x8x6xbf16>) -> tensor<6x2x3x3xbf16> {
  %dw = train.conv2d_grad_filter %dy, %x {strides = array<i64: 2, 1>, dilation = array<i64: 2, 1>, padding = array<i64: 0, 1>, groups = 2 : i64}
      : tensor<1x6x2x6xbf16>, tensor<1x4x8x6xbf16> -> tensor<6x2x3x3xbf16>
  return %dw : tensor<6x2x3x3xbf16>
}

// CHECK-LABEL: llvm.func @max_pool2d(
func.func @max_pool2d(%x: tensor<2x3x8x8xf32>) -> tensor<2x3x4x4xf32> {
  %y = train.max_pool2d %x {kernel = array<i64: 3, 3>, strides = array<i64: 2, 2>, padding = array<i64: 1, 1>}
      : tensor<2x3x8x8xf32> -> tensor<2x3x4x4xf32>
  return %y : tensor<2x3x4x4xf32>
}

// CHECK-LABEL: llvm.func @max_pool2d_grad(
func.func @max_pool2d_grad(%dy: tensor<1x2x2x2xf32>, %x: tensor<1x2x4x4xf32>) -> tensor<1x2x4x4xf32> {
  %dx = train.max_pool2d_grad %dy, %x {kernel = array<i64: 2, 2>, strides = array<i64: 2, 2>}
      : tensor<1x2x2x2xf32>, tensor<1x2x4x4xf32> -> tensor<1x2x4x4xf32>
  return %dx : tensor<1x2x4x4xf32>
}

// CHECK-LABEL: llvm.func @avg_pool2d(
func.func @avg_pool2d(%x: tensor<2x3x8x8xbf16>) -> tensor<2x3x4x4xbf16> {
  %y = train.avg_pool2d %x {kernel = array<i64: 3, 3>, strides = array<i64: 2, 2>, padding = array<i64: 1, 1>}
      : tensor<2x3x8x8xbf16> -> tensor<2x3x4x4xbf16>
  return %y : tensor<2x3x4x4xbf16>
}

// CHECK-LABEL: llvm.func @avg_pool2d_grad(
func.func @avg_pool2d_grad(%dy: tensor<2x3x4x4xf32>) -> tensor<2x3x8x8xf32> {
  %dx = train.avg_pool2d_grad %dy {kernel = array<i64: 3, 3>, strides = array<i64: 2, 2>, padding = array<i64: 1, 1>}
      : tensor<2x3x4x4xf32> -> tensor<2x3x8x8xf32>
  return %dx : tensor<2x3x8x8xf32>
}

// CHECK-LABEL: llvm.func @upsample_nearest2d(
func.func @upsample_nearest2d(%x: tensor<2x3x4x5xf32>) -> tensor<2x3x8x10xf32> {
  %y = train.upsample_nearest2d %x {scale = 2 : i64} : tensor<2x3x4x5xf32> -> tensor<2x3x8x10xf32>
  return %y : tensor<2x3x8x10xf32>
}

// CHECK-LABEL: llvm.func @upsample_nearest2d_grad(
func.func @upsample_nearest2d_grad(%dy: tensor<2x3x8x10xbf16>) -> tensor<2x3x4x5xbf16> {
  %dx = train.upsample_nearest2d_grad %dy {scale = 2 : i64} : tensor<2x3x8x10xbf16> -> tensor<2x3x4x5xbf16>
  return %dx : tensor<2x3x4x5xbf16>
}

// CHECK-LABEL: llvm.func @batch_norm(
func.func @batch_norm(%x: tensor<2x8x4x4xbf16>, %g: tensor<8xf32>, %b: tensor<8xf32>)
    -> (tensor<2x8x4x4xbf16>, tensor<8xf32>, tensor<8xf32>) {
  %y, %mean, %rstd = train.batch_norm %x, %g, %b {epsilon = 1.000000e-05 : f64}
      : tensor<2x8x4x4xbf16>, tensor<8xf32>, tensor<8xf32>
      -> tensor<2x8x4x4xbf16>, tensor<8xf32>, tensor<8xf32>
  return %y, %mean, %rstd : tensor<2x8x4x4xbf16>, tensor<8xf32>, tensor<8xf32>
}

// CHECK-LABEL: llvm.func @batch_norm_grad(
func.func @batch_norm_grad(%dy: tensor<2x8x4x4xf32>, %x: tensor<2x8x4x4xf32>, %g: tensor<8xf32>,
                           %mean: tensor<8xf32>, %rstd: tensor<8xf32>)
    -> (tensor<2x8x4x4xf32>, tensor<8xf32>, tensor<8xf32>) {
  %dx, %dg, %db = train.batch_norm_grad %dy, %x, %g, %mean, %rstd
      : tensor<2x8x4x4xf32>, tensor<2x8x4x4xf32>, tensor<8xf32>, tensor<8xf32>, tensor<8xf32>
      -> tensor<2x8x4x4xf32>, tensor<8xf32>, tensor<8xf32>
  return %dx, %dg, %db : tensor<2x8x4x4xf32>, tensor<8xf32>, tensor<8xf32>
}
