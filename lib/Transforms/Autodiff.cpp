//===- Autodiff.cpp - reverse-mode differentiation of a step --------------===//

#include "memopt/Transforms/Autodiff.h"

#include "AutodiffInternal.h"

#include "memopt/Dialect/Train/IR/Blockwise8bit.h"
#include "memopt/Dialect/Train/IR/Precision.h"
#include "memopt/Dialect/Train/IR/TrainOps.h"
#include "memopt/Dialect/Train/IR/TrainStep.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Shard/IR/ShardOps.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/IRMapping.h"
#include "llvm/ADT/BitVector.h"
#include "llvm/ADT/DenseSet.h"
#include "llvm/ADT/MapVector.h"
#include "llvm/ADT/ScopeExit.h"
#include "llvm/ADT/SetVector.h"
#include "llvm/ADT/SmallPtrSet.h"
#include "llvm/ADT/StringMap.h"

using namespace mlir;
using namespace mlir::memopt;
using autodiff::averageOverDataParallel;
using autodiff::castGradients;
using autodiff::emitUpdates;
using autodiff::getLossSequenceParts;
using autodiff::isAdamLike;
using autodiff::LossScale;
using autodiff::named;
using autodiff::recastForBackward;
using autodiff::redequantizeForBackward;
using autodiff::regatherForBackward;

Location autodiff::named(MLIRContext *ctx, const Twine &name, Location loc) {
  return NameLoc::get(StringAttr::get(ctx, name), loc);
}

/// The loss of `func` when it is a forward + loss function train-autodiff
/// can differentiate: one block, train IR, the first returned value a 0-d
/// float tensor, no in-place update yet (a second update would apply the
/// gradients twice). Emits the reason otherwise.
static FailureOr<Value> getLossToDifferentiate(func::FuncOp func) {
  if (!func.getBody().hasOneBlock())
    return func.emitOpError(
        "expected a single-block function to differentiate");
  if (failed(train::verifyNotLowered(func, "train-autodiff")))
    return failure();
  Block &body = func.getBody().front();
  auto ret = dyn_cast<func::ReturnOp>(body.getTerminator());
  auto lossType = ret && ret.getNumOperands() > 0
                      ? dyn_cast<RankedTensorType>(ret.getOperand(0).getType())
                      : RankedTensorType();
  if (!lossType || lossType.getRank() != 0 ||
      !isa<FloatType>(lossType.getElementType())) {
    InFlightDiagnostic diag =
        body.getTerminator()->emitOpError()
        << "expected the function's first returned value to be the loss, a "
           "0-d float tensor";
    if (ret && ret.getNumOperands() > 0)
      diag << ", got " << ret.getOperand(0).getType();
    else
      diag << ", but nothing is returned";
    return failure();
  }
  if (Operation *update = train::findInPlaceUpdate(func))
    return update->emitOpError("the function already updates its parameters; "
                               "train-autodiff expects forward and loss only");
  return ret.getOperand(0);
}

/// Fails with a diagnostic when two reads of one parameter name disagree on
/// `trainable`.
static LogicalResult verifyTrainableAgrees(Block &body) {
  llvm::StringMap<train::ParamOp> first;
  for (auto param : body.getOps<train::ParamOp>()) {
    auto [it, inserted] = first.try_emplace(param.getName(), param);
    if (inserted || it->second.getTrainable() == param.getTrainable())
      continue;
    InFlightDiagnostic diag =
        param.emitOpError()
        << "reads '" << param.getName()
        << "' with trainable = " << (param.getTrainable() ? "true" : "false")
        << ", another read has trainable = "
        << (param.getTrainable() ? "false" : "true");
    diag.attachNote(it->second.getLoc()) << "the other read";
    return diag;
  }
  return success();
}

llvm::DenseSet<Value> autodiff::getActiveValues(ArrayRef<Operation *> ops,
                                                ArrayRef<Value> sources,
                                                ArrayRef<Value> sinks) {
  llvm::DenseSet<Value> varying(sources.begin(), sources.end()), useful, active;
  for (Operation *op : ops) {
    if (auto param = dyn_cast<train::ParamOp>(op)) {
      if (param.getTrainable() &&
          isa<FloatType>(
              cast<RankedTensorType>(param.getType()).getElementType()))
        varying.insert(param.getResult());
      continue;
    }
    if (llvm::any_of(op->getOperands(),
                     [&](Value v) { return varying.contains(v); }))
      varying.insert(op->getResults().begin(), op->getResults().end());
  }
  useful.insert(sinks.begin(), sinks.end());
  for (Operation *op : llvm::reverse(ops))
    if (llvm::any_of(op->getResults(),
                     [&](Value v) { return useful.contains(v); }))
      useful.insert(op->getOperands().begin(), op->getOperands().end());
  for (Value v : varying)
    if (useful.contains(v))
      active.insert(v);
  return active;
}

