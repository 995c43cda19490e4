// RUN: mem-opt --mlir-print-debuginfo=false %s -split-input-file --train-autodiff | FileCheck %s
// RUN: mem-opt --mlir-print-debuginfo=false %s -split-input-file --train-autodiff='optimizer=sgd lr=0.5 momentum=0.9' | FileCheck %s --check-prefix=SGD
// RUN: mem-opt --mlir-print-debuginfo=false %s -split-input-file --train-autodiff='optimizer=adamw weight-decay=0.1' | FileCheck %s --check-prefix=ADAMW
// RUN: mem-opt --mlir-print-debuginfo=false %s -split-input-file --train-autodiff='optimizer=none' | FileCheck %s --check-prefix=NONE
// RUN: mem-opt --mlir-print-debuginfo=false %s -split-input-file --train-autodiff --train-verify-step -o /dev/null
// RUN: mem-opt --mlir-print-debuginfo=false %s -split-input-file --train-autodiff --mlir-print-debuginfo | FileCheck %s --check-prefix=LOC

// An MLP: the backward runs in reverse program order; matmul is reused for
// both of its gradients; relu saves its output; bias gradients are sums.
// CHECK-LABEL: func.func @mlp(
// CHECK-SAME:      %[[X:[^:]+]]: tensor<8x16xf32>, %[[Y:[^:]+]]: tensor<8x4xf32>, %[[T:[^:]+]]: tensor<i64> {train.step})
// CHECK:         %[[W1:.+]] = train.param "fc1.weight"
// CHECK:         %[[B1:.+]] = train.param "fc1.bias"
// CHECK:         %[[W2:.+]] = train.param "fc2.weight"
// CHECK:         %[[B2:.+]] = train.param "fc2.bias"
// CHECK:         %[[H:.+]] = train.matmul %[[X]], %[[W1]] :
// CHECK:         %[[HB:.+]] = train.bias_add %[[H]], %[[B1]]
// CHECK:         %[[A:.+]] = train.relu %[[HB]]
// CHECK:         %[[O:.+]] = train.matmul %[[A]], %[[W2]] :
// CHECK:         %[[OB:.+]] = train.bias_add %[[O]], %[[B2]]
// CHECK:         %[[L:.+]] = train.mse_loss %[[OB]], %[[Y]]
// CHECK:         %[[SEED:.+]] = arith.constant dense<1.000000e+00> : tensor<f32>
// CHECK:         %[[DOB:.+]] = train.mse_loss_grad %[[SEED]], %[[OB]], %[[Y]]
// CHECK:         %[[DB2:.+]] = train.reduce_sum %[[DOB]] {dims = array<i64: 0>} : tensor<8x4xf32> -> tensor<4xf32>
// CHECK:         %[[DA:.+]] = train.matmul %[[DOB]], %[[W2]] {transpose_rhs} : tensor<8x4xf32>, tensor<32x4xf32> -> tensor<8x32xf32>
// CHECK:         %[[DW2:.+]] = train.matmul %[[A]], %[[DOB]] {transpose_lhs} : tensor<8x32xf32>, tensor<8x4xf32> -> tensor<32x4xf32>
// CHECK:         %[[DHB:.+]] = train.relu_grad %[[DA]], %[[A]] : tensor<8x32xf32>
// CHECK:         %[[DB1:.+]] = train.reduce_sum %[[DHB]] {dims = array<i64: 0>}
// CHECK:         %[[DW1:.+]] = train.matmul %[[X]], %[[DHB]] {transpose_lhs} : tensor<8x16xf32>, tensor<8x32xf32> -> tensor<16x32xf32>
// CHECK-NOT:     train.matmul
// CHECK:         %[[M1:.+]] = train.opt_state "fc1.weight.exp_avg" : tensor<16x32xf32>
// CHECK:         %[[V1:.+]] = train.opt_state "fc1.weight.exp_avg_sq" : tensor<16x32xf32>
// CHECK:         train.adam %[[W1]], %[[DW1]], %[[M1]], %[[V1]] step(%[[T]] : tensor<i64>) {lr = 1.000000e-03 : f64}
// CHECK:         train.adam %[[B1]], %[[DB1]],
// CHECK:         train.adam %[[W2]], %[[DW2]],
// CHECK:         train.adam %[[B2]], %[[DB2]],
// CHECK:         return %[[L]] : tensor<f32>

// SGD-LABEL: func.func @mlp(%{{.*}}: tensor<8x16xf32>, %{{.*}}: tensor<8x4xf32>) -> tensor<f32>
// SGD:         %[[BUF:.+]] = train.opt_state "fc1.weight.momentum_buffer" : tensor<16x32xf32>
// SGD-NEXT:    train.sgd %{{.+}}, %{{.+}} momentum(%[[BUF]] : tensor<16x32xf32>) {lr = 5.000000e-01 : f64, momentum = 9.000000e-01 : f64}
// SGD-COUNT-3: train.sgd

// ADAMW-LABEL: func.func @mlp(
// ADAMW-COUNT-4: train.adamw {{.*}} {lr = 1.000000e-03 : f64, weight_decay = 1.000000e-01 : f64}

