//===- TrainQuantOps.td ------------------------------------*- tablegen -*-===//
//
// Frozen weights stored quantized (train-quantize-frozen): QLoRA's NF4 and
// LLM.int8-style int8, read through a dequantize op at each use.
// Included by TrainOps.td, which defines Train_Op and the traits used here.
//
//===----------------------------------------------------------------------===//

#ifndef MEMOPT_DIALECT_TRAIN_IR_TRAINQUANTOPS_TD
#define MEMOPT_DIALECT_TRAIN_IR_TRAINQUANTOPS_TD

/// Bytes of quantized storage: i8, read as unsigned for NF4 codes and as
/// signed for int8 codes.
def Train_QuantBytes : StaticShapeTensorOf<[I8]>;
def Train_QuantVector
    : Type<And<[StaticShapeTensorOf<[I8, F32]>.predicate,
                CPred<"::llvm::cast<::mlir::ShapedType>($_self).getRank() == 1">]>,
           "1-d i8 or f32 tensor", "::mlir::TensorType">;
def Train_QuantScales
    : Type<And<[StaticShapeTensorOf<[F32]>.predicate,
                CPred<"::llvm::cast<::mlir::ShapedType>($_self).getRank() == 1">]>,
           "1-d f32 tensor", "::mlir::TensorType">;

def Train_DequantizeNF4Op : Train_Op<"dequantize_nf4", [Pure,
    Train_LowPrecisionSafe, Train_Differentiable, AttrSizedOperandSegments]> {
  let summary = "Reads a frozen weight stored in QLoRA's 4-bit NormalFloat";
  let description = [{
    Yields the weight `weight` (a frozen linear layer's, replaced by
    `train-quantize-frozen`) from its NF4 storage, in the compute type of
    the result (f32, or bf16 under train-precision's mixed modes). With `n`
    the result's elements in row-major order, in blocks of `block` (a power
    of two; the last block may be partial):

    * `codes` (`ceil(n/2)` i8): two 4-bit codes per byte, element `2k` in
      the high nibble of byte `k`; each code indexes the 16 NF4 values
      (Quantization.h: QLoRA's normal quantiles, bitsandbytes' table);
    * `absmax` (`ceil(n/block)`): each block's absmax, f32; or, with
      `double_quant`, i8 codes (read as unsigned) into bitsandbytes' signed
      dynamic map, `absmax_scale` holding one f32 scale per 256 absmaxes
      and `absmax_offset` (0-d f32) their mean (QLoRA's double
      quantization).

    Element `i` of block `b` is `NF4[code_i] * A[b]` in f32, with
    `A[b] = absmax[b]` or `dynamic[absmax[b]] * absmax_scale[b / 256] +
    absmax_offset` (each operation rounded to f32), then rounded to the
    result type. Every operand must be a frozen `train.param` (the weight's
    persistent storage, `"<weight>.nf4.codes"`, `"<weight>.nf4.absmax"`,
    ...); the result is a temporary: train-autodiff dequantizes again before
    the backward pass instead of keeping it. No gradient flows into the
    storage. 1 FLOP per element, 2 more with `double_quant`.

    Example:
    ```mlir
    %w = train.dequantize_nf4 %codes, %absmax {block = 64 : i64, weight = "fc1.weight"}
        : tensor<2048xi8>, tensor<64xf32> -> tensor<64x64xf32>
    %v = train.dequantize_nf4 %codes, %qabsmax double_quant(%scale, %offset : tensor<1xf32>, tensor<f32>)
        {block = 64 : i64, weight = "fc1.weight"} : tensor<2048xi8>, tensor<64xi8> -> tensor<64x64xbf16>
    ```
  }];
  let arguments = (ins Train_QuantBytes:$codes, Train_QuantVector:$absmax,
                   Optional<Train_QuantScales>:$absmax_scale,
                   Optional<Train_ScaleTensor>:$absmax_offset,
                   StrAttr:$weight,
                   DefaultValuedAttr<I64Attr, "64">:$block);
  let results = (outs Train_FloatTensor:$result);
  let assemblyFormat = "$codes `,` $absmax (`double_quant` `(` $absmax_scale^ "
                       "`,` $absmax_offset `:` type($absmax_scale) `,` "
                       "type($absmax_offset) `)`)? attr-dict `:` type($codes) "
                       "`,` type($absmax) `->` type($result)";
  let hasVerifier = 1;
  let extraClassDeclaration = [{
    /// Whether the block absmaxes are double-quantized.
    bool isDoubleQuant() { return static_cast<bool>(getAbsmaxScale()); }
  }];
}

def Train_DequantizeInt8Op : Train_Op<"dequantize_int8", [Pure,
    Train_LowPrecisionSafe, Train_Differentiable]> {
  let summary = "Reads a frozen weight stored as int8 with one scale per "
                "output feature";
  let description = [{
    Yields the weight `weight` from LLM.int8-style storage: `codes` (i8, of
    the result's shape, each in [-127, 127]) and `scale` (f32, one absmax
    per index of dimension `axis`, the output features: 1 for an
    input-major `[in, out]` weight, 0 for PyTorch's `[out, in]`). An element
    with index `r` along `axis` is `(code * scale[r]) / 127` in f32 (each
    operation rounded), then rounded to the result type. Both operands must
    be frozen `train.param`s (`"<weight>.int8.codes"`,
    `"<weight>.int8.scale"`); the result is a temporary, as for
    `train.dequantize_nf4`. 2 FLOPs per element.

    Example:
    ```mlir
    %w = train.dequantize_int8 %codes, %scale {axis = 1 : i64, weight = "fc1.weight"}
        : tensor<64x32xi8>, tensor<32xf32> -> tensor<64x32xf32>
    ```
  }];
  let arguments = (ins Train_QuantBytes:$codes, Train_QuantScales:$scale,
                   StrAttr:$weight, I64Attr:$axis);
  let results = (outs Train_FloatTensor:$result);
  let assemblyFormat = "$codes `,` $scale attr-dict `:` type($codes) `,` "
                       "type($scale) `->` type($result)";
  let hasVerifier = 1;
}

#endif // MEMOPT_DIALECT_TRAIN_IR_TRAINQUANTOPS_TD
