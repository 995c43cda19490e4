//===- mem-gen.cpp - training graphs of real models -----------------------===//
//
// Emits the forward graph and loss of a model (GPT-2, Llama and relatives
// from a HuggingFace config, torchvision CNNs, Checkmate's U-Net, an MLP, or
// a random graph) as a `train` dialect function, verified; with --train,
// runs train-autodiff to make it a whole training step. The generators are
// the MemoptModels library (memopt/Models/Models.h); this file is the
// command line: options into a validated configuration, and the output.
//
//===----------------------------------------------------------------------===//

#include "memopt/Dialect/Train/IR/TrainOps.h"
#include "memopt/Models/Models.h"
#include "memopt/Support/AtomicFile.h"
#include "memopt/Transforms/Lora.h"
#include "memopt/Transforms/Passes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/IR/Verifier.h"
#include "mlir/Pass/PassManager.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/ADT/StringSwitch.h"
#include "llvm/Support/CommandLine.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/InitLLVM.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/ToolOutputFile.h"
#include "llvm/Support/WithColor.h"
#include "llvm/Support/raw_ostream.h"

using namespace mlir;
using namespace mlir::memopt;
using namespace mlir::memopt::gen;
namespace cl = llvm::cl;

//===----------------------------------------------------------------------===//
// Options
//===----------------------------------------------------------------------===//

static cl::OptionCategory commonCategory("Common options");
static cl::OptionCategory
    transformerCategory("Transformer options (gpt2, llama and their presets)");
static cl::OptionCategory
    cnnCategory("CNN options (vgg*, resnet*, mobilenet_v2, unet) and mlp");
static cl::OptionCategory randomCategory("Random graph options (random)");

static cl::opt<std::string> modelName(cl::Positional, cl::desc("<model>"),
                                      cl::init(""), cl::cat(commonCategory));

static cl::opt<std::string>
    outputFile("o",
               cl::desc("Write the module to this file (default: stdout; "
                        "with --print-param-count, no module unless -o)"),
               cl::value_desc("file"), cl::init("-"), cl::cat(commonCategory));

static cl::opt<int64_t> batchSize("batch", cl::desc("Batch size (default 1)"),
                                  cl::init(1), cl::cat(commonCategory));

static cl::opt<std::string>
    dtype("dtype",
          cl::desc("Element type of every tensor: f32, bf16, f16, or f64 "
                   "(for gradient checks). Parameters, activations, "
                   "gradients and, with --train, the optimizer states all "
                   "take it (bf16 Adam moments included); normalization "
                   "statistics and the loss stay f32. For mixed precision "
                   "use --precision"),
          cl::init("f32"), cl::cat(commonCategory));

static cl::opt<std::string> precision(
    "precision",
    cl::desc("Lower the fp32 model with train-precision before --train "
             "differentiates it: fp32, bf16-mixed, fp16-mixed (dynamic loss "
             "scaling), bf16-pure or fp8 (fp8 linear layers, delayed "
             "scaling); the same program as running "
             "mem-opt --train-precision=mode=<mode> on the generated step. "
             "Other options (grads=, loss-scale=, keep-fp32=): use mem-opt"),
    cl::value_desc("mode"), cl::init(""), cl::cat(commonCategory));

static cl::opt<std::string> freezePatterns(
    "freeze",
    cl::desc("Freeze the parameters whose names match these comma-separated "
             "glob patterns (e.g. 'wte.*,h.[0-5].*'): no gradient and no "
             "optimizer state for them (train-freeze)"),
    cl::value_desc("patterns"), cl::init(""), cl::cat(commonCategory));

static cl::opt<std::string> loraSpec(
    "lora",
    cl::desc("LoRA fine-tuning (train-lora): adapters of rank R on the target "
             "linear layers, every other parameter frozen. "
             "rank=R[,alpha=A][,dropout=P][,targets=NAME,...] with targets "
             "last; alpha defaults to 8, dropout to 0, targets to PEFT's "
             "defaults (gpt2: c_attn; llama: q_proj,v_proj). Frozen weights "
             "are stored in the low type under --precision"),
    cl::value_desc("spec"), cl::init(""), cl::cat(commonCategory));

