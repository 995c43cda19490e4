//===- LossLowering.cpp - cross_entropy, mse_loss and their gradients -----===//
//
// Lowers the losses: cross_entropy and mse_loss (reductions to a 0-d mean)
// and their gradients (elementwise generics scaled by the incoming 0-d
// gradient).
//
// The losses are documented to keep fp32: they compute in f32 when their
// inputs are narrower (autocast semantics) and round the result to the
// result type; f64 stays f64.
//
//===----------------------------------------------------------------------===//

#include "LinalgHelpers.h"
#include "Lowering.h"

#include <cmath>

using namespace mlir;
using namespace mlir::memopt;

//===----------------------------------------------------------------------===//
// Helpers
//===----------------------------------------------------------------------===//

/// getLossComputeType of the element types of a loss's `data` (its input,
/// or its gradient's result) and of the 0-d `loss` (the loss, or the
/// incoming gradient of a loss gradient).
static Type getLossComputeTypeOf(Type data, Type loss) {
  return getLossComputeType(cast<ShapedType>(data).getElementType(),
                            cast<ShapedType>(loss).getElementType());
}

/// The 0-d incoming gradient `grad` of a loss gradient, read as a scalar of
/// `computeType`.
static Value extractLossGrad(OpBuilder &b, Location loc, Value grad,
                             Type computeType) {
  return castScalar(b, loc, extractScalar(b, loc, grad), computeType);
}

/// Row statistics of `P... x V` logits in `computeType`, each of shape
/// `P...`: the row maximum (linalg.reduce over the last dimension) and the
/// sum of exp(logit - max) (a reduction generic). Nothing is collapsed, so
/// strided logits (a transpose or slice view) are read in place.
static std::pair<Value, Value>
buildRowLogSumExp(OpBuilder &b, Location loc, Value logits, Type computeType) {
  auto type = cast<RankedTensorType>(logits.getType());
  int64_t rank = type.getRank();
  auto statType =
      RankedTensorType::get(type.getShape().drop_back(), computeType);
  Value maxInit = createFilled(b, loc, statType, -INFINITY);
  Value rowMax =
      linalg::ReduceOp::create(
          b, loc, ValueRange{logits}, ValueRange{maxInit}, {rank - 1},
          [&](OpBuilder &nested, Location l, ValueRange args) {
            Value x = castScalar(nested, l, args[0], computeType);
            linalg::YieldOp::create(
                nested, l,
                Value(arith::MaximumFOp::create(nested, l, x, args[1])));
          })
          .getResult(0);
  MLIRContext *ctx = b.getContext();
  AffineMap perRow = getDroppedDimsMap(ctx, rank, {rank - 1});
  SmallVector<AffineMap> maps = {b.getMultiDimIdentityMap(rank), perRow,
                                 perRow};
  Value sumExp =
      linalg::GenericOp::create(
          b, loc, TypeRange{statType}, ValueRange{logits, rowMax},
          ValueRange{createFilled(b, loc, statType, 0.0)}, maps,
          getIterators(rank, {rank - 1}),
          [&](OpBuilder &nested, Location l, ValueRange args) {
            Value x = castScalar(nested, l, args[0], computeType);
            Value e = math::ExpOp::create(
                nested, l, arith::SubFOp::create(nested, l, x, args[1]));
            linalg::YieldOp::create(
                nested, l, Value(arith::AddFOp::create(nested, l, args[2], e)));
          })
          .getResult(0);
  return {rowMax, sumExp};
}

/// Logits of rank 1 (one position) as `1 x V` and their 0-d labels as `1`:
/// expanding is always a view, so the reductions below always have at least
/// one position dimension.
static void expandSinglePosition(OpBuilder &b, Location loc, Value &logits,
                                 Value &labels) {
  auto type = cast<RankedTensorType>(logits.getType());
  if (type.getRank() != 1)
    return;
  logits = reshapeStatic(
      b, loc, logits,
      RankedTensorType::get({1, type.getShape()[0]}, type.getElementType()));
  labels = reshapeStatic(
      b, loc, labels,
      RankedTensorType::get(
          {1}, cast<RankedTensorType>(labels.getType()).getElementType()));
}

