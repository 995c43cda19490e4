//===- TrainVerifyStep.cpp - whole-step well-formedness checks ------------===//

#include "memopt/Dialect/Train/IR/TrainOps.h"
#include "memopt/Dialect/Train/IR/TrainStep.h"
#include "memopt/Transforms/Passes.h"

#include "mlir/Dialect/Utils/StaticValueUtils.h"
#include "llvm/ADT/StringMap.h"
#include "llvm/ADT/StringSet.h"

namespace mlir::memopt {
#define GEN_PASS_DEF_TRAINVERIFYSTEPPASS
#include "memopt/Transforms/Passes.h.inc"
} // namespace mlir::memopt

using namespace mlir;
using namespace mlir::memopt;

namespace {

struct TrainVerifyStepPass
    : public memopt::impl::TrainVerifyStepPassBase<TrainVerifyStepPass> {
  using Base::Base;

  void runOnOperation() override;
};

} // namespace

/// Returns the name of the persistent state `value` reads, if any.
static std::optional<StringRef> getStateName(Value value) {
  if (auto param = value.getDefiningOp<train::ParamOp>())
    return param.getName();
  if (auto state = value.getDefiningOp<train::OptStateOp>())
    return state.getName();
  return std::nullopt;
}

/// The parameter that state `name` belongs to: the longest parameter name P
/// such that `name` is "P.<state>"; empty if there is none.
static StringRef getOwningParam(StringRef name,
                                const llvm::StringSet<> &paramNames) {
  for (size_t dot = name.rfind('.'); dot != StringRef::npos && dot > 0;
       dot = name.rfind('.', dot - 1)) {
    StringRef prefix = name.take_front(dot);
    if (paramNames.contains(prefix))
      return prefix;
  }
  return {};
}

/// Reports `op` (a param or opt_state) if state `name` was read before as
/// another op or with another type; `readers` holds each name's first
/// reader. Returns false when it reported.
static bool checkStateRead(Operation &op,
                           llvm::StringMap<Operation *> &readers) {
  StringRef name = *getStateName(op.getResult(0));
  auto [it, inserted] = readers.try_emplace(name, &op);
  Operation *first = it->second;
  if (inserted)
    return true;
  if (first->getName() != op.getName()) {
    op.emitOpError() << "state \"" << name << "\" is read as both '"
                     << first->getName() << "' and '" << op.getName()
                     << "'; a name denotes one buffer";
    return false;
  }
  if (first->getResult(0).getType() != op.getResult(0).getType()) {
    op.emitOpError() << "state \"" << name << "\" is read with type "
                     << op.getResult(0).getType() << ", but earlier with type "
                     << first->getResult(0).getType();
    return false;
  }
  return true;
}

/// The mask a dropout draws: its id and, for a slice of a larger tensor
/// (train-shard's partitions, train-pipeline's micro-batches), where the
/// slice lies: each offset as its constant, or else as the SSA value.
static std::string getMaskKey(train::DropoutOp dropout) {
  std::string key = std::to_string(dropout.getId());
  llvm::raw_string_ostream os(key);
  for (Value offset : dropout.getOffsets()) {
    if (std::optional<int64_t> constant = getConstantIntValue(offset))
      os << ",c" << *constant;
    else
      os << ",v" << offset.getAsOpaquePointer();
  }
  return key;
}

/// Reports `dropout` if another dropout of the step has its id at the same
/// offsets: the two would draw the same mask. Recomputed clones
/// (train-remat) share their original's id on purpose, to reproduce its
/// mask. `dropouts` holds the first dropout of each mask. Returns false
/// when it reported.
static bool checkDropout(train::DropoutOp dropout,
                         llvm::StringMap<Operation *> &dropouts) {
  Operation *op = dropout.getOperation();
  if (op->hasAttr(train::TrainDialect::kRecomputedAttrName))
    return true;
  auto [it, inserted] = dropouts.try_emplace(getMaskKey(dropout), op);
  if (inserted)
    return true;
  InFlightDiagnostic diag = dropout.emitOpError()
                            << "has id " << dropout.getId()
                            << ", which another dropout of the step "
                               "already has at the same offsets: the two "
                               "would draw the same mask";
  diag.attachNote(it->second->getLoc()) << "the other dropout is here";
  return false;
}