// NONE-LABEL: func.func @mlp(%{{.*}}: tensor<8x16xf32>, %{{.*}}: tensor<8x4xf32>) -> (tensor<f32>, tensor<16x32xf32> {train.grad_of = "fc1.weight"}, tensor<32xf32> {train.grad_of = "fc1.bias"}, tensor<32x4xf32> {train.grad_of = "fc2.weight"}, tensor<4xf32> {train.grad_of = "fc2.bias"})
// NONE-NOT:   train.adam
// NONE:       return %{{.+}}, %{{.+}}, %{{.+}}, %{{.+}}, %{{.+}} : tensor<f32>, tensor<16x32xf32>, tensor<32xf32>, tensor<32x4xf32>, tensor<4xf32>
func.func @mlp(%x: tensor<8x16xf32>, %y: tensor<8x4xf32>) -> tensor<f32> {
  %w1 = train.param "fc1.weight" : tensor<16x32xf32>
  %b1 = train.param "fc1.bias" : tensor<32xf32>
  %w2 = train.param "fc2.weight" : tensor<32x4xf32>
  %b2 = train.param "fc2.bias" : tensor<4xf32>
  %h = train.matmul %x, %w1 : tensor<8x16xf32>, tensor<16x32xf32> -> tensor<8x32xf32>
  %hb = train.bias_add %h, %b1 : tensor<8x32xf32>, tensor<32xf32> -> tensor<8x32xf32>
  %a = train.relu %hb : tensor<8x32xf32>
  %o = train.matmul %a, %w2 : tensor<8x32xf32>, tensor<32x4xf32> -> tensor<8x4xf32>
  %ob = train.bias_add %o, %b2 : tensor<8x4xf32>, tensor<4xf32> -> tensor<8x4xf32>
  %l = train.mse_loss %ob, %y : tensor<8x4xf32>, tensor<8x4xf32> -> tensor<f32>
  return %l : tensor<f32>
}

// -----

// A value with two uses (a residual) gets the sum of both gradients; two
// reads of one parameter name (a tied embedding) get one update with the sum
// of their gradients; a parameter the loss does not use gets no update.
// CHECK-LABEL: func.func @residual_and_tied(
// CHECK:         %[[E:.+]] = train.param "wte" : tensor<16x8xf32>
// CHECK:         %[[U:.+]] = train.param "unused" : tensor<3xf32>
// CHECK:         %[[H:.+]] = train.embedding %[[E]], %{{.+}}
// CHECK:         %[[G:.+]] = train.gelu %[[H]]
// CHECK:         %[[R:.+]] = train.add %[[H]], %[[G]]
// CHECK:         %[[E2:.+]] = train.param "wte" : tensor<16x8xf32>
// CHECK:         %[[LOGITS:.+]] = train.matmul %[[R]], %[[E2]] {transpose_rhs}
// CHECK:         %[[DLOGITS:.+]] = train.cross_entropy_grad
// CHECK:         %[[DR:.+]] = train.matmul %[[DLOGITS]], %[[E2]] :
// CHECK:         %[[DLOGITS2D:.+]] = train.reshape %[[DLOGITS]] : tensor<2x5x16xf32> -> tensor<10x16xf32>
// CHECK:         %[[DE2:.+]] = train.matmul %[[DLOGITS2D]], %{{.+}} {transpose_lhs} : tensor<10x16xf32>, tensor<10x8xf32> -> tensor<16x8xf32>
// CHECK:         %[[DG:.+]] = train.gelu_grad %[[DR]], %[[H]]
// CHECK:         %[[DH:.+]] = train.add %[[DR]], %[[DG]]
// CHECK:         %[[DE1:.+]] = train.embedding_grad %[[DH]], %{{.+}} : tensor<2x5x8xf32>, tensor<2x5xi64> -> tensor<16x8xf32>
// CHECK:         %[[DE:.+]] = train.add %[[DE1]], %[[DE2]] : tensor<16x8xf32>
// CHECK:         train.adam %[[E]], %[[DE]],
// CHECK-NOT:     train.adam
// CHECK:         return
func.func @residual_and_tied(%ids: tensor<2x5xi64>, %labels: tensor<2x5xi64>) -> tensor<f32> {
  %wte = train.param "wte" : tensor<16x8xf32>
  %unused = train.param "unused" : tensor<3xf32>
  %h = train.embedding %wte, %ids : tensor<16x8xf32>, tensor<2x5xi64> -> tensor<2x5x8xf32>
  %g = train.gelu %h : tensor<2x5x8xf32>
  %r = train.add %h, %g : tensor<2x5x8xf32>
  %wte2 = train.param "wte" : tensor<16x8xf32>
  %logits = train.matmul %r, %wte2 {transpose_rhs} : tensor<2x5x8xf32>, tensor<16x8xf32> -> tensor<2x5x16xf32>
  %l = train.cross_entropy %logits, %labels : tensor<2x5x16xf32>, tensor<2x5xi64> -> tensor<f32>
  return %l : tensor<f32>
}

// -----

