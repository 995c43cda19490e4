//===- TrainOps.td - train dialect operations --------------*- tablegen -*-===//

#ifndef MEMOPT_DIALECT_TRAIN_IR_TRAINOPS_TD
#define MEMOPT_DIALECT_TRAIN_IR_TRAINOPS_TD

include "memopt/Dialect/Train/IR/TrainBase.td"
include "memopt/Dialect/Train/IR/TrainInterfaces.td"
include "mlir/IR/OpAsmInterface.td"
include "mlir/IR/SymbolInterfaces.td"
include "mlir/Interfaces/SideEffectInterfaces.td"

/// A forward op with a gradient rule (DifferentiableOpInterface).
defvar Train_Differentiable =
    DeclareOpInterfaceMethods<Train_DifferentiableOpInterface>;

/// An op that reads an operand as indices in a range
/// (IndexOperandsOpInterface::getIndexBound).
defvar Train_IndexBound =
    DeclareOpInterfaceMethods<Train_IndexOperandsOpInterface, ["getIndexBound"]>;
/// An op whose result holds only values of its source
/// (IndexOperandsOpInterface::forwardsValues).
defvar Train_ForwardsValues =
    DeclareOpInterfaceMethods<Train_IndexOperandsOpInterface, ["forwardsValues"]>;

/// Every train op implements the cost and aliasing interfaces. `getFlops` is
/// always defined by the op; `costMethods` and `aliasMethods` name the other
/// interface methods the op overrides.
class Train_Op<string mnemonic, list<Trait> traits = [],
               list<string> costMethods = [], list<string> aliasMethods = []>
    : Op<Train_Dialect, mnemonic,
         !listconcat(traits, [
           Train_BoundedTensorSizes,
           Train_FiniteFloatAttributes,
           DeclareOpInterfaceMethods<Train_CostOpInterface, costMethods>,
           DeclareOpInterfaceMethods<Train_AliasingOpInterface, aliasMethods>])>;

//===----------------------------------------------------------------------===//
// State
//===----------------------------------------------------------------------===//

def Train_ParamOp : Train_Op<"param", [
    DeclareOpInterfaceMethods<OpAsmOpInterface, ["getAsmResultNames"]>,Train_LowPrecisionSafe,
    MemoryEffects<[MemRead<Train_StateResource>]>], ["getBytesWritten"]> {
  let summary = "Reads a named trainable parameter";
  let description = [{
    Yields the current value of the persistent parameter `name`. Parameters
    are live for the whole step; optimizer ops update them in place. The op
    only names an existing buffer: it moves no bytes. The printer names the
    result after the parameter (`%fc1.weight`).

    Example:
    ```mlir
    %w = train.param "fc1.weight" : tensor<1024x1024xf32>
    ```
  }];
  let arguments = (ins StrAttr:$name);
  let results = (outs Train_AnyTensor:$result);
  let assemblyFormat = "$name attr-dict `:` type($result)";
  let hasVerifier = 1;
}

