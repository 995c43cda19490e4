//===- TrainGradOps.cpp - verifiers of gradient and optimizer ops ---------===//
//
// The gradient ops autodiff emits, the optimizers and the integer ranges
// index operands must hold (costs and workspaces: TrainCosts.cpp).
//
//===----------------------------------------------------------------------===//

#include "TrainOpUtils.h"
#include "memopt/Dialect/Train/IR/Blockwise8bit.h"
#include "memopt/Dialect/Train/IR/ComputeTypes.h"
#include "memopt/Dialect/Train/IR/TrainOps.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/TypeUtilities.h"

using namespace mlir;
using namespace mlir::memopt::train;
using namespace mlir::memopt::train::detail;

//===----------------------------------------------------------------------===//
// Gradient ops
//===----------------------------------------------------------------------===//

/// grad, the saved forward value and result all of one type.
static LogicalResult verifyActivationGrad(Operation *op, Value grad,
                                          Value saved, StringRef savedName,
                                          Value result) {
  if (failed(checkSameType(op, savedName, grad, saved)))
    return failure();
  return checkSameType(op, "result", grad, result);
}

LogicalResult ReluGradOp::verify() {
  if (FloatAttr upper = getUpperAttr();
      upper && !(upper.getValueAsDouble() > 0.0))
    return emitOpError("upper bound ")
           << upper.getValueAsDouble() << " must be positive";
  return verifyActivationGrad(*this, getGrad(), getSaved(), "saved",
                              getResult());
}

LogicalResult GeluGradOp::verify() {
  return verifyActivationGrad(*this, getGrad(), getSaved(), "saved",
                              getResult());
}

LogicalResult SiluGradOp::verify() {
  return verifyActivationGrad(*this, getGrad(), getSaved(), "saved",
                              getResult());
}

LogicalResult SigmoidGradOp::verify() {
  return verifyActivationGrad(*this, getGrad(), getSaved(), "saved",
                              getResult());
}

LogicalResult TanhGradOp::verify() {
  return verifyActivationGrad(*this, getGrad(), getSaved(), "saved",
                              getResult());
}

LogicalResult HardsigmoidGradOp::verify() {
  return verifyActivationGrad(*this, getGrad(), getSaved(), "saved",
                              getResult());
}

LogicalResult HardswishGradOp::verify() {
  return verifyActivationGrad(*this, getGrad(), getSaved(), "saved",
                              getResult());
}

LogicalResult SwigluGradOp::verify() {
  if (failed(checkSameType(*this, "gate", getGrad(), getGate())) ||
      failed(checkSameType(*this, "up", getGrad(), getUp())) ||
      failed(checkSameType(*this, "grad_gate", getGrad(), getGradGate())))
    return failure();
  return checkSameType(*this, "grad_up", getGrad(), getGradUp());
}

LogicalResult SoftmaxGradOp::verify() {
  if (failed(verifyActivationGrad(*this, getGrad(), getOutput(), "output",
                                  getResult())))
    return failure();
  return verifySoftmaxAttrs(*this, getGrad(), static_cast<int64_t>(getAxis()),
                            getScale().convertToDouble(), /*causal=*/false);
}

using NamedValues = ArrayRef<std::pair<StringRef, Value>>;

/// A normalization gradient: grad and grad_input of the input's type, the
/// shapes of gamma, `paramGrads` (the gradients of the affine parameters)
/// and `stats` as `verifyNorm` (verifyLastDimNorm, verifyChannelNorm) checks
/// them for the forward op, and each of `paramGrads` of gamma's element
/// type.
template <typename OpTy>
static LogicalResult
verifyNormGrad(OpTy op,
               LogicalResult (*verifyNorm)(Operation *, Value, NamedValues,
                                           NamedValues, std::optional<double>),
               NamedValues paramGrads, NamedValues stats) {
  if (failed(checkSameType(op, "input", op.getGrad(), op.getInput())) ||
      failed(checkSameType(op, "grad_input", op.getInput(), op.getGradInput())))
    return failure();
  SmallVector<std::pair<StringRef, Value>> affine = {{"gamma", op.getGamma()}};
  affine.append(paramGrads.begin(), paramGrads.end());
  if (failed(verifyNorm(op, op.getInput(), affine, stats,
                        /*epsilon=*/std::nullopt)))
    return failure();
  for (auto [name, paramGrad] : paramGrads)
    if (failed(checkElementType(op, name, elementTypeOf(op.getGamma()),
                                elementTypeOf(paramGrad))))
      return failure();
  return success();
}

