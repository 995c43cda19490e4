// Lowers a train op to the CPU and runs it: the printed values are relu's.
// RUN: mem-opt %s --convert-train-to-linalg --memopt-lower-to-cpu \
// RUN:   | %mlir_runner -e main -entry-point-result=void %runner_libs \
// RUN:   | FileCheck %s
// The same through memopt-lower-to-gpu's kernels, run as CPU loops (every
// reduction a block reduction, matmuls through the CPU cuBLAS stand-in):
// RUN: mem-opt %s --convert-train-to-linalg %gpu_emulator \
// RUN:   | %mlir_runner -e main -entry-point-result=void %runner_libs \
// RUN:   | FileCheck %s

func.func @step(%x: tensor<4xf32>) -> tensor<4xf32> {
  %y = train.relu %x : tensor<4xf32>
  return %y : tensor<4xf32>
}

func.func private @printMemrefF32(tensor<*xf32>)

func.func @main() {
  %x = arith.constant dense<[-1.0, 2.0, -3.0, 4.5]> : tensor<4xf32>
  %y = call @step(%x) : (tensor<4xf32>) -> tensor<4xf32>
  %u = tensor.cast %y : tensor<4xf32> to tensor<*xf32>
  // CHECK: [0,  2,  0,  4.5]
  call @printMemrefF32(%u) : (tensor<*xf32>) -> ()
  return
}
