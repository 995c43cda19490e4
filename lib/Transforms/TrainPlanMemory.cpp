//===- TrainPlanMemory.cpp - arena offsets for a training step ------------===//
//
// train-plan-memory writes a static arena plan into the IR as train.offset
// attributes; train-verify-plan checks a plan against the step's liveness.
//
//===----------------------------------------------------------------------===//

#include "memopt/Analysis/StepMemoryPlan.h"
#include "memopt/Dialect/Train/IR/TrainOps.h"
#include "memopt/Dialect/Train/IR/TrainStep.h"
#include "memopt/Transforms/PassOptions.h"
#include "memopt/Transforms/Passes.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "llvm/Support/MathExtras.h"

namespace mlir::memopt {
#define GEN_PASS_DEF_TRAINPLANMEMORYPASS
#define GEN_PASS_DEF_TRAINVERIFYPLANPASS
#include "memopt/Transforms/Passes.h.inc"
} // namespace mlir::memopt

using namespace mlir;
using namespace mlir::memopt;
using train::TrainDialect;

void mlir::memopt::removeMemoryPlan(func::FuncOp func) {
  for (StringRef name :
       {TrainDialect::kArenaBytesAttrName, TrainDialect::kLoadBytesAttrName,
        TrainDialect::kPersistentBytesAttrName,
        TrainDialect::kHostArenaBytesAttrName,
        TrainDialect::kHostLoadBytesAttrName,
        TrainDialect::kHostPersistentBytesAttrName,
        TrainDialect::kPlanAlignmentAttrName})
    func->removeAttr(name);
  for (unsigned i = 0, e = func.getNumArguments(); i < e; ++i)
    func.removeArgAttr(i, TrainDialect::kOffsetAttrName);
  func.walk([](Operation *op) {
    op->removeAttr(TrainDialect::kOffsetAttrName);
    op->removeAttr(TrainDialect::kWorkspaceOffsetAttrName);
  });
}

