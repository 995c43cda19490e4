//===- TrainLora.cpp - the train-lora and train-freeze passes -------------===//
//
// Fine-tuning: parameters frozen by name (train-freeze), and PEFT's LoRA
// adapters on the matched linear layers with the rest of the model frozen
// (train-lora). Both rewrite the forward pass; on a whole step they derive
// its backward pass again.
//
//===----------------------------------------------------------------------===//

#include "memopt/Transforms/Autodiff.h"
#include "memopt/Transforms/Lora.h"
#include "memopt/Transforms/PassOptions.h"
#include "memopt/Transforms/Passes.h"

#include "memopt/Dialect/Train/IR/TrainOps.h"

#include "mlir/IR/Builders.h"
#include "llvm/ADT/StringMap.h"
#include "llvm/ADT/StringSet.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/GlobPattern.h"

namespace mlir::memopt {
#define GEN_PASS_DEF_TRAINFREEZEPASS
#define GEN_PASS_DEF_TRAINLORAPASS
#include "memopt/Transforms/Passes.h.inc"
} // namespace mlir::memopt

using namespace mlir;
using namespace mlir::memopt;

/// Refuses a function train-precision or train-shard already rewrote:
/// `passName` works on the fp32, unpartitioned program.
static LogicalResult checkNotLoweredYet(func::FuncOp func, StringRef passName) {
  for (StringRef attr : {train::TrainDialect::kPrecisionAttrName,
                         train::TrainDialect::kShardAttrName})
    if (func->hasAttr(attr))
      return func.emitOpError()
             << "carries '" << attr << "': apply " << passName
             << " before train-precision and train-shard, to the fp32 "
                "program";
  if (!func.getBody().hasOneBlock())
    return func.emitOpError("expected a single-block function");
  return success();
}

//===----------------------------------------------------------------------===//
// train-freeze
//===----------------------------------------------------------------------===//

namespace {
struct TrainFreezePass
    : public memopt::impl::TrainFreezePassBase<TrainFreezePass> {
  using Base::Base;

  void runOnOperation() override {
    func::FuncOp func = getOperation();
    if (func.isExternal())
      return;
    if (params.empty()) {
      func.emitOpError("train-freeze: expected params=PATTERN[,PATTERN...]");
      return signalPassFailure();
    }
    SmallVector<llvm::GlobPattern> patterns;
    for (const std::string &text : params) {
      llvm::Expected<llvm::GlobPattern> pattern =
          llvm::GlobPattern::create(text);
      if (!pattern) {
        func.emitOpError() << "train-freeze: bad pattern '" << text
                           << "': " << llvm::toString(pattern.takeError());
        return signalPassFailure();
      }
      patterns.push_back(std::move(*pattern));
    }
    if (failed(checkNotLoweredYet(func, "train-freeze")))
      return signalPassFailure();
    auto freeze = [&](func::FuncOp forward) -> LogicalResult {
      SmallVector<bool> used(patterns.size(), false);
      forward.walk([&](train::ParamOp param) {
        for (auto [index, pattern] : llvm::enumerate(patterns))
          if (pattern.match(param.getName())) {
            used[index] = true;
            param.setTrainable(false);
          }
      });
      for (auto [index, isUsed] : llvm::enumerate(used))
        if (!isUsed)
          return forward.emitOpError() << "train-freeze: no parameter matches '"
                                       << params[index] << "'";
      return success();
    };
    if (failed(rewriteForwardPass(func, "train-freeze", freeze)))
      signalPassFailure();
  }
};
} // namespace

//===----------------------------------------------------------------------===//
// train-lora
//===----------------------------------------------------------------------===//

namespace {
/// A linear layer train-lora adapts: `matmul` reads `weight`, the parameter
/// `<module>.weight`.
struct LoraSite {
  train::MatmulOp matmul;
  train::ParamOp weight;
  std::string module;
  int64_t in = 0, out = 0;
};

struct LoraConfig {
  int64_t rank;
  double alpha, dropout;
};
} // namespace

/// The target of `targets` that `module` matches: equal to it, or ending
/// with '.' and it (PEFT's suffix rule).
static std::optional<size_t> matchTarget(StringRef module,
                                         ArrayRef<std::string> targets) {
  for (auto [index, target] : llvm::enumerate(targets))
    if (module == target || (module.ends_with(target) &&
                             module.drop_back(target.size()).ends_with(".")))
      return index;
  return std::nullopt;
}

