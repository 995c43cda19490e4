// A bf16 (f16) matmul accumulates in f32 and rounds once, as cuBLAS
// (CUBLAS_COMPUTE_32F) and PyTorch's GEMMs do: 300 products of ones sum to
// 300 (a bf16), where a sum rounded to bf16 after every product stops at
// 256 (256 + 1 rounds back to 256); in f16, 3000 ones sum to 3000, not
// 2048. The CPU lowering (memopt-widen-contraction-accumulators) and the
// GPU lowering run by the emulator (cuBLAS stand-in) agree.
// RUN: mem-opt %s --convert-train-to-linalg --memopt-lower-to-cpu \
// RUN:   | %mlir_runner -e main -entry-point-result=void %runner_libs \
// RUN:   | FileCheck %s
// RUN: mem-opt %s --convert-train-to-linalg %gpu_emulator \
// RUN:   | %mlir_runner -e main -entry-point-result=void %runner_libs \
// RUN:   | FileCheck %s

func.func @bf16(%a: tensor<2x300xbf16>, %b: tensor<300x3xbf16>) -> tensor<2x3xf32> {
  %c = train.matmul %a, %b : tensor<2x300xbf16>, tensor<300x3xbf16> -> tensor<2x3xbf16>
  %f = train.cast %c : tensor<2x3xbf16> -> tensor<2x3xf32>
  return %f : tensor<2x3xf32>
}

func.func @f16_batched(%a: tensor<2x1x3000xf16>, %b: tensor<2x3000x1xf16>) -> tensor<2x1x1xf32> {
  %c = train.matmul %a, %b : tensor<2x1x3000xf16>, tensor<2x3000x1xf16> -> tensor<2x1x1xf16>
  %f = train.cast %c : tensor<2x1x1xf16> -> tensor<2x1x1xf32>
  return %f : tensor<2x1x1xf32>
}

func.func @main() {
  %a = arith.constant dense<1.0> : tensor<2x300xbf16>
  %b = arith.constant dense<1.0> : tensor<300x3xbf16>
  %c = call @bf16(%a, %b) : (tensor<2x300xbf16>, tensor<300x3xbf16>) -> tensor<2x3xf32>
  %cu = tensor.cast %c : tensor<2x3xf32> to tensor<*xf32>
  // CHECK: {{\[}}[300,   300,   300],
  // CHECK-NEXT: [300,   300,   300]]
  call @printMemrefF32(%cu) : (tensor<*xf32>) -> ()
  %x = arith.constant dense<1.0> : tensor<2x1x3000xf16>
  %y = arith.constant dense<1.0> : tensor<2x3000x1xf16>
  %z = call @f16_batched(%x, %y) : (tensor<2x1x3000xf16>, tensor<2x3000x1xf16>) -> tensor<2x1x1xf32>
  %zu = tensor.cast %z : tensor<2x1x1xf32> to tensor<*xf32>
  // CHECK: 3000
  // CHECK: 3000
  call @printMemrefF32(%zu) : (tensor<*xf32>) -> ()
  return
}

func.func private @printMemrefF32(tensor<*xf32>)
