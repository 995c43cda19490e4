//===- TrainRemat.cpp - recompute activations under a peak budget ---------===//
//
// train-remat decides which activations a step keeps (a keep-set over the
// activation buffers of TensorLiveness) and rewrites the step so that every
// other activation is recomputed right before its first backward use. The
// peak of a candidate is measured exactly: the step is cloned, rewritten and
// analyzed. Algorithms only differ in the keep-sets they propose.
//
//===----------------------------------------------------------------------===//

#include "memopt/Analysis/Remat.h"
#include "memopt/Analysis/TensorLiveness.h"
#include "memopt/Dialect/Train/IR/TrainOps.h"
#include "memopt/Dialect/Train/IR/TrainStep.h"
#include "memopt/Transforms/PassOptions.h"
#include "memopt/Transforms/Passes.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"
#include "llvm/ADT/DenseSet.h"
#include "llvm/ADT/SmallBitVector.h"
#include "llvm/Support/FormatVariadic.h"

#include <chrono>
#include <cmath>
#include <functional>
#include <memory>

namespace mlir::memopt {
#define GEN_PASS_DEF_TRAINREMATPASS
#include "memopt/Transforms/Passes.h.inc"
} // namespace mlir::memopt

using namespace mlir;
using namespace mlir::memopt;
using train::TrainDialect;

FailureOr<int64_t> mlir::memopt::parseByteSize(StringRef text) {
  text = text.trim();
  StringRef digits = text.take_while([](char c) { return llvm::isDigit(c); });
  StringRef unit = text.drop_front(digits.size()).trim();
  uint64_t value = 0;
  if (digits.empty() || digits.getAsInteger(10, value))
    return failure();
  uint64_t scale = llvm::StringSwitch<uint64_t>(unit)
                       .Cases({"", "B"}, 1)
                       .Case("KiB", 1ull << 10)
                       .Case("MiB", 1ull << 20)
                       .Case("GiB", 1ull << 30)
                       .Case("TiB", 1ull << 40)
                       .Case("KB", 1000ull)
                       .Case("MB", 1000ull * 1000)
                       .Case("GB", 1000ull * 1000 * 1000)
                       .Case("TB", 1000ull * 1000 * 1000 * 1000)
                       .Default(0);
  if (scale == 0 || value > static_cast<uint64_t>(INT64_MAX) / scale)
    return failure();
  return static_cast<int64_t>(value * scale);
}

/// Whether `op` computes a forward value (the loss depends on it); state
/// reads are not computations: their values are always available.
static bool computesForward(const TensorLiveness &liveness, Operation *op) {
  return liveness.isForward(op) && !isa<train::ParamOp, train::OptStateOp>(op);
}

/// The activation buffers of `liveness`, in definition order.
static SmallVector<const Buffer *> getActivations(const TensorLiveness &live) {
  SmallVector<const Buffer *> activations;
  for (const Buffer &buffer : live.getBuffers())
    if (buffer.memoryClass == MemoryClass::Activation)
      activations.push_back(&buffer);
  return activations;
}

namespace {
/// A rewrite of the step (a keep-set or a stage plan) and its outcome.
struct Candidate {
  std::string algorithm;
  /// Rewrites a step (the original or a copy) and returns the recomputed
  /// FLOPs.
  std::function<int64_t(func::FuncOp)> apply;
  int64_t peak = 0;
  int64_t flops = 0;
  /// What the solver said (status, gap, time), for the remark.
  std::string detail;
};
} // namespace

/// Erases the `train.free`s of `func`: rewrites place them anew.
static void eraseFrees(func::FuncOp func) {
  for (Operation &op : llvm::make_early_inc_range(func.getBody().front()))
    if (isa<train::FreeOp>(op))
      op.erase();
}

/// Rewrites `func` so that the activations whose bit in `keep` is clear are
/// recomputed before their first backward use; places the frees anew.
/// Returns the FLOPs of the recomputed ops.
static int64_t applyKeepSet(func::FuncOp func,
                            const llvm::SmallBitVector &keep) {
  Block &block = func.getBody().front();
  removeMemoryPlan(func);
  eraseFrees(func);
  TensorLiveness liveness(func);
  SmallVector<const Buffer *> activations = getActivations(liveness);
  llvm::DenseSet<Value> kept;
  for (auto [index, buffer] : llvm::enumerate(activations))
    if (keep.test(index))
      kept.insert(buffer->value);

  // A value is available in the backward pass unless a forward op computes
  // it and its buffer is not kept (forward temporaries died in the forward).
  auto available = [&](Value value) {
    Operation *def = value.getDefiningOp();
    if (!def || !computesForward(liveness, def))
      return true;
    const Buffer *buffer = liveness.lookup(value);
    return !buffer || kept.contains(buffer->value);
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
    OpBuilder builder(op);
    for (OpOperand &use : op->getOpOperands())
      if (!available(use.get()))
        use.set(materialize(use.get(), builder));
  }
  makeLifetimesExplicit(func);
  return flops;
}

/// The layer an op belongs to: the prefix of its location name up to the
/// first purely numeric component ("h.3" of "h.3.attn.c_attn"), or "".
static std::string getLayerKey(Operation *op) {
  Location loc = op->getLoc();
  if (auto fused = dyn_cast<FusedLoc>(loc);
      fused && !fused.getLocations().empty())
    loc = fused.getLocations().front();
  auto name = dyn_cast<NameLoc>(loc);
  if (!name)
    return "";
  SmallVector<StringRef> parts;
  name.getName().strref().split(parts, '.');
  for (auto [index, part] : llvm::enumerate(parts))
    if (!part.empty() && llvm::all_of(part, llvm::isDigit))
      return llvm::join(ArrayRef(parts).take_front(index + 1), ".");
  return "";
}

//===----------------------------------------------------------------------===//
// Stage plans over groups of ops (optimal, chain)
//===----------------------------------------------------------------------===//

/// The ops a stage plan indexes: the body without `train.free`s and the
/// terminator, in program order. Identical for a step and its copies.
static SmallVector<Operation *> getPlanOps(func::FuncOp func) {
  SmallVector<Operation *> ops;
  Block &block = func.getBody().front();
  for (Operation &op : block.without_terminator())
    if (!isa<train::FreeOp>(op))
      ops.push_back(&op);
  return ops;
}

namespace {
/// The plan ops of a step with their indices and their program points in
/// `liveness` (the step's analysis), for building groups.
struct PlanIndex {
  PlanIndex(func::FuncOp func, const TensorLiveness &liveness)
      : ops(getPlanOps(func)) {
    for (auto [index, op] : llvm::enumerate(ops))
      indexOf[op] = index;
    for (auto [point, op] : llvm::enumerate(liveness.getSchedule()))
      pointOf[op] = point;
  }
  SmallVector<Operation *> ops;
  llvm::DenseMap<Operation *, unsigned> indexOf;
  llvm::DenseMap<Operation *, int64_t> pointOf;
};
} // namespace

