//===- TrainOps.cpp - train dialect operations ----------------------------===//
//
// Verifiers, folders and custom assembly of the train ops (their costs and
// workspaces: TrainCosts.cpp).
// Verifier messages name the expected and the actual shape or type.
//
//===----------------------------------------------------------------------===//

#include "memopt/Dialect/Train/IR/TrainOps.h"

#include "TrainOpUtils.h"
#include "memopt/Dialect/Train/IR/ComputeTypes.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/OpImplementation.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/SmallVector.h"
#include "llvm/Support/CheckedArithmetic.h"

#include <numeric>

using namespace mlir;
using namespace mlir::memopt::train;
using namespace mlir::memopt::train::detail;

//===----------------------------------------------------------------------===//
// Custom assembly: one type when operands and results agree
//===----------------------------------------------------------------------===//

/// `type` or `type -> type`.
static ParseResult parseUnaryTypes(OpAsmParser &parser, Type &input,
                                   Type &result) {
  if (parser.parseType(input))
    return failure();
  if (succeeded(parser.parseOptionalArrow()))
    return parser.parseType(result);
  result = input;
  return success();
}

static void printUnaryTypes(OpAsmPrinter &printer, Operation *, Type input,
                            Type result) {
  printer << input;
  if (result != input)
    printer << " -> " << result;
}

/// `type` or `type, type -> type`.
static ParseResult parseBinaryTypes(OpAsmParser &parser, Type &lhs, Type &rhs,
                                    Type &result) {
  if (parser.parseType(lhs))
    return failure();
  if (succeeded(parser.parseOptionalComma()))
    return failure(parser.parseType(rhs) || parser.parseArrow() ||
                   parser.parseType(result));
  rhs = result = lhs;
  return success();
}

static void printBinaryTypes(OpAsmPrinter &printer, Operation *, Type lhs,
                             Type rhs, Type result) {
  printer << lhs;
  if (rhs != lhs || result != lhs)
    printer << ", " << rhs << " -> " << result;
}

//===----------------------------------------------------------------------===//
// State
//===----------------------------------------------------------------------===//

LogicalResult ParamOp::verify() {
  if (getName().empty())
    return emitOpError("expected a non-empty parameter name");
  return success();
}
void ParamOp::getAsmResultNames(OpAsmSetValueNameFn setNameFn) {
  setNameFn(getResult(), getName());
}

LogicalResult OptStateOp::verify() {
  if (getName().empty())
    return emitOpError("expected a non-empty optimizer state name");
  return success();
}
void OptStateOp::getAsmResultNames(OpAsmSetValueNameFn setNameFn) {
  setNameFn(getResult(), getName());
}

/// Returns true if result `result` of its defining op is a view.
static bool isView(Value value) {
  auto result = dyn_cast<OpResult>(value);
  if (!result)
    return false;
  auto aliasing = dyn_cast<AliasingOpInterface>(result.getOwner());
  return aliasing && aliasing.getViewSource(result.getResultNumber());
}

LogicalResult FreeOp::verify() {
  Value tensor = getTensor();
  if (Operation *def = tensor.getDefiningOp();
      def && isa<ParamOp, OptStateOp>(def))
    return emitOpError() << "cannot free persistent state defined by '"
                         << def->getName() << "'";
  if (isView(tensor))
    return emitOpError() << "cannot free a view defined by '"
                         << tensor.getDefiningOp()->getName()
                         << "'; free the buffer it views";
  // The buffer dies here, so neither the value nor any view of it (however
  // many views deep) may be used afterwards. Lifetimes end in the block that
  // defines the buffer, so that "afterwards" is program order in that block.
  Block *block = (*this)->getBlock();
  if (tensor.getParentBlock() != block)
    return emitOpError(
        "expected to be in the block that defines the freed value");
  SmallVector<Value> aliases = {tensor};
  while (!aliases.empty()) {
    Value alias = aliases.pop_back_val();
    for (OpOperand &use : alias.getUses()) {
      Operation *user = block->findAncestorOpInBlock(*use.getOwner());
      if (!user || user == getOperation())
        continue;
      if (isa<FreeOp>(user) && alias == tensor)
        return emitOpError("value is freed more than once")
                   .attachNote(user->getLoc())
               << "also freed here";
      if (getOperation()->isBeforeInBlock(user)) {
        InFlightDiagnostic diag =
            emitOpError("value is used after it is freed");
        diag.attachNote(user->getLoc())
            << (alias == tensor ? "used here" : "used here through a view");
        return diag;
      }
      if (auto aliasing = dyn_cast<AliasingOpInterface>(use.getOwner()))
        for (OpResult result : use.getOwner()->getResults())
          if (aliasing.getViewSource(result.getResultNumber()) ==
              use.getOperandNumber())
            aliases.push_back(result);
    }
  }
  return success();
}

