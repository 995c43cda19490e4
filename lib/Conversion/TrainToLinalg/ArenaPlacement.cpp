//===- ArenaPlacement.cpp - lower a planned step onto one arena -----------===//
//
// When train-plan-memory has planned a step (train.arena_bytes on the
// function), convert-train-to-linalg places every planned tensor in one arena
// allocation at its planned offset: the tensor.empty that a lowered op writes
// its result into becomes a `memref.view` of the arena wrapped in
// `bufferization.to_tensor restrict writable`, so bufferization writes the
// result in place there. The temporaries a lowering creates besides its
// results go into the op's planned workspace. Parameters and optimizer states
// (the persistent region [0, train.persistent_bytes)) stay in their globals;
// the arena holds the region above, so it is allocated with
// arena_bytes - persistent_bytes bytes. The caller owns and frees every
// buffer the step returns, so the step's returned results are allocations of
// their own, outside the arena (getPlannedBytesOutsideArena); the arena is
// freed in the step, after its last use.
//
//
// Collectives (train-shard's shard ops) are lowered later, by
// memopt-shard-to-mpi or memopt-shard-to-nccl: a planned one gets
// `memopt.arena_offsets` (its result's and its staging workspace's offsets
// in the arena, -1 for none), and the arena allocation `memopt.arena`, so
// that their lowering receives into the arena too.
//
// Before the conversion, each planned op gets a location tagged with its
// index and each planned result a marker (an identity tensor.cast, legal
// during the conversion) whose operand the conversion updates to the lowered
// value; afterwards the markers and tags are removed.
//
//===----------------------------------------------------------------------===//

#include "Lowering.h"

#include "memopt/Analysis/StepMemoryPlan.h"
#include "memopt/Dialect/Train/IR/TrainOps.h"

#include "mlir/Dialect/Bufferization/IR/Bufferization.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Shard/IR/ShardDialect.h"
#include "mlir/Interfaces/DestinationStyleOpInterface.h"
#include "llvm/Support/MathExtras.h"

using namespace mlir;
using namespace mlir::memopt;
using train::TrainDialect;

static constexpr StringLiteral kTagName = "memopt.arena_op";
static constexpr StringLiteral kMarkerName = "memopt.arena_result";
static constexpr StringLiteral kOutsideMarkerName = "memopt.arena_outside";

/// The planned results (in the arena, above the persistent region) that the
/// step returns, in the order of the return's operands, each once.
static SmallVector<OpResult> getReturnedPlannedResults(func::FuncOp func) {
  int64_t persistentBytes = 0;
  if (auto attr = func->getAttrOfType<IntegerAttr>(
          TrainDialect::kPersistentBytesAttrName))
    persistentBytes = attr.getInt();
  SmallVector<OpResult> returned;
  if (func.isExternal() || !func.getBody().hasOneBlock())
    return returned;
  Operation *terminator = func.getBody().front().getTerminator();
  if (!terminator)
    return returned;
  for (Value operand : terminator->getOperands()) {
    auto result = dyn_cast<OpResult>(operand);
    if (!result || !isa<RankedTensorType>(result.getType()) ||
        llvm::is_contained(returned, result))
      continue;
    auto offsets = result.getOwner()->getAttrOfType<DenseI64ArrayAttr>(
        TrainDialect::kOffsetAttrName);
    if (!offsets || offsets.size() <= result.getResultNumber() ||
        offsets[result.getResultNumber()] < persistentBytes)
      continue;
    returned.push_back(result);
  }
  return returned;
}

/// Whether `value` is in the arena of `func`'s plan: planned above the
/// persistent region and not returned.
static bool isInArena(Value value, int64_t persistentBytes,
                      ArrayRef<OpResult> returned) {
  auto result = dyn_cast<OpResult>(value);
  if (!result || llvm::is_contained(returned, result))
    return false;
  auto offsets = result.getOwner()->getAttrOfType<DenseI64ArrayAttr>(
      TrainDialect::kOffsetAttrName);
  return offsets && offsets.size() > result.getResultNumber() &&
         offsets[result.getResultNumber()] >= persistentBytes;
}

