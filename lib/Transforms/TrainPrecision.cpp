//===- TrainPrecision.cpp - mixed-precision lowering of a step ------------===//
//
// Lowers an fp32 forward + loss function to mixed precision by the ops'
// precision classes, and a whole step by lowering its forward pass and
// deriving the backward pass again (docs/precision.md says why).
//
//===----------------------------------------------------------------------===//

#include "memopt/Dialect/Train/IR/ComputeTypes.h"
#include "memopt/Dialect/Train/IR/Precision.h"
#include "memopt/Dialect/Train/IR/Quantization.h"
#include "memopt/Dialect/Train/IR/TrainOps.h"
#include "memopt/Dialect/Train/IR/TrainStep.h"
#include "memopt/Transforms/Autodiff.h"
#include "memopt/Transforms/PassOptions.h"
#include "memopt/Transforms/Passes.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/Verifier.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/ScopeExit.h"
#include "llvm/ADT/StringSet.h"
#include "llvm/Support/FormatVariadic.h"

#include <cmath>
#include <limits>

namespace mlir::memopt {
#define GEN_PASS_DEF_TRAINPRECISIONPASS
#include "memopt/Transforms/Passes.h.inc"
} // namespace mlir::memopt

using namespace mlir;
using namespace mlir::memopt;
using train::PrecisionClass;
using train::PrecisionConfig;
using train::PrecisionMode;

/// fp16's largest finite value.
static constexpr double kFP16Max = 65504.0;

/// The name of `loc` (its first NameLoc), or "".
static StringRef getLocationName(Location loc) {
  if (auto name = dyn_cast<NameLoc>(loc))
    return name.getName().strref();
  if (auto fused = dyn_cast<FusedLoc>(loc))
    for (Location part : fused.getLocations())
      if (StringRef name = getLocationName(part); !name.empty())
        return name;
  if (auto call = dyn_cast<CallSiteLoc>(loc))
    return getLocationName(call.getCallee());
  return "";
}

/// Whether `entry` (of keep-fp32 / exclude) names `op`: its location name,
/// a prefix of it that ends before a '.', or its train.layer.
static bool namesOp(StringRef entry, Operation *op) {
  if (auto layer =
          op->getAttrOfType<StringAttr>(train::TrainDialect::kLayerAttrName);
      layer && layer.getValue() == entry)
    return true;
  StringRef name = getLocationName(op->getLoc());
  return name == entry ||
         (name.starts_with(entry) && name.size() > entry.size() &&
          name[entry.size()] == '.');
}

static RankedTensorType getFloatTensorType(Type type) {
  auto tensor = dyn_cast<RankedTensorType>(type);
  return tensor && isa<FloatType>(tensor.getElementType()) ? tensor
                                                           : RankedTensorType();
}

static std::string getTypeName(Type type) {
  std::string text;
  llvm::raw_string_ostream os(text);
  type.print(os);
  return text;
}

namespace {

/// Rewrites the ops of an fp32 forward + loss function to `config`.
class ForwardLowering {
public:
  ForwardLowering(func::FuncOp func, const PrecisionConfig &config,
                  ArrayRef<std::string> pinned, ArrayRef<std::string> excluded)
      : func(func), config(config), pinned(pinned), excluded(excluded),
        low(config.getLowType(func.getContext())),
        f32(Float32Type::get(func.getContext())) {}

  void run();

  /// The pinned entries that named at least one op.
  const llvm::StringSet<> &getUsedEntries() const { return used; }

private:
  bool isNamedBy(ArrayRef<std::string> entries, Operation *op);
  Type getComputeType(Operation *op, bool isPinned);
  Value convert(Value value, Type elementType, Operation *user);
  void lowerToFP8(train::MatmulOp op);

  func::FuncOp func;
  const PrecisionConfig &config;
  ArrayRef<std::string> pinned, excluded;
  Type low, f32;
  llvm::StringSet<> used;
  llvm::DenseMap<std::pair<Value, Type>, Value> casts;
  /// The names of the fp8 matmuls so far, to keep state names unique.
  llvm::StringMap<unsigned> fp8Names;
};

} // namespace

