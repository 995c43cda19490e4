//===- TensorLiveness.cpp - buffers, live ranges and live bytes -----------===//

#include "memopt/Analysis/TensorLiveness.h"

#include "mlir/Dialect/Shard/IR/ShardOps.h"

#include "memopt/Dialect/Train/IR/TrainOps.h"

#include "mlir/IR/Matchers.h"
#include "mlir/Interfaces/FunctionInterfaces.h"
#include "llvm/ADT/DenseSet.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/Support/MathExtras.h"

using namespace mlir;
using namespace mlir::memopt;

StringRef mlir::memopt::stringifyMemoryClass(MemoryClass cls) {
  switch (cls) {
  case MemoryClass::Parameter:
    return "parameter";
  case MemoryClass::Gradient:
    return "gradient";
  case MemoryClass::OptimizerState:
    return "optimizer_state";
  case MemoryClass::Activation:
    return "activation";
  case MemoryClass::Temporary:
    return "temporary";
  case MemoryClass::Input:
    return "input";
  }
  llvm_unreachable("unknown memory class");
}

/// A readable name for result `index` of `op` defined at `point`.
static std::string nameOf(Operation *op, unsigned index, int64_t point) {
  std::string base;
  if (auto param = dyn_cast<train::ParamOp>(op))
    return param.getName().str();
  if (auto state = dyn_cast<train::OptStateOp>(op))
    return state.getName().str();
  if (auto name = dyn_cast<NameLoc>(op->getLoc()))
    base = name.getName().str();
  else
    base = (op->getName().getStringRef() + "@" + Twine(point)).str();
  if (op->getNumResults() > 1)
    base += "#" + std::to_string(index);
  return base;
}

TensorLiveness::TensorLiveness(Operation *op, int64_t granularity) {
  assert(granularity > 0 && "granularity must be positive");
  Region &body = op->getRegion(0);
  if (body.empty())
    return;
  Block &block = body.front();
  for (Operation &child : block)
    schedule.push_back(&child);

  findForwardOps(block);
  findDeadViews();
  SmallVector<bool> usedByBackward;
  SmallVector<bool> consumedByOptimizer;
  collectBuffers(block, granularity, usedByBackward, consumedByOptimizer);
  classifyBuffers(usedByBackward, consumedByOptimizer);
  computeLiveBytes();
}

TensorLiveness::TensorLiveness(SmallVector<Buffer> recorded,
                               SmallVector<int64_t> pointWorkspace)
    : buffers(std::move(recorded)), workspace(std::move(pointWorkspace)) {
  for (const Buffer &buffer : buffers) {
    assert(buffer.start >= 0 && buffer.start <= buffer.end &&
           buffer.end < getNumPoints() && "a buffer outside the points");
    if (buffer.memoryClass == MemoryClass::Parameter ||
        buffer.memoryClass == MemoryClass::OptimizerState)
      persistentBytes += buffer.bytes;
  }
  hostWorkspace.assign(workspace.size(), 0);
  computeLiveBytes();
}

/// The stage of a pipelined step's function (`train.pipeline`), if `op` is
/// one, and whether its stages hold several model chunks (`virtual`).
static std::optional<std::pair<int64_t, bool>> getPipelineStage(Operation *op) {
  auto config = op ? op->getAttrOfType<DictionaryAttr>(
                         train::TrainDialect::kPipelineAttrName)
                   : DictionaryAttr();
  auto stage =
      config ? dyn_cast_or_null<IntegerAttr>(config.get("stage")) : nullptr;
  if (!stage)
    return std::nullopt;
  auto chunks = dyn_cast_or_null<IntegerAttr>(config.get("virtual"));
  return std::pair{stage.getInt(), chunks && chunks.getInt() > 1};
}

