// RUN: mem-opt --mlir-print-debuginfo=false %s -split-input-file --memopt-add-step-entry | FileCheck %s

// memopt-add-step-entry: one global per argument and result, read through a
// non-writable to_tensor and written with materialize_in_destination, in
// argument then result order.

// CHECK-LABEL: func.func @step(
func.func @step(%x: tensor<4x8xf32>, %ids: tensor<4xi64>) -> (tensor<f32>, tensor<8xbf16>) {
  %w = train.param "w" : tensor<8xbf16>
  %l = train.reduce_sum %x {dims = array<i64: 0, 1>} : tensor<4x8xf32> -> tensor<f32>
  return %l, %w : tensor<f32>, tensor<8xbf16>
}
// CHECK: memref.global @__memrun_arg0 : memref<4x8xf32> = uninitialized {alignment = 64 : i64}
// CHECK-NEXT: memref.global @__memrun_arg1 : memref<4xi64> = uninitialized {alignment = 64 : i64}
// CHECK-NEXT: memref.global @__memrun_result0 : memref<f32> = uninitialized {alignment = 64 : i64}
// CHECK-NEXT: memref.global @__memrun_result1 : memref<8xbf16> = uninitialized {alignment = 64 : i64}
// CHECK-LABEL: func.func @__memrun_entry() {
// CHECK-NEXT: %[[A0:.+]] = memref.get_global @__memrun_arg0 : memref<4x8xf32>
// CHECK-NEXT: %[[X:.+]] = bufferization.to_tensor %[[A0]] restrict : memref<4x8xf32> to tensor<4x8xf32>
// CHECK-NEXT: %[[A1:.+]] = memref.get_global @__memrun_arg1 : memref<4xi64>
// CHECK-NEXT: %[[IDS:.+]] = bufferization.to_tensor %[[A1]] restrict : memref<4xi64> to tensor<4xi64>
// CHECK-NEXT: %[[R:.+]]:2 = call @step(%[[X]], %[[IDS]]) : (tensor<4x8xf32>, tensor<4xi64>) -> (tensor<f32>, tensor<8xbf16>)
// CHECK-NEXT: %[[R0:.+]] = memref.get_global @__memrun_result0 : memref<f32>
// CHECK-NEXT: bufferization.materialize_in_destination %[[R]]#0 in restrict writable %[[R0]] : (tensor<f32>, memref<f32>) -> ()
// CHECK-NEXT: %[[R1:.+]] = memref.get_global @__memrun_result1 : memref<8xbf16>
// CHECK-NEXT: bufferization.materialize_in_destination %[[R]]#1 in restrict writable %[[R1]] : (tensor<8xbf16>, memref<8xbf16>) -> ()
// CHECK-NEXT: return

// -----

// A declaration is not a step; with no arguments and results the entry only
// calls it.

func.func private @helper(tensor<2xf32>) -> tensor<2xf32>
// CHECK-LABEL: func.func @no_io()
func.func @no_io() {
  return
}
// CHECK-NOT: memref.global
// CHECK-LABEL: func.func @__memrun_entry() {
// CHECK-NEXT: call @no_io() : () -> ()
// CHECK-NEXT: return
