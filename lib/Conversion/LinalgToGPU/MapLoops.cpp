//===- MapLoops.cpp - outermost parallel loops as GPU launches ------------===//
//
// One thread per iteration of an outermost scf.parallel, over a linearized
// iteration space (the last dimension fastest), in blocks of `block-size`
// threads. This is deliberately simple: it is correct for every loop nest
// convert-linalg-to-parallel-loops produces (each parallel iteration writes
// its own output elements; reduction dimensions are sequential scf.for loops
// inside the iteration) and every launch fits CUDA's limits. Long
// reductions do not get here: memopt-gpu-block-reductions maps them onto a
// block per output element first.
//
//===----------------------------------------------------------------------===//

#include "memopt/Conversion/MemorySpace.h"
#include "memopt/Conversion/Passes.h"

#include "BlockSize.h"

#include "mlir/Dialect/Utils/StaticValueUtils.h"
#include "mlir/IR/IRMapping.h"
#include "llvm/Support/MathExtras.h"

namespace mlir::memopt {
#define GEN_PASS_DEF_MEMOPTGPUMAPLOOPSPASS
#include "memopt/Conversion/Passes.h.inc"
} // namespace mlir::memopt

using namespace mlir;

/// CUDA's limit on the x dimension of a grid.
static constexpr int64_t kMaxGridX = (int64_t(1) << 31) - 1;

/// Whether `op` is inside a loop or launch that already runs on the device
/// or will be mapped with an enclosing loop.
static bool isNested(Operation *op) {
  for (Operation *parent = op->getParentOp(); parent;
       parent = parent->getParentOp()) {
    if (isa<scf::ParallelOp, gpu::LaunchOp, gpu::GPUModuleOp>(parent))
      return true;
    if (isa<FunctionOpInterface>(parent))
      return false;
  }
  return false;
}

namespace {

struct GPUMapLoopsPass
    : public memopt::impl::MemoptGPUMapLoopsPassBase<GPUMapLoopsPass> {
  using Base::Base;

  void runOnOperation() override {
    if (failed(memopt::checkBlockSize(getOperation(), blockSize)))
      return signalPassFailure();
    SmallVector<scf::ParallelOp> parallels;
    SmallVector<scf::ForOp> sequentials;
    // Host code (train-offload) stays on the CPU.
    memopt::HostCode hostCode(getOperation());
    getOperation().walk([&](Operation *op) {
      if (isNested(op) || hostCode.contains(op))
        return;
      if (auto loop = dyn_cast<scf::ParallelOp>(op))
        parallels.push_back(loop);
      else if (auto loop = dyn_cast<scf::ForOp>(op))
        if (isa<FunctionOpInterface>(loop->getParentOp()) &&
            loop.getNumResults() == 0 && touchesMemory(loop))
          sequentials.push_back(loop);
    });
    for (scf::ParallelOp loop : parallels)
      mapParallel(loop);
    for (scf::ForOp loop : sequentials)
      mapSequential(loop);
  }

  /// Whether `loop` loads or stores memory (is worth running next to the
  /// data)
  /// and holds no parallel loop (which is mapped on its own).
  static bool touchesMemory(scf::ForOp loop) {
    bool memory = false, parallel = false;
    loop->walk([&](Operation *op) {
      memory |= isa<memref::LoadOp, memref::StoreOp>(op);
      parallel |= isa<scf::ParallelOp, gpu::LaunchOp>(op);
    });
    return memory && !parallel;
  }

  /// A launch of `grid` x `block` threads before `anchor`, its body ready
  /// for insertion (terminated).
  static gpu::LaunchOp createLaunch(OpBuilder &b, Location loc, int64_t grid,
                                    int64_t block) {
    auto c = [&](int64_t v) -> Value {
      return arith::ConstantIndexOp::create(b, loc, v);
    };
    Value one = c(1);
    auto launch =
        gpu::LaunchOp::create(b, loc, c(grid), one, one, c(block), one, one);
    OpBuilder::InsertionGuard guard(b);
    b.setInsertionPointToEnd(&launch.getBody().front());
    gpu::TerminatorOp::create(b, loc);
    return launch;
  }

  void mapParallel(scf::ParallelOp loop) {
    if (loop.getNumReductions() != 0)
      return;
    Location loc = loop.getLoc();
    SmallVector<int64_t> lowers, steps, trips;
    int64_t total = 1;
    for (auto [lb, ub, step] : llvm::zip_equal(
             loop.getLowerBound(), loop.getUpperBound(), loop.getStep())) {
      std::optional<int64_t> l = getConstantIntValue(lb);
      std::optional<int64_t> u = getConstantIntValue(ub);
      std::optional<int64_t> s = getConstantIntValue(step);
      // Dynamic bounds do not occur in static training steps; such a loop
      // stays on the host, which shares the memory.
      if (!l || !u || !s || *s <= 0)
        return;
      int64_t trip = *u > *l ? llvm::divideCeil(*u - *l, *s) : 0;
      if (trip == 0)
        return;
      if (llvm::MulOverflow(total, trip, total))
        return;
      lowers.push_back(*l);
      steps.push_back(*s);
      trips.push_back(trip);
    }
    int64_t block = std::min<int64_t>(blockSize, llvm::alignTo(total, 32));
    int64_t grid = llvm::divideCeil(total, block);
    if (grid > kMaxGridX) {
      loop.emitWarning() << "loop of " << total
                         << " iterations exceeds the grid limit; left on the "
                            "host";
      return;
    }

    OpBuilder b(loop);
    gpu::LaunchOp launch = createLaunch(b, loc, grid, block);
    b.setInsertionPointToStart(&launch.getBody().front());
    auto c = [&](int64_t v) -> Value {
      return arith::ConstantIndexOp::create(b, loc, v);
    };
    Value linear = arith::AddIOp::create(
        b, loc, arith::MulIOp::create(b, loc, launch.getBlockIds().x, c(block)),
        launch.getThreadIds().x);
    Value inBounds = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ult,
                                           linear, c(total));
    auto guard = scf::IfOp::create(b, loc, inBounds, /*withElse=*/false);
    b.setInsertionPointToStart(guard.thenBlock());
    // Delinearize, last dimension fastest.
    SmallVector<Value> ivs(trips.size());
    Value rest = linear;
    for (int64_t d = trips.size() - 1; d >= 0; --d) {
      Value index =
          d == 0 ? rest
                 : Value(arith::RemUIOp::create(b, loc, rest, c(trips[d])));
      if (d > 0)
        rest = arith::DivUIOp::create(b, loc, rest, c(trips[d]));
      Value iv = index;
      if (steps[d] != 1)
        iv = arith::MulIOp::create(b, loc, iv, c(steps[d]));
      if (lowers[d] != 0)
        iv = arith::AddIOp::create(b, loc, iv, c(lowers[d]));
      ivs[d] = iv;
    }
    IRMapping mapping;
    mapping.map(loop.getInductionVars(), ivs);
    for (Operation &op : loop.getBody()->without_terminator())
      b.clone(op, mapping);
    loop.erase();
  }

  /// A sequential loop nest (a short or unrecognized reduction into a 0-d
  /// buffer) as a launch of one thread: slow for a large reduction, but its
  /// data stays on the device.
  void mapSequential(scf::ForOp loop) {
    OpBuilder b(loop);
    gpu::LaunchOp launch = createLaunch(b, loop.getLoc(), 1, 1);
    loop->moveBefore(&launch.getBody().front().back());
  }
};

} // namespace