void TensorLiveness::findStageForwardOps(Block &block, int64_t stage,
                                         bool chunked) {
  pipelineStage = true;
  // Backward values: the ones received from a later stage and what depends
  // on them. A train.p2p is an exchange, not a computation: what it
  // receives does not depend on what it sends. With several chunks a stage
  // (the interleaved schedule) the peer does not tell the direction: the
  // last stage sends activations to the first; there train-pipeline's tags
  // do (odd for what goes backward, train.p2p's documentation).
  auto isBackward = [&](int64_t peer, int64_t tag) {
    return chunked ? tag % 2 == 1 : peer > stage;
  };
  llvm::DenseSet<Value> backward;
  SmallVector<Value> sinks;
  for (Operation &op : block) {
    if (auto p2p = dyn_cast<train::P2POp>(op)) {
      for (auto [value, peer, tag] : llvm::zip_equal(
               p2p.getReceived(), p2p.getRecvFrom(), p2p.getRecvTags()))
        if (isBackward(peer, tag))
          backward.insert(value);
      // What goes to a later stage (to a later chunk) is forward.
      for (auto [value, peer, tag] :
           llvm::zip_equal(p2p.getSends(), p2p.getSendTo(), p2p.getSendTags()))
        if (chunked ? tag % 2 == 0 : peer > stage)
          sinks.push_back(value);
      continue;
    }
    bool dependsOnBackward = false;
    op.walk([&](Operation *nested) {
      for (Value operand : nested->getOperands())
        dependsOnBackward |= backward.contains(operand);
    });
    if (dependsOnBackward)
      backward.insert(op.result_begin(), op.result_end());
  }
  // The loss, when the stage computes it (the last stage; the others
  // receive it from the last).
  Operation *terminator = block.getTerminator();
  if (terminator && terminator->getNumOperands() > 0) {
    auto lossType =
        dyn_cast<RankedTensorType>(terminator->getOperand(0).getType());
    if (lossType && lossType.getRank() == 0 &&
        isa<FloatType>(lossType.getElementType()))
      sinks.push_back(terminator->getOperand(0));
  }
  // Forward ops: those the sinks depend on through values that do not
  // depend on a later stage's (a tied weight's gradient, sent forward, is
  // not an activation).
  while (!sinks.empty()) {
    Value value = sinks.pop_back_val();
    Operation *def = value.getDefiningOp();
    if (backward.contains(value) || !def || def->getBlock() != &block)
      continue;
    if (isa<train::P2POp>(def)) {
      forwardReceived.insert(value);
      continue;
    }
    if (forward.insert(def).second)
      sinks.append(def->operand_begin(), def->operand_end());
  }
}

void TensorLiveness::findForwardOps(Block &block) {
  if (std::optional<std::pair<int64_t, bool>> stage =
          getPipelineStage(block.getParentOp()))
    return findStageForwardOps(block, stage->first, stage->second);
  // Forward ops: those the loss (the first returned value, when it is a 0-d
  // float tensor) depends on.
  Operation *terminator = block.getTerminator();
  if (terminator && terminator->getNumOperands() > 0) {
    auto lossType =
        dyn_cast<RankedTensorType>(terminator->getOperand(0).getType());
    if (lossType && lossType.getRank() == 0 &&
        isa<FloatType>(lossType.getElementType())) {
      SmallVector<Value> worklist = {terminator->getOperand(0)};
      while (!worklist.empty()) {
        Operation *def = worklist.pop_back_val().getDefiningOp();
        if (!def || def->getBlock() != &block || !forward.insert(def).second)
          continue;
        worklist.append(def->operand_begin(), def->operand_end());
      }
    }
  }
}

void TensorLiveness::findDeadViews() {
  // Views that nothing (but other dead views) reads: the lowering erases
  // them (a transpose or slice of a buffer is pure), so they do not keep
  // their source alive.
  for (Operation *child : llvm::reverse(schedule)) {
    auto aliasing = dyn_cast<train::AliasingOpInterface>(child);
    if (!aliasing || child->getNumResults() == 0)
      continue;
    bool dead = llvm::all_of(child->getResults(), [&](OpResult result) {
      return aliasing.getViewSource(result.getResultNumber()) &&
             llvm::all_of(result.getUsers(), [&](Operation *user) {
               return deadViews.contains(user);
             });
    });
    if (dead)
      deadViews.insert(child);
  }
}

