//===- TrainCosts.cpp - FLOPs, bytes and workspaces of the train ops -----===//
//
// The cost model of the train ops: FLOPs and bytes moved (read by the
// report and by remat's recompute costs), and the workspace, the scratch
// buffers each op's lowering allocates (convert-train-to-linalg), which the
// liveness analysis counts at the op. The compute types come from
// ComputeTypes.h, as the lowering's do.
//
//===----------------------------------------------------------------------===//

#include "TrainOpUtils.h"
#include "memopt/Dialect/Train/IR/ComputeTypes.h"
#include "memopt/Dialect/Train/IR/TrainOps.h"

using namespace mlir;
using namespace mlir::memopt::train;
using namespace mlir::memopt::train::detail;

//===----------------------------------------------------------------------===//
// FLOPs and bytes
//===----------------------------------------------------------------------===//

/// FLOPs of the two attention matmuls: 4*B*Hq*Sq*Sk*D, halved when causal.
static int64_t attentionMatmulFlops(Value q, Value k, bool causal) {
  int64_t flops = 4 * numElements(q) * shapeOf(k)[2];
  return causal ? flops / 2 : flops;
}

/// 2 * N * O * OH * OW * (C / groups) * KH * KW.
static int64_t convFlops(Value filter, Value output) {
  ArrayRef<int64_t> f = shapeOf(filter);
  return 2 * numElements(output) * f[1] * f[2] * f[3];
}

static int64_t poolFlops(Value output, ArrayRef<int64_t> kernel) {
  return numElements(output) * kernel[0] * kernel[1];
}

int64_t ParamOp::getFlops() { return 0; }

int64_t ParamOp::getBytesWritten() { return 0; }

int64_t OptStateOp::getFlops() { return 0; }

int64_t OptStateOp::getBytesWritten() { return 0; }

int64_t FreeOp::getFlops() { return 0; }

int64_t FreeOp::getBytesRead() { return 0; }

int64_t CastOp::getFlops() { return numElements(getInput()); }

int64_t AddOp::getFlops() { return numElements(getResult()); }

int64_t SubOp::getFlops() { return numElements(getResult()); }

int64_t MulOp::getFlops() { return numElements(getResult()); }

int64_t ScaleOp::getFlops() { return numElements(getResult()); }

int64_t BiasAddOp::getFlops() { return numElements(getResult()); }

int64_t ReluOp::getFlops() {
  return (getUpper() ? 2 : 1) * numElements(getResult());
}

int64_t GeluOp::getFlops() { return 8 * numElements(getResult()); }

int64_t SiluOp::getFlops() { return 4 * numElements(getResult()); }

int64_t SigmoidOp::getFlops() { return 4 * numElements(getResult()); }

int64_t TanhOp::getFlops() { return 4 * numElements(getResult()); }

int64_t HardsigmoidOp::getFlops() { return 4 * numElements(getResult()); }

int64_t HardswishOp::getFlops() { return 5 * numElements(getResult()); }

int64_t SwigluOp::getFlops() { return 5 * numElements(getResult()); }

int64_t SoftmaxOp::getFlops() { return 5 * numElements(getResult()); }

int64_t LayerNormOp::getFlops() { return 8 * numElements(getInput()); }

int64_t RmsNormOp::getFlops() { return 5 * numElements(getInput()); }

int64_t BatchNormOp::getFlops() { return 8 * numElements(getInput()); }

int64_t DropoutOp::getFlops() { return 2 * numElements(getInput()); }

int64_t MatmulOp::getFlops() {
  ArrayRef<int64_t> lhs = shapeOf(getLhs());
  int64_t k = getTransposeLhs() ? lhs[lhs.size() - 2] : lhs.back();
  return 2 * numElements(getResult()) * k;
}

int64_t EmbeddingOp::getFlops() { return 0; }

int64_t AttentionOp::getFlops() {
  return attentionMatmulFlops(getQuery(), getKey(), getCausal());
}

int64_t RotaryOp::getFlops() { return 6 * numElements(getInput()); }

int64_t CrossEntropyOp::getFlops() { return 5 * numElements(getLogits()); }

int64_t MseLossOp::getFlops() { return 3 * numElements(getInput()); }

