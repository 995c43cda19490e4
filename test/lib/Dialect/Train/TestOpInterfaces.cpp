//===- TestOpInterfaces.cpp - print the train op interfaces ---------------===//
//
// `-test-print-op-interfaces` prints, for every train op of a function in
// program order, what the cost, aliasing and precision-class interfaces say,
// so lit tests can check every op's implementation. It runs on the module so
// that functions print one after another, in order (a function pass would
// interleave their output under multi-threading).
//
//===----------------------------------------------------------------------===//

#include "memopt/Dialect/Train/IR/TrainOps.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Pass/Pass.h"
#include "mlir/Pass/PassRegistry.h"

using namespace mlir;
using namespace mlir::memopt::train;

namespace {

struct TestPrintOpInterfacesPass
    : public PassWrapper<TestPrintOpInterfacesPass, OperationPass<ModuleOp>> {
  MLIR_DEFINE_EXPLICIT_INTERNAL_INLINE_TYPE_ID(TestPrintOpInterfacesPass)

  StringRef getArgument() const final { return "test-print-op-interfaces"; }
  StringRef getDescription() const final {
    return "Print the cost, aliasing and precision class of every train op";
  }

  void runOnOperation() override {
    for (auto func : getOperation().getOps<func::FuncOp>())
      print(func, llvm::outs());
    markAllAnalysesPreserved();
  }

  static void print(func::FuncOp func, raw_ostream &os) {
    os << "func @" << func.getSymName() << "\n";
    func.walk([&](Operation *op) {
      auto cost = dyn_cast<CostOpInterface>(op);
      if (!cost)
        return;
      os << "  " << op->getName() << " " << op->getLoc()
         << ": flops=" << cost.getFlops() << " read=" << cost.getBytesRead()
         << " written=" << cost.getBytesWritten()
         << " workspace=" << cost.getWorkspaceBytes();
      SmallVector<int64_t> buffers = cost.getWorkspaceBuffers();
      if (!buffers.empty()) {
        os << " buffers=[";
        llvm::interleaveComma(buffers, os);
        os << "]";
      }
      if (std::optional<PrecisionClass> cls = getPrecisionClass(op))
        os << " precision=" << stringifyPrecisionClass(*cls);
      if (auto aliasing = dyn_cast<AliasingOpInterface>(op)) {
        for (unsigned i = 0, e = op->getNumResults(); i < e; ++i)
          if (std::optional<unsigned> src = aliasing.getViewSource(i))
            os << " view(result " << i << " of operand " << *src << ")";
        for (unsigned i = 0, e = op->getNumOperands(); i < e; ++i)
          if (aliasing.isUpdatedInPlace(i))
            os << " in-place(operand " << i << ")";
      }
      os << "\n";
    });
  }
};

} // namespace

namespace mlir::memopt::test {
void registerTestMemoryPlanPass();
void registerTestRematGroupsPass();
void registerTestTensorLivenessPass();
void registerTestPasses() {
  PassRegistration<TestPrintOpInterfacesPass>();
  registerTestMemoryPlanPass();
  registerTestRematGroupsPass();
  registerTestTensorLivenessPass();
}
} // namespace mlir::memopt::test