/// The values that need a gradient: those that depend on a trainable float
/// parameter and that the loss depends on. A frozen parameter
/// (`trainable = false`) is a constant here: nothing is differentiated
/// through it, and nothing before the first trainable parameter's use.
static llvm::DenseSet<Value> getActiveValues(Block &body, Value loss) {
  SmallVector<Operation *> ops;
  for (Operation &op : body)
    ops.push_back(&op);
  return autodiff::getActiveValues(ops, {}, loss);
}

LogicalResult autodiff::buildBackward(OpBuilder &builder,
                                      ArrayRef<Operation *> forward,
                                      const llvm::DenseSet<Value> &active,
                                      llvm::DenseMap<Value, Value> &grads) {
  auto accumulate = [&](Value value, Value grad) {
    auto [it, inserted] = grads.try_emplace(value, grad);
    if (!inserted)
      it->second = train::AddOp::create(builder, grad.getLoc(), grad.getType(),
                                        it->second, grad);
  };
  for (Operation *op : llvm::reverse(forward)) {
    if (isa<train::ParamOp>(op) ||
        llvm::none_of(op->getResults(),
                      [&](Value v) { return grads.contains(v); }))
      continue;
    SmallVector<bool> needed;
    for (Value operand : op->getOperands())
      needed.push_back(active.contains(operand));
    if (llvm::none_of(needed, [](bool b) { return b; }))
      continue;
    auto differentiable = dyn_cast<train::DifferentiableOpInterface>(op);
    if (!differentiable)
      return op->emitOpError("has no gradient rule; cannot differentiate the "
                             "loss through it");
    SmallVector<Value> resultGrads;
    for (Value result : op->getResults())
      resultGrads.push_back(grads.lookup(result));
    SmallVector<Value> operandGrads;
    if (failed(differentiable.buildGradients(builder, resultGrads, needed,
                                             operandGrads)))
      return failure();
    for (auto [operand, isNeeded, grad] :
         llvm::zip_equal(op->getOperands(), needed, operandGrads))
      if (isNeeded && grad)
        accumulate(operand, grad);
  }
  return success();
}

/// Builds the backward pass before `ret`: the gradient of every active value,
/// from d loss / d loss = 1 through each op's gradient rule in reverse
/// program order, gradients of a value read several times summed.
static LogicalResult buildBackward(OpBuilder &builder, Block &body,
                                   Operation *ret, Value loss, Value seed,
                                   const llvm::DenseSet<Value> &active,
                                   llvm::DenseMap<Value, Value> &grads) {
  SmallVector<Operation *> forward;
  for (Operation &op : body)
    if (&op != ret)
      forward.push_back(&op);
  grads[loss] = seed;
  return autodiff::buildBackward(builder, forward, active, grads);
}

/// The step-counter argument of `func` (marked train.step), appended as a new
/// `tensor<i64>` argument when there is none.
static FailureOr<Value> getOrAddStepCounter(func::FuncOp func,
                                            OpBuilder &builder) {
  for (BlockArgument arg : func.getArguments())
    if (func.getArgAttr(arg.getArgNumber(), train::TrainDialect::kStepAttrName))
      return Value(arg);
  unsigned index = func.getNumArguments();
  auto stepType = RankedTensorType::get({}, builder.getI64Type());
  if (failed(func.insertArgument(
          index, stepType,
          builder.getDictionaryAttr(builder.getNamedAttr(
              train::TrainDialect::kStepAttrName, builder.getUnitAttr())),
          named(func.getContext(), "step", func.getLoc()))))
    return failure();
  return Value(func.getArgument(index));
}

bool autodiff::isAdamLike(AutodiffOptimizer kind) {
  return kind == AutodiffOptimizer::Adam || kind == AutodiffOptimizer::AdamW ||
         kind == AutodiffOptimizer::Adam8bit ||
         kind == AutodiffOptimizer::AdamW8bit;
}

