// RUN: mem-opt %s --convert-train-to-linalg | FileCheck %s

// A plan made before train-offload (train-verify-plan rejects it: the host
// values have offsets but the function no host arena): the lowering places
// the device's values in the device's arena and leaves the host's values to
// allocations of their own, in host code, instead of failing.
// CHECK-LABEL: func.func @stale_plan
// CHECK:         memref.alloc() {alignment = 256 : i64, memopt.arena} : memref<768xi8>
// CHECK-NOT:     memopt.host_arena
// CHECK:         call @memopt_memory_space
// CHECK:         linalg.copy {memopt.memory_copy = "to_host"}
func.func @stale_plan(%x: tensor<64xf32> {train.offset = 0 : i64}) -> tensor<64xf32>
    attributes {train.arena_bytes = 768 : i64, train.persistent_bytes = 0 : i64, train.plan_alignment = 256 : i64} {
  %ah = train.to_host %x {train.offset = array<i64: 256>} : tensor<64xf32>
  %b = train.relu %ah {train.offset = array<i64: 512>, train.space = "host"} : tensor<64xf32>
  %bd = train.to_device %b {train.offset = array<i64: 256>} : tensor<64xf32>
  return %bd : tensor<64xf32>
}
