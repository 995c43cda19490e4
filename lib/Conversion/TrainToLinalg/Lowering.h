//===- Lowering.h - shared pieces of convert-train-to-linalg ----*- C++ -*-===//
//
// Internal to lib/Conversion/TrainToLinalg: the pattern sets of each op
// family and the helpers they share. Patterns are OpConversionPatterns on
// tensors; types do not change, so no type converter is needed.
//
//===----------------------------------------------------------------------===//

#ifndef MEMOPT_LIB_CONVERSION_TRAINTOLINALG_LOWERING_H
#define MEMOPT_LIB_CONVERSION_TRAINTOLINALG_LOWERING_H

#include "memopt/Conversion/MemorySpace.h"
#include "memopt/Conversion/Passes.h"
#include "memopt/Dialect/Train/IR/ComputeTypes.h"
#include "memopt/Dialect/Train/IR/TrainOps.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/Transforms/DialectConversion.h"

namespace mlir::memopt {

//===----------------------------------------------------------------------===//
// Pattern sets, one per op family (one file each)
//===----------------------------------------------------------------------===//

/// param, opt_state, free, sgd, adam, adamw (StateLowering.cpp).
void populateStateLoweringPatterns(RewritePatternSet &patterns);
/// adam8bit, adamw8bit (Adam8bitLowering.cpp).
void populateAdam8bitLoweringPatterns(RewritePatternSet &patterns);
/// Elementwise ops, activations and their gradients, cast, dropout,
/// reduce_sum, broadcast (ElementwiseLowering.cpp).
void populateElementwiseLoweringPatterns(RewritePatternSet &patterns);
/// matmul, shape ops, embedding, softmax (LinalgLowering.cpp).
void populateLinalgLoweringPatterns(RewritePatternSet &patterns);
/// cross_entropy, mse_loss and their gradients (LossLowering.cpp).
void populateLossLoweringPatterns(RewritePatternSet &patterns);
/// layer_norm, rms_norm and their gradients (NormLowering.cpp).
void populateNormLoweringPatterns(RewritePatternSet &patterns);
/// rotary, attention and their gradients (AttentionLowering.cpp).
void populateAttentionLoweringPatterns(RewritePatternSet &patterns);
/// conv2d, pooling and their gradients (ConvLowering.cpp).
void populateConvLoweringPatterns(RewritePatternSet &patterns);
/// upsample_nearest2d and its gradient (UpsampleLowering.cpp).
void populateUpsampleLoweringPatterns(RewritePatternSet &patterns);
void populateBatchNormLoweringPatterns(RewritePatternSet &patterns);
void populateFP8LoweringPatterns(RewritePatternSet &patterns);
/// dequantize_nf4, dequantize_int8 (DequantizeLowering.cpp).
void populateDequantizeLoweringPatterns(RewritePatternSet &patterns);
/// to_host, to_device: copies into new buffers (MemorySpaceLowering.cpp).
void populateMemorySpaceLoweringPatterns(RewritePatternSet &patterns);

/// Brackets each run of ops that allocate host memory (host ops and
/// train.to_host) in every function of `module` with calls of
/// kMemorySpaceFunction, declaring it, and names the globals of host
/// parameters and states in the module's kHostGlobalsAttrName.
LogicalResult insertMemorySpaceMarkers(ModuleOp module);

//===----------------------------------------------------------------------===//
// Arena placement (ArenaPlacement.cpp)
//===----------------------------------------------------------------------===//

/// Places the tensors of a step planned by train-plan-memory in one arena:
/// `prepare` runs before the conversion (it tags the planned ops), `apply`
/// after it (it turns the destinations of planned results and the lowerings'
/// temporaries into views of the arena). A step without a plan is left
/// alone.
class ArenaPlacement {
public:
  ArenaPlacement();
  ~ArenaPlacement();
  ArenaPlacement(ArenaPlacement &&);
  static FailureOr<ArenaPlacement> prepare(func::FuncOp func);
  LogicalResult apply();

private:
  struct Impl;
  std::unique_ptr<Impl> impl;
};

/// The unit attribute on the arena's allocation, and the offsets (in the
/// arena) of a planned collective's result and staging workspace (-1 for
/// none) that its lowering (ShardToCalls.cpp) receives into.
inline constexpr StringLiteral kArenaAttrName = "memopt.arena";
/// The unit attribute on the host arena's allocation (train-offload).
inline constexpr StringLiteral kHostArenaAttrName = "memopt.host_arena";
inline constexpr StringLiteral kArenaOffsetsAttrName = "memopt.arena_offsets";

/// A tensor of `type` that bufferization writes in place at `offset` bytes
/// into `arena` (a `memref.view` wrapped in `to_tensor restrict writable`).
Value createArenaTensor(OpBuilder &b, Location loc, Value arena, int64_t offset,
                        RankedTensorType type);

//===----------------------------------------------------------------------===//
// Allocation order
//===----------------------------------------------------------------------===//

/// Moves the tensor.empty ops among the top-level ops of `block` after
/// `before` (from the block's start when null) and before `end` to the front
/// of that range, so that bufferization allocates every buffer of one op's
/// lowering (its results and scratch tensors) before the lowering reads an
/// operand, and frees none of them before the op's first computation.
void allocateUpFront(RewriterBase &rewriter, Block *block, Operation *before,
                     Operation *end);

/// Base of the patterns that lower one train op. After the derived pattern's
/// 1:1 matchAndRewrite, the new ops' tensor.empty allocations are moved to
/// their front (allocateUpFront): the op's operands, results and workspace
/// are then all live at once, as the memory model (docs/architecture.md) counts
/// them, and the op's peak is exactly the model's.
template <typename OpTy>
class TrainOpLowering : public OpConversionPattern<OpTy> {
public:
  using OpConversionPattern<OpTy>::OpConversionPattern;
  using OneToNOpAdaptor = typename OpConversionPattern<OpTy>::OneToNOpAdaptor;

