//===- Passes.h - memopt transformation passes ------------------*- C++ -*-===//

#ifndef MEMOPT_TRANSFORMS_PASSES_H
#define MEMOPT_TRANSFORMS_PASSES_H

#include "memopt/Dialect/Train/IR/Precision.h"
#include "memopt/Dialect/Train/IR/Quantization.h"
#include "memopt/Dialect/Train/IR/TrainDialect.h"
#include "memopt/Support/ByteSize.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Pass/Pass.h"

namespace mlir::memopt {

/// train-remat's `algorithm` option (docs/remat.md).
enum class RematAlgorithm {
  Auto,
  None,
  Layers,
  Sqrt,
  Selective,
  Greedy,
  Optimal,
  Chain
};

/// train-autodiff's `optimizer` option: the update appended per parameter,
/// or None to return the parameter gradients instead. Adam8bit and
/// AdamW8bit keep 8-bit block-wise states for parameters of at least
/// train::kMin8bitStateElements elements (and 32-bit ones for the others).
enum class AutodiffOptimizer { Adam, AdamW, Sgd, None, Adam8bit, AdamW8bit };

#define GEN_PASS_DECL
#include "memopt/Transforms/Passes.h.inc"

#define GEN_PASS_REGISTRATION
#include "memopt/Transforms/Passes.h.inc"

/// What train-lifetimes does to `func` (a single-block step): moves frees
/// written later than the last use up behind it, inserts the missing ones and
/// erases the views nothing reads (TensorLiveness::isDeadView). Returns
/// whether anything changed.
bool makeLifetimesExplicit(func::FuncOp func);

/// Removes a train-plan-memory plan: every plan attribute on `func`, its
/// arguments and its ops.
void removeMemoryPlan(func::FuncOp func);

/// The bytes of the parameters and optimizer states that `func`'s optimizer
/// updates on the device write in place: what train-offload{optimizer=host}
/// keeps in host memory instead (0 without a device update).
int64_t getOffloadableStateBytes(func::FuncOp func);

} // namespace mlir::memopt

#endif // MEMOPT_TRANSFORMS_PASSES_H
