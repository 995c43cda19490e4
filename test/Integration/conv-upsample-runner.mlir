// Executes upsample_nearest2d and upsample_nearest2d_grad on the CPU.
// Expected values were computed independently in f64 with numpy: the
// forward as result[n, c, y, x] = input[n, c, y / s, x / s], the gradient
// by central finite differences of sum(dy * upsample(x)) with a random dy.
// RUN: mem-opt %s --convert-train-to-linalg --memopt-lower-to-cpu \
// RUN:   | %mlir_runner -e main -entry-point-result=void %runner_libs \
// RUN:   | FileCheck %s
// The same through memopt-lower-to-gpu's kernels, run as CPU loops (every
// reduction a block reduction, matmuls through the CPU cuBLAS stand-in):
// RUN: mem-opt %s --convert-train-to-linalg %gpu_emulator \
// RUN:   | %mlir_runner -e main -entry-point-result=void %runner_libs \
// RUN:   | FileCheck %s

func.func @up_f64(%x: tensor<2x1x2x2xf64>) -> tensor<2x1x6x6xf64> {
  %r = train.upsample_nearest2d %x {scale = 3 : i64} : tensor<2x1x2x2xf64> -> tensor<2x1x6x6xf64>
  return %r : tensor<2x1x6x6xf64>
}

func.func @up_f64_grad(%dy: tensor<2x1x6x6xf64>) -> tensor<2x1x2x2xf64> {
  %r = train.upsample_nearest2d_grad %dy {scale = 3 : i64} : tensor<2x1x6x6xf64> -> tensor<2x1x2x2xf64>
  return %r : tensor<2x1x2x2xf64>
}

func.func @up_f32(%x: tensor<1x2x2x3xf32>) -> tensor<1x2x4x6xf32> {
  %r = train.upsample_nearest2d %x {scale = 2 : i64} : tensor<1x2x2x3xf32> -> tensor<1x2x4x6xf32>
  return %r : tensor<1x2x4x6xf32>
}

func.func @up_f32_grad(%dy: tensor<1x2x4x6xf32>) -> tensor<1x2x2x3xf32> {
  %r = train.upsample_nearest2d_grad %dy {scale = 2 : i64} : tensor<1x2x4x6xf32> -> tensor<1x2x2x3xf32>
  return %r : tensor<1x2x2x3xf32>
}

func.func @up_bf16(%x: tensor<1x1x2x2xbf16>) -> tensor<1x1x4x4xf32> {
  %r = train.upsample_nearest2d %x {scale = 2 : i64} : tensor<1x1x2x2xbf16> -> tensor<1x1x4x4xbf16>
  %e = tensor.empty() : tensor<1x1x4x4xf32>
  %wide = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>, affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>], iterator_types = ["parallel", "parallel", "parallel", "parallel"]}
      ins(%r : tensor<1x1x4x4xbf16>) outs(%e : tensor<1x1x4x4xf32>) {
    ^bb0(%in: bf16, %out: f32):
      %f = arith.extf %in : bf16 to f32
      linalg.yield %f : f32
    } -> tensor<1x1x4x4xf32>
  return %wide : tensor<1x1x4x4xf32>
}

func.func @up_bf16_grad(%dy: tensor<1x1x4x4xbf16>) -> tensor<1x1x2x2xf32> {
  %r = train.upsample_nearest2d_grad %dy {scale = 2 : i64} : tensor<1x1x4x4xbf16> -> tensor<1x1x2x2xbf16>
  %e = tensor.empty() : tensor<1x1x2x2xf32>
  %wide = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>, affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>], iterator_types = ["parallel", "parallel", "parallel", "parallel"]}
      ins(%r : tensor<1x1x2x2xbf16>) outs(%e : tensor<1x1x2x2xf32>) {
    ^bb0(%in: bf16, %out: f32):
      %f = arith.extf %in : bf16 to f32
      linalg.yield %f : f32
    } -> tensor<1x1x2x2xf32>
  return %wide : tensor<1x1x2x2xf32>
}

func.func private @printMemrefF32(tensor<*xf32>)
func.func private @printMemrefF64(tensor<*xf64>)

