// RUN: mem-opt --mlir-print-debuginfo=false %s --convert-train-to-linalg -split-input-file | FileCheck %s

// convert-train-to-linalg on matmul, the shape ops, embedding, the losses and
// softmax, with their gradients (LinalgLowering.cpp).

// CHECK-LABEL: func.func @matmul(
// CHECK-SAME:      %[[A:.+]]: tensor<4x3xf32>, %[[B:.+]]: tensor<3x5xf32>)
// CHECK:         %[[EMPTY:.+]] = tensor.empty() : tensor<4x5xf32>
// CHECK:         %[[ZERO:.+]] = arith.constant 0.000000e+00 : f32
// CHECK:         %[[INIT:.+]] = linalg.fill ins(%[[ZERO]] : f32) outs(%[[EMPTY]] : tensor<4x5xf32>)
// CHECK:         %[[R:.+]] = linalg.matmul ins(%[[A]], %[[B]] : tensor<4x3xf32>, tensor<3x5xf32>) outs(%[[INIT]] : tensor<4x5xf32>)
// CHECK:         return %[[R]]
func.func @matmul(%a: tensor<4x3xf32>, %b: tensor<3x5xf32>) -> tensor<4x5xf32> {
  %r = train.matmul %a, %b : tensor<4x3xf32>, tensor<3x5xf32> -> tensor<4x5xf32>
  return %r : tensor<4x5xf32>
}

// -----

// Both transposes in the indexing maps; bf16 operands accumulate in f32.
// CHECK-DAG: #[[$TA:.+]] = affine_map<(d0, d1, d2) -> (d2, d0)>
// CHECK-DAG: #[[$TB:.+]] = affine_map<(d0, d1, d2) -> (d1, d2)>
// CHECK-DAG: #[[$C:.+]] = affine_map<(d0, d1, d2) -> (d0, d1)>
// CHECK-LABEL: func.func @matmul_transposed(
// CHECK:         %[[INIT:.+]] = linalg.fill ins(%{{.+}} : f32) outs(%{{.+}} : tensor<4x5xf32>)
// CHECK:         linalg.matmul indexing_maps = [#[[$TA]], #[[$TB]], #[[$C]]] ins(%{{.+}}, %{{.+}} : tensor<3x4xbf16>, tensor<5x3xbf16>) outs(%[[INIT]] : tensor<4x5xf32>)
func.func @matmul_transposed(%a: tensor<3x4xbf16>, %b: tensor<5x3xbf16>) -> tensor<4x5xf32> {
  %r = train.matmul %a, %b {transpose_lhs, transpose_rhs} : tensor<3x4xbf16>, tensor<5x3xbf16> -> tensor<4x5xf32>
  return %r : tensor<4x5xf32>
}

// -----

// CHECK-DAG: #[[$A:.+]] = affine_map<(d0, d1, d2, d3) -> (d0, d1, d3)>
// CHECK-DAG: #[[$TB:.+]] = affine_map<(d0, d1, d2, d3) -> (d0, d2, d3)>
// CHECK-DAG: #[[$C:.+]] = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2)>
// CHECK-LABEL: func.func @matmul_batch(
// CHECK:         linalg.batch_matmul indexing_maps = [#[[$A]], #[[$TB]], #[[$C]]] ins(%{{.+}}, %{{.+}} : tensor<2x4x3xf32>, tensor<2x5x3xf32>) outs(%{{.+}} : tensor<2x4x5xf32>)
func.func @matmul_batch(%a: tensor<2x4x3xf32>, %b: tensor<2x5x3xf32>) -> tensor<2x4x5xf32> {
  %r = train.matmul %a, %b {transpose_rhs} : tensor<2x4x3xf32>, tensor<2x5x3xf32> -> tensor<2x4x5xf32>
  return %r : tensor<2x4x5xf32>
}

// -----

// Several batch dimensions: one linalg.generic contraction over all of them
// (k innermost, as linalg.batch_matmul), so that no operand is collapsed: a
// collapse of a strided view (transposed attention heads) would copy it.
// CHECK-DAG: #[[$TA:.+]] = affine_map<(d0, d1, d2, d3, d4) -> (d0, d1, d4, d2)>
// CHECK-DAG: #[[$B:.+]] = affine_map<(d0, d1, d2, d3, d4) -> (d0, d1, d4, d3)>
// CHECK-DAG: #[[$C:.+]] = affine_map<(d0, d1, d2, d3, d4) -> (d0, d1, d2, d3)>
// CHECK-LABEL: func.func @matmul_batch_rank4(
// CHECK-SAME:      %[[A:.+]]: tensor<2x3x4x6xf32>, %[[B:.+]]: tensor<2x3x4x5xf32>)
// CHECK-NOT:     tensor.collapse_shape
// CHECK:         %[[R:.+]] = linalg.generic {indexing_maps = [#[[$TA]], #[[$B]], #[[$C]]], iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction"]} ins(%[[A]], %[[B]] : tensor<2x3x4x6xf32>, tensor<2x3x4x5xf32>) outs(%{{.+}} : tensor<2x3x6x5xf32>)
// CHECK:         return %[[R]]
func.func @matmul_batch_rank4(%a: tensor<2x3x4x6xf32>, %b: tensor<2x3x4x5xf32>) -> tensor<2x3x6x5xf32> {
  %r = train.matmul %a, %b {transpose_lhs} : tensor<2x3x4x6xf32>, tensor<2x3x4x5xf32> -> tensor<2x3x6x5xf32>
  return %r : tensor<2x3x6x5xf32>
}

