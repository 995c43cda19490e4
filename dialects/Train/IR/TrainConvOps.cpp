//===- TrainConvOps.cpp - verifiers of the convolutional ops -------------===//
//
// Convolution, pooling and upsampling ops and their gradients: shape checks
// (costs and workspaces: TrainCosts.cpp).
//
//===----------------------------------------------------------------------===//

#include "TrainOpUtils.h"
#include "memopt/Dialect/Train/IR/ComputeTypes.h"
#include "memopt/Dialect/Train/IR/TrainOps.h"

using namespace mlir;
using namespace mlir::memopt::train;
using namespace mlir::memopt::train::detail;

//===----------------------------------------------------------------------===//
// Convolutional networks
//===----------------------------------------------------------------------===//

/// Output size of a window op along one dimension (a value < 1 if the
/// window does not fit), or std::nullopt if the arithmetic overflows.
static std::optional<int64_t> windowOutputSize(int64_t in, int64_t kernel,
                                               int64_t stride, int64_t pad,
                                               int64_t dilation) {
  std::optional<int64_t> padded = llvm::checkedMul(int64_t(2), pad);
  if (padded)
    padded = llvm::checkedAdd(in, *padded);
  std::optional<int64_t> extent = llvm::checkedMul(dilation, kernel - 1);
  if (!padded || !extent)
    return std::nullopt;
  int64_t span = *padded - *extent - 1;
  if (span < 0)
    return 0;
  return span / stride + 1;
}

static LogicalResult emitWindowOverflow(Operation *op) {
  return op->emitOpError(
      "window attributes overflow 64-bit arithmetic on the input shape");
}

/// Checks a convolution's input (N x C x H x W), filter
/// (O x C/groups x KH x KW) and output (N x O x OH x OW) against each other.
static LogicalResult verifyConvShapes(
    Operation *op, Value input, Value filter, Value output, StringRef inputName,
    StringRef filterName, StringRef outputName, ArrayRef<int64_t> strides,
    ArrayRef<int64_t> padding, ArrayRef<int64_t> dilation, int64_t groups) {
  if (failed(checkRank(op, inputName, input, 4)) ||
      failed(checkRank(op, filterName, filter, 4)) ||
      failed(checkIntList(op, "strides", strides, 2, 1)) ||
      failed(checkIntList(op, "padding", padding, 2, 0)) ||
      failed(checkIntList(op, "dilation", dilation, 2, 1)))
    return failure();
  if (groups < 1)
    return op->emitOpError() << "expected groups >= 1, got " << groups;
  ArrayRef<int64_t> in = shapeOf(input), f = shapeOf(filter);
  if (in[1] % groups != 0 || f[0] % groups != 0)
    return op->emitOpError()
           << "expected input channels (" << in[1] << ") and output channels ("
           << f[0] << ") divisible by groups (" << groups << ")";
  if (f[1] != in[1] / groups)
    return op->emitOpError()
           << "expected " << filterName << " of shape " << f[0] << "x"
           << in[1] / groups << "x" << f[2] << "x" << f[3]
           << " (input channels / groups), got " << formatShape(f);
  SmallVector<int64_t> expected = {in[0], f[0]};
  for (int i = 0; i < 2; ++i) {
    std::optional<int64_t> size = windowOutputSize(
        in[2 + i], f[2 + i], strides[i], padding[i], dilation[i]);
    if (!size)
      return emitWindowOverflow(op);
    if (*size < 1)
      return op->emitOpError()
             << "filter " << formatShape(f) << " does not fit the padded "
             << inputName << " " << formatShape(in);
    expected.push_back(*size);
  }
  if (failed(checkShape(op, outputName, expected, shapeOf(output))))
    return failure();
  if (failed(checkElementType(op, filterName, elementTypeOf(input),
                              elementTypeOf(filter))))
    return failure();
  return checkElementType(op, outputName, elementTypeOf(input),
                          elementTypeOf(output));
}

LogicalResult Conv2dOp::verify() {
  return verifyConvShapes(*this, getInput(), getFilter(), getResult(), "input",
                          "filter", "result", getStrides(), getPadding(),
                          getDilation(), static_cast<int64_t>(getGroups()));
}

LogicalResult Conv2dGradInputOp::verify() {
  return verifyConvShapes(*this, getResult(), getFilter(), getGrad(), "result",
                          "filter", "grad", getStrides(), getPadding(),
                          getDilation(), static_cast<int64_t>(getGroups()));
}

LogicalResult Conv2dGradFilterOp::verify() {
  return verifyConvShapes(*this, getInput(), getResult(), getGrad(), "input",
                          "result", "grad", getStrides(), getPadding(),
                          getDilation(), static_cast<int64_t>(getGroups()));
}

