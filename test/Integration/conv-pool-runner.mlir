// Executes max_pool2d, avg_pool2d and their gradients on the CPU.
// Expected values were computed independently in f64 with numpy: forwards
// from the documented window formulas (padding is -inf for max, 0 and
// counted for avg), gradients by central finite differences of
// sum(dy * pool(x)) with a random dy. Where a max window has ties the
// gradient is not defined; there the expected values follow PyTorch's CPU
// rule (dy goes to the first maximum in row-major window order).
// RUN: mem-opt %s --convert-train-to-linalg --memopt-lower-to-cpu \
// RUN:   | %mlir_runner -e main -entry-point-result=void %runner_libs \
// RUN:   | FileCheck %s
// The same through memopt-lower-to-gpu's kernels, run as CPU loops (every
// reduction a block reduction, matmuls through the CPU cuBLAS stand-in):
// RUN: mem-opt %s --convert-train-to-linalg %gpu_emulator \
// RUN:   | %mlir_runner -e main -entry-point-result=void %runner_libs \
// RUN:   | FileCheck %s

func.func @max_f32(%x: tensor<1x2x5x5xf32>) -> tensor<1x2x3x3xf32> {
  %r = train.max_pool2d %x {kernel = array<i64: 3, 3>, strides = array<i64: 2, 2>, padding = array<i64: 1, 1>}
      : tensor<1x2x5x5xf32> -> tensor<1x2x3x3xf32>
  return %r : tensor<1x2x3x3xf32>
}

func.func @max_f32_grad(%dy: tensor<1x2x3x3xf32>, %x: tensor<1x2x5x5xf32>) -> tensor<1x2x5x5xf32> {
  %r = train.max_pool2d_grad %dy, %x {kernel = array<i64: 3, 3>, strides = array<i64: 2, 2>, padding = array<i64: 1, 1>}
      : tensor<1x2x3x3xf32>, tensor<1x2x5x5xf32> -> tensor<1x2x5x5xf32>
  return %r : tensor<1x2x5x5xf32>
}

func.func @max_f64(%x: tensor<2x1x4x6xf64>) -> tensor<2x1x4x3xf64> {
  %r = train.max_pool2d %x {kernel = array<i64: 3, 2>, strides = array<i64: 1, 2>, padding = array<i64: 1, 0>}
      : tensor<2x1x4x6xf64> -> tensor<2x1x4x3xf64>
  return %r : tensor<2x1x4x3xf64>
}

func.func @max_f64_grad(%dy: tensor<2x1x4x3xf64>, %x: tensor<2x1x4x6xf64>) -> tensor<2x1x4x6xf64> {
  %r = train.max_pool2d_grad %dy, %x {kernel = array<i64: 3, 2>, strides = array<i64: 1, 2>, padding = array<i64: 1, 0>}
      : tensor<2x1x4x3xf64>, tensor<2x1x4x6xf64> -> tensor<2x1x4x6xf64>
  return %r : tensor<2x1x4x6xf64>
}

func.func @max_bf16(%x: tensor<1x2x4x4xbf16>) -> tensor<1x2x2x2xf32> {
  %r = train.max_pool2d %x {kernel = array<i64: 2, 2>, strides = array<i64: 2, 2>, padding = array<i64: 0, 0>}
      : tensor<1x2x4x4xbf16> -> tensor<1x2x2x2xbf16>
  %e = tensor.empty() : tensor<1x2x2x2xf32>
  %wide = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>, affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>], iterator_types = ["parallel", "parallel", "parallel", "parallel"]}
      ins(%r : tensor<1x2x2x2xbf16>) outs(%e : tensor<1x2x2x2xf32>) {
    ^bb0(%in: bf16, %out: f32):
      %f = arith.extf %in : bf16 to f32
      linalg.yield %f : f32
    } -> tensor<1x2x2x2xf32>
  return %wide : tensor<1x2x2x2xf32>
}

func.func @max_bf16_grad(%dy: tensor<1x2x2x2xbf16>, %x: tensor<1x2x4x4xbf16>) -> tensor<1x2x4x4xf32> {
  %r = train.max_pool2d_grad %dy, %x {kernel = array<i64: 2, 2>, strides = array<i64: 2, 2>, padding = array<i64: 0, 0>}
      : tensor<1x2x2x2xbf16>, tensor<1x2x4x4xbf16> -> tensor<1x2x4x4xbf16>
  %e = tensor.empty() : tensor<1x2x4x4xf32>
  %wide = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>, affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>], iterator_types = ["parallel", "parallel", "parallel", "parallel"]}
      ins(%r : tensor<1x2x4x4xbf16>) outs(%e : tensor<1x2x4x4xf32>) {
    ^bb0(%in: bf16, %out: f32):
      %f = arith.extf %in : bf16 to f32
      linalg.yield %f : f32
    } -> tensor<1x2x4x4xf32>
  return %wide : tensor<1x2x4x4xf32>
}

