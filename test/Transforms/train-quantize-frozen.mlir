// RUN: mem-opt %s --split-input-file --train-quantize-frozen | FileCheck %s
// RUN: mem-opt %s --split-input-file --train-quantize-frozen='double-quant=false block=32' | FileCheck %s --check-prefix=NODQ
// RUN: mem-opt %s --split-input-file --train-quantize-frozen='format=int8' | FileCheck %s --check-prefix=INT8
// RUN: mem-opt %s --split-input-file --train-quantize-frozen --train-autodiff='optimizer=sgd' | FileCheck %s --check-prefix=STEP

// train-quantize-frozen on a LoRA forward pass (what train-lora writes:
// the base frozen, the adapters trainable). The frozen linear weights, read
// only as a train.matmul's right operand, become quantized storage: frozen
// train.params named after the weight (read where the weight was) and a
// dequantize op before each matmul, yielding the weight in its type. The
// embedding (read by train.embedding), the bias and the norm weight (1-d),
// and the trainable adapters stay as they are.
//
// NF4, blocks of 64, double quantization: fc1.weight (6 x 100 = 600
// elements) packs two codes a byte (300 bytes), has ceil(600 / 64) = 10
// absmaxes, coded in 8 bits, one f32 scale per 256 of them (1) and their
// f32 mean. fc2.weight, [out, in] read with transpose_rhs, is read twice:
// it is dequantized before each read, where the layer computes.

// CHECK-LABEL: func.func @lora
// CHECK:       train.param "wte.weight" {trainable = false} : tensor<10x6xf32>
// CHECK:       %[[C1:.*]] = train.param "fc1.weight.nf4.codes" {trainable = false} : tensor<300xi8>
// CHECK-NEXT:  %[[A1:.*]] = train.param "fc1.weight.nf4.absmax" {trainable = false} : tensor<10xi8>
// CHECK-NEXT:  %[[S1:.*]] = train.param "fc1.weight.nf4.absmax.scale" {trainable = false} : tensor<1xf32>
// CHECK-NEXT:  %[[O1:.*]] = train.param "fc1.weight.nf4.absmax.offset" {trainable = false} : tensor<f32>
// CHECK-NEXT:  train.param "fc1.bias" {trainable = false} : tensor<100xf32>
// CHECK-NEXT:  train.param "ln.weight" {trainable = false} : tensor<6xf32>
// CHECK:       %[[W1:.*]] = train.dequantize_nf4 %[[C1]], %[[A1]] double_quant(%[[S1]], %[[O1]] : tensor<1xf32>, tensor<f32>) {weight = "fc1.weight"} : tensor<300xi8>, tensor<10xi8> -> tensor<6x100xf32>
// CHECK-NEXT:  train.matmul %{{.*}}, %[[W1]] : tensor<4x6xf32>, tensor<6x100xf32> -> tensor<4x100xf32>
// CHECK:       train.param "fc1.lora_A.weight" : tensor<2x6xf32>
// CHECK:       %[[C2:.*]] = train.param "fc2.weight.nf4.codes" {trainable = false} : tensor<300xi8>
// CHECK:       %[[W2:.*]] = train.dequantize_nf4 %[[C2]], {{.*}} {weight = "fc2.weight"} : tensor<300xi8>, tensor<10xi8> -> tensor<6x100xf32>
// CHECK-NEXT:  train.matmul %{{.*}}, %[[W2]] {transpose_rhs}
// CHECK:       %[[W3:.*]] = train.dequantize_nf4 %[[C2]], {{.*}} {weight = "fc2.weight"}
// CHECK-NEXT:  train.matmul %{{.*}}, %[[W3]] {transpose_rhs}
// CHECK-NOT:   train.dequantize
// CHECK:       return

// Without double quantization, in blocks of 32: 19 f32 absmaxes (the last
// block of 24 elements), nothing else.
// NODQ-LABEL: func.func @lora
// NODQ:       %[[C:.*]] = train.param "fc1.weight.nf4.codes" {trainable = false} : tensor<300xi8>
// NODQ-NEXT:  %[[A:.*]] = train.param "fc1.weight.nf4.absmax" {trainable = false} : tensor<19xf32>
// NODQ-NEXT:  train.param "fc1.bias"
// NODQ:       train.dequantize_nf4 %[[C]], %[[A]] {block = 32 : i64, weight = "fc1.weight"} : tensor<300xi8>, tensor<19xf32> -> tensor<6x100xf32>

