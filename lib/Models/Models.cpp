//===- Models.cpp - any model, parameter counts ---------------------------===//

#include "memopt/Models/Models.h"

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
  op->walk([&](train::ParamOp param) {
    if (seen.insert(param.getName()).second)
      count += cast<RankedTensorType>(param.getType()).getNumElements();
  });
  return count;
}
