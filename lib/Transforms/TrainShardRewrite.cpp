//===- TrainShardRewrite.cpp - train-shard's rewrite ----------------------===//
//
// What train-shard does to one function once it is planned
// (TrainShardPlan.cpp): rewrite() retypes every value to its per-process
// shape in place, localizes slice offsets, marks the split parameters and
// arguments (`train.split`), and inserts the collectives: Megatron's f
// (`train.copy_to_parallel`) before the column-parallel matmuls and g
// (`shard.all_reduce`) after the row-parallel ones, or with sequence
// parallelism the gathers and reduce-scatters along the sequence. Then the
// dropouts draw their part of the whole mask (partitionDropouts), the
// vocabulary-parallel embeddings and losses are rewritten
// (rewriteVocabParallel), and ZeRO splits the parameters over the
// data-parallel axis (partitionParameters).
//
//===----------------------------------------------------------------------===//

#include "TrainShardInternal.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Shard/IR/ShardOps.h"
#include "mlir/IR/Verifier.h"

using namespace mlir;
using namespace mlir::memopt;
using namespace mlir::memopt::detail;

RankedTensorType Sharder::getLocalType(Value value) {
  auto type = cast<RankedTensorType>(value.getType());
  SmallVector<int64_t> shape(type.getShape());
  if (auto it = batchDims.find(value); it != batchDims.end())
    shape[it->second] /= dp;
  if (auto it = plan.splits.find(value); it != plan.splits.end())
    shape[it->second.dim] /= getParts(it->second);
  if (auto it = seqDims.find(value); it != seqDims.end())
    shape[it->second] /= tp;
  return RankedTensorType::get(shape, type.getElementType(),
                               type.getEncoding());
}

SmallVector<int64_t> Sharder::getSplitTriples(int64_t dim, int64_t blocks,
                                              bool kvOnly) const {
  SmallVector<int64_t> triples = {dim, blocks, kTensorAxis};
  // Split over the KV heads, then (unless replicated) over their replicas.
  if (replicas > 1 && !kvOnly)
    llvm::append_range(triples, ArrayRef<int64_t>{dim, blocks, kReplicaAxis});
  return triples;
}

/// This process's coordinates on `axes` of the grid.
static ValueRange buildAxesIndex(OpBuilder &builder, Location loc,
                                 ArrayRef<int16_t> axes) {
  SmallVector<shard::GridAxis> gridAxes(axes.begin(), axes.end());
  return shard::ProcessMultiIndexOp::create(builder, loc, kGridName, gridAxes)
      .getResult();
}

Value Sharder::buildTensorIndex(OpBuilder &builder, Location loc) {
  ValueRange indices = buildAxesIndex(builder, loc, getTensorAxes());
  if (indices.size() == 1)
    return indices[0];
  // kv * replicas + replica.
  Value scale = arith::ConstantIndexOp::create(builder, loc, replicas);
  Value base = arith::MulIOp::create(builder, loc, indices[0], scale);
  return arith::AddIOp::create(builder, loc, base, indices[1]);
}

