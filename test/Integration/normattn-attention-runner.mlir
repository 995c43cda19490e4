// Executes attention and attention_grad lowered to the CPU.
// Expected values were computed independently in f64 (numpy), head by head:
// query head h reads key/value head h / (Hq / Hkv); s = scale * q k^T, with
// the causal mask hiding key j > i + (Sk - Sq); lse = logsumexp(s) per row
// (-inf for a fully masked row, whose output is 0); out = softmax(s) v.
// attention_grad expectations are central finite differences (h = 1e-6) of
// sum(do * out(q, k, v)) for a random upstream gradient do. A regex accepts
// the printed values within the stated tolerance; bf16 results must be the
// correctly rounded value or one of its two bf16 neighbours, except the bf16
// gradients, which are within 1% + 3e-3 of the true gradient (the saved
// output they use is rounded to bf16).
// RUN: mem-opt %s --convert-train-to-linalg --memopt-lower-to-cpu \
// RUN:   | %mlir_runner -e main -entry-point-result=void %runner_libs \
// RUN:   | FileCheck %s
// The same through memopt-lower-to-gpu's kernels, run as CPU loops (every
// reduction a block reduction, matmuls through the CPU cuBLAS stand-in):
// RUN: mem-opt %s --convert-train-to-linalg %gpu_emulator \
// RUN:   | %mlir_runner -e main -entry-point-result=void %runner_libs \
// RUN:   | FileCheck %s
// The same values in tiles of query rows: one row per tile (block_rows = 1),
// and tiles of 2 rows where Sq is even (block_rows = 2; 1 where it is odd),
// on the CPU and through the GPU kernels:
// RUN: sed -e 's/{causal, scale/{block_rows = 1 : i64, causal, scale/' \
// RUN:     -e 's/{scale/{block_rows = 1 : i64, scale/' %s \
// RUN:   | mem-opt --convert-train-to-linalg --memopt-lower-to-cpu \
// RUN:   | %mlir_runner -e main -entry-point-result=void %runner_libs \
// RUN:   | FileCheck %s
// RUN: sed -e 's/{causal, scale/{block_rows = 2 : i64, causal, scale/' \
// RUN:     -e 's/{scale/{block_rows = 2 : i64, scale/' %s \
// RUN:   | mem-opt --convert-train-to-linalg %gpu_emulator \
// RUN:   | %mlir_runner -e main -entry-point-result=void %runner_libs \
// RUN:   | FileCheck %s

func.func @attention_f32_gqa_causal(%q: tensor<1x4x3x4xf32>, %k: tensor<1x2x5x4xf32>, %v: tensor<1x2x5x4xf32>) -> (tensor<1x4x3x4xf32>, tensor<1x4x3xf32>) {
  %o, %lse = train.attention %q, %k, %v {causal, scale = 5.000000e-01 : f64}
      : tensor<1x4x3x4xf32>, tensor<1x2x5x4xf32>, tensor<1x2x5x4xf32> -> tensor<1x4x3x4xf32>, tensor<1x4x3xf32>
  return %o, %lse : tensor<1x4x3x4xf32>, tensor<1x4x3xf32>
}

func.func @attention_f64(%q: tensor<2x2x2x3xf64>, %k: tensor<2x2x3x3xf64>, %v: tensor<2x2x3x3xf64>) -> (tensor<2x2x2x3xf64>, tensor<2x2x2xf32>) {
  %o, %lse = train.attention %q, %k, %v {scale = 5.770000e-01 : f64}
      : tensor<2x2x2x3xf64>, tensor<2x2x3x3xf64>, tensor<2x2x3x3xf64> -> tensor<2x2x2x3xf64>, tensor<2x2x2xf32>
  return %o, %lse : tensor<2x2x2x3xf64>, tensor<2x2x2xf32>
}

func.func @attention_f32_masked_row(%q: tensor<1x1x3x2xf32>, %k: tensor<1x1x2x2xf32>, %v: tensor<1x1x2x2xf32>) -> (tensor<1x1x3x2xf32>, tensor<1x1x3xf32>) {
  %o, %lse = train.attention %q, %k, %v {causal, scale = 1.000000e+00 : f64}
      : tensor<1x1x3x2xf32>, tensor<1x1x2x2xf32>, tensor<1x1x2x2xf32> -> tensor<1x1x3x2xf32>, tensor<1x1x3xf32>
  return %o, %lse : tensor<1x1x3x2xf32>, tensor<1x1x3xf32>
}

func.func @attention_bf16(%q: tensor<1x2x3x4xbf16>, %k: tensor<1x1x3x4xbf16>, %v: tensor<1x1x3x4xbf16>) -> (tensor<1x2x3x4xbf16>, tensor<1x2x3xf32>) {
  %o, %lse = train.attention %q, %k, %v {causal, scale = 5.000000e-01 : f64}
      : tensor<1x2x3x4xbf16>, tensor<1x1x3x4xbf16>, tensor<1x1x3x4xbf16> -> tensor<1x2x3x4xbf16>, tensor<1x2x3xf32>
  return %o, %lse : tensor<1x2x3x4xbf16>, tensor<1x2x3xf32>
}

// Forward then backward, as a training step does.
func.func @attention_grad_f64_gqa_causal(%q: tensor<1x4x3x3xf64>, %k: tensor<1x2x4x3xf64>, %v: tensor<1x2x4x3xf64>, %do: tensor<1x4x3x3xf64>) -> (tensor<1x4x3x3xf64>, tensor<1x2x4x3xf64>, tensor<1x2x4x3xf64>) {
  %o, %lse = train.attention %q, %k, %v {causal, scale = 6.000000e-01 : f64}
      : tensor<1x4x3x3xf64>, tensor<1x2x4x3xf64>, tensor<1x2x4x3xf64> -> tensor<1x4x3x3xf64>, tensor<1x4x3xf32>
  %dq, %dk, %dv = train.attention_grad %do, %q, %k, %v, %o, %lse {causal, scale = 6.000000e-01 : f64}
      : tensor<1x4x3x3xf64>, tensor<1x4x3x3xf64>, tensor<1x2x4x3xf64>, tensor<1x2x4x3xf64>, tensor<1x4x3x3xf64>, tensor<1x4x3xf32> -> tensor<1x4x3x3xf64>, tensor<1x2x4x3xf64>, tensor<1x2x4x3xf64>
  return %dq, %dk, %dv : tensor<1x4x3x3xf64>, tensor<1x2x4x3xf64>, tensor<1x2x4x3xf64>
}

// Forward then backward, as a training step does.
func.func @attention_grad_f32(%q: tensor<2x2x2x2xf32>, %k: tensor<2x1x3x2xf32>, %v: tensor<2x1x3x2xf32>, %do: tensor<2x2x2x2xf32>) -> (tensor<2x2x2x2xf32>, tensor<2x1x3x2xf32>, tensor<2x1x3x2xf32>) {
  %o, %lse = train.attention %q, %k, %v {scale = 7.000000e-01 : f64}
      : tensor<2x2x2x2xf32>, tensor<2x1x3x2xf32>, tensor<2x1x3x2xf32> -> tensor<2x2x2x2xf32>, tensor<2x2x2xf32>
  %dq, %dk, %dv = train.attention_grad %do, %q, %k, %v, %o, %lse {scale = 7.000000e-01 : f64}
      : tensor<2x2x2x2xf32>, tensor<2x2x2x2xf32>, tensor<2x1x3x2xf32>, tensor<2x1x3x2xf32>, tensor<2x2x2x2xf32>, tensor<2x2x2xf32> -> tensor<2x2x2x2xf32>, tensor<2x1x3x2xf32>, tensor<2x1x3x2xf32>
  return %dq, %dk, %dv : tensor<2x2x2x2xf32>, tensor<2x1x3x2xf32>, tensor<2x1x3x2xf32>
}

