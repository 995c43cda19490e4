//===- Passes.h - memopt conversion passes ----------------------*- C++ -*-===//

#ifndef MEMOPT_CONVERSION_PASSES_H
#define MEMOPT_CONVERSION_PASSES_H

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Bufferization/IR/Bufferization.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/Pass/Pass.h"

namespace mlir::memopt {

#define GEN_PASS_DECL
#include "memopt/Conversion/Passes.h.inc"

#define GEN_PASS_REGISTRATION
#include "memopt/Conversion/Passes.h.inc"

/// Naming conventions of convert-train-to-linalg, shared with runtimes that
/// feed and read a lowered step (mem-run).
/// Symbol of the global that holds parameter `name`.
std::string getParamGlobalName(StringRef name);
/// Symbol of the global that holds optimizer state `name`.
std::string getStateGlobalName(StringRef name);
/// Alignment of every buffer memopt-lower-to-cpu allocates; the allocation
/// functions receive sizes padded to a multiple of it.
inline constexpr int64_t kCPUBufferAlignment = 64;
/// Symbol of the i64 global holding the step's random seed.
inline constexpr StringLiteral kSeedGlobalName = "__train_seed";

/// Adds the passes that take a module of linalg-on-tensors (the output of
/// convert-train-to-linalg) to the LLVM dialect for the CPU: bufferization
/// with ownership-based deallocation, loops, and LLVM conversion with the
/// generic allocation functions (`_mlir_memref_to_llvm_alloc/free`) so a
/// runtime can count live bytes.
void buildLowerToCPUPipeline(OpPassManager &pm);

/// Registers `memopt-lower-to-cpu`.
void registerLowerToCPUPipeline();

} // namespace mlir::memopt

#endif // MEMOPT_CONVERSION_PASSES_H
