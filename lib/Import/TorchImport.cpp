//===- TorchImport.cpp - ATen graphs to train dialect steps ---------------===//
//
// Reads the JSON graph of docs/import.md node by node. Each ATen target has
// a handler that builds its train ops; a few ATen patterns become one train
// op:
//   - aten.t feeding a matmul becomes the matmul's transpose flag;
//   - aten._log_softmax feeding aten.nll_loss_forward is train.cross_entropy;
//   - aten.masked_fill with a causal mask and -inf feeding aten._softmax is
//     train.softmax {causal}.
// Such a pending value is materialized (aten.t) or rejected (the others)
// when another op reads it. A node that cannot be imported is reported and
// poisons its results; the nodes reading them are skipped silently, so
// every unsupported op of the graph is reported in one run.
//
//===----------------------------------------------------------------------===//

#include "memopt/Import/TorchImport.h"

#include "memopt/Dialect/Train/IR/TrainDialect.h"
#include "memopt/Dialect/Train/IR/TrainOps.h"
#include "memopt/Models/ModelBuilder.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/Verifier.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/StringMap.h"
#include "llvm/ADT/StringSet.h"

#include <cmath>
#include <limits>
#include <map>

using namespace mlir;
using namespace mlir::memopt;
using namespace mlir::memopt::import;
namespace json = llvm::json;

namespace {

/// A traced node being imported: its JSON, location and declared results.
struct Node {
  StringRef name;
  StringRef target;
  const json::Array *args = nullptr;
  const json::Object *kwargs = nullptr;
  Location loc;
  /// The result types PyTorch recorded (null where not a tensor).
  SmallVector<RankedTensorType> outputs;

  /// Argument `index`, or keyword `keyword`; null when absent.
  const json::Value *get(unsigned index, StringRef keyword = {}) const {
    if (args && index < args->size())
      return &(*args)[index];
    if (kwargs && !keyword.empty())
      if (const json::Value *value = kwargs->get(keyword))
        return value;
    return nullptr;
  }
  /// Whether argument `index` is absent or null.
  bool isNone(unsigned index, StringRef keyword = {}) const {
    const json::Value *value = get(index, keyword);
    return !value || value->kind() == json::Value::Null;
  }
};

/// What a node's result became.
struct Result {
  enum class Kind {
    /// An ordinary value.
    Value,
    /// `aten.t` of `value`: a matmul reading it transposes instead.
    Transposed,
    /// `aten._log_softmax` of `value` over its last dimension.
    LogSoftmax,
    /// `aten.masked_fill` of `value` with -inf above the diagonal.
    CausalMasked,
    /// The steps of an RMSNorm written out (`x * rsqrt(mean(x^2, -1) +
    /// eps) * weight`): `value` is x throughout.
    Square,
    MeanSquare,
    MeanSquareEps,
    RmsInverse,
    RmsNormalized,
  };
  Kind kind = Kind::Value;
  Value value;
  /// For MeanSquareEps and after: the epsilon.
  double epsilon = 0.0;
  /// For Transposed: the transpose once an op other than a matmul read it.
  Value materialized;
};

class GraphImporter;
using Handler = LogicalResult (GraphImporter::*)(Node &,
                                                 SmallVectorImpl<Result> &);

struct OpEntry {
  SupportedOp op;
  Handler handler;
};

class GraphImporter {
public:
  GraphImporter(ModuleOp module, StringRef funcName, StringRef fileName)
      : module(module), funcName(funcName), fileName(fileName),
        fileLoc(FileLineColLoc::get(module.getContext(), fileName, 0, 0)) {}

  LogicalResult run(const json::Value &document);

  static ArrayRef<OpEntry> getTable();

#define MEMOPT_HANDLER(name)                                                   \
  LogicalResult name(Node &node, SmallVectorImpl<Result> &results)
  MEMOPT_HANDLER(importConvolution);
  MEMOPT_HANDLER(importBatchNorm);
  MEMOPT_HANDLER(importLayerNorm);
  MEMOPT_HANDLER(importRelu);
  MEMOPT_HANDLER(importGelu);
  MEMOPT_HANDLER(importHardtanh);
  /// A one-operand activation built by `build` (silu, sigmoid, ...).
  template <Value (gen::ModelBuilder::*build)(Value, StringRef)>
  MEMOPT_HANDLER(importActivation);
  MEMOPT_HANDLER(importPow);
  MEMOPT_HANDLER(importRsqrt);
  MEMOPT_HANDLER(importNeg);
  MEMOPT_HANDLER(importToCopy);
  MEMOPT_HANDLER(importAdd);
  MEMOPT_HANDLER(importSub);
  LogicalResult importAddOrSub(Node &node, SmallVectorImpl<Result> &out,
                               bool subtract);
  MEMOPT_HANDLER(importMul);
  MEMOPT_HANDLER(importDiv);
  MEMOPT_HANDLER(importMaxPool);
  MEMOPT_HANDLER(importAvgPool);
  MEMOPT_HANDLER(importAdaptiveAvgPool);
  MEMOPT_HANDLER(importMean);
  MEMOPT_HANDLER(importReshape);
  MEMOPT_HANDLER(importIdentity);
  MEMOPT_HANDLER(importT);
  MEMOPT_HANDLER(importTranspose);
  MEMOPT_HANDLER(importPermute);
  MEMOPT_HANDLER(importExpand);
  MEMOPT_HANDLER(importAddmm);
  MEMOPT_HANDLER(importMm);
  MEMOPT_HANDLER(importLogSoftmax);
  MEMOPT_HANDLER(importNllLoss);
  MEMOPT_HANDLER(importMseLoss);
  MEMOPT_HANDLER(importDropout);
  MEMOPT_HANDLER(importCat);
  MEMOPT_HANDLER(importEmbedding);
  MEMOPT_HANDLER(importIndex);
  MEMOPT_HANDLER(importConstantPad);
  MEMOPT_HANDLER(importSoftmax);
  MEMOPT_HANDLER(importMaskedFill);
  MEMOPT_HANDLER(importSlice);
  MEMOPT_HANDLER(importSelect);
  MEMOPT_HANDLER(importSplit);
#undef MEMOPT_HANDLER

private:
  MLIRContext *getContext() { return module.getContext(); }
  OpBuilder &getBuilder() { return builder->getBuilder(); }

  /// Reports a malformed document at the file.
  InFlightDiagnostic emitDocumentError(const Twine &path) {
    return emitError(fileLoc) << path << ": ";
  }

  FailureOr<Type> parseDtype(const json::Value *value, const Twine &path);
  FailureOr<RankedTensorType> parseTensorType(const json::Object *object,
                                              const Twine &path);
  LogicalResult readDeclarations(const json::Object &document);
  FailureOr<Node> parseNode(const json::Object &object, unsigned index);
  Location getNodeLoc(const json::Object &object, StringRef name);
  LogicalResult importNode(const json::Object &object, unsigned index);

  /// The result a reference `{"node": n, "index": i}` names; null (after an
  /// error, or silently for a poisoned node) on failure.
  FailureOr<Result *> lookup(Node &node, const json::Value &reference,
                             bool &poisonedInput);
  /// The result argument `index` names when it is a node's (pending or
  /// not), else null.
  Result *peek(Node &node, unsigned index);
  /// Argument `index` as a tensor value; materializes a pending transpose.
  FailureOr<Value> getTensor(Node &node, unsigned index,
                             StringRef keyword = {});
  /// Argument `index` as a matmul operand: a pending transpose is returned
  /// untransposed with `transposed` set.
  FailureOr<Value> getMatmulOperand(Node &node, unsigned index,
                                    bool &transposed);
  FailureOr<Value> getReferenced(Node &node, const json::Value &reference);

  /// Argument `index` (or keyword `keyword`) as `parse` reads it, or
  /// `defaultValue` when absent or null; `kind` names the type in errors.
  template <typename T>
  FailureOr<T>
  getScalar(Node &node, unsigned index, StringRef keyword,
            std::optional<T> defaultValue,
            llvm::function_ref<std::optional<T>(const json::Value &)> parse,
            StringRef kind);
  FailureOr<int64_t> getInt(Node &node, unsigned index, StringRef keyword,
                            std::optional<int64_t> defaultValue = {});
  FailureOr<double> getDouble(Node &node, unsigned index, StringRef keyword,
                              std::optional<double> defaultValue = {});
  FailureOr<bool> getBool(Node &node, unsigned index, StringRef keyword,
                          std::optional<bool> defaultValue = {});
  /// A list of `size` integers (a single integer repeats); `defaultValue`
  /// when absent or empty.
  FailureOr<SmallVector<int64_t>>
  getIntList(Node &node, unsigned index, StringRef keyword, size_t size,
             std::optional<SmallVector<int64_t>> defaultValue = {});
  FailureOr<SmallVector<int64_t>> getIntList(Node &node, unsigned index,
                                             StringRef keyword);
  FailureOr<StringRef> getString(Node &node, unsigned index, StringRef keyword,
                                 StringRef defaultValue);
  /// Normalizes a possibly negative dimension of a rank-`rank` tensor.
  FailureOr<int64_t> getDim(Node &node, unsigned index, StringRef keyword,
                            int64_t rank);

  /// The constant named `name` of the document.
  const json::Object *getConstant(StringRef name) {
    auto it = constants.find(name);
    return it == constants.end() ? nullptr : it->second;
  }

  /// The constant `name` as an `arith.constant` (built once, where first
  /// read).
  FailureOr<Value> getConstantValue(Node &node, StringRef name);
  /// The start of the constant `name` when it holds start, start + 1, ...
  /// (a torch.arange), else std::nullopt.
  std::optional<int64_t> getArangeStart(StringRef name);

  /// `value` repeated to `shape` (NumPy broadcasting; `value`'s shape must
  /// broadcast to it).
  FailureOr<Value> broadcastTo(Node &node, Value value,
                               ArrayRef<int64_t> shape);
  /// Brings two operands of an elementwise op to the result's shape.
  LogicalResult broadcastOperands(Node &node, Value &lhs, Value &rhs);
  RankedTensorType getOutputType(Node &node, unsigned index = 0);
  /// Result #0's recorded type; an error when the graph lacks it.
  FailureOr<RankedTensorType> getRequiredOutputType(Node &node);
  Value reshapeTo(Node &node, Value value, ArrayRef<int64_t> shape);
  Type getLossElementType();

  static Result plain(Value value) {
    Result result;
    result.value = value;
    return result;
  }
  static ArrayRef<int64_t> shapeOf(Value value) {
    return cast<RankedTensorType>(value.getType()).getShape();
  }

  ModuleOp module;
  StringRef funcName;
  StringRef fileName;
  Location fileLoc;
  std::unique_ptr<gen::ModelBuilder> builder;

  /// Parameters by name: their types.
  llvm::StringMap<RankedTensorType> params;
  /// Inputs by name: the function arguments.
  llvm::StringMap<Value> inputs;
  /// Constants by name, and those built so far.
  llvm::StringMap<const json::Object *> constants;
  llvm::StringMap<Value> constantValues;
  /// Node results by node name; a node missing here failed to import.
  llvm::StringMap<SmallVector<Result>> nodeResults;
  /// Nodes that failed (their readers are skipped).
  llvm::StringSet<> poisoned;
  /// How often each unsupported target occurred.
  std::map<std::string, unsigned> unsupported;
};

} // namespace

//===----------------------------------------------------------------------===//
// Document structure
//===----------------------------------------------------------------------===//