void TensorLiveness::addBuffer(Value value, MemoryClass cls, int64_t start,
                               std::string name, int64_t granularity) {
  Buffer buffer;
  buffer.value = value;
  buffer.bytes = llvm::alignTo(train::getTensorBytes(value.getType()),
                               static_cast<uint64_t>(granularity));
  buffer.start = buffer.end = start;
  buffer.memoryClass = cls;
  buffer.name = std::move(name);
  buffer.host = train::getMemorySpace(value) == train::MemorySpace::Host;
  bufferOf[value] = buffers.size();
  buffers.push_back(std::move(buffer));
}

/// Whether `op`, a constant, has the type and value of a constant `seen`
/// holds already (then records it). The lowering keeps one global per
/// distinct value (bufferization's getGlobalFor reuses a global with the same
/// initial value), so only the first such constant's buffer counts bytes: a
/// Llama's layers each compute the same rotary tables, which the compiled
/// step holds once.
static bool
isDuplicateConstant(Operation *op,
                    llvm::DenseSet<std::pair<Type, Attribute>> &seen) {
  Attribute value;
  if (op->getNumResults() != 1 ||
      !isa<RankedTensorType>(op->getResult(0).getType()) ||
      !matchPattern(op, m_Constant(&value)) || !value)
    return false;
  // Attributes are uniqued: equal ones hold equal data.
  return !seen.insert({op->getResult(0).getType(), value}).second;
}

/// Whether `value` is the device copy of a parameter kept on the host
/// (train-offload): a train.to_device of a train.param, or of a cast of one.
static bool isParameterCopy(Value value) {
  auto copy = value.getDefiningOp<train::ToDeviceOp>();
  if (!copy)
    return false;
  Value source = copy.getInput();
  if (auto cast = source.getDefiningOp<train::CastOp>())
    source = cast.getInput();
  return source.getDefiningOp<train::ParamOp>() != nullptr;
}