/// Whether `label` (an integer of the labels' type) is not `ignoreIndex`.
/// An ignore_index that the labels' type cannot represent ignores nothing.
static Value isCounted(OpBuilder &b, Location loc, Value label,
                       int64_t ignoreIndex) {
  if (!llvm::isIntN(label.getType().getIntOrFloatBitWidth(), ignoreIndex))
    return arith::ConstantOp::create(b, loc, b.getBoolAttr(true));
  Value ignored = arith::ConstantOp::create(
      b, loc, b.getIntegerAttr(label.getType(), ignoreIndex));
  return arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ne, label,
                               ignored);
}

/// The number of counted positions (labels != ignore_index), a 0-d tensor
/// of `computeType`, summed in row-major order over the labels' shape.
static Value buildCount(OpBuilder &b, Location loc, Value labels,
                        int64_t ignoreIndex, Type computeType) {
  MLIRContext *ctx = b.getContext();
  int64_t rank = cast<RankedTensorType>(labels.getType()).getRank();
  SmallVector<AffineMap> maps = {b.getMultiDimIdentityMap(rank),
                                 AffineMap::get(rank, 0, {}, ctx)};
  return linalg::GenericOp::create(
             b, loc, TypeRange{RankedTensorType::get({}, computeType)},
             ValueRange{labels},
             ValueRange{createFilledScalar(b, loc, computeType, 0.0)}, maps,
             getIterators(rank, llvm::to_vector(llvm::seq<int64_t>(0, rank))),
             [&](OpBuilder &nested, Location l, ValueRange args) {
               Value counted = isCounted(nested, l, args[0], ignoreIndex);
               Value one = arith::SelectOp::create(
                   nested, l, counted,
                   createScalar(nested, l, computeType, 1.0),
                   createScalar(nested, l, computeType, 0.0));
               linalg::YieldOp::create(
                   nested, l,
                   Value(arith::AddFOp::create(nested, l, args[1], one)));
             })
      .getResult(0);
}

