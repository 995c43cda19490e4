//===- ShardToCalls.cpp - shard collectives as NCCL or MPI calls ----------===//
//
// Rewrites the `shard` dialect's all_reduce, all_gather and reduce_scatter on
// tensors into calls of a collective runtime, before bufferization: the CUDA
// runtime's NCCL entry points (memopt-shard-to-nccl,
// lib/Runtime/CUDA/CudaCollectives.cpp) or the MPI runtime's
// (memopt-shard-to-mpi, lib/Runtime/MpiCollectives.cpp). Both take the same
// arguments; only the prefix of the names differs:
//
//   %send = bufferization.to_buffer %input read_only   (contiguous)
//   %recv = memref.alloc()
//   func.call @memopt_<nccl|mpi>_<op>_<type>(%group, %send, %recv, %count, ...)
//   %result = bufferization.to_tensor %recv restrict writable
//
// In a step planned by train-plan-memory, convert-train-to-linalg marks each
// planned collective with its offsets in the step's arena
// (`memopt.arena_offsets`): its result (%recv, or the transpose's
// destination) and its staging buffer are then views of the arena instead
// of allocations.
//
// The buffers are passed as unranked memrefs, so they stay operands of the
// call (the deallocation passes see it as their last use) and the runtime
// reads each address from its descriptor. NCCL and MPI gather and scatter
// contiguous chunks in group order; a gather or scatter along another axis
// is a transpose of the chunked tensor, done here in linalg.
//
//===----------------------------------------------------------------------===//

#include "Lowering.h"

#include "memopt/Dialect/Train/IR/TrainOps.h"

#include "memopt/Conversion/Passes.h"

#include "mlir/Dialect/Affine/IR/AffineOps.h"
#include "mlir/Dialect/Arith/Utils/Utils.h"
#include "mlir/Dialect/Shard/IR/ShardDialect.h"
#include "mlir/Dialect/Shard/IR/ShardOps.h"
#include "mlir/IR/SymbolTable.h"
#include "mlir/Interfaces/FunctionInterfaces.h"

namespace mlir::memopt {
#define GEN_PASS_DEF_MEMOPTSHARDTONCCLPASS
#define GEN_PASS_DEF_MEMOPTSHARDTOMPIPASS
#include "memopt/Conversion/Passes.h.inc"
} // namespace mlir::memopt

using namespace mlir;

/// Grids of at most this many axes (the runtime's group call takes four).
static constexpr int64_t kMaxGridRank = 4;

/// The runtime's suffix for an element type NCCL reduces, or nullopt.
static std::optional<StringRef> getTypeSuffix(Type type) {
  if (type.isF32())
    return StringRef("f32");
  if (type.isF64())
    return StringRef("f64");
  if (type.isF16())
    return StringRef("f16");
  if (type.isBF16())
    return StringRef("bf16");
  if (type.isInteger(8))
    return StringRef("i8");
  if (type.isInteger(32))
    return StringRef("i32");
  if (type.isInteger(64))
    return StringRef("i64");
  return std::nullopt;
}

/// The runtime's code of an average (ncclAvg).
static constexpr int32_t kAverageCode = 4;

/// The runtime's reduction code (CudaCollectives.cpp), or nullopt.
static std::optional<int32_t> getReductionCode(shard::ReductionKind kind) {
  switch (kind) {
  case shard::ReductionKind::Sum:
    return 0;
  case shard::ReductionKind::Product:
    return 1;
  case shard::ReductionKind::Max:
    return 2;
  case shard::ReductionKind::Min:
    return 3;
  case shard::ReductionKind::Average:
    return kAverageCode;
  default:
    return std::nullopt;
  }
}

/// The reassociation of `rank` dimensions into `rank + 1` that splits
/// dimension `axis` into two: [[0], ..., [axis, axis + 1], ..., [rank]].
static SmallVector<ReassociationIndices> getPairReassociation(int64_t rank,
                                                              int64_t axis) {
  SmallVector<ReassociationIndices> reassociation;
  for (int64_t i = 0; i < rank; ++i) {
    if (i == axis)
      reassociation.push_back({i, i + 1});
    else
      reassociation.push_back({i < axis ? i : i + 1});
  }
  return reassociation;
}

