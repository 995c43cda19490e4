// conv2d_grad_filter on a padded input reads the input in place, a position
// in the padding counting as zero (no padded copy). Each case computes the
// filter gradient twice: in place with the padding, and with padding 0 on a
// zero-padded copy made here (the indexing-map form, which has no border
// logic). They must agree in every element: the data are small integers, so
// every sum is exact in f32 (and in bf16, all below 256) whatever the
// order, and a tolerance of zero is right: an element whose sum reads a
// wrong input position at the border (a clamped index whose value is kept
// instead of zero, the other dimension's padding) differs by a nonzero
// integer. Such bugs changed 96 and 108 of case 1's 108 elements. Each line
// prints the number of differing elements (0), then the nonzero elements of
// the gradient and the sum of their squares, both equal to PyTorch's
// torch.nn.grad.conv2d_weight in float64 on the same data (so neither side
// is trivially zero). Cases: asymmetric padding (1, 2) with stride (2, 1)
// and dilation (1, 2); depthwise 3x3 (EfficientNet's and MobileNet's
// gradients); grouped 5x5 with stride 2 and padding 2; padding 3 with a 3x3
// window (whole windows in the padding); bf16 with padding (1, 0).
// RUN: mem-opt %s --convert-train-to-linalg --memopt-lower-to-cpu \
// RUN:   | %mlir_runner -e main -entry-point-result=void %runner_libs \
// RUN:   | FileCheck %s
// The same through memopt-lower-to-gpu's kernels, run as CPU loops:
// RUN: mem-opt %s --convert-train-to-linalg %gpu_emulator \
// RUN:   | %mlir_runner -e main -entry-point-result=void %runner_libs \
// RUN:   | FileCheck %s
// CHECK: 0, 108, 70750
// CHECK-NEXT: 0, 36, 39150
// CHECK-NEXT: 0, 298, 530547
// CHECK-NEXT: 0, 36, 37605
// CHECK-NEXT: 0, 54, 18811

func.func @in_place1(%dy: tensor<2x4x4x6xf32>, %x: tensor<2x3x7x6xf32>) -> tensor<4x3x3x3xf32> {
  %r = train.conv2d_grad_filter %dy, %x {strides = array<i64: 2, 1>, dilation = array<i64: 1, 2>, groups = 1 : i64, padding = array<i64: 1, 2>}
      : tensor<2x4x4x6xf32>, tensor<2x3x7x6xf32> -> tensor<4x3x3x3xf32>
  return %r : tensor<4x3x3x3xf32>
}

func.func @prepadded1(%dy: tensor<2x4x4x6xf32>, %xp: tensor<2x3x9x10xf32>) -> tensor<4x3x3x3xf32> {
  %r = train.conv2d_grad_filter %dy, %xp {strides = array<i64: 2, 1>, dilation = array<i64: 1, 2>, groups = 1 : i64}
      : tensor<2x4x4x6xf32>, tensor<2x3x9x10xf32> -> tensor<4x3x3x3xf32>
  return %r : tensor<4x3x3x3xf32>
}

func.func @in_place2(%dy: tensor<2x4x5x5xf32>, %x: tensor<2x4x5x5xf32>) -> tensor<4x1x3x3xf32> {
  %r = train.conv2d_grad_filter %dy, %x {strides = array<i64: 1, 1>, dilation = array<i64: 1, 1>, groups = 4 : i64, padding = array<i64: 1, 1>}
      : tensor<2x4x5x5xf32>, tensor<2x4x5x5xf32> -> tensor<4x1x3x3xf32>
  return %r : tensor<4x1x3x3xf32>
}

func.func @prepadded2(%dy: tensor<2x4x5x5xf32>, %xp: tensor<2x4x7x7xf32>) -> tensor<4x1x3x3xf32> {
  %r = train.conv2d_grad_filter %dy, %xp {strides = array<i64: 1, 1>, dilation = array<i64: 1, 1>, groups = 4 : i64}
      : tensor<2x4x5x5xf32>, tensor<2x4x7x7xf32> -> tensor<4x1x3x3xf32>
  return %r : tensor<4x1x3x3xf32>
}

