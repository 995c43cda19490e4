// Revolve's uniform chain through the pass: x_p = gelu(x_{p-1}) for p = 1..10
// (layers l.1 .. l.10, 128 bytes each; gelu's gradient reads only its
// input), then a sum. With s checkpoints the exact peak is 388 + 128 s bytes
// (w, the loss, s states held, two gradients) and `chain` recomputes exactly
// t(10, s) - 9 gelus of 256 FLOPs, revolve's closed form (REFERENCE.md):
// s = 1..9 -> 36, 11, 6, 5, 4, 3, 2, 1, 0.
// RUN: mem-opt %s --train-autodiff=optimizer=sgd --train-lifetimes --train-remat='budget=516 algorithm=chain' --train-verify-step 2>&1 | FileCheck %s --check-prefix=S1
// RUN: mem-opt %s --train-autodiff=optimizer=sgd --train-lifetimes --train-remat='budget=644 algorithm=chain' --train-verify-step 2>&1 | FileCheck %s --check-prefix=S2
// RUN: mem-opt %s --train-autodiff=optimizer=sgd --train-lifetimes --train-remat='budget=772 algorithm=chain' --train-verify-step 2>&1 | FileCheck %s --check-prefix=S3
// RUN: mem-opt %s --train-autodiff=optimizer=sgd --train-lifetimes --train-remat='budget=900 algorithm=chain' --train-verify-step 2>&1 | FileCheck %s --check-prefix=S4
// RUN: mem-opt %s --train-autodiff=optimizer=sgd --train-lifetimes --train-remat='budget=1028 algorithm=chain' --train-verify-step 2>&1 | FileCheck %s --check-prefix=S5
// RUN: mem-opt %s --train-autodiff=optimizer=sgd --train-lifetimes --train-remat='budget=1156 algorithm=chain' --train-verify-step 2>&1 | FileCheck %s --check-prefix=S6
// RUN: mem-opt %s --train-autodiff=optimizer=sgd --train-lifetimes --train-remat='budget=1284 algorithm=chain' --train-verify-step 2>&1 | FileCheck %s --check-prefix=S7
// RUN: mem-opt %s --train-autodiff=optimizer=sgd --train-lifetimes --train-remat='budget=1412 algorithm=chain' --train-verify-step 2>&1 | FileCheck %s --check-prefix=S8
// RUN: mem-opt %s --train-autodiff=optimizer=sgd --train-lifetimes --train-remat='budget=1540 algorithm=chain' --train-verify-step 2>&1 | FileCheck %s --check-prefix=S9
// One byte less than a peak needs one checkpoint less (899 bytes, one less than the peak with s = 4, gets s = 3).
// RUN: mem-opt %s --train-autodiff=optimizer=sgd --train-lifetimes --train-remat='budget=899 algorithm=chain' 2>&1 | FileCheck %s --check-prefix=S3

// `optimal` (Checkmate's MILP, one group per layer) proves the same optimum:
// at 772 bytes with its own plan; at 1028 bytes greedy's keep-set already
// reaches it, the MILP proves nothing cheaper, and greedy's answer stands.
// RUN: mem-opt %s --train-autodiff=optimizer=sgd --train-lifetimes --train-remat='budget=772 algorithm=optimal segments=11 time-limit=0 node-limit=100000' 2>&1 | FileCheck %s --check-prefix=OPT3
// RUN: mem-opt %s --train-autodiff=optimizer=sgd --train-lifetimes --train-remat='budget=1028 algorithm=optimal segments=11 time-limit=0 node-limit=100000' 2>&1 | FileCheck %s --check-prefix=OPT5
// node-limit bounds the branch and bound by work: one node finds a schedule
// (1792 FLOPs, above the optimum of 1536 that more nodes prove) and reports
// its gap to CBC's bound (the same on any machine).
// RUN: mem-opt %s --train-autodiff=optimizer=sgd --train-lifetimes --train-remat='budget=772 algorithm=optimal segments=11 time-limit=0 node-limit=1' -o /dev/null 2>&1 | FileCheck %s --check-prefix=NODE1
// NODE1: remark: train-remat: optimal: feasible over 22 groups (11 forward), model recompute 1.792e+03 FLOPs, gap 0.2684
// `auto` at s = 2 includes the chain candidate, the cheapest here.
// Work limits, not wall-clock time, bound the solver (time-limit=0 turns the
// wall clock off), so the outcome does not depend on the machine's load.
// RUN: mem-opt %s --train-autodiff=optimizer=sgd --train-lifetimes --train-remat='budget=644 time-limit=0 node-limit=1000' 2>&1 | FileCheck %s --check-prefix=AUTO

