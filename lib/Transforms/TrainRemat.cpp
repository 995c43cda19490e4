//===- TrainRemat.cpp - recompute activations under a peak budget ---------===//
//
// train-remat decides which activations a step keeps and rewrites the step
// so that the others are recomputed before their backward uses. The
// algorithms (RematStrategies.h) each propose candidate rewrites, measured
// exactly on copies of the step; this pass reads the options, gathers the
// candidates of the chosen algorithm, picks the cheapest that meets the
// budget, applies it and records the decision as attributes.
//
//===----------------------------------------------------------------------===//

#include "memopt/Analysis/RematGroups.h"
#include "memopt/Analysis/StepSchedule.h"
#include "memopt/Analysis/TensorLiveness.h"
#include "memopt/Dialect/Train/IR/TrainOps.h"
#include "memopt/Dialect/Train/IR/TrainStep.h"
#include "memopt/Transforms/PassOptions.h"
#include "memopt/Transforms/Passes.h"
#include "memopt/Transforms/RematStrategies.h"

#include "mlir/IR/Builders.h"
#include "llvm/Support/FormatVariadic.h"

#include <chrono>
#include <deque>

namespace mlir::memopt {
#define GEN_PASS_DEF_TRAINREMATPASS
#include "memopt/Transforms/Passes.h.inc"
} // namespace mlir::memopt

using namespace mlir;
using namespace mlir::memopt;
using train::TrainDialect;

namespace {
/// segments=0: the first group model's forward groups; each next model has
/// twice as many.
constexpr unsigned kFirstAutoSegments = 8;
/// segments=0: the largest group model solved. The MILP's size grows with
/// the square of the groups; on the mem-gen models, models of about 70
/// groups settle within a second and 140 groups take 7 s to past 30 s
/// (docs/remat.md).
constexpr unsigned kMaxAutoGroups = 80;

struct TrainRematPass
    : public memopt::impl::TrainRematPassBase<TrainRematPass> {
  using Base::Base;

  void runOnOperation() override;

  /// Spaces separate pass options, so `budget=1 KiB` would reach the option
  /// parser as `budget=1` and an option `KiB` ("no such option KiB"); this
  /// says what happened instead.
  LogicalResult initializeOptions(
      StringRef options,
      function_ref<LogicalResult(const Twine &)> errorHandler) override;

private:
  /// The name of `algorithm`, as the option spells it.
  StringRef getAlgorithmName() const {
    switch (algorithm) {
    case RematAlgorithm::Auto:
      return "auto";
    case RematAlgorithm::None:
      return "none";
    case RematAlgorithm::Layers:
      return "layers";
    case RematAlgorithm::Sqrt:
      return "sqrt";
    case RematAlgorithm::Selective:
      return "selective";
    case RematAlgorithm::Greedy:
      return "greedy";
    case RematAlgorithm::Optimal:
      return "optimal";
    case RematAlgorithm::Chain:
      return "chain";
    }
    llvm_unreachable("unknown remat algorithm");
  }

  /// Checks the options; emits an error naming the option and the valid
  /// range. Loads the device profile and the host link with `offload`.
  LogicalResult checkOptions(Location loc);

  /// With `offload`: adds to `candidates` the offloads on top of those of
  /// the chosen algorithm (auto: greedy's) and estimates every candidate's
  /// time.
  void addOffloadCandidates(func::FuncOp func, std::optional<int64_t> limit,
                            SmallVectorImpl<RematCandidate> &candidates);

  /// The budget in bytes (nothing when empty); emits an error when it does
  /// not parse.
  FailureOr<std::optional<int64_t>> parseBudget(Location loc);

  /// Appends the candidates of `algorithm` for `func` (`before` is its
  /// analysis) to `candidates`; emits an error and fails when an algorithm
  /// cannot run (`chain` without a schedule, `optimal` without groups).
  LogicalResult proposeCandidates(func::FuncOp func,
                                  const TensorLiveness &before,
                                  std::optional<int64_t> limit,
                                  SmallVectorImpl<RematCandidate> &candidates);

  /// With `offload` and a budget: what keeping everything, the best
  /// recompute-only candidate and the best offloading one cost in memory
  /// (device and host), recompute and estimated time.
  void emitChoicesRemark(func::FuncOp func, ArrayRef<RematCandidate> candidates,
                         int64_t limit, int64_t peakBefore);

  /// Says which candidate `auto` chose and why.
  void emitAutoRemark(func::FuncOp func, const RematCandidate &chosen,
                      ArrayRef<RematCandidate> candidates,
                      std::optional<int64_t> limit);

  /// Says why no candidate meets `limit`: the smallest peak reached, the
  /// peak of recomputing everything and the persistent bytes.
  void reportNoCandidate(func::FuncOp func, ArrayRef<RematCandidate> candidates,
                         int64_t limit, int64_t persistent);

  /// Runs `optimal`'s MILP over the group models of `func`: the one of
  /// `segments` forward groups, or with `segments=0` ever finer ones (8,
  /// 16, 32, ... forward groups, each solve's answer the next one's cutoff)
  /// while each solve settles its model, the model grows and has at most
  /// kMaxAutoGroups groups (under `auto`, only the first of them). Sets
  /// `optimal` to the cheapest plan found (and optimalFailure when there is
  /// none); fails with an error when the step cannot be grouped.
  LogicalResult runOptimalLevels(func::FuncOp func, int64_t limit,
                                 OptimalRematLimits limits,
                                 std::chrono::steady_clock::time_point start,
                                 std::optional<RematCandidate> &optimal);

  /// The group models of `optimal`, built once per step (the candidates it
  /// proposes refer to them).
  /// A deque: the candidates hold references, which push_back keeps valid.
  std::deque<StepGroups> groupModels;
  /// Why `optimal` returned no candidate.
  std::string optimalFailure;
  /// Whether `optimal`'s solver ran (auto runs it only when keeping
  /// everything does not fit).
  bool optimalRan = false;
  /// With `offload`: the device and its host link.
  OffloadCostModel offloadModel;
};

} // namespace

