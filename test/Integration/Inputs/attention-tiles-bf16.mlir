// A training step whose peak is at train.attention_grad (test/Integration/attention-tiles.test).
func.func @step(%r: tensor<1x4x64x16xbf16>) -> tensor<bf16> {
  %q = train.param "q" : tensor<1x4x64x16xbf16>
  %k = train.param "k" : tensor<1x2x64x16xbf16>
  %v = train.param "v" : tensor<1x2x64x16xbf16>
  %o, %lse = train.attention %q, %k, %v {causal, scale = 2.500000e-01 : f64}
      : tensor<1x4x64x16xbf16>, tensor<1x2x64x16xbf16>, tensor<1x2x64x16xbf16>
      -> tensor<1x4x64x16xbf16>, tensor<1x4x64xf32>
  %y = train.mul %o, %r : tensor<1x4x64x16xbf16>
  %l = train.reduce_sum %y {dims = array<i64: 0, 1, 2, 3>} : tensor<1x4x64x16xbf16> -> tensor<bf16>
  return %l : tensor<bf16>
}
