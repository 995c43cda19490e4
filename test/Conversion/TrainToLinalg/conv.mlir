// RUN: mem-opt --mlir-print-debuginfo=false %s -split-input-file --convert-train-to-linalg | FileCheck %s

// Zero padding (a filled buffer the input is inserted into), then the named
// convolution with the forward stride. Every buffer of the op (the padded
// input, the result) is allocated before the op computes anything.
// CHECK-LABEL: func.func @conv2d(
//  CHECK-SAME:     %[[X:.+]]: tensor<2x3x8x8xf32>, %[[W:.+]]: tensor<4x3x3x3xf32>)
//       CHECK:   %[[E0:.+]] = tensor.empty() : tensor<2x3x10x10xf32>
//  CHECK-NEXT:   %[[E1:.+]] = tensor.empty() : tensor<2x4x4x4xf32>
//       CHECK:   %[[Z:.+]] = linalg.fill ins(%{{.+}} : f32) outs(%[[E0]]
//  CHECK-NEXT:   %[[PAD:.+]] = tensor.insert_slice %[[X]] into %[[Z]][0, 0, 1, 1] [2, 3, 8, 8] [1, 1, 1, 1]
//       CHECK:   %[[INIT:.+]] = linalg.fill {{.+}} -> tensor<2x4x4x4xf32>
//       CHECK:   %[[Y:.+]] = linalg.conv_2d_nchw_fchw
//  CHECK-SAME:     dilations = dense<1> : tensor<2xi64>, strides = dense<2> : tensor<2xi64>
//  CHECK-SAME:     ins(%[[PAD]], %[[W]] : tensor<2x3x10x10xf32>, tensor<4x3x3x3xf32>)
//  CHECK-SAME:     outs(%[[INIT]] : tensor<2x4x4x4xf32>)
//       CHECK:   return %[[Y]]
func.func @conv2d(%x: tensor<2x3x8x8xf32>, %w: tensor<4x3x3x3xf32>) -> tensor<2x4x4x4xf32> {
  %y = train.conv2d %x, %w {strides = array<i64: 2, 2>, padding = array<i64: 1, 1>}
      : tensor<2x3x8x8xf32>, tensor<4x3x3x3xf32> -> tensor<2x4x4x4xf32>
  return %y : tensor<2x4x4x4xf32>
}

// -----

// Groups split the channels (views), the grouped named convolution
// accumulates bf16 products in f32, one truncf at the end.
// CHECK-LABEL: func.func @conv2d_grouped_bf16(
//  CHECK-SAME:     %[[X:.+]]: tensor<1x4x8x6xbf16>, %[[W:.+]]: tensor<6x2x3x3xbf16>)
//       CHECK:   %[[PAD:.+]] = tensor.insert_slice %[[X]] into %{{.+}}[0, 0, 0, 1] [1, 4, 8, 6] [1, 1, 1, 1]
//       CHECK:   %[[GX:.+]] = tensor.expand_shape %[[PAD]] {{\[}}[0], [1, 2], [3], [4]] {{.+}} into tensor<1x2x2x8x8xbf16>
//       CHECK:   %[[GW:.+]] = tensor.expand_shape %[[W]] {{\[}}[0, 1], [2], [3], [4]] {{.+}} into tensor<2x3x2x3x3xbf16>
//       CHECK:   %[[INIT:.+]] = linalg.fill {{.+}} -> tensor<1x2x3x2x6xf32>
//       CHECK:   %[[GY:.+]] = linalg.conv_2d_ngchw_gfchw
//  CHECK-SAME:     dilations = dense<[2, 1]> : tensor<2xi64>, strides = dense<[2, 1]> : tensor<2xi64>
//  CHECK-SAME:     ins(%[[GX]], %[[GW]] : {{.+}}) outs(%[[INIT]] : tensor<1x2x3x2x6xf32>)
//       CHECK:   %[[Y:.+]] = tensor.collapse_shape %[[GY]] {{\[}}[0], [1, 2], [3], [4]] {{.+}} into tensor<1x6x2x6xf32>
//       CHECK:   %[[R:.+]] = linalg.generic {{.+}} ins(%[[Y]] : tensor<1x6x2x6xf32>)
//       CHECK:     arith.truncf %{{.+}} : f32 to bf16
//       CHECK:   return %[[R]] : tensor<1x6x2x6xbf16>
func.func @conv2d_grouped_bf16(%x: tensor<1x4x8x6xbf16>, %w: tensor<6x2x3x3xbf16>) -> tensor<1x6x2x6xbf16> {
  %y = train.conv2d %x, %w {strides = array<i64: 2, 1>, dilation = array<i64: 2, 1>, padding = array<i64: 0, 1>, groups = 2 : i64}
      : tensor<1x4x8x6xbf16>, tensor<6x2x3x3xbf16> -> tensor<1x6x2x6xbf16>
  return %y : tensor<1x6x2x6xbf16>
}

