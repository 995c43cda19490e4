//===- KeepSetModel.cpp - a keep-set rewrite's peak, without rewriting ----===//
//
// Mirrors, step by step, what applyKeepSet does to the IR and what
// makeLifetimesExplicit and TensorLiveness then compute (the values of
// getNeverRecomputed are available, as there):
//
//  0. backward ops the schedule placed in the forward pass (views a weight
//     gradient takes of a forward value) that read values not available
//     move down to their first user that does not move;
//  1. the rewrite: walking the step in order, every operand of a backward op
//     (one that reads recomputed copies) that is not available is replaced
//     by a copy, created before the op from copies of its own operands that
//     are not available either, depth first; a copy serves every later
//     reader;
//  2. views that nothing but other such views reads are dropped;
//  3. each buffer is live from its definition to its last use (frees are
//     placed right behind the last use, and a free point never has more
//     live bytes than the op before it, so points between ops change
//     neither LOAD nor the first point where it occurs); parameters and
//     optimizer states always; each op adds its workspace.
//
// train-remat's `check-model` option compares every evaluation with the
// rewrite of the IR.
//
//===----------------------------------------------------------------------===//

#include "memopt/Transforms/KeepSetModel.h"

#include "RematStrategiesInternal.h"

#include "memopt/Analysis/RematGroups.h"
#include "memopt/Analysis/TensorLiveness.h"
#include "memopt/Dialect/Train/IR/TrainOps.h"
#include "memopt/Dialect/Train/IR/TrainStep.h"
#include "memopt/Transforms/RematStrategies.h"

#include "mlir/Interfaces/SideEffectInterfaces.h"
#include "llvm/ADT/DenseMap.h"

using namespace mlir;
using namespace mlir::memopt;

