//===- Candidates.cpp - the candidates of mem-autoplan's search -----------===//
//
// A candidate (docs/autoplan.md): a micro-batch, a precision mode, a
// tensor-parallel degree with or without sequence parallelism, the
// data-parallel degree the devices leave, a ZeRO stage and a
// rematerialization choice. Phase 1 of the search generates them partition
// by partition and screens them (Screening.cpp) with monotonicity pruning: a
// larger micro-batch never needs less memory, nor does a lower ZeRO stage,
// and recomputation only runs where keeping everything did not fit.
//
//===----------------------------------------------------------------------===//

#include "SearchPhases.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/StringSwitch.h"
#include "llvm/Support/FormatVariadic.h"

#include <functional>
#include <map>

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

std::string Candidate::describeSchedule() const {
  if (schedule == PipelineSchedule::OneFOneB)
    return "";
  std::string text = " " + getPipelineScheduleName(schedule).str();
  if (virtualStages > 1)
    text += " v=" + std::to_string(virtualStages);
  return text;
}

std::string Candidate::describe() const {
  std::string text =
      llvm::formatv(
          "mb={0} ga={1} {2} tp={3}{4}{5} dp={6} zero={7} remat={8}",
          microBatch, gradientAccumulation,
          train::stringifyPrecisionMode(precision), tp,
          sequenceParallel ? " sp" : "",
          pp > 1 ? " pp=" + std::to_string(pp) + describeSchedule() +
                       (firstStageLayers > 0
                            ? " first=" + std::to_string(firstStageLayers)
                            : std::string())
                 : std::string(),
          dp, zero, getRematChoiceName(remat))
          .str();
  return text + describeOffload();
}

std::string Candidate::describeOffload() const {
  bool activations = offloadActivations && remat == RematChoice::Greedy;
  std::string perMicroBatch =
      copyEveryMicroBatch ? " (weights copied every micro-batch)" : "";
  if (offloadOptimizer && activations)
    return " offload=optimizer+activations" + perMicroBatch;
  if (offloadOptimizer)
    return " offload=optimizer" + perMicroBatch;
  if (activations)
    return " offload=activations";
  return "";
}

//===----------------------------------------------------------------------===//
// Phase 1: generation and screening
//===----------------------------------------------------------------------===//

namespace {
/// The candidates of one precision, tensor-parallel degree and sequence
/// parallelism: `base` without micro-batch, ZeRO stage and recomputation.
struct Partition {
  Candidate base;
  /// Samples per process per optimizer step.
  int64_t perProcess = 0;
  /// The micro-batches, increasing.
  SmallVector<int64_t> micros;
};

/// What the screens of one ZeRO stage of a partition found.
struct StageScreens {
  /// The largest micro-batch that fits, per recomputation choice whose
  /// candidates the passes did not refuse.
  std::map<RematChoice, int64_t> fitted;
  /// The first micro-batch at which keeping everything did not fit:
  /// recomputation starts there (below it, keeping everything fits and is
  /// faster).
  std::optional<int64_t> firstTooLarge;
  bool noneSearched = false, noneRefused = false;
  /// Per micro-batch, full recomputation's screen (greedy's bound), and
  /// keeping everything's.
  std::map<int64_t, Evaluation> fullScreens, noneScreens;
};

/// Phase 1 of search().
class CandidateScreener {
public:
  CandidateScreener(MLIRContext &context, const StepSource &source,
                    const SearchOptions &options,
                    llvm::function_ref<void(const Evaluation &)> progress,
                    SearchResult &result, bool offloadOptimizer,
                    bool offloadActivations)
      : context(context), source(source), options(options), progress(progress),
        result(result),
        searchGreedy(llvm::is_contained(options.remat, RematChoice::Greedy)),
        offloadOptimizer(offloadOptimizer),
        offloadActivations(offloadActivations) {}

