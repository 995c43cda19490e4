//===- BlockReductions.cpp - long reductions as one block per output ------===//
//
// A linalg reduction with a long reduction extent becomes a gpu.launch with
// one block per output element: each thread folds a strided part of the
// reduction space from the combiner's neutral element, a uniform
// gpu.all_reduce combines the block's partial results, and thread 0 folds the
// output's initial value in and stores the result.
//
// Why this is correct (it cannot be run without a GPU here):
// - the strided loop visits every reduction iteration exactly once (thread t
//   of B takes t, t + B, ...); a thread with no iteration keeps the neutral
//   element, which does not change the combination;
// - every combiner accepted is associative and commutative (floating-point
//   sums and products up to rounding), so the order of the block combine
//   does not matter, and folding the initial value last equals folding it
//   first;
// - gpu.all_reduce sits in the launch body after the loop, outside any
//   condition: every thread of the block reaches it (and the barriers of its
//   lowering); only the store is guarded by `thread id == 0`;
// - the body is cloned as it is (inputs loaded through their indexing maps,
//   linalg.index replaced by the loop indices); only the combiner is rebuilt,
//   on the partial result instead of the output element.
//
//===----------------------------------------------------------------------===//

#include "memopt/Conversion/MemorySpace.h"
#include "memopt/Conversion/Passes.h"

#include "BlockSize.h"

#include "mlir/Analysis/SliceAnalysis.h"
#include "mlir/Dialect/Affine/Utils.h"
#include "mlir/Dialect/Linalg/Utils/Utils.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"
#include "mlir/Interfaces/ViewLikeInterface.h"
#include "llvm/ADT/TypeSwitch.h"
#include "llvm/Support/MathExtras.h"

namespace mlir::memopt {
#define GEN_PASS_DEF_MEMOPTGPUBLOCKREDUCTIONSPASS
#include "memopt/Conversion/Passes.h.inc"
} // namespace mlir::memopt

using namespace mlir;

/// Most output elements for a block reduction. One thread per output
/// element already fills the device with this many threads (an H100 or
/// H200 holds 132 x 2048 = 270k resident threads, an A100 221k) and reads
/// neighbouring output elements' data together (a convolution's output
/// pixels); a block per output element would add a block combine to every
/// one of them. Far below CUDA's grid limit (2^31 - 1 blocks).
static constexpr int64_t kMaxOutputs = int64_t(1) << 17;

/// Reduction iterations a thread should fold at least, so that the block
/// combine (shuffles, two barriers) is amortized.
static constexpr int64_t kElementsPerThread = 8;

/// The gpu.all_reduce operation that combines like `combiner`, if any.
static std::optional<gpu::AllReduceOperation>
getAllReduceKind(Operation *combiner) {
  using Kind = gpu::AllReduceOperation;
  return llvm::TypeSwitch<Operation *, std::optional<Kind>>(combiner)
      .Case<arith::AddFOp, arith::AddIOp>([](auto) { return Kind::ADD; })
      .Case<arith::MulFOp, arith::MulIOp>([](auto) { return Kind::MUL; })
      .Case([](arith::MaximumFOp) { return Kind::MAXIMUMF; })
      .Case([](arith::MinimumFOp) { return Kind::MINIMUMF; })
      .Case([](arith::MaxNumFOp) { return Kind::MAXNUMF; })
      .Case([](arith::MinNumFOp) { return Kind::MINNUMF; })
      .Case([](arith::MaxSIOp) { return Kind::MAXSI; })
      .Case([](arith::MinSIOp) { return Kind::MINSI; })
      .Case([](arith::MaxUIOp) { return Kind::MAXUI; })
      .Case([](arith::MinUIOp) { return Kind::MINUI; })
      .Case([](arith::AndIOp) { return Kind::AND; })
      .Case([](arith::OrIOp) { return Kind::OR; })
      .Case([](arith::XOrIOp) { return Kind::XOR; })
      .Default([](Operation *) { return std::nullopt; });
}

/// The type a reduction of `type` folds and combines in: itself where the
/// all-reduce lowering supports it (32- and 64-bit shuffles), f32 for f16
/// and bf16 (the NVVM shuffle takes 32-bit values only); null otherwise.
static Type getCombineType(Type type) {
  if (type.isF32() || type.isF64() || type.isInteger(32) || type.isInteger(64))
    return type;
  if (type.isF16() || type.isBF16())
    return Float32Type::get(type.getContext());
  return {};
}

/// The allocation or argument a view of `value` is taken from.
static Value getRootBuffer(Value value) {
  while (auto view = value.getDefiningOp<ViewLikeOpInterface>())
    value = view.getViewSource();
  return value;
}

