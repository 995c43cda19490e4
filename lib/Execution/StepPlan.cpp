//===- StepPlan.cpp - what a runtime needs to feed a step -----------------===//
//
// Picks the step, decides how its arguments are filled (the integer ones
// from what the ops using them require: IndexOperandsOpInterface), collects
// the parameters and optimizer states it reads and the memory model's
// predictions. Lowering.cpp adds the entry function and lowers the module.
//
//===----------------------------------------------------------------------===//

#include "memopt/Execution/StepPlan.h"

#include "mlir/Dialect/Shard/IR/ShardOps.h"

#include "memopt/Analysis/TensorLiveness.h"
#include "memopt/Conversion/Passes.h"
#include "memopt/Conversion/StepFunction.h"
#include "memopt/Dialect/Train/IR/TrainOps.h"
#include "memopt/Execution/Init.h"

#include "llvm/ADT/SmallPtrSet.h"
#include "llvm/ADT/StringMap.h"
#include "llvm/ADT/StringSet.h"
#include "llvm/Support/Format.h"
#include "llvm/Support/MathExtras.h"

#include <unistd.h>

using namespace mlir;
using namespace mlir::memopt;
using namespace mlir::memopt::execution;

Location execution::getExecutionLoc(MLIRContext *context) {
  return NameLoc::get(StringAttr::get(context, "memopt-execution"));
}

int64_t GlobalTensor::getByteSize() const {
  return type.getNumElements() * getStorageBytes(type.getElementType());
}

FailureOr<func::FuncOp> execution::findStep(ModuleOp module, StringRef name,
                                            StringRef source) {
  StepLookupOptions options;
  options.loc = getExecutionLoc(module.getContext());
  options.source = source;
  options.nameOption = "--func";
  return findStepFunction(module, name, options);
}

/// `type` if a global can hold it for the runtime to fill or read: a
/// statically shaped tensor of 8/16/32/64-bit floats or integers, or of i1.
static FailureOr<RankedTensorType> getStorableType(Type type, Location loc,
                                                   const Twine &what) {
  auto tensorType = dyn_cast<RankedTensorType>(type);
  if (tensorType && tensorType.hasStaticShape() && !tensorType.getEncoding() &&
      getStorageBytes(tensorType.getElementType()) != 0)
    return tensorType;
  emitError(loc) << "mem-run cannot feed or read " << what << " of type "
                 << type
                 << ": expected a statically shaped tensor of 8, 16, 32 or "
                    "64-bit floats or integers, or of i1";
  return failure();
}

/// Narrows `bound` to the values the integer tensor `value` (a step argument
/// or a view of one) may hold given how it is used, and notes whether it is
/// an optimizer's step count. What each op needs of its integer operands is
/// its IndexOperandsOpInterface.
static void inferIntegerRange(Value value, std::optional<uint64_t> &bound,
                              bool &isStep) {
  for (OpOperand &use : value.getUses()) {
    auto user = dyn_cast<train::IndexOperandsOpInterface>(use.getOwner());
    if (!user)
      continue;
    unsigned index = use.getOperandNumber();
    if (std::optional<int64_t> size = user.getIndexBound(index))
      if (*size > 0 && (!bound || *bound > static_cast<uint64_t>(*size)))
        bound = *size;
    isStep |= user.isStepCount(index);
    if (user.forwardsValues(index))
      for (Value result : user->getResults())
        inferIntegerRange(result, bound, isStep);
  }
}