LogicalResult CastOp::verify() {
  return checkShape(*this, "result", shapeOf(getInput()), shapeOf(getResult()));
}
OpFoldResult CastOp::fold(FoldAdaptor) {
  if (getInput().getType() == getResult().getType())
    return getInput();
  return {};
}

//===----------------------------------------------------------------------===//
// Elementwise forward ops
//===----------------------------------------------------------------------===//

/// Operands of one shape; the result has that shape and the widest type.
static LogicalResult verifyPromotingBinary(Operation *op, Value lhs, Value rhs,
                                           Value result) {
  if (failed(checkShape(op, "rhs", shapeOf(lhs), shapeOf(rhs))) ||
      failed(checkShape(op, "result", shapeOf(lhs), shapeOf(result))))
    return failure();
  return checkElementType(
      op, "result", getWiderFloatType(elementTypeOf(lhs), elementTypeOf(rhs)),
      elementTypeOf(result));
}

LogicalResult AddOp::verify() {
  return verifyPromotingBinary(*this, getLhs(), getRhs(), getResult());
}

LogicalResult SubOp::verify() {
  return verifyPromotingBinary(*this, getLhs(), getRhs(), getResult());
}

LogicalResult MulOp::verify() {
  return verifyPromotingBinary(*this, getLhs(), getRhs(), getResult());
}

LogicalResult ScaleOp::verify() {
  return checkSameType(*this, "result", getInput(), getResult());
}

LogicalResult BiasAddOp::verify() {
  int64_t rank = tensorType(getInput()).getRank();
  if (failed(checkMinRank(*this, "input", getInput(), 1)) ||
      failed(checkRank(*this, "bias", getBias(), 1)))
    return failure();
  FailureOr<int64_t> dim =
      normalizeDim(*this, "dim", static_cast<int64_t>(getDim()), rank);
  if (failed(dim))
    return failure();
  if (failed(checkShape(*this, "bias", {shapeOf(getInput())[*dim]},
                        shapeOf(getBias()))) ||
      failed(checkShape(*this, "result", shapeOf(getInput()),
                        shapeOf(getResult()))))
    return failure();
  return checkElementType(
      *this, "result",
      getWiderFloatType(elementTypeOf(getInput()), elementTypeOf(getBias())),
      elementTypeOf(getResult()));
}

LogicalResult ReluOp::verify() {
  if (FloatAttr upper = getUpperAttr();
      upper && !(upper.getValueAsDouble() > 0.0))
    return emitOpError("upper bound ")
           << upper.getValueAsDouble() << " must be positive";
  return checkSameType(*this, "result", getInput(), getResult());
}

LogicalResult GeluOp::verify() {
  return checkSameType(*this, "result", getInput(), getResult());
}

LogicalResult SiluOp::verify() {
  return checkSameType(*this, "result", getInput(), getResult());
}

LogicalResult SigmoidOp::verify() {
  return checkSameType(*this, "result", getInput(), getResult());
}

LogicalResult TanhOp::verify() {
  return checkSameType(*this, "result", getInput(), getResult());
}

LogicalResult HardsigmoidOp::verify() {
  return checkSameType(*this, "result", getInput(), getResult());
}

LogicalResult HardswishOp::verify() {
  return checkSameType(*this, "result", getInput(), getResult());
}

LogicalResult SwigluOp::verify() {
  if (failed(checkSameType(*this, "up", getGate(), getUp())))
    return failure();
  return checkSameType(*this, "result", getGate(), getResult());
}