// Forward then backward, as a training step does.
func.func @attention_grad_f32_masked_row(%q: tensor<1x2x3x2xf32>, %k: tensor<1x1x2x2xf32>, %v: tensor<1x1x2x2xf32>, %do: tensor<1x2x3x2xf32>) -> (tensor<1x2x3x2xf32>, tensor<1x1x2x2xf32>, tensor<1x1x2x2xf32>) {
  %o, %lse = train.attention %q, %k, %v {causal, scale = 9.000000e-01 : f64}
      : tensor<1x2x3x2xf32>, tensor<1x1x2x2xf32>, tensor<1x1x2x2xf32> -> tensor<1x2x3x2xf32>, tensor<1x2x3xf32>
  %dq, %dk, %dv = train.attention_grad %do, %q, %k, %v, %o, %lse {causal, scale = 9.000000e-01 : f64}
      : tensor<1x2x3x2xf32>, tensor<1x2x3x2xf32>, tensor<1x1x2x2xf32>, tensor<1x1x2x2xf32>, tensor<1x2x3x2xf32>, tensor<1x2x3xf32> -> tensor<1x2x3x2xf32>, tensor<1x1x2x2xf32>, tensor<1x1x2x2xf32>
  return %dq, %dk, %dv : tensor<1x2x3x2xf32>, tensor<1x1x2x2xf32>, tensor<1x1x2x2xf32>
}

// Forward then backward, as a training step does.
func.func @attention_grad_bf16(%q: tensor<1x2x2x4xbf16>, %k: tensor<1x1x3x4xbf16>, %v: tensor<1x1x3x4xbf16>, %do: tensor<1x2x2x4xbf16>) -> (tensor<1x2x2x4xbf16>, tensor<1x1x3x4xbf16>, tensor<1x1x3x4xbf16>) {
  %o, %lse = train.attention %q, %k, %v {causal, scale = 5.000000e-01 : f64}
      : tensor<1x2x2x4xbf16>, tensor<1x1x3x4xbf16>, tensor<1x1x3x4xbf16> -> tensor<1x2x2x4xbf16>, tensor<1x2x2xf32>
  %dq, %dk, %dv = train.attention_grad %do, %q, %k, %v, %o, %lse {causal, scale = 5.000000e-01 : f64}
      : tensor<1x2x2x4xbf16>, tensor<1x2x2x4xbf16>, tensor<1x1x3x4xbf16>, tensor<1x1x3x4xbf16>, tensor<1x2x2x4xbf16>, tensor<1x2x2xf32> -> tensor<1x2x2x4xbf16>, tensor<1x1x3x4xbf16>, tensor<1x1x3x4xbf16>
  return %dq, %dk, %dv : tensor<1x2x2x4xbf16>, tensor<1x1x3x4xbf16>, tensor<1x1x3x4xbf16>
}

func.func private @printMemrefF32(tensor<*xf32>)
func.func private @printMemrefF64(tensor<*xf64>)

