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
//    the report still says `lm_head`, not `train.matmul@245`;
//  - an op whose location is a name alone (`loc("fc2.grad")`) also gets the
//    position where it is written, so that errors name the layer and the
//    line (memopt/Support/SourcePositions.h).
//
//===----------------------------------------------------------------------===//

#include "memopt/InitAll.h"
#include "memopt/Support/AtomicFile.h"
#include "memopt/Support/SourcePositions.h"

#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/DialectRegistry.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/IR/Verifier.h"
#include "mlir/Pass/Pass.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Pass/PassRegistry.h"
#include "mlir/Support/FileUtilities.h"
#include "mlir/Target/LLVMIR/Dialect/Builtin/BuiltinToLLVMIRTranslation.h"
#include "mlir/Target/LLVMIR/Dialect/LLVMIR/LLVMToLLVMIRTranslation.h"
#include "mlir/Tools/mlir-opt/MlirOptMain.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/CommandLine.h"
#include "llvm/Support/InitLLVM.h"
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

namespace {

/// Gives name-only locations the position where their op is written (see
/// memopt/Support/SourcePositions.h), then verifies the module: mem-opt runs
/// it first instead of verifying at parse time, so that a verifier error on
/// a mem-gen step names the layer and the line.
struct AttachOpPositionsPass
    : public mlir::PassWrapper<AttachOpPositionsPass, mlir::OperationPass<>> {
  MLIR_DEFINE_EXPLICIT_INTERNAL_INLINE_TYPE_ID(AttachOpPositionsPass)

  AttachOpPositionsPass(
      std::shared_ptr<const mlir::memopt::OpPositions> positions,
      std::string fileName, bool verify)
      : positions(std::move(positions)), fileName(std::move(fileName)),
        verify(verify) {}

  llvm::StringRef getArgument() const override {
    return "memopt-attach-op-positions";
  }
  llvm::StringRef getDescription() const override {
    return "Gives name-only locations their position in the input, then "
           "verifies";
  }

  void runOnOperation() override {
    mlir::memopt::attachOpPositions(getOperation(), fileName, *positions);
    if (verify && mlir::failed(mlir::verify(getOperation())))
      return signalPassFailure();
    markAllAnalysesPreserved();
  }

  std::shared_ptr<const mlir::memopt::OpPositions> positions;
  std::string fileName;
  bool verify;
};

} // namespace

static int fail(const llvm::Twine &message) {
  llvm::WithColor::error(llvm::errs(), "mem-opt") << message << "\n";
  return EXIT_FAILURE;
}

/// Checks the pass options before any input is read. An option error
/// belongs to the command line, not to a place in the IR, so it is printed
/// as mem-opt's own error ("mem-opt: error: train-precision: unknown mode
/// ...") rather than at MLIR's unknown location ("<unknown>:0: error: ...").
static bool passOptionsAreValid(const mlir::MlirOptMainConfig &config,
                                const mlir::DialectRegistry &registry) {
  mlir::MLIRContext context(registry, mlir::MLIRContext::Threading::DISABLED);
  mlir::PassManager pm(&context, mlir::ModuleOp::getOperationName(),
                       mlir::OpPassManager::Nesting::Implicit);
  mlir::ScopedDiagnosticHandler handler(
      &context, [](mlir::Diagnostic &diag) -> mlir::LogicalResult {
        if (!llvm::isa<mlir::UnknownLoc>(diag.getLocation()))
          return mlir::failure();
        llvm::WithColor::error(llvm::errs(), "mem-opt") << diag.str() << "\n";
        for (mlir::Diagnostic &note : diag.getNotes())
          llvm::WithColor::note(llvm::errs(), "mem-opt") << note.str() << "\n";
        return mlir::success();
      });
  return mlir::succeeded(config.setupPassPipeline(pm));
}

