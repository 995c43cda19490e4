//===- TrainShard.cpp - one process's program of a dp x tp grid -----------===//
//
// train-shard rewrites a forward + loss function (or a whole step, through
// its forward pass) into the program each process of a `dp x tp` grid runs:
//
//   1. Data parallelism: every argument is split along dimension 0 over grid
//      axis 0; everything computed from an argument is split along its
//      batch dimension too (dimension 0, or where a transpose moved it).
//      The returned loss is averaged over the axis.
//   2. Tensor parallelism (Megatron-LM): the pass finds column-parallel
//      regions by simulation. Every matmul that reads a parameter (or a cast
//      of one) used nowhere else, and a replicated activation, starts a
//      candidate region; its result is split along its last dimension, and
//      the split follows the users (per-head and per-column ops) until
//      row-parallel matmuls end it. A region that reaches an op with no
//      rule (a layer norm, a loss, an add with a replicated value) is
//      dropped, and the simulation runs again without it, until every
//      remaining region closes. An attention with fewer KV heads than tp
//      (a divisor of it) keeps one KV head per process: the projections
//      of its keys and values split over the KV heads only, and the grid's
//      tensor-parallel axis becomes two (KV heads x replicas of each).
//   3. The rewrite retypes every value to its per-process shape in place,
//      localizes slice offsets, splits the parameters (`train.split` tells
//      the runtime which part of the whole tensor each process holds), and
//      inserts Megatron's f (`train.copy_to_parallel`) before the
//      column-parallel matmuls and g (`shard.all_reduce`) after the
//      row-parallel ones.
//
//===----------------------------------------------------------------------===//

#include "memopt/Dialect/Train/IR/Precision.h"
#include "memopt/Dialect/Train/IR/TrainOps.h"
#include "memopt/Dialect/Train/IR/TrainStep.h"
#include "memopt/Transforms/Autodiff.h"
#include "memopt/Transforms/Passes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Shard/IR/ShardOps.h"
#include "mlir/IR/SymbolTable.h"
#include "mlir/IR/Verifier.h"
#include "llvm/ADT/BitVector.h"
#include "llvm/ADT/ScopeExit.h"
#include "llvm/ADT/SetVector.h"
#include "llvm/ADT/SmallPtrSet.h"

namespace mlir::memopt {
#define GEN_PASS_DEF_TRAINSHARDPASS
#include "memopt/Transforms/Passes.h.inc"
} // namespace mlir::memopt

using namespace mlir;
using namespace mlir::memopt;

/// The grid train-shard creates: axis 0 data-parallel, axis 1 tensor-parallel.
/// When tp exceeds a model's KV heads, the tensor-parallel axis is two: axis 1
/// numbers the KV heads and axis 2 the processes that replicate each (a
/// process's tensor-parallel index is then `kv * replicas + replica`).
static constexpr StringLiteral kGridName = "grid";
static constexpr int16_t kDataAxis = 0;
static constexpr int16_t kTensorAxis = 1;
static constexpr int16_t kReplicaAxis = 2;

namespace {

/// How a value is split over the tensor-parallel axis: dimension `dim`,
/// viewed as `blocks x tp x n`, keeps one `n`-block per block.
struct TensorSplit {
  int64_t dim = -1;
  int64_t blocks = 1;
  /// The candidate regions this value belongs to.
  llvm::BitVector starts;
  /// Split over the KV heads only (grid axis 1), each part replicated over
  /// axis 2: the keys and values of an attention with fewer KV heads than
  /// tp, and the projections that compute them.
  bool kvOnly = false;
};

/// The result of simulating a set of candidate regions.
struct Simulation {
  llvm::DenseMap<Value, TensorSplit> splits;
  /// Matmuls that start a region (column-parallel) and end one
  /// (row-parallel), in program order.
  llvm::SetVector<Operation *> columnParallel, rowParallel;
  /// The candidate regions left out of this simulation.
  llvm::BitVector dropped;
  /// Vocabulary parallelism: the cross-entropies that end a region (their
  /// logits split along the classes), and those regions.
  llvm::SetVector<Operation *> vocabLosses;
  llvm::BitVector vocabRegions;
  /// Set when a region reached an op without a rule: the op and the regions.
  Operation *failedAt = nullptr;
  llvm::BitVector blamed;
  std::string reason;
};

class Sharder {
public:
  Sharder(func::FuncOp func, int64_t dp, int64_t tp, int64_t zero,
          bool sequenceParallel, bool vocabParallel)
      : func(func), dp(dp), tp(tp), zero(zero),
        sequenceParallel(sequenceParallel),
        vocabParallel(vocabParallel && tp > 1), body(func.getBody().front()) {}

