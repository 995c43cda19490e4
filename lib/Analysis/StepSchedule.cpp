//===- StepSchedule.cpp - peak-aware op orders of a training step ---------===//

#include "memopt/Analysis/StepSchedule.h"

#include "memopt/Dialect/Train/IR/TrainOps.h"

#include "mlir/IR/Matchers.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/STLExtras.h"

#include <limits>
#include <set>

using namespace mlir;
using namespace mlir::memopt;

//===----------------------------------------------------------------------===//
// ScheduleGraph
//===----------------------------------------------------------------------===//

/// Whether `op` must keep its place among the other such ops: an op outside
/// the dialects whose effects the graph models (collectives, calls), or one
/// that may have effects it cannot see.
static bool isOrderedOp(Operation *op) {
  StringRef dialect = op->getName().getDialectNamespace();
  // A pipeline stage's exchanges keep their order: train-pipeline checked
  // that it lets every stage's exchanges complete.
  if (isa<train::P2POp>(op))
    return true;
  if (dialect == "train")
    return false; // In-place updates and frees are ordered per buffer.
  if (dialect == "arith" || dialect == "tensor" || dialect == "math")
    return !isMemoryEffectFree(op);
  return true;
}

void ScheduleGraph::addEdge(unsigned from, unsigned to) {
  if (from == to || llvm::is_contained(succs[from], to))
    return;
  succs[from].push_back(to);
  preds[to].push_back(from);
}

ScheduleGraph::ScheduleGraph(Operation *func, const TensorLiveness &liveness)
    : func(func) {
  llvm::append_range(ops, liveness.getSchedule());
  unsigned n = ops.size();
  preds.resize(n);
  succs.resize(n);
  defined.resize(n);
  used.resize(n);
  if (n == 0)
    return;
  Block *block = ops.front()->getBlock();
  llvm::DenseMap<Operation *, unsigned> indexOf;
  for (auto [i, op] : llvm::enumerate(ops))
    indexOf[op] = i;

  // Buffers that are not persistent get an index of their own.
  ArrayRef<Buffer> all = liveness.getBuffers();
  persistent = liveness.getPersistentBytes();
  SmallVector<int64_t> ownIndex(all.size(), -1);
  for (auto [k, buffer] : llvm::enumerate(all)) {
    if (buffer.persistent)
      continue;
    ownIndex[k] = buffers.size();
    BufferInfo info;
    // The device's peak is the one ordered: host buffers (train-offload)
    // count nothing here, as in TensorLiveness's load.
    info.bytes = buffer.host ? 0 : buffer.bytes;
    if (Operation *def = buffer.value.getDefiningOp()) {
      info.def = indexOf.lookup(def);
      defined[info.def].push_back(buffers.size());
    }
    buffers.push_back(std::move(info));
  }
  auto indexOfBuffer = [&](Value value) -> int64_t {
    const Buffer *buffer = liveness.lookup(value);
    return buffer ? buffer - all.data() : -1;
  };

  // Every op that touches each buffer (of TensorLiveness, persistent ones
  // included), in program order, and whether it writes it (in place) or
  // frees it.
  SmallVector<SmallVector<std::pair<unsigned, bool>>> touches(all.size());
  int64_t lastOrdered = -1;
  for (auto [i, op] : llvm::enumerate(ops)) {
    workspace.push_back(liveness.getWorkspaceBytes(i));
    auto aliasing = dyn_cast<train::AliasingOpInterface>(op);
    bool frees = isa<train::FreeOp>(op);
    bool deadView = liveness.isDeadView(op);
    op->walk([&](Operation *nested) {
      for (OpOperand &operand : nested->getOpOperands()) {
        Value value = operand.get();
        if (Operation *def = value.getDefiningOp())
          if (Operation *top = block->findAncestorOpInBlock(*def);
              top && top != op)
            addEdge(indexOf.lookup(top), i);
        int64_t k = indexOfBuffer(value);
        if (k < 0)
          continue;
        bool writes =
            frees || (nested == op && aliasing &&
                      aliasing.isUpdatedInPlace(operand.getOperandNumber()));
        auto &list = touches[k];
        if (!list.empty() && list.back().first == i)
          list.back().second |= writes;
        else
          list.push_back({static_cast<unsigned>(i), writes});
        if (deadView || ownIndex[k] < 0)
          continue;
        auto own = static_cast<unsigned>(ownIndex[k]);
        if (!llvm::is_contained(used[i], own)) {
          used[i].push_back(own);
          buffers[own].users.push_back(i);
        }
      }
    });
    if (isOrderedOp(op) && op != ops.back()) {
      if (lastOrdered >= 0)
        addEdge(lastOrdered, i);
      lastOrdered = i;
    }
  }
  for (auto &list : touches)
    for (auto [position, entry] : llvm::enumerate(list)) {
      if (!entry.second)
        continue;
      for (auto [other, unused] : ArrayRef(list).take_front(position))
        addEdge(other, entry.first);
      for (auto [other, unused] : ArrayRef(list).drop_front(position + 1))
        addEdge(entry.first, other);
    }
  // Identical constants share one global once lowered, whose bytes
  // TensorLiveness counts on the first of them in program order: each
  // duplicate stays after that one, so that it holds the bytes in every
  // order (a pipeline stage repeats its micro-batches' constants).
  llvm::DenseMap<std::pair<Type, Attribute>, unsigned> firstConstant;
  for (auto [i, op] : llvm::enumerate(ops)) {
    Attribute value;
    if (op->getNumResults() != 1 ||
        !isa<RankedTensorType>(op->getResult(0).getType()) ||
        !matchPattern(op, m_Constant(&value)) || !value)
      continue;
    auto [it, inserted] =
        firstConstant.try_emplace({op->getResult(0).getType(), value}, i);
    if (!inserted)
      addEdge(it->second, i);
  }
  // The terminator stays last.
  for (unsigned i = 0; i + 1 < n; ++i)
    addEdge(i, n - 1);
  for (const BufferInfo &buffer : buffers)
    if (buffer.def < 0 && buffer.users.empty())
      unusedArguments += buffer.bytes;
}

