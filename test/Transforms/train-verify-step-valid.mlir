// RUN: mem-opt --mlir-print-debuginfo=false %s --train-verify-step | FileCheck %s
// RUN: mem-opt --mlir-print-debuginfo=false %s --train-verify-step > %t.pass && mem-opt --mlir-print-debuginfo=false %s > %t.plain && diff %t.plain %t.pass

// A well-formed step passes --train-verify-step unchanged: two reads of one
// state name with one type are one buffer, read twice; each state is updated
// by a single optimizer op; declarations (no body) are skipped.

// CHECK-LABEL: func.func @step(
// CHECK-SAME:      %[[X:.+]]: tensor<4x8xf32>, %[[Y:.+]]: tensor<4x16xf32>, %[[T:.+]]: tensor<i64>)
// CHECK-NEXT:    %[[W:.+]] = train.param "fc.weight" : tensor<8x16xf32>{{$}}
// CHECK-NEXT:    %[[B:.+]] = train.param "fc.bias" : tensor<16xf32>{{$}}
// CHECK-NEXT:    %[[H:.+]] = train.matmul %[[X]], %[[W]] : tensor<4x8xf32>, tensor<8x16xf32> -> tensor<4x16xf32>{{$}}
// CHECK-NEXT:    %[[A:.+]] = train.bias_add %[[H]], %[[B]] : tensor<4x16xf32>, tensor<16xf32> -> tensor<4x16xf32>{{$}}
// CHECK-NEXT:    %[[L:.+]] = train.mse_loss %[[A]], %[[Y]] : tensor<4x16xf32>, tensor<4x16xf32> -> tensor<f32>{{$}}
// CHECK-NEXT:    %[[DL:.+]] = train.scale %[[L]] {factor = 1.000000e+00 : f64} : tensor<f32>{{$}}
// CHECK-NEXT:    %[[DA:.+]] = train.mse_loss_grad %[[DL]], %[[A]], %[[Y]] : tensor<f32>, tensor<4x16xf32>, tensor<4x16xf32> -> tensor<4x16xf32>{{$}}
// CHECK-NEXT:    train.free %[[A]] : tensor<4x16xf32>{{$}}
// CHECK-NEXT:    %[[DB:.+]] = train.reduce_sum %[[DA]] {dims = array<i64: 0>} : tensor<4x16xf32> -> tensor<16xf32>{{$}}
// CHECK-NEXT:    %[[DW:.+]] = train.matmul %[[X]], %[[DA]] {transpose_lhs} : tensor<4x8xf32>, tensor<4x16xf32> -> tensor<8x16xf32>{{$}}
// CHECK-NEXT:    train.free %[[DA]] : tensor<4x16xf32>{{$}}
// CHECK-NEXT:    %[[W2:.+]] = train.param "fc.weight" : tensor<8x16xf32>{{$}}
// CHECK-NEXT:    %[[M:.+]] = train.opt_state "fc.weight.exp_avg" : tensor<8x16xf32>{{$}}
// CHECK-NEXT:    %[[V:.+]] = train.opt_state "fc.weight.exp_avg_sq" : tensor<8x16xf32>{{$}}
// CHECK-NEXT:    train.adamw %[[W2]], %[[DW]], %[[M]], %[[V]] step(%[[T]] : tensor<i64>) {lr = 1.000000e-03 : f64, weight_decay = 1.000000e-02 : f64} : tensor<8x16xf32>, tensor<8x16xf32>, tensor<8x16xf32>, tensor<8x16xf32>{{$}}
// CHECK-NEXT:    %[[BUF:.+]] = train.opt_state "fc.bias.momentum" : tensor<16xf32>{{$}}
// CHECK-NEXT:    train.sgd %[[B]], %[[DB]] momentum(%[[BUF]] : tensor<16xf32>) {lr = 1.000000e-02 : f64, momentum = 9.000000e-01 : f64} : tensor<16xf32>, tensor<16xf32>{{$}}
// CHECK-NEXT:    return %[[L]] : tensor<f32>
// CHECK-NEXT:  }
func.func @step(%x: tensor<4x8xf32>, %y: tensor<4x16xf32>, %t: tensor<i64>) -> tensor<f32> {
  %w = train.param "fc.weight" : tensor<8x16xf32>
  %b = train.param "fc.bias" : tensor<16xf32>
  %h = train.matmul %x, %w : tensor<4x8xf32>, tensor<8x16xf32> -> tensor<4x16xf32>
  %a = train.bias_add %h, %b : tensor<4x16xf32>, tensor<16xf32> -> tensor<4x16xf32>
  %l = train.mse_loss %a, %y : tensor<4x16xf32>, tensor<4x16xf32> -> tensor<f32>
  %dl = train.scale %l {factor = 1.0 : f64} : tensor<f32>
  %da = train.mse_loss_grad %dl, %a, %y : tensor<f32>, tensor<4x16xf32>, tensor<4x16xf32> -> tensor<4x16xf32>
  train.free %a : tensor<4x16xf32>
  %db = train.reduce_sum %da {dims = array<i64: 0>} : tensor<4x16xf32> -> tensor<16xf32>
  %dw = train.matmul %x, %da {transpose_lhs} : tensor<4x8xf32>, tensor<4x16xf32> -> tensor<8x16xf32>
  train.free %da : tensor<4x16xf32>
  // A second read of "fc.weight" with the same type: the same buffer.
  %w2 = train.param "fc.weight" : tensor<8x16xf32>
  %m = train.opt_state "fc.weight.exp_avg" : tensor<8x16xf32>
  %v = train.opt_state "fc.weight.exp_avg_sq" : tensor<8x16xf32>
  train.adamw %w2, %dw, %m, %v step(%t : tensor<i64>) {lr = 1.0e-3 : f64, weight_decay = 1.0e-2 : f64} : tensor<8x16xf32>, tensor<8x16xf32>, tensor<8x16xf32>, tensor<8x16xf32>
  %buf = train.opt_state "fc.bias.momentum" : tensor<16xf32>
  train.sgd %b, %db momentum(%buf : tensor<16xf32>) {lr = 1.0e-2 : f64, momentum = 0.9 : f64} : tensor<16xf32>, tensor<16xf32>
  return %l : tensor<f32>
}

// Another function may read and update the same names: the rules hold per
// step (per function).
// CHECK-LABEL: func.func @other_step(
// CHECK-NEXT:    %[[W:.+]] = train.param "fc.bias" : tensor<16xf32>{{$}}
// CHECK-NEXT:    train.sgd %[[W]], %{{.+}} {lr = 1.000000e-01 : f64} : tensor<16xf32>, tensor<16xf32>{{$}}
// CHECK-NEXT:    return
func.func @other_step(%g: tensor<16xf32>, %loss: tensor<f32>) -> tensor<f32> {
  %w = train.param "fc.bias" : tensor<16xf32>
  train.sgd %w, %g {lr = 0.1 : f64} : tensor<16xf32>, tensor<16xf32>
  return %loss : tensor<f32>
}

// CHECK-LABEL: func.func private @external(tensor<4xf32>) -> tensor<4xf32>
func.func private @external(tensor<4xf32>) -> tensor<4xf32>
