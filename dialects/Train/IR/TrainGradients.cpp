//===- TrainGradients.cpp - gradient rules of the forward train ops -------===//
//
// DifferentiableOpInterface implementations: one chain rule per forward op.
// Which forward values a rule reads is what the step saves for backward; it
// follows the production frameworks (relu saves its output, gelu its input,
// softmax its output, dropout its mask, normalizations their input and
// statistics, fused attention q, k, v, output and logsumexp).
//
//===----------------------------------------------------------------------===//

#include "memopt/Dialect/Train/IR/TrainOps.h"

#include "TrainOpUtils.h"

#include "mlir/Dialect/Shard/IR/ShardOps.h"
#include "mlir/IR/Builders.h"

#include <numeric>

using namespace mlir;
using namespace mlir::memopt::train;
using mlir::memopt::train::detail::gradLoc;

//===----------------------------------------------------------------------===//
// Helpers
//===----------------------------------------------------------------------===//

/// `value` converted to `type`'s element type (a train.cast) if needed.
static Value castTo(OpBuilder &b, Location loc, Value value, Type type) {
  if (value.getType() == type)
    return value;
  return CastOp::create(b, loc, type, value);
}

static RankedTensorType typeOf(Value v) {
  return cast<RankedTensorType>(v.getType());
}

/// Fails unless only result 0 receives a gradient (statistics, masks and
/// logsumexp results are not differentiable).
static LogicalResult requireOnlyFirstResultGrad(Operation *op,
                                                ValueRange resultGrads) {
  for (auto [i, grad] : llvm::enumerate(resultGrads))
    if (i > 0 && grad)
      return op->emitOpError() << "has no gradient rule for result " << i
                               << "; only result 0 is differentiable";
  return success();
}

/// Resizes `grads` to one null value per operand of `op`.
static void initGrads(Operation *op, SmallVectorImpl<Value> &grads) {
  grads.assign(op->getNumOperands(), Value());
}

/// The rule of an op whose only gradient is its input's: one `GradOpTy` of
/// the input's type, built from the result's gradient and `args`.
template <typename GradOpTy, typename OpTy, typename... Args>
static LogicalResult
buildInputGradient(OpTy op, OpBuilder &b, ValueRange resultGrads,
                   SmallVectorImpl<Value> &grads, Args &&...args) {
  initGrads(op, grads);
  grads[0] = GradOpTy::create(b, gradLoc(op), op.getInput().getType(),
                              resultGrads[0], std::forward<Args>(args)...);
  return success();
}

//===----------------------------------------------------------------------===//
// Elementwise
//===----------------------------------------------------------------------===//

LogicalResult CastOp::buildGradients(OpBuilder &b, ValueRange resultGrads,
                                     ArrayRef<bool> needed,
                                     SmallVectorImpl<Value> &grads) {
  initGrads(*this, grads);
  grads[0] = castTo(b, gradLoc(*this), resultGrads[0], getInput().getType());
  return success();
}

LogicalResult AddOp::buildGradients(OpBuilder &b, ValueRange resultGrads,
                                    ArrayRef<bool> needed,
                                    SmallVectorImpl<Value> &grads) {
  initGrads(*this, grads);
  Location loc = gradLoc(*this);
  if (needed[0])
    grads[0] = castTo(b, loc, resultGrads[0], getLhs().getType());
  if (needed[1])
    grads[1] = castTo(b, loc, resultGrads[0], getRhs().getType());
  return success();
}

LogicalResult SubOp::buildGradients(OpBuilder &b, ValueRange resultGrads,
                                    ArrayRef<bool> needed,
                                    SmallVectorImpl<Value> &grads) {
  initGrads(*this, grads);
  Location loc = gradLoc(*this);
  Value g = resultGrads[0];
  if (needed[0])
    grads[0] = castTo(b, loc, g, getLhs().getType());
  if (needed[1]) {
    Value negated =
        ScaleOp::create(b, loc, g.getType(), g, b.getF64FloatAttr(-1.0));
    grads[1] = castTo(b, loc, negated, getRhs().getType());
  }
  return success();
}

