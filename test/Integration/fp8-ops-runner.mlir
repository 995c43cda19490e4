// Executes the fp8 ops of delayed scaling on values whose results are
// worked out by hand in the comments (E4M3: largest finite 448 = 1.75 *
// 2^8, 3 fraction bits; E5M2: 57344 = 1.75 * 2^15).
//   train.amax_record: the history moves one place on, the amax enters at 0;
//   train.fp8_scale: the largest 2^k with amax * 2^k <= max / 2^margin, or
//     1 while the history has no positive finite amax;
//   train.quantize: x * scale rounded to nearest even, saturated; amax |x|;
//   train.scaled_matmul: the product of the dequantized operands.
// RUN: mem-opt %s --convert-train-to-linalg --memopt-lower-to-cpu \
// RUN:   | %mlir_runner -e main -entry-point-result=void %runner_libs \
// RUN:   | FileCheck %s
// RUN: mem-opt %s --convert-train-to-linalg %gpu_emulator \
// RUN:   | %mlir_runner -e main -entry-point-result=void %runner_libs \
// RUN:   | FileCheck %s

func.func @record(%a: tensor<f32>) {
  %h = train.opt_state "h" : tensor<4xf32>
  train.amax_record %a, %h : tensor<f32>, tensor<4xf32>
  return
}

func.func @history() -> tensor<4xf32> {
  %h = train.opt_state "h" : tensor<4xf32>
  %c = train.cast %h : tensor<4xf32> -> tensor<4xf64>
  %d = train.cast %c : tensor<4xf64> -> tensor<4xf32>
  return %d : tensor<4xf32>
}

// E4M3 with margins 0 and 1, and E5M2, from the same history.
func.func @scales() -> (tensor<f32>, tensor<f32>, tensor<f32>) {
  %h = train.opt_state "h" : tensor<4xf32>
  %s = train.fp8_scale %h {format = f8E4M3FN} : tensor<4xf32> -> tensor<f32>
  %m = train.fp8_scale %h {format = f8E4M3FN, margin = 1} : tensor<4xf32> -> tensor<f32>
  %e = train.fp8_scale %h {format = f8E5M2} : tensor<4xf32> -> tensor<f32>
  return %s, %m, %e : tensor<f32>, tensor<f32>, tensor<f32>
}

func.func @quantize(%x: tensor<5xf32>, %s: tensor<f32>) -> (tensor<5xf32>, tensor<f32>) {
  %q, %amax = train.quantize %x, %s : tensor<5xf32>, tensor<f32> -> tensor<5xf8E4M3FN>, tensor<f32>
  %d = train.cast %q : tensor<5xf8E4M3FN> -> tensor<5xf32>
  return %d, %amax : tensor<5xf32>, tensor<f32>
}

func.func @matmul(%a: tensor<1x2x3xbf16>, %b: tensor<3x2xf32>, %sa: tensor<f32>, %sb: tensor<f32>) -> tensor<1x2x2xf32> {
  %qa, %aa = train.quantize %a, %sa : tensor<1x2x3xbf16>, tensor<f32> -> tensor<1x2x3xf8E4M3FN>, tensor<f32>
  %qb, %ab = train.quantize %b, %sb : tensor<3x2xf32>, tensor<f32> -> tensor<3x2xf8E4M3FN>, tensor<f32>
  %c = train.scaled_matmul %qa, %qb scales(%sa, %sb : tensor<f32>, tensor<f32>) : tensor<1x2x3xf8E4M3FN>, tensor<3x2xf8E4M3FN> -> tensor<1x2x2xbf16>
  %f = train.cast %c : tensor<1x2x2xbf16> -> tensor<1x2x2xf32>
  return %f : tensor<1x2x2xf32>
}

func.func @print_scales() {
  %s, %m, %e = call @scales() : () -> (tensor<f32>, tensor<f32>, tensor<f32>)
  %st = tensor.extract %s[] : tensor<f32>
  %mt = tensor.extract %m[] : tensor<f32>
  %et = tensor.extract %e[] : tensor<f32>
  %v = tensor.from_elements %st, %mt, %et : tensor<3xf32>
  %u = tensor.cast %v : tensor<3xf32> to tensor<*xf32>
  call @printMemrefF32(%u) : (tensor<*xf32>) -> ()
  return
}

func.func @push(%v: f32) {
  %a = tensor.from_elements %v : tensor<f32>
  call @record(%a) : (tensor<f32>) -> ()
  return
}