def Train_OptStateOp : Train_Op<"opt_state", [
    DeclareOpInterfaceMethods<OpAsmOpInterface, ["getAsmResultNames"]>,Train_KeepFP32,
    MemoryEffects<[MemRead<Train_StateResource>]>], ["getBytesWritten"]> {
  let summary = "Reads a named optimizer state tensor";
  let description = [{
    Yields the current value of the persistent optimizer state `name` (Adam's
    first and second moments, SGD's momentum buffer). Optimizer states are
    live for the whole step and are updated in place by optimizer ops. The op
    only names an existing buffer: it moves no bytes.

    Example:
    ```mlir
    %m = train.opt_state "fc1.weight.exp_avg" : tensor<1024x1024xf32>
    ```
  }];
  let arguments = (ins StrAttr:$name);
  let results = (outs Train_AnyTensor:$result);
  let assemblyFormat = "$name attr-dict `:` type($result)";
  let hasVerifier = 1;
}

def Train_FreeOp : Train_Op<"free", [Train_LowPrecisionSafe,
    MemoryEffects<[MemWrite<Train_LifetimeResource>]>], ["getBytesRead"]> {
  let summary = "Ends the lifetime of a tensor";
  let description = [{
    Marks the program point after which `tensor` is dead; it has no other
    effect (it moves no bytes). It frees a whole buffer: the value must not
    be a view (free the buffer it views), neither it nor any view of it may
    be used after the free, it must not be freed twice, and persistent state
    (`train.param`, `train.opt_state`) cannot be freed.

    Example:
    ```mlir
    train.free %a : tensor<64x1024xf32>
    ```
  }];
  let arguments = (ins Train_AnyTensor:$tensor);
  let assemblyFormat = "$tensor attr-dict `:` type($tensor)";
  let hasVerifier = 1;
}

def Train_CastOp : Train_Op<"cast", [Train_Differentiable, Pure, Train_LowPrecisionSafe]> {
  let summary = "Converts a tensor to another floating-point element type";
  let description = [{
    Elementwise conversion between floating-point types (round to nearest
    even). The shape is unchanged. A cast to the same type folds away.
    1 FLOP per element.

    Example:
    ```mlir
    %h = train.cast %x : tensor<8x16xf32> -> tensor<8x16xbf16>
    ```
  }];
  let arguments = (ins Train_FloatTensor:$input);
  let results = (outs Train_FloatTensor:$result);
  let assemblyFormat = "$input attr-dict `:` type($input) `->` type($result)";
  let hasVerifier = 1;
  let hasFolder = 1;
}

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
    (`dlhs = dresult * rhs`, `drhs = dresult * lhs`).

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
    `getWorkspaceBuffers`): the zero-padded input (as `train.conv2d`) when
    padded, and the f32 sums (the filter shape) before their rounding for
    16-bit results.
    The padded copy exceeds the input by its halo, as for `train.conv2d`.

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

//===----------------------------------------------------------------------===//
// Optimizers (update parameters and states in place)
//===----------------------------------------------------------------------===//

def Train_SgdOp : Train_Op<"sgd", [Train_KeepFP32, AttrSizedOperandSegments,
    MemoryEffects<[MemRead<Train_StateResource>, MemWrite<Train_StateResource>]>],
    [], ["isUpdatedInPlace"]> {
  let summary = "Stochastic gradient descent update, in place";
  let description = [{
    `param -= lr * (grad + weight_decay * param)`; with `momentum > 0` and a
    momentum buffer (a `train.opt_state`), PyTorch's rule
    `buf = momentum * buf + g; param -= lr * buf`. `param` must come from
    `train.param` and the buffer from `train.opt_state`; both are updated in
    place (no new bytes). 3 FLOPs per element (5 with momentum).

    Under loss scaling (`train-precision`), `unscale(%s)` divides the
    gradient by the 0-d scale `s` first (PyTorch's GradScaler.unscale_,
    fused into the update), and `skip_if(%found)` leaves the parameter and
    the buffer unchanged when the 0-d flag is true (GradScaler.step skipping
    optimizer.step on inf/NaN gradients). Under gradient accumulation
    (`train-accumulate-gradients`) the flag is a `train.micro_batch_skip`:
    the update applies on the last micro-batch of each optimizer step only.

    Example:
    ```mlir
    train.sgd %w, %dw {lr = 1.000000e-02 : f64} : tensor<1024x1024xf32>, tensor<1024x1024xf32>
    train.sgd %w, %dw momentum(%buf : tensor<1024x1024xf32>) {lr = 1.000000e-02 : f64, momentum = 9.000000e-01 : f64}
        : tensor<1024x1024xf32>, tensor<1024x1024xf32>
    ```
  }];
  let arguments = (ins Train_FloatTensor:$param, Train_FloatTensor:$grad,
                   Optional<Train_FloatTensor>:$momentum_buffer,
                   Optional<Train_ScaleTensor>:$grad_scale,
                   Optional<Train_FlagTensor>:$found_nonfinite, F64Attr:$lr,
                   DefaultValuedAttr<F64Attr, "0.0">:$momentum,
                   DefaultValuedAttr<F64Attr, "0.0">:$weight_decay);
  let assemblyFormat = "$param `,` $grad (`momentum` `(` $momentum_buffer^ `:` "
                       "type($momentum_buffer) `)`)? (`unscale` `(` "
                       "$grad_scale^ `:` type($grad_scale) `)`)? (`skip_if` "
                       "`(` $found_nonfinite^ `:` type($found_nonfinite) "
                       "`)`)? attr-dict `:` type($param) `,` type($grad)";
  let hasVerifier = 1;
}