/// Shared by softmax and softmax_grad: a valid axis and a positive scale.
LogicalResult mlir::memopt::train::detail::verifySoftmaxAttrs(
    Operation *op, Value input, int64_t axis, double scale, bool causal) {
  int64_t rank = tensorType(input).getRank();
  if (failed(checkMinRank(op, "input", input, 1)))
    return failure();
  FailureOr<int64_t> dim = normalizeDim(op, "axis", axis, rank);
  if (failed(dim) || failed(checkPositive(op, "scale", scale)))
    return failure();
  if (!causal)
    return success();
  if (rank < 2)
    return op->emitOpError()
           << "causal softmax expects rank >= 2, got rank " << rank << " ("
           << formatShape(shapeOf(input)) << ")";
  if (*dim != rank - 1)
    return op->emitOpError() << "causal softmax expects the last axis ("
                             << rank - 1 << "), got axis " << *dim;
  return success();
}

LogicalResult SoftmaxOp::verify() {
  if (failed(checkSameType(*this, "result", getInput(), getResult())))
    return failure();
  return verifySoftmaxAttrs(*this, getInput(), static_cast<int64_t>(getAxis()),
                            getScale().convertToDouble(), getCausal());
}

//===----------------------------------------------------------------------===//
// Normalization, regularization
//===----------------------------------------------------------------------===//

/// Statistics are fp32 tensors of the given shape.
static LogicalResult checkStatistics(Operation *op, StringRef what, Value stat,
                                     ArrayRef<int64_t> shape) {
  if (failed(checkShape(op, what, shape, shapeOf(stat))))
    return failure();
  return checkElementType(op, what, Float32Type::get(op->getContext()),
                          elementTypeOf(stat));
}

/// Normalization over the last dimension: affine parameters of shape [h] and
/// statistics of the input shape without its last dimension.
LogicalResult mlir::memopt::train::detail::verifyLastDimNorm(
    Operation *op, Value input, ArrayRef<std::pair<StringRef, Value>> affine,
    ArrayRef<std::pair<StringRef, Value>> stats,
    std::optional<double> epsilon) {
  if (failed(checkMinRank(op, "input", input, 1)) ||
      (epsilon && failed(checkPositive(op, "epsilon", *epsilon))))
    return failure();
  int64_t h = shapeOf(input).back();
  for (auto [name, value] : affine)
    if (failed(checkShape(op, name, {h}, shapeOf(value))))
      return failure();
  for (auto [name, value] : stats)
    if (failed(checkStatistics(op, name, value, dropLast(shapeOf(input)))))
      return failure();
  return success();
}

/// Batch normalization: NCHW input, per-channel parameters and statistics.
LogicalResult mlir::memopt::train::detail::verifyChannelNorm(
    Operation *op, Value input, ArrayRef<std::pair<StringRef, Value>> affine,
    ArrayRef<std::pair<StringRef, Value>> stats,
    std::optional<double> epsilon) {
  if (failed(checkRank(op, "input", input, 4)) ||
      (epsilon && failed(checkPositive(op, "epsilon", *epsilon))))
    return failure();
  int64_t c = shapeOf(input)[1];
  for (auto [name, value] : affine)
    if (failed(checkShape(op, name, {c}, shapeOf(value))))
      return failure();
  for (auto [name, value] : stats)
    if (failed(checkStatistics(op, name, value, {c})))
      return failure();
  return success();
}

LogicalResult LayerNormOp::verify() {
  if (failed(checkSameType(*this, "result", getInput(), getResult())))
    return failure();
  return verifyLastDimNorm(*this, getInput(),
                           {{"gamma", getGamma()}, {"beta", getBeta()}},
                           {{"mean", getMean()}, {"rstd", getRstd()}},
                           getEpsilon().convertToDouble());
}

LogicalResult RmsNormOp::verify() {
  if (failed(checkSameType(*this, "result", getInput(), getResult())))
    return failure();
  return verifyLastDimNorm(*this, getInput(), {{"gamma", getGamma()}},
                           {{"rstd", getRstd()}},
                           getEpsilon().convertToDouble());
}

