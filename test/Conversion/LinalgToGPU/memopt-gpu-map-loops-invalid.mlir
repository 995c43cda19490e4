// RUN: mem-opt %s --pass-pipeline='builtin.module(func.func(memopt-gpu-map-loops{block-size=100}))' -verify-diagnostics

// expected-error@+1 {{block-size must be a multiple of 32 between 32 and 1024, got 100}}
func.func @f() {
  return
}
