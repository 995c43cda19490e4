//===- MemoryReport.h - the memory report of a training step ----*- C++ -*-===//
//
// The memory report (docs/report.md) of one training step: the TensorLiveness
// analysis summarized (peak, the op at the peak, bytes per memory class, the
// largest tensors live at the peak, the timeline, the activations saved for
// the backward pass per layer), the model states per parameter and what
// train-remat recorded, printed as JSON (schema
// `memopt.memory-report/1`, documented in docs/report.md) or one of its
// views: a text table, a self-contained HTML page with an SVG timeline, or a
// Chrome/Perfetto trace. MemoryReport collects the numbers; the writers of
// memopt/Report/ReportWriters.h print them. A report is made from a
// `train`-dialect step (MemoryReport::create), or from a trace of a PyTorch
// eager step (schema `memopt.eager-trace/1`, MemoryReport::createFromTrace),
// which has no IR.
//
//===----------------------------------------------------------------------===//

#ifndef MEMOPT_REPORT_MEMORYREPORT_H
#define MEMOPT_REPORT_MEMORYREPORT_H

#include "memopt/Analysis/TensorLiveness.h"

#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/Location.h"
#include "mlir/Interfaces/FunctionInterfaces.h"
#include "mlir/Support/LLVM.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"

#include <array>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace llvm::json {
class Value;
} // namespace llvm::json

