// RUN: mem-opt %s -split-input-file --test-print-tensor-liveness -o /dev/null | FileCheck %s

// A small step, computed by hand (f32 = 4 bytes). Points:
//   0 param w (8x8, 256 B)        7 dx = relu_grad(dh, h)  (128 B)
//   1 h = relu(x)  (128 B)        8 dw = x^T dx            (256 B)
//   2 flat = reshape h (view)     9 free dflat
//   3 loss = sum(flat) (4 B)     10, 11 opt_state m, v     (256 B each)
//   4 seed (4 B)                 12 adam                   13 return
//   5 dflat = broadcast (128 B)
//   6 dh = reshape dflat (view)
// h is forward and read by relu_grad: an activation, live [1, 7]. dflat is
// live until its free at 9 (its view dh is read at 7). dw is consumed by
// adam: a gradient. Parameters and states are persistent (768 B at every
// point); x (128 B) is live until its last use at 8, the step counter (8 B)
// until 12. The constant seed is an input: data of the program, which the
// step reads but does not allocate.
// CHECK-LABEL: func @step
// CHECK-NEXT:  buffers: 11{{$}}
// CHECK-NEXT:    arg0: 128 bytes, input, live [0, 8]
// CHECK-NEXT:    arg1: 8 bytes, input, live [0, 12]
// CHECK-NEXT:    w: 256 bytes, parameter, live [0, 13], persistent
// CHECK-NEXT:    h: 128 bytes, activation, live [1, 7]
// CHECK-NEXT:    loss: 4 bytes, temporary, live [3, 13], returned
// CHECK-NEXT:    seed: 4 bytes, input, live [4, 5]
// CHECK-NEXT:    dflat: 128 bytes, temporary, live [5, 9], freed
// CHECK-NEXT:    dx: 128 bytes, temporary, live [7, 8]
// CHECK-NEXT:    dw: 256 bytes, gradient, live [8, 12]
// CHECK-NEXT:    w.exp_avg: 256 bytes, optimizer_state, live [0, 13], persistent
// CHECK-NEXT:    w.exp_avg_sq: 256 bytes, optimizer_state, live [0, 13], persistent
// CHECK-NEXT:  points: 14{{$}}
// CHECK-NEXT:    {{^ *}}0 train.param: 904{{$}}
// CHECK-NEXT:    {{^ *}}1 train.relu: 1032{{$}}
// CHECK-NEXT:    {{^ *}}2 train.reshape: 1032{{$}}
// CHECK-NEXT:    {{^ *}}3 train.reduce_sum: 1036{{$}}
// CHECK-NEXT:    {{^ *}}4 arith.constant: 1040{{$}}
// CHECK-NEXT:    {{^ *}}5 train.broadcast: 1168{{$}}
// CHECK-NEXT:    {{^ *}}6 train.reshape: 1164{{$}}
// CHECK-NEXT:    {{^ *}}7 train.relu_grad: 1292{{$}}
// CHECK-NEXT:    {{^ *}}8 train.matmul: 1420{{$}}
// CHECK-NEXT:    {{^ *}}9 train.free: 1164{{$}}
// CHECK-NEXT:    {{^ *}}10 train.opt_state: 1036{{$}}
// CHECK-NEXT:    {{^ *}}11 train.opt_state: 1036{{$}}
// CHECK-NEXT:    {{^ *}}12 train.adam: 1036{{$}}
// CHECK-NEXT:    {{^ *}}13 func.return: 772{{$}}
// CHECK-NEXT:  persistent: 768{{$}}
// CHECK-NEXT:  load: 1420 at point 8 (train.matmul)
// CHECK-NEXT:  by class at peak: parameter=256 gradient=256 optimizer_state=512 activation=0 temporary=260 input=136{{$}}
func.func @step(%x: tensor<4x8xf32>, %t: tensor<i64>) -> tensor<f32> {
  %w = train.param "w" : tensor<8x8xf32> loc("w")
  %h = train.relu %x : tensor<4x8xf32> loc("h")
  %flat = train.reshape %h : tensor<4x8xf32> -> tensor<32xf32> loc("flat")
  %l = train.reduce_sum %flat {dims = array<i64: 0>} : tensor<32xf32> -> tensor<f32> loc("loss")
  %seed = arith.constant dense<1.0> : tensor<f32> loc("seed")
  %dflat = train.broadcast %seed {dims = array<i64: 0>} : tensor<f32> -> tensor<32xf32> loc("dflat")
  %dh = train.reshape %dflat : tensor<32xf32> -> tensor<4x8xf32> loc("dh")
  %dx = train.relu_grad %dh, %h : tensor<4x8xf32> loc("dx")
  %dw = train.matmul %x, %dx {transpose_lhs} : tensor<4x8xf32>, tensor<4x8xf32> -> tensor<8x8xf32> loc("dw")
  train.free %dflat : tensor<32xf32>
  %m = train.opt_state "w.exp_avg" : tensor<8x8xf32>
  %v = train.opt_state "w.exp_avg_sq" : tensor<8x8xf32>
  train.adam %w, %dw, %m, %v step(%t : tensor<i64>) {lr = 1.0e-3 : f64} : tensor<8x8xf32>, tensor<8x8xf32>, tensor<8x8xf32>, tensor<8x8xf32>
  return %l : tensor<f32>
}

