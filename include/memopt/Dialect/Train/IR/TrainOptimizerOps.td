//===- TrainOptimizerOps.td --------------------------------*- tablegen -*-===//
//
// Optimizers, gradient accumulation, loss scaling.
// Included by TrainOps.td, which defines Train_Op and the traits used here.
//
//===----------------------------------------------------------------------===//

#ifndef MEMOPT_DIALECT_TRAIN_IR_TRAINOPTIMIZEROPS_TD
#define MEMOPT_DIALECT_TRAIN_IR_TRAINOPTIMIZEROPS_TD

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

//===----------------------------------------------------------------------===//
// 8-bit Adam (block-wise quantized states)
//===----------------------------------------------------------------------===//

/// The codes of an 8-bit state: one byte per element, an index 0..255 into a
/// dynamic map (the byte read as unsigned).
def Train_CodeTensor : StaticShapeTensorOf<[I8]>;
/// The per-block absmax of an 8-bit state.
def Train_AbsmaxTensor
    : Type<And<[StaticShapeTensorOf<[F32]>.predicate,
                CPred<"::llvm::cast<::mlir::ShapedType>($_self).getRank() == 1">]>,
           "1-d f32 tensor", "::mlir::TensorType">;

class Train_Adam8bitBase<string mnemonic> : Train_Op<mnemonic, [Train_KeepFP32,
    AttrSizedOperandSegments,
    MemoryEffects<[MemRead<Train_StateResource>, MemWrite<Train_StateResource>]>,
    DeclareOpInterfaceMethods<Train_IndexOperandsOpInterface, ["isStepCount"]>],
    [], ["isUpdatedInPlace"]> {
  let arguments = (ins Train_FloatTensor:$param, Train_FloatTensor:$grad,
                   Train_CodeTensor:$exp_avg_codes,
                   Train_AbsmaxTensor:$exp_avg_absmax,
                   Train_CodeTensor:$exp_avg_sq_codes,
                   Train_AbsmaxTensor:$exp_avg_sq_absmax,
                   Train_StepTensor:$step,
                   Optional<Train_ScaleTensor>:$grad_scale,
                   Optional<Train_FlagTensor>:$found_nonfinite,
                   Optional<Train_CounterTensor>:$skipped_steps, F64Attr:$lr,
                   DefaultValuedAttr<F64Attr, "0.9">:$beta1,
                   DefaultValuedAttr<F64Attr, "0.999">:$beta2,
                   DefaultValuedAttr<F64Attr, "1.0e-8">:$epsilon,
                   DefaultValuedAttr<F64Attr, "0.0">:$weight_decay);
  let assemblyFormat = "$param `,` $grad `exp_avg` `(` $exp_avg_codes `,` "
                       "$exp_avg_absmax `)` `exp_avg_sq` `(` "
                       "$exp_avg_sq_codes `,` $exp_avg_sq_absmax `)` "
                       "`step` `(` $step `:` type($step) `)` (`unscale` `(` "
                       "$grad_scale^ `:` type($grad_scale) `)`)? (`skip_if` "
                       "`(` $found_nonfinite^ `:` type($found_nonfinite) "
                       "`)`)? (`skipped` `(` $skipped_steps^ `:` "
                       "type($skipped_steps) `)`)? attr-dict `:` type($param) "
                       "`,` type($grad) `,` type($exp_avg_codes) `,` "
                       "type($exp_avg_absmax) `,` type($exp_avg_sq_codes) `,` "
                       "type($exp_avg_sq_absmax)";
  let hasVerifier = 1;
}

