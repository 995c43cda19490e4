//===- CheckLinalgInput.cpp - the lowering pipelines' input check ---------===//

#include "memopt/Conversion/Passes.h"
#include "memopt/Dialect/Train/IR/TrainOps.h"
#include "memopt/Dialect/Train/IR/TrainStep.h"

namespace mlir::memopt {
#define GEN_PASS_DEF_MEMOPTCHECKLINALGINPUTPASS
#include "memopt/Conversion/Passes.h.inc"
} // namespace mlir::memopt

using namespace mlir;

namespace {

struct CheckLinalgInputPass
    : public memopt::impl::MemoptCheckLinalgInputPassBase<
          CheckLinalgInputPass> {
  using Base::Base;

  void runOnOperation() override {
    markAllAnalysesPreserved();
    // Pipeline transfers stay train ops until memopt-shard-to-mpi (or
    // -nccl) lowers them with the collectives.
    Operation *op = nullptr;
    getOperation()->walk([&](Operation *nested) {
      if (!isa<memopt::train::TrainDialect>(nested->getDialect()) ||
          isa<memopt::train::P2POp>(nested))
        return WalkResult::advance();
      op = nested;
      return WalkResult::interrupt();
    });
    if (!op)
      return;
    op->emitError() << pipeline << " expects linalg on tensors, but '"
                    << op->getName()
                    << "' is a train op; run --convert-train-to-linalg first";
    signalPassFailure();
  }
};

} // namespace
