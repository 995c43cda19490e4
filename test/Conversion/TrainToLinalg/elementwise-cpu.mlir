// Every elementwise-family op lowers all the way to the LLVM dialect.
// RUN: mem-opt %s --convert-train-to-linalg --memopt-lower-to-cpu \
// RUN:   | FileCheck %s
// RUN: mem-opt %s --convert-train-to-linalg --memopt-lower-to-cpu \
// RUN:   | FileCheck %s --check-prefix=NONE

// Nothing but the LLVM dialect is left.
// NONE-NOT: {{train\.|linalg\.|tensor\.|memref\.|arith\.|math\.|unrealized_conversion_cast}}

// CHECK: llvm.mlir.global {{.*}}@__train_seed

// CHECK-LABEL: llvm.func @binary
func.func @binary(%a: tensor<4x2xbf16>, %b: tensor<4x2xf32>, %h: tensor<4x2xf16>)
    -> (tensor<4x2xf32>, tensor<4x2xf32>, tensor<4x2xf32>, tensor<4x2xbf16>) {
  %0 = train.add %a, %b : tensor<4x2xbf16>, tensor<4x2xf32> -> tensor<4x2xf32>
  %1 = train.sub %b, %a : tensor<4x2xf32>, tensor<4x2xbf16> -> tensor<4x2xf32>
  %2 = train.mul %a, %h : tensor<4x2xbf16>, tensor<4x2xf16> -> tensor<4x2xf32>
  %3 = train.add %a, %a : tensor<4x2xbf16>
  return %0, %1, %2, %3 : tensor<4x2xf32>, tensor<4x2xf32>, tensor<4x2xf32>, tensor<4x2xbf16>
}

// CHECK-LABEL: llvm.func @scale_bias
func.func @scale_bias(%x: tensor<2x3x4xf16>, %b: tensor<3xf32>)
    -> (tensor<2x3x4xf16>, tensor<2x3x4xf32>) {
  %0 = train.scale %x {factor = 5.000000e-01 : f64} : tensor<2x3x4xf16>
  %1 = train.bias_add %x, %b {dim = -2 : i64} : tensor<2x3x4xf16>, tensor<3xf32> -> tensor<2x3x4xf32>
  return %0, %1 : tensor<2x3x4xf16>, tensor<2x3x4xf32>
}

// CHECK-LABEL: llvm.func @activations
// CHECK-DAG: llvm.call @erff
// CHECK-DAG: llvm.call @tanhf
func.func @activations(%x: tensor<8xbf16>, %u: tensor<8xbf16>, %dy: tensor<8xbf16>)
    -> (tensor<8xbf16>, tensor<8xbf16>, tensor<8xbf16>, tensor<8xbf16>, tensor<8xbf16>) {
  %0 = train.relu %x : tensor<8xbf16>
  %1 = train.gelu %x : tensor<8xbf16>
  %2 = train.gelu %x {approximate} : tensor<8xbf16>
  %3 = train.silu %x : tensor<8xbf16>
  %4 = train.swiglu %x, %u : tensor<8xbf16>
  return %0, %1, %2, %3, %4 : tensor<8xbf16>, tensor<8xbf16>, tensor<8xbf16>, tensor<8xbf16>, tensor<8xbf16>
}

// CHECK-LABEL: llvm.func @gradients
// CHECK-DAG: llvm.call @erf(
// CHECK-DAG: llvm.call @tanh(
func.func @gradients(%x: tensor<8xf64>, %u: tensor<8xf64>, %dy: tensor<8xf64>)
    -> (tensor<8xf64>, tensor<8xf64>, tensor<8xf64>, tensor<8xf64>, tensor<8xf64>, tensor<8xf64>) {
  %0 = train.relu_grad %dy, %x : tensor<8xf64>
  %1 = train.gelu_grad %dy, %x : tensor<8xf64>
  %2 = train.gelu_grad %dy, %x {approximate} : tensor<8xf64>
  %3 = train.silu_grad %dy, %x : tensor<8xf64>
  %4, %5 = train.swiglu_grad %dy, %x, %u
      : tensor<8xf64>, tensor<8xf64>, tensor<8xf64> -> tensor<8xf64>, tensor<8xf64>
  return %0, %1, %2, %3, %4, %5 : tensor<8xf64>, tensor<8xf64>, tensor<8xf64>, tensor<8xf64>, tensor<8xf64>, tensor<8xf64>
}

// CHECK-LABEL: llvm.func @casts
func.func @casts(%x: tensor<4xf64>, %h: tensor<4xf16>)
    -> (tensor<4xbf16>, tensor<4xf16>, tensor<4xbf16>, tensor<4xf64>) {
  %0 = train.cast %x : tensor<4xf64> -> tensor<4xbf16>
  %1 = train.cast %x : tensor<4xf64> -> tensor<4xf16>
  %2 = train.cast %h : tensor<4xf16> -> tensor<4xbf16>
  %3 = train.cast %0 : tensor<4xbf16> -> tensor<4xf64>
  return %0, %1, %2, %3 : tensor<4xbf16>, tensor<4xf16>, tensor<4xbf16>, tensor<4xf64>
}

// CHECK-LABEL: llvm.func @reduce_broadcast
func.func @reduce_broadcast(%x: tensor<2x3x4xbf16>, %v: tensor<3xf32>)
    -> (tensor<3xbf16>, tensor<f32>, tensor<2x3x4xf32>) {
  %0 = train.reduce_sum %x {dims = array<i64: 0, 2>} : tensor<2x3x4xbf16> -> tensor<3xbf16>
  %1 = train.reduce_sum %v {dims = array<i64: 0>} : tensor<3xf32> -> tensor<f32>
  %2 = train.broadcast %v {dims = array<i64: 0, 2>} : tensor<3xf32> -> tensor<2x3x4xf32>
  return %0, %1, %2 : tensor<3xbf16>, tensor<f32>, tensor<2x3x4xf32>
}

// CHECK-LABEL: llvm.func @dropout
// CHECK: llvm.mlir.addressof @__train_seed
func.func @dropout(%x: tensor<2x3x4xbf16>, %s: tensor<f32>)
    -> (tensor<2x3x4xbf16>, tensor<2x3x4xi8>, tensor<2x3x4xbf16>, tensor<f32>, tensor<i1>, tensor<f32>) {
  %0, %1 = train.dropout %x {id = 1 : i64, rate = 2.500000e-01 : f64}
      : tensor<2x3x4xbf16> -> tensor<2x3x4xbf16>, tensor<2x3x4xi8>
  %2 = train.dropout_grad %0, %1 {rate = 2.500000e-01 : f64}
      : tensor<2x3x4xbf16>, tensor<2x3x4xi8> -> tensor<2x3x4xbf16>
  %3, %4 = train.dropout %s {id = 2 : i64, rate = 5.000000e-01 : f64}
      : tensor<f32> -> tensor<f32>, tensor<i1>
  %5 = train.dropout_grad %3, %4 {rate = 5.000000e-01 : f64}
      : tensor<f32>, tensor<i1> -> tensor<f32>
  return %0, %1, %2, %3, %4, %5 : tensor<2x3x4xbf16>, tensor<2x3x4xi8>, tensor<2x3x4xbf16>, tensor<f32>, tensor<i1>, tensor<f32>
}
