//===- SharedCompilation.h - one compilation for every process --*- C++ -*-===//
//
// The pieces of CompiledStep's shared compilation (CompiledStep.h:
// SharedCompilation): the fingerprint that says two processes compile the
// same program, the object code the compiling process sends, and the JIT
// that loads it in the others. Private to MemoptExecution.
//
//===----------------------------------------------------------------------===//

#ifndef MEMOPT_LIB_EXECUTION_SHAREDCOMPILATION_H
#define MEMOPT_LIB_EXECUTION_SHAREDCOMPILATION_H

#include "mlir/IR/BuiltinOps.h"
#include "llvm/ExecutionEngine/Orc/JITTargetMachineBuilder.h"
#include "llvm/Support/Error.h"

#include <memory>
#include <string>

namespace llvm::orc {
class LLJIT;
} // namespace llvm::orc

namespace mlir {
class ExecutionEngine;
} // namespace mlir

namespace mlir::memopt::execution {

/// Whether object code compiled from `module` can be loaded in another
/// process: not when the module has global constructors, which only the
/// JIT that compiles them runs.
bool canShareObject(ModuleOp module);

/// A fingerprint (SHA-1, 20 bytes) of what compiling the lowered `module`
/// with `machine` at `optLevel` produces: the module's text (generic form,
/// without locations), the level, and the target's triple, CPU and
/// features.
std::string
getProgramFingerprint(ModuleOp module, unsigned optLevel,
                      const llvm::orc::JITTargetMachineBuilder &machine);

/// The object code `engine` compiled (ExecutionEngineOptions::
/// enableObjectDump set, and its code generated): ExecutionEngine writes it
/// only to a file, here a temporary one, read back and removed.
llvm::Expected<std::string> readCompiledObject(ExecutionEngine &engine);

/// A JIT, set up as MLIR's ExecutionEngine sets up its own (RuntimeDyld,
/// the process's symbols, the runtime's symbols), holding `object`, with its
/// initializers run.
llvm::Expected<std::unique_ptr<llvm::orc::LLJIT>>
loadCompiledObject(llvm::orc::JITTargetMachineBuilder machine,
                   StringRef object);

} // namespace mlir::memopt::execution

#endif // MEMOPT_LIB_EXECUTION_SHAREDCOMPILATION_H