/// Dropout: each process draws, for its part of a split tensor, the mask
/// one process draws for the whole tensor: the dropout gets its part's
/// offset in every dimension (the process's index on the axis that splits
/// it, times the part's extent) and the whole shape. A tensor split in
/// blocks (a fused QKV output) keeps the process's own mask.
void Sharder::partitionDropouts(
    OpBuilder &builder,
    ArrayRef<std::pair<train::DropoutOp, SmallVector<int64_t>>> dropouts) {
  if (dropouts.empty())
    return;
  Location loc = func.getLoc();
  builder.setInsertionPointToStart(&body);
  Value dataIndex =
      dp > 1 ? buildAxesIndex(builder, loc, {kDataAxis})[0] : Value();
  Value tensorIndex = tp > 1 ? buildTensorIndex(builder, loc) : Value();
  Value kvIndex =
      replicas > 1 ? buildAxesIndex(builder, loc, {kTensorAxis})[0] : Value();
  Value zero = arith::ConstantIndexOp::create(builder, loc, 0);
  // One offset per (process index, part extent).
  llvm::DenseMap<std::pair<Value, int64_t>, Value> offsetOf;
  auto getOffset = [&](Value index, int64_t extent) {
    Value &offset = offsetOf[{index, extent}];
    if (!offset)
      offset = arith::MulIOp::create(
          builder, loc, index,
          arith::ConstantIndexOp::create(builder, loc, extent));
    return offset;
  };
  for (auto [op, whole] : dropouts) {
    train::DropoutOp dropout = op;
    Value input = dropout.getInput();
    ArrayRef<int64_t> local =
        cast<RankedTensorType>(input.getType()).getShape();
    SmallVector<Value> index(local.size());
    bool expressible = true;
    auto setIndex = [&](int64_t dim, Value value) {
      if (index[dim] || !value)
        expressible = false;
      index[dim] = value;
    };
    if (auto it = batchDims.find(input); it != batchDims.end())
      setIndex(it->second, dataIndex);
    if (auto it = plan.splits.find(input); it != plan.splits.end()) {
      if (it->second.blocks != 1)
        expressible = false;
      else
        setIndex(it->second.dim, it->second.kvOnly ? kvIndex : tensorIndex);
    }
    if (auto it = seqDims.find(input); it != seqDims.end())
      setIndex(it->second, tensorIndex);
    if (!expressible)
      continue;
    SmallVector<Value> offsets;
    for (auto [dim, value] : llvm::enumerate(index)) {
      if (!value) {
        offsets.push_back(zero);
        continue;
      }
      offsets.push_back(getOffset(value, local[dim]));
    }
    dropout.getOffsetsMutable().assign(offsets);
    dropout.setWholeShapeAttr(builder.getDenseI64ArrayAttr(whole));
  }
}

/// Tensor parallelism: splits the parameters of the regions (their
/// weights and biases) and the vocabulary's tables; `replicatedWeights`
/// gets what compute reads of the weights of replicated KV heads.
LogicalResult
Sharder::splitParameters(OpBuilder &builder,
                         SmallVectorImpl<Value> &replicatedWeights) {
  llvm::DenseMap<Value, TensorSplit> paramSplits;
  for (Operation *op : plan.columnParallel) {
    auto matmul = cast<train::MatmulOp>(op);
    const TensorSplit &split = plan.splits[matmul.getResult()];
    int64_t dim = matmul.getTransposeRhs() ? 0 : 1;
    paramSplits[getRegionWeight(matmul).getResult()] =
        TensorSplit{dim, split.blocks, {}, split.kvOnly};
  }
  for (Operation *op : plan.rowParallel) {
    auto matmul = cast<train::MatmulOp>(op);
    int64_t dim = matmul.getTransposeRhs() ? 1 : 0;
    paramSplits[getWeight(matmul).getResult()] = TensorSplit{dim, 1, {}};
  }
  for (auto [value, split] : plan.splits)
    for (Operation *user : value.getUsers())
      if (auto bias = dyn_cast<train::BiasAddOp>(user))
        if (bias.getInput() == value)
          paramSplits[getOwnParam(bias.getBias()).getResult()] =
              TensorSplit{0, split.blocks, {}, split.kvOnly};
  for (Value table : vocabTables)
    paramSplits.try_emplace(table, TensorSplit{0, 1, {}});
  // In the parameters' order in the step, not the map's (which follows
  // pointer values): the first error and the IR are the same on every run.
  SmallVector<std::pair<Value, TensorSplit>> ordered(paramSplits.begin(),
                                                     paramSplits.end());
  llvm::sort(ordered, [](const auto &a, const auto &b) {
    return a.first.getDefiningOp()->isBeforeInBlock(b.first.getDefiningOp());
  });
  for (auto [value, split] : ordered) {
    auto param = value.getDefiningOp<train::ParamOp>();
    auto type = cast<RankedTensorType>(value.getType());
    if (type.getDimSize(split.dim) % (split.blocks * getParts(split)) != 0)
      return param.emitOpError()
             << "cannot split dimension " << split.dim << " of " << type
             << " into " << getParts(split) << " parts";
    // The weight's cast (mixed precision) splits with it.
    plan.splits[value] = split;
    if (value.hasOneUse())
      if (auto cast = dyn_cast<train::CastOp>(*value.getUsers().begin()))
        plan.splits[cast.getResult()] = split;
    param->setAttr(train::TrainDialect::kSplitAttrName,
                   builder.getDenseI64ArrayAttr(
                       getSplitTriples(split.dim, split.blocks, split.kvOnly)));
    if (split.kvOnly)
      replicatedWeights.push_back(getParamRead(param));
  }
  return success();
}