LogicalResult LayerNormGradOp::verify() {
  return verifyNormGrad(
      *this, verifyLastDimNorm,
      {{"grad_gamma", getGradGamma()}, {"grad_beta", getGradBeta()}},
      {{"mean", getMean()}, {"rstd", getRstd()}});
}

LogicalResult RmsNormGradOp::verify() {
  return verifyNormGrad(*this, verifyLastDimNorm,
                        {{"grad_gamma", getGradGamma()}},
                        {{"rstd", getRstd()}});
}

LogicalResult BatchNormGradOp::verify() {
  return verifyNormGrad(
      *this, verifyChannelNorm,
      {{"grad_gamma", getGradGamma()}, {"grad_beta", getGradBeta()}},
      {{"mean", getMean()}, {"rstd", getRstd()}});
}

LogicalResult DropoutGradOp::verify() {
  if (failed(
          checkShape(*this, "mask", shapeOf(getGrad()), shapeOf(getMask()))) ||
      failed(checkSameType(*this, "result", getGrad(), getResult())))
    return failure();
  return checkProbability(*this, "rate", getRate().convertToDouble());
}

LogicalResult EmbeddingGradOp::verify() {
  if (failed(checkRank(*this, "result", getResult(), 2)))
    return failure();
  SmallVector<int64_t> expected(shapeOf(getIds()));
  expected.push_back(shapeOf(getResult())[1]);
  if (failed(checkShape(*this, "grad", expected, shapeOf(getGrad()))) ||
      failed(checkVocabParts(*this, getPart(), getParts(),
                             shapeOf(getResult())[0])))
    return failure();
  return checkElementType(*this, "result", elementTypeOf(getGrad()),
                          elementTypeOf(getResult()));
}

LogicalResult CrossEntropyGradOp::verify() {
  if (failed(checkMinRank(*this, "logits", getLogits(), 1)) ||
      failed(checkShape(*this, "labels", dropLast(shapeOf(getLogits())),
                        shapeOf(getLabels()))))
    return failure();
  return checkSameType(*this, "result", getLogits(), getResult());
}

LogicalResult VocabParallelStatsGradOp::verify() {
  if (failed(verifyVocabParallelStats(*this, getLogits(), getMax(), getLabels(),
                                      getGrad(), getPart(), getParts())))
    return failure();
  return checkSameType(*this, "result", getLogits(), getResult());
}

LogicalResult CrossEntropyFromStatsGradOp::verify() {
  if (failed(verifyCrossEntropyStats(*this, getStats(), getLabels())))
    return failure();
  return checkSameType(*this, "result", getStats(), getResult());
}

LogicalResult MseLossGradOp::verify() {
  if (failed(checkSameType(*this, "target", getInput(), getTarget())))
    return failure();
  return checkSameType(*this, "result", getInput(), getResult());
}

int64_t AttentionGradOp::getTileRows() {
  return getAttentionTileRows(shapeOf(getQuery())[2], getBlockRows());
}

LogicalResult AttentionGradOp::verify() {
  if (failed(verifyAttentionShapes(*this, getQuery(), getKey(), getValue(),
                                   getLse(), getScale().convertToDouble(),
                                   getBlockRows())) ||
      failed(checkSameType(*this, "grad", getQuery(), getGrad())) ||
      failed(checkSameType(*this, "output", getQuery(), getOutput())) ||
      failed(checkSameType(*this, "grad_query", getQuery(), getGradQuery())) ||
      failed(checkSameType(*this, "grad_key", getKey(), getGradKey())))
    return failure();
  return checkSameType(*this, "grad_value", getValue(), getGradValue());
}