void TensorLiveness::collectBuffers(
    Block &block, int64_t granularity, SmallVectorImpl<bool> &usedByBackward,
    SmallVectorImpl<bool> &consumedByOptimizer) {
  Operation *terminator = block.getTerminator();
  llvm::DenseSet<std::pair<Type, Attribute>> constants;
  auto newBuffer = [&](Value value, MemoryClass cls, int64_t start,
                       std::string name) {
    addBuffer(value, cls, start, std::move(name), granularity);
  };

  for (BlockArgument arg : block.getArguments())
    if (isa<RankedTensorType>(arg.getType()))
      newBuffer(arg, MemoryClass::Input, 0,
                "arg" + std::to_string(arg.getArgNumber()));

  for (auto [point, child] : llvm::enumerate(schedule)) {
    int64_t i = point;
    auto aliasing = dyn_cast<train::AliasingOpInterface>(child);
    // Uses extend the live range of the buffer they read.
    // In a pipeline stage, sending a value is not reading it for the
    // backward pass.
    bool isBackward =
        !forward.contains(child) &&
        !isa<train::FreeOp, train::ParamOp, train::OptStateOp>(child) &&
        child != terminator && !(pipelineStage && isa<train::P2POp>(child));
    bool isOptimizer = false;
    if (aliasing)
      for (unsigned k = 0, e = child->getNumOperands(); k < e; ++k)
        isOptimizer |= aliasing.isUpdatedInPlace(k);
    // Uses inside the op's regions count at the op's point.
    SmallVector<OpOperand *> uses;
    if (!deadViews.contains(child))
      child->walk([&](Operation *nested) {
        for (OpOperand &operand : nested->getOpOperands())
          uses.push_back(&operand);
      });
    for (OpOperand *use : uses) {
      OpOperand &operand = *use;
      auto it = bufferOf.find(operand.get());
      if (it == bufferOf.end())
        continue;
      Buffer &buffer = buffers[it->second];
      buffer.end = std::max(buffer.end, i);
      usedByBackward.resize(buffers.size(), false);
      consumedByOptimizer.resize(buffers.size(), false);
      if (isBackward)
        usedByBackward[it->second] = true;
      if (isOptimizer && operand.getOwner() == child &&
          !aliasing.isUpdatedInPlace(operand.getOperandNumber()))
        consumedByOptimizer[it->second] = true;
      if (isa<train::FreeOp>(child))
        buffer.freed = true;
      if (child == terminator)
        buffer.returned = true;
    }
    // Results: views share their source's buffer; the others are new.
    for (OpResult result : child->getResults()) {
      if (!isa<RankedTensorType>(result.getType()))
        continue;
      if (aliasing) {
        if (std::optional<unsigned> source =
                aliasing.getViewSource(result.getResultNumber())) {
          auto it = bufferOf.find(child->getOperand(*source));
          if (it != bufferOf.end()) {
            bufferOf[result] = it->second;
            continue;
          }
        }
      }
      MemoryClass cls = MemoryClass::Temporary;
      // Constants are data of the program (globals once lowered), read like
      // the step's inputs, not allocated by the step.
      if (child->hasTrait<OpTrait::ConstantLike>())
        cls = MemoryClass::Input;
      else if (isa<train::ParamOp>(child))
        cls = MemoryClass::Parameter;
      else if (isa<train::OptStateOp>(child))
        cls = train::isRefreshedCopy(child) ? MemoryClass::Parameter
                                            : MemoryClass::OptimizerState;
      newBuffer(result, cls, i, nameOf(child, result.getResultNumber(), i));
      if (cls == MemoryClass::Input && isDuplicateConstant(child, constants))
        buffers.back().bytes = 0;
    }
    // Each scratch buffer is a separate allocation, padded on its own.
    int64_t scratch = 0;
    if (auto cost = dyn_cast<train::CostOpInterface>(child))
      for (int64_t bytes : cost.getWorkspaceBuffers())
        scratch += llvm::alignTo(bytes, static_cast<uint64_t>(granularity));
    bool onHost = train::isHostOp(child);
    workspace.push_back(onHost ? 0 : scratch);
    hostWorkspace.push_back(onHost ? scratch : 0);
  }
  usedByBackward.resize(buffers.size(), false);
  consumedByOptimizer.resize(buffers.size(), false);
}

