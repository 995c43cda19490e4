//===- Lowering.cpp - prepare and lower a step for execution --------------===//
//
// The passes between a parsed training step and the LLVM dialect a JIT or an
// AOT build compiles: the target check, autodiff for a gradient check, the
// arena plan's verification, the entry function (memopt-add-step-entry) and
// the CPU or GPU lowering; then the sizes of the lowered globals.
//
//===----------------------------------------------------------------------===//

#include "memopt/Execution/StepPlan.h"

#include "memopt/Conversion/Passes.h"
#include "memopt/Dialect/Train/IR/TrainOps.h"
#include "memopt/InitAll.h"
#include "memopt/Transforms/Passes.h"

#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/Shard/IR/ShardDialect.h"
#include "mlir/Dialect/Shard/IR/ShardOps.h"
#include "mlir/IR/DialectRegistry.h"
#include "mlir/Interfaces/DataLayoutInterfaces.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Target/LLVMIR/Dialect/Builtin/BuiltinToLLVMIRTranslation.h"
#include "mlir/Target/LLVMIR/Dialect/LLVMIR/LLVMToLLVMIRTranslation.h"
#include "llvm/ADT/SmallPtrSet.h"
#include "llvm/ADT/StringSet.h"

using namespace mlir;
using namespace mlir::memopt;
using namespace mlir::memopt::execution;

std::optional<Target> execution::parseTarget(StringRef name) {
  return llvm::StringSwitch<std::optional<Target>>(name)
      .Case("cpu", Target::CPU)
      .Case("gpu", Target::GPU)
      .Case("gpu-emulator", Target::GPUEmulator)
      .Default(std::nullopt);
}

void execution::registerExecutionDialects(DialectRegistry &registry,
                                          Target target) {
  registerAllDialects(registry);
  registerBuiltinDialectTranslation(registry);
  registerLLVMDialectTranslation(registry);
  // Kernel serialization for the GPU only: a CPU run keeps reporting GPU ops
  // as untranslatable.
  if (target == Target::GPU)
    registerGPUTargets(registry);
}

LogicalResult execution::checkTargetSupportsStep(ModuleOp module,
                                                 Target target) {
  // Collectives lower to MPI calls on the CPU (memopt-shard-to-mpi) and to
  // NCCL calls on the GPU (memopt-shard-to-nccl).
  return success();
}

LogicalResult execution::differentiateStep(ModuleOp module) {
  PassManager pm(module.getContext());
  TrainAutodiffPassOptions options;
  options.optimizer = AutodiffOptimizer::None;
  pm.nest<func::FuncOp>().addPass(createTrainAutodiffPass(options));
  return pm.run(module);
}

bool execution::isPlanned(func::FuncOp step) {
  if (step->hasAttr(train::TrainDialect::kArenaBytesAttrName))
    return true;
  for (unsigned i = 0, e = step.getNumArguments(); i < e; ++i)
    if (step.getArgAttr(i, train::TrainDialect::kOffsetAttrName))
      return true;
  WalkResult walk = step.walk([](Operation *op) {
    return op->hasAttr(train::TrainDialect::kOffsetAttrName) ||
                   op->hasAttr(train::TrainDialect::kWorkspaceOffsetAttrName)
               ? WalkResult::interrupt()
               : WalkResult::advance();
  });
  return walk.wasInterrupted();
}

LogicalResult execution::verifyArenaPlan(ModuleOp module, func::FuncOp step) {
  if (!isPlanned(step))
    return success();
  PassManager pm(module.getContext());
  pm.nest<func::FuncOp>().addPass(createTrainVerifyPlanPass());
  return pm.run(module);
}

LogicalResult execution::addStepEntry(ModuleOp module, const StepPlan &plan) {
  PassManager pm(module.getContext());
  MemoptAddStepEntryPassOptions options;
  options.funcName = plan.stepName;
  pm.addPass(createMemoptAddStepEntryPass(options));
  return pm.run(module);
}

/// Measures the globals of the lowered program: parameters and optimizer
/// states (persistent) and everything else the step reads from a global
/// (inputs: the argument globals and the constants the lowering placed in
/// globals), among those the compiled step reaches. The result globals
/// (copies the runtime reads back) and the 8-byte dropout seed are not the
/// step's memory and are left out.
static void measureGlobals(ModuleOp module, StepPlan &plan) {
  llvm::StringSet<> persistent, hostPersistent, excluded;
  for (const GlobalTensor &param : plan.params)
    (param.host ? hostPersistent : persistent).insert(param.symbol);
  for (const GlobalTensor &state : plan.states)
    (state.host ? hostPersistent : persistent).insert(state.symbol);
  for (const GlobalTensor &result : plan.results)
    excluded.insert(result.symbol);
  excluded.insert(kSeedGlobalName);
  // Only the globals the step can reach: other functions of the file may
  // hold constants of their own.
  llvm::StringSet<> reached;
  SmallVector<LLVM::LLVMFuncOp> worklist;
  llvm::SmallPtrSet<Operation *, 16> visited;
  if (auto entry = module.lookupSymbol<LLVM::LLVMFuncOp>(kStepEntryName))
    worklist.push_back(entry);
  while (!worklist.empty()) {
    LLVM::LLVMFuncOp func = worklist.pop_back_val();
    if (!visited.insert(func).second)
      continue;
    func.walk([&](Operation *op) {
      if (auto address = dyn_cast<LLVM::AddressOfOp>(op))
        reached.insert(address.getGlobalName());
      else if (auto call = dyn_cast<LLVM::CallOp>(op))
        if (std::optional<StringRef> callee = call.getCallee())
          if (auto target = module.lookupSymbol<LLVM::LLVMFuncOp>(*callee))
            worklist.push_back(target);
    });
  }
  DataLayout layout(module);
  plan.measuredPersistent = 0;
  plan.measuredHostPersistent = 0;
  plan.measuredInputs = 0;
  module.walk([&](LLVM::GlobalOp global) {
    StringRef name = global.getSymName();
    if (excluded.contains(name) || !reached.contains(name))
      return;
    // String constants of runtime messages are not tensors.
    if (global.getConstant() && isa<StringAttr>(global.getValueOrNull()))
      return;
    int64_t bytes = layout.getTypeSize(global.getType());
    if (hostPersistent.contains(name))
      plan.measuredHostPersistent += bytes;
    else
      (persistent.contains(name) ? plan.measuredPersistent
                                 : plan.measuredInputs) += bytes;
  });
}

LogicalResult
execution::lowerStep(ModuleOp module, StepPlan &plan, Target target,
                     const LowerToGPUOptions *gpuOptions,
                     function_ref<LogicalResult(PassManager &)> configure) {
  PassManager pm(module.getContext());
  if (configure && failed(configure(pm)))
    return failure();
  pm.addPass(createConvertTrainToLinalgPass());
  if (target == Target::CPU) {
    buildLowerToCPUPipeline(pm);
  } else {
    LowerToGPUOptions options;
    if (gpuOptions)
      options.copyOptionValuesFrom(*gpuOptions);
    if (target == Target::GPUEmulator)
      options.emulate = true;
    buildLowerToGPUPipeline(pm, options);
  }
  LogicalResult lowered = pm.run(module);
  // The step function is gone, lowered or not.
  plan.step = nullptr;
  if (failed(lowered))
    return failure();
  // The seed global exists when a train.dropout reads it, or when the step
  // declares it itself.
  plan.hasSeed = module.lookupSymbol(kSeedGlobalName) != nullptr;
  measureGlobals(module, plan);
  return success();
}
