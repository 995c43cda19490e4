//===- Weights.cpp - safetensors files of step tensors --------------------===//

#include "memopt/Execution/Weights.h"

#include "memopt/Execution/Init.h"
#include "memopt/Support/AtomicFile.h"
#include "memopt/Support/Json.h"

#include "mlir/IR/Builders.h"
#include "llvm/ADT/StringSet.h"
#include "llvm/Support/CheckedArithmetic.h"
#include "llvm/Support/Endian.h"
#include "llvm/Support/JSON.h"

using namespace mlir;
using namespace mlir::memopt;
using namespace mlir::memopt::execution;

static llvm::Error makeError(const Twine &message) {
  return llvm::createStringError(llvm::inconvertibleErrorCode(), message);
}

/// The element type a safetensors dtype names, or null.
static Type getDtypeType(StringRef dtype, MLIRContext *context) {
  Builder b(context);
  return llvm::StringSwitch<Type>(dtype)
      .Case("F64", b.getF64Type())
      .Case("F32", b.getF32Type())
      .Case("F16", b.getF16Type())
      .Case("BF16", b.getBF16Type())
      .Case("I64", b.getI64Type())
      .Case("I32", b.getI32Type())
      .Case("I16", b.getI16Type())
      .Case("I8", b.getI8Type())
      .Case("BOOL", b.getI1Type())
      .Default(Type());
}

/// The safetensors dtype of an element type, or empty.
static StringRef getTypeDtype(Type type) {
  if (type.isF64())
    return "F64";
  if (type.isF32())
    return "F32";
  if (type.isF16())
    return "F16";
  if (type.isBF16())
    return "BF16";
  if (type.isInteger(64))
    return "I64";
  if (type.isInteger(32))
    return "I32";
  if (type.isInteger(16))
    return "I16";
  if (type.isInteger(8))
    return "I8";
  if (type.isInteger(1))
    return "BOOL";
  return "";
}

/// A size or an offset: a JSON integer in [0, 2^63). Not 8.0 or 1e3 (which
/// llvm::json::Value::getAsInteger would take), nor -1 or 2^63.
static std::optional<int64_t> getSize(const llvm::json::Value &value) {
  std::optional<uint64_t> size = value.getAsUINT64();
  if (!size || *size > static_cast<uint64_t>(INT64_MAX))
    return std::nullopt;
  return static_cast<int64_t>(*size);
}

static std::string formatShape(ArrayRef<int64_t> shape) {
  std::string text = "[";
  for (auto [i, dim] : llvm::enumerate(shape))
    text += (i ? ", " : "") + std::to_string(dim);
  return text + "]";
}

/// Checks the header entry `name` and views its bytes in `data` (the bytes
/// after the header). `bad` makes the error of a malformed file.
static llvm::Expected<WeightsFile::Entry>
parseEntry(StringRef name, const llvm::json::Value &value, StringRef data,
           MLIRContext *context,
           llvm::function_ref<llvm::Error(const Twine &)> bad) {
  const llvm::json::Object *entry = value.getAsObject();
  std::optional<StringRef> dtype =
      entry ? entry->getString("dtype") : std::nullopt;
  const llvm::json::Array *shape = entry ? entry->getArray("shape") : nullptr;
  const llvm::json::Array *offsets =
      entry ? entry->getArray("data_offsets") : nullptr;
  if (!dtype || !shape || !offsets || offsets->size() != 2)
    return bad("entry '" + name +
               "' lacks a dtype, a shape or two data_offsets");
  WeightsFile::Entry parsed;
  parsed.dtype = dtype->str();
  parsed.elementType = getDtypeType(*dtype, context);
  if (!parsed.elementType)
    return bad("entry '" + name + "' has unsupported dtype " + *dtype);
  for (const llvm::json::Value &dim : *shape) {
    std::optional<int64_t> size = getSize(dim);
    if (!size)
      return bad("entry '" + name + "' has a malformed shape");
    parsed.shape.push_back(*size);
  }
  // The byte size, each product checked as it is formed (a zero dimension
  // makes it 0 whatever the others are).
  int64_t bytes = llvm::is_contained(parsed.shape, 0)
                      ? 0
                      : getStorageBytes(parsed.elementType);
  for (int64_t dim : parsed.shape) {
    std::optional<int64_t> product = llvm::checkedMul(bytes, dim);
    if (!product)
      return bad("entry '" + name + "' has shape " + formatShape(parsed.shape) +
                 ": more than 2^63 - 1 bytes of " + *dtype);
    bytes = *product;
  }
  std::optional<int64_t> begin = getSize((*offsets)[0]);
  std::optional<int64_t> end = getSize((*offsets)[1]);
  if (!begin || !end || *end < *begin ||
      static_cast<uint64_t>(*end) > data.size())
    return bad("entry '" + name + "' has data offsets outside the file");
  if (*end - *begin != bytes)
    return bad("entry '" + name + "' holds " + Twine(*end - *begin) +
               " bytes where its dtype and shape need " + Twine(bytes));
  parsed.bytes = data.substr(*begin, *end - *begin);
  return parsed;
}

