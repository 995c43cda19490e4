//===- StateLowering.cpp - persistent state and optimizers ----------------===//
//
// Parameters and optimizer states live in module globals (see Passes.td);
// optimizers compute the new values elementwise and write them back in
// place, following PyTorch's single-tensor optimizer code operation by
// operation so that results agree to rounding.
//
//===----------------------------------------------------------------------===//

#include "Lowering.h"

#include "mlir/Dialect/Bufferization/IR/Bufferization.h"
#include "mlir/Dialect/SCF/IR/SCF.h"

#include <limits>

using namespace mlir;
using namespace mlir::memopt;

Value memopt::readGlobal(OpBuilder &b, Location loc, StringRef symbol,
                         RankedTensorType type) {
  auto memrefType = MemRefType::get(type.getShape(), type.getElementType());
  Value buffer = memref::GetGlobalOp::create(b, loc, memrefType, symbol);
  return bufferization::ToTensorOp::create(b, loc, type, buffer,
                                           /*restrict=*/true,
                                           /*writable=*/true);
}

void memopt::writeBack(OpBuilder &b, Location loc, Value stateValue,
                       Value value) {
  std::string symbol;
  if (auto param = stateValue.getDefiningOp<train::ParamOp>())
    symbol = getParamGlobalName(param.getName());
  else
    symbol = getStateGlobalName(
        stateValue.getDefiningOp<train::OptStateOp>().getName());
  auto type = cast<RankedTensorType>(value.getType());
  auto memrefType = MemRefType::get(type.getShape(), type.getElementType());
  Value buffer = memref::GetGlobalOp::create(b, loc, memrefType, symbol);
  bufferization::MaterializeInDestinationOp::create(b, loc, TypeRange{}, value,
                                                    buffer, /*restrict=*/true,
                                                    /*writable=*/true);
}

Value memopt::readGradient(OpBuilder &b, Location loc, Value grad,
                           Value converted) {
  auto state = grad.getDefiningOp<train::OptStateOp>();
  if (!state)
    return converted;
  return readGlobal(b, loc, getStateGlobalName(state.getName()),
                    cast<RankedTensorType>(state.getType()));
}

AdamArithmetic::AdamArithmetic(OpBuilder &b, Location loc, Value step,
                               Value skipped, double lr, double beta1,
                               double beta2, double epsilon, double weightDecay,
                               bool decoupled, Type type)
    : lr(lr), beta1(beta1), beta2(beta2), epsilon(epsilon),
      weightDecay(weightDecay), decoupled(decoupled), type(type) {
  // Bias corrections from the step count, in f64 like PyTorch's Python
  // scalars, then rounded to `type`.
  Type f64 = b.getF64Type();
  Value t = castScalar(b, loc, tensor::ExtractOp::create(b, loc, step), f64);
  // Under dynamic loss scaling the skipped steps are not updates.
  if (skipped)
    t = arith::SubFOp::create(
        b, loc, t,
        castScalar(b, loc, tensor::ExtractOp::create(b, loc, skipped), f64));
  auto pow = [&](double base) {
    return math::PowFOp::create(b, loc, createScalar(b, loc, f64, base), t);
  };
  Value one = createScalar(b, loc, f64, 1.0);
  Value bc1 = arith::SubFOp::create(b, loc, one, pow(beta1));
  Value bc2 = arith::SubFOp::create(b, loc, one, pow(beta2));
  stepSize = castScalar(
      b, loc, arith::DivFOp::create(b, loc, createScalar(b, loc, f64, lr), bc1),
      type);
  bc2Sqrt = castScalar(b, loc, math::SqrtOp::create(b, loc, bc2), type);
}

void AdamArithmetic::decay(OpBuilder &b, Location l, Value &param,
                           Value &grad) const {
  if (weightDecay == 0.0)
    return;
  if (decoupled)
    param = arith::MulFOp::create(
        b, l, param, createScalar(b, l, type, 1.0 - lr * weightDecay));
  else
    grad = arith::AddFOp::create(
        b, l, grad,
        arith::MulFOp::create(b, l, param,
                              createScalar(b, l, type, weightDecay)));
}

