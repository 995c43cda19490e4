//===- TorchImportConvPool.cpp - convolution and pooling ------------------===//
//
// The handlers of 2-D convolution, max, average and adaptive average
// pooling (NCHW), and aten.mean (a global average pool over NCHW spatial
// dimensions, else a sum and a scale).
//
//===----------------------------------------------------------------------===//

#include "TorchImportInternal.h"

#include "memopt/Dialect/Train/IR/TrainOps.h"

#include <algorithm>

using namespace mlir;
using namespace mlir::memopt;
using namespace mlir::memopt::import;
using namespace mlir::memopt::import::detail;

//===----------------------------------------------------------------------===//
// Handlers
//===----------------------------------------------------------------------===//

LogicalResult GraphImporter::importConvolution(Node &node,
                                               SmallVectorImpl<Result> &out) {
  FailureOr<Value> input = getTensor(node, 0);
  FailureOr<Value> filter = getTensor(node, 1);
  if (failed(input) || failed(filter))
    return failure();
  if (shapeOf(*input).size() != 4)
    return emitError(node.loc)
           << "only 2-D convolutions (NCHW inputs) are supported; this one "
              "has a rank-"
           << shapeOf(*input).size() << " input";
  FailureOr<SmallVector<int64_t>> strides = getIntList(node, 3, "stride", 2);
  FailureOr<SmallVector<int64_t>> padding = getIntList(node, 4, "padding", 2);
  FailureOr<SmallVector<int64_t>> dilation = getIntList(node, 5, "dilation", 2);
  FailureOr<bool> transposed = getBool(node, 6, "transposed", false);
  FailureOr<int64_t> groups = getInt(node, 8, "groups", 1);
  if (failed(strides) || failed(padding) || failed(dilation) ||
      failed(transposed) || failed(groups))
    return failure();
  if (*transposed)
    return emitError(node.loc)
           << "transposed convolutions (ConvTranspose2d) are not supported";
  FailureOr<RankedTensorType> outputType = getRequiredOutputType(node);
  if (failed(outputType))
    return failure();
  RankedTensorType type = *outputType;
  Value result = train::Conv2dOp::create(
      getBuilder(), builder->loc("conv"), type, *input, *filter, *strides,
      *padding, *dilation, static_cast<uint64_t>(*groups));
  if (!node.isNone(2)) {
    FailureOr<Value> bias = getTensor(node, 2);
    if (failed(bias))
      return failure();
    result = builder->biasAdd(result, *bias, 1, "bias");
  }
  out.push_back(plain(result));
  return success();
}

/// Fails unless every kernel size and stride is positive and every padding
/// non-negative and at most half the kernel (as PyTorch requires).
static LogicalResult checkWindows(Node &node, ArrayRef<int64_t> kernel,
                                  ArrayRef<int64_t> strides,
                                  ArrayRef<int64_t> padding) {
  for (int d = 0; d < 2; ++d)
    // padding > kernel / 2, as 2 * padding > kernel overflows for huge
    // paddings.
    if (kernel[d] <= 0 || strides[d] <= 0 || padding[d] < 0 ||
        padding[d] > kernel[d] / 2)
      return emitError(node.loc)
             << node.target << ": kernel " << kernel[d] << ", stride "
             << strides[d] << " and padding " << padding[d]
             << " do not describe a pooling window";
  return success();
}

/// Whether PyTorch's ceil_mode adds a partial last window to pooling the
/// NCHW shape `in`: in a dimension whose windows do not tile the padded
/// input, one more window when it starts inside the input or its left
/// padding.
static bool addsPartialWindow(ArrayRef<int64_t> in, ArrayRef<int64_t> kernel,
                              ArrayRef<int64_t> strides,
                              ArrayRef<int64_t> padding) {
  for (int d = 0; d < 2; ++d) {
    // in + 2 * padding - kernel, without overflow: checkWindows bounds the
    // padding by half the kernel, which may be near INT64_MAX.
    int64_t span = in[2 + d] - (kernel[d] - 2 * padding[d]);
    int64_t windows = span / strides[d] + 1;
    if (span % strides[d] != 0 && windows * strides[d] < in[2 + d] + padding[d])
      return true;
  }
  return false;
}

