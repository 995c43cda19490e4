// Modules the report refuses, each with a clear error and a non-zero exit.
// RUN: not mem-opt %s -split-input-file --train-memory-report -o /dev/null 2>&1 | FileCheck %s

// A function whose body is not one block is not a training step: program
// order is the schedule.
// CHECK: invalid.mlir:[[@LINE+1]]:1: error: 'func.func' op is not a training step: its body has 3 blocks, expected one (program order is the schedule)
func.func @branchy(%x: tensor<4xf32>, %c: i1) -> tensor<4xf32> {
  cf.cond_br %c, ^a, ^b
^a:
  return %x : tensor<4xf32>
^b:
  return %x : tensor<4xf32>
}

// -----

// A module with no function with a body holds no step.
// CHECK: error: no function with a body to report on; expected a module holding a training step
func.func private @declaration(tensor<4xf32>) -> tensor<4xf32>

// -----

// With several steps the report needs to be told which one.
// CHECK: error: 2 functions with a body (@a, @b); choose the one to report on with function=NAME
func.func @a(%x: tensor<4xf32>) -> tensor<4xf32> {
  return %x : tensor<4xf32>
}
func.func @b(%x: tensor<4xf32>) -> tensor<4xf32> {
  return %x : tensor<4xf32>
}

// CHECK-NOT: error
