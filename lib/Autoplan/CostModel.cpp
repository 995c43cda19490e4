//===- CostModel.cpp - mem-autoplan's cost model --------------------------===//
//
// The time of a candidate's step (docs/autoplan.md): each op by the roofline
// over the device profile, each collective by its ring time over the link its
// group spans, nothing overlapped; the optimizer updates once per step, the
// rest once per micro-batch.
//
//===----------------------------------------------------------------------===//

#include "memopt/Autoplan/Autoplan.h"

#include "memopt/Dialect/Train/IR/TrainInterfaces.h"
#include "memopt/Dialect/Train/IR/TrainOps.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Shard/IR/ShardOps.h"
#include "mlir/IR/SymbolTable.h"

#include <algorithm>

using namespace mlir;
using namespace mlir::memopt;
using namespace mlir::memopt::autoplan;

/// The seconds `op` takes by the roofline: its FLOPs at the peak rate of the
/// unit it runs on, or its bytes at the HBM bandwidth, whichever is longer.
static double getOpSeconds(train::CostOpInterface cost,
                           const DeviceProfile &device) {
  Operation *op = cost.getOperation();
  double flops = static_cast<double>(cost.getFlops());
  double rate = device.fp32Flops;
  // Matmuls, convolutions and attention run on tensor cores at their
  // operands' type (fp8 matmuls read fp8 operands).
  if (isa<train::MatmulOp, train::ScaledMatmulOp, train::AttentionOp,
          train::AttentionGradOp, train::Conv2dOp, train::Conv2dGradInputOp,
          train::Conv2dGradFilterOp>(op)) {
    Type elementType = getElementTypeOrSelf(op->getOperand(0).getType());
    double tensorRate = device.getTensorCoreFlops(elementType);
    if (tensorRate > 0)
      rate = tensorRate;
  }
  double bytes =
      static_cast<double>(cost.getBytesRead() + cost.getBytesWritten());
  return std::max(flops / rate, bytes / device.hbmBytesPerSecond);
}

StepCost
mlir::memopt::autoplan::estimateStepCost(func::FuncOp step,
                                         const DeviceProfile &device,
                                         int64_t gradientAccumulation) {
  StepCost cost;
  double microSeconds = 0, recomputeSeconds = 0, tpSeconds = 0, dpSeconds = 0,
         optimizerSeconds = 0, stepCommSeconds = 0;
  int64_t microFlops = 0, stepFlops = 0, recomputeFlops = 0, microSent = 0,
          stepSent = 0;
  // ZeRO 1 and 2 keep whole weights between steps: their data-parallel
  // gathers of the updated parts run once per step. ZeRO 3 gathers for
  // every micro-batch.
  int64_t zero = 0;
  if (auto config = step->getAttrOfType<DictionaryAttr>(
          train::TrainDialect::kShardAttrName))
    if (auto attr = dyn_cast_or_null<IntegerAttr>(config.get("zero")))
      zero = attr.getInt();
  step.walk([&](Operation *op) {
    bool recomputed = op->hasAttr(train::TrainDialect::kRecomputedAttrName);
    if (isa<shard::AllReduceOp, shard::AllGatherOp, shard::ReduceScatterOp>(
            op)) {
      auto gridAttr = op->getAttrOfType<FlatSymbolRefAttr>("grid");
      auto grid = gridAttr
                      ? SymbolTable::lookupNearestSymbolFrom<shard::GridOp>(
                            op, gridAttr.getAttr())
                      : shard::GridOp();
      if (!grid || ShapedType::isDynamicShape(grid.getShape()))
        return;
      ArrayRef<int64_t> shape = grid.getShape();
      ArrayRef<int16_t> axes;
      if (auto attr = op->getAttrOfType<DenseI16ArrayAttr>("grid_axes"))
        axes = attr.asArrayRef();
      // Processes are numbered row-major (the last axis fastest): the group
      // of process 0 reaches process sum((extent - 1) * stride), and spans
      // nodes when that process is outside process 0's node.
      int64_t groupSize = 1, farthest = 0;
      bool dataParallel = false;
      for (int16_t axis : axes) {
        int64_t stride = 1;
        for (size_t i = axis + 1; i < shape.size(); ++i)
          stride *= shape[i];
        groupSize *= shape[axis];
        farthest += (shape[axis] - 1) * stride;
        dataParallel |= axis == 0;
      }
      if (groupSize <= 1)
        return;
      int64_t bytes =
          std::max(train::getTensorBytes(op->getOperand(0).getType()),
                   train::getTensorBytes(op->getResult(0).getType()));
      int64_t sent = (isa<shard::AllReduceOp>(op) ? 2 : 1) * bytes *
                     (groupSize - 1) / groupSize;
      double bandwidth = farthest >= device.devicesPerNode
                             ? device.interNodeBytesPerSecond
                             : device.intraNodeBytesPerSecond;
      double seconds = static_cast<double>(sent) / bandwidth;
      if (dataParallel && (zero == 1 || zero == 2) &&
          isa<shard::AllGatherOp>(op)) {
        stepSent += sent;
        stepCommSeconds += seconds;
        return;
      }
      microSent += sent;
      microSeconds += seconds;
      (dataParallel ? dpSeconds : tpSeconds) += seconds;
      if (recomputed)
        recomputeSeconds += seconds;
      return;
    }
    auto costOp = dyn_cast<train::CostOpInterface>(op);
    if (!costOp)
      return;
    double seconds = getOpSeconds(costOp, device);
    int64_t flops = costOp.getFlops();
    // The updates run once per optimizer step; everything else (gradient
    // accumulation included) once per micro-batch.
    if (isa<train::SgdOp, train::AdamOp, train::AdamWOp>(op)) {
      optimizerSeconds += seconds;
      stepFlops += flops;
      return;
    }
    microSeconds += seconds;
    microFlops += flops;
    if (recomputed) {
      recomputeSeconds += seconds;
      recomputeFlops += flops;
    }
  });
  cost.microBatchSeconds = microSeconds;
  cost.recomputeSeconds = recomputeSeconds;
  cost.tensorParallelSeconds = tpSeconds;
  cost.dataParallelSeconds = dpSeconds;
  cost.optimizerSeconds = optimizerSeconds + stepCommSeconds;
  cost.stepSeconds =
      microSeconds * gradientAccumulation + cost.optimizerSeconds;
  cost.flops = microFlops * gradientAccumulation + stepFlops;
  cost.recomputeFlops = recomputeFlops * gradientAccumulation;
  cost.sentBytes = microSent * gradientAccumulation + stepSent;
  return cost;
}