  LogicalResult
  matchAndRewrite(OpTy op, OneToNOpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const final {
    Block *block = op->getBlock();
    Operation *before = op->getPrevNode();
    if (failed(
            OpConversionPattern<OpTy>::matchAndRewrite(op, adaptor, rewriter)))
      return failure();
    allocateUpFront(rewriter, block, before, op);
    return success();
  }
};

//===----------------------------------------------------------------------===//
// Helpers
//===----------------------------------------------------------------------===//

/// `tensor.empty` of `type`.
Value createEmpty(OpBuilder &b, Location loc, RankedTensorType type);

/// A tensor of `type` filled with `value`.
Value createFilled(OpBuilder &b, Location loc, RankedTensorType type,
                   double value);

/// A scalar constant of the float (or integer) type `type`.
Value createScalar(OpBuilder &b, Location loc, Type type, double value);

/// The compute-type policy of the dialect (ComputeTypes.h), which the
/// workspace model reads too.
using train::getAccumulatorType;
using train::getComputeType;
using train::getLossComputeType;
using train::getWiderFloatType;

/// Converts every element of `value` to `elementType` (or returns `value`).
Value castTensor(OpBuilder &b, Location loc, Value value, Type elementType);

/// Converts a scalar float to `type` (extf / truncf), or returns it.
Value castScalar(OpBuilder &b, Location loc, Value value, Type type);

/// The first row (or column) of vocabulary part `part` (an index) of parts
/// of `size` rows each, or null when `part` is null (a whole table).
Value getVocabPartOffset(OpBuilder &b, Location loc, Value part, int64_t size);

/// The body of an elementwise op: scalar operands in, scalar result out.
using ScalarBody = llvm::function_ref<Value(OpBuilder &, Location, ValueRange)>;

/// A `linalg.generic` over the identity map of `resultType`'s shape, with
/// `inputs` of that same shape, computing one scalar per element.
Value buildElementwise(OpBuilder &b, Location loc, RankedTensorType resultType,
                       ValueRange inputs, ScalarBody body);

/// Like buildElementwise but with several results of one shape.
SmallVector<Value> buildElementwiseMulti(
    OpBuilder &b, Location loc, TypeRange resultTypes, ValueRange inputs,
    llvm::function_ref<SmallVector<Value>(OpBuilder &, Location, ValueRange)>
        body);

/// A `linalg.generic` over the identity map that writes its results into
/// `inits` (destination passing: updated in place when bufferization can).
/// `body` receives the scalars of `inputs` followed by those of `inits`.
SmallVector<Value> buildElementwiseInto(
    OpBuilder &b, Location loc, ValueRange inputs, ValueRange inits,
    llvm::function_ref<SmallVector<Value>(OpBuilder &, Location, ValueRange)>
        body);

/// An elementwise linalg.generic that overwrites `init` (in place after
/// bufferization, `init` being dead afterwards); `body` receives the scalars
/// of `inputs` followed by the current element of `init`.
Value buildElementwiseInPlace(OpBuilder &b, Location loc, ValueRange inputs,
                              Value init, ScalarBody body);

/// Sums `input` over `dims` into a tensor of `resultType` (the input shape
/// without `dims`), accumulating in `resultType`'s element type.
Value buildReduceSum(OpBuilder &b, Location loc, Value input,
                     ArrayRef<int64_t> dims, RankedTensorType resultType);

/// sum / n per element of `sum`, overwriting `sum` (a mean from a sum).
Value buildMeanInPlace(OpBuilder &b, Location loc, Value sum, double n);

/// 1 / sqrt(sum / n + epsilon) per element of `sum` (as PyTorch's CPU kernels
/// compute rstd from a sum of squares), overwriting `sum`.
Value buildRstd(OpBuilder &b, Location loc, Value sum, double n,
                double epsilon);

/// The linalg form of a train.matmul of `lhs` and `rhs` (any float types)
/// into a new tensor of `resultType`, accumulating in its element type.
Value buildMatmul(OpBuilder &b, Location loc, Value lhs, Value rhs,
                  RankedTensorType resultType, bool transposeLhs,
                  bool transposeRhs);

//===----------------------------------------------------------------------===//
// Persistent state and optimizer updates (StateLowering.cpp)
//===----------------------------------------------------------------------===//

/// Reads the global `symbol` as a tensor that later writes may update.
Value readGlobal(OpBuilder &b, Location loc, StringRef symbol,
                 RankedTensorType type);

/// Writes `value` into the global that the train state `stateValue` (a
/// train.param or train.opt_state result) reads.
void writeBack(OpBuilder &b, Location loc, Value stateValue, Value value);

/// The gradient an optimizer update (or a loss-scale check) reads: `grad`'s
/// converted value, or a gradient-accumulation buffer (a `train.opt_state`
/// that train.accumulate updated in place) read again from its global (the
/// state op's tensor holds the value from before the accumulation, and
/// reading it there would make bufferization copy the buffer).
Value readGradient(OpBuilder &b, Location loc, Value grad, Value converted);

/// Loss scaling of an optimizer update: the f32 reciprocal of the scale (1 /
/// scale, as GradScaler.unscale_ multiplies by it) and the skip flag, as
/// scalars the update's body reads; null when absent.
struct UpdateScaling {
  Value inverseScale;
  Value skip;

