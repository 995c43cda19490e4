//===- TrainShardPlan.cpp - train-shard's planning ------------------------===//
//
// How train-shard partitions one function (the overview is TrainShard.cpp's
// file comment), decided before anything is rewritten:
//
//   1. Tensor parallelism: the candidate column-parallel matmuls, and the
//      simulation that keeps the regions that close (planTensorParallel,
//      simulate); the ops' rules are ShardPropagationOpInterface models
//      (ShardingModels.cpp). KV-head replication picks the regions split
//      over the KV heads only (planKvReplication).
//   2. Vocabulary parallelism: the embeddings split along the vocabulary
//      (planVocabEmbeddings).
//   3. Sequence parallelism: the values split along the sequence outside
//      the regions, and where the regions gather and reduce-scatter
//      (planSequenceParallel).
//   4. Data parallelism: the values split along the batch
//      (planDataParallel).
//
// The results are the Sharder's members, which rewrite()
// (TrainShardRewrite.cpp) applies.
//
//===----------------------------------------------------------------------===//

#include "TrainShardInternal.h"

#include "mlir/IR/Diagnostics.h"

using namespace mlir;
using namespace mlir::memopt;
using namespace mlir::memopt::detail;

train::ParamOp Sharder::getWeight(train::MatmulOp matmul) {
  if (cast<RankedTensorType>(matmul.getRhs().getType()).getRank() != 2)
    return nullptr;
  return getOwnParam(matmul.getRhs());
}

/// What compute reads of `param`: its single cast (its low-precision copy),
/// else the parameter itself.
Value mlir::memopt::detail::getParamRead(train::ParamOp param) {
  if (param->hasOneUse())
    if (auto copy = dyn_cast<train::CastOp>(*param->user_begin()))
      return copy.getResult();
  return param.getResult();
}

/// The parameter `value` reads (itself or its single cast), or null.
static train::ParamOp getReadParam(Value value) {
  if (auto copy = value.getDefiningOp<train::CastOp>()) {
    if (!copy.getInput().hasOneUse())
      return nullptr;
    value = copy.getInput();
  }
  return value.getDefiningOp<train::ParamOp>();
}

/// Whether every use of `read` other than `except` is an embedding's table.
static bool isReadAsTables(Value read, Operation *except = nullptr) {
  return llvm::all_of(read.getUses(), [&](OpOperand &use) {
    return use.getOwner() == except ||
           (isa<train::EmbeddingOp>(use.getOwner()) &&
            use.getOperandNumber() == 0);
  });
}

train::ParamOp Sharder::getTiedTable(train::MatmulOp matmul) {
  if (!vocabParallel ||
      cast<RankedTensorType>(matmul.getRhs().getType()).getRank() != 2 ||
      !matmul.getTransposeRhs())
    return nullptr;
  train::ParamOp param = getReadParam(matmul.getRhs());
  if (!param || !isReadAsTables(matmul.getRhs(), matmul))
    return nullptr;
  return param;
}

/// The number of equal blocks the users of a column-parallel result read
/// along its last dimension: slices of a third of a fused QKV output make
/// three. 1 when the users do not slice it.
static int64_t getSliceBlocks(Value result) {
  auto type = cast<RankedTensorType>(result.getType());
  int64_t last = type.getRank() - 1, extent = type.getDimSize(last);
  int64_t size = 0;
  SmallVector<Value> worklist{result};
  while (!worklist.empty()) {
    Value value = worklist.pop_back_val();
    for (Operation *user : value.getUsers()) {
      if (auto bias = dyn_cast<train::BiasAddOp>(user)) {
        if (bias.getInput() == value)
          worklist.push_back(bias.getResult());
        continue;
      }
      // A LoRA adapter's output joins the layer's (train-lora): its scale
      // and sum carry the layer's blocks.
      if (isa<train::ScaleOp, train::AddOp>(user)) {
        worklist.push_back(user->getResult(0));
        continue;
      }
      auto slice = dyn_cast<train::SliceOp>(user);
      if (!slice)
        return 1;
      int64_t width = slice.getType().getDimSize(last);
      if (width == extent)
        continue;
      if ((size && width != size) || extent % width != 0 ||
          slice.getOffsets()[last] % width != 0)
        return 1;
      size = width;
    }
  }
  return size ? extent / size : 1;
}

