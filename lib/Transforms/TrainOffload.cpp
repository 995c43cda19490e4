//===- TrainOffload.cpp - the train-offload pass --------------------------===//
//
// ZeRO-Offload's placement: the optimizer updates, the parameters and states
// they update, and copies of what else they read, in host memory
// (`train.space = "host"`); the device computes with copies of the weights.
// See Passes.td for the rules.
//
//===----------------------------------------------------------------------===//

#include "memopt/Transforms/Passes.h"

#include "memopt/Analysis/TensorLiveness.h"
#include "memopt/Dialect/Train/IR/TrainOps.h"

#include "mlir/IR/Builders.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/SetVector.h"
#include "llvm/ADT/SmallPtrSet.h"
#include "llvm/ADT/StringSet.h"

namespace mlir::memopt {
#define GEN_PASS_DEF_TRAINOFFLOADPASS
#include "memopt/Transforms/Passes.h.inc"
} // namespace mlir::memopt

using namespace mlir;
using namespace mlir::memopt;

/// Whether `op` is an optimizer update: it updates a parameter in place.
static bool isParamUpdate(Operation *op) {
  auto aliasing = dyn_cast<train::AliasingOpInterface>(op);
  if (!aliasing)
    return false;
  for (OpOperand &operand : op->getOpOperands())
    if (aliasing.isUpdatedInPlace(operand.getOperandNumber()) &&
        operand.get().getDefiningOp<train::ParamOp>())
      return true;
  return false;
}

int64_t mlir::memopt::getOffloadableStateBytes(func::FuncOp func) {
  llvm::SmallPtrSet<Operation *, 16> states;
  func.walk([&](Operation *op) {
    if (train::isHostOp(op) || !isParamUpdate(op))
      return;
    auto aliasing = cast<train::AliasingOpInterface>(op);
    for (OpOperand &operand : op->getOpOperands()) {
      Operation *def = operand.get().getDefiningOp();
      if (aliasing.isUpdatedInPlace(operand.getOperandNumber()) &&
          isa_and_nonnull<train::ParamOp, train::OptStateOp>(def))
        states.insert(def);
    }
  });
  int64_t bytes = 0;
  for (Operation *state : states)
    bytes += train::getTensorBytes(state->getResult(0).getType());
  return bytes;
}

namespace {

/// The rewrite of one step.
class Offloader {
public:
  /// With `fetchPerUse` (params=host), the device's copies of the weights
  /// are made right before their uses, once for the forward pass and once
  /// for the backward pass, instead of once a step; with `keepCopies`
  /// (params=device), under gradient accumulation they are kept across the
  /// micro-batches (train.refresh) instead of made every micro-batch.
  Offloader(func::FuncOp func, bool fetchPerUse, bool keepCopies)
      : func(func), fetchPerUse(fetchPerUse), keepCopies(keepCopies) {}