bool ForwardLowering::isNamedBy(ArrayRef<std::string> entries, Operation *op) {
  bool found = false;
  for (const std::string &entry : entries)
    if (namesOp(entry, op)) {
      used.insert(entry);
      found = true;
    }
  return found;
}

/// Whether `value` is read from a parameter (an f32 master in mixed modes).
static bool isParameter(Value value) {
  return value.getDefiningOp<train::ParamOp>() != nullptr;
}

Type ForwardLowering::getComputeType(Operation *op, bool isPinned) {
  if (isPinned)
    return f32;
  std::optional<PrecisionClass> cls = train::getPrecisionClass(op);
  if (!cls)
    return {};
  switch (*cls) {
  case PrecisionClass::LowPrecisionSafe:
    return low;
  case PrecisionClass::KeepFP32:
    return f32;
  case PrecisionClass::PromoteToWidest: {
    // A parameter counts as its low copy (Megatron's bf16 model weights,
    // PyTorch's bias inside a bf16 linear).
    Type widest;
    for (Value operand : op->getOperands()) {
      RankedTensorType type = getFloatTensorType(operand.getType());
      if (!type)
        continue;
      Type element = isParameter(operand) ? low : type.getElementType();
      widest = widest ? train::getWiderFloatType(widest, element) : element;
    }
    return widest ? widest : low;
  }
  }
  llvm_unreachable("unknown precision class");
}

/// `value` converted to `elementType`: one train.cast per value and type,
/// placed before its first user and named after the value.
Value ForwardLowering::convert(Value value, Type elementType, Operation *user) {
  auto type = cast<RankedTensorType>(value.getType());
  if (type.getElementType() == elementType)
    return value;
  auto [it, inserted] = casts.try_emplace({value, elementType}, Value());
  if (!inserted)
    return it->second;
  MLIRContext *ctx = func.getContext();
  Location source = value.getDefiningOp() ? value.getDefiningOp()->getLoc()
                                          : cast<BlockArgument>(value).getLoc();
  StringRef name = getLocationName(source);
  if (auto param = value.getDefiningOp<train::ParamOp>())
    name = param.getName();
  Location loc = user->getLoc();
  if (!name.empty())
    loc = NameLoc::get(
        StringAttr::get(ctx, name + "." + getTypeName(elementType)), source);
  OpBuilder builder(user);
  auto castOp =
      train::CastOp::create(builder, loc, type.clone(elementType), value);
  if (Attribute layer = user->getAttr(train::TrainDialect::kLayerAttrName))
    castOp->setAttr(train::TrainDialect::kLayerAttrName, layer);
  return it->second = castOp.getResult();
}

/// Whether `op` is a linear layer fp8 applies to: a matmul reading a
/// parameter.
static bool isLinearLayer(Operation *op) {
  auto matmul = dyn_cast<train::MatmulOp>(op);
  return matmul &&
         (isParameter(matmul.getLhs()) || isParameter(matmul.getRhs()));
}

