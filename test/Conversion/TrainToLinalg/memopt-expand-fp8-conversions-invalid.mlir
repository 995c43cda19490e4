// RUN: mem-opt %s -split-input-file --memopt-expand-fp8-conversions -verify-diagnostics

func.func @tensor(%x: tensor<4xf32>) -> tensor<4xf8E4M3FN> {
  // expected-error@+1 {{'arith.truncf' op converts a 'tensor<4xf32>'; memopt-expand-fp8-conversions expands scalars and vectors only: run it after bufferization and loop formation}}
  %h = arith.truncf %x : tensor<4xf32> to tensor<4xf8E4M3FN>
  return %h : tensor<4xf8E4M3FN>
}

// -----

func.func @rounding_mode(%x: f32) -> f8E5M2 {
  // expected-error@+1 {{'arith.truncf' op rounds toward_zero; memopt-expand-fp8-conversions implements to_nearest_even only}}
  %h = arith.truncf %x toward_zero : f32 to f8E5M2
  return %h : f8E5M2
}

// -----

func.func @wide_type(%x: f8E4M3FN) -> tf32 {
  // expected-error@+1 {{'arith.extf' op converts 'f8E4M3FN' to 'tf32'; memopt-expand-fp8-conversions converts between f8E4M3FN or f8E5M2 and f16, bf16, f32 or f64 only}}
  %h = arith.extf %x : f8E4M3FN to tf32
  return %h : tf32
}
