// --steps, --seed and the per-step line: the first 0-d float result is the
// loss, every other 0-d result follows as result<k>. The step returns copies
// of the seed global and of its step-count argument, and sum(w), sum(w*w)
// before Adam updates w (lr 0.1, gradient w).

// The numbers are those of a float32 NumPy replica (Adam as in
// pytorch/toy_step_exact.py) from w's initial value, 3 elements of amplitude
// 1/sqrt(3): [-0.37907997, -0.19595495, 0.01369166].
// RUN: mem-run %s --steps 3 --seed 42 | FileCheck %s
// CHECK:      step 1: loss = -5.613432527e-01 result1 = 1.822874248e-01 result2 = 42 result3 = 1{{$}}
// CHECK-NEXT: step 2: loss = -4.613431692e-01 result1 = 9.454210103e-02 result2 = 42 result3 = 2{{$}}
// CHECK-NEXT: step 3: loss = -2.073473930e-01 result1 = 3.331268951e-02 result2 = 42 result3 = 3{{$}}
// CHECK-NEXT: param w: sum = 2.258428931e-02 sumsq = 1.409089223e-02{{$}}
// CHECK-NEXT: params_checksum: 2.258428931e-02{{$}}
// CHECK-NOT:  {{.}}

// --steps 2 runs two steps; the default seed is 0.
// RUN: mem-run %s --steps 2 | FileCheck %s --check-prefix=TWO
// TWO:      step 1: loss = -5.613432527e-01 result1 = 1.822874248e-01 result2 = 0 result3 = 1{{$}}
// TWO-NEXT: step 2: loss = -4.613431692e-01 result1 = 9.454210103e-02 result2 = 0 result3 = 2{{$}}
// TWO-NEXT: param w: sum = -2.073473856e-01 sumsq =

// Negative seeds are stored as they are.
// RUN: mem-run %s --steps 1 --seed=-7 | FileCheck %s --check-prefix=NEG
// NEG: step 1: loss = {{.*}} result2 = -7 result3 = 1{{$}}

// --list-inputs shows the seed only because the module declares its global.
// RUN: mem-run %s --list-inputs --seed 5 | FileCheck %s --check-prefix=INPUTS
// INPUTS:      arg 0: tensor<i64> = step number
// INPUTS-NEXT: param w: tensor<3xf32> = formula, amplitude 5.773502692e-01{{$}}
// INPUTS-NEXT: opt_state w.m: tensor<3xf32> = zeros
// INPUTS-NEXT: opt_state w.v: tensor<3xf32> = zeros
// INPUTS-NEXT: seed: 5{{$}}

memref.global @__train_seed : memref<i64> = uninitialized

#id = affine_map<(i) -> (i)>
#to0 = affine_map<(i) -> ()>
#s = affine_map<() -> ()>

func.func @step(%t: tensor<i64>) -> (tensor<f32>, tensor<f32>, tensor<i64>, tensor<i64>) {
  %w = train.param "w" : tensor<3xf32>
  %m = train.opt_state "w.m" : tensor<3xf32>
  %v = train.opt_state "w.v" : tensor<3xf32>
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<f32>
  %acc = linalg.fill ins(%zero : f32) outs(%e : tensor<f32>) -> tensor<f32>
  %sum = linalg.generic {indexing_maps = [#id, #to0], iterator_types = ["reduction"]} ins(%w : tensor<3xf32>) outs(%acc : tensor<f32>) {
  ^bb0(%x: f32, %a: f32):
    %r = arith.addf %a, %x : f32
    linalg.yield %r : f32
  } -> tensor<f32>
  %e2 = tensor.empty() : tensor<f32>
  %acc2 = linalg.fill ins(%zero : f32) outs(%e2 : tensor<f32>) -> tensor<f32>
  %sq = linalg.generic {indexing_maps = [#id, #to0], iterator_types = ["reduction"]} ins(%w : tensor<3xf32>) outs(%acc2 : tensor<f32>) {
  ^bb0(%x: f32, %a: f32):
    %x2 = arith.mulf %x, %x : f32
    %r = arith.addf %a, %x2 : f32
    linalg.yield %r : f32
  } -> tensor<f32>
  train.adam %w, %w, %m, %v step(%t : tensor<i64>) {lr = 1.000000e-01 : f64} : tensor<3xf32>, tensor<3xf32>, tensor<3xf32>, tensor<3xf32>
  %g = memref.get_global @__train_seed : memref<i64>
  %seed = bufferization.to_tensor %g restrict : memref<i64> to tensor<i64>
  %e3 = tensor.empty() : tensor<i64>
  %seed_copy = linalg.copy ins(%seed : tensor<i64>) outs(%e3 : tensor<i64>) -> tensor<i64>
  %e4 = tensor.empty() : tensor<i64>
  %t_copy = linalg.copy ins(%t : tensor<i64>) outs(%e4 : tensor<i64>) -> tensor<i64>
  return %sum, %sq, %seed_copy, %t_copy : tensor<f32>, tensor<f32>, tensor<i64>, tensor<i64>
}