/// Live bytes at every point of `order` (the model of simulateLoad).
static SmallVector<int64_t> getLiveProfile(const ScheduleGraph &graph,
                                           ArrayRef<unsigned> order) {
  unsigned n = graph.size();
  SmallVector<unsigned> position(n);
  for (auto [p, op] : llvm::enumerate(order))
    position[op] = p;
  SmallVector<int64_t> delta(n + 1, 0);
  for (const ScheduleGraph::BufferInfo &buffer : graph.getBuffers()) {
    unsigned start = buffer.def < 0 ? 0 : position[buffer.def];
    unsigned end = start;
    for (unsigned user : buffer.users)
      end = std::max(end, position[user]);
    delta[start] += buffer.bytes;
    delta[end + 1] -= buffer.bytes;
  }
  SmallVector<int64_t> live(n);
  int64_t running = 0;
  for (unsigned p = 0; p < n; ++p) {
    running += delta[p];
    live[p] =
        graph.getPersistentBytes() + running + graph.getWorkspace(order[p]);
  }
  return live;
}

unsigned ScheduleGraph::findPeakPoint(ArrayRef<unsigned> order) const {
  SmallVector<int64_t> live = getLiveProfile(*this, order);
  return std::max_element(live.begin(), live.end()) - live.begin();
}

int64_t ScheduleGraph::simulateLoad(ArrayRef<unsigned> order) const {
  if (ops.empty())
    return 0;
  SmallVector<int64_t> live = getLiveProfile(*this, order);
  return *std::max_element(live.begin(), live.end());
}

