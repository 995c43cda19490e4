//===- LinalgToCublas.cpp - contractions as cuBLAS calls ------------------===//
//
// cuBLAS is column-major: a matrix Q of R x K elements is read at
// `ptr + i + j * ld` (op N) or, transposed, at `ptr + i * ld + j` (op T).
// A row-major C = A B is therefore computed as the column-major
// C^T = B^T A^T. The pass describes every operand by the strides of its two
// matrix dimensions and picks whichever of the two formulations the output's
// layout allows; the runtime only forwards to cublasGemmStridedBatchedEx.
//
//===----------------------------------------------------------------------===//

#include "memopt/Conversion/MemorySpace.h"
#include "memopt/Conversion/Passes.h"

#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/SymbolTable.h"

namespace mlir::memopt {
#define GEN_PASS_DEF_MEMOPTLINALGTOCUBLASPASS
#include "memopt/Conversion/Passes.h.inc"
} // namespace mlir::memopt

using namespace mlir;

/// Name of the runtime entry point (lib/Runtime/CUDA).
static constexpr StringLiteral kGemmName = "memopt_cublas_gemm";

namespace {

/// Element type codes shared with the runtime (CudaRuntime.cpp).
enum class ElementCode : int32_t { F32 = 0, F64 = 1, F16 = 2, BF16 = 3 };

/// How cuBLAS reads one matrix operand.
struct MatrixLayout {
  /// Whether cuBLAS must transpose it (op T).
  bool transpose = false;
  /// Leading dimension, in elements.
  int64_t ld = 1;
};

/// One operand of the contraction as the runtime receives it.
struct Operand {
  Value memref;
  /// Element strides of the operand's dimensions.
  SmallVector<int64_t> strides;
  /// Position of each loop dimension among the operand's dimensions, or -1.
  SmallVector<int64_t> position;

  int64_t strideOf(unsigned loopDim) const {
    return position[loopDim] < 0 ? 0 : strides[position[loopDim]];
  }
};

/// The loop dimensions of a contraction that maps onto one GEMM call.
struct ContractionDims {
  /// Loops run around the call: all reductions but the innermost, and the
  /// batch dimensions beyond the two the runtime handles.
  SmallVector<unsigned> loops;
  /// At most two batch dimensions, outermost first: the runtime's outer
  /// loop and cuBLAS's strided batch.
  SmallVector<unsigned> batch;
  /// The output's rows and columns and the GEMM's depth.
  unsigned m, n, k;
};

/// One cuBLAS call in the column-major formulation `C = X Y` that the
/// output's layout allows, with the loops around it.
struct GemmCall {
  /// The operands in the formulation's order and the output.
  Operand x, y, out;
  /// Whether the call computes in f64.
  bool f64;
  /// Column-major sizes: C is `rows x cols`, the depth is `depth`.
  int64_t rows, cols, depth;
  MatrixLayout xLayout, yLayout, outLayout;
  /// Counts and (x, y, out) element strides of the two runtime batches.
  SmallVector<int64_t> batchCounts = {1, 1};
  SmallVector<std::array<int64_t, 3>> batchStrides = {{0, 0, 0}, {0, 0, 0}};
  /// The loops around the call and their static ranges.
  SmallVector<unsigned> loops;
  SmallVector<int64_t> ranges;
};

} // namespace

static std::optional<ElementCode> getElementCode(Type type) {
  if (type.isF32())
    return ElementCode::F32;
  if (type.isF64())
    return ElementCode::F64;
  if (type.isF16())
    return ElementCode::F16;
  if (type.isBF16())
    return ElementCode::BF16;
  return std::nullopt;
}

/// The layout of a `rows x cols` matrix whose element (i, j) is at
/// `i * rowStride + j * colStride`, if cuBLAS can read it (one of the strides
/// is 1, or irrelevant because its dimension has size 1).
static std::optional<MatrixLayout> describe(int64_t rows, int64_t cols,
                                            int64_t rowStride,
                                            int64_t colStride,
                                            bool allowTranspose = true) {
  if (rows == 1 || rowStride == 1) {
    int64_t ld = cols == 1 ? rows : colStride;
    if (ld >= rows && ld >= 1)
      return MatrixLayout{false, ld};
  }
  if (allowTranspose && (cols == 1 || colStride == 1)) {
    int64_t ld = rows == 1 ? cols : rowStride;
    if (ld >= cols && ld >= 1)
      return MatrixLayout{true, ld};
  }
  return std::nullopt;
}

