// RUN: mem-opt %s --split-input-file --verify-diagnostics --train-shard='tp=2'
// RUN: not mem-opt %s --train-shard='dp=2 zero=1' 2>&1 | FileCheck %s --check-prefix=ZERO
// RUN: mem-opt %s --train-shard='dp=2' | FileCheck %s --check-prefix=DP

// train-shard and frozen weights stored quantized (train-quantize-frozen):
// tensor parallelism would need each process's part of the codes and
// scales, and ZeRO (which partitions the parameters of stage 1 and up as
// train-shard models it) would gather storage a dequantize op reads whole;
// neither has a rule, so both are refused. Plain data parallelism keeps the
// frozen storage whole on every process.
// ZERO: error: 'func.func' op train-shard: reads frozen weights stored quantized (train-quantize-frozen), which zero=1 cannot partition; use data parallelism with zero=0
// DP: train.dequantize_int8 %w.int8.codes, %w.int8.scale {axis = 1 : i64, weight = "w"} : tensor<8x8xi8>, tensor<8xf32> -> tensor<8x8xf32>

// expected-error @+1 {{train-shard: reads frozen weights stored quantized (train-quantize-frozen), which tensor parallelism (tp > 1) cannot partition; use data parallelism with zero=0}}
func.func @qlora(%x: tensor<4x8xf32>, %t: tensor<4x8xf32>) -> tensor<f32> {
  %c = train.param "w.int8.codes" {trainable = false} : tensor<8x8xi8>
  %s = train.param "w.int8.scale" {trainable = false} : tensor<8xf32>
  %w = train.dequantize_int8 %c, %s {axis = 1 : i64, weight = "w"} : tensor<8x8xi8>, tensor<8xf32> -> tensor<8x8xf32>
  %y = train.matmul %x, %w : tensor<4x8xf32>, tensor<8x8xf32> -> tensor<4x8xf32>
  %a = train.param "a" : tensor<8xf32>
  %z = train.bias_add %y, %a : tensor<4x8xf32>, tensor<8xf32> -> tensor<4x8xf32>
  %l = train.mse_loss %z, %t : tensor<4x8xf32>, tensor<4x8xf32> -> tensor<f32>
  return %l : tensor<f32>
}
