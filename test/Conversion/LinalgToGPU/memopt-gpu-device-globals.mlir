// RUN: mem-opt %s -split-input-file --memopt-gpu-device-globals | FileCheck %s

// Host code reaches every global through the runtime's managed copy; the
// size is the global's (16 x 4 bytes, 8 bytes).
// CHECK: llvm.func @memopt_cuda_global(!llvm.ptr, i64) -> !llvm.ptr
// CHECK-LABEL: llvm.func @step
// CHECK: %[[W:.+]] = llvm.mlir.addressof @__param__w : !llvm.ptr
// CHECK: %[[WB:.+]] = llvm.mlir.constant(64 : i64) : i64
// CHECK: %[[WD:.+]] = llvm.call @memopt_cuda_global(%[[W]], %[[WB]])
// CHECK: %[[S:.+]] = llvm.mlir.addressof @__train_seed : !llvm.ptr
// CHECK: %[[SB:.+]] = llvm.mlir.constant(8 : i64) : i64
// CHECK: %[[SD:.+]] = llvm.call @memopt_cuda_global(%[[S]], %[[SB]])
// CHECK: llvm.getelementptr %[[WD]][2]
// CHECK: llvm.load %[[SD]]
module {
  llvm.mlir.global external @__param__w() {addr_space = 0 : i32} : !llvm.array<16 x f32>
  llvm.mlir.global external @__train_seed() {addr_space = 0 : i32} : i64
  llvm.func @step() -> i64 {
    %w = llvm.mlir.addressof @__param__w : !llvm.ptr
    %s = llvm.mlir.addressof @__train_seed : !llvm.ptr
    %p = llvm.getelementptr %w[2] : (!llvm.ptr) -> !llvm.ptr, f32
    %v = llvm.load %s : !llvm.ptr -> i64
    llvm.return %v : i64
  }
}

// -----

// A global the module names in memopt.host_globals (train-offload's fp32
// parameter) is reached through its pinned host copy; the others through
// their managed copies.
// CHECK-LABEL: llvm.func @offloaded
// CHECK: %[[M:.+]] = llvm.mlir.addressof @__param__master : !llvm.ptr
// CHECK: llvm.call @memopt_cuda_host_global(%[[M]], %{{.+}})
// CHECK: %[[S:.+]] = llvm.mlir.addressof @__train_seed : !llvm.ptr
// CHECK: llvm.call @memopt_cuda_global(%[[S]], %{{.+}})
module attributes {memopt.host_globals = ["__param__master"]} {
  llvm.mlir.global external @__param__master() {addr_space = 0 : i32} : !llvm.array<16 x f32>
  llvm.mlir.global external @__train_seed() {addr_space = 0 : i32} : i64
  llvm.func @offloaded() -> i64 {
    %w = llvm.mlir.addressof @__param__master : !llvm.ptr
    %s = llvm.mlir.addressof @__train_seed : !llvm.ptr
    %p = llvm.getelementptr %w[2] : (!llvm.ptr) -> !llvm.ptr, f32
    %v = llvm.load %s : !llvm.ptr -> i64
    llvm.return %v : i64
  }
}
