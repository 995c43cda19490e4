//===- ConvLowering.cpp - convolution and pooling ------------------------===//
//
// NCHW activations, OIHW filters. Forward ops use linalg's named
// convolution and pooling ops on an explicitly padded input (tensor.pad);
// the gradients are expressed through the same named ops where the math
// allows it:
//
// * conv2d_grad_input is the transposed convolution as a gather: each input
//   position sums grad * filter over the (output channel, kh, kw) whose
//   window reads it, reading `grad` where the forward stride divides the
//   offset, with no scattered copy and no flipped filter.
// * conv2d_grad_filter is one linalg.generic whose indexing maps carry the
//   stride and dilation; on a padded input it reads the input in place
//   (tensor.extract, a position in the padding counting as zero), with no
//   padded copy.
// * max_pool2d_grad is a gather: each input position recomputes the argmax
//   (first maximum in row-major window order, as PyTorch's CPU kernel) of
//   the few windows that contain it and sums their `grad` where it is the
//   maximum, with no scratch beyond a 16-bit type's f32 accumulator.
// * avg_pool2d_grad is the same gather, summing grad / (KH * KW) over the
//   covering windows.
//
// Sums of 16-bit inputs accumulate in f32 and round once at the end.
//
//===----------------------------------------------------------------------===//

#include "ConvHelpers.h"
#include "Lowering.h"

#include "mlir/Dialect/Utils/StructuredOpsUtils.h"
#include "mlir/IR/AffineMap.h"

using namespace mlir;
using namespace mlir::memopt;
using namespace mlir::memopt::conv;

//===----------------------------------------------------------------------===//
// Helpers
//===----------------------------------------------------------------------===//

/// A `linalg.generic` whose body yields `body`'s values.
linalg::GenericOp conv::buildGeneric(
    OpBuilder &b, Location loc, TypeRange resultTypes, ValueRange inputs,
    ValueRange inits, ArrayRef<AffineMap> maps,
    ArrayRef<utils::IteratorType> iterators,
    llvm::function_ref<SmallVector<Value>(OpBuilder &, Location, ValueRange)>
        body) {
  return linalg::GenericOp::create(
      b, loc, resultTypes, inputs, inits, maps, iterators,
      [&](OpBuilder &nested, Location nestedLoc, ValueRange args) {
        linalg::YieldOp::create(nested, nestedLoc,
                                body(nested, nestedLoc, args));
      });
}

/// `strides`/`dilations` attribute of linalg's 2-D convolution ops.
static DenseIntElementsAttr getPairAttr(OpBuilder &b, ArrayRef<int64_t> pair) {
  return b.getI64TensorAttr(pair);
}

/// The smallest value of the float type `type`: -inf, or the most negative
/// finite value for types without infinities (some fp8 formats).
static Value createLowest(OpBuilder &b, Location loc, Type type) {
  auto floatType = cast<FloatType>(type);
  const llvm::fltSemantics &semantics = floatType.getFloatSemantics();
  APFloat lowest = llvm::APFloat::semanticsHasInf(semantics)
                       ? APFloat::getInf(semantics, /*Negative=*/true)
                       : APFloat::getLargest(semantics, /*Negative=*/true);
  return arith::ConstantOp::create(b, loc, b.getFloatAttr(floatType, lowest));
}

/// `type` filled with the scalar `value`.
static Value createFilledWith(OpBuilder &b, Location loc, RankedTensorType type,
                              Value value) {
  return linalg::FillOp::create(b, loc, value, createEmpty(b, loc, type))
      .getResult(0);
}

static Value insertSpatial(OpBuilder &b, Location loc, Value source, Value dest,
                           ArrayRef<int64_t> offsets,
                           ArrayRef<int64_t> strides);

/// Pads the spatial dimensions (2 and 3) of an NCHW tensor with the scalar
/// `padValue`: `low` before and `high` after.
static Value padSpatial(OpBuilder &b, Location loc, Value input,
                        ArrayRef<int64_t> low, ArrayRef<int64_t> high,
                        Value padValue) {
  if (llvm::all_of(low, [](int64_t v) { return v == 0; }) &&
      llvm::all_of(high, [](int64_t v) { return v == 0; }))
    return input;
  auto type = cast<RankedTensorType>(input.getType());
  SmallVector<int64_t> shape(type.getShape());
  for (int i = 0; i < 2; ++i)
    shape[2 + i] += low[i] + high[i];
  // A filled tensor.empty rather than tensor.pad, so that the padded copy is
  // allocated up front with the op's other buffers (allocateUpFront).
  Value padded = createFilledWith(b, loc, type.clone(shape), padValue);
  return insertSpatial(b, loc, input, padded, low, {1, 1});
}

/// The window operand of a pooling op (it only gives the window loops their
/// extent): a constant, which bufferizes to a global instead of an
/// allocation.
static Value createWindow(OpBuilder &b, Location loc, ArrayRef<int64_t> kernel,
                          Type elementType) {
  auto type = RankedTensorType::get(kernel, elementType);
  return arith::ConstantOp::create(
      b, loc, DenseElementsAttr::get(type, b.getZeroAttr(elementType)));
}

