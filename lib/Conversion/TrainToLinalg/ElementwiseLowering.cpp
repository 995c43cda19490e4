//===- ElementwiseLowering.cpp - elementwise ops and their gradients ------===//
//
// Elementwise forward ops, activations and their gradients, cast, dropout,
// reduce_sum and broadcast. Activations follow PyTorch's CPU kernels formula
// by formula: 16-bit and 8-bit inputs are computed in f32 (PyTorch's
// `opmath` type) and rounded once to the result type. Binary ops compute in
// the result type after promoting the narrower operand.
//
//===----------------------------------------------------------------------===//

#include "Lowering.h"

#include "mlir/IR/AffineMap.h"

using namespace mlir;
using namespace mlir::memopt;

//===----------------------------------------------------------------------===//
// Scalar helpers
//===----------------------------------------------------------------------===//

/// Rounds an f64 to f32 with round-to-odd: the f32 neighbour of `value`
/// whose last mantissa bit is 1 unless `value` is exact in f32. A second
/// round-to-nearest-even to a format of at most 22 significant bits then
/// gives the correctly rounded result, which f64 -> f32 -> bf16 with two
/// nearest-even roundings does not.
static Value roundToOddF32(OpBuilder &b, Location loc, Value value) {
  Type f32 = b.getF32Type();
  Type i32 = b.getI32Type();
  Value nearest = arith::TruncFOp::create(b, loc, f32, value);
  Value back = arith::ExtFOp::create(b, loc, value.getType(), nearest);
  Value bits = arith::BitcastOp::create(b, loc, i32, nearest);
  Value one = arith::ConstantIntOp::create(b, loc, i32, 1);
  Value lastBit = arith::AndIOp::create(b, loc, bits, one);
  Value isOdd =
      arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq, lastBit, one);
  Value isExact =
      arith::CmpFOp::create(b, loc, arith::CmpFPredicate::OEQ, back, value);
  // Nearest-even rounded away from zero when |back| > |value|; the other
  // neighbour is one step back towards zero (bits are sign-magnitude).
  Value absBack = math::AbsFOp::create(b, loc, back);
  Value absValue = math::AbsFOp::create(b, loc, value);
  Value roundedUp = arith::CmpFOp::create(b, loc, arith::CmpFPredicate::OGT,
                                          absBack, absValue);
  Value step = arith::SelectOp::create(
      b, loc, roundedUp, arith::ConstantIntOp::create(b, loc, i32, -1), one);
  Value other = arith::BitcastOp::create(
      b, loc, f32, arith::AddIOp::create(b, loc, bits, step));
  Value keep = arith::OrIOp::create(b, loc, isOdd, isExact);
  return arith::SelectOp::create(b, loc, keep, nearest, other);
}

/// Converts a float scalar to the float type `type` with one
/// round-to-nearest-even: extf when widening, truncf when narrowing, through
/// f32 between two types of one width (bf16 <-> f16), and through a
/// round-to-odd f32 from f64 to types narrower than f32.
static Value convertFloat(OpBuilder &b, Location loc, Value value, Type type) {
  Type from = value.getType();
  if (from == type)
    return value;
  unsigned fromWidth = from.getIntOrFloatBitWidth();
  unsigned toWidth = type.getIntOrFloatBitWidth();
  if (fromWidth < toWidth)
    return arith::ExtFOp::create(b, loc, type, value);
  if (fromWidth == toWidth)
    return arith::TruncFOp::create(
        b, loc, type, arith::ExtFOp::create(b, loc, b.getF32Type(), value));
  if (fromWidth > 32 && toWidth < 32)
    return arith::TruncFOp::create(b, loc, type, roundToOddF32(b, loc, value));
  return arith::TruncFOp::create(b, loc, type, value);
}

namespace {

/// Emits scalar float arithmetic of one type inside a linalg body, so that
/// formulas read like the PyTorch kernels they follow. A `double` operand is
/// a constant of the type. No call passes two operands that both emit ops,
/// so the emitted order does not depend on C++ argument evaluation order.
struct ScalarMath {
  OpBuilder &b;
  Location loc;
  Type type;