LogicalResult TrainRematPass::initializeOptions(
    StringRef options,
    function_ref<LogicalResult(const Twine &)> errorHandler) {
  SmallVector<StringRef> words;
  options.split(words, ' ', /*MaxSplit=*/-1, /*KeepEmpty=*/false);
  static constexpr StringLiteral kUnits[] = {"B",  "KiB", "MiB", "GiB", "TiB",
                                             "KB", "MB",  "GB",  "TB"};
  for (auto [word, next] : llvm::zip(words, llvm::drop_begin(words))) {
    StringRef number = word;
    if (!number.consume_front("budget=") || number.empty() ||
        !llvm::all_of(number, llvm::isDigit) ||
        !llvm::is_contained(kUnits, next))
      continue;
    return errorHandler("train-remat: budget '" + number +
                        "' is followed by a separate option '" + next +
                        "' (spaces separate pass options); did you mean "
                        "budget=" +
                        number + next + " (or budget=\"" + number + " " + next +
                        "\")?");
  }
  if (failed(checkEnumPassOption("train-remat", "algorithm", options, algorithm,
                                 errorHandler)))
    return failure();
  return parseOptionsNamingPass(
      "train-remat", options, errorHandler,
      [&](StringRef text, function_ref<LogicalResult(const Twine &)> handler) {
        return Base::initializeOptions(text, handler);
      });
}

