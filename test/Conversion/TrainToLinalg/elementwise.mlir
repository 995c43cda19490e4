// RUN: mem-opt --mlir-print-debuginfo=false %s -split-input-file --convert-train-to-linalg | FileCheck %s

// Promote-to-widest: the bf16 operand is extended, the add runs in f32.
// CHECK-DAG: #[[ID2:.+]] = affine_map<(d0, d1) -> (d0, d1)>
// CHECK-LABEL: func.func @add_promote
// CHECK-SAME: (%[[A:.+]]: tensor<2x3xbf16>, %[[B:.+]]: tensor<2x3xf32>)
// CHECK: %[[E:.+]] = tensor.empty() : tensor<2x3xf32>
// CHECK: linalg.generic {indexing_maps = [#[[ID2]], #[[ID2]], #[[ID2]]], iterator_types = ["parallel", "parallel"]}
// CHECK-SAME: ins(%[[A]], %[[B]] : tensor<2x3xbf16>, tensor<2x3xf32>) outs(%[[E]] : tensor<2x3xf32>)
// CHECK: ^bb0(%[[X:.+]]: bf16, %[[Y:.+]]: f32, %{{.+}}: f32):
// CHECK: %[[XE:.+]] = arith.extf %[[X]] : bf16 to f32
// CHECK: %[[S:.+]] = arith.addf %[[XE]], %[[Y]] : f32
// CHECK: linalg.yield %[[S]] : f32
func.func @add_promote(%a: tensor<2x3xbf16>, %b: tensor<2x3xf32>) -> tensor<2x3xf32> {
  %0 = train.add %a, %b : tensor<2x3xbf16>, tensor<2x3xf32> -> tensor<2x3xf32>
  return %0 : tensor<2x3xf32>
}

// -----

// CHECK-LABEL: func.func @sub_mul
// CHECK: ^bb0(%[[X:.+]]: f64, %[[Y:.+]]: f64, %{{.+}}: f64):
// CHECK-NEXT: %[[D:.+]] = arith.subf %[[X]], %[[Y]] : f64
// CHECK-NEXT: linalg.yield %[[D]]
// CHECK: ^bb0(%[[X2:.+]]: f64, %[[Y2:.+]]: f64, %{{.+}}: f64):
// CHECK-NEXT: %[[P:.+]] = arith.mulf %[[X2]], %[[Y2]] : f64
// CHECK-NEXT: linalg.yield %[[P]]
func.func @sub_mul(%a: tensor<4xf64>, %b: tensor<4xf64>) -> (tensor<4xf64>, tensor<4xf64>) {
  %0 = train.sub %a, %b : tensor<4xf64>
  %1 = train.mul %a, %b : tensor<4xf64>
  return %0, %1 : tensor<4xf64>, tensor<4xf64>
}

// -----

