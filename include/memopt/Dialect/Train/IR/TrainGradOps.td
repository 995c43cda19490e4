//===- TrainGradOps.td -------------------------------------*- tablegen -*-===//
//
// The gradient ops of the backward pass.
// Included by TrainOps.td, which defines Train_Op and the traits used here.
//
//===----------------------------------------------------------------------===//

#ifndef MEMOPT_DIALECT_TRAIN_IR_TRAINGRADOPS_TD
#define MEMOPT_DIALECT_TRAIN_IR_TRAINGRADOPS_TD

//===----------------------------------------------------------------------===//
// Gradient ops
//===----------------------------------------------------------------------===//

class Train_ActivationGradOp<string mnemonic>
    : Train_Op<mnemonic, [Pure, Train_LowPrecisionSafe]> {
  let arguments = (ins Train_FloatTensor:$grad, Train_FloatTensor:$saved);
  let results = (outs Train_FloatTensor:$result);
  let assemblyFormat = "$grad `,` $saved attr-dict `:` "
                       "custom<BinaryTypes>(type($grad), type($saved), type($result))";
  let hasVerifier = 1;
}

def Train_ReluGradOp : Train_ActivationGradOp<"relu_grad"> {
  let summary = "Gradient of relu from its saved output";
  let description = [{
    `result = grad * (saved > 0)` where `saved` is the relu **output**, or
    with `upper` (the relu's) `grad * (0 < saved < upper)`. A NaN `saved`
    passes the gradient, as in PyTorch. 1 FLOP per element.

    Example:
    ```mlir
    %dh = train.relu_grad %da, %a : tensor<64x1024xf32>
    ```
  }];
  let arguments = (ins Train_FloatTensor:$grad, Train_FloatTensor:$saved,
                   OptionalAttr<F64Attr>:$upper);
}

def Train_GeluGradOp : Train_ActivationGradOp<"gelu_grad"> {
  let summary = "Gradient of gelu from its saved input";
  let description = [{
    `result = grad * gelu'(saved)` where `saved` is the gelu **input**;
    `approximate` selects the tanh form as in `train.gelu`. 12 FLOPs per
    element.

    Example:
    ```mlir
    %dh = train.gelu_grad %dg, %h {approximate} : tensor<8x3072xf32>
    ```
  }];
  let arguments = (ins Train_FloatTensor:$grad, Train_FloatTensor:$saved,
                   UnitAttr:$approximate);
}

def Train_SiluGradOp : Train_ActivationGradOp<"silu_grad"> {
  let summary = "Gradient of silu from its saved input";
  let description = [{
    `result = grad * s * (1 + x * (1 - s))`, `s = sigmoid(x)`, where `saved`
    is the silu **input**. 6 FLOPs per element.

    Example:
    ```mlir
    %dh = train.silu_grad %ds, %h : tensor<8x11008xf32>
    ```
  }];
}

def Train_SigmoidGradOp : Train_ActivationGradOp<"sigmoid_grad"> {
  let summary = "Gradient of sigmoid from its saved output";
  let description = [{
    `result = grad * (1 - saved) * saved` where `saved` is the sigmoid
    **output**. 3 FLOPs per element.

    Example:
    ```mlir
    %ds = train.sigmoid_grad %dg, %g : tensor<8x64x1x1xf32>
    ```
  }];
}

def Train_TanhGradOp : Train_ActivationGradOp<"tanh_grad"> {
  let summary = "Gradient of tanh from its saved output";
  let description = [{
    `result = grad * (1 - saved * saved)` where `saved` is the tanh
    **output** (PyTorch's tanh_backward). 3 FLOPs per element.

    Example:
    ```mlir
    %dh = train.tanh_grad %dt, %t : tensor<8x64xf32>
    ```
  }];
}

def Train_HardsigmoidGradOp : Train_ActivationGradOp<"hardsigmoid_grad"> {
  let summary = "Gradient of hardsigmoid from its saved input";
  let description = [{
    `result = -3 < saved < 3 ? grad / 6 : 0` where `saved` is the
    hardsigmoid **input**. 1 FLOP per element.

    Example:
    ```mlir
    %ds = train.hardsigmoid_grad %dg, %s : tensor<8x64x1x1xf32>
    ```
  }];
}

def Train_HardswishGradOp : Train_ActivationGradOp<"hardswish_grad"> {
  let summary = "Gradient of hardswish from its saved input";
  let description = [{
    `result = 0` where `saved < -3`, `grad * (saved / 3 + 0.5)` where
    `-3 <= saved <= 3`, `grad` above, where `saved` is the hardswish
    **input** (PyTorch's hardswish_backward). 3 FLOPs per element.

    Example:
    ```mlir
    %dh = train.hardswish_grad %da, %h : tensor<8x16x56x56xf32>
    ```
  }];
}

def Train_SwigluGradOp : Train_Op<"swiglu_grad", [Pure,
                                                  Train_LowPrecisionSafe]> {
  let summary = "Gradients of swiglu with respect to gate and up";
  let description = [{
    `dgate = grad * up * silu'(gate)`, `dup = grad * silu(gate)`, from the
    saved inputs. 10 FLOPs per element.

    Example:
    ```mlir
    %dg, %du = train.swiglu_grad %da, %g, %u
        : tensor<8x64xf32>, tensor<8x64xf32>, tensor<8x64xf32> -> tensor<8x64xf32>, tensor<8x64xf32>
    ```
  }];
  let arguments = (ins Train_FloatTensor:$grad, Train_FloatTensor:$gate,
                   Train_FloatTensor:$up);
  let results = (outs Train_FloatTensor:$grad_gate, Train_FloatTensor:$grad_up);
  let assemblyFormat = "$grad `,` $gate `,` $up attr-dict `:` type(operands) "
                       "`->` type(results)";
  let hasVerifier = 1;
}

def Train_SoftmaxGradOp : Train_Op<"softmax_grad", [Pure, Train_KeepFP32],
                                   ["getWorkspaceBuffers"]> {
  let summary = "Gradient of softmax from its saved output";
  let description = [{
    `result = scale * y * (grad - sum(grad * y, axis))` where `y` is the
    softmax **output**; `axis` and `scale` match the forward op (masked
    positions have `y = 0` and get no gradient). 4 FLOPs per element.

    Workspace (the scratch buffers of the CPU lowering,
    `getWorkspaceBuffers`): the row sums `sum(dy * y)`, one element per row
    in the accumulator type.

    Example:
    ```mlir
    %ds = train.softmax_grad %dp, %p {scale = 1.250000e-01 : f64} : tensor<2x12x128x128xf32>
    ```
  }];
  let arguments = (ins Train_FloatTensor:$grad, Train_FloatTensor:$output,
                   DefaultValuedAttr<I64Attr, "-1">:$axis,
                   DefaultValuedAttr<F64Attr, "1.0">:$scale);
  let results = (outs Train_FloatTensor:$result);
  let assemblyFormat = "$grad `,` $output attr-dict `:` "
                       "custom<BinaryTypes>(type($grad), type($output), type($result))";
  let hasVerifier = 1;
}

def Train_LayerNormGradOp : Train_Op<"layer_norm_grad", [Pure,
                                                         Train_KeepFP32], ["getWorkspaceBuffers"]> {
  let summary = "Gradients of layer_norm";
  let description = [{
    From `grad` (shape of the input), the saved input, `gamma` and the saved
    statistics, computes `dinput`, `dgamma` and `dbeta`. 12 FLOPs per input
    element.

    Workspace (the scratch buffers of the CPU lowering,
    `getWorkspaceBuffers`): the two row sums `sum(g)` and `sum(g * xhat)`
    (one element per row each, compute type); when gamma is not in the
    compute type, also the two column sums (`D` elements each) before their
    rounding.

    Example:
    ```mlir
    %dx, %dg, %db = train.layer_norm_grad %dy, %x, %g, %mean, %rstd
        : tensor<8x128x768xf32>, tensor<8x128x768xf32>, tensor<768xf32>, tensor<8x128xf32>, tensor<8x128xf32>
        -> tensor<8x128x768xf32>, tensor<768xf32>, tensor<768xf32>
    ```
  }];
  let arguments = (ins Train_FloatTensor:$grad, Train_FloatTensor:$input,
                   Train_FloatTensor:$gamma, Train_FloatTensor:$mean,
                   Train_FloatTensor:$rstd);
  let results = (outs Train_FloatTensor:$grad_input,
                      Train_FloatTensor:$grad_gamma,
                      Train_FloatTensor:$grad_beta);
  let assemblyFormat = "$grad `,` $input `,` $gamma `,` $mean `,` $rstd "
                       "attr-dict `:` type(operands) `->` type(results)";
  let hasVerifier = 1;
}

def Train_RmsNormGradOp : Train_Op<"rms_norm_grad", [Pure, Train_KeepFP32],
                                   ["getWorkspaceBuffers"]> {
  let summary = "Gradients of rms_norm";
  let description = [{
    From `grad`, the saved input, `gamma` and the saved `rstd`, computes
    `dinput` and `dgamma`. 9 FLOPs per input element.

    Workspace (the scratch buffers of the CPU lowering,
    `getWorkspaceBuffers`): the row sums `sum(g * xhat)` (one element per
    row, compute type); when gamma is not in the compute type, also the
    column sums (`D` elements) before their rounding.

    Example:
    ```mlir
    %dx, %dg = train.rms_norm_grad %dy, %x, %g, %rstd
        : tensor<2x16x64xf32>, tensor<2x16x64xf32>, tensor<64xf32>, tensor<2x16xf32>
        -> tensor<2x16x64xf32>, tensor<64xf32>
    ```
  }];
  let arguments = (ins Train_FloatTensor:$grad, Train_FloatTensor:$input,
                   Train_FloatTensor:$gamma, Train_FloatTensor:$rstd);
  let results = (outs Train_FloatTensor:$grad_input,
                      Train_FloatTensor:$grad_gamma);
  let assemblyFormat = "$grad `,` $input `,` $gamma `,` $rstd attr-dict `:` "
                       "type(operands) `->` type(results)";
  let hasVerifier = 1;
}

def Train_BatchNormGradOp : Train_Op<"batch_norm_grad", [Pure,
                                                         Train_KeepFP32], ["getWorkspaceBuffers"]> {
  let summary = "Gradients of batch_norm (training mode)";
  let description = [{
    From `grad`, the saved input, `gamma` and the saved per-channel
    statistics, computes `dinput`, `dgamma` and `dbeta`. 12 FLOPs per input
    element.

    Workspace (the scratch buffers of the CPU lowering,
    `getWorkspaceBuffers`): the per-channel sums `sum(dy)` and `sum(dy * (x
    - mean))` (`C` elements each, accumulator type; the two projection terms
    overwrite them), plus `mean` and `rstd` widened to the accumulator type
    when they are narrower.

    Example:
    ```mlir
    %dx, %dg, %db = train.batch_norm_grad %dy, %x, %g, %mean, %rstd
        : tensor<2x8x4x4xf32>, tensor<2x8x4x4xf32>, tensor<8xf32>, tensor<8xf32>, tensor<8xf32>
        -> tensor<2x8x4x4xf32>, tensor<8xf32>, tensor<8xf32>
    ```
  }];
  let arguments = (ins Train_FloatTensor:$grad, Train_FloatTensor:$input,
                   Train_FloatTensor:$gamma, Train_FloatTensor:$mean,
                   Train_FloatTensor:$rstd);
  let results = (outs Train_FloatTensor:$grad_input,
                      Train_FloatTensor:$grad_gamma,
                      Train_FloatTensor:$grad_beta);
  let assemblyFormat = "$grad `,` $input `,` $gamma `,` $mean `,` $rstd "
                       "attr-dict `:` type(operands) `->` type(results)";
  let hasVerifier = 1;
}

def Train_DropoutGradOp : Train_Op<"dropout_grad", [Pure,
                                                    Train_LowPrecisionSafe]> {
  let summary = "Gradient of dropout from its saved mask";
  let description = [{
    `result = grad * mask / (1 - rate)`. 2 FLOPs per element.

    Example:
    ```mlir
    %dx = train.dropout_grad %dy, %mask {rate = 1.000000e-01 : f64}
        : tensor<8x768xbf16>, tensor<8x768xi8> -> tensor<8x768xbf16>
    ```
  }];
  let arguments = (ins Train_FloatTensor:$grad, Train_MaskTensor:$mask,
                   F64Attr:$rate);
  let results = (outs Train_FloatTensor:$result);
  let assemblyFormat = "$grad `,` $mask attr-dict `:` type($grad) `,` "
                       "type($mask) `->` type($result)";
  let hasVerifier = 1;
}

def Train_EmbeddingGradOp : Train_Op<"embedding_grad", [Pure,
                                                        Train_KeepFP32, Train_IndexBound]> {
  let summary = "Gradient of embedding with respect to the table";
  let description = [{
    Scatter-adds the rows of `grad` (`ids.shape x H`) into a zero `V x H`
    table gradient at rows `ids`; the result type gives `V`. 1 FLOP per
    element of `grad`. With `part %p of N` (the vocabulary-parallel
    `train.embedding`), the result is the gradient of rows `[p*V, (p+1)*V)`
    of the whole table: ids outside them add nothing.

    Example:
    ```mlir
    %dwte = train.embedding_grad %de, %ids : tensor<8x1024x768xf32>, tensor<8x1024xi64> -> tensor<50257x768xf32>
    ```
  }];
  let arguments = (ins Train_FloatTensor:$grad, Train_IndexTensor:$ids,
                   Optional<Index>:$part, OptionalAttr<I64Attr>:$parts);
  let results = (outs Train_FloatTensor:$result);
  let assemblyFormat = "$grad `,` $ids (`part` $part^ `of` $parts)? attr-dict "
                       "`:` type($grad) `,` type($ids) `->` type($result)";
  let hasVerifier = 1;
}

def Train_CrossEntropyGradOp : Train_Op<"cross_entropy_grad", [Pure,
                                                              Train_KeepFP32, Train_IndexBound], ["getWorkspaceBuffers"]> {
  let summary = "Gradient of cross_entropy with respect to the logits";
  let description = [{
    `result = grad * (softmax(logits) - onehot(labels)) / P` where `P` is the
    number of label positions and `grad` the 0-d loss gradient. With
    `ignore_index` (as in `train.cross_entropy`), ignored positions get a
    zero gradient and `P` counts only the others. 6 FLOPs per logit.

    Workspace (the scratch buffers of the CPU lowering,
    `getWorkspaceBuffers`): the row maximum and the row sum of exponentials
    (one element per row each, compute type), and a 0-d count with
    `ignore_index`.

    Example:
    ```mlir
    %dlogits = train.cross_entropy_grad %dl, %logits, %labels
        : tensor<f32>, tensor<8x128x50257xf32>, tensor<8x128xi64> -> tensor<8x128x50257xf32>
    ```
  }];
  let arguments = (ins Train_ScalarFloatTensor:$grad,
                   Train_FloatTensor:$logits, Train_IndexTensor:$labels,
                   OptionalAttr<I64Attr>:$ignore_index);
  let results = (outs Train_FloatTensor:$result);
  let assemblyFormat = "$grad `,` $logits `,` $labels attr-dict `:` "
                       "type($grad) `,` type($logits) `,` type($labels) `->` "
                       "type($result)";
  let hasVerifier = 1;
}

def Train_MseLossGradOp : Train_Op<"mse_loss_grad", [Pure, Train_KeepFP32]> {
  let summary = "Gradient of mse_loss with respect to its input";
  let description = [{
    `result = grad * 2 * (input - target) / n` for `n` elements. 3 FLOPs per
    element.

    Example:
    ```mlir
    %da = train.mse_loss_grad %dl, %a, %y
        : tensor<f32>, tensor<64x1024xf32>, tensor<64x1024xf32> -> tensor<64x1024xf32>
    ```
  }];
  let arguments = (ins Train_ScalarFloatTensor:$grad,
                   Train_FloatTensor:$input, Train_FloatTensor:$target);
  let results = (outs Train_FloatTensor:$result);
  let assemblyFormat = "$grad `,` $input `,` $target attr-dict `:` "
                       "type($grad) `,` type($input) `,` type($target) `->` "
                       "type($result)";
  let hasVerifier = 1;
}

class Train_ConvGradOp<string mnemonic>
    : Train_Op<mnemonic, [Pure, Train_LowPrecisionSafe],
               ["getWorkspaceBuffers"]> {
  let results = (outs Train_FloatTensor:$result);
  let hasVerifier = 1;
}

def Train_Conv2dGradInputOp : Train_ConvGradOp<"conv2d_grad_input"> {
  let summary = "Gradient of conv2d with respect to its input";
  let description = [{
    The transposed convolution of `grad` (`N x O x OH x OW`) with the saved
    `filter`; the result type gives the input shape `N x C x H x W`, which
    must produce `grad`'s shape under the forward attributes. Same FLOPs as
    the forward convolution.

    Workspace (the scratch buffers of the CPU lowering,
    `getWorkspaceBuffers`): the f32 sums (the result shape) before their
    rounding for 16-bit results, nothing otherwise. The lowering is a
    gather: each input element sums `grad * filter` over the output
    channels and window offsets whose window reads it, reading `grad` in
    place where the stride divides the offset, so neither a copy of `grad`
    scattered with the stride nor a flipped filter exists.

    Example:
    ```mlir
    %dx = train.conv2d_grad_input %dy, %w {padding = array<i64: 1, 1>}
        : tensor<2x64x32x32xf32>, tensor<64x3x3x3xf32> -> tensor<2x3x32x32xf32>
    ```
  }];
  let arguments = (ins Train_FloatTensor:$grad, Train_FloatTensor:$filter,
      DefaultValuedAttr<DenseI64ArrayAttr, "{1, 1}">:$strides,
      DefaultValuedAttr<DenseI64ArrayAttr, "{0, 0}">:$padding,
      DefaultValuedAttr<DenseI64ArrayAttr, "{1, 1}">:$dilation,
      DefaultValuedAttr<I64Attr, "1">:$groups);
  let assemblyFormat = "$grad `,` $filter attr-dict `:` type($grad) `,` "
                       "type($filter) `->` type($result)";
}

def Train_Conv2dGradFilterOp : Train_ConvGradOp<"conv2d_grad_filter"> {
  let summary = "Gradient of conv2d with respect to its filter";
  let description = [{
    Correlates the saved `input` with `grad`; the result type gives the
    filter shape `O x C/groups x KH x KW`. Same FLOPs as the forward
    convolution.

    Workspace (the scratch buffers of the CPU lowering,
    `getWorkspaceBuffers`): the f32 sums (the filter shape) before their
    rounding for 16-bit results, nothing otherwise. The lowering reads the
    unpadded input in place, a position in the padding counting as zero, so
    no padded copy exists.

    Example:
    ```mlir
    %dw = train.conv2d_grad_filter %dy, %x {padding = array<i64: 1, 1>}
        : tensor<2x64x32x32xf32>, tensor<2x3x32x32xf32> -> tensor<64x3x3x3xf32>
    ```
  }];
  let arguments = (ins Train_FloatTensor:$grad, Train_FloatTensor:$input,
      DefaultValuedAttr<DenseI64ArrayAttr, "{1, 1}">:$strides,
      DefaultValuedAttr<DenseI64ArrayAttr, "{0, 0}">:$padding,
      DefaultValuedAttr<DenseI64ArrayAttr, "{1, 1}">:$dilation,
      DefaultValuedAttr<I64Attr, "1">:$groups);
  let assemblyFormat = "$grad `,` $input attr-dict `:` type($grad) `,` "
                       "type($input) `->` type($result)";
}

def Train_MaxPool2dGradOp : Train_Op<"max_pool2d_grad",
                                     [Pure, Train_LowPrecisionSafe],
                                     ["getWorkspaceBuffers"]> {
  let summary = "Gradient of max_pool2d from its saved input";
  let description = [{
    Routes each element of `grad` to the argmax of its window in the saved
    **input** (first maximum on ties). The result has the input's type;
    `ceil_mode` is the forward op's (a partial last window).
    `KH*KW` FLOPs per element of `grad`.

    Workspace (the scratch buffers of the CPU lowering,
    `getWorkspaceBuffers`): the f32 sums (the result shape) before their
    rounding for 16-bit results, nothing otherwise. The lowering is a gather:
    each input element recomputes the argmax of the (at most
    `ceil(KH/sh)*ceil(KW/sw)`) windows that contain it and sums the `grad`
    of those whose maximum it is, so neither indices nor a padded copy are
    stored.

    Example:
    ```mlir
    %dx = train.max_pool2d_grad %dy, %x {kernel = array<i64: 2, 2>, strides = array<i64: 2, 2>}
        : tensor<2x64x16x16xf32>, tensor<2x64x32x32xf32> -> tensor<2x64x32x32xf32>
    ```
  }];
  let arguments = (ins Train_FloatTensor:$grad, Train_FloatTensor:$input,
      DenseI64ArrayAttr:$kernel,
      DefaultValuedAttr<DenseI64ArrayAttr, "{1, 1}">:$strides,
      DefaultValuedAttr<DenseI64ArrayAttr, "{0, 0}">:$padding,
      UnitAttr:$ceil_mode);
  let results = (outs Train_FloatTensor:$result);
  let assemblyFormat = "$grad `,` $input attr-dict `:` type($grad) `,` "
                       "type($input) `->` type($result)";
  let hasVerifier = 1;
}

def Train_AvgPool2dGradOp : Train_Op<"avg_pool2d_grad",
                                     [Pure, Train_LowPrecisionSafe],
                                     ["getWorkspaceBuffers"]> {
  let summary = "Gradient of avg_pool2d";
  let description = [{
    Spreads each element of `grad` uniformly over its window; the result type
    gives the input shape. `KH*KW` FLOPs per element of `grad`.

    Workspace (the scratch buffers of the CPU lowering,
    `getWorkspaceBuffers`): the f32 sums (the result shape) before their
    rounding for 16-bit results, nothing otherwise. The lowering is a gather:
    each input element sums `grad / (KH*KW)` over the windows that contain
    it.

    Example:
    ```mlir
    %dx = train.avg_pool2d_grad %dy {kernel = array<i64: 7, 7>}
        : tensor<2x2048x1x1xf32> -> tensor<2x2048x7x7xf32>
    ```
  }];
  let arguments = (ins Train_FloatTensor:$grad, DenseI64ArrayAttr:$kernel,
      DefaultValuedAttr<DenseI64ArrayAttr, "{1, 1}">:$strides,
      DefaultValuedAttr<DenseI64ArrayAttr, "{0, 0}">:$padding);
  let results = (outs Train_FloatTensor:$result);
  let assemblyFormat = "$grad attr-dict `:` type($grad) `->` type($result)";
  let hasVerifier = 1;
}

def Train_UpsampleNearest2dGradOp
    : Train_Op<"upsample_nearest2d_grad", [Pure, Train_LowPrecisionSafe], ["getWorkspaceBuffers"]> {
  let summary = "Gradient of upsample_nearest2d";
  let description = [{
    Sums `grad` over each `scale x scale` block. 1 FLOP per element of
    `grad`.

    Workspace (the scratch buffers of the CPU lowering,
    `getWorkspaceBuffers`): the f32 block sums (the result shape) before
    their rounding for 16-bit results.

    Example:
    ```mlir
    %dx = train.upsample_nearest2d_grad %dy {scale = 2 : i64}
        : tensor<2x128x32x32xf32> -> tensor<2x128x16x16xf32>
    ```
  }];
  let arguments = (ins Train_FloatTensor:$grad, I64Attr:$scale);
  let results = (outs Train_FloatTensor:$result);
  let assemblyFormat = "$grad attr-dict `:` type($grad) `->` type($result)";
  let hasVerifier = 1;
}

def Train_AttentionGradOp : Train_Op<"attention_grad", [Pure,
                                                        Train_LowPrecisionSafe],
                                     ["getWorkspaceBuffers"]> {
  let summary = "Gradients of fused attention (flash-style backward)";
  let description = [{
    From `grad` (shape of the output) and the saved `query`, `key`, `value`,
    `output` and `lse`, recomputes the attention probabilities tile by tile
    and returns `dquery`, `dkey`, `dvalue`. `scale`, `causal` and
    `block_rows` match the forward op: the lowering walks the queries in
    tiles of `T` rows, `T` the largest divisor of `Sq` not above
    `block_rows`. Each tile adds its share to `dkey` and `dvalue` and writes
    its rows of `dquery`. `10*B*Hq*Sq*Sk*D` FLOPs (five matmuls), halved
    when causal.

    Workspace (`getWorkspaceBuffers`): per tile, reused by the next, the
    recomputed scores `B*Hq*T*Sk` (compute type; the probabilities
    overwrite them), `dP = do v^T` of the same size (`dS` overwrites it),
    the row sums `D = rowsum(grad * output)` (`B*Hq*T`) and, when the query
    is narrower than the compute type, the tile's compute-type `dquery`;
    for the whole op, the compute-type `dvalue` and `dkey` the tiles
    accumulate into, when the key is narrower. The two score tiles are each
    no larger than `q` in the compute type when `T <= D` and `Sk = Sq`, so
    with `T = D` (Llama's 64-row tiles of 128-wide heads, f32) the scratch
    exceeds `q` by the row sums alone. Grouped-query heads need no
    per-head `dkey`/`dvalue`: the lowering contracts over the rows of all
    query heads of a group. The sums over rows run tile after tile in row
    order, so with one query head per key/value head they add in the same
    order for every `block_rows`; with several, the group's heads interleave
    differently and the sums agree within rounding.

    Example:
    ```mlir
    %dq, %dk, %dv = train.attention_grad %do, %q, %k, %v, %o, %lse {causal, scale = 1.250000e-01 : f64}
        : tensor<1x8x16x64xf32>, tensor<1x8x16x64xf32>, tensor<1x2x16x64xf32>,
          tensor<1x2x16x64xf32>, tensor<1x8x16x64xf32>, tensor<1x8x16xf32>
        -> tensor<1x8x16x64xf32>, tensor<1x2x16x64xf32>, tensor<1x2x16x64xf32>
    ```
  }];
  let arguments = (ins Train_FloatTensor:$grad, Train_FloatTensor:$query,
                   Train_FloatTensor:$key, Train_FloatTensor:$value,
                   Train_FloatTensor:$output, Train_FloatTensor:$lse,
                   F64Attr:$scale, UnitAttr:$causal,
                   DefaultValuedAttr<I64Attr, "64">:$block_rows);
  let results = (outs Train_FloatTensor:$grad_query,
                      Train_FloatTensor:$grad_key,
                      Train_FloatTensor:$grad_value);
  let assemblyFormat = "$grad `,` $query `,` $key `,` $value `,` $output `,` "
                       "$lse attr-dict `:` type(operands) `->` type(results)";
  let extraClassDeclaration = [{
    /// The query rows of one tile of the lowering (block_rows' rule).
    int64_t getTileRows();
  }];
  let hasVerifier = 1;
}

def Train_RotaryGradOp : Train_Op<"rotary_grad", [Pure,
                                                  Train_LowPrecisionSafe], ["getWorkspaceBuffers"]> {
  let summary = "Gradient of rotary: the inverse rotation";
  let description = [{
    Rotates `grad` by the negated angles of `train.rotary` with the same
    `theta`. 6 FLOPs per element.

    Workspace (the scratch buffers of the CPU lowering,
    `getWorkspaceBuffers`): as `train.rotary`: the cos and sin tables
    (`S*D/2` f32 each) and the two rotated halves.

    Example:
    ```mlir
    %dq = train.rotary_grad %dr {theta = 1.000000e+04 : f64} : tensor<1x8x16x64xf32>
    ```
  }];
  let arguments = (ins Train_FloatTensor:$grad,
                   DefaultValuedAttr<F64Attr, "10000.0">:$theta);
  let results = (outs Train_FloatTensor:$result);
  let assemblyFormat =
      "$grad attr-dict `:` custom<UnaryTypes>(type($grad), type($result))";
  let hasVerifier = 1;
}

def Train_SliceGradOp : Train_Op<"slice_grad", [Pure,
                                                Train_LowPrecisionSafe]> {
  let summary = "Gradient of slice: scatters into a zero tensor";
  let description = [{
    Returns a zero tensor of the result type with `grad` written at the
    window `offsets` / `strides` of the forward `train.slice`. No FLOPs.

    Example:
    ```mlir
    %dqkv = train.slice_grad %dq {offsets = array<i64: 0, 0>} : tensor<8x768xf32> -> tensor<8x2304xf32>
    ```
  }];
  let arguments = (ins Train_FloatTensor:$grad, DenseI64ArrayAttr:$offsets,
                   OptionalAttr<DenseI64ArrayAttr>:$strides);
  let results = (outs Train_FloatTensor:$result);
  let assemblyFormat = "$grad attr-dict `:` type($grad) `->` type($result)";
  let hasVerifier = 1;
}

#endif // MEMOPT_DIALECT_TRAIN_IR_TRAINGRADOPS_TD
