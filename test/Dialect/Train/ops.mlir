// RUN: mem-opt --mlir-print-debuginfo=false %s | mem-opt --mlir-print-debuginfo=false | FileCheck %s
// RUN: mem-opt --mlir-print-debuginfo=false %s --mlir-print-op-generic | mem-opt --mlir-print-debuginfo=false | FileCheck %s
// RUN: mem-opt --mlir-print-debuginfo=false %s > %t.1 && mem-opt --mlir-print-debuginfo=false %t.1 > %t.2 && diff %t.1 %t.2

// Round trip of every train op, through the custom and the generic form.
// Every CHECK matches the whole printed op (operands, attributes, types, end
// of line), so a printer or parser that drops, adds or reorders anything
// fails. Default-valued attributes are elided when they equal the default and
// printed otherwise; the short type forms are printed whenever they apply.
// No canonicalization runs, so same-type casts and reshapes stay.

//===----------------------------------------------------------------------===//
// State
//===----------------------------------------------------------------------===//

// CHECK-LABEL: func.func @param_opt_state()
// CHECK-NEXT:    %[[W:.+]] = train.param "fc1.weight" : tensor<24x40xf32>{{$}}
// CHECK-NEXT:    %[[WH:.+]] = train.param "h.0.attn\22q\22" : tensor<24x40xbf16>{{$}}
// CHECK-NEXT:    %[[IDS:.+]] = train.param "fc1.ids" {memopt.tag = 3 : i32} : tensor<7xi64>{{$}}
// CHECK-NEXT:    %[[M:.+]] = train.opt_state "fc1.weight.exp_avg" : tensor<24x40xf32>{{$}}
// CHECK-NEXT:    %[[V:.+]] = train.opt_state "fc1.weight.exp_avg_sq" : tensor<24x40xf16>{{$}}
// CHECK-NEXT:    return %[[W]], %[[WH]], %[[IDS]], %[[M]], %[[V]] :
func.func @param_opt_state() -> (tensor<24x40xf32>, tensor<24x40xbf16>, tensor<7xi64>, tensor<24x40xf32>, tensor<24x40xf16>) {
  %w = train.param "fc1.weight" : tensor<24x40xf32>
  %wh = train.param "h.0.attn\"q\"" : tensor<24x40xbf16>
  %ids = train.param "fc1.ids" {memopt.tag = 3 : i32} : tensor<7xi64>
  %m = train.opt_state "fc1.weight.exp_avg" : tensor<24x40xf32>
  %v = train.opt_state "fc1.weight.exp_avg_sq" : tensor<24x40xf16>
  return %w, %wh, %ids, %m, %v : tensor<24x40xf32>, tensor<24x40xbf16>, tensor<7xi64>, tensor<24x40xf32>, tensor<24x40xf16>
}

// CHECK-LABEL: func.func @free(
// CHECK-SAME:      %[[A:.+]]: tensor<6x10xf32>, %[[M1:.+]]: tensor<6x10xi1>, %[[M8:.+]]: tensor<6x10xi8>, %[[I:.+]]: tensor<3xi64>)
// CHECK-NEXT:    train.free %[[A]] : tensor<6x10xf32>{{$}}
// CHECK-NEXT:    train.free %[[M1]] : tensor<6x10xi1>{{$}}
// CHECK-NEXT:    train.free %[[M8]] : tensor<6x10xi8>{{$}}
// CHECK-NEXT:    train.free %[[I]] : tensor<3xi64>{{$}}
// CHECK-NEXT:    return
func.func @free(%a: tensor<6x10xf32>, %m1: tensor<6x10xi1>, %m8: tensor<6x10xi8>, %i: tensor<3xi64>) {
  train.free %a : tensor<6x10xf32>
  train.free %m1 : tensor<6x10xi1>
  train.free %m8 : tensor<6x10xi8>
  train.free %i : tensor<3xi64>
  return
}

// CHECK-LABEL: func.func @cast(
// CHECK-SAME:      %[[X:.+]]: tensor<6x10xf32>, %[[H:.+]]: tensor<6x10xf16>)
// CHECK-NEXT:    %[[BF:.+]] = train.cast %[[X]] : tensor<6x10xf32> -> tensor<6x10xbf16>{{$}}
// CHECK-NEXT:    %[[UP:.+]] = train.cast %[[BF]] : tensor<6x10xbf16> -> tensor<6x10xf32>{{$}}
// CHECK-NEXT:    %[[F8:.+]] = train.cast %[[X]] : tensor<6x10xf32> -> tensor<6x10xf8E4M3FN>{{$}}
// CHECK-NEXT:    %[[E5:.+]] = train.cast %[[H]] : tensor<6x10xf16> -> tensor<6x10xf8E5M2>{{$}}
// CHECK-NEXT:    %[[SAME:.+]] = train.cast %[[X]] : tensor<6x10xf32> -> tensor<6x10xf32>{{$}}
// CHECK-NEXT:    return %[[UP]], %[[F8]], %[[E5]], %[[SAME]] :
func.func @cast(%x: tensor<6x10xf32>, %h: tensor<6x10xf16>) -> (tensor<6x10xf32>, tensor<6x10xf8E4M3FN>, tensor<6x10xf8E5M2>, tensor<6x10xf32>) {
  %bf = train.cast %x : tensor<6x10xf32> -> tensor<6x10xbf16>
  %up = train.cast %bf : tensor<6x10xbf16> -> tensor<6x10xf32>
  %f8 = train.cast %x : tensor<6x10xf32> -> tensor<6x10xf8E4M3FN>
  %e5 = train.cast %h : tensor<6x10xf16> -> tensor<6x10xf8E5M2>
  // A same-type cast folds, but nothing folds here.
  %same = train.cast %x : tensor<6x10xf32> -> tensor<6x10xf32>
  return %up, %f8, %e5, %same : tensor<6x10xf32>, tensor<6x10xf8E4M3FN>, tensor<6x10xf8E5M2>, tensor<6x10xf32>
}

//===----------------------------------------------------------------------===//
// Elementwise forward ops
//===----------------------------------------------------------------------===//

// The short type form is printed when both operands and the result share one
// type; the long form when they differ (promote-to-widest).
// CHECK-LABEL: func.func @binary(
// CHECK-SAME:      %[[A:.+]]: tensor<6x10xf32>, %[[B:.+]]: tensor<6x10xf32>, %[[BF:.+]]: tensor<6x10xbf16>, %[[H:.+]]: tensor<6x10xf16>, %[[F8:.+]]: tensor<6x10xf8E4M3FN>, %[[E5:.+]]: tensor<6x10xf8E5M2>)
// CHECK-NEXT:    %[[ADD:.+]] = train.add %[[A]], %[[B]] : tensor<6x10xf32>{{$}}
// CHECK-NEXT:    %[[ADDL:.+]] = train.add %[[B]], %[[A]] : tensor<6x10xf32>{{$}}
// CHECK-NEXT:    %[[ADDP:.+]] = train.add %[[BF]], %[[A]] : tensor<6x10xbf16>, tensor<6x10xf32> -> tensor<6x10xf32>{{$}}
// CHECK-NEXT:    %[[ADDR:.+]] = train.add %[[A]], %[[BF]] : tensor<6x10xf32>, tensor<6x10xbf16> -> tensor<6x10xf32>{{$}}
// CHECK-NEXT:    %[[ADD16:.+]] = train.add %[[BF]], %[[H]] : tensor<6x10xbf16>, tensor<6x10xf16> -> tensor<6x10xf32>{{$}}
// CHECK-NEXT:    %[[ADD8:.+]] = train.add %[[F8]], %[[E5]] : tensor<6x10xf8E4M3FN>, tensor<6x10xf8E5M2> -> tensor<6x10xf32>{{$}}
// CHECK-NEXT:    %[[SUB:.+]] = train.sub %[[A]], %[[B]] : tensor<6x10xf32>{{$}}
// CHECK-NEXT:    %[[SUBP:.+]] = train.sub %[[H]], %[[F8]] : tensor<6x10xf16>, tensor<6x10xf8E4M3FN> -> tensor<6x10xf16>{{$}}
// CHECK-NEXT:    %[[MUL:.+]] = train.mul %[[BF]], %[[BF]] : tensor<6x10xbf16>{{$}}
// CHECK-NEXT:    %[[MULP:.+]] = train.mul %[[E5]], %[[BF]] : tensor<6x10xf8E5M2>, tensor<6x10xbf16> -> tensor<6x10xbf16>{{$}}
// CHECK-NEXT:    return %[[ADD]], %[[ADDL]], %[[ADDP]], %[[ADDR]], %[[ADD16]], %[[ADD8]], %[[SUB]], %[[SUBP]], %[[MUL]], %[[MULP]] :
func.func @binary(%a: tensor<6x10xf32>, %b: tensor<6x10xf32>, %bf: tensor<6x10xbf16>, %h: tensor<6x10xf16>, %f8: tensor<6x10xf8E4M3FN>, %e5: tensor<6x10xf8E5M2>)
    -> (tensor<6x10xf32>, tensor<6x10xf32>, tensor<6x10xf32>, tensor<6x10xf32>, tensor<6x10xf32>, tensor<6x10xf32>, tensor<6x10xf32>, tensor<6x10xf16>, tensor<6x10xbf16>, tensor<6x10xbf16>) {
  %add = train.add %a, %b : tensor<6x10xf32>
  // The long form with three equal types prints as the short form.
  %addl = train.add %b, %a : tensor<6x10xf32>, tensor<6x10xf32> -> tensor<6x10xf32>
  %addp = train.add %bf, %a : tensor<6x10xbf16>, tensor<6x10xf32> -> tensor<6x10xf32>
  %addr = train.add %a, %bf : tensor<6x10xf32>, tensor<6x10xbf16> -> tensor<6x10xf32>
  %add16 = train.add %bf, %h : tensor<6x10xbf16>, tensor<6x10xf16> -> tensor<6x10xf32>
  %add8 = train.add %f8, %e5 : tensor<6x10xf8E4M3FN>, tensor<6x10xf8E5M2> -> tensor<6x10xf32>
  %sub = train.sub %a, %b : tensor<6x10xf32>
  %subp = train.sub %h, %f8 : tensor<6x10xf16>, tensor<6x10xf8E4M3FN> -> tensor<6x10xf16>
  %mul = train.mul %bf, %bf : tensor<6x10xbf16>
  %mulp = train.mul %e5, %bf : tensor<6x10xf8E5M2>, tensor<6x10xbf16> -> tensor<6x10xbf16>
  return %add, %addl, %addp, %addr, %add16, %add8, %sub, %subp, %mul, %mulp
      : tensor<6x10xf32>, tensor<6x10xf32>, tensor<6x10xf32>, tensor<6x10xf32>, tensor<6x10xf32>, tensor<6x10xf32>, tensor<6x10xf32>, tensor<6x10xf16>, tensor<6x10xbf16>, tensor<6x10xbf16>
}

// CHECK-LABEL: func.func @scale(
// CHECK-SAME:      %[[X:.+]]: tensor<6x10xf32>, %[[H:.+]]: tensor<3x5xbf16>)
// CHECK-NEXT:    %[[S:.+]] = train.scale %[[X]] {factor = 1.250000e-01 : f64} : tensor<6x10xf32>{{$}}
// CHECK-NEXT:    %[[N:.+]] = train.scale %[[H]] {factor = -3.000000e+00 : f64} : tensor<3x5xbf16>{{$}}
// CHECK-NEXT:    return %[[S]], %[[N]] :
func.func @scale(%x: tensor<6x10xf32>, %h: tensor<3x5xbf16>) -> (tensor<6x10xf32>, tensor<3x5xbf16>) {
  %s = train.scale %x {factor = 1.250000e-01 : f64} : tensor<6x10xf32>
  %n = train.scale %h {factor = -3.0 : f64} : tensor<3x5xbf16> -> tensor<3x5xbf16>
  return %s, %n : tensor<6x10xf32>, tensor<3x5xbf16>
}

// `dim` defaults to -1 (elided, also when given explicitly).
// CHECK-LABEL: func.func @bias_add(
// CHECK-SAME:      %[[X:.+]]: tensor<6x10xf32>, %[[B:.+]]: tensor<10xf32>, %[[C:.+]]: tensor<2x4x7x9xbf16>, %[[CB:.+]]: tensor<4xf32>, %[[CB16:.+]]: tensor<4xbf16>)
// CHECK-NEXT:    %[[Y:.+]] = train.bias_add %[[X]], %[[B]] : tensor<6x10xf32>, tensor<10xf32> -> tensor<6x10xf32>{{$}}
// CHECK-NEXT:    %[[YD:.+]] = train.bias_add %[[X]], %[[B]] : tensor<6x10xf32>, tensor<10xf32> -> tensor<6x10xf32>{{$}}
// CHECK-NEXT:    %[[Z:.+]] = train.bias_add %[[C]], %[[CB]] {dim = 1 : i64} : tensor<2x4x7x9xbf16>, tensor<4xf32> -> tensor<2x4x7x9xf32>{{$}}
// CHECK-NEXT:    %[[ZN:.+]] = train.bias_add %[[C]], %[[CB16]] {dim = -3 : i64} : tensor<2x4x7x9xbf16>, tensor<4xbf16> -> tensor<2x4x7x9xbf16>{{$}}
// CHECK-NEXT:    return %[[Y]], %[[YD]], %[[Z]], %[[ZN]] :
func.func @bias_add(%x: tensor<6x10xf32>, %b: tensor<10xf32>, %c: tensor<2x4x7x9xbf16>, %cb: tensor<4xf32>, %cb16: tensor<4xbf16>)
    -> (tensor<6x10xf32>, tensor<6x10xf32>, tensor<2x4x7x9xf32>, tensor<2x4x7x9xbf16>) {
  %y = train.bias_add %x, %b : tensor<6x10xf32>, tensor<10xf32> -> tensor<6x10xf32>
  %yd = train.bias_add %x, %b {dim = -1 : i64} : tensor<6x10xf32>, tensor<10xf32> -> tensor<6x10xf32>
  %z = train.bias_add %c, %cb {dim = 1 : i64} : tensor<2x4x7x9xbf16>, tensor<4xf32> -> tensor<2x4x7x9xf32>
  %zn = train.bias_add %c, %cb16 {dim = -3 : i64} : tensor<2x4x7x9xbf16>, tensor<4xbf16> -> tensor<2x4x7x9xbf16>
  return %y, %yd, %z, %zn : tensor<6x10xf32>, tensor<6x10xf32>, tensor<2x4x7x9xf32>, tensor<2x4x7x9xbf16>
}

