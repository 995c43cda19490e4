// RUN: mem-opt --mlir-print-debuginfo=false %s --convert-train-to-linalg | FileCheck %s

// Normalizations reduce the last dimension; attention computes in the
// grouped layout [B, Hkv, G, S, D] (the G query heads of a key/value head as
// a dimension of their own), one tile of query rows per iteration of an
// scf.for: its matmuls are linalg.generic contractions that read q, k and v
// in place (expand_shape and extract_slice only, never a collapse, which
// would copy a strided view).

// CHECK-DAG: #[[$ID2:.+]] = affine_map<(d0, d1) -> (d0, d1)>
// CHECK-DAG: #[[$ROW2:.+]] = affine_map<(d0, d1) -> (d0)>
// CHECK-DAG: #[[$COL2:.+]] = affine_map<(d0, d1) -> (d1)>
// CHECK-DAG: #[[$ID3:.+]] = affine_map<(d0, d1, d2) -> (d0, d1, d2)>
// CHECK-DAG: #[[$ROW3:.+]] = affine_map<(d0, d1, d2) -> (d0, d1)>
// CHECK-DAG: #[[$COL3:.+]] = affine_map<(d0, d1, d2) -> (d2)>
// CHECK-DAG: #[[$TABLE:.+]] = affine_map<(d0, d1, d2) -> (d1, d2)>
// Contractions over the loops (b, h, g, i, j, d): scores and dP (q k^T),
// out and dq (P v), dv and dk (the group sum over g and i).
// CHECK-DAG: #[[$Q6:.+]] = affine_map<(d0, d1, d2, d3, d4, d5) -> (d0, d1, d2, d3, d5)>
// CHECK-DAG: #[[$K6:.+]] = affine_map<(d0, d1, d2, d3, d4, d5) -> (d0, d1, d4, d5)>
// CHECK-DAG: #[[$S6:.+]] = affine_map<(d0, d1, d2, d3, d4, d5) -> (d0, d1, d2, d3, d4)>
// CHECK-DAG: #[[$V6:.+]] = affine_map<(d0, d1, d2, d3, d4, d5) -> (d0, d1, d5, d4)>
// CHECK-DAG: #[[$PT6:.+]] = affine_map<(d0, d1, d2, d3, d4, d5) -> (d0, d1, d4, d5, d2)>
// CHECK-DAG: #[[$XT6:.+]] = affine_map<(d0, d1, d2, d3, d4, d5) -> (d0, d1, d4, d5, d3)>
// CHECK-DAG: #[[$KV6:.+]] = affine_map<(d0, d1, d2, d3, d4, d5) -> (d0, d1, d2, d3)>
// CHECK-DAG: #[[$ID5:.+]] = affine_map<(d0, d1, d2, d3, d4) -> (d0, d1, d2, d3, d4)>
// CHECK-DAG: #[[$ROW5:.+]] = affine_map<(d0, d1, d2, d3, d4) -> (d0, d1, d2, d3)>
// CHECK-DAG: #[[$ID4:.+]] = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>

// bf16 input: statistics in f32 (two passes), one rounding of y to bf16.
// CHECK-LABEL: func.func @layer_norm(
// CHECK-SAME: %[[X:[a-z0-9]+]]: tensor<2x3x8xbf16>, %[[G:[a-z0-9]+]]: tensor<8xbf16>, %[[B:[a-z0-9]+]]: tensor<8xbf16>)
// CHECK: %[[SUM:.+]] = linalg.reduce ins(%[[X]] : tensor<2x3x8xbf16>) outs(%{{.+}} : tensor<2x3xf32>) dimensions = [2]
// CHECK: arith.extf %{{.+}} : bf16 to f32
// CHECK: %[[MEAN:.+]] = linalg.generic {{.+}} outs(%[[SUM]] : tensor<2x3xf32>)
// CHECK: arith.constant 8.000000e+00 : f32
// CHECK: arith.divf
// CHECK: %[[SQ:.+]] = linalg.generic {indexing_maps = [#[[$ID3]], #[[$ROW3]], #[[$ROW3]]], iterator_types = ["parallel", "parallel", "reduction"]} ins(%[[X]], %[[MEAN]] : tensor<2x3x8xbf16>, tensor<2x3xf32>) outs(%{{.+}} : tensor<2x3xf32>)
// CHECK: %[[C:.+]] = arith.subf
// CHECK: %[[C2:.+]] = arith.mulf %[[C]], %[[C]] : f32
// CHECK: arith.addf %{{.+}}, %[[C2]] : f32
// CHECK: %[[RSTD:.+]] = linalg.generic {{.+}} outs(%[[SQ]] : tensor<2x3xf32>)
// CHECK: arith.constant 9.99999974E-6 : f32
// CHECK: %[[SQRT:.+]] = math.sqrt
// CHECK: arith.divf %{{.+}}, %[[SQRT]] : f32
// CHECK: %[[Y:.+]] = linalg.generic {indexing_maps = [#[[$ID3]], #[[$ROW3]], #[[$ROW3]], #[[$COL3]], #[[$COL3]], #[[$ID3]]], iterator_types = ["parallel", "parallel", "parallel"]} ins(%[[X]], %[[MEAN]], %[[RSTD]], %[[G]], %[[B]] : {{.+}}) outs(%{{.+}} : tensor<2x3x8xbf16>)
// CHECK: arith.truncf %{{.+}} : f32 to bf16
// CHECK: return %[[Y]], %[[MEAN]], %[[RSTD]]
func.func @layer_norm(%x: tensor<2x3x8xbf16>, %g: tensor<8xbf16>, %b: tensor<8xbf16>)
    -> (tensor<2x3x8xbf16>, tensor<2x3xf32>, tensor<2x3xf32>) {
  %y, %m, %r = train.layer_norm %x, %g, %b {epsilon = 1.0e-5 : f64}
      : tensor<2x3x8xbf16>, tensor<8xbf16>, tensor<8xbf16>
      -> tensor<2x3x8xbf16>, tensor<2x3xf32>, tensor<2x3xf32>
  return %y, %m, %r : tensor<2x3x8xbf16>, tensor<2x3xf32>, tensor<2x3xf32>
}

