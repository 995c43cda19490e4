// train.cast to f8E4M3FN and f8E5M2 and back, run by mem-run: train.cast
// lowers to arith.truncf / arith.extf in linalg.generic ops on fp8 tensors,
// which memopt-expand-fp8-conversions expands after bufferization (the
// exhaustive check of every code and rounding boundary is
// fp8-conversions.test). Each element rounds differently:
//
//   input           E4M3FN                    E5M2
//   1000            448 (saturated)           1024
//   -600            -448 (saturated)          -640 (above the tie at -576)
//   1.0625          1 (tie, to even)          1 (below the tie at 1.125)
//   1.1875          1.25 (tie, to even)       1.25
//   2^-10           0 (tie with the smallest  2^-10 (normal)
//                   subnormal 2^-9, to even)
//   -1.5 * 2^-10    -2^-9 (subnormal)         -1.5 * 2^-10
//   0.003           2^-8 (1.536 * 2^-9 -> 2)  1.5 * 2^-9 (1.536 -> 1.5)
//   60000           448 (saturated)           57344 (saturated)
//
// sums: E4M3FN 450.251953125, E5M2 57730.25244140625; sums of squares
// 602114.5625..., 3289792514.5625...
// RUN: mem-run %s | FileCheck %s
// RUN: mem-run %s --target=gpu-emulator | FileCheck %s
// CHECK: result 0: sum = 4.502519531e+02 sumsq = 6.021145625e+05
// CHECK: result 1: sum = 5.773025244e+04 sumsq = 3.289792515e+09

func.func @step() -> (tensor<8xf32>, tensor<8xf32>) {
  %s = arith.constant dense<[1000.0, -600.0, 1.0625, 1.1875, 0.0009765625,
                             -0.00146484375, 3.0e-3, 60000.0]> : tensor<8xf32>
  %h = train.cast %s : tensor<8xf32> -> tensor<8xf8E4M3FN>
  %b = train.cast %h : tensor<8xf8E4M3FN> -> tensor<8xf32>
  %g = train.cast %s : tensor<8xf32> -> tensor<8xf8E5M2>
  %c = train.cast %g : tensor<8xf8E5M2> -> tensor<8xf32>
  return %b, %c : tensor<8xf32>, tensor<8xf32>
}
