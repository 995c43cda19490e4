// Executes conv2d, conv2d_grad_input and conv2d_grad_filter on the CPU.
// Expected values were computed independently in f64 with numpy: the
// forward by direct summation of conv2d's documented formula, every
// gradient by central finite differences of sum(dy * conv2d(x, w)) with a
// random upstream gradient dy (so each value is the true dY.J).
// RUN: mem-opt %s --convert-train-to-linalg --memopt-lower-to-cpu \
// RUN:   | %mlir_runner -e main -entry-point-result=void %runner_libs \
// RUN:   | FileCheck %s
// The same through memopt-lower-to-gpu's kernels, run as CPU loops (every
// reduction a block reduction, matmuls through the CPU cuBLAS stand-in):
// RUN: mem-opt %s --convert-train-to-linalg %gpu_emulator \
// RUN:   | %mlir_runner -e main -entry-point-result=void %runner_libs \
// RUN:   | FileCheck %s

func.func @conv_f64(%x: tensor<1x4x6x5xf64>, %w: tensor<4x2x3x2xf64>) -> tensor<1x4x3x5xf64> {
  %r = train.conv2d %x, %w {strides = array<i64: 2, 1>, padding = array<i64: 1, 1>, dilation = array<i64: 1, 2>, groups = 2 : i64}
      : tensor<1x4x6x5xf64>, tensor<4x2x3x2xf64> -> tensor<1x4x3x5xf64>
  return %r : tensor<1x4x3x5xf64>
}

func.func @conv_f64_grad_input(%dy: tensor<1x4x3x5xf64>, %w: tensor<4x2x3x2xf64>) -> tensor<1x4x6x5xf64> {
  %r = train.conv2d_grad_input %dy, %w {strides = array<i64: 2, 1>, padding = array<i64: 1, 1>, dilation = array<i64: 1, 2>, groups = 2 : i64}
      : tensor<1x4x3x5xf64>, tensor<4x2x3x2xf64> -> tensor<1x4x6x5xf64>
  return %r : tensor<1x4x6x5xf64>
}

func.func @conv_f64_grad_filter(%dy: tensor<1x4x3x5xf64>, %x: tensor<1x4x6x5xf64>) -> tensor<4x2x3x2xf64> {
  %r = train.conv2d_grad_filter %dy, %x {strides = array<i64: 2, 1>, padding = array<i64: 1, 1>, dilation = array<i64: 1, 2>, groups = 2 : i64}
      : tensor<1x4x3x5xf64>, tensor<1x4x6x5xf64> -> tensor<4x2x3x2xf64>
  return %r : tensor<4x2x3x2xf64>
}

func.func @conv_f32(%x: tensor<2x3x4x4xf32>, %w: tensor<2x3x3x3xf32>) -> tensor<2x2x2x2xf32> {
  %r = train.conv2d %x, %w {strides = array<i64: 1, 1>, padding = array<i64: 0, 0>, dilation = array<i64: 1, 1>, groups = 1 : i64}
      : tensor<2x3x4x4xf32>, tensor<2x3x3x3xf32> -> tensor<2x2x2x2xf32>
  return %r : tensor<2x2x2x2xf32>
}

func.func @conv_f32_grad_input(%dy: tensor<2x2x2x2xf32>, %w: tensor<2x3x3x3xf32>) -> tensor<2x3x4x4xf32> {
  %r = train.conv2d_grad_input %dy, %w {strides = array<i64: 1, 1>, padding = array<i64: 0, 0>, dilation = array<i64: 1, 1>, groups = 1 : i64}
      : tensor<2x2x2x2xf32>, tensor<2x3x3x3xf32> -> tensor<2x3x4x4xf32>
  return %r : tensor<2x3x4x4xf32>
}