  Value c(double value) const { return createScalar(b, loc, type, value); }
  Value add(Value x, Value y) const {
    return arith::AddFOp::create(b, loc, x, y);
  }
  Value add(double x, Value y) const { return add(c(x), y); }
  Value add(Value x, double y) const { return add(x, c(y)); }
  Value sub(Value x, Value y) const {
    return arith::SubFOp::create(b, loc, x, y);
  }
  Value sub(double x, Value y) const { return sub(c(x), y); }
  Value mul(Value x, Value y) const {
    return arith::MulFOp::create(b, loc, x, y);
  }
  Value mul(Value x, double y) const { return mul(x, c(y)); }
  Value mul(double x, Value y) const { return mul(c(x), y); }
  Value div(Value x, Value y) const {
    return arith::DivFOp::create(b, loc, x, y);
  }
  Value div(double x, Value y) const { return div(c(x), y); }
  Value div(Value x, double y) const { return div(x, c(y)); }
  Value neg(Value x) const { return arith::NegFOp::create(b, loc, x); }
  Value exp(Value x) const { return math::ExpOp::create(b, loc, x); }
  Value erf(Value x) const { return math::ErfOp::create(b, loc, x); }
  Value tanh(Value x) const { return math::TanhOp::create(b, loc, x); }
  Value in(Value x) const { return convertFloat(b, loc, x, type); }
  /// min(max(x, 0), 6), propagating NaN (arith's maximumf/minimumf).
  Value relu6(Value x) const {
    Value relu = arith::MaximumFOp::create(b, loc, x, c(0.0));
    return arith::MinimumFOp::create(b, loc, relu, c(6.0));
  }
  /// `x <predicate> value` as an i1.
  Value compare(arith::CmpFPredicate predicate, Value x, double value) const {
    return arith::CmpFOp::create(b, loc, predicate, x, c(value));
  }

  /// 1 / (1 + exp(-x)) (PyTorch's sigmoid).
  Value sigmoid(Value x) const { return div(1.0, add(1.0, exp(neg(x)))); }
  /// x / (1 + exp(-x)) (PyTorch's silu).
  Value silu(Value x) const { return div(x, add(1.0, exp(neg(x)))); }
  /// silu'(x) = s * (1 + x * (1 - s)), s = sigmoid(x).
  Value siluDerivative(Value x) const {
    Value s = sigmoid(x);
    return mul(s, add(1.0, mul(x, sub(1.0, s))));
  }
};

} // namespace

// GeLU constants as PyTorch's kernels spell them (computed in double, then
// rounded to the compute type).
static constexpr double kSqrt1_2 = 0.70710678118654752440; // M_SQRT1_2
static constexpr double kSqrt2 = 1.41421356237309504880;   // M_SQRT2
static constexpr double k2SqrtPi = 1.12837916709551257390; // M_2_SQRTPI
static constexpr double kGeluKappa = 0.044715;

/// gelu(x): exact `x * 0.5 * (1 + erf(x * M_SQRT1_2))`, or the tanh form
/// `0.5 * x * (1 + tanh(kBeta * (x + kKappa * x^3)))`.
static Value emitGelu(const ScalarMath &m, Value x, bool approximate) {
  if (!approximate) {
    Value half = m.mul(x, 0.5);
    return m.mul(half, m.add(1.0, m.erf(m.mul(x, kSqrt1_2))));
  }
  Value cube = m.mul(m.mul(x, x), x);
  Value inner =
      m.mul(kSqrt2 * k2SqrtPi * 0.5, m.add(x, m.mul(kGeluKappa, cube)));
  Value half = m.mul(0.5, x);
  return m.mul(half, m.add(1.0, m.tanh(inner)));
}