  ScreenedCandidates run();

private:
  SmallVector<int64_t> getMicroBatches(int64_t dp, int64_t perProcess) const;
  SmallVector<int64_t> getPipelineDegrees(int64_t tp) const;
  bool screenPipeline(train::PrecisionMode precision, int64_t tp, int64_t pp);
  void screenPartition(const Partition &partition);
  void screenStage(const Partition &partition, int64_t zero,
                   std::map<RematChoice, int64_t> &fitBound);
  void screenMicroBatches(const Partition &partition, int64_t zero,
                          RematChoice remat,
                          const std::map<RematChoice, int64_t> &fitBound,
                          StageScreens &stage);
  Evaluation screenAndRecord(const Candidate &candidate);
  void addGreedyBounds(const Partition &partition, const StageScreens &stage);
  Evaluation record(Evaluation evaluation);

  MLIRContext &context;
  const StepSource &source;
  const SearchOptions &options;
  llvm::function_ref<void(const Evaluation &)> progress;
  SearchResult &result;
  bool searchGreedy;
  /// The round's host offload, on every candidate.
  bool offloadOptimizer, offloadActivations;
  ScreenedCandidates screened;
};
} // namespace

Evaluation CandidateScreener::record(Evaluation evaluation) {
  screened.screens.push_back(std::move(evaluation));
  if (progress)
    progress(screened.screens.back());
  return screened.screens.back();
}

ScreenedCandidates CandidateScreener::run() {
  SmallVector<int64_t> tps = options.tensorParallel;
  if (tps.empty())
    for (int64_t tp = 1; tp <= options.devices; ++tp)
      if (options.devices % tp == 0)
        tps.push_back(tp);
  for (train::PrecisionMode precision : options.precisions) {
    for (int64_t tp : tps) {
      if (options.devices % tp != 0)
        continue;
      // By default more stages only while fewer need ZeRO or recomputation
      // to fit: where keeping everything fits unsharded, a stage only adds
      // bubble and transfers to the same work per device; where it does
      // not, stages are another way to cut memory, which may be faster.
      for (int64_t pp : getPipelineDegrees(tp))
        if (screenPipeline(precision, tp, pp) &&
            options.pipelineParallel.empty())
          break;
    }
  }
  return std::move(screened);
}

SmallVector<int64_t> CandidateScreener::getPipelineDegrees(int64_t tp) const {
  SmallVector<int64_t> degrees;
  int64_t left = options.devices / tp;
  if (!options.pipelineParallel.empty()) {
    for (int64_t pp : options.pipelineParallel)
      if (left % pp == 0)
        degrees.push_back(pp);
    return degrees;
  }
  degrees.push_back(1);
  // Stages need layers to split (train.layer groups of a generated model).
  for (int64_t pp = 2; pp <= left && pp <= source.layers; ++pp)
    if (left % pp == 0)
      degrees.push_back(pp);
  return degrees;
}

/// Screens the partitions of `precision`, `tp` and `pp` stages (with and
/// without sequence parallelism); returns whether a candidate without
/// recomputation and without ZeRO (with stages: at most ZeRO-1) fits.
bool CandidateScreener::screenPipeline(train::PrecisionMode precision,
                                       int64_t tp, int64_t pp) {
  int64_t dp = options.devices / (tp * pp);
  if (options.globalBatch % dp != 0)
    return false;
  Partition partition;
  partition.base.precision = precision;
  partition.base.tp = tp;
  partition.base.pp = pp;
  partition.base.offloadOptimizer = offloadOptimizer;
  partition.base.offloadActivations = offloadActivations;
  if (pp > 1) {
    // The first schedule; the others are tried where it fits.
    partition.base.schedule = options.pipelineSchedules.front();
    if (partition.base.schedule == PipelineSchedule::Interleaved)
      partition.base.virtualStages = 2;
  }
  partition.base.dp = dp;
  partition.perProcess = options.globalBatch / dp;
  partition.micros = getMicroBatches(dp, partition.perProcess);
  size_t first = screened.screens.size();
  for (bool sp : options.sequenceParallel) {
    if (sp && tp == 1)
      continue;
    partition.base.sequenceParallel = sp;
    screenPartition(partition);
  }
  // (Stages take ZeRO-1 where dp > 1, which costs them no time.)
  return llvm::any_of(llvm::drop_begin(screened.screens, first),
                      [](const Evaluation &evaluation) {
                        const Candidate &c = evaluation.candidate;
                        return evaluation.status == Evaluation::Status::Fits &&
                               (c.zero == 0 || c.pp > 1) &&
                               c.remat == RematChoice::None;
                      });
}

