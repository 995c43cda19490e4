//===- WidenAccumulators.cpp - f32 accumulation of narrow contractions ----===//
//
// A linalg contraction whose output is bf16 or f16 accumulates, by linalg's
// semantics, in the output type: every partial sum is rounded to 16 bits.
// GEMM libraries (cuBLAS with CUBLAS_COMPUTE_32F, PyTorch's CPU GEMMs at
// most shapes) keep the sum in f32 and round once. This pass gives the CPU
// lowering those semantics: after bufferization it rewrites each such
// contraction into loops whose innermost (reduction) loop carries an f32
// accumulator in a register, starting from the output's initial value, and
// stores the rounded sum once. No buffer is added, so the memory model is
// unchanged.
//
//===----------------------------------------------------------------------===//

#include "memopt/Conversion/Passes.h"
#include "memopt/Dialect/Train/IR/ComputeTypes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Linalg/IR/LinalgInterfaces.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/PatternMatch.h"

namespace mlir::memopt {
#define GEN_PASS_DEF_MEMOPTWIDENCONTRACTIONACCUMULATORSPASS
#include "memopt/Conversion/Passes.h.inc"
} // namespace mlir::memopt

using namespace mlir;
using namespace mlir::memopt;

/// The f32 accumulator type of a contraction writing `outputType`, or null
/// when the output already is as wide.
static Type getWiderAccumulator(Type outputType) {
  auto output = dyn_cast<FloatType>(outputType);
  if (!output)
    return {};
  auto accumulator = dyn_cast<FloatType>(train::getAccumulatorType(outputType));
  if (!accumulator || accumulator.getWidth() <= output.getWidth())
    return {};
  return accumulator;
}

/// The indices `map` (a projected permutation) selects from `ivs`.
static SmallVector<Value> selectIndices(AffineMap map, ArrayRef<Value> ivs) {
  SmallVector<Value> indices;
  for (AffineExpr expr : map.getResults())
    indices.push_back(ivs[cast<AffineDimExpr>(expr).getPosition()]);
  return indices;
}

/// Whether `op` is a contraction on memrefs this pass rewrites: a mul-add
/// body, two float inputs and one narrow float output, every map a projected
/// permutation, static loop ranges.
static bool isNarrowContraction(linalg::LinalgOp op) {
  if (!op.hasPureBufferSemantics() || op.getNumDpsInputs() != 2 ||
      op.getNumDpsInits() != 1 || !linalg::isaContractionOpInterface(op))
    return false;
  auto output = dyn_cast<MemRefType>(op.getDpsInitOperand(0)->get().getType());
  if (!output || !getWiderAccumulator(output.getElementType()))
    return false;
  for (OpOperand *input : op.getDpsInputOperands())
    if (!isa<MemRefType>(input->get().getType()) ||
        !isa<FloatType>(getElementTypeOrSelf(input->get().getType())))
      return false;
  if (!llvm::all_of(op.getIndexingMapsArray(), [](AffineMap map) {
        return map.isProjectedPermutation(/*allowZeroInResults=*/false);
      }))
    return false;
  return llvm::none_of(op.getStaticLoopRanges(),
                       [](int64_t r) { return ShapedType::isDynamic(r); });
}

