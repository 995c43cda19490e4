//===- FreeAfterLastUse.cpp - deallocate right after the last use ---------===//

#include "memopt/Conversion/Passes.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"

namespace mlir::memopt {
#define GEN_PASS_DEF_MEMOPTFREEAFTERLASTUSEPASS
#include "memopt/Conversion/Passes.h.inc"
} // namespace mlir::memopt

using namespace mlir;

namespace {

struct FreeAfterLastUsePass
    : public memopt::impl::MemoptFreeAfterLastUsePassBase<
          FreeAfterLastUsePass> {
  using Base::Base;

  void runOnOperation() override {
    SmallVector<memref::DeallocOp> deallocs;
    getOperation().walk(
        [&](memref::DeallocOp dealloc) { deallocs.push_back(dealloc); });
    for (memref::DeallocOp dealloc : deallocs)
      hoist(dealloc);
  }

  /// Moves `dealloc` after the last op of its block that uses the buffer or
  /// an alias of it; leaves it if a use lies outside the block.
  static void hoist(memref::DeallocOp dealloc) {
    Block *block = dealloc->getBlock();
    Operation *lastUse = nullptr;
    Value buffer = dealloc.getMemref();
    if (Operation *def = buffer.getDefiningOp();
        def && def->getBlock() == block)
      lastUse = def;
    else if (auto arg = dyn_cast<BlockArgument>(buffer);
             !arg || arg.getOwner() != block)
      return;
    SmallVector<Value> aliases = {buffer};
    llvm::SmallPtrSet<Value, 8> seen = {buffer};
    while (!aliases.empty()) {
      Value alias = aliases.pop_back_val();
      for (OpOperand &use : alias.getUses()) {
        Operation *user = use.getOwner();
        if (user == dealloc)
          continue;
        Operation *ancestor = block->findAncestorOpInBlock(*user);
        if (!ancestor || !ancestor->isBeforeInBlock(dealloc))
          return; // Used elsewhere or after the dealloc: leave it.
        if (!lastUse || lastUse->isBeforeInBlock(ancestor))
          lastUse = ancestor;
        for (Value result : user->getResults())
          if (isa<BaseMemRefType>(result.getType()) &&
              seen.insert(result).second)
            aliases.push_back(result);
      }
    }
    if (lastUse && lastUse->getNextNode() != dealloc)
      dealloc->moveAfter(lastUse);
  }
};

} // namespace
