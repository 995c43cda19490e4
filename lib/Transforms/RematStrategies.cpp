//===- RematStrategies.cpp - train-remat's algorithms ---------------------===//
//
// Rewrites (keep-sets and stage plans), the keep-set algorithms (layers,
// sqrt, selective) and the searches (greedy, chain, optimal). Every search
// measures what it proposes exactly: the step is cloned, rewritten and
// analyzed.
//
//===----------------------------------------------------------------------===//

#include "memopt/Transforms/RematStrategies.h"
#include "memopt/Dialect/Train/IR/TrainOps.h"
#include "memopt/Dialect/Train/IR/TrainStep.h"
#include "memopt/Transforms/KeepSetModel.h"
#include "memopt/Transforms/Passes.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"
#include "llvm/ADT/DenseSet.h"
#include "llvm/Support/FormatVariadic.h"

#include <cmath>
#include <memory>

using namespace mlir;
using namespace mlir::memopt;
using train::TrainDialect;

/// Erases the `train.free`s of `func`: rewrites place them anew.
static void eraseFrees(func::FuncOp func) {
  for (Operation &op : llvm::make_early_inc_range(func.getBody().front()))
    if (isa<train::FreeOp>(op))
      op.erase();
}

//===----------------------------------------------------------------------===//
// Rewrites
//===----------------------------------------------------------------------===//

/// Whether `op` may read recomputed copies of forward values. In-place
/// updates may not: they run after the backward pass, and a recomputation
/// placed before one of them would run after the updates before it and read
/// the parameters they changed (an fp8 amax that train.amax_record reads
/// after the optimizer updates must be the forward pass's own). They read
/// the values as they are, which stay live until then.
static bool readsRecomputed(Operation *op) {
  return !train::isInPlaceUpdate(op);
}

/// Whether `value` is available in the backward pass: unless a forward op
/// computes it and its buffer is not in `kept` (forward temporaries died in
/// the forward).
static bool isAvailable(const TensorLiveness &liveness,
                        const llvm::DenseSet<Value> &kept, Value value) {
  Operation *def = value.getDefiningOp();
  if (!def || !computesForward(liveness, def))
    return true;
  const Buffer *buffer = liveness.lookup(value);
  return !buffer || kept.contains(buffer->value);
}

/// Rewrites `func` (without frees or a memory plan; `liveness` is its
/// analysis) so that every forward value whose buffer is not in `kept` is
/// recomputed before its first backward use, from the kept values; places
/// the frees anew. Returns the FLOPs of the recomputed ops.
static int64_t recomputeUnkept(func::FuncOp func,
                               const TensorLiveness &liveness,
                               const llvm::DenseSet<Value> &kept) {
  Block &block = func.getBody().front();
  auto available = [&](Value value) {
    return isAvailable(liveness, kept, value);
  };
  llvm::DenseMap<Value, Value> recomputed;
  int64_t flops = 0;
  std::function<Value(Value, OpBuilder &)> materialize =
      [&](Value value, OpBuilder &builder) -> Value {
    if (available(value))
      return value;
    if (auto it = recomputed.find(value); it != recomputed.end())
      return it->second;
    Operation *def = value.getDefiningOp();
    IRMapping mapping;
    for (Value operand : def->getOperands())
      mapping.map(operand, materialize(operand, builder));
    Operation *clone = builder.clone(*def, mapping);
    clone->setAttr(TrainDialect::kRecomputedAttrName, builder.getUnitAttr());
    if (auto cost = dyn_cast<train::CostOpInterface>(def))
      flops += cost.getFlops();
    for (auto [result, copy] :
         llvm::zip_equal(def->getResults(), clone->getResults()))
      recomputed[result] = copy;
    return recomputed.lookup(value);
  };

  Operation *terminator = block.getTerminator();
  SmallVector<Operation *> backward;
  for (Operation &op : block)
    if (!computesForward(liveness, &op) && &op != terminator &&
        !isa<train::ParamOp, train::OptStateOp>(op))
      backward.push_back(&op);
  for (Operation *op : backward) {
    // In-place updates read values as they are (see readsRecomputed).
    if (!readsRecomputed(op))
      continue;
    OpBuilder builder(op);
    for (OpOperand &use : op->getOpOperands())
      if (!available(use.get()))
        use.set(materialize(use.get(), builder));
  }
  makeLifetimesExplicit(func);
  return flops;
}