/// Decides how the step argument `arg` is filled.
static FailureOr<StepArgument> planArgument(BlockArgument arg) {
  Location loc = arg.getLoc();
  unsigned index = arg.getArgNumber();
  FailureOr<RankedTensorType> type =
      getStorableType(arg.getType(), loc, "argument #" + Twine(index));
  if (failed(type))
    return failure();
  StepArgument plan;
  plan.tensor.name = ("arg" + Twine(index)).str();
  plan.tensor.symbol = getStepArgumentGlobalName(index);
  plan.tensor.type = *type;
  auto func = cast<func::FuncOp>(arg.getOwner()->getParentOp());
  if (auto split = func.getArgAttrOfType<DenseI64ArrayAttr>(
          index, train::TrainDialect::kSplitAttrName))
    plan.tensor.split.assign(split.asArrayRef().begin(),
                             split.asArrayRef().end());
  std::optional<uint64_t> bound;
  bool isStep = false;
  inferIntegerRange(arg, bound, isStep);
  if (isStep) {
    // train.adam/adamw accept a float step count too; it is the step
    // number all the same, never formula data.
    if (type->getRank() != 0) {
      emitError(loc) << "argument #" << index
                     << " is an optimizer step count but has shape " << *type
                     << "; expected a 0-d tensor";
      return failure();
    }
    plan.kind = ArgKind::StepNumber;
    return plan;
  }
  if (isa<FloatType>(type->getElementType()))
    return plan;
  // An argument a pipeline stage never reads (the inputs another stage
  // reads) holds zeros.
  if (!bound && arg.use_empty() &&
      func->hasAttr(train::TrainDialect::kPipelineAttrName))
    bound = 1;
  if (!bound) {
    emitError(loc) << "cannot infer the range of integer argument #" << index
                   << " (" << *type
                   << "): it is not used as embedding or embedding_grad ids, "
                      "cross_entropy labels or an optimizer step";
    return failure();
  }
  unsigned width = type->getElementTypeBitWidth();
  if (width < 64 && *bound > (uint64_t(1) << (width - 1))) {
    emitError(loc) << "integer argument #" << index << " (" << *type
                   << ") cannot hold indices up to " << *bound - 1;
    return failure();
  }
  plan.kind = ArgKind::Integer;
  plan.bound = *bound;
  return plan;
}

namespace {

/// Gathers the parameters and optimizer states a step reads, in order of
/// first appearance, following calls into other functions of the module.
class StateCollector {
public:
  StateCollector(ModuleOp module, StepPlan &plan)
      : module(module), plan(plan) {}

  LogicalResult collect(func::FuncOp func) {
    if (!visited.insert(func).second)
      return success();
    WalkResult walk = func.walk([&](Operation *op) {
      return failed(visit(op)) ? WalkResult::interrupt()
                               : WalkResult::advance();
    });
    return failure(walk.wasInterrupted());
  }

private:
  static void readSplit(Operation *op, GlobalTensor &tensor) {
    if (auto split = op->getAttrOfType<DenseI64ArrayAttr>(
            train::TrainDialect::kSplitAttrName))
      tensor.split.assign(split.asArrayRef().begin(), split.asArrayRef().end());
    if (auto extent = op->getAttrOfType<IntegerAttr>(
            train::TrainDialect::kSplitExtentAttrName))
      tensor.splitExtent = extent.getInt();
  }

  LogicalResult visit(Operation *op) {
    if (auto param = dyn_cast<train::ParamOp>(op)) {
      if (!seenParams.insert(param.getName()).second)
        return success();
      FailureOr<RankedTensorType> type = getStorableType(
          param.getType(), op->getLoc(), "parameter '" + param.getName() + "'");
      if (failed(type))
        return failure();
      bool storage = train::isQuantizedStorage(param.getResult());
      if (!storage && !isa<FloatType>(type->getElementType()))
        return op->emitError() << "mem-run initializes float parameters only";
      paramIndex[param.getName()] = plan.params.size();
      plan.params.push_back(
          {param.getName().str(), getParamGlobalName(param.getName()), *type});
      plan.params.back().host = train::isHostOp(op);
      readSplit(op, plan.params.back());
      if (storage && !plan.params.back().split.empty())
        return op->emitError() << "mem-run cannot fill the quantized storage '"
                               << param.getName() << "' split over processes";
      return success();
    }
    if (isa<train::DequantizeNF4Op, train::DequantizeInt8Op>(op))
      return addQuantizedWeight(op);
    if (auto state = dyn_cast<train::OptStateOp>(op)) {
      if (!seenStates.insert(state.getName()).second)
        return success();
      FailureOr<RankedTensorType> type =
          getStorableType(state.getType(), op->getLoc(),
                          "optimizer state '" + state.getName() + "'");
      if (failed(type))
        return failure();
      plan.states.push_back(
          {state.getName().str(), getStateGlobalName(state.getName()), *type});
      plan.states.back().host = train::isHostOp(op);
      readSplit(op, plan.states.back());
      return success();
    }
    if (isa<train::DropoutOp>(op)) {
      plan.hasSeed = true;
      return success();
    }
    if (auto call = dyn_cast<func::CallOp>(op))
      if (auto callee = module.lookupSymbol<func::FuncOp>(call.getCallee()))
        if (!callee.isExternal())
          return collect(callee);
    return success();
  }