// -----

// A gather: one generic over (n, g, cg, h, w | og, kh, kw) with the filter
// (split into groups, a view) as its operand; dy is read in place
// (tensor.extract) at oh = (h + pad - kh * dil) / s, clamped into range, and
// the term counts only where s * oh is exactly that position. No scattered
// copy of dy, no flipped filter.
//   CHECK-DAG: #[[$WG:.+]] = affine_map<(d0, d1, d2, d3, d4, d5, d6, d7) -> (d1, d5, d2, d6, d7)>
//   CHECK-DAG: #[[$DXG:.+]] = affine_map<(d0, d1, d2, d3, d4, d5, d6, d7) -> (d0, d1, d2, d3, d4)>
// CHECK-LABEL: func.func @conv2d_grad_input(
//  CHECK-SAME:     %[[DY:.+]]: tensor<2x4x4x4xf32>, %[[W:.+]]: tensor<4x3x3x3xf32>)
//   CHECK-NOT:   tensor.insert_slice
//       CHECK:   %[[GW:.+]] = tensor.expand_shape %[[W]] {{\[\[}}0, 1], [2], [3], [4]] output_shape [1, 4, 3, 3, 3]
//       CHECK:   %[[Z:.+]] = linalg.fill {{.+}} -> tensor<2x1x3x8x8xf32>
//       CHECK:   %[[G:.+]] = linalg.generic {indexing_maps = [#[[$WG]], #[[$DXG]]], iterator_types = ["parallel", "parallel", "parallel", "parallel", "parallel", "reduction", "reduction", "reduction"]}
//  CHECK-SAME:     ins(%[[GW]] : tensor<1x4x3x3x3xf32>) outs(%[[Z]] : tensor<2x1x3x8x8xf32>)
//       CHECK:     %[[OG:.+]] = linalg.index 5 : index
//       CHECK:     %[[H:.+]] = linalg.index 3 : index
//       CHECK:     %[[HP:.+]] = arith.addi %[[H]], %{{.+}} : index
//       CHECK:     %[[KH:.+]] = linalg.index 6 : index
//       CHECK:     %[[KHD:.+]] = arith.muli %[[KH]], %{{.+}} : index
//       CHECK:     %[[POS:.+]] = arith.subi %[[HP]], %[[KHD]] : index
//       CHECK:     %[[LO:.+]] = arith.maxsi %[[POS]], %{{.+}} : index
//       CHECK:     %[[CL:.+]] = arith.minsi %[[LO]], %{{.+}} : index
//       CHECK:     %[[OH:.+]] = arith.divui %[[CL]], %{{.+}} : index
//       CHECK:     %[[EX:.+]] = arith.muli %[[OH]], %{{.+}} : index
//       CHECK:     arith.cmpi eq, %[[EX]], %[[POS]] : index
//       CHECK:     %[[V:.+]] = tensor.extract %[[DY]][%{{.+}}, %{{.+}}, %[[OH]], %{{.+}}] : tensor<2x4x4x4xf32>
//       CHECK:     %[[M:.+]] = arith.mulf %[[V]], %{{.+}} : f32
//       CHECK:     %[[T:.+]] = arith.select %{{.+}}, %[[M]], %{{.+}} : f32
//       CHECK:     arith.addf %{{.+}}, %[[T]] : f32
//       CHECK:   %[[DX:.+]] = tensor.collapse_shape %[[G]] {{\[\[}}0], [1, 2], [3], [4]] : tensor<2x1x3x8x8xf32> into tensor<2x3x8x8xf32>
//       CHECK:   return %[[DX]] : tensor<2x3x8x8xf32>
func.func @conv2d_grad_input(%dy: tensor<2x4x4x4xf32>, %w: tensor<4x3x3x3xf32>) -> tensor<2x3x8x8xf32> {
  %dx = train.conv2d_grad_input %dy, %w {strides = array<i64: 2, 2>, padding = array<i64: 1, 1>}
      : tensor<2x4x4x4xf32>, tensor<4x3x3x3xf32> -> tensor<2x3x8x8xf32>
  return %dx : tensor<2x3x8x8xf32>
}

// -----

