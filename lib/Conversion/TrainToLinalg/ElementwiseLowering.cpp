//===- ElementwiseLowering.cpp - elementwise ops and their gradients ------===//

#include "Lowering.h"

using namespace mlir;
using namespace mlir::memopt;

namespace {

/// relu: max(x, 0) elementwise.
struct ReluLowering : public OpConversionPattern<train::ReluOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(train::ReluOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    auto type = cast<RankedTensorType>(op.getType());
    Value result = buildElementwise(
        rewriter, op.getLoc(), type, adaptor.getInput(),
        [&](OpBuilder &b, Location loc, ValueRange args) -> Value {
          Value zero = createScalar(b, loc, type.getElementType(), 0.0);
          return arith::MaximumFOp::create(b, loc, args[0], zero);
        });
    rewriter.replaceOp(op, result);
    return success();
  }
};

} // namespace

void mlir::memopt::populateElementwiseLoweringPatterns(
    RewritePatternSet &patterns) {
  patterns.add<ReluLowering>(patterns.getContext());
}
