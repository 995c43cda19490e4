// RUN: mem-opt %s --pass-pipeline='builtin.module(func.func(memopt-gpu-block-reductions{block-size=100}))' -verify-diagnostics
// RUN: not mem-opt %s --pass-pipeline='builtin.module(func.func(memopt-gpu-block-reductions{min-extent=0}))' 2>&1 | FileCheck %s --check-prefix=EXTENT
// RUN: not mem-opt %s --memopt-lower-to-gpu='reduction-min-extent=-5' 2>&1 | FileCheck %s --check-prefix=PIPELINE

// expected-error@+3 {{block-size must be a multiple of 32 between 32 and 1024, got 100}}
// EXTENT: error: min-extent must be at least 1, got 0{{$}}
// PIPELINE: error: min-extent must be at least 1, got -5{{$}}
func.func @f() {
  return
}