func.func @in_place3(%dy: tensor<1x6x5x4xf32>, %x: tensor<1x4x9x8xf32>) -> tensor<6x2x5x5xf32> {
  %r = train.conv2d_grad_filter %dy, %x {strides = array<i64: 2, 2>, dilation = array<i64: 1, 1>, groups = 2 : i64, padding = array<i64: 2, 2>}
      : tensor<1x6x5x4xf32>, tensor<1x4x9x8xf32> -> tensor<6x2x5x5xf32>
  return %r : tensor<6x2x5x5xf32>
}

func.func @prepadded3(%dy: tensor<1x6x5x4xf32>, %xp: tensor<1x4x13x12xf32>) -> tensor<6x2x5x5xf32> {
  %r = train.conv2d_grad_filter %dy, %xp {strides = array<i64: 2, 2>, dilation = array<i64: 1, 1>, groups = 2 : i64}
      : tensor<1x6x5x4xf32>, tensor<1x4x13x12xf32> -> tensor<6x2x5x5xf32>
  return %r : tensor<6x2x5x5xf32>
}

func.func @in_place4(%dy: tensor<1x2x8x8xf32>, %x: tensor<1x2x4x4xf32>) -> tensor<2x2x3x3xf32> {
  %r = train.conv2d_grad_filter %dy, %x {strides = array<i64: 1, 1>, dilation = array<i64: 1, 1>, groups = 1 : i64, padding = array<i64: 3, 3>}
      : tensor<1x2x8x8xf32>, tensor<1x2x4x4xf32> -> tensor<2x2x3x3xf32>
  return %r : tensor<2x2x3x3xf32>
}

func.func @prepadded4(%dy: tensor<1x2x8x8xf32>, %xp: tensor<1x2x10x10xf32>) -> tensor<2x2x3x3xf32> {
  %r = train.conv2d_grad_filter %dy, %xp {strides = array<i64: 1, 1>, dilation = array<i64: 1, 1>, groups = 1 : i64}
      : tensor<1x2x8x8xf32>, tensor<1x2x10x10xf32> -> tensor<2x2x3x3xf32>
  return %r : tensor<2x2x3x3xf32>
}

func.func @in_place5(%dy: tensor<1x3x3x2xbf16>, %x: tensor<1x2x5x6xbf16>) -> tensor<3x2x3x3xbf16> {
  %r = train.conv2d_grad_filter %dy, %x {strides = array<i64: 2, 2>, dilation = array<i64: 1, 1>, groups = 1 : i64, padding = array<i64: 1, 0>}
      : tensor<1x3x3x2xbf16>, tensor<1x2x5x6xbf16> -> tensor<3x2x3x3xbf16>
  return %r : tensor<3x2x3x3xbf16>
}

func.func @prepadded5(%dy: tensor<1x3x3x2xbf16>, %xp: tensor<1x2x7x6xbf16>) -> tensor<3x2x3x3xbf16> {
  %r = train.conv2d_grad_filter %dy, %xp {strides = array<i64: 2, 2>, dilation = array<i64: 1, 1>, groups = 1 : i64}
      : tensor<1x3x3x2xbf16>, tensor<1x2x7x6xbf16> -> tensor<3x2x3x3xbf16>
  return %r : tensor<3x2x3x3xbf16>
}

// ((i * mul) mod m) - m / 2 at index i of n, a small integer.
func.func @values_f32(%n: index, %mul: index, %m: index) -> tensor<?xf32> {
  %e = tensor.empty(%n) : tensor<?xf32>
  %r = linalg.generic {indexing_maps = [affine_map<(d0) -> (d0)>], iterator_types = ["parallel"]}
      outs(%e : tensor<?xf32>) {
  ^bb0(%out: f32):
    %i = linalg.index 0 : index
    %c2 = arith.constant 2 : index
    %prod = arith.muli %i, %mul : index
    %rem = arith.remui %prod, %m : index
    %half = arith.divui %m, %c2 : index
    %v = arith.subi %rem, %half : index
    %v64 = arith.index_cast %v : index to i64
    %f = arith.sitofp %v64 : i64 to f32
    linalg.yield %f : f32
  } -> tensor<?xf32>
  return %r : tensor<?xf32>
}