static cl::opt<std::string> quantizeFrozen(
    "quantize-frozen",
    cl::desc("Store the frozen linear weights quantized "
             "(train-quantize-frozen, after --freeze and --lora): nf4 "
             "(QLoRA's 4-bit NormalFloat, blocks of 64, double quantization) "
             "or int8 (one scale per output feature)"),
    cl::value_desc("nf4|int8"), cl::init(""), cl::cat(commonCategory));

static cl::opt<bool> emitTrainingStep(
    "train",
    cl::desc("Emit the whole training step: forward, loss, backward "
             "and optimizer update (runs train-autodiff)"),
    cl::init(false), cl::cat(commonCategory));

static cl::opt<std::string>
    optimizer("optimizer",
              cl::desc("Optimizer of --train: adam (default), adamw, "
                       "adam8bit, adamw8bit (8-bit block-wise states for "
                       "parameters of 4096 elements or more, 32-bit ones "
                       "below), sgd, or none (return the gradients)"),
              cl::init("adam"), cl::cat(commonCategory));

static cl::opt<bool> printParamCount(
    "print-param-count",
    cl::desc("Print 'param_count: N', the sum of the element counts of the "
             "distinct train.param names in the emitted IR"),
    cl::init(false), cl::cat(commonCategory));

static const std::string presetHelp =
    "A published configuration (also accepted as the model name): " +
    listPresets();
static cl::opt<std::string> presetName("preset", cl::desc(presetHelp),
                                       cl::init(""),
                                       cl::cat(transformerCategory));

static cl::opt<std::string> hfConfig(
    "hf-config",
    cl::desc("Read the model from a HuggingFace config.json (model_type "
             "gpt2, llama, mistral or qwen2); the model name may be omitted"),
    cl::value_desc("config.json"), cl::init(""), cl::cat(transformerCategory));

static cl::opt<int64_t> numLayers("layers",
                                  cl::desc("Number of layers (blocks)"),
                                  cl::cat(transformerCategory));
static cl::opt<int64_t> hiddenSize("hidden", cl::desc("Hidden size"),
                                   cl::cat(transformerCategory));
static cl::opt<int64_t> numHeads("heads", cl::desc("Attention heads"),
                                 cl::cat(transformerCategory));
static cl::opt<int64_t>
    numKvHeads("kv-heads",
               cl::desc("Key/value heads (llama: grouped-query attention)"),
               cl::cat(transformerCategory));
static cl::opt<int64_t>
    ffnSize("ffn", cl::desc("MLP width (gpt2 default: 4 * hidden)"),
            cl::cat(transformerCategory));
static cl::opt<int64_t> vocabSize("vocab", cl::desc("Vocabulary size"),
                                  cl::cat(transformerCategory));
static cl::opt<int64_t>
    seqLength("seq",
              cl::desc("Sequence length (default: the context length; "
                       "gpt2's position table grows to it unless "
                       "--positions is given)"),
              cl::cat(transformerCategory));
static cl::opt<int64_t>
    numPositions("positions",
                 cl::desc("gpt2: rows of the position table (n_positions)"),
                 cl::cat(transformerCategory));
static cl::opt<double>
    dropoutRate("dropout",
                cl::desc("Dropout rate: gpt2's residual, attention and "
                         "embedding dropout; the classifier dropout of vgg "
                         "and mobilenet_v2 (0 removes the dropout ops)"),
                cl::cat(transformerCategory));
static cl::opt<bool>
    tieEmbeddings("tie-embeddings",
                  cl::desc("Share the token embedding with the LM head "
                           "(--tie-embeddings=false unties)"),
                  cl::cat(transformerCategory));

