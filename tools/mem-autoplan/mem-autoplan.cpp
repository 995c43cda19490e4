//===- mem-autoplan.cpp - the fastest configuration that fits -------------===//
//
// mem-autoplan searches micro-batch, precision, tensor parallelism (with or
// without sequence parallelism), data parallelism with a ZeRO stage and
// rematerialization for the training configuration of a model on N devices
// that fits each device's memory and takes the least estimated time per
// step (docs/autoplan.md). Memory comes from the planned step of each
// candidate, time from a documented cost model over a device profile.
//
//===----------------------------------------------------------------------===//

#include "FitTable.h"
#include "memopt/Autoplan/Autoplan.h"
#include "memopt/InitAll.h"
#include "memopt/Models/Models.h"
#include "memopt/Report/MemoryReport.h"
#include "memopt/Support/AtomicFile.h"
#include "memopt/Transforms/Lora.h"
#include "memopt/Transforms/Passes.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/IR/OperationSupport.h"
#include "mlir/Parser/Parser.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Pass/PassRegistry.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/ADT/StringSet.h"
#include "llvm/Support/CommandLine.h"
#include "llvm/Support/Format.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/InitLLVM.h"
#include "llvm/Support/JSON.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/SourceMgr.h"
#include "llvm/Support/WithColor.h"

#include <chrono>

using namespace mlir;
using namespace mlir::memopt;
using namespace mlir::memopt::autoplan;
using namespace mlir::memopt::gen;

namespace cl = llvm::cl;

static cl::OptionCategory modelCategory("Model (a preset, an HF config or a "
                                        "step file)");
static cl::OptionCategory searchCategory("Devices and search");
static cl::OptionCategory outputCategory("Output");
static cl::OptionCategory fineTuningCategory(
    "Fine-tuning (with --devices 1 and no --global-batch: the largest "
    "micro-batch per sequence length that fits)");

static cl::opt<std::string> loraSpec(
    "lora",
    cl::desc(
        "LoRA (train-lora): rank=R[,alpha=A][,dropout=P]"
        "[,targets=NAME,...], targets last (default: PEFT's, q_proj,v_proj "
        "for Llama, c_attn for GPT-2); the rest of the model frozen"),
    cl::value_desc("spec"), cl::init(""), cl::cat(fineTuningCategory));
static cl::opt<std::string> freezePatterns(
    "freeze",
    cl::desc("Freeze the parameters matching these comma-separated glob "
             "patterns (train-freeze)"),
    cl::value_desc("patterns"), cl::init(""), cl::cat(fineTuningCategory));
static cl::opt<std::string>
    quantizeFrozen("quantize-frozen",
                   cl::desc("Store the frozen linear weights quantized "
                            "(train-quantize-frozen): nf4 (QLoRA) or int8"),
                   cl::value_desc("format"), cl::init(""),
                   cl::cat(fineTuningCategory));

static cl::opt<std::string> modelName(
    cl::Positional,
    cl::desc("<model>: a preset (llama-2-7b, gpt2-xl, ...), 'gpt2' or "
             "'llama' (with --hf-config or the size options), or a step or "
             "forward + loss .mlir file"),
    cl::init(""), cl::cat(modelCategory));
static cl::opt<std::string>
    hfConfig("hf-config", cl::desc("A HuggingFace config.json to build"),
             cl::value_desc("file"), cl::init(""), cl::cat(modelCategory));
static cl::opt<int64_t> numLayers("layers", cl::desc("Override: layers"),
                                  cl::cat(modelCategory));
static cl::opt<int64_t> hiddenSize("hidden", cl::desc("Override: hidden size"),
                                   cl::cat(modelCategory));
static cl::opt<int64_t> numHeads("heads", cl::desc("Override: attention heads"),
                                 cl::cat(modelCategory));
static cl::opt<int64_t> numKvHeads("kv-heads",
                                   cl::desc("Override: key/value heads"),
                                   cl::cat(modelCategory));
static cl::opt<int64_t> ffnSize("ffn", cl::desc("Override: MLP width"),
                                cl::cat(modelCategory));
static cl::opt<int64_t> vocabSize("vocab", cl::desc("Override: vocabulary"),
                                  cl::cat(modelCategory));
static cl::opt<int64_t> seqLength("seq",
                                  cl::desc("Sequence length (default: the "
                                           "model's context length)"),
                                  cl::cat(modelCategory));
static cl::opt<double> dropoutRate("dropout",
                                   cl::desc("Override: GPT-2's dropout rates"),
                                   cl::cat(modelCategory));

static cl::opt<int64_t>
    globalBatch("global-batch",
                cl::desc("Samples (sequences) per optimizer step over all "
                         "devices (required)"),
                cl::init(0), cl::cat(searchCategory));
