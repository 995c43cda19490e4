// Lowers train.relu {upper} (ReLU6) and its gradient to the CPU and runs
// them: min(max(x, 0), 6), and the gradient passed only where 0 < y < 6
// (PyTorch's hardtanh_backward: 0 at both bounds).
// RUN: mem-opt %s --convert-train-to-linalg --memopt-lower-to-cpu \
// RUN:   | %mlir_runner -e main -entry-point-result=void %runner_libs \
// RUN:   | FileCheck %s
// The same through memopt-lower-to-gpu's kernels, run as CPU loops:
// RUN: mem-opt %s --convert-train-to-linalg %gpu_emulator \
// RUN:   | %mlir_runner -e main -entry-point-result=void %runner_libs \
// RUN:   | FileCheck %s

func.func @step(%x: tensor<6xf32>, %dy: tensor<6xf32>) -> (tensor<6xf32>, tensor<6xf32>) {
  %y = train.relu %x {upper = 6.0 : f64} : tensor<6xf32>
  %dx = train.relu_grad %dy, %y {upper = 6.0 : f64} : tensor<6xf32>
  return %y, %dx : tensor<6xf32>, tensor<6xf32>
}

func.func private @printMemrefF32(tensor<*xf32>)

func.func @main() {
  %x = arith.constant dense<[-1.0, 0.0, 2.5, 6.0, 7.5, 5.5]> : tensor<6xf32>
  %dy = arith.constant dense<[1.0, 2.0, 3.0, 4.0, 5.0, 6.0]> : tensor<6xf32>
  %y, %dx = call @step(%x, %dy) : (tensor<6xf32>, tensor<6xf32>) -> (tensor<6xf32>, tensor<6xf32>)
  %u = tensor.cast %y : tensor<6xf32> to tensor<*xf32>
  // CHECK: [0,  0,  2.5,  6,  6,  5.5]
  call @printMemrefF32(%u) : (tensor<*xf32>) -> ()
  %v = tensor.cast %dx : tensor<6xf32> to tensor<*xf32>
  // CHECK: [0,  0,  3,  0,  0,  6]
  call @printMemrefF32(%v) : (tensor<*xf32>) -> ()
  return
}
