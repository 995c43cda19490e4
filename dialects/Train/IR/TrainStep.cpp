//===- TrainStep.cpp - what the train passes expect of their input --------===//

#include "memopt/Dialect/Train/IR/TrainStep.h"
#include "memopt/Dialect/Train/IR/TrainDialect.h"

#include "mlir/IR/Diagnostics.h"
#include "llvm/ADT/STLExtras.h"

using namespace mlir;
using namespace mlir::memopt;

/// Dialects that appear only once convert-train-to-linalg (or a later
/// lowering) has run.
static bool isLoweredDialect(StringRef dialect) {
  return llvm::is_contained({"linalg", "memref", "bufferization", "gpu", "llvm"},
                            dialect);
}

LogicalResult train::verifyNotLowered(FunctionOpInterface func,
                                      StringRef passName) {
  Operation *lowered = nullptr;
  func->walk([&](Operation *op) {
    if (op == func.getOperation() ||
        !isLoweredDialect(op->getName().getDialectNamespace()))
      return WalkResult::advance();
    lowered = op;
    return WalkResult::interrupt();
  });
  if (!lowered)
    return success();
  InFlightDiagnostic diag = emitError(lowered->getLoc())
                            << passName << " expects a training step in the "
                            << "train dialect, but @"
                            << SymbolTable::getSymbolName(func).getValue()
                            << " is already lowered: it holds '"
                            << lowered->getName() << "'";
  diag.attachNote() << "run " << passName
                    << " on the step before --convert-train-to-linalg";
  return diag;
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