func.func @conv_f32_grad_filter(%dy: tensor<2x2x2x2xf32>, %x: tensor<2x3x4x4xf32>) -> tensor<2x3x3x3xf32> {
  %r = train.conv2d_grad_filter %dy, %x {strides = array<i64: 1, 1>, padding = array<i64: 0, 0>, dilation = array<i64: 1, 1>, groups = 1 : i64}
      : tensor<2x2x2x2xf32>, tensor<2x3x4x4xf32> -> tensor<2x3x3x3xf32>
  return %r : tensor<2x3x3x3xf32>
}

func.func @conv_bf16(%x: tensor<1x2x5x5xbf16>, %w: tensor<3x2x3x3xbf16>) -> tensor<1x3x3x3xf32> {
  %r = train.conv2d %x, %w {strides = array<i64: 2, 2>, padding = array<i64: 1, 1>, dilation = array<i64: 1, 1>, groups = 1 : i64}
      : tensor<1x2x5x5xbf16>, tensor<3x2x3x3xbf16> -> tensor<1x3x3x3xbf16>
  %e = tensor.empty() : tensor<1x3x3x3xf32>
  %wide = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>, affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>], iterator_types = ["parallel", "parallel", "parallel", "parallel"]}
      ins(%r : tensor<1x3x3x3xbf16>) outs(%e : tensor<1x3x3x3xf32>) {
    ^bb0(%in: bf16, %out: f32):
      %f = arith.extf %in : bf16 to f32
      linalg.yield %f : f32
    } -> tensor<1x3x3x3xf32>
  return %wide : tensor<1x3x3x3xf32>
}

func.func @conv_bf16_grad_input(%dy: tensor<1x3x3x3xbf16>, %w: tensor<3x2x3x3xbf16>) -> tensor<1x2x5x5xf32> {
  %r = train.conv2d_grad_input %dy, %w {strides = array<i64: 2, 2>, padding = array<i64: 1, 1>, dilation = array<i64: 1, 1>, groups = 1 : i64}
      : tensor<1x3x3x3xbf16>, tensor<3x2x3x3xbf16> -> tensor<1x2x5x5xbf16>
  %e = tensor.empty() : tensor<1x2x5x5xf32>
  %wide = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>, affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>], iterator_types = ["parallel", "parallel", "parallel", "parallel"]}
      ins(%r : tensor<1x2x5x5xbf16>) outs(%e : tensor<1x2x5x5xf32>) {
    ^bb0(%in: bf16, %out: f32):
      %f = arith.extf %in : bf16 to f32
      linalg.yield %f : f32
    } -> tensor<1x2x5x5xf32>
  return %wide : tensor<1x2x5x5xf32>
}

func.func @conv_bf16_grad_filter(%dy: tensor<1x3x3x3xbf16>, %x: tensor<1x2x5x5xbf16>) -> tensor<3x2x3x3xf32> {
  %r = train.conv2d_grad_filter %dy, %x {strides = array<i64: 2, 2>, padding = array<i64: 1, 1>, dilation = array<i64: 1, 1>, groups = 1 : i64}
      : tensor<1x3x3x3xbf16>, tensor<1x2x5x5xbf16> -> tensor<3x2x3x3xbf16>
  %e = tensor.empty() : tensor<3x2x3x3xf32>
  %wide = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>, affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>], iterator_types = ["parallel", "parallel", "parallel", "parallel"]}
      ins(%r : tensor<3x2x3x3xbf16>) outs(%e : tensor<3x2x3x3xf32>) {
    ^bb0(%in: bf16, %out: f32):
      %f = arith.extf %in : bf16 to f32
      linalg.yield %f : f32
    } -> tensor<3x2x3x3xf32>
  return %wide : tensor<3x2x3x3xf32>
}

func.func private @printMemrefF32(tensor<*xf32>)
func.func private @printMemrefF64(tensor<*xf64>)

