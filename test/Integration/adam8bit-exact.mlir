// train.adam8bit / train.adamw8bit on the CPU, bit for bit against an
// independent NumPy reference (pytorch/adam8bit_ref.py, written from the
// ops' definitions and bitsandbytes'; pytorch/adam8bit_check.py drives it):
// after each of 3 steps, every code and absmax of the four 8-bit states of
// each parameter, the 32-bit Adam states of the small one, the parameters
// and the loss must equal the reference's exactly (no tolerance: a code one
// index off, or an absmax or a parameter one bit off, fails).
//
// The step below (hand-written, so that the reference can replicate every
// f32 operation of it) trains three parameters:
//   w: 3x1700 = 5100 elements, 8-bit Adam with L2 weight decay 0.05: two
//      full blocks of 2048 and a partial one of 1004, flattened across rows
//      (a block starts inside row 1);
//   u: 4096 elements, exactly 2 blocks (bitsandbytes' min_8bit_size), 8-bit
//      AdamW with weight decay 0.1; its second block's gradient is 0, so
//      that block's moments stay 0 (absmax 0: the zero-block rule) while
//      the decay moves its parameters;
//   b: 64 elements, 32-bit train.adam (what train-autodiff gives a tensor
//      below 4096 elements).
//   loss = sum 0.5 (w - x)^2 + sum 0.5 (u - y)^2 + sum 0.5 b^2, reduced in
//   row-major order; grad w = w - x, grad u = u - y (first block only),
//   grad b = b.
//
// DEFINE: %{states} = w.exp_avg.codes,w.exp_avg.absmax,w.exp_avg_sq.codes,w.exp_avg_sq.absmax,u.exp_avg.codes,u.exp_avg.absmax,u.exp_avg_sq.codes,u.exp_avg_sq.absmax,b.exp_avg,b.exp_avg_sq
// RUN: rm -rf %t && mkdir -p %t
// RUN: mem-run %s --func step --steps 1 --save-params %t/params.1.st > /dev/null
// RUN: mem-run %s --func step --steps 2 --save-params %t/params.2.st > /dev/null
// RUN: mem-run %s --func step --steps 3 --save-params %t/params.3.st --print-state=%{states} > %t/run.txt
// RUN: %python %S/pytorch/adam8bit_check.py %t/run.txt %t/params 3 | FileCheck %s
// LLVM's optimization level changes no bit (no fast-math flags, no
// contraction into fused multiply-adds):
// RUN: mem-run %s --func step --steps 3 --opt-level=0 --print-state=%{states} > %t/run.O0.txt
// RUN: diff %t/run.txt %t/run.O0.txt
//
// CHECK:      step 1: loss identical
// CHECK-NEXT: step 1: w: 3 blocks, codes (exp_avg, exp_avg_sq) identical, absmax identical, param identical
// CHECK-NEXT: step 1: u: 2 blocks, codes (exp_avg, exp_avg_sq) identical, absmax identical, param identical
// CHECK-NEXT: step 1: b: exp_avg, exp_avg_sq identical, param identical
// CHECK:      step 3: loss identical
// CHECK-NEXT: step 3: w: 3 blocks, codes (exp_avg, exp_avg_sq) identical, absmax identical, param identical
// CHECK-NEXT: step 3: u: 2 blocks, codes (exp_avg, exp_avg_sq) identical, absmax identical, param identical
// CHECK-NEXT: step 3: b: exp_avg, exp_avg_sq identical, param identical
// The comparison is not vacuous: the codes spread over the maps, u's second
// block keeps absmax 0 and code 127 / 0 (the maps' zeros), and its
// parameters still move (decay).
// CHECK-NEXT: w.exp_avg codes: {{[0-9][0-9]+}} distinct values
// CHECK-NEXT: w.exp_avg_sq codes: {{[0-9][0-9]+}} distinct values
// CHECK-NEXT: u block 1: absmax 0 0, codes {127} {0}, param changed

