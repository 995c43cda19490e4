//===- MemoryReport.cpp - the memory report of a training step ------------===//
//
// The report model: the numbers of one training step, collected from the
// TensorLiveness analysis and from what passes recorded in the IR. The
// formats are printed by the writers (ReportWriters.h).
//
//===----------------------------------------------------------------------===//

#include "memopt/Report/MemoryReport.h"

#include "ReportFormatting.h"
#include "memopt/Analysis/StepMemoryPlan.h"
#include "memopt/Dialect/Train/IR/Precision.h"
#include "memopt/Dialect/Train/IR/Quantization.h"
#include "memopt/Dialect/Train/IR/TrainOps.h"
#include "memopt/Dialect/Train/IR/TrainStep.h"
#include "memopt/Report/ReportWriters.h"

#include "mlir/Dialect/Shard/IR/ShardOps.h"
#include "mlir/IR/SymbolTable.h"
#include "llvm/ADT/MapVector.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/SmallPtrSet.h"
#include "llvm/ADT/StringMap.h"
#include "llvm/ADT/StringSet.h"
#include "llvm/ADT/StringSwitch.h"
#include "llvm/ADT/TypeSwitch.h"

#include <algorithm>

using namespace mlir;
using namespace mlir::memopt;

std::optional<ReportFormat> mlir::memopt::parseReportFormat(StringRef name) {
  return llvm::StringSwitch<std::optional<ReportFormat>>(name)
      .Case("text", ReportFormat::Text)
      .Case("json", ReportFormat::JSON)
      .Case("html", ReportFormat::HTML)
      .Case("trace", ReportFormat::Trace)
      .Default(std::nullopt);
}

StringRef mlir::memopt::getReportFormatNames() {
  return "text, json, html, trace";
}

std::string mlir::memopt::formatLocation(Location loc) {
  if (auto name = dyn_cast<NameLoc>(loc))
    return name.getName().str();
  if (auto file = dyn_cast<FileLineColRange>(loc))
    return (file.getFilename().getValue() + ":" + Twine(file.getStartLine()) +
            ":" + Twine(file.getStartColumn()))
        .str();
  if (auto call = dyn_cast<CallSiteLoc>(loc))
    return formatLocation(call.getCallee());
  if (auto fused = dyn_cast<FusedLoc>(loc)) {
    for (Location part : fused.getLocations()) {
      std::string text = formatLocation(part);
      if (text != "unknown")
        return text;
    }
  }
  return "unknown";
}

/// The first file position in `loc`, looking through names, call sites (the
/// callee) and fused locations.
static std::optional<FileLineColRange> findFilePosition(Location loc) {
  if (auto file = dyn_cast<FileLineColRange>(loc))
    return file;
  if (auto name = dyn_cast<NameLoc>(loc))
    return findFilePosition(name.getChildLoc());
  if (auto call = dyn_cast<CallSiteLoc>(loc))
    return findFilePosition(call.getCallee());
  if (auto fused = dyn_cast<FusedLoc>(loc)) {
    for (Location part : fused.getLocations())
      if (std::optional<FileLineColRange> file = findFilePosition(part))
        return file;
  }
  return std::nullopt;
}

std::string mlir::memopt::formatSource(Operation *op) {
  std::optional<FileLineColRange> position = findFilePosition(op->getLoc());
  if (!position)
    return "";
  if (auto func = op->getParentOfType<FunctionOpInterface>()) {
    std::optional<FileLineColRange> funcPosition =
        findFilePosition(func->getLoc());
    if (funcPosition && funcPosition->getFilename() == position->getFilename())
      return "";
  }
  return (position->getFilename().getValue() + ":" +
          Twine(position->getStartLine()))
      .str();
}

int64_t ModelStates::getOtherBytes() const {
  int64_t bytes = 0;
  for (const auto &entry : otherStates)
    bytes += entry.second;
  return bytes;
}