// bf16 * f16 promotes both operands to f32.
// CHECK-LABEL: func.func @mul_bf16_f16
// CHECK: ^bb0(%[[X:.+]]: bf16, %[[Y:.+]]: f16, %{{.+}}: f32):
// CHECK-NEXT: %[[XE:.+]] = arith.extf %[[X]] : bf16 to f32
// CHECK-NEXT: %[[YE:.+]] = arith.extf %[[Y]] : f16 to f32
// CHECK-NEXT: %[[P:.+]] = arith.mulf %[[XE]], %[[YE]] : f32
// CHECK-NEXT: linalg.yield %[[P]] : f32
func.func @mul_bf16_f16(%a: tensor<4xbf16>, %b: tensor<4xf16>) -> tensor<4xf32> {
  %0 = train.mul %a, %b : tensor<4xbf16>, tensor<4xf16> -> tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

// scale computes bf16 in f32 and rounds once.
// CHECK-LABEL: func.func @scale_bf16
// CHECK: ^bb0(%[[X:.+]]: bf16, %{{.+}}: bf16):
// CHECK-NEXT: %[[XE:.+]] = arith.extf %[[X]] : bf16 to f32
// CHECK-NEXT: %[[F:.+]] = arith.constant 1.250000e-01 : f32
// CHECK-NEXT: %[[P:.+]] = arith.mulf %[[XE]], %[[F]] : f32
// CHECK-NEXT: %[[R:.+]] = arith.truncf %[[P]] : f32 to bf16
// CHECK-NEXT: linalg.yield %[[R]] : bf16
func.func @scale_bf16(%x: tensor<4xbf16>) -> tensor<4xbf16> {
  %0 = train.scale %x {factor = 1.250000e-01 : f64} : tensor<4xbf16>
  return %0 : tensor<4xbf16>
}

// -----

// The bias is indexed by loop `dim` only (1, the last by default, -3 = 0).
// CHECK-DAG: #[[ID:.+]] = affine_map<(d0, d1, d2) -> (d0, d1, d2)>
// CHECK-DAG: #[[D0:.+]] = affine_map<(d0, d1, d2) -> (d0)>
// CHECK-DAG: #[[D1:.+]] = affine_map<(d0, d1, d2) -> (d1)>
// CHECK-DAG: #[[D2:.+]] = affine_map<(d0, d1, d2) -> (d2)>
// CHECK-LABEL: func.func @bias_add
// CHECK-SAME: (%[[X:.+]]: tensor<2x3x4xf32>, %[[B3:.+]]: tensor<3xf32>, %[[B4:.+]]: tensor<4xbf16>, %[[B2:.+]]: tensor<2xf32>)
// CHECK: linalg.generic {indexing_maps = [#[[ID]], #[[D1]], #[[ID]]], iterator_types = ["parallel", "parallel", "parallel"]}
// CHECK-SAME: ins(%[[X]], %[[B3]] :
// CHECK: arith.addf
// CHECK: linalg.generic {indexing_maps = [#[[ID]], #[[D2]], #[[ID]]]
// CHECK-SAME: ins(%[[X]], %[[B4]] :
// CHECK: ^bb0(%[[XV:.+]]: f32, %[[BV:.+]]: bf16, %{{.+}}: f32):
// CHECK-NEXT: %[[BE:.+]] = arith.extf %[[BV]] : bf16 to f32
// CHECK-NEXT: arith.addf %[[XV]], %[[BE]] : f32
// CHECK: linalg.generic {indexing_maps = [#[[ID]], #[[D0]], #[[ID]]]
// CHECK-SAME: ins(%[[X]], %[[B2]] :
func.func @bias_add(%x: tensor<2x3x4xf32>, %b3: tensor<3xf32>, %b4: tensor<4xbf16>, %b2: tensor<2xf32>)
    -> (tensor<2x3x4xf32>, tensor<2x3x4xf32>, tensor<2x3x4xf32>) {
  %0 = train.bias_add %x, %b3 {dim = 1 : i64} : tensor<2x3x4xf32>, tensor<3xf32> -> tensor<2x3x4xf32>
  %1 = train.bias_add %x, %b4 : tensor<2x3x4xf32>, tensor<4xbf16> -> tensor<2x3x4xf32>
  %2 = train.bias_add %x, %b2 {dim = -3 : i64} : tensor<2x3x4xf32>, tensor<2xf32> -> tensor<2x3x4xf32>
  return %0, %1, %2 : tensor<2x3x4xf32>, tensor<2x3x4xf32>, tensor<2x3x4xf32>
}

// -----

// relu_grad selects on relu's output (NaN passes the gradient, as PyTorch's
// threshold_backward).
// CHECK-LABEL: func.func @relu
// CHECK: ^bb0(%[[X:.+]]: f32, %{{.+}}: f32):
// CHECK-NEXT: %[[Z:.+]] = arith.constant 0.000000e+00 : f32
// CHECK-NEXT: %[[M:.+]] = arith.maximumf %[[X]], %[[Z]] : f32
// CHECK-NEXT: linalg.yield %[[M]]
// CHECK: ^bb0(%[[G:.+]]: f32, %[[Y:.+]]: f32, %{{.+}}: f32):
// CHECK-NEXT: %[[Z2:.+]] = arith.constant 0.000000e+00 : f32
// CHECK-NEXT: %[[C:.+]] = arith.cmpf ugt, %[[Y]], %[[Z2]] : f32
// CHECK-NEXT: %[[S:.+]] = arith.select %[[C]], %[[G]], %[[Z2]] : f32
// CHECK-NEXT: linalg.yield %[[S]]
func.func @relu(%x: tensor<4xf32>, %dy: tensor<4xf32>) -> (tensor<4xf32>, tensor<4xf32>) {
  %0 = train.relu %x : tensor<4xf32>
  %1 = train.relu_grad %dy, %0 : tensor<4xf32>
  return %0, %1 : tensor<4xf32>, tensor<4xf32>
}

// -----

// gelu: x * 0.5 * (1 + erf(x * M_SQRT1_2)).
// CHECK-LABEL: func.func @gelu
// CHECK: ^bb0(%[[X:.+]]: f32, %{{.+}}: f32):
// CHECK-NEXT: %[[H:.+]] = arith.constant 5.000000e-01 : f32
// CHECK-NEXT: %[[XH:.+]] = arith.mulf %[[X]], %[[H]] : f32
// CHECK-NEXT: %[[A:.+]] = arith.constant 0.707106769 : f32
// CHECK-NEXT: %[[XA:.+]] = arith.mulf %[[X]], %[[A]] : f32
// CHECK-NEXT: %[[E:.+]] = math.erf %[[XA]] : f32
// CHECK-NEXT: %[[ONE:.+]] = arith.constant 1.000000e+00 : f32
// CHECK-NEXT: %[[P:.+]] = arith.addf %[[ONE]], %[[E]] : f32
// CHECK-NEXT: %[[R:.+]] = arith.mulf %[[XH]], %[[P]] : f32
// CHECK-NEXT: linalg.yield %[[R]]
//
// tanh form: 0.5 * x * (1 + tanh(sqrt(2/pi) * (x + 0.044715 * x^3))).
// CHECK: ^bb0(%[[X:.+]]: f32, %{{.+}}: f32):
// CHECK-NEXT: %[[X2:.+]] = arith.mulf %[[X]], %[[X]] : f32
// CHECK-NEXT: %[[X3:.+]] = arith.mulf %[[X2]], %[[X]] : f32
// CHECK-NEXT: %[[K:.+]] = arith.constant 4.471500e-02 : f32
// CHECK-NEXT: %[[KX3:.+]] = arith.mulf %[[K]], %[[X3]] : f32
// CHECK-NEXT: %[[S:.+]] = arith.addf %[[X]], %[[KX3]] : f32
// CHECK-NEXT: %[[B:.+]] = arith.constant 0.797884583 : f32
// CHECK-NEXT: %[[IN:.+]] = arith.mulf %[[B]], %[[S]] : f32
// CHECK-NEXT: %[[H:.+]] = arith.constant 5.000000e-01 : f32
// CHECK-NEXT: %[[HX:.+]] = arith.mulf %[[H]], %[[X]] : f32
// CHECK-NEXT: %[[T:.+]] = math.tanh %[[IN]] : f32
// CHECK-NEXT: %[[ONE:.+]] = arith.constant 1.000000e+00 : f32
// CHECK-NEXT: %[[P:.+]] = arith.addf %[[ONE]], %[[T]] : f32
// CHECK-NEXT: %[[R:.+]] = arith.mulf %[[HX]], %[[P]] : f32
// CHECK-NEXT: linalg.yield %[[R]]
//
// gelu_grad: dy * (cdf + x * pdf), pdf = exp(-x^2 / 2) / sqrt(2 pi).
// CHECK: ^bb0(%[[DY:.+]]: f32, %[[X:.+]]: f32, %{{.+}}: f32):
// CHECK: %[[E:.+]] = math.erf
// CHECK: %[[CDF:.+]] = arith.mulf %{{.+}}, %{{.+}} : f32
// CHECK: %[[XX:.+]] = arith.mulf %[[X]], %[[X]] : f32
// CHECK: %[[EXP:.+]] = math.exp
// CHECK: arith.constant 0.398942292 : f32
// CHECK: %[[PDF:.+]] = arith.mulf %{{.+}}, %[[EXP]] : f32
// CHECK: %[[XPDF:.+]] = arith.mulf %[[X]], %[[PDF]] : f32
// CHECK: %[[D:.+]] = arith.addf %[[CDF]], %[[XPDF]] : f32
// CHECK: %[[R:.+]] = arith.mulf %[[DY]], %[[D]] : f32
// CHECK-NEXT: linalg.yield %[[R]]
//
// gelu_grad, tanh form: the derivative of the tanh form.
// CHECK: ^bb0(%[[DY:.+]]: f32, %[[X:.+]]: f32, %{{.+}}: f32):
// CHECK: %[[T:.+]] = math.tanh
// CHECK: %[[TT:.+]] = arith.mulf %[[T]], %[[T]] : f32
// CHECK: arith.subf %{{.+}}, %[[TT]] : f32
// CHECK: arith.constant 1.341450e-01 : f32
// CHECK: %[[R:.+]] = arith.mulf %[[DY]], %{{.+}} : f32
// CHECK-NEXT: linalg.yield %[[R]]
func.func @gelu(%x: tensor<4xf32>, %dy: tensor<4xf32>)
    -> (tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>) {
  %0 = train.gelu %x : tensor<4xf32>
  %1 = train.gelu %x {approximate} : tensor<4xf32>
  %2 = train.gelu_grad %dy, %x : tensor<4xf32>
  %3 = train.gelu_grad %dy, %x {approximate} : tensor<4xf32>
  return %0, %1, %2, %3 : tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>
}

// -----

// silu (x / (1 + exp(-x))) and silu_grad on bf16 compute in f32.
// CHECK-LABEL: func.func @silu
// CHECK: ^bb0(%[[X:.+]]: bf16, %{{.+}}: bf16):
// CHECK-NEXT: %[[XE:.+]] = arith.extf %[[X]] : bf16 to f32
// CHECK-NEXT: %[[N:.+]] = arith.negf %[[XE]] : f32
// CHECK-NEXT: %[[E:.+]] = math.exp %[[N]] : f32
// CHECK-NEXT: %[[ONE:.+]] = arith.constant 1.000000e+00 : f32
// CHECK-NEXT: %[[D:.+]] = arith.addf %[[ONE]], %[[E]] : f32
// CHECK-NEXT: %[[Q:.+]] = arith.divf %[[XE]], %[[D]] : f32
// CHECK-NEXT: %[[R:.+]] = arith.truncf %[[Q]] : f32 to bf16
// CHECK-NEXT: linalg.yield %[[R]] : bf16
//
// silu_grad: dy * s * (1 + x * (1 - s)).
// CHECK: ^bb0(%[[G:.+]]: bf16, %[[X:.+]]: bf16, %{{.+}}: bf16):
// CHECK-NEXT: %[[GE:.+]] = arith.extf %[[G]] : bf16 to f32
// CHECK-NEXT: %[[XE:.+]] = arith.extf %[[X]] : bf16 to f32
// CHECK: %[[S:.+]] = arith.divf %{{.+}}, %{{.+}} : f32
// CHECK: %[[GS:.+]] = arith.mulf %[[GE]], %[[S]] : f32
// CHECK: %[[OMS:.+]] = arith.subf %{{.+}}, %[[S]] : f32
// CHECK-NEXT: %[[XO:.+]] = arith.mulf %[[XE]], %[[OMS]] : f32
// CHECK: %[[F:.+]] = arith.addf %{{.+}}, %[[XO]] : f32
// CHECK-NEXT: %[[P:.+]] = arith.mulf %[[GS]], %[[F]] : f32
// CHECK-NEXT: %[[R:.+]] = arith.truncf %[[P]] : f32 to bf16
// CHECK-NEXT: linalg.yield %[[R]] : bf16
func.func @silu(%x: tensor<4xbf16>, %dy: tensor<4xbf16>) -> (tensor<4xbf16>, tensor<4xbf16>) {
  %0 = train.silu %x : tensor<4xbf16>
  %1 = train.silu_grad %dy, %x : tensor<4xbf16>
  return %0, %1 : tensor<4xbf16>, tensor<4xbf16>
}

// -----

// swiglu_grad: one generic with both gradients.
// CHECK-LABEL: func.func @swiglu
// CHECK: ^bb0(%[[G:.+]]: f32, %[[U:.+]]: f32, %{{.+}}: f32):
// CHECK: %[[SILU:.+]] = arith.divf %[[G]], %{{.+}} : f32
// CHECK-NEXT: %[[R:.+]] = arith.mulf %[[SILU]], %[[U]] : f32
// CHECK-NEXT: linalg.yield %[[R]]
// CHECK: %{{.+}}:2 = linalg.generic
// CHECK-SAME: ins(%{{.+}}, %{{.+}}, %{{.+}} : tensor<4xf32>, tensor<4xf32>, tensor<4xf32>) outs(%{{.+}}, %{{.+}} : tensor<4xf32>, tensor<4xf32>)
// CHECK: ^bb0(%[[DY:.+]]: f32, %[[G:.+]]: f32, %[[U:.+]]: f32, %{{.+}}: f32, %{{.+}}: f32):
// CHECK: %[[DYU:.+]] = arith.mulf %[[DY]], %[[U]] : f32
// CHECK: %[[DG:.+]] = arith.mulf %[[DYU]], %{{.+}} : f32
// CHECK: %[[SILU:.+]] = arith.divf %[[G]], %{{.+}} : f32
// CHECK-NEXT: %[[DU:.+]] = arith.mulf %[[DY]], %[[SILU]] : f32
// CHECK-NEXT: linalg.yield %[[DG]], %[[DU]] : f32, f32
func.func @swiglu(%g: tensor<4xf32>, %u: tensor<4xf32>, %dy: tensor<4xf32>)
    -> (tensor<4xf32>, tensor<4xf32>, tensor<4xf32>) {
  %0 = train.swiglu %g, %u : tensor<4xf32>
  %1, %2 = train.swiglu_grad %dy, %g, %u
      : tensor<4xf32>, tensor<4xf32>, tensor<4xf32> -> tensor<4xf32>, tensor<4xf32>
  return %0, %1, %2 : tensor<4xf32>, tensor<4xf32>, tensor<4xf32>
}

// -----

// CHECK-LABEL: func.func @cast
// CHECK-SAME: (%[[X:.+]]: tensor<4xf32>, %[[B:.+]]: tensor<4xbf16>, %[[H:.+]]: tensor<4xf16>, %[[D:.+]]: tensor<4xf64>)
// CHECK: ^bb0(%[[V:.+]]: f32, %{{.+}}: bf16):
// CHECK-NEXT: %[[T:.+]] = arith.truncf %[[V]] : f32 to bf16
// CHECK-NEXT: linalg.yield %[[T]] : bf16
// CHECK: ^bb0(%[[V:.+]]: bf16, %{{.+}}: f32):
// CHECK-NEXT: %[[T:.+]] = arith.extf %[[V]] : bf16 to f32
// CHECK-NEXT: linalg.yield %[[T]] : f32
// Between the two 16-bit types: through f32.
// CHECK: ^bb0(%[[V:.+]]: f16, %{{.+}}: bf16):
// CHECK-NEXT: %[[E:.+]] = arith.extf %[[V]] : f16 to f32
// CHECK-NEXT: %[[T:.+]] = arith.truncf %[[E]] : f32 to bf16
// CHECK-NEXT: linalg.yield %[[T]] : bf16
// f64 -> bf16: round to odd in f32, then to nearest even in bf16.
// CHECK: ^bb0(%[[V:.+]]: f64, %{{.+}}: bf16):
// CHECK-NEXT: %[[N:.+]] = arith.truncf %[[V]] : f64 to f32
// CHECK-NEXT: %[[BACK:.+]] = arith.extf %[[N]] : f32 to f64
// CHECK-NEXT: %[[BITS:.+]] = arith.bitcast %[[N]] : f32 to i32
// CHECK: %[[EXACT:.+]] = arith.cmpf oeq, %[[BACK]], %[[V]] : f64
// CHECK: %[[UP:.+]] = arith.cmpf ogt
// CHECK: %[[STEP:.+]] = arith.select %[[UP]]
// CHECK-NEXT: %[[NB:.+]] = arith.addi %[[BITS]], %[[STEP]] : i32
// CHECK-NEXT: %[[OTHER:.+]] = arith.bitcast %[[NB]] : i32 to f32
// CHECK-NEXT: %[[KEEP:.+]] = arith.ori %{{.+}}, %[[EXACT]] : i1
// CHECK-NEXT: %[[ODD:.+]] = arith.select %[[KEEP]], %[[N]], %[[OTHER]] : f32
// CHECK-NEXT: %[[T:.+]] = arith.truncf %[[ODD]] : f32 to bf16
// CHECK-NEXT: linalg.yield %[[T]] : bf16
// A cast to the same type is the input.
// CHECK: return %{{.+}}, %{{.+}}, %{{.+}}, %{{.+}}, %[[X]]
func.func @cast(%x: tensor<4xf32>, %b: tensor<4xbf16>, %h: tensor<4xf16>, %d: tensor<4xf64>)
    -> (tensor<4xbf16>, tensor<4xf32>, tensor<4xbf16>, tensor<4xbf16>, tensor<4xf32>) {
  %0 = train.cast %x : tensor<4xf32> -> tensor<4xbf16>
  %1 = train.cast %b : tensor<4xbf16> -> tensor<4xf32>
  %2 = train.cast %h : tensor<4xf16> -> tensor<4xbf16>
  %3 = train.cast %d : tensor<4xf64> -> tensor<4xbf16>
  %4 = train.cast %x : tensor<4xf32> -> tensor<4xf32>
  return %0, %1, %2, %3, %4 : tensor<4xbf16>, tensor<4xf32>, tensor<4xbf16>, tensor<4xbf16>, tensor<4xf32>
}

// -----

// reduce_sum: linalg.reduce; bf16 accumulates in f32 and rounds once.
// CHECK-LABEL: func.func @reduce_sum
// CHECK-SAME: (%[[X:.+]]: tensor<2x3x4xf32>, %[[H:.+]]: tensor<2x3x4xbf16>)
// CHECK: %[[Z:.+]] = arith.constant 0.000000e+00 : f32
// CHECK: %[[INIT:.+]] = linalg.fill ins(%[[Z]] : f32) outs(%{{.+}} : tensor<3xf32>)
// CHECK: linalg.reduce ins(%[[X]] : tensor<2x3x4xf32>) outs(%[[INIT]] : tensor<3xf32>) dimensions = [0, 2]
// CHECK: arith.addf
// CHECK: %[[ZH:.+]] = arith.constant 0.000000e+00 : f32
// CHECK: %[[INITH:.+]] = linalg.fill ins(%[[ZH]] : f32) outs(%{{.+}} : tensor<f32>)
// CHECK: %[[SUM:.+]] = linalg.reduce ins(%[[H]] : tensor<2x3x4xbf16>) outs(%[[INITH]] : tensor<f32>) dimensions = [0, 1, 2]
// CHECK: (%[[IN:.+]]: bf16, %[[ACC:.+]]: f32) {
// CHECK-NEXT: %[[E:.+]] = arith.extf %[[IN]] : bf16 to f32
// CHECK-NEXT: %[[A:.+]] = arith.addf %[[E]], %[[ACC]] : f32
// CHECK: linalg.generic {{.*}} ins(%[[SUM]] : tensor<f32>) outs(%{{.+}} : tensor<bf16>)
// CHECK: arith.truncf %{{.+}} : f32 to bf16
func.func @reduce_sum(%x: tensor<2x3x4xf32>, %h: tensor<2x3x4xbf16>) -> (tensor<3xf32>, tensor<bf16>) {
  %0 = train.reduce_sum %x {dims = array<i64: 0, 2>} : tensor<2x3x4xf32> -> tensor<3xf32>
  %1 = train.reduce_sum %h {dims = array<i64: 0, 1, 2>} : tensor<2x3x4xbf16> -> tensor<bf16>
  return %0, %1 : tensor<3xf32>, tensor<bf16>
}

// -----

// CHECK-LABEL: func.func @broadcast
// CHECK-SAME: (%[[X:.+]]: tensor<4xf32>)
// CHECK: %[[E:.+]] = tensor.empty() : tensor<2x3x4xf32>
// CHECK: %[[B:.+]] = linalg.broadcast ins(%[[X]] : tensor<4xf32>) outs(%[[E]] : tensor<2x3x4xf32>) dimensions = [0, 1]
// CHECK: %[[E2:.+]] = tensor.empty() : tensor<4x5xf32>
// CHECK: linalg.broadcast ins(%[[X]] : tensor<4xf32>) outs(%[[E2]] : tensor<4x5xf32>) dimensions = [1]
func.func @broadcast(%x: tensor<4xf32>) -> (tensor<2x3x4xf32>, tensor<4x5xf32>) {
  %0 = train.broadcast %x {dims = array<i64: 0, 1>} : tensor<4xf32> -> tensor<2x3x4xf32>
  %1 = train.broadcast %x {dims = array<i64: 1>} : tensor<4xf32> -> tensor<4x5xf32>
  return %0, %1 : tensor<2x3x4xf32>, tensor<4x5xf32>
}

// -----

// dropout: the seed global is declared by the pass and read once; the
// per-element hash uses the row-major index from linalg.index.
// CHECK: memref.global @__train_seed : memref<i64> = uninitialized
// CHECK-LABEL: func.func @dropout
// CHECK-SAME: (%[[X:.+]]: tensor<2x3xbf16>, %[[DY:.+]]: tensor<2x3xbf16>, %[[Y:.+]]: tensor<5xf32>)
// CHECK: %[[G:.+]] = memref.get_global @__train_seed : memref<i64>
// CHECK: %[[SEED:.+]] = memref.load %[[G]][] : memref<i64>
// CHECK: %[[GOLDEN:.+]] = arith.constant -7046029254386353131 : i64
// CHECK: %[[SM:.+]] = arith.muli %[[SEED]], %[[GOLDEN]] : i64
// id 3 << 32
// CHECK: %[[ID:.+]] = arith.constant 12884901888 : i64
// CHECK: %[[BASE:.+]] = arith.addi %[[SM]], %[[ID]] : i64
// CHECK: %[[R:.+]]:2 = linalg.generic
// CHECK-SAME: iterator_types = ["parallel", "parallel"]
// CHECK-SAME: ins(%[[X]] : tensor<2x3xbf16>) outs(%{{.+}}, %{{.+}} : tensor<2x3xbf16>, tensor<2x3xi8>)
// CHECK: ^bb0(%[[IN:.+]]: bf16, %{{.+}}: bf16, %{{.+}}: i8):
// CHECK-NEXT: %[[I1:.+]] = linalg.index 1 : index
// CHECK-NEXT: %[[J1:.+]] = arith.index_cast %[[I1]] : index to i64
// CHECK-NEXT: %[[I0:.+]] = linalg.index 0 : index
// CHECK-NEXT: %[[J0:.+]] = arith.index_cast %[[I0]] : index to i64
// CHECK-NEXT: %[[C3:.+]] = arith.constant 3 : i64
// CHECK-NEXT: %[[R0:.+]] = arith.muli %[[J0]], %[[C3]] : i64
// CHECK-NEXT: %[[LIN:.+]] = arith.addi %[[J1]], %[[R0]] : i64
// CHECK-NEXT: %[[H0:.+]] = arith.addi %[[BASE]], %[[LIN]] : i64
// CHECK-NEXT: %[[C30:.+]] = arith.constant 30 : i64
// CHECK-NEXT: %[[S30:.+]] = arith.shrui %[[H0]], %[[C30]] : i64
// CHECK-NEXT: %[[H1:.+]] = arith.xori %[[H0]], %[[S30]] : i64
// CHECK-NEXT: %[[M1:.+]] = arith.constant -4658895280553007687 : i64
// CHECK-NEXT: %[[H2:.+]] = arith.muli %[[H1]], %[[M1]] : i64
// CHECK-NEXT: %[[C27:.+]] = arith.constant 27 : i64
// CHECK-NEXT: %[[S27:.+]] = arith.shrui %[[H2]], %[[C27]] : i64
// CHECK-NEXT: %[[H3:.+]] = arith.xori %[[H2]], %[[S27]] : i64
// CHECK-NEXT: %[[M2:.+]] = arith.constant -7723592293110705685 : i64
// CHECK-NEXT: %[[H4:.+]] = arith.muli %[[H3]], %[[M2]] : i64
// CHECK-NEXT: %[[C31:.+]] = arith.constant 31 : i64
// CHECK-NEXT: %[[S31:.+]] = arith.shrui %[[H4]], %[[C31]] : i64
// CHECK-NEXT: %[[H5:.+]] = arith.xori %[[H4]], %[[S31]] : i64
// CHECK-NEXT: %[[C40:.+]] = arith.constant 40 : i64
// CHECK-NEXT: %[[TOP:.+]] = arith.shrui %[[H5]], %[[C40]] : i64
// CHECK-NEXT: %[[TF:.+]] = arith.uitofp %[[TOP]] : i64 to f64
// CHECK-NEXT: %[[EPS:.+]] = arith.constant 5.9604644775390625E-8 : f64
// CHECK-NEXT: %[[U:.+]] = arith.mulf %[[TF]], %[[EPS]] : f64
// CHECK-NEXT: %[[RATE:.+]] = arith.constant 1.000000e-01 : f64
// CHECK-NEXT: %[[KEEP:.+]] = arith.cmpf oge, %[[U]], %[[RATE]] : f64
// 1 / 0.9 rounded to bf16 once.
// CHECK-NEXT: %[[SCALE:.+]] = arith.constant 1.109380e+00 : bf16
// CHECK-NEXT: %[[XS:.+]] = arith.mulf %[[IN]], %[[SCALE]] : bf16
// CHECK-NEXT: %[[Z:.+]] = arith.constant 0.000000e+00 : bf16
// CHECK-NEXT: %[[OUT:.+]] = arith.select %[[KEEP]], %[[XS]], %[[Z]] : bf16
// CHECK-NEXT: %[[MASK:.+]] = arith.extui %[[KEEP]] : i1 to i8
// CHECK-NEXT: linalg.yield %[[OUT]], %[[MASK]] : bf16, i8
//
// dropout_grad: (grad * mask) * scale.
// CHECK: ins(%[[DY]], %[[R]]#1 : tensor<2x3xbf16>, tensor<2x3xi8>)
// CHECK: ^bb0(%[[G:.+]]: bf16, %[[MK:.+]]: i8, %{{.+}}: bf16):
// CHECK-NEXT: %[[MF:.+]] = arith.uitofp %[[MK]] : i8 to bf16
// CHECK-NEXT: %[[GM:.+]] = arith.mulf %[[G]], %[[MF]] : bf16
// CHECK-NEXT: %[[SC:.+]] = arith.constant 1.109380e+00 : bf16
// CHECK-NEXT: %[[DX:.+]] = arith.mulf %[[GM]], %[[SC]] : bf16
// CHECK-NEXT: linalg.yield %[[DX]] : bf16
//
// An i1 mask is the keep bit itself; id 0 adds nothing; rank 1 has no
// stride multiply.
// CHECK: %[[BASE1:.+]] = arith.addi %{{.+}}, %{{.+}} : i64
// CHECK: ^bb0(%{{.+}}: f32, %{{.+}}: f32, %{{.+}}: i1):
// CHECK-NEXT: %[[K0:.+]] = linalg.index 0 : index
// CHECK-NEXT: %[[L0:.+]] = arith.index_cast %[[K0]] : index to i64
// CHECK-NEXT: arith.addi %[[BASE1]], %[[L0]] : i64
// CHECK: %[[KEEP1:.+]] = arith.cmpf oge
// CHECK-NOT: arith.extui
// CHECK: linalg.yield %{{.+}}, %[[KEEP1]] : f32, i1
func.func @dropout(%x: tensor<2x3xbf16>, %dy: tensor<2x3xbf16>, %y: tensor<5xf32>)
    -> (tensor<2x3xbf16>, tensor<2x3xbf16>, tensor<5xf32>, tensor<5xi1>) {
  %0, %1 = train.dropout %x {id = 3 : i64, rate = 1.000000e-01 : f64}
      : tensor<2x3xbf16> -> tensor<2x3xbf16>, tensor<2x3xi8>
  %2 = train.dropout_grad %dy, %1 {rate = 1.000000e-01 : f64}
      : tensor<2x3xbf16>, tensor<2x3xi8> -> tensor<2x3xbf16>
  %3, %4 = train.dropout %y {id = 0 : i64, rate = 5.000000e-01 : f64}
      : tensor<5xf32> -> tensor<5xf32>, tensor<5xi1>
  return %0, %2, %3, %4 : tensor<2x3xbf16>, tensor<2x3xbf16>, tensor<5xf32>, tensor<5xi1>
}

// -----

// sigmoid (1 / (1 + exp(-x))), its gradient from the saved output
// (dy * (1 - y) * y), hardsigmoid and hardswish (relu6(x + 3) / 6, times x
// before the division) and hardswish_grad (x < -3: 0, x <= 3:
// dy * (x / 3 + 0.5), else dy), in the order of PyTorch's CPU kernels.
// CHECK-LABEL: func.func @gates
// CHECK: ^bb0(%[[X:.+]]: f32, %{{.+}}: f32):
// CHECK-NEXT: %[[N:.+]] = arith.negf %[[X]] : f32
// CHECK-NEXT: %[[E:.+]] = math.exp %[[N]] : f32
// CHECK-NEXT: %[[ONE:.+]] = arith.constant 1.000000e+00 : f32
// CHECK-NEXT: %[[D:.+]] = arith.addf %[[ONE]], %[[E]] : f32
// CHECK-NEXT: %[[ONE2:.+]] = arith.constant 1.000000e+00 : f32
// CHECK-NEXT: %[[S:.+]] = arith.divf %[[ONE2]], %[[D]] : f32
// CHECK-NEXT: linalg.yield %[[S]] : f32
// CHECK: ^bb0(%[[DY:.+]]: f32, %[[Y:.+]]: f32, %{{.+}}: f32):
// CHECK-NEXT: %[[ONE:.+]] = arith.constant 1.000000e+00 : f32
// CHECK-NEXT: %[[OMY:.+]] = arith.subf %[[ONE]], %[[Y]] : f32
// CHECK-NEXT: %[[P:.+]] = arith.mulf %[[DY]], %[[OMY]] : f32
// CHECK-NEXT: %[[R:.+]] = arith.mulf %[[P]], %[[Y]] : f32
// CHECK-NEXT: linalg.yield %[[R]] : f32
// CHECK: ^bb0(%[[X:.+]]: f32, %{{.+}}: f32):
// CHECK-NEXT: %[[THREE:.+]] = arith.constant 3.000000e+00 : f32
// CHECK-NEXT: %[[A:.+]] = arith.addf %[[X]], %[[THREE]] : f32
// CHECK-NEXT: %[[ZERO:.+]] = arith.constant 0.000000e+00 : f32
// CHECK-NEXT: %[[MAX:.+]] = arith.maximumf %[[A]], %[[ZERO]] : f32
// CHECK-NEXT: %[[SIX:.+]] = arith.constant 6.000000e+00 : f32
// CHECK-NEXT: %[[MIN:.+]] = arith.minimumf %[[MAX]], %[[SIX]] : f32
// CHECK-NEXT: %[[SIX2:.+]] = arith.constant 6.000000e+00 : f32
// CHECK-NEXT: %[[R:.+]] = arith.divf %[[MIN]], %[[SIX2]] : f32
// CHECK-NEXT: linalg.yield %[[R]] : f32
// CHECK: ^bb0(%[[X:.+]]: f32, %{{.+}}: f32):
// CHECK: %[[MIN:.+]] = arith.minimumf
// CHECK-NEXT: %[[XM:.+]] = arith.mulf %[[X]], %[[MIN]] : f32
// CHECK-NEXT: %[[SIX:.+]] = arith.constant 6.000000e+00 : f32
// CHECK-NEXT: %[[R:.+]] = arith.divf %[[XM]], %[[SIX]] : f32
// CHECK-NEXT: linalg.yield %[[R]] : f32
// CHECK: ^bb0(%[[DY:.+]]: f32, %[[X:.+]]: f32, %{{.+}}: f32):
// CHECK-NEXT: %[[THREE:.+]] = arith.constant 3.000000e+00 : f32
// CHECK-NEXT: %[[Q:.+]] = arith.divf %[[X]], %[[THREE]] : f32
// CHECK-NEXT: %[[HALF:.+]] = arith.constant 5.000000e-01 : f32
// CHECK-NEXT: %[[F:.+]] = arith.addf %[[Q]], %[[HALF]] : f32
// CHECK-NEXT: %[[MID:.+]] = arith.mulf %[[DY]], %[[F]] : f32
// CHECK-NEXT: %[[THREE2:.+]] = arith.constant 3.000000e+00 : f32
// CHECK-NEXT: %[[LE:.+]] = arith.cmpf ole, %[[X]], %[[THREE2]] : f32
// CHECK-NEXT: %[[UP:.+]] = arith.select %[[LE]], %[[MID]], %[[DY]] : f32
// CHECK-NEXT: %[[MTHREE:.+]] = arith.constant -3.000000e+00 : f32
// CHECK-NEXT: %[[LT:.+]] = arith.cmpf olt, %[[X]], %[[MTHREE]] : f32
// CHECK-NEXT: %[[ZERO:.+]] = arith.constant 0.000000e+00 : f32
// CHECK-NEXT: %[[R:.+]] = arith.select %[[LT]], %[[ZERO]], %[[UP]] : f32
// CHECK-NEXT: linalg.yield %[[R]] : f32
func.func @gates(%x: tensor<4xf32>, %dy: tensor<4xf32>) -> (tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>) {
  %0 = train.sigmoid %x : tensor<4xf32>
  %1 = train.sigmoid_grad %dy, %0 : tensor<4xf32>
  %2 = train.hardsigmoid %x : tensor<4xf32>
  %3 = train.hardswish %x : tensor<4xf32>
  %4 = train.hardswish_grad %dy, %x : tensor<4xf32>
  return %0, %1, %2, %3, %4 : tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>
}
