// RUN: mem-opt %s -split-input-file --memopt-expand-fp8-conversions --mlir-print-debuginfo=false | FileCheck %s

// f32 -> E4M3FN: integer rounding on the f32 bits, saturation to 448 (code
// 0x7E), NaN to 0x7F, the sign ORed back, and a bitcast from i8. The
// executed results are checked against ml_dtypes in
// test/Integration/fp8-conversions.test.
// CHECK-LABEL: func.func @truncf_e4m3fn(
// CHECK-SAME: %[[X:[^:]+]]: f32
// CHECK-NOT: arith.truncf
// CHECK: %[[BITS:.+]] = arith.bitcast %[[X]] : f32 to i32
// CHECK: %[[ABS:.+]] = arith.andi %[[BITS]], %{{.+}} : i32
// CHECK: %[[EXP:.+]] = arith.shrui %[[ABS]], %c23_i32 : i32
// Above the bits of +inf: NaN.
// CHECK: %[[ISNAN:.+]] = arith.cmpi ugt, %[[ABS]], %c2139095040_i32 : i32
// Normal results: rebias by (127 - 7) << 23, drop 20 bits to nearest even.
// CHECK: %[[REBIASED:.+]] = arith.subi %[[ABS]], %c1006632960_i32 : i32
// CHECK: %[[KEPT:.+]] = arith.shrui %[[REBIASED]], %c20_i32 : i32
// CHECK: %[[ODD:.+]] = arith.andi %[[KEPT]], %c1_i32 : i32
// CHECK: %[[HALF:.+]] = arith.addi %[[REBIASED]], %c524287_i32 : i32
// CHECK: %[[UP:.+]] = arith.addi %[[HALF]], %[[ODD]] : i32
// CHECK: %[[NORMAL:.+]] = arith.shrui %[[UP]], %c20_i32 : i32
// Subnormal results: a variable shift, clamped into [1, 25].
// CHECK: arith.maxsi
// CHECK: %[[SHIFT:.+]] = arith.minsi %{{.+}}, %c25_i32 : i32
// CHECK: arith.shrui %{{.+}}, %[[SHIFT]] : i32
// CHECK: %[[SUBNORMAL:.+]] = arith.shrui %{{.+}}, %[[SHIFT]] : i32
// CHECK: %[[ISNORMAL:.+]] = arith.cmpi uge, %[[EXP]], %c121_i32 : i32
// CHECK: %[[ROUNDED:.+]] = arith.select %[[ISNORMAL]], %[[NORMAL]], %[[SUBNORMAL]] : i32
// CHECK: %[[SAT:.+]] = arith.minui %[[ROUNDED]], %c126_i32 : i32
// CHECK: %[[CODE:.+]] = arith.select %[[ISNAN]], %c127_i32, %[[SAT]] : i32
// CHECK: %[[CODE8:.+]] = arith.trunci %[[CODE]] : i32 to i8
// CHECK: %[[SIGN:.+]] = arith.andi %{{.+}}, %c-128_i8 : i8
// CHECK: %[[SIGNED:.+]] = arith.ori %[[CODE8]], %[[SIGN]] : i8
// CHECK: %[[R:.+]] = arith.bitcast %[[SIGNED]] : i8 to f8E4M3FN
// CHECK: return %[[R]] : f8E4M3FN
func.func @truncf_e4m3fn(%x: f32) -> f8E4M3FN {
  %h = arith.truncf %x : f32 to f8E4M3FN
  return %h : f8E4M3FN
}

// -----

