//===- TrainForwardOps.td ----------------------------------*- tablegen -*-===//
//
// Forward ops: elementwise, norms, linear algebra, losses, shapes, convolutions.
// Included by TrainOps.td, which defines Train_Op and the traits used here.
//
//===----------------------------------------------------------------------===//

#ifndef MEMOPT_DIALECT_TRAIN_IR_TRAINFORWARDOPS_TD
#define MEMOPT_DIALECT_TRAIN_IR_TRAINFORWARDOPS_TD

//===----------------------------------------------------------------------===//
// Elementwise forward ops
//===----------------------------------------------------------------------===//

class Train_UnaryOp<string mnemonic, list<Trait> traits = []>
    : Train_Op<mnemonic, !listconcat(traits, [Pure, Train_LowPrecisionSafe])> {
  let arguments = (ins Train_FloatTensor:$input);
  let results = (outs Train_FloatTensor:$result);
  let assemblyFormat =
      "$input attr-dict `:` custom<UnaryTypes>(type($input), type($result))";
  let hasVerifier = 1;
}

class Train_BinaryOp<string mnemonic, list<Trait> traits = []>
    : Train_Op<mnemonic, !listconcat(traits, [Pure, Train_PromoteToWidest])> {
  let arguments = (ins Train_FloatTensor:$lhs, Train_FloatTensor:$rhs);
  let results = (outs Train_FloatTensor:$result);
  let assemblyFormat = "$lhs `,` $rhs attr-dict `:` "
                       "custom<BinaryTypes>(type($lhs), type($rhs), type($result))";
  let hasVerifier = 1;
}

def Train_AddOp : Train_BinaryOp<"add", [Train_Differentiable, Commutative]> {
  let summary = "Elementwise addition";
  let description = [{
    `result = lhs + rhs` on operands of identical shape. Mixed element types
    are allowed; the result has the widest of them (promote-to-widest).
    1 FLOP per element. Its gradient passes `dresult` to both operands, so it
    saves nothing.

    Example:
    ```mlir
    %c = train.add %a, %b : tensor<8x16xf32>
    %d = train.add %h, %r : tensor<8x16xbf16>, tensor<8x16xf32> -> tensor<8x16xf32>
    ```
  }];
}

def Train_SubOp : Train_BinaryOp<"sub", [Train_Differentiable]> {
  let summary = "Elementwise subtraction";
  let description = [{
    `result = lhs - rhs` on operands of identical shape (promote-to-widest).
    1 FLOP per element; saves nothing for backward.

    Example:
    ```mlir
    %c = train.sub %a, %b : tensor<8x16xf32>
    ```
  }];
}

def Train_MulOp : Train_BinaryOp<"mul", [Train_Differentiable, Commutative]> {
  let summary = "Elementwise multiplication";
  let description = [{
    `result = lhs * rhs` on operands of identical shape (promote-to-widest).
    1 FLOP per element. Saves both operands for backward
    (`dlhs = dresult * rhs`, `drhs = dresult * lhs`); an operand made by
    `train.broadcast` is saved as the broadcast's input and broadcast again
    in the backward pass, so its full-size copy is not kept.

    Example:
    ```mlir
    %c = train.mul %a, %b : tensor<8x16xf32>
    ```
  }];
}

def Train_ScaleOp : Train_UnaryOp<"scale", [Train_Differentiable]> {
  let summary = "Multiplies a tensor by a constant";
  let description = [{
    `result = factor * input`. 1 FLOP per element; saves nothing.

    Example:
    ```mlir
    %s = train.scale %x {factor = 1.250000e-01 : f64} : tensor<8x16xf32>
    ```
  }];
  let arguments = (ins Train_FloatTensor:$input, F64Attr:$factor);
}

def Train_BiasAddOp : Train_Op<"bias_add", [Train_Differentiable, Pure, Train_PromoteToWidest]> {
  let summary = "Adds a vector along one dimension";
  let description = [{
    `result[..., i, ...] = input[..., i, ...] + bias[i]` where `i` indexes
    dimension `dim` (default: the last; `dim = 1` is the channel of NCHW
    convolutions). The bias length must equal that dimension. The result has
    the input's shape and the widest element type. 1 FLOP per element; the
    bias gradient is a `train.reduce_sum` of `dresult`, so nothing is saved.

    Example:
    ```mlir
    %y = train.bias_add %x, %b : tensor<8x16xf32>, tensor<16xf32> -> tensor<8x16xf32>
    %z = train.bias_add %c, %cb {dim = 1 : i64} : tensor<2x4x8x8xf32>, tensor<4xf32> -> tensor<2x4x8x8xf32>
    ```
  }];
  let arguments = (ins Train_FloatTensor:$input, Train_FloatTensor:$bias,
                   DefaultValuedAttr<I64Attr, "-1">:$dim);
  let results = (outs Train_FloatTensor:$result);
  let assemblyFormat = "$input `,` $bias attr-dict `:` type($input) `,` "
                       "type($bias) `->` type($result)";
  let hasVerifier = 1;
}