static cl::opt<std::string>
    imageSize("image",
              cl::desc("Input resolution, N or HxW (default 224; unet "
                       "416x608)"),
              cl::init(""), cl::cat(cnnCategory));
static cl::opt<int64_t>
    numClasses("classes",
               cl::desc("Number of classes (default 1000; unet 19; mlp 10)"),
               cl::cat(cnnCategory));

static cl::opt<uint64_t> seed("seed", cl::desc("Random graph seed"),
                              cl::init(0), cl::cat(randomCategory));
static cl::opt<int64_t>
    numOps("ops",
           cl::desc("Number of random forward ops before the loss "
                    "(default 20)"),
           cl::init(20), cl::cat(randomCategory));

//===----------------------------------------------------------------------===//
// Errors
//===----------------------------------------------------------------------===//

/// Prints `mem-gen: error: message` and fails.
static LogicalResult fail(const Twine &message) {
  llvm::WithColor::error(llvm::errs(), "mem-gen") << message << "\n";
  return failure();
}

static LogicalResult fail(llvm::Error error) {
  return fail(llvm::toString(std::move(error)));
}

//===----------------------------------------------------------------------===//
// Models and their options
//===----------------------------------------------------------------------===//

namespace {
enum class Family { Mlp, GPT2, Llama, Cnn, Random };

/// What the command line asks for.
struct ModelChoice {
  Family family;
  /// The model name (a CNN architecture, a preset, ...), used to name the
  /// function.
  std::string name;
};
} // namespace

static const char *const kModels =
    "mlp, gpt2, llama, vgg11, vgg13, vgg16, vgg19, resnet18, resnet34, "
    "resnet50, resnet101, resnet152, mobilenet_v2, unet, random";

static std::optional<Family> getFamily(StringRef name) {
  if (name == "mlp")
    return Family::Mlp;
  if (name == "gpt2")
    return Family::GPT2;
  if (name == "llama")
    return Family::Llama;
  if (name == "random")
    return Family::Random;
  if (isCnn(name))
    return Family::Cnn;
  if (std::optional<TransformerConfig::Family> family = getPresetFamily(name))
    return *family == TransformerConfig::Family::GPT2 ? Family::GPT2
                                                      : Family::Llama;
  return std::nullopt;
}

static StringRef getFamilyName(Family family) {
  switch (family) {
  case Family::Mlp:
    return "mlp";
  case Family::GPT2:
    return "gpt2";
  case Family::Llama:
    return "llama";
  case Family::Cnn:
    return "cnn";
  case Family::Random:
    return "random";
  }
  llvm_unreachable("unknown family");
}

/// Rejects options that the chosen model does not read, so that a typo or a
/// misunderstanding does not go unnoticed.
/// The train-autodiff optimizer --optimizer names, if it names one.
static std::optional<AutodiffOptimizer> parseOptimizer(StringRef name) {
  return llvm::StringSwitch<std::optional<AutodiffOptimizer>>(name)
      .Case("adam", AutodiffOptimizer::Adam)
      .Case("adamw", AutodiffOptimizer::AdamW)
      .Case("adam8bit", AutodiffOptimizer::Adam8bit)
      .Case("adamw8bit", AutodiffOptimizer::AdamW8bit)
      .Case("sgd", AutodiffOptimizer::Sgd)
      .Case("none", AutodiffOptimizer::None)
      .Default(std::nullopt);
}