// -----

// Workspace counts at its op's point (attention_grad's buffers in the CPU
// lowering: the scores and dP, 4*(1*2*4*4) each, and the row sums
// 4*(1*2*4): 288 B), as temporary; a use
// inside a nested region extends the live range to the enclosing op; bf16
// takes 2 bytes, i1 masks 1 byte.
// CHECK-LABEL: func @workspace_and_regions
// CHECK:         arg6: 32 bytes, input, live [0, 1]
// CHECK:         a#0: 256 bytes, temporary, live [0, 2]
// CHECK:         m#1: 8 bytes, temporary, live [1, 1]
// Point 0: five 256 B inputs, lse and the mask input (32 B each), three
// 256 B gradients and the 288 B workspace: 2400.
// CHECK:         {{^ *}}0 train.attention_grad: 2400 (workspace 288)
// CHECK:         {{^ *}}2 scf.execute_region:
func.func @workspace_and_regions(%g: tensor<1x2x4x8xf32>, %q: tensor<1x2x4x8xf32>, %k: tensor<1x2x4x8xf32>, %v: tensor<1x2x4x8xf32>, %o: tensor<1x2x4x8xf32>, %lse: tensor<1x2x4xf32>, %b: tensor<8xf32>) -> tensor<2x4x8xbf16> {
  %dq, %dk, %dv = train.attention_grad %g, %q, %k, %v, %o, %lse {scale = 0.5 : f64} : tensor<1x2x4x8xf32>, tensor<1x2x4x8xf32>, tensor<1x2x4x8xf32>, tensor<1x2x4x8xf32>, tensor<1x2x4x8xf32>, tensor<1x2x4xf32> -> tensor<1x2x4x8xf32>, tensor<1x2x4x8xf32>, tensor<1x2x4x8xf32> loc("a")
  %y, %m = train.dropout %b {rate = 0.5 : f64, id = 1 : i64} : tensor<8xf32> -> tensor<8xf32>, tensor<8xi1> loc("m")
  %r = scf.execute_region -> tensor<2x4x8xbf16> {
    %c = train.reshape %dq : tensor<1x2x4x8xf32> -> tensor<2x4x8xf32>
    %d = train.cast %c : tensor<2x4x8xf32> -> tensor<2x4x8xbf16>
    scf.yield %d : tensor<2x4x8xbf16>
  }
  return %r : tensor<2x4x8xbf16>
}

// -----

// Constants of one type and value share one global once lowered
// (bufferization keeps one per distinct value), so the first counts its
// bytes and the others none, whatever their other attributes: a Llama's
// layers each compute the same rotary tables. A constant that differs in
// one element, or in its type, has storage of its own. Before, each counted
// 32 bytes and mem-run measured fewer input bytes than predicted
// (Integration/mem-run-identical-constants.mlir).
// CHECK-LABEL: func @identical_constants
// CHECK:         layer0.table: 32 bytes, input, live [0, 1]{{$}}
// CHECK-NEXT:    train.mul@1: 32 bytes, temporary
// CHECK-NEXT:    layer1.table: 0 bytes, input, live [2, 3], shares an identical constant's storage{{$}}
// CHECK-NEXT:    train.mul@3: 32 bytes, temporary
// CHECK-NEXT:    other: 32 bytes, input, live [4, 5]{{$}}
// CHECK-NEXT:    train.mul@5: 32 bytes, temporary
// CHECK-NEXT:    wide: 64 bytes, input, live [6, 8]{{$}}
func.func @identical_constants(%x: tensor<2x4xf32>) -> tensor<2x4xf64> {
  %t0 = arith.constant {train.layer = "layer0"} dense<[[1.0, 2.0, 3.0, 4.0], [5.0, 6.0, 7.0, 8.0]]> : tensor<2x4xf32> loc("layer0.table")
  %a = train.mul %x, %t0 : tensor<2x4xf32>
  %t1 = arith.constant {train.layer = "layer1"} dense<[[1.0, 2.0, 3.0, 4.0], [5.0, 6.0, 7.0, 8.0]]> : tensor<2x4xf32> loc("layer1.table")
  %b = train.mul %a, %t1 : tensor<2x4xf32>
  %t2 = arith.constant dense<[[1.0, 2.0, 3.0, 4.0], [5.0, 6.0, 7.0, 9.0]]> : tensor<2x4xf32> loc("other")
  %c = train.mul %b, %t2 : tensor<2x4xf32>
  %t3 = arith.constant dense<[[1.0, 2.0, 3.0, 4.0], [5.0, 6.0, 7.0, 8.0]]> : tensor<2x4xf64> loc("wide")
  %d = train.cast %c : tensor<2x4xf32> -> tensor<2x4xf64>
  %e = train.mul %d, %t3 : tensor<2x4xf64>
  return %e : tensor<2x4xf64>
}
