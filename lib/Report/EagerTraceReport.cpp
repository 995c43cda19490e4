//===- EagerTraceReport.cpp - the memory report of a PyTorch eager step ---===//
//
// MemoryReport::createFromTrace: reads a trace of a PyTorch eager training
// step (schema `memopt.eager-trace/1`, written by `python3 -m memopt_torch
// predict ... --trace FILE`) into the report's model, without IR. The
// trace's buffers and per-point workspace become a recorded TensorLiveness;
// its classes, modules and source lines give the by-class timeline, the
// saved activations per layer, the model states and the top tensors. Every
// error names the offending key by its path in the document.
//
//===----------------------------------------------------------------------===//

#include "ReportFormatting.h"

#include "memopt/Report/MemoryReport.h"
#include "memopt/Support/Json.h"

#include "llvm/ADT/MapVector.h"
#include "llvm/ADT/StringSet.h"
#include "llvm/ADT/StringSwitch.h"
#include "llvm/Support/JSON.h"
#include "llvm/Support/MathExtras.h"

using namespace mlir;
using namespace mlir::memopt;
namespace json = llvm::json;

//===----------------------------------------------------------------------===//
// Reading the document
//===----------------------------------------------------------------------===//

/// An error about the value at `path` ("buffers[3].end").
static llvm::Error pathError(const Twine &path, const Twine &message) {
  return llvm::createStringError(llvm::inconvertibleErrorCode(),
                                 path + ": " + message);
}

/// "a string", "an array", ...: what a value is, for messages.
static StringRef describeKind(const json::Value &value) {
  switch (value.kind()) {
  case json::Value::Null:
    return "null";
  case json::Value::Boolean:
    return "a boolean";
  case json::Value::Number:
    return getJsonInteger(value) ? "an integer" : "a number";
  case json::Value::String:
    return "a string";
  case json::Value::Array:
    return "an array";
  case json::Value::Object:
    return "an object";
  }
  llvm_unreachable("unknown JSON kind");
}

namespace {
/// The keys of one object of the document, read with located errors.
class ObjectReader {
public:
  ObjectReader(const json::Object &object, std::string path)
      : object(object), path(std::move(path)) {}

  /// The path of `key` in the document.
  std::string keyPath(StringRef key) const {
    return path == "document" ? key.str() : path + "." + key.str();
  }

  llvm::Expected<const json::Value *> get(StringRef key) const {
    if (const json::Value *value = object.get(key))
      return value;
    return pathError(path, "missing key '" + key + "'");
  }

  llvm::Expected<StringRef> getString(StringRef key) const {
    llvm::Expected<const json::Value *> value = get(key);
    if (!value)
      return value.takeError();
    if (std::optional<StringRef> text = (*value)->getAsString())
      return *text;
    return typeError(key, "a string", **value);
  }

  llvm::Expected<bool> getBool(StringRef key) const {
    llvm::Expected<const json::Value *> value = get(key);
    if (!value)
      return value.takeError();
    if (std::optional<bool> flag = (*value)->getAsBoolean())
      return *flag;
    return typeError(key, "a boolean", **value);
  }

  /// A non-negative integer below 2^63.
  llvm::Expected<int64_t> getCount(StringRef key) const {
    llvm::Expected<const json::Value *> value = get(key);
    if (!value)
      return value.takeError();
    std::optional<int64_t> number = getJsonInteger(**value);
    if (!number) {
      if ((*value)->getAsNumber())
        return pathError(keyPath(key),
                         "expected an integer in [0, 2^63), got " +
                             formatNumber(**value));
      return typeError(key, "an integer", **value);
    }
    if (*number < 0)
      return pathError(keyPath(key), Twine(*number) +
                                         " is negative; expected an integer "
                                         "in [0, 2^63)");
    return *number;
  }

