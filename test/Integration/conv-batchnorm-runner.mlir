// Executes batch_norm and batch_norm_grad (training mode) on the CPU.
// Expected values were computed independently in f64 with numpy: the
// forward from the documented formula (biased variance over N, H, W), the
// gradients by central finite differences of sum(dy * y) with respect to
// x, gamma and beta, with a random dy. batch_norm_grad is fed the
// statistics batch_norm returned (f32). Values are checked to the
// precision of the computation: f32 statistics, f32 or bf16 arithmetic.
// RUN: mem-opt %s --convert-train-to-linalg --memopt-lower-to-cpu \
// RUN:   | %mlir_runner -e main -entry-point-result=void %runner_libs \
// RUN:   | FileCheck %s
// The same through memopt-lower-to-gpu's kernels, run as CPU loops (every
// reduction a block reduction, matmuls through the CPU cuBLAS stand-in):
// RUN: mem-opt %s --convert-train-to-linalg %gpu_emulator \
// RUN:   | %mlir_runner -e main -entry-point-result=void %runner_libs \
// RUN:   | FileCheck %s

func.func @bn_f64(%x: tensor<2x3x2x3xf64>, %g: tensor<3xf64>, %b: tensor<3xf64>) -> (tensor<2x3x2x3xf64>, tensor<3xf32>, tensor<3xf32>) {
  %y, %mean, %rstd = train.batch_norm %x, %g, %b {epsilon = 1.000000e-05 : f64}
      : tensor<2x3x2x3xf64>, tensor<3xf64>, tensor<3xf64> -> tensor<2x3x2x3xf64>, tensor<3xf32>, tensor<3xf32>
  return %y, %mean, %rstd : tensor<2x3x2x3xf64>, tensor<3xf32>, tensor<3xf32>
}

func.func @bn_f64_grad(%dy: tensor<2x3x2x3xf64>, %x: tensor<2x3x2x3xf64>, %g: tensor<3xf64>, %mean: tensor<3xf32>, %rstd: tensor<3xf32>) -> (tensor<2x3x2x3xf64>, tensor<3xf64>, tensor<3xf64>) {
  %dx, %dg, %db = train.batch_norm_grad %dy, %x, %g, %mean, %rstd
      : tensor<2x3x2x3xf64>, tensor<2x3x2x3xf64>, tensor<3xf64>, tensor<3xf32>, tensor<3xf32> -> tensor<2x3x2x3xf64>, tensor<3xf64>, tensor<3xf64>
  return %dx, %dg, %db : tensor<2x3x2x3xf64>, tensor<3xf64>, tensor<3xf64>
}

func.func @bn_f32(%x: tensor<3x2x2x2xf32>, %g: tensor<2xf32>, %b: tensor<2xf32>) -> (tensor<3x2x2x2xf32>, tensor<2xf32>, tensor<2xf32>) {
  %y, %mean, %rstd = train.batch_norm %x, %g, %b {epsilon = 1.000000e-03 : f64}
      : tensor<3x2x2x2xf32>, tensor<2xf32>, tensor<2xf32> -> tensor<3x2x2x2xf32>, tensor<2xf32>, tensor<2xf32>
  return %y, %mean, %rstd : tensor<3x2x2x2xf32>, tensor<2xf32>, tensor<2xf32>
}

func.func @bn_f32_grad(%dy: tensor<3x2x2x2xf32>, %x: tensor<3x2x2x2xf32>, %g: tensor<2xf32>, %mean: tensor<2xf32>, %rstd: tensor<2xf32>) -> (tensor<3x2x2x2xf32>, tensor<2xf32>, tensor<2xf32>) {
  %dx, %dg, %db = train.batch_norm_grad %dy, %x, %g, %mean, %rstd
      : tensor<3x2x2x2xf32>, tensor<3x2x2x2xf32>, tensor<2xf32>, tensor<2xf32>, tensor<2xf32> -> tensor<3x2x2x2xf32>, tensor<2xf32>, tensor<2xf32>
  return %dx, %dg, %db : tensor<3x2x2x2xf32>, tensor<2xf32>, tensor<2xf32>
}