// -----

// A shared weight: the lhs rows collapse into one linalg.matmul.
// CHECK-DAG: #[[$A:.+]] = affine_map<(d0, d1, d2) -> (d0, d2)>
// CHECK-DAG: #[[$TB:.+]] = affine_map<(d0, d1, d2) -> (d1, d2)>
// CHECK-DAG: #[[$C:.+]] = affine_map<(d0, d1, d2) -> (d0, d1)>
// CHECK-LABEL: func.func @matmul_linear(
// CHECK-SAME:      %[[X:.+]]: tensor<2x4x3xf32>, %[[W:.+]]: tensor<5x3xf32>)
// CHECK:         %[[ROWS:.+]] = tensor.collapse_shape %[[X]] {{\[\[}}0, 1], [2]] : tensor<2x4x3xf32> into tensor<8x3xf32>
// CHECK:         %[[R:.+]] = linalg.matmul indexing_maps = [#[[$A]], #[[$TB]], #[[$C]]] ins(%[[ROWS]], %[[W]] : tensor<8x3xf32>, tensor<5x3xf32>) outs(%{{.+}} : tensor<8x5xf32>)
// CHECK:         tensor.expand_shape %[[R]] {{\[\[}}0, 1], [2]] output_shape [2, 4, 5] : tensor<8x5xf32> into tensor<2x4x5xf32>
func.func @matmul_linear(%x: tensor<2x4x3xf32>, %w: tensor<5x3xf32>) -> tensor<2x4x5xf32> {
  %r = train.matmul %x, %w {transpose_rhs} : tensor<2x4x3xf32>, tensor<5x3xf32> -> tensor<2x4x5xf32>
  return %r : tensor<2x4x5xf32>
}

// -----

// A shared weight with transpose_lhs: a generic contraction over k (d3).
// CHECK-DAG: #[[$TA:.+]] = affine_map<(d0, d1, d2, d3) -> (d0, d3, d1)>
// CHECK-DAG: #[[$W:.+]] = affine_map<(d0, d1, d2, d3) -> (d3, d2)>
// CHECK-DAG: #[[$C:.+]] = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2)>
// CHECK-LABEL: func.func @matmul_linear_transpose_lhs(
// CHECK:         linalg.generic {indexing_maps = [#[[$TA]], #[[$W]], #[[$C]]], iterator_types = ["parallel", "parallel", "parallel", "reduction"]}
// CHECK:           %[[M:.+]] = arith.mulf
// CHECK:           %[[S:.+]] = arith.addf %{{.+}}, %[[M]]
// CHECK:           linalg.yield %[[S]]
func.func @matmul_linear_transpose_lhs(%x: tensor<2x3x4xf32>, %w: tensor<3x5xf32>) -> tensor<2x4x5xf32> {
  %r = train.matmul %x, %w {transpose_lhs} : tensor<2x3x4xf32>, tensor<3x5xf32> -> tensor<2x4x5xf32>
  return %r : tensor<2x4x5xf32>
}

// -----

