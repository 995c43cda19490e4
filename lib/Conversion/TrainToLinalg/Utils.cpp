//===- Utils.cpp - helpers shared by the train lowering patterns ----------===//

#include "Lowering.h"

#include "mlir/Dialect/Utils/StructuredOpsUtils.h"
#include "mlir/IR/AffineMap.h"

using namespace mlir;
using namespace mlir::memopt;

std::string mlir::memopt::getParamGlobalName(StringRef name) {
  return ("__param__" + name).str();
}

std::string mlir::memopt::getStateGlobalName(StringRef name) {
  return ("__state__" + name).str();
}

Value mlir::memopt::createEmpty(OpBuilder &b, Location loc,
                                RankedTensorType type) {
  return tensor::EmptyOp::create(b, loc, type.getShape(),
                                 type.getElementType());
}

Value mlir::memopt::createScalar(OpBuilder &b, Location loc, Type type,
                                 double value) {
  if (auto floatType = dyn_cast<FloatType>(type))
    return arith::ConstantOp::create(b, loc, b.getFloatAttr(floatType, value));
  return arith::ConstantOp::create(
      b, loc, b.getIntegerAttr(type, static_cast<int64_t>(value)));
}

Value mlir::memopt::createFilled(OpBuilder &b, Location loc,
                                 RankedTensorType type, double value) {
  Value scalar = createScalar(b, loc, type.getElementType(), value);
  return linalg::FillOp::create(b, loc, scalar, createEmpty(b, loc, type))
      .getResult(0);
}

Value mlir::memopt::getVocabPartOffset(OpBuilder &b, Location loc, Value part,
                                       int64_t size) {
  if (!part)
    return Value();
  return arith::MulIOp::create(b, loc, part,
                               arith::ConstantIndexOp::create(b, loc, size));
}

Value mlir::memopt::castScalar(OpBuilder &b, Location loc, Value value,
                               Type type) {
  Type from = value.getType();
  if (from == type)
    return value;
  if (isa<FloatType>(from) && isa<FloatType>(type)) {
    if (from.getIntOrFloatBitWidth() < type.getIntOrFloatBitWidth())
      return arith::ExtFOp::create(b, loc, type, value);
    return arith::TruncFOp::create(b, loc, type, value);
  }
  if (isa<IntegerType>(from) && isa<FloatType>(type))
    return arith::SIToFPOp::create(b, loc, type, value);
  if (isa<IntegerType>(from) && isa<IntegerType>(type)) {
    if (from.getIntOrFloatBitWidth() < type.getIntOrFloatBitWidth())
      return arith::ExtSIOp::create(b, loc, type, value);
    return arith::TruncIOp::create(b, loc, type, value);
  }
  if (isa<IndexType>(from) || isa<IndexType>(type))
    return arith::IndexCastOp::create(b, loc, type, value);
  llvm_unreachable("unsupported scalar cast");
}

SmallVector<Value> mlir::memopt::buildElementwiseInto(
    OpBuilder &b, Location loc, ValueRange inputs, ValueRange inits,
    llvm::function_ref<SmallVector<Value>(OpBuilder &, Location, ValueRange)>
        body) {
  int64_t rank = cast<RankedTensorType>(inits.front().getType()).getRank();
  SmallVector<AffineMap> maps(inputs.size() + inits.size(),
                              b.getMultiDimIdentityMap(rank));
  SmallVector<utils::IteratorType> iterators(rank,
                                             utils::IteratorType::parallel);
  auto generic = linalg::GenericOp::create(
      b, loc, inits.getTypes(), inputs, inits, maps, iterators,
      [&](OpBuilder &nested, Location nestedLoc, ValueRange args) {
        linalg::YieldOp::create(nested, nestedLoc,
                                body(nested, nestedLoc, args));
      });
  return SmallVector<Value>(generic.getResults());
}

SmallVector<Value> mlir::memopt::buildElementwiseMulti(
    OpBuilder &b, Location loc, TypeRange resultTypes, ValueRange inputs,
    llvm::function_ref<SmallVector<Value>(OpBuilder &, Location, ValueRange)>
        body) {
  SmallVector<Value> inits;
  for (Type type : resultTypes)
    inits.push_back(createEmpty(b, loc, cast<RankedTensorType>(type)));
  return buildElementwiseInto(
      b, loc, inputs, inits,
      [&](OpBuilder &nested, Location nestedLoc, ValueRange args) {
        return body(nested, nestedLoc, args.take_front(inputs.size()));
      });
}

