//===- NormAttentionLowering.cpp - norms, rotary, attention ---------------===//
//
// layer_norm, rms_norm, rotary, attention and their gradients.
//
// Statistics, reductions and attention scores are computed in f32 (in f64
// when an operand is f64) and rounded once to the result type, so 16-bit
// inputs get fp32 statistics as the ops document. Normalizations reduce over
// the last dimension with linalg.reduce / linalg.generic; attention is a
// reference lowering that materializes the score matrix and uses
// linalg.batch_matmul (with transposing indexing maps) for its matmuls. Query
// heads that share a key/value head (grouped-query attention) are stacked as
// rows of one batch entry, so the group sum of dkey and dvalue is a plain
// contraction of the batched matmul.
//
//===----------------------------------------------------------------------===//

#include "Lowering.h"

#include "mlir/Dialect/Utils/ReshapeOpsUtils.h"
#include "mlir/Dialect/Utils/StructuredOpsUtils.h"
#include "mlir/IR/AffineMap.h"

#include <limits>

using namespace mlir;
using namespace mlir::memopt;

//===----------------------------------------------------------------------===//
// Helpers
//===----------------------------------------------------------------------===//

using GenericBody =
    llvm::function_ref<SmallVector<Value>(OpBuilder &, Location, ValueRange)>;

static RankedTensorType tensorTypeOf(Value v) {
  return cast<RankedTensorType>(v.getType());
}

static Type elementTypeOf(Value v) { return tensorTypeOf(v).getElementType(); }