/// The permutation of `rank` dimensions (result dim i = input dim p[i])
/// that moves dimension `from` to position `to`, the others in order.
static SmallVector<int64_t> moveDim(int64_t rank, int64_t from, int64_t to) {
  SmallVector<int64_t> permutation;
  for (int64_t i = 0; i < rank; ++i)
    if (i != from)
      permutation.push_back(i);
  permutation.insert(permutation.begin() + to, from);
  return permutation;
}

namespace {

/// The rewrite of one module for one runtime.
class ShardToCalls {
public:
  /// `pass` names the pass in messages, `runtime` the library ("NCCL",
  /// "MPI"), `prefix` the entry points' names ("memopt_nccl_").
  ShardToCalls(ModuleOp module, StringRef pass, StringRef runtime,
               StringRef prefix)
      : module(module), pass(pass), runtime(runtime), prefix(prefix) {}

  LogicalResult run() {
    SymbolTableCollection symbols;
    SmallVector<Operation *> collectives;
    WalkResult walk = module.walk([&](Operation *op) {
      if (!isa_and_nonnull<shard::ShardDialect>(op->getDialect()) ||
          isa<shard::GridOp>(op))
        return WalkResult::advance();
      if (isa<shard::AllReduceOp, shard::AllGatherOp, shard::ReduceScatterOp,
              shard::ProcessLinearIndexOp, shard::ProcessMultiIndexOp>(op)) {
        collectives.push_back(op);
        return WalkResult::advance();
      }
      op->emitError() << "'" << op->getName() << "' has no " << runtime
                      << " lowering: " << pass
                      << " lowers shard.all_reduce, shard.all_gather, "
                         "shard.reduce_scatter and the process indices";
      return WalkResult::interrupt();
    });
    if (walk.wasInterrupted())
      return failure();

    SmallVector<memopt::train::P2POp> transfers;
    module.walk([&](memopt::train::P2POp op) { transfers.push_back(op); });
    for (memopt::train::P2POp op : transfers)
      if (failed(lowerTransfer(op, symbols)))
        return failure();
    for (Operation *op : collectives)
      if (failed(lower(op, symbols)))
        return failure();
    if (badDeclaration)
      return failure();

    // The grids have no users left but the record of train-shard on the
    // functions (`train.shard`), which the lowered program no longer needs.
    for (auto func : module.getOps<FunctionOpInterface>()) {
      func->removeAttr("train.shard");
      func->removeAttr("train.pipeline");
    }
    for (auto grid : llvm::make_early_inc_range(module.getOps<shard::GridOp>()))
      if (SymbolTable::symbolKnownUseEmpty(grid, module))
        grid.erase();
    return success();
  }

private:
  ModuleOp module;
  StringRef pass, runtime, prefix;
  /// Set when a runtime function is already declared with another type.
  bool badDeclaration = false;
  /// The arena slots of the collective being lowered (findArenaSlots), and
  /// each function's arena, found once.
  Value arena;
  llvm::DenseMap<Operation *, Value> arenaOf;
  std::optional<int64_t> resultSlot, workspaceSlot;

public:
  LogicalResult lower(Operation *op, SymbolTableCollection &symbols) {
    auto gridAttr = op->getAttrOfType<FlatSymbolRefAttr>("grid");
    shard::GridOp grid =
        gridAttr ? shard::getGridOrNull(op, gridAttr, symbols) : nullptr;
    if (!grid)
      return op->emitError("no shard.grid named ") << gridAttr;
    ArrayRef<int64_t> shape = grid.getShape();
    if (ShapedType::isDynamicShape(shape))
      return op->emitError("grid @")
             << grid.getSymName() << " has a dynamic shape; " << runtime
             << " groups need a static grid";
    if (static_cast<int64_t>(shape.size()) > kMaxGridRank)
      return op->emitError("grid @")
             << grid.getSymName() << " has " << shape.size()
             << " axes; at most " << kMaxGridRank << " are supported";

    OpBuilder b(op);
    if (auto index = dyn_cast<shard::ProcessLinearIndexOp>(op)) {
      index.getResult().replaceAllUsesWith(getRank(b, op->getLoc()));
      op->erase();
      return success();
    }
    if (auto index = dyn_cast<shard::ProcessMultiIndexOp>(op)) {
      auto delinearized = affine::AffineDelinearizeIndexOp::create(
          b, op->getLoc(), getRank(b, op->getLoc()), shape);
      ArrayRef<int16_t> axes = index.getAxes();
      for (auto [i, result] : llvm::enumerate(index.getResults()))
        result.replaceAllUsesWith(
            delinearized.getResult(axes.empty() ? i : axes[i]));
      op->erase();
      return success();
    }

    Value input = op->getOperand(0);
    Value result = op->getResult(0);
    auto inputType = dyn_cast<RankedTensorType>(input.getType());
    auto resultType = dyn_cast<RankedTensorType>(result.getType());
    if (!inputType || !resultType)
      return op->emitError("is on buffers; ")
             << pass << " lowers collectives on tensors, before bufferization";
    if (!inputType.hasStaticShape() || !resultType.hasStaticShape())
      return op->emitError("has a dynamic shape; ")
             << runtime << " calls need static element counts";
    Type element = resultType.getElementType();
    std::optional<StringRef> suffix = getTypeSuffix(element);
    if (!suffix)
      return op->emitError("element type ")
             << element << " has no " << runtime
             << " type (f32, f64, f16, bf16, i8, i32, i64)";
    Type inputElement = inputType.getElementType();
    if (inputElement != element &&
        !(isa<FloatType>(inputElement) && isa<FloatType>(element)))
      return op->emitError("converts ")
             << inputElement << " to " << element
             << "; only float-to-float conversions are lowered";

    // Every shard collective has `grid_axes` (default: none).
    ArrayRef<int16_t> axes;
    if (auto attr = op->getAttrOfType<DenseI16ArrayAttr>("grid_axes"))
      axes = attr.asArrayRef();
    int64_t groupSize = 1;
    for (int16_t axis : axes)
      groupSize *= shape[axis];

    std::optional<int32_t> reduction;
    if (auto reduce = dyn_cast<shard::AllReduceOp>(op))
      reduction = getReductionCode(reduce.getReduction());
    else if (auto scatter = dyn_cast<shard::ReduceScatterOp>(op))
      reduction = getReductionCode(scatter.getReduction());
    if (!isa<shard::AllGatherOp>(op) && !reduction)
      return op->emitError("reduction kind has no ")
             << runtime << " operation (sum, product, max, min and average do)";
    if (reduction == kAverageCode && !isa<FloatType>(element))
      return op->emitError("average of integers is not lowered (")
             << runtime << " would truncate)";

    Location loc = op->getLoc();
    if (failed(findArenaSlots(op)))
      return failure();
    Value send = convertElements(b, loc, input, element);
    Value group = getGroup(b, loc, shape, axes);
    Value replacement =
        emitCollective(b, op, *suffix, send, group, groupSize, reduction);
    result.replaceAllUsesWith(replacement);
    op->erase();
    return success();
  }

