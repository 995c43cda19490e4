//===- Transformers.cpp - GPT-2 and Llama from HuggingFace configs --------===//
//
// Presets are the published HuggingFace config.json files (the fields that
// shape the graph), read by the same parser as --hf-config, so a preset and
// its config file give the same graph.
//
//===----------------------------------------------------------------------===//

#include "memopt/Models/Models.h"

#include "memopt/Support/Json.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/CheckedArithmetic.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/JSON.h"

#include <cmath>

using namespace mlir;
using namespace mlir::memopt::gen;
using llvm::Error;
using llvm::Expected;
namespace json = llvm::json;

static Error makeError(const llvm::Twine &message) {
  return llvm::createStringError(llvm::inconvertibleErrorCode(), message);
}

//===----------------------------------------------------------------------===//
// Presets
//===----------------------------------------------------------------------===//

namespace {
struct Preset {
  const char *name;
  /// The shape-relevant fields of the model's published config.json.
  const char *config;
};
} // namespace

static const Preset kPresets[] = {
    // openai-community/gpt2, gpt2-medium, gpt2-large, gpt2-xl.
    {"gpt2", R"({"model_type": "gpt2", "n_embd": 768, "n_layer": 12,
      "n_head": 12, "n_positions": 1024, "vocab_size": 50257,
      "resid_pdrop": 0.1, "attn_pdrop": 0.1, "embd_pdrop": 0.1,
      "layer_norm_epsilon": 1e-05})"},
    {"gpt2-medium", R"({"model_type": "gpt2", "n_embd": 1024, "n_layer": 24,
      "n_head": 16, "n_positions": 1024, "vocab_size": 50257,
      "resid_pdrop": 0.1, "attn_pdrop": 0.1, "embd_pdrop": 0.1,
      "layer_norm_epsilon": 1e-05})"},
    {"gpt2-large", R"({"model_type": "gpt2", "n_embd": 1280, "n_layer": 36,
      "n_head": 20, "n_positions": 1024, "vocab_size": 50257,
      "resid_pdrop": 0.1, "attn_pdrop": 0.1, "embd_pdrop": 0.1,
      "layer_norm_epsilon": 1e-05})"},
    {"gpt2-xl", R"({"model_type": "gpt2", "n_embd": 1600, "n_layer": 48,
      "n_head": 25, "n_positions": 1024, "vocab_size": 50257,
      "resid_pdrop": 0.1, "attn_pdrop": 0.1, "embd_pdrop": 0.1,
      "layer_norm_epsilon": 1e-05})"},
    // meta-llama/Llama-2-{7b,13b,70b}-hf.
    {"llama-2-7b", R"({"model_type": "llama", "hidden_size": 4096,
      "intermediate_size": 11008, "num_hidden_layers": 32,
      "num_attention_heads": 32, "num_key_value_heads": 32,
      "max_position_embeddings": 4096, "vocab_size": 32000,
      "rms_norm_eps": 1e-05, "tie_word_embeddings": false})"},
    {"llama-2-13b", R"({"model_type": "llama", "hidden_size": 5120,
      "intermediate_size": 13824, "num_hidden_layers": 40,
      "num_attention_heads": 40, "num_key_value_heads": 40,
      "max_position_embeddings": 4096, "vocab_size": 32000,
      "rms_norm_eps": 1e-05, "tie_word_embeddings": false})"},
    {"llama-2-70b", R"({"model_type": "llama", "hidden_size": 8192,
      "intermediate_size": 28672, "num_hidden_layers": 80,
      "num_attention_heads": 64, "num_key_value_heads": 8,
      "max_position_embeddings": 4096, "vocab_size": 32000,
      "rms_norm_eps": 1e-05, "tie_word_embeddings": false})"},
    // meta-llama/Meta-Llama-3-8B.
    {"llama-3-8b", R"({"model_type": "llama", "hidden_size": 4096,
      "intermediate_size": 14336, "num_hidden_layers": 32,
      "num_attention_heads": 32, "num_key_value_heads": 8,
      "max_position_embeddings": 8192, "vocab_size": 128256,
      "rms_norm_eps": 1e-05, "rope_theta": 500000.0,
      "tie_word_embeddings": false})"},
    // mistralai/Mistral-7B-v0.1 (sliding-window attention is not modelled).
    {"mistral-7b", R"({"model_type": "mistral", "hidden_size": 4096,
      "intermediate_size": 14336, "num_hidden_layers": 32,
      "num_attention_heads": 32, "num_key_value_heads": 8,
      "max_position_embeddings": 32768, "vocab_size": 32000,
      "rms_norm_eps": 1e-05, "rope_theta": 10000.0,
      "tie_word_embeddings": false})"},
    // Qwen/Qwen2-0.5B.
    {"qwen2-0.5b", R"({"model_type": "qwen2", "hidden_size": 896,
      "intermediate_size": 4864, "num_hidden_layers": 24,
      "num_attention_heads": 14, "num_key_value_heads": 2,
      "max_position_embeddings": 131072, "vocab_size": 151936,
      "rms_norm_eps": 1e-06, "rope_theta": 1000000.0,
      "tie_word_embeddings": true})"},
};