/// The value the backward pass reads for an operand `forward` saved by a
/// binary op. A broadcast is a copy of its smaller input: the backward pass
/// broadcasts that input again rather than keep the forward pass's full-size
/// copy alive until the backward pass (PyTorch's elementwise ops broadcast
/// inside the kernel and save only the small operand; a squeeze-and-excitation
/// gate `x * scale` would otherwise save a second copy of x's size).
static Value savedOperand(OpBuilder &b, Location loc, Value forward) {
  auto broadcast = forward.getDefiningOp<BroadcastOp>();
  if (!broadcast)
    return forward;
  return BroadcastOp::create(b, loc, broadcast.getType(), broadcast.getInput(),
                             broadcast.getDimsAttr());
}

LogicalResult MulOp::buildGradients(OpBuilder &b, ValueRange resultGrads,
                                    ArrayRef<bool> needed,
                                    SmallVectorImpl<Value> &grads) {
  initGrads(*this, grads);
  Location loc = gradLoc(*this);
  Value g = resultGrads[0];
  // d(lhs * rhs) = g * rhs, g * lhs, computed in the (widest) result type.
  if (needed[0]) {
    Value rhs = savedOperand(b, loc, getRhs());
    grads[0] = castTo(b, loc, MulOp::create(b, loc, g.getType(), g, rhs),
                      getLhs().getType());
  }
  if (needed[1]) {
    Value lhs = savedOperand(b, loc, getLhs());
    grads[1] = castTo(b, loc, MulOp::create(b, loc, g.getType(), g, lhs),
                      getRhs().getType());
  }
  return success();
}

LogicalResult ScaleOp::buildGradients(OpBuilder &b, ValueRange resultGrads,
                                      ArrayRef<bool> needed,
                                      SmallVectorImpl<Value> &grads) {
  return buildInputGradient<ScaleOp>(*this, b, resultGrads, grads,
                                     getFactorAttr());
}

LogicalResult BiasAddOp::buildGradients(OpBuilder &b, ValueRange resultGrads,
                                        ArrayRef<bool> needed,
                                        SmallVectorImpl<Value> &grads) {
  initGrads(*this, grads);
  Location loc = gradLoc(*this);
  Value g = resultGrads[0];
  if (needed[0])
    grads[0] = castTo(b, loc, g, getInput().getType());
  if (needed[1]) {
    int64_t rank = typeOf(g).getRank();
    int64_t dim = static_cast<int64_t>(getDim());
    if (dim < 0)
      dim += rank;
    SmallVector<int64_t> dims;
    for (int64_t d = 0; d < rank; ++d)
      if (d != dim)
        dims.push_back(d);
    auto sumType = RankedTensorType::get(typeOf(getBias()).getShape(),
                                         typeOf(g).getElementType());
    Value sum = ReduceSumOp::create(b, loc, sumType, g, dims);
    grads[1] = castTo(b, loc, sum, getBias().getType());
  }
  return success();
}

LogicalResult ReluOp::buildGradients(OpBuilder &b, ValueRange resultGrads,
                                     ArrayRef<bool> needed,
                                     SmallVectorImpl<Value> &grads) {
  return buildInputGradient<ReluGradOp>(*this, b, resultGrads, grads,
                                        getResult(), getUpperAttr());
}

LogicalResult GeluOp::buildGradients(OpBuilder &b, ValueRange resultGrads,
                                     ArrayRef<bool> needed,
                                     SmallVectorImpl<Value> &grads) {
  return buildInputGradient<GeluGradOp>(*this, b, resultGrads, grads,
                                        getInput(), getApproximateAttr());
}

LogicalResult SiluOp::buildGradients(OpBuilder &b, ValueRange resultGrads,
                                     ArrayRef<bool> needed,
                                     SmallVectorImpl<Value> &grads) {
  return buildInputGradient<SiluGradOp>(*this, b, resultGrads, grads,
                                        getInput());
}

