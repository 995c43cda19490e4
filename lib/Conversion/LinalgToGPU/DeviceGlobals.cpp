//===- DeviceGlobals.cpp - host globals through the CUDA runtime ----------===//

#include "memopt/Conversion/MemorySpace.h"
#include "memopt/Conversion/Passes.h"

#include "mlir/Interfaces/DataLayoutInterfaces.h"
#include "llvm/ADT/StringSet.h"

namespace mlir::memopt {
#define GEN_PASS_DEF_MEMOPTGPUDEVICEGLOBALSPASS
#include "memopt/Conversion/Passes.h.inc"
} // namespace mlir::memopt

using namespace mlir;

/// Runtime entry points (lib/Runtime/CUDA): the managed copy of a global
/// (device memory), and the pinned copy of a global in host memory.
static constexpr StringLiteral kGlobalFunctionName = "memopt_cuda_global";
static constexpr StringLiteral kHostGlobalFunctionName =
    "memopt_cuda_host_global";

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

    // The globals the lowering placed in host memory (train-offload).
    llvm::StringSet<> hostGlobals;
    if (auto names =
            module->getAttrOfType<ArrayAttr>(memopt::kHostGlobalsAttrName))
      for (auto name : names.getAsRange<StringAttr>())
        hostGlobals.insert(name.getValue());
    auto i64 = IntegerType::get(module.getContext(), 64);
    DataLayout layout = DataLayout::closest(module);
    for (LLVM::AddressOfOp use : uses) {
      auto global = cast<LLVM::GlobalOp>(
          SymbolTable::lookupSymbolIn(module, use.getGlobalNameAttr()));
      LLVM::LLVMFuncOp function = getFunction(
          hostGlobals.contains(global.getSymName()) ? kHostGlobalFunctionName
                                                    : kGlobalFunctionName);
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

  /// The declaration of the runtime function `name`, (ptr, i64) -> ptr,
  /// created on first use.
  LLVM::LLVMFuncOp getFunction(StringRef name) {
    ModuleOp module = getOperation();
    if (auto function = module.lookupSymbol<LLVM::LLVMFuncOp>(name))
      return function;
    MLIRContext *context = module.getContext();
    auto ptrType = LLVM::LLVMPointerType::get(context);
    auto i64 = IntegerType::get(context, 64);
    OpBuilder b = OpBuilder::atBlockBegin(module.getBody());
    return LLVM::LLVMFuncOp::create(
        b, module.getLoc(), name,
        LLVM::LLVMFunctionType::get(ptrType, {ptrType, i64}));
  }
};

} // namespace