func.func @main() {

  // f64, groups = 2, strides (2, 1), padding (1, 1), dilation (1, 2).
  %c1 = arith.constant dense<[[[[0.25, 0.79, 0.55, -0.55, -0.4], [0.75, -0.99, 0.64, 0.59, -0.06], [-0.39, -0.44, -0.49, -0.11, 0.01], [0.11, 0.99, 0.59, 0.24, 0.98], [-0.57, -0.68, 0.23, -0.91, -0.93], [0.03, -0.07, 0.83, 0.26, 0.03]], [[-0.01, -0.5, -0.98, -0.62, 0.38], [-0.6, -0.26, -0.99, 0.66, -0.69], [-0.46, 0.76, 0.02, 0.69, 0.28], [0.48, -0.82, 0.08, 0.02, 0.74], [-0.28, 0.2, -0.88, -0.22, -0.35], [-0.7, 0.63, -0.24, 0.96, 0.18]], [[0.21, 0.28, 0.35, -0.7, -0.12], [-0.52, -0.2, -0.81, 0.94, -0.57], [0.34, -0.4, 0.75, 0.32, -0.74], [0.69, 0.89, 0.81, 0.14, -0.71], [-0.62, 0.86, 0.1, -0.64, 0.77], [0.28, 0.14, -0.25, -0.18, -0.52]], [[-0.92, 0.75, -0.06, 0.1, -0.36], [0.5, -0.95, -0.26, -0.94, -0.75], [0.93, 0.32, -0.14, 0.05, 0.75], [-0.31, 0.18, 0.37, -0.29, 0.04], [0.53, 0.82, -0.7, 0.87, -0.99], [0.51, 0.62, -0.73, -0.16, 0.63]]]]> : tensor<1x4x6x5xf64>
  %c2 = arith.constant dense<[[[[-0.97, 0.26], [0.59, 0.03], [0.45, -0.55]], [[-0.6, -0.27], [-0.64, -0.31], [0.9, 0.15]]], [[[-0.32, -0.46], [0.9, -0.11], [0.96, 0.03]], [[0.04, 0.79], [0.49, 0.16], [-0.15, 0.76]]], [[[-0.18, 0.85], [-0.86, -0.14], [0.04, 0.9]], [[-0.5, 0.61], [0.35, 0.43], [0.26, 0.94]]], [[[-0.33, -0.2], [-0.59, -0.9], [-0.57, 0.83]], [[0.68, -0.78], [0.21, -0.04], [0.19, 0.32]]]]> : tensor<4x2x3x2xf64>
  %c3 = arith.constant dense<[[[[-0.39, 0.92, -0.07, 0.26, 0.27], [-0.63, -0.88, -0.18, 0.53, 0.63], [0.46, -0.77, 0.83, 0.6, 0.76]], [[0.05, 0.83, -0.91, -0.94, -0.96], [-0.49, -0.5, -0.62, 0.13, -0.92], [0.18, -0.67, 0.36, -0.96, -0.38]], [[0.88, 0.08, 0.62, 0.32, 0.22], [-0.62, 0.15, -0.92, 0.6, 0.92], [0.71, -0.9, -0.32, -0.36, -0.77]], [[0.25, 0.59, -0.37, 0.73, 0.59], [-0.74, 0.53, 0.77, -0.61, 0.15], [0.28, 0.22, -0.81, 0.32, 0.26]]]]> : tensor<1x4x3x5xf64>
  %r4 = call @conv_f64(%c1, %c2) : (tensor<1x4x6x5xf64>, tensor<4x2x3x2xf64>) -> (tensor<1x4x3x5xf64>)
  %u5 = tensor.cast %r4 : tensor<1x4x3x5xf64> to tensor<*xf64>
  call @printMemrefF64(%u5) : (tensor<*xf64>) -> ()
  // CHECK: rank = 4 offset = 0 sizes = [1, 4, 3, 5] strides = [60, 15, 5, 1] data =
  // CHECK-NEXT: [0.6842, -0.2288, 0.0568, 0.1484, 0.9318]
  // CHECK-NEXT: [-1.1035, 0.2786, -0.2932, -0.335, -1.3488]
  // CHECK-NEXT: [0.5294, -1.2493, -0.3631, 0.3822, 0.3401]
  // CHECK-NEXT: [-0.3942, 0.0796, 0.0352, 0.3563, -0.3314]
  // CHECK-NEXT: [-0.1735, -1.7477, 1.7511, -0.0032, 0.3041]
  // CHECK-NEXT: [-0.5197, -1.0642, -0.3176, 0.7408, -0.8972]
  // CHECK-NEXT: [-0.7897, -1.4416, -0.1299, -1.778, 0.4302]
  // CHECK-NEXT: [0.4143, -0.1118, 1.1051, -1.4069, -0.0267]
  // CHECK-NEXT: [1.8073, 0.5813, -0.4426, -1.85, 0.9259]
  // CHECK-NEXT: [-0.752, -0.9938, 1.0312, -0.3975, -0.2804]
  // CHECK-NEXT: [1.9245, 0.5402, -0.4713, -0.0143, -1.2626]
  // CHECK-NEXT: [-0.8106, -0.9778, 0.0703, -0.9905, 0.3891]
  %r6 = call @conv_f64_grad_input(%c3, %c2) : (tensor<1x4x3x5xf64>, tensor<4x2x3x2xf64>) -> (tensor<1x4x6x5xf64>)
  %u7 = tensor.cast %r6 : tensor<1x4x6x5xf64> to tensor<*xf64>
  call @printMemrefF64(%u7) : (tensor<*xf64>) -> ()
  // CHECK: rank = 4 offset = 0 sizes = [1, 4, 6, 5] strides = [120, 30, 5, 1] data =
  // CHECK-NEXT: [1.2898, -0.8775, -0.7563, -0.6067, 0.1112]
  // CHECK-NEXT: [2.2244, -0.2545, -1.821, -0.8672, -0.0932]
  // CHECK-NEXT: [-0.9692, -0.6292, 0.4583, -0.3935, 0.0016]
  // CHECK-NEXT: [0.0853, -1.2279, 0.6655, -1.0847, 0.31]
  // CHECK-NEXT: [-1.0573, 0.8077, -0.4594, 0.0917, 0.1236]
  // CHECK-NEXT: [-0.9897, 0.4715, -0.2482, -0.4685, -0.3588]
  // CHECK-NEXT: [-0.1821, -0.2722, -0.7794, -0.7671, -0.231]
  // CHECK-NEXT: [1.2115, -0.0808, 0.6736, -1.1711, -0.7158]
  // CHECK-NEXT: [0.3182, -0.0717, -0.0827, -0.8974, -0.1435]
  // CHECK-NEXT: [-0.2818, -1.0015, -0.7743, -0.2041, -0.7421]
  // CHECK-NEXT: [0.1645, -0.4686, -0.7229, -0.8723, -0.3396]
  // CHECK-NEXT: [-0.5925, 0.8988, 0.0593, 1.1391, -0.6396]
  // CHECK-NEXT: [-0.4169, -0.6631, -1.2481, -0.2911, -0.7018]
  // CHECK-NEXT: [-0.535, 0.7677, 0.2732, -1.2277, 1.5259]
  // CHECK-NEXT: [-0.4417, 1.0897, -0.6541, -1.4439, 0.465]
  // CHECK-NEXT: [-0.2067, -0.7755, 0.0968, -0.2948, -0.3363]
  // CHECK-NEXT: [0.6442, 0.4017, 0.0488, 1.2826, -0.2376]
  // CHECK-NEXT: [-0.1614, 1.3203, -0.8242, -1.1393, -0.0584]
  // CHECK-NEXT: [0.1519, 0.5077, 0.2761, 0.4823, 0.1084]
  // CHECK-NEXT: [0.4183, 2.1807, -0.5508, -0.8861, 1.3762]
  // CHECK-NEXT: [0.1638, -0.3973, 0.1252, -0.0729, 0.2824]
  // CHECK-NEXT: [0.7393, -1.0886, 0.0277, 0.6477, -0.1004]
  // CHECK-NEXT: [-0.2688, 0.012, -0.4546, -0.3201, -0.1676]
  // CHECK-NEXT: [-0.1922, 0.5199, -0.8084, -0.7108, -0.236]
  %r8 = call @conv_f64_grad_filter(%c3, %c1) : (tensor<1x4x3x5xf64>, tensor<1x4x6x5xf64>) -> (tensor<4x2x3x2xf64>)
  %u9 = tensor.cast %r8 : tensor<4x2x3x2xf64> to tensor<*xf64>
  call @printMemrefF64(%u9) : (tensor<*xf64>) -> ()
  // CHECK: rank = 4 offset = 0 sizes = [4, 2, 3, 2] strides = [12, 6, 2, 1] data =
  // CHECK-NEXT: [1.5025, 0.7108]
  // CHECK-NEXT: [-0.4165, -0.9373]
  // CHECK-NEXT: [1.8883, -0.1862]
  // CHECK-NEXT: [-0.5211, 0.5723]
  // CHECK-NEXT: [0.0033, -0.6596]
  // CHECK-NEXT: [0.8147, 1.1792]
  // CHECK-NEXT: [-0.5957, -1.28]
  // CHECK-NEXT: [0.267, 2.1913]
  // CHECK-NEXT: [-1.3984, -1.3042]
  // CHECK-NEXT: [-0.9759, -0.7809]
  // CHECK-NEXT: [2.2777, -0.5228]
  // CHECK-NEXT: [0.8574, 0.1059]
  // CHECK-NEXT: [-0.8204, -1.0906]
  // CHECK-NEXT: [2.0514, -0.1277]
  // CHECK-NEXT: [-0.3867, -0.2563]
  // CHECK-NEXT: [0.2397, 0.838]
  // CHECK-NEXT: [-0.956, 2.0768]
  // CHECK-NEXT: [-1.3673, -0.5233]
  // CHECK-NEXT: [-0.068, 0.877]
  // CHECK-NEXT: [-1.6419, 2.8668]
  // CHECK-NEXT: [0.1298, -1.0166]
  // CHECK-NEXT: [-0.6199, 0.6784]
  // CHECK-NEXT: [-0.5183, -1.8236]
  // CHECK-NEXT: [-1.058, -0.4312]

  // f32, no padding, unit stride: integer data, exact results.
  %c10 = arith.constant dense<[[[[3.0, 2.0, 1.0, 2.0], [-1.0, -1.0, -3.0, 2.0], [-1.0, 3.0, 0.0, 3.0], [-3.0, -2.0, -1.0, -3.0]], [[0.0, 1.0, 1.0, -2.0], [-2.0, 0.0, 1.0, 3.0], [3.0, -1.0, -2.0, -2.0], [3.0, 0.0, 3.0, 1.0]], [[1.0, -3.0, 1.0, -1.0], [2.0, -3.0, -2.0, 1.0], [1.0, 2.0, 0.0, -1.0], [-1.0, -1.0, 1.0, 0.0]]], [[[-1.0, -2.0, 1.0, -2.0], [-2.0, -1.0, 2.0, 0.0], [1.0, -3.0, -1.0, 2.0], [2.0, 1.0, 3.0, -1.0]], [[-2.0, -3.0, -2.0, 2.0], [3.0, -3.0, 0.0, -3.0], [2.0, -3.0, 1.0, -3.0], [2.0, 3.0, 2.0, -2.0]], [[2.0, -1.0, 2.0, 2.0], [0.0, 1.0, 2.0, -2.0], [-3.0, 0.0, -2.0, 3.0], [3.0, -1.0, -1.0, 1.0]]]]> : tensor<2x3x4x4xf32>
  %c11 = arith.constant dense<[[[[0.0, -2.0, 1.0], [1.0, -2.0, 1.0], [0.0, 2.0, 2.0]], [[1.0, -1.0, -1.0], [1.0, -2.0, -1.0], [0.0, 2.0, 1.0]], [[2.0, -2.0, -1.0], [-1.0, 1.0, 0.0], [-1.0, 1.0, 1.0]]], [[[2.0, 0.0, -2.0], [2.0, -2.0, -2.0], [1.0, 0.0, 1.0]], [[-2.0, 1.0, 0.0], [2.0, 1.0, 2.0], [1.0, 2.0, -2.0]], [[1.0, 1.0, -1.0], [-1.0, 1.0, -2.0], [-2.0, 2.0, 1.0]]]]> : tensor<2x3x3x3xf32>
  %c12 = arith.constant dense<[[[[0.0, 1.0], [-1.0, 1.0]], [[-1.0, 0.0], [-2.0, -1.0]]], [[[-1.0, 0.0], [0.0, -2.0]], [[-1.0, 2.0], [0.0, 0.0]]]]> : tensor<2x2x2x2xf32>
  %r13 = call @conv_f32(%c10, %c11) : (tensor<2x3x4x4xf32>, tensor<2x3x3x3xf32>) -> (tensor<2x2x2x2xf32>)
  %u14 = tensor.cast %r13 : tensor<2x2x2x2xf32> to tensor<*xf32>
  call @printMemrefF32(%u14) : (tensor<*xf32>) -> ()
  // CHECK: rank = 4 offset = 0 sizes = [2, 2, 2, 2] strides = [8, 4, 2, 1] data =
  // CHECK-NEXT: [-5, -5]
  // CHECK-NEXT: [7, 11]
  // CHECK-NEXT: [11, 4]
  // CHECK-NEXT: [-3, -16]
  // CHECK-NEXT: [12, -17]
  // CHECK-NEXT: [33, {{-?0}}]
  // CHECK-NEXT: [-12, -7]
  // CHECK-NEXT: [2, -6]
  %r15 = call @conv_f32_grad_input(%c12, %c11) : (tensor<2x2x2x2xf32>, tensor<2x3x3x3xf32>) -> (tensor<2x3x4x4xf32>)
  %u16 = tensor.cast %r15 : tensor<2x3x4x4xf32> to tensor<*xf32>
  call @printMemrefF32(%u16) : (tensor<*xf32>) -> ()
  // CHECK: rank = 4 offset = 0 sizes = [2, 3, 4, 4] strides = [48, 16, 4, 1] data =
  // CHECK-NEXT: [-2, {{-?0}}, {{-?0}}, 1]
  // CHECK-NEXT: [-6, 3, 1, 4]
  // CHECK-NEXT: [-6, 5, 4, 5]
  // CHECK-NEXT: [-2, -3, -2, 1]
  // CHECK-NEXT: [2, {{-?0}}, -1, -1]
  // CHECK-NEXT: [1, 2, -5, -2]
  // CHECK-NEXT: [-6, -3, -2, -2]
  // CHECK-NEXT: [-2, -7, 3, 3]
  // CHECK-NEXT: [-1, 1, -1, -1]
  // CHECK-NEXT: [-3, -1, 3, {{-?0}}]
  // CHECK-NEXT: [5, -6, 4, 3]
  // CHECK-NEXT: [5, -4, -4, {{-?0}}]
  // CHECK-NEXT: [-2, 6, 1, -4]
  // CHECK-NEXT: [-3, 8, 1, -6]
  // CHECK-NEXT: [-1, -2, 1, {{-?0}}]
  // CHECK-NEXT: [{{-?0}}, {{-?0}}, -4, -4]
  // CHECK-NEXT: [1, -4, 3, {{-?0}}]
  // CHECK-NEXT: [-3, 3, 3, 6]
  // CHECK-NEXT: [-1, -4, 9, -2]
  // CHECK-NEXT: [{{-?0}}, {{-?0}}, -4, -2]
  // CHECK-NEXT: [-3, 3, 4, -2]
  // CHECK-NEXT: [2, -8, 8, -2]
  // CHECK-NEXT: [3, -5, {{-?0}}, 2]
  // CHECK-NEXT: [{{-?0}}, 2, -2, -2]
  %r17 = call @conv_f32_grad_filter(%c12, %c10) : (tensor<2x2x2x2xf32>, tensor<2x3x4x4xf32>) -> (tensor<2x3x3x3xf32>)
  %u18 = tensor.cast %r17 : tensor<2x3x3x3xf32> to tensor<*xf32>
  call @printMemrefF32(%u18) : (tensor<*xf32>) -> ()
  // CHECK: rank = 4 offset = 0 sizes = [2, 3, 3, 3] strides = [27, 9, 3, 1] data =
  // CHECK-NEXT: [5, -3, 6]
  // CHECK-NEXT: [11, -3, -1]
  // CHECK-NEXT: [1, -2, 4]
  // CHECK-NEXT: [11, 5, 8]
  // CHECK-NEXT: [-1, 1, 9]
  // CHECK-NEXT: [-12, {{-?0}}, -1]
  // CHECK-NEXT: [-12, -1, 4]
  // CHECK-NEXT: [-2, -1, -8]
  // CHECK-NEXT: [7, 4, -2]
  // CHECK-NEXT: [-3, 7, -2]
  // CHECK-NEXT: [{{-?0}}, {{-?0}}, -2]
  // CHECK-NEXT: [2, 3, 10]
  // CHECK-NEXT: [{{-?0}}, -3, {{-?0}}]
  // CHECK-NEXT: [-12, 7, -1]
  // CHECK-NEXT: [-17, 3, -12]
  // CHECK-NEXT: [-6, 16, 4]
  // CHECK-NEXT: [-4, 2, -3]
  // CHECK-NEXT: [5, -5, 6]

  // bf16 (accumulated in f32), strides 2, padding 1; printed as f32.
  %c19 = arith.constant dense<[[[[-2.0, -1.0, 2.0, 0.0, -2.0], [1.0, 1.0, -1.0, -2.0, 2.0], [-1.0, 2.0, -1.0, -1.0, 1.0], [-2.0, -2.0, 1.0, 2.0, 2.0], [-2.0, -2.0, -1.0, 1.0, 2.0]], [[2.0, -1.0, 2.0, -1.0, -2.0], [0.0, -2.0, 1.0, 2.0, -2.0], [-2.0, -2.0, -2.0, 0.0, 0.0], [2.0, 0.0, 2.0, 1.0, 2.0], [-2.0, 0.0, 2.0, 1.0, -1.0]]]]> : tensor<1x2x5x5xbf16>
  %c20 = arith.constant dense<[[[[1.0, 1.0, -1.0], [-1.0, -1.0, 0.0], [-1.0, -1.0, -1.0]], [[-1.0, 0.0, -1.0], [0.0, 1.0, -1.0], [0.0, 1.0, -1.0]]], [[[1.0, 1.0, -1.0], [1.0, -1.0, 1.0], [0.0, -1.0, -1.0]], [[0.0, 1.0, -1.0], [0.0, -1.0, 0.0], [-1.0, 1.0, 0.0]]], [[[1.0, -1.0, -1.0], [-1.0, 0.0, 1.0], [0.0, 0.0, 1.0]], [[-1.0, -1.0, 1.0], [1.0, -1.0, -1.0], [0.0, 1.0, -1.0]]]]> : tensor<3x2x3x3xbf16>
  %c21 = arith.constant dense<[[[[2.0, 0.0, 1.0], [1.0, 0.0, 0.0], [2.0, -1.0, 2.0]], [[1.0, -2.0, 2.0], [-1.0, -2.0, -1.0], [-2.0, -1.0, -2.0]], [[0.0, 2.0, 2.0], [2.0, -1.0, -1.0], [1.0, 2.0, 2.0]]]]> : tensor<1x3x3x3xbf16>
  %r22 = call @conv_bf16(%c19, %c20) : (tensor<1x2x5x5xbf16>, tensor<3x2x3x3xbf16>) -> (tensor<1x3x3x3xf32>)
  %u23 = tensor.cast %r22 : tensor<1x3x3x3xf32> to tensor<*xf32>
  call @printMemrefF32(%u23) : (tensor<*xf32>) -> ()
  // CHECK: rank = 4 offset = 0 sizes = [1, 3, 3, 3] strides = [27, 9, 3, 1] data =
  // CHECK-NEXT: [5, 3, -2]
  // CHECK-NEXT: [9, -1, -4]
  // CHECK-NEXT: [{{-?0}}, {{-?0}}, -1]
  // CHECK-NEXT: [-3, 1, -2]
  // CHECK-NEXT: [13, 4, -5]
  // CHECK-NEXT: [4, -4, 6]
  // CHECK-NEXT: [1, -4, -1]
  // CHECK-NEXT: [2, 7, -1]
  // CHECK-NEXT: [2, -6, -2]
  %r24 = call @conv_bf16_grad_input(%c21, %c20) : (tensor<1x3x3x3xbf16>, tensor<3x2x3x3xbf16>) -> (tensor<1x2x5x5xf32>)
  %u25 = tensor.cast %r24 : tensor<1x2x5x5xf32> to tensor<*xf32>
  call @printMemrefF32(%u25) : (tensor<*xf32>) -> ()
  // CHECK: rank = 4 offset = 0 sizes = [1, 2, 5, 5] strides = [50, 25, 5, 1] data =
  // CHECK-NEXT: [-3, -3, 2, -1, -3]
  // CHECK-NEXT: [-5, -8, 1, 4, -3]
  // CHECK-NEXT: [{{-?0}}, {{-?0}}, 2, -3, 1]
  // CHECK-NEXT: [-1, 1, -2, 3, -1]
  // CHECK-NEXT: [{{-?0}}, -3, 2, -5, {{-?0}}]
  // CHECK-NEXT: [1, {{-?0}}, {{-?0}}, {{-?0}}, -3]
  // CHECK-NEXT: [{{-?0}}, 3, -1, -2, 5]
  // CHECK-NEXT: [{{-?0}}, -4, 3, {{-?0}}, 2]
  // CHECK-NEXT: [-1, -1, -6, 2, -6]
  // CHECK-NEXT: [3, -1, -2, 1, 2]
  %r26 = call @conv_bf16_grad_filter(%c21, %c19) : (tensor<1x3x3x3xbf16>, tensor<1x2x5x5xbf16>) -> (tensor<3x2x3x3xf32>)
  %u27 = tensor.cast %r26 : tensor<3x2x3x3xf32> to tensor<*xf32>
  call @printMemrefF32(%u27) : (tensor<*xf32>) -> ()
  // CHECK: rank = 4 offset = 0 sizes = [3, 2, 3, 3] strides = [18, 9, 3, 1] data =
  // CHECK-NEXT: [6, {{-?0}}, -5]
  // CHECK-NEXT: [4, -6, -5]
  // CHECK-NEXT: [-2, 2, {{-?0}}]
  // CHECK-NEXT: [2, 6, -3]
  // CHECK-NEXT: [1, -8, -5]
  // CHECK-NEXT: [2, {{-?0}}, -4]
  // CHECK-NEXT: [-2, -2, 5]
  // CHECK-NEXT: [-1, -7, 2]
  // CHECK-NEXT: [-4, 5, 3]
  // CHECK-NEXT: [{{-?0}}, -10, -3]
  // CHECK-NEXT: [2, 4, 2]
  // CHECK-NEXT: [7, -14, -8]
  // CHECK-NEXT: [1, 5, 6]
  // CHECK-NEXT: [-5, -2, 5]
  // CHECK-NEXT: [-2, -5, -10]
  // CHECK-NEXT: [2, 11, -4]
  // CHECK-NEXT: [{{-?0}}, -2, -4]
  // CHECK-NEXT: [-1, -2, 3]
  return
}
