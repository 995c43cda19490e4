//===- CompiledStep.cpp - run a lowered step in this process --------------===//
//
// Compiled with -ffp-contract=off, as Init.cpp: the summaries accumulate in
// double with a rounding after every operation (docs/execution.md).
//
//===----------------------------------------------------------------------===//

#include "memopt/Execution/CompiledStep.h"

#include "SharedCompilation.h"
#include "memopt/Conversion/Passes.h"
#include "memopt/Execution/Init.h"
#include "memopt/Execution/RuntimeSymbols.h"
#include "memopt/Runtime/AllocHook.h"

#include "mlir/ExecutionEngine/ExecutionEngine.h"
#include "mlir/ExecutionEngine/OptUtils.h"
#include "mlir/Support/Timing.h"
#include "mlir/Target/LLVMIR/Export.h"
#include "llvm/ExecutionEngine/Orc/JITTargetMachineBuilder.h"
#include "llvm/ExecutionEngine/Orc/LLJIT.h"
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

//===----------------------------------------------------------------------===//
// Compilation
//===----------------------------------------------------------------------===//

/// Compiles `module` with MLIR's ExecutionEngine: translation to LLVM IR,
/// LLVM's optimization at `optLevel` and (at the first lookup, in
/// CompiledStep::link) code generation with `machine`'s level, each timed
/// under `timing` when given. With `keepObject`, the engine keeps the object
/// code for readCompiledObject.
static llvm::Expected<std::unique_ptr<ExecutionEngine>>
compileModule(ModuleOp module, unsigned optLevel,
              llvm::orc::JITTargetMachineBuilder machine, TimingScope &timing,
              bool keepObject) {
  // ExecutionEngine creates its own target machine at the default level
  // when given none, and its jitCodeGenOptLevel option does not reach it:
  // the machine passed here sets the code generation's level.
  llvm::Expected<std::unique_ptr<llvm::TargetMachine>> targetMachine =
      machine.createTargetMachine();
  if (!targetMachine)
    return targetMachine.takeError();
  auto translate = [&](Operation *op, llvm::LLVMContext &llvmContext) {
    TimingScope scope = timing.nest("translate to LLVM IR");
    return translateModuleToLLVMIR(op, llvmContext);
  };
  // ExecutionEngineOptions::transformer is a function_ref: the transformer
  // it refers to must outlive ExecutionEngine::create.
  std::function<llvm::Error(llvm::Module *)> optimize =
      makeOptimizingTransformer(optLevel, /*sizeLevel=*/0,
                                /*targetMachine=*/nullptr);
  auto transformer = [&](llvm::Module *llvmModule) {
    TimingScope scope = timing.nest("LLVM optimization");
    return optimize(llvmModule);
  };
  ExecutionEngineOptions options;
  options.llvmModuleBuilder = translate;
  options.transformer = transformer;
  options.enableObjectDump = keepObject;
  options.enableGDBNotificationListener = false;
  options.enablePerfNotificationListener = false;
  return ExecutionEngine::create(module, options, std::move(*targetMachine));
}

/// Receives the sender's object code and loads it if it was compiled from
/// the same program (`fingerprint`); leaves `loaded` null to have this
/// process compile the module itself.
static void receiveObject(const SharedCompilation &sharing,
                          StringRef fingerprint,
                          const llvm::orc::JITTargetMachineBuilder &machine,
                          TimingScope &timing, const StepPlan &plan,
                          std::unique_ptr<llvm::orc::LLJIT> &loaded) {
  std::string message;
  {
    TimingScope scope = timing.nest("wait for the shared object");
    sharing.broadcast(message);
  }
  // An empty message: the sender could not compile or share the program.
  if (message.empty())
    return;
  if (!StringRef(message).starts_with(fingerprint)) {
    emitWarning(getExecutionLoc(plan.context))
        << "process " << plan.processRank
        << " lowered another program than the process that compiled it for "
           "the others: it compiles its own";
    return;
  }
  TimingScope scope = timing.nest("load the shared object");
  llvm::Expected<std::unique_ptr<llvm::orc::LLJIT>> jit = loadCompiledObject(
      machine, StringRef(message).drop_front(fingerprint.size()));
  if (jit) {
    loaded = std::move(*jit);
    return;
  }
  emitWarning(getExecutionLoc(plan.context))
      << "process " << plan.processRank
      << " cannot load the object code another process compiled ("
      << llvm::toString(jit.takeError()) << "): it compiles its own";
}

FailureOr<std::unique_ptr<CompiledStep>>
CompiledStep::create(ModuleOp module, StepPlan &plan, unsigned optLevel) {
  CompileOptions options;
  options.optLevel = optLevel;
  return create(module, plan, options);
}

