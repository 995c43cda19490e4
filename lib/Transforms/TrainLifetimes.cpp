//===- TrainLifetimes.cpp - explicit train.free after last uses -----------===//

#include "memopt/Analysis/TensorLiveness.h"
#include "memopt/Dialect/Train/IR/TrainOps.h"
#include "memopt/Dialect/Train/IR/TrainStep.h"
#include "memopt/Transforms/Passes.h"

#include "mlir/IR/Builders.h"

namespace mlir::memopt {
#define GEN_PASS_DEF_TRAINLIFETIMESPASS
#include "memopt/Transforms/Passes.h.inc"
} // namespace mlir::memopt

using namespace mlir;
using namespace mlir::memopt;

namespace {

struct TrainLifetimesPass
    : public memopt::impl::TrainLifetimesPassBase<TrainLifetimesPass> {
  using Base::Base;

  void runOnOperation() override {
    func::FuncOp func = getOperation();
    if (func.isExternal())
      return;
    if (failed(train::verifyStepBody(func, "train-lifetimes")))
      return signalPassFailure();
    if (!makeLifetimesExplicit(func))
      markAllAnalysesPreserved();
  }
};

} // namespace

bool mlir::memopt::makeLifetimesExplicit(func::FuncOp func) {
  TensorLiveness liveness(func);
  ArrayRef<Operation *> schedule = liveness.getSchedule();
  // Frees behind one op follow buffer definition order: remember the last
  // free inserted behind each op.
  llvm::DenseMap<Operation *, Operation *> lastFreeAfter;
  bool changed = false;
  OpBuilder builder(func.getContext());

  // A free written later than the buffer's last use keeps memory that
  // nothing reads: move it up behind that use. The last use ignores frees.
  llvm::DenseMap<const Buffer *, int64_t> lastRealUse;
  llvm::DenseMap<const Buffer *, train::FreeOp> freeOf;
  for (auto [point, op] : llvm::enumerate(schedule)) {
    if (auto free = dyn_cast<train::FreeOp>(op)) {
      if (const Buffer *buffer = liveness.lookup(free.getTensor()))
        freeOf[buffer] = free;
      continue;
    }
    // A view nothing reads is erased when lowered: not a use.
    if (liveness.isDeadView(op))
      continue;
    op->walk([&](Operation *nested) {
      for (Value operand : nested->getOperands())
        if (const Buffer *buffer = liveness.lookup(operand))
          lastRealUse[buffer] = point;
    });
  }
  for (const Buffer &buffer : liveness.getBuffers()) {
    if (!buffer.freed || !freeOf.count(&buffer))
      continue;
    train::FreeOp free = freeOf[&buffer];
    Operation *lastUse = buffer.value.getDefiningOp();
    if (auto it = lastRealUse.find(&buffer); it != lastRealUse.end())
      lastUse = schedule[it->second];
    if (!lastUse)
      continue;
    // Already in the run of frees right behind the last use?
    bool inPlace = true;
    for (Operation *op = lastUse->getNextNode(); op && op != free;
         op = op->getNextNode())
      inPlace &= isa<train::FreeOp>(op);
    if (inPlace)
      continue;
    Operation *&anchor = lastFreeAfter[lastUse];
    free->moveAfter(anchor ? anchor : lastUse);
    anchor = free;
    changed = true;
  }

  for (const Buffer &buffer : liveness.getBuffers()) {
    if (buffer.persistent || buffer.freed || buffer.returned ||
        isa<BlockArgument>(buffer.value))
      continue;
    Operation *lastUse = schedule[buffer.end];
    // Nothing follows a terminator; a buffer it uses is returned.
    if (lastUse->hasTrait<OpTrait::IsTerminator>())
      continue;
    Operation *&anchor = lastFreeAfter[lastUse];
    builder.setInsertionPointAfter(anchor ? anchor : lastUse);
    anchor = train::FreeOp::create(builder, lastUse->getLoc(), buffer.value);
    changed = true;
  }

  // Views nothing reads are dead code: the lowering erases them and the
  // model ignores them, so a free may precede them; erase them here so that
  // the step stays valid (no use after a free). Users go first.
  for (Operation *op : llvm::reverse(schedule)) {
    if (!liveness.isDeadView(op))
      continue;
    op->erase();
    changed = true;
  }
  return changed;
}
