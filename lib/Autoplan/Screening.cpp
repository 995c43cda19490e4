//===- Screening.cpp - one candidate's step, planned or screened ----------===//
//
// The memory of a candidate is never a formula: its step is built and
// memopt-pipeline (memopt::buildPipeline, the pass order defined once) runs
// on it: train-precision, train-autodiff, train-shard, gradient accumulation,
// train-verify-step, train-schedule, train-lifetimes, train-remat and, for a
// full plan, train-plan-memory with train-verify-plan. evaluateCandidate
// reads the planned arena of the whole model; screenCandidate composes the
// LOAD and cost of 2 and 3 layers where the model allows it.
//
//===----------------------------------------------------------------------===//

#include "memopt/Autoplan/Autoplan.h"

#include "memopt/Analysis/TensorLiveness.h"
#include "memopt/Dialect/Train/IR/TrainOps.h"
#include "memopt/Pipeline/Pipeline.h"
#include "memopt/Report/MemoryReport.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/Pass/PassManager.h"

#include <chrono>

using namespace mlir;
using namespace mlir::memopt;
using namespace mlir::memopt::autoplan;

/// Whether `module`'s function is already a whole step (has updates).
static bool isWholeStep(ModuleOp module) {
  return module
      .walk([](Operation *op) {
        return isa<train::SgdOp, train::AdamOp, train::AdamWOp>(op)
                   ? WalkResult::interrupt()
                   : WalkResult::advance();
      })
      .wasInterrupted();
}

static func::FuncOp getStepFunction(ModuleOp module) {
  func::FuncOp step;
  module.walk([&](func::FuncOp func) {
    if (!step && !func.isExternal())
      step = func;
  });
  return step;
}

/// The memopt-pipeline options that run the passes of `candidate` on the
/// fp32 model (`whole`: already a whole step, else differentiated with the
/// search's optimizer); `plan` plans the arena.
static void setPipelineOptions(PipelineOptions &pipeline,
                               const SearchOptions &options,
                               const Candidate &candidate, bool whole,
                               bool plan) {
  pipeline.precision = candidate.precision;
  pipeline.autodiff = !whole;
  pipeline.optimizer = options.optimizer;
  pipeline.tp = candidate.tp;
  pipeline.dp = candidate.dp;
  pipeline.zero = candidate.zero;
  pipeline.sequenceParallel = candidate.sequenceParallel;
  pipeline.microBatches = candidate.gradientAccumulation;
  pipeline.pp = candidate.pp;
  pipeline.pipelineSchedule = getPipelineScheduleName(candidate.schedule).str();
  pipeline.pipelineVirtualStages = candidate.virtualStages;
  switch (candidate.remat) {
  case RematChoice::None:
    break;
  case RematChoice::Selective:
    pipeline.rematAlgorithm = RematAlgorithm::Selective;
    break;
  case RematChoice::Full:
    pipeline.rematAlgorithm = RematAlgorithm::Layers;
    break;
  case RematChoice::Greedy:
    pipeline.rematAlgorithm = RematAlgorithm::Greedy;
    // train-remat bounds the LOAD; the arena adds alignment padding and
    // fragmentation, so greedy aims 1% lower. A plan whose arena still
    // misses the budget is TooLarge.
    pipeline.rematBudget =
        std::to_string(options.getBudget() - options.getBudget() / 100);
    pipeline.rematOffload = candidate.offloadActivations;
    pipeline.rematDevice = options.deviceSpec;
    break;
  }
  pipeline.offloadOptimizer = candidate.offloadOptimizer;
  pipeline.offloadParams =
      candidate.copyEveryMicroBatch ? "micro-batch" : "device";
  pipeline.plan = plan;
}

namespace {
/// How a pipelined candidate's step is built: the layers of each stage, the
/// stages whose programs are built, and the micro-batches they unroll.
struct PipelineLayout {
  SmallVector<int64_t> split;
  SmallVector<int64_t> built;
  int64_t microBatches = 1;
  /// The micro-batches the screen adds to extend a stage's bytes linearly:
  /// 1, or the stages under the interleaved schedule (which runs groups of
  /// them).
  int64_t step = 1;
};
} // namespace