LogicalResult autodiff::emitUpdates(
    func::FuncOp func, OpBuilder &builder, const AutodiffOptions &options,
    const llvm::MapVector<StringRef, std::pair<Value, Value>> &paramGrads,
    const LossScale &lossScale) {
  MLIRContext *ctx = func.getContext();
  auto f64 = [&](double v) { return builder.getF64FloatAttr(v); };
  AutodiffOptimizer kind = options.optimizer;

  if (kind == AutodiffOptimizer::None) {
    auto ret = cast<func::ReturnOp>(func.getBody().front().getTerminator());
    SmallVector<Value> results(ret.getOperands());
    for (auto &entry : paramGrads)
      results.push_back(entry.second.second);
    unsigned first = ret.getNumOperands();
    ret->setOperands(results);
    func.setType(FunctionType::get(ctx, func.getArgumentTypes(),
                                   ValueRange(results).getTypes()));
    // Name the parameter each gradient belongs to, for tools that read them.
    for (auto [index, entry] : llvm::enumerate(paramGrads))
      func.setResultAttr(first + index, train::TrainDialect::kGradOfAttrName,
                         StringAttr::get(ctx, entry.first));
    return success();
  }

  // A partitioned parameter's blocks would span the processes' parts.
  if ((kind == AutodiffOptimizer::Adam8bit ||
       kind == AutodiffOptimizer::AdamW8bit) &&
      func->hasAttr(train::TrainDialect::kShardAttrName))
    return func.emitOpError()
           << "is partitioned by train-shard, which 8-bit optimizer states "
              "do not support (their blocks of 2048 elements would span the "
              "processes' parts of a parameter); use optimizer=adam or adamw";

  Value step;
  if (isAdamLike(kind)) {
    FailureOr<Value> counter = getOrAddStepCounter(func, builder);
    if (failed(counter))
      return failure();
    step = *counter;
  }

  for (auto &[name, entry] : paramGrads) {
    auto [param, grad] = entry;
    Location loc = named(ctx, name + ".update", param.getLoc());
    Type type = param.getType();
    auto state = [&](StringRef suffix) {
      return train::OptStateOp::create(builder, loc, type,
                                       (name + "." + suffix).str());
    };
    switch (kind) {
    case AutodiffOptimizer::Adam:
    case AutodiffOptimizer::AdamW:
    case AutodiffOptimizer::Adam8bit:
    case AutodiffOptimizer::AdamW8bit: {
      bool decoupled = kind == AutodiffOptimizer::AdamW ||
                       kind == AutodiffOptimizer::AdamW8bit;
      if ((kind == AutodiffOptimizer::Adam8bit ||
           kind == AutodiffOptimizer::AdamW8bit) &&
          cast<ShapedType>(type).getNumElements() >=
              train::kMin8bitStateElements) {
        train::buildAdam8bitUpdate(
            builder, loc, name, param, grad, step, lossScale.scale,
            lossScale.found, lossScale.skipped, options.lr, options.beta1,
            options.beta2, options.epsilon, options.weightDecay, decoupled);
        break;
      }
      Value m = state("exp_avg"), v = state("exp_avg_sq");
      if (!decoupled)
        train::AdamOp::create(builder, loc, param, grad, m, v, step,
                              lossScale.scale, lossScale.found,
                              lossScale.skipped, f64(options.lr),
                              f64(options.beta1), f64(options.beta2),
                              f64(options.epsilon), f64(options.weightDecay));
      else
        train::AdamWOp::create(builder, loc, param, grad, m, v, step,
                               lossScale.scale, lossScale.found,
                               lossScale.skipped, f64(options.lr),
                               f64(options.beta1), f64(options.beta2),
                               f64(options.epsilon), f64(options.weightDecay));
      break;
    }
    case AutodiffOptimizer::Sgd: {
      Value buffer =
          options.momentum > 0.0 ? Value(state("momentum_buffer")) : Value();
      train::SgdOp::create(builder, loc, param, grad, buffer, lossScale.scale,
                           lossScale.found, f64(options.lr),
                           f64(options.momentum), f64(options.weightDecay));
      break;
    }
    case AutodiffOptimizer::None:
      llvm_unreachable("handled above");
    }
  }
  return success();
}

void autodiff::castGradients(
    OpBuilder &builder, const train::PrecisionConfig &config,
    llvm::MapVector<StringRef, std::pair<Value, Value>> &paramGrads) {
  Type gradType = config.getGradientType(builder.getContext());
  for (auto &entry : paramGrads) {
    Value &grad = entry.second.second;
    auto type = cast<RankedTensorType>(grad.getType());
    if (type.getElementType() == gradType)
      continue;
    if (auto widen = grad.getDefiningOp<train::CastOp>();
        widen && widen.getInput().getType() == type.clone(gradType)) {
      grad = widen.getInput();
      if (widen->use_empty())
        widen->erase();
      continue;
    }
    grad = train::CastOp::create(builder, grad.getLoc(), type.clone(gradType),
                                 grad);
  }
}