Value mlir::memopt::buildElementwise(OpBuilder &b, Location loc,
                                     RankedTensorType resultType,
                                     ValueRange inputs, ScalarBody body) {
  return buildElementwiseMulti(
      b, loc, TypeRange{resultType}, inputs,
      [&](OpBuilder &nested, Location nestedLoc, ValueRange args) {
        return SmallVector<Value>{body(nested, nestedLoc, args)};
      })[0];
}

Value mlir::memopt::buildReduceSum(OpBuilder &b, Location loc, Value input,
                                   ArrayRef<int64_t> dims,
                                   RankedTensorType resultType) {
  Type accType = resultType.getElementType();
  Value init = createFilled(b, loc, resultType, 0.0);
  auto reduce = linalg::ReduceOp::create(
      b, loc, input, init, dims,
      [&](OpBuilder &nested, Location nestedLoc, ValueRange args) {
        Value in = castScalar(nested, nestedLoc, args[0], accType);
        Value sum = arith::AddFOp::create(nested, nestedLoc, in, args[1]);
        linalg::YieldOp::create(nested, nestedLoc, sum);
      });
  return reduce.getResult(0);
}

Value mlir::memopt::castTensor(OpBuilder &b, Location loc, Value value,
                               Type elementType) {
  auto type = cast<RankedTensorType>(value.getType());
  if (type.getElementType() == elementType)
    return value;
  return buildElementwise(b, loc, type.clone(elementType), value,
                          [&](OpBuilder &nested, Location l, ValueRange args) {
                            return castScalar(nested, l, args[0], elementType);
                          });
}

Value mlir::memopt::buildElementwiseInPlace(OpBuilder &b, Location loc,
                                            ValueRange inputs, Value init,
                                            ScalarBody body) {
  return buildElementwiseInto(
      b, loc, inputs, init,
      [&](OpBuilder &nested, Location nestedLoc, ValueRange args) {
        return SmallVector<Value>{body(nested, nestedLoc, args)};
      })[0];
}

void mlir::memopt::allocateUpFront(RewriterBase &rewriter, Block *block,
                                   Operation *before, Operation *end) {
  Block::iterator begin =
      before ? std::next(before->getIterator()) : block->begin();
  if (begin == end->getIterator())
    return;
  Operation *first = &*begin;
  SmallVector<tensor::EmptyOp> empties;
  for (Operation &created : llvm::make_range(begin, end->getIterator()))
    if (auto empty = dyn_cast<tensor::EmptyOp>(created);
        empty && empty->getNumOperands() == 0 && empty != first)
      empties.push_back(empty);
  for (tensor::EmptyOp empty : empties)
    rewriter.moveOpBefore(empty, first);
}

Value mlir::memopt::buildMeanInPlace(OpBuilder &b, Location loc, Value sum,
                                     double n) {
  Type type = cast<RankedTensorType>(sum.getType()).getElementType();
  return buildElementwiseInPlace(
      b, loc, ValueRange{}, sum,
      [&](OpBuilder &nb, Location l, ValueRange args) -> Value {
        return arith::DivFOp::create(nb, l, args[0],
                                     createScalar(nb, l, type, n));
      });
}

Value mlir::memopt::buildRstd(OpBuilder &b, Location loc, Value sum, double n,
                              double epsilon) {
  Type c = cast<RankedTensorType>(sum.getType()).getElementType();
  return buildElementwiseInPlace(
      b, loc, ValueRange{}, sum,
      [&](OpBuilder &nb, Location l, ValueRange args) {
        Value mean =
            arith::DivFOp::create(nb, l, args[0], createScalar(nb, l, c, n));
        Value var =
            arith::AddFOp::create(nb, l, mean, createScalar(nb, l, c, epsilon));
        return arith::DivFOp::create(nb, l, createScalar(nb, l, c, 1.0),
                                     math::SqrtOp::create(nb, l, var));
      });
}