LogicalResult GraphImporter::importMaxPool(Node &node,
                                           SmallVectorImpl<Result> &out) {
  FailureOr<Value> input = getTensor(node, 0);
  FailureOr<SmallVector<int64_t>> kernel =
      getIntList(node, 1, "kernel_size", 2);
  if (failed(input) || failed(kernel))
    return failure();
  FailureOr<SmallVector<int64_t>> strides =
      getIntList(node, 2, "stride", 2, *kernel);
  FailureOr<SmallVector<int64_t>> padding =
      getIntList(node, 3, "padding", 2, SmallVector<int64_t>{0, 0});
  FailureOr<SmallVector<int64_t>> dilation =
      getIntList(node, 4, "dilation", 2, SmallVector<int64_t>{1, 1});
  FailureOr<bool> ceilMode = getBool(node, 5, "ceil_mode", false);
  if (failed(strides) || failed(padding) || failed(dilation) ||
      failed(ceilMode))
    return failure();
  if ((*dilation)[0] != 1 || (*dilation)[1] != 1)
    return emitError(node.loc) << "dilated max pooling is not supported";
  ArrayRef<int64_t> in = shapeOf(*input);
  if (in.size() != 4)
    return emitError(node.loc) << "only max_pool2d on NCHW inputs is supported";
  if (failed(checkWindows(node, *kernel, *strides, *padding)))
    return failure();
  // ceil_mode matters only where it adds a partial window.
  bool partialWindow =
      *ceilMode && addsPartialWindow(in, *kernel, *strides, *padding);
  FailureOr<RankedTensorType> outputType = getRequiredOutputType(node);
  if (failed(outputType))
    return failure();
  RankedTensorType type = *outputType;
  Value result = train::MaxPool2dOp::create(
      getBuilder(), builder->loc("max_pool"), type, *input, *kernel, *strides,
      *padding, partialWindow);
  out.push_back(plain(result));
  // The indices have no train counterpart (the backward recomputes them).
  out.push_back(Result());
  return success();
}

LogicalResult GraphImporter::importAvgPool(Node &node,
                                           SmallVectorImpl<Result> &out) {
  FailureOr<Value> input = getTensor(node, 0);
  FailureOr<SmallVector<int64_t>> kernel =
      getIntList(node, 1, "kernel_size", 2);
  if (failed(input) || failed(kernel))
    return failure();
  FailureOr<SmallVector<int64_t>> strides =
      getIntList(node, 2, "stride", 2, *kernel);
  FailureOr<SmallVector<int64_t>> padding =
      getIntList(node, 3, "padding", 2, SmallVector<int64_t>{0, 0});
  FailureOr<bool> ceilMode = getBool(node, 4, "ceil_mode", false);
  FailureOr<bool> countPadding = getBool(node, 5, "count_include_pad", true);
  if (failed(strides) || failed(padding) || failed(ceilMode) ||
      failed(countPadding))
    return failure();
  // train.avg_pool2d divides by the window's size, padding included.
  if (((*padding)[0] != 0 || (*padding)[1] != 0) && !*countPadding)
    return emitError(node.loc)
           << "average pooling with padding and count_include_pad=False is "
              "not supported";
  if (!node.isNone(6, "divisor_override"))
    return emitError(node.loc)
           << "average pooling with a divisor override is not supported";
  ArrayRef<int64_t> in = shapeOf(*input);
  if (in.size() != 4)
    return emitError(node.loc) << "only avg_pool2d on NCHW inputs is supported";
  if (failed(checkWindows(node, *kernel, *strides, *padding)))
    return failure();
  if (*ceilMode && addsPartialWindow(in, *kernel, *strides, *padding))
    return emitError(node.loc)
           << "average pooling with ceil_mode=True that adds a partial "
              "window is not supported";
  FailureOr<RankedTensorType> outputType = getRequiredOutputType(node);
  if (failed(outputType))
    return failure();
  RankedTensorType type = *outputType;
  out.push_back(plain(
      train::AvgPool2dOp::create(getBuilder(), builder->loc("avg_pool"), type,
                                 *input, *kernel, *strides, *padding)));
  return success();
}

