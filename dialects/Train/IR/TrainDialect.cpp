//===- TrainDialect.cpp - train dialect -----------------------------------===//

#include "memopt/Dialect/Train/IR/TrainDialect.h"
#include "memopt/Dialect/Train/IR/Precision.h"
#include "memopt/Dialect/Train/IR/TrainOps.h"

#include "mlir/Interfaces/FunctionInterfaces.h"

using namespace mlir;
using namespace mlir::memopt::train;

#include "memopt/Dialect/Train/IR/TrainDialect.cpp.inc"

void TrainDialect::initialize() {
  addOperations<
#define GET_OP_LIST
#include "memopt/Dialect/Train/IR/TrainOps.cpp.inc"
      >();
}

//===----------------------------------------------------------------------===//
// Discardable attributes
//===----------------------------------------------------------------------===//

/// A non-negative i64 attribute, or an error naming `name`.
static LogicalResult verifyByteCount(Operation *op, NamedAttribute attribute) {
  auto value = dyn_cast<IntegerAttr>(attribute.getValue());
  if (!value || !value.getType().isInteger(64))
    return op->emitError() << "'" << attribute.getName().strref()
                           << "' must be an i64 integer";
  if (value.getInt() < 0)
    return op->emitError() << "'" << attribute.getName().strref()
                           << "' must not be negative, got " << value.getInt();
  return success();
}

/// `train.remat`: `{algorithm = "<name>"[, budget = <i64 >= 0>][, gap =
/// <f64 >= 0>][, link = <f64 > 0>, device = "<name>"]}`.
static LogicalResult verifyRematRecord(Operation *op,
                                       NamedAttribute attribute) {
  StringRef name = attribute.getName().strref();
  auto record = dyn_cast<DictionaryAttr>(attribute.getValue());
  if (!record)
    return op->emitError() << "'" << name
                           << "' must be a dictionary {algorithm = \"<name>\", "
                              "budget = <i64>}";
  auto algorithm = record.getAs<StringAttr>(TrainDialect::kRematAlgorithmKey);
  if (!algorithm || algorithm.getValue().empty())
    return op->emitError() << "'" << name << "' must name its '"
                           << TrainDialect::kRematAlgorithmKey
                           << "' as a non-empty string";
  for (NamedAttribute entry : record) {
    StringRef key = entry.getName().strref();
    if (key == TrainDialect::kRematAlgorithmKey)
      continue;
    if (key == TrainDialect::kRematGapKey) {
      auto gap = dyn_cast<FloatAttr>(entry.getValue());
      if (!gap || !gap.getType().isF64() || !(gap.getValueAsDouble() >= 0.0))
        return op->emitError()
               << "'" << name << "' must have a non-negative f64 '" << key
               << "' (the solver's relative gap)";
      continue;
    }
    if (key == TrainDialect::kRematLinkKey) {
      auto link = dyn_cast<FloatAttr>(entry.getValue());
      if (!link || !link.getType().isF64() || !(link.getValueAsDouble() > 0.0))
        return op->emitError() << "'" << name << "' must have a positive f64 '"
                               << key << "' (the host link's bytes per second)";
      continue;
    }
    if (key == TrainDialect::kRematDeviceKey) {
      auto device = dyn_cast<StringAttr>(entry.getValue());
      if (!device || device.getValue().empty())
        return op->emitError() << "'" << name << "' must name its '" << key
                               << "' as a non-empty string";
      continue;
    }
    if (key != TrainDialect::kRematBudgetKey)
      return op->emitError()
             << "'" << name << "' has an unknown key '" << key << "'";
    auto budget = dyn_cast<IntegerAttr>(entry.getValue());
    if (!budget || !budget.getType().isInteger(64) || budget.getInt() < 0)
      return op->emitError()
             << "'" << name << "' must have a non-negative i64 '" << key
             << "' (bytes)";
  }
  return success();
}

