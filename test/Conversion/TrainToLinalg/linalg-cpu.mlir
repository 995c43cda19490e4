// RUN: mem-opt %s --convert-train-to-linalg --memopt-lower-to-cpu \
// RUN:   | FileCheck %s --implicit-check-not=train. --implicit-check-not=linalg. \
// RUN:       --implicit-check-not=tensor. --implicit-check-not=scf. \
// RUN:       --implicit-check-not=memref.

// Every op that LinalgLowering.cpp lowers goes all the way to the LLVM
// dialect through memopt-lower-to-cpu (bufferization included).

// CHECK-LABEL: llvm.func @matmul(
// CHECK-LABEL: llvm.func @matmul_transposed(
// CHECK-LABEL: llvm.func @matmul_batch(
// CHECK-LABEL: llvm.func @matmul_batch_rank4(
// CHECK-LABEL: llvm.func @matmul_linear(
// CHECK-LABEL: llvm.func @matmul_linear_transpose_lhs(
// CHECK-LABEL: llvm.func @reshape(
// CHECK-LABEL: llvm.func @transpose(
// CHECK-LABEL: llvm.func @slice(
// CHECK-LABEL: llvm.func @concat(
// CHECK-LABEL: llvm.func @embedding(
// CHECK-LABEL: llvm.func @embedding_grad(
// CHECK-LABEL: llvm.func @cross_entropy(
// CHECK-LABEL: llvm.func @cross_entropy_grad(
// CHECK-LABEL: llvm.func @mse_loss(
// CHECK-LABEL: llvm.func @softmax_axis(
// CHECK-LABEL: llvm.func @softmax_causal(
// CHECK-LABEL: llvm.func @softmax_grad(
// CHECK-LABEL: llvm.func @cross_entropy_rank1(
// CHECK-LABEL: llvm.func @embedding_scalar_id(
// CHECK-LABEL: llvm.func @matmul_f64_result(
// CHECK-LABEL: llvm.func @mse_bf16(
// CHECK-LABEL: llvm.func @softmax_grad_bf16(

func.func @matmul(%a: tensor<4x3xf32>, %b: tensor<3x5xf32>) -> tensor<4x5xf32> {
  %r = train.matmul %a, %b : tensor<4x3xf32>, tensor<3x5xf32> -> tensor<4x5xf32>
  return %r : tensor<4x5xf32>
}


func.func @matmul_transposed(%a: tensor<3x4xbf16>, %b: tensor<5x3xbf16>) -> tensor<4x5xf32> {
  %r = train.matmul %a, %b {transpose_lhs, transpose_rhs} : tensor<3x4xbf16>, tensor<5x3xbf16> -> tensor<4x5xf32>
  return %r : tensor<4x5xf32>
}


func.func @matmul_batch(%a: tensor<2x4x3xf32>, %b: tensor<2x5x3xf32>) -> tensor<2x4x5xf32> {
  %r = train.matmul %a, %b {transpose_rhs} : tensor<2x4x3xf32>, tensor<2x5x3xf32> -> tensor<2x4x5xf32>
  return %r : tensor<2x4x5xf32>
}


func.func @matmul_batch_rank4(%a: tensor<2x3x4x6xf32>, %b: tensor<2x3x4x5xf32>) -> tensor<2x3x6x5xf32> {
  %r = train.matmul %a, %b {transpose_lhs} : tensor<2x3x4x6xf32>, tensor<2x3x4x5xf32> -> tensor<2x3x6x5xf32>
  return %r : tensor<2x3x6x5xf32>
}


func.func @matmul_linear(%x: tensor<2x4x3xf32>, %w: tensor<5x3xf32>) -> tensor<2x4x5xf32> {
  %r = train.matmul %x, %w {transpose_rhs} : tensor<2x4x3xf32>, tensor<5x3xf32> -> tensor<2x4x5xf32>
  return %r : tensor<2x4x5xf32>
}


func.func @matmul_linear_transpose_lhs(%x: tensor<2x3x4xf32>, %w: tensor<3x5xf32>) -> tensor<2x4x5xf32> {
  %r = train.matmul %x, %w {transpose_lhs} : tensor<2x3x4xf32>, tensor<3x5xf32> -> tensor<2x4x5xf32>
  return %r : tensor<2x4x5xf32>
}


func.func @reshape(%x: tensor<2x3x4xf32>) -> (tensor<6x4xf32>, tensor<2x3x2x2xf32>, tensor<4x6xf32>, tensor<1x1xi64>) {
  %a = train.reshape %x : tensor<2x3x4xf32> -> tensor<6x4xf32>
  %b = train.reshape %x : tensor<2x3x4xf32> -> tensor<2x3x2x2xf32>
  %c = train.reshape %x : tensor<2x3x4xf32> -> tensor<4x6xf32>
  %s = arith.constant dense<3> : tensor<i64>
  %d = train.reshape %s : tensor<i64> -> tensor<1x1xi64>
  return %a, %b, %c, %d : tensor<6x4xf32>, tensor<2x3x2x2xf32>, tensor<4x6xf32>, tensor<1x1xi64>
}


func.func @transpose(%x: tensor<2x3x4xf32>) -> tensor<4x2x3xf32> {
  %t = train.transpose %x {permutation = array<i64: 2, 0, 1>} : tensor<2x3x4xf32> -> tensor<4x2x3xf32>
  return %t : tensor<4x2x3xf32>
}


func.func @slice(%x: tensor<4x6xf32>) -> (tensor<2x3xf32>, tensor<4x6xf32>) {
  %s = train.slice %x {offsets = array<i64: 1, 1>, strides = array<i64: 2, 2>} : tensor<4x6xf32> -> tensor<2x3xf32>
  %g = train.slice_grad %s {offsets = array<i64: 1, 1>, strides = array<i64: 2, 2>} : tensor<2x3xf32> -> tensor<4x6xf32>
  return %s, %g : tensor<2x3xf32>, tensor<4x6xf32>
}


