// Executes the lowered activations and their gradients. Forward values are
// the documented formulas evaluated in f64 in Python (math.erf/tanh/exp).
// Every gradient value is dy * (f(x + h) - f(x - h)) / 2h: a central finite
// difference of the FORWARD op in f64 (h = 1e-5, random dy), i.e. dY.J of
// the true Jacobian (the generator also checked it against the closed form
// to the printed digits). bf16 values are those f64 values rounded to bf16
// (16-bit ops compute in f32 and round once). f32 values are the kernels'
// formulas evaluated step by step in f32 (numpy), asserted by the generator
// to be within 3e-6 (relative) of the f64 values above; where one f32 ulp
// changes the printed 6th digit, either printing is accepted.
// RUN: mem-opt %s --convert-train-to-linalg --memopt-lower-to-cpu \
// RUN:   | %mlir_runner -e main -entry-point-result=void %runner_libs \
// RUN:   | FileCheck %s
// The same through memopt-lower-to-gpu's kernels, run as CPU loops (every
// reduction a block reduction, matmuls through the CPU cuBLAS stand-in):
// RUN: mem-opt %s --convert-train-to-linalg %gpu_emulator \
// RUN:   | %mlir_runner -e main -entry-point-result=void %runner_libs \
// RUN:   | FileCheck %s

func.func private @printMemrefF32(tensor<*xf32>)
func.func private @printMemrefF64(tensor<*xf64>)

func.func @print_f64(%t: tensor<6xf64>) {
  %u = tensor.cast %t : tensor<6xf64> to tensor<*xf64>
  call @printMemrefF64(%u) : (tensor<*xf64>) -> ()
  return
}

func.func @print_f32(%t: tensor<6xf32>) {
  %u = tensor.cast %t : tensor<6xf32> to tensor<*xf32>
  call @printMemrefF32(%u) : (tensor<*xf32>) -> ()
  return
}

func.func @print_bf16(%t: tensor<6xbf16>) {
  %f = train.cast %t : tensor<6xbf16> -> tensor<6xf32>
  call @print_f32(%f) : (tensor<6xf32>) -> ()
  return
}

// f64
func.func @act_f64(%x: tensor<6xf64>, %up: tensor<6xf64>, %dy: tensor<6xf64>) {
  %gelu = train.gelu %x : tensor<6xf64>
  // CHECK: [-0.00936083,  -0.162503,  -0.0660573,  0.222891,  1.17416,  3.1978]
  call @print_f64(%gelu) : (tensor<6xf64>) -> ()
  %gelut = train.gelu %x {approximate} : tensor<6xf64>
  // CHECK: [-0.00888759,  -0.162638,  -0.0660575,  0.222886,  1.17393,  3.19813]
  call @print_f64(%gelut) : (tensor<6xf64>) -> ()
  %silu = train.silu %x : tensor<6xf64>
  // CHECK: [-0.170028,  -0.264941,  -0.0693855,  0.205316,  1.02159,  3.07467]
  call @print_f64(%silu) : (tensor<6xf64>) -> ()
  %swiglu = train.swiglu %x, %up : tensor<6xf64>
  // CHECK: [-0.289048,  0.119223,  -0.159587,  -0.225848,  0.612951,  -7.37921]
  call @print_f64(%swiglu) : (tensor<6xf64>) -> ()
  %relu = train.relu %x : tensor<6xf64>
  // CHECK: [0,  0,  0,  0.35,  1.3,  3.2]
  call @print_f64(%relu) : (tensor<6xf64>) -> ()
  %dgelu = train.gelu_grad %dy, %x : tensor<6xf64>
  // CHECK: [-0.00912773,  0.085063,  0.320217,  1.57474,  -0.709367,  1.49027]
  call @print_f64(%dgelu) : (tensor<6xf64>) -> ()
  %dgelut = train.gelu_grad %dy, %x {approximate} : tensor<6xf64>
  // CHECK: [-0.00912711,  0.0846332,  0.32022,  1.57464,  -0.709303,  1.48961]
  call @print_f64(%dgelut) : (tensor<6xf64>) -> ()
  %dsilu = train.silu_grad %dy, %x : tensor<6xf64>
  // CHECK: [-0.0356486,  -0.106277,  0.357235,  1.37656,  -0.632912,  1.60026]
  call @print_f64(%dsilu) : (tensor<6xf64>) -> ()
  %dgate, %dup = train.swiglu_grad %dy, %x, %up
      : tensor<6xf64>, tensor<6xf64>, tensor<6xf64> -> tensor<6xf64>, tensor<6xf64>
  // CHECK: [-0.0606026,  0.0478246,  0.821642,  -1.51421,  -0.379747,  -3.84062]
  call @print_f64(%dgate) : (tensor<6xf64>) -> ()
  // CHECK: [-0.0629104,  0.320578,  -0.0582838,  0.420898,  -0.643599,  4.55051]
  call @print_f64(%dup) : (tensor<6xf64>) -> ()
  %drelu = train.relu_grad %dy, %relu : tensor<6xf64>
  // CHECK: [0,  0,  0,  2.05,  -0.63,  1.48]
  call @print_f64(%drelu) : (tensor<6xf64>) -> ()
  return
}