// Row sums of g and g * xhat, then dx; column sums of dy * xhat and dy.
// CHECK-LABEL: func.func @layer_norm_grad(
// CHECK-SAME: %[[DY:[a-z0-9]+]]: tensor<4x8xf32>, %[[X:[a-z0-9]+]]: tensor<4x8xf32>, %[[G:[a-z0-9]+]]: tensor<8xf32>, %[[M:[a-z0-9]+]]: tensor<4xf32>, %[[R:[a-z0-9]+]]: tensor<4xf32>)
// CHECK: %[[ROWS:.+]]:2 = linalg.generic {indexing_maps = [#[[$ID2]], #[[$ID2]], #[[$ROW2]], #[[$ROW2]], #[[$COL2]], #[[$ROW2]], #[[$ROW2]]], iterator_types = ["parallel", "reduction"]} ins(%[[DY]], %[[X]], %[[M]], %[[R]], %[[G]] : {{.+}}) outs({{.+}} : tensor<4xf32>, tensor<4xf32>)
// CHECK: %[[DX:.+]] = linalg.generic {indexing_maps = [#[[$ID2]], #[[$ID2]], #[[$ROW2]], #[[$ROW2]], #[[$COL2]], #[[$ROW2]], #[[$ROW2]], #[[$ID2]]], iterator_types = ["parallel", "parallel"]} ins(%[[DY]], %[[X]], %[[M]], %[[R]], %[[G]], %[[ROWS]]#0, %[[ROWS]]#1 : {{.+}}) outs(%{{.+}} : tensor<4x8xf32>)
// CHECK: %[[COLS:.+]]:2 = linalg.generic {indexing_maps = [#[[$ID2]], #[[$ID2]], #[[$ROW2]], #[[$ROW2]], #[[$COL2]], #[[$COL2]]], iterator_types = ["reduction", "parallel"]} ins(%[[DY]], %[[X]], %[[M]], %[[R]] : {{.+}}) outs({{.+}} : tensor<8xf32>, tensor<8xf32>)
// CHECK: return %[[DX]], %[[COLS]]#0, %[[COLS]]#1
func.func @layer_norm_grad(%dy: tensor<4x8xf32>, %x: tensor<4x8xf32>, %g: tensor<8xf32>,
                           %m: tensor<4xf32>, %r: tensor<4xf32>)
    -> (tensor<4x8xf32>, tensor<8xf32>, tensor<8xf32>) {
  %dx, %dg, %db = train.layer_norm_grad %dy, %x, %g, %m, %r
      : tensor<4x8xf32>, tensor<4x8xf32>, tensor<8xf32>, tensor<4xf32>, tensor<4xf32>
      -> tensor<4x8xf32>, tensor<8xf32>, tensor<8xf32>
  return %dx, %dg, %db : tensor<4x8xf32>, tensor<8xf32>, tensor<8xf32>
}