namespace mlir::memopt {

/// The schema identifier every JSON report carries; bumped on any change
/// that can break a reader (a key removed, renamed or changing meaning).
inline constexpr StringLiteral kMemoryReportSchema = "memopt.memory-report/1";

/// The schema of the traces of PyTorch eager steps that
/// MemoryReport::createFromTrace reads (`python3 -m memopt_torch predict
/// ... --trace FILE`; docs/report.md).
inline constexpr StringLiteral kEagerTraceSchema = "memopt.eager-trace/1";

/// The ways a report is printed.
enum class ReportFormat { Text, JSON, HTML, Trace };

/// Parses "text", "json", "html" or "trace".
std::optional<ReportFormat> parseReportFormat(StringRef name);

/// "text, json, html, trace": the accepted names, for diagnostics.
StringRef getReportFormatNames();

/// `bytes` in binary units: "256 B" below 1 KiB, otherwise two decimals of
/// the largest unit that fits and the exact count, "1.39 KiB (1420 B)".
std::string formatBytes(int64_t bytes);

/// A location as text: a name location's name, "file:line:col", the callee
/// of a call site, the first known part of a fused location, else "unknown".
std::string formatLocation(Location loc);

/// Where `op` came from when that is outside the IR it is in: "file:line" of
/// the file position its location carries (the child of a name location, the
/// callee of a call site, a part of a fused location) when that file is not
/// the file of the enclosing function's location, else "". mem-import's ops
/// carry the user's Python line this way; ops of a `.mlir` file carry their
/// own position in that file, which this leaves out.
std::string formatSource(Operation *op);

/// A buffer live at the peak, as the report lists it.
struct ReportTensor {
  /// The buffer in the analysis.
  const Buffer *buffer = nullptr;
  /// The op that defines the buffer, or "argument" for a function argument.
  std::string opName;
  /// formatLocation of the defining op (or of the argument).
  std::string location;
  /// formatSource of the defining op ("" for an argument).
  std::string source;
};

/// What `train-remat` recorded on a step: its attributes and the ops it
/// inserted (marked `train.recomputed`).
struct RematSummary {
  int64_t flops = 0;
  int64_t peakBefore = 0;
  int64_t peakAfter = 0;
  /// From `train.remat`: the algorithm whose rewrite was applied (empty when
  /// the step does not carry it) and the budget in bytes it met (unset
  /// without a budget).
  std::string algorithm;
  std::optional<int64_t> budget;
  /// From `train.remat`: the MILP's relative gap to its proven bound, when
  /// the applied rewrite is `optimal`'s own plan.
  std::optional<double> gap;
  /// Recomputed ops by op name, in first-appearance order.
  SmallVector<std::pair<std::string, int64_t>> opsByName;
  int64_t numOps = 0;
  /// The activations offloaded to host memory (their buffers' names and
  /// bytes, in program order of their copies out), and what the record says
  /// of the cost model: the host link's bytes per second and the device.
  SmallVector<std::pair<std::string, int64_t>> offloaded;
  int64_t offloadedBytes = 0;
  std::optional<double> linkBytesPerSecond;
  std::string device;
};

/// The persistent state of the model per parameter element (the textbook
/// "bytes per parameter" of mixed-precision training), in unpadded bytes
/// (elements times the element's byte width). Each distinct `train.param`
/// name counts once.
struct ModelStates {
  /// `train.precision`'s mode and gradient type ("fp32" for both when the
  /// step does not carry it).
  std::string precision = "fp32";
  std::string gradients = "fp32";
  /// Elements of the distinct parameters, and of those that are trainable
  /// (not `trainable = false`).
  int64_t parameterCount = 0;
  int64_t trainableParameterCount = 0;
  /// The tensors compute reads: a parameter's low copies (its
  /// `train.cast`s to a narrower float type and its fp8 `train.quantize`s),
  /// else the parameter itself. Split three ways: those of trainable
  /// parameters (weightBytes), of frozen ones (frozenWeightBytes), and of
  /// LoRA adapters (adapterWeightBytes: a trainable parameter one of whose
  /// dotted name's components starts with "lora_", as train-lora and PEFT
  /// name them).
  int64_t weightBytes = 0;
  int64_t frozenWeightBytes = 0;
  int64_t adapterWeightBytes = 0;
  /// Frozen weights stored quantized (train-quantize-frozen): the bytes of
  /// their storage, codes and every scale, which frozenWeightBytes leaves
  /// out. parameterCount counts such a weight by its own elements (the
  /// dequantize op's result), not by its storage's.
  int64_t quantizedWeightBytes = 0;
  /// The parameters that have a low copy: their own (master) bytes.
  int64_t masterWeightBytes = 0;
  /// The gradients the optimizer ops receive (the `grad` operand); without
  /// an optimizer, the function results marked `train.grad_of`.
  int64_t gradientBytes = 0;
  /// The `train.opt_state` tensors named "<param>.<suffix>", but for the
  /// 8-bit states of train.adam8bit / adamw8bit.
  int64_t optimizerStateBytes = 0;
  /// The 8-bit optimizer states: the codes and absmax values that
  /// train.adam8bit / adamw8bit update.
  int64_t optimizerState8bitBytes = 0;
  /// fp8 delayed scaling: the amax histories (`train.opt_state`s read by
  /// train.fp8_scale, train.amax_record or as a scaled_matmul's
  /// grad_history) and their bytes.
  int64_t fp8HistoryCount = 0;
  int64_t fp8ScalingBytes = 0;
  /// The other `train.opt_state` tensors (not tied to a parameter, e.g. a
  /// loss scaler's state), by name in program order, with their bytes.
  SmallVector<std::pair<std::string, int64_t>> otherStates;

  /// The parts of the above in host memory (train-offload): the parameters
  /// kept there (the fp32 masters the host's optimizer updates, their
  /// device copies counting as the weights), the gradients the host's
  /// updates read, and the optimizer states there.
  bool hasHost = false;
  int64_t hostMasterWeightBytes = 0;
  int64_t hostGradientBytes = 0;
  int64_t hostOptimizerStateBytes = 0;
  int64_t getHostBytes() const {
    return hostMasterWeightBytes + hostGradientBytes + hostOptimizerStateBytes;
  }
  /// DeepSpeed's estimate for the same run, beside the exact numbers
  /// (estimate_zero2_model_states_mem_needs with cpu_offload, one node of
  /// `deepSpeedProcesses` GPUs, the data-parallel degree): the device's
  /// 2 Psi, and the node's host memory Psi * max(4 G, 16) * 1.5 (its
  /// "buffer factor"). Set with hasHost.
  int64_t deepSpeedProcesses = 1;
  int64_t deepSpeedDeviceBytes = 0;
  int64_t deepSpeedHostBytes = 0;