/// Moves each side-effect-free backward op that the schedule placed before
/// the last forward op and that reads a value not available in the backward
/// pass (directly or through other such ops) down to its anchor: its first
/// user that does not move (a user that moves stands for its own anchor).
/// The ops moved before one anchor keep their order. train-schedule hoists
/// the views a weight gradient takes of a forward value (they cost nothing)
/// next to that value; a recomputation placed before such a view would run
/// in the forward pass and be held through it. KeepSetModel mirrors this.
/// Whether sinkEarlyBackwardOps may move `op` when the schedule placed it
/// before the last forward op: a side-effect-free backward op without
/// regions.
static bool isSinkable(const TensorLiveness &liveness, Operation *op) {
  return !computesForward(liveness, op) && isMemoryEffectFree(op) &&
         op->getNumRegions() == 0 &&
         !isa<train::ParamOp, train::OptStateOp>(op);
}

static void sinkEarlyBackwardOps(func::FuncOp func,
                                 const TensorLiveness &liveness,
                                 const llvm::DenseSet<Value> &kept) {
  Block &block = func.getBody().front();
  Operation *lastForward = nullptr;
  for (Operation &op : block)
    if (computesForward(liveness, &op))
      lastForward = &op;
  if (!lastForward)
    return;
  SmallVector<Operation *> early;
  llvm::DenseSet<Operation *> reads;
  for (Operation &op : block) {
    if (&op == lastForward)
      break;
    if (!isSinkable(liveness, &op))
      continue;
    bool readsUnavailable = llvm::any_of(op.getOperands(), [&](Value v) {
      Operation *def = v.getDefiningOp();
      return !isAvailable(liveness, kept, v) || (def && reads.contains(def));
    });
    if (readsUnavailable) {
      early.push_back(&op);
      reads.insert(&op);
    }
  }
  // Anchors, last first: an op's users come after it.
  llvm::DenseMap<Operation *, Operation *> anchors;
  for (Operation *op : llvm::reverse(early)) {
    Operation *anchor = nullptr;
    for (Operation *user : op->getUsers()) {
      Operation *inBlock = block.findAncestorOpInBlock(*user);
      if (!inBlock)
        continue;
      inBlock = anchors.lookup_or(inBlock, inBlock);
      if (!anchor || inBlock->isBeforeInBlock(anchor))
        anchor = inBlock;
    }
    if (anchor)
      anchors[op] = anchor;
  }
  for (Operation *op : early)
    if (Operation *anchor = anchors.lookup(op))
      op->moveBefore(anchor);
}

/// Adds to `values` the results (their buffers' defining values) of the
/// forward ops that read, directly or through views, state that an in-place
/// update changes while a recomputation of them may still run: after the op
/// and before the last backward op that reads one of its results or a
/// forward value computed from them. (train-schedule runs an optimizer
/// update as soon as its gradient is complete, and fp8's amax updates in
/// the forward pass.)
static void addStateReaders(func::FuncOp func, const TensorLiveness &liveness,
                            llvm::DenseSet<Value> &values) {
  Block &block = func.getBody().front();
  llvm::DenseMap<Operation *, int64_t> position;
  int64_t lastForward = -1, index = 0;
  for (Operation &op : block) {
    if (computesForward(liveness, &op))
      lastForward = index;
    position[&op] = index++;
  }
  // Per forward op, the last position at which a rewrite may recompute it;
  // per backward op that reads recomputed copies, where it reads them (a
  // side-effect-free one in the forward pass may move down to its users:
  // sinkEarlyBackwardOps).
  llvm::DenseMap<Operation *, int64_t> latestUse;
  for (Operation &op : llvm::reverse(block)) {
    bool forward = computesForward(liveness, &op);
    bool reader = !forward && readsRecomputed(&op) &&
                  &op != block.getTerminator() &&
                  !isa<train::ParamOp, train::OptStateOp, train::FreeOp>(op);
    if (!forward && !reader)
      continue;
    int64_t latest = reader ? position[&op] : -1;
    bool mayMove =
        reader && position[&op] < lastForward && isSinkable(liveness, &op);
    if (forward || mayMove)
      for (Operation *user : op.getUsers())
        if (Operation *inBlock = block.findAncestorOpInBlock(*user))
          latest = std::max(latest, latestUse.lookup_or(inBlock, -1));
    latestUse[&op] = latest;
  }
  for (Operation &update : block) {
    auto aliasing = dyn_cast<train::AliasingOpInterface>(&update);
    if (!aliasing || !train::isInPlaceUpdate(&update))
      continue;
    int64_t at = position[&update];
    SmallVector<Value> worklist;
    for (OpOperand &operand : update.getOpOperands())
      if (aliasing.isUpdatedInPlace(operand.getOperandNumber()))
        worklist.push_back(operand.get());
    llvm::DenseSet<Value> seen;
    while (!worklist.empty()) {
      Value state = worklist.pop_back_val();
      if (!seen.insert(state).second)
        continue;
      for (Operation *user : state.getUsers()) {
        if (!computesForward(liveness, user) || position[user] > at)
          continue;
        auto view = dyn_cast<train::AliasingOpInterface>(user);
        for (OpResult result : user->getResults()) {
          if (view && view.getViewSource(result.getResultNumber())) {
            worklist.push_back(result);
            continue;
          }
          const Buffer *buffer = liveness.lookup(result);
          if (buffer && latestUse.lookup_or(user, -1) > at)
            values.insert(buffer->value);
        }
      }
    }
  }
}