  /// Records the weight the dequantize op `op` reads and marks its storage
  /// parameters (collected already: they are read before) as its.
  LogicalResult addQuantizedWeight(Operation *op) {
    QuantizedWeight weight;
    auto type = cast<RankedTensorType>(op->getResult(0).getType());
    weight.type = type.clone(Float32Type::get(op->getContext()));
    if (auto nf4 = dyn_cast<train::DequantizeNF4Op>(op)) {
      weight.name = nf4.getWeight().str();
      weight.block = static_cast<int64_t>(nf4.getBlock());
      weight.doubleQuant = nf4.isDoubleQuant();
    } else {
      auto int8 = cast<train::DequantizeInt8Op>(op);
      weight.name = int8.getWeight().str();
      weight.format = train::WeightFormat::Int8;
      weight.axis = static_cast<int64_t>(int8.getAxis());
    }
    for (Value operand : op->getOperands()) {
      auto param = operand.getDefiningOp<train::ParamOp>();
      if (!param || !paramIndex.count(param.getName()))
        return op->emitError() << "mem-run fills quantized storage read from "
                                  "train.params only";
      weight.parts.push_back(paramIndex[param.getName()]);
    }
    // The backward pass dequantizes the same storage again.
    for (QuantizedWeight &known : plan.quantizedWeights)
      if (known.parts == weight.parts && known.name == weight.name &&
          known.type == weight.type && known.format == weight.format &&
          known.block == weight.block && known.axis == weight.axis)
        return success();
    int index = static_cast<int>(plan.quantizedWeights.size());
    for (unsigned part : weight.parts) {
      GlobalTensor &param = plan.params[part];
      if (param.quantizedWeight >= 0)
        return op->emitError()
               << "mem-run: the quantized storage '" << param.name
               << "' is read as the weight '" << weight.name
               << "' here and as '"
               << plan.quantizedWeights[param.quantizedWeight].name
               << "' (or in another format) elsewhere";
      param.quantizedWeight = index;
    }
    plan.quantizedWeights.push_back(std::move(weight));
    return success();
  }

  ModuleOp module;
  StepPlan &plan;
  llvm::SmallPtrSet<Operation *, 4> visited;
  llvm::StringSet<> seenParams, seenStates;
  llvm::StringMap<unsigned> paramIndex;
};

} // namespace

/// The bytes of `values` (little-endian, as the globals hold them).
template <typename T> static std::string toBytes(ArrayRef<T> values) {
  return std::string(reinterpret_cast<const char *>(values.data()),
                     values.size() * sizeof(T));
}

SmallVector<std::string>
execution::getQuantizedStorageBytes(const QuantizedWeight &weight) {
  double amplitude = paramAmplitude(weight.name, weight.type);
  double phase = initPhase(weight.name);
  SmallVector<float> values;
  for (int64_t i = 0, e = weight.type.getNumElements(); i < e; ++i)
    values.push_back(static_cast<float>(initValue(amplitude, phase, i)));
  if (weight.format == train::WeightFormat::Int8) {
    train::Int8Storage storage =
        train::quantizeInt8(values, weight.type.getShape(), weight.axis);
    return {toBytes<int8_t>(storage.codes), toBytes<float>(storage.scales)};
  }
  train::NF4Storage storage =
      train::quantizeNF4(values, weight.block, weight.doubleQuant);
  if (!weight.doubleQuant)
    return {toBytes<uint8_t>(storage.codes), toBytes<float>(storage.absmax)};
  return {toBytes<uint8_t>(storage.codes),
          toBytes<uint8_t>(storage.absmaxCodes),
          toBytes<float>(storage.absmaxScales), toBytes<float>(storage.offset)};
}