// The unary type form `T -> T` prints as `T`.
// CHECK-LABEL: func.func @activations(
// CHECK-SAME:      %[[X:.+]]: tensor<6x10xf32>, %[[H:.+]]: tensor<3x14xbf16>, %[[F:.+]]: tensor<5x8xf16>)
// CHECK-NEXT:    %[[RELU:.+]] = train.relu %[[X]] : tensor<6x10xf32>{{$}}
// CHECK-NEXT:    %[[RELUL:.+]] = train.relu %[[F]] : tensor<5x8xf16>{{$}}
// CHECK-NEXT:    %[[GELU:.+]] = train.gelu %[[X]] : tensor<6x10xf32>{{$}}
// CHECK-NEXT:    %[[GELUA:.+]] = train.gelu %[[H]] {approximate} : tensor<3x14xbf16>{{$}}
// CHECK-NEXT:    %[[SILU:.+]] = train.silu %[[H]] : tensor<3x14xbf16>{{$}}
// CHECK-NEXT:    %[[SWIGLU:.+]] = train.swiglu %[[H]], %[[GELUA]] : tensor<3x14xbf16>{{$}}
// CHECK-NEXT:    %[[SWIGLUL:.+]] = train.swiglu %[[F]], %[[RELUL]] : tensor<5x8xf16>{{$}}
// CHECK-NEXT:    return %[[RELU]], %[[GELU]], %[[SILU]], %[[SWIGLU]], %[[SWIGLUL]] :
func.func @activations(%x: tensor<6x10xf32>, %h: tensor<3x14xbf16>, %f: tensor<5x8xf16>)
    -> (tensor<6x10xf32>, tensor<6x10xf32>, tensor<3x14xbf16>, tensor<3x14xbf16>, tensor<5x8xf16>) {
  %relu = train.relu %x : tensor<6x10xf32>
  %relul = train.relu %f : tensor<5x8xf16> -> tensor<5x8xf16>
  %gelu = train.gelu %x : tensor<6x10xf32>
  %gelua = train.gelu %h {approximate} : tensor<3x14xbf16>
  %silu = train.silu %h : tensor<3x14xbf16>
  %swiglu = train.swiglu %h, %gelua : tensor<3x14xbf16>
  %swiglul = train.swiglu %f, %relul : tensor<5x8xf16>, tensor<5x8xf16> -> tensor<5x8xf16>
  return %relu, %gelu, %silu, %swiglu, %swiglul : tensor<6x10xf32>, tensor<6x10xf32>, tensor<3x14xbf16>, tensor<3x14xbf16>, tensor<5x8xf16>
}

// `axis` (default -1) and `scale` (default 1.0) are elided at their defaults.
// CHECK-LABEL: func.func @softmax(
// CHECK-SAME:      %[[S:.+]]: tensor<2x3x5x6xf32>)
// CHECK-NEXT:    %[[P0:.+]] = train.softmax %[[S]] : tensor<2x3x5x6xf32>{{$}}
// CHECK-NEXT:    %[[P1:.+]] = train.softmax %[[S]] : tensor<2x3x5x6xf32>{{$}}
// CHECK-NEXT:    %[[P2:.+]] = train.softmax %[[S]] {causal, scale = 1.250000e-01 : f64} : tensor<2x3x5x6xf32>{{$}}
// CHECK-NEXT:    %[[P3:.+]] = train.softmax %[[S]] {axis = 1 : i64} : tensor<2x3x5x6xf32>{{$}}
// CHECK-NEXT:    %[[P4:.+]] = train.softmax %[[S]] {axis = 3 : i64, causal} : tensor<2x3x5x6xf32>{{$}}
// CHECK-NEXT:    return %[[P0]], %[[P1]], %[[P2]], %[[P3]], %[[P4]] :
func.func @softmax(%s: tensor<2x3x5x6xf32>)
    -> (tensor<2x3x5x6xf32>, tensor<2x3x5x6xf32>, tensor<2x3x5x6xf32>, tensor<2x3x5x6xf32>, tensor<2x3x5x6xf32>) {
  %p0 = train.softmax %s : tensor<2x3x5x6xf32>
  %p1 = train.softmax %s {axis = -1 : i64, scale = 1.000000e+00 : f64} : tensor<2x3x5x6xf32> -> tensor<2x3x5x6xf32>
  %p2 = train.softmax %s {causal, scale = 1.250000e-01 : f64} : tensor<2x3x5x6xf32>
  %p3 = train.softmax %s {axis = 1 : i64} : tensor<2x3x5x6xf32>
  %p4 = train.softmax %s {causal, axis = 3 : i64} : tensor<2x3x5x6xf32>
  return %p0, %p1, %p2, %p3, %p4 : tensor<2x3x5x6xf32>, tensor<2x3x5x6xf32>, tensor<2x3x5x6xf32>, tensor<2x3x5x6xf32>, tensor<2x3x5x6xf32>
}

//===----------------------------------------------------------------------===//
// Normalization, regularization
//===----------------------------------------------------------------------===//

// `epsilon` defaults to 1e-5 for layer_norm and batch_norm, 1e-6 for rms_norm.
// CHECK-LABEL: func.func @norms(
// CHECK-SAME:      %[[X:.+]]: tensor<3x5x12xbf16>, %[[G:.+]]: tensor<12xbf16>, %[[B:.+]]: tensor<12xbf16>, %[[C:.+]]: tensor<2x6x5x3xf32>, %[[CG:.+]]: tensor<6xf32>, %[[CB:.+]]: tensor<6xf32>)
// CHECK-NEXT:    %[[LN:.+]], %[[LNM:.+]], %[[LNR:.+]] = train.layer_norm %[[X]], %[[G]], %[[B]] : tensor<3x5x12xbf16>, tensor<12xbf16>, tensor<12xbf16> -> tensor<3x5x12xbf16>, tensor<3x5xf32>, tensor<3x5xf32>{{$}}
// CHECK-NEXT:    %[[LN2:.+]], %[[LN2M:.+]], %[[LN2R:.+]] = train.layer_norm %[[X]], %[[G]], %[[B]] {epsilon = 2.000000e-05 : f64} : tensor<3x5x12xbf16>, tensor<12xbf16>, tensor<12xbf16> -> tensor<3x5x12xbf16>, tensor<3x5xf32>, tensor<3x5xf32>{{$}}
// CHECK-NEXT:    %[[RMS:.+]], %[[RMSR:.+]] = train.rms_norm %[[X]], %[[G]] : tensor<3x5x12xbf16>, tensor<12xbf16> -> tensor<3x5x12xbf16>, tensor<3x5xf32>{{$}}
// CHECK-NEXT:    %[[RMS2:.+]], %[[RMS2R:.+]] = train.rms_norm %[[X]], %[[G]] {epsilon = 1.000000e-05 : f64} : tensor<3x5x12xbf16>, tensor<12xbf16> -> tensor<3x5x12xbf16>, tensor<3x5xf32>{{$}}
// CHECK-NEXT:    %[[BN:.+]], %[[BNM:.+]], %[[BNR:.+]] = train.batch_norm %[[C]], %[[CG]], %[[CB]] : tensor<2x6x5x3xf32>, tensor<6xf32>, tensor<6xf32> -> tensor<2x6x5x3xf32>, tensor<6xf32>, tensor<6xf32>{{$}}
// CHECK-NEXT:    %[[BN2:.+]], %[[BN2M:.+]], %[[BN2R:.+]] = train.batch_norm %[[C]], %[[CG]], %[[CB]] {epsilon = 1.000000e-03 : f64} : tensor<2x6x5x3xf32>, tensor<6xf32>, tensor<6xf32> -> tensor<2x6x5x3xf32>, tensor<6xf32>, tensor<6xf32>{{$}}
// CHECK-NEXT:    return %[[LN]], %[[LNM]], %[[LNR]], %[[LN2]], %[[RMS]], %[[RMSR]], %[[RMS2]], %[[BN]], %[[BNM]], %[[BNR]], %[[BN2]] :
func.func @norms(%x: tensor<3x5x12xbf16>, %g: tensor<12xbf16>, %b: tensor<12xbf16>, %c: tensor<2x6x5x3xf32>, %cg: tensor<6xf32>, %cb: tensor<6xf32>)
    -> (tensor<3x5x12xbf16>, tensor<3x5xf32>, tensor<3x5xf32>, tensor<3x5x12xbf16>, tensor<3x5x12xbf16>, tensor<3x5xf32>, tensor<3x5x12xbf16>,
        tensor<2x6x5x3xf32>, tensor<6xf32>, tensor<6xf32>, tensor<2x6x5x3xf32>) {
  %ln, %lnm, %lnr = train.layer_norm %x, %g, %b {epsilon = 1.000000e-05 : f64}
      : tensor<3x5x12xbf16>, tensor<12xbf16>, tensor<12xbf16> -> tensor<3x5x12xbf16>, tensor<3x5xf32>, tensor<3x5xf32>
  %ln2, %ln2m, %ln2r = train.layer_norm %x, %g, %b {epsilon = 2.000000e-05 : f64}
      : tensor<3x5x12xbf16>, tensor<12xbf16>, tensor<12xbf16> -> tensor<3x5x12xbf16>, tensor<3x5xf32>, tensor<3x5xf32>
  %rms, %rmsr = train.rms_norm %x, %g {epsilon = 1.000000e-06 : f64}
      : tensor<3x5x12xbf16>, tensor<12xbf16> -> tensor<3x5x12xbf16>, tensor<3x5xf32>
  %rms2, %rms2r = train.rms_norm %x, %g {epsilon = 1.000000e-05 : f64}
      : tensor<3x5x12xbf16>, tensor<12xbf16> -> tensor<3x5x12xbf16>, tensor<3x5xf32>
  %bn, %bnm, %bnr = train.batch_norm %c, %cg, %cb {epsilon = 1.000000e-05 : f64}
      : tensor<2x6x5x3xf32>, tensor<6xf32>, tensor<6xf32> -> tensor<2x6x5x3xf32>, tensor<6xf32>, tensor<6xf32>
  %bn2, %bn2m, %bn2r = train.batch_norm %c, %cg, %cb {epsilon = 1.000000e-03 : f64}
      : tensor<2x6x5x3xf32>, tensor<6xf32>, tensor<6xf32> -> tensor<2x6x5x3xf32>, tensor<6xf32>, tensor<6xf32>
  return %ln, %lnm, %lnr, %ln2, %rms, %rmsr, %rms2, %bn, %bnm, %bnr, %bn2
      : tensor<3x5x12xbf16>, tensor<3x5xf32>, tensor<3x5xf32>, tensor<3x5x12xbf16>, tensor<3x5x12xbf16>, tensor<3x5xf32>, tensor<3x5x12xbf16>,
        tensor<2x6x5x3xf32>, tensor<6xf32>, tensor<6xf32>, tensor<2x6x5x3xf32>
}

// CHECK-LABEL: func.func @dropout(
// CHECK-SAME:      %[[X:.+]]: tensor<6x10xbf16>, %[[F:.+]]: tensor<4x9xf32>)
// CHECK-NEXT:    %[[Y:.+]], %[[M:.+]] = train.dropout %[[X]] {id = 3 : i64, rate = 1.000000e-01 : f64} : tensor<6x10xbf16> -> tensor<6x10xbf16>, tensor<6x10xi8>{{$}}
// CHECK-NEXT:    %[[Y1:.+]], %[[M1:.+]] = train.dropout %[[F]] {id = 0 : i64, rate = 0.000000e+00 : f64} : tensor<4x9xf32> -> tensor<4x9xf32>, tensor<4x9xi1>{{$}}
// CHECK-NEXT:    return %[[Y]], %[[M]], %[[Y1]], %[[M1]] :

