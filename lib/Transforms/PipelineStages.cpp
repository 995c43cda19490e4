//===- PipelineStages.cpp - one pipeline stage's program ------------------===//
//
// Builds the program of one pipeline stage from a partitioned forward pass:
// per micro-batch, the stage's forward ops (on that micro-batch's slice of
// the arguments, or on what the previous stage sent) and their backward
// pass (train-autodiff's rules, from the gradient the next stage sent
// back), then the gradient sums, the updates and the loss. A stage of the
// interleaved schedule does so for each of its model chunks. The passes are
// built one after the other, each forward followed by its backward, and then
// reordered into the schedule's order (under ZB-H1 with each backward split
// into its input-gradient and weight-gradient parts); adjacent transfers
// are merged into one exchange.
//
//===----------------------------------------------------------------------===//

#include "PipelineInternal.h"

#include "AutodiffInternal.h"

#include "memopt/Dialect/Train/IR/TrainOps.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Shard/IR/ShardOps.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"
#include "llvm/ADT/MapVector.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/StringMap.h"

#include <set>

using namespace mlir;
using namespace mlir::memopt;
using namespace mlir::memopt::pipeline;

namespace {

/// The ops built for one pass of one micro-batch: a contiguous range of the
/// stage's block while it is built.
struct Segment {
  Operation *first = nullptr;
  Operation *last = nullptr;
};

class StageBuilder {
public:
  StageBuilder(func::FuncOp forward, const StagePartition &partition,
               int64_t stage, const StageOptions &options)
      : forward(forward), partition(partition), stage(stage), options(options),
        ctx(forward.getContext()), b(ctx) {
    for (const SmallVector<Value> &values : partition.boundary)
      width = std::max<int64_t>(width, values.size());
    for (int64_t j = 0; j < partition.virtualStages; ++j)
      chunks.push_back(stage + j * partition.stages);
    neededInputs.resize(chunks.size());
  }

  FailureOr<func::FuncOp> build();

private:
  /// Whether this stage holds the last chunk (the head and the loss).
  bool isLast() const { return stage + 1 == partition.stages; }
  bool isLastChunk(int64_t chunk) const {
    return chunk + 1 == partition.getNumChunks();
  }
  /// Whether this stage's chunk `j` computes forward op `op`: one of its
  /// own, or a replicated one (reading only arguments, constants and
  /// parameters) that its own ops need.
  bool runsHere(Operation *op, int64_t j) const {
    auto it = partition.chunkOf.find(op);
    return (it != partition.chunkOf.end() && it->second == chunks[j]) ||
           neededInputs[j].contains(op);
  }
  /// The tag of value `index` crossing the boundary after chunk `boundary`
  /// for a micro-batch, forward or backward: odd for what goes backward
  /// (gradients, and the loss and the tied gradients below), as train.p2p
  /// documents, since on an interleaved stage the peer does not tell.
  int64_t tag(int64_t boundary, int64_t microBatch, bool backward,
              int64_t index) const {
    int64_t pass = boundary * options.microBatches + microBatch;
    return (pass * width + index) * 2 + (backward ? 1 : 0);
  }
  int64_t lossTag() const {
    return 2 * options.microBatches * partition.getNumChunks() * width + 1;
  }
  /// The index of chunk `j`'s pass of micro-batch `k` in the per-pass lists.
  int64_t slot(int64_t j, int64_t k) const {
    return j * options.microBatches + k;
  }

  func::FuncOp createFunction();
  void findNeededInputs();
  void readParams();
  Value getArgument(BlockArgument arg, int64_t microBatch, IRMapping &map);
  void buildForward(int64_t j, int64_t microBatch);
  LogicalResult buildBackward(int64_t j, int64_t microBatch);
  void drawMicroBatchMask(train::DropoutOp dropout, int64_t microBatch);
  void addParamGradient(StringRef name, Value param, Value grad);
  std::set<int64_t> getHolderStages(StringRef name) const;
  void reduceWholeSums();
  void sumTiedGradients();
  Value buildLoss();
  Segment capture(Operation *before);
  void reorder(ArrayRef<Segment> forwards, ArrayRef<Segment> backwards);
  train::P2POp createExchange(ValueRange sends, ArrayRef<int64_t> sendTo,
                              ArrayRef<int64_t> sendTags, TypeRange recvTypes,
                              ArrayRef<int64_t> recvFrom,
                              ArrayRef<int64_t> recvTags);