static cl::opt<int64_t> numDevices("devices",
                                   cl::desc("Devices (processes) to use"),
                                   cl::init(1), cl::cat(searchCategory));
static cl::opt<std::string>
    deviceName("device",
               cl::desc("Device profile: a built-in name or the path of a "
                        ".json profile (default h100)"),
               cl::init("h100"), cl::cat(searchCategory));
static cl::opt<std::string>
    deviceMemory("device-memory",
                 cl::desc("Memory per device, e.g. 80GiB (default: the "
                          "profile's)"),
                 cl::init(""), cl::cat(searchCategory));
static cl::opt<std::string>
    reserveOption("reserve",
                  cl::desc("Memory per device kept back for the CUDA "
                           "context, library workspaces and the allocator's "
                           "slack (default 1GiB)"),
                  cl::init("1GiB"), cl::cat(searchCategory));
static cl::list<std::string> precisionModes(
    "precision",
    cl::desc("Precision modes to try (default: bf16-mixed, and fp8 where the "
             "device has fp8 units): fp32, bf16-mixed, fp16-mixed, "
             "bf16-pure, fp8"),
    cl::CommaSeparated, cl::cat(searchCategory));
static cl::list<int64_t>
    tpDegrees("tp",
              cl::desc("Tensor-parallel degrees to try (default: the "
                       "divisors of --devices up to the devices of a node)"),
              cl::CommaSeparated, cl::cat(searchCategory));
static cl::list<int64_t> ppDegrees(
    "pp",
    cl::desc("Pipeline stages to try (default: 1, and where nothing "
             "fits a tensor-parallel degree, the fewest stages that fit, "
             "on generated models)"),
    cl::CommaSeparated, cl::cat(searchCategory));
static cl::list<std::string> ppSchedules(
    "pp-schedule",
    cl::desc("Pipeline schedules to try (default 1f1b,zb-h1,interleaved): "
             "the first on every pipelined candidate, the others where it "
             "fits; interleaved takes 2 model chunks a stage where the "
             "layers and micro-batches divide evenly"),
    cl::CommaSeparated, cl::cat(searchCategory));
static cl::list<int64_t> zeroStages("zero",
                                    cl::desc("ZeRO stages to try (default "
                                             "0,1,2,3)"),
                                    cl::CommaSeparated,
                                    cl::cat(searchCategory));
static cl::list<std::string>
    spModes("sp",
            cl::desc("Sequence parallelism: off, on (default both where "
                     "tp > 1)"),
            cl::CommaSeparated, cl::cat(searchCategory));
static cl::list<std::string>
    rematChoices("remat",
                 cl::desc("Recomputation to try (default all): none, "
                          "selective (attention scores), full (keep layer "
                          "boundaries), greedy (train-remat's greedy at the "
                          "budget)"),
                 cl::CommaSeparated, cl::cat(searchCategory));
static cl::list<int64_t>
    microBatches("micro-batch",
                 cl::desc("Micro-batches to try (default: the powers of two "
                          "that divide a data-parallel group's share)"),
                 cl::CommaSeparated, cl::cat(searchCategory));
static cl::opt<std::string> offloadMode(
    "offload",
    cl::desc("Host memory (docs/offload.md): auto (default: where nothing "
             "fits, search again with greedy's activations offloaded, then "
             "also with the optimizer on the host), none, activations "
             "(greedy may offload activations), optimizer (the optimizer's "
             "updates, states and accumulated gradients on the host; no "
             "pipeline stages) or all (both rounds)"),
    cl::init("auto"), cl::cat(searchCategory));
static cl::opt<std::string> hostMemory(
    "host-memory",
    cl::desc("Host memory per node that offloaded plans may use, e.g. 2TiB "
             "(default: no limit; the host memory of each plan is printed)"),
    cl::init(""), cl::cat(searchCategory));
static cl::opt<std::string>
    optimizerName("optimizer",
                  cl::desc("Optimizer of generated steps: adamw (default), "
                           "adam, sgd, adamw8bit, adam8bit (8-bit states)"),
                  cl::init("adamw"), cl::cat(searchCategory));

static cl::opt<unsigned> topRows("top",
                                 cl::desc("Rows of the ranked table "
                                          "(default 10)"),
                                 cl::init(10), cl::cat(outputCategory));
static cl::opt<bool> jsonOutput("json",
                                cl::desc("Print the table as JSON "
                                         "(schema memopt.autoplan/1)"),
                                cl::init(false), cl::cat(outputCategory));
