//===- ParallelPasses.td - train-shard and train-pipeline --*- tablegen -*-===//
//
// The passes that partition a step over processes: tensor and data
// parallelism (train-shard) and pipeline stages (train-pipeline). Included
// by Passes.td at their place in its order.
//
//===----------------------------------------------------------------------===//

#ifndef MEMOPT_TRANSFORMS_PARALLELPASSES_TD
#define MEMOPT_TRANSFORMS_PARALLELPASSES_TD

include "mlir/Pass/PassBase.td"

def TrainShardPass : Pass<"train-shard", "::mlir::ModuleOp"> {
  let summary = "Partitions a step into the program of one process of a "
                "dp x tp grid (Megatron tensor parallelism, data parallelism)";
  let description = [{
    Rewrites a forward + loss function, or a whole training step, into the
    program every process of a `shard.grid @grid(shape = dp x tp)` runs,
    with every collective explicit as an upstream `shard` op. A whole step
    is partitioned through its forward pass: the backward pass and the
    updates are derived again by train-autodiff's rules (the step must be
    what train-autodiff produced, as for train-precision).

    * Tensor parallelism (`tp`, grid axis 1), as in Megatron-LM. A matmul
      that reads a replicated activation and a parameter becomes
      column-parallel (the parameter split along its output features) when
      what it feeds reaches row-parallel matmuls (parameters split along
      their input features) through ops that work per head or per column
      (bias, slices, reshapes, transposes, attention, softmax, activations);
      otherwise it stays replicated. Attention heads (and grouped-query KV
      heads) are split. When `tp` is a multiple of an attention's KV heads
      (and exceeds them), each process keeps one KV head, which
      `tp / kv` processes share: the grid becomes `dp x kv x tp/kv` (tensor-parallel
      collectives over axes 1 and 2), the K and V projections split over
      axis 1 only, and their weights enter through
      `train.copy_to_parallel` over axis 2, whose gradient sums the shares
      of the processes that hold the same KV head. The input of a column-parallel region enters
      through `train.copy_to_parallel` (its gradient is an all-reduce), and
      the partial sums of row-parallel matmuls are summed by
      `shard.all_reduce` (whose gradient is the identity).
    * Data parallelism (`dp`, grid axis 0): every function argument is split
      along its first dimension (the batch); the loss is averaged over the
      axis (`shard.all_reduce ... reduction = average`), and train-autodiff
      averages every parameter's gradient over it before the update.
    * ZeRO (`zero`, 1 to 3, needs `dp` > 1), as DeepSpeed partitions the
      model states over the data-parallel processes. Every parameter with at
      least `dp` rows in its first dimension (after tensor parallelism) is
      stored split along it (each process holds and updates its part, fp32 master
      weights included), so its optimizer states and its gradient are split
      too. The part (or its low-precision copy) is gathered
      (`shard.all_gather`) just before its first use; the gradient of the
      gather is a reduce-scatter, which train-autodiff turns into the
      average over `dp`. Stages 1 and 2 keep the gathered parameter for the
      backward pass; stage 1 reduces each gradient after the whole backward
      pass (whole gradients live until then), stage 2 as soon as it is
      complete; stage 3 gathers the parameter again before its first use in
      the backward pass, so the gathered copy lives only while a layer
      computes. When `dp` does not divide the first dimension, the last
      part ends with zero padding (`train.split_extent` gives the real
      extent) and a `train.slice` of the gathered tensor drops it;
      parameters with fewer rows than `dp` stay whole, with an all-reduced
      gradient.
    * Sequence parallelism (`sequence-parallel`, needs `tp` > 1), as in
      Korthikanti et al. (2022): every argument is split along dimension 1
      (the sequence) over the tensor-parallel axis, and so is everything
      computed from it outside the tensor-parallel regions (embeddings,
      norms, residual adds, dropout, the LM head and the loss, each per
      token). A region's input is gathered along the sequence
      (`shard.all_gather`, whose gradient is a reduce-scatter) instead of
      entering through `train.copy_to_parallel`, and a region's partial sums
      are reduce-scattered along it (`shard.reduce_scatter`, whose gradient
      is an all-gather) instead of all-reduced. A parameter those per-token
      ops read enters through `train.copy_to_parallel`, so that its
      gradient sums the processes' shares; the loss is averaged over the
      axis, and train-autodiff seeds its gradient with 1/tp.

    * Vocabulary parallelism (`vocab-parallel`, on by default when `tp` >
      1), as in Megatron-LM: a matmul of a
      parameter whose output reaches `train.cross_entropy` as the logits is
      column-parallel too, so each process computes the logits of its part
      of the vocabulary and they are never whole on a process. The loss
      becomes `train.row_max`, a `shard.all_reduce` (max),
      `train.vocab_parallel_stats`, a `shard.all_reduce` (sum) and
      `train.cross_entropy_from_stats`. Embeddings of the head's table (a
      tied LM head), and of any table with as many rows as the vocabulary
      that only embeddings read (an untied one), are split along the rows:
      each process looks up the ids its part holds (`part %p of tp`, from
      `shard.process_multi_index`), and a `shard.all_reduce` sums the
      processes' rows. The vocabulary must divide by `tp` (Megatron pads
      it; `mem-gen --vocab` sets it), else the head stays replicated, with
      a warning. With sequence parallelism, the ids and the labels those
      ops read are whole: the embedding's summed rows are reduce-scattered
      along the sequence, the head's input is gathered along it, and the
      loss is whole on every process. With `vocab-parallel=false` the head
      stays replicated (per token, under sequence parallelism).

    Parameters and arguments that are split carry `train.split` (which
    part of the whole tensor a process holds), and the function
    `train.shard` (`{grid = @grid, dp, tp, zero}`); mem-run fills a split
    tensor with the whole tensor's values, so a run on `dp x tp` processes
    computes what one process computes on the whole program.

    Errors: a degree outside 1 to 65536 (checked when the options are
    parsed), heads or a split feature count not divisible by `tp` (naming
    the heads or features), KV heads that `tp` neither divides nor is a multiple of,
    attentions whose replicated KV head counts differ, a batch not divisible by `dp`, `zero` outside 0 to 3
    or above 0 with `dp` = 1, dynamic loss scaling with `zero` or
    `sequence-parallel` (each process would check only its part of the
    gradients), `sequence-parallel` with `tp` = 1, an argument whose
    sequence `tp` does not divide, an op with no per-token rule on a
    sequence-split value, a vocabulary-parallel embedding under
    sequence parallelism whose ids something else reads too, a module that already has
    a grid named `@grid`, a function train-shard already partitioned.
  }];
  let options = [
    Option<"tp", "tp", "int64_t", /*default=*/"1",
           "Tensor-parallel degree (grid axis 1), 1 to 65536">,
    Option<"dp", "dp", "int64_t", /*default=*/"1",
           "Data-parallel degree (grid axis 0), 1 to 65536">,
    Option<"zero", "zero", "int64_t", /*default=*/"0",
           "ZeRO stage (0 to 3): partition optimizer states (1), gradients "
           "(2) and parameters (3) over the data-parallel processes">,
    Option<"sequenceParallel", "sequence-parallel", "bool",
           /*default=*/"false",
           "Sequence parallelism (needs tp > 1): outside the tensor-parallel "
           "regions, split every activation along the sequence over the "
           "tensor-parallel processes">,
    Option<"vocabParallel", "vocab-parallel", "bool", /*default=*/"true",
           "Split the LM head, its cross-entropy and the vocabulary's "
           "embedding over the tensor-parallel processes (tp > 1)">,
  ];
  let dependentDialects = ["::mlir::memopt::train::TrainDialect",
                           "::mlir::shard::ShardDialect",
                           "::mlir::arith::ArithDialect"];
}

