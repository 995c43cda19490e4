//===- TrainParallelOps.cpp - tensor-parallel regions ---------------------===//
//
// train.copy_to_parallel (Megatron-LM's operator f): its verifier and cost
// (its gradient rule, an all-reduce, is in TrainGradients.cpp); and the
// gradient rule of the upstream `shard.all_reduce` (operator g), attached as
// an external model of DifferentiableOpInterface.
//
// Both rules follow the convention train-shard's programs keep: a value
// outside a tensor-parallel region is replicated (every process of the
// region's group holds the same whole value and computes the same thing
// from it), and the gradient each process builds is its own share of the
// gradient, summed across the group where shares are partial. Under that
// convention:
//   * the gradient of copy_to_parallel's input is the sum over the group of
//     the per-process gradients of its result (each process only saw the
//     heads or columns it owns);
//   * the gradient of an all_reduce's input is its result's gradient: the
//     result is replicated and each process's gradient of it is whole;
//   * the gradient of an all_gather's input is the reduce_scatter (sum) of
//     its result's gradient: the gathered value is replicated, each process
//     holds its own share of its gradient, and the input is the process's
//     part of it (ZeRO's gathered parameters; sequence parallelism);
//   * the gradient of a reduce_scatter (sum)'s input is the all_gather of
//     its result's gradient: every process's input contributes to every
//     part.
// A data-parallel loss average (an all_reduce over the data-parallel axis)
// follows the same rule: each process differentiates its own loss, and
// train-autodiff averages the parameter gradients over that axis.
//
//===----------------------------------------------------------------------===//

#include "memopt/Dialect/Train/IR/TrainOps.h"

#include "TrainOpUtils.h"

#include "mlir/Dialect/Shard/IR/ShardOps.h"
#include "mlir/IR/DialectRegistry.h"
#include "llvm/ADT/SmallSet.h"

#include <limits>

using namespace mlir;
using namespace mlir::memopt::train;
using mlir::memopt::train::detail::gradLoc;

LogicalResult CopyToParallelOp::verify() {
  ArrayRef<int16_t> axes = getGridAxes();
  if (axes.empty())
    return emitOpError("expected at least one grid axis");
  llvm::SmallSet<int16_t, 4> seen;
  for (int16_t axis : axes)
    if (axis < 0 || !seen.insert(axis).second)
      return emitOpError() << "grid axes must be distinct and non-negative, "
                              "got "
                           << axis;
  return success();
}

LogicalResult
CopyToParallelOp::verifySymbolUses(SymbolTableCollection &symbolTable) {
  auto grid =
      symbolTable.lookupNearestSymbolFrom<shard::GridOp>(*this, getGridAttr());
  if (!grid)
    return emitOpError() << "no shard.grid named " << getGridAttr();
  for (int16_t axis : getGridAxes())
    if (axis >= grid.getRank())
      return emitOpError() << "grid axis " << axis << " is out of range: @"
                           << grid.getSymName() << " has " << grid.getRank()
                           << " axes";
  return success();
}

int64_t CopyToParallelOp::getFlops() { return 0; }

bool CopyToParallelOp::forwardsValues(unsigned operandIndex) { return true; }

LogicalResult P2POp::verify() {
  auto check = [&](StringRef what, size_t count, ArrayRef<int64_t> peers,
                   ArrayRef<int64_t> tags) -> LogicalResult {
    if (peers.size() != count || tags.size() != count)
      return emitOpError() << "has " << count << " " << what << " but "
                           << peers.size() << " peers and " << tags.size()
                           << " tags; expected one of each per tensor";
    for (int64_t peer : peers)
      if (peer < 0)
        return emitOpError() << "peer stage " << peer << " is negative";
    for (int64_t tag : tags)
      if (tag < 0 || tag > std::numeric_limits<int32_t>::max())
        return emitOpError()
               << "tag " << tag << " is outside [0, 2^31 - 1] (MPI's tags)";
    return success();
  };
  if (failed(check("sent tensors", getSends().size(), getSendTo(),
                   getSendTags())) ||
      failed(check("received tensors", getReceived().size(), getRecvFrom(),
                   getRecvTags())))
    return failure();
  if (getSends().empty() && getReceived().empty())
    return emitOpError("sends and receives nothing");
  llvm::SmallSet<std::pair<int64_t, int64_t>, 8> seen;
  for (auto [peer, tag] : llvm::zip_equal(getRecvFrom(), getRecvTags()))
    if (!seen.insert({peer, tag}).second)
      return emitOpError() << "receives twice from stage " << peer
                           << " with tag " << tag;
  return success();
}

int64_t P2POp::getFlops() { return 0; }

