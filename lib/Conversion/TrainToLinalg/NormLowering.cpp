//===- NormLowering.cpp - layer_norm, rms_norm ----------------------------===//
//
// layer_norm, rms_norm and their gradients, and the helpers they share with
// AttentionLowering.cpp (NormAttentionHelpers.h).
//
// Statistics and reductions are computed in f32 (in f64 when an operand is
// f64) and rounded once to the result type, so 16-bit inputs get fp32
// statistics as the ops document. Normalizations reduce over the last
// dimension with linalg.reduce / linalg.generic.
//
//===----------------------------------------------------------------------===//

#include "Lowering.h"
#include "NormAttentionHelpers.h"

#include "mlir/Dialect/Utils/StructuredOpsUtils.h"
#include "mlir/IR/AffineMap.h"

using namespace mlir;
using namespace mlir::memopt;
using namespace mlir::memopt::normattn;

//===----------------------------------------------------------------------===//
// Helpers
//===----------------------------------------------------------------------===//

RankedTensorType normattn::tensorTypeOf(Value v) {
  return cast<RankedTensorType>(v.getType());
}

Type normattn::elementTypeOf(Value v) {
  return tensorTypeOf(v).getElementType();
}

/// A linalg.generic over `inputs` into `inits`; `body` gets the input scalars
/// followed by the current output values and returns the yielded values.
SmallVector<Value>
normattn::buildGeneric(OpBuilder &b, Location loc, ValueRange inputs,
                       ValueRange inits, ArrayRef<AffineMap> maps,
                       ArrayRef<utils::IteratorType> iterators,
                       GenericBody body) {
  SmallVector<Type> resultTypes(inits.getTypes());
  auto generic = linalg::GenericOp::create(
      b, loc, resultTypes, inputs, inits, maps, iterators,
      [&](OpBuilder &nested, Location nestedLoc, ValueRange args) {
        linalg::YieldOp::create(nested, nestedLoc,
                                body(nested, nestedLoc, args));
      });
  return SmallVector<Value>(generic.getResults());
}

/// (d0, ..., d{rank-1}) -> (d0, ..., d{rank-2}): one value per row.
AffineMap normattn::getRowMap(MLIRContext *ctx, int64_t rank) {
  SmallVector<AffineExpr> exprs;
  for (int64_t dim = 0; dim < rank - 1; ++dim)
    exprs.push_back(getAffineDimExpr(dim, ctx));
  return AffineMap::get(rank, 0, exprs, ctx);
}

/// (d0, ..., d{rank-1}) -> (d{rank-1}): one value per column.
static AffineMap getColumnMap(MLIRContext *ctx, int64_t rank) {
  return AffineMap::get(rank, 0, getAffineDimExpr(rank - 1, ctx), ctx);
}

/// Parallel loops, except the last one (a reduction over rows) or all but the
/// last one (a reduction over columns).
SmallVector<utils::IteratorType>
normattn::getIterators(int64_t rank, bool reduceLast, bool reduceLeading) {
  SmallVector<utils::IteratorType> iterators(
      rank, reduceLeading ? utils::IteratorType::reduction
                          : utils::IteratorType::parallel);
  iterators.back() = reduceLast ? utils::IteratorType::reduction
                                : utils::IteratorType::parallel;
  return iterators;
}

//===----------------------------------------------------------------------===//
// layer_norm, rms_norm
//===----------------------------------------------------------------------===//

namespace {

/// Maps and iterators of a normalization over the last dimension.
struct LastDimNorm {
  LastDimNorm(MLIRContext *ctx, RankedTensorType inputType, Type computeType)
      : rank(inputType.getRank()), size(inputType.getShape().back()),
        identity(AffineMap::getMultiDimIdentityMap(rank, ctx)),
        row(getRowMap(ctx, rank)), column(getColumnMap(ctx, rank)),
        statsType(RankedTensorType::get(inputType.getShape().drop_back(),
                                        computeType)),
        paramType(RankedTensorType::get({size}, computeType)) {}

  int64_t rank;
  /// The normalized (last) dimension.
  int64_t size;
  AffineMap identity, row, column;
  /// Row statistics and per-column sums, in the compute type.
  RankedTensorType statsType, paramType;