def Train_Adam8bitOp : Train_Adam8bitBase<"adam8bit"> {
  let summary = "Adam update with 8-bit block-wise quantized moments, in place";
  let description = [{
    bitsandbytes' 8-bit Adam (Dettmers et al., "8-bit Optimizers via
    Block-wise Quantization"): the moments are stored as one byte per
    element, a code into a dynamic map, and one f32 absmax per block of
    2048 elements. With `n` the parameter's elements, flattened in
    row-major order, block `b` holds elements `[2048 b, min(n, 2048 (b+1)))`
    (the last block may be partial) and each state has `ceil(n / 2048)`
    absmax values. `exp_avg` is coded into bitsandbytes'
    `create_dynamic_map(signed=True)` `S` and `exp_avg_sq` into
    `create_dynamic_map(signed=False)` `U`, 256 ascending f32 values each
    (docs/finetune.md). A code is an `i8` read as an unsigned byte, the
    index into its map. The states take `2n + 8 ceil(n / 2048)` bytes, a
    quarter of 32-bit Adam's `8n` and a little more.

    For each block `b`, in f32:

    1. Dequantize: `m = S[cm] * am[b]`, `v = U[cv] * av[b]` (`cm`, `cv` the
       element's codes, `am`, `av` the absmax vectors).
    2. Update exactly as `train.adam` does (its PyTorch arithmetic, bias
       corrections from `step` included, and `unscale`, `skip_if` and
       `skipped` alike): the new `m` and `v`, and the parameter, computed in
       f32 and rounded to the parameter's type.
    3. Requantize: the new `am[b]` is the largest `|m|` of the block, `av[b]`
       the largest `|v|` (0 for a block of zeros). Each element's code is the
       index of the map value nearest to `x = m / am[b]` (`v / av[b]`;
       `x = 0` when the absmax is 0): with `i` the largest index such that
       `map[i] <= x` (0 when `x < map[0]`) and `j = min(i + 1, 255)`, the
       code is `i` when `x - map[i] <= map[j] - x` (both f32 differences),
       else `j`; a tie goes to the lower value.

    When `skip_if` is true nothing changes, codes and absmax values
    included (nothing is requantized). Nothing outlives the block but the
    codes, the absmax values and the parameter: no f32 moment is stored. The lowering computes a block's new
    `m` and `v` twice, once for its absmax values and once to update and
    requantize, with the same f32 operations. `param` must come from a
    trainable `train.param`, the four states from distinct `train.opt_state`s
    (conventionally `"<param>.exp_avg.codes"`, `"<param>.exp_avg.absmax"`,
    `"<param>.exp_avg_sq.codes"`, `"<param>.exp_avg_sq.absmax"`); all five
    are updated in place. Zero-filled states (codes 0, absmax 0) are the
    zero moments. train-autodiff's `optimizer=adam8bit` gives parameters of
    at least 4096 elements (bitsandbytes' `min_8bit_size`) this op and the
    others `train.adam`. 26 FLOPs per element.

    Example:
    ```mlir
    train.adam8bit %w, %dw exp_avg(%mc, %ma) exp_avg_sq(%vc, %va) step(%t : tensor<i64>) {lr = 1.000000e-03 : f64}
        : tensor<64x100xf32>, tensor<64x100xf32>, tensor<64x100xi8>, tensor<4xf32>, tensor<64x100xi8>, tensor<4xf32>
    ```
  }];
}

def Train_AdamW8bitOp : Train_Adam8bitBase<"adamw8bit"> {
  let summary = "AdamW update with 8-bit block-wise quantized moments, in place";
  let description = [{
    bitsandbytes' 8-bit AdamW: `train.adam8bit` (states, maps, blocks and
    requantization alike) with `train.adamw`'s update: no L2 term in the
    gradient, and `param *= 1 - lr * weight_decay` before the Adam step.
    27 FLOPs per element.

    Example:
    ```mlir
    train.adamw8bit %w, %dw exp_avg(%mc, %ma) exp_avg_sq(%vc, %va) step(%t : tensor<i64>) {lr = 1.000000e-03 : f64, weight_decay = 1.000000e-02 : f64}
        : tensor<4096xf32>, tensor<4096xf32>, tensor<4096xi8>, tensor<2xf32>, tensor<4096xi8>, tensor<2xf32>
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

def Train_RefreshOp : Train_Op<"refresh", [Train_KeepFP32,
    MemoryEffects<[MemRead<Train_StateResource>, MemWrite<Train_StateResource>]>],
    [], ["isUpdatedInPlace"]> {
  let summary = "Refreshes the device's copy of a host parameter once per optimizer step";
  let description = [{
    Under gradient accumulation with the optimizer on the host
    (`train-offload`), the device computes every micro-batch with the same
    weights, which change only at the step's last micro-batch. This op keeps
    the device's copy in `copy`, a device `train.opt_state` (conventionally
    `"<param>.device_copy"`, 2 bytes a parameter in 16-bit precision) that
    lives across micro-batches, and refreshes it from the host's `master`
    (the `train.param` in host memory) on micro-batch 0 only: `copy =
    convert(master)`, cast to the copy's element type and moved over the
    host link, when `micro_batch` is 0; nothing on the other micro-batches.
    The weights then cross the link once per optimizer step, as
    ZeRO-Offload's 16-bit parameters do, instead of once per micro-batch.

    `copy` is updated in place (no new bytes); `master` must be a host value
    (`train.space = "host"`) of the copy's shape; `micro_batch` must be the
    `train.opt_state "grad_accumulation.micro_batch"`. 1 FLOP per element
    (the conversion).

    Example:
    ```mlir
    %i = train.opt_state "grad_accumulation.micro_batch" {train.space = "host"} : tensor<i64>
    %w = train.param "w" {train.space = "host"} : tensor<1024x1024xf32>
    %copy = train.opt_state "w.device_copy" : tensor<1024x1024xbf16>
    train.refresh %copy, %w micro_batch(%i : tensor<i64>)
        : tensor<1024x1024xbf16>, tensor<1024x1024xf32>
    ```
  }];
  let arguments = (ins Train_FloatTensor:$copy, Train_FloatTensor:$master,
                   Train_CounterTensor:$micro_batch);
  let assemblyFormat =
      "$copy `,` $master `micro_batch` `(` $micro_batch `:` "
      "type($micro_batch) `)` attr-dict `:` type($copy) `,` type($master)";
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

#endif // MEMOPT_DIALECT_TRAIN_IR_TRAINOPTIMIZEROPS_TD
