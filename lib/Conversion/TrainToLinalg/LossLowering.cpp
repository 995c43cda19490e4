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

/// The maximum of each row of `P... x V` logits in `computeType` (a
/// linalg.reduce over the last dimension, into `P...`).
static Value buildRowMax(OpBuilder &b, Location loc, Value logits,
                         Type computeType) {
  auto type = cast<RankedTensorType>(logits.getType());
  int64_t rank = type.getRank();
  auto statType =
      RankedTensorType::get(type.getShape().drop_back(), computeType);
  Value maxInit = createFilled(b, loc, statType, -INFINITY);
  return linalg::ReduceOp::create(
             b, loc, ValueRange{logits}, ValueRange{maxInit}, {rank - 1},
             [&](OpBuilder &nested, Location l, ValueRange args) {
               Value x = castScalar(nested, l, args[0], computeType);
               linalg::YieldOp::create(
                   nested, l,
                   Value(arith::MaximumFOp::create(nested, l, x, args[1])));
             })
      .getResult(0);
}

/// Row statistics of `P... x V` logits in `computeType`, each of shape
/// `P...`: the row maximum (buildRowMax) and the sum of exp(logit - max) (a
/// reduction generic). Nothing is collapsed, so strided logits (a transpose
/// or slice view) are read in place.
static std::pair<Value, Value>
buildRowLogSumExp(OpBuilder &b, Location loc, Value logits, Type computeType) {
  auto type = cast<RankedTensorType>(logits.getType());
  int64_t rank = type.getRank();
  auto statType =
      RankedTensorType::get(type.getShape().drop_back(), computeType);
  Value rowMax = buildRowMax(b, loc, logits, computeType);
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

/// The mean of a per-position loss over the counted positions (labels !=
/// `ignoreIndex`) as a 0-d tensor of `resultType`: one reduction over the
/// positions (row-major order) into the summed losses and the count, in
/// `computeType`, then their quotient (NaN when every position is ignored,
/// as PyTorch). `inputs` (the labels first) are read per position;
/// `lossOf` receives their scalars, an ignored label replaced by 0 (a valid
/// index), and returns the position's loss.
static Value
buildMeanLoss(OpBuilder &b, Location loc, RankedTensorType resultType,
              Type computeType, ValueRange inputs,
              std::optional<int64_t> ignoreIndex,
              function_ref<Value(OpBuilder &, Location, ValueRange)> lossOf) {
  MLIRContext *ctx = b.getContext();
  int64_t rank = cast<RankedTensorType>(inputs[0].getType()).getRank();
  auto scalarType = RankedTensorType::get({}, computeType);
  SmallVector<AffineMap> maps(inputs.size(), b.getMultiDimIdentityMap(rank));
  maps.append(2, AffineMap::get(rank, 0, {}, ctx));
  auto sums = linalg::GenericOp::create(
      b, loc, TypeRange{scalarType, scalarType}, inputs,
      ValueRange{createFilledScalar(b, loc, computeType, 0.0),
                 createFilledScalar(b, loc, computeType, 0.0)},
      maps, getIterators(rank, llvm::to_vector(llvm::seq<int64_t>(0, rank))),
      [&](OpBuilder &nested, Location l, ValueRange args) {
        SmallVector<Value> scalars(args.drop_back(2));
        Value zero = createScalar(nested, l, computeType, 0.0);
        Value one = createScalar(nested, l, computeType, 1.0);
        Value counted;
        if (ignoreIndex) {
          counted = isCounted(nested, l, scalars[0], *ignoreIndex);
          scalars[0] = arith::SelectOp::create(
              nested, l, counted, scalars[0],
              createScalar(nested, l, scalars[0].getType(), 0));
        }
        Value loss = lossOf(nested, l, scalars);
        Value count = one;
        if (counted) {
          loss = arith::SelectOp::create(nested, l, counted, loss, zero);
          count = arith::SelectOp::create(nested, l, counted, one, zero);
        }
        Value total = args[args.size() - 2], number = args.back();
        linalg::YieldOp::create(
            nested, l,
            ValueRange{arith::AddFOp::create(nested, l, total, loss),
                       arith::AddFOp::create(nested, l, number, count)});
      });
  return buildElementwise(
      b, loc, resultType, sums.getResults(),
      [&](OpBuilder &nested, Location l, ValueRange args) {
        return castScalar(nested, l,
                          arith::DivFOp::create(nested, l, args[0], args[1]),
                          resultType.getElementType());
      });
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

    Value mean = buildMeanLoss(
        rewriter, loc, resultType, computeType,
        ValueRange{labels, rowMax, sumExp}, ignoreIndex,
        [&](OpBuilder &b, Location l, ValueRange args) {
          SmallVector<Value> indices;
          for (int64_t d = 0; d < positionRank; ++d)
            indices.push_back(linalg::IndexOp::create(b, l, d));
          indices.push_back(
              arith::IndexCastOp::create(b, l, b.getIndexType(), args[0]));
          Value picked =
              castScalar(b, l, tensor::ExtractOp::create(b, l, logits, indices),
                         computeType);
          Value lse = arith::AddFOp::create(b, l, args[1],
                                            math::LogOp::create(b, l, args[2]));
          return Value(arith::SubFOp::create(b, l, lse, picked));
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
// Vocabulary-parallel cross-entropy
//===----------------------------------------------------------------------===//

/// Row `k` of `2 x P...` statistics, a `P...` view.
static Value sliceStat(OpBuilder &b, Location loc, Value stats, int64_t k) {
  auto type = cast<RankedTensorType>(stats.getType());
  int64_t rank = type.getRank();
  SmallVector<OpFoldResult> offsets(rank, b.getIndexAttr(0));
  offsets[0] = b.getIndexAttr(k);
  SmallVector<OpFoldResult> sizes = {b.getIndexAttr(1)};
  for (int64_t size : type.getShape().drop_front())
    sizes.push_back(b.getIndexAttr(size));
  SmallVector<OpFoldResult> strides(rank, b.getIndexAttr(1));
  auto rowType = RankedTensorType::get(type.getShape().drop_front(),
                                       type.getElementType());
  return tensor::ExtractSliceOp::create(b, loc, rowType, stats, offsets, sizes,
                                        strides);
}

/// Whether `label` (an integer) names local column `column` of the part
/// starting at `offset` (index values).
static Value isLocalLabel(OpBuilder &b, Location loc, Value label, Value column,
                          Value offset) {
  Value index = arith::IndexCastOp::create(b, loc, b.getIndexType(), label);
  Value local = arith::SubIOp::create(b, loc, index, offset);
  return arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq, column, local);
}

/// row_max: a linalg.reduce (maximum) over the last dimension.
struct RowMaxLowering : public TrainOpLowering<train::RowMaxOp> {
  using TrainOpLowering::TrainOpLowering;
  LogicalResult
  matchAndRewrite(train::RowMaxOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    Type computeType = cast<RankedTensorType>(op.getType()).getElementType();
    Value max = buildRowMax(rewriter, loc, adaptor.getLogits(), computeType);
    rewriter.replaceOp(op, max);
    return success();
  }
};

/// vocab_parallel_stats: one reduction over `2 x P... x V` into the
/// `2 x P...` result: row 0 sums exp(x - max), row 1 sums x - max at the
/// label's local column (a single term, so exact) and 0 elsewhere.
struct VocabParallelStatsLowering
    : public TrainOpLowering<train::VocabParallelStatsOp> {
  using TrainOpLowering::TrainOpLowering;
  LogicalResult
  matchAndRewrite(train::VocabParallelStatsOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    auto resultType = cast<RankedTensorType>(op.getType());
    Type computeType = resultType.getElementType();
    auto logitsType = cast<RankedTensorType>(adaptor.getLogits().getType());
    int64_t rank = logitsType.getRank() + 1;
    Value offset = getVocabPartOffset(rewriter, loc, adaptor.getPart(),
                                      logitsType.getShape().back());
    MLIRContext *ctx = rewriter.getContext();
    AffineMap perRow = getDroppedDimsMap(ctx, rank, {0, rank - 1});
    SmallVector<AffineMap> maps = {getDroppedDimsMap(ctx, rank, {0}), perRow,
                                   perRow,
                                   getDroppedDimsMap(ctx, rank, {rank - 1})};
    auto generic = linalg::GenericOp::create(
        rewriter, loc, TypeRange{resultType},
        ValueRange{adaptor.getLogits(), adaptor.getMax(), adaptor.getLabels()},
        ValueRange{createFilled(rewriter, loc, resultType, 0.0)}, maps,
        getIterators(rank, {rank - 1}),
        [&](OpBuilder &b, Location l, ValueRange args) {
          Value shifted = arith::SubFOp::create(
              b, l, castScalar(b, l, args[0], computeType), args[1]);
          Value zero = createScalar(b, l, computeType, 0.0);
          Value row = linalg::IndexOp::create(b, l, 0);
          Value column = linalg::IndexOp::create(b, l, rank - 1);
          Value isSum =
              arith::CmpIOp::create(b, l, arith::CmpIPredicate::eq, row,
                                    arith::ConstantIndexOp::create(b, l, 0));
          Value target = arith::SelectOp::create(
              b, l, isLocalLabel(b, l, args[2], column, offset), shifted, zero);
          Value term = arith::SelectOp::create(
              b, l, isSum, math::ExpOp::create(b, l, shifted), target);
          linalg::YieldOp::create(
              b, l, Value(arith::AddFOp::create(b, l, args[3], term)));
        });
    rewriter.replaceOp(op, generic.getResult(0));
    return success();
  }
};

/// vocab_parallel_stats_grad: `grad[0] * exp(x - max) + grad[1] * onehot`,
/// elementwise over the logits.
struct VocabParallelStatsGradLowering
    : public TrainOpLowering<train::VocabParallelStatsGradOp> {
  using TrainOpLowering::TrainOpLowering;
  LogicalResult
  matchAndRewrite(train::VocabParallelStatsGradOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    auto resultType = cast<RankedTensorType>(op.getType());
    Type elementType = resultType.getElementType();
    Type computeType =
        cast<RankedTensorType>(adaptor.getMax().getType()).getElementType();
    int64_t rank = resultType.getRank();
    Value offset = getVocabPartOffset(rewriter, loc, adaptor.getPart(),
                                      resultType.getShape().back());
    Value dSum = sliceStat(rewriter, loc, adaptor.getGrad(), 0);
    Value dTarget = sliceStat(rewriter, loc, adaptor.getGrad(), 1);
    MLIRContext *ctx = rewriter.getContext();
    AffineMap identity = rewriter.getMultiDimIdentityMap(rank);
    AffineMap perRow = getDroppedDimsMap(ctx, rank, {rank - 1});
    SmallVector<AffineMap> maps = {identity, perRow, perRow,
                                   perRow,   perRow, identity};
    auto generic = linalg::GenericOp::create(
        rewriter, loc, TypeRange{resultType},
        ValueRange{adaptor.getLogits(), adaptor.getMax(), adaptor.getLabels(),
                   dSum, dTarget},
        ValueRange{createEmpty(rewriter, loc, resultType)}, maps,
        getIterators(rank), [&](OpBuilder &b, Location l, ValueRange args) {
          Value shifted = arith::SubFOp::create(
              b, l, castScalar(b, l, args[0], computeType), args[1]);
          Value column = linalg::IndexOp::create(b, l, rank - 1);
          Value d = arith::MulFOp::create(b, l, args[3],
                                          math::ExpOp::create(b, l, shifted));
          Value target = arith::SelectOp::create(
              b, l, isLocalLabel(b, l, args[2], column, offset), args[4],
              createScalar(b, l, computeType, 0.0));
          d = arith::AddFOp::create(b, l, d, target);
          linalg::YieldOp::create(b, l, castScalar(b, l, d, elementType));
        });
    rewriter.replaceOp(op, generic.getResult(0));
    return success();
  }
};

/// cross_entropy_from_stats: mean over the counted positions of
/// `log(sum) - target`, one reduction into the summed losses and the count.
struct CrossEntropyFromStatsLowering
    : public TrainOpLowering<train::CrossEntropyFromStatsOp> {
  using TrainOpLowering::TrainOpLowering;
  LogicalResult
  matchAndRewrite(train::CrossEntropyFromStatsOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    auto resultType = cast<RankedTensorType>(op.getType());
    Type computeType =
        cast<RankedTensorType>(adaptor.getStats().getType()).getElementType();
    Value sum = sliceStat(rewriter, loc, adaptor.getStats(), 0);
    Value target = sliceStat(rewriter, loc, adaptor.getStats(), 1);
    Value mean = buildMeanLoss(
        rewriter, loc, resultType, computeType,
        ValueRange{adaptor.getLabels(), sum, target}, op.getIgnoreIndex(),
        [&](OpBuilder &b, Location l, ValueRange args) {
          return Value(arith::SubFOp::create(
              b, l, math::LogOp::create(b, l, args[1]), args[2]));
        });
    rewriter.replaceOp(op, mean);
    return success();
  }
};

/// cross_entropy_from_stats_grad: `grad / (count * sum)` and
/// `-grad / count` per counted position, 0 on ignored ones.
struct CrossEntropyFromStatsGradLowering
    : public TrainOpLowering<train::CrossEntropyFromStatsGradOp> {
  using TrainOpLowering::TrainOpLowering;
  LogicalResult
  matchAndRewrite(train::CrossEntropyFromStatsGradOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    auto resultType = cast<RankedTensorType>(op.getType());
    Type computeType = resultType.getElementType();
    std::optional<int64_t> ignoreIndex = op.getIgnoreIndex();
    Value labels = adaptor.getLabels();
    auto labelsType = cast<RankedTensorType>(labels.getType());
    Value count =
        ignoreIndex
            ? extractScalar(
                  rewriter, loc,
                  buildCount(rewriter, loc, labels, *ignoreIndex, computeType))
            : createScalar(rewriter, loc, computeType,
                           static_cast<double>(labelsType.getNumElements()));
    Value grad = extractLossGrad(rewriter, loc, adaptor.getGrad(), computeType);
    Value factor = arith::DivFOp::create(rewriter, loc, grad, count);
    int64_t rank = resultType.getRank();
    MLIRContext *ctx = rewriter.getContext();
    AffineMap identity = rewriter.getMultiDimIdentityMap(rank);
    SmallVector<AffineMap> maps = {identity, getDroppedDimsMap(ctx, rank, {0}),
                                   identity};
    auto generic = linalg::GenericOp::create(
        rewriter, loc, TypeRange{resultType},
        ValueRange{adaptor.getStats(), labels},
        ValueRange{createEmpty(rewriter, loc, resultType)}, maps,
        getIterators(rank), [&](OpBuilder &b, Location l, ValueRange args) {
          Value row = linalg::IndexOp::create(b, l, 0);
          Value isSum =
              arith::CmpIOp::create(b, l, arith::CmpIPredicate::eq, row,
                                    arith::ConstantIndexOp::create(b, l, 0));
          Value d = arith::SelectOp::create(
              b, l, isSum, arith::DivFOp::create(b, l, factor, args[0]),
              arith::NegFOp::create(b, l, factor));
          if (ignoreIndex)
            d = arith::SelectOp::create(
                b, l, isCounted(b, l, args[1], *ignoreIndex), d,
                createScalar(b, l, computeType, 0.0));
          linalg::YieldOp::create(b, l, d);
        });
    rewriter.replaceOp(op, generic.getResult(0));
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
               MseLossGradLowering, RowMaxLowering, VocabParallelStatsLowering,
               VocabParallelStatsGradLowering, CrossEntropyFromStatsLowering,
               CrossEntropyFromStatsGradLowering>(patterns.getContext());
}