SmallVector<int64_t>
CandidateScreener::getMicroBatches(int64_t dp, int64_t perProcess) const {
  // The micro-batches: samples per process per micro-batch, dividing
  // a data-parallel group's share of the global batch.
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
  return micros;
}

void CandidateScreener::screenPartition(const Partition &partition) {
  // ZeRO from the most sharded stage down: a stage never needs less
  // memory than a higher one, so the largest micro-batch a stage fits
  // bounds the lower stages'.
  SmallVector<int64_t> zeros;
  // Pipeline stages take ZeRO 0 or 1 (Megatron-LM's distributed optimizer:
  // gradients reduced once per step); ZeRO-2 and 3 would reduce or gather
  // for every micro-batch, and DeepSpeed refuses them with pipeline
  // parallelism. With dp > 1 and both searched, ZeRO-1 alone: it needs
  // less memory than ZeRO 0 and sends less (a reduce-scatter of the fp32
  // gradients and a gather of the 16-bit weights, for an all-reduce of
  // the fp32 gradients), and its updates run on parts.
  bool pipelined = partition.base.pp > 1;
  bool zeroOne = llvm::is_contained(options.zeroStages, 1);
  for (int64_t zero : options.zeroStages) {
    if (!pipelined && (zero == 0 || partition.base.dp > 1))
      zeros.push_back(zero);
    if (pipelined && partition.base.dp == 1 && zero == 0)
      zeros.push_back(zero);
    if (pipelined && partition.base.dp > 1 &&
        (zero == 1 || (zero == 0 && !zeroOne)))
      zeros.push_back(zero);
  }
  llvm::sort(zeros, std::greater<int64_t>());
  std::map<RematChoice, int64_t> fitBound;
  for (int64_t zero : zeros)
    screenStage(partition, zero, fitBound);
}

void CandidateScreener::screenStage(const Partition &partition, int64_t zero,
                                    std::map<RematChoice, int64_t> &fitBound) {
  StageScreens stage;
  for (RematChoice remat : options.remat) {
    result.numCandidates += partition.micros.size();
    if (remat == RematChoice::Greedy) {
      result.numPruned += partition.micros.size();
      continue;
    }
    screenMicroBatches(partition, zero, remat, fitBound, stage);
  }
  for (auto [remat, largest] : stage.fitted)
    fitBound[remat] = largest;
  // Greedy's budget search is not searched on pipeline stages: its model
  // of a step (one forward pass, then the backward pass) is not a stage's
  // interleaved micro-batches; selective and full recomputation are.
  if (searchGreedy && !stage.noneRefused && partition.base.pp == 1)
    addGreedyBounds(partition, stage);
}

void CandidateScreener::screenMicroBatches(
    const Partition &partition, int64_t zero, RematChoice remat,
    const std::map<RematChoice, int64_t> &fitBound, StageScreens &stage) {
  bool stop = stage.noneRefused, refused = false;
  // Where keeping everything fits, recomputing fits too.
  int64_t largestFit = 0;
  if (auto none = stage.fitted.find(RematChoice::None);
      remat != RematChoice::None && none != stage.fitted.end())
    largestFit = none->second;
  for (int64_t micro : partition.micros) {
    bool dominated = remat != RematChoice::None && stage.noneSearched &&
                     (!stage.firstTooLarge || micro < *stage.firstTooLarge);
    auto bound = fitBound.find(remat);
    bool beyondBound = bound != fitBound.end() && micro > bound->second;
    if (stop || dominated || beyondBound) {
      ++result.numPruned;
      continue;
    }
    Candidate candidate = partition.base;
    candidate.microBatch = micro;
    candidate.gradientAccumulation = partition.perProcess / micro;
    candidate.zero = zero;
    candidate.remat = remat;
    Evaluation evaluation = screenAndRecord(candidate);
    if (remat == RematChoice::Full)
      stage.fullScreens.emplace(micro, evaluation);
    if (remat == RematChoice::None)
      stage.noneScreens.emplace(micro, evaluation);
    if (evaluation.status == Evaluation::Status::Fits) {
      largestFit = micro;
      continue;
    }
    if (remat == RematChoice::None && !stage.firstTooLarge)
      stage.firstTooLarge = micro;
    refused |= evaluation.status == Evaluation::Status::Invalid;
    // A larger micro-batch never needs less memory; a candidate
    // the passes refused is refused at every size.
    stop = true;
  }
  if (!refused)
    stage.fitted[remat] = largestFit;
  if (remat == RematChoice::None) {
    stage.noneSearched = true;
    // A refused partition is refused whatever is recomputed.
    stage.noneRefused = refused;
  }
}