int64_t mlir::memopt::applyKeepSet(func::FuncOp func,
                                   const llvm::SmallBitVector &keep) {
  removeMemoryPlan(func);
  eraseFrees(func);
  TensorLiveness liveness(func);
  llvm::DenseSet<Value> kept = getNeverRecomputed(func, liveness);
  for (auto [index, buffer] : llvm::enumerate(getActivations(liveness)))
    if (keep.test(index))
      kept.insert(buffer->value);
  sinkEarlyBackwardOps(func, liveness, kept);
  return recomputeUnkept(func, liveness, kept);
}

int64_t mlir::memopt::applyLayerCheckpoints(func::FuncOp func) {
  removeMemoryPlan(func);
  eraseFrees(func);
  TensorLiveness liveness(func);
  // getNeverRecomputed's boundaries are among the checkpoints.
  llvm::DenseSet<Value> kept;
  for (const Buffer *buffer : getLayerCheckpoints(liveness))
    kept.insert(buffer->value);
  addStateReaders(func, liveness, kept);
  sinkEarlyBackwardOps(func, liveness, kept);
  return recomputeUnkept(func, liveness, kept);
}

int64_t mlir::memopt::applyStagePlan(func::FuncOp func,
                                     const StepGroups &groups,
                                     ArrayRef<SmallVector<unsigned>> plan) {
  Block &block = func.getBody().front();
  removeMemoryPlan(func);
  eraseFrees(func);
  SmallVector<Operation *> ops = getPlanOps(func);
  IRMapping latest;
  SmallVector<Operation *> clones;
  auto remap = [&](Operation *op) {
    if (!readsRecomputed(op))
      return;
    for (OpOperand &use : op->getOpOperands())
      if (Value copy = latest.lookupOrNull(use.get()))
        use.set(copy);
  };
  for (auto [g, members] : llvm::enumerate(groups.members)) {
    OpBuilder builder(ops[members.front()]);
    for (unsigned k : plan[g]) {
      for (unsigned index : groups.members[k]) {
        Operation *clone = builder.clone(*ops[index], latest);
        clone->setAttr(TrainDialect::kRecomputedAttrName,
                       builder.getUnitAttr());
        clones.push_back(clone);
      }
    }
    for (unsigned index : members) {
      remap(ops[index]);
      // The op's own results are the latest copies from here on.
      for (Value result : ops[index]->getResults())
        latest.erase(result);
    }
  }
  remap(block.getTerminator());
  int64_t flops = 0;
  for (Operation *clone : llvm::reverse(clones)) {
    if (clone->use_empty() && isMemoryEffectFree(clone)) {
      clone->erase();
      continue;
    }
    if (auto cost = dyn_cast<train::CostOpInterface>(clone))
      flops += cost.getFlops();
  }
  makeLifetimesExplicit(func);
  return flops;
}

RematCandidate
mlir::memopt::evaluateRewrite(func::FuncOp func, StringRef algorithm,
                              std::function<int64_t(func::FuncOp)> apply) {
  func::FuncOp copy = func.clone();
  RematCandidate candidate;
  candidate.algorithm = algorithm.str();
  candidate.flops = apply(copy);
  candidate.peak = TensorLiveness(copy).getLoad();
  candidate.apply = std::move(apply);
  copy.erase();
  return candidate;
}

RematCandidate mlir::memopt::evaluateKeepSet(func::FuncOp func,
                                             StringRef algorithm,
                                             llvm::SmallBitVector keep) {
  return evaluateRewrite(func, algorithm, [keep](func::FuncOp target) {
    return applyKeepSet(target, keep);
  });
}

//===----------------------------------------------------------------------===//
// Keep-set algorithms
//===----------------------------------------------------------------------===//

/// The keep set in which each activation of `liveness` is kept when `keeps`
/// says so.
static llvm::SmallBitVector
buildKeepSet(const TensorLiveness &liveness,
             llvm::function_ref<bool(Value activation)> keeps) {
  SmallVector<const Buffer *> activations = getActivations(liveness);
  llvm::SmallBitVector keep(activations.size(), false);
  for (auto [index, buffer] : llvm::enumerate(activations))
    if (keeps(buffer->value))
      keep.set(index);
  return keep;
}

