//===- embed-memopt.cpp - memopt's pipeline inside another compiler -------===//
//
// A compiler driver of its own (not mem-opt) that links an installed memopt:
// it parses a training step, runs its own pass (canonicalize) and then
// memopt's pipeline with a rematerialization budget and the arena planner,
// and prints the peak of each function from memopt's liveness analysis.
//
//   embed-memopt STEP.mlir [--budget=BYTES]
//
//===----------------------------------------------------------------------===//

#include "memopt/Analysis/TensorLiveness.h"
#include "memopt/InitAll.h"
#include "memopt/Pipeline/Pipeline.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/DialectRegistry.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/Parser/Parser.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Transforms/Passes.h"
#include "llvm/Support/CommandLine.h"
#include "llvm/Support/InitLLVM.h"
#include "llvm/Support/SourceMgr.h"
#include "llvm/Support/raw_ostream.h"

#include <cstdlib>

static llvm::cl::opt<std::string> inputFile(llvm::cl::Positional,
                                            llvm::cl::desc("<step.mlir>"),
                                            llvm::cl::Required);
static llvm::cl::opt<std::string>
    budget("budget", llvm::cl::desc("Rematerialize to fit this peak"),
           llvm::cl::init(""));

int main(int argc, char **argv) {
  llvm::InitLLVM init(argc, argv);
  llvm::cl::ParseCommandLineOptions(argc, argv, "memopt embedded\n");

  mlir::DialectRegistry registry;
  mlir::memopt::registerAllDialects(registry);
  mlir::MLIRContext context(registry);

  llvm::SourceMgr sourceMgr;
  mlir::SourceMgrDiagnosticHandler diagnostics(sourceMgr, &context);
  mlir::OwningOpRef<mlir::ModuleOp> module =
      mlir::parseSourceFile<mlir::ModuleOp>(inputFile, sourceMgr,
                                            mlir::ParserConfig(&context));
  if (!module)
    return EXIT_FAILURE;

  // This compiler's own passes, then memopt's.
  mlir::PassManager pm(&context);
  pm.addPass(mlir::createCanonicalizerPass());
  mlir::memopt::PipelineOptions options;
  options.rematBudget = budget;
  options.plan = true;
  mlir::memopt::buildPipeline(pm, options);
  if (mlir::failed(pm.run(*module)))
    return EXIT_FAILURE;

  for (auto func : module->getOps<mlir::func::FuncOp>()) {
    if (func.isExternal())
      continue;
    mlir::memopt::TensorLiveness liveness(func);
    auto arena = func->getAttrOfType<mlir::IntegerAttr>("train.arena_bytes");
    llvm::outs() << func.getName() << ": peak " << liveness.getLoad()
                 << " bytes, arena " << (arena ? arena.getInt() : 0)
                 << " bytes\n";
  }
  return EXIT_SUCCESS;
}
