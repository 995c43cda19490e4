//===- Passes.td - memopt transformation passes ------------*- tablegen -*-===//

#ifndef MEMOPT_TRANSFORMS_PASSES_TD
#define MEMOPT_TRANSFORMS_PASSES_TD

include "mlir/Pass/PassBase.td"

def TrainVerifyStepPass : Pass<"train-verify-step", "::mlir::func::FuncOp"> {
  let summary = "Checks that a function is a well-formed training step";
  let description = [{
    The op verifiers check each op alone; this pass checks the rules that
    span a whole step, so that later passes can rely on them:

    * the body is a single block (program order is the schedule) of train
      ops, not lowered IR;
    * the first result is the loss, a 0-d float tensor;
    * no two dropouts share an `id` (they would draw the same mask), except
      a `train.recomputed` clone and its original;
    * every persistent state name is read by one `train.param` or
      `train.opt_state` op with one type (two reads of one name with
      different types would describe two different buffers);
    * a parameter or optimizer state is updated by at most one optimizer op;
    * the optimizer states an optimizer updates belong to the parameter it
      updates, by name: `"<param>.<state>"`, e.g. `"fc1.weight.exp_avg"`
      (this catches a state passed to the wrong parameter's update);
    * the gradient-accumulation ops `train.micro_batch_skip` and
      `train.micro_batch_advance` agree on `micro_batches`, and a step
      that reads the micro-batch index (those and `train.accumulate`)
      advances it, after every read;
    * device ops read device values only (a host value through
      `train.to_device`), and every read of a state name is in one memory
      (`train.space`, train-offload).

    It changes nothing and fails with a diagnostic at the offending op.

    Example:
    ```
    mem-opt --train-verify-step examples/gpt2_step.mlir
    ```
  }];
  let dependentDialects = ["::mlir::memopt::train::TrainDialect"];
}

def TrainFreezePass : Pass<"train-freeze", "::mlir::func::FuncOp"> {
  let summary = "Freezes the parameters whose names match glob patterns";
  let description = [{
    Sets `trainable = false` on every `train.param` whose name matches one
    of `params` (glob patterns: `*`, `?`, `[...]`, as a shell matches file
    names; `wte.*`, `h.[0-5].*`), PyTorch's `requires_grad_(False)`. A
    frozen parameter gets no gradient and no optimizer state, and nothing is
    differentiated before the first trainable one. On a whole step the pass
    re-derives the backward pass (as `train-precision` does): the step must
    be what `train-autodiff` derived. A pattern that matches no parameter
    is an error (a misspelt name would otherwise train everything).

    Example:
    ```
    mem-gen gpt2 | mem-opt --train-freeze='params=wte.*,wpe.*,h.0.*' --train-autodiff
    ```
  }];
  let options = [
    ListOption<"params", "params", "std::string",
               "Glob patterns of the parameter names to freeze">,
  ];
}

def TrainLoraPass : Pass<"train-lora", "::mlir::func::FuncOp"> {
  let summary = "Adds LoRA adapters to the matched linear layers and freezes "
                "the rest";
  let description = [{
    PEFT's LoRA (Hu et al.): every `train.matmul` whose right operand is a
    2-D float parameter `<module>.weight`, where `<module>` is one of
    `targets` or ends with `.` followed by one (PEFT's `target_modules`),
    computes `W x + (alpha/rank) * B(A(dropout(x)))` instead of `W x`. `A`
    (`<module>.lora_A.weight`, rank x in) and `B` (`<module>.lora_B.weight`,
    out x rank) are new trainable parameters, stored as PyTorch's
    `nn.Linear` weights and read with `transpose_rhs`; the adapter's output
    is added after the layer's bias when a `train.bias_add` is the matmul's
    only user. Every other parameter is frozen (`trainable = false`), as
    PEFT freezes the base model. mem-run initialises `A` Kaiming-uniform's
    range (amplitude `1/sqrt(in)`) and `B` to zero, so the first step's
    loss is the base model's.

    Apply it to the fp32 forward (or to the step `train-autodiff` derived,
    whose backward pass it derives again), before `train-precision` (which
    then stores the frozen weights in the low type, without a master copy)
    and `train-shard`. A target that matches no layer, a weight read by
    more than one matmul (a tied embedding), or a module that already has
    an adapter is an error.

    Example:
    ```
    mem-gen llama --preset llama-2-7b | mem-opt --train-lora='rank=16 alpha=32 targets=q_proj,v_proj' --train-autodiff
    ```
  }];
  let options = [
    Option<"rank", "rank", "int64_t", /*default=*/"8", "The adapters' rank r">,
    Option<"alpha", "alpha", "double", /*default=*/"8.0",
           "The scale's numerator: the adapter's output is multiplied by "
           "alpha / rank (PEFT's lora_alpha, default 8)">,
    Option<"dropout", "dropout", "double", /*default=*/"0.0",
           "Dropout on the adapter's input (PEFT's lora_dropout); 0 adds no "
           "dropout op">,
    ListOption<"targets", "targets", "std::string",
               "Module names whose linear layers get adapters, matched as "
               "suffixes of the weight's module path (q_proj matches "
               "layers.0.self_attn.q_proj)">,
  ];
}

def TrainQuantizeFrozenPass
    : Pass<"train-quantize-frozen", "::mlir::func::FuncOp"> {
  let summary = "Stores the frozen linear weights quantized (QLoRA's NF4, or "
                "int8)";
  let description = [{
    QLoRA's storage of the frozen base model (Dettmers et al., 2023): every
    frozen (`trainable = false`) 2-D float parameter whose every read is
    the right operand of a `train.matmul` (a linear layer's weight) is
    replaced by quantized storage, frozen `train.param`s named after it,
    read through a dequantize op where the weight was read. Embeddings,
    norms, biases, trainable parameters and a weight read by anything else
    (an embedding tied to the LM head) are left as they are.

    * `format=nf4` (default): `train.dequantize_nf4`: 4-bit NormalFloat
      codes, two per byte (`<w>.nf4.codes`), one absmax per `block`
      elements (a power of two, default 64; a last partial block is
      allowed). With `double-quant=true` (default) the absmaxes are
      quantized again, to 8-bit codes (`<w>.nf4.absmax`, i8) with one f32
      scale per 256 (`<w>.nf4.absmax.scale`) and their f32 mean
      (`<w>.nf4.absmax.offset`); else they are f32 (`<w>.nf4.absmax`).
      About 4.127 bits per weight with double quantization, 4.5 without.
    * `format=int8`: `train.dequantize_int8`: one i8 code per element
      (`<w>.int8.codes`) and one f32 absmax per output feature
      (`<w>.int8.scale`), LLM.int8's row-wise absmax.

    The dequantized weight is a temporary in the compute type (f32, or the
    low type under train-precision's mixed modes): train-autodiff
    dequantizes again before the backward pass rather than keeping it.
    mem-run fills the storage with the quantization of the weight's
    initial values (docs/execution.md, docs/finetune.md).

    Apply after train-lora or train-freeze (a weight must be frozen), to
    the forward + loss function or the step train-autodiff derived (whose
    backward pass it derives again), before train-shard. Before or after
    train-precision: both orders give the same program, except under fp8,
    which the pass refuses (its linear layers are fp8 matmuls already;
    quantized first, they compute in bf16). A function with no such weight,
    or one already quantized, is an error.

    Example:
    ```
    mem-gen gpt2 --lora rank=16 | mem-opt --train-quantize-frozen='format=nf4 block=64' --train-autodiff
    ```
  }];
  let options = [
    Option<"format", "format", "::mlir::memopt::train::WeightFormat",
           /*default=*/"::mlir::memopt::train::WeightFormat::NF4",
           "nf4 or int8",
           [{::llvm::cl::values(
             clEnumValN(::mlir::memopt::train::WeightFormat::NF4, "nf4",
                        "QLoRA's 4-bit NormalFloat, block-wise absmax"),
             clEnumValN(::mlir::memopt::train::WeightFormat::Int8, "int8",
                        "int8 codes, one absmax per output feature"))}]>,
    Option<"block", "block", "int64_t", /*default=*/"64",
           "nf4: elements per absmax block, a power of two from 2 to 65536">,
    Option<"doubleQuant", "double-quant", "bool", /*default=*/"true",
           "nf4: quantize the block absmaxes to 8 bits (QLoRA's double "
           "quantization)">,
    Option<"keep", "keep", "std::string", /*default=*/"\"lm_head\"",
           "Comma-separated module names whose weights stay unquantized, "
           "matched as suffixes of the weight's module path (default "
           "lm_head: bitsandbytes and QLoRA keep the output layer in 16 "
           "bits; keep= quantizes every frozen linear layer)">,
  ];
}

def TrainPrecisionPass : Pass<"train-precision", "::mlir::func::FuncOp"> {
  let summary = "Lowers an fp32 step to mixed precision (bf16, fp16 or fp8)";
  let description = [{
    Rewrites an fp32 forward + loss function, or a whole training step, to
    the mixed precision people train in. The op classes decide, not a list
    in the pass:

    * `LowPrecisionSafe` ops (matmul, attention, convolution, elementwise
      activations, dropout, views) compute in the low type (bf16 or f16);
    * `KeepFP32` ops (normalizations, softmax, losses, reductions, the
      optimizer) compute in f32;
    * `PromoteToWidest` ops (add, sub, mul, bias_add) compute in the widest
      of their operands' types, a parameter counting as its low copy.

    Operands are converted with `train.cast`, once per value and type, just
    before the first op that needs it. In the mixed modes the parameters stay
    f32 (the master weights): every parameter gets one low-precision copy per
    step, which all compute reads (ops pinned with `keep-fp32` read the
    master). `bf16-pure` makes the parameters themselves bf16, and with them
    their gradients and optimizer states. A frozen parameter
    (`trainable = false`) is stored in the low type in every mode: it is
    never updated, so it needs no master.

    `fp8` is `bf16-mixed` with every matmul that reads a parameter (a linear
    layer) in fp8, Transformer Engine's HYBRID format: its operands are
    quantized to E4M3 (`train.quantize`, the weight from its f32 master),
    multiplied by `train.scaled_matmul` into bf16, and its output gradient
    is quantized to E5M2 in the backward pass. Each quantized tensor has a
    persistent amax history (`amax-history` steps, a `train.opt_state`)
    whose largest value sets the next step's scale (delayed scaling,
    `train.fp8_scale`); `train-autodiff` records each step's amaxes after
    the optimizer updates. Ops named by `exclude` stay bf16.

    The function gets `train.precision`, which `train-autodiff` reads: the
    gradient each optimizer receives is f32 (`grads=fp32`: Megatron's main
    gradients) or in the low type (`grads=bf16|fp16`), and under loss
    scaling the loss gradient is seeded with the scale, the gradients are
    checked for inf/NaN, and the update is skipped when one is found
    (PyTorch's GradScaler).

    On a whole step the pass re-derives the backward pass: it keeps the
    forward + loss, lowers it, and runs `train-autodiff` again with the
    step's optimizer settings, so a step lowered after autodiff is the very
    program autodiff derives from a forward pass lowered before it. The step
    must be what `train-autodiff` derived (apply `train-precision` before
    passes that change the step, such as `train-lifetimes` or `train-remat`).

    Example:
    ```
    mem-gen gpt2 --train | mem-opt --train-precision=mode=bf16-mixed
    mem-opt fwd.mlir --train-precision='mode=fp16-mixed loss-scale=dynamic' --train-autodiff
    ```
  }];
  let options = [
    Option<"mode", "mode", "::mlir::memopt::train::PrecisionMode",
           /*default=*/"::mlir::memopt::train::PrecisionMode::BF16Mixed",
           "fp32, bf16-mixed, fp16-mixed, bf16-pure or fp8",
           [{::llvm::cl::values(
             clEnumValN(::mlir::memopt::train::PrecisionMode::FP32, "fp32",
                        "no change"),
             clEnumValN(::mlir::memopt::train::PrecisionMode::BF16Mixed,
                        "bf16-mixed",
                        "bf16 compute, fp32 master weights"),
             clEnumValN(::mlir::memopt::train::PrecisionMode::FP16Mixed,
                        "fp16-mixed",
                        "fp16 compute, fp32 master weights, loss scaling"),
             clEnumValN(::mlir::memopt::train::PrecisionMode::BF16Pure,
                        "bf16-pure",
                        "bf16 parameters, gradients and optimizer states"),
             clEnumValN(::mlir::memopt::train::PrecisionMode::FP8, "fp8",
                        "bf16-mixed with fp8 linear layers (E4M3 forward, "
                        "E5M2 gradients, delayed scaling)"))}]>,
    Option<"grads", "grads", "std::string", /*default=*/"\"\"",
           "The optimizer's gradient type: fp32, or the mode's low type "
           "(bf16 / fp16). Default: fp32 for bf16-mixed, fp16 for "
           "fp16-mixed">,
    Option<"lossScale", "loss-scale", "std::string", /*default=*/"\"\"",
           "fp16-mixed only: dynamic (the default), a static scale such as "
           "1024, or none">,
    Option<"initialScale", "initial-scale", "double", /*default=*/"65536.0",
           "Dynamic loss scaling: the first scale (GradScaler's 2^16)">,
    Option<"growthInterval", "growth-interval", "int64_t",
           /*default=*/"2000",
           "Dynamic loss scaling: finite steps before the scale doubles">,
    ListOption<"keepFp32", "keep-fp32", "std::string",
               "Ops to keep in f32, reading the f32 master weights: an op's "
               "location name, a prefix of it ending before a '.', or a "
               "train.layer name (e.g. lm_head,h.0)">,
    ListOption<"exclude", "exclude", "std::string",
               "Ops kept out of the mode's narrowest type: bf16 rather than "
               "fp8 under mode=fp8, f32 (as keep-fp32) otherwise">,
    Option<"amaxHistory", "amax-history", "int64_t", /*default=*/"16",
           "fp8: the steps of amax each quantized tensor's history keeps">,
    Option<"margin", "margin", "int64_t", /*default=*/"0",
           "fp8: powers of two of headroom below the format's largest "
           "value">,
  ];
  let dependentDialects = ["::mlir::memopt::train::TrainDialect",
                           "::mlir::arith::ArithDialect"];
}

include "memopt/Transforms/ParallelPasses.td"

def TrainAutodiffPass : Pass<"train-autodiff", "::mlir::func::FuncOp"> {
  let summary = "Appends the backward pass and the optimizer update to a step";
  let description = [{
    Turns a function that computes a loss from parameters and inputs into a
    whole training step. The loss is the function's first returned value and
    must be a 0-d float tensor. The pass

    1. seeds the loss gradient with 1 (`arith.constant dense<1.0>`);
    2. walks the ops that lie between a `train.param` and the loss in reverse
       program order and asks each one's `DifferentiableOpInterface` for the
       gradients of its operands, summing (`train.add`) the gradients of
       values with several uses;
    3. sums the gradients of all reads of one parameter name (tied weights)
       and appends one optimizer update per parameter, in order of first
       appearance: `train.adam` / `train.adamw` with states
       `"<param>.exp_avg"` / `"<param>.exp_avg_sq"` and the step counter as a
       new `tensor<i64>` function argument marked `train.step` (reused if the
       function has one), or `train.sgd` (with a `"<param>.momentum_buffer"`
       when momentum > 0). `optimizer=adam8bit` / `adamw8bit` give every
       parameter of at least 4096 elements (bitsandbytes' `min_8bit_size`)
       `train.adam8bit` / `train.adamw8bit` with 8-bit block-wise states
       `"<param>.exp_avg.codes"` / `".absmax"` and
       `"<param>.exp_avg_sq.codes"` / `".absmax"`, and the smaller ones
       32-bit `train.adam` / `train.adamw`. With `optimizer=none` it
       instead appends the parameter gradients to the returned values, in
       the same order, each result marked `{train.grad_of = "<param>"}`
       (mem-run's `--check-gradients` compares them with finite
       differences).

    Parameters the loss does not depend on get no update (as PyTorch skips
    parameters without a gradient). Gradient ops carry the location
    `"<forward name>.grad"` when the forward op has a name location.

    Example:
    ```
    mem-opt --train-autodiff='optimizer=adamw lr=3e-4 weight-decay=0.1' model.mlir
    ```
  }];
  let options = [
    Option<"optimizer", "optimizer", "::mlir::memopt::AutodiffOptimizer",
           /*default=*/"::mlir::memopt::AutodiffOptimizer::Adam",
           "adam, adamw, adam8bit, adamw8bit, sgd, or none (return the "
           "parameter gradients)",
           [{::llvm::cl::values(
             clEnumValN(::mlir::memopt::AutodiffOptimizer::Adam, "adam",
                        "train.adam with exp_avg and exp_avg_sq states"),
             clEnumValN(::mlir::memopt::AutodiffOptimizer::AdamW, "adamw",
                        "train.adamw (decoupled weight decay)"),
             clEnumValN(::mlir::memopt::AutodiffOptimizer::Adam8bit,
                        "adam8bit",
                        "train.adam8bit (8-bit block-wise states) for "
                        "parameters of 4096 elements or more, train.adam "
                        "for smaller ones"),
             clEnumValN(::mlir::memopt::AutodiffOptimizer::AdamW8bit,
                        "adamw8bit",
                        "train.adamw8bit for parameters of 4096 elements or "
                        "more, train.adamw for smaller ones"),
             clEnumValN(::mlir::memopt::AutodiffOptimizer::Sgd, "sgd",
                        "train.sgd, with a momentum buffer when momentum > 0"),
             clEnumValN(::mlir::memopt::AutodiffOptimizer::None, "none",
                        "return the parameter gradients instead"))}]>,
    Option<"lr", "lr", "double", /*default=*/"1.0e-3", "Learning rate">,
    Option<"beta1", "beta1", "double", /*default=*/"0.9",
           "Adam's first-moment decay">,
    Option<"beta2", "beta2", "double", /*default=*/"0.999",
           "Adam's second-moment decay">,
    Option<"epsilon", "epsilon", "double", /*default=*/"1.0e-8",
           "Adam's denominator epsilon">,
    Option<"weightDecay", "weight-decay", "double", /*default=*/"0.0",
           "Weight decay (L2 for adam and sgd, decoupled for adamw)">,
    Option<"momentum", "momentum", "double", /*default=*/"0.0",
           "SGD momentum">,
  ];
  let dependentDialects = ["::mlir::memopt::train::TrainDialect",
                           "::mlir::arith::ArithDialect"];
}

def TrainAccumulateGradientsPass
    : Pass<"train-accumulate-gradients", "::mlir::func::FuncOp"> {
  let summary = "Makes a step one micro-batch of gradient accumulation";
  let description = [{
    Rewrites the step of one micro-batch into one of `micro-batches`
    micro-batches of an optimizer step with gradient accumulation: called
    `micro-batches` times, on successive micro-batches of the batch, the
    step updates the parameters once, from the mean of the micro-batches'
    gradients, as one step on the whole batch would (for a loss that is a
    mean over the batch; PyTorch's `loss / accumulation_steps` recipe).

    * A persistent 0-d i64 state `train.opt_state
      "grad_accumulation.micro_batch"` holds the index of the micro-batch
      in its optimizer step; `train.micro_batch_advance`, last in the step,
      moves it on modulo `micro-batches`.
    * Each optimizer update (`train.sgd`, `train.adam`, `train.adamw`)
      first adds its gradient times `1 / micro-batches` into a buffer of
      the parameter's type (fp32 master weights' under mixed precision)
      that lives across the micro-batches (a `train.opt_state
      "<param>.grad_accumulator"`, written by `train.accumulate`, which
      restarts it on micro-batch 0), and then updates from that buffer.
    * Under loss scaling (the updates `unscale(%s)`), the factor goes into
      the backward's seed instead, as `loss / accumulation_steps` puts it
      into the loss: the seed becomes a copy of `%s` (a `train.loss_scale`
      or a constant) times `1 / micro-batches`, so that the 16-bit
      gradients have the magnitudes of the whole batch's (they would
      overflow sooner otherwise), while the updates still unscale by `%s`.
    * The update applies only on the last micro-batch: its `skip_if` is a
      `train.micro_batch_skip` flag. Adam's `step` operand is the number
      of the optimizer step, the same for its micro-batches.
    * Under dynamic loss scaling (`skip_if(%found)`, train-precision's
      fp16-mixed), the update is skipped on the last micro-batch when any
      accumulated gradient is inf or NaN: `train.any_nonfinite` then checks
      the buffers after the accumulation (GradScaler checks the summed
      `.grad`), the flag becomes `train.micro_batch_skip ... or(%found)`,
      and `train.loss_scale_update` gets `skip_if` so that the scale
      changes once per optimizer step (it stays the same across the
      micro-batches of a step, so the buffer sums gradients of one scale).

    The buffers cost what Megatron-LM's fp32 `main_grad` costs under mixed
    precision, and the memory model counts them as persistent state. The
    step's peak is the peak of every micro-batch: all run the same ops.
    mem-autoplan runs the pass (memopt-pipeline's `micro-batches`) on its
    candidates of more than one micro-batch per step, after train-shard,
    so the buffer holds the reduced gradient (docs/autoplan.md). The
    predicated updates still read and write their states on every
    micro-batch (the select keeps the old values).

    Errors: a `micro-batches` below 1, a step without optimizer updates
    (train-autodiff with an optimizer appends them), an update of a value
    that is not a `train.param`, a step that already accumulates, and, under
    loss scaling, updates that unscale by different values or by one that
    is neither a `train.loss_scale` nor a constant, and a flag that is not
    one `train.any_nonfinite` of exactly the updates' gradients.

    Example (`micro-batches=4`):
    ```mlir
    // before: %w = train.param "w" : tensor<16x4xf32>
    train.sgd %w, %dw {lr = 1.000000e-02 : f64} : tensor<16x4xf32>, tensor<16x4xf32>
    // after
    %i = train.opt_state "grad_accumulation.micro_batch" : tensor<i64>
    %skip = train.micro_batch_skip %i {micro_batches = 4 : i64} : tensor<i64> -> tensor<i1>
    %acc = train.opt_state "w.grad_accumulator" : tensor<16x4xf32>
    train.accumulate %acc, %dw micro_batch(%i : tensor<i64>) {scale = 2.500000e-01 : f64}
        : tensor<16x4xf32>, tensor<16x4xf32>
    train.sgd %w, %acc skip_if(%skip : tensor<i1>) {lr = 1.000000e-02 : f64} : tensor<16x4xf32>, tensor<16x4xf32>
    ...
    train.micro_batch_advance %i {micro_batches = 4 : i64} : tensor<i64>
    return ...
    ```
  }];
  let options = [
    Option<"microBatches", "micro-batches", "int64_t", /*default=*/"0",
           "Micro-batches per optimizer step (required, >= 1)">,
  ];
  let dependentDialects = ["::mlir::memopt::train::TrainDialect",
                           "::mlir::arith::ArithDialect"];
}

def TrainOffloadPass : Pass<"train-offload", "::mlir::func::FuncOp"> {
  let summary = "Moves the optimizer, its states and the fp32 master weights "
                "to host memory (ZeRO-Offload)";
  let description = [{
    With `optimizer=host`, every optimizer update (`train.sgd`, `train.adam`,
    `train.adamw`, the 8-bit Adams) runs on the host, as ZeRO-Offload runs
    it on the CPU: the update and the parameters and optimizer states it
    updates in place get `train.space = "host"`, so that they live in host
    memory, and the device keeps copies:

    * each gradient is copied to the host (`train.to_host`) right after the
      op that completes it, and the update reads the copy; so is every other
      device value an update reads (the step number, a loss scale);
    * each parameter's device reads read a `train.to_device` copy made
      right after the parameter's read; a `train.cast` of the parameter to
      a narrower type (train-precision's 16-bit weights) runs on the host
      first, so that the 16-bit copy crosses the link. The copy is made
      again every step, after the previous step's update: the next step's
      first use sees the updated weights.

    With `params=host` as well (ZeRO-Infinity's parameter offload), the
    weights the device computes with live on the host between uses: each
    is copied to the device right before its first forward reader and
    again right before its first backward reader, so the device holds a
    layer's weights while that layer runs instead of every weight for the
    whole step (liveness frees each copy after its last reader).

    Liveness and the memory report then count two memories: the device's
    (the top-level numbers) and the host's. With train-shard's ZeRO, each
    process offloads its own part. Apply after train-autodiff (with an
    optimizer), train-precision and train-shard; `optimizer=device` (the
    default) changes nothing. Under gradient accumulation
    (`train-accumulate-gradients` first) the accumulations, their fp32
    buffers and the micro-batch counter's ops move to the host with the
    updates: each micro-batch's gradient is copied there as it completes
    and summed there. The device then keeps its copies of the weights across
    the micro-batches of a step: each is a device `train.opt_state
    "<param>.device_copy"` that `train.refresh` fills from the host's master
    on micro-batch 0, so the weights cross the link and are cast once a
    step (ZeRO-Offload's 16-bit parameters on the device). `params=micro-batch`
    instead copies them every micro-batch, each freed after its last reader:
    less device memory where some weights are dead at the peak, more link
    and host time. Refused: `params=host` or `params=micro-batch` without
    `optimizer=host`, and `grads=host` without the optimizer (not built
    yet).

    Example:
    ```
    mem-opt step.mlir --train-offload='optimizer=host' --train-memory-report
    ```
  }];
  let options = [
    Option<"optimizer", "optimizer", "std::string", /*default=*/"\"device\"",
           "Where the optimizer updates, their states and the parameters "
           "they update live: device or host">,
    Option<"params", "params", "std::string", /*default=*/"\"device\"",
           "Where the weights the device computes with live between uses: "
           "device (copied once a step, kept across its micro-batches), "
           "micro-batch (copied every micro-batch) or host (copied before "
           "the forward and the backward readers); the last two need "
           "optimizer=host">,
    Option<"grads", "grads", "std::string", /*default=*/"\"device\"",
           "Where gradients live (host: implied by optimizer=host)">,
  ];
  let dependentDialects = ["::mlir::memopt::train::TrainDialect"];
}

def TrainLifetimesPass : Pass<"train-lifetimes", "::mlir::func::FuncOp"> {
  let summary = "Makes tensor lifetimes explicit with train.free";
  let description = [{
    Inserts a `train.free` right after the last use of every buffer the step
    allocates (TensorLiveness: the last use of the value or of any view of
    it), so that each lifetime is visible in the IR and later passes (and the
    memory report) see exactly when memory is released. Parameters and
    optimizer states (persistent), function arguments (owned by the caller),
    and returned buffers are left alone. A `train.free` already in the
    step stays if it directly follows the buffer's last use (behind other
    frees at most); one written later is moved up behind that use, since
    the memory between holds nothing anyone reads (and the CPU lowering
    frees at the last use anyway). Frees after one op are ordered by buffer
    definition. A view (reshape, transpose, slice) that nothing reads is
    dead code: it keeps nothing alive (the lowering erases it), and the pass
    erases it so that a free may come before it. Running it twice changes
    nothing.

    Example:
    ```
    mem-opt --train-autodiff --train-lifetimes model.mlir
    ```
  }];
  let dependentDialects = ["::mlir::memopt::train::TrainDialect"];
}

def TrainPlanMemoryPass : Pass<"train-plan-memory", "::mlir::func::FuncOp"> {
  let summary = "Assigns every buffer of a training step a static arena offset";
  let description = [{
    Plans one arena for the whole step from the liveness analysis
    (docs/architecture.md): parameters and optimizer states occupy a persistent
    region at offset 0 in definition order; every other buffer (inputs,
    activations, gradients, temporaries) and every op's workspace gets an
    offset above it such that no two buffers live at the same time overlap.
    The planner (docs/mem-plan.md) tries several greedy orders with best-fit
    placement and improves the best under a deterministic limit of work
    units, `search-budget` (bytes are never a search budget here);
    `algorithm=best-fit` runs only the greedy-by-size baseline.

    Writes its decisions as attributes (verified by the train dialect):
    `train.offset = array<i64: ...>` on every op that defines buffers (one
    entry per result, -1 for a view or a non-tensor), `train.offset` on each
    tensor argument, `train.workspace_offset` on ops with a workspace, and on
    the function `train.arena_bytes`, `train.load_bytes` (the lower bound:
    LOAD of the aligned sizes), `train.persistent_bytes` and
    `train.plan_alignment`. Planning again replaces an earlier plan.
    `convert-train-to-linalg` then places every planned tensor at its offset
    in one arena, the results of a partitioned step's collectives included
    (their lowering receives into the arena).

    Example:
    ```
    mem-opt --train-lifetimes --train-plan-memory=alignment=64 step.mlir
    ```
  }];
  let options = [
    Option<"alignment", "alignment", "int64_t", /*default=*/"256",
           "Every offset is a multiple of this many bytes (a power of two); "
           "sizes are rounded up to it">,
    Option<"algorithm", "algorithm", "std::string", /*default=*/"\"auto\"",
           "auto (greedy portfolio, then search) or best-fit (greedy by size "
           "only)">,
    Option<"searchBudget", "search-budget", "int64_t",
           /*default=*/"100000000",
           "Work units (not bytes) of the planner's improvement phase "
           "(deterministic: the same limit gives the same plan on any "
           "machine); 0 keeps the best greedy plan">,
  ];
  let dependentDialects = ["::mlir::memopt::train::TrainDialect"];
}

def TrainVerifyPlanPass : Pass<"train-verify-plan", "::mlir::func::FuncOp"> {
  let summary = "Checks a step's arena plan: no two live buffers overlap";
  let description = [{
    Re-derives every buffer's lifetime from the IR (the liveness analysis
    train-plan-memory uses) and checks the `train.offset` attributes against
    it: every buffer and workspace has an offset, a multiple of
    `train.plan_alignment`, within `train.arena_bytes`, and no two buffers
    live at the same program point overlap in memory. A violation names both
    buffers. A function without a plan is left alone. Passes that change a
    planned step must plan it again; this pass catches those that do not.
  }];
}

def TrainSchedulePass : Pass<"train-schedule", "::mlir::func::FuncOp"> {
  let summary = "Reorders a training step's ops to lower its peak, results unchanged";
  let description = [{
    The program order of a step is its schedule. This pass moves ops to
    another order that computes the same values and lowers LOAD, the peak of
    the liveness analysis. An order is allowed when it keeps every
    dependence:
    * each op after the ops that define its operands;
    * an op that updates a buffer in place (an optimizer, a loss-scale
      update) or frees it (`train.free`) in its place relative to every
      other op that touches the buffer, through any view;
    * ops outside the `train`, `arith` and `tensor` dialects (collectives,
      calls) in their relative order, and the terminator last.

    Every rewrite only moves ops, so results are bitwise unchanged.

    Heuristics (docs/schedule.md), each measured exactly:
    * `program`: the order as written;
    * `eager`: the program order, except that an op that releases at least
      as many bytes as it allocates runs as soon as it is ready. Each
      optimizer update then runs right after its gradient is complete and
      the backward pass has read its parameter for the last time (optimizer
      in backward), and every gradient and activation gradient dies as
      early as the dependences allow;
    * `greedy`: list scheduling that always runs the ready op of lowest net
      allocation (bytes it allocates minus bytes whose last use it is);
    * `exact`: the order of lowest LOAD, by dynamic programming over the
      down-closed sets of ops; only for steps of at most `exact-limit` ops
      (the terminator included), since the work grows as 2^ops;
    * `best` (default): all of the above that apply, keeping the lowest LOAD
      and, on ties, the first in this list, so the step never gets worse and
      is left as written when nothing is better. Before `exact`, the best
      heuristic's order is improved by sinking (`<heuristic>+sink`): an op
      that runs before the peak and whose every dependent runs after it
      moves right before its first dependent while that lowers LOAD.

    The step must not have a memory plan yet (run `train-plan-memory`
    afterwards). The decision is recorded on the function as
    `train.schedule = {heuristic, load_before, load_after}`, and a remark
    states it.

    Example:
    ```
    mem-opt --train-schedule --train-lifetimes step.mlir
    ```
  }];
  let options = [
    Option<"heuristic", "heuristic", "std::string", /*default=*/"\"best\"",
           "best, program, eager, greedy or exact (docs/schedule.md)">,
    Option<"exactLimit", "exact-limit", "unsigned", /*default=*/"16",
           "exact (and best): the most ops, terminator included, the exact "
           "search runs on; at most 22">,
  ];
  let dependentDialects = ["::mlir::memopt::train::TrainDialect"];
}

def TrainRematPass : Pass<"train-remat", "::mlir::func::FuncOp"> {
  let summary = "Recomputes forward values in the backward pass to meet a peak budget";
  let description = [{
    Chooses which forward values a training step keeps for the backward pass
    and which it recomputes, and rewrites the step: recomputed values are
    produced again by clones of their forward ops (marked
    `train.recomputed`) placed before their backward uses (a recomputed
    dropout reproduces its mask, so results are bitwise unchanged).
    Afterwards every `train.free` is placed anew (as `train-lifetimes` does)
    and a plan from `train-plan-memory` is dropped. Every candidate rewrite
    is applied to a copy of the step and measured by the liveness analysis,
    so the recorded peak is exact.

    Algorithms (docs/remat.md):
    * `none`: keep every activation;
    * `layers`: keep the inputs of each layer (per-layer checkpointing; a
      layer is the ops whose location name shares a prefix ending in a
      number, e.g. `h.3` or `model.layers.3`); ops outside layers keep
      their activations;
    * `sqrt`: Chen et al.: keep every ceil(sqrt(n))-th of the n activations
      in program order;
    * `selective`: Megatron's selective recomputation: recompute the
      attention-score block (softmax outputs and the dropout applied to
      them), keep the rest; fails on a step without attention scores;
    * `greedy`: among the kept activations live at the peak, drop the one
      of least added recompute FLOPs per byte of peak removed (measured over
      a few tries ranked by estimated FLOPs per byte, with the producers
      they need), then batches of the next ranked ones while they pay off
      about as well; repeat until the budget is met or no drop helps. Each
      keep-set is evaluated on a model of the rewritten step (its ops, the
      recomputed copies and their live ranges, on flat arrays), and the
      answer is measured on the rewritten IR once more;
    * `optimal`: Checkmate's MILP, solved with CBC within `time-limit`
      seconds in all (and `node-limit` branch-and-bound nodes per solve, a
      limit that gives the same schedule on any machine), over groups of
      ops (forward groups of whole layers, and the backward groups reading
      them): which groups to compute again before which. With `segments=0`
      (default) it solves models of 8, 16, 32, ... forward groups, down to
      single ops on small steps, each model's answer the next one's cutoff,
      while each is settled within the limits and has at most 80 groups
      (`auto` solves the first only, to answer in seconds); `segments=N`
      solves the model of at most N forward groups only.
      Optimal for the finest group model settled (a remark gives the
      status, the gap and the models solved); the chosen plan is measured exactly and re-solved
      with a lower model budget while it exceeds the budget. The MILP looks
      only for plans cheaper than `greedy`'s answer (a cutoff: branches whose
      bound reaches it are pruned), and greedy's keep-set answers when it is
      cheaper, so `optimal` is never worse than `greedy`; the remark says
      which answered and whether the MILP proved that nothing in its model
      is cheaper;
    * `chain`: the optimal checkpointing dynamic program for chains
      (revolve / rotor) over the step's layers: which layer inputs to keep
      as checkpoints and which layers to recompute, with their saved
      values, before their backward part. Optimal for its layer model (a
      remark says so); the plan is measured exactly and re-solved with less
      memory while it exceeds the budget. Fails, naming the layers, when the
      step is not a chain (a layer reads a value of a layer other than the
      one before it, as U-Net's skips do), with or without a budget;
    * `auto` (default): `none` if it meets the budget, else the candidate
      of least recompute FLOPs among the others that does (`chain` when the
      step is a chain; `optimal`'s MILP looks only for plans cheaper than
      the cheapest candidate in hand); a remark says which it chose and why.

    `budget` is a peak bound in bytes with an optional unit (`40GiB`,
    `512MiB`, `1000000`); the peak is the liveness analysis' LOAD of the
    rewritten step. Without a budget, `auto`, `optimal` and `chain` keep everything
    and the other algorithms apply as they are. When no candidate meets the
    budget the pass fails and says the smallest peak it reached and what
    dominates it (the persistent parameters and optimizer states). For the
    keep-set algorithms, smaller budgets never give larger peaks. The
    decision is recorded on the function as `train.remat_flops` (the FLOPs
    of the recomputed ops), `train.remat_peak_before` /
    `train.remat_peak_after` and `train.remat` (the algorithm, the budget
    and, for the MILP's own plan, its relative gap to the proven bound).

    With `offload=true` and a budget, an activation may also be offloaded:
    copied to host memory (`train.to_host`) after its last forward read and
    back (`train.to_device`) before its first backward read, the copy back
    started early enough that the backward ops before that read take as
    long as the copy (a prefetch, whose buffer the peak counts). On top of
    the chosen algorithm's rewrite (`auto`: greedy's), while the peak is
    over the budget the activation at the peak that lowers it most is
    offloaded (so budgets below what recomputation reaches can be met);
    then, for greedy's keep-set, recomputed activations are offloaded
    instead, largest first (while over the budget, those that lower the
    peak; within it, those that keep it within and lower the estimated
    time), and the first step runs once more. With `algorithm=optimal` the
    MILP chooses instead: a third choice per forward group (its
    offloadable activations copied out and back into the stage of their
    first backward reader), charged the copies' time the computation
    between does not hide. Offload never adds
    recomputation; pipeline stages offload each micro-batch's activations
    alike. The time is estimated from the
    device profile (`device`): each op by the roofline, the copies on the
    host link (`link`, default the profile's) overlapped with compute, an
    op waiting for the copies it reads; with offload, the candidate of
    least estimated time is chosen. The copies carry `train.offloaded` and
    `train.remat` records the link and the device.

    Example:
    ```
    mem-opt --train-remat='budget=2GiB algorithm=auto' step.mlir
    mem-opt --train-remat='budget=20GiB offload=true link=pcie5' step.mlir
    ```
  }];
  let options = [
    Option<"budget", "budget", "std::string", /*default=*/"\"\"",
           "Peak bound: bytes with an optional unit (B, KiB, MiB, GiB, TiB, "
           "KB, MB, GB, TB); empty = no bound">,
    Option<"algorithm", "algorithm", "::mlir::memopt::RematAlgorithm",
           /*default=*/"::mlir::memopt::RematAlgorithm::Auto",
           "auto, none, layers, sqrt, selective, greedy, optimal or chain "
           "(docs/remat.md)",
           [{::llvm::cl::values(
             clEnumValN(::mlir::memopt::RematAlgorithm::Auto, "auto",
                        "none if it fits, else the cheapest candidate that does"),
             clEnumValN(::mlir::memopt::RematAlgorithm::None, "none",
                        "keep every activation"),
             clEnumValN(::mlir::memopt::RematAlgorithm::Layers, "layers",
                        "keep the layer boundaries"),
             clEnumValN(::mlir::memopt::RematAlgorithm::Sqrt, "sqrt",
                        "keep every ceil(sqrt(n))-th activation"),
             clEnumValN(::mlir::memopt::RematAlgorithm::Selective, "selective",
                        "recompute the attention scores"),
             clEnumValN(::mlir::memopt::RematAlgorithm::Greedy, "greedy",
                        "drop the cheapest activations live at the peak"),
             clEnumValN(::mlir::memopt::RematAlgorithm::Optimal, "optimal",
                        "Checkmate's MILP over groups of ops"),
             clEnumValN(::mlir::memopt::RematAlgorithm::Chain, "chain",
                        "the rotor DP over a chain of layers"))}]>,
    Option<"segments", "segments", "int64_t", /*default=*/"0",
           "optimal: the most forward groups (segments of whole layers) the "
           "solver decides over; 0 = 8, refined by algorithm=optimal to 16, "
           "32, ... while each model is settled within the limits and has at "
           "most 80 groups">,
    Option<"timeLimit", "time-limit", "double", /*default=*/"30.0",
           "optimal: seconds the whole algorithm may spend (grouping, models, "
           "solves, measuring; a schedule found by then is used with its "
           "optimality gap); 0 = no wall-clock limit (needs node-limit)">,
    Option<"nodeLimit", "node-limit", "int64_t", /*default=*/"0",
           "optimal: the most branch-and-bound nodes of each solve; a work "
           "limit, so the result does not depend on the machine; 0 = none">,
    Option<"checkModel", "check-model", "bool", /*default=*/"false",
           "greedy: also rewrite and analyze the IR for every keep-set it "
           "evaluates, and fail where its model of the rewrite disagrees "
           "(a test of the model; slow on large steps)">,
    Option<"offload", "offload", "bool", /*default=*/"false",
           "also offload activations to host memory (copied out after their "
           "last forward read, back before their first backward read), "
           "where that lowers the peak or the step's time (docs/offload.md)">,
    Option<"device", "device", "std::string", /*default=*/"\"h100-sxm\"",
           "offload: the device profile whose rates and host link the cost "
           "model uses (a shipped name or a .json profile)">,
    Option<"link", "link", "std::string", /*default=*/"\"\"",
           "offload: the host link, overriding the device profile's: pcie4, "
           "pcie5, nvlink-c2c or bytes per second in one direction">,
  ];
  let dependentDialects = ["::mlir::memopt::train::TrainDialect"];
}

#endif // MEMOPT_TRANSFORMS_PASSES_TD