SmallVector<std::pair<std::string, int64_t>> ModelStates::getRows() const {
  SmallVector<std::pair<std::string, int64_t>> rows = {
      {"weights", weightBytes}};
  if (frozenWeightBytes > 0)
    rows.push_back({"frozen weights", frozenWeightBytes});
  if (quantizedWeightBytes > 0)
    rows.push_back({"quantized weights", quantizedWeightBytes});
  if (adapterWeightBytes > 0)
    rows.push_back({"adapter weights", adapterWeightBytes});
  rows.append({{"master weights", masterWeightBytes},
               {"gradients", gradientBytes},
               {"optimizer states", optimizerStateBytes}});
  if (optimizerState8bitBytes > 0)
    rows.push_back({"optimizer states (8-bit)", optimizerState8bitBytes});
  if (fp8HistoryCount > 0)
    rows.push_back(
        {"fp8 amax histories (" + std::to_string(fp8HistoryCount) + ")",
         fp8ScalingBytes});
  for (const auto &[name, bytes] : otherStates)
    rows.push_back({"other: " + name, bytes});
  rows.push_back({"total", getTotalBytes()});
  return rows;
}

int64_t ModelStates::getTotalBytes() const {
  return weightBytes + frozenWeightBytes + quantizedWeightBytes +
         adapterWeightBytes + masterWeightBytes + gradientBytes +
         optimizerStateBytes + optimizerState8bitBytes + fp8ScalingBytes +
         getOtherBytes();
}

//===----------------------------------------------------------------------===//
// MemoryReport
//===----------------------------------------------------------------------===//

void MemoryReport::collectRemat(FunctionOpInterface func) {
  auto flops = func->getAttrOfType<IntegerAttr>(
      train::TrainDialect::kRematFlopsAttrName);
  if (!flops)
    return;
  RematSummary summary;
  summary.flops = flops.getInt();
  if (auto record = func->getAttrOfType<DictionaryAttr>(
          train::TrainDialect::kRematAttrName)) {
    if (auto algorithm =
            record.getAs<StringAttr>(train::TrainDialect::kRematAlgorithmKey))
      summary.algorithm = algorithm.getValue().str();
    if (auto budget =
            record.getAs<IntegerAttr>(train::TrainDialect::kRematBudgetKey))
      summary.budget = budget.getInt();
    if (auto gap = record.getAs<FloatAttr>(train::TrainDialect::kRematGapKey))
      summary.gap = gap.getValueAsDouble();
    if (auto link = record.getAs<FloatAttr>(train::TrainDialect::kRematLinkKey))
      summary.linkBytesPerSecond = link.getValueAsDouble();
    if (auto device =
            record.getAs<StringAttr>(train::TrainDialect::kRematDeviceKey))
      summary.device = device.getValue().str();
  }
  if (auto before = func->getAttrOfType<IntegerAttr>(
          train::TrainDialect::kRematPeakBeforeAttrName))
    summary.peakBefore = before.getInt();
  if (auto after = func->getAttrOfType<IntegerAttr>(
          train::TrainDialect::kRematPeakAfterAttrName))
    summary.peakAfter = after.getInt();
  func->walk([&](train::ToHostOp op) {
    if (!op->hasAttr(train::TrainDialect::kOffloadedAttrName))
      return;
    const Buffer *buffer = liveness->lookup(op.getResult());
    if (!buffer)
      return;
    summary.offloaded.push_back({buffer->name, buffer->bytes});
    summary.offloadedBytes += buffer->bytes;
  });
  func->walk([&](Operation *op) {
    if (!op->hasAttr(train::TrainDialect::kRecomputedAttrName))
      return;
    ++summary.numOps;
    StringRef name = op->getName().getStringRef();
    auto it = llvm::find_if(summary.opsByName, [&](const auto &entry) {
      return entry.first == name;
    });
    if (it == summary.opsByName.end())
      summary.opsByName.push_back({name.str(), 1});
    else
      ++it->second;
  });
  remat = std::move(summary);
}

LogicalResult MemoryReport::collectArena(FunctionOpInterface func,
                                         bool planArena) {
  if (auto arena = func->getAttrOfType<IntegerAttr>(
          train::TrainDialect::kArenaBytesAttrName)) {
    // Read, not planned again: the step runs on this plan.
    arenaFromIR = true;
    arenaBytes = arena.getInt();
    if (auto alignment = func->getAttrOfType<IntegerAttr>(
            train::TrainDialect::kPlanAlignmentAttrName))
      planAlignment = alignment.getInt();
    if (auto load = func->getAttrOfType<IntegerAttr>(
            train::TrainDialect::kLoadBytesAttrName))
      planLoadBytes = load.getInt();
    if (auto host = func->getAttrOfType<IntegerAttr>(
            train::TrainDialect::kHostArenaBytesAttrName))
      hostArenaBytes = host.getInt();
    return success();
  }
  if (!planArena)
    return success();
  StepPlanOptions options;
  for (PlanSpace space : {PlanSpace::Device, PlanSpace::Host}) {
    if (space == PlanSpace::Host && !liveness->hasHostBuffers())
      continue;
    llvm::Expected<StepMemoryPlan> plan =
        planStepMemory(*liveness, options, space);
    if (!plan)
      return func->emitOpError()
             << "cannot plan an arena: " << llvm::toString(plan.takeError());
    if (space == PlanSpace::Host)
      hostArenaBytes = plan->arenaBytes;
    else
      arenaBytes = plan->arenaBytes;
  }
  planAlignment = options.alignment;
  return success();
}

