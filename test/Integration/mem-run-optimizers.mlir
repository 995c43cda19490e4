// mem-run on a hand-written step that uses only ops lowered today (param,
// opt_state, relu, adam, sgd with momentum, and upstream linalg/arith):
//
//   loss = sum(relu(w) * x) + 0.5 * sum(b * b)
//   dw   = x where w > 0 (else 0)      -> Adam, lr 1e-2
//   db   = b                           -> SGD, lr 0.1, momentum 0.9
//
// The expected numbers come from pytorch/toy_step_exact.py, a float32 NumPy
// replica of the lowered arithmetic (pytorch/toy-step.test also compares the
// whole output with it and with PyTorch's optimizers).

// Three steps: the loss before each update, then the parameters after the
// last one, in order of first appearance.
// RUN: mem-run %s --steps 3 | FileCheck %s
// CHECK:      step 1: loss = -3.683296919e+00{{$}}
// CHECK-NEXT: step 2: loss = -3.845067263e+00{{$}}
// CHECK-NEXT: step 3: loss = -4.029186726e+00{{$}}
// CHECK-NEXT: param w: sum = 1.345229851e+00 sumsq = 4.149055958e+00{{$}}
// CHECK-NEXT: param b: sum = 9.102130141e-01 sumsq = 1.248416642e-01{{$}}
// CHECK-NEXT: params_checksum: 2.255442865e+00{{$}}
// CHECK-NOT:  {{.}}

// --pipeline runs passes on the module before lowering (with or without the
// builtin.module anchor); these leave the numbers unchanged.
// RUN: mem-run %s --steps 3 --pipeline='func.func(train-verify-step),canonicalize,cse' | FileCheck %s
// RUN: mem-run %s --steps 3 --pipeline='builtin.module(func.func(train-verify-step))' | FileCheck %s

// --steps 1 stops after the first update; the first loss does not depend on
// how many steps follow.
// RUN: mem-run %s --steps 1 | FileCheck %s --check-prefix=ONE
// ONE:      step 1: loss = -3.683296919e+00{{$}}
// ONE-NEXT: param w: sum = 1.060690183e+00 sumsq = 3.920914427e+00{{$}}

// --steps 0 prints the initial parameters: w is 4x8, amplitude 1/sqrt(4).
// RUN: mem-run %s --steps 0 | FileCheck %s --check-prefix=INIT
// INIT-NOT:  step
// INIT:      param w: sum = 9.206902748e-01 sumsq = 3.812174134e+00{{$}}
// INIT-NEXT: param b: sum = 1.872866234e+00 sumsq = 5.285511004e-01{{$}}

// Runs are deterministic, and LLVM's optimization level changes no result
// (the lowering sets no fast-math flags): the same bytes at -O2 and -O0.
// RUN: mem-run %s --steps 2 --opt-level=2 > %t.a
// RUN: mem-run %s --steps 2 --opt-level=0 > %t.b
// RUN: diff %t.a %t.b

// What each input gets.
// RUN: mem-run %s --list-inputs | FileCheck %s --check-prefix=INPUTS
// INPUTS:      arg 0: tensor<4x8xf32> = formula, amplitude 1.000000000e+00{{$}}
// INPUTS-NEXT: arg 1: tensor<i64> = step number
// INPUTS-NEXT: param w: tensor<4x8xf32> = formula, amplitude 5.000000000e-01{{$}}
// INPUTS-NEXT: param b: tensor<8xf32> = formula, amplitude 3.535533906e-01{{$}}
// INPUTS-NEXT: opt_state w.exp_avg: tensor<4x8xf32> = zeros
// INPUTS-NEXT: opt_state w.exp_avg_sq: tensor<4x8xf32> = zeros
// INPUTS-NEXT: opt_state b.momentum_buffer: tensor<8xf32> = zeros
// INPUTS-NOT:  seed

func.func @step(%x: tensor<4x8xf32>, %t: tensor<i64>) -> tensor<f32> {
  %w = train.param "w" : tensor<4x8xf32>
  %b = train.param "b" : tensor<8xf32>
  %m = train.opt_state "w.exp_avg" : tensor<4x8xf32>
  %v = train.opt_state "w.exp_avg_sq" : tensor<4x8xf32>
  %buf = train.opt_state "b.momentum_buffer" : tensor<8xf32>
  %a = train.relu %w : tensor<4x8xf32>
  %zero = arith.constant 0.0 : f32
  %half = arith.constant 0.5 : f32
  %e0 = tensor.empty() : tensor<f32>
  %acc = linalg.fill ins(%zero : f32) outs(%e0 : tensor<f32>) -> tensor<f32>
  %l1 = linalg.generic {indexing_maps = [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> ()>], iterator_types = ["reduction", "reduction"]} ins(%a, %x : tensor<4x8xf32>, tensor<4x8xf32>) outs(%acc : tensor<f32>) {
  ^bb0(%ai: f32, %xi: f32, %s: f32):
    %p = arith.mulf %ai, %xi : f32
    %r = arith.addf %s, %p : f32
    linalg.yield %r : f32
  } -> tensor<f32>
  %loss = linalg.generic {indexing_maps = [affine_map<(i) -> (i)>, affine_map<(i) -> ()>], iterator_types = ["reduction"]} ins(%b : tensor<8xf32>) outs(%l1 : tensor<f32>) {
  ^bb0(%bi: f32, %s: f32):
    %sq = arith.mulf %bi, %bi : f32
    %h = arith.mulf %sq, %half : f32
    %r = arith.addf %s, %h : f32
    linalg.yield %r : f32
  } -> tensor<f32>
  %eg = tensor.empty() : tensor<4x8xf32>
  %g = linalg.generic {indexing_maps = [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (i, j)>], iterator_types = ["parallel", "parallel"]} ins(%a, %x : tensor<4x8xf32>, tensor<4x8xf32>) outs(%eg : tensor<4x8xf32>) {
  ^bb0(%ai: f32, %xi: f32, %o: f32):
    %c = arith.cmpf ogt, %ai, %zero : f32
    %r = arith.select %c, %xi, %zero : f32
    linalg.yield %r : f32
  } -> tensor<4x8xf32>
  train.adam %w, %g, %m, %v step(%t : tensor<i64>) {lr = 1.000000e-02 : f64} : tensor<4x8xf32>, tensor<4x8xf32>, tensor<4x8xf32>, tensor<4x8xf32>
  train.sgd %b, %b momentum(%buf : tensor<8xf32>) {lr = 1.000000e-01 : f64, momentum = 9.000000e-01 : f64} : tensor<8xf32>, tensor<8xf32>
  return %loss : tensor<f32>
}
