//===- BatchNormLowering.cpp - batch_norm and batch_norm_grad -------------===//
//
// Per-channel statistics of NCHW activations (sums over n, h, w), as
// PyTorch's CPU kernels compute them; 16-bit inputs accumulate in f32.
//
//===----------------------------------------------------------------------===//

#include "ConvHelpers.h"
#include "Lowering.h"

#include "mlir/Dialect/Utils/StructuredOpsUtils.h"
#include "mlir/IR/AffineMap.h"

using namespace mlir;
using namespace mlir::memopt;
using namespace mlir::memopt::conv;

namespace {
/// The statistics of a batch normalization of an NCHW `input`: the
/// accumulator type of its elements and the number M = N * H * W of
/// elements per channel.
struct ChannelStats {
  explicit ChannelStats(Value input)
      : inputType(cast<RankedTensorType>(input.getType())),
        elementType(inputType.getElementType()),
        accType(getAccumulatorType(elementType)),
        channels(inputType.getDimSize(1)),
        count(static_cast<double>(inputType.getDimSize(0) *
                                  inputType.getDimSize(2) *
                                  inputType.getDimSize(3))) {}
  RankedTensorType inputType;
  Type elementType, accType;
  int64_t channels;
  double count;
};
} // namespace

/// The map from (n, c, h, w) loops to the channel index c.
static AffineMap channelMap(OpBuilder &b) {
  return AffineMap::get(4, 0, b.getAffineDimExpr(1), b.getContext());
}

/// Sums of `inputs` (NCHW, or per channel [C] through channelMap) per
/// channel over (n, h, w): one accumulator of `accType` per value `body`
/// returns, added to the running sums.
static SmallVector<Value> buildChannelSums(
    OpBuilder &b, Location loc, ValueRange inputs, int64_t channels,
    Type accType, unsigned numSums,
    llvm::function_ref<SmallVector<Value>(OpBuilder &, Location, ValueRange)>
        body) {
  auto sumType = RankedTensorType::get({channels}, accType);
  SmallVector<Value> inits;
  SmallVector<Type> types;
  for (unsigned i = 0; i < numSums; ++i) {
    inits.push_back(createFilled(b, loc, sumType, 0.0));
    types.push_back(sumType);
  }
  SmallVector<AffineMap> maps;
  for (Value input : inputs)
    maps.push_back(cast<RankedTensorType>(input.getType()).getRank() == 1
                       ? channelMap(b)
                       : identityMap(b, 4));
  maps.append(numSums, channelMap(b));
  auto par = utils::IteratorType::parallel;
  auto red = utils::IteratorType::reduction;
  return llvm::to_vector_of<Value>(
      buildGeneric(
          b, loc, types, inputs, inits, maps, {red, par, red, red},
          [&](OpBuilder &nested, Location l, ValueRange args) {
            SmallVector<Value> terms =
                body(nested, l, args.take_front(inputs.size()));
            SmallVector<Value> sums;
            for (auto [term, sum] :
                 llvm::zip_equal(terms, args.drop_front(inputs.size())))
              sums.push_back(arith::AddFOp::create(nested, l, sum, term));
            return sums;
          })
          .getResults());
}

/// An elementwise linalg.generic over the NCHW shape of `resultTypes`
/// whose rank-1 inputs are per-channel values.
static SmallVector<Value> buildChannelElementwise(
    OpBuilder &b, Location loc, TypeRange resultTypes, ValueRange inputs,
    llvm::function_ref<SmallVector<Value>(OpBuilder &, Location, ValueRange)>
        body) {
  SmallVector<AffineMap> maps;
  for (Value input : inputs)
    maps.push_back(cast<RankedTensorType>(input.getType()).getRank() == 1
                       ? channelMap(b)
                       : identityMap(b, 4));
  SmallVector<Value> inits;
  for (Type type : resultTypes) {
    inits.push_back(createEmpty(b, loc, cast<RankedTensorType>(type)));
    maps.push_back(identityMap(b, 4));
  }
  return llvm::to_vector_of<Value>(
      buildGeneric(
          b, loc, resultTypes, inputs, inits, maps,
          SmallVector<utils::IteratorType>(4, utils::IteratorType::parallel),
          body)
          .getResults());
}