// The partitioned form (train-shard): the part of a 12x10 tensor that starts
// at row %o.
// CHECK-LABEL: func.func @dropout_part(
// CHECK-SAME:      %[[X:.+]]: tensor<6x10xf32>, %[[O:.+]]: index, %[[Z:.+]]: index)
// CHECK-NEXT:    train.dropout %[[X]] at [%[[O]], %[[Z]]] in [12, 10] {id = 1 : i64, rate = 1.000000e-01 : f64} : tensor<6x10xf32> -> tensor<6x10xf32>, tensor<6x10xi8>{{$}}
func.func @dropout(%x: tensor<6x10xbf16>, %f: tensor<4x9xf32>) -> (tensor<6x10xbf16>, tensor<6x10xi8>, tensor<4x9xf32>, tensor<4x9xi1>) {
  %y, %m = train.dropout %x {rate = 1.000000e-01 : f64, id = 3 : i64} : tensor<6x10xbf16> -> tensor<6x10xbf16>, tensor<6x10xi8>
  %y1, %m1 = train.dropout %f {id = 0 : i64, rate = 0.0 : f64} : tensor<4x9xf32> -> tensor<4x9xf32>, tensor<4x9xi1>
  return %y, %m, %y1, %m1 : tensor<6x10xbf16>, tensor<6x10xi8>, tensor<4x9xf32>, tensor<4x9xi1>
}

func.func @dropout_part(%x: tensor<6x10xf32>, %o: index, %z: index) -> tensor<6x10xf32> {
  %y, %m = train.dropout %x at [%o, %z] in [12, 10] {id = 1 : i64, rate = 0.1 : f64} : tensor<6x10xf32> -> tensor<6x10xf32>, tensor<6x10xi8>
  return %y : tensor<6x10xf32>
}

//===----------------------------------------------------------------------===//
// Linear algebra, embeddings, attention
//===----------------------------------------------------------------------===//

// CHECK-LABEL: func.func @matmul(
// CHECK-SAME:      %[[X:.+]]: tensor<6x10xf32>, %[[W:.+]]: tensor<10x14xf32>, %[[XT:.+]]: tensor<10x6xf32>, %[[Q:.+]]: tensor<2x3x5x8xbf16>, %[[K:.+]]: tensor<2x3x7x8xbf16>)
// CHECK-NEXT:    %[[M0:.+]] = train.matmul %[[X]], %[[W]] : tensor<6x10xf32>, tensor<10x14xf32> -> tensor<6x14xf32>{{$}}
// CHECK-NEXT:    %[[M1:.+]] = train.matmul %[[XT]], %[[W]] {transpose_lhs} : tensor<10x6xf32>, tensor<10x14xf32> -> tensor<6x14xf32>{{$}}
// CHECK-NEXT:    %[[M2:.+]] = train.matmul %[[Q]], %[[K]] {transpose_rhs} : tensor<2x3x5x8xbf16>, tensor<2x3x7x8xbf16> -> tensor<2x3x5x7xbf16>{{$}}
// CHECK-NEXT:    %[[M3:.+]] = train.matmul %[[Q]], %[[K]] {transpose_rhs} : tensor<2x3x5x8xbf16>, tensor<2x3x7x8xbf16> -> tensor<2x3x5x7xf32>{{$}}
// CHECK-NEXT:    %[[M4:.+]] = train.matmul %[[K]], %[[M2]] {transpose_lhs, transpose_rhs} : tensor<2x3x7x8xbf16>, tensor<2x3x5x7xbf16> -> tensor<2x3x8x5xbf16>{{$}}
// CHECK-NEXT:    return %[[M0]], %[[M1]], %[[M2]], %[[M3]], %[[M4]] :
func.func @matmul(%x: tensor<6x10xf32>, %w: tensor<10x14xf32>, %xt: tensor<10x6xf32>, %q: tensor<2x3x5x8xbf16>, %k: tensor<2x3x7x8xbf16>)
    -> (tensor<6x14xf32>, tensor<6x14xf32>, tensor<2x3x5x7xbf16>, tensor<2x3x5x7xf32>, tensor<2x3x8x5xbf16>) {
  %m0 = train.matmul %x, %w : tensor<6x10xf32>, tensor<10x14xf32> -> tensor<6x14xf32>
  %m1 = train.matmul %xt, %w {transpose_lhs} : tensor<10x6xf32>, tensor<10x14xf32> -> tensor<6x14xf32>
  %m2 = train.matmul %q, %k {transpose_rhs} : tensor<2x3x5x8xbf16>, tensor<2x3x7x8xbf16> -> tensor<2x3x5x7xbf16>
  // Accumulation into a wider result type.
  %m3 = train.matmul %q, %k {transpose_rhs} : tensor<2x3x5x8xbf16>, tensor<2x3x7x8xbf16> -> tensor<2x3x5x7xf32>
  %m4 = train.matmul %k, %m2 {transpose_rhs, transpose_lhs} : tensor<2x3x7x8xbf16>, tensor<2x3x5x7xbf16> -> tensor<2x3x8x5xbf16>
  return %m0, %m1, %m2, %m3, %m4 : tensor<6x14xf32>, tensor<6x14xf32>, tensor<2x3x5x7xbf16>, tensor<2x3x5x7xf32>, tensor<2x3x8x5xbf16>
}

// CHECK-LABEL: func.func @embedding(
// CHECK-SAME:      %[[T:.+]]: tensor<50x12xf32>, %[[IDS:.+]]: tensor<3x5xi64>, %[[IDS32:.+]]: tensor<7xi32>, %[[TH:.+]]: tensor<50x12xbf16>)
// CHECK-NEXT:    %[[E:.+]] = train.embedding %[[T]], %[[IDS]] : tensor<50x12xf32>, tensor<3x5xi64> -> tensor<3x5x12xf32>{{$}}
// CHECK-NEXT:    %[[E2:.+]] = train.embedding %[[TH]], %[[IDS32]] : tensor<50x12xbf16>, tensor<7xi32> -> tensor<7x12xbf16>{{$}}
// CHECK-NEXT:    return %[[E]], %[[E2]] :
func.func @embedding(%t: tensor<50x12xf32>, %ids: tensor<3x5xi64>, %ids32: tensor<7xi32>, %th: tensor<50x12xbf16>) -> (tensor<3x5x12xf32>, tensor<7x12xbf16>) {
  %e = train.embedding %t, %ids : tensor<50x12xf32>, tensor<3x5xi64> -> tensor<3x5x12xf32>
  %e2 = train.embedding %th, %ids32 : tensor<50x12xbf16>, tensor<7xi32> -> tensor<7x12xbf16>
  return %e, %e2 : tensor<3x5x12xf32>, tensor<7x12xbf16>
}

// Grouped-query attention (Hq = 6, Hkv = 2), with and without `causal`.
// CHECK-LABEL: func.func @attention(
// CHECK-SAME:      %[[Q:.+]]: tensor<2x6x5x8xbf16>, %[[K:.+]]: tensor<2x2x7x8xbf16>, %[[V:.+]]: tensor<2x2x7x8xbf16>, %[[QF:.+]]: tensor<3x4x9x16xf32>)
// CHECK-NEXT:    %[[O:.+]], %[[LSE:.+]] = train.attention %[[Q]], %[[K]], %[[V]] {scale = 5.000000e-01 : f64} : tensor<2x6x5x8xbf16>, tensor<2x2x7x8xbf16>, tensor<2x2x7x8xbf16> -> tensor<2x6x5x8xbf16>, tensor<2x6x5xf32>{{$}}
// CHECK-NEXT:    %[[OC:.+]], %[[LSEC:.+]] = train.attention %[[Q]], %[[K]], %[[V]] {causal, scale = 1.250000e-01 : f64} : tensor<2x6x5x8xbf16>, tensor<2x2x7x8xbf16>, tensor<2x2x7x8xbf16> -> tensor<2x6x5x8xbf16>, tensor<2x6x5xf32>{{$}}
// CHECK-NEXT:    %[[OF:.+]], %[[LSEF:.+]] = train.attention %[[QF]], %[[QF]], %[[QF]] {causal, scale = 2.500000e-01 : f64} : tensor<3x4x9x16xf32>, tensor<3x4x9x16xf32>, tensor<3x4x9x16xf32> -> tensor<3x4x9x16xf32>, tensor<3x4x9xf32>{{$}}
// CHECK-NEXT:    return %[[O]], %[[LSE]], %[[OC]], %[[LSEC]], %[[OF]], %[[LSEF]] :
func.func @attention(%q: tensor<2x6x5x8xbf16>, %k: tensor<2x2x7x8xbf16>, %v: tensor<2x2x7x8xbf16>, %qf: tensor<3x4x9x16xf32>)
    -> (tensor<2x6x5x8xbf16>, tensor<2x6x5xf32>, tensor<2x6x5x8xbf16>, tensor<2x6x5xf32>, tensor<3x4x9x16xf32>, tensor<3x4x9xf32>) {
  %o, %lse = train.attention %q, %k, %v {scale = 5.000000e-01 : f64}
      : tensor<2x6x5x8xbf16>, tensor<2x2x7x8xbf16>, tensor<2x2x7x8xbf16> -> tensor<2x6x5x8xbf16>, tensor<2x6x5xf32>
  %oc, %lsec = train.attention %q, %k, %v {scale = 1.250000e-01 : f64, causal}
      : tensor<2x6x5x8xbf16>, tensor<2x2x7x8xbf16>, tensor<2x2x7x8xbf16> -> tensor<2x6x5x8xbf16>, tensor<2x6x5xf32>
  %of, %lsef = train.attention %qf, %qf, %qf {causal, scale = 2.500000e-01 : f64}
      : tensor<3x4x9x16xf32>, tensor<3x4x9x16xf32>, tensor<3x4x9x16xf32> -> tensor<3x4x9x16xf32>, tensor<3x4x9xf32>
  return %o, %lse, %oc, %lsec, %of, %lsef
      : tensor<2x6x5x8xbf16>, tensor<2x6x5xf32>, tensor<2x6x5x8xbf16>, tensor<2x6x5xf32>, tensor<3x4x9x16xf32>, tensor<3x4x9xf32>
}

// `theta` defaults to 10000.
// CHECK-LABEL: func.func @rotary(
// CHECK-SAME:      %[[X:.+]]: tensor<2x6x5x8xbf16>, %[[Y:.+]]: tensor<5x4xf32>)
// CHECK-NEXT:    %[[R0:.+]] = train.rotary %[[X]] : tensor<2x6x5x8xbf16>{{$}}
// CHECK-NEXT:    %[[R1:.+]] = train.rotary %[[X]] : tensor<2x6x5x8xbf16>{{$}}
// CHECK-NEXT:    %[[R2:.+]] = train.rotary %[[Y]] {theta = 5.000000e+05 : f64} : tensor<5x4xf32>{{$}}
// CHECK-NEXT:    return %[[R0]], %[[R1]], %[[R2]] :
func.func @rotary(%x: tensor<2x6x5x8xbf16>, %y: tensor<5x4xf32>) -> (tensor<2x6x5x8xbf16>, tensor<2x6x5x8xbf16>, tensor<5x4xf32>) {
  %r0 = train.rotary %x : tensor<2x6x5x8xbf16>
  %r1 = train.rotary %x {theta = 1.000000e+04 : f64} : tensor<2x6x5x8xbf16> -> tensor<2x6x5x8xbf16>
  %r2 = train.rotary %y {theta = 5.000000e+05 : f64} : tensor<5x4xf32>
  return %r0, %r1, %r2 : tensor<2x6x5x8xbf16>, tensor<2x6x5x8xbf16>, tensor<5x4xf32>
}

//===----------------------------------------------------------------------===//
// Losses and reductions
//===----------------------------------------------------------------------===//

// CHECK-LABEL: func.func @losses(
// CHECK-SAME:      %[[L:.+]]: tensor<3x5x11xf32>, %[[Y:.+]]: tensor<3x5xi64>, %[[LH:.+]]: tensor<7x11xbf16>, %[[Y32:.+]]: tensor<7xi32>, %[[A:.+]]: tensor<6x10xf32>, %[[T:.+]]: tensor<6x10xf32>)
// CHECK-NEXT:    %[[CE:.+]] = train.cross_entropy %[[L]], %[[Y]] : tensor<3x5x11xf32>, tensor<3x5xi64> -> tensor<f32>{{$}}
// CHECK-NEXT:    %[[CEH:.+]] = train.cross_entropy %[[LH]], %[[Y32]] : tensor<7x11xbf16>, tensor<7xi32> -> tensor<bf16>{{$}}
// CHECK-NEXT:    %[[MSE:.+]] = train.mse_loss %[[A]], %[[T]] : tensor<6x10xf32>, tensor<6x10xf32> -> tensor<f32>{{$}}
// CHECK-NEXT:    return %[[CE]], %[[CEH]], %[[MSE]] :
func.func @losses(%l: tensor<3x5x11xf32>, %y: tensor<3x5xi64>, %lh: tensor<7x11xbf16>, %y32: tensor<7xi32>, %a: tensor<6x10xf32>, %t: tensor<6x10xf32>)
    -> (tensor<f32>, tensor<bf16>, tensor<f32>) {
  %ce = train.cross_entropy %l, %y : tensor<3x5x11xf32>, tensor<3x5xi64> -> tensor<f32>
  %ceh = train.cross_entropy %lh, %y32 : tensor<7x11xbf16>, tensor<7xi32> -> tensor<bf16>
  %mse = train.mse_loss %a, %t : tensor<6x10xf32>, tensor<6x10xf32> -> tensor<f32>
  return %ce, %ceh, %mse : tensor<f32>, tensor<bf16>, tensor<f32>
}

