//===- RematStrategies.cpp - train-remat's rewrites -----------------------===//
//
// The rewriting that train-remat's strategies share
// (RematStrategiesInternal.h): recomputing the forward values a rewrite does
// not keep, moving hoisted backward ops down first, the values never
// recomputed because an in-place update changes what they read, and measuring
// a rewrite (evaluateRewrite). The strategies, by family: keep-sets, sqrt,
// selective and greedy (RematKeepSets.cpp), layers
// (RematLayerCheckpoints.cpp), chain and optimal (RematStagePlans.cpp). Every
// search measures what it proposes exactly: the step is cloned, rewritten and
// analyzed.
//
//===----------------------------------------------------------------------===//

#include "RematStrategiesInternal.h"

#include "memopt/Dialect/Train/IR/TrainOps.h"
#include "memopt/Dialect/Train/IR/TrainStep.h"
#include "memopt/Transforms/Passes.h"
#include "memopt/Transforms/RematStrategies.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"
#include "llvm/ADT/DenseSet.h"

using namespace mlir;
using namespace mlir::memopt;
using namespace mlir::memopt::remat;
using train::TrainDialect;

/// Erases the `train.free`s of `func`: rewrites place them anew.
void remat::eraseFrees(func::FuncOp func) {
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
bool remat::readsRecomputed(Operation *op) {
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
  // Host values and copies across the host link (train-offload) are kept:
  // recomputing a copy costs link time the FLOP count does not see, and a
  // host value takes no device memory.
  if (train::isHostOp(def) || isa<train::ToHostOp, train::ToDeviceOp>(def))
    return true;
  const Buffer *buffer = liveness.lookup(value);
  return !buffer || kept.contains(buffer->value);
}

/// Rewrites `func` (without frees or a memory plan; `liveness` is its
/// analysis) so that every forward value whose buffer is not in `kept` is
/// recomputed before its first backward use, from the kept values; places
/// the frees anew. Returns the FLOPs of the recomputed ops.
int64_t remat::recomputeUnkept(func::FuncOp func,
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

/// Whether sinkEarlyBackwardOps may move `op` when the schedule placed it
/// before the last forward op: a side-effect-free backward op without
/// regions.
static bool isSinkable(const TensorLiveness &liveness, Operation *op) {
  return !computesForward(liveness, op) && isMemoryEffectFree(op) &&
         op->getNumRegions() == 0 &&
         !isa<train::ParamOp, train::OptStateOp>(op);
}

/// Moves each side-effect-free backward op that the schedule placed before
/// the last forward op and that reads a value not available in the backward
/// pass (directly or through other such ops) down to its anchor: its first
/// user that does not move (a user that moves stands for its own anchor).
/// The ops moved before one anchor keep their order. train-schedule hoists
/// the views a weight gradient takes of a forward value (they cost nothing)
/// next to that value; a recomputation placed before such a view would run
/// in the forward pass and be held through it. KeepSetModel mirrors this.
bool remat::sinksEarlyBackwardOps(func::FuncOp func) {
  return !func->hasAttr(TrainDialect::kPipelineAttrName);
}

void remat::sinkEarlyBackwardOps(func::FuncOp func,
                                 const TensorLiveness &liveness,
                                 const llvm::DenseSet<Value> &kept) {
  if (!sinksEarlyBackwardOps(func))
    return;
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
  // Anchors, last first: an op's users come after it. Never past an
  // in-place update of what the op reads.
  llvm::DenseMap<Operation *, Operation *> writers =
      getFirstLaterWriters(func, liveness);
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
    if (Operation *writer = writers.lookup(op);
        anchor && writer && writer->isBeforeInBlock(anchor))
      anchor = writer;
    if (anchor)
      anchors[op] = anchor;
  }
  for (Operation *op : early)
    if (Operation *anchor = anchors.lookup(op))
      op->moveBefore(anchor);
}

llvm::DenseMap<Operation *, Operation *>
remat::getFirstLaterWriters(func::FuncOp func, const TensorLiveness &liveness) {
  // Going backward: per buffer, the first in-place write seen so far.
  llvm::DenseMap<const Buffer *, Operation *> nextWrite;
  llvm::DenseMap<Operation *, Operation *> writers;
  for (Operation &op : llvm::reverse(func.getBody().front())) {
    Operation *first = nullptr;
    for (Value operand : op.getOperands())
      if (const Buffer *buffer = liveness.lookup(operand))
        if (Operation *write = nextWrite.lookup(buffer);
            write && (!first || write->isBeforeInBlock(first)))
          first = write;
    if (first)
      writers[&op] = first;
    auto aliasing = dyn_cast<train::AliasingOpInterface>(&op);
    if (!aliasing)
      continue;
    for (OpOperand &operand : op.getOpOperands())
      if (aliasing.isUpdatedInPlace(operand.getOperandNumber()))
        if (const Buffer *buffer = liveness.lookup(operand.get()))
          nextWrite[buffer] = &op;
  }
  return writers;
}

/// Adds to `values` the results (their buffers' defining values) of the
/// forward ops that read, directly or through views, state that an in-place
/// update changes while a recomputation of them may still run: after the op
/// and before the last backward op that reads one of its results or a
/// forward value computed from them. (train-schedule runs an optimizer
/// update as soon as its gradient is complete, and fp8's amax updates in
/// the forward pass.)
void remat::addStateReaders(func::FuncOp func, const TensorLiveness &liveness,
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