  /// Lowers a pipeline transfer: each message posted (non-blocking) by a
  /// call of <prefix>p2p_{send,recv}_<type>(rankDelta, tag, buffer, count),
  /// then <prefix>p2p_wait() for them all, then <prefix>p2p_sent_<type>(buffer)
  /// per sent buffer, so that no sent buffer is freed before the transfer
  /// ends. The same calls for both runtimes: MPI matches messages by tag,
  /// the NCCL runtime orders each peer's messages by tag in one NCCL group.
  LogicalResult lowerTransfer(memopt::train::P2POp op,
                              SymbolTableCollection &symbols) {
    auto func = op->getParentOfType<FunctionOpInterface>();
    auto config = func ? func->getAttrOfType<DictionaryAttr>("train.pipeline")
                       : DictionaryAttr();
    if (!config)
      return op->emitError("is not in a pipeline stage's function (one with "
                           "train.pipeline, as train-pipeline builds them)");
    auto gridAttr = cast<FlatSymbolRefAttr>(config.get("grid"));
    shard::GridOp grid = shard::getGridOrNull(op, gridAttr, symbols);
    if (!grid || ShapedType::isDynamicShape(grid.getShape()))
      return op->emitError("needs a static shard.grid named ") << gridAttr;
    int64_t axis = cast<IntegerAttr>(config.get("axis")).getInt();
    int64_t stage = cast<IntegerAttr>(config.get("stage")).getInt();
    ArrayRef<int64_t> shape = grid.getShape();
    if (axis >= static_cast<int64_t>(shape.size()))
      return op->emitError("pipeline axis ")
             << axis << " is not an axis of @" << grid.getSymName();
    int64_t stride = 1;
    for (int64_t extent : shape.drop_front(axis + 1))
      stride *= extent;
    SmallVector<int64_t> slots(op->getNumResults(), -1);
    arena = nullptr;
    if (auto offsets = op->getAttrOfType<DenseI64ArrayAttr>(
            memopt::kArenaOffsetsAttrName)) {
      if (failed(findArenaSlots(op, /*count=*/offsets.size())))
        return failure();
      slots.assign(offsets.asArrayRef().begin(), offsets.asArrayRef().end());
    }

    OpBuilder b(op);
    Location loc = op->getLoc();
    auto i64 = [&](int64_t v) {
      return arith::ConstantIntOp::create(b, loc, b.getI64Type(), v);
    };
    auto post = [&](StringRef kind, Value buffer, int64_t peer, int64_t tag,
                    RankedTensorType type) -> LogicalResult {
      std::optional<StringRef> suffix = getTypeSuffix(type.getElementType());
      if (!suffix)
        return op->emitError("element type ")
               << type.getElementType() << " has no " << runtime
               << " type (f32, f64, f16, bf16, i8, i32, i64)";
      auto unranked = UnrankedMemRefType::get(type.getElementType(), 0);
      SmallVector<Type> types{b.getI64Type(), b.getI64Type(), unranked,
                              b.getI64Type()};
      callRuntime(b, loc, (prefix + "p2p_" + kind + "_" + *suffix).str(),
                  b.getFunctionType(types, {}),
                  {i64((peer - stage) * stride), i64(tag),
                   memref::CastOp::create(b, loc, unranked, buffer),
                   i64(type.getNumElements())});
      return success();
    };
    SmallVector<Value> sent;
    for (auto [value, peer, tag] :
         llvm::zip_equal(op.getSends(), op.getSendTo(), op.getSendTags())) {
      auto type = cast<RankedTensorType>(value.getType());
      Value buffer = bufferization::ToBufferOp::create(
          b, loc, MemRefType::get(type.getShape(), type.getElementType()),
          value, /*read_only=*/true);
      if (failed(post("send", buffer, peer, tag, type)))
        return failure();
      sent.push_back(buffer);
    }
    SmallVector<Value> received;
    for (auto [result, peer, tag, slot] : llvm::zip_equal(
             op.getReceived(), op.getRecvFrom(), op.getRecvTags(), slots)) {
      auto type = cast<RankedTensorType>(result.getType());
      Value buffer = getBuffer(
          b, loc, MemRefType::get(type.getShape(), type.getElementType()),
          slot >= 0 ? std::optional<int64_t>(slot) : std::nullopt);
      if (failed(post("recv", buffer, peer, tag, type)))
        return failure();
      received.push_back(bufferization::ToTensorOp::create(
          b, loc, type, buffer, /*restrict=*/b.getUnitAttr(),
          /*writable=*/b.getUnitAttr()));
    }
    callRuntime(b, loc, (prefix + "p2p_wait").str(), b.getFunctionType({}, {}),
                {});
    for (Value buffer : sent) {
      auto type = cast<MemRefType>(buffer.getType());
      auto unranked = UnrankedMemRefType::get(type.getElementType(), 0);
      callRuntime(
          b, loc,
          (prefix + "p2p_sent_" + *getTypeSuffix(type.getElementType())).str(),
          b.getFunctionType({unranked}, {}),
          {memref::CastOp::create(b, loc, unranked, buffer)});
    }
    op->replaceAllUsesWith(received);
    op->erase();
    return success();
  }