static LogicalResult checkApplicable(const ModelChoice &model) {
  bool transformer =
      model.family == Family::GPT2 || model.family == Family::Llama;
  bool classifierDropout =
      model.name.rfind("vgg", 0) == 0 || model.name == "mobilenet_v2";
  struct Rule {
    cl::Option &option;
    bool applies;
  };
  Rule rules[] = {
      {batchSize, model.family != Family::Random},
      {presetName, transformer},
      {hfConfig, transformer},
      {numLayers, transformer || model.family == Family::Mlp},
      {hiddenSize, transformer || model.family == Family::Mlp},
      {numHeads, transformer},
      {numKvHeads, model.family == Family::Llama},
      {ffnSize, transformer},
      {vocabSize, transformer},
      {seqLength, transformer},
      {numPositions, model.family == Family::GPT2},
      {dropoutRate, model.family == Family::GPT2 || classifierDropout},
      {tieEmbeddings, transformer},
      {imageSize, model.family == Family::Cnn},
      {numClasses, model.family == Family::Cnn || model.family == Family::Mlp},
      {seed, model.family == Family::Random},
      {numOps, model.family == Family::Random},
  };
  for (const Rule &rule : rules)
    if (rule.option.getNumOccurrences() && !rule.applies)
      return fail("option --" + rule.option.ArgStr +
                  " does not apply to model '" + model.name + "'");
  if (optimizer.getNumOccurrences() && !emitTrainingStep)
    return fail("--optimizer needs --train");
  if (emitTrainingStep && !parseOptimizer(optimizer))
    return fail("unknown optimizer '" + optimizer +
                "'; expected adam, adamw, adam8bit, adamw8bit, sgd or "
                "none");
  return success();
}

static FailureOr<ModelChoice> chooseModel() {
  if (modelName.empty()) {
    if (hfConfig.empty())
      return fail(Twine("no model given; expected one of: ") + kModels +
                  " (see --help)");
    // The family comes from the config's model_type.
    return ModelChoice{Family::GPT2, ""};
  }
  std::optional<Family> family = getFamily(modelName);
  if (!family)
    return fail("unknown model '" + modelName + "'; expected one of: " +
                kModels + ", or a preset: " + listPresets());
  return ModelChoice{*family, modelName};
}

/// A positive size option, within `[1, max]`.
static FailureOr<int64_t> sizeOption(cl::opt<int64_t> &option, int64_t max) {
  if (option <= 0 || option > max)
    return fail("--" + option.ArgStr + " must be in [1, " + Twine(max) +
                "], got " + Twine(option.getValue()));
  return option.getValue();
}

/// The configuration the transformer starts from: the HF config file or
/// the preset. Settles the model's family and name.
static FailureOr<TransformerConfig> getBaseConfig(ModelChoice &model) {
  bool namedPreset = getPresetFamily(model.name).has_value();
  if (!hfConfig.empty()) {
    if (!presetName.empty())
      return fail("--preset and --hf-config are exclusive");
    if (namedPreset && model.name != "gpt2")
      return fail("--hf-config cannot be combined with preset '" + model.name +
                  "'; use 'gpt2' or 'llama' as the model");
    llvm::ErrorOr<std::unique_ptr<llvm::MemoryBuffer>> file =
        llvm::MemoryBuffer::getFile(hfConfig);
    if (!file)
      return fail("cannot read '" + hfConfig +
                  "': " + file.getError().message());
    llvm::Expected<TransformerConfig> config =
        parseHFConfig((*file)->getBuffer(), hfConfig);
    if (!config)
      return fail(config.takeError());
    Family family = config->family == TransformerConfig::Family::GPT2
                        ? Family::GPT2
                        : Family::Llama;
    if (!model.name.empty() && family != model.family)
      return fail("model '" + model.name + "' does not match model_type '" +
                  config->modelType + "' of " + hfConfig);
    model.family = family;
    model.name = config->modelType;
    return *config;
  }
  std::string preset = model.name;
  if (!presetName.empty()) {
    if (namedPreset && model.name != "gpt2" && presetName != model.name)
      return fail("model '" + model.name + "' is a preset; --preset=" +
                  presetName + " conflicts with it");
    preset = presetName;
  } else if (model.family == Family::Llama && !namedPreset) {
    preset = "llama-2-7b";
  }
  llvm::Expected<TransformerConfig> config = getPreset(preset);
  if (!config)
    return fail(config.takeError());
  if (getFamily(preset) != model.family)
    return fail("preset '" + preset + "' is not a " +
                getFamilyName(model.family) + " model");
  model.name = preset;
  return *config;
}