FailureOr<KeepSetModel> KeepSetModel::build(func::FuncOp func) {
  if (!func.getBody().hasOneBlock())
    return failure();
  Block &block = func.getBody().front();
  for (Operation &op : block)
    if (op.getNumRegions() != 0)
      return failure();

  // The classes and forward ops do not depend on frees (a free is neither
  // a forward nor a backward op), so the step's own analysis serves.
  TensorLiveness liveness(func);
  KeepSetModel model;
  llvm::DenseMap<const Buffer *, int32_t> activationIndex;
  for (auto [index, buffer] : llvm::enumerate(getActivations(liveness))) {
    activationIndex[buffer] = index;
    model.activationBytes.push_back(buffer->bytes);
  }

  llvm::DenseSet<Value> neverRecomputed = getNeverRecomputed(func, liveness);
  llvm::DenseMap<Value, int32_t> ids;
  auto addValue = [&](Value value, Operation *def, int32_t defIndex) {
    ids[value] = model.valueDef.size();
    model.valueDef.push_back(defIndex);
    auto type = dyn_cast<RankedTensorType>(value.getType());
    model.valueBytes.push_back(type ? train::getTensorBytes(type) : -1);
    const Buffer *buffer = liveness.lookup(value);
    model.valueRecomputable.push_back(def && buffer &&
                                      computesForward(liveness, def) &&
                                      !neverRecomputed.contains(buffer->value));
    model.valueActivation.push_back(
        buffer ? activationIndex.lookup_or(buffer, -1) : -1);
  };
  for (BlockArgument arg : block.getArguments())
    addValue(arg, nullptr, -1);

  Operation *terminator = block.getTerminator();
  for (Operation &op : block) {
    if (isa<train::FreeOp>(op))
      continue;
    int32_t index = model.opRole.size();
    Role role = Role::Backward;
    if (computesForward(liveness, &op))
      role = Role::Forward;
    else if (&op == terminator || isa<train::ParamOp, train::OptStateOp>(op) ||
             train::isInPlaceUpdate(&op))
      role = Role::Other;
    model.opRole.push_back(role);
    model.opPersistent.push_back(isa<train::ParamOp, train::OptStateOp>(op));

    model.operandBegin.push_back(model.operands.size());
    for (Value operand : op.getOperands()) {
      auto it = ids.find(operand);
      if (it == ids.end())
        return failure(); // defined outside the step's block
      model.operands.push_back(it->second);
    }
    model.resultBegin.push_back(model.results.size());
    auto aliasing = dyn_cast<train::AliasingOpInterface>(op);
    bool isView = aliasing && op.getNumResults() > 0;
    for (OpResult result : op.getResults()) {
      addValue(result, &op, index);
      model.results.push_back(ids[result]);
      std::optional<unsigned> source;
      if (aliasing)
        source = aliasing.getViewSource(result.getResultNumber());
      isView &= source.has_value();
      model.resultViewSource.push_back(source ? *source : -1);
    }
    model.opIsView.push_back(isView);

    int64_t workspace = 0;
    int64_t flops = 0;
    if (auto cost = dyn_cast<train::CostOpInterface>(op)) {
      for (int64_t bytes : cost.getWorkspaceBuffers())
        workspace += bytes;
      flops = cost.getFlops();
    }
    model.opWorkspace.push_back(workspace);
    model.opFlops.push_back(flops);
  }
  model.operandBegin.push_back(model.operands.size());
  model.resultBegin.push_back(model.results.size());

  // What sinking needs (sinkEarlyBackwardOps in RematStrategies.cpp).
  bool sinks = remat::sinksEarlyBackwardOps(func);
  int32_t lastForward = -1;
  for (auto [index, role] : llvm::enumerate(model.opRole))
    if (role == Role::Forward)
      lastForward = index;
  SmallVector<SmallVector<int32_t, 2>> usersOf(model.opRole.size());
  llvm::DenseMap<Operation *, Operation *> writers =
      remat::getFirstLaterWriters(func, liveness);
  llvm::DenseMap<Operation *, int32_t> indexOf;
  for (Operation &op : block)
    if (!isa<train::FreeOp>(op))
      indexOf.try_emplace(&op, indexOf.size());
  model.sinkLimit.assign(model.opRole.size(), -1);
  int32_t index = 0;
  for (Operation &op : block) {
    if (isa<train::FreeOp>(op))
      continue;
    if (Operation *writer = writers.lookup(&op))
      model.sinkLimit[index] = indexOf.lookup(writer);
    if (sinks && index < lastForward && model.opRole[index] == Role::Backward &&
        isMemoryEffectFree(&op))
      model.sinkable.push_back(index);
    for (uint32_t k = model.operandBegin[index];
         k < model.operandBegin[index + 1]; ++k)
      if (int32_t def = model.valueDef[model.operands[k]];
          def >= 0 && (usersOf[def].empty() || usersOf[def].back() != index))
        usersOf[def].push_back(index);
    ++index;
  }
  for (const SmallVector<int32_t, 2> &list : usersOf) {
    model.userBegin.push_back(model.users.size());
    model.users.append(list.begin(), list.end());
  }
  model.userBegin.push_back(model.users.size());
  return model;
}

namespace {
/// The rewritten op sequence of one evaluation.
struct Rewrite {
  /// An op of the rewritten step: a step op or a copy of one.
  struct Inst {
    uint32_t op;
    uint32_t operandBegin;
    uint32_t resultBegin;
    bool copy;
  };
  SmallVector<Inst> insts;
  SmallVector<int32_t> operands;
  SmallVector<int32_t> results;
  /// The step value each copied value copies (value id - number of values).
  SmallVector<int32_t> copyOf;
  /// The copy of each step value, or -1.
  SmallVector<int32_t> copies;
  int64_t flops = 0;
};
} // namespace

