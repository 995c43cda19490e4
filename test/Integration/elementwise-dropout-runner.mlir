// Executes the lowered dropout and dropout_grad. The keep bits were computed
// in Python from the documented counter-based hash (seed, id, row-major
// element index); dropout_grad is checked against a central finite
// difference of dropout's forward (same seed) with a random dy.
// The test's @main writes the seed into @__train_seed, which only exists
// once the pass has run, hence the parser's verifier is off for the input.
// RUN: mem-opt %s --mlir-very-unsafe-disable-verifier-on-parsing \
// RUN:   --convert-train-to-linalg --memopt-lower-to-cpu \
// RUN:   | %mlir_runner -e main -entry-point-result=void %runner_libs \
// RUN:   | FileCheck %s
// The same through memopt-lower-to-gpu's kernels, run as CPU loops (every
// reduction a block reduction, matmuls through the CPU cuBLAS stand-in):
// RUN: mem-opt %s --mlir-very-unsafe-disable-verifier-on-parsing \
// RUN:   --convert-train-to-linalg %gpu_emulator \
// RUN:   | %mlir_runner -e main -entry-point-result=void %runner_libs \
// RUN:   | FileCheck %s

func.func private @printMemrefF32(tensor<*xf32>)
func.func private @printMemrefI32(tensor<*xi32>)

func.func @print(%t: tensor<2x3x4xf32>) {
  %c = tensor.collapse_shape %t [[0, 1, 2]] : tensor<2x3x4xf32> into tensor<24xf32>
  %u = tensor.cast %c : tensor<24xf32> to tensor<*xf32>
  call @printMemrefF32(%u) : (tensor<*xf32>) -> ()
  return
}

func.func @print_mask(%t: tensor<2x3x4xi8>) {
  %c = tensor.collapse_shape %t [[0, 1, 2]] : tensor<2x3x4xi8> into tensor<24xi8>
  %e = tensor.empty() : tensor<24xi32>
  %w = linalg.generic {indexing_maps = [affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>],
                       iterator_types = ["parallel"]}
      ins(%c : tensor<24xi8>) outs(%e : tensor<24xi32>) {
  ^bb0(%in: i8, %out: i32):
    %x = arith.extui %in : i8 to i32
    linalg.yield %x : i32
  } -> tensor<24xi32>
  %u = tensor.cast %w : tensor<24xi32> to tensor<*xi32>
  call @printMemrefI32(%u) : (tensor<*xi32>) -> ()
  return
}

func.func @print_bf16(%t: tensor<8xbf16>) {
  %f = train.cast %t : tensor<8xbf16> -> tensor<8xf32>
  %u = tensor.cast %f : tensor<8xf32> to tensor<*xf32>
  call @printMemrefF32(%u) : (tensor<*xf32>) -> ()
  return
}

func.func @print_mask_i1(%t: tensor<8xi1>) {
  %e = tensor.empty() : tensor<8xi32>
  %w = linalg.generic {indexing_maps = [affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>],
                       iterator_types = ["parallel"]}
      ins(%t : tensor<8xi1>) outs(%e : tensor<8xi32>) {
  ^bb0(%in: i1, %out: i32):
    %x = arith.extui %in : i1 to i32
    linalg.yield %x : i32
  } -> tensor<8xi32>
  %u = tensor.cast %w : tensor<8xi32> to tensor<*xi32>
  call @printMemrefI32(%u) : (tensor<*xi32>) -> ()
  return
}

// The same dropout (id 3) in another function, on other values of the same
// shape, as recomputation would clone it.
func.func @recompute(%x: tensor<2x3x4xf32>) -> (tensor<2x3x4xf32>, tensor<2x3x4xi8>) {
  %y, %m = train.dropout %x {id = 3 : i64, rate = 5.000000e-01 : f64}
      : tensor<2x3x4xf32> -> tensor<2x3x4xf32>, tensor<2x3x4xi8>
  return %y, %m : tensor<2x3x4xf32>, tensor<2x3x4xi8>
}