static cl::opt<std::string>
    outputFile("o",
               cl::desc("Write the best configuration's planned step (one "
                        "process's program) to this .mlir file"),
               cl::value_desc("file"), cl::init(""), cl::cat(outputCategory));
static cl::opt<bool> verbose("verbose",
                             cl::desc("Print every evaluated candidate to "
                                      "stderr as the search goes"),
                             cl::init(false), cl::cat(outputCategory));
static cl::opt<bool> checkComposition(
    "check-composition",
    cl::desc("Also plan every composed screen in full and report how many "
             "differ (LOAD, FLOPs, sent bytes); for tests, slow"),
    cl::init(false), cl::cat(outputCategory));
static cl::opt<bool>
    listDevices("list-devices",
                cl::desc("Print the built-in device profiles and exit"),
                cl::init(false), cl::cat(outputCategory));

static LogicalResult fail(const Twine &message) {
  llvm::WithColor::error(llvm::errs(), "mem-autoplan") << message << "\n";
  return failure();
}

/// `value` with an SI prefix (FLOPs, bytes/s).
static std::string formatSI(double value, StringRef unit) {
  static const char *prefixes[] = {"", "k", "M", "G", "T", "P", "E"};
  unsigned prefix = 0;
  while (prefix + 1 < std::size(prefixes) && std::abs(value) >= 1000.0) {
    value /= 1000.0;
    ++prefix;
  }
  return llvm::formatv("{0:F1} {1}{2}", value, prefixes[prefix], unit).str();
}

/// Seconds in s, ms or us with three significant decimals.
static std::string formatDuration(double seconds) {
  if (seconds >= 1.0)
    return llvm::formatv("{0:F3} s", seconds).str();
  if (seconds >= 1e-3)
    return llvm::formatv("{0:F3} ms", seconds * 1e3).str();
  return llvm::formatv("{0:F3} us", seconds * 1e6).str();
}

/// The value of `option` where the command line gives it.
template <typename T>
static std::optional<T> getIfGiven(const cl::opt<T> &option) {
  if (!option.getNumOccurrences())
    return std::nullopt;
  return option.getValue();
}

static FailureOr<TransformerConfig> getTransformerConfig() {
  TransformerConfig config;
  if (!hfConfig.empty()) {
    auto file = llvm::MemoryBuffer::getFile(hfConfig);
    if (!file)
      return fail("cannot read '" + hfConfig +
                  "': " + file.getError().message());
    llvm::Expected<TransformerConfig> parsed =
        parseHFConfig((*file)->getBuffer(), hfConfig);
    if (!parsed)
      return fail(llvm::toString(parsed.takeError()));
    config = *parsed;
    if (!modelName.empty() && modelName != config.modelType &&
        !(modelName == "llama" &&
          config.family == TransformerConfig::Family::Llama))
      return fail("model '" + modelName + "' does not match model_type '" +
                  config.modelType + "' of " + hfConfig);
  } else {
    std::string preset = modelName;
    if (preset == "llama")
      preset = "llama-2-7b";
    llvm::Expected<TransformerConfig> parsed = getPreset(preset);
    if (!parsed)
      return fail("unknown model '" + modelName + "'; expected a preset (" +
                  listPresets() +
                  "), 'gpt2', 'llama' with --hf-config, or a .mlir file");
    config = *parsed;
  }
  TransformerOverrides overrides;
  overrides.layers = getIfGiven(numLayers);
  overrides.hidden = getIfGiven(hiddenSize);
  overrides.heads = getIfGiven(numHeads);
  overrides.kvHeads = getIfGiven(numKvHeads);
  overrides.ffn = getIfGiven(ffnSize);
  overrides.vocab = getIfGiven(vocabSize);
  overrides.seq = getIfGiven(seqLength);
  overrides.dropout = getIfGiven(dropoutRate);
  llvm::Expected<TransformerConfig> overridden =
      applyOverrides(config, overrides);
  if (!overridden)
    return fail(llvm::toString(overridden.takeError()));
  return *overridden;
}

