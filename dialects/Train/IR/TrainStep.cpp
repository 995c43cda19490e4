//===- TrainStep.cpp - what the train passes expect of their input --------===//

#include "memopt/Dialect/Train/IR/TrainStep.h"
#include "memopt/Dialect/Train/IR/TrainDialect.h"
#include "memopt/Dialect/Train/IR/TrainInterfaces.h"

#include "mlir/IR/Diagnostics.h"
#include "llvm/ADT/STLExtras.h"

using namespace mlir;
using namespace mlir::memopt;

/// Dialects that appear only once a step is bufferized or lowered further.
static bool isBufferDialect(StringRef dialect) {
  return llvm::is_contained({"memref", "bufferization", "gpu", "llvm"},
                            dialect);
}

LogicalResult train::verifyNotLowered(FunctionOpInterface func,
                                      StringRef passName) {
  // Buffers mean the step was lowered. Linalg on tensors may be mixed into
  // a train step by hand (a custom loss); it means lowering only where no
  // train op is left.
  Operation *lowered = nullptr, *linalg = nullptr;
  bool hasTrainOps = false;
  func->walk([&](Operation *op) {
    StringRef dialect = op->getName().getDialectNamespace();
    hasTrainOps |= isa<train::TrainDialect>(op->getDialect());
    if (!linalg && dialect == "linalg")
      linalg = op;
    if (op != func.getOperation() && isBufferDialect(dialect)) {
      lowered = op;
      return WalkResult::interrupt();
    }
    return WalkResult::advance();
  });
  if (!lowered && !hasTrainOps)
    lowered = linalg;
  if (!lowered)
    return success();
  InFlightDiagnostic diag =
      emitError(lowered->getLoc())
      << passName << " expects a training step in the "
      << "train dialect, but @" << SymbolTable::getSymbolName(func).getValue()
      << " is already lowered: it holds '" << lowered->getName() << "'";
  diag.attachNote() << "run " << passName
                    << " on the step before --convert-train-to-linalg";
  return diag;
}

LogicalResult train::verifyStepBody(FunctionOpInterface func,
                                    StringRef passName) {
  if (!func.getFunctionBody().hasOneBlock())
    return func->emitOpError("expected a single-block training step (program "
                             "order is the schedule)");
  return verifyNotLowered(func, passName);
}

Operation *train::findTrainOp(Operation *root) {
  Operation *found = nullptr;
  root->walk([&](Operation *op) {
    if (!isa<train::TrainDialect>(op->getDialect()))
      return WalkResult::advance();
    found = op;
    return WalkResult::interrupt();
  });
  return found;
}

bool train::isInPlaceUpdate(Operation *op) {
  auto aliasing = dyn_cast<AliasingOpInterface>(op);
  if (!aliasing)
    return false;
  for (unsigned i = 0, e = op->getNumOperands(); i < e; ++i)
    if (aliasing.isUpdatedInPlace(i))
      return true;
  return false;
}

Operation *train::findInPlaceUpdate(Operation *root) {
  Operation *found = nullptr;
  root->walk([&](Operation *op) {
    if (!isInPlaceUpdate(op))
      return WalkResult::advance();
    found = op;
    return WalkResult::interrupt();
  });
  return found;
}

SmallVector<int16_t> train::getTensorParallelAxes(Operation *func) {
  auto config =
      func->getAttrOfType<DictionaryAttr>(train::TrainDialect::kShardAttrName);
  if (!config)
    return {};
  if (config.get("kv_replicas"))
    return {1, 2};
  return {1};
}