void AdamArithmetic::moments(OpBuilder &b, Location l, Value grad, Value &m,
                             Value &v) const {
  auto c = [&](double value) { return createScalar(b, l, type, value); };
  // lerp_(grad, 1 - beta1): m + (1 - beta1) * (grad - m)
  m = arith::AddFOp::create(
      b, l, m,
      arith::MulFOp::create(b, l, c(1.0 - beta1),
                            arith::SubFOp::create(b, l, grad, m)));
  // v = v * beta2 + (grad * grad) * (1 - beta2)
  v = arith::AddFOp::create(
      b, l, arith::MulFOp::create(b, l, v, c(beta2)),
      arith::MulFOp::create(b, l, arith::MulFOp::create(b, l, grad, grad),
                            c(1.0 - beta2)));
}

Value AdamArithmetic::update(OpBuilder &b, Location l, Value param, Value m,
                             Value v) const {
  Value denom = arith::AddFOp::create(
      b, l, arith::DivFOp::create(b, l, math::SqrtOp::create(b, l, v), bc2Sqrt),
      createScalar(b, l, type, epsilon));
  // param.addcdiv_(m, denom, value=-step_size)
  Value step = arith::MulFOp::create(b, l, stepSize,
                                     arith::DivFOp::create(b, l, m, denom));
  return arith::SubFOp::create(b, l, param, step);
}

namespace {

struct ParamLowering : public OpConversionPattern<train::ParamOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(train::ParamOp op, OpAdaptor,
                  ConversionPatternRewriter &rewriter) const override {
    rewriter.replaceOp(op, readGlobal(rewriter, op.getLoc(),
                                      getParamGlobalName(op.getName()),
                                      cast<RankedTensorType>(op.getType())));
    return success();
  }
};

struct OptStateLowering : public OpConversionPattern<train::OptStateOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(train::OptStateOp op, OpAdaptor,
                  ConversionPatternRewriter &rewriter) const override {
    rewriter.replaceOp(op, readGlobal(rewriter, op.getLoc(),
                                      getStateGlobalName(op.getName()),
                                      cast<RankedTensorType>(op.getType())));
    return success();
  }
};

/// Deallocation is bufferization's job; the marker has no other effect.
struct FreeLowering : public OpConversionPattern<train::FreeOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(train::FreeOp op, OpAdaptor,
                  ConversionPatternRewriter &rewriter) const override {
    rewriter.eraseOp(op);
    return success();
  }
};

struct SgdLowering : public OpConversionPattern<train::SgdOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(train::SgdOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    auto paramType = cast<RankedTensorType>(adaptor.getParam().getType());
    Type elementType = paramType.getElementType();
    double lr = op.getLr().convertToDouble();
    double momentum = op.getMomentum().convertToDouble();
    double weightDecay = op.getWeightDecay().convertToDouble();
    // The state tensors are the destinations: updated in place.
    SmallVector<Value> inits = {adaptor.getParam()};
    bool hasBuffer = static_cast<bool>(adaptor.getMomentumBuffer());
    if (hasBuffer)
      inits.push_back(adaptor.getMomentumBuffer());
    UpdateScaling scaling(rewriter, loc, adaptor.getGradScale(),
                          adaptor.getFoundNonfinite());
    SmallVector<Value> updated = buildElementwiseInto(
        rewriter, loc,
        readGradient(rewriter, loc, op.getGrad(), adaptor.getGrad()), inits,
        [&](OpBuilder &b, Location l, ValueRange args) {
          Value param = args[1];
          // d_p = grad + weight_decay * param
          Value dp = scaling.unscale(
              b, l, castScalar(b, l, args[0], elementType), elementType);
          if (weightDecay != 0.0)
            dp = arith::AddFOp::create(
                b, l, dp,
                arith::MulFOp::create(
                    b, l, createScalar(b, l, elementType, weightDecay), param));
          SmallVector<Value> results;
          Value direction = dp;
          if (hasBuffer) {
            // buf = momentum * buf + d_p
            Value bufType = args[2];
            Value buf = castScalar(b, l, bufType, elementType);
            buf = arith::AddFOp::create(
                b, l,
                arith::MulFOp::create(
                    b, l, createScalar(b, l, elementType, momentum), buf),
                dp);
            direction = buf;
            results.push_back(castScalar(b, l, buf, bufType.getType()));
          }
          // param = param - lr * direction
          Value step = arith::MulFOp::create(
              b, l, createScalar(b, l, elementType, lr), direction);
          results.insert(results.begin(),
                         arith::SubFOp::create(b, l, param, step));
          return scaling.select(b, l, args.drop_front(), results);
        });
    writeBack(rewriter, loc, op.getParam(), updated[0]);
    if (hasBuffer)
      writeBack(rewriter, loc, op.getMomentumBuffer(), updated[1]);
    rewriter.eraseOp(op);
    return success();
  }
};

