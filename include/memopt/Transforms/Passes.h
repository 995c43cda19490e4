//===- Passes.h - memopt transformation passes ------------------*- C++ -*-===//

#ifndef MEMOPT_TRANSFORMS_PASSES_H
#define MEMOPT_TRANSFORMS_PASSES_H

#include "memopt/Dialect/Train/IR/TrainDialect.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Pass/Pass.h"

namespace mlir::memopt {

#define GEN_PASS_DECL
#include "memopt/Transforms/Passes.h.inc"

#define GEN_PASS_REGISTRATION
#include "memopt/Transforms/Passes.h.inc"

} // namespace mlir::memopt

#endif // MEMOPT_TRANSFORMS_PASSES_H