  /// The bytes of otherStates.
  int64_t getOtherBytes() const;
  /// weights (all four kinds) + master weights + gradients + optimizer
  /// states (32-bit and 8-bit) + fp8 scaling + other.
  int64_t getTotalBytes() const;
  /// The rows the text and HTML reports print, in order: weights, frozen
  /// weights, quantized weights and adapter weights (when there are any),
  /// master weights, gradients, optimizer states, 8-bit optimizer states
  /// and fp8 amax histories (each when there are any), each other state
  /// ("other: <name>"), total.
  SmallVector<std::pair<std::string, int64_t>> getRows() const;
  /// `bytes` over parameterCount (0 without parameters).
  double perParameter(int64_t bytes) const {
    return parameterCount == 0 ? 0.0
                               : static_cast<double>(bytes) / parameterCount;
  }
  /// `bytes` over trainableParameterCount (0 without trainable parameters).
  double perTrainableParameter(int64_t bytes) const {
    return trainableParameterCount == 0
               ? 0.0
               : static_cast<double>(bytes) / trainableParameterCount;
  }
};

/// The activations of one layer saved for the backward pass.
struct LayerActivations {
  /// The `train.layer` of the defining ops, or kOtherLayer.
  std::string layer;
  int64_t bytes = 0;
  int64_t numBuffers = 0;
};

/// The forward values saved for the backward pass: the activation buffers
/// (forward values a backward op reads) defined before the loss and live
/// after it, grouped by the `train.layer` of their defining op.
struct SavedActivations {
  /// The group of the values whose defining op has no `train.layer`.
  static constexpr StringLiteral kOtherLayer = "(other)";
  /// The point of the op that defines the loss (the first returned value, a
  /// 0-d float tensor); unset when the step returns no loss, and then
  /// nothing is saved.
  std::optional<int64_t> lossPoint;
  /// Layers in order of their first saved value, kOtherLayer last.
  SmallVector<LayerActivations> byLayer;
  int64_t totalBytes = 0;
  int64_t numBuffers = 0;
  /// Casts of parameters (low copies and their casts back) saved for the
  /// backward pass: counted here, not in byLayer; model states count the
  /// low copies as weights.
  int64_t parameterCopyBytes = 0;
  int64_t numParameterCopies = 0;
};

/// The memory report of one training step.
/// One kind of collective over some grid axes in a step, and the bytes each
/// process sends for it per step under the ring algorithms: an all-reduce of
/// N bytes over g processes sends 2(g-1)/g N, an all-gather into N bytes and
/// a reduce-scatter of N bytes (g-1)/g N.
struct CollectiveTraffic {
  /// `all_reduce`, `all_gather` or `reduce_scatter`.
  std::string kind;
  /// The grid axes: `dp`, `tp` (train-shard's grid) or `axis N`,
  /// comma-separated.
  std::string axes;
  /// Processes in each group.
  int64_t groupSize = 1;
  int64_t count = 0;
  /// The collectives' tensors (all-gather: the gathered result).
  int64_t tensorBytes = 0;
  int64_t sentBytes = 0;
};

/// The collectives of a step on a `shard.grid`, per process and step.
struct Communication {
  std::string grid;
  SmallVector<int64_t> gridShape;
  /// By kind and axes, in order of first appearance.
  SmallVector<CollectiveTraffic> collectives;
  /// The stage, when the step is a stage of a pipeline (`train.pipeline`):
  /// each process of the grid then runs its own stage's program, not this
  /// one.
  std::optional<int64_t> pipelineStage;
  int64_t totalSentBytes = 0;