void TensorLiveness::classifyBuffers(ArrayRef<bool> usedByBackward,
                                     ArrayRef<bool> consumedByOptimizer) {
  // Classes and persistent ranges.
  int64_t last = static_cast<int64_t>(schedule.size()) - 1;
  for (auto [index, buffer] : llvm::enumerate(buffers)) {
    if (buffer.memoryClass == MemoryClass::Parameter ||
        buffer.memoryClass == MemoryClass::OptimizerState) {
      buffer.persistent = true;
      buffer.start = 0;
      buffer.end = last;
      (buffer.host ? hostPersistentBytes : persistentBytes) += buffer.bytes;
      continue;
    }
    if (buffer.memoryClass != MemoryClass::Temporary)
      continue;
    Operation *def = buffer.value.getDefiningOp();
    if (consumedByOptimizer[index])
      buffer.memoryClass = MemoryClass::Gradient;
    else if (isParameterCopy(buffer.value))
      buffer.memoryClass = MemoryClass::Parameter;
    else if (((def && forward.contains(def)) ||
              forwardReceived.contains(buffer.value)) &&
             usedByBackward[index])
      buffer.memoryClass = MemoryClass::Activation;
  }
  // A gradient copied to the host for an update there is a gradient on the
  // device too (its staging before the copy).
  for (Buffer &buffer : buffers)
    if (buffer.memoryClass == MemoryClass::Temporary &&
        llvm::any_of(buffer.value.getUsers(), [&](Operation *user) {
          auto it = isa<train::ToHostOp>(user)
                        ? bufferOf.find(user->getResult(0))
                        : bufferOf.end();
          return it != bufferOf.end() &&
                 buffers[it->second].memoryClass == MemoryClass::Gradient;
        }))
      buffer.memoryClass = MemoryClass::Gradient;
  if (!pipelineStage)
    return;
  // In a pipeline stage, the running sums of a parameter's gradient over the
  // micro-batches, and the parts that stages sharing a tied parameter
  // exchange, are gradients too (what .grad or Megatron-LM's main_grad
  // accumulates in): buffers summed, cast or reduced into one that is.
  for (Buffer &buffer : llvm::reverse(buffers)) {
    if (buffer.memoryClass != MemoryClass::Temporary)
      continue;
    bool summed = false, other = false;
    for (Operation *user : buffer.value.getUsers()) {
      if (isa<train::P2POp, train::FreeOp>(user))
        continue;
      if (!isa<train::AddOp, train::CastOp, shard::AllReduceOp,
               shard::ReduceScatterOp>(user)) {
        other = true;
        break;
      }
      auto it = bufferOf.find(user->getResult(0));
      summed |= it != bufferOf.end() &&
                buffers[it->second].memoryClass == MemoryClass::Gradient;
      other |= it == bufferOf.end() ||
               buffers[it->second].memoryClass != MemoryClass::Gradient;
    }
    if (summed && !other)
      buffer.memoryClass = MemoryClass::Gradient;
  }
}

namespace {
/// The live bytes of one memory space, per point and class.
struct SpaceTally {
  SmallVector<std::array<int64_t, kNumMemoryClasses>> delta;
  /// The buffers the step allocates (getTransientPeak).
  SmallVector<int64_t> transientDelta;
  explicit SpaceTally(int64_t numPoints)
      : delta(numPoints + 1, std::array<int64_t, kNumMemoryClasses>{}),
        transientDelta(numPoints + 1, 0) {}
  void add(const Buffer &buffer) {
    unsigned cls = static_cast<unsigned>(buffer.memoryClass);
    delta[buffer.start][cls] += buffer.bytes;
    delta[buffer.end + 1][cls] -= buffer.bytes;
    // What the step allocates: not the parameters and states (globals of
    // their own) nor inputs, but a parameter's copy on the device.
    bool stored = buffer.memoryClass == MemoryClass::Parameter ||
                  buffer.memoryClass == MemoryClass::OptimizerState ||
                  buffer.memoryClass == MemoryClass::Input;
    if (!stored || (buffer.memoryClass == MemoryClass::Parameter &&
                    buffer.value && !buffer.persistent)) {
      transientDelta[buffer.start] += buffer.bytes;
      transientDelta[buffer.end + 1] -= buffer.bytes;
    }
  }
  /// Fills the per-point totals and classes (`workspace` counts as
  /// temporary), the load and its first point, and the transient peak.
  void run(ArrayRef<int64_t> workspace,
           SmallVectorImpl<std::array<int64_t, kNumMemoryClasses>> &byClass,
           SmallVectorImpl<int64_t> &total, int64_t &load, int64_t &peakPoint,
           int64_t &transientPeak) const {
    std::array<int64_t, kNumMemoryClasses> running{};
    int64_t transient = 0;
    unsigned temporary = static_cast<unsigned>(MemoryClass::Temporary);
    for (int64_t i = 0, e = workspace.size(); i < e; ++i) {
      std::array<int64_t, kNumMemoryClasses> atPoint{};
      int64_t sum = 0;
      for (unsigned cls = 0; cls < kNumMemoryClasses; ++cls) {
        running[cls] += delta[i][cls];
        atPoint[cls] = running[cls];
        sum += atPoint[cls];
      }
      atPoint[temporary] += workspace[i];
      sum += workspace[i];
      byClass.push_back(atPoint);
      total.push_back(sum);
      if (sum > load) {
        load = sum;
        peakPoint = i;
      }
      transient += transientDelta[i];
      transientPeak = std::max(transientPeak, transient + workspace[i]);
    }
  }
};
} // namespace