/// The fine-tuning options as a pass pipeline on the forward pass
/// ("func.func(train-freeze{...},train-lora{...},...)"), empty without
/// them. `family` ("gpt2", "llama" or "" for a step file) picks LoRA's
/// default targets.
static FailureOr<std::string> getFineTuningPipeline(StringRef family) {
  SmallVector<std::string> passes;
  if (!freezePatterns.empty())
    passes.push_back("train-freeze{params=" + freezePatterns + "}");
  if (loraSpec.getNumOccurrences()) {
    TrainLoraPassOptions options;
    if (llvm::Error error = parseLoraSpec(loraSpec, options))
      return fail(llvm::toString(std::move(error)));
    if (options.targets.empty())
      options.targets = getDefaultLoraTargets(family);
    if (options.targets.empty())
      return fail("--lora: name the layers with targets=NAME[,NAME...] (no "
                  "default for a step file)");
    passes.push_back(llvm::formatv("train-lora{{rank={0} alpha={1} "
                                   "dropout={2} targets={3}}",
                                   static_cast<int64_t>(options.rank),
                                   static_cast<double>(options.alpha),
                                   static_cast<double>(options.dropout),
                                   llvm::join(options.targets, ","))
                         .str());
  }
  if (!quantizeFrozen.empty())
    passes.push_back("train-quantize-frozen{format=" + quantizeFrozen + "}");
  if (passes.empty())
    return std::string();
  return "func.func(" + llvm::join(passes, ",") + ")";
}

/// Runs `pipeline` (getFineTuningPipeline's) on `module`; null with a
/// diagnostic when it fails.
static OwningOpRef<ModuleOp> applyPipeline(OwningOpRef<ModuleOp> module,
                                           StringRef pipeline) {
  if (!module || pipeline.empty())
    return module;
  PassManager pm(module->getContext());
  if (failed(parsePassPipeline(pipeline, pm)) || failed(pm.run(*module)))
    return nullptr;
  return module;
}

/// The generated transformer `base` (its batch and layers set per build),
/// with `pipeline` applied to its forward pass.
static StepSource makeGeneratedSource(const TransformerConfig &base,
                                      const std::string &pipeline) {
  StepSource source;
  source.tokensPerSample = base.getSeq();
  source.buildLayers = [base, pipeline](MLIRContext &ctx, int64_t batch,
                                        int64_t layers) {
    TransformerConfig c = base;
    c.batch = batch;
    c.layers = layers;
    OwningOpRef<ModuleOp> module = ModuleOp::create(UnknownLoc::get(&ctx));
    buildModel(*module, "forward", Float32Type::get(&ctx), ModelConfig(c));
    return applyPipeline(std::move(module), pipeline);
  };
  source.layers = base.layers;
  source.build = [buildLayers = source.buildLayers,
                  layers = base.layers](MLIRContext &ctx, int64_t batch) {
    return buildLayers(ctx, batch, layers);
  };
  return source;
}

/// The elements of the distinct trainable parameters of `module`.
static int64_t countTrainableParameters(ModuleOp module) {
  llvm::StringSet<> seen;
  int64_t count = 0;
  module.walk([&](train::ParamOp param) {
    auto type = dyn_cast<RankedTensorType>(param.getType());
    if (param.getTrainable() && type && type.hasStaticShape() &&
        seen.insert(param.getName()).second)
      count += type.getNumElements();
  });
  return count;
}

/// The model: a generated transformer or a step file.
static FailureOr<StepSource>
getSource(MLIRContext &context, std::string &description,
          int64_t &parameterCount, int64_t &trainableCount,
          std::optional<TransformerConfig> &generated) {
  StepSource source;
  if (StringRef(modelName).ends_with(".mlir")) {
    cl::Option *modelOptions[] = {&hfConfig,  &numLayers,  &hiddenSize,
                                  &numHeads,  &numKvHeads, &ffnSize,
                                  &vocabSize, &seqLength,  &dropoutRate};
    for (cl::Option *option : modelOptions)
      if (option->getNumOccurrences())
        return fail("option --" + option->ArgStr +
                    " does not apply to a step file (its shapes are fixed)");
    std::string path = modelName;
    auto file = llvm::MemoryBuffer::getFile(path);
    if (!file)
      return fail("cannot read '" + path + "': " + file.getError().message());
    llvm::SourceMgr sourceMgr;
    OwningOpRef<ModuleOp> module =
        parseSourceFile<ModuleOp>(path, sourceMgr, &context);
    if (!module)
      return failure();
    FailureOr<StepSource> fromModule = getModuleSource(*module);
    if (failed(fromModule))
      return failure();
    source = *fromModule;
    FailureOr<std::string> pipeline = getFineTuningPipeline("");
    if (failed(pipeline))
      return failure();
    if (!pipeline->empty())
      source.build = [inner = source.build,
                      pipeline = *pipeline](MLIRContext &ctx, int64_t batch) {
        return applyPipeline(inner(ctx, batch), pipeline);
      };
    OwningOpRef<ModuleOp> probe = source.build(context, *source.fixedBatch);
    if (!probe)
      return failure();
    parameterCount = countParameters(*probe);
    trainableCount = countTrainableParameters(*probe);
    description = path + " (batch " + std::to_string(*source.fixedBatch) + ")";
    return source;
  }
  if (modelName.empty() && hfConfig.empty())
    return fail("no model given; expected a preset (" + listPresets() +
                "), 'gpt2' or 'llama' with --hf-config, or a .mlir file "
                "(see --help)");
  FailureOr<TransformerConfig> config = getTransformerConfig();
  if (failed(config))
    return failure();
  TransformerConfig base = *config;
  FailureOr<std::string> pipeline = getFineTuningPipeline(
      base.family == TransformerConfig::Family::GPT2 ? "gpt2" : "llama");
  if (failed(pipeline))
    return failure();
  source = makeGeneratedSource(base, *pipeline);
  {
    OwningOpRef<ModuleOp> probe = source.build(context, 1);
    if (!probe)
      return failure();
    parameterCount = countParameters(*probe);
    trainableCount = countTrainableParameters(*probe);
  }
  generated = base;
  description = (modelName.empty() ? base.modelType : modelName) + ", " +
                std::to_string(base.layers) + " layers, hidden " +
                std::to_string(base.hidden) + ", " +
                std::to_string(base.heads) + " heads, sequence " +
                std::to_string(base.getSeq());
  return source;
}