/// The float type of `type`'s elements, if it is a tensor of floats.
static FloatType getFloatElementType(Type type) {
  auto tensor = dyn_cast<RankedTensorType>(type);
  return tensor ? dyn_cast<FloatType>(tensor.getElementType()) : FloatType();
}

/// The low copy of `param`: its first `train.cast` to a narrower float type.
/// The narrower copies of `param` compute reads: its train.casts to a
/// narrower float type and its fp8 train.quantizes.
static void collectLowCopies(train::ParamOp param,
                             SmallVectorImpl<RankedTensorType> &copies) {
  FloatType wide = getFloatElementType(param.getType());
  if (!wide)
    return;
  for (Operation *user : param->getUsers()) {
    if (auto quantize = dyn_cast<train::QuantizeOp>(user)) {
      copies.push_back(quantize.getResult().getType());
      continue;
    }
    // The device's copy of a parameter kept on the host (train-offload),
    // per step (train.to_device) or across micro-batches (train.refresh).
    if (auto copy = dyn_cast<train::ToDeviceOp>(user)) {
      copies.push_back(cast<RankedTensorType>(copy.getType()));
      continue;
    }
    if (auto refresh = dyn_cast<train::RefreshOp>(user)) {
      copies.push_back(cast<RankedTensorType>(refresh.getCopy().getType()));
      continue;
    }
    auto cast = dyn_cast<train::CastOp>(user);
    if (!cast)
      continue;
    FloatType narrow = getFloatElementType(cast.getType());
    if (narrow && narrow.getWidth() < wide.getWidth())
      copies.push_back(cast.getType());
  }
}

/// Whether the persistent state `state` is an fp8 amax history.
static bool isAmaxHistory(train::OptStateOp state) {
  for (OpOperand &use : state->getUses()) {
    Operation *user = use.getOwner();
    if (isa<train::FP8ScaleOp, train::AmaxRecordOp>(user))
      return true;
    if (auto matmul = dyn_cast<train::ScaledMatmulOp>(user);
        matmul && matmul.getGradHistory() == use.get())
      return true;
  }
  return false;
}

std::optional<StringRef>
report::findStateOwner(StringRef stateName,
                       function_ref<bool(StringRef)> isParameter) {
  for (size_t dot = stateName.rfind('.'); dot != StringRef::npos && dot > 0;
       dot = stateName.rfind('.', dot)) {
    StringRef prefix = stateName.take_front(dot);
    if (isParameter(prefix))
      return prefix;
  }
  return std::nullopt;
}

bool report::isAdapterName(StringRef paramName) {
  SmallVector<StringRef> parts;
  paramName.split(parts, '.');
  return llvm::any_of(parts,
                      [](StringRef part) { return part.starts_with("lora_"); });
}

namespace {
/// One distinct parameter name (a tied parameter read twice is one tensor)
/// in the model states. Its weights are its low copy when any of its reads
/// has one.
struct ParamState {
  int64_t bytes = 0;
  int64_t weightBytes = 0;
  bool hasLowCopy = false;
  bool hasGradient = false;
  bool trainable = true;
  /// Quantized storage of a frozen weight (train-quantize-frozen).
  bool quantized = false;
  /// Kept in host memory (train-offload).
  bool host = false;
  llvm::SmallPtrSet<Type, 2> copyTypes;
};
using ParamStates = llvm::MapVector<StringRef, ParamState>;

/// ZeRO (train-shard): a partitioned parameter counts as the whole of its
/// data-parallel parts (the model's size per tensor-parallel rank, as
/// DeepSpeed's formulas count it). Under stages 1 and 2 compute reads the
/// gathered copy, which lives through the step: those are its weights, and
/// the part is its master. Under stage 1 its whole gradient lives until
/// the end of the backward pass.
struct ZeroConfig {
  int64_t dp = 1;
  int64_t zero = 0;