/// `layers` over `stages`: the first stage gets `firstLayers` (0: an even
/// share), the others the rest evenly, the remainder one more each on the
/// stages just before the last (they hold the fewest micro-batches in
/// flight under 1F1B; the last holds the head). Builds stage 0, stage 1
/// where the first stage has fewer layers than it, the first stage with an
/// extra layer, and the last: every other stage has no more layers than
/// one of them before it, holds fewer micro-batches in flight, and neither
/// the embedding nor the head, so its peak is not above theirs. Unrolls
/// min(accumulation, stages + 2) micro-batches: 1F1B's steady state is
/// reached by then (at stages + 1 the 175B model's first stage peaked 200
/// MiB lower than from stages + 2 on), and more micro-batches add only
/// their inputs and losses.
static PipelineLayout getPipelineLayout(int64_t layers, int64_t stages,
                                        int64_t accumulation,
                                        int64_t firstLayers) {
  PipelineLayout layout;
  if (firstLayers <= 0)
    firstLayers = layers / stages;
  int64_t rest = layers - firstLayers, others = stages - 1;
  int64_t base = rest / others, extra = rest % others;
  layout.split.push_back(0);
  int64_t first = firstLayers;
  for (int64_t s = 1; s < stages; ++s) {
    layout.split.push_back(first);
    first += base + (s >= stages - 1 - extra && s < stages - 1 ? 1 : 0);
  }
  layout.built.push_back(0);
  if (firstLayers < base && stages > 2)
    layout.built.push_back(1);
  if (extra > 0 && stages - 1 - extra > 0)
    layout.built.push_back(stages - 1 - extra);
  layout.built.push_back(stages - 1);
  llvm::sort(layout.built);
  layout.built.erase(llvm::unique(layout.built), layout.built.end());
  layout.microBatches = std::min(accumulation, stages + 2);
  return layout;
}

/// The layout of `candidate`'s stages: getPipelineLayout's, and under the
/// interleaved schedule an even split of the layers into stages x v chunks
/// (the search tries it where they divide evenly). Then the first stage
/// holds the most chunk passes in flight (2 (p - 1) + (v - 1) p + 1) and
/// the embedding, the last the head, and a stage between has as many
/// layers and fewer passes in flight: only the first and the last are
/// built. They unroll min(accumulation, 3 stages) micro-batches and the
/// screen adds a group of `stages`: from 3 stages on each group adds only
/// its inputs and losses (measured on GPT-2 at 2 and 4 stages; at 2 stages'
/// micro-batches the first stage peaked lower, its steady state too short).
/// ZB-H1 keeps 1F1B's layout: its stage s holds p - s micro-batches whole
/// and s of them only for their weight-gradient parts, fewer bytes the
/// later the stage.
static PipelineLayout getCandidateLayout(int64_t layers,
                                         const Candidate &candidate) {
  int64_t stages = candidate.pp, chunks = stages * candidate.virtualStages;
  if (candidate.schedule != PipelineSchedule::Interleaved)
    return getPipelineLayout(layers, stages, candidate.gradientAccumulation,
                             candidate.firstStageLayers);
  PipelineLayout layout;
  int64_t base = layers / chunks, extra = layers % chunks;
  for (int64_t c = 0, first = 0; c < chunks; ++c) {
    layout.split.push_back(first);
    first += base + (c >= chunks - 1 - extra && c < chunks - 1 ? 1 : 0);
  }
  layout.built = {0, stages - 1};
  layout.microBatches = std::min(candidate.gradientAccumulation, 3 * stages);
  layout.step = stages;
  return layout;
}

/// Runs the passes of `candidate` on `module` (its fp32 model): precision,
/// autodiff, the partition, accumulation or the pipeline (`layout`),
/// schedule, lifetimes, remat and, with `plan`, the arena.
static LogicalResult
runCandidatePasses(MLIRContext &context, ModuleOp module,
                   const SearchOptions &options, const Candidate &candidate,
                   bool plan, const PipelineLayout *layout = nullptr) {
  if (!getStepFunction(module))
    return emitError(module.getLoc(), "the model has no function");
  PipelineOptions pipeline;
  setPipelineOptions(pipeline, options, candidate, isWholeStep(module), plan);
  if (layout) {
    pipeline.schedule = false;
    pipeline.microBatches = layout->microBatches;
    pipeline.pipelineSplit = layout->split;
    pipeline.pipelineOnlyStages = layout->built;
  }
  PassManager pm(&context);
  buildPipeline(pm, pipeline);
  return pm.run(module);
}