// f32
func.func @act_f32(%x: tensor<6xf32>, %up: tensor<6xf32>, %dy: tensor<6xf32>) {
  %gelu = train.gelu %x : tensor<6xf32>
  // CHECK: [-0.0093608,  -0.162503,  {{(-0\.0660573|-0\.0660574)}},  0.222891,  1.17416,  3.1978]
  call @print_f32(%gelu) : (tensor<6xf32>) -> ()
  %gelut = train.gelu %x {approximate} : tensor<6xf32>
  // CHECK: [-0.00888758,  -0.162638,  -0.0660575,  0.222886,  1.17393,  3.19813]
  call @print_f32(%gelut) : (tensor<6xf32>) -> ()
  %silu = train.silu %x : tensor<6xf32>
  // CHECK: [-0.170028,  -0.264941,  -0.0693855,  0.205316,  1.02159,  3.07467]
  call @print_f32(%silu) : (tensor<6xf32>) -> ()
  %swiglu = train.swiglu %x, %up : tensor<6xf32>
  // CHECK: [-0.289048,  0.119223,  -0.159587,  -0.225848,  0.612951,  -7.37921]
  call @print_f32(%swiglu) : (tensor<6xf32>) -> ()
  %relu = train.relu %x : tensor<6xf32>
  // CHECK: [0,  0,  0,  0.35,  1.3,  3.2]
  call @print_f32(%relu) : (tensor<6xf32>) -> ()
  %dgelu = train.gelu_grad %dy, %x : tensor<6xf32>
  // CHECK: [{{(-0\.00912773|-0\.00912774)}},  0.085063,  0.320217,  1.57474,  -0.709367,  1.49027]
  call @print_f32(%dgelu) : (tensor<6xf32>) -> ()
  %dgelut = train.gelu_grad %dy, %x {approximate} : tensor<6xf32>
  // CHECK: [-0.0091271,  0.0846332,  0.32022,  1.57464,  -0.709303,  1.48961]
  call @print_f32(%dgelut) : (tensor<6xf32>) -> ()
  %dsilu = train.silu_grad %dy, %x : tensor<6xf32>
  // CHECK: [-0.0356486,  -0.106277,  0.357235,  1.37656,  -0.632912,  1.60026]
  call @print_f32(%dsilu) : (tensor<6xf32>) -> ()
  %dgate, %dup = train.swiglu_grad %dy, %x, %up
      : tensor<6xf32>, tensor<6xf32>, tensor<6xf32> -> tensor<6xf32>, tensor<6xf32>
  // CHECK: [-0.0606026,  0.0478246,  0.821642,  -1.51421,  {{(-0\.379747|-0\.379748)}},  -3.84062]
  call @print_f32(%dgate) : (tensor<6xf32>) -> ()
  // CHECK: [-0.0629104,  0.320578,  -0.0582838,  0.420898,  -0.643599,  4.55051]
  call @print_f32(%dup) : (tensor<6xf32>) -> ()
  %drelu = train.relu_grad %dy, %relu : tensor<6xf32>
  // CHECK: [0,  0,  0,  2.05,  -0.63,  1.48]
  call @print_f32(%drelu) : (tensor<6xf32>) -> ()
  return
}