int main(int argc, char **argv) {
  llvm::InitLLVM initLLVM(argc, argv);
  mlir::DialectRegistry registry;
  mlir::memopt::registerAllDialects(registry);
  mlir::memopt::registerGPUTargets(registry);
  mlir::registerBuiltinDialectTranslation(registry);
  mlir::registerLLVMDialectTranslation(registry);
  mlir::memopt::registerAllPasses();
  mlir::memopt::test::registerTestPasses();

  std::string helpHeader = mlir::registerCLIOptions(
      "mem-opt: memory optimizer for neural-network training steps\n"
      "\n"
      "memopt's passes, next to MLIR's upstream ones:\n"
      "  memopt-pipeline          all of it in order, e.g.\n"
      "                           --memopt-pipeline='remat-budget=40GiB\n"
      "                           plan=true report=true target=cpu'\n"
      "  train-*                  on train-dialect steps: verify,\n"
      "                           differentiate (train-autodiff), lifetimes,\n"
      "                           remat, arena planning, the memory report\n"
      "  convert-train-to-linalg  train ops to linalg/tensor/arith\n"
      "  memopt-lower-to-cpu      linalg on tensors to LLVM (CPU)\n"
      "  memopt-lower-to-gpu      linalg on tensors to LLVM + gpu.binary\n"
      "  memopt-*                 the steps of those pipelines (cuBLAS and\n"
      "                           NCCL calls, loop mapping, frees, ...)\n"
      "  test-print-*             analyses printed for tests (liveness, op\n"
      "                           interfaces, remat groups)\n",
      registry);
  hidePollyOptions();
  printLocationsByDefault();
  auto [inputFilename, outputFilename] =
      mlir::parseCLIOptions(argc, argv, helpHeader);
  mlir::MlirOptMainConfig config =
      mlir::MlirOptMainConfig::createFromCLOptions();
  if (config.shouldShowDialects()) {
    llvm::outs() << "Available Dialects: "
                 << llvm::join(registry.getDialectNames(), ", ") << "\n";
    return EXIT_SUCCESS;
  }
  if (config.shouldListPasses()) {
    mlir::printRegisteredPasses();
    return EXIT_SUCCESS;
  }

  if (!passOptionsAreValid(config, registry))
    return EXIT_FAILURE;

  std::string errorMessage;
  std::unique_ptr<llvm::MemoryBuffer> input =
      mlir::openInputFile(inputFilename, &errorMessage);
  if (!input)
    return fail(errorMessage);

  // Positions of named ops, attached by the first pass. Split input is
  // parsed chunk by chunk (lit tests): locations stay as written there.
  mlir::MlirOptMainConfig runConfig = config;
  if (config.inputSplitMarker().empty()) {
    llvm::FailureOr<mlir::memopt::OpPositions> positions =
        mlir::memopt::collectOpPositions(
            *input, registry, config.shouldAllowUnregisteredDialects());
    if (mlir::succeeded(positions)) {
      auto shared = std::make_shared<const mlir::memopt::OpPositions>(
          std::move(*positions));
      std::string fileName = input->getBufferIdentifier().str();
      bool verify = config.shouldVerifyOnParsing();
      runConfig.verifyOnParsing(false);
      runConfig.setPassPipelineSetupFn(
          [config, shared, fileName, verify](mlir::PassManager &pm) {
            pm.addPass(std::make_unique<AttachOpPositionsPass>(shared, fileName,
                                                               verify));
            return config.setupPassPipeline(pm);
          });
    }
  }

  mlir::memopt::AtomicOutputFile output;
  if (llvm::Error error = output.open(outputFilename))
    return fail(llvm::toString(std::move(error)));
  if (mlir::failed(mlir::MlirOptMain(output.os(), std::move(input), registry,
                                     runConfig))) {
    output.discard();
    return EXIT_FAILURE;
  }
  if (llvm::Error error = output.commit())
    return fail(llvm::toString(std::move(error)));
  return EXIT_SUCCESS;
}