FailureOr<OwningOpRef<ModuleOp>> mlir::memopt::autoplan::buildCandidateStep(
    MLIRContext &context, const StepSource &source,
    const SearchOptions &options, const Candidate &candidate) {
  OwningOpRef<ModuleOp> module =
      source.build(context, candidate.microBatch * candidate.dp);
  // Pipelined: every stage, every micro-batch, the search's split.
  std::optional<PipelineLayout> layout;
  if (candidate.pp > 1) {
    layout = getCandidateLayout(source.layers, candidate);
    layout->built.clear();
    layout->microBatches = candidate.gradientAccumulation;
  }
  if (!module ||
      failed(runCandidatePasses(context, *module, options, candidate,
                                /*plan=*/true, layout ? &*layout : nullptr)))
    return failure();
  return module;
}

namespace {
/// Collects the first error diagnostic (with its location) while alive.
struct ErrorCollector {
  explicit ErrorCollector(MLIRContext &context)
      : handler(&context, [this](Diagnostic &diag) {
          if (diag.getSeverity() == DiagnosticSeverity::Error &&
              message.empty())
            message = diag.str();
          return success();
        }) {}
  std::string message;
  ScopedDiagnosticHandler handler;
};

double secondsSince(std::chrono::steady_clock::time_point start) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start)
      .count();
}
} // namespace

/// The verdict on a candidate whose passes failed with `error`:
/// train-remat's failure to reach the budget is a memory verdict.
static void setFailure(Evaluation &evaluation, const std::string &error) {
  evaluation.status = evaluation.candidate.remat == RematChoice::Greedy &&
                              StringRef(error).contains("budget")
                          ? Evaluation::Status::TooLarge
                          : Evaluation::Status::Invalid;
  evaluation.reason = error.empty() ? "the passes failed" : error;
}

static void setTokensPerSecond(Evaluation &evaluation, const StepSource &source,
                               const SearchOptions &options) {
  int64_t tokens = options.globalBatch * source.tokensPerSample;
  evaluation.tokensPerSecond =
      evaluation.cost.stepSeconds > 0
          ? static_cast<double>(tokens) / evaluation.cost.stepSeconds
          : 0.0;
}

/// A candidate that fits the device but whose processes on one node hold
/// more host memory than `options.hostMemory` does not fit.
static void checkHostMemory(Evaluation &evaluation,
                            const SearchOptions &options) {
  int64_t perNode = evaluation.hostPeakBytes * options.getProcessesPerNode();
  if (evaluation.status != Evaluation::Status::Fits || !options.hostMemory ||
      perNode <= *options.hostMemory)
    return;
  evaluation.status = Evaluation::Status::TooLarge;
  evaluation.reason = "the host memory of " + formatBytes(perNode) +
                      " per node exceeds --host-memory " +
                      formatBytes(*options.hostMemory);
}

//===----------------------------------------------------------------------===//
// Pipelined candidates
//===----------------------------------------------------------------------===//

namespace {
/// One built stage of a pipelined candidate's step.
struct StageMeasure {
  int64_t stage = 0;
  /// The planned arena (0 unless planned) and the LOAD; the host's arena
  /// (planned) or LOAD (not).
  int64_t peak = 0, load = 0, hostPeak = 0;
  int64_t modelStates = 0, savedActivations = 0;
  std::string peakOp;
  StepCost cost;
};
} // namespace