// CHECK-LABEL: func.func @reshape(
// CHECK-SAME:      %[[X:.+]]: tensor<2x3x4xf32>)
// CHECK:         %[[A:.+]] = tensor.collapse_shape %[[X]] {{\[\[}}0, 1], [2]] : tensor<2x3x4xf32> into tensor<6x4xf32>
// CHECK:         %[[B:.+]] = tensor.expand_shape %[[X]] {{\[\[}}0], [1], [2, 3]] output_shape [2, 3, 2, 2] : tensor<2x3x4xf32> into tensor<2x3x2x2xf32>
// Not a regrouping of dimensions: through 1-D.
// CHECK:         %[[F:.+]] = tensor.collapse_shape %[[X]] {{\[\[}}0, 1, 2]] : tensor<2x3x4xf32> into tensor<24xf32>
// CHECK:         %[[C:.+]] = tensor.expand_shape %[[F]] {{\[\[}}0, 1]] output_shape [4, 6] : tensor<24xf32> into tensor<4x6xf32>
// CHECK:         %[[D:.+]] = tensor.expand_shape %{{.+}} [] output_shape [1, 1] : tensor<i64> into tensor<1x1xi64>
// CHECK:         return %[[A]], %[[B]], %[[C]], %[[D]]
func.func @reshape(%x: tensor<2x3x4xf32>) -> (tensor<6x4xf32>, tensor<2x3x2x2xf32>, tensor<4x6xf32>, tensor<1x1xi64>) {
  %a = train.reshape %x : tensor<2x3x4xf32> -> tensor<6x4xf32>
  %b = train.reshape %x : tensor<2x3x4xf32> -> tensor<2x3x2x2xf32>
  %c = train.reshape %x : tensor<2x3x4xf32> -> tensor<4x6xf32>
  %s = arith.constant dense<3> : tensor<i64>
  %d = train.reshape %s : tensor<i64> -> tensor<1x1xi64>
  return %a, %b, %c, %d : tensor<6x4xf32>, tensor<2x3x2x2xf32>, tensor<4x6xf32>, tensor<1x1xi64>
}

// -----

// transpose is a view, as in the memory model: the input's buffer, permuted.
// CHECK-LABEL: func.func @transpose(
// CHECK-SAME:      %[[X:.+]]: tensor<2x3x4xf32>)
// CHECK:         %[[B:.+]] = bufferization.to_buffer %[[X]] read_only : tensor<2x3x4xf32> to memref<2x3x4xf32>
// CHECK:         %[[T:.+]] = memref.transpose %[[B]] (d0, d1, d2) -> (d2, d0, d1) : memref<2x3x4xf32> to memref<4x2x3xf32, strided<[1, 12, 4]>>
// CHECK:         %[[R:.+]] = bufferization.to_tensor %[[T]] restrict : memref<4x2x3xf32, strided<[1, 12, 4]>> to tensor<4x2x3xf32>
// CHECK:         return %[[R]]
func.func @transpose(%x: tensor<2x3x4xf32>) -> tensor<4x2x3xf32> {
  %t = train.transpose %x {permutation = array<i64: 2, 0, 1>} : tensor<2x3x4xf32> -> tensor<4x2x3xf32>
  return %t : tensor<4x2x3xf32>
}

// -----

// A transpose of a view reads its source through the view's static strides,
// so the reshapes of it are views where the strides allow it (as in the
// memory model) and copies otherwise.
// CHECK-LABEL: func.func @transpose_of_view(
// CHECK:         %[[S:.+]] = tensor.extract_slice
// CHECK:         %[[B:.+]] = bufferization.to_buffer %[[S]] read_only : tensor<2x3x2xf32> to memref<2x3x2xf32, strided<[12, 4, 2], offset: 1>>
// CHECK:         memref.transpose %[[B]] (d0, d1, d2) -> (d1, d2, d0) : memref<2x3x2xf32, strided<[12, 4, 2], offset: 1>> to memref<3x2x2xf32, strided<[4, 2, 12], offset: 1>>
func.func @transpose_of_view(%x: tensor<2x3x4xf32>) -> tensor<3x2x2xf32> {
  %s = train.slice %x {offsets = array<i64: 0, 0, 1>, strides = array<i64: 1, 1, 2>} : tensor<2x3x4xf32> -> tensor<2x3x2xf32>
  %t = train.transpose %s {permutation = array<i64: 1, 2, 0>} : tensor<2x3x2xf32> -> tensor<3x2x2xf32>
  return %t : tensor<3x2x2xf32>
}

// -----

// CHECK-LABEL: func.func @slice(
// CHECK-SAME:      %[[X:.+]]: tensor<4x6xf32>)
// CHECK:         %[[S:.+]] = tensor.extract_slice %[[X]][1, 1] [2, 3] [2, 2] : tensor<4x6xf32> to tensor<2x3xf32>
// CHECK:         %[[Z:.+]] = linalg.fill ins(%{{.+}} : f32) outs(%{{.+}} : tensor<4x6xf32>)
// CHECK:         %[[G:.+]] = tensor.insert_slice %[[S]] into %[[Z]][1, 1] [2, 3] [2, 2] : tensor<2x3xf32> into tensor<4x6xf32>
// CHECK:         return %[[S]], %[[G]]
func.func @slice(%x: tensor<4x6xf32>) -> (tensor<2x3xf32>, tensor<4x6xf32>) {
  %s = train.slice %x {offsets = array<i64: 1, 1>, strides = array<i64: 2, 2>} : tensor<4x6xf32> -> tensor<2x3xf32>
  %g = train.slice_grad %s {offsets = array<i64: 1, 1>, strides = array<i64: 2, 2>} : tensor<2x3xf32> -> tensor<4x6xf32>
  return %s, %g : tensor<2x3xf32>, tensor<4x6xf32>
}

// -----