namespace {

/// One output of a block reduction.
struct ReducedOutput {
  /// The body operation that folds an element into the output.
  Operation *combiner;
  /// The combiner operand that is not the output element.
  Value element;
  gpu::AllReduceOperation kind;
  /// The neutral element of the combiner, in `combineType`.
  TypedAttr neutral;
  /// The type the partial results are folded in.
  Type combineType;
};

/// A linalg op that becomes a block reduction.
struct BlockReduction {
  linalg::LinalgOp op;
  SmallVector<ReducedOutput> outputs;
  SmallVector<int64_t> ranges;
  /// Output elements (blocks) and reduction iterations per output element.
  int64_t numOutputs = 1, extent = 1;
};

} // namespace

/// `attr` converted to the float or integer type `type` (only widening of a
/// neutral element happens: f16/bf16 to f32, exact).
static TypedAttr convertNeutral(TypedAttr attr, Type type) {
  if (attr.getType() == type)
    return attr;
  APFloat value = cast<FloatAttr>(attr).getValue();
  bool losesInfo = false;
  value.convert(cast<FloatType>(type).getFloatSemantics(),
                APFloat::rmNearestTiesToEven, &losesInfo);
  return FloatAttr::get(type, value);
}

/// Whether the body of `op` only computes (and reads buffers other than the
/// outputs), so that cloning it into every thread is safe.
static bool hasClonableBody(linalg::LinalgOp op,
                            const DenseSet<Value> &outputRoots) {
  WalkResult result = op.getBlock()->walk([&](Operation *nested) {
    if (isa<linalg::YieldOp, linalg::IndexOp>(nested) ||
        isMemoryEffectFree(nested))
      return WalkResult::advance();
    auto load = dyn_cast<memref::LoadOp>(nested);
    if (load && !outputRoots.contains(getRootBuffer(load.getMemRef())))
      return WalkResult::advance();
    return WalkResult::interrupt();
  });
  return !result.wasInterrupted();
}

/// The block reduction `op` becomes, or failure when it keeps the one thread
/// per output element mapping.
static FailureOr<BlockReduction> matchBlockReduction(linalg::LinalgOp op,
                                                     int64_t minExtent) {
  if (!op.hasPureBufferSemantics() || op.getNumDpsInits() == 0 ||
      op.getNumReductionLoops() == 0 ||
      op.getNumParallelLoops() + op.getNumReductionLoops() != op.getNumLoops())
    return failure();

  BlockReduction reduction;
  reduction.op = op;
  reduction.ranges = op.getStaticLoopRanges();
  for (auto [range, iterator] :
       llvm::zip_equal(reduction.ranges, op.getIteratorTypesArray())) {
    if (ShapedType::isDynamic(range) || range <= 0)
      return failure();
    int64_t &total = linalg::isParallelIterator(iterator) ? reduction.numOutputs
                                                          : reduction.extent;
    if (llvm::MulOverflow(total, range, total))
      return failure();
  }
  if (reduction.extent < minExtent || reduction.numOutputs > kMaxOutputs)
    return failure();

  // Each output element is written by exactly one block: the output maps
  // are permutations of the parallel dimensions.
  llvm::SmallBitVector parallelDims(op.getNumLoops());
  for (auto [i, iterator] : llvm::enumerate(op.getIteratorTypesArray()))
    parallelDims[i] = linalg::isParallelIterator(iterator);
  DenseSet<Value> outputRoots;
  for (OpOperand &init : op.getDpsInitsMutable()) {
    AffineMap map = op.getMatchingIndexingMap(&init);
    if (!isa<MemRefType>(init.get().getType()) ||
        !map.isProjectedPermutation() ||
        map.getNumResults() != parallelDims.count())
      return failure();
    for (AffineExpr expr : map.getResults())
      if (!parallelDims[cast<AffineDimExpr>(expr).getPosition()])
        return failure();
    outputRoots.insert(getRootBuffer(init.get()));
  }
  for (OpOperand *input : op.getDpsInputOperands())
    if (outputRoots.contains(getRootBuffer(input->get())))
      return failure();
  if (!hasClonableBody(op, outputRoots))
    return failure();

  SmallVector<BlockArgument> outputArgs(op.getRegionOutputArgs());
  for (auto [i, arg] : llvm::enumerate(outputArgs)) {
    SmallVector<Operation *> combiners;
    if (!matchReduction(outputArgs, i, combiners) || combiners.size() != 1)
      return failure();
    Operation *combiner = combiners.front();
    std::optional<gpu::AllReduceOperation> kind = getAllReduceKind(combiner);
    std::optional<TypedAttr> neutral = arith::getNeutralElement(combiner);
    Type combineType = getCombineType(arg.getType());
    if (!kind || !neutral || !combineType)
      return failure();
    Value element = combiner->getOperand(0) == arg ? combiner->getOperand(1)
                                                   : combiner->getOperand(0);
    // Another output's element folded in (not a reduction of the inputs).
    if (llvm::is_contained(outputArgs, element))
      return failure();
    reduction.outputs.push_back({combiner, element, *kind,
                                 convertNeutral(*neutral, combineType),
                                 combineType});
  }
  return reduction;
}