/// Whether a forward op of a layer other than `key` (or of no layer) reads
/// `value`, directly or through views.
static bool leavesLayer(const TensorLiveness &liveness, Value value,
                        StringRef key) {
  SmallVector<Value> worklist = {value};
  while (!worklist.empty()) {
    Value current = worklist.pop_back_val();
    for (Operation *user : current.getUsers()) {
      if (!computesForward(liveness, user))
        continue;
      if (getLayerKey(user) != key)
        return true;
      auto aliasing = dyn_cast<train::AliasingOpInterface>(user);
      for (OpResult result : user->getResults())
        if (aliasing && aliasing.getViewSource(result.getResultNumber()))
          worklist.push_back(result);
    }
  }
  return false;
}

SmallVector<const Buffer *>
mlir::memopt::getLayerCheckpoints(const TensorLiveness &liveness) {
  SmallVector<const Buffer *> checkpoints;
  for (const Buffer &buffer : liveness.getBuffers()) {
    if (buffer.memoryClass != MemoryClass::Activation &&
        buffer.memoryClass != MemoryClass::Temporary)
      continue;
    Operation *def = buffer.value.getDefiningOp();
    if (!def || !computesForward(liveness, def))
      continue;
    std::string key = getLayerKey(def);
    // Activations outside layers are kept; a value that crosses into
    // another layer (or out of one) is a boundary, whether or not the
    // backward pass reads it: under mixed precision a layer reads the
    // low-precision residual stream only through a cast of it.
    if ((key.empty() && buffer.memoryClass == MemoryClass::Activation) ||
        leavesLayer(liveness, buffer.value, key))
      checkpoints.push_back(&buffer);
  }
  return checkpoints;
}

llvm::DenseSet<Value>
mlir::memopt::getNeverRecomputed(func::FuncOp func,
                                 const TensorLiveness &liveness) {
  llvm::DenseSet<Value> values;
  for (const Buffer *buffer : getLayerCheckpoints(liveness))
    if (buffer->memoryClass != MemoryClass::Activation)
      values.insert(buffer->value);
  addStateReaders(func, liveness, values);
  return values;
}

llvm::SmallBitVector
mlir::memopt::getSqrtKeepSet(const TensorLiveness &liveness) {
  unsigned n = getActivations(liveness).size();
  llvm::SmallBitVector keep(n, false);
  unsigned stride = std::max(1u, (unsigned)std::ceil(std::sqrt((double)n)));
  for (unsigned index = stride - 1; index < n; index += stride)
    keep.set(index);
  return keep;
}

/// Whether `value` is a softmax output, directly or through casts (its
/// low-precision copy under mixed precision).
static bool isSoftmaxOutput(Value value) {
  while (auto cast = value.getDefiningOp<train::CastOp>())
    value = cast.getInput();
  return value.getDefiningOp<train::SoftmaxOp>() != nullptr;
}

llvm::SmallBitVector
mlir::memopt::getSelectiveKeepSet(const TensorLiveness &liveness) {
  return buildKeepSet(liveness, [](Value activation) {
    Operation *def = activation.getDefiningOp();
    if (!def)
      return true;
    // The attention scores: softmax outputs (and their casts) and the
    // dropout applied to them.
    bool scores = isSoftmaxOutput(activation);
    if (auto dropout = dyn_cast<train::DropoutOp>(def))
      scores = isSoftmaxOutput(dropout.getInput());
    return !scores;
  });
}

//===----------------------------------------------------------------------===//
// greedy
//===----------------------------------------------------------------------===//

namespace {
/// The search of runGreedyRemat. The sequence of keep-sets does not depend
/// on the budget, and the answer is the first prefix whose peak meets it
/// (without a budget, the lowest-peak prefix), so a smaller budget never
/// gives a larger peak.
class GreedyRemat {
public:
  GreedyRemat(func::FuncOp func, const TensorLiveness &liveness,
              std::optional<int64_t> limit, bool checkModel);
  FailureOr<RematCandidate> run();

private:
  /// A keep-set and the outcome of rewriting the step by it.
  struct State {
    llvm::SmallBitVector keep;
    KeepSetModel::Outcome outcome;

    int64_t peak() const { return outcome.peak; }
    int64_t flops() const { return outcome.flops; }
  };
  /// A kept activation live at the peak: its estimated recompute FLOPs per
  /// byte, and its index.
  using Option = std::pair<double, unsigned>;