namespace {
/// A step coarsened for the schedule solvers: contiguous groups of ops in
/// program order. Forward groups are segments of the forward pass (layers
/// where locations name them); backward groups are the runs of backward ops
/// reading the activations of one forward group (and the optimizer after
/// them). State reads belong to no group: their values are always available.
/// Node 0 of `graph` holds the persistent bytes (parameters, optimizer
/// states, inputs); node g + 1 is group g: cost its FLOPs, bytes the buffers
/// it defines that outlive it, workspace the most its other buffers and its
/// ops' scratch take at one point.
struct StepGroups {
  /// Indices into getPlanOps, per group.
  SmallVector<SmallVector<unsigned>> members;
  SmallVector<bool> forward;
  unsigned numForward = 0;
  RematGraph graph;

  static int node(unsigned group) { return static_cast<int>(group) + 1; }
};
} // namespace

/// Splits `count` items into `parts` contiguous runs of nearly equal size;
/// returns the first index of each run.
static SmallVector<unsigned> splitEvenly(unsigned count, unsigned parts) {
  SmallVector<unsigned> starts;
  parts = std::max(1u, std::min(parts, count));
  for (unsigned p = 0; p < parts; ++p)
    starts.push_back(static_cast<unsigned>(
        (static_cast<uint64_t>(count) * p + parts - 1) / parts));
  return starts;
}

/// Builds the groups of `func` (which must have no `train.free`s) with at
/// most `segments` forward groups.
static FailureOr<StepGroups> buildStepGroups(func::FuncOp func,
                                             unsigned segments) {
  TensorLiveness liveness(func);
  PlanIndex plan(func, liveness);
  ArrayRef<Operation *> ops = plan.ops;
  const llvm::DenseMap<Operation *, unsigned> &indexOf = plan.indexOf;
  const llvm::DenseMap<Operation *, int64_t> &pointOf = plan.pointOf;

  // Forward units: runs of forward ops of one layer; then segments.
  SmallVector<unsigned> forwardOps;
  for (auto [index, op] : llvm::enumerate(ops))
    if (computesForward(liveness, op))
      forwardOps.push_back(index);
  if (forwardOps.empty())
    return failure();
  SmallVector<unsigned> unitStart; // positions in forwardOps
  std::string previousKey;
  for (auto [position, index] : llvm::enumerate(forwardOps)) {
    std::string key = getLayerKey(ops[index]);
    if (position == 0 || key != previousKey)
      unitStart.push_back(position);
    previousKey = key;
  }
  SmallVector<unsigned> segmentStart; // positions in forwardOps
  if (unitStart.size() >= segments) {
    // Merge whole layers, about the same number of ops each.
    SmallVector<unsigned> targets = splitEvenly(forwardOps.size(), segments);
    for (unsigned target : targets) {
      auto it = llvm::lower_bound(unitStart, target);
      unsigned start = it == unitStart.end() ? unitStart.back() : *it;
      if (segmentStart.empty() || start > segmentStart.back())
        segmentStart.push_back(start);
    }
    segmentStart.front() = 0;
  } else {
    segmentStart = splitEvenly(forwardOps.size(), segments);
  }
  unsigned lastForward = forwardOps.back();

  StepGroups groups;
  SmallVector<int> groupOf(ops.size(), -1);
  auto startGroup = [&](bool forward) {
    groups.members.emplace_back();
    groups.forward.push_back(forward);
  };
  // Forward groups, with the non-forward ops among them (e.g. a metric).
  unsigned segment = 0;
  for (unsigned index = 0; index <= lastForward; ++index) {
    Operation *op = ops[index];
    if (isa<train::ParamOp, train::OptStateOp>(op))
      continue;
    if (computesForward(liveness, op)) {
      unsigned position =
          llvm::lower_bound(forwardOps, index) - forwardOps.begin();
      while (segment < segmentStart.size() &&
             segmentStart[segment] <= position) {
        startGroup(true);
        ++segment;
      }
    }
    if (groups.members.empty())
      startGroup(true);
    groups.members.back().push_back(index);
    groupOf[index] = groups.members.size() - 1;
  }
  groups.numForward = groups.members.size();

  // Backward groups: a new one each time the backward pass first reads an
  // earlier forward group, or when the current one has grown to its share
  // of the backward ops (1 / segments), so that a backward pass reading an
  // early group early is not one group.
  unsigned numBackward = 0;
  for (unsigned index = lastForward + 1; index < ops.size(); ++index)
    numBackward += !isa<train::ParamOp, train::OptStateOp>(ops[index]);
  unsigned share = std::max(1u, (numBackward + segments - 1) / segments);
  int level = groups.numForward;
  for (unsigned index = lastForward + 1; index < ops.size(); ++index) {
    Operation *op = ops[index];
    if (isa<train::ParamOp, train::OptStateOp>(op))
      continue;
    int reads = -1;
    for (Value operand : op->getOperands())
      if (const Buffer *buffer = liveness.lookup(operand))
        if (Operation *def = buffer->value.getDefiningOp())
          if (auto it = indexOf.find(def); it != indexOf.end())
            if (groupOf[it->second] >= 0 &&
                groupOf[it->second] < static_cast<int>(groups.numForward))
              reads = std::max(reads, groupOf[it->second]);
    bool fresh = groups.members.size() == groups.numForward ||
                 groups.members.back().size() >= share;
    if (reads >= 0 && reads < level) {
      fresh |= level < static_cast<int>(groups.numForward);
      level = reads;
    }
    if (fresh)
      startGroup(false);
    groups.members.back().push_back(index);
    groupOf[index] = groups.members.size() - 1;
  }

  // The graph.
  unsigned numGroups = groups.members.size();
  SmallVector<int64_t> lastPoint(numGroups, 0), firstPoint(numGroups, 0);
  for (unsigned g = 0; g < numGroups; ++g) {
    firstPoint[g] = pointOf.lookup(ops[groups.members[g].front()]);
    lastPoint[g] = pointOf.lookup(ops[groups.members[g].back()]);
  }
  auto groupOfValue = [&](Value value) -> int {
    Operation *def = value.getDefiningOp();
    if (!def)
      return -1;
    auto it = indexOf.find(def);
    return it == indexOf.end() ? -1 : groupOf[it->second];
  };
  int64_t persistent = 0;
  SmallVector<int64_t> bytes(numGroups, 0), workspace(numGroups, 0);
  SmallVector<SmallVector<int64_t>> internal(numGroups);
  for (unsigned g = 0; g < numGroups; ++g)
    internal[g].assign(lastPoint[g] - firstPoint[g] + 1, 0);
  for (const Buffer &buffer : liveness.getBuffers()) {
    int g = groupOfValue(buffer.value);
    // Returned buffers (the loss; gradients without an optimizer) live to
    // the end however the step is scheduled: they count as persistent, and
    // no node is an output (every value keeps its original, so the returned
    // ones are always available).
    if (buffer.persistent || buffer.memoryClass == MemoryClass::Input ||
        buffer.returned || g < 0) {
      persistent += buffer.bytes;
      continue;
    }
    if (buffer.end > lastPoint[g]) {
      bytes[g] += buffer.bytes;
      continue;
    }
    for (int64_t p = buffer.start; p <= buffer.end; ++p)
      internal[g][p - firstPoint[g]] += buffer.bytes;
  }
  groups.graph.addPersistent(persistent);
  for (unsigned g = 0; g < numGroups; ++g) {
    double cost = 0.0;
    bool pure = true;
    llvm::SmallSetVector<int, 8> operands;
    for (unsigned index : groups.members[g]) {
      Operation *op = ops[index];
      if (auto costOp = dyn_cast<train::CostOpInterface>(op))
        cost += static_cast<double>(costOp.getFlops());
      pure &= isMemoryEffectFree(op);
      for (Value operand : op->getOperands()) {
        const Buffer *buffer = liveness.lookup(operand);
        int from = buffer ? groupOfValue(buffer->value) : -1;
        if (from >= 0 && from != static_cast<int>(g))
          operands.insert(StepGroups::node(from));
      }
    }
    for (int64_t p = firstPoint[g]; p <= lastPoint[g]; ++p)
      workspace[g] = std::max(workspace[g], internal[g][p - firstPoint[g]] +
                                                liveness.getWorkspaceBytes(p));
    int node = groups.graph.addNode(cost, bytes[g], operands.getArrayRef());
    groups.graph.node(node).recomputable = groups.forward[g] && pure;
    groups.graph.node(node).workspace = workspace[g];
  }
  if (!groups.graph.verify().empty())
    return failure();
  // Calibrate: a node's outputs count from its start and its operands in
  // full, where in the step they come and go op by op. Correct each node's
  // workspace so that, for the step as it is (everything kept), the model's
  // peak at every group is the exact peak over the group's ops.
  SmallVector<bool> keepAll(groups.graph.size(), true);
  RematSimulation asIs = simulateSchedule(
      groups.graph, scheduleFromKeepSet(groups.graph, keepAll));
  if (!asIs.valid)
    return failure();
  for (unsigned g = 0; g < numGroups; ++g) {
    int64_t exact = 0;
    for (int64_t p = firstPoint[g]; p <= lastPoint[g]; ++p)
      exact = std::max(exact, liveness.getLiveBytes(p));
    groups.graph.node(StepGroups::node(g)).workspace +=
        exact - asIs.stagePeak[StepGroups::node(g)];
  }
  return groups;
}