int64_t RowMaxOp::getFlops() { return numElements(getLogits()); }

int64_t VocabParallelStatsOp::getFlops() {
  return 4 * numElements(getLogits());
}

int64_t CrossEntropyFromStatsOp::getFlops() {
  return 2 * numElements(getLabels());
}

int64_t ReduceSumOp::getFlops() { return numElements(getInput()); }

int64_t BroadcastOp::getFlops() { return 0; }

int64_t ReshapeOp::getFlops() { return 0; }

int64_t TransposeOp::getFlops() { return 0; }

int64_t SliceOp::getFlops() { return 0; }

int64_t ConcatOp::getFlops() { return 0; }

int64_t Conv2dOp::getFlops() { return convFlops(getFilter(), getResult()); }

int64_t Conv2dGradInputOp::getFlops() {
  return convFlops(getFilter(), getGrad());
}

int64_t Conv2dGradFilterOp::getFlops() {
  return convFlops(getResult(), getGrad());
}

int64_t MaxPool2dOp::getFlops() { return poolFlops(getResult(), getKernel()); }

int64_t AvgPool2dOp::getFlops() { return poolFlops(getResult(), getKernel()); }

int64_t MaxPool2dGradOp::getFlops() {
  return poolFlops(getGrad(), getKernel());
}

int64_t AvgPool2dGradOp::getFlops() {
  return poolFlops(getGrad(), getKernel());
}

int64_t UpsampleNearest2dOp::getFlops() { return 0; }

int64_t UpsampleNearest2dGradOp::getFlops() { return numElements(getGrad()); }

int64_t ReluGradOp::getFlops() { return numElements(getGrad()); }

int64_t GeluGradOp::getFlops() { return 12 * numElements(getGrad()); }

int64_t SiluGradOp::getFlops() { return 6 * numElements(getGrad()); }

int64_t SigmoidGradOp::getFlops() { return 3 * numElements(getGrad()); }

int64_t TanhGradOp::getFlops() { return 3 * numElements(getGrad()); }

int64_t HardsigmoidGradOp::getFlops() { return numElements(getGrad()); }

int64_t HardswishGradOp::getFlops() { return 3 * numElements(getGrad()); }

int64_t SwigluGradOp::getFlops() { return 10 * numElements(getGrad()); }

int64_t SoftmaxGradOp::getFlops() { return 4 * numElements(getGrad()); }

int64_t LayerNormGradOp::getFlops() { return 12 * numElements(getInput()); }

int64_t RmsNormGradOp::getFlops() { return 9 * numElements(getInput()); }

int64_t BatchNormGradOp::getFlops() { return 12 * numElements(getInput()); }

int64_t DropoutGradOp::getFlops() { return 2 * numElements(getGrad()); }

int64_t EmbeddingGradOp::getFlops() { return numElements(getGrad()); }

int64_t CrossEntropyGradOp::getFlops() { return 6 * numElements(getLogits()); }

int64_t MseLossGradOp::getFlops() { return 3 * numElements(getInput()); }

int64_t VocabParallelStatsGradOp::getFlops() {
  return 3 * numElements(getLogits());
}

int64_t CrossEntropyFromStatsGradOp::getFlops() {
  return 2 * numElements(getLabels());
}

int64_t AttentionGradOp::getFlops() {
  // Five matmuls (recomputed scores, dV, dP, dQ, dK) of 2*B*Hq*Sq*Sk*D each.
  return attentionMatmulFlops(getQuery(), getKey(), getCausal()) * 5 / 2;
}

int64_t RotaryGradOp::getFlops() { return 6 * numElements(getGrad()); }

int64_t SliceGradOp::getFlops() { return 0; }

int64_t SgdOp::getFlops() {
  return (getMomentumBuffer() ? 5 : 3) * numElements(getParam());
}

int64_t AdamOp::getFlops() { return 12 * numElements(getParam()); }

int64_t AdamWOp::getFlops() { return 13 * numElements(getParam()); }

// Adam's 12 (13) FLOPs, the moments computed a second time (7), two
// dequantizing products, two divisions by the absmax, two absmax
// comparisons and the choice between the two nearest map values (1).
int64_t Adam8bitOp::getFlops() { return 26 * numElements(getParam()); }