  explicit ZeroConfig(FunctionOpInterface func) {
    if (auto shard = func->getAttrOfType<DictionaryAttr>(
            train::TrainDialect::kShardAttrName)) {
      if (auto attr = dyn_cast_or_null<IntegerAttr>(shard.get("dp")))
        dp = attr.getInt();
      if (auto attr = dyn_cast_or_null<IntegerAttr>(shard.get("zero")))
        zero = attr.getInt();
    }
  }

  bool isPartitioned(train::ParamOp param) const {
    auto split = param->getAttrOfType<DenseI64ArrayAttr>(
        train::TrainDialect::kSplitAttrName);
    if (zero == 0 || dp <= 1 || !split)
      return false;
    ArrayRef<int64_t> triples = split.asArrayRef();
    for (size_t i = 0; i + 2 < triples.size(); i += 3)
      if (triples[i + 2] == 0)
        return true;
    return false;
  }
};
} // namespace

/// The weight a dequantize op (train-quantize-frozen) reads from quantized
/// storage, and its elements; nothing for another op.
static std::optional<std::pair<StringRef, int64_t>>
getQuantizedWeight(Operation *op) {
  return llvm::TypeSwitch<Operation *,
                          std::optional<std::pair<StringRef, int64_t>>>(op)
      .Case<train::DequantizeNF4Op, train::DequantizeInt8Op>([](auto dq) {
        return std::make_pair(
            dq.getWeight(),
            cast<RankedTensorType>(dq.getType()).getNumElements());
      })
      .Default([](Operation *) { return std::nullopt; });
}

/// Counts the read `param` of a parameter: its elements and bytes the first
/// time its name is read, and its low copies.
static void addParameter(train::ParamOp param, const ZeroConfig &config,
                         ParamStates &params, ModelStates &states) {
  int64_t dp = config.dp, zero = config.zero;
  bool partitioned = config.isPartitioned(param);
  int64_t wholeFactor = partitioned ? dp : 1;
  auto [it, inserted] = params.try_emplace(param.getName());
  ParamState &state = it->second;
  state.host |= train::isHostOp(param);
  if (inserted) {
    state.bytes = train::getTensorBytes(param.getType());
    state.weightBytes = state.bytes;
    state.quantized = train::isQuantizedStorage(param.getResult());
    if (partitioned && zero < 3) {
      state.weightBytes *= dp;
      state.hasLowCopy = true;
    }
    // Quantized storage counts as the weight it stores (countParameters).
    if (auto type = dyn_cast<RankedTensorType>(param.getType());
        type && type.hasStaticShape() && !state.quantized) {
      // A padded ZeRO part counts the parameter's own rows, not the
      // padding.
      int64_t count = type.getNumElements() * wholeFactor;
      if (auto extent = param->getAttrOfType<IntegerAttr>(
              train::TrainDialect::kSplitExtentAttrName);
          extent && partitioned && type.getDimSize(0) > 0)
        count = type.getNumElements() / type.getDimSize(0) * extent.getInt();
      states.parameterCount += count;
      if (param.getTrainable())
        states.trainableParameterCount += count;
    }
    state.trainable = param.getTrainable();
  }
  // One copy per element type, however many reads of the name make
  // one (a tied weight can have a bf16 and an fp8 copy).
  SmallVector<RankedTensorType> copies;
  collectLowCopies(param, copies);
  int64_t copyFactor = partitioned && zero < 3 ? dp : 1;
  for (RankedTensorType copy : copies) {
    if (!state.copyTypes.insert(copy.getElementType()).second)
      continue;
    if (!state.hasLowCopy || state.copyTypes.size() == 1)
      state.weightBytes = 0;
    state.hasLowCopy = true;
    state.weightBytes += train::getTensorBytes(copy) * copyFactor;
  }
}

