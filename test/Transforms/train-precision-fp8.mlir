// RUN: mem-opt --mlir-print-debuginfo=false %s --train-precision=mode=fp8 | FileCheck %s
// RUN: mem-opt --mlir-print-debuginfo=false %s --train-precision=mode=fp8 --train-autodiff | FileCheck %s --check-prefix=STEP
// RUN: mem-opt --mlir-print-debuginfo=false %s --train-precision='mode=fp8 exclude=head' | FileCheck %s --check-prefix=EXCLUDE
// RUN: mem-opt --mlir-print-debuginfo=false %s --train-precision='mode=fp8 keep-fp32=head amax-history=4 margin=1' | FileCheck %s --check-prefix=KEEP
// RUN: mem-opt --mlir-print-debuginfo=false %s --train-precision=mode=fp8 --train-autodiff --train-verify-step --train-lifetimes --train-plan-memory --train-verify-plan -o /dev/null
// RUN: mem-opt --mlir-print-debuginfo=false %s --train-precision=mode=fp8 --train-autodiff --train-remat=algorithm=sqrt --train-verify-step | FileCheck %s --check-prefix=REMAT

// fp8 is bf16-mixed with each matmul that reads a parameter in fp8: both
// operands quantized to E4M3 with the scale of their own amax history (the
// weight from its f32 master, the activation from the f32 layer norm output
// itself: no bf16 copy of either), one scaled_matmul into bf16, and a third
// history for its output gradient. Other ops are as in bf16-mixed.
// CHECK-LABEL: func.func @block(
// CHECK-SAME:      attributes {train.precision = {amax_history = 16 : i64, grads = "fp32", margin = 0 : i64, mode = "fp8"}}
// CHECK:         %[[H:.+]], %{{.+}}, %{{.+}} = train.layer_norm
// CHECK:         %[[W:.+]] = train.param "fc.weight" : tensor<8x8xf32>
// CHECK-NEXT:    %[[HX:.+]] = train.opt_state "fp8.fc.lhs.amax_history" : tensor<16xf32>
// CHECK-NEXT:    %[[SX:.+]] = train.fp8_scale %[[HX]] {format = f8E4M3FN} : tensor<16xf32> -> tensor<f32>
// CHECK-NEXT:    %[[QX:.+]], %{{.+}} = train.quantize %[[H]], %[[SX]] : tensor<4x8xf32>, tensor<f32> -> tensor<4x8xf8E4M3FN>, tensor<f32>
// CHECK-NEXT:    %[[HW:.+]] = train.opt_state "fp8.fc.rhs.amax_history" : tensor<16xf32>
// CHECK-NEXT:    %[[SW:.+]] = train.fp8_scale %[[HW]] {format = f8E4M3FN}
// CHECK-NEXT:    %[[QW:.+]], %{{.+}} = train.quantize %[[W]], %[[SW]] : tensor<8x8xf32>, tensor<f32> -> tensor<8x8xf8E4M3FN>, tensor<f32>
// CHECK-NEXT:    %[[HG:.+]] = train.opt_state "fp8.fc.grad_output.amax_history" : tensor<16xf32>
// CHECK-NEXT:    %[[Y:.+]] = train.scaled_matmul %[[QX]], %[[QW]] scales(%[[SX]], %[[SW]] : tensor<f32>, tensor<f32>) grad_history(%[[HG]] : tensor<16xf32>) : tensor<4x8xf8E4M3FN>, tensor<8x8xf8E4M3FN> -> tensor<4x8xbf16>
// CHECK:         train.bias_add %[[Y]], %{{.+}} : tensor<4x8xbf16>, tensor<8xbf16> -> tensor<4x8xbf16>
// CHECK:         train.scaled_matmul {{.*}} -> tensor<4x5xbf16>
// CHECK-NOT:     train.matmul
// CHECK:         return

