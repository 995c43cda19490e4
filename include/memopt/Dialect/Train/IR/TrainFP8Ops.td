//===- TrainFP8Ops.td --------------------------------------*- tablegen -*-===//
//
// Fp8 with delayed scaling.
// Included by TrainOps.td, which defines Train_Op and the traits used here.
//
//===----------------------------------------------------------------------===//

#ifndef MEMOPT_DIALECT_TRAIN_IR_TRAINFP8OPS_TD
#define MEMOPT_DIALECT_TRAIN_IR_TRAINFP8OPS_TD

//===----------------------------------------------------------------------===//
// fp8 with delayed scaling
//===----------------------------------------------------------------------===//

def Train_FP8ScaleOp : Train_Op<"fp8_scale", [Pure, Train_KeepFP32]> {
  let summary = "The scale of an fp8 quantization, from its amax history";
  let description = [{
    Delayed scaling (Transformer Engine's recipe): the largest magnitude
    `amax` recorded in the persistent `amax_history` (a `train.opt_state`,
    filled by `train.amax_record` at the end of earlier steps) gives the
    scale that maps it just inside the range of `format` (`f8E4M3FN`,
    largest finite 448, or `f8E5M2`, 57344):
    the largest power of two `s` with `amax * s <= max(format) / 2^margin`.
    A power of two makes scaling and unscaling exact. While the history
    holds no positive finite amax (the first step: states start at zero)
    the scale is 1. 1 FLOP per history element, plus 2.

    Example:
    ```mlir
    %h = train.opt_state "fp8.fc1.lhs.amax_history" : tensor<16xf32>
    %s = train.fp8_scale %h {format = f8E4M3FN} : tensor<16xf32> -> tensor<f32>
    ```
  }];
  let arguments = (ins Train_AmaxHistoryTensor:$amax_history,
                   TypeAttr:$format,
                   DefaultValuedAttr<I64Attr, "0">:$margin);
  let results = (outs Train_ScaleTensor:$scale);
  let assemblyFormat =
      "$amax_history attr-dict `:` type($amax_history) `->` type($scale)";
  let hasVerifier = 1;
}

def Train_QuantizeOp : Train_Op<"quantize", [Train_Differentiable, Pure,
                                             Train_LowPrecisionSafe]> {
  let summary = "Scales a tensor into fp8 and measures its amax";
  let description = [{
    `result = fp8(input * scale)`, rounded to nearest even and saturated to
    the format's largest finite value (NVIDIA's `satfinite` conversion),
    and `amax = max |input|` (NaN if an element is NaN), the value
    `train.amax_record` adds to the history the scale came from. The
    gradient passes straight through: the gradient of `input` is the
    gradient of the dequantized value `result / scale`, which
    `train.scaled_matmul`'s rule gives. 3 FLOPs per element.

    Example:
    ```mlir
    %q, %amax = train.quantize %x, %s : tensor<64x768xbf16>, tensor<f32> -> tensor<64x768xf8E4M3FN>, tensor<f32>
    ```
  }];
  let arguments = (ins Train_FloatTensor:$input, Train_ScaleTensor:$scale);
  let results = (outs Train_FP8Tensor:$result, Train_ScaleTensor:$amax);
  let assemblyFormat = "$input `,` $scale attr-dict `:` type($input) `,` "
                       "type($scale) `->` type($result) `,` type($amax)";
  let hasVerifier = 1;
}

def Train_ScaledMatmulOp : Train_Op<"scaled_matmul", [Train_Differentiable,
    Pure, Train_LowPrecisionSafe]> {
  let summary = "Matrix multiplication of fp8 tensors with their scales";
  let description = [{
    `result = (op(lhs) x op(rhs)) / (lhs_scale * rhs_scale)`: the product of
    the dequantized operands, with `train.matmul`'s shapes and transposes.
    The sum runs in f32 and is rounded once to the result type, bf16 or f32
    (the sum of the scaled values needs their 8-bit exponent); the scales
    are powers of two (`train.fp8_scale`), so unscaling it is exact.
    `2*M*N*K` FLOPs per batch, plus one per result element.

    The backward pass is fp8 too (Transformer Engine's HYBRID format): the
    result gradient is quantized to `f8E5M2` with the scale of
    `grad_history` (the persistent amax history of that gradient), and
    `d lhs = g x op(rhs)^T` and `d rhs = op(lhs)^T x g` are scaled matmuls
    of the saved fp8 operands. Differentiating through the op needs
    `grad_history`; the gradient's scale has the margin of `lhs_scale`'s
    `train.fp8_scale` (0 otherwise).

    Example:
    ```mlir
    %y = train.scaled_matmul %qx, %qw scales(%sx, %sw : tensor<f32>, tensor<f32>)
        grad_history(%hg : tensor<16xf32>)
        : tensor<64x768xf8E4M3FN>, tensor<768x3072xf8E4M3FN> -> tensor<64x3072xbf16>
    ```
  }];
  let arguments = (ins Train_FP8Tensor:$lhs, Train_FP8Tensor:$rhs,
                   Train_ScaleTensor:$lhs_scale, Train_ScaleTensor:$rhs_scale,
                   Optional<Train_AmaxHistoryTensor>:$grad_history,
                   UnitAttr:$transpose_lhs, UnitAttr:$transpose_rhs);
  let results = (outs Train_FloatTensor:$result);
  let assemblyFormat =
      "$lhs `,` $rhs `scales` `(` $lhs_scale `,` $rhs_scale `:` "
      "type($lhs_scale) `,` type($rhs_scale) `)` (`grad_history` `(` "
      "$grad_history^ `:` type($grad_history) `)`)? attr-dict `:` type($lhs) "
      "`,` type($rhs) `->` type($result)";
  let hasVerifier = 1;
}

def Train_AmaxRecordOp : Train_Op<"amax_record", [Train_KeepFP32,
    MemoryEffects<[MemRead<Train_StateResource>, MemWrite<Train_StateResource>]>],
    [], ["isUpdatedInPlace"]> {
  let summary = "Adds a step's amax to an fp8 amax history, in place";
  let description = [{
    Moves every entry of the persistent `amax_history` one place on (the
    oldest falls off) and writes `amax` (from `train.quantize`) at index 0.
    `train-autodiff` records each quantization of a step whose scale comes
    from `train.fp8_scale` this way, after the optimizer updates, so that
    every scale of the step is computed from the same history. 1 FLOP per
    history element.

    Example:
    ```mlir
    train.amax_record %amax, %h : tensor<f32>, tensor<16xf32>
    ```
  }];
  let arguments = (ins Train_ScaleTensor:$amax,
                   Train_AmaxHistoryTensor:$amax_history);
  let assemblyFormat = "$amax `,` $amax_history attr-dict `:` type($amax) `,` "
                       "type($amax_history)";
  let hasVerifier = 1;
}

#endif // MEMOPT_DIALECT_TRAIN_IR_TRAINFP8OPS_TD
