//===- TrainOps.cpp - train dialect operations ----------------------------===//
//
// Verifiers, FLOP counts, folders and custom assembly of the train ops.
// Verifier messages name the expected and the actual shape or type.
//
//===----------------------------------------------------------------------===//

#include "memopt/Dialect/Train/IR/TrainOps.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/OpImplementation.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/SmallVector.h"
#include "llvm/Support/CheckedArithmetic.h"

#include <numeric>

using namespace mlir;
using namespace mlir::memopt::train;

//===----------------------------------------------------------------------===//
// Helpers
//===----------------------------------------------------------------------===//

static RankedTensorType tensorType(Value v) {
  return cast<RankedTensorType>(v.getType());
}

static ArrayRef<int64_t> shapeOf(Value v) { return tensorType(v).getShape(); }

static Type elementTypeOf(Value v) { return tensorType(v).getElementType(); }

static int64_t numElements(Value v) { return tensorType(v).getNumElements(); }

/// Formats a shape as in MLIR types ("8x16"); a 0-d shape prints as "scalar".
static std::string formatShape(ArrayRef<int64_t> shape) {
  if (shape.empty())
    return "scalar";
  std::string s;
  llvm::raw_string_ostream os(s);
  llvm::interleave(shape, os, "x");
  return s;
}

/// Emits "expected <what> of shape E, got A" unless the shapes agree.
static LogicalResult checkShape(Operation *op, StringRef what,
                                ArrayRef<int64_t> expected,
                                ArrayRef<int64_t> actual) {
  if (expected == actual)
    return success();
  return op->emitOpError() << "expected " << what << " of shape "
                           << formatShape(expected) << ", got "
                           << formatShape(actual);
}

/// Emits "expected <what> element type E, got A" unless the types agree.
static LogicalResult checkElementType(Operation *op, StringRef what,
                                      Type expected, Type actual) {
  if (expected == actual)
    return success();
  return op->emitOpError() << "expected " << what << " element type "
                           << expected << ", got " << actual;
}

/// Checks that `actual` has the shape and element type of `expected`.
static LogicalResult checkSameType(Operation *op, StringRef what,
                                   Value expected, Value actual) {
  if (failed(checkShape(op, what, shapeOf(expected), shapeOf(actual))))
    return failure();
  return checkElementType(op, what, elementTypeOf(expected),
                          elementTypeOf(actual));
}

/// Checks the rank of `v`.
static LogicalResult checkRank(Operation *op, StringRef what, Value v,
                               int64_t rank) {
  if (tensorType(v).getRank() == rank)
    return success();
  return op->emitOpError() << "expected " << what << " of rank " << rank
                           << ", got rank " << tensorType(v).getRank() << " ("
                           << formatShape(shapeOf(v)) << ")";
}

static LogicalResult checkMinRank(Operation *op, StringRef what, Value v,
                                  int64_t minRank) {
  if (tensorType(v).getRank() >= minRank)
    return success();
  return op->emitOpError() << "expected " << what << " of rank >= " << minRank
                           << ", got rank " << tensorType(v).getRank() << " ("
                           << formatShape(shapeOf(v)) << ")";
}

/// Normalizes a possibly negative dimension index; fails with a diagnostic if
/// it is outside [-rank, rank).
static FailureOr<int64_t> normalizeDim(Operation *op, StringRef what,
                                       int64_t dim, int64_t rank) {
  if (dim < -rank || dim >= rank) {
    op->emitOpError() << what << " " << dim << " is out of range for rank "
                      << rank;
    return failure();
  }
  return dim < 0 ? dim + rank : dim;
}

/// The shape without its last dimension (statistics of normalizations).
static SmallVector<int64_t> dropLast(ArrayRef<int64_t> shape) {
  return SmallVector<int64_t>(shape.drop_back());
}

/// The wider of two float types; two different types of one width promote to
/// f32 (bf16 + f16, or the two fp8 formats).
static Type getWidestFloat(Type a, Type b) {
  if (a == b)
    return a;
  unsigned wa = a.getIntOrFloatBitWidth(), wb = b.getIntOrFloatBitWidth();
  if (wa != wb)
    return wa > wb ? a : b;
  return Float32Type::get(a.getContext());
}

static LogicalResult checkPositive(Operation *op, StringRef what,
                                   double value) {
  if (value > 0.0)
    return success();
  return op->emitOpError() << "expected " << what << " > 0, got " << value;
}

static LogicalResult checkNonNegative(Operation *op, StringRef what,
                                      double value) {
  if (value >= 0.0)
    return success();
  return op->emitOpError() << "expected " << what << " >= 0, got " << value;
}

static LogicalResult checkProbability(Operation *op, StringRef what,
                                      double value) {
  if (value >= 0.0 && value < 1.0)
    return success();
  return op->emitOpError() << "expected " << what << " in [0, 1), got "
                           << value;
}

/// Checks that a list attribute has `size` entries, each >= `minValue`.
static LogicalResult checkIntList(Operation *op, StringRef what,
                                  ArrayRef<int64_t> values, size_t size,
                                  int64_t minValue) {
  if (values.size() != size)
    return op->emitOpError() << "expected " << size << " " << what
                             << " values, got " << values.size();
  for (int64_t v : values)
    if (v < minValue)
      return op->emitOpError() << "expected every " << what
                               << " value >= " << minValue << ", got " << v;
  return success();
}

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
int64_t ParamOp::getFlops() { return 0; }
int64_t ParamOp::getBytesWritten() { return 0; }
void ParamOp::getAsmResultNames(OpAsmSetValueNameFn setNameFn) {
  setNameFn(getResult(), getName());
}

LogicalResult OptStateOp::verify() {
  if (getName().empty())
    return emitOpError("expected a non-empty optimizer state name");
  return success();
}
int64_t OptStateOp::getFlops() { return 0; }
int64_t OptStateOp::getBytesWritten() { return 0; }
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
int64_t FreeOp::getFlops() { return 0; }
int64_t FreeOp::getBytesRead() { return 0; }

LogicalResult CastOp::verify() {
  return checkShape(*this, "result", shapeOf(getInput()), shapeOf(getResult()));
}
OpFoldResult CastOp::fold(FoldAdaptor) {
  if (getInput().getType() == getResult().getType())
    return getInput();
  return {};
}
int64_t CastOp::getFlops() { return numElements(getInput()); }

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
      op, "result", getWidestFloat(elementTypeOf(lhs), elementTypeOf(rhs)),
      elementTypeOf(result));
}