// The same in bf16 (exact: every value is below 256 in magnitude).
func.func @values_bf16(%n: index, %mul: index, %m: index) -> tensor<?xbf16> {
  %f = call @values_f32(%n, %mul, %m) : (index, index, index) -> tensor<?xf32>
  %e = tensor.empty(%n) : tensor<?xbf16>
  %r = linalg.generic {indexing_maps = [affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>], iterator_types = ["parallel"]}
      ins(%f : tensor<?xf32>) outs(%e : tensor<?xbf16>) {
  ^bb0(%in: f32, %out: bf16):
    %t = arith.truncf %in : f32 to bf16
    linalg.yield %t : bf16
  } -> tensor<?xbf16>
  return %r : tensor<?xbf16>
}

// Prints the number of elements where `a` and `b` differ, then the number
// of nonzero elements of `a` and the sum of their squares.
func.func @compare_f32(%a: tensor<?xf32>, %b: tensor<?xf32>) {
  %zero = arith.constant 0 : i64
  %fzero = arith.constant 0.0 : f32
  %ei = tensor.empty() : tensor<i64>
  %ef = tensor.empty() : tensor<f32>
  %i0 = linalg.fill ins(%zero : i64) outs(%ei : tensor<i64>) -> tensor<i64>
  %i1 = linalg.fill ins(%zero : i64) outs(%ei : tensor<i64>) -> tensor<i64>
  %f0 = linalg.fill ins(%fzero : f32) outs(%ef : tensor<f32>) -> tensor<f32>
  %r:3 = linalg.generic {indexing_maps = [affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>, affine_map<(d0) -> ()>, affine_map<(d0) -> ()>, affine_map<(d0) -> ()>], iterator_types = ["reduction"]}
      ins(%a, %b : tensor<?xf32>, tensor<?xf32>) outs(%i0, %i1, %f0 : tensor<i64>, tensor<i64>, tensor<f32>) {
  ^bb0(%va: f32, %vb: f32, %differ: i64, %nonzero: i64, %sumsq: f32):
    %one = arith.constant 1 : i64
    %z = arith.constant 0.0 : f32
    %ne = arith.cmpf une, %va, %vb : f32
    %d1 = arith.addi %differ, %one : i64
    %d = arith.select %ne, %d1, %differ : i64
    %nz = arith.cmpf une, %va, %z : f32
    %n1 = arith.addi %nonzero, %one : i64
    %n = arith.select %nz, %n1, %nonzero : i64
    %sq = arith.mulf %va, %va : f32
    %s = arith.addf %sumsq, %sq : f32
    linalg.yield %d, %n, %s : i64, i64, f32
  } -> (tensor<i64>, tensor<i64>, tensor<f32>)
  %differ = tensor.extract %r#0[] : tensor<i64>
  %nonzero = tensor.extract %r#1[] : tensor<i64>
  %sumsq = tensor.extract %r#2[] : tensor<f32>
  %sumsq64 = arith.fptosi %sumsq : f32 to i64
  call @printI64(%differ) : (i64) -> ()
  call @printComma() : () -> ()
  call @printI64(%nonzero) : (i64) -> ()
  call @printComma() : () -> ()
  call @printI64(%sumsq64) : (i64) -> ()
  call @printNewline() : () -> ()
  return
}

// compare_f32 of the values widened to f32 (exactly).
func.func @compare_bf16(%a: tensor<?xbf16>, %b: tensor<?xbf16>) {
  %c0 = arith.constant 0 : index
  %n = tensor.dim %a, %c0 : tensor<?xbf16>
  %e = tensor.empty(%n) : tensor<?xf32>
  %wa, %wb = linalg.generic {indexing_maps = [affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>], iterator_types = ["parallel"]}
      ins(%a, %b : tensor<?xbf16>, tensor<?xbf16>) outs(%e, %e : tensor<?xf32>, tensor<?xf32>) {
  ^bb0(%va: bf16, %vb: bf16, %oa: f32, %ob: f32):
    %fa = arith.extf %va : bf16 to f32
    %fb = arith.extf %vb : bf16 to f32
    linalg.yield %fa, %fb : f32, f32
  } -> (tensor<?xf32>, tensor<?xf32>)
  call @compare_f32(%wa, %wb) : (tensor<?xf32>, tensor<?xf32>) -> ()
  return
}

