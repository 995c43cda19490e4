//===- ArenaPlacement.cpp - lower a planned step onto one arena -----------===//
//
// When train-plan-memory has planned a step (train.arena_bytes on the
// function), convert-train-to-linalg places every planned tensor in its
// arena allocation at its planned offset (a step with values in host memory
// has two arenas: the device's, and the host's, allocated in host memory): the
// tensor.empty that a lowered op writes its result into becomes a `memref.view`
// of the arena wrapped in `bufferization.to_tensor restrict writable`, so
// bufferization writes the result in place there. The temporaries a lowering
// creates besides its results go into the op's planned workspace. Parameters
// and optimizer states (the persistent region [0, train.persistent_bytes)) stay
// in their globals; the arena holds the region above, so it is allocated with
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

namespace {
/// One arena of a planned step: its size and the size of its persistent
/// region (globals, not in the allocation), from the function's attributes.
struct ArenaRegion {
  bool planned = false;
  int64_t arenaBytes = 0;
  int64_t persistentBytes = 0;

  ArenaRegion(Operation *func, bool host) {
    auto arena = func->getAttrOfType<IntegerAttr>(
        host ? TrainDialect::kHostArenaBytesAttrName
             : TrainDialect::kArenaBytesAttrName);
    if (!arena)
      return;
    planned = true;
    arenaBytes = arena.getInt();
    if (auto attr = func->getAttrOfType<IntegerAttr>(
            host ? TrainDialect::kHostPersistentBytesAttrName
                 : TrainDialect::kPersistentBytesAttrName))
      persistentBytes = attr.getInt();
  }
  /// The bytes of the allocation: the region above the persistent one.
  int64_t getAllocatedBytes() const {
    return std::max<int64_t>(arenaBytes - persistentBytes, 0);
  }
};
} // namespace

/// Whether `value` lives in the host's arena rather than the device's.
static bool isHostValue(Value value) {
  return train::getMemorySpace(value) == train::MemorySpace::Host;
}

/// The planned offset of `result` if it is above the persistent region of
/// its space's arena (the device's or the host's), else -1.
static int64_t getArenaOffset(OpResult result, const ArenaRegion &device,
                              const ArenaRegion &host) {
  auto offsets = result.getOwner()->getAttrOfType<DenseI64ArrayAttr>(
      TrainDialect::kOffsetAttrName);
  if (!offsets || offsets.size() <= result.getResultNumber())
    return -1;
  int64_t offset = offsets[result.getResultNumber()];
  // (A host value's offset without a host arena is no placement:
  // train-verify-plan rejects that plan.)
  const ArenaRegion &region = isHostValue(result) ? host : device;
  return region.planned && offset >= region.persistentBytes ? offset : -1;
}

/// The planned results (in an arena, above its persistent region) that the
/// step returns, in the order of the return's operands, each once.
static SmallVector<OpResult> getReturnedPlannedResults(func::FuncOp func) {
  SmallVector<OpResult> returned;
  if (func.isExternal() || !func.getBody().hasOneBlock())
    return returned;
  ArenaRegion device(func, false), host(func, true);
  Operation *terminator = func.getBody().front().getTerminator();
  if (!terminator)
    return returned;
  for (Value operand : terminator->getOperands()) {
    auto result = dyn_cast<OpResult>(operand);
    if (!result || !isa<RankedTensorType>(result.getType()) ||
        llvm::is_contained(returned, result) ||
        getArenaOffset(result, device, host) < 0)
      continue;
    returned.push_back(result);
  }
  return returned;
}

/// Whether `value` is in `func`'s arena in the space `host` names: planned
/// above the persistent region and not returned.
static bool isInArena(Value value, bool host, const ArenaRegion &device,
                      const ArenaRegion &hostRegion,
                      ArrayRef<OpResult> returned) {
  auto result = dyn_cast<OpResult>(value);
  return result && isHostValue(result) == host &&
         !llvm::is_contained(returned, result) &&
         getArenaOffset(result, device, hostRegion) >= 0;
}

