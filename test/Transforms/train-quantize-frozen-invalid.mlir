// RUN: mem-opt %s --split-input-file --verify-diagnostics --train-quantize-frozen
// RUN: not mem-opt %s --split-input-file --train-quantize-frozen=format=nf3 2>&1 | FileCheck %s --check-prefix=FORMAT
// RUN: not mem-opt %s --split-input-file --train-quantize-frozen='format=int8 block=32' 2>&1 | FileCheck %s --check-prefix=INT8
// RUN: not mem-opt %s --split-input-file --train-quantize-frozen=block=48 2>&1 | FileCheck %s --check-prefix=BLOCK
// RUN: not mem-opt %s --split-input-file --train-quantize-frozen=block=131072 2>&1 | FileCheck %s --check-prefix=HUGE

// Bad options: an unknown format, NF4's options given to int8, a block that
// is not a power of two or is past 2^16. A block that does not divide a
// weight is allowed (the last block is partial, as in bitsandbytes).
// FORMAT: train-quantize-frozen: unknown format 'nf3'; expected one of nf4, int8
// INT8: train-quantize-frozen: block and double-quant apply to format=nf4; int8 keeps one scale per output feature
// BLOCK: error: 'func.func' op train-quantize-frozen: block must be a power of two from 2 to 65536, got 48
// HUGE: error: 'func.func' op train-quantize-frozen: block must be a power of two from 2 to 65536, got 131072

// Nothing frozen (train-lora or train-freeze has not run): nothing to
// quantize is an error, not a silent no-op.
// expected-error @+1 {{train-quantize-frozen: no frozen linear weight to quantize (a frozen 2-D float train.param that only train.matmuls read, as their right operand); apply train-lora or train-freeze first}}
func.func @trainable(%x: tensor<4x8xf32>, %y: tensor<4x8xf32>) -> tensor<f32> {
  %w = train.param "fc.weight" : tensor<8x8xf32>
  %h = train.matmul %x, %w : tensor<4x8xf32>, tensor<8x8xf32> -> tensor<4x8xf32>
  %l = train.mse_loss %h, %y : tensor<4x8xf32>, tensor<4x8xf32> -> tensor<f32>
  return %l : tensor<f32>
}

// -----

// Frozen, but read by something else too (a tied embedding): left alone,
// and then there is nothing to quantize.
// expected-error @+1 {{no frozen linear weight to quantize}}
func.func @tied(%ids: tensor<4xi64>, %y: tensor<4x8xf32>) -> tensor<f32> {
  %w = train.param "wte.weight" {trainable = false} : tensor<8x8xf32>
  %x = train.embedding %w, %ids : tensor<8x8xf32>, tensor<4xi64> -> tensor<4x8xf32>
  %h = train.matmul %x, %w {transpose_rhs} : tensor<4x8xf32>, tensor<8x8xf32> -> tensor<4x8xf32>
  %a = train.param "a" : tensor<4x8xf32>
  %s = train.add %h, %a : tensor<4x8xf32>
  %l = train.mse_loss %s, %y : tensor<4x8xf32>, tensor<4x8xf32> -> tensor<f32>
  return %l : tensor<f32>
}

// -----

// Quantizing twice.
// expected-error @+1 {{train-quantize-frozen: the function already reads quantized weights; quantize once}}
func.func @twice(%x: tensor<4x8xf32>, %y: tensor<4x8xf32>) -> tensor<f32> {
  %c = train.param "w.int8.codes" {trainable = false} : tensor<8x8xi8>
  %s = train.param "w.int8.scale" {trainable = false} : tensor<8xf32>
  %w = train.dequantize_int8 %c, %s {axis = 1 : i64, weight = "w"} : tensor<8x8xi8>, tensor<8xf32> -> tensor<8x8xf32>
  %h = train.matmul %x, %w : tensor<4x8xf32>, tensor<8x8xf32> -> tensor<4x8xf32>
  %l = train.mse_loss %h, %y : tensor<4x8xf32>, tensor<4x8xf32> -> tensor<f32>
  return %l : tensor<f32>
}

// -----

// A weight read transposed by one layer and not by another has no single
// dimension of output features (int8's scales): refused in every format.
func.func @transposed(%x: tensor<4x8xf32>, %y: tensor<4x8xf32>) -> tensor<f32> {
  %w = train.param "fc.weight" {trainable = false} : tensor<8x8xf32>
  // expected-note @+1 {{the other read}}
  %h = train.matmul %x, %w : tensor<4x8xf32>, tensor<8x8xf32> -> tensor<4x8xf32>
  // expected-error @+1 {{train-quantize-frozen: the weight 'fc.weight' is read transposed by one matmul and not by another: its output features are not one dimension}}
  %g = train.matmul %h, %w {transpose_rhs} : tensor<4x8xf32>, tensor<8x8xf32> -> tensor<4x8xf32>
  %l = train.mse_loss %g, %y : tensor<4x8xf32>, tensor<4x8xf32> -> tensor<f32>
  return %l : tensor<f32>
}

// -----

// After train-shard: the storage would have to be partitioned.
// expected-error @+1 {{'func.func' op carries 'train.shard': apply train-quantize-frozen before train-shard}}
func.func @sharded(%x: tensor<4x8xf32>) -> tensor<f32> attributes {train.shard = {dp = 2 : i64, grid = @grid, tp = 1 : i64, zero = 0 : i64}} {
  %w = train.param "w" {trainable = false} : tensor<8x8xf32>
  %y = train.matmul %x, %w : tensor<4x8xf32>, tensor<8x8xf32> -> tensor<4x8xf32>
  %l = train.reduce_sum %y {dims = array<i64: 0, 1>} : tensor<4x8xf32> -> tensor<f32>
  return %l : tensor<f32>
}

// -----

// After train-precision{mode=fp8} the linear layers are fp8 matmuls of the
// weights: the one order of the two passes that is refused.
// expected-error @+1 {{train-quantize-frozen: train-precision{mode=fp8} made the linear layers fp8 matmuls of the weights; quantize the frozen weights before train-precision}}
func.func @fp8(%x: tensor<4x8xf32>) -> tensor<f32> attributes {train.precision = {amax_history = 16 : i64, grads = "fp32", margin = 0 : i64, mode = "fp8"}} {
  %w = train.param "w" {trainable = false} : tensor<8x8xf32>
  %y = train.matmul %x, %w : tensor<4x8xf32>, tensor<8x8xf32> -> tensor<4x8xf32>
  %l = train.reduce_sum %y {dims = array<i64: 0, 1>} : tensor<4x8xf32> -> tensor<f32>
  return %l : tensor<f32>
}