  /// The processes of the grid, each running the step.
  int64_t getProcesses() const;
};

/// One stage of a pipelined step (train-pipeline), as the report's pipeline
/// section lists it: the numbers of its own MemoryReport.
struct PipelineStageSummary {
  int64_t stage = 0;
  /// The stage's function (no `@`).
  std::string function;
  /// The train.layer groups the stage runs, from `train.pipeline`.
  SmallVector<std::string> layers;
  /// The layers of each of the stage's model chunks (one chunk of all
  /// `layers` but under the interleaved schedule).
  std::vector<std::vector<std::string>> chunks;
  /// getMicroBatchesInFlight of the stage's schedule: the most micro-batches
  /// whose forward pass has run and whose backward pass (under ZB-H1: weight
  /// pass) has not; under the interleaved schedule, passes of a micro-batch
  /// through one chunk.
  int64_t microBatchesInFlight = 0;
  /// The stage's MemoryReport::getPeakBytes, and its live bytes per class at
  /// its peak point (summing to its LOAD).
  int64_t peakBytes = 0;
  std::array<int64_t, kNumMemoryClasses> byClass = {};
  /// The most activation bytes live at any point of the stage: the
  /// activations of the micro-batches it holds in flight.
  int64_t maxActivationBytes = 0;
  /// ModelStates::getTotalBytes of the stage.
  int64_t modelStatesBytes = 0;
  /// The op at the stage's peak: its name and formatLocation.
  std::string peakOpName;
  std::string peakLocation;
  /// The bytes of the tensors the stage sends with train.p2p per step.
  int64_t sentBytes = 0;
};

/// The pipeline a reported stage belongs to: every stage of its step.
struct PipelineSummary {
  /// `train.pipeline`'s schedule name ("1f1b", "gpipe", "interleaved",
  /// "zb-h1").
  std::string schedule;
  int64_t numStages = 0;
  int64_t microBatches = 0;
  /// Model chunks per stage (the interleaved schedule's v; else 1).
  int64_t virtualStages = 1;
  /// getBubbleFraction of the schedule.
  double bubbleFraction = 0.0;
  /// The stage the report is of.
  int64_t reportedStage = 0;
  /// Whether `function=` chose the reported stage (else: the highest peak).
  bool chosenByName = false;
  /// The sum of the stages' sentBytes: point-to-point bytes per step.
  int64_t p2pBytes = 0;
  /// Every stage, in stage order.
  SmallVector<PipelineStageSummary, 0> stages;
};

/// A run of consecutive points of one phase of an eager step.
struct PhaseRange {
  std::string phase;
  int64_t firstPoint = 0;
  int64_t lastPoint = 0;
};

/// What a report read from a trace of a PyTorch eager step knows beyond its
/// buffers: the model, the device, the peak the trace states, and the op,
/// module, source line and phase of every point.
struct EagerTrace {
  struct Point {
    /// The ATen op ("aten.mm.default").
    std::string op;
    /// The module that ran it ("transformer.h.0.attn"), "" outside any.
    std::string module;
    /// The user's "file:line", "" when unknown.
    std::string source;
    /// "zero_grad", "forward", "loss", "backward", "step" or "end".
    std::string phase;
  };
  std::string model;
  std::string device;
  /// The trace's `allocated_peak_bytes`: what PyTorch's
  /// max_memory_allocated() reports for the step, as predicted.
  int64_t allocatedPeakBytes = 0;
  std::vector<Point> points;
  /// The phases of the points, one entry per run, in order.
  SmallVector<PhaseRange> phases;
};

/// The functions of `module` that are stages of a pipelined step (they carry
/// `train.pipeline`), in stage order; empty when it has none. When `of` is
/// given, the stages of its step only. Fails, with a diagnostic, when an
/// attribute is malformed, when the module holds the stages of several
/// pipelines and `of` is null, or when a stage is missing or repeated.
FailureOr<SmallVector<FunctionOpInterface>>
findPipelineStages(ModuleOp module, FunctionOpInterface of = nullptr);

class MemoryReport {
public:
  /// The number of tensors listed at the peak, largest first.
  static constexpr unsigned kNumTopTensors = 10;

  /// Analyzes `func`. Fails with a diagnostic at `func` when it is not a
  /// training step: no body, or a body of more than one block.
  static FailureOr<MemoryReport> create(FunctionOpInterface func);