LogicalResult TrainRematPass::checkOptions(Location loc) {
  constexpr int64_t kMaxSegments = std::numeric_limits<unsigned>::max();
  if (segments < 0 || segments > kMaxSegments)
    return mlir::emitError(loc)
           << "train-remat: segments must be 0 (refine automatically) or in "
              "[1, "
           << kMaxSegments << "], got " << static_cast<int64_t>(segments);
  if (!(timeLimit >= 0.0))
    return mlir::emitError(loc)
           << "train-remat: time-limit must be a positive number of seconds "
              "(or 0 for no wall-clock limit, with a node-limit), got "
           << llvm::formatv("{0}", static_cast<double>(timeLimit));
  if (nodeLimit < 0)
    return mlir::emitError(loc)
           << "train-remat: node-limit must be a non-negative number of "
              "branch-and-bound nodes (0 = no limit), got "
           << static_cast<int64_t>(nodeLimit);
  if (timeLimit == 0.0 && nodeLimit == 0)
    return mlir::emitError(loc)
           << "train-remat: time-limit=0 (no wall-clock limit) needs a "
              "node-limit, else the solver may run forever";
  if (!offload) {
    if (!StringRef(link).empty() || StringRef(device) != "h100-sxm")
      return mlir::emitError(loc)
             << "train-remat: device and link describe the offload's cost "
                "model; they need offload=true";
    return success();
  }
  if (StringRef(budget).trim().empty())
    return mlir::emitError(loc)
           << "train-remat: offload=true needs a budget (offloading lowers "
              "the peak to meet one)";
  llvm::Expected<autoplan::DeviceProfile> profile =
      autoplan::loadDeviceProfile(device);
  if (!profile)
    return mlir::emitError(loc)
           << "train-remat: " << llvm::toString(profile.takeError());
  offloadModel.device = std::move(*profile);
  offloadModel.linkBytesPerSecond = offloadModel.device.hostLinkBytesPerSecond;
  if (!StringRef(link).empty()) {
    FailureOr<double> parsed = parseHostLink(link);
    if (failed(parsed))
      return mlir::emitError(loc)
             << "train-remat: unknown link '" << link
             << "'; expected pcie4, pcie5, nvlink-c2c or a positive number "
                "of bytes per second";
    offloadModel.linkBytesPerSecond = *parsed;
  }
  if (offloadModel.linkBytesPerSecond <= 0)
    return mlir::emitError(loc)
           << "train-remat: the device profile '" << device
           << "' has no host_link_bytes_per_second; give link=";
  return success();
}

void TrainRematPass::addOffloadCandidates(
    func::FuncOp func, std::optional<int64_t> limit,
    SmallVectorImpl<RematCandidate> &candidates) {
  size_t count = candidates.size();
  for (size_t index = 0; index < count; ++index) {
    if (algorithm == RematAlgorithm::Auto &&
        candidates[index].algorithm != "greedy")
      continue;
    // optimal's MILP chose its offloads itself.
    if (candidates[index].numOffloaded > 0)
      continue;
    if (std::optional<RematCandidate> offloaded =
            addOffloads(func, candidates[index], limit, offloadModel))
      candidates.push_back(std::move(*offloaded));
  }
  for (RematCandidate &candidate : candidates) {
    if (candidate.seconds)
      continue;
    func::FuncOp copy = func.clone();
    candidate.apply(copy);
    candidate.seconds = estimateStepTime(copy, offloadModel).seconds;
    candidate.hostPeak = TensorLiveness(copy).getHostLoad();
    copy.erase();
  }
}

/// One choice of emitChoicesRemark: its peak against `limit`, recompute,
/// copies and time.
static void printChoice(llvm::raw_ostream &os, const RematCandidate &choice,
                        int64_t limit) {
  os << "peak " << choice.peak << " bytes";
  if (choice.peak > limit)
    os << " (" << choice.peak - limit << " over)";
  if (choice.flops)
    os << ", " << choice.flops << " FLOPs recomputed";
  if (choice.numOffloaded)
    os << ", " << choice.offloadedBytes << " bytes each way, host peak "
       << choice.hostPeak << " bytes";
  os << ", " << llvm::formatv("{0:e3}", *choice.seconds) << " s";
}

void TrainRematPass::emitChoicesRemark(func::FuncOp func,
                                       ArrayRef<RematCandidate> candidates,
                                       int64_t limit, int64_t peakBefore) {
  // The best of each kind: within the budget the least time, else the
  // lowest peak.
  auto best = [&](bool offloads) {
    const RematCandidate *found = nullptr;
    for (const RematCandidate &candidate : candidates) {
      if ((candidate.numOffloaded > 0) != offloads)
        continue;
      bool fits = candidate.peak <= limit;
      if (!found ||
          (fits &&
           (found->peak > limit || *candidate.seconds < *found->seconds)) ||
          (!fits && found->peak > limit && candidate.peak < found->peak))
        found = &candidate;
    }
    return found;
  };
  std::string text;
  llvm::raw_string_ostream os(text);
  os << "train-remat: choices at the budget of " << limit << " bytes ("
     << offloadModel.device.name << ", "
     << llvm::formatv("{0:f1}", offloadModel.linkBytesPerSecond / 1e9)
     << " GB/s host link): keep: peak " << peakBefore << " bytes";
  if (peakBefore > limit)
    os << " (" << peakBefore - limit << " over)";
  os << ", "
     << llvm::formatv("{0:e3}", estimateStepTime(func, offloadModel).seconds)
     << " s";
  if (const RematCandidate *recompute = best(false)) {
    os << "; recompute (" << recompute->algorithm << "): ";
    printChoice(os, *recompute, limit);
  }
  if (const RematCandidate *offloaded = best(true)) {
    os << "; offload (" << offloaded->algorithm << "): ";
    printChoice(os, *offloaded, limit);
  } else {
    os << "; offload: no activation whose copy lowers the peak";
  }
  mlir::emitRemark(func.getLoc()) << text;
}

