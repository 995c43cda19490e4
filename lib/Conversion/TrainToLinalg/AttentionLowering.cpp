//===- AttentionLowering.cpp - rotary, attention --------------------------===//
//
// rotary, attention and their gradients.
//
// Attention scores are computed in f32 (in f64 when an operand is f64) and
// rounded once to the result type, so 16-bit inputs get fp32 statistics as
// the ops document. Attention walks the queries in tiles of rows (an
// scf.for), so only one tile's scores are ever materialized; its matmuls are
// linalg.generic contractions. Query heads that share a key/value head
// (grouped-query attention) are a dimension of their own, so the group sum of
// dkey and dvalue is a plain contraction.
//
//===----------------------------------------------------------------------===//

#include "Lowering.h"
#include "NormAttentionHelpers.h"

#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Utils/ReshapeOpsUtils.h"
#include "mlir/Dialect/Utils/StructuredOpsUtils.h"
#include "mlir/IR/AffineMap.h"

#include <limits>

using namespace mlir;
using namespace mlir::memopt;
using namespace mlir::memopt::normattn;

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

/// `dest` filled with `value`.
static Value fillTensor(OpBuilder &b, Location loc, Value dest, double value) {
  Value scalar = createScalar(b, loc, elementTypeOf(dest), value);
  return linalg::FillOp::create(b, loc, scalar, dest).getResult(0);
}

/// `value` converted elementwise into `dest` (of the same shape).
static Value castInto(OpBuilder &b, Location loc, Value value, Value dest) {
  Type type = elementTypeOf(dest);
  return buildElementwiseInto(
      b, loc, value, dest,
      [&](OpBuilder &nb, Location l, ValueRange args) -> SmallVector<Value> {
        return {castScalar(nb, l, args[0], type)};
      })[0];
}

