//===- TorchImportElementwise.cpp - arithmetic and activations ------------===//
//
// The handlers of elementwise ops: add, sub, mul, div, neg (operands
// broadcast to the result), the activations, softmax, dropout and the
// dtype-preserving copy. aten.add, aten.mean and aten.mul first try to
// continue a pending RMSNorm (TorchImportFusions.cpp).
//
//===----------------------------------------------------------------------===//

#include "TorchImportInternal.h"

#include <cmath>

using namespace mlir;
using namespace mlir::memopt;
using namespace mlir::memopt::import;
using namespace mlir::memopt::import::detail;

//===----------------------------------------------------------------------===//
// Handlers
//===----------------------------------------------------------------------===//

LogicalResult GraphImporter::importRelu(Node &node,
                                        SmallVectorImpl<Result> &out) {
  FailureOr<Value> input = getTensor(node, 0);
  if (failed(input))
    return failure();
  out.push_back(plain(builder->relu(*input, "relu")));
  return success();
}

LogicalResult GraphImporter::importHardtanh(Node &node,
                                            SmallVectorImpl<Result> &out) {
  FailureOr<Value> input = getTensor(node, 0);
  bool clamp = node.target.starts_with("aten.clamp");
  FailureOr<double> lower =
      getDouble(node, 1, clamp ? "min" : "min_val",
                clamp ? std::nullopt : std::optional<double>(-1.0));
  FailureOr<double> upper =
      getDouble(node, 2, clamp ? "max" : "max_val",
                clamp ? std::nullopt : std::optional<double>(1.0));
  if (failed(input) || failed(lower) || failed(upper))
    return failure();
  if (*lower != 0.0 || !(*upper > 0.0) || !std::isfinite(*upper))
    return emitError(node.loc)
           << "clamping to [" << *lower << ", " << *upper
           << "] is not supported; only [0, upper] (ReLU6) is";
  out.push_back(plain(builder->relu6(*input, *upper, "relu6")));
  return success();
}

LogicalResult GraphImporter::importGelu(Node &node,
                                        SmallVectorImpl<Result> &out) {
  FailureOr<Value> input = getTensor(node, 0);
  FailureOr<StringRef> approximate = getString(node, 1, "approximate", "none");
  if (failed(input) || failed(approximate))
    return failure();
  if (*approximate != "none" && *approximate != "tanh")
    return emitError(node.loc)
           << "unknown gelu approximation '" << *approximate << "'";
  out.push_back(plain(builder->gelu(*input, *approximate == "tanh", "gelu")));
  return success();
}

LogicalResult GraphImporter::importNeg(Node &node,
                                       SmallVectorImpl<Result> &out) {
  FailureOr<Value> input = getTensor(node, 0);
  if (failed(input))
    return failure();
  out.push_back(plain(builder->scale(*input, -1.0, "neg")));
  return success();
}

LogicalResult GraphImporter::importToCopy(Node &node,
                                          SmallVectorImpl<Result> &out) {
  FailureOr<Value> input = getTensor(node, 0);
  if (failed(input))
    return failure();
  RankedTensorType type = getOutputType(node);
  if (!type || type != (*input).getType())
    return emitError(node.loc)
           << "dtype conversions inside the model are not supported (export "
              "the model in one dtype; train-precision lowers precision)";
  out.push_back(plain(*input));
  return success();
}

template <Value (gen::ModelBuilder::*build)(Value, StringRef)>
LogicalResult GraphImporter::importActivation(Node &node,
                                              SmallVectorImpl<Result> &out) {
  FailureOr<Value> input = getTensor(node, 0);
  if (failed(input))
    return failure();
  out.push_back(plain(((*builder).*build)(*input, node.target)));
  return success();
}

LogicalResult GraphImporter::importAdd(Node &node,
                                       SmallVectorImpl<Result> &out) {
  if (std::optional<LogicalResult> fused = fuseRmsNormEpsilon(node, out))
    return *fused;
  return importAddOrSub(node, out, /*subtract=*/false);
}

/// `lhs + alpha * rhs` or `lhs - alpha * rhs` (aten.add/sub.Tensor), the
/// operands broadcast to the result.
LogicalResult GraphImporter::importAddOrSub(Node &node,
                                            SmallVectorImpl<Result> &out,
                                            bool subtract) {
  if (isScalar(node, 1))
    return emitError(node.loc)
           << (subtract ? "subtracting a number from a tensor"
                        : "adding a number to a tensor")
           << " is not supported";
  FailureOr<Value> lhs = getTensor(node, 0);
  FailureOr<Value> rhs = getTensor(node, 1);
  FailureOr<double> alpha = getDouble(node, 2, "alpha", 1.0);
  if (failed(lhs) || failed(rhs) || failed(alpha) ||
      failed(broadcastOperands(node, *lhs, *rhs)))
    return failure();
  Value right = *alpha == 1.0 ? *rhs : builder->scale(*rhs, *alpha, "alpha");
  out.push_back(plain(subtract ? builder->sub(*lhs, right, "sub")
                               : builder->add(*lhs, right, "add")));
  return success();
}

LogicalResult GraphImporter::importSub(Node &node,
                                       SmallVectorImpl<Result> &out) {
  return importAddOrSub(node, out, /*subtract=*/true);
}