/// The gradients: what each optimizer op of `updates` ((param, grad) pairs)
/// receives for its parameter, and for a parameter without an optimizer op
/// the function result marked as its gradient. A gradient-accumulation
/// buffer the update reads leaves `optStates`.
static void sumGradients(FunctionOpInterface func,
                         ArrayRef<std::pair<Value, Value>> updates,
                         const ZeroConfig &config, ParamStates &params,
                         llvm::MapVector<StringRef, int64_t> &optStates,
                         ModelStates &states) {
  for (auto [param, grad] : updates) {
    auto def = param.getDefiningOp<train::ParamOp>();
    // A gradient-accumulation buffer (train.accumulate's) holds the
    // gradient the update reads: a gradient, not an optimizer state, and of
    // the size the step holds.
    auto accumulator = grad.getDefiningOp<train::OptStateOp>();
    if (accumulator)
      optStates.erase(accumulator.getName());
    int64_t factor =
        !accumulator && config.zero == 1 && def && config.isPartitioned(def)
            ? config.dp
            : 1;
    states.gradientBytes += train::getTensorBytes(grad.getType()) * factor;
    // The host's copy is what the update reads: under ZeRO-1 the part,
    // where the device holds the whole gradient.
    if (train::getMemorySpace(grad) == train::MemorySpace::Host)
      states.hostGradientBytes += train::getTensorBytes(grad.getType());
    if (def) {
      auto it = params.find(def.getName());
      if (it != params.end())
        it->second.hasGradient = true;
    }
  }
  // Without an optimizer for a parameter: the result marked as its
  // gradient (train-autodiff without an optimizer).
  for (unsigned i = 0, e = func.getNumResults(); i < e; ++i) {
    auto of = func.getResultAttrOfType<StringAttr>(
        i, train::TrainDialect::kGradOfAttrName);
    if (!of)
      continue;
    auto it = params.find(of.getValue());
    if (it != params.end() && it->second.hasGradient)
      continue;
    states.gradientBytes += train::getTensorBytes(func.getResultTypes()[i]);
  }
}

LogicalResult MemoryReport::collectModelStates(FunctionOpInterface func) {
  ModelStates &states = modelStates;
  if (func->hasAttr(train::TrainDialect::kPrecisionAttrName)) {
    std::optional<train::PrecisionConfig> config =
        train::getPrecisionConfig(func);
    if (!config)
      return failure();
    states.precision = train::stringifyPrecisionMode(config->mode).str();
    if (config->lowPrecisionGradients)
      states.gradients =
          config->mode == train::PrecisionMode::FP16Mixed ? "fp16" : "bf16";
  }

  ParamStates params;
  llvm::MapVector<StringRef, int64_t> optStates;
  llvm::StringSet<> fp8Histories;
  // (param, grad) of each optimizer op.
  SmallVector<std::pair<Value, Value>> updates;
  // The states of the 8-bit updates.
  llvm::StringSet<> states8bit;
  ZeroConfig zeroConfig(func);
  llvm::StringSet<> quantized;
  // The optimizer states kept in host memory.
  llvm::StringSet<> hostStates;
  func->walk([&](Operation *op) {
    if (auto param = dyn_cast<train::ParamOp>(op))
      return addParameter(param, zeroConfig, params, states);
    if (std::optional<std::pair<StringRef, int64_t>> weight =
            getQuantizedWeight(op)) {
      if (quantized.insert(weight->first).second)
        states.parameterCount += weight->second;
      return;
    }
    if (auto state = dyn_cast<train::OptStateOp>(op)) {
      // A device copy of a host parameter (train.refresh) counts with the
      // weights, above.
      if (train::isRefreshedCopy(state))
        return;
      if (isAmaxHistory(state)) {
        if (fp8Histories.insert(state.getName()).second) {
          ++states.fp8HistoryCount;
          states.fp8ScalingBytes += train::getTensorBytes(state.getType());
        }
        return;
      }
      optStates.try_emplace(state.getName(),
                            train::getTensorBytes(state.getType()));
      if (train::isHostOp(state))
        hostStates.insert(state.getName());
      return;
    }
    llvm::TypeSwitch<Operation *>(op)
        .Case<train::AdamOp, train::AdamWOp, train::SgdOp>([&](auto update) {
          updates.push_back({update.getParam(), update.getGrad()});
        })
        .Case<train::Adam8bitOp, train::AdamW8bitOp>([&](auto update) {
          updates.push_back({update.getParam(), update.getGrad()});
          for (Value state : update->getOperands().slice(2, 4))
            states8bit.insert(
                state.template getDefiningOp<train::OptStateOp>().getName());
        });
  });
  sumGradients(func, updates, zeroConfig, params, optStates, states);

  for (const auto &[name, state] : params) {
    if (state.quantized)
      states.quantizedWeightBytes += state.weightBytes;
    else if (!state.trainable)
      states.frozenWeightBytes += state.weightBytes;
    else if (report::isAdapterName(name))
      states.adapterWeightBytes += state.weightBytes;
    else
      states.weightBytes += state.weightBytes;
    if (state.hasLowCopy)
      states.masterWeightBytes += state.bytes;
    if (state.host)
      states.hostMasterWeightBytes += state.bytes;
  }
  for (const auto &[name, bytes] : optStates) {
    if (hostStates.contains(name))
      states.hostOptimizerStateBytes += bytes;
    if (report::findStateOwner(
            name, [&](StringRef param) { return params.contains(param); }))
      (states8bit.contains(name) ? states.optimizerState8bitBytes
                                 : states.optimizerStateBytes) += bytes;
    else
      states.otherStates.push_back({name.str(), bytes});
  }
  states.hasHost = states.getHostBytes() > 0;
  if (states.hasHost) {
    // DeepSpeed's ZeRO-2 offload estimate (max(4 G, 16) is even, so the
    // 1.5 factor gives whole bytes).
    int64_t processes = std::max<int64_t>(zeroConfig.dp, 1);
    states.deepSpeedProcesses = processes;
    states.deepSpeedDeviceBytes = 2 * states.parameterCount;
    states.deepSpeedHostBytes =
        states.parameterCount * std::max<int64_t>(4 * processes, 16) * 3 / 2;
  }
  return success();
}

