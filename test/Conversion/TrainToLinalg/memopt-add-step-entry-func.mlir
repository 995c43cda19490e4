// RUN: mem-opt --mlir-print-debuginfo=false %s --memopt-add-step-entry=func=second | FileCheck %s

// memopt-add-step-entry{func=...} picks one of several functions with a body.

func.func @first(%x: tensor<2xf32>) -> tensor<2xf32> {
  return %x : tensor<2xf32>
}
func.func @second(%x: tensor<3xi32>) {
  return
}
// CHECK: memref.global @__memrun_arg0 : memref<3xi32> = uninitialized {alignment = 64 : i64}
// CHECK-NOT: memref.global
// CHECK-LABEL: func.func @__memrun_entry() {
// CHECK-NEXT: %[[A0:.+]] = memref.get_global @__memrun_arg0 : memref<3xi32>
// CHECK-NEXT: %[[X:.+]] = bufferization.to_tensor %[[A0]] restrict : memref<3xi32> to tensor<3xi32>
// CHECK-NEXT: call @second(%[[X]]) : (tensor<3xi32>) -> ()
// CHECK-NEXT: return