/// Whether the micro-batch index `index` (a 0-d i64 tensor) is 0: the first
/// micro-batch of an optimizer step.
static Value isFirstMicroBatch(OpBuilder &b, Location loc, Value index) {
  // (Created in this order: arguments' evaluation order is unspecified.)
  Value value = tensor::ExtractOp::create(b, loc, index);
  Value zero = arith::ConstantOp::create(b, loc, b.getI64IntegerAttr(0));
  return arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq, value, zero);
}

/// Gradient accumulation: g = convert(grad) * scale in the buffer's element
/// type; buffer = g on micro-batch 0, buffer + g after.
struct AccumulateLowering : public OpConversionPattern<train::AccumulateOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(train::AccumulateOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    Type elementType =
        cast<RankedTensorType>(adaptor.getBuffer().getType()).getElementType();
    double scale = op.getScale().convertToDouble();
    Value first = isFirstMicroBatch(rewriter, loc, adaptor.getMicroBatch());
    SmallVector<Value> updated = buildElementwiseInto(
        rewriter, loc, adaptor.getGrad(), {adaptor.getBuffer()},
        [&](OpBuilder &b, Location l, ValueRange args) -> SmallVector<Value> {
          Value grad = castScalar(b, l, args[0], elementType);
          if (scale != 1.0)
            grad = arith::MulFOp::create(
                b, l, grad, createScalar(b, l, elementType, scale));
          Value sum = arith::AddFOp::create(b, l, args[1], grad);
          return {arith::SelectOp::create(b, l, first, grad, sum)};
        });
    writeBack(rewriter, loc, op.getBuffer(), updated[0]);
    rewriter.eraseOp(op);
    return success();
  }
};

/// copy = convert(master) on micro-batch 0 only: under an scf.if, so that
/// the other micro-batches neither read the host's master nor write the
/// device's copy.
struct RefreshLowering : public OpConversionPattern<train::RefreshOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(train::RefreshOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    Type elementType =
        cast<RankedTensorType>(adaptor.getCopy().getType()).getElementType();
    Value first = isFirstMicroBatch(rewriter, loc, adaptor.getMicroBatch());
    auto ifOp = scf::IfOp::create(rewriter, loc, first, /*withElse=*/false);
    rewriter.setInsertionPoint(ifOp.thenBlock()->getTerminator());
    // Into a read of the copy's global of its own: the copy's readers read
    // the global (after this write, in program order), so bufferization
    // sees no later reader of this tensor and writes in place, as for the
    // accumulation buffers (readGradient).
    auto copyType = cast<RankedTensorType>(adaptor.getCopy().getType());
    Value destination = readGlobal(
        rewriter, loc,
        getStateGlobalName(
            op.getCopy().getDefiningOp<train::OptStateOp>().getName()),
        copyType);
    SmallVector<Value> converted = buildElementwiseInto(
        rewriter, loc, adaptor.getMaster(), {destination},
        [&](OpBuilder &b, Location l, ValueRange args) -> SmallVector<Value> {
          return {castScalar(b, l, args[0], elementType)};
        });
    writeBack(rewriter, loc, op.getCopy(), converted[0]);
    rewriter.eraseOp(op);
    return success();
  }
};