// Per group: dx[n, g, cg] sums over the group's Og = 3 output channels,
// read from dy at channel g * Og + og; the dilation scales kh.
// CHECK-LABEL: func.func @conv2d_grad_input_grouped(
//  CHECK-SAME:     %[[DY:.+]]: tensor<1x6x2x6xf32>, %[[W:.+]]: tensor<6x2x3x3xf32>)
//       CHECK:   %[[GW:.+]] = tensor.expand_shape %[[W]] {{\[\[}}0, 1], [2], [3], [4]] output_shape [2, 3, 2, 3, 3]
//       CHECK:   %[[G:.+]] = linalg.generic {{.+}} ins(%[[GW]] : tensor<2x3x2x3x3xf32>) outs(%{{.+}} : tensor<1x2x2x8x6xf32>)
//       CHECK:     %[[OG:.+]] = linalg.index 5 : index
//       CHECK:     %[[GRP:.+]] = linalg.index 1 : index
//       CHECK:     %[[BASE:.+]] = arith.muli %[[GRP]], %{{.+}} : index
//       CHECK:     %[[CH:.+]] = arith.addi %[[BASE]], %[[OG]] : index
//       CHECK:     tensor.extract %[[DY]][%{{.+}}, %[[CH]], %{{.+}}, %{{.+}}] : tensor<1x6x2x6xf32>
//       CHECK:   %[[DX:.+]] = tensor.collapse_shape %[[G]] {{.+}} into tensor<1x4x8x6xf32>
//       CHECK:   return %[[DX]] : tensor<1x4x8x6xf32>
func.func @conv2d_grad_input_grouped(%dy: tensor<1x6x2x6xf32>, %w: tensor<6x2x3x3xf32>) -> tensor<1x4x8x6xf32> {
  %dx = train.conv2d_grad_input %dy, %w {strides = array<i64: 2, 1>, dilation = array<i64: 2, 1>, padding = array<i64: 0, 1>, groups = 2 : i64}
      : tensor<1x6x2x6xf32>, tensor<6x2x3x3xf32> -> tensor<1x4x8x6xf32>
  return %dx : tensor<1x4x8x6xf32>
}

// -----

// Unpadded: one generic over (o, c, kh, kw | n, oh, ow) whose input map
// carries the stride and the dilation.
//   CHECK-DAG: #[[$DY:.+]] = affine_map<(d0, d1, d2, d3, d4, d5, d6) -> (d4, d0, d5, d6)>
//   CHECK-DAG: #[[$X:.+]] = affine_map<(d0, d1, d2, d3, d4, d5, d6) -> (d4, d1, d5 * 2 + d2 * 2, d6 * 2 + d3)>
//   CHECK-DAG: #[[$DW:.+]] = affine_map<(d0, d1, d2, d3, d4, d5, d6) -> (d0, d1, d2, d3)>
// CHECK-LABEL: func.func @conv2d_grad_filter_unpadded(
//  CHECK-SAME:     %[[DY:.+]]: tensor<2x4x2x3xf32>, %[[X:.+]]: tensor<2x3x8x8xf32>)
//       CHECK:   %[[DW:.+]] = linalg.generic {indexing_maps = [#[[$DY]], #[[$X]], #[[$DW]]],
//  CHECK-SAME:     iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction", "reduction", "reduction"]}
//  CHECK-SAME:     ins(%[[DY]], %[[X]] : tensor<2x4x2x3xf32>, tensor<2x3x8x8xf32>)
//       CHECK:     %[[M:.+]] = arith.mulf
//       CHECK:     %[[A:.+]] = arith.addf %{{.+}}, %[[M]] : f32
//       CHECK:     linalg.yield %[[A]]
//       CHECK:   return %[[DW]] : tensor<4x3x3x3xf32>
func.func @conv2d_grad_filter_unpadded(%dy: tensor<2x4x2x3xf32>, %x: tensor<2x3x8x8xf32>) -> tensor<4x3x3x3xf32> {
  %dw = train.conv2d_grad_filter %dy, %x {strides = array<i64: 2, 2>, dilation = array<i64: 2, 1>}
      : tensor<2x4x2x3xf32>, tensor<2x3x8x8xf32> -> tensor<4x3x3x3xf32>
  return %dw : tensor<4x3x3x3xf32>
}

// -----

