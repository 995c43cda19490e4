// RUN: mem-opt %s -split-input-file -verify-diagnostics

// One case per verifier rule of every train op, plus a few ODS constraint and
// custom-syntax parse errors. Each message names what was expected and what
// was found. The generic op form is used where the custom syntax cannot
// express the invalid IR (e.g. a result type that the short form implies).

//===----------------------------------------------------------------------===//
// ODS constraints and parse errors
//===----------------------------------------------------------------------===//

func.func @dynamic_shape(%x: tensor<?x4xf32>) -> tensor<?x4xf32> {
  // expected-error @+1 {{operand #0 must be statically shaped tensor of floating-point values, but got 'tensor<?x4xf32>'}}
  %0 = train.relu %x : tensor<?x4xf32>
  return %0 : tensor<?x4xf32>
}

// -----

func.func @integer_float_operand(%x: tensor<4xi32>) -> tensor<4xi32> {
  // expected-error @+1 {{operand #0 must be statically shaped tensor of floating-point values, but got 'tensor<4xi32>'}}
  %0 = train.relu %x : tensor<4xi32>
  return %0 : tensor<4xi32>
}

// -----

func.func @float_ids(%t: tensor<16x8xf32>, %ids: tensor<4xf32>) -> tensor<4x8xf32> {
  // expected-error @+1 {{operand #1 must be statically shaped tensor of signless integer values, but got 'tensor<4xf32>'}}
  %0 = train.embedding %t, %ids : tensor<16x8xf32>, tensor<4xf32> -> tensor<4x8xf32>
  return %0 : tensor<4x8xf32>
}

// -----

func.func @loss_not_0d(%x: tensor<4x8xf32>, %y: tensor<4x8xf32>) -> tensor<1xf32> {
  // expected-error @+1 {{result #0 must be 0-d float tensor, but got 'tensor<1xf32>'}}
  %0 = train.mse_loss %x, %y : tensor<4x8xf32>, tensor<4x8xf32> -> tensor<1xf32>
  return %0 : tensor<1xf32>
}

// -----

func.func @cross_entropy_integer_loss(%l: tensor<4x10xf32>, %y: tensor<4xi64>) -> tensor<i64> {
  // expected-error @+1 {{result #0 must be 0-d float tensor, but got 'tensor<i64>'}}
  %0 = train.cross_entropy %l, %y : tensor<4x10xf32>, tensor<4xi64> -> tensor<i64>
  return %0 : tensor<i64>
}

// -----

func.func @mask_of_f32(%x: tensor<4x8xf32>) -> tensor<4x8xf32> {
  // expected-error @+1 {{result #1 must be statically shaped tensor of 1-bit signless integer or 8-bit signless integer values, but got 'tensor<4x8xf32>'}}
  %0, %m = train.dropout %x {id = 0 : i64, rate = 0.1 : f64} : tensor<4x8xf32> -> tensor<4x8xf32>, tensor<4x8xf32>
  return %0 : tensor<4x8xf32>
}

// -----

func.func @step_not_0d(%t: tensor<1xi64>) {
  %w = train.param "w" : tensor<4xf32>
  %g = train.param "g" : tensor<4xf32>
  %m = train.opt_state "m" : tensor<4xf32>
  %v = train.opt_state "v" : tensor<4xf32>
  // expected-error @+1 {{operand #4 must be 0-d integer or float tensor, but got 'tensor<1xi64>'}}
  train.adam %w, %g, %m, %v step(%t : tensor<1xi64>) {lr = 1.0e-3 : f64} : tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>
  return
}

// -----

func.func @missing_required_attr(%x: tensor<4x8xf32>) -> tensor<4x8xf32> {
  // expected-error @+1 {{requires attribute 'factor'}}
  %0 = train.scale %x : tensor<4x8xf32>
  return %0 : tensor<4x8xf32>
}

// -----

func.func @parse_binary_types_missing_arrow(%a: tensor<4xf32>, %b: tensor<4xbf16>) -> tensor<4xf32> {
  // expected-error @+1 {{expected '->'}}
  %0 = train.add %a, %b : tensor<4xf32>, tensor<4xbf16>
  return %0 : tensor<4xf32>
}

// -----

func.func @parse_unary_types_missing_result(%x: tensor<4xf32>) -> tensor<4xf32> {
  // expected-error @+1 {{expected non-function type}}
  %0 = train.relu %x : tensor<4xf32> ->
  return %0 : tensor<4xf32>
}

// -----