/// dy * gelu'(x), PyTorch's GeluBackward CPU kernel for both forms.
static Value emitGeluGrad(const ScalarMath &m, Value dy, Value x,
                          bool approximate) {
  if (!approximate) {
    Value cdf = m.mul(0.5, m.add(1.0, m.erf(m.mul(x, kSqrt1_2))));
    Value pdf =
        m.mul(k2SqrtPi * kSqrt1_2 * 0.5, m.exp(m.mul(m.mul(x, x), -0.5)));
    return m.mul(dy, m.add(cdf, m.mul(x, pdf)));
  }
  double beta = kSqrt2 * k2SqrtPi * 0.5;
  Value square = m.mul(x, x);
  Value cube = m.mul(square, x);
  Value inner = m.mul(beta, m.add(x, m.mul(kGeluKappa, cube)));
  Value tanhInner = m.tanh(inner);
  Value left = m.mul(0.5, x);
  Value right = m.add(1.0, tanhInner);
  Value leftDerivative = m.mul(0.5, right);
  Value tanhDerivative = m.sub(1.0, m.mul(tanhInner, tanhInner));
  Value innerDerivative =
      m.mul(beta, m.add(1.0, m.mul(3.0 * kGeluKappa, square)));
  Value rightDerivative = m.mul(m.mul(left, tanhDerivative), innerDerivative);
  return m.mul(dy, m.add(leftDerivative, rightDerivative));
}

/// An elementwise generic producing `resultType` whose body computes in
/// getComputeType of the result's element type: operands are converted in,
/// the single result is rounded out once.
static Value
buildComputed(OpBuilder &b, Location loc, RankedTensorType resultType,
              ValueRange inputs,
              llvm::function_ref<Value(const ScalarMath &, ValueRange)> body) {
  Type elementType = resultType.getElementType();
  return buildElementwise(
      b, loc, resultType, inputs,
      [&](OpBuilder &nested, Location nestedLoc, ValueRange args) -> Value {
        ScalarMath m{nested, nestedLoc, getAccumulatorType(elementType)};
        SmallVector<Value> converted;
        for (Value arg : args)
          converted.push_back(m.in(arg));
        return convertFloat(nested, nestedLoc, body(m, converted), elementType);
      });
}

//===----------------------------------------------------------------------===//
// Patterns
//===----------------------------------------------------------------------===//

namespace {

/// add, sub, mul: the narrower operand is promoted and the op computes in the
/// result (widest) element type.
template <typename OpTy, typename ArithOpTy>
struct BinaryLowering : public OpConversionPattern<OpTy> {
  using OpConversionPattern<OpTy>::OpConversionPattern;
  using OpAdaptor = typename OpConversionPattern<OpTy>::OpAdaptor;
  LogicalResult
  matchAndRewrite(OpTy op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    auto type = cast<RankedTensorType>(op.getType());
    Value result = buildElementwise(
        rewriter, op.getLoc(), type,
        ValueRange{adaptor.getLhs(), adaptor.getRhs()},
        [&](OpBuilder &b, Location loc, ValueRange args) -> Value {
          Type elementType = type.getElementType();
          Value lhs = convertFloat(b, loc, args[0], elementType);
          Value rhs = convertFloat(b, loc, args[1], elementType);
          return ArithOpTy::create(b, loc, lhs, rhs);
        });
    rewriter.replaceOp(op, result);
    return success();
  }
};

/// An elementwise op that buildComputed lowers over all its operands: the
/// result element is `compute` of the operand elements in the compute type.
template <typename OpTy>
struct ComputedLowering : public TrainOpLowering<OpTy> {
  using TrainOpLowering<OpTy>::TrainOpLowering;
  using OpAdaptor = typename TrainOpLowering<OpTy>::OpAdaptor;