  func::FuncOp forward;
  const StagePartition &partition;
  int64_t stage;
  const StageOptions &options;
  MLIRContext *ctx;
  OpBuilder b;
  int64_t width = 1;
  func::FuncOp func;
  Block *block = nullptr;
  /// The step's chunks this stage holds, in order.
  SmallVector<int64_t> chunks;
  /// The replicated ops each chunk computes.
  SmallVector<llvm::DenseSet<Operation *>> neededInputs;
  /// Forward parameter value -> this stage's read, and each name's read.
  IRMapping params;
  llvm::MapVector<StringRef, Value> paramByName;
  /// The forward ops that read no micro-batch's data (the casts of the
  /// parameters to the compute type, constants), and the op built for each:
  /// built once, with the first micro-batch that needs it, and read by every
  /// micro-batch, as Megatron-LM keeps one 16-bit copy of its weights rather
  /// than one per micro-batch in flight.
  llvm::DenseSet<Operation *> invariant;
  llvm::DenseMap<Operation *, Operation *> shared;
  /// Per pass (slot): the forward mapping and the cloned forward ops.
  SmallVector<IRMapping> maps;
  SmallVector<SmallVector<Operation *>> forwardOps;
  SmallVector<Segment> forwardSegments;
  SmallVector<Value> losses;
  /// The gradient sums over the micro-batches so far, by parameter name.
  llvm::MapVector<StringRef, std::pair<Value, Value>> gradSums;
  /// ZeRO-1: the sums of the whole gradients, by parameter name, and the
  /// first micro-batch's reduce-scatter (for its attributes).
  llvm::MapVector<StringRef, std::pair<shard::ReduceScatterOp, Value>>
      wholeSums;
};

} // namespace

func::FuncOp StageBuilder::createFunction() {
  int64_t m = options.microBatches;
  SmallVector<Type> inputs;
  for (BlockArgument arg : forward.getArguments()) {
    auto type = dyn_cast<RankedTensorType>(arg.getType());
    bool batched = type && type.getRank() >= 1 &&
                   !forward.getArgAttr(arg.getArgNumber(),
                                       train::TrainDialect::kStepAttrName);
    if (!batched) {
      inputs.push_back(arg.getType());
      continue;
    }
    SmallVector<int64_t> shape(type.getShape());
    shape[0] *= m;
    inputs.push_back(type.clone(shape));
  }
  auto type = FunctionType::get(ctx, inputs, forward.getResultTypes());
  std::string name = options.stepName + "_stage" + std::to_string(stage);
  auto created = func::FuncOp::create(forward.getLoc(), name, type);
  for (NamedAttribute attr : forward->getDiscardableAttrs())
    created->setAttr(attr.getName(), attr.getValue());
  if (ArrayAttr argAttrs = forward.getArgAttrsAttr())
    created.setArgAttrsAttr(argAttrs);
  if (ArrayAttr resAttrs = forward.getResAttrsAttr())
    created.setResAttrsAttr(resAttrs);
  block = new Block();
  created.getBody().push_back(block);
  for (auto [arg, input] : llvm::zip_equal(forward.getArguments(), inputs))
    block->addArgument(input, arg.getLoc());

  SmallVector<Attribute> layers;
  SmallVector<SmallVector<Attribute>> chunkLayers(chunks.size());
  for (auto [layer, chunk] :
       llvm::zip_equal(partition.layers, partition.layerChunk)) {
    if (partition.getStageOfChunk(chunk) != stage)
      continue;
    layers.push_back(StringAttr::get(ctx, layer));
    chunkLayers[chunk / partition.stages].push_back(layers.back());
  }
  Builder attrs(ctx);
  SmallVector<NamedAttribute> entries({
      attrs.getNamedAttr("axis", attrs.getI64IntegerAttr(options.axis)),
      attrs.getNamedAttr("grid", FlatSymbolRefAttr::get(ctx, options.gridName)),
      attrs.getNamedAttr("layers", attrs.getArrayAttr(layers)),
      attrs.getNamedAttr("microbatches", attrs.getI64IntegerAttr(m)),
      attrs.getNamedAttr(
          "schedule",
          attrs.getStringAttr(getPipelineScheduleName(options.schedule))),
      attrs.getNamedAttr("stage", attrs.getI64IntegerAttr(stage)),
      attrs.getNamedAttr("stages", attrs.getI64IntegerAttr(partition.stages)),
      attrs.getNamedAttr("step", attrs.getStringAttr(options.stepName)),
  });
  if (partition.virtualStages > 1) {
    SmallVector<Attribute> perChunk;
    for (ArrayRef<Attribute> names : chunkLayers)
      perChunk.push_back(attrs.getArrayAttr(names));
    entries.push_back(
        attrs.getNamedAttr("chunks", attrs.getArrayAttr(perChunk)));
    entries.push_back(attrs.getNamedAttr(
        "virtual", attrs.getI64IntegerAttr(partition.virtualStages)));
  }
  created->setAttr(train::TrainDialect::kPipelineAttrName,
                   attrs.getDictionaryAttr(entries));
  return created;
}

