//===- EmulateLaunches.cpp - gpu.launch bodies as CPU loops ---------------===//
//
// Each gpu.launch becomes loops over its blocks and, per block, over its
// threads, which run the body one after another. A top-level
// gpu.all_reduce splits a block's work into phases: every thread runs the
// body up to the all-reduce and leaves its operand in an array; the array is
// folded in thread order; the next phase runs the body again with the
// all-reduce replaced by the fold. Re-running the ops before an all-reduce
// is only harmless when they write nothing, which is checked.
//
//===----------------------------------------------------------------------===//

#include "memopt/Conversion/Passes.h"

#include "mlir/Dialect/Utils/StaticValueUtils.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"

namespace mlir::memopt {
#define GEN_PASS_DEF_MEMOPTGPUEMULATELAUNCHESPASS
#include "memopt/Conversion/Passes.h.inc"
} // namespace mlir::memopt

using namespace mlir;

/// Whether `op` (or an op nested in it) may write or free memory.
static bool mayWrite(Operation *op) {
  WalkResult result = op->walk([](Operation *nested) {
    auto effects = dyn_cast<MemoryEffectOpInterface>(nested);
    if (!effects) {
      // Ops that only hold regions (scf.for, scf.if) are judged by their
      // contents; anything else unknown is assumed to write.
      return nested->hasTrait<OpTrait::HasRecursiveMemoryEffects>()
                 ? WalkResult::advance()
                 : WalkResult::interrupt();
    }
    if (effects.hasEffect<MemoryEffects::Write>() ||
        effects.hasEffect<MemoryEffects::Free>())
      return WalkResult::interrupt();
    return WalkResult::advance();
  });
  return result.wasInterrupted();
}

/// `lhs` combined with `rhs` as the all-reduce `kind` does.
static Value combine(OpBuilder &b, Location loc, gpu::AllReduceOperation kind,
                     Value lhs, Value rhs) {
  bool isFloat = isa<FloatType>(lhs.getType());
  switch (kind) {
  case gpu::AllReduceOperation::ADD:
    return isFloat ? arith::AddFOp::create(b, loc, lhs, rhs).getResult()
                   : arith::AddIOp::create(b, loc, lhs, rhs).getResult();
  case gpu::AllReduceOperation::MUL:
    return isFloat ? arith::MulFOp::create(b, loc, lhs, rhs).getResult()
                   : arith::MulIOp::create(b, loc, lhs, rhs).getResult();
  case gpu::AllReduceOperation::MINUI:
    return arith::MinUIOp::create(b, loc, lhs, rhs);
  case gpu::AllReduceOperation::MINSI:
    return arith::MinSIOp::create(b, loc, lhs, rhs);
  case gpu::AllReduceOperation::MINNUMF:
    return arith::MinNumFOp::create(b, loc, lhs, rhs);
  case gpu::AllReduceOperation::MAXUI:
    return arith::MaxUIOp::create(b, loc, lhs, rhs);
  case gpu::AllReduceOperation::MAXSI:
    return arith::MaxSIOp::create(b, loc, lhs, rhs);
  case gpu::AllReduceOperation::MAXNUMF:
    return arith::MaxNumFOp::create(b, loc, lhs, rhs);
  case gpu::AllReduceOperation::AND:
    return arith::AndIOp::create(b, loc, lhs, rhs);
  case gpu::AllReduceOperation::OR:
    return arith::OrIOp::create(b, loc, lhs, rhs);
  case gpu::AllReduceOperation::XOR:
    return arith::XOrIOp::create(b, loc, lhs, rhs);
  case gpu::AllReduceOperation::MINIMUMF:
    return arith::MinimumFOp::create(b, loc, lhs, rhs);
  case gpu::AllReduceOperation::MAXIMUMF:
    return arith::MaximumFOp::create(b, loc, lhs, rhs);
  }
  llvm_unreachable("unknown all-reduce operation");
}

/// Emits `scf.for %i = 0 to %upper step 1` and calls `body` inside it with
/// the induction variable.
static void emitLoop(OpBuilder &b, Location loc, Value upper,
                     function_ref<void(OpBuilder &, Value)> body) {
  Value zero = arith::ConstantIndexOp::create(b, loc, 0);
  Value one = arith::ConstantIndexOp::create(b, loc, 1);
  scf::ForOp::create(b, loc, zero, upper, one, ValueRange(),
                     [&](OpBuilder &nested, Location, Value iv, ValueRange) {
                       body(nested, iv);
                       scf::YieldOp::create(nested, loc);
                     });
}

