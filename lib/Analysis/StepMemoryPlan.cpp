//===- StepMemoryPlan.cpp - an arena plan for one training step -----------===//

#include "memopt/Analysis/StepMemoryPlan.h"

#include "memopt/Dialect/Train/IR/TrainOps.h"

#include "mlir/IR/Operation.h"
#include "llvm/Support/MathExtras.h"

using namespace mlir;
using namespace mlir::memopt;

std::string PlanSlot::describe() const {
  if (buffer)
    return "'" + buffer->name + "' (" + std::to_string(bytes) +
           " bytes, live [" + std::to_string(lower) + ", " +
           std::to_string(upper - 1) + "])";
  return "the workspace of '" + op->getName().getStringRef().str() +
         "' at point " + std::to_string(point) + " (" + std::to_string(bytes) +
         " bytes)";
}

int64_t mlir::memopt::getWorkspaceSlotBytes(Operation *op, int64_t alignment) {
  auto cost = dyn_cast<train::CostOpInterface>(op);
  if (!cost)
    return 0;
  int64_t bytes = 0;
  for (int64_t buffer : cost.getWorkspaceBuffers())
    bytes += llvm::alignTo(buffer, alignment);
  return bytes;
}

SmallVector<PlanSlot>
mlir::memopt::collectPlanSlots(const TensorLiveness &liveness,
                               int64_t alignment, PlanSpace space) {
  SmallVector<PlanSlot> slots;
  int64_t numPoints = liveness.getNumPoints();
  bool host = space == PlanSpace::Host;
  for (const Buffer &buffer : liveness.getBuffers()) {
    if (buffer.bytes == 0 || buffer.host != host)
      continue;
    PlanSlot slot;
    slot.buffer = &buffer;
    slot.bytes = buffer.bytes;
    slot.persistent = buffer.persistent;
    slot.lower = buffer.persistent ? 0 : buffer.start;
    slot.upper = buffer.persistent ? numPoints : buffer.end + 1;
    slots.push_back(slot);
  }
  for (int64_t point = 0; point < numPoints; ++point) {
    Operation *op = liveness.getSchedule()[point];
    int64_t bytes = getWorkspaceSlotBytes(op, alignment);
    if (bytes == 0 || train::isHostOp(op) != host)
      continue;
    PlanSlot slot;
    slot.op = op;
    slot.point = point;
    slot.bytes = bytes;
    slot.lower = point;
    slot.upper = point + 1;
    slots.push_back(slot);
  }
  return slots;
}

llvm::Expected<StepMemoryPlan>
mlir::memopt::planStepMemory(const TensorLiveness &liveness,
                             const StepPlanOptions &options, PlanSpace space) {
  if (options.algorithm != "auto" && options.algorithm != "best-fit")
    return llvm::createStringError("unknown algorithm '" + options.algorithm +
                                   "' (expected auto or best-fit)");
  StepMemoryPlan plan;
  plan.slots = collectPlanSlots(liveness, options.alignment, space);
  plan.offsets.assign(plan.slots.size(), 0);

  // The persistent region: parameters and optimizer states in definition
  // order from offset 0. They are live throughout, so any plan stacks them;
  // a fixed layout keeps them at the same place in every step.
  std::vector<PlanBuffer> dynamic;
  std::vector<size_t> dynamicSlots;
  int64_t top = 0;
  for (auto [index, slot] : llvm::enumerate(plan.slots)) {
    if (slot.persistent) {
      plan.offsets[index] = top;
      top += llvm::alignTo(slot.bytes, options.alignment);
      continue;
    }
    dynamic.push_back({slot.lower, slot.upper, slot.bytes});
    dynamicSlots.push_back(index);
  }
  plan.persistentBytes = top;

  MemoryPlan region;
  if (options.algorithm == "best-fit") {
    if (llvm::Error error = validatePlanInput(dynamic, options.alignment))
      return std::move(error);
    region = planGreedyBySize(dynamic, options.alignment);
    region.loadBytes = computeLoad(dynamic, options.alignment);
  } else {
    MemoryPlanOptions planOptions;
    planOptions.alignment = options.alignment;
    planOptions.searchBudget = options.searchBudget;
    llvm::Expected<MemoryPlan> planned = planMemory(dynamic, planOptions);
    if (!planned)
      return planned.takeError();
    region = std::move(*planned);
  }
  for (auto [k, index] : llvm::enumerate(dynamicSlots))
    plan.offsets[index] = plan.persistentBytes + region.offsets[k];
  plan.arenaBytes = plan.persistentBytes + region.arenaBytes;
  plan.loadBytes = plan.persistentBytes + region.loadBytes;
  plan.strategy = region.strategy;
  plan.provedOptimal = region.provedOptimal;
  return plan;
}
