// RUN: mem-opt %s -split-input-file -verify-diagnostics

// One case per verifier rule of the fp8 ops (train.fp8_scale, train.quantize,
// train.scaled_matmul, train.amax_record), their ODS type constraints, and
// train.matmul's rejection of fp8 operands.

//===----------------------------------------------------------------------===//
// train.fp8_scale
//===----------------------------------------------------------------------===//

// A format that is not fp8.
func.func @fp8_scale_f16_format() -> tensor<f32> {
  %h = train.opt_state "h" : tensor<16xf32>
  // expected-error @+1 {{'train.fp8_scale' op expected format f8E4M3FN or f8E5M2, got 'f16'}}
  %s = train.fp8_scale %h {format = f16} : tensor<16xf32> -> tensor<f32>
  return %s : tensor<f32>
}

// -----

// An fp8 format other than the two supported ones.
func.func @fp8_scale_fnuz_format() -> tensor<f32> {
  %h = train.opt_state "h" : tensor<16xf32>
  // expected-error @+1 {{'train.fp8_scale' op expected format f8E4M3FN or f8E5M2, got 'f8E5M2FNUZ'}}
  %s = train.fp8_scale %h {format = f8E5M2FNUZ} : tensor<16xf32> -> tensor<f32>
  return %s : tensor<f32>
}

// -----

// format is required.
func.func @fp8_scale_no_format() -> tensor<f32> {
  %h = train.opt_state "h" : tensor<16xf32>
  // expected-error @+1 {{'train.fp8_scale' op requires attribute 'format'}}
  %s = train.fp8_scale %h : tensor<16xf32> -> tensor<f32>
  return %s : tensor<f32>
}

// -----

// The margin above the range [0, 64].
func.func @fp8_scale_margin_65() -> tensor<f32> {
  %h = train.opt_state "h" : tensor<16xf32>
  // expected-error @+1 {{'train.fp8_scale' op expected a margin in [0, 64], got 65}}
  %s = train.fp8_scale %h {format = f8E4M3FN, margin = 65} : tensor<16xf32> -> tensor<f32>
  return %s : tensor<f32>
}

// -----

// A negative margin.
func.func @fp8_scale_margin_negative() -> tensor<f32> {
  %h = train.opt_state "h" : tensor<16xf32>
  // expected-error @+1 {{'train.fp8_scale' op expected a margin in [0, 64], got -1}}
  %s = train.fp8_scale %h {format = f8E4M3FN, margin = -1} : tensor<16xf32> -> tensor<f32>
  return %s : tensor<f32>
}

// -----

// The history is a function argument, not a train.opt_state.
func.func @fp8_scale_argument_history(%h: tensor<16xf32>) -> tensor<f32> {
  // expected-error @+1 {{'train.fp8_scale' op expected the amax history to be a train.opt_state (it persists from step to step)}}
  %s = train.fp8_scale %h {format = f8E4M3FN} : tensor<16xf32> -> tensor<f32>
  return %s : tensor<f32>
}

// -----

// A rank-2 history (type constraint).
func.func @fp8_scale_rank2_history() -> tensor<f32> {
  %h = train.opt_state "h" : tensor<2x2xf32>
  // expected-error @+1 {{'train.fp8_scale' op operand #0 must be 1-d f32 tensor of at least one element, but got 'tensor<2x2xf32>'}}
  %s = train.fp8_scale %h {format = f8E4M3FN} : tensor<2x2xf32> -> tensor<f32>
  return %s : tensor<f32>
}

// -----

// A rank-0 history (type constraint).
func.func @fp8_scale_rank0_history() -> tensor<f32> {
  %h = train.opt_state "h" : tensor<f32>
  // expected-error @+1 {{'train.fp8_scale' op operand #0 must be 1-d f32 tensor of at least one element, but got 'tensor<f32>'}}
  %s = train.fp8_scale %h {format = f8E4M3FN} : tensor<f32> -> tensor<f32>
  return %s : tensor<f32>
}

// -----

// The scale is a 0-d f32 tensor (type constraint).
func.func @fp8_scale_bf16_scale() -> tensor<bf16> {
  %h = train.opt_state "h" : tensor<16xf32>
  // expected-error @+1 {{'train.fp8_scale' op result #0 must be 0-d f32 tensor, but got 'tensor<bf16>'}}
  %s = train.fp8_scale %h {format = f8E4M3FN} : tensor<16xf32> -> tensor<bf16>
  return %s : tensor<bf16>
}

// -----

//===----------------------------------------------------------------------===//
// train.quantize
//===----------------------------------------------------------------------===//