/// Pads the spatial dimensions of an NCHW tensor symmetrically with zeros.
static Value padWithZeros(OpBuilder &b, Location loc, Value input,
                          ArrayRef<int64_t> padding) {
  if (llvm::all_of(padding, [](int64_t v) { return v == 0; }))
    return input;
  Type elementType = cast<RankedTensorType>(input.getType()).getElementType();
  return padSpatial(b, loc, input, padding, padding,
                    createScalar(b, loc, elementType, 0.0));
}

/// Static offsets, sizes and strides of a slice of an NCHW tensor that
/// spans N and C and picks `sizes` elements from `offsets` with `strides`
/// along H and W.
static void getSpatialSlice(OpBuilder &b, ArrayRef<int64_t> shape,
                            ArrayRef<int64_t> offsets, ArrayRef<int64_t> sizes,
                            ArrayRef<int64_t> strides,
                            SmallVectorImpl<OpFoldResult> &offsetValues,
                            SmallVectorImpl<OpFoldResult> &sizeValues,
                            SmallVectorImpl<OpFoldResult> &strideValues) {
  offsetValues.assign({b.getIndexAttr(0), b.getIndexAttr(0),
                       b.getIndexAttr(offsets[0]), b.getIndexAttr(offsets[1])});
  sizeValues.assign({b.getIndexAttr(shape[0]), b.getIndexAttr(shape[1]),
                     b.getIndexAttr(sizes[0]), b.getIndexAttr(sizes[1])});
  strideValues.assign({b.getIndexAttr(1), b.getIndexAttr(1),
                       b.getIndexAttr(strides[0]), b.getIndexAttr(strides[1])});
}

/// Writes `source` (NCHW) into the spatial window of `dest` that starts at
/// `offsets` and steps by `strides`.
static Value insertSpatial(OpBuilder &b, Location loc, Value source, Value dest,
                           ArrayRef<int64_t> offsets,
                           ArrayRef<int64_t> strides) {
  auto type = cast<RankedTensorType>(source.getType());
  SmallVector<OpFoldResult> offsetValues, sizeValues, strideValues;
  getSpatialSlice(b, type.getShape(), offsets, type.getShape().drop_front(2),
                  strides, offsetValues, sizeValues, strideValues);
  return tensor::InsertSliceOp::create(b, loc, source, dest, offsetValues,
                                       sizeValues, strideValues);
}

/// Splits dimension `dim` of `value` into (`outer`, size / `outer`).
static Value splitDim(OpBuilder &b, Location loc, Value value, int64_t dim,
                      int64_t outer) {
  auto type = cast<RankedTensorType>(value.getType());
  SmallVector<int64_t> shape(type.getShape());
  shape[dim] /= outer;
  shape.insert(shape.begin() + dim, outer);
  SmallVector<ReassociationIndices> reassociation;
  for (int64_t i = 0, e = type.getRank(); i < e; ++i) {
    if (i < dim)
      reassociation.push_back({i});
    else if (i == dim)
      reassociation.push_back({i, i + 1});
    else
      reassociation.push_back({i + 1});
  }
  return tensor::ExpandShapeOp::create(b, loc, type.clone(shape), value,
                                       reassociation);
}

/// Merges dimensions `dim` and `dim + 1` of `value`.
static Value mergeDims(OpBuilder &b, Location loc, Value value, int64_t dim) {
  auto type = cast<RankedTensorType>(value.getType());
  SmallVector<int64_t> shape(type.getShape());
  shape[dim] *= shape[dim + 1];
  shape.erase(shape.begin() + dim + 1);
  SmallVector<ReassociationIndices> reassociation;
  for (int64_t i = 0, e = type.getRank() - 1; i < e; ++i) {
    if (i < dim)
      reassociation.push_back({i});
    else if (i == dim)
      reassociation.push_back({i, i + 1});
    else
      reassociation.push_back({i + 1});
  }
  return tensor::CollapseShapeOp::create(b, loc, type.clone(shape), value,
                                         reassociation);
}

/// Cross-correlates an already padded NCHW `input` with an OIHW `filter`
/// (I = C / groups) into a zero-initialized `N x O x OH x OW` tensor of
/// `accType`: linalg.conv_2d_nchw_fchw, or linalg.conv_2d_ngchw_gfchw on
/// views that split the channels into groups.
static Value convolve(OpBuilder &b, Location loc, Value input, Value filter,
                      ArrayRef<int64_t> outShape, int64_t groups,
                      ArrayRef<int64_t> strides, ArrayRef<int64_t> dilations,
                      Type accType) {
  auto outType = RankedTensorType::get(outShape, accType);
  DenseIntElementsAttr stridesAttr = getPairAttr(b, strides);
  DenseIntElementsAttr dilationsAttr = getPairAttr(b, dilations);
  if (groups == 1) {
    Value init = createFilled(b, loc, outType, 0.0);
    return linalg::Conv2DNchwFchwOp::create(
               b, loc, TypeRange{outType}, ValueRange{input, filter},
               ValueRange{init}, stridesAttr, dilationsAttr)
        .getResult(0);
  }
  Value groupedInput = splitDim(b, loc, input, 1, groups);
  Value groupedFilter = splitDim(b, loc, filter, 0, groups);
  auto groupedType = RankedTensorType::get(
      {outShape[0], groups, outShape[1] / groups, outShape[2], outShape[3]},
      accType);
  Value init = createFilled(b, loc, groupedType, 0.0);
  Value grouped = linalg::Conv2DNgchwGfchwOp::create(
                      b, loc, TypeRange{groupedType},
                      ValueRange{groupedInput, groupedFilter}, ValueRange{init},
                      stridesAttr, dilationsAttr)
                      .getResult(0);
  return mergeDims(b, loc, grouped, 1);
}