/// Applies the tensor-parallel rule of `op` given its operands' splits:
/// starts a region at a candidate matmul none of whose operands is split;
/// else, when an operand is split, the op's ShardPropagationOpInterface
/// rule (an op without one has no rule).
LogicalResult Sharder::propagate(Operation *op, Simulation &sim) {
  ShardPropagationState state(op, sim, rules);
  if (state.hasSplitOperand()) {
    if (auto rule = dyn_cast<ShardPropagationOpInterface>(op))
      return rule.propagateSharding(state);
    return state.failNoRule();
  }
  // Start a region.
  auto matmul = dyn_cast<train::MatmulOp>(op);
  if (!matmul)
    return success();
  auto it = llvm::find(candidates, matmul);
  if (it == candidates.end() || matmul.getTransposeLhs())
    return success();
  unsigned index = it - candidates.begin();
  if (sim.dropped.test(index))
    return success();
  llvm::BitVector starts(candidates.size());
  starts.set(index);
  sim.columnParallel.insert(op);
  int64_t rank = cast<RankedTensorType>(matmul.getLhs().getType()).getRank();
  sim.splits[matmul.getResult()] =
      TensorSplit{rank - 1, getSliceBlocks(matmul.getResult()), starts,
                  kvRegions.test(index)};
  return success();
}

Simulation Sharder::simulate(const llvm::BitVector &dropped) {
  Simulation sim;
  sim.dropped = dropped;
  sim.vocabRegions.resize(candidates.size());
  for (Operation &op : body)
    if (failed(propagate(&op, sim)))
      return sim;
  // A region that never reached a row-parallel matmul stays open: its
  // split values would reach the function's results.
  Operation *ret = body.getTerminator();
  for (Value value : ret->getOperands())
    if (auto it = sim.splits.find(value); it != sim.splits.end()) {
      sim.failedAt = ret;
      sim.blamed = it->second.starts;
      sim.reason = "a returned value";
      return sim;
    }
  return sim;
}

/// KV-head replication: the candidate matmuls that project the keys and
/// values of an attention with fewer KV heads than tp (through per-head
/// ops) split their output over the KV heads only, one per process, each
/// replicated over tp / kv processes. Every such attention must have the
/// same number of KV heads (the grid's axes).
LogicalResult Sharder::planKvReplication() {
  kvRegions.resize(candidates.size());
  for (auto attention : body.getOps<train::AttentionOp>()) {
    if (!needsKvReplication(attention, tp))
      continue;
    int64_t kv = attention.getKey().getType().getDimSize(1);
    if (kvHeads && kv != kvHeads)
      return attention.emitOpError()
             << "cannot be sharded by train-shard: it has " << kv
             << " KV heads and another attention has " << kvHeads
             << "; replicating KV heads over tp=" << tp
             << " needs the same number in every attention";
    kvHeads = kv;
    for (Value value : {attention.getKey(), attention.getValue()}) {
      while (Operation *def = value.getDefiningOp()) {
        if (auto bias = dyn_cast<train::BiasAddOp>(def)) {
          value = bias.getInput();
          continue;
        }
        if (!isa<train::RotaryOp, train::TransposeOp, train::ReshapeOp,
                 train::SliceOp, train::CastOp, train::ScaleOp>(def))
          break;
        value = def->getOperand(0);
      }
      auto matmul = value.getDefiningOp<train::MatmulOp>();
      auto it = matmul ? llvm::find(candidates, matmul) : candidates.end();
      if (it != candidates.end())
        kvRegions.set(it - candidates.begin());
    }
  }
  return success();
}

/// Whether `matmul` reads a LoRA adapter's `suffix` matrix ("lora_A" or
/// "lora_B", train-lora's names).
static bool readsAdapter(train::MatmulOp matmul, StringRef suffix) {
  train::ParamOp param = getReadParam(matmul.getRhs());
  return param && param.getName().ends_with(("." + suffix + ".weight").str());
}