static FailureOr<SearchOptions> getSearchOptions(const StepSource &source) {
  SearchRequest request;
  request.devices = numDevices;
  request.device = deviceName;
  request.deviceMemory = deviceMemory;
  request.reserve = reserveOption;
  request.globalBatch = getIfGiven(globalBatch);
  request.precisions.assign(precisionModes.begin(), precisionModes.end());
  request.tensorParallel.assign(tpDegrees.begin(), tpDegrees.end());
  request.pipelineParallel.assign(ppDegrees.begin(), ppDegrees.end());
  request.pipelineSchedules.assign(ppSchedules.begin(), ppSchedules.end());
  request.zeroStages.assign(zeroStages.begin(), zeroStages.end());
  request.sequenceParallel.assign(spModes.begin(), spModes.end());
  request.remat.assign(rematChoices.begin(), rematChoices.end());
  request.microBatches.assign(microBatches.begin(), microBatches.end());
  request.optimizer = optimizerName;
  request.top = topRows;
  request.offload = offloadMode;
  request.hostMemory = hostMemory;
  llvm::Expected<SearchOptions> options = makeSearchOptions(request, source);
  if (!options)
    return fail(llvm::toString(options.takeError()));
  options->checkComposition = checkComposition;
  return *options;
}

static llvm::json::Object toJSON(const Evaluation &evaluation,
                                 const SearchOptions &options) {
  const Candidate &c = evaluation.candidate;
  llvm::json::Object row{
      {"micro_batch", c.microBatch},
      {"gradient_accumulation", c.gradientAccumulation},
      {"precision", train::stringifyPrecisionMode(c.precision)},
      {"tp", c.tp},
      {"sp", c.sequenceParallel},
      {"pp", c.pp},
      {"dp", c.dp},
      {"zero", c.zero},
      {"remat", getRematChoiceName(c.remat)},
      {"peak_bytes", evaluation.peakBytes},
      {"load_bytes", evaluation.loadBytes},
      {"headroom_bytes", options.getBudget() - evaluation.peakBytes},
      {"model_state_bytes", evaluation.modelStateBytes},
      {"saved_activation_bytes", evaluation.savedActivationBytes},
      {"peak_op", evaluation.peakOp},
      {"flops_per_step", evaluation.cost.flops},
      {"recompute_flops_per_step", evaluation.cost.recomputeFlops},
      {"sent_bytes_per_step", evaluation.cost.sentBytes},
      {"estimated_step_seconds", evaluation.cost.stepSeconds},
      {"estimated_micro_batch_seconds", evaluation.cost.microBatchSeconds},
      {"estimated_tokens_per_second", evaluation.tokensPerSecond},
      {"offload_optimizer", c.offloadOptimizer},
      {"offload_activations",
       c.offloadActivations && c.remat == RematChoice::Greedy},
      {"offload_copies_weights_every_micro_batch", c.copyEveryMicroBatch},
      {"host_peak_bytes", evaluation.hostPeakBytes},
      {"host_bytes_per_node",
       evaluation.hostPeakBytes * options.getProcessesPerNode()},
      {"estimated_host_seconds", evaluation.cost.hostSeconds},
      {"estimated_host_link_seconds", evaluation.cost.hostLinkSeconds},
  };
  if (c.pp > 1) {
    // The built stages (docs/autoplan.md): the heaviest is the plan's.
    llvm::json::Array stages;
    for (auto [stage, bytes] : evaluation.stagePeaks)
      stages.push_back(
          llvm::json::Object{{"stage", stage}, {"peak_bytes", bytes}});
    row["pp_schedule"] = getPipelineScheduleName(c.schedule);
    row["virtual_stages"] = c.virtualStages;
    row["peak_stage"] = evaluation.peakStage;
    row["split"] = llvm::json::Array(evaluation.split);
    row["stage_peaks"] = std::move(stages);
    row["estimated_bubble_seconds"] = evaluation.cost.bubbleSeconds;
    row["estimated_p2p_seconds_per_micro_batch"] =
        evaluation.cost.pipelineSeconds;
  }
  return row;
}