// CHECK-LABEL: func.func @reduce_sum(
// CHECK-SAME:      %[[X:.+]]: tensor<3x5x12xf32>)
// CHECK-NEXT:    %[[R0:.+]] = train.reduce_sum %[[X]] {dims = array<i64: 0, 1>} : tensor<3x5x12xf32> -> tensor<12xf32>{{$}}
// CHECK-NEXT:    %[[R1:.+]] = train.reduce_sum %[[X]] {dims = array<i64: 1>} : tensor<3x5x12xf32> -> tensor<3x12xf32>{{$}}
// CHECK-NEXT:    %[[R2:.+]] = train.reduce_sum %[[X]] {dims = array<i64: 0, 1, 2>} : tensor<3x5x12xf32> -> tensor<f32>{{$}}
// CHECK-NEXT:    %[[R3:.+]] = train.reduce_sum %[[X]] {dims = array<i64>} : tensor<3x5x12xf32> -> tensor<3x5x12xf32>{{$}}
// CHECK-NEXT:    return %[[R0]], %[[R1]], %[[R2]], %[[R3]] :
func.func @reduce_sum(%x: tensor<3x5x12xf32>) -> (tensor<12xf32>, tensor<3x12xf32>, tensor<f32>, tensor<3x5x12xf32>) {
  %r0 = train.reduce_sum %x {dims = array<i64: 0, 1>} : tensor<3x5x12xf32> -> tensor<12xf32>
  %r1 = train.reduce_sum %x {dims = array<i64: 1>} : tensor<3x5x12xf32> -> tensor<3x12xf32>
  %r2 = train.reduce_sum %x {dims = array<i64: 0, 1, 2>} : tensor<3x5x12xf32> -> tensor<f32>
  %r3 = train.reduce_sum %x {dims = array<i64>} : tensor<3x5x12xf32> -> tensor<3x5x12xf32>
  return %r0, %r1, %r2, %r3 : tensor<12xf32>, tensor<3x12xf32>, tensor<f32>, tensor<3x5x12xf32>
}

//===----------------------------------------------------------------------===//
// Shape ops
//===----------------------------------------------------------------------===//

// CHECK-LABEL: func.func @views(
// CHECK-SAME:      %[[X:.+]]: tensor<3x5x12xf32>, %[[M:.+]]: tensor<6x10xi1>, %[[Q:.+]]: tensor<2x7x3x4xbf16>, %[[I:.+]]: tensor<4x9xi64>)
// CHECK-NEXT:    %[[R0:.+]] = train.reshape %[[X]] : tensor<3x5x12xf32> -> tensor<15x12xf32>{{$}}
// CHECK-NEXT:    %[[R1:.+]] = train.reshape %[[X]] : tensor<3x5x12xf32> -> tensor<3x5x12xf32>{{$}}
// CHECK-NEXT:    %[[R2:.+]] = train.reshape %[[M]] : tensor<6x10xi1> -> tensor<60xi1>{{$}}
// CHECK-NEXT:    %[[T0:.+]] = train.transpose %[[Q]] {permutation = array<i64: 0, 2, 1, 3>} : tensor<2x7x3x4xbf16> -> tensor<2x3x7x4xbf16>{{$}}
// CHECK-NEXT:    %[[T1:.+]] = train.transpose %[[I]] {permutation = array<i64: 1, 0>} : tensor<4x9xi64> -> tensor<9x4xi64>{{$}}
// CHECK-NEXT:    %[[S0:.+]] = train.slice %[[X]] {offsets = array<i64: 1, 0, 4>} : tensor<3x5x12xf32> -> tensor<2x5x4xf32>{{$}}
// CHECK-NEXT:    %[[S1:.+]] = train.slice %[[X]] {offsets = array<i64: 0, 1, 1>, strides = array<i64: 2, 3, 4>} : tensor<3x5x12xf32> -> tensor<2x2x3xf32>{{$}}
// CHECK-NEXT:    %[[S2:.+]] = train.slice %[[M]] {offsets = array<i64: 0, 0>, strides = array<i64: 1, 1>} : tensor<6x10xi1> -> tensor<6x10xi1>{{$}}
// CHECK-NEXT:    return %[[R0]], %[[R1]], %[[R2]], %[[T0]], %[[T1]], %[[S0]], %[[S1]], %[[S2]] :
func.func @views(%x: tensor<3x5x12xf32>, %m: tensor<6x10xi1>, %q: tensor<2x7x3x4xbf16>, %i: tensor<4x9xi64>)
    -> (tensor<15x12xf32>, tensor<3x5x12xf32>, tensor<60xi1>, tensor<2x3x7x4xbf16>, tensor<9x4xi64>, tensor<2x5x4xf32>, tensor<2x2x3xf32>, tensor<6x10xi1>) {
  %r0 = train.reshape %x : tensor<3x5x12xf32> -> tensor<15x12xf32>
  // A same-type reshape folds, but nothing folds here.
  %r1 = train.reshape %x : tensor<3x5x12xf32> -> tensor<3x5x12xf32>
  %r2 = train.reshape %m : tensor<6x10xi1> -> tensor<60xi1>
  %t0 = train.transpose %q {permutation = array<i64: 0, 2, 1, 3>} : tensor<2x7x3x4xbf16> -> tensor<2x3x7x4xbf16>
  %t1 = train.transpose %i {permutation = array<i64: 1, 0>} : tensor<4x9xi64> -> tensor<9x4xi64>
  %s0 = train.slice %x {offsets = array<i64: 1, 0, 4>} : tensor<3x5x12xf32> -> tensor<2x5x4xf32>
  %s1 = train.slice %x {strides = array<i64: 2, 3, 4>, offsets = array<i64: 0, 1, 1>} : tensor<3x5x12xf32> -> tensor<2x2x3xf32>
  // `strides` is optional, not default-valued: all ones stay printed.
  %s2 = train.slice %m {offsets = array<i64: 0, 0>, strides = array<i64: 1, 1>} : tensor<6x10xi1> -> tensor<6x10xi1>
  return %r0, %r1, %r2, %t0, %t1, %s0, %s1, %s2
      : tensor<15x12xf32>, tensor<3x5x12xf32>, tensor<60xi1>, tensor<2x3x7x4xbf16>, tensor<9x4xi64>, tensor<2x5x4xf32>, tensor<2x2x3xf32>, tensor<6x10xi1>
}

// Variadic concat: two and three inputs.
// CHECK-LABEL: func.func @concat(
// CHECK-SAME:      %[[A:.+]]: tensor<2x3x7x5xf32>, %[[B:.+]]: tensor<2x4x7x5xf32>, %[[H:.+]]: tensor<6x10xbf16>, %[[M:.+]]: tensor<6x3xi8>)
// CHECK-NEXT:    %[[C0:.+]] = train.concat %[[A]], %[[B]] {axis = 1 : i64} : tensor<2x3x7x5xf32>, tensor<2x4x7x5xf32> -> tensor<2x7x7x5xf32>{{$}}
// CHECK-NEXT:    %[[C1:.+]] = train.concat %[[H]], %[[H]], %[[H]] {axis = -1 : i64} : tensor<6x10xbf16>, tensor<6x10xbf16>, tensor<6x10xbf16> -> tensor<6x30xbf16>{{$}}
// CHECK-NEXT:    %[[C2:.+]] = train.concat %[[H]], %[[H]] {axis = 0 : i64} : tensor<6x10xbf16>, tensor<6x10xbf16> -> tensor<12x10xbf16>{{$}}
// CHECK-NEXT:    %[[C3:.+]] = train.concat %[[M]], %[[M]] {axis = 1 : i64} : tensor<6x3xi8>, tensor<6x3xi8> -> tensor<6x6xi8>{{$}}
// CHECK-NEXT:    return %[[C0]], %[[C1]], %[[C2]], %[[C3]] :
func.func @concat(%a: tensor<2x3x7x5xf32>, %b: tensor<2x4x7x5xf32>, %h: tensor<6x10xbf16>, %m: tensor<6x3xi8>)
    -> (tensor<2x7x7x5xf32>, tensor<6x30xbf16>, tensor<12x10xbf16>, tensor<6x6xi8>) {
  %c0 = train.concat %a, %b {axis = 1 : i64} : tensor<2x3x7x5xf32>, tensor<2x4x7x5xf32> -> tensor<2x7x7x5xf32>
  %c1 = train.concat %h, %h, %h {axis = -1 : i64} : tensor<6x10xbf16>, tensor<6x10xbf16>, tensor<6x10xbf16> -> tensor<6x30xbf16>
  %c2 = train.concat %h, %h {axis = 0 : i64} : tensor<6x10xbf16>, tensor<6x10xbf16> -> tensor<12x10xbf16>
  %c3 = train.concat %m, %m {axis = 1 : i64} : tensor<6x3xi8>, tensor<6x3xi8> -> tensor<6x6xi8>
  return %c0, %c1, %c2, %c3 : tensor<2x7x7x5xf32>, tensor<6x30xbf16>, tensor<12x10xbf16>, tensor<6x6xi8>
}

//===----------------------------------------------------------------------===//
// Convolutional networks
//===----------------------------------------------------------------------===//

// `strides` and `dilation` default to [1, 1], `padding` to [0, 0], `groups`
// to 1; explicit defaults are elided.
// CHECK-LABEL: func.func @conv2d(
// CHECK-SAME:      %[[X:.+]]: tensor<2x6x11x13xf32>, %[[W:.+]]: tensor<8x6x3x5xf32>, %[[WG:.+]]: tensor<9x2x3x3xf32>, %[[XH:.+]]: tensor<2x6x11x13xbf16>, %[[WH:.+]]: tensor<4x6x1x1xbf16>)
// CHECK-NEXT:    %[[Y0:.+]] = train.conv2d %[[X]], %[[W]] : tensor<2x6x11x13xf32>, tensor<8x6x3x5xf32> -> tensor<2x8x9x9xf32>{{$}}
// CHECK-NEXT:    %[[Y1:.+]] = train.conv2d %[[X]], %[[W]] : tensor<2x6x11x13xf32>, tensor<8x6x3x5xf32> -> tensor<2x8x9x9xf32>{{$}}
// CHECK-NEXT:    %[[Y2:.+]] = train.conv2d %[[X]], %[[W]] {padding = array<i64: 1, 2>} : tensor<2x6x11x13xf32>, tensor<8x6x3x5xf32> -> tensor<2x8x11x13xf32>{{$}}
// CHECK-NEXT:    %[[Y3:.+]] = train.conv2d %[[X]], %[[WG]] {dilation = array<i64: 2, 1>, groups = 3 : i64, padding = array<i64: 1, 0>, strides = array<i64: 2, 3>} : tensor<2x6x11x13xf32>, tensor<9x2x3x3xf32> -> tensor<2x9x5x4xf32>{{$}}
// CHECK-NEXT:    %[[Y4:.+]] = train.conv2d %[[XH]], %[[WH]] {strides = array<i64: 2, 2>} : tensor<2x6x11x13xbf16>, tensor<4x6x1x1xbf16> -> tensor<2x4x6x7xbf16>{{$}}
// CHECK-NEXT:    return %[[Y0]], %[[Y1]], %[[Y2]], %[[Y3]], %[[Y4]] :
func.func @conv2d(%x: tensor<2x6x11x13xf32>, %w: tensor<8x6x3x5xf32>, %wg: tensor<9x2x3x3xf32>, %xh: tensor<2x6x11x13xbf16>, %wh: tensor<4x6x1x1xbf16>)
    -> (tensor<2x8x9x9xf32>, tensor<2x8x9x9xf32>, tensor<2x8x11x13xf32>, tensor<2x9x5x4xf32>, tensor<2x4x6x7xbf16>) {
  %y0 = train.conv2d %x, %w : tensor<2x6x11x13xf32>, tensor<8x6x3x5xf32> -> tensor<2x8x9x9xf32>
  %y1 = train.conv2d %x, %w {strides = array<i64: 1, 1>, padding = array<i64: 0, 0>, dilation = array<i64: 1, 1>, groups = 1 : i64}
      : tensor<2x6x11x13xf32>, tensor<8x6x3x5xf32> -> tensor<2x8x9x9xf32>
  %y2 = train.conv2d %x, %w {padding = array<i64: 1, 2>} : tensor<2x6x11x13xf32>, tensor<8x6x3x5xf32> -> tensor<2x8x11x13xf32>
  %y3 = train.conv2d %x, %wg {strides = array<i64: 2, 3>, padding = array<i64: 1, 0>, dilation = array<i64: 2, 1>, groups = 3 : i64}
      : tensor<2x6x11x13xf32>, tensor<9x2x3x3xf32> -> tensor<2x9x5x4xf32>
  %y4 = train.conv2d %xh, %wh {strides = array<i64: 2, 2>} : tensor<2x6x11x13xbf16>, tensor<4x6x1x1xbf16> -> tensor<2x4x6x7xbf16>
  return %y0, %y1, %y2, %y3, %y4 : tensor<2x8x9x9xf32>, tensor<2x8x9x9xf32>, tensor<2x8x11x13xf32>, tensor<2x9x5x4xf32>, tensor<2x4x6x7xbf16>
}

