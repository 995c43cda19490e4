//===- Ranking.cpp - mem-autoplan's ranking, requests and messages --------===//
//
// search(): phase 1 (Candidates.cpp), then phase 2, the screened candidates
// planned in full, fastest first, until `top` fit. And what surrounds the
// search: a user's request checked into SearchOptions, the model of a step
// file, sizes and the message when nothing fits.
//
//===----------------------------------------------------------------------===//

#include "SearchPhases.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/Diagnostics.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/StringSet.h"
#include "llvm/Support/FormatVariadic.h"

#include <algorithm>
#include <cmath>

using namespace mlir;
using namespace mlir::memopt;
using namespace mlir::memopt::autoplan;

//===----------------------------------------------------------------------===//
// Search
//===----------------------------------------------------------------------===//

/// The pipeline schedules after the first of options.pipelineSchedules for
/// `candidate` (pipelined, fitting under the first), each screened: ZB-H1
/// keeps its stages and micro-batches; the interleaved schedule takes 2
/// chunks a stage where the layers split evenly into them and the
/// micro-batches into groups of the stages.
static std::vector<Evaluation>
screenScheduleVariants(MLIRContext &context, const StepSource &source,
                       const SearchOptions &options, const Candidate &candidate,
                       SearchResult &result) {
  std::vector<Evaluation> variants;
  for (PipelineSchedule schedule :
       llvm::drop_begin(options.pipelineSchedules)) {
    Candidate variant = candidate;
    variant.schedule = schedule;
    variant.virtualStages = 1;
    if (schedule == PipelineSchedule::Interleaved) {
      variant.virtualStages = 2;
      if (candidate.firstStageLayers > 0 ||
          source.layers % (candidate.pp * variant.virtualStages) != 0 ||
          checkScheduleShape(schedule, candidate.pp,
                             candidate.gradientAccumulation,
                             variant.virtualStages))
        continue;
    }
    ++result.numCandidates;
    ++result.numScreened;
    variants.push_back(screenCandidate(context, source, options, variant));
  }
  return variants;
}