LogicalResult RotaryGradOp::verify() {
  if (failed(checkSameType(*this, "result", getGrad(), getResult())) ||
      failed(checkMinRank(*this, "grad", getGrad(), 2)) ||
      failed(checkPositive(*this, "theta", getTheta().convertToDouble())))
    return failure();
  if (shapeOf(getGrad()).back() % 2 != 0)
    return emitOpError() << "expected an even last dimension, got "
                         << formatShape(shapeOf(getGrad()));
  return success();
}

LogicalResult SliceGradOp::verify() {
  return verifyWindow(*this, getResult(), getGrad(), "grad", getOffsets(),
                      getStrides());
}

//===----------------------------------------------------------------------===//
// Optimizers
//===----------------------------------------------------------------------===//

/// `value` must be produced directly by an op of type `OpTy` (the optimizer
/// writes that persistent buffer in place).
template <typename OpTy>
static LogicalResult checkDefinedBy(Operation *op, StringRef what,
                                    Value value) {
  if (value.getDefiningOp<OpTy>())
    return success();
  InFlightDiagnostic diag = op->emitOpError()
                            << "expected " << what << " to be defined by '"
                            << OpTy::getOperationName() << "'";
  if (Operation *def = value.getDefiningOp())
    diag << ", got '" << def->getName() << "'";
  else
    diag << ", got a block argument";
  return diag;
}

/// `param` must be a trainable `train.param`: a frozen one has no gradient
/// and is never updated.
static LogicalResult checkUpdatedParam(Operation *op, Value param) {
  if (failed(checkDefinedBy<ParamOp>(op, "param", param)))
    return failure();
  auto def = param.getDefiningOp<ParamOp>();
  if (def.getTrainable())
    return success();
  return op->emitOpError() << "updates the frozen parameter '" << def.getName()
                           << "' (trainable = false)";
}

LogicalResult SgdOp::verify() {
  if (failed(checkUpdatedParam(*this, getParam())) ||
      failed(
          checkShape(*this, "grad", shapeOf(getParam()), shapeOf(getGrad()))) ||
      failed(checkNonNegative(*this, "lr", getLr().convertToDouble())) ||
      failed(checkNonNegative(*this, "weight_decay",
                              getWeightDecay().convertToDouble())) ||
      failed(
          checkNonNegative(*this, "momentum", getMomentum().convertToDouble())))
    return failure();
  bool hasMomentum = getMomentum().convertToDouble() > 0.0;
  Value buffer = getMomentumBuffer();
  if (hasMomentum && !buffer)
    return emitOpError("expected a momentum buffer when momentum > 0");
  if (!hasMomentum && buffer)
    return emitOpError("expected momentum > 0 with a momentum buffer");
  if (failed(verifyLossScaledUpdate(*this, getFoundNonfinite(), Value())))
    return failure();
  if (!buffer)
    return success();
  if (failed(checkDefinedBy<OptStateOp>(*this, "momentum buffer", buffer)))
    return failure();
  return checkShape(*this, "momentum buffer", shapeOf(getParam()),
                    shapeOf(buffer));
}
bool SgdOp::isUpdatedInPlace(unsigned operandIndex) {
  // The parameter and, if present, the momentum buffer.
  if (operandIndex == getParamMutable().getOperandNumber())
    return true;
  MutableOperandRange buffer = getMomentumBufferMutable();
  return buffer.size() != 0 && operandIndex == buffer[0].getOperandNumber();
}

/// The hyperparameters and loss-scaling operands shared by the Adam
/// updates (adam, adamw and their 8-bit forms).
template <typename OpTy>
static LogicalResult verifyAdamHyperparameters(OpTy op) {
  if (failed(checkNonNegative(op, "lr", op.getLr().convertToDouble())) ||
      failed(checkProbability(op, "beta1", op.getBeta1().convertToDouble())) ||
      failed(checkProbability(op, "beta2", op.getBeta2().convertToDouble())) ||
      failed(checkPositive(op, "epsilon", op.getEpsilon().convertToDouble())) ||
      failed(verifyLossScaledUpdate(op, op.getFoundNonfinite(),
                                    op.getSkippedSteps())))
    return failure();
  return checkNonNegative(op, "weight_decay",
                          op.getWeightDecay().convertToDouble());
}

