// RUN: mem-opt %s -split-input-file --memopt-gpu-memory-copies --mlir-print-debuginfo=false | FileCheck %s

// train.to_host and train.to_device, lowered and bufferized: each marked
// copy of contiguous buffers becomes one runtime call with the buffers'
// addresses (aligned pointer + offset x element bytes), the byte count and
// the direction (1: to the device).
// CHECK: func.func private @memopt_memory_copy(i64, i64, i64, i32)
// CHECK-LABEL: func.func @step
// CHECK-SAME: (%[[ACT:[^:]+]]: memref<8x64xf32>, %[[VIEW:[^:]+]]: memref<4x64xf32, strided<[128, 1], offset: ?>>
// CHECK: call @memopt_memory_space(%{{.+}})
// CHECK: %[[HOST:.+]] = memref.alloc() : memref<8x64xf32>
// CHECK: %[[SP:.+]] = memref.extract_aligned_pointer_as_index %[[HOST]]
// CHECK: %{{[^,]+}}, %[[OFF:[^,]+]], %{{.+}} = memref.extract_strided_metadata %[[HOST]]
// CHECK: %[[C4:.+]] = arith.constant 4 : index
// CHECK: %[[SOFF:.+]] = arith.muli %[[OFF]], %[[C4]] : index
// CHECK: %[[SADDR:.+]] = arith.addi %[[SP]], %[[SOFF]] : index
// CHECK: %[[DST:.+]] = arith.index_cast %[[SADDR]] : index to i64
// CHECK: %[[AP:.+]] = memref.extract_aligned_pointer_as_index %[[ACT]]
// CHECK: %[[SRC:.+]] = arith.index_cast %{{.+}} : index to i64
// CHECK: %[[BYTES:.+]] = arith.constant 2048 : i64
// CHECK: %[[TOHOST:.+]] = arith.constant 0 : i32
// CHECK: call @memopt_memory_copy(%[[DST]], %[[SRC]], %[[BYTES]], %[[TOHOST]])
// CHECK-NOT: linalg.copy {memopt.memory_copy = "to_host"} ins(%[[ACT]]
// A strided view (rows 128 apart) stays a copy, a loop later: kernels and
// host code reach both memories.
// CHECK: linalg.copy {memopt.memory_copy = "to_host"} ins(%[[VIEW]]
// CHECK: call @memopt_memory_space(%{{.+}})
// CHECK: %[[BACK:.+]] = memref.alloc() : memref<8x64xf32>
// CHECK: %[[ONE:.+]] = arith.constant 1 : i32
// CHECK: call @memopt_memory_copy(%{{.+}}, %{{.+}}, %{{.+}}, %[[ONE]])
// An unmarked copy is not a copy between the memories.
// CHECK: linalg.copy ins(%[[BACK]]

func.func private @memopt_memory_space(i32)
func.func @step(%act: memref<8x64xf32>, %view: memref<4x64xf32, strided<[128, 1], offset: ?>>, %copy: memref<8x64xf32>) {
  %c1 = arith.constant 1 : i32
  %c0 = arith.constant 0 : i32
  call @memopt_memory_space(%c1) : (i32) -> ()
  %host = memref.alloc() : memref<8x64xf32>
  linalg.copy {memopt.memory_copy = "to_host"} ins(%act : memref<8x64xf32>) outs(%host : memref<8x64xf32>)
  %hview = memref.alloc() : memref<4x64xf32>
  linalg.copy {memopt.memory_copy = "to_host"} ins(%view : memref<4x64xf32, strided<[128, 1], offset: ?>>) outs(%hview : memref<4x64xf32>)
  call @memopt_memory_space(%c0) : (i32) -> ()
  %back = memref.alloc() : memref<8x64xf32>
  linalg.copy {memopt.memory_copy = "to_device"} ins(%host : memref<8x64xf32>) outs(%back : memref<8x64xf32>)
  linalg.copy ins(%back : memref<8x64xf32>) outs(%copy : memref<8x64xf32>)
  return
}
