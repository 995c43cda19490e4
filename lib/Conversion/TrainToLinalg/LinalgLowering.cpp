//===- LinalgLowering.cpp - matmul, shape ops, embedding, softmax ---------===//
//
// Lowers the train ops that map onto linalg's structured ops and tensor's
// shape ops: matmul (linalg.matmul / batch_matmul with indexing maps for the
// transposes), reshape / transpose / slice / concat (tensor reshapes and
// slices, linalg.transpose), embedding (a gather generic) and its gradient
// (an scf.for scatter-add), softmax and its gradient. The losses are in
// LossLowering.cpp and share the helpers declared in LinalgHelpers.h.
//
// Softmax, documented to keep fp32, computes in f32 when its input is
// narrower (autocast semantics) and rounds the result to the result type;
// f64 stays f64.
//
//===----------------------------------------------------------------------===//

#include "LinalgHelpers.h"
#include "Lowering.h"

#include "mlir/Dialect/Bufferization/IR/Bufferization.h"

#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Utils/ReshapeOpsUtils.h"
#include "mlir/Dialect/Utils/StructuredOpsUtils.h"
#include "mlir/IR/AffineMap.h"

#include <cmath>

using namespace mlir;
using namespace mlir::memopt;

//===----------------------------------------------------------------------===//
// Helpers
//===----------------------------------------------------------------------===//

/// `rank` parallel iterators, except `reductionDims`.
SmallVector<utils::IteratorType>
mlir::memopt::getIterators(int64_t rank, ArrayRef<int64_t> reductionDims) {
  SmallVector<utils::IteratorType> iterators(rank,
                                             utils::IteratorType::parallel);
  for (int64_t dim : reductionDims)
    iterators[dim] = utils::IteratorType::reduction;
  return iterators;
}

/// `(d0, ..., d{rank-1}) -> (the dims not in dropped)`.
AffineMap mlir::memopt::getDroppedDimsMap(MLIRContext *ctx, int64_t rank,
                                          ArrayRef<int64_t> dropped) {
  SmallVector<AffineExpr> results;
  for (int64_t d = 0; d < rank; ++d)
    if (!llvm::is_contained(dropped, d))
      results.push_back(getAffineDimExpr(d, ctx));
  return AffineMap::get(rank, 0, results, ctx);
}

/// `shape` without the dimension `dim`.
static SmallVector<int64_t> dropDim(ArrayRef<int64_t> shape, int64_t dim) {
  SmallVector<int64_t> result(shape);
  result.erase(result.begin() + dim);
  return result;
}

/// The number of elements of `shape`.
int64_t mlir::memopt::product(ArrayRef<int64_t> shape) {
  int64_t n = 1;
  for (int64_t size : shape)
    n *= size;
  return n;
}

/// Reshapes `value` (static shape) to `type` with the same elements in
/// row-major order: one tensor.collapse_shape or tensor.expand_shape when
/// the two shapes are related by grouping dimensions, otherwise a collapse
/// to 1-D followed by an expand. All of these are views after bufferization.
Value mlir::memopt::reshapeStatic(OpBuilder &b, Location loc, Value value,
                                  RankedTensorType type) {
  auto sourceType = cast<RankedTensorType>(value.getType());
  if (sourceType == type)
    return value;
  int64_t sourceRank = sourceType.getRank(), rank = type.getRank();
  if (sourceRank > rank)
    if (std::optional<SmallVector<ReassociationIndices>> groups =
            getReassociationIndicesForReshape(sourceType, type))
      return tensor::CollapseShapeOp::create(b, loc, type, value, *groups);
  if (sourceRank < rank)
    if (std::optional<SmallVector<ReassociationIndices>> groups =
            getReassociationIndicesForReshape(sourceType, type))
      return tensor::ExpandShapeOp::create(b, loc, type, value, *groups);
  // Through 1-D: collapsing everything into one dimension (or expanding a
  // 0-d tensor into one) and back is always valid.
  auto flatType = RankedTensorType::get({sourceType.getNumElements()},
                                        sourceType.getElementType());
  auto allDims = [](int64_t r) {
    SmallVector<ReassociationIndices> groups;
    if (r > 0)
      groups.push_back(llvm::to_vector(llvm::seq<int64_t>(0, r)));
    return groups;
  };
  Value flat = value;
  if (sourceRank == 0)
    flat = tensor::ExpandShapeOp::create(b, loc, flatType, value, allDims(0));
  else if (sourceRank > 1)
    flat = tensor::CollapseShapeOp::create(b, loc, flatType, value,
                                           allDims(sourceRank));
  if (rank == 1)
    return flat;
  if (rank == 0)
    return tensor::CollapseShapeOp::create(b, loc, type, flat, allDims(0));
  return tensor::ExpandShapeOp::create(b, loc, type, flat, allDims(rank));
}

