// REQUIRES: cuda-toolkit
// The MLP training step (examples/mlp_step.mlir: two linear layers, cross
// entropy, Adam) lowered for sm_90: 5 matmuls as cuBLAS calls (2 forward,
// 3 backward), every other op a kernel, all kernels in one cubin that ptxas
// assembled (format=bin runs ptxas), host code in the LLVM dialect.
// RUN: mem-opt %memopt_src_root/examples/mlp_step.mlir --convert-train-to-linalg --memopt-lower-to-gpu='chip=sm_90' -o %t.mlir
// RUN: FileCheck %s < %t.mlir
// RUN: grep -c 'gpu.launch_func' %t.mlir | FileCheck %s --check-prefix=LAUNCHES
// RUN: grep -c 'llvm.call @memopt_cublas_gemm' %t.mlir | FileCheck %s --check-prefix=GEMMS
// The same for sm_80, and the PTX form (format=isa) names its kernels.
// RUN: mem-opt %memopt_src_root/examples/mlp_step.mlir --convert-train-to-linalg --memopt-lower-to-gpu='chip=sm_80 features=+ptx80' | FileCheck %s --check-prefix=SM80
// RUN: mem-opt %memopt_src_root/examples/mlp_step.mlir --convert-train-to-linalg --memopt-lower-to-gpu='chip=sm_90 format=isa' | FileCheck %s --check-prefix=PTX
// Without cuBLAS, matmuls become kernels too.
// RUN: mem-opt %memopt_src_root/examples/mlp_step.mlir --convert-train-to-linalg --memopt-lower-to-gpu='cublas=false' | FileCheck %s --check-prefix=NOGEMM --implicit-check-not=memopt_cublas_gemm

// CHECK-DAG: llvm.func @memopt_cublas_gemm(i32, i32, i32, i32, i32, i32, i64, i64, i64, i64, i64, i64, i64, i64, i64, i64, i64, i64, i64, i64, i64, i64, i64, i64, i64, i64)
// CHECK-DAG: llvm.func @memopt_cuda_global(!llvm.ptr, i64) -> !llvm.ptr
// CHECK-DAG: llvm.func @_mlir_memref_to_llvm_aligned_alloc(i64, i64) -> !llvm.ptr
// CHECK-LABEL: llvm.func @mlp_step
// CHECK: gpu.launch_func  @memopt_kernels::@mlp_step_kernel blocks
// CHECK: gpu.binary @memopt_kernels  [#gpu.object<#nvvm.target<chip = "sm_90", features = "+ptx80">, properties = {{{.*}}}, bin = "\7FELF
// CHECK-NOT: gpu.module
// CHECK-NOT: gpu.binary

// LAUNCHES: {{^}}19{{$}}
// GEMMS: {{^}}5{{$}}
// SM80: gpu.binary @memopt_kernels  [#gpu.object<#nvvm.target<chip = "sm_80", features = "+ptx80">, properties = {{{.*}}}, bin = "\7FELF
// PTX: gpu.binary @memopt_kernels  [#gpu.object<#nvvm.target<chip = "sm_90", features = "+ptx80">, properties = {{{.*}}}, assembly = "{{.*}}.target sm_90{{.*}}.entry mlp_step_kernel
// NOGEMM: gpu.binary @memopt_kernels