/// A linalg.generic over `inputs` into `inits`; `body` gets the input scalars
/// followed by the current output values and returns the yielded values.
static SmallVector<Value> buildGeneric(OpBuilder &b, Location loc,
                                       ValueRange inputs, ValueRange inits,
                                       ArrayRef<AffineMap> maps,
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
static AffineMap getRowMap(MLIRContext *ctx, int64_t rank) {
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
static SmallVector<utils::IteratorType>
getIterators(int64_t rank, bool reduceLast, bool reduceLeading) {
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

//===----------------------------------------------------------------------===//
// rotary, rotary_grad
//===----------------------------------------------------------------------===//

/// Rotates the halves (x1, x2) = (x[..., :D/2], x[..., D/2:]) of the last
/// dimension of `input` (`... x S x D`) by the angles of HuggingFace Llama's
/// rotary embedding, or by their negation when `inverse` (the gradient):
///   out1 = x1 * cos - x2 * sin,  out2 = x2 * cos + x1 * sin.
/// As in HF, inv_freq[i] = 1 / theta^(2i / D), angle = s * inv_freq[i] and
/// cos / sin are f32; the rotation is computed in the compute type and
/// rounded once.
static Value buildRotary(OpBuilder &b, Location loc, Value input, double theta,
                         bool inverse) {
  MLIRContext *ctx = b.getContext();
  RankedTensorType type = tensorTypeOf(input);
  ArrayRef<int64_t> shape = type.getShape();
  int64_t rank = type.getRank();
  int64_t seqLen = shape[rank - 2], dim = shape[rank - 1], half = dim / 2;
  Type elementType = type.getElementType();
  Type c = getComputeType({elementType});
  Type f32 = b.getF32Type();

  // cos and sin tables [S, D/2], in f32.
  auto tableType = RankedTensorType::get({seqLen, half}, f32);
  SmallVector<Value> tables = buildGeneric(
      b, loc, ValueRange{},
      {createEmpty(b, loc, tableType), createEmpty(b, loc, tableType)},
      {b.getMultiDimIdentityMap(2), b.getMultiDimIdentityMap(2)},
      getIterators(2, false, false),
      [&](OpBuilder &nb, Location l, ValueRange) {
        auto toF32 = [&](Value index) -> Value {
          Value i64 = arith::IndexCastOp::create(nb, l, nb.getI64Type(), index);
          return arith::SIToFPOp::create(nb, l, f32, i64);
        };
        Value position = toF32(linalg::IndexOp::create(nb, l, 0));
        Value pair = toF32(linalg::IndexOp::create(nb, l, 1));
        // arange(0, D, 2) / D, then 1 / theta ** that, in f32.
        Value exponent = arith::DivFOp::create(
            nb, l,
            arith::MulFOp::create(nb, l, pair, createScalar(nb, l, f32, 2.0)),
            createScalar(nb, l, f32, static_cast<double>(dim)));
        Value power = math::PowFOp::create(
            nb, l, createScalar(nb, l, f32, theta), exponent);
        Value invFreq =
            arith::DivFOp::create(nb, l, createScalar(nb, l, f32, 1.0), power);
        Value angle = arith::MulFOp::create(nb, l, position, invFreq);
        return SmallVector<Value>{math::CosOp::create(nb, l, angle),
                                  math::SinOp::create(nb, l, angle)};
      });

  // The two halves of the last dimension.
  SmallVector<OpFoldResult> offsets(rank, b.getIndexAttr(0));
  SmallVector<OpFoldResult> sizes;
  for (int64_t size : shape.drop_back())
    sizes.push_back(b.getIndexAttr(size));
  sizes.push_back(b.getIndexAttr(half));
  SmallVector<OpFoldResult> strides(rank, b.getIndexAttr(1));
  SmallVector<OpFoldResult> secondOffsets(offsets);
  secondOffsets.back() = b.getIndexAttr(half);
  Value first =
      tensor::ExtractSliceOp::create(b, loc, input, offsets, sizes, strides);
  Value second = tensor::ExtractSliceOp::create(b, loc, input, secondOffsets,
                                                sizes, strides);

  auto halfType = tensorTypeOf(first);
  AffineMap identity = b.getMultiDimIdentityMap(rank);
  AffineMap tableMap = AffineMap::get(
      rank, 0,
      {getAffineDimExpr(rank - 2, ctx), getAffineDimExpr(rank - 1, ctx)}, ctx);
  SmallVector<Value> rotated = buildGeneric(
      b, loc, {first, second, tables[0], tables[1]},
      {createEmpty(b, loc, halfType), createEmpty(b, loc, halfType)},
      {identity, identity, tableMap, tableMap, identity, identity},
      getIterators(rank, false, false),
      [&](OpBuilder &nb, Location l, ValueRange args) {
        Value x1 = castScalar(nb, l, args[0], c);
        Value x2 = castScalar(nb, l, args[1], c);
        Value cos = castScalar(nb, l, args[2], c);
        Value sin = castScalar(nb, l, args[3], c);
        Value x1Cos = arith::MulFOp::create(nb, l, x1, cos);
        Value x2Sin = arith::MulFOp::create(nb, l, x2, sin);
        Value x2Cos = arith::MulFOp::create(nb, l, x2, cos);
        Value x1Sin = arith::MulFOp::create(nb, l, x1, sin);
        Value out1, out2;
        if (inverse) {
          out1 = arith::AddFOp::create(nb, l, x1Cos, x2Sin);
          out2 = arith::SubFOp::create(nb, l, x2Cos, x1Sin);
        } else {
          out1 = arith::SubFOp::create(nb, l, x1Cos, x2Sin);
          out2 = arith::AddFOp::create(nb, l, x2Cos, x1Sin);
        }
        return SmallVector<Value>{castScalar(nb, l, out1, elementType),
                                  castScalar(nb, l, out2, elementType)};
      });

  Value result = createEmpty(b, loc, type);
  result = tensor::InsertSliceOp::create(b, loc, rotated[0], result, offsets,
                                         sizes, strides);
  return tensor::InsertSliceOp::create(b, loc, rotated[1], result,
                                       secondOffsets, sizes, strides);
}

namespace {

struct RotaryLowering : public TrainOpLowering<train::RotaryOp> {
  using TrainOpLowering::TrainOpLowering;
  LogicalResult
  matchAndRewrite(train::RotaryOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    rewriter.replaceOp(op,
                       buildRotary(rewriter, op.getLoc(), adaptor.getInput(),
                                   op.getTheta().convertToDouble(),
                                   /*inverse=*/false));
    return success();
  }
};

struct RotaryGradLowering : public TrainOpLowering<train::RotaryGradOp> {
  using TrainOpLowering::TrainOpLowering;
  LogicalResult
  matchAndRewrite(train::RotaryGradOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    rewriter.replaceOp(op, buildRotary(rewriter, op.getLoc(), adaptor.getGrad(),
                                       op.getTheta().convertToDouble(),
                                       /*inverse=*/true));
    return success();
  }
};

} // namespace

//===----------------------------------------------------------------------===//
// attention, attention_grad
//===----------------------------------------------------------------------===//

namespace {

/// Shapes of one attention op and its grouped layout: the G = Hq / Hkv query
/// heads that read one key/value head are a dimension of their own, so that
/// query-shaped tensors [B, Hq, Sq, D] are read as [B, Hkv, G, Sq, D] (an
/// expand_shape, a view of any layout) next to key-shaped ones
/// [B, Hkv, Sk, D], and scores are [B, Hkv, G, Sq, Sk]. No operand is
/// collapsed: a collapse of a strided view (transposed heads) would make
/// bufferization copy it, outside the op's workspace.
struct AttentionLayout {
  /// The layout of attention or attention_grad `op` (operands `adaptor`).
  template <typename OpTy>
  AttentionLayout(OpBuilder &b, OpTy op, typename OpTy::Adaptor adaptor)
      : AttentionLayout(b, adaptor.getQuery(), adaptor.getKey(),
                        op.getScale().convertToDouble(), op.getCausal()) {}
  AttentionLayout(OpBuilder &b, Value query, Value key, double scale,
                  bool causal)
      : scale(scale), causal(causal) {
    ArrayRef<int64_t> qs = tensorTypeOf(query).getShape();
    ArrayRef<int64_t> ks = tensorTypeOf(key).getShape();
    batch = qs[0];
    queryHeads = qs[1];
    queryLen = qs[2];
    headDim = qs[3];
    kvHeads = ks[1];
    keyLen = ks[2];
    group = queryHeads / kvHeads;
    computeType = getComputeType({elementTypeOf(query)});
  }

  int64_t batch, queryHeads, queryLen, headDim, kvHeads, keyLen, group;
  double scale;
  bool causal;
  Type computeType;

  /// Loop dimensions of the contractions and row statistics.
  enum Dim : unsigned { kBatch, kHead, kGroup, kQuery, kKey, kHeadDim };

  /// [B, Hq, Sq, D] -> [B, Hkv, G, Sq, D] (and [B, Hq, Sq] ->
  /// [B, Hkv, G, Sq] for rows).
  Value splitHeads(OpBuilder &b, Location loc, Value t) const {
    SmallVector<int64_t> shape = {batch, kvHeads, group, queryLen};
    SmallVector<ReassociationIndices> groups = {{0}, {1, 2}, {3}};
    if (tensorTypeOf(t).getRank() == 4) {
      shape.push_back(headDim);
      groups.push_back({4});
    }
    auto type = RankedTensorType::get(shape, elementTypeOf(t));
    return tensor::ExpandShapeOp::create(b, loc, type, t, groups);
  }
  /// The inverse of splitHeads, on a new (row-major) tensor.
  Value joinHeads(OpBuilder &b, Location loc, Value t) const {
    SmallVector<ReassociationIndices> groups = {{0}, {1, 2}, {3}};
    if (tensorTypeOf(t).getRank() == 5)
      groups.push_back({4});
    return tensor::CollapseShapeOp::create(b, loc, t, groups);
  }

  /// [B, Hkv, G, Sq, Sk] in the compute type.
  RankedTensorType scoresType() const {
    return RankedTensorType::get({batch, kvHeads, group, queryLen, keyLen},
                                 computeType);
  }
  /// [B, Hkv, G, Sq] in the compute type.
  RankedTensorType rowStatsType() const {
    return RankedTensorType::get({batch, kvHeads, group, queryLen},
                                 computeType);
  }
  RankedTensorType queryGradType() const {
    return RankedTensorType::get({batch, kvHeads, group, queryLen, headDim},
                                 computeType);
  }
  RankedTensorType keyGradType() const {
    return RankedTensorType::get({batch, kvHeads, keyLen, headDim},
                                 computeType);
  }

  /// A zero-filled `resultType` accumulating sum(lhs * rhs) over the loop
  /// dimensions that `out` omits, in the compute type; each operand is
  /// indexed by the listed loop dimensions. The loops run in `loops` order,
  /// reductions last (innermost, as linalg.batch_matmul).
  Value buildContraction(OpBuilder &b, Location loc, Value lhs,
                         ArrayRef<Dim> lhsDims, Value rhs,
                         ArrayRef<Dim> rhsDims, RankedTensorType resultType,
                         ArrayRef<Dim> outDims, ArrayRef<Dim> loops) const {
    MLIRContext *ctx = b.getContext();
    auto map = [&](ArrayRef<Dim> dims) {
      SmallVector<AffineExpr> exprs;
      for (Dim d : dims)
        exprs.push_back(getAffineDimExpr(
            static_cast<unsigned>(llvm::find(loops, d) - loops.begin()), ctx));
      return AffineMap::get(loops.size(), 0, exprs, ctx);
    };
    SmallVector<utils::IteratorType> iterators;
    for (Dim d : loops)
      iterators.push_back(llvm::is_contained(outDims, d)
                              ? utils::IteratorType::parallel
                              : utils::IteratorType::reduction);
    Type acc = resultType.getElementType();
    return buildGeneric(
        b, loc, {lhs, rhs}, createFilled(b, loc, resultType, 0.0),
        {map(lhsDims), map(rhsDims), map(outDims)}, iterators,
        [&](OpBuilder &nb, Location l, ValueRange args) {
          Value prod =
              arith::MulFOp::create(nb, l, castScalar(nb, l, args[0], acc),
                                    castScalar(nb, l, args[1], acc));
          return SmallVector<Value>{
              arith::AddFOp::create(nb, l, args[2], prod)};
        })[0];
  }

  /// scores[b, h, g, i, j] = sum_d q[b, h, g, i, d] * k[b, h, j, d].
  Value buildScores(OpBuilder &b, Location loc, Value q, Value k) const {
    return buildContraction(b, loc, q,
                            {kBatch, kHead, kGroup, kQuery, kHeadDim}, k,
                            {kBatch, kHead, kKey, kHeadDim}, scoresType(),
                            {kBatch, kHead, kGroup, kQuery, kKey},
                            {kBatch, kHead, kGroup, kQuery, kKey, kHeadDim});
  }
  /// out[b, h, g, i, d] = sum_j p[b, h, g, i, j] * v[b, h, j, d].
  Value buildRowsTimesKeys(OpBuilder &b, Location loc, Value p, Value v) const {
    return buildContraction(b, loc, p, {kBatch, kHead, kGroup, kQuery, kKey}, v,
                            {kBatch, kHead, kKey, kHeadDim}, queryGradType(),
                            {kBatch, kHead, kGroup, kQuery, kHeadDim},
                            {kBatch, kHead, kGroup, kQuery, kHeadDim, kKey});
  }
  /// out[b, h, j, d] = sum_{g, i} p[b, h, g, i, j] * x[b, h, g, i, d]: the
  /// group sum of grouped-query attention's key and value gradients.
  Value buildColumnsTimesQueries(OpBuilder &b, Location loc, Value p,
                                 Value x) const {
    return buildContraction(b, loc, p, {kBatch, kHead, kGroup, kQuery, kKey}, x,
                            {kBatch, kHead, kGroup, kQuery, kHeadDim},
                            keyGradType(), {kBatch, kHead, kKey, kHeadDim},
                            {kBatch, kHead, kKey, kHeadDim, kGroup, kQuery});
  }

  /// In a generic over [B, Hkv, G, Sq, Sk]: `scale * score`, and whether the
  /// causal mask hides it (key j > query i + Sk - Sq, FlashAttention's
  /// bottom-right alignment); null when not causal.
  std::pair<Value, Value> scaledScore(OpBuilder &b, Location loc,
                                      Value score) const {
    Value scaled = arith::MulFOp::create(
        b, loc, score, createScalar(b, loc, computeType, scale));
    if (!causal)
      return {scaled, Value()};
    Value i = linalg::IndexOp::create(b, loc, kQuery);
    Value j = linalg::IndexOp::create(b, loc, kKey);
    Value limit = arith::AddIOp::create(
        b, loc, i, arith::ConstantIndexOp::create(b, loc, keyLen - queryLen));
    Value masked =
        arith::CmpIOp::create(b, loc, arith::CmpIPredicate::sgt, j, limit);
    return {scaled, masked};
  }

  /// P = exp(scale * scores - lse), 0 where masked: [B, Hkv, G, Sq, Sk] in
  /// the compute type, from scores and lse rows [B, Hkv, G, Sq], overwriting
  /// the scores.
  Value buildProbabilities(OpBuilder &b, Location loc, Value scores,
                           Value lseRows) const {
    MLIRContext *ctx = b.getContext();
    return buildGeneric(
        b, loc, {lseRows}, scores,
        {getRowMap(ctx, 5), AffineMap::getMultiDimIdentityMap(5, ctx)},
        getIterators(5, false, false),
        [&](OpBuilder &nb, Location l, ValueRange args) {
          auto [scaled, masked] = scaledScore(nb, l, args[1]);
          Value lse = castScalar(nb, l, args[0], computeType);
          Value p = math::ExpOp::create(
              nb, l, arith::SubFOp::create(nb, l, scaled, lse));
          if (masked)
            p = arith::SelectOp::create(
                nb, l, masked, createScalar(nb, l, computeType, 0.0), p);
          return SmallVector<Value>{p};
        })[0];
  }
};

} // namespace

namespace {

/// attention: scores = q k^T per key/value head and query head of its group,
/// m = rowmax(scale * scores), l = rowsum(exp(scale * scores - m)) over
/// unmasked keys, lse = m + log(l), P = exp(scale * scores - lse) (0 where
/// masked), out = P v. A fully masked row (Sq > Sk) gives out = 0 and
/// lse = -inf.
struct AttentionLowering : public TrainOpLowering<train::AttentionOp> {
  using TrainOpLowering::TrainOpLowering;
  LogicalResult
  matchAndRewrite(train::AttentionOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    MLIRContext *ctx = op.getContext();
    AttentionLayout layout(rewriter, op, adaptor);
    Type c = layout.computeType;
    Value q = layout.splitHeads(rewriter, loc, adaptor.getQuery());
    Value scores = layout.buildScores(rewriter, loc, q, adaptor.getKey());
    AffineMap identity = AffineMap::getMultiDimIdentityMap(5, ctx);
    AffineMap row = getRowMap(ctx, 5);
    SmallVector<utils::IteratorType> overKeys = getIterators(5, true, false);
    RankedTensorType rowType = layout.rowStatsType();
    double negInf = -std::numeric_limits<double>::infinity();

    Value rowMax = buildGeneric(
        rewriter, loc, scores, createFilled(rewriter, loc, rowType, negInf),
        {identity, row}, overKeys,
        [&](OpBuilder &b, Location l, ValueRange args) {
          // A masked element counts as -inf, so the output is read once
          // (the max stays a reduction a combiner matcher recognizes).
          auto [scaled, masked] = layout.scaledScore(b, l, args[0]);
          if (masked)
            scaled = arith::SelectOp::create(
                b, l, masked, createScalar(b, l, c, negInf), scaled);
          return SmallVector<Value>{
              arith::MaximumFOp::create(b, l, args[1], scaled)};
        })[0];
    Value rowSum = buildGeneric(
        rewriter, loc, {scores, rowMax},
        createFilled(rewriter, loc, rowType, 0.0), {identity, row, row},
        overKeys, [&](OpBuilder &b, Location l, ValueRange args) {
          auto [scaled, masked] = layout.scaledScore(b, l, args[0]);
          Value e = math::ExpOp::create(
              b, l, arith::SubFOp::create(b, l, scaled, args[1]));
          if (masked)
            e = arith::SelectOp::create(b, l, masked,
                                        createScalar(b, l, c, 0.0), e);
          return SmallVector<Value>{arith::AddFOp::create(b, l, args[2], e)};
        })[0];
    // lse overwrites the row sums, the probabilities the scores.
    Value lse = buildElementwiseInPlace(
        rewriter, loc, ValueRange{rowMax}, rowSum,
        [&](OpBuilder &b, Location l, ValueRange args) -> Value {
          return arith::AddFOp::create(b, l, args[0],
                                       math::LogOp::create(b, l, args[1]));
        });

    Value probs = layout.buildProbabilities(rewriter, loc, scores, lse);
    Value out =
        layout.buildRowsTimesKeys(rewriter, loc, probs, adaptor.getValue());
    out = castTensor(rewriter, loc, out, elementTypeOf(adaptor.getQuery()));
    lse = castTensor(rewriter, loc, lse, rewriter.getF32Type());
    rewriter.replaceOp(op, {layout.joinHeads(rewriter, loc, out),
                            layout.joinHeads(rewriter, loc, lse)});
    return success();
  }
};

/// attention_grad: P = exp(scale * q k^T - lse) (0 where masked),
/// dv = P^T do, dP = do v^T, D = rowsum(do * o), dS = P * (dP - D),
/// dq = scale * dS k, dk = scale * dS^T q. The contractions of dv and dk
/// run over the rows of all query heads of a group, which is the group sum
/// of grouped-query attention.
struct AttentionGradLowering : public TrainOpLowering<train::AttentionGradOp> {
  using TrainOpLowering::TrainOpLowering;
  LogicalResult
  matchAndRewrite(train::AttentionGradOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    MLIRContext *ctx = op.getContext();
    AttentionLayout layout(rewriter, op, adaptor);
    Type c = layout.computeType;
    double scale = layout.scale;
    Value dout = layout.splitHeads(rewriter, loc, adaptor.getGrad());
    Value q = layout.splitHeads(rewriter, loc, adaptor.getQuery());
    Value o = layout.splitHeads(rewriter, loc, adaptor.getOutput());
    Value k = adaptor.getKey();
    Value v = adaptor.getValue();
    Value lse = layout.splitHeads(rewriter, loc, adaptor.getLse());

    Value probs = layout.buildProbabilities(
        rewriter, loc, layout.buildScores(rewriter, loc, q, k), lse);
    Value dv = layout.buildColumnsTimesQueries(rewriter, loc, probs, dout);
    Value dprobs = layout.buildScores(rewriter, loc, dout, v);

    // D = rowsum(do * o) over the head dimension: [B, Hkv, G, Sq].
    AffineMap identity = AffineMap::getMultiDimIdentityMap(5, ctx);
    AffineMap row = getRowMap(ctx, 5);
    Value delta = buildGeneric(
        rewriter, loc, {dout, o},
        createFilled(rewriter, loc, layout.rowStatsType(), 0.0),
        {identity, identity, row}, getIterators(5, true, false),
        [&](OpBuilder &b, Location l, ValueRange args) {
          Value prod = arith::MulFOp::create(b, l, castScalar(b, l, args[0], c),
                                             castScalar(b, l, args[1], c));
          return SmallVector<Value>{arith::AddFOp::create(b, l, args[2], prod)};
        })[0];

    // scale * dS = scale * P * (dP - D), overwriting dP.
    Value dscores = buildGeneric(
        rewriter, loc, {probs, delta}, dprobs, {identity, row, identity},
        getIterators(5, false, false),
        [&](OpBuilder &b, Location l, ValueRange args) {
          Value diff = arith::SubFOp::create(b, l, args[2], args[1]);
          Value ds = arith::MulFOp::create(b, l, args[0], diff);
          return SmallVector<Value>{
              arith::MulFOp::create(b, l, ds, createScalar(b, l, c, scale))};
        })[0];
    Value dq = layout.buildRowsTimesKeys(rewriter, loc, dscores, k);
    Value dk = layout.buildColumnsTimesQueries(rewriter, loc, dscores, q);

    Type queryType = elementTypeOf(adaptor.getQuery());
    Type keyType = elementTypeOf(adaptor.getKey());
    Value dqOut = layout.joinHeads(rewriter, loc,
                                   castTensor(rewriter, loc, dq, queryType));
    Value dkOut = castTensor(rewriter, loc, dk, keyType);
    Value dvOut = castTensor(rewriter, loc, dv, keyType);
    rewriter.replaceOp(op, {dqOut, dkOut, dvOut});
    return success();
  }
};

} // namespace

void mlir::memopt::populateNormAttentionLoweringPatterns(
    RewritePatternSet &patterns) {
  patterns.add<LayerNormLowering, LayerNormGradLowering, RmsNormLowering,
               RmsNormGradLowering, RotaryLowering, RotaryGradLowering,
               AttentionLowering, AttentionGradLowering>(patterns.getContext());
}