/// Delayed fp8 scaling: adds the amax of every quantization whose scale a
/// train.fp8_scale computes to that scale's history, after everything else
/// in the step, so that every scale of the step reads the same history.
static void recordAmaxes(OpBuilder &builder, Block &body) {
  SmallVector<train::QuantizeOp> quantizations(
      body.getOps<train::QuantizeOp>());
  for (train::QuantizeOp quantize : quantizations)
    if (auto scale = quantize.getScale().getDefiningOp<train::FP8ScaleOp>())
      train::AmaxRecordOp::create(builder, quantize.getLoc(),
                                  quantize.getAmax(), scale.getAmaxHistory());
}

/// The data-parallel configuration train-shard recorded on `func`
/// (`train.shard` with dp > 1): the grid and the ZeRO stage.
namespace {
struct DataParallel {
  FlatSymbolRefAttr grid;
  int64_t zero = 0;
};
} // namespace

static std::optional<DataParallel> getDataParallel(func::FuncOp func) {
  auto config =
      func->getAttrOfType<DictionaryAttr>(train::TrainDialect::kShardAttrName);
  if (!config)
    return std::nullopt;
  auto dp = dyn_cast_or_null<IntegerAttr>(config.get("dp"));
  auto grid = dyn_cast_or_null<FlatSymbolRefAttr>(config.get("grid"));
  if (!dp || dp.getInt() <= 1 || !grid)
    return std::nullopt;
  DataParallel result{grid};
  if (auto zero = dyn_cast_or_null<IntegerAttr>(config.get("zero")))
    result.zero = zero.getInt();
  return result;
}

/// The tensor-parallel degree of a step train-shard made sequence-parallel
/// (`train.shard` with `sequence_parallel`), else 1.
static int64_t getSequenceParallelDegree(func::FuncOp func) {
  auto config =
      func->getAttrOfType<DictionaryAttr>(train::TrainDialect::kShardAttrName);
  if (!config || !config.get("sequence_parallel"))
    return 1;
  auto tp = dyn_cast_or_null<IntegerAttr>(config.get("tp"));
  return tp ? tp.getInt() : 1;
}

/// The number of sequence parts a sequence-parallel step's `loss` averages:
/// the tensor-parallel degree when train-shard averaged the processes'
/// losses over the tensor-parallel axis (each the mean over its part of the
/// sequence), else 1 (a vocabulary-parallel loss is whole on every
/// process).
int64_t autodiff::getLossSequenceParts(func::FuncOp func, Value loss) {
  auto average = loss.getDefiningOp<shard::AllReduceOp>();
  if (!average || average.getReduction() != shard::ReductionKind::Average ||
      !llvm::is_contained(average.getGridAxes(), int16_t(1)))
    return 1;
  return getSequenceParallelDegree(func);
}

/// Whether `op` is a collective over the data-parallel grid axis (axis 0)
/// alone.
static bool isOverDataParallel(Operation *op) {
  auto collective = dyn_cast_or_null<shard::ReduceScatterOp>(op);
  return collective && collective.getGridAxes() == ArrayRef<int16_t>{0};
}

/// The reduce-scatters over the data-parallel axis that the gradient `grad`
/// of a ZeRO-partitioned parameter sums (through casts and the sums of tied
/// reads), and the ops between them and `grad`; false when `grad` does not
/// come from such reduce-scatters alone.
static bool collectGradientReductions(Value grad,
                                      llvm::SetVector<Operation *> &chain) {
  Operation *def = grad.getDefiningOp();
  if (!def)
    return false;
  if (isOverDataParallel(def)) {
    chain.insert(def);
    return true;
  }
  if (isa<train::CastOp, train::AddOp>(def) &&
      llvm::all_of(def->getOperands(), [&](Value operand) {
        return collectGradientReductions(operand, chain);
      })) {
    chain.insert(def);
    return true;
  }
  return false;
}

