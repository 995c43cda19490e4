// A chain x -> matmul (l.0) -> gelu (l.0) -> gelu (l.1) -> gelu (l.2) ->
// sum, differentiated with SGD. gelu's gradient reads its input, so the
// activations are h (the matmul), a and b (the first two gelus).
// RUN: mem-opt %s --train-autodiff=optimizer=sgd --train-lifetimes --train-remat=algorithm=none | FileCheck %s --check-prefix=NONE
// RUN: mem-opt %s --train-autodiff=optimizer=sgd --train-lifetimes --train-remat=algorithm=sqrt --train-verify-step | FileCheck %s --check-prefix=SQRT
// RUN: mem-opt %s --train-autodiff=optimizer=sgd --train-lifetimes --train-remat=algorithm=layers --train-verify-step | FileCheck %s --check-prefix=LAYERS
// RUN: mem-opt %s --train-autodiff=optimizer=sgd --train-lifetimes --train-remat='budget=950B time-limit=0 node-limit=100000' --train-verify-step | FileCheck %s --check-prefix=BUDGET
// auto says which algorithm it chose, and why.
// RUN: mem-opt %s --train-autodiff=optimizer=sgd --train-lifetimes --train-remat='budget=950B time-limit=0 node-limit=100000' -o /dev/null 2>&1 | FileCheck %s --check-prefix=AUTO
// RUN: mem-opt %s --train-autodiff=optimizer=sgd --train-lifetimes --train-remat -o /dev/null 2>&1 | FileCheck %s --check-prefix=AUTO-NONE
// AUTO: remark: train-remat: auto chose 'greedy': the least recompute (256 FLOPs) of the 4 candidates within the budget of 950 bytes; peak 900 bytes; optimal: the solver's model of 12 groups (5 forward) has no plan within 950 model bytes cheaper than 256 recomputed FLOPs (proven)
// AUTO-NONE: remark: train-remat: auto chose 'none': without a budget it keeps every activation (peak 1028 bytes)
// RUN: mem-opt %s --train-autodiff=optimizer=sgd --train-lifetimes --train-remat='budget=950B algorithm=optimal segments=5 time-limit=0 node-limit=100000' --train-verify-step 2>&1 | FileCheck %s --check-prefix=OPT
// RUN: mem-opt %s --train-autodiff=optimizer=sgd --train-lifetimes --train-remat='budget=800B algorithm=optimal segments=5 time-limit=0 node-limit=100000' --train-verify-step 2>&1 | FileCheck %s --check-prefix=OPT800
// RUN: mem-opt %s --train-autodiff=optimizer=sgd --train-lifetimes --train-remat='budget=950B algorithm=optimal segments=3 time-limit=0 node-limit=100000' --train-verify-step 2>&1 | FileCheck %s --check-prefix=OPT3

// Keeping everything changes nothing but the recorded decision; LOAD is
// 1028 bytes (liveness analysis).
// NONE: func.func @chain({{.*}} attributes {train.remat = {algorithm = "none"}, train.remat_flops = 0 : i64, train.remat_peak_after = 1028 : i64, train.remat_peak_before = 1028 : i64}
// NONE-COUNT-1: train.matmul %arg0, %w{{( {train.recomputed})?}} :

// sqrt: 3 activations, keep every ceil(sqrt(3)) = 2nd: a. b is recomputed
// from a right before gelu_grad reads it, h from x and w before its own
// gelu_grad: a gelu (32 elements x 8 FLOPs = 256) and a matmul (2*4*8*8 =
// 512): 768 FLOPs; each recomputed value is freed after its use.
// SQRT:      func.func @chain({{.*}} attributes {train.remat = {algorithm = "sqrt"}, train.remat_flops = 768 : i64, train.remat_peak_after = 900 : i64, train.remat_peak_before = 1028 : i64}
// SQRT:      %[[H:.*]] = train.matmul %arg0, %w
// SQRT-NEXT: %[[A:.*]] = train.gelu %[[H]]
// SQRT-NEXT: train.free %[[H]]
// SQRT-NEXT: %[[B:.*]] = train.gelu %[[A]]
// SQRT:      %[[B2:.*]] = train.gelu %[[A]]
// SQRT-NEXT: %[[DB:.*]] = train.gelu_grad %{{.*}}, %[[B2]]
// SQRT:      %[[DA:.*]] = train.gelu_grad %[[DB]], %[[A]]
// SQRT-NEXT: train.free %[[A]]
// SQRT:      %[[H2:.*]] = train.matmul %arg0, %w
// SQRT-NEXT: train.gelu_grad %[[DA]], %[[H2]]