  /// The NCCL call of the collective `op` on `send` (its input in the
  /// result's element type) within `group` (of `groupSize` processes), with
  /// the reshapes around it that NCCL's contiguous chunks need.
  Value emitCollective(OpBuilder &b, Operation *op, StringRef suffix,
                       Value send, Value group, int64_t groupSize,
                       std::optional<int32_t> reduction) {
    Location loc = op->getLoc();
    auto inputType = cast<RankedTensorType>(op->getOperand(0).getType());
    auto resultType = cast<RankedTensorType>(op->getResult(0).getType());
    Type element = resultType.getElementType();
    int64_t resultCount = resultType.getNumElements();

    Value replacement;
    int64_t rank = inputType.getRank();
    if (isa<shard::AllReduceOp>(op)) {
      replacement =
          callCollective(b, loc, "all_reduce", suffix, group, send, resultType,
                         resultCount, reduction, resultSlot);
    } else if (auto gather = dyn_cast<shard::AllGatherOp>(op)) {
      int64_t axis = gather.getGatherAxis().getSExtValue();
      // NCCL concatenates the sends: [group, input...]. The group dimension
      // moves next to the gather axis, then the two merge.
      SmallVector<int64_t> chunked{groupSize};
      llvm::append_range(chunked, inputType.getShape());
      Value gathered = callCollective(b, loc, "all_gather", suffix, group, send,
                                      RankedTensorType::get(chunked, element),
                                      inputType.getNumElements(), std::nullopt,
                                      axis != 0 ? workspaceSlot : resultSlot);
      if (axis != 0)
        gathered =
            transpose(b, loc, gathered, moveDim(rank + 1, 0, axis), resultSlot);
      replacement = tensor::CollapseShapeOp::create(
          b, loc, resultType, gathered, getPairReassociation(rank, axis));
    } else {
      int64_t axis =
          cast<shard::ReduceScatterOp>(op).getScatterAxis().getSExtValue();
      // NCCL scatters contiguous chunks: the scatter axis splits into
      // [group, chunk] and the group dimension moves outermost.
      if (axis != 0) {
        SmallVector<int64_t> split(inputType.getShape());
        split[axis] /= groupSize;
        split.insert(split.begin() + axis, groupSize);
        Value expanded = tensor::ExpandShapeOp::create(
            b, loc, RankedTensorType::get(split, element), send,
            getPairReassociation(rank, axis));
        send = transpose(b, loc, expanded, moveDim(rank + 1, axis, 0),
                         workspaceSlot);
      }
      replacement =
          callCollective(b, loc, "reduce_scatter", suffix, group, send,
                         resultType, resultCount, reduction, resultSlot);
    }
    return replacement;
  }