/// Checks a pooling window: `output` must be the pooled shape of `input`;
/// with `ceilMode` the window count is rounded up as PyTorch's ceil_mode (a
/// last window that would start beyond the input and its left padding is
/// dropped).
static LogicalResult verifyPoolShapes(Operation *op, Value input, Value output,
                                      StringRef inputName, StringRef outputName,
                                      ArrayRef<int64_t> kernel,
                                      ArrayRef<int64_t> strides,
                                      ArrayRef<int64_t> padding,
                                      bool ceilMode = false) {
  if (failed(checkRank(op, inputName, input, 4)) ||
      failed(checkIntList(op, "kernel", kernel, 2, 1)) ||
      failed(checkIntList(op, "strides", strides, 2, 1)) ||
      failed(checkIntList(op, "padding", padding, 2, 0)))
    return failure();
  ArrayRef<int64_t> in = shapeOf(input);
  SmallVector<int64_t> expected = {in[0], in[1]};
  for (int i = 0; i < 2; ++i) {
    if (padding[i] > kernel[i] / 2)
      return op->emitOpError() << "expected padding at most half the kernel, "
                                  "got padding "
                               << padding[i] << " for kernel " << kernel[i];
    std::optional<int64_t> size =
        windowOutputSize(in[2 + i], kernel[i], strides[i], padding[i], 1);
    if (!size)
      return emitWindowOverflow(op);
    if (*size < 1)
      return op->emitOpError()
             << "kernel " << formatShape(kernel) << " does not fit the padded "
             << inputName << " " << formatShape(in);
    // The padded extent is known not to overflow (windowOutputSize).
    int64_t span = in[2 + i] + 2 * padding[i] - kernel[i];
    if (ceilMode && span % strides[i] != 0 &&
        *size * strides[i] < in[2 + i] + padding[i])
      ++*size;
    expected.push_back(*size);
  }
  if (failed(checkShape(op, outputName, expected, shapeOf(output))))
    return failure();
  return checkElementType(op, outputName, elementTypeOf(input),
                          elementTypeOf(output));
}

int64_t mlir::memopt::train::getPoolEndPadding(
    ArrayRef<int64_t> input, ArrayRef<int64_t> pooled, ArrayRef<int64_t> kernel,
    ArrayRef<int64_t> strides, ArrayRef<int64_t> padding, unsigned dim) {
  int64_t reach = (pooled[2 + dim] - 1) * strides[dim] + kernel[dim];
  return std::max(padding[dim], reach - padding[dim] - input[2 + dim]);
}

LogicalResult MaxPool2dOp::verify() {
  return verifyPoolShapes(*this, getInput(), getResult(), "input", "result",
                          getKernel(), getStrides(), getPadding(),
                          getCeilMode());
}

LogicalResult AvgPool2dOp::verify() {
  return verifyPoolShapes(*this, getInput(), getResult(), "input", "result",
                          getKernel(), getStrides(), getPadding());
}

LogicalResult MaxPool2dGradOp::verify() {
  if (failed(checkSameType(*this, "result", getInput(), getResult())))
    return failure();
  return verifyPoolShapes(*this, getInput(), getGrad(), "input", "grad",
                          getKernel(), getStrides(), getPadding(),
                          getCeilMode());
}

LogicalResult AvgPool2dGradOp::verify() {
  return verifyPoolShapes(*this, getResult(), getGrad(), "result", "grad",
                          getKernel(), getStrides(), getPadding());
}

/// `large` must be `small` with both spatial dimensions times `scale`.
static LogicalResult verifyUpsampleShapes(Operation *op, Value small,
                                          Value large, StringRef smallName,
                                          StringRef largeName, int64_t scale) {
  if (failed(checkRank(op, smallName, small, 4)))
    return failure();
  if (scale < 1)
    return op->emitOpError() << "expected scale >= 1, got " << scale;
  ArrayRef<int64_t> s = shapeOf(small);
  std::optional<int64_t> h = llvm::checkedMul(s[2], scale);
  std::optional<int64_t> w = llvm::checkedMul(s[3], scale);
  if (!h || !w)
    return op->emitOpError()
           << "scale " << scale << " overflows the size of " << formatShape(s);
  if (failed(checkShape(op, largeName, {s[0], s[1], *h, *w}, shapeOf(large))))
    return failure();
  return checkElementType(op, largeName, elementTypeOf(small),
                          elementTypeOf(large));
}

LogicalResult UpsampleNearest2dOp::verify() {
  return verifyUpsampleShapes(*this, getInput(), getResult(), "input", "result",
                              static_cast<int64_t>(getScale()));
}

LogicalResult UpsampleNearest2dGradOp::verify() {
  return verifyUpsampleShapes(*this, getResult(), getGrad(), "result", "grad",
                              static_cast<int64_t>(getScale()));
}
