//===- Models.cpp - any model, parameter counts ---------------------------===//

#include "memopt/Models/Models.h"

#include "memopt/Dialect/Train/IR/Quantization.h"
#include "memopt/Dialect/Train/IR/TrainOps.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/StringSet.h"

using namespace mlir;
using namespace mlir::memopt;
using namespace mlir::memopt::gen;

func::FuncOp mlir::memopt::gen::buildModel(ModuleOp module, StringRef name,
                                           Type elementType,
                                           const ModelConfig &config) {
  ModelBuilder builder(module, name, elementType);
  std::visit(llvm::makeVisitor(
                 [&](const TransformerConfig &c) {
                   if (c.family == TransformerConfig::Family::GPT2)
                     buildGPT2(builder, c);
                   else
                     buildLlama(builder, c);
                 },
                 [&](const CnnConfig &c) { buildCnn(builder, c); },
                 [&](const MlpConfig &c) { buildMlp(builder, c); },
                 [&](const RandomConfig &c) { buildRandom(builder, c); }),
             config);
  return builder.getFunction();
}

int64_t mlir::memopt::gen::countParameters(Operation *op) {
  llvm::StringSet<> seen;
  int64_t count = 0;
  // A weight stored quantized (train-quantize-frozen) counts its own
  // elements, read off its dequantize ops, not its storage's.
  auto countWeight = [&](StringRef name, Type type) {
    if (seen.insert(name).second)
      count += cast<RankedTensorType>(type).getNumElements();
  };
  op->walk([&](Operation *nested) {
    if (auto dq = dyn_cast<train::DequantizeNF4Op>(nested))
      return countWeight(dq.getWeight(), dq.getType());
    if (auto dq = dyn_cast<train::DequantizeInt8Op>(nested))
      return countWeight(dq.getWeight(), dq.getType());
    auto param = dyn_cast<train::ParamOp>(nested);
    if (param && !train::isQuantizedStorage(param.getResult()))
      countWeight(param.getName(), param.getType());
  });
  return count;
}
