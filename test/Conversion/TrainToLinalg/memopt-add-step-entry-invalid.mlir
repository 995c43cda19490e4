// RUN: mem-opt %s -split-input-file --memopt-add-step-entry -verify-diagnostics
// RUN: not mem-opt %s -split-input-file --memopt-add-step-entry=func=missing 2>&1 | FileCheck %s --check-prefix=MISSING
// RUN: not mem-opt %s -split-input-file --memopt-add-step-entry=func=decl 2>&1 | FileCheck %s --check-prefix=DECL

// MISSING: error: no func.func named 'missing'
// DECL: error: 'decl' is a declaration; the step needs a body

// expected-error@+1 {{several functions have a body (@a, @b); name the step with func=NAME}}
module {
  func.func @a() {
    return
  }
  func.func @b() {
    return
  }
}

// -----

// expected-error@+1 {{no step function: no func.func has a body}}
module {
  func.func private @decl(tensor<2xf32>)
}

// -----

// expected-error@+1 {{argument #1 has type 'tensor<?xf32>'; expected a statically shaped tensor of integers or floats}}
func.func @dynamic(%a: tensor<2xf32>, %b: tensor<?xf32>) {
  return
}

// -----

// expected-error@+1 {{result #0 has type 'index'; expected a statically shaped tensor of integers or floats}}
func.func @scalar(%a: tensor<f32>) -> index {
  %c = arith.constant 0 : index
  return %c : index
}

// -----

// expected-error@+1 {{symbol '__memrun_result0' is reserved by mem-run}}
memref.global @__memrun_result0 : memref<f32> = uninitialized
func.func @step(%a: tensor<f32>) -> tensor<f32> {
  return %a : tensor<f32>
}

// -----

// expected-error@+1 {{symbol '__memrun_entry' is reserved by mem-run}}
func.func private @__memrun_entry()
func.func @step() {
  return
}