bool ScheduleGraph::isValidOrder(ArrayRef<unsigned> order) const {
  unsigned n = ops.size();
  if (order.size() != n)
    return false;
  SmallVector<int64_t> position(n, -1);
  for (auto [p, op] : llvm::enumerate(order)) {
    if (op >= n || position[op] >= 0)
      return false;
    position[op] = p;
  }
  for (unsigned op = 0; op < n; ++op)
    for (unsigned succ : succs[op])
      if (position[op] >= position[succ])
        return false;
  return true;
}

void ScheduleGraph::apply(ArrayRef<unsigned> order) const {
  Operation *terminator = ops.back();
  for (unsigned op : order)
    if (ops[op] != terminator)
      ops[op]->moveBefore(terminator);
}

//===----------------------------------------------------------------------===//
// List schedulers
//===----------------------------------------------------------------------===//

ScheduleCandidate
mlir::memopt::scheduleProgramOrder(const ScheduleGraph &graph) {
  ScheduleCandidate candidate;
  candidate.heuristic = "program";
  for (unsigned i = 0; i < graph.size(); ++i)
    candidate.order.push_back(i);
  candidate.load = graph.simulateLoad(candidate.order);
  return candidate;
}

namespace {

/// List scheduling over the ready ops. Tracks, per buffer, the users not
/// yet scheduled, and per ready op its net allocation: the bytes of the
/// buffers it defines minus the bytes of those it is the last user of.
class ListScheduler {
public:
  enum class Policy {
    /// Releasing ops (net <= 0) first, else program order.
    Eager,
    /// Lowest net first, program order on ties.
    Greedy,
  };

  ListScheduler(const ScheduleGraph &graph, Policy policy)
      : graph(graph), policy(policy) {}

  SmallVector<unsigned> run() {
    unsigned n = graph.size();
    SmallVector<unsigned> order;
    if (n == 0)
      return order;
    missingPreds.resize(n);
    scheduled.assign(n, false);
    for (const ScheduleGraph::BufferInfo &buffer : graph.getBuffers())
      remainingUsers.push_back(buffer.users.size());
    for (unsigned op = 0; op < n; ++op) {
      missingPreds[op] = graph.getPredecessors(op).size();
      if (missingPreds[op] == 0)
        makeReady(op);
    }
    while (!ready.empty()) {
      unsigned op = pick();
      order.push_back(op);
      scheduled[op] = true;
      removeReady(op);
      for (unsigned b : graph.getUsed(op))
        if (--remainingUsers[b] == 1)
          for (unsigned user : graph.getBuffers()[b].users)
            if (!scheduled[user] && isReady(user))
              updateNet(user);
      for (unsigned succ : graph.getSuccessors(op))
        if (--missingPreds[succ] == 0)
          makeReady(succ);
    }
    return order;
  }

private:
  bool isReady(unsigned op) const { return readyNet.count(op); }

  int64_t computeNet(unsigned op) const {
    int64_t bytes = 0;
    ArrayRef<ScheduleGraph::BufferInfo> buffers = graph.getBuffers();
    for (unsigned b : graph.getDefined(op))
      if (!buffers[b].users.empty())
        bytes += buffers[b].bytes;
    for (unsigned b : graph.getUsed(op))
      if (remainingUsers[b] == 1)
        bytes -= buffers[b].bytes;
    return bytes;
  }

  void makeReady(unsigned op) {
    int64_t value = computeNet(op);
    readyNet[op] = value;
    ready.insert({key(op, value), op});
  }

  void removeReady(unsigned op) {
    auto it = readyNet.find(op);
    ready.erase({key(op, it->second), op});
    readyNet.erase(it);
  }

  void updateNet(unsigned op) {
    removeReady(op);
    makeReady(op);
  }

  /// The sort key of a ready op: smaller runs first.
  int64_t key(unsigned op, int64_t value) const {
    if (policy == Policy::Greedy)
      return value;
    return value <= 0 ? 0 : 1;
  }

  unsigned pick() const { return ready.begin()->second; }

