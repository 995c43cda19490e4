// REQUIRES: cuda-toolkit
// memopt-lower-to-gpu expands fp8 conversions in kernels too: integer
// instructions on any chip (no sm_89+ `cvt ... e4m3` / `e5m2`), which ptxas
// assembles. Their results are checked by execution, through the emulated
// kernels, in fp8-conversions.test.
// RUN: mem-opt %s --memopt-lower-to-gpu='format=isa cublas=false' \
// RUN:   --mlir-print-debuginfo=false | FileCheck %s
// RUN: mem-opt %s --memopt-lower-to-gpu='format=bin cublas=false chip=sm_90' \
// RUN:   --mlir-print-debuginfo=false | FileCheck %s --check-prefix=CUBIN

// CHECK-NOT: {{e4m3x2|e5m2x2}}
// The E4M3FN rounding kernel: saturation to 448 (0x7E), NaN to 0x7F.
// CHECK: .entry round_to_fp8_kernel
// CHECK: min.u32 {{[^;]*}}, 126;
// CHECK: 127,
// CHECK: st.global.b8
// The E5M2 decoding kernel: a byte in, the f32 bits out.
// CHECK: .entry decode_fp8_kernel
// CHECK: ld.global.{{[bu]}}8
// CHECK: st.global.b32
// CHECK-NOT: {{e4m3x2|e5m2x2}}
// CUBIN: gpu.binary @memopt_kernels
// CUBIN-SAME: #gpu.object<#nvvm.target<chip = "sm_90"

func.func @round_to_fp8(%x: tensor<1024xf32>) -> tensor<1024xf8E4M3FN> {
  %e = tensor.empty() : tensor<1024xf8E4M3FN>
  %y = linalg.generic {indexing_maps = [affine_map<(i) -> (i)>,
                                        affine_map<(i) -> (i)>],
                       iterator_types = ["parallel"]}
      ins(%x : tensor<1024xf32>) outs(%e : tensor<1024xf8E4M3FN>) {
  ^bb0(%a: f32, %o: f8E4M3FN):
    %r = arith.truncf %a : f32 to f8E4M3FN
    linalg.yield %r : f8E4M3FN
  } -> tensor<1024xf8E4M3FN>
  return %y : tensor<1024xf8E4M3FN>
}

func.func @decode_fp8(%x: tensor<1024xf8E5M2>) -> tensor<1024xf32> {
  %e = tensor.empty() : tensor<1024xf32>
  %y = linalg.generic {indexing_maps = [affine_map<(i) -> (i)>,
                                        affine_map<(i) -> (i)>],
                       iterator_types = ["parallel"]}
      ins(%x : tensor<1024xf8E5M2>) outs(%e : tensor<1024xf32>) {
  ^bb0(%a: f8E5M2, %o: f32):
    %r = arith.extf %a : f8E5M2 to f32
    linalg.yield %r : f32
  } -> tensor<1024xf32>
  return %y : tensor<1024xf32>
}
