// Executes the lowered elementwise, cast, reduce_sum and broadcast ops. The
// expected values were computed independently (Python, exact rounding to
// bf16/f16 by round-to-nearest-even).
// RUN: mem-opt %s --convert-train-to-linalg --memopt-lower-to-cpu \
// RUN:   | %mlir_runner -e main -entry-point-result=void %runner_libs \
// RUN:   | FileCheck %s
// The same through memopt-lower-to-gpu's kernels, run as CPU loops (every
// reduction a block reduction, matmuls through the CPU cuBLAS stand-in):
// RUN: mem-opt %s --convert-train-to-linalg %gpu_emulator \
// RUN:   | %mlir_runner -e main -entry-point-result=void %runner_libs \
// RUN:   | FileCheck %s

func.func @binary(%a: tensor<4xf32>, %b: tensor<4xf32>)
    -> (tensor<4xf32>, tensor<4xf32>, tensor<4xf32>) {
  %0 = train.add %a, %b : tensor<4xf32>
  %1 = train.sub %a, %b : tensor<4xf32>
  %2 = train.mul %a, %b : tensor<4xf32>
  return %0, %1, %2 : tensor<4xf32>, tensor<4xf32>, tensor<4xf32>
}

func.func @binary_f64(%a: tensor<3xf64>, %b: tensor<3xf64>)
    -> (tensor<3xf64>, tensor<3xf64>, tensor<3xf64>) {
  %0 = train.add %a, %b : tensor<3xf64>
  %1 = train.sub %a, %b : tensor<3xf64>
  %2 = train.mul %a, %b : tensor<3xf64>
  return %0, %1, %2 : tensor<3xf64>, tensor<3xf64>, tensor<3xf64>
}

// Promote-to-widest: bf16 + f32 computes in f32 (256 + 0.5 is not a bf16);
// bf16 + f16 computes in f32; bf16 + bf16 rounds to bf16 (ties to even).
func.func @mixed(%a: tensor<4xbf16>, %b: tensor<4xf32>, %h: tensor<4xf16>,
                 %c: tensor<4xbf16>)
    -> (tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>,
        tensor<4xf32>) {
  %0 = train.add %a, %b : tensor<4xbf16>, tensor<4xf32> -> tensor<4xf32>
  %1 = train.sub %b, %a : tensor<4xf32>, tensor<4xbf16> -> tensor<4xf32>
  %2 = train.mul %h, %a : tensor<4xf16>, tensor<4xbf16> -> tensor<4xf32>
  %3 = train.add %a, %c : tensor<4xbf16>
  %4 = train.cast %3 : tensor<4xbf16> -> tensor<4xf32>
  %5 = train.mul %a, %c : tensor<4xbf16>
  %6 = train.cast %5 : tensor<4xbf16> -> tensor<4xf32>
  return %0, %1, %2, %4, %6
      : tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>,
        tensor<4xf32>
}

// scale multiplies in f32 for bf16 (PyTorch's opmath) and rounds once.
func.func @scale(%x: tensor<4xf32>, %h: tensor<3xbf16>)
    -> (tensor<4xf32>, tensor<3xf32>) {
  %0 = train.scale %x {factor = 1.250000e-01 : f64} : tensor<4xf32>
  %1 = train.scale %h {factor = 1.000000e-01 : f64} : tensor<3xbf16>
  %2 = train.cast %1 : tensor<3xbf16> -> tensor<3xf32>
  return %0, %2 : tensor<4xf32>, tensor<3xf32>
}

func.func @bias(%x: tensor<2x3x2xf32>, %b3: tensor<3xf32>, %b2: tensor<2xf32>,
                %h2: tensor<2xbf16>)
    -> (tensor<2x3x2xf32>, tensor<2x3x2xf32>, tensor<2x3x2xf32>,
        tensor<2x3x2xf32>) {
  %0 = train.bias_add %x, %b3 {dim = 1 : i64}
      : tensor<2x3x2xf32>, tensor<3xf32> -> tensor<2x3x2xf32>
  %1 = train.bias_add %x, %b2
      : tensor<2x3x2xf32>, tensor<2xf32> -> tensor<2x3x2xf32>
  %2 = train.bias_add %x, %b2 {dim = -3 : i64}
      : tensor<2x3x2xf32>, tensor<2xf32> -> tensor<2x3x2xf32>
  %3 = train.bias_add %x, %h2 {dim = -1 : i64}
      : tensor<2x3x2xf32>, tensor<2xbf16> -> tensor<2x3x2xf32>
  return %0, %1, %2, %3 : tensor<2x3x2xf32>, tensor<2x3x2xf32>,
                          tensor<2x3x2xf32>, tensor<2x3x2xf32>
}