// f64 input: statistics in f64, rstd returned as f32.
// CHECK-LABEL: func.func @rms_norm(
// CHECK-SAME: %[[X:[a-z0-9]+]]: tensor<4x8xf64>, %[[G:[a-z0-9]+]]: tensor<8xf64>)
// CHECK: %[[SQ:.+]] = linalg.generic {indexing_maps = [#[[$ID2]], #[[$ROW2]]], iterator_types = ["parallel", "reduction"]} ins(%[[X]] : tensor<4x8xf64>) outs(%{{.+}} : tensor<4xf64>)
// CHECK: %[[XX:.+]] = arith.mulf %[[IN:.+]], %[[IN]] : f64
// CHECK: arith.addf %{{.+}}, %[[XX]] : f64
// CHECK: %[[RSTD:.+]] = linalg.generic {{.+}} outs(%[[SQ]] : tensor<4xf64>)
// CHECK: math.sqrt %{{.+}} : f64
// CHECK: %[[Y:.+]] = linalg.generic {indexing_maps = [#[[$ID2]], #[[$ROW2]], #[[$COL2]], #[[$ID2]]], iterator_types = ["parallel", "parallel"]} ins(%[[X]], %[[RSTD]], %[[G]] : {{.+}}) outs(%{{.+}} : tensor<4x8xf64>)
// CHECK: %[[R32:.+]] = linalg.generic {{.+}} ins(%[[RSTD]] : tensor<4xf64>) outs(%{{.+}} : tensor<4xf32>)
// CHECK: arith.truncf %{{.+}} : f64 to f32
// CHECK: return %[[Y]], %[[R32]]
func.func @rms_norm(%x: tensor<4x8xf64>, %g: tensor<8xf64>) -> (tensor<4x8xf64>, tensor<4xf32>) {
  %y, %r = train.rms_norm %x, %g {epsilon = 1.0e-6 : f64}
      : tensor<4x8xf64>, tensor<8xf64> -> tensor<4x8xf64>, tensor<4xf32>
  return %y, %r : tensor<4x8xf64>, tensor<4xf32>
}

// bf16 activations with an f32 gamma: sums in f32, dx rounded to bf16.
// CHECK-LABEL: func.func @rms_norm_grad(
// CHECK-SAME: %[[DY:[a-z0-9]+]]: tensor<4x8xbf16>, %[[X:[a-z0-9]+]]: tensor<4x8xbf16>, %[[G:[a-z0-9]+]]: tensor<8xf32>, %[[R:[a-z0-9]+]]: tensor<4xf32>)
// CHECK: %[[ROWS:.+]] = linalg.generic {indexing_maps = [#[[$ID2]], #[[$ID2]], #[[$ROW2]], #[[$COL2]], #[[$ROW2]]], iterator_types = ["parallel", "reduction"]} ins(%[[DY]], %[[X]], %[[R]], %[[G]] : {{.+}}) outs(%{{.+}} : tensor<4xf32>)
// CHECK: %[[DX:.+]] = linalg.generic {indexing_maps = [#[[$ID2]], #[[$ID2]], #[[$ROW2]], #[[$COL2]], #[[$ROW2]], #[[$ID2]]], iterator_types = ["parallel", "parallel"]} ins(%[[DY]], %[[X]], %[[R]], %[[G]], %[[ROWS]] : {{.+}}) outs(%{{.+}} : tensor<4x8xbf16>)
// CHECK: arith.truncf %{{.+}} : f32 to bf16
// CHECK: %[[DG:.+]] = linalg.generic {indexing_maps = [#[[$ID2]], #[[$ID2]], #[[$ROW2]], #[[$COL2]]], iterator_types = ["reduction", "parallel"]} ins(%[[DY]], %[[X]], %[[R]] : {{.+}}) outs(%{{.+}} : tensor<8xf32>)
// CHECK: return %[[DX]], %[[DG]]
func.func @rms_norm_grad(%dy: tensor<4x8xbf16>, %x: tensor<4x8xbf16>, %g: tensor<8xf32>,
                         %r: tensor<4xf32>) -> (tensor<4x8xbf16>, tensor<8xf32>) {
  %dx, %dg = train.rms_norm_grad %dy, %x, %g, %r
      : tensor<4x8xbf16>, tensor<4x8xbf16>, tensor<8xf32>, tensor<4xf32>
      -> tensor<4x8xbf16>, tensor<8xf32>
  return %dx, %dg : tensor<4x8xbf16>, tensor<8xf32>
}

