//===- mem-opt.cpp - memopt optimizer driver ------------------------------===//
//
// mlir-opt for training steps: parses, verifies and transforms `train`
// programs with every memopt pass and the upstream dialects they use.
//
//===----------------------------------------------------------------------===//

#include "memopt/InitAll.h"

#include "mlir/IR/DialectRegistry.h"
#include "mlir/Target/LLVMIR/Dialect/Builtin/BuiltinToLLVMIRTranslation.h"
#include "mlir/Target/LLVMIR/Dialect/LLVMIR/LLVMToLLVMIRTranslation.h"
#include "mlir/Tools/mlir-opt/MlirOptMain.h"
#include "llvm/Support/CommandLine.h"

namespace mlir::memopt::test {
void registerTestPasses();
} // namespace mlir::memopt::test

/// Debian's libLLVM.so links Polly, whose command-line options would crowd
/// `--help`; they never affect MLIR programs, so hide them.
static void hidePollyOptions() {
  for (auto &entry : llvm::cl::getRegisteredOptions())
    if (entry.first.starts_with("polly"))
      entry.second->setHiddenFlag(llvm::cl::ReallyHidden);
}

int main(int argc, char **argv) {
  hidePollyOptions();
  mlir::DialectRegistry registry;
  mlir::memopt::registerAllDialects(registry);
  mlir::memopt::registerGPUTargets(registry);
  mlir::registerBuiltinDialectTranslation(registry);
  mlir::registerLLVMDialectTranslation(registry);
  mlir::memopt::registerAllPasses();
  mlir::memopt::test::registerTestPasses();
  return mlir::asMainReturnCode(mlir::MlirOptMain(
      argc, argv,
      "mem-opt: memory optimizer for neural-network training steps\n",
      registry));
}