void execution::printParamInit(llvm::raw_ostream &os, const StepPlan &plan,
                               const GlobalTensor &param) {
  auto printFormula = [&](StringRef name, RankedTensorType type) {
    os << "formula, amplitude "
       << llvm::format("%.9e", paramAmplitude(name, type)) << "\n";
  };
  if (param.quantizedWeight < 0)
    return printFormula(param.name, param.type);
  const QuantizedWeight &weight = plan.quantizedWeights[param.quantizedWeight];
  os << train::stringifyWeightFormat(weight.format);
  if (weight.format == train::WeightFormat::NF4)
    os << " (block " << weight.block
       << (weight.doubleQuant ? ", double quantization" : "") << ")";
  else
    os << " (axis " << weight.axis << ")";
  os << " storage of " << weight.name << ": " << weight.type << " = ";
  printFormula(weight.name, weight.type);
}

/// The memory model's predictions and the arena of a planned step.
static void predictMemory(StepPlan &plan) {
  func::FuncOp step = plan.step;
  // The model's peak of what the lowered step allocates: parameters, states
  // and inputs live in globals; every buffer is padded to the alignment.
  TensorLiveness padded(step, kCPUBufferAlignment);
  plan.predictedPeak = padded.getTransientPeak();
  TensorLiveness exact(step);
  plan.predictedPersistent = exact.getPersistentBytes();
  plan.hasHost = exact.hasHostBuffers();
  plan.predictedHostPeak = padded.getHostTransientPeak();
  plan.predictedHostPersistent = exact.getHostPersistentBytes();
  for (const Buffer &buffer : exact.getBuffers())
    if (buffer.memoryClass == MemoryClass::Input)
      plan.predictedInputs += buffer.bytes;
  // A planned step: each arena (the device's, and the host's with host
  // values) less its persistent region (globals), plus the returned buffers,
  // which the lowering allocates on their own (the caller frees each); -1
  // without one.
  auto allocated = [&](StringRef arenaName, StringRef persistentName,
                       bool host) -> int64_t {
    auto arena = step->getAttrOfType<IntegerAttr>(arenaName);
    if (!arena)
      return -1;
    int64_t persistent = 0;
    if (auto attr = step->getAttrOfType<IntegerAttr>(persistentName))
      persistent = attr.getInt();
    return arena.getInt() - persistent +
           getPlannedBytesOutsideArena(step, kCPUBufferAlignment, host);
  };
  plan.arenaBytes =
      allocated(train::TrainDialect::kArenaBytesAttrName,
                train::TrainDialect::kPersistentBytesAttrName, false);
  plan.hostArenaBytes =
      allocated(train::TrainDialect::kHostArenaBytesAttrName,
                train::TrainDialect::kHostPersistentBytesAttrName, true);
}