/// Replaces `op` by Transformer Engine's fp8 linear layer: each operand
/// quantized to E4M3 with the scale of its amax history (a parameter from
/// its f32 master, an activation from the value it computes), one
/// train.scaled_matmul into bf16 whose output gradient has a history too.
void ForwardLowering::lowerToFP8(train::MatmulOp op) {
  MLIRContext *ctx = func.getContext();
  OpBuilder builder(op);
  std::string name = getLocationName(op.getLoc()).str();
  if (name.empty())
    name = "matmul";
  unsigned &count = fp8Names[name];
  if (count++ > 0)
    name += "#" + std::to_string(count);
  Attribute layer = op->getAttr(train::TrainDialect::kLayerAttrName);
  auto tag = [&](Operation *created) {
    if (layer)
      created->setAttr(train::TrainDialect::kLayerAttrName, layer);
  };
  auto historyType = RankedTensorType::get({config.amaxHistory}, f32);
  auto scalar = RankedTensorType::get({}, f32);
  Type e4m3 = Float8E4M3FNType::get(ctx);
  auto readHistory = [&](StringRef role) -> Value {
    std::string state = "fp8." + name + "." + role.str() + ".amax_history";
    auto history = train::OptStateOp::create(
        builder, NameLoc::get(StringAttr::get(ctx, state), op.getLoc()),
        historyType, state);
    return history.getResult();
  };
  auto quantize = [&](Value value, StringRef role) -> std::pair<Value, Value> {
    Value history = readHistory(role);
    Location loc = NameLoc::get(
        StringAttr::get(ctx, name + "." + role + ".fp8"), op.getLoc());
    auto scale =
        train::FP8ScaleOp::create(builder, loc, scalar, history, e4m3,
                                  static_cast<uint64_t>(config.margin));
    tag(scale);
    auto type = cast<RankedTensorType>(value.getType());
    auto quantized = train::QuantizeOp::create(
        builder, loc, TypeRange{type.clone(e4m3), scalar}, value, scale);
    tag(quantized);
    return {quantized.getResult(), scale.getResult()};
  };
  auto [lhs, lhsScale] = quantize(op.getLhs(), "lhs");
  auto [rhs, rhsScale] = quantize(op.getRhs(), "rhs");
  Value gradHistory = readHistory("grad_output");
  auto resultType = cast<RankedTensorType>(op.getType()).clone(low);
  auto scaled = train::ScaledMatmulOp::create(
      builder, op.getLoc(), resultType, lhs, rhs, lhsScale, rhsScale,
      gradHistory, op.getTransposeLhs(), op.getTransposeRhs());
  tag(scaled);
  op.getResult().replaceAllUsesWith(scaled.getResult());
  op->erase();
}

void ForwardLowering::run() {
  Block &body = func.getBody().front();
  bool pure = config.mode == PrecisionMode::BF16Pure;
  SmallVector<Operation *> ops;
  for (Operation &op : body.without_terminator())
    ops.push_back(&op);

  for (Operation *op : ops) {
    if (auto param = dyn_cast<train::ParamOp>(op)) {
      // bf16-pure: the parameter itself is bf16 (no master copy). A frozen
      // parameter is never updated, so in every mode it is stored in the
      // low type, without a master (a fine-tuned model's base weights).
      // Quantized storage keeps its format's types.
      if (RankedTensorType type = getFloatTensorType(param.getType());
          type && (pure || !param.getTrainable()) &&
          !train::isQuantizedStorage(param.getResult()))
        param.getResult().setType(type.clone(low));
      continue;
    }
    // A quantized frozen weight dequantizes to the low type, as the frozen
    // weight itself would be stored in it: quantizing before or after this
    // pass gives the same program.
    if (isa<train::DequantizeNF4Op, train::DequantizeInt8Op>(op)) {
      auto type = cast<RankedTensorType>(op->getResult(0).getType());
      op->getResult(0).setType(type.clone(low));
      continue;
    }
    if (!isa<train::TrainDialect>(op->getDialect()))
      continue;
    bool isPinnedOp = isNamedBy(pinned, op);
    bool isExcluded = isNamedBy(excluded, op);
    // Excluded ops are one step wider than the mode's narrowest type: bf16
    // under fp8, f32 otherwise.
    if (config.mode == PrecisionMode::FP8) {
      if (!isPinnedOp && !isExcluded && isLinearLayer(op)) {
        lowerToFP8(cast<train::MatmulOp>(op));
        continue;
      }
    } else {
      isPinnedOp |= isExcluded;
    }
    Type computeType = getComputeType(op, isPinnedOp);
    if (!computeType)
      continue;
    for (OpOperand &operand : op->getOpOperands()) {
      Value value = operand.get();
      if (!getFloatTensorType(value.getType()))
        continue;
      // Compute reads a parameter's low copy; pinned ops read the master.
      if (!pure && !isPinnedOp && isParameter(value))
        value = convert(value, low, op);
      operand.set(convert(value, computeType, op));
    }
    // The first result is the data; the others (normalization statistics,
    // attention's log-sum-exp, masks) keep their types.
    if (op->getNumResults() > 0)
      if (RankedTensorType type =
              getFloatTensorType(op->getResult(0).getType()))
        op->getResult(0).setType(type.clone(computeType));
  }

  Operation *ret = body.getTerminator();
  func.setType(FunctionType::get(func.getContext(), func.getArgumentTypes(),
                                 ret->getOperandTypes()));
  func->setAttr(train::TrainDialect::kPrecisionAttrName,
                config.toAttr(func.getContext()));
}