/// `combiner` (an arith op) rebuilt on `lhs` and `rhs` of `type`.
static Value createCombine(OpBuilder &b, Location loc, Operation *combiner,
                           Value lhs, Value rhs, Type type) {
  OperationState state(loc, combiner->getName());
  state.addOperands({lhs, rhs});
  state.addTypes(type);
  state.addAttributes(combiner->getAttrs());
  return b.create(state)->getResult(0);
}

/// `value` converted between an element type and its combine type.
static Value convertFloat(OpBuilder &b, Location loc, Value value, Type type) {
  if (value.getType() == type)
    return value;
  if (type.getIntOrFloatBitWidth() > value.getType().getIntOrFloatBitWidth())
    return arith::ExtFOp::create(b, loc, type, value);
  return arith::TruncFOp::create(b, loc, type, value);
}

/// Sets `ivs[d]` for the dimensions `dims` (in loop order) from the linear
/// index `linear`, the last dimension fastest.
static void delinearize(OpBuilder &b, Location loc, Value linear,
                        ArrayRef<unsigned> dims, ArrayRef<int64_t> ranges,
                        MutableArrayRef<Value> ivs) {
  Value rest = linear;
  for (auto [i, d] : llvm::enumerate(llvm::reverse(dims))) {
    if (i + 1 == dims.size()) {
      ivs[d] = rest;
      break;
    }
    Value range = arith::ConstantIndexOp::create(b, loc, ranges[d]);
    ivs[d] = arith::RemUIOp::create(b, loc, rest, range);
    rest = arith::DivUIOp::create(b, loc, rest, range);
  }
}

/// The indices `map` selects at the loop indices `ivs`.
static SmallVector<Value> applyMap(OpBuilder &b, Location loc, AffineMap map,
                                   ArrayRef<Value> ivs) {
  std::optional<SmallVector<Value, 8>> indices =
      affine::expandAffineMap(b, loc, map, ivs);
  // Indexing maps of linalg ops are pure affine maps of the loops.
  assert(indices && "indexing map cannot be expanded");
  return llvm::to_vector(*indices);
}