void StageBuilder::findNeededInputs() {
  Block &body = forward.getBody().front();
  for (int64_t j = 0, e = chunks.size(); j < e; ++j)
    for (Operation &op : llvm::reverse(body.without_terminator())) {
      if (!runsHere(&op, j))
        continue;
      for (Value operand : op.getOperands())
        if (Operation *def = operand.getDefiningOp();
            def && partition.replicated.contains(def))
          neededInputs[j].insert(def);
    }
}

void StageBuilder::readParams() {
  Block &body = forward.getBody().front();
  for (auto param : body.getOps<train::ParamOp>()) {
    bool read = llvm::any_of(param->getUsers(), [&](Operation *user) {
      for (int64_t j = 0, e = chunks.size(); j < e; ++j)
        if (runsHere(user, j))
          return true;
      return false;
    });
    if (!read)
      continue;
    auto [it, inserted] = paramByName.try_emplace(param.getName(), Value());
    if (inserted)
      it->second = b.clone(*param)->getResult(0);
    params.map(param.getResult(), it->second);
  }
}

Value StageBuilder::getArgument(BlockArgument arg, int64_t microBatch,
                                IRMapping &map) {
  if (Value mapped = map.lookupOrNull(arg))
    return mapped;
  BlockArgument whole = block->getArgument(arg.getArgNumber());
  Value value = whole;
  if (whole.getType() != arg.getType()) {
    auto type = cast<RankedTensorType>(arg.getType());
    SmallVector<int64_t> offsets(type.getRank(), 0);
    offsets[0] = microBatch * type.getDimSize(0);
    value = train::SliceOp::create(
        b, autodiff::named(ctx, "microbatch" + Twine(microBatch), arg.getLoc()),
        type, whole, b.getDenseI64ArrayAttr(offsets), nullptr);
  }
  map.map(arg, value);
  return value;
}

train::P2POp StageBuilder::createExchange(ValueRange sends,
                                          ArrayRef<int64_t> sendTo,
                                          ArrayRef<int64_t> sendTags,
                                          TypeRange recvTypes,
                                          ArrayRef<int64_t> recvFrom,
                                          ArrayRef<int64_t> recvTags) {
  return pipeline::createExchange(
      b, autodiff::named(ctx, "pipeline", forward.getLoc()), sends, sendTo,
      sendTags, recvTypes, recvFrom, recvTags);
}