void TensorLiveness::computeLiveBytes() {
  // Live bytes at every point: each buffer over [start, end] (a difference
  // array; a persistent buffer of the IR spans every point), plus the op's
  // workspace, in the buffer's memory space.
  int64_t numPoints = workspace.size();
  SpaceTally device(numPoints), host(numPoints);
  for (const Buffer &buffer : buffers) {
    (buffer.host ? host : device).add(buffer);
    hostBuffers |= buffer.host;
  }
  device.run(workspace, liveByClass, liveBytes, load, peakPoint, transientPeak);
  host.run(hostWorkspace, hostLiveByClass, hostLive, hostLoad, hostPeakPoint,
           hostTransientPeak);
  hostBuffers |= llvm::any_of(hostWorkspace, [](int64_t w) { return w; });
}

const Buffer *TensorLiveness::lookup(Value value) const {
  auto it = bufferOf.find(value);
  return it == bufferOf.end() ? nullptr : &buffers[it->second];
}

int64_t TensorLiveness::getTransientPeak() const { return transientPeak; }

SmallVector<const Buffer *>
TensorLiveness::getLiveBuffers(int64_t point) const {
  SmallVector<const Buffer *> live;
  for (const Buffer &buffer : buffers)
    if (!buffer.host && buffer.start <= point && point <= buffer.end)
      live.push_back(&buffer);
  llvm::stable_sort(live, [](const Buffer *a, const Buffer *b) {
    return a->bytes > b->bytes;
  });
  return live;
}

void TensorLiveness::print(raw_ostream &os) const {
  os << "buffers: " << buffers.size() << "\n";
  for (const Buffer &buffer : buffers) {
    os << "  " << buffer.name << ": " << buffer.bytes << " bytes, "
       << stringifyMemoryClass(buffer.memoryClass) << ", live [" << buffer.start
       << ", " << buffer.end << "]";
    if (buffer.persistent)
      os << ", persistent";
    if (buffer.freed)
      os << ", freed";
    if (buffer.returned)
      os << ", returned";
    if (buffer.host)
      os << ", host";
    if (buffer.bytes == 0 && buffer.value &&
        train::getTensorBytes(buffer.value.getType()) > 0)
      os << ", shares an identical constant's storage";
    os << "\n";
  }
  os << "points: " << schedule.size() << "\n";
  for (auto [i, op] : llvm::enumerate(schedule)) {
    os << "  " << i << " " << op->getName() << ": " << liveBytes[i];
    if (workspace[i])
      os << " (workspace " << workspace[i] << ")";
    os << "\n";
  }
  os << "persistent: " << persistentBytes << "\n";
  os << "load: " << load << " at point " << peakPoint << " ("
     << (schedule.empty() ? StringRef("none")
                          : schedule[peakPoint]->getName().getStringRef())
     << ")\n";
  if (schedule.empty())
    return;
  os << "by class at peak:";
  for (unsigned cls = 0; cls < kNumMemoryClasses; ++cls)
    os << " " << stringifyMemoryClass(static_cast<MemoryClass>(cls)) << "="
       << liveByClass[peakPoint][cls];
  os << "\n";
  if (!hostBuffers)
    return;
  os << "host persistent: " << hostPersistentBytes << "\n";
  os << "host load: " << hostLoad << " at point " << hostPeakPoint << " ("
     << schedule[hostPeakPoint]->getName().getStringRef() << ")\n";
  os << "host by class at peak:";
  for (unsigned cls = 0; cls < kNumMemoryClasses; ++cls)
    os << " " << stringifyMemoryClass(static_cast<MemoryClass>(cls)) << "="
       << hostLiveByClass[hostPeakPoint][cls];
  os << "\n";
}