  /// The search, on the model (`model` set) or on rewrites of the IR.
  RematCandidate search();
  /// The position of each op of `target` among the original ops (clones
  /// are marked, frees skipped): how an activation of the step is found in
  /// a rewritten copy.
  static llvm::DenseMap<Operation *, unsigned> position(func::FuncOp target);
  /// The outcome of `keep` by rewriting a copy of the IR and analyzing it.
  KeepSetModel::Outcome
  rewriteAndMeasure(const llvm::SmallBitVector &keep) const;
  /// What dropping activation i costs given `keep`: the FLOPs of its
  /// producer and of every producer of an operand that is not available
  /// either (a forward temporary, or an activation not kept), once each.
  double recomputeFlops(unsigned i, const llvm::SmallBitVector &keep) const;
  State measure(llvm::SmallBitVector keep) const;
  static RematCandidate toCandidate(const State &state);
  /// The kept activations live at the peak of `current`, least estimated
  /// recompute FLOPs per byte first.
  SmallVector<Option> rankOptions(const State &current) const;
  /// Drops the first `k` options at once.
  State dropFirst(const State &current, ArrayRef<Option> options,
                  unsigned k) const;
  /// A batch: drops the next `batch` options at once; the result when it
  /// lowers the peak at no more added FLOPs per byte than twice the last
  /// step's (where it crosses the budget, the least prefix that meets it,
  /// by bisection), else nothing.
  std::optional<State> tryBatch(const State &current,
                                ArrayRef<Option> options) const;
  /// Measures dropping each of the first kTries options alone; the one of
  /// least added FLOPs per byte the peak drops, else (no try lowers it) the
  /// cheapest that keeps it, with its score; nothing when every try raises
  /// the peak.
  std::optional<std::pair<State, double>>
  trySingles(const State &current, ArrayRef<Option> options) const;

  static constexpr unsigned kTries = 8;

  /// FuncOp::clone is not const.
  mutable func::FuncOp func;
  const TensorLiveness &liveness;
  std::optional<int64_t> limit;
  bool checkModel;
  /// The model keep-sets are evaluated on; none for steps it does not
  /// cover, or after it disagreed with a rewrite.
  std::optional<KeepSetModel> model;
  /// The first keep-set whose model outcome differs from the rewrite's,
  /// under checkModel.
  mutable std::optional<std::string> mismatch;
  SmallVector<const Buffer *> activations;
  llvm::DenseMap<std::pair<unsigned, unsigned>, unsigned> activationAt;
  llvm::DenseMap<Value, unsigned> activationOf;
  /// getNeverRecomputed.
  llvm::DenseSet<Value> neverRecomputed;
  unsigned batch = 1;
  double lastScore = 0.0;
};
} // namespace

GreedyRemat::GreedyRemat(func::FuncOp func, const TensorLiveness &liveness,
                         std::optional<int64_t> limit, bool checkModel)
    : func(func), liveness(liveness), limit(limit), checkModel(checkModel),
      activations(getActivations(liveness)),
      neverRecomputed(getNeverRecomputed(func, liveness)) {
  llvm::DenseMap<Operation *, unsigned> original = position(func);
  for (auto [index, buffer] : llvm::enumerate(activations)) {
    activationOf[buffer->value] = index;
    auto result = dyn_cast<OpResult>(buffer->value);
    if (!result)
      continue;
    activationAt[{original.lookup(result.getOwner()),
                  result.getResultNumber()}] = index;
  }
  FailureOr<KeepSetModel> built = KeepSetModel::build(func);
  if (succeeded(built) && built->getNumActivations() == activations.size())
    model = std::move(*built);
}

llvm::DenseMap<Operation *, unsigned>
GreedyRemat::position(func::FuncOp target) {
  llvm::DenseMap<Operation *, unsigned> positions;
  unsigned index = 0;
  for (Operation &op : target.getBody().front())
    if (!isa<train::FreeOp>(op) &&
        !op.hasAttr(TrainDialect::kRecomputedAttrName))
      positions[&op] = index++;
  return positions;
}

KeepSetModel::Outcome
GreedyRemat::rewriteAndMeasure(const llvm::SmallBitVector &keep) const {
  func::FuncOp copy = func.clone();
  // Before the rewrite, which may move ops (the step's own keep their
  // identity).
  llvm::DenseMap<Operation *, unsigned> positions = position(copy);
  KeepSetModel::Outcome outcome;
  outcome.flops = applyKeepSet(copy, keep);
  TensorLiveness live(copy);
  outcome.peak = live.getLoad();
  for (const Buffer *buffer : live.getLiveBuffers(live.getPeakPoint())) {
    auto result = dyn_cast<OpResult>(buffer->value);
    if (!result || !positions.count(result.getOwner()))
      continue;
    auto it = activationAt.find(
        {positions.lookup(result.getOwner()), result.getResultNumber()});
    if (it != activationAt.end())
      outcome.liveAtPeak.push_back(it->second);
  }
  copy.erase();
  return outcome;
}