LogicalResult Sharder::planTensorParallel() {
  if (tp == 1)
    return success();
  // A LoRA adapter follows its layer: A (rank x in) never starts a region,
  // so it is replicated beside a column-parallel layer and row-parallel
  // (split along its input) inside a region; B is column-parallel beside a
  // column-parallel layer, and replicated after a row-parallel one (the
  // simulation drops it there, silently).
  for (auto matmul : body.getOps<train::MatmulOp>())
    if (!readsAdapter(matmul, "lora_A") &&
        (getWeight(matmul) || getTiedTable(matmul)))
      candidates.push_back(matmul);
  rules.tiedRegions.resize(candidates.size());
  for (auto [index, matmul] : llvm::enumerate(candidates))
    if (!getWeight(matmul))
      rules.tiedRegions.set(index);
  if (failed(planKvReplication()))
    return failure();
  rules.tp = tp;
  rules.kvHeads = kvHeads;
  rules.vocabParallel = vocabParallel;
  llvm::BitVector dropped(candidates.size());
  while (true) {
    Simulation sim = simulate(dropped);
    if (!sim.failedAt) {
      // A vocabulary-parallel head whose classes tp does not divide stays
      // replicated (Megatron-LM pads the vocabulary instead; a padded
      // vocabulary would change the model).
      bool retry = false;
      for (unsigned index : sim.vocabRegions.set_bits()) {
        train::MatmulOp head = candidates[index];
        int64_t classes = head.getType().getShape().back();
        if (!sim.columnParallel.contains(head) || classes % tp == 0)
          continue;
        dropped.set(index);
        retry = true;
        head->emitWarning()
            << "train-shard keeps this matmul replicated (not "
               "vocabulary-parallel): its "
            << classes << " classes do not divide by tp=" << tp
            << "; pad the vocabulary to a multiple of tp (mem-gen --vocab) to "
               "split it, as Megatron-LM does";
      }
      if (retry)
        continue;
      plan = std::move(sim);
      break;
    }
    llvm::BitVector blamed = sim.blamed;
    blamed.resize(candidates.size());
    blamed.reset(dropped);
    if (blamed.none())
      return sim.failedAt->emitOpError()
             << "cannot be sharded by train-shard: " << sim.reason;
    for (unsigned index : blamed.set_bits()) {
      dropped.set(index);
      if (readsAdapter(candidates[index], "lora_B"))
        continue;
      InFlightDiagnostic diag =
          candidates[index]->emitWarning()
          << "train-shard keeps this matmul replicated (not column-parallel): "
             "its output reaches '"
          << sim.failedAt->getName() << "' (" << sim.reason << ")";
      diag.attachNote(sim.failedAt->getLoc()) << "reached here";
    }
  }
  if (plan.columnParallel.empty())
    return failNoColumnParallel();
  return checkSplitsDivide();
}

/// The ops of `body` whose parameters train-shard never splits over tp:
/// convolutions, and fp8's scaled matmuls.
static void findUnsplitLayers(Block &body, SmallVectorImpl<Operation *> &convs,
                              SmallVectorImpl<Operation *> &scaled) {
  for (Operation &op : body) {
    if (isa<train::Conv2dOp>(op))
      convs.push_back(&op);
    else if (isa<train::ScaledMatmulOp>(op))
      scaled.push_back(&op);
  }
}

LogicalResult Sharder::failNoColumnParallel() {
  SmallVector<Operation *> convs, scaled;
  findUnsplitLayers(body, convs, scaled);
  InFlightDiagnostic diag = func.emitOpError()
                            << "has no column-parallel layer for tp=" << tp
                            << ": ";
  if (!scaled.empty()) {
    diag << "its linear layers are fp8 scaled matmuls (" << scaled.size()
         << " train.scaled_matmul, from train-precision mode=fp8), which "
            "train-shard does not partition yet; use fp8 with tp=1 (dp and "
            "zero apply to it), or another precision with tp > 1";
    diag.attachNote(scaled.front()->getLoc()) << "the first fp8 scaled matmul";
  } else if (!convs.empty()) {
    diag << "its " << convs.size()
         << " convolutions are not tensor-parallel (train-shard splits "
            "matmuls, Megatron-LM's layers) and no matmul of a parameter "
            "leads to a row-parallel one";
  } else {
    diag << "no matmul of a parameter leads to a row-parallel one";
  }
  return diag;
}