// CHECK-LABEL: func.func @pooling(
// CHECK-SAME:      %[[X:.+]]: tensor<2x3x12x10xf32>, %[[H:.+]]: tensor<1x4x7x9xf16>)
// CHECK-NEXT:    %[[P0:.+]] = train.max_pool2d %[[X]] {kernel = array<i64: 2, 2>, strides = array<i64: 2, 2>} : tensor<2x3x12x10xf32> -> tensor<2x3x6x5xf32>{{$}}
// CHECK-NEXT:    %[[P1:.+]] = train.max_pool2d %[[X]] {kernel = array<i64: 3, 2>} : tensor<2x3x12x10xf32> -> tensor<2x3x10x9xf32>{{$}}
// CHECK-NEXT:    %[[P2:.+]] = train.max_pool2d %[[X]] {kernel = array<i64: 3, 3>, padding = array<i64: 1, 1>, strides = array<i64: 2, 2>} : tensor<2x3x12x10xf32> -> tensor<2x3x6x5xf32>{{$}}
// CHECK-NEXT:    %[[P3:.+]] = train.avg_pool2d %[[H]] {kernel = array<i64: 7, 9>} : tensor<1x4x7x9xf16> -> tensor<1x4x1x1xf16>{{$}}
// CHECK-NEXT:    %[[P4:.+]] = train.avg_pool2d %[[X]] {kernel = array<i64: 2, 4>, padding = array<i64: 1, 2>, strides = array<i64: 3, 2>} : tensor<2x3x12x10xf32> -> tensor<2x3x5x6xf32>{{$}}
// CHECK-NEXT:    return %[[P0]], %[[P1]], %[[P2]], %[[P3]], %[[P4]] :
func.func @pooling(%x: tensor<2x3x12x10xf32>, %h: tensor<1x4x7x9xf16>)
    -> (tensor<2x3x6x5xf32>, tensor<2x3x10x9xf32>, tensor<2x3x6x5xf32>, tensor<1x4x1x1xf16>, tensor<2x3x5x6xf32>) {
  %p0 = train.max_pool2d %x {kernel = array<i64: 2, 2>, strides = array<i64: 2, 2>} : tensor<2x3x12x10xf32> -> tensor<2x3x6x5xf32>
  %p1 = train.max_pool2d %x {kernel = array<i64: 3, 2>, strides = array<i64: 1, 1>, padding = array<i64: 0, 0>} : tensor<2x3x12x10xf32> -> tensor<2x3x10x9xf32>
  %p2 = train.max_pool2d %x {kernel = array<i64: 3, 3>, strides = array<i64: 2, 2>, padding = array<i64: 1, 1>} : tensor<2x3x12x10xf32> -> tensor<2x3x6x5xf32>
  %p3 = train.avg_pool2d %h {kernel = array<i64: 7, 9>} : tensor<1x4x7x9xf16> -> tensor<1x4x1x1xf16>
  %p4 = train.avg_pool2d %x {kernel = array<i64: 2, 4>, strides = array<i64: 3, 2>, padding = array<i64: 1, 2>} : tensor<2x3x12x10xf32> -> tensor<2x3x5x6xf32>
  return %p0, %p1, %p2, %p3, %p4 : tensor<2x3x6x5xf32>, tensor<2x3x10x9xf32>, tensor<2x3x6x5xf32>, tensor<1x4x1x1xf16>, tensor<2x3x5x6xf32>
}

// CHECK-LABEL: func.func @upsample(
// CHECK-SAME:      %[[X:.+]]: tensor<2x3x4x5xbf16>)
// CHECK-NEXT:    %[[U0:.+]] = train.upsample_nearest2d %[[X]] {scale = 2 : i64} : tensor<2x3x4x5xbf16> -> tensor<2x3x8x10xbf16>{{$}}
// CHECK-NEXT:    %[[U1:.+]] = train.upsample_nearest2d %[[X]] {scale = 1 : i64} : tensor<2x3x4x5xbf16> -> tensor<2x3x4x5xbf16>{{$}}
// CHECK-NEXT:    return %[[U0]], %[[U1]] :
func.func @upsample(%x: tensor<2x3x4x5xbf16>) -> (tensor<2x3x8x10xbf16>, tensor<2x3x4x5xbf16>) {
  %u0 = train.upsample_nearest2d %x {scale = 2 : i64} : tensor<2x3x4x5xbf16> -> tensor<2x3x8x10xbf16>
  %u1 = train.upsample_nearest2d %x {scale = 1 : i64} : tensor<2x3x4x5xbf16> -> tensor<2x3x4x5xbf16>
  return %u0, %u1 : tensor<2x3x8x10xbf16>, tensor<2x3x4x5xbf16>
}

//===----------------------------------------------------------------------===//
// Gradient ops
//===----------------------------------------------------------------------===//

// CHECK-LABEL: func.func @activation_grads(
// CHECK-SAME:      %[[D:.+]]: tensor<6x10xf32>, %[[S:.+]]: tensor<6x10xf32>, %[[DH:.+]]: tensor<3x14xbf16>, %[[SH:.+]]: tensor<3x14xbf16>)
// CHECK-NEXT:    %[[R:.+]] = train.relu_grad %[[D]], %[[S]] : tensor<6x10xf32>{{$}}
// CHECK-NEXT:    %[[RL:.+]] = train.relu_grad %[[DH]], %[[SH]] : tensor<3x14xbf16>{{$}}
// CHECK-NEXT:    %[[G:.+]] = train.gelu_grad %[[D]], %[[S]] : tensor<6x10xf32>{{$}}
// CHECK-NEXT:    %[[GA:.+]] = train.gelu_grad %[[DH]], %[[SH]] {approximate} : tensor<3x14xbf16>{{$}}
// CHECK-NEXT:    %[[SI:.+]] = train.silu_grad %[[D]], %[[S]] : tensor<6x10xf32>{{$}}
// CHECK-NEXT:    %[[DG:.+]], %[[DU:.+]] = train.swiglu_grad %[[DH]], %[[SH]], %[[GA]] : tensor<3x14xbf16>, tensor<3x14xbf16>, tensor<3x14xbf16> -> tensor<3x14xbf16>, tensor<3x14xbf16>{{$}}
// CHECK-NEXT:    return %[[R]], %[[RL]], %[[G]], %[[GA]], %[[SI]], %[[DG]], %[[DU]] :
func.func @activation_grads(%d: tensor<6x10xf32>, %s: tensor<6x10xf32>, %dh: tensor<3x14xbf16>, %sh: tensor<3x14xbf16>)
    -> (tensor<6x10xf32>, tensor<3x14xbf16>, tensor<6x10xf32>, tensor<3x14xbf16>, tensor<6x10xf32>, tensor<3x14xbf16>, tensor<3x14xbf16>) {
  %r = train.relu_grad %d, %s : tensor<6x10xf32>
  %rl = train.relu_grad %dh, %sh : tensor<3x14xbf16>, tensor<3x14xbf16> -> tensor<3x14xbf16>
  %g = train.gelu_grad %d, %s : tensor<6x10xf32>
  %ga = train.gelu_grad %dh, %sh {approximate} : tensor<3x14xbf16>
  %si = train.silu_grad %d, %s : tensor<6x10xf32>
  %dg, %du = train.swiglu_grad %dh, %sh, %ga
      : tensor<3x14xbf16>, tensor<3x14xbf16>, tensor<3x14xbf16> -> tensor<3x14xbf16>, tensor<3x14xbf16>
  return %r, %rl, %g, %ga, %si, %dg, %du
      : tensor<6x10xf32>, tensor<3x14xbf16>, tensor<6x10xf32>, tensor<3x14xbf16>, tensor<6x10xf32>, tensor<3x14xbf16>, tensor<3x14xbf16>
}

// CHECK-LABEL: func.func @softmax_grad(
// CHECK-SAME:      %[[D:.+]]: tensor<2x3x5x7xf32>, %[[P:.+]]: tensor<2x3x5x7xf32>)
// CHECK-NEXT:    %[[G0:.+]] = train.softmax_grad %[[D]], %[[P]] : tensor<2x3x5x7xf32>{{$}}
// CHECK-NEXT:    %[[G1:.+]] = train.softmax_grad %[[D]], %[[P]] : tensor<2x3x5x7xf32>{{$}}
// CHECK-NEXT:    %[[G2:.+]] = train.softmax_grad %[[D]], %[[P]] {axis = 2 : i64, scale = 1.250000e-01 : f64} : tensor<2x3x5x7xf32>{{$}}
// CHECK-NEXT:    return %[[G0]], %[[G1]], %[[G2]] :
func.func @softmax_grad(%d: tensor<2x3x5x7xf32>, %p: tensor<2x3x5x7xf32>) -> (tensor<2x3x5x7xf32>, tensor<2x3x5x7xf32>, tensor<2x3x5x7xf32>) {
  %g0 = train.softmax_grad %d, %p : tensor<2x3x5x7xf32>
  %g1 = train.softmax_grad %d, %p {axis = -1 : i64, scale = 1.0 : f64}
      : tensor<2x3x5x7xf32>, tensor<2x3x5x7xf32> -> tensor<2x3x5x7xf32>
  %g2 = train.softmax_grad %d, %p {scale = 1.250000e-01 : f64, axis = 2 : i64} : tensor<2x3x5x7xf32>
  return %g0, %g1, %g2 : tensor<2x3x5x7xf32>, tensor<2x3x5x7xf32>, tensor<2x3x5x7xf32>
}

// CHECK-LABEL: func.func @norm_grads(
// CHECK-SAME:      %[[D:.+]]: tensor<3x5x12xbf16>, %[[X:.+]]: tensor<3x5x12xbf16>, %[[G:.+]]: tensor<12xf32>, %[[MEAN:.+]]: tensor<3x5xf32>, %[[RSTD:.+]]: tensor<3x5xf32>, %[[DC:.+]]: tensor<2x6x5x3xf32>, %[[XC:.+]]: tensor<2x6x5x3xf32>, %[[GC:.+]]: tensor<6xf32>, %[[MC:.+]]: tensor<6xf32>, %[[RC:.+]]: tensor<6xf32>)
// CHECK-NEXT:    %[[LDX:.+]], %[[LDG:.+]], %[[LDB:.+]] = train.layer_norm_grad %[[D]], %[[X]], %[[G]], %[[MEAN]], %[[RSTD]] : tensor<3x5x12xbf16>, tensor<3x5x12xbf16>, tensor<12xf32>, tensor<3x5xf32>, tensor<3x5xf32> -> tensor<3x5x12xbf16>, tensor<12xf32>, tensor<12xf32>{{$}}
// CHECK-NEXT:    %[[RDX:.+]], %[[RDG:.+]] = train.rms_norm_grad %[[D]], %[[X]], %[[G]], %[[RSTD]] : tensor<3x5x12xbf16>, tensor<3x5x12xbf16>, tensor<12xf32>, tensor<3x5xf32> -> tensor<3x5x12xbf16>, tensor<12xf32>{{$}}
// CHECK-NEXT:    %[[BDX:.+]], %[[BDG:.+]], %[[BDB:.+]] = train.batch_norm_grad %[[DC]], %[[XC]], %[[GC]], %[[MC]], %[[RC]] : tensor<2x6x5x3xf32>, tensor<2x6x5x3xf32>, tensor<6xf32>, tensor<6xf32>, tensor<6xf32> -> tensor<2x6x5x3xf32>, tensor<6xf32>, tensor<6xf32>{{$}}
// CHECK-NEXT:    return %[[LDX]], %[[LDG]], %[[LDB]], %[[RDX]], %[[RDG]], %[[BDX]], %[[BDG]], %[[BDB]] :
func.func @norm_grads(%d: tensor<3x5x12xbf16>, %x: tensor<3x5x12xbf16>, %g: tensor<12xf32>, %mean: tensor<3x5xf32>, %rstd: tensor<3x5xf32>,
                      %dc: tensor<2x6x5x3xf32>, %xc: tensor<2x6x5x3xf32>, %gc: tensor<6xf32>, %mc: tensor<6xf32>, %rc: tensor<6xf32>)
    -> (tensor<3x5x12xbf16>, tensor<12xf32>, tensor<12xf32>, tensor<3x5x12xbf16>, tensor<12xf32>, tensor<2x6x5x3xf32>, tensor<6xf32>, tensor<6xf32>) {
  %ldx, %ldg, %ldb = train.layer_norm_grad %d, %x, %g, %mean, %rstd
      : tensor<3x5x12xbf16>, tensor<3x5x12xbf16>, tensor<12xf32>, tensor<3x5xf32>, tensor<3x5xf32> -> tensor<3x5x12xbf16>, tensor<12xf32>, tensor<12xf32>
  %rdx, %rdg = train.rms_norm_grad %d, %x, %g, %rstd
      : tensor<3x5x12xbf16>, tensor<3x5x12xbf16>, tensor<12xf32>, tensor<3x5xf32> -> tensor<3x5x12xbf16>, tensor<12xf32>
  %bdx, %bdg, %bdb = train.batch_norm_grad %dc, %xc, %gc, %mc, %rc
      : tensor<2x6x5x3xf32>, tensor<2x6x5x3xf32>, tensor<6xf32>, tensor<6xf32>, tensor<6xf32> -> tensor<2x6x5x3xf32>, tensor<6xf32>, tensor<6xf32>
  return %ldx, %ldg, %ldb, %rdx, %rdg, %bdx, %bdg, %bdb
      : tensor<3x5x12xbf16>, tensor<12xf32>, tensor<12xf32>, tensor<3x5x12xbf16>, tensor<12xf32>, tensor<2x6x5x3xf32>, tensor<6xf32>, tensor<6xf32>
}