int64_t mlir::memopt::getPlannedBytesOutsideArena(func::FuncOp func,
                                                  int64_t alignment,
                                                  bool host) {
  ArenaRegion device(func, false), hostRegion(func, true);
  const ArenaRegion &region = host ? hostRegion : device;
  if (!region.planned)
    return 0;
  SmallVector<OpResult> returned;
  for (OpResult result : getReturnedPlannedResults(func))
    if (isHostValue(result) == host)
      returned.push_back(result);
  // The arena is freed after the last op that reads or writes it; a
  // returned buffer allocated later (a pipeline stage's loss, received last)
  // is live only after the arena is gone.
  auto inArena = [&](Value v) {
    return isInArena(v, host, device, hostRegion, returned);
  };
  Operation *lastArenaUse = nullptr;
  for (Operation &op : func.getBody().front()) {
    bool uses = (op.hasAttr(TrainDialect::kWorkspaceOffsetAttrName) &&
                 train::isHostOp(&op) == host) ||
                llvm::any_of(op.getOperands(), inArena) ||
                llvm::any_of(op.getResults(), inArena);
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
  return std::max(during, all - region.getAllocatedBytes());
}

namespace {
/// What the plan says about one planned op.
struct PlannedOp {
  Location originalLoc;
  /// Offsets of its results in their allocations (-1: not in an arena),
  /// and whether each is in the host's.
  SmallVector<int64_t> resultOffsets;
  SmallVector<bool> resultOnHost;
  /// Offset in its allocation and aligned size of its workspace, if any,
  /// and whether it is in the host's (a host op's).
  int64_t workspaceOffset = -1;
  int64_t workspaceBytes = 0;
  bool workspaceOnHost = false;
};
} // namespace

struct mlir::memopt::ArenaPlacement::Impl {
  func::FuncOp func;
  std::optional<ArenaRegion> device, host;
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
  impl->device.emplace(func, /*host=*/false);
  impl->host.emplace(func, /*host=*/true);
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
    PlannedOp planned{op.getLoc()};
    for (OpResult result : op.getResults()) {
      bool onHost = isHostValue(result);
      planned.resultOnHost.push_back(onHost);
      int64_t offset = getArenaOffset(result, *impl->device, *impl->host);
      planned.resultOffsets.push_back(
          offset < 0
              ? -1
              : offset - (onHost ? impl->host : impl->device)->persistentBytes);
    }
    if (workspace && (!train::isHostOp(&op) || impl->host->planned)) {
      planned.workspaceOnHost = train::isHostOp(&op);
      planned.workspaceOffset =
          workspace.getInt() -
          (planned.workspaceOnHost ? impl->host : impl->device)
              ->persistentBytes;
      planned.workspaceBytes = getWorkspaceSlotBytes(&op, impl->alignment);
    }
    impl->ops.push_back(planned);
    op.setLoc(FusedLoc::get(context, {op.getLoc()},
                            builder.getDictionaryAttr(builder.getNamedAttr(
                                kTagName, builder.getI64IntegerAttr(index)))));
    // Markers for results placed in an arena (not a persistent region).
    builder.setInsertionPointAfter(&op);
    for (auto [resultIndex, result] : llvm::enumerate(op.getResults())) {
      if (impl->ops.back().resultOffsets[resultIndex] < 0 ||
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

/// Allocates the arenas of `func` at its start: the device's, and the
/// host's (if planned) in host memory, between calls that switch the
/// allocations' space to the host and back (MemorySpaceLowering.cpp).
static FailureOr<std::pair<Value, Value>>
allocateArenas(func::FuncOp func, const ArenaRegion &device,
               const ArenaRegion &host, int64_t alignment) {
  Block &block = func.getBody().front();
  OpBuilder builder(func.getContext());
  builder.setInsertionPointToStart(&block);
  Location loc = func.getLoc();
  auto allocate = [&](const ArenaRegion &region, StringRef marker) {
    auto type =
        MemRefType::get({region.getAllocatedBytes()}, builder.getI8Type());
    Value arena = memref::AllocOp::create(
        builder, loc, type, ValueRange{},
        builder.getI64IntegerAttr(std::max<int64_t>(alignment, 64)));
    arena.getDefiningOp()->setAttr(marker, builder.getUnitAttr());
    return arena;
  };
  Value deviceArena = allocate(device, kArenaAttrName);
  if (!host.planned)
    return std::make_pair(deviceArena, Value());
  auto module = func->getParentOfType<ModuleOp>();
  auto callee = module ? module.lookupSymbol<func::FuncOp>(kMemorySpaceFunction)
                       : nullptr;
  if (!callee)
    return func.emitOpError()
           << "has a host arena ('" << TrainDialect::kHostArenaBytesAttrName
           << "') but no value in host memory; plan the step again "
              "(--train-plan-memory)";
  auto setSpace = [&](int32_t space) {
    Value code =
        arith::ConstantIntOp::create(builder, loc, builder.getI32Type(), space);
    func::CallOp::create(builder, loc, callee, ValueRange{code});
  };
  setSpace(1);
  Value hostArena = allocate(host, kHostArenaAttrName);
  setSpace(0);
  return std::make_pair(deviceArena, hostArena);
}

LogicalResult ArenaPlacement::apply() {
  if (!impl)
    return success();
  func::FuncOp func = impl->func;
  MLIRContext *context = func.getContext();
  OpBuilder builder(context);
  FailureOr<std::pair<Value, Value>> arenas =
      allocateArenas(func, *impl->device, *impl->host, impl->alignment);
  if (failed(arenas))
    return failure();
  auto [arena, hostArena] = *arenas;

  auto place = [&](tensor::EmptyOp empty, int64_t offset, bool onHost) {
    OpBuilder b(empty);
    empty.replaceAllUsesWith(createArenaTensor(b, empty.getLoc(),
                                               onHost ? hostArena : arena,
                                               offset, empty.getType()));
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
    bool onHost = planned.resultOnHost[key[1]];
    tensor::EmptyOp empty = findDestination(marker.getSource());
    if (empty && getTag(empty.getLoc()) == key[0] && !placed.contains(empty)) {
      placed.insert(empty);
      place(empty, offset, onHost);
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
      offsets[key[1]] = offset;
      p2p->setAttr(kArenaOffsetsAttrName,
                   builder.getDenseI64ArrayAttr(offsets));
    }
    // A collective, lowered later: its result and workspace offsets.
    if (Operation *collective = marker.getSource().getDefiningOp();
        collective && isa<shard::ShardDialect>(collective->getDialect()) &&
        getTag(collective->getLoc()) == key[0])
      collective->setAttr(
          kArenaOffsetsAttrName,
          builder.getDenseI64ArrayAttr({offset, planned.workspaceOffset}));
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
    place(empty, planned.workspaceOffset + used, planned.workspaceOnHost);
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
