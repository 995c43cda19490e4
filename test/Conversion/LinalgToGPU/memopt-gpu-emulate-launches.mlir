// RUN: mem-opt --mlir-print-debuginfo=false %s -split-input-file --pass-pipeline='builtin.module(func.func(memopt-gpu-emulate-launches))' | FileCheck %s

// A mapped loop nest: loops over the grid (z, y, x), then over the block's
// threads (z, y, x), the body cloned with the ids and sizes replaced.
// CHECK-LABEL: func.func @mapped
// CHECK-SAME: (%[[OUT:.+]]: memref<512xf32>)
// CHECK-NOT: gpu.
// CHECK: scf.for %[[BZ:.+]] = %{{.+}} to %[[C1:.+]] step
// CHECK:   scf.for %[[BY:.+]] = %{{.+}} to %[[C1]] step
// CHECK:     scf.for %[[BX:.+]] = %{{.+}} to %[[C2:.+]] step
// CHECK:       scf.for %[[TZ:.+]] = %{{.+}} to %[[C1]] step
// CHECK:         scf.for %[[TY:.+]] = %{{.+}} to %[[C1]] step
// CHECK:           scf.for %[[TX:.+]] = %{{.+}} to %[[C256:.+]] step
// CHECK:             %[[BASE:.+]] = arith.muli %[[BX]], %[[C256]]
// CHECK:             %[[I:.+]] = arith.addi %[[BASE]], %[[TX]]
// CHECK:             memref.store %{{.+}}, %[[OUT]][%[[I]]]
func.func @mapped(%out: memref<512xf32>) {
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %c256 = arith.constant 256 : index
  %one = arith.constant 1.0 : f32
  gpu.launch blocks(%bx, %by, %bz) in (%gx = %c2, %gy = %c1, %gz = %c1)
             threads(%tx, %ty, %tz) in (%sx = %c256, %sy = %c1, %sz = %c1) {
    %base = arith.muli %bx, %sx : index
    %i = arith.addi %base, %tx : index
    memref.store %one, %out[%i] : memref<512xf32>
    gpu.terminator
  }
  return
}

// -----

// A block reduction: per block, every thread runs the body up to the
// all-reduce and leaves its partial result in an array (allocated once, at
// the function's entry: the block size is static), the array is folded in
// thread order, then every thread runs the body with the fold in place of
// the all-reduce.
// CHECK-LABEL: func.func @block_sum
// CHECK: %[[ARRAY:.+]] = memref.alloca() : memref<64xf32>
// CHECK: scf.for
// CHECK:   scf.for
// CHECK:     scf.for %[[BX:.+]] =
// CHECK:       scf.for
// CHECK:         scf.for
// CHECK:           scf.for %[[TX:.+]] =
// CHECK:             %[[X:.+]] = memref.load %{{.+}}[%[[BX]], %[[TX]]]
// CHECK:             memref.store %[[X]], %[[ARRAY]][%{{.+}}]
// CHECK:   %[[FIRST:.+]] = memref.load %[[ARRAY]][%{{.+}}]
// CHECK:   %[[SUM:.+]] = scf.for %[[T:.+]] = %{{.+}} to %{{.+}} step %{{.+}} iter_args(%[[ACC:.+]] = %[[FIRST]]) -> (f32) {
// CHECK:     %[[NEXT:.+]] = memref.load %[[ARRAY]][%[[T]]]
// CHECK:     %[[ADD:.+]] = arith.addf %[[ACC]], %[[NEXT]] : f32
// CHECK:     scf.yield %[[ADD]]
// CHECK:   scf.for %[[TX2:.+]] =
// CHECK:     scf.if
// CHECK:       memref.store %[[SUM]], %{{.+}}[%[[BX]]]
// CHECK-NOT: gpu.all_reduce
func.func @block_sum(%in: memref<4x64xf32>, %out: memref<4xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %c64 = arith.constant 64 : index
  gpu.launch blocks(%bx, %by, %bz) in (%gx = %c4, %gy = %c1, %gz = %c1)
             threads(%tx, %ty, %tz) in (%sx = %c64, %sy = %c1, %sz = %c1) {
    %x = memref.load %in[%bx, %tx] : memref<4x64xf32>
    %sum = gpu.all_reduce add %x uniform {} : (f32) -> f32
    %first = arith.cmpi eq, %tx, %c0 : index
    scf.if %first {
      memref.store %sum, %out[%bx] : memref<4xf32>
    }
    gpu.terminator
  }
  return
}

// -----

// A dynamic block size: the array is allocated at the launch.
// CHECK-LABEL: func.func @dynamic_block
// CHECK-SAME: (%{{.+}}: memref<64xi32>, %{{.+}}: memref<i32>, %[[N:.+]]: index)
// CHECK: %[[XY:.+]] = arith.muli %[[N]], %{{.+}} : index
// CHECK: %[[THREADS:.+]] = arith.muli %[[XY]], %{{.+}} : index
// CHECK: memref.alloca(%[[THREADS]]) : memref<?xi32>
// CHECK: arith.maxsi
func.func @dynamic_block(%in: memref<64xi32>, %out: memref<i32>, %n: index) {
  %c1 = arith.constant 1 : index
  gpu.launch blocks(%bx, %by, %bz) in (%gx = %c1, %gy = %c1, %gz = %c1)
             threads(%tx, %ty, %tz) in (%sx = %n, %sy = %c1, %sz = %c1) {
    %x = memref.load %in[%tx] : memref<64xi32>
    %m = gpu.all_reduce maxsi %x uniform {} : (i32) -> i32
    memref.store %m, %out[] : memref<i32>
    gpu.terminator
  }
  return
}