/// --verbose: one line per evaluated candidate.
static void printEvaluation(const Evaluation &evaluation) {
  llvm::errs() << "mem-autoplan: " << evaluation.candidate.describe() << ": ";
  switch (evaluation.status) {
  case Evaluation::Status::Fits:
    llvm::errs() << "fits, " << (evaluation.planned ? "arena " : "LOAD ")
                 << formatSize(evaluation.planned ? evaluation.peakBytes
                                                  : evaluation.loadBytes)
                 << ", est. step "
                 << formatDuration(evaluation.cost.stepSeconds);
    break;
  case Evaluation::Status::TooLarge:
  case Evaluation::Status::Invalid:
    llvm::errs() << evaluation.reason;
    break;
  }
  llvm::errs() << llvm::formatv(" ({0:F2} s)\n", evaluation.seconds);
}

/// --json: the search's numbers and the ranked plans.
static void printJsonResult(const SearchResult &result,
                            const SearchOptions &options, StringRef description,
                            int64_t parameterCount) {
  int64_t budget = options.getBudget();
  unsigned rows = result.ranked.size();
  llvm::json::Array plans;
  for (unsigned i = 0; i < rows; ++i)
    plans.push_back(toJSON(result.ranked[i], options));
  llvm::json::Object document{
      {"schema", "memopt.autoplan/1"},
      {"model", description},
      {"parameters", parameterCount},
      {"device", options.device.name},
      {"devices", options.devices},
      {"device_memory_bytes", options.deviceMemory},
      {"reserve_bytes", options.reserve},
      {"budget_bytes", budget},
      {"global_batch", options.globalBatch},
      {"candidates", result.numCandidates},
      {"pruned", result.numPruned},
      {"screened", result.numScreened},
      {"planned", result.numPlanned},
      {"composition_checks", result.numCompositionChecks},
      {"composition_mismatches", result.numCompositionMismatches},
      {"plans", std::move(plans)},
  };
  llvm::outs() << llvm::formatv("{0:2}", llvm::json::Value(std::move(document)))
               << "\n";
}

/// The pp column: the stages, with `zb` for ZB-H1 and `i2` for the
/// interleaved schedule's chunks.
static std::string formatStages(const Candidate &c) {
  std::string text = std::to_string(c.pp);
  if (c.schedule == PipelineSchedule::ZeroBubbleH1)
    text += "zb";
  else if (c.schedule == PipelineSchedule::Interleaved)
    text += "i" + std::to_string(c.virtualStages);
  return text;
}

/// The host memory of the ranked plans that offload, one line each.
static void printOffloads(ArrayRef<Evaluation> ranked,
                          const SearchOptions &options, raw_ostream &os) {
  for (auto [index, e] : llvm::enumerate(ranked)) {
    std::string what = e.candidate.describeOffload();
    if (what.empty())
      continue;
    os << llvm::formatv(
        "offload, rank {0}:{1}: host {2} per node ({3} a "
        "process{5} x {4})",
        index + 1, what,
        formatSize(e.hostPeakBytes * options.getProcessesPerNode()),
        formatSize(e.hostPeakBytes), options.getProcessesPerNode(),
        // Stages differ: the most of one.
        e.candidate.pp > 1 ? " at most" : "");
    if (options.hostMemory)
      os << " of --host-memory " << formatSize(*options.hostMemory);
    os << "; est. host updates " << formatDuration(e.cost.hostSeconds)
       << ", copies not hidden "
       << formatDuration(e.cost.hostLinkSeconds)
       // A stage copies its weights and summed gradients once a step.
       << (e.candidate.pp > 1 ? " a step" : " a micro-batch") << "\n";
  }
}