llvm::Expected<WeightsFile> WeightsFile::read(StringRef path,
                                              MLIRContext *context) {
  llvm::ErrorOr<std::unique_ptr<llvm::MemoryBuffer>> buffer =
      llvm::MemoryBuffer::getFile(path, /*IsText=*/false,
                                  /*RequiresNullTerminator=*/false);
  if (std::error_code error = buffer.getError())
    return makeError("cannot read '" + path + "': " + error.message());
  return parse(std::move(*buffer), path, context);
}

llvm::Expected<WeightsFile>
WeightsFile::parse(std::unique_ptr<llvm::MemoryBuffer> buffer, StringRef path,
                   MLIRContext *context) {
  auto bad = [&](const Twine &why) {
    return makeError("'" + path + "' is not a safetensors file: " + why);
  };
  StringRef raw = buffer->getBuffer();
  if (raw.size() < 8)
    return bad("shorter than its 8-byte header length");
  uint64_t headerSize = llvm::support::endian::read64le(
      reinterpret_cast<const void *>(raw.data()));
  if (headerSize > raw.size() - 8)
    return bad("its header length " + Twine(headerSize) +
               " exceeds the file's size");
  StringRef text = raw.substr(8, headerSize);
  llvm::Expected<llvm::json::Value> header = parseJson(text);
  if (!header)
    return bad("its header is not JSON: " + llvm::toString(header.takeError()));
  if (std::optional<JsonDuplicateKey> duplicate =
          mlir::memopt::findDuplicateJsonKey(text)) {
    auto [key, line, column] = *duplicate;
    return bad("its header has the key '" + key + "' twice (line " +
               Twine(line) + ", column " + Twine(column) + ")");
  }
  const llvm::json::Object *object = header->getAsObject();
  if (!object)
    return bad("its header is not a JSON object");
  StringRef data = raw.substr(8 + headerSize);

  // In name order: the first malformed entry is the same on every host
  // (python/memopt_torch/safetensors.py reads in the same order).
  SmallVector<StringRef> names;
  for (const auto &entry : *object)
    if (entry.first != "__metadata__")
      names.push_back(entry.first);
  llvm::sort(names);
  WeightsFile file;
  for (StringRef name : names) {
    llvm::Expected<Entry> entry =
        parseEntry(name, *object->get(name), data, context, bad);
    if (!entry)
      return entry.takeError();
    file.entries[name] = std::move(*entry);
  }
  file.buffer = std::move(buffer);
  return file;
}

