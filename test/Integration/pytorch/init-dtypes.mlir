// REQUIRES: torch
//
// mem-run's initialization, bit for bit, in every float width it stores:
// parameters (amplitude 1/sqrt(fan_in)) and float step arguments (amplitude
// 1) in f32, bf16, f16 and f64, rebuilt by memrun_init.py. The step copies
// its arguments to its results so that mem-run prints their sums; sums are
// accumulated in double element by element on both sides, so equal tensors
// print equal digits (compare.py --rtol 0). bf16 is the case PyTorch gets
// wrong by itself: float64 -> bfloat16 rounds twice, through float32, and
// element 233484 of argument #1 (-0.27832032438981585, just past a bfloat16
// midpoint) rounds to -0.279296875 once but to -0.27734375 twice.
//
// RUN: mem-run %s --steps 1 > %t.memrun
// RUN: %python %S/init_reference.py \
// RUN:   --arg 0:3x5:f32 --arg 1:240000:bf16 --arg 2:40x30:f16 --arg 3:9:f64 \
// RUN:   --param layer.weight:64x96:bf16 --param layer.bias:96:f16 \
// RUN:   --param scale:f64 --param emb.weight:10x2x3:f32 > %t.reference
// RUN: %python %S/compare.py %t.memrun %t.reference --rtol 0 | FileCheck %s
// CHECK: compared 18 values, rtol 0, atol 0{{$}}
// CHECK: all values agree

func.func @step(%x: tensor<3x5xf32>, %y: tensor<240000xbf16>,
                %z: tensor<40x30xf16>, %d: tensor<9xf64>)
    -> (tensor<3x5xf32>, tensor<240000xbf16>, tensor<40x30xf16>, tensor<9xf64>) {
  %w = train.param "layer.weight" : tensor<64x96xbf16>
  %b = train.param "layer.bias" : tensor<96xf16>
  %s = train.param "scale" : tensor<f64>
  %e = train.param "emb.weight" : tensor<10x2x3xf32>
  %x0 = tensor.empty() : tensor<3x5xf32>
  %x1 = linalg.copy ins(%x : tensor<3x5xf32>) outs(%x0 : tensor<3x5xf32>) -> tensor<3x5xf32>
  %y0 = tensor.empty() : tensor<240000xbf16>
  %y1 = linalg.copy ins(%y : tensor<240000xbf16>) outs(%y0 : tensor<240000xbf16>) -> tensor<240000xbf16>
  %z0 = tensor.empty() : tensor<40x30xf16>
  %z1 = linalg.copy ins(%z : tensor<40x30xf16>) outs(%z0 : tensor<40x30xf16>) -> tensor<40x30xf16>
  %d0 = tensor.empty() : tensor<9xf64>
  %d1 = linalg.copy ins(%d : tensor<9xf64>) outs(%d0 : tensor<9xf64>) -> tensor<9xf64>
  return %x1, %y1, %z1, %d1 : tensor<3x5xf32>, tensor<240000xbf16>, tensor<40x30xf16>, tensor<9xf64>
}