FailureOr<std::optional<int64_t>> TrainRematPass::parseBudget(Location loc) {
  if (StringRef(budget).trim().empty())
    return std::optional<int64_t>();
  FailureOr<int64_t> parsed = parseByteSize(budget);
  if (failed(parsed))
    return mlir::emitError(loc)
           << "train-remat: cannot parse budget '" << budget
           << "'; expected bytes with an optional unit, e.g. "
              "40GiB, 512MiB or 1000000";
  if (*parsed == 0)
    return mlir::emitError(loc)
           << "train-remat: budget must be a positive number of bytes, got '"
           << budget << "'";
  return std::optional<int64_t>(*parsed);
}

/// For a budget `limit` no candidate meets, the other routes: with optimizer
/// updates on the device, what train-offload{optimizer=host} would move to
/// host memory; when train-schedule has not ordered the step, what it would
/// reach, measured as train-schedule measures it (its `best` orders, on this
/// step's dependence graph; the step is not changed), and the advice to run
/// it first. Empty when neither applies.
static std::string describeOtherRoutes(func::FuncOp func, int64_t limit) {
  // The other memory: the optimizer's state on the host (train-offload).
  std::string offload;
  if (int64_t states = getOffloadableStateBytes(func))
    offload = ". train-offload{optimizer=host}, applied before train-remat, "
              "would move the optimizer's updates and the " +
              std::to_string(states) +
              " bytes of parameters and optimizer states they write to host "
              "memory";
  if (func->hasAttr(TrainDialect::kScheduleAttrName))
    return offload;
  TensorLiveness liveness(func);
  ScheduleGraph graph(func, liveness);
  SmallVector<ScheduleCandidate> orders =
      proposeSchedules(graph, "best", kDefaultExactLimit);
  const ScheduleCandidate &best = pickSchedule(orders, "best");
  if (best.load >= liveness.getLoad())
    return offload;
  std::string text = offload;
  llvm::raw_string_ostream os(text);
  os << ". The step is not scheduled: train-schedule (its '" << best.heuristic
     << "' order) would lower its peak from " << liveness.getLoad() << " to "
     << best.load << " bytes"
     << (best.load <= limit ? ", within the budget," : "")
     << " before any recomputation; run train-schedule before train-remat";
  return text;
}