/// Verifies train-schedule's record on a function: a dictionary of exactly
/// a non-empty string `heuristic` and non-negative i64 `load_before` and
/// `load_after`.
static LogicalResult verifyScheduleRecord(Operation *op,
                                          NamedAttribute attribute) {
  StringRef name = attribute.getName().strref();
  auto record = dyn_cast<DictionaryAttr>(attribute.getValue());
  auto heuristic = record ? record.getAs<StringAttr>("heuristic") : nullptr;
  auto isBytes = [&](StringRef key) {
    auto value = record.getAs<IntegerAttr>(key);
    return value && value.getType().isInteger(64) && value.getInt() >= 0;
  };
  if (!record || !isa<FunctionOpInterface>(op) || record.size() != 3 ||
      !heuristic || heuristic.getValue().empty() || !isBytes("load_before") ||
      !isBytes("load_after"))
    return op->emitError() << "'" << name
                           << "' must be a dictionary {heuristic = \"<name>\", "
                              "load_after = <i64>, load_before = <i64>} on a "
                              "function";
  return success();
}

/// Verifies a `train.split` attribute on a value of `type`: triples
/// (dim, blocks, axis) with dim a dimension of the tensor whose extent
/// `blocks` divides, and axis a grid axis.
static LogicalResult verifySplit(Operation *op, NamedAttribute attribute,
                                 Type type) {
  auto split = dyn_cast<DenseI64ArrayAttr>(attribute.getValue());
  // A tensor, or a memref once the step is bufferized.
  auto tensor = dyn_cast<ShapedType>(type);
  if (!split || split.size() == 0 || split.size() % 3 != 0 || !tensor ||
      !tensor.hasRank())
    return op->emitError() << "'" << attribute.getName().strref()
                           << "' must be an array<i64> of (dim, blocks, axis) "
                              "triples on a ranked tensor";
  ArrayRef<int64_t> values = split.asArrayRef();
  for (size_t i = 0; i < values.size(); i += 3) {
    int64_t dim = values[i], blocks = values[i + 1], axis = values[i + 2];
    if (dim < 0 || dim >= tensor.getRank() || blocks < 1 || axis < 0 ||
        tensor.isDynamicDim(dim) || tensor.getDimSize(dim) % blocks != 0)
      return op->emitError()
             << "'" << attribute.getName().strref() << "' triple (" << dim
             << ", " << blocks << ", " << axis << ") does not fit " << type;
  }
  return success();
}

/// Verifies train-pipeline's record on a stage's function.
static LogicalResult verifyPipelineAttribute(Operation *op,
                                             NamedAttribute attribute) {
  StringRef name = attribute.getName().strref();
  auto config = dyn_cast<DictionaryAttr>(attribute.getValue());
  if (!config || !isa<FunctionOpInterface>(op) ||
      !isa_and_nonnull<FlatSymbolRefAttr>(config.get("grid")) ||
      !isa_and_nonnull<StringAttr>(config.get("schedule")) ||
      !isa_and_nonnull<StringAttr>(config.get("step")) ||
      !isa_and_nonnull<ArrayAttr>(config.get("layers")))
    return op->emitError() << "'" << name
                           << "' must be a dictionary with a `grid` symbol, "
                              "a `schedule`, a `step` and `layers` on a "
                              "function";
  int64_t values[4];
  StringRef keys[4] = {"axis", "stage", "stages", "microbatches"};
  for (auto [key, value] : llvm::zip_equal(keys, values)) {
    auto attr = dyn_cast_or_null<IntegerAttr>(config.get(key));
    if (!attr || attr.getInt() < (key == "axis" || key == "stage" ? 0 : 1))
      return op->emitError()
             << "'" << name << "' must have an integer '" << key
             << "' of at least " << (key == "axis" || key == "stage" ? 0 : 1);
    value = attr.getInt();
  }
  if (values[1] >= values[2])
    return op->emitError() << "'" << name << "' has stage " << values[1]
                           << " of " << values[2] << " stages";
  return success();
}