  LogicalResult run() {
    Block &body = func.getBody().front();
    // Which ops the forward pass runs, before any rewrite.
    if (fetchPerUse) {
      TensorLiveness liveness(func);
      for (Operation &op : body)
        if (liveness.isForward(&op))
          forward.insert(&op);
    }
    // The updates, and under gradient accumulation the accumulations and
    // the micro-batch counter's ops: all move to the host, in program
    // order.
    bool accumulating = llvm::any_of(
        body, [](Operation &op) { return isa<train::AccumulateOp>(op); });
    SmallVector<Operation *> hostOps;
    bool hasUpdate = false;
    for (Operation &op : body) {
      bool update = isParamUpdate(&op);
      hasUpdate |= update;
      if (update ||
          (accumulating && isa<train::AccumulateOp, train::MicroBatchSkipOp,
                               train::MicroBatchAdvanceOp>(op)))
        hostOps.push_back(&op);
    }
    if (!hasUpdate)
      return func.emitOpError()
             << "has no optimizer update to offload (apply train-autodiff "
                "with an optimizer first)";
    // Under gradient accumulation (with params=device) the device
    // keeps its copies of the weights across micro-batches: train.refresh
    // fills them from the host on micro-batch 0, so it reads the
    // micro-batch index from the step's start.
    if (accumulating && keepCopies)
      for (Operation &op : body)
        if (auto state = dyn_cast<train::OptStateOp>(op);
            state && state.getName() == train::kMicroBatchState) {
          op.moveBefore(&body.front());
          microBatch = state.getResult();
          break;
        }
    // The states the updates and the gradient accumulations write, by
    // name: every read of such a name moves to the host. Under gradient
    // accumulation each micro-batch's gradient is added into an fp32
    // buffer on the host, as ZeRO-Offload accumulates on the CPU.
    llvm::StringSet<> moved;
    for (Operation *update : hostOps) {
      auto aliasing = dyn_cast<train::AliasingOpInterface>(update);
      if (!aliasing)
        continue;
      for (OpOperand &operand : update->getOpOperands()) {
        if (!aliasing.isUpdatedInPlace(operand.getOperandNumber()))
          continue;
        Operation *def = operand.get().getDefiningOp();
        if (auto param = dyn_cast_or_null<train::ParamOp>(def))
          moved.insert(param.getName());
        else if (auto state = dyn_cast_or_null<train::OptStateOp>(def))
          moved.insert(state.getName());
      }
    }
    SmallVector<Operation *> states;
    for (Operation &op : body) {
      StringRef name;
      if (auto param = dyn_cast<train::ParamOp>(op))
        name = param.getName();
      else if (auto state = dyn_cast<train::OptStateOp>(op))
        name = state.getName();
      if (!name.empty() && moved.contains(name)) {
        train::setHostOp(&op);
        states.push_back(&op);
      }
    }
    // Loss scaling's check for non-finite gradients runs on the host, on
    // the copies, as ZeRO-Offload checks for overflow on the CPU: the
    // device then frees each gradient once it is copied, instead of
    // holding them all for the check at the end of the backward pass.
    SmallVector<Operation *> checks;
    for (Operation &op : body)
      if (isa<train::AnyNonfiniteOp>(op) &&
          llvm::any_of(op.getUsers(), isParamUpdate))
        checks.push_back(&op);
    for (Operation *check : checks) {
      for (OpOperand &operand : check->getOpOperands())
        operand.set(getHostCopy(operand.get(), check));
      train::setHostOp(check);
    }
    for (Operation *update : hostOps) {
      train::setHostOp(update);
      for (OpOperand &operand : update->getOpOperands())
        if (train::getMemorySpace(operand.get()) != train::MemorySpace::Host)
          operand.set(getHostCopy(operand.get(), update));
    }
    for (Operation *state : states)
      copyToDevice(state->getResult(0), isa<train::ParamOp>(state));
    for (Operation *check : checks)
      copyToDevice(check->getResult(0));
    return success();
  }

private:
  /// `value` in host memory for `user`, the first update (in program
  /// order) that reads it, made once: a host clone of a constant; a
  /// train.to_host right after the definition of a computed value (a
  /// gradient leaves the device as soon as it is complete); and of a state
  /// the device updates in place (a loss scaler's) or an argument, right
  /// before `user`, which reads the state as it is then.
  Value getHostCopy(Value value, Operation *user) {
    auto [it, inserted] = hostCopies.try_emplace(value);
    if (!inserted)
      return it->second;
    OpBuilder b(func.getContext());
    Operation *def = value.getDefiningOp();
    if (def && def->hasTrait<OpTrait::ConstantLike>() &&
        def->getNumResults() == 1) {
      b.setInsertionPointAfter(def);
      Operation *clone = b.clone(*def);
      train::setHostOp(clone);
      return it->second = clone->getResult(0);
    }
    if (def && !isa<train::ParamOp, train::OptStateOp>(def))
      b.setInsertionPointAfter(def);
    else
      b.setInsertionPoint(user);
    return it->second = train::ToHostOp::create(b, value.getLoc(),
                                                value.getType(), value)
                            .getResult();
  }

  /// Gives the device ops that read the host value `value` a
  /// train.to_device copy, made right after it; for a weight (`weight`,
  /// a parameter or its cast) under fetchPerUse, one copy right before its
  /// first forward reader and one right before its first backward reader.
  /// A cast of a parameter that only device ops read runs on the host
  /// first, so that its (narrower) result is what crosses the link.
  void copyToDevice(Value value, bool weight = false) {
    if (weight && microBatch)
      if (auto param = value.getDefiningOp<train::ParamOp>())
        return keepDeviceCopies(param);
    SmallVector<OpOperand *> deviceUses;
    SmallVector<Operation *> hostCasts;
    for (OpOperand &use : value.getUses()) {
      Operation *user = use.getOwner();
      if (train::isHostOp(user))
        continue;
      auto cast = dyn_cast<train::CastOp>(user);
      if (cast && llvm::none_of(cast->getUsers(), train::isHostOp)) {
        train::setHostOp(cast);
        hostCasts.push_back(cast);
        continue;
      }
      deviceUses.push_back(&use);
    }
    if (weight && fetchPerUse) {
      SmallVector<OpOperand *> forwardUses, backwardUses;
      for (OpOperand *use : deviceUses)
        (forward.contains(use->getOwner()) ? forwardUses : backwardUses)
            .push_back(use);
      fetchBefore(value, forwardUses);
      fetchBefore(value, backwardUses);
    } else if (!deviceUses.empty()) {
      OpBuilder b(func.getContext());
      b.setInsertionPointAfterValue(value);
      Value copy =
          train::ToDeviceOp::create(b, value.getLoc(), value.getType(), value);
      for (OpOperand *use : deviceUses)
        use->set(copy);
    }
    // The casts made host ops here: their device readers need copies.
    for (Operation *cast : hostCasts)
      copyToDevice(cast->getResult(0), weight);
  }