// An input that is already fp8.
func.func @quantize_fp8_input(%x: tensor<4x8xf8E5M2>, %s: tensor<f32>) {
  // expected-error @+1 {{'train.quantize' op expected an input of at least 16 bits, got 'f8E5M2'}}
  %q, %a = train.quantize %x, %s : tensor<4x8xf8E5M2>, tensor<f32> -> tensor<4x8xf8E4M3FN>, tensor<f32>
  return
}

// -----

// The result shape differs from the input's.
func.func @quantize_shape_mismatch(%x: tensor<4x8xbf16>, %s: tensor<f32>) {
  // expected-error @+1 {{'train.quantize' op expected result of shape 4x8, got 8x4}}
  %q, %a = train.quantize %x, %s : tensor<4x8xbf16>, tensor<f32> -> tensor<8x4xf8E4M3FN>, tensor<f32>
  return
}

// -----

// A result that is not fp8 (type constraint).
func.func @quantize_bf16_result(%x: tensor<4x8xf32>, %s: tensor<f32>) {
  // expected-error @+1 {{'train.quantize' op result #0 must be statically shaped tensor of f8E4M3FN type or f8E5M2 type values, but got 'tensor<4x8xbf16>'}}
  %q, %a = train.quantize %x, %s : tensor<4x8xf32>, tensor<f32> -> tensor<4x8xbf16>, tensor<f32>
  return
}

// -----

// A scale that is not 0-d (type constraint).
func.func @quantize_rank1_scale(%x: tensor<4x8xf32>, %s: tensor<1xf32>) {
  // expected-error @+1 {{'train.quantize' op operand #1 must be 0-d f32 tensor, but got 'tensor<1xf32>'}}
  %q, %a = train.quantize %x, %s : tensor<4x8xf32>, tensor<1xf32> -> tensor<4x8xf8E4M3FN>, tensor<f32>
  return
}

// -----

//===----------------------------------------------------------------------===//
// train.scaled_matmul
//===----------------------------------------------------------------------===//

// An f16 result (neither bf16 nor f32).
func.func @scaled_matmul_f16_result(%a: tensor<4x8xf8E4M3FN>, %b: tensor<8x6xf8E4M3FN>, %s: tensor<f32>) -> tensor<4x6xf16> {
  // expected-error @+1 {{'train.scaled_matmul' op expected a bf16 or f32 result (the unscaled sum needs an 8-bit exponent), got 'f16'}}
  %y = train.scaled_matmul %a, %b scales(%s, %s : tensor<f32>, tensor<f32>) : tensor<4x8xf8E4M3FN>, tensor<8x6xf8E4M3FN> -> tensor<4x6xf16>
  return %y : tensor<4x6xf16>
}

// -----

// The contraction dimensions differ (8 and 7).
func.func @scaled_matmul_contraction(%a: tensor<4x8xf8E4M3FN>, %b: tensor<7x6xf8E4M3FN>, %s: tensor<f32>) -> tensor<4x6xbf16> {
  // expected-error @+1 {{'train.scaled_matmul' op contraction dimension mismatch: lhs 4x8 contracts 8, rhs 7x6 contracts 7}}
  %y = train.scaled_matmul %a, %b scales(%s, %s : tensor<f32>, tensor<f32>) : tensor<4x8xf8E4M3FN>, tensor<7x6xf8E4M3FN> -> tensor<4x6xbf16>
  return %y : tensor<4x6xbf16>
}

// -----

// The result shape is not M x N.
func.func @scaled_matmul_result_shape(%a: tensor<4x8xf8E4M3FN>, %b: tensor<8x6xf8E4M3FN>, %s: tensor<f32>) -> tensor<4x5xbf16> {
  // expected-error @+1 {{'train.scaled_matmul' op expected result of shape 4x6, got 4x5}}
  %y = train.scaled_matmul %a, %b scales(%s, %s : tensor<f32>, tensor<f32>) : tensor<4x8xf8E4M3FN>, tensor<8x6xf8E4M3FN> -> tensor<4x5xbf16>
  return %y : tensor<4x5xbf16>
}

// -----

// grad_history is a function argument, not a train.opt_state.
func.func @scaled_matmul_argument_history(%a: tensor<4x8xf8E4M3FN>, %b: tensor<8x6xf8E4M3FN>, %s: tensor<f32>, %h: tensor<16xf32>) -> tensor<4x6xbf16> {
  // expected-error @+1 {{'train.scaled_matmul' op expected the amax history to be a train.opt_state (it persists from step to step)}}
  %y = train.scaled_matmul %a, %b scales(%s, %s : tensor<f32>, tensor<f32>) grad_history(%h : tensor<16xf32>) : tensor<4x8xf8E4M3FN>, tensor<8x6xf8E4M3FN> -> tensor<4x6xbf16>
  return %y : tensor<4x6xbf16>
}

