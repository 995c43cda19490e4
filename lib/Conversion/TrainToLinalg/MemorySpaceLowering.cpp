//===- MemorySpaceLowering.cpp - host values on the CPU -------------------===//
//
// A step with host values (train-offload) runs in one address space on the
// CPU; what keeps the two memories apart is the accounting. The runtime's
// allocation hooks count each allocation in the memory space current when
// it is made (memopt_memory_space, libmemopt_runtime), so every run of host
// ops -- and each train.to_host, whose result is a host buffer -- is
// bracketed by calls that switch the space to the host and back before the
// ops are lowered. The copies are real copies into new buffers
// (linalg.copy into a tensor.empty), marked for the GPU lowering, which
// makes them copies between the device's and the host's memories; the
// module names the globals that live in host memory (MemorySpace.h).
//
//===----------------------------------------------------------------------===//

#include "Lowering.h"

#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "llvm/ADT/SetVector.h"

#include <type_traits>

using namespace mlir;
using namespace mlir::memopt;

namespace {

template <typename CopyOp>
struct SpaceCopyLowering : public OpConversionPattern<CopyOp> {
  using OpConversionPattern<CopyOp>::OpConversionPattern;
  LogicalResult
  matchAndRewrite(CopyOp op, typename CopyOp::Adaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    // A copy into a new tensor: in a planned step, the arena places the
    // device's copies at their offsets as it places any op's destination.
    auto type = cast<RankedTensorType>(op.getType());
    Value empty = tensor::EmptyOp::create(
        rewriter, op.getLoc(), type.getShape(), type.getElementType());
    auto copy = rewriter.replaceOpWithNewOp<linalg::CopyOp>(
        op, adaptor.getInput(), empty);
    // The GPU lowering makes it a copy between the memories.
    copy->setAttr(kMemoryCopyAttrName,
                  rewriter.getStringAttr(std::is_same_v<CopyOp, train::ToHostOp>
                                             ? "to_host"
                                             : "to_device"));
    return success();
  }
};

} // namespace

void mlir::memopt::populateMemorySpaceLoweringPatterns(
    RewritePatternSet &patterns) {
  patterns.add<SpaceCopyLowering<train::ToHostOp>,
               SpaceCopyLowering<train::ToDeviceOp>>(patterns.getContext());
}

/// Whether `op` allocates host memory: a host op or a copy to the host.
static bool allocatesOnHost(Operation *op) {
  return train::isHostOp(op) || isa<train::ToHostOp>(op);
}

/// Sets the module's kHostGlobalsAttrName to the globals of the host's
/// parameters and states, if any.
static void nameHostGlobals(ModuleOp module) {
  MLIRContext *context = module.getContext();
  llvm::SetVector<Attribute> names;
  module.walk([&](Operation *op) {
    if (!train::isHostOp(op))
      return;
    if (auto param = dyn_cast<train::ParamOp>(op))
      names.insert(
          StringAttr::get(context, getParamGlobalName(param.getName())));
    else if (auto state = dyn_cast<train::OptStateOp>(op))
      names.insert(
          StringAttr::get(context, getStateGlobalName(state.getName())));
  });
  if (!names.empty())
    module->setAttr(kHostGlobalsAttrName,
                    ArrayAttr::get(context, names.getArrayRef()));
}

LogicalResult mlir::memopt::insertMemorySpaceMarkers(ModuleOp module) {
  nameHostGlobals(module);
  SmallVector<func::FuncOp> funcs;
  for (auto func : module.getOps<func::FuncOp>())
    if (!func.isExternal() &&
        llvm::any_of(func.getBody().front(),
                     [](Operation &op) { return allocatesOnHost(&op); }))
      funcs.push_back(func);
  if (funcs.empty())
    return success();
  OpBuilder b(module.getBodyRegion());
  auto i32 = b.getI32Type();
  auto type = b.getFunctionType({i32}, {});
  auto callee = module.lookupSymbol<func::FuncOp>(kMemorySpaceFunction);
  if (callee && callee.getFunctionType() != type)
    return callee.emitOpError() << "has type " << callee.getFunctionType()
                                << ", but the runtime's takes (i32)";
  if (!callee) {
    callee =
        func::FuncOp::create(b, module.getLoc(), kMemorySpaceFunction, type);
    callee.setPrivate();
  }
  for (func::FuncOp func : funcs) {
    auto mark = [&](Operation *at, bool after, int32_t space) {
      OpBuilder builder(at);
      if (after)
        builder.setInsertionPointAfter(at);
      Value code =
          arith::ConstantIntOp::create(builder, at->getLoc(), i32, space);
      func::CallOp::create(builder, at->getLoc(), callee, ValueRange{code});
    };
    // Maximal runs of host allocations, each bracketed.
    Operation *first = nullptr, *last = nullptr;
    for (Operation &op : llvm::make_early_inc_range(func.getBody().front())) {
      if (allocatesOnHost(&op)) {
        if (!first)
          first = &op;
        last = &op;
        continue;
      }
      if (first) {
        mark(first, /*after=*/false, 1);
        mark(last, /*after=*/true, 0);
        first = last = nullptr;
      }
    }
    if (first) {
      mark(first, false, 1);
      mark(last, true, 0);
    }
  }
  return success();
}
