//===- MergeKernelModules.cpp - one gpu.module for all kernels ------------===//

#include "memopt/Conversion/Passes.h"

#include "mlir/IR/SymbolTable.h"
#include "llvm/ADT/StringMap.h"

namespace mlir::memopt {
#define GEN_PASS_DEF_MEMOPTGPUMERGEKERNELMODULESPASS
#include "memopt/Conversion/Passes.h.inc"
} // namespace mlir::memopt

using namespace mlir;

namespace {

struct GPUMergeKernelModulesPass
    : public memopt::impl::MemoptGPUMergeKernelModulesPassBase<
          GPUMergeKernelModulesPass> {
  using Base::Base;

  void runOnOperation() override {
    ModuleOp module = getOperation();
    // Modules that hold kernels only, without attributes of their own (the
    // target is attached later, to the merged module).
    SmallVector<gpu::GPUModuleOp> sources;
    for (auto kernels : module.getOps<gpu::GPUModuleOp>()) {
      bool onlyKernels = llvm::all_of(kernels.getOps(), [](Operation &op) {
        auto func = dyn_cast<gpu::GPUFuncOp>(op);
        return func && func.isKernel();
      });
      if (onlyKernels && !kernels.getTargetsAttr() &&
          llvm::hasSingleElement(kernels.getOps()))
        sources.push_back(kernels);
    }
    if (sources.size() < 2)
      return markAllAnalysesPreserved();

    OpBuilder builder(sources.front());
    auto merged =
        gpu::GPUModuleOp::create(builder, module.getLoc(), "memopt_kernels");
    SymbolTable symbols(module);
    symbols.insert(merged); // Renames on a clash.
    Block &body = merged.getBodyRegion().front();
    DenseMap<StringAttr, SymbolRefAttr> renamed;
    // Kernels by their text under a common name: identical kernels (the
    // same op on the same shapes in several layers, with the same launch
    // bounds) are compiled once.
    llvm::StringMap<StringAttr> byText;
    for (gpu::GPUModuleOp source : sources) {
      auto kernel = cast<gpu::GPUFuncOp>(*source.getOps().begin());
      StringAttr oldName = source.getSymNameAttr();
      SymbolTable::setSymbolName(kernel, "memopt_kernel");
      std::string text;
      llvm::raw_string_ostream os(text);
      kernel->print(os, OpPrintingFlags().useLocalScope());
      auto [it, inserted] = byText.try_emplace(text, oldName);
      renamed[oldName] = SymbolRefAttr::get(
          merged.getSymNameAttr(), {FlatSymbolRefAttr::get(it->second)});
      if (inserted) {
        kernel->moveBefore(&body, body.end());
        SymbolTable::setSymbolName(kernel, oldName);
      }
      source.erase();
    }
    module.walk([&](gpu::LaunchFuncOp launch) {
      auto it = renamed.find(launch.getKernelModuleName());
      if (it != renamed.end())
        launch.setKernelAttr(it->second);
    });
  }
};

} // namespace