int64_t AdamW8bitOp::getFlops() { return 27 * numElements(getParam()); }

int64_t AccumulateOp::getFlops() { return 2 * numElements(getBuffer()); }

int64_t RefreshOp::getFlops() { return numElements(getCopy()); }

int64_t MicroBatchSkipOp::getFlops() { return 2; }

int64_t MicroBatchAdvanceOp::getFlops() { return 2; }

//===----------------------------------------------------------------------===//
// Workspace: the scratch buffers of the CPU lowering (convert-train-to-linalg)
//===----------------------------------------------------------------------===//

/// Bytes of `elements` elements of `type`.
static int64_t bytesOf(int64_t elements, Type type) {
  return elements * getElementBytes(type);
}

/// Bytes of an NCHW tensor shaped like `shape` with H and W grown by
/// `extra`.
static int64_t grownBytes(ArrayRef<int64_t> shape, ArrayRef<int64_t> extra,
                          Type type) {
  return bytesOf(shape[0] * shape[1] * (shape[2] + extra[0]) *
                     (shape[3] + extra[1]),
                 type);
}

/// The zero- (or -inf-) padded copy of an NCHW input, when padded at all.
static void addPadded(SmallVectorImpl<int64_t> &buffers, Value input,
                      ArrayRef<int64_t> padding) {
  if (padding[0] == 0 && padding[1] == 0)
    return;
  buffers.push_back(grownBytes(shapeOf(input), {2 * padding[0], 2 * padding[1]},
                               elementTypeOf(input)));
}

/// The accumulator of a result computed in a wider type and then rounded.
static void addAccumulator(SmallVectorImpl<int64_t> &buffers, Value result,
                           Type accType) {
  if (accType != elementTypeOf(result))
    buffers.push_back(bytesOf(numElements(result), accType));
}

SmallVector<int64_t> SoftmaxOp::getWorkspaceBuffers() {
  auto axis = static_cast<int64_t>(getAxis());
  ArrayRef<int64_t> shape = shapeOf(getInput());
  if (axis < 0)
    axis += shape.size();
  int64_t rows = numElements(getInput()) / shape[axis];
  Type acc = getAccumulatorType(elementTypeOf(getResult()));
  return {bytesOf(rows, acc), bytesOf(rows, acc)};
}

SmallVector<int64_t> SoftmaxGradOp::getWorkspaceBuffers() {
  auto axis = static_cast<int64_t>(getAxis());
  ArrayRef<int64_t> shape = shapeOf(getGrad());
  if (axis < 0)
    axis += shape.size();
  return {bytesOf(numElements(getGrad()) / shape[axis],
                  getAccumulatorType(elementTypeOf(getResult())))};
}

SmallVector<int64_t> LayerNormOp::getWorkspaceBuffers() {
  Type c = getComputeType({elementTypeOf(getInput()), elementTypeOf(getGamma()),
                           elementTypeOf(getBeta())});
  if (c == elementTypeOf(getMean()))
    return {};
  int64_t rows = numElements(getMean());
  return {bytesOf(rows, c), bytesOf(rows, c)};
}

SmallVector<int64_t> LayerNormGradOp::getWorkspaceBuffers() {
  Type gamma = elementTypeOf(getGamma());
  Type c = getComputeType(
      {elementTypeOf(getInput()), elementTypeOf(getGrad()), gamma});
  int64_t rows = numElements(getInput()) / shapeOf(getInput()).back();
  SmallVector<int64_t> buffers = {bytesOf(rows, c), bytesOf(rows, c)};
  if (c != gamma)
    buffers.append(2, bytesOf(numElements(getGamma()), c));
  return buffers;
}

SmallVector<int64_t> RmsNormOp::getWorkspaceBuffers() {
  Type c =
      getComputeType({elementTypeOf(getInput()), elementTypeOf(getGamma())});
  if (c == elementTypeOf(getRstd()))
    return {};
  return {bytesOf(numElements(getRstd()), c)};
}