/// Splits the arguments along the batch and the sequence (`train.split`
/// and their local types); returns the function's new argument types.
SmallVector<Type> Sharder::rewriteArguments(OpBuilder &builder) {
  SmallVector<Type> argTypes;
  for (BlockArgument arg : func.getArguments()) {
    if (isa<RankedTensorType>(arg.getType()) &&
        (batchDims.count(arg) || seqDims.count(arg))) {
      SmallVector<int64_t> split;
      if (batchDims.count(arg))
        llvm::append_range(split, ArrayRef<int64_t>{0, 1, kDataAxis});
      if (seqDims.count(arg))
        llvm::append_range(split, getSplitTriples(1, 1, /*kvOnly=*/false));
      func.setArgAttr(arg.getArgNumber(), train::TrainDialect::kSplitAttrName,
                      builder.getDenseI64ArrayAttr(split));
      arg.setType(getLocalType(arg));
    }
    argTypes.push_back(arg.getType());
  }
  return argTypes;
}

/// Sequence parallelism: the parameters per-token ops read whole enter
/// through copy_to_parallel (one per read value), so that their gradients
/// sum the processes' shares.
void Sharder::enterReplicatedReads(OpBuilder &builder) {
  auto grid = FlatSymbolRefAttr::get(func.getContext(), kGridName);
  SmallVector<int16_t> tensorAxes = getTensorAxes();
  llvm::DenseMap<Value, Value> copies;
  for (OpOperand *read : replicatedReads) {
    Value &copy = copies[read->get()];
    if (!copy) {
      builder.setInsertionPointAfterValue(read->get());
      copy = train::CopyToParallelOp::create(
          builder, read->getOwner()->getLoc(), read->get().getType(),
          read->get(), grid, builder.getDenseI16ArrayAttr(tensorAxes));
    }
    read->set(copy);
  }
}

