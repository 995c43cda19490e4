// A training step whose peak is at train.attention_grad (test/Integration/attention-tiles.test).
func.func @step(%r: tensor<1x4x64x16xf32>) -> tensor<f32> {
  %q = train.param "q" : tensor<1x4x64x16xf32>
  %k = train.param "k" : tensor<1x2x64x16xf32>
  %v = train.param "v" : tensor<1x2x64x16xf32>
  %o, %lse = train.attention %q, %k, %v {causal, scale = 2.500000e-01 : f64}
      : tensor<1x4x64x16xf32>, tensor<1x2x64x16xf32>, tensor<1x2x64x16xf32>
      -> tensor<1x4x64x16xf32>, tensor<1x4x64xf32>
  %y = train.mul %o, %r : tensor<1x4x64x16xf32>
  %l = train.reduce_sum %y {dims = array<i64: 0, 1, 2, 3>} : tensor<1x4x64x16xf32> -> tensor<f32>
  return %l : tensor<f32>
}
