//===- RematGroups.cpp - a training step coarsened for remat solvers ------===//
//
// Two coarsenings of a step, each built in stages:
//
// * StepGroups (`optimal`): forward groups (segments of whole layers), then
//   backward groups (a new one where the backward pass first reads an
//   earlier forward group, or when the current one has its share of ops),
//   then a RematGraph over them whose workspaces are calibrated so that the
//   model's peak at every group is the exact peak of the step as it is.
// * ChainGroups (`chain`): layers, the outputs each layer hands the next
//   (failing when a layer reads further back), the backward parts B_j
//   (failing when one reads another layer), then the sizes of the rotor
//   model, measured on the exact liveness.
//
//===----------------------------------------------------------------------===//

#include "memopt/Analysis/RematGroups.h"
#include "memopt/Dialect/Train/IR/TrainOps.h"

#include "mlir/Interfaces/SideEffectInterfaces.h"
#include "llvm/ADT/DenseSet.h"
#include "llvm/ADT/SetVector.h"
#include "llvm/ADT/SmallPtrSet.h"
#include "llvm/ADT/StringExtras.h"

using namespace mlir;
using namespace mlir::memopt;

bool mlir::memopt::computesForward(const TensorLiveness &liveness,
                                   Operation *op) {
  return liveness.isForward(op) && !isa<train::ParamOp, train::OptStateOp>(op);
}

SmallVector<const Buffer *>
mlir::memopt::getActivations(const TensorLiveness &liveness) {
  SmallVector<const Buffer *> activations;
  for (const Buffer &buffer : liveness.getBuffers())
    if (buffer.memoryClass == MemoryClass::Activation)
      activations.push_back(&buffer);
  return activations;
}