SmallVector<int64_t> RmsNormGradOp::getWorkspaceBuffers() {
  Type gamma = elementTypeOf(getGamma());
  Type c = getComputeType(
      {elementTypeOf(getInput()), elementTypeOf(getGrad()), gamma});
  int64_t rows = numElements(getInput()) / shapeOf(getInput()).back();
  SmallVector<int64_t> buffers = {bytesOf(rows, c)};
  if (c != gamma)
    buffers.push_back(bytesOf(numElements(getGamma()), c));
  return buffers;
}

SmallVector<int64_t> BatchNormOp::getWorkspaceBuffers() {
  Type acc = getAccumulatorType(elementTypeOf(getInput()));
  if (acc == elementTypeOf(getMean()))
    return {};
  int64_t channels = shapeOf(getInput())[1];
  return {bytesOf(channels, acc), bytesOf(channels, acc)};
}

SmallVector<int64_t> BatchNormGradOp::getWorkspaceBuffers() {
  Type acc = getAccumulatorType(elementTypeOf(getInput()));
  int64_t channels = shapeOf(getInput())[1];
  SmallVector<int64_t> buffers;
  if (elementTypeOf(getMean()) != acc)
    buffers.push_back(bytesOf(channels, acc));
  if (elementTypeOf(getRstd()) != acc)
    buffers.push_back(bytesOf(channels, acc));
  buffers.append(2, bytesOf(channels, acc));
  return buffers;
}

SmallVector<int64_t> AttentionOp::getWorkspaceBuffers() {
  Type query = elementTypeOf(getQuery());
  Type c = getComputeType({query});
  ArrayRef<int64_t> qs = shapeOf(getQuery()), ks = shapeOf(getKey());
  // One tile of rows at a time (the next reuses its buffers).
  int64_t rows = qs[0] * qs[1] * getTileRows();
  SmallVector<int64_t> buffers = {bytesOf(rows * ks[2], c), bytesOf(rows, c)};
  if (c != elementTypeOf(getLse()))
    buffers.push_back(bytesOf(rows, c));
  if (c != query)
    buffers.push_back(bytesOf(rows * qs[3], c));
  return buffers;
}

SmallVector<int64_t> AttentionGradOp::getWorkspaceBuffers() {
  Type c = getComputeType({elementTypeOf(getQuery())});
  ArrayRef<int64_t> qs = shapeOf(getQuery()), ks = shapeOf(getKey());
  // Per tile of rows (reused by the next): scores, dP, D and dq's
  // accumulator; for the whole op, dv's and dk's.
  int64_t rows = qs[0] * qs[1] * getTileRows();
  SmallVector<int64_t> buffers = {bytesOf(rows * ks[2], c),
                                  bytesOf(rows * ks[2], c), bytesOf(rows, c)};
  if (c != elementTypeOf(getQuery()))
    buffers.push_back(bytesOf(rows * qs[3], c));
  addAccumulator(buffers, getGradValue(), c);
  addAccumulator(buffers, getGradKey(), c);
  return buffers;
}

static SmallVector<int64_t> getRotaryWorkspace(Value input) {
  ArrayRef<int64_t> shape = shapeOf(input);
  int64_t rank = shape.size();
  Type f32 = Float32Type::get(input.getContext());
  int64_t table = bytesOf(shape[rank - 2] * shape[rank - 1] / 2, f32);
  int64_t half = bytesOf(numElements(input) / 2, elementTypeOf(input));
  return {table, table, half, half};
}
SmallVector<int64_t> RotaryOp::getWorkspaceBuffers() {
  return getRotaryWorkspace(getInput());
}
SmallVector<int64_t> RotaryGradOp::getWorkspaceBuffers() {
  return getRotaryWorkspace(getGrad());
}

SmallVector<int64_t> CrossEntropyOp::getWorkspaceBuffers() {
  Type c = getLossComputeType(elementTypeOf(getLogits()),
                              elementTypeOf(getResult()));
  int64_t rows = numElements(getLogits()) / shapeOf(getLogits()).back();
  return {bytesOf(rows, c), bytesOf(rows, c), bytesOf(1, c), bytesOf(1, c)};
}

SmallVector<int64_t> CrossEntropyFromStatsOp::getWorkspaceBuffers() {
  Type c = elementTypeOf(getStats());
  return {bytesOf(1, c), bytesOf(1, c)};
}