/// Checks that `launch` can be emulated; returns its synchronization points
/// (top-level all-reduces, in order).
static FailureOr<SmallVector<gpu::AllReduceOp>>
checkLaunch(gpu::LaunchOp launch) {
  if (launch.getAsyncToken() || !launch.getAsyncDependencies().empty())
    return launch.emitError("cannot emulate an asynchronous gpu.launch");
  if (!launch.getWorkgroupAttributions().empty() ||
      !launch.getPrivateAttributions().empty())
    return launch.emitError(
        "cannot emulate a gpu.launch with workgroup or private attributions");
  if (launch.getClusterSizeX())
    return launch.emitError("cannot emulate a gpu.launch with clusters");
  if (!launch.getBody().hasOneBlock())
    return launch.emitError(
        "cannot emulate a gpu.launch whose body has several blocks");
  Block &body = launch.getBody().front();
  SmallVector<gpu::AllReduceOp> syncs;
  WalkResult walk = body.walk([&](Operation *op) -> WalkResult {
    if (isa<gpu::BarrierOp, gpu::ShuffleOp, gpu::SubgroupReduceOp>(op))
      return op->emitError("cannot be emulated (memopt-gpu-emulate-launches "
                           "handles top-level gpu.all_reduce only)");
    if (auto reduce = dyn_cast<gpu::AllReduceOp>(op)) {
      if (op->getBlock() != &body || !reduce.getOp())
        return op->emitError("cannot be emulated: an all-reduce must be at "
                             "the top level of the launch, in its op form");
      syncs.push_back(reduce);
    }
    return WalkResult::advance();
  });
  if (walk.wasInterrupted())
    return failure();
  if (!syncs.empty())
    for (Operation &op : body) {
      if (&op == syncs.back().getOperation())
        break;
      if (!isa<gpu::AllReduceOp>(op) && mayWrite(&op))
        return op.emitError("writes memory before the launch's last "
                            "gpu.all_reduce, which the emulation re-runs");
    }
  return syncs;
}

/// One array per all-reduce of `launch` (`syncs`), with one element per
/// thread of a block, reused by every block: at the function's entry when
/// the block size is static (no stack growth when the launch sits in a
/// loop), else at the launch.
static SmallVector<Value> createReduceArrays(RewriterBase &rewriter,
                                             gpu::LaunchOp launch,
                                             ArrayRef<gpu::AllReduceOp> syncs) {
  Location loc = launch.getLoc();
  gpu::KernelDim3 blockSize = launch.getBlockSizeOperandValues();
  SmallVector<Value> arrays;
  std::optional<int64_t> x = getConstantIntValue(blockSize.x);
  std::optional<int64_t> y = getConstantIntValue(blockSize.y);
  std::optional<int64_t> z = getConstantIntValue(blockSize.z);
  for (gpu::AllReduceOp sync : syncs) {
    if (x && y && z) {
      auto func = launch->getParentOfType<FunctionOpInterface>();
      rewriter.setInsertionPointToStart(&func.getFunctionBody().front());
      arrays.push_back(memref::AllocaOp::create(
          rewriter, loc, MemRefType::get({*x * *y * *z}, sync.getType())));
    } else {
      rewriter.setInsertionPoint(launch);
      Value threads = arith::MulIOp::create(
          rewriter, loc,
          arith::MulIOp::create(rewriter, loc, blockSize.x, blockSize.y),
          blockSize.z);
      arrays.push_back(memref::AllocaOp::create(
          rewriter, loc,
          MemRefType::get({ShapedType::kDynamic}, sync.getType()),
          ValueRange{threads}));
    }
  }
  return arrays;
}