/// Reports the states that `aliasing` updates in place more than once in
/// the step (`updaters` holds each state's first updater), and optimizer
/// states of a parameter not named "<parameter>.<state>". Returns false
/// when it reported.
static bool checkStateUpdates(train::AliasingOpInterface aliasing,
                              const llvm::StringSet<> &paramNames,
                              llvm::StringMap<Operation *> &updaters) {
  Operation &op = *aliasing.getOperation();
  bool ok = true;
  std::optional<StringRef> paramName;
  for (OpOperand &operand : op.getOpOperands())
    if (auto param = operand.get().getDefiningOp<train::ParamOp>();
        param && aliasing.isUpdatedInPlace(operand.getOperandNumber()))
      paramName = param.getName();
  for (OpOperand &operand : op.getOpOperands()) {
    if (!aliasing.isUpdatedInPlace(operand.getOperandNumber()))
      continue;
    std::optional<StringRef> name = getStateName(operand.get());
    if (!name)
      continue;
    if (paramName && operand.get().getDefiningOp<train::OptStateOp>()) {
      StringRef owner = getOwningParam(*name, paramNames);
      if (owner != *paramName) {
        InFlightDiagnostic diag =
            op.emitOpError()
            << "expected optimizer state \"" << *name << "\" of parameter \""
            << *paramName << "\" to be named \"" << *paramName << ".<state>\"";
        if (!owner.empty())
          diag << "; it names a state of parameter \"" << owner << "\"";
        ok = false;
      }
    }
    auto [it, inserted] = updaters.try_emplace(*name, &op);
    if (inserted)
      continue;
    InFlightDiagnostic diag = op.emitOpError()
                              << "state \"" << *name
                              << "\" is updated more than once in one step";
    diag.attachNote(it->second->getLoc())
        << "state \"" << *name << "\" first updated here";
    ok = false;
  }
  return ok;
}

/// The `micro_batches` of a gradient-accumulation op that has it, or
/// std::nullopt for another op.
static std::optional<int64_t> getMicroBatches(Operation &op) {
  if (auto skip = dyn_cast<train::MicroBatchSkipOp>(op))
    return skip.getMicroBatches();
  if (auto advance = dyn_cast<train::MicroBatchAdvanceOp>(op))
    return advance.getMicroBatches();
  return std::nullopt;
}

/// Reports gradient-accumulation ops (train-accumulate-gradients) that
/// disagree on the micro-batches per step, and a micro-batch index that is
/// read without being advanced, or after it is advanced: every reader must
/// see the index of the micro-batch being run. Returns false when it
/// reported.
static bool checkMicroBatches(Block &body) {
  Operation *first = nullptr, *firstReader = nullptr;
  train::MicroBatchAdvanceOp advance;
  for (Operation &op : body) {
    if (!isa<train::AccumulateOp, train::MicroBatchSkipOp,
             train::MicroBatchAdvanceOp, train::RefreshOp>(op))
      continue;
    if (advance) {
      InFlightDiagnostic diag = op.emitOpError()
                                << "reads the micro-batch index after "
                                   "train.micro_batch_advance moved it on";
      diag.attachNote(advance.getLoc()) << "advanced here";
      return false;
    }
    if (!firstReader)
      firstReader = &op;
    advance = dyn_cast<train::MicroBatchAdvanceOp>(op);
    std::optional<int64_t> microBatches = getMicroBatches(op);
    if (!microBatches)
      continue;
    if (!first)
      first = &op;
    if (*microBatches == *getMicroBatches(*first))
      continue;
    InFlightDiagnostic diag = op.emitOpError()
                              << "accumulates over " << *microBatches
                              << " micro-batches, but another op of the step "
                                 "over "
                              << *getMicroBatches(*first);
    diag.attachNote(first->getLoc()) << "the other op is here";
    return false;
  }
  if (!firstReader || advance)
    return true;
  firstReader->emitOpError() << "reads the micro-batch index, but no "
                                "train.micro_batch_advance moves it on "
                                "after it: every call would run the same "
                                "micro-batch";
  return false;
}