  UpdateScaling(OpBuilder &b, Location loc, Value gradScale, Value found) {
    if (gradScale) {
      Value scale = tensor::ExtractOp::create(b, loc, gradScale);
      inverseScale = arith::DivFOp::create(
          b, loc, createScalar(b, loc, scale.getType(), 1.0), scale);
    }
    if (found)
      skip = tensor::ExtractOp::create(b, loc, found);
  }

  /// `grad` (already in `type`) unscaled.
  Value unscale(OpBuilder &b, Location l, Value grad, Type type) const {
    if (!inverseScale)
      return grad;
    return arith::MulFOp::create(b, l, grad,
                                 castScalar(b, l, inverseScale, type));
  }

  /// The values to store: `old` when the step is skipped, `updated` else.
  SmallVector<Value> select(OpBuilder &b, Location l, ValueRange old,
                            ArrayRef<Value> updated) const {
    SmallVector<Value> results(updated);
    if (skip)
      for (auto [result, previous] : llvm::zip_equal(results, old))
        result = arith::SelectOp::create(b, l, skip, previous, result);
    return results;
  }
};

/// The arithmetic of train.adam / train.adamw, PyTorch's
/// _single_tensor_adam(w) for step t, in `type`:
///   [adamw] param *= 1 - lr * wd         [adam] g = grad + wd * param
///   m = m * b1 + g * (1 - b1)            (torch lerp_)
///   v = v * b2 + g * g * (1 - b2)
///   denom = sqrt(v) / sqrt(1 - b2^t) + eps
///   param -= (lr / (1 - b1^t)) * m / denom
/// The 32-bit and the 8-bit lowerings both build their updates from it, so
/// that they compute alike.
struct AdamArithmetic {
  /// Builds the step's scalars (lr / (1 - b1^t) and sqrt(1 - b2^t), in f64
  /// then rounded to `type`) at the builder's insertion point; `skipped`
  /// (null without dynamic loss scaling) is subtracted from the step `t`.
  AdamArithmetic(OpBuilder &b, Location loc, Value step, Value skipped,
                 double lr, double beta1, double beta2, double epsilon,
                 double weightDecay, bool decoupled, Type type);
  /// The same from the attributes of an adam-like op.
  template <typename OpTy>
  AdamArithmetic(OpBuilder &b, Location loc, OpTy op, Value step, Value skipped,
                 bool decoupled, Type type)
      : AdamArithmetic(b, loc, step, skipped, op.getLr().convertToDouble(),
                       op.getBeta1().convertToDouble(),
                       op.getBeta2().convertToDouble(),
                       op.getEpsilon().convertToDouble(),
                       op.getWeightDecay().convertToDouble(), decoupled, type) {
  }

  /// Weight decay: scales `param` (adamw) or adds to `grad` (adam).
  void decay(OpBuilder &b, Location l, Value &param, Value &grad) const;
  /// The new first and second moments from `grad`.
  void moments(OpBuilder &b, Location l, Value grad, Value &m, Value &v) const;
  /// The updated parameter from the new moments.
  Value update(OpBuilder &b, Location l, Value param, Value m, Value v) const;

  double lr, beta1, beta2, epsilon, weightDecay;
  bool decoupled;
  Type type;
  Value stepSize, bc2Sqrt;
};

} // namespace mlir::memopt

#endif // MEMOPT_LIB_CONVERSION_TRAINTOLINALG_LOWERING_H
