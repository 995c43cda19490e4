// Every op of the family lowers all the way to the LLVM dialect.
// RUN: mem-opt %s --convert-train-to-linalg --memopt-lower-to-cpu | FileCheck %s
// RUN: mem-opt %s --convert-train-to-linalg --memopt-lower-to-cpu \
// RUN:   | FileCheck %s --check-prefix=LOWERED

// Nothing but the LLVM dialect is left.
// LOWERED-NOT: {{train\.|linalg\.|tensor\.|memref\.|scf\.|math\.|arith\.}}

// CHECK-LABEL: llvm.func @layer_norm(
func.func @layer_norm(%x: tensor<2x3x8xbf16>, %g: tensor<8xf32>, %b: tensor<8xf32>)
    -> (tensor<2x3x8xbf16>, tensor<2x3xf32>, tensor<2x3xf32>) {
  %y, %m, %r = train.layer_norm %x, %g, %b
      : tensor<2x3x8xbf16>, tensor<8xf32>, tensor<8xf32>
      -> tensor<2x3x8xbf16>, tensor<2x3xf32>, tensor<2x3xf32>
  return %y, %m, %r : tensor<2x3x8xbf16>, tensor<2x3xf32>, tensor<2x3xf32>
}

// CHECK-LABEL: llvm.func @layer_norm_grad(
func.func @layer_norm_grad(%dy: tensor<4x8xf64>, %x: tensor<4x8xf64>, %g: tensor<8xf64>,
                           %m: tensor<4xf32>, %r: tensor<4xf32>)
    -> (tensor<4x8xf64>, tensor<8xf64>, tensor<8xf64>) {
  %dx, %dg, %db = train.layer_norm_grad %dy, %x, %g, %m, %r
      : tensor<4x8xf64>, tensor<4x8xf64>, tensor<8xf64>, tensor<4xf32>, tensor<4xf32>
      -> tensor<4x8xf64>, tensor<8xf64>, tensor<8xf64>
  return %dx, %dg, %db : tensor<4x8xf64>, tensor<8xf64>, tensor<8xf64>
}

// CHECK-LABEL: llvm.func @rms_norm(
func.func @rms_norm(%x: tensor<8xf16>, %g: tensor<8xf16>) -> (tensor<8xf16>, tensor<f32>) {
  %y, %r = train.rms_norm %x, %g : tensor<8xf16>, tensor<8xf16> -> tensor<8xf16>, tensor<f32>
  return %y, %r : tensor<8xf16>, tensor<f32>
}

// CHECK-LABEL: llvm.func @rms_norm_grad(
func.func @rms_norm_grad(%dy: tensor<2x4x8xbf16>, %x: tensor<2x4x8xbf16>, %g: tensor<8xbf16>,
                         %r: tensor<2x4xf32>) -> (tensor<2x4x8xbf16>, tensor<8xbf16>) {
  %dx, %dg = train.rms_norm_grad %dy, %x, %g, %r
      : tensor<2x4x8xbf16>, tensor<2x4x8xbf16>, tensor<8xbf16>, tensor<2x4xf32>
      -> tensor<2x4x8xbf16>, tensor<8xbf16>
  return %dx, %dg : tensor<2x4x8xbf16>, tensor<8xbf16>
}

// CHECK-LABEL: llvm.func @rotary(
func.func @rotary(%x: tensor<1x2x16x64xbf16>) -> tensor<1x2x16x64xbf16> {
  %r = train.rotary %x : tensor<1x2x16x64xbf16>
  return %r : tensor<1x2x16x64xbf16>
}

// CHECK-LABEL: llvm.func @rotary_grad(
func.func @rotary_grad(%x: tensor<16x8xf64>) -> tensor<16x8xf64> {
  %r = train.rotary_grad %x {theta = 5.0e5 : f64} : tensor<16x8xf64>
  return %r : tensor<16x8xf64>
}

// CHECK-LABEL: llvm.func @attention(
func.func @attention(%q: tensor<1x8x16x64xbf16>, %k: tensor<1x2x16x64xbf16>, %v: tensor<1x2x16x64xbf16>)
    -> (tensor<1x8x16x64xbf16>, tensor<1x8x16xf32>) {
  %o, %l = train.attention %q, %k, %v {causal, scale = 0.125 : f64}
      : tensor<1x8x16x64xbf16>, tensor<1x2x16x64xbf16>, tensor<1x2x16x64xbf16>
      -> tensor<1x8x16x64xbf16>, tensor<1x8x16xf32>
  return %o, %l : tensor<1x8x16x64xbf16>, tensor<1x8x16xf32>
}

// CHECK-LABEL: llvm.func @attention_grad(
func.func @attention_grad(%do: tensor<1x8x16x64xbf16>, %q: tensor<1x8x16x64xbf16>,
                          %k: tensor<1x2x16x64xbf16>, %v: tensor<1x2x16x64xbf16>,
                          %o: tensor<1x8x16x64xbf16>, %l: tensor<1x8x16xf32>)
    -> (tensor<1x8x16x64xbf16>, tensor<1x2x16x64xbf16>, tensor<1x2x16x64xbf16>) {
  %dq, %dk, %dv = train.attention_grad %do, %q, %k, %v, %o, %l {causal, scale = 0.125 : f64}
      : tensor<1x8x16x64xbf16>, tensor<1x8x16x64xbf16>, tensor<1x2x16x64xbf16>,
        tensor<1x2x16x64xbf16>, tensor<1x8x16x64xbf16>, tensor<1x8x16xf32>
      -> tensor<1x8x16x64xbf16>, tensor<1x2x16x64xbf16>, tensor<1x2x16x64xbf16>
  return %dq, %dk, %dv : tensor<1x8x16x64xbf16>, tensor<1x2x16x64xbf16>, tensor<1x2x16x64xbf16>
}