func.func @avg_f64(%x: tensor<1x2x5x5xf64>) -> tensor<1x2x3x3xf64> {
  %r = train.avg_pool2d %x {kernel = array<i64: 3, 3>, strides = array<i64: 2, 2>, padding = array<i64: 1, 1>}
      : tensor<1x2x5x5xf64> -> tensor<1x2x3x3xf64>
  return %r : tensor<1x2x3x3xf64>
}

func.func @avg_f64_grad(%dy: tensor<1x2x3x3xf64>) -> tensor<1x2x5x5xf64> {
  %r = train.avg_pool2d_grad %dy {kernel = array<i64: 3, 3>, strides = array<i64: 2, 2>, padding = array<i64: 1, 1>}
      : tensor<1x2x3x3xf64> -> tensor<1x2x5x5xf64>
  return %r : tensor<1x2x5x5xf64>
}

func.func @avg_f32(%x: tensor<2x1x4x6xf32>) -> tensor<2x1x5x2xf32> {
  %r = train.avg_pool2d %x {kernel = array<i64: 2, 3>, strides = array<i64: 1, 2>, padding = array<i64: 1, 0>}
      : tensor<2x1x4x6xf32> -> tensor<2x1x5x2xf32>
  return %r : tensor<2x1x5x2xf32>
}

func.func @avg_f32_grad(%dy: tensor<2x1x5x2xf32>) -> tensor<2x1x4x6xf32> {
  %r = train.avg_pool2d_grad %dy {kernel = array<i64: 2, 3>, strides = array<i64: 1, 2>, padding = array<i64: 1, 0>}
      : tensor<2x1x5x2xf32> -> tensor<2x1x4x6xf32>
  return %r : tensor<2x1x4x6xf32>
}

func.func @avg_bf16(%x: tensor<1x1x4x4xbf16>) -> tensor<1x1x4x4xf32> {
  %r = train.avg_pool2d %x {kernel = array<i64: 3, 3>, strides = array<i64: 1, 1>, padding = array<i64: 1, 1>}
      : tensor<1x1x4x4xbf16> -> tensor<1x1x4x4xbf16>
  %e = tensor.empty() : tensor<1x1x4x4xf32>
  %wide = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>, affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>], iterator_types = ["parallel", "parallel", "parallel", "parallel"]}
      ins(%r : tensor<1x1x4x4xbf16>) outs(%e : tensor<1x1x4x4xf32>) {
    ^bb0(%in: bf16, %out: f32):
      %f = arith.extf %in : bf16 to f32
      linalg.yield %f : f32
    } -> tensor<1x1x4x4xf32>
  return %wide : tensor<1x1x4x4xf32>
}

func.func @avg_bf16_grad(%dy: tensor<1x1x4x4xbf16>) -> tensor<1x1x4x4xf32> {
  %r = train.avg_pool2d_grad %dy {kernel = array<i64: 3, 3>, strides = array<i64: 1, 1>, padding = array<i64: 1, 1>}
      : tensor<1x1x4x4xbf16> -> tensor<1x1x4x4xbf16>
  %e = tensor.empty() : tensor<1x1x4x4xf32>
  %wide = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>, affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>], iterator_types = ["parallel", "parallel", "parallel", "parallel"]}
      ins(%r : tensor<1x1x4x4xbf16>) outs(%e : tensor<1x1x4x4xf32>) {
    ^bb0(%in: bf16, %out: f32):
      %f = arith.extf %in : bf16 to f32
      linalg.yield %f : f32
    } -> tensor<1x1x4x4xf32>
  return %wide : tensor<1x1x4x4xf32>
}

func.func @max_nan(%x: tensor<1x1x4x4xf32>) -> tensor<1x1x2x2xf32> {
  %r = train.max_pool2d %x {kernel = array<i64: 2, 2>, strides = array<i64: 2, 2>, padding = array<i64: 0, 0>}
      : tensor<1x1x4x4xf32> -> tensor<1x1x2x2xf32>
  return %r : tensor<1x1x2x2xf32>
}

func.func @max_nan_grad(%dy: tensor<1x1x2x2xf32>, %x: tensor<1x1x4x4xf32>) -> tensor<1x1x4x4xf32> {
  %r = train.max_pool2d_grad %dy, %x {kernel = array<i64: 2, 2>, strides = array<i64: 2, 2>, padding = array<i64: 0, 0>}
      : tensor<1x1x2x2xf32>, tensor<1x1x4x4xf32> -> tensor<1x1x4x4xf32>
  return %r : tensor<1x1x4x4xf32>
}