// The backward pass: each output gradient quantized to E5M2 with its own
// history's scale, both gradients scaled matmuls of the saved fp8 operands
// (the weight's widened to the f32 main gradient); after the updates, the
// step's amaxes enter their histories, forward ones first.
// STEP-LABEL: func.func @block(
// STEP:         %[[QX:.+]], %[[AX:.+]] = train.quantize %{{.+}}, %[[SX:[^ ]+]] : tensor<4x8xf32>, tensor<f32> -> tensor<4x8xf8E4M3FN>, tensor<f32>
// STEP:         %[[QW:.+]], %[[AW:.+]] = train.quantize %fc.weight, %[[SW:[^ ]+]] :
// STEP:         %[[SG:.+]] = train.fp8_scale %fp8.fc.grad_output.amax_history {format = f8E5M2} : tensor<16xf32> -> tensor<f32>
// STEP-NEXT:    %[[QG:.+]], %[[AG:.+]] = train.quantize %{{.+}}, %[[SG]] : tensor<4x8xbf16>, tensor<f32> -> tensor<4x8xf8E5M2>, tensor<f32>
// STEP-NEXT:    train.scaled_matmul %[[QG]], %[[QW]] scales(%[[SG]], %[[SW]] : tensor<f32>, tensor<f32>) {transpose_rhs} : tensor<4x8xf8E5M2>, tensor<8x8xf8E4M3FN> -> tensor<4x8xbf16>
// STEP-NEXT:    %[[DW:.+]] = train.scaled_matmul %[[QX]], %[[QG]] scales(%[[SX]], %[[SG]] : tensor<f32>, tensor<f32>) {transpose_lhs} : tensor<4x8xf8E4M3FN>, tensor<4x8xf8E5M2> -> tensor<8x8xbf16>
// STEP-NEXT:    %[[DW32:.+]] = train.cast %[[DW]] : tensor<8x8xbf16> -> tensor<8x8xf32>
// STEP:         train.adam %fc.weight, %[[DW32]],
// STEP:         train.adam %head.weight
// STEP-NEXT:    train.amax_record %[[AX]], %fp8.fc.lhs.amax_history : tensor<f32>, tensor<16xf32>
// STEP-NEXT:    train.amax_record %[[AW]], %fp8.fc.rhs.amax_history
// STEP-NEXT:    train.amax_record %{{.+}}, %fp8.head.lhs.amax_history
// STEP-NEXT:    train.amax_record %{{.+}}, %fp8.head.rhs.amax_history
// STEP-NEXT:    train.amax_record %{{.+}}, %fp8.head.grad_output.amax_history
// STEP-NEXT:    train.amax_record %[[AG]], %fp8.fc.grad_output.amax_history
// STEP-NEXT:    return

// train-remat recomputes quantizations (their fp8 results are activations)
// before the updates, but never an amax the records read after them: that
// would quantize the updated weight.
// REMAT-LABEL: func.func @block(
// REMAT:         %{{.+}}, %[[AW:.+]] = train.quantize %fc.weight, %{{[^ ]+}} : tensor<8x8xf32>
// REMAT:         train.quantize %fc.weight, %{{.+}} {train.recomputed}
// REMAT:         train.adam
// REMAT-NOT:     train.recomputed
// REMAT:         train.amax_record %[[AW]], %fp8.fc.rhs.amax_history
// REMAT-NOT:     train.recomputed
// REMAT:         return

// exclude=head keeps the head out of fp8: a bf16 matmul of bf16 copies.
// EXCLUDE-LABEL: func.func @block(
// EXCLUDE:         train.scaled_matmul {{.*}} -> tensor<4x8xbf16>
// EXCLUDE:         %[[W2:.+]] = train.param "head.weight" : tensor<8x5xf32>
// EXCLUDE:         %[[W2L:.+]] = train.cast %[[W2]] : tensor<8x5xf32> -> tensor<8x5xbf16>
// EXCLUDE-NEXT:    train.matmul %{{.+}}, %[[W2L]] : tensor<4x8xbf16>, tensor<8x5xbf16> -> tensor<4x5xbf16>
// EXCLUDE-NOT:     fp8.head

// keep-fp32=head: f32 from the master; the histories have 4 entries and the
// scales a margin of 1.
// KEEP-LABEL: func.func @block(
// KEEP-SAME:      train.precision = {amax_history = 4 : i64, grads = "fp32", margin = 1 : i64, mode = "fp8"}
// KEEP:         train.fp8_scale %{{.+}} {format = f8E4M3FN, margin = 1 : i64} : tensor<4xf32> -> tensor<f32>
// KEEP:         %[[W2:.+]] = train.param "head.weight" : tensor<8x5xf32>
// KEEP-NEXT:    train.matmul %{{.+}}, %[[W2]] : tensor<4x8xf32>, tensor<8x5xf32> -> tensor<4x5xf32>

func.func @block(%x: tensor<4x8xf32> loc("x"), %labels: tensor<4xi64> loc("labels")) -> tensor<f32> {
  %g = train.param "ln.weight" : tensor<8xf32> loc("ln.weight")
  %b = train.param "ln.bias" : tensor<8xf32> loc("ln.bias")
  %h, %mean, %rstd = train.layer_norm %x, %g, %b : tensor<4x8xf32>, tensor<8xf32>, tensor<8xf32> -> tensor<4x8xf32>, tensor<4xf32>, tensor<4xf32> loc("ln")
  %w = train.param "fc.weight" : tensor<8x8xf32> loc("fc.weight")
  %y = train.matmul %h, %w : tensor<4x8xf32>, tensor<8x8xf32> -> tensor<4x8xf32> loc("fc")
  %c = train.param "fc.bias" : tensor<8xf32> loc("fc.bias")
  %z = train.bias_add %y, %c : tensor<4x8xf32>, tensor<8xf32> -> tensor<4x8xf32> loc("fc.bias_add")
  %a = train.gelu %z : tensor<4x8xf32> loc("act")
  %r = train.add %a, %x : tensor<4x8xf32> loc("residual")
  %w2 = train.param "head.weight" : tensor<8x5xf32> loc("head.weight")
  %logits = train.matmul %r, %w2 : tensor<4x8xf32>, tensor<8x5xf32> -> tensor<4x5xf32> loc("head")
  %loss = train.cross_entropy %logits, %labels : tensor<4x5xf32>, tensor<4xi64> -> tensor<f32> loc("loss")
  return %loss : tensor<f32>
}