std::string mlir::memopt::gen::listPresets() {
  SmallVector<StringRef> names;
  for (const Preset &preset : kPresets)
    names.push_back(preset.name);
  return llvm::join(names, ", ");
}

Expected<TransformerConfig> mlir::memopt::gen::getPreset(StringRef name) {
  for (const Preset &preset : kPresets)
    if (name == preset.name)
      return parseHFConfig(preset.config, ("preset " + name).str());
  return makeError("unknown preset '" + name +
                   "'; expected one of: " + listPresets());
}

std::optional<TransformerConfig::Family>
mlir::memopt::gen::getPresetFamily(StringRef name) {
  for (const Preset &preset : kPresets)
    if (name == preset.name)
      return StringRef(preset.name).starts_with("gpt2")
                 ? TransformerConfig::Family::GPT2
                 : TransformerConfig::Family::Llama;
  return std::nullopt;
}

//===----------------------------------------------------------------------===//
// HuggingFace config.json
//===----------------------------------------------------------------------===//

namespace {
/// Typed reads of config fields; messages name the file and the field.
class FieldReader {
public:
  FieldReader(const json::Object &object, StringRef source, StringRef modelType)
      : object(object), source(source), modelType(modelType) {}

  Expected<int64_t> integer(StringRef key) {
    const json::Value *value = object.get(key);
    if (!value || value->kind() == json::Value::Null)
      return makeError(source + ": missing field '" + key +
                       "' (required for model_type '" + modelType + "')");
    return asInteger(key, *value);
  }

  /// An integer field that may be absent or null.
  Expected<std::optional<int64_t>> optionalInteger(StringRef key) {
    const json::Value *value = object.get(key);
    if (!value || value->kind() == json::Value::Null)
      return std::optional<int64_t>();
    Expected<int64_t> result = asInteger(key, *value);
    if (!result)
      return result.takeError();
    return std::optional<int64_t>(*result);
  }

  Expected<double> number(StringRef key, double fallback) {
    const json::Value *value = object.get(key);
    if (!value || value->kind() == json::Value::Null)
      return fallback;
    if (std::optional<double> number = value->getAsNumber())
      return *number;
    return typeError(key, "a number", *value);
  }

  Expected<bool> boolean(StringRef key, bool fallback) {
    const json::Value *value = object.get(key);
    if (!value || value->kind() == json::Value::Null)
      return fallback;
    if (std::optional<bool> flag = value->getAsBoolean())
      return *flag;
    return typeError(key, "true or false", *value);
  }

private:
  /// Every integer field of the configs read is a size or a count.
  Expected<int64_t> asInteger(StringRef key, const json::Value &value) {
    std::optional<int64_t> integer = memopt::getJsonInteger(value);
    if (!integer)
      return typeError(key, "an integer", value);
    if (*integer <= 0)
      return makeError(llvm::formatv("{0}: field '{1}' must be a positive "
                                     "integer, got {2}",
                                     source, key, *integer)
                           .str());
    return *integer;
  }

