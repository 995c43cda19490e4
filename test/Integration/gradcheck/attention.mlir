// train.attention (fused scaled dot-product attention) in f64 with q, k and v
// all parameters, so every result of attention_grad (dq, dk, dv) is checked.
// Grouped-query attention: q is B x Hq x Sq x D = 2 x 6 x 4 x 7 and k, v are
// B x Hkv x Sk x D = 2 x 3 x 5 x 7, so query heads 2h and 2h + 1 share
// key/value head h and dk, dv sum over the group:
// - noncausal: scale 5;
// - causal: scale 5 with Sq = 4 < Sk = 5 (query i sees keys j <= i + 1);
// - mha: causal, Hq = Hkv = 3, Sq = Sk = 5, scale 3.
// The scales are large for the parameters' amplitudes (about 0.15), so that
// the attention weights are far from uniform. Only the output feeds the loss
// (lse is a statistic, not differentiable).
//
// Tolerances: attention returns lse as f32 even for f64 operands
// (TrainOps.td), and attention_grad recomputes the probabilities as
// exp(scale * q k^T - lse) from it, so each row of P carries a relative error
// of about eps_f32 * |lse| (up to ~1e-7); dv = P^T dout sums rows with
// different errors, so its error is absolute (relative to the gradients'
// scale, about 1), not relative to each element. A NumPy replica with lse
// rounded to f32 reproduces mem-run's analytic gradients to all printed digits
// (e.g. causal.v[141]: 7.793393043e-03 vs finite differences 7.793419243e-03;
// max deviation 3.7e-8 over dq, dk, dv), while the same formulas with f64 lse
// match the finite differences to 8e-10. Hence --gradcheck-atol=1e-7 and
// --gradcheck-rtol=1e-5.
// RUN: mem-run %s --func=noncausal --check-gradients --gradcheck-samples=400 --gradcheck-rtol=1e-5 --gradcheck-atol=1e-7 | FileCheck %s --check-prefix=NONCAUSAL
// RUN: mem-run %s --func=causal --check-gradients --gradcheck-samples=400 --gradcheck-rtol=1e-5 --gradcheck-atol=1e-7 | FileCheck %s --check-prefix=CAUSAL
// RUN: mem-run %s --func=mha --check-gradients --gradcheck-samples=400 --gradcheck-rtol=1e-5 --gradcheck-atol=1e-7 | FileCheck %s --check-prefix=MHA
// The same in tiles of query rows (block_rows = 2: two tiles of Sq = 4; one
// row per tile of Sq = 5), which train-autodiff passes on to attention_grad:
// RUN: sed -e 's/{scale/{block_rows = 2 : i64, scale/' -e 's/{causal, scale/{block_rows = 2 : i64, causal, scale/' %s > %t.tiled.mlir
// RUN: mem-opt %t.tiled.mlir --train-autodiff | FileCheck %s --check-prefix=TILED
// RUN: mem-run %t.tiled.mlir --func=causal --check-gradients --gradcheck-samples=400 --gradcheck-rtol=1e-5 --gradcheck-atol=1e-7 | FileCheck %s --check-prefix=CAUSAL
// RUN: mem-run %t.tiled.mlir --func=mha --check-gradients --gradcheck-samples=400 --gradcheck-rtol=1e-5 --gradcheck-atol=1e-7 | FileCheck %s --check-prefix=MHA
// TILED-COUNT-3: train.attention_grad {{.+}} {block_rows = 2 : i64,
// NONCAUSAL: gradcheck noncausal.q: 336 elements
// NONCAUSAL: gradcheck noncausal.k: 210 elements
// NONCAUSAL: gradcheck noncausal.v: 210 elements
// NONCAUSAL: gradcheck: passed, 3 parameters, 756 elements
// CAUSAL: gradcheck causal.q: 336 elements
// CAUSAL: gradcheck causal.k: 210 elements
// CAUSAL: gradcheck causal.v: 210 elements
// CAUSAL: gradcheck: passed, 3 parameters, 756 elements
// MHA: gradcheck mha.q: 210 elements
// MHA: gradcheck mha.k: 210 elements
// MHA: gradcheck mha.v: 210 elements
// MHA: gradcheck: passed, 3 parameters, 630 elements

func.func @noncausal(%r: tensor<2x6x4x7xf64>) -> tensor<f64> {
  %q = train.param "noncausal.q" : tensor<2x6x4x7xf64>
  %k = train.param "noncausal.k" : tensor<2x3x5x7xf64>
  %v = train.param "noncausal.v" : tensor<2x3x5x7xf64>
  %o, %lse = train.attention %q, %k, %v {scale = 5.000000e+00 : f64}
      : tensor<2x6x4x7xf64>, tensor<2x3x5x7xf64>, tensor<2x3x5x7xf64>
      -> tensor<2x6x4x7xf64>, tensor<2x6x4xf32>
  %y = train.mul %o, %r : tensor<2x6x4x7xf64>
  %l = train.reduce_sum %y {dims = array<i64: 0, 1, 2, 3>} : tensor<2x6x4x7xf64> -> tensor<f64>
  return %l : tensor<f64>
}

func.func @causal(%r: tensor<2x6x4x7xf64>) -> tensor<f64> {
  %q = train.param "causal.q" : tensor<2x6x4x7xf64>
  %k = train.param "causal.k" : tensor<2x3x5x7xf64>
  %v = train.param "causal.v" : tensor<2x3x5x7xf64>
  %o, %lse = train.attention %q, %k, %v {causal, scale = 5.000000e+00 : f64}
      : tensor<2x6x4x7xf64>, tensor<2x3x5x7xf64>, tensor<2x3x5x7xf64>
      -> tensor<2x6x4x7xf64>, tensor<2x6x4xf32>
  %y = train.mul %o, %r : tensor<2x6x4x7xf64>
  %l = train.reduce_sum %y {dims = array<i64: 0, 1, 2, 3>} : tensor<2x6x4x7xf64> -> tensor<f64>
  return %l : tensor<f64>
}

func.func @mha(%r: tensor<2x3x5x7xf64>) -> tensor<f64> {
  %q = train.param "mha.q" : tensor<2x3x5x7xf64>
  %k = train.param "mha.k" : tensor<2x3x5x7xf64>
  %v = train.param "mha.v" : tensor<2x3x5x7xf64>
  %o, %lse = train.attention %q, %k, %v {causal, scale = 3.000000e+00 : f64}
      : tensor<2x3x5x7xf64>, tensor<2x3x5x7xf64>, tensor<2x3x5x7xf64>
      -> tensor<2x3x5x7xf64>, tensor<2x3x5xf32>
  %y = train.mul %o, %r : tensor<2x3x5x7xf64>
  %l = train.reduce_sum %y {dims = array<i64: 0, 1, 2, 3>} : tensor<2x3x5x7xf64> -> tensor<f64>
  return %l : tensor<f64>
}
