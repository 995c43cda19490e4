// --measure-peak counts the bytes the lowered step allocates through
// _mlir_memref_to_llvm_alloc/free, live at once, during the last step.
//
// @relu_chain: x -> relu -> relu -> relu -> result, on 1 MiB tensors
// (262144 f32) and no parameters. Derivation of the exact peak:
//  * each relu result is one `memref.alloc {alignment = 64}` of 1048576
//    bytes; finalize-memref-to-llvm (without aligned alloc) asks the hook
//    for size + alignment = 1048640 bytes and aligns the pointer itself;
//  * the input x is read in place from its global @__memrun_arg0 (globals
//    are not allocations), and the result is written into @__memrun_result0
//    by a copy, which allocates nothing;
//  * ownership-based deallocation (memopt-lower-to-cpu) frees the first two
//    relu results at the end of the step's block, after the third relu ran,
//    and the entry frees the third after copying it out; so all three are
//    live together: peak = 3 * 1048640 = 3145920.
// (Freeing each buffer after its last use would make it 2 * 1048640.)
// The result is relu(x): the sum of the positive elements of x, as
// pytorch/memrun_init.py computes it.
//
// RUN: mem-run %s --func relu_chain --steps 2 --measure-peak | FileCheck %s
// CHECK:      step 1:
// CHECK-NEXT: step 2:
// CHECK-NEXT: measured_peak_bytes: 3145920
// CHECK-NEXT: result 0: sum = 8.344260568e+04 sumsq = 6.553556334e+04
// CHECK-NEXT: params_checksum: 0.000000000e+00
//
// The peak is measured on the last step only, and the same on every step.
// RUN: mem-run %s --func relu_chain --steps 1 --measure-peak | FileCheck %s --check-prefix=ONE
// ONE:      step 1:
// ONE-NEXT: measured_peak_bytes: 3145920
// ONE-NEXT: result 0: sum = 8.344260568e+04 sumsq = 6.553556334e+04
//
// @relu_param: relu of a 1 MiB parameter. Parameters live in globals and are
// not counted: only the relu result is, peak = 1048640.
// RUN: mem-run %s --func relu_param --measure-peak | FileCheck %s --check-prefix=PARAM
// PARAM:      step 1:
// PARAM-NEXT: measured_peak_bytes: 1048640
//
// Without the flag nothing is measured.
// RUN: mem-run %s --func relu_chain --steps 1 | FileCheck %s --check-prefix=NONE
// NONE-NOT: measured_peak_bytes

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
