//===- TestRematGroups.cpp - print train-remat's group graphs -------------===//
//
// `-test-print-remat-groups` prints, for every function with a body, the two
// coarsenings train-remat's solvers decide over (RematGroups.h): the step
// groups of `optimal` with their RematGraph nodes, and the chain of layers of
// `chain` with its rotor sizes, or why the step is not a chain.
//
//===----------------------------------------------------------------------===//

#include "memopt/Analysis/RematGroups.h"
#include "memopt/Dialect/Train/IR/TrainOps.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/Pass/Pass.h"

using namespace mlir;
using namespace mlir::memopt;

namespace {

struct TestPrintRematGroupsPass
    : public PassWrapper<TestPrintRematGroupsPass, OperationPass<ModuleOp>> {
  MLIR_DEFINE_EXPLICIT_INTERNAL_INLINE_TYPE_ID(TestPrintRematGroupsPass)

  TestPrintRematGroupsPass() = default;
  TestPrintRematGroupsPass(const TestPrintRematGroupsPass &pass)
      : PassWrapper(pass) {}

  StringRef getArgument() const final { return "test-print-remat-groups"; }
  StringRef getDescription() const final {
    return "Print the step groups and the chain of layers train-remat's "
           "solvers decide over";
  }

  Option<unsigned> segments{
      *this, "segments",
      llvm::cl::desc("The most forward groups (train-remat's segments)"),
      llvm::cl::init(8)};

  void runOnOperation() override {
    if (segments < 1) {
      emitError(getOperation().getLoc(), "segments must be at least 1");
      return signalPassFailure();
    }
    for (auto func : getOperation().getOps<func::FuncOp>()) {
      if (func.isExternal() || !func.getBody().hasOneBlock())
        continue;
      // The builders expect a step without frees, as train-remat gives them.
      func::FuncOp copy = func.clone();
      for (Operation &op : llvm::make_early_inc_range(copy.getBody().front()))
        if (isa<train::FreeOp>(op))
          op.erase();
      llvm::outs() << "func @" << func.getSymName() << "\n";
      SmallVector<Operation *> ops = getPlanOps(copy);
      printStepGroups(copy, ops, llvm::outs());
      printChain(copy, ops, llvm::outs());
      copy.erase();
    }
    markAllAnalysesPreserved();
  }

  /// "ops 2-4 (3): train.gelu "l.0.act" .. train.add "l.1"".
  static void printMembers(ArrayRef<Operation *> ops,
                           ArrayRef<unsigned> members, raw_ostream &os) {
    auto describe = [&](unsigned index) {
      Operation *op = ops[index];
      os << op->getName();
      if (auto name = dyn_cast<NameLoc>(op->getLoc()))
        os << " \"" << name.getName().getValue() << "\"";
    };
    os << "ops " << members.front() << "-" << members.back() << " ("
       << members.size() << "): ";
    describe(members.front());
    if (members.size() > 1) {
      os << " .. ";
      describe(members.back());
    }
  }

  void printStepGroups(func::FuncOp func, ArrayRef<Operation *> ops,
                       raw_ostream &os) {
    FailureOr<StepGroups> groups = buildStepGroups(func, segments);
    if (failed(groups)) {
      os << "  step groups: none\n";
      return;
    }
    os << "  step groups (segments " << segments
       << "): " << groups->members.size() << " groups, " << groups->numForward
       << " forward; persistent " << groups->graph.node(0).bytes << " bytes\n";
    for (auto [g, members] : llvm::enumerate(groups->members)) {
      const RematNode &node = groups->graph.node(StepGroups::node(g));
      os << "    group " << g
         << (groups->forward[g] ? " forward " : " backward ");
      printMembers(ops, members, os);
      os << "\n      cost " << static_cast<int64_t>(node.cost) << ", bytes "
         << node.bytes << ", workspace " << node.workspace
         << (node.recomputable ? ", recomputable" : "") << ", operands [";
      llvm::interleaveComma(node.operands, os, [&](int operand) {
        if (operand == 0)
          os << "persistent";
        else
          os << "group " << operand - 1;
      });
      os << "]\n";
    }
  }

  static void printChain(func::FuncOp func, ArrayRef<Operation *> ops,
                         raw_ostream &os) {
    std::string why;
    FailureOr<ChainGroups> chain = buildChainGroups(func, why);
    if (failed(chain)) {
      os << "  chain: none: " << why << "\n";
      return;
    }
    os << "  chain: " << chain->layers.size() << " layers; persistent "
       << chain->persistent << " bytes\n";
    for (auto [j, layer] : llvm::enumerate(chain->layers)) {
      os << "    layer " << j << " ";
      printMembers(ops, chain->groups.members[j], os);
      os << "\n      cost " << static_cast<int64_t>(layer.cost) << ", output "
         << layer.output << ", tape " << layer.tape << ", forward peak "
         << layer.forwardPeak << "; backward ";
      int group = chain->backwardGroup[j];
      if (group < 0)
        os << "empty";
      else
        printMembers(ops, chain->groups.members[group], os);
      os << ", entry " << layer.backwardEntry << ", peak " << layer.backwardPeak
         << ", reads";
      if (!layer.backwardReadsLayer && !layer.backwardReadsInput)
        os << " nothing";
      os << (layer.backwardReadsLayer ? " layer" : "")
         << (layer.backwardReadsOutput ? " output" : "")
         << (layer.backwardReadsInput ? " input" : "") << "\n";
    }
  }
};

} // namespace

namespace mlir::memopt::test {
void registerTestRematGroupsPass() {
  PassRegistration<TestPrintRematGroupsPass>();
}
} // namespace mlir::memopt::test
