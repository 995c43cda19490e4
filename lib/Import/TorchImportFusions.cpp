//===- TorchImportFusions.cpp - ATen patterns to one op -------------------===//
//
// The ATen patterns that become one train op. The first op of each leaves
// a pending result (Result::Kind) that only the op completing the pattern
// may read:
//   - aten.t: the transpose flag of the matmul reading it
//     (TorchImportLinalg.cpp);
//   - aten._log_softmax: train.cross_entropy with aten.nll_loss_forward
//     (TorchImportLosses.cpp);
//   - aten.masked_fill with a causal mask and -inf: train.softmax {causal}
//     with aten._softmax (TorchImportElementwise.cpp);
//   - x * rsqrt(x.pow(2).mean(-1, keepdim=True) + eps) * weight:
//     train.rms_norm, through aten.pow, aten.mean, aten.add, aten.rsqrt and
//     two aten.mul (the RMSNorm steps of aten.mean, aten.add and aten.mul
//     are the fuseRmsNorm* functions here).
//
//===----------------------------------------------------------------------===//

#include "TorchImportInternal.h"

#include "memopt/Dialect/Train/IR/TrainOps.h"

#include <cmath>

using namespace mlir;
using namespace mlir::memopt;
using namespace mlir::memopt::import;
using namespace mlir::memopt::import::detail;

//===----------------------------------------------------------------------===//
// Transposed matmul operands
//===----------------------------------------------------------------------===//

LogicalResult GraphImporter::importT(Node &node, SmallVectorImpl<Result> &out) {
  FailureOr<Value> input = getTensor(node, 0);
  if (failed(input))
    return failure();
  if (shapeOf(*input).size() != 2) {
    // t of a vector is the vector.
    out.push_back(plain(*input));
    return success();
  }
  Result result;
  result.kind = Result::Kind::Transposed;
  result.value = *input;
  out.push_back(result);
  return success();
}

//===----------------------------------------------------------------------===//
// Cross-entropy
//===----------------------------------------------------------------------===//

LogicalResult GraphImporter::importLogSoftmax(Node &node,
                                              SmallVectorImpl<Result> &out) {
  FailureOr<Value> input = getTensor(node, 0);
  if (failed(input))
    return failure();
  int64_t rank = shapeOf(*input).size();
  FailureOr<int64_t> dim = getDim(node, 1, "dim", rank);
  if (failed(dim))
    return failure();
  if (*dim != rank - 1)
    return emitError(node.loc)
           << "log_softmax over a dimension other than the last";
  Result result;
  result.kind = Result::Kind::LogSoftmax;
  result.value = *input;
  out.push_back(result);
  return success();
}

//===----------------------------------------------------------------------===//
// Causal softmax
//===----------------------------------------------------------------------===//

/// Whether the constant `object` of shape `... x M x N` (leading dimensions
/// all 1) is true exactly above the diagonal (`j > i`), that is, PyTorch's
/// causal mask `tril(ones) == 0`.
static bool isCausalMask(const json::Object &object) {
  const json::Array *shape = object.getArray("shape");
  const json::Array *data = object.getArray("data");
  if (!shape || !data || shape->size() < 2)
    return false;
  SmallVector<int64_t> dims;
  for (const json::Value &dim : *shape)
    dims.push_back(getJsonInteger(dim).value_or(-1));
  int64_t rows = dims[dims.size() - 2], cols = dims.back();
  for (int64_t d : ArrayRef<int64_t>(dims).drop_back(2))
    if (d != 1)
      return false;
  // The shape is the document's, unchecked: its product may overflow.
  std::optional<int64_t> count = llvm::checkedMul(rows, cols);
  if (rows != cols || rows <= 0 || !count ||
      static_cast<int64_t>(data->size()) != *count)
    return false;
  for (int64_t i = 0; i < rows; ++i)
    for (int64_t j = 0; j < cols; ++j) {
      std::optional<int64_t> bit = getJsonInteger((*data)[i * cols + j]);
      if (!bit || (*bit != 0) != (j > i))
        return false;
    }
  return true;
}

LogicalResult GraphImporter::importMaskedFill(Node &node,
                                              SmallVectorImpl<Result> &out) {
  FailureOr<Value> input = getTensor(node, 0);
  FailureOr<double> value = getDouble(node, 2, "value");
  if (failed(input) || failed(value))
    return failure();
  const json::Value *maskArg = node.get(1, "mask");
  const json::Object *maskRef = maskArg ? maskArg->getAsObject() : nullptr;
  std::optional<StringRef> maskName =
      maskRef ? maskRef->getString("constant") : std::nullopt;
  const json::Object *mask = maskName ? getConstant(*maskName) : nullptr;
  if (!mask || !isCausalMask(*mask) || !std::isinf(*value) || *value > 0)
    return emitError(node.loc)
           << "masked_fill is supported only with -inf and a constant causal "
              "mask (true above the diagonal), before a softmax";
  ArrayRef<int64_t> shape = shapeOf(*input);
  const json::Array *maskShape = mask->getArray("shape");
  if (shape.size() < 2 ||
      getJsonInteger((*maskShape)[maskShape->size() - 1]) != shape.back() ||
      getJsonInteger((*maskShape)[maskShape->size() - 2]) !=
          shape[shape.size() - 2])
    return emitError(node.loc) << "masked_fill: the mask's last two "
                                  "dimensions differ from the input's";
  Result result;
  result.kind = Result::Kind::CausalMasked;
  result.value = *input;
  out.push_back(result);
  return success();
}

//===----------------------------------------------------------------------===//
// RMSNorm
//===----------------------------------------------------------------------===//

