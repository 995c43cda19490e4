//===- SharedCompilation.cpp - one compilation for every process ----------===//
//
// See SharedCompilation.h. The loading JIT mirrors what MLIR's
// ExecutionEngine::create sets up around the code it compiles (LLVM 22):
// a RuntimeDyld object layer with SectionMemoryManager, the process's own
// symbols as a fallback, the runtime's symbols (RuntimeSymbols.h) defined in
// the main JITDylib, and its initializers run; the object already holds the
// `_mlir_` packed wrappers ExecutionEngine added before compiling.
//
//===----------------------------------------------------------------------===//

#include "SharedCompilation.h"

#include "memopt/Execution/RuntimeSymbols.h"

#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/ExecutionEngine/ExecutionEngine.h"
#include "mlir/IR/OperationSupport.h"
#include "llvm/ExecutionEngine/Orc/ExecutionUtils.h"
#include "llvm/ExecutionEngine/Orc/LLJIT.h"
#include "llvm/ExecutionEngine/Orc/RTDyldObjectLinkingLayer.h"
#include "llvm/ExecutionEngine/SectionMemoryManager.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/raw_sha1_ostream.h"

using namespace mlir;
using namespace mlir::memopt;
using namespace mlir::memopt::execution;

bool execution::canShareObject(ModuleOp module) {
  return module.getOps<LLVM::GlobalCtorsOp>().empty();
}

std::string execution::getProgramFingerprint(
    ModuleOp module, unsigned optLevel,
    const llvm::orc::JITTargetMachineBuilder &machine) {
  llvm::raw_sha1_ostream hash;
  hash << "opt-level " << optLevel << "\n"
       << machine.getTargetTriple().str() << "\n"
       << machine.getCPU() << "\n"
       << machine.getFeatures().getString() << "\n";
  // Locations are left out: the lowering emits no debug information, so
  // they do not reach the object code.
  module->print(hash, OpPrintingFlags().printGenericOpForm());
  std::array<uint8_t, 20> digest = hash.sha1();
  return std::string(digest.begin(), digest.end());
}

llvm::Expected<std::string>
execution::readCompiledObject(ExecutionEngine &engine) {
  llvm::SmallString<128> path;
  if (std::error_code error =
          llvm::sys::fs::createTemporaryFile("memopt-step", "o", path))
    return llvm::createStringError(error,
                                   "cannot create a temporary object file");
  engine.dumpToObjectFile(path);
  llvm::ErrorOr<std::unique_ptr<llvm::MemoryBuffer>> buffer =
      llvm::MemoryBuffer::getFile(path, /*IsText=*/false,
                                  /*RequiresNullTerminator=*/false);
  llvm::sys::fs::remove(path);
  if (!buffer)
    return llvm::createStringError(buffer.getError(),
                                   "cannot read the compiled object back");
  if ((*buffer)->getBufferSize() == 0)
    return llvm::createStringError("the compiled object is empty");
  return (*buffer)->getBuffer().str();
}

llvm::Expected<std::unique_ptr<llvm::orc::LLJIT>>
execution::loadCompiledObject(llvm::orc::JITTargetMachineBuilder machine,
                              StringRef object) {
  auto createObjectLayer = [](llvm::orc::ExecutionSession &session)
      -> llvm::Expected<std::unique_ptr<llvm::orc::ObjectLayer>> {
    return std::make_unique<llvm::orc::RTDyldObjectLinkingLayer>(
        session, [](const llvm::MemoryBuffer &) {
          return std::make_unique<llvm::SectionMemoryManager>();
        });
  };
  llvm::Expected<std::unique_ptr<llvm::orc::LLJIT>> jit =
      llvm::orc::LLJITBuilder()
          .setJITTargetMachineBuilder(std::move(machine))
          .setObjectLinkingLayerCreator(createObjectLayer)
          .create();
  if (!jit)
    return jit.takeError();
  llvm::orc::JITDylib &main = (*jit)->getMainJITDylib();
  const llvm::DataLayout &layout = (*jit)->getDataLayout();
  llvm::Expected<std::unique_ptr<llvm::orc::DynamicLibrarySearchGenerator>>
      process = llvm::orc::DynamicLibrarySearchGenerator::GetForCurrentProcess(
          layout.getGlobalPrefix());
  if (!process)
    return process.takeError();
  main.addGenerator(std::move(*process));
  if (llvm::Error error = main.define(llvm::orc::absoluteSymbols(
          getRuntimeSymbols(llvm::orc::MangleAndInterner(
              main.getExecutionSession(), layout)))))
    return std::move(error);
  if (llvm::Error error = (*jit)->addObjectFile(
          llvm::MemoryBuffer::getMemBufferCopy(object, "memopt-step.o")))
    return std::move(error);
  if (llvm::Error error = (*jit)->initialize(main))
    return std::move(error);
  return std::move(*jit);
}
