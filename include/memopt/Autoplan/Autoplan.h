//===- Autoplan.h - the fastest training configuration that fits -*- C++
//-*-===//
//
// mem-autoplan's search (docs/autoplan.md). A candidate is a micro-batch, a
// precision mode, a tensor-parallel degree with or without sequence
// parallelism, the data-parallel degree the devices leave, a ZeRO stage and
// a rematerialization choice. Its per-process memory is never a formula:
// the search builds the candidate's step, runs the real passes on it
// (memopt-pipeline: train-precision, train-autodiff, train-shard,
// train-accumulate-gradients, train-schedule, train-lifetimes, train-remat,
// train-plan-memory) and reads the planned arena. Its time is an estimate from
// a documented cost model (estimateStepCost) over a device profile.
//
//===----------------------------------------------------------------------===//

#ifndef MEMOPT_AUTOPLAN_AUTOPLAN_H
#define MEMOPT_AUTOPLAN_AUTOPLAN_H

#include "memopt/Analysis/PipelineSchedule.h"
#include "memopt/Autoplan/DeviceProfile.h"
#include "memopt/Dialect/Train/IR/Precision.h"
#include "memopt/Transforms/Passes.h"

#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/OwningOpRef.h"

#include <functional>
#include <optional>
#include <string>

namespace mlir::memopt::autoplan {

/// What a candidate recomputes: nothing; the attention scores (Korthikanti's
/// selective recomputation, train-remat algorithm=selective); everything
/// but the layer boundaries (full recomputation, algorithm=layers); or what
/// train-remat's greedy algorithm drops to fit the device's budget.
enum class RematChoice { None, Selective, Full, Greedy };
StringRef getRematChoiceName(RematChoice choice);
std::optional<RematChoice> parseRematChoice(StringRef name);

struct Candidate {
  /// Samples per process per micro-batch, and micro-batches per step.
  int64_t microBatch = 1;
  int64_t gradientAccumulation = 1;
  train::PrecisionMode precision = train::PrecisionMode::BF16Mixed;
  int64_t tp = 1;
  bool sequenceParallel = false;
  int64_t dp = 1;
  /// Pipeline stages (over gradientAccumulation micro-batches; ZeRO 0),
  /// their schedule and model chunks a stage (2 interleaved, else 1), and
  /// the first stage's layers (0: an even split; fewer where the first
  /// stage would not fit).
  int64_t pp = 1;
  PipelineSchedule schedule = PipelineSchedule::OneFOneB;
  int64_t virtualStages = 1;
  int64_t firstStageLayers = 0;
  int64_t zero = 0;
  RematChoice remat = RematChoice::None;
  /// Host memory (docs/offload.md): the optimizer's updates, fp32 masters
  /// and states on the host (train-offload), and activations offloaded by
  /// greedy's train-remat (offload=true). With the optimizer on the host
  /// and gradient accumulation, `copyEveryMicroBatch` makes the device copy
  /// the weights every micro-batch (train-offload params=micro-batch)
  /// instead of keeping them across the micro-batches.
  bool offloadOptimizer = false;
  bool offloadActivations = false;
  bool copyEveryMicroBatch = false;

  /// ` offload=optimizer`, ` offload=activations` (greedy only),
  /// ` offload=optimizer+activations`, or empty; with ` (weights copied
  /// every micro-batch)` after the optimizer where copyEveryMicroBatch.
  std::string describeOffload() const;