/// Every split must divide by tp, in blocks; the error names the first
/// value that does not, in program order, and prefers a split of the heads
/// (a dimension before the last, where a reshape put them) over one of the
/// features: 4 heads over tp=3 fail on GPT-2's fused QKV output first, as
/// 192 features in 3 blocks, but the heads are what to change.
LogicalResult Sharder::checkSplitsDivide() {
  Value features, heads;
  for (Operation &op : body)
    for (Value result : op.getResults()) {
      auto it = plan.splits.find(result);
      if (it == plan.splits.end())
        continue;
      const TensorSplit &split = it->second;
      auto type = cast<RankedTensorType>(result.getType());
      if (type.getDimSize(split.dim) % (split.blocks * getParts(split)) == 0)
        continue;
      if (split.dim + 1 < type.getRank()) {
        if (!heads)
          heads = result;
      } else if (!features) {
        features = result;
      }
    }
  Value value = heads ? heads : features;
  if (!value)
    return success();
  const TensorSplit &split = plan.splits[value];
  auto type = cast<RankedTensorType>(value.getType());
  int64_t extent = type.getDimSize(split.dim);
  InFlightDiagnostic diag =
      value.getDefiningOp()->emitOpError()
      << "cannot be sharded by train-shard: its " << extent
      << (heads ? " attention heads" : " features") << " (dimension "
      << split.dim << " of " << type << ")";
  if (split.blocks > 1)
    diag << ", " << split.blocks << " fused blocks of " << extent / split.blocks
         << ",";
  diag << " do not divide by ";
  if (split.kvOnly)
    diag << "the " << kvHeads << " KV heads";
  else
    diag << "tp=" << tp;
  if (split.blocks > 1)
    diag << " in each block";
  diag << "; use a tp that divides the attention heads and the MLP width, "
          "and either divides the KV heads or is a multiple of them (each KV "
          "head is then replicated)";
  return diag;
}

LogicalResult Sharder::planDataParallel() {
  if (dp == 1)
    return success();
  // Averaging the processes' losses and gradients gives the whole batch's
  // only for a mean over the batch.
  auto ret = cast<func::ReturnOp>(body.getTerminator());
  if (ret.getNumOperands() > 0) {
    Operation *loss = ret.getOperand(0).getDefiningOp();
    if (!isa_and_nonnull<train::CrossEntropyOp, train::MseLossOp>(loss)) {
      InFlightDiagnostic diag =
          ret.emitOpError()
          << "returns a loss train-shard cannot make data-parallel: dp="
          << static_cast<int64_t>(dp)
          << " averages the processes' losses and gradients, which equals "
             "the whole batch's only for a mean loss (train.cross_entropy, "
             "train.mse_loss)";
      if (loss)
        diag.attachNote(loss->getLoc())
            << "the loss is computed by '" << loss->getName() << "'";
      return diag;
    }
  }
  for (BlockArgument arg : func.getArguments()) {
    auto type = dyn_cast<RankedTensorType>(arg.getType());
    if (!type ||
        func.getArgAttr(arg.getArgNumber(), train::TrainDialect::kStepAttrName))
      continue;
    if (type.getRank() == 0 || type.getDimSize(0) % dp != 0)
      return emitError(arg.getLoc())
             << "train-shard: argument " << arg.getArgNumber() << " (" << type
             << ") cannot be split over dp=" << dp
             << ": its first (batch) dimension is not divisible";
    batchDims[arg] = 0;
  }
  for (Operation &op : body) {
    std::optional<int64_t> dim;
    for (Value operand : op.getOperands())
      if (auto it = batchDims.find(operand); it != batchDims.end())
        dim = it->second;
    if (!dim || isa<func::ReturnOp>(op))
      continue;
    if (isa<train::BatchNormOp>(op))
      return op.emitOpError("cannot be data-parallel: its statistics over a "
                            "process's part of the batch differ from the "
                            "whole batch's (train-shard has no synchronized "
                            "batch norm)");
    if (auto slice = dyn_cast<train::SliceOp>(op))
      if (slice.getOffsets()[*dim] != 0 ||
          slice.getType().getDimSize(*dim) !=
              slice.getInput().getType().getDimSize(*dim))
        return op.emitOpError("slices the batch dimension; train-shard cannot "
                              "split it over dp");
    for (Value result : op.getResults()) {
      auto type = dyn_cast<RankedTensorType>(result.getType());
      if (!type || type.getRank() == 0)
        continue;
      int64_t resultDim = 0;
      if (auto transpose = dyn_cast<train::TransposeOp>(op))
        resultDim = llvm::find(transpose.getPermutation(), *dim) -
                    transpose.getPermutation().begin();
      else if (auto reshape = dyn_cast<train::ReshapeOp>(op)) {
        std::optional<int64_t> mapped =
            mapReshapeDim(cast<RankedTensorType>(reshape.getInput().getType()),
                          type, *dim, dp);
        if (!mapped)
          return op.emitOpError("reshapes the batch dimension so that dp=")
                 << dp << " parts are not contiguous";
        resultDim = *mapped;
      } else if (*dim != 0) {
        return op.emitOpError("reads a tensor whose batch dimension a "
                              "transpose moved; train-shard splits the batch "
                              "of such ops only along dimension 0");
      }
      if (type.getDimSize(resultDim) % dp != 0)
        return op.emitOpError() << "cannot split " << type << " over dp=" << dp
                                << " along dimension " << resultDim;
      batchDims[result] = resultDim;
    }
  }
  return success();
}