/// The static buffer type one-shot bufferization gives `value`: views
/// (extract_slice, collapse_shape, expand_shape, a transposed buffer read
/// back with to_tensor) keep their source's strides, everything else is a
/// new row-major buffer. A transpose reads its input through this type, so
/// that the view and the reshapes of it have static strides (a reshape the
/// strides do not allow copies, as the memory model's).
static MemRefType getBufferTypeOf(Value value) {
  auto type = cast<RankedTensorType>(value.getType());
  auto identity = MemRefType::get(type.getShape(), type.getElementType());
  Operation *def = value.getDefiningOp();
  if (auto toTensor = dyn_cast_or_null<bufferization::ToTensorOp>(def))
    if (auto memrefType = dyn_cast<MemRefType>(toTensor.getBuffer().getType()))
      return memrefType;
  if (auto slice = dyn_cast_or_null<tensor::ExtractSliceOp>(def)) {
    if (slice.getSourceType().getRank() != type.getRank())
      return identity;
    return memref::SubViewOp::inferResultType(
        getBufferTypeOf(slice.getSource()), slice.getStaticOffsets(),
        slice.getStaticSizes(), slice.getStaticStrides());
  }
  if (auto collapse = dyn_cast_or_null<tensor::CollapseShapeOp>(def)) {
    MemRefType source = getBufferTypeOf(collapse.getSrc());
    SmallVector<ReassociationIndices> groups =
        collapse.getReassociationIndices();
    if (!memref::CollapseShapeOp::isGuaranteedCollapsible(source, groups))
      return identity;
    return memref::CollapseShapeOp::computeCollapsedType(source, groups);
  }
  if (auto expand = dyn_cast_or_null<tensor::ExpandShapeOp>(def)) {
    FailureOr<MemRefType> expanded = memref::ExpandShapeOp::computeExpandedType(
        getBufferTypeOf(expand.getSrc()), type.getShape(),
        expand.getReassociationIndices());
    return succeeded(expanded) ? *expanded : identity;
  }
  return identity;
}

/// Whether collapsing the leading `rank - keep` dimensions of `value` into
/// one is a view of its buffer (no copy when bufferized).
static bool collapsesToView(Value value, int64_t keep) {
  MemRefType buffer = getBufferTypeOf(value);
  int64_t rank = buffer.getRank();
  if (rank - keep <= 1)
    return true;
  SmallVector<ReassociationIndices> groups = {
      llvm::to_vector(llvm::seq<int64_t>(0, rank - keep))};
  for (int64_t d = rank - keep; d < rank; ++d)
    groups.push_back({d});
  return memref::CollapseShapeOp::isGuaranteedCollapsible(buffer, groups);
}

/// `P... x V` -> `N x V` with N the product of P... (1 for a 1-D input).
static Value collapseRows(OpBuilder &b, Location loc, Value value) {
  auto type = cast<RankedTensorType>(value.getType());
  ArrayRef<int64_t> shape = type.getShape();
  auto rowsType = RankedTensorType::get(
      {product(shape.drop_back()), shape.back()}, type.getElementType());
  return reshapeStatic(b, loc, value, rowsType);
}

/// `P...` -> `N`.
static Value flatten(OpBuilder &b, Location loc, Value value) {
  auto type = cast<RankedTensorType>(value.getType());
  return reshapeStatic(
      b, loc, value,
      RankedTensorType::get({type.getNumElements()}, type.getElementType()));
}

/// Reads the only element of a 0-d tensor.
Value mlir::memopt::extractScalar(OpBuilder &b, Location loc, Value tensor) {
  return tensor::ExtractOp::create(b, loc, tensor, ValueRange{});
}

/// A 0-d tensor of `type` holding `value` (a reduction's accumulator).
Value mlir::memopt::createFilledScalar(OpBuilder &b, Location loc, Type type,
                                       double value) {
  return createFilled(b, loc, RankedTensorType::get({}, type), value);
}

//===----------------------------------------------------------------------===//
// matmul
//===----------------------------------------------------------------------===//