  llvm::Expected<const json::Array *> getArray(StringRef key) const {
    llvm::Expected<const json::Value *> value = get(key);
    if (!value)
      return value.takeError();
    if (const json::Array *array = (*value)->getAsArray())
      return array;
    return typeError(key, "an array", **value);
  }

private:
  llvm::Error typeError(StringRef key, StringRef expected,
                        const json::Value &value) const {
    return pathError(keyPath(key),
                     "expected " + expected + ", got " + describeKind(value));
  }

  static std::string formatNumber(const json::Value &value) {
    std::string text;
    llvm::raw_string_ostream os(text);
    os << value;
    return text;
  }

  const json::Object &object;
  std::string path;
};
} // namespace

/// The object at `array[index]`, whose path is `arrayPath[index]`.
static llvm::Expected<ObjectReader>
getElementObject(const json::Array &array, StringRef arrayPath, size_t index) {
  std::string path = (arrayPath + "[" + Twine(index) + "]").str();
  if (const json::Object *object = array[index].getAsObject())
    return ObjectReader(*object, path);
  return pathError(path,
                   "expected an object, got " + describeKind(array[index]));
}

static std::optional<MemoryClass> parseMemoryClass(StringRef name) {
  return llvm::StringSwitch<std::optional<MemoryClass>>(name)
      .Case("parameter", MemoryClass::Parameter)
      .Case("gradient", MemoryClass::Gradient)
      .Case("optimizer_state", MemoryClass::OptimizerState)
      .Case("activation", MemoryClass::Activation)
      .Case("temporary", MemoryClass::Temporary)
      .Case("input", MemoryClass::Input)
      .Default(std::nullopt);
}

/// Reads `points`: each op, its module, source and phase into `trace`, its
/// workspace into `workspace`.
static llvm::Error readPoints(const ObjectReader &document, EagerTrace &trace,
                              SmallVectorImpl<int64_t> &workspace) {
  llvm::Expected<const json::Array *> points = document.getArray("points");
  if (!points)
    return points.takeError();
  if ((*points)->empty())
    return pathError("points", "empty; a step has at least one op");
  for (size_t i = 0, e = (*points)->size(); i < e; ++i) {
    llvm::Expected<ObjectReader> point =
        getElementObject(**points, "points", i);
    if (!point)
      return point.takeError();
    EagerTrace::Point entry;
    for (auto [key, field] :
         {std::pair<StringRef, std::string *>{"op", &entry.op},
          {"phase", &entry.phase},
          {"module", &entry.module},
          {"source", &entry.source}}) {
      llvm::Expected<StringRef> text = point->getString(key);
      if (!text)
        return text.takeError();
      *field = text->str();
    }
    llvm::Expected<int64_t> bytes = point->getCount("workspace_bytes");
    if (!bytes)
      return bytes.takeError();
    workspace.push_back(*bytes);
    if (trace.phases.empty() || trace.phases.back().phase != entry.phase)
      trace.phases.push_back(
          {entry.phase, static_cast<int64_t>(i), static_cast<int64_t>(i)});
    else
      trace.phases.back().lastPoint = i;
    trace.points.push_back(std::move(entry));
  }
  return llvm::Error::success();
}

