//===- FP8Lowering.cpp - fp8 scales, quantization and scaled matmuls ------===//
//
// train.fp8_scale, train.quantize and train.scaled_matmul on tensors. The
// conversions to and from fp8 stay arith.truncf / arith.extf here;
// memopt-expand-fp8-conversions turns them into integer code after the
// loops are formed. Every scale is a power of two, so scaling and
// unscaling are exact and each op writes one buffer per result, as the
// memory model counts.
//
//===----------------------------------------------------------------------===//

#include "Lowering.h"

#include "memopt/Dialect/Train/IR/Precision.h"

#include <limits>

using namespace mlir;
using namespace mlir::memopt;

namespace {

/// A constant i64.
static Value constantI64(OpBuilder &b, Location loc, int64_t value) {
  return arith::ConstantOp::create(b, loc, b.getI64IntegerAttr(value));
}

/// The power of two 2^k, k an i64 clamped to f32's normal exponents, as an
/// f32: its exponent field is k + 127.
static Value buildPowerOfTwo(OpBuilder &b, Location loc, Value k) {
  Value clamped = arith::MaxSIOp::create(b, loc, k, constantI64(b, loc, -126));
  clamped = arith::MinSIOp::create(b, loc, clamped, constantI64(b, loc, 127));
  Value biased =
      arith::AddIOp::create(b, loc, clamped, constantI64(b, loc, 127));
  Value bits = arith::ShLIOp::create(b, loc, biased, constantI64(b, loc, 23));
  Value narrow = arith::TruncIOp::create(b, loc, b.getI32Type(), bits);
  return arith::BitcastOp::create(b, loc, b.getF32Type(), narrow);
}

/// fp8_scale: amax = max(history) (NaN-propagating); the largest 2^k with
/// amax * 2^k <= max(format) / 2^margin, or 1 when amax is not a positive
/// finite number. With amax = (1 + f) * 2^E and max = (1 + g) * 2^M (g =
/// 0.75 for both formats), k = M - E - margin, less one when f > g. The
/// exponent and fraction are read from amax's f64 bits, where f32's
/// subnormals are normal.
struct FP8ScaleLowering : public TrainOpLowering<train::FP8ScaleOp> {
  using TrainOpLowering::TrainOpLowering;
  LogicalResult
  matchAndRewrite(train::FP8ScaleOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    auto type = cast<RankedTensorType>(op.getType());
    double maxFinite = *train::getFP8MaxFinite(op.getFormat());
    int maxExponent = 0;
    double maxFraction = std::frexp(maxFinite, &maxExponent) * 2.0 - 1.0;
    maxExponent -= 1;
    auto maxFractionBits = static_cast<int64_t>(std::ldexp(maxFraction, 52));
    int64_t margin = static_cast<int64_t>(op.getMargin());

    Value amax = createFilled(rewriter, loc, type, 0.0);
    auto reduce = linalg::ReduceOp::create(
        rewriter, loc, adaptor.getAmaxHistory(), amax, ArrayRef<int64_t>{0},
        [&](OpBuilder &b, Location l, ValueRange args) {
          linalg::YieldOp::create(
              b, l, Value(arith::MaximumFOp::create(b, l, args[0], args[1])));
        });
    Value scale = buildElementwiseInPlace(
        rewriter, loc, ValueRange{}, reduce.getResult(0),
        [&](OpBuilder &b, Location l, ValueRange args) -> Value {
          Value value = args[0];
          Value wide = arith::ExtFOp::create(b, l, b.getF64Type(), value);
          Value bits = arith::BitcastOp::create(b, l, b.getI64Type(), wide);
          Value biased = arith::AndIOp::create(
              b, l, arith::ShRUIOp::create(b, l, bits, constantI64(b, l, 52)),
              constantI64(b, l, 0x7ff));
          Value exponent =
              arith::SubIOp::create(b, l, biased, constantI64(b, l, 1023));
          Value fraction = arith::AndIOp::create(
              b, l, bits, constantI64(b, l, (int64_t(1) << 52) - 1));
          Value above =
              arith::CmpIOp::create(b, l, arith::CmpIPredicate::ugt, fraction,
                                    constantI64(b, l, maxFractionBits));
          Value extra = arith::ExtUIOp::create(b, l, b.getI64Type(), above);
          Value k = arith::SubIOp::create(
              b, l, constantI64(b, l, maxExponent - margin), exponent);
          k = arith::SubIOp::create(b, l, k, extra);
          Value power = buildPowerOfTwo(b, l, k);
          // Positive and finite (false for NaN).
          Value positive =
              arith::CmpFOp::create(b, l, arith::CmpFPredicate::OGT, value,
                                    createScalar(b, l, value.getType(), 0.0));
          Value finite = arith::CmpFOp::create(
              b, l, arith::CmpFPredicate::OLT, value,
              createScalar(b, l, value.getType(),
                           std::numeric_limits<double>::infinity()));
          Value valid = arith::AndIOp::create(b, l, positive, finite);
          return arith::SelectOp::create(
              b, l, valid, power, createScalar(b, l, value.getType(), 1.0));
        });
    rewriter.replaceOp(op, scale);
    return success();
  }
};

/// quantize: result = fp8(input * scale) elementwise (the multiply in f32,
/// f64 for an f64 input), amax = max |input| in a reduction.
struct QuantizeLowering : public TrainOpLowering<train::QuantizeOp> {
  using TrainOpLowering::TrainOpLowering;
  LogicalResult
  matchAndRewrite(train::QuantizeOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    Value input = adaptor.getInput();
    auto inputType = cast<RankedTensorType>(input.getType());
    auto resultType = cast<RankedTensorType>(op.getResult().getType());
    auto amaxType = cast<RankedTensorType>(op.getAmax().getType());
    Type f32 = rewriter.getF32Type();
    Type computeType =
        inputType.getElementType().isF64() ? rewriter.getF64Type() : f32;
    Value scale = tensor::ExtractOp::create(rewriter, loc, adaptor.getScale());
    Value scaleValue = castScalar(rewriter, loc, scale, computeType);
    Value quantized = buildElementwise(
        rewriter, loc, resultType, input,
        [&](OpBuilder &b, Location l, ValueRange args) -> Value {
          Value x = castScalar(b, l, args[0], computeType);
          Value scaled = arith::MulFOp::create(b, l, x, scaleValue);
          return arith::TruncFOp::create(b, l, resultType.getElementType(),
                                         scaled);
        });
    Value amax = createFilled(rewriter, loc, amaxType, 0.0);
    auto dims = llvm::to_vector(llvm::seq<int64_t>(0, inputType.getRank()));
    auto reduce = linalg::ReduceOp::create(
        rewriter, loc, input, amax, dims,
        [&](OpBuilder &b, Location l, ValueRange args) {
          Value magnitude =
              castScalar(b, l, math::AbsFOp::create(b, l, args[0]), f32);
          linalg::YieldOp::create(
              b, l, Value(arith::MaximumFOp::create(b, l, args[1], magnitude)));
        });
    rewriter.replaceOp(op, {quantized, reduce.getResult(0)});
    return success();
  }
};

/// scaled_matmul: the matmul of the fp8 operands, accumulated in f32 and
/// rounded once to the result type (memopt-widen-contraction-accumulators
/// for a bf16 result), then multiplied in place by 1 / (lhs_scale *
/// rhs_scale): a power of two, so the product is exact.
struct ScaledMatmulLowering : public TrainOpLowering<train::ScaledMatmulOp> {
  using TrainOpLowering::TrainOpLowering;
  LogicalResult
  matchAndRewrite(train::ScaledMatmulOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    auto resultType = cast<RankedTensorType>(op.getType());
    Type f32 = rewriter.getF32Type();
    Value product =
        buildMatmul(rewriter, loc, adaptor.getLhs(), adaptor.getRhs(),
                    resultType, op.getTransposeLhs(), op.getTransposeRhs());
    Value one = createScalar(rewriter, loc, f32, 1.0);
    Value lhsScale =
        tensor::ExtractOp::create(rewriter, loc, adaptor.getLhsScale());
    Value rhsScale =
        tensor::ExtractOp::create(rewriter, loc, adaptor.getRhsScale());
    Value lhsInverse = arith::DivFOp::create(rewriter, loc, one, lhsScale);
    Value rhsInverse = arith::DivFOp::create(rewriter, loc, one, rhsScale);
    Value inverse =
        arith::MulFOp::create(rewriter, loc, lhsInverse, rhsInverse);
    Value result = buildElementwiseInPlace(
        rewriter, loc, ValueRange{}, product,
        [&](OpBuilder &b, Location l, ValueRange args) -> Value {
          Value sum = castScalar(b, l, args[0], f32);
          Value unscaled = arith::MulFOp::create(b, l, sum, inverse);
          return castScalar(b, l, unscaled, resultType.getElementType());
        });
    rewriter.replaceOp(op, result);
    return success();
  }
};

} // namespace

void mlir::memopt::populateFP8LoweringPatterns(RewritePatternSet &patterns) {
  patterns.add<FP8ScaleLowering, QuantizeLowering, ScaledMatmulLowering>(
      patterns.getContext());
}
