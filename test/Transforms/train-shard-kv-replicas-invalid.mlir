// RUN: mem-opt %s -split-input-file -verify-diagnostics --train-shard=tp=4 -o /dev/null
// RUN: not mem-opt %s -split-input-file --train-shard=tp=4 2>/dev/null | FileCheck %s --check-prefix=CHECK-PRODUCT

// KV heads are replicated when tp is a multiple of them; 3 KV heads over
// tp=4 are neither divided nor replicated.
func.func @kv_heads(%x: tensor<2x4x48xf32>, %t: tensor<2x4x48xf32>) -> tensor<f32> {
  %wq = train.param "q.weight" : tensor<48x48xf32>
  %q = train.matmul %x, %wq {transpose_rhs} : tensor<2x4x48xf32>, tensor<48x48xf32> -> tensor<2x4x48xf32>
  %wk = train.param "k.weight" : tensor<12x48xf32>
  %k = train.matmul %x, %wk {transpose_rhs} : tensor<2x4x48xf32>, tensor<12x48xf32> -> tensor<2x4x12xf32>
  %wv = train.param "v.weight" : tensor<12x48xf32>
  %v = train.matmul %x, %wv {transpose_rhs} : tensor<2x4x48xf32>, tensor<12x48xf32> -> tensor<2x4x12xf32>
  %q1 = train.reshape %q : tensor<2x4x48xf32> -> tensor<2x4x12x4xf32>
  %q2 = train.transpose %q1 {permutation = array<i64: 0, 2, 1, 3>} : tensor<2x4x12x4xf32> -> tensor<2x12x4x4xf32>
  // expected-error @+1 {{'train.reshape' op cannot be sharded by train-shard: its 3 attention heads (dimension 2 of 'tensor<2x4x3x4xf32>') do not divide by tp=4; use a tp that divides the attention heads and the MLP width, and either divides the KV heads or is a multiple of them (each KV head is then replicated)}}
  %k1 = train.reshape %k : tensor<2x4x12xf32> -> tensor<2x4x3x4xf32>
  %k2 = train.transpose %k1 {permutation = array<i64: 0, 2, 1, 3>} : tensor<2x4x3x4xf32> -> tensor<2x3x4x4xf32>
  %v1 = train.reshape %v : tensor<2x4x12xf32> -> tensor<2x4x3x4xf32>
  %v2 = train.transpose %v1 {permutation = array<i64: 0, 2, 1, 3>} : tensor<2x4x3x4xf32> -> tensor<2x3x4x4xf32>
  %a, %lse = train.attention %q2, %k2, %v2 {scale = 0.5 : f64} : tensor<2x12x4x4xf32>, tensor<2x3x4x4xf32>, tensor<2x3x4x4xf32> -> tensor<2x12x4x4xf32>, tensor<2x12x4xf32>
  %a1 = train.transpose %a {permutation = array<i64: 0, 2, 1, 3>} : tensor<2x12x4x4xf32> -> tensor<2x4x12x4xf32>
  %a2 = train.reshape %a1 : tensor<2x4x12x4xf32> -> tensor<2x4x48xf32>
  %wo = train.param "o.weight" : tensor<48x48xf32>
  %o = train.matmul %a2, %wo {transpose_rhs} : tensor<2x4x48xf32>, tensor<48x48xf32> -> tensor<2x4x48xf32>
  %l = train.mse_loss %o, %t : tensor<2x4x48xf32>, tensor<2x4x48xf32> -> tensor<f32>
  return %l : tensor<f32>
}

// -----

// The grid has one number of replicas: attentions with 1 and 2 KV heads
// cannot both be replicated over tp=4.
func.func @mixed_kv_heads(%x: tensor<2x4x16xf32>, %t: tensor<2x4x16xf32>) -> tensor<f32> {
  %q = train.reshape %x : tensor<2x4x16xf32> -> tensor<2x4x4x4xf32>
  %k = train.reshape %x : tensor<2x4x16xf32> -> tensor<2x4x4x4xf32>
  %a, %lse = train.attention %q, %k, %k {scale = 0.5 : f64} : tensor<2x4x4x4xf32>, tensor<2x4x4x4xf32>, tensor<2x4x4x4xf32> -> tensor<2x4x4x4xf32>, tensor<2x4x4xf32>
  %one = train.slice %k {offsets = array<i64: 0, 0, 0, 0>} : tensor<2x4x4x4xf32> -> tensor<2x1x4x4xf32>
  %two = train.slice %k {offsets = array<i64: 0, 0, 0, 0>} : tensor<2x4x4x4xf32> -> tensor<2x2x4x4xf32>
  %b, %lse1 = train.attention %a, %one, %one {scale = 0.5 : f64} : tensor<2x4x4x4xf32>, tensor<2x1x4x4xf32>, tensor<2x1x4x4xf32> -> tensor<2x4x4x4xf32>, tensor<2x4x4xf32>
  // expected-error @+1 {{'train.attention' op cannot be sharded by train-shard: it has 2 KV heads and another attention has 1; replicating KV heads over tp=4 needs the same number in every attention}}
  %c, %lse2 = train.attention %b, %two, %two {scale = 0.5 : f64} : tensor<2x4x4x4xf32>, tensor<2x2x4x4xf32>, tensor<2x2x4x4xf32> -> tensor<2x4x4x4xf32>, tensor<2x4x4xf32>
  %r = train.reshape %c : tensor<2x4x4x4xf32> -> tensor<2x4x16xf32>
  %l = train.mse_loss %r, %t : tensor<2x4x16xf32>, tensor<2x4x16xf32> -> tensor<f32>
  return %l : tensor<f32>
}

