//===- TrainMemorySpaces.cpp - device and host values ---------------------===//
//
// Where each value of a step lives (train.space on its defining op, and the
// copies train.to_host / train.to_device), and the checks that keep the two
// spaces apart: a host op reads host values only, a copy reads the other
// space.
//
//===----------------------------------------------------------------------===//

#include "memopt/Dialect/Train/IR/TrainOps.h"

#include "mlir/IR/Builders.h"

using namespace mlir;
using namespace mlir::memopt;
using namespace mlir::memopt::train;

bool train::isHostOp(Operation *op) {
  auto space = op->getAttrOfType<StringAttr>(TrainDialect::kSpaceAttrName);
  return space && space.getValue() == "host";
}

MemorySpace train::getMemorySpace(Value value) {
  Operation *def = value.getDefiningOp();
  if (def && (isa<ToHostOp>(def) || isHostOp(def)))
    return MemorySpace::Host;
  return MemorySpace::Device;
}

bool train::isRefreshedCopy(Operation *state) {
  return state->getNumResults() == 1 &&
         llvm::any_of(state->getUsers(), [&](Operation *user) {
           auto refresh = dyn_cast<RefreshOp>(user);
           return refresh && refresh.getCopy() == state->getResult(0);
         });
}

void train::setHostOp(Operation *op) {
  op->setAttr(TrainDialect::kSpaceAttrName,
              Builder(op->getContext()).getStringAttr("host"));
}

/// A copy reads a value of the space it leaves (and carries no
/// `train.space`: verifySpaceAttribute).
static LogicalResult verifyCopy(Operation *op, Value input, MemorySpace from) {
  if (getMemorySpace(input) != from)
    return op->emitOpError()
           << "copies a value that is already in "
           << (from == MemorySpace::Device ? "host" : "device") << " memory";
  return success();
}

LogicalResult ToHostOp::verify() {
  return verifyCopy(*this, getInput(), MemorySpace::Device);
}

LogicalResult ToDeviceOp::verify() {
  return verifyCopy(*this, getInput(), MemorySpace::Host);
}

LogicalResult train::verifySpaceAttribute(Operation *op,
                                          NamedAttribute attribute) {
  if (isa<ToHostOp, ToDeviceOp>(op))
    return op->emitOpError() << "carries '" << attribute.getName().strref()
                             << "': a copy's space is given by its kind";
  auto space = dyn_cast<StringAttr>(attribute.getValue());
  if (!space || space.getValue() != "host")
    return op->emitError() << "'" << attribute.getName().strref()
                           << "' must be \"host\" (device is the default)";
  for (OpOperand &operand : op->getOpOperands())
    if (getMemorySpace(operand.get()) != MemorySpace::Host)
      return op->emitError()
             << "runs on the host but reads operand #"
             << operand.getOperandNumber()
             << ", a device value: copy it with train.to_host first";
  return success();
}

int64_t ToHostOp::getFlops() { return 0; }

int64_t ToDeviceOp::getFlops() { return 0; }

// The copies carry their input's values (an integer input's range, a step
// count) to their result.
bool ToHostOp::forwardsValues(unsigned operandIndex) { return true; }

bool ToDeviceOp::forwardsValues(unsigned operandIndex) { return true; }