namespace {

//===----------------------------------------------------------------------===//
// Batch normalization
//===----------------------------------------------------------------------===//

/// batch_norm (training mode): per channel over (n, h, w),
/// mean = sum(x) / M, var = sum((x - mean)^2) / M (biased, two passes),
/// rstd = 1 / sqrt(var + eps), y = (x - mean) * rstd * gamma + beta.
struct BatchNormLowering : public TrainOpLowering<train::BatchNormOp> {
  using TrainOpLowering::TrainOpLowering;
  LogicalResult
  matchAndRewrite(train::BatchNormOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    Value input = adaptor.getInput();
    ChannelStats stats(input);
    double epsilon = op.getEpsilon().convertToDouble();
    auto statType = cast<RankedTensorType>(op.getMean().getType());

    Value sum = buildChannelSums(
        rewriter, loc, input, stats.channels, stats.accType, 1,
        [&](OpBuilder &b, Location l, ValueRange args) {
          return SmallVector<Value>{castScalar(b, l, args[0], stats.accType)};
        })[0];
    // mean and rstd overwrite the sums they come from.
    Value mean = buildMeanInPlace(rewriter, loc, sum, stats.count);
    Value squares = buildChannelSums(
        rewriter, loc, ValueRange{input, mean}, stats.channels, stats.accType,
        1, [&](OpBuilder &b, Location l, ValueRange args) {
          Value centered = arith::SubFOp::create(
              b, l, castScalar(b, l, args[0], stats.accType), args[1]);
          return SmallVector<Value>{
              arith::MulFOp::create(b, l, centered, centered)};
        })[0];
    Value rstd = buildRstd(rewriter, loc, squares, stats.count, epsilon);
    Value result = buildChannelElementwise(
        rewriter, loc, stats.inputType,
        ValueRange{input, mean, rstd, adaptor.getGamma(), adaptor.getBeta()},
        [&](OpBuilder &b, Location l, ValueRange args) {
          Value centered = arith::SubFOp::create(
              b, l, castScalar(b, l, args[0], stats.accType), args[1]);
          Value normalized = arith::MulFOp::create(b, l, centered, args[2]);
          Value scaled = arith::MulFOp::create(
              b, l, normalized, castScalar(b, l, args[3], stats.accType));
          Value shifted = arith::AddFOp::create(
              b, l, scaled, castScalar(b, l, args[4], stats.accType));
          return SmallVector<Value>{
              castScalar(b, l, shifted, stats.elementType)};
        })[0];
    Type statElementType = statType.getElementType();
    rewriter.replaceOp(op, {result,
                            castTensor(rewriter, loc, mean, statElementType),
                            castTensor(rewriter, loc, rstd, statElementType)});
    return success();
  }
};

/// batch_norm_grad, as PyTorch's native_batch_norm_backward in training
/// mode: per channel, dbeta = sum(dy), dot = sum(dy * (x - mean)),
/// dgamma = dot * rstd, and
/// dx = (dy - (x - mean) * dot * rstd^2 / M - dbeta / M) * rstd * gamma.
struct BatchNormGradLowering : public TrainOpLowering<train::BatchNormGradOp> {
  using TrainOpLowering::TrainOpLowering;
  LogicalResult
  matchAndRewrite(train::BatchNormGradOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    Value input = adaptor.getInput();
    ChannelStats stats(input);
    auto gammaType = cast<RankedTensorType>(adaptor.getGamma().getType());
    Value mean = castTensor(rewriter, loc, adaptor.getMean(), stats.accType);
    Value rstd = castTensor(rewriter, loc, adaptor.getRstd(), stats.accType);

    SmallVector<Value> sums = buildChannelSums(
        rewriter, loc, ValueRange{adaptor.getGrad(), input, mean},
        stats.channels, stats.accType, 2,
        [&](OpBuilder &b, Location l, ValueRange args) {
          Value dy = castScalar(b, l, args[0], stats.accType);
          Value centered = arith::SubFOp::create(
              b, l, castScalar(b, l, args[1], stats.accType), args[2]);
          return SmallVector<Value>{dy,
                                    arith::MulFOp::create(b, l, dy, centered)};
        });
    Value sumGrad = sums[0], dot = sums[1];

    // Per channel: dgamma, dbeta, the projection scale dot * rstd^2 / M and
    // the mean gradient sum(dy) / M.
    Type gammaElementType = gammaType.getElementType();
    // The scale and the mean gradient overwrite the sums (dot, sum(dy)).
    SmallVector<Value> perChannel = buildElementwiseInto(
        rewriter, loc, ValueRange{rstd},
        ValueRange{createEmpty(rewriter, loc, gammaType),
                   createEmpty(rewriter, loc, gammaType), dot, sumGrad},
        [&](OpBuilder &b, Location l, ValueRange outs) {
          Value m = createScalar(b, l, stats.accType, stats.count);
          SmallVector<Value> args = {outs[4], outs[3], outs[0]};
          Value r = args[2];
          Value dgamma = arith::MulFOp::create(b, l, args[1], r);
          Value scale = arith::DivFOp::create(
              b, l, arith::MulFOp::create(b, l, dgamma, r), m);
          Value gradMean = arith::DivFOp::create(b, l, args[0], m);
          return SmallVector<Value>{castScalar(b, l, dgamma, gammaElementType),
                                    castScalar(b, l, args[0], gammaElementType),
                                    scale, gradMean};
        });

    Value gradInput = buildChannelElementwise(
        rewriter, loc, stats.inputType,
        ValueRange{adaptor.getGrad(), input, mean, rstd, adaptor.getGamma(),
                   perChannel[2], perChannel[3]},
        [&](OpBuilder &b, Location l, ValueRange args) {
          Value dy = castScalar(b, l, args[0], stats.accType);
          Value centered = arith::SubFOp::create(
              b, l, castScalar(b, l, args[1], stats.accType), args[2]);
          Value projected = arith::SubFOp::create(
              b, l,
              arith::SubFOp::create(
                  b, l, dy, arith::MulFOp::create(b, l, centered, args[5])),
              args[6]);
          Value scaled = arith::MulFOp::create(
              b, l, arith::MulFOp::create(b, l, projected, args[3]),
              castScalar(b, l, args[4], stats.accType));
          return SmallVector<Value>{
              castScalar(b, l, scaled, stats.elementType)};
        })[0];
    rewriter.replaceOp(op, {gradInput, perChannel[0], perChannel[1]});
    return success();
  }
};

} // namespace

void mlir::memopt::populateBatchNormLoweringPatterns(
    RewritePatternSet &patterns) {
  patterns.add<BatchNormLowering, BatchNormGradLowering>(patterns.getContext());
}