LogicalResult TrainRematPass::proposeCandidates(
    func::FuncOp func, const TensorLiveness &before,
    std::optional<int64_t> limit, SmallVectorImpl<RematCandidate> &candidates) {
  bool isAuto = algorithm == RematAlgorithm::Auto;
  llvm::SmallBitVector keepAll(getActivations(before).size(), true);
  if (algorithm == RematAlgorithm::None || isAuto)
    candidates.push_back(evaluateKeepSet(func, "none", keepAll));
  if (algorithm == RematAlgorithm::Layers || (isAuto && limit))
    candidates.push_back(evaluateRewrite(func, "layers", [](func::FuncOp f) {
      return applyLayerCheckpoints(f);
    }));
  if (algorithm == RematAlgorithm::Sqrt || (isAuto && limit))
    candidates.push_back(evaluateKeepSet(func, "sqrt", getSqrtKeepSet(before)));
  if (algorithm == RematAlgorithm::Selective || (isAuto && limit)) {
    llvm::SmallBitVector keep = getSelectiveKeepSet(before);
    // Keeping everything is `none`'s answer, not a selective one.
    if (algorithm == RematAlgorithm::Selective && keep.all())
      return mlir::emitError(func.getLoc())
             << "train-remat: no candidate of algorithm 'selective' for @"
             << func.getSymName()
             << ": it recomputes attention scores (softmax outputs and the "
                "dropout applied to them) and the step has none";
    candidates.push_back(evaluateKeepSet(func, "selective", keep));
  }
  if (algorithm == RematAlgorithm::Greedy || (isAuto && limit)) {
    FailureOr<RematCandidate> greedy =
        runGreedyRemat(func, before, limit, checkModel);
    if (failed(greedy))
      return failure();
    candidates.push_back(std::move(*greedy));
  }
  if (algorithm == RematAlgorithm::Chain && !limit) {
    // Without a budget `chain` keeps everything, on a chain only.
    std::string why;
    if (failed(getChainGroups(func, why)))
      return mlir::emitError(func.getLoc())
             << "train-remat: algorithm 'chain' cannot run on @"
             << func.getSymName()
             << ": the step is not a chain of layers: " << why;
  }
  if ((algorithm == RematAlgorithm::Optimal ||
       algorithm == RematAlgorithm::Chain) &&
      !limit)
    candidates.push_back(evaluateKeepSet(func, getAlgorithmName(), keepAll));
  if (!limit)
    return success();

  // auto only spends solver time when keeping everything does not fit.
  bool autoNeedsMore = isAuto && candidates.front().peak > *limit;
  if (algorithm == RematAlgorithm::Chain || autoNeedsMore) {
    std::string why;
    if (std::optional<RematCandidate> chain =
            runChainRemat(func, *limit, before.getLoad(), why))
      candidates.push_back(std::move(*chain));
    else if (algorithm == RematAlgorithm::Chain)
      return mlir::emitError(func.getLoc())
             << "train-remat: algorithm 'chain' found no schedule within the "
                "budget of "
             << *limit << " bytes: " << why
             << "; parameters and optimizer states alone take "
             << before.getPersistentBytes() << " bytes"
             << describeOtherRoutes(func, *limit);
  }
  if (algorithm == RematAlgorithm::Optimal || autoNeedsMore) {
    auto start = std::chrono::steady_clock::now();
    // The MILP looks only for plans cheaper than the cheapest candidate in
    // hand that meets the budget (auto: every one so far; optimal: greedy's,
    // run here), and `optimal` answers with greedy's keep-set when greedy is
    // cheaper: it is never worse than the default search.
    std::optional<RematCandidate> greedy;
    if (algorithm == RematAlgorithm::Optimal) {
      FailureOr<RematCandidate> found =
          runGreedyRemat(func, before, limit, checkModel);
      if (failed(found))
        return failure();
      if (found->peak <= *limit)
        greedy = std::move(*found);
    }
    std::optional<int64_t> cutoff;
    for (const RematCandidate &candidate : candidates)
      if (candidate.peak <= *limit && (!cutoff || candidate.flops < *cutoff))
        cutoff = candidate.flops;
    if (greedy && (!cutoff || greedy->flops < *cutoff))
      cutoff = greedy->flops;
    OptimalRematLimits limits;
    limits.timeLimitSeconds = timeLimit;
    limits.nodeLimit = nodeLimit;
    limits.cutoffFlops = cutoff;
    optimalRan = true;
    std::optional<RematCandidate> optimal;
    if (failed(runOptimalLevels(func, *limit, limits, start, optimal)))
      return failure();
    if (greedy) {
      greedy->algorithm = getAlgorithmName();
      greedy->detail = "greedy's keep-set (" + std::to_string(greedy->flops) +
                       " recomputed FLOPs) answers: ";
      if (optimal)
        greedy->detail += "the MILP's plan recomputes " +
                          std::to_string(optimal->flops) + " (" +
                          optimal->detail + ")";
      else
        greedy->detail += optimalFailure;
      candidates.push_back(std::move(*greedy));
    }
    if (optimal)
      candidates.push_back(std::move(*optimal));
  }
  return success();
}