/// Screens `candidate` and records the screen; with checkComposition, also
/// plans a composed screen in full and counts a difference.
Evaluation CandidateScreener::screenAndRecord(const Candidate &candidate) {
  Evaluation screen = screenCandidate(context, source, options, candidate);
  // Pruning rests on planned steps only: a screen that does
  // not fit is planned in full before it stops the
  // micro-batches (a composition is exact on the generated
  // transformers, but only checked, not proven).
  // (A pipelined screen is no composition: its LOAD is the built stages',
  // and an arena is never below its LOAD.)
  if (screen.status == Evaluation::Status::TooLarge && !screen.planned &&
      candidate.pp == 1) {
    Evaluation full = evaluateCandidate(context, source, options, candidate);
    ++result.numCompositionChecks;
    if (full.status != Evaluation::Status::Invalid &&
        (full.loadBytes != screen.loadBytes ||
         full.cost.flops != screen.cost.flops))
      ++result.numCompositionMismatches;
    if (full.status != Evaluation::Status::Invalid)
      screen = std::move(full);
  }
  Evaluation evaluation = record(std::move(screen));
  if (options.checkComposition && !evaluation.planned && candidate.pp == 1 &&
      evaluation.status != Evaluation::Status::Invalid) {
    Evaluation full = evaluateCandidate(context, source, options, candidate);
    ++result.numCompositionChecks;
    if (full.loadBytes != evaluation.loadBytes ||
        full.cost.flops != evaluation.cost.flops ||
        full.cost.sentBytes != evaluation.cost.sentBytes) {
      ++result.numCompositionMismatches;
      if (progress) {
        full.reason = "composition mismatch: LOAD " +
                      std::to_string(evaluation.loadBytes) + " composed, " +
                      std::to_string(full.loadBytes) + " planned";
        full.status = Evaluation::Status::Invalid;
        progress(full);
      }
    }
  }
  return evaluation;
}

void CandidateScreener::addGreedyBounds(const Partition &partition,
                                        const StageScreens &stage) {
  // Greedy where keeping everything does not fit, unless full
  // recomputation (when searched) does not fit either. Its time is
  // at least that of the step without recomputation: full
  // recomputation's less the recomputed ops, or keeping
  // everything's.
  for (int64_t micro : partition.micros) {
    if (stage.firstTooLarge && micro < *stage.firstTooLarge)
      continue;
    Evaluation bound;
    if (auto full = stage.fullScreens.find(micro);
        full != stage.fullScreens.end()) {
      if (full->second.status != Evaluation::Status::Fits)
        continue;
      bound = full->second;
      bound.cost.stepSeconds -=
          bound.cost.recomputeSeconds * bound.candidate.gradientAccumulation;
      bound.cost.recomputeSeconds = 0;
    } else if (auto none = stage.noneScreens.find(micro);
               none != stage.noneScreens.end() &&
               none->second.status != Evaluation::Status::Invalid) {
      bound = none->second;
    } else {
      continue;
    }
    bound.candidate.remat = RematChoice::Greedy;
    bound.planned = false;
    --result.numPruned;
    screened.greedy.push_back(bound);
  }
}

ScreenedCandidates mlir::memopt::autoplan::screenCandidates(
    MLIRContext &context, const StepSource &source,
    const SearchOptions &options,
    llvm::function_ref<void(const Evaluation &)> progress, SearchResult &result,
    bool offloadOptimizer, bool offloadActivations) {
  return CandidateScreener(context, source, options, progress, result,
                           offloadOptimizer, offloadActivations)
      .run();
}
