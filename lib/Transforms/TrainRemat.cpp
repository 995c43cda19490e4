//===- TrainRemat.cpp - recompute activations under a peak budget ---------===//
//
// train-remat decides which activations a step keeps (a keep-set over the
// activation buffers of TensorLiveness) and rewrites the step so that every
// other activation is recomputed right before its first backward use. The
// peak of a candidate is measured exactly: the step is cloned, rewritten and
// analyzed. Algorithms only differ in the keep-sets they propose.
//
//===----------------------------------------------------------------------===//

#include "memopt/Analysis/TensorLiveness.h"
#include "memopt/Dialect/Train/IR/TrainOps.h"
#include "memopt/Transforms/Passes.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/IRMapping.h"
#include "llvm/ADT/DenseSet.h"
#include "llvm/ADT/SmallBitVector.h"

#include <cmath>

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
/// The outcome of applying a keep-set.
struct Candidate {
  std::string algorithm;
  llvm::SmallBitVector keep;
  int64_t peak = 0;
  int64_t flops = 0;
};
} // namespace

/// Rewrites `func` so that the activations whose bit in `keep` is clear are
/// recomputed before their first backward use; places the frees anew.
/// Returns the FLOPs of the recomputed ops.
static int64_t applyKeepSet(func::FuncOp func,
                            const llvm::SmallBitVector &keep) {
  Block &block = func.getBody().front();
  removeMemoryPlan(func);
  for (Operation &op : llvm::make_early_inc_range(block))
    if (isa<train::FreeOp>(op))
      op.erase();
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

namespace {

struct TrainRematPass
    : public memopt::impl::TrainRematPassBase<TrainRematPass> {
  using Base::Base;

  void runOnOperation() override;

  /// Applies `keep` to a copy of the step and measures it.
  static Candidate evaluate(func::FuncOp func, StringRef algorithm,
                            llvm::SmallBitVector keep) {
    func::FuncOp copy = func.clone();
    Candidate candidate;
    candidate.algorithm = algorithm.str();
    candidate.flops = applyKeepSet(copy, keep);
    candidate.peak = TensorLiveness(copy).getLoad();
    candidate.keep = std::move(keep);
    copy.erase();
    return candidate;
  }
};

} // namespace

void TrainRematPass::runOnOperation() {
  func::FuncOp func = getOperation();
  if (func.isExternal())
    return;
  if (!func.getBody().hasOneBlock()) {
    func.emitOpError("expected a single-block training step (program order "
                     "is the schedule)");
    return signalPassFailure();
  }
  static constexpr StringLiteral kAlgorithms[] = {
      "auto", "none", "layers", "sqrt", "selective", "greedy"};
  if (!llvm::is_contained(kAlgorithms, StringRef(algorithm))) {
    mlir::emitError(func.getLoc())
        << "train-remat: unknown algorithm '" << algorithm
        << "'; expected one of auto, none, layers, sqrt, "
           "selective, greedy";
    return signalPassFailure();
  }
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
  // Greedy: drop activations by bytes per recompute FLOP, largest first;
  // the answer is the lowest-peak prefix reached when the running minimum
  // first meets the budget (so a smaller budget never gives a larger peak).
  auto greedy = [&]() -> Candidate {
    SmallVector<unsigned> order(n);
    for (unsigned i = 0; i < n; ++i)
      order[i] = i;
    auto ratio = [&](unsigned i) {
      Operation *def = activations[i]->value.getDefiningOp();
      int64_t flops = 0;
      if (auto cost = dyn_cast_or_null<train::CostOpInterface>(def))
        flops = cost.getFlops();
      return static_cast<double>(activations[i]->bytes) / (1.0 + flops);
    };
    llvm::stable_sort(
        order, [&](unsigned a, unsigned b) { return ratio(a) > ratio(b); });
    Candidate best = evaluate(func, "greedy", keepAll());
    llvm::SmallBitVector keep = keepAll();
    for (unsigned i = 0; i < n && (!limit || best.peak > *limit); ++i) {
      keep.reset(order[i]);
      Candidate next = evaluate(func, "greedy", keep);
      if (next.peak < best.peak)
        best = std::move(next);
    }
    return best;
  };

  SmallVector<Candidate> candidates;
  StringRef chosenAlgorithm = algorithm;
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
  (void)chosenAlgorithm;

  int64_t flops = applyKeepSet(func, chosen->keep);
  Builder builder(&getContext());
  func->setAttr(TrainDialect::kRematFlopsAttrName,
                builder.getI64IntegerAttr(flops));
  func->setAttr(TrainDialect::kRematPeakBeforeAttrName,
                builder.getI64IntegerAttr(peakBefore));
  func->setAttr(TrainDialect::kRematPeakAfterAttrName,
                builder.getI64IntegerAttr(TensorLiveness(func).getLoad()));
}