FailureOr<Type> GraphImporter::parseDtype(const json::Value *value,
                                          const Twine &path) {
  std::optional<StringRef> name = value ? value->getAsString() : std::nullopt;
  if (!name) {
    emitDocumentError(path) << "expected a dtype string";
    return failure();
  }
  Builder b(getContext());
  Type type = llvm::StringSwitch<Type>(*name)
                  .Case("float32", b.getF32Type())
                  .Case("float64", b.getF64Type())
                  .Case("float16", b.getF16Type())
                  .Case("bfloat16", b.getBF16Type())
                  .Case("int64", b.getI64Type())
                  .Case("int32", b.getI32Type())
                  .Case("int8", b.getI8Type())
                  .Case("uint8", b.getI8Type())
                  .Case("bool", b.getI1Type())
                  .Default(Type());
  if (!type) {
    emitDocumentError(path) << "unknown dtype '" << *name << "'";
    return failure();
  }
  return type;
}

FailureOr<RankedTensorType>
GraphImporter::parseTensorType(const json::Object *object, const Twine &path) {
  if (!object) {
    emitDocumentError(path) << "expected an object with shape and dtype";
    return failure();
  }
  const json::Array *shape = object->getArray("shape");
  if (!shape) {
    emitDocumentError(path) << "expected a \"shape\" array";
    return failure();
  }
  SmallVector<int64_t> dims;
  int64_t elements = 1;
  for (auto [i, dim] : llvm::enumerate(*shape)) {
    std::optional<int64_t> size = dim.getAsInteger();
    if (!size || *size < 0) {
      emitDocumentError(path)
          << "shape[" << i
          << "] is not a non-negative integer: dynamic shapes are not "
             "supported; export with concrete shapes";
      return failure();
    }
    if (*size == 0) {
      emitDocumentError(path)
          << "shape[" << i << "] is 0: empty tensors are not supported";
      return failure();
    }
    // At most 2^48 elements: sizes stay far from overflowing int64.
    if (*size > (int64_t(1) << 48) / elements) {
      emitDocumentError(path) << "the tensor has more than 2^48 elements";
      return failure();
    }
    elements *= *size;
    dims.push_back(*size);
  }
  FailureOr<Type> element = parseDtype(object->get("dtype"), path + ".dtype");
  if (failed(element))
    return failure();
  return RankedTensorType::get(dims, *element);
}

LogicalResult GraphImporter::readDeclarations(const json::Object &document) {
  const json::Array *paramList = document.getArray("params");
  const json::Array *inputList = document.getArray("inputs");
  if (!paramList || !inputList) {
    emitDocumentError("document")
        << "expected \"params\" and \"inputs\" arrays";
    return failure();
  }
  // Floating-point parameters share one element type: the model's.
  Type elementType;
  for (auto [i, entry] : llvm::enumerate(*paramList)) {
    std::string path = ("params[" + Twine(i) + "]").str();
    const json::Object *object = entry.getAsObject();
    std::optional<StringRef> name =
        object ? object->getString("name") : std::nullopt;
    if (!name || name->empty()) {
      emitDocumentError(path) << "expected a \"name\"";
      return failure();
    }
    FailureOr<RankedTensorType> type = parseTensorType(object, path);
    if (failed(type))
      return failure();
    if (!isa<FloatType>(type->getElementType())) {
      emitDocumentError(path)
          << "parameter '" << *name << "' has element type "
          << type->getElementType() << "; parameters must be floating point";
      return failure();
    }
    if (elementType && elementType != type->getElementType()) {
      emitDocumentError(path)
          << "parameter '" << *name << "' is " << type->getElementType()
          << " where the others are " << elementType
          << "; export the model in one dtype";
      return failure();
    }
    elementType = type->getElementType();
    if (!params.try_emplace(*name, *type).second) {
      emitDocumentError(path)
          << "parameter '" << *name << "' is declared twice";
      return failure();
    }
  }
  if (!elementType)
    elementType = Builder(getContext()).getF32Type();
  builder = std::make_unique<gen::ModelBuilder>(module, funcName, elementType);

  for (auto [i, entry] : llvm::enumerate(*inputList)) {
    std::string path = ("inputs[" + Twine(i) + "]").str();
    const json::Object *object = entry.getAsObject();
    std::optional<StringRef> name =
        object ? object->getString("name") : std::nullopt;
    if (!name || name->empty()) {
      emitDocumentError(path) << "expected a \"name\"";
      return failure();
    }
    FailureOr<RankedTensorType> type = parseTensorType(object, path);
    if (failed(type))
      return failure();
    Type element = type->getElementType();
    if (element.isInteger(1)) {
      emitDocumentError(path) << "boolean inputs are not supported";
      return failure();
    }
    if (!inputs
             .try_emplace(*name,
                          builder->addInput(*name, type->getShape(), element))
             .second) {
      emitDocumentError(path) << "input '" << *name << "' is declared twice";
      return failure();
    }
  }

  if (const json::Array *constantList = document.getArray("constants")) {
    for (auto [i, entry] : llvm::enumerate(*constantList)) {
      std::string path = ("constants[" + Twine(i) + "]").str();
      const json::Object *object = entry.getAsObject();
      std::optional<StringRef> name =
          object ? object->getString("name") : std::nullopt;
      if (!name || !object->getArray("data")) {
        emitDocumentError(path) << "expected a \"name\" and a \"data\" array";
        return failure();
      }
      constants[*name] = object;
    }
  }
  return success();
}

Location GraphImporter::getNodeLoc(const json::Object &object, StringRef name) {
  MLIRContext *context = getContext();
  StringRef label = object.getString("module").value_or(name);
  if (label.empty())
    label = name;
  if (const json::Object *loc = object.getObject("loc")) {
    std::optional<StringRef> file = loc->getString("file");
    std::optional<int64_t> line = loc->getInteger("line");
    if (file && line)
      return NameLoc::get(
          StringAttr::get(context, label),
          FileLineColLoc::get(context, *file, static_cast<unsigned>(*line), 1));
  }
  return NameLoc::get(StringAttr::get(context, label), fileLoc);
}

FailureOr<Node> GraphImporter::parseNode(const json::Object &object,
                                         unsigned index) {
  std::string path = ("nodes[" + Twine(index) + "]").str();
  std::optional<StringRef> name = object.getString("name");
  std::optional<StringRef> target = object.getString("target");
  const json::Array *args = object.getArray("args");
  if (!name || !target || !args) {
    emitDocumentError(path) << "expected \"name\", \"target\" and \"args\"";
    return failure();
  }
  Node node{*name,
            *target,
            args,
            object.getObject("kwargs"),
            getNodeLoc(object, *name),
            {}};
  if (const json::Array *outputs = object.getArray("outputs")) {
    for (auto [i, output] : llvm::enumerate(*outputs)) {
      if (output.kind() == json::Value::Null) {
        node.outputs.push_back(nullptr);
        continue;
      }
      FailureOr<RankedTensorType> type = parseTensorType(
          output.getAsObject(), path + ".outputs[" + Twine(i) + "]");
      if (failed(type))
        return failure();
      node.outputs.push_back(*type);
    }
  }
  return node;
}

//===----------------------------------------------------------------------===//
// Arguments
//===----------------------------------------------------------------------===//

FailureOr<Result *> GraphImporter::lookup(Node &node,
                                          const json::Value &reference,
                                          bool &poisonedInput) {
  const json::Object *object = reference.getAsObject();
  std::optional<StringRef> name =
      object ? object->getString("node") : std::nullopt;
  if (!name)
    return emitError(node.loc) << "expected a node reference";
  if (poisoned.contains(*name)) {
    poisonedInput = true;
    return failure();
  }
  auto it = nodeResults.find(*name);
  if (it == nodeResults.end())
    return emitError(node.loc)
           << node.target << " reads '" << *name
           << "', which is not an earlier node of the graph";
  int64_t index = object->getInteger("index").value_or(0);
  if (index < 0 || index >= static_cast<int64_t>(it->second.size()) ||
      (!it->second[index].value))
    return emitError(node.loc)
           << node.target << " reads result #" << index << " of '" << *name
           << "', which has no counterpart in the train dialect";
  return &it->second[index];
}

FailureOr<Value> GraphImporter::getReferenced(Node &node,
                                              const json::Value &reference) {
  const json::Object *object = reference.getAsObject();
  if (!object)
    return emitError(node.loc) << node.target << ": expected a tensor argument";
  if (std::optional<StringRef> name = object->getString("param")) {
    auto it = params.find(*name);
    if (it == params.end())
      return emitError(node.loc)
             << node.target << " reads undeclared parameter '" << *name << "'";
    return builder->param(*name, it->second.getShape());
  }
  if (std::optional<StringRef> name = object->getString("input")) {
    auto it = inputs.find(*name);
    if (it == inputs.end())
      return emitError(node.loc)
             << node.target << " reads undeclared input '" << *name << "'";
    return it->second;
  }
  if (std::optional<StringRef> name = object->getString("constant"))
    return getConstantValue(node, *name);
  if (std::optional<StringRef> name = object->getString("buffer"))
    return emitError(node.loc) << node.target << " reads buffer '" << *name
                               << "'; buffers are not part of the step";
  bool poisonedInput = false;
  FailureOr<Result *> result = lookup(node, reference, poisonedInput);
  if (failed(result))
    return failure();
  Result &r = **result;
  switch (r.kind) {
  case Result::Kind::Value:
    return r.value;
  case Result::Kind::Transposed:
    if (!r.materialized)
      r.materialized = builder->transpose(r.value, {1, 0}, "t");
    return r.materialized;
  case Result::Kind::LogSoftmax:
    return emitError(node.loc)
           << node.target
           << " reads a log_softmax; mem-import supports log_softmax only as "
              "the input of nll_loss (cross-entropy)";
  case Result::Kind::CausalMasked:
    return emitError(node.loc)
           << node.target
           << " reads a causally masked tensor; mem-import supports "
              "masked_fill only as the input of softmax over the last "
              "dimension";
  case Result::Kind::Square:
  case Result::Kind::MeanSquare:
  case Result::Kind::MeanSquareEps:
  case Result::Kind::RmsInverse:
  case Result::Kind::RmsNormalized:
    return emitError(node.loc)
           << node.target
           << " reads a step of an RMSNorm; mem-import supports x.pow(2), "
              "its mean and rsqrt only as the RMSNorm x * rsqrt(x.pow(2)"
              ".mean(-1, keepdim=True) + eps) * weight";
  }
  llvm_unreachable("unknown result kind");
}

Result *GraphImporter::peek(Node &node, unsigned index) {
  const json::Value *value = node.get(index);
  const json::Object *object = value ? value->getAsObject() : nullptr;
  std::optional<StringRef> name =
      object ? object->getString("node") : std::nullopt;
  if (!name)
    return nullptr;
  auto it = nodeResults.find(*name);
  int64_t resultIndex = object->getInteger("index").value_or(0);
  if (it == nodeResults.end() || resultIndex < 0 ||
      resultIndex >= static_cast<int64_t>(it->second.size()))
    return nullptr;
  return &it->second[resultIndex];
}

FailureOr<Value> GraphImporter::getTensor(Node &node, unsigned index,
                                          StringRef keyword) {
  const json::Value *value = node.get(index, keyword);
  if (!value || value->kind() == json::Value::Null)
    return emitError(node.loc)
           << node.target << ": argument #" << index << " is missing";
  return getReferenced(node, *value);
}

