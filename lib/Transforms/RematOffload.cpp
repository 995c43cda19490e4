//===- RematOffload.cpp - train-remat's third choice: host memory ---------===//
//
// An activation the backward pass reads may be kept on the device,
// recomputed, or offloaded: copied to host memory after its last forward
// read and back before its first backward read. This file rewrites a step
// so (applyOffloads), estimates the time of a step on a device with a host
// link (estimateStepTime: copies overlap with compute, an op waits for the
// copies it reads), and searches offloads on top of a remat candidate
// (addOffloads). Every candidate is measured exactly on a rewritten copy of
// the step, as the other strategies' are.
//
//===----------------------------------------------------------------------===//

#include "RematStrategiesInternal.h"

#include "memopt/Dialect/Train/IR/TrainInterfaces.h"
#include "memopt/Dialect/Train/IR/TrainOps.h"
#include "memopt/Transforms/Passes.h"
#include "memopt/Transforms/RematStrategies.h"

#include "mlir/IR/Builders.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/StringSwitch.h"

#include <cmath>
#include <numeric>

using namespace mlir;
using namespace mlir::memopt;
using namespace mlir::memopt::remat;
using train::TrainDialect;

//===----------------------------------------------------------------------===//
// Time
//===----------------------------------------------------------------------===//

double mlir::memopt::estimateOpSeconds(Operation *op,
                                       const autoplan::DeviceProfile &device) {
  auto cost = dyn_cast<train::CostOpInterface>(op);
  if (!cost || isa<train::ToHostOp, train::ToDeviceOp>(op))
    return 0;
  double flops = static_cast<double>(cost.getFlops());
  double rate = device.fp32Flops;
  // Matmuls, convolutions and attention run on tensor cores at their
  // operands' type (fp8 matmuls read fp8 operands).
  if (isa<train::MatmulOp, train::ScaledMatmulOp, train::AttentionOp,
          train::AttentionGradOp, train::Conv2dOp, train::Conv2dGradInputOp,
          train::Conv2dGradFilterOp>(op)) {
    Type elementType = getElementTypeOrSelf(op->getOperand(0).getType());
    double tensorRate = device.getTensorCoreFlops(elementType);
    if (tensorRate > 0)
      rate = tensorRate;
  }
  double bytes =
      static_cast<double>(cost.getBytesRead() + cost.getBytesWritten());
  return std::max(flops / rate, bytes / device.hbmBytesPerSecond);
}

StepTime mlir::memopt::estimateStepTime(func::FuncOp func,
                                        const OffloadCostModel &model) {
  StepTime time;
  double now = 0, outFree = 0, inFree = 0;
  // When a copy's (or a host op's) result is ready.
  llvm::DenseMap<Value, double> ready;
  auto readyAt = [&](Value value) { return ready.lookup_or(value, 0.0); };
  for (Operation &op : func.getBody().front()) {
    if (isa<train::ToHostOp, train::ToDeviceOp>(op)) {
      bool toHost = isa<train::ToHostOp>(op);
      double &linkFree = toHost ? outFree : inFree;
      double start = std::max({now, linkFree, readyAt(op.getOperand(0))});
      double seconds = train::getTensorBytes(op.getResult(0).getType()) /
                       model.linkBytesPerSecond;
      linkFree = start + seconds;
      ready[op.getResult(0)] = linkFree;
      continue;
    }
    double wait = 0;
    for (Value operand : op.getOperands())
      wait = std::max(wait, readyAt(operand));
    if (train::isHostOp(&op)) {
      // The host computes; the device goes on.
      for (Value result : op.getResults())
        ready[result] = wait;
      continue;
    }
    if (wait > now) {
      time.stallSeconds += wait - now;
      now = wait;
    }
    double seconds = estimateOpSeconds(&op, model.device);
    time.computeSeconds += seconds;
    now += seconds;
  }
  time.seconds = std::max({now, outFree, inFree});
  return time;
}

FailureOr<double> mlir::memopt::parseHostLink(StringRef link) {
  // One direction of an x16 link: PCIe Gen4 16 GT/s and Gen5 32 GT/s per
  // lane (about 32 and 64 GB/s), NVLink-C2C 900 GB/s both directions.
  double named = llvm::StringSwitch<double>(link)
                     .Case("pcie4", 3.2e10)
                     .Case("pcie5", 6.4e10)
                     .Case("nvlink-c2c", 4.5e11)
                     .Default(0);
  if (named > 0)
    return named;
  double number = 0;
  if (link.getAsDouble(number) || !std::isfinite(number) || number <= 0)
    return failure();
  return number;
}

