//===- TorchImportValues.cpp - arguments, constants, broadcasting ---------===//
//
// What the handlers read and build beside their ops: node arguments
// (references to parameters, inputs, constants and earlier nodes' results,
// pending or not; numbers, lists, strings, dimensions), the document's
// constants as arith.constant, and NumPy broadcasting to a result's shape.
//
//===----------------------------------------------------------------------===//

#include "TorchImportInternal.h"

#include "memopt/Dialect/Train/IR/TrainOps.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/IR/BuiltinAttributes.h"

#include <limits>

using namespace mlir;
using namespace mlir::memopt;
using namespace mlir::memopt::import;
using namespace mlir::memopt::import::detail;

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
  int64_t index = getJsonInteger(*object, "index").value_or(0);
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
    Value value = builder->param(*name, it->second.getShape());
    if (frozenParams.contains(*name))
      value.getDefiningOp<train::ParamOp>().setTrainable(false);
    return value;
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
  int64_t resultIndex = getJsonInteger(*object, "index").value_or(0);
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

std::optional<double>
mlir::memopt::import::detail::parseFloat(const json::Value &value) {
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

bool mlir::memopt::import::detail::isScalar(const Node &node, unsigned index) {
  const json::Value *value = node.get(index);
  return value && parseFloat(*value);
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
        return getJsonInteger(value);
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
    std::optional<int64_t> integer = getJsonInteger(element);
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
  if (std::optional<int64_t> integer = getJsonInteger(*value))
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
    std::optional<int64_t> integer = getJsonInteger(entry);
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
  std::optional<int64_t> start = getJsonInteger((*data)[0]);
  if (!start)
    return std::nullopt;
  for (auto [i, entry] : llvm::enumerate(*data)) {
    std::optional<int64_t> expected =
        llvm::checkedAdd(*start, static_cast<int64_t>(i));
    if (!expected || getJsonInteger(entry) != *expected)
      return std::nullopt;
  }
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