LogicalResult TrainDialect::verifyOperationAttribute(Operation *op,
                                                     NamedAttribute attribute) {
  StringRef name = attribute.getName().strref();
  if (name == kOffsetAttrName) {
    auto offsets = dyn_cast<DenseI64ArrayAttr>(attribute.getValue());
    if (!offsets)
      return op->emitError() << "'" << name
                             << "' must be an array<i64> of one offset per "
                                "result";
    if (static_cast<int64_t>(offsets.size()) !=
        static_cast<int64_t>(op->getNumResults()))
      return op->emitError()
             << "'" << name << "' has " << offsets.size() << " offsets for "
             << op->getNumResults() << " results";
    for (int64_t offset : offsets.asArrayRef())
      if (offset < -1)
        return op->emitError() << "'" << name
                               << "' offsets must be >= 0 (or -1 for a result "
                                  "without storage), got "
                               << offset;
    return success();
  }
  if (name == kWorkspaceOffsetAttrName || name == kArenaBytesAttrName ||
      name == kLoadBytesAttrName || name == kPersistentBytesAttrName ||
      name == kHostArenaBytesAttrName || name == kHostLoadBytesAttrName ||
      name == kHostPersistentBytesAttrName || name == kRematFlopsAttrName ||
      name == kRematPeakBeforeAttrName || name == kRematPeakAfterAttrName)
    return verifyByteCount(op, attribute);
  if (name == kRecomputedAttrName) {
    if (!isa<UnitAttr>(attribute.getValue()))
      return op->emitError() << "'" << name << "' must be a unit attribute";
    return success();
  }
  if (name == kOffloadedAttrName) {
    if (!isa<UnitAttr>(attribute.getValue()) || !isa<ToHostOp, ToDeviceOp>(op))
      return op->emitError() << "'" << name
                             << "' must be a unit attribute on train.to_host "
                                "or train.to_device";
    return success();
  }
  if (name == kRematAttrName)
    return verifyRematRecord(op, attribute);
  if (name == kScheduleAttrName)
    return verifyScheduleRecord(op, attribute);
  if (name == kSpaceAttrName)
    return verifySpaceAttribute(op, attribute);
  if (name == kLayerAttrName) {
    auto layer = dyn_cast<StringAttr>(attribute.getValue());
    if (!layer || layer.getValue().empty())
      return op->emitError()
             << "'" << name << "' must be a non-empty string naming a layer";
    return success();
  }
  if (name == kPlanAlignmentAttrName) {
    if (failed(verifyByteCount(op, attribute)))
      return failure();
    int64_t alignment = cast<IntegerAttr>(attribute.getValue()).getInt();
    if (alignment == 0 || !llvm::isPowerOf2_64(alignment) ||
        alignment > kMaxPlanAlignment)
      return op->emitError()
             << "'" << name << "' must be a power of two of at most "
             << kMaxPlanAlignment << " (2 MiB), got " << alignment;
    return success();
  }
  if (name == kPrecisionAttrName) {
    auto config = dyn_cast<DictionaryAttr>(attribute.getValue());
    if (!config || !isa<FunctionOpInterface>(op))
      return op->emitError()
             << "'" << name << "' must be a dictionary on a function";
    return failure(failed(
        PrecisionConfig::fromAttr(config, [&] { return op->emitError(); })));
  }
  if (name == kSplitAttrName) {
    if (!isa<ParamOp, OptStateOp>(op))
      return op->emitError() << "'" << name
                             << "' belongs on a train.param, a train.opt_state "
                                "or a function argument";
    return verifySplit(op, attribute, op->getResult(0).getType());
  }
  if (name == kSplitExtentAttrName) {
    // The extent, in the tensor the last `train.split` triple splits, of
    // that triple's dimension, when the parts hold more (padding at the end
    // of the last part): ZeRO's parts of a dimension dp does not divide.
    auto extent = dyn_cast<IntegerAttr>(attribute.getValue());
    auto split = op->getAttrOfType<DenseI64ArrayAttr>(kSplitAttrName);
    if (!extent || extent.getInt() < 1 || !isa<ParamOp>(op) || !split ||
        split.size() < 3)
      return op->emitError() << "'" << name
                             << "' must be a positive integer on a "
                                "train.param with a train.split";
    return success();
  }
  if (name == kShardAttrName) {
    auto config = dyn_cast<DictionaryAttr>(attribute.getValue());
    if (!config || !isa<FunctionOpInterface>(op) ||
        !isa_and_nonnull<FlatSymbolRefAttr>(config.get("grid")))
      return op->emitError() << "'" << name
                             << "' must be a dictionary with a `grid` symbol "
                                "on a function";
    for (StringRef key : {"dp", "tp", "zero"}) {
      auto value = dyn_cast_or_null<IntegerAttr>(config.get(key));
      if (!value || value.getInt() < (key == "zero" ? 0 : 1))
        return op->emitError()
               << "'" << name << "' must have an integer '" << key
               << "' of at least " << (key == "zero" ? 0 : 1);
    }
    if (Attribute replicas = config.get("kv_replicas")) {
      auto value = dyn_cast<IntegerAttr>(replicas);
      if (!value || value.getInt() < 2)
        return op->emitError() << "'" << name
                               << "' must have an integer 'kv_replicas' of "
                                  "at least 2 when it has one";
    }
    if (Attribute sequence = config.get("sequence_parallel");
        sequence && !isa<UnitAttr>(sequence))
      return op->emitError() << "'" << name
                             << "' must have a unit 'sequence_parallel' "
                                "when it has one";
    return success();
  }
  if (name == kPipelineAttrName)
    return verifyPipelineAttribute(op, attribute);
  return op->emitError() << "unknown train attribute '" << name << "'";
}