// layers: layer l.0's output a is read by l.1, b (l.1) by l.2: boundaries,
// kept; h is internal to l.0 and recomputed (512 FLOPs).
// LAYERS:      train.remat_flops = 512 : i64
// LAYERS-COUNT-2: train.matmul %arg0, %w{{( {train.recomputed})?}} :
// LAYERS-NOT:  train.matmul %arg0, %w{{( {train.recomputed})?}} :

// A budget of 950 bytes: keeping everything (1028) does not fit; the
// cheapest candidate that does recomputes only b (one gelu: 256 FLOPs).
// BUDGET: train.remat = {algorithm = "{{[a-z]+}}", budget = 950 : i64}, train.remat_flops = 256 : i64, train.remat_peak_after = 900 : i64

// optimal: the MILP over groups of ops (5 forward segments: one op each
// here) looks for plans cheaper than greedy's 256 FLOPs at 950 bytes and
// proves there is none in its model; greedy's keep-set answers, and the
// remark says so.
// OPT: remark: train-remat: optimal: greedy's keep-set (256 recomputed FLOPs) answers: the solver's model of 10 groups (5 forward) has no plan within 950 model bytes cheaper than 256 recomputed FLOPs (proven)
// OPT: train.remat_flops = 256 : i64, train.remat_peak_after = 900 : i64
// At 800 bytes no keep-set fits (the least any reaches is 900 bytes, see
// train-remat-invalid.mlir), so greedy has no answer and bounds nothing:
// optimal recomputes h twice and a once (two matmuls of 512 FLOPs and a
// gelu of 256), reaches 772 bytes and proves it optimal in its model (the
// record keeps the solver's gap, 0).
// OPT800: remark: train-remat: optimal: optimal over 10 groups (5 forward), model recompute 1.280e+03 FLOPs, gap 0.0000
// OPT800: train.remat = {algorithm = "optimal", budget = 800 : i64, gap = 0.000000e+00 : f64}, train.remat_flops = 1280 : i64, train.remat_peak_after = 772 : i64
// OPT800-COUNT-3: train.matmul %arg0, %w{{( {train.recomputed})?}} :
// With 3 coarser segments a recomputation redoes a whole segment (768
// FLOPs at best): optimal never answers worse than greedy, whose keep-set
// answers.
// OPT3: remark: train-remat: optimal: greedy's keep-set (256 recomputed FLOPs) answers: the solver's model of 6 groups (3 forward) has no plan within 950 model bytes cheaper than 256 recomputed FLOPs (proven)
// OPT3: train.remat_flops = 256 : i64, train.remat_peak_after = 900 : i64
func.func @chain(%x: tensor<4x8xf32>) -> tensor<f32> {
  %w = train.param "w" : tensor<8x8xf32>
  %h = train.matmul %x, %w : tensor<4x8xf32>, tensor<8x8xf32> -> tensor<4x8xf32> loc("l.0.fc")
  %a = train.gelu %h : tensor<4x8xf32> loc("l.0.act")
  %b = train.gelu %a : tensor<4x8xf32> loc("l.1.act")
  %c = train.gelu %b : tensor<4x8xf32> loc("l.2.act")
  %loss = train.reduce_sum %c {dims = array<i64: 0, 1>} : tensor<4x8xf32> -> tensor<f32> loc("loss")
  return %loss : tensor<f32>
}
