// RUN: mem-opt %s -split-input-file --memopt-check-fp8-conversions -verify-diagnostics
// An fp8 conversion memopt-lower-to-cpu cannot lower fails there with its
// location, instead of as a JIT or translation error:
// RUN: not mem-opt %s -split-input-file --memopt-lower-to-cpu 2>&1 | FileCheck %s

// CHECK: memopt-check-fp8-conversions.mlir:[[# @LINE + 4]]:{{[0-9]+}}: error: 'arith.extf' op converts 'f8E4M3FNUZ' to 'f32', which the LLVM lowering cannot do: memopt-expand-fp8-conversions expands conversions to and from f8E4M3FN and f8E5M2 and arith-expand those of f8E8M0FNU
func.func @unexpanded_format(%x: memref<4xf8E4M3FNUZ>, %i: index) -> f32 {
  %v = memref.load %x[%i] : memref<4xf8E4M3FNUZ>
  // expected-error@+1 {{'arith.extf' op converts 'f8E4M3FNUZ' to 'f32', which the LLVM lowering cannot do: memopt-expand-fp8-conversions expands conversions to and from f8E4M3FN and f8E5M2 and arith-expand those of f8E8M0FNU}}
  %e = arith.extf %v : f8E4M3FNUZ to f32
  return %e : f32
}

// -----

// A conversion the expansion would handle is an error when it is still
// there (this RUN line runs the check alone).
func.func @left_unlowered(%x: f32) -> f8E4M3FN {
  // expected-error@+1 {{'arith.truncf' op converts 'f32' to 'f8E4M3FN', which the LLVM lowering cannot do}}
  %h = arith.truncf %x : f32 to f8E4M3FN
  return %h : f8E4M3FN
}

// -----

// CHECK: memopt-check-fp8-conversions.mlir:[[# @LINE + 3]]:{{[0-9]+}}: error: 'arith.addf' op computes on a float type of at most 8 bits, which LLVM has no type for; convert the operands to f32 with arith.extf first
func.func @arithmetic(%x: f8E5M2) -> f8E5M2 {
  // expected-error@+1 {{'arith.addf' op computes on a float type of at most 8 bits, which LLVM has no type for; convert the operands to f32 with arith.extf first}}
  %s = arith.addf %x, %x : f8E5M2
  return %s : f8E5M2
}

// -----

// Constants, bitcasts and selects of fp8 values are fine: LLVM stores them
// as i8.
func.func @allowed(%c: i1, %i: i8) -> f8E4M3FN {
  %k = arith.constant 1.5 : f8E4M3FN
  %b = arith.bitcast %i : i8 to f8E4M3FN
  %s = arith.select %c, %k, %b : f8E4M3FN
  return %s : f8E4M3FN
}