/// Builds `candidate`'s step over `microBatches` micro-batches with
/// `layout`'s stages and measures each built stage. Fails with the first
/// error in `error`.
static FailureOr<SmallVector<StageMeasure>>
measureStages(MLIRContext &context, const StepSource &source,
              const SearchOptions &options, const Candidate &candidate,
              PipelineLayout layout, int64_t microBatches, bool plan,
              std::string &error) {
  layout.microBatches = microBatches;
  OwningOpRef<ModuleOp> module;
  bool built = false;
  {
    ErrorCollector errors(context);
    module = source.build(context, candidate.microBatch * candidate.dp);
    built = module && succeeded(runCandidatePasses(context, *module, options,
                                                   candidate, plan, &layout));
    error = errors.message;
  }
  if (!built)
    return failure();
  SmallVector<StageMeasure> stages;
  for (auto func : module->getOps<func::FuncOp>()) {
    auto config = func->getAttrOfType<DictionaryAttr>(
        train::TrainDialect::kPipelineAttrName);
    if (!config)
      continue;
    StageMeasure stage;
    stage.stage = cast<IntegerAttr>(config.get("stage")).getInt();
    stage.cost = estimateStepCost(func, options.device, 1);
    if (!plan) {
      TensorLiveness liveness(func, /*granularity=*/256);
      stage.load = liveness.getLoad();
      stage.hostPeak = liveness.getHostLoad();
      stages.push_back(std::move(stage));
      continue;
    }
    FailureOr<MemoryReport> report = MemoryReport::create(func);
    if (failed(report)) {
      error = "the memory report failed";
      return failure();
    }
    stage.peak = report->getPeakBytes();
    stage.load = report->getPlanLoadBytes().value_or(report->getLoadBytes());
    // The device's part (offloaded states are on the host).
    stage.modelStates = report->getModelStates().getTotalBytes() -
                        report->getModelStates().getHostBytes();
    stage.hostPeak = report->getHostArenaBytes().value_or(
        report->getLiveness().getHostLoad());
    // A stage's forward and backward passes interleave: what it holds for
    // its backward passes is the most activation bytes live at once (the
    // micro-batches in flight), as the report's pipeline table says.
    const TensorLiveness &live = report->getLiveness();
    unsigned activation = static_cast<unsigned>(MemoryClass::Activation);
    for (int64_t point = 0, e = live.getNumPoints(); point < e; ++point)
      stage.savedActivations = std::max(
          stage.savedActivations, live.getLiveBytesByClass(point)[activation]);
    stage.peakOp =
        (report->getPeakOpName() + " at " + report->getPeakLocation() +
         " (stage " + Twine(stage.stage) + ")")
            .str();
    stages.push_back(std::move(stage));
  }
  return stages;
}