// Padded: no padded copy of the input. The generic reads `grad` through its
// map and the input in place with tensor.extract at ih = oh * s + kh - pad
// (iw likewise), an index kept in bounds by a select where the position
// falls in the padding (unsigned: before the input wraps around), whose
// value is then replaced by zero.
//   CHECK-DAG: #[[$DY:.+]] = affine_map<(d0, d1, d2, d3, d4, d5, d6) -> (d4, d0, d5, d6)>
//   CHECK-DAG: #[[$DW:.+]] = affine_map<(d0, d1, d2, d3, d4, d5, d6) -> (d0, d1, d2, d3)>
// CHECK-LABEL: func.func @conv2d_grad_filter(
//  CHECK-SAME:     %[[DY:.+]]: tensor<2x4x4x4xf32>, %[[X:.+]]: tensor<2x3x8x8xf32>)
//   CHECK-NOT:   tensor.insert_slice
//   CHECK-NOT:   tensor<2x3x10x10xf32>
//       CHECK:   %[[DW:.+]] = linalg.generic {indexing_maps = [#[[$DY]], #[[$DW]]],
//  CHECK-SAME:     iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction", "reduction", "reduction"]}
//  CHECK-SAME:     ins(%[[DY]] : tensor<2x4x4x4xf32>)
//       CHECK:     %[[C:.+]] = linalg.index 1 : index
//       CHECK:     %[[N:.+]] = linalg.index 4 : index
//       CHECK:     %[[OH:.+]] = linalg.index 5 : index
//       CHECK:     %[[H:.+]] = arith.subi %{{.+}}, %[[P:.+]] : index
//       CHECK:     %[[HOK:.+]] = arith.cmpi ult, %[[H]], %[[EIGHT:.+]] : index
//       CHECK:     %[[HIN:.+]] = arith.select %[[HOK]], %[[H]], %{{.+}} : index
//       CHECK:     %[[W:.+]] = arith.subi %{{.+}}, %{{.+}} : index
//       CHECK:     %[[WOK:.+]] = arith.cmpi ult, %[[W]], %{{.+}} : index
//       CHECK:     %[[OK:.+]] = arith.andi %{{.+}}, %[[WOK]] : i1
//       CHECK:     %[[WIN:.+]] = arith.select %[[WOK]], %[[W]], %{{.+}} : index
//       CHECK:     %[[V:.+]] = tensor.extract %[[X]][%[[N]], %[[C]], %[[HIN]], %[[WIN]]] : tensor<2x3x8x8xf32>
//       CHECK:     %[[XV:.+]] = arith.select %[[OK]], %[[V]], %{{.+}} : f32
//       CHECK:     %[[M:.+]] = arith.mulf %{{.+}}, %[[XV]] : f32
//       CHECK:     %[[A:.+]] = arith.addf %{{.+}}, %[[M]] : f32
//       CHECK:     linalg.yield %[[A]]
//       CHECK:   return %[[DW]] : tensor<4x3x3x3xf32>
func.func @conv2d_grad_filter(%dy: tensor<2x4x4x4xf32>, %x: tensor<2x3x8x8xf32>) -> tensor<4x3x3x3xf32> {
  %dw = train.conv2d_grad_filter %dy, %x {strides = array<i64: 2, 2>, padding = array<i64: 1, 1>}
      : tensor<2x4x4x4xf32>, tensor<2x3x8x8xf32> -> tensor<4x3x3x3xf32>
  return %dw : tensor<4x3x3x3xf32>
}

// -----

// The input channel of output channel o is (o / Og) * Cg + c; only the
// padded W dimension is checked; bf16 products accumulate in f32.
// CHECK-LABEL: func.func @conv2d_grad_filter_grouped(
//  CHECK-SAME:     %[[DY:.+]]: tensor<1x6x2x6xbf16>, %[[X:.+]]: tensor<1x4x8x6xbf16>)
//       CHECK:   %[[DW:.+]] = linalg.generic
//  CHECK-SAME:     ins(%[[DY]] : tensor<1x6x2x6xbf16>) outs(%{{.+}} : tensor<6x2x3x3xf32>)
//       CHECK:     %[[CG:.+]] = linalg.index 1 : index
//       CHECK:     %[[O:.+]] = linalg.index 0 : index
//       CHECK:     %[[G:.+]] = arith.divui %[[O]], %{{.+}} : index
//       CHECK:     %[[BASE:.+]] = arith.muli %[[G]], %{{.+}} : index
//       CHECK:     %[[CH:.+]] = arith.addi %[[BASE]], %[[CG]] : index
//       CHECK:     %[[H:.+]] = arith.addi
//   CHECK-NOT:     arith.cmpi
//       CHECK:     %[[WOK:.+]] = arith.cmpi ult, %{{.+}}, %{{.+}} : index
//   CHECK-NOT:     arith.cmpi
//       CHECK:     tensor.extract %[[X]][%{{.+}}, %[[CH]], %[[H]], %{{.+}}] : tensor<1x4x8x6xbf16>
//       CHECK:     arith.extf %{{.+}} : bf16 to f32
//       CHECK:     arith.extf %{{.+}} : bf16 to f32
//       CHECK:   linalg.generic {{.+}} ins(%[[DW]] : tensor<6x2x3x3xf32>)
//       CHECK:     arith.truncf %{{.+}} : f32 to bf16
func.func @conv2d_grad_filter_grouped(%dy: tensor<1x6x2x6xbf16>, %x: tensor<1x4x8x6xbf16>) -> tensor<6x2x3x3xbf16> {
  %dw = train.conv2d_grad_filter %dy, %x {strides = array<i64: 2, 1>, dilation = array<i64: 2, 1>, padding = array<i64: 0, 1>, groups = 2 : i64}
      : tensor<1x6x2x6xbf16>, tensor<1x4x8x6xbf16> -> tensor<6x2x3x3xbf16>
  return %dw : tensor<6x2x3x3xbf16>
}