// CHECK-LABEL: func.func @dropout_grad(
// CHECK-SAME:      %[[D:.+]]: tensor<6x10xbf16>, %[[M8:.+]]: tensor<6x10xi8>, %[[DF:.+]]: tensor<4x9xf32>, %[[M1:.+]]: tensor<4x9xi1>)
// CHECK-NEXT:    %[[G0:.+]] = train.dropout_grad %[[D]], %[[M8]] {rate = 1.000000e-01 : f64} : tensor<6x10xbf16>, tensor<6x10xi8> -> tensor<6x10xbf16>{{$}}
// CHECK-NEXT:    %[[G1:.+]] = train.dropout_grad %[[DF]], %[[M1]] {rate = 5.000000e-01 : f64} : tensor<4x9xf32>, tensor<4x9xi1> -> tensor<4x9xf32>{{$}}
// CHECK-NEXT:    return %[[G0]], %[[G1]] :
func.func @dropout_grad(%d: tensor<6x10xbf16>, %m8: tensor<6x10xi8>, %df: tensor<4x9xf32>, %m1: tensor<4x9xi1>) -> (tensor<6x10xbf16>, tensor<4x9xf32>) {
  %g0 = train.dropout_grad %d, %m8 {rate = 1.000000e-01 : f64} : tensor<6x10xbf16>, tensor<6x10xi8> -> tensor<6x10xbf16>
  %g1 = train.dropout_grad %df, %m1 {rate = 5.000000e-01 : f64} : tensor<4x9xf32>, tensor<4x9xi1> -> tensor<4x9xf32>
  return %g0, %g1 : tensor<6x10xbf16>, tensor<4x9xf32>
}

// CHECK-LABEL: func.func @loss_grads(
// CHECK-SAME:      %[[DE:.+]]: tensor<3x5x12xf32>, %[[IDS:.+]]: tensor<3x5xi64>, %[[DL:.+]]: tensor<f32>, %[[L:.+]]: tensor<3x5x11xf32>, %[[LH:.+]]: tensor<7x11xbf16>, %[[Y32:.+]]: tensor<7xi32>, %[[A:.+]]: tensor<6x10xf32>, %[[T:.+]]: tensor<6x10xf32>)
// CHECK-NEXT:    %[[DT:.+]] = train.embedding_grad %[[DE]], %[[IDS]] : tensor<3x5x12xf32>, tensor<3x5xi64> -> tensor<50x12xf32>{{$}}
// CHECK-NEXT:    %[[DLG:.+]] = train.cross_entropy_grad %[[DL]], %[[L]], %[[IDS]] : tensor<f32>, tensor<3x5x11xf32>, tensor<3x5xi64> -> tensor<3x5x11xf32>{{$}}
// CHECK-NEXT:    %[[DLH:.+]] = train.cross_entropy_grad %[[DL]], %[[LH]], %[[Y32]] : tensor<f32>, tensor<7x11xbf16>, tensor<7xi32> -> tensor<7x11xbf16>{{$}}
// CHECK-NEXT:    %[[DA:.+]] = train.mse_loss_grad %[[DL]], %[[A]], %[[T]] : tensor<f32>, tensor<6x10xf32>, tensor<6x10xf32> -> tensor<6x10xf32>{{$}}
// CHECK-NEXT:    return %[[DT]], %[[DLG]], %[[DLH]], %[[DA]] :
func.func @loss_grads(%de: tensor<3x5x12xf32>, %ids: tensor<3x5xi64>, %dl: tensor<f32>, %l: tensor<3x5x11xf32>, %lh: tensor<7x11xbf16>, %y32: tensor<7xi32>,
                      %a: tensor<6x10xf32>, %t: tensor<6x10xf32>)
    -> (tensor<50x12xf32>, tensor<3x5x11xf32>, tensor<7x11xbf16>, tensor<6x10xf32>) {
  %dt = train.embedding_grad %de, %ids : tensor<3x5x12xf32>, tensor<3x5xi64> -> tensor<50x12xf32>
  %dlg = train.cross_entropy_grad %dl, %l, %ids : tensor<f32>, tensor<3x5x11xf32>, tensor<3x5xi64> -> tensor<3x5x11xf32>
  %dlh = train.cross_entropy_grad %dl, %lh, %y32 : tensor<f32>, tensor<7x11xbf16>, tensor<7xi32> -> tensor<7x11xbf16>
  %da = train.mse_loss_grad %dl, %a, %t : tensor<f32>, tensor<6x10xf32>, tensor<6x10xf32> -> tensor<6x10xf32>
  return %dt, %dlg, %dlh, %da : tensor<50x12xf32>, tensor<3x5x11xf32>, tensor<7x11xbf16>, tensor<6x10xf32>
}

// CHECK-LABEL: func.func @conv_grads(
// CHECK-SAME:      %[[DY:.+]]: tensor<2x8x9x9xf32>, %[[W:.+]]: tensor<8x6x3x5xf32>, %[[X:.+]]: tensor<2x6x11x13xf32>, %[[DYG:.+]]: tensor<2x9x5x4xf32>, %[[WG:.+]]: tensor<9x2x3x3xf32>)
// CHECK-NEXT:    %[[DX:.+]] = train.conv2d_grad_input %[[DY]], %[[W]] : tensor<2x8x9x9xf32>, tensor<8x6x3x5xf32> -> tensor<2x6x11x13xf32>{{$}}
// CHECK-NEXT:    %[[DX1:.+]] = train.conv2d_grad_input %[[DY]], %[[W]] : tensor<2x8x9x9xf32>, tensor<8x6x3x5xf32> -> tensor<2x6x11x13xf32>{{$}}
// CHECK-NEXT:    %[[DXG:.+]] = train.conv2d_grad_input %[[DYG]], %[[WG]] {dilation = array<i64: 2, 1>, groups = 3 : i64, padding = array<i64: 1, 0>, strides = array<i64: 2, 3>} : tensor<2x9x5x4xf32>, tensor<9x2x3x3xf32> -> tensor<2x6x11x13xf32>{{$}}
// CHECK-NEXT:    %[[DW:.+]] = train.conv2d_grad_filter %[[DY]], %[[X]] : tensor<2x8x9x9xf32>, tensor<2x6x11x13xf32> -> tensor<8x6x3x5xf32>{{$}}
// CHECK-NEXT:    %[[DW1:.+]] = train.conv2d_grad_filter %[[DY]], %[[X]] : tensor<2x8x9x9xf32>, tensor<2x6x11x13xf32> -> tensor<8x6x3x5xf32>{{$}}
// CHECK-NEXT:    %[[DWG:.+]] = train.conv2d_grad_filter %[[DYG]], %[[X]] {dilation = array<i64: 2, 1>, groups = 3 : i64, padding = array<i64: 1, 0>, strides = array<i64: 2, 3>} : tensor<2x9x5x4xf32>, tensor<2x6x11x13xf32> -> tensor<9x2x3x3xf32>{{$}}
// CHECK-NEXT:    return %[[DX]], %[[DX1]], %[[DXG]], %[[DW]], %[[DW1]], %[[DWG]] :
func.func @conv_grads(%dy: tensor<2x8x9x9xf32>, %w: tensor<8x6x3x5xf32>, %x: tensor<2x6x11x13xf32>, %dyg: tensor<2x9x5x4xf32>, %wg: tensor<9x2x3x3xf32>)
    -> (tensor<2x6x11x13xf32>, tensor<2x6x11x13xf32>, tensor<2x6x11x13xf32>, tensor<8x6x3x5xf32>, tensor<8x6x3x5xf32>, tensor<9x2x3x3xf32>) {
  %dx = train.conv2d_grad_input %dy, %w : tensor<2x8x9x9xf32>, tensor<8x6x3x5xf32> -> tensor<2x6x11x13xf32>
  %dx1 = train.conv2d_grad_input %dy, %w {groups = 1 : i64, dilation = array<i64: 1, 1>, padding = array<i64: 0, 0>, strides = array<i64: 1, 1>}
      : tensor<2x8x9x9xf32>, tensor<8x6x3x5xf32> -> tensor<2x6x11x13xf32>
  %dxg = train.conv2d_grad_input %dyg, %wg {strides = array<i64: 2, 3>, padding = array<i64: 1, 0>, dilation = array<i64: 2, 1>, groups = 3 : i64}
      : tensor<2x9x5x4xf32>, tensor<9x2x3x3xf32> -> tensor<2x6x11x13xf32>
  %dw = train.conv2d_grad_filter %dy, %x : tensor<2x8x9x9xf32>, tensor<2x6x11x13xf32> -> tensor<8x6x3x5xf32>
  %dw1 = train.conv2d_grad_filter %dy, %x {strides = array<i64: 1, 1>, padding = array<i64: 0, 0>, dilation = array<i64: 1, 1>, groups = 1 : i64}
      : tensor<2x8x9x9xf32>, tensor<2x6x11x13xf32> -> tensor<8x6x3x5xf32>
  %dwg = train.conv2d_grad_filter %dyg, %x {strides = array<i64: 2, 3>, padding = array<i64: 1, 0>, dilation = array<i64: 2, 1>, groups = 3 : i64}
      : tensor<2x9x5x4xf32>, tensor<2x6x11x13xf32> -> tensor<9x2x3x3xf32>
  return %dx, %dx1, %dxg, %dw, %dw1, %dwg
      : tensor<2x6x11x13xf32>, tensor<2x6x11x13xf32>, tensor<2x6x11x13xf32>, tensor<8x6x3x5xf32>, tensor<8x6x3x5xf32>, tensor<9x2x3x3xf32>
}

// CHECK-LABEL: func.func @pool_grads(
// CHECK-SAME:      %[[DY:.+]]: tensor<2x3x6x5xf32>, %[[X:.+]]: tensor<2x3x12x10xf32>, %[[DYH:.+]]: tensor<1x4x1x1xf16>, %[[DU:.+]]: tensor<2x3x8x10xbf16>, %[[DY4:.+]]: tensor<2x3x5x6xf32>)
// CHECK-NEXT:    %[[M0:.+]] = train.max_pool2d_grad %[[DY]], %[[X]] {kernel = array<i64: 2, 2>, strides = array<i64: 2, 2>} : tensor<2x3x6x5xf32>, tensor<2x3x12x10xf32> -> tensor<2x3x12x10xf32>{{$}}
// CHECK-NEXT:    %[[M1:.+]] = train.max_pool2d_grad %[[DY]], %[[X]] {kernel = array<i64: 3, 3>, padding = array<i64: 1, 1>, strides = array<i64: 2, 2>} : tensor<2x3x6x5xf32>, tensor<2x3x12x10xf32> -> tensor<2x3x12x10xf32>{{$}}
// CHECK-NEXT:    %[[A0:.+]] = train.avg_pool2d_grad %[[DYH]] {kernel = array<i64: 7, 9>} : tensor<1x4x1x1xf16> -> tensor<1x4x7x9xf16>{{$}}
// CHECK-NEXT:    %[[A1:.+]] = train.avg_pool2d_grad %[[DY]] {kernel = array<i64: 2, 2>, strides = array<i64: 2, 2>} : tensor<2x3x6x5xf32> -> tensor<2x3x12x10xf32>{{$}}
// CHECK-NEXT:    %[[A2:.+]] = train.avg_pool2d_grad %[[DY4]] {kernel = array<i64: 2, 4>, padding = array<i64: 1, 2>, strides = array<i64: 3, 2>} : tensor<2x3x5x6xf32> -> tensor<2x3x12x10xf32>{{$}}
// CHECK-NEXT:    %[[U:.+]] = train.upsample_nearest2d_grad %[[DU]] {scale = 2 : i64} : tensor<2x3x8x10xbf16> -> tensor<2x3x4x5xbf16>{{$}}
// CHECK-NEXT:    return %[[M0]], %[[M1]], %[[A0]], %[[A1]], %[[A2]], %[[U]] :
func.func @pool_grads(%dy: tensor<2x3x6x5xf32>, %x: tensor<2x3x12x10xf32>, %dyh: tensor<1x4x1x1xf16>, %du: tensor<2x3x8x10xbf16>, %dy4: tensor<2x3x5x6xf32>)
    -> (tensor<2x3x12x10xf32>, tensor<2x3x12x10xf32>, tensor<1x4x7x9xf16>, tensor<2x3x12x10xf32>, tensor<2x3x12x10xf32>, tensor<2x3x4x5xbf16>) {
  %m0 = train.max_pool2d_grad %dy, %x {kernel = array<i64: 2, 2>, strides = array<i64: 2, 2>, padding = array<i64: 0, 0>}
      : tensor<2x3x6x5xf32>, tensor<2x3x12x10xf32> -> tensor<2x3x12x10xf32>
  %m1 = train.max_pool2d_grad %dy, %x {kernel = array<i64: 3, 3>, strides = array<i64: 2, 2>, padding = array<i64: 1, 1>}
      : tensor<2x3x6x5xf32>, tensor<2x3x12x10xf32> -> tensor<2x3x12x10xf32>
  %a0 = train.avg_pool2d_grad %dyh {kernel = array<i64: 7, 9>, strides = array<i64: 1, 1>} : tensor<1x4x1x1xf16> -> tensor<1x4x7x9xf16>
  %a1 = train.avg_pool2d_grad %dy {kernel = array<i64: 2, 2>, strides = array<i64: 2, 2>} : tensor<2x3x6x5xf32> -> tensor<2x3x12x10xf32>
  %a2 = train.avg_pool2d_grad %dy4 {padding = array<i64: 1, 2>, kernel = array<i64: 2, 4>, strides = array<i64: 3, 2>} : tensor<2x3x5x6xf32> -> tensor<2x3x12x10xf32>
  %u = train.upsample_nearest2d_grad %du {scale = 2 : i64} : tensor<2x3x8x10xbf16> -> tensor<2x3x4x5xbf16>
  return %m0, %m1, %a0, %a1, %a2, %u : tensor<2x3x12x10xf32>, tensor<2x3x12x10xf32>, tensor<1x4x7x9xf16>, tensor<2x3x12x10xf32>, tensor<2x3x12x10xf32>, tensor<2x3x4x5xbf16>
}