/// In a step train-shard made data-parallel: every parameter gradient
/// averaged over the data-parallel grid axis before its update, as
/// DistributedDataParallel does. A whole parameter's gradient is
/// all-reduced; a ZeRO-partitioned one's gradient already comes from the
/// reduce-scatter its gather's gradient rule built (a sum), which becomes an
/// average. Under ZeRO-1 those reductions move after the whole backward
/// pass (each whole gradient lives until then, as with DeepSpeed's stage 1);
/// under ZeRO-2 and 3 they stay where the gradient is complete.
void autodiff::averageOverDataParallel(
    func::FuncOp func, OpBuilder &builder,
    llvm::MapVector<StringRef, std::pair<Value, Value>> &paramGrads) {
  std::optional<DataParallel> dataParallel = getDataParallel(func);
  if (!dataParallel)
    return;
  for (auto &entry : paramGrads) {
    Value grad = entry.second.second;
    llvm::SetVector<Operation *> chain;
    if (dataParallel->zero > 0 && collectGradientReductions(grad, chain)) {
      SmallVector<Operation *> ordered(chain.begin(), chain.end());
      llvm::sort(ordered, [](Operation *a, Operation *b) {
        return a->isBeforeInBlock(b);
      });
      // A reduce-scatter of a 16-bit gradient that is widened for the
      // optimizer (fp32 gradients) reduces the widened gradient instead, as
      // Megatron-LM reduces its fp32 gradient buffer: the average is then
      // rounded once, like data parallelism's all-reduce of the widened
      // gradient.
      llvm::SmallPtrSet<Operation *, 4> erased;
      for (Operation *op : ordered) {
        if (erased.contains(op))
          continue;
        auto scatter = dyn_cast<shard::ReduceScatterOp>(op);
        if (!scatter || !scatter->hasOneUse())
          continue;
        auto widen = dyn_cast<train::CastOp>(*scatter->user_begin());
        if (!widen || !chain.contains(widen))
          continue;
        auto inputType = cast<RankedTensorType>(scatter.getInput().getType());
        Type wideElement =
            cast<RankedTensorType>(widen.getType()).getElementType();
        OpBuilder before(scatter);
        Value wide = train::CastOp::create(before, widen.getLoc(),
                                           inputType.clone(wideElement),
                                           scatter.getInput());
        scatter.getInputMutable().assign(wide);
        scatter.getResult().setType(widen.getType());
        widen.getResult().replaceAllUsesWith(scatter.getResult());
        if (entry.second.second == widen.getResult())
          entry.second.second = scatter.getResult();
        // Erased after the loops: it is later in `ordered`.
        erased.insert(widen);
      }
      for (Operation *op : ordered) {
        if (erased.contains(op))
          continue;
        if (auto scatter = dyn_cast<shard::ReduceScatterOp>(op))
          scatter.setReduction(shard::ReductionKind::Average);
        if (dataParallel->zero == 1)
          op->moveBefore(builder.getInsertionBlock(),
                         builder.getInsertionPoint());
      }
      for (Operation *op : erased)
        op->erase();
      continue;
    }
    entry.second.second = shard::AllReduceOp::create(
        builder, grad.getLoc(), grad.getType(), dataParallel->grid.getValue(),
        ArrayRef<int16_t>{0}, grad, shard::ReductionKind::Average);
  }
}

/// The uses of `value` after `lastForward` (in the backward pass), appended
/// to `uses`; returns the first of their users in the block, or null.
static Operation *collectBackwardUses(Value value, Operation *lastForward,
                                      SmallVectorImpl<OpOperand *> &uses) {
  Operation *first = nullptr;
  for (OpOperand &use : value.getUses()) {
    Operation *user = use.getOwner();
    if (!lastForward->isBeforeInBlock(user))
      continue;
    uses.push_back(&use);
    if (!first || user->isBeforeInBlock(first))
      first = user;
  }
  return first;
}