/// Reads buffer `index` of `buffers` into `buffer` and its origin (the op
/// that made it, its module as the location, its source) into `origin`.
static llvm::Error readBuffer(const json::Array &buffers, size_t index,
                              int64_t numPoints, Buffer &buffer,
                              ReportTensor &origin) {
  llvm::Expected<ObjectReader> object =
      getElementObject(buffers, "buffers", index);
  if (!object)
    return object.takeError();
  llvm::Expected<StringRef> name = object->getString("name");
  if (!name)
    return name.takeError();
  buffer.name = name->str();
  for (auto [key, field] :
       {std::pair<StringRef, int64_t *>{"bytes", &buffer.bytes},
        {"start", &buffer.start},
        {"end", &buffer.end}}) {
    llvm::Expected<int64_t> number = object->getCount(key);
    if (!number)
      return number.takeError();
    *field = *number;
  }
  if (buffer.start > buffer.end)
    return pathError(object->keyPath("start"),
                     Twine(buffer.start) + " is after end (" +
                         Twine(buffer.end) +
                         "); a buffer is live at points start..end, "
                         "inclusive");
  if (buffer.end >= numPoints)
    return pathError(object->keyPath("end"),
                     Twine(buffer.end) + " is beyond the last point (" +
                         Twine(numPoints - 1) + "; the trace has " +
                         Twine(numPoints) + " points)");
  llvm::Expected<StringRef> className = object->getString("class");
  if (!className)
    return className.takeError();
  std::optional<MemoryClass> cls = parseMemoryClass(*className);
  if (!cls)
    return pathError(object->keyPath("class"),
                     "unknown memory class '" + *className +
                         "'; expected one of parameter, gradient, "
                         "optimizer_state, activation, temporary, input");
  buffer.memoryClass = *cls;
  llvm::Expected<bool> persistent = object->getBool("persistent");
  if (!persistent)
    return persistent.takeError();
  buffer.persistent = *persistent;
  StringRef layer, op, source;
  for (auto [key, field] : {std::pair<StringRef, StringRef *>{"layer", &layer},
                            {"op", &op},
                            {"source", &source}}) {
    llvm::Expected<StringRef> text = object->getString(key);
    if (!text)
      return text.takeError();
    *field = *text;
  }
  // A tensor no op of the step made (a parameter, a module buffer, the
  // batch) is the step's argument, as a function argument is in the IR.
  // The location is the module (collectPeak writes "unknown" for none).
  origin.opName = op.empty() ? "argument" : op.str();
  origin.location = layer.str();
  origin.source = source.str();
  return llvm::Error::success();
}

/// Whether the live bytes of the step can exceed 2^63 - 1: the sum of every
/// buffer's bytes and the largest workspace.
static bool bytesOverflow(ArrayRef<Buffer> buffers,
                          ArrayRef<int64_t> workspace) {
  int64_t total = 0;
  for (const Buffer &buffer : buffers)
    if (llvm::AddOverflow(total, buffer.bytes, total))
      return true;
  int64_t largest = 0;
  for (int64_t bytes : workspace)
    largest = std::max(largest, bytes);
  return llvm::AddOverflow(total, largest, total);
}

//===----------------------------------------------------------------------===//
// The report's numbers
//===----------------------------------------------------------------------===//

void MemoryReport::collectTraceModelStates() {
  // The trace records bytes, not element types: the states count as fp32
  // (PyTorch keeps parameters, gradients and optimizer states in the
  // parameters' dtype, fp32 under autocast too), 4 bytes per parameter.
  ModelStates &states = modelStates;
  llvm::StringSet<> params;
  for (const Buffer &buffer : liveness->getBuffers()) {
    switch (buffer.memoryClass) {
    case MemoryClass::Parameter:
      params.insert(buffer.name);
      parameterBytes += buffer.bytes;
      break;
    case MemoryClass::Gradient:
      states.gradientBytes += buffer.bytes;
      break;
    default:
      break;
    }
  }
  parameterCount = parameterBytes / 4;
  states.parameterCount = parameterCount;
  states.trainableParameterCount = parameterCount;
  states.weightBytes = parameterBytes;
  for (const Buffer &buffer : liveness->getBuffers()) {
    if (buffer.memoryClass != MemoryClass::OptimizerState)
      continue;
    if (report::findStateOwner(
            buffer.name, [&](StringRef name) { return params.contains(name); }))
      states.optimizerStateBytes += buffer.bytes;
    else
      states.otherStates.push_back({buffer.name, buffer.bytes});
  }
}