  SmallVector<utils::IteratorType> parallel() const {
    return getIterators(rank, false, false);
  }
  SmallVector<utils::IteratorType> overColumns() const {
    return getIterators(rank, true, false);
  }
  SmallVector<utils::IteratorType> overRows() const {
    return getIterators(rank, false, true);
  }
};

/// layer_norm: mean and biased variance of each row in the compute type (two
/// passes), rstd = 1 / sqrt(var + eps), y = (x - mean) * rstd * gamma + beta
/// rounded once to the input type; mean and rstd are returned as f32.
struct LayerNormLowering : public TrainOpLowering<train::LayerNormOp> {
  using TrainOpLowering::TrainOpLowering;
  LogicalResult
  matchAndRewrite(train::LayerNormOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    Value x = adaptor.getInput(), gamma = adaptor.getGamma(),
          beta = adaptor.getBeta();
    RankedTensorType xType = tensorTypeOf(x);
    Type c = getComputeType(
        {xType.getElementType(), elementTypeOf(gamma), elementTypeOf(beta)});
    LastDimNorm norm(op.getContext(), xType, c);
    double n = static_cast<double>(norm.size);

    Value sum =
        buildReduceSum(rewriter, loc, x, {norm.rank - 1}, norm.statsType);
    // mean and rstd overwrite the sums they come from.
    Value mean = buildMeanInPlace(rewriter, loc, sum, n);
    Value squares =
        buildGeneric(rewriter, loc, {x, mean},
                     createFilled(rewriter, loc, norm.statsType, 0.0),
                     {norm.identity, norm.row, norm.row}, norm.overColumns(),
                     [&](OpBuilder &b, Location l, ValueRange args) {
                       Value centered = arith::SubFOp::create(
                           b, l, castScalar(b, l, args[0], c), args[1]);
                       Value square =
                           arith::MulFOp::create(b, l, centered, centered);
                       return SmallVector<Value>{
                           arith::AddFOp::create(b, l, args[2], square)};
                     })[0];
    Value rstd =
        buildRstd(rewriter, loc, squares, n, op.getEpsilon().convertToDouble());
    Value y = buildGeneric(
        rewriter, loc, {x, mean, rstd, gamma, beta},
        createEmpty(rewriter, loc, xType),
        {norm.identity, norm.row, norm.row, norm.column, norm.column,
         norm.identity},
        norm.parallel(), [&](OpBuilder &b, Location l, ValueRange args) {
          Value centered = arith::SubFOp::create(
              b, l, castScalar(b, l, args[0], c), args[1]);
          Value xhat = arith::MulFOp::create(b, l, centered, args[2]);
          Value scaled =
              arith::MulFOp::create(b, l, xhat, castScalar(b, l, args[3], c));
          Value shifted =
              arith::AddFOp::create(b, l, scaled, castScalar(b, l, args[4], c));
          return SmallVector<Value>{
              castScalar(b, l, shifted, xType.getElementType())};
        })[0];
    Type f32 = rewriter.getF32Type();
    rewriter.replaceOp(op, {y, castTensor(rewriter, loc, mean, f32),
                            castTensor(rewriter, loc, rstd, f32)});
    return success();
  }
};

} // namespace

