//===- DeviceGlobals.cpp - host globals through the CUDA runtime ----------===//

#include "memopt/Conversion/Passes.h"

#include "mlir/Interfaces/DataLayoutInterfaces.h"

namespace mlir::memopt {
#define GEN_PASS_DEF_MEMOPTGPUDEVICEGLOBALSPASS
#include "memopt/Conversion/Passes.h.inc"
} // namespace mlir::memopt

using namespace mlir;

/// Runtime entry point (lib/Runtime/CUDA): managed copy of a host global.
static constexpr StringLiteral kGlobalFunctionName = "memopt_cuda_global";

namespace {

struct GPUDeviceGlobalsPass
    : public memopt::impl::MemoptGPUDeviceGlobalsPassBase<
          GPUDeviceGlobalsPass> {
  using Base::Base;

  void runOnOperation() override {
    ModuleOp module = getOperation();
    SmallVector<LLVM::AddressOfOp> uses;
    // Host functions only: device code never names a host global.
    for (auto func : module.getOps<LLVM::LLVMFuncOp>())
      func.walk([&](LLVM::AddressOfOp use) {
        if (isa_and_nonnull<LLVM::GlobalOp>(
                SymbolTable::lookupSymbolIn(module, use.getGlobalNameAttr())))
          uses.push_back(use);
      });
    if (uses.empty())
      return markAllAnalysesPreserved();

    MLIRContext *context = module.getContext();
    auto ptrType = LLVM::LLVMPointerType::get(context);
    auto i64 = IntegerType::get(context, 64);
    auto function = module.lookupSymbol<LLVM::LLVMFuncOp>(kGlobalFunctionName);
    if (!function) {
      OpBuilder b = OpBuilder::atBlockBegin(module.getBody());
      function = LLVM::LLVMFuncOp::create(
          b, module.getLoc(), kGlobalFunctionName,
          LLVM::LLVMFunctionType::get(ptrType, {ptrType, i64}));
    }
    DataLayout layout = DataLayout::closest(module);
    for (LLVM::AddressOfOp use : uses) {
      auto global = cast<LLVM::GlobalOp>(
          SymbolTable::lookupSymbolIn(module, use.getGlobalNameAttr()));
      uint64_t bytes = layout.getTypeSize(global.getGlobalType());
      OpBuilder b(use->getContext());
      b.setInsertionPointAfter(use);
      Value size = LLVM::ConstantOp::create(b, use.getLoc(), i64,
                                            b.getI64IntegerAttr(bytes));
      auto call = LLVM::CallOp::create(b, use.getLoc(), function,
                                       ValueRange{use.getResult(), size});
      use.getResult().replaceAllUsesExcept(call.getResult(), call);
    }
  }
};

} // namespace
