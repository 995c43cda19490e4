// RUN: mem-opt --mlir-print-debuginfo=false %s | mem-opt --mlir-print-debuginfo=false | FileCheck %s
// RUN: mem-opt --mlir-print-debuginfo=false %s --mlir-print-op-generic | mem-opt --mlir-print-debuginfo=false | FileCheck %s
// RUN: mem-opt %s -split-input-file --test-print-op-interfaces -o /dev/null | FileCheck %s --check-prefix=COST

// Round trip of the fp8 ops (train.fp8_scale, train.quantize,
// train.scaled_matmul, train.amax_record), through the custom and the generic
// form, and their costs. Each CHECK matches the whole printed op; margin = 0
// is the default and is elided.
// COST lines: FLOPs per the ODS descriptions (fp8_scale: history elements + 2;
// quantize: 3 per element; scaled_matmul: result elements * (2K + 1);
// amax_record: history elements); bytes are n * ceil(bitwidth / 8) (f64 8,
// f32 4, bf16/f16 2, f8 1), read = all operands, written = results plus
// operands updated in place.
// One function per split: the print pass runs on functions in parallel.

// CHECK-LABEL: func.func @fp8_scale()
// CHECK-NEXT:    %[[H16:.+]] = train.opt_state "fp8.x.amax_history" : tensor<16xf32>{{$}}
// CHECK-NEXT:    %[[H1:.+]] = train.opt_state "fp8.w.amax_history" : tensor<1xf32>{{$}}
// CHECK-NEXT:    %[[S0:.+]] = train.fp8_scale %[[H16]] {format = f8E4M3FN} : tensor<16xf32> -> tensor<f32>{{$}}
// CHECK-NEXT:    %[[S1:.+]] = train.fp8_scale %[[H1]] {format = f8E5M2} : tensor<1xf32> -> tensor<f32>{{$}}
// CHECK-NEXT:    %[[S2:.+]] = train.fp8_scale %[[H16]] {format = f8E5M2, margin = 64 : i64} : tensor<16xf32> -> tensor<f32>{{$}}
// CHECK-NEXT:    %[[S3:.+]] = train.fp8_scale %[[H1]] {format = f8E4M3FN, margin = 2 : i64} : tensor<1xf32> -> tensor<f32>{{$}}
// CHECK-NEXT:    return %[[S0]], %[[S1]], %[[S2]], %[[S3]] :

// COST-LABEL: func @fp8_scale
// COST-NEXT:  train.opt_state loc("h16"): flops=0 read=0 written=0 workspace=0 precision=keep-fp32{{$}}
// COST-NEXT:  train.opt_state loc("h1"): flops=0 read=0 written=0 workspace=0 precision=keep-fp32{{$}}
// COST-NEXT:  train.fp8_scale loc("scale16"): flops=18 read=64 written=4 workspace=0 precision=keep-fp32{{$}}
// COST-NEXT:  train.fp8_scale loc("scale1"): flops=3 read=4 written=4 workspace=0 precision=keep-fp32{{$}}
// COST-NEXT:  train.fp8_scale loc("scale16_m64"): flops=18 read=64 written=4 workspace=0 precision=keep-fp32{{$}}
// COST-NEXT:  train.fp8_scale loc("scale1_m2"): flops=3 read=4 written=4 workspace=0 precision=keep-fp32{{$}}
func.func @fp8_scale() -> (tensor<f32>, tensor<f32>, tensor<f32>, tensor<f32>) {
  %h16 = train.opt_state "fp8.x.amax_history" : tensor<16xf32> loc("h16")
  %h1 = train.opt_state "fp8.w.amax_history" : tensor<1xf32> loc("h1")
  // scale16: 16 + 2 FLOPs; read 16*4
  %s0 = train.fp8_scale %h16 {format = f8E4M3FN} : tensor<16xf32> -> tensor<f32> loc("scale16")
  // scale1: an explicit margin = 0 is elided; 1 + 2 FLOPs
  %s1 = train.fp8_scale %h1 {format = f8E5M2, margin = 0} : tensor<1xf32> -> tensor<f32> loc("scale1")
  // The largest margin; attributes print sorted.
  %s2 = train.fp8_scale %h16 {margin = 64, format = f8E5M2} : tensor<16xf32> -> tensor<f32> loc("scale16_m64")
  %s3 = train.fp8_scale %h1 {format = f8E4M3FN, margin = 2} : tensor<1xf32> -> tensor<f32> loc("scale1_m2")
  return %s0, %s1, %s2, %s3 : tensor<f32>, tensor<f32>, tensor<f32>, tensor<f32>
}

