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
// VALID: remat algorithm: sqrt budget: None{{$}}
// With a budget, train-remat records it next to the algorithm that auto
// chose (greedy, as test/Transforms/train-remat.mlir says), and the report
// shows both.
// RUN: mem-opt --mlir-print-debuginfo=false %s --train-autodiff=optimizer=sgd --train-lifetimes --train-remat=budget=950 --train-memory-report=format=text -o /dev/null 2>/dev/null | FileCheck %s --check-prefix=BUDGET-TEXT
// RUN: mem-opt --mlir-print-debuginfo=false %s --train-autodiff=optimizer=sgd --train-lifetimes --train-remat=budget=950 --train-memory-report=format=json -o /dev/null 2>/dev/null > %t.budget.json
// RUN: %python %S/validate-report.py json %t.budget.json | FileCheck %s --check-prefix=BUDGET-JSON
// RUN: mem-opt --mlir-print-debuginfo=false %s --train-autodiff=optimizer=sgd --train-lifetimes --train-remat=budget=950 --train-memory-report=format=html -o /dev/null 2>/dev/null | FileCheck %s --check-prefix=BUDGET-HTML
// BUDGET-TEXT: recompute    256 FLOP, 8.08% more step FLOPs
// BUDGET-TEXT-NEXT: algorithm    greedy, budget 950 B{{$}}
// BUDGET-JSON: remat algorithm: greedy budget: 950{{$}}
// BUDGET-HTML: <tr><th>Remat algorithm</th><td>greedy, budget 950 B</td></tr>
// optimal's own plan (800 bytes, below greedy's floor) records the MILP's
// relative gap to its proven bound: 0 here, proven optimal in its model.
// RUN: mem-opt --mlir-print-debuginfo=false %s --train-autodiff=optimizer=sgd --train-lifetimes --train-remat='budget=800 algorithm=optimal segments=5 time-limit=0 node-limit=100000' 2>/dev/null | FileCheck %s --check-prefix=GAP-IR
// GAP-IR: train.remat = {algorithm = "optimal", budget = 800 : i64, gap = 0.000000e+00 : f64}
// RUN: mem-opt --mlir-print-debuginfo=false %s --train-autodiff=optimizer=sgd --train-lifetimes --train-remat='budget=800 algorithm=optimal segments=5 time-limit=0 node-limit=100000' --train-memory-report=format=text -o /dev/null 2>/dev/null | FileCheck %s --check-prefix=GAP-TEXT
// GAP-TEXT: algorithm    optimal (solver gap 0.00%), budget 800 B{{$}}
// RUN: mem-opt --mlir-print-debuginfo=false %s --train-autodiff=optimizer=sgd --train-lifetimes --train-remat='budget=800 algorithm=optimal segments=5 time-limit=0 node-limit=100000' --train-memory-report=format=json -o /dev/null 2>/dev/null > %t.gap.json
// RUN: FileCheck %s --check-prefix=GAP-JSON < %t.gap.json
// GAP-JSON: "algorithm": "optimal",
// GAP-JSON-NEXT: "budget": 800,
// GAP-JSON-NEXT: "gap": 0,
// RUN: %python %S/validate-report.py json %t.gap.json | FileCheck %s --check-prefix=VALID-GAP
// VALID-GAP: remat algorithm: optimal budget: 800{{$}}
// The attributes as written by hand: train.remat is read next to
// train.remat_flops; a step with train.remat_flops alone says the algorithm
// is not recorded; train.remat alone is no decision (no remat rows).
// RUN: sed -e 's/^func.func @chain(\(.*\)) -> tensor<f32> {/func.func @chain(\1) -> tensor<f32> attributes {train.remat = {algorithm = "by-hand", budget = 4096 : i64}, train.remat_flops = 0 : i64} {/' %s | mem-opt --mlir-print-debuginfo=false --train-memory-report=format=text -o /dev/null | FileCheck %s --check-prefix=RECORD
// RECORD: recomputed   0 ops
// RECORD: algorithm    by-hand, budget 4.00 KiB (4096 B){{$}}
// RUN: sed -e 's/^func.func @chain(\(.*\)) -> tensor<f32> {/func.func @chain(\1) -> tensor<f32> attributes {train.remat_flops = 0 : i64} {/' %s | mem-opt --mlir-print-debuginfo=false --train-memory-report=format=json -o /dev/null | FileCheck %s --check-prefix=UNRECORDED
// UNRECORDED: "algorithm": null,
// UNRECORDED-NEXT: "budget": null,
// UNRECORDED-NEXT: "gap": null
// RUN: sed -e 's/^func.func @chain(\(.*\)) -> tensor<f32> {/func.func @chain(\1) -> tensor<f32> attributes {train.remat_flops = 0 : i64} {/' %s | mem-opt --mlir-print-debuginfo=false --train-memory-report=format=text -o /dev/null | FileCheck %s --check-prefix=UNRECORDED-TEXT
// UNRECORDED-TEXT: algorithm    not recorded{{$}}
// RUN: sed -e 's/^func.func @chain(\(.*\)) -> tensor<f32> {/func.func @chain(\1) -> tensor<f32> attributes {train.remat = {algorithm = "by-hand"}} {/' %s | mem-opt --mlir-print-debuginfo=false --train-memory-report=format=json -o /dev/null | FileCheck %s --check-prefix=NO-DECISION
// NO-DECISION: "remat": null,
// Without train-remat the JSON says so.
// RUN: mem-opt --mlir-print-debuginfo=false %s --train-autodiff=optimizer=sgd --train-lifetimes --train-memory-report=format=json -o /dev/null | FileCheck %s --check-prefix=NONE
// The recomputed ops carry the marker.
// RUN: mem-opt --mlir-print-debuginfo=false %s --train-autodiff=optimizer=sgd --train-lifetimes --train-remat=algorithm=sqrt | FileCheck %s --check-prefix=IR