/// Whether `value` is a parameter converted by casts and fp8 quantizations
/// only (a low copy, or a conversion of one).
static bool isParameterCopy(Value value) {
  while (Operation *def = value.getDefiningOp()) {
    if (auto cast = dyn_cast<train::CastOp>(def))
      value = cast.getInput();
    else if (auto quantize = dyn_cast<train::QuantizeOp>(def))
      value = quantize.getInput();
    else
      break;
  }
  return value.getDefiningOp<train::ParamOp>() != nullptr;
}

void MemoryReport::collectSavedActivations() {
  SavedActivations &saved = savedActivations;
  ArrayRef<Operation *> schedule = liveness->getSchedule();
  if (schedule.empty())
    return;
  // The end of the forward pass: the op that defines the loss. A pipeline
  // stage has none: its micro-batches' passes interleave.
  Operation *terminator = schedule.back();
  if (terminator->getNumOperands() == 0 ||
      terminator->getParentOp()->hasAttr(
          train::TrainDialect::kPipelineAttrName))
    return;
  Value loss = terminator->getOperand(0);
  auto lossType = dyn_cast<RankedTensorType>(loss.getType());
  Operation *lossOp = loss.getDefiningOp();
  if (!lossType || lossType.getRank() != 0 ||
      !isa<FloatType>(lossType.getElementType()) || !lossOp ||
      lossOp->getBlock() != terminator->getBlock())
    return;
  saved.lossPoint = llvm::find(schedule, lossOp) - schedule.begin();
  int64_t lossPoint = *saved.lossPoint;

  llvm::MapVector<StringRef, LayerActivations> layers;
  LayerActivations other;
  other.layer = SavedActivations::kOtherLayer.str();
  for (const Buffer &buffer : liveness->getBuffers()) {
    if (buffer.memoryClass != MemoryClass::Activation ||
        buffer.start >= lossPoint || buffer.end <= lossPoint)
      continue;
    if (isParameterCopy(buffer.value)) {
      saved.parameterCopyBytes += buffer.bytes;
      ++saved.numParameterCopies;
      continue;
    }
    LayerActivations *group = &other;
    if (Operation *def = buffer.value.getDefiningOp())
      if (auto layer = def->getAttrOfType<StringAttr>(
              train::TrainDialect::kLayerAttrName)) {
        group = &layers[layer.getValue()];
        group->layer = layer.getValue().str();
      }
    group->bytes += buffer.bytes;
    ++group->numBuffers;
    saved.totalBytes += buffer.bytes;
    ++saved.numBuffers;
  }
  for (auto &entry : layers)
    saved.byLayer.push_back(std::move(entry.second));
  if (other.numBuffers > 0)
    saved.byLayer.push_back(std::move(other));
}

