//===- Autoplan.cpp - mem-autoplan's search and cost model ----------------===//

#include "memopt/Autoplan/Autoplan.h"

#include "memopt/Analysis/TensorLiveness.h"
#include "memopt/Dialect/Train/IR/TrainInterfaces.h"
#include "memopt/Dialect/Train/IR/TrainOps.h"
#include "memopt/Dialect/Train/IR/TrainStep.h"
#include "memopt/Report/MemoryReport.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Shard/IR/ShardOps.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/SymbolTable.h"
#include "mlir/Pass/PassManager.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/StringSwitch.h"
#include "llvm/Support/FormatVariadic.h"

#include <chrono>
#include <map>
#include <tuple>

using namespace mlir;
using namespace mlir::memopt;
using namespace mlir::memopt::autoplan;

StringRef mlir::memopt::autoplan::getRematChoiceName(RematChoice choice) {
  switch (choice) {
  case RematChoice::None:
    return "none";
  case RematChoice::Selective:
    return "selective";
  case RematChoice::Full:
    return "full";
  case RematChoice::Greedy:
    return "greedy";
  }
  llvm_unreachable("unknown remat choice");
}

std::optional<RematChoice>
mlir::memopt::autoplan::parseRematChoice(StringRef name) {
  return llvm::StringSwitch<std::optional<RematChoice>>(name)
      .Case("none", RematChoice::None)
      .Case("selective", RematChoice::Selective)
      .Case("full", RematChoice::Full)
      .Case("greedy", RematChoice::Greedy)
      .Default(std::nullopt);
}

std::string Candidate::describe() const {
  std::string text =
      llvm::formatv(
          "mb={0} ga={1} {2} tp={3}{4} dp={5} zero={6} remat={7}", microBatch,
          gradientAccumulation, train::stringifyPrecisionMode(precision), tp,
          sequenceParallel ? " sp" : "", dp, zero, getRematChoiceName(remat))
          .str();
  return text;
}

//===----------------------------------------------------------------------===//
// Gradient accumulation
//===----------------------------------------------------------------------===//

LogicalResult
mlir::memopt::autoplan::addGradientAccumulation(func::FuncOp step) {
  SmallVector<Operation *> updates;
  step.walk([&](Operation *op) {
    if (isa<train::SgdOp, train::AdamOp, train::AdamWOp>(op))
      updates.push_back(op);
  });
  if (updates.empty())
    return step.emitError("gradient accumulation needs a step with optimizer "
                          "updates (train-autodiff with an optimizer)");
  OpBuilder builder(step.getContext());
  for (Operation *update : updates) {
    OpOperand &gradOperand = update->getOpOperand(1);
    Value param = update->getOperand(0);
    auto paramOp = param.getDefiningOp<train::ParamOp>();
    if (!paramOp)
      return update->emitOpError("updates a value that is not a train.param");
    builder.setInsertionPoint(update);
    Location loc = update->getLoc();
    Value buffer = train::OptStateOp::create(
        builder, loc, param.getType(),
        (paramOp.getName() + ".grad_accumulator").str());
    train::AccumulateOp::create(builder, loc, buffer, gradOperand.get());
    gradOperand.set(buffer);
  }
  return success();
}

//===----------------------------------------------------------------------===//
// Cost model
//===----------------------------------------------------------------------===//

/// The seconds `op` takes by the roofline: its FLOPs at the peak rate of the
/// unit it runs on, or its bytes at the HBM bandwidth, whichever is longer.
static double getOpSeconds(train::CostOpInterface cost,
                           const DeviceProfile &device) {
  Operation *op = cost.getOperation();
  double flops = static_cast<double>(cost.getFlops());
  double rate = device.fp32Flops;
  // Matmuls, convolutions and attention run on tensor cores at their
  // operands' type (fp8 matmuls read fp8 operands).
  if (isa<train::MatmulOp, train::ScaledMatmulOp, train::AttentionOp,
          train::AttentionGradOp, train::Conv2dOp, train::Conv2dGradInputOp,
          train::Conv2dGradFilterOp>(op)) {
    Type elementType = getElementTypeOrSelf(op->getOperand(0).getType());
    double tensorRate = device.getTensorCoreFlops(elementType);
    if (tensorRate > 0)
      rate = tensorRate;
  }
  double bytes =
      static_cast<double>(cost.getBytesRead() + cost.getBytesWritten());
  return std::max(flops / rate, bytes / device.hbmBytesPerSecond);
}

