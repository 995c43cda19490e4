//===- TrainParallelOps.td ---------------------------------*- tablegen -*-===//
//
// Vocabulary-parallel cross-entropy, tensor parallelism.
// Included by TrainOps.td, which defines Train_Op and the traits used here.
//
//===----------------------------------------------------------------------===//

#ifndef MEMOPT_DIALECT_TRAIN_IR_TRAINPARALLELOPS_TD
#define MEMOPT_DIALECT_TRAIN_IR_TRAINPARALLELOPS_TD

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

//===----------------------------------------------------------------------===//
// Pipeline parallelism
//===----------------------------------------------------------------------===//

def Train_P2POp : Train_Op<"p2p", [Train_LowPrecisionSafe]> {
  let summary = "Sends and receives tensors between pipeline stages";
  let description = [{
    One point-to-point exchange of a pipeline stage (train-pipeline): every
    `sends` operand goes to the stage in `send_to` at the same position, with
    the tag in `send_tags`, and every result is received from the stage in
    `recv_from` with the tag in `recv_tags`. Stages are positions along the
    pipeline (`train.pipeline` on the function); a message matches the
    receive of its peer with the same tag. All the exchange's transfers
    start together and the op ends when all have finished (Megatron-LM's
    batched `isend`/`irecv`), so a stage may send the activation of one
    micro-batch and receive the gradient of another in one exchange without
    waiting on its neighbour. The sent tensors are read until the op ends;
    the received ones are new buffers. Neither pure nor movable: the pass
    that builds the exchanges orders them so that no stage waits forever.
    No FLOPs. train-pipeline numbers the messages from one stage to another
    in the order they are sent (k = 0, 1, ...) and tags them 2k + 1 when they
    go backward (gradients, the loss, a tied weight's gradient) and 2k for
    activations, so that ordering an exchange's messages by tag orders them
    as they are sent (NCCL, which has no tags, pairs messages in order); the
    memory analysis reads the direction from the tag on a stage of several
    model chunks (`virtual` in `train.pipeline`), where the last stage sends
    activations to the first, and from the peer's position otherwise.

    Example (stage 1 of 4 sends micro-batch 3's activation forward and
    receives micro-batch 1's gradient back):
    ```mlir
    %g = train.p2p send %y to [2] tags [6] : tensor<4x128x768xf32>
                   recv from [2] tags [3] : tensor<4x128x768xf32>
    ```
  }];
  let arguments = (ins Variadic<Train_AnyTensor>:$sends,
                   DefaultValuedAttr<DenseI64ArrayAttr, "{}">:$send_to,
                   DefaultValuedAttr<DenseI64ArrayAttr, "{}">:$send_tags,
                   DefaultValuedAttr<DenseI64ArrayAttr, "{}">:$recv_from,
                   DefaultValuedAttr<DenseI64ArrayAttr, "{}">:$recv_tags);
  let results = (outs Variadic<Train_AnyTensor>:$received);
  let assemblyFormat = [{
    (`send` $sends^ `to` $send_to `tags` $send_tags `:` type($sends))?
    (`recv` `from` $recv_from `tags` $recv_tags `:` type($received)^)?
    attr-dict
  }];
  let hasVerifier = 1;
}

#endif // MEMOPT_DIALECT_TRAIN_IR_TRAINPARALLELOPS_TD