/// Whether `op` of the forward pass reads no micro-batch's data: it has no
/// side effects nor regions, and reads only parameters, scalar arguments
/// (the step) and the results of such ops.
static bool isMicroBatchInvariant(Operation &op, const IRMapping &params,
                                  const llvm::DenseSet<Operation *> &invariant,
                                  int64_t zero) {
  if (op.getNumResults() == 0 || op.getNumRegions() != 0 ||
      !isMemoryEffectFree(&op))
    return false;
  // ZeRO-3 gathers a parameter for each use, and its copy dies with it: one
  // gather per micro-batch, not one shared by all.
  if (zero == 3 && isa<shard::AllGatherOp>(op))
    return false;
  return llvm::all_of(op.getOperands(), [&](Value operand) {
    if (params.contains(operand))
      return true;
    if (auto arg = dyn_cast<BlockArgument>(operand)) {
      auto type = dyn_cast<RankedTensorType>(arg.getType());
      return !type || type.getRank() == 0;
    }
    return invariant.contains(operand.getDefiningOp());
  });
}

void StageBuilder::buildForward(int64_t j, int64_t k) {
  int64_t chunk = chunks[j];
  IRMapping &map = maps.emplace_back(params);
  SmallVector<Operation *> &ops = forwardOps.emplace_back();
  if (chunk > 0) {
    ArrayRef<Value> incoming = partition.boundary[chunk - 1];
    SmallVector<int64_t> from(incoming.size(),
                              partition.getStageOfChunk(chunk - 1));
    SmallVector<int64_t> tags;
    for (int64_t i = 0, e = incoming.size(); i < e; ++i)
      tags.push_back(tag(chunk - 1, k, false, i));
    train::P2POp recv =
        createExchange({}, {}, {}, ValueRange(incoming).getTypes(), from, tags);
    for (auto [value, received] : llvm::zip_equal(incoming, recv.getReceived()))
      map.map(value, received);
  }
  Block &body = forward.getBody().front();
  for (Operation &op : body.without_terminator()) {
    if (!runsHere(&op, j))
      continue;
    if (Operation *built = shared.lookup(&op)) {
      // The op is in every micro-batch's list, so that each one's backward
      // pass reaches the parameters through it.
      map.map(op.getResults(), built->getResults());
      ops.push_back(built);
      continue;
    }
    bool isInvariant =
        isMicroBatchInvariant(op, params, invariant, options.zero);
    for (Value operand : op.getOperands())
      if (auto arg = dyn_cast<BlockArgument>(operand))
        getArgument(arg, k, map);
    ops.push_back(b.clone(op, map));
    if (isInvariant) {
      invariant.insert(&op);
      shared[&op] = ops.back();
    }
    if (auto dropout = dyn_cast<train::DropoutOp>(ops.back()))
      drawMicroBatchMask(dropout, k);
  }
  if (!isLastChunk(chunk)) {
    ArrayRef<Value> outgoing = partition.boundary[chunk];
    SmallVector<Value> sends;
    SmallVector<int64_t> to(outgoing.size(),
                            partition.getStageOfChunk(chunk + 1));
    SmallVector<int64_t> tags;
    for (auto [i, value] : llvm::enumerate(outgoing)) {
      sends.push_back(map.lookup(value));
      tags.push_back(tag(chunk, k, false, i));
    }
    createExchange(sends, to, tags, {}, {}, {});
  } else {
    losses.push_back(map.lookup(partition.loss));
  }
}