FailureOr<MemoryReport> MemoryReport::create(FunctionOpInterface func) {
  return create(func, /*planArena=*/true);
}

FailureOr<MemoryReport> MemoryReport::create(FunctionOpInterface func,
                                             bool planArena) {
  if (func.isExternal())
    return func->emitOpError("has no body; expected a training step");
  Region &body = func.getFunctionBody();
  if (!body.hasOneBlock())
    return func->emitOpError()
           << "is not a training step: its body has "
           << llvm::range_size(body.getBlocks())
           << " blocks, expected one (program order is the schedule)";
  if (failed(train::verifyNotLowered(func, "train-memory-report")))
    return failure();

  MemoryReport report;
  report.functionName = SymbolTable::getSymbolName(func).str();
  report.liveness = std::make_unique<TensorLiveness>(func);

  // Distinct parameters by name: a tied parameter read twice is one tensor.
  // A weight stored quantized counts its own elements, not its storage's.
  llvm::StringMap<bool> seen;
  func->walk([&](Operation *op) {
    if (auto cost = dyn_cast<train::CostOpInterface>(op))
      report.totalFlops += cost.getFlops();
    if (std::optional<std::pair<StringRef, int64_t>> weight =
            getQuantizedWeight(op))
      if (seen.try_emplace(weight->first, true).second)
        report.parameterCount += weight->second;
    auto param = dyn_cast<train::ParamOp>(op);
    if (!param || !seen.try_emplace(param.getName(), true).second)
      return;
    if (auto type = dyn_cast<RankedTensorType>(param.getType());
        type && type.hasStaticShape() &&
        !train::isQuantizedStorage(param.getResult()))
      report.parameterCount += type.getNumElements();
    report.parameterBytes += train::getTensorBytes(param.getType());
  });

  report.collectRemat(func);
  if (failed(report.collectCommunication(func)))
    return failure();
  if (failed(report.collectModelStates(func)))
    return failure();
  report.collectSavedActivations();
  if (failed(report.collectArena(func, planArena)))
    return failure();

  report.collectPeak();
  return report;
}

void MemoryReport::collectPeak() {
  int64_t peak = liveness->getPeakPoint();
  peakOpName = getPointOpName(peak).str();
  peakLocation = getPointLocation(peak);
  peakSource = getPointSource(peak);

  SmallVector<const Buffer *> live = liveness->getLiveBuffers(peak);
  numLiveAtPeak = live.size();
  for (const Buffer *buffer : llvm::make_range(
           live.begin(),
           live.begin() + std::min<size_t>(live.size(), kNumTopTensors))) {
    ReportTensor tensor;
    if (eagerTrace) {
      tensor = traceBufferOrigins[buffer - liveness->getBuffers().data()];
      if (tensor.location.empty())
        tensor.location = "unknown";
    } else if (Operation *def = buffer->value.getDefiningOp()) {
      tensor.opName = def->getName().getStringRef().str();
      tensor.location = formatLocation(def->getLoc());
      tensor.source = formatSource(def);
    } else {
      tensor.opName = "argument";
      tensor.location = formatLocation(buffer->value.getLoc());
    }
    tensor.buffer = buffer;
    topTensors.push_back(std::move(tensor));
  }
}

StringRef MemoryReport::getPointOpName(int64_t point) const {
  if (eagerTrace)
    return eagerTrace->points[point].op;
  return liveness->getSchedule()[point]->getName().getStringRef();
}

std::string MemoryReport::getPointLocation(int64_t point) const {
  if (eagerTrace) {
    const std::string &module = eagerTrace->points[point].module;
    return module.empty() ? "unknown" : module;
  }
  return formatLocation(liveness->getSchedule()[point]->getLoc());
}

std::string MemoryReport::getPointSource(int64_t point) const {
  if (eagerTrace)
    return eagerTrace->points[point].source;
  return formatSource(liveness->getSchedule()[point]);
}

StringRef MemoryReport::getPointPhase(int64_t point) const {
  return eagerTrace ? StringRef(eagerTrace->points[point].phase) : "";
}

int64_t Communication::getProcesses() const {
  int64_t processes = 1;
  for (int64_t extent : gridShape)
    processes *= extent;
  return processes;
}

