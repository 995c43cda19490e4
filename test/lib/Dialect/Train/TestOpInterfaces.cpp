//===- TestOpInterfaces.cpp - print the train op interfaces ---------------===//
//
// `-test-print-op-interfaces` prints, for every train op of a function in
// program order, what the cost, aliasing and precision-class interfaces say,
// so lit tests can check every op's implementation. It runs on the module so
// that functions print one after another, in order (a function pass would
// interleave their output under multi-threading).
// `-test-print-workspace-ratios` prints each op's largest workspace relative
// to its largest operand or result, and the train ops its input lacks.
//
//===----------------------------------------------------------------------===//

#include "memopt/Dialect/Train/IR/TrainOps.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Pass/Pass.h"
#include "mlir/Pass/PassRegistry.h"
#include "llvm/Support/Format.h"

#include <map>

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

/// `-test-print-workspace-ratios`: for every train op name in the module,
/// the largest ratio of an op's workspace to the bytes of its largest
/// operand or result, with that op's location and bytes, marked `over`
/// above 1; then every train op with a cost that the module does not
/// contain (`missing`), so that a test over reference shapes covers every
/// op.
struct TestPrintWorkspaceRatiosPass
    : public PassWrapper<TestPrintWorkspaceRatiosPass,
                         OperationPass<ModuleOp>> {
  MLIR_DEFINE_EXPLICIT_INTERNAL_INLINE_TYPE_ID(TestPrintWorkspaceRatiosPass)

  StringRef getArgument() const final { return "test-print-workspace-ratios"; }
  StringRef getDescription() const final {
    return "Print each train op's largest workspace relative to its largest "
           "operand or result, and the train ops the input lacks";
  }

  static int64_t bytesOf(Value value) {
    auto type = dyn_cast<RankedTensorType>(value.getType());
    if (!type || !type.hasStaticShape())
      return 0;
    return type.getNumElements() *
           llvm::divideCeil(type.getElementTypeBitWidth(), 8);
  }

  struct Worst {
    Operation *op = nullptr;
    int64_t workspace = 0, largest = 0;
    double ratio = -1.0;
  };

  void runOnOperation() override {
    markAllAnalysesPreserved();
    raw_ostream &os = llvm::outs();
    std::map<std::string, Worst> worst;
    getOperation().walk([&](CostOpInterface cost) {
      Operation *op = cost.getOperation();
      int64_t largest = 0;
      for (Value v : op->getOperands())
        largest = std::max(largest, bytesOf(v));
      for (Value v : op->getResults())
        largest = std::max(largest, bytesOf(v));
      int64_t workspace = cost.getWorkspaceBytes();
      double ratio = largest ? double(workspace) / double(largest) : 0.0;
      Worst &entry = worst[op->getName().getStringRef().str()];
      if (ratio > entry.ratio)
        entry = {op, workspace, largest, ratio};
    });
    for (auto &[name, entry] : worst)
      os << name << " " << entry.op->getLoc()
         << ": ratio=" << llvm::format("%.3f", entry.ratio)
         << " workspace=" << entry.workspace << " largest=" << entry.largest
         << (entry.ratio > 1.0 ? " over" : "") << "\n";
    SmallVector<StringRef> missing;
    for (RegisteredOperationName name :
         getOperation().getContext()->getRegisteredOperations())
      if (name.getDialectNamespace() == "train" &&
          name.hasInterface<CostOpInterface>() &&
          !worst.count(name.getStringRef().str()))
        missing.push_back(name.getStringRef());
    llvm::sort(missing);
    for (StringRef name : missing)
      os << "missing " << name << "\n";
  }
};

} // namespace

namespace mlir::memopt::test {
void registerTestMemoryPlanPass();
void registerTestRematGroupsPass();
void registerTestTensorLivenessPass();
void registerTestPasses() {
  PassRegistration<TestPrintOpInterfacesPass>();
  PassRegistration<TestPrintWorkspaceRatiosPass>();
  registerTestMemoryPlanPass();
  registerTestRematGroupsPass();
  registerTestTensorLivenessPass();
}
} // namespace mlir::memopt::test