//===----------------------------------------------------------------------===//
// The rewrite
//===----------------------------------------------------------------------===//

namespace {
/// Where a forward value is read: its last forward read and first backward
/// read (ops of the block), and whether it can be offloaded.
struct OffloadSpan {
  Operation *lastForward = nullptr;
  Operation *firstBackward = nullptr;
  bool offloadable = true;
};

/// The forward ops of `func` in program order (ForwardValueKey numbering).
SmallVector<Operation *> getForwardOps(func::FuncOp func,
                                       const TensorLiveness &liveness) {
  SmallVector<Operation *> ops;
  for (Operation &op : func.getBody().front())
    if (computesForward(liveness, &op))
      ops.push_back(&op);
  return ops;
}
} // namespace

/// The spans of the buffers of `liveness` defined by forward ops (by their
/// defining values), for those it can offload; see getOffloadable.
static llvm::DenseMap<Value, OffloadSpan>
getOffloadSpans(func::FuncOp func, const TensorLiveness &liveness) {
  llvm::DenseMap<Value, OffloadSpan> spans;
  for (const Buffer &buffer : liveness.getBuffers()) {
    Operation *def = buffer.value ? buffer.value.getDefiningOp() : nullptr;
    if (!def || buffer.host || buffer.persistent || buffer.returned ||
        buffer.bytes == 0 || !computesForward(liveness, def) ||
        train::isHostOp(def) || isa<train::ToHostOp, train::ToDeviceOp>(def))
      continue;
    spans[buffer.value].lastForward = def;
  }
  for (Operation &op : func.getBody().front()) {
    if (isa<train::FreeOp>(op) || liveness.isDeadView(&op))
      continue;
    bool forward = liveness.isForward(&op);
    for (Value operand : op.getOperands()) {
      const Buffer *buffer = liveness.lookup(operand);
      if (!buffer)
        continue;
      auto it = spans.find(buffer->value);
      if (it == spans.end())
        continue;
      OffloadSpan &span = it->second;
      if (forward) {
        span.lastForward = &op;
        // A backward read before a forward one: no place for the copy.
        if (span.firstBackward)
          span.offloadable = false;
        continue;
      }
      if (op.hasTrait<OpTrait::IsTerminator>())
        span.offloadable = false;
      if (operand != buffer->value) {
        // A backward read of a forward view would need the view taken
        // again; a backward view reads the value itself first.
        Operation *view = operand.getDefiningOp();
        if (!view || liveness.isForward(view))
          span.offloadable = false;
        continue;
      }
      if (!span.firstBackward)
        span.firstBackward = &op;
    }
  }
  for (auto &[value, span] : spans)
    if (!span.firstBackward ||
        span.lastForward->getNextNode() == span.firstBackward)
      span.offloadable = false;
  return spans;
}

SmallVector<ForwardValueKey>
mlir::memopt::getOffloadable(func::FuncOp func,
                             const TensorLiveness &liveness) {
  llvm::DenseMap<Value, OffloadSpan> spans = getOffloadSpans(func, liveness);
  SmallVector<ForwardValueKey> keys;
  for (auto [index, op] : llvm::enumerate(getForwardOps(func, liveness)))
    for (OpResult result : op->getResults())
      if (auto it = spans.find(result);
          it != spans.end() && it->second.offloadable)
        keys.push_back({static_cast<unsigned>(index),
                        static_cast<unsigned>(result.getResultNumber())});
  return keys;
}

/// The op before which the copy back of `bytes` bytes read first by
/// `firstBackward` starts: going back from it while the ops passed take less
/// than the copy by `model`, never before `toHost`'s next op.
static Operation *getPrefetchPoint(Operation *firstBackward, Operation *toHost,
                                   int64_t bytes,
                                   const OffloadCostModel &model) {
  double copySeconds = bytes / model.linkBytesPerSecond;
  double covered = 0;
  Operation *at = firstBackward;
  while (covered < copySeconds) {
    Operation *previous = at->getPrevNode();
    if (!previous || previous == toHost)
      break;
    at = previous;
    covered += estimateOpSeconds(at, model.device);
  }
  return at;
}