func.func @main() {

  // f64, scale 3.
  %c1 = arith.constant dense<[[[[0.61, 0.62], [0.03, -0.43]]], [[[-0.89, -0.23], [-0.18, -0.91]]]]> : tensor<2x1x2x2xf64>
  %c2 = arith.constant dense<[[[[-0.9, 1.0, 0.3, -0.53, -0.13, 0.95], [0.8, 0.69, -0.22, -0.01, 0.35, -0.88], [0.11, -0.46, 0.76, -0.87, 0.36, 0.74], [-0.55, 0.79, 0.74, -0.96, 0.41, -1.0], [0.01, -0.13, -0.59, -0.35, 0.61, -0.37], [-0.7, 0.4, -0.1, 0.6, -0.53, -0.36]]], [[[0.6, 0.01, 0.01, -0.53, -0.97, 0.87], [-0.83, 0.69, -0.26, 0.9, -0.2, 0.87], [0.11, -0.52, 0.48, 0.35, 0.37, -0.07], [-0.56, 0.28, -0.79, 0.38, 0.27, -0.25], [0.6, -0.61, -0.22, 0.6, -0.24, 0.43], [0.23, 0.88, 0.98, 0.45, 0.62, -0.69]]]]> : tensor<2x1x6x6xf64>
  %r3 = call @up_f64(%c1) : (tensor<2x1x2x2xf64>) -> (tensor<2x1x6x6xf64>)
  %u4 = tensor.cast %r3 : tensor<2x1x6x6xf64> to tensor<*xf64>
  call @printMemrefF64(%u4) : (tensor<*xf64>) -> ()
  // CHECK: rank = 4 offset = 0 sizes = [2, 1, 6, 6] strides = [36, 36, 6, 1] data =
  // CHECK-NEXT: [0.61, 0.61, 0.61, 0.62, 0.62, 0.62]
  // CHECK-NEXT: [0.61, 0.61, 0.61, 0.62, 0.62, 0.62]
  // CHECK-NEXT: [0.61, 0.61, 0.61, 0.62, 0.62, 0.62]
  // CHECK-NEXT: [0.03, 0.03, 0.03, -0.43, -0.43, -0.43]
  // CHECK-NEXT: [0.03, 0.03, 0.03, -0.43, -0.43, -0.43]
  // CHECK-NEXT: [0.03, 0.03, 0.03, -0.43, -0.43, -0.43]
  // CHECK-NEXT: [-0.89, -0.89, -0.89, -0.23, -0.23, -0.23]
  // CHECK-NEXT: [-0.89, -0.89, -0.89, -0.23, -0.23, -0.23]
  // CHECK-NEXT: [-0.89, -0.89, -0.89, -0.23, -0.23, -0.23]
  // CHECK-NEXT: [-0.18, -0.18, -0.18, -0.91, -0.91, -0.91]
  // CHECK-NEXT: [-0.18, -0.18, -0.18, -0.91, -0.91, -0.91]
  // CHECK-NEXT: [-0.18, -0.18, -0.18, -0.91, -0.91, -0.91]
  %r5 = call @up_f64_grad(%c2) : (tensor<2x1x6x6xf64>) -> (tensor<2x1x2x2xf64>)
  %u6 = tensor.cast %r5 : tensor<2x1x2x2xf64> to tensor<*xf64>
  call @printMemrefF64(%u6) : (tensor<*xf64>) -> ()
  // CHECK: rank = 4 offset = 0 sizes = [2, 1, 2, 2] strides = [4, 4, 2, 1] data =
  // CHECK-NEXT: [2.08, -0.02]
  // CHECK-NEXT: [-0.13, -1.95]
  // CHECK-NEXT: [0.29, 1.59]
  // CHECK-NEXT: [0.79, 1.57]

  // f32, scale 2.
  %c7 = arith.constant dense<[[[[0.4300000071525574, 0.699999988079071, -0.20000000298023224], [0.10999999940395355, -0.03999999910593033, 0.9200000166893005]], [[-0.3700000047683716, -0.20000000298023224, -1.0], [-0.1599999964237213, 0.25999999046325684, 0.8700000047683716]]]]> : tensor<1x2x2x3xf32>
  %c8 = arith.constant dense<[[[[0.8500000238418579, -0.3499999940395355, 0.9800000190734863, -0.6200000047683716, 0.6499999761581421, -0.6899999976158142], [-0.1899999976158142, -0.8500000238418579, 0.7200000286102295, 0.6600000262260437, -0.7200000286102295, 0.05000000074505806], [-0.47999998927116394, -0.019999999552965164, 0.10999999940395355, -0.7900000214576721, 0.7300000190734863, -0.4399999976158142], [-0.10999999940395355, -0.8899999856948853, -0.9900000095367432, -0.6100000143051147, -0.3199999928474426, 0.8600000143051147]], [[0.7799999713897705, -0.03999999910593033, -0.09000000357627869, 0.33000001311302185, 0.7200000286102295, -0.33000001311302185], [0.5899999737739563, -0.20000000298023224, 0.1899999976158142, 0.4699999988079071, 0.0, 0.3799999952316284], [0.38999998569488525, -0.9900000095367432, -0.9200000166893005, -0.699999988079071, -0.5699999928474426, -0.5899999737739563], [-0.8999999761581421, -0.5699999928474426, 0.20000000298023224, 0.7699999809265137, -0.30000001192092896, -0.27000001072883606]]]]> : tensor<1x2x4x6xf32>
  %r9 = call @up_f32(%c7) : (tensor<1x2x2x3xf32>) -> (tensor<1x2x4x6xf32>)
  %u10 = tensor.cast %r9 : tensor<1x2x4x6xf32> to tensor<*xf32>
  call @printMemrefF32(%u10) : (tensor<*xf32>) -> ()
  // CHECK: rank = 4 offset = 0 sizes = [1, 2, 4, 6] strides = [48, 24, 6, 1] data =
  // CHECK-NEXT: [{{(0\.429999|0\.43|0\.430001)}}, {{(0\.429999|0\.43|0\.430001)}}, {{(0\.69999[0-9]*|0\.7(0000[0-9]*)?)}}, {{(0\.69999[0-9]*|0\.7(0000[0-9]*)?)}}, {{(-0\.199999|-0\.2|-0\.200001)}}, {{(-0\.199999|-0\.2|-0\.200001)}}]
  // CHECK-NEXT: [{{(0\.429999|0\.43|0\.430001)}}, {{(0\.429999|0\.43|0\.430001)}}, {{(0\.69999[0-9]*|0\.7(0000[0-9]*)?)}}, {{(0\.69999[0-9]*|0\.7(0000[0-9]*)?)}}, {{(-0\.199999|-0\.2|-0\.200001)}}, {{(-0\.199999|-0\.2|-0\.200001)}}]
  // CHECK-NEXT: [0.11, 0.11, {{(-0\.0399999|-0\.04|-0\.0400001)}}, {{(-0\.0399999|-0\.04|-0\.0400001)}}, {{(0\.91999[0-9]*|0\.92(000[0-9]*)?)}}, {{(0\.91999[0-9]*|0\.92(000[0-9]*)?)}}]
  // CHECK-NEXT: [0.11, 0.11, {{(-0\.0399999|-0\.04|-0\.0400001)}}, {{(-0\.0399999|-0\.04|-0\.0400001)}}, {{(0\.91999[0-9]*|0\.92(000[0-9]*)?)}}, {{(0\.91999[0-9]*|0\.92(000[0-9]*)?)}}]
  // CHECK-NEXT: [{{(-0\.369999|-0\.37|-0\.370001)}}, {{(-0\.369999|-0\.37|-0\.370001)}}, {{(-0\.199999|-0\.2|-0\.200001)}}, {{(-0\.199999|-0\.2|-0\.200001)}}, {{(-0\.999997|-1)}}, {{(-0\.999997|-1)}}]
  // CHECK-NEXT: [{{(-0\.369999|-0\.37|-0\.370001)}}, {{(-0\.369999|-0\.37|-0\.370001)}}, {{(-0\.199999|-0\.2|-0\.200001)}}, {{(-0\.199999|-0\.2|-0\.200001)}}, {{(-0\.999997|-1)}}, {{(-0\.999997|-1)}}]
  // CHECK-NEXT: [-0.16, -0.16, {{(0\.259999|0\.26|0\.260001)}}, {{(0\.259999|0\.26|0\.260001)}}, {{(0\.86999[0-9]*|0\.87(000[0-9]*)?)}}, {{(0\.86999[0-9]*|0\.87(000[0-9]*)?)}}]
  // CHECK-NEXT: [-0.16, -0.16, {{(0\.259999|0\.26|0\.260001)}}, {{(0\.259999|0\.26|0\.260001)}}, {{(0\.86999[0-9]*|0\.87(000[0-9]*)?)}}, {{(0\.86999[0-9]*|0\.87(000[0-9]*)?)}}]
  %r11 = call @up_f32_grad(%c8) : (tensor<1x2x4x6xf32>) -> (tensor<1x2x2x3xf32>)
  %u12 = tensor.cast %r11 : tensor<1x2x2x3xf32> to tensor<*xf32>
  call @printMemrefF32(%u12) : (tensor<*xf32>) -> ()
  // CHECK: rank = 4 offset = 0 sizes = [1, 2, 2, 3] strides = [12, 6, 3, 1] data =
  // CHECK-NEXT: [{{(-0\.540001[0-9]*|-0\.54(0000[0-9]*)?|-0\.539999[0-9]*|-0\.539998[0-9]*)}}, {{(1\.73999|1\.74|1\.74001)}}, {{(-0\.71(000[0-9]*)?|-0\.70999[0-9]*)}}]
  // CHECK-NEXT: [-1.5, {{(-2\.27999|-2\.28|-2\.28001)}}, {{(0\.82999[0-9]*|0\.83(000[0-9]*)?)}}]
  // CHECK-NEXT: [1.13, {{(0\.89999[0-9]*|0\.9(0000[0-9]*)?)}}, {{(0\.76999[0-9]*|0\.77(000[0-9]*)?)}}]
  // CHECK-NEXT: [{{(-2\.06999|-2\.07|-2\.07001)}}, {{(-0\.650001[0-9]*|-0\.65(0000[0-9]*)?|-0\.649999[0-9]*|-0\.649998[0-9]*)}}, {{(-1\.72999|-1\.73|-1\.73001)}}]

  // bf16, scale 2 (block sums accumulated in f32).
  %c13 = arith.constant dense<[[[[2.0, -1.0], [-2.0, 2.0]]]]> : tensor<1x1x2x2xbf16>
  %c14 = arith.constant dense<[[[[-3.0, 3.0, -1.0, 4.0], [-2.0, -1.0, 3.0, 2.0], [-4.0, -1.0, -4.0, 3.0], [-1.0, -2.0, 2.0, 3.0]]]]> : tensor<1x1x4x4xbf16>
  %r15 = call @up_bf16(%c13) : (tensor<1x1x2x2xbf16>) -> (tensor<1x1x4x4xf32>)
  %u16 = tensor.cast %r15 : tensor<1x1x4x4xf32> to tensor<*xf32>
  call @printMemrefF32(%u16) : (tensor<*xf32>) -> ()
  // CHECK: rank = 4 offset = 0 sizes = [1, 1, 4, 4] strides = [16, 16, 4, 1] data =
  // CHECK-NEXT: [2, 2, -1, -1]
  // CHECK-NEXT: [2, 2, -1, -1]
  // CHECK-NEXT: [-2, -2, 2, 2]
  // CHECK-NEXT: [-2, -2, 2, 2]
  %r17 = call @up_bf16_grad(%c14) : (tensor<1x1x4x4xbf16>) -> (tensor<1x1x2x2xf32>)
  %u18 = tensor.cast %r17 : tensor<1x1x2x2xf32> to tensor<*xf32>
  call @printMemrefF32(%u18) : (tensor<*xf32>) -> ()
  // CHECK: rank = 4 offset = 0 sizes = [1, 1, 2, 2] strides = [4, 4, 2, 1] data =
  // CHECK-NEXT: [-3, 8]
  // CHECK-NEXT: [-8, 4]
  return
}