double GreedyRemat::recomputeFlops(unsigned i,
                                   const llvm::SmallBitVector &keep) const {
  int64_t flops = 0;
  llvm::DenseSet<Operation *> seen;
  SmallVector<Operation *> worklist;
  if (Operation *def = activations[i]->value.getDefiningOp())
    worklist.push_back(def);
  while (!worklist.empty()) {
    Operation *op = worklist.pop_back_val();
    if (!seen.insert(op).second)
      continue;
    if (auto cost = dyn_cast<train::CostOpInterface>(op))
      flops += cost.getFlops();
    for (Value operand : op->getOperands()) {
      Operation *def = operand.getDefiningOp();
      if (!def || !computesForward(liveness, def))
        continue;
      const Buffer *buffer = liveness.lookup(operand);
      if (buffer && neverRecomputed.contains(buffer->value))
        continue;
      auto it = buffer ? activationOf.find(buffer->value) : activationOf.end();
      if (it != activationOf.end() && keep.test(it->second))
        continue;
      worklist.push_back(def);
    }
  }
  return static_cast<double>(flops);
}

GreedyRemat::State GreedyRemat::measure(llvm::SmallBitVector keep) const {
  State state;
  if (!model) {
    state.outcome = rewriteAndMeasure(keep);
  } else {
    state.outcome = model->evaluate(keep);
    if (checkModel && !mismatch) {
      KeepSetModel::Outcome exact = rewriteAndMeasure(keep);
      if (!(exact == state.outcome))
        mismatch = llvm::formatv("dropping {0} of {1} activations: the model "
                                 "says peak {2} bytes, {3} FLOPs, {4} "
                                 "activations live at the peak; the rewrite "
                                 "{5} bytes, {6} FLOPs, {7} activations",
                                 keep.size() - keep.count(), keep.size(),
                                 state.outcome.peak, state.outcome.flops,
                                 state.outcome.liveAtPeak.size(), exact.peak,
                                 exact.flops, exact.liveAtPeak.size())
                       .str();
    }
  }
  state.keep = std::move(keep);
  return state;
}

RematCandidate GreedyRemat::toCandidate(const State &state) {
  RematCandidate candidate;
  candidate.algorithm = "greedy";
  candidate.flops = state.flops();
  candidate.peak = state.peak();
  candidate.apply = [keep = state.keep](func::FuncOp target) {
    return applyKeepSet(target, keep);
  };
  return candidate;
}

SmallVector<GreedyRemat::Option>
GreedyRemat::rankOptions(const State &current) const {
  SmallVector<Option> options;
  for (unsigned index : current.outcome.liveAtPeak) {
    if (!current.keep.test(index))
      continue;
    double ratio = recomputeFlops(index, current.keep) /
                   std::max<int64_t>(1, activations[index]->bytes);
    options.push_back({ratio, index});
  }
  llvm::stable_sort(options, [](const Option &a, const Option &b) {
    return a.first < b.first;
  });
  return options;
}

GreedyRemat::State GreedyRemat::dropFirst(const State &current,
                                          ArrayRef<Option> options,
                                          unsigned k) const {
  llvm::SmallBitVector keep = current.keep;
  for (auto [ratio, index] : options.take_front(k))
    keep.reset(index);
  return measure(std::move(keep));
}

std::optional<GreedyRemat::State>
GreedyRemat::tryBatch(const State &current, ArrayRef<Option> options) const {
  int64_t peakNow = current.peak();
  unsigned k = std::min<unsigned>(batch, options.size());
  State next = dropFirst(current, options, k);
  int64_t peakNext = next.peak();
  double added = static_cast<double>(next.flops() - current.flops());
  if (peakNext >= peakNow ||
      added / (peakNow - peakNext) > 2.0 * lastScore + 1e-9)
    return std::nullopt;
  if (limit && peakNext <= *limit && peakNow > *limit) {
    unsigned low = 0, high = k;
    while (high - low > 1) {
      unsigned middle = (low + high) / 2;
      State trial = dropFirst(current, options, middle);
      if (trial.peak() <= *limit) {
        high = middle;
        next = std::move(trial);
      } else {
        low = middle;
      }
    }
  }
  return next;
}

std::optional<std::pair<GreedyRemat::State, double>>
GreedyRemat::trySingles(const State &current, ArrayRef<Option> options) const {
  int64_t peakNow = current.peak();
  std::optional<State> chosen;
  double chosenScore = 0.0;
  for (auto [ratio, index] : options.take_front(kTries)) {
    llvm::SmallBitVector keep = current.keep;
    keep.reset(index);
    State next = measure(std::move(keep));
    int64_t peakNext = next.peak();
    if (peakNext > peakNow)
      continue;
    double added = static_cast<double>(next.flops() - current.flops());
    // Lowering the peak ranks before keeping it (scores below 1e30).
    double score =
        peakNext < peakNow ? added / (peakNow - peakNext) : 1e30 + added;
    if (!chosen || score < chosenScore) {
      chosen = std::move(next);
      chosenScore = score;
    }
  }
  if (!chosen)
    return std::nullopt;
  return std::make_pair(std::move(*chosen), chosenScore);
}