/// Rewrites `func` by a stage plan over `groups`: before the ops of group g,
/// the forward groups plan[g] (increasing) are computed again from the
/// latest copies of their operands, and every op reads the latest copy of
/// its operands. Recomputed ops nothing reads are dropped; frees are placed
/// anew. Returns the FLOPs of the recomputed ops.
static int64_t applyStagePlan(func::FuncOp func, const StepGroups &groups,
                              ArrayRef<SmallVector<unsigned>> plan) {
  Block &block = func.getBody().front();
  removeMemoryPlan(func);
  eraseFrees(func);
  SmallVector<Operation *> ops = getPlanOps(func);
  IRMapping latest;
  SmallVector<Operation *> clones;
  auto remap = [&](Operation *op) {
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

/// The stage plan of a schedule over `groups.graph`.
static SmallVector<SmallVector<unsigned>>
getStagePlan(const StepGroups &groups, const RematSchedule &schedule) {
  unsigned numGroups = groups.members.size();
  SmallVector<SmallVector<unsigned>> plan(numGroups);
  for (unsigned g = 0; g < numGroups; ++g)
    for (unsigned k = 0; k < g; ++k)
      if (schedule.R[StepGroups::node(g)][StepGroups::node(k)])
        plan[g].push_back(k);
  return plan;
}

//===----------------------------------------------------------------------===//
// Chains of layers (chain)
//===----------------------------------------------------------------------===//

namespace {
/// A step seen as a chain of layers for solveChainRotor: forward groups
/// (layers, as `layers` finds them; one per forward op in a step without
/// layer names), then the backward groups B_{L-1}, ..., B_0. B_j is the run
/// of backward ops that read values of layer j or the output of layer j-1
/// (what layer j reads), and nothing else of the forward pass.
struct ChainGroups {
  /// Forward groups 0..L-1, then the nonempty B_j; `graph` is unused.
  StepGroups groups;
  /// Per layer, the group of B_j, or -1 when B_j is empty.
  SmallVector<int> backwardGroup;
  SmallVector<RematChainLayer> layers;
  /// Bytes outside the model: parameters, optimizer states, inputs, and
  /// the forward pass' constants and returned buffers (the loss).
  int64_t persistent = 0;
};
} // namespace

/// Bytes of `buffers` live at each point of [from, to] (entry p - from).
static SmallVector<int64_t> getLiveOver(ArrayRef<const Buffer *> buffers,
                                        int64_t from, int64_t to) {
  SmallVector<int64_t> live(to - from + 2, 0);
  for (const Buffer *buffer : buffers) {
    int64_t start = std::max(buffer->start, from);
    int64_t end = std::min(buffer->end, to);
    if (start > end)
      continue;
    live[start - from] += buffer->bytes;
    live[end - from + 1] -= buffer->bytes;
  }
  for (int64_t p = from + 1; p <= to; ++p)
    live[p - from] += live[p - from - 1];
  live.pop_back();
  return live;
}

/// The most layers `chain` decides over; deeper steps merge runs of layers.
static constexpr unsigned kMaxChainLayers = 64;

/// Builds the chain of `func` (which must have no `train.free`s); fails with
/// the reason in `why` when the step is not a chain.
static FailureOr<ChainGroups> buildChainGroups(func::FuncOp func,
                                               std::string &why) {
  TensorLiveness liveness(func);
  PlanIndex plan(func, liveness);
  ArrayRef<Operation *> ops = plan.ops;
  const llvm::DenseMap<Operation *, unsigned> &indexOf = plan.indexOf;
  const llvm::DenseMap<Operation *, int64_t> &pointOf = plan.pointOf;
  auto isStateRead = [](Operation *op) {
    return isa<train::ParamOp, train::OptStateOp>(op);
  };
  int lastForward = -1;
  bool named = false;
  for (auto [index, op] : llvm::enumerate(ops))
    if (computesForward(liveness, op)) {
      lastForward = index;
      named |= !getLayerKey(op).empty();
    }
  if (lastForward < 0) {
    why = "the step has no forward ops";
    return failure();
  }

  // Layers: runs of forward ops with one layer key (one op each without
  // names), with the other ops among them.
  ChainGroups chain;
  StepGroups &groups = chain.groups;
  SmallVector<int> groupOf(ops.size(), -1);
  std::string previousKey;
  bool first = true;
  for (int index = 0; index <= lastForward; ++index) {
    Operation *op = ops[index];
    if (isStateRead(op))
      continue;
    if (computesForward(liveness, op)) {
      std::string key = getLayerKey(op);
      if (first || !named || key != previousKey) {
        groups.members.emplace_back();
        groups.forward.push_back(true);
      }
      previousKey = key;
      first = false;
    } else if (groups.members.empty()) {
      groups.members.emplace_back();
      groups.forward.push_back(true);
    }
    groups.members.back().push_back(index);
    groupOf[index] = groups.members.size() - 1;
  }
  // A layer that defines no storage (views, such as a flatten between a
  // network's features and its classifier) joins the layer before it, whose
  // buffers its values are.
  auto definesStorage = [&](ArrayRef<unsigned> members) {
    return llvm::any_of(members, [&](unsigned index) {
      return llvm::any_of(ops[index]->getResults(), [&](Value result) {
        const Buffer *buffer = liveness.lookup(result);
        return buffer && buffer->value == result;
      });
    });
  };
  for (unsigned g = 1; g < groups.members.size();) {
    if (definesStorage(groups.members[g])) {
      ++g;
      continue;
    }
    llvm::append_range(groups.members[g - 1], groups.members[g]);
    groups.members.erase(groups.members.begin() + g);
    groups.forward.erase(groups.forward.begin() + g);
  }
  // Deep steps: runs of consecutive layers, about equal in ops, so that the
  // DP (O(L^3) per memory unit) keeps a fine memory unit. A run of a chain's
  // layers is again a chain.
  if (groups.members.size() > kMaxChainLayers) {
    unsigned total = 0;
    for (const SmallVector<unsigned> &members : groups.members)
      total += members.size();
    SmallVector<SmallVector<unsigned>> runs;
    unsigned seen = 0;
    for (const SmallVector<unsigned> &members : groups.members) {
      unsigned run = static_cast<unsigned>(static_cast<uint64_t>(seen) *
                                           kMaxChainLayers / total);
      if (runs.size() <= run)
        runs.emplace_back();
      llvm::append_range(runs.back(), members);
      seen += members.size();
    }
    groups.members = std::move(runs);
    groups.forward.assign(groups.members.size(), true);
  }
  for (auto [g, members] : llvm::enumerate(groups.members))
    for (unsigned index : members)
      groupOf[index] = g;
  int numLayers = groups.members.size();
  groups.numForward = numLayers;
  auto layerName = [&](int j) {
    Operation *op = ops[groups.members[j].front()];
    std::string key = getLayerKey(op);
    return "'" + (key.empty() ? op->getName().getStringRef().str() : key) +
           "' (layer " + std::to_string(j) + ")";
  };

  // The buffers of each layer, and which are outputs (read by the next).
  auto layerOf = [&](const Buffer *buffer) -> int {
    if (!buffer || buffer->persistent ||
        buffer->memoryClass == MemoryClass::Input || buffer->returned)
      return -1;
    Operation *def = buffer->value.getDefiningOp();
    auto it = def ? indexOf.find(def) : indexOf.end();
    if (it == indexOf.end() || static_cast<int>(it->second) > lastForward)
      return -1;
    return groupOf[it->second];
  };
  llvm::DenseSet<const Buffer *> outputs;
  for (int index = 0; index <= lastForward; ++index) {
    int j = groupOf[index];
    if (j < 0)
      continue;
    for (Value operand : ops[index]->getOperands()) {
      const Buffer *buffer = liveness.lookup(operand);
      int i = layerOf(buffer);
      if (i < 0 || i == j)
        continue;
      if (i != j - 1) {
        why = "layer " + layerName(j) + " reads a value of layer " +
              layerName(i) + ", not only of the one before it";
        return failure();
      }
      outputs.insert(buffer);
    }
  }

  // B_{L-1}, ..., B_0: a backward op belongs to the lowest layer whose
  // values it reads (an output of layer i counts as layer i+1's input), and
  // to no higher layer than the ops before it. Ops that read no forward
  // value join the next op that does (the trailing ones B_0), so the inputs
  // of the layers reversed meanwhile are not held across them.
  chain.layers.resize(numLayers);
  chain.backwardGroup.assign(numLayers, -1);
  int segment = numLayers - 1;
  // Per layer, its buffers B_j reads.
  SmallVector<llvm::SmallPtrSet<const Buffer *, 8>> readByBackward(numLayers);
  SmallVector<bool> readsInput(numLayers, false);
  SmallVector<unsigned> pending;
  auto place = [&](unsigned index, int j) {
    if (chain.backwardGroup[j] < 0) {
      chain.backwardGroup[j] = groups.members.size();
      groups.members.emplace_back();
      groups.forward.push_back(false);
    }
    groups.members.back().push_back(index);
  };
  for (int index = lastForward + 1; index < static_cast<int>(ops.size());
       ++index) {
    Operation *op = ops[index];
    if (isStateRead(op))
      continue;
    bool reads = false;
    for (Value operand : op->getOperands()) {
      const Buffer *buffer = liveness.lookup(operand);
      int i = layerOf(buffer);
      if (i < 0)
        continue;
      reads = true;
      segment = std::min(segment, outputs.contains(buffer) ? i + 1 : i);
    }
    if (!reads) {
      pending.push_back(index);
      continue;
    }
    for (Value operand : op->getOperands()) {
      const Buffer *buffer = liveness.lookup(operand);
      int i = layerOf(buffer);
      if (i < 0)
        continue;
      bool isOutput = outputs.contains(buffer);
      if (i == segment) {
        chain.layers[i].backwardReadsLayer = true;
        chain.layers[i].backwardReadsOutput |= isOutput;
        readByBackward[i].insert(buffer);
        continue;
      }
      if (i == segment - 1 && isOutput) {
        readsInput[segment] = true;
        continue;
      }
      why = "the backward pass of layer " + layerName(segment) +
            " reads a value of layer " + layerName(i) + " ('" +
            op->getName().getStringRef().str() + "')";
      return failure();
    }
    for (unsigned waiting : pending)
      place(waiting, segment);
    pending.clear();
    place(index, segment);
  }
  for (unsigned waiting : pending)
    place(waiting, 0);

  for (int j = 0; j < numLayers; ++j)
    chain.layers[j].backwardReadsInput = readsInput[j];

  // Sizes. Layer values: output, tape, and the most live at one point of
  // the layer; backward values: live across the start of each B_j, and the
  // most live at one point of it.
  int64_t numPoints = liveness.getNumPoints();
  SmallVector<int64_t> backwardLive(numPoints + 1, 0),
      crossing(numPoints + 2, 0);
  SmallVector<SmallVector<const Buffer *>> buffersOf(numLayers);
  for (const Buffer &buffer : liveness.getBuffers()) {
    int i = layerOf(&buffer);
    // Buffers the backward pass defines (returned ones such as updated
    // parameters, constants such as the loss' seed) are backward values;
    // the loss, inputs and the forward pass' constants count as persistent.
    Operation *def = buffer.value.getDefiningOp();
    auto at = def ? indexOf.find(def) : indexOf.end();
    bool ofBackward =
        at != indexOf.end() && static_cast<int>(at->second) > lastForward;
    if (buffer.persistent ||
        ((buffer.memoryClass == MemoryClass::Input || buffer.returned) &&
         !ofBackward)) {
      chain.persistent += buffer.bytes;
      continue;
    }
    if (i >= 0) {
      buffersOf[i].push_back(&buffer);
      if (outputs.contains(&buffer))
        chain.layers[i].output += buffer.bytes;
      else if (readByBackward[i].contains(&buffer))
        chain.layers[i].tape += buffer.bytes;
      continue;
    }
    backwardLive[buffer.start] += buffer.bytes;
    backwardLive[buffer.end + 1] -= buffer.bytes;
    crossing[buffer.start + 1] += buffer.bytes;
    crossing[buffer.end + 1] -= buffer.bytes;
  }
  // Per layer, its own values at its own points.
  for (int j = 0; j < numLayers; ++j) {
    int64_t from = pointOf.lookup(ops[groups.members[j].front()]);
    int64_t to = pointOf.lookup(ops[groups.members[j].back()]);
    SmallVector<int64_t> own = getLiveOver(buffersOf[j], from, to);
    int64_t most = 0;
    for (int64_t p = from; p <= to; ++p)
      most = std::max(most, own[p - from] + liveness.getWorkspaceBytes(p));
    chain.layers[j].forwardPeak = most;
    for (unsigned index : groups.members[j])
      if (auto cost = dyn_cast<train::CostOpInterface>(ops[index]))
        chain.layers[j].cost += static_cast<double>(cost.getFlops());
  }
  SmallVector<int64_t> liveAt(numPoints, 0), crossingAt(numPoints + 1, 0);
  int64_t live = 0, across = 0;
  for (int64_t p = 0; p < numPoints; ++p) {
    live += backwardLive[p];
    across += crossing[p];
    liveAt[p] = live + liveness.getWorkspaceBytes(p);
    crossingAt[p] = across;
  }
  crossingAt[numPoints] = across + crossing[numPoints];
  // From B_0 up: an empty B_j sees what the next nonempty B below it does.
  int64_t nextStart = numPoints;
  for (int j = 0; j < numLayers; ++j) {
    RematChainLayer &layer = chain.layers[j];
    if (chain.backwardGroup[j] < 0) {
      layer.backwardEntry = layer.backwardPeak =
          crossingAt[std::min(nextStart, numPoints)];
      continue;
    }
    const SmallVector<unsigned> &members =
        groups.members[chain.backwardGroup[j]];
    int64_t from = pointOf.lookup(ops[members.front()]);
    int64_t to = pointOf.lookup(ops[members.back()]);
    layer.backwardEntry = crossingAt[from];
    // The layer's values B_j reads die as it consumes them.
    SmallVector<const Buffer *> read(readByBackward[j].begin(),
                                     readByBackward[j].end());
    SmallVector<int64_t> reading = getLiveOver(read, from, to);
    for (int64_t p = from; p <= to; ++p)
      layer.backwardPeak =
          std::max(layer.backwardPeak, liveAt[p] + reading[p - from]);
    nextStart = from;
  }
  return chain;
}

/// The stage plan of a chain schedule: the recomputations before each B_j
/// (in execution order; those before an empty B_j go before the next B).
static SmallVector<SmallVector<unsigned>>
getChainPlan(const ChainGroups &chain, ArrayRef<RematChainAction> actions) {
  SmallVector<SmallVector<unsigned>> plan(chain.groups.members.size());
  SmallVector<unsigned> pending;
  for (const RematChainAction &action : actions) {
    if (action.original)
      continue;
    if (action.forward) {
      pending.push_back(action.layer);
      continue;
    }
    int group = chain.backwardGroup[action.layer];
    if (group < 0)
      continue;
    plan[group] = std::move(pending);
    pending.clear();
  }
  return plan;
}

namespace {

struct TrainRematPass
    : public memopt::impl::TrainRematPassBase<TrainRematPass> {
  using Base::Base;

  void runOnOperation() override;

  /// Spaces separate pass options, so `budget=1 KiB` would reach the option
  /// parser as `budget=1` and an option `KiB` ("no such option KiB"); this
  /// says what happened instead.
  LogicalResult initializeOptions(
      StringRef options,
      function_ref<LogicalResult(const Twine &)> errorHandler) override;

  /// Checks the options; emits an error naming the option and the valid
  /// range.
  LogicalResult checkOptions(Location loc);

  /// Applies `apply` to a copy of the step and measures it.
  static Candidate evaluate(func::FuncOp func, StringRef algorithm,
                            std::function<int64_t(func::FuncOp)> apply) {
    func::FuncOp copy = func.clone();
    Candidate candidate;
    candidate.algorithm = algorithm.str();
    candidate.flops = apply(copy);
    candidate.peak = TensorLiveness(copy).getLoad();
    candidate.apply = std::move(apply);
    copy.erase();
    return candidate;
  }
  /// Applies the keep-set `keep` to a copy of the step and measures it.
  static Candidate evaluate(func::FuncOp func, StringRef algorithm,
                            llvm::SmallBitVector keep) {
    return evaluate(func, algorithm, [keep](func::FuncOp target) {
      return applyKeepSet(target, keep);
    });
  }

  /// The groups of the step, built once.
  FailureOr<StepGroups> &getGroups(func::FuncOp func) {
    if (!groups) {
      func::FuncOp copy = func.clone();
      eraseFrees(copy);
      groups = buildStepGroups(copy, static_cast<unsigned>(segments));
      copy.erase();
    }
    return *groups;
  }

  /// `optimal`: Checkmate's MILP over the groups. The model's peak of a
  /// group plan bounds the exact one only approximately (a group's outputs
  /// count from its start, its temporaries as one workspace), so the plan is
  /// measured exactly and, while it exceeds the budget, solved again with
  /// the model's budget lowered by the excess.
  /// The time limit counts from `start` (before the groups are built) and
  /// covers every solve and measurement: no solve starts once it is over.
  std::optional<Candidate>
  solveOptimalCandidate(func::FuncOp func, int64_t limit,
                        std::chrono::steady_clock::time_point start);

  /// `chain`: the rotor DP over the step's layers. Its model approximates
  /// the exact liveness (a layer's values at one point are its peak, a B's
  /// backward values likewise), so the plan is measured exactly and, while
  /// it exceeds the budget, solved again with the model's memory lowered by
  /// the excess. `peak` is the step's peak as it is; `why` says why there
  /// is no candidate.
  static std::optional<Candidate> solveChainCandidate(func::FuncOp func,
                                                      int64_t limit,
                                                      int64_t peak,
                                                      std::string &why);

  std::optional<FailureOr<StepGroups>> groups;
  /// Why `optimal` returned no candidate.
  std::string optimalFailure = "the solver ran out of time";
};

} // namespace

LogicalResult TrainRematPass::initializeOptions(
    StringRef options,
    function_ref<LogicalResult(const Twine &)> errorHandler) {
  SmallVector<StringRef> words;
  options.split(words, ' ', /*MaxSplit=*/-1, /*KeepEmpty=*/false);
  static constexpr StringLiteral kUnits[] = {"B",  "KiB", "MiB", "GiB", "TiB",
                                             "KB", "MB",  "GB",  "TB"};
  for (auto [word, next] : llvm::zip(words, llvm::drop_begin(words))) {
    StringRef number = word;
    if (!number.consume_front("budget=") || number.empty() ||
        !llvm::all_of(number, llvm::isDigit) ||
        !llvm::is_contained(kUnits, next))
      continue;
    return errorHandler("train-remat: budget '" + number +
                        "' is followed by a separate option '" + next +
                        "' (spaces separate pass options); did you mean "
                        "budget=" +
                        number + next + " (or budget=\"" + number + " " + next +
                        "\")?");
  }
  return parseOptionsNamingPass(
      "train-remat", options, errorHandler,
      [&](StringRef text, function_ref<LogicalResult(const Twine &)> handler) {
        return Base::initializeOptions(text, handler);
      });
}

LogicalResult TrainRematPass::checkOptions(Location loc) {
  constexpr int64_t kMaxSegments = std::numeric_limits<unsigned>::max();
  if (segments < 1 || segments > kMaxSegments)
    return mlir::emitError(loc)
           << "train-remat: segments must be in [1, " << kMaxSegments
           << "], got " << static_cast<int64_t>(segments);
  if (!(timeLimit >= 0.0))
    return mlir::emitError(loc)
           << "train-remat: time-limit must be a positive number of seconds "
              "(or 0 for no wall-clock limit, with a node-limit), got "
           << llvm::formatv("{0}", static_cast<double>(timeLimit));
  if (nodeLimit < 0)
    return mlir::emitError(loc)
           << "train-remat: node-limit must be a non-negative number of "
              "branch-and-bound nodes (0 = no limit), got "
           << static_cast<int64_t>(nodeLimit);
  if (timeLimit == 0.0 && nodeLimit == 0)
    return mlir::emitError(loc)
           << "train-remat: time-limit=0 (no wall-clock limit) needs a "
              "node-limit, else the solver may run forever";
  return success();
}

void TrainRematPass::runOnOperation() {
  func::FuncOp func = getOperation();
  if (func.isExternal())
    return;
  if (!func.getBody().hasOneBlock()) {
    func.emitOpError("expected a single-block training step (program order "
                     "is the schedule)");
    return signalPassFailure();
  }
  if (failed(train::verifyNotLowered(func, "train-remat")))
    return signalPassFailure();
  static constexpr StringLiteral kAlgorithms[] = {
      "auto",      "none",   "layers",  "sqrt",
      "selective", "greedy", "optimal", "chain"};
  if (!llvm::is_contained(kAlgorithms, StringRef(algorithm))) {
    mlir::emitError(func.getLoc())
        << "train-remat: unknown algorithm '" << algorithm
        << "'; expected one of auto, none, layers, sqrt, "
           "selective, greedy, optimal, chain";
    return signalPassFailure();
  }
  if (failed(checkOptions(func.getLoc())))
    return signalPassFailure();
  std::optional<int64_t> limit;
  if (!StringRef(budget).trim().empty()) {
    FailureOr<int64_t> parsed = parseByteSize(budget);
    if (failed(parsed)) {
      mlir::emitError(func.getLoc())
          << "train-remat: cannot parse budget '" << budget
          << "'; expected bytes with an optional unit, e.g. "
             "40GiB, 512MiB or 1000000";
      return signalPassFailure();
    }
    limit = *parsed;
  }
  TensorLiveness before(func);
  if (llvm::none_of(func.getBody().front(), [&](Operation &op) {
        return computesForward(before, &op);
      })) {
    mlir::emitError(func.getLoc())
        << "train-remat: @" << func.getSymName()
        << " is not a training step: its first result is not "
           "a 0-d float loss";
    return signalPassFailure();
  }
  int64_t peakBefore = before.getLoad();
  int64_t persistent = before.getPersistentBytes();
  SmallVector<const Buffer *> activations = getActivations(before);
  unsigned n = activations.size();

  auto keepAll = [&] { return llvm::SmallBitVector(n, true); };
  auto selective = [&] {
    llvm::SmallBitVector keep = keepAll();
    for (auto [index, buffer] : llvm::enumerate(activations)) {
      Operation *def = buffer->value.getDefiningOp();
      if (!def)
        continue;
      bool scores = isa<train::SoftmaxOp>(def);
      if (auto dropout = dyn_cast<train::DropoutOp>(def))
        scores =
            dropout->getOperand(0).getDefiningOp<train::SoftmaxOp>() != nullptr;
      if (scores)
        keep.reset(index);
    }
    return keep;
  };
  auto layers = [&] {
    llvm::SmallBitVector keep(n, false);
    for (auto [index, buffer] : llvm::enumerate(activations)) {
      Operation *def = buffer->value.getDefiningOp();
      std::string key = def ? getLayerKey(def) : "";
      if (key.empty()) {
        keep.set(index);
        continue;
      }
      // A layer boundary: read by a forward op outside the layer (another
      // layer's input, or the head's), directly or through views.
      SmallVector<Value> worklist = {buffer->value};
      while (!worklist.empty() && !keep.test(index)) {
        Value value = worklist.pop_back_val();
        for (Operation *user : value.getUsers()) {
          if (!computesForward(before, user))
            continue;
          if (getLayerKey(user) != key) {
            keep.set(index);
            break;
          }
          auto aliasing = dyn_cast<train::AliasingOpInterface>(user);
          for (OpResult result : user->getResults())
            if (aliasing && aliasing.getViewSource(result.getResultNumber()))
              worklist.push_back(result);
        }
      }
    }
    return keep;
  };
  auto sqrtKeep = [&] {
    llvm::SmallBitVector keep(n, false);
    unsigned stride = std::max(1u, (unsigned)std::ceil(std::sqrt((double)n)));
    for (unsigned index = stride - 1; index < n; index += stride)
      keep.set(index);
    return keep;
  };
  // Greedy, peak-directed: measure the step, and among the kept activations
  // live at its peak drop the one of least recompute FLOPs per byte; repeat
  // on the rewritten step. The sequence does not depend on the budget, and
  // the answer is the first prefix whose peak meets it (without a budget,
  // the lowest-peak prefix), so a smaller budget never gives a larger peak.
  auto greedy = [&]() -> Candidate {
    // An activation of the step is found in a rewritten copy by its op's
    // position among the original ops (clones are marked, frees skipped).
    llvm::DenseMap<std::pair<unsigned, unsigned>, unsigned> activationAt;
    auto position = [](func::FuncOp target) {
      llvm::DenseMap<Operation *, unsigned> positions;
      unsigned index = 0;
      for (Operation &op : target.getBody().front())
        if (!isa<train::FreeOp>(op) &&
            !op.hasAttr(TrainDialect::kRecomputedAttrName))
          positions[&op] = index++;
      return positions;
    };
    llvm::DenseMap<Operation *, unsigned> original = position(func);
    llvm::DenseMap<Value, unsigned> activationOf;
    for (auto [index, buffer] : llvm::enumerate(activations)) {
      activationOf[buffer->value] = index;
      auto result = dyn_cast<OpResult>(buffer->value);
      if (!result)
        continue;
      activationAt[{original.lookup(result.getOwner()),
                    result.getResultNumber()}] = index;
    }
    // What dropping activation i costs given `keep`: the FLOPs of its
    // producer and of every producer of an operand that is not available
    // either (a forward temporary, or an activation not kept), once each.
    auto recomputeFlops = [&](unsigned i, const llvm::SmallBitVector &keep) {
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
          if (!def || !computesForward(before, def))
            continue;
          const Buffer *buffer = before.lookup(operand);
          auto it =
              buffer ? activationOf.find(buffer->value) : activationOf.end();
          if (it != activationOf.end() && keep.test(it->second))
            continue;
          worklist.push_back(def);
        }
      }
      return static_cast<double>(flops);
    };
    // The state: a keep-set, its rewritten copy's liveness and its peak.
    struct State {
      llvm::SmallBitVector keep;
      func::FuncOp copy;
      std::unique_ptr<TensorLiveness> live;
      int64_t flops = 0;
    };
    auto measure = [&](llvm::SmallBitVector keep) {
      State state;
      state.copy = func.clone();
      state.flops = applyKeepSet(state.copy, keep);
      state.live = std::make_unique<TensorLiveness>(state.copy);
      state.keep = std::move(keep);
      return state;
    };
    auto toCandidate = [](const State &state) {
      Candidate candidate;
      candidate.algorithm = "greedy";
      candidate.flops = state.flops;
      candidate.peak = state.live->getLoad();
      candidate.apply = [keep = state.keep](func::FuncOp target) {
        return applyKeepSet(target, keep);
      };
      return candidate;
    };
    // Each step measures dropping each of the kept activations live at the
    // peak with the least estimated recompute FLOPs per byte (at most
    // kTries) and takes the one of least added FLOPs per byte of peak it
    // removes (else the cheapest that keeps the peak); it stops when every
    // try raises the peak.
    constexpr unsigned kTries = 8;
    unsigned batch = 1;
    double lastScore = 0.0;
    State current = measure(keepAll());
    Candidate best = toCandidate(current);
    while (!limit || best.peak > *limit) {
      llvm::DenseMap<Operation *, unsigned> positions = position(current.copy);
      SmallVector<std::pair<double, unsigned>> options;
      const TensorLiveness &live = *current.live;
      for (const Buffer *buffer : live.getLiveBuffers(live.getPeakPoint())) {
        auto result = dyn_cast<OpResult>(buffer->value);
        if (!result || !positions.count(result.getOwner()))
          continue;
        auto it = activationAt.find(
            {positions.lookup(result.getOwner()), result.getResultNumber()});
        if (it == activationAt.end() || !current.keep.test(it->second))
          continue;
        double ratio = recomputeFlops(it->second, current.keep) /
                       std::max<int64_t>(1, activations[it->second]->bytes);
        options.push_back({ratio, it->second});
      }
      llvm::stable_sort(options, [](const auto &a, const auto &b) {
        return a.first < b.first;
      });
      // Measure every try; take the least added FLOPs per byte the peak
      // drops, else (no try lowers it) the cheapest that keeps it.
      std::optional<State> chosen;
      double chosenScore = 0.0;
      int64_t peakNow = live.getLoad();
      // A batch: after steps that lowered the peak, drop the next `batch`
      // options at once, kept when it lowers the peak at no more added
      // FLOPs per byte than twice the last step's, then doubled, else
      // halved (so large steps need O(log) measurements per run of similar
      // activations, not one each).
      // Where a batch crosses the budget, the least prefix of it that meets
      // the budget is found by bisection.
      if (batch > 1 && options.size() > 1) {
        auto dropFirst = [&](unsigned k) {
          llvm::SmallBitVector keep = current.keep;
          for (auto [ratio, index] : llvm::ArrayRef(options).take_front(k))
            keep.reset(index);
          return measure(std::move(keep));
        };
        unsigned k = std::min<unsigned>(batch, options.size());
        State next = dropFirst(k);
        int64_t peakNext = next.live->getLoad();
        double added = static_cast<double>(next.flops - current.flops);
        if (peakNext < peakNow &&
            added / (peakNow - peakNext) <= 2.0 * lastScore + 1e-9) {
          if (limit && peakNext <= *limit && peakNow > *limit) {
            unsigned low = 0, high = k;
            while (high - low > 1) {
              unsigned middle = (low + high) / 2;
              State trial = dropFirst(middle);
              if (trial.live->getLoad() <= *limit) {
                high = middle;
                next.copy.erase();
                next = std::move(trial);
              } else {
                low = middle;
                trial.copy.erase();
              }
            }
          }
          current.copy.erase();
          current = std::move(next);
          batch *= 2;
          if (current.live->getLoad() < best.peak)
            best = toCandidate(current);
          continue;
        }
        // Back off: a smaller batch, down to single steps.
        next.copy.erase();
        batch /= 2;
        if (batch > 1)
          continue;
      }
      for (auto [ratio, index] : llvm::ArrayRef(options).take_front(kTries)) {
        llvm::SmallBitVector keep = current.keep;
        keep.reset(index);
        State next = measure(std::move(keep));
        int64_t peakNext = next.live->getLoad();
        if (peakNext > peakNow) {
          next.copy.erase();
          continue;
        }
        double added = static_cast<double>(next.flops - current.flops);
        // Lowering the peak ranks before keeping it (scores below 1e30).
        double score =
            peakNext < peakNow ? added / (peakNow - peakNext) : 1e30 + added;
        if (!chosen || score < chosenScore) {
          if (chosen)
            chosen->copy.erase();
          chosen = std::move(next);
          chosenScore = score;
        } else {
          next.copy.erase();
        }
      }
      bool moved = chosen.has_value();
      if (!moved)
        break;
      bool lowered = chosen->live->getLoad() < peakNow;
      current.copy.erase();
      current = std::move(*chosen);
      if (lowered) {
        lastScore = chosenScore;
        batch = 2;
      } else {
        batch = 1;
      }
      if (current.live->getLoad() < best.peak)
        best = toCandidate(current);
    }
    current.copy.erase();
    return best;
  };

  SmallVector<Candidate> candidates;
  if (algorithm == "none" || algorithm == "auto")
    candidates.push_back(evaluate(func, "none", keepAll()));
  if (algorithm == "layers" || (algorithm == "auto" && limit))
    candidates.push_back(evaluate(func, "layers", layers()));
  if (algorithm == "sqrt" || (algorithm == "auto" && limit))
    candidates.push_back(evaluate(func, "sqrt", sqrtKeep()));
  if (algorithm == "selective" || (algorithm == "auto" && limit))
    candidates.push_back(evaluate(func, "selective", selective()));
  if (algorithm == "greedy" || (algorithm == "auto" && limit))
    candidates.push_back(greedy());
  if ((algorithm == "optimal" || algorithm == "chain") && !limit)
    candidates.push_back(evaluate(func, algorithm, keepAll()));
  std::string chainFailure;
  if (limit && (algorithm == "chain" ||
                (algorithm == "auto" && candidates.front().peak > *limit))) {
    if (std::optional<Candidate> chain =
            solveChainCandidate(func, *limit, peakBefore, chainFailure))
      candidates.push_back(std::move(*chain));
    else if (algorithm == "chain") {
      mlir::emitError(func.getLoc())
          << "train-remat: algorithm 'chain' found no schedule within the "
             "budget of "
          << *limit << " bytes: " << chainFailure
          << "; parameters and optimizer states alone take " << persistent
          << " bytes";
      return signalPassFailure();
    }
  }
  if (limit && (algorithm == "optimal" ||
                (algorithm == "auto" && candidates.front().peak > *limit))) {
    // auto only spends solver time when keeping everything does not fit.
    auto optimalStart = std::chrono::steady_clock::now();
    if (failed(getGroups(func))) {
      mlir::emitError(func.getLoc())
          << "train-remat: cannot group @" << func.getSymName()
          << " for the schedule solver";
      return signalPassFailure();
    }
    if (std::optional<Candidate> optimal =
            solveOptimalCandidate(func, *limit, optimalStart))
      candidates.push_back(std::move(*optimal));
  }

  // The cheapest candidate within the budget (ties: the lower peak).
  const Candidate *chosen = nullptr;
  for (const Candidate &candidate : candidates) {
    if (limit && candidate.peak > *limit)
      continue;
    if (!chosen || candidate.flops < chosen->flops ||
        (candidate.flops == chosen->flops && candidate.peak < chosen->peak))
      chosen = &candidate;
  }
  if (!chosen) {
    if (candidates.empty()) {
      mlir::emitError(func.getLoc())
          << "train-remat: algorithm '" << algorithm
          << "' found no schedule within the budget of " << *limit
          << " bytes: " << optimalFailure
          << " (more segments refine the model; greedy decides per "
             "activation); parameters and optimizer states alone take "
          << persistent << " bytes";
      return signalPassFailure();
    }
    const Candidate *lowest = &candidates.front();
    for (const Candidate &candidate : candidates)
      if (candidate.peak < lowest->peak)
        lowest = &candidate;
    // Recomputing every activation bounds what any keep-set reaches.
    Candidate everything =
        evaluate(func, "recompute everything", llvm::SmallBitVector(n, false));
    mlir::emitError(func.getLoc())
        << "train-remat: no candidate of algorithm '" << algorithm
        << "' meets the budget of " << *limit
        << " bytes: the smallest peak reached is " << lowest->peak
        << " bytes, by '" << lowest->algorithm
        << "' (recomputing every activation: " << everything.peak
        << " bytes); parameters and optimizer states alone take " << persistent
        << " bytes";
    return signalPassFailure();
  }
  if (!chosen->detail.empty())
    mlir::emitRemark(func.getLoc())
        << "train-remat: " << chosen->algorithm << ": " << chosen->detail;

  int64_t flops = chosen->apply(func);
  Builder builder(&getContext());
  func->setAttr(TrainDialect::kRematFlopsAttrName,
                builder.getI64IntegerAttr(flops));
  func->setAttr(TrainDialect::kRematPeakBeforeAttrName,
                builder.getI64IntegerAttr(peakBefore));
  func->setAttr(TrainDialect::kRematPeakAfterAttrName,
                builder.getI64IntegerAttr(TensorLiveness(func).getLoad()));
}