  /// Analyzes every stage of a pipelined step (`stages`: the functions
  /// carrying `train.pipeline`, in stage order, as findPipelineStages
  /// returns them) and reports on `chosen`, or, when it is null, on the
  /// stage of the highest peak (ties: the lowest stage), with the pipeline
  /// section (getPipeline) over every stage (PipelineReport.cpp).
  static FailureOr<MemoryReport>
  createForPipeline(ArrayRef<FunctionOpInterface> stages,
                    FunctionOpInterface chosen);

  /// Reads a trace of a PyTorch eager step (schema kEagerTraceSchema,
  /// docs/report.md). The error names the offending key by its path
  /// ("buffers[3].end: ...").
  static llvm::Expected<MemoryReport>
  createFromTrace(const llvm::json::Value &document);

  /// The name of the function.
  StringRef getFunctionName() const { return functionName; }
  /// The analysis the report summarizes.
  const TensorLiveness &getLiveness() const { return *liveness; }
  /// LOAD: the maximum live bytes; the peak of any allocator that places
  /// buffers without fragmentation.
  int64_t getLoadBytes() const { return liveness->getLoad(); }
  /// The peak the report states: the planned arena when train-plan-memory
  /// recorded one in the IR (the step then runs on it), else LOAD.
  int64_t getPeakBytes() const {
    return arenaFromIR ? arenaBytes : liveness->getLoad();
  }
  /// The static arena: the one recorded in the IR by train-plan-memory, or
  /// else one planned for the report with the default options.
  int64_t getArenaBytes() const { return arenaBytes; }
  int64_t getPlanAlignment() const { return planAlignment; }
  bool isArenaFromIR() const { return arenaFromIR; }
  /// The host's arena of a step with host values (train-offload): the one in
  /// the IR, else one planned for the report (as getArenaBytes); unset
  /// without host values or without an arena.
  std::optional<int64_t> getHostArenaBytes() const { return hostArenaBytes; }
  /// The LOAD of the planner, over sizes aligned to the plan's alignment:
  /// the `train.load_bytes` that train-plan-memory recorded with the arena
  /// in the IR (the arena's lower bound); unset when the IR has no plan.
  std::optional<int64_t> getPlanLoadBytes() const { return planLoadBytes; }
  /// arena / LOAD - 1: what the arena costs above the lower bound (alignment
  /// padding included).
  double getFragmentation() const {
    return getLoadBytes() == 0
               ? 0.0
               : static_cast<double>(arenaBytes) / getLoadBytes() - 1.0;
  }
  /// Elements and bytes of the distinct parameters (by `train.param` name;
  /// a tied parameter read twice counts once).
  int64_t getParameterCount() const { return parameterCount; }
  int64_t getParameterBytes() const { return parameterBytes; }
  /// The sum of CostOpInterface::getFlops over the ops of the step.
  int64_t getTotalFlops() const { return totalFlops; }
  /// The largest buffers live at the peak (at most kNumTopTensors).
  ArrayRef<ReportTensor> getTopTensors() const { return topTensors; }
  /// What train-remat decided, when it ran on the step.
  const std::optional<RematSummary> &getRemat() const { return remat; }
  /// Recomputed FLOPs over the FLOPs of the step without them: the extra
  /// step time of a compute-bound step.
  double getRematOverhead() const {
    if (!remat || totalFlops <= remat->flops)
      return 0.0;
    return static_cast<double>(remat->flops) / (totalFlops - remat->flops);
  }
  /// Bytes per parameter of weights, master weights, gradients and
  /// optimizer states.
  const ModelStates &getModelStates() const { return modelStates; }
  /// The activations saved for the backward pass, per layer.
  const SavedActivations &getSavedActivations() const {
    return savedActivations;
  }
  /// The collectives, when the step has any.
  const std::optional<Communication> &getCommunication() const {
    return communication;
  }
  /// The pipeline the step is a stage of, when the report was made by
  /// createForPipeline.
  const std::optional<PipelineSummary> &getPipeline() const { return pipeline; }
  /// The number of buffers live at the peak.
  int64_t getNumLiveAtPeak() const { return numLiveAtPeak; }
  /// The op at the peak point: its name and formatLocation of its location.
  StringRef getPeakOpName() const { return peakOpName; }
  StringRef getPeakLocation() const { return peakLocation; }
  /// formatSource of the op at the peak point ("" when it has none).
  StringRef getPeakSource() const { return peakSource; }