  /// `mb=4 ga=16 bf16-mixed tp=2 sp dp=4 zero=1 remat=selective`, with
  /// `pp=8` (and `zb-h1`, or `interleaved v=2`) after the tensor-parallel
  /// degree when pipelined.
  std::string describe() const;
  /// `` for 1F1B, ` zb-h1`, ` interleaved v=2`.
  std::string describeSchedule() const;
};

/// The cost model's estimate of one optimizer step (docs/autoplan.md): each
/// op takes max(FLOPs / peak rate, bytes / HBM bandwidth); each collective
/// its ring time over the link its group spans; nothing overlaps.
struct StepCost {
  /// Per micro-batch: every op but the optimizer updates and the
  /// data-parallel collectives (recomputation included).
  double microBatchSeconds = 0;
  /// The part of microBatchSeconds spent recomputing.
  double recomputeSeconds = 0;
  /// The part of microBatchSeconds in tensor-parallel collectives.
  double tensorParallelSeconds = 0;
  /// The part of microBatchSeconds in data-parallel collectives (gradient
  /// reductions; ZeRO 3's gathers).
  double dataParallelSeconds = 0;
  /// Per step: the optimizer updates, and ZeRO 1 and 2's gathers of the
  /// updated weights.
  double optimizerSeconds = 0;
  /// Host memory: the host's ops at its memory bandwidth (the updates per
  /// step, the others, such as gradient accumulation, per micro-batch), and
  /// the copies' time the compute does not hide (per micro-batch, in
  /// microBatchSeconds; train-remat's overlap model, estimateStepTime).
  double hostSeconds = 0;
  double hostLinkSeconds = 0;
  /// Pipelined: the part of microBatchSeconds in point-to-point transfers
  /// between stages, and the schedule's idle time per step (the bubble).
  double pipelineSeconds = 0;
  double bubbleSeconds = 0;
  /// A ZB-H1 stage: the part of microBatchSeconds in the backward passes'
  /// weight-gradient parts (what no transfer and no loss waits for; the
  /// parameters' gradients and their sums).
  double weightGradientSeconds = 0;
  /// microBatchSeconds * accumulation + optimizerSeconds; pipelined,
  /// (accumulation + stages - 1) * microBatchSeconds + optimizerSeconds of
  /// the slowest stage.
  double stepSeconds = 0;
  /// Per micro-batch (of the unrolled program: all its micro-batches): the
  /// FLOPs and sent bytes that stepSeconds multiplies.
  int64_t microBatchFlops = 0;
  int64_t microBatchSentBytes = 0;
  /// Per step, summed over the micro-batches.
  int64_t flops = 0;
  int64_t recomputeFlops = 0;
  /// Bytes each process sends per step (ring algorithms).
  int64_t sentBytes = 0;
};

/// Estimates `step` (one process's micro-batch step) run
/// `gradientAccumulation` times per optimizer step on `device`: the
/// optimizer updates (and ZeRO 1 and 2's data-parallel gathers of the
/// updated weights) once per step, every other op (collectives and
/// accumulation included) once per micro-batch.
StepCost estimateStepCost(func::FuncOp step, const DeviceProfile &device,
                          int64_t gradientAccumulation);

/// The step of `stages` pipeline stages over `microBatches` micro-batches
/// under `schedule` from the costs of the stage programs estimateStepCost
/// gave (each unrolled over `built` micro-batches, accumulation 1): each
/// micro-batch slot takes the slowest stage's time per micro-batch (all its
/// chunks); the schedule runs microBatches slots and idles (stages - 1)
/// slots (1F1B, GPipe), (stages - 1) / virtualStages slots (interleaved),
/// or (stages - 1) times a slot less twice its weight-gradient part (ZB-H1,
/// Qi et al.'s (p - 1)(F + B - W)); then the slowest stage's updates and,
/// with the optimizer on the host, the most host time of a stage (its
/// updates there and its copies, once a step: a stage sums its
/// micro-batches' gradients on the device).
StepCost
estimatePipelineCost(ArrayRef<StepCost> stageCosts, int64_t built,
                     int64_t microBatches, int64_t stages,
                     PipelineSchedule schedule = PipelineSchedule::OneFOneB,
                     int64_t virtualStages = 1);

/// The model the search partitions.
struct StepSource {
  /// Builds the fp32 forward + loss function (or a whole fp32 training step)
  /// for `batch` samples, as the only function of a new module; on failure
  /// it has emitted a diagnostic and returns null.
  std::function<OwningOpRef<ModuleOp>(MLIRContext &, int64_t batch)> build;
  /// For a model of identical layers: builds it with `layers` layers, and
  /// the model's own layer count. The search then screens candidates on 2
  /// and 3 layers and composes (docs/autoplan.md).
  std::function<OwningOpRef<ModuleOp>(MLIRContext &, int64_t batch,
                                      int64_t layers)>
      buildLayers;
  int64_t layers = 0;
  /// A step file fixes its batch: micro-batch * dp must equal it.
  std::optional<int64_t> fixedBatch;
  /// Tokens per sample (the sequence length; 1 for other models).
  int64_t tokensPerSample = 1;