  Error typeError(StringRef key, StringRef expected, const json::Value &value) {
    return makeError(llvm::formatv("{0}: field '{1}' must be {2}, got {3}",
                                   source, key, expected, value)
                         .str());
  }

  const json::Object &object;
  StringRef source;
  StringRef modelType;
};
} // namespace

/// Assigns `*result` to `out`, or returns its error from the caller.
#define READ_OR_RETURN(out, expr)                                              \
  do {                                                                         \
    auto result = (expr);                                                      \
    if (!result)                                                               \
      return result.takeError();                                               \
    out = *result;                                                             \
  } while (false)

static Expected<TransformerConfig> parseGPT2(FieldReader &fields) {
  TransformerConfig config;
  config.family = TransformerConfig::Family::GPT2;
  config.modelType = "gpt2";
  READ_OR_RETURN(config.hidden, fields.integer("n_embd"));
  READ_OR_RETURN(config.layers, fields.integer("n_layer"));
  READ_OR_RETURN(config.heads, fields.integer("n_head"));
  READ_OR_RETURN(config.vocab, fields.integer("vocab_size"));
  std::optional<int64_t> positions, ctx;
  READ_OR_RETURN(positions, fields.optionalInteger("n_positions"));
  READ_OR_RETURN(ctx, fields.optionalInteger("n_ctx"));
  if (!positions && !ctx)
    READ_OR_RETURN(config.positions, fields.integer("n_positions"));
  else
    config.positions = positions ? *positions : *ctx;
  READ_OR_RETURN(config.ffn, fields.optionalInteger("n_inner"));
  READ_OR_RETURN(config.residDropout, fields.number("resid_pdrop", 0.1));
  READ_OR_RETURN(config.attnDropout, fields.number("attn_pdrop", 0.1));
  READ_OR_RETURN(config.embdDropout, fields.number("embd_pdrop", 0.1));
  READ_OR_RETURN(config.normEpsilon, fields.number("layer_norm_epsilon", 1e-5));
  READ_OR_RETURN(config.tieEmbeddings,
                 fields.boolean("tie_word_embeddings", true));
  return config;
}

static Expected<TransformerConfig> parseLlama(FieldReader &fields,
                                              StringRef modelType) {
  TransformerConfig config;
  config.family = TransformerConfig::Family::Llama;
  config.modelType = modelType.str();
  READ_OR_RETURN(config.hidden, fields.integer("hidden_size"));
  READ_OR_RETURN(config.ffn, fields.integer("intermediate_size"));
  READ_OR_RETURN(config.layers, fields.integer("num_hidden_layers"));
  READ_OR_RETURN(config.heads, fields.integer("num_attention_heads"));
  READ_OR_RETURN(config.kvHeads, fields.optionalInteger("num_key_value_heads"));
  READ_OR_RETURN(config.headDim, fields.optionalInteger("head_dim"));
  READ_OR_RETURN(config.vocab, fields.integer("vocab_size"));
  // HF's defaults when the field is absent: LlamaConfig 2048,
  // MistralConfig 4096 * 32, Qwen2Config 32768.
  int64_t defaultPositions = modelType == "llama"     ? 2048
                             : modelType == "mistral" ? 4096 * 32
                                                      : 32768;
  std::optional<int64_t> positions;
  READ_OR_RETURN(positions, fields.optionalInteger("max_position_embeddings"));
  config.positions = positions.value_or(defaultPositions);
  READ_OR_RETURN(config.normEpsilon, fields.number("rms_norm_eps", 1e-6));
  READ_OR_RETURN(config.ropeTheta, fields.number("rope_theta", 10000.0));
  READ_OR_RETURN(config.tieEmbeddings,
                 fields.boolean("tie_word_embeddings", false));
  double attentionDropout;
  READ_OR_RETURN(attentionDropout, fields.number("attention_dropout", 0.0));
  if (attentionDropout != 0.0)
    return makeError(llvm::formatv("attention_dropout = {0} is not supported: "
                                   "train.attention has no dropout",
                                   formatNumber(attentionDropout))
                         .str());
  if (modelType == "qwen2") {
    config.qkvBias = true;
  } else {
    bool attentionBias;
    READ_OR_RETURN(attentionBias, fields.boolean("attention_bias", false));
    config.qkvBias = config.outputBias = attentionBias;
  }
  READ_OR_RETURN(config.mlpBias, fields.boolean("mlp_bias", false));
  return config;
}

