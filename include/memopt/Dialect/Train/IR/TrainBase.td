//===- TrainBase.td - train dialect definition -------------*- tablegen -*-===//
//
// The `train` dialect: one training step (forward, loss, backward, optimizer)
// as a single-block function whose program order is the schedule.
//
//===----------------------------------------------------------------------===//

#ifndef MEMOPT_DIALECT_TRAIN_IR_TRAINBASE_TD
#define MEMOPT_DIALECT_TRAIN_IR_TRAINBASE_TD

include "mlir/IR/OpBase.td"
include "mlir/IR/CommonTypeConstraints.td"
include "mlir/Interfaces/SideEffectInterfaces.td"

def Train_Dialect : Dialect {
  let name = "train";
  let cppNamespace = "::mlir::memopt::train";
  let summary = "One neural-network training step with explicit tensor lifetimes";
  let description = [{
    The `train` dialect expresses one training step of a neural network:
    reading parameters and optimizer state, the forward pass, the loss, the
    backward pass and the in-place optimizer update. A step is a
    `func.func` with a single block; **program order is the schedule**: op
    `i` runs at time `i`. Values are statically shaped builtin ranked tensors,
    so the byte size of every value is known exactly and memory analyses can
    compute the live bytes at every program point.

    Every op implements three pieces of knowledge used by later passes:

    * `CostOpInterface`: FLOPs, bytes read and written, workspace bytes;
    * `AliasingOpInterface`: which results are views of an operand and which
      operands are updated in place (neither allocates new bytes);
    * exactly one precision-class trait: `LowPrecisionSafe`, `KeepFP32` or
      `PromoteToWidest`, following PyTorch autocast's op lists.

    Gradient ops document which forward tensors they consume; that is what a
    step must keep alive ("saved for backward") between forward and backward.

    Passes record decisions in `train.`-prefixed attributes, verified here:

    * `train.offset`: on an op, `array<i64>` with one arena offset per result
      (`-1` for a result that owns no storage: a view, a non-tensor); on a
      function argument, an `i64` offset (`train-plan-memory`);
    * `train.workspace_offset`: on an op, the `i64` offset of its workspace;
    * `train.arena_bytes`, `train.load_bytes`, `train.persistent_bytes`,
      `train.plan_alignment`: on a function, the planned arena size, its
      lower bound LOAD (aligned sizes), the bytes of the persistent region at
      offset 0, and the alignment of every offset (a power of two);
    * `train.host_arena_bytes`, `train.host_load_bytes`,
      `train.host_persistent_bytes`: on a function with values in host
      memory (`train.space`), the same for the host's arena: the
      `train.offset` of a host value and the `train.workspace_offset` of a
      host op are offsets in it;
    * `train.remat_flops`, `train.remat_peak_before`,
      `train.remat_peak_after`: on a function, what `train-remat` decided
      (recomputed FLOPs, LOAD before and after);
    * `train.remat`: on a function, `{algorithm = "<name>", budget = <i64>,
      gap = <f64>}`: the algorithm whose rewrite `train-remat` applied, the
      peak budget in bytes it met (absent without a budget) and, for the
      MILP's own plan of `optimal`, the solver's relative gap to its proven
      bound (absent otherwise);
    * `train.recomputed`: a unit attribute on an op `train-remat` inserted
      to compute a forward value again (the memory report lists them);
    * `train.layer`: on an op, the non-empty name of the layer it belongs to
      (`h.3`, `model.layers.3`); `mem-gen` writes it, remat's layer grouping
      reads it before parsing the location name;
    * `train.step`: a unit attribute on the step-counter argument (a 0-d
      integer or float tensor), at most one per function;
    * `train.grad_of`: on a function result, the non-empty name of the
      `train.param` whose gradient it is (`train-autodiff` without an
      optimizer).
    * `train.precision`: on a function, what `train-precision` did:
      `{mode = "bf16-mixed", grads = "fp32"}`, with `loss_scale` (an f64
      static scale, or `"dynamic"` with `initial_scale` and
      `growth_interval`) under loss scaling.
    * `train.split`: on a `train.param`, a `train.opt_state` or a function
      argument of a step `train-shard` partitioned, how this process's
      tensor is part of the whole one: an `array<i64>` of triples
      `(dim, blocks, axis)`. Dimension `dim` of the whole tensor, viewed as
      `blocks x P x n` (P the extent of grid axis `axis`), keeps this
      process's `n`-sized block within each of the `blocks` blocks; several
      triples apply in order. A runtime fills such a tensor with the
      whole tensor's values at those positions.
    * `train.shard`: on a function `train-shard` partitioned, the grid
      (`grid`, a symbol) and the degrees: `{grid = @grid, dp = 2, tp = 2,
      zero = 0}`.
  }];
  let dependentDialects = ["::mlir::shard::ShardDialect"];
  let hasOperationAttrVerify = 1;
  let hasRegionArgAttrVerify = 1;
  let hasRegionResultAttrVerify = 1;
  let extraClassDeclaration = [{
    static constexpr ::llvm::StringLiteral kOffsetAttrName = "train.offset";
    static constexpr ::llvm::StringLiteral kWorkspaceOffsetAttrName =
        "train.workspace_offset";
    static constexpr ::llvm::StringLiteral kArenaBytesAttrName =
        "train.arena_bytes";
    static constexpr ::llvm::StringLiteral kLoadBytesAttrName =
        "train.load_bytes";
    static constexpr ::llvm::StringLiteral kPersistentBytesAttrName =
        "train.persistent_bytes";
    static constexpr ::llvm::StringLiteral kHostArenaBytesAttrName =
        "train.host_arena_bytes";
    static constexpr ::llvm::StringLiteral kHostLoadBytesAttrName =
        "train.host_load_bytes";
    static constexpr ::llvm::StringLiteral kHostPersistentBytesAttrName =
        "train.host_persistent_bytes";
    static constexpr ::llvm::StringLiteral kPlanAlignmentAttrName =
        "train.plan_alignment";
    static constexpr ::llvm::StringLiteral kStepAttrName = "train.step";
    /// The largest `train.plan_alignment` (2 MiB, a huge page): beyond it
    /// padding alone would make arenas of terabytes.
    static constexpr int64_t kMaxPlanAlignment = int64_t(1) << 21;
    static constexpr ::llvm::StringLiteral kRematFlopsAttrName =
        "train.remat_flops";
    static constexpr ::llvm::StringLiteral kRematPeakBeforeAttrName =
        "train.remat_peak_before";
    static constexpr ::llvm::StringLiteral kRematPeakAfterAttrName =
        "train.remat_peak_after";
    static constexpr ::llvm::StringLiteral kRecomputedAttrName =
        "train.recomputed";
    /// On the train.to_host and train.to_device copies with which
    /// train-remat offloads an activation to host memory.
    static constexpr ::llvm::StringLiteral kOffloadedAttrName =
        "train.offloaded";
    static constexpr ::llvm::StringLiteral kRematAttrName = "train.remat";
    /// The keys of the `train.remat` dictionary.
    static constexpr ::llvm::StringLiteral kRematAlgorithmKey = "algorithm";
    static constexpr ::llvm::StringLiteral kRematBudgetKey = "budget";
    /// The MILP's relative gap to its proven bound, for `optimal`'s plans.
    static constexpr ::llvm::StringLiteral kRematGapKey = "gap";
    /// With activation offload: the host link's bytes per second (one
    /// direction) and the device profile the cost model used.
    static constexpr ::llvm::StringLiteral kRematLinkKey = "link";
    static constexpr ::llvm::StringLiteral kRematDeviceKey = "device";
    static constexpr ::llvm::StringLiteral kLayerAttrName = "train.layer";
    /// `train.space = "host"` on an op: its results live in host memory
    /// (getMemorySpace); absent, on the device.
    static constexpr ::llvm::StringLiteral kSpaceAttrName = "train.space";
    static constexpr ::llvm::StringLiteral kGradOfAttrName = "train.grad_of";
    static constexpr ::llvm::StringLiteral kPrecisionAttrName =
        "train.precision";
    static constexpr ::llvm::StringLiteral kSplitAttrName = "train.split";
    static constexpr ::llvm::StringLiteral kSplitExtentAttrName =
        "train.split_extent";
    static constexpr ::llvm::StringLiteral kShardAttrName = "train.shard";
    /// train-pipeline's record on each stage's function: {grid = @grid,
    /// axis = <i64>, stage = <i64>, stages = <i64>, microbatches = <i64>,
    /// schedule = "<name>", layers = [<names>], step = "<name>"}.
    static constexpr ::llvm::StringLiteral kPipelineAttrName =
        "train.pipeline";
    /// train-schedule's record: {heuristic = "<name>", load_before = <i64>,
    /// load_after = <i64>}.
    static constexpr ::llvm::StringLiteral kScheduleAttrName =
        "train.schedule";
  }];
}