// -----

// Keys that are not a projection of their own (here the product of two)
// cannot have their KV head replicated: the attention's projections stay
// replicated, with warnings, and the MLP before them is still split.
// CHECK-PRODUCT: train.param "fc1.weight" {train.split = array<i64: 0, 1, 1, 0, 1, 2>}
// CHECK-PRODUCT: train.param "fc2.weight" {train.split = array<i64: 1, 1, 1, 1, 1, 2>}
func.func @product_keys(%x: tensor<2x4x16xf32>, %t: tensor<2x4x16xf32>) -> tensor<f32> {
  %w1 = train.param "fc1.weight" : tensor<32x16xf32>
  %h1 = train.matmul %x, %w1 {transpose_rhs} : tensor<2x4x16xf32>, tensor<32x16xf32> -> tensor<2x4x32xf32>
  %r1 = train.relu %h1 : tensor<2x4x32xf32>
  %w2 = train.param "fc2.weight" : tensor<16x32xf32>
  %h = train.matmul %r1, %w2 {transpose_rhs} : tensor<2x4x32xf32>, tensor<16x32xf32> -> tensor<2x4x16xf32>
  %wq = train.param "q.weight" : tensor<16x16xf32>
  // expected-warning @+1 {{train-shard keeps this matmul replicated (not column-parallel): its output reaches 'train.attention' (an attention with fewer KV heads than tp whose keys and values are not projections train-shard can replicate)}}
  %q = train.matmul %h, %wq {transpose_rhs} : tensor<2x4x16xf32>, tensor<16x16xf32> -> tensor<2x4x16xf32>
  %wk = train.param "k.weight" : tensor<8x16xf32>
  // expected-warning @+1 {{train-shard keeps this matmul replicated}}
  %k0 = train.matmul %h, %wk {transpose_rhs} : tensor<2x4x16xf32>, tensor<8x16xf32> -> tensor<2x4x8xf32>
  %wg = train.param "g.weight" : tensor<8x16xf32>
  // expected-warning @+1 {{train-shard keeps this matmul replicated}}
  %g = train.matmul %h, %wg {transpose_rhs} : tensor<2x4x16xf32>, tensor<8x16xf32> -> tensor<2x4x8xf32>
  %k = train.mul %k0, %g : tensor<2x4x8xf32>
  %wv = train.param "v.weight" : tensor<8x16xf32>
  // expected-warning @+1 {{train-shard keeps this matmul replicated}}
  %v = train.matmul %h, %wv {transpose_rhs} : tensor<2x4x16xf32>, tensor<8x16xf32> -> tensor<2x4x8xf32>
  %q1 = train.reshape %q : tensor<2x4x16xf32> -> tensor<2x4x4x4xf32>
  %q2 = train.transpose %q1 {permutation = array<i64: 0, 2, 1, 3>} : tensor<2x4x4x4xf32> -> tensor<2x4x4x4xf32>
  %k1 = train.reshape %k : tensor<2x4x8xf32> -> tensor<2x4x2x4xf32>
  %k2 = train.transpose %k1 {permutation = array<i64: 0, 2, 1, 3>} : tensor<2x4x2x4xf32> -> tensor<2x2x4x4xf32>
  %v1 = train.reshape %v : tensor<2x4x8xf32> -> tensor<2x4x2x4xf32>
  %v2 = train.transpose %v1 {permutation = array<i64: 0, 2, 1, 3>} : tensor<2x4x2x4xf32> -> tensor<2x2x4x4xf32>
  // expected-note @+1 {{reached here}}
  %a, %lse = train.attention %q2, %k2, %v2 {scale = 0.5 : f64} : tensor<2x4x4x4xf32>, tensor<2x2x4x4xf32>, tensor<2x2x4x4xf32> -> tensor<2x4x4x4xf32>, tensor<2x4x4xf32>
  %a1 = train.transpose %a {permutation = array<i64: 0, 2, 1, 3>} : tensor<2x4x4x4xf32> -> tensor<2x4x4x4xf32>
  %a2 = train.reshape %a1 : tensor<2x4x4x4xf32> -> tensor<2x4x16xf32>
  %wo = train.param "o.weight" : tensor<16x16xf32>
  // expected-warning @+1 {{train-shard keeps this matmul replicated}}
  %o = train.matmul %a2, %wo {transpose_rhs} : tensor<2x4x16xf32>, tensor<16x16xf32> -> tensor<2x4x16xf32>
  // expected-note @+1 {{reached here}}
  %l = train.mse_loss %o, %t : tensor<2x4x16xf32>, tensor<2x4x16xf32> -> tensor<f32>
  return %l : tensor<f32>
}
