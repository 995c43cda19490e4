// RUN: mem-opt %s --train-autodiff=optimizer=sgd --train-lifetimes --test-print-remat-groups=segments=3 -o /dev/null | FileCheck %s

// The groups train-remat's solvers decide over (RematGroups.h). With 3
// segments, `optimal` sees layer l.0 (the matmul and its gelu), l.1 with l.2
// merged (whole layers, about equal in ops), and the loss; the backward
// groups start where the backward pass first reads an earlier forward group,
// the optimizer closes the last. Workspaces are calibrated (negative where a
// group's outputs die before its end). `chain` sees one layer per layer name
// and the loss; B_0 holds the optimizer.
// CHECK-LABEL: func @chain
// CHECK-NEXT:  step groups (segments 3): 6 groups, 3 forward; persistent 392 bytes
// CHECK-NEXT:    group 0 forward ops 1-2 (2): train.matmul "l.0.fc" .. train.gelu "l.0.act"
// CHECK-NEXT:      cost 768, bytes 256, workspace -8, recomputable, operands []
// CHECK-NEXT:    group 1 forward ops 3-4 (2): train.gelu "l.1.act" .. train.gelu "l.2.act"
// CHECK-NEXT:      cost 512, bytes 256, workspace -8, recomputable, operands [group 0]
// CHECK-NEXT:    group 2 forward ops 5-5 (1): train.reduce_sum "loss"
// CHECK-NEXT:      cost 32, bytes 0, workspace -4, recomputable, operands [group 1]
// CHECK-NEXT:    group 3 backward ops 6-8 (3): arith.constant "loss.grad.seed" .. train.gelu_grad "l.2.act.grad"
// CHECK-NEXT:      cost 384, bytes 128, workspace -4, operands [group 1]
// CHECK-NEXT:    group 4 backward ops 9-11 (3): train.gelu_grad "l.1.act.grad" .. train.matmul "l.0.fc.grad"
// CHECK-NEXT:      cost 1280, bytes 256, workspace -132, operands [group 0, group 3]
// CHECK-NEXT:    group 5 backward ops 12-12 (1): train.sgd "w.update"
// CHECK-NEXT:      cost 192, bytes 0, workspace -132, operands [group 4]
// CHECK-NEXT:  chain: 4 layers; persistent 388 bytes
// CHECK-NEXT:    layer 0 ops 1-2 (2): train.matmul "l.0.fc" .. train.gelu "l.0.act"
// CHECK-NEXT:      cost 768, output 128, tape 128, forward peak 256; backward ops 10-12 (3): train.gelu_grad "l.0.act.grad" .. train.sgd "w.update", entry 128, peak 384, reads layer
// CHECK-NEXT:    layer 1 ops 3-3 (1): train.gelu "l.1.act"
// CHECK-NEXT:      cost 256, output 128, tape 0, forward peak 128; backward ops 9-9 (1): train.gelu_grad "l.1.act.grad", entry 128, peak 256, reads input
// CHECK-NEXT:    layer 2 ops 4-4 (1): train.gelu "l.2.act"
// CHECK-NEXT:      cost 256, output 128, tape 0, forward peak 128; backward ops 6-8 (3): arith.constant "loss.grad.seed" .. train.gelu_grad "l.2.act.grad", entry 0, peak 256, reads input
// CHECK-NEXT:    layer 3 ops 5-5 (1): train.reduce_sum "loss"
// CHECK-NEXT:      cost 32, output 0, tape 0, forward peak 0; backward empty, entry 0, peak 0, reads nothing
func.func @chain(%x: tensor<4x8xf32>) -> tensor<f32> {
  %w = train.param "w" : tensor<8x8xf32>
  %h = train.matmul %x, %w : tensor<4x8xf32>, tensor<8x8xf32> -> tensor<4x8xf32> loc("l.0.fc")
  %a = train.gelu %h : tensor<4x8xf32> loc("l.0.act")
  %b = train.gelu %a : tensor<4x8xf32> loc("l.1.act")
  %c = train.gelu %b : tensor<4x8xf32> loc("l.2.act")
  %loss = train.reduce_sum %c {dims = array<i64: 0, 1>} : tensor<4x8xf32> -> tensor<f32> loc("loss")
  return %loss : tensor<f32>
}

// A skip connection: the step groups exist, the chain does not, and the
// printout says why.
// CHECK-LABEL: func @skip
// CHECK:       step groups (segments 3): 6 groups, 3 forward; persistent 136 bytes
// CHECK:       chain: none: layer 'l.2' (layer 2) reads a value of layer 'l.0' (layer 0), not only of the one before it
func.func @skip() -> tensor<f32> {
  %w = train.param "w" : tensor<4x8xf32>
  %a = train.gelu %w : tensor<4x8xf32> loc("l.0")
  %b = train.gelu %a : tensor<4x8xf32> loc("l.1")
  %c = train.add %a, %b : tensor<4x8xf32> loc("l.2")
  %loss = train.reduce_sum %c {dims = array<i64: 0, 1>} : tensor<4x8xf32> -> tensor<f32> loc("loss")
  return %loss : tensor<f32>
}