LogicalResult AddOp::verify() {
  return verifyPromotingBinary(*this, getLhs(), getRhs(), getResult());
}
int64_t AddOp::getFlops() { return numElements(getResult()); }

LogicalResult SubOp::verify() {
  return verifyPromotingBinary(*this, getLhs(), getRhs(), getResult());
}
int64_t SubOp::getFlops() { return numElements(getResult()); }

LogicalResult MulOp::verify() {
  return verifyPromotingBinary(*this, getLhs(), getRhs(), getResult());
}
int64_t MulOp::getFlops() { return numElements(getResult()); }

LogicalResult ScaleOp::verify() {
  return checkSameType(*this, "result", getInput(), getResult());
}
int64_t ScaleOp::getFlops() { return numElements(getResult()); }

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
      getWidestFloat(elementTypeOf(getInput()), elementTypeOf(getBias())),
      elementTypeOf(getResult()));
}
int64_t BiasAddOp::getFlops() { return numElements(getResult()); }

LogicalResult ReluOp::verify() {
  return checkSameType(*this, "result", getInput(), getResult());
}
int64_t ReluOp::getFlops() { return numElements(getResult()); }

LogicalResult GeluOp::verify() {
  return checkSameType(*this, "result", getInput(), getResult());
}
int64_t GeluOp::getFlops() { return 8 * numElements(getResult()); }

LogicalResult SiluOp::verify() {
  return checkSameType(*this, "result", getInput(), getResult());
}
int64_t SiluOp::getFlops() { return 4 * numElements(getResult()); }

LogicalResult SwigluOp::verify() {
  if (failed(checkSameType(*this, "up", getGate(), getUp())))
    return failure();
  return checkSameType(*this, "result", getGate(), getResult());
}
int64_t SwigluOp::getFlops() { return 5 * numElements(getResult()); }