LogicalResult MemoryReport::collectCommunication(FunctionOpInterface func) {
  // train-shard's grid names its axes.
  FlatSymbolRefAttr shardedGrid;
  if (auto config = func->getAttrOfType<DictionaryAttr>(
          train::TrainDialect::kShardAttrName))
    shardedGrid = dyn_cast_or_null<FlatSymbolRefAttr>(config.get("grid"));
  SmallVector<int16_t> tensorAxes = train::getTensorParallelAxes(func);
  Communication result;
  llvm::StringMap<size_t> rows;
  WalkResult walk = func->walk([&](Operation *op) -> WalkResult {
    if (!isa<shard::AllReduceOp, shard::AllGatherOp, shard::ReduceScatterOp>(
            op))
      return WalkResult::advance();
    auto gridAttr = op->getAttrOfType<FlatSymbolRefAttr>("grid");
    auto grid = gridAttr ? SymbolTable::lookupNearestSymbolFrom<shard::GridOp>(
                               op, gridAttr.getAttr())
                         : shard::GridOp();
    if (!grid || ShapedType::isDynamicShape(grid.getShape()))
      return op->emitOpError("has no shard.grid of static shape; the report "
                             "counts communication on static grids only");
    if (result.grid.empty()) {
      result.grid = grid.getSymName().str();
      result.gridShape.assign(grid.getShape().begin(), grid.getShape().end());
    } else if (result.grid != grid.getSymName()) {
      return op->emitOpError("is on grid @")
             << grid.getSymName() << ", but the step's collectives are on @"
             << result.grid << "; the report counts one grid";
    }
    std::string axes;
    int64_t groupSize = 1;
    ArrayRef<int16_t> gridAxes;
    if (auto attr = op->getAttrOfType<DenseI16ArrayAttr>("grid_axes"))
      gridAxes = attr.asArrayRef();
    bool named = shardedGrid && shardedGrid.getValue() == grid.getSymName();
    for (size_t i = 0; i < gridAxes.size(); ++i) {
      int16_t axis = gridAxes[i];
      groupSize *= grid.getShape()[axis];
      if (!axes.empty())
        axes += ",";
      if (!named || axis >= static_cast<int16_t>(1 + tensorAxes.size())) {
        axes += "axis " + std::to_string(axis);
      } else if (axis == 0) {
        axes += "dp";
      } else if (tensorAxes.size() == 1) {
        axes += "tp";
      } else if (axis == 1 && i + 1 < gridAxes.size() && gridAxes[i + 1] == 2) {
        // Replicated KV heads split the tensor-parallel axis in two.
        axes += "tp";
        groupSize *= grid.getShape()[2];
        ++i;
      } else {
        axes += axis == 1 ? "tp-kv" : "kv-replicas";
      }
    }
    StringRef kind = isa<shard::AllReduceOp>(op)   ? "all_reduce"
                     : isa<shard::AllGatherOp>(op) ? "all_gather"
                                                   : "reduce_scatter";
    // The larger side: an all-gather's result, a reduce-scatter's input.
    int64_t bytes = std::max(train::getTensorBytes(op->getOperand(0).getType()),
                             train::getTensorBytes(op->getResult(0).getType()));
    // A grid axis of size 0 (a grid the verifier accepts) sends nothing.
    int64_t sent = groupSize <= 0 ? 0
                                  : (isa<shard::AllReduceOp>(op) ? 2 : 1) *
                                        bytes * (groupSize - 1) / groupSize;
    auto [it, inserted] =
        rows.try_emplace((kind + "/" + axes).str(), result.collectives.size());
    if (inserted)
      result.collectives.push_back({kind.str(), axes, groupSize});
    CollectiveTraffic &row = result.collectives[it->second];
    ++row.count;
    row.tensorBytes += bytes;
    row.sentBytes += sent;
    result.totalSentBytes += sent;
    return WalkResult::advance();
  });
  if (walk.wasInterrupted() || failed(collectPointToPoint(func, result)))
    return failure();
  if (!result.collectives.empty())
    communication = std::move(result);
  return success();
}

void MemoryReport::print(raw_ostream &os, ReportFormat format) const {
  switch (format) {
  case ReportFormat::Text:
    return printTextReport(*this, os);
  case ReportFormat::JSON:
    return printJSONReport(*this, os);
  case ReportFormat::HTML:
    return printHTMLReport(*this, os);
  case ReportFormat::Trace:
    return printTraceReport(*this, os);
  }
}
