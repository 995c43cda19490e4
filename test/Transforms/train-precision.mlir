// RUN: mem-opt --mlir-print-debuginfo=false %s --train-precision | FileCheck %s
// RUN: mem-opt --mlir-print-debuginfo=false %s --train-precision='keep-fp32=head' | FileCheck %s --check-prefix=PIN
// RUN: mem-opt --mlir-print-debuginfo=false %s --train-precision='mode=bf16-pure' --train-autodiff | FileCheck %s --check-prefix=PURE
// RUN: mem-opt --mlir-print-debuginfo=false %s --train-precision='mode=bf16-mixed grads=bf16' --train-autodiff | FileCheck %s --check-prefix=GRADS16
// RUN: mem-opt --mlir-print-debuginfo=false %s --train-precision='mode=bf16-mixed' --train-autodiff | FileCheck %s --check-prefix=GRADS32
// RUN: mem-opt --mlir-print-debuginfo=false %s --train-precision='mode=fp32' | FileCheck %s --check-prefix=FP32
// RUN: mem-opt --mlir-print-debuginfo=false %s --train-precision='mode=bf16-mixed' --train-autodiff --train-verify-step --train-lifetimes -o /dev/null

// A pre-norm block: the op classes decide each op's type. Every parameter
// is read through one bf16 copy (the layer norm's widened back to f32);
// layer_norm and cross_entropy (KeepFP32) compute in f32; matmul and gelu
// (LowPrecisionSafe) in bf16; bias_add (PromoteToWidest) counts the bias as
// its bf16 copy; the residual add promotes to f32 because x is f32.
// CHECK-LABEL: func.func @block(
// CHECK-SAME:      %[[X:[^:]+]]: tensor<4x8xf32>, %[[L:[^:]+]]: tensor<4xi64>) -> tensor<f32>
// CHECK-SAME:      attributes {train.precision = {grads = "fp32", mode = "bf16-mixed"}}
// CHECK:         %[[G:.+]] = train.param "ln.weight" : tensor<8xf32>
// CHECK:         %[[B:.+]] = train.param "ln.bias" : tensor<8xf32>
// CHECK:         %[[G16:.+]] = train.cast %[[G]] : tensor<8xf32> -> tensor<8xbf16>
// CHECK:         %[[G32:.+]] = train.cast %[[G16]] : tensor<8xbf16> -> tensor<8xf32>
// CHECK:         %[[B16:.+]] = train.cast %[[B]] : tensor<8xf32> -> tensor<8xbf16>
// CHECK:         %[[B32:.+]] = train.cast %[[B16]] : tensor<8xbf16> -> tensor<8xf32>
// CHECK:         %[[H:.+]], %{{.+}}, %{{.+}} = train.layer_norm %[[X]], %[[G32]], %[[B32]] : {{.*}} -> tensor<4x8xf32>, tensor<4xf32>, tensor<4xf32>
// CHECK:         %[[W:.+]] = train.param "fc.weight" : tensor<8x8xf32>
// CHECK:         %[[H16:.+]] = train.cast %[[H]] : tensor<4x8xf32> -> tensor<4x8xbf16>
// CHECK:         %[[W16:.+]] = train.cast %[[W]] : tensor<8x8xf32> -> tensor<8x8xbf16>
// CHECK:         %[[Y:.+]] = train.matmul %[[H16]], %[[W16]] : tensor<4x8xbf16>, tensor<8x8xbf16> -> tensor<4x8xbf16>
// CHECK:         %[[C:.+]] = train.param "fc.bias" : tensor<8xf32>
// CHECK:         %[[C16:.+]] = train.cast %[[C]] : tensor<8xf32> -> tensor<8xbf16>
// CHECK:         %[[Z:.+]] = train.bias_add %[[Y]], %[[C16]] : tensor<4x8xbf16>, tensor<8xbf16> -> tensor<4x8xbf16>
// CHECK:         %[[A:.+]] = train.gelu %[[Z]] : tensor<4x8xbf16>
// CHECK:         %[[A32:.+]] = train.cast %[[A]] : tensor<4x8xbf16> -> tensor<4x8xf32>
// CHECK:         %[[R:.+]] = train.add %[[A32]], %[[X]] : tensor<4x8xf32>
// CHECK:         %[[R16:.+]] = train.cast %[[R]] : tensor<4x8xf32> -> tensor<4x8xbf16>
// CHECK:         %[[HEAD:.+]] = train.matmul %[[R16]], %{{.+}} : tensor<4x8xbf16>, tensor<8x5xbf16> -> tensor<4x5xbf16>
// CHECK:         %[[LOGITS:.+]] = train.cast %[[HEAD]] : tensor<4x5xbf16> -> tensor<4x5xf32>
// CHECK:         %[[LOSS:.+]] = train.cross_entropy %[[LOGITS]], %[[L]] : tensor<4x5xf32>, tensor<4xi64> -> tensor<f32>
// CHECK:         return %[[LOSS]] : tensor<f32>

// keep-fp32=head pins the head matmul (and nothing named "head.x" that is
// not under it): it reads the f32 master weight and computes in f32.
// PIN-LABEL: func.func @block(
// PIN:         %[[W2:.+]] = train.param "head.weight" : tensor<8x5xf32>
// PIN-NEXT:    %[[O:.+]] = train.matmul %{{.+}}, %[[W2]] : tensor<4x8xf32>, tensor<8x5xf32> -> tensor<4x5xf32>
// PIN-NEXT:    train.cross_entropy %[[O]]

// bf16-pure: the parameters, their gradients and Adam's states are bf16
// (8 bytes per parameter); layer_norm still computes in f32.
// PURE-LABEL: func.func @block(
// PURE:         train.param "ln.weight" : tensor<8xbf16>
// PURE:         train.layer_norm {{.*}} : tensor<4x8xf32>, tensor<8xf32>, tensor<8xf32> ->
// PURE:         train.adam {{.*}} : tensor<8xbf16>, tensor<8xbf16>, tensor<8xbf16>, tensor<8xbf16>

// The optimizer receives the gradient of the bf16 copy itself with
// grads=bf16, and its f32 widening with the default grads=fp32.
// GRADS16-LABEL: func.func @block(
// GRADS16-SAME:      attributes {train.precision = {grads = "bf16", mode = "bf16-mixed"}}
// GRADS16:         train.adam %fc.weight, %{{.+}}, %{{.+}}, %{{.+}} step(%{{.+}} : tensor<i64>) {lr = 1.000000e-03 : f64} : tensor<8x8xf32>, tensor<8x8xbf16>, tensor<8x8xf32>, tensor<8x8xf32>
// GRADS32-LABEL: func.func @block(
// GRADS32:         %[[DW16:.+]] = train.matmul %{{.+}}, %{{.+}} {transpose_lhs} : tensor<4x8xbf16>, tensor<4x8xbf16> -> tensor<8x8xbf16>
// GRADS32:         %[[DW:.+]] = train.cast %[[DW16]] : tensor<8x8xbf16> -> tensor<8x8xf32>
// GRADS32:         train.adam %fc.weight, %[[DW]], %{{.+}}, %{{.+}} step(%{{.+}} : tensor<i64>) {lr = 1.000000e-03 : f64} : tensor<8x8xf32>, tensor<8x8xf32>, tensor<8x8xf32>, tensor<8x8xf32>

// fp32 changes nothing.
// FP32-LABEL: func.func @block(
// FP32-NOT:     train.precision
// FP32-NOT:     train.cast
// FP32:         return
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