// cos/sin tables [S, D/2] in f32 from the iteration indices, then the two
// halves of the last dimension rotated together.
// CHECK-LABEL: func.func @rotary(
// CHECK-SAME: %[[X:[a-z0-9]+]]: tensor<2x16x64xf32>)
// CHECK: %[[T:.+]]:2 = linalg.generic {indexing_maps = [#[[$ID2]], #[[$ID2]]], iterator_types = ["parallel", "parallel"]} outs(%{{.+}}, %{{.+}} : tensor<16x32xf32>, tensor<16x32xf32>)
// CHECK: %[[S:.+]] = linalg.index 0 : index
// CHECK: %[[I:.+]] = linalg.index 1 : index
// CHECK: %[[EXP:.+]] = arith.divf %{{.+}}, %{{.+}} : f32
// CHECK: %[[POW:.+]] = math.powf %{{.+}}, %[[EXP]] : f32
// CHECK: %[[INV:.+]] = arith.divf %{{.+}}, %[[POW]] : f32
// CHECK: %[[ANGLE:.+]] = arith.mulf %{{.+}}, %[[INV]] : f32
// CHECK: %[[COS:.+]] = math.cos %[[ANGLE]] : f32
// CHECK: %[[SIN:.+]] = math.sin %[[ANGLE]] : f32
// CHECK: linalg.yield %[[COS]], %[[SIN]]
// CHECK: %[[X1:.+]] = tensor.extract_slice %[[X]][0, 0, 0] [2, 16, 32] [1, 1, 1]
// CHECK: %[[X2:.+]] = tensor.extract_slice %[[X]][0, 0, 32] [2, 16, 32] [1, 1, 1]
// CHECK: %[[ROT:.+]]:2 = linalg.generic {indexing_maps = [#[[$ID3]], #[[$ID3]], #[[$TABLE]], #[[$TABLE]], #[[$ID3]], #[[$ID3]]], iterator_types = ["parallel", "parallel", "parallel"]} ins(%[[X1]], %[[X2]], %[[T]]#0, %[[T]]#1 :
// CHECK: ^bb0(%[[A:.+]]: f32, %[[B:.+]]: f32, %[[C:.+]]: f32, %[[SN:.+]]: f32, %{{.+}}: f32, %{{.+}}: f32):
// CHECK: %[[AC:.+]] = arith.mulf %[[A]], %[[C]]
// CHECK: %[[BS:.+]] = arith.mulf %[[B]], %[[SN]]
// CHECK: %[[BC:.+]] = arith.mulf %[[B]], %[[C]]
// CHECK: %[[AS:.+]] = arith.mulf %[[A]], %[[SN]]
// CHECK: %[[O1:.+]] = arith.subf %[[AC]], %[[BS]]
// CHECK: %[[O2:.+]] = arith.addf %[[BC]], %[[AS]]
// CHECK: linalg.yield %[[O1]], %[[O2]]
// CHECK: %[[R1:.+]] = tensor.insert_slice %[[ROT]]#0 into %{{.+}}[0, 0, 0] [2, 16, 32] [1, 1, 1]
// CHECK: %[[R2:.+]] = tensor.insert_slice %[[ROT]]#1 into %[[R1]][0, 0, 32] [2, 16, 32] [1, 1, 1]
// CHECK: return %[[R2]]
func.func @rotary(%x: tensor<2x16x64xf32>) -> tensor<2x16x64xf32> {
  %r = train.rotary %x {theta = 1.0e4 : f64} : tensor<2x16x64xf32>
  return %r : tensor<2x16x64xf32>
}

// The inverse rotation (sin negated), computed in f32 for bf16.
// CHECK-LABEL: func.func @rotary_grad(
// CHECK: arith.constant 5.000000e+05 : f32
// CHECK: linalg.generic {indexing_maps = [#[[$ID3]], #[[$ID3]], #[[$TABLE]], #[[$TABLE]], #[[$ID3]], #[[$ID3]]]
// CHECK: ^bb0(%[[A:.+]]: bf16, %[[B:.+]]: bf16, %[[C:.+]]: f32, %[[SN:.+]]: f32, %{{.+}}: bf16, %{{.+}}: bf16):
// CHECK: %[[AF:.+]] = arith.extf %[[A]] : bf16 to f32
// CHECK: %[[BF:.+]] = arith.extf %[[B]] : bf16 to f32
// CHECK: %[[AC:.+]] = arith.mulf %[[AF]], %[[C]]
// CHECK: %[[BS:.+]] = arith.mulf %[[BF]], %[[SN]]
// CHECK: %[[BC:.+]] = arith.mulf %[[BF]], %[[C]]
// CHECK: %[[AS:.+]] = arith.mulf %[[AF]], %[[SN]]
// CHECK: %[[O1:.+]] = arith.addf %[[AC]], %[[BS]]
// CHECK: %[[O2:.+]] = arith.subf %[[BC]], %[[AS]]
// CHECK: %[[T1:.+]] = arith.truncf %[[O1]] : f32 to bf16
// CHECK: %[[T2:.+]] = arith.truncf %[[O2]] : f32 to bf16
// CHECK: linalg.yield %[[T1]], %[[T2]]
func.func @rotary_grad(%x: tensor<2x16x64xbf16>) -> tensor<2x16x64xbf16> {
  %r = train.rotary_grad %x {theta = 5.0e5 : f64} : tensor<2x16x64xbf16>
  return %r : tensor<2x16x64xbf16>
}