LogicalResult GraphImporter::importMul(Node &node,
                                       SmallVectorImpl<Result> &out) {
  if (std::optional<LogicalResult> fused = fuseRmsNormMul(node, out))
    return *fused;
  FailureOr<Value> lhs = getTensor(node, 0);
  if (failed(lhs))
    return failure();
  if (isScalar(node, 1)) {
    FailureOr<double> factor = getDouble(node, 1, "other");
    if (failed(factor))
      return failure();
    out.push_back(plain(builder->scale(*lhs, *factor, "mul")));
    return success();
  }
  FailureOr<Value> rhs = getTensor(node, 1);
  if (failed(rhs) || failed(broadcastOperands(node, *lhs, *rhs)))
    return failure();
  out.push_back(plain(builder->mul(*lhs, *rhs, "mul")));
  return success();
}

LogicalResult GraphImporter::importDiv(Node &node,
                                       SmallVectorImpl<Result> &out) {
  FailureOr<Value> lhs = getTensor(node, 0);
  if (failed(lhs))
    return failure();
  if (!isScalar(node, 1) || !node.isNone(2, "rounding_mode"))
    return emitError(node.loc)
           << "only division by a number (without rounding) is supported";
  FailureOr<double> divisor = getDouble(node, 1, "other");
  if (failed(divisor))
    return failure();
  if (*divisor == 0.0 || !std::isfinite(*divisor))
    return emitError(node.loc) << "division by " << *divisor;
  out.push_back(plain(builder->scale(*lhs, 1.0 / *divisor, "div")));
  return success();
}

LogicalResult GraphImporter::importDropout(Node &node,
                                           SmallVectorImpl<Result> &out) {
  FailureOr<Value> input = getTensor(node, 0);
  FailureOr<double> rate = getDouble(node, 1, "p");
  FailureOr<bool> train = getBool(node, 2, "train", true);
  if (failed(input) || failed(rate) || failed(train))
    return failure();
  if (*rate < 0.0 || *rate >= 1.0)
    return emitError(node.loc)
           << "dropout rate " << *rate << " is outside [0, 1)";
  out.push_back(
      plain(*train ? builder->dropout(*input, *rate, "dropout") : *input));
  // The mask has no train counterpart (train.dropout regenerates it).
  out.push_back(Result());
  return success();
}

LogicalResult GraphImporter::importSoftmax(Node &node,
                                           SmallVectorImpl<Result> &out) {
  const json::Value *first = node.get(0);
  bool causal = false;
  Value input;
  if (first)
    if (const json::Object *object = first->getAsObject())
      if (object->getString("node")) {
        bool poisonedInput = false;
        FailureOr<Result *> result = lookup(node, *first, poisonedInput);
        if (failed(result))
          return failure();
        if ((*result)->kind == Result::Kind::CausalMasked) {
          causal = true;
          input = (*result)->value;
        }
      }
  if (!input) {
    FailureOr<Value> value = getTensor(node, 0);
    if (failed(value))
      return failure();
    input = *value;
  }
  int64_t rank = shapeOf(input).size();
  FailureOr<int64_t> dim = getDim(node, 1, "dim", rank);
  if (failed(dim))
    return failure();
  if (*dim != rank - 1)
    return emitError(node.loc)
           << "softmax over a dimension other than the last";
  out.push_back(plain(builder->softmax(input, 1.0, causal, "softmax")));
  return success();
}

//===----------------------------------------------------------------------===//
// Registration
//===----------------------------------------------------------------------===//

void mlir::memopt::import::detail::registerElementwiseHandlers(
    HandlerTable &table) {
  using G = GraphImporter;
  static const OpEntry entries[] = {
      {{"aten._to_copy.default", "the operand itself (no dtype change)"},
       &G::importToCopy},
      {{"aten._softmax.default",
        "train.softmax (last dimension; causal after a causal masked_fill)"},
       &G::importSoftmax},
      {{"aten.add.Tensor",
        "train.add (operands broadcast with train.broadcast; alpha with "
        "train.scale)"},
       &G::importAdd},
      {{"aten.clamp.default", "train.relu {upper} (clamping to [0, upper])"},
       &G::importHardtanh},
      {{"aten.div.Tensor", "train.scale (division by a number)"},
       &G::importDiv},
      {{"aten.gelu.default", "train.gelu (exact or tanh)"}, &G::importGelu},
      {{"aten.hardsigmoid.default", "train.hardsigmoid"},
       &G::importActivation<&gen::ModelBuilder::hardsigmoid>},
      {{"aten.hardswish.default", "train.hardswish"},
       &G::importActivation<&gen::ModelBuilder::hardswish>},
      {{"aten.hardtanh.default",
        "train.relu {upper} (ReLU6: hardtanh to [0, upper])"},
       &G::importHardtanh},
      {{"aten.mul.Tensor", "train.mul, or train.scale by a number"},
       &G::importMul},
      {{"aten.neg.default", "train.scale by -1"}, &G::importNeg},
      {{"aten.native_dropout.default", "train.dropout"}, &G::importDropout},
      {{"aten.relu.default", "train.relu"}, &G::importRelu},
      {{"aten.sigmoid.default", "train.sigmoid"},
       &G::importActivation<&gen::ModelBuilder::sigmoid>},
      {{"aten.silu.default", "train.silu"},
       &G::importActivation<&gen::ModelBuilder::silu>},
      {{"aten.sub.Tensor", "train.sub"}, &G::importSub},
      {{"aten.tanh.default", "train.tanh"},
       &G::importActivation<&gen::ModelBuilder::tanh>},
  };
  table.append(std::begin(entries), std::end(entries));
}