func.func private @printI64(i64)
func.func private @printComma()
func.func private @printNewline()

func.func @main() {
  %zero_f32 = arith.constant 0.0 : f32
  %zero_bf16 = arith.constant 0.0 : bf16
  %c5 = arith.constant 5 : index
  %c7 = arith.constant 7 : index
  %c11 = arith.constant 11 : index
  %c18 = arith.constant 18 : index
  %c32 = arith.constant 32 : index
  %c60 = arith.constant 60 : index
  %c120 = arith.constant 120 : index
  %c128 = arith.constant 128 : index
  %c192 = arith.constant 192 : index
  %c200 = arith.constant 200 : index
  %c252 = arith.constant 252 : index
  %c288 = arith.constant 288 : index
  // Case 1.
  %dy1f = call @values_f32(%c192, %c5, %c7) : (index, index, index) -> tensor<?xf32>
  %dy1s = tensor.cast %dy1f : tensor<?xf32> to tensor<192xf32>
  %dy1 = tensor.expand_shape %dy1s [[0, 1, 2, 3]] output_shape [2, 4, 4, 6] : tensor<192xf32> into tensor<2x4x4x6xf32>
  %x1f = call @values_f32(%c252, %c7, %c11) : (index, index, index) -> tensor<?xf32>
  %x1s = tensor.cast %x1f : tensor<?xf32> to tensor<252xf32>
  %x1 = tensor.expand_shape %x1s [[0, 1, 2, 3]] output_shape [2, 3, 7, 6] : tensor<252xf32> into tensor<2x3x7x6xf32>
  %e1 = tensor.empty() : tensor<2x3x9x10xf32>
  %z1 = linalg.fill ins(%zero_f32 : f32) outs(%e1 : tensor<2x3x9x10xf32>) -> tensor<2x3x9x10xf32>
  %xp1 = tensor.insert_slice %x1 into %z1[0, 0, 1, 2] [2, 3, 7, 6] [1, 1, 1, 1] : tensor<2x3x7x6xf32> into tensor<2x3x9x10xf32>
  %a1 = call @in_place1(%dy1, %x1) : (tensor<2x4x4x6xf32>, tensor<2x3x7x6xf32>) -> tensor<4x3x3x3xf32>
  %b1 = call @prepadded1(%dy1, %xp1) : (tensor<2x4x4x6xf32>, tensor<2x3x9x10xf32>) -> tensor<4x3x3x3xf32>
  %a1s = tensor.collapse_shape %a1 [[0, 1, 2, 3]] : tensor<4x3x3x3xf32> into tensor<108xf32>
  %b1s = tensor.collapse_shape %b1 [[0, 1, 2, 3]] : tensor<4x3x3x3xf32> into tensor<108xf32>
  %a1f = tensor.cast %a1s : tensor<108xf32> to tensor<?xf32>
  %b1f = tensor.cast %b1s : tensor<108xf32> to tensor<?xf32>
  call @compare_f32(%a1f, %b1f) : (tensor<?xf32>, tensor<?xf32>) -> ()
  // Case 2.
  %dy2f = call @values_f32(%c200, %c5, %c7) : (index, index, index) -> tensor<?xf32>
  %dy2s = tensor.cast %dy2f : tensor<?xf32> to tensor<200xf32>
  %dy2 = tensor.expand_shape %dy2s [[0, 1, 2, 3]] output_shape [2, 4, 5, 5] : tensor<200xf32> into tensor<2x4x5x5xf32>
  %x2f = call @values_f32(%c200, %c7, %c11) : (index, index, index) -> tensor<?xf32>
  %x2s = tensor.cast %x2f : tensor<?xf32> to tensor<200xf32>
  %x2 = tensor.expand_shape %x2s [[0, 1, 2, 3]] output_shape [2, 4, 5, 5] : tensor<200xf32> into tensor<2x4x5x5xf32>
  %e2 = tensor.empty() : tensor<2x4x7x7xf32>
  %z2 = linalg.fill ins(%zero_f32 : f32) outs(%e2 : tensor<2x4x7x7xf32>) -> tensor<2x4x7x7xf32>
  %xp2 = tensor.insert_slice %x2 into %z2[0, 0, 1, 1] [2, 4, 5, 5] [1, 1, 1, 1] : tensor<2x4x5x5xf32> into tensor<2x4x7x7xf32>
  %a2 = call @in_place2(%dy2, %x2) : (tensor<2x4x5x5xf32>, tensor<2x4x5x5xf32>) -> tensor<4x1x3x3xf32>
  %b2 = call @prepadded2(%dy2, %xp2) : (tensor<2x4x5x5xf32>, tensor<2x4x7x7xf32>) -> tensor<4x1x3x3xf32>
  %a2s = tensor.collapse_shape %a2 [[0, 1, 2, 3]] : tensor<4x1x3x3xf32> into tensor<36xf32>
  %b2s = tensor.collapse_shape %b2 [[0, 1, 2, 3]] : tensor<4x1x3x3xf32> into tensor<36xf32>
  %a2f = tensor.cast %a2s : tensor<36xf32> to tensor<?xf32>
  %b2f = tensor.cast %b2s : tensor<36xf32> to tensor<?xf32>
  call @compare_f32(%a2f, %b2f) : (tensor<?xf32>, tensor<?xf32>) -> ()
  // Case 3.
  %dy3f = call @values_f32(%c120, %c5, %c7) : (index, index, index) -> tensor<?xf32>
  %dy3s = tensor.cast %dy3f : tensor<?xf32> to tensor<120xf32>
  %dy3 = tensor.expand_shape %dy3s [[0, 1, 2, 3]] output_shape [1, 6, 5, 4] : tensor<120xf32> into tensor<1x6x5x4xf32>
  %x3f = call @values_f32(%c288, %c7, %c11) : (index, index, index) -> tensor<?xf32>
  %x3s = tensor.cast %x3f : tensor<?xf32> to tensor<288xf32>
  %x3 = tensor.expand_shape %x3s [[0, 1, 2, 3]] output_shape [1, 4, 9, 8] : tensor<288xf32> into tensor<1x4x9x8xf32>
  %e3 = tensor.empty() : tensor<1x4x13x12xf32>
  %z3 = linalg.fill ins(%zero_f32 : f32) outs(%e3 : tensor<1x4x13x12xf32>) -> tensor<1x4x13x12xf32>
  %xp3 = tensor.insert_slice %x3 into %z3[0, 0, 2, 2] [1, 4, 9, 8] [1, 1, 1, 1] : tensor<1x4x9x8xf32> into tensor<1x4x13x12xf32>
  %a3 = call @in_place3(%dy3, %x3) : (tensor<1x6x5x4xf32>, tensor<1x4x9x8xf32>) -> tensor<6x2x5x5xf32>
  %b3 = call @prepadded3(%dy3, %xp3) : (tensor<1x6x5x4xf32>, tensor<1x4x13x12xf32>) -> tensor<6x2x5x5xf32>
  %a3s = tensor.collapse_shape %a3 [[0, 1, 2, 3]] : tensor<6x2x5x5xf32> into tensor<300xf32>
  %b3s = tensor.collapse_shape %b3 [[0, 1, 2, 3]] : tensor<6x2x5x5xf32> into tensor<300xf32>
  %a3f = tensor.cast %a3s : tensor<300xf32> to tensor<?xf32>
  %b3f = tensor.cast %b3s : tensor<300xf32> to tensor<?xf32>
  call @compare_f32(%a3f, %b3f) : (tensor<?xf32>, tensor<?xf32>) -> ()
  // Case 4.
  %dy4f = call @values_f32(%c128, %c5, %c7) : (index, index, index) -> tensor<?xf32>
  %dy4s = tensor.cast %dy4f : tensor<?xf32> to tensor<128xf32>
  %dy4 = tensor.expand_shape %dy4s [[0, 1, 2, 3]] output_shape [1, 2, 8, 8] : tensor<128xf32> into tensor<1x2x8x8xf32>
  %x4f = call @values_f32(%c32, %c7, %c11) : (index, index, index) -> tensor<?xf32>
  %x4s = tensor.cast %x4f : tensor<?xf32> to tensor<32xf32>
  %x4 = tensor.expand_shape %x4s [[0, 1, 2, 3]] output_shape [1, 2, 4, 4] : tensor<32xf32> into tensor<1x2x4x4xf32>
  %e4 = tensor.empty() : tensor<1x2x10x10xf32>
  %z4 = linalg.fill ins(%zero_f32 : f32) outs(%e4 : tensor<1x2x10x10xf32>) -> tensor<1x2x10x10xf32>
  %xp4 = tensor.insert_slice %x4 into %z4[0, 0, 3, 3] [1, 2, 4, 4] [1, 1, 1, 1] : tensor<1x2x4x4xf32> into tensor<1x2x10x10xf32>
  %a4 = call @in_place4(%dy4, %x4) : (tensor<1x2x8x8xf32>, tensor<1x2x4x4xf32>) -> tensor<2x2x3x3xf32>
  %b4 = call @prepadded4(%dy4, %xp4) : (tensor<1x2x8x8xf32>, tensor<1x2x10x10xf32>) -> tensor<2x2x3x3xf32>
  %a4s = tensor.collapse_shape %a4 [[0, 1, 2, 3]] : tensor<2x2x3x3xf32> into tensor<36xf32>
  %b4s = tensor.collapse_shape %b4 [[0, 1, 2, 3]] : tensor<2x2x3x3xf32> into tensor<36xf32>
  %a4f = tensor.cast %a4s : tensor<36xf32> to tensor<?xf32>
  %b4f = tensor.cast %b4s : tensor<36xf32> to tensor<?xf32>
  call @compare_f32(%a4f, %b4f) : (tensor<?xf32>, tensor<?xf32>) -> ()
  // Case 5.
  %dy5f = call @values_bf16(%c18, %c5, %c7) : (index, index, index) -> tensor<?xbf16>
  %dy5s = tensor.cast %dy5f : tensor<?xbf16> to tensor<18xbf16>
  %dy5 = tensor.expand_shape %dy5s [[0, 1, 2, 3]] output_shape [1, 3, 3, 2] : tensor<18xbf16> into tensor<1x3x3x2xbf16>
  %x5f = call @values_bf16(%c60, %c7, %c11) : (index, index, index) -> tensor<?xbf16>
  %x5s = tensor.cast %x5f : tensor<?xbf16> to tensor<60xbf16>
  %x5 = tensor.expand_shape %x5s [[0, 1, 2, 3]] output_shape [1, 2, 5, 6] : tensor<60xbf16> into tensor<1x2x5x6xbf16>
  %e5 = tensor.empty() : tensor<1x2x7x6xbf16>
  %z5 = linalg.fill ins(%zero_bf16 : bf16) outs(%e5 : tensor<1x2x7x6xbf16>) -> tensor<1x2x7x6xbf16>
  %xp5 = tensor.insert_slice %x5 into %z5[0, 0, 1, 0] [1, 2, 5, 6] [1, 1, 1, 1] : tensor<1x2x5x6xbf16> into tensor<1x2x7x6xbf16>
  %a5 = call @in_place5(%dy5, %x5) : (tensor<1x3x3x2xbf16>, tensor<1x2x5x6xbf16>) -> tensor<3x2x3x3xbf16>
  %b5 = call @prepadded5(%dy5, %xp5) : (tensor<1x3x3x2xbf16>, tensor<1x2x7x6xbf16>) -> tensor<3x2x3x3xbf16>
  %a5s = tensor.collapse_shape %a5 [[0, 1, 2, 3]] : tensor<3x2x3x3xbf16> into tensor<54xbf16>
  %b5s = tensor.collapse_shape %b5 [[0, 1, 2, 3]] : tensor<3x2x3x3xbf16> into tensor<54xbf16>
  %a5f = tensor.cast %a5s : tensor<54xbf16> to tensor<?xbf16>
  %b5f = tensor.cast %b5s : tensor<54xbf16> to tensor<?xbf16>
  call @compare_bf16(%a5f, %b5f) : (tensor<?xbf16>, tensor<?xbf16>) -> ()
  return
}