FailureOr<Value> GraphImporter::getMatmulOperand(Node &node, unsigned index,
                                                 bool &transposed) {
  transposed = false;
  const json::Value *value = node.get(index);
  if (value)
    if (const json::Object *object = value->getAsObject())
      if (object->getString("node")) {
        bool poisonedInput = false;
        FailureOr<Result *> result = lookup(node, *value, poisonedInput);
        if (failed(result))
          return failure();
        if ((*result)->kind == Result::Kind::Transposed) {
          transposed = true;
          return (*result)->value;
        }
      }
  return getTensor(node, index);
}

/// A JSON number, or a non-finite float as the exporter writes it:
/// `{"float": "inf" | "-inf" | "nan"}`.
static std::optional<double> parseFloat(const json::Value &value) {
  if (std::optional<double> number = value.getAsNumber())
    return number;
  const json::Object *object = value.getAsObject();
  std::optional<StringRef> special =
      object ? object->getString("float") : std::nullopt;
  if (special == "inf")
    return std::numeric_limits<double>::infinity();
  if (special == "-inf")
    return -std::numeric_limits<double>::infinity();
  if (special == "nan")
    return std::numeric_limits<double>::quiet_NaN();
  return std::nullopt;
}

template <typename T>
FailureOr<T> GraphImporter::getScalar(
    Node &node, unsigned index, StringRef keyword,
    std::optional<T> defaultValue,
    llvm::function_ref<std::optional<T>(const json::Value &)> parse,
    StringRef kind) {
  const json::Value *value = node.get(index, keyword);
  if (!value || value->kind() == json::Value::Null) {
    if (defaultValue)
      return *defaultValue;
    return emitError(node.loc)
           << node.target << ": argument #" << index << " is missing";
  }
  if (std::optional<T> parsed = parse(*value))
    return *parsed;
  return emitError(node.loc)
         << node.target << ": argument #" << index << " is not " << kind;
}

FailureOr<int64_t> GraphImporter::getInt(Node &node, unsigned index,
                                         StringRef keyword,
                                         std::optional<int64_t> defaultValue) {
  return getScalar<int64_t>(
      node, index, keyword, defaultValue,
      [](const json::Value &value) -> std::optional<int64_t> {
        if (std::optional<bool> boolean = value.getAsBoolean())
          return static_cast<int64_t>(*boolean);
        return value.getAsInteger();
      },
      "an integer");
}

FailureOr<double> GraphImporter::getDouble(Node &node, unsigned index,
                                           StringRef keyword,
                                           std::optional<double> defaultValue) {
  return getScalar<double>(node, index, keyword, defaultValue, parseFloat,
                           "a number");
}

FailureOr<bool> GraphImporter::getBool(Node &node, unsigned index,
                                       StringRef keyword,
                                       std::optional<bool> defaultValue) {
  return getScalar<bool>(
      node, index, keyword, defaultValue,
      [](const json::Value &value) { return value.getAsBoolean(); },
      "a boolean");
}

FailureOr<SmallVector<int64_t>>
GraphImporter::getIntList(Node &node, unsigned index, StringRef keyword) {
  const json::Value *value = node.get(index, keyword);
  const json::Array *array = value ? value->getAsArray() : nullptr;
  if (!array)
    return emitError(node.loc)
           << node.target << ": argument #" << index << " is not a list";
  SmallVector<int64_t> list;
  for (const json::Value &element : *array) {
    std::optional<int64_t> integer = element.getAsInteger();
    if (!integer)
      return emitError(node.loc) << node.target << ": argument #" << index
                                 << " is not a list of integers";
    list.push_back(*integer);
  }
  return list;
}

FailureOr<SmallVector<int64_t>>
GraphImporter::getIntList(Node &node, unsigned index, StringRef keyword,
                          size_t size,
                          std::optional<SmallVector<int64_t>> defaultValue) {
  const json::Value *value = node.get(index, keyword);
  if (!value || value->kind() == json::Value::Null ||
      (value->getAsArray() && value->getAsArray()->empty())) {
    if (defaultValue)
      return *defaultValue;
    return emitError(node.loc)
           << node.target << ": argument #" << index << " is missing";
  }
  if (std::optional<int64_t> integer = value->getAsInteger())
    return SmallVector<int64_t>(size, *integer);
  FailureOr<SmallVector<int64_t>> list = getIntList(node, index, keyword);
  if (failed(list))
    return failure();
  if (list->size() == 1)
    list->resize(size, list->front());
  if (list->size() != size)
    return emitError(node.loc)
           << node.target << ": argument #" << index << " has " << list->size()
           << " entries; expected " << size;
  return list;
}

FailureOr<StringRef> GraphImporter::getString(Node &node, unsigned index,
                                              StringRef keyword,
                                              StringRef defaultValue) {
  const json::Value *value = node.get(index, keyword);
  if (!value || value->kind() == json::Value::Null)
    return defaultValue;
  if (std::optional<StringRef> string = value->getAsString())
    return *string;
  return emitError(node.loc)
         << node.target << ": argument '" << keyword << "' is not a string";
}

FailureOr<int64_t> GraphImporter::getDim(Node &node, unsigned index,
                                         StringRef keyword, int64_t rank) {
  FailureOr<int64_t> dim = getInt(node, index, keyword);
  if (failed(dim))
    return failure();
  int64_t normalized = *dim < 0 ? *dim + rank : *dim;
  if (normalized < 0 || normalized >= rank)
    return emitError(node.loc) << node.target << ": dimension " << *dim
                               << " is out of range for rank " << rank;
  return normalized;
}

//===----------------------------------------------------------------------===//
// Helpers
//===----------------------------------------------------------------------===//

FailureOr<Value> GraphImporter::getConstantValue(Node &node, StringRef name) {
  if (Value value = constantValues.lookup(name))
    return value;
  const json::Object *object = getConstant(name);
  if (!object)
    return emitError(node.loc)
           << node.target << " reads undeclared constant '" << name << "'";
  FailureOr<RankedTensorType> type =
      parseTensorType(object, "constant '" + name + "'");
  if (failed(type))
    return failure();
  const json::Array *data = object->getArray("data");
  if (static_cast<int64_t>(data->size()) != type->getNumElements())
    return emitError(node.loc)
           << "constant '" << name << "' has " << data->size() << " values for "
           << type->getNumElements() << " elements";
  Type element = type->getElementType();
  if (element.isInteger(1))
    return emitError(node.loc)
           << node.target << " reads the boolean constant '" << name
           << "'; boolean masks are supported only as causal masks of "
              "masked_fill";
  SmallVector<Attribute> values;
  values.reserve(data->size());
  for (const json::Value &entry : *data) {
    if (auto floatType = dyn_cast<FloatType>(element)) {
      std::optional<double> number = parseFloat(entry);
      if (!number)
        return emitError(node.loc) << "constant '" << name
                                   << "' holds a value that is not a number";
      values.push_back(FloatAttr::get(floatType, *number));
      continue;
    }
    std::optional<int64_t> integer = entry.getAsInteger();
    if (!integer)
      return emitError(node.loc)
             << "constant '" << name << "' holds a non-integer value";
    values.push_back(IntegerAttr::get(element, *integer));
  }
  OpBuilder &b = getBuilder();
  OpBuilder::InsertionGuard guard(b);
  // At the top of the function: every reader comes later.
  b.setInsertionPointToStart(&builder->getFunction().getBody().front());
  Value value =
      arith::ConstantOp::create(b, NameLoc::get(b.getStringAttr(name), fileLoc),
                                DenseElementsAttr::get(*type, values));
  constantValues[name] = value;
  return value;
}

std::optional<int64_t> GraphImporter::getArangeStart(StringRef name) {
  const json::Object *object = getConstant(name);
  const json::Array *data = object ? object->getArray("data") : nullptr;
  const json::Array *shape = object ? object->getArray("shape") : nullptr;
  if (!data || !shape || shape->size() != 1 || data->empty())
    return std::nullopt;
  std::optional<int64_t> start = (*data)[0].getAsInteger();
  if (!start)
    return std::nullopt;
  for (auto [i, entry] : llvm::enumerate(*data))
    if (entry.getAsInteger() != *start + static_cast<int64_t>(i))
      return std::nullopt;
  return start;
}

RankedTensorType GraphImporter::getOutputType(Node &node, unsigned index) {
  return index < node.outputs.size() ? node.outputs[index] : nullptr;
}

FailureOr<RankedTensorType> GraphImporter::getRequiredOutputType(Node &node) {
  if (RankedTensorType type = getOutputType(node))
    return type;
  return emitError(node.loc) << node.target << ": its result shape is missing";
}

Value GraphImporter::reshapeTo(Node &node, Value value,
                               ArrayRef<int64_t> shape) {
  if (shapeOf(value) == shape)
    return value;
  return builder->reshape(value, shape, "reshape");
}

Type GraphImporter::getLossElementType() {
  Type element = builder->getElementType();
  return element.isF64() ? element : Builder(getContext()).getF32Type();
}

FailureOr<Value> GraphImporter::broadcastTo(Node &node, Value value,
                                            ArrayRef<int64_t> shape) {
  ArrayRef<int64_t> from = shapeOf(value);
  if (from == shape)
    return value;
  int64_t rank = shape.size();
  int64_t offset = rank - static_cast<int64_t>(from.size());
  if (offset < 0)
    return emitError(node.loc) << node.target << ": cannot broadcast a rank-"
                               << from.size() << " operand to rank " << rank;
  // Keep the dimensions the operand has; broadcast along the others.
  SmallVector<int64_t> kept, dims;
  for (int64_t d = 0; d < rank; ++d) {
    int64_t size = d < offset ? 1 : from[d - offset];
    if (size == shape[d] && d >= offset) {
      kept.push_back(size);
      continue;
    }
    if (size != 1)
      return emitError(node.loc) << node.target << ": operand of shape "
                                 << cast<RankedTensorType>(value.getType())
                                 << " does not broadcast to the result";
    dims.push_back(d);
  }
  Value reshaped = reshapeTo(node, value, kept);
  auto type = cast<RankedTensorType>(value.getType()).clone(shape);
  return train::BroadcastOp::create(getBuilder(), reshaped.getLoc(), type,
                                    reshaped, dims)
      .getResult();
}

LogicalResult GraphImporter::broadcastOperands(Node &node, Value &lhs,
                                               Value &rhs) {
  FailureOr<RankedTensorType> output = getRequiredOutputType(node);
  if (failed(output))
    return failure();
  FailureOr<Value> l = broadcastTo(node, lhs, output->getShape());
  if (failed(l))
    return failure();
  FailureOr<Value> r = broadcastTo(node, rhs, output->getShape());
  if (failed(r))
    return failure();
  lhs = *l;
  rhs = *r;
  return success();
}

//===----------------------------------------------------------------------===//
// Handlers
//===----------------------------------------------------------------------===//