// The partitioned form: the part [1, 1:3, 0:4] of a 2x3x4 tensor draws the
// whole tensor's mask at those elements (row-major indices 16 to 23).
func.func @part(%x: tensor<1x2x4xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %y, %m = train.dropout %x at [%c1, %c1, %c0] in [2, 3, 4] {id = 3 : i64, rate = 5.000000e-01 : f64}
      : tensor<1x2x4xf32> -> tensor<1x2x4xf32>, tensor<1x2x4xi8>
  %yc = tensor.collapse_shape %y [[0, 1, 2]] : tensor<1x2x4xf32> into tensor<8xf32>
  %yu = tensor.cast %yc : tensor<8xf32> to tensor<*xf32>
  call @printMemrefF32(%yu) : (tensor<*xf32>) -> ()
  return
}

func.func @step(%x: tensor<2x3x4xf32>, %xr: tensor<2x3x4xf32>,
                 %dy: tensor<2x3x4xf32>, %b: tensor<8xbf16>, %db: tensor<8xbf16>) {
  %y, %m = train.dropout %x {id = 3 : i64, rate = 5.000000e-01 : f64}
      : tensor<2x3x4xf32> -> tensor<2x3x4xf32>, tensor<2x3x4xi8>
  %yr, %mr = call @recompute(%xr)
      : (tensor<2x3x4xf32>) -> (tensor<2x3x4xf32>, tensor<2x3x4xi8>)
  %y4, %m4 = train.dropout %x {id = 4 : i64, rate = 5.000000e-01 : f64}
      : tensor<2x3x4xf32> -> tensor<2x3x4xf32>, tensor<2x3x4xi8>
  %y0, %m0 = train.dropout %x {id = 3 : i64, rate = 0.000000e+00 : f64}
      : tensor<2x3x4xf32> -> tensor<2x3x4xf32>, tensor<2x3x4xi8>
  %dx = train.dropout_grad %dy, %m {rate = 5.000000e-01 : f64}
      : tensor<2x3x4xf32>, tensor<2x3x4xi8> -> tensor<2x3x4xf32>
  %yb, %mb = train.dropout %b {id = 9 : i64, rate = 2.500000e-01 : f64}
      : tensor<8xbf16> -> tensor<8xbf16>, tensor<8xi1>
  %dxb = train.dropout_grad %db, %mb {rate = 2.500000e-01 : f64}
      : tensor<8xbf16>, tensor<8xi1> -> tensor<8xbf16>
  call @print(%y) : (tensor<2x3x4xf32>) -> ()
  call @print_mask(%m) : (tensor<2x3x4xi8>) -> ()
  call @print(%yr) : (tensor<2x3x4xf32>) -> ()
  call @print_mask(%mr) : (tensor<2x3x4xi8>) -> ()
  call @print(%y4) : (tensor<2x3x4xf32>) -> ()
  call @print_mask(%m4) : (tensor<2x3x4xi8>) -> ()
  call @print(%y0) : (tensor<2x3x4xf32>) -> ()
  call @print_mask(%m0) : (tensor<2x3x4xi8>) -> ()
  call @print(%dx) : (tensor<2x3x4xf32>) -> ()
  call @print_bf16(%yb) : (tensor<8xbf16>) -> ()
  call @print_mask_i1(%mb) : (tensor<8xi1>) -> ()
  call @print_bf16(%dxb) : (tensor<8xbf16>) -> ()
  return
}