func.func @step(%x: tensor<3x1700xf32>, %y: tensor<4096xf32>, %t: tensor<i64>) -> tensor<f32> {
  %w = train.param "w" : tensor<3x1700xf32>
  %u = train.param "u" : tensor<4096xf32>
  %b = train.param "b" : tensor<64xf32>
  %wmc = train.opt_state "w.exp_avg.codes" : tensor<3x1700xi8>
  %wma = train.opt_state "w.exp_avg.absmax" : tensor<3xf32>
  %wvc = train.opt_state "w.exp_avg_sq.codes" : tensor<3x1700xi8>
  %wva = train.opt_state "w.exp_avg_sq.absmax" : tensor<3xf32>
  %umc = train.opt_state "u.exp_avg.codes" : tensor<4096xi8>
  %uma = train.opt_state "u.exp_avg.absmax" : tensor<2xf32>
  %uvc = train.opt_state "u.exp_avg_sq.codes" : tensor<4096xi8>
  %uva = train.opt_state "u.exp_avg_sq.absmax" : tensor<2xf32>
  %bm = train.opt_state "b.exp_avg" : tensor<64xf32>
  %bv = train.opt_state "b.exp_avg_sq" : tensor<64xf32>
  %zero = arith.constant 0.0 : f32
  %half = arith.constant 0.5 : f32
  %e0 = tensor.empty() : tensor<f32>
  %acc = linalg.fill ins(%zero : f32) outs(%e0 : tensor<f32>) -> tensor<f32>
  %l1 = linalg.generic {indexing_maps = [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> ()>], iterator_types = ["reduction", "reduction"]} ins(%w, %x : tensor<3x1700xf32>, tensor<3x1700xf32>) outs(%acc : tensor<f32>) {
  ^bb0(%wi: f32, %xi: f32, %s: f32):
    %d = arith.subf %wi, %xi : f32
    %q = arith.mulf %d, %d : f32
    %h = arith.mulf %q, %half : f32
    %r = arith.addf %s, %h : f32
    linalg.yield %r : f32
  } -> tensor<f32>
  %l2 = linalg.generic {indexing_maps = [affine_map<(i) -> (i)>, affine_map<(i) -> (i)>, affine_map<(i) -> ()>], iterator_types = ["reduction"]} ins(%u, %y : tensor<4096xf32>, tensor<4096xf32>) outs(%l1 : tensor<f32>) {
  ^bb0(%ui: f32, %yi: f32, %s: f32):
    %d = arith.subf %ui, %yi : f32
    %q = arith.mulf %d, %d : f32
    %h = arith.mulf %q, %half : f32
    %r = arith.addf %s, %h : f32
    linalg.yield %r : f32
  } -> tensor<f32>
  %loss = linalg.generic {indexing_maps = [affine_map<(i) -> (i)>, affine_map<(i) -> ()>], iterator_types = ["reduction"]} ins(%b : tensor<64xf32>) outs(%l2 : tensor<f32>) {
  ^bb0(%bi: f32, %s: f32):
    %q = arith.mulf %bi, %bi : f32
    %h = arith.mulf %q, %half : f32
    %r = arith.addf %s, %h : f32
    linalg.yield %r : f32
  } -> tensor<f32>
  %ew = tensor.empty() : tensor<3x1700xf32>
  %gw = linalg.generic {indexing_maps = [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (i, j)>], iterator_types = ["parallel", "parallel"]} ins(%w, %x : tensor<3x1700xf32>, tensor<3x1700xf32>) outs(%ew : tensor<3x1700xf32>) {
  ^bb0(%wi: f32, %xi: f32, %o: f32):
    %d = arith.subf %wi, %xi : f32
    linalg.yield %d : f32
  } -> tensor<3x1700xf32>
  %eu = tensor.empty() : tensor<4096xf32>
  %c2048 = arith.constant 2048 : index
  %gu = linalg.generic {indexing_maps = [affine_map<(i) -> (i)>, affine_map<(i) -> (i)>, affine_map<(i) -> (i)>], iterator_types = ["parallel"]} ins(%u, %y : tensor<4096xf32>, tensor<4096xf32>) outs(%eu : tensor<4096xf32>) {
  ^bb0(%ui: f32, %yi: f32, %o: f32):
    %i = linalg.index 0 : index
    %first = arith.cmpi ult, %i, %c2048 : index
    %d = arith.subf %ui, %yi : f32
    %g = arith.select %first, %d, %zero : f32
    linalg.yield %g : f32
  } -> tensor<4096xf32>
  train.adam8bit %w, %gw exp_avg(%wmc, %wma) exp_avg_sq(%wvc, %wva) step(%t : tensor<i64>) {lr = 1.000000e-02 : f64, weight_decay = 5.000000e-02 : f64}
      : tensor<3x1700xf32>, tensor<3x1700xf32>, tensor<3x1700xi8>, tensor<3xf32>, tensor<3x1700xi8>, tensor<3xf32>
  train.adamw8bit %u, %gu exp_avg(%umc, %uma) exp_avg_sq(%uvc, %uva) step(%t : tensor<i64>) {lr = 1.000000e-02 : f64, weight_decay = 1.000000e-01 : f64}
      : tensor<4096xf32>, tensor<4096xf32>, tensor<4096xi8>, tensor<2xf32>, tensor<4096xi8>, tensor<2xf32>
  train.adam %b, %b, %bm, %bv step(%t : tensor<i64>) {lr = 1.000000e-02 : f64} : tensor<64xf32>, tensor<64xf32>, tensor<64xf32>, tensor<64xf32>
  return %loss : tensor<f32>
}

