//===- TrainShard.cpp - one process's program of a dp x tp grid -----------===//
//
// train-shard rewrites a forward + loss function (or a whole step, through
// its forward pass) into the program each process of a `dp x tp` grid runs:
//
//   1. Data parallelism: every argument is split along dimension 0 over grid
//      axis 0; everything computed from an argument is split along its
//      batch dimension too (dimension 0, or where a transpose moved it).
//      The returned loss is averaged over the axis.
//   2. Tensor parallelism (Megatron-LM): the pass finds column-parallel
//      regions by simulation. Every matmul that reads a parameter (or a cast
//      of one) used nowhere else, and a replicated activation, starts a
//      candidate region; its result is split along its last dimension, and
//      the split follows the users (per-head and per-column ops) until
//      row-parallel matmuls end it. A region that reaches an op with no
//      rule (a layer norm, a loss, an add with a replicated value) is
//      dropped, and the simulation runs again without it, until every
//      remaining region closes. An attention with fewer KV heads than tp
//      (a divisor of it) keeps one KV head per process: the projections
//      of its keys and values split over the KV heads only, and the grid's
//      tensor-parallel axis becomes two (KV heads x replicas of each).
//   3. The rewrite retypes every value to its per-process shape in place,
//      localizes slice offsets, splits the parameters (`train.split` tells
//      the runtime which part of the whole tensor each process holds), and
//      inserts Megatron's f (`train.copy_to_parallel`) before the
//      column-parallel matmuls and g (`shard.all_reduce`) after the
//      row-parallel ones.
//
// This file holds the pass: its checks of the options and the program, and
// the partition of each function (a step through its forward pass). The
// Sharder plans a function (TrainShardPlan.cpp: steps 1 and 2, sequence and
// vocabulary parallelism) and rewrites it (TrainShardRewrite.cpp: step 3);
// each op's tensor-parallel rule is its ShardPropagationOpInterface model
// (ShardingModels.cpp).
//
//===----------------------------------------------------------------------===//

#include "TrainShardInternal.h"

#include "memopt/Dialect/Train/IR/Precision.h"
#include "memopt/Dialect/Train/IR/TrainOps.h"
#include "memopt/Dialect/Train/IR/TrainStep.h"
#include "memopt/Transforms/Autodiff.h"
#include "memopt/Transforms/PassOptions.h"
#include "memopt/Transforms/Passes.h"
#include "memopt/Transforms/ShardingInterface.h"

#include "mlir/Dialect/Shard/IR/ShardOps.h"
#include "mlir/IR/DialectRegistry.h"

namespace mlir::memopt {
#define GEN_PASS_DEF_TRAINSHARDPASS
#include "memopt/Transforms/Passes.h.inc"
} // namespace mlir::memopt

using namespace mlir;
using namespace mlir::memopt;
using namespace mlir::memopt::detail;

/// Whether `func` reads a weight through a dequantize op.
static bool hasQuantizedWeights(func::FuncOp func) {
  return func
      .walk([](Operation *op) {
        return isa<train::DequantizeNF4Op, train::DequantizeInt8Op>(op)
                   ? WalkResult::interrupt()
                   : WalkResult::advance();
      })
      .wasInterrupted();
}

namespace {

/// A function train-shard partitions: a forward + loss function in place,
/// or a step through a clone of its forward pass, whose backward pass is
/// derived again once the clone is partitioned.
struct ShardJob {
  func::FuncOp target;
  func::FuncOp forward;
  std::optional<AutodiffOptions> options;
  std::unique_ptr<Sharder> sharder;

  ShardJob() = default;
  ShardJob(const ShardJob &) = delete;
  ShardJob &operator=(const ShardJob &) = delete;
  ~ShardJob() {
    if (forward && forward != target)
      forward->erase();
  }
};

} // namespace

/// Prepares the partition of `func`: for a step, the clone of its forward
/// pass (after checking that the step is derived from it).
static LogicalResult prepareJob(func::FuncOp func, ShardJob &job) {
  job.target = func;
  if (!isTrainingStep(func)) {
    job.forward = func;
    return success();
  }
  FailureOr<AutodiffOptions> options = inferAutodiffOptions(func);
  if (failed(options))
    return failure();
  job.options = *options;
  job.forward = cast<func::FuncOp>(func->clone());
  eraseBackward(job.forward);
  FailureOr<bool> derived = isDerivedFrom(func, job.forward, *options);
  if (failed(derived))
    return failure();
  if (!*derived)
    return mlir::emitError(func.getLoc())
           << "train-shard: @" << func.getSymName()
           << " is not the step train-autodiff derives from its forward "
              "pass (another pass or a hand edit changed it); apply "
              "train-shard to the forward + loss function, or to the step "
              "train-autodiff (and train-precision) produced, before other "
              "passes";
  return success();
}

/// Rewrites the planned function; a step takes the partitioned forward pass
/// and its derived backward pass.
static LogicalResult finishJob(ShardJob &job, int64_t replicas) {
  if (failed(job.sharder->rewrite(replicas)))
    return failure();
  if (!job.options)
    return success();
  if (failed(appendBackward(job.forward, *job.options)))
    return failure();
  func::FuncOp step = job.target;
  step.getBody().takeBody(job.forward.getBody());
  step.setType(job.forward.getFunctionType());
  step->setAttrs(job.forward->getAttrDictionary());
  return success();
}