// -----

// Padding with -inf never wins the maximum. The window operand only gives
// the window loops their extent: a constant (no allocation).
// CHECK-LABEL: func.func @max_pool2d(
//  CHECK-SAME:     %[[X:.+]]: tensor<2x3x8x8xf32>)
//       CHECK:   %[[NEG:.+]] = arith.constant 0xFF800000 : f32
//       CHECK:   %[[Z:.+]] = linalg.fill ins(%[[NEG]] : f32) {{.+}} -> tensor<2x3x10x10xf32>
//       CHECK:   %[[PAD:.+]] = tensor.insert_slice %[[X]] into %[[Z]][0, 0, 1, 1] [2, 3, 8, 8] [1, 1, 1, 1]
//       CHECK:   %[[WIN:.+]] = arith.constant dense<0.000000e+00> : tensor<3x3xf32>
//       CHECK:   %[[INIT:.+]] = linalg.fill ins(%{{.+}} : f32) {{.+}} -> tensor<2x3x4x4xf32>
//       CHECK:   %[[Y:.+]] = linalg.pooling_nchw_max
//  CHECK-SAME:     dilations = dense<1> : tensor<2xi64>, strides = dense<2> : tensor<2xi64>
//  CHECK-SAME:     ins(%[[PAD]], %[[WIN]] : tensor<2x3x10x10xf32>, tensor<3x3xf32>) outs(%[[INIT]] :
//       CHECK:   return %[[Y]]
func.func @max_pool2d(%x: tensor<2x3x8x8xf32>) -> tensor<2x3x4x4xf32> {
  %y = train.max_pool2d %x {kernel = array<i64: 3, 3>, strides = array<i64: 2, 2>, padding = array<i64: 1, 1>}
      : tensor<2x3x8x8xf32> -> tensor<2x3x4x4xf32>
  return %y : tensor<2x3x4x4xf32>
}

// -----

// A gather over (n, c, h, w | j, i): each input position visits the
// ceil(2/2) x ceil(2/2) windows that cover it, recomputes each window's
// argmax from the input (first maximum on ties, NaN wins) and adds dy where
// the argmax is the position, straight into the zero-filled result. No
// padded copy, no index tensor.
//   CHECK-DAG: #[[$WIN:.+]] = affine_map<(d0, d1, d2, d3, d4, d5) -> (d4, d5)>
//   CHECK-DAG: #[[$OUT:.+]] = affine_map<(d0, d1, d2, d3, d4, d5) -> (d0, d1, d2, d3)>
// CHECK-LABEL: func.func @max_pool2d_grad(
//  CHECK-SAME:     %[[DY:.+]]: tensor<1x2x2x2xf32>, %[[X:.+]]: tensor<1x2x4x4xf32>)
//       CHECK:   %[[Z:.+]] = linalg.fill {{.+}} -> tensor<1x2x4x4xf32>
//       CHECK:   %[[DX:.+]] = linalg.generic {indexing_maps = [#[[$WIN]], #[[$OUT]]],
//  CHECK-SAME:     iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction", "reduction"]}
//  CHECK-SAME:     ins(%{{.+}} : tensor<1x1xf32>) outs(%[[Z]] : tensor<1x2x4x4xf32>)
//       CHECK:     tensor.extract %[[X]]
//       CHECK:     arith.cmpf ogt
//       CHECK:     arith.cmpf oeq
//       CHECK:     tensor.extract %[[X]]
//       CHECK:     tensor.extract %[[X]]
//       CHECK:     tensor.extract %[[X]]
//       CHECK:     arith.cmpi eq
//       CHECK:     tensor.extract %[[DY]]
//       CHECK:     arith.addf
//       CHECK:     arith.select
//       CHECK:     linalg.yield
//   CHECK-NOT:   linalg.
//       CHECK:   return %[[DX]] : tensor<1x2x4x4xf32>
func.func @max_pool2d_grad(%dy: tensor<1x2x2x2xf32>, %x: tensor<1x2x4x4xf32>) -> tensor<1x2x4x4xf32> {
  %dx = train.max_pool2d_grad %dy, %x {kernel = array<i64: 2, 2>, strides = array<i64: 2, 2>}
      : tensor<1x2x2x2xf32>, tensor<1x2x4x4xf32> -> tensor<1x2x4x4xf32>
  return %dx : tensor<1x2x4x4xf32>
}