// CHECK-LABEL: func.func @concat(
// CHECK-SAME:      %[[A:.+]]: tensor<2x3xf32>, %[[B:.+]]: tensor<2x5xf32>)
// The result is a tensor.empty destination (which the arena places) with
// each input inserted at its offset.
// CHECK:         %[[E:.+]] = tensor.empty() : tensor<2x8xf32>
// CHECK:         %[[I:.+]] = tensor.insert_slice %[[A]] into %[[E]][0, 0] [2, 3] [1, 1] : tensor<2x3xf32> into tensor<2x8xf32>
// CHECK:         %[[C:.+]] = tensor.insert_slice %[[B]] into %[[I]][0, 3] [2, 5] [1, 1] : tensor<2x5xf32> into tensor<2x8xf32>
// CHECK:         return %[[C]]
func.func @concat(%a: tensor<2x3xf32>, %b: tensor<2x5xf32>) -> tensor<2x8xf32> {
  %c = train.concat %a, %b {axis = -1 : i64} : tensor<2x3xf32>, tensor<2x5xf32> -> tensor<2x8xf32>
  return %c : tensor<2x8xf32>
}

// -----

// A gather: the id indexes the table row, linalg.index the column.
// CHECK-DAG: #[[$IDS:.+]] = affine_map<(d0, d1, d2) -> (d0, d1)>
// CHECK-DAG: #[[$OUT:.+]] = affine_map<(d0, d1, d2) -> (d0, d1, d2)>
// CHECK-LABEL: func.func @embedding(
// CHECK-SAME:      %[[W:.+]]: tensor<10x4xf32>, %[[IDS:.+]]: tensor<2x3xi64>)
// CHECK:         linalg.generic {indexing_maps = [#[[$IDS]], #[[$OUT]]], iterator_types = ["parallel", "parallel", "parallel"]} ins(%[[IDS]] : tensor<2x3xi64>)
// CHECK:         ^bb0(%[[ID:.+]]: i64, %{{.+}}: f32):
// CHECK:           %[[ROW:.+]] = arith.index_cast %[[ID]] : i64 to index
// CHECK:           %[[COL:.+]] = linalg.index 2 : index
// CHECK:           %[[V:.+]] = tensor.extract %[[W]][%[[ROW]], %[[COL]]] : tensor<10x4xf32>
// CHECK:           linalg.yield %[[V]] : f32
func.func @embedding(%w: tensor<10x4xf32>, %ids: tensor<2x3xi64>) -> tensor<2x3x4xf32> {
  %e = train.embedding %w, %ids : tensor<10x4xf32>, tensor<2x3xi64> -> tensor<2x3x4xf32>
  return %e : tensor<2x3x4xf32>
}

// -----

// A scatter-add: one loop iteration per position adds its gradient row into
// the loop-carried table at the id's row.
// CHECK-LABEL: func.func @embedding_grad(
// CHECK-SAME:      %[[G:.+]]: tensor<2x3x4xf32>, %[[IDS:.+]]: tensor<2x3xi32>)
// CHECK-DAG:     %[[IDS1:.+]] = tensor.collapse_shape %[[IDS]] {{\[\[}}0, 1]] : tensor<2x3xi32> into tensor<6xi32>
// CHECK-DAG:     %[[G2:.+]] = tensor.collapse_shape %[[G]] {{\[\[}}0, 1], [2]] : tensor<2x3x4xf32> into tensor<6x4xf32>
// CHECK-DAG:     %[[ZERO:.+]] = linalg.fill ins(%{{.+}} : f32) outs(%{{.+}} : tensor<10x4xf32>)
// CHECK-DAG:     %[[C0:.+]] = arith.constant 0 : index
// CHECK-DAG:     %[[C6:.+]] = arith.constant 6 : index
// CHECK-DAG:     %[[C1:.+]] = arith.constant 1 : index
// CHECK:         %[[R:.+]] = scf.for %[[I:.+]] = %[[C0]] to %[[C6]] step %[[C1]] iter_args(%[[ACC:.+]] = %[[ZERO]]) -> (tensor<10x4xf32>)
// CHECK:           %[[ID:.+]] = tensor.extract %[[IDS1]][%[[I]]] : tensor<6xi32>
// CHECK:           %[[ROW:.+]] = arith.index_cast %[[ID]] : i32 to index
// CHECK:           %[[GROW:.+]] = tensor.extract_slice %[[G2]][%[[I]], 0] [1, 4] [1, 1]
// CHECK:           %[[TROW:.+]] = tensor.extract_slice %[[ACC]][%[[ROW]], 0] [1, 4] [1, 1]
// CHECK:           %[[SUM:.+]] = linalg.generic {{.+}} ins(%[[GROW]] : tensor<1x4xf32>) outs(%[[TROW]] : tensor<1x4xf32>)
// CHECK:             arith.addf
// CHECK:           %[[NEW:.+]] = tensor.insert_slice %[[SUM]] into %[[ACC]][%[[ROW]], 0] [1, 4] [1, 1]
// CHECK:           scf.yield %[[NEW]]
// CHECK:         return %[[R]]
func.func @embedding_grad(%g: tensor<2x3x4xf32>, %ids: tensor<2x3xi32>) -> tensor<10x4xf32> {
  %d = train.embedding_grad %g, %ids : tensor<2x3x4xf32>, tensor<2x3xi32> -> tensor<10x4xf32>
  return %d : tensor<10x4xf32>
}