/// A pipelined candidate: the whole model's step through train-pipeline
/// with the stages of getPipelineLayout, in 1F1B's order (train-schedule
/// does not reorder a stage: its memory is the schedule's). A screen: each
/// built stage's LOAD at M = min(accumulation, stages + 2) micro-batches
/// and, with more, at M + 1, extended linearly to the accumulation (past M
/// each micro-batch adds only its inputs and its loss, so the extension is
/// exact). A plan (`plan`): each built stage's arena, planned over all the
/// micro-batches (an arena is not linear in them). The highest is the
/// candidate's. Its time: estimatePipelineCost over the built stages.
static Evaluation evaluatePipelined(MLIRContext &context,
                                    const StepSource &source,
                                    const SearchOptions &options,
                                    const Candidate &candidate, bool plan) {
  auto start = std::chrono::steady_clock::now();
  Evaluation evaluation;
  evaluation.candidate = candidate;
  evaluation.planned = plan;
  int64_t ga = candidate.gradientAccumulation;
  PipelineLayout layout = getCandidateLayout(source.layers, candidate);
  int64_t first = plan ? ga : layout.microBatches;
  evaluation.split = layout.split;
  std::string error;
  FailureOr<SmallVector<StageMeasure>> at = measureStages(
      context, source, options, candidate, layout, first, plan, error);
  FailureOr<SmallVector<StageMeasure>> next = at;
  if (succeeded(at) && ga > first)
    next = measureStages(context, source, options, candidate, layout,
                         first + layout.step, plan, error);
  if (failed(at) || failed(next) || at->size() != next->size()) {
    setFailure(evaluation, error);
    evaluation.seconds = secondsSince(start);
    return evaluation;
  }
  SmallVector<StepCost> costs;
  for (auto [a, b] : llvm::zip_equal(*at, *next)) {
    int64_t steps = (ga - first) / layout.step;
    int64_t peak = a.peak + (b.peak - a.peak) * steps;
    int64_t load = a.load + (b.load - a.load) * steps;
    int64_t bytes = plan ? peak : load;
    evaluation.stagePeaks.push_back({a.stage, bytes});
    // The host's peak (the optimizer on the host): each stage's process
    // holds its own part.
    evaluation.hostPeakBytes =
        std::max(evaluation.hostPeakBytes,
                 a.hostPeak + (b.hostPeak - a.hostPeak) * steps);
    if (evaluation.peakStage < 0 ||
        bytes > (plan ? evaluation.peakBytes : evaluation.loadBytes)) {
      evaluation.peakStage = a.stage;
      evaluation.peakBytes = peak;
      evaluation.loadBytes = load;
      evaluation.modelStateBytes = a.modelStates;
      evaluation.savedActivationBytes = a.savedActivations;
      evaluation.peakOp = a.peakOp;
    }
    costs.push_back(a.cost);
  }
  evaluation.cost =
      estimatePipelineCost(costs, first, ga, candidate.pp, candidate.schedule,
                           candidate.virtualStages);
  setTokensPerSecond(evaluation, source, options);
  int64_t bytes = plan ? evaluation.peakBytes : evaluation.loadBytes;
  if (bytes <= options.getBudget()) {
    evaluation.status = Evaluation::Status::Fits;
  } else {
    evaluation.status = Evaluation::Status::TooLarge;
    evaluation.reason = "stage " + std::to_string(evaluation.peakStage) +
                        (plan ? "'s planned arena of " : "'s LOAD of ") +
                        formatBytes(bytes) + " exceeds the budget of " +
                        formatBytes(options.getBudget());
  }
  checkHostMemory(evaluation, options);
  evaluation.seconds = secondsSince(start);
  return evaluation;
}

/// Screens a pipelined candidate with an even split and, where its first
/// stage is the heaviest and misses the budget, with one layer fewer on the
/// first stage at a time (the others take them), until one fits or another
/// stage becomes the heaviest: 1F1B's first stage holds the most
/// micro-batches in flight, so balanced layers are not balanced memory.
/// The most uneven split costs time (the slowest stage has more layers);
/// the candidate carries the split it screened with.
static Evaluation screenPipelined(MLIRContext &context,
                                  const StepSource &source,
                                  const SearchOptions &options,
                                  Candidate candidate) {
  Evaluation evaluation =
      evaluatePipelined(context, source, options, candidate, /*plan=*/false);
  double seconds = evaluation.seconds;
  bool chunked = candidate.schedule == PipelineSchedule::Interleaved;
  // Moving layers off the first stage only adds to the others: where one of
  // them misses the budget already, no lighter first stage fits.
  auto othersFit = [&](const Evaluation &e) {
    return llvm::all_of(e.stagePeaks, [&](std::pair<int64_t, int64_t> peak) {
      return peak.first == 0 || peak.second <= options.getBudget();
    });
  };
  for (int64_t first = source.layers / candidate.pp - 1;
       !chunked && first >= 1 &&
       evaluation.status == Evaluation::Status::TooLarge &&
       evaluation.peakStage == 0 && othersFit(evaluation);
       --first) {
    candidate.firstStageLayers = first;
    evaluation =
        evaluatePipelined(context, source, options, candidate, /*plan=*/false);
    seconds += evaluation.seconds;
  }
  evaluation.seconds = seconds;
  return evaluation;
}

