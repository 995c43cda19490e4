//===- TorchImportNorm.cpp - batch and layer norm -------------------------===//
//
// The handlers of aten.native_batch_norm (training mode, NCHW) and
// aten.native_layer_norm (last dimension). RMSNorm has no ATen op: it is
// recognised from its steps in TorchImportFusions.cpp.
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

LogicalResult GraphImporter::importBatchNorm(Node &node,
                                             SmallVectorImpl<Result> &out) {
  FailureOr<Value> input = getTensor(node, 0);
  if (failed(input))
    return failure();
  FailureOr<bool> training = getBool(node, 5, "training");
  FailureOr<double> epsilon = getDouble(node, 7, "eps");
  if (failed(training) || failed(epsilon))
    return failure();
  if (!*training)
    return emitError(node.loc) << "batch norm in evaluation mode (running "
                                  "statistics) is not supported; export the "
                                  "model in training mode";
  if (shapeOf(*input).size() != 4)
    return emitError(node.loc) << "only BatchNorm2d (NCHW inputs) is supported";
  if (node.isNone(1) || node.isNone(2))
    return emitError(node.loc)
           << "batch norm without affine weight and bias is not supported";
  FailureOr<Value> gamma = getTensor(node, 1);
  FailureOr<Value> beta = getTensor(node, 2);
  if (failed(gamma) || failed(beta))
    return failure();
  int64_t channels = shapeOf(*input)[1];
  // Normalization statistics are f32 whatever the model's type.
  auto stat = RankedTensorType::get({channels}, getBuilder().getF32Type());
  auto op = train::BatchNormOp::create(
      getBuilder(), builder->loc("batch_norm"), (*input).getType(), stat, stat,
      *input, *gamma, *beta, getBuilder().getF64FloatAttr(*epsilon));
  out.push_back(plain(op.getResult()));
  return success();
}

LogicalResult GraphImporter::importLayerNorm(Node &node,
                                             SmallVectorImpl<Result> &out) {
  FailureOr<Value> input = getTensor(node, 0);
  FailureOr<SmallVector<int64_t>> normalized =
      getIntList(node, 1, "normalized_shape");
  FailureOr<double> epsilon = getDouble(node, 4, "eps");
  if (failed(input) || failed(normalized) || failed(epsilon))
    return failure();
  ArrayRef<int64_t> shape = shapeOf(*input);
  if (normalized->size() != 1 || shape.empty() ||
      normalized->front() != shape.back())
    return emitError(node.loc)
           << "layer norm over more than the last dimension is not supported";
  if (node.isNone(2) || node.isNone(3))
    return emitError(node.loc)
           << "layer norm without affine weight and bias is not supported";
  FailureOr<Value> gamma = getTensor(node, 2);
  FailureOr<Value> beta = getTensor(node, 3);
  if (failed(gamma) || failed(beta))
    return failure();
  auto stat =
      RankedTensorType::get(shape.drop_back(), getBuilder().getF32Type());
  auto op = train::LayerNormOp::create(
      getBuilder(), builder->loc("layer_norm"), (*input).getType(), stat, stat,
      *input, *gamma, *beta, getBuilder().getF64FloatAttr(*epsilon));
  out.push_back(plain(op.getResult()));
  return success();
}

//===----------------------------------------------------------------------===//
// Registration
//===----------------------------------------------------------------------===//

void mlir::memopt::import::detail::registerNormHandlers(HandlerTable &table) {
  using G = GraphImporter;
  static const OpEntry entries[] = {
      {{"aten.native_batch_norm.default",
        "train.batch_norm (training mode, batch statistics)"},
       &G::importBatchNorm},
      {{"aten.native_layer_norm.default", "train.layer_norm (last dimension)"},
       &G::importLayerNorm},
  };
  table.append(std::begin(entries), std::end(entries));
}
