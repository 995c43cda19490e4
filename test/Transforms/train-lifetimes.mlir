// RUN: mem-opt --mlir-print-debuginfo=false %s -split-input-file --train-lifetimes -verify-diagnostics | FileCheck %s
// RUN: mem-opt --mlir-print-debuginfo=false %s -split-input-file --train-lifetimes --train-lifetimes -verify-diagnostics | FileCheck %s

// A buffer is freed right after its last use, counting uses through views;
// frees behind one op follow definition order; an unused result is freed
// right after its definition; parameters, arguments and returned buffers are
// not freed. Running the pass twice changes nothing (second RUN line).
// CHECK-LABEL: func.func @frees(
// CHECK-SAME:      %[[X:.+]]: tensor<4x8xf32>)
// CHECK:         %[[W:.+]] = train.param "w"
// CHECK-NEXT:    %[[H:.+]] = train.matmul %[[X]], %[[W]]
// CHECK-NEXT:    %[[R:.+]] = train.reshape %[[H]]
// CHECK-NEXT:    %[[A:.+]] = train.relu %[[R]]
// CHECK-NEXT:    %[[B:.+]] = train.relu %[[H]]
// CHECK-NEXT:    train.free %[[H]] : tensor<4x8xf32>
// CHECK-NEXT:    train.free %[[B]] : tensor<4x8xf32>
// CHECK-NEXT:    %[[L:.+]] = train.reduce_sum %[[A]]
// CHECK-NEXT:    train.free %[[A]] : tensor<32xf32>
// CHECK-NEXT:    return %[[L]]
// CHECK-NOT:     train.free
func.func @frees(%x: tensor<4x8xf32>) -> tensor<f32> {
  %w = train.param "w" : tensor<8x8xf32>
  %h = train.matmul %x, %w : tensor<4x8xf32>, tensor<8x8xf32> -> tensor<4x8xf32>
  %r = train.reshape %h : tensor<4x8xf32> -> tensor<32xf32>
  %a = train.relu %r : tensor<32xf32>
  %b = train.relu %h : tensor<4x8xf32>
  %l = train.reduce_sum %a {dims = array<i64: 0>} : tensor<32xf32> -> tensor<f32>
  return %l : tensor<f32>
}

// -----

// An existing free is kept, and nothing is freed twice.
// CHECK-LABEL: func.func @existing_free(
// CHECK:         train.relu
// CHECK-NEXT:    train.free
// CHECK-NEXT:    return
// CHECK-NOT:     train.free
func.func @existing_free(%x: tensor<4xf32>) {
  %a = train.relu %x : tensor<4xf32>
  train.free %a : tensor<4xf32>
  return
}

// -----

// A free written later than the last use (here after %c, although %a's
// last reader is the reshape view %v's user %b) moves up behind that use,
// after the frees already there; one in place stays.
// CHECK-LABEL: func.func @late_free(
// CHECK:         %[[A:.*]] = train.relu %{{.*}} : tensor<2x4xf32>
// CHECK-NEXT:    %[[V:.*]] = train.reshape %[[A]]
// CHECK-NEXT:    %[[B:.*]] = train.relu %[[V]]
// CHECK-NEXT:    train.free %[[A]]
// CHECK-NEXT:    %[[C:.*]] = train.relu %[[B]]
// CHECK-NEXT:    train.free %[[B]]
// CHECK-NEXT:    %[[D:.*]] = train.reduce_sum %[[C]]
// CHECK-NEXT:    train.free %[[C]]
// CHECK-NEXT:    return %[[D]]
// CHECK-NOT:     train.free
func.func @late_free(%x: tensor<2x4xf32>) -> tensor<f32> {
  %a = train.relu %x : tensor<2x4xf32>
  %v = train.reshape %a : tensor<2x4xf32> -> tensor<8xf32>
  %b = train.relu %v : tensor<8xf32>
  %c = train.relu %b : tensor<8xf32>
  train.free %b : tensor<8xf32>
  train.free %a : tensor<2x4xf32>
  %d = train.reduce_sum %c {dims = array<i64: 0>} : tensor<8xf32> -> tensor<f32>
  return %d : tensor<f32>
}

// -----

// expected-error @+1 {{'func.func' op expected a single-block training step (program order is the schedule)}}
func.func @two_blocks(%x: tensor<4xf32>) -> tensor<4xf32> {
  cf.br ^bb1
^bb1:
  return %x : tensor<4xf32>
}
