// The report reads a plan that train-plan-memory recorded in the IR
// (train.arena_bytes, train.load_bytes, train.plan_alignment) instead of
// planning again.

// The hand-written plan below is valid (train-verify-plan accepts it) but not
// the planner's: b sits at 1536, so the arena is 2048 bytes. LOAD is 768
// bytes (x, w and a, 256 B each, live at the add); over sizes aligned to 512
// it is 3 x 512 = 1536, the train.load_bytes the function carries. Three
// different numbers: each row shows the one it reads.
// RUN: mem-opt %s --train-verify-plan -o /dev/null
// RUN: mem-opt %s --train-memory-report -o /dev/null | FileCheck %s --check-prefix=TEXT --match-full-lines --strict-whitespace
//      TEXT:memory report of @step (memopt.memory-report/1)
// TEXT-EMPTY:
// TEXT-NEXT:  peak (arena)  2.00 KiB (2048 B)
// TEXT-NEXT:  LOAD          768 B
// TEXT-NEXT:  arena         2.00 KiB (2048 B), 166.67% above LOAD, planned in the IR (alignment 512)
// TEXT-NEXT:  plan LOAD     1.50 KiB (1536 B), sizes aligned to 512 (train.load_bytes)
// TEXT-NEXT:  at            point 1 of 4: train.add at a

// RUN: mem-opt %s --train-memory-report=format=json -o /dev/null | FileCheck %s --check-prefix=JSON
// JSON:      "peak_bytes": 2048,
// JSON-NEXT: "load_bytes": 768,
// JSON-NEXT: "arena_bytes": 2048,
// JSON-NEXT: "fragmentation": 1.66666
// JSON-NEXT: "arena_source": "ir",
// JSON-NEXT: "plan_alignment": 512,
// JSON-NEXT: "plan_load_bytes": 1536,
// JSON-NEXT: "peak_point": 1,

// The optional key passes the structural checks (its place, its bounds).
// RUN: mem-opt %s --train-memory-report='format=json output=%t.json' -o /dev/null
// RUN: %python %S/validate-report.py json %t.json | FileCheck %s --check-prefix=VALID
// VALID: load_bytes: 768{{$}}

// RUN: mem-opt %s --train-memory-report=format=html -o /dev/null | FileCheck %s --check-prefix=HTML
// HTML: <tr><th>Arena</th><td>2.00 KiB (2048 B), 166.67% above LOAD, planned in the IR (alignment 512)</td></tr>
// HTML-NEXT: <tr><th>Plan LOAD</th><td>1.50 KiB (1536 B), sizes aligned to 512 (train.load_bytes)</td></tr>

// The values train-plan-memory writes, on the step of
// train-memory-report.mlir (LOAD 1420 B). At alignment 1 the planner's LOAD
// is the report's: the same number twice. At 256 it is 2304 B (six 256-byte
// slots and 768 persistent bytes at the peak), as that test derives.
// RUN: mem-opt %S/train-memory-report.mlir --train-plan-memory=alignment=1 --train-memory-report -o /dev/null | FileCheck %s --check-prefix=EXACT
// EXACT:      LOAD          1.39 KiB (1420 B)
// EXACT-NEXT: arena         1.39 KiB (1420 B), 0.00% above LOAD, planned in the IR (alignment 1)
// EXACT-NEXT: plan LOAD     1.39 KiB (1420 B), sizes aligned to 1 (train.load_bytes)
// RUN: mem-opt %S/train-memory-report.mlir --train-plan-memory --train-memory-report=format=json -o /dev/null | FileCheck %s --check-prefix=ALIGNED
// ALIGNED:      "load_bytes": 1420,
// ALIGNED:      "plan_alignment": 256,
// ALIGNED-NEXT: "plan_load_bytes": 2304,

// Without a plan in the IR there is no such row (nor key).
// RUN: mem-opt %S/train-memory-report.mlir --train-memory-report -o /dev/null | FileCheck %s --check-prefix=NONE
// RUN: mem-opt %S/train-memory-report.mlir --train-memory-report=format=json -o /dev/null | FileCheck %s --check-prefix=NONE
// NONE-NOT: plan LOAD
// NONE-NOT: plan_load_bytes

func.func @step(%x: tensor<64xf32> {train.offset = 512 : i64}) -> tensor<64xf32>
    attributes {train.arena_bytes = 2048 : i64, train.load_bytes = 1536 : i64,
                train.persistent_bytes = 512 : i64, train.plan_alignment = 512 : i64} {
  %w = train.param "w" {train.offset = array<i64: 0>} : tensor<64xf32> loc("w")
  %a = train.add %x, %w {train.offset = array<i64: 1024>} : tensor<64xf32> loc("a")
  %b = train.relu %a {train.offset = array<i64: 1536>} : tensor<64xf32> loc("b")
  return %b : tensor<64xf32>
}