void MemoryReport::collectTraceSavedActivations() {
  // The end of the forward pass: its last point (the loss is computed in
  // the forward pass or in a phase of its own).
  SavedActivations &saved = savedActivations;
  for (const PhaseRange &range : eagerTrace->phases)
    if (range.phase == "forward" || range.phase == "loss")
      saved.lossPoint = range.lastPoint;
  if (!saved.lossPoint)
    return;
  int64_t lossPoint = *saved.lossPoint;
  // Layers in order of their first saved value: buffers by start.
  SmallVector<const Buffer *> byStart;
  for (const Buffer &buffer : liveness->getBuffers())
    if (buffer.memoryClass == MemoryClass::Activation &&
        buffer.start <= lossPoint && buffer.end > lossPoint)
      byStart.push_back(&buffer);
  llvm::stable_sort(byStart, [](const Buffer *a, const Buffer *b) {
    return a->start < b->start;
  });
  llvm::MapVector<StringRef, LayerActivations> layers;
  LayerActivations other;
  other.layer = SavedActivations::kOtherLayer.str();
  for (const Buffer *buffer : byStart) {
    StringRef layer =
        traceBufferOrigins[buffer - liveness->getBuffers().data()].location;
    LayerActivations *group = &other;
    if (!layer.empty()) {
      group = &layers[layer];
      group->layer = layer.str();
    }
    group->bytes += buffer->bytes;
    ++group->numBuffers;
    saved.totalBytes += buffer->bytes;
    ++saved.numBuffers;
  }
  for (auto &entry : layers)
    saved.byLayer.push_back(std::move(entry.second));
  if (other.numBuffers > 0)
    saved.byLayer.push_back(std::move(other));
}

llvm::Expected<MemoryReport>
MemoryReport::createFromTrace(const json::Value &value) {
  const json::Object *object = value.getAsObject();
  if (!object)
    return pathError("document",
                     "expected an object, got " + describeKind(value));
  ObjectReader document(*object, "document");
  llvm::Expected<StringRef> schema = document.getString("schema");
  if (!schema)
    return schema.takeError();
  if (*schema != kEagerTraceSchema)
    return pathError("schema", "'" + *schema +
                                   "' is not a trace of an eager "
                                   "step; expected '" +
                                   kEagerTraceSchema +
                                   "' (python3 -m memopt_torch predict ... "
                                   "--trace FILE)");
  EagerTrace trace;
  for (auto [key, field] :
       {std::pair<StringRef, std::string *>{"model", &trace.model},
        {"device", &trace.device}}) {
    llvm::Expected<StringRef> text = document.getString(key);
    if (!text)
      return text.takeError();
    *field = text->str();
  }
  llvm::Expected<int64_t> allocated = document.getCount("allocated_peak_bytes");
  if (!allocated)
    return allocated.takeError();
  trace.allocatedPeakBytes = *allocated;

  SmallVector<int64_t> workspace;
  if (llvm::Error error = readPoints(document, trace, workspace))
    return std::move(error);
  llvm::Expected<const json::Array *> buffers = document.getArray("buffers");
  if (!buffers)
    return buffers.takeError();
  MemoryReport report;
  SmallVector<Buffer> recorded((*buffers)->size());
  report.traceBufferOrigins.resize((*buffers)->size());
  for (size_t i = 0, e = (*buffers)->size(); i < e; ++i)
    if (llvm::Error error =
            readBuffer(**buffers, i, workspace.size(), recorded[i],
                       report.traceBufferOrigins[i]))
      return std::move(error);
  if (bytesOverflow(recorded, workspace))
    return pathError("buffers", "the bytes of the buffers and the largest "
                                "workspace add up beyond 2^63 - 1");

  report.functionName = trace.model;
  report.eagerTrace = std::move(trace);
  report.liveness = std::make_unique<TensorLiveness>(std::move(recorded),
                                                     std::move(workspace));
  report.collectTraceModelStates();
  report.collectTraceSavedActivations();
  report.collectPeak();
  return report;
}