// -----

// bf16 logits: row max (linalg.reduce) and sum of exp in f32, then one
// reduction over the positions yielding the summed loss and the count of
// positions whose label is not ignore_index; the mean divides the two. All
// over the 2x3x7 shape itself: nothing is collapsed (a strided view of the
// logits would be copied to collapse it).
// CHECK-DAG: #[[$ID3:.+]] = affine_map<(d0, d1, d2) -> (d0, d1, d2)>
// CHECK-DAG: #[[$ROW:.+]] = affine_map<(d0, d1, d2) -> (d0, d1)>
// CHECK-DAG: #[[$ID2:.+]] = affine_map<(d0, d1) -> (d0, d1)>
// CHECK-DAG: #[[$ALL:.+]] = affine_map<(d0, d1) -> ()>
// CHECK-LABEL: func.func @cross_entropy(
// CHECK-SAME:      %[[X:.+]]: tensor<2x3x7xbf16>, %[[L:.+]]: tensor<2x3xi64>)
// CHECK-NOT:     tensor.collapse_shape
// CHECK:         %[[NEGINF:.+]] = arith.constant 0xFF800000 : f32
// CHECK:         %[[MAX:.+]] = linalg.reduce ins(%[[X]] : tensor<2x3x7xbf16>) outs(%{{.+}} : tensor<2x3xf32>) dimensions = [2]
// CHECK:           arith.extf %{{.+}} : bf16 to f32
// CHECK:           arith.maximumf
// CHECK:         %[[SUM:.+]] = linalg.generic {indexing_maps = [#[[$ID3]], #[[$ROW]], #[[$ROW]]], iterator_types = ["parallel", "parallel", "reduction"]} ins(%[[X]], %[[MAX]] : tensor<2x3x7xbf16>, tensor<2x3xf32>)
// CHECK:           arith.subf
// CHECK:           math.exp
// CHECK:         %[[TOTALS:.+]]:2 = linalg.generic {indexing_maps = [#[[$ID2]], #[[$ID2]], #[[$ID2]], #[[$ALL]], #[[$ALL]]], iterator_types = ["reduction", "reduction"]} ins(%[[L]], %[[MAX]], %[[SUM]] : tensor<2x3xi64>, tensor<2x3xf32>, tensor<2x3xf32>) outs(%{{.+}}, %{{.+}} : tensor<f32>, tensor<f32>)
// CHECK:         ^bb0(%[[LABEL:.+]]: i64, %[[M:.+]]: f32, %[[S:.+]]: f32, %[[ACC:.+]]: f32, %[[CNT:.+]]: f32):
// CHECK:           %[[IGN:.+]] = arith.constant -100 : i64
// CHECK:           %[[KEEP:.+]] = arith.cmpi ne, %[[LABEL]], %[[IGN]] : i64
// CHECK:           %[[SAFE:.+]] = arith.select %[[KEEP]], %[[LABEL]], %{{.+}} : i64
// CHECK:           %[[P0:.+]] = linalg.index 0 : index
// CHECK:           %[[P1:.+]] = linalg.index 1 : index
// CHECK:           %[[COL:.+]] = arith.index_cast %[[SAFE]] : i64 to index
// CHECK:           %[[PICK:.+]] = tensor.extract %[[X]][%[[P0]], %[[P1]], %[[COL]]] : tensor<2x3x7xbf16>
// CHECK:           %[[PICK32:.+]] = arith.extf %[[PICK]] : bf16 to f32
// CHECK:           %[[LOG:.+]] = math.log %[[S]] : f32
// CHECK:           %[[LSE:.+]] = arith.addf %[[M]], %[[LOG]] : f32
// CHECK:           %[[LOSS:.+]] = arith.subf %[[LSE]], %[[PICK32]] : f32
// CHECK:           arith.select %[[KEEP]], %[[LOSS]]
// CHECK:         linalg.generic {{.+}} ins(%[[TOTALS]]#0, %[[TOTALS]]#1 : tensor<f32>, tensor<f32>)
// CHECK:           arith.divf
func.func @cross_entropy(%x: tensor<2x3x7xbf16>, %l: tensor<2x3xi64>) -> tensor<f32> {
  %c = train.cross_entropy %x, %l {ignore_index = -100 : i64} : tensor<2x3x7xbf16>, tensor<2x3xi64> -> tensor<f32>
  return %c : tensor<f32>
}

