// RUN: mem-opt %s -split-input-file --pass-pipeline='builtin.module(func.func(memopt-gpu-emulate-launches))' -verify-diagnostics

func.func @barrier() {
  %c1 = arith.constant 1 : index
  gpu.launch blocks(%bx, %by, %bz) in (%gx = %c1, %gy = %c1, %gz = %c1)
             threads(%tx, %ty, %tz) in (%sx = %c1, %sy = %c1, %sz = %c1) {
    // expected-error@+1 {{cannot be emulated (memopt-gpu-emulate-launches handles top-level gpu.all_reduce only)}}
    gpu.barrier
    gpu.terminator
  }
  return
}

// -----

func.func @nested_all_reduce(%c: i1, %x: f32) {
  %c1 = arith.constant 1 : index
  gpu.launch blocks(%bx, %by, %bz) in (%gx = %c1, %gy = %c1, %gz = %c1)
             threads(%tx, %ty, %tz) in (%sx = %c1, %sy = %c1, %sz = %c1) {
    scf.if %c {
      // expected-error@+1 {{cannot be emulated: an all-reduce must be at the top level of the launch, in its op form}}
      %s = gpu.all_reduce add %x {} : (f32) -> f32
    }
    gpu.terminator
  }
  return
}

// -----

func.func @region_all_reduce(%x: f32) {
  %c1 = arith.constant 1 : index
  gpu.launch blocks(%bx, %by, %bz) in (%gx = %c1, %gy = %c1, %gz = %c1)
             threads(%tx, %ty, %tz) in (%sx = %c1, %sy = %c1, %sz = %c1) {
    // expected-error@+1 {{cannot be emulated: an all-reduce must be at the top level of the launch, in its op form}}
    %s = gpu.all_reduce %x {
    ^bb(%lhs : f32, %rhs : f32):
      %sum = arith.addf %lhs, %rhs : f32
      "gpu.yield"(%sum) : (f32) -> ()
    } : (f32) -> f32
    gpu.terminator
  }
  return
}

// -----

func.func @write_before(%buf: memref<4xf32>, %x: f32) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  gpu.launch blocks(%bx, %by, %bz) in (%gx = %c1, %gy = %c1, %gz = %c1)
             threads(%tx, %ty, %tz) in (%sx = %c1, %sy = %c1, %sz = %c1) {
    // expected-error@+1 {{writes memory before the launch's last gpu.all_reduce, which the emulation re-runs}}
    memref.store %x, %buf[%c0] : memref<4xf32>
    %s = gpu.all_reduce add %x uniform {} : (f32) -> f32
    gpu.terminator
  }
  return
}

// -----

func.func @workgroup(%x: f32) {
  %c1 = arith.constant 1 : index
  // expected-error@+1 {{cannot emulate a gpu.launch with workgroup or private attributions}}
  gpu.launch blocks(%bx, %by, %bz) in (%gx = %c1, %gy = %c1, %gz = %c1)
             threads(%tx, %ty, %tz) in (%sx = %c1, %sy = %c1, %sz = %c1)
             workgroup(%shared : memref<32xf32, #gpu.address_space<workgroup>>) {
    gpu.terminator
  }
  return
}

// -----

func.func @async() {
  %c1 = arith.constant 1 : index
  // expected-error@+1 {{cannot emulate an asynchronous gpu.launch}}
  %t = gpu.launch async blocks(%bx, %by, %bz) in (%gx = %c1, %gy = %c1, %gz = %c1)
             threads(%tx, %ty, %tz) in (%sx = %c1, %sy = %c1, %sz = %c1) {
    gpu.terminator
  }
  return
}