// -----

// A bf16 grad_history (type constraint).
func.func @scaled_matmul_bf16_history(%a: tensor<4x8xf8E4M3FN>, %b: tensor<8x6xf8E4M3FN>, %s: tensor<f32>) -> tensor<4x6xbf16> {
  %h = train.opt_state "h" : tensor<16xbf16>
  // expected-error @+1 {{'train.scaled_matmul' op operand #4 must be 1-d f32 tensor of at least one element, but got 'tensor<16xbf16>'}}
  %y = train.scaled_matmul %a, %b scales(%s, %s : tensor<f32>, tensor<f32>) grad_history(%h : tensor<16xbf16>) : tensor<4x8xf8E4M3FN>, tensor<8x6xf8E4M3FN> -> tensor<4x6xbf16>
  return %y : tensor<4x6xbf16>
}

// -----

// An f32 lhs (type constraint: operands are fp8).
func.func @scaled_matmul_f32_lhs(%a: tensor<4x8xf32>, %b: tensor<8x6xf8E4M3FN>, %s: tensor<f32>) -> tensor<4x6xbf16> {
  // expected-error @+1 {{'train.scaled_matmul' op operand #0 must be statically shaped tensor of f8E4M3FN type or f8E5M2 type values, but got 'tensor<4x8xf32>'}}
  %y = train.scaled_matmul %a, %b scales(%s, %s : tensor<f32>, tensor<f32>) : tensor<4x8xf32>, tensor<8x6xf8E4M3FN> -> tensor<4x6xbf16>
  return %y : tensor<4x6xbf16>
}

// -----

// An f32 rhs (type constraint: operands are fp8).
func.func @scaled_matmul_f32_rhs(%a: tensor<4x8xf8E4M3FN>, %b: tensor<8x6xf32>, %s: tensor<f32>) -> tensor<4x6xbf16> {
  // expected-error @+1 {{'train.scaled_matmul' op operand #1 must be statically shaped tensor of f8E4M3FN type or f8E5M2 type values, but got 'tensor<8x6xf32>'}}
  %y = train.scaled_matmul %a, %b scales(%s, %s : tensor<f32>, tensor<f32>) : tensor<4x8xf8E4M3FN>, tensor<8x6xf32> -> tensor<4x6xbf16>
  return %y : tensor<4x6xbf16>
}

// -----

//===----------------------------------------------------------------------===//
// train.amax_record
//===----------------------------------------------------------------------===//

// The history is a function argument, not a train.opt_state.
func.func @amax_record_argument_history(%a: tensor<f32>, %h: tensor<16xf32>) {
  // expected-error @+1 {{'train.amax_record' op expected the amax history to be a train.opt_state (it persists from step to step)}}
  train.amax_record %a, %h : tensor<f32>, tensor<16xf32>
  return
}

// -----

// An empty history (type constraint: at least one element).
func.func @amax_record_empty_history(%a: tensor<f32>) {
  %h = train.opt_state "h" : tensor<0xf32>
  // expected-error @+1 {{'train.amax_record' op operand #1 must be 1-d f32 tensor of at least one element, but got 'tensor<0xf32>'}}
  train.amax_record %a, %h : tensor<f32>, tensor<0xf32>
  return
}

// -----

//===----------------------------------------------------------------------===//
// train.matmul on fp8
//===----------------------------------------------------------------------===//

// f8E4M3FN operands: fp8 values need their scales (train.scaled_matmul).
func.func @matmul_f8E4M3FN(%a: tensor<4x8xf8E4M3FN>, %b: tensor<8x6xf8E4M3FN>) -> tensor<4x6xf32> {
  // expected-error @+1 {{'train.matmul' op cannot read 'f8E4M3FN' operands: fp8 values are scaled, so multiply them with train.scaled_matmul and their scales (or widen them with train.cast first)}}
  %y = train.matmul %a, %b : tensor<4x8xf8E4M3FN>, tensor<8x6xf8E4M3FN> -> tensor<4x6xf32>
  return %y : tensor<4x6xf32>
}

// -----

// f8E5M2 operands.
func.func @matmul_f8E5M2(%a: tensor<4x8xf8E5M2>, %b: tensor<8x6xf8E5M2>) -> tensor<4x6xbf16> {
  // expected-error @+1 {{'train.matmul' op cannot read 'f8E5M2' operands}}
  %y = train.matmul %a, %b : tensor<4x8xf8E5M2>, tensor<8x6xf8E5M2> -> tensor<4x6xbf16>
  return %y : tensor<4x6xbf16>
}