LogicalResult BatchNormOp::verify() {
  if (failed(checkSameType(*this, "result", getInput(), getResult())))
    return failure();
  return verifyChannelNorm(*this, getInput(),
                           {{"gamma", getGamma()}, {"beta", getBeta()}},
                           {{"mean", getMean()}, {"rstd", getRstd()}},
                           getEpsilon().convertToDouble());
}

LogicalResult DropoutOp::verify() {
  if (failed(checkSameType(*this, "result", getInput(), getResult())) ||
      failed(
          checkShape(*this, "mask", shapeOf(getInput()), shapeOf(getMask()))))
    return failure();
  if (static_cast<int64_t>(getId()) < 0)
    return emitOpError() << "expected id >= 0, got "
                         << static_cast<int64_t>(getId());
  // The partitioned form: one offset per dimension, in a whole shape that
  // holds the part.
  ArrayRef<int64_t> shape = shapeOf(getInput());
  std::optional<ArrayRef<int64_t>> whole = getWholeShape();
  if (!getOffsets().empty() && !whole)
    return emitOpError("expected the whole shape of a partitioned dropout "
                       "with its offsets");
  if (whole) {
    if (whole->size() != shape.size() || getOffsets().size() != shape.size())
      return emitOpError() << "expected " << shape.size()
                           << " offsets and whole extents (one per dimension "
                              "of the input), got "
                           << getOffsets().size() << " and " << whole->size();
    for (auto [dim, extent] : llvm::enumerate(*whole))
      if (extent < shape[dim] || extent <= 0)
        return emitOpError()
               << "whole extent " << extent << " of dimension " << dim
               << " is smaller than the part's " << shape[dim];
  }
  return checkProbability(*this, "rate", getRate().convertToDouble());
}

//===----------------------------------------------------------------------===//
// Linear algebra, embeddings, attention
//===----------------------------------------------------------------------===//

LogicalResult mlir::memopt::train::detail::verifyMatmulShapes(
    Operation *op, Value lhsValue, Value rhsValue, Value resultValue,
    bool transposeLhs, bool transposeRhs) {
  if (failed(checkMinRank(op, "lhs", lhsValue, 2)) ||
      failed(checkMinRank(op, "rhs", rhsValue, 2)))
    return failure();
  ArrayRef<int64_t> lhs = shapeOf(lhsValue), rhs = shapeOf(rhsValue);
  int64_t lhsRank = lhs.size(), rhsRank = rhs.size();
  if (rhsRank != 2 && rhsRank != lhsRank)
    return op->emitOpError()
           << "expected rhs of rank 2 or of the lhs rank " << lhsRank
           << ", got rank " << rhsRank << " (" << formatShape(rhs) << ")";
  ArrayRef<int64_t> batch = lhs.drop_back(2);
  if (rhsRank == lhsRank &&
      failed(checkShape(op, "rhs batch dimensions", batch, rhs.drop_back(2))))
    return failure();
  int64_t m = transposeLhs ? lhs[lhsRank - 1] : lhs[lhsRank - 2];
  int64_t kl = transposeLhs ? lhs[lhsRank - 2] : lhs[lhsRank - 1];
  int64_t kr = transposeRhs ? rhs[rhsRank - 1] : rhs[rhsRank - 2];
  int64_t n = transposeRhs ? rhs[rhsRank - 2] : rhs[rhsRank - 1];
  if (kl != kr)
    return op->emitOpError()
           << "contraction dimension mismatch: lhs " << formatShape(lhs)
           << " contracts " << kl << ", rhs " << formatShape(rhs)
           << " contracts " << kr;
  SmallVector<int64_t> expected(batch);
  expected.append({m, n});
  return checkShape(op, "result", expected, shapeOf(resultValue));
}

