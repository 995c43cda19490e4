//===- Adam8bitLowering.cpp - 8-bit block-wise Adam -----------------------===//
//
// train.adam8bit / train.adamw8bit, exactly as their description defines
// them: an scf.for over the blocks of the flattened parameter and, in each
// block, one loop that computes the new moments for the block's absmax
// values (kept in scalars) and a second that computes them again with the
// same f32 operations, updates the parameter and requantizes. Every state
// is updated in place (tensor.insert into the loops' iter_args, which
// bufferize onto the globals): the lowering allocates nothing, so that
// mem-run's measured peak is the memory model's, which counts no
// workspace for these ops. The Adam arithmetic is AdamArithmetic, the one
// train.adam's lowering builds.
//
//===----------------------------------------------------------------------===//

#include "Lowering.h"

#include "memopt/Dialect/Train/IR/Blockwise8bit.h"

#include "mlir/Dialect/SCF/IR/SCF.h"

using namespace mlir;
using namespace mlir::memopt;

namespace {

/// The reassociation that maps every dimension of a rank-`rank` shape to
/// one (none for rank 0).
static SmallVector<ReassociationIndices> allInOne(int64_t rank) {
  if (rank == 0)
    return {};
  return {llvm::to_vector(llvm::seq<int64_t>(0, rank))};
}

/// `value` as a 1-d tensor of its elements in row-major order (a view).
static Value flatten(OpBuilder &b, Location loc, Value value) {
  auto type = cast<RankedTensorType>(value.getType());
  if (type.getRank() == 1)
    return value;
  auto flat =
      RankedTensorType::get({type.getNumElements()}, type.getElementType());
  if (type.getRank() == 0)
    return tensor::ExpandShapeOp::create(b, loc, flat, value, allInOne(0));
  return tensor::CollapseShapeOp::create(b, loc, flat, value,
                                         allInOne(type.getRank()));
}

/// The 1-d tensor `flat` in the shape of `type` (a view).
static Value unflatten(OpBuilder &b, Location loc, Value flat,
                       RankedTensorType type) {
  if (type.getRank() == 1)
    return flat;
  if (type.getRank() == 0)
    return tensor::CollapseShapeOp::create(b, loc, type, flat, allInOne(0));
  return tensor::ExpandShapeOp::create(b, loc, type, flat,
                                       allInOne(type.getRank()));
}

static Value indexConstant(OpBuilder &b, Location l, int64_t value) {
  return arith::ConstantIndexOp::create(b, l, value);
}

/// A block's new moments of one element, and its parameter after weight
/// decay, in f32.
struct Moments {
  Value param, m, v;
};

/// What every element of an 8-bit update reads: the Adam arithmetic, the
/// loss scaling, the two maps (tensor<256xf32> constants) and the flat
/// gradient.
struct Blockwise8bitUpdate {
  const AdamArithmetic &adam;
  const UpdateScaling &scaling;
  Value signedMap, unsignedMap, grad;
  int64_t numElements;
  Type paramType;

  /// `map[code] * absmax`, `code` an i8 read as unsigned.
  Value dequantize(OpBuilder &b, Location l, Value map, Value code,
                   Value absmax) const {
    Value index = arith::IndexCastUIOp::create(b, l, b.getIndexType(), code);
    return arith::MulFOp::create(
        b, l, tensor::ExtractOp::create(b, l, map, index), absmax);
  }

  /// The code of `value` in a block of absmax `absmax`: the nearest value of
  /// `map` to `value / absmax` (0 for an absmax of 0), a tie going to the
  /// lower one (Adam8bitOp's description).
  Value quantize(OpBuilder &b, Location l, Value map, Value value,
                 Value absmax) const {
    Value zero = createScalar(b, l, b.getF32Type(), 0.0);
    Value isZero =
        arith::CmpFOp::create(b, l, arith::CmpFPredicate::OEQ, absmax, zero);
    Value x = arith::SelectOp::create(
        b, l, isZero, zero, arith::DivFOp::create(b, l, value, absmax));
    auto at = [&](Value index) -> Value {
      return tensor::ExtractOp::create(b, l, map, index);
    };
    // The largest index whose value is <= x (0 when none is), by bisection
    // of the ascending map.
    Value lo = indexConstant(b, l, 0);
    for (int64_t bit = 128; bit >= 1; bit /= 2) {
      Value candidate =
          arith::AddIOp::create(b, l, lo, indexConstant(b, l, bit));
      Value below = arith::CmpFOp::create(b, l, arith::CmpFPredicate::OLE,
                                          at(candidate), x);
      lo = arith::SelectOp::create(b, l, below, candidate, lo);
    }
    Value hi = arith::MinUIOp::create(
        b, l, arith::AddIOp::create(b, l, lo, indexConstant(b, l, 1)),
        indexConstant(b, l, 255));
    Value toLo = arith::SubFOp::create(b, l, x, at(lo));
    Value toHi = arith::SubFOp::create(b, l, at(hi), x);
    Value nearLo =
        arith::CmpFOp::create(b, l, arith::CmpFPredicate::OLE, toLo, toHi);
    Value code = arith::SelectOp::create(b, l, nearLo, lo, hi);
    return arith::IndexCastOp::create(b, l, b.getI8Type(), code);
  }

