//===- StepMemoryPlan.h - an arena plan for one training step ---*- C++ -*-===//
//
// Connects the liveness analysis to the static planner: every buffer of a
// step (and every op's workspace) becomes a planned slot with a half-open
// lifetime, and the plan gives each slot an arena offset. Parameters and
// optimizer states form a persistent region at offset 0, laid out in order;
// everything else (inputs, activations, gradients, temporaries, workspaces)
// is planned above it. A step with values in host memory (train-offload) has
// a second arena, the host's, planned the same way from its host buffers and
// the workspaces of its host ops. train-plan-memory writes the result as
// `train.offset` attributes, train-verify-plan checks them, the report reads
// them.
//
//===----------------------------------------------------------------------===//

#ifndef MEMOPT_ANALYSIS_STEPMEMORYPLAN_H
#define MEMOPT_ANALYSIS_STEPMEMORYPLAN_H

#include "memopt/Analysis/MemoryPlan.h"
#include "memopt/Analysis/TensorLiveness.h"

#include "mlir/Support/LLVM.h"

namespace mlir::memopt {

/// One planned slot: a buffer, or the workspace of the op at `point`.
struct PlanSlot {
  /// The buffer, or nullptr for a workspace.
  const Buffer *buffer = nullptr;
  /// For a workspace: its op and program point.
  Operation *op = nullptr;
  int64_t point = 0;
  /// Exact bytes (the planner rounds them up to the alignment).
  int64_t bytes = 0;
  /// Half-open lifetime [lower, upper) in program points.
  int64_t lower = 0;
  int64_t upper = 0;
  bool persistent = false;
  /// A readable name, for diagnostics.
  std::string describe() const;
};

/// Which arena: the device's, or the host's (values with `train.space =
/// "host"` and the workspaces of host ops).
enum class PlanSpace { Device, Host };

/// The slots of a step's arena in `space`, in a fixed order: buffers in
/// definition order, then workspaces in program order. Zero-byte buffers and
/// workspaces are skipped. An op's workspace slot holds each of its
/// workspace buffers (CostOpInterface::getWorkspaceBuffers) at an
/// `alignment`-aligned place.
SmallVector<PlanSlot> collectPlanSlots(const TensorLiveness &liveness,
                                       int64_t alignment,
                                       PlanSpace space = PlanSpace::Device);

/// The bytes of `op`'s workspace slot: the sum of its workspace buffers, each
/// rounded up to `alignment`.
int64_t getWorkspaceSlotBytes(Operation *op, int64_t alignment);

struct StepPlanOptions {
  /// Offset alignment (a power of two).
  int64_t alignment = 256;
  /// Search budget of the planner (MemoryPlanOptions::searchBudget).
  int64_t searchBudget = 100000000;
  /// "auto": the planner's portfolio and search; "best-fit": greedy by size
  /// with best fit only (the TFLite/XLA baseline).
  std::string algorithm = "auto";
};

struct StepMemoryPlan {
  SmallVector<PlanSlot> slots;
  /// One offset per slot.
  std::vector<int64_t> offsets;
  /// Persistent region [0, persistentBytes) plus the planned region above.
  int64_t arenaBytes = 0;
  /// LOAD of the aligned slot sizes: a lower bound of arenaBytes.
  int64_t loadBytes = 0;
  /// Size of the persistent region (aligned).
  int64_t persistentBytes = 0;
  std::string strategy;
  bool provedOptimal = false;
};

/// Plans the arena in `space` of the step `liveness` describes. Fails (with
/// the planner's message) on invalid options.
llvm::Expected<StepMemoryPlan>
planStepMemory(const TensorLiveness &liveness, const StepPlanOptions &options,
               PlanSpace space = PlanSpace::Device);

} // namespace mlir::memopt

#endif // MEMOPT_ANALYSIS_STEPMEMORYPLAN_H