LogicalResult MatmulOp::verify() {
  if (failed(verifyMatmulShapes(*this, getLhs(), getRhs(), getResult(),
                                getTransposeLhs(), getTransposeRhs())))
    return failure();
  Type operandType = elementTypeOf(getLhs());
  if (operandType.getIntOrFloatBitWidth() <= 8)
    return emitOpError()
           << "cannot read " << operandType
           << " operands: fp8 values are scaled, so multiply them with "
              "train.scaled_matmul and their scales (or widen them with "
              "train.cast first)";
  if (failed(
          checkElementType(*this, "rhs", operandType, elementTypeOf(getRhs()))))
    return failure();
  Type resultType = elementTypeOf(getResult());
  if (resultType != operandType &&
      resultType.getIntOrFloatBitWidth() <= operandType.getIntOrFloatBitWidth())
    return emitOpError() << "expected result element type " << operandType
                         << " or a wider float (accumulation), got "
                         << resultType;
  return success();
}

LogicalResult EmbeddingOp::verify() {
  if (failed(checkRank(*this, "table", getTable(), 2)))
    return failure();
  SmallVector<int64_t> expected(shapeOf(getIds()));
  expected.push_back(shapeOf(getTable())[1]);
  if (failed(checkShape(*this, "result", expected, shapeOf(getResult()))) ||
      failed(checkVocabParts(*this, getPart(), getParts(),
                             shapeOf(getTable())[0])))
    return failure();
  return checkElementType(*this, "result", elementTypeOf(getTable()),
                          elementTypeOf(getResult()));
}

/// Shapes of attention: q is B x Hq x Sq x D, k and v are B x Hkv x Sk x D
/// with Hq a multiple of Hkv; lse is an fp32 B x Hq x Sq; block_rows >= 1.
LogicalResult mlir::memopt::train::detail::verifyAttentionShapes(
    Operation *op, Value q, Value k, Value v, Value lse, double scale,
    int64_t blockRows) {
  if (blockRows < 1)
    return op->emitOpError() << "expected block_rows >= 1, got " << blockRows;
  if (failed(checkRank(op, "query", q, 4)) ||
      failed(checkRank(op, "key", k, 4)) ||
      failed(checkSameType(op, "value", k, v)) ||
      failed(checkPositive(op, "scale", scale)))
    return failure();
  ArrayRef<int64_t> qs = shapeOf(q), ks = shapeOf(k);
  if (qs[0] != ks[0] || qs[3] != ks[3])
    return op->emitOpError() << "expected key of shape " << qs[0] << "x?x?x"
                             << qs[3] << " (batch and head size of the query "
                             << formatShape(qs) << "), got " << formatShape(ks);
  if (ks[1] == 0)
    return op->emitOpError()
           << "expected at least one key/value head, got " << formatShape(ks);
  if (qs[1] % ks[1] != 0)
    return op->emitOpError()
           << "expected the query heads (" << qs[1]
           << ") to be a multiple of the key/value heads (" << ks[1] << ")";
  if (failed(checkElementType(op, "key", elementTypeOf(q), elementTypeOf(k))))
    return failure();
  return checkStatistics(op, "lse", lse, qs.drop_back());
}

int64_t mlir::memopt::train::detail::getAttentionTileRows(int64_t queryLen,
                                                          int64_t blockRows) {
  for (int64_t rows = std::min(queryLen, blockRows); rows > 1; --rows)
    if (queryLen % rows == 0)
      return rows;
  return 1;
}

int64_t AttentionOp::getTileRows() {
  return getAttentionTileRows(shapeOf(getQuery())[2], getBlockRows());
}

LogicalResult AttentionOp::verify() {
  if (failed(verifyAttentionShapes(*this, getQuery(), getKey(), getValue(),
                                   getLse(), getScale().convertToDouble(),
                                   getBlockRows())))
    return failure();
  return checkSameType(*this, "result", getQuery(), getResult());
}

LogicalResult RotaryOp::verify() {
  if (failed(checkSameType(*this, "result", getInput(), getResult())) ||
      failed(checkMinRank(*this, "input", getInput(), 2)) ||
      failed(checkPositive(*this, "theta", getTheta().convertToDouble())))
    return failure();
  if (shapeOf(getInput()).back() % 2 != 0)
    return emitOpError() << "expected an even last dimension, got "
                         << formatShape(shapeOf(getInput()));
  return success();
}

//===----------------------------------------------------------------------===//
// Losses and reductions
//===----------------------------------------------------------------------===//