func.func @relu(%x: tensor<5xf32>) -> tensor<5xf32> {
  %y = train.relu %x : tensor<5xf32>
  return %y : tensor<5xf32>
}

// Casts round to nearest even once: f64 -> bf16 does not round twice
// through f32 (1.0039062500000002 is just above a bf16 tie, 1 + 2^-11 +
// 2^-44 just above an f16 tie).
func.func @cast(%x: tensor<5xf32>, %d: tensor<4xf64>, %h: tensor<3xf16>)
    -> (tensor<5xf32>, tensor<5xf32>, tensor<4xf32>, tensor<4xf32>,
        tensor<3xf32>, tensor<3xf64>) {
  %b = train.cast %x : tensor<5xf32> -> tensor<5xbf16>
  %0 = train.cast %b : tensor<5xbf16> -> tensor<5xf32>
  %f = train.cast %x : tensor<5xf32> -> tensor<5xf16>
  %1 = train.cast %f : tensor<5xf16> -> tensor<5xf32>
  %db = train.cast %d : tensor<4xf64> -> tensor<4xbf16>
  %2 = train.cast %db : tensor<4xbf16> -> tensor<4xf32>
  %dh = train.cast %d : tensor<4xf64> -> tensor<4xf16>
  %3 = train.cast %dh : tensor<4xf16> -> tensor<4xf32>
  %hb = train.cast %h : tensor<3xf16> -> tensor<3xbf16>
  %4 = train.cast %hb : tensor<3xbf16> -> tensor<3xf32>
  %5 = train.cast %h : tensor<3xf16> -> tensor<3xf64>
  return %0, %1, %2, %3, %4, %5 : tensor<5xf32>, tensor<5xf32>, tensor<4xf32>,
                                  tensor<4xf32>, tensor<3xf32>, tensor<3xf64>
}

func.func @reduce(%x: tensor<2x3x4xf32>, %h: tensor<4x2xbf16>)
    -> (tensor<3xf32>, tensor<2x4xf32>, tensor<f32>, tensor<2xf32>) {
  %0 = train.reduce_sum %x {dims = array<i64: 0, 2>}
      : tensor<2x3x4xf32> -> tensor<3xf32>
  %1 = train.reduce_sum %x {dims = array<i64: 1>}
      : tensor<2x3x4xf32> -> tensor<2x4xf32>
  %2 = train.reduce_sum %x {dims = array<i64: 0, 1, 2>}
      : tensor<2x3x4xf32> -> tensor<f32>
  // bf16 sums accumulate in f32: 1 + 3 * 2^-8 then one rounding gives
  // 1.015625, where a bf16 accumulator would stay at 1.
  %3 = train.reduce_sum %h {dims = array<i64: 0>}
      : tensor<4x2xbf16> -> tensor<2xbf16>
  %4 = train.cast %3 : tensor<2xbf16> -> tensor<2xf32>
  return %0, %1, %2, %4
      : tensor<3xf32>, tensor<2x4xf32>, tensor<f32>, tensor<2xf32>
}

func.func @broadcast(%v: tensor<2xf32>, %m: tensor<2x3xf32>)
    -> (tensor<2x3xf32>, tensor<3x2xf32>, tensor<2x2x3xf32>) {
  %0 = train.broadcast %v {dims = array<i64: 1>}
      : tensor<2xf32> -> tensor<2x3xf32>
  %1 = train.broadcast %v {dims = array<i64: 0>}
      : tensor<2xf32> -> tensor<3x2xf32>
  %2 = train.broadcast %m {dims = array<i64: 1>}
      : tensor<2x3xf32> -> tensor<2x2x3xf32>
  return %0, %1, %2 : tensor<2x3xf32>, tensor<3x2xf32>, tensor<2x2x3xf32>
}

func.func private @printMemrefF32(tensor<*xf32>)
func.func private @printMemrefF64(tensor<*xf64>)