  /// Whether screening composes (a model of more than 6 identical layers:
  /// below, planning the whole model costs no more than two screens).
  bool canCompose() const { return buildLayers && layers > 6; }
};

struct SearchOptions {
  DeviceProfile device;
  int64_t devices = 1;
  /// Per device; the arena must fit in deviceMemory - reserve.
  int64_t deviceMemory = 0;
  int64_t reserve = 0;
  /// Samples per optimizer step over all processes.
  int64_t globalBatch = 1;
  SmallVector<train::PrecisionMode> precisions;
  /// Empty: every divisor of `devices`.
  SmallVector<int64_t> tensorParallel;
  /// Pipeline stages. Empty: 1 and, for a precision and tensor-parallel
  /// degree where keeping everything without ZeRO does not fit, the next
  /// stage counts (divisors of the devices left, at most the layers) up to
  /// the first at which it fits.
  SmallVector<int64_t> pipelineParallel;
  /// The schedules a pipelined candidate that fits under 1F1B is also
  /// tried with (ZB-H1; interleaved with 2 chunks a stage where the layers
  /// split evenly into them and the micro-batches into groups of the
  /// stages).
  SmallVector<PipelineSchedule> pipelineSchedules = {
      PipelineSchedule::OneFOneB, PipelineSchedule::ZeroBubbleH1,
      PipelineSchedule::Interleaved};
  SmallVector<bool> sequenceParallel = {false, true};
  SmallVector<int64_t> zeroStages = {0, 1, 2, 3};
  SmallVector<RematChoice> remat = {RematChoice::None, RematChoice::Selective,
                                    RematChoice::Full, RematChoice::Greedy};
  /// Empty: the powers of two that divide the global batch per process.
  SmallVector<int64_t> microBatches;
  AutodiffOptimizer optimizer = AutodiffOptimizer::AdamW;
  /// The fitting plans to find (the rows of the ranked table).
  unsigned top = 10;
  /// Plan every composed screen in full too, and count the differences
  /// (tests of the composition; slow).
  bool checkComposition = false;
  /// Host memory: what is offloaded, in rounds. `Auto`: nothing, and where
  /// nothing fits, a round with activations and then one with the
  /// optimizer and activations offloaded; the others search those rounds
  /// (`All`: both) always.
  enum class OffloadMode { Auto, None, Activations, Optimizer, All };
  OffloadMode offload = OffloadMode::Auto;
  /// Host memory per node (nothing: no limit); the device profile (name or
  /// path) train-remat's offload cost model reads.
  std::optional<int64_t> hostMemory;
  std::string deviceSpec = "h100";
  /// Processes that share one node's host memory.
  int64_t getProcessesPerNode() const {
    return std::min(devices, device.devicesPerNode);
  }

