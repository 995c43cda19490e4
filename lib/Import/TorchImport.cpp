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
// This file reads the document and drives the import; the handlers of each
// op family and the fused patterns live in the TorchImport*.cpp files
// TorchImportInternal.h lists, and each contributes its part of the table.
//
//===----------------------------------------------------------------------===//

#include "TorchImportInternal.h"

#include "memopt/Dialect/Train/IR/TrainDialect.h"

#include "mlir/IR/Verifier.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/StringSwitch.h"

using namespace mlir;
using namespace mlir::memopt;
using namespace mlir::memopt::import;
using namespace mlir::memopt::import::detail;

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
    std::optional<int64_t> size = getJsonInteger(dim);
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
    // requires_grad=False (a frozen parameter, as fine-tuning and LoRA leave
    // the base weights) becomes train.param {trainable = false}: the step
    // gives it no gradient and no optimizer state, as PyTorch's optimizer
    // leaves a parameter whose .grad stays None. Absent: trainable, as in
    // graphs written before the field.
    if (const json::Value *trainable = object->get("requires_grad")) {
      if (!trainable->getAsBoolean()) {
        emitDocumentError(path + ".requires_grad") << "expected a boolean";
        return failure();
      }
      if (!*trainable->getAsBoolean())
        frozenParams.insert(*name);
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
    std::optional<int64_t> line = getJsonInteger(*loc, "line");
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
// The table
//===----------------------------------------------------------------------===//

ArrayRef<OpEntry> GraphImporter::getTable() {
  static const SmallVector<OpEntry> table = [] {
    SmallVector<OpEntry> entries;
    registerLinalgHandlers(entries);
    registerConvPoolHandlers(entries);
    registerNormHandlers(entries);
    registerElementwiseHandlers(entries);
    registerViewHandlers(entries);
    registerLossHandlers(entries);
    registerFusionHandlers(entries);
    return entries;
  }();
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
  std::optional<int64_t> version = getJsonInteger(*root, "version");
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