LogicalResult
TrainRematPass::runOptimalLevels(func::FuncOp func, int64_t limit,
                                 OptimalRematLimits limits,
                                 std::chrono::steady_clock::time_point start,
                                 std::optional<RematCandidate> &optimal) {
  // auto answers in seconds: it solves the first model only, and an
  // explicit `optimal` refines.
  bool refine = segments == 0 && algorithm == RematAlgorithm::Optimal;
  unsigned levelSegments =
      segments == 0 ? kFirstAutoSegments : static_cast<unsigned>(segments);
  SmallVector<unsigned> solvedSizes;
  unsigned previousForward = 0;
  std::string stopped;
  while (true) {
    FailureOr<StepGroups> built = getStepGroups(func, levelSegments);
    if (failed(built))
      return mlir::emitError(func.getLoc())
             << "train-remat: cannot group @" << func.getSymName()
             << " for the schedule solver";
    unsigned size = built->members.size();
    if (!solvedSizes.empty()) {
      if (built->numForward <= previousForward)
        break; // Op granularity: every forward op is a group already.
      if (size > kMaxAutoGroups) {
        stopped = (llvm::Twine("; the next model, ") + llvm::Twine(size) +
                   " groups, is over the " + llvm::Twine(kMaxAutoGroups) +
                   " that segments=0 solves")
                      .str();
        break;
      }
    }
    previousForward = built->numForward;
    groupModels.push_back(std::move(*built));
    std::string why = optimalFailure;
    bool proven = false;
    std::optional<RematCandidate> found =
        runOptimalRemat(func, groupModels.back(), limit, limits, start, why,
                        proven, offload ? &offloadModel : nullptr);
    solvedSizes.push_back(size);
    if (found && (!optimal || found->flops < optimal->flops)) {
      optimal = std::move(found);
      limits.cutoffFlops = optimal->flops;
    }
    if (!optimal)
      optimalFailure = why;
    if (!refine)
      return success();
    if (!proven) {
      stopped = "; the last model was not settled within the limits";
      break;
    }
    if (levelSegments > std::numeric_limits<unsigned>::max() / 2)
      break;
    levelSegments *= 2;
  }
  // Say which models were solved (segments=0).
  std::string sizes;
  for (auto [index, size] : llvm::enumerate(solvedSizes))
    sizes += (index ? ", " : "") + std::to_string(size);
  std::string levels = "; models of " + sizes + " groups solved" + stopped;
  if (optimal)
    optimal->detail += levels;
  else
    optimalFailure += levels;
  return success();
}

void TrainRematPass::reportNoCandidate(func::FuncOp func,
                                       ArrayRef<RematCandidate> candidates,
                                       int64_t limit, int64_t persistent) {
  if (candidates.empty()) {
    mlir::emitError(func.getLoc())
        << "train-remat: algorithm '" << getAlgorithmName()
        << "' found no schedule within the budget of " << limit
        << " bytes: " << optimalFailure
        << " (more segments refine the model; greedy decides per "
           "activation); parameters and optimizer states alone take "
        << persistent << " bytes" << describeOtherRoutes(func, limit);
    return;
  }
  const RematCandidate *lowest = &candidates.front();
  for (const RematCandidate &candidate : candidates)
    if (candidate.peak < lowest->peak)
      lowest = &candidate;
  // Recomputing every activation bounds what any keep-set reaches.
  unsigned n = getActivations(TensorLiveness(func)).size();
  RematCandidate everything = evaluateKeepSet(func, "recompute everything",
                                              llvm::SmallBitVector(n, false));
  mlir::emitError(func.getLoc())
      << "train-remat: no candidate of algorithm '" << getAlgorithmName()
      << "' meets the budget of " << limit
      << " bytes: the smallest peak reached is " << lowest->peak
      << " bytes, by '" << lowest->algorithm
      << "' (recomputing every activation peaks at " << everything.peak
      << " bytes); parameters and optimizer states alone take " << persistent
      << " bytes" << describeOtherRoutes(func, limit);
}

void TrainRematPass::emitAutoRemark(func::FuncOp func,
                                    const RematCandidate &chosen,
                                    ArrayRef<RematCandidate> candidates,
                                    std::optional<int64_t> limit) {
  InFlightDiagnostic remark = mlir::emitRemark(func.getLoc());
  remark << "train-remat: auto chose '" << chosen.algorithm << "': ";
  if (!limit)
    remark << "without a budget it keeps every activation (peak " << chosen.peak
           << " bytes)";
  else {
    if (offload)
      remark << "the least estimated time ("
             << llvm::formatv("{0:e3}", *chosen.seconds) << " s, "
             << chosen.flops << " FLOPs recomputed)";
    else
      remark << "the least recompute (" << chosen.flops << " FLOPs)";
    remark << " of the "
           << llvm::count_if(candidates,
                             [&](const RematCandidate &candidate) {
                               return candidate.peak <= *limit;
                             })
           << " candidates within the budget of " << *limit << " bytes; peak "
           << chosen.peak << " bytes";
  }
  if (optimalRan && llvm::none_of(candidates, [](const RematCandidate &c) {
        return c.algorithm == "optimal";
      }))
    remark << "; optimal: " << optimalFailure;
}

