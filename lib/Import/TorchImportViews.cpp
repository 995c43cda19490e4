//===- TorchImportViews.cpp - views, shapes and gathers -------------------===//
//
// The handlers of ops that move data without arithmetic: reshapes and
// aliases, transposes and permutations, expand, cat, slice, select, split,
// zero padding, and the gathers aten.embedding and aten.index.
//
//===----------------------------------------------------------------------===//

#include "TorchImportInternal.h"

#include <algorithm>

using namespace mlir;
using namespace mlir::memopt;
using namespace mlir::memopt::import;
using namespace mlir::memopt::import::detail;

//===----------------------------------------------------------------------===//
// Handlers
//===----------------------------------------------------------------------===//

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

/// Fails unless every integer of the constant `name` (`object`) is a row of
/// a table of `rows` rows: the lowered gather reads the table unchecked.
static LogicalResult checkConstantRows(Node &node, StringRef name,
                                       const json::Object *object,
                                       int64_t rows) {
  const json::Array *data = object ? object->getArray("data") : nullptr;
  if (data)
    for (const json::Value &entry : *data) {
      std::optional<int64_t> row = getJsonInteger(entry);
      if (row && (*row < 0 || *row >= rows))
        return emitError(node.loc)
               << "index " << *row << " of constant '" << name
               << "' is outside the " << rows << " rows it indexes";
    }
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
          if (rows.size() == 2 && *start >= 0 && *start <= rows[0] &&
              count <= rows[0] - *start) {
            out.push_back(plain(builder->slice(*table, {*start, 0},
                                               {count, rows[1]}, "embedding")));
            return success();
          }
        }
  if (shapeOf(*table).size() == 2)
    if (const json::Value *idsArg = node.get(1))
      if (const json::Object *ref = idsArg->getAsObject())
        if (std::optional<StringRef> name = ref->getString("constant"))
          if (failed(checkConstantRows(node, *name, getConstant(*name),
                                       shapeOf(*table)[0])))
            return failure();
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
  if (failed(checkConstantRows(node, *name, getConstant(*name), rows[0])))
    return failure();
  FailureOr<Value> ids = getConstantValue(node, *name);
  if (failed(ids))
    return failure();
  if (!cast<RankedTensorType>(ids->getType()).getElementType().isInteger(64))
    return emitError(node.loc) << "indexing needs int64 indices";
  out.push_back(plain(builder->embedding(*table, *ids, "index")));
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
// Registration
//===----------------------------------------------------------------------===//

void mlir::memopt::import::detail::registerViewHandlers(HandlerTable &table) {
  using G = GraphImporter;
  static const OpEntry entries[] = {
      {{"aten._reshape_alias.default", "train.reshape"}, &G::importReshape},
      {{"aten._unsafe_view.default", "train.reshape"}, &G::importReshape},
      {{"aten.alias.default", "the operand itself"}, &G::importIdentity},
      {{"aten.cat.default", "train.concat"}, &G::importCat},
      {{"aten.clone.default", "the operand itself"}, &G::importIdentity},
      {{"aten.constant_pad_nd.default", "nothing when every amount is 0"},
       &G::importConstantPad},
      {{"aten.embedding.default", "train.embedding"}, &G::importEmbedding},
      {{"aten.expand.default", "train.broadcast"}, &G::importExpand},
      {{"aten.index.Tensor",
        "train.embedding (one constant index tensor, rows of a 2-D tensor)"},
       &G::importIndex},
      {{"aten.permute.default", "train.transpose"}, &G::importPermute},
      {{"aten.reshape.default", "train.reshape"}, &G::importReshape},
      {{"aten.select.int", "train.slice + train.reshape"}, &G::importSelect},
      {{"aten.slice.Tensor", "train.slice (step 1)"}, &G::importSlice},
      {{"aten.split.Tensor", "train.slice per part"}, &G::importSplit},
      {{"aten.split_with_sizes.default", "train.slice per part"},
       &G::importSplit},
      {{"aten.squeeze.dim", "train.reshape"}, &G::importReshape},
      {{"aten.transpose.int", "train.transpose"}, &G::importTranspose},
      {{"aten.unsqueeze.default", "train.reshape"}, &G::importReshape},
      {{"aten.view.default", "train.reshape"}, &G::importReshape},
  };
  table.append(std::begin(entries), std::end(entries));
}
