//===- CostModel.cpp - mem-autoplan's cost model --------------------------===//
//
// The time of a candidate's step (docs/autoplan.md): each op by the roofline
// over the device profile, each collective by its ring time over the link its
// group spans, nothing overlapped; the optimizer updates once per step, the
// rest once per micro-batch.
//
//===----------------------------------------------------------------------===//

#include "memopt/Autoplan/Autoplan.h"
#include "memopt/Transforms/RematStrategies.h"

#include "memopt/Dialect/Train/IR/TrainInterfaces.h"
#include "memopt/Dialect/Train/IR/TrainOps.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Shard/IR/ShardOps.h"
#include "mlir/IR/SymbolTable.h"

#include <algorithm>

using namespace mlir;
using namespace mlir::memopt;
using namespace mlir::memopt::autoplan;

/// The process distance of one step along each axis of `shape`. Processes
/// are numbered row-major (the last axis fastest), except in a pipeline
/// stage (`pipelineAxis`, train-pipeline's last axis): Megatron-LM places
/// the tensor-parallel processes of a stage next to each other, then the
/// stages, then the data-parallel replicas, so the axis before the
/// pipeline's is taken as the fastest and the pipeline's as the next.
static SmallVector<int64_t> getAxisStrides(ArrayRef<int64_t> shape,
                                           std::optional<int64_t> pipeline) {
  SmallVector<int64_t> order; // fastest first
  for (int64_t axis = shape.size() - 1; axis >= 0; --axis)
    order.push_back(axis);
  if (pipeline && *pipeline > 0 && *pipeline == int64_t(shape.size()) - 1)
    std::swap(order[0], order[1]);
  SmallVector<int64_t> strides(shape.size(), 1);
  int64_t stride = 1;
  for (int64_t axis : order) {
    strides[axis] = stride;
    stride *= shape[axis];
  }
  return strides;
}

namespace {
/// The sums estimateStepCost collects over a step's ops.
struct CostSums {
  double microSeconds = 0, recomputeSeconds = 0, tpSeconds = 0, dpSeconds = 0,
         p2pSeconds = 0, optimizerSeconds = 0, stepCommSeconds = 0,
         hostSeconds = 0, hostMicroSeconds = 0;
  bool copies = false;
  int64_t microFlops = 0, stepFlops = 0, recomputeFlops = 0, microSent = 0,
          stepSent = 0;
};
} // namespace

/// Adds collective `op` (all_reduce, all_gather, reduce_scatter) of a step
/// with ZeRO stage `zero` to `sums`; in a pipeline stage (`pipeline`, the
/// stages' axis) the data-parallel collectives run once per step.
static void addCollective(Operation *op, const DeviceProfile &device,
                          int64_t zero, std::optional<int64_t> pipeline,
                          CostSums &sums) {
  auto gridAttr = op->getAttrOfType<FlatSymbolRefAttr>("grid");
  auto grid = gridAttr ? SymbolTable::lookupNearestSymbolFrom<shard::GridOp>(
                             op, gridAttr.getAttr())
                       : shard::GridOp();
  if (!grid || ShapedType::isDynamicShape(grid.getShape()))
    return;
  ArrayRef<int64_t> shape = grid.getShape();
  ArrayRef<int16_t> axes;
  if (auto attr = op->getAttrOfType<DenseI16ArrayAttr>("grid_axes"))
    axes = attr.asArrayRef();
  // The group of process 0 reaches process sum((extent - 1) * stride), and
  // spans nodes when that process is outside process 0's node.
  SmallVector<int64_t> strides = getAxisStrides(shape, pipeline);
  int64_t groupSize = 1, farthest = 0;
  bool dataParallel = false;
  for (int16_t axis : axes) {
    groupSize *= shape[axis];
    farthest += (shape[axis] - 1) * strides[axis];
    dataParallel |= axis == 0;
  }
  if (groupSize <= 1)
    return;
  int64_t bytes = std::max(train::getTensorBytes(op->getOperand(0).getType()),
                           train::getTensorBytes(op->getResult(0).getType()));
  int64_t sent = (isa<shard::AllReduceOp>(op) ? 2 : 1) * bytes *
                 (groupSize - 1) / groupSize;
  double bandwidth = farthest >= device.devicesPerNode
                         ? device.interNodeBytesPerSecond
                         : device.intraNodeBytesPerSecond;
  double seconds = static_cast<double>(sent) / bandwidth;
  if (dataParallel &&
      (pipeline || ((zero == 1 || zero == 2) && isa<shard::AllGatherOp>(op)))) {
    sums.stepSent += sent;
    sums.stepCommSeconds += seconds;
    return;
  }
  sums.microSent += sent;
  sums.microSeconds += seconds;
  (dataParallel ? sums.dpSeconds : sums.tpSeconds) += seconds;
  if (op->hasAttr(train::TrainDialect::kRecomputedAttrName))
    sums.recomputeSeconds += seconds;
}