Expected<TransformerConfig> mlir::memopt::gen::parseHFConfig(StringRef text,
                                                             StringRef source) {
  Expected<json::Value> root = memopt::parseJson(text);
  if (!root)
    return makeError(source +
                     ": malformed JSON: " + llvm::toString(root.takeError()));
  if (std::optional<JsonDuplicateKey> duplicate =
          mlir::memopt::findDuplicateJsonKey(text)) {
    auto [key, line, column] = *duplicate;
    return makeError(llvm::formatv("{0}:{1}:{2}: duplicate field '{3}' (a "
                                   "field may be set only once)",
                                   source, line, column, key)
                         .str());
  }
  const json::Object *object = root->getAsObject();
  if (!object)
    return makeError(source + ": expected a JSON object at the top level");
  const json::Value *typeValue = object->get("model_type");
  if (!typeValue)
    return makeError(source + ": missing field 'model_type'");
  std::optional<StringRef> modelType = typeValue->getAsString();
  if (!modelType)
    return makeError(
        llvm::formatv("{0}: field 'model_type' must be a string, got {1}",
                      source, *typeValue)
            .str());
  FieldReader fields(*object, source, *modelType);
  if (*modelType == "gpt2")
    return parseGPT2(fields);
  if (*modelType == "llama" || *modelType == "mistral" || *modelType == "qwen2")
    return parseLlama(fields, *modelType);
  return makeError(source + ": unsupported model_type '" + *modelType +
                   "'; supported: gpt2, llama, mistral, qwen2");
}

//===----------------------------------------------------------------------===//
// Validation
//===----------------------------------------------------------------------===//

/// Sizes beyond this are certainly typos (and would overflow element counts).
static constexpr int64_t kMaxSize = int64_t(1) << 30;

static Error checkSize(StringRef what, int64_t value) {
  if (value <= 0)
    return makeError(what + " must be positive, got " + Twine(value));
  if (value > kMaxSize)
    return makeError(what + " is too large: " + Twine(value) + " > " +
                     Twine(kMaxSize));
  return Error::success();
}

static Error checkRate(StringRef what, double rate) {
  if (!(rate >= 0.0 && rate < 1.0))
    return makeError(llvm::formatv("{0} must be in [0, 1), got {1}", what,
                                   formatNumber(rate))
                         .str());
  return Error::success();
}

/// Fails if the product of `sizes` (a tensor's element count) overflows.
static Error checkElements(StringRef what, ArrayRef<int64_t> sizes) {
  int64_t count = 1;
  for (int64_t size : sizes) {
    std::optional<int64_t> product = llvm::checkedMul(count, size);
    if (!product)
      return makeError("the " + what + " tensor has too many elements " +
                       "(more than 2^63)");
    count = *product;
  }
  return Error::success();
}

