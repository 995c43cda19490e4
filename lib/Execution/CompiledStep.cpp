//===- CompiledStep.cpp - run a lowered step in this process --------------===//
//
// Compiled with -ffp-contract=off, as Init.cpp: the summaries accumulate in
// double with a rounding after every operation (docs/execution.md).
//
//===----------------------------------------------------------------------===//

#include "memopt/Execution/CompiledStep.h"

#include "memopt/Conversion/Passes.h"
#include "memopt/Execution/Init.h"
#include "memopt/Execution/RuntimeSymbols.h"
#include "memopt/Runtime/AllocHook.h"

#include "mlir/ExecutionEngine/ExecutionEngine.h"
#include "mlir/ExecutionEngine/OptUtils.h"
#include "llvm/Support/CodeGen.h"
#include "llvm/Support/TargetSelect.h"

#include <cstring>
#include <functional>

using namespace mlir;
using namespace mlir::memopt;
using namespace mlir::memopt::execution;

TensorSummary execution::summarize(const GlobalTensor &tensor) {
  Type elementType = tensor.type.getElementType();
  unsigned bytes = getStorageBytes(elementType);
  TensorSummary summary;
  for (int64_t i = 0, e = tensor.type.getNumElements(); i < e; ++i) {
    const char *element = tensor.data + i * bytes;
    double value = isa<FloatType>(elementType)
                       ? loadFloat(elementType, element)
                       : static_cast<double>(loadInteger(elementType, element));
    summary.sum += value;
    summary.sumSquares += value * value;
  }
  return summary;
}

double execution::loadScalarFloat(const GlobalTensor &tensor) {
  return loadFloat(tensor.type.getElementType(), tensor.data);
}

/// Resolves the address of the global `symbol` in the compiled program.
static LogicalResult resolve(ExecutionEngine &engine, MLIRContext *context,
                             StringRef symbol, char *&data) {
  llvm::Expected<void *> address = engine.lookup(symbol);
  if (!address)
    return emitError(getExecutionLoc(context))
           << "cannot find the global '" << symbol
           << "' in the compiled step: " << llvm::toString(address.takeError());
  data = static_cast<char *>(*address);
  return success();
}

/// Resolves every global of `plan`.
static LogicalResult resolveGlobals(ExecutionEngine &engine,
                                    MLIRContext *context, StepPlan &plan) {
  auto resolveAll = [&](MutableArrayRef<GlobalTensor> tensors) {
    for (GlobalTensor &tensor : tensors)
      if (failed(resolve(engine, context, tensor.symbol, tensor.data)))
        return failure();
    return success();
  };
  for (StepArgument &arg : plan.arguments)
    if (failed(resolve(engine, context, arg.tensor.symbol, arg.tensor.data)))
      return failure();
  if (failed(resolveAll(plan.results)) || failed(resolveAll(plan.params)) ||
      failed(resolveAll(plan.states)))
    return failure();
  if (plan.hasSeed &&
      failed(resolve(engine, context, kSeedGlobalName, plan.seedData)))
    return failure();
  return success();
}

FailureOr<std::unique_ptr<CompiledStep>>
CompiledStep::create(ModuleOp module, StepPlan &plan, unsigned optLevel) {
  MLIRContext *context = module.getContext();
  std::optional<llvm::CodeGenOptLevel> codeGenLevel =
      llvm::CodeGenOpt::getLevel(optLevel);
  if (!codeGenLevel)
    return emitError(getExecutionLoc(context))
           << "LLVM optimization level " << optLevel << " is not 0, 1, 2 or 3";
  llvm::InitializeNativeTarget();
  llvm::InitializeNativeTargetAsmPrinter();
  // ExecutionEngineOptions::transformer is a function_ref: the transformer
  // it refers to must outlive ExecutionEngine::create.
  std::function<llvm::Error(llvm::Module *)> transformer =
      makeOptimizingTransformer(optLevel, /*sizeLevel=*/0,
                                /*targetMachine=*/nullptr);
  ExecutionEngineOptions options;
  options.transformer = transformer;
  options.jitCodeGenOptLevel = codeGenLevel;
  options.enableGDBNotificationListener = false;
  options.enablePerfNotificationListener = false;
  llvm::Expected<std::unique_ptr<ExecutionEngine>> created =
      ExecutionEngine::create(module, options);
  if (!created)
    return emitError(getExecutionLoc(context))
           << "cannot compile the lowered step: "
           << llvm::toString(created.takeError());
  ExecutionEngine &engine = **created;
  engine.registerSymbols(getRuntimeSymbols);
  engine.initialize();
  // Looking the entry up links the whole program; an unresolved external
  // (a runtime function nobody provides) shows up here.
  if (llvm::Expected<void (*)(void **)> entry =
          engine.lookupPacked(kStepEntryName);
      !entry)
    return emitError(getExecutionLoc(context))
           << "cannot link the compiled step: "
           << llvm::toString(entry.takeError());
  if (failed(resolveGlobals(engine, context, plan)))
    return failure();
  return std::unique_ptr<CompiledStep>(
      new CompiledStep(std::move(*created), plan));
}