  /// Declares `name` (private) in the module on first use. A declaration
  /// of another type already there is reported (and fails the pass).
  func::FuncOp getFunction(OpBuilder &b, StringRef name, FunctionType type) {
    if (auto func = module.lookupSymbol<func::FuncOp>(name)) {
      if (func.getFunctionType() != type && !badDeclaration) {
        func.emitError("@")
            << name << " has type " << func.getFunctionType() << ", but "
            << pass << " calls the runtime's " << type;
        badDeclaration = true;
      }
      return func;
    }
    OpBuilder::InsertionGuard guard(b);
    b.setInsertionPointToStart(module.getBody());
    auto func = func::FuncOp::create(b, module.getLoc(), name, type);
    func.setPrivate();
    return func;
  }

  /// A call of the runtime function `name` of `type`, declared if needed.
  /// The call has `type` even where `name` is declared with another type
  /// (reported by getFunction; the pass then fails): its results are the
  /// ones the lowering reads, never those of the wrong declaration.
  func::CallOp callRuntime(OpBuilder &b, Location loc, StringRef name,
                           FunctionType type, ValueRange args) {
    getFunction(b, name, type);
    return func::CallOp::create(b, loc, name, type.getResults(), args);
  }

  /// This process's rank, as an index.
  Value getRank(OpBuilder &b, Location loc) {
    Value value = callRuntime(b, loc, (prefix + "rank").str(),
                              b.getFunctionType({}, {b.getI64Type()}), {})
                      .getResult(0);
    return arith::IndexCastOp::create(b, loc, b.getIndexType(), value);
  }