LogicalResult
GraphImporter::importAdaptiveAvgPool(Node &node, SmallVectorImpl<Result> &out) {
  FailureOr<Value> input = getTensor(node, 0);
  FailureOr<SmallVector<int64_t>> size = getIntList(node, 1, "output_size", 2);
  if (failed(input) || failed(size))
    return failure();
  ArrayRef<int64_t> in = shapeOf(*input);
  if (in.size() != 4)
    return emitError(node.loc)
           << "only adaptive_avg_pool2d on NCHW inputs is supported";
  int64_t h = in[2], w = in[3], oh = (*size)[0], ow = (*size)[1];
  if (oh <= 0 || ow <= 0)
    return emitError(node.loc) << "adaptive pooling to an empty output";
  // Windows that tile the input evenly: plain average pooling.
  if (h % oh == 0 && w % ow == 0) {
    if (oh == h && ow == w) {
      out.push_back(plain(*input));
      return success();
    }
    out.push_back(
        plain(builder->avgPool2d(*input, h / oh, w / ow, "avg_pool")));
    return success();
  }
  // Each input element repeated over a whole block of outputs: that is
  // nearest upsampling (VGG's 7x7 pooling of a 1x1 map at small inputs).
  if (oh % h == 0 && ow % w == 0 && oh / h == ow / w) {
    out.push_back(
        plain(builder->upsampleNearest2d(*input, oh / h, "upsample")));
    return success();
  }
  return emitError(node.loc) << "adaptive average pooling from " << h << "x"
                             << w << " to " << oh << "x" << ow
                             << " has windows of different sizes; only "
                                "divisible sizes are supported";
}

LogicalResult GraphImporter::importMean(Node &node,
                                        SmallVectorImpl<Result> &out) {
  if (std::optional<LogicalResult> fused = fuseRmsNormMean(node, out))
    return *fused;
  FailureOr<Value> input = getTensor(node, 0);
  if (failed(input))
    return failure();
  ArrayRef<int64_t> in = shapeOf(*input);
  int64_t rank = in.size();
  SmallVector<int64_t> dims;
  if (node.isNone(1, "dim")) {
    for (int64_t d = 0; d < rank; ++d)
      dims.push_back(d);
  } else {
    FailureOr<SmallVector<int64_t>> list = getIntList(node, 1, "dim");
    if (failed(list))
      return failure();
    for (int64_t d : *list) {
      int64_t normalized = d < 0 ? d + rank : d;
      if (normalized < 0 || normalized >= rank)
        return emitError(node.loc) << "mean over dimension " << d
                                   << " of a rank-" << rank << " tensor";
      dims.push_back(normalized);
    }
    llvm::sort(dims);
    dims.erase(std::unique(dims.begin(), dims.end()), dims.end());
  }
  if (!node.isNone(3, "dtype"))
    return emitError(node.loc) << "mean with a dtype argument is not supported";
  FailureOr<RankedTensorType> outputType = getRequiredOutputType(node);
  if (failed(outputType))
    return failure();
  RankedTensorType type = *outputType;
  // The spatial mean of NCHW activations is a global average pool.
  if (rank == 4 && dims == SmallVector<int64_t>{2, 3}) {
    Value pooled = builder->avgPool2d(*input, in[2], in[3], "mean");
    out.push_back(plain(reshapeTo(node, pooled, type.getShape())));
    return success();
  }
  int64_t count = 1;
  SmallVector<int64_t> reduced;
  for (int64_t d = 0; d < rank; ++d) {
    if (llvm::is_contained(dims, d))
      count *= in[d];
    else
      reduced.push_back(in[d]);
  }
  auto sumType = cast<RankedTensorType>((*input).getType()).clone(reduced);
  Value sum = train::ReduceSumOp::create(getBuilder(), builder->loc("mean"),
                                         sumType, *input, dims);
  Value mean = builder->scale(sum, 1.0 / static_cast<double>(count), "mean");
  out.push_back(plain(reshapeTo(node, mean, type.getShape())));
  return success();
}

//===----------------------------------------------------------------------===//
// Registration
//===----------------------------------------------------------------------===//

void mlir::memopt::import::detail::registerConvPoolHandlers(
    HandlerTable &table) {
  using G = GraphImporter;
  static const OpEntry entries[] = {
      {{"aten._adaptive_avg_pool2d.default",
        "train.avg_pool2d (windows tiling the input) or "
        "train.upsample_nearest2d (each input repeated)"},
       &G::importAdaptiveAvgPool},
      {{"aten.avg_pool2d.default",
        "train.avg_pool2d (padding counted, no partial ceil_mode window)"},
       &G::importAvgPool},
      {{"aten.convolution.default",
        "train.conv2d (+ train.bias_add over channels)"},
       &G::importConvolution},
      {{"aten.max_pool2d_with_indices.default",
        "train.max_pool2d, ceil_mode included (the indices are not kept)"},
       &G::importMaxPool},
      {{"aten.mean.dim",
        "train.avg_pool2d (NCHW spatial mean) or train.reduce_sum + "
        "train.scale"},
       &G::importMean},
  };
  table.append(std::begin(entries), std::end(entries));
}