int64_t mlir::memopt::getPlannedBytesOutsideArena(func::FuncOp func,
                                                  int64_t alignment) {
  auto arena =
      func->getAttrOfType<IntegerAttr>(TrainDialect::kArenaBytesAttrName);
  if (!arena)
    return 0;
  int64_t persistentBytes = 0;
  if (auto attr = func->getAttrOfType<IntegerAttr>(
          TrainDialect::kPersistentBytesAttrName))
    persistentBytes = attr.getInt();
  SmallVector<OpResult> returned = getReturnedPlannedResults(func);
  // The arena is freed after the last op that reads or writes it; a
  // returned buffer allocated later (a pipeline stage's loss, received last)
  // is live only after the arena is gone.
  Operation *lastArenaUse = nullptr;
  for (Operation &op : func.getBody().front()) {
    bool uses = op.hasAttr(TrainDialect::kWorkspaceOffsetAttrName) ||
                llvm::any_of(op.getOperands(),
                             [&](Value v) {
                               return isInArena(v, persistentBytes, returned);
                             }) ||
                llvm::any_of(op.getResults(), [&](Value v) {
                  return isInArena(v, persistentBytes, returned);
                });
    if (uses)
      lastArenaUse = &op;
  }
  int64_t during = 0, all = 0;
  for (OpResult result : returned) {
    int64_t bytes =
        llvm::alignTo(train::getTensorBytes(result.getType()), alignment);
    all += bytes;
    if (!lastArenaUse || !lastArenaUse->isBeforeInBlock(result.getOwner()))
      during += bytes;
  }
  // The peak: the arena with what is returned before it is freed, or
  // everything returned, after.
  return std::max(during, all - (arena.getInt() - persistentBytes));
}

namespace {
/// What the plan says about one planned op.
struct PlannedOp {
  Location originalLoc;
  /// Arena offsets of its results (-1: not planned).
  SmallVector<int64_t> resultOffsets;
  /// Offset and aligned size of its workspace, if any.
  int64_t workspaceOffset = -1;
  int64_t workspaceBytes = 0;
};
} // namespace

struct mlir::memopt::ArenaPlacement::Impl {
  func::FuncOp func;
  int64_t arenaBytes = 0;
  int64_t persistentBytes = 0;
  int64_t alignment = 1;
  SmallVector<PlannedOp> ops;
};

ArenaPlacement::ArenaPlacement() = default;
ArenaPlacement::~ArenaPlacement() = default;
ArenaPlacement::ArenaPlacement(ArenaPlacement &&) = default;

/// The planned-op index a location carries, if any.
static std::optional<int64_t> getTag(Location loc) {
  auto fused = dyn_cast<FusedLoc>(loc);
  if (!fused)
    return std::nullopt;
  auto dict = dyn_cast_or_null<DictionaryAttr>(fused.getMetadata());
  if (!dict)
    return std::nullopt;
  auto index = dict.getAs<IntegerAttr>(kTagName);
  if (!index)
    return std::nullopt;
  return index.getInt();
}

