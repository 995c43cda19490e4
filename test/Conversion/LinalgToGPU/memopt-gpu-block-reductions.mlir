// RUN: mem-opt --mlir-print-debuginfo=false %s -split-input-file --pass-pipeline='builtin.module(func.func(memopt-gpu-block-reductions))' | FileCheck %s
// RUN: mem-opt --mlir-print-debuginfo=false %s -split-input-file --pass-pipeline='builtin.module(func.func(memopt-gpu-block-reductions{min-extent=32 block-size=64}))' | FileCheck %s --check-prefix=LOW

// A row sum over 4096 elements: one block per row (8 blocks) of 256 threads
// (4096 / 8 elements per thread, at most block-size). Thread t folds columns
// t, t + 256, ... from 0; the uniform all-reduce is outside any condition;
// thread 0 adds the row's initial value and stores.
// CHECK-LABEL: func.func @row_sum
// CHECK-SAME: (%[[IN:[a-z0-9_]+]]: memref<8x4096xf32>, %[[OUT:[a-z0-9_]+]]: memref<8xf32>)
// CHECK-DAG: %[[C8:.+]] = arith.constant 8 : index
// CHECK-DAG: %[[C256:.+]] = arith.constant 256 : index
// CHECK: gpu.launch blocks(%[[BX:[a-z0-9_]+]], %{{.+}}, %{{.+}}) in (%{{.+}} = %[[C8]], %{{.+}} = %{{.+}}, %{{.+}} = %{{.+}}) threads(%[[TX:[a-z0-9_]+]], %{{.+}}, %{{.+}}) in (%{{.+}} = %[[C256]],
// CHECK-DAG: %[[ZERO:.+]] = arith.constant 0.000000e+00 : f32
// CHECK-DAG: %[[STEP:.+]] = arith.constant 256 : index
// CHECK-DAG: %[[N:.+]] = arith.constant 4096 : index
// CHECK: %[[PART:.+]] = scf.for %[[R:[a-z0-9_]+]] = %[[TX]] to %[[N]] step %[[STEP]] iter_args(%[[ACC:.+]] = %[[ZERO]]) -> (f32) {
// CHECK:   %[[X:.+]] = memref.load %[[IN]][%[[BX]], %[[R]]]
// CHECK:   %[[S:.+]] = arith.addf %[[ACC]], %[[X]] : f32
// CHECK:   scf.yield %[[S]] : f32
// CHECK: }
// CHECK-NEXT: %[[ALL:.+]] = gpu.all_reduce add %[[PART]] uniform {
// CHECK: %[[FIRST:.+]] = arith.cmpi eq, %[[TX]], %{{.+}} : index
// CHECK: scf.if %[[FIRST]] {
// CHECK:   %[[INIT:.+]] = memref.load %[[OUT]][%[[BX]]]
// CHECK:   %[[RES:.+]] = arith.addf %[[INIT]], %[[ALL]] : f32
// CHECK:   memref.store %[[RES]], %[[OUT]][%[[BX]]]
// CHECK: }
// CHECK-NEXT: gpu.terminator
// CHECK-NOT: linalg.generic
func.func @row_sum(%in: memref<8x4096xf32>, %out: memref<8xf32>) {
  linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>,
                                   affine_map<(d0, d1) -> (d0)>],
                  iterator_types = ["parallel", "reduction"]}
      ins(%in : memref<8x4096xf32>) outs(%out : memref<8xf32>) {
  ^bb0(%x: f32, %acc: f32):
    %s = arith.addf %x, %acc : f32
    linalg.yield %s : f32
  }
  return
}

// -----

// A short row (64 elements, under min-extent = 256) keeps one thread per row
// (memopt-gpu-map-loops); with min-extent=32 it is a block of 32 threads
// (64 / 8 elements per thread, at least a warp).
// CHECK-LABEL: func.func @short_row
// CHECK-NOT: gpu.launch
// CHECK: linalg.generic
// LOW-LABEL: func.func @short_row
// LOW-DAG: %[[C32:.+]] = arith.constant 32 : index
// LOW: gpu.launch blocks({{.*}}) threads({{.*}}) in (%{{.+}} = %[[C32]],
// LOW: gpu.all_reduce add
func.func @short_row(%in: memref<16x64xf32>, %out: memref<16xf32>) {
  linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>,
                                   affine_map<(d0, d1) -> (d0)>],
                  iterator_types = ["parallel", "reduction"]}
      ins(%in : memref<16x64xf32>) outs(%out : memref<16xf32>) {
  ^bb0(%x: f32, %acc: f32):
    %s = arith.addf %x, %acc : f32
    linalg.yield %s : f32
  }
  return
}