namespace {

struct TrainPlanMemoryPass
    : public memopt::impl::TrainPlanMemoryPassBase<TrainPlanMemoryPass> {
  using Base::Base;

  LogicalResult initializeOptions(
      StringRef options,
      function_ref<LogicalResult(const Twine &)> errorHandler) override {
    return parseOptionsNamingPass(
        "train-plan-memory", options, errorHandler,
        [&](StringRef text,
            function_ref<LogicalResult(const Twine &)> handler) {
          return Base::initializeOptions(text, handler);
        });
  }

  void runOnOperation() override {
    func::FuncOp func = getOperation();
    if (func.isExternal())
      return;
    if (failed(train::verifyStepBody(func, "train-plan-memory")))
      return signalPassFailure();
    if (alignment <= 0 || !llvm::isPowerOf2_64(alignment) ||
        alignment > TrainDialect::kMaxPlanAlignment) {
      mlir::emitError(func.getLoc())
          << "train-plan-memory: alignment must be a power of two between 1 "
             "and "
          << TrainDialect::kMaxPlanAlignment << " (2 MiB), got "
          << static_cast<int64_t>(alignment);
      return signalPassFailure();
    }
    if (searchBudget < 0) {
      mlir::emitError(func.getLoc())
          << "train-plan-memory: search-budget (work units) must not be "
             "negative, got "
          << static_cast<int64_t>(searchBudget);
      return signalPassFailure();
    }
    removeMemoryPlan(func);
    // The plan attributes are no input of the liveness analysis.
    const auto &liveness = getAnalysis<TensorLiveness>();
    StepPlanOptions options;
    options.alignment = alignment;
    options.searchBudget = searchBudget;
    options.algorithm = algorithm;
    // The device's arena, and the host's when the step keeps values there
    // (train-offload): two allocations, planned apart.
    SmallVector<StepMemoryPlan, 2> plans;
    for (PlanSpace space : {PlanSpace::Device, PlanSpace::Host}) {
      if (space == PlanSpace::Host && !liveness.hasHostBuffers())
        continue;
      llvm::Expected<StepMemoryPlan> plan =
          planStepMemory(liveness, options, space);
      if (!plan) {
        mlir::emitError(func.getLoc())
            << "train-plan-memory: " << llvm::toString(plan.takeError());
        return signalPassFailure();
      }
      plans.push_back(std::move(*plan));
    }
    writePlan(func, liveness, plans);
  }

  /// Writes `plans` (the device's, then the host's if any) into `func`.
  void writePlan(func::FuncOp func, const TensorLiveness &liveness,
                 ArrayRef<StepMemoryPlan> plans) {
    Block *block = &func.getBody().front();
    Builder builder(&getContext());
    llvm::DenseMap<const Buffer *, int64_t> offsetOf;
    for (const StepMemoryPlan &plan : plans)
      for (auto [slot, offset] : llvm::zip_equal(plan.slots, plan.offsets)) {
        if (slot.buffer)
          offsetOf[slot.buffer] = offset;
        else
          slot.op->setAttr(TrainDialect::kWorkspaceOffsetAttrName,
                           builder.getI64IntegerAttr(offset));
      }
    auto offsetOfValue = [&](Value value) -> int64_t {
      const Buffer *buffer = liveness.lookup(value);
      if (!buffer || buffer->value != value)
        return -1;
      auto it = offsetOf.find(buffer);
      return it == offsetOf.end() ? -1 : it->second;
    };
    for (BlockArgument arg : block->getArguments())
      if (int64_t offset = offsetOfValue(arg); offset >= 0)
        func.setArgAttr(arg.getArgNumber(), TrainDialect::kOffsetAttrName,
                        builder.getI64IntegerAttr(offset));
    for (Operation &op : *block) {
      SmallVector<int64_t> offsets;
      bool any = false;
      for (Value result : op.getResults()) {
        offsets.push_back(offsetOfValue(result));
        any |= offsets.back() >= 0;
      }
      if (any)
        op.setAttr(TrainDialect::kOffsetAttrName,
                   builder.getDenseI64ArrayAttr(offsets));
    }
    // The sizes of each arena: the device's, then the host's.
    static constexpr StringLiteral kSizeNames[2][3] = {
        {TrainDialect::kArenaBytesAttrName, TrainDialect::kLoadBytesAttrName,
         TrainDialect::kPersistentBytesAttrName},
        {TrainDialect::kHostArenaBytesAttrName,
         TrainDialect::kHostLoadBytesAttrName,
         TrainDialect::kHostPersistentBytesAttrName}};
    for (auto [plan, names] : llvm::zip(plans, kSizeNames)) {
      int64_t sizes[3] = {plan.arenaBytes, plan.loadBytes,
                          plan.persistentBytes};
      for (auto [name, bytes] : llvm::zip_equal(names, sizes))
        func->setAttr(name, builder.getI64IntegerAttr(bytes));
    }
    func->setAttr(TrainDialect::kPlanAlignmentAttrName,
                  builder.getI64IntegerAttr(alignment));
  }
};

struct TrainVerifyPlanPass
    : public memopt::impl::TrainVerifyPlanPassBase<TrainVerifyPlanPass> {
  using Base::Base;

  void runOnOperation() override {
    func::FuncOp func = getOperation();
    if (func.isExternal())
      return;
    if (failed(train::verifyStepBody(func, "train-verify-plan")))
      return signalPassFailure();
    auto arenaAttr =
        func->getAttrOfType<IntegerAttr>(TrainDialect::kArenaBytesAttrName);
    if (!arenaAttr) {
      // Passing would claim a plan was checked when there is none.
      func.emitOpError() << "has no arena plan to verify ('"
                         << TrainDialect::kArenaBytesAttrName
                         << "' is missing); run --train-plan-memory first";
      return signalPassFailure();
    }
    const auto &liveness = getAnalysis<TensorLiveness>();
    if (failed(verify(func, liveness, arenaAttr.getInt(), PlanSpace::Device)))
      return signalPassFailure();
    // The host's arena: required when the step has host slots.
    auto hostArenaAttr =
        func->getAttrOfType<IntegerAttr>(TrainDialect::kHostArenaBytesAttrName);
    if (!hostArenaAttr && liveness.hasHostBuffers()) {
      func.emitOpError() << "keeps values in host memory but its plan has no "
                            "host arena ('"
                         << TrainDialect::kHostArenaBytesAttrName
                         << "' is missing); plan the step again "
                            "(--train-plan-memory)";
      return signalPassFailure();
    }
    if (hostArenaAttr && !liveness.hasHostBuffers()) {
      func.emitOpError() << "has a host arena ('"
                         << TrainDialect::kHostArenaBytesAttrName
                         << "') but no value in host memory; plan the step "
                            "again (--train-plan-memory)";
      return signalPassFailure();
    }
    if (hostArenaAttr &&
        failed(verify(func, liveness, hostArenaAttr.getInt(), PlanSpace::Host)))
      return signalPassFailure();
    markAllAnalysesPreserved();
  }

  /// Where to report a problem with `slot`: its defining op, its workspace's
  /// op, or the function for an argument.
  static Operation *anchorOf(func::FuncOp func, const PlanSlot &slot) {
    if (!slot.buffer)
      return slot.op;
    if (Operation *def = slot.buffer->value.getDefiningOp())
      return def;
    return func;
  }

  /// Checks the arena in `space` (of `arenaBytes` bytes) against the
  /// liveness of its slots.
  static LogicalResult verify(func::FuncOp func, const TensorLiveness &liveness,
                              int64_t arenaBytes, PlanSpace space) {
    int64_t alignment = 1;
    if (auto attr = func->getAttrOfType<IntegerAttr>(
            TrainDialect::kPlanAlignmentAttrName))
      alignment = attr.getInt();
    SmallVector<PlanSlot> slots = collectPlanSlots(liveness, alignment, space);
    StringRef arenaName = space == PlanSpace::Host ? "host arena" : "arena";
    std::vector<PlanBuffer> buffers;
    std::vector<int64_t> offsets;
    for (const PlanSlot &slot : slots) {
      std::optional<int64_t> offset = readOffset(func, slot);
      if (!offset)
        return anchorOf(func, slot)->emitError()
               << "train-verify-plan: " << slot.describe()
               << " has no offset; plan the step again "
                  "(--train-plan-memory) after changing it";
      if (*offset < 0 || *offset % alignment != 0)
        return anchorOf(func, slot)->emitError()
               << "train-verify-plan: " << slot.describe() << " is at offset "
               << *offset << ", not a multiple of the plan's alignment "
               << alignment;
      // Unsigned: a hand-edited offset near 2^63 plus the size must not wrap
      // around (both are below 2^63, so their sum fits).
      uint64_t end =
          static_cast<uint64_t>(*offset) +
          llvm::alignTo(static_cast<uint64_t>(slot.bytes), alignment);
      if (end > static_cast<uint64_t>(arenaBytes))
        return anchorOf(func, slot)->emitError()
               << "train-verify-plan: " << slot.describe() << " at offset "
               << *offset << " ends at byte " << end << ", past the "
               << arenaName << " of " << arenaBytes << " bytes";
      buffers.push_back({slot.lower, slot.upper, slot.bytes});
      offsets.push_back(*offset);
    }
    llvm::Error error =
        verifyMemoryPlan(buffers, offsets, arenaBytes, alignment);
    if (!error)
      return success();
    llvm::consumeError(std::move(error));
    // Name the first conflicting pair (the slow search runs only on error).
    for (size_t a = 0; a < slots.size(); ++a)
      for (size_t b = a + 1; b < slots.size(); ++b) {
        const PlanBuffer &x = buffers[a], &y = buffers[b];
        int64_t xEnd = offsets[a] + llvm::alignTo(x.size, alignment);
        int64_t yEnd = offsets[b] + llvm::alignTo(y.size, alignment);
        if (x.lower < y.upper && y.lower < x.upper && offsets[a] < yEnd &&
            offsets[b] < xEnd) {
          InFlightDiagnostic diag =
              anchorOf(func, slots[b])->emitError()
              << "train-verify-plan: " << slots[b].describe() << " at bytes ["
              << offsets[b] << ", " << yEnd << ") overlaps "
              << slots[a].describe() << " at bytes [" << offsets[a] << ", "
              << xEnd << ") while both are live";
          diag.attachNote(anchorOf(func, slots[a])->getLoc())
              << "the other buffer is defined here";
          return diag;
        }
      }
    return mlir::emitError(func.getLoc())
           << "train-verify-plan: the plan is invalid";
  }

  /// The offset the IR records for `slot`, if any.
  static std::optional<int64_t> readOffset(func::FuncOp func,
                                           const PlanSlot &slot) {
    if (!slot.buffer) {
      auto attr = slot.op->getAttrOfType<IntegerAttr>(
          TrainDialect::kWorkspaceOffsetAttrName);
      return attr ? std::optional<int64_t>(attr.getInt()) : std::nullopt;
    }
    Value value = slot.buffer->value;
    if (auto arg = dyn_cast<BlockArgument>(value)) {
      auto attr = func.getArgAttrOfType<IntegerAttr>(
          arg.getArgNumber(), TrainDialect::kOffsetAttrName);
      return attr ? std::optional<int64_t>(attr.getInt()) : std::nullopt;
    }
    auto result = cast<OpResult>(value);
    auto attr = result.getOwner()->getAttrOfType<DenseI64ArrayAttr>(
        TrainDialect::kOffsetAttrName);
    if (!attr || attr.size() <= result.getResultNumber() ||
        attr[result.getResultNumber()] < 0)
      return std::nullopt;
    return attr[result.getResultNumber()];
  }
};

} // namespace