LogicalResult SigmoidOp::buildGradients(OpBuilder &b, ValueRange resultGrads,
                                        ArrayRef<bool> needed,
                                        SmallVectorImpl<Value> &grads) {
  return buildInputGradient<SigmoidGradOp>(*this, b, resultGrads, grads,
                                           getResult());
}

LogicalResult TanhOp::buildGradients(OpBuilder &b, ValueRange resultGrads,
                                     ArrayRef<bool> needed,
                                     SmallVectorImpl<Value> &grads) {
  return buildInputGradient<TanhGradOp>(*this, b, resultGrads, grads,
                                        getResult());
}

LogicalResult HardsigmoidOp::buildGradients(OpBuilder &b,
                                            ValueRange resultGrads,
                                            ArrayRef<bool> needed,
                                            SmallVectorImpl<Value> &grads) {
  return buildInputGradient<HardsigmoidGradOp>(*this, b, resultGrads, grads,
                                               getInput());
}

LogicalResult HardswishOp::buildGradients(OpBuilder &b, ValueRange resultGrads,
                                          ArrayRef<bool> needed,
                                          SmallVectorImpl<Value> &grads) {
  return buildInputGradient<HardswishGradOp>(*this, b, resultGrads, grads,
                                             getInput());
}

LogicalResult SwigluOp::buildGradients(OpBuilder &b, ValueRange resultGrads,
                                       ArrayRef<bool> needed,
                                       SmallVectorImpl<Value> &grads) {
  initGrads(*this, grads);
  Type type = getGate().getType();
  auto grad = SwigluGradOp::create(b, gradLoc(*this), type, type,
                                   resultGrads[0], getGate(), getUp());
  grads[0] = grad.getGradGate();
  grads[1] = grad.getGradUp();
  return success();
}

LogicalResult SoftmaxOp::buildGradients(OpBuilder &b, ValueRange resultGrads,
                                        ArrayRef<bool> needed,
                                        SmallVectorImpl<Value> &grads) {
  return buildInputGradient<SoftmaxGradOp>(
      *this, b, resultGrads, grads, getResult(), getAxisAttr(), getScaleAttr());
}

LogicalResult DropoutOp::buildGradients(OpBuilder &b, ValueRange resultGrads,
                                        ArrayRef<bool> needed,
                                        SmallVectorImpl<Value> &grads) {
  if (failed(requireOnlyFirstResultGrad(*this, resultGrads)))
    return failure();
  return buildInputGradient<DropoutGradOp>(*this, b, resultGrads, grads,
                                           getMask(), getRateAttr());
}

//===----------------------------------------------------------------------===//
// Normalization
//===----------------------------------------------------------------------===//

/// layer_norm and batch_norm: (dinput, dgamma, dbeta) from the saved input,
/// gamma and the mean/rstd statistics.
template <typename GradOpTy, typename OpTy>
static LogicalResult buildAffineNormGradients(OpTy op, OpBuilder &b,
                                              ValueRange resultGrads,
                                              SmallVectorImpl<Value> &grads) {
  if (failed(requireOnlyFirstResultGrad(op, resultGrads)))
    return failure();
  initGrads(op, grads);
  auto grad = GradOpTy::create(b, gradLoc(op), op.getInput().getType(),
                               op.getGamma().getType(), op.getBeta().getType(),
                               resultGrads[0], op.getInput(), op.getGamma(),
                               op.getMean(), op.getRstd());
  grads[0] = grad.getGradInput();
  grads[1] = grad.getGradGamma();
  grads[2] = grad.getGradBeta();
  return success();
}

LogicalResult LayerNormOp::buildGradients(OpBuilder &b, ValueRange resultGrads,
                                          ArrayRef<bool> needed,
                                          SmallVectorImpl<Value> &grads) {
  return buildAffineNormGradients<LayerNormGradOp>(*this, b, resultGrads,
                                                   grads);
}