/// The gradient of a normalization over the last dimension of `x`, as
/// PyTorch's native_layer_norm_backward (`mean` given) and rms_norm backward
/// (`mean` null): with xhat = (x - mean) * rstd (x * rstd without a mean) and
/// g = dy * gamma,
///   dx = rstd * (g - mean(g) - xhat * mean(g * xhat))   (per row; no mean(g)
///                                                       without a mean)
///   dgamma = sum over rows of dy * xhat, dbeta = sum over rows of dy (only
///   with a mean).
/// Returns dx, dgamma[, dbeta], rounded to the types of x and gamma.
static SmallVector<Value> buildNormGrad(OpBuilder &rewriter, Location loc,
                                        Value dy, Value x, Value mean,
                                        Value rstd, Value gamma) {
  bool centered = static_cast<bool>(mean);
  RankedTensorType xType = tensorTypeOf(x);
  Type gammaType = elementTypeOf(gamma);
  Type c =
      getComputeType({xType.getElementType(), elementTypeOf(dy), gammaType});
  LastDimNorm norm(rewriter.getContext(), xType, c);
  double n = static_cast<double>(norm.size);

  SmallVector<Value> inputs = {dy, x};
  SmallVector<AffineMap> inputMaps = {norm.identity, norm.identity};
  if (centered) {
    inputs.push_back(mean);
    inputMaps.push_back(norm.row);
  }
  inputs.append({rstd, gamma});
  inputMaps.append({norm.row, norm.column});
  // The scalars of the first output (of a generic over `inputs`), or of the
  // first output of a generic over `inputs` without gamma.
  unsigned firstOut = inputs.size(), firstOutNoGamma = inputs.size() - 1;
  // The row and column sums: mean(g) and dbeta only when centered.
  unsigned sums = centered ? 2 : 1;

  // The per-element terms, from args = dy, x, [mean,] rstd[, gamma]: g only
  // when gamma is among the inputs (the column sums do not need it).
  struct Terms {
    Value dy, xhat, rstd, g;
  };
  auto terms = [&](OpBuilder &b, Location l, ValueRange args, bool withG) {
    Value dyC = castScalar(b, l, args[0], c);
    Value rstdC = castScalar(b, l, args[centered ? 3 : 2], c);
    Value centeredX =
        centered
            ? Value(arith::SubFOp::create(b, l, castScalar(b, l, args[1], c),
                                          castScalar(b, l, args[2], c)))
            : castScalar(b, l, args[1], c);
    Value xhat = arith::MulFOp::create(b, l, centeredX, rstdC);
    Value g = withG ? arith::MulFOp::create(
                          b, l, dyC, castScalar(b, l, args[firstOut - 1], c))
                    : Value();
    return Terms{dyC, xhat, rstdC, g};
  };

  // Row sums of [g and] g * xhat.
  // Accumulators of their own (one tensor for both would be copied).
  SmallVector<Value> zeroRows;
  for (unsigned i = 0; i < sums; ++i)
    zeroRows.push_back(createFilled(rewriter, loc, norm.statsType, 0.0));
  SmallVector<AffineMap> rowSumMaps(inputMaps);
  rowSumMaps.append(sums, norm.row);
  SmallVector<Value> rowSums = buildGeneric(
      rewriter, loc, inputs, zeroRows, rowSumMaps, norm.overColumns(),
      [&](OpBuilder &b, Location l, ValueRange args) {
        Terms t = terms(b, l, args, /*withG=*/true);
        Value gx = arith::MulFOp::create(b, l, t.g, t.xhat);
        SmallVector<Value> yields;
        if (centered)
          yields.push_back(arith::AddFOp::create(b, l, args[firstOut], t.g));
        yields.push_back(arith::AddFOp::create(b, l, args.back(), gx));
        return yields;
      });

  SmallVector<Value> dxInputs(inputs);
  dxInputs.append(rowSums);
  SmallVector<AffineMap> dxMaps(inputMaps);
  dxMaps.append(sums, norm.row);
  dxMaps.push_back(norm.identity);
  Value dx = buildGeneric(
      rewriter, loc, dxInputs, createEmpty(rewriter, loc, xType), dxMaps,
      norm.parallel(), [&](OpBuilder &b, Location l, ValueRange args) {
        Terms t = terms(b, l, args, /*withG=*/true);
        Value count = createScalar(b, l, c, n);
        Value meanG =
            centered ? Value(arith::DivFOp::create(b, l, args[firstOut], count))
                     : Value();
        Value meanGx =
            arith::DivFOp::create(b, l, args[firstOut + sums - 1], count);
        Value inner = arith::SubFOp::create(
            b, l,
            centered ? Value(arith::SubFOp::create(b, l, t.g, meanG)) : t.g,
            arith::MulFOp::create(b, l, t.xhat, meanGx));
        Value result = arith::MulFOp::create(b, l, t.rstd, inner);
        return SmallVector<Value>{
            castScalar(b, l, result, xType.getElementType())};
      })[0];

  // Column sums of dy * xhat [and dy].
  SmallVector<Value> zeroColumns;
  for (unsigned i = 0; i < sums; ++i)
    zeroColumns.push_back(createFilled(rewriter, loc, norm.paramType, 0.0));
  SmallVector<AffineMap> columnSumMaps(
      ArrayRef<AffineMap>(inputMaps).drop_back());
  columnSumMaps.append(sums, norm.column);
  SmallVector<Value> columnSums = buildGeneric(
      rewriter, loc, ValueRange(inputs).drop_back(), zeroColumns, columnSumMaps,
      norm.overRows(), [&](OpBuilder &b, Location l, ValueRange args) {
        Terms t = terms(b, l, args, /*withG=*/false);
        Value dyx = arith::MulFOp::create(b, l, t.dy, t.xhat);
        SmallVector<Value> yields = {
            arith::AddFOp::create(b, l, args[firstOutNoGamma], dyx)};
        if (centered)
          yields.push_back(
              arith::AddFOp::create(b, l, args[firstOutNoGamma + 1], t.dy));
        return yields;
      });
  SmallVector<Value> results = {dx};
  for (Value sum : columnSums)
    results.push_back(castTensor(rewriter, loc, sum, gammaType));
  return results;
}