std::optional<Candidate> TrainRematPass::solveOptimalCandidate(
    func::FuncOp func, int64_t limit,
    std::chrono::steady_clock::time_point start) {
  const StepGroups &steps = *getGroups(func);
  auto elapsed = [&] {
    return std::chrono::duration<double>(std::chrono::steady_clock::now() -
                                         start)
        .count();
  };
  double seconds = timeLimit;
  // The calibrated model reproduces the step's peak, so start from the
  // budget itself; lower it while the exact peak of the plan is over.
  int64_t modelBudget = limit;
  for (int attempt = 0; attempt < 6; ++attempt) {
    RematOptimalOptions options;
    if (seconds > 0.0) {
      double left = seconds - elapsed();
      if (left <= 0.0) {
        optimalFailure =
            (llvm::Twine("the time limit of ") + llvm::formatv("{0}", seconds) +
             " s ran out after " + llvm::Twine(attempt) + " solves" +
             (attempt ? " (" + optimalFailure + ")" : std::string()))
                .str();
        break;
      }
      options.timeLimitSeconds = left;
    } else {
      options.timeLimitSeconds = 0.0;
    }
    options.nodeLimit = nodeLimit;
    RematResult result = solveOptimal(steps.graph, modelBudget, options);
    if (!result.hasSchedule()) {
      optimalFailure = (llvm::Twine("the solver's model of ") +
                        llvm::Twine(steps.members.size()) + " groups (" +
                        llvm::Twine(steps.numForward) + " forward) says " +
                        stringifyRematStatus(result.status) + " at " +
                        llvm::Twine(modelBudget) + " model bytes" +
                        (result.error.empty() ? "" : ": " + result.error))
                           .str();
      break;
    }
    SmallVector<SmallVector<unsigned>> plan =
        getStagePlan(steps, result.schedule);
    Candidate candidate =
        evaluate(func, "optimal", [&steps, plan](func::FuncOp target) {
          return applyStagePlan(target, steps, plan);
        });
    candidate.detail =
        (llvm::Twine(stringifyRematStatus(result.status)) + " over " +
         llvm::Twine(steps.members.size()) + " groups (" +
         llvm::Twine(steps.numForward) + " forward), model recompute " +
         llvm::formatv("{0:e3}", result.recomputeCost) + " FLOPs, gap " +
         llvm::formatv("{0:f4}", result.gap()) + ", " +
         llvm::formatv("{0:f2}", elapsed()) + " s")
            .str();
    if (candidate.peak <= limit)
      return candidate;
    optimalFailure = (llvm::Twine("its best plan peaks at ") +
                      llvm::Twine(candidate.peak) + " bytes")
                         .str();
    modelBudget -= candidate.peak - limit;
  }
  return std::nullopt;
}

std::optional<Candidate> TrainRematPass::solveChainCandidate(func::FuncOp func,
                                                             int64_t limit,
                                                             int64_t peak,
                                                             std::string &why) {
  func::FuncOp copy = func.clone();
  eraseFrees(copy);
  FailureOr<ChainGroups> built = buildChainGroups(copy, why);
  copy.erase();
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
    SmallVector<SmallVector<unsigned>> plan =
        getChainPlan(*chain, result.actions);
    Candidate candidate =
        evaluate(func, "chain", [chain, plan](func::FuncOp target) {
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
    if (candidate.peak <= limit)
      return candidate;
    why = (llvm::Twine("its best plan peaks at ") +
           llvm::Twine(candidate.peak) + " bytes")
              .str();
    memory -= std::max(candidate.peak - limit, result.unit);
  }
  return std::nullopt;
}