/// ZeRO-3: a parameter gathered in the forward pass is gathered again
/// before its first use in the backward pass (after `lastForward`), so that
/// the forward's gathered copy dies with its last forward use. Sequence
/// parallelism does the same with the sequence gathers before the
/// tensor-parallel regions (Korthikanti et al. save each process's part of
/// a region's input, not the gathered whole).
void autodiff::regatherForBackward(func::FuncOp func, OpBuilder &builder,
                                   Operation *lastForward) {
  std::optional<DataParallel> dataParallel = getDataParallel(func);
  bool parameters = dataParallel && dataParallel->zero == 3;
  bool sequence = getSequenceParallelDegree(func) > 1;
  if ((!parameters && !sequence) || !lastForward)
    return;
  Block &body = func.getBody().front();
  SmallVector<int16_t> tensorAxes = train::getTensorParallelAxes(func);
  SmallVector<shard::AllGatherOp> gathers;
  for (Operation &op : body) {
    if (auto gather = dyn_cast<shard::AllGatherOp>(op)) {
      ArrayRef<int16_t> axes = gather.getGridAxes();
      if ((parameters && axes == ArrayRef<int16_t>{0}) ||
          (sequence && axes == ArrayRef<int16_t>(tensorAxes)))
        gathers.push_back(gather);
    }
    if (&op == lastForward)
      break;
  }
  for (shard::AllGatherOp gather : gathers) {
    // A ZeRO part with padding is read through the slice that drops it.
    Operation *trim = nullptr;
    Value whole = gather.getResult();
    if (gather->hasOneUse())
      if (auto slice = dyn_cast<train::SliceOp>(*gather->user_begin()))
        if (!lastForward->isBeforeInBlock(slice)) {
          trim = slice;
          whole = slice.getResult();
        }
    SmallVector<OpOperand *> backwardUses;
    Operation *first = collectBackwardUses(whole, lastForward, backwardUses);
    if (!first)
      continue;
    OpBuilder::InsertionGuard guard(builder);
    builder.setInsertionPoint(first);
    Operation *again = builder.clone(*gather);
    if (trim) {
      IRMapping mapping;
      mapping.map(gather.getResult(), again->getResult(0));
      again = builder.clone(*trim, mapping);
    }
    for (OpOperand *use : backwardUses)
      use->set(again->getResult(0));
  }
}

/// A cast whose input the backward pass reads anyway is cast again before
/// its first use in the backward pass, so that one copy, not two, lives
/// from the forward pass to the backward. Under bf16-mixed, softmax's f32
/// output is read by softmax's gradient and its bf16 copy by the next
/// matmul's: the copy is made again where the matmul's gradient needs it
/// (the same values, as the cast is exact to repeat). Casts of parameters
/// are left alone (the parameter lives through the step anyway, and the
/// precision modes decide where their low copies live).
void autodiff::recastForBackward(OpBuilder &builder, Block &body,
                                 Operation *lastForward) {
  if (!lastForward)
    return;
  SmallVector<train::CastOp> casts;
  for (Operation &op : body) {
    if (auto cast = dyn_cast<train::CastOp>(op))
      casts.push_back(cast);
    if (&op == lastForward)
      break;
  }
  for (train::CastOp cast : casts) {
    Operation *producer = cast.getInput().getDefiningOp();
    if (!producer || isa<train::ParamOp>(producer))
      continue;
    SmallVector<OpOperand *> backwardUses;
    Operation *first =
        collectBackwardUses(cast.getResult(), lastForward, backwardUses);
    // The input must be live at `first` already: read there or later.
    if (!first || llvm::none_of(cast.getInput().getUsers(), [&](Operation *u) {
          return u == first || first->isBeforeInBlock(u);
        }))
      continue;
    OpBuilder::InsertionGuard guard(builder);
    builder.setInsertionPoint(first);
    Operation *again = builder.clone(*cast);
    for (OpOperand *use : backwardUses)
      use->set(again->getResult(0));
  }
}

/// A weight read through a dequantize op (train-quantize-frozen) is
/// dequantized again before its first backward use, as QLoRA does: the
/// forward's copy dies with its last forward use instead of being saved
/// (its storage is persistent; dequantizing is exact to repeat).
void autodiff::redequantizeForBackward(OpBuilder &builder, Block &body,
                                       Operation *lastForward) {
  SmallVector<Operation *> dequantizes;
  for (Operation &op : body) {
    if (isa<train::DequantizeNF4Op, train::DequantizeInt8Op>(op))
      dequantizes.push_back(&op);
    if (&op == lastForward)
      break;
  }
  for (Operation *dequantize : dequantizes) {
    SmallVector<OpOperand *> backwardUses;
    Operation *first = lastForward
                           ? collectBackwardUses(dequantize->getResult(0),
                                                 lastForward, backwardUses)
                           : nullptr;
    if (!first)
      continue;
    OpBuilder::InsertionGuard guard(builder);
    builder.setInsertionPoint(first);
    Operation *again = builder.clone(*dequantize);
    for (OpOperand *use : backwardUses)
      use->set(again->getResult(0));
  }
}