/// The sums over `kernel` windows of the padded NCHW `input` with `strides`
/// (linalg.pooling_nchw_sum, dilation 1) into a zero-initialized tensor of
/// the shape `outShape` and element type `accType`.
static Value sumPool(OpBuilder &b, Location loc, Value input,
                     ArrayRef<int64_t> kernel, ArrayRef<int64_t> strides,
                     ArrayRef<int64_t> outShape, Type accType) {
  Type inputElementType =
      cast<RankedTensorType>(input.getType()).getElementType();
  Value window = createWindow(b, loc, kernel, inputElementType);
  auto outType = RankedTensorType::get(outShape, accType);
  return linalg::PoolingNchwSumOp::create(
             b, loc, TypeRange{outType}, ValueRange{input, window},
             ValueRange{createFilled(b, loc, outType, 0.0)},
             getPairAttr(b, strides), getPairAttr(b, {1, 1}))
      .getResult(0);
}

/// `v` clamped into [0, extent): an index that stays in bounds where its
/// load is not used.
static Value clampIndex(OpBuilder &b, Location l, Value v, int64_t extent) {
  Value zero = arith::ConstantIndexOp::create(b, l, 0);
  Value low = arith::MaxSIOp::create(b, l, v, zero);
  Value last = arith::ConstantIndexOp::create(b, l, extent - 1);
  return arith::MinSIOp::create(b, l, low, last);
}

/// `op`'s (conv2d_grad_filter's) read of its unpadded NCHW `input` in the
/// generic over (o, c, kh, kw | n, oh, ow): the element at (n, (o / Og) *
/// Cg + c, ih, iw), ih = oh * s + kh * dil - pad (iw likewise), or zero
/// where that position lies in the padding, as the zero-padded copy would
/// give. tensor.extract at an index that stays in bounds (0 where the value
/// is not used), then a select.
static Value buildPaddedRead(OpBuilder &b, Location l,
                             train::Conv2dGradFilterOp op, Value input) {
  ArrayRef<int64_t> shape = cast<RankedTensorType>(input.getType()).getShape();
  ArrayRef<int64_t> f = cast<RankedTensorType>(op.getType()).getShape();
  ArrayRef<int64_t> strides = op.getStrides();
  ArrayRef<int64_t> dilation = op.getDilation();
  ArrayRef<int64_t> padding = op.getPadding();
  auto groups = static_cast<int64_t>(op.getGroups());
  auto c = [&](int64_t v) -> Value {
    return arith::ConstantIndexOp::create(b, l, v);
  };
  // One op per statement: the IR's order must not depend on the compiler's
  // argument evaluation order.
  Value channel = linalg::IndexOp::create(b, l, 1);
  if (groups > 1) {
    // Input channel (o / Og) * Cg + c.
    Value o = linalg::IndexOp::create(b, l, 0);
    Value group = arith::DivUIOp::create(b, l, o, c(f[0] / groups));
    Value base = arith::MulIOp::create(b, l, group, c(f[1]));
    channel = arith::AddIOp::create(b, l, base, channel);
  }
  Value inside = arith::ConstantIntOp::create(b, l, 1, 1);
  SmallVector<Value, 4> at = {linalg::IndexOp::create(b, l, 4), channel};
  for (unsigned k = 0; k < 2; ++k) {
    Value row = linalg::IndexOp::create(b, l, 5 + k);
    Value start = arith::MulIOp::create(b, l, row, c(strides[k]));
    Value tap = linalg::IndexOp::create(b, l, 2 + k);
    Value reach = arith::MulIOp::create(b, l, tap, c(dilation[k]));
    Value position = arith::AddIOp::create(b, l, start, reach);
    if (padding[k] == 0) {
      at.push_back(position);
      continue;
    }
    position = arith::SubIOp::create(b, l, position, c(padding[k]));
    // Unsigned: a position before the input wraps to a huge index.
    Value ok = arith::CmpIOp::create(b, l, arith::CmpIPredicate::ult, position,
                                     c(shape[2 + k]));
    inside = arith::AndIOp::create(b, l, inside, ok);
    at.push_back(arith::SelectOp::create(b, l, ok, position, c(0)));
  }
  Value value = tensor::ExtractOp::create(b, l, input, at);
  Value zero = createScalar(b, l, value.getType(), 0.0);
  return arith::SelectOp::create(b, l, inside, value, zero);
}

AffineMap conv::identityMap(OpBuilder &b, unsigned rank) {
  return b.getMultiDimIdentityMap(rank);
}