Error mlir::memopt::gen::validate(const TransformerConfig &c) {
  std::pair<StringRef, int64_t> sizes[] = {
      {"the number of layers", c.layers},
      {"the hidden size", c.hidden},
      {"the number of attention heads", c.heads},
      {"the number of key/value heads", c.getKvHeads()},
      {"the MLP width", c.getFfn()},
      {"the vocabulary size", c.vocab},
      {"the context length", c.positions},
      {"the batch size", c.batch},
      {"the sequence length", c.getSeq()}};
  for (auto [what, value] : sizes)
    if (Error error = checkSize(what, value))
      return error;
  if (c.headDim)
    if (Error error = checkSize("the head size", *c.headDim))
      return error;
  if (!c.headDim && c.hidden % c.heads != 0)
    return makeError(llvm::formatv("the hidden size {0} is not divisible by "
                                   "the {1} attention heads",
                                   c.hidden, c.heads)
                         .str());
  if (c.heads % c.getKvHeads() != 0)
    return makeError(llvm::formatv("the {0} attention heads are not divisible "
                                   "by the {1} key/value heads",
                                   c.heads, c.getKvHeads())
                         .str());
  if (c.family == TransformerConfig::Family::GPT2) {
    if (c.getKvHeads() != c.heads)
      return makeError("gpt2 has no grouped-query attention: the key/value "
                       "heads must equal the attention heads");
    if (c.getSeq() > c.positions)
      return makeError(llvm::formatv("the sequence length {0} exceeds the "
                                     "{1} positions of the position table",
                                     c.getSeq(), c.positions)
                           .str());
  }
  if (c.family == TransformerConfig::Family::Llama && c.getHeadDim() % 2 != 0)
    return makeError(llvm::formatv("rotary embeddings need an even head size, "
                                   "got {0}",
                                   c.getHeadDim())
                         .str());
  for (auto [what, rate] :
       {std::pair<StringRef, double>{"the residual dropout", c.residDropout},
        {"the attention dropout", c.attnDropout},
        {"the embedding dropout", c.embdDropout}})
    if (Error error = checkRate(what, rate))
      return error;
  // (A number too large for a double, such as 1e999, reads as infinity.)
  if (!(c.normEpsilon > 0.0 && std::isfinite(c.normEpsilon)))
    return makeError(
        llvm::formatv("the normalization epsilon must be positive and finite, "
                      "got {0}",
                      formatNumber(c.normEpsilon))
            .str());
  if (!(c.ropeTheta > 0.0 && std::isfinite(c.ropeTheta)))
    return makeError(llvm::formatv("rope_theta must be positive and finite, "
                                   "got {0}",
                                   formatNumber(c.ropeTheta))
                         .str());
  int64_t b = c.batch, s = c.getSeq();
  if (Error error = checkElements("logits", {b, s, c.vocab}))
    return error;
  if (Error error = checkElements("attention score", {b, c.heads, s, s}))
    return error;
  if (Error error = checkElements("MLP", {b, s, c.getFfn()}))
    return error;
  return checkElements("projection", {c.heads, c.getHeadDim(), c.hidden});
}

Expected<TransformerConfig>
mlir::memopt::gen::applyOverrides(TransformerConfig c,
                                  const TransformerOverrides &overrides) {
  if (overrides.batch)
    c.batch = *overrides.batch;
  if (overrides.layers)
    c.layers = *overrides.layers;
  if (overrides.hidden || overrides.heads)
    c.headDim.reset();
  if (overrides.hidden)
    c.hidden = *overrides.hidden;
  if (overrides.heads)
    c.heads = *overrides.heads;
  if (overrides.kvHeads)
    c.kvHeads = *overrides.kvHeads;
  if (overrides.ffn)
    c.ffn = *overrides.ffn;
  if (overrides.vocab)
    c.vocab = *overrides.vocab;
  if (overrides.seq)
    c.seq = *overrides.seq;
  if (overrides.positions)
    c.positions = *overrides.positions;
  else if (c.family == TransformerConfig::Family::GPT2 && c.seq &&
           *c.seq > c.positions)
    c.positions = *c.seq;
  if (overrides.dropout)
    c.residDropout = c.attnDropout = c.embdDropout = *overrides.dropout;
  if (overrides.tieEmbeddings)
    c.tieEmbeddings = *overrides.tieEmbeddings;
  if (Error error = validate(c))
    return std::move(error);
  return c;
}

