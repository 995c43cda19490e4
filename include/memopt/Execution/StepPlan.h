//===- StepPlan.h - what a runtime needs to feed a step ---------*- C++ -*-===//
//
// The first half of running a training step in-process (docs/execution.md):
// pick the step function, decide how every argument, parameter and
// optimizer state is filled and what the memory model predicts, add the
// entry function (memopt-add-step-entry) and lower the module to the LLVM
// dialect for the CPU, the GPU, or the GPU lowering emulated on the CPU.
// CompiledStep.h compiles and runs the result; AotDriver.h writes it out for
// an ahead-of-time build.
//
// Errors are MLIR diagnostics: at the op when there is one, otherwise at
// getExecutionLoc(), which a tool prints as its own `error:` line.
//
//===----------------------------------------------------------------------===//

#ifndef MEMOPT_EXECUTION_STEPPLAN_H
#define MEMOPT_EXECUTION_STEPPLAN_H

#include "memopt/Dialect/Train/IR/Quantization.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/BuiltinTypes.h"
#include "llvm/ADT/SmallVector.h"

#include <optional>
#include <string>

namespace mlir {
class DialectRegistry;
class PassManager;
namespace memopt {
struct LowerToGPUOptions;
} // namespace memopt
} // namespace mlir

namespace mlir::memopt::execution {

/// What the step is lowered for.
enum class Target {
  /// memopt-lower-to-cpu.
  CPU,
  /// memopt-lower-to-gpu: kernels for an NVIDIA GPU (ahead of time only).
  GPU,
  /// memopt-lower-to-gpu{emulate=true}: the kernels and cuBLAS calls run as
  /// CPU code, collectives as one process.
  GPUEmulator,
};

/// The target named `cpu`, `gpu` or `gpu-emulator`, or std::nullopt.
std::optional<Target> parseTarget(StringRef name);

/// Registers the dialects a step uses and the translations to LLVM IR that
/// compiling it needs (for Target::GPU also the NVVM kernel serialization).
void registerExecutionDialects(DialectRegistry &registry, Target target);

/// The location of diagnostics that have no op to point at (a name location
/// `memopt-execution`).
Location getExecutionLoc(MLIRContext *context);

/// How a step argument is filled.
enum class ArgKind {
  /// `sin` formula with amplitude 1 (docs/execution.md).
  Float,
  /// `(fnv1a32(name) + 7 * i) mod bound`.
  Integer,
  /// The 1-based step number (the `step` operand of train.adam/adamw).
  StepNumber,
};

/// A tensor that lives in a module global while the step runs.
struct GlobalTensor {
  /// Name in the formulas and in the output (`fc1.weight`, `arg0`; the
  /// index for results).
  std::string name;
  /// Symbol of the global holding it.
  std::string symbol;
  RankedTensorType type;
  /// Address in the compiled program; set once the JIT has resolved it.
  char *data = nullptr;
  /// For a part of a sharded tensor (`train.split`): its (dim, blocks,
  /// grid axis) triples; empty for a whole tensor.
  SmallVector<int64_t> split;
  /// `train.split_extent`: the extent of the last triple's dimension in the
  /// tensor it splits, when the parts end with padding; 0 otherwise.
  int64_t splitExtent = 0;

  /// For a parameter that holds quantized storage of a frozen weight
  /// (train-quantize-frozen): the index of that weight in
  /// StepPlan::quantizedWeights; -1 otherwise.
  int quantizedWeight = -1;
  /// Whether it lives in host memory (train-offload's parameters and
  /// states).
  bool host = false;