/// Micro-batch `k`'s dropout draws the mask of its rows of a tensor `M`
/// times larger in dimension 0 (train.dropout's partitioned form): the
/// micro-batches get different masks, and with the batch leading, the
/// masks the whole step draws for the same rows.
void StageBuilder::drawMicroBatchMask(train::DropoutOp dropout, int64_t k) {
  auto type = cast<RankedTensorType>(dropout.getInput().getType());
  SmallVector<int64_t> whole(type.getShape());
  if (std::optional<ArrayRef<int64_t>> shape = dropout.getWholeShape())
    whole.assign(shape->begin(), shape->end());
  if (whole.empty())
    return;
  int64_t rows = whole[0];
  whole[0] *= options.microBatches;
  OpBuilder::InsertionGuard guard(b);
  b.setInsertionPoint(dropout);
  Location loc = dropout.getLoc();
  SmallVector<Value> offsets(dropout.getOffsets());
  Value shift = arith::ConstantIndexOp::create(b, loc, k * rows);
  if (offsets.empty()) {
    Value zero = arith::ConstantIndexOp::create(b, loc, 0);
    offsets.assign(whole.size(), zero);
    offsets[0] = shift;
  } else {
    offsets[0] = arith::AddIOp::create(b, loc, offsets[0], shift);
  }
  dropout.getOffsetsMutable().assign(offsets);
  dropout.setWholeShapeAttr(b.getDenseI64ArrayAttr(whole));
}

/// The data-parallel reduce-scatter that the gradient rule of ZeRO's gather
/// built for a partitioned parameter's gradient `grad` (directly, or
/// through the cast back to the parameter's type), or null.
static shard::ReduceScatterOp getZeroReduction(Value grad) {
  if (auto cast = grad.getDefiningOp<train::CastOp>())
    grad = cast.getInput();
  auto scatter = grad.getDefiningOp<shard::ReduceScatterOp>();
  if (!scatter || scatter.getGridAxes() != ArrayRef<int16_t>{0})
    return nullptr;
  return scatter;
}

/// Whether `grad` is a ZeRO-partitioned parameter's gradient: its
/// reduce-scatter, or a sum of them over the micro-batches.
static bool isZeroPartitioned(Value grad) {
  if (auto add = grad.getDefiningOp<train::AddOp>())
    return isZeroPartitioned(add.getLhs()) && isZeroPartitioned(add.getRhs());
  return static_cast<bool>(getZeroReduction(grad));
}

void StageBuilder::addParamGradient(StringRef name, Value param, Value grad) {
  OpBuilder::InsertionGuard guard(b);
  if (Operation *def = grad.getDefiningOp())
    b.setInsertionPointAfter(def);
  // Sums are kept in the parameter's type (fp32 master weights' under mixed
  // precision), as Megatron-LM's main_grad and train-accumulate-gradients.
  auto type = cast<RankedTensorType>(param.getType());
  // ZeRO-1 (Megatron-LM's distributed optimizer): each micro-batch's whole
  // gradient is added to a whole sum, reduce-scattered once after the last
  // micro-batch (reduceWholeSums), not once per micro-batch.
  if (shard::ReduceScatterOp scatter;
      options.zero == 1 && (scatter = getZeroReduction(grad))) {
    Value whole = scatter.getInput();
    auto wholeType =
        cast<RankedTensorType>(whole.getType()).clone(type.getElementType());
    b.setInsertionPointAfter(scatter);
    if (whole.getType() != wholeType)
      whole = train::CastOp::create(b, grad.getLoc(), wholeType, whole);
    auto [it, inserted] = wholeSums.try_emplace(name, scatter, whole);
    if (!inserted)
      it->second.second = train::AddOp::create(b, grad.getLoc(), wholeType,
                                               it->second.second, whole);
    if (Operation *def = grad.getDefiningOp();
        def && def != scatter && def->use_empty())
      def->erase();
    if (scatter->use_empty() && !inserted)
      scatter->erase();
    return;
  }
  if (grad.getType() != type)
    grad = train::CastOp::create(b, grad.getLoc(), type, grad);
  auto [it, inserted] = gradSums.try_emplace(name, param, grad);
  if (!inserted)
    it->second.second =
        train::AddOp::create(b, grad.getLoc(), type, it->second.second, grad);
}