/// Shared verifier of adam and adamw.
template <typename OpTy> static LogicalResult verifyAdam(OpTy op) {
  if (failed(checkUpdatedParam(op, op.getParam())) ||
      failed(checkDefinedBy<OptStateOp>(op, "exp_avg", op.getExpAvg())) ||
      failed(checkDefinedBy<OptStateOp>(op, "exp_avg_sq", op.getExpAvgSq())))
    return failure();
  if (op.getExpAvg() == op.getExpAvgSq())
    return op.emitOpError("expected distinct exp_avg and exp_avg_sq states");
  ArrayRef<int64_t> shape = shapeOf(op.getParam());
  if (failed(checkShape(op, "grad", shape, shapeOf(op.getGrad()))) ||
      failed(checkShape(op, "exp_avg", shape, shapeOf(op.getExpAvg()))) ||
      failed(checkShape(op, "exp_avg_sq", shape, shapeOf(op.getExpAvgSq()))))
    return failure();
  return verifyAdamHyperparameters(op);
}

/// Operands 0, 2 and 3 (param, exp_avg, exp_avg_sq) are updated in place.
static bool isAdamInPlaceOperand(unsigned operandIndex) {
  return operandIndex == 0 || operandIndex == 2 || operandIndex == 3;
}

LogicalResult AdamOp::verify() { return verifyAdam(*this); }
bool AdamOp::isUpdatedInPlace(unsigned operandIndex) {
  return isAdamInPlaceOperand(operandIndex);
}

LogicalResult AdamWOp::verify() { return verifyAdam(*this); }
bool AdamWOp::isUpdatedInPlace(unsigned operandIndex) {
  return isAdamInPlaceOperand(operandIndex);
}

/// Shared verifier of adam8bit and adamw8bit: the hyperparameters as Adam's,
/// four distinct states, codes of the parameter's shape and one absmax per
/// block of kBlockwise8bitBlockSize elements.
template <typename OpTy> static LogicalResult verifyAdam8bit(OpTy op) {
  if (failed(checkUpdatedParam(op, op.getParam())))
    return failure();
  struct State {
    StringRef what;
    Value value;
  };
  State states[] = {{"exp_avg codes", op.getExpAvgCodes()},
                    {"exp_avg absmax", op.getExpAvgAbsmax()},
                    {"exp_avg_sq codes", op.getExpAvgSqCodes()},
                    {"exp_avg_sq absmax", op.getExpAvgSqAbsmax()}};
  llvm::SmallDenseMap<StringRef, StringRef> names;
  for (const State &state : states) {
    if (failed(checkDefinedBy<OptStateOp>(op, state.what, state.value)))
      return failure();
    StringRef name = state.value.template getDefiningOp<OptStateOp>().getName();
    auto [it, inserted] = names.try_emplace(name, state.what);
    if (!inserted)
      return op.emitOpError()
             << "expected distinct states, got the train.opt_state \"" << name
             << "\" as both " << it->second << " and " << state.what;
  }
  ArrayRef<int64_t> shape = shapeOf(op.getParam());
  SmallVector<int64_t, 1> blocks = {
      getBlockwise8bitBlocks(numElements(op.getParam()))};
  std::string perBlock =
      "(one per block of " + std::to_string(kBlockwise8bitBlockSize) + ")";
  if (failed(checkShape(op, "grad", shape, shapeOf(op.getGrad()))) ||
      failed(checkShape(op, "exp_avg codes", shape,
                        shapeOf(op.getExpAvgCodes()))) ||
      failed(checkShape(op, "exp_avg_sq codes", shape,
                        shapeOf(op.getExpAvgSqCodes()))) ||
      failed(checkShape(op, "exp_avg absmax " + perBlock, blocks,
                        shapeOf(op.getExpAvgAbsmax()))) ||
      failed(checkShape(op, "exp_avg_sq absmax " + perBlock, blocks,
                        shapeOf(op.getExpAvgSqAbsmax()))))
    return failure();
  return verifyAdamHyperparameters(op);
}

