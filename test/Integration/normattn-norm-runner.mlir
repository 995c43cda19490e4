// Executes layer_norm, rms_norm and their gradients lowered to the CPU.
// Expected values were computed independently in f64 (numpy) from the ops'
// documented semantics; gradient expectations are central finite differences
// of the forward op, dx_i = (sum(dy * f(x + h e_i)) - sum(dy * f(x - h e_i)))
// / 2h with h = 1e-6, for a random upstream gradient dy. A regex accepts the
// printed values within the stated tolerance; bf16 results must be the
// correctly rounded value or one of its two bf16 neighbours.
// RUN: mem-opt %s --convert-train-to-linalg --memopt-lower-to-cpu \
// RUN:   | %mlir_runner -e main -entry-point-result=void %runner_libs \
// RUN:   | FileCheck %s
// The same through memopt-lower-to-gpu's kernels, run as CPU loops (every
// reduction a block reduction, matmuls through the CPU cuBLAS stand-in):
// RUN: mem-opt %s --convert-train-to-linalg %gpu_emulator \
// RUN:   | %mlir_runner -e main -entry-point-result=void %runner_libs \
// RUN:   | FileCheck %s

func.func @layer_norm_f32(%x: tensor<2x3x5xf32>, %g: tensor<5xf32>, %b: tensor<5xf32>)
    -> (tensor<2x3x5xf32>, tensor<2x3xf32>, tensor<2x3xf32>) {
  %y, %mean, %rstd = train.layer_norm %x, %g, %b {epsilon = 1.000000e-05 : f64}
      : tensor<2x3x5xf32>, tensor<5xf32>, tensor<5xf32> -> tensor<2x3x5xf32>, tensor<2x3xf32>, tensor<2x3xf32>
  return %y, %mean, %rstd : tensor<2x3x5xf32>, tensor<2x3xf32>, tensor<2x3xf32>
}

func.func @layer_norm_bf16(%x: tensor<2x8xbf16>, %g: tensor<8xbf16>, %b: tensor<8xbf16>)
    -> (tensor<2x8xbf16>, tensor<2xf32>, tensor<2xf32>) {
  %y, %mean, %rstd = train.layer_norm %x, %g, %b {epsilon = 1.000000e-05 : f64}
      : tensor<2x8xbf16>, tensor<8xbf16>, tensor<8xbf16> -> tensor<2x8xbf16>, tensor<2xf32>, tensor<2xf32>
  return %y, %mean, %rstd : tensor<2x8xbf16>, tensor<2xf32>, tensor<2xf32>
}

func.func @layer_norm_f64_rank1(%x: tensor<6xf64>, %g: tensor<6xf64>, %b: tensor<6xf64>)
    -> (tensor<6xf64>, tensor<f32>, tensor<f32>) {
  %y, %mean, %rstd = train.layer_norm %x, %g, %b {epsilon = 1.000000e-03 : f64}
      : tensor<6xf64>, tensor<6xf64>, tensor<6xf64> -> tensor<6xf64>, tensor<f32>, tensor<f32>
  return %y, %mean, %rstd : tensor<6xf64>, tensor<f32>, tensor<f32>
}

// Forward then backward, as a training step does.
func.func @layer_norm_grad_f64(%x: tensor<3x4xf64>, %g: tensor<4xf64>, %b: tensor<4xf64>, %dy: tensor<3x4xf64>) -> (tensor<3x4xf64>, tensor<4xf64>, tensor<4xf64>) {
  %y, %mean, %rstd = train.layer_norm %x, %g, %b {epsilon = 1.000000e-05 : f64}
      : tensor<3x4xf64>, tensor<4xf64>, tensor<4xf64> -> tensor<3x4xf64>, tensor<3xf32>, tensor<3xf32>
  %dx, %dg, %db = train.layer_norm_grad %dy, %x, %g, %mean, %rstd
      : tensor<3x4xf64>, tensor<3x4xf64>, tensor<4xf64>, tensor<3xf32>, tensor<3xf32> -> tensor<3x4xf64>, tensor<4xf64>, tensor<4xf64>
  return %dx, %dg, %db : tensor<3x4xf64>, tensor<4xf64>, tensor<4xf64>
}

// Forward then backward, as a training step does.
func.func @layer_norm_grad_f32(%x: tensor<2x2x5xf32>, %g: tensor<5xf32>, %b: tensor<5xf32>, %dy: tensor<2x2x5xf32>) -> (tensor<2x2x5xf32>, tensor<5xf32>, tensor<5xf32>) {
  %y, %mean, %rstd = train.layer_norm %x, %g, %b {epsilon = 1.000000e-05 : f64}
      : tensor<2x2x5xf32>, tensor<5xf32>, tensor<5xf32> -> tensor<2x2x5xf32>, tensor<2x2xf32>, tensor<2x2xf32>
  %dx, %dg, %db = train.layer_norm_grad %dy, %x, %g, %mean, %rstd
      : tensor<2x2x5xf32>, tensor<2x2x5xf32>, tensor<5xf32>, tensor<2x2xf32>, tensor<2x2xf32> -> tensor<2x2x5xf32>, tensor<5xf32>, tensor<5xf32>
  return %dx, %dg, %db : tensor<2x2x5xf32>, tensor<5xf32>, tensor<5xf32>
}

// Forward then backward, as a training step does.
func.func @layer_norm_grad_bf16(%x: tensor<2x8xbf16>, %g: tensor<8xbf16>, %b: tensor<8xbf16>, %dy: tensor<2x8xbf16>) -> (tensor<2x8xbf16>, tensor<8xbf16>, tensor<8xbf16>) {
  %y, %mean, %rstd = train.layer_norm %x, %g, %b {epsilon = 1.000000e-05 : f64}
      : tensor<2x8xbf16>, tensor<8xbf16>, tensor<8xbf16> -> tensor<2x8xbf16>, tensor<2xf32>, tensor<2xf32>
  %dx, %dg, %db = train.layer_norm_grad %dy, %x, %g, %mean, %rstd
      : tensor<2x8xbf16>, tensor<2x8xbf16>, tensor<8xbf16>, tensor<2xf32>, tensor<2xf32> -> tensor<2x8xbf16>, tensor<8xbf16>, tensor<8xbf16>
  return %dx, %dg, %db : tensor<2x8xbf16>, tensor<8xbf16>, tensor<8xbf16>
}