// skip_if: a skipped update (loss scaling's inf/NaN check, or a micro-batch
// before the last) leaves the parameter and all four 8-bit states as they
// were, from non-zero states. @skip's gradient is x, except for +inf at
// element 0 on step 2, so train.any_nonfinite skips step 2 only: after it the
// codes and absmax values are those of step 1, and step 3's loss (the sum of
// s before its update, row-major) is step 2's; step 3 updates again. An
// update that ignored the flag would put inf into absmax and NaN into s; one
// that requantized the unchanged moments would move codes (a block whose
// largest |m| is negative requantizes to S[0] = -0.99296874, not -1).
// RUN: mem-run %s --func skip --steps 3 --print-state=s.exp_avg.codes,s.exp_avg.absmax,s.exp_avg_sq.codes,s.exp_avg_sq.absmax | FileCheck %s --check-prefix=SKIP
// SKIP: step 1: loss = [[LOSS1:[^ ]+]] s.exp_avg.codes = {{\[}}[[MC:[-0-9, ]+]]{{\]}} s.exp_avg.absmax = {{\[}}[[MA:[-0-9.e+, ]+]]{{\]}} s.exp_avg_sq.codes = {{\[}}[[VC:[-0-9, ]+]]{{\]}} s.exp_avg_sq.absmax = {{\[}}[[VA:[-0-9.e+, ]+]]{{\]}}{{$}}
// SKIP-NEXT: step 2: loss = [[LOSS2:[^ ]+]] s.exp_avg.codes = {{\[}}[[MC]]{{\]}} s.exp_avg.absmax = {{\[}}[[MA]]{{\]}} s.exp_avg_sq.codes = {{\[}}[[VC]]{{\]}} s.exp_avg_sq.absmax = {{\[}}[[VA]]{{\]}}{{$}}
// SKIP-NEXT: step 3: loss = [[LOSS2]] s.exp_avg.codes = {{.*}} s.exp_avg.absmax = {{\[[1-9]}}
// SKIP-NOT: nan
func.func @skip(%x: tensor<4096xf32>, %t: tensor<i64>) -> tensor<f32> {
  %s = train.param "s" : tensor<4096xf32>
  %mc = train.opt_state "s.exp_avg.codes" : tensor<4096xi8>
  %ma = train.opt_state "s.exp_avg.absmax" : tensor<2xf32>
  %vc = train.opt_state "s.exp_avg_sq.codes" : tensor<4096xi8>
  %va = train.opt_state "s.exp_avg_sq.absmax" : tensor<2xf32>
  %zero = arith.constant 0.0 : f32
  %inf = arith.constant 0x7F800000 : f32
  %c0 = arith.constant 0 : index
  %two = arith.constant 2 : i64
  %tv = tensor.extract %t[] : tensor<i64>
  %second = arith.cmpi eq, %tv, %two : i64
  %e0 = tensor.empty() : tensor<f32>
  %acc = linalg.fill ins(%zero : f32) outs(%e0 : tensor<f32>) -> tensor<f32>
  %loss = linalg.generic {indexing_maps = [affine_map<(i) -> (i)>, affine_map<(i) -> ()>], iterator_types = ["reduction"]} ins(%s : tensor<4096xf32>) outs(%acc : tensor<f32>) {
  ^bb0(%si: f32, %a: f32):
    %r = arith.addf %a, %si : f32
    linalg.yield %r : f32
  } -> tensor<f32>
  %e = tensor.empty() : tensor<4096xf32>
  %g = linalg.generic {indexing_maps = [affine_map<(i) -> (i)>, affine_map<(i) -> (i)>], iterator_types = ["parallel"]} ins(%x : tensor<4096xf32>) outs(%e : tensor<4096xf32>) {
  ^bb0(%xi: f32, %o: f32):
    %i = linalg.index 0 : index
    %first = arith.cmpi eq, %i, %c0 : index
    %bad = arith.andi %first, %second : i1
    %v = arith.select %bad, %inf, %xi : f32
    linalg.yield %v : f32
  } -> tensor<4096xf32>
  %found = train.any_nonfinite %g : tensor<4096xf32> -> tensor<i1>
  train.adam8bit %s, %g exp_avg(%mc, %ma) exp_avg_sq(%vc, %va) step(%t : tensor<i64>) skip_if(%found : tensor<i1>) {lr = 1.000000e-02 : f64}
      : tensor<4096xf32>, tensor<4096xf32>, tensor<4096xi8>, tensor<2xf32>, tensor<4096xi8>, tensor<2xf32>
  return %loss : tensor<f32>
}