/// Whether `value` reads a parameter whole: a train.param or casts of one.
static bool isParameterRead(Value value) {
  while (auto cast = value.getDefiningOp<train::CastOp>())
    value = cast.getInput();
  return value.getDefiningOp<train::ParamOp>() != nullptr;
}

/// Sequence parallelism: records that `value`, a result of `op`, is split
/// along `dim`; fails where tp does not divide it.
LogicalResult Sharder::setSeqDim(Operation &op, Value value, int64_t dim) {
  auto type = cast<RankedTensorType>(value.getType());
  if (dim < 0 || dim >= type.getRank() || type.getDimSize(dim) % tp != 0)
    return op.emitOpError()
           << "cannot be sequence-parallel: its result " << type
           << " cannot be split along dimension " << dim << " over tp=" << tp;
  seqDims[value] = dim;
  return success();
}

/// The error of an op whose sequence-split operands it cannot take.
static LogicalResult failSequenceParallel(Operation &op, const Twine &reason) {
  return op.emitOpError()
         << "cannot be sequence-parallel: " << reason
         << "; train-shard splits only per-token ops along the sequence";
}

/// Sequence parallelism: every argument is split along dimension 1, except
/// the whole ids and labels of vocabulary parallelism.
LogicalResult Sharder::planSequenceArguments() {
  // With a vocabulary-parallel head, the ids its embeddings look up and the
  // labels of its loss are whole, as in Megatron-LM: each process computes
  // its vocabulary part of the whole sequence.
  auto isWholeVocabularyRead = [&](OpOperand &use) {
    Operation *user = use.getOwner();
    if (auto embedding = dyn_cast<train::EmbeddingOp>(user))
      return use.getOperandNumber() == 1 &&
             llvm::is_contained(vocabEmbeddings, embedding);
    return use.getOperandNumber() == 1 && plan.vocabLosses.contains(user);
  };
  for (BlockArgument arg : func.getArguments()) {
    auto type = dyn_cast<RankedTensorType>(arg.getType());
    if (!type ||
        func.getArgAttr(arg.getArgNumber(), train::TrainDialect::kStepAttrName))
      continue;
    if (!arg.use_empty() && llvm::all_of(arg.getUses(), isWholeVocabularyRead))
      continue;
    if (type.getRank() < 2 || type.getDimSize(1) % tp != 0)
      return emitError(arg.getLoc())
             << "train-shard: argument " << arg.getArgNumber() << " (" << type
             << ") cannot be split along the sequence over tp=" << tp
             << ": sequence parallelism splits dimension 1 of every argument";
    seqDims[arg] = 1;
  }
  return success();
}