static Evaluation evaluateOnce(MLIRContext &context, const StepSource &source,
                               const SearchOptions &options,
                               const Candidate &candidate) {
  if (candidate.pp > 1)
    return evaluatePipelined(context, source, options, candidate,
                             /*plan=*/true);
  auto start = std::chrono::steady_clock::now();
  Evaluation evaluation;
  evaluation.candidate = candidate;
  evaluation.planned = true;
  FailureOr<OwningOpRef<ModuleOp>> module;
  std::string error;
  {
    ErrorCollector errors(context);
    module = buildCandidateStep(context, source, options, candidate);
    error = errors.message;
  }
  if (failed(module)) {
    setFailure(evaluation, error);
    evaluation.seconds = secondsSince(start);
    return evaluation;
  }
  func::FuncOp step = getStepFunction(**module);
  FailureOr<MemoryReport> report = MemoryReport::create(step);
  if (failed(report)) {
    setFailure(evaluation, "the memory report failed");
    evaluation.seconds = secondsSince(start);
    return evaluation;
  }
  evaluation.peakBytes = report->getPeakBytes();
  evaluation.loadBytes =
      report->getPlanLoadBytes().value_or(report->getLoadBytes());
  // The device's part (offloaded states are on the host).
  evaluation.modelStateBytes = report->getModelStates().getTotalBytes() -
                               report->getModelStates().getHostBytes();
  evaluation.savedActivationBytes = report->getSavedActivations().totalBytes;
  // The host's arena, which the host allocates (its LOAD without one).
  evaluation.hostPeakBytes =
      report->getHostArenaBytes().value_or(report->getLiveness().getHostLoad());
  evaluation.peakOp =
      (report->getPeakOpName() + " at " + report->getPeakLocation()).str();
  evaluation.cost =
      estimateStepCost(step, options.device, candidate.gradientAccumulation);
  setTokensPerSecond(evaluation, source, options);
  if (evaluation.peakBytes <= options.getBudget()) {
    evaluation.status = Evaluation::Status::Fits;
  } else {
    evaluation.status = Evaluation::Status::TooLarge;
    evaluation.reason =
        "the planned arena of " + formatBytes(evaluation.peakBytes) +
        " exceeds the budget of " + formatBytes(options.getBudget());
  }
  checkHostMemory(evaluation, options);
  evaluation.seconds = secondsSince(start);
  return evaluation;
}

/// One point of a composition: the LOAD (at the planner's 256-byte
/// alignment), the host's LOAD and the cost of `candidate` on the model of
/// `layers` layers, without planning.
struct LayersPoint {
  int64_t load = 0;
  int64_t hostLoad = 0;
  StepCost cost;
};
static FailureOr<LayersPoint> measureLayers(MLIRContext &context,
                                            const StepSource &source,
                                            const SearchOptions &options,
                                            const Candidate &candidate,
                                            int64_t layers) {
  OwningOpRef<ModuleOp> module =
      source.buildLayers(context, candidate.microBatch * candidate.dp, layers);
  if (!module || failed(runCandidatePasses(context, *module, options, candidate,
                                           /*plan=*/false)))
    return failure();
  func::FuncOp step = getStepFunction(*module);
  TensorLiveness liveness(step, /*granularity=*/256);
  return LayersPoint{
      liveness.getLoad(), liveness.getHostLoad(),
      estimateStepCost(step, options.device, candidate.gradientAccumulation)};
}

/// a + (b - a) * (n - 2), for values at 2 and 3 layers composed to n.
template <typename T> static T extend(T a, T b, int64_t n) {
  return a + (b - a) * static_cast<T>(n - 2);
}