func.func @concat(%a: tensor<2x3xf32>, %b: tensor<2x5xf32>) -> tensor<2x8xf32> {
  %c = train.concat %a, %b {axis = -1 : i64} : tensor<2x3xf32>, tensor<2x5xf32> -> tensor<2x8xf32>
  return %c : tensor<2x8xf32>
}


func.func @embedding(%w: tensor<10x4xf32>, %ids: tensor<2x3xi64>) -> tensor<2x3x4xf32> {
  %e = train.embedding %w, %ids : tensor<10x4xf32>, tensor<2x3xi64> -> tensor<2x3x4xf32>
  return %e : tensor<2x3x4xf32>
}


func.func @embedding_grad(%g: tensor<2x3x4xf32>, %ids: tensor<2x3xi32>) -> tensor<10x4xf32> {
  %d = train.embedding_grad %g, %ids : tensor<2x3x4xf32>, tensor<2x3xi32> -> tensor<10x4xf32>
  return %d : tensor<10x4xf32>
}


func.func @cross_entropy(%x: tensor<2x3x7xbf16>, %l: tensor<2x3xi64>) -> tensor<f32> {
  %c = train.cross_entropy %x, %l {ignore_index = -100 : i64} : tensor<2x3x7xbf16>, tensor<2x3xi64> -> tensor<f32>
  return %c : tensor<f32>
}


func.func @cross_entropy_grad(%g: tensor<f32>, %x: tensor<6x7xf32>, %l: tensor<6xi32>) -> tensor<6x7xf32> {
  %d = train.cross_entropy_grad %g, %x, %l {ignore_index = -100 : i64} : tensor<f32>, tensor<6x7xf32>, tensor<6xi32> -> tensor<6x7xf32>
  return %d : tensor<6x7xf32>
}


func.func @mse_loss(%a: tensor<4x5xf32>, %y: tensor<4x5xf32>, %g: tensor<f32>) -> (tensor<f32>, tensor<4x5xf32>) {
  %l = train.mse_loss %a, %y : tensor<4x5xf32>, tensor<4x5xf32> -> tensor<f32>
  %d = train.mse_loss_grad %g, %a, %y : tensor<f32>, tensor<4x5xf32>, tensor<4x5xf32> -> tensor<4x5xf32>
  return %l, %d : tensor<f32>, tensor<4x5xf32>
}


func.func @softmax_axis(%x: tensor<2x3x4xf32>) -> tensor<2x3x4xf32> {
  %y = train.softmax %x {axis = 1 : i64, scale = 5.000000e-01 : f64} : tensor<2x3x4xf32>
  return %y : tensor<2x3x4xf32>
}


func.func @softmax_causal(%x: tensor<2x3x5xbf16>) -> tensor<2x3x5xbf16> {
  %y = train.softmax %x {causal} : tensor<2x3x5xbf16>
  return %y : tensor<2x3x5xbf16>
}


func.func @softmax_grad(%dy: tensor<2x3x4xf32>, %y: tensor<2x3x4xf32>) -> tensor<2x3x4xf32> {
  %d = train.softmax_grad %dy, %y {scale = 2.500000e-01 : f64} : tensor<2x3x4xf32>
  return %d : tensor<2x3x4xf32>
}

func.func @cross_entropy_rank1(%x: tensor<7xf64>, %l: tensor<i32>, %g: tensor<f64>) -> (tensor<f64>, tensor<7xf64>) {
  %c = train.cross_entropy %x, %l : tensor<7xf64>, tensor<i32> -> tensor<f64>
  %d = train.cross_entropy_grad %g, %x, %l : tensor<f64>, tensor<7xf64>, tensor<i32> -> tensor<7xf64>
  return %c, %d : tensor<f64>, tensor<7xf64>
}

func.func @embedding_scalar_id(%w: tensor<10x4xbf16>, %id: tensor<i64>, %g: tensor<4xbf16>) -> (tensor<4xbf16>, tensor<10x4xbf16>) {
  %e = train.embedding %w, %id : tensor<10x4xbf16>, tensor<i64> -> tensor<4xbf16>
  %d = train.embedding_grad %g, %id : tensor<4xbf16>, tensor<i64> -> tensor<10x4xbf16>
  return %e, %d : tensor<4xbf16>, tensor<10x4xbf16>
}

func.func @matmul_f64_result(%a: tensor<2x3x4xf32>, %b: tensor<2x4x5xf32>) -> tensor<2x3x5xf64> {
  %r = train.matmul %a, %b : tensor<2x3x4xf32>, tensor<2x4x5xf32> -> tensor<2x3x5xf64>
  return %r : tensor<2x3x5xf64>
}

func.func @mse_bf16(%a: tensor<4x5xbf16>, %y: tensor<4x5xbf16>, %g: tensor<f32>) -> (tensor<f32>, tensor<4x5xbf16>) {
  %l = train.mse_loss %a, %y : tensor<4x5xbf16>, tensor<4x5xbf16> -> tensor<f32>
  %d = train.mse_loss_grad %g, %a, %y : tensor<f32>, tensor<4x5xbf16>, tensor<4x5xbf16> -> tensor<4x5xbf16>
  return %l, %d : tensor<f32>, tensor<4x5xbf16>
}

func.func @softmax_grad_bf16(%dy: tensor<3x4xbf16>, %y: tensor<3x4xbf16>) -> tensor<3x4xbf16> {
  %d = train.softmax_grad %dy, %y {axis = 0 : i64} : tensor<3x4xbf16>
  return %d : tensor<3x4xbf16>
}