func.func @main() {
  %a = arith.constant dense<[1.5, -2.25, 3.0, 0.1]> : tensor<4xf32>
  %b = arith.constant dense<[0.5, 4.0, -1.25, 0.2]> : tensor<4xf32>
  %r:3 = call @binary(%a, %b)
      : (tensor<4xf32>, tensor<4xf32>) -> (tensor<4xf32>, tensor<4xf32>, tensor<4xf32>)
  %r0 = tensor.cast %r#0 : tensor<4xf32> to tensor<*xf32>
  %r1 = tensor.cast %r#1 : tensor<4xf32> to tensor<*xf32>
  %r2 = tensor.cast %r#2 : tensor<4xf32> to tensor<*xf32>
  // CHECK: [2,  1.75,  1.75,  0.3]
  call @printMemrefF32(%r0) : (tensor<*xf32>) -> ()
  // CHECK: [1,  -6.25,  4.25,  -0.1]
  call @printMemrefF32(%r1) : (tensor<*xf32>) -> ()
  // CHECK: [0.75,  -9,  -3.75,  0.02]
  call @printMemrefF32(%r2) : (tensor<*xf32>) -> ()

  %da = arith.constant dense<[1.0e10, -3.5, 0.125]> : tensor<3xf64>
  %db = arith.constant dense<[1.0e-6, 2.0, -8.0]> : tensor<3xf64>
  %d:3 = call @binary_f64(%da, %db)
      : (tensor<3xf64>, tensor<3xf64>) -> (tensor<3xf64>, tensor<3xf64>, tensor<3xf64>)
  %d0 = tensor.cast %d#0 : tensor<3xf64> to tensor<*xf64>
  %d1 = tensor.cast %d#1 : tensor<3xf64> to tensor<*xf64>
  %d2 = tensor.cast %d#2 : tensor<3xf64> to tensor<*xf64>
  // CHECK: [1e+10,  -1.5,  -7.875]
  call @printMemrefF64(%d0) : (tensor<*xf64>) -> ()
  // CHECK: [1e+10,  -5.5,  8.125]
  call @printMemrefF64(%d1) : (tensor<*xf64>) -> ()
  // CHECK: [10000,  -7,  -1]
  call @printMemrefF64(%d2) : (tensor<*xf64>) -> ()

  %ma = arith.constant dense<[1.5, -0.75, 256.0, 1.0]> : tensor<4xbf16>
  %mb = arith.constant dense<[0.001, 1.0e-3, 0.5, 2.0]> : tensor<4xf32>
  %mh = arith.constant dense<[0.0009765625, 3.0, 0.5, 1.5]> : tensor<4xf16>
  %mc = arith.constant dense<[1.0, 0.01171875, 0.0078125, 0.00390625]> : tensor<4xbf16>
  %m:5 = call @mixed(%ma, %mb, %mh, %mc)
      : (tensor<4xbf16>, tensor<4xf32>, tensor<4xf16>, tensor<4xbf16>)
      -> (tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>)
  %m0 = tensor.cast %m#0 : tensor<4xf32> to tensor<*xf32>
  %m1 = tensor.cast %m#1 : tensor<4xf32> to tensor<*xf32>
  %m2 = tensor.cast %m#2 : tensor<4xf32> to tensor<*xf32>
  %m3 = tensor.cast %m#3 : tensor<4xf32> to tensor<*xf32>
  %m4 = tensor.cast %m#4 : tensor<4xf32> to tensor<*xf32>
  // CHECK: [1.501,  -0.749,  256.5,  3]
  call @printMemrefF32(%m0) : (tensor<*xf32>) -> ()
  // CHECK: [-1.499,  0.751,  -255.5,  1]
  call @printMemrefF32(%m1) : (tensor<*xf32>) -> ()
  // CHECK: [0.00146484,  -2.25,  128,  1.5]
  call @printMemrefF32(%m2) : (tensor<*xf32>) -> ()
  // CHECK: [2.5,  -0.738281,  256,  1]
  call @printMemrefF32(%m3) : (tensor<*xf32>) -> ()
  // CHECK: [1.5,  -0.00878906,  2,  0.00390625]
  call @printMemrefF32(%m4) : (tensor<*xf32>) -> ()

  %sx = arith.constant dense<[8.0, -3.0, 0.5, 1.0e-3]> : tensor<4xf32>
  %sh = arith.constant dense<[10.0, 3.0, -0.5]> : tensor<3xbf16>
  %s:2 = call @scale(%sx, %sh)
      : (tensor<4xf32>, tensor<3xbf16>) -> (tensor<4xf32>, tensor<3xf32>)
  %s0 = tensor.cast %s#0 : tensor<4xf32> to tensor<*xf32>
  %s1 = tensor.cast %s#1 : tensor<3xf32> to tensor<*xf32>
  // CHECK: [1,  -0.375,  0.0625,  0.000125]
  call @printMemrefF32(%s0) : (tensor<*xf32>) -> ()
  // CHECK: [1,  0.300781,  -0.0500488]
  call @printMemrefF32(%s1) : (tensor<*xf32>) -> ()

  %x = arith.constant dense<[[[0.0, 1.0], [2.0, 3.0], [4.0, 5.0]],
                             [[6.0, 7.0], [8.0, 9.0], [10.0, 11.0]]]> : tensor<2x3x2xf32>
  %b3 = arith.constant dense<[100.0, 200.0, 300.0]> : tensor<3xf32>
  %b2 = arith.constant dense<[0.5, -0.5]> : tensor<2xf32>
  %h2 = arith.constant dense<[1000.0, 2000.0]> : tensor<2xbf16>
  %ba:4 = call @bias(%x, %b3, %b2, %h2)
      : (tensor<2x3x2xf32>, tensor<3xf32>, tensor<2xf32>, tensor<2xbf16>)
      -> (tensor<2x3x2xf32>, tensor<2x3x2xf32>, tensor<2x3x2xf32>, tensor<2x3x2xf32>)
  %ba0 = tensor.cast %ba#0 : tensor<2x3x2xf32> to tensor<*xf32>
  %ba1 = tensor.cast %ba#1 : tensor<2x3x2xf32> to tensor<*xf32>
  %ba2 = tensor.cast %ba#2 : tensor<2x3x2xf32> to tensor<*xf32>
  %ba3 = tensor.cast %ba#3 : tensor<2x3x2xf32> to tensor<*xf32>
  // CHECK: {{\[}}{{\[}}[100,    101],
  // CHECK-NEXT: [202,    203],
  // CHECK-NEXT: [304,    305]],
  // CHECK-NEXT: {{\[}}[106,    107],
  // CHECK-NEXT: [208,    209],
  // CHECK-NEXT: [310,    311]]]
  call @printMemrefF32(%ba0) : (tensor<*xf32>) -> ()
  // CHECK: {{\[}}{{\[}}[0.5,    0.5],
  // CHECK-NEXT: [2.5,    2.5],
  // CHECK-NEXT: [4.5,    4.5]],
  // CHECK-NEXT: {{\[}}[6.5,    6.5],
  // CHECK-NEXT: [8.5,    8.5],
  // CHECK-NEXT: [10.5,    10.5]]]
  call @printMemrefF32(%ba1) : (tensor<*xf32>) -> ()
  // CHECK: {{\[}}{{\[}}[0.5,    1.5],
  // CHECK-NEXT: [2.5,    3.5],
  // CHECK-NEXT: [4.5,    5.5]],
  // CHECK-NEXT: {{\[}}[5.5,    6.5],
  // CHECK-NEXT: [7.5,    8.5],
  // CHECK-NEXT: [9.5,    10.5]]]
  call @printMemrefF32(%ba2) : (tensor<*xf32>) -> ()
  // CHECK: {{\[}}{{\[}}[1000,    2001],
  // CHECK-NEXT: [1002,    2003],
  // CHECK-NEXT: [1004,    2005]],
  // CHECK-NEXT: {{\[}}[1006,    2007],
  // CHECK-NEXT: [1008,    2009],
  // CHECK-NEXT: [1010,    2011]]]
  call @printMemrefF32(%ba3) : (tensor<*xf32>) -> ()

  %rx = arith.constant dense<[-1.0, 2.0, -3.0, 4.5, 0.0]> : tensor<5xf32>
  %ry = call @relu(%rx) : (tensor<5xf32>) -> tensor<5xf32>
  %ru = tensor.cast %ry : tensor<5xf32> to tensor<*xf32>
  // CHECK: [0,  2,  0,  4.5,  0]
  call @printMemrefF32(%ru) : (tensor<*xf32>) -> ()

  %cx = arith.constant dense<[1.00390625, 1.01171875, 1.00048828125, 1.00146484375, 70000.0]> : tensor<5xf32>
  %cd = arith.constant dense<[1.0039062500000002, 1.0039062499999998, 0.1, 1.0004882812500568]> : tensor<4xf64>
  %ch = arith.constant dense<[1.0009765625, 1.005859375, -65504.0]> : tensor<3xf16>
  %c:6 = call @cast(%cx, %cd, %ch)
      : (tensor<5xf32>, tensor<4xf64>, tensor<3xf16>)
      -> (tensor<5xf32>, tensor<5xf32>, tensor<4xf32>, tensor<4xf32>, tensor<3xf32>, tensor<3xf64>)
  %c0 = tensor.cast %c#0 : tensor<5xf32> to tensor<*xf32>
  %c1 = tensor.cast %c#1 : tensor<5xf32> to tensor<*xf32>
  %c2 = tensor.cast %c#2 : tensor<4xf32> to tensor<*xf32>
  %c3 = tensor.cast %c#3 : tensor<4xf32> to tensor<*xf32>
  %c4 = tensor.cast %c#4 : tensor<3xf32> to tensor<*xf32>
  %c5 = tensor.cast %c#5 : tensor<3xf64> to tensor<*xf64>
  // CHECK: [1,  1.01562,  1,  1,  70144]
  call @printMemrefF32(%c0) : (tensor<*xf32>) -> ()
  // CHECK: [1.00391,  1.01172,  1,  1.00195,  inf]
  call @printMemrefF32(%c1) : (tensor<*xf32>) -> ()
  // CHECK: [1.00781,  1,  0.100098,  1]
  call @printMemrefF32(%c2) : (tensor<*xf32>) -> ()
  // CHECK: [1.00391,  1.00391,  0.0999756,  1.00098]
  call @printMemrefF32(%c3) : (tensor<*xf32>) -> ()
  // CHECK: [1,  1.00781,  -65536]
  call @printMemrefF32(%c4) : (tensor<*xf32>) -> ()
  // CHECK: [1.00098,  1.00586,  -65504]
  call @printMemrefF64(%c5) : (tensor<*xf64>) -> ()

  %rdx = arith.constant dense<[[[1.0, 2.0, 3.0, 4.0], [5.0, 6.0, 7.0, 8.0], [9.0, 10.0, 11.0, 12.0]],
                               [[0.5, 0.25, 0.125, 0.0625], [-1.0, -2.0, -3.0, -4.0], [100.0, 0.0, 0.0, 0.0]]]> : tensor<2x3x4xf32>
  %rdh = arith.constant dense<[[1.0, 2.0], [0.00390625, 0.0078125], [0.00390625, 0.0078125], [0.00390625, 0.0078125]]> : tensor<4x2xbf16>
  %rd:4 = call @reduce(%rdx, %rdh)
      : (tensor<2x3x4xf32>, tensor<4x2xbf16>) -> (tensor<3xf32>, tensor<2x4xf32>, tensor<f32>, tensor<2xf32>)
  %rd0 = tensor.cast %rd#0 : tensor<3xf32> to tensor<*xf32>
  %rd1 = tensor.cast %rd#1 : tensor<2x4xf32> to tensor<*xf32>
  %rd2 = tensor.cast %rd#2 : tensor<f32> to tensor<*xf32>
  %rd3 = tensor.cast %rd#3 : tensor<2xf32> to tensor<*xf32>
  // CHECK: [10.9375,  16,  142]
  call @printMemrefF32(%rd0) : (tensor<*xf32>) -> ()
  // CHECK: {{\[}}[15,   18,   21,   24],
  // CHECK-NEXT: [99.5,   -1.75,   -2.875,   -3.9375]]
  call @printMemrefF32(%rd1) : (tensor<*xf32>) -> ()
  // CHECK: [168.938]
  call @printMemrefF32(%rd2) : (tensor<*xf32>) -> ()
  // CHECK: [1.01562,  2.03125]
  call @printMemrefF32(%rd3) : (tensor<*xf32>) -> ()

  %bv = arith.constant dense<[1.5, -2.0]> : tensor<2xf32>
  %bm = arith.constant dense<[[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]]> : tensor<2x3xf32>
  %bc:3 = call @broadcast(%bv, %bm)
      : (tensor<2xf32>, tensor<2x3xf32>) -> (tensor<2x3xf32>, tensor<3x2xf32>, tensor<2x2x3xf32>)
  %bc0 = tensor.cast %bc#0 : tensor<2x3xf32> to tensor<*xf32>
  %bc1 = tensor.cast %bc#1 : tensor<3x2xf32> to tensor<*xf32>
  %bc2 = tensor.cast %bc#2 : tensor<2x2x3xf32> to tensor<*xf32>
  // CHECK: {{\[}}[1.5,   1.5,   1.5],
  // CHECK-NEXT: [-2,   -2,   -2]]
  call @printMemrefF32(%bc0) : (tensor<*xf32>) -> ()
  // CHECK: {{\[}}[1.5,   -2],
  // CHECK-NEXT: [1.5,   -2],
  // CHECK-NEXT: [1.5,   -2]]
  call @printMemrefF32(%bc1) : (tensor<*xf32>) -> ()
  // CHECK: {{\[}}{{\[}}[1,    2,    3],
  // CHECK-NEXT: [1,    2,    3]],
  // CHECK-NEXT: {{\[}}[4,    5,    6],
  // CHECK-NEXT: [4,    5,    6]]]
  call @printMemrefF32(%bc2) : (tensor<*xf32>) -> ()
  return
}