  LogicalResult
  matchAndRewrite(OpTy op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const final {
    rewriter.replaceOp(op,
                       buildComputed(rewriter, op.getLoc(),
                                     cast<RankedTensorType>(op.getType()),
                                     adaptor.getOperands(),
                                     [&](const ScalarMath &m, ValueRange args) {
                                       return compute(op, m, args);
                                     }));
    return success();
  }

  virtual Value compute(OpTy op, const ScalarMath &m,
                        ValueRange args) const = 0;
};

/// scale: factor * input, in the compute type (PyTorch's tensor * scalar).
struct ScaleLowering : public ComputedLowering<train::ScaleOp> {
  using ComputedLowering::ComputedLowering;
  Value compute(train::ScaleOp op, const ScalarMath &m,
                ValueRange args) const override {
    return m.mul(args[0], op.getFactor().convertToDouble());
  }
};

/// bias_add: a generic whose bias operand is indexed by loop `dim` only.
struct BiasAddLowering : public TrainOpLowering<train::BiasAddOp> {
  using TrainOpLowering::TrainOpLowering;
  LogicalResult
  matchAndRewrite(train::BiasAddOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    auto type = cast<RankedTensorType>(op.getType());
    Type elementType = type.getElementType();
    int64_t rank = type.getRank();
    int64_t dim = static_cast<int64_t>(op.getDim());
    if (dim < 0)
      dim += rank;
    MLIRContext *ctx = rewriter.getContext();
    AffineMap identity = rewriter.getMultiDimIdentityMap(rank);
    AffineMap biasMap =
        AffineMap::get(rank, 0, getAffineDimExpr(dim, ctx), ctx);
    SmallVector<utils::IteratorType> iterators(rank,
                                               utils::IteratorType::parallel);
    auto generic = linalg::GenericOp::create(
        rewriter, loc, TypeRange{type},
        ValueRange{adaptor.getInput(), adaptor.getBias()},
        ValueRange{createEmpty(rewriter, loc, type)},
        ArrayRef<AffineMap>{identity, biasMap, identity}, iterators,
        [&](OpBuilder &b, Location l, ValueRange args) {
          Value input = convertFloat(b, l, args[0], elementType);
          Value bias = convertFloat(b, l, args[1], elementType);
          Value sum = arith::AddFOp::create(b, l, input, bias);
          linalg::YieldOp::create(b, l, sum);
        });
    rewriter.replaceOp(op, generic.getResult(0));
    return success();
  }
};

/// relu: max(x, 0) elementwise, then min(that, upper) when bounded.
struct ReluLowering : public TrainOpLowering<train::ReluOp> {
  using TrainOpLowering::TrainOpLowering;
  LogicalResult
  matchAndRewrite(train::ReluOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    auto type = cast<RankedTensorType>(op.getType());
    Value result = buildElementwise(
        rewriter, op.getLoc(), type, adaptor.getInput(),
        [&](OpBuilder &b, Location loc, ValueRange args) -> Value {
          Value zero = createScalar(b, loc, type.getElementType(), 0.0);
          Value relu = arith::MaximumFOp::create(b, loc, args[0], zero);
          FloatAttr upper = op.getUpperAttr();
          if (!upper)
            return relu;
          Value bound = createScalar(b, loc, type.getElementType(),
                                     upper.getValueAsDouble());
          return arith::MinimumFOp::create(b, loc, relu, bound);
        });
    rewriter.replaceOp(op, result);
    return success();
  }
};

struct GeluLowering : public ComputedLowering<train::GeluOp> {
  using ComputedLowering::ComputedLowering;
  Value compute(train::GeluOp op, const ScalarMath &m,
                ValueRange args) const override {
    return emitGelu(m, args[0], op.getApproximate());
  }
};

struct SiluLowering : public ComputedLowering<train::SiluOp> {
  using ComputedLowering::ComputedLowering;
  Value compute(train::SiluOp op, const ScalarMath &m,
                ValueRange args) const override {
    return m.silu(args[0]);
  }
};

struct SigmoidLowering : public ComputedLowering<train::SigmoidOp> {
  using ComputedLowering::ComputedLowering;
  Value compute(train::SigmoidOp op, const ScalarMath &m,
                ValueRange args) const override {
    return m.sigmoid(args[0]);
  }
};

struct TanhLowering : public ComputedLowering<train::TanhOp> {
  using ComputedLowering::ComputedLowering;
  Value compute(train::TanhOp op, const ScalarMath &m,
                ValueRange args) const override {
    return m.tanh(args[0]);
  }
};

/// hardsigmoid: min(max(x + 3, 0), 6) / 6, as PyTorch's CPU kernel.
struct HardsigmoidLowering : public ComputedLowering<train::HardsigmoidOp> {
  using ComputedLowering::ComputedLowering;
  Value compute(train::HardsigmoidOp op, const ScalarMath &m,
                ValueRange args) const override {
    return m.div(m.relu6(m.add(args[0], 3.0)), 6.0);
  }
};

/// hardswish: x * min(max(x + 3, 0), 6) / 6, multiplied before the division
/// as PyTorch's CPU kernel.
struct HardswishLowering : public ComputedLowering<train::HardswishOp> {
  using ComputedLowering::ComputedLowering;
  Value compute(train::HardswishOp op, const ScalarMath &m,
                ValueRange args) const override {
    Value x = args[0];
    return m.div(m.mul(x, m.relu6(m.add(x, 3.0))), 6.0);
  }
};

/// swiglu: silu(gate) * up, rounded once.
struct SwigluLowering : public ComputedLowering<train::SwigluOp> {
  using ComputedLowering::ComputedLowering;
  Value compute(train::SwigluOp op, const ScalarMath &m,
                ValueRange args) const override {
    return m.mul(m.silu(args[0]), args[1]);
  }
};

/// relu_grad from relu's output: `saved > 0 ? grad : 0`. A select rather
/// than a product, and true for a NaN `saved`, as PyTorch's
/// threshold_backward (`saved <= 0 ? 0 : grad`); with an upper bound also
/// `saved < upper`, true for NaN, as hardtanh_backward.
struct ReluGradLowering : public TrainOpLowering<train::ReluGradOp> {
  using TrainOpLowering::TrainOpLowering;
  LogicalResult
  matchAndRewrite(train::ReluGradOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    auto type = cast<RankedTensorType>(op.getType());
    Value result = buildElementwise(
        rewriter, op.getLoc(), type,
        ValueRange{adaptor.getGrad(), adaptor.getSaved()},
        [&](OpBuilder &b, Location loc, ValueRange args) -> Value {
          Value zero = createScalar(b, loc, type.getElementType(), 0.0);
          Value active = arith::CmpFOp::create(
              b, loc, arith::CmpFPredicate::UGT, args[1], zero);
          if (FloatAttr upper = op.getUpperAttr()) {
            Value bound = createScalar(b, loc, type.getElementType(),
                                       upper.getValueAsDouble());
            Value below = arith::CmpFOp::create(
                b, loc, arith::CmpFPredicate::ULT, args[1], bound);
            active = arith::AndIOp::create(b, loc, active, below);
          }
          return arith::SelectOp::create(b, loc, active, args[0], zero);
        });
    rewriter.replaceOp(op, result);
    return success();
  }
};

struct GeluGradLowering : public ComputedLowering<train::GeluGradOp> {
  using ComputedLowering::ComputedLowering;
  Value compute(train::GeluGradOp op, const ScalarMath &m,
                ValueRange args) const override {
    return emitGeluGrad(m, args[0], args[1], op.getApproximate());
  }
};

/// silu_grad: grad * s * (1 + x * (1 - s)), s = sigmoid(x).
struct SiluGradLowering : public ComputedLowering<train::SiluGradOp> {
  using ComputedLowering::ComputedLowering;
  Value compute(train::SiluGradOp op, const ScalarMath &m,
                ValueRange args) const override {
    Value x = args[1];
    Value s = m.sigmoid(x);
    Value scaled = m.mul(args[0], s);
    return m.mul(scaled, m.add(1.0, m.mul(x, m.sub(1.0, s))));
  }
};

/// sigmoid_grad from sigmoid's output: grad * (1 - y) * y, in PyTorch's
/// order.
struct SigmoidGradLowering : public ComputedLowering<train::SigmoidGradOp> {
  using ComputedLowering::ComputedLowering;
  Value compute(train::SigmoidGradOp op, const ScalarMath &m,
                ValueRange args) const override {
    Value y = args[1];
    return m.mul(m.mul(args[0], m.sub(1.0, y)), y);
  }
};

/// tanh_grad from tanh's output: grad * (1 - y * y), as PyTorch's
/// tanh_backward.
struct TanhGradLowering : public ComputedLowering<train::TanhGradOp> {
  using ComputedLowering::ComputedLowering;
  Value compute(train::TanhGradOp op, const ScalarMath &m,
                ValueRange args) const override {
    Value y = args[1];
    return m.mul(args[0], m.sub(1.0, m.mul(y, y)));
  }
};

/// hardsigmoid_grad: -3 < x < 3 ? grad / 6 : 0 (false for NaN, as PyTorch's
/// ordered comparisons).
struct HardsigmoidGradLowering
    : public ComputedLowering<train::HardsigmoidGradOp> {
  using ComputedLowering::ComputedLowering;
  Value compute(train::HardsigmoidGradOp op, const ScalarMath &m,
                ValueRange args) const override {
    Value x = args[1];
    Value above = m.compare(arith::CmpFPredicate::OGT, x, -3.0);
    Value below = m.compare(arith::CmpFPredicate::OLT, x, 3.0);
    Value inside = arith::AndIOp::create(m.b, m.loc, above, below);
    Value scaled = m.mul(args[0], 1.0 / 6.0);
    return arith::SelectOp::create(m.b, m.loc, inside, scaled, m.c(0.0));
  }
};

/// hardswish_grad as PyTorch's CPU kernel: x < -3 ? 0 : x <= 3 ?
/// grad * (x / 3 + 0.5) : grad (a NaN x takes the last branch).
struct HardswishGradLowering : public ComputedLowering<train::HardswishGradOp> {
  using ComputedLowering::ComputedLowering;
  Value compute(train::HardswishGradOp op, const ScalarMath &m,
                ValueRange args) const override {
    Value grad = args[0], x = args[1];
    Value middle = m.mul(grad, m.add(m.div(x, 3.0), 0.5));
    Value notAbove = m.compare(arith::CmpFPredicate::OLE, x, 3.0);
    Value upper = arith::SelectOp::create(m.b, m.loc, notAbove, middle, grad);
    Value below = m.compare(arith::CmpFPredicate::OLT, x, -3.0);
    return arith::SelectOp::create(m.b, m.loc, below, m.c(0.0), upper);
  }
};

/// swiglu_grad: dgate = grad * up * silu'(gate), dup = grad * silu(gate), one
/// generic with two results.
struct SwigluGradLowering : public TrainOpLowering<train::SwigluGradOp> {
  using TrainOpLowering::TrainOpLowering;
  LogicalResult
  matchAndRewrite(train::SwigluGradOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Type elementType =
        cast<RankedTensorType>(op.getGradGate().getType()).getElementType();
    SmallVector<Value> results = buildElementwiseMulti(
        rewriter, op.getLoc(), op->getResultTypes(),
        ValueRange{adaptor.getGrad(), adaptor.getGate(), adaptor.getUp()},
        [&](OpBuilder &b, Location loc, ValueRange args) {
          ScalarMath m{b, loc, getAccumulatorType(elementType)};
          Value dy = m.in(args[0]), gate = m.in(args[1]), up = m.in(args[2]);
          Value dyUp = m.mul(dy, up);
          Value dgate = m.mul(dyUp, m.siluDerivative(gate));
          Value dup = m.mul(dy, m.silu(gate));
          return SmallVector<Value>{convertFloat(b, loc, dgate, elementType),
                                    convertFloat(b, loc, dup, elementType)};
        });
    rewriter.replaceOp(op, results);
    return success();
  }
};

/// cast: extf / truncf (round to nearest even, rounding once).
struct CastLowering : public TrainOpLowering<train::CastOp> {
  using TrainOpLowering::TrainOpLowering;
  LogicalResult
  matchAndRewrite(train::CastOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    auto type = cast<RankedTensorType>(op.getType());
    if (adaptor.getInput().getType() == type) {
      rewriter.replaceOp(op, adaptor.getInput());
      return success();
    }
    Value result = buildElementwise(
        rewriter, op.getLoc(), type, adaptor.getInput(),
        [&](OpBuilder &b, Location loc, ValueRange args) -> Value {
          return convertFloat(b, loc, args[0], type.getElementType());
        });
    rewriter.replaceOp(op, result);
    return success();
  }
};

/// reduce_sum: linalg.reduce, accumulating 16-bit and 8-bit inputs in f32
/// (as PyTorch's sum) and rounding the sums once.
struct ReduceSumLowering : public TrainOpLowering<train::ReduceSumOp> {
  using TrainOpLowering::TrainOpLowering;
  LogicalResult
  matchAndRewrite(train::ReduceSumOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    auto type = cast<RankedTensorType>(op.getType());
    if (op.getDims().empty()) {
      rewriter.replaceOp(op, adaptor.getInput());
      return success();
    }
    Type elementType = type.getElementType();
    Type accType = getAccumulatorType(elementType);
    Value sum = buildReduceSum(rewriter, loc, adaptor.getInput(), op.getDims(),
                               type.clone(accType));
    if (accType != elementType)
      sum = buildElementwise(
          rewriter, loc, type, sum,
          [&](OpBuilder &b, Location l, ValueRange args) -> Value {
            return convertFloat(b, l, args[0], elementType);
          });
    rewriter.replaceOp(op, sum);
    return success();
  }
};

/// broadcast: linalg.broadcast, whose `dimensions` are the added result
/// dimensions exactly as train.broadcast's `dims`.
struct BroadcastLowering : public TrainOpLowering<train::BroadcastOp> {
  using TrainOpLowering::TrainOpLowering;
  LogicalResult
  matchAndRewrite(train::BroadcastOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    if (op.getDims().empty()) {
      rewriter.replaceOp(op, adaptor.getInput());
      return success();
    }
    Location loc = op.getLoc();
    auto type = cast<RankedTensorType>(op.getType());
    auto broadcast = linalg::BroadcastOp::create(
        rewriter, loc, adaptor.getInput(), createEmpty(rewriter, loc, type),
        op.getDims());
    rewriter.replaceOp(op, broadcast.getResult());
    return success();
  }
};

/// 1 / (1 - rate) computed in f64, as a constant of `type` (one rounding).
static Value createDropoutScale(OpBuilder &b, Location loc, Type type,
                                double rate) {
  return createScalar(b, loc, type, 1.0 / (1.0 - rate));
}

static Value createI64(OpBuilder &b, Location loc, uint64_t value) {
  return arith::ConstantOp::create(
      b, loc, b.getI64IntegerAttr(static_cast<int64_t>(value)));
}

/// dropout. The keep decision of the element at row-major index `i` is, in
/// wrapping u64 arithmetic (a runtime reproduces it bit for bit):
///   x = seed * 0x9E3779B97F4A7C15 + (id << 32) + i
///   x ^= x >> 30; x *= 0xBF58476D1CE4E5B9; x ^= x >> 27;
///   x *= 0x94D049BB133111EB; x ^= x >> 31
///   keep = f64(x >> 40) / 2^24 >= rate
/// result = keep ? input * scale : 0 with scale = 1 / (1 - rate) rounded to
/// the element type once; mask = keep. A partitioned dropout (train-shard)
/// hashes the element's row-major index in the whole tensor: index(d) +
/// offset(d), with the whole shape's strides.
struct DropoutLowering : public TrainOpLowering<train::DropoutOp> {
  using TrainOpLowering::TrainOpLowering;
  LogicalResult
  matchAndRewrite(train::DropoutOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    auto type = cast<RankedTensorType>(op.getResult().getType());
    auto maskType = cast<RankedTensorType>(op.getMask().getType());
    Type elementType = type.getElementType();
    Type maskElementType = maskType.getElementType();
    double rate = op.getRate().convertToDouble();
    uint64_t id = op.getId();
    ArrayRef<int64_t> shape = type.getShape();
    std::optional<ArrayRef<int64_t>> whole = op.getWholeShape();
    ArrayRef<int64_t> strideShape = whole ? *whole : shape;
    SmallVector<Value> offsets;
    for (Value offset : adaptor.getOffsets())
      offsets.push_back(arith::IndexCastOp::create(
          rewriter, loc, rewriter.getI64Type(), offset));

    // Everything that does not depend on the element: seed * C + (id << 32).
    Value seedBuffer = memref::GetGlobalOp::create(
        rewriter, loc, MemRefType::get({}, rewriter.getI64Type()),
        kSeedGlobalName);
    Value seed = memref::LoadOp::create(rewriter, loc, seedBuffer);
    Value seedTerm = arith::MulIOp::create(
        rewriter, loc, seed, createI64(rewriter, loc, 0x9E3779B97F4A7C15ULL));
    Value base = arith::AddIOp::create(rewriter, loc, seedTerm,
                                       createI64(rewriter, loc, id << 32));

    SmallVector<Value> results = buildElementwiseMulti(
        rewriter, loc, TypeRange{type, maskType}, adaptor.getInput(),
        [&](OpBuilder &b, Location l, ValueRange args) {
          Type i64 = b.getI64Type();
          // Row-major linear index: the sum of index(d) * stride(d).
          Value index;
          int64_t stride = 1;
          for (int64_t d = static_cast<int64_t>(shape.size()) - 1; d >= 0;
               --d) {
            Value term = arith::IndexCastOp::create(
                b, l, i64, linalg::IndexOp::create(b, l, d));
            if (!offsets.empty())
              term = arith::AddIOp::create(b, l, term, offsets[d]);
            if (stride != 1)
              term = arith::MulIOp::create(b, l, term, createI64(b, l, stride));
            index = index ? arith::AddIOp::create(b, l, index, term) : term;
            stride *= strideShape[d];
          }
          if (!index)
            index = createI64(b, l, 0);
          Value x = arith::AddIOp::create(b, l, base, index);
          auto xorShift = [&](Value v, uint64_t shift) -> Value {
            return arith::XOrIOp::create(
                b, l, v,
                arith::ShRUIOp::create(b, l, v, createI64(b, l, shift)));
          };
          x = xorShift(x, 30);
          x = arith::MulIOp::create(b, l, x,
                                    createI64(b, l, 0xBF58476D1CE4E5B9ULL));
          x = xorShift(x, 27);
          x = arith::MulIOp::create(b, l, x,
                                    createI64(b, l, 0x94D049BB133111EBULL));
          x = xorShift(x, 31);
          Type f64 = b.getF64Type();
          Value top = arith::ShRUIOp::create(b, l, x, createI64(b, l, 40));
          Value topF64 = arith::UIToFPOp::create(b, l, f64, top);
          Value uniform = arith::MulFOp::create(
              b, l, topF64, createScalar(b, l, f64, 0x1p-24));
          Value keep =
              arith::CmpFOp::create(b, l, arith::CmpFPredicate::OGE, uniform,
                                    createScalar(b, l, f64, rate));
          Value scaled = arith::MulFOp::create(
              b, l, args[0], createDropoutScale(b, l, elementType, rate));
          Value result = arith::SelectOp::create(
              b, l, keep, scaled, createScalar(b, l, elementType, 0.0));
          Value mask = keep;
          if (maskElementType != keep.getType())
            mask = arith::ExtUIOp::create(b, l, maskElementType, keep);
          return SmallVector<Value>{result, mask};
        });
    rewriter.replaceOp(op, results);
    return success();
  }
};

/// dropout_grad: (grad * mask) * scale, scale rounded as in dropout.
struct DropoutGradLowering : public TrainOpLowering<train::DropoutGradOp> {
  using TrainOpLowering::TrainOpLowering;
  LogicalResult
  matchAndRewrite(train::DropoutGradOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    auto type = cast<RankedTensorType>(op.getType());
    Type elementType = type.getElementType();
    double rate = op.getRate().convertToDouble();
    Value result = buildElementwise(
        rewriter, op.getLoc(), type,
        ValueRange{adaptor.getGrad(), adaptor.getMask()},
        [&](OpBuilder &b, Location loc, ValueRange args) -> Value {
          // Unsigned: an i1 `true` is 1, not -1.
          Value mask = arith::UIToFPOp::create(b, loc, elementType, args[1]);
          Value masked = arith::MulFOp::create(b, loc, args[0], mask);
          return arith::MulFOp::create(
              b, loc, masked, createDropoutScale(b, loc, elementType, rate));
        });
    rewriter.replaceOp(op, result);
    return success();
  }
};

} // namespace

void mlir::memopt::populateElementwiseLoweringPatterns(
    RewritePatternSet &patterns) {
  patterns.add<BinaryLowering<train::AddOp, arith::AddFOp>,
               BinaryLowering<train::SubOp, arith::SubFOp>,
               BinaryLowering<train::MulOp, arith::MulFOp>, ScaleLowering,
               BiasAddLowering, ReluLowering, GeluLowering, SiluLowering,
               SigmoidLowering, TanhLowering, HardsigmoidLowering,
               HardswishLowering, SigmoidGradLowering, TanhGradLowering,
               HardsigmoidGradLowering, HardswishGradLowering, SwigluLowering,
               ReluGradLowering, GeluGradLowering, SiluGradLowering,
               SwigluGradLowering, CastLowering, ReduceSumLowering,
               BroadcastLowering, DropoutLowering, DropoutGradLowering>(
      patterns.getContext());
}