/// Sequence parallelism at `op`: where the regions gather and
/// reduce-scatter, and the split of its results.
LogicalResult Sharder::planSequenceOp(Operation &op) {
  // A region's partial sums are reduce-scattered along the sequence.
  if (plan.rowParallel.contains(&op)) {
    auto matmul = cast<train::MatmulOp>(op);
    const llvm::BitVector &starts = plan.splits[matmul.getLhs()].starts;
    auto it = starts.any() ? regionSeqDims.find(starts.find_first())
                           : regionSeqDims.end();
    if (it == regionSeqDims.end())
      return op.emitOpError("cannot be sequence-parallel: its region's "
                            "input is not split along the sequence");
    return setSeqDim(op, matmul.getResult(), it->second);
  }
  SmallVector<std::optional<int64_t>> in;
  bool anySplit = false;
  for (Value operand : op.getOperands()) {
    auto it = seqDims.find(operand);
    in.push_back(it == seqDims.end() ? std::nullopt
                                     : std::optional(it->second));
    anySplit |= in.back().has_value();
  }
  // A vocabulary-parallel embedding of whole ids: its summed rows are
  // reduce-scattered along the sequence.
  if (auto embedding = dyn_cast<train::EmbeddingOp>(op);
      embedding && llvm::is_contained(vocabEmbeddings, embedding)) {
    if (in[1] || embedding.getIds().getType().getRank() < 2)
      return op.emitOpError(
          "cannot be sequence-parallel: a vocabulary-parallel embedding "
          "needs the ids of the whole sequence (dimension 1), as an "
          "argument that only such embeddings read");
    if (failed(setSeqDim(op, embedding.getResult(), 1)))
      return failure();
    seqScatteredEmbeddings.insert(embedding);
    return success();
  }
  if (!anySplit)
    return success();
  // A region's input is gathered along the sequence.
  if (plan.columnParallel.contains(&op)) {
    auto matmul = cast<train::MatmulOp>(op);
    if (!in[0] || in[1])
      return failSequenceParallel(
          op, "a column-parallel matmul whose input is not split "
              "along the sequence");
    seqGathers[matmul.getLhs()] = *in[0];
    const llvm::BitVector &starts = plan.splits[matmul.getResult()].starts;
    for (unsigned index : starts.set_bits())
      regionSeqDims.try_emplace(index, *in[0]);
    return success();
  }
  if (llvm::any_of(op.getResults(),
                   [&](Value result) { return plan.splits.count(result); }))
    return failSequenceParallel(
        op, "a tensor-parallel region reads a sequence-split value "
            "other than through its column-parallel matmuls");
  // The other operands: split the same way, or a parameter read whole
  // (its gradient then sums the processes' shares).
  int64_t dim = **llvm::find_if(
      in, [](const std::optional<int64_t> &d) { return d.has_value(); });
  for (auto [operand, operandDim] : llvm::zip_equal(op.getOpOperands(), in)) {
    if (operandDim) {
      if (*operandDim != dim)
        return failSequenceParallel(
            op, "its operands are split along different dimensions");
      continue;
    }
    if (!isa<RankedTensorType>(operand.get().getType()))
      continue;
    if (!isParameterRead(operand.get()))
      return failSequenceParallel(
          op, "it combines a sequence-split value with a whole one "
              "that is not a parameter");
    replicatedReads.push_back(&operand);
  }
  return propagateSequenceSplit(op, in, dim);
}