LogicalResult RmsNormOp::buildGradients(OpBuilder &b, ValueRange resultGrads,
                                        ArrayRef<bool> needed,
                                        SmallVectorImpl<Value> &grads) {
  if (failed(requireOnlyFirstResultGrad(*this, resultGrads)))
    return failure();
  initGrads(*this, grads);
  auto grad = RmsNormGradOp::create(b, gradLoc(*this), getInput().getType(),
                                    getGamma().getType(), resultGrads[0],
                                    getInput(), getGamma(), getRstd());
  grads[0] = grad.getGradInput();
  grads[1] = grad.getGradGamma();
  return success();
}

LogicalResult BatchNormOp::buildGradients(OpBuilder &b, ValueRange resultGrads,
                                          ArrayRef<bool> needed,
                                          SmallVectorImpl<Value> &grads) {
  return buildAffineNormGradients<BatchNormGradOp>(*this, b, resultGrads,
                                                   grads);
}

//===----------------------------------------------------------------------===//
// Linear algebra, embeddings, attention
//===----------------------------------------------------------------------===//

/// The permutation that swaps the last two of `rank` dimensions.
static SmallVector<int64_t> swapLastTwo(int64_t rank) {
  SmallVector<int64_t> perm(rank);
  std::iota(perm.begin(), perm.end(), 0);
  std::swap(perm[rank - 1], perm[rank - 2]);
  return perm;
}

/// `value` with its last two dimensions swapped (a view).
static Value transposeLastTwo(OpBuilder &b, Location loc, Value value) {
  RankedTensorType type = typeOf(value);
  SmallVector<int64_t> perm = swapLastTwo(type.getRank());
  SmallVector<int64_t> shape;
  for (int64_t p : perm)
    shape.push_back(type.getDimSize(p));
  return TransposeOp::create(
      b, loc, RankedTensorType::get(shape, type.getElementType()), value, perm);
}

/// A matmul of `lhs` and `rhs` with the given transposes, inferring the
/// result type (element type of the operands).
static Value buildMatmul(OpBuilder &b, Location loc, Value lhs, Value rhs,
                         bool transposeLhs, bool transposeRhs) {
  ArrayRef<int64_t> l = typeOf(lhs).getShape(), r = typeOf(rhs).getShape();
  int64_t lr = l.size(), rr = r.size();
  SmallVector<int64_t> shape(l.drop_back(2));
  shape.push_back(transposeLhs ? l[lr - 1] : l[lr - 2]);
  shape.push_back(transposeRhs ? r[rr - 2] : r[rr - 1]);
  auto type = RankedTensorType::get(shape, typeOf(lhs).getElementType());
  return MatmulOp::create(b, loc, type, lhs, rhs, transposeLhs, transposeRhs);
}

/// `value` with its leading dimensions collapsed into one:
/// [B..., M, K] -> [prod(B) * M, K].
static Value flattenToMatrix(OpBuilder &b, Location loc, Value value) {
  RankedTensorType type = typeOf(value);
  if (type.getRank() == 2)
    return value;
  int64_t cols = type.getShape().back();
  auto flat = RankedTensorType::get({type.getNumElements() / cols, cols},
                                    type.getElementType());
  return ReshapeOp::create(b, loc, flat, value);
}

namespace {
/// The value of a matmul a gradient matmul reads (itself or a view of it).
enum class MatmulValue { Lhs, Rhs, Grad };
/// Creates one gradient matmul: `build(x, xRole, y, yRole, transposeX,
/// transposeY)`.
using GradientMatmulBuilder =
    function_ref<Value(Value, MatmulValue, Value, MatmulValue, bool, bool)>;
} // namespace