/// Ops, in order: local result types, slice offsets, f and g (or, with
/// sequence parallelism, the gathers and reduce-scatters along the
/// sequence).
void Sharder::rewriteOps(OpBuilder &builder) {
  auto grid = FlatSymbolRefAttr::get(func.getContext(), kGridName);
  SmallVector<int16_t> tensorAxes = getTensorAxes();
  llvm::DenseMap<Value, Value> entered;
  for (Operation &op : llvm::make_early_inc_range(body)) {
    if (isa<func::ReturnOp>(op))
      break;
    if (plan.columnParallel.contains(&op)) {
      auto matmul = cast<train::MatmulOp>(op);
      Value input = matmul.getLhs();
      Value &copy = entered[input];
      if (!copy) {
        builder.setInsertionPointAfterValue(input);
        auto gather = seqGathers.find(input);
        if (gather != seqGathers.end()) {
          auto type = cast<RankedTensorType>(input.getType());
          SmallVector<int64_t> shape(type.getShape());
          shape[gather->second] *= tp;
          copy = shard::AllGatherOp::create(
              builder, op.getLoc(), type.clone(shape), kGridName, tensorAxes,
              input, APInt(64, gather->second));
        } else {
          copy = train::CopyToParallelOp::create(
              builder, op.getLoc(), input.getType(), input, grid,
              builder.getDenseI16ArrayAttr(tensorAxes));
        }
      }
      matmul.getLhsMutable().assign(copy);
    }
    if (auto slice = dyn_cast<train::SliceOp>(op)) {
      auto it = plan.splits.find(slice.getInput());
      if (it != plan.splits.end()) {
        SmallVector<int64_t> offsets(slice.getOffsets());
        offsets[it->second.dim] /= getParts(it->second);
        slice.setOffsets(offsets);
      }
    }
    // A region's partial sums are whole along the sequence until reduced.
    std::optional<int64_t> scatterDim;
    if (plan.rowParallel.contains(&op))
      if (auto it = seqDims.find(op.getResult(0)); it != seqDims.end())
        scatterDim = it->second;
    for (Value result : op.getResults())
      if (isa<RankedTensorType>(result.getType()))
        result.setType(getLocalType(result));
    if (plan.rowParallel.contains(&op)) {
      builder.setInsertionPointAfter(&op);
      Value partial = op.getResult(0);
      Value sum;
      if (scatterDim) {
        auto type = cast<RankedTensorType>(partial.getType());
        SmallVector<int64_t> shape(type.getShape());
        shape[*scatterDim] *= tp;
        partial.setType(type.clone(shape));
        sum = shard::ReduceScatterOp::create(
            builder, op.getLoc(), type, kGridName, tensorAxes, partial,
            shard::ReductionKind::Sum, APInt(64, *scatterDim));
      } else {
        sum = shard::AllReduceOp::create(
            builder, op.getLoc(), partial.getType(), kGridName, tensorAxes,
            partial, shard::ReductionKind::Sum);
      }
      partial.replaceAllUsesExcept(sum, sum.getDefiningOp());
      // A column-parallel matmul that reads the sum directly gathers it.
      if (auto it = seqGathers.find(partial); it != seqGathers.end()) {
        int64_t dim = it->second;
        seqGathers.erase(it);
        seqGathers[sum] = dim;
      }
    }
  }
}

/// Replicated KV heads: the processes that hold the same KV head each
/// compute a share of its weights' gradients (from their own query heads),
/// which copy_to_parallel over the replicas sums.
void Sharder::enterReplicatedWeights(OpBuilder &builder,
                                     ArrayRef<Value> replicatedWeights) {
  auto grid = FlatSymbolRefAttr::get(func.getContext(), kGridName);
  for (Value read : replicatedWeights) {
    builder.setInsertionPointAfterValue(read);
    auto copy = train::CopyToParallelOp::create(
        builder, read.getLoc(), read.getType(), read, grid,
        builder.getDenseI16ArrayAttr({kReplicaAxis}));
    read.replaceAllUsesExcept(copy.getResult(), copy);
  }
}

/// The loss: the average of the processes' losses (over the data-parallel
/// axis, and the tensor-parallel one when each process's loss covers its
/// part of the sequence).
void Sharder::averageLoss(OpBuilder &builder) {
  auto ret = cast<func::ReturnOp>(body.getTerminator());
  SmallVector<int16_t> lossAxes;
  if (dp > 1 && !batchDims.empty())
    lossAxes.push_back(kDataAxis);
  if (seqLoss)
    llvm::append_range(lossAxes, getTensorAxes());
  if (!lossAxes.empty() && ret.getNumOperands() > 0) {
    Value loss = ret.getOperand(0);
    builder.setInsertionPoint(ret);
    auto average = shard::AllReduceOp::create(
        builder, loss.getLoc(), loss.getType(), kGridName, lossAxes, loss,
        shard::ReductionKind::Average);
    ret->setOperand(0, average.getResult());
  }
}

