// RUN: mem-opt %s --test-print-memory-plan=alignment=64 -o /dev/null | FileCheck %s
// The first run preserves the TensorLiveness analysis; the second, reading
// it from the cache, prints the same plan:
// RUN: mem-opt %s --test-print-memory-plan=alignment=64 --test-print-memory-plan=alignment=64 -o /dev/null | grep -c 'arena = 320, load = 320' | FileCheck %s --check-prefix=TWICE
// TWICE: {{^}}2{{$}}
// RUN: not mem-opt %s --test-print-memory-plan=alignment=3 -o /dev/null 2>&1 | FileCheck %s --check-prefix=ALIGN
// ALIGN: error: test-print-memory-plan: alignment 3 is not a positive power of two{{$}}
// ALIGN-NOT: see current operation

// Points: 0 param w, 1 y = x * w, 2 p = softmax(y) (workspace: two 16-byte
// row buffers, each aligned to 64), 3 loss, 4 return. Lifetimes are
// half-open: a buffer defined at d and last used at u lives over [d, u+1).
// The persistent w sits at 0; at point 2, y, p and the workspace are live
// (64 + 64 + 128 bytes above the 64 persistent ones): LOAD = 320, and the
// arena meets it (the planner is deterministic: arg0 and p, y and loss
// share their bytes at disjoint times).
// CHECK-LABEL: func @step
// CHECK-NEXT:    arg0: size = 64, liveness = [0, 2), offset = 64{{$}}
// CHECK-NEXT:    w: size = 64, liveness = [0, 5), offset = 0, persistent{{$}}
// CHECK-NEXT:    y: size = 64, liveness = [1, 3), offset = 128{{$}}
// CHECK-NEXT:    p: size = 64, liveness = [2, 4), offset = 64{{$}}
// CHECK-NEXT:    loss: size = 4, liveness = [3, 5), offset = 128{{$}}
// CHECK-NEXT:    workspace of train.softmax at 2: size = 128, liveness = [2, 3), offset = 192{{$}}
// CHECK-NEXT:    arena = 320, load = 320, persistent = 64{{$}}
func.func @step(%x: tensor<4x4xf32>) -> tensor<f32> {
  %w = train.param "w" : tensor<4x4xf32> loc("w")
  %y = train.mul %x, %w : tensor<4x4xf32> loc("y")
  %p = train.softmax %y : tensor<4x4xf32> loc("p")
  %l = train.reduce_sum %p {dims = array<i64: 0, 1>} : tensor<4x4xf32> -> tensor<f32> loc("loss")
  return %l : tensor<f32>
}

// A step with values in host memory: the device's arena holds the device
// values (x, the copy of w and y, all live at the mul), the host's arena,
// printed after it, the host parameter (persistent) and the copy of y.
// CHECK-LABEL: func @host
// CHECK-NEXT:    arg0: size = 64, liveness = [0, 3), offset = 0{{$}}
// CHECK-NEXT:    wd: size = 64, liveness = [1, 3), offset = 64{{$}}
// CHECK-NEXT:    y: size = 64, liveness = [2, 4), offset = 128{{$}}
// CHECK-NEXT:    arena = 192, load = 192, persistent = 0{{$}}
// CHECK-NEXT:    host arena:{{$}}
// CHECK-NEXT:    w: size = 64, liveness = [0, 5), offset = 0, persistent{{$}}
// CHECK-NEXT:    yh: size = 64, liveness = [3, 5), offset = 64{{$}}
// CHECK-NEXT:    host arena = 128, load = 128, persistent = 64{{$}}
func.func @host(%x: tensor<4x4xf32>) -> tensor<4x4xf32> {
  %w = train.param "w" {train.space = "host"} : tensor<4x4xf32> loc("w")
  %wd = train.to_device %w : tensor<4x4xf32> loc("wd")
  %y = train.mul %x, %wd : tensor<4x4xf32> loc("y")
  %yh = train.to_host %y : tensor<4x4xf32> loc("yh")
  return %yh : tensor<4x4xf32>
}