/// The per-token rules: the split of `op`'s results, given its operands'
/// (`in`, all along `dim` or parameters read whole).
LogicalResult Sharder::propagateSequenceSplit(
    Operation &op, ArrayRef<std::optional<int64_t>> in, int64_t dim) {
  int64_t rank = cast<RankedTensorType>(op.getOperand(0).getType()).getRank();
  if (isa<train::AddOp, train::SubOp, train::MulOp, train::ScaleOp,
          train::CastOp, train::GeluOp, train::ReluOp, train::SiluOp,
          train::SigmoidOp, train::TanhOp, train::HardsigmoidOp,
          train::HardswishOp, train::DropoutOp>(op)) {
    for (Value result : op.getResults())
      if (failed(setSeqDim(op, result, dim)))
        return failure();
    return success();
  }
  if (auto bias = dyn_cast<train::BiasAddOp>(op)) {
    int64_t biasDim = static_cast<int64_t>(bias.getDim());
    if (biasDim < 0)
      biasDim += rank;
    if (!in[0] || biasDim == dim)
      return failSequenceParallel(op, "a bias add along the sequence");
    return setSeqDim(op, bias.getResult(), dim);
  }
  if (isa<train::LayerNormOp, train::RmsNormOp>(op)) {
    if (!in[0] || dim >= rank - 1)
      return failSequenceParallel(op, "a normalization over the sequence");
    for (Value result : op.getResults())
      if (failed(setSeqDim(op, result, dim)))
        return failure();
    return success();
  }
  if (auto embedding = dyn_cast<train::EmbeddingOp>(op)) {
    if (!in[1])
      return failSequenceParallel(op,
                                  "an embedding whose indices are not split");
    return setSeqDim(op, embedding.getResult(), dim);
  }
  if (auto matmul = dyn_cast<train::MatmulOp>(op)) {
    if (!in[0] || in[1] || matmul.getTransposeLhs() || dim >= rank - 1)
      return failSequenceParallel(op, "a matmul that contracts the sequence");
    return setSeqDim(op, matmul.getResult(), dim);
  }
  if (isa<train::CrossEntropyOp, train::MseLossOp>(op)) {
    if (!in[0] || !in[1])
      return failSequenceParallel(op, "a loss whose inputs are not both split");
    // A mean over the process's tokens: averaged over the axis below.
    return success();
  }
  if (auto reshape = dyn_cast<train::ReshapeOp>(op)) {
    std::optional<int64_t> mapped =
        mapReshapeDim(cast<RankedTensorType>(reshape.getInput().getType()),
                      reshape.getType(), dim, tp);
    if (!mapped)
      return failSequenceParallel(
          op, "a reshape that makes the sequence parts non-contiguous");
    return setSeqDim(op, reshape.getResult(), *mapped);
  }
  if (auto transpose = dyn_cast<train::TransposeOp>(op)) {
    ArrayRef<int64_t> perm = transpose.getPermutation();
    return setSeqDim(op, transpose.getResult(),
                     llvm::find(perm, dim) - perm.begin());
  }
  return failSequenceParallel(op, "no sequence-parallel rule");
}

LogicalResult Sharder::planSequenceParallel() {
  if (!sequenceParallel)
    return success();
  if (failed(planSequenceArguments()))
    return failure();
  for (Operation &op : body) {
    if (isa<func::ReturnOp>(op))
      break;
    if (failed(planSequenceOp(op)))
      return failure();
  }
  auto ret = cast<func::ReturnOp>(body.getTerminator());
  for (auto [index, value] : llvm::enumerate(ret.getOperands())) {
    if (seqDims.count(value))
      return ret.emitOpError()
             << "returns value " << index
             << " split along the sequence; train-shard returns whole values";
    Operation *def = value.getDefiningOp();
    if (index == 0 &&
        isa_and_nonnull<train::CrossEntropyOp, train::MseLossOp>(def) &&
        llvm::any_of(def->getOperands(),
                     [&](Value operand) { return seqDims.count(operand); }))
      seqLoss = true;
  }
  return success();
}

/// Vocabulary parallelism: the embeddings whose table is a vocabulary-
/// parallel head's weight (tied), or has as many rows as the vocabulary and
/// is read by embeddings only (untied), are split along the rows.
void Sharder::planVocabEmbeddings() {
  if (plan.vocabLosses.empty())
    return;
  auto loss = cast<train::CrossEntropyOp>(plan.vocabLosses.front());
  int64_t vocab = loss.getLogits().getType().getShape().back();
  // The heads' weights split along the vocabulary (dimension 0: read
  // transposed, [V, h]).
  llvm::SmallPtrSet<Value, 2> headTables;
  for (unsigned index : plan.vocabRegions.set_bits()) {
    train::MatmulOp head = candidates[index];
    if (plan.columnParallel.contains(head) && head.getTransposeRhs())
      headTables.insert(getRegionWeight(head).getResult());
  }
  for (auto embedding : body.getOps<train::EmbeddingOp>()) {
    train::ParamOp param = getReadParam(embedding.getTable());
    if (!param)
      continue;
    if (!headTables.contains(param.getResult())) {
      auto type = cast<RankedTensorType>(param.getType());
      if (type.getDimSize(0) != vocab || vocab % tp != 0 ||
          !isReadAsTables(getParamRead(param)))
        continue;
      if (!llvm::is_contained(vocabTables, param.getResult()))
        vocabTables.push_back(param.getResult());
    }
    vocabEmbeddings.push_back(embedding);
  }
}

LogicalResult Sharder::analyze() {
  if (failed(planTensorParallel()))
    return failure();
  planVocabEmbeddings();
  return failure(failed(planSequenceParallel()) || failed(planDataParallel()));
}