// Each step measures dropping each of the kept activations live at the peak
// with the least estimated recompute FLOPs per byte (at most kTries) and
// takes the one of least added FLOPs per byte of peak it removes (else the
// cheapest that keeps it); it stops when every try raises the peak.
// After steps that lowered the peak, batches of the next ranked options are
// dropped at once while they pay off, their size doubled, else halved (so
// large steps need O(log) measurements per run of similar activations, not
// one each).
RematCandidate GreedyRemat::search() {
  batch = 1;
  lastScore = 0.0;
  State current = measure(llvm::SmallBitVector(activations.size(), true));
  RematCandidate best = toCandidate(current);
  auto advance = [&](State next) {
    current = std::move(next);
    if (current.peak() < best.peak)
      best = toCandidate(current);
  };
  while (!limit || best.peak > *limit) {
    SmallVector<Option> options = rankOptions(current);
    if (batch > 1 && options.size() > 1) {
      if (std::optional<State> next = tryBatch(current, options)) {
        advance(std::move(*next));
        batch *= 2;
        continue;
      }
      // Back off: a smaller batch, down to single steps.
      batch /= 2;
      if (batch > 1)
        continue;
    }
    int64_t peakNow = current.peak();
    std::optional<std::pair<State, double>> chosen =
        trySingles(current, options);
    if (!chosen)
      break;
    bool lowered = chosen->first.peak() < peakNow;
    if (lowered) {
      lastScore = chosen->second;
      batch = 2;
    } else {
      batch = 1;
    }
    advance(std::move(chosen->first));
  }
  return best;
}

FailureOr<RematCandidate> GreedyRemat::run() {
  RematCandidate best = search();
  if (mismatch)
    return mlir::emitError(func.getLoc())
           << "train-remat: greedy's model of the rewritten step disagrees "
              "with the rewrite: "
           << *mismatch;
  if (!model)
    return best;
  // The answer, measured on the IR once more.
  RematCandidate exact = evaluateRewrite(func, "greedy", best.apply);
  if (exact.peak == best.peak && exact.flops == best.flops)
    return best;
  mlir::emitWarning(func.getLoc())
      << "train-remat: greedy's model of the rewritten step says peak "
      << best.peak << " bytes and " << best.flops
      << " recomputed FLOPs where the rewrite has " << exact.peak << " and "
      << exact.flops << "; searching again on rewrites of the IR (slower)";
  model.reset();
  return search();
}

FailureOr<RematCandidate>
mlir::memopt::runGreedyRemat(func::FuncOp func, const TensorLiveness &liveness,
                             std::optional<int64_t> limit, bool checkModel) {
  return GreedyRemat(func, liveness, limit, checkModel).run();
}

//===----------------------------------------------------------------------===//
// chain
//===----------------------------------------------------------------------===//

/// Whether the plan of a model-based algorithm (chain, optimal) peaks within
/// `limit` once applied; `why` says by how much it does not.
static bool fitsLimit(const RematCandidate &candidate, int64_t limit,
                      std::string &why) {
  if (candidate.peak <= limit)
    return true;
  why = (llvm::Twine("its best plan peaks at ") + llvm::Twine(candidate.peak) +
         " bytes")
            .str();
  return false;
}

FailureOr<ChainGroups> mlir::memopt::getChainGroups(func::FuncOp func,
                                                    std::string &why) {
  func::FuncOp copy = func.clone();
  eraseFrees(copy);
  FailureOr<ChainGroups> built = buildChainGroups(copy, why);
  copy.erase();
  return built;
}

std::optional<RematCandidate> mlir::memopt::runChainRemat(func::FuncOp func,
                                                          int64_t limit,
                                                          int64_t peak,
                                                          std::string &why) {
  FailureOr<ChainGroups> built = getChainGroups(func, why);
  if (failed(built)) {
    why = "the step is not a chain of layers: " + why;
    return std::nullopt;
  }
  auto chain = std::make_shared<ChainGroups>(std::move(*built));
  auto start = std::chrono::steady_clock::now();
  // The model holds some values longer than the step does (inputs that
  // die early count as persistent; a layer's input is held through its
  // whole backward part): where it needs more than the step for keeping
  // everything, start with that much more memory.
  int64_t keepAll = peak - chain->persistent;
  int64_t memory =
      limit - chain->persistent +
      std::max<int64_t>(0, chainKeepAllMemory(chain->layers) - keepAll);
  for (int attempt = 0; attempt < 8; ++attempt) {
    RematChainResult result = solveChainRotor(chain->layers, memory);
    if (result.status != RematStatus::Optimal) {
      why = (llvm::Twine("the chain model of ") +
             llvm::Twine(chain->layers.size()) + " layers has no schedule in " +
             llvm::Twine(std::max<int64_t>(memory, 0)) + " bytes beside the " +
             llvm::Twine(chain->persistent) +
             " bytes of parameters, states, inputs and results" +
             (result.error.empty() ? "" : ": " + result.error))
                .str();
      return std::nullopt;
    }
    StagePlan plan = getChainPlan(*chain, result.actions);
    RematCandidate candidate =
        evaluateRewrite(func, "chain", [chain, plan](func::FuncOp target) {
          return applyStagePlan(target, chain->groups, plan);
        });
    double seconds =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - start)
            .count();
    candidate.detail =
        (llvm::Twine("optimal over a chain of ") +
         llvm::Twine(chain->layers.size()) + " layers, model recompute " +
         llvm::formatv("{0:e3}", result.recomputeCost) + " FLOPs, unit " +
         llvm::Twine(result.unit) + " B, " + llvm::formatv("{0:f2}", seconds) +
         " s")
            .str();
    if (fitsLimit(candidate, limit, why))
      return candidate;
    memory -= std::max(candidate.peak - limit, result.unit);
  }
  return std::nullopt;
}

