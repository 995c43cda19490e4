// RUN: mem-opt %s --split-input-file --verify-diagnostics

// The verifiers of train.dequantize_nf4 and train.dequantize_int8: every
// rule, one function each. Shapes follow Quantization.h: a weight of n
// elements has ceil(n/2) code bytes and ceil(n/block) absmaxes, and with
// double quantization ceil(blocks/256) scales and a 0-d offset.

func.func @weight_name() -> tensor<4x8xf32> {
  %c = train.param "w.nf4.codes" {trainable = false} : tensor<16xi8>
  %a = train.param "w.nf4.absmax" {trainable = false} : tensor<1xf32>
  // expected-error @+1 {{'train.dequantize_nf4' op expected a non-empty weight name}}
  %w = train.dequantize_nf4 %c, %a {weight = ""} : tensor<16xi8>, tensor<1xf32> -> tensor<4x8xf32>
  return %w : tensor<4x8xf32>
}

// -----

func.func @narrow_result() -> tensor<4x8xf8E4M3FN> {
  %c = train.param "w.nf4.codes" {trainable = false} : tensor<16xi8>
  %a = train.param "w.nf4.absmax" {trainable = false} : tensor<1xf32>
  // expected-error @+1 {{expected a result of at least 16 bits (f32, bf16 or f16), got 'f8E4M3FN'}}
  %w = train.dequantize_nf4 %c, %a {weight = "w"} : tensor<16xi8>, tensor<1xf32> -> tensor<4x8xf8E4M3FN>
  return %w : tensor<4x8xf8E4M3FN>
}

// -----

func.func @block_not_power_of_two() -> tensor<4x8xf32> {
  %c = train.param "w.nf4.codes" {trainable = false} : tensor<16xi8>
  %a = train.param "w.nf4.absmax" {trainable = false} : tensor<1xf32>
  // expected-error @+1 {{expected a block of a power of two from 2 to 65536, got 48}}
  %w = train.dequantize_nf4 %c, %a {block = 48 : i64, weight = "w"} : tensor<16xi8>, tensor<1xf32> -> tensor<4x8xf32>
  return %w : tensor<4x8xf32>
}

// -----

func.func @block_of_one() -> tensor<4x8xf32> {
  %c = train.param "w.nf4.codes" {trainable = false} : tensor<16xi8>
  %a = train.param "w.nf4.absmax" {trainable = false} : tensor<32xf32>
  // expected-error @+1 {{expected a block of a power of two from 2 to 65536, got 1}}
  %w = train.dequantize_nf4 %c, %a {block = 1 : i64, weight = "w"} : tensor<16xi8>, tensor<32xf32> -> tensor<4x8xf32>
  return %w : tensor<4x8xf32>
}

// -----

func.func @scale_without_offset() -> tensor<4x8xf32> {
  %c = train.param "w.nf4.codes" {trainable = false} : tensor<16xi8>
  %a = train.param "w.nf4.absmax" {trainable = false} : tensor<1xi8>
  %s = train.param "w.nf4.absmax.scale" {trainable = false} : tensor<1xf32>
  // expected-error @+1 {{expected both an absmax scale and an absmax offset (double quantization), or neither}}
  %w = "train.dequantize_nf4"(%c, %a, %s) <{operandSegmentSizes = array<i32: 1, 1, 1, 0>, block = 64 : i64, weight = "w"}> : (tensor<16xi8>, tensor<1xi8>, tensor<1xf32>) -> tensor<4x8xf32>
  return %w : tensor<4x8xf32>
}

// -----

// 33 elements need 17 bytes (the last low nibble is padding).
func.func @codes_shape() -> tensor<3x11xf32> {
  %c = train.param "w.nf4.codes" {trainable = false} : tensor<16xi8>
  %a = train.param "w.nf4.absmax" {trainable = false} : tensor<1xf32>
  // expected-error @+1 {{expected codes (two per byte) of shape 17, got 16}}
  %w = train.dequantize_nf4 %c, %a {weight = "w"} : tensor<16xi8>, tensor<1xf32> -> tensor<3x11xf32>
  return %w : tensor<3x11xf32>
}

// -----