// E4M3FN -> f32: normal codes shifted by 23 - 3 and rebiased, subnormal
// ones as mantissa * 2^-9, 0x7F as the quiet NaN, then the sign.
// CHECK-LABEL: func.func @extf_e4m3fn(
// CHECK-SAME: %[[X:[^:]+]]: f8E4M3FN
// CHECK-NOT: arith.extf
// CHECK: %[[CODE:.+]] = arith.bitcast %[[X]] : f8E4M3FN to i8
// CHECK: %[[WIDE:.+]] = arith.extui %[[CODE]] : i8 to i32
// CHECK: %[[MAG:.+]] = arith.andi %[[WIDE]], %c127_i32 : i32
// CHECK: %[[EXP:.+]] = arith.shrui %[[MAG]], %c3_i32 : i32
// CHECK: %[[MANT:.+]] = arith.andi %[[MAG]], %c7_i32 : i32
// CHECK: %[[SHIFTED:.+]] = arith.shli %[[MAG]], %c20_i32 : i32
// CHECK: %[[NORMAL:.+]] = arith.addi %[[SHIFTED]], %c1006632960_i32 : i32
// CHECK: %[[SCALE:.+]] = arith.constant 0.001953125 : f32
// CHECK: %[[MANTF:.+]] = arith.uitofp %[[MANT]] : i32 to f32
// CHECK: %[[SUB:.+]] = arith.mulf %[[MANTF]], %[[SCALE]] : f32
// CHECK: %[[SUBBITS:.+]] = arith.bitcast %[[SUB]] : f32 to i32
// CHECK: %[[ISSUB:.+]] = arith.cmpi eq, %[[EXP]], %c0_i32 : i32
// CHECK: %[[VALUE:.+]] = arith.select %[[ISSUB]], %[[SUBBITS]], %[[NORMAL]] : i32
// CHECK: %[[ISNAN:.+]] = arith.cmpi eq, %[[MAG]], %{{.+}} : i32
// CHECK: %[[NAN:.+]] = arith.select %[[ISNAN]], %c2143289344_i32, %[[VALUE]] : i32
// CHECK: %[[SIGNED:.+]] = arith.ori %[[NAN]], %{{.+}} : i32
// CHECK: %[[R:.+]] = arith.bitcast %[[SIGNED]] : i32 to f32
// CHECK: return %[[R]] : f32
func.func @extf_e4m3fn(%x: f8E4M3FN) -> f32 {
  %h = arith.extf %x : f8E4M3FN to f32
  return %h : f32
}

// -----

// f64 is rounded once, in i64 (not through f32); vectors with splat
// constants. E5M2 saturates to 57344 (code 0x7B) and its NaN is 0x7E.
// CHECK-LABEL: func.func @truncf_f64_e5m2_vector
// CHECK: arith.bitcast %{{.+}} : vector<4xf64> to vector<4xi64>
// CHECK-NOT: arith.truncf
// CHECK: arith.minui %{{.+}}, %{{.+}} : vector<4xi64>
// CHECK: arith.trunci %{{.+}} : vector<4xi64> to vector<4xi8>
// CHECK: arith.bitcast %{{.+}} : vector<4xi8> to vector<4xf8E5M2>
func.func @truncf_f64_e5m2_vector(%x: vector<4xf64>) -> vector<4xf8E5M2> {
  %h = arith.truncf %x : vector<4xf64> to vector<4xf8E5M2>
  return %h : vector<4xf8E5M2>
}

// -----

// Conversions to f16 and bf16 decode to f32 first (exact), then truncate;
// from bf16, the rounding works on its 16 bits.
// CHECK-LABEL: func.func @extf_e5m2_bf16
// CHECK-NOT: arith.extf
// CHECK: %[[F32:.+]] = arith.bitcast %{{.+}} : i32 to f32
// CHECK: arith.truncf %[[F32]] : f32 to bf16
// CHECK-LABEL: func.func @truncf_bf16_e5m2
// CHECK: arith.bitcast %{{.+}} : bf16 to i16
// CHECK-NOT: arith.truncf
// CHECK: arith.bitcast %{{.+}} : i8 to f8E5M2
func.func @extf_e5m2_bf16(%x: f8E5M2) -> bf16 {
  %h = arith.extf %x : f8E5M2 to bf16
  return %h : bf16
}
func.func @truncf_bf16_e5m2(%x: bf16) -> f8E5M2 {
  %h = arith.truncf %x : bf16 to f8E5M2
  return %h : f8E5M2
}

// -----

// Other formats and conversions are left alone.
// CHECK-LABEL: func.func @others
// CHECK: arith.extf %{{.+}} : f8E4M3FNUZ to f32
// CHECK: arith.truncf %{{.+}} : f32 to f16
// CHECK: arith.truncf %{{.+}} : f32 to f8E8M0FNU
func.func @others(%x: f8E4M3FNUZ, %y: f32) -> (f32, f16, f8E8M0FNU) {
  %a = arith.extf %x : f8E4M3FNUZ to f32
  %b = arith.truncf %y : f32 to f16
  %c = arith.truncf %y : f32 to f8E8M0FNU
  return %a, %b, %c : f32, f16, f8E8M0FNU
}