/// The ranked plans as a table, after what was searched.
static void printTable(const SearchResult &result, const SearchOptions &options,
                       const StepSource &source, StringRef description,
                       int64_t parameterCount, double searchSeconds) {
  int64_t budget = options.getBudget();
  unsigned rows = result.ranked.size();
  llvm::raw_ostream &os = llvm::outs();
  os << "mem-autoplan: " << description << " ("
     << formatSI(static_cast<double>(parameterCount), "") << "parameters)\n"
     << "devices: " << options.devices << " x " << options.device.name << ", "
     << formatSize(options.deviceMemory) << " each, reserve "
     << formatSize(options.reserve) << ": budget " << formatSize(budget)
     << " per device\n"
     << "global batch " << options.globalBatch << " ("
     << options.globalBatch * source.tokensPerSample << " tokens per step)\n"
     << "searched " << result.numCandidates
     << " candidates: " << result.numPruned << " pruned by monotonicity, "
     << result.numScreened << " screened"
     << (source.canCompose() ? " (composed from 2 and 3 layers)" : "") << ", "
     << result.numPlanned << " planned in full ("
     << llvm::formatv("{0:F1}", searchSeconds) << " s)\n";
  if (result.numCompositionChecks)
    os << "composition: " << result.numCompositionChecks
       << " screens also planned in full, " << result.numCompositionMismatches
       << " differ\n";
  os << "\n";
  os << "memory: each plan's per-device peak is its planned arena, from "
        "the passes on its step; time: estimated by the cost model "
        "(docs/autoplan.md), not measured\n\n";
  os << llvm::formatv("{0,4} {1,4} {2,4} {3,-10} {4,3} {5,3} {6,3} {7,3} "
                      "{8,4} {9,-9} {10,11} {11,11} {12,11} {13,11} {14,10} "
                      "{15,12}\n",
                      "rank", "mb", "ga", "precision", "tp", "sp", "pp", "dp",
                      "zero", "remat", "peak", "headroom", "recompute",
                      "sent/step", "est. step", "est. tok/s");
  for (unsigned i = 0; i < rows; ++i) {
    const Evaluation &e = result.ranked[i];
    const Candidate &c = e.candidate;
    os << llvm::formatv(
        "{0,4} {1,4} {2,4} {3,-10} {4,3} {5,3} {6,3} {7,3} {8,4} {9,-9} "
        "{10,11} {11,11} {12,11} {13,11} {14,10} {15,12}\n",
        i + 1, c.microBatch, c.gradientAccumulation,
        train::stringifyPrecisionMode(c.precision), c.tp,
        c.sequenceParallel ? "on" : "off", formatStages(c), c.dp, c.zero,
        getRematChoiceName(c.remat), formatSize(e.peakBytes),
        formatSize(budget - e.peakBytes),
        formatSI(static_cast<double>(e.cost.recomputeFlops), "FLOP"),
        formatSize(e.cost.sentBytes), formatDuration(e.cost.stepSeconds),
        formatSI(e.tokensPerSecond, ""));
  }
  if (llvm::any_of(ArrayRef(result.ranked).take_front(rows),
                   [](const Evaluation &e) {
                     return e.candidate.schedule != PipelineSchedule::OneFOneB;
                   }))
    os << "pp: pipeline stages under 1F1B; 'zb' ZB-H1, 'iV' interleaved "
          "with V model chunks a stage\n";
  printOffloads(ArrayRef(result.ranked).take_front(rows), options, os);
}

/// -o: the best plan's step, built again, into `output`.
static LogicalResult writeBestStep(MLIRContext &context,
                                   const StepSource &source,
                                   const SearchOptions &options,
                                   const SearchResult &result,
                                   AtomicOutputFile &output) {
  const Candidate &best = result.ranked.front().candidate;
  FailureOr<OwningOpRef<ModuleOp>> module =
      buildCandidateStep(context, source, options, best);
  if (failed(module))
    return fail("internal error: the best configuration (" + best.describe() +
                ") could not be built again");
  OpPrintingFlags flags;
  flags.enableDebugInfo(/*enable=*/true, /*prettyForm=*/false);
  flags.useLocalScope();
  (**module)->print(output.os(), flags);
  output.os() << "\n";
  if (llvm::Error error = output.commit())
    return fail(llvm::toString(std::move(error)));
  return success();
}