// 100 elements in blocks of 64: two blocks, the second partial.
func.func @absmax_shape() -> tensor<10x10xf32> {
  %c = train.param "w.nf4.codes" {trainable = false} : tensor<50xi8>
  %a = train.param "w.nf4.absmax" {trainable = false} : tensor<1xf32>
  // expected-error @+1 {{expected absmax (one per block) of shape 2, got 1}}
  %w = train.dequantize_nf4 %c, %a {weight = "w"} : tensor<50xi8>, tensor<1xf32> -> tensor<10x10xf32>
  return %w : tensor<10x10xf32>
}

// -----

// Double quantization stores the absmaxes as 8-bit codes.
func.func @absmax_type() -> tensor<4x8xf32> {
  %c = train.param "w.nf4.codes" {trainable = false} : tensor<16xi8>
  %a = train.param "w.nf4.absmax" {trainable = false} : tensor<1xf32>
  %s = train.param "w.nf4.absmax.scale" {trainable = false} : tensor<1xf32>
  %o = train.param "w.nf4.absmax.offset" {trainable = false} : tensor<f32>
  // expected-error @+1 {{expected absmax (one per block) element type 'i8', got 'f32'}}
  %w = train.dequantize_nf4 %c, %a double_quant(%s, %o : tensor<1xf32>, tensor<f32>) {weight = "w"} : tensor<16xi8>, tensor<1xf32> -> tensor<4x8xf32>
  return %w : tensor<4x8xf32>
}

// -----

// Without it they are f32.
func.func @absmax_codes_alone() -> tensor<4x8xf32> {
  %c = train.param "w.nf4.codes" {trainable = false} : tensor<16xi8>
  %a = train.param "w.nf4.absmax" {trainable = false} : tensor<1xi8>
  // expected-error @+1 {{expected absmax (one per block) element type 'f32', got 'i8'}}
  %w = train.dequantize_nf4 %c, %a {weight = "w"} : tensor<16xi8>, tensor<1xi8> -> tensor<4x8xf32>
  return %w : tensor<4x8xf32>
}

// -----

// 257 blocks of 2 need two second-level scales.
func.func @absmax_scale_shape() -> tensor<2x257xf32> {
  %c = train.param "w.nf4.codes" {trainable = false} : tensor<257xi8>
  %a = train.param "w.nf4.absmax" {trainable = false} : tensor<257xi8>
  %s = train.param "w.nf4.absmax.scale" {trainable = false} : tensor<1xf32>
  %o = train.param "w.nf4.absmax.offset" {trainable = false} : tensor<f32>
  // expected-error @+1 {{expected absmax scale (one per 256 absmaxes) of shape 2, got 1}}
  %w = train.dequantize_nf4 %c, %a double_quant(%s, %o : tensor<1xf32>, tensor<f32>) {block = 2 : i64, weight = "w"} : tensor<257xi8>, tensor<257xi8> -> tensor<2x257xf32>
  return %w : tensor<2x257xf32>
}

// -----

func.func @codes_not_a_param(%c: tensor<16xi8>) -> tensor<4x8xf32> {
  %a = train.param "w.nf4.absmax" {trainable = false} : tensor<1xf32>
  // expected-error @+1 {{expected the codes to be a train.param (the weight's persistent storage)}}
  %w = train.dequantize_nf4 %c, %a {weight = "w"} : tensor<16xi8>, tensor<1xf32> -> tensor<4x8xf32>
  return %w : tensor<4x8xf32>
}

// -----

func.func @trainable_absmax() -> tensor<4x8xf32> {
  %c = train.param "w.nf4.codes" {trainable = false} : tensor<16xi8>
  %a = train.param "w.nf4.absmax" : tensor<1xf32>
  // expected-error @+1 {{expected the absmax 'w.nf4.absmax' to be frozen (trainable = false): quantized storage gets no gradient and no update}}
  %w = train.dequantize_nf4 %c, %a {weight = "w"} : tensor<16xi8>, tensor<1xf32> -> tensor<4x8xf32>
  return %w : tensor<4x8xf32>
}

// -----