LogicalResult GraphImporter::importConvolution(Node &node,
                                               SmallVectorImpl<Result> &out) {
  FailureOr<Value> input = getTensor(node, 0);
  FailureOr<Value> filter = getTensor(node, 1);
  if (failed(input) || failed(filter))
    return failure();
  if (shapeOf(*input).size() != 4)
    return emitError(node.loc)
           << "only 2-D convolutions (NCHW inputs) are supported; this one "
              "has a rank-"
           << shapeOf(*input).size() << " input";
  FailureOr<SmallVector<int64_t>> strides = getIntList(node, 3, "stride", 2);
  FailureOr<SmallVector<int64_t>> padding = getIntList(node, 4, "padding", 2);
  FailureOr<SmallVector<int64_t>> dilation = getIntList(node, 5, "dilation", 2);
  FailureOr<bool> transposed = getBool(node, 6, "transposed", false);
  FailureOr<int64_t> groups = getInt(node, 8, "groups", 1);
  if (failed(strides) || failed(padding) || failed(dilation) ||
      failed(transposed) || failed(groups))
    return failure();
  if (*transposed)
    return emitError(node.loc)
           << "transposed convolutions (ConvTranspose2d) are not supported";
  FailureOr<RankedTensorType> outputType = getRequiredOutputType(node);
  if (failed(outputType))
    return failure();
  RankedTensorType type = *outputType;
  Value result = train::Conv2dOp::create(
      getBuilder(), builder->loc("conv"), type, *input, *filter, *strides,
      *padding, *dilation, static_cast<uint64_t>(*groups));
  if (!node.isNone(2)) {
    FailureOr<Value> bias = getTensor(node, 2);
    if (failed(bias))
      return failure();
    result = builder->biasAdd(result, *bias, 1, "bias");
  }
  out.push_back(plain(result));
  return success();
}

LogicalResult GraphImporter::importBatchNorm(Node &node,
                                             SmallVectorImpl<Result> &out) {
  FailureOr<Value> input = getTensor(node, 0);
  if (failed(input))
    return failure();
  FailureOr<bool> training = getBool(node, 5, "training");
  FailureOr<double> epsilon = getDouble(node, 7, "eps");
  if (failed(training) || failed(epsilon))
    return failure();
  if (!*training)
    return emitError(node.loc) << "batch norm in evaluation mode (running "
                                  "statistics) is not supported; export the "
                                  "model in training mode";
  if (shapeOf(*input).size() != 4)
    return emitError(node.loc) << "only BatchNorm2d (NCHW inputs) is supported";
  if (node.isNone(1) || node.isNone(2))
    return emitError(node.loc)
           << "batch norm without affine weight and bias is not supported";
  FailureOr<Value> gamma = getTensor(node, 1);
  FailureOr<Value> beta = getTensor(node, 2);
  if (failed(gamma) || failed(beta))
    return failure();
  int64_t channels = shapeOf(*input)[1];
  // Normalization statistics are f32 whatever the model's type.
  auto stat = RankedTensorType::get({channels}, getBuilder().getF32Type());
  auto op = train::BatchNormOp::create(
      getBuilder(), builder->loc("batch_norm"), (*input).getType(), stat, stat,
      *input, *gamma, *beta, getBuilder().getF64FloatAttr(*epsilon));
  out.push_back(plain(op.getResult()));
  return success();
}

LogicalResult GraphImporter::importLayerNorm(Node &node,
                                             SmallVectorImpl<Result> &out) {
  FailureOr<Value> input = getTensor(node, 0);
  FailureOr<SmallVector<int64_t>> normalized =
      getIntList(node, 1, "normalized_shape");
  FailureOr<double> epsilon = getDouble(node, 4, "eps");
  if (failed(input) || failed(normalized) || failed(epsilon))
    return failure();
  ArrayRef<int64_t> shape = shapeOf(*input);
  if (normalized->size() != 1 || shape.empty() ||
      normalized->front() != shape.back())
    return emitError(node.loc)
           << "layer norm over more than the last dimension is not supported";
  if (node.isNone(2) || node.isNone(3))
    return emitError(node.loc)
           << "layer norm without affine weight and bias is not supported";
  FailureOr<Value> gamma = getTensor(node, 2);
  FailureOr<Value> beta = getTensor(node, 3);
  if (failed(gamma) || failed(beta))
    return failure();
  auto stat =
      RankedTensorType::get(shape.drop_back(), getBuilder().getF32Type());
  auto op = train::LayerNormOp::create(
      getBuilder(), builder->loc("layer_norm"), (*input).getType(), stat, stat,
      *input, *gamma, *beta, getBuilder().getF64FloatAttr(*epsilon));
  out.push_back(plain(op.getResult()));
  return success();
}

LogicalResult GraphImporter::importRelu(Node &node,
                                        SmallVectorImpl<Result> &out) {
  FailureOr<Value> input = getTensor(node, 0);
  if (failed(input))
    return failure();
  out.push_back(plain(builder->relu(*input, "relu")));
  return success();
}

LogicalResult GraphImporter::importHardtanh(Node &node,
                                            SmallVectorImpl<Result> &out) {
  FailureOr<Value> input = getTensor(node, 0);
  bool clamp = node.target.starts_with("aten.clamp");
  FailureOr<double> lower =
      getDouble(node, 1, clamp ? "min" : "min_val",
                clamp ? std::nullopt : std::optional<double>(-1.0));
  FailureOr<double> upper =
      getDouble(node, 2, clamp ? "max" : "max_val",
                clamp ? std::nullopt : std::optional<double>(1.0));
  if (failed(input) || failed(lower) || failed(upper))
    return failure();
  if (*lower != 0.0 || !(*upper > 0.0) || !std::isfinite(*upper))
    return emitError(node.loc)
           << "clamping to [" << *lower << ", " << *upper
           << "] is not supported; only [0, upper] (ReLU6) is";
  out.push_back(plain(builder->relu6(*input, *upper, "relu6")));
  return success();
}

LogicalResult GraphImporter::importGelu(Node &node,
                                        SmallVectorImpl<Result> &out) {
  FailureOr<Value> input = getTensor(node, 0);
  FailureOr<StringRef> approximate = getString(node, 1, "approximate", "none");
  if (failed(input) || failed(approximate))
    return failure();
  if (*approximate != "none" && *approximate != "tanh")
    return emitError(node.loc)
           << "unknown gelu approximation '" << *approximate << "'";
  out.push_back(plain(builder->gelu(*input, *approximate == "tanh", "gelu")));
  return success();
}

LogicalResult GraphImporter::importPow(Node &node,
                                       SmallVectorImpl<Result> &out) {
  FailureOr<Value> input = getTensor(node, 0);
  FailureOr<double> exponent = getDouble(node, 1, "exponent");
  if (failed(input) || failed(exponent))
    return failure();
  if (*exponent != 2.0 || shapeOf(*input).empty())
    return emitError(node.loc) << "pow with exponent " << *exponent
                               << " is not supported (only x.pow(2) of an "
                                  "RMSNorm)";
  Result result;
  result.kind = Result::Kind::Square;
  result.value = *input;
  out.push_back(result);
  return success();
}

LogicalResult GraphImporter::importRsqrt(Node &node,
                                         SmallVectorImpl<Result> &out) {
  Result *input = peek(node, 0);
  if (!input || input->kind != Result::Kind::MeanSquareEps)
    return emitError(node.loc) << "rsqrt is supported only in an RMSNorm, "
                                  "x * rsqrt(x.pow(2).mean(-1, keepdim=True) "
                                  "+ eps)";
  Result result = *input;
  result.kind = Result::Kind::RmsInverse;
  out.push_back(result);
  return success();
}

LogicalResult GraphImporter::importNeg(Node &node,
                                       SmallVectorImpl<Result> &out) {
  FailureOr<Value> input = getTensor(node, 0);
  if (failed(input))
    return failure();
  out.push_back(plain(builder->scale(*input, -1.0, "neg")));
  return success();
}

LogicalResult GraphImporter::importToCopy(Node &node,
                                          SmallVectorImpl<Result> &out) {
  FailureOr<Value> input = getTensor(node, 0);
  if (failed(input))
    return failure();
  RankedTensorType type = getOutputType(node);
  if (!type || type != (*input).getType())
    return emitError(node.loc)
           << "dtype conversions inside the model are not supported (export "
              "the model in one dtype; train-precision lowers precision)";
  out.push_back(plain(*input));
  return success();
}

template <Value (gen::ModelBuilder::*build)(Value, StringRef)>
LogicalResult GraphImporter::importActivation(Node &node,
                                              SmallVectorImpl<Result> &out) {
  FailureOr<Value> input = getTensor(node, 0);
  if (failed(input))
    return failure();
  out.push_back(plain(((*builder).*build)(*input, node.target)));
  return success();
}

/// Whether argument `index` of `node` is a number rather than a tensor.
static bool isScalar(const Node &node, unsigned index) {
  const json::Value *value = node.get(index);
  return value && parseFloat(*value);
}

LogicalResult GraphImporter::importAdd(Node &node,
                                       SmallVectorImpl<Result> &out) {
  if (Result *lhs = peek(node, 0))
    if (lhs->kind == Result::Kind::MeanSquare && isScalar(node, 1)) {
      FailureOr<double> epsilon = getDouble(node, 1, "other");
      FailureOr<double> alpha = getDouble(node, 2, "alpha", 1.0);
      if (failed(epsilon) || failed(alpha))
        return failure();
      Result result = *lhs;
      result.kind = Result::Kind::MeanSquareEps;
      result.epsilon = *epsilon * *alpha;
      out.push_back(result);
      return success();
    }
  return importAddOrSub(node, out, /*subtract=*/false);
}

/// `lhs + alpha * rhs` or `lhs - alpha * rhs` (aten.add/sub.Tensor), the
/// operands broadcast to the result.
LogicalResult GraphImporter::importAddOrSub(Node &node,
                                            SmallVectorImpl<Result> &out,
                                            bool subtract) {
  if (isScalar(node, 1))
    return emitError(node.loc)
           << (subtract ? "subtracting a number from a tensor"
                        : "adding a number to a tensor")
           << " is not supported";
  FailureOr<Value> lhs = getTensor(node, 0);
  FailureOr<Value> rhs = getTensor(node, 1);
  FailureOr<double> alpha = getDouble(node, 2, "alpha", 1.0);
  if (failed(lhs) || failed(rhs) || failed(alpha) ||
      failed(broadcastOperands(node, *lhs, *rhs)))
    return failure();
  Value right = *alpha == 1.0 ? *rhs : builder->scale(*rhs, *alpha, "alpha");
  out.push_back(plain(subtract ? builder->sub(*lhs, right, "sub")
                               : builder->add(*lhs, right, "add")));
  return success();
}

LogicalResult GraphImporter::importSub(Node &node,
                                       SmallVectorImpl<Result> &out) {
  return importAddOrSub(node, out, /*subtract=*/true);
}