// TEXT:      remat        1.00 KiB (1028 B) -> 900 B (train-remat)
// TEXT-NEXT: recomputed   2 ops: train.gelu x1, train.matmul x1
// TEXT-NEXT: recompute    768 FLOP, 24.24% more step FLOPs (the extra time of a compute-bound step)
// TEXT-NEXT: algorithm    sqrt, no budget

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
// JSON-NEXT:   },
// JSON-NEXT:   "algorithm": "sqrt",
// JSON-NEXT:   "budget": null,
// JSON-NEXT:   "gap": null,
// JSON-NEXT:   "offloaded": [],
// JSON-NEXT:   "offloaded_bytes": 0,
// JSON-NEXT:   "link_bytes_per_second": null,
// JSON-NEXT:   "device": null
// JSON-NEXT: },

// HTML: <tr><th>Recomputed</th><td>2 ops: train.gelu x1, train.matmul x1</td></tr>
// HTML: <tr><th>Remat algorithm</th><td>sqrt, no budget</td></tr>

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

// On a generated GPT-2 step (two layers), selective recomputation records
// its name, and the budget when it is given one (3 MiB = 3145728 bytes), in
// every format.
// RUN: mem-gen gpt2 --layers 2 --hidden 64 --heads 4 --vocab 256 --seq 32 --train -o %t.gpt2.mlir
// RUN: mem-opt %t.gpt2.mlir --train-lifetimes --train-remat=algorithm=selective --train-memory-report=format=text -o /dev/null | FileCheck %s --check-prefix=GPT2-TEXT
// GPT2-TEXT:      recomputed   6 ops: train.matmul x2, train.softmax x2, train.dropout x2
// GPT2-TEXT:      algorithm    selective, no budget{{$}}
// RUN: mem-opt %t.gpt2.mlir --train-lifetimes --train-remat='algorithm=selective budget=3MiB' --train-memory-report='format=json output=%t.gpt2.json' -o /dev/null
// RUN: %python %S/validate-report.py json %t.gpt2.json | FileCheck %s --check-prefix=GPT2-JSON
// GPT2-JSON: remat algorithm: selective budget: 3145728{{$}}
// RUN: mem-opt %t.gpt2.mlir --train-lifetimes --train-remat='algorithm=selective budget=3MiB' --train-memory-report=format=html -o /dev/null | FileCheck %s --check-prefix=GPT2-HTML
// GPT2-HTML: <tr><th>Remat algorithm</th><td>selective, budget 3.00 MiB (3145728 B)</td></tr>