  int64_t getBudget() const { return deviceMemory - reserve; }
};

struct Evaluation {
  Candidate candidate;
  enum class Status {
    /// The planned arena fits the budget.
    Fits,
    /// It does not (or train-remat cannot reach the budget).
    TooLarge,
    /// The passes refused the candidate (reason).
    Invalid
  };
  Status status = Status::Invalid;
  std::string reason;
  /// Whether the numbers come from the planned step of the whole model;
  /// else from a screen composed from 2 and 3 layers (LOAD and cost only,
  /// no arena).
  bool planned = false;
  /// The planned arena per process (0 when Invalid or not planned), the
  /// LOAD at the planner's alignment, and what the memory report
  /// attributes.
  int64_t peakBytes = 0;
  int64_t loadBytes = 0;
  int64_t modelStateBytes = 0;
  /// Pipelined: the most activation bytes the heaviest stage holds at once.
  int64_t savedActivationBytes = 0;
  /// The host's peak per process (0 without offload; the LOAD of its
  /// buffers, composed like the device's in a screen).
  int64_t hostPeakBytes = 0;
  /// The op at the peak (`train.matmul at h.3.mlp.grad`).
  std::string peakOp;
  /// Pipelined: the stage whose peak is the candidate's, and every built
  /// stage's peak (planned arena or LOAD) by stage.
  int64_t peakStage = -1;
  SmallVector<std::pair<int64_t, int64_t>> stagePeaks;
  /// Pipelined: the index of each stage's first layer (train-pipeline's
  /// split).
  SmallVector<int64_t> split;
  StepCost cost;
  double tokensPerSecond = 0;
  double seconds = 0; // wall-clock time the evaluation took
};

struct SearchResult {
  /// Every evaluated candidate (screens and full plans).
  std::vector<Evaluation> evaluations;
  /// The candidates the search space holds; those monotonicity pruned
  /// without running the passes; those screened; those planned in full.
  int64_t numCandidates = 0;
  int64_t numPruned = 0;
  int64_t numScreened = 0;
  int64_t numPlanned = 0;
  /// Composed screens also planned in full, and those whose LOAD, FLOPs or
  /// sent bytes differ from the full plan's (0 when the layers compose
  /// exactly, as on the generated transformers).
  int64_t numCompositionChecks = 0;
  int64_t numCompositionMismatches = 0;
  /// The fastest fitting plans (at most `top`), fastest first, each planned
  /// in full.
  std::vector<Evaluation> ranked;
  /// When nothing fits: the candidate of least per-process peak, planned in
  /// full.
  std::optional<Evaluation> smallest;
  /// Whether a round offloaded to host memory (SearchOptions::offload).
  bool offloadSearched = false;
};

/// A search as a user states it (mem-autoplan's options, train-autoplan's
/// pass options): names and sizes as text, empty lists for the defaults.
struct SearchRequest {
  int64_t devices = 1;
  std::string device = "h100";
  /// Empty: the profile's memory.
  std::string deviceMemory;
  std::string reserve = "1GiB";
  /// Nothing when not given (an error: it is required).
  std::optional<int64_t> globalBatch;
  SmallVector<std::string> precisions;
  SmallVector<int64_t> tensorParallel;
  SmallVector<int64_t> pipelineParallel;
  SmallVector<std::string> pipelineSchedules;
  SmallVector<int64_t> zeroStages;
  SmallVector<std::string> sequenceParallel;
  SmallVector<std::string> remat;
  SmallVector<int64_t> microBatches;
  std::string optimizer = "adamw";
  unsigned top = 10;
  /// auto, none, activations, optimizer or all; host memory per node (empty:
  /// no limit).
  std::string offload = "auto";
  std::string hostMemory;
};

/// Checks `request` against the model of `source` and resolves its
/// defaults (docs/autoplan.md#options); the error names the offending
/// option as the command line spells it.
llvm::Expected<SearchOptions> makeSearchOptions(const SearchRequest &request,
                                                const StepSource &source);

/// The model of a module holding one function with a body: a step or a
/// forward + loss function of fixed batch (its first argument's first
/// dimension). Tokens per sample: the elements after the batch dimension of
/// an integer first argument, else 1. Fails with a diagnostic.
FailureOr<StepSource> getModuleSource(ModuleOp module);

/// `bytes` in KiB, MiB, GiB or TiB with two decimals ("79.00 GiB"), or in
/// bytes below 1 KiB.
std::string formatSize(int64_t bytes);

/// The message when no candidate fits (or none could be built): the
/// smallest per-process peak reached, by which configuration, and what
/// holds it. `model` names the model.
std::string describeNoFit(const SearchResult &result,
                          const SearchOptions &options, StringRef model);

/// Builds and plans `candidate`'s step: the module that holds it (one
/// process's program). Fails with a diagnostic.
FailureOr<OwningOpRef<ModuleOp>>
buildCandidateStep(MLIRContext &context, const StepSource &source,
                   const SearchOptions &options, const Candidate &candidate);

/// Evaluates one candidate (memory from the planned step, time from the cost
/// model).
Evaluation evaluateCandidate(MLIRContext &context, const StepSource &source,
                             const SearchOptions &options,
                             const Candidate &candidate);

/// Screens one candidate: where the source composes, its LOAD and cost on 2
/// and 3 layers, extended linearly to the model's layers (exact when every
/// layer adds the same ops and buffers); else evaluateCandidate.
Evaluation screenCandidate(MLIRContext &context, const StepSource &source,
                           const SearchOptions &options,
                           const Candidate &candidate);

/// Searches the candidates of `options` (docs/autoplan.md). Phase 1 screens
/// them with monotonicity pruning: a larger micro-batch never needs less
/// memory, nor does a lower ZeRO stage, so micro-batches are tried in
/// increasing order until one does not fit, from the highest stage down;
/// and recomputation only runs where keeping everything did not fit. Phase
/// 2 plans the screened candidates in full, fastest first, until `top` fit.
SearchResult
search(MLIRContext &context, const StepSource &source,
       const SearchOptions &options,
       llvm::function_ref<void(const Evaluation &)> progress = nullptr);

/// The largest micro-batch of one configuration that fits one device
/// (fine-tuning's question: `mem-autoplan --devices 1` without
/// `--global-batch`).
struct FitRow {
  /// The configuration (tp = dp = 1, no accumulation); its micro-batch is
  /// the found one's.
  Candidate candidate;
  /// The largest micro-batch that fits, planned in full; none when even a
  /// micro-batch of 1 does not fit.
  std::optional<Evaluation> largest;
  /// The first screen that did not fit (the next micro-batch up), and why a
  /// screen was invalid, if one was.
  std::optional<Evaluation> smallest;
  std::string reason;
  int64_t screens = 0;
  int64_t plans = 0;
};

/// Finds the largest micro-batch of `candidate` (at most `maxMicroBatch`)
/// whose step fits `options`' budget: screens by doubling from 1 and then
/// bisection (a larger micro-batch never needs less memory), then plans the
/// found one in full, one less while the planned arena does not fit.
FitRow findLargestFit(MLIRContext &context, const StepSource &source,
                      const SearchOptions &options, const Candidate &candidate,
                      int64_t maxMicroBatch);

} // namespace mlir::memopt::autoplan

#endif // MEMOPT_AUTOPLAN_AUTOPLAN_H