StepCost
mlir::memopt::autoplan::estimateStepCost(func::FuncOp step,
                                         const DeviceProfile &device,
                                         int64_t gradientAccumulation) {
  StepCost cost;
  double microSeconds = 0, recomputeSeconds = 0, tpSeconds = 0, dpSeconds = 0,
         optimizerSeconds = 0, stepCommSeconds = 0;
  int64_t microFlops = 0, stepFlops = 0, recomputeFlops = 0, microSent = 0,
          stepSent = 0;
  // ZeRO 1 and 2 keep whole weights between steps: their data-parallel
  // gathers of the updated parts run once per step. ZeRO 3 gathers for
  // every micro-batch.
  int64_t zero = 0;
  if (auto config = step->getAttrOfType<DictionaryAttr>(
          train::TrainDialect::kShardAttrName))
    if (auto attr = dyn_cast_or_null<IntegerAttr>(config.get("zero")))
      zero = attr.getInt();
  step.walk([&](Operation *op) {
    bool recomputed = op->hasAttr(train::TrainDialect::kRecomputedAttrName);
    if (isa<shard::AllReduceOp, shard::AllGatherOp, shard::ReduceScatterOp>(
            op)) {
      auto gridAttr = op->getAttrOfType<FlatSymbolRefAttr>("grid");
      auto grid = gridAttr
                      ? SymbolTable::lookupNearestSymbolFrom<shard::GridOp>(
                            op, gridAttr.getAttr())
                      : shard::GridOp();
      if (!grid || ShapedType::isDynamicShape(grid.getShape()))
        return;
      ArrayRef<int64_t> shape = grid.getShape();
      ArrayRef<int16_t> axes;
      if (auto attr = op->getAttrOfType<DenseI16ArrayAttr>("grid_axes"))
        axes = attr.asArrayRef();
      // Processes are numbered row-major (the last axis fastest): the group
      // of process 0 reaches process sum((extent - 1) * stride), and spans
      // nodes when that process is outside process 0's node.
      int64_t groupSize = 1, farthest = 0;
      bool dataParallel = false;
      for (int16_t axis : axes) {
        int64_t stride = 1;
        for (size_t i = axis + 1; i < shape.size(); ++i)
          stride *= shape[i];
        groupSize *= shape[axis];
        farthest += (shape[axis] - 1) * stride;
        dataParallel |= axis == 0;
      }
      if (groupSize <= 1)
        return;
      int64_t bytes =
          std::max(train::getTensorBytes(op->getOperand(0).getType()),
                   train::getTensorBytes(op->getResult(0).getType()));
      int64_t sent = (isa<shard::AllReduceOp>(op) ? 2 : 1) * bytes *
                     (groupSize - 1) / groupSize;
      double bandwidth = farthest >= device.devicesPerNode
                             ? device.interNodeBytesPerSecond
                             : device.intraNodeBytesPerSecond;
      double seconds = static_cast<double>(sent) / bandwidth;
      if (dataParallel && (zero == 1 || zero == 2) &&
          isa<shard::AllGatherOp>(op)) {
        stepSent += sent;
        stepCommSeconds += seconds;
        return;
      }
      microSent += sent;
      microSeconds += seconds;
      (dataParallel ? dpSeconds : tpSeconds) += seconds;
      if (recomputed)
        recomputeSeconds += seconds;
      return;
    }
    auto costOp = dyn_cast<train::CostOpInterface>(op);
    if (!costOp)
      return;
    double seconds = getOpSeconds(costOp, device);
    int64_t flops = costOp.getFlops();
    // The updates run once per optimizer step; everything else (gradient
    // accumulation included) once per micro-batch.
    if (isa<train::SgdOp, train::AdamOp, train::AdamWOp>(op)) {
      optimizerSeconds += seconds;
      stepFlops += flops;
      return;
    }
    microSeconds += seconds;
    microFlops += flops;
    if (recomputed) {
      recomputeSeconds += seconds;
      recomputeFlops += flops;
    }
  });
  cost.microBatchSeconds = microSeconds;
  cost.recomputeSeconds = recomputeSeconds;
  cost.tensorParallelSeconds = tpSeconds;
  cost.dataParallelSeconds = dpSeconds;
  cost.optimizerSeconds = optimizerSeconds + stepCommSeconds;
  cost.stepSeconds =
      microSeconds * gradientAccumulation + cost.optimizerSeconds;
  cost.flops = microFlops * gradientAccumulation + stepFlops;
  cost.recomputeFlops = recomputeFlops * gradientAccumulation;
  cost.sentBytes = microSent * gradientAccumulation + stepSent;
  return cost;
}