LogicalResult StageBuilder::buildBackward(int64_t j, int64_t k) {
  int64_t chunk = chunks[j];
  IRMapping &map = maps[slot(j, k)];
  llvm::DenseMap<Value, Value> grads;
  if (isLastChunk(chunk)) {
    Value loss = losses[k];
    auto type = cast<RankedTensorType>(loss.getType());
    grads[loss] = arith::ConstantOp::create(
        b, autodiff::named(ctx, "loss.grad.seed", loss.getLoc()),
        DenseElementsAttr::get(
            type, b.getFloatAttr(type.getElementType(),
                                 1.0 / static_cast<double>(
                                           options.microBatches *
                                           autodiff::getLossSequenceParts(
                                               forward, partition.loss)))));
  } else {
    SmallVector<Value> outgoing;
    SmallVector<int64_t> tags;
    for (auto [i, value] : llvm::enumerate(partition.boundary[chunk]))
      if (partition.active.contains(value)) {
        outgoing.push_back(map.lookup(value));
        tags.push_back(tag(chunk, k, true, i));
      }
    if (!outgoing.empty()) {
      SmallVector<int64_t> from(outgoing.size(),
                                partition.getStageOfChunk(chunk + 1));
      train::P2POp recv = createExchange(
          {}, {}, {}, ValueRange(outgoing).getTypes(), from, tags);
      for (auto [value, grad] : llvm::zip_equal(outgoing, recv.getReceived()))
        grads[value] = grad;
    }
  }
  llvm::DenseSet<Value> active;
  for (Value value : partition.active)
    if (Value mapped = map.lookupOrNull(value))
      active.insert(mapped);
  if (failed(autodiff::buildBackward(b, forwardOps[slot(j, k)], active, grads)))
    return failure();
  Operation *lastForward = forwardSegments[slot(j, k)].last;
  autodiff::regatherForBackward(func, b, lastForward);
  autodiff::recastForBackward(b, *block, lastForward);
  autodiff::redequantizeForBackward(b, *block, lastForward);

  if (chunk > 0) {
    SmallVector<Value> sends;
    SmallVector<int64_t> tags;
    for (auto [i, value] : llvm::enumerate(partition.boundary[chunk - 1])) {
      if (!partition.active.contains(value))
        continue;
      Value grad = grads.lookup(map.lookup(value));
      if (!grad)
        return value.getDefiningOp()->emitOpError(
                   "train-pipeline: no gradient reaches this value, which "
                   "stage ")
               << stage << " received";
      sends.push_back(grad);
      tags.push_back(tag(chunk - 1, k, true, i));
    }
    if (!sends.empty())
      createExchange(sends,
                     SmallVector<int64_t>(sends.size(),
                                          partition.getStageOfChunk(chunk - 1)),
                     tags, {}, {}, {});
  }
  for (auto [name, param] : paramByName)
    if (Value grad = grads.lookup(param))
      addParamGradient(name, param, grad);
  return success();
}

void StageBuilder::reduceWholeSums() {
  for (auto &[name, entry] : wholeSums) {
    auto [scatter, sum] = entry;
    Value param = paramByName.lookup(name);
    auto sumType = cast<RankedTensorType>(sum.getType());
    auto partType = cast<RankedTensorType>(scatter.getType())
                        .clone(sumType.getElementType());
    auto reduced = shard::ReduceScatterOp::create(
        b, scatter.getLoc(), partType, scatter.getGridAttr(),
        scatter.getGridAxesAttr(), sum, scatter.getReductionAttr(),
        scatter.getScatterAxisAttr());
    Value grad = reduced.getResult();
    if (grad.getType() != param.getType())
      grad = train::CastOp::create(b, grad.getLoc(), param.getType(), grad);
    gradSums[name] = {param, grad};
    // Micro-batch 0's reduce-scatter stood for the attributes.
    if (scatter->use_empty())
      scatter->erase();
  }
}

std::set<int64_t> StageBuilder::getHolderStages(StringRef name) const {
  std::set<int64_t> stages;
  for (int64_t chunk : partition.holders.at(name))
    stages.insert(partition.getStageOfChunk(chunk));
  return stages;
}