/// Records the partition on the function: `train.shard`.
void Sharder::setShardAttr(OpBuilder &builder) {
  MLIRContext *ctx = func.getContext();
  auto grid = FlatSymbolRefAttr::get(ctx, kGridName);
  func->setAttr(
      train::TrainDialect::kShardAttrName,
      builder.getDictionaryAttr({
          builder.getNamedAttr("grid", grid),
          builder.getNamedAttr("dp", builder.getI64IntegerAttr(dp)),
          builder.getNamedAttr("tp", builder.getI64IntegerAttr(tp)),
          builder.getNamedAttr("zero", builder.getI64IntegerAttr(zero)),
      }));
  if (sequenceParallel || replicas > 1) {
    auto config = func->getAttrOfType<DictionaryAttr>(
        train::TrainDialect::kShardAttrName);
    NamedAttrList entries(config);
    if (sequenceParallel)
      entries.set("sequence_parallel", builder.getUnitAttr());
    if (replicas > 1)
      entries.set("kv_replicas", builder.getI64IntegerAttr(replicas));
    func->setAttr(train::TrainDialect::kShardAttrName,
                  entries.getDictionary(ctx));
  }
}

/// The parameter `value` reads through casts and fp8 quantizations, or
/// null.
static train::ParamOp getReadThrough(Value value) {
  while (Operation *def = value.getDefiningOp()) {
    if (!isa<train::CastOp, train::QuantizeOp>(def))
      break;
    value = def->getOperand(0);
  }
  return value.getDefiningOp<train::ParamOp>();
}

/// Bytes of a tensor of `type`.
static int64_t getTensorBytes(RankedTensorType type) {
  return type.getNumElements() * ((type.getElementTypeBitWidth() + 7) / 8);
}

/// Whether the `train.split` triples of `op` split it over tp.
static bool isSplitOverTp(Operation *op) {
  auto triples =
      op->getAttrOfType<DenseI64ArrayAttr>(train::TrainDialect::kSplitAttrName);
  if (!triples)
    return false;
  for (int64_t i = 2, e = triples.size(); i < e; i += 3)
    if (triples[i] != kDataAxis)
      return true;
  return false;
}

void Sharder::warnUnsplitLayers() {
  if (tp == 1)
    return;
  int64_t total = 0, replicated = 0, replicatedBytes = 0;
  for (auto param : body.getOps<train::ParamOp>()) {
    auto type = cast<RankedTensorType>(param.getType());
    total += type.getNumElements();
    if (isSplitOverTp(param))
      continue;
    replicated += type.getNumElements();
    replicatedBytes += getTensorBytes(type);
  }
  // The layers tensor parallelism does not split, and their parameters.
  auto warn = [&](StringRef opName, StringRef what, StringRef why,
                  StringRef advice) {
    SmallVector<Operation *> layers;
    llvm::SmallPtrSet<Operation *, 16> params;
    int64_t held = 0;
    for (Operation &op : body) {
      if (op.getName().getStringRef() != opName)
        continue;
      layers.push_back(&op);
      train::ParamOp param = getReadThrough(op.getOperand(1));
      if (param && params.insert(param).second)
        held += param.getType().getNumElements();
    }
    if (layers.empty())
      return;
    layers.front()->emitWarning()
        << "train-shard keeps the " << layers.size() << " " << what << " ("
        << opName << ") replicated over the tp=" << tp << " processes: " << why
        << ". Their weights hold " << held << " parameters; in all "
        << replicated << " of the " << total << " parameters ("
        << replicatedBytes << " bytes) are not split over tp" << advice;
  };
  warn(train::Conv2dOp::getOperationName(), "convolutions",
       "tensor parallelism splits matmuls (Megatron-LM's layers), not "
       "convolutions",
       "");
  warn(train::ScaledMatmulOp::getOperationName(), "fp8 scaled matmuls",
       "train-shard does not partition fp8's scaled matmuls yet",
       "; another precision mode splits these layers");
}