// -----

// A full reduction into a 0-d buffer (the mean of a loss): one block of
// block-size threads, the reduction space linearized (last dimension
// fastest), f64 combined as f64.
// CHECK-LABEL: func.func @total
// CHECK-SAME: (%[[IN:[a-z0-9_]+]]: memref<64x64xf64>, %[[OUT:[a-z0-9_]+]]: memref<f64>)
// CHECK-DAG: %[[C1:.+]] = arith.constant 1 : index
// CHECK-DAG: %[[C256:.+]] = arith.constant 256 : index
// CHECK: gpu.launch blocks({{.*}}) in (%{{.+}} = %[[C1]], {{.*}}) threads(%[[TX:[a-z0-9_]+]], %{{.+}}, %{{.+}}) in (%{{.+}} = %[[C256]],
// CHECK: scf.for %[[R:[a-z0-9_]+]] = %[[TX]] to %{{.+}} step %{{.+}} iter_args(%{{.+}} = %{{.+}}) -> (f64)
// CHECK:   %[[J:.+]] = arith.remui %[[R]], %{{.+}} : index
// CHECK:   %[[I:.+]] = arith.divui %[[R]], %{{.+}} : index
// CHECK:   memref.load %[[IN]][%[[I]], %[[J]]]
// CHECK: gpu.all_reduce add %{{.+}} uniform {
// CHECK-NEXT: } : (f64) -> f64
// CHECK: scf.if
// CHECK:   memref.load %[[OUT]][] : memref<f64>
// CHECK:   memref.store %{{.+}}, %[[OUT]][] : memref<f64>
func.func @total(%in: memref<64x64xf64>, %out: memref<f64>) {
  linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>,
                                   affine_map<(d0, d1) -> ()>],
                  iterator_types = ["reduction", "reduction"]}
      ins(%in : memref<64x64xf64>) outs(%out : memref<f64>) {
  ^bb0(%x: f64, %acc: f64):
    %s = arith.addf %x, %acc : f64
    linalg.yield %s : f64
  }
  return
}

// -----

// A row max starts from -inf (the neutral element of arith.maximumf) and
// combines with maximumf; the body before the combiner (a causal mask with
// linalg.index) is cloned with the loop indices.
// CHECK-LABEL: func.func @row_max
// CHECK: gpu.launch blocks(%[[BX:[a-z0-9_]+]], %{{.+}}, %{{.+}}) in
// CHECK-DAG: %[[NEGINF:.+]] = arith.constant 0xFF800000 : f32
// CHECK: scf.for %[[R:[a-z0-9_]+]] = %{{.+}} to %{{.+}} step %{{.+}} iter_args(%[[ACC:.+]] = %[[NEGINF]]) -> (f32)
// CHECK:   %[[X:.+]] = memref.load %{{.+}}[%[[BX]], %[[R]]]
// CHECK:   %[[MASK:.+]] = arith.cmpi sgt, %[[R]], %[[BX]] : index
// CHECK:   %[[Y:.+]] = arith.select %[[MASK]], %{{.+}}, %[[X]] : f32
// CHECK:   arith.maximumf %[[ACC]], %[[Y]] : f32
// CHECK: gpu.all_reduce maximumf
// CHECK: scf.if
// CHECK:   arith.maximumf
func.func @row_max(%in: memref<512x512xf32>, %out: memref<512xf32>) {
  %neginf = arith.constant 0xFF800000 : f32
  linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>,
                                   affine_map<(d0, d1) -> (d0)>],
                  iterator_types = ["parallel", "reduction"]}
      ins(%in : memref<512x512xf32>) outs(%out : memref<512xf32>) {
  ^bb0(%x: f32, %acc: f32):
    %i = linalg.index 0 : index
    %j = linalg.index 1 : index
    %masked = arith.cmpi sgt, %j, %i : index
    %y = arith.select %masked, %neginf, %x : f32
    %m = arith.maximumf %acc, %y : f32
    linalg.yield %m : f32
  }
  return
}

// -----