namespace {

//===----------------------------------------------------------------------===//
// Cross-entropy
//===----------------------------------------------------------------------===//

/// cross_entropy: mean over the counted positions of
/// `max + log(sum(exp(x - max))) - x[label]`. Reduced over the `P... x V`
/// shape itself (positions in row-major order, as one flat row index would
/// take them), never collapsed: collapsing a strided view of the logits (a
/// transpose or slice result) would copy it, a buffer no model counts.
struct CrossEntropyLowering : public TrainOpLowering<train::CrossEntropyOp> {
  using TrainOpLowering::TrainOpLowering;
  LogicalResult
  matchAndRewrite(train::CrossEntropyOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    auto resultType = cast<RankedTensorType>(op.getType());
    Type computeType =
        getLossComputeTypeOf(adaptor.getLogits().getType(), resultType);
    std::optional<int64_t> ignoreIndex = op.getIgnoreIndex();
    Value logits = adaptor.getLogits();
    Value labels = adaptor.getLabels();
    expandSinglePosition(rewriter, loc, logits, labels);
    int64_t positionRank =
        cast<RankedTensorType>(logits.getType()).getRank() - 1;
    auto [rowMax, sumExp] =
        buildRowLogSumExp(rewriter, loc, logits, computeType);

    // One reduction over the positions: the summed losses and the count.
    MLIRContext *ctx = rewriter.getContext();
    auto scalarType = RankedTensorType::get({}, computeType);
    AffineMap identity = rewriter.getMultiDimIdentityMap(positionRank);
    AffineMap toScalar = AffineMap::get(positionRank, 0, {}, ctx);
    SmallVector<AffineMap> maps = {identity, identity, identity, toScalar,
                                   toScalar};
    auto sums = linalg::GenericOp::create(
        rewriter, loc, TypeRange{scalarType, scalarType},
        ValueRange{labels, rowMax, sumExp},
        ValueRange{createFilledScalar(rewriter, loc, computeType, 0.0),
                   createFilledScalar(rewriter, loc, computeType, 0.0)},
        maps,
        getIterators(positionRank,
                     llvm::to_vector(llvm::seq<int64_t>(0, positionRank))),
        [&](OpBuilder &b, Location l, ValueRange args) {
          Value label = args[0];
          Value zero = createScalar(b, l, computeType, 0.0);
          Value one = createScalar(b, l, computeType, 1.0);
          Value counted;
          if (ignoreIndex) {
            // Ignored labels (e.g. -100) are not valid indices: read column 0.
            counted = isCounted(b, l, label, *ignoreIndex);
            label = arith::SelectOp::create(
                b, l, counted, label, createScalar(b, l, label.getType(), 0));
          }
          SmallVector<Value> indices;
          for (int64_t d = 0; d < positionRank; ++d)
            indices.push_back(linalg::IndexOp::create(b, l, d));
          indices.push_back(
              arith::IndexCastOp::create(b, l, b.getIndexType(), label));
          Value picked =
              castScalar(b, l, tensor::ExtractOp::create(b, l, logits, indices),
                         computeType);
          Value lse = arith::AddFOp::create(b, l, args[1],
                                            math::LogOp::create(b, l, args[2]));
          Value loss = arith::SubFOp::create(b, l, lse, picked);
          Value count = one;
          if (counted) {
            loss = arith::SelectOp::create(b, l, counted, loss, zero);
            count = arith::SelectOp::create(b, l, counted, one, zero);
          }
          linalg::YieldOp::create(
              b, l,
              ValueRange{arith::AddFOp::create(b, l, args[3], loss),
                         arith::AddFOp::create(b, l, args[4], count)});
        });
    // mean = total / count (NaN when every position is ignored, as PyTorch).
    Value mean = buildElementwise(
        rewriter, loc, resultType, sums.getResults(),
        [&](OpBuilder &b, Location l, ValueRange args) {
          return castScalar(b, l, arith::DivFOp::create(b, l, args[0], args[1]),
                            resultType.getElementType());
        });
    rewriter.replaceOp(op, mean);
    return success();
  }
};

/// cross_entropy_grad: `grad / count * (softmax(x) - onehot(label))`, zero
/// on ignored rows; over the `P... x V` shape, uncollapsed (as cross_entropy).
struct CrossEntropyGradLowering
    : public TrainOpLowering<train::CrossEntropyGradOp> {
  using TrainOpLowering::TrainOpLowering;
  LogicalResult
  matchAndRewrite(train::CrossEntropyGradOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    auto resultType = cast<RankedTensorType>(op.getType());
    Type elementType = resultType.getElementType();
    Type computeType =
        getLossComputeTypeOf(resultType, adaptor.getGrad().getType());
    std::optional<int64_t> ignoreIndex = op.getIgnoreIndex();
    Value logits = adaptor.getLogits();
    Value labels = adaptor.getLabels();
    expandSinglePosition(rewriter, loc, logits, labels);
    auto logitsType = cast<RankedTensorType>(logits.getType());
    int64_t rank = logitsType.getRank();
    auto [rowMax, sumExp] =
        buildRowLogSumExp(rewriter, loc, logits, computeType);

    Value count;
    if (ignoreIndex)
      count = extractScalar(
          rewriter, loc,
          buildCount(rewriter, loc, labels, *ignoreIndex, computeType));
    else
      count = createScalar(
          rewriter, loc, computeType,
          static_cast<double>(product(logitsType.getShape().drop_back())));
    Value grad = extractLossGrad(rewriter, loc, adaptor.getGrad(), computeType);
    Value factor = arith::DivFOp::create(rewriter, loc, grad, count);

    MLIRContext *ctx = rewriter.getContext();
    AffineMap identity = rewriter.getMultiDimIdentityMap(rank);
    AffineMap perRow = getDroppedDimsMap(ctx, rank, {rank - 1});
    SmallVector<AffineMap> maps = {identity, perRow, perRow, perRow, identity};
    auto gradLogitsType =
        RankedTensorType::get(logitsType.getShape(), elementType);
    auto generic = linalg::GenericOp::create(
        rewriter, loc, TypeRange{gradLogitsType},
        ValueRange{logits, rowMax, sumExp, labels},
        ValueRange{createEmpty(rewriter, loc, gradLogitsType)}, maps,
        getIterators(rank), [&](OpBuilder &b, Location l, ValueRange args) {
          Value x = castScalar(b, l, args[0], computeType);
          Value p = arith::DivFOp::create(
              b, l,
              math::ExpOp::create(b, l,
                                  arith::SubFOp::create(b, l, x, args[1])),
              args[2]);
          Value column = linalg::IndexOp::create(b, l, rank - 1);
          Value label = args[3];
          Value isLabel = arith::CmpIOp::create(
              b, l, arith::CmpIPredicate::eq, column,
              arith::IndexCastOp::create(b, l, b.getIndexType(), label));
          Value zero = createScalar(b, l, computeType, 0.0);
          Value onehot = arith::SelectOp::create(
              b, l, isLabel, createScalar(b, l, computeType, 1.0), zero);
          Value d = arith::MulFOp::create(
              b, l, arith::SubFOp::create(b, l, p, onehot), factor);
          if (ignoreIndex)
            d = arith::SelectOp::create(
                b, l, isCounted(b, l, label, *ignoreIndex), d, zero);
          linalg::YieldOp::create(b, l, castScalar(b, l, d, elementType));
        });
    Value result = generic.getResult(0);
    if (result.getType() != resultType)
      result = reshapeStatic(rewriter, loc, result, resultType);
    rewriter.replaceOp(op, result);
    return success();
  }
};

//===----------------------------------------------------------------------===//
// Mean squared error
//===----------------------------------------------------------------------===//

/// mse_loss: `sum((x - t)^2) / n`.
struct MseLossLowering : public TrainOpLowering<train::MseLossOp> {
  using TrainOpLowering::TrainOpLowering;
  LogicalResult
  matchAndRewrite(train::MseLossOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    auto resultType = cast<RankedTensorType>(op.getType());
    auto inputType = cast<RankedTensorType>(adaptor.getInput().getType());
    Type computeType = getLossComputeTypeOf(inputType, resultType);
    int64_t rank = inputType.getRank();
    SmallVector<int64_t> allDims = llvm::to_vector(llvm::seq<int64_t>(0, rank));
    AffineMap identity = rewriter.getMultiDimIdentityMap(rank);
    SmallVector<AffineMap> maps = {identity, identity,
                                   AffineMap::get(rank, 0, {}, getContext())};
    Value sum =
        linalg::GenericOp::create(
            rewriter, loc, TypeRange{RankedTensorType::get({}, computeType)},
            ValueRange{adaptor.getInput(), adaptor.getTarget()},
            ValueRange{createFilledScalar(rewriter, loc, computeType, 0.0)},
            maps, getIterators(rank, allDims),
            [&](OpBuilder &b, Location l, ValueRange args) {
              Value d = arith::SubFOp::create(
                  b, l, castScalar(b, l, args[0], computeType),
                  castScalar(b, l, args[1], computeType));
              linalg::YieldOp::create(
                  b, l,
                  Value(arith::AddFOp::create(
                      b, l, args[2], arith::MulFOp::create(b, l, d, d))));
            })
            .getResult(0);
    double n = static_cast<double>(inputType.getNumElements());
    Value mean = buildElementwise(
        rewriter, loc, resultType, sum,
        [&](OpBuilder &b, Location l, ValueRange args) {
          Value q = arith::DivFOp::create(b, l, args[0],
                                          createScalar(b, l, computeType, n));
          return castScalar(b, l, q, resultType.getElementType());
        });
    rewriter.replaceOp(op, mean);
    return success();
  }
};

/// mse_loss_grad: `(x - t) * (2 / n) * grad`, PyTorch's operation order.
struct MseLossGradLowering : public TrainOpLowering<train::MseLossGradOp> {
  using TrainOpLowering::TrainOpLowering;
  LogicalResult
  matchAndRewrite(train::MseLossGradOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    auto resultType = cast<RankedTensorType>(op.getType());
    Type elementType = resultType.getElementType();
    Type computeType =
        getLossComputeTypeOf(resultType, adaptor.getGrad().getType());
    Value grad = extractLossGrad(rewriter, loc, adaptor.getGrad(), computeType);
    double norm = 2.0 / static_cast<double>(resultType.getNumElements());
    Value result =
        buildElementwise(rewriter, loc, resultType,
                         ValueRange{adaptor.getInput(), adaptor.getTarget()},
                         [&](OpBuilder &b, Location l, ValueRange args) {
                           Value d = arith::SubFOp::create(
                               b, l, castScalar(b, l, args[0], computeType),
                               castScalar(b, l, args[1], computeType));
                           d = arith::MulFOp::create(
                               b, l, d, createScalar(b, l, computeType, norm));
                           d = arith::MulFOp::create(b, l, d, grad);
                           return castScalar(b, l, d, elementType);
                         });
    rewriter.replaceOp(op, result);
    return success();
  }
};

} // namespace

void mlir::memopt::populateLossLoweringPatterns(RewritePatternSet &patterns) {
  patterns.add<CrossEntropyLowering, CrossEntropyGradLowering, MseLossLowering,
               MseLossGradLowering>(patterns.getContext());
}