class Train_AdamBase<string mnemonic> : Train_Op<mnemonic, [Train_KeepFP32,
    AttrSizedOperandSegments,
    MemoryEffects<[MemRead<Train_StateResource>, MemWrite<Train_StateResource>]>,
    DeclareOpInterfaceMethods<Train_IndexOperandsOpInterface, ["isStepCount"]>],
    [], ["isUpdatedInPlace"]> {
  let arguments = (ins Train_FloatTensor:$param, Train_FloatTensor:$grad,
                   Train_FloatTensor:$exp_avg, Train_FloatTensor:$exp_avg_sq,
                   Train_StepTensor:$step,
                   Optional<Train_ScaleTensor>:$grad_scale,
                   Optional<Train_FlagTensor>:$found_nonfinite,
                   Optional<Train_CounterTensor>:$skipped_steps, F64Attr:$lr,
                   DefaultValuedAttr<F64Attr, "0.9">:$beta1,
                   DefaultValuedAttr<F64Attr, "0.999">:$beta2,
                   DefaultValuedAttr<F64Attr, "1.0e-8">:$epsilon,
                   DefaultValuedAttr<F64Attr, "0.0">:$weight_decay);
  let assemblyFormat = "$param `,` $grad `,` $exp_avg `,` $exp_avg_sq "
                       "`step` `(` $step `:` type($step) `)` (`unscale` `(` "
                       "$grad_scale^ `:` type($grad_scale) `)`)? (`skip_if` "
                       "`(` $found_nonfinite^ `:` type($found_nonfinite) "
                       "`)`)? (`skipped` `(` $skipped_steps^ `:` "
                       "type($skipped_steps) `)`)? attr-dict `:` type($param) "
                       "`,` type($grad) `,` type($exp_avg) `,` "
                       "type($exp_avg_sq)";
  let hasVerifier = 1;
}

def Train_AdamOp : Train_AdamBase<"adam"> {
  let summary = "Adam update of a parameter and its moments, in place";
  let description = [{
    PyTorch's `torch.optim.Adam` for step `t` (the 0-d `step` operand, counted
    from 1): `g = grad + weight_decay * param`, `m = beta1*m + (1-beta1)*g`,
    `v = beta2*v + (1-beta2)*g^2`, `param -= lr * (m / (1-beta1^t)) /
    (sqrt(v / (1-beta2^t)) + epsilon)`. `param` must come from `train.param`
    and `exp_avg` / `exp_avg_sq` from `train.opt_state`; all three are updated
    in place. The gradient may be narrower than the fp32 states. 12 FLOPs
    per element.

    Under loss scaling (`train-precision`): `unscale(%s)` divides the
    gradient by the 0-d scale `s`; `skip_if(%found)` leaves the parameter
    and the moments unchanged when the 0-d flag is true; and
    `skipped(%n)` (the `loss_scale.skipped_steps` state) counts the steps
    skipped so far, so that the bias correction uses `t - n`, the number of
    updates applied, as PyTorch's Adam does (GradScaler never calls its
    `step()` on a skipped step). Under gradient accumulation `skip_if` is a
    `train.micro_batch_skip` flag (the update applies on the last
    micro-batch of each optimizer step), and `step` counts optimizer steps:
    the caller passes the same number to the micro-batches of one step
    (mem-run does), as PyTorch's Adam counts `step()` calls.

    Example:
    ```mlir
    train.adam %w, %dw, %m, %v step(%t : tensor<i64>) {lr = 1.000000e-03 : f64}
        : tensor<1024x1024xf32>, tensor<1024x1024xf32>, tensor<1024x1024xf32>, tensor<1024x1024xf32>
    ```
  }];
}

