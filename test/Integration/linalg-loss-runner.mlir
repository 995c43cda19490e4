// Executes cross_entropy, cross_entropy_grad, mse_loss and mse_loss_grad
// after convert-train-to-linalg. Expected values: numpy (float64) from the
// ops' documented semantics (PyTorch's for ignore_index); the gradients are
// the exact gradients of the forward ops for a random upstream gradient
// (checked against central finite differences when they were computed).
// RUN: mem-opt %s --convert-train-to-linalg --memopt-lower-to-cpu \
// RUN:   | %mlir_runner -e main -entry-point-result=void %runner_libs \
// RUN:   | FileCheck %s
// The same through memopt-lower-to-gpu's kernels, run as CPU loops (every
// reduction a block reduction, matmuls through the CPU cuBLAS stand-in):
// RUN: mem-opt %s --convert-train-to-linalg %gpu_emulator \
// RUN:   | %mlir_runner -e main -entry-point-result=void %runner_libs \
// RUN:   | FileCheck %s

func.func private @printMemrefF32(tensor<*xf32>)
func.func private @printMemrefF64(tensor<*xf64>)

func.func @main() {

  // cross_entropy f64, i64 labels
  %x1 = arith.constant dense<[[[4.0818, -5.1113, 0.8362, -1.1355, -0.9053], [-0.4312, -4.04, -0.4639, -1.7304, 6.646], [0.4516, -0.7053, -0.5626, -1.3361, -2.1103]], [[-0.7816, 0.9639, -0.4771, 1.9155, -0.3996], [0.0485, 3.0916, 1.0902, -1.0105, -0.3657], [1.0811, 3.8702, -0.5392, -0.4871, 2.0046]]]> : tensor<2x3x5xf64>
  %l1 = arith.constant dense<[[2, 1, 1], [0, 3, 3]]> : tensor<2x3xi64>
  %ce1 = train.cross_entropy %x1, %l1 : tensor<2x3x5xf64>, tensor<2x3xi64> -> tensor<f64>
  // CHECK: Unranked Memref {{.*}} sizes = []
  // CHECK-NEXT: [4.64515]
  %pu1 = tensor.cast %ce1 : tensor<f64> to tensor<*xf64>
  call @printMemrefF64(%pu1) : (tensor<*xf64>) -> ()

  // cross_entropy_grad f64: d/dx (g * cross_entropy(x))
  %g1 = arith.constant dense<-1.7321> : tensor<f64>
  %dce1 = train.cross_entropy_grad %g1, %x1, %l1 : tensor<f64>, tensor<2x3x5xf64>, tensor<2x3xi64> -> tensor<2x3x5xf64>
  // CHECK: Unranked Memref {{.*}} sizes = [2, 3, 5]
  // CHECK-NEXT: {{\[\[\[}}-0.274598, -2.79373e-05, 0.277989, -0.00148886, -0.00187425],
  // CHECK-NEXT: [-0.000243222, 0.288677, -0.000235397, -6.63387e-05, -0.288132],
  // CHECK-NEXT: [-0.150226, 0.241443, -0.054486, -0.0251396, -0.0115912]],
  // CHECK-NEXT: {{\[\[}}0.276846, -0.067816, -0.0160514, -0.175633, -0.0173449],
  // CHECK-NEXT: [-0.0111841, -0.234533, -0.0316962, 0.284805, -0.00739125],
  // CHECK-NEXT: [-0.0142978, -0.232574, -0.00282867, 0.285703, -0.0360032]]]
  %pu2 = tensor.cast %dce1 : tensor<2x3x5xf64> to tensor<*xf64>
  call @printMemrefF64(%pu2) : (tensor<*xf64>) -> ()

  // cross_entropy f64 with ignore_index = -100 (two of six positions ignored)
  %l2 = arith.constant dense<[[2, -100, 1], [0, 3, -100]]> : tensor<2x3xi32>
  %ce2 = train.cross_entropy %x1, %l2 {ignore_index = -100 : i64} : tensor<2x3x5xf64>, tensor<2x3xi32> -> tensor<f64>
  // CHECK: Unranked Memref {{.*}} sizes = []
  // CHECK-NEXT: [3.15239]
  %pu3 = tensor.cast %ce2 : tensor<f64> to tensor<*xf64>
  call @printMemrefF64(%pu3) : (tensor<*xf64>) -> ()

  // cross_entropy_grad f64 with ignore_index: ignored rows get 0
  %g2 = arith.constant dense<0.8125> : tensor<f64>
  %dce2 = train.cross_entropy_grad %g2, %x1, %l2 {ignore_index = -100 : i64} : tensor<f64>, tensor<2x3x5xf64>, tensor<2x3xi32> -> tensor<2x3x5xf64>
  // CHECK: Unranked Memref {{.*}} sizes = [2, 3, 5]
  // CHECK-NEXT: {{\[\[\[}}0.193214, 1.96574e-05, -0.1956, 0.0010476, 0.00131877],
  // CHECK-NEXT: [0, 0, 0, 0, 0],
  // CHECK-NEXT: [0.105703, -0.169886, 0.0383377, 0.0176889, 0.00815585]],
  // CHECK-NEXT: {{\[\[}}-0.194796, 0.0477171, 0.0112942, 0.12358, 0.0122043],
  // CHECK-NEXT: [0.00786945, 0.165023, 0.0223023, -0.200396, 0.00520067],
  // CHECK-NEXT: [0, 0, 0, 0, 0]]]
  %pu4 = tensor.cast %dce2 : tensor<2x3x5xf64> to tensor<*xf64>
  call @printMemrefF64(%pu4) : (tensor<*xf64>) -> ()

  // every position ignored: the mean over zero positions is NaN (PyTorch)
  %l3 = arith.constant dense<[-100, -100]> : tensor<2xi64>
  %x1b = arith.constant dense<[[4.0818, -5.1113, 0.8362, -1.1355, -0.9053], [-0.4312, -4.04, -0.4639, -1.7304, 6.646]]> : tensor<2x5xf64>
  %ce3 = train.cross_entropy %x1b, %l3 {ignore_index = -100 : i64} : tensor<2x5xf64>, tensor<2xi64> -> tensor<f64>
  // CHECK: Unranked Memref {{.*}} sizes = []
  // CHECK-NEXT: [{{-?nan}}]
  %pu5 = tensor.cast %ce3 : tensor<f64> to tensor<*xf64>
  call @printMemrefF64(%pu5) : (tensor<*xf64>) -> ()

  // rank-1 logits (one position, 0-d label), f32, large logits (stability)
  %x4 = arith.constant dense<[100.5, 99.25, 101.0, 98.5, 100.75]> : tensor<5xf32>
  %l4 = arith.constant dense<3> : tensor<i32>
  %ce4 = train.cross_entropy %x4, %l4 : tensor<5xf32>, tensor<i32> -> tensor<f32>
  // CHECK: Unranked Memref {{.*}} sizes = []
  // CHECK-NEXT: [3.4712{{([1-9])?}}]
  %pu6 = tensor.cast %ce4 : tensor<f32> to tensor<*xf32>
  call @printMemrefF32(%pu6) : (tensor<*xf32>) -> ()
  %g4 = arith.constant dense<1.0> : tensor<f32>
  %dce4 = train.cross_entropy_grad %g4, %x4, %l4 : tensor<f32>, tensor<5xf32>, tensor<i32> -> tensor<5xf32>
  // CHECK: Unranked Memref {{.*}} sizes = [5]
  // CHECK-NEXT: [0.22964{{([1-9])?}}, 0.065793{{([1-9])?}}, 0.37861{{([1-9])?}}, -0.96892{{([1-9])?}}, 0.29486{{([1-9])?}}]
  %pu7 = tensor.cast %dce4 : tensor<5xf32> to tensor<*xf32>
  call @printMemrefF32(%pu7) : (tensor<*xf32>) -> ()

  // bf16 logits: computed in f32, f32 result
  %x5 = arith.constant dense<[[0.8828125, 0.58203125, 0.09130859375, 0.671875], [-2.828125, 1.0234375, -0.9609375, -1.671875]]> : tensor<2x4xbf16>
  %l5 = arith.constant dense<[1, 3]> : tensor<2xi64>
  %ce5 = train.cross_entropy %x5, %l5 : tensor<2x4xbf16>, tensor<2xi64> -> tensor<f32>
  // CHECK: Unranked Memref {{.*}} sizes = []
  // CHECK-NEXT: [2.1498{{([1-9])?}}]
  %pu8 = tensor.cast %ce5 : tensor<f32> to tensor<*xf32>
  call @printMemrefF32(%pu8) : (tensor<*xf32>) -> ()

  // mse_loss f64
  %a = arith.constant dense<[[0.2764, 0.7005, -0.4448], [-1.0764, 0.0261, -0.0527]]> : tensor<2x3xf64>
  %t = arith.constant dense<[[1.4056, 0.7474, 0.1938], [1.1116, -0.2055, -0.9259]]> : tensor<2x3xf64>
  %m1 = train.mse_loss %a, %t : tensor<2x3xf64>, tensor<2x3xf64> -> tensor<f64>
  // CHECK: Unranked Memref {{.*}} sizes = []
  // CHECK-NEXT: [1.21476]
  %pu9 = tensor.cast %m1 : tensor<f64> to tensor<*xf64>
  call @printMemrefF64(%pu9) : (tensor<*xf64>) -> ()

  // mse_loss_grad f64: d/da (g * mse_loss(a, t))
  %gm = arith.constant dense<0.37> : tensor<f64>
  %dm1 = train.mse_loss_grad %gm, %a, %t : tensor<f64>, tensor<2x3xf64>, tensor<2x3xf64> -> tensor<2x3xf64>
  // CHECK: Unranked Memref {{.*}} sizes = [2, 3]
  // CHECK-NEXT: {{\[\[}}-0.139268, -0.00578433, -0.0787607],
  // CHECK-NEXT: [-0.269853, 0.028564, 0.107695]]
  %pu10 = tensor.cast %dm1 : tensor<2x3xf64> to tensor<*xf64>
  call @printMemrefF64(%pu10) : (tensor<*xf64>) -> ()

  // mse_loss with bf16 inputs accumulates in f32
  %ab = arith.constant dense<[[1.5, -2.0], [0.25, 3.0]]> : tensor<2x2xbf16>
  %tb = arith.constant dense<[[0.5, 1.0], [0.25, -1.0]]> : tensor<2x2xbf16>
  %m2 = train.mse_loss %ab, %tb : tensor<2x2xbf16>, tensor<2x2xbf16> -> tensor<f32>
  // CHECK: Unranked Memref {{.*}} sizes = []
  // CHECK-NEXT: [6.5]
  %pu11 = tensor.cast %m2 : tensor<f32> to tensor<*xf32>
  call @printMemrefF32(%pu11) : (tensor<*xf32>) -> ()
  return
}
