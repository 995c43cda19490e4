// RUN: mem-opt %s -split-input-file --train-verify-plan -verify-diagnostics
//
// train-verify-plan on partial overlaps (train-verify-plan.mlir has identical
// offsets only): a tail over a head either way, containment either way,
// buffers that touch without overlapping, and overlaps in time only or in
// space only, down to a lifetime that ends one point too late.

// Partial overlaps (alignment 64, so buffers can start inside each other).
// %b's head lies over %a's tail: bytes [704, 768) are shared.
func.func @tail_over_head(%x: tensor<64xf32> {train.offset = 256 : i64}) -> tensor<64xf32>
    attributes {train.arena_bytes = 1024 : i64, train.persistent_bytes = 256 : i64,
                train.plan_alignment = 64 : i64} {
  %w = train.param "w" {train.offset = array<i64: 0>} : tensor<64xf32>
  // expected-note @+1 {{the other buffer is defined here}}
  %a = train.add %x, %w {train.offset = array<i64: 512>} : tensor<64xf32>
  // expected-error @+1 {{train-verify-plan: 'train.relu@2' (256 bytes, live [2, 3]) at bytes [704, 960) overlaps 'train.add@1' (256 bytes, live [1, 2]) at bytes [512, 768) while both are live}}
  %b = train.relu %a {train.offset = array<i64: 704>} : tensor<64xf32>
  return %b : tensor<64xf32>
}

// -----

// The other way round: %b's tail lies over %a's head (bytes [512, 576)),
// and %b's head over the bytes of %x, which is dead by then.
func.func @head_over_tail(%x: tensor<64xf32> {train.offset = 256 : i64}) -> tensor<64xf32>
    attributes {train.arena_bytes = 1024 : i64, train.persistent_bytes = 256 : i64,
                train.plan_alignment = 64 : i64} {
  %w = train.param "w" {train.offset = array<i64: 0>} : tensor<64xf32>
  // expected-note @+1 {{the other buffer is defined here}}
  %a = train.add %x, %w {train.offset = array<i64: 512>} : tensor<64xf32>
  // expected-error @+1 {{train-verify-plan: 'train.relu@2' (256 bytes, live [2, 3]) at bytes [320, 576) overlaps 'train.add@1' (256 bytes, live [1, 2]) at bytes [512, 768) while both are live}}
  %b = train.relu %a {train.offset = array<i64: 320>} : tensor<64xf32>
  return %b : tensor<64xf32>
}

// -----

// Containment: the 64-byte product lies inside its 256-byte operand.
// expected-note @+1 {{the other buffer is defined here}}
func.func @inside(%x: tensor<4x16xf32> {train.offset = 256 : i64}) -> tensor<4x4xf32>
    attributes {train.arena_bytes = 512 : i64, train.persistent_bytes = 256 : i64,
                train.plan_alignment = 64 : i64} {
  %w = train.param "w" {train.offset = array<i64: 0>} : tensor<16x4xf32>
  // expected-error @+1 {{train-verify-plan: 'train.matmul@1' (64 bytes, live [1, 2]) at bytes [320, 384) overlaps 'arg0' (256 bytes, live [0, 1]) at bytes [256, 512) while both are live}}
  %m = train.matmul %x, %w {train.offset = array<i64: 320>} : tensor<4x16xf32>, tensor<16x4xf32> -> tensor<4x4xf32>
  return %m : tensor<4x4xf32>
}

// -----

// Containment the other way: the 256-byte product covers its live 64-byte
// operand %m (bytes [832, 896) inside [768, 1024)).
func.func @around(%x: tensor<4x16xf32> {train.offset = 512 : i64}) -> tensor<4x16xf32>
    attributes {train.arena_bytes = 1024 : i64, train.persistent_bytes = 512 : i64,
                train.plan_alignment = 64 : i64} {
  %w = train.param "w" {train.offset = array<i64: 0>} : tensor<16x4xf32>
  // expected-note @+1 {{the other buffer is defined here}}
  %m = train.matmul %x, %w {train.offset = array<i64: 832>} : tensor<4x16xf32>, tensor<16x4xf32> -> tensor<4x4xf32>
  %v = train.param "v" {train.offset = array<i64: 256>} : tensor<4x16xf32>
  // expected-error @+1 {{train-verify-plan: 'train.matmul@3' (256 bytes, live [3, 4]) at bytes [768, 1024) overlaps 'train.matmul@1' (64 bytes, live [1, 3]) at bytes [832, 896) while both are live}}
  %y = train.matmul %m, %v {train.offset = array<i64: 768>} : tensor<4x4xf32>, tensor<4x16xf32> -> tensor<4x16xf32>
  return %y : tensor<4x16xf32>
}

// -----

// Plans that must pass.
// Touching but not overlapping: %x [256, 512) and %a [512, 768) at the add,
// %a and %b [768, 1024) at the first relu, %b and %c [1024, 1280) at the
// second.
func.func @touching(%x: tensor<64xf32> {train.offset = 256 : i64}) -> tensor<64xf32>
    attributes {train.arena_bytes = 1280 : i64, train.persistent_bytes = 256 : i64,
                train.plan_alignment = 64 : i64} {
  %w = train.param "w" {train.offset = array<i64: 0>} : tensor<64xf32>
  %a = train.add %x, %w {train.offset = array<i64: 512>} : tensor<64xf32>
  %b = train.relu %a {train.offset = array<i64: 768>} : tensor<64xf32>
  %c = train.relu %b {train.offset = array<i64: 1024>} : tensor<64xf32>
  return %c : tensor<64xf32>
}

// Overlap in space but not in time: %c [512, 768) (live [3, 4]) shares
// [576, 768) with %a [576, 832) (live [1, 2]: dead once %b is computed),
// and %b reuses the bytes of %x (dead after the add) whole.
func.func @reuse_after_last_use(%x: tensor<64xf32> {train.offset = 256 : i64}) -> tensor<64xf32>
    attributes {train.arena_bytes = 832 : i64, train.persistent_bytes = 256 : i64,
                train.plan_alignment = 64 : i64} {
  %w = train.param "w" {train.offset = array<i64: 0>} : tensor<64xf32>
  %a = train.add %x, %w {train.offset = array<i64: 576>} : tensor<64xf32>
  %b = train.relu %a {train.offset = array<i64: 256>} : tensor<64xf32>
  %c = train.relu %b {train.offset = array<i64: 512>} : tensor<64xf32>
  return %c : tensor<64xf32>
}

// -----

// The same bytes as @reuse_after_last_use, but %a is read once more by the
// op that defines %c: now their lifetimes share point 3, and [576, 768) is
// in use twice.
func.func @reuse_one_point_early(%x: tensor<64xf32> {train.offset = 256 : i64}) -> tensor<64xf32>
    attributes {train.arena_bytes = 832 : i64, train.persistent_bytes = 256 : i64,
                train.plan_alignment = 64 : i64} {
  %w = train.param "w" {train.offset = array<i64: 0>} : tensor<64xf32>
  // expected-note @+1 {{the other buffer is defined here}}
  %a = train.add %x, %w {train.offset = array<i64: 576>} : tensor<64xf32>
  %b = train.relu %a {train.offset = array<i64: 256>} : tensor<64xf32>
  // expected-error @+1 {{train-verify-plan: 'train.add@3' (256 bytes, live [3, 4]) at bytes [512, 768) overlaps 'train.add@1' (256 bytes, live [1, 3]) at bytes [576, 832) while both are live}}
  %c = train.add %b, %a {train.offset = array<i64: 512>} : tensor<64xf32>
  return %c : tensor<64xf32>
}