  const ScheduleGraph &graph;
  Policy policy;
  SmallVector<unsigned> missingPreds;
  SmallVector<bool> scheduled;
  SmallVector<int64_t> remainingUsers;
  llvm::DenseMap<unsigned, int64_t> readyNet;
  std::set<std::pair<int64_t, unsigned>> ready;
};

} // namespace

static ScheduleCandidate runListScheduler(const ScheduleGraph &graph,
                                          ListScheduler::Policy policy,
                                          StringRef name) {
  ScheduleCandidate candidate;
  candidate.heuristic = name.str();
  candidate.order = ListScheduler(graph, policy).run();
  candidate.load = graph.simulateLoad(candidate.order);
  return candidate;
}

ScheduleCandidate mlir::memopt::scheduleEager(const ScheduleGraph &graph) {
  return runListScheduler(graph, ListScheduler::Policy::Eager, "eager");
}

ScheduleCandidate mlir::memopt::scheduleGreedy(const ScheduleGraph &graph) {
  return runListScheduler(graph, ListScheduler::Policy::Greedy, "greedy");
}

ScheduleCandidate mlir::memopt::improveBySinking(const ScheduleGraph &graph,
                                                 const ScheduleCandidate &start,
                                                 unsigned maxMoves) {
  ScheduleCandidate best = start;
  best.heuristic = start.heuristic + "+sink";
  unsigned n = graph.size();
  if (n < 3)
    return start;
  ArrayRef<ScheduleGraph::BufferInfo> buffers = graph.getBuffers();
  for (unsigned move = 0; move < maxMoves; ++move) {
    SmallVector<unsigned> position(n);
    for (auto [p, op] : llvm::enumerate(best.order))
      position[op] = p;
    unsigned peak = graph.findPeakPoint(best.order);
    // Ops before the peak whose successors all run after it, by the bytes
    // they allocate (largest first, then program order).
    SmallVector<std::pair<int64_t, unsigned>> candidates;
    for (unsigned p = 0; p < peak; ++p) {
      unsigned op = best.order[p];
      int64_t bytes = 0;
      for (unsigned b : graph.getDefined(op))
        bytes += buffers[b].bytes;
      if (bytes == 0 ||
          llvm::any_of(graph.getSuccessors(op),
                       [&](unsigned succ) { return position[succ] <= peak; }))
        continue;
      candidates.push_back({-bytes, op});
    }
    llvm::sort(candidates);
    bool improved = false;
    // A few tries per move keep the search linear in the step's size.
    constexpr size_t kTriesPerMove = 8;
    if (candidates.size() > kTriesPerMove)
      candidates.resize(kTriesPerMove);
    for (auto [unused, op] : candidates) {
      unsigned first = n - 1;
      for (unsigned succ : graph.getSuccessors(op))
        first = std::min(first, position[succ]);
      // Move `op` from its place to right before its first successor.
      SmallVector<unsigned> order;
      order.reserve(n);
      for (unsigned p = 0; p < n; ++p) {
        if (p == first)
          order.push_back(op);
        if (best.order[p] != op)
          order.push_back(best.order[p]);
      }
      int64_t load = graph.simulateLoad(order);
      if (load < best.load) {
        best.order = std::move(order);
        best.load = load;
        improved = true;
        break;
      }
    }
    if (!improved)
      break;
  }
  return best.load < start.load ? best : start;
}

//===----------------------------------------------------------------------===//
// Exact
//===----------------------------------------------------------------------===//