/// Records the shape of the step's grid: the one its `train.shard` names,
/// or the module's only `shard.grid`. Split tensors need one whose axes
/// their triples name.
static LogicalResult findGrid(ModuleOp module, StepPlan &plan) {
  shard::GridOp grid;
  if (auto config = plan.step->getAttrOfType<DictionaryAttr>(
          train::TrainDialect::kShardAttrName))
    if (auto name = dyn_cast_or_null<FlatSymbolRefAttr>(config.get("grid")))
      grid = module.lookupSymbol<shard::GridOp>(name.getAttr());
  if (!grid) {
    auto grids = module.getOps<shard::GridOp>();
    if (!grids.empty() && std::next(grids.begin()) == grids.end())
      grid = *grids.begin();
  }
  if (grid) {
    if (ShapedType::isDynamicShape(grid.getShape()))
      return grid.emitOpError("has a dynamic shape; a run needs a static grid");
    plan.gridShape.assign(grid.getShape().begin(), grid.getShape().end());
  }
  auto check = [&](const GlobalTensor &tensor) -> LogicalResult {
    for (size_t i = 0; i + 2 < tensor.split.size(); i += 3)
      if (tensor.split[i + 2] >= static_cast<int64_t>(plan.gridShape.size()))
        return emitError(plan.step.getLoc())
               << "'" << tensor.name << "' is split over grid axis "
               << tensor.split[i + 2] << ", but the step's grid has "
               << plan.gridShape.size() << " axes";
    // Padding ends the last part only: the extent is above the other
    // parts' elements.
    if (tensor.splitExtent) {
      size_t last = tensor.split.size() - 3;
      int64_t dim = tensor.split[last], blocks = tensor.split[last + 1];
      int64_t parts = plan.gridShape[tensor.split[last + 2]];
      int64_t held = tensor.type.getDimSize(dim) * parts;
      if (blocks != 1 || tensor.splitExtent > held ||
          tensor.splitExtent <= held - tensor.type.getDimSize(dim))
        return emitError(plan.step.getLoc())
               << "'" << tensor.name << "' has train.split_extent "
               << tensor.splitExtent << ", but its " << parts << " parts hold "
               << held << " elements of dimension " << dim
               << " in one block: only the last part may end with padding";
    }
    return success();
  };
  for (const StepArgument &arg : plan.arguments)
    if (failed(check(arg.tensor)))
      return failure();
  for (const GlobalTensor &tensor :
       llvm::concat<const GlobalTensor>(plan.params, plan.states))
    if (failed(check(tensor)))
      return failure();
  return success();
}

FailureOr<StepPlan> execution::planStep(ModuleOp module, func::FuncOp step) {
  StepPlan plan;
  plan.step = step;
  plan.stepName = step.getSymName().str();
  plan.context = module.getContext();
  for (BlockArgument arg : step.getArguments()) {
    FailureOr<StepArgument> argument = planArgument(arg);
    if (failed(argument))
      return failure();
    plan.arguments.push_back(std::move(*argument));
  }
  for (auto [index, type] : llvm::enumerate(step.getResultTypes())) {
    FailureOr<RankedTensorType> resultType =
        getStorableType(type, step.getLoc(), "result #" + Twine(index));
    if (failed(resultType))
      return failure();
    plan.results.push_back(
        {std::to_string(index), getStepResultGlobalName(index), *resultType});
  }

  StateCollector collector(module, plan);
  if (failed(collector.collect(step)))
    return failure();
  plan.hasSeed |= module.lookupSymbol(kSeedGlobalName) != nullptr;
  for (unsigned i = 0, e = step.getNumResults(); i < e; ++i) {
    auto gradOf = step.getResultAttrOfType<StringAttr>(
        i, train::TrainDialect::kGradOfAttrName);
    plan.resultGradOf.push_back(gradOf ? gradOf.str() : std::string());
  }
  if (failed(findGrid(module, plan)))
    return failure();
  // Gradient accumulation: the step is called once per micro-batch
  // (train-verify-step checks that its ops agree on their number).
  step.walk([&](train::MicroBatchAdvanceOp advance) {
    plan.microBatches = advance.getMicroBatches();
  });
  predictMemory(plan);
  return plan;
}

int64_t execution::getGridSize(const StepPlan &plan) {
  int64_t size = 1;
  for (int64_t extent : plan.gridShape)
    size *= extent;
  return size;
}

/// Whether triple `i` of `tensor`'s split is the last one and its parts end
/// with padding (`train.split_extent`).
static bool isPaddedTriple(const GlobalTensor &tensor, int64_t i) {
  return tensor.splitExtent &&
         i + 3 == static_cast<int64_t>(tensor.split.size());
}

