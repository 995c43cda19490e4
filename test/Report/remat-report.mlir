// The report shows what train-remat decided: the peak before and after, the
// ops it inserted (marked train.recomputed) and their FLOPs, also as the
// share of the step's other FLOPs (the extra time of a compute-bound step).
// The step: x -> matmul -> gelu -> gelu -> gelu -> sum with SGD, as in
// test/Transforms/train-remat.mlir; sqrt recomputes one gelu (256 FLOPs)
// and the matmul (512): 768 of 3936 FLOPs, 768 / 3168 = 24.24% more.
// RUN: mem-opt --mlir-print-debuginfo=false %s --train-autodiff=optimizer=sgd --train-lifetimes --train-remat=algorithm=sqrt --train-memory-report=format=text -o /dev/null | FileCheck %s --check-prefix=TEXT
// RUN: mem-opt --mlir-print-debuginfo=false %s --train-autodiff=optimizer=sgd --train-lifetimes --train-remat=algorithm=sqrt --train-memory-report=format=json -o /dev/null | FileCheck %s --check-prefix=JSON
// RUN: mem-opt --mlir-print-debuginfo=false %s --train-autodiff=optimizer=sgd --train-lifetimes --train-remat=algorithm=sqrt --train-memory-report=format=html -o /dev/null | FileCheck %s --check-prefix=HTML
// The JSON passes the schema check (remat keys, by_op sums, peak_after is
// the LOAD).
// RUN: mem-opt --mlir-print-debuginfo=false %s --train-autodiff=optimizer=sgd --train-lifetimes --train-remat=algorithm=sqrt --train-memory-report=format=json -o /dev/null > %t.json
// RUN: %python %S/validate-report.py json %t.json | FileCheck %s --check-prefix=VALID
// VALID: load_bytes: 900{{$}}
// Without train-remat the JSON says so.
// RUN: mem-opt --mlir-print-debuginfo=false %s --train-autodiff=optimizer=sgd --train-lifetimes --train-memory-report=format=json -o /dev/null | FileCheck %s --check-prefix=NONE
// The recomputed ops carry the marker.
// RUN: mem-opt --mlir-print-debuginfo=false %s --train-autodiff=optimizer=sgd --train-lifetimes --train-remat=algorithm=sqrt | FileCheck %s --check-prefix=IR

// TEXT:      remat        1.00 KiB (1028 B) -> 900 B (train-remat)
// TEXT-NEXT: recomputed   2 ops: train.gelu x1, train.matmul x1
// TEXT-NEXT: recompute    768 FLOP, 24.24% more step FLOPs (the extra time of a compute-bound step)

// JSON:      "total_flops": 3936,
// JSON-NEXT: "remat": {
// JSON-NEXT:   "recompute_flops": 768,
// JSON-NEXT:   "overhead": 0.24242424242424243,
// JSON-NEXT:   "peak_before": 1028,
// JSON-NEXT:   "peak_after": 900,
// JSON-NEXT:   "recomputed_ops": 2,
// JSON-NEXT:   "by_op": {
// JSON-NEXT:     "train.gelu": 1,
// JSON-NEXT:     "train.matmul": 1{{$}}
// JSON-NEXT:   }
// JSON-NEXT: },

// HTML: <tr><th>Recomputed</th><td>2 ops: train.gelu x1, train.matmul x1</td></tr>

// NONE: "remat": null,

// IR-COUNT-2: {train.recomputed}

func.func @chain(%x: tensor<4x8xf32>) -> tensor<f32> {
  %w = train.param "w" : tensor<8x8xf32>
  %h = train.matmul %x, %w : tensor<4x8xf32>, tensor<8x8xf32> -> tensor<4x8xf32> loc("l.0.fc")
  %a = train.gelu %h : tensor<4x8xf32> loc("l.0.act")
  %b = train.gelu %a : tensor<4x8xf32> loc("l.1.act")
  %c = train.gelu %b : tensor<4x8xf32> loc("l.2.act")
  %loss = train.reduce_sum %c {dims = array<i64: 0, 1>} : tensor<4x8xf32> -> tensor<f32> loc("loss")
  return %loss : tensor<f32>
}
