//===- FuzzHFConfig.cpp - mem-gen's HuggingFace config reader -------------===//
//
// libFuzzer target: parses the input (its run-length escapes expanded,
// FuzzExpand.h, so that a small input reaches 100,000 levels of nesting) as
// a HuggingFace config.json with mem-gen's reader (parseHFConfig) and
// validates it as mem-gen does. When a
// configuration is valid and small (so that a run stays fast), it is built
// with the generator (buildGPT2 / buildLlama) at a short sequence length,
// verified, and differentiated with train-autodiff, as `mem-gen --train`
// does: a rejected config (with a message) is a correct answer; a crash, a
// sanitizer report, or a valid config whose graph does not verify or does
// not differentiate is a finding.
//
//===----------------------------------------------------------------------===//

#include "FuzzExpand.h"

#include "memopt/Models/Models.h"

#include "memopt/Dialect/Train/IR/TrainDialect.h"
#include "memopt/Transforms/Passes.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/IR/Verifier.h"
#include "mlir/Pass/PassManager.h"
#include "llvm/Support/Error.h"
#include "llvm/Support/raw_ostream.h"

#include <algorithm>
#include <cstdint>
#include <cstdlib>

using namespace mlir;
using namespace mlir::memopt::gen;

static MLIRContext &getContext() {
  static MLIRContext *context = [] {
    auto *context = new MLIRContext(MLIRContext::Threading::DISABLED);
    context->loadDialect<memopt::train::TrainDialect, func::FuncDialect>();
    // Diagnostics are reported below as findings where they are ones.
    context->getDiagEngine().registerHandler([](Diagnostic &) {});
    return context;
  }();
  return *context;
}

/// Whether building `c` is cheap enough for every fuzzing run.
static bool isSmall(const TransformerConfig &c) {
  return c.layers <= 2 && c.hidden <= 64 && c.heads <= 16 &&
         c.getHeadDim() <= 64 && c.getFfn() <= 256 && c.vocab <= 256;
}

[[noreturn]] static void finding(const llvm::Twine &message) {
  llvm::errs() << "memopt-fuzz-hf-config: " << message << "\n";
  std::abort();
}

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  std::optional<std::string> text =
      mlir::memopt::fuzz::expandJsonInput(data, size);
  if (!text)
    return -1;
  llvm::Expected<TransformerConfig> parsed =
      parseHFConfig(*text, "config.json");
  if (!parsed) {
    llvm::consumeError(parsed.takeError());
    return 0;
  }
  TransformerConfig config = *parsed;
  if (llvm::Error error = validate(config)) {
    llvm::consumeError(std::move(error));
    return 0;
  }
  if (!isSmall(config))
    return 0;
  // A short sequence, as `mem-gen --seq` sets it.
  config.seq = std::min<int64_t>(config.positions, 8);
  if (llvm::Error error = validate(config))
    finding("a valid config is invalid at sequence length 8: " +
            llvm::toString(std::move(error)));

  MLIRContext &context = getContext();
  OwningOpRef<ModuleOp> module = ModuleOp::create(UnknownLoc::get(&context));
  ModelBuilder builder(*module, "step", Float32Type::get(&context));
  if (config.family == TransformerConfig::Family::GPT2)
    buildGPT2(builder, config);
  else
    buildLlama(builder, config);
  if (failed(verify(*module)))
    finding("the generated graph does not verify");
  PassManager pm(&context);
  pm.addNestedPass<func::FuncOp>(memopt::createTrainAutodiffPass());
  if (failed(pm.run(*module)))
    finding("train-autodiff failed on the generated graph");
  return 0;
}
