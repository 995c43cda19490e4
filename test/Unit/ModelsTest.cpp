//===- ModelsTest.cpp - unit tests of the model generators ----------------===//
//
// Builds models in process through the MemoptModels library (what mem-gen
// emits), verifies them, and checks their parameters against the closed-form
// counts of the architectures.
//
//===----------------------------------------------------------------------===//

#include "memopt/Models/Models.h"
#include "memopt/Dialect/Train/IR/TrainOps.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/IR/Verifier.h"
#include "llvm/ADT/StringMap.h"

#include "gtest/gtest.h"

using namespace mlir;
using namespace mlir::memopt;
using namespace mlir::memopt::gen;

namespace {

class ModelsTest : public ::testing::Test {
protected:
  ModelsTest() {
    context.loadDialect<train::TrainDialect, func::FuncDialect>();
    module = ModuleOp::create(UnknownLoc::get(&context));
  }

  /// Builds `config` into the module as @name and checks the module
  /// verifies and holds that function.
  func::FuncOp build(StringRef name, const ModelConfig &config,
                     Type elementType = {}) {
    if (!elementType)
      elementType = Float32Type::get(&context);
    func::FuncOp func = buildModel(*module, name, elementType, config);
    EXPECT_TRUE(succeeded(verify(*module)));
    EXPECT_EQ(func.getSymName(), name);
    EXPECT_EQ(func->getParentOp(), module->getOperation());
    return func;
  }

  /// The distinct parameters of `func` by name: shape element counts and
  /// bytes, read from the `train.param` ops themselves.
  llvm::StringMap<std::pair<int64_t, int64_t>> params(func::FuncOp func) {
    llvm::StringMap<std::pair<int64_t, int64_t>> result;
    func.walk([&](train::ParamOp param) {
      auto type = cast<RankedTensorType>(param.getType());
      result.try_emplace(param.getName(), type.getNumElements(),
                         train::getTensorBytes(type));
    });
    return result;
  }

  static int64_t
  sumElements(const llvm::StringMap<std::pair<int64_t, int64_t>> &params) {
    int64_t sum = 0;
    for (const auto &entry : params)
      sum += entry.second.first;
    return sum;
  }

  MLIRContext context;
  OwningOpRef<ModuleOp> module;
};

/// GPT-2 with a tied LM head: wte V*h + wpe P*h + per layer 12h^2 + 13h
/// (ln_1, c_attn, c_proj, ln_2, c_fc, c_proj; weights and biases) + ln_f 2h.
int64_t gpt2Parameters(int64_t layers, int64_t hidden, int64_t vocab,
                       int64_t positions) {
  return vocab * hidden + positions * hidden +
         layers * (12 * hidden * hidden + 13 * hidden) + 2 * hidden;
}

TEST_F(ModelsTest, OneLayerGPT2MatchesTheFormula) {
  TransformerConfig config;
  config.layers = 1;
  config.hidden = 64;
  config.heads = 4;
  config.vocab = 100;
  config.positions = 32;
  config.seq = 16;
  config.batch = 2;
  config.tieEmbeddings = true;
  ASSERT_FALSE(static_cast<bool>(validate(config)));
  func::FuncOp func = build("gpt2", config);

  auto byName = params(func);
  // wte, wpe, ln_1 (2), c_attn (2), c_proj (2), ln_2 (2), c_fc (2),
  // mlp.c_proj (2), ln_f (2): the tied LM head reads wte again.
  EXPECT_EQ(byName.size(), 16u);
  ASSERT_TRUE(byName.count("h.0.attn.c_attn.weight"));
  EXPECT_EQ(byName.lookup("h.0.attn.c_attn.weight").first, 64 * 3 * 64);
  EXPECT_FALSE(byName.count("lm_head.weight"));
  int64_t expected = gpt2Parameters(1, 64, 100, 32);
  // 6400 + 2048 + 12 * 4096 + 13 * 64 + 128.
  EXPECT_EQ(expected, 58560);
  EXPECT_EQ(countParameters(*module), expected);
  EXPECT_EQ(sumElements(byName), expected);
  int64_t bytes = 0;
  for (const auto &entry : byName)
    bytes += entry.second.second;
  EXPECT_EQ(bytes, 4 * expected);

  // The batch data are the arguments; the loss is the only result.
  EXPECT_EQ(func.getNumArguments(), 3u);
  ASSERT_EQ(func.getNumResults(), 1u);
  EXPECT_EQ(cast<RankedTensorType>(func.getResultTypes()[0]).getRank(), 0);
}

TEST_F(ModelsTest, GPT2PresetHasThePublishedCount) {
  llvm::Expected<TransformerConfig> config = getPreset("gpt2");
  ASSERT_TRUE(static_cast<bool>(config)) << llvm::toString(config.takeError());
  ASSERT_FALSE(static_cast<bool>(validate(*config)));
  build("gpt2", *config);
  EXPECT_EQ(countParameters(*module), gpt2Parameters(12, 768, 50257, 1024));
  EXPECT_EQ(countParameters(*module), 124439808);
}

TEST_F(ModelsTest, UntiedGPT2HasAnLMHead) {
  TransformerConfig config;
  config.layers = 2;
  config.hidden = 32;
  config.heads = 2;
  config.vocab = 50;
  config.positions = 8;
  config.tieEmbeddings = false;
  ASSERT_FALSE(static_cast<bool>(validate(config)));
  build("gpt2", config);
  EXPECT_EQ(countParameters(*module), gpt2Parameters(2, 32, 50, 8) + 50 * 32);
}

TEST_F(ModelsTest, LlamaFromAnHFConfig) {
  // Grouped-query attention: 4 query heads of 8, 2 key/value heads.
  llvm::Expected<TransformerConfig> config = parseHFConfig(
      R"({"model_type": "llama", "num_hidden_layers": 2, "hidden_size": 32,
          "num_attention_heads": 4, "num_key_value_heads": 2,
          "intermediate_size": 48, "vocab_size": 64,
          "max_position_embeddings": 16})",
      "config.json");
  ASSERT_TRUE(static_cast<bool>(config)) << llvm::toString(config.takeError());
  EXPECT_EQ(config->family, TransformerConfig::Family::Llama);
  EXPECT_EQ(config->getKvHeads(), 2);
  EXPECT_EQ(config->getHeadDim(), 8);
  ASSERT_FALSE(static_cast<bool>(validate(*config)));
  build("llama", *config);
  // Per layer: q and o 32x32, k and v 32x16, gate/up/down 32x48, two RMS
  // norms; then the final norm, the embedding and the untied LM head.
  int64_t layer = 2 * 32 * 32 + 2 * 32 * 16 + 3 * 32 * 48 + 2 * 32;
  EXPECT_EQ(countParameters(*module), 2 * layer + 32 + 2 * 64 * 32);
}