int64_t mlir::memopt::applyOffloads(func::FuncOp func,
                                    ArrayRef<ForwardValueKey> keys,
                                    const OffloadCostModel &model) {
  if (keys.empty())
    return 0;
  eraseFrees(func);
  TensorLiveness liveness(func);
  SmallVector<Operation *> forwardOps = getForwardOps(func, liveness);
  llvm::DenseMap<Value, OffloadSpan> spans = getOffloadSpans(func, liveness);
  int64_t bytes = 0;
  for (const ForwardValueKey &key : keys) {
    if (key.forwardOp >= forwardOps.size() ||
        key.result >= forwardOps[key.forwardOp]->getNumResults())
      continue;
    Value value = forwardOps[key.forwardOp]->getResult(key.result);
    auto it = spans.find(value);
    if (it == spans.end() || !it->second.offloadable)
      continue;
    OffloadSpan span = it->second;
    // Offloaded once.
    spans.erase(it);
    OpBuilder builder(span.lastForward->getContext());
    builder.setInsertionPointAfter(span.lastForward);
    auto toHost = train::ToHostOp::create(builder, value.getLoc(),
                                          value.getType(), value);
    toHost->setAttr(TrainDialect::kOffloadedAttrName, builder.getUnitAttr());
    int64_t size = train::getTensorBytes(value.getType());
    builder.setInsertionPoint(
        getPrefetchPoint(span.firstBackward, toHost, size, model));
    auto toDevice = train::ToDeviceOp::create(builder, value.getLoc(),
                                              value.getType(), toHost);
    toDevice->setAttr(TrainDialect::kOffloadedAttrName, builder.getUnitAttr());
    value.replaceUsesWithIf(toDevice, [&](OpOperand &use) {
      Operation *user = use.getOwner();
      return user != toHost && !liveness.isForward(user);
    });
    bytes += size;
  }
  makeLifetimesExplicit(func);
  return bytes;
}

//===----------------------------------------------------------------------===//
// The search
//===----------------------------------------------------------------------===//

namespace {
/// A plan: a base rewrite (a keep-set, or the base candidate's rewrite)
/// and the values offloaded after it.
struct OffloadPlan {
  std::optional<llvm::SmallBitVector> keep;
  SmallVector<ForwardValueKey> keys;
};

/// A plan measured, with the values it could offload next at its peak,
/// largest first.
struct MeasuredPlan {
  RematCandidate candidate;
  SmallVector<ForwardValueKey> atPeak;
};

class OffloadSearch {
public:
  OffloadSearch(func::FuncOp func, const RematCandidate &base,
                const OffloadCostModel &model)
      : func(func), base(base), model(model) {}

  std::optional<RematCandidate> run(std::optional<int64_t> limit);

private:
  /// The rewrite of `plan`, as a candidate's `apply`.
  std::function<int64_t(func::FuncOp)> makeApply(const OffloadPlan &plan) const;
  /// Applies `plan` to a copy of the step and measures it.
  MeasuredPlan measure(const OffloadPlan &plan) const;
  /// While over `limit`: offloads the value at the peak (of the first few)
  /// that lowers it most.
  void lowerPeak(OffloadPlan &plan, MeasuredPlan &current, int64_t limit) const;
  /// Trades recomputed activations of a keep-set for offloaded ones, largest
  /// first: while the step is over `limit`, those that lower its peak; then
  /// those that keep it within `limit` and make it faster.
  void tradeRecompute(OffloadPlan &plan, MeasuredPlan &current,
                      int64_t limit) const;

  mutable func::FuncOp func;
  const RematCandidate &base;
  const OffloadCostModel &model;
};
} // namespace

/// Offloads tried at each step of lowerPeak: the largest values at the peak.
static constexpr unsigned kPeakTries = 4;

std::function<int64_t(func::FuncOp)>
OffloadSearch::makeApply(const OffloadPlan &plan) const {
  return [keep = plan.keep, baseApply = base.apply, keys = plan.keys,
          model = model](func::FuncOp target) {
    int64_t flops = keep ? applyKeepSet(target, *keep) : baseApply(target);
    applyOffloads(target, keys, model);
    return flops;
  };
}

/// Fills in `candidate` what `copy`, the step it rewrote, measures: the
/// device's and the host's peaks (by `liveness`, of `copy`), the time by
/// `model`, and the activations offloaded.
static void measureRewritten(func::FuncOp copy, const TensorLiveness &liveness,
                             const OffloadCostModel &model,
                             RematCandidate &candidate) {
  candidate.peak = liveness.getLoad();
  candidate.hostPeak = liveness.getHostLoad();
  candidate.seconds = estimateStepTime(copy, model).seconds;
  candidate.numOffloaded = candidate.offloadedBytes = 0;
  copy.walk([&](train::ToHostOp op) {
    if (!op->hasAttr(TrainDialect::kOffloadedAttrName))
      return;
    ++candidate.numOffloaded;
    candidate.offloadedBytes += train::getTensorBytes(op.getType());
  });
}