func.func @main() {
  // Nothing recorded yet: every scale is 1.
  // CHECK: [1, 1, 1]
  call @print_scales() : () -> ()
  // amax 3 = 1.5 * 2^1: E4M3 2^7 (384 <= 448 < 768); margin 1: 2^6;
  // E5M2 2^14.
  // CHECK: [128, 64, 16384]
  %three = arith.constant 3.0 : f32
  call @push(%three) : (f32) -> ()
  call @print_scales() : () -> ()
  // amax 250 = 1.953125 * 2^7, above 1.75: E4M3 2^0 (250 * 2 > 448);
  // E5M2 2^7 (32000 <= 57344 < 64000).
  // CHECK: [1, 0.5, 128]
  %big = arith.constant 250.0 : f32
  call @push(%big) : (f32) -> ()
  call @print_scales() : () -> ()
  // Four more records push 250 and 3 out: amax 1 gives 2^8.
  // CHECK: [0.5, 1, 1, 1]
  // CHECK: [256, 128, 32768]
  %one = arith.constant 1.0 : f32
  %half = arith.constant 0.5 : f32
  call @push(%one) : (f32) -> ()
  call @push(%one) : (f32) -> ()
  call @push(%one) : (f32) -> ()
  call @push(%half) : (f32) -> ()
  %h = call @history() : () -> tensor<4xf32>
  %hu = tensor.cast %h : tensor<4xf32> to tensor<*xf32>
  call @printMemrefF32(%hu) : (tensor<*xf32>) -> ()
  call @print_scales() : () -> ()
  // A NaN amax in the history: scale 1.
  // CHECK: [1, 1, 1]
  %nan = arith.constant 0x7FC00000 : f32
  call @push(%nan) : (f32) -> ()
  call @print_scales() : () -> ()

  // Quantize at scale 1 and 4: 0.3 rounds to 0.3125 (step 1/32 in [0.25,
  // 0.5)), 1.2 to 1.25; -500 and -2000 saturate to -448; 1e-9 underflows
  // to 0 (the smallest subnormal is 2^-9). amax is |-500|.
  // CHECK: [1, 0.3125, -448, 0, 0]
  // CHECK: 500
  // CHECK: [4, 1.25, -448, 0, 0]
  %x = arith.constant dense<[1.0, 0.3, -500.0, 1.0e-9, 0.0]> : tensor<5xf32>
  %s1 = arith.constant dense<1.0> : tensor<f32>
  %s4 = arith.constant dense<4.0> : tensor<f32>
  %q1, %a1 = call @quantize(%x, %s1) : (tensor<5xf32>, tensor<f32>) -> (tensor<5xf32>, tensor<f32>)
  %q1u = tensor.cast %q1 : tensor<5xf32> to tensor<*xf32>
  call @printMemrefF32(%q1u) : (tensor<*xf32>) -> ()
  %a1u = tensor.cast %a1 : tensor<f32> to tensor<*xf32>
  call @printMemrefF32(%a1u) : (tensor<*xf32>) -> ()
  %q4, %a4 = call @quantize(%x, %s4) : (tensor<5xf32>, tensor<f32>) -> (tensor<5xf32>, tensor<f32>)
  %q4u = tensor.cast %q4 : tensor<5xf32> to tensor<*xf32>
  call @printMemrefF32(%q4u) : (tensor<*xf32>) -> ()

  // a [[1, 2, 3], [0.5, 0.3, -1]] at scale 64 (0.3 * 64 = 19.2 rounds to
  // 20: 0.3125), b [[1, 0], [1, 1], [2, -3]] at 128, exact:
  // [[9, -7], [0.5 + 0.3125 - 2, 0.3125 + 3]].
  // CHECK: {{\[}}[9,   -7],
  // CHECK-NEXT: [-1.1875,   3.3125]]
  %a = arith.constant dense<[[[1.0, 2.0, 3.0], [0.5, 0.3, -1.0]]]> : tensor<1x2x3xbf16>
  %b = arith.constant dense<[[1.0, 0.0], [1.0, 1.0], [2.0, -3.0]]> : tensor<3x2xf32>
  %sa = arith.constant dense<64.0> : tensor<f32>
  %sb = arith.constant dense<128.0> : tensor<f32>
  %c = call @matmul(%a, %b, %sa, %sb) : (tensor<1x2x3xbf16>, tensor<3x2xf32>, tensor<f32>, tensor<f32>) -> tensor<1x2x2xf32>
  %cu = tensor.cast %c : tensor<1x2x2xf32> to tensor<*xf32>
  call @printMemrefF32(%cu) : (tensor<*xf32>) -> ()
  return
}

func.func private @printMemrefF32(tensor<*xf32>)