// -----

// CHECK-LABEL: func.func @quantize(
// CHECK-SAME:      %[[X:.+]]: tensor<6x10xbf16>, %[[W:.+]]: tensor<10x14xf32>, %[[B:.+]]: tensor<4x6x10xf16>, %[[D:.+]]: tensor<7xf64>, %[[S:.+]]: tensor<f32>)
// CHECK-NEXT:    %[[Q0:.+]], %[[A0:.+]] = train.quantize %[[X]], %[[S]] : tensor<6x10xbf16>, tensor<f32> -> tensor<6x10xf8E4M3FN>, tensor<f32>{{$}}
// CHECK-NEXT:    %[[Q1:.+]], %[[A1:.+]] = train.quantize %[[W]], %[[S]] : tensor<10x14xf32>, tensor<f32> -> tensor<10x14xf8E5M2>, tensor<f32>{{$}}
// CHECK-NEXT:    %[[Q2:.+]], %[[A2:.+]] = train.quantize %[[B]], %[[S]] : tensor<4x6x10xf16>, tensor<f32> -> tensor<4x6x10xf8E4M3FN>, tensor<f32>{{$}}
// CHECK-NEXT:    %[[Q3:.+]], %[[A3:.+]] = train.quantize %[[D]], %[[S]] : tensor<7xf64>, tensor<f32> -> tensor<7xf8E5M2>, tensor<f32>{{$}}
// CHECK-NEXT:    return %[[Q0]], %[[Q1]], %[[Q2]], %[[Q3]], %[[A0]], %[[A1]], %[[A2]], %[[A3]] :

// COST-LABEL: func @quantize
// COST-NEXT:  train.quantize loc("q_bf16"): flops=180 read=124 written=64 workspace=0 precision=low-precision-safe{{$}}
// COST-NEXT:  train.quantize loc("q_f32"): flops=420 read=564 written=144 workspace=0 precision=low-precision-safe{{$}}
// COST-NEXT:  train.quantize loc("q_f16"): flops=720 read=484 written=244 workspace=0 precision=low-precision-safe{{$}}
// COST-NEXT:  train.quantize loc("q_f64"): flops=21 read=60 written=11 workspace=0 precision=low-precision-safe{{$}}
func.func @quantize(%x: tensor<6x10xbf16>, %w: tensor<10x14xf32>, %b: tensor<4x6x10xf16>, %d: tensor<7xf64>, %s: tensor<f32>) -> (tensor<6x10xf8E4M3FN>, tensor<10x14xf8E5M2>, tensor<4x6x10xf8E4M3FN>, tensor<7xf8E5M2>, tensor<f32>, tensor<f32>, tensor<f32>, tensor<f32>) {
  // q_bf16: 3*60 FLOPs; read 60*2 + 4, write 60*1 + 4
  %q0, %a0 = train.quantize %x, %s : tensor<6x10xbf16>, tensor<f32> -> tensor<6x10xf8E4M3FN>, tensor<f32> loc("q_bf16")
  // q_f32: 3*140 FLOPs; read 140*4 + 4, write 140*1 + 4
  %q1, %a1 = train.quantize %w, %s : tensor<10x14xf32>, tensor<f32> -> tensor<10x14xf8E5M2>, tensor<f32> loc("q_f32")
  // q_f16: 3*240 FLOPs; read 240*2 + 4, write 240*1 + 4
  %q2, %a2 = train.quantize %b, %s : tensor<4x6x10xf16>, tensor<f32> -> tensor<4x6x10xf8E4M3FN>, tensor<f32> loc("q_f16")
  // q_f64: 3*7 FLOPs; read 7*8 + 4, write 7*1 + 4
  %q3, %a3 = train.quantize %d, %s : tensor<7xf64>, tensor<f32> -> tensor<7xf8E5M2>, tensor<f32> loc("q_f64")
  return %q0, %q1, %q2, %q3, %a0, %a1, %a2, %a3 : tensor<6x10xf8E4M3FN>, tensor<10x14xf8E5M2>, tensor<4x6x10xf8E4M3FN>, tensor<7xf8E5M2>, tensor<f32>, tensor<f32>, tensor<f32>, tensor<f32>
}