// -----

// count_include_pad: zero padding, a sum pooling in f32, division by 9.
// CHECK-LABEL: func.func @avg_pool2d(
//  CHECK-SAME:     %[[X:.+]]: tensor<2x3x8x8xbf16>)
//       CHECK:   %[[PAD:.+]] = tensor.insert_slice %[[X]] into %{{.+}}[0, 0, 1, 1] [2, 3, 8, 8] [1, 1, 1, 1]
//       CHECK:   %[[SUM:.+]] = linalg.pooling_nchw_sum
//  CHECK-SAME:     strides = dense<2> : tensor<2xi64>
//  CHECK-SAME:     ins(%[[PAD]], %{{.+}} : tensor<2x3x10x10xbf16>, tensor<3x3xbf16>)
//  CHECK-SAME:     -> tensor<2x3x4x4xf32>
//       CHECK:   linalg.generic {{.+}} ins(%[[SUM]] : tensor<2x3x4x4xf32>) outs(%{{.+}} : tensor<2x3x4x4xbf16>)
//       CHECK:     %[[NINE:.+]] = arith.constant 9.000000e+00 : f32
//       CHECK:     %[[MEAN:.+]] = arith.divf %{{.+}}, %[[NINE]] : f32
//       CHECK:     arith.truncf %[[MEAN]] : f32 to bf16
func.func @avg_pool2d(%x: tensor<2x3x8x8xbf16>) -> tensor<2x3x4x4xbf16> {
  %y = train.avg_pool2d %x {kernel = array<i64: 3, 3>, strides = array<i64: 2, 2>, padding = array<i64: 1, 1>}
      : tensor<2x3x8x8xbf16> -> tensor<2x3x4x4xbf16>
  return %y : tensor<2x3x4x4xbf16>
}

// -----

// The same gather: each input position sums dy / 9 over the ceil(3/2) x
// ceil(3/2) windows that may cover it, padding counted, straight into the
// zero-filled result.
// CHECK-LABEL: func.func @avg_pool2d_grad(
//  CHECK-SAME:     %[[DY:.+]]: tensor<2x3x4x4xf32>)
//       CHECK:   %[[Z:.+]] = linalg.fill {{.+}} -> tensor<2x3x8x8xf32>
//       CHECK:   %[[DX:.+]] = linalg.generic
//  CHECK-SAME:     ins(%{{.+}} : tensor<2x2xf32>) outs(%[[Z]] : tensor<2x3x8x8xf32>)
//       CHECK:     %[[V:.+]] = tensor.extract %[[DY]]
//       CHECK:     %[[NINE:.+]] = arith.constant 9.000000e+00 : f32
//       CHECK:     %[[SHARE:.+]] = arith.divf %[[V]], %[[NINE]] : f32
//       CHECK:     arith.addf %{{.+}}, %[[SHARE]] : f32
//       CHECK:     linalg.yield
//   CHECK-NOT:   linalg.
//       CHECK:   return %[[DX]] : tensor<2x3x8x8xf32>
func.func @avg_pool2d_grad(%dy: tensor<2x3x4x4xf32>) -> tensor<2x3x8x8xf32> {
  %dx = train.avg_pool2d_grad %dy {kernel = array<i64: 3, 3>, strides = array<i64: 2, 2>, padding = array<i64: 1, 1>}
      : tensor<2x3x4x4xf32> -> tensor<2x3x8x8xf32>
  return %dx : tensor<2x3x8x8xf32>
}

// -----