/// Replaces `launch` by loops over its blocks and threads.
static void emulate(RewriterBase &rewriter, gpu::LaunchOp launch,
                    ArrayRef<gpu::AllReduceOp> syncs) {
  Location loc = launch.getLoc();
  Block &body = launch.getBody().front();
  gpu::KernelDim3 gridSize = launch.getGridSizeOperandValues();
  gpu::KernelDim3 blockSize = launch.getBlockSizeOperandValues();
  SmallVector<Value> arrays = createReduceArrays(rewriter, launch, syncs);
  rewriter.setInsertionPoint(launch);

  // Runs the body's ops for every thread of the block (x fastest), up to
  // `stop` (excluded; null: the terminator), with the all-reduces already
  // folded mapped to their folds; `atStop` is called at the stop with the
  // thread's mapping and linear index.
  auto forEachThread =
      [&](OpBuilder &b, IRMapping blockMapping, Operation *stop,
          function_ref<void(OpBuilder &, IRMapping &, Value)> atStop) {
        emitLoop(b, loc, blockSize.z, [&](OpBuilder &bz, Value tz) {
          emitLoop(bz, loc, blockSize.y, [&](OpBuilder &by, Value ty) {
            emitLoop(by, loc, blockSize.x, [&](OpBuilder &bx, Value tx) {
              IRMapping mapping = blockMapping;
              gpu::KernelDim3 ids = launch.getThreadIds();
              mapping.map(ids.x, tx);
              mapping.map(ids.y, ty);
              mapping.map(ids.z, tz);
              for (Operation &op : body) {
                if (&op == stop || isa<gpu::TerminatorOp>(op))
                  break;
                // An all-reduce before the stop is folded already.
                if (isa<gpu::AllReduceOp>(op))
                  continue;
                bx.clone(op, mapping);
              }
              if (atStop) {
                Value linear = arith::AddIOp::create(
                    bx, loc,
                    arith::MulIOp::create(
                        bx, loc,
                        arith::AddIOp::create(
                            bx, loc,
                            arith::MulIOp::create(bx, loc, tz, blockSize.y),
                            ty),
                        blockSize.x),
                    tx);
                atStop(bx, mapping, linear);
              }
            });
          });
        });
      };

  emitLoop(rewriter, loc, gridSize.z, [&](OpBuilder &gz, Value bz) {
    emitLoop(gz, loc, gridSize.y, [&](OpBuilder &gy, Value by) {
      emitLoop(gy, loc, gridSize.x, [&](OpBuilder &gx, Value bx) {
        IRMapping blockMapping;
        gpu::KernelDim3 ids = launch.getBlockIds();
        blockMapping.map(ids.x, bx);
        blockMapping.map(ids.y, by);
        blockMapping.map(ids.z, bz);
        gpu::KernelDim3 grid = launch.getGridSize();
        blockMapping.map(grid.x, gridSize.x);
        blockMapping.map(grid.y, gridSize.y);
        blockMapping.map(grid.z, gridSize.z);
        gpu::KernelDim3 block = launch.getBlockSize();
        blockMapping.map(block.x, blockSize.x);
        blockMapping.map(block.y, blockSize.y);
        blockMapping.map(block.z, blockSize.z);
        OpBuilder &sb = gx;
        Value threads = arith::MulIOp::create(
            sb, loc, arith::MulIOp::create(sb, loc, blockSize.x, blockSize.y),
            blockSize.z);
        for (size_t index = 0; index < syncs.size(); ++index) {
          Value array = arrays[index];
          gpu::AllReduceOp reduce = syncs[index];
          forEachThread(sb, blockMapping, reduce,
                        [&](OpBuilder &b, IRMapping &mapping, Value linear) {
                          memref::StoreOp::create(
                              b, loc, mapping.lookup(reduce.getValue()), array,
                              linear);
                        });
          // Fold in thread order.
          Value zero = arith::ConstantIndexOp::create(sb, loc, 0);
          Value one = arith::ConstantIndexOp::create(sb, loc, 1);
          Value first = memref::LoadOp::create(sb, loc, array, zero);
          auto fold = scf::ForOp::create(
              sb, loc, one, threads, one, ValueRange{first},
              [&](OpBuilder &b, Location, Value i, ValueRange acc) {
                Value next = memref::LoadOp::create(b, loc, array, i);
                scf::YieldOp::create(
                    b, loc, combine(b, loc, *reduce.getOp(), acc[0], next));
              });
          blockMapping.map(reduce.getResult(), fold.getResult(0));
        }
        forEachThread(sb, blockMapping, nullptr, nullptr);
      });
    });
  });
  rewriter.eraseOp(launch);
}

namespace {

struct MemoptGPUEmulateLaunchesPass
    : public memopt::impl::MemoptGPUEmulateLaunchesPassBase<
          MemoptGPUEmulateLaunchesPass> {
  using Base::Base;

  void runOnOperation() override {
    SmallVector<std::pair<gpu::LaunchOp, SmallVector<gpu::AllReduceOp>>>
        launches;
    WalkResult walk = getOperation().walk([&](gpu::LaunchOp launch) {
      FailureOr<SmallVector<gpu::AllReduceOp>> syncs = checkLaunch(launch);
      if (failed(syncs))
        return WalkResult::interrupt();
      launches.emplace_back(launch, std::move(*syncs));
      return WalkResult::advance();
    });
    if (walk.wasInterrupted())
      return signalPassFailure();
    IRRewriter rewriter(&getContext());
    for (auto &[launch, syncs] : launches)
      emulate(rewriter, launch, syncs);
  }
};

} // namespace