//===----------------------------------------------------------------------===//
// The pass
//===----------------------------------------------------------------------===//

/// Fails at the first float tensor in `func` that is not f32: the pass
/// lowers fp32 programs only.
static LogicalResult verifyFP32(func::FuncOp func) {
  auto check = [&](Type type,
                   function_ref<InFlightDiagnostic()> emit) -> LogicalResult {
    RankedTensorType tensor = getFloatTensorType(type);
    if (!tensor || tensor.getElementType().isF32())
      return success();
    return emit() << "train-precision lowers fp32 programs, but this tensor "
                  << "is " << tensor.getElementType()
                  << "; generate the program in fp32 (mem-gen without "
                     "--dtype) and let the pass choose the precisions";
  };
  for (BlockArgument arg : func.getArguments())
    if (failed(check(arg.getType(), [&] {
          return mlir::emitError(arg.getLoc())
                 << "argument #" << arg.getArgNumber() << ": ";
        })))
      return failure();
  WalkResult walk = func.walk([&](Operation *op) {
    for (Type type : op->getResultTypes())
      if (failed(check(type, [&] { return op->emitOpError(); })))
        return WalkResult::interrupt();
    return WalkResult::advance();
  });
  return failure(walk.wasInterrupted());
}

namespace {

struct TrainPrecisionPass
    : public memopt::impl::TrainPrecisionPassBase<TrainPrecisionPass> {
  using Base::Base;

  LogicalResult initializeOptions(
      StringRef options,
      function_ref<LogicalResult(const Twine &)> errorHandler) override {
    if (failed(checkEnumPassOption("train-precision", "mode", options, mode,
                                   errorHandler)))
      return failure();
    if (failed(parseOptionsNamingPass(
            "train-precision", options, errorHandler,
            [&](StringRef text,
                function_ref<LogicalResult(const Twine &)> handler) {
              return Base::initializeOptions(text, handler);
            })))
      return failure();
    // Checked here too so that a bad value fails as an option error.
    return failure(failed(buildConfig(errorHandler)));
  }

  /// Builds the configuration from the options, however they were set
  /// (textual options, or TrainPrecisionPassOptions from C++).
  LogicalResult initialize(MLIRContext *ctx) override {
    FailureOr<PrecisionConfig> parsed =
        buildConfig([&](const Twine &message) -> LogicalResult {
          return emitError(UnknownLoc::get(ctx)) << message;
        });
    if (failed(parsed))
      return failure();
    config = *parsed;
    return success();
  }

  void runOnOperation() override;

private:
  FailureOr<PrecisionConfig>
  buildConfig(function_ref<LogicalResult(const Twine &)> errorHandler);
  LogicalResult lowerStep(func::FuncOp step, ArrayRef<std::string> pinned,
                          ArrayRef<std::string> excluded,
                          llvm::StringSet<> &used);

  PrecisionConfig config;
};

} // namespace