def TrainPipelinePass : Pass<"train-pipeline", "::mlir::ModuleOp"> {
  let summary = "Splits a training step into pipeline stages, one program "
                "per stage, with point-to-point transfers in a schedule's "
                "order";
  let description = [{
    Rewrites a whole training step (what train-autodiff produced, optionally
    lowered by train-precision first) for one micro-batch into the programs
    of `stages` pipeline stages that together run `microbatches`
    micro-batches per optimizer step, as Megatron-LM's pipeline parallelism
    does. The step `@f` is replaced by `@f_stage0` ... `@f_stage<P-1>`; stage
    `s` runs on process `s` of a new `shard.grid @grid(shape = P)` (the
    last axis of train-shard's grid, for a partitioned step), and
    carries `train.pipeline = {stage = s, stages = P, microbatches = M,
    schedule, layers, grid, axis = 0, step}`.

    * Stages are contiguous runs of the step's `train.layer`s: balanced by
      FLOPs by default (the ops before the first layer, such as the
      embedding, count on the first stage; the ops after the last, such as
      the head and the loss, on the last), or given by `split`, the index of
      each stage's first layer (`split=0,10,20,30`). Every stage holds at
      least one layer.
    * Each stage's program reads the micro-batches of every argument of rank
      one or more concatenated along dimension 0 (`M` times the step's
      dimension 0), and runs, for each micro-batch, its forward ops, and
      then its backward ops, derived with train-autodiff's rules from the
      gradient the next stage sends back (the loss's, seeded with `1/M`, on
      the last stage). The order is the schedule's:
      `1f1b` (PipeDream-Flush, Megatron-LM's default: stage `s` runs
      `min(M, P - 1 - s)` forward passes, then alternates one forward and
      one backward, then finishes the backward passes), or `gpipe` (every
      forward, then every backward).
    * Values that cross from stage `s` to a later stage are sent with
      `train.p2p` (activations forward, their gradients backward), relayed
      by the stages in between; ops outside the layers that read only the
      arguments, constants and parameters (position ids, masks, embedding
      lookups, the 16-bit copy of a tied embedding, ZeRO's gathers) are
      computed by each stage that reads them: no weight is sent.
      Adjacent transfers are merged into one exchange, as Megatron-LM's
      `send_forward_recv_backward` does; the pass checks that the stages'
      exchanges cannot wait on each other forever.
    * Each parameter is read by the stages whose ops read it. Gradients sum
      over the micro-batches, in micro-batch order; a parameter that
      several stages read (an embedding tied to the head) has its gradient
      summed between them before the update, which every such stage
      applies to its own copy.
    * Every stage returns the step's loss, the mean of the micro-batches'
      losses, which the last stage sends to the others.

    The memory of each stage is the liveness of its program: the
    activations in flight under the schedule are live values, so the first
    stage of `1f1b` holds `min(M, P)` micro-batches' activations and the
    last holds one, with no formula; `zb-h1`'s deferred weight passes and
    the interleaved schedule's deeper warm-up are live values the same way.

    A step train-shard partitioned (tp, dp, sequence parallelism, ZeRO) is
    pipelined the same way: its grid gets the stages as a new last axis
    (`dp x tp x pp`), each stage keeps its tensor-parallel collectives and
    the data-parallel average of its gradients (after the sums over the
    micro-batches), and the stages of one `(dp, tp)` position exchange with
    each other. Under ZeRO a stage gathers each parameter part once per step
    (ZeRO-3: for each micro-batch, and again for its backward pass); ZeRO-1
    sums the whole gradients over the micro-batches and reduce-scatters
    them once (Megatron-LM's distributed optimizer), ZeRO-2 reduce-scatters
    each micro-batch's. Apply train-shard first: train-pipeline's stages
    are not steps train-shard can partition. Steps accumulating gradients
    or using loss scaling are refused with an error that says so.

    Errors: `stages` or `microbatches` below 1, an unknown schedule,
    `virtual` above 1 without `interleaved` (or 1 with it), an interleaved
    `microbatches` that is not a multiple of `stages`, a `split` that is not
    one increasing layer index per chunk starting at 0, a step with fewer
    `train.layer`s than chunks, an interleaved step with a parameter that
    two chunks of one stage read, a function that is not a
    whole step train-autodiff derived, one that returns more than the loss,
    an op after the first layer that reads a value of a later stage, a
    module that already has a `@grid` (but for train-shard's), and a module
    already pipelined.
  }];
  let options = [
    Option<"stages", "stages", "int64_t", /*default=*/"1",
           "Pipeline stages (processes along the pipeline); 1 changes nothing">,
    Option<"microBatches", "microbatches", "int64_t", /*default=*/"0",
           "Micro-batches per optimizer step (default: stages)">,
    Option<"schedule", "schedule", "std::string", /*default=*/"\"1f1b\"",
           "The order of forward and backward passes: 1f1b, gpipe, "
           "interleaved or zb-h1">,
    Option<"virtualStages", "virtual", "int64_t", /*default=*/"1",
           "Model chunks per stage: 2 or more with schedule=interleaved, "
           "else 1">,
    ListOption<"split", "split", "int64_t",
               "The index of each stage's (interleaved: each chunk's) first "
               "train.layer (default: balanced by FLOPs)">,
    ListOption<"onlyStages", "only-stages", "int64_t",
               "Build only these stages' functions, increasing (default: "
               "all): for the memory of a few stages of a long pipeline; "
               "such a module does not run, and the stages' transfers are "
               "not checked">,
  ];
  let dependentDialects = ["::mlir::memopt::train::TrainDialect",
                           "::mlir::arith::ArithDialect",
                           "::mlir::shard::ShardDialect"];
}

#endif // MEMOPT_TRANSFORMS_PARALLELPASSES_TD