LogicalResult GraphImporter::importMul(Node &node,
                                       SmallVectorImpl<Result> &out) {
  // x * rsqrt(mean(x^2) + eps), then that times the weight: train.rms_norm.
  for (unsigned side = 0; side < 2; ++side) {
    Result *pending = peek(node, side);
    if (!pending || pending->kind == Result::Kind::Value ||
        pending->kind == Result::Kind::Transposed)
      continue;
    if (pending->kind == Result::Kind::RmsInverse) {
      FailureOr<Value> other = getTensor(node, 1 - side);
      if (failed(other))
        return failure();
      if (*other != pending->value)
        return emitError(node.loc) << "rsqrt(x.pow(2).mean(-1) + eps) must "
                                      "multiply x itself (an RMSNorm)";
      Result result = *pending;
      result.kind = Result::Kind::RmsNormalized;
      out.push_back(result);
      return success();
    }
    if (pending->kind == Result::Kind::RmsNormalized) {
      FailureOr<Value> weight = getTensor(node, 1 - side);
      if (failed(weight))
        return failure();
      Value x = pending->value;
      if (shapeOf(*weight).size() != 1 ||
          shapeOf(*weight)[0] != shapeOf(x).back())
        return emitError(node.loc)
               << "an RMSNorm's weight must be a vector over the last "
                  "dimension";
      auto stat = RankedTensorType::get(shapeOf(x).drop_back(),
                                        getBuilder().getF32Type());
      out.push_back(
          plain(train::RmsNormOp::create(
                    getBuilder(), builder->loc("rms_norm"), x.getType(), stat,
                    x, *weight, getBuilder().getF64FloatAttr(pending->epsilon))
                    .getResult()));
      return success();
    }
  }
  FailureOr<Value> lhs = getTensor(node, 0);
  if (failed(lhs))
    return failure();
  if (isScalar(node, 1)) {
    FailureOr<double> factor = getDouble(node, 1, "other");
    if (failed(factor))
      return failure();
    out.push_back(plain(builder->scale(*lhs, *factor, "mul")));
    return success();
  }
  FailureOr<Value> rhs = getTensor(node, 1);
  if (failed(rhs) || failed(broadcastOperands(node, *lhs, *rhs)))
    return failure();
  out.push_back(plain(builder->mul(*lhs, *rhs, "mul")));
  return success();
}

LogicalResult GraphImporter::importDiv(Node &node,
                                       SmallVectorImpl<Result> &out) {
  FailureOr<Value> lhs = getTensor(node, 0);
  if (failed(lhs))
    return failure();
  if (!isScalar(node, 1) || !node.isNone(2, "rounding_mode"))
    return emitError(node.loc)
           << "only division by a number (without rounding) is supported";
  FailureOr<double> divisor = getDouble(node, 1, "other");
  if (failed(divisor))
    return failure();
  if (*divisor == 0.0 || !std::isfinite(*divisor))
    return emitError(node.loc) << "division by " << *divisor;
  out.push_back(plain(builder->scale(*lhs, 1.0 / *divisor, "div")));
  return success();
}

/// Fails unless every kernel size and stride is positive and every padding
/// non-negative and at most half the kernel (as PyTorch requires).
static LogicalResult checkWindows(Node &node, ArrayRef<int64_t> kernel,
                                  ArrayRef<int64_t> strides,
                                  ArrayRef<int64_t> padding) {
  for (int d = 0; d < 2; ++d)
    if (kernel[d] <= 0 || strides[d] <= 0 || padding[d] < 0 ||
        2 * padding[d] > kernel[d])
      return emitError(node.loc)
             << node.target << ": kernel " << kernel[d] << ", stride "
             << strides[d] << " and padding " << padding[d]
             << " do not describe a pooling window";
  return success();
}

/// Whether PyTorch's ceil_mode adds a partial last window to pooling the
/// NCHW shape `in`: in a dimension whose windows do not tile the padded
/// input, one more window when it starts inside the input or its left
/// padding.
static bool addsPartialWindow(ArrayRef<int64_t> in, ArrayRef<int64_t> kernel,
                              ArrayRef<int64_t> strides,
                              ArrayRef<int64_t> padding) {
  for (int d = 0; d < 2; ++d) {
    int64_t span = in[2 + d] + 2 * padding[d] - kernel[d];
    int64_t windows = span / strides[d] + 1;
    if (span % strides[d] != 0 && windows * strides[d] < in[2 + d] + padding[d])
      return true;
  }
  return false;
}

LogicalResult GraphImporter::importMaxPool(Node &node,
                                           SmallVectorImpl<Result> &out) {
  FailureOr<Value> input = getTensor(node, 0);
  FailureOr<SmallVector<int64_t>> kernel =
      getIntList(node, 1, "kernel_size", 2);
  if (failed(input) || failed(kernel))
    return failure();
  FailureOr<SmallVector<int64_t>> strides =
      getIntList(node, 2, "stride", 2, *kernel);
  FailureOr<SmallVector<int64_t>> padding =
      getIntList(node, 3, "padding", 2, SmallVector<int64_t>{0, 0});
  FailureOr<SmallVector<int64_t>> dilation =
      getIntList(node, 4, "dilation", 2, SmallVector<int64_t>{1, 1});
  FailureOr<bool> ceilMode = getBool(node, 5, "ceil_mode", false);
  if (failed(strides) || failed(padding) || failed(dilation) ||
      failed(ceilMode))
    return failure();
  if ((*dilation)[0] != 1 || (*dilation)[1] != 1)
    return emitError(node.loc) << "dilated max pooling is not supported";
  ArrayRef<int64_t> in = shapeOf(*input);
  if (in.size() != 4)
    return emitError(node.loc) << "only max_pool2d on NCHW inputs is supported";
  if (failed(checkWindows(node, *kernel, *strides, *padding)))
    return failure();
  // ceil_mode matters only where it adds a partial window.
  bool partialWindow =
      *ceilMode && addsPartialWindow(in, *kernel, *strides, *padding);
  FailureOr<RankedTensorType> outputType = getRequiredOutputType(node);
  if (failed(outputType))
    return failure();
  RankedTensorType type = *outputType;
  Value result = train::MaxPool2dOp::create(
      getBuilder(), builder->loc("max_pool"), type, *input, *kernel, *strides,
      *padding, partialWindow);
  out.push_back(plain(result));
  // The indices have no train counterpart (the backward recomputes them).
  out.push_back(Result());
  return success();
}

LogicalResult GraphImporter::importAvgPool(Node &node,
                                           SmallVectorImpl<Result> &out) {
  FailureOr<Value> input = getTensor(node, 0);
  FailureOr<SmallVector<int64_t>> kernel =
      getIntList(node, 1, "kernel_size", 2);
  if (failed(input) || failed(kernel))
    return failure();
  FailureOr<SmallVector<int64_t>> strides =
      getIntList(node, 2, "stride", 2, *kernel);
  FailureOr<SmallVector<int64_t>> padding =
      getIntList(node, 3, "padding", 2, SmallVector<int64_t>{0, 0});
  FailureOr<bool> ceilMode = getBool(node, 4, "ceil_mode", false);
  FailureOr<bool> countPadding = getBool(node, 5, "count_include_pad", true);
  if (failed(strides) || failed(padding) || failed(ceilMode) ||
      failed(countPadding))
    return failure();
  // train.avg_pool2d divides by the window's size, padding included.
  if (((*padding)[0] != 0 || (*padding)[1] != 0) && !*countPadding)
    return emitError(node.loc)
           << "average pooling with padding and count_include_pad=False is "
              "not supported";
  if (!node.isNone(6, "divisor_override"))
    return emitError(node.loc)
           << "average pooling with a divisor override is not supported";
  ArrayRef<int64_t> in = shapeOf(*input);
  if (in.size() != 4)
    return emitError(node.loc) << "only avg_pool2d on NCHW inputs is supported";
  if (failed(checkWindows(node, *kernel, *strides, *padding)))
    return failure();
  if (*ceilMode && addsPartialWindow(in, *kernel, *strides, *padding))
    return emitError(node.loc)
           << "average pooling with ceil_mode=True that adds a partial "
              "window is not supported";
  FailureOr<RankedTensorType> outputType = getRequiredOutputType(node);
  if (failed(outputType))
    return failure();
  RankedTensorType type = *outputType;
  out.push_back(plain(
      train::AvgPool2dOp::create(getBuilder(), builder->loc("avg_pool"), type,
                                 *input, *kernel, *strides, *padding)));
  return success();
}

LogicalResult
GraphImporter::importAdaptiveAvgPool(Node &node, SmallVectorImpl<Result> &out) {
  FailureOr<Value> input = getTensor(node, 0);
  FailureOr<SmallVector<int64_t>> size = getIntList(node, 1, "output_size", 2);
  if (failed(input) || failed(size))
    return failure();
  ArrayRef<int64_t> in = shapeOf(*input);
  if (in.size() != 4)
    return emitError(node.loc)
           << "only adaptive_avg_pool2d on NCHW inputs is supported";
  int64_t h = in[2], w = in[3], oh = (*size)[0], ow = (*size)[1];
  if (oh <= 0 || ow <= 0)
    return emitError(node.loc) << "adaptive pooling to an empty output";
  // Windows that tile the input evenly: plain average pooling.
  if (h % oh == 0 && w % ow == 0) {
    if (oh == h && ow == w) {
      out.push_back(plain(*input));
      return success();
    }
    out.push_back(
        plain(builder->avgPool2d(*input, h / oh, w / ow, "avg_pool")));
    return success();
  }
  // Each input element repeated over a whole block of outputs: that is
  // nearest upsampling (VGG's 7x7 pooling of a 1x1 map at small inputs).
  if (oh % h == 0 && ow % w == 0 && oh / h == ow / w) {
    out.push_back(
        plain(builder->upsampleNearest2d(*input, oh / h, "upsample")));
    return success();
  }
  return emitError(node.loc) << "adaptive average pooling from " << h << "x"
                             << w << " to " << oh << "x" << ow
                             << " has windows of different sizes; only "
                                "divisible sizes are supported";
}

LogicalResult GraphImporter::importMean(Node &node,
                                        SmallVectorImpl<Result> &out) {
  if (Result *square = peek(node, 0))
    if (square->kind == Result::Kind::Square) {
      int64_t rank = shapeOf(square->value).size();
      FailureOr<SmallVector<int64_t>> dims = getIntList(node, 1, "dim");
      FailureOr<bool> keepdim = getBool(node, 2, "keepdim", false);
      if (failed(dims) || failed(keepdim))
        return failure();
      if (dims->size() != 1 || ((*dims)[0] != -1 && (*dims)[0] != rank - 1) ||
          !*keepdim)
        return emitError(node.loc)
               << "the mean of x.pow(2) is supported only over the last "
                  "dimension with keepdim=True (an RMSNorm)";
      Result result = *square;
      result.kind = Result::Kind::MeanSquare;
      out.push_back(result);
      return success();
    }
  FailureOr<Value> input = getTensor(node, 0);
  if (failed(input))
    return failure();
  ArrayRef<int64_t> in = shapeOf(*input);
  int64_t rank = in.size();
  SmallVector<int64_t> dims;
  if (node.isNone(1, "dim")) {
    for (int64_t d = 0; d < rank; ++d)
      dims.push_back(d);
  } else {
    FailureOr<SmallVector<int64_t>> list = getIntList(node, 1, "dim");
    if (failed(list))
      return failure();
    for (int64_t d : *list) {
      int64_t normalized = d < 0 ? d + rank : d;
      if (normalized < 0 || normalized >= rank)
        return emitError(node.loc) << "mean over dimension " << d
                                   << " of a rank-" << rank << " tensor";
      dims.push_back(normalized);
    }
    llvm::sort(dims);
    dims.erase(std::unique(dims.begin(), dims.end()), dims.end());
  }
  if (!node.isNone(3, "dtype"))
    return emitError(node.loc) << "mean with a dtype argument is not supported";
  FailureOr<RankedTensorType> outputType = getRequiredOutputType(node);
  if (failed(outputType))
    return failure();
  RankedTensorType type = *outputType;
  // The spatial mean of NCHW activations is a global average pool.
  if (rank == 4 && dims == SmallVector<int64_t>{2, 3}) {
    Value pooled = builder->avgPool2d(*input, in[2], in[3], "mean");
    out.push_back(plain(reshapeTo(node, pooled, type.getShape())));
    return success();
  }
  int64_t count = 1;
  SmallVector<int64_t> reduced;
  for (int64_t d = 0; d < rank; ++d) {
    if (llvm::is_contained(dims, d))
      count *= in[d];
    else
      reduced.push_back(in[d]);
  }
  auto sumType = cast<RankedTensorType>((*input).getType()).clone(reduced);
  Value sum = train::ReduceSumOp::create(getBuilder(), builder->loc("mean"),
                                         sumType, *input, dims);
  Value mean = builder->scale(sum, 1.0 / static_cast<double>(count), "mean");
  out.push_back(plain(reshapeTo(node, mean, type.getShape())));
  return success();
}