FailureOr<std::unique_ptr<CompiledStep>>
CompiledStep::create(ModuleOp module, StepPlan &plan,
                     const CompileOptions &options) {
  MLIRContext *context = module.getContext();
  std::optional<llvm::CodeGenOptLevel> codeGenLevel =
      llvm::CodeGenOpt::getLevel(options.optLevel);
  if (!codeGenLevel)
    return emitError(getExecutionLoc(context))
           << "LLVM optimization level " << options.optLevel
           << " is not 0, 1, 2 or 3";
  llvm::InitializeNativeTarget();
  llvm::InitializeNativeTargetAsmPrinter();
  llvm::Expected<llvm::orc::JITTargetMachineBuilder> machine =
      llvm::orc::JITTargetMachineBuilder::detectHost();
  if (!machine)
    return emitError(getExecutionLoc(context))
           << "cannot target this machine: "
           << llvm::toString(machine.takeError());
  machine->setCodeGenOptLevel(*codeGenLevel);
  TimingScope timing =
      options.timing ? options.timing->nest("compile") : TimingScope();

  std::unique_ptr<CompiledStep> step(new CompiledStep(plan));
  const SharedCompilation *sharing = options.sharing;
  std::string fingerprint;
  if (sharing) {
    TimingScope scope = timing.nest("fingerprint");
    fingerprint = getProgramFingerprint(module, options.optLevel, *machine);
  }
  if (sharing && !sharing->isSender)
    receiveObject(*sharing, fingerprint, *machine, timing, plan, step->loaded);
  if (step->loaded) {
    TimingScope scope = timing.nest("linking");
    if (failed(step->link()))
      return failure();
    return std::move(step);
  }

  bool sends = sharing && sharing->isSender && canShareObject(module);
  llvm::Expected<std::unique_ptr<ExecutionEngine>> engine =
      compileModule(module, options.optLevel, *machine, timing, sends);
  LogicalResult linked = success();
  if (engine) {
    step->engine = std::move(*engine);
    TimingScope scope = timing.nest("code generation and linking");
    linked = step->link();
  }
  if (sharing && sharing->isSender) {
    // Sent even when there is nothing to share, so that no process waits.
    std::string message;
    if (engine && succeeded(linked) && sends) {
      llvm::Expected<std::string> object = readCompiledObject(*step->engine);
      if (object)
        message = fingerprint + *object;
      else
        emitWarning(getExecutionLoc(context))
            << "cannot share the compiled step with the other processes ("
            << llvm::toString(object.takeError()) << "); each compiles its own";
    }
    sharing->broadcast(message);
  }
  if (!engine)
    return emitError(getExecutionLoc(context))
           << "cannot compile the lowered step: "
           << llvm::toString(engine.takeError());
  if (failed(linked))
    return failure();
  return std::move(step);
}

llvm::Expected<void *> CompiledStep::lookup(StringRef symbol) const {
  if (engine)
    return engine->lookup(symbol);
  llvm::Expected<llvm::orc::ExecutorAddr> address = loaded->lookup(symbol);
  if (!address)
    return llvm::createStringError(llvm::inconvertibleErrorCode(),
                                   llvm::toString(address.takeError()));
  if (void *pointer = address->toPtr<void *>())
    return pointer;
  return llvm::createStringError(llvm::inconvertibleErrorCode(),
                                 "'" + symbol + "' is null");
}

LogicalResult CompiledStep::link() {
  MLIRContext *context = plan.context;
  if (engine) {
    engine->registerSymbols(getRuntimeSymbols);
    engine->initialize();
  }
  // Looking the entry up links the whole program; an unresolved external
  // (a runtime function nobody provides) shows up here.
  llvm::Expected<void *> packed =
      lookup((llvm::Twine("_mlir_") + kStepEntryName).str());
  if (!packed)
    return emitError(getExecutionLoc(context))
           << "cannot link the compiled step: "
           << llvm::toString(packed.takeError());
  entry = reinterpret_cast<void (*)(void **)>(*packed);
  auto resolve = [&](StringRef symbol, char *&data) -> LogicalResult {
    llvm::Expected<void *> address = lookup(symbol);
    if (!address)
      return emitError(getExecutionLoc(context))
             << "cannot find the global '" << symbol
             << "' in the compiled step: "
             << llvm::toString(address.takeError());
    data = static_cast<char *>(*address);
    return success();
  };
  for (StepArgument &arg : plan.arguments)
    if (failed(resolve(arg.tensor.symbol, arg.tensor.data)))
      return failure();
  for (auto tensors : {MutableArrayRef<GlobalTensor>(plan.results),
                       MutableArrayRef<GlobalTensor>(plan.params),
                       MutableArrayRef<GlobalTensor>(plan.states)})
    for (GlobalTensor &tensor : tensors)
      if (failed(resolve(tensor.symbol, tensor.data)))
        return failure();
  if (plan.hasSeed && failed(resolve(kSeedGlobalName, plan.seedData)))
    return failure();
  return success();
}