  /// The eager step the report was read from; null for memopt's steps.
  const EagerTrace *getEagerTrace() const {
    return eagerTrace ? &*eagerTrace : nullptr;
  }
  /// Whether the report states an arena and the step's FLOPs: memopt's
  /// steps do; an eager step runs on PyTorch's caching allocator, not on a
  /// static plan, and its trace counts no FLOPs.
  bool hasArena() const { return !eagerTrace; }
  bool hasFlops() const { return !eagerTrace; }

  /// The op at program point `point`: its name, its location
  /// (formatLocation; an eager op's module, else "unknown"), its source
  /// (formatSource; an eager op's "file:line", else "") and its phase (""
  /// for memopt's steps).
  StringRef getPointOpName(int64_t point) const;
  std::string getPointLocation(int64_t point) const;
  std::string getPointSource(int64_t point) const;
  StringRef getPointPhase(int64_t point) const;

  /// Prints the report in `format` (memopt/Report/ReportWriters.h).
  void print(raw_ostream &os, ReportFormat format) const;

private:
  MemoryReport() = default;

  /// The parts of createFromTrace after reading: the model states, the
  /// saved activations, the peak and the top tensors of an eager step.
  void collectTraceModelStates();
  void collectTraceSavedActivations();
  void collectPeak();

  /// Reads what train-remat recorded on `func`, if it ran.
  void collectRemat(FunctionOpInterface func);
  /// Sums the step's collectives by kind and grid axes.
  LogicalResult collectCommunication(FunctionOpInterface func);
  /// Adds the train.p2p sends of a pipeline stage to `result`, as a row
  /// `p2p` over `pp` (PipelineReport.cpp).
  static LogicalResult collectPointToPoint(FunctionOpInterface func,
                                           Communication &result);
  /// create, planning no arena unless `planArena` (the arena is then 0
  /// unless the IR records one): what createForPipeline needs of the stages
  /// it does not report on.
  static FailureOr<MemoryReport> create(FunctionOpInterface func,
                                        bool planArena);
  /// The arena: the plan train-plan-memory recorded in the IR, else one
  /// planned here with the default options when `planArena`.
  LogicalResult collectArena(FunctionOpInterface func, bool planArena);
  /// The model states; fails when `train.precision` cannot be read.
  LogicalResult collectModelStates(FunctionOpInterface func);
  /// The saved activations, from the liveness analysis.
  void collectSavedActivations();

  std::string functionName;
  std::unique_ptr<TensorLiveness> liveness;
  int64_t parameterCount = 0;
  int64_t parameterBytes = 0;
  int64_t totalFlops = 0;
  int64_t numLiveAtPeak = 0;
  int64_t arenaBytes = 0;
  std::optional<int64_t> hostArenaBytes;
  int64_t planAlignment = 0;
  bool arenaFromIR = false;
  std::optional<int64_t> planLoadBytes;
  std::string peakOpName;
  std::string peakLocation;
  std::string peakSource;
  SmallVector<ReportTensor> topTensors;
  std::optional<RematSummary> remat;
  std::optional<Communication> communication;
  std::optional<PipelineSummary> pipeline;
  ModelStates modelStates;
  SavedActivations savedActivations;
  std::optional<EagerTrace> eagerTrace;
  /// The defining op, module ("" outside any) and source of each buffer of
  /// an eager step, by buffer index.
  std::vector<ReportTensor> traceBufferOrigins;
};

} // namespace mlir::memopt

#endif // MEMOPT_REPORT_MEMORYREPORT_H