func.func @main() {
  %x = arith.constant dense<[[[1.0, 2.0, 3.0, 4.0], [5.0, 6.0, 7.0, 8.0], [9.0, 10.0, 11.0, 12.0]], [[13.0, 14.0, 15.0, 16.0], [17.0, 18.0, 19.0, 20.0], [21.0, 22.0, 23.0, 24.0]]]> : tensor<2x3x4xf32>
  %xr = arith.constant dense<[[[-0.25, -0.5, -0.75, -1.0], [-1.25, -1.5, -1.75, -2.0], [-2.25, -2.5, -2.75, -3.0]], [[-3.25, -3.5, -3.75, -4.0], [-4.25, -4.5, -4.75, -5.0], [-5.25, -5.5, -5.75, -6.0]]]> : tensor<2x3x4xf32>
  %dy = arith.constant dense<[[[0.37, -1.21, 0.84, 2.05], [-0.63, 1.48, 0.11, -0.29], [1.73, -2.4, 0.56, 0.9]], [[-0.07, 1.19, -1.66, 0.33], [2.2, -0.45, 0.78, -1.02], [0.64, 1.35, -0.88, 0.25]]]> : tensor<2x3x4xf32>
  %b = arith.constant dense<[1.0, -2.5, 0.30078125, 7.0, -0.125, 3.75, 100.0, -0.5]> : tensor<8xbf16>
  %db = arith.constant dense<[0.5, 1.25, -0.75, 2.0, -3.0, 0.375, 1.5, -1.0]> : tensor<8xbf16>
  %seed = memref.get_global @__train_seed : memref<i64>
  %c0 = arith.constant 0 : i64
  %c5 = arith.constant 5 : i64

  memref.store %c0, %seed[] : memref<i64>
  // seed 0: id 3 keeps [1,  0,  1,  0,  1,  0,  0,  0,  0,  1,  1,  1,  1,  1,  1,  1,  1,  0,  0,  0,  1,  1,  1,  1]
  // CHECK: [2,  0,  6,  0,  10,  0,  0,  0,  0,  20,  22,  24,  26,  28,  30,  32,  34,  0,  0,  0,  42,  44,  46,  48]
  // CHECK: [1,  0,  1,  0,  1,  0,  0,  0,  0,  1,  1,  1,  1,  1,  1,  1,  1,  0,  0,  0,  1,  1,  1,  1]
  // The clone draws the identical mask.
  // CHECK: [-0.5,  0,  -1.5,  0,  -2.5,  0,  0,  0,  0,  -5,  -5.5,  -6,  -6.5,  -7,  -7.5,  -8,  -8.5,  0,  0,  0,  -10.5,  -11,  -11.5,  -12]
  // CHECK: [1,  0,  1,  0,  1,  0,  0,  0,  0,  1,  1,  1,  1,  1,  1,  1,  1,  0,  0,  0,  1,  1,  1,  1]
  // Another id draws another mask.
  // CHECK: [2,  0,  6,  0,  0,  12,  14,  0,  0,  20,  0,  0,  26,  0,  0,  0,  34,  0,  38,  40,  42,  44,  0,  48]
  // CHECK: [1,  0,  1,  0,  0,  1,  1,  0,  0,  1,  0,  0,  1,  0,  0,  0,  1,  0,  1,  1,  1,  1,  0,  1]
  // Rate 0 keeps everything, unscaled.
  // CHECK: [1,  2,  3,  4,  5,  6,  7,  8,  9,  10,  11,  12,  13,  14,  15,  16,  17,  18,  19,  20,  21,  22,  23,  24]
  // CHECK: [1,  1,  1,  1,  1,  1,  1,  1,  1,  1,  1,  1,  1,  1,  1,  1,  1,  1,  1,  1,  1,  1,  1,  1]
  // dropout_grad = the finite difference of dropout's forward (a dropped
  // element with dy < 0 gives -0 = dy * 0 * scale, as PyTorch).
  // CHECK: [0.74,  -0,  1.68,  0,  -1.26,  0,  0,  -0,  0,  -4.8,  1.12,  1.8,  -0.14,  2.38,  -3.32,  0.66,  4.4,  -0,  0,  -0,  1.28,  2.7,  -1.76,  0.5]
  // bf16 with an i1 mask: scale 1 / 0.75 rounds to bf16 1.3359375.
  // CHECK: [0,  0,  0,  9.375,  -0.166992,  0,  134,  -0.667969]
  // CHECK: [0,  0,  0,  1,  1,  0,  1,  1]
  // CHECK: [0,  0,  -0,  2.67188,  -4,  0,  2,  -1.33594]
  call @step(%x, %xr, %dy, %b, %db) : (tensor<2x3x4xf32>, tensor<2x3x4xf32>, tensor<2x3x4xf32>, tensor<8xbf16>, tensor<8xbf16>) -> ()
  // The part keeps what the whole keeps at indices 16 to 23: 1, 0, 0, 0, 1, 1, 1, 1.
  // CHECK: [2,  0,  0,  0,  2,  2,  2,  2]
  %ones = arith.constant dense<1.0> : tensor<1x2x4xf32>
  call @part(%ones) : (tensor<1x2x4xf32>) -> ()

  memref.store %c5, %seed[] : memref<i64>
  // seed 5: id 3 keeps [1,  1,  0,  1,  0,  0,  0,  0,  0,  1,  1,  1,  1,  1,  1,  0,  0,  1,  1,  1,  0,  0,  1,  1]
  // CHECK: [2,  4,  0,  8,  0,  0,  0,  0,  0,  20,  22,  24,  26,  28,  30,  0,  0,  36,  38,  40,  0,  0,  46,  48]
  // CHECK: [1,  1,  0,  1,  0,  0,  0,  0,  0,  1,  1,  1,  1,  1,  1,  0,  0,  1,  1,  1,  0,  0,  1,  1]
  // The clone draws the identical mask.
  // CHECK: [-0.5,  -1,  0,  -2,  0,  0,  0,  0,  0,  -5,  -5.5,  -6,  -6.5,  -7,  -7.5,  0,  0,  -9,  -9.5,  -10,  0,  0,  -11.5,  -12]
  // CHECK: [1,  1,  0,  1,  0,  0,  0,  0,  0,  1,  1,  1,  1,  1,  1,  0,  0,  1,  1,  1,  0,  0,  1,  1]
  // Another id draws another mask.
  // CHECK: [2,  0,  0,  0,  10,  0,  0,  0,  0,  20,  0,  0,  0,  0,  30,  0,  0,  36,  0,  0,  0,  44,  0,  0]
  // CHECK: [1,  0,  0,  0,  1,  0,  0,  0,  0,  1,  0,  0,  0,  0,  1,  0,  0,  1,  0,  0,  0,  1,  0,  0]
  // Rate 0 keeps everything, unscaled.
  // CHECK: [1,  2,  3,  4,  5,  6,  7,  8,  9,  10,  11,  12,  13,  14,  15,  16,  17,  18,  19,  20,  21,  22,  23,  24]
  // CHECK: [1,  1,  1,  1,  1,  1,  1,  1,  1,  1,  1,  1,  1,  1,  1,  1,  1,  1,  1,  1,  1,  1,  1,  1]
  // dropout_grad = the finite difference of dropout's forward (a dropped
  // element with dy < 0 gives -0 = dy * 0 * scale, as PyTorch).
  // CHECK: [0.74,  -2.42,  0,  4.1,  -0,  0,  0,  -0,  0,  -4.8,  1.12,  1.8,  -0.14,  2.38,  -3.32,  0,  0,  -0.9,  1.56,  -2.04,  0,  0,  -1.76,  0.5]
  // bf16 with an i1 mask: scale 1 / 0.75 rounds to bf16 1.3359375.
  // CHECK: [1.33594,  -3.34375,  0,  9.375,  -0.166992,  5,  0,  -0.667969]
  // CHECK: [1,  1,  0,  1,  1,  1,  0,  1]
  // CHECK: [0.667969,  1.67188,  -0,  2.67188,  -4,  0.5,  0,  -1.33594]
  call @step(%x, %xr, %dy, %b, %db) : (tensor<2x3x4xf32>, tensor<2x3x4xf32>, tensor<2x3x4xf32>, tensor<8xbf16>, tensor<8xbf16>) -> ()
  return
}
