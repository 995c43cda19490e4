// RUN: mem-opt %s -verify-diagnostics --train-precision='keep-fp32=lm_head'
// RUN: mem-opt %s -verify-diagnostics --train-precision='mode=fp32 exclude=lm_head'

// A pin that names no op is an error, in every mode.
// expected-error @+1 {{has no op named 'lm_head' (train-precision keep-fp32/exclude): give an op's location name, a prefix of it ending before a '.', or a train.layer name}}
func.func @f(%x: tensor<4xf32>) -> tensor<f32> {
  %w = train.param "w" : tensor<4xf32>
  %y = train.mul %x, %w : tensor<4xf32> loc("head")
  %l = train.reduce_sum %y {dims = array<i64: 0>} : tensor<4xf32> -> tensor<f32>
  return %l : tensor<f32>
}
