//===- TrainQuantizeFrozen.cpp - the train-quantize-frozen pass -----------===//
//
// QLoRA's storage of a frozen base model: the frozen linear weights become
// quantized storage (frozen train.params of codes and scales) read through
// a dequantize op (Quantization.h). The pass rewrites the forward pass; on
// a whole step it derives the backward pass again, which dequantizes once
// more where the backward pass reads a weight (Autodiff.cpp).
//
//===----------------------------------------------------------------------===//

#include "memopt/Dialect/Train/IR/Precision.h"
#include "memopt/Dialect/Train/IR/Quantization.h"
#include "memopt/Dialect/Train/IR/TrainOps.h"
#include "memopt/Transforms/Autodiff.h"
#include "memopt/Transforms/PassOptions.h"
#include "memopt/Transforms/Passes.h"

#include "mlir/IR/Builders.h"
#include "llvm/ADT/MapVector.h"
#include "llvm/ADT/StringSet.h"
#include "llvm/Support/MathExtras.h"

namespace mlir::memopt {
#define GEN_PASS_DEF_TRAINQUANTIZEFROZENPASS
#include "memopt/Transforms/Passes.h.inc"
} // namespace mlir::memopt

using namespace mlir;
using namespace mlir::memopt;
using train::WeightFormat;

namespace {
/// What the pass stores a weight as.
struct QuantizeConfig {
  WeightFormat format;
  int64_t block;
  bool doubleQuant;
};
} // namespace

/// Whether every use of `param` is the right operand of a train.matmul,
/// and, for int8, the dimension of the output features (the same for every
/// read, else a diagnostic at the later read).
static FailureOr<std::optional<int64_t>> getLinearAxis(train::ParamOp param) {
  SmallVector<train::MatmulOp> readers;
  for (OpOperand &use : param->getUses()) {
    auto matmul = dyn_cast<train::MatmulOp>(use.getOwner());
    if (!matmul || use.getOperandNumber() != 1)
      return std::optional<int64_t>();
    readers.push_back(matmul);
  }
  llvm::sort(readers, [](train::MatmulOp a, train::MatmulOp b) {
    return a->isBeforeInBlock(b);
  });
  std::optional<int64_t> axis;
  for (train::MatmulOp matmul : readers) {
    int64_t outputs = matmul.getTransposeRhs() ? 0 : 1;
    if (axis && *axis != outputs) {
      InFlightDiagnostic diag =
          matmul.emitOpError()
          << "train-quantize-frozen: the weight '" << param.getName()
          << "' is read transposed by one matmul and not by another: its "
             "output features are not one dimension";
      diag.attachNote(readers.front().getLoc()) << "the other read";
      return diag;
    }
    axis = outputs;
  }
  return axis;
}

/// The frozen linear weights of `func`, with their output-feature axes:
/// every read of the name is a frozen 2-D float parameter that only matmuls
/// read as their right operand.
static FailureOr<SmallVector<std::pair<train::ParamOp, int64_t>>>
findFrozenWeights(func::FuncOp func, ArrayRef<StringRef> keep) {
  // A weight `<module>.weight` whose module is one of `keep`, or ends with
  // '.' and one, stays as it is.
  auto isKept = [&](StringRef name) {
    if (!name.consume_back(".weight"))
      return false;
    return llvm::any_of(keep, [&](StringRef module) {
      return name == module || (name.ends_with(module) &&
                                name.drop_back(module.size()).ends_with("."));
    });
  };
  llvm::MapVector<StringRef, SmallVector<std::pair<train::ParamOp, int64_t>>>
      byName;
  llvm::StringSet<> excluded;
  for (auto param : func.getBody().front().getOps<train::ParamOp>()) {
    auto type = cast<RankedTensorType>(param.getType());
    FailureOr<std::optional<int64_t>> axis = getLinearAxis(param);
    if (failed(axis))
      return failure();
    if (param.getTrainable() || isKept(param.getName()) ||
        type.getRank() != 2 || !isa<FloatType>(type.getElementType()) ||
        !*axis || param->use_empty()) {
      excluded.insert(param.getName());
      continue;
    }
    byName[param.getName()].push_back({param, **axis});
  }
  SmallVector<std::pair<train::ParamOp, int64_t>> weights;
  for (auto &[name, reads] : byName)
    if (!excluded.contains(name))
      weights.append(reads);
  return weights;
}