func.func @parse_param_missing_name() -> tensor<4xf32> {
  // expected-error @+1 {{expected attribute value}}
  %0 = train.param : tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

func.func @parse_sgd_momentum_missing_type(%g: tensor<4xf32>) {
  %w = train.param "w" : tensor<4xf32>
  %b = train.opt_state "b" : tensor<4xf32>
  // expected-error @+1 {{expected ':'}}
  train.sgd %w, %g momentum(%b) {lr = 0.1 : f64, momentum = 0.9 : f64} : tensor<4xf32>, tensor<4xf32>
  return
}

// -----

//===----------------------------------------------------------------------===//
// State
//===----------------------------------------------------------------------===//

func.func @param_empty_name() -> tensor<4xf32> {
  // expected-error @+1 {{'train.param' op expected a non-empty parameter name}}
  %0 = train.param "" : tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

func.func @opt_state_empty_name() -> tensor<4xf32> {
  // expected-error @+1 {{'train.opt_state' op expected a non-empty optimizer state name}}
  %0 = train.opt_state "" : tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

func.func @free_param() {
  %w = train.param "w" : tensor<4xf32>
  // expected-error @+1 {{'train.free' op cannot free persistent state defined by 'train.param'}}
  train.free %w : tensor<4xf32>
  return
}

// -----

func.func @free_opt_state() {
  %m = train.opt_state "m" : tensor<4xf32>
  // expected-error @+1 {{'train.free' op cannot free persistent state defined by 'train.opt_state'}}
  train.free %m : tensor<4xf32>
  return
}

// -----

func.func @use_after_free(%x: tensor<4xf32>) -> tensor<4xf32> {
  // expected-error @+1 {{'train.free' op value is used after it is freed}}
  train.free %x : tensor<4xf32>
  // expected-note @+1 {{used here}}
  %0 = train.relu %x : tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

// A view's uses are uses of the buffer it views, however many views deep.
func.func @use_after_free_through_view(%x: tensor<4x8xf32>) -> tensor<8x2xf32> {
  %t = train.transpose %x {permutation = array<i64: 1, 0>} : tensor<4x8xf32> -> tensor<8x4xf32>
  %s = train.slice %t {offsets = array<i64: 0, 2>} : tensor<8x4xf32> -> tensor<8x2xf32>
  // expected-error @+1 {{'train.free' op value is used after it is freed}}
  train.free %x : tensor<4x8xf32>
  // expected-note @+1 {{used here through a view}}
  %0 = train.relu %s : tensor<8x2xf32>
  return %0 : tensor<8x2xf32>
}

// -----

func.func @return_view_after_free(%x: tensor<4x8xf32>) -> tensor<32xf32> {
  %r = train.reshape %x : tensor<4x8xf32> -> tensor<32xf32>
  // expected-error @+1 {{'train.free' op value is used after it is freed}}
  train.free %x : tensor<4x8xf32>
  // expected-note @+1 {{used here through a view}}
  return %r : tensor<32xf32>
}

// -----

func.func @free_reshape_view(%x: tensor<4x8xf32>) {
  %r = train.reshape %x : tensor<4x8xf32> -> tensor<32xf32>
  // expected-error @+1 {{'train.free' op cannot free a view defined by 'train.reshape'; free the buffer it views}}
  train.free %r : tensor<32xf32>
  return
}

// -----

func.func @free_transpose_view(%x: tensor<4x8xf32>) {
  %t = train.transpose %x {permutation = array<i64: 1, 0>} : tensor<4x8xf32> -> tensor<8x4xf32>
  // expected-error @+1 {{'train.free' op cannot free a view defined by 'train.transpose'; free the buffer it views}}
  train.free %t : tensor<8x4xf32>
  return
}

// -----

// A view of persistent state cannot be freed either.
func.func @free_slice_of_param() {
  %w = train.param "w" : tensor<4x8xf32>
  %s = train.slice %w {offsets = array<i64: 0, 0>, strides = array<i64: 2, 1>} : tensor<4x8xf32> -> tensor<2x8xf32>
  // expected-error @+1 {{'train.free' op cannot free a view defined by 'train.slice'; free the buffer it views}}
  train.free %s : tensor<2x8xf32>
  return
}

// -----

// A double free: the first free reports it and points at the second.
func.func @double_free(%x: tensor<4xf32>) {
  // expected-error @+1 {{'train.free' op value is freed more than once}}
  train.free %x : tensor<4xf32>
  // expected-note @+1 {{also freed here}}
  train.free %x : tensor<4xf32>
  return
}

// -----

func.func @cast_shape(%x: tensor<4x8xf32>) -> tensor<4x4xbf16> {
  // expected-error @+1 {{'train.cast' op expected result of shape 4x8, got 4x4}}
  %0 = train.cast %x : tensor<4x8xf32> -> tensor<4x4xbf16>
  return %0 : tensor<4x4xbf16>
}

// -----

func.func @cast_integer_result(%x: tensor<4x8xf32>) -> tensor<4x8xi8> {
  // expected-error @+1 {{result #0 must be statically shaped tensor of floating-point values, but got 'tensor<4x8xi8>'}}
  %0 = train.cast %x : tensor<4x8xf32> -> tensor<4x8xi8>
  return %0 : tensor<4x8xi8>
}

// -----

//===----------------------------------------------------------------------===//
// Elementwise forward ops
//===----------------------------------------------------------------------===//

func.func @add_rhs_shape(%a: tensor<4x8xf32>, %b: tensor<4x16xf32>) -> tensor<4x8xf32> {
  // expected-error @+1 {{'train.add' op expected rhs of shape 4x8, got 4x16}}
  %0 = train.add %a, %b : tensor<4x8xf32>, tensor<4x16xf32> -> tensor<4x8xf32>
  return %0 : tensor<4x8xf32>
}

// -----

func.func @add_result_shape(%a: tensor<4x8xf32>, %b: tensor<4x8xf32>) -> tensor<8x4xf32> {
  // expected-error @+1 {{'train.add' op expected result of shape 4x8, got 8x4}}
  %0 = train.add %a, %b : tensor<4x8xf32>, tensor<4x8xf32> -> tensor<8x4xf32>
  return %0 : tensor<8x4xf32>
}

// -----

func.func @add_result_not_widest(%a: tensor<4x8xbf16>, %b: tensor<4x8xf32>) -> tensor<4x8xbf16> {
  // expected-error @+1 {{'train.add' op expected result element type 'f32', got 'bf16'}}
  %0 = train.add %a, %b : tensor<4x8xbf16>, tensor<4x8xf32> -> tensor<4x8xbf16>
  return %0 : tensor<4x8xbf16>
}

// -----

// Two different 16-bit types promote to f32.
func.func @sub_bf16_f16_promotes_to_f32(%a: tensor<4xbf16>, %b: tensor<4xf16>) -> tensor<4xf16> {
  // expected-error @+1 {{'train.sub' op expected result element type 'f32', got 'f16'}}
  %0 = train.sub %a, %b : tensor<4xbf16>, tensor<4xf16> -> tensor<4xf16>
  return %0 : tensor<4xf16>
}

// -----

func.func @sub_rhs_shape(%a: tensor<4xf32>, %b: tensor<5xf32>) -> tensor<4xf32> {
  // expected-error @+1 {{'train.sub' op expected rhs of shape 4, got 5}}
  %0 = train.sub %a, %b : tensor<4xf32>, tensor<5xf32> -> tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

func.func @sub_result_shape(%a: tensor<4xf32>, %b: tensor<4xf32>) -> tensor<2x2xf32> {
  // expected-error @+1 {{'train.sub' op expected result of shape 4, got 2x2}}
  %0 = train.sub %a, %b : tensor<4xf32>, tensor<4xf32> -> tensor<2x2xf32>
  return %0 : tensor<2x2xf32>
}

// -----

// The short type form gives the result the lhs type; the generic form can
// give it another.
func.func @mul_result_shape(%a: tensor<4x8xf32>) -> tensor<32xf32> {
  // expected-error @+1 {{'train.mul' op expected result of shape 4x8, got 32}}
  %0 = "train.mul"(%a, %a) : (tensor<4x8xf32>, tensor<4x8xf32>) -> tensor<32xf32>
  return %0 : tensor<32xf32>
}

// -----

func.func @mul_rhs_shape(%a: tensor<4x8xf32>, %b: tensor<8xf32>) -> tensor<4x8xf32> {
  // expected-error @+1 {{'train.mul' op expected rhs of shape 4x8, got 8}}
  %0 = train.mul %a, %b : tensor<4x8xf32>, tensor<8xf32> -> tensor<4x8xf32>
  return %0 : tensor<4x8xf32>
}

// -----

// Two different 8-bit types promote to f32.
func.func @mul_fp8_promotes_to_f32(%a: tensor<4xf8E4M3FN>, %b: tensor<4xf8E5M2>) -> tensor<4xf16> {
  // expected-error @+1 {{'train.mul' op expected result element type 'f32', got 'f16'}}
  %0 = train.mul %a, %b : tensor<4xf8E4M3FN>, tensor<4xf8E5M2> -> tensor<4xf16>
  return %0 : tensor<4xf16>
}

// -----

func.func @scale_result_shape(%x: tensor<4x8xf32>) -> tensor<4x16xf32> {
  // expected-error @+1 {{'train.scale' op expected result of shape 4x8, got 4x16}}
  %0 = train.scale %x {factor = 2.0 : f64} : tensor<4x8xf32> -> tensor<4x16xf32>
  return %0 : tensor<4x16xf32>
}

// -----

func.func @scale_result_type(%x: tensor<4x8xf32>) -> tensor<4x8xbf16> {
  // expected-error @+1 {{'train.scale' op expected result element type 'f32', got 'bf16'}}
  %0 = train.scale %x {factor = 2.0 : f64} : tensor<4x8xf32> -> tensor<4x8xbf16>
  return %0 : tensor<4x8xbf16>
}

// -----

func.func @bias_add_scalar_input(%x: tensor<f32>, %b: tensor<1xf32>) -> tensor<f32> {
  // expected-error @+1 {{'train.bias_add' op expected input of rank >= 1, got rank 0 (scalar)}}
  %0 = train.bias_add %x, %b : tensor<f32>, tensor<1xf32> -> tensor<f32>
  return %0 : tensor<f32>
}

// -----

func.func @bias_add_bias_rank(%x: tensor<4x8xf32>, %b: tensor<1x8xf32>) -> tensor<4x8xf32> {
  // expected-error @+1 {{'train.bias_add' op expected bias of rank 1, got rank 2 (1x8)}}
  %0 = train.bias_add %x, %b : tensor<4x8xf32>, tensor<1x8xf32> -> tensor<4x8xf32>
  return %0 : tensor<4x8xf32>
}

// -----

func.func @bias_add_dim_out_of_range(%x: tensor<4x8xf32>, %b: tensor<8xf32>) -> tensor<4x8xf32> {
  // expected-error @+1 {{'train.bias_add' op dim 2 is out of range for rank 2}}
  %0 = train.bias_add %x, %b {dim = 2 : i64} : tensor<4x8xf32>, tensor<8xf32> -> tensor<4x8xf32>
  return %0 : tensor<4x8xf32>
}

// -----

func.func @bias_add_negative_dim_out_of_range(%x: tensor<4x8xf32>, %b: tensor<8xf32>) -> tensor<4x8xf32> {
  // expected-error @+1 {{'train.bias_add' op dim -3 is out of range for rank 2}}
  %0 = train.bias_add %x, %b {dim = -3 : i64} : tensor<4x8xf32>, tensor<8xf32> -> tensor<4x8xf32>
  return %0 : tensor<4x8xf32>
}

// -----

func.func @bias_add_bias_shape(%x: tensor<2x4x8x8xf32>, %b: tensor<8xf32>) -> tensor<2x4x8x8xf32> {
  // expected-error @+1 {{'train.bias_add' op expected bias of shape 4, got 8}}
  %0 = train.bias_add %x, %b {dim = 1 : i64} : tensor<2x4x8x8xf32>, tensor<8xf32> -> tensor<2x4x8x8xf32>
  return %0 : tensor<2x4x8x8xf32>
}

// -----

func.func @bias_add_result_shape(%x: tensor<4x8xf32>, %b: tensor<8xf32>) -> tensor<8x8xf32> {
  // expected-error @+1 {{'train.bias_add' op expected result of shape 4x8, got 8x8}}
  %0 = train.bias_add %x, %b : tensor<4x8xf32>, tensor<8xf32> -> tensor<8x8xf32>
  return %0 : tensor<8x8xf32>
}

// -----

func.func @bias_add_result_type(%x: tensor<4x8xbf16>, %b: tensor<8xf32>) -> tensor<4x8xbf16> {
  // expected-error @+1 {{'train.bias_add' op expected result element type 'f32', got 'bf16'}}
  %0 = train.bias_add %x, %b : tensor<4x8xbf16>, tensor<8xf32> -> tensor<4x8xbf16>
  return %0 : tensor<4x8xbf16>
}

// -----

func.func @relu_result_shape(%x: tensor<4xf32>) -> tensor<8xf32> {
  // expected-error @+1 {{'train.relu' op expected result of shape 4, got 8}}
  %0 = "train.relu"(%x) : (tensor<4xf32>) -> tensor<8xf32>
  return %0 : tensor<8xf32>
}

// -----

func.func @relu_result_type(%x: tensor<4xf32>) -> tensor<4xf16> {
  // expected-error @+1 {{'train.relu' op expected result element type 'f32', got 'f16'}}
  %0 = train.relu %x : tensor<4xf32> -> tensor<4xf16>
  return %0 : tensor<4xf16>
}

// -----

func.func @gelu_result_shape(%x: tensor<4x8xbf16>) -> tensor<8x4xbf16> {
  // expected-error @+1 {{'train.gelu' op expected result of shape 4x8, got 8x4}}
  %0 = train.gelu %x {approximate} : tensor<4x8xbf16> -> tensor<8x4xbf16>
  return %0 : tensor<8x4xbf16>
}

// -----

func.func @gelu_result_type(%x: tensor<4x8xbf16>) -> tensor<4x8xf32> {
  // expected-error @+1 {{'train.gelu' op expected result element type 'bf16', got 'f32'}}
  %0 = train.gelu %x : tensor<4x8xbf16> -> tensor<4x8xf32>
  return %0 : tensor<4x8xf32>
}

// -----

func.func @silu_result_shape(%x: tensor<4x8xf32>) -> tensor<4xf32> {
  // expected-error @+1 {{'train.silu' op expected result of shape 4x8, got 4}}
  %0 = train.silu %x : tensor<4x8xf32> -> tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

func.func @silu_result_type(%x: tensor<4x8xf32>) -> tensor<4x8xf64> {
  // expected-error @+1 {{'train.silu' op expected result element type 'f32', got 'f64'}}
  %0 = train.silu %x : tensor<4x8xf32> -> tensor<4x8xf64>
  return %0 : tensor<4x8xf64>
}

// -----

func.func @swiglu_up_shape(%g: tensor<4x8xf32>, %u: tensor<4x16xf32>) -> tensor<4x8xf32> {
  // expected-error @+1 {{'train.swiglu' op expected up of shape 4x8, got 4x16}}
  %0 = train.swiglu %g, %u : tensor<4x8xf32>, tensor<4x16xf32> -> tensor<4x8xf32>
  return %0 : tensor<4x8xf32>
}

// -----

func.func @swiglu_up_type(%g: tensor<4x8xf32>, %u: tensor<4x8xbf16>) -> tensor<4x8xf32> {
  // expected-error @+1 {{'train.swiglu' op expected up element type 'f32', got 'bf16'}}
  %0 = train.swiglu %g, %u : tensor<4x8xf32>, tensor<4x8xbf16> -> tensor<4x8xf32>
  return %0 : tensor<4x8xf32>
}

// -----

func.func @swiglu_result_shape(%g: tensor<4x8xf32>, %u: tensor<4x8xf32>) -> tensor<4x4xf32> {
  // expected-error @+1 {{'train.swiglu' op expected result of shape 4x8, got 4x4}}
  %0 = train.swiglu %g, %u : tensor<4x8xf32>, tensor<4x8xf32> -> tensor<4x4xf32>
  return %0 : tensor<4x4xf32>
}

// -----

func.func @swiglu_result_type(%g: tensor<4x8xf32>, %u: tensor<4x8xf32>) -> tensor<4x8xbf16> {
  // expected-error @+1 {{'train.swiglu' op expected result element type 'f32', got 'bf16'}}
  %0 = train.swiglu %g, %u : tensor<4x8xf32>, tensor<4x8xf32> -> tensor<4x8xbf16>
  return %0 : tensor<4x8xbf16>
}

// -----

func.func @softmax_result_shape(%x: tensor<4x8xf32>) -> tensor<4x4xf32> {
  // expected-error @+1 {{'train.softmax' op expected result of shape 4x8, got 4x4}}
  %0 = train.softmax %x : tensor<4x8xf32> -> tensor<4x4xf32>
  return %0 : tensor<4x4xf32>
}

// -----

func.func @softmax_result_type(%x: tensor<4x8xf32>) -> tensor<4x8xbf16> {
  // expected-error @+1 {{'train.softmax' op expected result element type 'f32', got 'bf16'}}
  %0 = train.softmax %x : tensor<4x8xf32> -> tensor<4x8xbf16>
  return %0 : tensor<4x8xbf16>
}

// -----

func.func @softmax_scalar_input(%x: tensor<f32>) -> tensor<f32> {
  // expected-error @+1 {{'train.softmax' op expected input of rank >= 1, got rank 0 (scalar)}}
  %0 = train.softmax %x : tensor<f32>
  return %0 : tensor<f32>
}

// -----

func.func @softmax_axis_out_of_range(%x: tensor<4x8xf32>) -> tensor<4x8xf32> {
  // expected-error @+1 {{'train.softmax' op axis 2 is out of range for rank 2}}
  %0 = train.softmax %x {axis = 2 : i64} : tensor<4x8xf32>
  return %0 : tensor<4x8xf32>
}

// -----

func.func @softmax_zero_scale(%x: tensor<4x8xf32>) -> tensor<4x8xf32> {
  // expected-error @+1 {{'train.softmax' op expected scale > 0, got 0.000000e+00}}
  %0 = train.softmax %x {scale = 0.0 : f64} : tensor<4x8xf32>
  return %0 : tensor<4x8xf32>
}

// -----

func.func @softmax_causal_rank1(%x: tensor<8xf32>) -> tensor<8xf32> {
  // expected-error @+1 {{'train.softmax' op causal softmax expects rank >= 2, got rank 1 (8)}}
  %0 = train.softmax %x {causal} : tensor<8xf32>
  return %0 : tensor<8xf32>
}

// -----

func.func @softmax_causal_not_last_axis(%x: tensor<2x4x8x8xf32>) -> tensor<2x4x8x8xf32> {
  // expected-error @+1 {{'train.softmax' op causal softmax expects the last axis (3), got axis 2}}
  %0 = train.softmax %x {axis = -2 : i64, causal} : tensor<2x4x8x8xf32>
  return %0 : tensor<2x4x8x8xf32>
}

// -----

//===----------------------------------------------------------------------===//
// Normalization, regularization
//===----------------------------------------------------------------------===//

func.func @layer_norm_result_shape(%x: tensor<4x8xf32>, %g: tensor<8xf32>, %b: tensor<8xf32>) {
  // expected-error @+1 {{'train.layer_norm' op expected result of shape 4x8, got 8x4}}
  %y, %m, %r = train.layer_norm %x, %g, %b : tensor<4x8xf32>, tensor<8xf32>, tensor<8xf32> -> tensor<8x4xf32>, tensor<4xf32>, tensor<4xf32>
  return
}

// -----

func.func @layer_norm_result_type(%x: tensor<4x8xf32>, %g: tensor<8xf32>, %b: tensor<8xf32>) {
  // expected-error @+1 {{'train.layer_norm' op expected result element type 'f32', got 'bf16'}}
  %y, %m, %r = train.layer_norm %x, %g, %b : tensor<4x8xf32>, tensor<8xf32>, tensor<8xf32> -> tensor<4x8xbf16>, tensor<4xf32>, tensor<4xf32>
  return
}

// -----

func.func @layer_norm_scalar_input(%x: tensor<f32>, %g: tensor<1xf32>, %b: tensor<1xf32>) {
  // expected-error @+1 {{'train.layer_norm' op expected input of rank >= 1, got rank 0 (scalar)}}
  %y, %m, %r = train.layer_norm %x, %g, %b : tensor<f32>, tensor<1xf32>, tensor<1xf32> -> tensor<f32>, tensor<f32>, tensor<f32>
  return
}

// -----

func.func @layer_norm_epsilon(%x: tensor<4x8xf32>, %g: tensor<8xf32>, %b: tensor<8xf32>) {
  // expected-error @+1 {{'train.layer_norm' op expected epsilon > 0, got -1.000000e-05}}
  %y, %m, %r = train.layer_norm %x, %g, %b {epsilon = -1.0e-5 : f64} : tensor<4x8xf32>, tensor<8xf32>, tensor<8xf32> -> tensor<4x8xf32>, tensor<4xf32>, tensor<4xf32>
  return
}

// -----

func.func @layer_norm_gamma_shape(%x: tensor<4x8xf32>, %g: tensor<4xf32>, %b: tensor<8xf32>) {
  // expected-error @+1 {{'train.layer_norm' op expected gamma of shape 8, got 4}}
  %y, %m, %r = train.layer_norm %x, %g, %b : tensor<4x8xf32>, tensor<4xf32>, tensor<8xf32> -> tensor<4x8xf32>, tensor<4xf32>, tensor<4xf32>
  return
}

// -----

func.func @layer_norm_beta_shape(%x: tensor<4x8xf32>, %g: tensor<8xf32>, %b: tensor<1x8xf32>) {
  // expected-error @+1 {{'train.layer_norm' op expected beta of shape 8, got 1x8}}
  %y, %m, %r = train.layer_norm %x, %g, %b : tensor<4x8xf32>, tensor<8xf32>, tensor<1x8xf32> -> tensor<4x8xf32>, tensor<4xf32>, tensor<4xf32>
  return
}

// -----

func.func @layer_norm_mean_shape(%x: tensor<2x4x8xf32>, %g: tensor<8xf32>, %b: tensor<8xf32>) {
  // expected-error @+1 {{'train.layer_norm' op expected mean of shape 2x4, got 8}}
  %y, %m, %r = train.layer_norm %x, %g, %b : tensor<2x4x8xf32>, tensor<8xf32>, tensor<8xf32> -> tensor<2x4x8xf32>, tensor<8xf32>, tensor<2x4xf32>
  return
}

// -----

func.func @layer_norm_mean_type(%x: tensor<4x8xbf16>, %g: tensor<8xbf16>, %b: tensor<8xbf16>) {
  // expected-error @+1 {{'train.layer_norm' op expected mean element type 'f32', got 'bf16'}}
  %y, %m, %r = train.layer_norm %x, %g, %b : tensor<4x8xbf16>, tensor<8xbf16>, tensor<8xbf16> -> tensor<4x8xbf16>, tensor<4xbf16>, tensor<4xf32>
  return
}

// -----

// Statistics of a 1-d input are 0-d tensors.
func.func @layer_norm_rstd_shape(%x: tensor<8xf32>, %g: tensor<8xf32>, %b: tensor<8xf32>) {
  // expected-error @+1 {{'train.layer_norm' op expected rstd of shape scalar, got 1}}
  %y, %m, %r = train.layer_norm %x, %g, %b : tensor<8xf32>, tensor<8xf32>, tensor<8xf32> -> tensor<8xf32>, tensor<f32>, tensor<1xf32>
  return
}

// -----

func.func @layer_norm_rstd_type(%x: tensor<4x8xf32>, %g: tensor<8xf32>, %b: tensor<8xf32>) {
  // expected-error @+1 {{'train.layer_norm' op expected rstd element type 'f32', got 'f16'}}
  %y, %m, %r = train.layer_norm %x, %g, %b : tensor<4x8xf32>, tensor<8xf32>, tensor<8xf32> -> tensor<4x8xf32>, tensor<4xf32>, tensor<4xf16>
  return
}

// -----

func.func @rms_norm_result_shape(%x: tensor<4x8xf32>, %g: tensor<8xf32>) {
  // expected-error @+1 {{'train.rms_norm' op expected result of shape 4x8, got 4x4}}
  %y, %r = train.rms_norm %x, %g : tensor<4x8xf32>, tensor<8xf32> -> tensor<4x4xf32>, tensor<4xf32>
  return
}

// -----

func.func @rms_norm_result_type(%x: tensor<4x8xbf16>, %g: tensor<8xbf16>) {
  // expected-error @+1 {{'train.rms_norm' op expected result element type 'bf16', got 'f32'}}
  %y, %r = train.rms_norm %x, %g : tensor<4x8xbf16>, tensor<8xbf16> -> tensor<4x8xf32>, tensor<4xf32>
  return
}

// -----

func.func @rms_norm_scalar_input(%x: tensor<f32>, %g: tensor<1xf32>) {
  // expected-error @+1 {{'train.rms_norm' op expected input of rank >= 1, got rank 0 (scalar)}}
  %y, %r = train.rms_norm %x, %g : tensor<f32>, tensor<1xf32> -> tensor<f32>, tensor<f32>
  return
}

// -----

func.func @rms_norm_epsilon(%x: tensor<4x8xf32>, %g: tensor<8xf32>) {
  // expected-error @+1 {{'train.rms_norm' op expected epsilon > 0, got 0.000000e+00}}
  %y, %r = train.rms_norm %x, %g {epsilon = 0.0 : f64} : tensor<4x8xf32>, tensor<8xf32> -> tensor<4x8xf32>, tensor<4xf32>
  return
}

// -----

func.func @rms_norm_gamma_shape(%x: tensor<4x8xf32>, %g: tensor<4xf32>) {
  // expected-error @+1 {{'train.rms_norm' op expected gamma of shape 8, got 4}}
  %y, %r = train.rms_norm %x, %g : tensor<4x8xf32>, tensor<4xf32> -> tensor<4x8xf32>, tensor<4xf32>
  return
}

// -----

func.func @rms_norm_rstd_shape(%x: tensor<4x8xf32>, %g: tensor<8xf32>) {
  // expected-error @+1 {{'train.rms_norm' op expected rstd of shape 4, got 4x1}}
  %y, %r = train.rms_norm %x, %g : tensor<4x8xf32>, tensor<8xf32> -> tensor<4x8xf32>, tensor<4x1xf32>
  return
}

// -----

func.func @rms_norm_rstd_type(%x: tensor<4x8xf32>, %g: tensor<8xf32>) {
  // expected-error @+1 {{'train.rms_norm' op expected rstd element type 'f32', got 'bf16'}}
  %y, %r = train.rms_norm %x, %g : tensor<4x8xf32>, tensor<8xf32> -> tensor<4x8xf32>, tensor<4xbf16>
  return
}

// -----

func.func @batch_norm_result_shape(%x: tensor<2x8x4x4xf32>, %g: tensor<8xf32>, %b: tensor<8xf32>) {
  // expected-error @+1 {{'train.batch_norm' op expected result of shape 2x8x4x4, got 2x8x4x2}}
  %y, %m, %r = train.batch_norm %x, %g, %b : tensor<2x8x4x4xf32>, tensor<8xf32>, tensor<8xf32> -> tensor<2x8x4x2xf32>, tensor<8xf32>, tensor<8xf32>
  return
}

// -----

func.func @batch_norm_result_type(%x: tensor<2x8x4x4xf32>, %g: tensor<8xf32>, %b: tensor<8xf32>) {
  // expected-error @+1 {{'train.batch_norm' op expected result element type 'f32', got 'f16'}}
  %y, %m, %r = train.batch_norm %x, %g, %b : tensor<2x8x4x4xf32>, tensor<8xf32>, tensor<8xf32> -> tensor<2x8x4x4xf16>, tensor<8xf32>, tensor<8xf32>
  return
}

// -----

func.func @batch_norm_input_rank(%x: tensor<8x16xf32>, %g: tensor<16xf32>, %b: tensor<16xf32>) {
  // expected-error @+1 {{'train.batch_norm' op expected input of rank 4, got rank 2 (8x16)}}
  %y, %m, %r = train.batch_norm %x, %g, %b : tensor<8x16xf32>, tensor<16xf32>, tensor<16xf32> -> tensor<8x16xf32>, tensor<16xf32>, tensor<16xf32>
  return
}

// -----

func.func @batch_norm_epsilon(%x: tensor<2x8x4x4xf32>, %g: tensor<8xf32>, %b: tensor<8xf32>) {
  // expected-error @+1 {{'train.batch_norm' op expected epsilon > 0, got -1.000000e+00}}
  %y, %m, %r = train.batch_norm %x, %g, %b {epsilon = -1.0 : f64} : tensor<2x8x4x4xf32>, tensor<8xf32>, tensor<8xf32> -> tensor<2x8x4x4xf32>, tensor<8xf32>, tensor<8xf32>
  return
}

// -----

func.func @batch_norm_gamma_shape(%x: tensor<2x8x4x4xf32>, %g: tensor<4xf32>, %b: tensor<8xf32>) {
  // expected-error @+1 {{'train.batch_norm' op expected gamma of shape 8, got 4}}
  %y, %m, %r = train.batch_norm %x, %g, %b : tensor<2x8x4x4xf32>, tensor<4xf32>, tensor<8xf32> -> tensor<2x8x4x4xf32>, tensor<8xf32>, tensor<8xf32>
  return
}

// -----

func.func @batch_norm_beta_shape(%x: tensor<2x8x4x4xf32>, %g: tensor<8xf32>, %b: tensor<2xf32>) {
  // expected-error @+1 {{'train.batch_norm' op expected beta of shape 8, got 2}}
  %y, %m, %r = train.batch_norm %x, %g, %b : tensor<2x8x4x4xf32>, tensor<8xf32>, tensor<2xf32> -> tensor<2x8x4x4xf32>, tensor<8xf32>, tensor<8xf32>
  return
}

// -----

func.func @batch_norm_mean_shape(%x: tensor<2x8x4x4xf32>, %g: tensor<8xf32>, %b: tensor<8xf32>) {
  // expected-error @+1 {{'train.batch_norm' op expected mean of shape 8, got 2x8}}
  %y, %m, %r = train.batch_norm %x, %g, %b : tensor<2x8x4x4xf32>, tensor<8xf32>, tensor<8xf32> -> tensor<2x8x4x4xf32>, tensor<2x8xf32>, tensor<8xf32>
  return
}

// -----

func.func @batch_norm_mean_type(%x: tensor<2x8x4x4xf16>, %g: tensor<8xf16>, %b: tensor<8xf16>) {
  // expected-error @+1 {{'train.batch_norm' op expected mean element type 'f32', got 'f16'}}
  %y, %m, %r = train.batch_norm %x, %g, %b : tensor<2x8x4x4xf16>, tensor<8xf16>, tensor<8xf16> -> tensor<2x8x4x4xf16>, tensor<8xf16>, tensor<8xf32>
  return
}

// -----

func.func @batch_norm_rstd_shape(%x: tensor<2x8x4x4xf32>, %g: tensor<8xf32>, %b: tensor<8xf32>) {
  // expected-error @+1 {{'train.batch_norm' op expected rstd of shape 8, got 2}}
  %y, %m, %r = train.batch_norm %x, %g, %b : tensor<2x8x4x4xf32>, tensor<8xf32>, tensor<8xf32> -> tensor<2x8x4x4xf32>, tensor<8xf32>, tensor<2xf32>
  return
}

// -----

func.func @batch_norm_rstd_type(%x: tensor<2x8x4x4xbf16>, %g: tensor<8xbf16>, %b: tensor<8xbf16>) {
  // expected-error @+1 {{'train.batch_norm' op expected rstd element type 'f32', got 'bf16'}}
  %y, %m, %r = train.batch_norm %x, %g, %b : tensor<2x8x4x4xbf16>, tensor<8xbf16>, tensor<8xbf16> -> tensor<2x8x4x4xbf16>, tensor<8xf32>, tensor<8xbf16>
  return
}

// -----

func.func @dropout_result_shape(%x: tensor<4x8xf32>) {
  // expected-error @+1 {{'train.dropout' op expected result of shape 4x8, got 8x4}}
  %y, %m = train.dropout %x {id = 0 : i64, rate = 0.1 : f64} : tensor<4x8xf32> -> tensor<8x4xf32>, tensor<4x8xi8>
  return
}

// -----

func.func @dropout_result_type(%x: tensor<4x8xbf16>) {
  // expected-error @+1 {{'train.dropout' op expected result element type 'bf16', got 'f32'}}
  %y, %m = train.dropout %x {id = 0 : i64, rate = 0.1 : f64} : tensor<4x8xbf16> -> tensor<4x8xf32>, tensor<4x8xi8>
  return
}

// -----

func.func @dropout_mask_shape(%x: tensor<4x8xf32>) {
  // expected-error @+1 {{'train.dropout' op expected mask of shape 4x8, got 32}}
  %y, %m = train.dropout %x {id = 0 : i64, rate = 0.1 : f64} : tensor<4x8xf32> -> tensor<4x8xf32>, tensor<32xi1>
  return
}

// -----

func.func @dropout_negative_id(%x: tensor<4x8xf32>) {
  // expected-error @+1 {{'train.dropout' op expected id >= 0, got -1}}
  %y, %m = train.dropout %x {id = -1 : i64, rate = 0.1 : f64} : tensor<4x8xf32> -> tensor<4x8xf32>, tensor<4x8xi8>
  return
}

// -----

func.func @dropout_part_offsets(%x: tensor<4x8xf32>, %o: index) {
  // expected-error @+1 {{'train.dropout' op expected 2 offsets and whole extents (one per dimension of the input), got 1 and 2}}
  %y, %m = train.dropout %x at [%o] in [8, 8] {id = 0 : i64, rate = 0.1 : f64} : tensor<4x8xf32> -> tensor<4x8xf32>, tensor<4x8xi8>
  return
}

// -----

func.func @dropout_part_extent(%x: tensor<4x8xf32>, %o: index) {
  // expected-error @+1 {{'train.dropout' op whole extent 2 of dimension 0 is smaller than the part's 4}}
  %y, %m = train.dropout %x at [%o, %o] in [2, 8] {id = 0 : i64, rate = 0.1 : f64} : tensor<4x8xf32> -> tensor<4x8xf32>, tensor<4x8xi8>
  return
}

// -----

func.func @dropout_rate_one(%x: tensor<4x8xf32>) {
  // expected-error @+1 {{'train.dropout' op expected rate in [0, 1), got 1.000000e+00}}
  %y, %m = train.dropout %x {id = 0 : i64, rate = 1.0 : f64} : tensor<4x8xf32> -> tensor<4x8xf32>, tensor<4x8xi8>
  return
}

// -----

func.func @dropout_negative_rate(%x: tensor<4x8xf32>) {
  // expected-error @+1 {{'train.dropout' op expected rate in [0, 1), got -1.000000e-01}}
  %y, %m = train.dropout %x {id = 0 : i64, rate = -0.1 : f64} : tensor<4x8xf32> -> tensor<4x8xf32>, tensor<4x8xi8>
  return
}

// -----

//===----------------------------------------------------------------------===//
// Linear algebra, embeddings, attention
//===----------------------------------------------------------------------===//

func.func @matmul_lhs_rank(%a: tensor<8xf32>, %b: tensor<8x4xf32>) -> tensor<4xf32> {
  // expected-error @+1 {{'train.matmul' op expected lhs of rank >= 2, got rank 1 (8)}}
  %0 = train.matmul %a, %b : tensor<8xf32>, tensor<8x4xf32> -> tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

func.func @matmul_rhs_rank(%a: tensor<4x8xf32>, %b: tensor<8xf32>) -> tensor<4xf32> {
  // expected-error @+1 {{'train.matmul' op expected rhs of rank >= 2, got rank 1 (8)}}
  %0 = train.matmul %a, %b : tensor<4x8xf32>, tensor<8xf32> -> tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

func.func @matmul_rhs_rank_mismatch(%a: tensor<2x3x4x8xf32>, %b: tensor<3x8x5xf32>) -> tensor<2x3x4x5xf32> {
  // expected-error @+1 {{'train.matmul' op expected rhs of rank 2 or of the lhs rank 4, got rank 3 (3x8x5)}}
  %0 = train.matmul %a, %b : tensor<2x3x4x8xf32>, tensor<3x8x5xf32> -> tensor<2x3x4x5xf32>
  return %0 : tensor<2x3x4x5xf32>
}

// -----

func.func @matmul_batch_dims(%a: tensor<2x3x4x8xf32>, %b: tensor<2x6x8x5xf32>) -> tensor<2x3x4x5xf32> {
  // expected-error @+1 {{'train.matmul' op expected rhs batch dimensions of shape 2x3, got 2x6}}
  %0 = train.matmul %a, %b : tensor<2x3x4x8xf32>, tensor<2x6x8x5xf32> -> tensor<2x3x4x5xf32>
  return %0 : tensor<2x3x4x5xf32>
}

// -----

func.func @matmul_rhs_element_type(%a: tensor<4x8xbf16>, %b: tensor<8x5xf32>) -> tensor<4x5xf32> {
  // expected-error @+1 {{'train.matmul' op expected rhs element type 'bf16', got 'f32'}}
  %0 = train.matmul %a, %b : tensor<4x8xbf16>, tensor<8x5xf32> -> tensor<4x5xf32>
  return %0 : tensor<4x5xf32>
}

// -----

func.func @matmul_contraction(%a: tensor<4x8xf32>, %b: tensor<16x5xf32>) -> tensor<4x5xf32> {
  // expected-error @+1 {{'train.matmul' op contraction dimension mismatch: lhs 4x8 contracts 8, rhs 16x5 contracts 16}}
  %0 = train.matmul %a, %b : tensor<4x8xf32>, tensor<16x5xf32> -> tensor<4x5xf32>
  return %0 : tensor<4x5xf32>
}

// -----

// With transposes the contraction dimensions are lhs[-2] and rhs[-1].
func.func @matmul_contraction_transposed(%a: tensor<8x4xf32>, %b: tensor<8x5xf32>) -> tensor<4x8xf32> {
  // expected-error @+1 {{'train.matmul' op contraction dimension mismatch: lhs 8x4 contracts 8, rhs 8x5 contracts 5}}
  %0 = train.matmul %a, %b {transpose_lhs, transpose_rhs} : tensor<8x4xf32>, tensor<8x5xf32> -> tensor<4x8xf32>
  return %0 : tensor<4x8xf32>
}

// -----

func.func @matmul_result_shape(%a: tensor<4x8xf32>, %b: tensor<8x16xf32>) -> tensor<4x8xf32> {
  // expected-error @+1 {{'train.matmul' op expected result of shape 4x16, got 4x8}}
  %0 = train.matmul %a, %b : tensor<4x8xf32>, tensor<8x16xf32> -> tensor<4x8xf32>
  return %0 : tensor<4x8xf32>
}

// -----

// A shared rank-2 rhs keeps the lhs batch dimensions.
func.func @matmul_result_batch(%a: tensor<2x4x8xf32>, %b: tensor<16x8xf32>) -> tensor<4x16xf32> {
  // expected-error @+1 {{'train.matmul' op expected result of shape 2x4x16, got 4x16}}
  %0 = train.matmul %a, %b {transpose_rhs} : tensor<2x4x8xf32>, tensor<16x8xf32> -> tensor<4x16xf32>
  return %0 : tensor<4x16xf32>
}

// -----

// The result may be wider than the operands (accumulation), never narrower.
func.func @matmul_result_narrower(%a: tensor<4x8xf32>, %b: tensor<8x16xf32>) -> tensor<4x16xbf16> {
  // expected-error @+1 {{'train.matmul' op expected result element type 'f32' or a wider float (accumulation), got 'bf16'}}
  %0 = train.matmul %a, %b : tensor<4x8xf32>, tensor<8x16xf32> -> tensor<4x16xbf16>
  return %0 : tensor<4x16xbf16>
}

// -----

func.func @matmul_result_same_width(%a: tensor<4x8xbf16>, %b: tensor<8x16xbf16>) -> tensor<4x16xf16> {
  // expected-error @+1 {{'train.matmul' op expected result element type 'bf16' or a wider float (accumulation), got 'f16'}}
  %0 = train.matmul %a, %b : tensor<4x8xbf16>, tensor<8x16xbf16> -> tensor<4x16xf16>
  return %0 : tensor<4x16xf16>
}

// -----

func.func @embedding_table_rank(%t: tensor<16xf32>, %ids: tensor<4xi64>) -> tensor<4xf32> {
  // expected-error @+1 {{'train.embedding' op expected table of rank 2, got rank 1 (16)}}
  %0 = train.embedding %t, %ids : tensor<16xf32>, tensor<4xi64> -> tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

func.func @embedding_result_shape(%t: tensor<16x8xf32>, %ids: tensor<2x4xi64>) -> tensor<8x8xf32> {
  // expected-error @+1 {{'train.embedding' op expected result of shape 2x4x8, got 8x8}}
  %0 = train.embedding %t, %ids : tensor<16x8xf32>, tensor<2x4xi64> -> tensor<8x8xf32>
  return %0 : tensor<8x8xf32>
}

// -----

func.func @embedding_result_type(%t: tensor<16x8xf32>, %ids: tensor<4xi32>) -> tensor<4x8xbf16> {
  // expected-error @+1 {{'train.embedding' op expected result element type 'f32', got 'bf16'}}
  %0 = train.embedding %t, %ids : tensor<16x8xf32>, tensor<4xi32> -> tensor<4x8xbf16>
  return %0 : tensor<4x8xbf16>
}

// -----

func.func @attention_query_rank(%q: tensor<8x16x64xf32>, %k: tensor<1x8x16x64xf32>, %v: tensor<1x8x16x64xf32>) {
  // expected-error @+1 {{'train.attention' op expected query of rank 4, got rank 3 (8x16x64)}}
  %o, %lse = train.attention %q, %k, %v {scale = 0.125 : f64} : tensor<8x16x64xf32>, tensor<1x8x16x64xf32>, tensor<1x8x16x64xf32> -> tensor<8x16x64xf32>, tensor<8x16xf32>
  return
}

// -----

func.func @attention_block_rows(%q: tensor<1x8x16x64xf32>, %k: tensor<1x8x16x64xf32>, %v: tensor<1x8x16x64xf32>) {
  // expected-error @+1 {{'train.attention' op expected block_rows >= 1, got 0}}
  %o, %lse = train.attention %q, %k, %v {block_rows = 0 : i64, scale = 0.125 : f64} : tensor<1x8x16x64xf32>, tensor<1x8x16x64xf32>, tensor<1x8x16x64xf32> -> tensor<1x8x16x64xf32>, tensor<1x8x16xf32>
  return
}

// -----

func.func @attention_key_rank(%q: tensor<1x8x16x64xf32>, %k: tensor<8x16x64xf32>, %v: tensor<8x16x64xf32>) {
  // expected-error @+1 {{'train.attention' op expected key of rank 4, got rank 3 (8x16x64)}}
  %o, %lse = train.attention %q, %k, %v {scale = 0.125 : f64} : tensor<1x8x16x64xf32>, tensor<8x16x64xf32>, tensor<8x16x64xf32> -> tensor<1x8x16x64xf32>, tensor<1x8x16xf32>
  return
}

// -----

func.func @attention_value_shape(%q: tensor<1x8x16x64xf32>, %k: tensor<1x2x16x64xf32>, %v: tensor<1x2x32x64xf32>) {
  // expected-error @+1 {{'train.attention' op expected value of shape 1x2x16x64, got 1x2x32x64}}
  %o, %lse = train.attention %q, %k, %v {scale = 0.125 : f64} : tensor<1x8x16x64xf32>, tensor<1x2x16x64xf32>, tensor<1x2x32x64xf32> -> tensor<1x8x16x64xf32>, tensor<1x8x16xf32>
  return
}

// -----

func.func @attention_value_type(%q: tensor<1x8x16x64xbf16>, %k: tensor<1x8x16x64xbf16>, %v: tensor<1x8x16x64xf32>) {
  // expected-error @+1 {{'train.attention' op expected value element type 'bf16', got 'f32'}}
  %o, %lse = train.attention %q, %k, %v {scale = 0.125 : f64} : tensor<1x8x16x64xbf16>, tensor<1x8x16x64xbf16>, tensor<1x8x16x64xf32> -> tensor<1x8x16x64xbf16>, tensor<1x8x16xf32>
  return
}

// -----

func.func @attention_scale(%q: tensor<1x8x16x64xf32>, %k: tensor<1x8x16x64xf32>, %v: tensor<1x8x16x64xf32>) {
  // expected-error @+1 {{'train.attention' op expected scale > 0, got -1.250000e-01}}
  %o, %lse = train.attention %q, %k, %v {scale = -0.125 : f64} : tensor<1x8x16x64xf32>, tensor<1x8x16x64xf32>, tensor<1x8x16x64xf32> -> tensor<1x8x16x64xf32>, tensor<1x8x16xf32>
  return
}

// -----

func.func @attention_key_batch(%q: tensor<2x8x16x64xf32>, %k: tensor<1x8x16x64xf32>, %v: tensor<1x8x16x64xf32>) {
  // expected-error @+1 {{'train.attention' op expected key of shape 2x?x?x64 (batch and head size of the query 2x8x16x64), got 1x8x16x64}}
  %o, %lse = train.attention %q, %k, %v {scale = 0.125 : f64} : tensor<2x8x16x64xf32>, tensor<1x8x16x64xf32>, tensor<1x8x16x64xf32> -> tensor<2x8x16x64xf32>, tensor<2x8x16xf32>
  return
}

// -----

func.func @attention_key_head_size(%q: tensor<1x8x16x64xf32>, %k: tensor<1x8x16x32xf32>, %v: tensor<1x8x16x32xf32>) {
  // expected-error @+1 {{'train.attention' op expected key of shape 1x?x?x64 (batch and head size of the query 1x8x16x64), got 1x8x16x32}}
  %o, %lse = train.attention %q, %k, %v {scale = 0.125 : f64} : tensor<1x8x16x64xf32>, tensor<1x8x16x32xf32>, tensor<1x8x16x32xf32> -> tensor<1x8x16x64xf32>, tensor<1x8x16xf32>
  return
}

// -----

func.func @attention_zero_kv_heads(%q: tensor<1x8x16x64xf32>, %k: tensor<1x0x16x64xf32>, %v: tensor<1x0x16x64xf32>) {
  // expected-error @+1 {{'train.attention' op expected at least one key/value head, got 1x0x16x64}}
  %o, %lse = train.attention %q, %k, %v {scale = 0.125 : f64} : tensor<1x8x16x64xf32>, tensor<1x0x16x64xf32>, tensor<1x0x16x64xf32> -> tensor<1x8x16x64xf32>, tensor<1x8x16xf32>
  return
}

// -----

func.func @attention_head_multiple(%q: tensor<1x8x16x64xf32>, %k: tensor<1x3x16x64xf32>, %v: tensor<1x3x16x64xf32>) {
  // expected-error @+1 {{'train.attention' op expected the query heads (8) to be a multiple of the key/value heads (3)}}
  %o, %lse = train.attention %q, %k, %v {scale = 0.125 : f64} : tensor<1x8x16x64xf32>, tensor<1x3x16x64xf32>, tensor<1x3x16x64xf32> -> tensor<1x8x16x64xf32>, tensor<1x8x16xf32>
  return
}

// -----

func.func @attention_key_type(%q: tensor<1x8x16x64xbf16>, %k: tensor<1x2x16x64xf32>, %v: tensor<1x2x16x64xf32>) {
  // expected-error @+1 {{'train.attention' op expected key element type 'bf16', got 'f32'}}
  %o, %lse = train.attention %q, %k, %v {scale = 0.125 : f64} : tensor<1x8x16x64xbf16>, tensor<1x2x16x64xf32>, tensor<1x2x16x64xf32> -> tensor<1x8x16x64xbf16>, tensor<1x8x16xf32>
  return
}

// -----

func.func @attention_lse_shape(%q: tensor<1x8x16x64xf32>, %k: tensor<1x2x32x64xf32>, %v: tensor<1x2x32x64xf32>) {
  // expected-error @+1 {{'train.attention' op expected lse of shape 1x8x16, got 1x2x32}}
  %o, %lse = train.attention %q, %k, %v {scale = 0.125 : f64} : tensor<1x8x16x64xf32>, tensor<1x2x32x64xf32>, tensor<1x2x32x64xf32> -> tensor<1x8x16x64xf32>, tensor<1x2x32xf32>
  return
}

// -----

func.func @attention_lse_type(%q: tensor<1x8x16x64xbf16>, %k: tensor<1x2x16x64xbf16>, %v: tensor<1x2x16x64xbf16>) {
  // expected-error @+1 {{'train.attention' op expected lse element type 'f32', got 'bf16'}}
  %o, %lse = train.attention %q, %k, %v {scale = 0.125 : f64} : tensor<1x8x16x64xbf16>, tensor<1x2x16x64xbf16>, tensor<1x2x16x64xbf16> -> tensor<1x8x16x64xbf16>, tensor<1x8x16xbf16>
  return
}

// -----

func.func @attention_result_shape(%q: tensor<1x8x16x64xf32>, %k: tensor<1x2x32x64xf32>, %v: tensor<1x2x32x64xf32>) {
  // expected-error @+1 {{'train.attention' op expected result of shape 1x8x16x64, got 1x8x32x64}}
  %o, %lse = train.attention %q, %k, %v {scale = 0.125 : f64} : tensor<1x8x16x64xf32>, tensor<1x2x32x64xf32>, tensor<1x2x32x64xf32> -> tensor<1x8x32x64xf32>, tensor<1x8x16xf32>
  return
}

// -----

func.func @attention_result_type(%q: tensor<1x8x16x64xbf16>, %k: tensor<1x2x16x64xbf16>, %v: tensor<1x2x16x64xbf16>) {
  // expected-error @+1 {{'train.attention' op expected result element type 'bf16', got 'f32'}}
  %o, %lse = train.attention %q, %k, %v {scale = 0.125 : f64} : tensor<1x8x16x64xbf16>, tensor<1x2x16x64xbf16>, tensor<1x2x16x64xbf16> -> tensor<1x8x16x64xf32>, tensor<1x8x16xf32>
  return
}

// -----

func.func @rotary_result_shape(%x: tensor<1x8x16x64xf32>) -> tensor<1x8x16x32xf32> {
  // expected-error @+1 {{'train.rotary' op expected result of shape 1x8x16x64, got 1x8x16x32}}
  %0 = train.rotary %x : tensor<1x8x16x64xf32> -> tensor<1x8x16x32xf32>
  return %0 : tensor<1x8x16x32xf32>
}

// -----

func.func @rotary_result_type(%x: tensor<1x8x16x64xf32>) -> tensor<1x8x16x64xbf16> {
  // expected-error @+1 {{'train.rotary' op expected result element type 'f32', got 'bf16'}}
  %0 = train.rotary %x : tensor<1x8x16x64xf32> -> tensor<1x8x16x64xbf16>
  return %0 : tensor<1x8x16x64xbf16>
}

// -----

func.func @rotary_rank(%x: tensor<64xf32>) -> tensor<64xf32> {
  // expected-error @+1 {{'train.rotary' op expected input of rank >= 2, got rank 1 (64)}}
  %0 = train.rotary %x : tensor<64xf32>
  return %0 : tensor<64xf32>
}

// -----

func.func @rotary_theta(%x: tensor<16x64xf32>) -> tensor<16x64xf32> {
  // expected-error @+1 {{'train.rotary' op expected theta > 0, got 0.000000e+00}}
  %0 = train.rotary %x {theta = 0.0 : f64} : tensor<16x64xf32>
  return %0 : tensor<16x64xf32>
}

// -----

func.func @rotary_odd_last_dim(%x: tensor<16x63xf32>) -> tensor<16x63xf32> {
  // expected-error @+1 {{'train.rotary' op expected an even last dimension, got 16x63}}
  %0 = train.rotary %x : tensor<16x63xf32>
  return %0 : tensor<16x63xf32>
}

// -----

//===----------------------------------------------------------------------===//
// Losses and reductions
//===----------------------------------------------------------------------===//

func.func @cross_entropy_scalar_logits(%l: tensor<f32>, %y: tensor<i64>) -> tensor<f32> {
  // expected-error @+1 {{'train.cross_entropy' op expected logits of rank >= 1, got rank 0 (scalar)}}
  %0 = train.cross_entropy %l, %y : tensor<f32>, tensor<i64> -> tensor<f32>
  return %0 : tensor<f32>
}

// -----

func.func @cross_entropy_labels_shape(%l: tensor<4x16x10xf32>, %y: tensor<4x10xi64>) -> tensor<f32> {
  // expected-error @+1 {{'train.cross_entropy' op expected labels of shape 4x16, got 4x10}}
  %0 = train.cross_entropy %l, %y : tensor<4x16x10xf32>, tensor<4x10xi64> -> tensor<f32>
  return %0 : tensor<f32>
}

// -----

func.func @mse_loss_target_shape(%x: tensor<4x8xf32>, %y: tensor<8x4xf32>) -> tensor<f32> {
  // expected-error @+1 {{'train.mse_loss' op expected target of shape 4x8, got 8x4}}
  %0 = train.mse_loss %x, %y : tensor<4x8xf32>, tensor<8x4xf32> -> tensor<f32>
  return %0 : tensor<f32>
}

// -----

func.func @mse_loss_target_type(%x: tensor<4x8xf32>, %y: tensor<4x8xbf16>) -> tensor<f32> {
  // expected-error @+1 {{'train.mse_loss' op expected target element type 'f32', got 'bf16'}}
  %0 = train.mse_loss %x, %y : tensor<4x8xf32>, tensor<4x8xbf16> -> tensor<f32>
  return %0 : tensor<f32>
}

// -----

func.func @reduce_sum_unsorted_dims(%x: tensor<2x4x8xf32>) -> tensor<4xf32> {
  // expected-error @+1 {{'train.reduce_sum' op expected strictly increasing dims in [0, 3), got [2, 0]}}
  %0 = train.reduce_sum %x {dims = array<i64: 2, 0>} : tensor<2x4x8xf32> -> tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

func.func @reduce_sum_duplicate_dims(%x: tensor<2x4x8xf32>) -> tensor<4x8xf32> {
  // expected-error @+1 {{'train.reduce_sum' op expected strictly increasing dims in [0, 3), got [0, 0]}}
  %0 = train.reduce_sum %x {dims = array<i64: 0, 0>} : tensor<2x4x8xf32> -> tensor<4x8xf32>
  return %0 : tensor<4x8xf32>
}

// -----

func.func @reduce_sum_dim_out_of_range(%x: tensor<2x4x8xf32>) -> tensor<2x4xf32> {
  // expected-error @+1 {{'train.reduce_sum' op expected strictly increasing dims in [0, 3), got [3]}}
  %0 = train.reduce_sum %x {dims = array<i64: 3>} : tensor<2x4x8xf32> -> tensor<2x4xf32>
  return %0 : tensor<2x4xf32>
}

// -----

func.func @reduce_sum_negative_dim(%x: tensor<2x4x8xf32>) -> tensor<2x4xf32> {
  // expected-error @+1 {{'train.reduce_sum' op expected strictly increasing dims in [0, 3), got [-1]}}
  %0 = train.reduce_sum %x {dims = array<i64: -1>} : tensor<2x4x8xf32> -> tensor<2x4xf32>
  return %0 : tensor<2x4xf32>
}

// -----

func.func @reduce_sum_result_shape(%x: tensor<2x4x8xf32>) -> tensor<2x8xf32> {
  // expected-error @+1 {{'train.reduce_sum' op expected result of shape 8, got 2x8}}
  %0 = train.reduce_sum %x {dims = array<i64: 0, 1>} : tensor<2x4x8xf32> -> tensor<2x8xf32>
  return %0 : tensor<2x8xf32>
}

// -----

func.func @reduce_sum_result_type(%x: tensor<2x4x8xbf16>) -> tensor<8xf32> {
  // expected-error @+1 {{'train.reduce_sum' op expected result element type 'bf16', got 'f32'}}
  %0 = train.reduce_sum %x {dims = array<i64: 0, 1>} : tensor<2x4x8xbf16> -> tensor<8xf32>
  return %0 : tensor<8xf32>
}

// -----

func.func @broadcast_unsorted_dims(%x: tensor<8xf32>) -> tensor<2x4x8xf32> {
  // expected-error @+1 {{'train.broadcast' op expected strictly increasing dims in [0, 3), got [1, 0]}}
  %0 = train.broadcast %x {dims = array<i64: 1, 0>} : tensor<8xf32> -> tensor<2x4x8xf32>
  return %0 : tensor<2x4x8xf32>
}

// -----

// `dims` index the result, so 3 is out of range for a rank-3 result.
func.func @broadcast_dim_out_of_range(%x: tensor<2x4xf32>) -> tensor<2x4x8xf32> {
  // expected-error @+1 {{'train.broadcast' op expected strictly increasing dims in [0, 3), got [3]}}
  %0 = train.broadcast %x {dims = array<i64: 3>} : tensor<2x4xf32> -> tensor<2x4x8xf32>
  return %0 : tensor<2x4x8xf32>
}

// -----

func.func @broadcast_input_shape(%x: tensor<4xf32>) -> tensor<2x4x8xf32> {
  // expected-error @+1 {{'train.broadcast' op expected input of shape 8, got 4}}
  %0 = train.broadcast %x {dims = array<i64: 0, 1>} : tensor<4xf32> -> tensor<2x4x8xf32>
  return %0 : tensor<2x4x8xf32>
}

// -----

func.func @broadcast_element_type(%x: tensor<8xbf16>) -> tensor<4x8xf32> {
  // expected-error @+1 {{'train.broadcast' op expected input element type 'f32', got 'bf16'}}
  %0 = train.broadcast %x {dims = array<i64: 0>} : tensor<8xbf16> -> tensor<4x8xf32>
  return %0 : tensor<4x8xf32>
}

// -----

//===----------------------------------------------------------------------===//
// Shape ops
//===----------------------------------------------------------------------===//

func.func @reshape_element_count(%x: tensor<4x8xf32>) -> tensor<4x4xf32> {
  // expected-error @+1 {{'train.reshape' op expected result with 32 elements (input 4x8), got 16 (4x4)}}
  %0 = train.reshape %x : tensor<4x8xf32> -> tensor<4x4xf32>
  return %0 : tensor<4x4xf32>
}

// -----

func.func @reshape_element_type(%x: tensor<4x8xf32>) -> tensor<32xf16> {
  // expected-error @+1 {{'train.reshape' op expected result element type 'f32', got 'f16'}}
  %0 = train.reshape %x : tensor<4x8xf32> -> tensor<32xf16>
  return %0 : tensor<32xf16>
}

// -----

func.func @transpose_permutation_size(%x: tensor<2x4x8xf32>) -> tensor<4x2x8xf32> {
  // expected-error @+1 {{'train.transpose' op expected a permutation of 3 dimensions, got 2}}
  %0 = train.transpose %x {permutation = array<i64: 1, 0>} : tensor<2x4x8xf32> -> tensor<4x2x8xf32>
  return %0 : tensor<4x2x8xf32>
}

// -----

func.func @transpose_not_permutation(%x: tensor<2x4x8xf32>) -> tensor<4x4x8xf32> {
  // expected-error @+1 {{'train.transpose' op expected a permutation of [0, 3), got [1, 1, 2]}}
  %0 = train.transpose %x {permutation = array<i64: 1, 1, 2>} : tensor<2x4x8xf32> -> tensor<4x4x8xf32>
  return %0 : tensor<4x4x8xf32>
}

// -----

func.func @transpose_permutation_out_of_range(%x: tensor<2x4x8xf32>) -> tensor<4x2x8xf32> {
  // expected-error @+1 {{'train.transpose' op expected a permutation of [0, 3), got [1, 0, 3]}}
  %0 = train.transpose %x {permutation = array<i64: 1, 0, 3>} : tensor<2x4x8xf32> -> tensor<4x2x8xf32>
  return %0 : tensor<4x2x8xf32>
}

// -----

func.func @transpose_result_shape(%x: tensor<2x4x8xf32>) -> tensor<2x4x8xf32> {
  // expected-error @+1 {{'train.transpose' op expected result of shape 2x8x4, got 2x4x8}}
  %0 = train.transpose %x {permutation = array<i64: 0, 2, 1>} : tensor<2x4x8xf32> -> tensor<2x4x8xf32>
  return %0 : tensor<2x4x8xf32>
}

// -----

func.func @transpose_result_type(%x: tensor<2x4xf32>) -> tensor<4x2xbf16> {
  // expected-error @+1 {{'train.transpose' op expected result element type 'f32', got 'bf16'}}
  %0 = train.transpose %x {permutation = array<i64: 1, 0>} : tensor<2x4xf32> -> tensor<4x2xbf16>
  return %0 : tensor<4x2xbf16>
}

// -----

func.func @slice_window_rank(%x: tensor<8x16xf32>) -> tensor<16xf32> {
  // expected-error @+1 {{'train.slice' op expected a window of rank 2, got 16}}
  %0 = train.slice %x {offsets = array<i64: 0, 0>} : tensor<8x16xf32> -> tensor<16xf32>
  return %0 : tensor<16xf32>
}

// -----

func.func @slice_offsets_count(%x: tensor<8x16xf32>) -> tensor<8x4xf32> {
  // expected-error @+1 {{'train.slice' op expected 2 offsets values, got 1}}
  %0 = train.slice %x {offsets = array<i64: 4>} : tensor<8x16xf32> -> tensor<8x4xf32>
  return %0 : tensor<8x4xf32>
}

// -----

func.func @slice_negative_offset(%x: tensor<8x16xf32>) -> tensor<8x4xf32> {
  // expected-error @+1 {{'train.slice' op expected every offsets value >= 0, got -1}}
  %0 = train.slice %x {offsets = array<i64: 0, -1>} : tensor<8x16xf32> -> tensor<8x4xf32>
  return %0 : tensor<8x4xf32>
}

// -----

func.func @slice_strides_count(%x: tensor<8x16xf32>) -> tensor<8x4xf32> {
  // expected-error @+1 {{'train.slice' op expected 2 strides values, got 3}}
  %0 = train.slice %x {offsets = array<i64: 0, 0>, strides = array<i64: 1, 2, 1>} : tensor<8x16xf32> -> tensor<8x4xf32>
  return %0 : tensor<8x4xf32>
}

// -----

func.func @slice_zero_stride(%x: tensor<8x16xf32>) -> tensor<8x4xf32> {
  // expected-error @+1 {{'train.slice' op expected every strides value >= 1, got 0}}
  %0 = train.slice %x {offsets = array<i64: 0, 0>, strides = array<i64: 1, 0>} : tensor<8x16xf32> -> tensor<8x4xf32>
  return %0 : tensor<8x4xf32>
}

// -----

func.func @slice_out_of_bounds(%x: tensor<8x16xf32>) -> tensor<8x4xf32> {
  // expected-error @+1 {{'train.slice' op window 8x4 at offsets [0, 13] with strides [1, 1] exceeds the tensor 8x16 in dimension 1}}
  %0 = train.slice %x {offsets = array<i64: 0, 13>} : tensor<8x16xf32> -> tensor<8x4xf32>
  return %0 : tensor<8x4xf32>
}

// -----

func.func @slice_strided_out_of_bounds(%x: tensor<8x16xf32>) -> tensor<3x4xf32> {
  // expected-error @+1 {{'train.slice' op window 3x4 at offsets [2, 0] with strides [3, 4] exceeds the tensor 8x16 in dimension 0}}
  %0 = train.slice %x {offsets = array<i64: 2, 0>, strides = array<i64: 3, 4>} : tensor<8x16xf32> -> tensor<3x4xf32>
  return %0 : tensor<3x4xf32>
}

// -----

func.func @slice_result_type(%x: tensor<8x16xf32>) -> tensor<8x4xbf16> {
  // expected-error @+1 {{'train.slice' op expected result element type 'f32', got 'bf16'}}
  %0 = train.slice %x {offsets = array<i64: 0, 0>} : tensor<8x16xf32> -> tensor<8x4xbf16>
  return %0 : tensor<8x4xbf16>
}

// -----

func.func @concat_no_inputs() -> tensor<4xf32> {
  // expected-error @+1 {{'train.concat' op expected at least one input}}
  %0 = "train.concat"() {axis = 0 : i64} : () -> tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

func.func @concat_axis(%a: tensor<4x8xf32>, %b: tensor<4x8xf32>) -> tensor<4x16xf32> {
  // expected-error @+1 {{'train.concat' op axis 2 is out of range for rank 2}}
  %0 = train.concat %a, %b {axis = 2 : i64} : tensor<4x8xf32>, tensor<4x8xf32> -> tensor<4x16xf32>
  return %0 : tensor<4x16xf32>
}

// -----

func.func @concat_input_rank(%a: tensor<4x8xf32>, %b: tensor<4x8x1xf32>) -> tensor<4x16xf32> {
  // expected-error @+1 {{'train.concat' op expected input 1 of rank 2, got 4x8x1}}
  %0 = train.concat %a, %b {axis = 1 : i64} : tensor<4x8xf32>, tensor<4x8x1xf32> -> tensor<4x16xf32>
  return %0 : tensor<4x16xf32>
}

// -----

// The input 1 here has 8 along the axis, as much as the inputs before it: the
// message prints the running concatenated size in the axis position, which
// only coincides with the actual input shape in this case.
func.func @concat_input_shape(%a: tensor<4x8xf32>, %b: tensor<2x8xf32>) -> tensor<6x8xf32> {
  // expected-error @+1 {{'train.concat' op expected input 1 (any size along axis 1) of shape 4x8, got 2x8}}
  %0 = train.concat %a, %b {axis = -1 : i64} : tensor<4x8xf32>, tensor<2x8xf32> -> tensor<6x8xf32>
  return %0 : tensor<6x8xf32>
}

// -----

func.func @concat_input_type(%a: tensor<4x8xf32>, %b: tensor<4x8xbf16>) -> tensor<4x16xf32> {
  // expected-error @+1 {{'train.concat' op expected input 1 element type 'f32', got 'bf16'}}
  %0 = train.concat %a, %b {axis = 1 : i64} : tensor<4x8xf32>, tensor<4x8xbf16> -> tensor<4x16xf32>
  return %0 : tensor<4x16xf32>
}

// -----

func.func @concat_result_shape(%a: tensor<4x8xf32>, %b: tensor<4x4xf32>) -> tensor<4x16xf32> {
  // expected-error @+1 {{'train.concat' op expected result of shape 4x12, got 4x16}}
  %0 = train.concat %a, %b {axis = 1 : i64} : tensor<4x8xf32>, tensor<4x4xf32> -> tensor<4x16xf32>
  return %0 : tensor<4x16xf32>
}

// -----

func.func @concat_result_type(%a: tensor<4x8xi64>, %b: tensor<4x8xi64>) -> tensor<8x8xi32> {
  // expected-error @+1 {{'train.concat' op expected result element type 'i64', got 'i32'}}
  %0 = train.concat %a, %b {axis = 0 : i64} : tensor<4x8xi64>, tensor<4x8xi64> -> tensor<8x8xi32>
  return %0 : tensor<8x8xi32>
}

// -----

//===----------------------------------------------------------------------===//
// Convolutional networks
//===----------------------------------------------------------------------===//

func.func @conv2d_input_rank(%x: tensor<3x8x8xf32>, %w: tensor<4x3x3x3xf32>) -> tensor<1x4x6x6xf32> {
  // expected-error @+1 {{'train.conv2d' op expected input of rank 4, got rank 3 (3x8x8)}}
  %0 = train.conv2d %x, %w : tensor<3x8x8xf32>, tensor<4x3x3x3xf32> -> tensor<1x4x6x6xf32>
  return %0 : tensor<1x4x6x6xf32>
}

// -----

func.func @conv2d_filter_rank(%x: tensor<1x3x8x8xf32>, %w: tensor<4x27xf32>) -> tensor<1x4x6x6xf32> {
  // expected-error @+1 {{'train.conv2d' op expected filter of rank 4, got rank 2 (4x27)}}
  %0 = train.conv2d %x, %w : tensor<1x3x8x8xf32>, tensor<4x27xf32> -> tensor<1x4x6x6xf32>
  return %0 : tensor<1x4x6x6xf32>
}

// -----

func.func @conv2d_strides_count(%x: tensor<1x3x8x8xf32>, %w: tensor<4x3x3x3xf32>) -> tensor<1x4x6x6xf32> {
  // expected-error @+1 {{'train.conv2d' op expected 2 strides values, got 1}}
  %0 = train.conv2d %x, %w {strides = array<i64: 1>} : tensor<1x3x8x8xf32>, tensor<4x3x3x3xf32> -> tensor<1x4x6x6xf32>
  return %0 : tensor<1x4x6x6xf32>
}

// -----

func.func @conv2d_zero_stride(%x: tensor<1x3x8x8xf32>, %w: tensor<4x3x3x3xf32>) -> tensor<1x4x6x6xf32> {
  // expected-error @+1 {{'train.conv2d' op expected every strides value >= 1, got 0}}
  %0 = train.conv2d %x, %w {strides = array<i64: 1, 0>} : tensor<1x3x8x8xf32>, tensor<4x3x3x3xf32> -> tensor<1x4x6x6xf32>
  return %0 : tensor<1x4x6x6xf32>
}

// -----

func.func @conv2d_padding_count(%x: tensor<1x3x8x8xf32>, %w: tensor<4x3x3x3xf32>) -> tensor<1x4x8x8xf32> {
  // expected-error @+1 {{'train.conv2d' op expected 2 padding values, got 4}}
  %0 = train.conv2d %x, %w {padding = array<i64: 1, 1, 1, 1>} : tensor<1x3x8x8xf32>, tensor<4x3x3x3xf32> -> tensor<1x4x8x8xf32>
  return %0 : tensor<1x4x8x8xf32>
}

// -----

func.func @conv2d_negative_padding(%x: tensor<1x3x8x8xf32>, %w: tensor<4x3x3x3xf32>) -> tensor<1x4x6x6xf32> {
  // expected-error @+1 {{'train.conv2d' op expected every padding value >= 0, got -1}}
  %0 = train.conv2d %x, %w {padding = array<i64: -1, 0>} : tensor<1x3x8x8xf32>, tensor<4x3x3x3xf32> -> tensor<1x4x6x6xf32>
  return %0 : tensor<1x4x6x6xf32>
}

// -----

func.func @conv2d_dilation_count(%x: tensor<1x3x8x8xf32>, %w: tensor<4x3x3x3xf32>) -> tensor<1x4x6x6xf32> {
  // expected-error @+1 {{'train.conv2d' op expected 2 dilation values, got 0}}
  %0 = train.conv2d %x, %w {dilation = array<i64>} : tensor<1x3x8x8xf32>, tensor<4x3x3x3xf32> -> tensor<1x4x6x6xf32>
  return %0 : tensor<1x4x6x6xf32>
}

// -----

func.func @conv2d_zero_dilation(%x: tensor<1x3x8x8xf32>, %w: tensor<4x3x3x3xf32>) -> tensor<1x4x6x6xf32> {
  // expected-error @+1 {{'train.conv2d' op expected every dilation value >= 1, got 0}}
  %0 = train.conv2d %x, %w {dilation = array<i64: 0, 1>} : tensor<1x3x8x8xf32>, tensor<4x3x3x3xf32> -> tensor<1x4x6x6xf32>
  return %0 : tensor<1x4x6x6xf32>
}

// -----

func.func @conv2d_zero_groups(%x: tensor<1x3x8x8xf32>, %w: tensor<4x3x3x3xf32>) -> tensor<1x4x6x6xf32> {
  // expected-error @+1 {{'train.conv2d' op expected groups >= 1, got 0}}
  %0 = train.conv2d %x, %w {groups = 0 : i64} : tensor<1x3x8x8xf32>, tensor<4x3x3x3xf32> -> tensor<1x4x6x6xf32>
  return %0 : tensor<1x4x6x6xf32>
}

// -----

func.func @conv2d_input_channels_not_divisible(%x: tensor<1x6x8x8xf32>, %w: tensor<8x3x3x3xf32>) -> tensor<1x8x6x6xf32> {
  // expected-error @+1 {{'train.conv2d' op expected input channels (6) and output channels (8) divisible by groups (4)}}
  %0 = train.conv2d %x, %w {groups = 4 : i64} : tensor<1x6x8x8xf32>, tensor<8x3x3x3xf32> -> tensor<1x8x6x6xf32>
  return %0 : tensor<1x8x6x6xf32>
}

// -----

func.func @conv2d_output_channels_not_divisible(%x: tensor<1x6x8x8xf32>, %w: tensor<4x3x3x3xf32>) -> tensor<1x4x6x6xf32> {
  // expected-error @+1 {{'train.conv2d' op expected input channels (6) and output channels (4) divisible by groups (3)}}
  %0 = train.conv2d %x, %w {groups = 3 : i64} : tensor<1x6x8x8xf32>, tensor<4x3x3x3xf32> -> tensor<1x4x6x6xf32>
  return %0 : tensor<1x4x6x6xf32>
}

// -----

func.func @conv2d_filter_channels(%x: tensor<1x6x8x8xf32>, %w: tensor<4x6x3x3xf32>) -> tensor<1x4x6x6xf32> {
  // expected-error @+1 {{'train.conv2d' op expected filter of shape 4x3x3x3 (input channels / groups), got 4x6x3x3}}
  %0 = train.conv2d %x, %w {groups = 2 : i64} : tensor<1x6x8x8xf32>, tensor<4x6x3x3xf32> -> tensor<1x4x6x6xf32>
  return %0 : tensor<1x4x6x6xf32>
}

// -----

func.func @conv2d_filter_does_not_fit(%x: tensor<1x3x4x4xf32>, %w: tensor<4x3x3x3xf32>) -> tensor<1x4x1x1xf32> {
  // expected-error @+1 {{'train.conv2d' op filter 4x3x3x3 does not fit the padded input 1x3x4x4}}
  %0 = train.conv2d %x, %w {dilation = array<i64: 2, 2>} : tensor<1x3x4x4xf32>, tensor<4x3x3x3xf32> -> tensor<1x4x1x1xf32>
  return %0 : tensor<1x4x1x1xf32>
}

// -----

func.func @conv2d_result_shape(%x: tensor<2x3x32x32xf32>, %w: tensor<64x3x3x3xf32>) -> tensor<2x64x32x32xf32> {
  // expected-error @+1 {{'train.conv2d' op expected result of shape 2x64x16x16, got 2x64x32x32}}
  %0 = train.conv2d %x, %w {strides = array<i64: 2, 2>, padding = array<i64: 1, 1>} : tensor<2x3x32x32xf32>, tensor<64x3x3x3xf32> -> tensor<2x64x32x32xf32>
  return %0 : tensor<2x64x32x32xf32>
}

// -----

func.func @conv2d_filter_type(%x: tensor<1x3x8x8xbf16>, %w: tensor<4x3x3x3xf32>) -> tensor<1x4x6x6xbf16> {
  // expected-error @+1 {{'train.conv2d' op expected filter element type 'bf16', got 'f32'}}
  %0 = train.conv2d %x, %w : tensor<1x3x8x8xbf16>, tensor<4x3x3x3xf32> -> tensor<1x4x6x6xbf16>
  return %0 : tensor<1x4x6x6xbf16>
}

// -----

func.func @conv2d_result_type(%x: tensor<1x3x8x8xbf16>, %w: tensor<4x3x3x3xbf16>) -> tensor<1x4x6x6xf32> {
  // expected-error @+1 {{'train.conv2d' op expected result element type 'bf16', got 'f32'}}
  %0 = train.conv2d %x, %w : tensor<1x3x8x8xbf16>, tensor<4x3x3x3xbf16> -> tensor<1x4x6x6xf32>
  return %0 : tensor<1x4x6x6xf32>
}

// -----

// conv2d_grad_input: the result is the convolution input; `grad` is checked
// as the convolution output.
func.func @conv2d_grad_input_result_rank(%dy: tensor<1x4x6x6xf32>, %w: tensor<4x3x3x3xf32>) -> tensor<3x8x8xf32> {
  // expected-error @+1 {{'train.conv2d_grad_input' op expected result of rank 4, got rank 3 (3x8x8)}}
  %0 = train.conv2d_grad_input %dy, %w : tensor<1x4x6x6xf32>, tensor<4x3x3x3xf32> -> tensor<3x8x8xf32>
  return %0 : tensor<3x8x8xf32>
}

// -----

func.func @conv2d_grad_input_filter_rank(%dy: tensor<1x4x6x6xf32>, %w: tensor<4x3x9xf32>) -> tensor<1x3x8x8xf32> {
  // expected-error @+1 {{'train.conv2d_grad_input' op expected filter of rank 4, got rank 3 (4x3x9)}}
  %0 = train.conv2d_grad_input %dy, %w : tensor<1x4x6x6xf32>, tensor<4x3x9xf32> -> tensor<1x3x8x8xf32>
  return %0 : tensor<1x3x8x8xf32>
}

// -----

func.func @conv2d_grad_input_filter_does_not_fit(%dy: tensor<1x4x1x1xf32>, %w: tensor<4x3x3x3xf32>) -> tensor<1x3x2x2xf32> {
  // expected-error @+1 {{'train.conv2d_grad_input' op filter 4x3x3x3 does not fit the padded result 1x3x2x2}}
  %0 = train.conv2d_grad_input %dy, %w : tensor<1x4x1x1xf32>, tensor<4x3x3x3xf32> -> tensor<1x3x2x2xf32>
  return %0 : tensor<1x3x2x2xf32>
}

// -----

func.func @conv2d_grad_input_result_channels(%dy: tensor<1x4x6x6xf32>, %w: tensor<4x3x3x3xf32>) -> tensor<1x5x8x8xf32> {
  // expected-error @+1 {{'train.conv2d_grad_input' op expected filter of shape 4x5x3x3 (input channels / groups), got 4x3x3x3}}
  %0 = train.conv2d_grad_input %dy, %w : tensor<1x4x6x6xf32>, tensor<4x3x3x3xf32> -> tensor<1x5x8x8xf32>
  return %0 : tensor<1x5x8x8xf32>
}

// -----

func.func @conv2d_grad_input_grad_shape(%dy: tensor<2x64x16x16xf32>, %w: tensor<64x3x3x3xf32>) -> tensor<2x3x32x32xf32> {
  // expected-error @+1 {{'train.conv2d_grad_input' op expected grad of shape 2x64x32x32, got 2x64x16x16}}
  %0 = train.conv2d_grad_input %dy, %w {padding = array<i64: 1, 1>} : tensor<2x64x16x16xf32>, tensor<64x3x3x3xf32> -> tensor<2x3x32x32xf32>
  return %0 : tensor<2x3x32x32xf32>
}

// -----

func.func @conv2d_grad_input_filter_type(%dy: tensor<1x4x6x6xbf16>, %w: tensor<4x3x3x3xbf16>) -> tensor<1x3x8x8xf32> {
  // expected-error @+1 {{'train.conv2d_grad_input' op expected filter element type 'f32', got 'bf16'}}
  %0 = train.conv2d_grad_input %dy, %w : tensor<1x4x6x6xbf16>, tensor<4x3x3x3xbf16> -> tensor<1x3x8x8xf32>
  return %0 : tensor<1x3x8x8xf32>
}

// -----

func.func @conv2d_grad_input_grad_type(%dy: tensor<1x4x6x6xbf16>, %w: tensor<4x3x3x3xf32>) -> tensor<1x3x8x8xf32> {
  // expected-error @+1 {{'train.conv2d_grad_input' op expected grad element type 'f32', got 'bf16'}}
  %0 = train.conv2d_grad_input %dy, %w : tensor<1x4x6x6xbf16>, tensor<4x3x3x3xf32> -> tensor<1x3x8x8xf32>
  return %0 : tensor<1x3x8x8xf32>
}

// -----

func.func @conv2d_grad_input_groups(%dy: tensor<1x4x6x6xf32>, %w: tensor<4x3x3x3xf32>) -> tensor<1x3x8x8xf32> {
  // expected-error @+1 {{'train.conv2d_grad_input' op expected input channels (3) and output channels (4) divisible by groups (2)}}
  %0 = train.conv2d_grad_input %dy, %w {groups = 2 : i64} : tensor<1x4x6x6xf32>, tensor<4x3x3x3xf32> -> tensor<1x3x8x8xf32>
  return %0 : tensor<1x3x8x8xf32>
}

// -----

// conv2d_grad_filter: the result is the filter; `grad` is checked as the
// convolution output.
func.func @conv2d_grad_filter_result_rank(%dy: tensor<1x4x6x6xf32>, %x: tensor<1x3x8x8xf32>) -> tensor<4x27xf32> {
  // expected-error @+1 {{'train.conv2d_grad_filter' op expected result of rank 4, got rank 2 (4x27)}}
  %0 = train.conv2d_grad_filter %dy, %x : tensor<1x4x6x6xf32>, tensor<1x3x8x8xf32> -> tensor<4x27xf32>
  return %0 : tensor<4x27xf32>
}

// -----

func.func @conv2d_grad_filter_result_shape(%dy: tensor<1x4x6x6xf32>, %x: tensor<1x3x8x8xf32>) -> tensor<4x1x3x3xf32> {
  // expected-error @+1 {{'train.conv2d_grad_filter' op expected result of shape 4x3x3x3 (input channels / groups), got 4x1x3x3}}
  %0 = train.conv2d_grad_filter %dy, %x : tensor<1x4x6x6xf32>, tensor<1x3x8x8xf32> -> tensor<4x1x3x3xf32>
  return %0 : tensor<4x1x3x3xf32>
}

// -----

func.func @conv2d_grad_filter_grad_shape(%dy: tensor<1x8x6x6xf32>, %x: tensor<1x3x8x8xf32>) -> tensor<4x3x3x3xf32> {
  // expected-error @+1 {{'train.conv2d_grad_filter' op expected grad of shape 1x4x6x6, got 1x8x6x6}}
  %0 = train.conv2d_grad_filter %dy, %x : tensor<1x8x6x6xf32>, tensor<1x3x8x8xf32> -> tensor<4x3x3x3xf32>
  return %0 : tensor<4x3x3x3xf32>
}

// -----

func.func @conv2d_grad_filter_input_rank(%dy: tensor<1x4x6x6xf32>, %x: tensor<3x8x8xf32>) -> tensor<4x3x3x3xf32> {
  // expected-error @+1 {{'train.conv2d_grad_filter' op expected input of rank 4, got rank 3 (3x8x8)}}
  %0 = train.conv2d_grad_filter %dy, %x : tensor<1x4x6x6xf32>, tensor<3x8x8xf32> -> tensor<4x3x3x3xf32>
  return %0 : tensor<4x3x3x3xf32>
}

// -----

func.func @conv2d_grad_filter_result_type(%dy: tensor<1x4x6x6xbf16>, %x: tensor<1x3x8x8xbf16>) -> tensor<4x3x3x3xf32> {
  // expected-error @+1 {{'train.conv2d_grad_filter' op expected result element type 'bf16', got 'f32'}}
  %0 = train.conv2d_grad_filter %dy, %x : tensor<1x4x6x6xbf16>, tensor<1x3x8x8xbf16> -> tensor<4x3x3x3xf32>
  return %0 : tensor<4x3x3x3xf32>
}

// -----

func.func @conv2d_grad_filter_grad_type(%dy: tensor<1x4x6x6xf32>, %x: tensor<1x3x8x8xbf16>) -> tensor<4x3x3x3xbf16> {
  // expected-error @+1 {{'train.conv2d_grad_filter' op expected grad element type 'bf16', got 'f32'}}
  %0 = train.conv2d_grad_filter %dy, %x : tensor<1x4x6x6xf32>, tensor<1x3x8x8xbf16> -> tensor<4x3x3x3xbf16>
  return %0 : tensor<4x3x3x3xbf16>
}

// -----

func.func @conv2d_grad_filter_stride(%dy: tensor<1x4x6x6xf32>, %x: tensor<1x3x8x8xf32>) -> tensor<4x3x3x3xf32> {
  // expected-error @+1 {{'train.conv2d_grad_filter' op expected every strides value >= 1, got -2}}
  %0 = train.conv2d_grad_filter %dy, %x {strides = array<i64: -2, 1>} : tensor<1x4x6x6xf32>, tensor<1x3x8x8xf32> -> tensor<4x3x3x3xf32>
  return %0 : tensor<4x3x3x3xf32>
}

// -----

func.func @max_pool2d_input_rank(%x: tensor<64x32x32xf32>) -> tensor<64x16x16xf32> {
  // expected-error @+1 {{'train.max_pool2d' op expected input of rank 4, got rank 3 (64x32x32)}}
  %0 = train.max_pool2d %x {kernel = array<i64: 2, 2>, strides = array<i64: 2, 2>} : tensor<64x32x32xf32> -> tensor<64x16x16xf32>
  return %0 : tensor<64x16x16xf32>
}

// -----

func.func @max_pool2d_kernel_count(%x: tensor<1x4x8x8xf32>) -> tensor<1x4x4x4xf32> {
  // expected-error @+1 {{'train.max_pool2d' op expected 2 kernel values, got 1}}
  %0 = train.max_pool2d %x {kernel = array<i64: 2>, strides = array<i64: 2, 2>} : tensor<1x4x8x8xf32> -> tensor<1x4x4x4xf32>
  return %0 : tensor<1x4x4x4xf32>
}

// -----

func.func @max_pool2d_zero_kernel(%x: tensor<1x4x8x8xf32>) -> tensor<1x4x4x4xf32> {
  // expected-error @+1 {{'train.max_pool2d' op expected every kernel value >= 1, got 0}}
  %0 = train.max_pool2d %x {kernel = array<i64: 2, 0>, strides = array<i64: 2, 2>} : tensor<1x4x8x8xf32> -> tensor<1x4x4x4xf32>
  return %0 : tensor<1x4x4x4xf32>
}

// -----

func.func @max_pool2d_strides_count(%x: tensor<1x4x8x8xf32>) -> tensor<1x4x4x4xf32> {
  // expected-error @+1 {{'train.max_pool2d' op expected 2 strides values, got 3}}
  %0 = train.max_pool2d %x {kernel = array<i64: 2, 2>, strides = array<i64: 2, 2, 2>} : tensor<1x4x8x8xf32> -> tensor<1x4x4x4xf32>
  return %0 : tensor<1x4x4x4xf32>
}

// -----

func.func @max_pool2d_zero_stride(%x: tensor<1x4x8x8xf32>) -> tensor<1x4x4x4xf32> {
  // expected-error @+1 {{'train.max_pool2d' op expected every strides value >= 1, got 0}}
  %0 = train.max_pool2d %x {kernel = array<i64: 2, 2>, strides = array<i64: 0, 2>} : tensor<1x4x8x8xf32> -> tensor<1x4x4x4xf32>
  return %0 : tensor<1x4x4x4xf32>
}

// -----

func.func @max_pool2d_padding_count(%x: tensor<1x4x8x8xf32>) -> tensor<1x4x4x4xf32> {
  // expected-error @+1 {{'train.max_pool2d' op expected 2 padding values, got 1}}
  %0 = train.max_pool2d %x {kernel = array<i64: 2, 2>, strides = array<i64: 2, 2>, padding = array<i64: 1>} : tensor<1x4x8x8xf32> -> tensor<1x4x4x4xf32>
  return %0 : tensor<1x4x4x4xf32>
}

// -----

func.func @max_pool2d_negative_padding(%x: tensor<1x4x8x8xf32>) -> tensor<1x4x4x4xf32> {
  // expected-error @+1 {{'train.max_pool2d' op expected every padding value >= 0, got -1}}
  %0 = train.max_pool2d %x {kernel = array<i64: 2, 2>, strides = array<i64: 2, 2>, padding = array<i64: 0, -1>} : tensor<1x4x8x8xf32> -> tensor<1x4x4x4xf32>
  return %0 : tensor<1x4x4x4xf32>
}

// -----

func.func @max_pool2d_padding_over_half_kernel(%x: tensor<1x4x8x8xf32>) -> tensor<1x4x5x5xf32> {
  // expected-error @+1 {{'train.max_pool2d' op expected padding at most half the kernel, got padding 2 for kernel 3}}
  %0 = train.max_pool2d %x {kernel = array<i64: 3, 3>, strides = array<i64: 2, 2>, padding = array<i64: 2, 2>} : tensor<1x4x8x8xf32> -> tensor<1x4x5x5xf32>
  return %0 : tensor<1x4x5x5xf32>
}

// -----

func.func @max_pool2d_kernel_does_not_fit(%x: tensor<1x4x2x8xf32>) -> tensor<1x4x1x2xf32> {
  // expected-error @+1 {{'train.max_pool2d' op kernel 5x4 does not fit the padded input 1x4x2x8}}
  %0 = train.max_pool2d %x {kernel = array<i64: 5, 4>, strides = array<i64: 4, 4>, padding = array<i64: 1, 0>} : tensor<1x4x2x8xf32> -> tensor<1x4x1x2xf32>
  return %0 : tensor<1x4x1x2xf32>
}

// -----

func.func @max_pool2d_result_shape(%x: tensor<2x64x32x32xf32>) -> tensor<2x64x32x32xf32> {
  // expected-error @+1 {{'train.max_pool2d' op expected result of shape 2x64x16x16, got 2x64x32x32}}
  %0 = train.max_pool2d %x {kernel = array<i64: 2, 2>, strides = array<i64: 2, 2>} : tensor<2x64x32x32xf32> -> tensor<2x64x32x32xf32>
  return %0 : tensor<2x64x32x32xf32>
}

// -----

func.func @max_pool2d_result_type(%x: tensor<2x64x32x32xf32>) -> tensor<2x64x16x16xbf16> {
  // expected-error @+1 {{'train.max_pool2d' op expected result element type 'f32', got 'bf16'}}
  %0 = train.max_pool2d %x {kernel = array<i64: 2, 2>, strides = array<i64: 2, 2>} : tensor<2x64x32x32xf32> -> tensor<2x64x16x16xbf16>
  return %0 : tensor<2x64x16x16xbf16>
}

// -----

func.func @max_pool2d_missing_kernel(%x: tensor<2x64x32x32xf32>) -> tensor<2x64x32x32xf32> {
  // expected-error @+1 {{requires attribute 'kernel'}}
  %0 = train.max_pool2d %x : tensor<2x64x32x32xf32> -> tensor<2x64x32x32xf32>
  return %0 : tensor<2x64x32x32xf32>
}

// -----

func.func @avg_pool2d_result_shape(%x: tensor<2x2048x7x7xf32>) -> tensor<2x2048x7x7xf32> {
  // expected-error @+1 {{'train.avg_pool2d' op expected result of shape 2x2048x1x1, got 2x2048x7x7}}
  %0 = train.avg_pool2d %x {kernel = array<i64: 7, 7>} : tensor<2x2048x7x7xf32> -> tensor<2x2048x7x7xf32>
  return %0 : tensor<2x2048x7x7xf32>
}

// -----

func.func @avg_pool2d_padding_over_half_kernel(%x: tensor<1x4x8x8xf32>) -> tensor<1x4x9x8xf32> {
  // expected-error @+1 {{'train.avg_pool2d' op expected padding at most half the kernel, got padding 1 for kernel 1}}
  %0 = train.avg_pool2d %x {kernel = array<i64: 1, 1>, padding = array<i64: 1, 0>} : tensor<1x4x8x8xf32> -> tensor<1x4x9x8xf32>
  return %0 : tensor<1x4x9x8xf32>
}

// -----

func.func @avg_pool2d_input_rank(%x: tensor<4x8x8xf32>) -> tensor<4x4x4xf32> {
  // expected-error @+1 {{'train.avg_pool2d' op expected input of rank 4, got rank 3 (4x8x8)}}
  %0 = train.avg_pool2d %x {kernel = array<i64: 2, 2>, strides = array<i64: 2, 2>} : tensor<4x8x8xf32> -> tensor<4x4x4xf32>
  return %0 : tensor<4x4x4xf32>
}

// -----

func.func @avg_pool2d_result_type(%x: tensor<1x4x8x8xbf16>) -> tensor<1x4x4x4xf32> {
  // expected-error @+1 {{'train.avg_pool2d' op expected result element type 'bf16', got 'f32'}}
  %0 = train.avg_pool2d %x {kernel = array<i64: 2, 2>, strides = array<i64: 2, 2>} : tensor<1x4x8x8xbf16> -> tensor<1x4x4x4xf32>
  return %0 : tensor<1x4x4x4xf32>
}

// -----

func.func @upsample_nearest2d_input_rank(%x: tensor<128x16x16xf32>) -> tensor<128x32x32xf32> {
  // expected-error @+1 {{'train.upsample_nearest2d' op expected input of rank 4, got rank 3 (128x16x16)}}
  %0 = train.upsample_nearest2d %x {scale = 2 : i64} : tensor<128x16x16xf32> -> tensor<128x32x32xf32>
  return %0 : tensor<128x32x32xf32>
}

// -----

func.func @upsample_nearest2d_scale(%x: tensor<2x8x16x16xf32>) -> tensor<2x8x16x16xf32> {
  // expected-error @+1 {{'train.upsample_nearest2d' op expected scale >= 1, got 0}}
  %0 = train.upsample_nearest2d %x {scale = 0 : i64} : tensor<2x8x16x16xf32> -> tensor<2x8x16x16xf32>
  return %0 : tensor<2x8x16x16xf32>
}

// -----

func.func @upsample_nearest2d_result_shape(%x: tensor<2x8x16x16xf32>) -> tensor<2x8x32x16xf32> {
  // expected-error @+1 {{'train.upsample_nearest2d' op expected result of shape 2x8x32x32, got 2x8x32x16}}
  %0 = train.upsample_nearest2d %x {scale = 2 : i64} : tensor<2x8x16x16xf32> -> tensor<2x8x32x16xf32>
  return %0 : tensor<2x8x32x16xf32>
}

// -----

func.func @upsample_nearest2d_result_type(%x: tensor<2x8x16x16xf32>) -> tensor<2x8x32x32xf16> {
  // expected-error @+1 {{'train.upsample_nearest2d' op expected result element type 'f32', got 'f16'}}
  %0 = train.upsample_nearest2d %x {scale = 2 : i64} : tensor<2x8x16x16xf32> -> tensor<2x8x32x32xf16>
  return %0 : tensor<2x8x32x32xf16>
}

// -----

//===----------------------------------------------------------------------===//
// Gradient ops
//===----------------------------------------------------------------------===//

func.func @relu_grad_saved_shape(%g: tensor<4x8xf32>, %s: tensor<8x4xf32>) -> tensor<4x8xf32> {
  // expected-error @+1 {{'train.relu_grad' op expected saved of shape 4x8, got 8x4}}
  %0 = train.relu_grad %g, %s : tensor<4x8xf32>, tensor<8x4xf32> -> tensor<4x8xf32>
  return %0 : tensor<4x8xf32>
}

// -----

func.func @relu_grad_saved_type(%g: tensor<4x8xf32>, %s: tensor<4x8xbf16>) -> tensor<4x8xf32> {
  // expected-error @+1 {{'train.relu_grad' op expected saved element type 'f32', got 'bf16'}}
  %0 = train.relu_grad %g, %s : tensor<4x8xf32>, tensor<4x8xbf16> -> tensor<4x8xf32>
  return %0 : tensor<4x8xf32>
}

// -----

func.func @relu_grad_result_shape(%g: tensor<4x8xf32>) -> tensor<4x4xf32> {
  // expected-error @+1 {{'train.relu_grad' op expected result of shape 4x8, got 4x4}}
  %0 = "train.relu_grad"(%g, %g) : (tensor<4x8xf32>, tensor<4x8xf32>) -> tensor<4x4xf32>
  return %0 : tensor<4x4xf32>
}

// -----

func.func @relu_grad_result_type(%g: tensor<4x8xf32>, %s: tensor<4x8xf32>) -> tensor<4x8xf16> {
  // expected-error @+1 {{'train.relu_grad' op expected result element type 'f32', got 'f16'}}
  %0 = train.relu_grad %g, %s : tensor<4x8xf32>, tensor<4x8xf32> -> tensor<4x8xf16>
  return %0 : tensor<4x8xf16>
}

// -----

func.func @gelu_grad_result_type(%g: tensor<4x8xf32>, %s: tensor<4x8xf32>) -> tensor<4x8xbf16> {
  // expected-error @+1 {{'train.gelu_grad' op expected result element type 'f32', got 'bf16'}}
  %0 = train.gelu_grad %g, %s {approximate} : tensor<4x8xf32>, tensor<4x8xf32> -> tensor<4x8xbf16>
  return %0 : tensor<4x8xbf16>
}

// -----

func.func @gelu_grad_saved_shape(%g: tensor<4x8xf32>, %s: tensor<4xf32>) -> tensor<4x8xf32> {
  // expected-error @+1 {{'train.gelu_grad' op expected saved of shape 4x8, got 4}}
  %0 = train.gelu_grad %g, %s : tensor<4x8xf32>, tensor<4xf32> -> tensor<4x8xf32>
  return %0 : tensor<4x8xf32>
}

// -----

func.func @silu_grad_saved_type(%g: tensor<4x8xbf16>, %s: tensor<4x8xf32>) -> tensor<4x8xbf16> {
  // expected-error @+1 {{'train.silu_grad' op expected saved element type 'bf16', got 'f32'}}
  %0 = train.silu_grad %g, %s : tensor<4x8xbf16>, tensor<4x8xf32> -> tensor<4x8xbf16>
  return %0 : tensor<4x8xbf16>
}

// -----

func.func @silu_grad_result_shape(%g: tensor<4x8xf32>, %s: tensor<4x8xf32>) -> tensor<32xf32> {
  // expected-error @+1 {{'train.silu_grad' op expected result of shape 4x8, got 32}}
  %0 = train.silu_grad %g, %s : tensor<4x8xf32>, tensor<4x8xf32> -> tensor<32xf32>
  return %0 : tensor<32xf32>
}

// -----

func.func @swiglu_grad_gate_shape(%g: tensor<4x8xf32>, %a: tensor<4x4xf32>, %u: tensor<4x8xf32>) {
  // expected-error @+1 {{'train.swiglu_grad' op expected gate of shape 4x8, got 4x4}}
  %dg, %du = train.swiglu_grad %g, %a, %u : tensor<4x8xf32>, tensor<4x4xf32>, tensor<4x8xf32> -> tensor<4x8xf32>, tensor<4x8xf32>
  return
}

// -----

func.func @swiglu_grad_gate_type(%g: tensor<4x8xf32>, %a: tensor<4x8xbf16>, %u: tensor<4x8xf32>) {
  // expected-error @+1 {{'train.swiglu_grad' op expected gate element type 'f32', got 'bf16'}}
  %dg, %du = train.swiglu_grad %g, %a, %u : tensor<4x8xf32>, tensor<4x8xbf16>, tensor<4x8xf32> -> tensor<4x8xf32>, tensor<4x8xf32>
  return
}

// -----

func.func @swiglu_grad_up_shape(%g: tensor<4x8xf32>, %a: tensor<4x8xf32>, %u: tensor<8x8xf32>) {
  // expected-error @+1 {{'train.swiglu_grad' op expected up of shape 4x8, got 8x8}}
  %dg, %du = train.swiglu_grad %g, %a, %u : tensor<4x8xf32>, tensor<4x8xf32>, tensor<8x8xf32> -> tensor<4x8xf32>, tensor<4x8xf32>
  return
}

// -----

func.func @swiglu_grad_up_type(%g: tensor<4x8xf32>, %a: tensor<4x8xf32>, %u: tensor<4x8xf16>) {
  // expected-error @+1 {{'train.swiglu_grad' op expected up element type 'f32', got 'f16'}}
  %dg, %du = train.swiglu_grad %g, %a, %u : tensor<4x8xf32>, tensor<4x8xf32>, tensor<4x8xf16> -> tensor<4x8xf32>, tensor<4x8xf32>
  return
}

// -----

func.func @swiglu_grad_grad_gate_shape(%g: tensor<4x8xf32>, %a: tensor<4x8xf32>, %u: tensor<4x8xf32>) {
  // expected-error @+1 {{'train.swiglu_grad' op expected grad_gate of shape 4x8, got 4x16}}
  %dg, %du = train.swiglu_grad %g, %a, %u : tensor<4x8xf32>, tensor<4x8xf32>, tensor<4x8xf32> -> tensor<4x16xf32>, tensor<4x8xf32>
  return
}

// -----

func.func @swiglu_grad_grad_gate_type(%g: tensor<4x8xf32>, %a: tensor<4x8xf32>, %u: tensor<4x8xf32>) {
  // expected-error @+1 {{'train.swiglu_grad' op expected grad_gate element type 'f32', got 'bf16'}}
  %dg, %du = train.swiglu_grad %g, %a, %u : tensor<4x8xf32>, tensor<4x8xf32>, tensor<4x8xf32> -> tensor<4x8xbf16>, tensor<4x8xf32>
  return
}

// -----

func.func @swiglu_grad_grad_up_shape(%g: tensor<4x8xf32>, %a: tensor<4x8xf32>, %u: tensor<4x8xf32>) {
  // expected-error @+1 {{'train.swiglu_grad' op expected grad_up of shape 4x8, got 8x4}}
  %dg, %du = train.swiglu_grad %g, %a, %u : tensor<4x8xf32>, tensor<4x8xf32>, tensor<4x8xf32> -> tensor<4x8xf32>, tensor<8x4xf32>
  return
}

// -----

func.func @swiglu_grad_grad_up_type(%g: tensor<4x8xf32>, %a: tensor<4x8xf32>, %u: tensor<4x8xf32>) {
  // expected-error @+1 {{'train.swiglu_grad' op expected grad_up element type 'f32', got 'f16'}}
  %dg, %du = train.swiglu_grad %g, %a, %u : tensor<4x8xf32>, tensor<4x8xf32>, tensor<4x8xf32> -> tensor<4x8xf32>, tensor<4x8xf16>
  return
}

// -----

func.func @softmax_grad_output_shape(%g: tensor<4x8xf32>, %y: tensor<4x4xf32>) -> tensor<4x8xf32> {
  // expected-error @+1 {{'train.softmax_grad' op expected output of shape 4x8, got 4x4}}
  %0 = train.softmax_grad %g, %y : tensor<4x8xf32>, tensor<4x4xf32> -> tensor<4x8xf32>
  return %0 : tensor<4x8xf32>
}

// -----

func.func @softmax_grad_output_type(%g: tensor<4x8xf32>, %y: tensor<4x8xbf16>) -> tensor<4x8xf32> {
  // expected-error @+1 {{'train.softmax_grad' op expected output element type 'f32', got 'bf16'}}
  %0 = train.softmax_grad %g, %y : tensor<4x8xf32>, tensor<4x8xbf16> -> tensor<4x8xf32>
  return %0 : tensor<4x8xf32>
}

// -----

func.func @softmax_grad_result_shape(%g: tensor<4x8xf32>) -> tensor<8x4xf32> {
  // expected-error @+1 {{'train.softmax_grad' op expected result of shape 4x8, got 8x4}}
  %0 = "train.softmax_grad"(%g, %g) : (tensor<4x8xf32>, tensor<4x8xf32>) -> tensor<8x4xf32>
  return %0 : tensor<8x4xf32>
}

// -----

func.func @softmax_grad_result_type(%g: tensor<4x8xf32>, %y: tensor<4x8xf32>) -> tensor<4x8xbf16> {
  // expected-error @+1 {{'train.softmax_grad' op expected result element type 'f32', got 'bf16'}}
  %0 = train.softmax_grad %g, %y : tensor<4x8xf32>, tensor<4x8xf32> -> tensor<4x8xbf16>
  return %0 : tensor<4x8xbf16>
}

// -----

func.func @softmax_grad_scalar(%g: tensor<f32>) -> tensor<f32> {
  // expected-error @+1 {{'train.softmax_grad' op expected input of rank >= 1, got rank 0 (scalar)}}
  %0 = train.softmax_grad %g, %g : tensor<f32>
  return %0 : tensor<f32>
}

// -----

func.func @softmax_grad_axis(%g: tensor<4x8xf32>) -> tensor<4x8xf32> {
  // expected-error @+1 {{'train.softmax_grad' op axis -3 is out of range for rank 2}}
  %0 = train.softmax_grad %g, %g {axis = -3 : i64} : tensor<4x8xf32>
  return %0 : tensor<4x8xf32>
}

// -----

func.func @softmax_grad_scale(%g: tensor<4x8xf32>) -> tensor<4x8xf32> {
  // expected-error @+1 {{'train.softmax_grad' op expected scale > 0, got -1.000000e+00}}
  %0 = train.softmax_grad %g, %g {scale = -1.0 : f64} : tensor<4x8xf32>
  return %0 : tensor<4x8xf32>
}

// -----

func.func @layer_norm_grad_input_shape(%dy: tensor<4x8xf32>, %x: tensor<8x8xf32>, %g: tensor<8xf32>, %m: tensor<4xf32>, %r: tensor<4xf32>) {
  // expected-error @+1 {{'train.layer_norm_grad' op expected input of shape 4x8, got 8x8}}
  %dx, %dg, %db = train.layer_norm_grad %dy, %x, %g, %m, %r : tensor<4x8xf32>, tensor<8x8xf32>, tensor<8xf32>, tensor<4xf32>, tensor<4xf32> -> tensor<4x8xf32>, tensor<8xf32>, tensor<8xf32>
  return
}

// -----

func.func @layer_norm_grad_input_type(%dy: tensor<4x8xf32>, %x: tensor<4x8xbf16>, %g: tensor<8xf32>, %m: tensor<4xf32>, %r: tensor<4xf32>) {
  // expected-error @+1 {{'train.layer_norm_grad' op expected input element type 'f32', got 'bf16'}}
  %dx, %dg, %db = train.layer_norm_grad %dy, %x, %g, %m, %r : tensor<4x8xf32>, tensor<4x8xbf16>, tensor<8xf32>, tensor<4xf32>, tensor<4xf32> -> tensor<4x8xf32>, tensor<8xf32>, tensor<8xf32>
  return
}

// -----

func.func @layer_norm_grad_grad_input_shape(%dy: tensor<4x8xf32>, %x: tensor<4x8xf32>, %g: tensor<8xf32>, %m: tensor<4xf32>, %r: tensor<4xf32>) {
  // expected-error @+1 {{'train.layer_norm_grad' op expected grad_input of shape 4x8, got 8}}
  %dx, %dg, %db = train.layer_norm_grad %dy, %x, %g, %m, %r : tensor<4x8xf32>, tensor<4x8xf32>, tensor<8xf32>, tensor<4xf32>, tensor<4xf32> -> tensor<8xf32>, tensor<8xf32>, tensor<8xf32>
  return
}

// -----

func.func @layer_norm_grad_grad_input_type(%dy: tensor<4x8xf32>, %x: tensor<4x8xf32>, %g: tensor<8xf32>, %m: tensor<4xf32>, %r: tensor<4xf32>) {
  // expected-error @+1 {{'train.layer_norm_grad' op expected grad_input element type 'f32', got 'bf16'}}
  %dx, %dg, %db = train.layer_norm_grad %dy, %x, %g, %m, %r : tensor<4x8xf32>, tensor<4x8xf32>, tensor<8xf32>, tensor<4xf32>, tensor<4xf32> -> tensor<4x8xbf16>, tensor<8xf32>, tensor<8xf32>
  return
}

// -----

func.func @layer_norm_grad_scalar(%dy: tensor<f32>, %g: tensor<1xf32>) {
  // expected-error @+1 {{'train.layer_norm_grad' op expected input of rank >= 1, got rank 0 (scalar)}}
  %dx, %dg, %db = train.layer_norm_grad %dy, %dy, %g, %dy, %dy : tensor<f32>, tensor<f32>, tensor<1xf32>, tensor<f32>, tensor<f32> -> tensor<f32>, tensor<1xf32>, tensor<1xf32>
  return
}

// -----

func.func @layer_norm_grad_gamma_shape(%dy: tensor<4x8xf32>, %x: tensor<4x8xf32>, %g: tensor<4xf32>, %m: tensor<4xf32>, %r: tensor<4xf32>) {
  // expected-error @+1 {{'train.layer_norm_grad' op expected gamma of shape 8, got 4}}
  %dx, %dg, %db = train.layer_norm_grad %dy, %x, %g, %m, %r : tensor<4x8xf32>, tensor<4x8xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32> -> tensor<4x8xf32>, tensor<8xf32>, tensor<8xf32>
  return
}

// -----

func.func @layer_norm_grad_grad_gamma_shape(%dy: tensor<4x8xf32>, %x: tensor<4x8xf32>, %g: tensor<8xf32>, %m: tensor<4xf32>, %r: tensor<4xf32>) {
  // expected-error @+1 {{'train.layer_norm_grad' op expected grad_gamma of shape 8, got 4}}
  %dx, %dg, %db = train.layer_norm_grad %dy, %x, %g, %m, %r : tensor<4x8xf32>, tensor<4x8xf32>, tensor<8xf32>, tensor<4xf32>, tensor<4xf32> -> tensor<4x8xf32>, tensor<4xf32>, tensor<8xf32>
  return
}

// -----

func.func @layer_norm_grad_grad_beta_shape(%dy: tensor<4x8xf32>, %x: tensor<4x8xf32>, %g: tensor<8xf32>, %m: tensor<4xf32>, %r: tensor<4xf32>) {
  // expected-error @+1 {{'train.layer_norm_grad' op expected grad_beta of shape 8, got 1x8}}
  %dx, %dg, %db = train.layer_norm_grad %dy, %x, %g, %m, %r : tensor<4x8xf32>, tensor<4x8xf32>, tensor<8xf32>, tensor<4xf32>, tensor<4xf32> -> tensor<4x8xf32>, tensor<8xf32>, tensor<1x8xf32>
  return
}

// -----

func.func @layer_norm_grad_mean_shape(%dy: tensor<4x8xf32>, %x: tensor<4x8xf32>, %g: tensor<8xf32>, %m: tensor<8xf32>, %r: tensor<4xf32>) {
  // expected-error @+1 {{'train.layer_norm_grad' op expected mean of shape 4, got 8}}
  %dx, %dg, %db = train.layer_norm_grad %dy, %x, %g, %m, %r : tensor<4x8xf32>, tensor<4x8xf32>, tensor<8xf32>, tensor<8xf32>, tensor<4xf32> -> tensor<4x8xf32>, tensor<8xf32>, tensor<8xf32>
  return
}

// -----

func.func @layer_norm_grad_mean_type(%dy: tensor<4x8xf32>, %x: tensor<4x8xf32>, %g: tensor<8xf32>, %m: tensor<4xf16>, %r: tensor<4xf32>) {
  // expected-error @+1 {{'train.layer_norm_grad' op expected mean element type 'f32', got 'f16'}}
  %dx, %dg, %db = train.layer_norm_grad %dy, %x, %g, %m, %r : tensor<4x8xf32>, tensor<4x8xf32>, tensor<8xf32>, tensor<4xf16>, tensor<4xf32> -> tensor<4x8xf32>, tensor<8xf32>, tensor<8xf32>
  return
}

// -----

func.func @layer_norm_grad_rstd_shape(%dy: tensor<4x8xf32>, %x: tensor<4x8xf32>, %g: tensor<8xf32>, %m: tensor<4xf32>, %r: tensor<4x8xf32>) {
  // expected-error @+1 {{'train.layer_norm_grad' op expected rstd of shape 4, got 4x8}}
  %dx, %dg, %db = train.layer_norm_grad %dy, %x, %g, %m, %r : tensor<4x8xf32>, tensor<4x8xf32>, tensor<8xf32>, tensor<4xf32>, tensor<4x8xf32> -> tensor<4x8xf32>, tensor<8xf32>, tensor<8xf32>
  return
}

// -----

func.func @layer_norm_grad_rstd_type(%dy: tensor<4x8xf32>, %x: tensor<4x8xf32>, %g: tensor<8xf32>, %m: tensor<4xf32>, %r: tensor<4xbf16>) {
  // expected-error @+1 {{'train.layer_norm_grad' op expected rstd element type 'f32', got 'bf16'}}
  %dx, %dg, %db = train.layer_norm_grad %dy, %x, %g, %m, %r : tensor<4x8xf32>, tensor<4x8xf32>, tensor<8xf32>, tensor<4xf32>, tensor<4xbf16> -> tensor<4x8xf32>, tensor<8xf32>, tensor<8xf32>
  return
}

// -----

func.func @layer_norm_grad_grad_gamma_type(%dy: tensor<4x8xf32>, %x: tensor<4x8xf32>, %g: tensor<8xbf16>, %m: tensor<4xf32>, %r: tensor<4xf32>) {
  // expected-error @+1 {{'train.layer_norm_grad' op expected grad_gamma element type 'bf16', got 'f32'}}
  %dx, %dg, %db = train.layer_norm_grad %dy, %x, %g, %m, %r : tensor<4x8xf32>, tensor<4x8xf32>, tensor<8xbf16>, tensor<4xf32>, tensor<4xf32> -> tensor<4x8xf32>, tensor<8xf32>, tensor<8xbf16>
  return
}

// -----

func.func @layer_norm_grad_grad_beta_type(%dy: tensor<4x8xf32>, %x: tensor<4x8xf32>, %g: tensor<8xbf16>, %m: tensor<4xf32>, %r: tensor<4xf32>) {
  // expected-error @+1 {{'train.layer_norm_grad' op expected grad_beta element type 'bf16', got 'f32'}}
  %dx, %dg, %db = train.layer_norm_grad %dy, %x, %g, %m, %r : tensor<4x8xf32>, tensor<4x8xf32>, tensor<8xbf16>, tensor<4xf32>, tensor<4xf32> -> tensor<4x8xf32>, tensor<8xbf16>, tensor<8xf32>
  return
}

// -----

func.func @rms_norm_grad_input_shape(%dy: tensor<4x8xf32>, %x: tensor<4x4xf32>, %g: tensor<8xf32>, %r: tensor<4xf32>) {
  // expected-error @+1 {{'train.rms_norm_grad' op expected input of shape 4x8, got 4x4}}
  %dx, %dg = train.rms_norm_grad %dy, %x, %g, %r : tensor<4x8xf32>, tensor<4x4xf32>, tensor<8xf32>, tensor<4xf32> -> tensor<4x8xf32>, tensor<8xf32>
  return
}

// -----

func.func @rms_norm_grad_input_type(%dy: tensor<4x8xf32>, %x: tensor<4x8xbf16>, %g: tensor<8xf32>, %r: tensor<4xf32>) {
  // expected-error @+1 {{'train.rms_norm_grad' op expected input element type 'f32', got 'bf16'}}
  %dx, %dg = train.rms_norm_grad %dy, %x, %g, %r : tensor<4x8xf32>, tensor<4x8xbf16>, tensor<8xf32>, tensor<4xf32> -> tensor<4x8xf32>, tensor<8xf32>
  return
}

// -----

func.func @rms_norm_grad_grad_input_shape(%dy: tensor<4x8xf32>, %x: tensor<4x8xf32>, %g: tensor<8xf32>, %r: tensor<4xf32>) {
  // expected-error @+1 {{'train.rms_norm_grad' op expected grad_input of shape 4x8, got 4x1x8}}
  %dx, %dg = train.rms_norm_grad %dy, %x, %g, %r : tensor<4x8xf32>, tensor<4x8xf32>, tensor<8xf32>, tensor<4xf32> -> tensor<4x1x8xf32>, tensor<8xf32>
  return
}

// -----

func.func @rms_norm_grad_grad_input_type(%dy: tensor<4x8xf32>, %x: tensor<4x8xf32>, %g: tensor<8xf32>, %r: tensor<4xf32>) {
  // expected-error @+1 {{'train.rms_norm_grad' op expected grad_input element type 'f32', got 'bf16'}}
  %dx, %dg = train.rms_norm_grad %dy, %x, %g, %r : tensor<4x8xf32>, tensor<4x8xf32>, tensor<8xf32>, tensor<4xf32> -> tensor<4x8xbf16>, tensor<8xf32>
  return
}

// -----

func.func @rms_norm_grad_scalar(%dy: tensor<f32>, %g: tensor<1xf32>) {
  // expected-error @+1 {{'train.rms_norm_grad' op expected input of rank >= 1, got rank 0 (scalar)}}
  %dx, %dg = train.rms_norm_grad %dy, %dy, %g, %dy : tensor<f32>, tensor<f32>, tensor<1xf32>, tensor<f32> -> tensor<f32>, tensor<1xf32>
  return
}

// -----

func.func @rms_norm_grad_gamma_shape(%dy: tensor<4x8xf32>, %x: tensor<4x8xf32>, %g: tensor<16xf32>, %r: tensor<4xf32>) {
  // expected-error @+1 {{'train.rms_norm_grad' op expected gamma of shape 8, got 16}}
  %dx, %dg = train.rms_norm_grad %dy, %x, %g, %r : tensor<4x8xf32>, tensor<4x8xf32>, tensor<16xf32>, tensor<4xf32> -> tensor<4x8xf32>, tensor<8xf32>
  return
}

// -----

func.func @rms_norm_grad_grad_gamma_shape(%dy: tensor<4x8xf32>, %x: tensor<4x8xf32>, %g: tensor<8xf32>, %r: tensor<4xf32>) {
  // expected-error @+1 {{'train.rms_norm_grad' op expected grad_gamma of shape 8, got 16}}
  %dx, %dg = train.rms_norm_grad %dy, %x, %g, %r : tensor<4x8xf32>, tensor<4x8xf32>, tensor<8xf32>, tensor<4xf32> -> tensor<4x8xf32>, tensor<16xf32>
  return
}

// -----

func.func @rms_norm_grad_rstd_shape(%dy: tensor<4x8xf32>, %x: tensor<4x8xf32>, %g: tensor<8xf32>, %r: tensor<8xf32>) {
  // expected-error @+1 {{'train.rms_norm_grad' op expected rstd of shape 4, got 8}}
  %dx, %dg = train.rms_norm_grad %dy, %x, %g, %r : tensor<4x8xf32>, tensor<4x8xf32>, tensor<8xf32>, tensor<8xf32> -> tensor<4x8xf32>, tensor<8xf32>
  return
}

// -----

func.func @rms_norm_grad_rstd_type(%dy: tensor<4x8xf32>, %x: tensor<4x8xf32>, %g: tensor<8xf32>, %r: tensor<4xf16>) {
  // expected-error @+1 {{'train.rms_norm_grad' op expected rstd element type 'f32', got 'f16'}}
  %dx, %dg = train.rms_norm_grad %dy, %x, %g, %r : tensor<4x8xf32>, tensor<4x8xf32>, tensor<8xf32>, tensor<4xf16> -> tensor<4x8xf32>, tensor<8xf32>
  return
}

// -----

func.func @rms_norm_grad_grad_gamma_type(%dy: tensor<4x8xf32>, %x: tensor<4x8xf32>, %g: tensor<8xf32>, %r: tensor<4xf32>) {
  // expected-error @+1 {{'train.rms_norm_grad' op expected grad_gamma element type 'f32', got 'bf16'}}
  %dx, %dg = train.rms_norm_grad %dy, %x, %g, %r : tensor<4x8xf32>, tensor<4x8xf32>, tensor<8xf32>, tensor<4xf32> -> tensor<4x8xf32>, tensor<8xbf16>
  return
}

// -----

func.func @batch_norm_grad_input_shape(%dy: tensor<2x8x4x4xf32>, %x: tensor<2x8x2x2xf32>, %g: tensor<8xf32>, %m: tensor<8xf32>, %r: tensor<8xf32>) {
  // expected-error @+1 {{'train.batch_norm_grad' op expected input of shape 2x8x4x4, got 2x8x2x2}}
  %dx, %dg, %db = train.batch_norm_grad %dy, %x, %g, %m, %r : tensor<2x8x4x4xf32>, tensor<2x8x2x2xf32>, tensor<8xf32>, tensor<8xf32>, tensor<8xf32> -> tensor<2x8x4x4xf32>, tensor<8xf32>, tensor<8xf32>
  return
}

// -----

func.func @batch_norm_grad_input_type(%dy: tensor<2x8x4x4xf32>, %x: tensor<2x8x4x4xbf16>, %g: tensor<8xf32>, %m: tensor<8xf32>, %r: tensor<8xf32>) {
  // expected-error @+1 {{'train.batch_norm_grad' op expected input element type 'f32', got 'bf16'}}
  %dx, %dg, %db = train.batch_norm_grad %dy, %x, %g, %m, %r : tensor<2x8x4x4xf32>, tensor<2x8x4x4xbf16>, tensor<8xf32>, tensor<8xf32>, tensor<8xf32> -> tensor<2x8x4x4xf32>, tensor<8xf32>, tensor<8xf32>
  return
}

// -----

func.func @batch_norm_grad_grad_input_shape(%dy: tensor<2x8x4x4xf32>, %x: tensor<2x8x4x4xf32>, %g: tensor<8xf32>, %m: tensor<8xf32>, %r: tensor<8xf32>) {
  // expected-error @+1 {{'train.batch_norm_grad' op expected grad_input of shape 2x8x4x4, got 2x8x16}}
  %dx, %dg, %db = train.batch_norm_grad %dy, %x, %g, %m, %r : tensor<2x8x4x4xf32>, tensor<2x8x4x4xf32>, tensor<8xf32>, tensor<8xf32>, tensor<8xf32> -> tensor<2x8x16xf32>, tensor<8xf32>, tensor<8xf32>
  return
}

// -----

func.func @batch_norm_grad_grad_input_type(%dy: tensor<2x8x4x4xf32>, %x: tensor<2x8x4x4xf32>, %g: tensor<8xf32>, %m: tensor<8xf32>, %r: tensor<8xf32>) {
  // expected-error @+1 {{'train.batch_norm_grad' op expected grad_input element type 'f32', got 'bf16'}}
  %dx, %dg, %db = train.batch_norm_grad %dy, %x, %g, %m, %r : tensor<2x8x4x4xf32>, tensor<2x8x4x4xf32>, tensor<8xf32>, tensor<8xf32>, tensor<8xf32> -> tensor<2x8x4x4xbf16>, tensor<8xf32>, tensor<8xf32>
  return
}

// -----

func.func @batch_norm_grad_input_rank(%dy: tensor<8x16xf32>, %x: tensor<8x16xf32>, %g: tensor<16xf32>, %m: tensor<16xf32>, %r: tensor<16xf32>) {
  // expected-error @+1 {{'train.batch_norm_grad' op expected input of rank 4, got rank 2 (8x16)}}
  %dx, %dg, %db = train.batch_norm_grad %dy, %x, %g, %m, %r : tensor<8x16xf32>, tensor<8x16xf32>, tensor<16xf32>, tensor<16xf32>, tensor<16xf32> -> tensor<8x16xf32>, tensor<16xf32>, tensor<16xf32>
  return
}

// -----

func.func @batch_norm_grad_gamma_shape(%dy: tensor<2x8x4x4xf32>, %x: tensor<2x8x4x4xf32>, %g: tensor<4xf32>, %m: tensor<8xf32>, %r: tensor<8xf32>) {
  // expected-error @+1 {{'train.batch_norm_grad' op expected gamma of shape 8, got 4}}
  %dx, %dg, %db = train.batch_norm_grad %dy, %x, %g, %m, %r : tensor<2x8x4x4xf32>, tensor<2x8x4x4xf32>, tensor<4xf32>, tensor<8xf32>, tensor<8xf32> -> tensor<2x8x4x4xf32>, tensor<8xf32>, tensor<8xf32>
  return
}

// -----

func.func @batch_norm_grad_grad_gamma_shape(%dy: tensor<2x8x4x4xf32>, %x: tensor<2x8x4x4xf32>, %g: tensor<8xf32>, %m: tensor<8xf32>, %r: tensor<8xf32>) {
  // expected-error @+1 {{'train.batch_norm_grad' op expected grad_gamma of shape 8, got 2x8}}
  %dx, %dg, %db = train.batch_norm_grad %dy, %x, %g, %m, %r : tensor<2x8x4x4xf32>, tensor<2x8x4x4xf32>, tensor<8xf32>, tensor<8xf32>, tensor<8xf32> -> tensor<2x8x4x4xf32>, tensor<2x8xf32>, tensor<8xf32>
  return
}

// -----

func.func @batch_norm_grad_grad_beta_shape(%dy: tensor<2x8x4x4xf32>, %x: tensor<2x8x4x4xf32>, %g: tensor<8xf32>, %m: tensor<8xf32>, %r: tensor<8xf32>) {
  // expected-error @+1 {{'train.batch_norm_grad' op expected grad_beta of shape 8, got 4}}
  %dx, %dg, %db = train.batch_norm_grad %dy, %x, %g, %m, %r : tensor<2x8x4x4xf32>, tensor<2x8x4x4xf32>, tensor<8xf32>, tensor<8xf32>, tensor<8xf32> -> tensor<2x8x4x4xf32>, tensor<8xf32>, tensor<4xf32>
  return
}

// -----

func.func @batch_norm_grad_mean_shape(%dy: tensor<2x8x4x4xf32>, %x: tensor<2x8x4x4xf32>, %g: tensor<8xf32>, %m: tensor<2xf32>, %r: tensor<8xf32>) {
  // expected-error @+1 {{'train.batch_norm_grad' op expected mean of shape 8, got 2}}
  %dx, %dg, %db = train.batch_norm_grad %dy, %x, %g, %m, %r : tensor<2x8x4x4xf32>, tensor<2x8x4x4xf32>, tensor<8xf32>, tensor<2xf32>, tensor<8xf32> -> tensor<2x8x4x4xf32>, tensor<8xf32>, tensor<8xf32>
  return
}

// -----

func.func @batch_norm_grad_mean_type(%dy: tensor<2x8x4x4xf32>, %x: tensor<2x8x4x4xf32>, %g: tensor<8xf32>, %m: tensor<8xbf16>, %r: tensor<8xf32>) {
  // expected-error @+1 {{'train.batch_norm_grad' op expected mean element type 'f32', got 'bf16'}}
  %dx, %dg, %db = train.batch_norm_grad %dy, %x, %g, %m, %r : tensor<2x8x4x4xf32>, tensor<2x8x4x4xf32>, tensor<8xf32>, tensor<8xbf16>, tensor<8xf32> -> tensor<2x8x4x4xf32>, tensor<8xf32>, tensor<8xf32>
  return
}

// -----

func.func @batch_norm_grad_rstd_shape(%dy: tensor<2x8x4x4xf32>, %x: tensor<2x8x4x4xf32>, %g: tensor<8xf32>, %m: tensor<8xf32>, %r: tensor<2xf32>) {
  // expected-error @+1 {{'train.batch_norm_grad' op expected rstd of shape 8, got 2}}
  %dx, %dg, %db = train.batch_norm_grad %dy, %x, %g, %m, %r : tensor<2x8x4x4xf32>, tensor<2x8x4x4xf32>, tensor<8xf32>, tensor<8xf32>, tensor<2xf32> -> tensor<2x8x4x4xf32>, tensor<8xf32>, tensor<8xf32>
  return
}

// -----

func.func @batch_norm_grad_rstd_type(%dy: tensor<2x8x4x4xf32>, %x: tensor<2x8x4x4xf32>, %g: tensor<8xf32>, %m: tensor<8xf32>, %r: tensor<8xf16>) {
  // expected-error @+1 {{'train.batch_norm_grad' op expected rstd element type 'f32', got 'f16'}}
  %dx, %dg, %db = train.batch_norm_grad %dy, %x, %g, %m, %r : tensor<2x8x4x4xf32>, tensor<2x8x4x4xf32>, tensor<8xf32>, tensor<8xf32>, tensor<8xf16> -> tensor<2x8x4x4xf32>, tensor<8xf32>, tensor<8xf32>
  return
}

// -----

func.func @batch_norm_grad_grad_gamma_type(%dy: tensor<2x8x4x4xf32>, %x: tensor<2x8x4x4xf32>, %g: tensor<8xf32>, %m: tensor<8xf32>, %r: tensor<8xf32>) {
  // expected-error @+1 {{'train.batch_norm_grad' op expected grad_gamma element type 'f32', got 'f16'}}
  %dx, %dg, %db = train.batch_norm_grad %dy, %x, %g, %m, %r : tensor<2x8x4x4xf32>, tensor<2x8x4x4xf32>, tensor<8xf32>, tensor<8xf32>, tensor<8xf32> -> tensor<2x8x4x4xf32>, tensor<8xf16>, tensor<8xf32>
  return
}

// -----

func.func @batch_norm_grad_grad_beta_type(%dy: tensor<2x8x4x4xf32>, %x: tensor<2x8x4x4xf32>, %g: tensor<8xf32>, %m: tensor<8xf32>, %r: tensor<8xf32>) {
  // expected-error @+1 {{'train.batch_norm_grad' op expected grad_beta element type 'f32', got 'f16'}}
  %dx, %dg, %db = train.batch_norm_grad %dy, %x, %g, %m, %r : tensor<2x8x4x4xf32>, tensor<2x8x4x4xf32>, tensor<8xf32>, tensor<8xf32>, tensor<8xf32> -> tensor<2x8x4x4xf32>, tensor<8xf32>, tensor<8xf16>
  return
}

// -----

func.func @dropout_grad_mask_shape(%dy: tensor<4x8xbf16>, %m: tensor<8x4xi8>) -> tensor<4x8xbf16> {
  // expected-error @+1 {{'train.dropout_grad' op expected mask of shape 4x8, got 8x4}}
  %0 = train.dropout_grad %dy, %m {rate = 0.1 : f64} : tensor<4x8xbf16>, tensor<8x4xi8> -> tensor<4x8xbf16>
  return %0 : tensor<4x8xbf16>
}

// -----

func.func @dropout_grad_result_shape(%dy: tensor<4x8xbf16>, %m: tensor<4x8xi8>) -> tensor<4x4xbf16> {
  // expected-error @+1 {{'train.dropout_grad' op expected result of shape 4x8, got 4x4}}
  %0 = train.dropout_grad %dy, %m {rate = 0.1 : f64} : tensor<4x8xbf16>, tensor<4x8xi8> -> tensor<4x4xbf16>
  return %0 : tensor<4x4xbf16>
}

// -----

func.func @dropout_grad_result_type(%dy: tensor<4x8xbf16>, %m: tensor<4x8xi1>) -> tensor<4x8xf32> {
  // expected-error @+1 {{'train.dropout_grad' op expected result element type 'bf16', got 'f32'}}
  %0 = train.dropout_grad %dy, %m {rate = 0.1 : f64} : tensor<4x8xbf16>, tensor<4x8xi1> -> tensor<4x8xf32>
  return %0 : tensor<4x8xf32>
}

// -----

func.func @dropout_grad_rate(%dy: tensor<4x8xbf16>, %m: tensor<4x8xi8>) -> tensor<4x8xbf16> {
  // expected-error @+1 {{'train.dropout_grad' op expected rate in [0, 1), got 1.500000e+00}}
  %0 = train.dropout_grad %dy, %m {rate = 1.5 : f64} : tensor<4x8xbf16>, tensor<4x8xi8> -> tensor<4x8xbf16>
  return %0 : tensor<4x8xbf16>
}

// -----

func.func @dropout_grad_float_mask(%dy: tensor<4x8xbf16>, %m: tensor<4x8xbf16>) -> tensor<4x8xbf16> {
  // expected-error @+1 {{operand #1 must be statically shaped tensor of 1-bit signless integer or 8-bit signless integer values, but got 'tensor<4x8xbf16>'}}
  %0 = train.dropout_grad %dy, %m {rate = 0.1 : f64} : tensor<4x8xbf16>, tensor<4x8xbf16> -> tensor<4x8xbf16>
  return %0 : tensor<4x8xbf16>
}

// -----

func.func @embedding_grad_result_rank(%de: tensor<4x8xf32>, %ids: tensor<4xi64>) -> tensor<128xf32> {
  // expected-error @+1 {{'train.embedding_grad' op expected result of rank 2, got rank 1 (128)}}
  %0 = train.embedding_grad %de, %ids : tensor<4x8xf32>, tensor<4xi64> -> tensor<128xf32>
  return %0 : tensor<128xf32>
}

// -----

func.func @embedding_grad_grad_shape(%de: tensor<4x8xf32>, %ids: tensor<2x4xi64>) -> tensor<16x8xf32> {
  // expected-error @+1 {{'train.embedding_grad' op expected grad of shape 2x4x8, got 4x8}}
  %0 = train.embedding_grad %de, %ids : tensor<4x8xf32>, tensor<2x4xi64> -> tensor<16x8xf32>
  return %0 : tensor<16x8xf32>
}

// -----

func.func @embedding_grad_result_type(%de: tensor<4x8xbf16>, %ids: tensor<4xi64>) -> tensor<16x8xf32> {
  // expected-error @+1 {{'train.embedding_grad' op expected result element type 'bf16', got 'f32'}}
  %0 = train.embedding_grad %de, %ids : tensor<4x8xbf16>, tensor<4xi64> -> tensor<16x8xf32>
  return %0 : tensor<16x8xf32>
}

// -----

func.func @cross_entropy_grad_scalar_logits(%dl: tensor<f32>, %y: tensor<i64>) -> tensor<f32> {
  // expected-error @+1 {{'train.cross_entropy_grad' op expected logits of rank >= 1, got rank 0 (scalar)}}
  %0 = train.cross_entropy_grad %dl, %dl, %y : tensor<f32>, tensor<f32>, tensor<i64> -> tensor<f32>
  return %0 : tensor<f32>
}

// -----

func.func @cross_entropy_grad_labels_shape(%dl: tensor<f32>, %l: tensor<4x10xf32>, %y: tensor<10xi64>) -> tensor<4x10xf32> {
  // expected-error @+1 {{'train.cross_entropy_grad' op expected labels of shape 4, got 10}}
  %0 = train.cross_entropy_grad %dl, %l, %y : tensor<f32>, tensor<4x10xf32>, tensor<10xi64> -> tensor<4x10xf32>
  return %0 : tensor<4x10xf32>
}

// -----

func.func @cross_entropy_grad_result_shape(%dl: tensor<f32>, %l: tensor<4x10xf32>, %y: tensor<4xi64>) -> tensor<4xf32> {
  // expected-error @+1 {{'train.cross_entropy_grad' op expected result of shape 4x10, got 4}}
  %0 = train.cross_entropy_grad %dl, %l, %y : tensor<f32>, tensor<4x10xf32>, tensor<4xi64> -> tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

func.func @cross_entropy_grad_result_type(%dl: tensor<f32>, %l: tensor<4x10xf32>, %y: tensor<4xi64>) -> tensor<4x10xbf16> {
  // expected-error @+1 {{'train.cross_entropy_grad' op expected result element type 'f32', got 'bf16'}}
  %0 = train.cross_entropy_grad %dl, %l, %y : tensor<f32>, tensor<4x10xf32>, tensor<4xi64> -> tensor<4x10xbf16>
  return %0 : tensor<4x10xbf16>
}

// -----

func.func @cross_entropy_grad_loss_not_0d(%dl: tensor<1xf32>, %l: tensor<4x10xf32>, %y: tensor<4xi64>) -> tensor<4x10xf32> {
  // expected-error @+1 {{operand #0 must be 0-d float tensor, but got 'tensor<1xf32>'}}
  %0 = train.cross_entropy_grad %dl, %l, %y : tensor<1xf32>, tensor<4x10xf32>, tensor<4xi64> -> tensor<4x10xf32>
  return %0 : tensor<4x10xf32>
}

// -----

func.func @mse_loss_grad_target_shape(%dl: tensor<f32>, %x: tensor<4x8xf32>, %y: tensor<4xf32>) -> tensor<4x8xf32> {
  // expected-error @+1 {{'train.mse_loss_grad' op expected target of shape 4x8, got 4}}
  %0 = train.mse_loss_grad %dl, %x, %y : tensor<f32>, tensor<4x8xf32>, tensor<4xf32> -> tensor<4x8xf32>
  return %0 : tensor<4x8xf32>
}

// -----

func.func @mse_loss_grad_target_type(%dl: tensor<f32>, %x: tensor<4x8xf32>, %y: tensor<4x8xf16>) -> tensor<4x8xf32> {
  // expected-error @+1 {{'train.mse_loss_grad' op expected target element type 'f32', got 'f16'}}
  %0 = train.mse_loss_grad %dl, %x, %y : tensor<f32>, tensor<4x8xf32>, tensor<4x8xf16> -> tensor<4x8xf32>
  return %0 : tensor<4x8xf32>
}

// -----

func.func @mse_loss_grad_result_shape(%dl: tensor<f32>, %x: tensor<4x8xf32>, %y: tensor<4x8xf32>) -> tensor<8x4xf32> {
  // expected-error @+1 {{'train.mse_loss_grad' op expected result of shape 4x8, got 8x4}}
  %0 = train.mse_loss_grad %dl, %x, %y : tensor<f32>, tensor<4x8xf32>, tensor<4x8xf32> -> tensor<8x4xf32>
  return %0 : tensor<8x4xf32>
}

// -----

func.func @mse_loss_grad_result_type(%dl: tensor<f32>, %x: tensor<4x8xf32>, %y: tensor<4x8xf32>) -> tensor<4x8xbf16> {
  // expected-error @+1 {{'train.mse_loss_grad' op expected result element type 'f32', got 'bf16'}}
  %0 = train.mse_loss_grad %dl, %x, %y : tensor<f32>, tensor<4x8xf32>, tensor<4x8xf32> -> tensor<4x8xbf16>
  return %0 : tensor<4x8xbf16>
}

// -----

func.func @max_pool2d_grad_result_shape(%dy: tensor<2x64x16x16xf32>, %x: tensor<2x64x32x32xf32>) -> tensor<2x64x16x16xf32> {
  // expected-error @+1 {{'train.max_pool2d_grad' op expected result of shape 2x64x32x32, got 2x64x16x16}}
  %0 = train.max_pool2d_grad %dy, %x {kernel = array<i64: 2, 2>, strides = array<i64: 2, 2>} : tensor<2x64x16x16xf32>, tensor<2x64x32x32xf32> -> tensor<2x64x16x16xf32>
  return %0 : tensor<2x64x16x16xf32>
}

// -----

func.func @max_pool2d_grad_result_type(%dy: tensor<2x64x16x16xf32>, %x: tensor<2x64x32x32xf32>) -> tensor<2x64x32x32xbf16> {
  // expected-error @+1 {{'train.max_pool2d_grad' op expected result element type 'f32', got 'bf16'}}
  %0 = train.max_pool2d_grad %dy, %x {kernel = array<i64: 2, 2>, strides = array<i64: 2, 2>} : tensor<2x64x16x16xf32>, tensor<2x64x32x32xf32> -> tensor<2x64x32x32xbf16>
  return %0 : tensor<2x64x32x32xbf16>
}

// -----

func.func @max_pool2d_grad_grad_shape(%dy: tensor<2x64x32x32xf32>, %x: tensor<2x64x32x32xf32>) -> tensor<2x64x32x32xf32> {
  // expected-error @+1 {{'train.max_pool2d_grad' op expected grad of shape 2x64x16x16, got 2x64x32x32}}
  %0 = train.max_pool2d_grad %dy, %x {kernel = array<i64: 2, 2>, strides = array<i64: 2, 2>} : tensor<2x64x32x32xf32>, tensor<2x64x32x32xf32> -> tensor<2x64x32x32xf32>
  return %0 : tensor<2x64x32x32xf32>
}

// -----

func.func @max_pool2d_grad_grad_type(%dy: tensor<2x64x16x16xbf16>, %x: tensor<2x64x32x32xf32>) -> tensor<2x64x32x32xf32> {
  // expected-error @+1 {{'train.max_pool2d_grad' op expected grad element type 'f32', got 'bf16'}}
  %0 = train.max_pool2d_grad %dy, %x {kernel = array<i64: 2, 2>, strides = array<i64: 2, 2>} : tensor<2x64x16x16xbf16>, tensor<2x64x32x32xf32> -> tensor<2x64x32x32xf32>
  return %0 : tensor<2x64x32x32xf32>
}

// -----

func.func @max_pool2d_grad_padding(%dy: tensor<1x4x5x5xf32>, %x: tensor<1x4x8x8xf32>) -> tensor<1x4x8x8xf32> {
  // expected-error @+1 {{'train.max_pool2d_grad' op expected padding at most half the kernel, got padding 2 for kernel 2}}
  %0 = train.max_pool2d_grad %dy, %x {kernel = array<i64: 2, 2>, strides = array<i64: 2, 2>, padding = array<i64: 1, 2>} : tensor<1x4x5x5xf32>, tensor<1x4x8x8xf32> -> tensor<1x4x8x8xf32>
  return %0 : tensor<1x4x8x8xf32>
}

// -----

// avg_pool2d_grad: the result is the pooling input; `grad` is checked as the
// pooling output.
func.func @avg_pool2d_grad_result_rank(%dy: tensor<2x2048x1x1xf32>) -> tensor<2x2048x49xf32> {
  // expected-error @+1 {{'train.avg_pool2d_grad' op expected result of rank 4, got rank 3 (2x2048x49)}}
  %0 = train.avg_pool2d_grad %dy {kernel = array<i64: 7, 7>} : tensor<2x2048x1x1xf32> -> tensor<2x2048x49xf32>
  return %0 : tensor<2x2048x49xf32>
}

// -----

func.func @avg_pool2d_grad_grad_shape(%dy: tensor<2x2048x1x1xf32>) -> tensor<2x2048x8x8xf32> {
  // expected-error @+1 {{'train.avg_pool2d_grad' op expected grad of shape 2x2048x2x2, got 2x2048x1x1}}
  %0 = train.avg_pool2d_grad %dy {kernel = array<i64: 7, 7>} : tensor<2x2048x1x1xf32> -> tensor<2x2048x8x8xf32>
  return %0 : tensor<2x2048x8x8xf32>
}

// -----

func.func @avg_pool2d_grad_grad_type(%dy: tensor<2x2048x1x1xf32>) -> tensor<2x2048x7x7xbf16> {
  // expected-error @+1 {{'train.avg_pool2d_grad' op expected grad element type 'bf16', got 'f32'}}
  %0 = train.avg_pool2d_grad %dy {kernel = array<i64: 7, 7>} : tensor<2x2048x1x1xf32> -> tensor<2x2048x7x7xbf16>
  return %0 : tensor<2x2048x7x7xbf16>
}

// -----

func.func @avg_pool2d_grad_kernel_count(%dy: tensor<2x2048x1x1xf32>) -> tensor<2x2048x7x7xf32> {
  // expected-error @+1 {{'train.avg_pool2d_grad' op expected 2 kernel values, got 3}}
  %0 = train.avg_pool2d_grad %dy {kernel = array<i64: 7, 7, 1>} : tensor<2x2048x1x1xf32> -> tensor<2x2048x7x7xf32>
  return %0 : tensor<2x2048x7x7xf32>
}

// -----

func.func @avg_pool2d_grad_kernel_does_not_fit(%dy: tensor<1x4x1x1xf32>) -> tensor<1x4x2x2xf32> {
  // expected-error @+1 {{'train.avg_pool2d_grad' op kernel 3x3 does not fit the padded result 1x4x2x2}}
  %0 = train.avg_pool2d_grad %dy {kernel = array<i64: 3, 3>} : tensor<1x4x1x1xf32> -> tensor<1x4x2x2xf32>
  return %0 : tensor<1x4x2x2xf32>
}

// -----

// upsample_nearest2d_grad: the result is the small (input) tensor.
func.func @upsample_nearest2d_grad_result_rank(%dy: tensor<2x8x32x32xf32>) -> tensor<16x16x16xf32> {
  // expected-error @+1 {{'train.upsample_nearest2d_grad' op expected result of rank 4, got rank 3 (16x16x16)}}
  %0 = train.upsample_nearest2d_grad %dy {scale = 2 : i64} : tensor<2x8x32x32xf32> -> tensor<16x16x16xf32>
  return %0 : tensor<16x16x16xf32>
}

// -----

func.func @upsample_nearest2d_grad_scale(%dy: tensor<2x8x32x32xf32>) -> tensor<2x8x16x16xf32> {
  // expected-error @+1 {{'train.upsample_nearest2d_grad' op expected scale >= 1, got -2}}
  %0 = train.upsample_nearest2d_grad %dy {scale = -2 : i64} : tensor<2x8x32x32xf32> -> tensor<2x8x16x16xf32>
  return %0 : tensor<2x8x16x16xf32>
}

// -----

func.func @upsample_nearest2d_grad_grad_shape(%dy: tensor<2x8x32x32xf32>) -> tensor<2x8x8x8xf32> {
  // expected-error @+1 {{'train.upsample_nearest2d_grad' op expected grad of shape 2x8x16x16, got 2x8x32x32}}
  %0 = train.upsample_nearest2d_grad %dy {scale = 2 : i64} : tensor<2x8x32x32xf32> -> tensor<2x8x8x8xf32>
  return %0 : tensor<2x8x8x8xf32>
}

// -----

func.func @upsample_nearest2d_grad_grad_type(%dy: tensor<2x8x32x32xbf16>) -> tensor<2x8x16x16xf32> {
  // expected-error @+1 {{'train.upsample_nearest2d_grad' op expected grad element type 'f32', got 'bf16'}}
  %0 = train.upsample_nearest2d_grad %dy {scale = 2 : i64} : tensor<2x8x32x32xbf16> -> tensor<2x8x16x16xf32>
  return %0 : tensor<2x8x16x16xf32>
}

// -----

func.func @attention_grad_block_rows(%do: tensor<1x8x16x64xf32>, %q: tensor<1x8x16x64xf32>, %k: tensor<1x2x16x64xf32>, %v: tensor<1x2x16x64xf32>, %o: tensor<1x8x16x64xf32>, %lse: tensor<1x8x16xf32>) {
  // expected-error @+1 {{'train.attention_grad' op expected block_rows >= 1, got -4}}
  %dq, %dk, %dv = train.attention_grad %do, %q, %k, %v, %o, %lse {block_rows = -4 : i64, scale = 0.125 : f64} : tensor<1x8x16x64xf32>, tensor<1x8x16x64xf32>, tensor<1x2x16x64xf32>, tensor<1x2x16x64xf32>, tensor<1x8x16x64xf32>, tensor<1x8x16xf32> -> tensor<1x8x16x64xf32>, tensor<1x2x16x64xf32>, tensor<1x2x16x64xf32>
  return
}

// -----

func.func @attention_grad_query_rank(%do: tensor<1x8x16x64xf32>, %q: tensor<8x16x64xf32>, %k: tensor<1x2x16x64xf32>, %v: tensor<1x2x16x64xf32>, %o: tensor<1x8x16x64xf32>, %lse: tensor<1x8x16xf32>) {
  // expected-error @+1 {{'train.attention_grad' op expected query of rank 4, got rank 3 (8x16x64)}}
  %dq, %dk, %dv = train.attention_grad %do, %q, %k, %v, %o, %lse {scale = 0.125 : f64} : tensor<1x8x16x64xf32>, tensor<8x16x64xf32>, tensor<1x2x16x64xf32>, tensor<1x2x16x64xf32>, tensor<1x8x16x64xf32>, tensor<1x8x16xf32> -> tensor<1x8x16x64xf32>, tensor<1x2x16x64xf32>, tensor<1x2x16x64xf32>
  return
}

// -----

func.func @attention_grad_key_rank(%do: tensor<1x8x16x64xf32>, %q: tensor<1x8x16x64xf32>, %k: tensor<2x16x64xf32>, %v: tensor<1x2x16x64xf32>, %o: tensor<1x8x16x64xf32>, %lse: tensor<1x8x16xf32>) {
  // expected-error @+1 {{'train.attention_grad' op expected key of rank 4, got rank 3 (2x16x64)}}
  %dq, %dk, %dv = train.attention_grad %do, %q, %k, %v, %o, %lse {scale = 0.125 : f64} : tensor<1x8x16x64xf32>, tensor<1x8x16x64xf32>, tensor<2x16x64xf32>, tensor<1x2x16x64xf32>, tensor<1x8x16x64xf32>, tensor<1x8x16xf32> -> tensor<1x8x16x64xf32>, tensor<1x2x16x64xf32>, tensor<1x2x16x64xf32>
  return
}

// -----

func.func @attention_grad_value_shape(%do: tensor<1x8x16x64xf32>, %q: tensor<1x8x16x64xf32>, %k: tensor<1x2x16x64xf32>, %v: tensor<1x2x8x64xf32>, %o: tensor<1x8x16x64xf32>, %lse: tensor<1x8x16xf32>) {
  // expected-error @+1 {{'train.attention_grad' op expected value of shape 1x2x16x64, got 1x2x8x64}}
  %dq, %dk, %dv = train.attention_grad %do, %q, %k, %v, %o, %lse {scale = 0.125 : f64} : tensor<1x8x16x64xf32>, tensor<1x8x16x64xf32>, tensor<1x2x16x64xf32>, tensor<1x2x8x64xf32>, tensor<1x8x16x64xf32>, tensor<1x8x16xf32> -> tensor<1x8x16x64xf32>, tensor<1x2x16x64xf32>, tensor<1x2x16x64xf32>
  return
}

// -----

func.func @attention_grad_scale(%do: tensor<1x8x16x64xf32>, %q: tensor<1x8x16x64xf32>, %k: tensor<1x2x16x64xf32>, %v: tensor<1x2x16x64xf32>, %o: tensor<1x8x16x64xf32>, %lse: tensor<1x8x16xf32>) {
  // expected-error @+1 {{'train.attention_grad' op expected scale > 0, got 0.000000e+00}}
  %dq, %dk, %dv = train.attention_grad %do, %q, %k, %v, %o, %lse {scale = 0.0 : f64} : tensor<1x8x16x64xf32>, tensor<1x8x16x64xf32>, tensor<1x2x16x64xf32>, tensor<1x2x16x64xf32>, tensor<1x8x16x64xf32>, tensor<1x8x16xf32> -> tensor<1x8x16x64xf32>, tensor<1x2x16x64xf32>, tensor<1x2x16x64xf32>
  return
}

// -----

func.func @attention_grad_value_type(%do: tensor<1x8x16x64xf32>, %q: tensor<1x8x16x64xf32>, %k: tensor<1x2x16x64xf32>, %v: tensor<1x2x16x64xbf16>, %o: tensor<1x8x16x64xf32>, %lse: tensor<1x8x16xf32>) {
  // expected-error @+1 {{'train.attention_grad' op expected value element type 'f32', got 'bf16'}}
  %dq, %dk, %dv = train.attention_grad %do, %q, %k, %v, %o, %lse {scale = 0.125 : f64} : tensor<1x8x16x64xf32>, tensor<1x8x16x64xf32>, tensor<1x2x16x64xf32>, tensor<1x2x16x64xbf16>, tensor<1x8x16x64xf32>, tensor<1x8x16xf32> -> tensor<1x8x16x64xf32>, tensor<1x2x16x64xf32>, tensor<1x2x16x64xbf16>
  return
}

// -----

func.func @attention_grad_key_batch(%do: tensor<1x8x16x64xf32>, %q: tensor<1x8x16x64xf32>, %k: tensor<2x2x16x64xf32>, %v: tensor<2x2x16x64xf32>, %o: tensor<1x8x16x64xf32>, %lse: tensor<1x8x16xf32>) {
  // expected-error @+1 {{'train.attention_grad' op expected key of shape 1x?x?x64 (batch and head size of the query 1x8x16x64), got 2x2x16x64}}
  %dq, %dk, %dv = train.attention_grad %do, %q, %k, %v, %o, %lse {scale = 0.125 : f64} : tensor<1x8x16x64xf32>, tensor<1x8x16x64xf32>, tensor<2x2x16x64xf32>, tensor<2x2x16x64xf32>, tensor<1x8x16x64xf32>, tensor<1x8x16xf32> -> tensor<1x8x16x64xf32>, tensor<2x2x16x64xf32>, tensor<2x2x16x64xf32>
  return
}

// -----

func.func @attention_grad_key_type(%do: tensor<1x8x16x64xf32>, %q: tensor<1x8x16x64xf32>, %k: tensor<1x2x16x64xbf16>, %v: tensor<1x2x16x64xbf16>, %o: tensor<1x8x16x64xf32>, %lse: tensor<1x8x16xf32>) {
  // expected-error @+1 {{'train.attention_grad' op expected key element type 'f32', got 'bf16'}}
  %dq, %dk, %dv = train.attention_grad %do, %q, %k, %v, %o, %lse {scale = 0.125 : f64} : tensor<1x8x16x64xf32>, tensor<1x8x16x64xf32>, tensor<1x2x16x64xbf16>, tensor<1x2x16x64xbf16>, tensor<1x8x16x64xf32>, tensor<1x8x16xf32> -> tensor<1x8x16x64xf32>, tensor<1x2x16x64xbf16>, tensor<1x2x16x64xbf16>
  return
}

// -----

func.func @attention_grad_head_multiple(%do: tensor<1x8x16x64xf32>, %q: tensor<1x8x16x64xf32>, %k: tensor<1x3x16x64xf32>, %v: tensor<1x3x16x64xf32>, %o: tensor<1x8x16x64xf32>, %lse: tensor<1x8x16xf32>) {
  // expected-error @+1 {{'train.attention_grad' op expected the query heads (8) to be a multiple of the key/value heads (3)}}
  %dq, %dk, %dv = train.attention_grad %do, %q, %k, %v, %o, %lse {causal, scale = 0.125 : f64} : tensor<1x8x16x64xf32>, tensor<1x8x16x64xf32>, tensor<1x3x16x64xf32>, tensor<1x3x16x64xf32>, tensor<1x8x16x64xf32>, tensor<1x8x16xf32> -> tensor<1x8x16x64xf32>, tensor<1x3x16x64xf32>, tensor<1x3x16x64xf32>
  return
}

// -----

func.func @attention_grad_zero_kv_heads(%do: tensor<1x8x16x64xf32>, %q: tensor<1x8x16x64xf32>, %k: tensor<1x0x16x64xf32>, %v: tensor<1x0x16x64xf32>, %o: tensor<1x8x16x64xf32>, %lse: tensor<1x8x16xf32>) {
  // expected-error @+1 {{'train.attention_grad' op expected at least one key/value head, got 1x0x16x64}}
  %dq, %dk, %dv = train.attention_grad %do, %q, %k, %v, %o, %lse {scale = 0.125 : f64} : tensor<1x8x16x64xf32>, tensor<1x8x16x64xf32>, tensor<1x0x16x64xf32>, tensor<1x0x16x64xf32>, tensor<1x8x16x64xf32>, tensor<1x8x16xf32> -> tensor<1x8x16x64xf32>, tensor<1x0x16x64xf32>, tensor<1x0x16x64xf32>
  return
}

// -----

func.func @attention_grad_key_head_size(%do: tensor<1x8x16x64xf32>, %q: tensor<1x8x16x64xf32>, %k: tensor<1x2x16x32xf32>, %v: tensor<1x2x16x32xf32>, %o: tensor<1x8x16x64xf32>, %lse: tensor<1x8x16xf32>) {
  // expected-error @+1 {{'train.attention_grad' op expected key of shape 1x?x?x64 (batch and head size of the query 1x8x16x64), got 1x2x16x32}}
  %dq, %dk, %dv = train.attention_grad %do, %q, %k, %v, %o, %lse {scale = 0.125 : f64} : tensor<1x8x16x64xf32>, tensor<1x8x16x64xf32>, tensor<1x2x16x32xf32>, tensor<1x2x16x32xf32>, tensor<1x8x16x64xf32>, tensor<1x8x16xf32> -> tensor<1x8x16x64xf32>, tensor<1x2x16x64xf32>, tensor<1x2x16x64xf32>
  return
}

// -----

func.func @attention_grad_lse_type(%do: tensor<1x8x16x64xf32>, %q: tensor<1x8x16x64xf32>, %k: tensor<1x2x16x64xf32>, %v: tensor<1x2x16x64xf32>, %o: tensor<1x8x16x64xf32>, %lse: tensor<1x8x16xbf16>) {
  // expected-error @+1 {{'train.attention_grad' op expected lse element type 'f32', got 'bf16'}}
  %dq, %dk, %dv = train.attention_grad %do, %q, %k, %v, %o, %lse {scale = 0.125 : f64} : tensor<1x8x16x64xf32>, tensor<1x8x16x64xf32>, tensor<1x2x16x64xf32>, tensor<1x2x16x64xf32>, tensor<1x8x16x64xf32>, tensor<1x8x16xbf16> -> tensor<1x8x16x64xf32>, tensor<1x2x16x64xf32>, tensor<1x2x16x64xf32>
  return
}

// -----

func.func @attention_grad_lse_shape(%do: tensor<1x8x16x64xf32>, %q: tensor<1x8x16x64xf32>, %k: tensor<1x2x16x64xf32>, %v: tensor<1x2x16x64xf32>, %o: tensor<1x8x16x64xf32>, %lse: tensor<1x8xf32>) {
  // expected-error @+1 {{'train.attention_grad' op expected lse of shape 1x8x16, got 1x8}}
  %dq, %dk, %dv = train.attention_grad %do, %q, %k, %v, %o, %lse {scale = 0.125 : f64} : tensor<1x8x16x64xf32>, tensor<1x8x16x64xf32>, tensor<1x2x16x64xf32>, tensor<1x2x16x64xf32>, tensor<1x8x16x64xf32>, tensor<1x8xf32> -> tensor<1x8x16x64xf32>, tensor<1x2x16x64xf32>, tensor<1x2x16x64xf32>
  return
}

// -----

func.func @attention_grad_grad_shape(%do: tensor<1x8x16x32xf32>, %q: tensor<1x8x16x64xf32>, %k: tensor<1x2x16x64xf32>, %v: tensor<1x2x16x64xf32>, %o: tensor<1x8x16x64xf32>, %lse: tensor<1x8x16xf32>) {
  // expected-error @+1 {{'train.attention_grad' op expected grad of shape 1x8x16x64, got 1x8x16x32}}
  %dq, %dk, %dv = train.attention_grad %do, %q, %k, %v, %o, %lse {scale = 0.125 : f64} : tensor<1x8x16x32xf32>, tensor<1x8x16x64xf32>, tensor<1x2x16x64xf32>, tensor<1x2x16x64xf32>, tensor<1x8x16x64xf32>, tensor<1x8x16xf32> -> tensor<1x8x16x64xf32>, tensor<1x2x16x64xf32>, tensor<1x2x16x64xf32>
  return
}

// -----

func.func @attention_grad_grad_type(%do: tensor<1x8x16x64xbf16>, %q: tensor<1x8x16x64xf32>, %k: tensor<1x2x16x64xf32>, %v: tensor<1x2x16x64xf32>, %o: tensor<1x8x16x64xf32>, %lse: tensor<1x8x16xf32>) {
  // expected-error @+1 {{'train.attention_grad' op expected grad element type 'f32', got 'bf16'}}
  %dq, %dk, %dv = train.attention_grad %do, %q, %k, %v, %o, %lse {scale = 0.125 : f64} : tensor<1x8x16x64xbf16>, tensor<1x8x16x64xf32>, tensor<1x2x16x64xf32>, tensor<1x2x16x64xf32>, tensor<1x8x16x64xf32>, tensor<1x8x16xf32> -> tensor<1x8x16x64xf32>, tensor<1x2x16x64xf32>, tensor<1x2x16x64xf32>
  return
}

// -----

func.func @attention_grad_output_shape(%do: tensor<1x8x16x64xf32>, %q: tensor<1x8x16x64xf32>, %k: tensor<1x2x16x64xf32>, %v: tensor<1x2x16x64xf32>, %o: tensor<1x2x16x64xf32>, %lse: tensor<1x8x16xf32>) {
  // expected-error @+1 {{'train.attention_grad' op expected output of shape 1x8x16x64, got 1x2x16x64}}
  %dq, %dk, %dv = train.attention_grad %do, %q, %k, %v, %o, %lse {scale = 0.125 : f64} : tensor<1x8x16x64xf32>, tensor<1x8x16x64xf32>, tensor<1x2x16x64xf32>, tensor<1x2x16x64xf32>, tensor<1x2x16x64xf32>, tensor<1x8x16xf32> -> tensor<1x8x16x64xf32>, tensor<1x2x16x64xf32>, tensor<1x2x16x64xf32>
  return
}

// -----

func.func @attention_grad_output_type(%do: tensor<1x8x16x64xf32>, %q: tensor<1x8x16x64xf32>, %k: tensor<1x2x16x64xf32>, %v: tensor<1x2x16x64xf32>, %o: tensor<1x8x16x64xf16>, %lse: tensor<1x8x16xf32>) {
  // expected-error @+1 {{'train.attention_grad' op expected output element type 'f32', got 'f16'}}
  %dq, %dk, %dv = train.attention_grad %do, %q, %k, %v, %o, %lse {scale = 0.125 : f64} : tensor<1x8x16x64xf32>, tensor<1x8x16x64xf32>, tensor<1x2x16x64xf32>, tensor<1x2x16x64xf32>, tensor<1x8x16x64xf16>, tensor<1x8x16xf32> -> tensor<1x8x16x64xf32>, tensor<1x2x16x64xf32>, tensor<1x2x16x64xf32>
  return
}

// -----

func.func @attention_grad_grad_query_shape(%do: tensor<1x8x16x64xf32>, %q: tensor<1x8x16x64xf32>, %k: tensor<1x2x16x64xf32>, %v: tensor<1x2x16x64xf32>, %o: tensor<1x8x16x64xf32>, %lse: tensor<1x8x16xf32>) {
  // expected-error @+1 {{'train.attention_grad' op expected grad_query of shape 1x8x16x64, got 1x2x16x64}}
  %dq, %dk, %dv = train.attention_grad %do, %q, %k, %v, %o, %lse {scale = 0.125 : f64} : tensor<1x8x16x64xf32>, tensor<1x8x16x64xf32>, tensor<1x2x16x64xf32>, tensor<1x2x16x64xf32>, tensor<1x8x16x64xf32>, tensor<1x8x16xf32> -> tensor<1x2x16x64xf32>, tensor<1x2x16x64xf32>, tensor<1x2x16x64xf32>
  return
}

// -----

func.func @attention_grad_grad_query_type(%do: tensor<1x8x16x64xf32>, %q: tensor<1x8x16x64xf32>, %k: tensor<1x2x16x64xf32>, %v: tensor<1x2x16x64xf32>, %o: tensor<1x8x16x64xf32>, %lse: tensor<1x8x16xf32>) {
  // expected-error @+1 {{'train.attention_grad' op expected grad_query element type 'f32', got 'bf16'}}
  %dq, %dk, %dv = train.attention_grad %do, %q, %k, %v, %o, %lse {scale = 0.125 : f64} : tensor<1x8x16x64xf32>, tensor<1x8x16x64xf32>, tensor<1x2x16x64xf32>, tensor<1x2x16x64xf32>, tensor<1x8x16x64xf32>, tensor<1x8x16xf32> -> tensor<1x8x16x64xbf16>, tensor<1x2x16x64xf32>, tensor<1x2x16x64xf32>
  return
}

// -----

func.func @attention_grad_grad_key_shape(%do: tensor<1x8x16x64xf32>, %q: tensor<1x8x16x64xf32>, %k: tensor<1x2x16x64xf32>, %v: tensor<1x2x16x64xf32>, %o: tensor<1x8x16x64xf32>, %lse: tensor<1x8x16xf32>) {
  // expected-error @+1 {{'train.attention_grad' op expected grad_key of shape 1x2x16x64, got 1x8x16x64}}
  %dq, %dk, %dv = train.attention_grad %do, %q, %k, %v, %o, %lse {scale = 0.125 : f64} : tensor<1x8x16x64xf32>, tensor<1x8x16x64xf32>, tensor<1x2x16x64xf32>, tensor<1x2x16x64xf32>, tensor<1x8x16x64xf32>, tensor<1x8x16xf32> -> tensor<1x8x16x64xf32>, tensor<1x8x16x64xf32>, tensor<1x2x16x64xf32>
  return
}

// -----

func.func @attention_grad_grad_key_type(%do: tensor<1x8x16x64xf32>, %q: tensor<1x8x16x64xf32>, %k: tensor<1x2x16x64xf32>, %v: tensor<1x2x16x64xf32>, %o: tensor<1x8x16x64xf32>, %lse: tensor<1x8x16xf32>) {
  // expected-error @+1 {{'train.attention_grad' op expected grad_key element type 'f32', got 'bf16'}}
  %dq, %dk, %dv = train.attention_grad %do, %q, %k, %v, %o, %lse {scale = 0.125 : f64} : tensor<1x8x16x64xf32>, tensor<1x8x16x64xf32>, tensor<1x2x16x64xf32>, tensor<1x2x16x64xf32>, tensor<1x8x16x64xf32>, tensor<1x8x16xf32> -> tensor<1x8x16x64xf32>, tensor<1x2x16x64xbf16>, tensor<1x2x16x64xf32>
  return
}

// -----

func.func @attention_grad_grad_value_shape(%do: tensor<1x8x16x64xf32>, %q: tensor<1x8x16x64xf32>, %k: tensor<1x2x16x64xf32>, %v: tensor<1x2x16x64xf32>, %o: tensor<1x8x16x64xf32>, %lse: tensor<1x8x16xf32>) {
  // expected-error @+1 {{'train.attention_grad' op expected grad_value of shape 1x2x16x64, got 1x2x8x64}}
  %dq, %dk, %dv = train.attention_grad %do, %q, %k, %v, %o, %lse {scale = 0.125 : f64} : tensor<1x8x16x64xf32>, tensor<1x8x16x64xf32>, tensor<1x2x16x64xf32>, tensor<1x2x16x64xf32>, tensor<1x8x16x64xf32>, tensor<1x8x16xf32> -> tensor<1x8x16x64xf32>, tensor<1x2x16x64xf32>, tensor<1x2x8x64xf32>
  return
}

// -----

func.func @attention_grad_grad_value_type(%do: tensor<1x8x16x64xf32>, %q: tensor<1x8x16x64xf32>, %k: tensor<1x2x16x64xf32>, %v: tensor<1x2x16x64xf32>, %o: tensor<1x8x16x64xf32>, %lse: tensor<1x8x16xf32>) {
  // expected-error @+1 {{'train.attention_grad' op expected grad_value element type 'f32', got 'f16'}}
  %dq, %dk, %dv = train.attention_grad %do, %q, %k, %v, %o, %lse {scale = 0.125 : f64} : tensor<1x8x16x64xf32>, tensor<1x8x16x64xf32>, tensor<1x2x16x64xf32>, tensor<1x2x16x64xf32>, tensor<1x8x16x64xf32>, tensor<1x8x16xf32> -> tensor<1x8x16x64xf32>, tensor<1x2x16x64xf32>, tensor<1x2x16x64xf16>
  return
}

// -----

func.func @rotary_grad_result_shape(%g: tensor<16x64xf32>) -> tensor<16x32xf32> {
  // expected-error @+1 {{'train.rotary_grad' op expected result of shape 16x64, got 16x32}}
  %0 = train.rotary_grad %g : tensor<16x64xf32> -> tensor<16x32xf32>
  return %0 : tensor<16x32xf32>
}

// -----

func.func @rotary_grad_result_type(%g: tensor<16x64xbf16>) -> tensor<16x64xf32> {
  // expected-error @+1 {{'train.rotary_grad' op expected result element type 'bf16', got 'f32'}}
  %0 = train.rotary_grad %g : tensor<16x64xbf16> -> tensor<16x64xf32>
  return %0 : tensor<16x64xf32>
}

// -----

func.func @rotary_grad_rank(%g: tensor<64xf32>) -> tensor<64xf32> {
  // expected-error @+1 {{'train.rotary_grad' op expected grad of rank >= 2, got rank 1 (64)}}
  %0 = train.rotary_grad %g : tensor<64xf32>
  return %0 : tensor<64xf32>
}

// -----

func.func @rotary_grad_theta(%g: tensor<16x64xf32>) -> tensor<16x64xf32> {
  // expected-error @+1 {{'train.rotary_grad' op expected theta > 0, got -1.000000e+04}}
  %0 = train.rotary_grad %g {theta = -1.0e4 : f64} : tensor<16x64xf32>
  return %0 : tensor<16x64xf32>
}

// -----

func.func @rotary_grad_odd_last_dim(%g: tensor<1x8x16x7xf32>) -> tensor<1x8x16x7xf32> {
  // expected-error @+1 {{'train.rotary_grad' op expected an even last dimension, got 1x8x16x7}}
  %0 = train.rotary_grad %g : tensor<1x8x16x7xf32>
  return %0 : tensor<1x8x16x7xf32>
}

// -----

// slice_grad: the result is the full tensor, `grad` the window.
func.func @slice_grad_window_rank(%g: tensor<768xf32>) -> tensor<8x2304xf32> {
  // expected-error @+1 {{'train.slice_grad' op expected a window of rank 2, got 768}}
  %0 = train.slice_grad %g {offsets = array<i64: 0, 0>} : tensor<768xf32> -> tensor<8x2304xf32>
  return %0 : tensor<8x2304xf32>
}

// -----

func.func @slice_grad_offsets_count(%g: tensor<8x768xf32>) -> tensor<8x2304xf32> {
  // expected-error @+1 {{'train.slice_grad' op expected 2 offsets values, got 3}}
  %0 = train.slice_grad %g {offsets = array<i64: 0, 0, 0>} : tensor<8x768xf32> -> tensor<8x2304xf32>
  return %0 : tensor<8x2304xf32>
}

// -----

func.func @slice_grad_negative_offset(%g: tensor<8x768xf32>) -> tensor<8x2304xf32> {
  // expected-error @+1 {{'train.slice_grad' op expected every offsets value >= 0, got -768}}
  %0 = train.slice_grad %g {offsets = array<i64: 0, -768>} : tensor<8x768xf32> -> tensor<8x2304xf32>
  return %0 : tensor<8x2304xf32>
}

// -----

func.func @slice_grad_strides_count(%g: tensor<8x768xf32>) -> tensor<8x2304xf32> {
  // expected-error @+1 {{'train.slice_grad' op expected 2 strides values, got 1}}
  %0 = train.slice_grad %g {offsets = array<i64: 0, 0>, strides = array<i64: 3>} : tensor<8x768xf32> -> tensor<8x2304xf32>
  return %0 : tensor<8x2304xf32>
}

// -----

func.func @slice_grad_negative_stride(%g: tensor<8x768xf32>) -> tensor<8x2304xf32> {
  // expected-error @+1 {{'train.slice_grad' op expected every strides value >= 1, got -1}}
  %0 = train.slice_grad %g {offsets = array<i64: 0, 0>, strides = array<i64: 1, -1>} : tensor<8x768xf32> -> tensor<8x2304xf32>
  return %0 : tensor<8x2304xf32>
}

// -----

func.func @slice_grad_out_of_bounds(%g: tensor<8x768xf32>) -> tensor<8x2304xf32> {
  // expected-error @+1 {{'train.slice_grad' op window 8x768 at offsets [0, 3] with strides [1, 3] exceeds the tensor 8x2304 in dimension 1}}
  %0 = train.slice_grad %g {offsets = array<i64: 0, 3>, strides = array<i64: 1, 3>} : tensor<8x768xf32> -> tensor<8x2304xf32>
  return %0 : tensor<8x2304xf32>
}

// -----

//===----------------------------------------------------------------------===//
// Optimizers
//===----------------------------------------------------------------------===//

func.func @accumulate_into_param(%g: tensor<4x8xf32>) {
  %w = train.param "w" : tensor<4x8xf32>
  %i = train.opt_state "grad_accumulation.micro_batch" : tensor<i64>
  // expected-error @+1 {{'train.accumulate' op expected buffer to be defined by 'train.opt_state', got 'train.param'}}
  train.accumulate %w, %g micro_batch(%i : tensor<i64>) : tensor<4x8xf32>, tensor<4x8xf32>
  return
}

// -----

func.func @accumulate_shape(%g: tensor<4x4xf32>) {
  %acc = train.opt_state "w.grad_accumulator" : tensor<4x8xf32>
  %i = train.opt_state "grad_accumulation.micro_batch" : tensor<i64>
  // expected-error @+1 {{'train.accumulate' op expected grad of shape 4x8, got 4x4}}
  train.accumulate %acc, %g micro_batch(%i : tensor<i64>) : tensor<4x8xf32>, tensor<4x4xf32>
  return
}

// -----

func.func @accumulate_narrow_buffer(%g: tensor<4x8xf32>) {
  %acc = train.opt_state "w.grad_accumulator" : tensor<4x8xbf16>
  %i = train.opt_state "grad_accumulation.micro_batch" : tensor<i64>
  // expected-error @+1 {{'train.accumulate' op expected a buffer at least as wide as the gradient, got 'bf16' for 'f32'}}
  train.accumulate %acc, %g micro_batch(%i : tensor<i64>) : tensor<4x8xbf16>, tensor<4x8xf32>
  return
}

// -----

func.func @accumulate_index_argument(%g: tensor<4x8xf32>, %i: tensor<i64>) {
  %acc = train.opt_state "w.grad_accumulator" : tensor<4x8xf32>
  // expected-error @+1 {{'train.accumulate' op expected the micro-batch index to be the train.opt_state "grad_accumulation.micro_batch"}}
  train.accumulate %acc, %g micro_batch(%i : tensor<i64>) : tensor<4x8xf32>, tensor<4x8xf32>
  return
}

// -----

func.func @accumulate_index_other_state(%g: tensor<4x8xf32>) {
  %acc = train.opt_state "w.grad_accumulator" : tensor<4x8xf32>
  %i = train.opt_state "loss_scale.exponent" : tensor<i64>
  // expected-error @+1 {{'train.accumulate' op expected the micro-batch index to be the train.opt_state "grad_accumulation.micro_batch"}}
  train.accumulate %acc, %g micro_batch(%i : tensor<i64>) : tensor<4x8xf32>, tensor<4x8xf32>
  return
}

// -----

func.func @accumulate_index_type(%g: tensor<4x8xf32>) {
  %acc = train.opt_state "w.grad_accumulator" : tensor<4x8xf32>
  %i = train.opt_state "grad_accumulation.micro_batch" : tensor<i32>
  // expected-error @+1 {{operand #2 must be 0-d i64 tensor}}
  train.accumulate %acc, %g micro_batch(%i : tensor<i32>) : tensor<4x8xf32>, tensor<4x8xf32>
  return
}

// -----

func.func @accumulate_scale(%g: tensor<4x8xf32>) {
  %acc = train.opt_state "w.grad_accumulator" : tensor<4x8xf32>
  %i = train.opt_state "grad_accumulation.micro_batch" : tensor<i64>
  // expected-error @+1 {{'train.accumulate' op expected scale > 0, got -5.000000e-01}}
  train.accumulate %acc, %g micro_batch(%i : tensor<i64>) {scale = -0.5 : f64} : tensor<4x8xf32>, tensor<4x8xf32>
  return
}

// -----

func.func @refresh_copy_argument(%copy: tensor<4x8xbf16>) {
  %i = train.opt_state "grad_accumulation.micro_batch" {train.space = "host"} : tensor<i64>
  %w = train.param "w" {train.space = "host"} : tensor<4x8xf32>
  // expected-error @+1 {{'train.refresh' op expected copy to be defined by 'train.opt_state', got a block argument}}
  train.refresh %copy, %w micro_batch(%i : tensor<i64>) : tensor<4x8xbf16>, tensor<4x8xf32>
  return
}

// -----

func.func @refresh_shape() {
  %i = train.opt_state "grad_accumulation.micro_batch" {train.space = "host"} : tensor<i64>
  %w = train.param "w" {train.space = "host"} : tensor<4x8xf32>
  %copy = train.opt_state "w.device_copy" : tensor<8x4xbf16>
  // expected-error @+1 {{'train.refresh' op expected master of shape 8x4, got 4x8}}
  train.refresh %copy, %w micro_batch(%i : tensor<i64>) : tensor<8x4xbf16>, tensor<4x8xf32>
  return
}

// -----

func.func @refresh_copy_on_host() {
  %i = train.opt_state "grad_accumulation.micro_batch" {train.space = "host"} : tensor<i64>
  %w = train.param "w" {train.space = "host"} : tensor<4x8xf32>
  %copy = train.opt_state "w.device_copy" {train.space = "host"} : tensor<4x8xbf16>
  // expected-error @+1 {{'train.refresh' op expected the copy in device memory, but its train.opt_state is in host memory}}
  train.refresh %copy, %w micro_batch(%i : tensor<i64>) : tensor<4x8xbf16>, tensor<4x8xf32>
  return
}

// -----

func.func @refresh_master_on_device() {
  %i = train.opt_state "grad_accumulation.micro_batch" {train.space = "host"} : tensor<i64>
  %w = train.param "w" : tensor<4x8xf32>
  %copy = train.opt_state "w.device_copy" : tensor<4x8xbf16>
  // expected-error @+1 {{'train.refresh' op expected the master in host memory (train.space = "host"), got a device value}}
  train.refresh %copy, %w micro_batch(%i : tensor<i64>) : tensor<4x8xbf16>, tensor<4x8xf32>
  return
}

// -----

func.func @refresh_index_other_state() {
  %i = train.opt_state "loss_scale.exponent" {train.space = "host"} : tensor<i64>
  %w = train.param "w" {train.space = "host"} : tensor<4x8xf32>
  %copy = train.opt_state "w.device_copy" : tensor<4x8xbf16>
  // expected-error @+1 {{'train.refresh' op expected the micro-batch index to be the train.opt_state "grad_accumulation.micro_batch"}}
  train.refresh %copy, %w micro_batch(%i : tensor<i64>) : tensor<4x8xbf16>, tensor<4x8xf32>
  return
}

// -----

func.func @micro_batch_skip_count() -> tensor<i1> {
  %i = train.opt_state "grad_accumulation.micro_batch" : tensor<i64>
  // expected-error @+1 {{'train.micro_batch_skip' op expected micro_batches >= 1, got 0}}
  %skip = train.micro_batch_skip %i {micro_batches = 0 : i64} : tensor<i64> -> tensor<i1>
  return %skip : tensor<i1>
}

// -----

func.func @micro_batch_skip_index(%i: tensor<i64>) -> tensor<i1> {
  // expected-error @+1 {{'train.micro_batch_skip' op expected the micro-batch index to be the train.opt_state "grad_accumulation.micro_batch"}}
  %skip = train.micro_batch_skip %i {micro_batches = 2 : i64} : tensor<i64> -> tensor<i1>
  return %skip : tensor<i1>
}

// -----

func.func @micro_batch_skip_flag(%found: tensor<i8>) -> tensor<i1> {
  %i = train.opt_state "grad_accumulation.micro_batch" : tensor<i64>
  // expected-error @+1 {{operand #1 must be 0-d i1 tensor}}
  %skip = train.micro_batch_skip %i or(%found : tensor<i8>) {micro_batches = 2 : i64} : tensor<i64> -> tensor<i1>
  return %skip : tensor<i1>
}

// -----

func.func @micro_batch_skip_result() -> tensor<2xi1> {
  %i = train.opt_state "grad_accumulation.micro_batch" : tensor<i64>
  // expected-error @+1 {{result #0 must be 0-d i1 tensor}}
  %skip = train.micro_batch_skip %i {micro_batches = 2 : i64} : tensor<i64> -> tensor<2xi1>
  return %skip : tensor<2xi1>
}

// -----

func.func @micro_batch_advance_count() {
  %i = train.opt_state "grad_accumulation.micro_batch" : tensor<i64>
  // expected-error @+1 {{'train.micro_batch_advance' op expected micro_batches >= 1, got -1}}
  train.micro_batch_advance %i {micro_batches = -1 : i64} : tensor<i64>
  return
}

// -----

func.func @micro_batch_advance_index() {
  %i = train.opt_state "step_count" : tensor<i64>
  // expected-error @+1 {{'train.micro_batch_advance' op expected the micro-batch index to be the train.opt_state "grad_accumulation.micro_batch"}}
  train.micro_batch_advance %i {micro_batches = 2 : i64} : tensor<i64>
  return
}

// -----

func.func @sgd_param_block_argument(%w: tensor<4x8xf32>, %g: tensor<4x8xf32>) {
  // expected-error @+1 {{'train.sgd' op expected param to be defined by 'train.param', got a block argument}}
  train.sgd %w, %g {lr = 0.01 : f64} : tensor<4x8xf32>, tensor<4x8xf32>
  return
}

// -----

func.func @sgd_param_from_opt_state(%g: tensor<4x8xf32>) {
  %w = train.opt_state "w" : tensor<4x8xf32>
  // expected-error @+1 {{'train.sgd' op expected param to be defined by 'train.param', got 'train.opt_state'}}
  train.sgd %w, %g {lr = 0.01 : f64} : tensor<4x8xf32>, tensor<4x8xf32>
  return
}

// -----

func.func @sgd_param_computed(%g: tensor<4x8xf32>) {
  %p = train.param "w" : tensor<4x8xf32>
  %w = train.cast %p : tensor<4x8xf32> -> tensor<4x8xf32>
  // expected-error @+1 {{'train.sgd' op expected param to be defined by 'train.param', got 'train.cast'}}
  train.sgd %w, %g {lr = 0.01 : f64} : tensor<4x8xf32>, tensor<4x8xf32>
  return
}

// -----

func.func @sgd_grad_shape(%g: tensor<8x4xf32>) {
  %w = train.param "w" : tensor<4x8xf32>
  // expected-error @+1 {{'train.sgd' op expected grad of shape 4x8, got 8x4}}
  train.sgd %w, %g {lr = 0.01 : f64} : tensor<4x8xf32>, tensor<8x4xf32>
  return
}

// -----

func.func @sgd_negative_lr(%g: tensor<4x8xf32>) {
  %w = train.param "w" : tensor<4x8xf32>
  // expected-error @+1 {{'train.sgd' op expected lr >= 0, got -1.000000e-02}}
  train.sgd %w, %g {lr = -0.01 : f64} : tensor<4x8xf32>, tensor<4x8xf32>
  return
}

// -----

func.func @sgd_negative_weight_decay(%g: tensor<4x8xf32>) {
  %w = train.param "w" : tensor<4x8xf32>
  // expected-error @+1 {{'train.sgd' op expected weight_decay >= 0, got -1.000000e-04}}
  train.sgd %w, %g {lr = 0.01 : f64, weight_decay = -1.0e-4 : f64} : tensor<4x8xf32>, tensor<4x8xf32>
  return
}

// -----

func.func @sgd_negative_momentum(%g: tensor<4x8xf32>) {
  %w = train.param "w" : tensor<4x8xf32>
  %b = train.opt_state "b" : tensor<4x8xf32>
  // expected-error @+1 {{'train.sgd' op expected momentum >= 0, got -9.000000e-01}}
  train.sgd %w, %g momentum(%b : tensor<4x8xf32>) {lr = 0.01 : f64, momentum = -0.9 : f64} : tensor<4x8xf32>, tensor<4x8xf32>
  return
}

// -----

func.func @sgd_momentum_without_buffer(%g: tensor<4x8xf32>) {
  %w = train.param "w" : tensor<4x8xf32>
  // expected-error @+1 {{'train.sgd' op expected a momentum buffer when momentum > 0}}
  train.sgd %w, %g {lr = 0.01 : f64, momentum = 0.9 : f64} : tensor<4x8xf32>, tensor<4x8xf32>
  return
}

// -----

func.func @sgd_buffer_without_momentum(%g: tensor<4x8xf32>) {
  %w = train.param "w" : tensor<4x8xf32>
  %b = train.opt_state "b" : tensor<4x8xf32>
  // expected-error @+1 {{'train.sgd' op expected momentum > 0 with a momentum buffer}}
  train.sgd %w, %g momentum(%b : tensor<4x8xf32>) {lr = 0.01 : f64} : tensor<4x8xf32>, tensor<4x8xf32>
  return
}

// -----

func.func @sgd_buffer_from_param(%g: tensor<4x8xf32>) {
  %w = train.param "w" : tensor<4x8xf32>
  %b = train.param "b" : tensor<4x8xf32>
  // expected-error @+1 {{'train.sgd' op expected momentum buffer to be defined by 'train.opt_state', got 'train.param'}}
  train.sgd %w, %g momentum(%b : tensor<4x8xf32>) {lr = 0.01 : f64, momentum = 0.9 : f64} : tensor<4x8xf32>, tensor<4x8xf32>
  return
}

// -----

func.func @sgd_buffer_block_argument(%g: tensor<4x8xf32>, %b: tensor<4x8xf32>) {
  %w = train.param "w" : tensor<4x8xf32>
  // expected-error @+1 {{'train.sgd' op expected momentum buffer to be defined by 'train.opt_state', got a block argument}}
  train.sgd %w, %g momentum(%b : tensor<4x8xf32>) {lr = 0.01 : f64, momentum = 0.9 : f64} : tensor<4x8xf32>, tensor<4x8xf32>
  return
}

// -----

func.func @sgd_buffer_shape(%g: tensor<4x8xf32>) {
  %w = train.param "w" : tensor<4x8xf32>
  %b = train.opt_state "b" : tensor<32xf32>
  // expected-error @+1 {{'train.sgd' op expected momentum buffer of shape 4x8, got 32}}
  train.sgd %w, %g momentum(%b : tensor<32xf32>) {lr = 0.01 : f64, momentum = 0.9 : f64} : tensor<4x8xf32>, tensor<4x8xf32>
  return
}

// -----

func.func @sgd_missing_lr(%g: tensor<4x8xf32>) {
  %w = train.param "w" : tensor<4x8xf32>
  // expected-error @+1 {{requires attribute 'lr'}}
  train.sgd %w, %g : tensor<4x8xf32>, tensor<4x8xf32>
  return
}

// -----

func.func @adam_param_block_argument(%w: tensor<4xf32>, %g: tensor<4xf32>, %t: tensor<i64>) {
  %m = train.opt_state "m" : tensor<4xf32>
  %v = train.opt_state "v" : tensor<4xf32>
  // expected-error @+1 {{'train.adam' op expected param to be defined by 'train.param', got a block argument}}
  train.adam %w, %g, %m, %v step(%t : tensor<i64>) {lr = 1.0e-3 : f64} : tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>
  return
}

// -----

func.func @adam_exp_avg_from_param(%g: tensor<4xf32>, %t: tensor<i64>) {
  %w = train.param "w" : tensor<4xf32>
  %m = train.param "m" : tensor<4xf32>
  %v = train.opt_state "v" : tensor<4xf32>
  // expected-error @+1 {{'train.adam' op expected exp_avg to be defined by 'train.opt_state', got 'train.param'}}
  train.adam %w, %g, %m, %v step(%t : tensor<i64>) {lr = 1.0e-3 : f64} : tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>
  return
}

// -----

func.func @adam_exp_avg_sq_block_argument(%g: tensor<4xf32>, %v: tensor<4xf32>, %t: tensor<i64>) {
  %w = train.param "w" : tensor<4xf32>
  %m = train.opt_state "m" : tensor<4xf32>
  // expected-error @+1 {{'train.adam' op expected exp_avg_sq to be defined by 'train.opt_state', got a block argument}}
  train.adam %w, %g, %m, %v step(%t : tensor<i64>) {lr = 1.0e-3 : f64} : tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>
  return
}

// -----

func.func @adam_same_state_twice(%g: tensor<4xf32>, %t: tensor<i64>) {
  %w = train.param "w" : tensor<4xf32>
  %m = train.opt_state "m" : tensor<4xf32>
  // expected-error @+1 {{'train.adam' op expected distinct exp_avg and exp_avg_sq states}}
  train.adam %w, %g, %m, %m step(%t : tensor<i64>) {lr = 1.0e-3 : f64} : tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>
  return
}

// -----

func.func @adam_grad_shape(%g: tensor<8xf32>, %t: tensor<i64>) {
  %w = train.param "w" : tensor<4xf32>
  %m = train.opt_state "m" : tensor<4xf32>
  %v = train.opt_state "v" : tensor<4xf32>
  // expected-error @+1 {{'train.adam' op expected grad of shape 4, got 8}}
  train.adam %w, %g, %m, %v step(%t : tensor<i64>) {lr = 1.0e-3 : f64} : tensor<4xf32>, tensor<8xf32>, tensor<4xf32>, tensor<4xf32>
  return
}

// -----

func.func @adam_exp_avg_shape(%g: tensor<4xf32>, %t: tensor<i64>) {
  %w = train.param "w" : tensor<4xf32>
  %m = train.opt_state "m" : tensor<2x2xf32>
  %v = train.opt_state "v" : tensor<4xf32>
  // expected-error @+1 {{'train.adam' op expected exp_avg of shape 4, got 2x2}}
  train.adam %w, %g, %m, %v step(%t : tensor<i64>) {lr = 1.0e-3 : f64} : tensor<4xf32>, tensor<4xf32>, tensor<2x2xf32>, tensor<4xf32>
  return
}

// -----

func.func @adam_exp_avg_sq_shape(%g: tensor<4xf32>, %t: tensor<i64>) {
  %w = train.param "w" : tensor<4xf32>
  %m = train.opt_state "m" : tensor<4xf32>
  %v = train.opt_state "v" : tensor<5xf32>
  // expected-error @+1 {{'train.adam' op expected exp_avg_sq of shape 4, got 5}}
  train.adam %w, %g, %m, %v step(%t : tensor<i64>) {lr = 1.0e-3 : f64} : tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<5xf32>
  return
}

// -----

func.func @adam_negative_lr(%g: tensor<4xf32>, %t: tensor<i64>) {
  %w = train.param "w" : tensor<4xf32>
  %m = train.opt_state "m" : tensor<4xf32>
  %v = train.opt_state "v" : tensor<4xf32>
  // expected-error @+1 {{'train.adam' op expected lr >= 0, got -1.000000e-03}}
  train.adam %w, %g, %m, %v step(%t : tensor<i64>) {lr = -1.0e-3 : f64} : tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>
  return
}

// -----

func.func @adam_beta1_one(%g: tensor<4xf32>, %t: tensor<i64>) {
  %w = train.param "w" : tensor<4xf32>
  %m = train.opt_state "m" : tensor<4xf32>
  %v = train.opt_state "v" : tensor<4xf32>
  // expected-error @+1 {{'train.adam' op expected beta1 in [0, 1), got 1.000000e+00}}
  train.adam %w, %g, %m, %v step(%t : tensor<i64>) {lr = 1.0e-3 : f64, beta1 = 1.0 : f64} : tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>
  return
}

// -----

func.func @adam_beta2_negative(%g: tensor<4xf32>, %t: tensor<f32>) {
  %w = train.param "w" : tensor<4xf32>
  %m = train.opt_state "m" : tensor<4xf32>
  %v = train.opt_state "v" : tensor<4xf32>
  // expected-error @+1 {{'train.adam' op expected beta2 in [0, 1), got -9.990000e-01}}
  train.adam %w, %g, %m, %v step(%t : tensor<f32>) {lr = 1.0e-3 : f64, beta2 = -0.999 : f64} : tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>
  return
}

// -----

func.func @adam_zero_epsilon(%g: tensor<4xf32>, %t: tensor<i64>) {
  %w = train.param "w" : tensor<4xf32>
  %m = train.opt_state "m" : tensor<4xf32>
  %v = train.opt_state "v" : tensor<4xf32>
  // expected-error @+1 {{'train.adam' op expected epsilon > 0, got 0.000000e+00}}
  train.adam %w, %g, %m, %v step(%t : tensor<i64>) {lr = 1.0e-3 : f64, epsilon = 0.0 : f64} : tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>
  return
}

// -----

func.func @adam_negative_weight_decay(%g: tensor<4xf32>, %t: tensor<i64>) {
  %w = train.param "w" : tensor<4xf32>
  %m = train.opt_state "m" : tensor<4xf32>
  %v = train.opt_state "v" : tensor<4xf32>
  // expected-error @+1 {{'train.adam' op expected weight_decay >= 0, got -1.000000e-02}}
  train.adam %w, %g, %m, %v step(%t : tensor<i64>) {lr = 1.0e-3 : f64, weight_decay = -0.01 : f64} : tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>
  return
}

// -----

func.func @adamw_param_from_opt_state(%g: tensor<4xf32>, %t: tensor<i64>) {
  %w = train.opt_state "w" : tensor<4xf32>
  %m = train.opt_state "m" : tensor<4xf32>
  %v = train.opt_state "v" : tensor<4xf32>
  // expected-error @+1 {{'train.adamw' op expected param to be defined by 'train.param', got 'train.opt_state'}}
  train.adamw %w, %g, %m, %v step(%t : tensor<i64>) {lr = 1.0e-3 : f64} : tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>
  return
}

// -----

func.func @adamw_exp_avg_block_argument(%g: tensor<4xf32>, %m: tensor<4xf32>, %t: tensor<i64>) {
  %w = train.param "w" : tensor<4xf32>
  %v = train.opt_state "v" : tensor<4xf32>
  // expected-error @+1 {{'train.adamw' op expected exp_avg to be defined by 'train.opt_state', got a block argument}}
  train.adamw %w, %g, %m, %v step(%t : tensor<i64>) {lr = 1.0e-3 : f64} : tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>
  return
}

// -----

func.func @adamw_exp_avg_sq_from_param(%g: tensor<4xf32>, %t: tensor<i64>) {
  %w = train.param "w" : tensor<4xf32>
  %m = train.opt_state "m" : tensor<4xf32>
  %v = train.param "v" : tensor<4xf32>
  // expected-error @+1 {{'train.adamw' op expected exp_avg_sq to be defined by 'train.opt_state', got 'train.param'}}
  train.adamw %w, %g, %m, %v step(%t : tensor<i64>) {lr = 1.0e-3 : f64} : tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>
  return
}

// -----

func.func @adamw_same_state_twice(%g: tensor<4xf32>, %t: tensor<i64>) {
  %w = train.param "w" : tensor<4xf32>
  %v = train.opt_state "v" : tensor<4xf32>
  // expected-error @+1 {{'train.adamw' op expected distinct exp_avg and exp_avg_sq states}}
  train.adamw %w, %g, %v, %v step(%t : tensor<i64>) {lr = 1.0e-3 : f64} : tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>
  return
}

// -----

func.func @adamw_grad_shape(%g: tensor<768x1xbf16>, %t: tensor<i64>) {
  %w = train.param "w" : tensor<768xf32>
  %m = train.opt_state "m" : tensor<768xf32>
  %v = train.opt_state "v" : tensor<768xf32>
  // expected-error @+1 {{'train.adamw' op expected grad of shape 768, got 768x1}}
  train.adamw %w, %g, %m, %v step(%t : tensor<i64>) {lr = 1.0e-3 : f64} : tensor<768xf32>, tensor<768x1xbf16>, tensor<768xf32>, tensor<768xf32>
  return
}

// -----

func.func @adamw_exp_avg_shape(%g: tensor<4xf32>, %t: tensor<i64>) {
  %w = train.param "w" : tensor<4xf32>
  %m = train.opt_state "m" : tensor<8xf32>
  %v = train.opt_state "v" : tensor<4xf32>
  // expected-error @+1 {{'train.adamw' op expected exp_avg of shape 4, got 8}}
  train.adamw %w, %g, %m, %v step(%t : tensor<i64>) {lr = 1.0e-3 : f64} : tensor<4xf32>, tensor<4xf32>, tensor<8xf32>, tensor<4xf32>
  return
}

// -----

func.func @adamw_exp_avg_sq_shape(%g: tensor<4xf32>, %t: tensor<i64>) {
  %w = train.param "w" : tensor<4xf32>
  %m = train.opt_state "m" : tensor<4xf32>
  %v = train.opt_state "v" : tensor<1x4xf32>
  // expected-error @+1 {{'train.adamw' op expected exp_avg_sq of shape 4, got 1x4}}
  train.adamw %w, %g, %m, %v step(%t : tensor<i64>) {lr = 1.0e-3 : f64} : tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<1x4xf32>
  return
}

// -----

func.func @adamw_negative_lr(%g: tensor<4xf32>, %t: tensor<i64>) {
  %w = train.param "w" : tensor<4xf32>
  %m = train.opt_state "m" : tensor<4xf32>
  %v = train.opt_state "v" : tensor<4xf32>
  // expected-error @+1 {{'train.adamw' op expected lr >= 0, got -1.000000e+00}}
  train.adamw %w, %g, %m, %v step(%t : tensor<i64>) {lr = -1.0 : f64} : tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>
  return
}

// -----

func.func @adamw_beta1_negative(%g: tensor<4xf32>, %t: tensor<i64>) {
  %w = train.param "w" : tensor<4xf32>
  %m = train.opt_state "m" : tensor<4xf32>
  %v = train.opt_state "v" : tensor<4xf32>
  // expected-error @+1 {{'train.adamw' op expected beta1 in [0, 1), got -1.000000e-01}}
  train.adamw %w, %g, %m, %v step(%t : tensor<i64>) {lr = 1.0e-3 : f64, beta1 = -0.1 : f64} : tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>
  return
}

// -----

func.func @adamw_beta2_one(%g: tensor<4xf32>, %t: tensor<i64>) {
  %w = train.param "w" : tensor<4xf32>
  %m = train.opt_state "m" : tensor<4xf32>
  %v = train.opt_state "v" : tensor<4xf32>
  // expected-error @+1 {{'train.adamw' op expected beta2 in [0, 1), got 1.000000e+00}}
  train.adamw %w, %g, %m, %v step(%t : tensor<i64>) {lr = 1.0e-3 : f64, beta2 = 1.0 : f64} : tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>
  return
}

// -----

func.func @adamw_negative_epsilon(%g: tensor<4xf32>, %t: tensor<i64>) {
  %w = train.param "w" : tensor<4xf32>
  %m = train.opt_state "m" : tensor<4xf32>
  %v = train.opt_state "v" : tensor<4xf32>
  // expected-error @+1 {{'train.adamw' op expected epsilon > 0, got -1.000000e-08}}
  train.adamw %w, %g, %m, %v step(%t : tensor<i64>) {lr = 1.0e-3 : f64, epsilon = -1.0e-8 : f64} : tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>
  return
}

// -----

func.func @adamw_negative_weight_decay(%g: tensor<4xf32>, %t: tensor<i64>) {
  %w = train.param "w" : tensor<4xf32>
  %m = train.opt_state "m" : tensor<4xf32>
  %v = train.opt_state "v" : tensor<4xf32>
  // expected-error @+1 {{'train.adamw' op expected weight_decay >= 0, got -1.000000e-01}}
  train.adamw %w, %g, %m, %v step(%t : tensor<i64>) {lr = 1.0e-3 : f64, weight_decay = -0.1 : f64} : tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>
  return
}

// -----

// A free ends a lifetime in program order of the block that defines the
// value; a free nested in a region of another op is rejected.
func.func @free_in_nested_region(%x: tensor<4xf32>) -> tensor<4xf32> {
  scf.execute_region {
    // expected-error @+1 {{'train.free' op expected to be in the block that defines the freed value}}
    train.free %x : tensor<4xf32>
    scf.yield
  }
  %y = train.relu %x : tensor<4xf32>
  return %y : tensor<4xf32>
}

// -----

// The concat message names the offending input's own size along the axis.
func.func @concat_third_input(%a: tensor<4x8xf32>, %c: tensor<2x8xf32>) -> tensor<6x24xf32> {
  // expected-error @+1 {{'train.concat' op expected input 2 (any size along axis 1) of shape 4x8, got 2x8}}
  %0 = train.concat %a, %a, %c {axis = 1 : i64} : tensor<4x8xf32>, tensor<4x8xf32>, tensor<2x8xf32> -> tensor<6x24xf32>
  return %0 : tensor<6x24xf32>
}

// -----

// slice_grad names its grad operand when the element types differ.
func.func @slice_grad_element_type(%g: tensor<8x768xbf16>) -> tensor<8x2304xf32> {
  // expected-error @+1 {{'train.slice_grad' op expected grad element type 'f32', got 'bf16'}}
  %0 = train.slice_grad %g {offsets = array<i64: 0, 0>} : tensor<8x768xbf16> -> tensor<8x2304xf32>
  return %0 : tensor<8x2304xf32>
}

// -----

// Window arithmetic that overflows int64 is an error, not a wrap-around.
func.func @slice_stride_overflow(%x: tensor<8xf32>) -> tensor<3xf32> {
  // expected-error @+1 {{'train.slice' op window 3 at offsets [0] with strides [4611686018427387904] exceeds the tensor 8 in dimension 0}}
  %0 = train.slice %x {offsets = array<i64: 0>, strides = array<i64: 4611686018427387904>} : tensor<8xf32> -> tensor<3xf32>
  return %0 : tensor<3xf32>
}

// -----

func.func @upsample_scale_overflow(%x: tensor<1x1x4x4xf32>) -> tensor<1x1x0x0xf32> {
  // expected-error @+1 {{'train.upsample_nearest2d' op scale 4611686018427387904 overflows the size of 1x1x4x4}}
  %0 = train.upsample_nearest2d %x {scale = 4611686018427387904 : i64} : tensor<1x1x4x4xf32> -> tensor<1x1x0x0xf32>
  return %0 : tensor<1x1x0x0xf32>
}

// -----

func.func @pool_padding_overflow(%x: tensor<1x1x4x4xf32>) -> tensor<1x1x2x2xf32> {
  // expected-error @+1 {{'train.max_pool2d' op expected padding at most half the kernel, got padding 4611686018427387904 for kernel 2}}
  %0 = train.max_pool2d %x {kernel = array<i64: 2, 2>, padding = array<i64: 4611686018427387904, 0>} : tensor<1x1x4x4xf32> -> tensor<1x1x2x2xf32>
  return %0 : tensor<1x1x2x2xf32>
}

// -----

func.func @conv_padding_overflow(%x: tensor<1x1x4x4xf32>, %w: tensor<1x1x3x3xf32>) -> tensor<1x1x2x2xf32> {
  // expected-error @+1 {{'train.conv2d' op window attributes overflow 64-bit arithmetic on the input shape}}
  %0 = train.conv2d %x, %w {padding = array<i64: 4611686018427387904, 0>} : tensor<1x1x4x4xf32>, tensor<1x1x3x3xf32> -> tensor<1x1x2x2xf32>
  return %0 : tensor<1x1x2x2xf32>
}

// -----

// A tensor whose byte size does not fit memopt's 64-bit sums (2^62 x 4
// elements of 4 bytes wraps around to 0) is refused, not counted as 24 B.
func.func @huge_tensor(%x: tensor<4611686018427387904x4xf32>) -> tensor<4611686018427387904x4xf32> {
  // expected-error @+1 {{operand #0 has type 'tensor<4611686018427387904x4xf32>', larger than the 17592186044416 bytes (16 TiB) memopt accepts for one tensor}}
  %0 = train.relu %x : tensor<4611686018427387904x4xf32>
  return %0 : tensor<4611686018427387904x4xf32>
}

// -----

func.func @huge_param() -> tensor<f32> {
  // expected-error @+1 {{result #0 has type 'tensor<1048576x1048576x8xf32>', larger than the 17592186044416 bytes (16 TiB) memopt accepts for one tensor}}
  %w = train.param "w" : tensor<1048576x1048576x8xf32>
  %l = train.reduce_sum %w {dims = array<i64: 0, 1, 2>} : tensor<1048576x1048576x8xf32> -> tensor<f32>
  return %l : tensor<f32>
}

// -----

// An infinite or NaN scale would turn every result into NaN.
func.func @softmax_scale_inf(%x: tensor<2x4xf32>) -> tensor<2x4xf32> {
  // expected-error @+1 {{'train.softmax' op attribute 'scale' must be finite, got inf}}
  %0 = train.softmax %x {scale = 0x7FF0000000000000 : f64} : tensor<2x4xf32>
  return %0 : tensor<2x4xf32>
}

// -----

func.func @sgd_lr_nan(%g: tensor<4xf32>) {
  %w = train.param "w" : tensor<4xf32>
  // expected-error @+1 {{'train.sgd' op attribute 'lr' must be finite, got nan}}
  train.sgd %w, %g {lr = 0x7FF8000000000000 : f64} : tensor<4xf32>, tensor<4xf32>
  return
}

// -----

func.func @relu_upper_not_positive(%x: tensor<4xf32>) -> tensor<4xf32> {
  // expected-error @+1 {{'train.relu' op upper bound 0.000000e+00 must be positive}}
  %0 = train.relu %x {upper = 0.0 : f64} : tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

func.func @relu_grad_upper_not_positive(%d: tensor<4xf32>, %y: tensor<4xf32>) -> tensor<4xf32> {
  // expected-error @+1 {{'train.relu_grad' op upper bound -6.000000e+00 must be positive}}
  %0 = train.relu_grad %d, %y {upper = -6.0 : f64} : tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

func.func @relu_upper_not_finite(%x: tensor<4xf32>) -> tensor<4xf32> {
  // expected-error @+1 {{upper}}
  %0 = train.relu %x {upper = 0x7FF0000000000000 : f64} : tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

func.func @sigmoid_result_shape(%x: tensor<4x8xf32>) -> tensor<8x4xf32> {
  // expected-error @+1 {{'train.sigmoid' op expected result of shape 4x8, got 8x4}}
  %0 = train.sigmoid %x : tensor<4x8xf32> -> tensor<8x4xf32>
  return %0 : tensor<8x4xf32>
}

// -----

func.func @tanh_grad_result_shape(%g: tensor<4xf32>, %y: tensor<4xf32>) -> tensor<2x2xf32> {
  // expected-error @+1 {{'train.tanh_grad' op expected result of shape 4, got 2x2}}
  %0 = train.tanh_grad %g, %y : tensor<4xf32>, tensor<4xf32> -> tensor<2x2xf32>
  return %0 : tensor<2x2xf32>
}

// -----

func.func @hardsigmoid_result_type(%x: tensor<4xbf16>) -> tensor<4xf32> {
  // expected-error @+1 {{'train.hardsigmoid' op expected result element type 'bf16', got 'f32'}}
  %0 = train.hardsigmoid %x : tensor<4xbf16> -> tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

func.func @hardswish_result_shape(%x: tensor<4xf32>) -> tensor<2x2xf32> {
  // expected-error @+1 {{'train.hardswish' op expected result of shape 4, got 2x2}}
  %0 = train.hardswish %x : tensor<4xf32> -> tensor<2x2xf32>
  return %0 : tensor<2x2xf32>
}

// -----

func.func @sigmoid_grad_saved_shape(%g: tensor<4x8xf32>, %y: tensor<8x4xf32>) -> tensor<4x8xf32> {
  // expected-error @+1 {{'train.sigmoid_grad' op expected saved of shape 4x8, got 8x4}}
  %0 = train.sigmoid_grad %g, %y : tensor<4x8xf32>, tensor<8x4xf32> -> tensor<4x8xf32>
  return %0 : tensor<4x8xf32>
}

// -----

func.func @hardsigmoid_grad_saved_type(%g: tensor<4xf32>, %x: tensor<4xf16>) -> tensor<4xf32> {
  // expected-error @+1 {{'train.hardsigmoid_grad' op expected saved element type 'f32', got 'f16'}}
  %0 = train.hardsigmoid_grad %g, %x : tensor<4xf32>, tensor<4xf16> -> tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

func.func @hardswish_grad_result_type(%g: tensor<4xf32>, %x: tensor<4xf32>) -> tensor<4xf64> {
  // expected-error @+1 {{'train.hardswish_grad' op expected result element type 'f32', got 'f64'}}
  %0 = train.hardswish_grad %g, %x : tensor<4xf32>, tensor<4xf32> -> tensor<4xf64>
  return %0 : tensor<4xf64>
}

// -----

func.func @max_pool2d_ceil_shape(%x: tensor<1x2x8x6xf32>) -> tensor<1x2x3x2xf32> {
  // expected-error @+1 {{'train.max_pool2d' op expected result of shape 1x2x4x3, got 1x2x3x2}}
  %0 = train.max_pool2d %x {ceil_mode, kernel = array<i64: 3, 3>, strides = array<i64: 2, 2>} : tensor<1x2x8x6xf32> -> tensor<1x2x3x2xf32>
  return %0 : tensor<1x2x3x2xf32>
}

// -----

// Without ceil_mode the partial window does not exist.
func.func @max_pool2d_grad_no_ceil(%g: tensor<1x2x4x3xf32>, %x: tensor<1x2x8x6xf32>) -> tensor<1x2x8x6xf32> {
  // expected-error @+1 {{'train.max_pool2d_grad' op expected grad of shape 1x2x3x2, got 1x2x4x3}}
  %0 = train.max_pool2d_grad %g, %x {kernel = array<i64: 3, 3>, strides = array<i64: 2, 2>} : tensor<1x2x4x3xf32>, tensor<1x2x8x6xf32> -> tensor<1x2x8x6xf32>
  return %0 : tensor<1x2x8x6xf32>
}

// -----

// A window that would start past the input and its left padding is not
// added: 7 rows, kernel 2, stride 2, padding 1 give 4 windows (the fifth
// would start at padded row 8 = 7 + 1).
func.func @max_pool2d_ceil_dropped(%x: tensor<1x1x7x7xf32>) -> tensor<1x1x5x5xf32> {
  // expected-error @+1 {{'train.max_pool2d' op expected result of shape 1x1x4x4, got 1x1x5x5}}
  %0 = train.max_pool2d %x {ceil_mode, kernel = array<i64: 2, 2>, padding = array<i64: 1, 1>, strides = array<i64: 2, 2>} : tensor<1x1x7x7xf32> -> tensor<1x1x5x5xf32>
  return %0 : tensor<1x1x5x5xf32>
}