func.func private @printMemrefF32(tensor<*xf32>)
func.func private @printMemrefF64(tensor<*xf64>)

func.func @main() {

  // max, f32: 3x3 windows, strides 2, padding 1 (windows overlap).
  // Channel 1 is all negative with tied maxima.
  %c1 = arith.constant dense<[[[[-0.7699999809265137, 0.8299999833106995, 0.09000000357627869, -0.10999999940395355, 0.7099999785423279], [1.0, -0.27000001072883606, -0.7799999713897705, 0.8399999737739563, -0.7300000190734863], [0.20999999344348907, 0.029999999329447746, -0.25, -0.8700000047683716, -0.7599999904632568], [-0.949999988079071, 0.7400000095367432, 0.05999999865889549, 0.8999999761581421, -0.7099999785423279], [0.41999998688697815, 0.9399999976158142, 0.30000001192092896, 0.019999999552965164, 0.44999998807907104]], [[-0.5, -0.25, -0.75, -0.25, -0.5], [-0.25, -1.0, -0.25, -1.25, -0.75], [-0.75, -0.5, -0.5, -0.5, -0.25], [-1.25, -0.5, -1.5, -1.0, -1.0], [-0.25, -1.75, -0.25, -0.75, -0.25]]]]> : tensor<1x2x5x5xf32>
  %c2 = arith.constant dense<[[[[0.18000000715255737, -0.5299999713897705, 0.6000000238418579], [0.7300000190734863, -0.7400000095367432, -0.07000000029802322], [-0.44999998807907104, -0.8299999833106995, 0.7900000214576721]], [[-0.14000000059604645, -0.699999988079071, 0.3499999940395355], [-0.6000000238418579, 0.800000011920929, -0.5699999928474426], [-0.9300000071525574, -0.6000000238418579, -0.3100000023841858]]]]> : tensor<1x2x3x3xf32>
  %r3 = call @max_f32(%c1) : (tensor<1x2x5x5xf32>) -> (tensor<1x2x3x3xf32>)
  %u4 = tensor.cast %r3 : tensor<1x2x3x3xf32> to tensor<*xf32>
  call @printMemrefF32(%u4) : (tensor<*xf32>) -> ()
  // CHECK: rank = 4 offset = 0 sizes = [1, 2, 3, 3] strides = [18, 9, 3, 1] data =
  // CHECK-NEXT: [{{(0\.999999|1)}}, {{(0\.839999|0\.84|0\.840001)}}, {{(0\.839999|0\.84|0\.840001)}}]
  // CHECK-NEXT: [{{(0\.999999|1)}}, {{(0\.899999|0\.9|0\.900001)}}, {{(0\.899999|0\.9|0\.900001)}}]
  // CHECK-NEXT: [{{(0\.939999|0\.94|0\.940001)}}, {{(0\.939999|0\.94|0\.940001)}}, {{(0\.899999|0\.9|0\.900001)}}]
  // CHECK-NEXT: [-0.25, -0.25, -0.25]
  // CHECK-NEXT: [-0.25, -0.25, -0.25]
  // CHECK-NEXT: [-0.25, -0.25, -0.25]
  %r5 = call @max_f32_grad(%c2, %c1) : (tensor<1x2x3x3xf32>, tensor<1x2x5x5xf32>) -> (tensor<1x2x5x5xf32>)
  %u6 = tensor.cast %r5 : tensor<1x2x5x5xf32> to tensor<*xf32>
  call @printMemrefF32(%u6) : (tensor<*xf32>) -> ()
  // CHECK: rank = 4 offset = 0 sizes = [1, 2, 5, 5] strides = [50, 25, 5, 1] data =
  // CHECK-NEXT: [{{-?0}}, {{-?0}}, {{-?0}}, {{-?0}}, {{-?0}}]
  // CHECK-NEXT: [{{(0\.909999|0\.91|0\.910001)}}, {{-?0}}, {{-?0}}, {{(0\.07|0\.0700001)}}, {{-?0}}]
  // CHECK-NEXT: [{{-?0}}, {{-?0}}, {{-?0}}, {{-?0}}, {{-?0}}]
  // CHECK-NEXT: [{{-?0}}, {{-?0}}, {{-?0}}, -0.02, {{-?0}}]
  // CHECK-NEXT: [{{-?0}}, -1.28, {{-?0}}, {{-?0}}, {{-?0}}]
  // CHECK-NEXT: [{{-?0}}, {{(-0\.839999|-0\.84|-0\.840001)}}, {{-?0}}, 0.35, {{-?0}}]
  // CHECK-NEXT: [{{(-0\.599999|-0\.6|-0\.600001)}}, {{-?0}}, {{(0\.799999|0\.8|0\.800001)}}, {{-?0}}, {{-?0}}]
  // CHECK-NEXT: [{{-?0}}, {{-?0}}, {{-?0}}, {{-?0}}, {{(-0\.569999|-0\.57|-0\.570001)}}]
  // CHECK-NEXT: [{{-?0}}, {{-?0}}, {{-?0}}, {{-?0}}, {{-?0}}]
  // CHECK-NEXT: [{{(-0\.929999|-0\.93|-0\.930001)}}, {{-?0}}, {{(-0\.599999|-0\.6|-0\.600001)}}, {{-?0}}, -0.31]

  // max, f64: 3x2 windows, strides (1, 2), padding (1, 0).
  %c7 = arith.constant dense<[[[[0.85, -0.76, -0.17, 0.96, 0.67, 0.44], [-0.22, 0.27, 0.91, -0.06, 0.61, -0.44], [-0.74, 0.43, 0.18, -0.85, -0.42, -0.1], [0.05, -0.96, -0.98, -0.61, -0.68, -0.01]]], [[[-0.67, -0.95, 0.9, -1.0, 0.48, -0.13], [0.7, 0.45, -0.5, -0.46, 0.5, -0.47], [-0.87, 0.2, -0.91, -0.84, 0.4, 0.12], [-0.43, 0.46, -0.99, -0.97, 0.11, -0.27]]]]> : tensor<2x1x4x6xf64>
  %c8 = arith.constant dense<[[[[-0.51, 0.69, 0.48], [0.09, 0.32, 0.38], [0.56, 0.86, -0.7], [0.25, -0.71, -0.11]]], [[[0.57, 0.79, 0.52], [-0.93, -0.28, -0.67], [1.0, -0.71, -0.51], [-0.29, -0.88, 0.74]]]]> : tensor<2x1x4x3xf64>
  %r9 = call @max_f64(%c7) : (tensor<2x1x4x6xf64>) -> (tensor<2x1x4x3xf64>)
  %u10 = tensor.cast %r9 : tensor<2x1x4x3xf64> to tensor<*xf64>
  call @printMemrefF64(%u10) : (tensor<*xf64>) -> ()
  // CHECK: rank = 4 offset = 0 sizes = [2, 1, 4, 3] strides = [12, 12, 3, 1] data =
  // CHECK-NEXT: [0.85, 0.96, 0.67]
  // CHECK-NEXT: [0.85, 0.96, 0.67]
  // CHECK-NEXT: [0.43, 0.91, 0.61]
  // CHECK-NEXT: [0.43, 0.18, -0.01]
  // CHECK-NEXT: [0.7, 0.9, 0.5]
  // CHECK-NEXT: [0.7, 0.9, 0.5]
  // CHECK-NEXT: [0.7, -0.46, 0.5]
  // CHECK-NEXT: [0.46, -0.84, 0.4]
  %r11 = call @max_f64_grad(%c8, %c7) : (tensor<2x1x4x3xf64>, tensor<2x1x4x6xf64>) -> (tensor<2x1x4x6xf64>)
  %u12 = tensor.cast %r11 : tensor<2x1x4x6xf64> to tensor<*xf64>
  call @printMemrefF64(%u12) : (tensor<*xf64>) -> ()
  // CHECK: rank = 4 offset = 0 sizes = [2, 1, 4, 6] strides = [24, 24, 6, 1] data =
  // CHECK-NEXT: [-0.42, {{-?0}}, {{-?0}}, 1.01, 0.86, {{-?0}}]
  // CHECK-NEXT: [{{-?0}}, {{-?0}}, 0.86, {{-?0}}, -0.7, {{-?0}}]
  // CHECK-NEXT: [{{-?0}}, 0.81, -0.71, {{-?0}}, {{-?0}}, {{-?0}}]
  // CHECK-NEXT: [{{-?0}}, {{-?0}}, {{-?0}}, {{-?0}}, {{-?0}}, -0.11]
  // CHECK-NEXT: [{{-?0}}, {{-?0}}, 0.51, {{-?0}}, {{-?0}}, {{-?0}}]
  // CHECK-NEXT: [0.64, {{-?0}}, {{-?0}}, -0.71, -0.66, {{-?0}}]
  // CHECK-NEXT: [{{-?0}}, {{-?0}}, {{-?0}}, -0.88, 0.74, {{-?0}}]
  // CHECK-NEXT: [{{-?0}}, -0.29, {{-?0}}, {{-?0}}, {{-?0}}, {{-?0}}]

  // max, bf16: 2x2 windows, strides 2.
  %c13 = arith.constant dense<[[[[-0.875, -0.25, -1.25, -1.75], [1.875, -0.75, 0.375, 0.625], [-2.0, -0.625, 1.5, -1.875], [-1.625, -1.375, 1.625, 0.0]], [[-0.375, -0.5, 0.875, 0.125], [1.75, -1.5, -0.125, 1.375], [1.125, -1.0, 1.0, 0.75], [1.25, 0.25, -1.125, 0.5]]]]> : tensor<1x2x4x4xbf16>
  %c14 = arith.constant dense<[[[[-4.0, 4.0], [1.0, 2.0]], [[4.0, -1.0], [4.0, -1.0]]]]> : tensor<1x2x2x2xbf16>
  %r15 = call @max_bf16(%c13) : (tensor<1x2x4x4xbf16>) -> (tensor<1x2x2x2xf32>)
  %u16 = tensor.cast %r15 : tensor<1x2x2x2xf32> to tensor<*xf32>
  call @printMemrefF32(%u16) : (tensor<*xf32>) -> ()
  // CHECK: rank = 4 offset = 0 sizes = [1, 2, 2, 2] strides = [8, 4, 2, 1] data =
  // CHECK-NEXT: [1.875, 0.625]
  // CHECK-NEXT: [-0.625, 1.625]
  // CHECK-NEXT: [1.75, 1.375]
  // CHECK-NEXT: [1.25, 1]
  %r17 = call @max_bf16_grad(%c14, %c13) : (tensor<1x2x2x2xbf16>, tensor<1x2x4x4xbf16>) -> (tensor<1x2x4x4xf32>)
  %u18 = tensor.cast %r17 : tensor<1x2x4x4xf32> to tensor<*xf32>
  call @printMemrefF32(%u18) : (tensor<*xf32>) -> ()
  // CHECK: rank = 4 offset = 0 sizes = [1, 2, 4, 4] strides = [32, 16, 4, 1] data =
  // CHECK-NEXT: [{{-?0}}, {{-?0}}, {{-?0}}, {{-?0}}]
  // CHECK-NEXT: [-4, {{-?0}}, {{-?0}}, 4]
  // CHECK-NEXT: [{{-?0}}, 1, {{-?0}}, {{-?0}}]
  // CHECK-NEXT: [{{-?0}}, {{-?0}}, 2, {{-?0}}]
  // CHECK-NEXT: [{{-?0}}, {{-?0}}, {{-?0}}, {{-?0}}]
  // CHECK-NEXT: [4, {{-?0}}, {{-?0}}, -1]
  // CHECK-NEXT: [{{-?0}}, {{-?0}}, -1, {{-?0}}]
  // CHECK-NEXT: [4, {{-?0}}, {{-?0}}, {{-?0}}]

  // avg, f64: 3x3 windows, strides 2, padding 1; divides by 9 everywhere.
  %c19 = arith.constant dense<[[[[-0.87, 0.61, 0.37, -0.71, -0.07], [-0.9, 0.6, 0.44, 0.61, 0.52], [-0.47, 0.58, -0.5, -0.72, -0.22], [-0.0, -0.43, 0.21, 0.21, -0.52], [0.25, -0.29, 0.47, -0.42, 0.6]], [[-0.17, 0.11, 0.35, 0.04, -0.48], [0.96, -0.81, -0.35, 0.1, -0.94], [-0.69, 0.6, 0.57, 0.27, 0.8], [0.51, -0.4, 0.29, -0.32, 0.5], [-0.23, -0.69, 0.75, 0.38, 0.49]]]]> : tensor<1x2x5x5xf64>
  %c20 = arith.constant dense<[[[[0.12, 0.57, -0.1], [0.13, -0.87, 0.11], [0.63, 0.41, 0.61]], [[-0.01, 0.76, -0.78], [0.75, -0.26, -0.82], [0.24, -0.09, -0.14]]]]> : tensor<1x2x3x3xf64>
  %r21 = call @avg_f64(%c19) : (tensor<1x2x5x5xf64>) -> (tensor<1x2x3x3xf64>)
  %u22 = tensor.cast %r21 : tensor<1x2x3x3xf64> to tensor<*xf64>
  call @printMemrefF64(%u22) : (tensor<*xf64>) -> ()
  // CHECK: rank = 4 offset = 0 sizes = [1, 2, 3, 3] strides = [18, 9, 3, 1] data =
  // CHECK-NEXT: [-0.0622222, 0.213333, 0.0388889]
  // CHECK-NEXT: [-0.0688889, 0.111111, -0.0133333]
  // CHECK-NEXT: [-0.0522222, -0.0277778, -0.0144444]
  // CHECK-NEXT: [0.01, -0.0622222, -0.142222]
  // CHECK-NEXT: [0.0188889, -0.00555556, 0.0455556]
  // CHECK-NEXT: [-0.09, 0.00111111, 0.116667]
  %r23 = call @avg_f64_grad(%c20) : (tensor<1x2x3x3xf64>) -> (tensor<1x2x5x5xf64>)
  %u24 = tensor.cast %r23 : tensor<1x2x5x5xf64> to tensor<*xf64>
  call @printMemrefF64(%u24) : (tensor<*xf64>) -> ()
  // CHECK: rank = 4 offset = 0 sizes = [1, 2, 5, 5] strides = [50, 25, 5, 1] data =
  // CHECK-NEXT: [0.0133333, 0.0766667, 0.0633333, 0.0522222, -0.0111111]
  // CHECK-NEXT: [0.0277778, -0.00555556, -0.0333333, -0.0322222, 0.00111111]
  // CHECK-NEXT: [0.0144444, -0.0822222, -0.0966667, -0.0844444, 0.0122222]
  // CHECK-NEXT: [0.0844444, 0.0333333, -0.0511111, 0.0288889, 0.08]
  // CHECK-NEXT: [0.07, 0.115556, 0.0455556, 0.113333, 0.0677778]
  // CHECK-NEXT: [-0.00111111, 0.0833333, 0.0844444, -0.00222222, -0.0866667]
  // CHECK-NEXT: [0.0822222, 0.137778, 0.0555556, -0.122222, -0.177778]
  // CHECK-NEXT: [0.0833333, 0.0544444, -0.0288889, -0.12, -0.0911111]
  // CHECK-NEXT: [0.11, 0.0711111, -0.0388889, -0.145556, -0.106667]
  // CHECK-NEXT: [0.0266667, 0.0166667, -0.01, -0.0255556, -0.0155556]

  // avg, f32: 2x3 windows, strides (1, 2), padding (1, 0); W = 6 leaves
  // the last column outside every window.
  %c25 = arith.constant dense<[[[[0.699999988079071, -0.7200000286102295, 0.23000000417232513, -0.17000000178813934, 0.05999999865889549, -0.0], [-0.7300000190734863, 0.019999999552965164, 0.7200000286102295, -0.6600000262260437, -0.9800000190734863, -0.8600000143051147], [-0.07999999821186066, 0.949999988079071, -0.9100000262260437, 0.9800000190734863, 0.07000000029802322, -0.7599999904632568], [-0.1599999964237213, -0.5899999737739563, 0.4300000071525574, 0.07999999821186066, -0.41999998688697815, -0.49000000953674316]]], [[[0.7300000190734863, 0.5299999713897705, -0.12999999523162842, -0.1899999976158142, 0.4699999988079071, 0.9399999976158142], [-0.8399999737739563, -0.6800000071525574, -0.2800000011920929, 0.019999999552965164, -0.8600000143051147, -0.8899999856948853], [-0.5600000023841858, -0.23000000417232513, 0.47999998927116394, 0.2199999988079071, -0.9399999976158142, -0.9100000262260437], [-0.10000000149011612, 0.75, 0.8299999833106995, -0.27000001072883606, 0.7699999809265137, 0.8600000143051147]]]]> : tensor<2x1x4x6xf32>
  %c26 = arith.constant dense<[[[[-0.1899999976158142, 0.49000000953674316], [-0.27000001072883606, -0.6899999976158142], [0.15000000596046448, -0.8299999833106995], [0.33000001311302185, 0.6200000047683716], [0.8299999833106995, -0.10000000149011612]]], [[[-0.7699999809265137, 0.800000011920929], [0.7400000095367432, 0.9399999976158142], [0.1899999976158142, 0.3499999940395355], [-0.25, -0.6299999952316284], [-0.41999998688697815, 0.4399999976158142]]]]> : tensor<2x1x5x2xf32>
  %r27 = call @avg_f32(%c25) : (tensor<2x1x4x6xf32>) -> (tensor<2x1x5x2xf32>)
  %u28 = tensor.cast %r27 : tensor<2x1x5x2xf32> to tensor<*xf32>
  call @printMemrefF32(%u28) : (tensor<*xf32>) -> ()
  // CHECK: rank = 4 offset = 0 sizes = [2, 1, 5, 2] strides = [10, 10, 2, 1] data =
  // CHECK-NEXT: [{{(0\.0349999|0\.035|0\.0350001)}}, {{(0\.0199999|0\.02|0\.0200001)}}]
  // CHECK-NEXT: [{{(0\.0366666|0\.0366667|0\.0366668)}}, {{(-0\.133333|-0\.133334)}}]
  // CHECK-NEXT: [{{(-0\.00499999|-0\.005|-0\.00500001|-0\.00500002)}}, -0.13]
  // CHECK-NEXT: [{{(-0\.06(0000[0-9]*)?|-0\.059999[0-9]*)}}, {{(0\.0383332|0\.0383333|0\.0383334|0\.0383335)}}]
  // CHECK-NEXT: [{{(-0\.0533332|-0\.0533333|-0\.0533334|-0\.0533335)}}, 0.015]
  // CHECK-NEXT: [{{(0\.188333|0\.188334)}}, {{(0\.0249999|0\.025|0\.0250001)}}]
  // CHECK-NEXT: [{{(-0\.111666|-0\.111667)}}, {{(-0\.161666|-0\.161667)}}]
  // CHECK-NEXT: [{{(-0\.351666|-0\.351667|-0\.351668)}}, {{(-0\.226666|-0\.226667)}}]
  // CHECK-NEXT: [{{(0\.194999|0\.195|0\.195001)}}, {{(0\.181666|0\.181667)}}]
  // CHECK-NEXT: [{{(0\.246666|0\.246667)}}, {{(0\.221666|0\.221667)}}]
  %r29 = call @avg_f32_grad(%c26) : (tensor<2x1x5x2xf32>) -> (tensor<2x1x4x6xf32>)
  %u30 = tensor.cast %r29 : tensor<2x1x4x6xf32> to tensor<*xf32>
  call @printMemrefF32(%u30) : (tensor<*xf32>) -> ()
  // CHECK: rank = 4 offset = 0 sizes = [2, 1, 4, 6] strides = [24, 24, 6, 1] data =
  // CHECK-NEXT: [{{(-0\.076666[0-9]*)}}, {{(-0\.076666[0-9]*)}}, -0.11, {{(-0\.0333332|-0\.0333333|-0\.0333334)}}, {{(-0\.0333332|-0\.0333333|-0\.0333334)}}, {{-?0}}]
  // CHECK-NEXT: [{{(-0\.0199999|-0\.02|-0\.0200001)}}, {{(-0\.0199999|-0\.02|-0\.0200001)}}, {{(-0\.273333|-0\.273334)}}, {{(-0\.253333|-0\.253334)}}, {{(-0\.253333|-0\.253334)}}, {{-?0}}]
  // CHECK-NEXT: [{{(0\.079999[0-9]*|0\.08(0000[0-9]*)?)}}, {{(0\.079999[0-9]*|0\.08(0000[0-9]*)?)}}, {{(0\.0449999|0\.045|0\.0450001)}}, {{(-0\.0349999|-0\.035|-0\.0350001)}}, {{(-0\.0349999|-0\.035|-0\.0350001)}}, {{-?0}}]
  // CHECK-NEXT: [{{(0\.193333|0\.193334)}}, {{(0\.193333|0\.193334)}}, {{(0\.279999|0\.28|0\.280001)}}, {{(0\.086666[0-9]*)}}, {{(0\.086666[0-9]*)}}, {{-?0}}]
  // CHECK-NEXT: [{{(-0\.00499998|-0\.00499999|-0\.005|-0\.00500001)}}, {{(-0\.00499998|-0\.00499999|-0\.005|-0\.00500001)}}, {{(0\.284999|0\.285|0\.285001)}}, {{(0\.289999|0\.29|0\.290001)}}, {{(0\.289999|0\.29|0\.290001)}}, {{-?0}}]
  // CHECK-NEXT: [0.155, 0.155, {{(0\.369999|0\.37|0\.370001)}}, {{(0\.214999|0\.215|0\.215001)}}, {{(0\.214999|0\.215|0\.215001)}}, {{-?0}}]
  // CHECK-NEXT: [{{(-0\.00999997|-0\.01)}}, {{(-0\.00999997|-0\.01)}}, {{(-0\.0566665|-0\.0566666|-0\.0566667|-0\.0566668)}}, {{(-0\.0466665|-0\.0466666|-0\.0466667|-0\.0466668)}}, {{(-0\.0466665|-0\.0466666|-0\.0466667|-0\.0466668)}}, {{-?0}}]
  // CHECK-NEXT: [{{(-0\.111666|-0\.111667)}}, {{(-0\.111666|-0\.111667)}}, {{(-0\.143333|-0\.143334)}}, {{(-0\.0316666|-0\.0316667|-0\.0316668)}}, {{(-0\.0316666|-0\.0316667|-0\.0316668)}}, {{-?0}}]

  // avg, bf16: 3x3 windows, stride 1, padding 1; results rounded to bf16.
  %c31 = arith.constant dense<[[[[3.0, -5.0, -3.0, -3.0], [3.0, 4.0, 0.0, -7.0], [-1.0, 3.0, 8.0, 8.0], [-6.0, -4.0, 0.0, -4.0]]]]> : tensor<1x1x4x4xbf16>
  %c32 = arith.constant dense<[[[[-6.0, -5.0, 7.0, 4.0], [0.0, 1.0, -3.0, 1.0], [-6.0, -7.0, 2.0, 1.0], [-2.0, -1.0, -6.0, 6.0]]]]> : tensor<1x1x4x4xbf16>
  %r33 = call @avg_bf16(%c31) : (tensor<1x1x4x4xbf16>) -> (tensor<1x1x4x4xf32>)
  %u34 = tensor.cast %r33 : tensor<1x1x4x4xf32> to tensor<*xf32>
  call @printMemrefF32(%u34) : (tensor<*xf32>) -> ()
  // CHECK: rank = 4 offset = 0 sizes = [1, 1, 4, 4] strides = [16, 16, 4, 1] data =
  // CHECK-NEXT: [0.554688, 0.222656, -1.55469, -1.44531]
  // CHECK-NEXT: [0.777344, 1.33594, 0.554688, 0.333984]
  // CHECK-NEXT: [-0.111328, 0.777344, 0.890625, 0.554688]
  // CHECK-NEXT: [-0.890625, {{-?0}}, 1.21875, 1.33594]
  %r35 = call @avg_bf16_grad(%c32) : (tensor<1x1x4x4xbf16>) -> (tensor<1x1x4x4xf32>)
  %u36 = tensor.cast %r35 : tensor<1x1x4x4xf32> to tensor<*xf32>
  call @printMemrefF32(%u36) : (tensor<*xf32>) -> ()
  // CHECK: rank = 4 offset = 0 sizes = [1, 1, 4, 4] strides = [16, 16, 4, 1] data =
  // CHECK-NEXT: [-1.10938, -0.667969, 0.554688, 1]
  // CHECK-NEXT: [-2.5625, -1.89062, 0.111328, 1.33594]
  // CHECK-NEXT: [-1.66406, -2.4375, -0.667969, 0.111328]
  // CHECK-NEXT: [-1.78125, -2.21875, -0.554688, 0.333984]

  // max, f32, with NaNs (inserted below): 2x2 windows, strides 2.
  // Ties pick the first maximum, NaNs win (the last NaN of a window).
  %c37 = arith.constant dense<[[[[1.0, 5.0, 0.0, 3.0], [5.0, 0.0, 0.0, 1.0], [2.0, 0.0, 7.0, 7.0], [4.0, 0.5, 7.0, 6.0]]]]> : tensor<1x1x4x4xf32>
  %nan = arith.constant 0x7FC00000 : f32
  %i0 = arith.constant 0 : index
  %i2 = arith.constant 2 : index
  %c38 = tensor.insert %nan into %c37[%i0, %i0, %i0, %i2] : tensor<1x1x4x4xf32>
  %i1 = arith.constant 1 : index
  %c39 = tensor.insert %nan into %c38[%i0, %i0, %i1, %i2] : tensor<1x1x4x4xf32>
  %c40 = tensor.insert %nan into %c39[%i0, %i0, %i2, %i1] : tensor<1x1x4x4xf32>
  %c41 = arith.constant dense<[[[[0.5, 0.25], [2.0, 4.0]]]]> : tensor<1x1x2x2xf32>
  %r42 = call @max_nan(%c40) : (tensor<1x1x4x4xf32>) -> (tensor<1x1x2x2xf32>)
  %r43 = call @max_nan_grad(%c41, %c40) : (tensor<1x1x2x2xf32>, tensor<1x1x4x4xf32>) -> (tensor<1x1x4x4xf32>)
  %u44 = tensor.cast %r42 : tensor<1x1x2x2xf32> to tensor<*xf32>
  call @printMemrefF32(%u44) : (tensor<*xf32>) -> ()
  // CHECK: rank = 4 offset = 0 sizes = [1, 1, 2, 2] strides = [4, 4, 2, 1] data =
  // CHECK-NEXT: [5, nan]
  // CHECK-NEXT: [nan, 7]
  %u45 = tensor.cast %r43 : tensor<1x1x4x4xf32> to tensor<*xf32>
  call @printMemrefF32(%u45) : (tensor<*xf32>) -> ()
  // CHECK: rank = 4 offset = 0 sizes = [1, 1, 4, 4] strides = [16, 16, 4, 1] data =
  // CHECK-NEXT: [{{-?0}}, 0.5, {{-?0}}, {{-?0}}]
  // CHECK-NEXT: [{{-?0}}, {{-?0}}, 0.25, {{-?0}}]
  // CHECK-NEXT: [{{-?0}}, 2, 4, {{-?0}}]
  // CHECK-NEXT: [{{-?0}}, {{-?0}}, {{-?0}}, {{-?0}}]
  return
}
