// --measure-peak counts the bytes the lowered step allocates through
// _mlir_memref_to_llvm_alloc/aligned_alloc/free, live at once, during the
// last step.
//
// mem-run prints the memory model's prediction next to it:
// predicted_peak_bytes is the largest number of live bytes over the step's
// program points (TensorLiveness) outside parameters, optimizer states and
// inputs (mem-run keeps those in globals), with every buffer padded to the
// 64-byte alignment the CPU lowering allocates at.
//
// @relu_chain: x -> relu -> relu -> relu -> result, on 1 MiB tensors
// (262144 f32) and no parameters. Derivation of the exact peak:
//  * each relu result is one `memref.alloc {alignment = 64}`;
//    finalize-memref-to-llvm (use-aligned-alloc) asks the hook for
//    1048576 bytes at alignment 64 (a multiple of 64: no padding);
//  * the input x is read in place from its global @__memrun_arg0 (globals
//    are not allocations), and the result is written into @__memrun_result0
//    by a copy, which allocates nothing;
//  * memopt-lower-to-cpu frees each buffer right after its last use
//    (memopt-free-after-last-use): a dies once b is computed, b once c is;
//    so at most two results are live together: peak = 2 * 1048576.
// That is also the memory model's LOAD for this step (the analysis counts
// the input x with the first relu at point 0, and two results afterwards):
// RUN: mem-opt %s --test-print-tensor-liveness -o /dev/null | FileCheck %s --check-prefix=MODEL
// MODEL-LABEL: func @relu_chain
// MODEL: load: 2097152 at point 0{{( |$)}}
// The result is relu(x): the sum of the positive elements of x, as
// pytorch/memrun_init.py computes it.
//
// RUN: mem-run %s --func relu_chain --steps 2 --measure-peak | FileCheck %s
// CHECK:      step 1:
// CHECK-NEXT: step 2:
// CHECK-NEXT: measured_peak_bytes: 2097152{{$}}
// CHECK-NEXT: predicted_peak_bytes: 2097152{{$}}
// CHECK-NEXT: measured_persistent_bytes: 0{{$}}
// CHECK-NEXT: predicted_persistent_bytes: 0{{$}}
// CHECK-NEXT: measured_input_bytes: 1048576{{$}}
// CHECK-NEXT: predicted_input_bytes: 1048576{{$}}
// CHECK-NEXT: result 0: sum = 8.344260568e+04 sumsq = 6.553556334e+04{{$}}
// CHECK-NEXT: params_checksum: 0.000000000e+00{{$}}
//
// The peak is measured on the last step only, and the same on every step.
// RUN: mem-run %s --func relu_chain --steps 1 --measure-peak | FileCheck %s --check-prefix=ONE
// ONE:      step 1:
// ONE-NEXT: measured_peak_bytes: 2097152{{$}}
// ONE-NEXT: predicted_peak_bytes: 2097152{{$}}
// ONE:      result 0: sum = 8.344260568e+04 sumsq = 6.553556334e+04{{$}}
//
// @relu_param: relu of a 1 MiB parameter. Parameters live in globals and are
// not counted: only the relu result is, peak = 1048576.
// RUN: mem-run %s --func relu_param --measure-peak | FileCheck %s --check-prefix=PARAM
// PARAM:      step 1:
// PARAM-NEXT: measured_peak_bytes: 1048576{{$}}
// PARAM-NEXT: predicted_peak_bytes: 1048576{{$}}
//
// Without the flag nothing is measured.
// RUN: mem-run %s --func relu_chain --steps 1 | FileCheck %s --check-prefix=NONE
// NONE-NOT: {{measured|predicted}}_peak_bytes

func.func @relu_chain(%x: tensor<262144xf32>) -> tensor<262144xf32> {
  %a = train.relu %x : tensor<262144xf32>
  %b = train.relu %a : tensor<262144xf32>
  %c = train.relu %b : tensor<262144xf32>
  return %c : tensor<262144xf32>
}

func.func @relu_param() -> tensor<262144xf32> {
  %w = train.param "w" : tensor<262144xf32>
  %a = train.relu %w : tensor<262144xf32>
  return %a : tensor<262144xf32>
}