  /// Plans the partition; then `getReplicas` says how many processes each
  /// KV head needs (1 when none is replicated).
  LogicalResult analyze();
  int64_t getReplicas() const { return kvHeads ? tp / kvHeads : 1; }
  /// Rewrites the function into one process's program on a grid whose
  /// tensor-parallel axis replicates each KV head `replicas` times.
  LogicalResult rewrite(int64_t replicas);

private:
  LogicalResult planTensorParallel();
  bool needsKvReplication(train::AttentionOp attention) const;
  LogicalResult planKvReplication();
  Simulation simulate(const llvm::BitVector &active);
  LogicalResult propagate(Operation *op, Simulation &sim);
  LogicalResult planDataParallel();
  LogicalResult planSequenceParallel();
  void partitionParameters(OpBuilder &builder);
  void partitionDropouts(
      OpBuilder &builder,
      ArrayRef<std::pair<train::DropoutOp, SmallVector<int64_t>>> dropouts);
  void planVocabEmbeddings();
  void rewriteVocabParallel(OpBuilder &builder);
  RankedTensorType getLocalType(Value value);
  /// The number of parts a tensor-parallel split makes.
  int64_t getParts(const TensorSplit &split) const {
    return split.kvOnly ? kvHeads : tp;
  }
  /// The grid axes of tensor-parallel collectives.
  SmallVector<int16_t> getTensorAxes() const {
    if (replicas > 1)
      return {kTensorAxis, kReplicaAxis};
    return {kTensorAxis};
  }
  /// The `train.split` triples of a tensor-parallel split of `dim`.
  SmallVector<int64_t> getSplitTriples(int64_t dim, int64_t blocks,
                                       bool kvOnly) const;
  /// This process's index on the tensor-parallel axes.
  Value buildTensorIndex(OpBuilder &builder, Location loc);

  /// The parameter a candidate matmul reads as its rhs (through a cast), or
  /// null.
  train::ParamOp getWeight(train::MatmulOp matmul);
  /// The parameter of a column-parallel matmul: its own weight, or (a
  /// vocabulary-parallel head) an embedding table it shares.
  train::ParamOp getRegionWeight(train::MatmulOp matmul) {
    if (train::ParamOp param = getWeight(matmul))
      return param;
    return getTiedTable(matmul);
  }
  train::ParamOp getTiedTable(train::MatmulOp matmul);

  func::FuncOp func;
  int64_t dp, tp, zero;
  bool sequenceParallel, vocabParallel;
  Block &body;
  /// Candidate column-parallel matmuls, indexed by region number, and those
  /// whose weight is an embedding table too (they can only end at a
  /// vocabulary-parallel cross-entropy).
  SmallVector<train::MatmulOp> candidates;
  llvm::BitVector tiedCandidates;
  /// Vocabulary parallelism: the embeddings split along the vocabulary,
  /// their tables, and (with sequence parallelism) those whose summed rows
  /// are reduce-scattered along the sequence.
  SmallVector<train::EmbeddingOp> vocabEmbeddings;
  SmallVector<Value> vocabTables;
  llvm::SmallPtrSet<Operation *, 2> seqScatteredEmbeddings;
  Simulation plan;
  /// KV-head replication: the candidate regions whose splits are over the
  /// KV heads only, the KV heads (0 when none is replicated), and the
  /// grid's replicas of each.
  llvm::BitVector kvRegions;
  int64_t kvHeads = 0;
  int64_t replicas = 1;
  /// Values split along the batch: the dimension.
  llvm::DenseMap<Value, int64_t> batchDims;
  /// Sequence parallelism: values split along the sequence over the
  /// tensor-parallel axis (the dimension); the inputs of column-parallel
  /// matmuls gathered along it (the dimension); the sequence dimension of
  /// each region's partial sums, by candidate region; the operands that
  /// read a parameter whole from a per-token op; whether the returned loss
  /// is a process's share.
  llvm::DenseMap<Value, int64_t> seqDims;
  llvm::MapVector<Value, int64_t> seqGathers;
  llvm::DenseMap<unsigned, int64_t> regionSeqDims;
  SmallVector<OpOperand *> replicatedReads;
  bool seqLoss = false;
};

} // namespace

/// The parameter `value` is, directly or through a cast (its low-precision
/// copy), when neither has another use; null otherwise.
static train::ParamOp getOwnParam(Value value) {
  if (!value.hasOneUse())
    return nullptr;
  if (auto cast = value.getDefiningOp<train::CastOp>()) {
    value = cast.getInput();
    if (!value.hasOneUse())
      return nullptr;
  }
  return value.getDefiningOp<train::ParamOp>();
}

train::ParamOp Sharder::getWeight(train::MatmulOp matmul) {
  if (cast<RankedTensorType>(matmul.getRhs().getType()).getRank() != 2)
    return nullptr;
  return getOwnParam(matmul.getRhs());
}