/// A named contraction (linalg.matmul for rank 2, linalg.batch_matmul for
/// rank 3), transposes expressed by its `indexing_maps`. The body casts the
/// operands to the result type, so a wider result accumulates in that type.
template <typename NamedOp>
static Value buildNamedMatmul(OpBuilder &b, Location loc, Value lhs, Value rhs,
                              RankedTensorType resultType, bool transposeLhs,
                              bool transposeRhs) {
  Value init = createFilled(b, loc, resultType, 0.0);
  auto op = NamedOp::create(b, loc, TypeRange{resultType}, ValueRange{lhs, rhs},
                            ValueRange{init});
  if (!transposeLhs && !transposeRhs)
    return op->getResult(0);
  // Dims: [batch,] m, n, k.
  MLIRContext *ctx = b.getContext();
  int64_t batch = resultType.getRank() - 2;
  SmallVector<AffineExpr> dims;
  for (int64_t d = 0; d < batch + 3; ++d)
    dims.push_back(getAffineDimExpr(d, ctx));
  SmallVector<AffineExpr> prefix(dims.begin(), dims.begin() + batch);
  AffineExpr m = dims[batch], n = dims[batch + 1], k = dims[batch + 2];
  auto map = [&](AffineExpr a, AffineExpr c) {
    SmallVector<AffineExpr> results(prefix);
    results.append({a, c});
    return AffineMap::get(batch + 3, 0, results, ctx);
  };
  op.setIndexingMapsAttr(b.getAffineMapArrayAttr(
      {transposeLhs ? map(k, m) : map(m, k),
       transposeRhs ? map(n, k) : map(k, n), map(m, n)}));
  return op->getResult(0);
}

/// A matmul as one linalg.generic contraction over every leading (batch)
/// dimension of the result at once: C[b..., m, n] += A[b..., m, k] *
/// B[b..., k, n] (with the transposed layouts), accumulating in the result
/// type, k innermost as in linalg.batch_matmul. Without `rhsBatched` the rhs
/// is one `K x N` (or `N x K`) matrix shared by every batch (a transposed lhs
/// times a weight, which cannot be collapsed into the rows of one matmul).
/// Nothing is collapsed, so a strided operand (transposed attention heads) is
/// read in place rather than copied.
static Value buildContractionGeneric(OpBuilder &b, Location loc, Value lhs,
                                     Value rhs, RankedTensorType resultType,
                                     bool transposeLhs, bool transposeRhs,
                                     bool rhsBatched) {
  MLIRContext *ctx = b.getContext();
  int64_t batch = resultType.getRank() - 2, numDims = batch + 3;
  SmallVector<AffineExpr> dims;
  for (int64_t d = 0; d < numDims; ++d)
    dims.push_back(getAffineDimExpr(d, ctx));
  SmallVector<AffineExpr> prefix(dims.begin(), dims.begin() + batch);
  AffineExpr m = dims[batch], n = dims[batch + 1], k = dims[batch + 2];
  auto map = [&](AffineExpr first, AffineExpr second, bool batched = true) {
    SmallVector<AffineExpr> results;
    if (batched)
      results.append(prefix);
    results.append({first, second});
    return AffineMap::get(numDims, 0, results, ctx);
  };
  SmallVector<AffineMap> maps = {
      transposeLhs ? map(k, m) : map(m, k),
      transposeRhs ? map(n, k, rhsBatched) : map(k, n, rhsBatched), map(m, n)};
  Type accType = resultType.getElementType();
  Value init = createFilled(b, loc, resultType, 0.0);
  auto generic = linalg::GenericOp::create(
      b, loc, TypeRange{resultType}, ValueRange{lhs, rhs}, ValueRange{init},
      maps, getIterators(numDims, {numDims - 1}),
      [&](OpBuilder &nested, Location l, ValueRange args) {
        Value a = castScalar(nested, l, args[0], accType);
        Value c = castScalar(nested, l, args[1], accType);
        Value sum = arith::AddFOp::create(
            nested, l, args[2], arith::MulFOp::create(nested, l, a, c));
        linalg::YieldOp::create(nested, l, sum);
      });
  return generic.getResult(0);
}

//===----------------------------------------------------------------------===//
// Helpers of the shape ops
//===----------------------------------------------------------------------===//

/// Offsets, sizes and strides of a train.slice window of shape `window`.
static void getWindow(OpBuilder &b, ArrayRef<int64_t> window,
                      ArrayRef<int64_t> offsets,
                      std::optional<ArrayRef<int64_t>> strides,
                      SmallVectorImpl<OpFoldResult> &offsetValues,
                      SmallVectorImpl<OpFoldResult> &sizeValues,
                      SmallVectorImpl<OpFoldResult> &strideValues) {
  for (auto [i, size] : llvm::enumerate(window)) {
    offsetValues.push_back(b.getIndexAttr(offsets[i]));
    sizeValues.push_back(b.getIndexAttr(size));
    strideValues.push_back(b.getIndexAttr(strides ? (*strides)[i] : 1));
  }
}

