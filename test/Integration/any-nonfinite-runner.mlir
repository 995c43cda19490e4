// Executes train.any_nonfinite (GradScaler's found_inf): true when any
// element of any input is +-inf or NaN, in every float width; false on
// finite values, however large (f16's max 65504, f32's max).
// RUN: mem-opt %s --convert-train-to-linalg --memopt-lower-to-cpu \
// RUN:   | %mlir_runner -e main -entry-point-result=void %runner_libs \
// RUN:   | FileCheck %s
// RUN: mem-opt %s --convert-train-to-linalg %gpu_emulator \
// RUN:   | %mlir_runner -e main -entry-point-result=void %runner_libs \
// RUN:   | FileCheck %s

func.func @found(%a: tensor<3xf16>, %b: tensor<2x2xf32>) -> tensor<i1> {
  %f = train.any_nonfinite %a, %b : tensor<3xf16>, tensor<2x2xf32> -> tensor<i1>
  return %f : tensor<i1>
}

func.func @print(%f: tensor<i1>) {
  %e = tensor.extract %f[] : tensor<i1>
  %i = arith.extui %e : i1 to i64
  call @printI64(%i) : (i64) -> ()
  call @printNewline() : () -> ()
  return
}

func.func private @printI64(i64)
func.func private @printNewline()

func.func @main() {
  %finite16 = arith.constant dense<[65504.0, -65504.0, 0.0]> : tensor<3xf16>
  %finite32 = arith.constant dense<[[3.4028235e38, -1.0], [0.0, 1.0e-45]]> : tensor<2x2xf32>
  %inf16 = arith.constant dense<[1.0, 0x7C00, 2.0]> : tensor<3xf16>
  %ninf16 = arith.constant dense<[1.0, 0xFC00, 2.0]> : tensor<3xf16>
  %nan16 = arith.constant dense<[0x7E00, 1.0, 2.0]> : tensor<3xf16>
  %nan32 = arith.constant dense<[[1.0, 1.0], [1.0, 0x7FC00000]]> : tensor<2x2xf32>
  %inf32 = arith.constant dense<[[1.0, 0xFF800000], [1.0, 1.0]]> : tensor<2x2xf32>
  // CHECK: 0
  %0 = call @found(%finite16, %finite32) : (tensor<3xf16>, tensor<2x2xf32>) -> tensor<i1>
  call @print(%0) : (tensor<i1>) -> ()
  // CHECK-NEXT: 1
  %1 = call @found(%inf16, %finite32) : (tensor<3xf16>, tensor<2x2xf32>) -> tensor<i1>
  call @print(%1) : (tensor<i1>) -> ()
  // CHECK-NEXT: 1
  %2 = call @found(%ninf16, %finite32) : (tensor<3xf16>, tensor<2x2xf32>) -> tensor<i1>
  call @print(%2) : (tensor<i1>) -> ()
  // CHECK-NEXT: 1
  %3 = call @found(%nan16, %finite32) : (tensor<3xf16>, tensor<2x2xf32>) -> tensor<i1>
  call @print(%3) : (tensor<i1>) -> ()
  // CHECK-NEXT: 1
  %4 = call @found(%finite16, %nan32) : (tensor<3xf16>, tensor<2x2xf32>) -> tensor<i1>
  call @print(%4) : (tensor<i1>) -> ()
  // CHECK-NEXT: 1
  %5 = call @found(%finite16, %inf32) : (tensor<3xf16>, tensor<2x2xf32>) -> tensor<i1>
  call @print(%5) : (tensor<i1>) -> ()
  return
}