void StageBuilder::sumTiedGradients() {
  SmallVector<Value> sends;
  SmallVector<int64_t> sendTo, sendTags, recvFrom, recvTags;
  SmallVector<Type> recvTypes;
  SmallVector<StringRef> tied;
  for (auto &entry : gradSums) {
    std::set<int64_t> stages = getHolderStages(entry.first);
    if (stages.size() < 2)
      continue;
    tied.push_back(entry.first);
    for (int64_t peer : stages) {
      if (peer == stage)
        continue;
      int64_t t =
          lossTag() + 2 * (1 + partition.paramIndex.lookup(entry.first));
      sends.push_back(entry.second.second);
      sendTo.push_back(peer);
      sendTags.push_back(t);
      recvTypes.push_back(entry.second.second.getType());
      recvFrom.push_back(peer);
      recvTags.push_back(t);
    }
  }
  if (tied.empty())
    return;
  train::P2POp exchange =
      createExchange(sends, sendTo, sendTags, recvTypes, recvFrom, recvTags);
  // Every holder sums the parts in stage order, so all get the same bits.
  unsigned next = 0;
  for (StringRef name : tied) {
    Value own = gradSums[name].second, sum;
    for (int64_t holder : getHolderStages(name)) {
      Value part = holder == stage ? own : exchange.getReceived()[next++];
      sum = sum ? train::AddOp::create(b, part.getLoc(), part.getType(), sum,
                                       part)
                      .getResult()
                : part;
    }
    gradSums[name].second = sum;
  }
}

Value StageBuilder::buildLoss() {
  int64_t last = partition.stages - 1;
  Type type = forward.getResultTypes()[0];
  if (!isLast()) {
    train::P2POp recv = createExchange({}, {}, {}, type, {last}, {lossTag()});
    return recv.getReceived()[0];
  }
  Value sum = losses[0];
  for (Value loss : ArrayRef<Value>(losses).drop_front())
    sum = train::AddOp::create(b, loss.getLoc(), type, sum, loss);
  if (options.microBatches > 1)
    sum = train::ScaleOp::create(
        b, autodiff::named(ctx, "loss.mean", sum.getLoc()), type, sum,
        b.getF64FloatAttr(1.0 / static_cast<double>(options.microBatches)));
  SmallVector<int64_t> to, tags;
  for (int64_t s = 0; s < last; ++s) {
    to.push_back(s);
    tags.push_back(lossTag());
  }
  createExchange(SmallVector<Value>(last, sum), to, tags, {}, {}, {});
  return sum;
}

Segment StageBuilder::capture(Operation *before) {
  Segment segment;
  segment.first = before ? before->getNextNode() : &block->front();
  segment.last = block->empty() ? nullptr : &block->back();
  if (segment.first == nullptr)
    segment.last = nullptr;
  return segment;
}

void StageBuilder::reorder(ArrayRef<Segment> forwards,
                           ArrayRef<Segment> backwards) {
  auto opsOf = [](Segment segment) {
    SmallVector<Operation *> ops;
    for (Operation *op = segment.first; op; op = op->getNextNode()) {
      ops.push_back(op);
      if (op == segment.last)
        break;
    }
    return ops;
  };
  // Per pass (slot): its ops by kind of pass.
  SmallVector<SmallVector<Operation *>> forwardOpsOf, backwardOpsOf,
      weightOpsOf;
  for (Segment segment : forwards)
    forwardOpsOf.push_back(opsOf(segment));
  bool splitWeights = options.schedule == PipelineSchedule::ZeroBubbleH1;
  for (Segment segment : backwards) {
    SmallVector<Operation *> ops = opsOf(segment);
    if (!splitWeights) {
      backwardOpsOf.push_back(std::move(ops));
      weightOpsOf.emplace_back();
      continue;
    }
    auto [input, weight] = splitWeightPass(ops);
    backwardOpsOf.push_back(std::move(input));
    weightOpsOf.push_back(std::move(weight));
  }
  // The epilogue: everything after the last backward pass.
  SmallVector<Operation *> epilogue;
  for (Operation *op = backwards.back().last->getNextNode(); op;
       op = op->getNextNode())
    epilogue.push_back(op);
  Operation *end = &block->back();
  SmallVector<PipelineAction> schedule =
      getStageSchedule(options.schedule, partition.stages, stage,
                       options.microBatches, partition.virtualStages);
  SmallVector<ArrayRef<Operation *>> passes;
  for (const PipelineAction &action : schedule) {
    int64_t index = slot(action.chunk, action.microBatch);
    passes.push_back(action.pass == PipelinePass::Forward ? forwardOpsOf[index]
                     : action.pass == PipelinePass::Backward
                         ? backwardOpsOf[index]
                         : weightOpsOf[index]);
    for (Operation *op : passes.back())
      op->moveBefore(end);
  }
  for (Operation *op : epilogue)
    if (op != end)
      op->moveBefore(end);
  if (options.schedule == PipelineSchedule::Interleaved)
    groupExchanges(b, autodiff::named(ctx, "pipeline", forward.getLoc()),
                   schedule, passes);
}

