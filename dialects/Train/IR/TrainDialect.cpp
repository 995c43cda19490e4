//===- TrainDialect.cpp - train dialect -----------------------------------===//

#include "memopt/Dialect/Train/IR/TrainDialect.h"
#include "memopt/Dialect/Train/IR/TrainOps.h"

using namespace mlir;
using namespace mlir::memopt::train;

#include "memopt/Dialect/Train/IR/TrainDialect.cpp.inc"

void TrainDialect::initialize() {
  addOperations<
#define GET_OP_LIST
#include "memopt/Dialect/Train/IR/TrainOps.cpp.inc"
      >();
}