CompiledStep::CompiledStep(StepPlan &plan) : plan(plan) {}

CompiledStep::~CompiledStep() {
  // As ExecutionEngine's destructor does for its own JIT.
  if (loaded)
    llvm::consumeError(loaded->deinitialize(loaded->getMainJITDylib()));
}

/// Fills `tensor` with the `sin` formula of amplitude `amplitude` from
/// element `offset` of the formula's sequence on; a part of a split tensor
/// with the whole tensor's values at its elements.
static void fillFloat(const StepPlan &plan, const GlobalTensor &tensor,
                      double amplitude, int64_t offset = 0) {
  Type elementType = tensor.type.getElementType();
  unsigned bytes = getStorageBytes(elementType);
  double phase = initPhase(tensor.name);
  for (int64_t i = 0, e = tensor.type.getNumElements(); i < e; ++i) {
    // Padding (the end of the last ZeRO part) is zero, and stays zero: its
    // gradient is zero, and so is every optimizer's update of it.
    int64_t whole = getWholeIndex(tensor, plan.gridShape, plan.processRank, i);
    storeFloat(elementType, tensor.data + i * bytes,
               whole < 0 ? 0.0 : initValue(amplitude, phase, whole + offset));
  }
}

void CompiledStep::initialize(int64_t seed) {
  for (const GlobalTensor &param : plan.params)
    if (param.quantizedWeight < 0)
      fillFloat(
          plan, param,
          paramAmplitude(param.name, getWholeType(param, plan.gridShape)));
  // Quantized storage holds the quantization of the weight's own formula.
  for (const QuantizedWeight &weight : plan.quantizedWeights)
    for (auto [part, bytes] :
         llvm::zip_equal(weight.parts, getQuantizedStorageBytes(weight)))
      std::memcpy(plan.params[part].data, bytes.data(), bytes.size());
  for (const GlobalTensor &state : plan.states)
    std::memset(state.data, 0, state.getByteSize());
  if (plan.seedData)
    std::memcpy(plan.seedData, &seed, sizeof(int64_t));
  // Arguments other than step counts stay the same from step to step (each
  // micro-batch's under gradient accumulation).
  fillArguments(0);
}

void CompiledStep::fillArguments(int64_t microBatch) {
  for (const StepArgument &arg : plan.arguments) {
    const GlobalTensor &tensor = arg.tensor;
    // Micro-batch k of a batch N times larger in dimension 0: its elements
    // continue the formula's sequence where micro-batch k - 1 ends.
    int64_t offset =
        microBatch * getWholeType(tensor, plan.gridShape).getNumElements();
    if (arg.kind == ArgKind::Float) {
      fillFloat(plan, tensor, 1.0, offset);
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
                                             plan.processRank, i) +
                                   offset,
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
  uint64_t liveBefore = memopt_live_bytes() + memopt_host_live_bytes();
  if (measurePeak)
    memopt_reset_peak();
  // Under gradient accumulation one optimizer step is a call per
  // micro-batch, each on the next micro-batch of the batch; the step's loss
  // is their mean.
  double lossSum = 0.0;
  for (int64_t microBatch = 0; microBatch < plan.microBatches; ++microBatch) {
    if (plan.microBatches > 1)
      fillArguments(microBatch);
    // The entry takes no arguments (ExecutionEngine::invokePacked with none
    // passes a null list).
    entry(nullptr);
    if (std::optional<double> loss = getLastLoss())
      lossSum += *loss;
  }
  meanLoss = lossSum / static_cast<double>(plan.microBatches);
  if (measurePeak) {
    stats.peakBytes = memopt_peak_bytes();
    stats.hostPeakBytes = memopt_host_peak_bytes();
  }
  stats.leakedBytes = static_cast<int64_t>(
      memopt_live_bytes() + memopt_host_live_bytes() - liveBefore);
  return stats;
}

std::optional<double> CompiledStep::getLastLoss() const {
  for (const GlobalTensor &result : plan.results)
    if (result.type.getRank() == 0 &&
        isa<FloatType>(result.type.getElementType()))
      return loadScalarFloat(result);
  return std::nullopt;
}

std::optional<double> CompiledStep::getLoss() const {
  std::optional<double> loss = getLastLoss();
  if (!loss || plan.microBatches == 1 || !meanLoss)
    return loss;
  return meanLoss;
}

double CompiledStep::getParamsChecksum() const {
  double checksum = 0.0;
  for (const GlobalTensor &param : plan.params)
    checksum += summarize(param).sum;
  return checksum;
}