//===----------------------------------------------------------------------===//
// One candidate
//===----------------------------------------------------------------------===//

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

/// Runs the passes of `candidate` on `module` (its fp32 model): precision,
/// autodiff, the partition, accumulation, schedule, lifetimes, remat and,
/// with `plan`, the arena.
static LogicalResult runCandidatePasses(MLIRContext &context, ModuleOp module,
                                        const SearchOptions &options,
                                        const Candidate &candidate, bool plan) {
  bool whole = isWholeStep(module);
  PassManager front(&context);
  if (candidate.precision != train::PrecisionMode::FP32) {
    TrainPrecisionPassOptions precision;
    precision.mode = candidate.precision;
    front.addNestedPass<func::FuncOp>(createTrainPrecisionPass(precision));
  }
  if (!whole) {
    TrainAutodiffPassOptions autodiff;
    autodiff.optimizer = options.optimizer;
    front.addNestedPass<func::FuncOp>(createTrainAutodiffPass(autodiff));
  }
  if (candidate.tp != 1 || candidate.dp != 1 || candidate.zero != 0 ||
      candidate.sequenceParallel) {
    TrainShardPassOptions shard;
    shard.tp = candidate.tp;
    shard.dp = candidate.dp;
    shard.zero = candidate.zero;
    shard.sequenceParallel = candidate.sequenceParallel;
    front.addPass(createTrainShardPass(shard));
  }
  if (failed(front.run(module)))
    return failure();

  func::FuncOp step = getStepFunction(module);
  if (!step)
    return emitError(module.getLoc(), "the model has no function");
  if (candidate.gradientAccumulation > 1 &&
      failed(addGradientAccumulation(step)))
    return failure();

  PassManager back(&context);
  OpPassManager &nested = back.nest<func::FuncOp>();
  nested.addPass(createTrainVerifyStepPass());
  nested.addPass(createTrainSchedulePass());
  nested.addPass(createTrainLifetimesPass());
  if (candidate.remat != RematChoice::None) {
    TrainRematPassOptions remat;
    switch (candidate.remat) {
    case RematChoice::Selective:
      remat.algorithm = RematAlgorithm::Selective;
      break;
    case RematChoice::Full:
      remat.algorithm = RematAlgorithm::Layers;
      break;
    case RematChoice::Greedy:
      remat.algorithm = RematAlgorithm::Greedy;
      // train-remat bounds the LOAD; the arena adds alignment padding and
      // fragmentation, so greedy aims 1% lower. A plan whose arena still
      // misses the budget is TooLarge.
      remat.budget =
          std::to_string(options.getBudget() - options.getBudget() / 100);
      break;
    case RematChoice::None:
      break;
    }
    nested.addPass(createTrainRematPass(remat));
  }
  if (plan) {
    nested.addPass(createTrainPlanMemoryPass());
    nested.addPass(createTrainVerifyPlanPass());
  }
  return back.run(module);
}

