// Executes softmax (last and inner axes, scale, causal masks with K > Q and
// Q > K, bf16) and softmax_grad after convert-train-to-linalg. Expected
// values: numpy (float64) from the documented semantics; the gradients are
// the exact gradients of the forward op for a random upstream gradient
// (checked against central finite differences when they were computed).
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

func.func @main() {

  // last axis, scale 0.5, and its gradient
  %x1 = arith.constant dense<[[[-1.3036, -0.3494, 3.3274, 1.3183], [-3.2828, -0.0104, -1.2469, 0.2973], [-3.2164, 0.4835, 0.4708, 3.1513]], [[0.6333, 1.0211, -2.9862, 4.5055], [-3.8313, 2.2036, -0.6598, -1.7613], [-1.3126, -1.344, 0.7604, -0.2201]]]> : tensor<2x3x4xf64>
  %y1 = train.softmax %x1 {scale = 0.5 : f64} : tensor<2x3x4xf64>
  %dy1 = arith.constant dense<[[[1.4826, -1.8296, -0.0031, -0.8921], [0.7759, -2.1181, -0.3437, 0.2102], [-1.4843, 0.9852, 0.1787, 1.0069]], [[0.9592, -0.9799, -0.7978, -0.2033], [0.748, 0.851, -0.7097, -0.6072], [-0.7978, -0.5842, -0.2379, -0.1318]]]> : tensor<2x3x4xf64>
  %d1 = train.softmax_grad %dy1, %y1 {scale = 0.5 : f64} : tensor<2x3x4xf64>
  // CHECK: Unranked Memref {{.*}} sizes = [2, 3, 4]
  // CHECK-NEXT: {{\[\[\[}}0.0607863, 0.0979507, 0.615764, 0.225499],
  // CHECK-NEXT: [0.0671462, 0.344837, 0.185828, 0.402189],
  // CHECK-NEXT: [0.0264423, 0.16816, 0.167095, 0.638303]],
  // CHECK-NEXT: {{\[\[}}0.107419, 0.130404, 0.017584, 0.744593],
  // CHECK-NEXT: [0.0343204, 0.701479, 0.167585, 0.0966157],
  // CHECK-NEXT: [0.153127, 0.150742, 0.431716, 0.264415]]]
  %pu1 = tensor.cast %y1 : tensor<2x3x4xf64> to tensor<*xf64>
  call @printMemrefF64(%pu1) : (tensor<*xf64>) -> ()
  // CHECK: Unranked Memref {{.*}} sizes = [2, 3, 4]
  // CHECK-NEXT: {{\[\[\[}}0.0539407, -0.0752964, 0.088998, -0.0676423],
  // CHECK-NEXT: [0.048128, -0.251812, 0.0291684, 0.174516],
  // CHECK-NEXT: [-0.0301877, 0.0156565, -0.0518237, 0.0663549]],
  // CHECK-NEXT: {{\[\[}}0.0617311, -0.0514932, -0.00534244, -0.0048954],
  // CHECK-NEXT: [0.00519903, 0.14239, -0.0967577, -0.050831],
  // CHECK-NEXT: [-0.0344549, -0.0178189, 0.0237192, 0.0285546]]]
  %pu2 = tensor.cast %d1 : tensor<2x3x4xf64> to tensor<*xf64>
  call @printMemrefF64(%pu2) : (tensor<*xf64>) -> ()

  // axis 0 of a 3-d tensor, and its gradient
  %x2 = arith.constant dense<[[[2.0581, -0.5064], [-0.2887, 0.4586]], [[-0.9531, -0.3686], [0.0133, 0.7741]], [[-1.316, 1.3715], [-0.3525, 0.1694]]]> : tensor<3x2x2xf64>
  %y2 = train.softmax %x2 {axis = 0 : i64} : tensor<3x2x2xf64>
  %dy2 = arith.constant dense<[[[0.8471, 0.6608], [1.0592, 0.1732]], [[-0.0196, 0.3165], [-0.9957, 1.2142]], [[-0.7754, -1.2602], [2.0564, -0.1364]]]> : tensor<3x2x2xf64>
  %d2 = train.softmax_grad %dy2, %y2 {axis = 0 : i64} : tensor<3x2x2xf64>
  // CHECK: Unranked Memref {{.*}} sizes = [3, 2, 2]
  // CHECK-NEXT: {{\[\[\[}}0.922951, 0.115108],
  // CHECK-NEXT: [0.303882, 0.320533]],
  // CHECK-NEXT: {{\[\[}}0.0454392, 0.132115],
  // CHECK-NEXT: [0.411019, 0.439433]],
  // CHECK-NEXT: {{\[\[}}0.0316101, 0.752778],
  // CHECK-NEXT: [0.2851, 0.240035]]]
  %pu3 = tensor.cast %y2 : tensor<3x2x2xf64> to tensor<*xf64>
  call @printMemrefF64(%pu3) : (tensor<*xf64>) -> ()
  // CHECK: Unranked Memref {{.*}} sizes = [3, 2, 2]
  // CHECK-NEXT: {{\[\[\[}}0.0836835, 0.171692],
  // CHECK-NEXT: [0.170265, -0.122807]],
  // CHECK-NEXT: {{\[\[}}-0.0352622, 0.151571],
  // CHECK-NEXT: [-0.614308, 0.289088]],
  // CHECK-NEXT: {{\[\[}}-0.0484213, -0.323263],
  // CHECK-NEXT: [0.444043, -0.16628]]]
  %pu4 = tensor.cast %d2 : tensor<3x2x2xf64> to tensor<*xf64>
  call @printMemrefF64(%pu4) : (tensor<*xf64>) -> ()

  // axis -2 (an inner axis), scale 2
  %x3 = arith.constant dense<[[[-1.1791, 1.8523], [-0.3297, 1.0621], [-0.8295, -0.2488]], [[-1.6885, -1.9089], [-0.9764, -0.078], [0.798, 2.4262]]]> : tensor<2x3x2xf64>
  %y3 = train.softmax %x3 {axis = -2 : i64, scale = 2.0 : f64} : tensor<2x3x2xf64>
  %dy3 = arith.constant dense<[[[-1.0319, 1.009], [-0.6043, -0.1525], [-1.4812, -1.479]], [[-0.7785, -1.1931], [-0.0036, -0.7025], [1.2507, 0.153]]]> : tensor<2x3x2xf64>
  %d3 = train.softmax_grad %dy3, %y3 {axis = -2 : i64, scale = 2.0 : f64} : tensor<2x3x2xf64>
  // CHECK: Unranked Memref {{.*}} sizes = [2, 3, 2]
  // CHECK-NEXT: {{\[\[\[}}0.117931, 0.819098],
  // CHECK-NEXT: [0.644775, 0.168646],
  // CHECK-NEXT: [0.237294, 0.0122559]],
  // CHECK-NEXT: {{\[\[}}0.00668386, 0.000170457],
  // CHECK-NEXT: [0.0277683, 0.00663611],
  // CHECK-NEXT: [0.965548, 0.993193]]]
  %pu5 = tensor.cast %y3 : tensor<2x3x2xf64> to tensor<*xf64>
  call @printMemrefF64(%pu5) : (tensor<*xf64>) -> ()
  // CHECK: Unranked Memref {{.*}} sizes = [2, 3, 2]
  // CHECK-NEXT: {{\[\[\[}}-0.0398818, 0.370847],
  // CHECK-NEXT: [0.333362, -0.315411],
  // CHECK-NEXT: [-0.29348, -0.0554363]],
  // CHECK-NEXT: {{\[\[}}-0.0264789, -0.00045689],
  // CHECK-NEXT: [-0.066972, -0.011276],
  // CHECK-NEXT: [0.0934509, 0.0117329]]]
  %pu6 = tensor.cast %d3 : tensor<2x3x2xf64> to tensor<*xf64>
  call @printMemrefF64(%pu6) : (tensor<*xf64>) -> ()

  // causal, K > Q (j > i + 2 masked), scale 0.25, and its gradient
  %x4 = arith.constant dense<[[[0.1652, 1.1374, 0.5181, -0.0373, -0.0907], [-0.1209, 1.0767, 0.7831, 0.3659, 0.7988], [-0.5445, 0.511, -1.4123, 1.3473, 0.09]], [[0.1834, 0.5994, -0.0097, -0.2541, 1.1898], [0.1158, -0.9159, 0.4396, -1.7051, 1.6555], [-0.1711, 0.0459, 2.2578, 2.1517, 0.1158]]]> : tensor<2x3x5xf64>
  %y4 = train.softmax %x4 {causal, scale = 0.25 : f64} : tensor<2x3x5xf64>
  %dy4 = arith.constant dense<[[[0.6249, 1.0902, 1.682, -0.1311, 0.1353], [1.2246, 0.2696, 0.7545, 0.6099, -1.1349], [-0.8589, -2.6413, -0.2601, 1.3388, -1.1092]], [[1.2338, 0.9995, -0.0548, -0.0076, 0.0828], [-0.8611, -0.2823, -0.0466, 0.6119, 0.7918], [-0.7427, 0.8257, -0.7779, -0.1689, 0.3695]]]> : tensor<2x3x5xf64>
  %d4 = train.softmax_grad %dy4, %y4 {scale = 0.25 : f64} : tensor<2x3x5xf64>
  // CHECK: Unranked Memref {{.*}} sizes = [2, 3, 5]
  // CHECK-NEXT: {{\[\[\[}}0.296968, 0.378674, 0.324358, 0, 0],
  // CHECK-NEXT: [0.211325, 0.285088, 0.264912, 0.238674, 0],
  // CHECK-NEXT: [0.169965, 0.221289, 0.136817, 0.272747, 0.199182]],
  // CHECK-NEXT: {{\[\[}}0.326534, 0.362322, 0.311145, 0, 0],
  // CHECK-NEXT: [0.286428, 0.22131, 0.310579, 0.181683, 0],
  // CHECK-NEXT: [0.148088, 0.156344, 0.271791, 0.264677, 0.1591]]]
  %pu7 = tensor.cast %y4 : tensor<2x3x5xf64> to tensor<*xf64>
  call @printMemrefF64(%pu7) : (tensor<*xf64>) -> ()
  // CHECK: Unranked Memref {{.*}} sizes = [2, 3, 5]
  // CHECK-NEXT: {{\[\[\[}}-0.0385373, -0.0050909, 0.0436282, -0, -0],
  // CHECK-NEXT: [0.0287142, -0.0293279, 0.00486164, -0.00424795, -0],
  // CHECK-NEXT: [-0.010073, -0.111721, 0.012373, 0.13369, -0.0242684]],
  // CHECK-NEXT: {{\[\[}}0.0396602, 0.022784, -0.0624442, -0, -0],
  // CHECK-NEXT: [-0.0464501, -0.00386626, 0.0128751, 0.0374412, 0],
  // CHECK-NEXT: [-0.0208977, 0.0392398, -0.0407459, 0.000617662, 0.0217862]]]
  %pu8 = tensor.cast %d4 : tensor<2x3x5xf64> to tensor<*xf64>
  call @printMemrefF64(%pu8) : (tensor<*xf64>) -> ()

  // causal, Q > K: rows 0 and 1 are fully masked (all zeros)
  %x5 = arith.constant dense<[[-0.0227, -0.127], [0.2694, -0.5528], [-0.6527, -0.2041], [0.9613, -0.1017]]> : tensor<4x2xf64>
  %y5 = train.softmax %x5 {causal} : tensor<4x2xf64>
  // CHECK: Unranked Memref {{.*}} sizes = [4, 2]
  // CHECK-NEXT: {{\[\[}}0, 0],
  // CHECK-NEXT: [0, 0],
  // CHECK-NEXT: [1, 0],
  // CHECK-NEXT: [0.743263, 0.256737]]
  %pu9 = tensor.cast %y5 : tensor<4x2xf64> to tensor<*xf64>
  call @printMemrefF64(%pu9) : (tensor<*xf64>) -> ()

  // large inputs (numerical stability), f32
  %x6 = arith.constant dense<[[1000.0, 999.0, 998.0], [-1000.0, -1002.0, -1001.0]]> : tensor<2x3xf32>
  %y6 = train.softmax %x6 : tensor<2x3xf32>
  // CHECK: Unranked Memref {{.*}} sizes = [2, 3]
  // CHECK-NEXT: {{\[\[}}0.66524{{([1-9])?}}, 0.24472{{([1-9])?}}, 0.09003{{(0[1-9])?}}],
  // CHECK-NEXT: [0.66524{{([1-9])?}}, 0.09003{{(0[1-9])?}}, 0.24472{{([1-9])?}}]]
  %pu10 = tensor.cast %y6 : tensor<2x3xf32> to tensor<*xf32>
  call @printMemrefF32(%pu10) : (tensor<*xf32>) -> ()

  // bf16 in and out, computed in f32
  %x7 = arith.constant dense<[[1.90625, 0.2138671875, -2.96875, -0.439453125], [1.6640625, 0.00628662109375, -0.4375, -0.875]]> : tensor<2x4xbf16>
  %y7 = train.softmax %x7 : tensor<2x4xbf16>
  %pe11 = tensor.empty() : tensor<2x4xf32>
  %px11 = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%y7 : tensor<2x4xbf16>) outs(%pe11 : tensor<2x4xf32>) {
  ^bb0(%in: bf16, %out: f32):
    %c = arith.extf %in : bf16 to f32
    linalg.yield %c : f32
  } -> tensor<2x4xf32>
  // CHECK: Unranked Memref {{.*}} sizes = [2, 4]
  // CHECK-NEXT: {{\[\[}}0.77734{{([1-9])?}}, 0.14257{{([1-9])?}}, 0.0059204{{([1-9])?}}, 0.074218{{([1-9])?}}],
  // CHECK-NEXT: [0.71875{{([1-9])?}}, 0.13671{{([1-9])?}}, 0.08789{{(0[1-9])?}}, 0.05664{{(0[1-9])?}}]]
  %pu11 = tensor.cast %px11 : tensor<2x4xf32> to tensor<*xf32>
  call @printMemrefF32(%pu11) : (tensor<*xf32>) -> ()

  // causal square bf16
  %x8 = arith.constant dense<[[[1.3203125, 1.0, 0.671875], [0.427734375, 1.4375, 0.8203125], [-1.2265625, 0.76953125, 0.169921875]]]> : tensor<1x3x3xbf16>
  %y8 = train.softmax %x8 {causal} : tensor<1x3x3xbf16>
  %pe12 = tensor.empty() : tensor<1x3x3xf32>
  %px12 = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2) -> (d0, d1, d2)>, affine_map<(d0, d1, d2) -> (d0, d1, d2)>], iterator_types = ["parallel", "parallel", "parallel"]} ins(%y8 : tensor<1x3x3xbf16>) outs(%pe12 : tensor<1x3x3xf32>) {
  ^bb0(%in: bf16, %out: f32):
    %c = arith.extf %in : bf16 to f32
    linalg.yield %c : f32
  } -> tensor<1x3x3xf32>
  // CHECK: Unranked Memref {{.*}} sizes = [1, 3, 3]
  // CHECK-NEXT: {{\[\[\[}}1, 0, 0],
  // CHECK-NEXT: [0.267578, 0.734375, 0],
  // CHECK-NEXT: [0.0805664, 0.59375, 0.326172]]]
  %pu12 = tensor.cast %px12 : tensor<1x3x3xf32> to tensor<*xf32>
  call @printMemrefF32(%pu12) : (tensor<*xf32>) -> ()
  return
}