// -----

// CHECK-LABEL: func.func @scaled_matmul(
// CHECK-SAME:      %[[X:.+]]: tensor<6x10xf8E4M3FN>, %[[W:.+]]: tensor<10x14xf8E4M3FN>, %[[XT:.+]]: tensor<10x6xf8E4M3FN>, %[[WT:.+]]: tensor<14x10xf8E4M3FN>, %[[B:.+]]: tensor<4x6x10xf8E4M3FN>, %[[G:.+]]: tensor<6x14xf8E5M2>, %[[SX:.+]]: tensor<f32>, %[[SW:.+]]: tensor<f32>)
// CHECK-NEXT:    %[[H:.+]] = train.opt_state "fp8.fc1.grad.amax_history" : tensor<16xf32>{{$}}
// CHECK-NEXT:    %[[Y0:.+]] = train.scaled_matmul %[[X]], %[[W]] scales(%[[SX]], %[[SW]] : tensor<f32>, tensor<f32>) : tensor<6x10xf8E4M3FN>, tensor<10x14xf8E4M3FN> -> tensor<6x14xbf16>{{$}}
// CHECK-NEXT:    %[[Y1:.+]] = train.scaled_matmul %[[X]], %[[W]] scales(%[[SX]], %[[SW]] : tensor<f32>, tensor<f32>) grad_history(%[[H]] : tensor<16xf32>) : tensor<6x10xf8E4M3FN>, tensor<10x14xf8E4M3FN> -> tensor<6x14xf32>{{$}}
// CHECK-NEXT:    %[[Y2:.+]] = train.scaled_matmul %[[XT]], %[[W]] scales(%[[SX]], %[[SW]] : tensor<f32>, tensor<f32>) {transpose_lhs} : tensor<10x6xf8E4M3FN>, tensor<10x14xf8E4M3FN> -> tensor<6x14xbf16>{{$}}
// CHECK-NEXT:    %[[Y3:.+]] = train.scaled_matmul %[[X]], %[[WT]] scales(%[[SX]], %[[SW]] : tensor<f32>, tensor<f32>) grad_history(%[[H]] : tensor<16xf32>) {transpose_rhs} : tensor<6x10xf8E4M3FN>, tensor<14x10xf8E4M3FN> -> tensor<6x14xf32>{{$}}
// CHECK-NEXT:    %[[Y4:.+]] = train.scaled_matmul %[[XT]], %[[WT]] scales(%[[SX]], %[[SW]] : tensor<f32>, tensor<f32>) {transpose_lhs, transpose_rhs} : tensor<10x6xf8E4M3FN>, tensor<14x10xf8E4M3FN> -> tensor<6x14xbf16>{{$}}
// CHECK-NEXT:    %[[Y5:.+]] = train.scaled_matmul %[[B]], %[[W]] scales(%[[SX]], %[[SW]] : tensor<f32>, tensor<f32>) : tensor<4x6x10xf8E4M3FN>, tensor<10x14xf8E4M3FN> -> tensor<4x6x14xf32>{{$}}
// CHECK-NEXT:    %[[Y6:.+]] = train.scaled_matmul %[[G]], %[[WT]] scales(%[[SX]], %[[SW]] : tensor<f32>, tensor<f32>) : tensor<6x14xf8E5M2>, tensor<14x10xf8E4M3FN> -> tensor<6x10xbf16>{{$}}
// CHECK-NEXT:    return %[[Y0]], %[[Y1]], %[[Y2]], %[[Y3]], %[[Y4]], %[[Y5]], %[[Y6]] :