namespace {

//===----------------------------------------------------------------------===//
// Convolution
//===----------------------------------------------------------------------===//

/// conv2d: zero padding, then linalg.conv_2d_nchw_fchw (or its grouped form).
struct Conv2dLowering : public TrainOpLowering<train::Conv2dOp> {
  using TrainOpLowering::TrainOpLowering;
  LogicalResult
  matchAndRewrite(train::Conv2dOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    auto resultType = cast<RankedTensorType>(op.getType());
    Type elementType = resultType.getElementType();
    Value input =
        padWithZeros(rewriter, loc, adaptor.getInput(), op.getPadding());
    Value result = convolve(
        rewriter, loc, input, adaptor.getFilter(), resultType.getShape(),
        static_cast<int64_t>(op.getGroups()), op.getStrides(), op.getDilation(),
        getAccumulatorType(elementType));
    rewriter.replaceOp(op, castTensor(rewriter, loc, result, elementType));
    return success();
  }
};

/// conv2d_grad_input: dx[n, c, h, w] = sum over (o, kh, kw) of
/// dy[n, o, oh, ow] * w[o, c, kh, kw] where h + pad = oh * stride + kh * dil.
///
/// A gather: one generic over (n, g, cg, h, w | og, kh, kw) on views that
/// split the channels into groups (the filter as [G, Og, Cg, KH, KW], the
/// result as [N, G, Cg, H, W]), reading `grad` with tensor.extract at
/// (n, g * Og + og, oh, ow), oh = (h + pad - kh * dil) / s, when that
/// division is exact and in range (clamped indices otherwise, the term
/// skipped). No copy of `grad` scattered with the stride and no flipped
/// filter: no scratch beyond a 16-bit result's f32 accumulator.
struct Conv2dGradInputLowering
    : public TrainOpLowering<train::Conv2dGradInputOp> {
  using TrainOpLowering::TrainOpLowering;
  LogicalResult
  matchAndRewrite(train::Conv2dGradInputOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    MLIRContext *ctx = op.getContext();
    auto resultType = cast<RankedTensorType>(op.getType());
    Type elementType = resultType.getElementType();
    Type accType = getAccumulatorType(elementType);
    Value grad = adaptor.getGrad();
    Value filter = adaptor.getFilter();
    ArrayRef<int64_t> x = resultType.getShape();
    ArrayRef<int64_t> dy = cast<RankedTensorType>(grad.getType()).getShape();
    ArrayRef<int64_t> f = cast<RankedTensorType>(filter.getType()).getShape();
    ArrayRef<int64_t> strides = op.getStrides();
    ArrayRef<int64_t> padding = op.getPadding();
    ArrayRef<int64_t> dilation = op.getDilation();
    auto groups = static_cast<int64_t>(op.getGroups());
    int64_t cPerGroup = f[1], oPerGroup = f[0] / groups;

    // Loops (n, g, cg, h, w | og, kh, kw).
    SmallVector<AffineExpr> d;
    for (unsigned i = 0; i < 8; ++i)
      d.push_back(rewriter.getAffineDimExpr(i));
    AffineMap filterMap =
        AffineMap::get(8, 0, {d[1], d[5], d[2], d[6], d[7]}, ctx);
    AffineMap outMap =
        AffineMap::get(8, 0, {d[0], d[1], d[2], d[3], d[4]}, ctx);
    auto par = utils::IteratorType::parallel;
    auto red = utils::IteratorType::reduction;
    Value groupedFilter = splitDim(rewriter, loc, filter, 0, groups);
    auto accType5 =
        RankedTensorType::get({x[0], groups, cPerGroup, x[2], x[3]}, accType);
    Value sum =
        buildGeneric(
            rewriter, loc, TypeRange{accType5}, ValueRange{groupedFilter},
            ValueRange{createFilled(rewriter, loc, accType5, 0.0)},
            {filterMap, outMap}, {par, par, par, par, par, red, red, red},
            [&](OpBuilder &b, Location l, ValueRange args) {
              auto c = [&](int64_t v) -> Value {
                return arith::ConstantIndexOp::create(b, l, v);
              };
              auto index = [&](unsigned dim) -> Value {
                return linalg::IndexOp::create(b, l, dim);
              };
              // One op per statement: the IR's order must not depend on
              // the compiler's argument evaluation order.
              Value valid = arith::ConstantIntOp::create(b, l, 1, 1);
              Value outChannel = index(5);
              Value group = index(1);
              Value base = arith::MulIOp::create(b, l, group, c(oPerGroup));
              Value channel = arith::AddIOp::create(b, l, base, outChannel);
              SmallVector<Value, 4> at = {index(0), channel};
              for (int k = 0; k < 2; ++k) {
                // position = h + pad - kh * dil = oh * s when it is read.
                Value h = index(3 + k);
                Value padded = arith::AddIOp::create(b, l, h, c(padding[k]));
                Value kh = index(6 + k);
                Value reach = arith::MulIOp::create(b, l, kh, c(dilation[k]));
                Value position = arith::SubIOp::create(b, l, padded, reach);
                Value clamped =
                    clampIndex(b, l, position, dy[2 + k] * strides[k]);
                Value row =
                    arith::DivUIOp::create(b, l, clamped, c(strides[k]));
                // Outside [0, OH * s) the clamped position differs too.
                Value exact = arith::MulIOp::create(b, l, row, c(strides[k]));
                Value hit = arith::CmpIOp::create(
                    b, l, arith::CmpIPredicate::eq, exact, position);
                valid = arith::AndIOp::create(b, l, valid, hit);
                at.push_back(row);
              }
              Value g = tensor::ExtractOp::create(b, l, grad, at);
              Value lhs = castScalar(b, l, g, accType);
              Value rhs = castScalar(b, l, args[0], accType);
              Value product = arith::MulFOp::create(b, l, lhs, rhs);
              Value zero = createScalar(b, l, accType, 0.0);
              Value term = arith::SelectOp::create(b, l, valid, product, zero);
              return SmallVector<Value>{
                  arith::AddFOp::create(b, l, args[1], term)};
            })
            .getResult(0);
    sum = mergeDims(rewriter, loc, sum, 1);
    rewriter.replaceOp(op, castTensor(rewriter, loc, sum, elementType));
    return success();
  }
};

/// conv2d_grad_filter: dw[o, c, kh, kw] = sum over (n, oh, ow) of
/// dy[n, o, oh, ow] * x[n, g(o) * Cg + c, ih, iw], ih = oh*s + kh*dil - pad
/// (iw likewise), the term 0 * dy where ih or iw falls in the padding.
///
/// One linalg.generic over (o, c, kh, kw | n, oh, ow) that reads `grad`
/// through its indexing map and the unpadded input in place: through an
/// indexing map as well when there is no padding, else with tensor.extract
/// (buildPaddedRead). No padded copy of the input: no scratch beyond a
/// 16-bit result's f32 accumulator.
struct Conv2dGradFilterLowering
    : public TrainOpLowering<train::Conv2dGradFilterOp> {
  using TrainOpLowering::TrainOpLowering;
  LogicalResult
  matchAndRewrite(train::Conv2dGradFilterOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    auto resultType = cast<RankedTensorType>(op.getType());
    Type elementType = resultType.getElementType();
    Type accType = getAccumulatorType(elementType);
    ArrayRef<int64_t> f = resultType.getShape();
    ArrayRef<int64_t> strides = op.getStrides();
    ArrayRef<int64_t> dilation = op.getDilation();
    ArrayRef<int64_t> padding = op.getPadding();
    auto groups = static_cast<int64_t>(op.getGroups());
    Value input = adaptor.getInput();
    bool padded = llvm::any_of(padding, [](int64_t v) { return v != 0; });

    SmallVector<AffineExpr> d;
    for (unsigned i = 0; i < 7; ++i)
      d.push_back(rewriter.getAffineDimExpr(i));
    // (o, c, kh, kw, n, oh, ow)
    AffineExpr channel = d[1];
    if (groups > 1)
      channel = d[0].floorDiv(f[0] / groups) * f[1] + d[1];
    MLIRContext *ctx = rewriter.getContext();
    AffineMap gradMap = AffineMap::get(7, 0, {d[4], d[0], d[5], d[6]}, ctx);
    AffineMap outMap = AffineMap::get(7, 0, {d[0], d[1], d[2], d[3]}, ctx);
    SmallVector<Value> inputs = {adaptor.getGrad()};
    SmallVector<AffineMap> maps = {gradMap};
    if (!padded) {
      inputs.push_back(input);
      maps.push_back(
          AffineMap::get(7, 0,
                         {d[4], channel, d[5] * strides[0] + d[2] * dilation[0],
                          d[6] * strides[1] + d[3] * dilation[1]},
                         ctx));
    }
    maps.push_back(outMap);
    auto par = utils::IteratorType::parallel;
    auto red = utils::IteratorType::reduction;
    auto accTensorType = resultType.clone(accType);
    Value result =
        buildGeneric(rewriter, loc, accTensorType, inputs,
                     createFilled(rewriter, loc, accTensorType, 0.0), maps,
                     {par, par, par, par, red, red, red},
                     [&](OpBuilder &b, Location l, ValueRange args) {
                       Value x =
                           padded ? buildPaddedRead(b, l, op, input) : args[1];
                       Value dy = castScalar(b, l, args[0], accType);
                       Value xv = castScalar(b, l, x, accType);
                       Value product = arith::MulFOp::create(b, l, dy, xv);
                       return SmallVector<Value>{
                           arith::AddFOp::create(b, l, args.back(), product)};
                     })
            .getResult(0);
    rewriter.replaceOp(op, castTensor(rewriter, loc, result, elementType));
    return success();
  }
};

//===----------------------------------------------------------------------===//
// Pooling
//===----------------------------------------------------------------------===//

/// max_pool2d: padding with -inf (it never wins), linalg.pooling_nchw_max.
/// A ceil_mode window that reaches past the padding gets more -inf at the
/// bottom and right.
struct MaxPool2dLowering : public TrainOpLowering<train::MaxPool2dOp> {
  using TrainOpLowering::TrainOpLowering;
  LogicalResult
  matchAndRewrite(train::MaxPool2dOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    auto resultType = cast<RankedTensorType>(op.getType());
    Type elementType = resultType.getElementType();
    Value lowest = createLowest(rewriter, loc, elementType);
    ArrayRef<int64_t> in =
        cast<RankedTensorType>(adaptor.getInput().getType()).getShape();
    SmallVector<int64_t> high;
    for (unsigned d = 0; d < 2; ++d)
      high.push_back(train::getPoolEndPadding(in, resultType.getShape(),
                                              op.getKernel(), op.getStrides(),
                                              op.getPadding(), d));
    Value input = padSpatial(rewriter, loc, adaptor.getInput(), op.getPadding(),
                             high, lowest);
    Value window = createWindow(rewriter, loc, op.getKernel(), elementType);
    Value init = createFilledWith(rewriter, loc, resultType, lowest);
    Value result =
        linalg::PoolingNchwMaxOp::create(
            rewriter, loc, TypeRange{resultType}, ValueRange{input, window},
            ValueRange{init}, getPairAttr(rewriter, op.getStrides()),
            getPairAttr(rewriter, {1, 1}))
            .getResult(0);
    rewriter.replaceOp(op, result);
    return success();
  }
};

/// The shape of a pooling gradient: the input's shape `x` (N x C x H x W),
/// the pooled shape `y` (N x C x OH x OW) and the pooling window.
struct PoolGeometry {
  ArrayRef<int64_t> x, y, kernel, strides, padding;
};

} // namespace