//===----------------------------------------------------------------------===//
// Generators
//===----------------------------------------------------------------------===//

/// [B, S, H*D] -> [B, H, S, D].
static Value splitHeads(ModelBuilder &b, Value x, int64_t heads,
                        int64_t headDim, StringRef name) {
  ArrayRef<int64_t> shape = ModelBuilder::shapeOf(x);
  Value split = b.reshape(x, {shape[0], shape[1], heads, headDim}, name);
  return b.transpose(split, {0, 2, 1, 3}, name);
}

/// [B, H, S, D] -> [B, S, H*D].
static Value mergeHeads(ModelBuilder &b, Value x, StringRef name) {
  ArrayRef<int64_t> shape = ModelBuilder::shapeOf(x);
  Value merged = b.transpose(x, {0, 2, 1, 3}, name);
  return b.reshape(merged, {shape[0], shape[2], shape[1] * shape[3]}, name);
}

void mlir::memopt::gen::buildGPT2(ModelBuilder &b, const TransformerConfig &c) {
  int64_t batch = c.batch, seq = c.getSeq(), hidden = c.hidden;
  int64_t heads = c.heads, headDim = c.getHeadDim(), vocab = c.vocab;
  Value ids = b.addIndexInput("input_ids", {batch, seq});
  Value positions = b.addIndexInput("position_ids", {batch, seq});
  Value labels = b.addIndexInput("labels", {batch, seq});

  Value wte = b.param("wte.weight", {vocab, hidden});
  Value wpe = b.param("wpe.weight", {c.positions, hidden});
  Value tokens = b.embedding(wte, ids, "wte");
  Value x = b.add(tokens, b.embedding(wpe, positions, "wpe"), "embed");
  x = b.dropout(x, c.embdDropout, "drop");
  double scale = 1.0 / std::sqrt(static_cast<double>(headDim));
  for (int64_t layer = 0; layer < c.layers; ++layer) {
    std::string h = "h." + std::to_string(layer) + ".";
    b.setLayer(StringRef(h).drop_back());
    auto at = [&](StringRef suffix) { return h + suffix.str(); };
    Value ln1 = b.layerNorm(x, at("ln_1"), c.normEpsilon);
    Value qkv = b.linear(ln1, at("attn.c_attn"), 3 * hidden, /*bias=*/true,
                         /*outMajor=*/false);
    SmallVector<Value, 3> qkvHeads;
    for (int64_t i = 0; i < 3; ++i) {
      Value part = b.slice(qkv, {0, 0, i * hidden}, {batch, seq, hidden},
                           at("attn.split"));
      qkvHeads.push_back(
          splitHeads(b, part, heads, headDim, at("attn.split_heads")));
    }
    Value scores = b.matmul(qkvHeads[0], qkvHeads[1], /*transposeLhs=*/false,
                            /*transposeRhs=*/true, at("attn.scores"));
    Value probs = b.softmax(scores, scale, /*causal=*/true, at("attn.softmax"));
    probs = b.dropout(probs, c.attnDropout, at("attn.attn_dropout"));
    Value context =
        b.matmul(probs, qkvHeads[2], false, false, at("attn.context"));
    Value merged = mergeHeads(b, context, at("attn.merge_heads"));
    Value attn = b.linear(merged, at("attn.c_proj"), hidden, true, false);
    attn = b.dropout(attn, c.residDropout, at("attn.resid_dropout"));
    x = b.add(x, attn, at("residual_attn"));

    Value ln2 = b.layerNorm(x, at("ln_2"), c.normEpsilon);
    Value fc = b.linear(ln2, at("mlp.c_fc"), c.getFfn(), true, false);
    Value act = b.gelu(fc, /*approximate=*/true, at("mlp.act"));
    Value mlp = b.linear(act, at("mlp.c_proj"), hidden, true, false);
    mlp = b.dropout(mlp, c.residDropout, at("mlp.dropout"));
    x = b.add(x, mlp, at("residual_mlp"));
  }
  b.setLayer("");
  x = b.layerNorm(x, "ln_f", c.normEpsilon);
  Value logits = c.tieEmbeddings ? b.matmul(x, wte, false, true, "lm_head")
                                 : b.linear(x, "lm_head", vocab, /*bias=*/false,
                                            /*outMajor=*/true);
  b.finish(b.crossEntropy(logits, labels, "loss"));
}

