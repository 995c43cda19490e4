//===- TrainDialect.h - train dialect ---------------------------*- C++ -*-===//

#ifndef MEMOPT_DIALECT_TRAIN_IR_TRAINDIALECT_H
#define MEMOPT_DIALECT_TRAIN_IR_TRAINDIALECT_H

#include "mlir/Dialect/Shard/IR/ShardDialect.h"
#include "mlir/IR/Dialect.h"

#include "memopt/Dialect/Train/IR/TrainDialect.h.inc"

#endif // MEMOPT_DIALECT_TRAIN_IR_TRAINDIALECT_H
