// The headers memopt's libraries include most, precompiled once per build
// (cmake/MemoptPCH.cmake). Parsing and instantiating them took most of each
// file's compile time: the train dialect's generated op classes alone were
// about 11 of 15 s per file. Only headers that do not depend on macros a file
// defines first belong here (no Passes.h: files define GEN_PASS_DEF_* before
// including them).
#ifndef MEMOPT_CMAKE_PCH_MEMOPTPCH_H
#define MEMOPT_CMAKE_PCH_MEMOPTPCH_H

#include "memopt/Dialect/Train/IR/TrainOps.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/PatternMatch.h"
#include "mlir/Pass/Pass.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Transforms/DialectConversion.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/SmallVector.h"
#include "llvm/ADT/StringMap.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/raw_ostream.h"

#endif // MEMOPT_CMAKE_PCH_MEMOPTPCH_H