func.func @main() {
  %c1 = arith.constant dense<[[[[0.9200000166893005, 0.9200000166893005, 0.05000000074505806, -0.6399999856948853], [-1.340000033378601, -0.3499999940395355, -0.27000001072883606, -1.3600000143051147], [-1.350000023841858, 1.5, 0.46000000834465027, -0.800000011920929]], [[-0.20000000298023224, 1.4199999570846558, 1.190000057220459, 1.0299999713897705], [-0.3199999928474426, -0.019999999552965164, 0.5299999713897705, -1.3200000524520874], [0.17000000178813934, -0.6899999976158142, 1.1399999856948853, -1.309999942779541]], [[0.5400000214576721, 1.1100000143051147, -0.8199999928474426, 1.190000057220459], [1.1200000047683716, -1.440000057220459, 0.6200000047683716, -1.5], [0.009999999776482582, -0.1899999976158142, -0.8899999856948853, -0.5299999713897705]], [[0.9200000166893005, -0.550000011920929, -1.0499999523162842, 0.6000000238418579], [-0.15000000596046448, 0.8999999761581421, -0.7900000214576721, -0.5400000214576721], [0.8999999761581421, 0.019999999552965164, 0.019999999552965164, -0.7900000214576721]]]]> : tensor<1x4x3x4xf32>
  %c2 = arith.constant dense<[[[[-1.4600000381469727, 1.2999999523162842, -1.2400000095367432, 1.0299999713897705], [-0.4000000059604645, 1.350000023841858, -0.30000001192092896, 1.309999942779541], [0.17000000178813934, -0.7799999713897705, 0.7200000286102295, 0.5199999809265137], [0.550000011920929, -0.10999999940395355, -0.8299999833106995, 0.41999998688697815], [-1.1799999475479126, 0.5799999833106995, 0.4099999964237213, -0.3700000047683716]], [[0.8999999761581421, -0.9200000166893005, -0.33000001311302185, 0.8899999856948853], [-0.36000001430511475, 0.6399999856948853, 0.3400000035762787, 1.3200000524520874], [1.4800000190734863, 0.6700000166893005, 0.9300000071525574, -1.0399999618530273], [0.6399999856948853, 1.0399999618530273, -0.30000001192092896, 0.1599999964237213], [-0.05999999865889549, 1.3799999952316284, -0.550000011920929, -0.28999999165534973]]]]> : tensor<1x2x5x4xf32>
  %c3 = arith.constant dense<[[[[-1.5, -0.23999999463558197, 0.38999998569488525, 1.2999999523162842], [1.2699999809265137, -0.5199999809265137, 1.4700000286102295, -0.9399999976158142], [0.9700000286102295, -1.0299999713897705, -0.2800000011920929, -1.2799999713897705], [1.0700000524520874, 0.9900000095367432, -1.0800000429153442, 0.07999999821186066], [-0.7300000190734863, -0.019999999552965164, 0.1599999964237213, -1.1799999475479126]], [[1.090000033378601, -0.6600000262260437, -0.1599999964237213, -1.3300000429153442], [-1.4900000095367432, -0.9100000262260437, -0.4699999988079071, 1.2799999713897705], [1.1699999570846558, -0.05999999865889549, -0.14000000059604645, 0.5], [1.0800000429153442, -0.49000000953674316, 0.8799999952316284, -0.30000001192092896], [0.2800000011920929, 0.7099999785423279, 0.0, 0.5699999928474426]]]]> : tensor<1x2x5x4xf32>
  %r4:2 = call @attention_f32_gqa_causal(%c1, %c2, %c3) : (tensor<1x4x3x4xf32>, tensor<1x2x5x4xf32>, tensor<1x2x5x4xf32>) -> (tensor<1x4x3x4xf32>, tensor<1x4x3xf32>)
  %p5 = tensor.collapse_shape %r4#0 [[0, 1, 2], [3]] : tensor<1x4x3x4xf32> into tensor<12x4xf32>
  %u6 = tensor.cast %p5 : tensor<12x4xf32> to tensor<*xf32>
  // attention_f32_gqa_causal: out
  // CHECK: rank = 2 offset = 0 sizes = [12, 4] strides = [4, 1] data =
  // CHECK-NEXT: {{\[}}[{{(0\.40838[0-9]*|0\.40839|0\.40839[0-9]*)}}, {{-0\.5852[0-9]*}}, {{(0\.6735[0-9]*|0\.6736|0\.6736[0-9]*)}}, {{-(0\.40752|0\.40752[0-9]*|0\.40753|0\.40753[0-9]*)}}],
  // CHECK-NEXT: [{{-0\.01303[0-9]*}}, {{-(0\.20896[0-9]*|0\.20897|0\.20897[0-9]*)}}, {{0\.10600[0-9]*}}, {{(0\.14164|0\.14164[0-9]*)}}],
  // CHECK-NEXT: [{{-(0\.46464[0-9]*|0\.46465|0\.46465[0-9]*)}}, {{-(0\.18709[0-9]*|0\.1871|0\.18710[0-9]*)}}, {{(0\.40634[0-9]*|0\.40635|0\.40635[0-9]*)}}, {{-(0\.27742[0-9]*|0\.27743|0\.27743[0-9]*)}}],
  // CHECK-NEXT: [{{(0\.40338[0-9]*|0\.40339|0\.40339[0-9]*)}}, {{-0\.5093[0-9]*}}, {{(0\.8994[0-9]*|0\.8995|0\.8995[0-9]*)}}, {{-(0\.32218[0-9]*|0\.32219|0\.32219[0-9]*)}}],
  // CHECK-NEXT: [{{0\.5525[0-9]*}}, {{-(0\.28150[0-9]*|0\.28151|0\.28151[0-9]*)}}, {{-0\.02613[0-9]*}}, {{-(0\.36516[0-9]*|0\.36517|0\.36517[0-9]*)}}],
  // CHECK-NEXT: [{{(0\.32234[0-9]*|0\.32235|0\.32235[0-9]*|0\.32236)}}, {{-(0\.32304|0\.32304[0-9]*|0\.32305|0\.32305[0-9]*)}}, {{-(0\.11183[0-9]*|0\.11184|0\.11184[0-9]*)}}, {{-(0\.9191[0-9]*|0\.9192|0\.9192[0-9]*)}}],
  // CHECK-NEXT: [{{-(0\.23712[0-9]*|0\.23713|0\.23713[0-9]*)}}, {{-0\.6894[0-9]*}}, {{-(0\.31771[0-9]*|0\.31772|0\.31772[0-9]*)}}, {{(0\.33243[0-9]*|0\.33244|0\.33244[0-9]*)}}],
  // CHECK-NEXT: [{{(1\.05454|1\.05455|1\.05456|1\.05457)}}, {{-(0\.26562[0-9]*|0\.26563|0\.26563[0-9]*)}}, {{-0\.06802[0-9]*}}, {{(0\.02964[0-9]*|0\.02965|0\.02965[0-9]*)}}],
  // CHECK-NEXT: [{{0\.5700[0-9]*}}, {{-(0\.18656[0-9]*|0\.18657)}}, {{0\.07235[0-9]*}}, {{0\.04281[0-9]*}}],
  // CHECK-NEXT: [{{0\.6123[0-9]*}}, {{-0\.6122[0-9]*}}, {{-(0\.21573[0-9]*|0\.21574|0\.21574[0-9]*)}}, {{-(0\.5432[0-9]*|0\.5433|0\.5433[0-9]*)}}],
  // CHECK-NEXT: [{{(0\.58505[0-9]*|0\.58506|0\.58506[0-9]*)}}, {{-(0\.4825[0-9]*|0\.4826|0\.4826[0-9]*)}}, {{0\.19452[0-9]*}}, {{(0\.09655[0-9]*|0\.09656|0\.09656[0-9]*)}}],
  // CHECK-NEXT: [{{0\.8027[0-9]*}}, {{-(0\.16924[0-9]*|0\.16925|0\.16925[0-9]*)}}, {{(0\.04148[0-9]*|0\.04149|0\.04149[0-9]*)}}, {{(0\.14605[0-9]*|0\.14606|0\.14606[0-9]*)}}]]
  call @printMemrefF32(%u6) : (tensor<*xf32>) -> ()
  %p7 = tensor.collapse_shape %r4#1 [[0, 1], [2]] : tensor<1x4x3xf32> into tensor<4x3xf32>
  %u8 = tensor.cast %p7 : tensor<4x3xf32> to tensor<*xf32>
  // attention_f32_gqa_causal: lse
  // CHECK: rank = 2 offset = 0 sizes = [4, 3] strides = [3, 1] data =
  // CHECK-NEXT: {{\[}}[{{(0\.83694|0\.83694[0-9]*)}}, 1.0746, {{(2\.38096|2\.38097)}}],
  // CHECK-NEXT: [{{(2\.07423|2\.07424)}}, {{(0\.81704[0-9]*|0\.81705|0\.81705[0-9]*)}}, {{(1\.24972|1\.24973)}}],
  // CHECK-NEXT: [{{(1\.55873|1\.55874)}}, {{(1\.85031|1\.85032)}}, {{(1\.52611|1\.52612)}}],
  // CHECK-NEXT: [{{(1\.5363|1\.53631)}}, {{(1\.4214|1\.42141)}}, {{(1\.93097|1\.93098)}}]]
  call @printMemrefF32(%u8) : (tensor<*xf32>) -> ()
  %c9 = arith.constant dense<[[[[0.59, -1.48, -1.38], [-1.05, -0.86, -0.89]], [[-1.35, -0.85, 0.3], [1.16, -0.45, -0.4]]], [[[-0.25, 0.54, 0.86], [1.32, -0.37, 0.62]], [[-0.48, 0.97, -0.81], [1.11, 0.02, 0.68]]]]> : tensor<2x2x2x3xf64>
  %c10 = arith.constant dense<[[[[0.1, -0.55, -0.02], [-1.35, -1.37, 0.09], [-0.07, 1.0, -1.44]], [[0.17, -0.03, 0.29], [0.69, 0.07, 0.19], [-0.02, 0.35, -0.76]]], [[[0.16, 0.52, -0.93], [1.47, 0.74, 1.37], [-0.62, -0.17, -0.72]], [[-1.36, -1.45, -0.76], [1.08, -1.01, 0.57], [-0.75, -1.3, -0.92]]]]> : tensor<2x2x3x3xf64>
  %c11 = arith.constant dense<[[[[0.53, 0.0, 0.15], [-0.14, -0.68, -0.03], [1.27, -0.9, 0.7]], [[-0.75, -0.92, -0.53], [-1.22, 1.31, -0.4], [-0.97, -1.5, -1.32]]], [[[-0.86, -0.25, 0.3], [1.44, 1.17, -0.77], [0.33, 1.26, -1.2]], [[1.06, -0.31, 0.85], [-0.53, 0.38, 0.02], [-1.19, 0.78, 0.97]]]]> : tensor<2x2x3x3xf64>
  %r12:2 = call @attention_f64(%c9, %c10, %c11) : (tensor<2x2x2x3xf64>, tensor<2x2x3x3xf64>, tensor<2x2x3x3xf64>) -> (tensor<2x2x2x3xf64>, tensor<2x2x2xf32>)
  %p13 = tensor.collapse_shape %r12#0 [[0, 1, 2], [3]] : tensor<2x2x2x3xf64> into tensor<8x3xf64>
  %u14 = tensor.cast %p13 : tensor<8x3xf64> to tensor<*xf64>
  // attention_f64: out
  // CHECK: rank = 2 offset = 0 sizes = [8, 3] strides = [3, 1] data =
  // CHECK-NEXT: {{\[}}[{{(0\.468422|0\.468423)}}, {{-(0\.504826|0\.504827)}}, 0.227545],
  // CHECK-NEXT: [{{(0\.256127|0\.256128)}}, {{-(0\.598709|0\.59871)}}, 0.144649],
  // CHECK-NEXT: [{{-(0\.943636|0\.943637|0\.943638|0\.943639)}}, {{-(0\.538225|0\.538226|0\.538227)}}, {{-(0\.757803|0\.757804)}}],
  // CHECK-NEXT: [{{-(1\.0088|1\.00881)}}, {{-(0\.173513|0\.173514)}}, {{-(0\.710688|0\.710689|0\.71069)}}],
  // CHECK-NEXT: [{{(0\.725817|0\.725818|0\.725819)}}, {{(0\.891637|0\.891638|0\.891639)}}, {{-(0\.636191|0\.636192)}}],
  // CHECK-NEXT: [1.03567, {{(0\.990888|0\.990889|0\.99089)}}, {{-(0\.667978|0\.667979|0\.66798)}}],
  // CHECK-NEXT: [-0.129593, {{(0\.254298|0\.254299)}}, {{(0\.776757|0\.776758|0\.776759)}}],
  // CHECK-NEXT: [{{-(0\.465804|0\.465805|0\.465806)}}, {{(0\.367222|0\.367223)}}, {{(0\.225386|0\.225387)}}]]
  call @printMemrefF64(%u14) : (tensor<*xf64>) -> ()
  %p15 = tensor.collapse_shape %r12#1 [[0, 1], [2]] : tensor<2x2x2xf32> into tensor<4x2xf32>
  %u16 = tensor.cast %p15 : tensor<4x2xf32> to tensor<*xf32>
  // attention_f64: lse
  // CHECK: rank = 2 offset = 0 sizes = [4, 2] strides = [2, 1] data =
  // CHECK-NEXT: {{\[}}[{{(1\.58593|1\.58594)}}, {{(1\.92417|1\.92418)}}],
  // CHECK-NEXT: [{{(0\.81895[0-9]*|0\.81896)}}, 1.28687],
  // CHECK-NEXT: [1.24135, {{(1\.70386|1\.70387)}}],
  // CHECK-NEXT: [{{0\.77020[0-9]*}}, {{(1\.1628|1\.16281)}}]]
  call @printMemrefF32(%u16) : (tensor<*xf32>) -> ()
  %c17 = arith.constant dense<[[[[-0.05000000074505806, -0.3400000035762787], [1.340000033378601, -0.3799999952316284], [1.1399999856948853, -0.23999999463558197]]]]> : tensor<1x1x3x2xf32>
  %c18 = arith.constant dense<[[[[-0.3799999952316284, -0.41999998688697815], [-1.3200000524520874, -0.6700000166893005]]]]> : tensor<1x1x2x2xf32>
  %c19 = arith.constant dense<[[[[-0.8100000023841858, -1.309999942779541], [0.11999999731779099, -0.17000000178813934]]]]> : tensor<1x1x2x2xf32>
  %r20:2 = call @attention_f32_masked_row(%c17, %c18, %c19) : (tensor<1x1x3x2xf32>, tensor<1x1x2x2xf32>, tensor<1x1x2x2xf32>) -> (tensor<1x1x3x2xf32>, tensor<1x1x3xf32>)
  %p21 = tensor.collapse_shape %r20#0 [[0, 1, 2], [3]] : tensor<1x1x3x2xf32> into tensor<3x2xf32>
  %u22 = tensor.cast %p21 : tensor<3x2xf32> to tensor<*xf32>
  // attention_f32_masked_row: out
  // CHECK: rank = 2 offset = 0 sizes = [3, 2] strides = [2, 1] data =
  // CHECK-NEXT: {{\[}}[{{-?(0|[0-9](\.[0-9]+)?e-(0[6-9]|[1-9][0-9]))}}, {{-?(0|[0-9](\.[0-9]+)?e-(0[6-9]|[1-9][0-9]))}}],
  // CHECK-NEXT: [{{-(0\.8099[0-9]*|0\.81|0\.8100[0-9]*)}}, {{-(1\.3099[0-9]*|1\.31|1\.3100[0-9]*)}}],
  // CHECK-NEXT: [{{-(0\.56199[0-9]*|0\.562|0\.56200[0-9]*)}}, {{-(1\.00599|1\.006|1\.00601)}}]]
  call @printMemrefF32(%u22) : (tensor<*xf32>) -> ()
  %p23 = tensor.collapse_shape %r20#1 [[0, 1], [2]] : tensor<1x1x3xf32> into tensor<1x3xf32>
  %u24 = tensor.cast %p23 : tensor<1x3xf32> to tensor<*xf32>
  // attention_f32_masked_row: lse
  // CHECK: rank = 2 offset = 0 sizes = [1, 3] strides = [3, 1] data =
  // CHECK-NEXT: {{\[}}[-inf, {{-(0\.34959[0-9]*|0\.3496|0\.34960[0-9]*)}}, {{-0\.02224[0-9]*}}]]
  call @printMemrefF32(%u24) : (tensor<*xf32>) -> ()
  %c25 = arith.constant dense<[[[[-1.4375, -1.0625, 1.25, -1.125], [-0.375, 1.375, -1.1875, -0.25], [0.875, -1.4375, -1.3125, 1.3125]], [[0.5625, -0.6875, -0.0625, -0.75], [1.1875, 1.375, -1.3125, 0.0625], [-0.9375, -0.3125, 0.75, 0.625]]]]> : tensor<1x2x3x4xbf16>
  %c26 = arith.constant dense<[[[[-0.9375, -0.5, -0.25, -0.3125], [0.5625, 0.875, -0.5, -0.1875], [-1.3125, -0.375, 1.3125, 0.0]]]]> : tensor<1x1x3x4xbf16>
  %c27 = arith.constant dense<[[[[0.1875, 0.3125, 0.1875, 0.9375], [-0.75, -0.5625, 1.1875, -0.0], [1.375, -1.0625, 0.875, -0.0625]]]]> : tensor<1x1x3x4xbf16>
  %r28:2 = call @attention_bf16(%c25, %c26, %c27) : (tensor<1x2x3x4xbf16>, tensor<1x1x3x4xbf16>, tensor<1x1x3x4xbf16>) -> (tensor<1x2x3x4xbf16>, tensor<1x2x3xf32>)
  %p29 = tensor.collapse_shape %r28#0 [[0, 1, 2], [3]] : tensor<1x2x3x4xbf16> into tensor<6x4xbf16>
  %t31 = tensor.empty() : tensor<6x4xf32>
  %e30 = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%p29 : tensor<6x4xbf16>) outs(%t31 : tensor<6x4xf32>) {
  ^bb0(%in: bf16, %out: f32):
    %f = arith.extf %in : bf16 to f32
    linalg.yield %f : f32
  } -> tensor<6x4xf32>
  %u32 = tensor.cast %e30 : tensor<6x4xf32> to tensor<*xf32>
  // attention_bf16: out
  // CHECK: rank = 2 offset = 0 sizes = [6, 4] strides = [4, 1] data =
  // CHECK-NEXT: {{\[}}[{{0\.186523|0\.1875|0\.188477}}, {{0\.310547|0\.3125|0\.314453}}, {{0\.186523|0\.1875|0\.188477}}, {{0\.933594|0\.9375|0\.941406}}],
  // CHECK-NEXT: [{{-0\.457031|-0\.458984|-0\.460938}}, {{-0\.289062|-0\.291016|-0\.292969}}, {{0\.871094|0\.875|0\.878906}}, {{0\.289062|0\.291016|0\.292969}}],
  // CHECK-NEXT: [{{-0\.0136719|-0\.0137329|-0\.0137939}}, {{-0\.249023|-0\.25|-0\.251953}}, {{0\.695312|0\.699219|0\.703125}}, {{0\.404297|0\.40625|0\.408203}}],
  // CHECK-NEXT: [{{0\.186523|0\.1875|0\.188477}}, {{0\.310547|0\.3125|0\.314453}}, {{0\.186523|0\.1875|0\.188477}}, {{0\.933594|0\.9375|0\.941406}}],
  // CHECK-NEXT: [{{-0\.632812|-0\.636719|-0\.640625}}, {{-0\.457031|-0\.458984|-0\.460938}}, {{1\.0625|1\.07031|1\.07812}}, {{0\.11084|0\.111328|0\.111816}}],
  // CHECK-NEXT: [{{0\.832031|0\.835938|0\.839844}}, {{-0\.636719|-0\.640625|-0\.644531}}, {{0\.71875|0\.722656|0\.726562}}, {{0\.213867|0\.214844|0\.21582}}]]
  call @printMemrefF32(%u32) : (tensor<*xf32>) -> ()
  %p33 = tensor.collapse_shape %r28#1 [[0, 1], [2]] : tensor<1x2x3xf32> into tensor<2x3xf32>
  %u34 = tensor.cast %p33 : tensor<2x3xf32> to tensor<*xf32>
  // attention_bf16: lse
  // CHECK: rank = 2 offset = 0 sizes = [2, 3] strides = [3, 1] data =
  // CHECK-NEXT: {{\[}}[{{0\.95898[0-9]*}}, {{(1\.18847|1\.18848)}}, {{(0\.72321[0-9]*|0\.72322|0\.72322[0-9]*)}}],
  // CHECK-NEXT: [{{0\.03320[0-9]*}}, {{(1\.38427|1\.38428)}}, {{(1\.6329|1\.63291)}}]]
  call @printMemrefF32(%u34) : (tensor<*xf32>) -> ()
  %c35 = arith.constant dense<[[[[-0.08, 1.14, -1.11], [0.04, -0.75, -0.47], [0.95, -0.31, 0.85]], [[-1.46, 1.5, 1.37], [0.54, -0.91, 0.47], [-0.93, -0.38, -1.4]], [[-1.29, -1.03, -0.95], [1.02, -0.77, 0.98], [-1.48, -1.33, -1.32]], [[1.29, 0.95, -1.45], [1.29, -0.82, -0.71], [0.25, -0.89, 1.42]]]]> : tensor<1x4x3x3xf64>
  %c36 = arith.constant dense<[[[[-0.4, 0.21, 0.22], [-0.66, 0.7, 1.48], [0.29, -1.25, 0.92], [0.5, -0.03, 0.46]], [[-0.72, -0.59, 0.05], [-1.29, 0.26, -0.95], [-0.74, 1.2, 0.26], [-0.77, 0.6, 1.49]]]]> : tensor<1x2x4x3xf64>
  %c37 = arith.constant dense<[[[[1.19, 0.9, -0.5], [0.25, 0.25, -1.23], [0.58, 0.06, 0.07], [0.71, -1.27, -0.86]], [[1.46, -0.6, -0.73], [-1.28, -0.56, 0.18], [-1.38, -0.63, -0.73], [-1.04, 0.88, 1.39]]]]> : tensor<1x2x4x3xf64>
  %c38 = arith.constant dense<[[[[1.25, -0.18, -1.3], [-0.45, 0.07, -0.36], [0.69, 0.73, 1.19]], [[-0.09, -0.78, 1.23], [1.15, -1.12, -0.87], [0.48, 0.96, 1.38]], [[-1.44, -0.93, -0.23], [0.15, 0.84, 0.17], [0.06, -0.78, 0.45]], [[0.25, 1.34, -0.93], [-1.13, -0.44, -0.52], [-0.14, -0.99, 0.62]]]]> : tensor<1x4x3x3xf64>
  %r39:3 = call @attention_grad_f64_gqa_causal(%c35, %c36, %c37, %c38) : (tensor<1x4x3x3xf64>, tensor<1x2x4x3xf64>, tensor<1x2x4x3xf64>, tensor<1x4x3x3xf64>) -> (tensor<1x4x3x3xf64>, tensor<1x2x4x3xf64>, tensor<1x2x4x3xf64>)
  %p40 = tensor.collapse_shape %r39#0 [[0, 1, 2], [3]] : tensor<1x4x3x3xf64> into tensor<12x3xf64>
  %u41 = tensor.cast %p40 : tensor<12x3xf64> to tensor<*xf64>
  // attention_grad_f64_gqa_causal: dq (finite difference)
  // CHECK: rank = 2 offset = 0 sizes = [12, 3] strides = [3, 1] data =
  // CHECK-NEXT: {{\[}}[{{0\.004004[0-9]*}}, {{-0\.007546[0-9]*}}, {{-(0\.019405|0\.019405[0-9]*)}}],
  // CHECK-NEXT: [{{-(0\.037023[0-9]*|0\.037024|0\.037024[0-9]*)}}, {{(0\.075017[0-9]*|0\.075018|0\.075018[0-9]*)}}, {{0\.046604[0-9]*}}],
  // CHECK-NEXT: [{{-0\.012597[0-9]*}}, {{-(0\.282199|0\.2822)}}, {{-0\.037596[0-9]*}}],
  // CHECK-NEXT: [{{0\.006221[0-9]*}}, {{-(0\.011724[0-9]*|0\.011725|0\.011725[0-9]*)}}, {{-(0\.030149[0-9]*|0\.03015|0\.030150[0-9]*)}}],
  // CHECK-NEXT: [{{-(0\.049845[0-9]*|0\.049846|0\.049846[0-9]*)}}, 0.102844, {{(0\.015996[0-9]*|0\.015997|0\.015997[0-9]*)}}],
  // CHECK-NEXT: [{{-(0\.126786|0\.126787)}}, -0.120582, {{-(0\.118021|0\.118022)}}],
  // CHECK-NEXT: [{{-(0\.298317|0\.298318)}}, {{(0\.444858|0\.444859|0\.44486)}}, {{-(0\.523363|0\.523364)}}],
  // CHECK-NEXT: [{{0\.004243[0-9]*}}, {{-(0\.092242[0-9]*|0\.092243|0\.092243[0-9]*)}}, {{-0\.004518[0-9]*}}],
  // CHECK-NEXT: [{{-(0\.021771[0-9]*|0\.021772|0\.021772[0-9]*)}}, {{0\.003324[0-9]*}}, {{-(0\.05729|0\.057290[0-9]*)}}],
  // CHECK-NEXT: [{{(0\.103268|0\.103269)}}, -0.153997, 0.181173],
  // CHECK-NEXT: [-0.132837, {{(0\.54747|0\.547471)}}, {{-(0\.184399|0\.1844)}}],
  // CHECK-NEXT: [{{-(0\.016626|0\.016626[0-9]*)}}, {{0\.045111[0-9]*}}, {{-(0\.036187[0-9]*|0\.036188)}}]]
  call @printMemrefF64(%u41) : (tensor<*xf64>) -> ()
  %p42 = tensor.collapse_shape %r39#1 [[0, 1, 2], [3]] : tensor<1x2x4x3xf64> into tensor<8x3xf64>
  %u43 = tensor.cast %p42 : tensor<8x3xf64> to tensor<*xf64>
  // attention_grad_f64_gqa_causal: dk (finite difference)
  // CHECK: rank = 2 offset = 0 sizes = [8, 3] strides = [3, 1] data =
  // CHECK-NEXT: {{\[}}[{{-(0\.166271|0\.166272)}}, {{-0\.064753[0-9]*}}, {{-(0\.229382|0\.229383)}}],
  // CHECK-NEXT: [{{(0\.058067|0\.058067[0-9]*)}}, {{-(0\.066512[0-9]*|0\.066513)}}, {{0\.030935[0-9]*}}],
  // CHECK-NEXT: [{{(0\.067354[0-9]*|0\.067355|0\.067355[0-9]*)}}, {{-(0\.017504[0-9]*|0\.017505|0\.017505[0-9]*)}}, {{(0\.027208|0\.027208[0-9]*)}}],
  // CHECK-NEXT: [{{0\.040849[0-9]*}}, 0.148771, {{(0\.171238|0\.171239)}}],
  // CHECK-NEXT: [{{(0\.435257|0\.435258)}}, {{(1\.07645|1\.07646)}}, {{(0\.560204|0\.560205|0\.560206)}}],
  // CHECK-NEXT: [{{-(0\.674196|0\.674197)}}, {{-(0\.970699|0\.9707|0\.970701)}}, {{-(0\.411252|0\.411253)}}],
  // CHECK-NEXT: [{{(0\.224518|0\.224519)}}, {{-(0\.126712|0\.126713)}}, -0.153225],
  // CHECK-NEXT: [{{0\.014420[0-9]*}}, {{0\.020957[0-9]*}}, {{(0\.004271[0-9]*|0\.004272|0\.004272[0-9]*)}}]]
  call @printMemrefF64(%u43) : (tensor<*xf64>) -> ()
  %p44 = tensor.collapse_shape %r39#2 [[0, 1, 2], [3]] : tensor<1x2x4x3xf64> into tensor<8x3xf64>
  %u45 = tensor.cast %p44 : tensor<8x3xf64> to tensor<*xf64>
  // attention_grad_f64_gqa_causal: dv (finite difference)
  // CHECK: rank = 2 offset = 0 sizes = [8, 3] strides = [3, 1] data =
  // CHECK-NEXT: {{\[}}[1.12777, {{0\.081658[0-9]*}}, -0.155398],
  // CHECK-NEXT: [{{(0\.747221|0\.747222|0\.747223)}}, {{-(0\.630965|0\.630966)}}, {{(0\.772964|0\.772965)}}],
  // CHECK-NEXT: [{{(0\.862978|0\.862979|0\.86298)}}, {{-(0\.177747|0\.177748)}}, {{(0\.028999|0\.028999[0-9]*)}}],
  // CHECK-NEXT: [{{(0\.292027|0\.292028)}}, {{(0\.407054|0\.407055)}}, {{(0\.623433|0\.623434|0\.623435)}}],
  // CHECK-NEXT: [{{-(0\.971517|0\.971518|0\.971519|0\.97152)}}, {{-(0\.236135|0\.236136)}}, {{-(0\.196159|0\.19616)}}],
  // CHECK-NEXT: [-1.02794, {{-(0\.157989|0\.15799)}}, {{-(0\.641357|0\.641358|0\.641359)}}],
  // CHECK-NEXT: [{{-(0\.181255|0\.181256)}}, {{-0\.027159[0-9]*}}, {{(0\.061697[0-9]*|0\.061698|0\.061698[0-9]*)}}],
  // CHECK-NEXT: [{{-0\.069289[0-9]*}}, {{-(0\.538714|0\.538715|0\.538716)}}, {{(0\.335819|0\.33582)}}]]
  call @printMemrefF64(%u45) : (tensor<*xf64>) -> ()
  %c46 = arith.constant dense<[[[[0.9700000286102295, -1.4800000190734863], [1.2300000190734863, -1.2300000190734863]], [[-0.5799999833106995, -0.03999999910593033], [-0.23000000417232513, -0.8500000238418579]]], [[[0.6899999976158142, 1.0199999809265137], [-0.8199999928474426, -1.0099999904632568]], [[0.05999999865889549, -1.0499999523162842], [1.3200000524520874, 1.0499999523162842]]]]> : tensor<2x2x2x2xf32>
  %c47 = arith.constant dense<[[[[1.0, -0.27000001072883606], [0.8600000143051147, -0.3199999928474426], [-0.12999999523162842, -1.1799999475479126]]], [[[-1.3899999856948853, 0.5099999904632568], [-0.9200000166893005, 1.3700000047683716], [0.20000000298023224, 0.23000000417232513]]]]> : tensor<2x1x3x2xf32>
  %c48 = arith.constant dense<[[[[1.1799999475479126, -0.6100000143051147], [-1.4700000286102295, -0.8399999737739563], [-0.12999999523162842, -1.0399999618530273]]], [[[-0.6600000262260437, 0.7099999785423279], [-0.3700000047683716, -0.47999998927116394], [-0.800000011920929, 0.09000000357627869]]]]> : tensor<2x1x3x2xf32>
  %c49 = arith.constant dense<[[[[1.4900000095367432, -0.9900000095367432], [1.0299999713897705, 0.8199999928474426]], [[0.30000001192092896, 0.12999999523162842], [0.05999999865889549, -1.190000057220459]]], [[[0.20999999344348907, 1.4700000286102295], [0.6899999976158142, -0.10000000149011612]], [[-0.17000000178813934, 1.1100000143051147], [-1.4800000190734863, -0.8999999761581421]]]]> : tensor<2x2x2x2xf32>
  %r50:3 = call @attention_grad_f32(%c46, %c47, %c48, %c49) : (tensor<2x2x2x2xf32>, tensor<2x1x3x2xf32>, tensor<2x1x3x2xf32>, tensor<2x2x2x2xf32>) -> (tensor<2x2x2x2xf32>, tensor<2x1x3x2xf32>, tensor<2x1x3x2xf32>)
  %p51 = tensor.collapse_shape %r50#0 [[0, 1, 2], [3]] : tensor<2x2x2x2xf32> into tensor<8x2xf32>
  %u52 = tensor.cast %p51 : tensor<8x2xf32> to tensor<*xf32>
  // attention_grad_f32: dq (finite difference)
  // CHECK: rank = 2 offset = 0 sizes = [8, 2] strides = [2, 1] data =
  // CHECK-NEXT: {{\[}}[{{0\.00525[0-9]*}}, {{-0\.02263[0-9]*}}],
  // CHECK-NEXT: [{{0\.09674[0-9]*}}, {{(0\.05685[0-9]*|0\.05686|0\.05686[0-9]*)}}],
  // CHECK-NEXT: [{{0\.01575[0-9]*}}, {{0\.00776[0-9]*}}],
  // CHECK-NEXT: [{{-0\.07070[0-9]*}}, {{-(0\.05841[0-9]*|0\.05842|0\.05842[0-9]*)}}],
  // CHECK-NEXT: [{{-0\.02853[0-9]*}}, {{-(0\.17307|0\.17307[0-9]*|0\.17308|0\.17308[0-9]*)}}],
  // CHECK-NEXT: [{{-(0\.00870[0-9]*|0\.00871|0\.00871[0-9]*)}}, {{(0\.03873[0-9]*|0\.03874|0\.03874[0-9]*)}}],
  // CHECK-NEXT: [{{-(0\.10076[0-9]*|0\.10077|0\.10077[0-9]*)}}, {{-(0\.08303[0-9]*|0\.08304|0\.08304[0-9]*)}}],
  // CHECK-NEXT: [{{(0\.08341[0-9]*|0\.08342|0\.08342[0-9]*)}}, {{-0\.00758[0-9]*}}]]
  call @printMemrefF32(%u52) : (tensor<*xf32>) -> ()
  %p53 = tensor.collapse_shape %r50#1 [[0, 1, 2], [3]] : tensor<2x1x3x2xf32> into tensor<6x2xf32>
  %u54 = tensor.cast %p53 : tensor<6x2xf32> to tensor<*xf32>
  // attention_grad_f32: dk (finite difference)
  // CHECK: rank = 2 offset = 0 sizes = [6, 2] strides = [2, 1] data =
  // CHECK-NEXT: {{\[}}[{{(0\.7968[0-9]*|0\.7969|0\.7969[0-9]*)}}, {{-0\.9966[0-9]*}}],
  // CHECK-NEXT: [{{-0\.7770[0-9]*}}, {{(1\.0695[0-9]*|1\.0696|1\.0696[0-9]*)}}],
  // CHECK-NEXT: [{{-(0\.01984[0-9]*|0\.01985|0\.01985[0-9]*)}}, {{-(0\.07294[0-9]*|0\.07295|0\.07295[0-9]*)}}],
  // CHECK-NEXT: [{{0\.05456[0-9]*}}, {{-0\.02969[0-9]*}}],
  // CHECK-NEXT: [{{-(0\.15917|0\.15917[0-9]*|0\.15918)}}, {{-(0\.11237[0-9]*|0\.11238|0\.11238[0-9]*)}}],
  // CHECK-NEXT: [{{(0\.10460[0-9]*|0\.10461|0\.10461[0-9]*)}}, {{(0\.14207[0-9]*|0\.14208|0\.14208[0-9]*)}}]]
  call @printMemrefF32(%u54) : (tensor<*xf32>) -> ()
  %p55 = tensor.collapse_shape %r50#2 [[0, 1, 2], [3]] : tensor<2x1x3x2xf32> into tensor<6x2xf32>
  %u56 = tensor.cast %p55 : tensor<6x2xf32> to tensor<*xf32>
  // attention_grad_f32: dv (finite difference)
  // CHECK: rank = 2 offset = 0 sizes = [6, 2] strides = [2, 1] data =
  // CHECK-NEXT: {{\[}}[{{(0\.9432[0-9]*|0\.9433|0\.9433[0-9]*)}}, {{-(0\.27034[0-9]*|0\.27035|0\.27035[0-9]*)}}],
  // CHECK-NEXT: [{{0\.9010[0-9]*}}, {{-(0\.29265|0\.29265[0-9]*|0\.29266|0\.29266[0-9]*)}}],
  // CHECK-NEXT: [{{(1\.0356[0-9]*|1\.0357|1\.0357[0-9]*)}}, {{-(0\.6669[0-9]*|0\.667|0\.6670[0-9]*)}}],
  // CHECK-NEXT: [{{(0\.14509[0-9]*|0\.1451|0\.14510[0-9]*)}}, {{0\.5044[0-9]*}}],
  // CHECK-NEXT: [{{-(0\.36359[0-9]*|0\.3636|0\.36360[0-9]*|0\.36361)}}, {{0\.5081[0-9]*}}],
  // CHECK-NEXT: [{{-(0\.5314[0-9]*|0\.5315|0\.5315[0-9]*)}}, {{(0\.5673[0-9]*|0\.5674|0\.5674[0-9]*)}}]]
  call @printMemrefF32(%u56) : (tensor<*xf32>) -> ()
  %c57 = arith.constant dense<[[[[1.3700000047683716, 0.46000000834465027], [0.9800000190734863, 0.10000000149011612], [-1.3799999952316284, 0.10999999940395355]], [[0.38999998569488525, -1.2300000190734863], [-0.05999999865889549, 1.3300000429153442], [-1.309999942779541, -1.3600000143051147]]]]> : tensor<1x2x3x2xf32>
  %c58 = arith.constant dense<[[[[-1.190000057220459, 0.550000011920929], [1.1799999475479126, -1.0299999713897705]]]]> : tensor<1x1x2x2xf32>
  %c59 = arith.constant dense<[[[[1.0299999713897705, -0.8299999833106995], [0.10999999940395355, 0.7900000214576721]]]]> : tensor<1x1x2x2xf32>
  %c60 = arith.constant dense<[[[[-1.149999976158142, -0.07000000029802322], [1.100000023841858, -0.4399999976158142], [0.8899999856948853, -0.14000000059604645]], [[1.3300000429153442, -0.30000001192092896], [0.9700000286102295, -1.2699999809265137], [-0.47999998927116394, -1.059999942779541]]]]> : tensor<1x2x3x2xf32>
  %r61:3 = call @attention_grad_f32_masked_row(%c57, %c58, %c59, %c60) : (tensor<1x2x3x2xf32>, tensor<1x1x2x2xf32>, tensor<1x1x2x2xf32>, tensor<1x2x3x2xf32>) -> (tensor<1x2x3x2xf32>, tensor<1x1x2x2xf32>, tensor<1x1x2x2xf32>)
  %p62 = tensor.collapse_shape %r61#0 [[0, 1, 2], [3]] : tensor<1x2x3x2xf32> into tensor<6x2xf32>
  %u63 = tensor.cast %p62 : tensor<6x2xf32> to tensor<*xf32>
  // attention_grad_f32_masked_row: dq (finite difference)
  // CHECK: rank = 2 offset = 0 sizes = [6, 2] strides = [2, 1] data =
  // CHECK-NEXT: {{\[}}[{{-?(0|[0-9](\.[0-9]+)?e-(0[6-9]|[1-9][0-9]))}}, {{-?(0|[0-9](\.[0-9]+)?e-(0[6-9]|[1-9][0-9]))}}],
  // CHECK-NEXT: [{{-?(0|[0-9](\.[0-9]+)?e-(0[6-9]|[1-9][0-9]))}}, {{-?(0|[0-9](\.[0-9]+)?e-(0[6-9]|[1-9][0-9]))}}],
  // CHECK-NEXT: [{{-(0\.09199[0-9]*|0\.092|0\.09200[0-9]*)}}, {{(0\.06132[0-9]*|0\.06133|0\.06133[0-9]*)}}],
  // CHECK-NEXT: [{{-?(0|[0-9](\.[0-9]+)?e-(0[6-9]|[1-9][0-9]))}}, {{-?(0|[0-9](\.[0-9]+)?e-(0[6-9]|[1-9][0-9]))}}],
  // CHECK-NEXT: [{{-?(0|[0-9](\.[0-9]+)?e-(0[6-9]|[1-9][0-9]))}}, {{-?(0|[0-9](\.[0-9]+)?e-(0[6-9]|[1-9][0-9]))}}],
  // CHECK-NEXT: [{{-(0\.5683[0-9]*|0\.5684|0\.5684[0-9]*)}}, {{0\.3789[0-9]*}}]]
  call @printMemrefF32(%u63) : (tensor<*xf32>) -> ()
  %p64 = tensor.collapse_shape %r61#1 [[0, 1, 2], [3]] : tensor<1x1x2x2xf32> into tensor<2x2xf32>
  %u65 = tensor.cast %p64 : tensor<2x2xf32> to tensor<*xf32>
  // attention_grad_f32_masked_row: dk (finite difference)
  // CHECK: rank = 2 offset = 0 sizes = [2, 2] strides = [2, 1] data =
  // CHECK-NEXT: {{\[}}[{{-0\.3677[0-9]*}}, {{-(0\.3218[0-9]*|0\.3219|0\.3219[0-9]*)}}],
  // CHECK-NEXT: [{{0\.3677[0-9]*}}, {{(0\.3218[0-9]*|0\.3219|0\.3219[0-9]*)}}]]
  call @printMemrefF32(%u65) : (tensor<*xf32>) -> ()
  %p66 = tensor.collapse_shape %r61#2 [[0, 1, 2], [3]] : tensor<1x1x2x2xf32> into tensor<2x2xf32>
  %u67 = tensor.cast %p66 : tensor<2x2xf32> to tensor<*xf32>
  // attention_grad_f32_masked_row: dv (finite difference)
  // CHECK: rank = 2 offset = 0 sizes = [2, 2] strides = [2, 1] data =
  // CHECK-NEXT: {{\[}}[{{(2\.5842[0-9]*|2\.5843|2\.5843[0-9]*)}}, {{-(2\.5888|2\.5888[0-9]*|2\.5889|2\.5889[0-9]*)}}],
  // CHECK-NEXT: [{{-0\.10432[0-9]*}}, {{-0\.3211[0-9]*}}]]
  call @printMemrefF32(%u67) : (tensor<*xf32>) -> ()
  %c68 = arith.constant dense<[[[[-0.3125, -0.3125, -0.75, -0.25], [0.5625, 0.25, -0.75, 0.625]], [[0.625, -0.25, -0.125, -1.0], [1.0, -0.4375, -0.625, 1.3125]]]]> : tensor<1x2x2x4xbf16>
  %c69 = arith.constant dense<[[[[-0.5625, -0.875, -0.375, 0.0625], [0.3125, -0.3125, 0.5625, -1.4375], [1.25, -0.125, -0.125, -0.1875]]]]> : tensor<1x1x3x4xbf16>
  %c70 = arith.constant dense<[[[[-0.6875, 0.9375, -0.125, -1.1875], [-0.4375, -0.0625, -0.4375, -1.1875], [1.1875, -1.0625, 0.6875, -0.25]]]]> : tensor<1x1x3x4xbf16>
  %c71 = arith.constant dense<[[[[-0.0, 0.5625, -1.4375, -0.0], [-0.125, -0.1875, -1.5, -1.4375]], [[-0.0, -0.125, -0.5, -1.125], [-0.4375, 0.5, 0.9375, 0.8125]]]]> : tensor<1x2x2x4xbf16>
  %r72:3 = call @attention_grad_bf16(%c68, %c69, %c70, %c71) : (tensor<1x2x2x4xbf16>, tensor<1x1x3x4xbf16>, tensor<1x1x3x4xbf16>, tensor<1x2x2x4xbf16>) -> (tensor<1x2x2x4xbf16>, tensor<1x1x3x4xbf16>, tensor<1x1x3x4xbf16>)
  %p73 = tensor.collapse_shape %r72#0 [[0, 1, 2], [3]] : tensor<1x2x2x4xbf16> into tensor<4x4xbf16>
  %t75 = tensor.empty() : tensor<4x4xf32>
  %e74 = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%p73 : tensor<4x4xbf16>) outs(%t75 : tensor<4x4xf32>) {
  ^bb0(%in: bf16, %out: f32):
    %f = arith.extf %in : bf16 to f32
    linalg.yield %f : f32
  } -> tensor<4x4xf32>
  %u76 = tensor.cast %e74 : tensor<4x4xf32> to tensor<*xf32>
  // attention_grad_bf16: dq (finite difference)
  // CHECK: rank = 2 offset = 0 sizes = [4, 4] strides = [4, 1] data =
  // CHECK-NEXT: {{\[}}[{{-(0\.00[0-9]*|0\.01[0-9]*)}}, {{-(0\.00[0-9]*|0\.01[0-9]*)}}, {{-(0\.00[0-9]*|0\.01[0-9]*)}}, {{(0\.01[0-9]*|0\.02[0-9]*)}}],
  // CHECK-NEXT: [{{-(0\.45[0-9]*|0\.46[0-9]*)}}, {{-(0\.15[0-9]*|0\.16[0-9]*)}}, {{(0\.06[0-9]*|0\.07[0-9]*)}}, {{-(0\.15[0-9]*|0\.16|0\.16[0-9]*)}}],
  // CHECK-NEXT: [{{0\.02[0-9]*}}, {{0\.01[0-9]*}}, {{(0\.02[0-9]*|0\.03[0-9]*)}}, {{-0\.04[0-9]*}}],
  // CHECK-NEXT: [{{-0\.04[0-9]*}}, {{-0\.02[0-9]*}}, {{-(0\.03[0-9]*|0\.04[0-9]*)}}, {{(0\.05[0-9]*|0\.06[0-9]*)}}]]
  call @printMemrefF32(%u76) : (tensor<*xf32>) -> ()
  %p77 = tensor.collapse_shape %r72#1 [[0, 1, 2], [3]] : tensor<1x1x3x4xbf16> into tensor<3x4xbf16>
  %t79 = tensor.empty() : tensor<3x4xf32>
  %e78 = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%p77 : tensor<3x4xbf16>) outs(%t79 : tensor<3x4xf32>) {
  ^bb0(%in: bf16, %out: f32):
    %f = arith.extf %in : bf16 to f32
    linalg.yield %f : f32
  } -> tensor<3x4xf32>
  %u80 = tensor.cast %e78 : tensor<3x4xf32> to tensor<*xf32>
  // attention_grad_bf16: dk (finite difference)
  // CHECK: rank = 2 offset = 0 sizes = [3, 4] strides = [4, 1] data =
  // CHECK-NEXT: {{\[}}[{{(0\.11[0-9]*|0\.12[0-9]*)}}, {{0\.02[0-9]*}}, {{-(0\.15[0-9]*|0\.16[0-9]*)}}, {{(0\.18[0-9]*|0\.19[0-9]*)}}],
  // CHECK-NEXT: [{{0\.07[0-9]*}}, {{0\.05[0-9]*}}, {{-(0\.08[0-9]*|0\.09[0-9]*)}}, {{0\.02[0-9]*}}],
  // CHECK-NEXT: [{{-(0\.18[0-9]*|0\.19[0-9]*)}}, {{-(0\.07[0-9]*|0\.08|0\.08[0-9]*)}}, {{(0\.24[0-9]*|0\.25|0\.25[0-9]*)}}, {{-(0\.21[0-9]*|0\.22|0\.22[0-9]*)}}]]
  call @printMemrefF32(%u80) : (tensor<*xf32>) -> ()
  %p81 = tensor.collapse_shape %r72#2 [[0, 1, 2], [3]] : tensor<1x1x3x4xbf16> into tensor<3x4xbf16>
  %t83 = tensor.empty() : tensor<3x4xf32>
  %e82 = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%p81 : tensor<3x4xbf16>) outs(%t83 : tensor<3x4xf32>) {
  ^bb0(%in: bf16, %out: f32):
    %f = arith.extf %in : bf16 to f32
    linalg.yield %f : f32
  } -> tensor<3x4xf32>
  %u84 = tensor.cast %e82 : tensor<3x4xf32> to tensor<*xf32>
  // attention_grad_bf16: dv (finite difference)
  // CHECK: rank = 2 offset = 0 sizes = [3, 4] strides = [4, 1] data =
  // CHECK-NEXT: {{\[}}[{{-(0\.17[0-9]*|0\.18[0-9]*)}}, {{(0\.39[0-9]*|0\.40[0-9]*|0\.41[0-9]*)}}, {{-1\.1[0-9]*}}, {{-(0\.50[0-9]*|0\.51[0-9]*|0\.52[0-9]*)}}],
  // CHECK-NEXT: [{{-(0\.07[0-9]*|0\.08[0-9]*)}}, {{(0\.16[0-9]*|0\.17[0-9]*)}}, {{-(1\.0[0-9]*|1\.1|1\.1[0-9]*)}}, {{-(0\.95[0-9]*|0\.96[0-9]*|0\.97[0-9]*|0\.98[0-9]*)}}],
  // CHECK-NEXT: [{{-(0\.29[0-9]*|0\.30[0-9]*)}}, {{(0\.17[0-9]*|0\.18[0-9]*)}}, {{-(0\.21[0-9]*|0\.22[0-9]*)}}, {{-(0\.25[0-9]*|0\.26|0\.26[0-9]*)}}]]
  call @printMemrefF32(%u84) : (tensor<*xf32>) -> ()
  return
}
