//===- Precision.cpp - the mixed-precision configuration of a step --------===//

#include "memopt/Dialect/Train/IR/Precision.h"
#include "memopt/Dialect/Train/IR/TrainDialect.h"

#include "mlir/IR/Builders.h"
#include "llvm/ADT/StringSwitch.h"

using namespace mlir;
using namespace mlir::memopt;
using namespace mlir::memopt::train;

StringRef train::stringifyPrecisionMode(PrecisionMode mode) {
  switch (mode) {
  case PrecisionMode::FP32:
    return "fp32";
  case PrecisionMode::BF16Mixed:
    return "bf16-mixed";
  case PrecisionMode::FP16Mixed:
    return "fp16-mixed";
  case PrecisionMode::BF16Pure:
    return "bf16-pure";
  case PrecisionMode::FP8:
    return "fp8";
  }
  llvm_unreachable("unknown precision mode");
}

std::optional<PrecisionMode> train::symbolizePrecisionMode(StringRef text) {
  return llvm::StringSwitch<std::optional<PrecisionMode>>(text)
      .Case("fp32", PrecisionMode::FP32)
      .Case("bf16-mixed", PrecisionMode::BF16Mixed)
      .Case("fp16-mixed", PrecisionMode::FP16Mixed)
      .Case("bf16-pure", PrecisionMode::BF16Pure)
      .Case("fp8", PrecisionMode::FP8)
      .Default(std::nullopt);
}

Type PrecisionConfig::getLowType(MLIRContext *ctx) const {
  switch (mode) {
  case PrecisionMode::FP32:
    return {};
  case PrecisionMode::BF16Mixed:
  case PrecisionMode::BF16Pure:
  case PrecisionMode::FP8:
    return BFloat16Type::get(ctx);
  case PrecisionMode::FP16Mixed:
    return Float16Type::get(ctx);
  }
  llvm_unreachable("unknown precision mode");
}

Type PrecisionConfig::getGradientType(MLIRContext *ctx) const {
  if (mode == PrecisionMode::FP32 || !lowPrecisionGradients)
    return Float32Type::get(ctx);
  return getLowType(ctx);
}

static constexpr StringLiteral kModeKey = "mode";
static constexpr StringLiteral kGradsKey = "grads";
static constexpr StringLiteral kLossScaleKey = "loss_scale";
static constexpr StringLiteral kInitialScaleKey = "initial_scale";
static constexpr StringLiteral kGrowthIntervalKey = "growth_interval";
static constexpr StringLiteral kAmaxHistoryKey = "amax_history";
static constexpr StringLiteral kMarginKey = "margin";

DictionaryAttr PrecisionConfig::toAttr(MLIRContext *ctx) const {
  Builder b(ctx);
  SmallVector<NamedAttribute> entries;
  entries.push_back(
      b.getNamedAttr(kModeKey, b.getStringAttr(stringifyPrecisionMode(mode))));
  entries.push_back(b.getNamedAttr(
      kGradsKey,
      b.getStringAttr(lowPrecisionGradients
                          ? (mode == PrecisionMode::FP16Mixed ? "fp16" : "bf16")
                          : "fp32")));
  switch (lossScaling) {
  case LossScaling::None:
    break;
  case LossScaling::Static:
    entries.push_back(b.getNamedAttr(kLossScaleKey, b.getF64FloatAttr(scale)));
    break;
  case LossScaling::Dynamic:
    entries.push_back(
        b.getNamedAttr(kLossScaleKey, b.getStringAttr("dynamic")));
    entries.push_back(
        b.getNamedAttr(kInitialScaleKey, b.getF64FloatAttr(scale)));
    entries.push_back(b.getNamedAttr(kGrowthIntervalKey,
                                     b.getI64IntegerAttr(growthInterval)));
    break;
  }
  if (mode == PrecisionMode::FP8) {
    entries.push_back(
        b.getNamedAttr(kAmaxHistoryKey, b.getI64IntegerAttr(amaxHistory)));
    entries.push_back(b.getNamedAttr(kMarginKey, b.getI64IntegerAttr(margin)));
  }
  return b.getDictionaryAttr(entries);
}