LogicalResult CrossEntropyOp::verify() {
  if (failed(checkMinRank(*this, "logits", getLogits(), 1)))
    return failure();
  return checkShape(*this, "labels", dropLast(shapeOf(getLogits())),
                    shapeOf(getLabels()));
}

LogicalResult RowMaxOp::verify() {
  if (failed(checkMinRank(*this, "logits", getLogits(), 1)) ||
      failed(checkShape(*this, "result", dropLast(shapeOf(getLogits())),
                        shapeOf(getResult()))))
    return failure();
  if (!elementTypeOf(getResult()).isF32() &&
      !elementTypeOf(getResult()).isF64())
    return emitOpError() << "expected an f32 or f64 result, got "
                         << elementTypeOf(getResult());
  return success();
}

/// The `2 x P...` statistics of `P... x V` logits.
static SmallVector<int64_t> getStatsShape(Value logits) {
  SmallVector<int64_t> shape = {2};
  llvm::append_range(shape, shapeOf(logits).drop_back());
  return shape;
}

LogicalResult mlir::memopt::train::detail::verifyVocabParallelStats(
    Operation *op, Value logits, Value max, Value labels, Value stats,
    Value part, int64_t parts) {
  if (failed(checkMinRank(op, "logits", logits, 1)) ||
      failed(checkShape(op, "max", dropLast(shapeOf(logits)), shapeOf(max))) ||
      failed(checkShape(op, "labels", dropLast(shapeOf(logits)),
                        shapeOf(labels))) ||
      failed(checkShape(op, "statistics", getStatsShape(logits),
                        shapeOf(stats))) ||
      failed(checkElementType(op, "statistics", elementTypeOf(max),
                              elementTypeOf(stats))) ||
      failed(checkVocabParts(op, part, parts, shapeOf(logits).back())))
    return failure();
  if (!elementTypeOf(max).isF32() && !elementTypeOf(max).isF64())
    return op->emitOpError()
           << "expected an f32 or f64 max, got " << elementTypeOf(max);
  return success();
}

LogicalResult VocabParallelStatsOp::verify() {
  return verifyVocabParallelStats(*this, getLogits(), getMax(), getLabels(),
                                  getResult(), getPart(), getParts());
}

LogicalResult
mlir::memopt::train::detail::verifyCrossEntropyStats(Operation *op, Value stats,
                                                     Value labels) {
  if (failed(checkMinRank(op, "statistics", stats, 1)))
    return failure();
  if (shapeOf(stats)[0] != 2)
    return op->emitOpError()
           << "expected statistics of shape 2x" << formatShape(shapeOf(labels))
           << ", got " << formatShape(shapeOf(stats));
  return checkShape(op, "labels", shapeOf(stats).drop_front(), shapeOf(labels));
}

LogicalResult CrossEntropyFromStatsOp::verify() {
  return verifyCrossEntropyStats(*this, getStats(), getLabels());
}

LogicalResult MseLossOp::verify() {
  return checkSameType(*this, "target", getInput(), getTarget());
}

/// `reduced` is `full` without the strictly increasing dimensions `dims`
/// (reduce_sum's result, broadcast's input).
static LogicalResult verifyReducedShape(Operation *op, Value full,
                                        Value reduced, StringRef reducedName,
                                        ArrayRef<int64_t> dims) {
  ArrayRef<int64_t> shape = shapeOf(full);
  int64_t rank = shape.size();
  int64_t previous = -1;
  for (int64_t dim : dims) {
    if (dim <= previous || dim >= rank)
      return op->emitOpError() << "expected strictly increasing dims in [0, "
                               << rank << "), got [" << dims << "]";
    previous = dim;
  }
  SmallVector<int64_t> expected;
  for (auto [i, size] : llvm::enumerate(shape))
    if (!llvm::is_contained(dims, static_cast<int64_t>(i)))
      expected.push_back(size);
  if (failed(checkShape(op, reducedName, expected, shapeOf(reduced))))
    return failure();
  return checkElementType(op, reducedName, elementTypeOf(full),
                          elementTypeOf(reduced));
}