/// The rule of train.matmul and train.scaled_matmul: with C = op(A) op(B)
/// and g = dC, d op(A) = g op(B)^T and d op(B) = op(A)^T g, each matmul
/// made by `build`.
static void buildMatmulGradients(OpBuilder &b, Location loc, Value lhs,
                                 Value rhs, Value g, bool tl, bool tr,
                                 ArrayRef<bool> needed,
                                 SmallVectorImpl<Value> &grads,
                                 GradientMatmulBuilder build) {
  using V = MatmulValue;
  bool sharedRhs = typeOf(rhs).getRank() == 2 && typeOf(lhs).getRank() > 2;
  if (needed[0]) {
    // g op(B)^T = matmul(g, B) with B transposed unless op(B) is already B^T.
    Value dOpA = build(g, V::Grad, rhs, V::Rhs, false, !tr);
    if (!tl)
      grads[0] = dOpA;
    else if (!sharedRhs)
      grads[0] = build(rhs, V::Rhs, g, V::Grad, tr, true); // op(B) g^T
    else
      grads[0] = transposeLastTwo(b, loc, dOpA);
  }
  if (needed[1]) {
    if (sharedRhs) {
      // Sum over the batch: flatten op(A) to [R, K] and g to [R, N].
      Value opA = tl ? transposeLastTwo(b, loc, lhs) : lhs;
      Value a2 = flattenToMatrix(b, loc, opA);
      Value g2 = flattenToMatrix(b, loc, g);
      grads[1] = tr ? build(g2, V::Grad, a2, V::Lhs, true, false)  // g^T op(A)
                    : build(a2, V::Lhs, g2, V::Grad, true, false); // op(A)^T g
    } else {
      grads[1] = tr ? build(g, V::Grad, lhs, V::Lhs, true, tl)    // g^T op(A)
                    : build(lhs, V::Lhs, g, V::Grad, !tl, false); // op(A)^T g
    }
  }
}

LogicalResult MatmulOp::buildGradients(OpBuilder &b, ValueRange resultGrads,
                                       ArrayRef<bool> needed,
                                       SmallVectorImpl<Value> &grads) {
  initGrads(*this, grads);
  Location loc = gradLoc(*this);
  // Gradients are computed in the operands' element type.
  Type operandElement = typeOf(getLhs()).getElementType();
  Value g = resultGrads[0];
  if (typeOf(g).getElementType() != operandElement)
    g = castTo(b, loc, g,
               RankedTensorType::get(typeOf(g).getShape(), operandElement));
  buildMatmulGradients(
      b, loc, getLhs(), getRhs(), g, getTransposeLhs(), getTransposeRhs(),
      needed, grads,
      [&](Value x, MatmulValue, Value y, MatmulValue, bool tx, bool ty) {
        return buildMatmul(b, loc, x, y, tx, ty);
      });
  return success();
}

/// A scaled matmul of fp8 `lhs` and `rhs` with the given transposes and
/// scales, its result of element type `elementType`.
static Value buildScaledMatmul(OpBuilder &b, Location loc, Value lhs, Value rhs,
                               Value lhsScale, Value rhsScale,
                               bool transposeLhs, bool transposeRhs,
                               Type elementType) {
  ArrayRef<int64_t> l = typeOf(lhs).getShape(), r = typeOf(rhs).getShape();
  int64_t lr = l.size(), rr = r.size();
  SmallVector<int64_t> shape(l.drop_back(2));
  shape.push_back(transposeLhs ? l[lr - 1] : l[lr - 2]);
  shape.push_back(transposeRhs ? r[rr - 2] : r[rr - 1]);
  return ScaledMatmulOp::create(
      b, loc, RankedTensorType::get(shape, elementType), lhs, rhs, lhsScale,
      rhsScale,
      /*grad_history=*/Value(), transposeLhs, transposeRhs);
}