/// One device, no --global-batch: the largest micro-batch per sequence
/// length (--seq, else the powers of two from 512 to the model's context)
/// and recomputation (--remat, else none and full) that fits.
static LogicalResult
runFitMode(MLIRContext &context, const StepSource &source,
           const std::optional<TransformerConfig> &generated,
           StringRef description, int64_t parameterCount,
           int64_t trainableCount) {
  FitTableRequest request;
  SearchRequest search;
  search.device = deviceName;
  search.deviceMemory = deviceMemory;
  search.reserve = reserveOption;
  search.globalBatch = 1;
  search.precisions.assign(precisionModes.begin(), precisionModes.end());
  search.optimizer = optimizerName;
  search.offload = offloadMode;
  search.hostMemory = hostMemory;
  llvm::Expected<SearchOptions> options = makeSearchOptions(search, source);
  if (!options)
    return fail(llvm::toString(options.takeError()));
  request.options = *options;
  if (rematChoices.empty())
    request.remat = {RematChoice::None, RematChoice::Full};
  for (const std::string &name : rematChoices)
    request.remat.push_back(*parseRematChoice(name));
  request.description = description.str();
  request.parameterCount = parameterCount;
  request.trainableCount = trainableCount;
  request.json = jsonOutput;
  if (!generated) {
    // A step file fixes its sequence and batch.
    request.sequences = {source.tokensPerSample};
    request.maxMicroBatch = *source.fixedBatch;
    request.makeSource = [&](int64_t) { return source; };
    return runFitTable(context, request);
  }
  if (seqLength.getNumOccurrences()) {
    request.sequences = {seqLength};
  } else {
    int64_t context = generated->getSeq();
    for (int64_t seq = 512; seq < context; seq *= 2)
      request.sequences.push_back(seq);
    request.sequences.push_back(context);
  }
  FailureOr<std::string> pipeline = getFineTuningPipeline(
      generated->family == TransformerConfig::Family::GPT2 ? "gpt2" : "llama");
  if (failed(pipeline))
    return failure();
  request.makeSource = [&](int64_t seq) -> FailureOr<StepSource> {
    TransformerConfig config = *generated;
    config.seq = seq;
    return makeGeneratedSource(config, *pipeline);
  };
  return runFitTable(context, request);
}

static LogicalResult runAutoplan() {
  if (listDevices) {
    llvm::outs() << listDeviceProfiles() << "\n";
    return success();
  }
  // The fine-tuning options run passes by name (getFineTuningPipeline).
  registerAllPasses();
  DialectRegistry registry;
  registerAllDialects(registry);
  MLIRContext context(registry);
  context.loadAllAvailableDialects();
  // Diagnostics of the model's own checks print as mem-autoplan errors;
  // the search collects the passes' diagnostics itself.
  ScopedDiagnosticHandler handler(&context, [](Diagnostic &diag) {
    if (diag.getSeverity() != DiagnosticSeverity::Error)
      return success();
    llvm::WithColor::error(llvm::errs(), "mem-autoplan")
        << diag.getLocation() << ": " << diag << "\n";
    return success();
  });

  std::string description;
  int64_t parameterCount = 0, trainableCount = 0;
  std::optional<TransformerConfig> generated;
  FailureOr<StepSource> source = getSource(context, description, parameterCount,
                                           trainableCount, generated);
  if (failed(source))
    return failure();
  if (numDevices == 1 && !globalBatch.getNumOccurrences())
    return runFitMode(context, *source, generated, description, parameterCount,
                      trainableCount);
  FailureOr<SearchOptions> options = getSearchOptions(*source);
  if (failed(options))
    return failure();

  // Open the output first: an unwritable path fails before the search.
  AtomicOutputFile output;
  if (!outputFile.empty())
    if (llvm::Error error = output.open(outputFile))
      return fail(llvm::toString(std::move(error)));

  auto start = std::chrono::steady_clock::now();
  SearchResult result =
      search(context, *source, *options, [&](const Evaluation &evaluation) {
        if (verbose)
          printEvaluation(evaluation);
      });
  double searchSeconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start)
          .count();

  if (result.ranked.empty())
    return fail(describeNoFit(result, *options, description));
  if (jsonOutput)
    printJsonResult(result, *options, description, parameterCount);
  else
    printTable(result, *options, *source, description, parameterCount,
               searchSeconds);
  if (!outputFile.empty())
    return writeBestStep(context, *source, *options, result, output);
  return success();
}

int main(int argc, char **argv) {
  llvm::InitLLVM initLLVM(argc, argv);
  cl::HideUnrelatedOptions(
      {&modelCategory, &searchCategory, &outputCategory, &fineTuningCategory});
  cl::ParseCommandLineOptions(
      argc, argv,
      "mem-autoplan: the fastest training configuration that fits\n\n"
      "Searches micro-batch, precision, tensor parallelism (with or without "
      "sequence parallelism), data parallelism with a ZeRO stage, and "
      "recomputation. Each candidate's per-device memory is the planned "
      "arena of its step, from memopt's passes; its time is an estimate of a "
      "cost model over a device profile (docs/autoplan.md).\n\n"
      "Examples:\n"
      "  mem-autoplan llama-2-7b --seq 4096 --global-batch 512 --devices 8 "
      "--device=h100 --device-memory 80GiB -o best_step.mlir\n"
      "  mem-autoplan step.mlir --devices 4 --global-batch 64 --device-memory "
      "64MiB --reserve 0 --json\n");
  return failed(runAutoplan()) ? 1 : 0;
}
