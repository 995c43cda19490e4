//===- RematKeepSets.cpp - train-remat's keep-set strategies --------------===//
//
// The keep-set family of train-remat: the rewrite by a keep-set over the
// step's activations (applyKeepSet), the values no keep-set recomputes
// (getNeverRecomputed), and the algorithms that choose a keep-set: sqrt,
// selective, and the greedy search, which evaluates keep-sets on a
// KeepSetModel and measures its answer by rewriting the IR.
//
//===----------------------------------------------------------------------===//

#include "RematStrategiesInternal.h"

#include "memopt/Dialect/Train/IR/TrainOps.h"
#include "memopt/Transforms/KeepSetModel.h"
#include "memopt/Transforms/Passes.h"
#include "memopt/Transforms/RematStrategies.h"

#include "mlir/IR/Builders.h"
#include "llvm/ADT/DenseSet.h"
#include "llvm/Support/FormatVariadic.h"

#include <cmath>

using namespace mlir;
using namespace mlir::memopt;
using namespace mlir::memopt::remat;
using train::TrainDialect;

//===----------------------------------------------------------------------===//
// Rewrites by a keep-set
//===----------------------------------------------------------------------===//

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

RematCandidate mlir::memopt::evaluateKeepSet(func::FuncOp func,
                                             StringRef algorithm,
                                             llvm::SmallBitVector keep) {
  RematCandidate candidate =
      evaluateRewrite(func, algorithm, [keep](func::FuncOp target) {
        return applyKeepSet(target, keep);
      });
  candidate.keep = std::move(keep);
  return candidate;
}

/// Whether `value` is a tensor of a float type narrower than 32 bits.
static bool isLowPrecision(Value value) {
  auto type = dyn_cast<RankedTensorType>(value.getType());
  auto element = type ? dyn_cast<FloatType>(type.getElementType()) : nullptr;
  return element && element.getWidth() < 32;
}

llvm::DenseSet<Value>
mlir::memopt::getNeverRecomputed(func::FuncOp func,
                                 const TensorLiveness &liveness) {
  llvm::DenseSet<Value> values;
  // Only the low-precision ones: an f32 boundary that is no activation (a
  // CNN's convolution output, read only by the ReLU of the next "layer"
  // where each op is its own layer) may be recomputed, or a ReLU output
  // could only be dropped by keeping its input, as large as itself.
  for (const Buffer *buffer : getLayerCheckpoints(liveness))
    if (buffer->memoryClass != MemoryClass::Activation &&
        isLowPrecision(buffer->value))
      values.insert(buffer->value);
  addStateReaders(func, liveness, values);
  return values;
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
  candidate.keep = state.keep;
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