FailureOr<ArenaPlacement> ArenaPlacement::prepare(func::FuncOp func) {
  ArenaPlacement placement;
  auto arenaAttr =
      func->getAttrOfType<IntegerAttr>(TrainDialect::kArenaBytesAttrName);
  if (!arenaAttr || func.isExternal())
    return placement;
  if (!func.getBody().hasOneBlock())
    return func.emitOpError("a planned step must have a single block");
  auto impl = std::make_unique<Impl>();
  impl->func = func;
  impl->arenaBytes = arenaAttr.getInt();
  if (auto attr = func->getAttrOfType<IntegerAttr>(
          TrainDialect::kPersistentBytesAttrName))
    impl->persistentBytes = attr.getInt();
  if (auto attr = func->getAttrOfType<IntegerAttr>(
          TrainDialect::kPlanAlignmentAttrName))
    impl->alignment = attr.getInt();

  MLIRContext *context = func.getContext();
  OpBuilder builder(context);
  Block &block = func.getBody().front();
  // The caller owns every buffer the step returns and frees each, so none
  // can be a view of the arena (two would free it twice, and one would keep
  // it alive in the caller): they get allocations of their own
  // (getPlannedBytesOutsideArena), and the arena is freed in the step.
  llvm::DenseSet<Value> outside;
  for (OpResult result : getReturnedPlannedResults(func))
    outside.insert(result);
  for (Operation &op : llvm::make_early_inc_range(block)) {
    auto offsets =
        op.getAttrOfType<DenseI64ArrayAttr>(TrainDialect::kOffsetAttrName);
    auto workspace =
        op.getAttrOfType<IntegerAttr>(TrainDialect::kWorkspaceOffsetAttrName);
    if (!offsets && !workspace)
      continue;
    int64_t index = impl->ops.size();
    PlannedOp planned{op.getLoc(), {}, -1, 0};
    if (offsets)
      planned.resultOffsets.assign(offsets.asArrayRef().begin(),
                                   offsets.asArrayRef().end());
    if (workspace) {
      planned.workspaceOffset = workspace.getInt();
      planned.workspaceBytes = getWorkspaceSlotBytes(&op, impl->alignment);
    }
    impl->ops.push_back(planned);
    op.setLoc(FusedLoc::get(context, {op.getLoc()},
                            builder.getDictionaryAttr(builder.getNamedAttr(
                                kTagName, builder.getI64IntegerAttr(index)))));
    // Markers for results placed in the arena (not the persistent region).
    builder.setInsertionPointAfter(&op);
    for (auto [resultIndex, result] : llvm::enumerate(op.getResults())) {
      if (!offsets || offsets[resultIndex] < impl->persistentBytes ||
          !isa<RankedTensorType>(result.getType()))
        continue;
      auto marker = tensor::CastOp::create(builder, op.getLoc(),
                                           result.getType(), result);
      marker->setAttr(
          outside.contains(result) ? kOutsideMarkerName : kMarkerName,
          builder.getDenseI64ArrayAttr({index, (int64_t)resultIndex}));
    }
  }
  placement.impl = std::move(impl);
  return placement;
}

/// The tensor.empty that `value` is computed into, following destination
/// operands, loop-carried values and reshapes, or nullptr.
static tensor::EmptyOp findDestination(Value value) {
  while (Operation *def = value.getDefiningOp()) {
    if (auto empty = dyn_cast<tensor::EmptyOp>(def))
      return empty;
    if (auto dps = dyn_cast<DestinationStyleOpInterface>(def)) {
      OpOperand *tied = dps.getTiedOpOperand(cast<OpResult>(value));
      if (!tied)
        return nullptr;
      value = tied->get();
      continue;
    }
    if (isa<tensor::ExpandShapeOp, tensor::CollapseShapeOp>(def)) {
      value = def->getOperand(0);
      continue;
    }
    if (auto loop = dyn_cast<scf::ForOp>(def)) {
      value = loop.getInitArgs()[cast<OpResult>(value).getResultNumber()];
      continue;
    }
    return nullptr;
  }
  return nullptr;
}

Value mlir::memopt::createArenaTensor(OpBuilder &b, Location loc, Value arena,
                                      int64_t offset, RankedTensorType type) {
  Value shift = arith::ConstantIndexOp::create(b, loc, offset);
  auto viewType = MemRefType::get(type.getShape(), type.getElementType());
  Value view =
      memref::ViewOp::create(b, loc, viewType, arena, shift, ValueRange{});
  return bufferization::ToTensorOp::create(b, loc, type, view,
                                           /*restrict=*/true,
                                           /*writable=*/true);
}