// bf16: the NVVM shuffle takes 32-bit values, so elements are extended and
// folded in f32 (-inf), combined in f32, and rounded once when stored.
// CHECK-LABEL: func.func @row_max_bf16
// CHECK-DAG: %[[NEGINF:.+]] = arith.constant 0xFF800000 : f32
// CHECK: scf.for {{.*}} iter_args(%[[ACC:.+]] = %[[NEGINF]]) -> (f32)
// CHECK:   %[[X:.+]] = memref.load {{.*}} : memref<8x1000xbf16>
// CHECK:   %[[XF:.+]] = arith.extf %[[X]] : bf16 to f32
// CHECK:   arith.maximumf %[[ACC]], %[[XF]] : f32
// CHECK: %[[ALL:.+]] = gpu.all_reduce maximumf %{{.+}} uniform {
// CHECK-NEXT: } : (f32) -> f32
// CHECK: scf.if
// CHECK:   %[[INIT:.+]] = memref.load {{.*}} : memref<8xbf16>
// CHECK:   %[[INITF:.+]] = arith.extf %[[INIT]] : bf16 to f32
// CHECK:   %[[M:.+]] = arith.maximumf %[[INITF]], %[[ALL]] : f32
// CHECK:   %[[T:.+]] = arith.truncf %[[M]] : f32 to bf16
// CHECK:   memref.store %[[T]], {{.*}} : memref<8xbf16>
func.func @row_max_bf16(%in: memref<8x1000xbf16>, %out: memref<8xbf16>) {
  linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>,
                                   affine_map<(d0, d1) -> (d0)>],
                  iterator_types = ["parallel", "reduction"]}
      ins(%in : memref<8x1000xbf16>) outs(%out : memref<8xbf16>) {
  ^bb0(%x: bf16, %acc: bf16):
    %m = arith.maximumf %acc, %x : bf16
    linalg.yield %m : bf16
  }
  return
}

// -----

// A bf16 input summed into an f32 output (mixed precision): the extension
// is part of the cloned body; the combine is f32.
// CHECK-LABEL: func.func @mixed_sum
// CHECK: scf.for {{.*}} -> (f32)
// CHECK:   arith.extf %{{.+}} : bf16 to f32
// CHECK:   arith.addf
// CHECK: gpu.all_reduce add %{{.+}} uniform {
// CHECK-NEXT: } : (f32) -> f32
func.func @mixed_sum(%in: memref<4x2048xbf16>, %out: memref<4xf32>) {
  linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>,
                                   affine_map<(d0, d1) -> (d0)>],
                  iterator_types = ["parallel", "reduction"]}
      ins(%in : memref<4x2048xbf16>) outs(%out : memref<4xf32>) {
  ^bb0(%x: bf16, %acc: f32):
    %e = arith.extf %x : bf16 to f32
    %s = arith.addf %acc, %e : f32
    linalg.yield %s : f32
  }
  return
}

// -----

// A bias gradient: a column sum over 1024 rows (the reduction dimension is
// the input's first), a block per column.
// CHECK-LABEL: func.func @column_sum
// CHECK-SAME: (%[[IN:[a-z0-9_]+]]: memref<1024x64xf32>, %{{.+}}: memref<64xf32>)
// CHECK-DAG: %[[C64:.+]] = arith.constant 64 : index
// CHECK-DAG: %[[C128:.+]] = arith.constant 128 : index
// CHECK: gpu.launch blocks(%[[BX:[a-z0-9_]+]], %{{.+}}, %{{.+}}) in (%{{.+}} = %[[C64]], {{.*}}) threads({{.*}}) in (%{{.+}} = %[[C128]],
// CHECK: scf.for %[[R:[a-z0-9_]+]] =
// CHECK:   memref.load %[[IN]][%[[R]], %[[BX]]]
// CHECK: gpu.all_reduce add
func.func @column_sum(%in: memref<1024x64xf32>, %out: memref<64xf32>) {
  linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d1, d0)>,
                                   affine_map<(d0, d1) -> (d0)>],
                  iterator_types = ["parallel", "reduction"]}
      ins(%in : memref<1024x64xf32>) outs(%out : memref<64xf32>) {
  ^bb0(%x: f32, %acc: f32):
    %s = arith.addf %x, %acc : f32
    linalg.yield %s : f32
  }
  return
}

// -----