// S1: remark: train-remat: chain: optimal over a chain of 11 layers, model recompute 9.216e+03 FLOPs
// S1: train.remat_flops = 9216 : i64, train.remat_peak_after = 516 : i64
// S1-COUNT-46: train.gelu %
// S1-NOT: train.gelu %
// S2: remark: train-remat: chain: optimal over a chain of 11 layers, model recompute 2.816e+03 FLOPs
// S2: train.remat_flops = 2816 : i64, train.remat_peak_after = 644 : i64
// S2-COUNT-21: train.gelu %
// S2-NOT: train.gelu %
// S3: remark: train-remat: chain: optimal over a chain of 11 layers, model recompute 1.536e+03 FLOPs
// S3: train.remat_flops = 1536 : i64, train.remat_peak_after = 772 : i64
// S3-COUNT-16: train.gelu %
// S3-NOT: train.gelu %
// S4: remark: train-remat: chain: optimal over a chain of 11 layers, model recompute 1.280e+03 FLOPs
// S4: train.remat_flops = 1280 : i64, train.remat_peak_after = 900 : i64
// S4-COUNT-15: train.gelu %
// S4-NOT: train.gelu %
// S5: remark: train-remat: chain: optimal over a chain of 11 layers, model recompute 1.024e+03 FLOPs
// S5: train.remat_flops = 1024 : i64, train.remat_peak_after = 1028 : i64
// S5-COUNT-14: train.gelu %
// S5-NOT: train.gelu %
// S6: remark: train-remat: chain: optimal over a chain of 11 layers, model recompute 7.680e+02 FLOPs
// S6: train.remat_flops = 768 : i64, train.remat_peak_after = 1156 : i64
// S6-COUNT-13: train.gelu %
// S6-NOT: train.gelu %
// S7: remark: train-remat: chain: optimal over a chain of 11 layers, model recompute 5.120e+02 FLOPs
// S7: train.remat_flops = 512 : i64, train.remat_peak_after = 1284 : i64
// S7-COUNT-12: train.gelu %
// S7-NOT: train.gelu %
// S8: remark: train-remat: chain: optimal over a chain of 11 layers, model recompute 2.560e+02 FLOPs
// S8: train.remat_flops = 256 : i64, train.remat_peak_after = 1412 : i64
// S8-COUNT-11: train.gelu %
// S8-NOT: train.gelu %
// S9: remark: train-remat: chain: optimal over a chain of 11 layers, model recompute 0.000e+00 FLOPs
// S9: train.remat_flops = 0 : i64, train.remat_peak_after = 1540 : i64
// S9-COUNT-10: train.gelu %
// S9-NOT: train.gelu %

// OPT3: remark: train-remat: optimal: optimal over 22 groups (11 forward), model recompute 1.536e+03 FLOPs, gap 0.0000
// OPT3: train.remat_flops = 1536 : i64, train.remat_peak_after = 772 : i64
// OPT5: remark: train-remat: optimal: greedy's keep-set (1024 recomputed FLOPs) answers: the solver's model of 22 groups (11 forward) has no plan within 1028 model bytes cheaper than 1024 recomputed FLOPs (proven)
// OPT5: train.remat_flops = 1024 : i64, train.remat_peak_after = 1028 : i64

// AUTO: remark: train-remat: auto chose 'chain': the least recompute (2816 FLOPs) of the {{[0-9]+}} candidates within the budget of 644 bytes; peak 644 bytes
// AUTO: remark: train-remat: chain: optimal over a chain of 11 layers
// AUTO: train.remat_flops = 2816 : i64, train.remat_peak_after = 644 : i64
func.func @chain() -> tensor<f32> {
  %x0 = train.param "w" : tensor<4x8xf32>
  %x1 = train.gelu %x0 : tensor<4x8xf32> loc("l.1")
  %x2 = train.gelu %x1 : tensor<4x8xf32> loc("l.2")
  %x3 = train.gelu %x2 : tensor<4x8xf32> loc("l.3")
  %x4 = train.gelu %x3 : tensor<4x8xf32> loc("l.4")
  %x5 = train.gelu %x4 : tensor<4x8xf32> loc("l.5")
  %x6 = train.gelu %x5 : tensor<4x8xf32> loc("l.6")
  %x7 = train.gelu %x6 : tensor<4x8xf32> loc("l.7")
  %x8 = train.gelu %x7 : tensor<4x8xf32> loc("l.8")
  %x9 = train.gelu %x8 : tensor<4x8xf32> loc("l.9")
  %x10 = train.gelu %x9 : tensor<4x8xf32> loc("l.10")
  %loss = train.reduce_sum %x10 {dims = array<i64: 0, 1>} : tensor<4x8xf32> -> tensor<f32> loc("loss")
  return %loss : tensor<f32>
}