/// The linear layers of `func` whose modules `targets` match, or a
/// diagnostic.
static FailureOr<SmallVector<LoraSite>>
findSites(func::FuncOp func, ArrayRef<std::string> targets) {
  SmallVector<LoraSite> sites;
  SmallVector<bool> used(targets.size(), false);
  llvm::StringSet<> existing;
  func.walk([&](train::ParamOp param) { existing.insert(param.getName()); });
  llvm::StringMap<Operation *> adapted;
  WalkResult walk = func.walk([&](train::MatmulOp matmul) -> WalkResult {
    auto weight = matmul.getRhs().getDefiningOp<train::ParamOp>();
    if (!weight || !weight.getName().ends_with(".weight"))
      return WalkResult::advance();
    StringRef module = weight.getName().drop_back(strlen(".weight"));
    std::optional<size_t> target = matchTarget(module, targets);
    if (!target)
      return WalkResult::advance();
    used[*target] = true;
    auto type = cast<RankedTensorType>(weight.getType());
    if (type.getRank() != 2 || !isa<FloatType>(type.getElementType()) ||
        matmul.getTransposeLhs())
      return matmul.emitOpError()
             << "train-lora: the linear layer '" << module
             << "' must read a 2-D float weight on the right (got " << type
             << ")";
    if (existing.contains((module + ".lora_A.weight").str()))
      return matmul.emitOpError()
             << "train-lora: '" << module << "' already has an adapter";
    auto [it, inserted] = adapted.try_emplace(module, matmul);
    if (!inserted) {
      InFlightDiagnostic diag =
          matmul.emitOpError()
          << "train-lora: the weight '" << weight.getName()
          << "' is read by more than one matmul (a tied weight); an adapter "
             "on it would change every reader";
      diag.attachNote(it->second->getLoc()) << "the other read";
      return diag;
    }
    bool transposed = matmul.getTransposeRhs();
    int64_t in = type.getDimSize(transposed ? 1 : 0);
    int64_t out = type.getDimSize(transposed ? 0 : 1);
    sites.push_back({matmul, weight, module.str(), in, out});
    return WalkResult::advance();
  });
  if (walk.wasInterrupted())
    return failure();
  for (auto [index, isUsed] : llvm::enumerate(used))
    if (!isUsed)
      return func.emitOpError()
             << "train-lora: no linear layer matches the target '"
             << targets[index]
             << "' (a target names a module whose weight a train.matmul "
                "reads, such as q_proj)";
  return sites;
}

/// The first dropout id no dropout of `func` uses.
static int64_t getNextDropoutId(func::FuncOp func) {
  int64_t next = 0;
  func.walk([&](train::DropoutOp dropout) {
    next = std::max<int64_t>(next, dropout.getId() + 1);
  });
  return next;
}

/// Rewrites `site` to `W x + (alpha/rank) B(A(dropout(x)))`.
static void addAdapter(LoraSite site, const LoraConfig &config,
                       int64_t &dropoutId) {
  train::MatmulOp matmul = site.matmul;
  MLIRContext *ctx = matmul.getContext();
  Attribute layer = matmul->getAttr(train::TrainDialect::kLayerAttrName);
  // The adapter's output joins after the layer's bias, as PEFT adds it to
  // the base layer's output.
  Value base = matmul.getResult();
  if (matmul->hasOneUse())
    if (auto bias = dyn_cast<train::BiasAddOp>(*matmul->user_begin()))
      if (bias.getInput() == base)
        base = bias.getResult();
  OpBuilder builder(ctx);
  builder.setInsertionPointAfterValue(base);
  auto loc = [&](StringRef suffix) -> Location {
    return NameLoc::get(StringAttr::get(ctx, site.module + "." + suffix),
                        matmul.getLoc());
  };
  auto tag = [&](Operation *op) {
    if (layer)
      op->setAttr(train::TrainDialect::kLayerAttrName, layer);
    return op;
  };
  Type element = cast<RankedTensorType>(site.weight.getType()).getElementType();
  auto param = [&](StringRef name, ArrayRef<int64_t> shape) -> Value {
    auto op = train::ParamOp::create(
        builder, loc(name), RankedTensorType::get(shape, element),
        site.module + "." + name.str() + ".weight");
    return tag(op)->getResult(0);
  };
  Value x = matmul.getLhs();
  auto xType = cast<RankedTensorType>(x.getType());
  if (config.dropout > 0.0) {
    auto dropout = train::DropoutOp::create(
        builder, loc("lora_dropout"), xType, xType.clone(builder.getI8Type()),
        x, ValueRange(),
        /*whole_shape=*/nullptr, builder.getF64FloatAttr(config.dropout),
        builder.getI64IntegerAttr(dropoutId++));
    tag(dropout);
    x = dropout.getResult();
  }
  auto product = [&](StringRef name, Value lhs, Value weight, int64_t cols) {
    SmallVector<int64_t> shape(
        cast<RankedTensorType>(lhs.getType()).getShape());
    shape.back() = cols;
    auto op = train::MatmulOp::create(
        builder, loc(name), RankedTensorType::get(shape, element), lhs, weight,
        /*transpose_lhs=*/false, /*transpose_rhs=*/true);
    return tag(op)->getResult(0);
  };
  Value a = product("lora_A", x, param("lora_A", {config.rank, site.in}),
                    config.rank);
  Value b =
      product("lora_B", a, param("lora_B", {site.out, config.rank}), site.out);
  auto scaled = train::ScaleOp::create(
      builder, loc("lora_scale"), b.getType(), b,
      builder.getF64FloatAttr(config.alpha / static_cast<double>(config.rank)));
  tag(scaled);
  auto sum = train::AddOp::create(builder, loc("lora_add"), base.getType(),
                                  base, scaled.getResult());
  tag(sum);
  base.replaceAllUsesExcept(sum.getResult(), sum);
}

