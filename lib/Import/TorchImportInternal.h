//===- TorchImportInternal.h - shared by the importer's files ---*- C++ -*-===//
//
// Internal to lib/Import: the importer's state (GraphImporter), the node and
// result records its handlers exchange, and the handler table, assembled
// from one part per op family:
//   - TorchImport.cpp: the JSON document, the table and the driver;
//   - TorchImportValues.cpp: arguments, constants, broadcasting;
//   - TorchImportLinalg.cpp, TorchImportConvPool.cpp, TorchImportNorm.cpp,
//     TorchImportElementwise.cpp, TorchImportViews.cpp,
//     TorchImportLosses.cpp: the handlers of each op family;
//   - TorchImportFusions.cpp: the ATen patterns that become one train op.
//
//===----------------------------------------------------------------------===//

#ifndef MEMOPT_LIB_IMPORT_TORCHIMPORTINTERNAL_H
#define MEMOPT_LIB_IMPORT_TORCHIMPORTINTERNAL_H

#include "memopt/Import/TorchImport.h"
#include "memopt/Models/ModelBuilder.h"
#include "memopt/Support/Json.h"

#include "mlir/IR/Diagnostics.h"
#include "llvm/ADT/SmallVector.h"
#include "llvm/ADT/StringMap.h"
#include "llvm/ADT/StringSet.h"
#include "llvm/Support/CheckedArithmetic.h"

#include <map>
#include <memory>
#include <optional>
#include <string>

namespace mlir::memopt::import::detail {

namespace json = llvm::json;

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

/// The handler table; each op family appends its entries.
using HandlerTable = SmallVectorImpl<OpEntry>;

/// aten.addmm, aten.mm, aten.bmm (TorchImportLinalg.cpp).
void registerLinalgHandlers(HandlerTable &table);
/// Convolution, pooling and aten.mean (TorchImportConvPool.cpp).
void registerConvPoolHandlers(HandlerTable &table);
/// Batch and layer norm (TorchImportNorm.cpp).
void registerNormHandlers(HandlerTable &table);
/// Arithmetic, activations, softmax, dropout and dtype copies
/// (TorchImportElementwise.cpp).
void registerElementwiseHandlers(HandlerTable &table);
/// Reshapes, transposes, slices, concatenation, padding and gathers
/// (TorchImportViews.cpp).
void registerViewHandlers(HandlerTable &table);
/// nll_loss (of a log_softmax) and mse_loss (TorchImportLosses.cpp).
void registerLossHandlers(HandlerTable &table);
/// aten.t, aten._log_softmax, aten.masked_fill and the RMSNorm steps
/// aten.pow and aten.rsqrt: the ops that start a fused pattern
/// (TorchImportFusions.cpp).
void registerFusionHandlers(HandlerTable &table);

/// A JSON number, or a non-finite float as the exporter writes it:
/// `{"float": "inf" | "-inf" | "nan"}`.
std::optional<double> parseFloat(const json::Value &value);
/// Whether argument `index` of `node` is a number rather than a tensor.
bool isScalar(const Node &node, unsigned index);

class GraphImporter {
public:
  GraphImporter(ModuleOp module, StringRef funcName, StringRef fileName)
      : module(module), funcName(funcName), fileName(fileName),
        fileLoc(FileLineColLoc::get(module.getContext(), fileName, 0, 0)) {}

  LogicalResult run(const json::Value &document);

  /// Every family's entries (assembled once).
  static ArrayRef<OpEntry> getTable();

#define MEMOPT_HANDLER(name)                                                   \
  LogicalResult name(Node &node, SmallVectorImpl<Result> &results)
  // TorchImportLinalg.cpp
  MEMOPT_HANDLER(importAddmm);
  MEMOPT_HANDLER(importMm);
  // TorchImportConvPool.cpp
  MEMOPT_HANDLER(importConvolution);
  MEMOPT_HANDLER(importMaxPool);
  MEMOPT_HANDLER(importAvgPool);
  MEMOPT_HANDLER(importAdaptiveAvgPool);
  MEMOPT_HANDLER(importMean);
  // TorchImportNorm.cpp
  MEMOPT_HANDLER(importBatchNorm);
  MEMOPT_HANDLER(importLayerNorm);
  // TorchImportElementwise.cpp
  MEMOPT_HANDLER(importRelu);
  MEMOPT_HANDLER(importGelu);
  MEMOPT_HANDLER(importHardtanh);
  /// A one-operand activation built by `build` (silu, sigmoid, ...).
  template <Value (gen::ModelBuilder::*build)(Value, StringRef)>
  MEMOPT_HANDLER(importActivation);
  MEMOPT_HANDLER(importNeg);
  MEMOPT_HANDLER(importToCopy);
  MEMOPT_HANDLER(importAdd);
  MEMOPT_HANDLER(importSub);
  LogicalResult importAddOrSub(Node &node, SmallVectorImpl<Result> &out,
                               bool subtract);
  MEMOPT_HANDLER(importMul);
  MEMOPT_HANDLER(importDiv);
  MEMOPT_HANDLER(importDropout);
  MEMOPT_HANDLER(importSoftmax);
  // TorchImportViews.cpp
  MEMOPT_HANDLER(importReshape);
  MEMOPT_HANDLER(importIdentity);
  MEMOPT_HANDLER(importTranspose);
  MEMOPT_HANDLER(importPermute);
  MEMOPT_HANDLER(importExpand);
  MEMOPT_HANDLER(importCat);
  MEMOPT_HANDLER(importEmbedding);
  MEMOPT_HANDLER(importIndex);
  MEMOPT_HANDLER(importConstantPad);
  MEMOPT_HANDLER(importSlice);
  MEMOPT_HANDLER(importSelect);
  MEMOPT_HANDLER(importSplit);
  // TorchImportLosses.cpp
  MEMOPT_HANDLER(importNllLoss);
  MEMOPT_HANDLER(importMseLoss);
  // TorchImportFusions.cpp
  MEMOPT_HANDLER(importT);
  MEMOPT_HANDLER(importLogSoftmax);
  MEMOPT_HANDLER(importMaskedFill);
  MEMOPT_HANDLER(importPow);
  MEMOPT_HANDLER(importRsqrt);
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

  /// The RMSNorm steps that aten.add, aten.mean and aten.mul continue
  /// (TorchImportFusions.cpp): std::nullopt when `node` does not continue a
  /// pending RMSNorm (it is imported as usual), else whether it was imported.
  std::optional<LogicalResult> fuseRmsNormEpsilon(Node &node,
                                                  SmallVectorImpl<Result> &out);
  std::optional<LogicalResult> fuseRmsNormMean(Node &node,
                                               SmallVectorImpl<Result> &out);
  std::optional<LogicalResult> fuseRmsNormMul(Node &node,
                                              SmallVectorImpl<Result> &out);

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
  /// The parameters exported with requires_grad=False: their train.param
  /// reads are `trainable = false`.
  llvm::StringSet<> frozenParams;
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

} // namespace mlir::memopt::import::detail

#endif // MEMOPT_LIB_IMPORT_TORCHIMPORTINTERNAL_H