func.func @trainable_offset() -> tensor<4x8xf32> {
  %c = train.param "w.nf4.codes" {trainable = false} : tensor<16xi8>
  %a = train.param "w.nf4.absmax" {trainable = false} : tensor<1xi8>
  %s = train.param "w.nf4.absmax.scale" {trainable = false} : tensor<1xf32>
  %o = train.param "w.nf4.absmax.offset" : tensor<f32>
  // expected-error @+1 {{expected the absmax offset 'w.nf4.absmax.offset' to be frozen}}
  %w = train.dequantize_nf4 %c, %a double_quant(%s, %o : tensor<1xf32>, tensor<f32>) {weight = "w"} : tensor<16xi8>, tensor<1xi8> -> tensor<4x8xf32>
  return %w : tensor<4x8xf32>
}

// -----

func.func @int8_weight_name() -> tensor<4x8xbf16> {
  %c = train.param "w.int8.codes" {trainable = false} : tensor<4x8xi8>
  %s = train.param "w.int8.scale" {trainable = false} : tensor<8xf32>
  // expected-error @+1 {{'train.dequantize_int8' op expected a non-empty weight name}}
  %w = train.dequantize_int8 %c, %s {axis = 1 : i64, weight = ""} : tensor<4x8xi8>, tensor<8xf32> -> tensor<4x8xbf16>
  return %w : tensor<4x8xbf16>
}

// -----

func.func @int8_axis() -> tensor<4x8xf32> {
  %c = train.param "w.int8.codes" {trainable = false} : tensor<4x8xi8>
  %s = train.param "w.int8.scale" {trainable = false} : tensor<8xf32>
  // expected-error @+1 {{expected an axis in [0, 2) (a dimension of the result), got 2}}
  %w = train.dequantize_int8 %c, %s {axis = 2 : i64, weight = "w"} : tensor<4x8xi8>, tensor<8xf32> -> tensor<4x8xf32>
  return %w : tensor<4x8xf32>
}

// -----

func.func @int8_codes_shape() -> tensor<4x8xf32> {
  %c = train.param "w.int8.codes" {trainable = false} : tensor<8x4xi8>
  %s = train.param "w.int8.scale" {trainable = false} : tensor<8xf32>
  // expected-error @+1 {{expected codes of shape 4x8, got 8x4}}
  %w = train.dequantize_int8 %c, %s {axis = 1 : i64, weight = "w"} : tensor<8x4xi8>, tensor<8xf32> -> tensor<4x8xf32>
  return %w : tensor<4x8xf32>
}

// -----

// One scale per output feature: dimension 0 has 4.
func.func @int8_scale_shape() -> tensor<4x8xf32> {
  %c = train.param "w.int8.codes" {trainable = false} : tensor<4x8xi8>
  %s = train.param "w.int8.scale" {trainable = false} : tensor<8xf32>
  // expected-error @+1 {{expected scale (one per index of the axis) of shape 4, got 8}}
  %w = train.dequantize_int8 %c, %s {axis = 0 : i64, weight = "w"} : tensor<4x8xi8>, tensor<8xf32> -> tensor<4x8xf32>
  return %w : tensor<4x8xf32>
}

// -----

func.func @int8_scale_not_a_param(%s: tensor<8xf32>) -> tensor<4x8xf32> {
  %c = train.param "w.int8.codes" {trainable = false} : tensor<4x8xi8>
  // expected-error @+1 {{expected the scale to be a train.param (the weight's persistent storage)}}
  %w = train.dequantize_int8 %c, %s {axis = 1 : i64, weight = "w"} : tensor<4x8xi8>, tensor<8xf32> -> tensor<4x8xf32>
  return %w : tensor<4x8xf32>
}

// -----

func.func @int8_trainable_codes() -> tensor<4x8xf32> {
  %c = train.param "w.int8.codes" : tensor<4x8xi8>
  %s = train.param "w.int8.scale" {trainable = false} : tensor<8xf32>
  // expected-error @+1 {{expected the codes 'w.int8.codes' to be frozen}}
  %w = train.dequantize_int8 %c, %s {axis = 1 : i64, weight = "w"} : tensor<4x8xi8>, tensor<8xf32> -> tensor<4x8xf32>
  return %w : tensor<4x8xf32>
}