/// Shared by softmax and softmax_grad: a valid axis and a positive scale.
static LogicalResult verifySoftmaxAttrs(Operation *op, Value input,
                                        int64_t axis, double scale,
                                        bool causal) {
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
int64_t SoftmaxOp::getFlops() { return 5 * numElements(getResult()); }

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
static LogicalResult
verifyLastDimNorm(Operation *op, Value input,
                  ArrayRef<std::pair<StringRef, Value>> affine,
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
static LogicalResult
verifyChannelNorm(Operation *op, Value input,
                  ArrayRef<std::pair<StringRef, Value>> affine,
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
int64_t LayerNormOp::getFlops() { return 8 * numElements(getInput()); }

LogicalResult RmsNormOp::verify() {
  if (failed(checkSameType(*this, "result", getInput(), getResult())))
    return failure();
  return verifyLastDimNorm(*this, getInput(), {{"gamma", getGamma()}},
                           {{"rstd", getRstd()}},
                           getEpsilon().convertToDouble());
}
int64_t RmsNormOp::getFlops() { return 5 * numElements(getInput()); }

LogicalResult BatchNormOp::verify() {
  if (failed(checkSameType(*this, "result", getInput(), getResult())))
    return failure();
  return verifyChannelNorm(*this, getInput(),
                           {{"gamma", getGamma()}, {"beta", getBeta()}},
                           {{"mean", getMean()}, {"rstd", getRstd()}},
                           getEpsilon().convertToDouble());
}
int64_t BatchNormOp::getFlops() { return 8 * numElements(getInput()); }

LogicalResult DropoutOp::verify() {
  if (failed(checkSameType(*this, "result", getInput(), getResult())) ||
      failed(
          checkShape(*this, "mask", shapeOf(getInput()), shapeOf(getMask()))))
    return failure();
  if (static_cast<int64_t>(getId()) < 0)
    return emitOpError() << "expected id >= 0, got "
                         << static_cast<int64_t>(getId());
  return checkProbability(*this, "rate", getRate().convertToDouble());
}
int64_t DropoutOp::getFlops() { return 2 * numElements(getInput()); }

//===----------------------------------------------------------------------===//
// Linear algebra, embeddings, attention
//===----------------------------------------------------------------------===//

LogicalResult MatmulOp::verify() {
  if (failed(checkMinRank(*this, "lhs", getLhs(), 2)) ||
      failed(checkMinRank(*this, "rhs", getRhs(), 2)))
    return failure();
  ArrayRef<int64_t> lhs = shapeOf(getLhs()), rhs = shapeOf(getRhs());
  int64_t lhsRank = lhs.size(), rhsRank = rhs.size();
  if (rhsRank != 2 && rhsRank != lhsRank)
    return emitOpError() << "expected rhs of rank 2 or of the lhs rank "
                         << lhsRank << ", got rank " << rhsRank << " ("
                         << formatShape(rhs) << ")";
  ArrayRef<int64_t> batch = lhs.drop_back(2);
  if (rhsRank == lhsRank && failed(checkShape(*this, "rhs batch dimensions",
                                              batch, rhs.drop_back(2))))
    return failure();
  if (failed(checkElementType(*this, "rhs", elementTypeOf(getLhs()),
                              elementTypeOf(getRhs()))))
    return failure();
  int64_t m = getTransposeLhs() ? lhs[lhsRank - 1] : lhs[lhsRank - 2];
  int64_t kl = getTransposeLhs() ? lhs[lhsRank - 2] : lhs[lhsRank - 1];
  int64_t kr = getTransposeRhs() ? rhs[rhsRank - 1] : rhs[rhsRank - 2];
  int64_t n = getTransposeRhs() ? rhs[rhsRank - 2] : rhs[rhsRank - 1];
  if (kl != kr)
    return emitOpError() << "contraction dimension mismatch: lhs "
                         << formatShape(lhs) << " contracts " << kl << ", rhs "
                         << formatShape(rhs) << " contracts " << kr;
  SmallVector<int64_t> expected(batch);
  expected.append({m, n});
  if (failed(checkShape(*this, "result", expected, shapeOf(getResult()))))
    return failure();
  Type operandType = elementTypeOf(getLhs());
  Type resultType = elementTypeOf(getResult());
  if (resultType != operandType &&
      resultType.getIntOrFloatBitWidth() <= operandType.getIntOrFloatBitWidth())
    return emitOpError() << "expected result element type " << operandType
                         << " or a wider float (accumulation), got "
                         << resultType;
  return success();
}
int64_t MatmulOp::getFlops() {
  ArrayRef<int64_t> lhs = shapeOf(getLhs());
  int64_t k = getTransposeLhs() ? lhs[lhs.size() - 2] : lhs.back();
  return 2 * numElements(getResult()) * k;
}

LogicalResult EmbeddingOp::verify() {
  if (failed(checkRank(*this, "table", getTable(), 2)))
    return failure();
  SmallVector<int64_t> expected(shapeOf(getIds()));
  expected.push_back(shapeOf(getTable())[1]);
  if (failed(checkShape(*this, "result", expected, shapeOf(getResult()))))
    return failure();
  return checkElementType(*this, "result", elementTypeOf(getTable()),
                          elementTypeOf(getResult()));
}
int64_t EmbeddingOp::getFlops() { return 0; }

/// Shapes of attention: q is B x Hq x Sq x D, k and v are B x Hkv x Sk x D
/// with Hq a multiple of Hkv; lse is an fp32 B x Hq x Sq.
static LogicalResult verifyAttentionShapes(Operation *op, Value q, Value k,
                                           Value v, Value lse, double scale) {
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

LogicalResult AttentionOp::verify() {
  if (failed(verifyAttentionShapes(*this, getQuery(), getKey(), getValue(),
                                   getLse(), getScale().convertToDouble())))
    return failure();
  return checkSameType(*this, "result", getQuery(), getResult());
}

/// FLOPs of the two attention matmuls: 4*B*Hq*Sq*Sk*D, halved when causal.
static int64_t attentionMatmulFlops(Value q, Value k, bool causal) {
  ArrayRef<int64_t> qs = shapeOf(q);
  int64_t flops = 4 * numElements(q) * shapeOf(k)[2];
  (void)qs;
  return causal ? flops / 2 : flops;
}
int64_t AttentionOp::getFlops() {
  return attentionMatmulFlops(getQuery(), getKey(), getCausal());
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
int64_t RotaryOp::getFlops() { return 6 * numElements(getInput()); }

//===----------------------------------------------------------------------===//
// Losses and reductions
//===----------------------------------------------------------------------===//

LogicalResult CrossEntropyOp::verify() {
  if (failed(checkMinRank(*this, "logits", getLogits(), 1)))
    return failure();
  return checkShape(*this, "labels", dropLast(shapeOf(getLogits())),
                    shapeOf(getLabels()));
}
int64_t CrossEntropyOp::getFlops() { return 5 * numElements(getLogits()); }

LogicalResult MseLossOp::verify() {
  return checkSameType(*this, "target", getInput(), getTarget());
}
int64_t MseLossOp::getFlops() { return 3 * numElements(getInput()); }

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
int64_t ReduceSumOp::getFlops() { return numElements(getInput()); }

LogicalResult BroadcastOp::verify() {
  return verifyReducedShape(*this, getResult(), getInput(), "input", getDims());
}
int64_t BroadcastOp::getFlops() { return 0; }

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
int64_t ReshapeOp::getFlops() { return 0; }

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
int64_t TransposeOp::getFlops() { return 0; }

/// A window of `full` at `offsets` with `strides`, of the shape of `window`;
/// `windowName` names the window operand or result in diagnostics.
static LogicalResult verifyWindow(Operation *op, Value full, Value window,
                                  StringRef windowName,
                                  ArrayRef<int64_t> offsets,
                                  std::optional<ArrayRef<int64_t>> strides) {
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
int64_t SliceOp::getFlops() { return 0; }

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
int64_t ConcatOp::getFlops() { return 0; }

//===----------------------------------------------------------------------===//
// Convolutional networks
//===----------------------------------------------------------------------===//

/// Output size of a window op along one dimension (a value < 1 if the
/// window does not fit), or std::nullopt if the arithmetic overflows.
static std::optional<int64_t> windowOutputSize(int64_t in, int64_t kernel,
                                               int64_t stride, int64_t pad,
                                               int64_t dilation) {
  std::optional<int64_t> padded = llvm::checkedMul(int64_t(2), pad);
  if (padded)
    padded = llvm::checkedAdd(in, *padded);
  std::optional<int64_t> extent = llvm::checkedMul(dilation, kernel - 1);
  if (!padded || !extent)
    return std::nullopt;
  int64_t span = *padded - *extent - 1;
  if (span < 0)
    return 0;
  return span / stride + 1;
}

static LogicalResult emitWindowOverflow(Operation *op) {
  return op->emitOpError(
      "window attributes overflow 64-bit arithmetic on the input shape");
}

/// Checks a convolution's input (N x C x H x W), filter
/// (O x C/groups x KH x KW) and output (N x O x OH x OW) against each other.
static LogicalResult verifyConvShapes(
    Operation *op, Value input, Value filter, Value output, StringRef inputName,
    StringRef filterName, StringRef outputName, ArrayRef<int64_t> strides,
    ArrayRef<int64_t> padding, ArrayRef<int64_t> dilation, int64_t groups) {
  if (failed(checkRank(op, inputName, input, 4)) ||
      failed(checkRank(op, filterName, filter, 4)) ||
      failed(checkIntList(op, "strides", strides, 2, 1)) ||
      failed(checkIntList(op, "padding", padding, 2, 0)) ||
      failed(checkIntList(op, "dilation", dilation, 2, 1)))
    return failure();
  if (groups < 1)
    return op->emitOpError() << "expected groups >= 1, got " << groups;
  ArrayRef<int64_t> in = shapeOf(input), f = shapeOf(filter);
  if (in[1] % groups != 0 || f[0] % groups != 0)
    return op->emitOpError()
           << "expected input channels (" << in[1] << ") and output channels ("
           << f[0] << ") divisible by groups (" << groups << ")";
  if (f[1] != in[1] / groups)
    return op->emitOpError()
           << "expected " << filterName << " of shape " << f[0] << "x"
           << in[1] / groups << "x" << f[2] << "x" << f[3]
           << " (input channels / groups), got " << formatShape(f);
  SmallVector<int64_t> expected = {in[0], f[0]};
  for (int i = 0; i < 2; ++i) {
    std::optional<int64_t> size = windowOutputSize(
        in[2 + i], f[2 + i], strides[i], padding[i], dilation[i]);
    if (!size)
      return emitWindowOverflow(op);
    if (*size < 1)
      return op->emitOpError()
             << "filter " << formatShape(f) << " does not fit the padded "
             << inputName << " " << formatShape(in);
    expected.push_back(*size);
  }
  if (failed(checkShape(op, outputName, expected, shapeOf(output))))
    return failure();
  if (failed(checkElementType(op, filterName, elementTypeOf(input),
                              elementTypeOf(filter))))
    return failure();
  return checkElementType(op, outputName, elementTypeOf(input),
                          elementTypeOf(output));
}

/// 2 * N * O * OH * OW * (C / groups) * KH * KW.
static int64_t convFlops(Value filter, Value output) {
  ArrayRef<int64_t> f = shapeOf(filter);
  return 2 * numElements(output) * f[1] * f[2] * f[3];
}

LogicalResult Conv2dOp::verify() {
  return verifyConvShapes(*this, getInput(), getFilter(), getResult(), "input",
                          "filter", "result", getStrides(), getPadding(),
                          getDilation(), static_cast<int64_t>(getGroups()));
}
int64_t Conv2dOp::getFlops() { return convFlops(getFilter(), getResult()); }

LogicalResult Conv2dGradInputOp::verify() {
  return verifyConvShapes(*this, getResult(), getFilter(), getGrad(), "result",
                          "filter", "grad", getStrides(), getPadding(),
                          getDilation(), static_cast<int64_t>(getGroups()));
}
int64_t Conv2dGradInputOp::getFlops() {
  return convFlops(getFilter(), getGrad());
}

LogicalResult Conv2dGradFilterOp::verify() {
  return verifyConvShapes(*this, getInput(), getResult(), getGrad(), "input",
                          "result", "grad", getStrides(), getPadding(),
                          getDilation(), static_cast<int64_t>(getGroups()));
}
int64_t Conv2dGradFilterOp::getFlops() {
  return convFlops(getResult(), getGrad());
}

/// Checks a pooling window: `output` must be the pooled shape of `input`.
static LogicalResult verifyPoolShapes(Operation *op, Value input, Value output,
                                      StringRef inputName, StringRef outputName,
                                      ArrayRef<int64_t> kernel,
                                      ArrayRef<int64_t> strides,
                                      ArrayRef<int64_t> padding) {
  if (failed(checkRank(op, inputName, input, 4)) ||
      failed(checkIntList(op, "kernel", kernel, 2, 1)) ||
      failed(checkIntList(op, "strides", strides, 2, 1)) ||
      failed(checkIntList(op, "padding", padding, 2, 0)))
    return failure();
  ArrayRef<int64_t> in = shapeOf(input);
  SmallVector<int64_t> expected = {in[0], in[1]};
  for (int i = 0; i < 2; ++i) {
    if (padding[i] > kernel[i] / 2)
      return op->emitOpError() << "expected padding at most half the kernel, "
                                  "got padding "
                               << padding[i] << " for kernel " << kernel[i];
    std::optional<int64_t> size =
        windowOutputSize(in[2 + i], kernel[i], strides[i], padding[i], 1);
    if (!size)
      return emitWindowOverflow(op);
    if (*size < 1)
      return op->emitOpError()
             << "kernel " << formatShape(kernel) << " does not fit the padded "
             << inputName << " " << formatShape(in);
    expected.push_back(*size);
  }
  if (failed(checkShape(op, outputName, expected, shapeOf(output))))
    return failure();
  return checkElementType(op, outputName, elementTypeOf(input),
                          elementTypeOf(output));
}

static int64_t poolFlops(Value output, ArrayRef<int64_t> kernel) {
  return numElements(output) * kernel[0] * kernel[1];
}

LogicalResult MaxPool2dOp::verify() {
  return verifyPoolShapes(*this, getInput(), getResult(), "input", "result",
                          getKernel(), getStrides(), getPadding());
}
int64_t MaxPool2dOp::getFlops() { return poolFlops(getResult(), getKernel()); }

LogicalResult AvgPool2dOp::verify() {
  return verifyPoolShapes(*this, getInput(), getResult(), "input", "result",
                          getKernel(), getStrides(), getPadding());
}
int64_t AvgPool2dOp::getFlops() { return poolFlops(getResult(), getKernel()); }

LogicalResult MaxPool2dGradOp::verify() {
  if (failed(checkSameType(*this, "result", getInput(), getResult())))
    return failure();
  return verifyPoolShapes(*this, getInput(), getGrad(), "input", "grad",
                          getKernel(), getStrides(), getPadding());
}
int64_t MaxPool2dGradOp::getFlops() {
  return poolFlops(getGrad(), getKernel());
}

LogicalResult AvgPool2dGradOp::verify() {
  return verifyPoolShapes(*this, getResult(), getGrad(), "result", "grad",
                          getKernel(), getStrides(), getPadding());
}
int64_t AvgPool2dGradOp::getFlops() {
  return poolFlops(getGrad(), getKernel());
}

/// `large` must be `small` with both spatial dimensions times `scale`.
static LogicalResult verifyUpsampleShapes(Operation *op, Value small,
                                          Value large, StringRef smallName,
                                          StringRef largeName, int64_t scale) {
  if (failed(checkRank(op, smallName, small, 4)))
    return failure();
  if (scale < 1)
    return op->emitOpError() << "expected scale >= 1, got " << scale;
  ArrayRef<int64_t> s = shapeOf(small);
  std::optional<int64_t> h = llvm::checkedMul(s[2], scale);
  std::optional<int64_t> w = llvm::checkedMul(s[3], scale);
  if (!h || !w)
    return op->emitOpError()
           << "scale " << scale << " overflows the size of " << formatShape(s);
  if (failed(checkShape(op, largeName, {s[0], s[1], *h, *w}, shapeOf(large))))
    return failure();
  return checkElementType(op, largeName, elementTypeOf(small),
                          elementTypeOf(large));
}

LogicalResult UpsampleNearest2dOp::verify() {
  return verifyUpsampleShapes(*this, getInput(), getResult(), "input", "result",
                              static_cast<int64_t>(getScale()));
}
int64_t UpsampleNearest2dOp::getFlops() { return 0; }

LogicalResult UpsampleNearest2dGradOp::verify() {
  return verifyUpsampleShapes(*this, getResult(), getGrad(), "result", "grad",
                              static_cast<int64_t>(getScale()));
}
int64_t UpsampleNearest2dGradOp::getFlops() { return numElements(getGrad()); }

//===----------------------------------------------------------------------===//
// Gradient ops
//===----------------------------------------------------------------------===//

/// grad, the saved forward value and result all of one type.
static LogicalResult verifyActivationGrad(Operation *op, Value grad,
                                          Value saved, StringRef savedName,
                                          Value result) {
  if (failed(checkSameType(op, savedName, grad, saved)))
    return failure();
  return checkSameType(op, "result", grad, result);
}

LogicalResult ReluGradOp::verify() {
  return verifyActivationGrad(*this, getGrad(), getSaved(), "saved",
                              getResult());
}
int64_t ReluGradOp::getFlops() { return numElements(getGrad()); }

LogicalResult GeluGradOp::verify() {
  return verifyActivationGrad(*this, getGrad(), getSaved(), "saved",
                              getResult());
}
int64_t GeluGradOp::getFlops() { return 12 * numElements(getGrad()); }

LogicalResult SiluGradOp::verify() {
  return verifyActivationGrad(*this, getGrad(), getSaved(), "saved",
                              getResult());
}
int64_t SiluGradOp::getFlops() { return 6 * numElements(getGrad()); }

LogicalResult SwigluGradOp::verify() {
  if (failed(checkSameType(*this, "gate", getGrad(), getGate())) ||
      failed(checkSameType(*this, "up", getGrad(), getUp())) ||
      failed(checkSameType(*this, "grad_gate", getGrad(), getGradGate())))
    return failure();
  return checkSameType(*this, "grad_up", getGrad(), getGradUp());
}
int64_t SwigluGradOp::getFlops() { return 10 * numElements(getGrad()); }

LogicalResult SoftmaxGradOp::verify() {
  if (failed(verifyActivationGrad(*this, getGrad(), getOutput(), "output",
                                  getResult())))
    return failure();
  return verifySoftmaxAttrs(*this, getGrad(), static_cast<int64_t>(getAxis()),
                            getScale().convertToDouble(), /*causal=*/false);
}
int64_t SoftmaxGradOp::getFlops() { return 4 * numElements(getGrad()); }

LogicalResult LayerNormGradOp::verify() {
  if (failed(checkSameType(*this, "input", getGrad(), getInput())) ||
      failed(checkSameType(*this, "grad_input", getInput(), getGradInput())) ||
      failed(verifyLastDimNorm(*this, getInput(),
                               {{"gamma", getGamma()},
                                {"grad_gamma", getGradGamma()},
                                {"grad_beta", getGradBeta()}},
                               {{"mean", getMean()}, {"rstd", getRstd()}},
                               /*epsilon=*/std::nullopt)))
    return failure();
  if (failed(checkElementType(*this, "grad_gamma", elementTypeOf(getGamma()),
                              elementTypeOf(getGradGamma()))))
    return failure();
  return checkElementType(*this, "grad_beta", elementTypeOf(getGamma()),
                          elementTypeOf(getGradBeta()));
}
int64_t LayerNormGradOp::getFlops() { return 12 * numElements(getInput()); }

LogicalResult RmsNormGradOp::verify() {
  if (failed(checkSameType(*this, "input", getGrad(), getInput())) ||
      failed(checkSameType(*this, "grad_input", getInput(), getGradInput())) ||
      failed(verifyLastDimNorm(
          *this, getInput(),
          {{"gamma", getGamma()}, {"grad_gamma", getGradGamma()}},
          {{"rstd", getRstd()}}, /*epsilon=*/std::nullopt)))
    return failure();
  return checkElementType(*this, "grad_gamma", elementTypeOf(getGamma()),
                          elementTypeOf(getGradGamma()));
}
int64_t RmsNormGradOp::getFlops() { return 9 * numElements(getInput()); }

LogicalResult BatchNormGradOp::verify() {
  if (failed(checkSameType(*this, "input", getGrad(), getInput())) ||
      failed(checkSameType(*this, "grad_input", getInput(), getGradInput())) ||
      failed(verifyChannelNorm(*this, getInput(),
                               {{"gamma", getGamma()},
                                {"grad_gamma", getGradGamma()},
                                {"grad_beta", getGradBeta()}},
                               {{"mean", getMean()}, {"rstd", getRstd()}},
                               /*epsilon=*/std::nullopt)))
    return failure();
  if (failed(checkElementType(*this, "grad_gamma", elementTypeOf(getGamma()),
                              elementTypeOf(getGradGamma()))))
    return failure();
  return checkElementType(*this, "grad_beta", elementTypeOf(getGamma()),
                          elementTypeOf(getGradBeta()));
}
int64_t BatchNormGradOp::getFlops() { return 12 * numElements(getInput()); }

LogicalResult DropoutGradOp::verify() {
  if (failed(
          checkShape(*this, "mask", shapeOf(getGrad()), shapeOf(getMask()))) ||
      failed(checkSameType(*this, "result", getGrad(), getResult())))
    return failure();
  return checkProbability(*this, "rate", getRate().convertToDouble());
}
int64_t DropoutGradOp::getFlops() { return 2 * numElements(getGrad()); }

LogicalResult EmbeddingGradOp::verify() {
  if (failed(checkRank(*this, "result", getResult(), 2)))
    return failure();
  SmallVector<int64_t> expected(shapeOf(getIds()));
  expected.push_back(shapeOf(getResult())[1]);
  if (failed(checkShape(*this, "grad", expected, shapeOf(getGrad()))))
    return failure();
  return checkElementType(*this, "result", elementTypeOf(getGrad()),
                          elementTypeOf(getResult()));
}
int64_t EmbeddingGradOp::getFlops() { return numElements(getGrad()); }

LogicalResult CrossEntropyGradOp::verify() {
  if (failed(checkMinRank(*this, "logits", getLogits(), 1)) ||
      failed(checkShape(*this, "labels", dropLast(shapeOf(getLogits())),
                        shapeOf(getLabels()))))
    return failure();
  return checkSameType(*this, "result", getLogits(), getResult());
}
int64_t CrossEntropyGradOp::getFlops() { return 6 * numElements(getLogits()); }

LogicalResult MseLossGradOp::verify() {
  if (failed(checkSameType(*this, "target", getInput(), getTarget())))
    return failure();
  return checkSameType(*this, "result", getInput(), getResult());
}
int64_t MseLossGradOp::getFlops() { return 3 * numElements(getInput()); }

LogicalResult AttentionGradOp::verify() {
  if (failed(verifyAttentionShapes(*this, getQuery(), getKey(), getValue(),
                                   getLse(), getScale().convertToDouble())) ||
      failed(checkSameType(*this, "grad", getQuery(), getGrad())) ||
      failed(checkSameType(*this, "output", getQuery(), getOutput())) ||
      failed(checkSameType(*this, "grad_query", getQuery(), getGradQuery())) ||
      failed(checkSameType(*this, "grad_key", getKey(), getGradKey())))
    return failure();
  return checkSameType(*this, "grad_value", getValue(), getGradValue());
}
int64_t AttentionGradOp::getFlops() {
  // Five matmuls (recomputed scores, dV, dP, dQ, dK) of 2*B*Hq*Sq*Sk*D each.
  return attentionMatmulFlops(getQuery(), getKey(), getCausal()) * 5 / 2;
}

LogicalResult RotaryGradOp::verify() {
  if (failed(checkSameType(*this, "result", getGrad(), getResult())) ||
      failed(checkMinRank(*this, "grad", getGrad(), 2)) ||
      failed(checkPositive(*this, "theta", getTheta().convertToDouble())))
    return failure();
  if (shapeOf(getGrad()).back() % 2 != 0)
    return emitOpError() << "expected an even last dimension, got "
                         << formatShape(shapeOf(getGrad()));
  return success();
}
int64_t RotaryGradOp::getFlops() { return 6 * numElements(getGrad()); }

LogicalResult SliceGradOp::verify() {
  return verifyWindow(*this, getResult(), getGrad(), "grad", getOffsets(),
                      getStrides());
}
int64_t SliceGradOp::getFlops() { return 0; }

//===----------------------------------------------------------------------===//
// Optimizers
//===----------------------------------------------------------------------===//

/// `value` must be produced directly by an op of type `OpTy` (the optimizer
/// writes that persistent buffer in place).
template <typename OpTy>
static LogicalResult checkDefinedBy(Operation *op, StringRef what,
                                    Value value) {
  if (value.getDefiningOp<OpTy>())
    return success();
  InFlightDiagnostic diag = op->emitOpError()
                            << "expected " << what << " to be defined by '"
                            << OpTy::getOperationName() << "'";
  if (Operation *def = value.getDefiningOp())
    diag << ", got '" << def->getName() << "'";
  else
    diag << ", got a block argument";
  return diag;
}

LogicalResult SgdOp::verify() {
  if (failed(checkDefinedBy<ParamOp>(*this, "param", getParam())) ||
      failed(
          checkShape(*this, "grad", shapeOf(getParam()), shapeOf(getGrad()))) ||
      failed(checkNonNegative(*this, "lr", getLr().convertToDouble())) ||
      failed(checkNonNegative(*this, "weight_decay",
                              getWeightDecay().convertToDouble())) ||
      failed(
          checkNonNegative(*this, "momentum", getMomentum().convertToDouble())))
    return failure();
  bool hasMomentum = getMomentum().convertToDouble() > 0.0;
  Value buffer = getMomentumBuffer();
  if (hasMomentum && !buffer)
    return emitOpError("expected a momentum buffer when momentum > 0");
  if (!hasMomentum && buffer)
    return emitOpError("expected momentum > 0 with a momentum buffer");
  if (!buffer)
    return success();
  if (failed(checkDefinedBy<OptStateOp>(*this, "momentum buffer", buffer)))
    return failure();
  return checkShape(*this, "momentum buffer", shapeOf(getParam()),
                    shapeOf(buffer));
}
int64_t SgdOp::getFlops() {
  return (getMomentumBuffer() ? 5 : 3) * numElements(getParam());
}
bool SgdOp::isUpdatedInPlace(unsigned operandIndex) {
  // Operand 0 is the parameter; operand 2, if present, the momentum buffer.
  return operandIndex == 0 || operandIndex == 2;
}

/// Shared verifier of adam and adamw.
template <typename OpTy> static LogicalResult verifyAdam(OpTy op) {
  if (failed(checkDefinedBy<ParamOp>(op, "param", op.getParam())) ||
      failed(checkDefinedBy<OptStateOp>(op, "exp_avg", op.getExpAvg())) ||
      failed(checkDefinedBy<OptStateOp>(op, "exp_avg_sq", op.getExpAvgSq())))
    return failure();
  if (op.getExpAvg() == op.getExpAvgSq())
    return op.emitOpError("expected distinct exp_avg and exp_avg_sq states");
  ArrayRef<int64_t> shape = shapeOf(op.getParam());
  if (failed(checkShape(op, "grad", shape, shapeOf(op.getGrad()))) ||
      failed(checkShape(op, "exp_avg", shape, shapeOf(op.getExpAvg()))) ||
      failed(checkShape(op, "exp_avg_sq", shape, shapeOf(op.getExpAvgSq()))) ||
      failed(checkNonNegative(op, "lr", op.getLr().convertToDouble())) ||
      failed(checkProbability(op, "beta1", op.getBeta1().convertToDouble())) ||
      failed(checkProbability(op, "beta2", op.getBeta2().convertToDouble())) ||
      failed(checkPositive(op, "epsilon", op.getEpsilon().convertToDouble())))
    return failure();
  return checkNonNegative(op, "weight_decay",
                          op.getWeightDecay().convertToDouble());
}

/// Operands 0, 2 and 3 (param, exp_avg, exp_avg_sq) are updated in place.
static bool isAdamInPlaceOperand(unsigned operandIndex) {
  return operandIndex == 0 || operandIndex == 2 || operandIndex == 3;
}

LogicalResult AdamOp::verify() { return verifyAdam(*this); }
int64_t AdamOp::getFlops() { return 12 * numElements(getParam()); }
bool AdamOp::isUpdatedInPlace(unsigned operandIndex) {
  return isAdamInPlaceOperand(operandIndex);
}

LogicalResult AdamWOp::verify() { return verifyAdam(*this); }
int64_t AdamWOp::getFlops() { return 13 * numElements(getParam()); }
bool AdamWOp::isUpdatedInPlace(unsigned operandIndex) {
  return isAdamInPlaceOperand(operandIndex);
}

#define GET_OP_CLASSES
#include "memopt/Dialect/Train/IR/TrainOps.cpp.inc"

//===----------------------------------------------------------------------===//
// Workspace: the scratch buffers of the CPU lowering (convert-train-to-linalg)
//===----------------------------------------------------------------------===//

/// The type 16-bit and 8-bit floats accumulate in (f32), as the lowering's
/// getAccumulatorType.
static Type accumulatorOf(Type type) {
  if (type.getIntOrFloatBitWidth() < 32)
    return Float32Type::get(type.getContext());
  return type;
}

/// The type normalizations and attention compute in: f32, or the widest of
/// `types` when wider.
static Type computeOf(ArrayRef<Type> types) {
  Type widest = Float32Type::get(types.front().getContext());
  for (Type type : types)
    if (type.getIntOrFloatBitWidth() > widest.getIntOrFloatBitWidth())
      widest = type;
  return widest;
}

/// The wider of two floats (f32 when they differ at the same width), as the
/// lowering of the losses picks their compute type.
static Type widerOf(Type a, Type b) {
  if (a == b)
    return a;
  unsigned wa = a.getIntOrFloatBitWidth(), wb = b.getIntOrFloatBitWidth();
  if (wa != wb)
    return wa > wb ? a : b;
  return Float32Type::get(a.getContext());
}

/// Bytes of `elements` elements of `type`.
static int64_t bytesOf(int64_t elements, Type type) {
  return elements * getElementBytes(type);
}

/// Bytes of an NCHW tensor shaped like `shape` with H and W grown by
/// `extra`.
static int64_t grownBytes(ArrayRef<int64_t> shape, ArrayRef<int64_t> extra,
                          Type type) {
  return bytesOf(shape[0] * shape[1] * (shape[2] + extra[0]) *
                     (shape[3] + extra[1]),
                 type);
}

/// The zero- (or -inf-) padded copy of an NCHW input, when padded at all.
static void addPadded(SmallVectorImpl<int64_t> &buffers, Value input,
                      ArrayRef<int64_t> padding) {
  if (padding[0] == 0 && padding[1] == 0)
    return;
  buffers.push_back(grownBytes(shapeOf(input), {2 * padding[0], 2 * padding[1]},
                               elementTypeOf(input)));
}

/// The accumulator of a result computed in a wider type and then rounded.
static void addAccumulator(SmallVectorImpl<int64_t> &buffers, Value result,
                           Type accType) {
  if (accType != elementTypeOf(result))
    buffers.push_back(bytesOf(numElements(result), accType));
}

SmallVector<int64_t> SoftmaxOp::getWorkspaceBuffers() {
  auto axis = static_cast<int64_t>(getAxis());
  ArrayRef<int64_t> shape = shapeOf(getInput());
  if (axis < 0)
    axis += shape.size();
  int64_t rows = numElements(getInput()) / shape[axis];
  Type acc = accumulatorOf(elementTypeOf(getResult()));
  return {bytesOf(rows, acc), bytesOf(rows, acc)};
}

SmallVector<int64_t> SoftmaxGradOp::getWorkspaceBuffers() {
  auto axis = static_cast<int64_t>(getAxis());
  ArrayRef<int64_t> shape = shapeOf(getGrad());
  if (axis < 0)
    axis += shape.size();
  return {bytesOf(numElements(getGrad()) / shape[axis],
                  accumulatorOf(elementTypeOf(getResult())))};
}

SmallVector<int64_t> LayerNormOp::getWorkspaceBuffers() {
  Type c = computeOf({elementTypeOf(getInput()), elementTypeOf(getGamma()),
                      elementTypeOf(getBeta())});
  if (c == elementTypeOf(getMean()))
    return {};
  int64_t rows = numElements(getMean());
  return {bytesOf(rows, c), bytesOf(rows, c)};
}

SmallVector<int64_t> LayerNormGradOp::getWorkspaceBuffers() {
  Type gamma = elementTypeOf(getGamma());
  Type c =
      computeOf({elementTypeOf(getInput()), elementTypeOf(getGrad()), gamma});
  int64_t rows = numElements(getInput()) / shapeOf(getInput()).back();
  SmallVector<int64_t> buffers = {bytesOf(rows, c), bytesOf(rows, c)};
  if (c != gamma)
    buffers.append(2, bytesOf(numElements(getGamma()), c));
  return buffers;
}

SmallVector<int64_t> RmsNormOp::getWorkspaceBuffers() {
  Type c = computeOf({elementTypeOf(getInput()), elementTypeOf(getGamma())});
  if (c == elementTypeOf(getRstd()))
    return {};
  return {bytesOf(numElements(getRstd()), c)};
}

SmallVector<int64_t> RmsNormGradOp::getWorkspaceBuffers() {
  Type gamma = elementTypeOf(getGamma());
  Type c =
      computeOf({elementTypeOf(getInput()), elementTypeOf(getGrad()), gamma});
  int64_t rows = numElements(getInput()) / shapeOf(getInput()).back();
  SmallVector<int64_t> buffers = {bytesOf(rows, c)};
  if (c != gamma)
    buffers.push_back(bytesOf(numElements(getGamma()), c));
  return buffers;
}

SmallVector<int64_t> BatchNormOp::getWorkspaceBuffers() {
  Type acc = accumulatorOf(elementTypeOf(getInput()));
  if (acc == elementTypeOf(getMean()))
    return {};
  int64_t channels = shapeOf(getInput())[1];
  return {bytesOf(channels, acc), bytesOf(channels, acc)};
}

SmallVector<int64_t> BatchNormGradOp::getWorkspaceBuffers() {
  Type acc = accumulatorOf(elementTypeOf(getInput()));
  int64_t channels = shapeOf(getInput())[1];
  SmallVector<int64_t> buffers;
  if (elementTypeOf(getMean()) != acc)
    buffers.push_back(bytesOf(channels, acc));
  if (elementTypeOf(getRstd()) != acc)
    buffers.push_back(bytesOf(channels, acc));
  buffers.append(2, bytesOf(channels, acc));
  return buffers;
}

SmallVector<int64_t> AttentionOp::getWorkspaceBuffers() {
  Type query = elementTypeOf(getQuery());
  Type c = computeOf({query});
  ArrayRef<int64_t> qs = shapeOf(getQuery()), ks = shapeOf(getKey());
  int64_t rows = qs[0] * qs[1] * qs[2];
  SmallVector<int64_t> buffers = {bytesOf(rows * ks[2], c), bytesOf(rows, c)};
  if (c != elementTypeOf(getLse()))
    buffers.push_back(bytesOf(rows, c));
  addAccumulator(buffers, getResult(), c);
  return buffers;
}

SmallVector<int64_t> AttentionGradOp::getWorkspaceBuffers() {
  Type c = computeOf({elementTypeOf(getQuery())});
  ArrayRef<int64_t> qs = shapeOf(getQuery()), ks = shapeOf(getKey());
  int64_t rows = qs[0] * qs[1] * qs[2];
  SmallVector<int64_t> buffers = {bytesOf(rows * ks[2], c),
                                  bytesOf(rows * ks[2], c), bytesOf(rows, c)};
  addAccumulator(buffers, getGradValue(), c);
  addAccumulator(buffers, getGradQuery(), c);
  addAccumulator(buffers, getGradKey(), c);
  return buffers;
}

static SmallVector<int64_t> getRotaryWorkspace(Value input) {
  ArrayRef<int64_t> shape = shapeOf(input);
  int64_t rank = shape.size();
  Type f32 = Float32Type::get(input.getContext());
  int64_t table = bytesOf(shape[rank - 2] * shape[rank - 1] / 2, f32);
  int64_t half = bytesOf(numElements(input) / 2, elementTypeOf(input));
  return {table, table, half, half};
}
SmallVector<int64_t> RotaryOp::getWorkspaceBuffers() {
  return getRotaryWorkspace(getInput());
}
SmallVector<int64_t> RotaryGradOp::getWorkspaceBuffers() {
  return getRotaryWorkspace(getGrad());
}

SmallVector<int64_t> CrossEntropyOp::getWorkspaceBuffers() {
  Type c = widerOf(accumulatorOf(elementTypeOf(getLogits())),
                   elementTypeOf(getResult()));
  int64_t rows = numElements(getLogits()) / shapeOf(getLogits()).back();
  return {bytesOf(rows, c), bytesOf(rows, c), bytesOf(1, c), bytesOf(1, c)};
}

SmallVector<int64_t> CrossEntropyGradOp::getWorkspaceBuffers() {
  Type c = widerOf(accumulatorOf(elementTypeOf(getResult())),
                   elementTypeOf(getGrad()));
  int64_t rows = numElements(getLogits()) / shapeOf(getLogits()).back();
  SmallVector<int64_t> buffers = {bytesOf(rows, c), bytesOf(rows, c)};
  if (getIgnoreIndex())
    buffers.push_back(bytesOf(1, c));
  return buffers;
}

SmallVector<int64_t> MseLossOp::getWorkspaceBuffers() {
  return {bytesOf(1, widerOf(accumulatorOf(elementTypeOf(getInput())),
                             elementTypeOf(getResult())))};
}

SmallVector<int64_t> ReduceSumOp::getWorkspaceBuffers() {
  SmallVector<int64_t> buffers;
  if (!getDims().empty())
    addAccumulator(buffers, getResult(),
                   accumulatorOf(elementTypeOf(getResult())));
  return buffers;
}

SmallVector<int64_t> Conv2dOp::getWorkspaceBuffers() {
  SmallVector<int64_t> buffers;
  addPadded(buffers, getInput(), getPadding());
  addAccumulator(buffers, getResult(),
                 accumulatorOf(elementTypeOf(getResult())));
  return buffers;
}

SmallVector<int64_t> Conv2dGradInputOp::getWorkspaceBuffers() {
  ArrayRef<int64_t> x = shapeOf(getResult()), f = shapeOf(getFilter());
  ArrayRef<int64_t> padding = getPadding(), dilation = getDilation();
  SmallVector<int64_t> extra = {2 * padding[0] + dilation[0] * (f[2] - 1),
                                2 * padding[1] + dilation[1] * (f[3] - 1)};
  SmallVector<int64_t> buffers = {
      grownBytes({x[0], f[0], x[2], x[3]}, extra, elementTypeOf(getGrad())),
      bytesOf(numElements(getFilter()), elementTypeOf(getFilter()))};
  addAccumulator(buffers, getResult(),
                 accumulatorOf(elementTypeOf(getResult())));
  return buffers;
}

SmallVector<int64_t> Conv2dGradFilterOp::getWorkspaceBuffers() {
  SmallVector<int64_t> buffers;
  addPadded(buffers, getInput(), getPadding());
  addAccumulator(buffers, getResult(),
                 accumulatorOf(elementTypeOf(getResult())));
  return buffers;
}

SmallVector<int64_t> MaxPool2dOp::getWorkspaceBuffers() {
  SmallVector<int64_t> buffers;
  addPadded(buffers, getInput(), getPadding());
  return buffers;
}

SmallVector<int64_t> MaxPool2dGradOp::getWorkspaceBuffers() {
  ArrayRef<int64_t> padding = getPadding();
  Type acc = accumulatorOf(elementTypeOf(getResult()));
  SmallVector<int64_t> buffers;
  addPadded(buffers, getInput(), padding);
  // Each window's maximum and its index (i32).
  buffers.push_back(bytesOf(numElements(getGrad()), elementTypeOf(getGrad())));
  buffers.push_back(4 * numElements(getGrad()));
  // The gradient of the padded input, unless it is the result itself.
  if (padding[0] != 0 || padding[1] != 0 || acc != elementTypeOf(getResult()))
    buffers.push_back(grownBytes(shapeOf(getResult()),
                                 {2 * padding[0], 2 * padding[1]}, acc));
  return buffers;
}

SmallVector<int64_t> AvgPool2dOp::getWorkspaceBuffers() {
  SmallVector<int64_t> buffers;
  addPadded(buffers, getInput(), getPadding());
  addAccumulator(buffers, getResult(),
                 accumulatorOf(elementTypeOf(getResult())));
  return buffers;
}

SmallVector<int64_t> AvgPool2dGradOp::getWorkspaceBuffers() {
  ArrayRef<int64_t> padding = getPadding(), kernel = getKernel();
  Type acc = accumulatorOf(elementTypeOf(getResult()));
  SmallVector<int64_t> buffers = {grownBytes(
      shapeOf(getResult()),
      {2 * padding[0] + kernel[0] - 1, 2 * padding[1] + kernel[1] - 1}, acc)};
  addAccumulator(buffers, getResult(), acc);
  return buffers;
}

SmallVector<int64_t> UpsampleNearest2dGradOp::getWorkspaceBuffers() {
  SmallVector<int64_t> buffers;
  if (getScale() != 1)
    addAccumulator(buffers, getResult(),
                   accumulatorOf(elementTypeOf(getResult())));
  return buffers;
}