FailureOr<OwningOpRef<ModuleOp>> mlir::memopt::autoplan::buildCandidateStep(
    MLIRContext &context, const StepSource &source,
    const SearchOptions &options, const Candidate &candidate) {
  OwningOpRef<ModuleOp> module =
      source.build(context, candidate.microBatch * candidate.dp);
  if (!module || failed(runCandidatePasses(context, *module, options, candidate,
                                           /*plan=*/true)))
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

Evaluation mlir::memopt::autoplan::evaluateCandidate(
    MLIRContext &context, const StepSource &source,
    const SearchOptions &options, const Candidate &candidate) {
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
  evaluation.modelStateBytes = report->getModelStates().getTotalBytes();
  evaluation.savedActivationBytes = report->getSavedActivations().totalBytes;
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
  evaluation.seconds = secondsSince(start);
  return evaluation;
}

/// One point of a composition: the LOAD (at the planner's 256-byte
/// alignment) and the cost of `candidate` on the model of `layers` layers,
/// without planning.
static FailureOr<std::pair<int64_t, StepCost>>
measureLayers(MLIRContext &context, const StepSource &source,
              const SearchOptions &options, const Candidate &candidate,
              int64_t layers) {
  OwningOpRef<ModuleOp> module =
      source.buildLayers(context, candidate.microBatch * candidate.dp, layers);
  if (!module || failed(runCandidatePasses(context, *module, options, candidate,
                                           /*plan=*/false)))
    return failure();
  func::FuncOp step = getStepFunction(*module);
  TensorLiveness liveness(step, /*granularity=*/256);
  return std::make_pair(
      liveness.getLoad(),
      estimateStepCost(step, options.device, candidate.gradientAccumulation));
}

/// a + (b - a) * (n - 2), for values at 2 and 3 layers composed to n.
template <typename T> static T extend(T a, T b, int64_t n) {
  return a + (b - a) * static_cast<T>(n - 2);
}

Evaluation mlir::memopt::autoplan::screenCandidate(MLIRContext &context,
                                                   const StepSource &source,
                                                   const SearchOptions &options,
                                                   const Candidate &candidate) {
  if (!source.canCompose())
    return evaluateCandidate(context, source, options, candidate);
  auto start = std::chrono::steady_clock::now();
  Evaluation evaluation;
  evaluation.candidate = candidate;
  // The LOAD and cost at 2 and 3 layers.
  int64_t loads[2] = {0, 0};
  StepCost costs[2];
  std::string error;
  bool measured = true;
  {
    ErrorCollector errors(context);
    for (int64_t layers : {2, 3}) {
      FailureOr<std::pair<int64_t, StepCost>> point =
          measureLayers(context, source, options, candidate, layers);
      if (failed(point)) {
        measured = false;
        break;
      }
      loads[layers - 2] = point->first;
      costs[layers - 2] = point->second;
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
  const StepCost &a = costs[0], &b = costs[1];
  StepCost &cost = evaluation.cost;
  cost.microBatchSeconds = extend(a.microBatchSeconds, b.microBatchSeconds, n);
  cost.recomputeSeconds = extend(a.recomputeSeconds, b.recomputeSeconds, n);
  cost.tensorParallelSeconds =
      extend(a.tensorParallelSeconds, b.tensorParallelSeconds, n);
  cost.dataParallelSeconds =
      extend(a.dataParallelSeconds, b.dataParallelSeconds, n);
  cost.optimizerSeconds = extend(a.optimizerSeconds, b.optimizerSeconds, n);
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
  evaluation.seconds = secondsSince(start);
  return evaluation;
}

//===----------------------------------------------------------------------===//
// Search
//===----------------------------------------------------------------------===//

SearchResult mlir::memopt::autoplan::search(
    MLIRContext &context, const StepSource &source,
    const SearchOptions &options,
    llvm::function_ref<void(const Evaluation &)> progress) {
  SearchResult result;
  SmallVector<int64_t> tps = options.tensorParallel;
  if (tps.empty())
    for (int64_t tp = 1; tp <= options.devices; ++tp)
      if (options.devices % tp == 0)
        tps.push_back(tp);
  bool searchGreedy = llvm::is_contained(options.remat, RematChoice::Greedy);

  // Phase 1: every candidate but greedy's, screened (composed from 2 and 3
  // layers where the model allows it, else planned in full), with
  // monotonicity pruning. Greedy candidates wait for phase 2 with a lower
  // bound of their time.
  std::vector<Evaluation> screens;
  std::vector<Evaluation> greedy;
  auto record = [&](Evaluation evaluation) {
    screens.push_back(std::move(evaluation));
    if (progress)
      progress(screens.back());
    return screens.back();
  };

  for (train::PrecisionMode precision : options.precisions) {
    for (int64_t tp : tps) {
      if (options.devices % tp != 0)
        continue;
      int64_t dp = options.devices / tp;
      if (options.globalBatch % dp != 0)
        continue;
      // The micro-batches: samples per process per micro-batch, dividing
      // a data-parallel group's share of the global batch.
      int64_t perProcess = options.globalBatch / dp;
      SmallVector<int64_t> micros;
      if (source.fixedBatch) {
        if (*source.fixedBatch % dp == 0 &&
            perProcess % (*source.fixedBatch / dp) == 0)
          micros.push_back(*source.fixedBatch / dp);
      } else if (!options.microBatches.empty()) {
        for (int64_t micro : options.microBatches)
          if (micro > 0 && perProcess % micro == 0)
            micros.push_back(micro);
      } else {
        for (int64_t micro = 1; micro <= perProcess; micro *= 2)
          if (perProcess % micro == 0)
            micros.push_back(micro);
      }
      llvm::sort(micros);
      for (bool sp : options.sequenceParallel) {
        if (sp && tp == 1)
          continue;
        // ZeRO from the most sharded stage down: a stage never needs less
        // memory than a higher one, so the largest micro-batch a stage fits
        // bounds the lower stages'.
        SmallVector<int64_t> zeros;
        for (int64_t zero : options.zeroStages)
          if (zero == 0 || dp > 1)
            zeros.push_back(zero);
        llvm::sort(zeros, std::greater<int64_t>());
        std::map<RematChoice, int64_t> fitBound;
        for (int64_t zero : zeros) {
          std::map<RematChoice, int64_t> fitted;
          // The first micro-batch at which keeping everything did not fit:
          // recomputation starts there (below it, keeping everything fits
          // and is faster).
          std::optional<int64_t> firstTooLarge;
          bool noneSearched = false, noneRefused = false;
          // Per micro-batch, full recomputation's screen (greedy's bound).
          std::map<int64_t, Evaluation> fullScreens, noneScreens;
          for (RematChoice remat : options.remat) {
            result.numCandidates += micros.size();
            if (remat == RematChoice::Greedy) {
              result.numPruned += micros.size();
              continue;
            }
            bool stop = noneRefused, refused = false;
            // Where keeping everything fits, recomputing fits too.
            int64_t largestFit = 0;
            if (auto none = fitted.find(RematChoice::None);
                remat != RematChoice::None && none != fitted.end())
              largestFit = none->second;
            for (int64_t micro : micros) {
              bool dominated = remat != RematChoice::None && noneSearched &&
                               (!firstTooLarge || micro < *firstTooLarge);
              auto bound = fitBound.find(remat);
              bool beyondBound =
                  bound != fitBound.end() && micro > bound->second;
              if (stop || dominated || beyondBound) {
                ++result.numPruned;
                continue;
              }
              Candidate candidate;
              candidate.microBatch = micro;
              candidate.gradientAccumulation = perProcess / micro;
              candidate.precision = precision;
              candidate.tp = tp;
              candidate.sequenceParallel = sp;
              candidate.dp = dp;
              candidate.zero = zero;
              candidate.remat = remat;
              Evaluation screen =
                  screenCandidate(context, source, options, candidate);
              // Pruning rests on planned steps only: a screen that does
              // not fit is planned in full before it stops the
              // micro-batches (a composition is exact on the generated
              // transformers, but only checked, not proven).
              if (screen.status == Evaluation::Status::TooLarge &&
                  !screen.planned) {
                Evaluation full =
                    evaluateCandidate(context, source, options, candidate);
                ++result.numCompositionChecks;
                if (full.status != Evaluation::Status::Invalid &&
                    (full.loadBytes != screen.loadBytes ||
                     full.cost.flops != screen.cost.flops))
                  ++result.numCompositionMismatches;
                if (full.status != Evaluation::Status::Invalid)
                  screen = std::move(full);
              }
              const Evaluation &evaluation = record(std::move(screen));
              if (options.checkComposition && !evaluation.planned &&
                  evaluation.status != Evaluation::Status::Invalid) {
                Evaluation full =
                    evaluateCandidate(context, source, options, candidate);
                ++result.numCompositionChecks;
                if (full.loadBytes != evaluation.loadBytes ||
                    full.cost.flops != evaluation.cost.flops ||
                    full.cost.sentBytes != evaluation.cost.sentBytes) {
                  ++result.numCompositionMismatches;
                  if (progress) {
                    full.reason = "composition mismatch: LOAD " +
                                  std::to_string(evaluation.loadBytes) +
                                  " composed, " +
                                  std::to_string(full.loadBytes) + " planned";
                    full.status = Evaluation::Status::Invalid;
                    progress(full);
                  }
                }
              }
              if (remat == RematChoice::Full)
                fullScreens.emplace(micro, evaluation);
              if (remat == RematChoice::None)
                noneScreens.emplace(micro, evaluation);
              if (evaluation.status == Evaluation::Status::Fits) {
                largestFit = micro;
                continue;
              }
              if (remat == RematChoice::None && !firstTooLarge)
                firstTooLarge = micro;
              refused |= evaluation.status == Evaluation::Status::Invalid;
              // A larger micro-batch never needs less memory; a candidate
              // the passes refused is refused at every size.
              stop = true;
            }
            if (!refused)
              fitted[remat] = largestFit;
            if (remat == RematChoice::None) {
              noneSearched = true;
              // A refused partition is refused whatever is recomputed.
              noneRefused = refused;
            }
          }
          for (auto [remat, largest] : fitted)
            fitBound[remat] = largest;
          // Greedy where keeping everything does not fit, unless full
          // recomputation (when searched) does not fit either. Its time is
          // at least that of the step without recomputation: full
          // recomputation's less the recomputed ops, or keeping
          // everything's.
          if (searchGreedy && !noneRefused)
            for (int64_t micro : micros) {
              if (firstTooLarge && micro < *firstTooLarge)
                continue;
              Evaluation bound;
              if (auto full = fullScreens.find(micro);
                  full != fullScreens.end()) {
                if (full->second.status != Evaluation::Status::Fits)
                  continue;
                bound = full->second;
                bound.cost.stepSeconds -= bound.cost.recomputeSeconds *
                                          bound.candidate.gradientAccumulation;
                bound.cost.recomputeSeconds = 0;
              } else if (auto none = noneScreens.find(micro);
                         none != noneScreens.end() &&
                         none->second.status != Evaluation::Status::Invalid) {
                bound = none->second;
              } else {
                continue;
              }
              bound.candidate.remat = RematChoice::Greedy;
              bound.planned = false;
              --result.numPruned;
              greedy.push_back(bound);
            }
        }
      }
    }
  }
  result.numScreened = screens.size();

  // Phase 2: best first. Candidates that screened as fitting, and the
  // greedy ones, by their (composed, or lower-bound) time; each is planned
  // in full when it comes first, and takes its place by its own numbers.
  auto later = [](const Evaluation &a, const Evaluation &b) {
    if (a.cost.stepSeconds != b.cost.stepSeconds)
      return a.cost.stepSeconds > b.cost.stepSeconds;
    return a.loadBytes > b.loadBytes;
  };
  std::vector<Evaluation> queue;
  for (const Evaluation &screen : screens)
    if (screen.status == Evaluation::Status::Fits)
      queue.push_back(screen);
  for (Evaluation &bound : greedy)
    queue.push_back(bound);
  std::make_heap(queue.begin(), queue.end(), later);
  while (!queue.empty() && result.ranked.size() < options.top) {
    std::pop_heap(queue.begin(), queue.end(), later);
    Evaluation next = std::move(queue.back());
    queue.pop_back();
    if (next.planned) {
      result.ranked.push_back(std::move(next));
      continue;
    }
    Evaluation full =
        evaluateCandidate(context, source, options, next.candidate);
    if (next.candidate.remat != RematChoice::Greedy &&
        full.status != Evaluation::Status::Invalid) {
      ++result.numCompositionChecks;
      if (full.loadBytes != next.loadBytes ||
          full.cost.flops != next.cost.flops ||
          full.cost.sentBytes != next.cost.sentBytes)
        ++result.numCompositionMismatches;
    }
    if (progress)
      progress(full);
    result.evaluations.push_back(full);
    if (full.status != Evaluation::Status::Fits)
      continue;
    // Greedy that recomputes nothing is keeping everything, which the
    // search already has (or pruned as slower or larger).
    if (full.candidate.remat == RematChoice::Greedy &&
        full.cost.recomputeFlops == 0)
      continue;
    queue.push_back(std::move(full));
    std::push_heap(queue.begin(), queue.end(), later);
  }
  result.numPlanned = result.evaluations.size();
  for (const Evaluation &screen : screens)
    result.numPlanned += screen.planned;

  // The smallest per-process peak, for the message when nothing fits:
  // planned in full.
  const Evaluation *smallest = nullptr;
  for (const Evaluation &screen : screens)
    if (screen.status != Evaluation::Status::Invalid &&
        (!smallest || screen.loadBytes < smallest->loadBytes))
      smallest = &screen;
  if (result.ranked.empty() && smallest) {
    if (smallest->planned)
      result.smallest = *smallest;
    else
      result.smallest =
          evaluateCandidate(context, source, options, smallest->candidate);
  }
  for (Evaluation &screen : screens)
    result.evaluations.push_back(std::move(screen));
  return result;
}

//===----------------------------------------------------------------------===//
// Requests, module sources and messages
//===----------------------------------------------------------------------===//

static llvm::Error requestError(const Twine &message) {
  return llvm::createStringError(llvm::inconvertibleErrorCode(), message);
}

std::string mlir::memopt::autoplan::formatSize(int64_t bytes) {
  double value = static_cast<double>(bytes);
  const char *unit = "B";
  for (const char *next : {"KiB", "MiB", "GiB", "TiB"}) {
    if (std::abs(value) < 1024.0)
      break;
    value /= 1024.0;
    unit = next;
  }
  if (StringRef(unit) == "B")
    return std::to_string(bytes) + " B";
  return llvm::formatv("{0:F2} {1}", value, unit).str();
}

llvm::Expected<SearchOptions>
mlir::memopt::autoplan::makeSearchOptions(const SearchRequest &request,
                                          const StepSource &source) {
  SearchOptions options;
  llvm::Expected<DeviceProfile> device = loadDeviceProfile(request.device);
  if (!device)
    return device.takeError();
  options.device = *device;
  if (request.devices < 1)
    return requestError("--devices must be at least 1, got " +
                        Twine(request.devices));
  options.devices = request.devices;
  if (request.globalBatch < 1)
    return requestError("--global-batch is required: the samples per "
                        "optimizer step over all devices");
  options.globalBatch = request.globalBatch;
  options.deviceMemory = device->memoryBytes;
  if (!request.deviceMemory.empty()) {
    FailureOr<int64_t> bytes = parseByteSize(request.deviceMemory);
    if (failed(bytes) || *bytes <= 0)
      return requestError("invalid --device-memory '" + request.deviceMemory +
                          "'; expected a size such as 80GiB");
    options.deviceMemory = *bytes;
  }
  FailureOr<int64_t> reserve = parseByteSize(request.reserve);
  if (failed(reserve))
    return requestError("invalid --reserve '" + request.reserve +
                        "'; expected a size such as 1GiB");
  options.reserve = *reserve;
  if (options.reserve >= options.deviceMemory)
    return requestError("--reserve of " + formatSize(options.reserve) +
                        " leaves nothing of the device's " +
                        formatSize(options.deviceMemory));

  if (request.precisions.empty()) {
    options.precisions.push_back(train::PrecisionMode::BF16Mixed);
    if (device->fp8Flops > 0)
      options.precisions.push_back(train::PrecisionMode::FP8);
  }
  for (const std::string &name : request.precisions) {
    std::optional<train::PrecisionMode> mode =
        train::symbolizePrecisionMode(name);
    if (!mode)
      return requestError("unknown --precision '" + name +
                          "'; expected fp32, bf16-mixed, fp16-mixed, "
                          "bf16-pure or fp8");
    if (*mode == train::PrecisionMode::FP8 && device->fp8Flops == 0)
      return requestError("--precision fp8: device '" + device->name +
                          "' has no fp8 units (its profile's "
                          "flops_per_second.fp8 is 0)");
    options.precisions.push_back(*mode);
  }

  for (int64_t tp : request.tensorParallel) {
    if (tp < 1 || request.devices % tp != 0)
      return requestError("--tp " + Twine(tp) + " does not divide --devices " +
                          Twine(request.devices));
    options.tensorParallel.push_back(tp);
  }
  if (request.tensorParallel.empty())
    for (int64_t tp = 1; tp <= request.devices && tp <= device->devicesPerNode;
         ++tp)
      if (request.devices % tp == 0)
        options.tensorParallel.push_back(tp);
  if (!request.zeroStages.empty()) {
    options.zeroStages.clear();
    for (int64_t zero : request.zeroStages) {
      if (zero < 0 || zero > 3)
        return requestError("--zero " + Twine(zero) +
                            " is not a ZeRO stage (0-3)");
      options.zeroStages.push_back(zero);
    }
  }
  if (!request.sequenceParallel.empty()) {
    options.sequenceParallel.clear();
    for (const std::string &mode : request.sequenceParallel) {
      if (mode != "on" && mode != "off")
        return requestError("unknown --sp '" + mode + "'; expected on or off");
      options.sequenceParallel.push_back(mode == "on");
    }
  }
  if (!request.remat.empty()) {
    options.remat.clear();
    for (const std::string &name : request.remat) {
      std::optional<RematChoice> choice = parseRematChoice(name);
      if (!choice)
        return requestError("unknown --remat '" + name +
                            "'; expected none, selective, full or greedy");
      options.remat.push_back(*choice);
    }
    // None first: it decides where recomputation starts.
    std::stable_partition(
        options.remat.begin(), options.remat.end(),
        [](RematChoice choice) { return choice == RematChoice::None; });
  }
  if (request.top < 1)
    return requestError("--top must be at least 1");
  options.top = request.top;
  for (int64_t micro : request.microBatches) {
    if (micro < 1)
      return requestError("--micro-batch must be positive, got " +
                          Twine(micro));
    options.microBatches.push_back(micro);
  }
  if (source.fixedBatch && !request.microBatches.empty())
    return requestError(
        "--micro-batch does not apply to a step file: its batch (" +
        Twine(*source.fixedBatch) +
        ") is the micro-batch of all data-parallel processes together");
  if (request.optimizer == "adamw")
    options.optimizer = AutodiffOptimizer::AdamW;
  else if (request.optimizer == "adam")
    options.optimizer = AutodiffOptimizer::Adam;
  else if (request.optimizer == "sgd")
    options.optimizer = AutodiffOptimizer::Sgd;
  else
    return requestError("unknown --optimizer '" + request.optimizer +
                        "'; expected adamw, adam or sgd");
  if (llvm::none_of(options.tensorParallel, [&](int64_t tp) {
        return request.globalBatch % (request.devices / tp) == 0;
      }))
    return requestError("--global-batch " + Twine(request.globalBatch) +
                        " does not divide over the data-parallel processes");
  return options;
}

FailureOr<StepSource> mlir::memopt::autoplan::getModuleSource(ModuleOp module) {
  func::FuncOp func;
  for (auto candidate : module.getOps<func::FuncOp>()) {
    if (candidate.isExternal())
      continue;
    if (func)
      return emitError(candidate.getLoc())
             << "expected one function with a body, found @" << func.getName()
             << " and @" << candidate.getName();
    func = candidate;
  }
  if (!func)
    return emitError(module.getLoc()) << "expected a function with a body";
  auto batchType =
      func.getNumArguments() == 0
          ? RankedTensorType()
          : dyn_cast<RankedTensorType>(func.getArgument(0).getType());
  if (!batchType || batchType.getRank() == 0 || !batchType.hasStaticShape())
    return emitError(func.getLoc())
           << "expected @" << func.getName()
           << " to take a static tensor with a batch dimension first, so "
              "that its batch can be split";
  StepSource source;
  source.fixedBatch = batchType.getDimSize(0);
  if (batchType.getElementType().isInteger())
    source.tokensPerSample =
        batchType.getNumElements() / batchType.getDimSize(0);
  std::shared_ptr<OwningOpRef<ModuleOp>> copy =
      std::make_shared<OwningOpRef<ModuleOp>>(module.clone());
  source.build = [copy](MLIRContext &, int64_t) {
    return OwningOpRef<ModuleOp>((*copy)->clone());
  };
  return source;
}

/// "1 device", "8 devices".
static std::string countDevices(int64_t devices) {
  return std::to_string(devices) + (devices == 1 ? " device" : " devices");
}

std::string mlir::memopt::autoplan::describeNoFit(const SearchResult &result,
                                                  const SearchOptions &options,
                                                  StringRef model) {
  if (!result.smallest) {
    // Every candidate was refused: say why (the last reason).
    std::string reason =
        result.evaluations.empty()
            ? std::string("no candidate divides the global batch over the "
                          "data-parallel processes")
            : result.evaluations.back().candidate.describe() + ": " +
                  result.evaluations.back().reason;
    return ("no configuration of " + model + " on " +
            countDevices(options.devices) + " could be built: " + reason)
        .str();
  }
  const Evaluation &smallest = *result.smallest;
  return "no configuration fits " + formatSize(options.getBudget()) +
         " per device (" + formatSize(options.deviceMemory) +
         " less the reserve of " + formatSize(options.reserve) + ") on " +
         countDevices(options.devices) +
         ": the smallest per-device peak reached is " +
         formatSize(smallest.peakBytes) + ", by " +
         smallest.candidate.describe() + ", of which model states " +
         formatSize(smallest.modelStateBytes) + " and saved activations " +
         formatSize(smallest.savedActivationBytes) + ", at " + smallest.peakOp +
         ". This needs pipeline parallelism (not searched), more devices, a "
         "smaller global batch or more memory per device";
}