/// Fills `operand` from the linalg operand `opOperand`, or fails when its
/// map is not a list of loop dimensions or its strides are not static.
static LogicalResult getOperand(linalg::LinalgOp op, OpOperand &opOperand,
                                Operand &operand) {
  auto type = dyn_cast<MemRefType>(opOperand.get().getType());
  if (!type)
    return failure();
  int64_t offset;
  if (failed(type.getStridesAndOffset(operand.strides, offset)) ||
      llvm::any_of(operand.strides, ShapedType::isDynamic))
    return failure();
  operand.memref = opOperand.get();
  operand.position.assign(op.getNumLoops(), -1);
  AffineMap map = op.getMatchingIndexingMap(&opOperand);
  for (auto [i, expr] : llvm::enumerate(map.getResults())) {
    auto dim = dyn_cast<AffineDimExpr>(expr);
    if (!dim || operand.position[dim.getPosition()] >= 0)
      return failure();
    operand.position[dim.getPosition()] = i;
  }
  return success();
}

/// Whether the last two results of `map` are the dimensions `a` and `b` (in
/// either order) and every other result is one of `outer` (a batch
/// dimension, or a loop the call runs in).
static bool hasMatrixDims(AffineMap map, ArrayRef<unsigned> outer, unsigned a,
                          unsigned b) {
  unsigned n = map.getNumResults();
  if (n < 2)
    return false;
  for (unsigned i = 0; i + 2 < n; ++i) {
    auto dim = dyn_cast<AffineDimExpr>(map.getResult(i));
    if (!dim || !llvm::is_contained(outer, dim.getPosition()))
      return false;
  }
  auto last = [&](unsigned i) {
    auto dim = dyn_cast<AffineDimExpr>(map.getResult(n - 2 + i));
    return dim ? static_cast<int64_t>(dim.getPosition()) : int64_t(-1);
  };
  return (last(0) == a && last(1) == b) || (last(0) == b && last(1) == a);
}

/// The element type of `operand`'s memref.
static Type getElementType(const Operand &operand) {
  return cast<MemRefType>(operand.memref.getType()).getElementType();
}

/// The dimensions of `op` if it is a contraction (`out + a * b` in floats)
/// whose output is `batch... x m x n` and whose inputs are
/// `outer... x (m, k)` and `outer... x (k, n)` in either order.
static FailureOr<ContractionDims> matchContraction(linalg::LinalgOp op) {
  // The body: out + cast(a) * cast(b), in floats.
  Block *body = op.getBlock();
  if (!linalg::detail::isContractionBody(
          *body, [](Operation *mul, Operation *add) {
            return isa<arith::MulFOp>(mul) && isa<arith::AddFOp>(add);
          }))
    return failure();
  // Loops: the innermost reduction is the GEMM's depth; other reductions
  // run as loops around the call (accumulating: beta = 1).
  SmallVector<utils::IteratorType> iterators = op.getIteratorTypesArray();
  SmallVector<unsigned> reductions;
  for (auto [i, iterator] : llvm::enumerate(iterators))
    if (iterator == utils::IteratorType::reduction)
      reductions.push_back(i);
  if (reductions.empty())
    return failure();
  ContractionDims dims;
  unsigned numLoops = op.getNumLoops();
  dims.k = reductions.back();
  dims.loops.assign(reductions.begin(), reductions.end() - 1);
  AffineMap outMap = op.getMatchingIndexingMap(op.getDpsInitOperand(0));
  unsigned outRank = outMap.getNumResults();
  if (outRank != numLoops - reductions.size() || outRank < 2 ||
      !outMap.isProjectedPermutation())
    return failure();
  // Batch dimensions: the two innermost are the runtime's (outer loop and
  // cuBLAS's strided batch), any further ones loops around the call.
  for (unsigned i = 0; i + 2 < outRank; ++i)
    dims.batch.push_back(outMap.getDimPosition(i));
  if (dims.batch.size() > 2) {
    dims.loops.append(dims.batch.begin(), dims.batch.end() - 2);
    dims.batch.erase(dims.batch.begin(), dims.batch.end() - 2);
  }
  dims.m = outMap.getDimPosition(outRank - 2);
  dims.n = outMap.getDimPosition(outRank - 1);
  SmallVector<unsigned> outer(dims.batch);
  outer.append(dims.loops);
  if (!hasMatrixDims(op.getMatchingIndexingMap(op.getDpsInputOperand(0)), outer,
                     dims.m, dims.k) ||
      !hasMatrixDims(op.getMatchingIndexingMap(op.getDpsInputOperand(1)), outer,
                     dims.k, dims.n))
    return failure();
  return dims;
}