func.func @bn_bf16(%x: tensor<2x2x2x2xbf16>, %g: tensor<2xf32>, %b: tensor<2xf32>) -> (tensor<2x2x2x2xf32>, tensor<2xf32>, tensor<2xf32>) {
  %y, %mean, %rstd = train.batch_norm %x, %g, %b {epsilon = 1.000000e-05 : f64}
      : tensor<2x2x2x2xbf16>, tensor<2xf32>, tensor<2xf32> -> tensor<2x2x2x2xbf16>, tensor<2xf32>, tensor<2xf32>
  %e = tensor.empty() : tensor<2x2x2x2xf32>
  %wide = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>, affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>], iterator_types = ["parallel", "parallel", "parallel", "parallel"]}
      ins(%y : tensor<2x2x2x2xbf16>) outs(%e : tensor<2x2x2x2xf32>) {
    ^bb0(%in: bf16, %out: f32):
      %f = arith.extf %in : bf16 to f32
      linalg.yield %f : f32
    } -> tensor<2x2x2x2xf32>
  return %wide, %mean, %rstd : tensor<2x2x2x2xf32>, tensor<2xf32>, tensor<2xf32>
}

func.func @bn_bf16_grad(%dy: tensor<2x2x2x2xbf16>, %x: tensor<2x2x2x2xbf16>, %g: tensor<2xf32>, %mean: tensor<2xf32>, %rstd: tensor<2xf32>) -> (tensor<2x2x2x2xf32>, tensor<2xf32>, tensor<2xf32>) {
  %dx, %dg, %db = train.batch_norm_grad %dy, %x, %g, %mean, %rstd
      : tensor<2x2x2x2xbf16>, tensor<2x2x2x2xbf16>, tensor<2xf32>, tensor<2xf32>, tensor<2xf32> -> tensor<2x2x2x2xbf16>, tensor<2xf32>, tensor<2xf32>
  %e = tensor.empty() : tensor<2x2x2x2xf32>
  %wide = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>, affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>], iterator_types = ["parallel", "parallel", "parallel", "parallel"]}
      ins(%dx : tensor<2x2x2x2xbf16>) outs(%e : tensor<2x2x2x2xf32>) {
    ^bb0(%in: bf16, %out: f32):
      %f = arith.extf %in : bf16 to f32
      linalg.yield %f : f32
    } -> tensor<2x2x2x2xf32>
  return %wide, %dg, %db : tensor<2x2x2x2xf32>, tensor<2xf32>, tensor<2xf32>
}

func.func private @printMemrefF32(tensor<*xf32>)
func.func private @printMemrefF64(tensor<*xf64>)