// -----

// CHECK-DAG: #[[$ID2:.+]] = affine_map<(d0, d1) -> (d0, d1)>
// CHECK-DAG: #[[$ROW:.+]] = affine_map<(d0, d1) -> (d0)>
// CHECK-LABEL: func.func @cross_entropy_grad(
// CHECK-SAME:      %[[G:.+]]: tensor<f32>, %[[X:.+]]: tensor<6x7xf32>, %[[L:.+]]: tensor<6xi32>)
// CHECK:         %[[MAX:.+]] = linalg.reduce ins(%[[X]] : tensor<6x7xf32>)
// CHECK:         %[[SUM:.+]] = linalg.generic
// CHECK:         %[[COUNT:.+]] = linalg.generic {{.+}} iterator_types = ["reduction"]} ins(%[[L]] : tensor<6xi32>) outs(%{{.+}} : tensor<f32>)
// CHECK:           arith.cmpi ne
// CHECK:         %[[N:.+]] = tensor.extract %[[COUNT]][] : tensor<f32>
// CHECK:         %[[GV:.+]] = tensor.extract %[[G]][] : tensor<f32>
// CHECK:         %[[F:.+]] = arith.divf %[[GV]], %[[N]] : f32
// CHECK:         linalg.generic {indexing_maps = [#[[$ID2]], #[[$ROW]], #[[$ROW]], #[[$ROW]], #[[$ID2]]], iterator_types = ["parallel", "parallel"]} ins(%[[X]], %[[MAX]], %[[SUM]], %[[L]] : tensor<6x7xf32>, tensor<6xf32>, tensor<6xf32>, tensor<6xi32>)
// CHECK:           %[[E:.+]] = math.exp
// CHECK:           %[[P:.+]] = arith.divf %[[E]]
// CHECK:           %[[J:.+]] = linalg.index 1 : index
// CHECK:           %[[IS:.+]] = arith.cmpi eq, %[[J]]
// CHECK:           %[[ONEHOT:.+]] = arith.select %[[IS]]
// CHECK:           %[[D:.+]] = arith.subf %[[P]], %[[ONEHOT]]
// CHECK:           %[[SCALED:.+]] = arith.mulf %[[D]], %[[F]]
// CHECK:           %[[KEEP:.+]] = arith.cmpi ne
// CHECK:           %[[R:.+]] = arith.select %[[KEEP]], %[[SCALED]]
// CHECK:           linalg.yield %[[R]]
func.func @cross_entropy_grad(%g: tensor<f32>, %x: tensor<6x7xf32>, %l: tensor<6xi32>) -> tensor<6x7xf32> {
  %d = train.cross_entropy_grad %g, %x, %l {ignore_index = -100 : i64} : tensor<f32>, tensor<6x7xf32>, tensor<6xi32> -> tensor<6x7xf32>
  return %d : tensor<6x7xf32>
}

// -----

// Positions of rank 2: the gradient is one generic over the 2x3x7 shape (no
// collapse of the logits, no reshape of the result), the count the number of
// positions.
// CHECK-DAG: #[[$ID3:.+]] = affine_map<(d0, d1, d2) -> (d0, d1, d2)>
// CHECK-DAG: #[[$ROW:.+]] = affine_map<(d0, d1, d2) -> (d0, d1)>
// CHECK-LABEL: func.func @cross_entropy_grad_3d(
// CHECK-SAME:      %[[G:.+]]: tensor<f32>, %[[X:.+]]: tensor<2x3x7xf32>, %[[L:.+]]: tensor<2x3xi64>)
// CHECK-NOT:     tensor.collapse_shape
// CHECK:         %[[MAX:.+]] = linalg.reduce ins(%[[X]] : tensor<2x3x7xf32>) outs(%{{.+}} : tensor<2x3xf32>) dimensions = [2]
// CHECK:         %[[SUM:.+]] = linalg.generic
// CHECK:         %[[N:.+]] = arith.constant 6.000000e+00 : f32
// CHECK:         %[[R:.+]] = linalg.generic {indexing_maps = [#[[$ID3]], #[[$ROW]], #[[$ROW]], #[[$ROW]], #[[$ID3]]], iterator_types = ["parallel", "parallel", "parallel"]} ins(%[[X]], %[[MAX]], %[[SUM]], %[[L]] : tensor<2x3x7xf32>, tensor<2x3xf32>, tensor<2x3xf32>, tensor<2x3xi64>) outs(%{{.+}} : tensor<2x3x7xf32>)
// CHECK:           %[[J:.+]] = linalg.index 2 : index
// CHECK:           arith.cmpi eq, %[[J]]
// CHECK-NOT:     tensor.expand_shape
// CHECK:         return %[[R]]
func.func @cross_entropy_grad_3d(%g: tensor<f32>, %x: tensor<2x3x7xf32>, %l: tensor<2x3xi64>) -> tensor<2x3x7xf32> {
  %d = train.cross_entropy_grad %g, %x, %l : tensor<f32>, tensor<2x3x7xf32>, tensor<2x3xi64> -> tensor<2x3x7xf32>
  return %d : tensor<2x3x7xf32>
}