/// One step of a window's argmax over candidate `value` at window-relative
/// index `candidate` (i32), counted only when `inside` the unpadded input:
/// returns the new (best, bestIndex), keeping PyTorch's choice (the first
/// maximum in row-major order, or the last NaN). A negative `bestIndex`
/// means no candidate yet.
static std::pair<Value, Value> buildArgmaxStep(OpBuilder &b, Location l,
                                               Value value, Value candidate,
                                               Value inside, Value best,
                                               Value bestIndex) {
  Type i32 = b.getI32Type();
  auto cmpf = [&](arith::CmpFPredicate p, Value lhs, Value rhs) {
    return arith::CmpFOp::create(b, l, p, lhs, rhs);
  };
  auto cmpi = [&](arith::CmpIPredicate p, Value lhs, Value rhs) {
    return arith::CmpIOp::create(b, l, p, lhs, rhs);
  };
  Value isNan = cmpf(arith::CmpFPredicate::UNO, value, value);
  Value bestIsNan = cmpf(arith::CmpFPredicate::UNO, best, best);
  Value bestIsNumber = cmpf(arith::CmpFPredicate::ORD, best, best);
  // A NaN wins over numbers and over earlier NaNs.
  Value nanWins = arith::OrIOp::create(
      b, l,
      arith::XOrIOp::create(b, l, bestIsNan,
                            arith::ConstantIntOp::create(b, l, 1, 1)),
      cmpi(arith::CmpIPredicate::sgt, candidate, bestIndex));
  // A number wins over a smaller number, or an equal one that comes later.
  Value greater = cmpf(arith::CmpFPredicate::OGT, value, best);
  Value earlierTie = arith::AndIOp::create(
      b, l, cmpf(arith::CmpFPredicate::OEQ, value, best),
      cmpi(arith::CmpIPredicate::slt, candidate, bestIndex));
  Value numberWins = arith::AndIOp::create(
      b, l, bestIsNumber, arith::OrIOp::create(b, l, greater, earlierTie));
  Value wins = arith::SelectOp::create(b, l, isNan, nanWins, numberWins);
  Value first = cmpi(arith::CmpIPredicate::slt, bestIndex,
                     arith::ConstantIntOp::create(b, l, i32, 0));
  Value take = arith::AndIOp::create(b, l, inside,
                                     arith::OrIOp::create(b, l, first, wins));
  return {arith::SelectOp::create(b, l, take, value, best),
          arith::SelectOp::create(b, l, take, candidate, bestIndex)};
}