// Two outputs (a loss and its count, as the cross entropy's mean): one
// all-reduce each, both before the guarded stores. The body reads another
// buffer (the logit of the label) at a linalg.index.
// CHECK-LABEL: func.func @loss_and_count
// CHECK: scf.for %[[R:[a-z0-9_]+]] = {{.*}} -> (f32, f32)
// CHECK:   memref.load %{{.+}}[%[[R]], %{{.+}}] : memref<512x16xf32>
// CHECK: %[[A:.+]] = gpu.all_reduce add
// CHECK: %[[B:.+]] = gpu.all_reduce add
// CHECK: scf.if
// CHECK:   arith.addf %{{.+}}, %[[A]] : f32
// CHECK:   arith.addf %{{.+}}, %[[B]] : f32
func.func @loss_and_count(%labels: memref<512xindex>, %logits: memref<512x16xf32>,
                          %loss: memref<f32>, %count: memref<f32>) {
  %one = arith.constant 1.0 : f32
  linalg.generic {indexing_maps = [affine_map<(d0) -> (d0)>,
                                   affine_map<(d0) -> ()>,
                                   affine_map<(d0) -> ()>],
                  iterator_types = ["reduction"]}
      ins(%labels : memref<512xindex>) outs(%loss, %count : memref<f32>, memref<f32>) {
  ^bb0(%label: index, %l: f32, %n: f32):
    %i = linalg.index 0 : index
    %x = memref.load %logits[%i, %label] : memref<512x16xf32>
    %s = arith.addf %l, %x : f32
    %c = arith.addf %n, %one : f32
    linalg.yield %s, %c : f32, f32
  }
  return
}

// -----

// Not a recognized reduction (the output element is used twice, a running
// decay): left to one thread per output element.
// CHECK-LABEL: func.func @decay
// CHECK-NOT: gpu.launch
// CHECK: linalg.generic
func.func @decay(%in: memref<8x4096xf32>, %out: memref<8xf32>) {
  %half = arith.constant 0.5 : f32
  linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>,
                                   affine_map<(d0, d1) -> (d0)>],
                  iterator_types = ["parallel", "reduction"]}
      ins(%in : memref<8x4096xf32>) outs(%out : memref<8xf32>) {
  ^bb0(%x: f32, %acc: f32):
    %d = arith.mulf %acc, %half : f32
    %s = arith.addf %d, %x : f32
    linalg.yield %s : f32
  }
  return
}

// -----

// A subtraction is not associative: left as it is.
// CHECK-LABEL: func.func @difference
// CHECK-NOT: gpu.launch
// CHECK: linalg.generic
func.func @difference(%in: memref<8x4096xf32>, %out: memref<8xf32>) {
  linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>,
                                   affine_map<(d0, d1) -> (d0)>],
                  iterator_types = ["parallel", "reduction"]}
      ins(%in : memref<8x4096xf32>) outs(%out : memref<8xf32>) {
  ^bb0(%x: f32, %acc: f32):
    %s = arith.subf %acc, %x : f32
    linalg.yield %s : f32
  }
  return
}

// -----

// The body reads the output buffer: the sequential order matters, left as
// it is.
// CHECK-LABEL: func.func @reads_output
// CHECK-NOT: gpu.launch
// CHECK: linalg.generic
func.func @reads_output(%in: memref<8x4096xf32>, %out: memref<8xf32>) {
  %c0 = arith.constant 0 : index
  linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>,
                                   affine_map<(d0, d1) -> (d0)>],
                  iterator_types = ["parallel", "reduction"]}
      ins(%in : memref<8x4096xf32>) outs(%out : memref<8xf32>) {
  ^bb0(%x: f32, %acc: f32):
    %first = memref.load %out[%c0] : memref<8xf32>
    %y = arith.mulf %x, %first : f32
    %s = arith.addf %acc, %y : f32
    linalg.yield %s : f32
  }
  return
}

// -----

// An i8 sum (no 8-bit shuffle, and widening would change the wrap-around of
// a max): left as it is; i32 sums are block reductions.
// CHECK-LABEL: func.func @integers
// CHECK: gpu.launch
// CHECK: gpu.all_reduce add %{{.+}} uniform {
// CHECK-NEXT: } : (i32) -> i32
// CHECK: linalg.generic
// CHECK-SAME: outs(%{{.+}} : memref<8xi8>)
func.func @integers(%a: memref<8x4096xi32>, %sa: memref<8xi32>,
                    %b: memref<8x4096xi8>, %sb: memref<8xi8>) {
  linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>,
                                   affine_map<(d0, d1) -> (d0)>],
                  iterator_types = ["parallel", "reduction"]}
      ins(%a : memref<8x4096xi32>) outs(%sa : memref<8xi32>) {
  ^bb0(%x: i32, %acc: i32):
    %s = arith.addi %x, %acc : i32
    linalg.yield %s : i32
  }
  linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>,
                                   affine_map<(d0, d1) -> (d0)>],
                  iterator_types = ["parallel", "reduction"]}
      ins(%b : memref<8x4096xi8>) outs(%sb : memref<8xi8>) {
  ^bb0(%x: i8, %acc: i8):
    %s = arith.addi %x, %acc : i8
    linalg.yield %s : i8
  }
  return
}