KeepSetModel::Outcome
KeepSetModel::evaluate(const llvm::SmallBitVector &keep) const {
  assert(keep.size() == getNumActivations() && "keep-set of another step");
  int32_t numValues = valueDef.size();
  int32_t numOps = opRole.size();
  auto available = [&](int32_t value) {
    if (!valueRecomputable[value])
      return true;
    int32_t activation = valueActivation[value];
    return activation >= 0 && keep.test(activation);
  };

  // 1. The rewrite.
  Rewrite rewrite;
  rewrite.copies.assign(numValues, -1);
  rewrite.insts.reserve(numOps);
  rewrite.operands.reserve(operands.size());
  rewrite.results.reserve(results.size());
  std::function<int32_t(int32_t)> materialize = [&](int32_t value) {
    if (available(value))
      return value;
    if (rewrite.copies[value] >= 0)
      return rewrite.copies[value];
    int32_t def = valueDef[value];
    SmallVector<int32_t, 4> mapped;
    for (uint32_t k = operandBegin[def]; k < operandBegin[def + 1]; ++k)
      mapped.push_back(materialize(operands[k]));
    rewrite.insts.push_back({static_cast<uint32_t>(def),
                             static_cast<uint32_t>(rewrite.operands.size()),
                             static_cast<uint32_t>(rewrite.results.size()),
                             /*copy=*/true});
    rewrite.operands.append(mapped.begin(), mapped.end());
    for (uint32_t k = resultBegin[def]; k < resultBegin[def + 1]; ++k) {
      int32_t copy = numValues + rewrite.copyOf.size();
      rewrite.copyOf.push_back(results[k]);
      rewrite.copies[results[k]] = copy;
      rewrite.results.push_back(copy);
    }
    rewrite.flops += opFlops[def];
    return rewrite.copies[value];
  };
  // 0. The sinking: the ops that move, each with its anchor (the op it
  // moves before), sorted by anchor and then program order.
  SmallVector<bool> early(numOps, false);
  SmallVector<int32_t> moving;
  for (int32_t op : sinkable) {
    for (uint32_t k = operandBegin[op]; k < operandBegin[op + 1]; ++k) {
      int32_t value = operands[k];
      int32_t def = valueDef[value];
      if (!available(value) || (def >= 0 && early[def])) {
        early[op] = true;
        moving.push_back(op);
        break;
      }
    }
  }
  SmallVector<int32_t> anchor(numOps, -1);
  for (int32_t op : llvm::reverse(moving)) {
    int32_t first = -1;
    for (uint32_t k = userBegin[op]; k < userBegin[op + 1]; ++k) {
      int32_t user = users[k];
      int32_t at = anchor[user] >= 0 ? anchor[user] : user;
      if (first < 0 || at < first)
        first = at;
    }
    if (first >= 0 && sinkLimit[op] >= 0 && sinkLimit[op] < first)
      first = sinkLimit[op];
    anchor[op] = first;
  }
  SmallVector<std::pair<int32_t, int32_t>> moved;
  for (int32_t op : moving)
    if (anchor[op] >= 0)
      moved.push_back({anchor[op], op});
  llvm::sort(moved);

  SmallVector<int32_t, 8> read;
  auto emit = [&](int32_t op) {
    read.assign(operands.begin() + operandBegin[op],
                operands.begin() + operandBegin[op + 1]);
    if (opRole[op] == Role::Backward)
      for (int32_t &value : read)
        if (!available(value))
          value = materialize(value);
    rewrite.insts.push_back({static_cast<uint32_t>(op),
                             static_cast<uint32_t>(rewrite.operands.size()),
                             static_cast<uint32_t>(rewrite.results.size()),
                             /*copy=*/false});
    rewrite.operands.append(read.begin(), read.end());
    rewrite.results.append(results.begin() + resultBegin[op],
                           results.begin() + resultBegin[op + 1]);
  };
  const auto *nextMoved = moved.begin();
  for (int32_t op = 0; op < numOps; ++op) {
    if (early[op] && anchor[op] >= 0)
      continue;
    for (; nextMoved != moved.end() && nextMoved->first == op; ++nextMoved)
      emit(nextMoved->second);
    emit(op);
  }
  int32_t totalValues = numValues + rewrite.copyOf.size();
  auto origin = [&](int32_t value) {
    return value < numValues ? value : rewrite.copyOf[value - numValues];
  };
  auto numOperands = [&](const Rewrite::Inst &inst) {
    return operandBegin[inst.op + 1] - operandBegin[inst.op];
  };
  auto numResults = [&](const Rewrite::Inst &inst) {
    return resultBegin[inst.op + 1] - resultBegin[inst.op];
  };

  // 2. Views nothing but such views reads (users come first in reverse).
  SmallVector<bool> hasReader(totalValues, false);
  SmallVector<bool> dead(rewrite.insts.size(), false);
  for (int64_t i = rewrite.insts.size() - 1; i >= 0; --i) {
    const Rewrite::Inst &inst = rewrite.insts[i];
    ArrayRef<int32_t> instResults(rewrite.results.data() + inst.resultBegin,
                                  numResults(inst));
    if (opIsView[inst.op] && llvm::none_of(instResults, [&](int32_t value) {
          return hasReader[value];
        })) {
      dead[i] = true;
      continue;
    }
    for (uint32_t k = 0, e = numOperands(inst); k < e; ++k)
      hasReader[rewrite.operands[inst.operandBegin + k]] = true;
  }

  // 3. Buffers, live ranges and live bytes.
  struct Range {
    int64_t start;
    int64_t end;
    int64_t bytes;
    int32_t activation;
  };
  SmallVector<Range> ranges;
  SmallVector<int32_t> bufferOf(totalValues, -1);
  int64_t persistentBytes = 0;
  for (int32_t value = 0; value < numValues; ++value)
    if (valueDef[value] < 0 && valueBytes[value] >= 0) {
      bufferOf[value] = ranges.size();
      ranges.push_back({0, 0, valueBytes[value], -1});
    }
  SmallVector<int64_t> workspace;
  workspace.reserve(rewrite.insts.size());
  int64_t point = 0;
  for (auto [i, inst] : llvm::enumerate(rewrite.insts)) {
    if (dead[i])
      continue;
    const int32_t *instOperands = rewrite.operands.data() + inst.operandBegin;
    for (uint32_t k = 0, e = numOperands(inst); k < e; ++k)
      if (int32_t buffer = bufferOf[instOperands[k]]; buffer >= 0)
        ranges[buffer].end = std::max(ranges[buffer].end, point);
    for (uint32_t k = 0, e = numResults(inst); k < e; ++k) {
      int32_t value = rewrite.results[inst.resultBegin + k];
      int64_t bytes = valueBytes[origin(value)];
      if (bytes < 0)
        continue;
      if (int32_t source = resultViewSource[resultBegin[inst.op] + k];
          source >= 0) {
        if (int32_t buffer = bufferOf[instOperands[source]]; buffer >= 0) {
          bufferOf[value] = buffer;
          continue;
        }
      }
      if (opPersistent[inst.op]) {
        persistentBytes += bytes;
        continue;
      }
      bufferOf[value] = ranges.size();
      ranges.push_back(
          {point, point, bytes, inst.copy ? -1 : valueActivation[value]});
    }
    workspace.push_back(opWorkspace[inst.op]);
    ++point;
  }
  int64_t numPoints = point;
  SmallVector<int64_t> delta(numPoints + 1, 0);
  for (const Range &range : ranges) {
    delta[range.start] += range.bytes;
    delta[range.end + 1] -= range.bytes;
  }
  Outcome outcome;
  outcome.flops = rewrite.flops;
  int64_t running = 0;
  int64_t peakPoint = 0;
  for (int64_t p = 0; p < numPoints; ++p) {
    running += delta[p];
    int64_t total = running + persistentBytes + workspace[p];
    if (total > outcome.peak) {
      outcome.peak = total;
      peakPoint = p;
    }
  }
  for (const Range &range : ranges)
    if (range.activation >= 0 && range.start <= peakPoint &&
        peakPoint <= range.end)
      outcome.liveAtPeak.push_back(range.activation);
  llvm::stable_sort(outcome.liveAtPeak, [&](unsigned a, unsigned b) {
    if (activationBytes[a] != activationBytes[b])
      return activationBytes[a] > activationBytes[b];
    return a < b;
  });
  return outcome;
}