/// The cuBLAS call computing `op` (matched as `dims`), or failure when its
/// operands' element types or layouts are not ones cuBLAS reads.
static FailureOr<GemmCall> describeGemm(linalg::LinalgOp op,
                                        const ContractionDims &dims) {
  Operand lhs, rhs, out;
  if (failed(getOperand(op, *op.getDpsInputOperand(0), lhs)) ||
      failed(getOperand(op, *op.getDpsInputOperand(1), rhs)) ||
      failed(getOperand(op, *op.getDpsInitOperand(0), out)))
    return failure();

  // Element types cuBLAS supports (cublasGemmEx's table).
  std::optional<ElementCode> lhsCode = getElementCode(getElementType(lhs));
  std::optional<ElementCode> rhsCode = getElementCode(getElementType(rhs));
  std::optional<ElementCode> outCode = getElementCode(getElementType(out));
  if (!lhsCode || !rhsCode || !outCode || *lhsCode != *rhsCode)
    return failure();
  bool wideningToF32 =
      (*lhsCode == ElementCode::F16 || *lhsCode == ElementCode::BF16) &&
      *outCode == ElementCode::F32;
  if (*outCode != *lhsCode && !wideningToF32)
    return failure();

  SmallVector<int64_t> ranges = op.getStaticLoopRanges();
  if (llvm::any_of(ranges, [](int64_t r) { return r <= 0; }))
    return failure();
  unsigned m = dims.m, n = dims.n, k = dims.k;
  int64_t sizeM = ranges[m], sizeN = ranges[n], sizeK = ranges[k];

  // Formulation 1: column-major C^T (n x m) = B^T (n x k) A^T (k x m).
  // Formulation 2: column-major C (m x n) = A (m x k) B (k x n).
  const Operand *x = &rhs, *y = &lhs;
  int64_t rows = sizeN, cols = sizeM;
  unsigned rowDim = n, colDim = m;
  std::optional<MatrixLayout> c =
      describe(sizeN, sizeM, out.strideOf(n), out.strideOf(m),
               /*allowTranspose=*/false);
  if (!c) {
    x = &lhs, y = &rhs, rows = sizeM, cols = sizeN, rowDim = m, colDim = n;
    c = describe(sizeM, sizeN, out.strideOf(m), out.strideOf(n),
                 /*allowTranspose=*/false);
  }
  if (!c)
    return failure();
  std::optional<MatrixLayout> xLayout =
      describe(rows, sizeK, x->strideOf(rowDim), x->strideOf(k));
  std::optional<MatrixLayout> yLayout =
      describe(sizeK, cols, y->strideOf(k), y->strideOf(colDim));
  if (!xLayout || !yLayout)
    return failure();

  GemmCall call{*x,       *y,   out,   *outCode == ElementCode::F64,
                rows,     cols, sizeK, *xLayout,
                *yLayout, *c};
  // Batches: the outer one loops in the runtime, the inner one is
  // cuBLAS's strided batch.
  for (auto [i, dim] : llvm::enumerate(llvm::reverse(dims.batch))) {
    call.batchCounts[1 - i] = ranges[dim];
    call.batchStrides[1 - i] = {x->strideOf(dim), y->strideOf(dim),
                                out.strideOf(dim)};
  }
  call.loops = dims.loops;
  call.ranges = std::move(ranges);
  return call;
}