  /// Under gradient accumulation: the device's copies of the weight `param`
  /// that live across micro-batches. Its device readers, and each cast of it
  /// that only device ops read, read instead a device train.opt_state
  /// "<param>.device_copy" (of the parameter's type, or the cast's) that a
  /// train.refresh fills from the host's master on micro-batch 0, right
  /// after the parameter's read (or where the cast was): the weights cross
  /// the link once a step, and the host casts them once.
  void keepDeviceCopies(train::ParamOp param) {
    SmallVector<OpOperand *> deviceUses;
    SmallVector<train::CastOp> deviceCasts;
    for (OpOperand &use : param->getUses()) {
      Operation *user = use.getOwner();
      if (train::isHostOp(user))
        continue;
      auto cast = dyn_cast<train::CastOp>(user);
      if (cast && llvm::none_of(cast->getUsers(), train::isHostOp))
        deviceCasts.push_back(cast);
      else
        deviceUses.push_back(&use);
    }
    auto refresh = [&](Operation *after, Type type) {
      OpBuilder b(func.getContext());
      b.setInsertionPointAfter(after);
      // One state per copy: a second type of the weight, or a second read
      // of a (tied) parameter, gets a name of its own.
      std::string base = (param.getName() + ".device_copy").str();
      std::string name = base;
      for (int64_t k = 2; !copyNames.insert(name).second; ++k)
        name = base + "." + std::to_string(k);
      Value copy =
          train::OptStateOp::create(b, param.getLoc(), type, name).getResult();
      train::RefreshOp::create(b, param.getLoc(), copy, param.getResult(),
                               microBatch);
      return copy;
    };
    if (!deviceUses.empty()) {
      Value copy = refresh(param, param.getType());
      for (OpOperand *use : deviceUses)
        use->set(copy);
    }
    for (train::CastOp cast : deviceCasts) {
      Value copy = refresh(cast, cast.getType());
      cast.getResult().replaceAllUsesWith(copy);
      cast->erase();
    }
  }

  /// One train.to_device of `value` right before the first reader of
  /// `uses` (in program order), which all read it.
  void fetchBefore(Value value, ArrayRef<OpOperand *> uses) {
    if (uses.empty())
      return;
    Operation *first = uses.front()->getOwner();
    for (OpOperand *use : uses)
      if (use->getOwner()->isBeforeInBlock(first))
        first = use->getOwner();
    OpBuilder b(first);
    Value copy =
        train::ToDeviceOp::create(b, value.getLoc(), value.getType(), value);
    for (OpOperand *use : uses)
      use->set(copy);
  }

  func::FuncOp func;
  bool fetchPerUse, keepCopies;
  /// The forward pass' ops (fetchPerUse only).
  llvm::SmallPtrSet<Operation *, 32> forward;
  llvm::DenseMap<Value, Value> hostCopies;
  /// Under gradient accumulation with keepCopies: the micro-batch index
  /// train.refresh reads (moved to the step's start), and the names of the
  /// device copies' states.
  Value microBatch;
  llvm::StringSet<> copyNames;
};

struct TrainOffloadPass
    : public memopt::impl::TrainOffloadPassBase<TrainOffloadPass> {
  using Base::Base;

  LogicalResult checkOptions(func::FuncOp func) {
    for (auto [name, value] :
         {std::pair<StringRef, StringRef>{"optimizer", optimizer},
          {"grads", grads}})
      if (value != "device" && value != "host")
        return emitError(func.getLoc())
               << "train-offload: " << name << " must be device or host, got '"
               << value << "'";
    if (params != "device" && params != "micro-batch" && params != "host")
      return emitError(func.getLoc())
             << "train-offload: params must be device, micro-batch or host, "
                "got '"
             << params << "'";
    if (params == "host" && optimizer != "host")
      return emitError(func.getLoc())
             << "train-offload: params=host needs optimizer=host (the "
                "weights' home on the host is beside the fp32 masters the "
                "host's updates write)";
    if (params == "micro-batch" && optimizer != "host")
      return emitError(func.getLoc())
             << "train-offload: params=micro-batch needs optimizer=host (it "
                "says how often the device copies the weights the host "
                "updates)";
    if (grads == "host" && optimizer != "host")
      return emitError(func.getLoc())
             << "train-offload: grads=host without optimizer=host is not "
                "built yet (with optimizer=host the gradients go to the host)";
    return success();
  }

  void runOnOperation() override {
    func::FuncOp func = getOperation();
    if (func.isExternal())
      return;
    if (failed(checkOptions(func)))
      return signalPassFailure();
    if (optimizer != "host")
      return;
    if (!func.getBody().hasOneBlock()) {
      func.emitOpError("expected a single-block function");
      return signalPassFailure();
    }
    WalkResult walk = func.walk([&](Operation *op) {
      if (train::isHostOp(op) || isa<train::ToHostOp, train::ToDeviceOp>(op)) {
        op->emitOpError() << "is already placed on the host or copied "
                             "between memories: apply train-offload once";
        return WalkResult::interrupt();
      }
      return WalkResult::advance();
    });
    if (walk.wasInterrupted() ||
        failed(Offloader(func, params == "host", params == "device").run()))
      signalPassFailure();
  }
};

} // namespace
