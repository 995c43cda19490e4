//===- UpsampleLowering.cpp - upsample_nearest2d and its gradient ---------===//
//
// Nearest-neighbour upsampling of NCHW activations by an integer scale: a
// broadcast of each element over its s x s block, and the gradient as the
// sum over each block. Scale 1 is the identity.
//
//===----------------------------------------------------------------------===//

#include "Lowering.h"

using namespace mlir;
using namespace mlir::memopt;

namespace {

/// Base of the upsampling lowerings: scale 1 is the identity on the op's
/// operand, other scales are `lowerScaled`'s. Both view the upsampled side
/// N x C x Hs x Ws as blocks N x C x H x s x W x s (getBlocksType,
/// getBlocksReassociation).
template <typename OpTy>
struct UpsampleLoweringBase : public TrainOpLowering<OpTy> {
  using TrainOpLowering<OpTy>::TrainOpLowering;
  using OpAdaptor = typename TrainOpLowering<OpTy>::OpAdaptor;

  LogicalResult
  matchAndRewrite(OpTy op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const final {
    auto scale = static_cast<int64_t>(op.getScale());
    Value operand = adaptor.getOperands().front();
    if (scale == 1) {
      rewriter.replaceOp(op, operand);
      return success();
    }
    rewriter.replaceOp(op, lowerScaled(op, operand, scale, rewriter));
    return success();
  }

  virtual Value lowerScaled(OpTy op, Value operand, int64_t scale,
                            ConversionPatternRewriter &rewriter) const = 0;

  /// The blocks N x C x H x s x W x s of the upsampled side of `type`
  /// (N x C x H x W).
  static RankedTensorType getBlocksType(RankedTensorType type, int64_t scale) {
    ArrayRef<int64_t> x = type.getShape();
    return type.clone({x[0], x[1], x[2], scale, x[3], scale});
  }

  /// Blocks to N x C x Hs x Ws.
  static SmallVector<ReassociationIndices> getBlocksReassociation() {
    return {{0}, {1}, {2, 3}, {4, 5}};
  }
};

/// upsample_nearest2d: linalg.broadcast of N x C x H x W to
/// N x C x H x s x W x s, collapsed to N x C x Hs x Ws.
struct UpsampleNearest2dLowering
    : public UpsampleLoweringBase<train::UpsampleNearest2dOp> {
  using UpsampleLoweringBase::UpsampleLoweringBase;
  Value lowerScaled(train::UpsampleNearest2dOp op, Value input, int64_t scale,
                    ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    auto broadcastType =
        getBlocksType(cast<RankedTensorType>(input.getType()), scale);
    Value broadcast =
        linalg::BroadcastOp::create(rewriter, loc, input,
                                    createEmpty(rewriter, loc, broadcastType),
                                    ArrayRef<int64_t>{3, 5})
            .getResult()[0];
    return tensor::CollapseShapeOp::create(rewriter, loc, op.getType(),
                                           broadcast, getBlocksReassociation());
  }
};

/// upsample_nearest2d_grad: N x C x Hs x Ws viewed as N x C x H x s x W x s
/// and summed over both `s` dimensions with linalg.reduce.
struct UpsampleNearest2dGradLowering
    : public UpsampleLoweringBase<train::UpsampleNearest2dGradOp> {
  using UpsampleLoweringBase::UpsampleLoweringBase;
  Value lowerScaled(train::UpsampleNearest2dGradOp op, Value grad,
                    int64_t scale,
                    ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    auto resultType = cast<RankedTensorType>(op.getType());
    Type elementType = resultType.getElementType();
    Value blocks = tensor::ExpandShapeOp::create(
        rewriter, loc, getBlocksType(resultType, scale), grad,
        getBlocksReassociation());
    Value sum =
        buildReduceSum(rewriter, loc, blocks, {3, 5},
                       resultType.clone(getAccumulatorType(elementType)));
    return castTensor(rewriter, loc, sum, elementType);
  }
};

} // namespace

void mlir::memopt::populateUpsampleLoweringPatterns(
    RewritePatternSet &patterns) {
  patterns.add<UpsampleNearest2dLowering, UpsampleNearest2dGradLowering>(
      patterns.getContext());
}