LogicalResult memopt::appendBackward(func::FuncOp func,
                                     const AutodiffOptions &options) {
  FailureOr<Value> loss = getLossToDifferentiate(func);
  if (failed(loss))
    return failure();
  Block &body = func.getBody().front();
  Operation *ret = body.getTerminator();
  Operation *lastForward = ret->getPrevNode();
  if (failed(verifyTrainableAgrees(body)))
    return failure();
  llvm::DenseSet<Value> active = getActiveValues(body, *loss);
  if (!active.contains(*loss))
    return ret->emitOpError(
        "the loss does not depend on any trainable train.param; there is "
        "nothing to differentiate");
  std::optional<train::PrecisionConfig> precision =
      train::getPrecisionConfig(func);
  train::LossScaling scaling =
      precision ? precision->lossScaling : train::LossScaling::None;
  if (scaling != train::LossScaling::None &&
      options.optimizer == AutodiffOptimizer::None)
    return func.emitOpError(
        "has loss scaling (train.precision), which needs an optimizer to "
        "unscale the gradients; optimizer=none would return them scaled");

  OpBuilder builder(ret);
  MLIRContext *ctx = func.getContext();
  auto lossType = cast<RankedTensorType>(loss->getType());
  if (scaling != train::LossScaling::None && !lossType.getElementType().isF32())
    return ret->emitOpError()
           << "loss scaling needs an f32 loss, got " << lossType;
  Location lossLoc =
      loss->getDefiningOp() ? loss->getDefiningOp()->getLoc() : func.getLoc();
  Location seedLoc = named(ctx, "loss.grad.seed", lossLoc);
  LossScale lossScale;
  Value seed;
  if (scaling == train::LossScaling::Dynamic) {
    auto counter = RankedTensorType::get({}, builder.getI64Type());
    lossScale.exponent = train::OptStateOp::create(
        builder, named(ctx, train::kLossScaleExponentState, lossLoc), counter,
        train::kLossScaleExponentState);
    seed = lossScale.scale = train::LossScaleOp::create(
        builder, seedLoc, lossType, lossScale.exponent,
        builder.getF64FloatAttr(precision->scale));
  } else {
    double value =
        scaling == train::LossScaling::Static ? precision->scale : 1.0;
    // Sequence parallelism: when the loss is the average of the
    // tensor-parallel processes' losses, each over its part of the
    // sequence, the collectives of the tensor-parallel regions sum the
    // processes' shares of each gradient; so each process's loss
    // contributes 1/tp.
    value /= static_cast<double>(getLossSequenceParts(func, *loss));
    seed = arith::ConstantOp::create(
        builder, seedLoc,
        DenseElementsAttr::get(
            lossType, builder.getFloatAttr(lossType.getElementType(), value)));
    if (scaling == train::LossScaling::Static)
      lossScale.scale = seed;
  }
  llvm::DenseMap<Value, Value> grads;
  if (failed(buildBackward(builder, body, ret, *loss, seed, active, grads)))
    return failure();
  regatherForBackward(func, builder, lastForward);
  recastForBackward(builder, body, lastForward);
  redequantizeForBackward(builder, body, lastForward);

  // One gradient per parameter name: reads of one name (tied weights) sum.
  llvm::MapVector<StringRef, std::pair<Value, Value>> paramGrads;
  for (auto param : body.getOps<train::ParamOp>()) {
    Value grad = grads.lookup(param.getResult());
    if (!grad)
      continue;
    auto [it, inserted] =
        paramGrads.try_emplace(param.getName(), param.getResult(), grad);
    if (!inserted)
      it->second.second = train::AddOp::create(
          builder, grad.getLoc(), grad.getType(), it->second.second, grad);
  }
  if (precision && precision->mode != train::PrecisionMode::FP32 &&
      precision->mode != train::PrecisionMode::BF16Pure)
    castGradients(builder, *precision, paramGrads);
  averageOverDataParallel(func, builder, paramGrads);
  if (scaling != train::LossScaling::Dynamic) {
    if (failed(emitUpdates(func, builder, options, paramGrads, lossScale)))
      return failure();
    recordAmaxes(builder, body);
    return success();
  }

  // Dynamic scaling: check every gradient, skip the updates on inf/NaN, and
  // update the scale after them (PyTorch's GradScaler).
  Location scalerLoc = named(ctx, "loss_scale", lossLoc);
  SmallVector<Value> allGrads;
  for (auto &entry : paramGrads)
    allGrads.push_back(entry.second.second);
  auto flag = RankedTensorType::get({}, builder.getI1Type());
  auto counter = RankedTensorType::get({}, builder.getI64Type());
  lossScale.found =
      train::AnyNonfiniteOp::create(builder, scalerLoc, flag, allGrads);
  Value skipped = train::OptStateOp::create(builder, scalerLoc, counter,
                                            train::kLossScaleSkippedState);
  if (isAdamLike(options.optimizer))
    lossScale.skipped = skipped;
  if (failed(emitUpdates(func, builder, options, paramGrads, lossScale)))
    return failure();
  Value tracker = train::OptStateOp::create(
      builder, scalerLoc, counter, train::kLossScaleGrowthTrackerState);
  train::LossScaleUpdateOp::create(builder, scalerLoc, lossScale.exponent,
                                   tracker, skipped, lossScale.found,
                                   /*skip=*/Value(), precision->growthInterval);
  recordAmaxes(builder, body);
  return success();
}