// bf16 (computed in f32 for bf16)
func.func @act_bf16(%x: tensor<6xbf16>, %up: tensor<6xbf16>, %dy: tensor<6xbf16>) {
  %gelu = train.gelu %x : tensor<6xbf16>
  // CHECK: [-0.00817871,  -0.166992,  -0.0683594,  0.217773,  1.1875,  3.25]
  call @print_bf16(%gelu) : (tensor<6xbf16>) -> ()
  %gelut = train.gelu %x {approximate} : tensor<6xbf16>
  // CHECK: [-0.00772095,  -0.166992,  -0.0683594,  0.217773,  1.1875,  3.25]
  call @print_bf16(%gelut) : (tensor<6xbf16>) -> ()
  %silu = train.silu %x : tensor<6xbf16>
  // CHECK: [-0.165039,  -0.257812,  -0.0722656,  0.201172,  1.03125,  3.125]
  call @print_bf16(%silu) : (tensor<6xbf16>) -> ()
  %swiglu = train.swiglu %x, %up : tensor<6xbf16>
  // CHECK: [-0.289062,  0.112793,  -0.162109,  -0.226562,  0.644531,  -7.4375]
  call @print_bf16(%swiglu) : (tensor<6xbf16>) -> ()
  %relu = train.relu %x : tensor<6xbf16>
  // CHECK: [0,  0,  0,  0.34375,  1.3125,  3.25]
  call @print_bf16(%relu) : (tensor<6xbf16>) -> ()
  %dgelu = train.gelu_grad %dy, %x : tensor<6xbf16>
  // CHECK: [-0.00823975,  0.059082,  0.306641,  1.53125,  -0.703125,  1.50781]
  call @print_bf16(%dgelu) : (tensor<6xbf16>) -> ()
  %dgelut = train.gelu_grad %dy, %x {approximate} : tensor<6xbf16>
  // CHECK: [-0.00823975,  0.0585938,  0.306641,  1.53125,  -0.703125,  1.50781]
  call @print_bf16(%dgelut) : (tensor<6xbf16>) -> ()
  %dsilu = train.silu_grad %dy, %x : tensor<6xbf16>
  // CHECK: [-0.0356445,  -0.140625,  0.34375,  1.33594,  -0.628906,  1.61719]
  call @print_bf16(%dsilu) : (tensor<6xbf16>) -> ()
  %dgate, %dup = train.swiglu_grad %dy, %x, %up
      : tensor<6xbf16>, tensor<6xbf16>, tensor<6xbf16> -> tensor<6xbf16>, tensor<6xbf16>
  // CHECK: [-0.0625,  0.0615234,  0.773438,  -1.50781,  -0.392578,  -3.84375]
  call @print_bf16(%dgate) : (tensor<6xbf16>) -> ()
  // CHECK: [-0.0620117,  0.322266,  -0.0585938,  0.402344,  -0.644531,  4.6875]
  call @print_bf16(%dup) : (tensor<6xbf16>) -> ()
  %drelu = train.relu_grad %dy, %relu : tensor<6xbf16>
  // CHECK: [0,  0,  0,  2,  -0.625,  1.5]
  call @print_bf16(%drelu) : (tensor<6xbf16>) -> ()
  return
}

func.func @main() {
  %x = arith.constant dense<[-2.7, -0.95, -0.15, 0.35, 1.3, 3.2]> : tensor<6xf64>
  %up = arith.constant dense<[1.7, -0.45, 2.3, -1.1, 0.6, -2.4]> : tensor<6xf64>
  %dy = arith.constant dense<[0.37, -1.21, 0.84, 2.05, -0.63, 1.48]> : tensor<6xf64>
  call @act_f64(%x, %up, %dy) : (tensor<6xf64>, tensor<6xf64>, tensor<6xf64>) -> ()
  %xf = arith.constant dense<[-2.7, -0.95, -0.15, 0.35, 1.3, 3.2]> : tensor<6xf32>
  %upf = arith.constant dense<[1.7, -0.45, 2.3, -1.1, 0.6, -2.4]> : tensor<6xf32>
  %dyf = arith.constant dense<[0.37, -1.21, 0.84, 2.05, -0.63, 1.48]> : tensor<6xf32>
  call @act_f32(%xf, %upf, %dyf) : (tensor<6xf32>, tensor<6xf32>, tensor<6xf32>) -> ()
  %xb = arith.constant dense<[-2.75, -0.875, -0.15625, 0.34375, 1.3125, 3.25]> : tensor<6xbf16>
  %upb = arith.constant dense<[1.75, -0.4375, 2.25, -1.125, 0.625, -2.375]> : tensor<6xbf16>
  %dyb = arith.constant dense<[0.375, -1.25, 0.8125, 2.0, -0.625, 1.5]> : tensor<6xbf16>
  call @act_bf16(%xb, %upb, %dyb) : (tensor<6xbf16>, tensor<6xbf16>, tensor<6xbf16>) -> ()
  return
}
