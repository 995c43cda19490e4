// RUN: mem-opt %s -split-input-file --pass-pipeline='builtin.module(func.func(memopt-gpu-map-loops{block-size=128}))' | FileCheck %s

// 8 x 100 iterations: one thread each, 128 per block, 7 blocks; the
// linearized index is delinearized with the last dimension fastest and
// guarded against the padding of the last block.
// CHECK-LABEL: func.func @elementwise
// CHECK-DAG: %[[GRID:.+]] = arith.constant 7 : index
// CHECK-DAG: %[[BLOCK:.+]] = arith.constant 128 : index
// CHECK: gpu.launch blocks(%[[BX:.+]], %{{.+}}, %{{.+}}) in (%{{.+}} = %[[GRID]], %{{.+}} = %{{.+}}, %{{.+}} = %{{.+}}) threads(%[[TX:.+]], %{{.+}}, %{{.+}}) in (%{{.+}} = %[[BLOCK]],
// CHECK: %[[MUL:.+]] = arith.muli %[[BX]], %{{.+}} : index
// CHECK: %[[LIN:.+]] = arith.addi %[[MUL]], %[[TX]] : index
// CHECK: %[[IN:.+]] = arith.cmpi ult, %[[LIN]], %{{.+}} : index
// CHECK: scf.if %[[IN]] {
// CHECK:   %[[J:.+]] = arith.remui %[[LIN]], %{{.+}} : index
// CHECK:   %[[I:.+]] = arith.divui %[[LIN]], %{{.+}} : index
// CHECK:   memref.load %{{.+}}[%[[I]], %[[J]]]
// CHECK:   math.exp
// CHECK:   memref.store
// CHECK: gpu.terminator
// CHECK-NOT: scf.parallel
func.func @elementwise(%in: memref<8x100xf32>, %out: memref<8x100xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c8 = arith.constant 8 : index
  %c100 = arith.constant 100 : index
  scf.parallel (%i, %j) = (%c0, %c0) to (%c8, %c100) step (%c1, %c1) {
    %x = memref.load %in[%i, %j] : memref<8x100xf32>
    %y = math.exp %x : f32
    memref.store %y, %out[%i, %j] : memref<8x100xf32>
    scf.reduce
  }
  return
}

// -----

// A row reduction (a short one, or one memopt-gpu-block-reductions did not
// recognize): one thread per row, the reduction loop inside it. A
// 16-iteration loop gets a block of 32 (the next multiple of a warp).
// CHECK-LABEL: func.func @row_sum
// CHECK-DAG: %[[C32:.+]] = arith.constant 32 : index
// CHECK: gpu.launch blocks({{.*}}) threads({{.*}}) in (%{{.+}} = %[[C32]],
// CHECK: scf.if
// CHECK: scf.for
// CHECK: gpu.terminator
func.func @row_sum(%in: memref<16x64xf32>, %out: memref<16xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c16 = arith.constant 16 : index
  %c64 = arith.constant 64 : index
  scf.parallel (%i) = (%c0) to (%c16) step (%c1) {
    scf.for %j = %c0 to %c64 step %c1 {
      %x = memref.load %in[%i, %j] : memref<16x64xf32>
      %acc = memref.load %out[%i] : memref<16xf32>
      %s = arith.addf %acc, %x : f32
      memref.store %s, %out[%i] : memref<16xf32>
    }
    scf.reduce
  }
  return
}

// -----

// A full reduction into a 0-d buffer (a short or unrecognized one; long
// ones are block reductions) has no parallel loop: it runs as one thread on
// the device, next to its data. Host scalar code stays.
// CHECK-LABEL: func.func @total
// CHECK: memref.load %{{.+}}[] : memref<f32>
// CHECK: gpu.launch blocks({{.*}}) in (%{{[a-z0-9]+}} = %c1{{[_0-9]*}}, {{.*}}) threads({{.*}}) in (%{{[a-z0-9]+}} = %c1{{[_0-9]*}},
// CHECK-NEXT: scf.for
// CHECK: gpu.terminator
func.func @total(%in: memref<64xf32>, %out: memref<f32>) -> f32 {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c64 = arith.constant 64 : index
  %v = memref.load %out[] : memref<f32>
  scf.for %j = %c0 to %c64 step %c1 {
    %x = memref.load %in[%j] : memref<64xf32>
    %acc = memref.load %out[] : memref<f32>
    %s = arith.addf %acc, %x : f32
    memref.store %s, %out[] : memref<f32>
  }
  return %v : f32
}

// -----

// Host code (train-offload's updates, between the lowering's
// memopt_memory_space(1) and memopt_memory_space(0)) stays on the CPU; the
// loop after it runs on the device.
// CHECK-LABEL: func.func @host_code
// CHECK: call @memopt_memory_space
// CHECK-NEXT: scf.parallel
// CHECK: call @memopt_memory_space
// CHECK: gpu.launch
func.func private @memopt_memory_space(i32)
func.func @host_code(%in: memref<64xf32>, %out: memref<64xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c64 = arith.constant 64 : index
  %host = arith.constant 1 : i32
  %device = arith.constant 0 : i32
  call @memopt_memory_space(%host) : (i32) -> ()
  scf.parallel (%i) = (%c0) to (%c64) step (%c1) {
    %x = memref.load %in[%i] : memref<64xf32>
    memref.store %x, %out[%i] : memref<64xf32>
    scf.reduce
  }
  call @memopt_memory_space(%device) : (i32) -> ()
  scf.parallel (%i) = (%c0) to (%c64) step (%c1) {
    %x = memref.load %out[%i] : memref<64xf32>
    memref.store %x, %in[%i] : memref<64xf32>
    scf.reduce
  }
  return
}