namespace {

/// shard.all_reduce: the gradient of the input is the result's gradient
/// (see the file comment for the convention that makes this exact).
struct AllReduceGradientModel
    : public DifferentiableOpInterface::ExternalModel<AllReduceGradientModel,
                                                      shard::AllReduceOp> {
  LogicalResult buildGradients(Operation *op, OpBuilder &b,
                               ValueRange resultGrads, ArrayRef<bool> needed,
                               SmallVectorImpl<Value> &grads) const {
    auto reduce = cast<shard::AllReduceOp>(op);
    grads.assign(1, Value());
    if (!needed[0] || !resultGrads[0])
      return success();
    if (reduce.getReduction() != shard::ReductionKind::Sum &&
        reduce.getReduction() != shard::ReductionKind::Average)
      return op->emitOpError("has no gradient rule: only sum and average "
                             "all-reduces are differentiable");
    if (resultGrads[0].getType() != reduce.getInput().getType())
      return op->emitOpError("has no gradient rule: its input and result "
                             "types differ");
    grads[0] = resultGrads[0];
    return success();
  }
};

/// shard.all_gather: the gradient of the input is the sum over the group of
/// the processes' gradients of the result, each keeping its own part.
struct AllGatherGradientModel
    : public DifferentiableOpInterface::ExternalModel<AllGatherGradientModel,
                                                      shard::AllGatherOp> {
  LogicalResult buildGradients(Operation *op, OpBuilder &b,
                               ValueRange resultGrads, ArrayRef<bool> needed,
                               SmallVectorImpl<Value> &grads) const {
    auto gather = cast<shard::AllGatherOp>(op);
    grads.assign(1, Value());
    if (!needed[0] || !resultGrads[0])
      return success();
    grads[0] = shard::ReduceScatterOp::create(
        b, gradLoc(op), gather.getInput().getType(), gather.getGridAttr(),
        gather.getGridAxesAttr(), resultGrads[0],
        shard::ReductionKindAttr::get(op->getContext(),
                                      shard::ReductionKind::Sum),
        gather.getGatherAxisAttr());
    return success();
  }
};

/// shard.reduce_scatter (sum): the gradient of the input is the gathered
/// gradient of the result.
struct ReduceScatterGradientModel
    : public DifferentiableOpInterface::ExternalModel<
          ReduceScatterGradientModel, shard::ReduceScatterOp> {
  LogicalResult buildGradients(Operation *op, OpBuilder &b,
                               ValueRange resultGrads, ArrayRef<bool> needed,
                               SmallVectorImpl<Value> &grads) const {
    auto scatter = cast<shard::ReduceScatterOp>(op);
    grads.assign(1, Value());
    if (!needed[0] || !resultGrads[0])
      return success();
    if (scatter.getReduction() != shard::ReductionKind::Sum)
      return op->emitOpError("has no gradient rule: only sum reduce-scatters "
                             "are differentiable");
    grads[0] = shard::AllGatherOp::create(
        b, gradLoc(op), scatter.getInput().getType(), scatter.getGridAttr(),
        scatter.getGridAxesAttr(), resultGrads[0],
        scatter.getScatterAxisAttr());
    return success();
  }
};

/// The cost of a shard collective: no FLOPs counted, and the staging
/// buffer its lowering (ShardToCalls.cpp) needs when it gathers or scatters
/// along a dimension other than the first: the runtimes move contiguous
/// chunks, so a gather receives into a [group, input...] buffer and
/// transposes it into the result, and a reduce-scatter transposes its input
/// into such a buffer before sending.
template <typename OpTy>
struct CollectiveCostModel
    : public CostOpInterface::ExternalModel<CollectiveCostModel<OpTy>, OpTy> {
  int64_t getFlops(Operation *op) const { return 0; }

  SmallVector<int64_t> getWorkspaceBuffers(Operation *op) const {
    if (auto gather = dyn_cast<shard::AllGatherOp>(op)) {
      if (gather.getGatherAxis().isZero())
        return {};
      return {getTensorBytes(gather.getResult().getType())};
    }
    if (auto scatter = dyn_cast<shard::ReduceScatterOp>(op)) {
      if (scatter.getScatterAxis().isZero())
        return {};
      return {getTensorBytes(scatter.getInput().getType())};
    }
    return {};
  }

  int64_t getWorkspaceBytes(Operation *op) const {
    int64_t bytes = 0;
    for (int64_t buffer : getWorkspaceBuffers(op))
      bytes += buffer;
    return bytes;
  }
};

} // namespace

void mlir::memopt::train::registerShardGradientModels(
    DialectRegistry &registry) {
  registry.addExtension(+[](MLIRContext *context, shard::ShardDialect *) {
    shard::AllReduceOp::attachInterface<AllReduceGradientModel>(*context);
    shard::AllGatherOp::attachInterface<AllGatherGradientModel>(*context);
    shard::ReduceScatterOp::attachInterface<ReduceScatterGradientModel>(
        *context);
    shard::AllReduceOp::attachInterface<
        CollectiveCostModel<shard::AllReduceOp>>(*context);
    shard::AllGatherOp::attachInterface<
        CollectiveCostModel<shard::AllGatherOp>>(*context);
    shard::ReduceScatterOp::attachInterface<
        CollectiveCostModel<shard::ReduceScatterOp>>(*context);
  });
}