/// Reports `func` unless its first result is the loss, a 0-d float tensor:
/// the memory report, remat (which keeps what the loss depends on) and
/// mem-run all read it so.
static LogicalResult checkLossResult(func::FuncOp func) {
  ArrayRef<Type> results = func.getResultTypes();
  auto loss = results.empty() ? RankedTensorType()
                              : dyn_cast<RankedTensorType>(results.front());
  if (loss && loss.getRank() == 0 && isa<FloatType>(loss.getElementType()))
    return success();
  InFlightDiagnostic diag = func.emitOpError()
                            << "is not a training step: its first result "
                               "must be the loss, a 0-d float tensor, but ";
  if (results.empty())
    diag << "it returns nothing";
  else
    diag << "it is " << results.front();
  return failure();
}

/// Device ops read device values only (host ops' operands are checked by
/// `train.space`'s verifier; the copies to the device and train.refresh
/// read host values by definition, and train-lifetimes' frees end values of
/// either memory), and every read of a state name is in one memory space
/// (`readers`: the first read of each name).
static LogicalResult checkSpaces(Operation &op,
                                 const llvm::StringMap<Operation *> &readers) {
  if (!train::isHostOp(&op) &&
      !isa<train::ToDeviceOp, train::RefreshOp, train::FreeOp>(op))
    for (OpOperand &operand : op.getOpOperands())
      if (train::getMemorySpace(operand.get()) == train::MemorySpace::Host)
        return op.emitOpError()
               << "runs on the device but reads operand #"
               << operand.getOperandNumber()
               << ", a host value: copy it with train.to_device first";
  StringRef name;
  if (auto param = dyn_cast<train::ParamOp>(op))
    name = param.getName();
  else if (auto state = dyn_cast<train::OptStateOp>(op))
    name = state.getName();
  auto it = name.empty() ? readers.end() : readers.find(name);
  if (it != readers.end() && it->second != &op &&
      train::isHostOp(it->second) != train::isHostOp(&op))
    return op.emitOpError() << "reads '" << name
                            << "' in another memory space than its first "
                               "read: a state lives in one memory";
  return success();
}

void TrainVerifyStepPass::runOnOperation() {
  func::FuncOp func = getOperation();
  if (func.isExternal()) {
    markAllAnalysesPreserved();
    return;
  }
  if (!func.getBody().hasOneBlock()) {
    func.emitOpError() << "expected a training step with a single block "
                          "(program order is the schedule), got "
                       << func.getBody().getBlocks().size() << " blocks";
    return signalPassFailure();
  }
  if (failed(train::verifyNotLowered(func, "train-verify-step")))
    return signalPassFailure();

  Block &body = func.getBody().front();
  // The names of all parameters, to find the parameter a state belongs to.
  llvm::StringSet<> paramNames;
  for (auto param : body.getOps<train::ParamOp>())
    paramNames.insert(param.getName());

  // First reader of each state name, first dropout of each id and first
  // optimizer update of each state.
  llvm::StringMap<Operation *> readers;
  llvm::StringMap<Operation *> dropouts;
  llvm::StringMap<Operation *> updaters;
  bool ok = true;
  for (Operation &op : body) {
    ok &= succeeded(checkSpaces(op, readers));
    if (isa<train::ParamOp, train::OptStateOp>(op))
      ok &= checkStateRead(op, readers);
    else if (auto dropout = dyn_cast<train::DropoutOp>(op))
      ok &= checkDropout(dropout, dropouts);
    else if (auto aliasing = dyn_cast<train::AliasingOpInterface>(op))
      ok &= checkStateUpdates(aliasing, paramNames, updaters);
  }
  ok = ok && checkMicroBatches(body);
  if (!ok)
    return signalPassFailure();

  // Checked last, once every op is sound.
  if (failed(checkLossResult(func)))
    return signalPassFailure();
  markAllAnalysesPreserved();
}