LogicalResult GraphImporter::importPow(Node &node,
                                       SmallVectorImpl<Result> &out) {
  FailureOr<Value> input = getTensor(node, 0);
  FailureOr<double> exponent = getDouble(node, 1, "exponent");
  if (failed(input) || failed(exponent))
    return failure();
  if (*exponent != 2.0 || shapeOf(*input).empty())
    return emitError(node.loc) << "pow with exponent " << *exponent
                               << " is not supported (only x.pow(2) of an "
                                  "RMSNorm)";
  Result result;
  result.kind = Result::Kind::Square;
  result.value = *input;
  out.push_back(result);
  return success();
}

std::optional<LogicalResult>
GraphImporter::fuseRmsNormEpsilon(Node &node, SmallVectorImpl<Result> &out) {
  if (Result *lhs = peek(node, 0))
    if (lhs->kind == Result::Kind::MeanSquare && isScalar(node, 1)) {
      FailureOr<double> epsilon = getDouble(node, 1, "other");
      FailureOr<double> alpha = getDouble(node, 2, "alpha", 1.0);
      if (failed(epsilon) || failed(alpha))
        return failure();
      Result result = *lhs;
      result.kind = Result::Kind::MeanSquareEps;
      result.epsilon = *epsilon * *alpha;
      out.push_back(result);
      return success();
    }
  return std::nullopt;
}

std::optional<LogicalResult>
GraphImporter::fuseRmsNormMean(Node &node, SmallVectorImpl<Result> &out) {
  if (Result *square = peek(node, 0))
    if (square->kind == Result::Kind::Square) {
      int64_t rank = shapeOf(square->value).size();
      FailureOr<SmallVector<int64_t>> dims = getIntList(node, 1, "dim");
      FailureOr<bool> keepdim = getBool(node, 2, "keepdim", false);
      if (failed(dims) || failed(keepdim))
        return failure();
      if (dims->size() != 1 || ((*dims)[0] != -1 && (*dims)[0] != rank - 1) ||
          !*keepdim)
        return emitError(node.loc)
               << "the mean of x.pow(2) is supported only over the last "
                  "dimension with keepdim=True (an RMSNorm)";
      Result result = *square;
      result.kind = Result::Kind::MeanSquare;
      out.push_back(result);
      return success();
    }
  return std::nullopt;
}

LogicalResult GraphImporter::importRsqrt(Node &node,
                                         SmallVectorImpl<Result> &out) {
  Result *input = peek(node, 0);
  if (!input || input->kind != Result::Kind::MeanSquareEps)
    return emitError(node.loc) << "rsqrt is supported only in an RMSNorm, "
                                  "x * rsqrt(x.pow(2).mean(-1, keepdim=True) "
                                  "+ eps)";
  Result result = *input;
  result.kind = Result::Kind::RmsInverse;
  out.push_back(result);
  return success();
}

std::optional<LogicalResult>
GraphImporter::fuseRmsNormMul(Node &node, SmallVectorImpl<Result> &out) {
  // x * rsqrt(mean(x^2) + eps), then that times the weight: train.rms_norm.
  for (unsigned side = 0; side < 2; ++side) {
    Result *pending = peek(node, side);
    if (!pending || pending->kind == Result::Kind::Value ||
        pending->kind == Result::Kind::Transposed)
      continue;
    if (pending->kind == Result::Kind::RmsInverse) {
      FailureOr<Value> other = getTensor(node, 1 - side);
      if (failed(other))
        return failure();
      if (*other != pending->value)
        return emitError(node.loc) << "rsqrt(x.pow(2).mean(-1) + eps) must "
                                      "multiply x itself (an RMSNorm)";
      Result result = *pending;
      result.kind = Result::Kind::RmsNormalized;
      out.push_back(result);
      return success();
    }
    if (pending->kind == Result::Kind::RmsNormalized) {
      FailureOr<Value> weight = getTensor(node, 1 - side);
      if (failed(weight))
        return failure();
      Value x = pending->value;
      if (shapeOf(*weight).size() != 1 ||
          shapeOf(*weight)[0] != shapeOf(x).back())
        return emitError(node.loc)
               << "an RMSNorm's weight must be a vector over the last "
                  "dimension";
      auto stat = RankedTensorType::get(shapeOf(x).drop_back(),
                                        getBuilder().getF32Type());
      out.push_back(
          plain(train::RmsNormOp::create(
                    getBuilder(), builder->loc("rms_norm"), x.getType(), stat,
                    x, *weight, getBuilder().getF64FloatAttr(pending->epsilon))
                    .getResult()));
      return success();
    }
  }
  return std::nullopt;
}

//===----------------------------------------------------------------------===//
// Registration
//===----------------------------------------------------------------------===//

void mlir::memopt::import::detail::registerFusionHandlers(HandlerTable &table) {
  using G = GraphImporter;
  static const OpEntry entries[] = {
      {{"aten._log_softmax.default",
        "with aten.nll_loss_forward: train.cross_entropy"},
       &G::importLogSoftmax},
      {{"aten.masked_fill.Scalar",
        "with a constant causal mask and -inf, before aten._softmax: "
        "train.softmax {causal}"},
       &G::importMaskedFill},
      {{"aten.pow.Tensor_Scalar",
        "x.pow(2) of x * rsqrt(x.pow(2).mean(-1, keepdim=True) + eps) * "
        "weight: train.rms_norm"},
       &G::importPow},
      {{"aten.rsqrt.default", "in an RMSNorm (see aten.pow.Tensor_Scalar)"},
       &G::importRsqrt},
      {{"aten.t.default",
        "a transpose flag of the matmul reading it, else train.transpose"},
       &G::importT},
  };
  table.append(std::begin(entries), std::end(entries));
}
