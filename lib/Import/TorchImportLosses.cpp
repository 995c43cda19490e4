//===- TorchImportLosses.cpp - losses -------------------------------------===//
//
// The handlers of the losses: aten.nll_loss_forward of a pending
// aten._log_softmax (TorchImportFusions.cpp) is train.cross_entropy;
// aten.mse_loss is train.mse_loss.
//
//===----------------------------------------------------------------------===//

#include "TorchImportInternal.h"

#include "memopt/Dialect/Train/IR/TrainOps.h"

using namespace mlir;
using namespace mlir::memopt;
using namespace mlir::memopt::import;
using namespace mlir::memopt::import::detail;

//===----------------------------------------------------------------------===//
// Handlers
//===----------------------------------------------------------------------===//

LogicalResult GraphImporter::importNllLoss(Node &node,
                                           SmallVectorImpl<Result> &out) {
  bool poisonedInput = false;
  const json::Value *first = node.get(0);
  if (!first)
    return emitError(node.loc) << "nll_loss: argument #0 is missing";
  FailureOr<Result *> logProbs = lookup(node, *first, poisonedInput);
  if (failed(logProbs))
    return failure();
  if ((*logProbs)->kind != Result::Kind::LogSoftmax)
    return emitError(node.loc) << "nll_loss is supported only on a "
                                  "log_softmax (that is, cross-entropy)";
  FailureOr<Value> labels = getTensor(node, 1);
  FailureOr<int64_t> reduction = getInt(node, 3, "reduction", 1);
  FailureOr<int64_t> ignoreIndex = getInt(node, 4, "ignore_index", -100);
  if (failed(labels) || failed(reduction) || failed(ignoreIndex))
    return failure();
  if (!node.isNone(2, "weight"))
    return emitError(node.loc) << "class weights are not supported";
  if (*reduction != 1)
    return emitError(node.loc)
           << "only the mean reduction of cross-entropy is supported";
  Value logits = (*logProbs)->value;
  auto lossType = RankedTensorType::get({}, getLossElementType());
  Value loss = train::CrossEntropyOp::create(
      getBuilder(), builder->loc("cross_entropy"), lossType, logits, *labels,
      getBuilder().getI64IntegerAttr(*ignoreIndex));
  out.push_back(plain(loss));
  // total_weight: the count of labels that are not ignored.
  out.push_back(Result());
  return success();
}

LogicalResult GraphImporter::importMseLoss(Node &node,
                                           SmallVectorImpl<Result> &out) {
  FailureOr<Value> input = getTensor(node, 0);
  FailureOr<Value> target = getTensor(node, 1);
  FailureOr<int64_t> reduction = getInt(node, 2, "reduction", 1);
  if (failed(input) || failed(target) || failed(reduction))
    return failure();
  if (*reduction != 1)
    return emitError(node.loc) << "only the mean reduction of mse_loss is "
                                  "supported";
  if (shapeOf(*input) != shapeOf(*target))
    return emitError(node.loc)
           << "mse_loss with operands of different shapes is not supported";
  out.push_back(plain(builder->mseLoss(*input, *target, "mse_loss")));
  return success();
}

//===----------------------------------------------------------------------===//
// Registration
//===----------------------------------------------------------------------===//

void mlir::memopt::import::detail::registerLossHandlers(HandlerTable &table) {
  using G = GraphImporter;
  static const OpEntry entries[] = {
      {{"aten.mse_loss.default", "train.mse_loss (mean)"}, &G::importMseLoss},
      {{"aten.nll_loss_forward.default",
        "of an aten._log_softmax: train.cross_entropy (mean, ignore_index)"},
       &G::importNllLoss},
  };
  table.append(std::begin(entries), std::end(entries));
}