// -----

// CHECK-DAG: #[[$ID:.+]] = affine_map<(d0, d1) -> (d0, d1)>
// CHECK-DAG: #[[$ALL:.+]] = affine_map<(d0, d1) -> ()>
// CHECK-LABEL: func.func @mse_loss(
// CHECK-SAME:      %[[A:.+]]: tensor<4x5xf32>, %[[Y:.+]]: tensor<4x5xf32>, %[[G:.+]]: tensor<f32>)
// CHECK:         %[[SQ:.+]] = linalg.generic {indexing_maps = [#[[$ID]], #[[$ID]], #[[$ALL]]], iterator_types = ["reduction", "reduction"]} ins(%[[A]], %[[Y]] : tensor<4x5xf32>, tensor<4x5xf32>) outs(%{{.+}} : tensor<f32>)
// CHECK:           %[[D:.+]] = arith.subf
// CHECK:           %[[D2:.+]] = arith.mulf %[[D]], %[[D]]
// CHECK:           arith.addf %{{.+}}, %[[D2]]
// CHECK:         linalg.generic {{.+}} ins(%[[SQ]] : tensor<f32>)
// CHECK:           %[[N:.+]] = arith.constant 2.000000e+01 : f32
// CHECK:           arith.divf %{{.+}}, %[[N]]
// CHECK:         %[[GV:.+]] = tensor.extract %[[G]][] : tensor<f32>
// CHECK:         linalg.generic {indexing_maps = [#[[$ID]], #[[$ID]], #[[$ID]]], iterator_types = ["parallel", "parallel"]} ins(%[[A]], %[[Y]] : tensor<4x5xf32>, tensor<4x5xf32>)
// CHECK:           %[[DIFF:.+]] = arith.subf
// CHECK:           %[[NORM:.+]] = arith.constant 1.000000e-01 : f32
// CHECK:           %[[T:.+]] = arith.mulf %[[DIFF]], %[[NORM]]
// CHECK:           arith.mulf %[[T]], %[[GV]]
func.func @mse_loss(%a: tensor<4x5xf32>, %y: tensor<4x5xf32>, %g: tensor<f32>) -> (tensor<f32>, tensor<4x5xf32>) {
  %l = train.mse_loss %a, %y : tensor<4x5xf32>, tensor<4x5xf32> -> tensor<f32>
  %d = train.mse_loss_grad %g, %a, %y : tensor<f32>, tensor<4x5xf32>, tensor<4x5xf32> -> tensor<4x5xf32>
  return %l, %d : tensor<f32>, tensor<4x5xf32>
}

// -----

// Reductions along axis 1 (the reduction iterator and the dropped map
// dimension), scale applied before the max.
// CHECK-DAG: #[[$ID:.+]] = affine_map<(d0, d1, d2) -> (d0, d1, d2)>
// CHECK-DAG: #[[$RED:.+]] = affine_map<(d0, d1, d2) -> (d0, d2)>
// CHECK-LABEL: func.func @softmax_axis(
// CHECK-SAME:      %[[X:.+]]: tensor<2x3x4xf32>)
// CHECK:         %[[MAX:.+]] = linalg.generic {indexing_maps = [#[[$ID]], #[[$RED]]], iterator_types = ["parallel", "reduction", "parallel"]} ins(%[[X]] : tensor<2x3x4xf32>) outs(%{{.+}} : tensor<2x4xf32>)
// CHECK:           %[[SCALE:.+]] = arith.constant 5.000000e-01 : f32
// CHECK:           %[[S:.+]] = arith.mulf %{{.+}}, %[[SCALE]]
// CHECK:           arith.maximumf %{{.+}}, %[[S]]
// CHECK:         %[[SUM:.+]] = linalg.generic {indexing_maps = [#[[$ID]], #[[$RED]], #[[$RED]]], iterator_types = ["parallel", "reduction", "parallel"]} ins(%[[X]], %[[MAX]] : tensor<2x3x4xf32>, tensor<2x4xf32>)
// CHECK:           math.exp
// CHECK:         linalg.generic {indexing_maps = [#[[$ID]], #[[$RED]], #[[$RED]], #[[$ID]]], iterator_types = ["parallel", "parallel", "parallel"]} ins(%[[X]], %[[MAX]], %[[SUM]] : tensor<2x3x4xf32>, tensor<2x4xf32>, tensor<2x4xf32>)
// CHECK:           %[[E:.+]] = math.exp
// CHECK:           arith.divf %[[E]]
func.func @softmax_axis(%x: tensor<2x3x4xf32>) -> tensor<2x3x4xf32> {
  %y = train.softmax %x {axis = 1 : i64, scale = 5.000000e-01 : f64} : tensor<2x3x4xf32>
  return %y : tensor<2x3x4xf32>
}