/// matmul: rank 2 -> linalg.matmul; rank 3 (same batch) ->
/// linalg.batch_matmul; higher ranks collapse their batch dimensions into
/// one; a rank-N lhs with a shared rank-2 rhs collapses the lhs rows into
/// one matmul (or, with transpose_lhs, a generic).
Value mlir::memopt::buildMatmul(OpBuilder &b, Location loc, Value lhs,
                                Value rhs, RankedTensorType resultType, bool tl,
                                bool tr) {
  auto lhsType = cast<RankedTensorType>(lhs.getType());
  auto rhsType = cast<RankedTensorType>(rhs.getType());
  Type accType = resultType.getElementType();
  int64_t lhsRank = lhsType.getRank(), rhsRank = rhsType.getRank();
  ArrayRef<int64_t> resultShape = resultType.getShape();
  int64_t batch = product(resultShape.drop_back(2));
  int64_t m = resultShape[lhsRank - 2], n = resultShape[lhsRank - 1];

  if (lhsRank == 2)
    return buildNamedMatmul<linalg::MatmulOp>(b, loc, lhs, rhs, resultType, tl,
                                              tr);
  if (rhsRank == 2 && !tl && collapsesToView(lhs, 1)) {
    // A linear layer: (B... * M) x K rows times the shared weight.
    Value rows = collapseRows(b, loc, lhs);
    auto flatType = RankedTensorType::get({batch * m, n}, accType);
    Value result = buildNamedMatmul<linalg::MatmulOp>(b, loc, rows, rhs,
                                                      flatType, false, tr);
    return reshapeStatic(b, loc, result, resultType);
  }
  if (rhsRank == 2) {
    // A transposed lhs, or an lhs whose rows do not collapse into a view
    // (a strided view, e.g. a transpose): one contraction over its batch
    // dimensions, reading it in place rather than copying it.
    return buildContractionGeneric(b, loc, lhs, rhs, resultType, tl, tr,
                                   /*rhsBatched=*/false);
  }
  if (lhsRank > 3) {
    // Several batch dimensions (e.g. [B, H, T, D] attention heads, often a
    // transposed view): one contraction over all of them, so that no
    // operand is collapsed (which would copy a strided view). The loops
    // and the summation order are those of linalg.batch_matmul.
    return buildContractionGeneric(b, loc, lhs, rhs, resultType, tl, tr,
                                   /*rhsBatched=*/true);
  }
  // Same batch dimensions: one batch dimension for linalg.batch_matmul.
  auto collapseBatch = [&](Value v) {
    auto type = cast<RankedTensorType>(v.getType());
    ArrayRef<int64_t> shape = type.getShape();
    return reshapeStatic(
        b, loc, v,
        RankedTensorType::get({batch, shape[shape.size() - 2], shape.back()},
                              type.getElementType()));
  };
  auto batchType = RankedTensorType::get({batch, m, n}, accType);
  Value result = buildNamedMatmul<linalg::BatchMatmulOp>(
      b, loc, collapseBatch(lhs), collapseBatch(rhs), batchType, tl, tr);
  return reshapeStatic(b, loc, result, resultType);
}