LogicalResult GraphImporter::importReshape(Node &node,
                                           SmallVectorImpl<Result> &out) {
  FailureOr<Value> input = getTensor(node, 0);
  if (failed(input))
    return failure();
  FailureOr<RankedTensorType> outputType = getRequiredOutputType(node);
  if (failed(outputType))
    return failure();
  RankedTensorType type = *outputType;
  out.push_back(plain(reshapeTo(node, *input, type.getShape())));
  return success();
}

LogicalResult GraphImporter::importIdentity(Node &node,
                                            SmallVectorImpl<Result> &out) {
  FailureOr<Value> input = getTensor(node, 0);
  if (failed(input))
    return failure();
  out.push_back(plain(*input));
  return success();
}

LogicalResult GraphImporter::importT(Node &node, SmallVectorImpl<Result> &out) {
  FailureOr<Value> input = getTensor(node, 0);
  if (failed(input))
    return failure();
  if (shapeOf(*input).size() != 2) {
    // t of a vector is the vector.
    out.push_back(plain(*input));
    return success();
  }
  Result result;
  result.kind = Result::Kind::Transposed;
  result.value = *input;
  out.push_back(result);
  return success();
}

LogicalResult GraphImporter::importTranspose(Node &node,
                                             SmallVectorImpl<Result> &out) {
  FailureOr<Value> input = getTensor(node, 0);
  if (failed(input))
    return failure();
  int64_t rank = shapeOf(*input).size();
  FailureOr<int64_t> d0 = getDim(node, 1, "dim0", rank);
  FailureOr<int64_t> d1 = getDim(node, 2, "dim1", rank);
  if (failed(d0) || failed(d1))
    return failure();
  if (*d0 == *d1) {
    out.push_back(plain(*input));
    return success();
  }
  SmallVector<int64_t> permutation =
      llvm::to_vector(llvm::seq<int64_t>(0, rank));
  std::swap(permutation[*d0], permutation[*d1]);
  out.push_back(plain(builder->transpose(*input, permutation, "transpose")));
  return success();
}

LogicalResult GraphImporter::importPermute(Node &node,
                                           SmallVectorImpl<Result> &out) {
  FailureOr<Value> input = getTensor(node, 0);
  FailureOr<SmallVector<int64_t>> dims = getIntList(node, 1, "dims");
  if (failed(input) || failed(dims))
    return failure();
  int64_t rank = shapeOf(*input).size();
  SmallVector<int64_t> permutation;
  for (int64_t d : *dims)
    permutation.push_back(d < 0 ? d + rank : d);
  SmallVector<int64_t> sorted(permutation);
  llvm::sort(sorted);
  if (sorted != llvm::to_vector(llvm::seq<int64_t>(0, rank)))
    return emitError(node.loc)
           << "permute: not a permutation of the " << rank << " dimensions";
  if (sorted == permutation) {
    out.push_back(plain(*input));
    return success();
  }
  out.push_back(plain(builder->transpose(*input, permutation, "permute")));
  return success();
}

LogicalResult GraphImporter::importExpand(Node &node,
                                          SmallVectorImpl<Result> &out) {
  FailureOr<Value> input = getTensor(node, 0);
  if (failed(input))
    return failure();
  FailureOr<RankedTensorType> outputType = getRequiredOutputType(node);
  if (failed(outputType))
    return failure();
  RankedTensorType type = *outputType;
  FailureOr<Value> result = broadcastTo(node, *input, type.getShape());
  if (failed(result))
    return failure();
  out.push_back(plain(*result));
  return success();
}

LogicalResult GraphImporter::importAddmm(Node &node,
                                         SmallVectorImpl<Result> &out) {
  FailureOr<double> beta = getDouble(node, 3, "beta", 1.0);
  FailureOr<double> alpha = getDouble(node, 4, "alpha", 1.0);
  if (failed(beta) || failed(alpha))
    return failure();
  if (*beta != 1.0 || *alpha != 1.0)
    return emitError(node.loc) << "addmm with beta or alpha other than 1 is "
                                  "not supported";
  bool transposeLhs = false, transposeRhs = false;
  FailureOr<Value> lhs = getMatmulOperand(node, 1, transposeLhs);
  FailureOr<Value> rhs = getMatmulOperand(node, 2, transposeRhs);
  FailureOr<Value> bias = getTensor(node, 0);
  if (failed(lhs) || failed(rhs) || failed(bias))
    return failure();
  if (shapeOf(*lhs).size() != 2 || shapeOf(*rhs).size() != 2)
    return emitError(node.loc) << "addmm needs matrices";
  Value product =
      builder->matmul(*lhs, *rhs, transposeLhs, transposeRhs, "matmul");
  if (shapeOf(*bias).size() == 1 && shapeOf(*bias)[0] == shapeOf(product)[1]) {
    out.push_back(plain(builder->biasAdd(product, *bias, -1, "bias")));
    return success();
  }
  FailureOr<Value> broadcast = broadcastTo(node, *bias, shapeOf(product));
  if (failed(broadcast))
    return failure();
  out.push_back(plain(builder->add(product, *broadcast, "bias")));
  return success();
}

LogicalResult GraphImporter::importMm(Node &node,
                                      SmallVectorImpl<Result> &out) {
  bool transposeLhs = false, transposeRhs = false;
  FailureOr<Value> lhs = getMatmulOperand(node, 0, transposeLhs);
  FailureOr<Value> rhs = getMatmulOperand(node, 1, transposeRhs);
  if (failed(lhs) || failed(rhs))
    return failure();
  if (shapeOf(*lhs).size() < 2 || shapeOf(*rhs).size() < 2)
    return emitError(node.loc)
           << node.target << " needs operands of rank 2 or more";
  out.push_back(
      plain(builder->matmul(*lhs, *rhs, transposeLhs, transposeRhs, "matmul")));
  return success();
}

LogicalResult GraphImporter::importLogSoftmax(Node &node,
                                              SmallVectorImpl<Result> &out) {
  FailureOr<Value> input = getTensor(node, 0);
  if (failed(input))
    return failure();
  int64_t rank = shapeOf(*input).size();
  FailureOr<int64_t> dim = getDim(node, 1, "dim", rank);
  if (failed(dim))
    return failure();
  if (*dim != rank - 1)
    return emitError(node.loc)
           << "log_softmax over a dimension other than the last";
  Result result;
  result.kind = Result::Kind::LogSoftmax;
  result.value = *input;
  out.push_back(result);
  return success();
}

LogicalResult GraphImporter::importNllLoss(Node &node,
                                           SmallVectorImpl<Result> &out) {
  bool poisonedInput = false;
  const json::Value *first = node.get(0);
  if (!first)
    return emitError(node.loc) << "nll_loss: argument #0 is missing";
  FailureOr<Result *> logProbs = lookup(node, *first, poisonedInput);
  if (failed(logProbs))
    return failure();
  if ((*logProbs)->kind != Result::Kind::LogSoftmax)
    return emitError(node.loc) << "nll_loss is supported only on a "
                                  "log_softmax (that is, cross-entropy)";
  FailureOr<Value> labels = getTensor(node, 1);
  FailureOr<int64_t> reduction = getInt(node, 3, "reduction", 1);
  FailureOr<int64_t> ignoreIndex = getInt(node, 4, "ignore_index", -100);
  if (failed(labels) || failed(reduction) || failed(ignoreIndex))
    return failure();
  if (!node.isNone(2, "weight"))
    return emitError(node.loc) << "class weights are not supported";
  if (*reduction != 1)
    return emitError(node.loc)
           << "only the mean reduction of cross-entropy is supported";
  Value logits = (*logProbs)->value;
  auto lossType = RankedTensorType::get({}, getLossElementType());
  Value loss = train::CrossEntropyOp::create(
      getBuilder(), builder->loc("cross_entropy"), lossType, logits, *labels,
      getBuilder().getI64IntegerAttr(*ignoreIndex));
  out.push_back(plain(loss));
  // total_weight: the count of labels that are not ignored.
  out.push_back(Result());
  return success();
}

LogicalResult GraphImporter::importMseLoss(Node &node,
                                           SmallVectorImpl<Result> &out) {
  FailureOr<Value> input = getTensor(node, 0);
  FailureOr<Value> target = getTensor(node, 1);
  FailureOr<int64_t> reduction = getInt(node, 2, "reduction", 1);
  if (failed(input) || failed(target) || failed(reduction))
    return failure();
  if (*reduction != 1)
    return emitError(node.loc) << "only the mean reduction of mse_loss is "
                                  "supported";
  if (shapeOf(*input) != shapeOf(*target))
    return emitError(node.loc)
           << "mse_loss with operands of different shapes is not supported";
  out.push_back(plain(builder->mseLoss(*input, *target, "mse_loss")));
  return success();
}

LogicalResult GraphImporter::importDropout(Node &node,
                                           SmallVectorImpl<Result> &out) {
  FailureOr<Value> input = getTensor(node, 0);
  FailureOr<double> rate = getDouble(node, 1, "p");
  FailureOr<bool> train = getBool(node, 2, "train", true);
  if (failed(input) || failed(rate) || failed(train))
    return failure();
  if (*rate < 0.0 || *rate >= 1.0)
    return emitError(node.loc)
           << "dropout rate " << *rate << " is outside [0, 1)";
  out.push_back(
      plain(*train ? builder->dropout(*input, *rate, "dropout") : *input));
  // The mask has no train counterpart (train.dropout regenerates it).
  out.push_back(Result());
  return success();
}

LogicalResult GraphImporter::importCat(Node &node,
                                       SmallVectorImpl<Result> &out) {
  const json::Value *list = node.get(0, "tensors");
  const json::Array *array = list ? list->getAsArray() : nullptr;
  if (!array || array->empty())
    return emitError(node.loc) << "cat: expected a non-empty list of tensors";
  SmallVector<Value> operands;
  for (const json::Value &element : *array) {
    FailureOr<Value> value = getReferenced(node, element);
    if (failed(value))
      return failure();
    operands.push_back(*value);
  }
  int64_t rank = shapeOf(operands.front()).size();
  for (Value operand : operands)
    if (static_cast<int64_t>(shapeOf(operand).size()) != rank)
      return emitError(node.loc) << "cat of tensors of different ranks";
  FailureOr<int64_t> dim = getDim(node, 1, "dim", rank);
  if (failed(dim))
    return failure();
  if (operands.size() == 1) {
    out.push_back(plain(operands.front()));
    return success();
  }
  out.push_back(plain(builder->concat(operands, *dim, "cat")));
  return success();
}