/// Copies `entry` into the global `tensor` (a part of a split tensor takes
/// its elements of the whole).
static llvm::Error store(const WeightsFile::Entry &entry, StringRef name,
                         const GlobalTensor &tensor, const StepPlan &plan) {
  RankedTensorType whole = getWholeType(tensor, plan.gridShape);
  if (ArrayRef<int64_t>(entry.shape) != whole.getShape())
    return makeError("'" + name + "' has shape " + formatShape(entry.shape) +
                     " in the weights file, but " +
                     formatShape(whole.getShape()) + " in the step");
  Type target = tensor.type.getElementType();
  bool fileFloat = isa<FloatType>(entry.elementType);
  if (fileFloat != isa<FloatType>(target))
    return makeError("'" + name + "' is " + entry.dtype +
                     " in the weights file, but the step holds " +
                     (isa<FloatType>(target) ? "floats" : "integers"));
  unsigned fromBytes = getStorageBytes(entry.elementType);
  unsigned toBytes = getStorageBytes(target);
  for (int64_t i = 0, e = tensor.type.getNumElements(); i < e; ++i) {
    int64_t index = getWholeIndex(tensor, plan.gridShape, plan.processRank, i);
    char *dst = tensor.data + i * toBytes;
    if (index < 0) {
      std::memset(dst, 0, toBytes);
      continue;
    }
    const char *src = entry.bytes.data() + index * fromBytes;
    if (fileFloat)
      storeFloat(target, dst, loadFloat(entry.elementType, src));
    else
      storeInteger(target, dst,
                   static_cast<uint64_t>(loadInteger(entry.elementType, src)));
  }
  return llvm::Error::success();
}

llvm::Error execution::loadWeights(const WeightsFile &file, StepPlan &plan) {
  llvm::StringSet<> used;
  for (const GlobalTensor &param : plan.params) {
    auto it = file.getEntries().find(param.name);
    if (it == file.getEntries().end())
      return makeError("the weights file has no tensor '" + param.name +
                       "', a parameter of the step");
    if (llvm::Error error = store(it->second, param.name, param, plan))
      return error;
    used.insert(param.name);
  }
  for (const StepArgument &arg : plan.arguments) {
    auto it = file.getEntries().find(arg.tensor.name);
    if (it == file.getEntries().end())
      continue;
    if (arg.kind == ArgKind::StepNumber)
      return makeError("'" + arg.tensor.name +
                       "' is the optimizer's step count, which mem-run sets");
    if (llvm::Error error =
            store(it->second, arg.tensor.name, arg.tensor, plan))
      return error;
    used.insert(arg.tensor.name);
  }
  for (const auto &entry : file.getEntries())
    if (!used.contains(entry.getKey()))
      return makeError("the weights file's tensor '" + entry.getKey() +
                       "' is neither a parameter nor an argument (argN) of "
                       "the step");
  return llvm::Error::success();
}

/// Writes `tensors` to `path` under `prefix` + their names; `what` names
/// them and `option` the option in messages.
static llvm::Error saveTensors(ArrayRef<GlobalTensor> tensors, StringRef path,
                               StringRef prefix, StringRef what,
                               StringRef option) {
  llvm::json::Object header;
  int64_t offset = 0;
  for (const GlobalTensor &param : tensors) {
    if (!param.split.empty())
      return makeError(option + ": " + what + " '" + param.name +
                       "' is split over processes");
    StringRef dtype = getTypeDtype(param.type.getElementType());
    if (dtype.empty())
      return makeError(option + ": " + what + " '" + param.name +
                       "' has an element type safetensors cannot name");
    int64_t bytes = param.getByteSize();
    llvm::json::Array shape;
    for (int64_t dim : param.type.getShape())
      shape.push_back(dim);
    header[(prefix + param.name).str()] = llvm::json::Object{
        {"dtype", dtype},
        {"shape", std::move(shape)},
        {"data_offsets", llvm::json::Array{offset, offset + bytes}}};
    offset += bytes;
  }
  std::string text;
  llvm::raw_string_ostream(text) << llvm::json::Value(std::move(header));
  // The data starts 8-byte aligned.
  text.append((8 - text.size() % 8) % 8, ' ');
  return writeFileAtomically(path, [&](llvm::raw_ostream &os) {
    char length[8];
    llvm::support::endian::write64le(length, text.size());
    os.write(length, 8);
    os << text;
    // Globals hold the tensors row-major in their element types, as
    // safetensors does (this file is only written on little-endian hosts).
    for (const GlobalTensor &param : tensors)
      os.write(param.data, param.getByteSize());
  });
}

llvm::Error execution::saveParams(const StepPlan &plan, StringRef path) {
  return saveTensors(plan.params, path, "", "parameter", "--save-params");
}

llvm::Error execution::saveResults(const StepPlan &plan, StringRef path) {
  return saveTensors(plan.results, path, "result", "result", "--save-results");
}