// COST-LABEL: func @scaled_matmul
// COST-NEXT:  train.opt_state loc("hg"): flops=0 read=0 written=0 workspace=0 precision=keep-fp32{{$}}
// COST-NEXT:  train.scaled_matmul loc("smm"): flops=1764 read=208 written=168 workspace=0 precision=low-precision-safe{{$}}
// COST-NEXT:  train.scaled_matmul loc("smm_hist"): flops=1764 read=272 written=336 workspace=0 precision=low-precision-safe{{$}}
// COST-NEXT:  train.scaled_matmul loc("smm_tl"): flops=1764 read=208 written=168 workspace=0 precision=low-precision-safe{{$}}
// COST-NEXT:  train.scaled_matmul loc("smm_tr"): flops=1764 read=272 written=336 workspace=0 precision=low-precision-safe{{$}}
// COST-NEXT:  train.scaled_matmul loc("smm_tt"): flops=1764 read=208 written=168 workspace=0 precision=low-precision-safe{{$}}
// COST-NEXT:  train.scaled_matmul loc("smm_batched"): flops=7056 read=388 written=1344 workspace=0 precision=low-precision-safe{{$}}
// COST-NEXT:  train.scaled_matmul loc("smm_e5"): flops=1740 read=232 written=120 workspace=0 precision=low-precision-safe{{$}}
func.func @scaled_matmul(%x: tensor<6x10xf8E4M3FN>, %w: tensor<10x14xf8E4M3FN>, %xt: tensor<10x6xf8E4M3FN>, %wt: tensor<14x10xf8E4M3FN>, %b: tensor<4x6x10xf8E4M3FN>, %g: tensor<6x14xf8E5M2>, %sx: tensor<f32>, %sw: tensor<f32>) -> (tensor<6x14xbf16>, tensor<6x14xf32>, tensor<6x14xbf16>, tensor<6x14xf32>, tensor<6x14xbf16>, tensor<4x6x14xf32>, tensor<6x10xbf16>) {
  %h = train.opt_state "fp8.fc1.grad.amax_history" : tensor<16xf32> loc("hg")
  // smm: M=6 N=14 K=10: 84 * (2*10 + 1) FLOPs; read 60 + 140 + 4 + 4, write 84*2
  %y0 = train.scaled_matmul %x, %w scales(%sx, %sw : tensor<f32>, tensor<f32>) : tensor<6x10xf8E4M3FN>, tensor<10x14xf8E4M3FN> -> tensor<6x14xbf16> loc("smm")
  // smm_hist: grad_history adds 16*4 read; f32 result writes 84*4
  %y1 = train.scaled_matmul %x, %w scales(%sx, %sw : tensor<f32>, tensor<f32>) grad_history(%h : tensor<16xf32>) : tensor<6x10xf8E4M3FN>, tensor<10x14xf8E4M3FN> -> tensor<6x14xf32> loc("smm_hist")
  // smm_tl: K is the lhs's first dimension (10)
  %y2 = train.scaled_matmul %xt, %w scales(%sx, %sw : tensor<f32>, tensor<f32>) {transpose_lhs} : tensor<10x6xf8E4M3FN>, tensor<10x14xf8E4M3FN> -> tensor<6x14xbf16> loc("smm_tl")
  // smm_tr: grad_history with a transpose; read 60 + 140 + 8 + 64
  %y3 = train.scaled_matmul %x, %wt scales(%sx, %sw : tensor<f32>, tensor<f32>) grad_history(%h : tensor<16xf32>) {transpose_rhs} : tensor<6x10xf8E4M3FN>, tensor<14x10xf8E4M3FN> -> tensor<6x14xf32> loc("smm_tr")
  // Both transposes, given in the other order: they print sorted.
  %y4 = train.scaled_matmul %xt, %wt scales(%sx, %sw : tensor<f32>, tensor<f32>) {transpose_rhs, transpose_lhs} : tensor<10x6xf8E4M3FN>, tensor<14x10xf8E4M3FN> -> tensor<6x14xbf16> loc("smm_tt")
  // smm_batched: rank-3 lhs, shared rank-2 rhs: 336 * 21 FLOPs; read 240 + 140 + 8, write 336*4
  %y5 = train.scaled_matmul %b, %w scales(%sx, %sw : tensor<f32>, tensor<f32>) : tensor<4x6x10xf8E4M3FN>, tensor<10x14xf8E4M3FN> -> tensor<4x6x14xf32> loc("smm_batched")
  // smm_e5: an f8E5M2 lhs; M=6 N=10 K=14: 60 * 29 FLOPs; read 84 + 140 + 8, write 60*2
  %y6 = train.scaled_matmul %g, %wt scales(%sx, %sw : tensor<f32>, tensor<f32>) : tensor<6x14xf8E5M2>, tensor<14x10xf8E4M3FN> -> tensor<6x10xbf16> loc("smm_e5")
  return %y0, %y1, %y2, %y3, %y4, %y5, %y6 : tensor<6x14xbf16>, tensor<6x14xf32>, tensor<6x14xbf16>, tensor<6x14xf32>, tensor<6x14xbf16>, tensor<4x6x14xf32>, tensor<6x10xbf16>
}

