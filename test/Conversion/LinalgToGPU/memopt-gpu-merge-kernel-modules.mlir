// RUN: mem-opt --mlir-print-debuginfo=false %s --memopt-gpu-merge-kernel-modules | FileCheck %s

// Three outlined kernels (all named @f_kernel): they end up in one module
// under their former modules' names, the third, identical to the first,
// compiled once; the launches follow.
// CHECK-LABEL: func.func @f
// CHECK: gpu.launch_func  @memopt_kernels::@f_kernel blocks
// CHECK: gpu.launch_func  @memopt_kernels::@f_kernel_0 blocks
// CHECK: gpu.launch_func  @memopt_kernels::@f_kernel blocks
// CHECK: gpu.module @memopt_kernels {
// CHECK:   gpu.func @f_kernel(%{{.+}}: memref<4xf32>) kernel
// CHECK:   gpu.func @f_kernel_0(%{{.+}}: memref<4xf32>, %{{.+}}: f32) kernel
// CHECK-NOT: gpu.func
// CHECK-NOT: gpu.module
module attributes {gpu.container_module} {
  func.func @f(%m: memref<4xf32>, %x: f32) {
    %c1 = arith.constant 1 : index
    gpu.launch_func @f_kernel::@f_kernel blocks in (%c1, %c1, %c1) threads in (%c1, %c1, %c1) args(%m : memref<4xf32>)
    gpu.launch_func @f_kernel_0::@f_kernel blocks in (%c1, %c1, %c1) threads in (%c1, %c1, %c1) args(%m : memref<4xf32>, %x : f32)
    gpu.launch_func @f_kernel_1::@f_kernel blocks in (%c1, %c1, %c1) threads in (%c1, %c1, %c1) args(%m : memref<4xf32>)
    return
  }
  gpu.module @f_kernel {
    gpu.func @f_kernel(%arg0: memref<4xf32>) kernel {
      gpu.return
    }
  }
  gpu.module @f_kernel_0 {
    gpu.func @f_kernel(%arg0: memref<4xf32>, %arg1: f32) kernel {
      %c0 = arith.constant 0 : index
      memref.store %arg1, %arg0[%c0] : memref<4xf32>
      gpu.return
    }
  }
  gpu.module @f_kernel_1 {
    gpu.func @f_kernel(%arg0: memref<4xf32>) kernel {
      gpu.return
    }
  }
}