void mlir::memopt::gen::buildLlama(ModelBuilder &b,
                                   const TransformerConfig &c) {
  int64_t batch = c.batch, seq = c.getSeq(), hidden = c.hidden;
  int64_t heads = c.heads, kvHeads = c.getKvHeads(), headDim = c.getHeadDim();
  Value ids = b.addIndexInput("input_ids", {batch, seq});
  Value labels = b.addIndexInput("labels", {batch, seq});

  Value embed = b.param("model.embed_tokens.weight", {c.vocab, hidden});
  Value x = b.embedding(embed, ids, "model.embed_tokens");
  double scale = 1.0 / std::sqrt(static_cast<double>(headDim));
  for (int64_t layer = 0; layer < c.layers; ++layer) {
    std::string p = "model.layers." + std::to_string(layer) + ".";
    b.setLayer(StringRef(p).drop_back());
    auto at = [&](StringRef suffix) { return p + suffix.str(); };
    Value h1 = b.rmsNorm(x, at("input_layernorm"), c.normEpsilon);
    Value q = b.linear(h1, at("self_attn.q_proj"), heads * headDim, c.qkvBias,
                       /*outMajor=*/true);
    Value k = b.linear(h1, at("self_attn.k_proj"), kvHeads * headDim, c.qkvBias,
                       true);
    Value v = b.linear(h1, at("self_attn.v_proj"), kvHeads * headDim, c.qkvBias,
                       true);
    std::string split = at("self_attn.split_heads");
    q = splitHeads(b, q, heads, headDim, split);
    k = splitHeads(b, k, kvHeads, headDim, split);
    v = splitHeads(b, v, kvHeads, headDim, split);
    q = b.rotary(q, c.ropeTheta, at("self_attn.rotary_emb"));
    k = b.rotary(k, c.ropeTheta, at("self_attn.rotary_emb"));
    Value attn =
        b.attention(q, k, v, scale, /*causal=*/true, at("self_attn.attention"));
    Value merged = mergeHeads(b, attn, at("self_attn.merge_heads"));
    Value o =
        b.linear(merged, at("self_attn.o_proj"), hidden, c.outputBias, true);
    x = b.add(x, o, at("residual_attn"));

    Value h2 = b.rmsNorm(x, at("post_attention_layernorm"), c.normEpsilon);
    Value gate = b.linear(h2, at("mlp.gate_proj"), c.getFfn(), c.mlpBias, true);
    Value up = b.linear(h2, at("mlp.up_proj"), c.getFfn(), c.mlpBias, true);
    Value act = b.swiglu(gate, up, at("mlp.act_fn"));
    Value down = b.linear(act, at("mlp.down_proj"), hidden, c.mlpBias, true);
    x = b.add(x, down, at("residual_mlp"));
  }
  b.setLayer("");
  x = b.rmsNorm(x, "model.norm", c.normEpsilon);
  Value logits = c.tieEmbeddings
                     ? b.matmul(x, embed, false, true, "lm_head")
                     : b.linear(x, "lm_head", c.vocab, /*bias=*/false,
                                /*outMajor=*/true);
  b.finish(b.crossEntropy(logits, labels, "loss"));
}
