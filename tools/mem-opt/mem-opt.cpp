//===- mem-opt.cpp - memopt optimizer driver ------------------------------===//
//
// mlir-opt for training steps: parses, verifies and transforms `train`
// programs with every memopt pass and the upstream dialects they use.
//
// Two defaults differ from mlir-opt's, both so that a saved step is as good
// as the one it came from:
//  - `-o FILE` is written atomically (a temporary file renamed over FILE on
//    success), so `mem-opt s.mlir ... -o s.mlir` never loses `s.mlir` when a
//    pass fails or the run is interrupted;
//  - locations are printed (`--mlir-print-debuginfo` defaults to on), so the
//    layer names that mem-gen attaches to ops survive a save and reload and
//    the report still says `lm_head`, not `train.matmul@245`.
//
//===----------------------------------------------------------------------===//

#include "memopt/InitAll.h"
#include "memopt/Support/AtomicFile.h"

#include "mlir/IR/DialectRegistry.h"
#include "mlir/Target/LLVMIR/Dialect/Builtin/BuiltinToLLVMIRTranslation.h"
#include "mlir/Target/LLVMIR/Dialect/LLVMIR/LLVMToLLVMIRTranslation.h"
#include "mlir/Tools/mlir-opt/MlirOptMain.h"
#include "llvm/Support/CommandLine.h"
#include "llvm/Support/WithColor.h"

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

/// Prints locations by default; `--mlir-print-debuginfo=false` turns them off.
static void printLocationsByDefault() {
  auto &options = llvm::cl::getRegisteredOptions();
  auto it = options.find("mlir-print-debuginfo");
  if (it == options.end())
    return;
  auto *option = static_cast<llvm::cl::opt<bool> *>(it->second);
  option->setInitialValue(true);
  option->setDescription("Print debug info (locations) in MLIR output "
                         "(mem-opt: on by default)");
}

int main(int argc, char **argv) {
  mlir::DialectRegistry registry;
  mlir::memopt::registerAllDialects(registry);
  mlir::memopt::registerGPUTargets(registry);
  mlir::registerBuiltinDialectTranslation(registry);
  mlir::registerLLVMDialectTranslation(registry);
  mlir::memopt::registerAllPasses();
  mlir::memopt::test::registerTestPasses();

  std::string helpHeader = mlir::registerCLIOptions(
      "mem-opt: memory optimizer for neural-network training steps\n",
      registry);
  hidePollyOptions();
  printLocationsByDefault();
  auto [inputFilename, outputFilename] =
      mlir::parseCLIOptions(argc, argv, helpHeader);

  mlir::memopt::AtomicOutputFile output;
  if (llvm::Error error = output.open(outputFilename)) {
    llvm::WithColor::error(llvm::errs(), "mem-opt")
        << llvm::toString(std::move(error)) << "\n";
    return EXIT_FAILURE;
  }
  // MlirOptMain opens the file it is given by name; give it the temporary.
  std::string writePath = output.getWritePath().str();
  if (mlir::failed(mlir::MlirOptMain(argc, argv, inputFilename, writePath,
                                     registry))) {
    output.discard();
    return EXIT_FAILURE;
  }
  if (llvm::Error error = output.commit()) {
    llvm::WithColor::error(llvm::errs(), "mem-opt")
        << llvm::toString(std::move(error)) << "\n";
    return EXIT_FAILURE;
  }
  return EXIT_SUCCESS;
}