// GQA (8 query heads on 2 key/value heads), causal with Sq = 16 < Sk = 32,
// in tiles of 4 query rows (block_rows = 4): an scf.for over the tiles carries
// the results, each tile's rows written in place (extract_slice, then
// insert_slice). Under the causal mask a tile's rows see only keys
// [0, min(tile start + 4 + 16, 32)): its scores buffer keeps all 32 keys, but
// the contractions and row statistics run over a view of the first ones
// (dynamic size), and keys and values are read through the same view. Per
// tile: scores = q k^T in f32, masked where key j > query row
// (tile start + i) + 16 (the tile's last keys are masked for its first rows).
// CHECK-LABEL: func.func @attention(
// CHECK-SAME: %[[Q:[a-z0-9]+]]: tensor<2x8x16x64xbf16>, %[[K:[a-z0-9]+]]: tensor<2x2x32x64xbf16>, %[[V:[a-z0-9]+]]: tensor<2x2x32x64xbf16>)
// CHECK-NOT: tensor.collapse_shape
// CHECK: %[[OUT0:.+]] = tensor.empty() : tensor<2x2x4x16x64xbf16>
// CHECK: %[[LSE0:.+]] = tensor.empty() : tensor<2x2x4x16xf32>
// CHECK: %[[QE:.+]] = tensor.expand_shape %[[Q]] {{\[\[}}0], [1, 2], [3], [4]] output_shape [2, 2, 4, 16, 64]
// CHECK-DAG: %[[C0:.+]] = arith.constant 0 : index
// CHECK-DAG: %[[C16:.+]] = arith.constant 16 : index
// CHECK-DAG: %[[C4:.+]] = arith.constant 4 : index
// CHECK: %[[LOOP:.+]]:2 = scf.for %[[ROW:.+]] = %[[C0]] to %[[C16]] step %[[C4]] iter_args(%[[OUTA:.+]] = %[[OUT0]], %[[LSEA:.+]] = %[[LSE0]])
// CHECK-NOT: tensor.collapse_shape
// CHECK: %[[SFULL:.+]] = tensor.empty() : tensor<2x2x4x4x32xf32>
// CHECK: %[[C20:.+]] = arith.constant 20 : index
// CHECK: %[[END:.+]] = arith.addi %[[ROW]], %[[C20]] : index
// CHECK: %[[LOW:.+]] = arith.maxsi %[[END]], %{{.+}} : index
// CHECK: %[[KEND:.+]] = arith.minsi %[[LOW]], %{{.+}} : index
// CHECK: %[[QT:.+]] = tensor.extract_slice %[[QE]][0, 0, 0, %[[ROW]], 0] [2, 2, 4, 4, 64] [1, 1, 1, 1, 1] : tensor<2x2x4x16x64xbf16> to tensor<2x2x4x4x64xbf16>
// CHECK: %[[SV:.+]] = tensor.extract_slice %[[SFULL]][0, 0, 0, 0, 0] [2, 2, 4, 4, %[[KEND]]] [1, 1, 1, 1, 1] : tensor<2x2x4x4x32xf32> to tensor<2x2x4x4x?xf32>
// CHECK: %[[SZ:.+]] = linalg.fill ins(%{{.+}} : f32) outs(%[[SV]] : tensor<2x2x4x4x?xf32>)
// CHECK: %[[KS:.+]] = tensor.extract_slice %[[K]][0, 0, 0, 0] [2, 2, %[[KEND]], 64] [1, 1, 1, 1] : tensor<2x2x32x64xbf16> to tensor<2x2x?x64xbf16>
// CHECK: %[[S:.+]] = linalg.generic {indexing_maps = [#[[$Q6]], #[[$K6]], #[[$S6]]], iterator_types = ["parallel", "parallel", "parallel", "parallel", "parallel", "reduction"]} ins(%[[QT]], %[[KS]] : tensor<2x2x4x4x64xbf16>, tensor<2x2x?x64xbf16>) outs(%[[SZ]] : tensor<2x2x4x4x?xf32>)
// CHECK: arith.extf
// CHECK: arith.extf
// CHECK: arith.mulf
// CHECK: arith.addf
// CHECK: %[[NEGINF:.+]] = arith.constant 0xFF800000 : f32
// CHECK: %[[MAX:.+]] = linalg.generic {indexing_maps = [#[[$ID5]], #[[$ROW5]]], iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction"]} ins(%[[S]] : tensor<2x2x4x4x?xf32>)
// CHECK: arith.constant 1.250000e-01 : f32
// CHECK: %[[I:.+]] = linalg.index 3 : index
// CHECK: %[[ROWI:.+]] = arith.addi %[[ROW]], %[[I]] : index
// CHECK: %[[J:.+]] = linalg.index 4 : index
// CHECK: %[[OFF:.+]] = arith.constant 16 : index
// CHECK: %[[LIM:.+]] = arith.addi %[[ROWI]], %[[OFF]] : index
// CHECK: %[[MASKED:.+]] = arith.cmpi sgt, %[[J]], %[[LIM]] : index
// A masked score counts as -inf, so the row max reads its output once.
// CHECK: %[[SC:.+]] = arith.select %[[MASKED]], %{{.+}}, %{{.+}} : f32
// CHECK: arith.maximumf %{{.+}}, %[[SC]] : f32
// The row sums, then lse, are computed in the tile's rows of the lse result.
// CHECK: %[[LSET:.+]] = tensor.extract_slice %[[LSEA]][0, 0, 0, %[[ROW]]] [2, 2, 4, 4] [1, 1, 1, 1] : tensor<2x2x4x16xf32> to tensor<2x2x4x4xf32>
// CHECK: %[[SUM0:.+]] = linalg.fill ins(%{{.+}} : f32) outs(%[[LSET]] :
// CHECK: %[[SUM:.+]] = linalg.generic {indexing_maps = [#[[$ID5]], #[[$ROW5]], #[[$ROW5]]], iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction"]} ins(%[[S]], %[[MAX]] : {{.+}}) outs(%[[SUM0]] :
// CHECK: math.exp
// CHECK: %[[LSE:.+]] = linalg.generic {{.+}} ins(%[[MAX]] : {{.+}}) outs(%[[SUM]] :
// CHECK: math.log
// CHECK: %[[P:.+]] = linalg.generic {indexing_maps = [#[[$ROW5]], #[[$ID5]]], iterator_types = ["parallel", "parallel", "parallel", "parallel", "parallel"]} ins(%[[LSE]] : {{.+}}) outs(%[[S]] :
// CHECK: arith.cmpi sgt
// The bf16 output tile is summed in f32, then rounded into the result's rows.
// CHECK: %[[OUTT:.+]] = tensor.extract_slice %[[OUTA]][0, 0, 0, %[[ROW]], 0] [2, 2, 4, 4, 64] [1, 1, 1, 1, 1]
// CHECK: %[[VS:.+]] = tensor.extract_slice %[[V]][0, 0, 0, 0] [2, 2, %[[KEND]], 64]
// CHECK: %[[O:.+]] = linalg.generic {indexing_maps = [#[[$Q6]], #[[$V6]], #[[$S6]]], iterator_types = ["parallel", "parallel", "parallel", "parallel", "parallel", "reduction"]} ins(%[[P]], %[[VS]] : tensor<2x2x4x4x?xf32>, tensor<2x2x?x64xbf16>) outs(%{{.+}} : tensor<2x2x4x4x64xf32>)
// CHECK: %[[O16:.+]] = linalg.generic {{.+}} ins(%[[O]] : tensor<2x2x4x4x64xf32>) outs(%[[OUTT]] : tensor<2x2x4x4x64xbf16>)
// CHECK: %[[OUTN:.+]] = tensor.insert_slice %[[O16]] into %[[OUTA]][0, 0, 0, %[[ROW]], 0] [2, 2, 4, 4, 64] [1, 1, 1, 1, 1]
// CHECK: %[[LSEN:.+]] = tensor.insert_slice %[[LSE]] into %[[LSEA]][0, 0, 0, %[[ROW]]] [2, 2, 4, 4] [1, 1, 1, 1]
// CHECK: scf.yield %[[OUTN]], %[[LSEN]]
// CHECK: %[[OUT:.+]] = tensor.collapse_shape %[[LOOP]]#0 {{\[\[}}0], [1, 2], [3], [4]] : tensor<2x2x4x16x64xbf16> into tensor<2x8x16x64xbf16>
// CHECK: %[[LSEOUT:.+]] = tensor.collapse_shape %[[LOOP]]#1 {{\[\[}}0], [1, 2], [3]] : tensor<2x2x4x16xf32> into tensor<2x8x16xf32>
// CHECK: return %[[OUT]], %[[LSEOUT]]
func.func @attention(%q: tensor<2x8x16x64xbf16>, %k: tensor<2x2x32x64xbf16>, %v: tensor<2x2x32x64xbf16>)
    -> (tensor<2x8x16x64xbf16>, tensor<2x8x16xf32>) {
  %o, %l = train.attention %q, %k, %v {block_rows = 4 : i64, causal, scale = 0.125 : f64}
      : tensor<2x8x16x64xbf16>, tensor<2x2x32x64xbf16>, tensor<2x2x32x64xbf16>
      -> tensor<2x8x16x64xbf16>, tensor<2x8x16xf32>
  return %o, %l : tensor<2x8x16x64xbf16>, tensor<2x8x16xf32>
}