/// Shapes of one attention op and its grouped layout: the G = Hq / Hkv query
/// heads that read one key/value head are a dimension of their own, so that
/// query-shaped tensors [B, Hq, Sq, D] are read as [B, Hkv, G, Sq, D] (an
/// expand_shape, a view of any layout) next to key-shaped ones
/// [B, Hkv, Sk, D], and a tile's scores are [B, Hkv, G, T, Sk]. No operand
/// is collapsed: a collapse of a strided view (transposed heads) would make
/// bufferization copy it, outside the op's workspace.
///
/// The queries are processed in tiles of T rows (getTileRows), one
/// iteration of an scf.for each: a tile's temporaries are allocated at the
/// start of the iteration and freed in it, and its rows of the results are
/// written in place (extract_slice / insert_slice of the loop-carried
/// results).
struct AttentionLayout {
  /// The layout of attention or attention_grad `op` (operands `adaptor`).
  template <typename OpTy>
  AttentionLayout(OpTy op, typename OpTy::Adaptor adaptor)
      : AttentionLayout(adaptor.getQuery(), adaptor.getKey(),
                        op.getScale().convertToDouble(), op.getCausal(),
                        op.getTileRows()) {}
  AttentionLayout(Value query, Value key, double scale, bool causal,
                  int64_t tileRows)
      : tileRows(tileRows), scale(scale), causal(causal) {
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
  /// Query rows per tile (a divisor of queryLen).
  int64_t tileRows;
  double scale;
  bool causal;
  Type computeType;
  /// The first query row of the current tile (the loop's induction
  /// variable), while buildTileLoop builds its body.
  Value tileStart;
  /// Under the causal mask, the keys the current tile's rows see: [0,
  /// keyEnd), keyEnd = clamp(tileStart + T + Sk - Sq, 0, Sk); the keys after
  /// them are masked for every row of the tile, so the tile's contractions
  /// and row statistics skip them (its buffers keep their full static
  /// shapes: only views of their first keyEnd keys are computed). Null when
  /// not causal: every key is seen.
  Value keyEnd;

  /// Loop dimensions of the contractions and row statistics.
  enum Dim : unsigned { kBatch, kHead, kGroup, kQuery, kKey, kHeadDim };

  /// [B, Hkv, G, rows] (with [D] appended when `withHeadDim`).
  RankedTensorType groupedType(int64_t rows, bool withHeadDim,
                               Type elementType) const {
    SmallVector<int64_t> shape = {batch, kvHeads, group, rows};
    if (withHeadDim)
      shape.push_back(headDim);
    return RankedTensorType::get(shape, elementType);
  }

  /// [B, Hq, Sq, D] -> [B, Hkv, G, Sq, D] (and [B, Hq, Sq] ->
  /// [B, Hkv, G, Sq] for rows).
  Value splitHeads(OpBuilder &b, Location loc, Value t) const {
    SmallVector<ReassociationIndices> groups = {{0}, {1, 2}, {3}};
    bool withHeadDim = tensorTypeOf(t).getRank() == 4;
    if (withHeadDim)
      groups.push_back({4});
    return tensor::ExpandShapeOp::create(
        b, loc, groupedType(queryLen, withHeadDim, elementTypeOf(t)), t,
        groups);
  }
  /// The inverse of splitHeads, on a new (row-major) tensor.
  Value joinHeads(OpBuilder &b, Location loc, Value t) const {
    SmallVector<ReassociationIndices> groups = {{0}, {1, 2}, {3}};
    if (tensorTypeOf(t).getRank() == 5)
      groups.push_back({4});
    return tensor::CollapseShapeOp::create(b, loc, t, groups);
  }

  /// A tile's scores [B, Hkv, G, T, Sk] in the compute type.
  RankedTensorType scoresType() const {
    return RankedTensorType::get({batch, kvHeads, group, tileRows, keyLen},
                                 computeType);
  }
  /// A tile's row statistics [B, Hkv, G, T] in the compute type.
  RankedTensorType rowStatsType() const {
    return groupedType(tileRows, false, computeType);
  }
  /// A tile's rows of a query-shaped result [B, Hkv, G, T, D] in the compute
  /// type.
  RankedTensorType queryTileType() const {
    return groupedType(tileRows, true, computeType);
  }
  RankedTensorType keyGradType() const {
    return RankedTensorType::get({batch, kvHeads, keyLen, headDim},
                                 computeType);
  }

  /// Offsets, sizes and strides of the window of a tensor of `shape` that
  /// keeps dimension `dim` to [offset, offset + size) and every other whole.
  using Window =
      std::tuple<SmallVector<OpFoldResult>, SmallVector<OpFoldResult>,
                 SmallVector<OpFoldResult>>;
  static Window getWindow(OpBuilder &b, ArrayRef<int64_t> shape, unsigned dim,
                          OpFoldResult offset, OpFoldResult size) {
    SmallVector<OpFoldResult> offsets(shape.size(), b.getIndexAttr(0));
    SmallVector<OpFoldResult> strides(shape.size(), b.getIndexAttr(1));
    SmallVector<OpFoldResult> sizes;
    for (int64_t extent : shape)
      sizes.push_back(b.getIndexAttr(extent));
    offsets[dim] = offset;
    sizes[dim] = size;
    return {offsets, sizes, strides};
  }
  /// The current tile's rows of a grouped tensor of `shape`.
  Window tileWindow(OpBuilder &b, ArrayRef<int64_t> shape) const {
    return getWindow(b, shape, kQuery, tileStart, b.getIndexAttr(tileRows));
  }
  /// The current tile's rows of a grouped tensor (a view).
  Value extractTile(OpBuilder &b, Location loc, Value t) const {
    RankedTensorType type = tensorTypeOf(t);
    auto [offsets, sizes, strides] = tileWindow(b, type.getShape());
    return tensor::ExtractSliceOp::create(
        b, loc,
        groupedType(tileRows, type.getRank() == 5, type.getElementType()), t,
        offsets, sizes, strides);
  }
  /// `tile` written as the current tile's rows of `into`.
  Value insertTile(OpBuilder &b, Location loc, Value tile, Value into) const {
    auto [offsets, sizes, strides] =
        tileWindow(b, tensorTypeOf(into).getShape());
    return tensor::InsertSliceOp::create(b, loc, tile, into, offsets, sizes,
                                         strides);
  }

  /// The keys of `t` the current tile sees (dimension `keyDim`): a view of
  /// its first keyEnd keys under the causal mask, else `t` itself.
  Value sliceKeys(OpBuilder &b, Location loc, Value t, unsigned keyDim) const {
    if (!keyEnd)
      return t;
    auto [offsets, sizes, strides] = keyWindow(b, t, keyDim);
    return tensor::ExtractSliceOp::create(b, loc, t, offsets, sizes, strides);
  }
  /// `part` (sliceKeys of `into` over dimension `keyDim`, updated) written
  /// back into `into`. The same window as the slice's, so bufferization
  /// updates `into` in place.
  Value insertKeys(OpBuilder &b, Location loc, Value part, Value into,
                   unsigned keyDim) const {
    if (!keyEnd)
      return part;
    auto [offsets, sizes, strides] = keyWindow(b, into, keyDim);
    return tensor::InsertSliceOp::create(b, loc, part, into, offsets, sizes,
                                         strides);
  }
  /// The first keyEnd keys of `t` (dimension `keyDim`).
  Window keyWindow(OpBuilder &b, Value t, unsigned keyDim) const {
    return getWindow(b, tensorTypeOf(t).getShape(), keyDim, b.getIndexAttr(0),
                     keyEnd);
  }

  /// An scf.for over the query tiles carrying `inits`: `body` receives the
  /// carried values (tileStart being the tile's first row) and returns
  /// their updates. Returns the loop's results.
  SmallVector<Value> buildTileLoop(
      RewriterBase &b, Location loc, ValueRange inits,
      llvm::function_ref<SmallVector<Value>(OpBuilder &, Location, ValueRange)>
          body) {
    Value lower = arith::ConstantIndexOp::create(b, loc, 0);
    Value upper = arith::ConstantIndexOp::create(b, loc, queryLen);
    Value step = arith::ConstantIndexOp::create(b, loc, tileRows);
    auto loop = scf::ForOp::create(
        b, loc, lower, upper, step, inits,
        [&](OpBuilder &nb, Location l, Value row, ValueRange carried) {
          tileStart = row;
          keyEnd = Value();
          if (causal) {
            Value end =
                arith::AddIOp::create(nb, l, row,
                                      arith::ConstantIndexOp::create(
                                          nb, l, tileRows + keyLen - queryLen));
            Value zero = arith::ConstantIndexOp::create(nb, l, 0);
            Value keys = arith::ConstantIndexOp::create(nb, l, keyLen);
            Value low = arith::MaxSIOp::create(nb, l, end, zero);
            keyEnd = arith::MinSIOp::create(nb, l, low, keys);
          }
          scf::YieldOp::create(nb, l, body(nb, l, carried));
        });
    tileStart = Value();
    keyEnd = Value();
    // A tile's buffers are all allocated before its first computation, as
    // the op's are (allocateUpFront): at that moment the op's operands,
    // results and whole workspace are live together, as the model counts.
    Block *tile = loop.getBody();
    allocateUpFront(b, tile, nullptr, tile->getTerminator());
    return SmallVector<Value>(loop.getResults());
  }

  /// `resultType` accumulating sum(lhs * rhs) over the loop dimensions that
  /// `out` omits, in the compute type, onto `init` (a zero-filled new tensor
  /// when null); each operand is indexed by the listed loop dimensions. The
  /// loops run in `loops` order, reductions last (innermost, as
  /// linalg.batch_matmul).
  Value buildContraction(OpBuilder &b, Location loc, Value lhs,
                         ArrayRef<Dim> lhsDims, Value rhs,
                         ArrayRef<Dim> rhsDims, RankedTensorType resultType,
                         ArrayRef<Dim> outDims, ArrayRef<Dim> loops,
                         Value init) const {
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
    if (!init)
      init = createFilled(b, loc, resultType, 0.0);
    return buildGeneric(
        b, loc, {lhs, rhs}, init, {map(lhsDims), map(rhsDims), map(outDims)},
        iterators, [&](OpBuilder &nb, Location l, ValueRange args) {
          Value prod =
              arith::MulFOp::create(nb, l, castScalar(nb, l, args[0], acc),
                                    castScalar(nb, l, args[1], acc));
          return SmallVector<Value>{
              arith::AddFOp::create(nb, l, args[2], prod)};
        })[0];
  }

  /// scores[b, h, g, i, j] = sum_d q[b, h, g, i, d] * k[b, h, j, d] over a
  /// tile's rows of q and the keys they see (sliceKeys): a view of a new
  /// [B, Hkv, G, T, Sk] tensor.
  Value buildScores(OpBuilder &b, Location loc, Value q, Value k) const {
    // One op per statement: the IR's order must not depend on the
    // compiler's argument evaluation order.
    Value full = createEmpty(b, loc, scoresType());
    Value scores = sliceKeys(b, loc, full, kKey);
    Value zeros = fillTensor(b, loc, scores, 0.0);
    Value keys = sliceKeys(b, loc, k, 2);
    return buildContraction(
        b, loc, q, {kBatch, kHead, kGroup, kQuery, kHeadDim}, keys,
        {kBatch, kHead, kKey, kHeadDim}, scoresType(),
        {kBatch, kHead, kGroup, kQuery, kKey},
        {kBatch, kHead, kGroup, kQuery, kKey, kHeadDim}, zeros);
  }
  /// out[b, h, g, i, d] = sum_j p[b, h, g, i, j] * v[b, h, j, d] onto the
  /// zero-filled tile `init`.
  Value buildRowsTimesKeys(OpBuilder &b, Location loc, Value p, Value v,
                           Value init) const {
    Value values = sliceKeys(b, loc, v, 2);
    return buildContraction(
        b, loc, p, {kBatch, kHead, kGroup, kQuery, kKey}, values,
        {kBatch, kHead, kKey, kHeadDim}, queryTileType(),
        {kBatch, kHead, kGroup, kQuery, kHeadDim},
        {kBatch, kHead, kGroup, kQuery, kHeadDim, kKey}, init);
  }
  /// The current tile's rows of `into` (a grouped query-shaped result) set
  /// to p v (buildRowsTimesKeys): summed in those rows when their type is
  /// the compute type, else in a compute-type tile rounded into them.
  /// Returns the tile, for insertTile.
  Value buildRowsTimesKeysTile(OpBuilder &b, Location loc, Value p, Value v,
                               Value into) const {
    Value tile = extractTile(b, loc, into);
    bool narrower = elementTypeOf(into) != computeType;
    Value acc = narrower ? createEmpty(b, loc, queryTileType()) : tile;
    Value sum = buildRowsTimesKeys(b, loc, p, v, fillTensor(b, loc, acc, 0.0));
    return narrower ? castInto(b, loc, sum, tile) : sum;
  }
  /// acc[b, h, j, d] += sum_{g, i} p[b, h, g, i, j] * x[b, h, g, i, d] over
  /// a tile's rows: the group sum of grouped-query attention's key and
  /// value gradients.
  Value buildColumnsTimesQueries(OpBuilder &b, Location loc, Value p, Value x,
                                 Value acc) const {
    Value seen = sliceKeys(b, loc, acc, 2);
    Value sum =
        buildContraction(b, loc, p, {kBatch, kHead, kGroup, kQuery, kKey}, x,
                         {kBatch, kHead, kGroup, kQuery, kHeadDim},
                         keyGradType(), {kBatch, kHead, kKey, kHeadDim},
                         {kBatch, kHead, kKey, kHeadDim, kGroup, kQuery}, seen);
    return insertKeys(b, loc, sum, acc, 2);
  }

  /// In a generic over a tile's [B, Hkv, G, T, Sk]: `scale * score`, and
  /// whether the causal mask hides it (key j > query row i + Sk - Sq,
  /// FlashAttention's bottom-right alignment); null when not causal.
  std::pair<Value, Value> scaledScore(OpBuilder &b, Location loc,
                                      Value score) const {
    Value scaled = arith::MulFOp::create(
        b, loc, score, createScalar(b, loc, computeType, scale));
    if (!causal)
      return {scaled, Value()};
    Value i = arith::AddIOp::create(b, loc, tileStart,
                                    linalg::IndexOp::create(b, loc, kQuery));
    Value j = linalg::IndexOp::create(b, loc, kKey);
    Value limit = arith::AddIOp::create(
        b, loc, i, arith::ConstantIndexOp::create(b, loc, keyLen - queryLen));
    Value masked =
        arith::CmpIOp::create(b, loc, arith::CmpIPredicate::sgt, j, limit);
    return {scaled, masked};
  }

  /// P = exp(scale * scores - lse), 0 where masked: a tile's
  /// [B, Hkv, G, T, Sk] in the compute type, from its scores and lse rows
  /// [B, Hkv, G, T], overwriting the scores.
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

/// attention, one tile of query rows per iteration: scores = q k^T per
/// key/value head and query head of its group, m = rowmax(scale * scores),
/// l = rowsum(exp(scale * scores - m)) over unmasked keys,
/// lse = m + log(l), P = exp(scale * scores - lse) (0 where masked),
/// out = P v. A fully masked row (Sq > Sk) gives out = 0 and lse = -inf.
/// Every row sees all keys at once, so the tiles change nothing in the
/// results.
struct AttentionLowering : public TrainOpLowering<train::AttentionOp> {
  using TrainOpLowering::TrainOpLowering;
  LogicalResult
  matchAndRewrite(train::AttentionOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    MLIRContext *ctx = op.getContext();
    AttentionLayout layout(op, adaptor);
    Type c = layout.computeType;
    Type outType = elementTypeOf(adaptor.getQuery());
    Type f32 = rewriter.getF32Type();
    Value q = layout.splitHeads(rewriter, loc, adaptor.getQuery());
    Value key = adaptor.getKey(), value = adaptor.getValue();
    AffineMap identity = AffineMap::getMultiDimIdentityMap(5, ctx);
    AffineMap row = getRowMap(ctx, 5);
    SmallVector<utils::IteratorType> overKeys = getIterators(5, true, false);
    RankedTensorType rowType = layout.rowStatsType();
    double negInf = -std::numeric_limits<double>::infinity();

    Value outInit = createEmpty(
        rewriter, loc, layout.groupedType(layout.queryLen, true, outType));
    Value lseInit = createEmpty(
        rewriter, loc, layout.groupedType(layout.queryLen, false, f32));
    SmallVector<Value> results = layout.buildTileLoop(
        rewriter, loc, {outInit, lseInit},
        [&](OpBuilder &b, Location l, ValueRange carried) {
          Value scores =
              layout.buildScores(b, l, layout.extractTile(b, l, q), key);
          Value rowMax = buildGeneric(
              b, l, scores, createFilled(b, l, rowType, negInf),
              {identity, row}, overKeys,
              [&](OpBuilder &nb, Location nl, ValueRange args) {
                // A masked element counts as -inf, so the output is read
                // once (the max stays a reduction a combiner matcher
                // recognizes).
                auto [scaled, masked] = layout.scaledScore(nb, nl, args[0]);
                if (masked)
                  scaled = arith::SelectOp::create(
                      nb, nl, masked, createScalar(nb, nl, c, negInf), scaled);
                return SmallVector<Value>{
                    arith::MaximumFOp::create(nb, nl, args[1], scaled)};
              })[0];
          // The row sums become lse in place: in the result's rows when the
          // compute type is f32.
          Value lseTile = layout.extractTile(b, l, carried[1]);
          Value sumInit = c == f32 ? lseTile : createEmpty(b, l, rowType);
          Value rowSum = buildGeneric(
              b, l, {scores, rowMax}, fillTensor(b, l, sumInit, 0.0),
              {identity, row, row}, overKeys,
              [&](OpBuilder &nb, Location nl, ValueRange args) {
                auto [scaled, masked] = layout.scaledScore(nb, nl, args[0]);
                Value e = math::ExpOp::create(
                    nb, nl, arith::SubFOp::create(nb, nl, scaled, args[1]));
                if (masked)
                  e = arith::SelectOp::create(nb, nl, masked,
                                              createScalar(nb, nl, c, 0.0), e);
                return SmallVector<Value>{
                    arith::AddFOp::create(nb, nl, args[2], e)};
              })[0];
          Value lse = buildElementwiseInPlace(
              b, l, ValueRange{rowMax}, rowSum,
              [&](OpBuilder &nb, Location nl, ValueRange args) -> Value {
                return arith::AddFOp::create(
                    nb, nl, args[0], math::LogOp::create(nb, nl, args[1]));
              });
          // The probabilities overwrite the scores.
          Value probs = layout.buildProbabilities(b, l, scores, lse);
          Value out =
              layout.buildRowsTimesKeysTile(b, l, probs, value, carried[0]);
          if (c != f32)
            lse = castInto(b, l, lse, lseTile);
          return SmallVector<Value>{layout.insertTile(b, l, out, carried[0]),
                                    layout.insertTile(b, l, lse, carried[1])};
        });
    rewriter.replaceOp(op, {layout.joinHeads(rewriter, loc, results[0]),
                            layout.joinHeads(rewriter, loc, results[1])});
    return success();
  }
};

/// attention_grad, one tile of query rows per iteration:
/// P = exp(scale * q k^T - lse) (0 where masked), dv += P^T do,
/// dP = do v^T, D = rowsum(do * o), dS = P * (dP - D), dq = scale * dS k,
/// dk += scale * dS^T q. The contractions of dv and dk run over the rows of
/// all query heads of a group, which is the group sum of grouped-query
/// attention; the tiles add onto the same compute-type dv and dk.
struct AttentionGradLowering : public TrainOpLowering<train::AttentionGradOp> {
  using TrainOpLowering::TrainOpLowering;
  LogicalResult
  matchAndRewrite(train::AttentionGradOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    MLIRContext *ctx = op.getContext();
    AttentionLayout layout(op, adaptor);
    Type c = layout.computeType;
    double scale = layout.scale;
    Type queryType = elementTypeOf(adaptor.getQuery());
    Type keyType = elementTypeOf(adaptor.getKey());
    Value dout = layout.splitHeads(rewriter, loc, adaptor.getGrad());
    Value q = layout.splitHeads(rewriter, loc, adaptor.getQuery());
    Value o = layout.splitHeads(rewriter, loc, adaptor.getOutput());
    Value k = adaptor.getKey();
    Value v = adaptor.getValue();
    Value lse = layout.splitHeads(rewriter, loc, adaptor.getLse());
    AffineMap identity = AffineMap::getMultiDimIdentityMap(5, ctx);
    AffineMap row = getRowMap(ctx, 5);

    Value dqInit = createEmpty(
        rewriter, loc, layout.groupedType(layout.queryLen, true, queryType));
    Value dvInit = createFilled(rewriter, loc, layout.keyGradType(), 0.0);
    Value dkInit = createFilled(rewriter, loc, layout.keyGradType(), 0.0);
    SmallVector<Value> results = layout.buildTileLoop(
        rewriter, loc, {dqInit, dvInit, dkInit},
        [&](OpBuilder &b, Location l, ValueRange carried) {
          Value qTile = layout.extractTile(b, l, q);
          Value doTile = layout.extractTile(b, l, dout);
          // Ops are created statement by statement, so that their order
          // does not depend on the compiler's argument evaluation order.
          Value lseTile = layout.extractTile(b, l, lse);
          Value scores = layout.buildScores(b, l, qTile, k);
          Value probs = layout.buildProbabilities(b, l, scores, lseTile);
          Value dv =
              layout.buildColumnsTimesQueries(b, l, probs, doTile, carried[1]);
          Value dprobs = layout.buildScores(b, l, doTile, v);

          // D = rowsum(do * o) over the head dimension: [B, Hkv, G, T].
          Value deltaInit = createFilled(b, l, layout.rowStatsType(), 0.0);
          Value oTile = layout.extractTile(b, l, o);
          Value delta = buildGeneric(
              b, l, {doTile, oTile}, deltaInit, {identity, identity, row},
              getIterators(5, true, false),
              [&](OpBuilder &nb, Location nl, ValueRange args) {
                Value prod = arith::MulFOp::create(
                    nb, nl, castScalar(nb, nl, args[0], c),
                    castScalar(nb, nl, args[1], c));
                return SmallVector<Value>{
                    arith::AddFOp::create(nb, nl, args[2], prod)};
              })[0];

          // scale * dS = scale * P * (dP - D), overwriting dP.
          Value dscores = buildGeneric(
              b, l, {probs, delta}, dprobs, {identity, row, identity},
              getIterators(5, false, false),
              [&](OpBuilder &nb, Location nl, ValueRange args) {
                Value diff = arith::SubFOp::create(nb, nl, args[2], args[1]);
                Value ds = arith::MulFOp::create(nb, nl, args[0], diff);
                return SmallVector<Value>{arith::MulFOp::create(
                    nb, nl, ds, createScalar(nb, nl, c, scale))};
              })[0];
          Value dq =
              layout.buildRowsTimesKeysTile(b, l, dscores, k, carried[0]);
          Value dk =
              layout.buildColumnsTimesQueries(b, l, dscores, qTile, carried[2]);
          return SmallVector<Value>{layout.insertTile(b, l, dq, carried[0]), dv,
                                    dk};
        });

    Value dqOut = layout.joinHeads(rewriter, loc, results[0]);
    Value dkOut = castTensor(rewriter, loc, results[2], keyType);
    Value dvOut = castTensor(rewriter, loc, results[1], keyType);
    rewriter.replaceOp(op, {dqOut, dkOut, dvOut});
    return success();
  }
};

} // namespace

void mlir::memopt::populateAttentionLoweringPatterns(
    RewritePatternSet &patterns) {
  patterns.add<RotaryLowering, RotaryGradLowering, AttentionLowering,
               AttentionGradLowering>(patterns.getContext());
}
