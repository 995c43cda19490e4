//===- TestTensorLiveness.cpp - print the TensorLiveness analysis ---------===//

#include "memopt/Analysis/TensorLiveness.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/Pass/Pass.h"

using namespace mlir;
using namespace mlir::memopt;

namespace {

/// `-test-print-tensor-liveness`: prints buffers, live bytes per point and
/// LOAD of every function with a body, in module order.
struct TestPrintTensorLivenessPass
    : public PassWrapper<TestPrintTensorLivenessPass, OperationPass<ModuleOp>> {
  MLIR_DEFINE_EXPLICIT_INTERNAL_INLINE_TYPE_ID(TestPrintTensorLivenessPass)

  StringRef getArgument() const final { return "test-print-tensor-liveness"; }
  StringRef getDescription() const final {
    return "Print the buffers, live ranges, memory classes and live bytes of "
           "every training step";
  }

  void runOnOperation() override {
    for (auto func : getOperation().getOps<func::FuncOp>()) {
      if (func.isExternal())
        continue;
      llvm::outs() << "func @" << func.getSymName() << "\n";
      getChildAnalysis<TensorLiveness>(func).print(llvm::outs());
    }
    markAllAnalysesPreserved();
  }
};

} // namespace

namespace mlir::memopt::test {
void registerTestTensorLivenessPass() {
  PassRegistration<TestPrintTensorLivenessPass>();
}
} // namespace mlir::memopt::test