//===----------------------------------------------------------------------===//
// Precision classes
//===----------------------------------------------------------------------===//

class Train_PrecisionTrait<string name> : NativeOpTrait<name> {
  let cppNamespace = "::mlir::memopt::train";
}

/// The op computes correctly in 16-bit or 8-bit floating point (matmul,
/// convolution, elementwise activations, views).
def Train_LowPrecisionSafe : Train_PrecisionTrait<"LowPrecisionSafe">;
/// The op must compute in fp32 even under mixed precision (normalizations,
/// softmax, reductions, losses, optimizer updates).
def Train_KeepFP32 : Train_PrecisionTrait<"KeepFP32">;
/// The op accepts mixed-precision inputs and computes in the widest input
/// type (add-like ops).
def Train_PromoteToWidest : Train_PrecisionTrait<"PromoteToWidest">;

/// The op's single result is a view of its first operand: it allocates no new
/// bytes and extends the lifetime of the operand's buffer.
def Train_ViewOp : NativeOpTrait<"ViewOp"> {
  let cppNamespace = "::mlir::memopt::train";
}

/// Every tensor operand and result has a byte size memopt can add up exactly:
/// at most `kMaxTensorBytes` (16 TiB), computed without overflow. Larger
/// types are valid builtin types, but summing them in 64-bit byte counts
/// would wrap around and report a wrong peak.
def Train_BoundedTensorSizes : NativeOpTrait<"BoundedTensorSizes"> {
  let cppNamespace = "::mlir::memopt::train";
}