FailureOr<func::FuncOp> StageBuilder::build() {
  func = createFunction();
  b.setInsertionPointToEnd(block);
  findNeededInputs();
  readParams();
  SmallVector<Segment> backwardSegments;
  for (int64_t j = 0, e = chunks.size(); j < e; ++j) {
    for (int64_t k = 0; k < options.microBatches; ++k) {
      Operation *before = block->empty() ? nullptr : &block->back();
      buildForward(j, k);
      forwardSegments.push_back(capture(before));
      before = &block->back();
      if (failed(buildBackward(j, k))) {
        func.erase();
        return failure();
      }
      backwardSegments.push_back(capture(before));
    }
  }
  reduceWholeSums();
  // ZeRO's partitioned gradients are averaged over the data-parallel axis
  // before the tied parameters' parts are summed between the stages (the
  // sums are of parts, and an average is linear); every other gradient
  // after, once per step.
  llvm::MapVector<StringRef, std::pair<Value, Value>> partitioned, whole;
  for (auto &entry : gradSums)
    (isZeroPartitioned(entry.second.second) ? partitioned : whole)
        .insert(entry);
  autodiff::averageOverDataParallel(func, b, partitioned);
  for (auto &entry : partitioned)
    gradSums[entry.first] = entry.second;
  sumTiedGradients();
  for (auto &entry : whole)
    entry.second = gradSums[entry.first];
  autodiff::averageOverDataParallel(func, b, whole);
  for (auto &entry : whole)
    gradSums[entry.first] = entry.second;
  // The loss reaches every stage before the updates, while the gradient
  // sums are live: a planned stage receives it in the arena's lifetime, as
  // train-plan-memory's arena (which counts returned buffers on top of the
  // arena) assumes.
  Value loss = buildLoss();
  if (failed(autodiff::emitUpdates(func, b, options.autodiff, gradSums,
                                   autodiff::LossScale()))) {
    func.erase();
    return failure();
  }
  func::ReturnOp::create(b, forward.getBody().front().getTerminator()->getLoc(),
                         loss);
  reorder(forwardSegments, backwardSegments);
  mergeExchanges(b, autodiff::named(ctx, "pipeline", forward.getLoc()), *block);
  return func;
}

FailureOr<func::FuncOp> pipeline::buildStage(func::FuncOp forward,
                                             const StagePartition &partition,
                                             int64_t stage,
                                             const StageOptions &options) {
  return StageBuilder(forward, partition, stage, options).build();
}

StageExchanges pipeline::collectExchanges(func::FuncOp stage) {
  StageExchanges exchanges;
  stage.walk([&](train::P2POp op) {
    SmallVector<PipelineMessage> &messages = exchanges.emplace_back();
    for (auto [peer, tag] : llvm::zip_equal(op.getSendTo(), op.getSendTags()))
      messages.push_back({peer, tag, true});
    for (auto [peer, tag] : llvm::zip_equal(op.getRecvFrom(), op.getRecvTags()))
      messages.push_back({peer, tag, false});
  });
  return exchanges;
}