/// The value of `option` where the command line gives it.
template <typename T>
static std::optional<T> getIfGiven(const cl::opt<T> &option) {
  if (!option.getNumOccurrences())
    return std::nullopt;
  return option.getValue();
}

/// The transformer configuration: the preset or HF config, then the
/// overriding options (once the family is known, checked to apply).
static FailureOr<TransformerConfig> getTransformerConfig(ModelChoice &model) {
  FailureOr<TransformerConfig> config = getBaseConfig(model);
  if (failed(config) || failed(checkApplicable(model)))
    return failure();
  TransformerOverrides overrides;
  overrides.batch = batchSize.getValue();
  overrides.layers = getIfGiven(numLayers);
  overrides.hidden = getIfGiven(hiddenSize);
  overrides.heads = getIfGiven(numHeads);
  overrides.kvHeads = getIfGiven(numKvHeads);
  overrides.ffn = getIfGiven(ffnSize);
  overrides.vocab = getIfGiven(vocabSize);
  overrides.seq = getIfGiven(seqLength);
  overrides.positions = getIfGiven(numPositions);
  overrides.dropout = getIfGiven(dropoutRate);
  overrides.tieEmbeddings = getIfGiven(tieEmbeddings);
  llvm::Expected<TransformerConfig> overridden =
      applyOverrides(*config, overrides);
  if (!overridden)
    return fail(overridden.takeError());
  return *overridden;
}

static FailureOr<CnnConfig> getCnnConfig(const ModelChoice &model) {
  CnnConfig c = getCnnDefaults(model.name);
  c.batch = batchSize;
  if (!imageSize.empty()) {
    auto [h, w] = StringRef(imageSize).split('x');
    if (w.empty() && StringRef(imageSize).contains('x'))
      h = "";
    if (w.empty())
      w = h;
    if (h.getAsInteger(10, c.height) || w.getAsInteger(10, c.width))
      return fail("invalid --image '" + imageSize +
                  "'; expected a size like 224 or 416x608");
  }
  if (numClasses.getNumOccurrences())
    c.classes = numClasses;
  if (dropoutRate.getNumOccurrences())
    c.dropout = dropoutRate;
  if (llvm::Error error = validate(c))
    return fail(std::move(error));
  return c;
}

static FailureOr<MlpConfig> getMlpConfig() {
  MlpConfig c;
  const int64_t max = int64_t(1) << 20;
  for (auto [option, field] :
       {std::pair<cl::opt<int64_t> *, int64_t *>{&batchSize, &c.batch},
        {&numLayers, &c.layers},
        {&hiddenSize, &c.hidden},
        {&numClasses, &c.classes}}) {
    if (option != &batchSize && !option->getNumOccurrences())
      continue;
    FailureOr<int64_t> value = sizeOption(*option, max);
    if (failed(value))
      return failure();
    *field = *value;
  }
  return c;
}

/// The whole configuration of the chosen model, validated; settles the
/// model's family and name (a HuggingFace config names its model_type).
static FailureOr<ModelConfig> getModelConfig(ModelChoice &model) {
  if (dropoutRate.getNumOccurrences() &&
      !(dropoutRate >= 0.0 && dropoutRate < 1.0))
    return fail("--dropout must be in [0, 1), got " +
                formatNumber(dropoutRate));
  if (model.family == Family::GPT2 || model.family == Family::Llama) {
    FailureOr<TransformerConfig> config = getTransformerConfig(model);
    if (failed(config))
      return failure();
    return ModelConfig(*config);
  }
  if (failed(checkApplicable(model)))
    return failure();
  switch (model.family) {
  case Family::Cnn: {
    FailureOr<CnnConfig> config = getCnnConfig(model);
    if (failed(config))
      return failure();
    return ModelConfig(*config);
  }
  case Family::Mlp: {
    FailureOr<MlpConfig> config = getMlpConfig();
    if (failed(config))
      return failure();
    return ModelConfig(*config);
  }
  case Family::Random:
    if (failed(sizeOption(numOps, 100000)))
      return failure();
    return ModelConfig(RandomConfig{seed, numOps});
  case Family::GPT2:
  case Family::Llama:
    break;
  }
  llvm_unreachable("transformers are handled above");
}