SmallVector<int64_t> CrossEntropyFromStatsGradOp::getWorkspaceBuffers() {
  if (!getIgnoreIndex())
    return {};
  return {bytesOf(1, elementTypeOf(getStats()))};
}

SmallVector<int64_t> CrossEntropyGradOp::getWorkspaceBuffers() {
  Type c =
      getLossComputeType(elementTypeOf(getResult()), elementTypeOf(getGrad()));
  int64_t rows = numElements(getLogits()) / shapeOf(getLogits()).back();
  SmallVector<int64_t> buffers = {bytesOf(rows, c), bytesOf(rows, c)};
  if (getIgnoreIndex())
    buffers.push_back(bytesOf(1, c));
  return buffers;
}

SmallVector<int64_t> MseLossOp::getWorkspaceBuffers() {
  return {bytesOf(1, getLossComputeType(elementTypeOf(getInput()),
                                        elementTypeOf(getResult())))};
}

SmallVector<int64_t> ReduceSumOp::getWorkspaceBuffers() {
  SmallVector<int64_t> buffers;
  if (!getDims().empty())
    addAccumulator(buffers, getResult(),
                   getAccumulatorType(elementTypeOf(getResult())));
  return buffers;
}

SmallVector<int64_t> Conv2dOp::getWorkspaceBuffers() {
  SmallVector<int64_t> buffers;
  addPadded(buffers, getInput(), getPadding());
  addAccumulator(buffers, getResult(),
                 getAccumulatorType(elementTypeOf(getResult())));
  return buffers;
}

SmallVector<int64_t> Conv2dGradInputOp::getWorkspaceBuffers() {
  // A gather that reads the gradient in place: only the accumulator.
  SmallVector<int64_t> buffers;
  addAccumulator(buffers, getResult(),
                 getAccumulatorType(elementTypeOf(getResult())));
  return buffers;
}

SmallVector<int64_t> Conv2dGradFilterOp::getWorkspaceBuffers() {
  // Reads the input in place, padding or not: only the accumulator.
  SmallVector<int64_t> buffers;
  addAccumulator(buffers, getResult(),
                 getAccumulatorType(elementTypeOf(getResult())));
  return buffers;
}

SmallVector<int64_t> MaxPool2dOp::getWorkspaceBuffers() {
  // The -inf-padded copy, grown at the bottom and right by what a ceil_mode
  // window reaches beyond the padding.
  ArrayRef<int64_t> in = shapeOf(getInput());
  int64_t grow[2];
  for (unsigned i = 0; i < 2; ++i)
    grow[i] = getPadding()[i] + getPoolEndPadding(in, shapeOf(getResult()),
                                                  getKernel(), getStrides(),
                                                  getPadding(), i);
  SmallVector<int64_t> buffers;
  if (grow[0] != 0 || grow[1] != 0)
    buffers.push_back(
        grownBytes(in, {grow[0], grow[1]}, elementTypeOf(getInput())));
  return buffers;
}

SmallVector<int64_t> MaxPool2dGradOp::getWorkspaceBuffers() {
  // A gather that recomputes each window's argmax: only the accumulator.
  SmallVector<int64_t> buffers;
  addAccumulator(buffers, getResult(),
                 getAccumulatorType(elementTypeOf(getResult())));
  return buffers;
}

SmallVector<int64_t> AvgPool2dOp::getWorkspaceBuffers() {
  SmallVector<int64_t> buffers;
  addPadded(buffers, getInput(), getPadding());
  addAccumulator(buffers, getResult(),
                 getAccumulatorType(elementTypeOf(getResult())));
  return buffers;
}

SmallVector<int64_t> AvgPool2dGradOp::getWorkspaceBuffers() {
  // A gather over the covering windows: only the accumulator.
  SmallVector<int64_t> buffers;
  addAccumulator(buffers, getResult(),
                 getAccumulatorType(elementTypeOf(getResult())));
  return buffers;
}

SmallVector<int64_t> UpsampleNearest2dGradOp::getWorkspaceBuffers() {
  SmallVector<int64_t> buffers;
  if (getScale() != 1)
    addAccumulator(buffers, getResult(),
                   getAccumulatorType(elementTypeOf(getResult())));
  return buffers;
}