// Grouped-query attention backward, with and without `causal`.
// CHECK-LABEL: func.func @attention_grad(
// CHECK-SAME:      %[[DO:.+]]: tensor<2x6x5x8xbf16>, %[[Q:.+]]: tensor<2x6x5x8xbf16>, %[[K:.+]]: tensor<2x2x7x8xbf16>, %[[V:.+]]: tensor<2x2x7x8xbf16>, %[[O:.+]]: tensor<2x6x5x8xbf16>, %[[LSE:.+]]: tensor<2x6x5xf32>)
// CHECK-NEXT:    %[[DQ:.+]], %[[DK:.+]], %[[DV:.+]] = train.attention_grad %[[DO]], %[[Q]], %[[K]], %[[V]], %[[O]], %[[LSE]] {scale = 5.000000e-01 : f64} : tensor<2x6x5x8xbf16>, tensor<2x6x5x8xbf16>, tensor<2x2x7x8xbf16>, tensor<2x2x7x8xbf16>, tensor<2x6x5x8xbf16>, tensor<2x6x5xf32> -> tensor<2x6x5x8xbf16>, tensor<2x2x7x8xbf16>, tensor<2x2x7x8xbf16>{{$}}
// CHECK-NEXT:    %[[DQC:.+]], %[[DKC:.+]], %[[DVC:.+]] = train.attention_grad %[[DO]], %[[Q]], %[[K]], %[[V]], %[[O]], %[[LSE]] {causal, scale = 1.250000e-01 : f64} : tensor<2x6x5x8xbf16>, tensor<2x6x5x8xbf16>, tensor<2x2x7x8xbf16>, tensor<2x2x7x8xbf16>, tensor<2x6x5x8xbf16>, tensor<2x6x5xf32> -> tensor<2x6x5x8xbf16>, tensor<2x2x7x8xbf16>, tensor<2x2x7x8xbf16>{{$}}
// CHECK-NEXT:    return %[[DQ]], %[[DK]], %[[DV]], %[[DQC]], %[[DKC]], %[[DVC]] :
func.func @attention_grad(%do: tensor<2x6x5x8xbf16>, %q: tensor<2x6x5x8xbf16>, %k: tensor<2x2x7x8xbf16>, %v: tensor<2x2x7x8xbf16>, %o: tensor<2x6x5x8xbf16>, %lse: tensor<2x6x5xf32>)
    -> (tensor<2x6x5x8xbf16>, tensor<2x2x7x8xbf16>, tensor<2x2x7x8xbf16>, tensor<2x6x5x8xbf16>, tensor<2x2x7x8xbf16>, tensor<2x2x7x8xbf16>) {
  %dq, %dk, %dv = train.attention_grad %do, %q, %k, %v, %o, %lse {scale = 5.000000e-01 : f64}
      : tensor<2x6x5x8xbf16>, tensor<2x6x5x8xbf16>, tensor<2x2x7x8xbf16>, tensor<2x2x7x8xbf16>, tensor<2x6x5x8xbf16>, tensor<2x6x5xf32>
      -> tensor<2x6x5x8xbf16>, tensor<2x2x7x8xbf16>, tensor<2x2x7x8xbf16>
  %dqc, %dkc, %dvc = train.attention_grad %do, %q, %k, %v, %o, %lse {scale = 1.250000e-01 : f64, causal}
      : tensor<2x6x5x8xbf16>, tensor<2x6x5x8xbf16>, tensor<2x2x7x8xbf16>, tensor<2x2x7x8xbf16>, tensor<2x6x5x8xbf16>, tensor<2x6x5xf32>
      -> tensor<2x6x5x8xbf16>, tensor<2x2x7x8xbf16>, tensor<2x2x7x8xbf16>
  return %dq, %dk, %dv, %dqc, %dkc, %dvc
      : tensor<2x6x5x8xbf16>, tensor<2x2x7x8xbf16>, tensor<2x2x7x8xbf16>, tensor<2x6x5x8xbf16>, tensor<2x2x7x8xbf16>, tensor<2x2x7x8xbf16>
}

// CHECK-LABEL: func.func @rotary_grad(
// CHECK-SAME:      %[[D:.+]]: tensor<2x6x5x8xbf16>, %[[DF:.+]]: tensor<5x4xf32>)
// CHECK-NEXT:    %[[R0:.+]] = train.rotary_grad %[[D]] : tensor<2x6x5x8xbf16>{{$}}
// CHECK-NEXT:    %[[R1:.+]] = train.rotary_grad %[[D]] : tensor<2x6x5x8xbf16>{{$}}
// CHECK-NEXT:    %[[R2:.+]] = train.rotary_grad %[[DF]] {theta = 5.000000e+05 : f64} : tensor<5x4xf32>{{$}}
// CHECK-NEXT:    return %[[R0]], %[[R1]], %[[R2]] :
func.func @rotary_grad(%d: tensor<2x6x5x8xbf16>, %df: tensor<5x4xf32>) -> (tensor<2x6x5x8xbf16>, tensor<2x6x5x8xbf16>, tensor<5x4xf32>) {
  %r0 = train.rotary_grad %d : tensor<2x6x5x8xbf16>
  %r1 = train.rotary_grad %d {theta = 1.000000e+04 : f64} : tensor<2x6x5x8xbf16> -> tensor<2x6x5x8xbf16>
  %r2 = train.rotary_grad %df {theta = 5.000000e+05 : f64} : tensor<5x4xf32>
  return %r0, %r1, %r2 : tensor<2x6x5x8xbf16>, tensor<2x6x5x8xbf16>, tensor<5x4xf32>
}

// CHECK-LABEL: func.func @slice_grad(
// CHECK-SAME:      %[[D:.+]]: tensor<2x5x4xf32>, %[[DS:.+]]: tensor<2x2x3xf32>)
// CHECK-NEXT:    %[[G0:.+]] = train.slice_grad %[[D]] {offsets = array<i64: 1, 0, 4>} : tensor<2x5x4xf32> -> tensor<3x5x12xf32>{{$}}
// CHECK-NEXT:    %[[G1:.+]] = train.slice_grad %[[DS]] {offsets = array<i64: 0, 1, 1>, strides = array<i64: 2, 3, 4>} : tensor<2x2x3xf32> -> tensor<3x5x12xf32>{{$}}
// CHECK-NEXT:    return %[[G0]], %[[G1]] :
func.func @slice_grad(%d: tensor<2x5x4xf32>, %ds: tensor<2x2x3xf32>) -> (tensor<3x5x12xf32>, tensor<3x5x12xf32>) {
  %g0 = train.slice_grad %d {offsets = array<i64: 1, 0, 4>} : tensor<2x5x4xf32> -> tensor<3x5x12xf32>
  %g1 = train.slice_grad %ds {strides = array<i64: 2, 3, 4>, offsets = array<i64: 0, 1, 1>} : tensor<2x2x3xf32> -> tensor<3x5x12xf32>
  return %g0, %g1 : tensor<3x5x12xf32>, tensor<3x5x12xf32>
}

//===----------------------------------------------------------------------===//
// Optimizers
//===----------------------------------------------------------------------===//

// `momentum` and `weight_decay` default to 0; the momentum buffer is the
// optional `momentum(...)` group.
// CHECK-LABEL: func.func @sgd(
// CHECK-SAME:      %[[DW:.+]]: tensor<24x40xf32>, %[[DWH:.+]]: tensor<24x40xbf16>)
// CHECK-NEXT:    %[[W:.+]] = train.param "fc1.weight" : tensor<24x40xf32>{{$}}
// CHECK-NEXT:    %[[BUF:.+]] = train.opt_state "fc1.weight.momentum_buffer" : tensor<24x40xf32>{{$}}
// CHECK-NEXT:    train.sgd %[[W]], %[[DW]] {lr = 1.000000e-02 : f64} : tensor<24x40xf32>, tensor<24x40xf32>{{$}}
// CHECK-NEXT:    train.sgd %[[W]], %[[DW]] {lr = 1.000000e-02 : f64} : tensor<24x40xf32>, tensor<24x40xf32>{{$}}
// CHECK-NEXT:    train.sgd %[[W]], %[[DWH]] {lr = 5.000000e-01 : f64, weight_decay = 1.000000e-04 : f64} : tensor<24x40xf32>, tensor<24x40xbf16>{{$}}
// CHECK-NEXT:    train.sgd %[[W]], %[[DW]] momentum(%[[BUF]] : tensor<24x40xf32>) {lr = 1.000000e-02 : f64, momentum = 9.000000e-01 : f64} : tensor<24x40xf32>, tensor<24x40xf32>{{$}}
// CHECK-NEXT:    train.sgd %[[W]], %[[DW]] momentum(%[[BUF]] : tensor<24x40xf32>) {lr = 1.000000e-02 : f64, momentum = 9.000000e-01 : f64, weight_decay = 5.000000e-04 : f64} : tensor<24x40xf32>, tensor<24x40xf32>{{$}}
// CHECK-NEXT:    return
func.func @sgd(%dw: tensor<24x40xf32>, %dwh: tensor<24x40xbf16>) {
  %w = train.param "fc1.weight" : tensor<24x40xf32>
  %buf = train.opt_state "fc1.weight.momentum_buffer" : tensor<24x40xf32>
  train.sgd %w, %dw {lr = 1.000000e-02 : f64} : tensor<24x40xf32>, tensor<24x40xf32>
  train.sgd %w, %dw {lr = 1.000000e-02 : f64, momentum = 0.0 : f64, weight_decay = 0.0 : f64} : tensor<24x40xf32>, tensor<24x40xf32>
  train.sgd %w, %dwh {weight_decay = 1.000000e-04 : f64, lr = 5.000000e-01 : f64} : tensor<24x40xf32>, tensor<24x40xbf16>
  train.sgd %w, %dw momentum(%buf : tensor<24x40xf32>) {lr = 1.000000e-02 : f64, momentum = 9.000000e-01 : f64}
      : tensor<24x40xf32>, tensor<24x40xf32>
  train.sgd %w, %dw momentum(%buf : tensor<24x40xf32>) {lr = 1.000000e-02 : f64, momentum = 9.000000e-01 : f64, weight_decay = 5.000000e-04 : f64}
      : tensor<24x40xf32>, tensor<24x40xf32>
  return
}

// Gradient accumulation into an fp32 buffer, from a gradient as wide or
// narrower, at the micro-batch index (a scale of 1 is elided); the flag that
// predicates the updates, with and without loss scaling's check; the index
// advanced.
// CHECK-LABEL: func.func @accumulate(
// CHECK-SAME:      %[[DW:.+]]: tensor<24x40xf32>, %[[DWH:.+]]: tensor<24x40xbf16>, %[[F:.+]]: tensor<i1>)
// CHECK-NEXT:    %[[ACC:.+]] = train.opt_state "fc1.weight.grad_accumulator" : tensor<24x40xf32>{{$}}
// CHECK-NEXT:    %[[I:.+]] = train.opt_state "grad_accumulation.micro_batch" : tensor<i64>{{$}}
// CHECK-NEXT:    train.accumulate %[[ACC]], %[[DW]] micro_batch(%[[I]] : tensor<i64>) : tensor<24x40xf32>, tensor<24x40xf32>{{$}}
// CHECK-NEXT:    train.accumulate %[[ACC]], %[[DWH]] micro_batch(%[[I]] : tensor<i64>) {scale = 5.000000e-01 : f64} : tensor<24x40xf32>, tensor<24x40xbf16>{{$}}
// CHECK-NEXT:    %{{.+}} = train.micro_batch_skip %[[I]] {micro_batches = 2 : i64} : tensor<i64> -> tensor<i1>{{$}}
// CHECK-NEXT:    %{{.+}} = train.micro_batch_skip %[[I]] or(%[[F]] : tensor<i1>) {micro_batches = 2 : i64} : tensor<i64> -> tensor<i1>{{$}}
// CHECK-NEXT:    train.micro_batch_advance %[[I]] {micro_batches = 2 : i64} : tensor<i64>{{$}}
// CHECK-NEXT:    return
func.func @accumulate(%dw: tensor<24x40xf32>, %dwh: tensor<24x40xbf16>, %found: tensor<i1>) {
  %acc = train.opt_state "fc1.weight.grad_accumulator" : tensor<24x40xf32>
  %i = train.opt_state "grad_accumulation.micro_batch" : tensor<i64>
  train.accumulate %acc, %dw micro_batch(%i : tensor<i64>) {scale = 1.0 : f64} : tensor<24x40xf32>, tensor<24x40xf32>
  train.accumulate %acc, %dwh micro_batch(%i : tensor<i64>) {scale = 0.5 : f64} : tensor<24x40xf32>, tensor<24x40xbf16>
  %skip = train.micro_batch_skip %i {micro_batches = 2 : i64} : tensor<i64> -> tensor<i1>
  %skip_found = train.micro_batch_skip %i or(%found : tensor<i1>) {micro_batches = 2 : i64} : tensor<i64> -> tensor<i1>
  train.micro_batch_advance %i {micro_batches = 2 : i64} : tensor<i64>
  return
}