RematCandidate
mlir::memopt::evaluateOffloadRewrite(func::FuncOp func, StringRef algorithm,
                                     std::function<int64_t(func::FuncOp)> apply,
                                     const OffloadCostModel &model) {
  func::FuncOp copy = func.clone();
  RematCandidate candidate;
  candidate.algorithm = algorithm.str();
  candidate.flops = apply(copy);
  candidate.apply = std::move(apply);
  measureRewritten(copy, TensorLiveness(copy), model, candidate);
  copy.erase();
  return candidate;
}

MeasuredPlan OffloadSearch::measure(const OffloadPlan &plan) const {
  MeasuredPlan measured;
  RematCandidate &candidate = measured.candidate;
  candidate.algorithm = base.algorithm;
  candidate.detail = base.detail;
  candidate.gap = base.gap;
  candidate.keep = plan.keep;
  candidate.offloaded = plan.keys;
  candidate.apply = makeApply(plan);
  func::FuncOp copy = func.clone();
  candidate.flops = candidate.apply(copy);
  TensorLiveness liveness(copy);
  measureRewritten(copy, liveness, model, candidate);
  // The values at the peak it may offload next, largest first.
  eraseFrees(copy);
  TensorLiveness withoutFrees(copy);
  SmallVector<ForwardValueKey> offloadable = getOffloadable(copy, withoutFrees);
  SmallVector<Operation *> forwardOps = getForwardOps(copy, withoutFrees);
  llvm::DenseMap<Value, ForwardValueKey> keyOf;
  for (const ForwardValueKey &key : offloadable)
    keyOf[forwardOps[key.forwardOp]->getResult(key.result)] = key;
  for (const Buffer *buffer : liveness.getLiveBuffers(liveness.getPeakPoint()))
    if (auto it = keyOf.find(buffer->value); it != keyOf.end())
      measured.atPeak.push_back(it->second);
  copy.erase();
  return measured;
}

void OffloadSearch::lowerPeak(OffloadPlan &plan, MeasuredPlan &current,
                              int64_t limit) const {
  while (current.candidate.peak > limit) {
    std::optional<std::pair<OffloadPlan, MeasuredPlan>> best;
    for (const ForwardValueKey &key :
         ArrayRef(current.atPeak).take_front(kPeakTries)) {
      OffloadPlan next = plan;
      next.keys.push_back(key);
      MeasuredPlan measured = measure(next);
      int64_t bestPeak =
          best ? best->second.candidate.peak : current.candidate.peak;
      if (measured.candidate.peak < bestPeak)
        best.emplace(std::move(next), std::move(measured));
    }
    if (!best)
      return;
    plan = std::move(best->first);
    current = std::move(best->second);
  }
}

void OffloadSearch::tradeRecompute(OffloadPlan &plan, MeasuredPlan &current,
                                   int64_t limit) const {
  func::FuncOp copy = func.clone();
  eraseFrees(copy);
  TensorLiveness liveness(copy);
  SmallVector<const Buffer *> activations = getActivations(liveness);
  SmallVector<Operation *> forwardOps = getForwardOps(copy, liveness);
  llvm::DenseMap<Operation *, unsigned> ordinal;
  for (auto [index, op] : llvm::enumerate(forwardOps))
    ordinal[op] = index;
  // The recomputed activations, largest first (ties: program order).
  SmallVector<std::pair<unsigned, int64_t>> recomputed;
  for (auto [index, buffer] : llvm::enumerate(activations))
    if (!plan.keep->test(index))
      recomputed.push_back({static_cast<unsigned>(index), buffer->bytes});
  llvm::stable_sort(recomputed,
                    [](auto a, auto b) { return a.second > b.second; });
  SmallVector<std::pair<unsigned, ForwardValueKey>> tries;
  for (auto [index, bytes] : recomputed) {
    Value value = activations[index]->value;
    Operation *def = value.getDefiningOp();
    if (!def || !ordinal.count(def))
      continue;
    tries.push_back(
        {index, {ordinal[def], cast<OpResult>(value).getResultNumber()}});
  }
  copy.erase();
  for (auto [index, key] : tries) {
    OffloadPlan next = plan;
    next.keep->set(index);
    next.keys.push_back(key);
    MeasuredPlan measured = measure(next);
    // Kept but not offloaded (a value getOffloadable refuses): not a trade.
    if (measured.candidate.numOffloaded <= current.candidate.numOffloaded ||
        measured.candidate.flops >= current.candidate.flops)
      continue;
    // Over the budget, a trade must lower the peak; within it, the time,
    // staying within.
    bool better =
        current.candidate.peak > limit
            ? measured.candidate.peak < current.candidate.peak
            : measured.candidate.peak <= limit &&
                  *measured.candidate.seconds < *current.candidate.seconds;
    if (!better)
      continue;
    plan = std::move(next);
    current = std::move(measured);
  }
}

