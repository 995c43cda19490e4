// RUN: mem-opt --mlir-print-debuginfo=false %s --memopt-widen-contraction-accumulators | FileCheck %s
// RUN: mem-opt --mlir-print-debuginfo=false %s --memopt-widen-contraction-accumulators=parallel=true | FileCheck %s --check-prefix=PARALLEL

// A bf16 matmul on memrefs becomes loops: the parallel dimensions outside,
// the reduction inside carrying an f32 sum that starts from the output's
// value; the sum is rounded and stored once.
// CHECK-LABEL: func.func @bf16
// CHECK:         scf.for %[[M:.+]] = %c0 to %c2 step %c1 {
// CHECK-NEXT:      scf.for %[[N:.+]] = %c0 to %c3 step %c1 {
// CHECK-NEXT:        %[[INIT:.+]] = memref.load %arg2[%[[M]], %[[N]]] : memref<2x3xbf16>
// CHECK-NEXT:        %[[WIDE:.+]] = arith.extf %[[INIT]] : bf16 to f32
// CHECK-NEXT:        %[[SUM:.+]] = scf.for %[[K:.+]] = %c0 to %c5 step %c1 iter_args(%[[ACC:.+]] = %[[WIDE]]) -> (f32) {
// CHECK-NEXT:          %[[A:.+]] = memref.load %arg0[%[[M]], %[[K]]] : memref<2x5xbf16>
// CHECK-NEXT:          %[[AW:.+]] = arith.extf %[[A]] : bf16 to f32
// CHECK-NEXT:          %[[B:.+]] = memref.load %arg1[%[[K]], %[[N]]] : memref<5x3xbf16>
// CHECK-NEXT:          %[[BW:.+]] = arith.extf %[[B]] : bf16 to f32
// CHECK-NEXT:          %[[P:.+]] = arith.mulf %[[AW]], %[[BW]] : f32
// CHECK-NEXT:          %[[S:.+]] = arith.addf %[[ACC]], %[[P]] : f32
// CHECK-NEXT:          scf.yield %[[S]] : f32
// CHECK-NEXT:        }
// CHECK-NEXT:        %[[R:.+]] = arith.truncf %[[SUM]] : f32 to bf16
// CHECK-NEXT:        memref.store %[[R]], %arg2[%[[M]], %[[N]]] : memref<2x3xbf16>
// CHECK-NOT:     linalg.matmul
// parallel (memopt-lower-to-gpu, for the contractions cuBLAS does not take):
// the parallel dimensions are one scf.parallel that memopt-gpu-map-loops
// maps onto threads; the reduction inside is the same. fp8 operands widen
// to f32 as well.
// PARALLEL-LABEL: func.func @bf16
// PARALLEL:         scf.parallel (%[[M:.+]], %[[N:.+]]) = (%c0, %c0) to (%c2, %c3) step (%c1, %c1) {
// PARALLEL-NEXT:      %[[INIT:.+]] = memref.load %arg2[%[[M]], %[[N]]] : memref<2x3xbf16>
// PARALLEL-NEXT:      %[[WIDE:.+]] = arith.extf %[[INIT]] : bf16 to f32
// PARALLEL-NEXT:      %[[SUM:.+]] = scf.for %{{.+}} = %c0 to %c5 step %c1 iter_args(%{{.+}} = %[[WIDE]]) -> (f32) {
// PARALLEL:           scf.yield
// PARALLEL-NEXT:      }
// PARALLEL-NEXT:      %[[R:.+]] = arith.truncf %[[SUM]] : f32 to bf16
// PARALLEL-NEXT:      memref.store %[[R]], %arg2[%[[M]], %[[N]]] : memref<2x3xbf16>
// PARALLEL-NEXT:      scf.reduce
// PARALLEL-LABEL: func.func @fp8
// PARALLEL:         scf.parallel
// PARALLEL:           arith.extf %{{.+}} : f8E4M3FN to f32
// PARALLEL:           arith.extf %{{.+}} : f8E5M2 to f32
func.func @bf16(%a: memref<2x5xbf16>, %b: memref<5x3xbf16>, %c: memref<2x3xbf16>) {
  linalg.matmul ins(%a, %b : memref<2x5xbf16>, memref<5x3xbf16>) outs(%c : memref<2x3xbf16>)
  return
}

func.func @fp8(%a: memref<2x5xf8E4M3FN>, %b: memref<5x3xf8E5M2>, %c: memref<2x3xbf16>) {
  linalg.matmul ins(%a, %b : memref<2x5xf8E4M3FN>, memref<5x3xf8E5M2>) outs(%c : memref<2x3xbf16>)
  return
}

// f32 outputs (and a bf16 contraction into f32) already sum in f32: left
// alone; so are contractions on tensors (before bufferization).
// CHECK-LABEL: func.func @left_alone
// CHECK:         linalg.matmul ins(%arg0, %arg1 : memref<2x5xf32>, memref<5x3xf32>)
// CHECK:         linalg.matmul ins(%arg3, %arg4 : memref<2x5xbf16>, memref<5x3xbf16>) outs(%arg5 : memref<2x3xf32>)
// CHECK:         linalg.matmul ins(%arg6, %arg7 : tensor<2x5xbf16>, tensor<5x3xbf16>)
func.func @left_alone(%a: memref<2x5xf32>, %b: memref<5x3xf32>, %c: memref<2x3xf32>,
                      %d: memref<2x5xbf16>, %e: memref<5x3xbf16>, %f: memref<2x3xf32>,
                      %g: tensor<2x5xbf16>, %h: tensor<5x3xbf16>, %i: tensor<2x3xbf16>) -> tensor<2x3xbf16> {
  linalg.matmul ins(%a, %b : memref<2x5xf32>, memref<5x3xf32>) outs(%c : memref<2x3xf32>)
  linalg.matmul ins(%d, %e : memref<2x5xbf16>, memref<5x3xbf16>) outs(%f : memref<2x3xf32>)
  %r = linalg.matmul ins(%g, %h : tensor<2x5xbf16>, tensor<5x3xbf16>) outs(%i : tensor<2x3xbf16>) -> tensor<2x3xbf16>
  return %r : tensor<2x3xbf16>
}