// Not causal: no mask. Two tiles of 8 query rows (block_rows = 8): dv and dk
// are zero-filled before the loop and carried, each tile adding its rows'
// share; dq's rows are written in place. dv = P^T do and dk = dS^T q
// contract over the tile's rows of all query heads of a group (the GQA
// group sum).
// CHECK-LABEL: func.func @attention_grad(
// CHECK-SAME: %[[DO:[a-z0-9]+]]: tensor<1x4x16x32xf32>, %[[Q:[a-z0-9]+]]: tensor<1x4x16x32xf32>, %[[K:[a-z0-9]+]]: tensor<1x2x16x32xf32>, %[[V:[a-z0-9]+]]: tensor<1x2x16x32xf32>, %[[O:[a-z0-9]+]]: tensor<1x4x16x32xf32>, %[[L:[a-z0-9]+]]: tensor<1x4x16xf32>)
// CHECK-NOT: tensor.collapse_shape
// CHECK: %[[DQ0:.+]] = tensor.empty() : tensor<1x2x2x16x32xf32>
// CHECK: %[[DOE:.+]] = tensor.expand_shape %[[DO]] {{\[\[}}0], [1, 2], [3], [4]] output_shape [1, 2, 2, 16, 32]
// CHECK: %[[QE:.+]] = tensor.expand_shape %[[Q]]
// CHECK: %[[OE:.+]] = tensor.expand_shape %[[O]]
// CHECK: %[[LE:.+]] = tensor.expand_shape %[[L]] {{\[\[}}0], [1, 2], [3]] output_shape [1, 2, 2, 16]
// CHECK: %[[DV0:.+]] = linalg.fill ins(%{{.+}} : f32) outs(%{{.+}} : tensor<1x2x16x32xf32>)
// CHECK: %[[DK0:.+]] = linalg.fill ins(%{{.+}} : f32) outs(%{{.+}} : tensor<1x2x16x32xf32>)
// CHECK: %[[LOOP:.+]]:3 = scf.for %[[ROW:.+]] = %{{.+}} to %{{.+}} step %{{.+}} iter_args(%[[DQA:.+]] = %[[DQ0]], %[[DVA:.+]] = %[[DV0]], %[[DKA:.+]] = %[[DK0]])
// CHECK-NOT: tensor.collapse_shape
// CHECK: %[[QT:.+]] = tensor.extract_slice %[[QE]][0, 0, 0, %[[ROW]], 0] [1, 2, 2, 8, 32]
// CHECK: %[[DOT:.+]] = tensor.extract_slice %[[DOE]][0, 0, 0, %[[ROW]], 0] [1, 2, 2, 8, 32]
// CHECK: %[[LT:.+]] = tensor.extract_slice %[[LE]][0, 0, 0, %[[ROW]]] [1, 2, 2, 8]
// CHECK: %[[S:.+]] = linalg.generic {indexing_maps = [#[[$Q6]], #[[$K6]], #[[$S6]]], {{.+}} ins(%[[QT]], %[[K]] :
// CHECK: %[[P:.+]] = linalg.generic {indexing_maps = [#[[$ROW5]], #[[$ID5]]], {{.+}} ins(%[[LT]] : {{.+}}) outs(%[[S]] :
// CHECK-NOT: linalg.index
// CHECK: math.exp
// CHECK: %[[DV:.+]] = linalg.generic {indexing_maps = [#[[$PT6]], #[[$XT6]], #[[$KV6]]], iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction", "reduction"]} ins(%[[P]], %[[DOT]] : tensor<1x2x2x8x16xf32>, tensor<1x2x2x8x32xf32>) outs(%[[DVA]] : tensor<1x2x16x32xf32>)
// CHECK: %[[DP:.+]] = linalg.generic {indexing_maps = [#[[$Q6]], #[[$K6]], #[[$S6]]], {{.+}} ins(%[[DOT]], %[[V]] : tensor<1x2x2x8x32xf32>, tensor<1x2x16x32xf32>) outs(%{{.+}} : tensor<1x2x2x8x16xf32>)
// CHECK: %[[OT:.+]] = tensor.extract_slice %[[OE]][0, 0, 0, %[[ROW]], 0] [1, 2, 2, 8, 32]
// CHECK: %[[D:.+]] = linalg.generic {indexing_maps = [#[[$ID5]], #[[$ID5]], #[[$ROW5]]], iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction"]} ins(%[[DOT]], %[[OT]] :
// CHECK: %[[DS:.+]] = linalg.generic {indexing_maps = [#[[$ID5]], #[[$ROW5]], #[[$ID5]]], iterator_types = ["parallel", "parallel", "parallel", "parallel", "parallel"]} ins(%[[P]], %[[D]] : {{.+}}) outs(%[[DP]] :
// CHECK: arith.subf
// CHECK: arith.mulf
// CHECK: arith.constant 2.500000e-01 : f32
// CHECK: %[[DQT:.+]] = tensor.extract_slice %[[DQA]][0, 0, 0, %[[ROW]], 0] [1, 2, 2, 8, 32]
// CHECK: %[[DQT0:.+]] = linalg.fill ins(%{{.+}} : f32) outs(%[[DQT]] :
// CHECK: %[[DQ:.+]] = linalg.generic {indexing_maps = [#[[$Q6]], #[[$V6]], #[[$S6]]], {{.+}} ins(%[[DS]], %[[K]] : tensor<1x2x2x8x16xf32>, tensor<1x2x16x32xf32>) outs(%[[DQT0]] : tensor<1x2x2x8x32xf32>)
// CHECK: %[[DK:.+]] = linalg.generic {indexing_maps = [#[[$PT6]], #[[$XT6]], #[[$KV6]]], {{.+}} ins(%[[DS]], %[[QT]] : tensor<1x2x2x8x16xf32>, tensor<1x2x2x8x32xf32>) outs(%[[DKA]] : tensor<1x2x16x32xf32>)
// CHECK: %[[DQN:.+]] = tensor.insert_slice %[[DQ]] into %[[DQA]][0, 0, 0, %[[ROW]], 0] [1, 2, 2, 8, 32]
// CHECK: scf.yield %[[DQN]], %[[DV]], %[[DK]]
// CHECK: %[[DQOUT:.+]] = tensor.collapse_shape %[[LOOP]]#0 {{\[\[}}0], [1, 2], [3], [4]] : tensor<1x2x2x16x32xf32> into tensor<1x4x16x32xf32>
// CHECK: return %[[DQOUT]], %[[LOOP]]#2, %[[LOOP]]#1
func.func @attention_grad(%do: tensor<1x4x16x32xf32>, %q: tensor<1x4x16x32xf32>,
                          %k: tensor<1x2x16x32xf32>, %v: tensor<1x2x16x32xf32>,
                          %o: tensor<1x4x16x32xf32>, %l: tensor<1x4x16xf32>)
    -> (tensor<1x4x16x32xf32>, tensor<1x2x16x32xf32>, tensor<1x2x16x32xf32>) {
  %dq, %dk, %dv = train.attention_grad %do, %q, %k, %v, %o, %l {block_rows = 8 : i64, scale = 0.25 : f64}
      : tensor<1x4x16x32xf32>, tensor<1x4x16x32xf32>, tensor<1x2x16x32xf32>,
        tensor<1x2x16x32xf32>, tensor<1x4x16x32xf32>, tensor<1x4x16xf32>
      -> tensor<1x4x16x32xf32>, tensor<1x2x16x32xf32>, tensor<1x2x16x32xf32>
  return %dq, %dk, %dv : tensor<1x4x16x32xf32>, tensor<1x2x16x32xf32>, tensor<1x2x16x32xf32>
}