/// Adds a pipeline stage's transfer `p2p` to `sums`: its sent bytes over
/// NVLink while the stages of one pipeline (`processes`, Megatron-LM's
/// placement) fit in a node, else over the network, which then paces the
/// boundary that crosses nodes.
static void addTransfer(train::P2POp p2p, const DeviceProfile &device,
                        int64_t processes, CostSums &sums) {
  int64_t sent = 0;
  for (Value value : p2p.getSends())
    sent += train::getTensorBytes(value.getType());
  double bandwidth = processes > device.devicesPerNode
                         ? device.interNodeBytesPerSecond
                         : device.intraNodeBytesPerSecond;
  double seconds = static_cast<double>(sent) / bandwidth;
  sums.microSent += sent;
  sums.microSeconds += seconds;
  sums.p2pSeconds += seconds;
}

/// Whether `step` is a pipeline stage of the ZB-H1 schedule.
static bool isZeroBubbleStage(func::FuncOp step) {
  auto config = step->getAttrOfType<DictionaryAttr>(
      train::TrainDialect::kPipelineAttrName);
  auto schedule =
      config ? dyn_cast_or_null<StringAttr>(config.get("schedule")) : nullptr;
  return schedule && parsePipelineSchedule(schedule.getValue()) ==
                         PipelineSchedule::ZeroBubbleH1;
}

/// The seconds of a stage's weight-gradient parts: the ops but the updates
/// that neither a transfer nor the returned loss depends on (what ZB-H1
/// defers: the parameters' gradients and their sums over the
/// micro-batches), as train-pipeline splits them.
static double getWeightGradientSeconds(func::FuncOp step,
                                       const DeviceProfile &device) {
  llvm::DenseSet<Operation *> needed;
  SmallVector<Operation *> worklist;
  step.walk([&](Operation *op) {
    if (isa<train::P2POp, func::ReturnOp>(op))
      worklist.push_back(op);
  });
  while (!worklist.empty()) {
    Operation *op = worklist.pop_back_val();
    if (!needed.insert(op).second)
      continue;
    for (Value operand : op->getOperands())
      if (Operation *def = operand.getDefiningOp())
        worklist.push_back(def);
  }
  double seconds = 0;
  step.walk([&](train::CostOpInterface op) {
    if (!needed.contains(op) &&
        !isa<train::SgdOp, train::AdamOp, train::AdamWOp>(op.getOperation()))
      seconds += estimateOpSeconds(op, device);
  });
  return seconds;
}