void TrainRematPass::runOnOperation() {
  func::FuncOp func = getOperation();
  if (func.isExternal())
    return;
  if (failed(train::verifyStepBody(func, "train-remat")))
    return signalPassFailure();
  if (failed(checkOptions(func.getLoc())))
    return signalPassFailure();
  FailureOr<std::optional<int64_t>> limit = parseBudget(func.getLoc());
  if (failed(limit))
    return signalPassFailure();
  TensorLiveness before(func);
  if (llvm::none_of(func.getBody().front(), [&](Operation &op) {
        return computesForward(before, &op);
      })) {
    mlir::emitError(func.getLoc())
        << "train-remat: @" << func.getSymName()
        << " is not a training step: its first result is not "
           "a 0-d float loss";
    return signalPassFailure();
  }
  int64_t peakBefore = before.getLoad();
  int64_t persistent = before.getPersistentBytes();

  groupModels.clear();
  optimalFailure = "the solver ran out of time";
  optimalRan = false;
  SmallVector<RematCandidate> candidates;
  if (failed(proposeCandidates(func, before, *limit, candidates)))
    return signalPassFailure();
  if (offload) {
    addOffloadCandidates(func, *limit, candidates);
    emitChoicesRemark(func, candidates, **limit, peakBefore);
  }

  // The cheapest candidate within the budget: the least recompute (with
  // offload, the least estimated time; ties: the lower peak).
  auto cheaper = [&](const RematCandidate &a, const RematCandidate &b) {
    if (offload && *a.seconds != *b.seconds)
      return *a.seconds < *b.seconds;
    if (a.flops != b.flops)
      return a.flops < b.flops;
    return a.peak < b.peak;
  };
  const RematCandidate *chosen = nullptr;
  for (const RematCandidate &candidate : candidates) {
    if (*limit && candidate.peak > **limit)
      continue;
    if (!chosen || cheaper(candidate, *chosen))
      chosen = &candidate;
  }
  if (!chosen) {
    reportNoCandidate(func, candidates, **limit, persistent);
    return signalPassFailure();
  }
  if (algorithm == RematAlgorithm::Auto)
    emitAutoRemark(func, *chosen, candidates, *limit);
  if (!chosen->detail.empty())
    mlir::emitRemark(func.getLoc())
        << "train-remat: " << chosen->algorithm << ": " << chosen->detail;
  if (offload)
    mlir::emitRemark(func.getLoc())
        << "train-remat: offload: " << chosen->numOffloaded
        << " activations offloaded (" << chosen->offloadedBytes
        << " bytes each way over the host link); estimated step time "
        << llvm::formatv("{0:e3}", *chosen->seconds) << " s on "
        << offloadModel.device.name;

  int64_t flops = chosen->apply(func);
  Builder builder(&getContext());
  func->setAttr(TrainDialect::kRematFlopsAttrName,
                builder.getI64IntegerAttr(flops));
  func->setAttr(TrainDialect::kRematPeakBeforeAttrName,
                builder.getI64IntegerAttr(peakBefore));
  func->setAttr(TrainDialect::kRematPeakAfterAttrName,
                builder.getI64IntegerAttr(TensorLiveness(func).getLoad()));
  SmallVector<NamedAttribute, 2> record = {
      builder.getNamedAttr(TrainDialect::kRematAlgorithmKey,
                           builder.getStringAttr(chosen->algorithm))};
  if (*limit)
    record.push_back(builder.getNamedAttr(TrainDialect::kRematBudgetKey,
                                          builder.getI64IntegerAttr(**limit)));
  if (chosen->gap)
    record.push_back(builder.getNamedAttr(
        TrainDialect::kRematGapKey, builder.getF64FloatAttr(*chosen->gap)));
  if (offload) {
    record.push_back(builder.getNamedAttr(
        TrainDialect::kRematLinkKey,
        builder.getF64FloatAttr(offloadModel.linkBytesPerSecond)));
    record.push_back(
        builder.getNamedAttr(TrainDialect::kRematDeviceKey,
                             builder.getStringAttr(offloadModel.device.name)));
  }
  func->setAttr(TrainDialect::kRematAttrName,
                builder.getDictionaryAttr(record));
}