// -----

// A named reduction (linalg.reduce) and a named contraction are linalg ops
// like the generics: the matmul's k = 512 dimension is reduced by a block
// per output element (when cuBLAS is off).
// CHECK-LABEL: func.func @named
// CHECK: gpu.all_reduce add
// CHECK: gpu.all_reduce add
// CHECK-NOT: linalg.
func.func @named(%x: memref<16x512xf32>, %s: memref<16xf32>,
                 %w: memref<512x8xf32>, %y: memref<16x8xf32>) {
  linalg.reduce ins(%x : memref<16x512xf32>) outs(%s : memref<16xf32>) dimensions = [1]
    (%in: f32, %init: f32) {
      %0 = arith.addf %in, %init : f32
      linalg.yield %0 : f32
    }
  linalg.matmul ins(%x, %w : memref<16x512xf32>, memref<512x8xf32>) outs(%y : memref<16x8xf32>)
  return
}

// -----

// A convolution-like reduction with 2^17 + 1 output elements: one thread per
// output element already fills the device, left as it is.
// CHECK-LABEL: func.func @many_outputs
// CHECK-NOT: gpu.launch
// CHECK: linalg.generic
func.func @many_outputs(%in: memref<131073x576xf32>, %out: memref<131073xf32>) {
  linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>,
                                   affine_map<(d0, d1) -> (d0)>],
                  iterator_types = ["parallel", "reduction"]}
      ins(%in : memref<131073x576xf32>) outs(%out : memref<131073xf32>) {
  ^bb0(%x: f32, %acc: f32):
    %s = arith.addf %x, %acc : f32
    linalg.yield %s : f32
  }
  return
}

// -----

// 2^17 output elements is still a block per output element.
// CHECK-LABEL: func.func @most_outputs
// CHECK: gpu.all_reduce
func.func @most_outputs(%in: memref<131072x576xf32>, %out: memref<131072xf32>) {
  linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>,
                                   affine_map<(d0, d1) -> (d0)>],
                  iterator_types = ["parallel", "reduction"]}
      ins(%in : memref<131072x576xf32>) outs(%out : memref<131072xf32>) {
  ^bb0(%x: f32, %acc: f32):
    %s = arith.addf %x, %acc : f32
    linalg.yield %s : f32
  }
  return
}

// -----

// Host code (between memopt_memory_space(1) and (0): train-offload) runs on
// the CPU: its row sum stays a linalg op; the device's becomes a launch.
// CHECK-LABEL: func.func @host_code
// CHECK: call @memopt_memory_space
// CHECK-NEXT: linalg.generic
// CHECK: call @memopt_memory_space
// CHECK: gpu.launch
func.func private @memopt_memory_space(i32)
func.func @host_code(%in: memref<8x4096xf32>, %out: memref<8xf32>) {
  %host = arith.constant 1 : i32
  %device = arith.constant 0 : i32
  call @memopt_memory_space(%host) : (i32) -> ()
  linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>,
                                   affine_map<(d0, d1) -> (d0)>],
                  iterator_types = ["parallel", "reduction"]}
      ins(%in : memref<8x4096xf32>) outs(%out : memref<8xf32>) {
  ^bb0(%x: f32, %acc: f32):
    %s = arith.addf %x, %acc : f32
    linalg.yield %s : f32
  }
  call @memopt_memory_space(%device) : (i32) -> ()
  linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>,
                                   affine_map<(d0, d1) -> (d0)>],
                  iterator_types = ["parallel", "reduction"]}
      ins(%in : memref<8x4096xf32>) outs(%out : memref<8xf32>) {
  ^bb0(%x: f32, %acc: f32):
    %s = arith.addf %x, %acc : f32
    linalg.yield %s : f32
  }
  return
}
