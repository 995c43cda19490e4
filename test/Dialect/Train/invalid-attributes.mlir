// The train dialect verifies the attributes passes write (train-plan-memory's
// plan, the step-counter marker).
// RUN: mem-opt %s -split-input-file -verify-diagnostics

func.func @offset_not_array(%x: tensor<4xf32>) {
  // expected-error @+1 {{'train.offset' must be an array<i64> of one offset per result}}
  %a = train.relu %x {train.offset = 0 : i64} : tensor<4xf32>
  return
}

// -----

func.func @offset_count(%x: tensor<4xf32>) {
  // expected-error @+1 {{'train.offset' has 2 offsets for 1 results}}
  %a = train.relu %x {train.offset = array<i64: 0, 256>} : tensor<4xf32>
  return
}

// -----

func.func @offset_negative(%x: tensor<4xf32>) {
  // expected-error @+1 {{'train.offset' offsets must be >= 0 (or -1 for a result without storage), got -2}}
  %a = train.relu %x {train.offset = array<i64: -2>} : tensor<4xf32>
  return
}

// -----

func.func @workspace_type(%x: tensor<4xf32>) {
  // expected-error @+1 {{'train.workspace_offset' must be an i64 integer}}
  %a = train.relu %x {train.workspace_offset = 1.0 : f32} : tensor<4xf32>
  return
}

// -----

// expected-error @+1 {{'train.arena_bytes' must not be negative, got -5}}
func.func @arena_negative() attributes {train.arena_bytes = -5 : i64} {
  return
}

// -----

// expected-error @+1 {{'train.plan_alignment' must be a power of two of at most 2097152 (2 MiB), got 96}}
func.func @alignment() attributes {train.plan_alignment = 96 : i64} {
  return
}

// -----

// A huge alignment would pad every buffer to terabytes.
// expected-error @+1 {{'train.plan_alignment' must be a power of two of at most 2097152 (2 MiB), got 1099511627776}}
func.func @alignment_huge() attributes {train.plan_alignment = 1099511627776 : i64} {
  return
}

// -----

// expected-error @+1 {{unknown train attribute 'train.arena'}}
func.func @unknown() attributes {train.arena = 5 : i64} {
  return
}

// -----

// expected-error @+1 {{'train.offset' must be an i64 integer}}
func.func @arg_offset(%x: tensor<4xf32> {train.offset = "zero"}) {
  return
}

// -----

// expected-error @+1 {{'train.step' on argument 0 must be a unit attribute}}
func.func @step(%t: tensor<i64> {train.step = 1 : i64}) {
  return
}

// -----

// expected-error @+1 {{unknown train attribute 'train.foo' on argument 0}}
func.func @arg_unknown(%x: tensor<4xf32> {train.foo}) {
  return
}

// -----

func.func @recomputed(%x: tensor<4xf32>) -> tensor<4xf32> {
  // expected-error @+1 {{'train.recomputed' must be a unit attribute}}
  %y = train.relu %x {train.recomputed = 1 : i64} : tensor<4xf32>
  return %y : tensor<4xf32>
}