LogicalResult TrainDialect::verifyRegionArgAttribute(Operation *op, unsigned,
                                                     unsigned argIndex,
                                                     NamedAttribute attribute) {
  StringRef name = attribute.getName().strref();
  if (name == kStepAttrName) {
    if (!isa<UnitAttr>(attribute.getValue()))
      return op->emitError() << "'" << name << "' on argument " << argIndex
                             << " must be a unit attribute";
    auto function = dyn_cast<FunctionOpInterface>(op);
    if (!function)
      return op->emitError() << "'" << name << "' on argument " << argIndex
                             << " must be on a function argument";
    // A tensor, or a memref once the step is bufferized.
    auto type = dyn_cast<ShapedType>(function.getArgumentTypes()[argIndex]);
    if (!type || !type.hasRank() || type.getRank() != 0 ||
        !isa<IntegerType, FloatType>(type.getElementType()))
      return op->emitError() << "'" << name << "' on argument " << argIndex
                             << " must mark a 0-d integer or float tensor, got "
                             << function.getArgumentTypes()[argIndex];
    // Report a second marker once, on the later argument.
    for (unsigned i = 0; i < argIndex; ++i)
      if (function.getArgAttr(i, kStepAttrName))
        return op->emitError()
               << "'" << name << "' on arguments " << i << " and " << argIndex
               << ": a step has one step counter";
    return success();
  }
  if (name == kOffsetAttrName)
    return verifyByteCount(op, attribute);
  if (name == kSplitAttrName) {
    auto function = dyn_cast<FunctionOpInterface>(op);
    if (!function)
      return op->emitError() << "'" << name << "' on argument " << argIndex
                             << " must be on a function argument";
    return verifySplit(op, attribute, function.getArgumentTypes()[argIndex]);
  }
  return op->emitError() << "unknown train attribute '" << name
                         << "' on argument " << argIndex;
}

LogicalResult TrainDialect::verifyRegionResultAttribute(
    Operation *op, unsigned, unsigned resultIndex, NamedAttribute attribute) {
  StringRef name = attribute.getName().strref();
  if (name == kGradOfAttrName) {
    auto param = dyn_cast<StringAttr>(attribute.getValue());
    if (!param || param.getValue().empty())
      return op->emitError() << "'" << name << "' on result " << resultIndex
                             << " must be a non-empty string naming a "
                                "parameter";
    auto function = dyn_cast<FunctionOpInterface>(op);
    if (!function)
      return op->emitError() << "'" << name << "' on result " << resultIndex
                             << " must be on a function result";
    if (function.isExternal())
      return success();
    // The gradient has its parameter's shape (its type may be narrower).
    // Once lowered, the function reads its parameters from globals and has
    // no train.param left to check against.
    ParamOp found;
    bool readsParameters = false;
    function->walk([&](ParamOp read) {
      readsParameters = true;
      if (read.getName() == param.getValue())
        found = read;
    });
    if (!readsParameters)
      return success();
    if (!found)
      return op->emitError() << "'" << name << "' on result " << resultIndex
                             << " names '" << param.getValue()
                             << "', which no train.param of the function reads";
    auto resultType =
        dyn_cast<RankedTensorType>(function.getResultTypes()[resultIndex]);
    if (!resultType || resultType.getShape() != found.getType().getShape())
      return op->emitError()
             << "'" << name << "' on result " << resultIndex
             << ": the result's type " << function.getResultTypes()[resultIndex]
             << " does not have the shape of parameter '" << param.getValue()
             << "' (" << found.getType() << ")";
    return success();
  }
  return op->emitError() << "unknown train attribute '" << name
                         << "' on result " << resultIndex;
}