// Causal attention_grad, Sq = Sk = 16 in tiles of 8 rows: tile t sees keys
// [0, 8t + 8). The scores and dP are views of the tile's first keys; dv and
// dk add onto the same window of the carried accumulators (extract_slice,
// then insert_slice with the same sizes, so bufferization updates them in
// place); the keys and values are read through that window too.
// CHECK-LABEL: func.func @attention_grad_causal(
// CHECK-SAME: %[[K:[a-z0-9]+]]: tensor<1x2x16x32xf32>, %[[V:[a-z0-9]+]]: tensor<1x2x16x32xf32>, %{{[a-z0-9]+}}: tensor<1x4x16x32xf32>, %{{[a-z0-9]+}}: tensor<1x4x16xf32>)
// CHECK: scf.for %[[ROW:.+]] = %{{.+}} to %{{.+}} step %{{.+}} iter_args(%[[DQA:.+]] = %{{.+}}, %[[DVA:.+]] = %{{.+}}, %[[DKA:.+]] = %{{.+}})
// CHECK: %[[END:.+]] = arith.addi %[[ROW]], %{{.+}} : index
// CHECK: %[[LOW:.+]] = arith.maxsi %[[END]], %{{.+}} : index
// CHECK: %[[KEND:.+]] = arith.minsi %[[LOW]], %{{.+}} : index
// CHECK: tensor.extract_slice %[[K]][0, 0, 0, 0] [1, 2, %[[KEND]], 32]
// CHECK: %[[DVS:.+]] = tensor.extract_slice %[[DVA]][0, 0, 0, 0] [1, 2, %[[KEND]], 32] [1, 1, 1, 1] : tensor<1x2x16x32xf32> to tensor<1x2x?x32xf32>
// CHECK: %[[DV:.+]] = linalg.generic {{.+}} outs(%[[DVS]] : tensor<1x2x?x32xf32>)
// CHECK: %[[DVN:.+]] = tensor.insert_slice %[[DV]] into %[[DVA]][0, 0, 0, 0] [1, 2, %[[KEND]], 32] [1, 1, 1, 1]
// CHECK: tensor.extract_slice %[[V]][0, 0, 0, 0] [1, 2, %[[KEND]], 32]
// CHECK: %[[DKS:.+]] = tensor.extract_slice %[[DKA]][0, 0, 0, 0] [1, 2, %[[KEND]], 32]
// CHECK: %[[DK:.+]] = linalg.generic {{.+}} outs(%[[DKS]] : tensor<1x2x?x32xf32>)
// CHECK: %[[DKN:.+]] = tensor.insert_slice %[[DK]] into %[[DKA]][0, 0, 0, 0] [1, 2, %[[KEND]], 32] [1, 1, 1, 1]
// CHECK: scf.yield %{{.+}}, %[[DVN]], %[[DKN]]
func.func @attention_grad_causal(%do: tensor<1x4x16x32xf32>, %q: tensor<1x4x16x32xf32>,
                                 %k: tensor<1x2x16x32xf32>, %v: tensor<1x2x16x32xf32>,
                                 %o: tensor<1x4x16x32xf32>, %l: tensor<1x4x16xf32>)
    -> (tensor<1x4x16x32xf32>, tensor<1x2x16x32xf32>, tensor<1x2x16x32xf32>) {
  %dq, %dk, %dv = train.attention_grad %do, %q, %k, %v, %o, %l {block_rows = 8 : i64, causal, scale = 0.25 : f64}
      : tensor<1x4x16x32xf32>, tensor<1x4x16x32xf32>, tensor<1x2x16x32xf32>,
        tensor<1x2x16x32xf32>, tensor<1x4x16x32xf32>, tensor<1x4x16xf32>
      -> tensor<1x4x16x32xf32>, tensor<1x2x16x32xf32>, tensor<1x2x16x32xf32>
  return %dq, %dk, %dv : tensor<1x4x16x32xf32>, tensor<1x2x16x32xf32>, tensor<1x2x16x32xf32>
}