// Gradient ops are named after the forward op's name location.
// LOC-LABEL: func.func @locations(
// LOC:         train.softmax_grad {{.*}} loc(#[[SM:.+]])
// LOC:         train.mul {{.*}} loc(#[[SC:.+]])
// LOC-DAG:     #[[SM]] = loc("attn.softmax.grad")
// LOC-DAG:     #[[SC]] = loc("scores.grad")
func.func @locations(%x: tensor<4x4xf32>) -> tensor<f32> {
  %w = train.param "w" : tensor<4x4xf32>
  %s = train.mul %x, %w : tensor<4x4xf32> loc("scores")
  %p = train.softmax %s {causal} : tensor<4x4xf32> loc("attn.softmax")
  %l = train.reduce_sum %p {dims = array<i64: 0, 1>} : tensor<4x4xf32> -> tensor<f32>
  return %l : tensor<f32>
}

// -----

// A squeeze-and-excitation gate, x * broadcast(s): the multiply's backward
// broadcasts s again (for dx = dy * s) instead of reading the forward's
// full-size copy, which therefore dies at the forward multiply, as PyTorch
// saves only the small operand of a broadcasting multiply.
// CHECK-LABEL: func.func @gate(
// CHECK:         %[[X:.+]] = train.add
// CHECK:         %[[S:.+]] = train.sigmoid
// CHECK:         %[[B:.+]] = train.broadcast %[[S]] {dims = array<i64: 2, 3>}
// CHECK:         train.mul %[[X]], %[[B]]
// CHECK:         %[[DY:.+]] = train.mse_loss_grad
// CHECK:         %[[B2:.+]] = train.broadcast %[[S]] {dims = array<i64: 2, 3>}
// CHECK:         train.mul %[[DY]], %[[B2]]
// CHECK:         %[[DB:.+]] = train.mul %[[DY]], %[[X]]
// CHECK:         train.reduce_sum %[[DB]] {dims = array<i64: 2, 3>}
// CHECK-NOT:     %[[B]]
// CHECK:         return
func.func @gate(%x: tensor<2x8x4x4xf32>, %y: tensor<2x8x4x4xf32>) -> tensor<f32> {
  %p = train.param "p" : tensor<2x8x4x4xf32>
  %w = train.param "w" : tensor<2x8xf32>
  %h = train.add %x, %p : tensor<2x8x4x4xf32>
  %s = train.sigmoid %w : tensor<2x8xf32>
  %b = train.broadcast %s {dims = array<i64: 2, 3>} : tensor<2x8xf32> -> tensor<2x8x4x4xf32>
  %m = train.mul %h, %b : tensor<2x8x4x4xf32>
  %l = train.mse_loss %m, %y : tensor<2x8x4x4xf32>, tensor<2x8x4x4xf32> -> tensor<f32>
  return %l : tensor<f32>
}

// -----

// A cast whose input the backward pass reads anyway is cast again there:
// softmax's f32 output is read by softmax_grad, so the bf16 copy the
// matmul's gradient reads is made again before it rather than kept from the
// forward pass (one copy saved, not two). The parameter's bf16 copy, whose
// input is the parameter itself, stays as it is.
// CHECK-LABEL: func.func @recast(
// CHECK:         %[[W:.+]] = train.param "w"
// CHECK:         %[[WB:.+]] = train.cast %[[W]] : tensor<4x4xf32> -> tensor<4x4xbf16>
// CHECK:         %[[P:.+]] = train.softmax
// CHECK:         %[[PB:.+]] = train.cast %[[P]] : tensor<2x4x4xf32> -> tensor<2x4x4xbf16>
// CHECK:         train.matmul %[[PB]], %[[WB]]
// CHECK-NOT:     %[[PB]]
// CHECK:         train.matmul %{{.*}}, %[[WB]] {transpose_rhs}
// CHECK-NOT:     %[[PB]]
// CHECK:         %[[PB2:.+]] = train.cast %[[P]] : tensor<2x4x4xf32> -> tensor<2x4x4xbf16>
// CHECK:         %[[R:.+]] = train.reshape %[[PB2]]
// CHECK:         train.matmul %[[R]], %{{.*}} {transpose_lhs}
// CHECK:         train.softmax_grad %{{.*}}, %[[P]]
// CHECK-NOT:     %[[PB]]
// CHECK:         return
func.func @recast(%x: tensor<2x4x4xf32>, %y: tensor<2x4x4xbf16>) -> tensor<f32> {
  %v = train.param "v" : tensor<2x4x4xf32>
  %w = train.param "w" : tensor<4x4xf32>
  %wb = train.cast %w : tensor<4x4xf32> -> tensor<4x4xbf16>
  %s = train.add %x, %v : tensor<2x4x4xf32>
  %p = train.softmax %s : tensor<2x4x4xf32>
  %pb = train.cast %p : tensor<2x4x4xf32> -> tensor<2x4x4xbf16>
  %o = train.matmul %pb, %wb : tensor<2x4x4xbf16>, tensor<4x4xbf16> -> tensor<2x4x4xbf16>
  %l = train.mse_loss %o, %y : tensor<2x4x4xbf16>, tensor<2x4x4xbf16> -> tensor<f32>
  return %l : tensor<f32>
}