StepCost
mlir::memopt::autoplan::estimateStepCost(func::FuncOp step,
                                         const DeviceProfile &device,
                                         int64_t gradientAccumulation) {
  // ZeRO 1 and 2 keep whole weights between steps: their data-parallel
  // gathers of the updated parts run once per step. ZeRO 3 gathers for
  // every micro-batch.
  int64_t zero = 0;
  if (auto config = step->getAttrOfType<DictionaryAttr>(
          train::TrainDialect::kShardAttrName))
    if (auto attr = dyn_cast_or_null<IntegerAttr>(config.get("zero")))
      zero = attr.getInt();
  // A pipeline stage: the stages' axis, and the processes of one pipeline
  // (all axes but the first, data-parallel one, when train-shard made it).
  std::optional<int64_t> pipeline;
  int64_t pipelineProcesses = 1;
  if (auto config = step->getAttrOfType<DictionaryAttr>(
          train::TrainDialect::kPipelineAttrName)) {
    if (auto axis = dyn_cast_or_null<IntegerAttr>(config.get("axis")))
      pipeline = axis.getInt();
    auto name = dyn_cast_or_null<FlatSymbolRefAttr>(config.get("grid"));
    auto grid = name ? SymbolTable::lookupNearestSymbolFrom<shard::GridOp>(
                           step, name.getAttr())
                     : shard::GridOp();
    if (grid && !ShapedType::isDynamicShape(grid.getShape())) {
      ArrayRef<int64_t> shape = grid.getShape();
      for (size_t i = shape.size() > 1 ? 1 : 0; i < shape.size(); ++i)
        pipelineProcesses *= shape[i];
    }
  }
  CostSums sums;
  step.walk([&](Operation *op) {
    if (isa<shard::AllReduceOp, shard::AllGatherOp, shard::ReduceScatterOp>(
            op)) {
      addCollective(op, device, zero, pipeline, sums);
      return;
    }
    if (auto p2p = dyn_cast<train::P2POp>(op)) {
      addTransfer(p2p, device, pipelineProcesses, sums);
      return;
    }
    if (isa<train::ToHostOp, train::ToDeviceOp>(op)) {
      sums.copies = true;
      return;
    }
    auto costOp = dyn_cast<train::CostOpInterface>(op);
    if (!costOp)
      return;
    int64_t flops = costOp.getFlops();
    // The device's copies of the weights kept across micro-batches
    // (train.refresh): once a step, the host's conversion at its memory
    // bandwidth and the copy over the host link.
    if (auto refresh = dyn_cast<train::RefreshOp>(op)) {
      auto copyBytes = static_cast<double>(
          train::getTensorBytes(refresh.getCopy().getType()));
      if (device.hostMemoryBytesPerSecond > 0)
        sums.hostSeconds += (static_cast<double>(train::getTensorBytes(
                                 refresh.getMaster().getType())) +
                             copyBytes) /
                            device.hostMemoryBytesPerSecond;
      if (device.hostLinkBytesPerSecond > 0)
        sums.hostSeconds += copyBytes / device.hostLinkBytesPerSecond;
      sums.stepFlops += flops;
      return;
    }
    // The host's ops (the offloaded updates) are bound by its memory. The
    // updates run once per optimizer step; the others (the casts of the
    // weights, gradient accumulation) once per micro-batch.
    if (train::isHostOp(op)) {
      bool update = isa<train::SgdOp, train::AdamOp, train::AdamWOp>(op);
      if (device.hostMemoryBytesPerSecond > 0)
        (update ? sums.hostSeconds : sums.hostMicroSeconds) +=
            static_cast<double>(costOp.getBytesRead() +
                                costOp.getBytesWritten()) /
            device.hostMemoryBytesPerSecond;
      (update ? sums.stepFlops : sums.microFlops) += flops;
      return;
    }
    double seconds = estimateOpSeconds(costOp, device);
    // The updates run once per optimizer step; everything else (gradient
    // accumulation included) once per micro-batch.
    if (isa<train::SgdOp, train::AdamOp, train::AdamWOp>(op)) {
      sums.optimizerSeconds += seconds;
      sums.stepFlops += flops;
      return;
    }
    sums.microSeconds += seconds;
    sums.microFlops += flops;
    if (op->hasAttr(train::TrainDialect::kRecomputedAttrName)) {
      sums.recomputeSeconds += seconds;
      sums.recomputeFlops += flops;
    }
  });
  StepCost cost;
  if (isZeroBubbleStage(step))
    cost.weightGradientSeconds = getWeightGradientSeconds(step, device);
  // The copies to and from the host: the part the compute does not hide,
  // by train-remat's overlap model.
  if (sums.copies && device.hostLinkBytesPerSecond > 0) {
    StepTime time =
        estimateStepTime(step, {device, device.hostLinkBytesPerSecond});
    cost.hostLinkSeconds = std::max(0.0, time.seconds - time.computeSeconds);
    sums.microSeconds += cost.hostLinkSeconds;
  }
  cost.hostSeconds =
      sums.hostSeconds + sums.hostMicroSeconds * gradientAccumulation;
  cost.microBatchSeconds = sums.microSeconds;
  cost.recomputeSeconds = sums.recomputeSeconds;
  cost.tensorParallelSeconds = sums.tpSeconds;
  cost.dataParallelSeconds = sums.dpSeconds;
  cost.pipelineSeconds = sums.p2pSeconds;
  cost.optimizerSeconds = sums.optimizerSeconds + sums.stepCommSeconds;
  cost.stepSeconds = sums.microSeconds * gradientAccumulation +
                     cost.optimizerSeconds + cost.hostSeconds;
  cost.microBatchFlops = sums.microFlops;
  cost.microBatchSentBytes = sums.microSent;
  cost.flops = sums.microFlops * gradientAccumulation + sums.stepFlops;
  cost.recomputeFlops = sums.recomputeFlops * gradientAccumulation;
  cost.sentBytes = sums.microSent * gradientAccumulation + sums.stepSent;
  return cost;
}