LogicalResult GraphImporter::importEmbedding(Node &node,
                                             SmallVectorImpl<Result> &out) {
  FailureOr<Value> table = getTensor(node, 0);
  if (failed(table))
    return failure();
  // Rows start, start + 1, ... of the table (position embeddings of a
  // torch.arange) are a slice of it.
  if (const json::Value *idsArg = node.get(1))
    if (const json::Object *ref = idsArg->getAsObject())
      if (std::optional<StringRef> name = ref->getString("constant"))
        if (std::optional<int64_t> start = getArangeStart(*name)) {
          ArrayRef<int64_t> rows = shapeOf(*table);
          int64_t count = getConstant(*name)->getArray("data")->size();
          if (rows.size() == 2 && *start >= 0 && *start + count <= rows[0]) {
            out.push_back(plain(builder->slice(*table, {*start, 0},
                                               {count, rows[1]}, "embedding")));
            return success();
          }
        }
  FailureOr<Value> ids = getTensor(node, 1);
  if (failed(ids))
    return failure();
  FailureOr<int64_t> paddingIndex = getInt(node, 2, "padding_idx", -1);
  FailureOr<bool> scale = getBool(node, 3, "scale_grad_by_freq", false);
  FailureOr<bool> sparse = getBool(node, 4, "sparse", false);
  if (failed(paddingIndex) || failed(scale) || failed(sparse))
    return failure();
  if (*paddingIndex != -1 || *scale || *sparse)
    return emitError(node.loc) << "embedding with padding_idx, "
                                  "scale_grad_by_freq or sparse gradients is "
                                  "not supported";
  if (shapeOf(*table).size() != 2)
    return emitError(node.loc) << "embedding table must be 2-D";
  out.push_back(plain(builder->embedding(*table, *ids, "embedding")));
  return success();
}

/// F.pad by zero amounts (Swin pads windows only where they do not tile):
/// the input itself.
LogicalResult GraphImporter::importConstantPad(Node &node,
                                               SmallVectorImpl<Result> &out) {
  FailureOr<Value> input = getTensor(node, 0);
  FailureOr<SmallVector<int64_t>> pads = getIntList(node, 1, "pad");
  if (failed(input) || failed(pads))
    return failure();
  if (llvm::any_of(*pads, [](int64_t pad) { return pad != 0; }))
    return emitError(node.loc)
           << "padding by nonzero amounts (F.pad) is not supported";
  out.push_back(plain(*input));
  return success();
}

/// table[index] with one constant index tensor: a gather of the table's rows
/// (Swin's relative position bias), which is train.embedding once every
/// index is checked to lie in the table (PyTorch's negative indices are not
/// taken).
LogicalResult GraphImporter::importIndex(Node &node,
                                         SmallVectorImpl<Result> &out) {
  FailureOr<Value> table = getTensor(node, 0);
  if (failed(table))
    return failure();
  const json::Value *indices = node.get(1, "indices");
  const json::Array *list = indices ? indices->getAsArray() : nullptr;
  const json::Object *ref =
      list && list->size() == 1 ? (*list)[0].getAsObject() : nullptr;
  std::optional<StringRef> name =
      ref ? ref->getString("constant") : std::nullopt;
  if (!name)
    return emitError(node.loc)
           << "indexing is supported only by one constant index tensor on "
              "the first dimension (a gather of rows)";
  ArrayRef<int64_t> rows = shapeOf(*table);
  if (rows.size() != 2)
    return emitError(node.loc)
           << "indexing is supported only on 2-D tensors (rows of a table)";
  const json::Object *object = getConstant(*name);
  const json::Array *data = object ? object->getArray("data") : nullptr;
  if (data)
    for (const json::Value &entry : *data) {
      std::optional<int64_t> row = entry.getAsInteger();
      if (row && (*row < 0 || *row >= rows[0]))
        return emitError(node.loc)
               << "index " << *row << " of constant '" << *name
               << "' is outside the " << rows[0] << " rows it indexes";
    }
  FailureOr<Value> ids = getConstantValue(node, *name);
  if (failed(ids))
    return failure();
  if (!cast<RankedTensorType>(ids->getType()).getElementType().isInteger(64))
    return emitError(node.loc) << "indexing needs int64 indices";
  out.push_back(plain(builder->embedding(*table, *ids, "index")));
  return success();
}

/// Whether the constant `object` of shape `... x M x N` (leading dimensions
/// all 1) is true exactly above the diagonal (`j > i`), that is, PyTorch's
/// causal mask `tril(ones) == 0`.
static bool isCausalMask(const json::Object &object) {
  const json::Array *shape = object.getArray("shape");
  const json::Array *data = object.getArray("data");
  if (!shape || !data || shape->size() < 2)
    return false;
  SmallVector<int64_t> dims;
  for (const json::Value &dim : *shape)
    dims.push_back(dim.getAsInteger().value_or(-1));
  int64_t rows = dims[dims.size() - 2], cols = dims.back();
  for (int64_t d : ArrayRef<int64_t>(dims).drop_back(2))
    if (d != 1)
      return false;
  if (rows != cols || static_cast<int64_t>(data->size()) != rows * cols)
    return false;
  for (int64_t i = 0; i < rows; ++i)
    for (int64_t j = 0; j < cols; ++j) {
      std::optional<int64_t> bit = (*data)[i * cols + j].getAsInteger();
      if (!bit || (*bit != 0) != (j > i))
        return false;
    }
  return true;
}

LogicalResult GraphImporter::importMaskedFill(Node &node,
                                              SmallVectorImpl<Result> &out) {
  FailureOr<Value> input = getTensor(node, 0);
  FailureOr<double> value = getDouble(node, 2, "value");
  if (failed(input) || failed(value))
    return failure();
  const json::Value *maskArg = node.get(1, "mask");
  const json::Object *maskRef = maskArg ? maskArg->getAsObject() : nullptr;
  std::optional<StringRef> maskName =
      maskRef ? maskRef->getString("constant") : std::nullopt;
  const json::Object *mask = maskName ? getConstant(*maskName) : nullptr;
  if (!mask || !isCausalMask(*mask) || !std::isinf(*value) || *value > 0)
    return emitError(node.loc)
           << "masked_fill is supported only with -inf and a constant causal "
              "mask (true above the diagonal), before a softmax";
  ArrayRef<int64_t> shape = shapeOf(*input);
  const json::Array *maskShape = mask->getArray("shape");
  if (shape.size() < 2 ||
      (*maskShape)[maskShape->size() - 1].getAsInteger() != shape.back() ||
      (*maskShape)[maskShape->size() - 2].getAsInteger() !=
          shape[shape.size() - 2])
    return emitError(node.loc) << "masked_fill: the mask's last two "
                                  "dimensions differ from the input's";
  Result result;
  result.kind = Result::Kind::CausalMasked;
  result.value = *input;
  out.push_back(result);
  return success();
}

LogicalResult GraphImporter::importSoftmax(Node &node,
                                           SmallVectorImpl<Result> &out) {
  const json::Value *first = node.get(0);
  bool causal = false;
  Value input;
  if (first)
    if (const json::Object *object = first->getAsObject())
      if (object->getString("node")) {
        bool poisonedInput = false;
        FailureOr<Result *> result = lookup(node, *first, poisonedInput);
        if (failed(result))
          return failure();
        if ((*result)->kind == Result::Kind::CausalMasked) {
          causal = true;
          input = (*result)->value;
        }
      }
  if (!input) {
    FailureOr<Value> value = getTensor(node, 0);
    if (failed(value))
      return failure();
    input = *value;
  }
  int64_t rank = shapeOf(input).size();
  FailureOr<int64_t> dim = getDim(node, 1, "dim", rank);
  if (failed(dim))
    return failure();
  if (*dim != rank - 1)
    return emitError(node.loc)
           << "softmax over a dimension other than the last";
  out.push_back(plain(builder->softmax(input, 1.0, causal, "softmax")));
  return success();
}

LogicalResult GraphImporter::importSlice(Node &node,
                                         SmallVectorImpl<Result> &out) {
  FailureOr<Value> input = getTensor(node, 0);
  if (failed(input))
    return failure();
  ArrayRef<int64_t> shape = shapeOf(*input);
  int64_t rank = shape.size();
  FailureOr<int64_t> dim = getDim(node, 1, "dim", rank);
  FailureOr<int64_t> start = getInt(node, 2, "start", 0);
  FailureOr<int64_t> step = getInt(node, 4, "step", 1);
  if (failed(dim) || failed(start) || failed(step))
    return failure();
  if (*step != 1)
    return emitError(node.loc) << "slices with a step other than 1 are not "
                                  "supported";
  int64_t size = shape[*dim];
  int64_t begin =
      *start < 0 ? std::max<int64_t>(*start + size, 0) : std::min(*start, size);
  FailureOr<RankedTensorType> outputType = getRequiredOutputType(node);
  if (failed(outputType))
    return failure();
  RankedTensorType type = *outputType;
  if (type.getShape() == shape) {
    out.push_back(plain(*input));
    return success();
  }
  SmallVector<int64_t> offsets(rank, 0);
  offsets[*dim] = begin;
  out.push_back(
      plain(builder->slice(*input, offsets, type.getShape(), "slice")));
  return success();
}

LogicalResult GraphImporter::importSelect(Node &node,
                                          SmallVectorImpl<Result> &out) {
  FailureOr<Value> input = getTensor(node, 0);
  if (failed(input))
    return failure();
  ArrayRef<int64_t> shape = shapeOf(*input);
  int64_t rank = shape.size();
  FailureOr<int64_t> dim = getDim(node, 1, "dim", rank);
  FailureOr<int64_t> index = getInt(node, 2, "index");
  if (failed(dim) || failed(index))
    return failure();
  int64_t position = *index < 0 ? *index + shape[*dim] : *index;
  if (position < 0 || position >= shape[*dim])
    return emitError(node.loc)
           << "select: index " << *index << " is out of range";
  SmallVector<int64_t> offsets(rank, 0), sizes(shape);
  offsets[*dim] = position;
  sizes[*dim] = 1;
  Value slice = builder->slice(*input, offsets, sizes, "select");
  SmallVector<int64_t> result(shape);
  result.erase(result.begin() + *dim);
  out.push_back(plain(reshapeTo(node, slice, result)));
  return success();
}

LogicalResult GraphImporter::importSplit(Node &node,
                                         SmallVectorImpl<Result> &out) {
  FailureOr<Value> input = getTensor(node, 0);
  if (failed(input))
    return failure();
  ArrayRef<int64_t> shape = shapeOf(*input);
  int64_t rank = shape.size();
  FailureOr<int64_t> dim = getDim(node, 2, "dim", rank);
  if (failed(dim))
    return failure();
  SmallVector<int64_t> offsets(rank, 0);
  for (RankedTensorType type : node.outputs) {
    if (!type || type.getRank() != rank)
      return emitError(node.loc)
             << node.target << ": a result shape is missing or of another rank";
    out.push_back(
        plain(builder->slice(*input, offsets, type.getShape(), "split")));
    offsets[*dim] += type.getDimSize(*dim);
  }
  return success();
}

//===----------------------------------------------------------------------===//
// The table
//===----------------------------------------------------------------------===//