namespace {

struct TrainShardPass
    : public memopt::impl::TrainShardPassBase<TrainShardPass> {
  using Base::Base;

  void getDependentDialects(DialectRegistry &registry) const override {
    Base::getDependentDialects(registry);
    // The train ops' tensor-parallel rules, and the gradients of the shard
    // collectives the pass inserts (a whole step is differentiated again).
    registerShardingInterfaceModels(registry);
    train::registerShardGradientModels(registry);
  }

  /// Textual options fail as option errors, before any IR is read.
  LogicalResult initializeOptions(
      StringRef options,
      function_ref<LogicalResult(const Twine &)> errorHandler) override {
    if (failed(parseOptionsNamingPass(
            "train-shard", options, errorHandler,
            [&](StringRef text,
                function_ref<LogicalResult(const Twine &)> handler) {
              return Base::initializeOptions(text, handler);
            })))
      return failure();
    return checkShardOptions("train-shard", tp, dp, zero, sequenceParallel,
                             errorHandler);
  }

  void runOnOperation() override {
    ModuleOp module = getOperation();
    // Checked again for a pass built from TrainShardPassOptions.
    if (failed(checkShardOptions("train-shard", tp, dp, zero, sequenceParallel,
                                 [&](const Twine &message) -> LogicalResult {
                                   return module.emitError(message);
                                 })))
      return signalPassFailure();
    SmallVector<func::FuncOp> funcs;
    for (auto func : module.getOps<func::FuncOp>())
      if (!func.isExternal() && train::findTrainOp(func))
        funcs.push_back(func);
    for (func::FuncOp func : funcs) {
      if (func->hasAttr(train::TrainDialect::kShardAttrName)) {
        func.emitOpError("was already partitioned by train-shard; apply it "
                         "once, to the whole program");
        return signalPassFailure();
      }
    }
    // One process: the program is already that process's.
    if (funcs.empty() || (tp == 1 && dp == 1))
      return;
    if (Operation *existing = module.lookupSymbol(kGridName)) {
      existing->emitOpError()
          << "is named @" << kGridName
          << ", the grid train-shard creates; rename it or shard once";
      return signalPassFailure();
    }
    for (func::FuncOp func : funcs) {
      if (!func.getBody().hasOneBlock()) {
        func.emitOpError("expected a single-block function");
        return signalPassFailure();
      }
      if (failed(train::verifyNotLowered(func, "train-shard")))
        return signalPassFailure();
      // Quantized storage (train-quantize-frozen) has no partitioning rule:
      // a tensor-parallel layer would need its part of the codes and
      // scales, ZeRO would gather storage the dequantize op reads whole.
      if ((tp > 1 || zero > 0) && hasQuantizedWeights(func)) {
        func.emitOpError()
            << "train-shard: reads frozen weights stored quantized "
               "(train-quantize-frozen), which "
            << (tp > 1 ? "tensor parallelism (tp > 1)"
                       : "zero=" + std::to_string(zero))
            << " cannot partition; use data parallelism with zero=0";
        return signalPassFailure();
      }
      std::optional<train::PrecisionConfig> precision =
          train::getPrecisionConfig(func);
      if ((zero > 0 || sequenceParallel) && precision &&
          precision->lossScaling == train::LossScaling::Dynamic) {
        emitError(func.getLoc())
            << "train-shard: @" << func.getSymName()
            << " has dynamic loss scaling, which train-shard cannot combine "
               "with "
            << (zero > 0 ? "zero=" + std::to_string(zero)
                         : std::string("sequence-parallel"))
            << ": each process would check only its part of the gradients "
               "for inf/NaN, and the processes could disagree on skipping a "
               "step; use static loss scaling or bf16";
        return signalPassFailure();
      }
    }
    // Plan every function first: replicated KV heads add a grid axis,
    // which all of them then use.
    SmallVector<std::unique_ptr<ShardJob>> jobs;
    int64_t replicas = 1;
    func::FuncOp replicating;
    for (func::FuncOp func : funcs) {
      ShardJob &job = *jobs.emplace_back(std::make_unique<ShardJob>());
      if (failed(prepareJob(func, job)))
        return signalPassFailure();
      job.sharder = std::make_unique<Sharder>(job.forward, dp, tp, zero,
                                              sequenceParallel, vocabParallel);
      if (failed(job.sharder->analyze()))
        return signalPassFailure();
      int64_t needed = job.sharder->getReplicas();
      if (needed == 1)
        continue;
      if (replicas > 1 && needed != replicas) {
        func.emitOpError()
            << "replicates each KV head over " << needed << " processes, but @"
            << replicating.getSymName() << " over " << replicas
            << "; train-shard partitions a module's functions on one grid";
        return signalPassFailure();
      }
      replicas = needed;
      replicating = func;
    }
    OpBuilder builder(module.getBodyRegion());
    builder.setInsertionPointToStart(module.getBody());
    SmallVector<int64_t> shape = {dp, tp};
    if (replicas > 1)
      shape = {dp, tp / replicas, replicas};
    shard::GridOp::create(builder, module.getLoc(), kGridName, shape);
    for (std::unique_ptr<ShardJob> &job : jobs)
      if (failed(finishJob(*job, replicas)))
        return signalPassFailure();
  }
};

} // namespace