CompiledStep::CompiledStep(std::unique_ptr<ExecutionEngine> engine,
                           StepPlan &plan)
    : engine(std::move(engine)), plan(plan) {}

CompiledStep::~CompiledStep() = default;

/// Fills `tensor` with the `sin` formula of amplitude `amplitude`; a part
/// of a split tensor with the whole tensor's values at its elements.
static void fillFloat(const StepPlan &plan, const GlobalTensor &tensor,
                      double amplitude) {
  Type elementType = tensor.type.getElementType();
  unsigned bytes = getStorageBytes(elementType);
  double phase = initPhase(tensor.name);
  for (int64_t i = 0, e = tensor.type.getNumElements(); i < e; ++i) {
    // Padding (the end of the last ZeRO part) is zero, and stays zero: its
    // gradient is zero, and so is every optimizer's update of it.
    int64_t whole = getWholeIndex(tensor, plan.gridShape, plan.processRank, i);
    storeFloat(elementType, tensor.data + i * bytes,
               whole < 0 ? 0.0 : initValue(amplitude, phase, whole));
  }
}

void CompiledStep::initialize(int64_t seed) {
  for (const GlobalTensor &param : plan.params)
    fillFloat(plan, param, paramAmplitude(getWholeType(param, plan.gridShape)));
  for (const GlobalTensor &state : plan.states)
    std::memset(state.data, 0, state.getByteSize());
  if (plan.seedData)
    std::memcpy(plan.seedData, &seed, sizeof(int64_t));
  // Arguments other than step counts stay the same from step to step.
  for (const StepArgument &arg : plan.arguments) {
    const GlobalTensor &tensor = arg.tensor;
    if (arg.kind == ArgKind::Float) {
      fillFloat(plan, tensor, 1.0);
      continue;
    }
    if (arg.kind != ArgKind::Integer)
      continue;
    Type elementType = tensor.type.getElementType();
    unsigned bytes = getStorageBytes(elementType);
    for (int64_t i = 0, e = tensor.type.getNumElements(); i < e; ++i)
      storeInteger(elementType, tensor.data + i * bytes,
                   initInteger(tensor.name,
                               getWholeIndex(tensor, plan.gridShape,
                                             plan.processRank, i),
                               arg.bound));
  }
}

FailureOr<StepStats> CompiledStep::runStep(unsigned stepNumber,
                                           bool measurePeak) {
  // An optimizer's step count is an integer or a float tensor.
  for (const StepArgument &arg : plan.arguments) {
    if (arg.kind != ArgKind::StepNumber)
      continue;
    Type elementType = arg.tensor.type.getElementType();
    if (isa<FloatType>(elementType))
      storeFloat(elementType, arg.tensor.data, stepNumber);
    else
      storeInteger(elementType, arg.tensor.data, stepNumber);
  }
  StepStats stats;
  uint64_t liveBefore = memopt_live_bytes();
  if (measurePeak)
    memopt_reset_peak();
  if (llvm::Error error = engine->invokePacked(kStepEntryName))
    return emitError(getExecutionLoc(plan.context))
           << "step " << stepNumber
           << " failed to run: " << llvm::toString(std::move(error));
  if (measurePeak)
    stats.peakBytes = memopt_peak_bytes();
  stats.leakedBytes = static_cast<int64_t>(memopt_live_bytes() - liveBefore);
  return stats;
}

std::optional<double> CompiledStep::getLoss() const {
  for (const GlobalTensor &result : plan.results)
    if (result.type.getRank() == 0 &&
        isa<FloatType>(result.type.getElementType()))
      return loadScalarFloat(result);
  return std::nullopt;
}

double CompiledStep::getParamsChecksum() const {
  double checksum = 0.0;
  for (const GlobalTensor &param : plan.params)
    checksum += summarize(param).sum;
  return checksum;
}