/// Rewrites `op` into scf.for loops: the parallel dimensions outermost, then
/// the reduction dimensions carrying the f32 sum.
static void rewriteContraction(RewriterBase &rewriter, linalg::LinalgOp op,
                               bool parallel) {
  Location loc = op.getLoc();
  rewriter.setInsertionPoint(op);
  SmallVector<int64_t> ranges = op.getStaticLoopRanges();
  SmallVector<utils::IteratorType> iterators = op.getIteratorTypesArray();
  SmallVector<AffineMap> maps = op.getIndexingMapsArray();
  Value lhs = op.getDpsInputOperand(0)->get();
  Value rhs = op.getDpsInputOperand(1)->get();
  Value out = op.getDpsInitOperand(0)->get();
  Type outType = getElementTypeOrSelf(out.getType());
  Type accType = getWiderAccumulator(outType);

  SmallVector<Value> ivs(ranges.size());
  Value zero = arith::ConstantIndexOp::create(rewriter, loc, 0);
  Value one = arith::ConstantIndexOp::create(rewriter, loc, 1);
  SmallVector<Value> bounds;
  for (int64_t size : ranges)
    bounds.push_back(arith::ConstantIndexOp::create(rewriter, loc, size));
  // Parallel loops (their induction variables index the output): nested
  // scf.for, or one scf.parallel.
  OpBuilder::InsertionGuard guard(rewriter);
  SmallVector<unsigned> parallelDims;
  for (auto [dim, kind] : llvm::enumerate(iterators))
    if (kind == utils::IteratorType::parallel)
      parallelDims.push_back(dim);
  if (parallel && !parallelDims.empty()) {
    SmallVector<Value> lowerBounds(parallelDims.size(), zero);
    SmallVector<Value> steps(parallelDims.size(), one);
    SmallVector<Value> upperBounds;
    for (unsigned dim : parallelDims)
      upperBounds.push_back(bounds[dim]);
    auto loop =
        scf::ParallelOp::create(rewriter, loc, lowerBounds, upperBounds, steps);
    for (auto [index, dim] : llvm::enumerate(parallelDims))
      ivs[dim] = loop.getInductionVars()[index];
    rewriter.setInsertionPoint(loop.getBody()->getTerminator());
  } else {
    for (unsigned dim : parallelDims) {
      auto loop = scf::ForOp::create(rewriter, loc, zero, bounds[dim], one);
      ivs[dim] = loop.getInductionVar();
      rewriter.setInsertionPoint(loop.getBody()->getTerminator());
    }
  }
  SmallVector<Value> outIndices = selectIndices(maps[2], ivs);
  Value initial = memref::LoadOp::create(rewriter, loc, out, outIndices);
  Value sum = arith::ExtFOp::create(rewriter, loc, accType, initial);

  // Reduction loops, innermost, the sum an iter_arg of each.
  SmallVector<scf::ForOp> reductions;
  for (auto [dim, kind] : llvm::enumerate(iterators)) {
    if (kind != utils::IteratorType::reduction)
      continue;
    auto loop = scf::ForOp::create(rewriter, loc, zero, bounds[dim], one,
                                   ValueRange{sum});
    ivs[dim] = loop.getInductionVar();
    sum = loop.getRegionIterArg(0);
    reductions.push_back(loop);
    rewriter.setInsertionPointToStart(loop.getBody());
  }
  auto widen = [&](Value value) -> Value {
    if (value.getType() == accType)
      return value;
    if (cast<FloatType>(value.getType()).getWidth() <
        cast<FloatType>(accType).getWidth())
      return arith::ExtFOp::create(rewriter, loc, accType, value);
    return arith::TruncFOp::create(rewriter, loc, accType, value);
  };
  Value a = widen(
      memref::LoadOp::create(rewriter, loc, lhs, selectIndices(maps[0], ivs)));
  Value b = widen(
      memref::LoadOp::create(rewriter, loc, rhs, selectIndices(maps[1], ivs)));
  Value next = arith::AddFOp::create(
      rewriter, loc, sum, arith::MulFOp::create(rewriter, loc, a, b));
  // Close the reduction loops from the innermost out.
  for (scf::ForOp loop : llvm::reverse(reductions)) {
    scf::YieldOp::create(rewriter, loc, next);
    rewriter.setInsertionPointAfter(loop);
    next = loop.getResult(0);
  }
  Value rounded = arith::TruncFOp::create(rewriter, loc, outType, next);
  memref::StoreOp::create(rewriter, loc, rounded, out, outIndices);
  rewriter.eraseOp(op);
}

namespace {

struct MemoptWidenContractionAccumulatorsPass
    : public memopt::impl::MemoptWidenContractionAccumulatorsPassBase<
          MemoptWidenContractionAccumulatorsPass> {
  using Base::Base;
  void runOnOperation() override {
    SmallVector<linalg::LinalgOp> contractions;
    getOperation()->walk([&](linalg::LinalgOp op) {
      if (isNarrowContraction(op))
        contractions.push_back(op);
    });
    IRRewriter rewriter(&getContext());
    for (linalg::LinalgOp op : contractions)
      rewriteContraction(rewriter, op, parallel);
  }
};

} // namespace
