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
  let summary = "Reads a named parameter";
  let description = [{
    Yields the current value of the persistent parameter `name`. Parameters
    are live for the whole step; optimizer ops update them in place. The op
    only names an existing buffer: it moves no bytes. The printer names the
    result after the parameter (`%fc1.weight`).

    `trainable = false` freezes the parameter (PyTorch's
    `requires_grad=False`): train-autodiff differentiates nothing through
    it, so it gets no gradient and no optimizer state, and no optimizer op
    may update it. Every read of one name must agree (train-autodiff checks
    this). Integer parameters are never differentiated either way.

    Example:
    ```mlir
    %w = train.param "fc1.weight" : tensor<1024x1024xf32>
    %e = train.param "wte.weight" {trainable = false} : tensor<50257x768xf32>
    ```
  }];
  let arguments = (ins StrAttr:$name,
                   DefaultValuedAttr<BoolAttr, "true">:$trainable);
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
// Memory spaces: copies between device and host memory
//===----------------------------------------------------------------------===//

class Train_SpaceCopyOp<string mnemonic> : Train_Op<mnemonic, [
    MemoryEffects<[MemWrite<Train_HostLinkResource>]>,
    Train_LowPrecisionSafe, AllTypesMatch<["input", "result"]>,
    Train_ForwardsValues]> {
  let arguments = (ins Train_AnyTensor:$input);
  let results = (outs Train_AnyTensor:$result);
  let assemblyFormat = "$input attr-dict `:` type($input)";
  let hasVerifier = 1;
}

def Train_ToHostOp : Train_SpaceCopyOp<"to_host"> {
  let summary = "Copies a device tensor into host memory";
  let description = [{
    The result is a new buffer in host memory with the input's values; the
    input is a device value. A value lives in host memory when the op that
    defines it carries `train.space = "host"` (`train-offload` marks the
    optimizer updates, their parameters and states, and what they read), or
    when it is a `train.to_host`'s result; every other value lives on the
    device. Host ops read host values only, device ops device values only:
    the copies are explicit. Liveness counts the result on the host side
    and keeps the input alive until the copy. No FLOPs; the input's bytes
    cross the host link, which the op's effect on it records: a copy is not
    recomputed (train-remat) or merged with another (CSE), and keeps its
    order among copies.

    Example:
    ```mlir
    %gh = train.to_host %g : tensor<768x768xbf16>
    ```
  }];
}

def Train_ToDeviceOp : Train_SpaceCopyOp<"to_device"> {
  let summary = "Copies a host tensor into device memory";
  let description = [{
    The result is a new buffer in device memory with the input's values; the
    input is a host value (see `train.to_host`). No FLOPs; the input's bytes
    cross the host link.

    Example (a bf16 copy of an fp32 master weight kept on the host):
    ```mlir
    %w = train.param "fc.weight" {train.space = "host"} : tensor<768x768xf32>
    %wh = train.cast %w {train.space = "host"} : tensor<768x768xf32> -> tensor<768x768xbf16>
    %wd = train.to_device %wh : tensor<768x768xbf16>
    ```
  }];
}

include "memopt/Dialect/Train/IR/TrainForwardOps.td"
include "memopt/Dialect/Train/IR/TrainGradOps.td"
include "memopt/Dialect/Train/IR/TrainOptimizerOps.td"
include "memopt/Dialect/Train/IR/TrainFP8Ops.td"
include "memopt/Dialect/Train/IR/TrainParallelOps.td"
include "memopt/Dialect/Train/IR/TrainQuantOps.td"

#endif // MEMOPT_DIALECT_TRAIN_IR_TRAINOPS_TD