LogicalResult ScaledMatmulOp::buildGradients(OpBuilder &b,
                                             ValueRange resultGrads,
                                             ArrayRef<bool> needed,
                                             SmallVectorImpl<Value> &grads) {
  initGrads(*this, grads);
  if (!needed[0] && !needed[1])
    return success();
  Value history = getGradHistory();
  if (!history)
    return emitOpError("has no grad_history, the amax history that scales "
                       "its output gradient into f8E5M2; cannot "
                       "differentiate through it");
  Location loc = gradLoc(*this);
  MLIRContext *ctx = getContext();
  Type element = typeOf(getResult()).getElementType();
  Value lhsScale = getLhsScale(), rhsScale = getRhsScale();

  // The output gradient in E5M2, with the margin of the forward scales.
  int64_t margin = 0;
  if (auto scale = lhsScale.getDefiningOp<FP8ScaleOp>())
    margin = scale.getMargin();
  Value g = resultGrads[0];
  auto scalar = RankedTensorType::get({}, b.getF32Type());
  Type e5m2 = Float8E5M2Type::get(ctx);
  // Each op in its own statement: argument evaluation order differs
  // between compilers, and so would the order of the created ops.
  Value gScale = FP8ScaleOp::create(b, loc, scalar, history, e5m2,
                                    static_cast<uint64_t>(margin));
  auto quantized = QuantizeOp::create(
      b, loc, TypeRange{typeOf(g).clone(e5m2), scalar}, g, gScale);

  // As train.matmul's rule, on the saved fp8 operands and their scales.
  auto scaleOf = [&](MatmulValue value) {
    switch (value) {
    case MatmulValue::Lhs:
      return lhsScale;
    case MatmulValue::Rhs:
      return rhsScale;
    case MatmulValue::Grad:
      return gScale;
    }
    llvm_unreachable("unknown matmul value");
  };
  buildMatmulGradients(b, loc, getLhs(), getRhs(), quantized.getResult(),
                       getTransposeLhs(), getTransposeRhs(), needed, grads,
                       [&](Value x, MatmulValue xValue, Value y,
                           MatmulValue yValue, bool tx, bool ty) {
                         return buildScaledMatmul(b, loc, x, y, scaleOf(xValue),
                                                  scaleOf(yValue), tx, ty,
                                                  element);
                       });
  return success();
}

LogicalResult QuantizeOp::buildGradients(OpBuilder &b, ValueRange resultGrads,
                                         ArrayRef<bool> needed,
                                         SmallVectorImpl<Value> &grads) {
  if (failed(requireOnlyFirstResultGrad(*this, resultGrads)))
    return failure();
  initGrads(*this, grads);
  // Straight through: the gradient of the dequantized value.
  if (needed[0])
    grads[0] = castTo(
        b, gradLoc(*this), resultGrads[0],
        typeOf(resultGrads[0]).clone(typeOf(getInput()).getElementType()));
  return success();
}

LogicalResult EmbeddingOp::buildGradients(OpBuilder &b, ValueRange resultGrads,
                                          ArrayRef<bool> needed,
                                          SmallVectorImpl<Value> &grads) {
  initGrads(*this, grads);
  grads[0] = EmbeddingGradOp::create(b, gradLoc(*this), getTable().getType(),
                                     resultGrads[0], getIds(), getPart(),
                                     getPartsAttr());
  return success();
}

LogicalResult AttentionOp::buildGradients(OpBuilder &b, ValueRange resultGrads,
                                          ArrayRef<bool> needed,
                                          SmallVectorImpl<Value> &grads) {
  if (failed(requireOnlyFirstResultGrad(*this, resultGrads)))
    return failure();
  initGrads(*this, grads);
  auto grad = AttentionGradOp::create(
      b, gradLoc(*this), getQuery().getType(), getKey().getType(),
      getValue().getType(), resultGrads[0], getQuery(), getKey(), getValue(),
      getResult(), getLse(), getScaleAttr(), getCausalAttr(),
      getBlockRowsAttr());
  grads[0] = grad.getGradQuery();
  grads[1] = grad.getGradKey();
  grads[2] = grad.getGradValue();
  return success();
}

LogicalResult RotaryOp::buildGradients(OpBuilder &b, ValueRange resultGrads,
                                       ArrayRef<bool> needed,
                                       SmallVectorImpl<Value> &grads) {
  return buildInputGradient<RotaryGradOp>(*this, b, resultGrads, grads,
                                          getThetaAttr());
}

//===----------------------------------------------------------------------===//
// Losses and reductions
//===----------------------------------------------------------------------===//