LogicalResult ReduceSumOp::verify() {
  return verifyReducedShape(*this, getInput(), getResult(), "result",
                            getDims());
}

LogicalResult BroadcastOp::verify() {
  return verifyReducedShape(*this, getResult(), getInput(), "input", getDims());
}

//===----------------------------------------------------------------------===//
// Shape ops
//===----------------------------------------------------------------------===//

LogicalResult ReshapeOp::verify() {
  if (numElements(getInput()) != numElements(getResult()))
    return emitOpError() << "expected result with " << numElements(getInput())
                         << " elements (input "
                         << formatShape(shapeOf(getInput())) << "), got "
                         << numElements(getResult()) << " ("
                         << formatShape(shapeOf(getResult())) << ")";
  return checkElementType(*this, "result", elementTypeOf(getInput()),
                          elementTypeOf(getResult()));
}
/// Row-major strides of `shape`.
static SmallVector<int64_t> rowMajorStrides(ArrayRef<int64_t> shape) {
  SmallVector<int64_t> strides(shape.size(), 1);
  int64_t stride = 1;
  for (int64_t d = static_cast<int64_t>(shape.size()) - 1; d >= 0; --d) {
    strides[d] = stride;
    stride *= std::max<int64_t>(shape[d], 1);
  }
  return strides;
}

SmallVector<int64_t> mlir::memopt::train::getBufferStrides(Value value) {
  // Walk up the chain of view ops to the value that owns the buffer, then
  // replay the chain downwards. Iterative so that long chains cost linear
  // time; defensive about malformed attributes because verifiers of other
  // ops may call this before the chain itself is verified.
  SmallVector<Value> chain;
  Value base = value;
  while (Operation *def = base.getDefiningOp()) {
    if (!isa<TransposeOp, SliceOp, ReshapeOp>(def))
      break;
    chain.push_back(base);
    base = def->getOperand(0);
  }
  SmallVector<int64_t> strides = rowMajorStrides(shapeOf(base));
  for (Value view : llvm::reverse(chain)) {
    Operation *def = view.getDefiningOp();
    ArrayRef<int64_t> viewShape = shapeOf(view);
    if (auto transpose = dyn_cast<TransposeOp>(def)) {
      ArrayRef<int64_t> perm = transpose.getPermutation();
      SmallVector<int64_t> permuted;
      for (int64_t p : perm)
        if (p >= 0 && p < static_cast<int64_t>(strides.size()))
          permuted.push_back(strides[p]);
      strides = permuted.size() == viewShape.size()
                    ? permuted
                    : rowMajorStrides(viewShape);
      continue;
    }
    if (auto slice = dyn_cast<SliceOp>(def)) {
      std::optional<ArrayRef<int64_t>> steps = slice.getStrides();
      if (steps && steps->size() == strides.size())
        for (auto [stride, step] : llvm::zip_equal(strides, *steps))
          stride *= step;
      if (strides.size() != viewShape.size())
        strides = rowMajorStrides(viewShape);
      continue;
    }
    auto reshape = cast<ReshapeOp>(def);
    std::optional<SmallVector<int64_t>> viewStrides =
        computeReshapeStrides(shapeOf(reshape.getInput()), strides, viewShape);
    // A reshape that cannot be a view copies into a new row-major buffer.
    strides = viewStrides ? *viewStrides : rowMajorStrides(viewShape);
  }
  return strides;
}

std::optional<unsigned> ReshapeOp::getViewSource(unsigned resultIndex) {
  if (computeReshapeStrides(shapeOf(getInput()), getBufferStrides(getInput()),
                            shapeOf(getResult())))
    return 0u;
  return std::nullopt;
}

OpFoldResult ReshapeOp::fold(FoldAdaptor) {
  if (getInput().getType() == getResult().getType())
    return getInput();
  return {};
}