namespace {

struct MatmulLowering : public TrainOpLowering<train::MatmulOp> {
  using TrainOpLowering::TrainOpLowering;
  LogicalResult
  matchAndRewrite(train::MatmulOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    rewriter.replaceOp(
        op, buildMatmul(rewriter, op.getLoc(), adaptor.getLhs(),
                        adaptor.getRhs(), cast<RankedTensorType>(op.getType()),
                        op.getTransposeLhs(), op.getTransposeRhs()));
    return success();
  }
};

//===----------------------------------------------------------------------===//
// Shape ops
//===----------------------------------------------------------------------===//

/// reshape: tensor.collapse_shape / expand_shape (through 1-D if needed).
struct ReshapeLowering : public TrainOpLowering<train::ReshapeOp> {
  using TrainOpLowering::TrainOpLowering;
  LogicalResult
  matchAndRewrite(train::ReshapeOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    // Where the memory model says the reshape copies (its input's strides do
    // not allow a view), copy explicitly into a fresh contiguous tensor, so
    // that the copy is a buffer of the lowering like any result (and can be
    // placed in a planned arena), then reshape that view-free.
    Value input = adaptor.getInput();
    auto aliasing = cast<train::AliasingOpInterface>(op.getOperation());
    if (!aliasing.getViewSource(0)) {
      auto inputType = cast<RankedTensorType>(input.getType());
      input =
          linalg::CopyOp::create(rewriter, op.getLoc(), input,
                                 createEmpty(rewriter, op.getLoc(), inputType))
              .getResult(0);
    }
    rewriter.replaceOp(op, reshapeStatic(rewriter, op.getLoc(), input,
                                         cast<RankedTensorType>(op.getType())));
    return success();
  }
};

/// transpose: a view, as in the memory model (AliasingOpInterface): the
/// input's buffer (bufferization.to_buffer, read-only) permuted by
/// memref.transpose and read back as a tensor (bufferization.to_tensor
/// restrict). Nothing writes into either: the lowering's destinations are
/// fresh tensors or the state globals.
struct TransposeLowering : public TrainOpLowering<train::TransposeOp> {
  using TrainOpLowering::TrainOpLowering;
  LogicalResult
  matchAndRewrite(train::TransposeOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    Value input = adaptor.getInput();
    Value buffer = bufferization::ToBufferOp::create(
        rewriter, loc, getBufferTypeOf(input), input, /*readOnly=*/true);
    AffineMap permutation =
        AffineMap::getPermutationMap(op.getPermutation(), getContext());
    Value view = memref::TransposeOp::create(rewriter, loc, buffer,
                                             AffineMapAttr::get(permutation));
    rewriter.replaceOp(op, bufferization::ToTensorOp::create(
                               rewriter, loc, op.getType(), view,
                               /*restrict=*/true, /*writable=*/false));
    return success();
  }
};

/// copy_to_parallel: the identity (its gradient rule, not its lowering, is
/// what the op is for).
struct CopyToParallelLowering
    : public TrainOpLowering<train::CopyToParallelOp> {
  using TrainOpLowering::TrainOpLowering;
  LogicalResult
  matchAndRewrite(train::CopyToParallelOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    rewriter.replaceOp(op, adaptor.getInput());
    return success();
  }
};

/// slice: tensor.extract_slice with the window's offsets and strides.
struct SliceLowering : public TrainOpLowering<train::SliceOp> {
  using TrainOpLowering::TrainOpLowering;
  LogicalResult
  matchAndRewrite(train::SliceOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    auto type = cast<RankedTensorType>(op.getType());
    SmallVector<OpFoldResult> offsets, sizes, strides;
    getWindow(rewriter, type.getShape(), op.getOffsets(), op.getStrides(),
              offsets, sizes, strides);
    rewriter.replaceOp(op, tensor::ExtractSliceOp::create(
                               rewriter, op.getLoc(), type, adaptor.getInput(),
                               offsets, sizes, strides));
    return success();
  }
};

/// slice_grad: zeros with the gradient inserted at the window.
struct SliceGradLowering : public TrainOpLowering<train::SliceGradOp> {
  using TrainOpLowering::TrainOpLowering;
  LogicalResult
  matchAndRewrite(train::SliceGradOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    auto type = cast<RankedTensorType>(op.getType());
    auto gradType = cast<RankedTensorType>(adaptor.getGrad().getType());
    SmallVector<OpFoldResult> offsets, sizes, strides;
    getWindow(rewriter, gradType.getShape(), op.getOffsets(), op.getStrides(),
              offsets, sizes, strides);
    Value zeros = createFilled(rewriter, loc, type, 0.0);
    rewriter.replaceOp(
        op, tensor::InsertSliceOp::create(rewriter, loc, adaptor.getGrad(),
                                          zeros, offsets, sizes, strides));
    return success();
  }
};

/// concat: a new tensor with each input inserted at its offset.
struct ConcatLowering : public TrainOpLowering<train::ConcatOp> {
  using TrainOpLowering::TrainOpLowering;
  LogicalResult
  matchAndRewrite(train::ConcatOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    auto type = cast<RankedTensorType>(op.getType());
    int64_t axis = static_cast<int64_t>(op.getAxis());
    if (axis < 0)
      axis += type.getRank();
    if (adaptor.getInputs().size() == 1) {
      rewriter.replaceOp(op, adaptor.getInputs().front());
      return success();
    }
    // Each input inserted into a new tensor (what tensor.concat decomposes
    // into), so that the result has a tensor.empty destination like any
    // other op's result: a planned arena places it (ArenaPlacement).
    Location loc = op.getLoc();
    Value result = createEmpty(rewriter, loc, type);
    int64_t offset = 0;
    for (Value input : adaptor.getInputs()) {
      ArrayRef<int64_t> shape =
          cast<RankedTensorType>(input.getType()).getShape();
      SmallVector<OpFoldResult> offsets(type.getRank(),
                                        rewriter.getIndexAttr(0));
      SmallVector<OpFoldResult> sizes,
          strides(type.getRank(), rewriter.getIndexAttr(1));
      for (int64_t size : shape)
        sizes.push_back(rewriter.getIndexAttr(size));
      offsets[axis] = rewriter.getIndexAttr(offset);
      offset += shape[axis];
      result = tensor::InsertSliceOp::create(rewriter, loc, input, result,
                                             offsets, sizes, strides);
    }
    rewriter.replaceOp(op, result);
    return success();
  }
};

//===----------------------------------------------------------------------===//
// Embedding
//===----------------------------------------------------------------------===//

/// The local row of the whole-table row `id` in the part starting at
/// `offset` (row 0 when outside it), and whether the part holds it.
static std::pair<Value, Value> getLocalRow(OpBuilder &b, Location loc, Value id,
                                           Value offset, int64_t rows) {
  Value local = arith::SubIOp::create(b, loc, id, offset);
  // Unsigned: a row before the part wraps around to a large value.
  Value inPart =
      arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ult, local,
                            arith::ConstantIndexOp::create(b, loc, rows));
  Value row = arith::SelectOp::create(
      b, loc, inPart, local, arith::ConstantIndexOp::create(b, loc, 0));
  return {row, inPart};
}