def Train_AdamWOp : Train_AdamBase<"adamw"> {
  let summary = "AdamW update (decoupled weight decay), in place";
  let description = [{
    PyTorch's `torch.optim.AdamW`: as `train.adam` without the L2 term in the
    gradient, and with `param *= 1 - lr * weight_decay` applied before the
    Adam step. `weight_decay` defaults to 0 here; PyTorch's default is 0.01.
    13 FLOPs per element.

    Example:
    ```mlir
    train.adamw %w, %dw, %m, %v step(%t : tensor<i64>) {lr = 1.000000e-03 : f64, weight_decay = 1.000000e-02 : f64}
        : tensor<768xf32>, tensor<768xf32>, tensor<768xf32>, tensor<768xf32>
    ```
  }];
}

def Train_AccumulateOp : Train_Op<"accumulate", [Train_KeepFP32,
    MemoryEffects<[MemRead<Train_StateResource>, MemWrite<Train_StateResource>]>],
    [], ["isUpdatedInPlace"]> {
  let summary = "Adds a micro-batch's gradient into its accumulation buffer, in place";
  let description = [{
    Gradient accumulation over the micro-batches of an optimizer step. With
    `g = convert(grad) * scale`, computed in the buffer's element type (the
    product elided at the default `scale` of 1): `buffer = g` on
    micro-batch 0 (the index `micro_batch` is 0: the buffer restarts,
    whatever it held), and `buffer = buffer + g` on the others. An
    optimizer op that reads the buffer as its gradient (under
    `skip_if(train.micro_batch_skip ...)`, so only on the last
    micro-batch) then updates from the sum. `train-accumulate-gradients`
    sets `scale` to `1 / micro-batches`, so that the sum is the mean of the
    micro-batches' gradients (PyTorch's `loss / accumulation_steps`
    recipe), or leaves it at 1 where the backward's seed already carries
    that factor (under loss scaling).

    `buffer` must come from `train.opt_state` (conventionally named
    `"<param>.grad_accumulator"`, a buffer that lives across the
    micro-batches of one optimizer step, like Megatron-LM's fp32
    `main_grad`), have the gradient's shape and be at least as wide; it is
    updated in place (no new bytes). `micro_batch` must be the
    `train.opt_state "grad_accumulation.micro_batch"` (0-d i64, the index
    of this micro-batch in its optimizer step, advanced by
    `train.micro_batch_advance`), and `scale` positive. mem-autoplan's plans
    of more than one micro-batch per step hold this op (docs/autoplan.md).
    2 FLOPs per element.

    Example:
    ```mlir
    %i = train.opt_state "grad_accumulation.micro_batch" : tensor<i64>
    %acc = train.opt_state "w.grad_accumulator" : tensor<1024x1024xf32>
    train.accumulate %acc, %dw micro_batch(%i : tensor<i64>) {scale = 2.500000e-01 : f64}
        : tensor<1024x1024xf32>, tensor<1024x1024xbf16>
    ```
  }];
  let arguments = (ins Train_FloatTensor:$buffer, Train_FloatTensor:$grad,
                   Train_CounterTensor:$micro_batch,
                   DefaultValuedAttr<F64Attr, "1.0">:$scale);
  let assemblyFormat =
      "$buffer `,` $grad `micro_batch` `(` $micro_batch `:` "
      "type($micro_batch) `)` attr-dict `:` type($buffer) `,` type($grad)";
  let hasVerifier = 1;
}

