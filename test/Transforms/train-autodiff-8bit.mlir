// RUN: mem-opt --mlir-print-debuginfo=false %s -split-input-file --train-autodiff=optimizer=adam8bit | FileCheck %s
// RUN: mem-opt --mlir-print-debuginfo=false %s -split-input-file --train-autodiff='optimizer=adamw8bit lr=0.01 weight-decay=0.1' | FileCheck %s --check-prefix=ADAMW
// RUN: mem-opt --mlir-print-debuginfo=false %s -split-input-file --train-autodiff=optimizer=adam8bit --train-verify-step -o /dev/null

// train-autodiff's optimizer=adam8bit: a parameter of at least 4096
// elements (fc1.weight, 64x64) gets train.adam8bit with its four 8-bit
// states (codes of its shape, i8; one f32 absmax per block of 2048), the
// smaller ones (fc1.bias, 64; fc2.weight, 64x4 = 256) 32-bit train.adam, as
// bitsandbytes' min_8bit_size keeps them. One step counter serves both.
// CHECK-LABEL: func.func @mlp(
// CHECK-SAME:      %{{[^:]+}}: tensor<8x64xf32>, %{{[^:]+}}: tensor<8x4xf32>, %[[T:[^:]+]]: tensor<i64> {train.step})
// CHECK:         %[[W1:.+]] = train.param "fc1.weight" : tensor<64x64xf32>
// CHECK:         %[[MC:.+]] = train.opt_state "fc1.weight.exp_avg.codes" : tensor<64x64xi8>
// CHECK-NEXT:    %[[MA:.+]] = train.opt_state "fc1.weight.exp_avg.absmax" : tensor<2xf32>
// CHECK-NEXT:    %[[VC:.+]] = train.opt_state "fc1.weight.exp_avg_sq.codes" : tensor<64x64xi8>
// CHECK-NEXT:    %[[VA:.+]] = train.opt_state "fc1.weight.exp_avg_sq.absmax" : tensor<2xf32>
// CHECK-NEXT:    train.adam8bit %[[W1]], %{{.+}} exp_avg(%[[MC]], %[[MA]]) exp_avg_sq(%[[VC]], %[[VA]]) step(%[[T]] : tensor<i64>) {lr = 1.000000e-03 : f64} : tensor<64x64xf32>, tensor<64x64xf32>, tensor<64x64xi8>, tensor<2xf32>, tensor<64x64xi8>, tensor<2xf32>
// CHECK:         train.opt_state "fc1.bias.exp_avg" : tensor<64xf32>
// CHECK:         train.adam %{{.+}} step(%[[T]] : tensor<i64>) {lr = 1.000000e-03 : f64} : tensor<64xf32>,
// CHECK:         train.opt_state "fc2.weight.exp_avg" : tensor<64x4xf32>
// CHECK:         train.adam %{{.+}} : tensor<64x4xf32>,
// CHECK-NOT:     train.adam
// CHECK:         return

// ADAMW-LABEL: func.func @mlp(
// ADAMW:         train.adamw8bit {{.*}} {lr = 1.000000e-02 : f64, weight_decay = 1.000000e-01 : f64} : tensor<64x64xf32>
// ADAMW-COUNT-2: train.adamw {{.*}} {lr = 1.000000e-02 : f64, weight_decay = 1.000000e-01 : f64}
// ADAMW-NOT:     train.adam
func.func @mlp(%x: tensor<8x64xf32>, %y: tensor<8x4xf32>) -> tensor<f32> {
  %w1 = train.param "fc1.weight" : tensor<64x64xf32>
  %b1 = train.param "fc1.bias" : tensor<64xf32>
  %w2 = train.param "fc2.weight" : tensor<64x4xf32>
  %h = train.matmul %x, %w1 : tensor<8x64xf32>, tensor<64x64xf32> -> tensor<8x64xf32>
  %hb = train.bias_add %h, %b1 : tensor<8x64xf32>, tensor<64xf32> -> tensor<8x64xf32>
  %a = train.relu %hb : tensor<8x64xf32>
  %o = train.matmul %a, %w2 : tensor<8x64xf32>, tensor<64x4xf32> -> tensor<8x4xf32>
  %l = train.mse_loss %o, %y : tensor<8x4xf32>, tensor<8x4xf32> -> tensor<f32>
  return %l : tensor<f32>
}

// -----

// A 0-d, a 4095- and a 4097-element parameter: only the last is 8-bit, with
// 3 absmax values (its last block holds one element).
// CHECK-LABEL: func.func @edges(
// CHECK:         train.opt_state "s.exp_avg" : tensor<f32>
// CHECK:         train.opt_state "a.exp_avg" : tensor<4095xf32>
// CHECK:         train.opt_state "b.exp_avg.codes" : tensor<4097xi8>
// CHECK-NEXT:    train.opt_state "b.exp_avg.absmax" : tensor<3xf32>
// ADAMW-LABEL: func.func @edges(
// ADAMW-COUNT-2: train.adamw %
// ADAMW:         train.adamw8bit
func.func @edges(%x: tensor<4095xf32>, %y: tensor<4097xf32>, %z: tensor<f32>) -> tensor<f32> {
  %s = train.param "s" : tensor<f32>
  %a = train.param "a" : tensor<4095xf32>
  %b = train.param "b" : tensor<4097xf32>
  %l0 = train.mse_loss %s, %z : tensor<f32>, tensor<f32> -> tensor<f32>
  %l1 = train.mse_loss %a, %x : tensor<4095xf32>, tensor<4095xf32> -> tensor<f32>
  %l2 = train.mse_loss %b, %y : tensor<4097xf32>, tensor<4097xf32> -> tensor<f32>
  %s1 = train.add %l0, %l1 : tensor<f32>, tensor<f32> -> tensor<f32>
  %s2 = train.add %s1, %l2 : tensor<f32>, tensor<f32> -> tensor<f32>
  return %s2 : tensor<f32>
}