// int8: a code per element and an f32 absmax per output feature: the
// columns of the input-major fc1.weight ([in, out]: axis 1), the rows of
// the [out, in] fc2.weight read transposed (axis 0).
// INT8-LABEL: func.func @lora
// INT8:       %[[C:.*]] = train.param "fc1.weight.int8.codes" {trainable = false} : tensor<6x100xi8>
// INT8-NEXT:  %[[S:.*]] = train.param "fc1.weight.int8.scale" {trainable = false} : tensor<100xf32>
// INT8:       train.dequantize_int8 %[[C]], %[[S]] {axis = 1 : i64, weight = "fc1.weight"} : tensor<6x100xi8>, tensor<100xf32> -> tensor<6x100xf32>
// INT8:       train.param "fc2.weight.int8.scale" {trainable = false} : tensor<6xf32>
// INT8:       train.dequantize_int8 {{.*}} {axis = 0 : i64, weight = "fc2.weight"} : tensor<6x100xi8>, tensor<6xf32> -> tensor<6x100xf32>

// The step: only the adapters are updated. The backward pass dequantizes
// fc2.weight again before each matmul that computes an input's gradient
// (dX = dY W), rather than keeping the forward's copies alive from the
// forward pass: each dequantized weight has one reader. fc1.weight's input
// needs no gradient (nothing before it is trainable): it is not read again.
// STEP-LABEL: func.func @lora
// STEP:       train.cross_entropy
// STEP:       %[[AGAIN:.*]] = train.dequantize_nf4 %fc2.weight.nf4.codes, {{.*}} {weight = "fc2.weight"}
// STEP-NEXT:  train.matmul %{{.*}}, %[[AGAIN]] : tensor<4x6xf32>, tensor<6x100xf32> -> tensor<4x100xf32>
// STEP-NEXT:  %[[AGAIN2:.*]] = train.dequantize_nf4 %fc2.weight.nf4.codes, {{.*}} {weight = "fc2.weight"}
// STEP-NEXT:  train.matmul %{{.*}}, %[[AGAIN2]] : tensor<4x6xf32>, tensor<6x100xf32> -> tensor<4x100xf32>
// STEP-NOT:   train.dequantize_nf4
// STEP-NOT:   train.sgd %fc1.weight
// STEP-NOT:   train.sgd %fc2.weight
// STEP:       train.sgd %fc1.lora_A.weight
// STEP-NOT:   train.sgd {{.*}}nf4
// STEP:       return
func.func @lora(%ids: tensor<4xi64>, %labels: tensor<4xi64>) -> tensor<f32> {
  %wte = train.param "wte.weight" {trainable = false} : tensor<10x6xf32>
  %w1 = train.param "fc1.weight" {trainable = false} : tensor<6x100xf32>
  %b1 = train.param "fc1.bias" {trainable = false} : tensor<100xf32>
  %g = train.param "ln.weight" {trainable = false} : tensor<6xf32>
  %x = train.embedding %wte, %ids : tensor<10x6xf32>, tensor<4xi64> -> tensor<4x6xf32>
  %xn = train.bias_add %x, %g : tensor<4x6xf32>, tensor<6xf32> -> tensor<4x6xf32>
  %h = train.matmul %xn, %w1 : tensor<4x6xf32>, tensor<6x100xf32> -> tensor<4x100xf32>
  %hb = train.bias_add %h, %b1 : tensor<4x100xf32>, tensor<100xf32> -> tensor<4x100xf32>
  %a = train.param "fc1.lora_A.weight" : tensor<2x6xf32>
  %ax = train.matmul %xn, %a {transpose_rhs} : tensor<4x6xf32>, tensor<2x6xf32> -> tensor<4x2xf32>
  %bw = train.param "fc1.lora_B.weight" : tensor<100x2xf32>
  %bx = train.matmul %ax, %bw {transpose_rhs} : tensor<4x2xf32>, tensor<100x2xf32> -> tensor<4x100xf32>
  %s = train.add %hb, %bx : tensor<4x100xf32>
  %r = train.relu %s : tensor<4x100xf32>
  %w2 = train.param "fc2.weight" {trainable = false} : tensor<6x100xf32>
  %o = train.matmul %r, %w2 {transpose_rhs} : tensor<4x100xf32>, tensor<6x100xf32> -> tensor<4x6xf32>
  %o2 = train.matmul %s, %w2 {transpose_rhs} : tensor<4x100xf32>, tensor<6x100xf32> -> tensor<4x6xf32>
  %logits = train.add %o, %o2 : tensor<4x6xf32>
  %l = train.cross_entropy %logits, %labels : tensor<4x6xf32>, tensor<4xi64> -> tensor<f32>
  return %l : tensor<f32>
}