// CHECK-LABEL: func.func @upsample_nearest2d(
//  CHECK-SAME:     %[[X:.+]]: tensor<2x3x4x5xf32>)
//       CHECK:   %[[B:.+]] = linalg.broadcast ins(%[[X]] : tensor<2x3x4x5xf32>) outs(%{{.+}} : tensor<2x3x4x2x5x2xf32>) dimensions = [3, 5]
//       CHECK:   %[[Y:.+]] = tensor.collapse_shape %[[B]] {{\[}}[0], [1], [2, 3], [4, 5]] {{.+}} into tensor<2x3x8x10xf32>
//       CHECK:   return %[[Y]]
func.func @upsample_nearest2d(%x: tensor<2x3x4x5xf32>) -> tensor<2x3x8x10xf32> {
  %y = train.upsample_nearest2d %x {scale = 2 : i64} : tensor<2x3x4x5xf32> -> tensor<2x3x8x10xf32>
  return %y : tensor<2x3x8x10xf32>
}

// -----

// bf16 block sums accumulate in f32.
// CHECK-LABEL: func.func @upsample_nearest2d_grad(
//  CHECK-SAME:     %[[DY:.+]]: tensor<2x3x8x10xbf16>)
//       CHECK:   %[[E:.+]] = tensor.expand_shape %[[DY]] {{\[}}[0], [1], [2, 3], [4, 5]] {{.+}} into tensor<2x3x4x2x5x2xbf16>
//       CHECK:   %[[S:.+]] = linalg.reduce ins(%[[E]] : tensor<2x3x4x2x5x2xbf16>) outs(%{{.+}} : tensor<2x3x4x5xf32>) dimensions = [3, 5]
//       CHECK:     arith.extf %{{.+}} : bf16 to f32
//       CHECK:   linalg.generic {{.+}} ins(%[[S]] : tensor<2x3x4x5xf32>)
//       CHECK:     arith.truncf %{{.+}} : f32 to bf16
func.func @upsample_nearest2d_grad(%dy: tensor<2x3x8x10xbf16>) -> tensor<2x3x4x5xbf16> {
  %dx = train.upsample_nearest2d_grad %dy {scale = 2 : i64} : tensor<2x3x8x10xbf16> -> tensor<2x3x4x5xbf16>
  return %dx : tensor<2x3x4x5xbf16>
}

// -----

// Scale 1 is the identity both ways.
// CHECK-LABEL: func.func @upsample_nearest2d_unit(
//  CHECK-SAME:     %[[X:.+]]: tensor<2x3x4x5xf32>)
//  CHECK-NEXT:   return %[[X]]
func.func @upsample_nearest2d_unit(%x: tensor<2x3x4x5xf32>) -> tensor<2x3x4x5xf32> {
  %y = train.upsample_nearest2d %x {scale = 1 : i64} : tensor<2x3x4x5xf32> -> tensor<2x3x4x5xf32>
  %dx = train.upsample_nearest2d_grad %y {scale = 1 : i64} : tensor<2x3x4x5xf32> -> tensor<2x3x4x5xf32>
  return %dx : tensor<2x3x4x5xf32>
}

// -----

// Per-channel reductions over (n, h, w) in f32: the mean, then the biased
// variance around it (mean and rstd overwrite their sums); y is elementwise
// with per-channel operands.
//   CHECK-DAG: #[[$ID:.+]] = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>
//   CHECK-DAG: #[[$CH:.+]] = affine_map<(d0, d1, d2, d3) -> (d1)>
// CHECK-LABEL: func.func @batch_norm(
//  CHECK-SAME:     %[[X:.+]]: tensor<2x8x4x4xbf16>, %[[G:.+]]: tensor<8xf32>, %[[B:.+]]: tensor<8xf32>)
//       CHECK:   %[[SUM:.+]] = linalg.generic {indexing_maps = [#[[$ID]], #[[$CH]]],
//  CHECK-SAME:     iterator_types = ["reduction", "parallel", "reduction", "reduction"]}
//  CHECK-SAME:     ins(%[[X]] : tensor<2x8x4x4xbf16>) outs(%{{.+}} : tensor<8xf32>)
//       CHECK:   %[[MEAN:.+]] = linalg.generic
//  CHECK-SAME:     outs(%[[SUM]] : tensor<8xf32>)
//       CHECK:     arith.constant 3.200000e+01 : f32
//       CHECK:   %[[SQ:.+]] = linalg.generic {indexing_maps = [#[[$ID]], #[[$CH]], #[[$CH]]],
//  CHECK-SAME:     iterator_types = ["reduction", "parallel", "reduction", "reduction"]}
//  CHECK-SAME:     ins(%[[X]], %[[MEAN]] :
//       CHECK:   %[[RSTD:.+]] = linalg.generic {{.+}} outs(%[[SQ]] : tensor<8xf32>)
//       CHECK:     %[[EPS:.+]] = arith.constant 9.99999974E-6 : f32
//       CHECK:     %[[V:.+]] = arith.addf %{{.+}}, %[[EPS]] : f32
//       CHECK:     %[[SD:.+]] = math.sqrt %[[V]] : f32
//       CHECK:     arith.divf %{{.+}}, %[[SD]] : f32
//       CHECK:   %[[Y:.+]] = linalg.generic {indexing_maps = [#[[$ID]], #[[$CH]], #[[$CH]], #[[$CH]], #[[$CH]], #[[$ID]]],
//  CHECK-SAME:     ins(%[[X]], %[[MEAN]], %[[RSTD]], %[[G]], %[[B]] :
//  CHECK-SAME:     outs(%{{.+}} : tensor<2x8x4x4xbf16>)
//       CHECK:     arith.truncf %{{.+}} : f32 to bf16
//       CHECK:   return %[[Y]], %[[MEAN]], %[[RSTD]]
func.func @batch_norm(%x: tensor<2x8x4x4xbf16>, %g: tensor<8xf32>, %b: tensor<8xf32>)
    -> (tensor<2x8x4x4xbf16>, tensor<8xf32>, tensor<8xf32>) {
  %y, %mean, %rstd = train.batch_norm %x, %g, %b {epsilon = 1.000000e-05 : f64}
      : tensor<2x8x4x4xbf16>, tensor<8xf32>, tensor<8xf32>
      -> tensor<2x8x4x4xbf16>, tensor<8xf32>, tensor<8xf32>
  return %y, %mean, %rstd : tensor<2x8x4x4xbf16>, tensor<8xf32>, tensor<8xf32>
}

