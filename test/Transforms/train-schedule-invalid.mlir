// Bad options and steps train-schedule cannot reorder: a diagnostic, and a
// non-zero exit.
// RUN: not mem-opt %s --train-schedule=heuristic=magic -o /dev/null 2>&1 | FileCheck %s --check-prefix=HEURISTIC
// HEURISTIC: error: train-schedule: unknown heuristic 'magic'; expected best, program, eager, greedy or exact{{$}}
// RUN: not mem-opt %s --train-schedule=exact-limit=30 -o /dev/null 2>&1 | FileCheck %s --check-prefix=LIMIT
// LIMIT: error: train-schedule: exact-limit must be at most 22 (the exact search takes 2^ops steps), got 30{{$}}
// RUN: not mem-opt %s --train-schedule=exact-limit=many -o /dev/null 2>&1 | FileCheck %s --check-prefix=NOTNUM
// NOTNUM: error: train-schedule: cannot parse the options 'exact-limit=many' (the line above says which value){{$}}
// RUN: not mem-opt %s --train-schedule=heuristc=eager -o /dev/null 2>&1 | FileCheck %s --check-prefix=OPTION
// OPTION: no such option heuristc
// The exact search on a step larger than its limit: say so, suggest best.
// RUN: not mem-opt %s --train-schedule='heuristic=exact exact-limit=2' -o /dev/null 2>&1 | FileCheck %s --check-prefix=EXACT
// EXACT: error: 'func.func' op train-schedule: the step has 4 ops, more than exact-limit=2 for the exact search; use heuristic=best
// RUN: mem-opt %s -split-input-file --train-schedule -verify-diagnostics -o /dev/null

// expected-remark @+1 {{train-schedule: program: LOAD 48 -> 48 bytes}}
func.func @step(%x: tensor<4xf32>) -> tensor<4xf32> {
  %a = train.relu %x : tensor<4xf32>
  %b = train.relu %a : tensor<4xf32>
  %c = train.add %a, %b : tensor<4xf32>
  return %c : tensor<4xf32>
}

// -----

// A planned step: a new order would invalidate its offsets.
// expected-error @+1 {{train-schedule: the step already has a memory plan (train-plan-memory), which a new order would invalidate; schedule before planning}}
func.func @planned(%x: tensor<4xf32>) -> tensor<4xf32> attributes {train.arena_bytes = 16 : i64} {
  %a = train.relu %x {train.offset = array<i64: 0>} : tensor<4xf32>
  return %a : tensor<4xf32>
}

// -----

// expected-error @+1 {{expected a single-block training step (program order is the schedule)}}
func.func @blocks(%x: tensor<4xf32>) -> tensor<4xf32> {
  cf.br ^next
^next:
  return %x : tensor<4xf32>
}

// -----

func.func @lowered(%x: memref<4xf32>) {
  // expected-error @+2 {{train-schedule expects a training step in the train dialect}}
  // expected-note @+1 {{run train-schedule on the step before --convert-train-to-linalg}}
  %a = memref.alloc() : memref<4xf32>
  return
}