/// What compute reads of `param`: its single cast (its low-precision copy),
/// else the parameter itself.
static Value getParamRead(train::ParamOp param) {
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

/// The dimension of `type` a reshape to `resultType` maps dimension `dim`
/// onto, when a split of `dim` into contiguous chunks is a split of that
/// dimension into contiguous chunks (whether `parts` divides it is the
/// caller's check); std::nullopt otherwise. A split into one part (one KV
/// head) stays on the group's leading dimension even when it is a unit one
/// (the heads of `b x s x 1 x d`).
static std::optional<int64_t> mapReshapeDim(RankedTensorType type,
                                            RankedTensorType resultType,
                                            int64_t dim, int64_t parts) {
  ArrayRef<int64_t> in = type.getShape(), out = resultType.getShape();
  // Walk both shapes in groups of equal products.
  size_t i = 0, o = 0;
  while (i < in.size() && o < out.size()) {
    size_t groupIn = i, groupOut = o;
    int64_t productIn = in[i++], productOut = out[o++];
    while (productIn != productOut) {
      if (productIn < productOut && i < in.size())
        productIn *= in[i++];
      else if (o < out.size())
        productOut *= out[o++];
      else
        return std::nullopt;
    }
    if (dim >= static_cast<int64_t>(groupIn) && dim < static_cast<int64_t>(i)) {
      // Only the group's leading dimension splits into contiguous chunks.
      for (size_t d = groupIn; d < static_cast<size_t>(dim); ++d)
        if (in[d] != 1)
          return std::nullopt;
      // Skip unit dimensions that start the group (they cannot split).
      while (parts > 1 && groupOut < o && out[groupOut] == 1)
        ++groupOut;
      if (groupOut == o)
        return std::nullopt;
      return groupOut;
    }
  }
  return std::nullopt;
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

/// Applies the tensor-parallel rule of `op` given its operands' splits.
LogicalResult Sharder::propagate(Operation *op, Simulation &sim) {
  // Copies: setSplit inserts into sim.splits, which may move its entries.
  SmallVector<std::optional<TensorSplit>> in;
  llvm::BitVector starts(candidates.size());
  bool anySplit = false, kvOnly = false;
  for (Value operand : op->getOperands()) {
    auto it = sim.splits.find(operand);
    in.push_back(it == sim.splits.end() ? std::nullopt
                                        : std::optional(it->second));
    if (in.back()) {
      anySplit = true;
      starts |= in.back()->starts;
      kvOnly |= in.back()->kvOnly;
    }
  }
  auto setSplit = [&](Value value, int64_t dim, int64_t blocks = 1) {
    sim.splits[value] = TensorSplit{dim, blocks, starts, kvOnly};
  };
  auto fail = [&](const Twine &reason) {
    sim.failedAt = op;
    sim.blamed = starts;
    sim.reason = reason.str();
    return failure();
  };

  if (auto matmul = dyn_cast<train::MatmulOp>(op)) {
    auto lhsType = cast<RankedTensorType>(matmul.getLhs().getType());
    int64_t rank = lhsType.getRank();
    // Start a region.
    if (!anySplit) {
      auto it = llvm::find(candidates, matmul);
      if (it == candidates.end() || matmul.getTransposeLhs())
        return success();
      unsigned index = it - candidates.begin();
      if (sim.dropped.test(index))
        return success();
      starts.set(index);
      kvOnly = kvRegions.test(index);
      sim.columnParallel.insert(op);
      setSplit(matmul.getResult(), rank - 1,
               getSliceBlocks(matmul.getResult()));
      return success();
    }
    // End a region: lhs split along the contraction, rhs a weight.
    if (in[0] && !in[1] && getWeight(matmul) && !matmul.getTransposeLhs() &&
        in[0]->dim == rank - 1 && in[0]->blocks == 1) {
      if (kvOnly)
        return fail("a row-parallel matmul of replicated KV heads");
      if (starts.anyCommon(tiedCandidates))
        return fail("a row-parallel matmul after a matmul by an embedding "
                    "table");
      sim.rowParallel.insert(op);
      return success();
    }
    // Per-head products (attention scores and context): both split along
    // the same batch dimension.
    if (in[0] && in[1] && in[0]->dim == in[1]->dim && in[0]->blocks == 1 &&
        in[1]->blocks == 1 && in[0]->kvOnly == in[1]->kvOnly &&
        in[0]->dim < rank - 2) {
      setSplit(matmul.getResult(), in[0]->dim);
      return success();
    }
    return fail("a matmul whose operands are split differently");
  }
  if (!anySplit)
    return success();

  if (auto bias = dyn_cast<train::BiasAddOp>(op)) {
    int64_t rank = bias.getInput().getType().getRank();
    int64_t biasDim = static_cast<int64_t>(bias.getDim());
    if (biasDim < 0)
      biasDim += rank;
    if (!in[0] || in[1] || !getOwnParam(bias.getBias()) ||
        in[0]->dim != rank - 1 || biasDim != rank - 1)
      return fail("a bias add that is not along the split features");
    setSplit(bias.getResult(), in[0]->dim, in[0]->blocks);
    return success();
  }
  if (auto slice = dyn_cast<train::SliceOp>(op)) {
    const TensorSplit &split = *in[0];
    auto type = cast<RankedTensorType>(slice.getInput().getType());
    int64_t extent = type.getDimSize(split.dim);
    int64_t width = slice.getType().getDimSize(split.dim);
    if (slice.getStrides() &&
        llvm::any_of(*slice.getStrides(), [](int64_t s) { return s != 1; }))
      return fail("a strided slice");
    if (width == extent) {
      setSplit(slice.getResult(), split.dim, split.blocks);
      return success();
    }
    if (split.blocks * width != extent ||
        slice.getOffsets()[split.dim] % width != 0)
      return fail("a slice that does not take whole blocks");
    setSplit(slice.getResult(), split.dim);
    return success();
  }
  if (auto reshape = dyn_cast<train::ReshapeOp>(op)) {
    if (in[0]->blocks != 1)
      return fail("a reshape of a tensor split in blocks");
    std::optional<int64_t> dim =
        mapReshapeDim(cast<RankedTensorType>(reshape.getInput().getType()),
                      cast<RankedTensorType>(reshape.getType()), in[0]->dim,
                      getParts(*in[0]));
    if (!dim)
      return fail("a reshape that does not keep the split contiguous");
    setSplit(reshape.getResult(), *dim);
    return success();
  }
  if (auto transpose = dyn_cast<train::TransposeOp>(op)) {
    ArrayRef<int64_t> perm = transpose.getPermutation();
    int64_t dim = llvm::find(perm, in[0]->dim) - perm.begin();
    setSplit(transpose.getResult(), dim, in[0]->blocks);
    return success();
  }
  if (auto softmax = dyn_cast<train::SoftmaxOp>(op)) {
    int64_t rank = softmax.getType().getRank();
    int64_t axis = static_cast<int64_t>(softmax.getAxis());
    if (axis < 0)
      axis += rank;
    if (in[0]->dim == axis || (softmax.getCausal() && in[0]->dim >= rank - 2))
      return fail("a softmax along the split dimension");
    setSplit(softmax.getResult(), in[0]->dim);
    return success();
  }
  if (auto rotary = dyn_cast<train::RotaryOp>(op)) {
    if (in[0]->dim >= rotary.getType().getRank() - 2)
      return fail("a rotary embedding along the split dimension");
    setSplit(rotary.getResult(), in[0]->dim);
    return success();
  }
  if (auto attention = dyn_cast<train::AttentionOp>(op)) {
    if (!in[0] || !in[1] || !in[2] || in[0]->dim != 1 || in[1]->dim != 1 ||
        in[2]->dim != 1)
      return fail("an attention whose heads are not all split");
    // Fewer KV heads than processes: each process keeps the KV head its
    // query heads attend to (planKvReplication).
    bool replicated = needsKvReplication(attention);
    if (in[0]->kvOnly || in[1]->kvOnly != replicated ||
        in[2]->kvOnly != replicated)
      return fail(replicated ? "an attention with fewer KV heads than tp "
                               "whose keys and values are not projections "
                               "train-shard can replicate"
                             : "an attention whose KV heads are split "
                               "differently");
    kvOnly = false;
    setSplit(attention.getResult(), 1);
    setSplit(attention.getLse(), 1);
    return success();
  }
  if (auto dropout = dyn_cast<train::DropoutOp>(op)) {
    setSplit(dropout.getResult(), in[0]->dim, in[0]->blocks);
    setSplit(dropout.getMask(), in[0]->dim, in[0]->blocks);
    return success();
  }
  // Vocabulary parallelism: logits split along the classes end the region.
  if (auto loss = dyn_cast<train::CrossEntropyOp>(op); loss && vocabParallel) {
    int64_t rank = loss.getLogits().getType().getRank();
    if (!in[0] || in[1] || in[0]->dim != rank - 1 || in[0]->blocks != 1 ||
        kvOnly)
      return fail("a cross-entropy whose logits are not split along the "
                  "classes");
    sim.vocabLosses.insert(op);
    sim.vocabRegions |= starts;
    return success();
  }
  // Elementwise ops: every tensor operand split the same way.
  if (isa<train::GeluOp, train::ReluOp, train::SiluOp, train::SigmoidOp,
          train::TanhOp, train::HardsigmoidOp, train::HardswishOp,
          train::SwigluOp, train::MulOp, train::ScaleOp, train::CastOp>(op)) {
    for (const std::optional<TensorSplit> &split : in)
      if (!split || split->dim != in[0]->dim ||
          split->blocks != in[0]->blocks || split->kvOnly != in[0]->kvOnly)
        return fail("an elementwise op with a replicated operand");
    setSplit(op->getResult(0), in[0]->dim, in[0]->blocks);
    return success();
  }
  return fail("no tensor-parallel rule");
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

/// Whether `attention` has fewer KV heads than tp (a divisor of it), and as
/// many query heads as tp divides.
bool Sharder::needsKvReplication(train::AttentionOp attention) const {
  int64_t heads = attention.getQuery().getType().getDimSize(1);
  int64_t kv = attention.getKey().getType().getDimSize(1);
  return kv % tp != 0 && tp % kv == 0 && heads % tp == 0;
}

/// KV-head replication: the candidate matmuls that project the keys and
/// values of an attention with fewer KV heads than tp (through per-head
/// ops) split their output over the KV heads only, one per process, each
/// replicated over tp / kv processes. Every such attention must have the
/// same number of KV heads (the grid's axes).
LogicalResult Sharder::planKvReplication() {
  kvRegions.resize(candidates.size());
  for (auto attention : body.getOps<train::AttentionOp>()) {
    if (!needsKvReplication(attention))
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

LogicalResult Sharder::planTensorParallel() {
  if (tp == 1)
    return success();
  for (auto matmul : body.getOps<train::MatmulOp>())
    if (getWeight(matmul) || getTiedTable(matmul))
      candidates.push_back(matmul);
  tiedCandidates.resize(candidates.size());
  for (auto [index, matmul] : llvm::enumerate(candidates))
    if (!getWeight(matmul))
      tiedCandidates.set(index);
  if (failed(planKvReplication()))
    return failure();
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
      InFlightDiagnostic diag =
          candidates[index]->emitWarning()
          << "train-shard keeps this matmul replicated (not column-parallel): "
             "its output reaches '"
          << sim.failedAt->getName() << "' (" << sim.reason << ")";
      diag.attachNote(sim.failedAt->getLoc()) << "reached here";
    }
  }
  if (plan.columnParallel.empty())
    return func.emitOpError()
           << "has no column-parallel layer for tp=" << tp
           << ": no matmul of a parameter leads to a row-parallel one";
  // Every split must divide by tp, in blocks; the first that does not, in
  // program order, is the error.
  SmallVector<Value> splitValues;
  for (Operation &op : body)
    for (Value result : op.getResults())
      if (plan.splits.count(result))
        splitValues.push_back(result);
  for (Value value : splitValues) {
    const TensorSplit &split = plan.splits[value];
    auto type = cast<RankedTensorType>(value.getType());
    int64_t extent = type.getDimSize(split.dim);
    if (extent % (split.blocks * getParts(split)) != 0) {
      Operation *at =
          value.getDefiningOp() ? value.getDefiningOp() : func.getOperation();
      return at->emitOpError()
             << "cannot be sharded by train-shard: dimension " << split.dim
             << " of its result " << type << " (heads, KV heads or features) "
             << "is " << extent << ", not divisible by "
             << split.blocks * getParts(split)
             << "; use a tp that divides the attention heads and the MLP "
                "width, and either divides the KV heads or is a multiple of "
                "them (each KV head is then replicated)";
    }
  }
  return success();
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

LogicalResult Sharder::planSequenceParallel() {
  if (!sequenceParallel)
    return success();
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
  auto setDim = [&](Operation &op, Value value, int64_t dim) -> LogicalResult {
    auto type = cast<RankedTensorType>(value.getType());
    if (dim < 0 || dim >= type.getRank() || type.getDimSize(dim) % tp != 0)
      return op.emitOpError()
             << "cannot be sequence-parallel: its result " << type
             << " cannot be split along dimension " << dim << " over tp=" << tp;
    seqDims[value] = dim;
    return success();
  };
  for (Operation &op : body) {
    if (isa<func::ReturnOp>(op))
      break;
    // A region's partial sums are reduce-scattered along the sequence.
    if (plan.rowParallel.contains(&op)) {
      auto matmul = cast<train::MatmulOp>(op);
      const llvm::BitVector &starts = plan.splits[matmul.getLhs()].starts;
      auto it = starts.any() ? regionSeqDims.find(starts.find_first())
                             : regionSeqDims.end();
      if (it == regionSeqDims.end())
        return op.emitOpError("cannot be sequence-parallel: its region's "
                              "input is not split along the sequence");
      if (failed(setDim(op, matmul.getResult(), it->second)))
        return failure();
      continue;
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
      if (failed(setDim(op, embedding.getResult(), 1)))
        return failure();
      seqScatteredEmbeddings.insert(embedding);
      continue;
    }
    if (!anySplit)
      continue;
    auto fail = [&](const Twine &reason) {
      return op.emitOpError()
             << "cannot be sequence-parallel: " << reason
             << "; train-shard splits only per-token ops along the sequence";
    };
    // A region's input is gathered along the sequence.
    if (plan.columnParallel.contains(&op)) {
      auto matmul = cast<train::MatmulOp>(op);
      if (!in[0] || in[1])
        return fail("a column-parallel matmul whose input is not split "
                    "along the sequence");
      seqGathers[matmul.getLhs()] = *in[0];
      const llvm::BitVector &starts = plan.splits[matmul.getResult()].starts;
      for (unsigned index : starts.set_bits())
        regionSeqDims.try_emplace(index, *in[0]);
      continue;
    }
    if (llvm::any_of(op.getResults(),
                     [&](Value result) { return plan.splits.count(result); }))
      return fail("a tensor-parallel region reads a sequence-split value "
                  "other than through its column-parallel matmuls");
    // The other operands: split the same way, or a parameter read whole
    // (its gradient then sums the processes' shares).
    int64_t dim = **llvm::find_if(
        in, [](const std::optional<int64_t> &d) { return d.has_value(); });
    for (auto [operand, operandDim] : llvm::zip_equal(op.getOpOperands(), in)) {
      if (operandDim) {
        if (*operandDim != dim)
          return fail("its operands are split along different dimensions");
        continue;
      }
      if (!isa<RankedTensorType>(operand.get().getType()))
        continue;
      if (!isParameterRead(operand.get()))
        return fail("it combines a sequence-split value with a whole one "
                    "that is not a parameter");
      replicatedReads.push_back(&operand);
    }
    int64_t rank = cast<RankedTensorType>(op.getOperand(0).getType()).getRank();
    if (isa<train::AddOp, train::SubOp, train::MulOp, train::ScaleOp,
            train::CastOp, train::GeluOp, train::ReluOp, train::SiluOp,
            train::SigmoidOp, train::TanhOp, train::HardsigmoidOp,
            train::HardswishOp, train::DropoutOp>(op)) {
      for (Value result : op.getResults())
        if (failed(setDim(op, result, dim)))
          return failure();
      continue;
    }
    if (auto bias = dyn_cast<train::BiasAddOp>(op)) {
      int64_t biasDim = static_cast<int64_t>(bias.getDim());
      if (biasDim < 0)
        biasDim += rank;
      if (!in[0] || biasDim == dim)
        return fail("a bias add along the sequence");
      if (failed(setDim(op, bias.getResult(), dim)))
        return failure();
      continue;
    }
    if (isa<train::LayerNormOp, train::RmsNormOp>(op)) {
      if (!in[0] || dim >= rank - 1)
        return fail("a normalization over the sequence");
      for (Value result : op.getResults())
        if (failed(setDim(op, result, dim)))
          return failure();
      continue;
    }
    if (auto embedding = dyn_cast<train::EmbeddingOp>(op)) {
      if (!in[1])
        return fail("an embedding whose indices are not split");
      if (failed(setDim(op, embedding.getResult(), dim)))
        return failure();
      continue;
    }
    if (auto matmul = dyn_cast<train::MatmulOp>(op)) {
      if (!in[0] || in[1] || matmul.getTransposeLhs() || dim >= rank - 1)
        return fail("a matmul that contracts the sequence");
      if (failed(setDim(op, matmul.getResult(), dim)))
        return failure();
      continue;
    }
    if (isa<train::CrossEntropyOp, train::MseLossOp>(op)) {
      if (!in[0] || !in[1])
        return fail("a loss whose inputs are not both split");
      // A mean over the process's tokens: averaged over the axis below.
      continue;
    }
    if (auto reshape = dyn_cast<train::ReshapeOp>(op)) {
      std::optional<int64_t> mapped =
          mapReshapeDim(cast<RankedTensorType>(reshape.getInput().getType()),
                        reshape.getType(), dim, tp);
      if (!mapped)
        return fail("a reshape that makes the sequence parts non-contiguous");
      if (failed(setDim(op, reshape.getResult(), *mapped)))
        return failure();
      continue;
    }
    if (auto transpose = dyn_cast<train::TransposeOp>(op)) {
      ArrayRef<int64_t> perm = transpose.getPermutation();
      if (failed(setDim(op, transpose.getResult(),
                        llvm::find(perm, dim) - perm.begin())))
        return failure();
      continue;
    }
    return fail("no sequence-parallel rule");
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

LogicalResult Sharder::rewrite(int64_t gridReplicas) {
  replicas = gridReplicas;
  MLIRContext *ctx = func.getContext();
  auto grid = FlatSymbolRefAttr::get(ctx, kGridName);
  OpBuilder builder(ctx);
  SmallVector<int16_t> tensorAxes = getTensorAxes();

  // Split parameters: the weights and biases of the regions.
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
  SmallVector<Value> replicatedWeights;
  for (auto [value, split] : paramSplits) {
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

  // Arguments.
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

  // Sequence parallelism: the parameters per-token ops read whole enter
  // through copy_to_parallel (one per read value), so that their gradients
  // sum the processes' shares.
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

  // Ops, in order: local result types, slice offsets, f and g (or, with
  // sequence parallelism, the gathers and reduce-scatters along the
  // sequence).
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

  partitionDropouts(builder, dropouts);

  // Replicated KV heads: the processes that hold the same KV head each
  // compute a share of its weights' gradients (from their own query heads),
  // which copy_to_parallel over the replicas sums.
  for (Value read : replicatedWeights) {
    builder.setInsertionPointAfterValue(read);
    auto copy = train::CopyToParallelOp::create(
        builder, read.getLoc(), read.getType(), read, grid,
        builder.getDenseI16ArrayAttr({kReplicaAxis}));
    read.replaceAllUsesExcept(copy.getResult(), copy);
  }

  rewriteVocabParallel(builder);

  // The loss: the average of the processes' losses (over the data-parallel
  // axis, and the tensor-parallel one when each process's loss covers its
  // part of the sequence).
  auto ret = cast<func::ReturnOp>(body.getTerminator());
  SmallVector<int16_t> lossAxes;
  if (dp > 1 && !batchDims.empty())
    lossAxes.push_back(kDataAxis);
  if (seqLoss)
    llvm::append_range(lossAxes, tensorAxes);
  if (!lossAxes.empty() && ret.getNumOperands() > 0) {
    Value loss = ret.getOperand(0);
    builder.setInsertionPoint(ret);
    auto average = shard::AllReduceOp::create(
        builder, loss.getLoc(), loss.getType(), kGridName, lossAxes, loss,
        shard::ReductionKind::Average);
    ret->setOperand(0, average.getResult());
  }
  partitionParameters(builder);
  func.setType(FunctionType::get(ctx, argTypes, ret.getOperandTypes()));
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
  // Every op still verifies with its local types (a failure names the op).
  WalkResult walk = func.walk([](Operation *op) {
    return failed(verify(op, /*verifyRecursively=*/false))
               ? WalkResult::interrupt()
               : WalkResult::advance();
  });
  return failure(walk.wasInterrupted());
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

LogicalResult Sharder::analyze() {
  if (failed(planTensorParallel()))
    return failure();
  planVocabEmbeddings();
  return failure(failed(planSequenceParallel()) || failed(planDataParallel()));
}

namespace {

/// A function train-shard partitions: a forward + loss function in place,
/// or a step through a clone of its forward pass, whose backward pass is
/// derived again once the clone is partitioned.
struct ShardJob {
  func::FuncOp target;
  func::FuncOp forward;
  std::optional<AutodiffOptions> options;
  std::unique_ptr<Sharder> sharder;

  ShardJob() = default;
  ShardJob(const ShardJob &) = delete;
  ShardJob &operator=(const ShardJob &) = delete;
  ~ShardJob() {
    if (forward && forward != target)
      forward->erase();
  }
};

} // namespace

/// Prepares the partition of `func`: for a step, the clone of its forward
/// pass (after checking that the step is derived from it).
static LogicalResult prepareJob(func::FuncOp func, ShardJob &job) {
  job.target = func;
  if (!isTrainingStep(func)) {
    job.forward = func;
    return success();
  }
  FailureOr<AutodiffOptions> options = inferAutodiffOptions(func);
  if (failed(options))
    return failure();
  job.options = *options;
  job.forward = cast<func::FuncOp>(func->clone());
  eraseBackward(job.forward);
  FailureOr<bool> derived = isDerivedFrom(func, job.forward, *options);
  if (failed(derived))
    return failure();
  if (!*derived)
    return mlir::emitError(func.getLoc())
           << "train-shard: @" << func.getSymName()
           << " is not the step train-autodiff derives from its forward "
              "pass (another pass or a hand edit changed it); apply "
              "train-shard to the forward + loss function, or to the step "
              "train-autodiff (and train-precision) produced, before other "
              "passes";
  return success();
}

/// Rewrites the planned function; a step takes the partitioned forward pass
/// and its derived backward pass.
static LogicalResult finishJob(ShardJob &job, int64_t replicas) {
  if (failed(job.sharder->rewrite(replicas)))
    return failure();
  if (!job.options)
    return success();
  if (failed(appendBackward(job.forward, *job.options)))
    return failure();
  func::FuncOp step = job.target;
  step.getBody().takeBody(job.forward.getBody());
  step.setType(job.forward.getFunctionType());
  step->setAttrs(job.forward->getAttrDictionary());
  return success();
}

namespace {

struct TrainShardPass
    : public memopt::impl::TrainShardPassBase<TrainShardPass> {
  using Base::Base;

  void runOnOperation() override {
    ModuleOp module = getOperation();
    if (tp < 1 || dp < 1) {
      module.emitError() << "train-shard: tp and dp must be at least 1, got "
                            "tp="
                         << static_cast<int64_t>(tp)
                         << " dp=" << static_cast<int64_t>(dp);
      return signalPassFailure();
    }
    if (zero < 0 || zero > 3) {
      module.emitError() << "train-shard: zero must be a ZeRO stage from 0 "
                            "to 3, got "
                         << static_cast<int64_t>(zero);
      return signalPassFailure();
    }
    if (zero > 0 && dp == 1) {
      module.emitError()
          << "train-shard: zero=" << static_cast<int64_t>(zero)
          << " partitions the model states over the data-parallel "
             "processes, and dp=1 has one; give dp > 1";
      return signalPassFailure();
    }
    if (sequenceParallel && tp == 1) {
      module.emitError("train-shard: sequence-parallel splits the sequence "
                       "over the tensor-parallel processes, and tp=1 has "
                       "one; give tp > 1");
      return signalPassFailure();
    }
    SmallVector<func::FuncOp> funcs;
    for (auto func : module.getOps<func::FuncOp>())
      if (!func.isExternal() && train::findTrainOp(func))
        funcs.push_back(func);
    for (func::FuncOp func : funcs) {
      if (func->hasAttr(train::TrainDialect::kShardAttrName)) {
        func.emitOpError("was already partitioned by train-shard; apply it "
                         "once, to the whole program");
        return signalPassFailure();
      }
    }
    // One process: the program is already that process's.
    if (funcs.empty() || (tp == 1 && dp == 1))
      return;
    if (Operation *existing = module.lookupSymbol(kGridName)) {
      existing->emitOpError()
          << "is named @" << kGridName
          << ", the grid train-shard creates; rename it or shard once";
      return signalPassFailure();
    }
    for (func::FuncOp func : funcs) {
      if (!func.getBody().hasOneBlock()) {
        func.emitOpError("expected a single-block function");
        return signalPassFailure();
      }
      if (failed(train::verifyNotLowered(func, "train-shard")))
        return signalPassFailure();
      std::optional<train::PrecisionConfig> precision =
          train::getPrecisionConfig(func);
      if ((zero > 0 || sequenceParallel) && precision &&
          precision->lossScaling == train::LossScaling::Dynamic) {
        emitError(func.getLoc())
            << "train-shard: @" << func.getSymName()
            << " has dynamic loss scaling, which train-shard cannot combine "
               "with "
            << (zero > 0 ? "zero=" + std::to_string(zero)
                         : std::string("sequence-parallel"))
            << ": each process would check only its part of the gradients "
               "for inf/NaN, and the processes could disagree on skipping a "
               "step; use static loss scaling or bf16";
        return signalPassFailure();
      }
    }
    // Plan every function first: replicated KV heads add a grid axis,
    // which all of them then use.
    SmallVector<std::unique_ptr<ShardJob>> jobs;
    int64_t replicas = 1;
    func::FuncOp replicating;
    for (func::FuncOp func : funcs) {
      ShardJob &job = *jobs.emplace_back(std::make_unique<ShardJob>());
      if (failed(prepareJob(func, job)))
        return signalPassFailure();
      job.sharder = std::make_unique<Sharder>(job.forward, dp, tp, zero,
                                              sequenceParallel, vocabParallel);
      if (failed(job.sharder->analyze()))
        return signalPassFailure();
      int64_t needed = job.sharder->getReplicas();
      if (needed == 1)
        continue;
      if (replicas > 1 && needed != replicas) {
        func.emitOpError()
            << "replicates each KV head over " << needed << " processes, but @"
            << replicating.getSymName() << " over " << replicas
            << "; train-shard partitions a module's functions on one grid";
        return signalPassFailure();
      }
      replicas = needed;
      replicating = func;
    }
    OpBuilder builder(module.getBodyRegion());
    builder.setInsertionPointToStart(module.getBody());
    SmallVector<int64_t> shape = {dp, tp};
    if (replicas > 1)
      shape = {dp, tp / replicas, replicas};
    shard::GridOp::create(builder, module.getLoc(), kGridName, shape);
    for (std::unique_ptr<ShardJob> &job : jobs)
      if (failed(finishJob(*job, replicas)))
        return signalPassFailure();
  }
};

} // namespace
