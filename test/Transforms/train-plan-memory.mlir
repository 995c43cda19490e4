// RUN: mem-opt --mlir-print-debuginfo=false %s -split-input-file --train-plan-memory --train-verify-plan | FileCheck %s
// Planning twice gives the same plan (the second run replaces the first).
// RUN: mem-opt --mlir-print-debuginfo=false %s -split-input-file --train-plan-memory --train-plan-memory --train-verify-plan | FileCheck %s

// A chain with one parameter, a view and a scalar result. Lifetimes (half-
// open, in program points): x [0, 2), a [1, 3), b [2, 5) (its view %r is
// read at 4), c [4, 6), s [5, 7); w is persistent. At 256-byte alignment
// every buffer takes one 256-byte slot and at most two are live at once
// besides w: LOAD = 256 + 2 * 256 = 768, and the plan reaches it. The
// persistent region [0, 256) holds w; the view gets no offset.
// CHECK-LABEL: func.func @chain(
// CHECK-SAME:    %{{.*}}: tensor<64xf32> {train.offset = 256 : i64})
// CHECK-SAME:    attributes {train.arena_bytes = 768 : i64, train.load_bytes = 768 : i64, train.persistent_bytes = 256 : i64, train.plan_alignment = 256 : i64}
// CHECK:         train.param "w" {train.offset = array<i64: 0>}
// CHECK:         train.add {{.*}} {train.offset = array<i64: 512>}
// CHECK:         train.relu {{.*}} {train.offset = array<i64: 256>}
// CHECK:         train.reshape
// CHECK-NOT:     train.offset
// CHECK-SAME:    -> tensor<8x8xf32>
// CHECK:         train.relu {{.*}} {train.offset = array<i64: 512>}
// CHECK:         train.reduce_sum {{.*}}train.offset = array<i64: 256>
func.func @chain(%x: tensor<64xf32>) -> tensor<f32> {
  %w = train.param "w" : tensor<64xf32>
  %a = train.add %x, %w : tensor<64xf32>
  %b = train.relu %a : tensor<64xf32>
  %r = train.reshape %b : tensor<64xf32> -> tensor<8x8xf32>
  %c = train.relu %r : tensor<8x8xf32>
  %s = train.reduce_sum %c {dims = array<i64: 0, 1>} : tensor<8x8xf32> -> tensor<f32>
  return %s : tensor<f32>
}

// -----

// Multi-result ops get one offset per result; an op's workspace (attention
// backward's scratch in the CPU lowering: the 4x4 score and dS matrices, 64
// bytes each, and the 4 row sums, 16 bytes) gets its own slot, live at its
// op only, with each scratch buffer at a 256-byte place: 3 x 256. Here: the
// q/k/v/o/do args (5 x 256), lse 256, three gradients 3 x 256 and the 768
// bytes of workspace are all live at the attention_grad: LOAD = 3072.
// CHECK-LABEL: func.func @workspace(
// CHECK-SAME:    train.arena_bytes = 3072 : i64, train.load_bytes = 3072 : i64, train.persistent_bytes = 0 : i64
// CHECK:         train.attention_grad {{.*}}train.offset = array<i64: {{[0-9]+}}, {{[0-9]+}}, {{[0-9]+}}>, train.workspace_offset = {{[0-9]+}} : i64
func.func @workspace(%q: tensor<1x1x4x8xf32>, %k: tensor<1x1x4x8xf32>,
                     %v: tensor<1x1x4x8xf32>, %o: tensor<1x1x4x8xf32>,
                     %lse: tensor<1x1x4xf32>, %do: tensor<1x1x4x8xf32>)
    -> (tensor<1x1x4x8xf32>, tensor<1x1x4x8xf32>, tensor<1x1x4x8xf32>) {
  %dq, %dk, %dv = train.attention_grad %do, %q, %k, %v, %o, %lse {scale = 0.5 : f64} : tensor<1x1x4x8xf32>, tensor<1x1x4x8xf32>, tensor<1x1x4x8xf32>, tensor<1x1x4x8xf32>, tensor<1x1x4x8xf32>, tensor<1x1x4xf32> -> tensor<1x1x4x8xf32>, tensor<1x1x4x8xf32>, tensor<1x1x4x8xf32>
  return %dq, %dk, %dv : tensor<1x1x4x8xf32>, tensor<1x1x4x8xf32>, tensor<1x1x4x8xf32>
}

// -----

// Values in host memory (train-offload: train.space = "host" and the
// train.to_host copies) get a second arena, the host's, planned apart: its
// persistent region holds the host parameter w, its planned region the copy
// %ah and the host op's result %b (live together at the relu): 256 + 2 x
// 256 = 768. The device's arena holds the device values only (x, the copy of
// w and a are live together at the add: 768), so the two arenas reuse the
// same offsets.
// CHECK-LABEL: func.func @host(
// CHECK-SAME:    train.arena_bytes = 768 : i64, train.host_arena_bytes = 768 : i64, train.host_load_bytes = 768 : i64, train.host_persistent_bytes = 256 : i64, train.load_bytes = 768 : i64, train.persistent_bytes = 0 : i64
// CHECK:         train.param "w" {train.offset = array<i64: 0>, train.space = "host"}
// CHECK:         train.to_device {{.*}}train.offset = array<i64: [[WD:[0-9]+]]>
// CHECK:         train.add {{.*}}train.offset = array<i64: [[A:[0-9]+]]>
// CHECK:         train.to_host {{.*}}train.offset = array<i64: [[AH:256|512]]>
// CHECK:         train.relu {{.*}}train.offset = array<i64: [[B:256|512]]>, train.space = "host"
func.func @host(%x: tensor<64xf32>) -> tensor<f32> {
  %w = train.param "w" {train.space = "host"} : tensor<64xf32>
  %wd = train.to_device %w : tensor<64xf32>
  %a = train.add %x, %wd : tensor<64xf32>
  %ah = train.to_host %a : tensor<64xf32>
  %b = train.relu %ah {train.space = "host"} : tensor<64xf32>
  %bd = train.to_device %b : tensor<64xf32>
  %s = train.reduce_sum %bd {dims = array<i64: 0>} : tensor<64xf32> -> tensor<f32>
  return %s : tensor<f32>
}