def Train_MicroBatchSkipOp : Train_Op<"micro_batch_skip", [Pure, Train_KeepFP32]> {
  let summary = "Whether an optimizer update waits for a later micro-batch";
  let description = [{
    A 0-d i1 flag for the `skip_if` of the optimizer ops under gradient
    accumulation: true on every micro-batch but the last of an optimizer
    step (`micro_batch != micro_batches - 1`), so that the update applies
    once per step, from the accumulated gradient. With `or(%found)` (under
    dynamic loss scaling) it is also true when `found` is: the update is
    then skipped for non-finite gradients too, as `skip_if(%found)` alone
    would. `micro_batch` must be the `train.opt_state
    "grad_accumulation.micro_batch"` and `micro_batches` >= 1. 2 FLOPs.

    Example:
    ```mlir
    %i = train.opt_state "grad_accumulation.micro_batch" : tensor<i64>
    %skip = train.micro_batch_skip %i {micro_batches = 4 : i64} : tensor<i64> -> tensor<i1>
    train.sgd %w, %acc skip_if(%skip : tensor<i1>) {lr = 1.000000e-02 : f64} : tensor<16x4xf32>, tensor<16x4xf32>
    ```
  }];
  let arguments = (ins Train_CounterTensor:$micro_batch,
                   Optional<Train_FlagTensor>:$found_nonfinite,
                   I64Attr:$micro_batches);
  let results = (outs Train_FlagTensor:$result);
  let assemblyFormat = "$micro_batch (`or` `(` $found_nonfinite^ `:` "
                       "type($found_nonfinite) `)`)? attr-dict `:` "
                       "type($micro_batch) `->` type($result)";
  let hasVerifier = 1;
}

def Train_MicroBatchAdvanceOp : Train_Op<"micro_batch_advance", [Train_KeepFP32,
    MemoryEffects<[MemRead<Train_StateResource>, MemWrite<Train_StateResource>]>],
    [], ["isUpdatedInPlace"]> {
  let summary = "Moves gradient accumulation on to the next micro-batch, in place";
  let description = [{
    `micro_batch = (micro_batch + 1) mod micro_batches`, in place: the
    index of the micro-batch in its optimizer step, kept in the persistent
    0-d i64 state `train.opt_state "grad_accumulation.micro_batch"` (0,
    like every state, before the first step). `train-accumulate-gradients`
    writes it last in the step, after every op that reads the index
    (`train.accumulate`, `train.micro_batch_skip`), which train-verify-step
    checks. A runtime calls such a step `micro_batches` times per optimizer
    step (mem-run does: docs/execution.md). `micro_batches` >= 1. 2 FLOPs.

    Example:
    ```mlir
    train.micro_batch_advance %i {micro_batches = 4 : i64} : tensor<i64>
    ```
  }];
  let arguments = (ins Train_CounterTensor:$micro_batch, I64Attr:$micro_batches);
  let assemblyFormat = "$micro_batch attr-dict `:` type($micro_batch)";
  let hasVerifier = 1;
}

//===----------------------------------------------------------------------===//
// Loss scaling
//===----------------------------------------------------------------------===//

def Train_LossScaleOp : Train_Op<"loss_scale", [Pure, Train_KeepFP32]> {
  let summary = "The current dynamic loss scale";
  let description = [{
    `initial_scale * 2^exponent` as a 0-d f32 tensor. `exponent` is the
    persistent state `loss_scale.exponent` (it starts at 0, as every state
    does): growing or backing off the scale by 2 moves it by one, so the
    scale is held exactly. `train-autodiff` seeds the loss gradient with it
    under dynamic loss scaling. 2 FLOPs.

    Example:
    ```mlir
    %e = train.opt_state "loss_scale.exponent" : tensor<i64>
    %s = train.loss_scale %e {initial_scale = 6.553600e+04 : f64} : tensor<i64> -> tensor<f32>
    ```
  }];
  let arguments = (ins Train_CounterTensor:$exponent, F64Attr:$initial_scale);
  let results = (outs Train_ScaleTensor:$result);
  let assemblyFormat =
      "$exponent attr-dict `:` type($exponent) `->` type($result)";
  let hasVerifier = 1;
}