LogicalResult ArenaPlacement::apply() {
  if (!impl)
    return success();
  func::FuncOp func = impl->func;
  MLIRContext *context = func.getContext();
  Block &block = func.getBody().front();
  OpBuilder builder(context);
  builder.setInsertionPointToStart(&block);
  int64_t regionBytes =
      std::max<int64_t>(impl->arenaBytes - impl->persistentBytes, 0);
  Location loc = func.getLoc();
  auto arenaType = MemRefType::get({regionBytes}, builder.getI8Type());
  Value arena = memref::AllocOp::create(
      builder, loc, arenaType, ValueRange{},
      builder.getI64IntegerAttr(std::max<int64_t>(impl->alignment, 64)));
  arena.getDefiningOp()->setAttr(kArenaAttrName, builder.getUnitAttr());

  auto place = [&](tensor::EmptyOp empty, int64_t offset) {
    OpBuilder b(empty);
    empty.replaceAllUsesWith(
        createArenaTensor(b, empty.getLoc(), arena, offset, empty.getType()));
    empty.erase();
  };

  // Results at their offsets; returned results outside the arena keep
  // their own allocation (not taken for a workspace either).
  SmallVector<tensor::CastOp> markers;
  llvm::DenseSet<Operation *> placed;
  func.walk([&](tensor::CastOp cast) {
    if (cast->hasAttr(kMarkerName))
      markers.push_back(cast);
    if (!cast->hasAttr(kOutsideMarkerName))
      return;
    if (tensor::EmptyOp empty = findDestination(cast.getSource()))
      placed.insert(empty);
    cast.getResult().replaceAllUsesWith(cast.getSource());
    cast.erase();
  });
  for (tensor::CastOp marker : markers) {
    auto key = marker->getAttrOfType<DenseI64ArrayAttr>(kMarkerName);
    const PlannedOp &planned = impl->ops[key[0]];
    int64_t offset = planned.resultOffsets[key[1]];
    tensor::EmptyOp empty = findDestination(marker.getSource());
    if (empty && getTag(empty.getLoc()) == key[0] && !placed.contains(empty)) {
      placed.insert(empty);
      place(empty, offset - impl->persistentBytes);
    }
    // A pipeline transfer, lowered later: each received tensor's offset.
    if (auto p2p =
            dyn_cast_or_null<train::P2POp>(marker.getSource().getDefiningOp());
        p2p && getTag(p2p->getLoc()) == key[0]) {
      SmallVector<int64_t> offsets(p2p->getNumResults(), -1);
      if (auto existing =
              p2p->getAttrOfType<DenseI64ArrayAttr>(kArenaOffsetsAttrName))
        offsets.assign(existing.asArrayRef().begin(),
                       existing.asArrayRef().end());
      offsets[key[1]] = offset - impl->persistentBytes;
      p2p->setAttr(kArenaOffsetsAttrName,
                   builder.getDenseI64ArrayAttr(offsets));
    }
    // A collective, lowered later: its result and workspace offsets.
    if (Operation *collective = marker.getSource().getDefiningOp();
        collective && isa<shard::ShardDialect>(collective->getDialect()) &&
        getTag(collective->getLoc()) == key[0])
      collective->setAttr(
          kArenaOffsetsAttrName,
          builder.getDenseI64ArrayAttr(
              {offset - impl->persistentBytes,
               planned.workspaceOffset < 0
                   ? -1
                   : planned.workspaceOffset - impl->persistentBytes}));
    marker.getResult().replaceAllUsesWith(marker.getSource());
    marker.erase();
  }

  // Other tensors an op's lowering creates: in its workspace, in order.
  llvm::DenseMap<int64_t, int64_t> workspaceUsed;
  SmallVector<tensor::EmptyOp> temporaries;
  func.walk([&](tensor::EmptyOp empty) { temporaries.push_back(empty); });
  for (tensor::EmptyOp empty : temporaries) {
    std::optional<int64_t> tag = getTag(empty.getLoc());
    if (!tag || placed.contains(empty))
      continue;
    const PlannedOp &planned = impl->ops[*tag];
    if (planned.workspaceOffset < 0)
      continue;
    int64_t bytes =
        llvm::alignTo(train::getTensorBytes(empty.getType()), impl->alignment);
    int64_t &used = workspaceUsed[*tag];
    if (used + bytes > planned.workspaceBytes)
      continue;
    place(empty, planned.workspaceOffset - impl->persistentBytes + used);
    used += bytes;
  }

  // Restore the original locations.
  func.walk([&](Operation *op) {
    if (std::optional<int64_t> tag = getTag(op->getLoc()))
      op->setLoc(impl->ops[*tag].originalLoc);
    for (Region &region : op->getRegions())
      for (Block &nested : region)
        for (BlockArgument arg : nested.getArguments())
          if (std::optional<int64_t> tag = getTag(arg.getLoc()))
            arg.setLoc(impl->ops[*tag].originalLoc);
  });
  return success();
}
