//===- DequantizeLowering.cpp - quantized frozen weights ------------------===//
//
// train.dequantize_nf4 and train.dequantize_int8, exactly as their
// descriptions define them (Quantization.h): one linalg.generic over the
// weight that computes each element from its code and its block's (or
// output feature's) scale with the same f32 operations, one product and,
// for double quantization, the absmax's own product and sum, each rounded.
// The tables (NF4's 16 values, the dynamic map's 256) are read through
// scf.index_switch over the code rather than constant tensors: the lowering
// adds no global, so the step's measured input bytes stay the memory
// model's, and the op writes exactly its result.
//
//===----------------------------------------------------------------------===//

#include "Lowering.h"

#include "memopt/Dialect/Train/IR/Blockwise8bit.h"
#include "memopt/Dialect/Train/IR/Quantization.h"

#include "mlir/Dialect/SCF/IR/SCF.h"
#include "llvm/Support/MathExtras.h"

using namespace mlir;
using namespace mlir::memopt;

namespace {

static Value indexConstant(OpBuilder &b, Location l, int64_t value) {
  return arith::ConstantIndexOp::create(b, l, value);
}

/// `table[index]` as an f32 scalar, `index` in [0, table.size()).
static Value lookup(OpBuilder &b, Location l, ArrayRef<float> table,
                    Value index) {
  SmallVector<int64_t> cases =
      llvm::to_vector(llvm::seq<int64_t>(0, table.size() - 1));
  auto switchOp = scf::IndexSwitchOp::create(b, l, TypeRange{b.getF32Type()},
                                             index, cases, cases.size());
  auto yield = [&](Region &region, float value) {
    OpBuilder::InsertionGuard guard(b);
    b.setInsertionPointToStart(&region.emplaceBlock());
    scf::YieldOp::create(
        b, l,
        ValueRange{arith::ConstantOp::create(b, l, b.getF32FloatAttr(value))});
  };
  for (auto [i, region] : llvm::enumerate(switchOp.getCaseRegions()))
    yield(region, table[i]);
  yield(switchOp.getDefaultRegion(), table.back());
  return switchOp.getResult(0);
}

/// The row-major linear index of the current element of a linalg.generic
/// over `shape`.
static Value linearIndex(OpBuilder &b, Location l, ArrayRef<int64_t> shape) {
  Value index = indexConstant(b, l, 0);
  for (auto [dim, extent] : llvm::enumerate(shape)) {
    index = arith::MulIOp::create(b, l, index, indexConstant(b, l, extent));
    index =
        arith::AddIOp::create(b, l, index, linalg::IndexOp::create(b, l, dim));
  }
  return index;
}

/// The byte `bytes[index]` (i8) zero-extended to an index.
static Value readUnsigned(OpBuilder &b, Location l, Value bytes, Value index) {
  Value byte = tensor::ExtractOp::create(b, l, bytes, index);
  return arith::IndexCastUIOp::create(b, l, b.getIndexType(), byte);
}

/// A linalg.generic over `type` (no inputs) whose element is `body` of the
/// element's indices.
static Value buildFromIndices(OpBuilder &b, Location loc, RankedTensorType type,
                              function_ref<Value(OpBuilder &, Location)> body) {
  Value init = createEmpty(b, loc, type);
  SmallVector<AffineMap> maps = {b.getMultiDimIdentityMap(type.getRank())};
  SmallVector<utils::IteratorType> iterators(type.getRank(),
                                             utils::IteratorType::parallel);
  auto generic = linalg::GenericOp::create(
      b, loc, TypeRange{type}, ValueRange(), ValueRange{init}, maps, iterators,
      [&](OpBuilder &nested, Location l, ValueRange) {
        Value value =
            castScalar(nested, l, body(nested, l), type.getElementType());
        linalg::YieldOp::create(nested, l, value);
      });
  return generic.getResult(0);
}

/// train.dequantize_nf4: `NF4[code] * A[block]`, the code the element's
/// nibble (the high one for an even index), A the block's absmax or its
/// double-quantized value `dynamic[code] * scale + offset`.
struct DequantizeNF4Lowering : public TrainOpLowering<train::DequantizeNF4Op> {
  using TrainOpLowering::TrainOpLowering;
  LogicalResult
  matchAndRewrite(train::DequantizeNF4Op op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    auto type = cast<RankedTensorType>(op.getType());
    int64_t blockShift = llvm::Log2_64(op.getBlock());
    Value codes = adaptor.getCodes(), absmax = adaptor.getAbsmax();
    Value scale = adaptor.getAbsmaxScale(), offset = adaptor.getAbsmaxOffset();
    auto body = [&](OpBuilder &b, Location l) -> Value {
      Value i = linearIndex(b, l, type.getShape());
      Value byte = readUnsigned(
          b, l, codes, arith::ShRUIOp::create(b, l, i, indexConstant(b, l, 1)));
      // Element 2k in the high nibble of byte k, 2k + 1 in the low one.
      Value odd = arith::AndIOp::create(b, l, i, indexConstant(b, l, 1));
      Value shift = arith::MulIOp::create(
          b, l, arith::SubIOp::create(b, l, indexConstant(b, l, 1), odd),
          indexConstant(b, l, 4));
      Value nibble =
          arith::AndIOp::create(b, l, arith::ShRUIOp::create(b, l, byte, shift),
                                indexConstant(b, l, 15));
      Value value = lookup(b, l, train::getNF4Values(), nibble);
      Value block =
          arith::ShRUIOp::create(b, l, i, indexConstant(b, l, blockShift));
      Value blockAbsmax;
      if (!scale) {
        blockAbsmax = tensor::ExtractOp::create(b, l, absmax, block);
      } else {
        Value code = readUnsigned(b, l, absmax, block);
        Value group = arith::DivUIOp::create(
            b, l, block, indexConstant(b, l, train::kDoubleQuantBlock));
        Value product = arith::MulFOp::create(
            b, l, lookup(b, l, train::getDynamicMap(/*isSigned=*/true), code),
            tensor::ExtractOp::create(b, l, scale, group));
        blockAbsmax = arith::AddFOp::create(
            b, l, product, tensor::ExtractOp::create(b, l, offset));
      }
      return arith::MulFOp::create(b, l, value, blockAbsmax);
    };
    rewriter.replaceOp(op, buildFromIndices(rewriter, op.getLoc(), type, body));
    return success();
  }
};

/// train.dequantize_int8: `(code * scale[r]) / 127`, r the element's index
/// along `axis`.
struct DequantizeInt8Lowering
    : public TrainOpLowering<train::DequantizeInt8Op> {
  using TrainOpLowering::TrainOpLowering;
  LogicalResult
  matchAndRewrite(train::DequantizeInt8Op op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    auto type = cast<RankedTensorType>(op.getType());
    int64_t axis = static_cast<int64_t>(op.getAxis());
    Value codes = adaptor.getCodes(), scale = adaptor.getScale();
    auto body = [&](OpBuilder &b, Location l) -> Value {
      SmallVector<Value> indices;
      for (int64_t dim = 0; dim < type.getRank(); ++dim)
        indices.push_back(linalg::IndexOp::create(b, l, dim));
      Value code = arith::SIToFPOp::create(
          b, l, b.getF32Type(),
          tensor::ExtractOp::create(b, l, codes, indices));
      Value product = arith::MulFOp::create(
          b, l, code, tensor::ExtractOp::create(b, l, scale, indices[axis]));
      return arith::DivFOp::create(b, l, product,
                                   createScalar(b, l, b.getF32Type(), 127.0));
    };
    rewriter.replaceOp(op, buildFromIndices(rewriter, op.getLoc(), type, body));
    return success();
  }
};

} // namespace

void mlir::memopt::populateDequantizeLoweringPatterns(
    RewritePatternSet &patterns) {
  patterns.add<DequantizeNF4Lowering, DequantizeInt8Lowering>(
      patterns.getContext());
}