LogicalResult Sharder::rewrite(int64_t gridReplicas) {
  replicas = gridReplicas;
  OpBuilder builder(func.getContext());
  SmallVector<Value> replicatedWeights;
  if (failed(splitParameters(builder, replicatedWeights)))
    return failure();
  warnUnsplitLayers();
  SmallVector<Type> argTypes = rewriteArguments(builder);
  enterReplicatedReads(builder);
  // Dropouts of split tensors, with their whole shapes (before retyping).
  SmallVector<std::pair<train::DropoutOp, SmallVector<int64_t>>> dropouts;
  for (auto dropout : body.getOps<train::DropoutOp>()) {
    Value input = dropout.getInput();
    if (batchDims.count(input) || plan.splits.count(input) ||
        seqDims.count(input))
      dropouts.emplace_back(
          dropout, SmallVector<int64_t>(
                       cast<RankedTensorType>(input.getType()).getShape()));
  }
  rewriteOps(builder);
  partitionDropouts(builder, dropouts);
  enterReplicatedWeights(builder, replicatedWeights);
  rewriteVocabParallel(builder);
  averageLoss(builder);
  partitionParameters(builder);
  func.setType(FunctionType::get(func.getContext(), argTypes,
                                 body.getTerminator()->getOperandTypes()));
  setShardAttr(builder);
  // Every op still verifies with its local types (a failure names the op).
  WalkResult walk = func.walk([](Operation *op) {
    return failed(verify(op, /*verifyRecursively=*/false))
               ? WalkResult::interrupt()
               : WalkResult::advance();
  });
  return failure(walk.wasInterrupted());
}

/// Vocabulary parallelism: each split embedding looks up its part's rows
/// and the processes' rows are summed; each vocabulary-parallel
/// cross-entropy becomes the maximum, the statistics and the loss, with an
/// all-reduce between them (as Megatron-LM's vocab_parallel_cross_entropy).
void Sharder::rewriteVocabParallel(OpBuilder &builder) {
  if (plan.vocabLosses.empty() && vocabEmbeddings.empty())
    return;
  builder.setInsertionPointToStart(&body);
  SmallVector<int16_t> tensorAxes = getTensorAxes();
  Value part = buildTensorIndex(builder, func.getLoc());
  IntegerAttr parts = builder.getI64IntegerAttr(tp);
  for (train::EmbeddingOp embedding : vocabEmbeddings) {
    embedding.getPartMutable().assign(part);
    embedding.setPartsAttr(parts);
    builder.setInsertionPointAfter(embedding);
    Value rows = embedding.getResult();
    Value sum;
    if (seqScatteredEmbeddings.contains(embedding)) {
      // Sequence parallelism: the rows of the whole sequence (the ids are
      // whole), reduce-scattered into the process's part of it.
      auto local = cast<RankedTensorType>(rows.getType());
      SmallVector<int64_t> shape(local.getShape());
      shape[1] *= tp;
      rows.setType(local.clone(shape));
      sum = shard::ReduceScatterOp::create(
          builder, embedding.getLoc(), local, kGridName, tensorAxes, rows,
          shard::ReductionKind::Sum, APInt(64, 1));
    } else {
      sum = shard::AllReduceOp::create(builder, embedding.getLoc(),
                                       rows.getType(), kGridName, tensorAxes,
                                       rows, shard::ReductionKind::Sum);
    }
    rows.replaceAllUsesExcept(sum, sum.getDefiningOp());
  }
  for (Operation *op : plan.vocabLosses) {
    auto loss = cast<train::CrossEntropyOp>(op);
    Location loc = loss.getLoc();
    Value logits = loss.getLogits(), labels = loss.getLabels();
    auto logitsType = cast<RankedTensorType>(logits.getType());
    Type statType = logitsType.getElementType().isF64()
                        ? logitsType.getElementType()
                        : builder.getF32Type();
    auto rowType =
        RankedTensorType::get(logitsType.getShape().drop_back(), statType);
    SmallVector<int64_t> statShape = {2};
    llvm::append_range(statShape, rowType.getShape());
    auto statsType = RankedTensorType::get(statShape, statType);
    builder.setInsertionPoint(loss);
    Value max = train::RowMaxOp::create(builder, loc, rowType, logits);
    max =
        shard::AllReduceOp::create(builder, loc, rowType, kGridName, tensorAxes,
                                   max, shard::ReductionKind::Max);
    Value stats = train::VocabParallelStatsOp::create(
        builder, loc, statsType, logits, max, labels, part, parts);
    stats = shard::AllReduceOp::create(builder, loc, statsType, kGridName,
                                       tensorAxes, stats,
                                       shard::ReductionKind::Sum);
    Value result = train::CrossEntropyFromStatsOp::create(
        builder, loc, loss.getType(), stats, labels, loss.getIgnoreIndexAttr());
    loss.getResult().replaceAllUsesWith(result);
    loss.erase();
  }
}