def Train_AnyNonfiniteOp : Train_Op<"any_nonfinite", [Pure, Train_KeepFP32]> {
  let summary = "Whether any element of the gradients is inf or NaN";
  let description = [{
    A 0-d i1 tensor, true when an element of any input is infinite or NaN
    (PyTorch's GradScaler `found_inf`, over every gradient of the step).
    Reads each input once; 1 FLOP per element.

    Example:
    ```mlir
    %found = train.any_nonfinite %dw, %db : tensor<8x4xf16>, tensor<4xf16> -> tensor<i1>
    ```
  }];
  let arguments = (ins Variadic<Train_FloatTensor>:$inputs);
  let results = (outs Train_FlagTensor:$result);
  let assemblyFormat =
      "$inputs attr-dict `:` type($inputs) `->` type($result)";
  let hasVerifier = 1;
}

def Train_LossScaleUpdateOp : Train_Op<"loss_scale_update", [Train_KeepFP32,
    MemoryEffects<[MemRead<Train_StateResource>, MemWrite<Train_StateResource>]>],
    [], ["isUpdatedInPlace"]> {
  let summary = "GradScaler's scale update, in place";
  let description = [{
    After the step's updates, with `found` from `train.any_nonfinite`:
    on inf/NaN, `exponent -= 1` (backoff x0.5), `growth_tracker = 0` and
    `skipped_steps += 1`; otherwise `growth_tracker += 1`, and when it
    reaches `growth_interval`, `exponent += 1` (growth x2) and
    `growth_tracker = 0`. The three counters are persistent 0-d i64 states
    (`loss_scale.exponent`, `loss_scale.growth_tracker`,
    `loss_scale.skipped_steps`), updated in place. With `skip_if(%skip)`
    nothing changes when the 0-d flag `skip` is true: under gradient
    accumulation (`train.micro_batch_skip`) the scale is updated once per
    optimizer step, on its last micro-batch, as GradScaler.update() is.

    Example:
    ```mlir
    train.loss_scale_update %e, %tracker, %skipped, %found {growth_interval = 2000 : i64}
        : tensor<i64>, tensor<i64>, tensor<i64>, tensor<i1>
    ```
  }];
  let arguments = (ins Train_CounterTensor:$exponent,
                   Train_CounterTensor:$growth_tracker,
                   Train_CounterTensor:$skipped_steps,
                   Train_FlagTensor:$found_nonfinite,
                   Optional<Train_FlagTensor>:$skip,
                   I64Attr:$growth_interval);
  let assemblyFormat = "$exponent `,` $growth_tracker `,` $skipped_steps `,` "
                       "$found_nonfinite (`skip_if` `(` $skip^ `:` type($skip) "
                       "`)`)? attr-dict `:` type($exponent) `,` "
                       "type($growth_tracker) `,` type($skipped_steps) `,` "
                       "type($found_nonfinite)";
  let hasVerifier = 1;
}

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

//===----------------------------------------------------------------------===//
// Vocabulary-parallel cross-entropy
//===----------------------------------------------------------------------===//

def Train_RowMaxOp : Train_Op<"row_max", [Pure, Train_KeepFP32]> {
  let summary = "Maximum of each row of logits";
  let description = [{
    `result[i...] = max_v logits[i..., v]` over the last dimension, in the
    result's element type (f32 or f64). The first step of the
    vocabulary-parallel cross-entropy `train-shard` builds: a
    `shard.all_reduce` (max) of it gives every process the maximum over the
    whole vocabulary. No gradient rule: the loss does not depend on the
    maximum it is shifted by (`train.vocab_parallel_stats`). 1 FLOP per
    logit.

    Example:
    ```mlir
    %m = train.row_max %logits : tensor<8x128x25216xf32> -> tensor<8x128xf32>
    ```
  }];
  let arguments = (ins Train_FloatTensor:$logits);
  let results = (outs Train_FloatTensor:$result);
  let assemblyFormat = "$logits attr-dict `:` type($logits) `->` type($result)";
  let hasVerifier = 1;
}

def Train_VocabParallelStatsOp : Train_Op<"vocab_parallel_stats",
    [Train_Differentiable, Pure, Train_KeepFP32, Train_IndexBound]> {
  let summary = "A process's share of the cross-entropy's row statistics";
  let description = [{
    For logits `P... x V` that are part `p` of `N` of the vocabulary
    (columns `[p*V, (p+1)*V)` of the whole logits), the row maximum `max`
    over the whole vocabulary (`P...`), and labels `P...` in `[0, N*V)`,
    returns `2 x P...` in `max`'s type:

    * `result[0]`: `sum_v exp(logits[..., v] - max)` over this part;
    * `result[1]`: `logits[..., label - p*V] - max` where this part holds the
      label's column, else 0.

    Summed over the N processes (`shard.all_reduce`), they are the whole
    row's sum of exponentials and target logit, both shifted by `max`,
    from which `train.cross_entropy_from_stats` computes the loss. The
    gradient treats `max` as a constant, which is exact: the loss
    `log(sum) - target` does not depend on the shift. 4 FLOPs per logit.

    Example:
    ```mlir
    %s = train.vocab_parallel_stats %logits, %m, %labels part %p of 2
        : tensor<8x128x25216xf32>, tensor<8x128xf32>, tensor<8x128xi64> -> tensor<2x8x128xf32>
    ```
  }];
  let arguments = (ins Train_FloatTensor:$logits, Train_FloatTensor:$max,
                   Train_IndexTensor:$labels, Index:$part, I64Attr:$parts);
  let results = (outs Train_FloatTensor:$result);
  let assemblyFormat = "$logits `,` $max `,` $labels `part` $part `of` $parts "
                       "attr-dict `:` type($logits) `,` type($max) `,` "
                       "type($labels) `->` type($result)";
  let hasVerifier = 1;
}

def Train_CrossEntropyFromStatsOp : Train_Op<"cross_entropy_from_stats",
    [Train_Differentiable, Pure, Train_KeepFP32], ["getWorkspaceBuffers"]> {
  let summary = "Mean cross-entropy from summed row statistics";
  let description = [{
    `result = mean_i(log(stats[0, i...]) - stats[1, i...])` for the `2 x P...`
    statistics of `train.vocab_parallel_stats` summed over the vocabulary
    parts, i.e. the mean of `logsumexp(logits) - logits[label]` of
    `train.cross_entropy`. With `ignore_index`, positions whose label equals
    it count for nothing and the mean is over the others, as in
    `train.cross_entropy`. 2 FLOPs per position.

    Workspace (the scratch buffers of the CPU lowering,
    `getWorkspaceBuffers`): the two 0-d sums (loss and count), in the
    statistics' type.

    Example:
    ```mlir
    %l = train.cross_entropy_from_stats %s, %labels : tensor<2x8x128xf32>, tensor<8x128xi64> -> tensor<f32>
    ```
  }];
  let arguments = (ins Train_FloatTensor:$stats, Train_IndexTensor:$labels,
                   OptionalAttr<I64Attr>:$ignore_index);
  let results = (outs Train_ScalarFloatTensor:$result);
  let assemblyFormat = "$stats `,` $labels attr-dict `:` type($stats) `,` "
                       "type($labels) `->` type($result)";
  let hasVerifier = 1;
}

def Train_VocabParallelStatsGradOp : Train_Op<"vocab_parallel_stats_grad",
    [Pure, Train_KeepFP32, Train_IndexBound]> {
  let summary = "Gradient of vocab_parallel_stats with respect to the logits";
  let description = [{
    `result[..., v] = grad[0, ...] * exp(logits[..., v] - max) +
    grad[1, ...] * (v == label - p*V)`, in the logits' type: the gradient of
    `train.vocab_parallel_stats` for its `2 x P...` incoming gradient.
    3 FLOPs per logit.

    Example:
    ```mlir
    %dlogits = train.vocab_parallel_stats_grad %ds, %logits, %m, %labels part %p of 2
        : tensor<2x8x128xf32>, tensor<8x128x25216xf32>, tensor<8x128xf32>, tensor<8x128xi64> -> tensor<8x128x25216xf32>
    ```
  }];
  let arguments = (ins Train_FloatTensor:$grad, Train_FloatTensor:$logits,
                   Train_FloatTensor:$max, Train_IndexTensor:$labels,
                   Index:$part, I64Attr:$parts);
  let results = (outs Train_FloatTensor:$result);
  let assemblyFormat = "$grad `,` $logits `,` $max `,` $labels `part` $part "
                       "`of` $parts attr-dict `:` type($grad) `,` "
                       "type($logits) `,` type($max) `,` type($labels) `->` "
                       "type($result)";
  let hasVerifier = 1;
}

def Train_CrossEntropyFromStatsGradOp : Train_Op<"cross_entropy_from_stats_grad",
    [Pure, Train_KeepFP32], ["getWorkspaceBuffers"]> {
  let summary = "Gradient of cross_entropy_from_stats";
  let description = [{
    For the 0-d loss gradient `grad` and `P` counted positions,
    `result[0, i...] = grad / (P * stats[0, i...])` and
    `result[1, i...] = -grad / P`, zero at positions whose label is
    `ignore_index`. 2 FLOPs per position.

    Workspace (the scratch buffers of the CPU lowering,
    `getWorkspaceBuffers`): a 0-d count with `ignore_index`.

    Example:
    ```mlir
    %ds = train.cross_entropy_from_stats_grad %dl, %s, %labels
        : tensor<f32>, tensor<2x8x128xf32>, tensor<8x128xi64> -> tensor<2x8x128xf32>
    ```
  }];
  let arguments = (ins Train_ScalarFloatTensor:$grad, Train_FloatTensor:$stats,
                   Train_IndexTensor:$labels,
                   OptionalAttr<I64Attr>:$ignore_index);
  let results = (outs Train_FloatTensor:$result);
  let assemblyFormat = "$grad `,` $stats `,` $labels attr-dict `:` "
                       "type($grad) `,` type($stats) `,` type($labels) `->` "
                       "type($result)";
  let hasVerifier = 1;
}

//===----------------------------------------------------------------------===//
// Tensor parallelism
//===----------------------------------------------------------------------===//

def Train_CopyToParallelOp : Train_Op<"copy_to_parallel", [Train_Differentiable,
    Pure, Train_LowPrecisionSafe, Train_ViewOp, Train_ForwardsValues,
    AllTypesMatch<["input", "result"]>,
    DeclareOpInterfaceMethods<SymbolUserOpInterface>]> {
  let summary = "Enters a tensor-parallel region: identity forward, gradient summed";
  let description = [{
    The input of column-parallel layers in a step that `train-shard` split
    over the processes of `grid_axes` of the `shard.grid` named `grid`
    (Megatron-LM's operator *f*). Forward, the result is the input (a view:
    no bytes, no FLOPs). Each process then computes a part of what reads
    the result (its own heads, its own columns), so the gradient flowing
    back is a partial sum: its gradient rule is a `shard.all_reduce` (sum)
    of the result's gradient over `grid_axes`. The matching operator *g*,
    after row-parallel layers, is a plain `shard.all_reduce`, whose
    gradient is the identity.

    Example:
    ```mlir
    %xp = train.copy_to_parallel %x on @grid grid_axes = [1]
        : tensor<8x128x768xf32>
    ```
  }];
  let arguments = (ins Train_AnyTensor:$input, FlatSymbolRefAttr:$grid,
                   DenseI16ArrayAttr:$grid_axes);
  let results = (outs Train_AnyTensor:$result);
  let assemblyFormat = [{
    $input `on` $grid `grid_axes` `=` $grid_axes attr-dict `:` type($input)
  }];
  let hasVerifier = 1;
}

#endif // MEMOPT_DIALECT_TRAIN_IR_TRAINOPS_TD