RankedTensorType execution::getWholeType(const GlobalTensor &tensor,
                                         ArrayRef<int64_t> gridShape) {
  SmallVector<int64_t> shape(tensor.type.getShape());
  // Undone last to first: the padding of the last triple's parts first.
  for (int64_t i = tensor.split.size() - 3; i >= 0; i -= 3) {
    int64_t dim = tensor.split[i];
    shape[dim] *= gridShape[tensor.split[i + 2]];
    if (isPaddedTriple(tensor, i))
      shape[dim] = tensor.splitExtent;
  }
  return RankedTensorType::get(shape, tensor.type.getElementType());
}

int64_t execution::getWholeIndex(const GlobalTensor &tensor,
                                 ArrayRef<int64_t> gridShape, int64_t rank,
                                 int64_t index) {
  if (tensor.split.empty())
    return index;
  // The process's coordinates on the grid (last axis fastest).
  SmallVector<int64_t> coords(gridShape.size());
  for (int64_t axis = gridShape.size() - 1, r = rank; axis >= 0; --axis) {
    coords[axis] = r % gridShape[axis];
    r /= gridShape[axis];
  }
  // The element's coordinates in the part, then in the whole tensor: the
  // triples undone last to first.
  SmallVector<int64_t> shape(tensor.type.getShape());
  SmallVector<int64_t> position(shape.size());
  for (int64_t dim = shape.size() - 1, i = index; dim >= 0; --dim) {
    position[dim] = i % shape[dim];
    i /= shape[dim];
  }
  for (int64_t i = tensor.split.size() - 3; i >= 0; i -= 3) {
    int64_t dim = tensor.split[i], blocks = tensor.split[i + 1];
    int64_t parts = gridShape[tensor.split[i + 2]];
    int64_t width = shape[dim] / blocks;
    int64_t block = position[dim] / width, offset = position[dim] % width;
    position[dim] =
        (block * parts + coords[tensor.split[i + 2]]) * width + offset;
    shape[dim] *= parts;
    if (isPaddedTriple(tensor, i)) {
      if (position[dim] >= tensor.splitExtent)
        return -1;
      shape[dim] = tensor.splitExtent;
    }
  }
  int64_t whole = 0;
  for (size_t dim = 0; dim < shape.size(); ++dim)
    whole = whole * shape[dim] + position[dim];
  return whole;
}

LogicalResult execution::checkStepFits(const StepPlan &plan,
                                       MLIRContext *context) {
  uint64_t total = 0;
  auto add = [&](const GlobalTensor &tensor) {
    uint64_t bytes = getStorageBytes(tensor.type.getElementType());
    for (int64_t dim : tensor.type.getShape())
      bytes = llvm::SaturatingMultiply(bytes, static_cast<uint64_t>(dim));
    total = llvm::SaturatingAdd(total, bytes);
  };
  for (const StepArgument &arg : plan.arguments)
    add(arg.tensor);
  for (const GlobalTensor &tensor : plan.results)
    add(tensor);
  for (const GlobalTensor &tensor : plan.params)
    add(tensor);
  for (const GlobalTensor &tensor : plan.states)
    add(tensor);
  long pages = sysconf(_SC_PHYS_PAGES);
  long pageSize = sysconf(_SC_PAGE_SIZE);
  if (pages <= 0 || pageSize <= 0)
    return success();
  uint64_t memory = static_cast<uint64_t>(pages) * pageSize;
  // On the CPU both memories are this machine's.
  uint64_t allocated = static_cast<uint64_t>(
      (plan.arenaBytes >= 0 ? plan.arenaBytes : plan.predictedPeak) +
      (plan.hostArenaBytes >= 0 ? plan.hostArenaBytes
                                : plan.predictedHostPeak));
  if (llvm::SaturatingAdd(total, allocated) <= memory)
    return success();
  return emitError(getExecutionLoc(context))
         << "the step needs " << llvm::SaturatingAdd(total, allocated)
         << " bytes, more than this machine's memory (" << memory
         << " bytes): its parameters, optimizer states, arguments and "
            "results take "
         << total << " bytes and it allocates " << allocated
         << " bytes at its peak"
         << (plan.arenaBytes >= 0 ? " (its planned arena)" : "")
         << "; try a smaller batch, train-remat with a budget, or a "
            "machine with more memory";
}