  /// The runtime's group for `axes` of a grid of `shape`.
  Value getGroup(OpBuilder &b, Location loc, ArrayRef<int64_t> shape,
                 ArrayRef<int16_t> axes) {
    SmallVector<Type> types(2 * kMaxGridRank, b.getI64Type());
    SmallVector<Value> args;
    for (int64_t i = 0; i < kMaxGridRank; ++i)
      args.push_back(arith::ConstantIntOp::create(
          b, loc, b.getI64Type(),
          i < static_cast<int64_t>(shape.size()) ? shape[i] : 0));
    for (int64_t i = 0; i < kMaxGridRank; ++i)
      args.push_back(arith::ConstantIntOp::create(
          b, loc, b.getI64Type(),
          i < static_cast<int64_t>(axes.size()) ? axes[i] : -1));
    return callRuntime(b, loc, (prefix + "group").str(),
                       b.getFunctionType(types, {b.getI64Type()}), args)
        .getResult(0);
  }

  /// `send` converted element-wise to `element`.
  static Value convertElements(OpBuilder &b, Location loc, Value send,
                               Type element) {
    auto type = cast<RankedTensorType>(send.getType());
    if (type.getElementType() == element)
      return send;
    Value init = tensor::EmptyOp::create(b, loc, type.getShape(), element);
    SmallVector<AffineMap> maps(2, b.getMultiDimIdentityMap(type.getRank()));
    SmallVector<utils::IteratorType> iterators(type.getRank(),
                                               utils::IteratorType::parallel);
    return linalg::GenericOp::create(
               b, loc, init.getType(), send, init, maps, iterators,
               [&](OpBuilder &nested, Location nestedLoc, ValueRange args) {
                 linalg::YieldOp::create(
                     nested, nestedLoc,
                     convertScalarToDtype(nested, nestedLoc, args[0], element,
                                          /*isUnsignedCast=*/false));
               })
        .getResult(0);
  }

  /// The arena slots of the collective `op` (resultSlot, workspaceSlot),
  /// from the offsets convert-train-to-linalg put on a planned one.
  LogicalResult findArenaSlots(Operation *op, size_t count = 2) {
    resultSlot = workspaceSlot = std::nullopt;
    arena = nullptr;
    auto offsets =
        op->getAttrOfType<DenseI64ArrayAttr>(memopt::kArenaOffsetsAttrName);
    if (!offsets)
      return success();
    if (auto func = op->getParentOfType<FunctionOpInterface>()) {
      auto [it, inserted] = arenaOf.try_emplace(func, Value());
      if (inserted)
        func->walk([&](memref::AllocOp alloc) {
          if (!alloc->hasAttr(memopt::kArenaAttrName))
            return WalkResult::advance();
          it->second = alloc.getResult();
          return WalkResult::interrupt();
        });
      arena = it->second;
    }
    if (!arena || static_cast<size_t>(offsets.size()) != count)
      return op->emitError("has arena offsets but its function has no "
                           "arena: lower it with convert-train-to-linalg");
    if (count != 2)
      return success();
    if (offsets[0] >= 0)
      resultSlot = offsets[0];
    if (offsets[1] >= 0)
      workspaceSlot = offsets[1];
    return success();
  }