/// Replaces `reduction.op` with its block-reduction launch.
static void rewriteBlockReduction(RewriterBase &rewriter,
                                  const BlockReduction &reduction,
                                  int64_t maxBlock) {
  linalg::LinalgOp op = reduction.op;
  Location loc = op.getLoc();
  int64_t block = std::clamp<int64_t>(
      llvm::alignTo(llvm::divideCeil(reduction.extent, kElementsPerThread), 32),
      32, maxBlock);
  auto c = [&](int64_t v) -> Value {
    return arith::ConstantIndexOp::create(rewriter, loc, v);
  };

  rewriter.setInsertionPoint(op);
  Value one = c(1);
  auto launch = gpu::LaunchOp::create(rewriter, loc, c(reduction.numOutputs),
                                      one, one, c(block), one, one);
  rewriter.setInsertionPointToEnd(&launch.getBody().front());
  gpu::TerminatorOp::create(rewriter, loc);
  rewriter.setInsertionPointToStart(&launch.getBody().front());

  // The block's output element: its parallel indices. Reduction indices are
  // 0 outside the loop (the output maps do not use them).
  SmallVector<unsigned> parallelDims, reductionDims;
  for (auto [i, iterator] : llvm::enumerate(op.getIteratorTypesArray()))
    (linalg::isParallelIterator(iterator) ? parallelDims : reductionDims)
        .push_back(i);
  SmallVector<Value> ivs(op.getNumLoops(), c(0));
  if (!parallelDims.empty())
    delinearize(rewriter, loc, launch.getBlockIds().x, parallelDims,
                reduction.ranges, ivs);
  SmallVector<Value> outputIvs = ivs;

  // Each thread folds iterations tid, tid + block, ... from the neutral
  // element.
  Value tid = launch.getThreadIds().x;
  SmallVector<Value> neutrals;
  for (const ReducedOutput &output : reduction.outputs)
    neutrals.push_back(
        arith::ConstantOp::create(rewriter, loc, output.neutral));
  auto loop = scf::ForOp::create(rewriter, loc, tid, c(reduction.extent),
                                 c(block), neutrals);
  {
    OpBuilder::InsertionGuard guard(rewriter);
    rewriter.setInsertionPointToStart(loop.getBody());
    delinearize(rewriter, loc, loop.getInductionVar(), reductionDims,
                reduction.ranges, ivs);
    IRMapping mapping;
    for (OpOperand *input : op.getDpsInputOperands()) {
      Value value = input->get();
      if (isa<MemRefType>(value.getType()))
        value = memref::LoadOp::create(
            rewriter, loc, value,
            applyMap(rewriter, loc, op.getMatchingIndexingMap(input), ivs));
      mapping.map(op.getMatchingBlockArgument(input), value);
    }
    Block *body = op.getBlock();
    for (Operation &nested : body->without_terminator()) {
      if (auto index = dyn_cast<linalg::IndexOp>(nested)) {
        mapping.map(index.getResult(), ivs[index.getDim()]);
        continue;
      }
      if (llvm::any_of(reduction.outputs, [&](const ReducedOutput &output) {
            return output.combiner == &nested;
          }))
        continue;
      Operation *clone = rewriter.clone(nested, mapping);
      // linalg.index in nested regions (the top-level ones are mapped).
      clone->walk([&](linalg::IndexOp index) {
        rewriter.replaceOp(index, ivs[index.getDim()]);
      });
    }
    SmallVector<Value> partials;
    for (auto [output, acc] :
         llvm::zip_equal(reduction.outputs, loop.getRegionIterArgs())) {
      Value element =
          convertFloat(rewriter, loc, mapping.lookupOrDefault(output.element),
                       output.combineType);
      partials.push_back(createCombine(rewriter, loc, output.combiner, acc,
                                       element, output.combineType));
    }
    scf::YieldOp::create(rewriter, loc, partials);
  }

  // The block combine, reached by every thread; then thread 0 folds in the
  // output's initial value and stores.
  SmallVector<Value> totals;
  for (auto [output, partial] :
       llvm::zip_equal(reduction.outputs, loop.getResults()))
    totals.push_back(gpu::AllReduceOp::create(
        rewriter, loc, partial,
        gpu::AllReduceOperationAttr::get(rewriter.getContext(), output.kind),
        /*uniform=*/true));
  Value first =
      arith::CmpIOp::create(rewriter, loc, arith::CmpIPredicate::eq, tid, c(0));
  auto store = scf::IfOp::create(rewriter, loc, first, /*withElse=*/false);
  rewriter.setInsertionPointToStart(store.thenBlock());
  for (auto [output, total, init] :
       llvm::zip_equal(reduction.outputs, totals, op.getDpsInitsMutable())) {
    SmallVector<Value> indices =
        applyMap(rewriter, loc, op.getMatchingIndexingMap(&init), outputIvs);
    Value initial = memref::LoadOp::create(rewriter, loc, init.get(), indices);
    Type elementType = initial.getType();
    Value result =
        createCombine(rewriter, loc, output.combiner,
                      convertFloat(rewriter, loc, initial, output.combineType),
                      total, output.combineType);
    memref::StoreOp::create(rewriter, loc,
                            convertFloat(rewriter, loc, result, elementType),
                            init.get(), indices);
  }
  rewriter.eraseOp(op);
}

namespace {

struct GPUBlockReductionsPass
    : public memopt::impl::MemoptGPUBlockReductionsPassBase<
          GPUBlockReductionsPass> {
  using Base::Base;

  void runOnOperation() override {
    if (failed(memopt::checkBlockSize(getOperation(), blockSize)))
      return signalPassFailure();
    if (minExtent < 1) {
      getOperation().emitError() << "min-extent must be at least 1, got "
                                 << static_cast<int64_t>(minExtent);
      return signalPassFailure();
    }
    SmallVector<BlockReduction> reductions;
    memopt::HostCode hostCode(getOperation());
    getOperation().walk([&](linalg::LinalgOp op) {
      if (op->getParentOfType<gpu::LaunchOp>() || hostCode.contains(op))
        return;
      FailureOr<BlockReduction> reduction = matchBlockReduction(op, minExtent);
      if (succeeded(reduction))
        reductions.push_back(std::move(*reduction));
    });
    if (reductions.empty())
      return markAllAnalysesPreserved();
    IRRewriter rewriter(&getContext());
    for (const BlockReduction &reduction : reductions)
      rewriteBlockReduction(rewriter, reduction, blockSize);
  }
};

} // namespace