// `beta1` (0.9), `beta2` (0.999), `epsilon` (1e-8) and `weight_decay` (0) are
// elided at their defaults. The gradient may be narrower than the states, and
// the step an integer or a float 0-d tensor.
// CHECK-LABEL: func.func @adam(
// CHECK-SAME:      %[[DW:.+]]: tensor<24x40xf32>, %[[DWH:.+]]: tensor<24x40xbf16>, %[[T:.+]]: tensor<i64>, %[[TF:.+]]: tensor<f32>)
// CHECK-NEXT:    %[[W:.+]] = train.param "fc1.weight" : tensor<24x40xf32>{{$}}
// CHECK-NEXT:    %[[M:.+]] = train.opt_state "fc1.weight.exp_avg" : tensor<24x40xf32>{{$}}
// CHECK-NEXT:    %[[V:.+]] = train.opt_state "fc1.weight.exp_avg_sq" : tensor<24x40xf32>{{$}}
// CHECK-NEXT:    train.adam %[[W]], %[[DW]], %[[M]], %[[V]] step(%[[T]] : tensor<i64>) {lr = 1.000000e-03 : f64} : tensor<24x40xf32>, tensor<24x40xf32>, tensor<24x40xf32>, tensor<24x40xf32>{{$}}
// CHECK-NEXT:    train.adam %[[W]], %[[DW]], %[[M]], %[[V]] step(%[[T]] : tensor<i64>) {lr = 1.000000e-03 : f64} : tensor<24x40xf32>, tensor<24x40xf32>, tensor<24x40xf32>, tensor<24x40xf32>{{$}}
// CHECK-NEXT:    train.adam %[[W]], %[[DWH]], %[[M]], %[[V]] step(%[[TF]] : tensor<f32>) {beta1 = 8.000000e-01 : f64, beta2 = 7.500000e-01 : f64, epsilon = 1.000000e-03 : f64, lr = 2.000000e-03 : f64, weight_decay = 1.000000e-02 : f64} : tensor<24x40xf32>, tensor<24x40xbf16>, tensor<24x40xf32>, tensor<24x40xf32>{{$}}
// CHECK-NEXT:    train.adamw %[[W]], %[[DW]], %[[M]], %[[V]] step(%[[T]] : tensor<i64>) {lr = 1.000000e-03 : f64} : tensor<24x40xf32>, tensor<24x40xf32>, tensor<24x40xf32>, tensor<24x40xf32>{{$}}
// CHECK-NEXT:    train.adamw %[[W]], %[[DW]], %[[M]], %[[V]] step(%[[T]] : tensor<i64>) {lr = 1.000000e-03 : f64} : tensor<24x40xf32>, tensor<24x40xf32>, tensor<24x40xf32>, tensor<24x40xf32>{{$}}
// CHECK-NEXT:    train.adamw %[[W]], %[[DWH]], %[[M]], %[[V]] step(%[[TF]] : tensor<f32>) {beta1 = 8.000000e-01 : f64, beta2 = 7.500000e-01 : f64, epsilon = 1.000000e-03 : f64, lr = 2.000000e-03 : f64, weight_decay = 1.000000e-02 : f64} : tensor<24x40xf32>, tensor<24x40xbf16>, tensor<24x40xf32>, tensor<24x40xf32>{{$}}
// CHECK-NEXT:    return
func.func @adam(%dw: tensor<24x40xf32>, %dwh: tensor<24x40xbf16>, %t: tensor<i64>, %tf: tensor<f32>) {
  %w = train.param "fc1.weight" : tensor<24x40xf32>
  %m = train.opt_state "fc1.weight.exp_avg" : tensor<24x40xf32>
  %v = train.opt_state "fc1.weight.exp_avg_sq" : tensor<24x40xf32>
  train.adam %w, %dw, %m, %v step(%t : tensor<i64>) {lr = 1.000000e-03 : f64}
      : tensor<24x40xf32>, tensor<24x40xf32>, tensor<24x40xf32>, tensor<24x40xf32>
  train.adam %w, %dw, %m, %v step(%t : tensor<i64>) {lr = 1.000000e-03 : f64, beta1 = 9.000000e-01 : f64, beta2 = 9.990000e-01 : f64, epsilon = 1.000000e-08 : f64, weight_decay = 0.0 : f64}
      : tensor<24x40xf32>, tensor<24x40xf32>, tensor<24x40xf32>, tensor<24x40xf32>
  train.adam %w, %dwh, %m, %v step(%tf : tensor<f32>) {lr = 2.000000e-03 : f64, beta1 = 8.000000e-01 : f64, beta2 = 7.500000e-01 : f64, epsilon = 1.000000e-03 : f64, weight_decay = 1.000000e-02 : f64}
      : tensor<24x40xf32>, tensor<24x40xbf16>, tensor<24x40xf32>, tensor<24x40xf32>
  train.adamw %w, %dw, %m, %v step(%t : tensor<i64>) {lr = 1.000000e-03 : f64}
      : tensor<24x40xf32>, tensor<24x40xf32>, tensor<24x40xf32>, tensor<24x40xf32>
  train.adamw %w, %dw, %m, %v step(%t : tensor<i64>) {lr = 1.000000e-03 : f64, beta1 = 9.000000e-01 : f64, beta2 = 9.990000e-01 : f64, epsilon = 1.000000e-08 : f64, weight_decay = 0.0 : f64}
      : tensor<24x40xf32>, tensor<24x40xf32>, tensor<24x40xf32>, tensor<24x40xf32>
  train.adamw %w, %dwh, %m, %v step(%tf : tensor<f32>) {lr = 2.000000e-03 : f64, beta1 = 8.000000e-01 : f64, beta2 = 7.500000e-01 : f64, epsilon = 1.000000e-03 : f64, weight_decay = 1.000000e-02 : f64}
      : tensor<24x40xf32>, tensor<24x40xbf16>, tensor<24x40xf32>, tensor<24x40xf32>
  return
}

//===----------------------------------------------------------------------===//
// broadcast, cross_entropy ignore_index
//===----------------------------------------------------------------------===//

// CHECK-LABEL: func.func @broadcast(
// CHECK-SAME:      %[[X:.+]]: tensor<12xf32>, %[[Y:.+]]: tensor<3x12xbf16>)
// CHECK-NEXT:    %[[B0:.+]] = train.broadcast %[[X]] {dims = array<i64: 0, 1>} : tensor<12xf32> -> tensor<3x5x12xf32>{{$}}
// CHECK-NEXT:    %[[B1:.+]] = train.broadcast %[[Y]] {dims = array<i64: 1>} : tensor<3x12xbf16> -> tensor<3x5x12xbf16>{{$}}
// CHECK-NEXT:    return %[[B0]], %[[B1]] :
func.func @broadcast(%x: tensor<12xf32>, %y: tensor<3x12xbf16>) -> (tensor<3x5x12xf32>, tensor<3x5x12xbf16>) {
  %b0 = train.broadcast %x {dims = array<i64: 0, 1>} : tensor<12xf32> -> tensor<3x5x12xf32>
  %b1 = train.broadcast %y {dims = array<i64: 1>} : tensor<3x12xbf16> -> tensor<3x5x12xbf16>
  return %b0, %b1 : tensor<3x5x12xf32>, tensor<3x5x12xbf16>
}

// CHECK-LABEL: func.func @cross_entropy_ignore_index(
// CHECK-SAME:      %[[L:.+]]: tensor<3x5x11xf32>, %[[Y:.+]]: tensor<3x5xi64>, %[[G:.+]]: tensor<f32>)
// CHECK-NEXT:    %[[CE:.+]] = train.cross_entropy %[[L]], %[[Y]] {ignore_index = -100 : i64} : tensor<3x5x11xf32>, tensor<3x5xi64> -> tensor<f32>{{$}}
// CHECK-NEXT:    %[[DL:.+]] = train.cross_entropy_grad %[[G]], %[[L]], %[[Y]] {ignore_index = -100 : i64} : tensor<f32>, tensor<3x5x11xf32>, tensor<3x5xi64> -> tensor<3x5x11xf32>{{$}}
// CHECK-NEXT:    return %[[CE]], %[[DL]] :
func.func @cross_entropy_ignore_index(%l: tensor<3x5x11xf32>, %y: tensor<3x5xi64>, %g: tensor<f32>) -> (tensor<f32>, tensor<3x5x11xf32>) {
  %ce = train.cross_entropy %l, %y {ignore_index = -100 : i64} : tensor<3x5x11xf32>, tensor<3x5xi64> -> tensor<f32>
  %dl = train.cross_entropy_grad %g, %l, %y {ignore_index = -100 : i64} : tensor<f32>, tensor<3x5x11xf32>, tensor<3x5xi64> -> tensor<3x5x11xf32>
  return %ce, %dl : tensor<f32>, tensor<3x5x11xf32>
}

// relu with an upper bound (ReLU6) and its gradient carry the bound.
// CHECK-LABEL: func.func @relu6(
// CHECK:         train.relu %{{.+}} {upper = 6.000000e+00 : f64} : tensor<4xf32>{{$}}
// CHECK:         train.relu_grad %{{.+}}, %{{.+}} {upper = 6.000000e+00 : f64} : tensor<4xf32>{{$}}
func.func @relu6(%x: tensor<4xf32>, %d: tensor<4xf32>) -> (tensor<4xf32>, tensor<4xf32>) {
  %y = train.relu %x {upper = 6.0 : f64} : tensor<4xf32>
  %g = train.relu_grad %d, %y {upper = 6.0 : f64} : tensor<4xf32>
  return %y, %g : tensor<4xf32>, tensor<4xf32>
}

// The gates of squeeze-and-excitation blocks and MobileNetV3's activation.
// CHECK-LABEL: func.func @gates(
// CHECK-NEXT:    %[[S:.+]] = train.sigmoid %{{.+}} : tensor<2x8x1x1xbf16>{{$}}
// CHECK-NEXT:    train.sigmoid_grad %{{.+}}, %[[S]] : tensor<2x8x1x1xbf16>{{$}}
// CHECK-NEXT:    %[[T:.+]] = train.tanh %{{.+}} : tensor<2x8x1x1xbf16>{{$}}
// CHECK-NEXT:    train.tanh_grad %{{.+}}, %[[T]] : tensor<2x8x1x1xbf16>{{$}}
// CHECK-NEXT:    train.hardsigmoid %{{.+}} : tensor<2x8x1x1xbf16>{{$}}
// CHECK-NEXT:    train.hardsigmoid_grad %{{.+}}, %{{.+}} : tensor<2x8x1x1xbf16>{{$}}
// CHECK-NEXT:    train.hardswish %{{.+}} : tensor<4xf32>{{$}}
// CHECK-NEXT:    train.hardswish_grad %{{.+}}, %{{.+}} : tensor<4xf32>{{$}}
func.func @gates(%s: tensor<2x8x1x1xbf16>, %ds: tensor<2x8x1x1xbf16>, %x: tensor<4xf32>, %d: tensor<4xf32>)
    -> (tensor<2x8x1x1xbf16>, tensor<2x8x1x1xbf16>, tensor<2x8x1x1xbf16>, tensor<2x8x1x1xbf16>, tensor<4xf32>, tensor<4xf32>) {
  %0 = train.sigmoid %s : tensor<2x8x1x1xbf16>
  %1 = train.sigmoid_grad %ds, %0 : tensor<2x8x1x1xbf16>
  %t = train.tanh %s : tensor<2x8x1x1xbf16>
  %dt = train.tanh_grad %ds, %t : tensor<2x8x1x1xbf16>
  %2 = train.hardsigmoid %s : tensor<2x8x1x1xbf16> -> tensor<2x8x1x1xbf16>
  %3 = train.hardsigmoid_grad %ds, %s : tensor<2x8x1x1xbf16>
  %4 = train.hardswish %x : tensor<4xf32>
  %5 = train.hardswish_grad %d, %x : tensor<4xf32>, tensor<4xf32> -> tensor<4xf32>
  return %0, %1, %2, %3, %4, %5 : tensor<2x8x1x1xbf16>, tensor<2x8x1x1xbf16>, tensor<2x8x1x1xbf16>, tensor<2x8x1x1xbf16>, tensor<4xf32>, tensor<4xf32>
}

// ceil_mode max pooling: 8 rows in windows of 3 with stride 2 give 4 windows,
// the last one partial.
// CHECK-LABEL: func.func @max_pool_ceil(
// CHECK-NEXT:    %[[P:.+]] = train.max_pool2d %{{.+}} {ceil_mode, kernel = array<i64: 3, 3>, strides = array<i64: 2, 2>} : tensor<1x2x8x6xf32> -> tensor<1x2x4x3xf32>{{$}}
// CHECK-NEXT:    train.max_pool2d_grad %{{.+}}, %{{.+}} {ceil_mode, kernel = array<i64: 3, 3>, strides = array<i64: 2, 2>} : tensor<1x2x4x3xf32>, tensor<1x2x8x6xf32> -> tensor<1x2x8x6xf32>{{$}}
func.func @max_pool_ceil(%x: tensor<1x2x8x6xf32>) -> (tensor<1x2x4x3xf32>, tensor<1x2x8x6xf32>) {
  %p = train.max_pool2d %x {ceil_mode, kernel = array<i64: 3, 3>, strides = array<i64: 2, 2>} : tensor<1x2x8x6xf32> -> tensor<1x2x4x3xf32>
  %g = train.max_pool2d_grad %p, %x {ceil_mode, kernel = array<i64: 3, 3>, strides = array<i64: 2, 2>} : tensor<1x2x4x3xf32>, tensor<1x2x8x6xf32> -> tensor<1x2x8x6xf32>
  return %p, %g : tensor<1x2x4x3xf32>, tensor<1x2x8x6xf32>
}