TEST_F(ModelsTest, InvalidConfigsAreRejectedWithAMessage) {
  TransformerConfig config;
  config.layers = 1;
  config.hidden = 30;
  config.heads = 4;
  config.vocab = 10;
  config.positions = 8;
  llvm::Error error = validate(config);
  ASSERT_TRUE(static_cast<bool>(error));
  std::string message = llvm::toString(std::move(error));
  EXPECT_NE(message.find("30"), std::string::npos) << message;

  llvm::Expected<TransformerConfig> parsed =
      parseHFConfig("{\"model_type\": \"bert\"}", "bert.json");
  ASSERT_FALSE(static_cast<bool>(parsed));
  message = llvm::toString(parsed.takeError());
  EXPECT_NE(message.find("bert"), std::string::npos) << message;
}

TEST_F(ModelsTest, MlpParametersInF64) {
  MlpConfig config;
  config.batch = 4;
  config.layers = 3;
  config.hidden = 32;
  config.classes = 5;
  func::FuncOp func = build("mlp", config, Float64Type::get(&context));
  auto byName = params(func);
  // fc1, fc2: 32x32 + 32; fc3: 32x5 + 5.
  int64_t expected = 2 * (32 * 32 + 32) + 32 * 5 + 5;
  EXPECT_EQ(byName.size(), 6u);
  EXPECT_EQ(countParameters(*module), expected);
  int64_t bytes = 0;
  for (const auto &entry : byName)
    bytes += entry.second.second;
  EXPECT_EQ(bytes, 8 * expected);
  // x [4, 32] and labels [4].
  ASSERT_EQ(func.getNumArguments(), 2u);
  EXPECT_EQ(cast<RankedTensorType>(func.getArgumentTypes()[0]).getShape(),
            ArrayRef<int64_t>({4, 32}));
}

TEST_F(ModelsTest, CnnAndRandomGraphsVerify) {
  CnnConfig resnet = getCnnDefaults("resnet18");
  resnet.height = resnet.width = 32;
  ASSERT_FALSE(static_cast<bool>(validate(resnet)));
  build("resnet18", resnet);
  // torchvision's resnet18: 11,689,512 parameters at any resolution.
  EXPECT_EQ(countParameters(*module), 11689512);

  // One seed gives one graph: two builds print the same.
  auto print = [&](uint64_t seed) {
    OwningOpRef<ModuleOp> other = ModuleOp::create(UnknownLoc::get(&context));
    buildModel(*other, "random", Float32Type::get(&context),
               RandomConfig{seed, 30});
    EXPECT_TRUE(succeeded(verify(*other)));
    std::string text;
    llvm::raw_string_ostream os(text);
    other->print(os);
    return text;
  };
  EXPECT_EQ(print(7), print(7));
  EXPECT_NE(print(7), print(8));
}

} // namespace