/// Every float attribute (a softmax or attention scale, a dropout rate, a
/// learning rate, betas, epsilon) is finite: an inf or NaN scale would
/// silently turn every result into NaN.
def Train_FiniteFloatAttributes : NativeOpTrait<"FiniteFloatAttributes"> {
  let cppNamespace = "::mlir::memopt::train";
}

//===----------------------------------------------------------------------===//
// Resources
//===----------------------------------------------------------------------===//

/// Persistent training state: parameters and optimizer states. Reads of it
/// must not move across in-place optimizer updates.
def Train_StateResource : Resource<"::mlir::memopt::train::StateResource">;
/// Tensor lifetimes: `train.free` markers keep their place in the schedule.
def Train_LifetimeResource
    : Resource<"::mlir::memopt::train::LifetimeResource">;
/// The link between host and device memory: a copy across it
/// (`train.to_host`, `train.to_device`) costs link time, not FLOPs, so the
/// passes that recompute free values must not repeat it.
def Train_HostLinkResource
    : Resource<"::mlir::memopt::train::HostLinkResource">;

//===----------------------------------------------------------------------===//
// Type constraints
//===----------------------------------------------------------------------===//

def Train_FloatTensor : StaticShapeTensorOf<[AnyFloat]>;
def Train_IndexTensor : StaticShapeTensorOf<[AnySignlessInteger]>;
def Train_MaskTensor : StaticShapeTensorOf<[I1, I8]>;
def Train_AnyTensor : StaticShapeTensorOf<[AnyInteger, AnyFloat, Index]>;
def Train_ScalarFloatTensor
    : Type<And<[Train_FloatTensor.predicate,
                CPred<"::llvm::cast<::mlir::ShapedType>($_self).getRank() == 0">]>,
           "0-d float tensor", "::mlir::TensorType">;
def Train_StepTensor
    : Type<And<[StaticShapeTensorOf<[AnySignlessInteger, AnyFloat]>.predicate,
                CPred<"::llvm::cast<::mlir::ShapedType>($_self).getRank() == 0">]>,
           "0-d integer or float tensor", "::mlir::TensorType">;
def Train_ScaleTensor
    : Type<And<[StaticShapeTensorOf<[F32]>.predicate,
                CPred<"::llvm::cast<::mlir::ShapedType>($_self).getRank() == 0">]>,
           "0-d f32 tensor", "::mlir::TensorType">;
def Train_FlagTensor
    : Type<And<[StaticShapeTensorOf<[I1]>.predicate,
                CPred<"::llvm::cast<::mlir::ShapedType>($_self).getRank() == 0">]>,
           "0-d i1 tensor", "::mlir::TensorType">;
def Train_CounterTensor
    : Type<And<[StaticShapeTensorOf<[I64]>.predicate,
                CPred<"::llvm::cast<::mlir::ShapedType>($_self).getRank() == 0">]>,
           "0-d i64 tensor", "::mlir::TensorType">;

def Train_FP8Tensor : StaticShapeTensorOf<[F8E4M3FN, F8E5M2]>;
def Train_AmaxHistoryTensor
    : Type<And<[StaticShapeTensorOf<[F32]>.predicate,
                CPred<"::llvm::cast<::mlir::ShapedType>($_self).getRank() == 1">,
                CPred<"::llvm::cast<::mlir::ShapedType>($_self).getDimSize(0) >= 1">]>,
           "1-d f32 tensor of at least one element", "::mlir::TensorType">;

#endif // MEMOPT_DIALECT_TRAIN_IR_TRAINBASE_TD