//===----------------------------------------------------------------------===//
// Driver
//===----------------------------------------------------------------------===//

/// A symbol name for the function: the model name with `-` and `.` as `_`.
static std::string getFunctionName(StringRef model) {
  std::string name = model.str();
  for (char &c : name)
    if (!llvm::isAlnum(c))
      c = '_';
  return name;
}

/// --freeze, --lora and --quantize-frozen: train-freeze, train-lora and
/// train-quantize-frozen on the forward pass.
static LogicalResult runFineTuningPasses(MLIRContext &context, ModuleOp module,
                                         StringRef name,
                                         const ModelConfig &config) {
  PassManager pm(&context);
  if (!freezePatterns.empty()) {
    TrainFreezePassOptions options;
    SmallVector<StringRef> patterns;
    StringRef(freezePatterns)
        .split(patterns, ',', /*MaxSplit=*/-1, /*KeepEmpty=*/false);
    for (StringRef pattern : patterns)
      options.params.push_back(pattern.trim().str());
    pm.addNestedPass<func::FuncOp>(createTrainFreezePass(options));
  }
  if (loraSpec.getNumOccurrences()) {
    TrainLoraPassOptions options;
    if (llvm::Error error = parseLoraSpec(loraSpec, options))
      return fail(llvm::toString(std::move(error)));
    if (options.targets.empty()) {
      const auto *transformer = std::get_if<TransformerConfig>(&config);
      if (transformer)
        options.targets = getDefaultLoraTargets(
            transformer->family == TransformerConfig::Family::GPT2 ? "gpt2"
                                                                   : "llama");
      if (options.targets.empty())
        return fail("--lora: no default targets for " + name +
                    "; name the layers with targets=NAME[,NAME...]");
    }
    pm.addNestedPass<func::FuncOp>(createTrainLoraPass(options));
  }
  if (quantizeFrozen.getNumOccurrences()) {
    TrainQuantizeFrozenPassOptions options;
    std::optional<train::WeightFormat> format =
        train::symbolizeWeightFormat(quantizeFrozen);
    if (!format)
      return fail("unknown --quantize-frozen '" + quantizeFrozen +
                  "'; expected nf4 or int8");
    options.format = *format;
    pm.addNestedPass<func::FuncOp>(createTrainQuantizeFrozenPass(options));
  }
  if (pm.size() > 0 && failed(pm.run(module)))
    return fail("fine-tuning passes failed on the generated " + name +
                " graph (see the diagnostic above)");
  return success();
}

