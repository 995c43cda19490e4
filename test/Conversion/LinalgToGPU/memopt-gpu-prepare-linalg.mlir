// RUN: mem-opt %s --pass-pipeline='builtin.module(func.func(memopt-gpu-prepare-linalg))' | FileCheck %s

// A sum over the leading (batch) dimension, as a bias gradient: the loops
// are interchanged so that the parallel dimension comes first; the maps
// follow, the body and the per-element accumulation order do not change.
// CHECK-DAG: #[[IN:.+]] = affine_map<(d0, d1) -> (d1, d0)>
// CHECK-DAG: #[[OUT:.+]] = affine_map<(d0, d1) -> (d0)>
// CHECK-LABEL: func.func @bias_grad
// CHECK: linalg.generic {indexing_maps = [#[[IN]], #[[OUT]]], iterator_types = ["parallel", "reduction"]}
// CHECK: linalg.copy ins(%{{.+}} : memref<10xf32>) outs(%{{.+}} : memref<10xf32, strided<[1], offset: 10>>)
// CHECK-NOT: memref.copy
func.func @bias_grad(%dy: memref<4x10xf32>, %db: memref<10xf32>, %dst: memref<20xf32>) {
  linalg.reduce ins(%dy : memref<4x10xf32>) outs(%db : memref<10xf32>) dimensions = [0]
    (%x: f32, %acc: f32) {
      %s = arith.addf %acc, %x : f32
      linalg.yield %s : f32
    }
  %view = memref.subview %dst[10] [10] [1] : memref<20xf32> to memref<10xf32, strided<[1], offset: 10>>
  memref.copy %db, %view : memref<10xf32> to memref<10xf32, strided<[1], offset: 10>>
  return
}