/// The windows that cover an input position, for the gather generic over
/// (n, c, h, w | j, i) of a pooling gradient: the padded position
/// (ph, pw) = (h + pad, w + pad) lies in the windows (oh, ow) =
/// (ph / s - j, pw / s - i) that start at most KH - 1 (KW - 1) before it.
/// With j and i ascending, a position's windows come in the order of its
/// offset (kh, kw) in them, row-major.
struct CoveringWindow {
  /// The window's (oh, ow), clamped into the pooled shape.
  SmallVector<Value, 2> start;
  /// The position's (kh, kw) in the window.
  SmallVector<Value, 2> offset;
  /// Whether the window exists (i1).
  Value valid;
};

static CoveringWindow buildCoveringWindow(OpBuilder &b, Location l,
                                          const PoolGeometry &g) {
  auto c = [&](int64_t v) -> Value {
    return arith::ConstantIndexOp::create(b, l, v);
  };
  auto cmp = [&](arith::CmpIPredicate p, Value lhs, Value rhs) -> Value {
    return arith::CmpIOp::create(b, l, p, lhs, rhs);
  };
  CoveringWindow w;
  w.valid = arith::ConstantIntOp::create(b, l, 1, 1);
  for (int d = 0; d < 2; ++d) {
    Value padded = arith::AddIOp::create(
        b, l, linalg::IndexOp::create(b, l, 2 + d), c(g.padding[d]));
    Value o = arith::SubIOp::create(
        b, l, arith::DivUIOp::create(b, l, padded, c(g.strides[d])),
        linalg::IndexOp::create(b, l, 4 + d));
    Value off = arith::SubIOp::create(
        b, l, padded, arith::MulIOp::create(b, l, o, c(g.strides[d])));
    for (Value ok : {cmp(arith::CmpIPredicate::sge, o, c(0)),
                     cmp(arith::CmpIPredicate::slt, o, c(g.y[2 + d])),
                     cmp(arith::CmpIPredicate::slt, off, c(g.kernel[d]))})
      w.valid = arith::AndIOp::create(b, l, w.valid, ok);
    w.start.push_back(clampIndex(b, l, o, g.y[2 + d]));
    w.offset.push_back(off);
  }
  return w;
}