// -----

// One reduction gives sum(dy) and sum(dy * (x - mean)); per channel,
// dgamma, dbeta and the two projection terms (which overwrite the sums);
// then dx elementwise.
//   CHECK-DAG: #[[$ID:.+]] = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>
//   CHECK-DAG: #[[$CH:.+]] = affine_map<(d0, d1, d2, d3) -> (d1)>
// CHECK-LABEL: func.func @batch_norm_grad(
//  CHECK-SAME:     %[[DY:[^:]+]]: tensor<2x8x4x4xf32>, %[[X:[^:]+]]: tensor<2x8x4x4xf32>, %[[G:[^:]+]]: tensor<8xf32>,
//  CHECK-SAME:     %[[MEAN:[^:]+]]: tensor<8xf32>, %[[RSTD:[^:]+]]: tensor<8xf32>)
//       CHECK:   %[[SUMS:.+]]:2 = linalg.generic {indexing_maps = [#[[$ID]], #[[$ID]], #[[$CH]], #[[$CH]], #[[$CH]]],
//  CHECK-SAME:     iterator_types = ["reduction", "parallel", "reduction", "reduction"]}
//  CHECK-SAME:     ins(%[[DY]], %[[X]], %[[MEAN]] :
//       CHECK:   %[[PC:.+]]:4 = linalg.generic
//  CHECK-SAME:     ins(%[[RSTD]] : {{.+}}) outs(%{{.+}}, %{{.+}}, %[[SUMS]]#1, %[[SUMS]]#0 :
//       CHECK:   %[[DX:.+]] = linalg.generic {indexing_maps = [#[[$ID]], #[[$ID]], #[[$CH]], #[[$CH]], #[[$CH]], #[[$CH]], #[[$CH]], #[[$ID]]],
//  CHECK-SAME:     ins(%[[DY]], %[[X]], %[[MEAN]], %[[RSTD]], %[[G]], %[[PC]]#2, %[[PC]]#3 :
//       CHECK:   return %[[DX]], %[[PC]]#0, %[[PC]]#1
func.func @batch_norm_grad(%dy: tensor<2x8x4x4xf32>, %x: tensor<2x8x4x4xf32>, %g: tensor<8xf32>,
                           %mean: tensor<8xf32>, %rstd: tensor<8xf32>)
    -> (tensor<2x8x4x4xf32>, tensor<8xf32>, tensor<8xf32>) {
  %dx, %dg, %db = train.batch_norm_grad %dy, %x, %g, %mean, %rstd
      : tensor<2x8x4x4xf32>, tensor<2x8x4x4xf32>, tensor<8xf32>, tensor<8xf32>, tensor<8xf32>
      -> tensor<2x8x4x4xf32>, tensor<8xf32>, tensor<8xf32>
  return %dx, %dg, %db : tensor<2x8x4x4xf32>, tensor<8xf32>, tensor<8xf32>
}