/// Operands 0 and 2 to 5 (param and the four states) are updated in place.
static bool isAdam8bitInPlaceOperand(unsigned operandIndex) {
  return operandIndex == 0 || (operandIndex >= 2 && operandIndex <= 5);
}

LogicalResult Adam8bitOp::verify() { return verifyAdam8bit(*this); }
bool Adam8bitOp::isUpdatedInPlace(unsigned operandIndex) {
  return isAdam8bitInPlaceOperand(operandIndex);
}

LogicalResult AdamW8bitOp::verify() { return verifyAdam8bit(*this); }
bool AdamW8bitOp::isUpdatedInPlace(unsigned operandIndex) {
  return isAdam8bitInPlaceOperand(operandIndex);
}

/// Fails unless `index` is the micro-batch index state of gradient
/// accumulation.
static LogicalResult verifyMicroBatchIndex(Operation *op, Value index) {
  auto state = index.getDefiningOp<OptStateOp>();
  if (state && state.getName() == kMicroBatchState)
    return success();
  return op->emitOpError() << "expected the micro-batch index to be the "
                              "train.opt_state \""
                           << kMicroBatchState << "\"";
}

/// Fails unless `index` is the micro-batch index state and `microBatches`
/// is at least 1.
static LogicalResult verifyMicroBatches(Operation *op, Value index,
                                        int64_t microBatches) {
  if (microBatches < 1)
    return op->emitOpError()
           << "expected micro_batches >= 1, got " << microBatches;
  return verifyMicroBatchIndex(op, index);
}

LogicalResult AccumulateOp::verify() {
  if (failed(checkDefinedBy<OptStateOp>(*this, "buffer", getBuffer())) ||
      failed(
          checkShape(*this, "grad", shapeOf(getBuffer()), shapeOf(getGrad()))))
    return failure();
  unsigned bufferBits =
      mlir::getElementTypeOrSelf(getBuffer()).getIntOrFloatBitWidth();
  unsigned gradBits =
      mlir::getElementTypeOrSelf(getGrad()).getIntOrFloatBitWidth();
  if (bufferBits < gradBits)
    return emitOpError() << "expected a buffer at least as wide as the "
                            "gradient, got "
                         << mlir::getElementTypeOrSelf(getBuffer()) << " for "
                         << mlir::getElementTypeOrSelf(getGrad());
  if (failed(checkPositive(*this, "scale", getScale().convertToDouble())))
    return failure();
  return verifyMicroBatchIndex(*this, getMicroBatch());
}
bool AccumulateOp::isUpdatedInPlace(unsigned operandIndex) {
  // The buffer.
  return operandIndex == 0;
}

LogicalResult RefreshOp::verify() {
  if (failed(checkDefinedBy<OptStateOp>(*this, "copy", getCopy())) ||
      failed(checkShape(*this, "master", shapeOf(getCopy()),
                        shapeOf(getMaster()))))
    return failure();
  if (isHostOp(getCopy().getDefiningOp()))
    return emitOpError() << "expected the copy in device memory, but its "
                            "train.opt_state is in host memory";
  if (getMemorySpace(getMaster()) != MemorySpace::Host)
    return emitOpError() << "expected the master in host memory "
                            "(train.space = \"host\"), got a device value";
  return verifyMicroBatchIndex(*this, getMicroBatch());
}
bool RefreshOp::isUpdatedInPlace(unsigned operandIndex) {
  // The copy.
  return operandIndex == 0;
}

LogicalResult MicroBatchSkipOp::verify() {
  return verifyMicroBatches(*this, getMicroBatch(), getMicroBatches());
}

LogicalResult MicroBatchAdvanceOp::verify() {
  return verifyMicroBatches(*this, getMicroBatch(), getMicroBatches());
}
bool MicroBatchAdvanceOp::isUpdatedInPlace(unsigned operandIndex) {
  // The index, its only operand.
  return operandIndex == 0;
}