static Evaluation screenOnce(MLIRContext &context, const StepSource &source,
                             const SearchOptions &options,
                             const Candidate &candidate) {
  // A stage holds a share of the layers and several micro-batches: no
  // composition from 2 and 3 layers; the built stages' LOAD instead.
  if (candidate.pp > 1)
    return screenPipelined(context, source, options, candidate);
  if (!source.canCompose())
    return evaluateOnce(context, source, options, candidate);
  auto start = std::chrono::steady_clock::now();
  Evaluation evaluation;
  evaluation.candidate = candidate;
  // The LOAD and cost at 2 and 3 layers.
  int64_t loads[2] = {0, 0}, hostLoads[2] = {0, 0};
  StepCost costs[2];
  std::string error;
  bool measured = true;
  {
    ErrorCollector errors(context);
    for (int64_t layers : {2, 3}) {
      FailureOr<LayersPoint> point =
          measureLayers(context, source, options, candidate, layers);
      if (failed(point)) {
        measured = false;
        break;
      }
      loads[layers - 2] = point->load;
      hostLoads[layers - 2] = point->hostLoad;
      costs[layers - 2] = point->cost;
    }
    error = errors.message;
  }
  if (!measured) {
    setFailure(evaluation, error);
    evaluation.seconds = secondsSince(start);
    return evaluation;
  }
  int64_t n = source.layers;
  evaluation.loadBytes = extend(loads[0], loads[1], n);
  evaluation.hostPeakBytes = extend(hostLoads[0], hostLoads[1], n);
  const StepCost &a = costs[0], &b = costs[1];
  StepCost &cost = evaluation.cost;
  cost.microBatchSeconds = extend(a.microBatchSeconds, b.microBatchSeconds, n);
  cost.recomputeSeconds = extend(a.recomputeSeconds, b.recomputeSeconds, n);
  cost.tensorParallelSeconds =
      extend(a.tensorParallelSeconds, b.tensorParallelSeconds, n);
  cost.dataParallelSeconds =
      extend(a.dataParallelSeconds, b.dataParallelSeconds, n);
  cost.optimizerSeconds = extend(a.optimizerSeconds, b.optimizerSeconds, n);
  cost.hostSeconds = extend(a.hostSeconds, b.hostSeconds, n);
  cost.hostLinkSeconds = extend(a.hostLinkSeconds, b.hostLinkSeconds, n);
  cost.stepSeconds = extend(a.stepSeconds, b.stepSeconds, n);
  cost.flops = extend(a.flops, b.flops, n);
  cost.recomputeFlops = extend(a.recomputeFlops, b.recomputeFlops, n);
  cost.sentBytes = extend(a.sentBytes, b.sentBytes, n);
  setTokensPerSecond(evaluation, source, options);
  if (evaluation.loadBytes <= options.getBudget()) {
    evaluation.status = Evaluation::Status::Fits;
  } else {
    evaluation.status = Evaluation::Status::TooLarge;
    evaluation.reason = "its LOAD of " + formatBytes(evaluation.loadBytes) +
                        " (composed from 2 and 3 layers) exceeds the budget "
                        "of " +
                        formatBytes(options.getBudget());
  }
  checkHostMemory(evaluation, options);
  evaluation.seconds = secondsSince(start);
  return evaluation;
}

/// `run` on `candidate`, and where the optimizer is on the host under
/// gradient accumulation and that misses the device's budget, on the
/// candidate that copies the weights every micro-batch instead of keeping
/// them on the device across micro-batches (less device memory, more link
/// time): the second where it fits or peaks lower.
static Evaluation
withWeightCopies(const SearchOptions &options, const Candidate &candidate,
                 function_ref<Evaluation(const Candidate &)> run) {
  Evaluation evaluation = run(candidate);
  int64_t deviceBytes =
      evaluation.planned ? evaluation.peakBytes : evaluation.loadBytes;
  if (evaluation.status != Evaluation::Status::TooLarge ||
      deviceBytes <= options.getBudget() || !candidate.offloadOptimizer ||
      candidate.copyEveryMicroBatch || candidate.gradientAccumulation < 2 ||
      candidate.pp > 1)
    return evaluation;
  Candidate perMicroBatch = candidate;
  perMicroBatch.copyEveryMicroBatch = true;
  Evaluation second = run(perMicroBatch);
  second.seconds += evaluation.seconds;
  bool lower = second.planned ? second.peakBytes < evaluation.peakBytes
                              : second.loadBytes < evaluation.loadBytes;
  if (second.status == Evaluation::Status::Fits ||
      (second.status == Evaluation::Status::TooLarge && lower))
    return second;
  evaluation.seconds = second.seconds;
  return evaluation;
}

Evaluation mlir::memopt::autoplan::evaluateCandidate(
    MLIRContext &context, const StepSource &source,
    const SearchOptions &options, const Candidate &candidate) {
  return withWeightCopies(options, candidate, [&](const Candidate &c) {
    return evaluateOnce(context, source, options, c);
  });
}

Evaluation mlir::memopt::autoplan::screenCandidate(MLIRContext &context,
                                                   const StepSource &source,
                                                   const SearchOptions &options,
                                                   const Candidate &candidate) {
  return withWeightCopies(options, candidate, [&](const Candidate &c) {
    return screenOnce(context, source, options, c);
  });
}