/// Phase 2 of search(): plans the screened candidates of `screened`, best
/// first, into `result.ranked`.
static void
rankCandidates(MLIRContext &context, const StepSource &source,
               const SearchOptions &options,
               llvm::function_ref<void(const Evaluation &)> progress,
               const ScreenedCandidates &screened, SearchResult &result) {
  // Phase 2: best first. Candidates that screened as fitting, and the
  // greedy ones, by their (composed, or lower-bound) time; each is planned
  // in full when it comes first, and takes its place by its own numbers.
  // Equal time and memory (ZeRO 1 and 2 often tie: they send the same
  // bytes): the lower stage first, then by description, so that the order
  // is total and does not depend on the heap's.
  auto later = [](const Evaluation &a, const Evaluation &b) {
    if (a.cost.stepSeconds != b.cost.stepSeconds)
      return a.cost.stepSeconds > b.cost.stepSeconds;
    if (a.loadBytes != b.loadBytes)
      return a.loadBytes > b.loadBytes;
    if (a.candidate.zero != b.candidate.zero)
      return a.candidate.zero > b.candidate.zero;
    return a.candidate.describe() > b.candidate.describe();
  };
  std::vector<Evaluation> queue;
  for (const Evaluation &screen : screened.screens)
    if (screen.status == Evaluation::Status::Fits)
      queue.push_back(screen);
  for (const Evaluation &bound : screened.greedy)
    queue.push_back(bound);
  std::make_heap(queue.begin(), queue.end(), later);
  // Pipelined candidates whose other schedules were screened.
  llvm::StringSet<> varied;
  while (!queue.empty() && result.ranked.size() < options.top) {
    std::pop_heap(queue.begin(), queue.end(), later);
    Evaluation next = std::move(queue.back());
    queue.pop_back();
    // A pipelined candidate that comes first under the first schedule: its
    // other schedules are screened now and compete in the queue with it (a
    // search screens them only for the candidates that reach the top).
    if (next.candidate.pp > 1 && !next.planned &&
        next.candidate.schedule == options.pipelineSchedules.front() &&
        varied.insert(next.candidate.describe()).second) {
      for (Evaluation &variant : screenScheduleVariants(
               context, source, options, next.candidate, result)) {
        if (progress)
          progress(variant);
        result.evaluations.push_back(variant);
        if (variant.status != Evaluation::Status::Fits)
          continue;
        queue.push_back(std::move(variant));
        std::push_heap(queue.begin(), queue.end(), later);
      }
      queue.push_back(std::move(next));
      std::push_heap(queue.begin(), queue.end(), later);
      continue;
    }
    if (next.planned) {
      result.ranked.push_back(std::move(next));
      continue;
    }
    Evaluation full =
        evaluateCandidate(context, source, options, next.candidate);
    if (next.candidate.remat != RematChoice::Greedy && next.candidate.pp == 1 &&
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
}

/// One round of search(): every candidate offloads what the flags say.
static SearchResult
searchRound(MLIRContext &context, const StepSource &source,
            const SearchOptions &options,
            llvm::function_ref<void(const Evaluation &)> progress,
            bool offloadOptimizer, bool offloadActivations) {
  SearchResult result;
  result.offloadSearched = offloadOptimizer || offloadActivations;
  ScreenedCandidates screened =
      screenCandidates(context, source, options, progress, result,
                       offloadOptimizer, offloadActivations);
  std::vector<Evaluation> &screens = screened.screens;
  result.numScreened = screens.size();
  // (Phase 2 screens the other pipeline schedules of the candidates that
  // reach the top, and counts them.)
  rankCandidates(context, source, options, progress, screened, result);
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

/// Adds the round `next` to `result`: its evaluations and counts, its
/// fitting plans into the ranking (fastest first, at most `top`), and its
/// smallest peak where nothing fits yet.
static void mergeRound(SearchResult &result, SearchResult next, unsigned top) {
  for (Evaluation &evaluation : next.evaluations)
    result.evaluations.push_back(std::move(evaluation));
  result.numCandidates += next.numCandidates;
  result.numPruned += next.numPruned;
  result.numScreened += next.numScreened;
  result.numPlanned += next.numPlanned;
  result.numCompositionChecks += next.numCompositionChecks;
  result.numCompositionMismatches += next.numCompositionMismatches;
  result.offloadSearched |= next.offloadSearched;
  for (Evaluation &evaluation : next.ranked)
    result.ranked.push_back(std::move(evaluation));
  llvm::stable_sort(result.ranked,
                    [](const Evaluation &a, const Evaluation &b) {
                      return a.cost.stepSeconds < b.cost.stepSeconds;
                    });
  if (result.ranked.size() > top)
    result.ranked.resize(top);
  if (!result.ranked.empty())
    result.smallest.reset();
  else if (next.smallest &&
           (!result.smallest ||
            next.smallest->peakBytes < result.smallest->peakBytes))
    result.smallest = std::move(next.smallest);
}

SearchResult mlir::memopt::autoplan::search(
    MLIRContext &context, const StepSource &source,
    const SearchOptions &options,
    llvm::function_ref<void(const Evaluation &)> progress) {
  using Mode = SearchOptions::OffloadMode;
  bool greedy = llvm::is_contained(options.remat, RematChoice::Greedy);
  if (options.offload == Mode::None || options.offload == Mode::Activations)
    return searchRound(context, source, options, progress,
                       /*offloadOptimizer=*/false,
                       options.offload == Mode::Activations);
  // The optimizer on the host: with gradient accumulation on the host (as
  // ZeRO-Offload's) or, pipelined, each stage's part of the updates on its
  // process's host.
  const SearchOptions &onHost = options;
  if (options.offload == Mode::Optimizer)
    return searchRound(context, source, onHost, progress,
                       /*offloadOptimizer=*/true, /*offloadActivations=*/false);
  // All: activations, then the optimizer with them; auto: nothing first,
  // and each next round only while nothing fits.
  bool isAuto = options.offload == Mode::Auto;
  SearchResult result =
      searchRound(context, source, options, progress,
                  /*offloadOptimizer=*/false, /*offloadActivations=*/!isAuto);
  // (Auto offloads where candidates were built but did not fit: where none
  // could be built, offload would not change that.)
  bool tooLarge = result.ranked.empty() && result.smallest;
  if (isAuto && tooLarge && greedy) {
    // Only greedy changes with activations offloaded: keeping everything
    // and full recomputation are screened again as its bounds.
    SearchOptions activations = options;
    llvm::erase_if(activations.remat, [](RematChoice choice) {
      return choice == RematChoice::Selective;
    });
    mergeRound(result,
               searchRound(context, source, activations, progress,
                           /*offloadOptimizer=*/false,
                           /*offloadActivations=*/true),
               options.top);
  }
  if (!isAuto || (tooLarge && result.ranked.empty()))
    mergeRound(result,
               searchRound(context, source, onHost, progress,
                           /*offloadOptimizer=*/true,
                           /*offloadActivations=*/true),
               options.top);
  return result;
}

//===----------------------------------------------------------------------===//
// Requests, module sources and messages
//===----------------------------------------------------------------------===//

static llvm::Error requestError(const Twine &message) {
  return llvm::createStringError(llvm::inconvertibleErrorCode(), message);
}

/// Appends the degrees `values` of option `name` (--tp, --pp) to `out`:
/// each positive and dividing `devices`.
static llvm::Error readDegrees(StringRef name, ArrayRef<int64_t> values,
                               int64_t devices, SmallVectorImpl<int64_t> &out) {
  for (int64_t degree : values) {
    if (degree < 1)
      return requestError(name + " must be positive, got " + Twine(degree));
    if (devices % degree != 0)
      return requestError(name + " " + Twine(degree) +
                          " does not divide --devices " + Twine(devices));
    out.push_back(degree);
  }
  return llvm::Error::success();
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

/// The devices and the memory of each in `request`, checked into `options`.
static llvm::Error setDevices(const SearchRequest &request,
                              SearchOptions &options) {
  llvm::Expected<DeviceProfile> device = loadDeviceProfile(request.device);
  if (!device)
    return device.takeError();
  options.device = *device;
  if (request.devices < 1)
    return requestError("--devices must be at least 1, got " +
                        Twine(request.devices));
  options.devices = request.devices;
  if (!request.globalBatch)
    return requestError("--global-batch is required: the samples per "
                        "optimizer step over all devices");
  if (*request.globalBatch < 1)
    return requestError("--global-batch must be positive (the samples per "
                        "optimizer step over all devices), got " +
                        Twine(*request.globalBatch));
  options.globalBatch = *request.globalBatch;
  options.deviceMemory = options.device.memoryBytes;
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
  return llvm::Error::success();
}

/// The precisions, partitions and recomputations of `request` to search,
/// checked into `options` (the devices already there).
static llvm::Error setSearchSpace(const SearchRequest &request,
                                  SearchOptions &options) {
  const DeviceProfile &device = options.device;
  if (request.precisions.empty()) {
    options.precisions.push_back(train::PrecisionMode::BF16Mixed);
    if (device.fp8Flops > 0)
      options.precisions.push_back(train::PrecisionMode::FP8);
  }
  for (const std::string &name : request.precisions) {
    std::optional<train::PrecisionMode> mode =
        train::symbolizePrecisionMode(name);
    if (!mode)
      return requestError("unknown --precision '" + name +
                          "'; expected fp32, bf16-mixed, fp16-mixed, "
                          "bf16-pure or fp8");
    if (*mode == train::PrecisionMode::FP8 && device.fp8Flops == 0)
      return requestError("--precision fp8: device '" + device.name +
                          "' has no fp8 units (its profile's "
                          "flops_per_second.fp8 is 0)");
    options.precisions.push_back(*mode);
  }

  if (llvm::Error error = readDegrees("--tp", request.tensorParallel,
                                      request.devices, options.tensorParallel))
    return error;
  if (request.tensorParallel.empty())
    for (int64_t tp = 1; tp <= request.devices && tp <= device.devicesPerNode;
         ++tp)
      if (request.devices % tp == 0)
        options.tensorParallel.push_back(tp);
  if (llvm::Error error =
          readDegrees("--pp", request.pipelineParallel, request.devices,
                      options.pipelineParallel))
    return error;
  if (!request.pipelineSchedules.empty()) {
    options.pipelineSchedules.clear();
    for (const std::string &name : request.pipelineSchedules) {
      std::optional<PipelineSchedule> schedule = parsePipelineSchedule(name);
      if (!schedule || *schedule == PipelineSchedule::GPipe)
        return requestError("unknown --pp-schedule '" + name +
                            "'; expected 1f1b, zb-h1 or interleaved");
      if (!llvm::is_contained(options.pipelineSchedules, *schedule))
        options.pipelineSchedules.push_back(*schedule);
    }
  }
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
  return llvm::Error::success();
}

llvm::Expected<SearchOptions>
mlir::memopt::autoplan::makeSearchOptions(const SearchRequest &request,
                                          const StepSource &source) {
  SearchOptions options;
  if (llvm::Error error = setDevices(request, options))
    return std::move(error);
  if (llvm::Error error = setSearchSpace(request, options))
    return std::move(error);
  if (request.top < 1)
    return requestError("--top must be at least 1");
  options.top = request.top;
  std::optional<SearchOptions::OffloadMode> offload =
      llvm::StringSwitch<std::optional<SearchOptions::OffloadMode>>(
          request.offload)
          .Case("auto", SearchOptions::OffloadMode::Auto)
          .Case("none", SearchOptions::OffloadMode::None)
          .Case("activations", SearchOptions::OffloadMode::Activations)
          .Case("optimizer", SearchOptions::OffloadMode::Optimizer)
          .Case("all", SearchOptions::OffloadMode::All)
          .Default(std::nullopt);
  if (!offload)
    return requestError("unknown --offload '" + request.offload +
                        "'; expected auto, none, activations, optimizer or "
                        "all");
  options.offload = *offload;
  options.deviceSpec = request.device;
  if (!request.hostMemory.empty()) {
    FailureOr<int64_t> bytes = parseByteSize(request.hostMemory);
    if (failed(bytes) || *bytes <= 0)
      return requestError("cannot parse --host-memory '" + request.hostMemory +
                          "'; expected a positive size such as 2TiB");
    options.hostMemory = *bytes;
  }
  // Offload's cost needs the host's link and memory bandwidth: without
  // them in the profile, auto searches no offload and the others refuse.
  bool knowsHost = options.device.hostLinkBytesPerSecond > 0 &&
                   options.device.hostMemoryBytesPerSecond > 0;
  if (options.offload == SearchOptions::OffloadMode::Auto && !knowsHost)
    options.offload = SearchOptions::OffloadMode::None;
  bool offloads = options.offload != SearchOptions::OffloadMode::None;
  if (offloads && options.device.hostLinkBytesPerSecond <= 0)
    return requestError("--offload: device '" + options.device.name +
                        "' has no host_link_bytes_per_second in its profile "
                        "(use --offload=none, or add it)");
  if (offloads && options.device.hostMemoryBytesPerSecond <= 0)
    return requestError("--offload: device '" + options.device.name +
                        "' has no host_memory_bytes_per_second in its "
                        "profile (use --offload=none, or add it)");
  for (int64_t micro : request.microBatches) {
    if (micro < 1)
      return requestError("--micro-batch must be positive, got " +
                          Twine(micro));
    options.microBatches.push_back(micro);
  }
  for (int64_t pp : options.pipelineParallel)
    if (pp > 1 && pp > source.layers)
      return requestError(
          "--pp " + Twine(pp) + ": " +
          (source.layers == 0
               ? Twine("pipeline stages are searched on the generated "
                       "models, whose layers mem-autoplan splits; a step file "
                       "takes --pp 1")
               : "the model has " + Twine(source.layers) +
                     " layers, fewer than the stages"));
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
  else if (request.optimizer == "adamw8bit")
    options.optimizer = AutodiffOptimizer::AdamW8bit;
  else if (request.optimizer == "adam8bit")
    options.optimizer = AutodiffOptimizer::Adam8bit;
  else
    return requestError("unknown --optimizer '" + request.optimizer +
                        "'; expected adamw, adam, sgd, adamw8bit or adam8bit");
  // Some tensor-parallel degree and number of stages (any divisor of the
  // devices left when not given) must leave a data-parallel degree that
  // divides the global batch.
  auto divides = [&](int64_t tp, int64_t pp) {
    return (request.devices / tp) % pp == 0 &&
           options.globalBatch % (request.devices / tp / pp) == 0;
  };
  if (llvm::none_of(options.tensorParallel, [&](int64_t tp) {
        if (!options.pipelineParallel.empty())
          return llvm::any_of(options.pipelineParallel,
                              [&](int64_t pp) { return divides(tp, pp); });
        for (int64_t pp = 1; pp <= request.devices / tp; ++pp)
          if (pp == 1 || pp <= source.layers)
            if (divides(tp, pp))
              return true;
        return false;
      }))
    return requestError("--global-batch " + Twine(options.globalBatch) +
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

/// What a model that fits no searched configuration needs, besides host
/// memory.
static std::string describeWhatElseOnDevices(const SearchResult &result) {
  int64_t stages = 1;
  for (const Evaluation &evaluation : result.evaluations)
    stages = std::max(stages, evaluation.candidate.pp);
  if (stages > 1)
    return "Pipeline stages were searched up to " + std::to_string(stages) +
           "; this needs more devices, context or expert parallelism, a "
           "smaller global batch or more memory per device";
  return "This needs more devices, pipeline parallelism (searched on the "
         "generated models, whose layers it splits), a smaller global batch "
         "or more memory per device";
}

/// What a model that fits no searched configuration needs.
static std::string describeWhatElse(const SearchResult &result) {
  if (result.offloadSearched)
    return "Host memory was searched too (the optimizer and activations "
           "offloaded). " +
           describeWhatElseOnDevices(result);
  return describeWhatElseOnDevices(result);
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
  if (options.hostMemory && smallest.peakBytes <= options.getBudget())
    return "no configuration of " + model.str() + " on " +
           countDevices(options.devices) + " fits both " +
           formatSize(options.getBudget()) + " per device and --host-memory " +
           formatSize(*options.hostMemory) +
           " per node: those that fit the device offload to the host, and " +
           "the one of least device memory, " + smallest.candidate.describe() +
           " (" + formatSize(smallest.peakBytes) + " a device), needs " +
           formatSize(smallest.hostPeakBytes * options.getProcessesPerNode()) +
           " of host memory per node";
  return "no configuration fits " + formatSize(options.getBudget()) +
         " per device (" + formatSize(options.deviceMemory) +
         " less the reserve of " + formatSize(options.reserve) + ") on " +
         countDevices(options.devices) +
         ": the smallest per-device peak reached is " +
         formatSize(smallest.peakBytes) + ", by " +
         smallest.candidate.describe() + ", of which model states " +
         formatSize(smallest.modelStateBytes) + " and saved activations " +
         formatSize(smallest.savedActivationBytes) + ", at " + smallest.peakOp +
         ". " + describeWhatElse(result);
}