LogicalResult CrossEntropyOp::buildGradients(OpBuilder &b,
                                             ValueRange resultGrads,
                                             ArrayRef<bool> needed,
                                             SmallVectorImpl<Value> &grads) {
  initGrads(*this, grads);
  grads[0] = CrossEntropyGradOp::create(
      b, gradLoc(*this), getLogits().getType(), resultGrads[0], getLogits(),
      getLabels(), getIgnoreIndexAttr());
  return success();
}

LogicalResult
VocabParallelStatsOp::buildGradients(OpBuilder &b, ValueRange resultGrads,
                                     ArrayRef<bool> needed,
                                     SmallVectorImpl<Value> &grads) {
  // Nothing flows into the maximum: the loss does not depend on the shift.
  initGrads(*this, grads);
  grads[0] = VocabParallelStatsGradOp::create(
      b, gradLoc(*this), getLogits().getType(), resultGrads[0], getLogits(),
      getMax(), getLabels(), getPart(), getPartsAttr());
  return success();
}

LogicalResult
CrossEntropyFromStatsOp::buildGradients(OpBuilder &b, ValueRange resultGrads,
                                        ArrayRef<bool> needed,
                                        SmallVectorImpl<Value> &grads) {
  initGrads(*this, grads);
  grads[0] = CrossEntropyFromStatsGradOp::create(
      b, gradLoc(*this), getStats().getType(), resultGrads[0], getStats(),
      getLabels(), getIgnoreIndexAttr());
  return success();
}

LogicalResult MseLossOp::buildGradients(OpBuilder &b, ValueRange resultGrads,
                                        ArrayRef<bool> needed,
                                        SmallVectorImpl<Value> &grads) {
  initGrads(*this, grads);
  Location loc = gradLoc(*this);
  Value dInput = MseLossGradOp::create(b, loc, getInput().getType(),
                                       resultGrads[0], getInput(), getTarget());
  if (needed[0])
    grads[0] = dInput;
  if (needed[1])
    grads[1] = ScaleOp::create(b, loc, getTarget().getType(), dInput,
                               b.getF64FloatAttr(-1.0));
  return success();
}

LogicalResult ReduceSumOp::buildGradients(OpBuilder &b, ValueRange resultGrads,
                                          ArrayRef<bool> needed,
                                          SmallVectorImpl<Value> &grads) {
  initGrads(*this, grads);
  Location loc = gradLoc(*this);
  Value g = castTo(b, loc, resultGrads[0],
                   RankedTensorType::get(typeOf(resultGrads[0]).getShape(),
                                         typeOf(getInput()).getElementType()));
  grads[0] = BroadcastOp::create(b, loc, getInput().getType(), g, getDims());
  return success();
}

LogicalResult BroadcastOp::buildGradients(OpBuilder &b, ValueRange resultGrads,
                                          ArrayRef<bool> needed,
                                          SmallVectorImpl<Value> &grads) {
  return buildInputGradient<ReduceSumOp>(*this, b, resultGrads, grads,
                                         getDims());
}

//===----------------------------------------------------------------------===//
// Shape ops
//===----------------------------------------------------------------------===//

/// copy_to_parallel: the sum over its grid axes of the gradients each
/// process computed for its part (TrainParallelOps.cpp).
LogicalResult CopyToParallelOp::buildGradients(OpBuilder &b,
                                               ValueRange resultGrads,
                                               ArrayRef<bool> needed,
                                               SmallVectorImpl<Value> &grads) {
  initGrads(*this, grads);
  if (!needed[0] || !resultGrads[0])
    return success();
  grads[0] = shard::AllReduceOp::create(
      b, gradLoc(*this), resultGrads[0].getType(), getGrid(), getGridAxes(),
      resultGrads[0], shard::ReductionKind::Sum);
  return success();
}

LogicalResult ReshapeOp::buildGradients(OpBuilder &b, ValueRange resultGrads,
                                        ArrayRef<bool> needed,
                                        SmallVectorImpl<Value> &grads) {
  return buildInputGradient<ReshapeOp>(*this, b, resultGrads, grads);
}

