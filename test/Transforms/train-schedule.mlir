// RUN: mem-opt --mlir-print-debuginfo=false %s -split-input-file --train-schedule 2>/dev/null | FileCheck %s
// RUN: mem-opt %s -split-input-file --train-schedule 2>&1 >/dev/null | FileCheck %s --check-prefix=REMARK
// RUN: mem-opt --mlir-print-debuginfo=false %s -split-input-file --train-schedule=heuristic=program 2>/dev/null | FileCheck %s --check-prefix=PROGRAM
// RUN: mem-opt %s -split-input-file --train-schedule=heuristic=program 2>&1 >/dev/null | FileCheck %s --check-prefix=PROGRAM-REMARK
// Scheduled twice, a step is the same IR as scheduled once: the second run
// keeps the order and the attribute (its LOAD before the first run).
// RUN: mem-opt %s -split-input-file --train-schedule -o %t.once.mlir 2>/dev/null
// RUN: mem-opt %s -split-input-file --train-schedule --train-schedule -o %t.twice.mlir 2>/dev/null
// RUN: cmp %t.once.mlir %t.twice.mlir

// Two layers with SGD, updates written at the end: eager moves fc2's update
// right behind fc2's weight gradient, before the backward pass reaches fc1,
// and every free right behind its last use. The step's peak (at fc1's
// weight gradient, which no longer overlaps fc2's) drops by fc2's gradient.
// REMARK: remark: train-schedule: eager: LOAD 6276 -> 5764 bytes (-8.2%); tried program 6276, eager 5764, greedy 5764
// CHECK-LABEL: func.func @mlp(
// CHECK-SAME:    attributes {train.schedule = {heuristic = "eager", load_after = 5764 : i64, load_before = 6276 : i64}}
// CHECK:         %[[DO:.+]] = train.mse_loss_grad
// CHECK:         %[[DA:.+]] = train.matmul %[[DO]], %[[W2:.+]] {transpose_rhs}
// CHECK-NEXT:    %[[DW2:.+]] = train.matmul %{{.+}}, %[[DO]] {transpose_lhs}
// CHECK-NEXT:    train.free %[[DO]]
// CHECK-NEXT:    train.sgd %[[W2]], %[[DW2]]
// CHECK-NEXT:    train.free %[[DW2]]
// CHECK-NEXT:    %[[DH:.+]] = train.relu_grad %[[DA]]
// CHECK:         %[[DW1:.+]] = train.matmul %{{.+}}, %[[DH]] {transpose_lhs}
// CHECK-NEXT:    train.free %[[DH]]
// CHECK-NEXT:    train.sgd %{{.+}}, %[[DW1]]
// CHECK-NEXT:    train.free %[[DW1]]
// CHECK-NEXT:    return
// The program order as written: nothing moves, the record says so.
// PROGRAM-REMARK: remark: train-schedule: program: LOAD 6276 -> 6276 bytes (+0.0%); tried program 6276{{$}}
// PROGRAM-LABEL: func.func @mlp(
// PROGRAM-SAME:    heuristic = "program", load_after = 6276 : i64, load_before = 6276 : i64
// PROGRAM:         train.sgd
// PROGRAM-NEXT:    train.sgd
// PROGRAM-NEXT:    train.free
// PROGRAM-NEXT:    train.free
// PROGRAM-NEXT:    return
func.func @mlp(%x: tensor<4x8xf32>, %y: tensor<4x2xf32>) -> tensor<f32> {
  %w1 = train.param "fc1.weight" : tensor<8x64xf32>
  %w2 = train.param "fc2.weight" : tensor<64x2xf32>
  %h = train.matmul %x, %w1 : tensor<4x8xf32>, tensor<8x64xf32> -> tensor<4x64xf32>
  %a = train.relu %h : tensor<4x64xf32>
  train.free %h : tensor<4x64xf32>
  %o = train.matmul %a, %w2 : tensor<4x64xf32>, tensor<64x2xf32> -> tensor<4x2xf32>
  %loss = train.mse_loss %o, %y : tensor<4x2xf32>, tensor<4x2xf32> -> tensor<f32>
  %seed = arith.constant dense<1.0> : tensor<f32>
  %do = train.mse_loss_grad %seed, %o, %y : tensor<f32>, tensor<4x2xf32>, tensor<4x2xf32> -> tensor<4x2xf32>
  train.free %o : tensor<4x2xf32>
  %da = train.matmul %do, %w2 {transpose_rhs} : tensor<4x2xf32>, tensor<64x2xf32> -> tensor<4x64xf32>
  %dw2 = train.matmul %a, %do {transpose_lhs} : tensor<4x64xf32>, tensor<4x2xf32> -> tensor<64x2xf32>
  train.free %do : tensor<4x2xf32>
  %dh = train.relu_grad %da, %a : tensor<4x64xf32>
  train.free %a : tensor<4x64xf32>
  train.free %da : tensor<4x64xf32>
  %dw1 = train.matmul %x, %dh {transpose_lhs} : tensor<4x8xf32>, tensor<4x64xf32> -> tensor<8x64xf32>
  train.free %dh : tensor<4x64xf32>
  train.sgd %w1, %dw1 {lr = 1.0e-3 : f64} : tensor<8x64xf32>, tensor<8x64xf32>
  train.sgd %w2, %dw2 {lr = 1.0e-3 : f64} : tensor<64x2xf32>, tensor<64x2xf32>
  train.free %dw1 : tensor<8x64xf32>
  train.free %dw2 : tensor<64x2xf32>
  return %loss : tensor<f32>
}

// -----

// In-place updates keep their place among the ops that touch the buffer:
// the sum written before the update reads the old weight and stays before
// it; the one written after reads the new weight and stays after it. The
// step is small enough for the exact search, which tries every order the
// dependences allow.
// REMARK: remark: train-schedule: program: LOAD 772 -> 772 bytes (+0.0%); tried program 772, eager 772, greedy 772, exact 772
// CHECK-LABEL: func.func @in_place(
// CHECK:         %[[W:.+]] = train.param "w"
// CHECK:         train.reduce_sum %[[W]]
// CHECK:         train.sgd %[[W]]
// CHECK:         train.reduce_sum %[[W]]
func.func @in_place(%g: tensor<64xf32>) -> (tensor<f32>, tensor<f32>) {
  %w = train.param "w" : tensor<64xf32>
  %before = train.reduce_sum %w {dims = array<i64: 0>} : tensor<64xf32> -> tensor<f32>
  train.sgd %w, %g {lr = 1.0e-3 : f64} : tensor<64xf32>, tensor<64xf32>
  %big = train.relu %g : tensor<64xf32>
  %after = train.reduce_sum %w {dims = array<i64: 0>} : tensor<64xf32> -> tensor<f32>
  %s = train.reduce_sum %big {dims = array<i64: 0>} : tensor<64xf32> -> tensor<f32>
  %r = train.add %after, %s : tensor<f32>
  return %before, %r : tensor<f32>, tensor<f32>
}