  /// The new moments of element `j` from the parameter and codes in
  /// `param`, `mCodes`, `vCodes` and the block's old absmax values.
  Moments compute(OpBuilder &b, Location l, Value j, Value param, Value mCodes,
                  Value vCodes, Value mAbsmax, Value vAbsmax) const {
    Type f32 = b.getF32Type();
    Value g = scaling.unscale(
        b, l, castScalar(b, l, tensor::ExtractOp::create(b, l, grad, j), f32),
        f32);
    Value p = castScalar(b, l, tensor::ExtractOp::create(b, l, param, j), f32);
    Value m = dequantize(b, l, signedMap,
                         tensor::ExtractOp::create(b, l, mCodes, j), mAbsmax);
    Value v = dequantize(b, l, unsignedMap,
                         tensor::ExtractOp::create(b, l, vCodes, j), vAbsmax);
    adam.decay(b, l, p, g);
    adam.moments(b, l, g, m, v);
    return {p, m, v};
  }

  /// The larger of `current` and |value|.
  static Value maxAbs(OpBuilder &b, Location l, Value current, Value value) {
    Value magnitude = math::AbsFOp::create(b, l, value);
    Value larger = arith::CmpFOp::create(b, l, arith::CmpFPredicate::OGT,
                                         magnitude, current);
    return arith::SelectOp::create(b, l, larger, magnitude, current);
  }

  /// The body of the loop over blocks: block `block` of the flat `state`
  /// (param, exp_avg codes, exp_avg absmax, exp_avg_sq codes, exp_avg_sq
  /// absmax) updated; returns the five updated tensors.
  SmallVector<Value> buildBlock(OpBuilder &b, Location l, Value block,
                                ValueRange state) const {
    Value one = indexConstant(b, l, 1);
    Value first = arith::MulIOp::create(
        b, l, block, indexConstant(b, l, train::kBlockwise8bitBlockSize));
    Value last = arith::MinUIOp::create(
        b, l,
        arith::AddIOp::create(
            b, l, first, indexConstant(b, l, train::kBlockwise8bitBlockSize)),
        indexConstant(b, l, numElements));
    Value mAbsmax = tensor::ExtractOp::create(b, l, state[2], block);
    Value vAbsmax = tensor::ExtractOp::create(b, l, state[4], block);

    // The block's new absmax values.
    Value zero = createScalar(b, l, b.getF32Type(), 0.0);
    auto maxima = scf::ForOp::create(
        b, l, first, last, one, ValueRange{zero, zero},
        [&](OpBuilder &ib, Location il, Value j, ValueRange current) {
          Moments moments = compute(ib, il, j, state[0], state[1], state[3],
                                    mAbsmax, vAbsmax);
          scf::YieldOp::create(
              ib, il,
              ValueRange{maxAbs(ib, il, current[0], moments.m),
                         maxAbs(ib, il, current[1], moments.v)});
        });
    Value mAbsmaxNew = maxima.getResult(0), vAbsmaxNew = maxima.getResult(1);

    // The same moments again: the parameter's update and the new codes.
    auto updates = scf::ForOp::create(
        b, l, first, last, one, ValueRange{state[0], state[1], state[3]},
        [&](OpBuilder &ib, Location il, Value j, ValueRange tensors) {
          Moments moments = compute(ib, il, j, tensors[0], tensors[1],
                                    tensors[2], mAbsmax, vAbsmax);
          Value param = castScalar(
              ib, il, adam.update(ib, il, moments.param, moments.m, moments.v),
              paramType);
          Value mCode = quantize(ib, il, signedMap, moments.m, mAbsmaxNew);
          Value vCode = quantize(ib, il, unsignedMap, moments.v, vAbsmaxNew);
          scf::YieldOp::create(
              ib, il,
              ValueRange{
                  tensor::InsertOp::create(ib, il, param, tensors[0], j),
                  tensor::InsertOp::create(ib, il, mCode, tensors[1], j),
                  tensor::InsertOp::create(ib, il, vCode, tensors[2], j)});
        });
    return {updates.getResult(0), updates.getResult(1),
            tensor::InsertOp::create(b, l, mAbsmaxNew, state[2], block),
            updates.getResult(2),
            tensor::InsertOp::create(b, l, vAbsmaxNew, state[4], block)};
  }
};

/// A dynamic map as a tensor<256xf32> constant.
static Value createMap(OpBuilder &b, Location loc, bool isSigned) {
  auto type = RankedTensorType::get({256}, b.getF32Type());
  return arith::ConstantOp::create(
      b, loc, DenseElementsAttr::get(type, train::getDynamicMap(isSigned)));
}

template <typename OpTy, bool kDecoupled>
struct Adam8bitLowering : public OpConversionPattern<OpTy> {
  using OpConversionPattern<OpTy>::OpConversionPattern;
  using OpAdaptor = typename OpConversionPattern<OpTy>::OpAdaptor;