StepCost mlir::memopt::autoplan::estimatePipelineCost(
    ArrayRef<StepCost> stageCosts, int64_t built, int64_t microBatches,
    int64_t stages, PipelineSchedule schedule, int64_t virtualStages) {
  StepCost cost;
  if (stageCosts.empty() || built < 1)
    return cost;
  // The slowest stage per micro-batch paces every slot of the schedule.
  // A stage with its optimizer on the host copies its weights in and its
  // summed gradients out once a step (a stage sums its micro-batches'
  // gradients itself), and its host runs the updates once a step: per-step
  // time, after the schedule's slots, as the updates on the device.
  auto slotSeconds = [](const StepCost &stage) {
    return stage.microBatchSeconds - stage.hostLinkSeconds;
  };
  const StepCost *slowest = &stageCosts.front();
  double optimizerSeconds = 0;
  for (const StepCost &stage : stageCosts) {
    if (slotSeconds(stage) > slotSeconds(*slowest))
      slowest = &stage;
    optimizerSeconds = std::max(optimizerSeconds, stage.optimizerSeconds);
    cost.hostSeconds = std::max(cost.hostSeconds, stage.hostSeconds);
    cost.hostLinkSeconds =
        std::max(cost.hostLinkSeconds, stage.hostLinkSeconds);
  }
  double perBuilt = 1.0 / static_cast<double>(built);
  cost.microBatchSeconds = slotSeconds(*slowest) * perBuilt;
  cost.recomputeSeconds = slowest->recomputeSeconds * perBuilt;
  cost.tensorParallelSeconds = slowest->tensorParallelSeconds * perBuilt;
  cost.dataParallelSeconds = slowest->dataParallelSeconds * perBuilt;
  cost.pipelineSeconds = slowest->pipelineSeconds * perBuilt;
  cost.optimizerSeconds = optimizerSeconds;
  // The idle slots: a chunk's pass is 1/v of a slot interleaved; ZB-H1's
  // weight parts fill the cool-down, (p - 1)(F + B - W) of Qi et al., with
  // W the least weight-gradient share of a built stage's time (the first
  // stage sends no gradient back, so all its backward pass counts as
  // weight parts; a later stage's share is the layers').
  double idle = cost.microBatchSeconds;
  if (schedule == PipelineSchedule::Interleaved) {
    idle /= static_cast<double>(virtualStages);
  } else if (schedule == PipelineSchedule::ZeroBubbleH1 &&
             microBatches >= stages) {
    // (With fewer micro-batches than stages there is no steady state whose
    // deferred weight parts could fill the cool-down: 1F1B's bubble.)
    double share = 1.0;
    for (const StepCost &stage : stageCosts)
      if (slotSeconds(stage) > 0)
        share =
            std::min(share, stage.weightGradientSeconds / slotSeconds(stage));
    cost.weightGradientSeconds = share * cost.microBatchSeconds;
    idle = std::max(0.0, idle - 2 * cost.weightGradientSeconds);
  }
  cost.bubbleSeconds = static_cast<double>(stages - 1) * idle;
  double hostStepSeconds = 0;
  for (const StepCost &stage : stageCosts)
    hostStepSeconds =
        std::max(hostStepSeconds, stage.hostSeconds + stage.hostLinkSeconds);
  cost.stepSeconds =
      static_cast<double>(microBatches) * cost.microBatchSeconds +
      cost.bubbleSeconds + optimizerSeconds + hostStepSeconds;
  // The slowest stage's work per process: its micro-batches' part scaled
  // from the built ones to all (exact: every micro-batch is the same ops).
  int64_t stepFlops = slowest->flops - slowest->microBatchFlops;
  int64_t stepSent = slowest->sentBytes - slowest->microBatchSentBytes;
  cost.microBatchFlops = slowest->microBatchFlops / built;
  cost.microBatchSentBytes = slowest->microBatchSentBytes / built;
  cost.flops = cost.microBatchFlops * microBatches + stepFlops;
  cost.recomputeFlops = slowest->recomputeFlops / built * microBatches;
  cost.sentBytes = cost.microBatchSentBytes * microBatches + stepSent;
  return cost;
}