/// index != micro_batches - 1 (a micro-batch before the last), or-ed with
/// the loss-scale check when given.
struct MicroBatchSkipLowering
    : public OpConversionPattern<train::MicroBatchSkipOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(train::MicroBatchSkipOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    int64_t last = op.getMicroBatches() - 1;
    SmallVector<Value> inputs = {adaptor.getMicroBatch()};
    if (Value found = adaptor.getFoundNonfinite())
      inputs.push_back(found);
    Value skip = buildElementwise(
        rewriter, op.getLoc(), cast<RankedTensorType>(op.getType()), inputs,
        [&](OpBuilder &b, Location l, ValueRange args) -> Value {
          Value notLast = arith::CmpIOp::create(
              b, l, arith::CmpIPredicate::ne, args[0],
              arith::ConstantOp::create(b, l, b.getI64IntegerAttr(last)));
          if (args.size() == 1)
            return notLast;
          return arith::OrIOp::create(b, l, notLast, args[1]);
        });
    rewriter.replaceOp(op, skip);
    return success();
  }
};

/// index = (index + 1) mod micro_batches, in place.
struct MicroBatchAdvanceLowering
    : public OpConversionPattern<train::MicroBatchAdvanceOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(train::MicroBatchAdvanceOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    int64_t microBatches = op.getMicroBatches();
    SmallVector<Value> updated = buildElementwiseInto(
        rewriter, loc, ValueRange{}, ValueRange{adaptor.getMicroBatch()},
        [&](OpBuilder &b, Location l, ValueRange args) -> SmallVector<Value> {
          auto constant = [&](int64_t v) -> Value {
            return arith::ConstantOp::create(b, l, b.getI64IntegerAttr(v));
          };
          Value next = arith::AddIOp::create(b, l, args[0], constant(1));
          Value wraps = arith::CmpIOp::create(b, l, arith::CmpIPredicate::sge,
                                              next, constant(microBatches));
          return {arith::SelectOp::create(b, l, wraps, constant(0), next)};
        });
    writeBack(rewriter, loc, op.getMicroBatch(), updated[0]);
    rewriter.eraseOp(op);
    return success();
  }
};

/// adam and adamw: PyTorch's _single_tensor_adam(w) (AdamArithmetic), in
/// the parameter's element type.
template <typename OpTy, bool kDecoupled>
struct AdamLowering : public OpConversionPattern<OpTy> {
  using OpConversionPattern<OpTy>::OpConversionPattern;
  using OpAdaptor = typename OpConversionPattern<OpTy>::OpAdaptor;

  LogicalResult
  matchAndRewrite(OpTy op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    auto paramType = cast<RankedTensorType>(adaptor.getParam().getType());
    Type elementType = paramType.getElementType();
    AdamArithmetic adam(rewriter, loc, op, adaptor.getStep(),
                        adaptor.getSkippedSteps(), kDecoupled, elementType);
    UpdateScaling scaling(rewriter, loc, adaptor.getGradScale(),
                          adaptor.getFoundNonfinite());

    // The state tensors are the destinations: updated in place.
    SmallVector<Value> updated = buildElementwiseInto(
        rewriter, loc,
        readGradient(rewriter, loc, op.getGrad(), adaptor.getGrad()),
        ValueRange{adaptor.getParam(), adaptor.getExpAvg(),
                   adaptor.getExpAvgSq()},
        [&](OpBuilder &b, Location l, ValueRange args) {
          Value param = args[1];
          Value grad = scaling.unscale(
              b, l, castScalar(b, l, args[0], elementType), elementType);
          Value m = castScalar(b, l, args[2], elementType);
          Value v = castScalar(b, l, args[3], elementType);
          adam.decay(b, l, param, grad);
          adam.moments(b, l, grad, m, v);
          param = adam.update(b, l, param, m, v);
          return scaling.select(b, l, args.drop_front(),
                                {param, castScalar(b, l, m, args[2].getType()),
                                 castScalar(b, l, v, args[3].getType())});
        });
    writeBack(rewriter, loc, op.getParam(), updated[0]);
    writeBack(rewriter, loc, op.getExpAvg(), updated[1]);
    writeBack(rewriter, loc, op.getExpAvgSq(), updated[2]);
    rewriter.eraseOp(op);
    return success();
  }
};