  LogicalResult
  matchAndRewrite(OpTy op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    auto paramType = cast<RankedTensorType>(adaptor.getParam().getType());
    auto codesType = cast<RankedTensorType>(adaptor.getExpAvgCodes().getType());
    AdamArithmetic adam(rewriter, loc, op, adaptor.getStep(),
                        adaptor.getSkippedSteps(), kDecoupled,
                        rewriter.getF32Type());
    UpdateScaling scaling(rewriter, loc, adaptor.getGradScale(),
                          adaptor.getFoundNonfinite());
    Blockwise8bitUpdate update{
        adam,
        scaling,
        createMap(rewriter, loc, /*isSigned=*/true),
        createMap(rewriter, loc, /*isSigned=*/false),
        flatten(rewriter, loc,
                readGradient(rewriter, loc, op.getGrad(), adaptor.getGrad())),
        paramType.getNumElements(),
        paramType.getElementType()};

    // A skipped step (loss scaling's inf/NaN, or a micro-batch before the
    // last) runs no block: every state keeps its bytes.
    Value blocks = indexConstant(
        rewriter, loc,
        train::getBlockwise8bitBlocks(paramType.getNumElements()));
    if (scaling.skip)
      blocks = arith::SelectOp::create(rewriter, loc, scaling.skip,
                                       indexConstant(rewriter, loc, 0), blocks);
    SmallVector<Value> inits = {
        flatten(rewriter, loc, adaptor.getParam()),
        flatten(rewriter, loc, adaptor.getExpAvgCodes()),
        adaptor.getExpAvgAbsmax(),
        flatten(rewriter, loc, adaptor.getExpAvgSqCodes()),
        adaptor.getExpAvgSqAbsmax()};
    auto loop = scf::ForOp::create(
        rewriter, loc, indexConstant(rewriter, loc, 0), blocks,
        indexConstant(rewriter, loc, 1), inits,
        [&](OpBuilder &b, Location l, Value block, ValueRange state) {
          scf::YieldOp::create(b, l, update.buildBlock(b, l, block, state));
        });
    writeBack(rewriter, loc, op.getParam(),
              unflatten(rewriter, loc, loop.getResult(0), paramType));
    writeBack(rewriter, loc, op.getExpAvgCodes(),
              unflatten(rewriter, loc, loop.getResult(1), codesType));
    writeBack(rewriter, loc, op.getExpAvgAbsmax(), loop.getResult(2));
    writeBack(rewriter, loc, op.getExpAvgSqCodes(),
              unflatten(rewriter, loc, loop.getResult(3), codesType));
    writeBack(rewriter, loc, op.getExpAvgSqAbsmax(), loop.getResult(4));
    rewriter.eraseOp(op);
    return success();
  }
};

} // namespace

void mlir::memopt::populateAdam8bitLoweringPatterns(
    RewritePatternSet &patterns) {
  patterns.add<Adam8bitLowering<train::Adam8bitOp, false>,
               Adam8bitLowering<train::AdamW8bitOp, true>>(
      patterns.getContext());
}