std::string mlir::memopt::getLayerKey(Operation *op) {
  if (auto layer =
          op->getAttrOfType<StringAttr>(train::TrainDialect::kLayerAttrName))
    return layer.str();
  // Hand-written IR: the location name up to its first numeric component.
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

SmallVector<Operation *> mlir::memopt::getPlanOps(func::FuncOp func) {
  SmallVector<Operation *> ops;
  Block &block = func.getBody().front();
  for (Operation &op : block.without_terminator())
    if (!isa<train::FreeOp>(op))
      ops.push_back(&op);
  return ops;
}

static bool isStateRead(Operation *op) {
  return isa<train::ParamOp, train::OptStateOp>(op);
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

//===----------------------------------------------------------------------===//
// StepGroups
//===----------------------------------------------------------------------===//

namespace {
/// The stages of buildStepGroups over one step.
class StepGroupsBuilder {
public:
  StepGroupsBuilder(func::FuncOp func, unsigned segments)
      : liveness(func), plan(func, liveness), segments(segments),
        groupOf(plan.ops.size(), -1) {}

  FailureOr<StepGroups> build() {
    if (failed(formForwardGroups()))
      return failure();
    formBackwardGroups();
    if (failed(buildGraph()) || failed(calibrate()))
      return failure();
    return std::move(groups);
  }

private:
  /// Forward groups: segments of whole layers, with the non-forward ops
  /// among them (e.g. a metric). Fails without forward ops.
  LogicalResult formForwardGroups();
  /// Backward groups: a new one each time the backward pass first reads an
  /// earlier forward group, or when the current one has grown to its share
  /// of the backward ops (1 / segments), so that a backward pass reading an
  /// early group early is not one group.
  void formBackwardGroups();
  /// The nodes of `groups.graph`: persistent bytes, then one per group.
  LogicalResult buildGraph();
  /// A node's outputs count from its start and its operands in full, where
  /// in the step they come and go op by op. Corrects each node's workspace
  /// so that, for the step as it is (everything kept), the model's peak at
  /// every group is the exact peak over the group's ops.
  LogicalResult calibrate();

  void startGroup(bool forward) {
    groups.members.emplace_back();
    groups.forward.push_back(forward);
  }
  void addToLastGroup(unsigned index) {
    groups.members.back().push_back(index);
    groupOf[index] = groups.members.size() - 1;
  }
  /// The group that defines `value`, or -1.
  int groupOfValue(Value value) const {
    Operation *def = value.getDefiningOp();
    if (!def)
      return -1;
    auto it = plan.indexOf.find(def);
    return it == plan.indexOf.end() ? -1 : groupOf[it->second];
  }
  int64_t firstPoint(unsigned g) const {
    return plan.pointOf.lookup(plan.ops[groups.members[g].front()]);
  }
  int64_t lastPoint(unsigned g) const {
    return plan.pointOf.lookup(plan.ops[groups.members[g].back()]);
  }

  TensorLiveness liveness;
  PlanIndex plan;
  unsigned segments;
  SmallVector<int> groupOf;
  unsigned lastForward = 0;
  StepGroups groups;
};
} // namespace

LogicalResult StepGroupsBuilder::formForwardGroups() {
  ArrayRef<Operation *> ops = plan.ops;
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
  lastForward = forwardOps.back();

  unsigned segment = 0;
  for (unsigned index = 0; index <= lastForward; ++index) {
    Operation *op = ops[index];
    if (isStateRead(op))
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
    addToLastGroup(index);
  }
  groups.numForward = groups.members.size();
  return success();
}

void StepGroupsBuilder::formBackwardGroups() {
  ArrayRef<Operation *> ops = plan.ops;
  unsigned numBackward = 0;
  for (unsigned index = lastForward + 1; index < ops.size(); ++index)
    numBackward += !isStateRead(ops[index]);
  unsigned share = std::max(1u, (numBackward + segments - 1) / segments);
  int numForward = groups.numForward;
  int level = numForward;
  for (unsigned index = lastForward + 1; index < ops.size(); ++index) {
    Operation *op = ops[index];
    if (isStateRead(op))
      continue;
    // The latest forward group whose buffers the op reads.
    int reads = -1;
    for (Value operand : op->getOperands())
      if (const Buffer *buffer = liveness.lookup(operand))
        if (Operation *def = buffer->value.getDefiningOp())
          if (auto it = plan.indexOf.find(def); it != plan.indexOf.end())
            if (groupOf[it->second] >= 0 && groupOf[it->second] < numForward)
              reads = std::max(reads, groupOf[it->second]);
    bool fresh = groups.members.size() == groups.numForward ||
                 groups.members.back().size() >= share;
    if (reads >= 0 && reads < level) {
      fresh |= level < numForward;
      level = reads;
    }
    if (fresh)
      startGroup(false);
    addToLastGroup(index);
  }
}

LogicalResult StepGroupsBuilder::buildGraph() {
  ArrayRef<Operation *> ops = plan.ops;
  unsigned numGroups = groups.members.size();
  int64_t persistent = 0;
  SmallVector<int64_t> bytes(numGroups, 0);
  // Per group, the bytes of its own buffers live at each of its points.
  SmallVector<SmallVector<int64_t>> internal(numGroups);
  for (unsigned g = 0; g < numGroups; ++g)
    internal[g].assign(lastPoint(g) - firstPoint(g) + 1, 0);
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
    if (buffer.end > lastPoint(g)) {
      bytes[g] += buffer.bytes;
      continue;
    }
    for (int64_t p = buffer.start; p <= buffer.end; ++p)
      internal[g][p - firstPoint(g)] += buffer.bytes;
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
    int64_t workspace = 0;
    for (int64_t p = firstPoint(g); p <= lastPoint(g); ++p)
      workspace = std::max(workspace, internal[g][p - firstPoint(g)] +
                                          liveness.getWorkspaceBytes(p));
    int node = groups.graph.addNode(cost, bytes[g], operands.getArrayRef());
    groups.graph.node(node).recomputable = groups.forward[g] && pure;
    groups.graph.node(node).workspace = workspace;
  }
  return success(groups.graph.verify().empty());
}

LogicalResult StepGroupsBuilder::calibrate() {
  SmallVector<bool> keepAll(groups.graph.size(), true);
  RematSimulation asIs = simulateSchedule(
      groups.graph, scheduleFromKeepSet(groups.graph, keepAll));
  if (!asIs.valid)
    return failure();
  for (unsigned g = 0, e = groups.members.size(); g < e; ++g) {
    int64_t exact = 0;
    for (int64_t p = firstPoint(g); p <= lastPoint(g); ++p)
      exact = std::max(exact, liveness.getLiveBytes(p));
    groups.graph.node(StepGroups::node(g)).workspace +=
        exact - asIs.stagePeak[StepGroups::node(g)];
  }
  return success();
}

FailureOr<StepGroups> mlir::memopt::buildStepGroups(func::FuncOp func,
                                                    unsigned segments) {
  return StepGroupsBuilder(func, segments).build();
}

StagePlan mlir::memopt::getStagePlan(const StepGroups &groups,
                                     const RematSchedule &schedule) {
  unsigned numGroups = groups.members.size();
  StagePlan plan(numGroups);
  for (unsigned g = 0; g < numGroups; ++g)
    for (unsigned k = 0; k < g; ++k)
      if (schedule.R[StepGroups::node(g)][StepGroups::node(k)])
        plan[g].push_back(k);
  return plan;
}

//===----------------------------------------------------------------------===//
// ChainGroups
//===----------------------------------------------------------------------===//

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

namespace {
/// The stages of buildChainGroups over one step; each failing stage says
/// why in `why`.
class ChainGroupsBuilder {
public:
  ChainGroupsBuilder(func::FuncOp func, std::string &why)
      : liveness(func), plan(func, liveness), why(why),
        groupOf(plan.ops.size(), -1) {}

  FailureOr<ChainGroups> build() {
    if (failed(formLayers()) || failed(findOutputs()) ||
        failed(formBackwardGroups()))
      return failure();
    measureLayers();
    measureBackward();
    return std::move(chain);
  }

private:
  /// Layers: runs of forward ops with one layer key (one op each without
  /// names), with the other ops among them; layers that define no storage
  /// join the one before; deep steps merge runs of layers.
  LogicalResult formLayers();
  /// The buffers each layer hands the next; fails when a layer reads a
  /// value of a layer other than the one before it.
  LogicalResult findOutputs();
  /// B_{L-1}, ..., B_0; fails when a backward op reads a layer other than
  /// its part's.
  LogicalResult formBackwardGroups();
  /// Per layer: its FLOPs, output, tape and the most its own values take.
  void measureLayers();
  /// Per layer: the backward values live when B_j starts, and the most B_j
  /// holds at one point.
  void measureBackward();

  /// The layer that defines `buffer` (-1 for persistent, input, returned
  /// and backward buffers).
  int layerOf(const Buffer *buffer) const {
    if (!buffer || buffer->persistent ||
        buffer->memoryClass == MemoryClass::Input || buffer->returned)
      return -1;
    Operation *def = buffer->value.getDefiningOp();
    auto it = def ? plan.indexOf.find(def) : plan.indexOf.end();
    if (it == plan.indexOf.end() || static_cast<int>(it->second) > lastForward)
      return -1;
    return groupOf[it->second];
  }
  /// "'h.3' (layer 4)", for the reasons.
  std::string layerName(int j) const {
    Operation *op = plan.ops[chain.groups.members[j].front()];
    std::string key = getLayerKey(op);
    return "'" + (key.empty() ? op->getName().getStringRef().str() : key) +
           "' (layer " + std::to_string(j) + ")";
  }
  /// Whether the backward op at `index` reads a layer's value (else it
  /// waits for the next op that does); lowers `segment` to the lowest layer
  /// it reads.
  bool readsLayer(unsigned index, int &segment) const;
  /// Appends the op at `index` to B_j, creating B_j first.
  void placeInBackward(unsigned index, int j);

  TensorLiveness liveness;
  PlanIndex plan;
  std::string &why;
  SmallVector<int> groupOf;
  int lastForward = -1;
  int numLayers = 0;
  ChainGroups chain;
  /// Layer outputs: buffers of layer i read by layer i + 1.
  llvm::DenseSet<const Buffer *> outputs;
  /// Per layer, its buffers B_j reads.
  SmallVector<llvm::SmallPtrSet<const Buffer *, 8>> readByBackward;
  /// Per layer, the buffers it defines (besides persistent ones).
  SmallVector<SmallVector<const Buffer *>> buffersOf;
  /// Bytes of the buffers the backward pass defines: added at their first
  /// point and removed after their last (backwardLive), and counted from
  /// the point after their first (crossing: live across a point's start).
  SmallVector<int64_t> backwardLive, crossing;
};
} // namespace

LogicalResult ChainGroupsBuilder::formLayers() {
  ArrayRef<Operation *> ops = plan.ops;
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

  StepGroups &groups = chain.groups;
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
  numLayers = groups.members.size();
  groups.numForward = numLayers;
  return success();
}

LogicalResult ChainGroupsBuilder::findOutputs() {
  for (int index = 0; index <= lastForward; ++index) {
    int j = groupOf[index];
    if (j < 0)
      continue;
    for (Value operand : plan.ops[index]->getOperands()) {
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
  return success();
}

bool ChainGroupsBuilder::readsLayer(unsigned index, int &segment) const {
  bool reads = false;
  for (Value operand : plan.ops[index]->getOperands()) {
    const Buffer *buffer = liveness.lookup(operand);
    int i = layerOf(buffer);
    if (i < 0)
      continue;
    reads = true;
    segment = std::min(segment, outputs.contains(buffer) ? i + 1 : i);
  }
  return reads;
}

void ChainGroupsBuilder::placeInBackward(unsigned index, int j) {
  StepGroups &groups = chain.groups;
  if (chain.backwardGroup[j] < 0) {
    chain.backwardGroup[j] = groups.members.size();
    groups.members.emplace_back();
    groups.forward.push_back(false);
  }
  groups.members.back().push_back(index);
}

// A backward op belongs to the lowest layer whose values it reads (an output
// of layer i counts as layer i+1's input), and to no higher layer than the
// ops before it. Ops that read no forward value join the next op that does
// (the trailing ones B_0), so the inputs of the layers reversed meanwhile are
// not held across them.
LogicalResult ChainGroupsBuilder::formBackwardGroups() {
  ArrayRef<Operation *> ops = plan.ops;
  chain.layers.resize(numLayers);
  chain.backwardGroup.assign(numLayers, -1);
  readByBackward.resize(numLayers);
  int segment = numLayers - 1;
  SmallVector<bool> readsInput(numLayers, false);
  SmallVector<unsigned> pending;
  for (int index = lastForward + 1; index < static_cast<int>(ops.size());
       ++index) {
    Operation *op = ops[index];
    if (isStateRead(op))
      continue;
    if (!readsLayer(index, segment)) {
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
      placeInBackward(waiting, segment);
    pending.clear();
    placeInBackward(index, segment);
  }
  for (unsigned waiting : pending)
    placeInBackward(waiting, 0);
  for (int j = 0; j < numLayers; ++j)
    chain.layers[j].backwardReadsInput = readsInput[j];
  return success();
}

// Layer values: output, tape, and the most live at one point of the layer.
void ChainGroupsBuilder::measureLayers() {
  int64_t numPoints = liveness.getNumPoints();
  backwardLive.assign(numPoints + 1, 0);
  crossing.assign(numPoints + 2, 0);
  buffersOf.resize(numLayers);
  for (const Buffer &buffer : liveness.getBuffers()) {
    int i = layerOf(&buffer);
    // Buffers the backward pass defines (returned ones such as updated
    // parameters, constants such as the loss' seed) are backward values;
    // the loss, inputs and the forward pass' constants count as persistent.
    Operation *def = buffer.value.getDefiningOp();
    auto at = def ? plan.indexOf.find(def) : plan.indexOf.end();
    bool ofBackward =
        at != plan.indexOf.end() && static_cast<int>(at->second) > lastForward;
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
    const SmallVector<unsigned> &members = chain.groups.members[j];
    int64_t from = plan.pointOf.lookup(plan.ops[members.front()]);
    int64_t to = plan.pointOf.lookup(plan.ops[members.back()]);
    SmallVector<int64_t> own = getLiveOver(buffersOf[j], from, to);
    int64_t most = 0;
    for (int64_t p = from; p <= to; ++p)
      most = std::max(most, own[p - from] + liveness.getWorkspaceBytes(p));
    chain.layers[j].forwardPeak = most;
    for (unsigned index : members)
      if (auto cost = dyn_cast<train::CostOpInterface>(plan.ops[index]))
        chain.layers[j].cost += static_cast<double>(cost.getFlops());
  }
}

// Backward values: live across the start of each B_j, and the most live at
// one point of it.
void ChainGroupsBuilder::measureBackward() {
  int64_t numPoints = liveness.getNumPoints();
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
        chain.groups.members[chain.backwardGroup[j]];
    int64_t from = plan.pointOf.lookup(plan.ops[members.front()]);
    int64_t to = plan.pointOf.lookup(plan.ops[members.back()]);
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
}

FailureOr<ChainGroups> mlir::memopt::buildChainGroups(func::FuncOp func,
                                                      std::string &why) {
  return ChainGroupsBuilder(func, why).build();
}

StagePlan mlir::memopt::getChainPlan(const ChainGroups &chain,
                                     ArrayRef<RematChainAction> actions) {
  StagePlan plan(chain.groups.members.size());
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