FailureOr<PrecisionConfig>
PrecisionConfig::fromAttr(DictionaryAttr attr,
                          function_ref<InFlightDiagnostic()> emitError) {
  PrecisionConfig config;
  auto mode = dyn_cast_or_null<StringAttr>(attr.get(kModeKey));
  std::optional<PrecisionMode> parsed =
      mode ? symbolizePrecisionMode(mode.getValue()) : std::nullopt;
  if (!parsed)
    return emitError() << "'train.precision' needs a 'mode': fp32, "
                          "bf16-mixed, fp16-mixed, bf16-pure or fp8";
  config.mode = *parsed;
  auto grads = dyn_cast_or_null<StringAttr>(attr.get(kGradsKey));
  if (!grads || !llvm::is_contained({"fp32", "bf16", "fp16"}, grads.getValue()))
    return emitError() << "'train.precision' needs 'grads': fp32, bf16 or "
                          "fp16";
  config.lowPrecisionGradients = grads.getValue() != "fp32";
  if (config.lowPrecisionGradients &&
      grads.getValue() !=
          (config.mode == PrecisionMode::FP16Mixed ? "fp16" : "bf16"))
    return emitError() << "'train.precision' grads '" << grads.getValue()
                       << "' do not match mode '" << mode.getValue() << "'";
  Attribute lossScale = attr.get(kLossScaleKey);
  if (auto value = dyn_cast_or_null<FloatAttr>(lossScale)) {
    config.lossScaling = LossScaling::Static;
    config.scale = value.getValueAsDouble();
  } else if (auto text = dyn_cast_or_null<StringAttr>(lossScale);
             text && text.getValue() == "dynamic") {
    config.lossScaling = LossScaling::Dynamic;
    auto initial = dyn_cast_or_null<FloatAttr>(attr.get(kInitialScaleKey));
    auto interval = dyn_cast_or_null<IntegerAttr>(attr.get(kGrowthIntervalKey));
    if (!initial || !interval)
      return emitError() << "'train.precision' with dynamic loss scaling "
                            "needs 'initial_scale' (f64) and "
                            "'growth_interval' (i64)";
    config.scale = initial.getValueAsDouble();
    config.growthInterval = interval.getInt();
  } else if (lossScale) {
    return emitError() << "'train.precision' loss_scale must be a float or "
                          "\"dynamic\"";
  }
  if (config.lossScaling != LossScaling::None &&
      (!(config.scale > 0.0) || !std::isfinite(config.scale)))
    return emitError() << "'train.precision' loss scale must be a positive "
                          "finite number";
  if (config.lossScaling == LossScaling::Dynamic && config.growthInterval < 1)
    return emitError() << "'train.precision' growth_interval must be >= 1";
  if (config.mode == PrecisionMode::FP8) {
    auto history = dyn_cast_or_null<IntegerAttr>(attr.get(kAmaxHistoryKey));
    auto margin = dyn_cast_or_null<IntegerAttr>(attr.get(kMarginKey));
    if (!history || !margin || history.getInt() < 1 || margin.getInt() < 0)
      return emitError() << "'train.precision' mode fp8 needs 'amax_history' "
                            "(an i64 >= 1) and 'margin' (an i64 >= 0)";
    config.amaxHistory = history.getInt();
    config.margin = margin.getInt();
  }
  return config;
}

std::optional<PrecisionConfig>
train::getPrecisionConfig(FunctionOpInterface func) {
  auto attr =
      func->getAttrOfType<DictionaryAttr>(TrainDialect::kPrecisionAttrName);
  if (!attr)
    return std::nullopt;
  FailureOr<PrecisionConfig> config =
      PrecisionConfig::fromAttr(attr, [&] { return func->emitError(); });
  if (failed(config))
    return std::nullopt;
  return *config;
}

std::optional<double> train::getFP8MaxFinite(Type type) {
  if (isa<Float8E4M3FNType>(type))
    return 448.0;
  if (isa<Float8E5M2Type>(type))
    return 57344.0;
  return std::nullopt;
}