static LogicalResult runMemGen() {
  FailureOr<ModelChoice> model = chooseModel();
  if (failed(model))
    return failure();

  MLIRContext context;
  context.loadDialect<func::FuncDialect, train::TrainDialect,
                      arith::ArithDialect>();
  Type elementType = llvm::StringSwitch<Type>(dtype)
                         .Case("f32", Float32Type::get(&context))
                         .Case("bf16", BFloat16Type::get(&context))
                         .Case("f16", Float16Type::get(&context))
                         .Case("f64", Float64Type::get(&context))
                         .Default(Type());
  if (!elementType)
    return fail("unknown --dtype '" + dtype +
                "'; expected f32, bf16, f16 or f64");
  if (!precision.empty() && !train::symbolizePrecisionMode(precision))
    return fail("unknown --precision '" + precision +
                "'; expected fp32, bf16-mixed, fp16-mixed, bf16-pure or fp8");
  if (!precision.empty() && !elementType.isF32())
    return fail("--precision lowers the fp32 model: it cannot be combined "
                "with --dtype " +
                dtype);

  // Resolve and validate the whole configuration before any work.
  FailureOr<ModelConfig> config = getModelConfig(*model);
  if (failed(config))
    return failure();

  // Open the output first: an unwritable path fails before any work.
  bool writeModule = !printParamCount || outputFile.getNumOccurrences();
  // Written whole or not at all (memopt/Support/AtomicFile.h).
  AtomicOutputFile output;
  if (writeModule)
    if (llvm::Error error = output.open(outputFile))
      return fail(llvm::toString(std::move(error)));

  // MLIR diagnostics (a verifier or a pass) print as mem-gen errors.
  ScopedDiagnosticHandler handler(&context, [](Diagnostic &diag) {
    llvm::raw_ostream &os = llvm::WithColor::error(llvm::errs(), "mem-gen");
    os << diag.getLocation() << ": " << diag << "\n";
    for (Diagnostic &note : diag.getNotes())
      llvm::errs() << "  note: " << note.getLocation() << ": " << note << "\n";
    return success();
  });

  OwningOpRef<ModuleOp> module = ModuleOp::create(UnknownLoc::get(&context));
  buildModel(*module, getFunctionName(model->name), elementType, *config);
  if (failed(verify(*module)))
    return fail("internal error: the generated " + model->name +
                " graph does not verify (see the diagnostic above)");

  if (failed(runFineTuningPasses(context, *module, model->name, *config)))
    return failure();

  if (!precision.empty()) {
    PassManager pm(&context);
    TrainPrecisionPassOptions options;
    options.mode = *train::symbolizePrecisionMode(precision);
    pm.addNestedPass<func::FuncOp>(createTrainPrecisionPass(options));
    if (failed(pm.run(*module)))
      return fail("train-precision failed on the generated " + model->name +
                  " graph (see the diagnostic above)");
  }

  if (emitTrainingStep) {
    PassManager pm(&context);
    TrainAutodiffPassOptions options;
    options.optimizer = *parseOptimizer(optimizer);
    pm.addNestedPass<func::FuncOp>(createTrainAutodiffPass(options));
    if (failed(pm.run(*module)))
      return fail("train-autodiff failed on the generated " + model->name +
                  " graph (see the diagnostic above)");
  }

  if (printParamCount)
    llvm::outs() << "param_count: " << countParameters(*module) << "\n";
  if (!writeModule)
    return success();
  OpPrintingFlags flags;
  flags.enableDebugInfo(/*enable=*/true, /*prettyForm=*/false);
  flags.useLocalScope();
  module->print(output.os(), flags);
  output.os() << "\n";
  if (llvm::Error error = output.commit())
    return fail(llvm::toString(std::move(error)));
  return success();
}

/// Debian's libLLVM.so registers options of every LLVM component; --help
/// shows mem-gen's own.
int main(int argc, char **argv) {
  llvm::InitLLVM initLLVM(argc, argv);
  cl::HideUnrelatedOptions(
      {&commonCategory, &transformerCategory, &cnnCategory, &randomCategory});
  std::string overview =
      (Twine("mem-gen: emits the forward graph and loss of a model as a train "
             "dialect function (with --train, the whole training step)\n\n"
             "Models: ") +
       kModels + "\nPresets (usable as the model): " + listPresets() +
       "\n\nExamples:\n"
       "  mem-gen gpt2 --print-param-count\n"
       "  mem-gen llama --hf-config=config.json --seq 512 --train -o "
       "step.mlir\n"
       "  mem-gen resnet50 --batch 32 --train --optimizer=sgd\n"
       "  mem-gen random --seed 7 --ops 40\n")
          .str();
  cl::ParseCommandLineOptions(argc, argv, overview);
  return failed(runMemGen()) ? 1 : 0;
}
