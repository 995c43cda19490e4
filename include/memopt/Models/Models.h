//===- Models.h - generators of real models' training graphs ---*- C++ -*-===//
//
// The MemoptModels library (what mem-gen emits): configurations of the model
// families and the functions that emit their forward + loss graphs as a
// `train` dialect function. Every configuration is validated (with a
// user-facing message) before a generator runs; generators assume a valid
// configuration.
//
//===----------------------------------------------------------------------===//

#ifndef MEMOPT_MODELS_MODELS_H
#define MEMOPT_MODELS_MODELS_H

#include "memopt/Models/ModelBuilder.h"

#include "llvm/Support/Error.h"
#include "llvm/Support/Format.h"
#include "llvm/Support/raw_ostream.h"

#include <limits>
#include <optional>
#include <string>
#include <variant>

namespace mlir::memopt::gen {

/// `value` in the shortest form (`%g`), for messages.
inline std::string formatNumber(double value) {
  std::string text;
  llvm::raw_string_ostream(text) << llvm::format("%g", value);
  return text;
}

//===----------------------------------------------------------------------===//
// Transformers (gpt2, llama; HuggingFace configs)
//===----------------------------------------------------------------------===//

/// A decoder-only transformer as HuggingFace describes it in config.json.
struct TransformerConfig {
  enum class Family { GPT2, Llama };
  Family family = Family::GPT2;
  /// HF `model_type`: gpt2, llama, mistral or qwen2.
  std::string modelType = "gpt2";
  int64_t layers = 0;
  int64_t hidden = 0;
  int64_t heads = 0;
  /// Key/value heads (grouped-query attention); unset: as many as `heads`.
  std::optional<int64_t> kvHeads;
  /// Per-head size; unset: hidden / heads.
  std::optional<int64_t> headDim;
  /// MLP width; unset (GPT-2's `n_inner: null`): 4 * hidden.
  std::optional<int64_t> ffn;
  int64_t vocab = 0;
  /// Context length: GPT-2's position table rows (`n_positions`), Llama's
  /// `max_position_embeddings` (the default sequence length only).
  int64_t positions = 0;
  /// GPT-2's dropout rates.
  double residDropout = 0.0, attnDropout = 0.0, embdDropout = 0.0;
  double normEpsilon = 1e-5;
  double ropeTheta = 10000.0;
  bool tieEmbeddings = false;
  /// Biases of q/k/v (qwen2, llama's attention_bias), of o_proj (llama's
  /// attention_bias) and of the MLP (llama's mlp_bias).
  bool qkvBias = false, outputBias = false, mlpBias = false;
  int64_t batch = 1;
  /// Sequence length; unset: the context length.
  std::optional<int64_t> seq;

  int64_t getKvHeads() const { return kvHeads.value_or(heads); }
  int64_t getHeadDim() const { return headDim.value_or(hidden / heads); }
  /// Saturates rather than overflows for a hidden size validate() rejects.
  int64_t getFfn() const {
    if (ffn)
      return *ffn;
    return hidden > std::numeric_limits<int64_t>::max() / 4
               ? std::numeric_limits<int64_t>::max()
               : 4 * hidden;
  }
  int64_t getSeq() const { return seq.value_or(positions); }
};

/// Parses a HuggingFace config.json (`text`, named `source` in messages).
llvm::Expected<TransformerConfig> parseHFConfig(llvm::StringRef text,
                                                llvm::StringRef source);
/// The named preset (a published HF config), or an error naming the presets.
llvm::Expected<TransformerConfig> getPreset(llvm::StringRef name);
/// The names of all presets, comma-separated, for messages and --help.
std::string listPresets();
/// The family a preset belongs to, if `name` is a preset.
std::optional<TransformerConfig::Family> getPresetFamily(llvm::StringRef name);
/// Checks sizes and divisibility; the message names the offending values.
llvm::Error validate(const TransformerConfig &config);

/// Command-line overrides of a preset or HF config (mem-gen's and
/// mem-autoplan's --batch, --layers, --hidden, ...): each one given replaces
/// the configuration's value.
struct TransformerOverrides {
  std::optional<int64_t> batch, layers, hidden, heads, kvHeads, ffn, vocab, seq;
  /// GPT-2's position table rows; not given, a table shorter than the
  /// sequence grows to it.
  std::optional<int64_t> positions;
  /// GPT-2's residual, attention and embedding dropout rates.
  std::optional<double> dropout;
  std::optional<bool> tieEmbeddings;
};

/// `config` with `overrides` applied, validated (validate()). A new hidden
/// size or head count drops the head size the configuration gives (it is
/// hidden / heads again).
llvm::Expected<TransformerConfig>
applyOverrides(TransformerConfig config, const TransformerOverrides &overrides);

/// HF GPT2Model + tied LM head + cross-entropy (names: HF state dict).
void buildGPT2(ModelBuilder &builder, const TransformerConfig &config);
/// HF LlamaForCausalLM (and Mistral, Qwen2) + cross-entropy.
void buildLlama(ModelBuilder &builder, const TransformerConfig &config);

//===----------------------------------------------------------------------===//
// Convolutional networks and the MLP
//===----------------------------------------------------------------------===//

/// An image classifier (torchvision) or segmenter (U-Net) at a resolution.
struct CnnConfig {
  /// vgg11/13/16/19, resnet18/34/50/101/152, mobilenet_v2 or unet.
  std::string arch;
  int64_t batch = 1;
  int64_t height = 224, width = 224;
  int64_t classes = 1000;
  /// Dropout of the classifier (VGG's two, MobileNetV2's one).
  double dropout = 0.0;
};

/// Whether `name` is a CNN mem-gen knows.
bool isCnn(llvm::StringRef name);
/// The default resolution, classes and dropout of `arch`.
CnnConfig getCnnDefaults(llvm::StringRef arch);
llvm::Error validate(const CnnConfig &config);
void buildCnn(ModelBuilder &builder, const CnnConfig &config);

/// A multi-layer perceptron classifier: `layers` linear layers of width
/// `hidden` with ReLU between them, `classes` outputs.
struct MlpConfig {
  int64_t batch = 1, layers = 2, hidden = 1024, classes = 10;
};
void buildMlp(ModelBuilder &builder, const MlpConfig &config);

//===----------------------------------------------------------------------===//
// Random graphs
//===----------------------------------------------------------------------===//

/// A random forward graph of `ops` ops, determined by `seed`.
struct RandomConfig {
  uint64_t seed = 0;
  int64_t ops = 20;
};
void buildRandom(ModelBuilder &builder, const RandomConfig &config);

//===----------------------------------------------------------------------===//
// Any model
//===----------------------------------------------------------------------===//

/// A validated configuration of any family (a TransformerConfig's `family`
/// chooses between GPT-2 and Llama).
using ModelConfig =
    std::variant<TransformerConfig, CnnConfig, MlpConfig, RandomConfig>;

/// Builds the forward + loss graph of `config` as `func.func @name` at the
/// end of `module`, parameters and activations of `elementType`. The caller
/// verifies the module (a failure is a generator bug).
func::FuncOp buildModel(ModuleOp module, StringRef name, Type elementType,
                        const ModelConfig &config);

/// The sum of the element counts of the distinct `train.param` names under
/// `op` (a tied parameter read twice counts once); a weight stored quantized
/// counts its own elements, not its storage's.
int64_t countParameters(Operation *op);

} // namespace mlir::memopt::gen

#endif // MEMOPT_MODELS_MODELS_H