std::optional<RematCandidate> OffloadSearch::run(std::optional<int64_t> limit) {
  if (!limit)
    return std::nullopt;
  OffloadPlan plan;
  plan.keep = base.keep;
  MeasuredPlan current = measure(plan);
  lowerPeak(plan, current, *limit);
  if (plan.keep) {
    // Still over: trading recomputation for copies may lower the peak
    // where no single copy at the peak does; then once more from there.
    tradeRecompute(plan, current, *limit);
    lowerPeak(plan, current, *limit);
  }
  if (plan.keys.empty())
    return std::nullopt;
  return std::move(current.candidate);
}

std::optional<RematCandidate>
mlir::memopt::addOffloads(func::FuncOp func, const RematCandidate &base,
                          std::optional<int64_t> limit,
                          const OffloadCostModel &model) {
  return OffloadSearch(func, base, model).run(limit);
}

//===----------------------------------------------------------------------===//
// Offloads for optimal's MILP
//===----------------------------------------------------------------------===//

GroupOffloads mlir::memopt::getGroupOffloads(func::FuncOp func,
                                             const StepGroups &groups,
                                             const OffloadCostModel &model) {
  GroupOffloads result;
  func::FuncOp copy = func.clone();
  eraseFrees(copy);
  SmallVector<Operation *> ops = getPlanOps(copy);
  TensorLiveness liveness(copy);
  llvm::DenseMap<Operation *, unsigned> ordinal, groupOf;
  for (auto [index, op] : llvm::enumerate(getForwardOps(copy, liveness)))
    ordinal[op] = index;
  for (auto [g, members] : llvm::enumerate(groups.members))
    for (unsigned index : members)
      groupOf[ops[index]] = g;
  llvm::DenseMap<Value, OffloadSpan> spans = getOffloadSpans(copy, liveness);
  // Each group's time by the roofline, and the step's FLOPs a second.
  SmallVector<double> groupSeconds;
  for (const SmallVector<unsigned> &members : groups.members) {
    double seconds = 0;
    for (unsigned index : members)
      seconds += estimateOpSeconds(ops[index], model.device);
    groupSeconds.push_back(seconds);
  }
  double stepSeconds =
      std::accumulate(groupSeconds.begin(), groupSeconds.end(), 0.0);
  double flopsPerSecond =
      stepSeconds > 0 ? groups.graph.baseCost() / stepSeconds : 0;
  for (auto [g, members] : llvm::enumerate(groups.members)) {
    if (!groups.forward[g])
      continue;
    // The values of g the backward pass reads that can be offloaded, and
    // the first backward group that reads one.
    SmallVector<ForwardValueKey> keys;
    int64_t bytes = 0;
    std::optional<unsigned> restore;
    for (unsigned index : members) {
      Operation *op = ops[index];
      for (OpResult result : op->getResults()) {
        auto it = spans.find(result);
        if (it == spans.end() || !it->second.firstBackward ||
            !it->second.offloadable || !ordinal.count(op))
          continue;
        auto group = groupOf.find(it->second.firstBackward);
        if (group == groupOf.end() || groups.forward[group->second])
          continue;
        keys.push_back({ordinal[op], result.getResultNumber()});
        bytes += train::getTensorBytes(result.getType());
        restore = std::min(restore.value_or(group->second), group->second);
      }
    }
    if (keys.empty())
      continue;
    int node = StepGroups::node(g);
    // The rest of the group stays on the device from after its last
    // forward reader.
    int lastForward = node;
    for (int user : groups.graph.users(node))
      if (user >= 1 && groups.forward[user - 1])
        lastForward = std::max(lastForward, user);
    // The time the copies are not hidden: the copy out and the copy back
    // (one after the other on the link) beyond the computation between the
    // group and the restore, as FLOPs at the step's rate. A copy is never
    // free: ties go to keeping.
    double copySeconds = 2.0 * bytes / model.linkBytesPerSecond;
    double between = std::accumulate(groupSeconds.begin() + g + 1,
                                     groupSeconds.begin() + *restore, 0.0);
    double exposed = std::max(0.0, copySeconds - between);
    RematOffloadOption option;
    option.node = node;
    option.restoreStage = StepGroups::node(*restore);
    option.cost = exposed * flopsPerSecond + 1.0;
    option.keptBytes =
        std::max<int64_t>(0, groups.graph.node(node).bytes - bytes);
    option.keptFrom = lastForward + 1;
    result.options.push_back(option);
    result.keys.push_back(std::move(keys));
  }
  copy.erase();
  return result;
}