/// A pooling gradient as a gather: one generic over (n, c, h, w | j, i),
/// j < ceil(KH / s), i < ceil(KW / s), that accumulates `contribution(b, l,
/// window, acc)` of every window covering each input position
/// (buildCoveringWindow) into zeros of `accType`, rounded to the result's
/// type at the end. No padded or scattered copy: the workspace is the f32
/// accumulator of 16-bit results alone.
static Value buildWindowGather(
    OpBuilder &b, Location loc, RankedTensorType resultType, Type accType,
    const PoolGeometry &g,
    function_ref<Value(OpBuilder &, Location, const CoveringWindow &, Value)>
        contribution) {
  MLIRContext *ctx = b.getContext();
  SmallVector<int64_t> reach = {
      llvm::divideCeilSigned(g.kernel[0], g.strides[0]),
      llvm::divideCeilSigned(g.kernel[1], g.strides[1])};
  SmallVector<AffineExpr> d;
  for (unsigned i = 0; i < 6; ++i)
    d.push_back(b.getAffineDimExpr(i));
  // The window operand only gives the (j, i) loops their extent.
  AffineMap windowMap = AffineMap::get(6, 0, {d[4], d[5]}, ctx);
  AffineMap outMap = AffineMap::get(6, 0, {d[0], d[1], d[2], d[3]}, ctx);
  auto par = utils::IteratorType::parallel;
  auto red = utils::IteratorType::reduction;
  auto accTensorType = resultType.clone(accType);
  Value sum =
      buildGeneric(b, loc, TypeRange{accTensorType},
                   ValueRange{createWindow(b, loc, reach, accType)},
                   ValueRange{createFilled(b, loc, accTensorType, 0.0)},
                   {windowMap, outMap}, {par, par, par, par, red, red},
                   [&](OpBuilder &nb, Location l, ValueRange args) {
                     CoveringWindow w = buildCoveringWindow(nb, l, g);
                     return SmallVector<Value>{contribution(nb, l, w, args[1])};
                   })
          .getResult(0);
  return castTensor(b, loc, sum, resultType.getElementType());
}

/// max_pool2d_grad's contribution of `window` to `acc`: the window's argmax
/// is recomputed from `input` (tensor.extract, clamped indices, padding
/// skipped), and `grad` at the window is added when the argmax is the
/// position.
static Value buildRouteToArgmax(OpBuilder &b, Location l, Value input,
                                Value grad, const CoveringWindow &window,
                                Value acc, const PoolGeometry &g) {
  Type i32 = b.getI32Type();
  Type elementType = cast<RankedTensorType>(input.getType()).getElementType();
  auto c = [&](int64_t v) -> Value {
    return arith::ConstantIndexOp::create(b, l, v);
  };
  auto cmp = [&](arith::CmpIPredicate p, Value lhs, Value rhs) -> Value {
    return arith::CmpIOp::create(b, l, p, lhs, rhs);
  };
  Value n = linalg::IndexOp::create(b, l, 0);
  Value ch = linalg::IndexOp::create(b, l, 1);
  // The window's argmax, unrolled over its KH x KW positions.
  Value best = createScalar(b, l, elementType, 0.0);
  Value bestIndex = arith::ConstantIntOp::create(b, l, i32, -1);
  for (int64_t kh = 0; kh < g.kernel[0]; ++kh) {
    for (int64_t kw = 0; kw < g.kernel[1]; ++kw) {
      Value inside = arith::ConstantIntOp::create(b, l, 1, 1);
      SmallVector<Value, 4> at = {n, ch};
      int64_t position[2] = {kh, kw};
      for (int d = 0; d < 2; ++d) {
        int64_t k = position[d];
        Value pos = arith::SubIOp::create(
            b, l,
            arith::AddIOp::create(
                b, l,
                arith::MulIOp::create(b, l, window.start[d], c(g.strides[d])),
                c(k)),
            c(g.padding[d]));
        // Windows reach outside the input through the padding, or past
        // its end (a ceil_mode window).
        bool reachesOut = g.padding[d] != 0 ||
                          train::getPoolEndPadding(
                              g.x, g.y, g.kernel, g.strides, g.padding, d) != 0;
        if (!reachesOut) {
          at.push_back(pos);
          continue;
        }
        for (Value ok : {cmp(arith::CmpIPredicate::sge, pos, c(0)),
                         cmp(arith::CmpIPredicate::slt, pos, c(g.x[2 + d]))})
          inside = arith::AndIOp::create(b, l, inside, ok);
        at.push_back(clampIndex(b, l, pos, g.x[2 + d]));
      }
      Value value = tensor::ExtractOp::create(b, l, input, at);
      Value candidate =
          arith::ConstantIntOp::create(b, l, i32, kh * g.kernel[1] + kw);
      std::tie(best, bestIndex) =
          buildArgmaxStep(b, l, value, candidate, inside, best, bestIndex);
    }
  }
  Value here = arith::IndexCastOp::create(
      b, l, i32,
      arith::AddIOp::create(
          b, l, arith::MulIOp::create(b, l, window.offset[0], c(g.kernel[1])),
          window.offset[1]));
  Value hit = arith::AndIOp::create(
      b, l, window.valid, cmp(arith::CmpIPredicate::eq, bestIndex, here));
  Value dy = castScalar(
      b, l,
      tensor::ExtractOp::create(
          b, l, grad, ValueRange{n, ch, window.start[0], window.start[1]}),
      acc.getType());
  return arith::SelectOp::create(b, l, hit,
                                 arith::AddFOp::create(b, l, acc, dy), acc);
}