namespace {
struct TrainLoraPass : public memopt::impl::TrainLoraPassBase<TrainLoraPass> {
  using Base::Base;

  LogicalResult checkOptions(func::FuncOp func) {
    auto fail = [&](const Twine &message) {
      return func.emitOpError("train-lora: " + message);
    };
    if (rank < 1)
      return fail("rank must be at least 1, got " + Twine(rank));
    if (!(alpha > 0.0))
      return fail(llvm::formatv("alpha must be positive, got {0}",
                                static_cast<double>(alpha)));
    if (!(dropout >= 0.0 && dropout < 1.0))
      return fail(llvm::formatv("dropout must be in [0, 1), got {0}",
                                static_cast<double>(dropout)));
    if (targets.empty())
      return fail("expected targets=MODULE[,MODULE...] (e.g. "
                  "targets=q_proj,v_proj)");
    return checkNotLoweredYet(func, "train-lora");
  }

  void runOnOperation() override {
    func::FuncOp func = getOperation();
    if (func.isExternal())
      return;
    if (failed(checkOptions(func)))
      return signalPassFailure();
    LoraConfig config{rank, alpha, dropout};
    SmallVector<std::string> targetList(targets.begin(), targets.end());
    auto rewrite = [&](func::FuncOp forward) -> LogicalResult {
      FailureOr<SmallVector<LoraSite>> sites = findSites(forward, targetList);
      if (failed(sites))
        return failure();
      for (LoraSite site : *sites)
        if (site.in < config.rank || site.out < config.rank)
          return site.matmul.emitOpError()
                 << "train-lora: rank " << config.rank << " exceeds the layer '"
                 << site.module << "' (" << site.in << " in, " << site.out
                 << " out)";
      // PEFT freezes the base model: every parameter but the adapters.
      forward.walk([](train::ParamOp param) { param.setTrainable(false); });
      int64_t dropoutId = getNextDropoutId(forward);
      for (LoraSite site : *sites)
        addAdapter(site, config, dropoutId);
      return success();
    };
    if (failed(rewriteForwardPass(func, "train-lora", rewrite)))
      signalPassFailure();
  }
};
} // namespace

//===----------------------------------------------------------------------===//
// The tools' --lora option
//===----------------------------------------------------------------------===//

llvm::Error memopt::parseLoraSpec(StringRef spec,
                                  TrainLoraPassOptions &options) {
  auto error = [](const Twine &message) {
    return llvm::createStringError(llvm::inconvertibleErrorCode(),
                                   "--lora: " + message);
  };
  StringRef rest = spec.trim();
  if (rest.empty())
    return error("expected rank=R[,alpha=A][,dropout=P][,targets=NAME,...]");
  while (!rest.empty()) {
    auto [item, tail] = rest.split(',');
    auto [key, value] = item.split('=');
    key = key.trim();
    value = value.trim();
    if (key == "targets") {
      // The rest of the list: targets=q_proj,v_proj.
      SmallVector<StringRef> names;
      StringRef(value.data(), rest.end() - value.data())
          .split(names, ',', /*MaxSplit=*/-1, /*KeepEmpty=*/false);
      options.targets.clear();
      for (StringRef name : names) {
        if (name.contains('='))
          return error("'" + name + "' after targets=: targets must come last");
        options.targets.push_back(name.trim().str());
      }
      if (options.targets.empty())
        return error("targets= names no module");
      break;
    }
    if (value.empty())
      return error("expected KEY=VALUE, got '" + item + "'");
    if (key == "rank") {
      if (value.getAsInteger(10, options.rank))
        return error("rank must be an integer, got '" + value + "'");
    } else if (key == "alpha" || key == "dropout") {
      double number;
      if (value.getAsDouble(number))
        return error(key + " must be a number, got '" + value + "'");
      (key == "alpha" ? options.alpha : options.dropout) = number;
    } else {
      return error("unknown key '" + key +
                   "'; expected rank, alpha, dropout or targets");
    }
    rest = tail;
  }
  return llvm::Error::success();
}

SmallVector<std::string> memopt::getDefaultLoraTargets(StringRef family) {
  if (family == "gpt2")
    return {"c_attn"};
  if (family == "llama")
    return {"q_proj", "v_proj"};
  return {};
}