/// ZeRO: every parameter whose first dimension has at least dp rows is
/// stored split along it over the data-parallel axis. What compute reads
/// (its single low-precision cast, else the parameter) is gathered just
/// before its first use; the gradient of the gather (a reduce-scatter) then
/// gives each process the gradient of its own part, and the optimizer
/// states train-autodiff creates take the part's type. When dp does not
/// divide the rows, every part has ceil(rows / dp) of them, the last ending
/// with zero rows (as DeepSpeed pads its flat partitions), and a slice of
/// the gathered tensor drops the padding (`train.split_extent`).
void Sharder::partitionParameters(OpBuilder &builder) {
  if (zero == 0)
    return;
  for (auto param : llvm::to_vector(body.getOps<train::ParamOp>())) {
    auto type = cast<RankedTensorType>(param.getType());
    if (type.getRank() == 0 || type.getDimSize(0) < dp || param->use_empty())
      continue;
    int64_t rows = type.getDimSize(0);
    int64_t partRows = llvm::divideCeil(rows, dp);
    Value read = param.getResult();
    if (param->hasOneUse())
      if (auto copy = dyn_cast<train::CastOp>(*param->user_begin()))
        read = copy.getResult();
    auto wholeType = cast<RankedTensorType>(read.getType());
    Operation *first = nullptr;
    for (Operation *user : read.getUsers())
      if (!first || user->isBeforeInBlock(first))
        first = user;
    if (!first)
      continue;
    auto withRows = [&](RankedTensorType whole, int64_t extent) {
      SmallVector<int64_t> shape(whole.getShape());
      shape[0] = extent;
      return whole.clone(shape);
    };
    param.getResult().setType(withRows(type, partRows));
    read.setType(withRows(wholeType, partRows));
    builder.setInsertionPoint(first);
    auto gather = shard::AllGatherOp::create(
        builder, param.getLoc(), withRows(wholeType, partRows * dp), kGridName,
        ArrayRef<int16_t>{kDataAxis}, read, APInt(64, 0));
    Value gathered = gather.getResult();
    if (partRows * dp != rows) {
      // The padded rows are the last part's last ones: a view drops them.
      gathered = train::SliceOp::create(
          builder, param.getLoc(), wholeType, gathered,
          SmallVector<int64_t>(wholeType.getRank(), 0), /*strides=*/nullptr);
      param->setAttr(train::TrainDialect::kSplitExtentAttrName,
                     builder.getI64IntegerAttr(rows));
    }
    read.replaceAllUsesExcept(gathered, gather);
    SmallVector<int64_t> split;
    if (auto existing = param->getAttrOfType<DenseI64ArrayAttr>(
            train::TrainDialect::kSplitAttrName))
      llvm::append_range(split, existing.asArrayRef());
    llvm::append_range(split, ArrayRef<int64_t>{0, 1, kDataAxis});
    param->setAttr(train::TrainDialect::kSplitAttrName,
                   builder.getDenseI64ArrayAttr(split));
  }
}