func.func @main() {

  // f64 input, f64 gamma and beta, eps 1e-5.
  %c1 = arith.constant dense<[[[[-1.16, -0.55, 1.71], [0.83, -1.12, 0.23]], [[-1.08, -2.36, -0.06], [-2.55, -1.44, -0.93]], [[2.72, 3.35, 3.95], [4.83, 2.14, 3.59]]], [[[1.28, -0.33, -1.49], [2.39, -0.31, -0.24]], [[0.57, -0.66, -1.11], [0.09, -2.88, -0.17]], [[2.5, 1.36, 3.64], [4.73, 1.83, 3.52]]]]> : tensor<2x3x2x3xf64>
  %c2 = arith.constant dense<[0.8, 1.24, 1.22]> : tensor<3xf64>
  %c3 = arith.constant dense<[-0.56, 0.66, 0.32]> : tensor<3xf64>
  %c4 = arith.constant dense<[[[[0.37, 0.64, -0.14], [0.52, 0.76, -0.8]], [[0.7, -0.21, -0.04], [-0.71, 0.4, -0.42]], [[0.74, -0.45, 0.12], [-0.2, 0.23, -0.61]]], [[[-0.64, 0.49, 0.5], [0.13, 0.84, -0.59]], [[0.7, -0.66, 0.93], [0.25, 0.21, 0.94]], [[0.57, 0.58, -0.89], [-0.26, -0.83, -0.61]]]]> : tensor<2x3x2x3xf64>
  %r5:3 = call @bn_f64(%c1, %c2, %c3) : (tensor<2x3x2x3xf64>, tensor<3xf64>, tensor<3xf64>) -> (tensor<2x3x2x3xf64>, tensor<3xf32>, tensor<3xf32>)
  %r8:3 = call @bn_f64_grad(%c4, %c1, %c2, %r5#1, %r5#2) : (tensor<2x3x2x3xf64>, tensor<2x3x2x3xf64>, tensor<3xf64>, tensor<3xf32>, tensor<3xf32>) -> (tensor<2x3x2x3xf64>, tensor<3xf64>, tensor<3xf64>)
  %u11 = tensor.cast %r5#0 : tensor<2x3x2x3xf64> to tensor<*xf64>
  call @printMemrefF64(%u11) : (tensor<*xf64>) -> ()
  // CHECK: rank = 4 offset = 0 sizes = [2, 3, 2, 3] strides = [18, 6, 3, 1] data =
  // CHECK-NEXT: [-1.42787, -1.00882, 0.543735]
  // CHECK-NEXT: [-0.0608004, -1.4004, -0.472984]
  // CHECK-NEXT: [0.622725, -0.883966, 1.82337]
  // CHECK-NEXT: [-1.10762, 0.198968, 0.79929]
  // CHECK-NEXT: [-0.216452, 0.518254, 1.21797]
  // CHECK-NEXT: [2.24423, -0.892848, 0.798142]
  // CHECK-NEXT: [0.248337, -0.857688, -1.65458]
  // CHECK-NEXT: [1.01088, -0.843948, -0.79586]
  // CHECK-NEXT: [2.56494, 1.11711, 0.587412]
  // CHECK-NEXT: [1.99993, -1.49606, 1.69389]
  // CHECK-NEXT: [-0.473016, -1.80248, 0.856452]
  // CHECK-NEXT: [2.12761, -1.25437, 0.716508]
  %u12 = tensor.cast %r5#1 : tensor<3xf32> to tensor<*xf32>
  call @printMemrefF32(%u12) : (tensor<*xf32>) -> ()
  // CHECK: rank = 1 offset = 0 sizes = [3] strides = [1] data =
  // CHECK-NEXT: [{{(0\.103332|0\.103333|0\.103334)}}, -1.04833, 3.18]
  %u13 = tensor.cast %r5#2 : tensor<3xf32> to tensor<*xf32>
  call @printMemrefF32(%u13) : (tensor<*xf32>) -> ()
  // CHECK: rank = 1 offset = 0 sizes = [3] strides = [1] data =
  // CHECK-NEXT: [0.858715, 0.949276, 0.955902]
  %u14 = tensor.cast %r8#0 : tensor<2x3x2x3xf64> to tensor<*xf64>
  call @printMemrefF64(%u14) : (tensor<*xf64>) -> ()
  // CHECK: rank = 4 offset = 0 sizes = [2, 3, 2, 3] strides = [18, 6, 3, 1] data =
  // CHECK-NEXT: [{{(-0\.044786[0-9]*|-0\.044785[0-9]*|-0\.044784[0-9]*)}}, {{(0\.227556|0\.227557|0\.227558)}}, {{(0\.013526[0-9]*|0\.013527[0-9]*|0\.013528[0-9]*)}}]
  // CHECK-NEXT: [{{(0\.341622|0\.341623|0\.341624)}}, {{(0\.228828|0\.228829|0\.22883)}}, {{(-0\.650615|-0\.650616|-0\.650617)}}]
  // CHECK-NEXT: [{{(0\.626287|0\.626288|0\.626289|0\.62629)}}, {{(-0\.148629|-0\.14863|-0\.148631)}}, {{(-0\.480836|-0\.480837|-0\.480838)}}]
  // CHECK-NEXT: [{{(-0\.693206|-0\.693207|-0\.693208|-0\.693209)}}, {{(0\.356476|0\.356477|0\.356478)}}, {{(-0\.726781|-0\.726782|-0\.726783)}}]
  // CHECK-NEXT: [{{(0\.917891|0\.917892|0\.917893)}}, {{(-0\.33079|-0\.330791|-0\.330792)}}, {{(0\.466413|0\.466414|0\.466415|0\.466416)}}]
  // CHECK-NEXT: [{{(0\.287521|0\.287522|0\.287523|0\.287524)}}, {{(0\.195072|0\.195073|0\.195074|0\.195075)}}, {{(-0\.464393|-0\.464394|-0\.464395|-0\.464396)}}]
  // CHECK-NEXT: [{{(-0\.391187|-0\.391188|-0\.391189)}}, {{(0\.155836|0\.155837|0\.155838)}}, {{(-0\.00247(0[0-9]*)?|-0\.002469[0-9]*|-0\.002468[0-9]*|-0\.002467[0-9]*)}}]
  // CHECK-NEXT: [{{(0\.295836|0\.295837|0\.295838)}}, {{(0\.399124|0\.399125|0\.399126|0\.399127)}}, {{(-0\.573276|-0\.573277|-0\.573278)}}]
  // CHECK-NEXT: [{{(0\.24441|0\.244411|0\.244412)}}, {{(-1\.07177|-1\.07178)}}, {{(0\.903964|0\.903965|0\.903966)}}]
  // CHECK-NEXT: [{{(-0\.174192|-0\.174193|-0\.174194)}}, {{(0\.466101|0\.466102|0\.466103)}}, {{(0\.698181|0\.698182|0\.698183)}}]
  // CHECK-NEXT: [{{(0\.671064|0\.671065|0\.671066)}}, {{(0\.431029|0\.43103|0\.431031|0\.431032)}}, {{(-0\.77989|-0\.779891|-0\.779892)}}]
  // CHECK-NEXT: [{{(0\.195471|0\.195472|0\.195473)}}, -1.10954, {{(-0\.479849|-0\.47985|-0\.479851)}}]
  %u15 = tensor.cast %r8#1 : tensor<3xf64> to tensor<*xf64>
  call @printMemrefF64(%u15) : (tensor<*xf64>) -> ()
  // CHECK: rank = 1 offset = 0 sizes = [3] strides = [1] data =
  // CHECK-NEXT: [-2.89656, {{(2\.4855|2\.48551)}}, -2.37666]
  %u16 = tensor.cast %r8#2 : tensor<3xf64> to tensor<*xf64>
  call @printMemrefF64(%u16) : (tensor<*xf64>) -> ()
  // CHECK: rank = 1 offset = 0 sizes = [3] strides = [1] data =
  // CHECK-NEXT: [2.08, 2.09, -1.61]

  // f32, eps 1e-3.
  %c17 = arith.constant dense<[[[[-0.5699999928474426, 0.7200000286102295], [-0.75, -0.4099999964237213]], [[-0.009999999776482582, 0.699999988079071], [0.9300000071525574, 0.41999998688697815]]], [[[-0.5699999928474426, 0.09000000357627869], [0.4099999964237213, -0.8999999761581421]], [[0.36000001430511475, -0.25999999046325684], [0.18000000715255737, 0.3400000035762787]]], [[[0.3400000035762787, 0.05000000074505806], [0.10999999940395355, -0.6000000238418579]], [[-0.009999999776482582, -0.75], [-0.03999999910593033, 0.07000000029802322]]]]> : tensor<3x2x2x2xf32>
  %c18 = arith.constant dense<[1.2699999809265137, 0.8899999856948853]> : tensor<2xf32>
  %c19 = arith.constant dense<[-0.9599999785423279, 0.05999999865889549]> : tensor<2xf32>
  %c20 = arith.constant dense<[[[[-0.5899999737739563, 0.47999998927116394], [-0.2199999988079071, -0.23999999463558197]], [[0.8199999928474426, -0.20999999344348907], [-0.30000001192092896, -0.30000001192092896]]], [[[-0.03999999910593033, -0.8100000023841858], [0.09000000357627869, 0.8399999737739563]], [[0.12999999523162842, 0.49000000953674316], [0.8899999856948853, 0.6800000071525574]]], [[[0.49000000953674316, 0.6299999952316284], [0.6399999856948853, -0.49000000953674316]], [[-0.03999999910593033, -0.3100000023841858], [-0.47999998927116394, 0.14000000059604645]]]]> : tensor<3x2x2x2xf32>
  %r21:3 = call @bn_f32(%c17, %c18, %c19) : (tensor<3x2x2x2xf32>, tensor<2xf32>, tensor<2xf32>) -> (tensor<3x2x2x2xf32>, tensor<2xf32>, tensor<2xf32>)
  %r24:3 = call @bn_f32_grad(%c20, %c17, %c18, %r21#1, %r21#2) : (tensor<3x2x2x2xf32>, tensor<3x2x2x2xf32>, tensor<2xf32>, tensor<2xf32>, tensor<2xf32>) -> (tensor<3x2x2x2xf32>, tensor<2xf32>, tensor<2xf32>)
  %u27 = tensor.cast %r21#0 : tensor<3x2x2x2xf32> to tensor<*xf32>
  call @printMemrefF32(%u27) : (tensor<*xf32>) -> ()
  // CHECK: rank = 4 offset = 0 sizes = [3, 2, 2, 2] strides = [8, 4, 2, 1] data =
  // CHECK-NEXT: [{{(-1\.96308|-1\.96309)}}, {{(1\.29904|1\.29905)}}]
  // CHECK-NEXT: [{{(-2\.41826|-2\.41827)}}, {{(-1\.55847|-1\.55848)}}]
  // CHECK-NEXT: [{{(-0\.29943[0-9]*|-0\.29942[0-9]*|-0\.29941[0-9]*)}}, {{(1\.19437|1\.19438)}}]
  // CHECK-NEXT: [{{(1\.67828|1\.67829)}}, {{(0\.60526[0-9]*|0\.60527[0-9]*)}}]
  // CHECK-NEXT: [{{(-1\.96308|-1\.96309)}}, {{(-0\.29409[0-9]*|-0\.29408[0-9]*)}}]
  // CHECK-NEXT: [{{(0\.51511[0-9]*|0\.51512[0-9]*|0\.51513[0-9]*)}}, {{(-2\.79758|-2\.79759)}}]
  // CHECK-NEXT: [{{(0\.47903[0-9]*|0\.47904[0-9]*)}}, {{(-0\.82541[0-9]*|-0\.8254(0[0-9]*)?)}}]
  // CHECK-NEXT: [{{(0\.10032[0-9]*|0\.10033[0-9]*)}}, {{(0\.43695[0-9]*|0\.43696[0-9]*)}}]
  // CHECK-NEXT: [{{(0\.3381(0[0-9]*)?|0\.33811[0-9]*)}}, {{(-0\.39524[0-9]*|-0\.39523[0-9]*)}}]
  // CHECK-NEXT: [{{(-0\.24351[0-9]*|-0\.2435(0[0-9]*)?)}}, {{(-2\.03894|-2\.03895)}}]
  // CHECK-NEXT: [{{(-0\.29943[0-9]*|-0\.29942[0-9]*|-0\.29941[0-9]*)}}, {{(-1\.85634|-1\.85635)}}]
  // CHECK-NEXT: [{{(-0\.36254[0-9]*|-0\.36253[0-9]*)}}, {{(-0\.13111[0-9]*|-0\.1311(0[0-9]*)?)}}]
  %u28 = tensor.cast %r21#1 : tensor<2xf32> to tensor<*xf32>
  call @printMemrefF32(%u28) : (tensor<*xf32>) -> ()
  // CHECK: rank = 1 offset = 0 sizes = [2] strides = [1] data =
  // CHECK-NEXT: [{{(-0\.173333|-0\.173334)}}, {{(0\.160833|0\.160834)}}]
  %u29 = tensor.cast %r21#2 : tensor<2xf32> to tensor<*xf32>
  call @printMemrefF32(%u29) : (tensor<*xf32>) -> ()
  // CHECK: rank = 1 offset = 0 sizes = [2] strides = [1] data =
  // CHECK-NEXT: [1.99117, {{(2\.36398|2\.36399)}}]
  %u30 = tensor.cast %r24#0 : tensor<3x2x2x2xf32> to tensor<*xf32>
  call @printMemrefF32(%u30) : (tensor<*xf32>) -> ()
  // CHECK: rank = 4 offset = 0 sizes = [3, 2, 2, 2] strides = [8, 4, 2, 1] data =
  // CHECK-NEXT: [{{(-1\.36676|-1\.36677)}}, {{(0\.39725[0-9]*|0\.39726[0-9]*)}}]
  // CHECK-NEXT: [{{(-0\.2997(0[0-9]*)?|-0\.29969[0-9]*)}}, {{(-0\.5985(0[0-9]*)?|-0\.59849[0-9]*)}}]
  // CHECK-NEXT: [{{(1\.42192|1\.42193|1\.42194)}}, {{(-0\.58488[0-9]*|-0\.58487[0-9]*)}}]
  // CHECK-NEXT: [{{(-0\.72233[0-9]*|-0\.72232[0-9]*|-0\.72231[0-9]*)}}, {{(-0\.83744[0-9]*|-0\.83743[0-9]*|-0\.83742[0-9]*)}}]
  // CHECK-NEXT: [{{(0\.02406[0-9]*|0\.02407[0-9]*)}}, {{(-2\.40493|-2\.40494)}}]
  // CHECK-NEXT: [{{(-0\.36265[0-9]*|-0\.36264[0-9]*)}}, {{(2\.49031|2\.49032|2\.49033)}}]
  // CHECK-NEXT: [{{(0\.05371[0-9]*|0\.05372[0-9]*)}}, {{(0\.67119[0-9]*|0\.6712(0[0-9]*)?)}}]
  // CHECK-NEXT: [{{(1\.61209|1\.6121)}}, {{(1\.20637|1\.20638|1\.20639)}}]
  // CHECK-NEXT: [{{(0\.69996[0-9]*|0\.69997[0-9]*)}}, {{(1\.26571|1\.26572)}}]
  // CHECK-NEXT: [{{(1\.24719|1\.2472|1\.24721)}}, {{(-1\.09198|-1\.09199)}}]
  // CHECK-NEXT: [{{(-0\.38747[0-9]*|-0\.38746[0-9]*|-0\.38745[0-9]*)}}, {{(-1\.12255|-1\.12256)}}]
  // CHECK-NEXT: [{{(-1\.31996|-1\.31997|-1\.31998)}}, {{(0\.00929[0-9]*|0\.0093(0[0-9]*)?|0\.00931[0-9]*)}}]
  %u31 = tensor.cast %r24#1 : tensor<2xf32> to tensor<*xf32>
  call @printMemrefF32(%u31) : (tensor<*xf32>) -> ()
  // CHECK: rank = 1 offset = 0 sizes = [2] strides = [1] data =
  // CHECK-NEXT: [{{(1\.73988|1\.73989)}}, {{(-0\.54456[0-9]*|-0\.54455[0-9]*)}}]
  %u32 = tensor.cast %r24#2 : tensor<2xf32> to tensor<*xf32>
  call @printMemrefF32(%u32) : (tensor<*xf32>) -> ()
  // CHECK: rank = 1 offset = 0 sizes = [2] strides = [1] data =
  // CHECK-NEXT: [{{(0\.77999[0-9]*|0\.78(000[0-9]*)?)}}, 1.51]

  // bf16 input and gradients, f32 gamma and beta (statistics in f32).
  %c33 = arith.constant dense<[[[[-0.25, -0.5], [0.25, 0.5]], [[-1.0, 0.25], [0.75, -1.25]]], [[[0.5, -0.25], [1.5, -0.25]], [[-0.5, 0.75], [1.25, -1.25]]]]> : tensor<2x2x2x2xbf16>
  %c34 = arith.constant dense<[0.6700000166893005, 1.0099999904632568]> : tensor<2xf32>
  %c35 = arith.constant dense<[-0.1899999976158142, 0.33000001311302185]> : tensor<2xf32>
  %c36 = arith.constant dense<[[[[-0.75, -0.5], [-0.75, -0.75]], [[0.75, 1.0], [-0.25, -0.5]]], [[[0.75, -0.75], [-0.75, -0.5]], [[-0.25, -0.25], [-0.5, -0.5]]]]> : tensor<2x2x2x2xbf16>
  %r37:3 = call @bn_bf16(%c33, %c34, %c35) : (tensor<2x2x2x2xbf16>, tensor<2xf32>, tensor<2xf32>) -> (tensor<2x2x2x2xf32>, tensor<2xf32>, tensor<2xf32>)
  %r40:3 = call @bn_bf16_grad(%c36, %c33, %c34, %r37#1, %r37#2) : (tensor<2x2x2x2xbf16>, tensor<2x2x2x2xbf16>, tensor<2xf32>, tensor<2xf32>, tensor<2xf32>) -> (tensor<2x2x2x2xf32>, tensor<2xf32>, tensor<2xf32>)
  %u43 = tensor.cast %r37#0 : tensor<2x2x2x2xf32> to tensor<*xf32>
  call @printMemrefF32(%u43) : (tensor<*xf32>) -> ()
  // CHECK: rank = 4 offset = 0 sizes = [2, 2, 2, 2] strides = [8, 4, 2, 1] data =
  // CHECK-NEXT: [-0.671875, -0.945312]
  // CHECK-NEXT: [-0.121094, 0.15332]
  // CHECK-NEXT: [-0.613281, 0.734375]
  // CHECK-NEXT: [1.27344, -0.882812]
  // CHECK-NEXT: [0.15332, -0.671875]
  // CHECK-NEXT: [1.25, -0.671875]
  // CHECK-NEXT: [-0.074707, 1.27344]
  // CHECK-NEXT: [1.8125, -0.882812]
  %u44 = tensor.cast %r37#1 : tensor<2xf32> to tensor<*xf32>
  call @printMemrefF32(%u44) : (tensor<*xf32>) -> ()
  // CHECK: rank = 1 offset = 0 sizes = [2] strides = [1] data =
  // CHECK-NEXT: [0.1875, -0.125]
  %u45 = tensor.cast %r37#2 : tensor<2xf32> to tensor<*xf32>
  call @printMemrefF32(%u45) : (tensor<*xf32>) -> ()
  // CHECK: rank = 1 offset = 0 sizes = [2] strides = [1] data =
  // CHECK-NEXT: [1.64154, 1.06904]
  %u46 = tensor.cast %r40#0 : tensor<2x2x2x2xf32> to tensor<*xf32>
  call @printMemrefF32(%u46) : (tensor<*xf32>) -> ()
  // CHECK: rank = 4 offset = 0 sizes = [2, 2, 2, 2] strides = [8, 4, 2, 1] data =
  // CHECK-NEXT: [-0.244141, 0.0478516]
  // CHECK-NEXT: [-0.279297, -0.296875]
  // CHECK-NEXT: [0.851562, 1.15625]
  // CHECK-NEXT: [-0.176758, -0.503906]
  // CHECK-NEXT: [1.35156, -0.244141]
  // CHECK-NEXT: [-0.365234, 0.0303955]
  // CHECK-NEXT: [-0.212891, -0.176758]
  // CHECK-NEXT: [{{(-0\.433594|-0\.431641)}}, -0.503906]
  %u47 = tensor.cast %r40#1 : tensor<2xf32> to tensor<*xf32>
  call @printMemrefF32(%u47) : (tensor<*xf32>) -> ()
  // CHECK: rank = 1 offset = 0 sizes = [2] strides = [1] data =
  // CHECK-NEXT: [{{(0\.307788|0\.307789|0\.30779)}}, {{(-0\.200444|-0\.200445|-0\.200446)}}]
  %u48 = tensor.cast %r40#2 : tensor<2xf32> to tensor<*xf32>
  call @printMemrefF32(%u48) : (tensor<*xf32>) -> ()
  // CHECK: rank = 1 offset = 0 sizes = [2] strides = [1] data =
  // CHECK-NEXT: [{{(-3\.99999|-4|-4\.00001)}}, {{(-0\.50001[0-9]*|-0\.5(0000[0-9]*)?|-0\.49999[0-9]*|-0\.49998[0-9]*)}}]
  return
}