/// embedding: a gather, `result[i..., h] = table[ids[i...], h]` (with a
/// vocabulary part, zero where the part does not hold the row).
struct EmbeddingLowering : public TrainOpLowering<train::EmbeddingOp> {
  using TrainOpLowering::TrainOpLowering;
  LogicalResult
  matchAndRewrite(train::EmbeddingOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    auto type = cast<RankedTensorType>(op.getType());
    int64_t rank = type.getRank();
    MLIRContext *ctx = rewriter.getContext();
    Value table = adaptor.getTable();
    int64_t rows = cast<RankedTensorType>(table.getType()).getShape()[0];
    Value offset = getVocabPartOffset(rewriter, loc, adaptor.getPart(), rows);
    SmallVector<AffineMap> maps = {getDroppedDimsMap(ctx, rank, {rank - 1}),
                                   rewriter.getMultiDimIdentityMap(rank)};
    auto generic = linalg::GenericOp::create(
        rewriter, loc, TypeRange{type}, ValueRange{adaptor.getIds()},
        ValueRange{createEmpty(rewriter, loc, type)}, maps, getIterators(rank),
        [&](OpBuilder &b, Location l, ValueRange args) {
          Value row =
              arith::IndexCastOp::create(b, l, b.getIndexType(), args[0]);
          Value inPart;
          if (offset)
            std::tie(row, inPart) = getLocalRow(b, l, row, offset, rows);
          Value column = linalg::IndexOp::create(b, l, rank - 1);
          Value value =
              tensor::ExtractOp::create(b, l, table, ValueRange{row, column});
          if (inPart)
            value = arith::SelectOp::create(
                b, l, inPart, value,
                createScalar(b, l, type.getElementType(), 0.0));
          linalg::YieldOp::create(b, l, value);
        });
    rewriter.replaceOp(op, generic.getResult(0));
    return success();
  }
};

/// embedding_grad: a scatter-add of the gradient rows into a zero table, one
/// row per loop iteration (in place on the loop-carried table), which costs
/// O(positions x H) instead of a one-hot matmul's O(positions x V x H).
struct EmbeddingGradLowering : public TrainOpLowering<train::EmbeddingGradOp> {
  using TrainOpLowering::TrainOpLowering;
  LogicalResult
  matchAndRewrite(train::EmbeddingGradOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    auto type = cast<RankedTensorType>(op.getType());
    int64_t h = type.getShape()[1];
    Value ids = flatten(rewriter, loc, adaptor.getIds());
    Value grad = collapseRows(rewriter, loc, adaptor.getGrad());
    int64_t positions = cast<RankedTensorType>(ids.getType()).getShape()[0];
    int64_t rows = type.getShape()[0];
    Value offset = getVocabPartOffset(rewriter, loc, adaptor.getPart(), rows);
    Value zeros = createFilled(rewriter, loc, type, 0.0);
    auto rowType = RankedTensorType::get({1, h}, type.getElementType());
    Value lower = arith::ConstantIndexOp::create(rewriter, loc, 0);
    Value upper = arith::ConstantIndexOp::create(rewriter, loc, positions);
    Value step = arith::ConstantIndexOp::create(rewriter, loc, 1);
    SmallVector<OpFoldResult> sizes = {rewriter.getIndexAttr(1),
                                       rewriter.getIndexAttr(h)};
    SmallVector<OpFoldResult> unitStrides = {rewriter.getIndexAttr(1),
                                             rewriter.getIndexAttr(1)};
    auto loop = scf::ForOp::create(
        rewriter, loc, lower, upper, step, ValueRange{zeros},
        [&](OpBuilder &b, Location l, Value position, ValueRange iterArgs) {
          Value id = tensor::ExtractOp::create(b, l, ids, position);
          id = arith::IndexCastOp::create(b, l, b.getIndexType(), id);
          // An id outside this vocabulary part adds nothing (to row 0).
          Value inPart;
          if (offset)
            std::tie(id, inPart) = getLocalRow(b, l, id, offset, rows);
          SmallVector<OpFoldResult> gradOffsets = {position, b.getIndexAttr(0)};
          SmallVector<OpFoldResult> tableOffsets = {id, b.getIndexAttr(0)};
          Value gradRow = tensor::ExtractSliceOp::create(
              b, l, rowType, grad, gradOffsets, sizes, unitStrides);
          Value tableRow = tensor::ExtractSliceOp::create(
              b, l, rowType, iterArgs[0], tableOffsets, sizes, unitStrides);
          SmallVector<AffineMap> maps(2, b.getMultiDimIdentityMap(2));
          Value sum = linalg::GenericOp::create(
                          b, l, TypeRange{rowType}, ValueRange{gradRow},
                          ValueRange{tableRow}, maps, getIterators(2),
                          [&](OpBuilder &nested, Location nl, ValueRange args) {
                            Value sum = arith::AddFOp::create(nested, nl,
                                                              args[1], args[0]);
                            if (inPart)
                              sum = arith::SelectOp::create(nested, nl, inPart,
                                                            sum, args[1]);
                            linalg::YieldOp::create(nested, nl, sum);
                          })
                          .getResult(0);
          Value updated = tensor::InsertSliceOp::create(
              b, l, sum, iterArgs[0], tableOffsets, sizes, unitStrides);
          scf::YieldOp::create(b, l, updated);
        });
    rewriter.replaceOp(op, loop.getResult(0));
    return success();
  }
};

