//===- PrepareLinalg.cpp - linalg ops shaped for the GPU loop mapping -----===//

#include "memopt/Conversion/Passes.h"

#include "mlir/Dialect/Linalg/Transforms/Transforms.h"
#include "mlir/IR/PatternMatch.h"

namespace mlir::memopt {
#define GEN_PASS_DEF_MEMOPTGPUPREPARELINALGPASS
#include "memopt/Conversion/Passes.h.inc"
} // namespace mlir::memopt

using namespace mlir;

/// The loop order that puts every parallel dimension of `op` first (the
/// relative order within each kind kept), or empty when it already is.
static SmallVector<unsigned> getParallelFirstOrder(linalg::LinalgOp op) {
  SmallVector<utils::IteratorType> iterators = op.getIteratorTypesArray();
  SmallVector<unsigned> order;
  for (auto [i, kind] : llvm::enumerate(iterators))
    if (kind == utils::IteratorType::parallel)
      order.push_back(i);
  for (auto [i, kind] : llvm::enumerate(iterators))
    if (kind != utils::IteratorType::parallel)
      order.push_back(i);
  if (llvm::equal(order, llvm::seq<unsigned>(0, iterators.size())))
    return {};
  return order;
}

namespace {

struct GPUPrepareLinalgPass
    : public memopt::impl::MemoptGPUPrepareLinalgPassBase<
          GPUPrepareLinalgPass> {
  using Base::Base;

  void runOnOperation() override {
    SmallVector<memref::CopyOp> copies;
    SmallVector<linalg::LinalgOp> reorders;
    getOperation().walk([&](Operation *op) {
      if (auto copy = dyn_cast<memref::CopyOp>(op)) {
        // A 0-d copy is one scalar: no loop to map.
        auto type = dyn_cast<MemRefType>(copy.getSource().getType());
        if (type && type.getRank() > 0 &&
            isa<MemRefType>(copy.getTarget().getType()))
          copies.push_back(copy);
      } else if (auto linalgOp = dyn_cast<linalg::LinalgOp>(op)) {
        if (linalgOp.hasPureBufferSemantics() &&
            !getParallelFirstOrder(linalgOp).empty())
          reorders.push_back(linalgOp);
      }
    });
    IRRewriter rewriter(&getContext());
    for (memref::CopyOp copy : copies) {
      rewriter.setInsertionPoint(copy);
      linalg::CopyOp::create(rewriter, copy.getLoc(), copy.getSource(),
                             copy.getTarget());
      rewriter.eraseOp(copy);
    }
    for (linalg::LinalgOp op : reorders) {
      SmallVector<unsigned> order = getParallelFirstOrder(op);
      rewriter.setInsertionPoint(op);
      auto generic = dyn_cast<linalg::GenericOp>(op.getOperation());
      if (!generic) {
        FailureOr<linalg::GenericOp> generalized =
            linalg::generalizeNamedOp(rewriter, op);
        // Ops without a region builder keep their order (still correct).
        if (failed(generalized))
          continue;
        generic = *generalized;
      }
      (void)linalg::interchangeGenericOp(rewriter, generic, order);
    }
  }
};

} // namespace