namespace {

/// max_pool2d_grad as a gather (buildWindowGather): each input position
/// sums `grad` over the windows whose recomputed argmax it is
/// (buildRouteToArgmax). No padded copy, no argmax or window-maximum
/// tensors. (PyTorch instead saves int64 argmax indices from the forward
/// pass, twice the pooled output's f32 bytes.)
struct MaxPool2dGradLowering : public TrainOpLowering<train::MaxPool2dGradOp> {
  using TrainOpLowering::TrainOpLowering;
  LogicalResult
  matchAndRewrite(train::MaxPool2dGradOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    auto resultType = cast<RankedTensorType>(op.getType());
    PoolGeometry g{
        resultType.getShape(),
        cast<RankedTensorType>(adaptor.getGrad().getType()).getShape(),
        op.getKernel(), op.getStrides(), op.getPadding()};
    Value input = adaptor.getInput(), grad = adaptor.getGrad();
    rewriter.replaceOp(
        op,
        buildWindowGather(
            rewriter, op.getLoc(), resultType,
            getAccumulatorType(resultType.getElementType()), g,
            [&](OpBuilder &b, Location l, const CoveringWindow &w, Value acc) {
              return buildRouteToArgmax(b, l, input, grad, w, acc, g);
            }));
    return success();
  }
};

/// avg_pool2d (count_include_pad): zero padding, linalg.pooling_nchw_sum,
/// then division by KH * KW.
struct AvgPool2dLowering : public TrainOpLowering<train::AvgPool2dOp> {
  using TrainOpLowering::TrainOpLowering;
  LogicalResult
  matchAndRewrite(train::AvgPool2dOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    auto resultType = cast<RankedTensorType>(op.getType());
    Type elementType = resultType.getElementType();
    Type accType = getAccumulatorType(elementType);
    ArrayRef<int64_t> kernel = op.getKernel();
    Value input =
        padWithZeros(rewriter, loc, adaptor.getInput(), op.getPadding());
    Value sum = sumPool(rewriter, loc, input, kernel, op.getStrides(),
                        resultType.getShape(), accType);
    double count = static_cast<double>(kernel[0] * kernel[1]);
    auto divide = [&](OpBuilder &b, Location l, ValueRange args) {
      Value mean = arith::DivFOp::create(b, l, args[0],
                                         createScalar(b, l, accType, count));
      return castScalar(b, l, mean, elementType);
    };
    // The division overwrites the sums unless it also rounds them.
    Value result =
        accType == elementType
            ? buildElementwiseInPlace(rewriter, loc, ValueRange{}, sum, divide)
            : buildElementwise(rewriter, loc, resultType, sum, divide);
    rewriter.replaceOp(op, result);
    return success();
  }
};

/// avg_pool2d_grad (count_include_pad) as a gather (buildWindowGather):
/// each input position sums grad / (KH * KW) over the windows that cover
/// it, padding included in the count.
struct AvgPool2dGradLowering : public TrainOpLowering<train::AvgPool2dGradOp> {
  using TrainOpLowering::TrainOpLowering;
  LogicalResult
  matchAndRewrite(train::AvgPool2dGradOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    auto resultType = cast<RankedTensorType>(op.getType());
    Type accType = getAccumulatorType(resultType.getElementType());
    ArrayRef<int64_t> kernel = op.getKernel();
    PoolGeometry g{
        resultType.getShape(),
        cast<RankedTensorType>(adaptor.getGrad().getType()).getShape(), kernel,
        op.getStrides(), op.getPadding()};
    double count = static_cast<double>(kernel[0] * kernel[1]);
    Value grad = adaptor.getGrad();
    rewriter.replaceOp(
        op, buildWindowGather(rewriter, op.getLoc(), resultType, accType, g,
                              [&](OpBuilder &b, Location l,
                                  const CoveringWindow &w, Value acc) -> Value {
                                Value dy = tensor::ExtractOp::create(
                                    b, l, grad,
                                    ValueRange{linalg::IndexOp::create(b, l, 0),
                                               linalg::IndexOp::create(b, l, 1),
                                               w.start[0], w.start[1]});
                                Value share = arith::DivFOp::create(
                                    b, l, castScalar(b, l, dy, accType),
                                    createScalar(b, l, accType, count));
                                return arith::SelectOp::create(
                                    b, l, w.valid,
                                    arith::AddFOp::create(b, l, acc, share),
                                    acc);
                              }));
    return success();
  }
};

} // namespace

void mlir::memopt::populateConvLoweringPatterns(RewritePatternSet &patterns) {
  patterns.add<Conv2dLowering, Conv2dGradInputLowering,
               Conv2dGradFilterLowering, MaxPool2dLowering,
               MaxPool2dGradLowering, AvgPool2dLowering, AvgPool2dGradLowering>(
      patterns.getContext());
}