// -----

// CHECK-LABEL: func.func @amax_record(
// CHECK-SAME:      %[[A:.+]]: tensor<f32>)
// CHECK-NEXT:    %[[H16:.+]] = train.opt_state "fp8.x.amax_history" : tensor<16xf32>{{$}}
// CHECK-NEXT:    %[[H1:.+]] = train.opt_state "fp8.w.amax_history" : tensor<1xf32>{{$}}
// CHECK-NEXT:    train.amax_record %[[A]], %[[H16]] : tensor<f32>, tensor<16xf32>{{$}}
// CHECK-NEXT:    train.amax_record %[[A]], %[[H1]] : tensor<f32>, tensor<1xf32>{{$}}
// CHECK-NEXT:    return

// COST-LABEL: func @amax_record
// COST-NEXT:  train.opt_state loc("h16"): flops=0 read=0 written=0 workspace=0 precision=keep-fp32{{$}}
// COST-NEXT:  train.opt_state loc("h1"): flops=0 read=0 written=0 workspace=0 precision=keep-fp32{{$}}
// COST-NEXT:  train.amax_record loc("rec16"): flops=16 read=68 written=64 workspace=0 precision=keep-fp32 in-place(operand 1){{$}}
// COST-NEXT:  train.amax_record loc("rec1"): flops=1 read=8 written=4 workspace=0 precision=keep-fp32 in-place(operand 1){{$}}
func.func @amax_record(%a: tensor<f32>) {
  %h16 = train.opt_state "fp8.x.amax_history" : tensor<16xf32> loc("h16")
  %h1 = train.opt_state "fp8.w.amax_history" : tensor<1xf32> loc("h1")
  // rec16: 16 FLOPs; read 4 + 16*4; the history is written in place (16*4)
  train.amax_record %a, %h16 : tensor<f32>, tensor<16xf32> loc("rec16")
  // rec1: a one-entry history
  train.amax_record %a, %h1 : tensor<f32>, tensor<1xf32> loc("rec1")
  return
}