/// initial_scale * 2^exponent, exactly: 2^e is the f64 whose exponent field
/// is e + 1023 (e clamped to f64's normal range), and the product is
/// rounded once, to f32.
struct LossScaleLowering : public OpConversionPattern<train::LossScaleOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(train::LossScaleOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    double initial = op.getInitialScale().convertToDouble();
    auto type = cast<RankedTensorType>(op.getType());
    Value scale = buildElementwise(
        rewriter, op.getLoc(), type, adaptor.getExponent(),
        [&](OpBuilder &b, Location l, ValueRange args) {
          auto constant = [&](int64_t v) {
            return arith::ConstantOp::create(b, l, b.getI64IntegerAttr(v));
          };
          Value e = arith::MaxSIOp::create(b, l, args[0], constant(-1022));
          e = arith::MinSIOp::create(b, l, e, constant(1023));
          Value bits = arith::ShLIOp::create(
              b, l, arith::AddIOp::create(b, l, e, constant(1023)),
              constant(52));
          Value power = arith::BitcastOp::create(b, l, b.getF64Type(), bits);
          Value product = arith::MulFOp::create(
              b, l, power, createScalar(b, l, b.getF64Type(), initial));
          return castScalar(b, l, product, type.getElementType());
        });
    rewriter.replaceOp(op, scale);
    return success();
  }
};

/// One reduction per input into a shared 0-d i1: |x| >= inf or unordered
/// (NaN), or-ed.
struct AnyNonfiniteLowering
    : public OpConversionPattern<train::AnyNonfiniteOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(train::AnyNonfiniteOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    auto flagType = cast<RankedTensorType>(op.getType());
    Value found = createFilled(rewriter, loc, flagType, 0.0);
    for (auto [original, converted] :
         llvm::zip_equal(op.getInputs(), adaptor.getInputs())) {
      // A gradient-accumulation buffer is read after its accumulation.
      Value input = readGradient(rewriter, loc, original, converted);
      auto inputType = cast<RankedTensorType>(input.getType());
      auto dims = llvm::to_vector(llvm::seq<int64_t>(0, inputType.getRank()));
      auto reduce = linalg::ReduceOp::create(
          rewriter, loc, input, found, dims,
          [&](OpBuilder &b, Location l, ValueRange args) {
            Value magnitude = math::AbsFOp::create(b, l, args[0]);
            Value infinity =
                createScalar(b, l, args[0].getType(),
                             std::numeric_limits<double>::infinity());
            Value nonfinite = arith::CmpFOp::create(
                b, l, arith::CmpFPredicate::UGE, magnitude, infinity);
            linalg::YieldOp::create(
                b, l, Value(arith::OrIOp::create(b, l, args[1], nonfinite)));
          });
      found = reduce.getResult(0);
    }
    rewriter.replaceOp(op, found);
    return success();
  }
};