void memopt::eraseBackward(func::FuncOp step) {
  Block &body = step.getBody().front();
  auto ret = cast<func::ReturnOp>(body.getTerminator());
  SmallVector<Value> kept;
  llvm::BitVector dropped(step.getNumResults());
  for (auto [index, value] : llvm::enumerate(ret.getOperands())) {
    if (step.getResultAttr(index, train::TrainDialect::kGradOfAttrName))
      dropped.set(index);
    else
      kept.push_back(value);
  }
  ret->setOperands(kept);
  (void)step.eraseResults(dropped);
  // train-autodiff appends everything it builds after the forward pass, so
  // the ops before the loss's are forward ops, kept even when nothing reads
  // them (a dead op of the forward + loss function stays in its step).
  Operation *loss = kept.empty() ? nullptr : kept.front().getDefiningOp();
  llvm::DenseSet<Operation *> live{ret};
  for (Operation &op : llvm::reverse(body))
    if (live.contains(&op) || (loss && op.isBeforeInBlock(loss)))
      for (Value operand : op.getOperands())
        if (Operation *def = operand.getDefiningOp())
          live.insert(def);
  for (Operation &op : llvm::make_early_inc_range(llvm::reverse(body)))
    if (!live.contains(&op) && !(loss && op.isBeforeInBlock(loss)))
      op.erase();
}

bool memopt::isTrainingStep(func::FuncOp func) {
  for (unsigned i = 0, e = func.getNumResults(); i < e; ++i)
    if (func.getResultAttr(i, train::TrainDialect::kGradOfAttrName))
      return true;
  return train::findInPlaceUpdate(func) != nullptr;
}

/// The text of `func` without locations, to compare two programs.
static std::string printWithoutLocations(func::FuncOp func) {
  std::string text;
  llvm::raw_string_ostream os(text);
  func->print(os, OpPrintingFlags().enableDebugInfo(false));
  return text;
}

FailureOr<bool> memopt::isDerivedFrom(func::FuncOp step, func::FuncOp forward,
                                      const AutodiffOptions &options) {
  auto derived = cast<func::FuncOp>(forward->clone());
  llvm::scope_exit eraseDerived([&] { derived->erase(); });
  if (failed(appendBackward(derived, options)))
    return failure();
  return StringRef(printWithoutLocations(derived)).rtrim() ==
         StringRef(printWithoutLocations(step)).rtrim();
}

LogicalResult
memopt::rewriteForwardPass(func::FuncOp func, StringRef passName,
                           function_ref<LogicalResult(func::FuncOp)> rewrite) {
  if (!isTrainingStep(func))
    return rewrite(func);
  FailureOr<AutodiffOptions> options = inferAutodiffOptions(func);
  if (failed(options))
    return failure();
  auto forward = cast<func::FuncOp>(func->clone());
  llvm::scope_exit eraseForward([&] { forward->erase(); });
  eraseBackward(forward);
  FailureOr<bool> derived = isDerivedFrom(func, forward, *options);
  if (failed(derived))
    return failure();
  if (!*derived)
    return mlir::emitError(func.getLoc())
           << "@" << func.getSymName()
           << " is not the step train-autodiff derives from its forward pass "
              "(another pass, such as train-lifetimes or train-remat, or a "
              "hand edit changed it); apply "
           << passName
           << " to the forward + loss function, or to the step train-autodiff "
              "produced, before other passes";
  if (failed(rewrite(forward)) || failed(appendBackward(forward, *options)))
    return failure();
  func.getBody().takeBody(forward.getBody());
  func.setType(forward.getFunctionType());
  func->setAttrs(forward->getAttrDictionary());
  return success();
}
