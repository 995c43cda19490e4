//===- Passes.h - memopt report passes --------------------------*- C++ -*-===//

#ifndef MEMOPT_REPORT_PASSES_H
#define MEMOPT_REPORT_PASSES_H

#include "memopt/Dialect/Train/IR/TrainDialect.h"
#include "memopt/Report/MemoryReport.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/Pass/Pass.h"

namespace mlir::memopt {

#define GEN_PASS_DECL
#include "memopt/Report/Passes.h.inc"

#define GEN_PASS_REGISTRATION
#include "memopt/Report/Passes.h.inc"

} // namespace mlir::memopt

#endif // MEMOPT_REPORT_PASSES_H