  /// Bytes of the tensor in its global.
  int64_t getByteSize() const;
};

/// A frozen weight a step reads through a dequantize op: mem-run fills its
/// storage (parameters of their own) with the quantization of the values
/// the formula gives the weight itself (docs/execution.md).
struct QuantizedWeight {
  /// The weight's name and type (f32) in the formula.
  std::string name;
  RankedTensorType type;
  train::WeightFormat format = train::WeightFormat::NF4;
  /// NF4's block and double quantization; int8's output-feature axis.
  int64_t block = 0;
  bool doubleQuant = false;
  int64_t axis = 0;
  /// The storage, as indices into StepPlan::params, in the dequantize op's
  /// operand order (codes, absmax[, absmax scale, absmax offset]; codes,
  /// scale).
  SmallVector<unsigned> parts;
};

/// One argument of the step and how it is filled.
struct StepArgument {
  GlobalTensor tensor;
  ArgKind kind = ArgKind::Float;
  /// For ArgKind::Integer: the values lie in [0, bound).
  uint64_t bound = 0;
};

/// The bytes mem-run stores in each part of `weight`'s storage (in the
/// order of QuantizedWeight::parts): the quantization (Quantization.h) of
/// the f32 values the formula gives the weight, `f32(amplitude * sin(0.37 *
/// i + phase))` with the weight's own name and shape.
SmallVector<std::string>
getQuantizedStorageBytes(const QuantizedWeight &weight);

/// Everything a runtime needs to know of a step to feed it and read it back.
struct StepPlan {
  /// The step function; null once lowerStep has lowered it away.
  func::FuncOp step;
  /// Its name, and the context of its module, which outlive the lowering.
  std::string stepName;
  MLIRContext *context = nullptr;
  SmallVector<StepArgument> arguments;
  SmallVector<GlobalTensor> results;
  /// Parameters and optimizer states in order of first appearance.
  SmallVector<GlobalTensor> params;
  SmallVector<GlobalTensor> states;
  /// The frozen weights stored quantized, in order of first dequantization.
  SmallVector<QuantizedWeight> quantizedWeights;
  /// Under gradient accumulation (train-accumulate-gradients: the step has
  /// a train.micro_batch_advance), the calls of the step per optimizer
  /// step, each fed the next micro-batch of the batch; 1 otherwise.
  int64_t microBatches = 1;
  /// Set when a train.dropout reads the seed global (or the module declares
  /// it).
  bool hasSeed = false;
  /// Address of the seed global once resolved.
  char *seedData = nullptr;
  /// Per result, the parameter whose gradient it is (its train.grad_of
  /// attribute), or empty.
  SmallVector<std::string> resultGradOf;
  /// The shape of the step's `shard.grid` (the one its `train.shard` names,
  /// or the module's only grid); empty without one.
  SmallVector<int64_t> gridShape;
  /// This process's linear index on the grid (last axis fastest): which
  /// part of every split tensor it holds. Set by the runtime.
  int64_t processRank = 0;
  /// The memory model's prediction of the peak the allocation hooks measure.
  int64_t predictedPeak = 0;
  /// The model's persistent bytes (parameters and optimizer states) and
  /// input bytes (arguments and constants), which the runtime and the
  /// lowering keep in globals rather than allocating them.
  int64_t predictedPersistent = 0;
  int64_t predictedInputs = 0;
  /// The same, measured: the sizes of the globals of the lowered program
  /// (by the LLVM data layout), split by what they hold; -1 until lowered.
  int64_t measuredPersistent = -1;
  int64_t measuredInputs = -1;
  /// Host memory (train-offload), as the device's above: whether the step
  /// has host values, the predicted peak of its host allocations, and the
  /// persistent host bytes predicted and measured.
  bool hasHost = false;
  int64_t predictedHostPeak = 0;
  int64_t predictedHostPersistent = 0;
  int64_t measuredHostPersistent = -1;
  /// For a step planned by train-plan-memory: the bytes of the arena the
  /// lowered step allocates (the plan's arena minus the persistent region,
  /// which lives in globals) plus the returned buffers; -1 without a plan.
  int64_t arenaBytes = -1;
  /// The same for the host's arena of a planned step with host values; -1
  /// without one.
  int64_t hostArenaBytes = -1;
};

/// Prints how mem-run fills `param`, a parameter of `plan` (--list-inputs):
/// `formula, amplitude A`, or for quantized storage its format and the
/// weight whose formula it quantizes. Ends the line.
void printParamInit(llvm::raw_ostream &os, const StepPlan &plan,
                    const GlobalTensor &param);

/// The function `name` names, or the only func.func with a body when `name`
/// is empty. `source` names the input in messages.
FailureOr<func::FuncOp> findStep(ModuleOp module, StringRef name,
                                 StringRef source);

/// Succeeds: every target runs collectives (MPI calls on the CPU, NCCL on
/// the GPU, one process on the GPU emulator).
LogicalResult checkTargetSupportsStep(ModuleOp module, Target target);

/// Differentiates every function with train-autodiff{optimizer=none}, so
/// that the step returns its parameters' gradients (for a gradient check).
LogicalResult differentiateStep(ModuleOp module);

/// Whether `step` carries an arena plan (or part of one).
bool isPlanned(func::FuncOp step);

/// Runs train-verify-plan on a planned step: a hand-edited plan with an
/// offset past the arena or two live buffers overlapping would corrupt
/// memory. Succeeds for an unplanned step.
LogicalResult verifyArenaPlan(ModuleOp module, func::FuncOp step);

/// Decides how every argument is filled and collects the results,
/// parameters, optimizer states and seed the step uses, with the memory
/// model's predictions. Fails with a diagnostic at what cannot be fed.
FailureOr<StepPlan> planStep(ModuleOp module, func::FuncOp step);

/// The number of processes of the plan's grid (1 without a grid).
int64_t getGridSize(const StepPlan &plan);

/// The element of the whole tensor that element `index` (row-major) of the
/// part `tensor` holds on process `rank` of a grid of `gridShape`
/// (docs/execution.md); `index` itself for a whole tensor, and -1 for a
/// padding element of a part (`train.split_extent`).
int64_t getWholeIndex(const GlobalTensor &tensor, ArrayRef<int64_t> gridShape,
                      int64_t rank, int64_t index);

/// The type of the whole tensor a part `tensor` belongs to.
RankedTensorType getWholeType(const GlobalTensor &tensor,
                              ArrayRef<int64_t> gridShape);

/// Fails when the step would not fit in this machine's memory: its globals
/// plus what it allocates at its peak (its arena when planned).
LogicalResult checkStepFits(const StepPlan &plan, MLIRContext *context);

/// Adds the entry function and its argument and result globals
/// (memopt-add-step-entry).
LogicalResult addStepEntry(ModuleOp module, const StepPlan &plan);

/// Lowers the module (with its entry function) to the LLVM dialect:
/// convert-train-to-linalg, then memopt-lower-to-cpu or memopt-lower-to-gpu
/// with `gpuOptions` (or their defaults; Target::GPUEmulator sets
/// `emulate`). Then measures the globals into `plan` and clears `plan.step`,
/// which the lowering replaced. `configure`, if given, sees the pass
/// manager before it runs (a tool applies MLIR's command-line options).
LogicalResult
lowerStep(ModuleOp module, StepPlan &plan, Target target,
          const LowerToGPUOptions *gpuOptions = nullptr,
          function_ref<LogicalResult(PassManager &)> configure = nullptr);

} // namespace mlir::memopt::execution

#endif // MEMOPT_EXECUTION_STEPPLAN_H