LogicalResult TransposeOp::verify() {
  ArrayRef<int64_t> perm = getPermutation();
  ArrayRef<int64_t> shape = shapeOf(getInput());
  SmallVector<bool> seen(shape.size(), false);
  if (perm.size() != shape.size())
    return emitOpError() << "expected a permutation of " << shape.size()
                         << " dimensions, got " << perm.size();
  for (int64_t p : perm) {
    if (p < 0 || p >= static_cast<int64_t>(shape.size()) || seen[p])
      return emitOpError() << "expected a permutation of [0, " << shape.size()
                           << "), got [" << perm << "]";
    seen[p] = true;
  }
  SmallVector<int64_t> expected;
  for (int64_t p : perm)
    expected.push_back(shape[p]);
  if (failed(checkShape(*this, "result", expected, shapeOf(getResult()))))
    return failure();
  return checkElementType(*this, "result", elementTypeOf(getInput()),
                          elementTypeOf(getResult()));
}

/// A window of `full` at `offsets` with `strides`, of the shape of `window`;
/// `windowName` names the window operand or result in diagnostics.
LogicalResult mlir::memopt::train::detail::verifyWindow(
    Operation *op, Value full, Value window, StringRef windowName,
    ArrayRef<int64_t> offsets, std::optional<ArrayRef<int64_t>> strides) {
  ArrayRef<int64_t> fullShape = shapeOf(full), windowShape = shapeOf(window);
  size_t rank = fullShape.size();
  if (windowShape.size() != rank)
    return op->emitOpError() << "expected a window of rank " << rank << ", got "
                             << formatShape(windowShape);
  if (failed(checkIntList(op, "offsets", offsets, rank, 0)))
    return failure();
  SmallVector<int64_t> unit(rank, 1);
  ArrayRef<int64_t> steps = strides ? *strides : ArrayRef<int64_t>(unit);
  if (failed(checkIntList(op, "strides", steps, rank, 1)))
    return failure();
  for (size_t i = 0; i < rank; ++i) {
    if (windowShape[i] == 0)
      continue;
    std::optional<int64_t> span =
        llvm::checkedMul(windowShape[i] - 1, steps[i]);
    std::optional<int64_t> last =
        span ? llvm::checkedAdd(offsets[i], *span) : std::nullopt;
    if (!last || *last >= fullShape[i])
      return op->emitOpError()
             << "window " << formatShape(windowShape) << " at offsets ["
             << offsets << "] with strides [" << steps
             << "] exceeds the tensor " << formatShape(fullShape)
             << " in dimension " << i;
  }
  return checkElementType(op, windowName, elementTypeOf(full),
                          elementTypeOf(window));
}

LogicalResult SliceOp::verify() {
  return verifyWindow(*this, getInput(), getResult(), "result", getOffsets(),
                      getStrides());
}

LogicalResult ConcatOp::verify() {
  if (getInputs().empty())
    return emitOpError("expected at least one input");
  Value first = getInputs().front();
  int64_t rank = tensorType(first).getRank();
  FailureOr<int64_t> axis =
      normalizeDim(*this, "axis", static_cast<int64_t>(getAxis()), rank);
  if (failed(axis))
    return failure();
  SmallVector<int64_t> expected(shapeOf(first));
  expected[*axis] = 0;
  for (auto [i, input] : llvm::enumerate(getInputs())) {
    SmallVector<int64_t> shape(shapeOf(input));
    if (static_cast<int64_t>(shape.size()) != rank)
      return emitOpError() << "expected input " << i << " of rank " << rank
                           << ", got " << formatShape(shape);
    // Every dimension but the axis must match the first input's.
    SmallVector<int64_t> expectedInput(expected);
    expectedInput[*axis] = shape[*axis];
    if (failed(checkShape(*this,
                          ("input " + Twine(i) + " (any size along axis " +
                           Twine(*axis) + ")")
                              .str(),
                          expectedInput, shape)) ||
        failed(checkElementType(*this, ("input " + Twine(i)).str(),
                                elementTypeOf(first), elementTypeOf(input))))
      return failure();
    expected[*axis] += shape[*axis];
  }
  if (failed(checkShape(*this, "result", expected, shapeOf(getResult()))))
    return failure();
  return checkElementType(*this, "result", elementTypeOf(first),
                          elementTypeOf(getResult()));
}

#define GET_OP_CLASSES
#include "memopt/Dialect/Train/IR/TrainOps.cpp.inc"