//===----------------------------------------------------------------------===//
// Softmax
//===----------------------------------------------------------------------===//

/// A softmax or softmax_grad: its result type, the reductions along its
/// `axis` (maps and iterators) and the type of their row statistics, in
/// the compute type of the result's elements.
struct AxisReduction {
  RankedTensorType type;
  Type elementType, computeType;
  int64_t rank, axis;
  double scale;
  RankedTensorType statType;
  AffineMap identity, reduced;
  SmallVector<utils::IteratorType> iterators;

  template <typename OpTy>
  AxisReduction(OpBuilder &b, OpTy op)
      : type(cast<RankedTensorType>(op.getType())),
        elementType(type.getElementType()),
        computeType(getAccumulatorType(elementType)), rank(type.getRank()),
        axis(normalizeAxis(static_cast<int64_t>(op.getAxis()), rank)),
        scale(op.getScale().convertToDouble()),
        statType(
            RankedTensorType::get(dropDim(type.getShape(), axis), computeType)),
        identity(b.getMultiDimIdentityMap(rank)),
        reduced(getDroppedDimsMap(b.getContext(), rank, {axis})),
        iterators(getIterators(rank, {axis})) {}

  /// A linalg.generic reducing `inputs` (read through `inputMaps`) along the
  /// axis into row statistics of `statType` that start at `init`; `body`
  /// gets the input scalars and the current statistic and returns the new
  /// one.
  Value reduce(OpBuilder &b, Location loc, ValueRange inputs,
               ArrayRef<AffineMap> inputMaps, double init,
               ScalarBody body) const {
    return build(b, loc, statType, inputs, inputMaps,
                 createFilled(b, loc, statType, init), reduced, iterators,
                 body);
  }

  /// A linalg.generic over the result `type` computing each element from
  /// `inputs` (read through `inputMaps`).
  Value map(OpBuilder &b, Location loc, ValueRange inputs,
            ArrayRef<AffineMap> inputMaps, ScalarBody body) const {
    return build(b, loc, type, inputs, inputMaps, createEmpty(b, loc, type),
                 identity, getIterators(rank), body);
  }

private:
  static Value build(OpBuilder &b, Location loc, RankedTensorType resultType,
                     ValueRange inputs, ArrayRef<AffineMap> inputMaps,
                     Value init, AffineMap initMap,
                     ArrayRef<utils::IteratorType> iterators, ScalarBody body) {
    SmallVector<AffineMap> maps(inputMaps);
    maps.push_back(initMap);
    return linalg::GenericOp::create(
               b, loc, TypeRange{resultType}, inputs, ValueRange{init}, maps,
               iterators,
               [&](OpBuilder &nested, Location l, ValueRange args) {
                 linalg::YieldOp::create(nested, l, body(nested, l, args));
               })
        .getResult(0);
  }

  static int64_t normalizeAxis(int64_t axis, int64_t rank) {
    return axis < 0 ? axis + rank : axis;
  }
};