/// Replaces the weight `param` by its quantized storage, read in its place,
/// and a dequantize op before each use (QLoRA dequantizes where the layer
/// computes: the dequantized weight lives only while its matmul runs).
static void quantizeWeight(train::ParamOp param, int64_t axis,
                           const QuantizeConfig &config) {
  MLIRContext *ctx = param.getContext();
  OpBuilder builder(param);
  auto type = cast<RankedTensorType>(param.getType());
  std::string weight = param.getName().str();
  Attribute layer = param->getAttr(train::TrainDialect::kLayerAttrName);
  auto tag = [&](Operation *op) {
    if (layer)
      op->setAttr(train::TrainDialect::kLayerAttrName, layer);
    return op;
  };
  auto storage = [&](StringRef suffix, ArrayRef<int64_t> shape,
                     Type element) -> Value {
    std::string name = weight + "." + suffix.str();
    auto op = train::ParamOp::create(
        builder, NameLoc::get(StringAttr::get(ctx, name), param.getLoc()),
        RankedTensorType::get(shape, element), name, /*trainable=*/false);
    return tag(op)->getResult(0);
  };
  Type i8 = builder.getI8Type(), f32 = builder.getF32Type();
  int64_t n = type.getNumElements();
  SmallVector<Value> parts;
  if (config.format == WeightFormat::Int8) {
    parts.push_back(storage("int8.codes", type.getShape(), i8));
    parts.push_back(storage("int8.scale", {type.getDimSize(axis)}, f32));
  } else {
    int64_t blocks = train::getNF4Blocks(n, config.block);
    parts.push_back(storage("nf4.codes", {train::getNF4CodeBytes(n)}, i8));
    parts.push_back(
        storage("nf4.absmax", {blocks}, config.doubleQuant ? i8 : f32));
    if (config.doubleQuant) {
      parts.push_back(storage("nf4.absmax.scale",
                              {train::getDoubleQuantBlocks(blocks)}, f32));
      parts.push_back(storage("nf4.absmax.offset", {}, f32));
    }
  }
  Location loc = NameLoc::get(StringAttr::get(ctx, weight + ".dequantize"),
                              param.getLoc());
  for (OpOperand &use : llvm::make_early_inc_range(param->getUses())) {
    // Before the conversions train-precision made of the matmul's other
    // operand, where that pass puts them after a dequantize: quantizing
    // before or after it gives one program.
    Operation *point = use.getOwner();
    while (auto cast = dyn_cast_or_null<train::CastOp>(point->getPrevNode())) {
      if (!llvm::is_contained(cast->getUsers(), use.getOwner()))
        break;
      point = cast;
    }
    builder.setInsertionPoint(point);
    Operation *dequantize;
    if (config.format == WeightFormat::Int8)
      dequantize = train::DequantizeInt8Op::create(builder, loc, type, parts[0],
                                                   parts[1], weight, axis);
    else
      dequantize = train::DequantizeNF4Op::create(
          builder, loc, type, parts[0], parts[1],
          config.doubleQuant ? parts[2] : Value(),
          config.doubleQuant ? parts[3] : Value(), weight,
          static_cast<uint64_t>(config.block));
    use.set(tag(dequantize)->getResult(0));
  }
  param->erase();
}

namespace {
struct TrainQuantizeFrozenPass
    : public memopt::impl::TrainQuantizeFrozenPassBase<
          TrainQuantizeFrozenPass> {
  using Base::Base;

  LogicalResult initializeOptions(
      StringRef options,
      function_ref<LogicalResult(const Twine &)> errorHandler) override {
    if (failed(checkEnumPassOption("train-quantize-frozen", "format", options,
                                   format, errorHandler)))
      return failure();
    if (failed(parseOptionsNamingPass(
            "train-quantize-frozen", options, errorHandler,
            [&](StringRef text,
                function_ref<LogicalResult(const Twine &)> handler) {
              return Base::initializeOptions(text, handler);
            })))
      return failure();
    if (format == WeightFormat::Int8 &&
        (findPassOptionValue(options, "block") ||
         findPassOptionValue(options, "double-quant")))
      return errorHandler("train-quantize-frozen: block and double-quant "
                          "apply to format=nf4; int8 keeps one scale per "
                          "output feature");
    return success();
  }

  /// The options, or a diagnostic at `func`.
  FailureOr<QuantizeConfig> checkOptions(func::FuncOp func) {
    QuantizeConfig config{format, block, doubleQuant};
    if (format == WeightFormat::NF4 &&
        (block < train::kMinNF4Block || block > train::kMaxNF4Block ||
         !llvm::isPowerOf2_64(block)))
      return func.emitOpError()
             << "train-quantize-frozen: block must be a power of two from "
             << train::kMinNF4Block << " to " << train::kMaxNF4Block << ", got "
             << static_cast<int64_t>(block);
    if (func->hasAttr(train::TrainDialect::kShardAttrName))
      return func.emitOpError()
             << "carries '" << train::TrainDialect::kShardAttrName
             << "': apply train-quantize-frozen before train-shard";
    std::optional<train::PrecisionConfig> precision =
        train::getPrecisionConfig(func);
    if (precision && precision->mode == train::PrecisionMode::FP8)
      return func.emitOpError(
          "train-quantize-frozen: train-precision{mode=fp8} made the linear "
          "layers fp8 matmuls of the weights; quantize the frozen weights "
          "before train-precision");
    if (!func.getBody().hasOneBlock())
      return func.emitOpError("expected a single-block function");
    return config;
  }

  void runOnOperation() override {
    func::FuncOp func = getOperation();
    if (func.isExternal())
      return;
    FailureOr<QuantizeConfig> config = checkOptions(func);
    if (failed(config))
      return signalPassFailure();
    auto rewrite = [&](func::FuncOp forward) -> LogicalResult {
      WalkResult quantized = forward.walk([](Operation *op) {
        return isa<train::DequantizeNF4Op, train::DequantizeInt8Op>(op)
                   ? WalkResult::interrupt()
                   : WalkResult::advance();
      });
      if (quantized.wasInterrupted())
        return forward.emitOpError(
            "train-quantize-frozen: the function already reads quantized "
            "weights; quantize once");
      SmallVector<StringRef> kept;
      StringRef(keep).split(kept, ',', /*MaxSplit=*/-1, /*KeepEmpty=*/false);
      FailureOr<SmallVector<std::pair<train::ParamOp, int64_t>>> weights =
          findFrozenWeights(forward, kept);
      if (failed(weights))
        return failure();
      if (weights->empty())
        return forward.emitOpError(
            "train-quantize-frozen: no frozen linear weight to quantize (a "
            "frozen 2-D float train.param that only train.matmuls read, as "
            "their right operand); apply train-lora or train-freeze first");
      for (auto [param, axis] : *weights)
        quantizeWeight(param, axis, *config);
      return success();
    };
    if (failed(rewriteForwardPass(func, "train-quantize-frozen", rewrite)))
      signalPassFailure();
  }
};
} // namespace
