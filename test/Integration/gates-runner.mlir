// Lowers train.sigmoid, train.tanh, train.hardsigmoid, train.hardswish and their
// gradients to the CPU and runs them at and around the pieces' ends
// (x = -3 and 3). The expected values are PyTorch's (torch.sigmoid,
// torch.tanh, F.hardsigmoid, F.hardswish and autograd with dy = 1..8, in f32, printed
// to 6 digits): e.g. hardswish'(-3) = -3/3 + 0.5 and hardswish'(3) = 1.5,
// hardsigmoid' = 0 at both ends, hardswish(-4) = -0.
// RUN: mem-opt %s --convert-train-to-linalg --memopt-lower-to-cpu \
// RUN:   | %mlir_runner -e main -entry-point-result=void %runner_libs \
// RUN:   | FileCheck %s
// The same through memopt-lower-to-gpu's kernels, run as CPU loops:
// RUN: mem-opt %s --convert-train-to-linalg %gpu_emulator \
// RUN:   | %mlir_runner -e main -entry-point-result=void %runner_libs \
// RUN:   | FileCheck %s

func.func private @printMemrefF32(tensor<*xf32>)

func.func @print(%t: tensor<8xf32>) {
  %u = tensor.cast %t : tensor<8xf32> to tensor<*xf32>
  call @printMemrefF32(%u) : (tensor<*xf32>) -> ()
  return
}

func.func @main() {
  %x = arith.constant dense<[-4.0, -3.0, -1.5, 0.0, 1.0, 3.0, 4.5, 0.25]> : tensor<8xf32>
  %dy = arith.constant dense<[1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0, 8.0]> : tensor<8xf32>
  %s = train.sigmoid %x : tensor<8xf32>
  // CHECK: [0.0179862,  0.0474259,  0.182426,  0.5,  0.731059,  0.952574,  0.989013,  0.562177]
  call @print(%s) : (tensor<8xf32>) -> ()
  %ds = train.sigmoid_grad %dy, %s : tensor<8xf32>
  // CHECK: [0.0176627,  0.0903533,  0.447439,  1,  0.98306,  0.27106,  0.0760635,  1.96907]
  call @print(%ds) : (tensor<8xf32>) -> ()
  %t = train.tanh %x : tensor<8xf32>
  // CHECK: [-0.999329,  -0.995055,  -0.905148,  0,  0.761594,  0.995055,  0.999753,  0.244919]
  call @print(%t) : (tensor<8xf32>) -> ()
  %dt = train.tanh_grad %dy, %t : tensor<8xf32>
  // Where y is near +-1, 1 - y * y cancels: one ulp of y (math.tanh's against
  // PyTorch's) moves the 6th digit.
  // CHECK: [{{0\.0013408[0-9]}},  0.019732,  0.54212,  4,  2.09987,  {{0\.059196|0\.0591959}},  {{0\.0034542[0-9]}},  7.52012]
  call @print(%dt) : (tensor<8xf32>) -> ()
  %h = train.hardsigmoid %x : tensor<8xf32>
  // CHECK: [0,  0,  0.25,  0.5,  0.666667,  1,  1,  0.541667]
  call @print(%h) : (tensor<8xf32>) -> ()
  %dh = train.hardsigmoid_grad %dy, %x : tensor<8xf32>
  // CHECK: [0,  0,  0.5,  0.666667,  0.833333,  0,  0,  1.33333]
  call @print(%dh) : (tensor<8xf32>) -> ()
  %w = train.hardswish %x : tensor<8xf32>
  // CHECK: [-0,  -0,  -0.375,  0,  0.666667,  3,  4.5,  0.135417]
  call @print(%w) : (tensor<8xf32>) -> ()
  %dw = train.hardswish_grad %dy, %x : tensor<8xf32>
  // CHECK: [0,  -1,  0,  2,  4.16667,  9,  7,  4.66667]
  call @print(%dw) : (tensor<8xf32>) -> ()
  return
}