namespace {

struct LinalgToCublasPass
    : public memopt::impl::MemoptLinalgToCublasPassBase<LinalgToCublasPass> {
  using Base::Base;

  void runOnOperation() override {
    SmallVector<linalg::LinalgOp> candidates;
    // Host code (train-offload) runs on the CPU, over host memory.
    memopt::HostCode hostCode(getOperation());
    getOperation().walk([&](linalg::LinalgOp op) {
      if (op.hasPureBufferSemantics() && op.getNumDpsInputs() == 2 &&
          op.getNumDpsInits() == 1 && !hostCode.contains(op))
        candidates.push_back(op);
    });
    for (linalg::LinalgOp op : candidates)
      (void)rewrite(op);
  }

  /// The declaration of the runtime function, created on first use.
  func::FuncOp getGemmFunction(OpBuilder &b, unsigned numArgs) {
    ModuleOp module = getOperation();
    if (auto func = module.lookupSymbol<func::FuncOp>(kGemmName))
      return func;
    OpBuilder::InsertionGuard guard(b);
    b.setInsertionPointToStart(module.getBody());
    SmallVector<Type> types(6, b.getI32Type());
    types.append(numArgs - 6, b.getI64Type());
    auto func = func::FuncOp::create(b, module.getLoc(), kGemmName,
                                     b.getFunctionType(types, {}));
    func.setPrivate();
    return func;
  }

  LogicalResult rewrite(linalg::LinalgOp op) {
    FailureOr<ContractionDims> dims = matchContraction(op);
    if (failed(dims))
      return failure();
    FailureOr<GemmCall> call = describeGemm(op, *dims);
    if (failed(call))
      return failure();
    emitGemmCall(op, *call);
    op->erase();
    return success();
  }

  /// Before `op`: the loops of `call` and, inside them, the runtime call.
  void emitGemmCall(linalg::LinalgOp op, const GemmCall &call) {
    OpBuilder b(op);
    Location loc = op.getLoc();
    // The loops around the call; each moves every operand by its stride.
    SmallVector<std::pair<Value, unsigned>> ivs;
    for (unsigned dim : call.loops) {
      Value zero = arith::ConstantIndexOp::create(b, loc, 0);
      Value upper = arith::ConstantIndexOp::create(b, loc, call.ranges[dim]);
      Value one = arith::ConstantIndexOp::create(b, loc, 1);
      auto loop = scf::ForOp::create(b, loc, zero, upper, one);
      b.setInsertionPointToStart(loop.getBody());
      ivs.push_back({loop.getInductionVar(), dim});
    }
    auto i32 = [&](int64_t v) -> Value {
      return arith::ConstantIntOp::create(b, loc, b.getI32Type(), v);
    };
    auto i64 = [&](int64_t v) -> Value {
      return arith::ConstantIntOp::create(b, loc, b.getI64Type(), v);
    };
    // Address of the buffer and element offset of the view, as i64.
    auto address = [&](const Operand &operand, SmallVectorImpl<Value> &args) {
      Value pointer = memref::ExtractAlignedPointerAsIndexOp::create(
          b, loc, operand.memref);
      auto metadata =
          memref::ExtractStridedMetadataOp::create(b, loc, operand.memref);
      Value offset = metadata.getOffset();
      for (auto [iv, dim] : ivs) {
        int64_t stride = operand.strideOf(dim);
        if (stride == 0)
          continue;
        Value step = arith::MulIOp::create(
            b, loc, iv, arith::ConstantIndexOp::create(b, loc, stride));
        offset = arith::AddIOp::create(b, loc, offset, step);
      }
      args.push_back(
          arith::IndexCastOp::create(b, loc, b.getI64Type(), pointer));
      args.push_back(
          arith::IndexCastOp::create(b, loc, b.getI64Type(), offset));
    };
    auto codeOf = [&](const Operand &operand) {
      return static_cast<int64_t>(*getElementCode(getElementType(operand)));
    };
    SmallVector<Value> args = {i32(codeOf(call.x)),
                               i32(codeOf(call.y)),
                               i32(codeOf(call.out)),
                               i32(call.f64 ? 1 : 0),
                               i32(call.xLayout.transpose),
                               i32(call.yLayout.transpose),
                               i64(call.rows),
                               i64(call.cols),
                               i64(call.depth)};
    address(call.x, args);
    args.push_back(i64(call.xLayout.ld));
    address(call.y, args);
    args.push_back(i64(call.yLayout.ld));
    address(call.out, args);
    args.push_back(i64(call.outLayout.ld));
    for (unsigned i = 0; i < 2; ++i) {
      args.push_back(i64(call.batchCounts[i]));
      for (int64_t stride : call.batchStrides[i])
        args.push_back(i64(stride));
    }
    func::FuncOp gemm = getGemmFunction(b, args.size());
    func::CallOp::create(b, loc, gemm, args);
  }
};

} // namespace