FailureOr<PrecisionConfig> TrainPrecisionPass::buildConfig(
    function_ref<LogicalResult(const Twine &)> errorHandler) {
  PrecisionConfig result;
  result.mode = mode;
  StringRef lowName = mode == PrecisionMode::FP16Mixed ? "fp16" : "bf16";
  StringRef gradsText = grads;
  if (gradsText.empty())
    result.lowPrecisionGradients = mode == PrecisionMode::FP16Mixed;
  else if (gradsText == "fp32")
    result.lowPrecisionGradients = false;
  else if (gradsText == lowName)
    result.lowPrecisionGradients = true;
  else {
    (void)errorHandler(
        "train-precision: grads='" + gradsText + "' does not fit mode=" +
        train::stringifyPrecisionMode(mode) + "; expected fp32 or " + lowName);
    return failure();
  }
  if (mode == PrecisionMode::BF16Pure || mode == PrecisionMode::FP32) {
    if (!gradsText.empty() &&
        result.lowPrecisionGradients != (mode == PrecisionMode::BF16Pure)) {
      (void)errorHandler(
          "train-precision: grads=" + gradsText +
          " does not fit mode=" + train::stringifyPrecisionMode(mode) +
          " (its gradients have the parameters' type)");
      return failure();
    }
    result.lowPrecisionGradients = mode == PrecisionMode::BF16Pure;
  }

  if (mode == PrecisionMode::FP8) {
    if (amaxHistory < 1 || margin < 0 || margin > 64) {
      (void)errorHandler("train-precision: amax-history must be at least 1 "
                         "and margin in [0, 64]");
      return failure();
    }
    result.amaxHistory = amaxHistory;
    result.margin = margin;
  } else if (amaxHistory != 16 || margin != 0) {
    (void)errorHandler("train-precision: amax-history and margin apply to "
                       "mode=fp8 only");
    return failure();
  }

  StringRef scaleText = lossScale;
  if (mode != PrecisionMode::FP16Mixed) {
    if (!scaleText.empty() && scaleText != "none") {
      (void)errorHandler("train-precision: loss-scale applies to "
                         "mode=fp16-mixed only (bf16 has fp32's exponent "
                         "range and needs no loss scaling)");
      return failure();
    }
    return result;
  }
  if (scaleText.empty() || scaleText == "dynamic") {
    result.lossScaling = train::LossScaling::Dynamic;
    result.scale = initialScale;
    result.growthInterval = growthInterval;
  } else if (scaleText == "none") {
    result.lossScaling = train::LossScaling::None;
  } else {
    double value = 0.0;
    if (scaleText.getAsDouble(value) || !(value > 0.0) ||
        !std::isfinite(value)) {
      (void)errorHandler("train-precision: loss-scale='" + scaleText +
                         "' is not dynamic, none or a positive number");
      return failure();
    }
    // The scaled gradients flow through fp16 ops: a scale past fp16's
    // range overflows them (inf), and a static scale never backs off.
    if (value > kFP16Max) {
      (void)errorHandler(
          "train-precision: loss-scale=" + scaleText +
          " is above fp16's largest value 65504: the scaled gradients would "
          "overflow fp16 to inf and the parameters become NaN (give a static "
          "scale of at most 65504, or loss-scale=dynamic)");
      return failure();
    }
    result.lossScaling = train::LossScaling::Static;
    result.scale = value;
  }
  if (result.lossScaling == train::LossScaling::Dynamic &&
      (!(initialScale > 0.0) || !std::isfinite(initialScale) ||
       growthInterval < 1)) {
    (void)errorHandler("train-precision: initial-scale must be a positive "
                       "number and growth-interval at least 1");
    return failure();
  }
  // The dynamic scale is computed in f32 (train.loss_scale): a larger first
  // scale would be +inf, and every step would back off and skip until it
  // came back into range.
  if (result.lossScaling == train::LossScaling::Dynamic &&
      initialScale > std::numeric_limits<float>::max()) {
    (void)errorHandler(llvm::formatv(
        "train-precision: initial-scale={0:e} is above f32's largest value "
        "{1:e} (the dynamic scale is computed in f32: it would be inf, and "
        "the steps would be skipped until it backed off into range)",
        initialScale, std::numeric_limits<float>::max()));
    return failure();
  }
  return result;
}

LogicalResult TrainPrecisionPass::lowerStep(func::FuncOp step,
                                            ArrayRef<std::string> pinned,
                                            ArrayRef<std::string> excluded,
                                            llvm::StringSet<> &used) {
  FailureOr<AutodiffOptions> options = inferAutodiffOptions(step);
  if (failed(options))
    return failure();
  auto forward = cast<func::FuncOp>(step->clone());
  llvm::scope_exit eraseForward([&] { forward->erase(); });
  eraseBackward(forward);
  forward->removeAttr(train::TrainDialect::kPrecisionAttrName);

  // The step must be what autodiff derives from its forward pass: otherwise
  // deriving it again would drop what another pass or a person changed.
  FailureOr<bool> derived = isDerivedFrom(step, forward, *options);
  if (failed(derived))
    return failure();
  if (!*derived)
    return mlir::emitError(step.getLoc())
           << "@" << step.getSymName()
           << " is not the step train-autodiff derives from its forward "
              "pass (another pass, such as train-lifetimes or train-remat, "
              "or a hand edit changed it); apply train-precision to the "
              "forward + loss function, or to the step train-autodiff "
              "produced, before other passes";

  ForwardLowering lowering(forward, config, pinned, excluded);
  lowering.run();
  for (const auto &entry : lowering.getUsedEntries())
    used.insert(entry.getKey());
  if (failed(appendBackward(forward, *options)))
    return failure();

  step.getBody().takeBody(forward.getBody());
  step.setType(forward.getFunctionType());
  step->setAttrs(forward->getAttrDictionary());
  return success();
}