namespace {

/// layer_norm_grad (buildNormGrad with the mean).
struct LayerNormGradLowering : public TrainOpLowering<train::LayerNormGradOp> {
  using TrainOpLowering::TrainOpLowering;
  LogicalResult
  matchAndRewrite(train::LayerNormGradOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    rewriter.replaceOp(op,
                       buildNormGrad(rewriter, op.getLoc(), adaptor.getGrad(),
                                     adaptor.getInput(), adaptor.getMean(),
                                     adaptor.getRstd(), adaptor.getGamma()));
    return success();
  }
};

/// rms_norm: rstd = 1 / sqrt(mean(x^2) + eps) per row in the compute type,
/// y = x * rstd * gamma rounded once to the input type; rstd as f32.
struct RmsNormLowering : public TrainOpLowering<train::RmsNormOp> {
  using TrainOpLowering::TrainOpLowering;
  LogicalResult
  matchAndRewrite(train::RmsNormOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    Value x = adaptor.getInput(), gamma = adaptor.getGamma();
    RankedTensorType xType = tensorTypeOf(x);
    Type c = getComputeType({xType.getElementType(), elementTypeOf(gamma)});
    LastDimNorm norm(op.getContext(), xType, c);

    Value squares = buildGeneric(
        rewriter, loc, x, createFilled(rewriter, loc, norm.statsType, 0.0),
        {norm.identity, norm.row}, norm.overColumns(),
        [&](OpBuilder &b, Location l, ValueRange args) {
          Value xC = castScalar(b, l, args[0], c);
          Value square = arith::MulFOp::create(b, l, xC, xC);
          return SmallVector<Value>{
              arith::AddFOp::create(b, l, args[1], square)};
        })[0];
    Value rstd =
        buildRstd(rewriter, loc, squares, static_cast<double>(norm.size),
                  op.getEpsilon().convertToDouble());
    Value y = buildGeneric(
        rewriter, loc, {x, rstd, gamma}, createEmpty(rewriter, loc, xType),
        {norm.identity, norm.row, norm.column, norm.identity}, norm.parallel(),
        [&](OpBuilder &b, Location l, ValueRange args) {
          Value xhat = arith::MulFOp::create(b, l, castScalar(b, l, args[0], c),
                                             args[1]);
          Value scaled =
              arith::MulFOp::create(b, l, xhat, castScalar(b, l, args[2], c));
          return SmallVector<Value>{
              castScalar(b, l, scaled, xType.getElementType())};
        })[0];
    rewriter.replaceOp(
        op, {y, castTensor(rewriter, loc, rstd, rewriter.getF32Type())});
    return success();
  }
};

/// rms_norm_grad (buildNormGrad without a mean).
struct RmsNormGradLowering : public TrainOpLowering<train::RmsNormGradOp> {
  using TrainOpLowering::TrainOpLowering;
  LogicalResult
  matchAndRewrite(train::RmsNormGradOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    rewriter.replaceOp(op, buildNormGrad(rewriter, op.getLoc(),
                                         adaptor.getGrad(), adaptor.getInput(),
                                         /*mean=*/Value(), adaptor.getRstd(),
                                         adaptor.getGamma()));
    return success();
  }
};

} // namespace

void mlir::memopt::populateNormLoweringPatterns(RewritePatternSet &patterns) {
  patterns.add<LayerNormLowering, LayerNormGradLowering, RmsNormLowering,
               RmsNormGradLowering>(patterns.getContext());
}