/// softmax: `exp(s - max(s)) / sum(exp(s - max(s)))` with `s = scale * x`
/// along `axis`; with `causal`, element `[..., i, j]` with
/// `j > i + (K - Q)` is excluded (probability 0).
struct SoftmaxLowering : public TrainOpLowering<train::SoftmaxOp> {
  using TrainOpLowering::TrainOpLowering;
  LogicalResult
  matchAndRewrite(train::SoftmaxOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    Value input = adaptor.getInput();
    AxisReduction red(rewriter, op);
    Type elementType = red.elementType, computeType = red.computeType;
    int64_t rank = red.rank;
    double scale = red.scale;
    bool causal = op.getCausal();
    ArrayRef<int64_t> shape = red.type.getShape();
    int64_t diagonal = causal ? shape[rank - 1] - shape[rank - 2] : 0;

    auto scaled = [&](OpBuilder &b, Location l, Value x) -> Value {
      x = castScalar(b, l, x, computeType);
      if (scale == 1.0)
        return x;
      return arith::MulFOp::create(b, l, x,
                                   createScalar(b, l, computeType, scale));
    };
    // i1: the current element is masked out (causal only).
    auto masked = [&](OpBuilder &b, Location l) -> Value {
      Value i = linalg::IndexOp::create(b, l, rank - 2);
      Value j = linalg::IndexOp::create(b, l, rank - 1);
      Value limit = arith::AddIOp::create(
          b, l, i, arith::ConstantIndexOp::create(b, l, diagonal));
      return arith::CmpIOp::create(b, l, arith::CmpIPredicate::sgt, j, limit);
    };

    Value rowMax =
        red.reduce(rewriter, loc, input, red.identity, -INFINITY,
                   [&](OpBuilder &b, Location l, ValueRange args) -> Value {
                     Value s = scaled(b, l, args[0]);
                     if (causal) {
                       // Sequenced: the order of function arguments is
                       // unspecified, and GCC and Clang would emit the ops in
                       // different orders.
                       Value negInf =
                           createScalar(b, l, computeType, -INFINITY);
                       Value mask = masked(b, l);
                       s = arith::SelectOp::create(b, l, mask, negInf, s);
                     }
                     return arith::MaximumFOp::create(b, l, args[1], s);
                   });
    auto expShifted = [&](OpBuilder &b, Location l, Value x,
                          Value max) -> Value {
      return math::ExpOp::create(
          b, l, arith::SubFOp::create(b, l, scaled(b, l, x), max));
    };
    // Masked elements are 0 (also in a fully masked row, whose max is -inf
    // and whose sum is 0).
    auto zeroIfMasked = [&](OpBuilder &b, Location l, Value v) -> Value {
      if (!causal)
        return v;
      Value zero = createScalar(b, l, computeType, 0.0);
      Value mask = masked(b, l);
      return arith::SelectOp::create(b, l, mask, zero, v);
    };
    Value sum = red.reduce(
        rewriter, loc, ValueRange{input, rowMax}, {red.identity, red.reduced},
        0.0, [&](OpBuilder &b, Location l, ValueRange args) -> Value {
          Value e = zeroIfMasked(b, l, expShifted(b, l, args[0], args[1]));
          return arith::AddFOp::create(b, l, args[2], e);
        });
    Value result = red.map(rewriter, loc, ValueRange{input, rowMax, sum},
                           {red.identity, red.reduced, red.reduced},
                           [&](OpBuilder &b, Location l, ValueRange args) {
                             Value e = expShifted(b, l, args[0], args[1]);
                             Value p = zeroIfMasked(
                                 b, l, arith::DivFOp::create(b, l, e, args[2]));
                             return castScalar(b, l, p, elementType);
                           });
    rewriter.replaceOp(op, result);
    return success();
  }
};

/// softmax_grad: `scale * y * (dy - sum(dy * y, axis))`.
struct SoftmaxGradLowering : public TrainOpLowering<train::SoftmaxGradOp> {
  using TrainOpLowering::TrainOpLowering;
  LogicalResult
  matchAndRewrite(train::SoftmaxGradOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    AxisReduction red(rewriter, op);
    Type elementType = red.elementType, computeType = red.computeType;
    double scale = red.scale;
    Value grad = adaptor.getGrad(), output = adaptor.getOutput();

    Value dot = red.reduce(
        rewriter, loc, ValueRange{grad, output}, {red.identity, red.identity},
        0.0, [&](OpBuilder &b, Location l, ValueRange args) -> Value {
          Value dy = castScalar(b, l, args[0], computeType);
          Value y = castScalar(b, l, args[1], computeType);
          return arith::AddFOp::create(b, l, args[2],
                                       arith::MulFOp::create(b, l, dy, y));
        });
    Value result =
        red.map(rewriter, loc, ValueRange{grad, output, dot},
                {red.identity, red.identity, red.reduced},
                [&](OpBuilder &b, Location l, ValueRange args) {
                  Value dy = castScalar(b, l, args[0], computeType);
                  Value y = castScalar(b, l, args[1], computeType);
                  Value d = arith::MulFOp::create(
                      b, l, y, arith::SubFOp::create(b, l, dy, args[2]));
                  if (scale != 1.0)
                    d = arith::MulFOp::create(
                        b, l, d, createScalar(b, l, computeType, scale));
                  return castScalar(b, l, d, elementType);
                });
    rewriter.replaceOp(op, result);
    return success();
  }
};

} // namespace

void mlir::memopt::populateLinalgLoweringPatterns(RewritePatternSet &patterns) {
  patterns.add<MatmulLowering, ReshapeLowering, TransposeLowering,
               SliceLowering, CopyToParallelLowering, SliceGradLowering,
               ConcatLowering, EmbeddingLowering, EmbeddingGradLowering,
               SoftmaxLowering, SoftmaxGradLowering>(patterns.getContext());
}