std::optional<ScheduleCandidate>
mlir::memopt::scheduleExact(const ScheduleGraph &graph, unsigned maxOps) {
  unsigned n = graph.size();
  maxOps = std::min(maxOps, 24u);
  if (n == 0 || n > maxOps)
    return std::nullopt;
  using Mask = uint32_t;
  SmallVector<Mask> predMask(n, 0);
  for (unsigned op = 0; op < n; ++op)
    for (unsigned pred : graph.getPredecessors(op))
      predMask[op] |= Mask(1) << pred;
  ArrayRef<ScheduleGraph::BufferInfo> buffers = graph.getBuffers();
  SmallVector<Mask> userMask;
  for (const ScheduleGraph::BufferInfo &buffer : buffers) {
    Mask users = 0;
    for (unsigned user : buffer.users)
      users |= Mask(1) << user;
    userMask.push_back(users);
  }
  SmallVector<int64_t> alloc(n, 0);
  for (unsigned op = 0; op < n; ++op)
    for (unsigned b : graph.getDefined(op))
      alloc[op] += buffers[b].bytes;

  // best[S]: the lowest peak over the orders of the down-closed set S;
  // last[S]: the op such an order ends with.
  size_t states = size_t(1) << n;
  constexpr int64_t kUnreached = std::numeric_limits<int64_t>::max();
  std::vector<int64_t> best(states, kUnreached);
  std::vector<uint8_t> last(states, 0);
  best[0] = 0;
  for (size_t set = 0; set + 1 < states; ++set) {
    if (best[set] == kUnreached)
      continue;
    auto s = static_cast<Mask>(set);
    // Buffers live between points: defined (or arguments) and not yet past
    // their last user.
    int64_t live = graph.getPersistentBytes();
    for (auto [b, buffer] : llvm::enumerate(buffers)) {
      bool started = buffer.def < 0 || (s >> buffer.def) & 1;
      if (started && userMask[b] && (userMask[b] & ~s))
        live += buffer.bytes;
    }
    if (s == 0)
      live += graph.getUnusedArgumentBytes();
    for (unsigned op = 0; op < n; ++op) {
      if ((s >> op) & 1 || (predMask[op] & ~s))
        continue;
      int64_t peak =
          std::max(best[set], live + alloc[op] + graph.getWorkspace(op));
      size_t next = set | (size_t(1) << op);
      if (peak < best[next]) {
        best[next] = peak;
        last[next] = op;
      }
    }
  }
  ScheduleCandidate candidate;
  candidate.heuristic = "exact";
  candidate.order.resize(n);
  size_t set = states - 1;
  for (unsigned p = n; p-- > 0;) {
    candidate.order[p] = last[set];
    set &= ~(size_t(1) << last[set]);
  }
  candidate.load = graph.simulateLoad(candidate.order);
  return candidate;
}

/// The lowest LOAD of `candidates`, the first on ties.
static const ScheduleCandidate &
getLowest(ArrayRef<ScheduleCandidate> candidates) {
  const ScheduleCandidate *lowest = &candidates.front();
  for (const ScheduleCandidate &candidate : candidates)
    if (candidate.load < lowest->load)
      lowest = &candidate;
  return *lowest;
}

SmallVector<ScheduleCandidate>
mlir::memopt::proposeSchedules(const ScheduleGraph &graph, StringRef heuristic,
                               unsigned exactLimit) {
  bool all = heuristic == "best";
  SmallVector<ScheduleCandidate> candidates;
  candidates.push_back(scheduleProgramOrder(graph));
  if (all || heuristic == "eager")
    candidates.push_back(scheduleEager(graph));
  if (all || heuristic == "greedy")
    candidates.push_back(scheduleGreedy(graph));
  // The best proposal so far, improved by sinking (with `best`).
  if (all) {
    const ScheduleCandidate &lowest = getLowest(candidates);
    ScheduleCandidate sunk = improveBySinking(graph, lowest);
    if (sunk.load < lowest.load)
      candidates.push_back(std::move(sunk));
  }
  if (all || heuristic == "exact")
    if (std::optional<ScheduleCandidate> exact =
            scheduleExact(graph, exactLimit))
      candidates.push_back(std::move(*exact));
  return candidates;
}

const ScheduleCandidate &
mlir::memopt::pickSchedule(ArrayRef<ScheduleCandidate> candidates,
                           StringRef heuristic) {
  return heuristic == "best" ? getLowest(candidates) : candidates.back();
}