func.func @rms_norm_f32(%x: tensor<2x3x4xf32>, %g: tensor<4xf32>) -> (tensor<2x3x4xf32>, tensor<2x3xf32>) {
  %y, %rstd = train.rms_norm %x, %g {epsilon = 1.000000e-06 : f64} : tensor<2x3x4xf32>, tensor<4xf32> -> tensor<2x3x4xf32>, tensor<2x3xf32>
  return %y, %rstd : tensor<2x3x4xf32>, tensor<2x3xf32>
}

func.func @rms_norm_bf16_f32_gamma(%x: tensor<3x8xbf16>, %g: tensor<8xf32>) -> (tensor<3x8xbf16>, tensor<3xf32>) {
  %y, %rstd = train.rms_norm %x, %g {epsilon = 1.000000e-06 : f64} : tensor<3x8xbf16>, tensor<8xf32> -> tensor<3x8xbf16>, tensor<3xf32>
  return %y, %rstd : tensor<3x8xbf16>, tensor<3xf32>
}

// Forward then backward, as a training step does.
func.func @rms_norm_grad_f64(%x: tensor<3x5xf64>, %g: tensor<5xf64>, %dy: tensor<3x5xf64>) -> (tensor<3x5xf64>, tensor<5xf64>) {
  %y, %rstd = train.rms_norm %x, %g {epsilon = 1.000000e-06 : f64} : tensor<3x5xf64>, tensor<5xf64> -> tensor<3x5xf64>, tensor<3xf32>
  %dx, %dg = train.rms_norm_grad %dy, %x, %g, %rstd : tensor<3x5xf64>, tensor<3x5xf64>, tensor<5xf64>, tensor<3xf32> -> tensor<3x5xf64>, tensor<5xf64>
  return %dx, %dg : tensor<3x5xf64>, tensor<5xf64>
}

// Forward then backward, as a training step does.
func.func @rms_norm_grad_f32(%x: tensor<2x2x4xf32>, %g: tensor<4xf32>, %dy: tensor<2x2x4xf32>) -> (tensor<2x2x4xf32>, tensor<4xf32>) {
  %y, %rstd = train.rms_norm %x, %g {epsilon = 1.000000e-05 : f64} : tensor<2x2x4xf32>, tensor<4xf32> -> tensor<2x2x4xf32>, tensor<2x2xf32>
  %dx, %dg = train.rms_norm_grad %dy, %x, %g, %rstd : tensor<2x2x4xf32>, tensor<2x2x4xf32>, tensor<4xf32>, tensor<2x2xf32> -> tensor<2x2x4xf32>, tensor<4xf32>
  return %dx, %dg : tensor<2x2x4xf32>, tensor<4xf32>
}

func.func private @printMemrefF32(tensor<*xf32>)
func.func private @printMemrefF64(tensor<*xf64>)