  /// A buffer of `type`: a view of the arena at `slot`, else an allocation.
  Value getBuffer(OpBuilder &b, Location loc, MemRefType type,
                  std::optional<int64_t> slot) {
    if (!slot)
      return memref::AllocOp::create(
          b, loc, type, b.getI64IntegerAttr(memopt::kCPUBufferAlignment));
    Value shift = arith::ConstantIndexOp::create(b, loc, *slot);
    return memref::ViewOp::create(b, loc, type, arena, shift, ValueRange{});
  }

  /// `value` with its dimensions permuted (result dim i = input dim p[i]),
  /// into the arena at `slot` when given.
  Value transpose(OpBuilder &b, Location loc, Value value,
                  ArrayRef<int64_t> permutation, std::optional<int64_t> slot) {
    auto type = cast<RankedTensorType>(value.getType());
    SmallVector<int64_t> shape;
    for (int64_t dim : permutation)
      shape.push_back(type.getDimSize(dim));
    auto initType = RankedTensorType::get(shape, type.getElementType());
    Value init =
        slot ? memopt::createArenaTensor(b, loc, arena, *slot, initType)
             : tensor::EmptyOp::create(b, loc, shape, type.getElementType())
                   .getResult();
    return linalg::TransposeOp::create(b, loc, value, init, permutation)
        .getResult()[0];
  }

  /// Calls memopt_nccl_<kind>_<suffix>(group, send, recv, count[, op]) on
  /// `send`'s buffer and a new buffer of `recvType`, returned as a tensor.
  Value callCollective(OpBuilder &b, Location loc, StringRef kind,
                       StringRef suffix, Value group, Value send,
                       RankedTensorType recvType, int64_t count,
                       std::optional<int32_t> reduction,
                       std::optional<int64_t> slot) {
    auto sendType = cast<RankedTensorType>(send.getType());
    Type element = recvType.getElementType();
    auto unranked = UnrankedMemRefType::get(element, /*memorySpace=*/0);
    Value sendBuffer = bufferization::ToBufferOp::create(
        b, loc, MemRefType::get(sendType.getShape(), element), send,
        /*read_only=*/true);
    auto recvBufferType = MemRefType::get(recvType.getShape(), element);
    // At the alignment bufferization gives every buffer, so the allocation
    // hooks count what the memory model counts; or in the arena.
    Value recvBuffer = getBuffer(b, loc, recvBufferType, slot);

    SmallVector<Type> types{b.getI64Type(), unranked, unranked, b.getI64Type()};
    SmallVector<Value> args{
        group, memref::CastOp::create(b, loc, unranked, sendBuffer),
        memref::CastOp::create(b, loc, unranked, recvBuffer),
        arith::ConstantIntOp::create(b, loc, b.getI64Type(), count)};
    if (reduction) {
      types.push_back(b.getI32Type());
      args.push_back(
          arith::ConstantIntOp::create(b, loc, b.getI32Type(), *reduction));
    }
    std::string name = (prefix + kind + "_" + suffix).str();
    callRuntime(b, loc, name, b.getFunctionType(types, {}), args);
    return bufferization::ToTensorOp::create(b, loc, recvType, recvBuffer,
                                             /*restrict=*/b.getUnitAttr(),
                                             /*writable=*/b.getUnitAttr());
  }
};

struct MemoptShardToNcclPass
    : public memopt::impl::MemoptShardToNcclPassBase<MemoptShardToNcclPass> {
  void runOnOperation() override {
    if (failed(ShardToCalls(getOperation(), "memopt-shard-to-nccl", "NCCL",
                            "memopt_nccl_")
                   .run()))
      signalPassFailure();
  }
};

struct MemoptShardToMpiPass
    : public memopt::impl::MemoptShardToMpiPassBase<MemoptShardToMpiPass> {
  void runOnOperation() override {
    if (failed(ShardToCalls(getOperation(), "memopt-shard-to-mpi", "MPI",
                            "memopt_mpi_")
                   .run()))
      signalPassFailure();
  }
};

} // namespace