def Train_ReluOp : Train_UnaryOp<"relu", [Train_Differentiable,
                                          Train_FiniteFloatAttributes]> {
  let summary = "Rectified linear unit, optionally bounded above (ReLU6)";
  let description = [{
    `result = max(input, 0)`, or with `upper` `min(max(input, 0), upper)`
    (PyTorch's ReLU6 is `upper = 6`, its hardtanh(0, upper)). 1 FLOP per
    element, 2 with `upper`. Saves its **output** for backward
    (`train.relu_grad` masks by `0 < result < upper`), as PyTorch does.

    Example:
    ```mlir
    %a = train.relu %h : tensor<64x1024xf32>
    %b = train.relu %h {upper = 6.0 : f64} : tensor<64x1024xf32>
    ```
  }];
  let arguments = (ins Train_FloatTensor:$input, OptionalAttr<F64Attr>:$upper);
}

def Train_GeluOp : Train_UnaryOp<"gelu", [Train_Differentiable]> {
  let summary = "Gaussian error linear unit";
  let description = [{
    `result = x * Phi(x)`, exact (erf) by default or the tanh approximation
    with `approximate` (GPT-2's `gelu_new`). 8 FLOPs per element (counted).
    Saves its **input** for backward.

    Example:
    ```mlir
    %g = train.gelu %h {approximate} : tensor<8x3072xbf16>
    ```
  }];
  let arguments = (ins Train_FloatTensor:$input, UnitAttr:$approximate);
}

def Train_SiluOp : Train_UnaryOp<"silu", [Train_Differentiable]> {
  let summary = "Sigmoid linear unit (swish)";
  let description = [{
    `result = x * sigmoid(x)`. 4 FLOPs per element. Saves its **input**.

    Example:
    ```mlir
    %s = train.silu %h : tensor<8x11008xbf16>
    ```
  }];
}

def Train_SigmoidOp : Train_UnaryOp<"sigmoid", [Train_Differentiable]> {
  let summary = "Logistic sigmoid";
  let description = [{
    `result = 1 / (1 + exp(-x))`. 4 FLOPs per element. Saves its **output**
    for backward (`train.sigmoid_grad`), as PyTorch does; the gates of
    squeeze-and-excitation blocks (EfficientNet, RegNetY) use it.

    Example:
    ```mlir
    %g = train.sigmoid %s : tensor<8x64x1x1xf32>
    ```
  }];
}

def Train_TanhOp : Train_UnaryOp<"tanh", [Train_Differentiable]> {
  let summary = "Hyperbolic tangent";
  let description = [{
    `result = tanh(x)`. 4 FLOPs per element (as sigmoid). Saves its
    **output** for backward (`train.tanh_grad`), as PyTorch does.

    Example:
    ```mlir
    %t = train.tanh %h : tensor<8x64xf32>
    ```
  }];
}

def Train_HardsigmoidOp : Train_UnaryOp<"hardsigmoid", [Train_Differentiable]> {
  let summary = "Piecewise-linear sigmoid";
  let description = [{
    `result = min(max(x + 3, 0), 6) / 6` (MobileNetV3's gate). 4 FLOPs per
    element. Saves its **input** (`train.hardsigmoid_grad`).

    Example:
    ```mlir
    %g = train.hardsigmoid %s : tensor<8x64x1x1xf32>
    ```
  }];
}

def Train_HardswishOp : Train_UnaryOp<"hardswish", [Train_Differentiable]> {
  let summary = "Piecewise-polynomial swish";
  let description = [{
    `result = x * min(max(x + 3, 0), 6) / 6` (MobileNetV3's activation).
    5 FLOPs per element. Saves its **input** (`train.hardswish_grad`).

    Example:
    ```mlir
    %a = train.hardswish %h : tensor<8x16x56x56xf32>
    ```
  }];
}

def Train_SwigluOp : Train_Op<"swiglu", [Train_Differentiable, Pure, Train_LowPrecisionSafe]> {
  let summary = "SwiGLU gate: silu(gate) * up";
  let description = [{
    The gated MLP activation of Llama: `result = silu(gate) * up` on operands
    of identical type. 5 FLOPs per element. Saves both **inputs**.

    Example:
    ```mlir
    %a = train.swiglu %g, %u : tensor<8x11008xbf16>
    ```
  }];
  let arguments = (ins Train_FloatTensor:$gate, Train_FloatTensor:$up);
  let results = (outs Train_FloatTensor:$result);
  let assemblyFormat = "$gate `,` $up attr-dict `:` "
                       "custom<BinaryTypes>(type($gate), type($up), type($result))";
  let hasVerifier = 1;
}

def Train_SoftmaxOp : Train_Op<"softmax", [Train_Differentiable, Pure, Train_KeepFP32],
                               ["getWorkspaceBuffers"]> {
  let summary = "Softmax along one axis, optionally scaled and causally masked";
  let description = [{
    `result = softmax(scale * input)` along `axis` (default: the last). With
    `causal`, the input must have rank >= 2 and `axis` must be the last
    dimension; element `[..., i, j]` with `j > i + (K - Q)` (Q, K the sizes of
    the last two dimensions) is masked to probability 0, as in decoder
    self-attention. 5 FLOPs per element. Saves its **output** for backward.

    Workspace (the scratch buffers of the CPU lowering,
    `getWorkspaceBuffers`): the row maximum and the row sum of exponentials,
    one element per row (the input without `axis`) each, in the accumulator
    type (f32 for 16-bit inputs).

    Example:
    ```mlir
    %p = train.softmax %s {causal, scale = 1.250000e-01 : f64} : tensor<2x12x128x128xf32>
    ```
  }];
  let arguments = (ins Train_FloatTensor:$input,
                   DefaultValuedAttr<I64Attr, "-1">:$axis,
                   DefaultValuedAttr<F64Attr, "1.0">:$scale, UnitAttr:$causal);
  let results = (outs Train_FloatTensor:$result);
  let assemblyFormat =
      "$input attr-dict `:` custom<UnaryTypes>(type($input), type($result))";
  let hasVerifier = 1;
}

//===----------------------------------------------------------------------===//
// Normalization, regularization
//===----------------------------------------------------------------------===//

def Train_LayerNormOp : Train_Op<"layer_norm", [Train_Differentiable, Pure, Train_KeepFP32],
                                 ["getWorkspaceBuffers"]> {
  let summary = "Layer normalization over the last dimension";
  let description = [{
    `result = (x - mean) * rstd * gamma + beta` over the last dimension `h`,
    with `rstd = 1 / sqrt(var + epsilon)`. `gamma` and `beta` have shape
    `[h]`; the statistics `mean` and `rstd` have the input's shape without
    its last dimension. 8 FLOPs per element. Saves its **input** and the
    statistics `mean`/`rstd` (as PyTorch's native layer norm does).

    Workspace (the scratch buffers of the CPU lowering,
    `getWorkspaceBuffers`): none when the statistics are computed in f32
    (they are summed straight into `mean` and `rstd`); with an f64 operand,
    the f64 mean and rstd (one element per row each) before their rounding
    to f32.

    Example:
    ```mlir
    %y, %mean, %rstd = train.layer_norm %x, %g, %b {epsilon = 1.000000e-05 : f64}
        : tensor<8x128x768xf32>, tensor<768xf32>, tensor<768xf32>
        -> tensor<8x128x768xf32>, tensor<8x128xf32>, tensor<8x128xf32>
    ```
  }];
  let arguments = (ins Train_FloatTensor:$input, Train_FloatTensor:$gamma,
                   Train_FloatTensor:$beta,
                   DefaultValuedAttr<F64Attr, "1.0e-5">:$epsilon);
  let results = (outs Train_FloatTensor:$result, Train_FloatTensor:$mean,
                      Train_FloatTensor:$rstd);
  let assemblyFormat = "$input `,` $gamma `,` $beta attr-dict `:` type($input) "
                       "`,` type($gamma) `,` type($beta) `->` type($result) `,` "
                       "type($mean) `,` type($rstd)";
  let hasVerifier = 1;
}

def Train_RmsNormOp : Train_Op<"rms_norm", [Train_Differentiable, Pure, Train_KeepFP32],
                               ["getWorkspaceBuffers"]> {
  let summary = "Root-mean-square normalization over the last dimension";
  let description = [{
    `result = x * rstd * gamma` with `rstd = 1 / sqrt(mean(x^2) + epsilon)`
    over the last dimension (Llama's RMSNorm). `gamma` has shape `[h]`; `rstd`
    has the input's shape without its last dimension. 5 FLOPs per element.
    Saves its **input** and `rstd`.

    Workspace (the scratch buffers of the CPU lowering,
    `getWorkspaceBuffers`): none in f32 (the sum of squares becomes `rstd`
    in place); with an f64 operand, the f64 rstd (one element per row)
    before its rounding.

    Example:
    ```mlir
    %y, %rstd = train.rms_norm %x, %g {epsilon = 1.000000e-06 : f64}
        : tensor<2x16x64xf32>, tensor<64xf32> -> tensor<2x16x64xf32>, tensor<2x16xf32>
    ```
  }];
  let arguments = (ins Train_FloatTensor:$input, Train_FloatTensor:$gamma,
                   DefaultValuedAttr<F64Attr, "1.0e-6">:$epsilon);
  let results = (outs Train_FloatTensor:$result, Train_FloatTensor:$rstd);
  let assemblyFormat = "$input `,` $gamma attr-dict `:` type($input) `,` "
                       "type($gamma) `->` type($result) `,` type($rstd)";
  let hasVerifier = 1;
}

def Train_BatchNormOp : Train_Op<"batch_norm", [Train_Differentiable, Pure, Train_KeepFP32],
                                 ["getWorkspaceBuffers"]> {
  let summary = "Batch normalization (training mode) over NCHW channels";
  let description = [{
    Normalizes each channel `c` of an `N x C x H x W` input with the batch
    statistics over `N, H, W`: `result = (x - mean[c]) * rstd[c] * gamma[c] +
    beta[c]`. `gamma`, `beta`, `mean` and `rstd` have shape `[C]`. 8 FLOPs per
    element. Saves its **input** and the statistics. Running statistics for
    inference are not modelled.

    Workspace (the scratch buffers of the CPU lowering,
    `getWorkspaceBuffers`): none when the statistics have the accumulator
    type (the sums become `mean` and `rstd` in place); otherwise the per-
    channel mean and rstd (`C` elements each) in the accumulator type.

    Example:
    ```mlir
    %y, %mean, %rstd = train.batch_norm %x, %g, %b {epsilon = 1.000000e-05 : f64}
        : tensor<2x8x4x4xf32>, tensor<8xf32>, tensor<8xf32>
        -> tensor<2x8x4x4xf32>, tensor<8xf32>, tensor<8xf32>
    ```
  }];
  let arguments = (ins Train_FloatTensor:$input, Train_FloatTensor:$gamma,
                   Train_FloatTensor:$beta,
                   DefaultValuedAttr<F64Attr, "1.0e-5">:$epsilon);
  let results = (outs Train_FloatTensor:$result, Train_FloatTensor:$mean,
                      Train_FloatTensor:$rstd);
  let assemblyFormat = "$input `,` $gamma `,` $beta attr-dict `:` type($input) "
                       "`,` type($gamma) `,` type($beta) `->` type($result) `,` "
                       "type($mean) `,` type($rstd)";
  let hasVerifier = 1;
}

def Train_DropoutOp : Train_Op<"dropout", [Train_Differentiable, Pure, Train_LowPrecisionSafe]> {
  let summary = "Dropout with a reproducible counter-based mask";
  let description = [{
    Zeroes each element with probability `rate` and scales the others by
    `1 / (1 - rate)`. The mask is a pure function of (the step's seed, `id`,
    element index), so a clone of the op (recomputation) reproduces the
    identical mask. Returns the output and the 1-byte keep mask. 2 FLOPs per
    element. Saves only its **mask** for backward.

    Partitioned form (`at [%o0, ...] in [n0, ...]`, created by
    `train-shard`): the input is the part of a whole tensor of shape
    `[n0, ...]` that starts at element `[%o0, ...]` (one `index` per
    dimension), and the element index the mask hashes is the element's
    row-major index in the whole tensor. So each process draws, for its
    part, the mask one process draws for the whole tensor.

    Example:
    ```mlir
    %y, %mask = train.dropout %x {id = 3 : i64, rate = 1.000000e-01 : f64}
        : tensor<8x768xbf16> -> tensor<8x768xbf16>, tensor<8x768xi8>
    %y2, %mask2 = train.dropout %x at [%off, %c0] in [16, 768] {id = 4 : i64, rate = 1.000000e-01 : f64}
        : tensor<8x768xbf16> -> tensor<8x768xbf16>, tensor<8x768xi8>
    ```
  }];
  let arguments = (ins Train_FloatTensor:$input, Variadic<Index>:$offsets,
                   OptionalAttr<DenseI64ArrayAttr>:$whole_shape, F64Attr:$rate,
                   I64Attr:$id);
  let results = (outs Train_FloatTensor:$result, Train_MaskTensor:$mask);
  let assemblyFormat = "$input (`at` ` ` `[` $offsets^ `]` `in` $whole_shape)? "
                       "attr-dict `:` type($input) `->` type($result) `,` "
                       "type($mask)";
  let hasVerifier = 1;
}

//===----------------------------------------------------------------------===//
// Linear algebra, embeddings, attention
//===----------------------------------------------------------------------===//

def Train_MatmulOp : Train_Op<"matmul", [Train_Differentiable, Pure, Train_LowPrecisionSafe]> {
  let summary = "(Batched) matrix multiplication with optional transposes";
  let description = [{
    `result = op(lhs) x op(rhs)` where `op` transposes the last two
    dimensions when `transpose_lhs` / `transpose_rhs` is set. `lhs` has shape
    `B... x M x K` (rank >= 2). `rhs` is either a matrix `K x N` shared by
    every batch (a linear layer's weight) or has the same batch dimensions
    `B... x K x N`. The result is `B... x M x N`; its element type is the
    operands' or a wider float (accumulation), never a narrower one. `2*M*N*K` FLOPs per batch.
    Backward reuses matmul: `dlhs = dresult x rhs^T`, `drhs = lhs^T x
    dresult`, so it saves both operands (only those whose gradient is needed).

    Example:
    ```mlir
    %h = train.matmul %x, %w : tensor<64x1024xf32>, tensor<1024x512xf32> -> tensor<64x512xf32>
    %s = train.matmul %q, %k {transpose_rhs}
        : tensor<2x12x128x64xbf16>, tensor<2x12x128x64xbf16> -> tensor<2x12x128x128xbf16>
    ```
  }];
  let arguments = (ins Train_FloatTensor:$lhs, Train_FloatTensor:$rhs,
                   UnitAttr:$transpose_lhs, UnitAttr:$transpose_rhs);
  let results = (outs Train_FloatTensor:$result);
  let assemblyFormat = "$lhs `,` $rhs attr-dict `:` type($lhs) `,` type($rhs) "
                       "`->` type($result)";
  let hasVerifier = 1;
}

def Train_EmbeddingOp : Train_Op<"embedding", [Train_Differentiable, Pure, Train_LowPrecisionSafe,
                                               Train_IndexBound]> {
  let summary = "Looks up rows of an embedding table";
  let description = [{
    `result[i..., :] = table[ids[i...], :]` for a `V x H` table and integer
    ids of any shape; the result has shape `ids.shape x H`. No FLOPs. Saves
    the **ids** (the table gradient scatters into rows).

    Vocabulary-parallel form (`part %p of N`, created by `train-shard`): the
    table holds rows `[p*V, (p+1)*V)` of an `N*V`-row table, and `p` is an
    `index` (the process's position on the tensor-parallel grid axis). An
    id in that range reads its local row `id - p*V`; any other id gives a
    zero row, so summing the N processes' results (`shard.all_reduce`) gives
    the whole table's lookup. Ids must lie in `[0, N*V)`.

    Example:
    ```mlir
    %e = train.embedding %wte, %ids : tensor<50257x768xf32>, tensor<8x1024xi64> -> tensor<8x1024x768xf32>
    %p = shard.process_multi_index on @grid axes = [1] : index
    %e0 = train.embedding %wte0, %ids part %p of 2 : tensor<25216x768xf32>, tensor<8x1024xi64> -> tensor<8x1024x768xf32>
    ```
  }];
  let arguments = (ins Train_FloatTensor:$table, Train_IndexTensor:$ids,
                   Optional<Index>:$part, OptionalAttr<I64Attr>:$parts);
  let results = (outs Train_FloatTensor:$result);
  let assemblyFormat = "$table `,` $ids (`part` $part^ `of` $parts)? attr-dict "
                       "`:` type($table) `,` type($ids) `->` type($result)";
  let hasVerifier = 1;
}

def Train_AttentionOp : Train_Op<"attention", [Train_Differentiable, Pure, Train_LowPrecisionSafe],
                                 ["getWorkspaceBuffers"]> {
  let summary = "Fused (flash-style) scaled dot-product attention";
  let description = [{
    `out = softmax(scale * q k^T [causal mask]) v` computed without
    materializing the score matrix. `q` is `B x Hq x Sq x D`; `k` and `v` are
    `B x Hkv x Sk x D` with `Hq` a multiple of `Hkv` (grouped-query attention:
    query head `h` reads key/value head `h / (Hq / Hkv)`). Returns `out`
    (`B x Hq x Sq x D`) and the fp32 row log-sum-exp `lse` (`B x Hq x Sq`).
    Saves **q, k, v, out and lse** only (the score matrix is recomputed in
    backward). `4*B*Hq*Sq*Sk*D` FLOPs, halved when causal.

    The lowering walks the queries in tiles of `T` rows: `T` is the largest
    divisor of `Sq` not above `block_rows` (default 64), so every tile has
    the same shape. A tile's rows see every key at once, so each row's
    softmax is computed exactly as without tiles and the results do not
    depend on `block_rows`. `block_rows >= Sq` gives a single tile, the
    whole `Sq x Sk` score matrix of every head.

    Workspace (the scratch buffers of one tile, reused by the next,
    `getWorkspaceBuffers`): the tile's scores `B*Hq*T*Sk` (compute type; the
    probabilities overwrite them) and row maxima `B*Hq*T`; the row sums
    become the tile's `lse` in place when the compute type is f32 (a
    `B*Hq*T` buffer otherwise), and a `B*Hq*T*D` compute-type output tile
    precedes its rounding when the query is narrower. With `T <= D` and
    `Sk = Sq`, the score tile is no larger than `q` in the compute type; the
    scratch exceeds `q` itself only by the row statistics, and by the
    widening of a 16-bit `q` to f32 scores.

    Example:
    ```mlir
    %o, %lse = train.attention %q, %k, %v {causal, scale = 1.250000e-01 : f64}
        : tensor<1x8x16x64xbf16>, tensor<1x2x16x64xbf16>, tensor<1x2x16x64xbf16>
        -> tensor<1x8x16x64xbf16>, tensor<1x8x16xf32>
    ```
  }];
  let arguments = (ins Train_FloatTensor:$query, Train_FloatTensor:$key,
                   Train_FloatTensor:$value, F64Attr:$scale, UnitAttr:$causal,
                   DefaultValuedAttr<I64Attr, "64">:$block_rows);
  let results = (outs Train_FloatTensor:$result, Train_FloatTensor:$lse);
  let assemblyFormat = "$query `,` $key `,` $value attr-dict `:` type($query) "
                       "`,` type($key) `,` type($value) `->` type($result) `,` "
                       "type($lse)";
  let extraClassDeclaration = [{
    /// The query rows of one tile of the lowering (block_rows' rule).
    int64_t getTileRows();
  }];
  let hasVerifier = 1;
}

def Train_RotaryOp : Train_Op<"rotary", [Train_Differentiable, Pure, Train_LowPrecisionSafe],
                              ["getWorkspaceBuffers"]> {
  let summary = "Rotary position embedding (RoPE)";
  let description = [{
    Rotates pairs `(x[..., s, i], x[..., s, i + D/2])` of a `... x S x D`
    tensor by the angle `s * theta^(-2i/D)` (the rotate-half convention of
    Llama's HuggingFace implementation). `D` must be even. 6 FLOPs per
    element. Backward is the inverse rotation, so nothing is saved.

    Workspace (the scratch buffers of the CPU lowering,
    `getWorkspaceBuffers`): the cos and sin tables (`S*D/2` f32 elements
    each) and the two rotated halves (half of the input each, input type). Together
    they exceed the input by the tables (3% on Llama-2-7B's heads): the
    rotated halves are computed before they are interleaved into the result.

    Example:
    ```mlir
    %r = train.rotary %q {theta = 1.000000e+04 : f64} : tensor<1x8x16x64xf32>
    ```
  }];
  let arguments = (ins Train_FloatTensor:$input,
                   DefaultValuedAttr<F64Attr, "10000.0">:$theta);
  let results = (outs Train_FloatTensor:$result);
  let assemblyFormat =
      "$input attr-dict `:` custom<UnaryTypes>(type($input), type($result))";
  let hasVerifier = 1;
}

//===----------------------------------------------------------------------===//
// Losses and reductions
//===----------------------------------------------------------------------===//

def Train_CrossEntropyOp : Train_Op<"cross_entropy", [Train_Differentiable, Pure, Train_KeepFP32,
                                                     Train_IndexBound],
                                    ["getWorkspaceBuffers"]> {
  let summary = "Mean softmax cross-entropy over integer class labels";
  let description = [{
    `result = mean_i(logsumexp(logits[i, :]) - logits[i, labels[i]])` for
    logits `P... x V` and integer labels `P...`; the result is a 0-d float
    tensor. With `ignore_index`, positions whose label equals it (padding;
    HuggingFace uses -100) contribute nothing and the mean is over the other
    positions, as in PyTorch. 5 FLOPs per logit. Saves the **logits** and labels (the gradient
    is `softmax(logits) - onehot(labels)`, recomputed from the logits).

    Workspace (the scratch buffers of the CPU lowering,
    `getWorkspaceBuffers`): the row maximum and the row sum of exponentials
    (one element per row each) and the two 0-d sums (loss and count), in the
    compute type.

    Example:
    ```mlir
    %l = train.cross_entropy %logits, %labels : tensor<8x128x50257xf32>, tensor<8x128xi64> -> tensor<f32>
    ```
  }];
  let arguments = (ins Train_FloatTensor:$logits, Train_IndexTensor:$labels,
                   OptionalAttr<I64Attr>:$ignore_index);
  let results = (outs Train_ScalarFloatTensor:$result);
  let assemblyFormat = "$logits `,` $labels attr-dict `:` type($logits) `,` "
                       "type($labels) `->` type($result)";
  let hasVerifier = 1;
}

def Train_MseLossOp : Train_Op<"mse_loss", [Train_Differentiable, Pure, Train_KeepFP32],
                               ["getWorkspaceBuffers"]> {
  let summary = "Mean squared error";
  let description = [{
    `result = mean((input - target)^2)` over all elements; a 0-d float
    tensor. 3 FLOPs per element. Saves **input and target**.

    Workspace (the scratch buffers of the CPU lowering,
    `getWorkspaceBuffers`): the 0-d sum of squares in the compute type.

    Example:
    ```mlir
    %l = train.mse_loss %a, %y : tensor<64x1024xf32>, tensor<64x1024xf32> -> tensor<f32>
    ```
  }];
  let arguments = (ins Train_FloatTensor:$input, Train_FloatTensor:$target);
  let results = (outs Train_ScalarFloatTensor:$result);
  let assemblyFormat = "$input `,` $target attr-dict `:` type($input) `,` "
                       "type($target) `->` type($result)";
  let hasVerifier = 1;
}

def Train_ReduceSumOp : Train_Op<"reduce_sum", [Train_Differentiable, Pure, Train_KeepFP32],
                                 ["getWorkspaceBuffers"]> {
  let summary = "Sums a tensor over a set of dimensions";
  let description = [{
    Sums `input` over the strictly increasing dimensions `dims`; the result
    drops those dimensions. Used for bias gradients and broadcast gradients.
    1 FLOP per input element.

    Workspace (the scratch buffers of the CPU lowering,
    `getWorkspaceBuffers`): the sums in f32 before their rounding, for
    16-bit results.

    Example:
    ```mlir
    %db = train.reduce_sum %dy {dims = array<i64: 0, 1>} : tensor<8x128x768xf32> -> tensor<768xf32>
    ```
  }];
  let arguments = (ins Train_FloatTensor:$input, DenseI64ArrayAttr:$dims);
  let results = (outs Train_FloatTensor:$result);
  let assemblyFormat = "$input attr-dict `:` type($input) `->` type($result)";
  let hasVerifier = 1;
}

def Train_BroadcastOp : Train_Op<"broadcast", [Train_Differentiable, Pure, Train_LowPrecisionSafe]> {
  let summary = "Repeats a tensor along new dimensions";
  let description = [{
    The inverse of `train.reduce_sum`'s shape change: the result has the
    input's dimensions plus the new dimensions `dims` (strictly increasing
    positions in the result), and `result[i...] = input[i... without dims]`.
    It is the gradient of `train.reduce_sum`. Copies (no FLOPs); saves
    nothing.

    Example:
    ```mlir
    %b = train.broadcast %x {dims = array<i64: 0, 1>} : tensor<768xf32> -> tensor<8x128x768xf32>
    ```
  }];
  let arguments = (ins Train_FloatTensor:$input, DenseI64ArrayAttr:$dims);
  let results = (outs Train_FloatTensor:$result);
  let assemblyFormat = "$input attr-dict `:` type($input) `->` type($result)";
  let hasVerifier = 1;
}

//===----------------------------------------------------------------------===//
// Shape ops (views allocate nothing)
//===----------------------------------------------------------------------===//

def Train_ReshapeOp : Train_Op<"reshape", [Train_Differentiable, Pure, Train_LowPrecisionSafe,
                                           Train_ForwardsValues],
                              [], ["getViewSource"]> {
  let summary = "Reinterprets a tensor with a new shape (a view when possible)";
  let description = [{
    Same elements in row-major order, new static shape; the element count and
    type must be unchanged. No FLOPs. When the input is laid out so that the
    new shape can be expressed with strides over the same buffer (always for
    a contiguous input), the result is a view: no bytes. Otherwise, e.g. when
    merging dimensions of a `train.transpose` that are no longer adjacent in
    memory, it is a copy into a new contiguous buffer, exactly when PyTorch's
    `reshape` copies (`view` would fail).

    Example:
    ```mlir
    %f = train.reshape %x : tensor<8x128x768xf32> -> tensor<1024x768xf32>
    ```
  }];
  let arguments = (ins Train_AnyTensor:$input);
  let results = (outs Train_AnyTensor:$result);
  let assemblyFormat = "$input attr-dict `:` type($input) `->` type($result)";
  let hasVerifier = 1;
  let hasFolder = 1;
}

def Train_TransposeOp : Train_Op<"transpose", [Train_Differentiable, Pure, Train_LowPrecisionSafe,
                                               Train_ViewOp, Train_ForwardsValues]> {
  let summary = "Permutes dimensions (a view)";
  let description = [{
    `result.shape[i] = input.shape[permutation[i]]`. A view: no bytes, no
    FLOPs.

    Example:
    ```mlir
    %t = train.transpose %x {permutation = array<i64: 0, 2, 1, 3>}
        : tensor<2x128x12x64xf32> -> tensor<2x12x128x64xf32>
    ```
  }];
  let arguments = (ins Train_AnyTensor:$input,
                   DenseI64ArrayAttr:$permutation);
  let results = (outs Train_AnyTensor:$result);
  let assemblyFormat = "$input attr-dict `:` type($input) `->` type($result)";
  let hasVerifier = 1;
}

def Train_SliceOp : Train_Op<"slice", [Train_Differentiable, Pure, Train_LowPrecisionSafe,
                                       Train_ViewOp, Train_ForwardsValues]> {
  let summary = "A strided window of a tensor (a view)";
  let description = [{
    `result[i...] = input[offsets + i * strides]`; the result type gives the
    window's sizes. `strides` defaults to all ones. Every index touched must
    be inside the input. A view: no bytes, no FLOPs.

    Example:
    ```mlir
    %q = train.slice %qkv {offsets = array<i64: 0, 0>} : tensor<8x2304xf32> -> tensor<8x768xf32>
    ```
  }];
  let arguments = (ins Train_AnyTensor:$input, DenseI64ArrayAttr:$offsets,
                   OptionalAttr<DenseI64ArrayAttr>:$strides);
  let results = (outs Train_AnyTensor:$result);
  let assemblyFormat = "$input attr-dict `:` type($input) `->` type($result)";
  let hasVerifier = 1;
}

def Train_ConcatOp : Train_Op<"concat", [Train_Differentiable, Pure, Train_LowPrecisionSafe]> {
  let summary = "Concatenates tensors along one dimension";
  let description = [{
    Joins one or more tensors of the same rank and element type along `axis`;
    every other dimension must agree. Copies its inputs (no FLOPs); the
    gradient is a `train.slice` per input, so nothing is saved.

    Example:
    ```mlir
    %c = train.concat %a, %b {axis = 1 : i64}
        : tensor<2x64x32x32xf32>, tensor<2x64x32x32xf32> -> tensor<2x128x32x32xf32>
    ```
  }];
  let arguments = (ins Variadic<Train_AnyTensor>:$inputs, I64Attr:$axis);
  let results = (outs Train_AnyTensor:$result);
  let assemblyFormat = "$inputs attr-dict `:` type($inputs) `->` type($result)";
  let hasVerifier = 1;
}

//===----------------------------------------------------------------------===//
// Convolutional networks (NCHW)
//===----------------------------------------------------------------------===//

def Train_Conv2dOp : Train_Op<"conv2d", [Train_Differentiable, Pure, Train_LowPrecisionSafe],
                              ["getWorkspaceBuffers"]> {
  let summary = "2-D convolution, NCHW input, OIHW filter";
  let description = [{
    Cross-correlation of an `N x C x H x W` input with an
    `O x C/groups x KH x KW` filter. `strides`, `padding` (symmetric zero
    padding) and `dilation` have two entries (H, W); output size per spatial
    dimension is `(in + 2*pad - dilation*(k-1) - 1) / stride + 1`.
    `2*N*O*OH*OW*(C/groups)*KH*KW` FLOPs. Saves its **input** (for the filter
    gradient) and its **filter** (for the input gradient).

    Workspace (the scratch buffers of the CPU lowering,
    `getWorkspaceBuffers`): the zero-padded input `N*C*(H+2ph)*(W+2pw)`
    (input type) when padded, and the f32 sums `N*O*OH*OW` before their
    rounding for 16-bit results.
    The padded copy exceeds the input by its halo (`2ph` rows and `2pw`
    columns; 65% on a 7x7 map padded by 1): linalg's named convolution reads
    its input in bounds.

    Example:
    ```mlir
    %y = train.conv2d %x, %w {strides = array<i64: 1, 1>, padding = array<i64: 1, 1>}
        : tensor<2x3x32x32xf32>, tensor<64x3x3x3xf32> -> tensor<2x64x32x32xf32>
    ```
  }];
  let arguments = (ins Train_FloatTensor:$input, Train_FloatTensor:$filter,
      DefaultValuedAttr<DenseI64ArrayAttr, "{1, 1}">:$strides,
      DefaultValuedAttr<DenseI64ArrayAttr, "{0, 0}">:$padding,
      DefaultValuedAttr<DenseI64ArrayAttr, "{1, 1}">:$dilation,
      DefaultValuedAttr<I64Attr, "1">:$groups);
  let results = (outs Train_FloatTensor:$result);
  let assemblyFormat = "$input `,` $filter attr-dict `:` type($input) `,` "
                       "type($filter) `->` type($result)";
  let hasVerifier = 1;
}

class Train_PoolOp<string mnemonic, list<Trait> traits = []>
    : Train_Op<mnemonic, !listconcat(traits, [Pure, Train_LowPrecisionSafe]),
               ["getWorkspaceBuffers"]> {
  let arguments = (ins Train_FloatTensor:$input, DenseI64ArrayAttr:$kernel,
      DefaultValuedAttr<DenseI64ArrayAttr, "{1, 1}">:$strides,
      DefaultValuedAttr<DenseI64ArrayAttr, "{0, 0}">:$padding);
  let results = (outs Train_FloatTensor:$result);
  let assemblyFormat = "$input attr-dict `:` type($input) `->` type($result)";
  let hasVerifier = 1;
}

def Train_MaxPool2dOp : Train_PoolOp<"max_pool2d", [Train_Differentiable]> {
  let summary = "2-D max pooling, NCHW";
  let description = [{
    Maximum over `kernel` windows (H, W) with `strides` and `padding`
    (padding never wins the max). Output size per spatial dimension:
    `(in + 2*pad - k) / stride + 1`, or with `ceil_mode` (PyTorch's) the
    division rounded up, which adds a last, partial window where the input
    does not tile evenly (dropped again when it would start beyond the
    input and its left padding). `KH*KW` FLOPs per output element. Saves
    its **input** (the backward recomputes the argmax).

    Workspace (the scratch buffers of the CPU lowering,
    `getWorkspaceBuffers`): the `-inf`-padded input `N*C*(H+2ph)*(W+2pw)`
    when padded, grown at the bottom and right by what a `ceil_mode`
    partial window reaches beyond the padding.
    The `-inf`-padded copy exceeds the input by its halo: linalg's named
    pooling reads its input in bounds.

    Example:
    ```mlir
    %p = train.max_pool2d %x {kernel = array<i64: 2, 2>, strides = array<i64: 2, 2>}
        : tensor<2x64x32x32xf32> -> tensor<2x64x16x16xf32>
    %q = train.max_pool2d %x {ceil_mode, kernel = array<i64: 3, 3>, strides = array<i64: 2, 2>}
        : tensor<2x64x32x32xf32> -> tensor<2x64x16x16xf32>
    ```
  }];
  let arguments = (ins Train_FloatTensor:$input, DenseI64ArrayAttr:$kernel,
      DefaultValuedAttr<DenseI64ArrayAttr, "{1, 1}">:$strides,
      DefaultValuedAttr<DenseI64ArrayAttr, "{0, 0}">:$padding,
      UnitAttr:$ceil_mode);
}

def Train_AvgPool2dOp : Train_PoolOp<"avg_pool2d", [Train_Differentiable]> {
  let summary = "2-D average pooling, NCHW";
  let description = [{
    Mean over `kernel` windows (H, W), counting padded zeros
    (`count_include_pad`). Output size per spatial dimension:
    `(in + 2*pad - k) / stride + 1`. `KH*KW` FLOPs per output element. Saves
    nothing: the gradient needs only shapes.

    Workspace (the scratch buffers of the CPU lowering,
    `getWorkspaceBuffers`): the zero-padded input when padded, and the f32
    window sums (the result shape) before their division and rounding for
    16-bit results. The padded copy exceeds the input by its halo, as for
    `train.max_pool2d`; the sums of a 16-bit result are twice its bytes.

    Example:
    ```mlir
    %p = train.avg_pool2d %x {kernel = array<i64: 7, 7>}
        : tensor<2x2048x7x7xf32> -> tensor<2x2048x1x1xf32>
    ```
  }];
}

def Train_UpsampleNearest2dOp : Train_Op<"upsample_nearest2d", [Train_Differentiable, Pure,
                                                 Train_LowPrecisionSafe]> {
  let summary = "Nearest-neighbour 2-D upsampling by an integer factor, NCHW";
  let description = [{
    `result[n, c, y, x] = input[n, c, y / scale, x / scale]` (U-Net decoder).
    No FLOPs; saves nothing.

    Example:
    ```mlir
    %u = train.upsample_nearest2d %x {scale = 2 : i64}
        : tensor<2x128x16x16xf32> -> tensor<2x128x32x32xf32>
    ```
  }];
  let arguments = (ins Train_FloatTensor:$input, I64Attr:$scale);
  let results = (outs Train_FloatTensor:$result);
  let assemblyFormat = "$input attr-dict `:` type($input) `->` type($result)";
  let hasVerifier = 1;
}

#endif // MEMOPT_DIALECT_TRAIN_IR_TRAINFORWARDOPS_TD