ArrayRef<OpEntry> GraphImporter::getTable() {
  using G = GraphImporter;
  static const OpEntry table[] = {
      {{"aten._adaptive_avg_pool2d.default",
        "train.avg_pool2d (windows tiling the input) or "
        "train.upsample_nearest2d (each input repeated)"},
       &G::importAdaptiveAvgPool},
      {{"aten._log_softmax.default",
        "with aten.nll_loss_forward: train.cross_entropy"},
       &G::importLogSoftmax},
      {{"aten._reshape_alias.default", "train.reshape"}, &G::importReshape},
      {{"aten._to_copy.default", "the operand itself (no dtype change)"},
       &G::importToCopy},
      {{"aten._softmax.default",
        "train.softmax (last dimension; causal after a causal masked_fill)"},
       &G::importSoftmax},
      {{"aten._unsafe_view.default", "train.reshape"}, &G::importReshape},
      {{"aten.add.Tensor",
        "train.add (operands broadcast with train.broadcast; alpha with "
        "train.scale)"},
       &G::importAdd},
      {{"aten.addmm.default", "train.matmul + train.bias_add"},
       &G::importAddmm},
      {{"aten.alias.default", "the operand itself"}, &G::importIdentity},
      {{"aten.avg_pool2d.default",
        "train.avg_pool2d (padding counted, no partial ceil_mode window)"},
       &G::importAvgPool},
      {{"aten.bmm.default", "train.matmul (batched)"}, &G::importMm},
      {{"aten.cat.default", "train.concat"}, &G::importCat},
      {{"aten.clamp.default", "train.relu {upper} (clamping to [0, upper])"},
       &G::importHardtanh},
      {{"aten.clone.default", "the operand itself"}, &G::importIdentity},
      {{"aten.constant_pad_nd.default", "nothing when every amount is 0"},
       &G::importConstantPad},
      {{"aten.convolution.default",
        "train.conv2d (+ train.bias_add over channels)"},
       &G::importConvolution},
      {{"aten.div.Tensor", "train.scale (division by a number)"},
       &G::importDiv},
      {{"aten.embedding.default", "train.embedding"}, &G::importEmbedding},
      {{"aten.expand.default", "train.broadcast"}, &G::importExpand},
      {{"aten.gelu.default", "train.gelu (exact or tanh)"}, &G::importGelu},
      {{"aten.hardsigmoid.default", "train.hardsigmoid"},
       &G::importActivation<&gen::ModelBuilder::hardsigmoid>},
      {{"aten.hardswish.default", "train.hardswish"},
       &G::importActivation<&gen::ModelBuilder::hardswish>},
      {{"aten.hardtanh.default",
        "train.relu {upper} (ReLU6: hardtanh to [0, upper])"},
       &G::importHardtanh},
      {{"aten.index.Tensor",
        "train.embedding (one constant index tensor, rows of a 2-D tensor)"},
       &G::importIndex},
      {{"aten.masked_fill.Scalar",
        "with a constant causal mask and -inf, before aten._softmax: "
        "train.softmax {causal}"},
       &G::importMaskedFill},
      {{"aten.max_pool2d_with_indices.default",
        "train.max_pool2d, ceil_mode included (the indices are not kept)"},
       &G::importMaxPool},
      {{"aten.mean.dim",
        "train.avg_pool2d (NCHW spatial mean) or train.reduce_sum + "
        "train.scale"},
       &G::importMean},
      {{"aten.mm.default", "train.matmul (aten.t operands become transpose "
                           "flags)"},
       &G::importMm},
      {{"aten.mse_loss.default", "train.mse_loss (mean)"}, &G::importMseLoss},
      {{"aten.mul.Tensor", "train.mul, or train.scale by a number"},
       &G::importMul},
      {{"aten.neg.default", "train.scale by -1"}, &G::importNeg},
      {{"aten.native_batch_norm.default",
        "train.batch_norm (training mode, batch statistics)"},
       &G::importBatchNorm},
      {{"aten.native_dropout.default", "train.dropout"}, &G::importDropout},
      {{"aten.native_layer_norm.default", "train.layer_norm (last dimension)"},
       &G::importLayerNorm},
      {{"aten.nll_loss_forward.default",
        "of an aten._log_softmax: train.cross_entropy (mean, ignore_index)"},
       &G::importNllLoss},
      {{"aten.permute.default", "train.transpose"}, &G::importPermute},
      {{"aten.pow.Tensor_Scalar",
        "x.pow(2) of x * rsqrt(x.pow(2).mean(-1, keepdim=True) + eps) * "
        "weight: train.rms_norm"},
       &G::importPow},
      {{"aten.relu.default", "train.relu"}, &G::importRelu},
      {{"aten.reshape.default", "train.reshape"}, &G::importReshape},
      {{"aten.rsqrt.default", "in an RMSNorm (see aten.pow.Tensor_Scalar)"},
       &G::importRsqrt},
      {{"aten.select.int", "train.slice + train.reshape"}, &G::importSelect},
      {{"aten.sigmoid.default", "train.sigmoid"},
       &G::importActivation<&gen::ModelBuilder::sigmoid>},
      {{"aten.silu.default", "train.silu"},
       &G::importActivation<&gen::ModelBuilder::silu>},
      {{"aten.slice.Tensor", "train.slice (step 1)"}, &G::importSlice},
      {{"aten.split.Tensor", "train.slice per part"}, &G::importSplit},
      {{"aten.split_with_sizes.default", "train.slice per part"},
       &G::importSplit},
      {{"aten.squeeze.dim", "train.reshape"}, &G::importReshape},
      {{"aten.sub.Tensor", "train.sub"}, &G::importSub},
      {{"aten.t.default",
        "a transpose flag of the matmul reading it, else train.transpose"},
       &G::importT},
      {{"aten.tanh.default", "train.tanh"},
       &G::importActivation<&gen::ModelBuilder::tanh>},
      {{"aten.transpose.int", "train.transpose"}, &G::importTranspose},
      {{"aten.unsqueeze.default", "train.reshape"}, &G::importReshape},
      {{"aten.view.default", "train.reshape"}, &G::importReshape},
  };
  return table;
}

ArrayRef<SupportedOp> import::getSupportedOps() {
  static const SmallVector<SupportedOp> ops = [] {
    SmallVector<SupportedOp> list;
    for (const OpEntry &entry : GraphImporter::getTable())
      list.push_back(entry.op);
    llvm::sort(list, [](const SupportedOp &a, const SupportedOp &b) {
      return a.target < b.target;
    });
    return list;
  }();
  return ops;
}

//===----------------------------------------------------------------------===//
// Driver
//===----------------------------------------------------------------------===//

LogicalResult GraphImporter::importNode(const json::Object &object,
                                        unsigned index) {
  FailureOr<Node> parsed = parseNode(object, index);
  if (failed(parsed))
    return failure();
  Node &node = *parsed;
  if (nodeResults.count(node.name) || poisoned.contains(node.name)) {
    emitDocumentError("nodes[" + Twine(index) + "]")
        << "node '" << node.name << "' is defined twice";
    return failure();
  }
  const OpEntry *entry = nullptr;
  for (const OpEntry &candidate : getTable())
    if (candidate.op.target == node.target)
      entry = &candidate;
  // Readers of a failed node are skipped without a message of their own.
  auto readsPoisoned = [&](const json::Value &value, auto &self) -> bool {
    if (const json::Object *ref = value.getAsObject()) {
      std::optional<StringRef> name = ref->getString("node");
      return name && poisoned.contains(*name);
    }
    if (const json::Array *list = value.getAsArray())
      return llvm::any_of(*list, [&](const json::Value &element) {
        return self(element, self);
      });
    return false;
  };
  // Unknown ops are reported wherever they are, failed inputs or not.
  if (!entry) {
    ++unsupported[node.target.str()];
    InFlightDiagnostic diag = emitError(node.loc)
                              << "unsupported op " << node.target;
    if (std::optional<StringRef> type = object.getString("module_type"))
      diag << " (in a " << *type << ")";
    poisoned.insert(node.name);
    return success();
  }
  bool skip = llvm::any_of(*node.args, [&](const json::Value &arg) {
    return readsPoisoned(arg, readsPoisoned);
  });
  if (skip) {
    poisoned.insert(node.name);
    return success();
  }

  if (std::optional<StringRef> layer = object.getString("layer"))
    builder->setLayer(*layer);
  else
    builder->setLayer(object.getString("module").value_or(""));
  builder->setLocOverride(node.loc);
  SmallVector<Result> results;
  if (failed((this->*entry->handler)(node, results))) {
    ++unsupported[node.target.str()];
    poisoned.insert(node.name);
    return success();
  }
  // The train ops must agree with what PyTorch computed.
  for (auto [i, result] : llvm::enumerate(results)) {
    RankedTensorType expected = getOutputType(node, i);
    if (!result.value || !expected || result.kind != Result::Kind::Value)
      continue;
    auto type = cast<RankedTensorType>(result.value.getType());
    if (type.getShape() != expected.getShape() ||
        type.getElementType() != expected.getElementType()) {
      emitError(node.loc) << node.target << " result #" << i << " was built as "
                          << type << " where PyTorch computed " << expected;
      poisoned.insert(node.name);
      ++unsupported[node.target.str()];
      return success();
    }
  }
  nodeResults[node.name] = std::move(results);
  return success();
}

LogicalResult GraphImporter::run(const json::Value &document) {
  const json::Object *root = document.getAsObject();
  if (!root) {
    emitDocumentError("document") << "expected a JSON object";
    return failure();
  }
  std::optional<StringRef> format = root->getString("format");
  if (format != kGraphFormat) {
    emitDocumentError("format") << "expected \"" << kGraphFormat
                                << "\" (a graph written by python3 -m "
                                   "memopt_torch export)";
    return failure();
  }
  std::optional<int64_t> version = root->getInteger("version");
  if (!version || *version < 1) {
    emitDocumentError("version") << "expected a positive integer";
    return failure();
  }
  if (*version > kGraphVersion) {
    emitDocumentError("version")
        << "the graph has format version " << *version
        << ", newer than the version " << kGraphVersion
        << " this mem-import reads; use a mem-import as new as the exporter";
    return failure();
  }
  if (failed(readDeclarations(*root)))
    return failure();
  const json::Array *nodes = root->getArray("nodes");
  if (!nodes) {
    emitDocumentError("document") << "expected a \"nodes\" array";
    return failure();
  }
  for (auto [i, entry] : llvm::enumerate(*nodes)) {
    const json::Object *object = entry.getAsObject();
    if (!object) {
      emitDocumentError("nodes[" + Twine(i) + "]") << "expected an object";
      return failure();
    }
    if (failed(importNode(*object, i)))
      return failure();
  }
  builder->setLayer("");
  builder->setLocOverride(std::nullopt);
  if (!unsupported.empty()) {
    InFlightDiagnostic diag = emitError(fileLoc)
                              << "the graph has ops mem-import cannot import:";
    for (auto &[target, count] : unsupported)
      diag << " " << target << " (" << count << ")";
    return failure();
  }

  const json::Value *output = root->get("output");
  if (!output) {
    emitDocumentError("output") << "expected the loss's reference";
    return failure();
  }
  Node outputNode{"output", "output", nullptr, nullptr, fileLoc, {}};
  FailureOr<Value> loss = getReferenced(outputNode, *output);
  if (failed(loss))
    return failure();
  auto lossType = dyn_cast<RankedTensorType>((*loss).getType());
  if (!lossType || lossType.getRank() != 0 ||
      !isa<FloatType>(lossType.getElementType())) {
    emitError(fileLoc) << "the graph's output is " << (*loss).getType()
                       << "; expected a 0-d floating-point loss";
    return failure();
  }
  builder->finish(*loss);
  return verify(builder->getFunction());
}

LogicalResult import::importTorchGraph(const json::Value &document,
                                       ModuleOp module, StringRef funcName,
                                       StringRef fileName) {
  return GraphImporter(module, funcName, fileName).run(document);
}