//===----------------------------------------------------------------------===//
// optimal
//===----------------------------------------------------------------------===//

FailureOr<StepGroups> mlir::memopt::getStepGroups(func::FuncOp func,
                                                  unsigned segments) {
  func::FuncOp copy = func.clone();
  eraseFrees(copy);
  FailureOr<StepGroups> built = buildStepGroups(copy, segments);
  copy.erase();
  return built;
}

std::optional<RematCandidate>
mlir::memopt::runOptimalRemat(func::FuncOp func, const StepGroups &steps,
                              int64_t limit, const OptimalRematLimits &limits,
                              std::chrono::steady_clock::time_point start,
                              std::string &why, bool &proven) {
  proven = false;
  auto elapsed = [&] {
    return std::chrono::duration<double>(std::chrono::steady_clock::now() -
                                         start)
        .count();
  };
  double seconds = limits.timeLimitSeconds;
  // The calibrated model reproduces the step's peak, so start from the
  // budget itself; lower it while the exact peak of the plan is over.
  int64_t modelBudget = limit;
  for (int attempt = 0; attempt < 6; ++attempt) {
    RematOptimalOptions options;
    if (seconds > 0.0) {
      double left = seconds - elapsed();
      if (left <= 0.0) {
        why =
            (llvm::Twine("the time limit of ") + llvm::formatv("{0}", seconds) +
             " s ran out after " + llvm::Twine(attempt) + " solves" +
             (attempt ? " (" + why + ")" : std::string()))
                .str();
        break;
      }
      options.timeLimitSeconds = left;
    } else {
      options.timeLimitSeconds = 0.0;
    }
    options.nodeLimit = limits.nodeLimit;
    if (limits.cutoffFlops)
      options.costCutoff = static_cast<double>(*limits.cutoffFlops);
    RematResult result = solveOptimal(steps.graph, modelBudget, options);
    if (!result.hasSchedule() && limits.cutoffFlops &&
        result.status == RematStatus::NoSolution) {
      why = (llvm::Twine("the solver's model of ") +
             llvm::Twine(steps.members.size()) + " groups (" +
             llvm::Twine(steps.numForward) + " forward) has no plan within " +
             llvm::Twine(modelBudget) + " model bytes cheaper than " +
             llvm::Twine(*limits.cutoffFlops) + " recomputed FLOPs" +
             (result.cutoffProven ? " (proven)" : " within its limits"))
                .str();
      proven = result.cutoffProven;
      break;
    }
    if (!result.hasSchedule()) {
      proven = result.status == RematStatus::Infeasible;
      why = (llvm::Twine("the solver's model of ") +
             llvm::Twine(steps.members.size()) + " groups (" +
             llvm::Twine(steps.numForward) + " forward) says " +
             stringifyRematStatus(result.status) + " at " +
             llvm::Twine(modelBudget) + " model bytes" +
             (result.error.empty() ? "" : ": " + result.error))
                .str();
      break;
    }
    StagePlan plan = getStagePlan(steps, result.schedule);
    RematCandidate candidate =
        evaluateRewrite(func, "optimal", [&steps, plan](func::FuncOp target) {
          return applyStagePlan(target, steps, plan);
        });
    candidate.gap = result.gap();
    candidate.detail =
        (llvm::Twine(stringifyRematStatus(result.status)) + " over " +
         llvm::Twine(steps.members.size()) + " groups (" +
         llvm::Twine(steps.numForward) + " forward), model recompute " +
         llvm::formatv("{0:e3}", result.recomputeCost) + " FLOPs, gap " +
         llvm::formatv("{0:f4}", result.gap()) + ", " +
         llvm::formatv("{0:f2}", elapsed()) + " s")
            .str();
    if (fitsLimit(candidate, limit, why)) {
      proven = result.status == RematStatus::Optimal;
      return candidate;
    }
    modelBudget -= candidate.peak - limit;
  }
  return std::nullopt;
}
