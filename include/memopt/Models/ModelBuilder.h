//===- ModelBuilder.h - builds forward + loss functions ---------*- C++ -*-===//
//
// A thin layer over mlir::OpBuilder for the model generators of the
// MemoptModels library (what mem-gen emits): it owns the function being
// built, computes every op's result type from its operands, names every op's
// location after its place in the model, reads each parameter once per name
// and numbers dropout ops.
//
//===----------------------------------------------------------------------===//

#ifndef MEMOPT_MODELS_MODELBUILDER_H
#define MEMOPT_MODELS_MODELBUILDER_H

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinOps.h"
#include "llvm/ADT/StringMap.h"

#include <optional>

namespace mlir::memopt::gen {

/// Builds one `func.func` (forward + loss) in program order. Shapes passed
/// in must be valid: the generators validate their configuration first, so
/// a shape error here is a generator bug, caught by the module verifier.
class ModelBuilder {
public:
  /// Starts `func.func @name` at the end of `module`; floating-point
  /// parameters and activations get `elementType`.
  ModelBuilder(ModuleOp module, StringRef name, Type elementType);
  // The OpBuilder points at the layer tagger below.
  ModelBuilder(const ModelBuilder &) = delete;
  ModelBuilder &operator=(const ModelBuilder &) = delete;

  /// Tags every op built from now on with `train.layer = layer` (remat's
  /// layer grouping reads it); an empty `layer` stops tagging.
  void setLayer(StringRef layer);

  MLIRContext *getContext() { return builder.getContext(); }
  /// The builder itself, for ops this class has no method for; what it
  /// creates is tagged with the layer all the same.
  OpBuilder &getBuilder() { return builder; }
  /// Makes `loc(name)` return `location` whatever the name (an imported
  /// op's module path at its Python line); std::nullopt restores names.
  void setLocOverride(std::optional<Location> location) {
    locOverride = location;
  }
  /// The function being built (complete once `finish` returned).
  func::FuncOp getFunction() { return func; }
  /// The element type of parameters and activations.
  Type getElementType() const { return elementType; }
  /// A tensor type of `shape` with the model's element type, or `element`.
  RankedTensorType tensorType(ArrayRef<int64_t> shape, Type element = {});
  /// The location `loc("name")`, or the override while one is set.
  Location loc(const Twine &name);

  /// Appends a function argument (batch data) located at `name`.
  Value addInput(StringRef name, ArrayRef<int64_t> shape, Type element = {});
  /// An i64 tensor argument (token ids, labels).
  Value addIndexInput(StringRef name, ArrayRef<int64_t> shape);

  /// Reads parameter `name` (a `train.param`), located at the module that
  /// owns it (the name without its last component). A second read of one name
  /// returns the first value (tied weights).
  Value param(StringRef name, ArrayRef<int64_t> shape);

  /// Returns `loss` and sets the function type; the function is complete.
  func::FuncOp finish(Value loss);

  //===--------------------------------------------------------------------===//
  // Ops: each takes the location name last and returns the (main) result.
  //===--------------------------------------------------------------------===//

  Value matmul(Value lhs, Value rhs, bool transposeLhs, bool transposeRhs,
               StringRef name);
  /// `x · W (+ b)` with parameters `<prefix>.weight` and `<prefix>.bias`;
  /// `outMajor` stores W as `[out, in]` (nn.Linear) and multiplies by its
  /// transpose, otherwise `[in, out]` (HF Conv1D).
  Value linear(Value x, StringRef prefix, int64_t out, bool bias,
               bool outMajor);
  Value biasAdd(Value x, Value bias, int64_t dim, StringRef name);
  Value add(Value lhs, Value rhs, StringRef name);
  Value sub(Value lhs, Value rhs, StringRef name);
  Value mul(Value lhs, Value rhs, StringRef name);
  Value scale(Value x, double factor, StringRef name);
  Value relu(Value x, StringRef name);
  /// `min(max(x, 0), upper)`: ReLU6 for `upper = 6`.
  Value relu6(Value x, double upper, StringRef name);
  Value gelu(Value x, bool approximate, StringRef name);
  Value silu(Value x, StringRef name);
  Value sigmoid(Value x, StringRef name);
  Value tanh(Value x, StringRef name);
  Value hardsigmoid(Value x, StringRef name);
  Value hardswish(Value x, StringRef name);
  Value swiglu(Value gate, Value up, StringRef name);
  Value softmax(Value x, double scale, bool causal, StringRef name);
  /// Layer norm with parameters `<prefix>.weight` / `<prefix>.bias`.
  Value layerNorm(Value x, StringRef prefix, double epsilon);
  /// RMS norm with parameter `<prefix>.weight`.
  Value rmsNorm(Value x, StringRef prefix, double epsilon);
  /// Batch norm (NCHW) with parameters `<prefix>.weight` / `<prefix>.bias`.
  Value batchNorm(Value x, StringRef prefix, double epsilon);
  /// Dropout with the next unused `id`; returns `x` itself when rate is 0.
  Value dropout(Value x, double rate, StringRef name);
  Value embedding(Value table, Value ids, StringRef name);
  /// Fused attention; returns the output (the lse result is not needed by
  /// the forward graph).
  Value attention(Value q, Value k, Value v, double scale, bool causal,
                  StringRef name);
  Value rotary(Value x, double theta, StringRef name);
  Value crossEntropy(Value logits, Value labels, StringRef name);
  Value mseLoss(Value x, Value target, StringRef name);
  Value reshape(Value x, ArrayRef<int64_t> shape, StringRef name);
  Value transpose(Value x, ArrayRef<int64_t> permutation, StringRef name);
  Value slice(Value x, ArrayRef<int64_t> offsets, ArrayRef<int64_t> sizes,
              StringRef name);
  Value concat(ValueRange inputs, int64_t axis, StringRef name);
  /// NCHW convolution with parameter `<prefix>.weight` (OIHW) and, with
  /// `bias`, `<prefix>.bias` added along the channel dimension.
  Value conv2d(Value x, StringRef prefix, int64_t outChannels, int64_t kernel,
               int64_t stride, int64_t padding, int64_t groups, bool bias);
  Value maxPool2d(Value x, int64_t kernel, int64_t stride, int64_t padding,
                  StringRef name);
  /// Average pooling over non-overlapping `kernelH x kernelW` windows.
  Value avgPool2d(Value x, int64_t kernelH, int64_t kernelW, StringRef name);
  Value upsampleNearest2d(Value x, int64_t scale, StringRef name);

  /// The static shape of a tensor value.
  static ArrayRef<int64_t> shapeOf(Value value);

private:
  /// Writes `train.layer` on each op the builder inserts.
  struct LayerTagger : OpBuilder::Listener {
    void notifyOperationInserted(Operation *op,
                                 OpBuilder::InsertPoint previous) override;
    StringAttr layer;
  };

  RankedTensorType f32Type(ArrayRef<int64_t> shape);
  /// The 0-d type of losses.
  RankedTensorType lossType();

  LayerTagger tagger;
  OpBuilder builder;
  func::FuncOp func;
  Block *body;
  Type elementType;
  /// The location of every op built, when set (setLocOverride).
  std::optional<Location> locOverride;
  /// Every parameter read so far, by name.
  llvm::StringMap<Value> params;
  /// The next dropout id: ids are unique within the step.
  int64_t nextDropoutId = 0;
};

} // namespace mlir::memopt::gen

#endif // MEMOPT_MODELS_MODELBUILDER_H