/// GradScaler's update_scale on the three counters, in place.
struct LossScaleUpdateLowering
    : public OpConversionPattern<train::LossScaleUpdateOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(train::LossScaleUpdateOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    int64_t interval = op.getGrowthInterval();
    Value skip;
    if (Value flag = adaptor.getSkip())
      skip = tensor::ExtractOp::create(rewriter, loc, flag);
    SmallVector<Value> updated = buildElementwiseInto(
        rewriter, loc, adaptor.getFoundNonfinite(),
        ValueRange{adaptor.getExponent(), adaptor.getGrowthTracker(),
                   adaptor.getSkippedSteps()},
        [&](OpBuilder &b, Location l, ValueRange args) {
          auto constant = [&](int64_t v) -> Value {
            return arith::ConstantOp::create(b, l, b.getI64IntegerAttr(v));
          };
          Value found = args[0], exponent = args[1], tracker = args[2],
                skipped = args[3];
          Value one = constant(1), zero = constant(0);
          // Finite: count the step; at the interval, double the scale.
          Value counted = arith::AddIOp::create(b, l, tracker, one);
          Value grow = arith::CmpIOp::create(b, l, arith::CmpIPredicate::eq,
                                             counted, constant(interval));
          Value grown = arith::SelectOp::create(
              b, l, grow, arith::AddIOp::create(b, l, exponent, one), exponent);
          Value restarted = arith::SelectOp::create(b, l, grow, zero, counted);
          // Inf/NaN: halve the scale, restart the count, skip the step.
          SmallVector<Value> results = {
              arith::SelectOp::create(
                  b, l, found, arith::SubIOp::create(b, l, exponent, one),
                  grown),
              arith::SelectOp::create(b, l, found, zero, restarted),
              arith::SelectOp::create(b, l, found,
                                      arith::AddIOp::create(b, l, skipped, one),
                                      skipped)};
          // A micro-batch before the last of its step changes nothing.
          if (skip)
            for (auto [result, old] :
                 llvm::zip_equal(results, args.drop_front()))
              result = arith::SelectOp::create(b, l, skip, old, result);
          return results;
        });
    writeBack(rewriter, loc, op.getExponent(), updated[0]);
    writeBack(rewriter, loc, op.getGrowthTracker(), updated[1]);
    writeBack(rewriter, loc, op.getSkippedSteps(), updated[2]);
    rewriter.eraseOp(op);
    return success();
  }
};

/// amax_record, in place: history[i] = history[i - 1] from the last index
/// down (an scf.for on the state, which bufferizes without a copy), then
/// history[0] = amax.
struct AmaxRecordLowering : public OpConversionPattern<train::AmaxRecordOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(train::AmaxRecordOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    Value history = adaptor.getAmaxHistory();
    int64_t size = cast<RankedTensorType>(history.getType()).getDimSize(0);
    auto index = [&](int64_t value) -> Value {
      return arith::ConstantIndexOp::create(rewriter, loc, value);
    };
    Value zero = index(0);
    Value last = index(size - 1);
    Value one = index(1);
    auto loop = scf::ForOp::create(
        rewriter, loc, zero, last, one, ValueRange{history},
        [&](OpBuilder &b, Location l, Value iv, ValueRange args) {
          Value to = arith::SubIOp::create(b, l, last, iv);
          Value from = arith::SubIOp::create(b, l, to, one);
          Value moved = tensor::ExtractOp::create(b, l, args[0], from);
          Value updated = tensor::InsertOp::create(b, l, moved, args[0], to);
          scf::YieldOp::create(b, l, updated);
        });
    Value amax = tensor::ExtractOp::create(rewriter, loc, adaptor.getAmax());
    Value recorded =
        tensor::InsertOp::create(rewriter, loc, amax, loop.getResult(0), zero);
    writeBack(rewriter, loc, op.getAmaxHistory(), recorded);
    rewriter.eraseOp(op);
    return success();
  }
};

} // namespace

void mlir::memopt::populateStateLoweringPatterns(RewritePatternSet &patterns) {
  patterns
      .add<ParamLowering, OptStateLowering, FreeLowering, SgdLowering,
           AccumulateLowering, RefreshLowering, MicroBatchSkipLowering,
           MicroBatchAdvanceLowering, AdamLowering<train::AdamOp, false>,
           AdamLowering<train::AdamWOp, true>, LossScaleLowering,
           AnyNonfiniteLowering, LossScaleUpdateLowering, AmaxRecordLowering>(
          patterns.getContext());
}
