//===- InitAll.cpp - register memopt dialects and passes ------------------===//

#include "memopt/InitAll.h"

#include "memopt/Dialect/Train/IR/TrainDialect.h"
#include "memopt/Transforms/Passes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Bufferization/IR/Bufferization.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/MPI/IR/MPI.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Shard/IR/ShardDialect.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/DialectRegistry.h"
#include "mlir/Transforms/Passes.h"

void mlir::memopt::registerAllDialects(DialectRegistry &registry) {
  registry.insert<train::TrainDialect, arith::ArithDialect,
                  bufferization::BufferizationDialect, func::FuncDialect,
                  gpu::GPUDialect, LLVM::LLVMDialect, linalg::LinalgDialect,
                  math::MathDialect, memref::MemRefDialect, mpi::MPIDialect,
                  NVVM::NVVMDialect, scf::SCFDialect, shard::ShardDialect,
                  tensor::TensorDialect>();
}

void mlir::memopt::registerAllPasses() {
  // Generic upstream transforms (canonicalize, cse, inline, ...).
  registerTransformsPasses();
  registerMemoptPasses();
}