func.func @main() {
  %c1 = arith.constant dense<[[[0.5, 1.590000033378601, 1.100000023841858, -1.100000023841858, -0.800000011920929], [1.4900000095367432, -1.9800000190734863, 1.2799999713897705, 1.190000057220459, -0.12999999523162842], [-0.7900000214576721, -0.8899999856948853, -0.9800000190734863, -0.2199999988079071, 0.019999999552965164]], [[0.20999999344348907, 1.9800000190734863, 1.1699999570846558, 0.49000000953674316, 1.9600000381469727], [-1.1399999856948853, -1.3600000143051147, 0.44999998807907104, -1.8200000524520874, -1.8600000143051147], [0.05999999865889549, -0.14000000059604645, 1.6699999570846558, 0.5199999809265137, 0.05999999865889549]]]> : tensor<2x3x5xf32>
  %c2 = arith.constant dense<[-0.009999999776482582, -1.0099999904632568, -1.9500000476837158, -1.2300000190734863, 0.7699999809265137]> : tensor<5xf32>
  %c3 = arith.constant dense<[-1.2000000476837158, -0.5199999809265137, -1.9900000095367432, 1.3200000524520874, -1.3799999952316284]> : tensor<5xf32>
  %r4:3 = call @layer_norm_f32(%c1, %c2, %c3) : (tensor<2x3x5xf32>, tensor<5xf32>, tensor<5xf32>) -> (tensor<2x3x5xf32>, tensor<2x3xf32>, tensor<2x3xf32>)
  %p5 = tensor.collapse_shape %r4#0 [[0, 1], [2]] : tensor<2x3x5xf32> into tensor<6x5xf32>
  %u6 = tensor.cast %p5 : tensor<6x5xf32> to tensor<*xf32>
  // layer_norm_f32: y
  // CHECK: rank = 2 offset = 0 sizes = [6, 5] strides = [5, 1] data =
  // CHECK-NEXT: {{\[}}[{{-(1\.20229|1\.2023|1\.20231|1\.20232)}}, {{-(1\.8020[0-9]*|1\.8021|1\.8021[0-9]*)}}, {{-(3\.5546[0-9]*|3\.5547|3\.5547[0-9]*)}}, {{(2\.9118|2\.9118[0-9]*)}}, {{-(2\.1563[0-9]*|2\.1564)}}],
  // CHECK-NEXT: [{{-(1\.20856|1\.20857|1\.20858|1\.20859)}}, {{(1\.29744|1\.29745|1\.29746|1\.29747)}}, {{-(3\.3487[0-9]*|3\.3488|3\.3488[0-9]*)}}, {{0\.5476[0-9]*}}, {{-(1\.67479|1\.6748|1\.67481|1\.67482)}}],
  // CHECK-NEXT: [{{-(1\.1945|1\.19451|1\.19452|1\.19453)}}, {{(0\.28825[0-9]*|0\.28826|0\.28826[0-9]*)}}, {{0\.01214[0-9]*}}, {{(0\.23044[0-9]*|0\.23045|0\.23045[0-9]*)}}, {{-(0\.23286[0-9]*|0\.23287|0\.23287[0-9]*)}}],
  // CHECK-NEXT: [{{-(1\.18694|1\.18695|1\.18696|1\.18697)}}, {{-(1\.65186|1\.65187|1\.65188|1\.65189)}}, {{-2\.0113[0-9]*}}, {{(2\.4523[0-9]*|2\.4524|2\.4524[0-9]*)}}, {{-0\.5381[0-9]*}}],
  // CHECK-NEXT: [{{-(1\.20006|1\.20007|1\.20008|1\.20009)}}, {{-(0\.26374[0-9]*|0\.26375|0\.26375[0-9]*)}}, {{-(5\.6797[0-9]*|5\.6798|5\.6798[0-9]*)}}, {{(2\.3028[0-9]*|2\.3029)}}, {{-(2\.0317[0-9]*|2\.0318|2\.0318[0-9]*)}}],
  // CHECK-NEXT: [{{-(1\.19428|1\.19429|1\.1943)}}, {{0\.3652[0-9]*}}, {{-(5\.6702[0-9]*|5\.6703|5\.6703[0-9]*|5\.6704)}}, {{(1\.15846|1\.15847|1\.15848|1\.15849)}}, {{-1\.8197[0-9]*}}]]
  call @printMemrefF32(%u6) : (tensor<*xf32>) -> ()
  %u7 = tensor.cast %r4#1 : tensor<2x3xf32> to tensor<*xf32>
  // layer_norm_f32: mean
  // CHECK: rank = 2 offset = 0 sizes = [2, 3] strides = [3, 1] data =
  // CHECK-NEXT: {{\[}}[{{(0\.25799[0-9]*|0\.258|0\.25800[0-9]*)}}, {{(0\.36999[0-9]*|0\.37|0\.37000[0-9]*)}}, {{-(0\.57199[0-9]*|0\.572|0\.57200[0-9]*)}}],
  // CHECK-NEXT: [1.162, -1.146, {{(0\.43399[0-9]*|0\.434|0\.43400[0-9]*)}}]]
  call @printMemrefF32(%u7) : (tensor<*xf32>) -> ()
  %u8 = tensor.cast %r4#2 : tensor<2x3xf32> to tensor<*xf32>
  // layer_norm_f32: rstd
  // CHECK: rank = 2 offset = 0 sizes = [2, 3] strides = [3, 1] data =
  // CHECK-NEXT: {{\[}}[{{(0\.95299[0-9]*|0\.953|0\.95300[0-9]*)}}, {{(0\.76572[0-9]*|0\.76573|0\.76573[0-9]*)}}, {{(2\.51652|2\.51653)}}],
  // CHECK-NEXT: [1.37001, {{(1\.18558|1\.18559)}}, {{(1\.52698|1\.52699)}}]]
  call @printMemrefF32(%u8) : (tensor<*xf32>) -> ()
  %c9 = arith.constant dense<[[-0.9375, 1.5, 0.0625, 1.375, 0.5625, 0.9375, -1.625, 0.1875], [0.0, 1.5, -0.5625, 0.375, -1.75, -0.4375, -0.6875, -1.375]]> : tensor<2x8xbf16>
  %c10 = arith.constant dense<[1.25, -0.5, 1.9375, 0.375, 0.4375, 0.5625, 0.6875, -1.375]> : tensor<8xbf16>
  %c11 = arith.constant dense<[-0.25, -1.0625, -0.375, -1.625, 1.875, -1.125, 0.6875, -0.8125]> : tensor<8xbf16>
  %r12:3 = call @layer_norm_bf16(%c9, %c10, %c11) : (tensor<2x8xbf16>, tensor<8xbf16>, tensor<8xbf16>) -> (tensor<2x8xbf16>, tensor<2xf32>, tensor<2xf32>)
  %t14 = tensor.empty() : tensor<2x8xf32>
  %e13 = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%r12#0 : tensor<2x8xbf16>) outs(%t14 : tensor<2x8xf32>) {
  ^bb0(%in: bf16, %out: f32):
    %f = arith.extf %in : bf16 to f32
    linalg.yield %f : f32
  } -> tensor<2x8xf32>
  %u15 = tensor.cast %e13 : tensor<2x8xf32> to tensor<*xf32>
  // layer_norm_bf16: y
  // CHECK: rank = 2 offset = 0 sizes = [2, 8] strides = [8, 1] data =
  // CHECK-NEXT: {{\[}}[{{-1\.70312|-1\.71094|-1\.71875}}, {{-1\.66406|-1\.67188|-1\.67969}}, {{-0\.742188|-0\.746094|-0\.75}}, {{-1\.21094|-1\.21875|-1\.22656}}, {{1\.99219|2|2\.01562}}, {{-0\.746094|-0\.75|-0\.753906}}, {{-0\.574219|-0\.578125|-0\.582031}}, {{-0\.714844|-0\.71875|-0\.722656}}],
  // CHECK-NEXT: [{{0\.231445|0\.232422|0\.233398}}, {{-2\.03125|-2\.04688|-2\.0625}}, {{-0\.769531|-0\.773438|-0\.777344}}, {{-1\.32812|-1\.33594|-1\.34375}}, {{1\.23438|1\.24219|1\.25}}, {{-1\.15625|-1\.16406|-1\.17188}}, {{0\.455078|0\.457031|0\.458984}}, {{0\.640625|0\.644531|0\.648438}}]]
  call @printMemrefF32(%u15) : (tensor<*xf32>) -> ()
  %u16 = tensor.cast %r12#1 : tensor<2xf32> to tensor<*xf32>
  // layer_norm_bf16: mean
  // CHECK: rank = 1 offset = 0 sizes = [2] strides = [1] data =
  // CHECK-NEXT: [{{(0\.257811|0\.257812|0\.257813|0\.257814)}}, {{-(0\.367186|0\.367187|0\.367188|0\.367189)}}]
  call @printMemrefF32(%u16) : (tensor<*xf32>) -> ()
  %u17 = tensor.cast %r12#2 : tensor<2xf32> to tensor<*xf32>
  // layer_norm_bf16: rstd
  // CHECK: rank = 1 offset = 0 sizes = [2] strides = [1] data =
  // CHECK-NEXT: [{{0\.97806[0-9]*}}, {{(1\.05076|1\.05077)}}]
  call @printMemrefF32(%u17) : (tensor<*xf32>) -> ()
  %c18 = arith.constant dense<[1.5, 0.65, -1.47, 1.38, 1.78, 1.62]> : tensor<6xf64>
  %c19 = arith.constant dense<[0.28, -1.42, -1.23, 1.71, 0.21, -1.28]> : tensor<6xf64>
  %c20 = arith.constant dense<[1.54, 0.57, 0.28, -0.49, -0.36, -1.04]> : tensor<6xf64>
  %r21:3 = call @layer_norm_f64_rank1(%c18, %c19, %c20) : (tensor<6xf64>, tensor<6xf64>, tensor<6xf64>) -> (tensor<6xf64>, tensor<f32>, tensor<f32>)
  %u22 = tensor.cast %r21#0 : tensor<6xf64> to tensor<*xf64>
  // layer_norm_f64_rank1: y
  // CHECK: rank = 1 offset = 0 sizes = [6] strides = [1] data =
  // CHECK-NEXT: [1.68709, {{(0\.898735|0\.898736)}}, 2.88656, 0.225614, -0.197324, -1.8492]
  call @printMemrefF64(%u22) : (tensor<*xf64>) -> ()
  %u23 = tensor.cast %r21#1 : tensor<f32> to tensor<*xf32>
  // layer_norm_f64_rank1: mean
  // CHECK: rank = 0 offset = 0 sizes = [] strides = [] data =
  // CHECK-NEXT: [{{(0\.90999[0-9]*|0\.91|0\.91000[0-9]*)}}]
  call @printMemrefF32(%u23) : (tensor<*xf32>) -> ()
  %u24 = tensor.cast %r21#2 : tensor<f32> to tensor<*xf32>
  // layer_norm_f64_rank1: rstd
  // CHECK: rank = 0 offset = 0 sizes = [] strides = [] data =
  // CHECK-NEXT: [{{(0\.89039[0-9]*|0\.8904|0\.89040[0-9]*)}}]
  call @printMemrefF32(%u24) : (tensor<*xf32>) -> ()
  %c25 = arith.constant dense<[[-1.85, 1.5, -0.13, 0.19], [-0.71, 1.01, -1.9, -0.51], [-1.88, -1.51, 1.87, 0.63]]> : tensor<3x4xf64>
  %c26 = arith.constant dense<[-0.29, 0.09, 1.49, -0.62]> : tensor<4xf64>
  %c27 = arith.constant dense<[0.36, 0.73, -0.58, 0.08]> : tensor<4xf64>
  %c28 = arith.constant dense<[[1.06, 1.64, -1.4, 1.73], [-1.98, 1.01, 1.24, -1.45], [-0.32, 1.26, -1.94, 0.51]]> : tensor<3x4xf64>
  %r29:3 = call @layer_norm_grad_f64(%c25, %c26, %c27, %c28) : (tensor<3x4xf64>, tensor<4xf64>, tensor<4xf64>, tensor<3x4xf64>) -> (tensor<3x4xf64>, tensor<4xf64>, tensor<4xf64>)
  %u30 = tensor.cast %r29#0 : tensor<3x4xf64> to tensor<*xf64>
  // layer_norm_grad_f64: dx (finite difference)
  // CHECK: rank = 2 offset = 0 sizes = [3, 4] strides = [4, 1] data =
  // CHECK-NEXT: {{\[}}[{{(0\.598238|0\.598239|0\.59824)}}, {{(0\.675886|0\.675887|0\.675888)}}, -1.04687, -0.227253],
  // CHECK-NEXT: [{{-(0\.371806|0\.371807)}}, 0.126074, {{(0\.191378|0\.191379)}}, {{(0\.054353[0-9]*|0\.054354|0\.054354[0-9]*)}}],
  // CHECK-NEXT: [-0.201342, {{-0\.021002[0-9]*}}, {{-(0\.443816|0\.443817)}}, {{(0\.66616|0\.666161|0\.666162)}}]]
  call @printMemrefF64(%u30) : (tensor<*xf64>) -> ()
  %u31 = tensor.cast %r29#1 : tensor<4xf64> to tensor<*xf64>
  // layer_norm_grad_f64: dgamma (finite difference)
  // CHECK: rank = 1 offset = 0 sizes = [4] strides = [1] data =
  // CHECK-NEXT: [{{-(0\.884483|0\.884484|0\.884485)}}, {{(2\.60841|2\.60842)}}, {{-(4\.21031|4\.21032)}}, {{(0\.637712|0\.637713)}}]
  call @printMemrefF64(%u31) : (tensor<*xf64>) -> ()
  %u32 = tensor.cast %r29#2 : tensor<4xf64> to tensor<*xf64>
  // layer_norm_grad_f64: dbeta (finite difference)
  // CHECK: rank = 1 offset = 0 sizes = [4] strides = [1] data =
  // CHECK-NEXT: [-1.24, 3.91, -2.1, {{(0\.789999|0\.79|0\.790001)}}]
  call @printMemrefF64(%u32) : (tensor<*xf64>) -> ()
  %c33 = arith.constant dense<[[[1.1699999570846558, 0.05000000074505806, 0.8999999761581421, -1.090000033378601, -1.2100000381469727], [-0.550000011920929, -1.2799999713897705, -0.6200000047683716, 1.7899999618530273, 0.28999999165534973]], [[-0.6399999856948853, -0.9100000262260437, 1.809999942779541, -0.2199999988079071, 1.9199999570846558], [0.05999999865889549, 0.07999999821186066, 1.590000033378601, 0.9700000286102295, 0.3199999928474426]]]> : tensor<2x2x5xf32>
  %c34 = arith.constant dense<[-0.28999999165534973, 1.5099999904632568, -0.3499999940395355, 1.690000057220459, -1.7300000190734863]> : tensor<5xf32>
  %c35 = arith.constant dense<[-0.2800000011920929, 0.07999999821186066, 1.7999999523162842, -1.0, 1.2200000286102295]> : tensor<5xf32>
  %c36 = arith.constant dense<[[[0.7099999785423279, 0.8700000047683716, 0.5199999809265137, 1.8899999856948853, -0.6700000166893005], [-0.4099999964237213, -1.190000057220459, -1.7999999523162842, -1.149999976158142, 1.659999966621399]], [[1.3600000143051147, -1.5499999523162842, 0.41999998688697815, -0.07999999821186066, 0.3799999952316284], [0.6399999856948853, -0.7699999809265137, 1.850000023841858, -0.14000000059604645, 0.5099999904632568]]]> : tensor<2x2x5xf32>
  %r37:3 = call @layer_norm_grad_f32(%c33, %c34, %c35, %c36) : (tensor<2x2x5xf32>, tensor<5xf32>, tensor<5xf32>, tensor<2x2x5xf32>) -> (tensor<2x2x5xf32>, tensor<5xf32>, tensor<5xf32>)
  %p38 = tensor.collapse_shape %r37#0 [[0, 1], [2]] : tensor<2x2x5xf32> into tensor<4x5xf32>
  %u39 = tensor.cast %p38 : tensor<4x5xf32> to tensor<*xf32>
  // layer_norm_grad_f32: dx (finite difference)
  // CHECK: rank = 2 offset = 0 sizes = [4, 5] strides = [5, 1] data =
  // CHECK-NEXT: {{\[}}[{{-(0\.00433[0-9]*|0\.00434|0\.00434[0-9]*)}}, {{0\.3537[0-9]*}}, {{-0\.2665[0-9]*}}, {{(1\.0577[0-9]*|1\.0578|1\.0578[0-9]*)}}, {{-1\.1406[0-9]*}}],
  // CHECK-NEXT: [{{(0\.9879[0-9]*|0\.988|0\.9880[0-9]*)}}, {{-(1\.1831[0-9]*|1\.1832|1\.1832[0-9]*)}}, {{1\.4371[0-9]*}}, {{(0\.18670[0-9]*|0\.18671|0\.18671[0-9]*)}}, {{-1\.4286[0-9]*}}],
  // CHECK-NEXT: [{{0\.5405[0-9]*}}, {{-0\.9819[0-9]*}}, {{(0\.12044[0-9]*|0\.12045|0\.12045[0-9]*)}}, {{0\.6457[0-9]*}}, {{-(0\.32477[0-9]*|0\.32478|0\.32478[0-9]*)}}],
  // CHECK-NEXT: [{{(0\.8607[0-9]*|0\.8608|0\.8608[0-9]*)}}, {{-0\.7918[0-9]*}}, {{-(0\.26454[0-9]*|0\.26455|0\.26455[0-9]*)}}, {{0\.5688[0-9]*}}, {{-0\.3732[0-9]*}}]]
  call @printMemrefF32(%u39) : (tensor<*xf32>) -> ()
  %u40 = tensor.cast %r37#1 : tensor<5xf32> to tensor<*xf32>
  // layer_norm_grad_f32: dgamma (finite difference)
  // CHECK: rank = 1 offset = 0 sizes = [5] strides = [1] data =
  // CHECK-NEXT: [{{-0\.6786[0-9]*}}, {{(3\.7643[0-9]*|3\.7644|3\.7644[0-9]*)}}, {{(4\.988[0-9]*|4\.989)}}, {{-4\.101[0-9]*}}, {{(1\.6025[0-9]*|1\.6026|1\.6026[0-9]*)}}]
  call @printMemrefF32(%u40) : (tensor<*xf32>) -> ()
  %u41 = tensor.cast %r37#2 : tensor<5xf32> to tensor<*xf32>
  // layer_norm_grad_f32: dbeta (finite difference)
  // CHECK: rank = 1 offset = 0 sizes = [5] strides = [1] data =
  // CHECK-NEXT: [{{(2\.2999[0-9]*|2\.3|2\.3000[0-9]*)}}, {{-(2\.6399[0-9]*|2\.64|2\.6400[0-9]*)}}, {{(0\.9899[0-9]*|0\.99|0\.9900[0-9]*)}}, {{(0\.5199[0-9]*|0\.52|0\.5200[0-9]*)}}, {{(1\.8799[0-9]*|1\.88|1\.8800[0-9]*)}}]
  call @printMemrefF32(%u41) : (tensor<*xf32>) -> ()
  %c42 = arith.constant dense<[[0.5625, -1.25, -1.75, -0.375, 1.0625, 1.25, 0.9375, -1.5625], [1.625, 1.1875, 1.5, 0.0625, 1.6875, -1.8125, -1.875, -1.9375]]> : tensor<2x8xbf16>
  %c43 = arith.constant dense<[-1.0, -1.0, -1.25, 0.25, -1.875, 0.375, -1.3125, 0.6875]> : tensor<8xbf16>
  %c44 = arith.constant dense<[-1.9375, -0.75, 1.75, 0.125, 1.25, 0.625, 0.4375, -1.25]> : tensor<8xbf16>
  %c45 = arith.constant dense<[[0.3125, -1.8125, 1.1875, 1.8125, 1.4375, -1.8125, -0.625, -0.75], [-1.5625, 0.5, 1.1875, -0.75, 1.4375, 1.1875, -1.5, 1.0625]]> : tensor<2x8xbf16>
  %r46:3 = call @layer_norm_grad_bf16(%c42, %c43, %c44, %c45) : (tensor<2x8xbf16>, tensor<8xbf16>, tensor<8xbf16>, tensor<2x8xbf16>) -> (tensor<2x8xbf16>, tensor<8xbf16>, tensor<8xbf16>)
  %t48 = tensor.empty() : tensor<2x8xf32>
  %e47 = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%r46#0 : tensor<2x8xbf16>) outs(%t48 : tensor<2x8xf32>) {
  ^bb0(%in: bf16, %out: f32):
    %f = arith.extf %in : bf16 to f32
    linalg.yield %f : f32
  } -> tensor<2x8xf32>
  %u49 = tensor.cast %e47 : tensor<2x8xf32> to tensor<*xf32>
  // layer_norm_grad_bf16: dx (finite difference)
  // CHECK: rank = 2 offset = 0 sizes = [2, 8] strides = [8, 1] data =
  // CHECK-NEXT: {{\[}}[{{0\.148438|0\.149414|0\.150391}}, {{1\.60156|1\.60938|1\.61719}}, {{-1\.29688|-1\.30469|-1\.3125}}, {{0\.617188|0\.621094|0\.625}}, {{-1\.78125|-1\.78906|-1\.79688}}, {{-0\.0291748|-0\.0292969|-0\.0294189}}, {{1\.1875|1\.19531|1\.20312}}, {{-0\.441406|-0\.443359|-0\.445312}}],
  // CHECK-NEXT: [{{1\.54688|1\.55469|1\.5625}}, {{0\.0878906|0\.0883789|0\.0888672}}, {{-0\.427734|-0\.429688|-0\.431641}}, {{-0\.103516|-0\.104004|-0\.104492}}, {{-1\.13281|-1\.14062|-1\.14844}}, {{-0\.351562|-0\.353516|-0\.355469}}, {{0\.59375|0\.597656|0\.601562}}, {{-0\.213867|-0\.214844|-0\.21582}}]]
  call @printMemrefF32(%u49) : (tensor<*xf32>) -> ()
  %t51 = tensor.empty() : tensor<8xf32>
  %e50 = linalg.generic {indexing_maps = [affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>], iterator_types = ["parallel"]} ins(%r46#1 : tensor<8xbf16>) outs(%t51 : tensor<8xf32>) {
  ^bb0(%in: bf16, %out: f32):
    %f = arith.extf %in : bf16 to f32
    linalg.yield %f : f32
  } -> tensor<8xf32>
  %u52 = tensor.cast %e50 : tensor<8xf32> to tensor<*xf32>
  // layer_norm_grad_bf16: dgamma (finite difference)
  // CHECK: rank = 1 offset = 0 sizes = [8] strides = [1] data =
  // CHECK-NEXT: [{{-1\.36719|-1\.375|-1\.38281}}, {{2\.0625|2\.07812|2\.09375}}, {{-0\.535156|-0\.539062|-0\.542969}}, {{-0\.365234|-0\.367188|-0\.369141}}, {{2\.95312|2\.96875|2\.98438}}, {{-3\.54688|-3\.5625|-3\.57812}}, {{1\.25781|1\.26562|1\.27344}}, {{-0\.435547|-0\.4375|-0\.439453}}]
  call @printMemrefF32(%u52) : (tensor<*xf32>) -> ()
  %t54 = tensor.empty() : tensor<8xf32>
  %e53 = linalg.generic {indexing_maps = [affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>], iterator_types = ["parallel"]} ins(%r46#2 : tensor<8xbf16>) outs(%t54 : tensor<8xf32>) {
  ^bb0(%in: bf16, %out: f32):
    %f = arith.extf %in : bf16 to f32
    linalg.yield %f : f32
  } -> tensor<8xf32>
  %u55 = tensor.cast %e53 : tensor<8xf32> to tensor<*xf32>
  // layer_norm_grad_bf16: dbeta (finite difference)
  // CHECK: rank = 1 offset = 0 sizes = [8] strides = [1] data =
  // CHECK-NEXT: [{{-1\.24219|-1\.25|-1\.25781}}, {{-1\.30469|-1\.3125|-1\.32031}}, {{2\.35938|2\.375|2\.39062}}, {{1\.05469|1\.0625|1\.07031}}, {{2\.85938|2\.875|2\.89062}}, {{-0\.621094|-0\.625|-0\.628906}}, {{-2\.10938|-2\.125|-2\.14062}}, {{0\.310547|0\.3125|0\.314453}}]
  call @printMemrefF32(%u55) : (tensor<*xf32>) -> ()
  %c56 = arith.constant dense<[[[1.5299999713897705, -1.2100000381469727, 0.28999999165534973, 0.550000011920929], [0.4399999976158142, -1.6200000047683716, 0.6399999856948853, 0.5299999713897705], [1.2999999523162842, 1.2100000381469727, -0.6899999976158142, 0.8899999856948853]], [[1.4700000286102295, 1.5700000524520874, -1.350000023841858, -1.8899999856948853], [0.6000000238418579, -1.1399999856948853, 0.25, 1.7799999713897705], [-0.47999998927116394, -0.9900000095367432, -0.17000000178813934, 0.6299999952316284]]]> : tensor<2x3x4xf32>
  %c57 = arith.constant dense<[-1.600000023841858, -0.47999998927116394, -1.4700000286102295, 0.6499999761581421]> : tensor<4xf32>
  %r58:2 = call @rms_norm_f32(%c56, %c57) : (tensor<2x3x4xf32>, tensor<4xf32>) -> (tensor<2x3x4xf32>, tensor<2x3xf32>)
  %p59 = tensor.collapse_shape %r58#0 [[0, 1], [2]] : tensor<2x3x4xf32> into tensor<6x4xf32>
  %u60 = tensor.cast %p59 : tensor<6x4xf32> to tensor<*xf32>
  // rms_norm_f32: y
  // CHECK: rank = 2 offset = 0 sizes = [6, 4] strides = [4, 1] data =
  // CHECK-NEXT: {{\[}}[{{-(2\.3913[0-9]*|2\.3914|2\.3914[0-9]*)}}, {{(0\.56736[0-9]*|0\.56737|0\.56737[0-9]*)}}, {{-(0\.41643[0-9]*|0\.41644|0\.41644[0-9]*)}}, {{(0\.34922[0-9]*|0\.34923|0\.34923[0-9]*)}}],
  // CHECK-NEXT: [{{-(0\.7516[0-9]*|0\.7517|0\.7517[0-9]*)}}, {{0\.8302[0-9]*}}, {{-(1\.00453|1\.00454|1\.00455)}}, {{(0\.36783[0-9]*|0\.36784|0\.36784[0-9]*)}}],
  // CHECK-NEXT: [{{-(1\.9781[0-9]*|1\.9782|1\.9782[0-9]*)}}, {{-(0\.55236[0-9]*|0\.55237|0\.55237[0-9]*|0\.55238)}}, {{0\.9646[0-9]*}}, {{0\.5501[0-9]*}}],
  // CHECK-NEXT: [{{-(1\.486|1\.4860[0-9]*)}}, {{-(0\.47612[0-9]*|0\.47613|0\.47613[0-9]*|0\.47614)}}, {{(1\.25381|1\.25382|1\.25383|1\.25384)}}, {{-0\.7761[0-9]*}}],
  // CHECK-NEXT: [{{-(0\.8681[0-9]*|0\.8682|0\.8682[0-9]*)}}, {{(0\.49487[0-9]*|0\.49488|0\.49488[0-9]*)}}, {{-(0\.33235[0-9]*|0\.33236|0\.33236[0-9]*)}}, {{(1\.04636|1\.04637|1\.04638|1\.04639)}}],
  // CHECK-NEXT: [{{(1\.20075|1\.20076|1\.20077|1\.20078)}}, {{0\.7429[0-9]*}}, {{(0\.39071[0-9]*|0\.39072|0\.39072[0-9]*)}}, {{0\.6402[0-9]*}}]]
  call @printMemrefF32(%u60) : (tensor<*xf32>) -> ()
  %u61 = tensor.cast %r58#1 : tensor<2x3xf32> to tensor<*xf32>
  // rms_norm_f32: rstd
  // CHECK: rank = 2 offset = 0 sizes = [2, 3] strides = [3, 1] data =
  // CHECK-NEXT: {{\[}}[{{(0\.97687[0-9]*|0\.97688)}}, 1.06775, {{0\.95105[0-9]*}}],
  // CHECK-NEXT: [{{(0\.63180[0-9]*|0\.63181|0\.63181[0-9]*)}}, {{0\.90438[0-9]*}}, 1.5635]]
  call @printMemrefF32(%u61) : (tensor<*xf32>) -> ()
  %c62 = arith.constant dense<[[1.3125, -0.5, -0.5, 0.1875, -1.125, -1.0, -0.6875, -0.1875], [-1.6875, 1.0, 0.3125, -0.8125, -1.6875, 1.0625, -1.5, -1.4375], [-1.5, -1.6875, 1.625, -0.9375, -0.75, 1.3125, 0.5, -1.25]]> : tensor<3x8xbf16>
  %c63 = arith.constant dense<[-0.25, 1.5625, -0.5, 0.8125, -1.625, 0.9375, 1.125, 1.3125]> : tensor<8xf32>
  %r64:2 = call @rms_norm_bf16_f32_gamma(%c62, %c63) : (tensor<3x8xbf16>, tensor<8xf32>) -> (tensor<3x8xbf16>, tensor<3xf32>)
  %t66 = tensor.empty() : tensor<3x8xf32>
  %e65 = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%r64#0 : tensor<3x8xbf16>) outs(%t66 : tensor<3x8xf32>) {
  ^bb0(%in: bf16, %out: f32):
    %f = arith.extf %in : bf16 to f32
    linalg.yield %f : f32
  } -> tensor<3x8xf32>
  %u67 = tensor.cast %e65 : tensor<3x8xf32> to tensor<*xf32>
  // rms_norm_bf16_f32_gamma: y
  // CHECK: rank = 2 offset = 0 sizes = [3, 8] strides = [8, 1] data =
  // CHECK-NEXT: {{\[}}[{{-0\.412109|-0\.414062|-0\.416016}}, {{-0\.980469|-0\.984375|-0\.988281}}, {{0\.3125|0\.314453|0\.316406}}, {{0\.191406|0\.192383|0\.193359}}, {{2\.29688|2\.3125|2\.32812}}, {{-1\.17188|-1\.17969|-1\.1875}}, {{-0\.972656|-0\.976562|-0\.980469}}, {{-0\.308594|-0\.310547|-0\.3125}}],
  // CHECK-NEXT: [{{0\.330078|0\.332031|0\.333984}}, {{1\.22656|1\.23438|1\.24219}}, {{-0\.122559|-0\.123047|-0\.123535}}, {{-0\.515625|-0\.519531|-0\.523438}}, {{2\.14062|2\.15625|2\.17188}}, {{0\.78125|0\.785156|0\.789062}}, {{-1\.32031|-1\.32812|-1\.33594}}, {{-1\.47656|-1\.48438|-1\.49219}}],
  // CHECK-NEXT: [{{0\.294922|0\.296875|0\.298828}}, {{-2\.07812|-2\.09375|-2\.10938}}, {{-0\.640625|-0\.644531|-0\.648438}}, {{-0\.601562|-0\.605469|-0\.609375}}, {{0\.960938|0\.964844|0\.96875}}, {{0\.972656|0\.976562|0\.980469}}, {{0\.443359|0\.445312|0\.447266}}, {{-1\.29688|-1\.30469|-1\.3125}}]]
  call @printMemrefF32(%u67) : (tensor<*xf32>) -> ()
  %u68 = tensor.cast %r64#1 : tensor<3xf32> to tensor<*xf32>
  // rms_norm_bf16_f32_gamma: rstd
  // CHECK: rank = 1 offset = 0 sizes = [3] strides = [1] data =
  // CHECK-NEXT: [{{(1\.26097|1\.26098)}}, {{0\.78754[0-9]*}}, {{(0\.79321|0\.79321[0-9]*)}}]
  call @printMemrefF32(%u68) : (tensor<*xf32>) -> ()
  %c69 = arith.constant dense<[[0.7, -0.52, -1.74, 0.08, 1.03], [-1.24, -0.94, 0.14, 0.99, 1.59], [-1.5, -1.26, 1.2, 0.58, 0.88]]> : tensor<3x5xf64>
  %c70 = arith.constant dense<[1.99, 1.76, 1.37, 1.11, -0.42]> : tensor<5xf64>
  %c71 = arith.constant dense<[[0.56, -1.26, 1.04, 1.03, 0.89], [-0.22, -0.49, -0.32, -1.87, 1.38], [0.17, -0.45, 0.19, 0.89, -0.47]]> : tensor<3x5xf64>
  %r72:2 = call @rms_norm_grad_f64(%c69, %c70, %c71) : (tensor<3x5xf64>, tensor<5xf64>, tensor<3x5xf64>) -> (tensor<3x5xf64>, tensor<5xf64>)
  %u73 = tensor.cast %r72#0 : tensor<3x5xf64> to tensor<*xf64>
  // rms_norm_grad_f64: dx (finite difference)
  // CHECK: rank = 2 offset = 0 sizes = [3, 5] strides = [5, 1] data =
  // CHECK-NEXT: {{\[}}[1.2537, -2.34164, 1.14058, 1.17425, {{-(0\.19861|0\.198611)}}],
  // CHECK-NEXT: [{{-(0\.723228|0\.723229|0\.72323)}}, -1.03462, {{-(0\.365574|0\.365575)}}, -1.64598, -0.118649],
  // CHECK-NEXT: [{{(0\.621162|0\.621163|0\.621164)}}, {{-(0\.430296|0\.430297)}}, {{-0\.027215[0-9]*}}, {{(0\.749522|0\.749523|0\.749524)}}, {{-(0\.014195[0-9]*|0\.014196|0\.014196[0-9]*)}}]]
  call @printMemrefF64(%u73) : (tensor<*xf64>) -> ()
  %u74 = tensor.cast %r72#1 : tensor<5xf64> to tensor<*xf64>
  // rms_norm_grad_f64: dgamma (finite difference)
  // CHECK: rank = 1 offset = 0 sizes = [5] strides = [1] data =
  // CHECK-NEXT: [{{(0\.422299|0\.4223)}}, {{(1\.58877|1\.58878)}}, -1.67573, -1.15693, 2.57594]
  call @printMemrefF64(%u74) : (tensor<*xf64>) -> ()
  %c75 = arith.constant dense<[[[1.3200000524520874, 1.6799999475479126, -0.44999998807907104, -1.4500000476837158], [1.0399999618530273, 1.9700000286102295, -1.409999966621399, 0.8500000238418579]], [[1.2999999523162842, 1.6799999475479126, -1.5099999904632568, -1.6299999952316284], [1.9500000476837158, -1.5299999713897705, -1.2899999618530273, 0.30000001192092896]]]> : tensor<2x2x4xf32>
  %c76 = arith.constant dense<[-0.20999999344348907, 1.0, -1.2400000095367432, 1.659999966621399]> : tensor<4xf32>
  %c77 = arith.constant dense<[[[-1.1299999952316284, 1.0800000429153442, -1.7300000190734863, -0.10999999940395355], [-1.8700000047683716, -0.7400000095367432, -0.75, 0.8799999952316284]], [[-0.18000000715255737, -1.7699999809265137, 1.9800000190734863, 1.5499999523162842], [1.6699999570846558, -1.0099999904632568, -0.41999998688697815, -1.090000033378601]]]> : tensor<2x2x4xf32>
  %r78:2 = call @rms_norm_grad_f32(%c75, %c76, %c77) : (tensor<2x2x4xf32>, tensor<4xf32>, tensor<2x2x4xf32>) -> (tensor<2x2x4xf32>, tensor<4xf32>)
  %p79 = tensor.collapse_shape %r78#0 [[0, 1], [2]] : tensor<2x2x4xf32> into tensor<4x4xf32>
  %u80 = tensor.cast %p79 : tensor<4x4xf32> to tensor<*xf32>
  // rms_norm_grad_f32: dx (finite difference)
  // CHECK: rank = 2 offset = 0 sizes = [4, 4] strides = [4, 1] data =
  // CHECK-NEXT: {{\[}}[{{-(0\.02815[0-9]*|0\.02816|0\.02816[0-9]*)}}, {{(0\.5577[0-9]*|0\.5578|0\.5578[0-9]*)}}, {{(1\.7082|1\.7082[0-9]*)}}, {{0\.09050[0-9]*}}],
  // CHECK-NEXT: [{{(0\.39303|0\.39303[0-9]*|0\.39304|0\.39304[0-9]*)}}, {{-0\.3268[0-9]*}}, {{(0\.5229[0-9]*|0\.523|0\.5230[0-9]*)}}, {{(1\.1441[0-9]*|1\.1442|1\.1442[0-9]*)}}],
  // CHECK-NEXT: [{{0\.3299[0-9]*}}, {{-0\.7570[0-9]*}}, {{-(1\.952|1\.9520[0-9]*)}}, {{(1\.2911[0-9]*|1\.2912|1\.2912[0-9]*)}}],
  // CHECK-NEXT: [{{-(0\.18751[0-9]*|0\.18752|0\.18752[0-9]*)}}, {{-(0\.7674[0-9]*|0\.7675|0\.7675[0-9]*)}}, {{0\.3295[0-9]*}}, {{-1\.2781[0-9]*}}]]
  call @printMemrefF32(%u80) : (tensor<*xf32>) -> ()
  %u81 = tensor.cast %r78#1 : tensor<4xf32> to tensor<*xf32>
  // rms_norm_grad_f32: dgamma (finite difference)
  // CHECK: rank = 1 offset = 0 sizes = [4] strides = [1] data =
  // CHECK-NEXT: [{{-(0\.3769[0-9]*|0\.377|0\.3770[0-9]*)}}, {{-0\.5029[0-9]*}}, {{-(0\.20206[0-9]*|0\.20207|0\.20207[0-9]*)}}, {{-1\.2147[0-9]*}}]
  call @printMemrefF32(%u81) : (tensor<*xf32>) -> ()
  return
}
