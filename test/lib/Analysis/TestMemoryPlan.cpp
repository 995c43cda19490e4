//===- TestMemoryPlan.cpp - print the arena plan of a step ----------------===//
//
// `-test-print-memory-plan` runs the planner on every function with a body,
// as train-plan-memory does (planStepMemory over the TensorLiveness
// analysis), without writing the plan into the IR, and prints one line per
// planned slot: its name, size, half-open lifetime and offset, then the arena
// and LOAD; for a step with host values, the host's arena after it.
//
//===----------------------------------------------------------------------===//

#include "memopt/Analysis/StepMemoryPlan.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/Pass/Pass.h"

using namespace mlir;
using namespace mlir::memopt;

namespace {

struct TestPrintMemoryPlanPass
    : public PassWrapper<TestPrintMemoryPlanPass, OperationPass<ModuleOp>> {
  MLIR_DEFINE_EXPLICIT_INTERNAL_INLINE_TYPE_ID(TestPrintMemoryPlanPass)

  TestPrintMemoryPlanPass() = default;
  TestPrintMemoryPlanPass(const TestPrintMemoryPlanPass &pass)
      : PassWrapper(pass) {}

  StringRef getArgument() const final { return "test-print-memory-plan"; }
  StringRef getDescription() const final {
    return "Print the arena plan train-plan-memory would write: every "
           "buffer's and workspace's size, lifetime and offset";
  }

  Option<int64_t> alignment{
      *this, "alignment",
      llvm::cl::desc("Offset alignment (train-plan-memory's alignment)"),
      llvm::cl::init(256)};

  void runOnOperation() override {
    for (auto func : getOperation().getOps<func::FuncOp>()) {
      if (func.isExternal())
        continue;
      if (!func.getBody().hasOneBlock()) {
        func.emitOpError("expected a single-block training step");
        return signalPassFailure();
      }
      const auto &liveness = getChildAnalysis<TensorLiveness>(func);
      llvm::outs() << "func @" << func.getSymName() << "\n";
      if (failed(print(func, liveness, PlanSpace::Device)) ||
          (liveness.hasHostBuffers() &&
           failed(print(func, liveness, PlanSpace::Host))))
        return signalPassFailure();
    }
    markAllAnalysesPreserved();
  }

  /// Prints the plan of `func`'s arena in `space` (the host's after a
  /// "host arena" line).
  LogicalResult print(func::FuncOp func, const TensorLiveness &liveness,
                      PlanSpace space) {
    StepPlanOptions options;
    options.alignment = alignment;
    llvm::Expected<StepMemoryPlan> plan =
        planStepMemory(liveness, options, space);
    if (!plan)
      return mlir::emitError(func.getLoc())
             << "test-print-memory-plan: " << llvm::toString(plan.takeError());
    raw_ostream &os = llvm::outs();
    if (space == PlanSpace::Host)
      os << "  host arena:\n";
    for (auto [slot, offset] : llvm::zip_equal(plan->slots, plan->offsets)) {
      os << "  ";
      if (slot.buffer)
        os << slot.buffer->name;
      else
        os << "workspace of " << slot.op->getName() << " at " << slot.point;
      os << ": size = " << slot.bytes << ", liveness = [" << slot.lower << ", "
         << slot.upper << "), offset = " << offset;
      if (slot.persistent)
        os << ", persistent";
      os << "\n";
    }
    os << "  " << (space == PlanSpace::Host ? "host arena" : "arena") << " = "
       << plan->arenaBytes << ", load = " << plan->loadBytes
       << ", persistent = " << plan->persistentBytes << "\n";
    return success();
  }
};

} // namespace

namespace mlir::memopt::test {
void registerTestMemoryPlanPass() {
  PassRegistration<TestPrintMemoryPlanPass>();
}
} // namespace mlir::memopt::test