LogicalResult TransposeOp::buildGradients(OpBuilder &b, ValueRange resultGrads,
                                          ArrayRef<bool> needed,
                                          SmallVectorImpl<Value> &grads) {
  ArrayRef<int64_t> perm = getPermutation();
  SmallVector<int64_t> inverse(perm.size());
  for (auto [i, p] : llvm::enumerate(perm))
    inverse[p] = i;
  return buildInputGradient<TransposeOp>(*this, b, resultGrads, grads,
                                         ArrayRef<int64_t>(inverse));
}

LogicalResult SliceOp::buildGradients(OpBuilder &b, ValueRange resultGrads,
                                      ArrayRef<bool> needed,
                                      SmallVectorImpl<Value> &grads) {
  return buildInputGradient<SliceGradOp>(*this, b, resultGrads, grads,
                                         getOffsetsAttr(), getStridesAttr());
}

LogicalResult ConcatOp::buildGradients(OpBuilder &b, ValueRange resultGrads,
                                       ArrayRef<bool> needed,
                                       SmallVectorImpl<Value> &grads) {
  initGrads(*this, grads);
  Location loc = gradLoc(*this);
  int64_t rank = typeOf(getResult()).getRank();
  int64_t axis = static_cast<int64_t>(getAxis());
  if (axis < 0)
    axis += rank;
  int64_t offset = 0;
  for (auto [i, input] : llvm::enumerate(getInputs())) {
    SmallVector<int64_t> offsets(rank, 0);
    offsets[axis] = offset;
    offset += typeOf(input).getDimSize(axis);
    if (!needed[i])
      continue;
    grads[i] = SliceOp::create(b, loc, input.getType(), resultGrads[0], offsets,
                               /*strides=*/nullptr);
  }
  return success();
}

//===----------------------------------------------------------------------===//
// Convolutional networks
//===----------------------------------------------------------------------===//

LogicalResult Conv2dOp::buildGradients(OpBuilder &b, ValueRange resultGrads,
                                       ArrayRef<bool> needed,
                                       SmallVectorImpl<Value> &grads) {
  initGrads(*this, grads);
  Location loc = gradLoc(*this);
  if (needed[0])
    grads[0] = Conv2dGradInputOp::create(
        b, loc, getInput().getType(), resultGrads[0], getFilter(),
        getStridesAttr(), getPaddingAttr(), getDilationAttr(), getGroupsAttr());
  if (needed[1])
    grads[1] = Conv2dGradFilterOp::create(
        b, loc, getFilter().getType(), resultGrads[0], getInput(),
        getStridesAttr(), getPaddingAttr(), getDilationAttr(), getGroupsAttr());
  return success();
}

LogicalResult MaxPool2dOp::buildGradients(OpBuilder &b, ValueRange resultGrads,
                                          ArrayRef<bool> needed,
                                          SmallVectorImpl<Value> &grads) {
  return buildInputGradient<MaxPool2dGradOp>(
      *this, b, resultGrads, grads, getInput(), getKernelAttr(),
      getStridesAttr(), getPaddingAttr(), getCeilModeAttr());
}

LogicalResult AvgPool2dOp::buildGradients(OpBuilder &b, ValueRange resultGrads,
                                          ArrayRef<bool> needed,
                                          SmallVectorImpl<Value> &grads) {
  return buildInputGradient<AvgPool2dGradOp>(*this, b, resultGrads, grads,
                                             getKernelAttr(), getStridesAttr(),
                                             getPaddingAttr());
}

LogicalResult
UpsampleNearest2dOp::buildGradients(OpBuilder &b, ValueRange resultGrads,
                                    ArrayRef<bool> needed,
                                    SmallVectorImpl<Value> &grads) {
  return buildInputGradient<UpsampleNearest2dGradOp>(*this, b, resultGrads,
                                                     grads, getScaleAttr());
}
