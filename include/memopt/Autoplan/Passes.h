//===- Passes.h - memopt's configuration search as a pass -------*- C++ -*-===//
//
// `train-autoplan`: mem-autoplan's search (memopt/Autoplan/Autoplan.h) for
// pipelines that embed memopt.
//
//===----------------------------------------------------------------------===//

#ifndef MEMOPT_AUTOPLAN_PASSES_H
#define MEMOPT_AUTOPLAN_PASSES_H

#include "mlir/IR/BuiltinOps.h"
#include "mlir/Pass/Pass.h"

namespace mlir::memopt {

#define GEN_PASS_DECL
#include "memopt/Autoplan/Passes.h.inc"

#define GEN_PASS_REGISTRATION
#include "memopt/Autoplan/Passes.h.inc"

} // namespace mlir::memopt

#endif // MEMOPT_AUTOPLAN_PASSES_H