// -----

// bf16 computed in f32; element (i, j) is masked when j > i + (K - Q) = i + 2.
// CHECK-LABEL: func.func @softmax_causal(
// CHECK:         linalg.generic {{.+}} iterator_types = ["parallel", "parallel", "reduction"]} ins(%{{.+}} : tensor<2x3x5xbf16>) outs(%{{.+}} : tensor<2x3xf32>)
// CHECK:           %[[X:.+]] = arith.extf %{{.+}} : bf16 to f32
// CHECK:           %[[NEGINF:.+]] = arith.constant 0xFF800000 : f32
// CHECK:           %[[I:.+]] = linalg.index 1 : index
// CHECK:           %[[J:.+]] = linalg.index 2 : index
// CHECK:           %[[C2:.+]] = arith.constant 2 : index
// CHECK:           %[[LIMIT:.+]] = arith.addi %[[I]], %[[C2]] : index
// CHECK:           %[[MASKED:.+]] = arith.cmpi sgt, %[[J]], %[[LIMIT]] : index
// CHECK:           %[[S:.+]] = arith.select %[[MASKED]], %[[NEGINF]], %[[X]] : f32
// CHECK:           arith.maximumf %{{.+}}, %[[S]] : f32
// CHECK:         linalg.generic
// CHECK:           arith.cmpi sgt
// CHECK:           arith.select
// CHECK:         linalg.generic {{.+}} outs(%{{.+}} : tensor<2x3x5xbf16>)
// CHECK:           %[[P:.+]] = arith.divf
// CHECK:           %[[MASKED2:.+]] = arith.cmpi sgt
// CHECK:           %[[Q:.+]] = arith.select %[[MASKED2]], %{{.+}}, %[[P]] : f32
// CHECK:           %[[R:.+]] = arith.truncf %[[Q]] : f32 to bf16
// CHECK:           linalg.yield %[[R]] : bf16
func.func @softmax_causal(%x: tensor<2x3x5xbf16>) -> tensor<2x3x5xbf16> {
  %y = train.softmax %x {causal} : tensor<2x3x5xbf16>
  return %y : tensor<2x3x5xbf16>
}

// -----

// CHECK-DAG: #[[$ID:.+]] = affine_map<(d0, d1, d2) -> (d0, d1, d2)>
// CHECK-DAG: #[[$RED:.+]] = affine_map<(d0, d1, d2) -> (d0, d1)>
// CHECK-LABEL: func.func @softmax_grad(
// CHECK-SAME:      %[[DY:.+]]: tensor<2x3x4xf32>, %[[Y:.+]]: tensor<2x3x4xf32>)
// CHECK:         %[[DOT:.+]] = linalg.generic {indexing_maps = [#[[$ID]], #[[$ID]], #[[$RED]]], iterator_types = ["parallel", "parallel", "reduction"]} ins(%[[DY]], %[[Y]] : tensor<2x3x4xf32>, tensor<2x3x4xf32>)
// CHECK:           arith.mulf
// CHECK:           arith.addf
// CHECK:         linalg.generic {indexing_maps = [#[[$ID]], #[[$ID]], #[[$RED]], #[[$ID]]], iterator_types = ["parallel", "parallel", "parallel"]} ins(%[[DY]], %[[Y]], %[[DOT]] : tensor<2x3x4xf32>, tensor<2x3x4xf32>, tensor<2x3xf32>)
// CHECK:         ^bb0(%[[G:.+]]: f32, %[[YV:.+]]: f32, %[[D:.+]]: f32, %{{.+}}: f32):
// CHECK:           %[[SUB:.+]] = arith.subf %[[G]], %[[D]] : f32
// CHECK:           %[[MUL:.+]] = arith.mulf %[[YV]], %[[SUB]] : f32
// CHECK:           %[[SCALE:.+]] = arith.constant 2.500000e-01 : f32
// CHECK:           arith.mulf %[[MUL]], %[[SCALE]] : f32
func.func @softmax_grad(%dy: tensor<2x3x4xf32>, %y: tensor<2x3x4xf32>) -> tensor<2x3x4xf32> {
  %d = train.softmax_grad %dy, %y {scale = 2.500000e-01 : f64} : tensor<2x3x4xf32>
  return %d : tensor<2x3x4xf32>
}