void TrainPrecisionPass::runOnOperation() {
  func::FuncOp func = getOperation();
  if (func.isExternal())
    return;
  if (auto previous = func->getAttrOfType<DictionaryAttr>(
          train::TrainDialect::kPrecisionAttrName)) {
    func.emitOpError() << "was already lowered by train-precision (" << previous
                       << "); apply it once, to the fp32 program";
    return signalPassFailure();
  }
  // train-shard partitions the precisions train-precision chose (the order
  // of memopt-pipeline); lowering a partitioned program would have to lower
  // its collectives too, which have no rule for it.
  if (auto shard = func->getAttrOfType<DictionaryAttr>(
          train::TrainDialect::kShardAttrName)) {
    func.emitOpError() << "was already partitioned by train-shard (" << shard
                       << "); apply train-precision first, before "
                          "train-shard, to the fp32 program";
    return signalPassFailure();
  }
  if (!func.getBody().hasOneBlock()) {
    func.emitOpError("expected a single-block function");
    return signalPassFailure();
  }
  // train-offload places the precisions chosen here (the 16-bit copies it
  // makes on the host): it comes after.
  WalkResult placed = func.walk([](Operation *op) {
    return train::isHostOp(op) || isa<train::ToHostOp, train::ToDeviceOp>(op)
               ? WalkResult::interrupt()
               : WalkResult::advance();
  });
  if (placed.wasInterrupted()) {
    func.emitOpError() << "keeps values in host memory (train-offload); "
                          "apply train-precision first, before train-offload";
    return signalPassFailure();
  }
  if (failed(train::verifyNotLowered(func, "train-precision")) ||
      failed(verifyFP32(func)))
    return signalPassFailure();

  // A static scale below 1 shrinks the fp16 gradients it exists to enlarge:
  // any gradient below fp16's smallest subnormal (2^-24) divided by the
  // scale flushes to zero, and training stalls without an error.
  if (config.lossScaling == train::LossScaling::Static && config.scale < 1.0)
    func.emitWarning(llvm::formatv(
        "train-precision: loss-scale={0} is below 1: it shrinks the fp16 "
        "gradients, and every gradient smaller than {1:e} in magnitude "
        "becomes 0 (loss scaling should enlarge them; try loss-scale=dynamic)",
        StringRef(lossScale), std::ldexp(1.0, -24) / config.scale));

  SmallVector<std::string> pinned(keepFp32.begin(), keepFp32.end());
  SmallVector<std::string> excluded(exclude.begin(), exclude.end());
  llvm::StringSet<> used;
  if (config.mode != PrecisionMode::FP32) {
    if (isTrainingStep(func)) {
      if (failed(lowerStep(func, pinned, excluded, used)))
        return signalPassFailure();
    } else {
      ForwardLowering lowering(func, config, pinned, excluded);
      lowering.run();
      used = lowering.getUsedEntries();
    }
  } else {
    // fp32 changes nothing, but a pin that names no op is still a mistake.
    func.walk([&](Operation *op) {
      for (const std::string &entry :
           llvm::concat<std::string>(pinned, excluded))
        if (namesOp(entry, op))
          used.insert(entry);
    });
  }
  for (const std::string &entry : llvm::concat<std::string>(pinned, excluded))
    if (!used.contains(entry)) {
      func.emitOpError() << "has no op named '" << entry
                         << "' (train-precision keep-fp32/exclude): give an "
                            "op's location name, a prefix of it ending "
                            "before a '.', or a train.layer name";
      return signalPassFailure();
    }
  if (failed(verify(func))) {
    func.emitOpError("train-precision produced invalid IR (a bug: please "
                     "report it with this input)");
    return signalPassFailure();
  }
}
