//===- mem-run.cpp - run training steps on the CPU ------------------------===//
//
// Lowers a training step (train dialect) to LLVM, JIT-compiles it with
// MLIR's ExecutionEngine and runs it for N steps on parameters and inputs
// filled by a documented deterministic formula, printing the losses and a
// summary of every parameter. The formula, the output format and what
// --measure-peak counts are described in docs/execution.md.
//
// The step runs through a generated no-argument function `@__memrun_entry`
// that reads the step's arguments from globals `@__memrun_arg<k>` and writes
// its results into globals `@__memrun_result<k>`; parameters and optimizer
// states are the globals convert-train-to-linalg declares. mem-run fills and
// reads all of them through the addresses the JIT resolves.
//
//===----------------------------------------------------------------------===//

#include "Init.h"

#include "memopt/Analysis/TensorLiveness.h"
#include "memopt/Conversion/Passes.h"
#include "memopt/Dialect/Train/IR/TrainOps.h"
#include "memopt/InitAll.h"
#include "memopt/Runtime/AllocHook.h"
#include "memopt/Runtime/Collectives.h"
#include "memopt/Runtime/Cublas.h"
#include "memopt/Support/AtomicFile.h"
#include "memopt/Support/SourcePositions.h"
#include "memopt/Transforms/Passes.h"

#include "mlir/Dialect/Bufferization/IR/Bufferization.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/Shard/IR/ShardDialect.h"
#include "mlir/Dialect/Shard/IR/ShardOps.h"
#include "mlir/ExecutionEngine/CRunnerUtils.h"
#include "mlir/ExecutionEngine/ExecutionEngine.h"
#include "mlir/ExecutionEngine/OptUtils.h"
#include "mlir/IR/AsmState.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/IR/SymbolTable.h"
#include "mlir/IR/Verifier.h"
#include "mlir/Interfaces/DataLayoutInterfaces.h"
#include "mlir/Parser/Parser.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Pass/PassRegistry.h"
#include "mlir/Support/FileUtilities.h"
#include "mlir/Target/LLVMIR/Dialect/Builtin/BuiltinToLLVMIRTranslation.h"
#include "mlir/Target/LLVMIR/Dialect/LLVMIR/LLVMToLLVMIRTranslation.h"
#include "llvm/ADT/StringSet.h"
#include "llvm/ExecutionEngine/Orc/Core.h"
#include "llvm/Support/CodeGen.h"
#include "llvm/Support/CommandLine.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Format.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/InitLLVM.h"
#include "llvm/Support/MathExtras.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/SourceMgr.h"
#include "llvm/Support/TargetSelect.h"
#include "llvm/Support/ToolOutputFile.h"
#include "llvm/Support/WithColor.h"

#include <cmath>
#include <cstring>
#include <optional>
#include <unistd.h>

using namespace mlir;
using namespace mlir::memopt;

namespace cl = llvm::cl;

//===----------------------------------------------------------------------===//
// Command line
//===----------------------------------------------------------------------===//

static cl::OptionCategory memRunCategory("mem-run options");

static cl::opt<std::string> inputFile(cl::Positional, cl::Required,
                                      cl::desc("<step.mlir>"),
                                      cl::cat(memRunCategory));

static cl::opt<unsigned> numSteps("steps",
                                  cl::desc("Number of training steps to run"),
                                  cl::init(1), cl::cat(memRunCategory));

static cl::opt<int64_t>
    seed("seed", cl::desc("Value stored in the dropout seed global"),
         cl::init(0), cl::cat(memRunCategory));

static cl::opt<std::string> userPipeline(
    "pipeline",
    cl::desc("Textual pass pipeline run on the module before lowering, e.g. "
             "'func.func(canonicalize)'"),
    cl::init(""), cl::cat(memRunCategory));

static cl::opt<bool> measurePeak(
    "measure-peak",
    cl::desc("Print the peak of the bytes allocated by the last step"),
    cl::init(false), cl::cat(memRunCategory));

static cl::opt<std::string>
    stepName("func",
             cl::desc("Name of the step function (default: the only "
                      "func.func with a body)"),
             cl::init(""), cl::cat(memRunCategory));

static cl::opt<bool> listInputs(
    "list-inputs",
    cl::desc("Print how every argument, parameter and optimizer state would "
             "be initialized, and exit without compiling"),
    cl::init(false), cl::cat(memRunCategory));

static cl::opt<bool> checkGradients(
    "check-gradients",
    cl::desc("Differentiate the forward + loss function with "
             "train-autodiff{optimizer=none} and compare every parameter's "
             "gradient with central finite differences of the loss"),
    cl::init(false), cl::cat(memRunCategory));

static cl::opt<unsigned> gradcheckSamples(
    "gradcheck-samples",
    cl::desc("Elements checked per parameter (evenly spaced; all if fewer)"),
    cl::init(16), cl::cat(memRunCategory));

static cl::opt<double> gradcheckStep(
    "gradcheck-step",
    cl::desc("Finite-difference step (default: 1e-6 for f64 parameters, "
             "1e-3 otherwise)"),
    cl::init(0.0), cl::cat(memRunCategory));

static cl::opt<double>
    gradcheckRtol("gradcheck-rtol",
                  cl::desc("Relative tolerance (default: 1e-6 for f64, "
                           "2e-2 otherwise)"),
                  cl::init(0.0), cl::cat(memRunCategory));

static cl::opt<double>
    gradcheckAtol("gradcheck-atol",
                  cl::desc("Absolute tolerance (default: 1e-8 for f64, "
                           "1e-3 otherwise)"),
                  cl::init(0.0), cl::cat(memRunCategory));

static cl::opt<std::string> emitAOT(
    "emit-aot",
    cl::desc("Instead of running, write DIR/step.mlir (the lowered step with "
             "its entry function, in the LLVM dialect) and DIR/main.c (a "
             "driver that initializes, runs --steps steps and prints what "
             "mem-run prints); scripts/aot-build.sh compiles them"),
    cl::value_desc("DIR"), cl::init(""), cl::cat(memRunCategory));

static cl::opt<std::string> target(
    "target",
    cl::desc("Lowering: cpu (memopt-lower-to-cpu, the default); gpu "
             "(memopt-lower-to-gpu, with --emit-aot only: mem-run runs on the "
             "CPU); gpu-emulator (memopt-lower-to-gpu{emulate=true}: the GPU "
             "kernels and cuBLAS calls run as CPU code, to check the GPU "
             "lowering's results without a GPU; not with --emit-aot)"),
    cl::init("cpu"), cl::cat(memRunCategory));

static cl::opt<std::string>
    gpuOptions("gpu-options",
               cl::desc("Options of memopt-lower-to-gpu for --target=gpu or "
                        "gpu-emulator, e.g. 'chip=sm_80 features=+ptx80' or "
                        "'reduction-min-extent=1'"),
               cl::init(""), cl::cat(memRunCategory));

static cl::opt<unsigned>
    optLevel("opt-level",
             cl::desc("LLVM optimization level of the compiled step (0-3)"),
             cl::init(2), cl::cat(memRunCategory));

//===----------------------------------------------------------------------===//
// The step and what feeds it
//===----------------------------------------------------------------------===//

/// Symbol of the generated entry function.
static constexpr llvm::StringLiteral kEntryName = "__memrun_entry";

namespace {

/// How mem-run fills one step argument.
enum class ArgKind {
  /// `sin` formula with amplitude 1 (docs/execution.md).
  Float,
  /// `(fnv1a32(name) + 7 * i) mod bound`.
  Integer,
  /// The 1-based step number (the `step` operand of train.adam/adamw).
  StepNumber,
};

/// A tensor that lives in a module global while the step runs.
struct GlobalTensor {
  /// Name in the formulas and in the output (`fc1.weight`, `arg0`; the
  /// index for results).
  std::string name;
  /// Symbol of the global holding it.
  std::string symbol;
  RankedTensorType type;
  /// Address in the compiled program; set once the JIT has resolved it.
  char *data = nullptr;
};

/// One argument of the step and how it is filled.
struct StepArgument {
  GlobalTensor tensor;
  ArgKind kind = ArgKind::Float;
  /// For ArgKind::Integer: the values lie in [0, bound).
  uint64_t bound = 0;
};

/// Everything mem-run needs to know of a step to feed it and read it back.
struct StepPlan {
  func::FuncOp step;
  SmallVector<StepArgument> arguments;
  SmallVector<GlobalTensor> results;
  /// Parameters and optimizer states in order of first appearance.
  SmallVector<GlobalTensor> params;
  SmallVector<GlobalTensor> states;
  /// Set when a train.dropout reads the seed global (or the module declares
  /// it).
  bool hasSeed = false;
  /// Address of the seed global once resolved.
  char *seedData = nullptr;
  /// For --check-gradients: per result, the parameter whose gradient it is
  /// (its train.grad_of attribute), or empty.
  SmallVector<std::string> resultGradOf;
  /// For --measure-peak: the memory model's prediction of the measured peak.
  int64_t predictedPeak = 0;
  /// The model's persistent bytes (parameters and optimizer states) and
  /// input bytes (arguments and constants), which mem-run and the lowering
  /// keep in globals rather than allocating them.
  int64_t predictedPersistent = 0;
  int64_t predictedInputs = 0;
  /// The same, measured: the sizes of the globals of the lowered program
  /// (by the LLVM data layout), split by what they hold; -1 until measured.
  int64_t measuredPersistent = -1;
  int64_t measuredInputs = -1;
  /// For a step planned by train-plan-memory: the bytes of the arena the
  /// lowered step allocates (the plan's arena minus the persistent region,
  /// which lives in globals); -1 without a plan.
  int64_t arenaBytes = -1;
};

} // namespace

/// Prints `mem-run: error: message` and fails.
static LogicalResult fail(const Twine &message) {
  llvm::WithColor::error(llvm::errs(), "mem-run") << message << "\n";
  return failure();
}

/// The function --func names, or the only func.func with a body.
static FailureOr<func::FuncOp> findStep(ModuleOp module) {
  if (!stepName.empty()) {
    auto func = module.lookupSymbol<func::FuncOp>(stepName);
    if (!func)
      return fail("no func.func named '" + stepName + "' in " + inputFile);
    if (func.isExternal())
      return fail("'" + stepName + "' is a declaration; the step needs a body");
    return func;
  }
  SmallVector<func::FuncOp> candidates;
  for (auto func : module.getOps<func::FuncOp>())
    if (!func.isExternal())
      candidates.push_back(func);
  if (candidates.empty())
    return fail("no step function: " + inputFile +
                " has no func.func with a body");
  if (candidates.size() > 1) {
    std::string names;
    for (auto [i, func] : llvm::enumerate(candidates))
      names += (i ? ", @" : "@") + func.getSymName().str();
    return fail("several functions have a body (" + names +
                "); name the step with --func");
  }
  return candidates.front();
}

/// `type` if mem-run can store it in a global: a statically shaped tensor of
/// 8/16/32/64-bit floats or integers, or of i1.
static FailureOr<RankedTensorType> getStorableType(Type type, Location loc,
                                                   const Twine &what) {
  auto tensorType = dyn_cast<RankedTensorType>(type);
  if (tensorType && tensorType.hasStaticShape() && !tensorType.getEncoding() &&
      run::getStorageBytes(tensorType.getElementType()) != 0)
    return tensorType;
  emitError(loc) << "mem-run cannot feed or read " << what << " of type "
                 << type
                 << ": expected a statically shaped tensor of 8, 16, 32 or "
                    "64-bit floats or integers, or of i1";
  return failure();
}

/// Narrows `bound` to the values the integer tensor `value` (a step argument
/// or a view of one) may hold given how it is used, and notes whether it is
/// an optimizer's step count.
static void inferIntegerRange(Value value, std::optional<uint64_t> &bound,
                              bool &isStep) {
  auto narrow = [&](int64_t size) {
    if (size > 0 && (!bound || *bound > static_cast<uint64_t>(size)))
      bound = size;
  };
  for (OpOperand &use : value.getUses()) {
    Operation *user = use.getOwner();
    if (auto embedding = dyn_cast<train::EmbeddingOp>(user)) {
      if (use.get() == embedding.getIds())
        narrow(cast<ShapedType>(embedding.getTable().getType()).getDimSize(0));
    } else if (auto grad = dyn_cast<train::EmbeddingGradOp>(user)) {
      if (use.get() == grad.getIds())
        narrow(cast<ShapedType>(grad.getType()).getDimSize(0));
    } else if (auto loss = dyn_cast<train::CrossEntropyOp>(user)) {
      if (use.get() == loss.getLabels())
        narrow(cast<ShapedType>(loss.getLogits().getType()).getShape().back());
    } else if (auto grad = dyn_cast<train::CrossEntropyGradOp>(user)) {
      if (use.get() == grad.getLabels())
        narrow(cast<ShapedType>(grad.getLogits().getType()).getShape().back());
    } else if (auto adam = dyn_cast<train::AdamOp>(user)) {
      isStep |= use.get() == adam.getStep();
    } else if (auto adamw = dyn_cast<train::AdamWOp>(user)) {
      isStep |= use.get() == adamw.getStep();
    } else if (isa<train::ReshapeOp, train::TransposeOp, train::SliceOp>(
                   user)) {
      inferIntegerRange(user->getResult(0), bound, isStep);
    }
  }
}

/// Decides how the step argument `arg` is filled.
static FailureOr<StepArgument> planArgument(BlockArgument arg) {
  Location loc = arg.getLoc();
  unsigned index = arg.getArgNumber();
  FailureOr<RankedTensorType> type =
      getStorableType(arg.getType(), loc, "argument #" + Twine(index));
  if (failed(type))
    return failure();
  StepArgument plan;
  plan.tensor.name = ("arg" + Twine(index)).str();
  plan.tensor.symbol = ("__memrun_arg" + Twine(index)).str();
  plan.tensor.type = *type;
  std::optional<uint64_t> bound;
  bool isStep = false;
  inferIntegerRange(arg, bound, isStep);
  if (isStep) {
    // train.adam/adamw accept a float step count too; it is the step
    // number all the same, never formula data.
    if (type->getRank() != 0) {
      emitError(loc) << "argument #" << index
                     << " is an optimizer step count but has shape " << *type
                     << "; expected a 0-d tensor";
      return failure();
    }
    plan.kind = ArgKind::StepNumber;
    return plan;
  }
  if (isa<FloatType>(type->getElementType()))
    return plan;
  if (!bound) {
    emitError(loc) << "cannot infer the range of integer argument #" << index
                   << " (" << *type
                   << "): it is not used as embedding or embedding_grad ids, "
                      "cross_entropy labels or an optimizer step";
    return failure();
  }
  unsigned width = type->getElementTypeBitWidth();
  if (width < 64 && *bound > (uint64_t(1) << (width - 1))) {
    emitError(loc) << "integer argument #" << index << " (" << *type
                   << ") cannot hold indices up to " << *bound - 1;
    return failure();
  }
  plan.kind = ArgKind::Integer;
  plan.bound = *bound;
  return plan;
}

namespace {

/// Gathers the parameters and optimizer states a step reads, in order of
/// first appearance, following calls into other functions of the module.
class StateCollector {
public:
  StateCollector(ModuleOp module, StepPlan &plan)
      : module(module), plan(plan) {}

  LogicalResult collect(func::FuncOp func) {
    if (!visited.insert(func).second)
      return success();
    WalkResult walk = func.walk([&](Operation *op) {
      return failed(visit(op)) ? WalkResult::interrupt()
                               : WalkResult::advance();
    });
    return failure(walk.wasInterrupted());
  }

private:
  LogicalResult visit(Operation *op) {
    if (auto param = dyn_cast<train::ParamOp>(op)) {
      if (!seenParams.insert(param.getName()).second)
        return success();
      FailureOr<RankedTensorType> type = getStorableType(
          param.getType(), op->getLoc(), "parameter '" + param.getName() + "'");
      if (failed(type))
        return failure();
      if (!isa<FloatType>(type->getElementType()))
        return op->emitError() << "mem-run initializes float parameters only";
      plan.params.push_back(
          {param.getName().str(), getParamGlobalName(param.getName()), *type});
      return success();
    }
    if (auto state = dyn_cast<train::OptStateOp>(op)) {
      if (!seenStates.insert(state.getName()).second)
        return success();
      FailureOr<RankedTensorType> type =
          getStorableType(state.getType(), op->getLoc(),
                          "optimizer state '" + state.getName() + "'");
      if (failed(type))
        return failure();
      plan.states.push_back(
          {state.getName().str(), getStateGlobalName(state.getName()), *type});
      return success();
    }
    if (isa<train::DropoutOp>(op)) {
      plan.hasSeed = true;
      return success();
    }
    if (auto call = dyn_cast<func::CallOp>(op))
      if (auto callee = module.lookupSymbol<func::FuncOp>(call.getCallee()))
        if (!callee.isExternal())
          return collect(callee);
    return success();
  }

  ModuleOp module;
  StepPlan &plan;
  llvm::SmallPtrSet<Operation *, 4> visited;
  llvm::StringSet<> seenParams, seenStates;
};

} // namespace

/// Collects the step's arguments and results, and the parameters, optimizer
/// states and seed it uses.
static FailureOr<StepPlan> planStep(ModuleOp module, func::FuncOp step) {
  StepPlan plan;
  plan.step = step;
  for (BlockArgument arg : step.getArguments()) {
    FailureOr<StepArgument> argument = planArgument(arg);
    if (failed(argument))
      return failure();
    plan.arguments.push_back(std::move(*argument));
  }
  for (auto [index, type] : llvm::enumerate(step.getResultTypes())) {
    FailureOr<RankedTensorType> resultType =
        getStorableType(type, step.getLoc(), "result #" + Twine(index));
    if (failed(resultType))
      return failure();
    plan.results.push_back({std::to_string(index),
                            ("__memrun_result" + Twine(index)).str(),
                            *resultType});
  }

  StateCollector collector(module, plan);
  if (failed(collector.collect(step)))
    return failure();
  plan.hasSeed |= module.lookupSymbol(kSeedGlobalName) != nullptr;
  return plan;
}

/// Adds `@__memrun_entry`, which reads the step's arguments from globals,
/// calls the step and writes its results into globals.
static LogicalResult addEntryFunction(ModuleOp module, const StepPlan &plan) {
  SymbolTable symbols(module);
  Location loc = NameLoc::get(StringAttr::get(module.getContext(), "mem-run"));
  auto reserve = [&](StringRef symbol) -> LogicalResult {
    if (!symbols.lookup(symbol))
      return success();
    return symbols.lookup(symbol)->emitError()
           << "symbol '" << symbol << "' is reserved by mem-run";
  };
  MLIRContext *context = module.getContext();
  context->loadDialect<bufferization::BufferizationDialect, func::FuncDialect,
                       memref::MemRefDialect>();
  OpBuilder builder = OpBuilder::atBlockEnd(module.getBody());
  auto memrefTypeOf = [](RankedTensorType type) {
    return MemRefType::get(type.getShape(), type.getElementType());
  };
  auto declare = [&](const GlobalTensor &tensor) -> LogicalResult {
    if (failed(reserve(tensor.symbol)))
      return failure();
    memref::GlobalOp::create(builder, loc, tensor.symbol,
                             /*sym_visibility=*/StringAttr(),
                             memrefTypeOf(tensor.type),
                             /*initial_value=*/builder.getUnitAttr(),
                             /*constant=*/false,
                             /*alignment=*/builder.getI64IntegerAttr(64));
    return success();
  };
  if (failed(reserve(kEntryName)))
    return failure();
  for (const StepArgument &arg : plan.arguments)
    if (failed(declare(arg.tensor)))
      return failure();
  for (const GlobalTensor &result : plan.results)
    if (failed(declare(result)))
      return failure();

  auto entry = func::FuncOp::create(builder, loc, kEntryName,
                                    builder.getFunctionType({}, {}));
  OpBuilder body = OpBuilder::atBlockEnd(entry.addEntryBlock());
  SmallVector<Value> operands;
  for (const StepArgument &arg : plan.arguments) {
    Value buffer = memref::GetGlobalOp::create(
        body, loc, memrefTypeOf(arg.tensor.type), arg.tensor.symbol);
    // Not writable: a step that updates an argument in place works on a copy,
    // so every step sees the same inputs.
    operands.push_back(bufferization::ToTensorOp::create(
        body, loc, arg.tensor.type, buffer, /*restrict=*/true,
        /*writable=*/false));
  }
  auto call = func::CallOp::create(body, loc, plan.step, operands);
  for (auto [result, value] :
       llvm::zip_equal(plan.results, call.getResults())) {
    Value buffer = memref::GetGlobalOp::create(
        body, loc, memrefTypeOf(result.type), result.symbol);
    bufferization::MaterializeInDestinationOp::create(
        body, loc, TypeRange{}, value, buffer, /*restrict=*/true,
        /*writable=*/true);
  }
  func::ReturnOp::create(body, loc);
  return success();
}

/// Measures the globals of the lowered program: parameters and optimizer
/// states (persistent) and everything else the step reads from a global
/// (inputs: mem-run's argument globals and the constants the lowering
/// placed in globals), among those the compiled step reaches. mem-run's
/// result globals (copies it reads back) and the 8-byte dropout seed are not
/// the step's memory and are left out.
static void measureGlobals(ModuleOp module, StepPlan &plan) {
  llvm::StringSet<> persistent, excluded;
  for (const GlobalTensor &param : plan.params)
    persistent.insert(param.symbol);
  for (const GlobalTensor &state : plan.states)
    persistent.insert(state.symbol);
  for (const GlobalTensor &result : plan.results)
    excluded.insert(result.symbol);
  excluded.insert(kSeedGlobalName);
  // Only the globals the step can reach: other functions of the file may
  // hold constants of their own.
  llvm::StringSet<> reached;
  SmallVector<LLVM::LLVMFuncOp> worklist;
  llvm::SmallPtrSet<Operation *, 16> visited;
  if (auto entry = module.lookupSymbol<LLVM::LLVMFuncOp>(kEntryName))
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
  plan.measuredInputs = 0;
  module.walk([&](LLVM::GlobalOp global) {
    StringRef name = global.getSymName();
    if (excluded.contains(name) || !reached.contains(name))
      return;
    // String constants of runtime messages are not tensors.
    if (global.getConstant() && isa<StringAttr>(global.getValueOrNull()))
      return;
    int64_t bytes = layout.getTypeSize(global.getType());
    (persistent.contains(name) ? plan.measuredPersistent
                               : plan.measuredInputs) += bytes;
  });
}

/// convert-train-to-linalg, then memopt-lower-to-cpu.
static LogicalResult lowerToLLVM(ModuleOp module) {
  PassManager pm(module.getContext());
  if (failed(applyPassManagerCLOptions(pm)))
    return failure();
  pm.addPass(createConvertTrainToLinalgPass());
  if (target == "gpu" || target == "gpu-emulator") {
    LowerToGPUOptions options;
    std::string errors;
    llvm::raw_string_ostream errorStream(errors);
    if (failed(options.parseFromString(gpuOptions, errorStream)))
      return fail("invalid --gpu-options '" + gpuOptions + "': " + errors);
    if (target == "gpu-emulator")
      options.emulate = true;
    else if (options.emulate)
      return fail("--gpu-options emulate=true: use --target=gpu-emulator");
    buildLowerToGPUPipeline(pm, options);
  } else {
    buildLowerToCPUPipeline(pm);
  }
  return pm.run(module);
}

//===----------------------------------------------------------------------===//
// Running
//===----------------------------------------------------------------------===//

/// The NCCL entry points of memopt-shard-to-nccl for --target=gpu-emulator:
/// one process, so every collective copies its input (a sum, average,
/// product, max or min over one process, a gather or scatter among one).
/// A grid of more processes is an error at its first collective.
namespace emulated_nccl {

[[noreturn]] static void fail(const std::string &message) {
  std::fflush(stdout);
  llvm::errs() << "mem-run: error: " << message << "\n";
  std::exit(1);
}

static int64_t group(int64_t g0, int64_t g1, int64_t g2, int64_t g3, int64_t a0,
                     int64_t a1, int64_t a2, int64_t a3) {
  int64_t processes = 1;
  for (int64_t extent :
       ::memopt::runtime::decodeGridAxes(g0, g1, g2, g3, a0, a1, a2, a3).shape)
    processes *= extent;
  if (processes != 1)
    fail("--target=gpu-emulator runs one process, but the step's grid has " +
         std::to_string(processes));
  return 0;
}

static int64_t rank() { return 0; }

/// Copies `count` elements of `bytes` bytes between two unranked memrefs
/// (rank, descriptor), as the lowering passes them.
static void copy(int64_t sendRank, void *send, int64_t recvRank, void *recv,
                 int64_t count, int64_t bytes) {
  ::memopt::runtime::UnrankedBuffer from =
      ::memopt::runtime::readUnrankedBuffer(sendRank, send, bytes);
  ::memopt::runtime::UnrankedBuffer to =
      ::memopt::runtime::readUnrankedBuffer(recvRank, recv, bytes);
  std::memmove(to.data, from.data, count * bytes);
}

template <int64_t Bytes>
static void reduce(int64_t /*group*/, int64_t sendRank, void *send,
                   int64_t recvRank, void *recv, int64_t count,
                   int32_t /*op*/) {
  copy(sendRank, send, recvRank, recv, count, Bytes);
}

template <int64_t Bytes>
static void gather(int64_t /*group*/, int64_t sendRank, void *send,
                   int64_t recvRank, void *recv, int64_t count) {
  copy(sendRank, send, recvRank, recv, count, Bytes);
}

} // namespace emulated_nccl

/// The allocation hooks lowered code calls, the strided copy of MLIR's C
/// runner utilities (libmlir_c_runner_utils.so), and the C math functions that
/// math-to-libm and LLVM's intrinsic lowering emit calls to. The JIT would
/// also find the latter in the process; naming them makes the resolution
/// independent of what the process happens to export.
static llvm::orc::SymbolMap
getRuntimeSymbols(llvm::orc::MangleAndInterner interner) {
  llvm::orc::SymbolMap symbols;
  auto add = [&](StringRef name, auto *function) {
    symbols[interner(name)] = llvm::orc::ExecutorSymbolDef(
        llvm::orc::ExecutorAddr::fromPtr(reinterpret_cast<void *>(function)),
        llvm::JITSymbolFlags::Exported | llvm::JITSymbolFlags::Callable);
  };
  add("_mlir_memref_to_llvm_alloc", &_mlir_memref_to_llvm_alloc);
  add("_mlir_memref_to_llvm_aligned_alloc",
      &_mlir_memref_to_llvm_aligned_alloc);
  add("_mlir_memref_to_llvm_free", &_mlir_memref_to_llvm_free);
  // Copies between memrefs that are not contiguous lower to this call.
  add("memrefCopy", &memrefCopy);
  // cuBLAS calls and collectives of --target=gpu-emulator, on the CPU.
  add("memopt_cublas_gemm", &memopt_cublas_gemm);
  add("memopt_nccl_group", &emulated_nccl::group);
  add("memopt_nccl_rank", &emulated_nccl::rank);
  struct Collectives {
    const char *suffix;
    decltype(&emulated_nccl::reduce<4>) reduce;
    decltype(&emulated_nccl::gather<4>) gather;
  };
  for (const Collectives &entry : std::initializer_list<Collectives>{
           {"f32", &emulated_nccl::reduce<4>, &emulated_nccl::gather<4>},
           {"f64", &emulated_nccl::reduce<8>, &emulated_nccl::gather<8>},
           {"f16", &emulated_nccl::reduce<2>, &emulated_nccl::gather<2>},
           {"bf16", &emulated_nccl::reduce<2>, &emulated_nccl::gather<2>},
           {"i8", &emulated_nccl::reduce<1>, &emulated_nccl::gather<1>},
           {"i32", &emulated_nccl::reduce<4>, &emulated_nccl::gather<4>},
           {"i64", &emulated_nccl::reduce<8>, &emulated_nccl::gather<8>}}) {
    add(std::string("memopt_nccl_all_reduce_") + entry.suffix, entry.reduce);
    add(std::string("memopt_nccl_reduce_scatter_") + entry.suffix,
        entry.reduce);
    add(std::string("memopt_nccl_all_gather_") + entry.suffix, entry.gather);
  }
  using F1 = float (*)(float);
  using D1 = double (*)(double);
  using F2 = float (*)(float, float);
  using D2 = double (*)(double, double);
#define MEMRUN_UNARY(name)                                                     \
  add(#name, static_cast<D1>(&::name));                                        \
  add(#name "f", static_cast<F1>(&::name##f));
#define MEMRUN_BINARY(name)                                                    \
  add(#name, static_cast<D2>(&::name));                                        \
  add(#name "f", static_cast<F2>(&::name##f));
  MEMRUN_UNARY(acos)
  MEMRUN_UNARY(acosh)
  MEMRUN_UNARY(asin)
  MEMRUN_UNARY(asinh)
  MEMRUN_UNARY(atan)
  MEMRUN_UNARY(atanh)
  MEMRUN_UNARY(cbrt)
  MEMRUN_UNARY(ceil)
  MEMRUN_UNARY(cos)
  MEMRUN_UNARY(cosh)
  MEMRUN_UNARY(erf)
  MEMRUN_UNARY(erfc)
  MEMRUN_UNARY(exp)
  MEMRUN_UNARY(exp2)
  MEMRUN_UNARY(expm1)
  MEMRUN_UNARY(fabs)
  MEMRUN_UNARY(floor)
  MEMRUN_UNARY(log)
  MEMRUN_UNARY(log10)
  MEMRUN_UNARY(log1p)
  MEMRUN_UNARY(log2)
  MEMRUN_UNARY(rint)
  MEMRUN_UNARY(round)
  MEMRUN_UNARY(roundeven)
  MEMRUN_UNARY(sin)
  MEMRUN_UNARY(sinh)
  MEMRUN_UNARY(sqrt)
  MEMRUN_UNARY(tan)
  MEMRUN_UNARY(tanh)
  MEMRUN_UNARY(trunc)
  MEMRUN_BINARY(atan2)
  MEMRUN_BINARY(copysign)
  MEMRUN_BINARY(fmax)
  MEMRUN_BINARY(fmin)
  MEMRUN_BINARY(fmod)
  MEMRUN_BINARY(pow)
#undef MEMRUN_UNARY
#undef MEMRUN_BINARY
  return symbols;
}

/// Resolves the address of the global `symbol` in the compiled program.
static LogicalResult resolve(ExecutionEngine &engine, StringRef symbol,
                             char *&data) {
  llvm::Expected<void *> address = engine.lookup(symbol);
  if (!address)
    return fail(
        "cannot find the global '" + symbol +
        "' in the compiled step: " + llvm::toString(address.takeError()));
  data = static_cast<char *>(*address);
  return success();
}

/// Fills `tensor` with the `sin` formula of amplitude `amplitude`.
static void fillFloat(const GlobalTensor &tensor, double amplitude) {
  Type elementType = tensor.type.getElementType();
  unsigned bytes = run::getStorageBytes(elementType);
  double phase = run::initPhase(tensor.name);
  for (int64_t i = 0, e = tensor.type.getNumElements(); i < e; ++i)
    run::storeFloat(elementType, tensor.data + i * bytes,
                    run::initValue(amplitude, phase, i));
}

/// Stores the 1-based step number into an optimizer's step-count argument
/// (an integer or a float tensor).
static void storeStepNumber(const StepArgument &arg, unsigned step) {
  Type elementType = arg.tensor.type.getElementType();
  if (isa<FloatType>(elementType))
    run::storeFloat(elementType, arg.tensor.data, step);
  else
    run::storeInteger(elementType, arg.tensor.data, step);
}

/// Fills the step arguments that stay the same from step to step.
static void fillArguments(const StepPlan &plan) {
  for (const StepArgument &arg : plan.arguments) {
    const GlobalTensor &tensor = arg.tensor;
    if (arg.kind == ArgKind::Float) {
      fillFloat(tensor, 1.0);
      continue;
    }
    if (arg.kind != ArgKind::Integer)
      continue;
    Type elementType = tensor.type.getElementType();
    unsigned bytes = run::getStorageBytes(elementType);
    for (int64_t i = 0, e = tensor.type.getNumElements(); i < e; ++i)
      run::storeInteger(elementType, tensor.data + i * bytes,
                        run::initInteger(tensor.name, i, arg.bound));
  }
}

/// Bytes of `tensor` in its global.
static int64_t getByteSize(const GlobalTensor &tensor) {
  return tensor.type.getNumElements() *
         run::getStorageBytes(tensor.type.getElementType());
}

/// Sum and sum of squares in double, one element at a time in row-major
/// order (so a Python loop reproduces them exactly).
static std::pair<double, double> summarize(const GlobalTensor &tensor) {
  Type elementType = tensor.type.getElementType();
  unsigned bytes = run::getStorageBytes(elementType);
  double sum = 0.0, sumSquares = 0.0;
  for (int64_t i = 0, e = tensor.type.getNumElements(); i < e; ++i) {
    const char *element = tensor.data + i * bytes;
    double value =
        isa<FloatType>(elementType)
            ? run::loadFloat(elementType, element)
            : static_cast<double>(run::loadInteger(elementType, element));
    sum += value;
    sumSquares += value * value;
  }
  return {sum, sumSquares};
}

/// Prints the 0-d results of one step: the first float one as the loss.
static void printStepLine(const StepPlan &plan, unsigned stepNumber) {
  llvm::raw_ostream &os = llvm::outs();
  os << "step " << stepNumber << ":";
  bool lossPrinted = false;
  for (auto [index, result] : llvm::enumerate(plan.results)) {
    if (result.type.getRank() != 0)
      continue;
    Type elementType = result.type.getElementType();
    if (!isa<FloatType>(elementType)) {
      os << " result" << index << " = "
         << run::loadInteger(elementType, result.data);
      continue;
    }
    os << (lossPrinted ? " result" + std::to_string(index) : " loss") << " = "
       << llvm::format("%.9e", run::loadFloat(elementType, result.data));
    lossPrinted = true;
  }
  os << "\n";
}

/// Prints `<kind> <name>: sum = ... sumsq = ...`.
static void printSummary(StringRef kind, const GlobalTensor &tensor) {
  auto [sum, sumSquares] = summarize(tensor);
  llvm::outs() << kind << " " << tensor.name
               << ": sum = " << llvm::format("%.9e", sum)
               << " sumsq = " << llvm::format("%.9e", sumSquares) << "\n";
}

/// Prints what --list-inputs promises: one line per argument, parameter and
/// optimizer state, and the seed.
static void printInputs(const StepPlan &plan) {
  llvm::raw_ostream &os = llvm::outs();
  for (auto [index, arg] : llvm::enumerate(plan.arguments)) {
    os << "arg " << index << ": " << arg.tensor.type << " = ";
    switch (arg.kind) {
    case ArgKind::Float:
      os << "formula, amplitude " << llvm::format("%.9e", 1.0) << "\n";
      break;
    case ArgKind::Integer:
      os << "integers in [0, " << arg.bound << ")\n";
      break;
    case ArgKind::StepNumber:
      os << "step number\n";
      break;
    }
  }
  for (const GlobalTensor &param : plan.params)
    os << "param " << param.name << ": " << param.type
       << " = formula, amplitude "
       << llvm::format("%.9e", run::paramAmplitude(param.type)) << "\n";
  for (const GlobalTensor &state : plan.states)
    os << "opt_state " << state.name << ": " << state.type << " = zeros\n";
  if (plan.hasSeed)
    os << "seed: " << seed << "\n";
}

/// Fails when the step would not fit in the machine's memory: the globals
/// mem-run fills (the JIT aborts the process when it cannot map them) plus
/// what the step allocates at its peak (its arena when planned), so that an
/// oversized step is an error before it starts rather than a crash or the
/// OOM killer in the middle.
static LogicalResult checkStepFits(const StepPlan &plan) {
  uint64_t total = 0;
  auto add = [&](const GlobalTensor &tensor) {
    uint64_t bytes = run::getStorageBytes(tensor.type.getElementType());
    for (int64_t dim : tensor.type.getShape())
      bytes = llvm::SaturatingMultiply(bytes, static_cast<uint64_t>(dim));
    total = llvm::SaturatingAdd(total, bytes);
  };
  for (const StepArgument &arg : plan.arguments)
    add(arg.tensor);
  for (const GlobalTensor &tensor : plan.results)
    add(tensor);
  for (const GlobalTensor &tensor : plan.params)
    add(tensor);
  for (const GlobalTensor &tensor : plan.states)
    add(tensor);
  long pages = sysconf(_SC_PHYS_PAGES);
  long pageSize = sysconf(_SC_PAGE_SIZE);
  if (pages <= 0 || pageSize <= 0)
    return success();
  uint64_t memory = static_cast<uint64_t>(pages) * pageSize;
  uint64_t allocated = static_cast<uint64_t>(
      plan.arenaBytes >= 0 ? plan.arenaBytes : plan.predictedPeak);
  if (llvm::SaturatingAdd(total, allocated) <= memory)
    return success();
  return fail("the step needs " + Twine(llvm::SaturatingAdd(total, allocated)) +
              " bytes, more than this machine's memory (" + Twine(memory) +
              " bytes): its parameters, optimizer states, arguments and "
              "results take " +
              Twine(total) + " bytes and it allocates " + Twine(allocated) +
              " bytes at its peak" +
              (plan.arenaBytes >= 0 ? " (its planned arena)" : "") +
              "; try a smaller batch, train-remat with a budget, or a "
              "machine with more memory");
}

/// The --check-gradients mode: runs the differentiated step once for the
/// analytic gradients (results marked train.grad_of), then perturbs sampled
/// elements of every parameter by +-h and compares (L+ - L-) / 2h with them:
/// |numeric - analytic| <= atol + rtol * |analytic|.
static LogicalResult runGradientCheck(ExecutionEngine &engine, StepPlan &plan) {
  auto run = [&]() -> FailureOr<double> {
    if (llvm::Error error = engine.invokePacked(kEntryName)) {
      (void)fail("the step failed to run: " + llvm::toString(std::move(error)));
      return failure();
    }
    const GlobalTensor &loss = plan.results.front();
    return run::loadFloat(loss.type.getElementType(), loss.data);
  };
  for (const StepArgument &arg : plan.arguments)
    if (arg.kind == ArgKind::StepNumber)
      storeStepNumber(arg, 1);
  if (plan.results.empty() || plan.results.front().type.getRank() != 0 ||
      !isa<FloatType>(plan.results.front().type.getElementType()))
    return fail("--check-gradients needs a step whose first result is a 0-d "
                "float loss");
  if (failed(run()))
    return failure();

  // Copy the analytic gradients out before the perturbed runs overwrite them.
  struct Check {
    GlobalTensor *param;
    std::vector<double> grad;
  };
  SmallVector<Check> checks;
  for (auto [index, result] : llvm::enumerate(plan.results)) {
    StringRef name = plan.resultGradOf[index];
    if (name.empty())
      continue;
    auto it = llvm::find_if(plan.params, [&](const GlobalTensor &param) {
      return param.name == name;
    });
    if (it == plan.params.end())
      return fail("gradient result " + Twine(index) + " names parameter '" +
                  name + "', which the step does not read");
    Type elementType = result.type.getElementType();
    unsigned bytes = run::getStorageBytes(elementType);
    std::vector<double> grad;
    for (int64_t i = 0, e = result.type.getNumElements(); i < e; ++i)
      grad.push_back(run::loadFloat(elementType, result.data + i * bytes));
    checks.push_back({&*it, std::move(grad)});
  }
  if (checks.empty())
    return fail("the step returns no parameter gradient to check");

  bool allPassed = true;
  int64_t checkedElements = 0;
  for (Check &check : checks) {
    GlobalTensor &param = *check.param;
    Type elementType = param.type.getElementType();
    bool isF64 = elementType.isF64();
    double h = gradcheckStep > 0 ? gradcheckStep : (isF64 ? 1e-6 : 1e-3);
    double rtol = gradcheckRtol > 0 ? gradcheckRtol : (isF64 ? 1e-6 : 2e-2);
    double atol = gradcheckAtol > 0 ? gradcheckAtol : (isF64 ? 1e-8 : 1e-3);
    unsigned bytes = run::getStorageBytes(elementType);
    int64_t count = param.type.getNumElements();
    int64_t samples = std::min<int64_t>(count, gradcheckSamples);
    double maxAbs = 0.0, maxRel = 0.0;
    int64_t worst = -1;
    double worstNumeric = 0.0;
    for (int64_t k = 0; k < samples; ++k) {
      int64_t i = samples == count ? k : k * count / samples;
      char *element = param.data + i * bytes;
      double original = run::loadFloat(elementType, element);
      run::storeFloat(elementType, element, original + h);
      double plusH = run::loadFloat(elementType, element) - original;
      FailureOr<double> plus = run();
      run::storeFloat(elementType, element, original - h);
      double minusH = original - run::loadFloat(elementType, element);
      FailureOr<double> minus = run();
      run::storeFloat(elementType, element, original);
      if (failed(plus) || failed(minus))
        return failure();
      // The perturbation actually stored (rounded to the element type).
      double numeric = (*plus - *minus) / (plusH + minusH);
      double analytic = check.grad[i];
      double error = std::fabs(numeric - analytic);
      maxAbs = std::max(maxAbs, error);
      if (analytic != 0.0)
        maxRel = std::max(maxRel, error / std::fabs(analytic));
      if (error > atol + rtol * std::fabs(analytic) &&
          (worst < 0 || error > std::fabs(worstNumeric - check.grad[worst]))) {
        worst = i;
        worstNumeric = numeric;
      }
    }
    checkedElements += samples;
    llvm::outs() << "gradcheck " << param.name << ": " << samples
                 << " elements, max abs err " << llvm::format("%.3e", maxAbs)
                 << ", max rel err " << llvm::format("%.3e", maxRel) << "\n";
    if (worst >= 0) {
      allPassed = false;
      llvm::outs() << "gradcheck " << param.name << "[" << worst
                   << "]: analytic " << llvm::format("%.9e", check.grad[worst])
                   << " numeric " << llvm::format("%.9e", worstNumeric)
                   << " (rtol " << rtol << ", atol " << atol << ")\n";
    }
  }
  llvm::outs() << "gradcheck: " << (allPassed ? "passed" : "FAILED") << ", "
               << checks.size() << " parameters, " << checkedElements
               << " elements\n";
  llvm::outs().flush();
  if (!allPassed)
    return fail("gradient check failed");
  return success();
}

/// Compiles the lowered module, initializes its state and runs the steps.
static LogicalResult runSteps(ModuleOp module, StepPlan &plan) {
  llvm::InitializeNativeTarget();
  llvm::InitializeNativeTargetAsmPrinter();
  std::optional<llvm::CodeGenOptLevel> codeGenLevel =
      llvm::CodeGenOpt::getLevel(optLevel);
  auto transformer = makeOptimizingTransformer(optLevel, /*sizeLevel=*/0,
                                               /*targetMachine=*/nullptr);
  ExecutionEngineOptions options;
  options.transformer = transformer;
  options.jitCodeGenOptLevel = codeGenLevel;
  options.enableGDBNotificationListener = false;
  options.enablePerfNotificationListener = false;
  llvm::Expected<std::unique_ptr<ExecutionEngine>> created =
      ExecutionEngine::create(module, options);
  if (!created)
    return fail("cannot compile the lowered step: " +
                llvm::toString(created.takeError()));
  ExecutionEngine &engine = **created;
  engine.registerSymbols(getRuntimeSymbols);
  engine.initialize();
  // Looking the entry up links the whole program; an unresolved external
  // (a runtime function nobody provides) shows up here.
  if (llvm::Expected<void (*)(void **)> entry = engine.lookupPacked(kEntryName);
      !entry)
    return fail("cannot link the compiled step: " +
                llvm::toString(entry.takeError()));

  for (StepArgument &arg : plan.arguments)
    if (failed(resolve(engine, arg.tensor.symbol, arg.tensor.data)))
      return failure();
  for (GlobalTensor &result : plan.results)
    if (failed(resolve(engine, result.symbol, result.data)))
      return failure();
  for (GlobalTensor &param : plan.params)
    if (failed(resolve(engine, param.symbol, param.data)))
      return failure();
  for (GlobalTensor &state : plan.states)
    if (failed(resolve(engine, state.symbol, state.data)))
      return failure();
  if (plan.hasSeed && failed(resolve(engine, kSeedGlobalName, plan.seedData)))
    return failure();

  // Initial state: parameters by formula, optimizer states zero (as
  // PyTorch's), the seed from --seed.
  for (const GlobalTensor &param : plan.params)
    fillFloat(param, run::paramAmplitude(param.type));
  for (const GlobalTensor &state : plan.states)
    std::memset(state.data, 0, getByteSize(state));
  if (plan.seedData) {
    int64_t seedValue = seed;
    std::memcpy(plan.seedData, &seedValue, sizeof(int64_t));
  }
  fillArguments(plan);
  if (checkGradients)
    return runGradientCheck(engine, plan);

  for (unsigned step = 1; step <= numSteps; ++step) {
    for (const StepArgument &arg : plan.arguments)
      if (arg.kind == ArgKind::StepNumber)
        storeStepNumber(arg, step);
    bool measured = measurePeak && step == numSteps;
    uint64_t liveBefore = memopt_live_bytes();
    if (measured)
      memopt_reset_peak();
    if (llvm::Error error = engine.invokePacked(kEntryName))
      return fail("step " + Twine(step) +
                  " failed to run: " + llvm::toString(std::move(error)));
    printStepLine(plan, step);
    // A failed allocation in a later step ends the process with _Exit:
    // what was printed so far must be out.
    llvm::outs().flush();
    if (!measured)
      continue;
    llvm::outs() << "measured_peak_bytes: " << memopt_peak_bytes() << "\n";
    llvm::outs() << "predicted_peak_bytes: " << plan.predictedPeak << "\n";
    if (plan.arenaBytes >= 0)
      llvm::outs() << "arena_bytes: " << plan.arenaBytes << "\n";
    // The state and inputs live in globals, not in allocations: their
    // measured bytes are the globals' sizes in the compiled program.
    llvm::outs() << "measured_persistent_bytes: " << plan.measuredPersistent
                 << "\n";
    llvm::outs() << "predicted_persistent_bytes: " << plan.predictedPersistent
                 << "\n";
    llvm::outs() << "measured_input_bytes: " << plan.measuredInputs << "\n";
    llvm::outs() << "predicted_input_bytes: " << plan.predictedInputs << "\n";
    uint64_t liveAfter = memopt_live_bytes();
    if (liveAfter != liveBefore)
      llvm::WithColor::warning(llvm::errs(), "mem-run")
          << "the last step left " << liveAfter - liveBefore
          << " bytes allocated (a leak in the lowered code)\n";
  }

  for (const GlobalTensor &result : plan.results)
    if (numSteps > 0 && result.type.getRank() != 0)
      printSummary("result", result);
  double checksum = 0.0;
  for (const GlobalTensor &param : plan.params) {
    printSummary("param", param);
    checksum += summarize(param).first;
  }
  llvm::outs() << "params_checksum: " << llvm::format("%.9e", checksum) << "\n";
  llvm::outs().flush();
  return success();
}

//===----------------------------------------------------------------------===//
// Ahead-of-time driver (--emit-aot)
//===----------------------------------------------------------------------===//

/// The C driver of an AOT binary: the step's globals (named by asm labels),
/// how mem-run would fill each of them (the constants of the formulas
/// computed here, printed exactly as hexadecimal floats), the step loop and
/// the output lines of runSteps. Generic code lives in a fixed part of the
/// file; only the tables depend on the step.
static constexpr llvm::StringLiteral kAOTDriverPrologue = R"c(
/* Generated by mem-run --emit-aot: the driver of one lowered training step.
   Compile with -ffp-contract=off (the formulas round after every operation)
   and link with the step's object, libm and the memopt runtime. */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

enum Kind { FLOAT_FORMULA, INTEGER, STEP_NUMBER, ZEROS };
enum Elem { E_F64, E_F32, E_F16, E_BF16, E_I1, E_I8, E_I16, E_I32, E_I64 };

struct Tensor {
  const char *name;
  char *data;
  int kind;
  int elem;
  int64_t count;
  int rank;
  double amplitude, phase;
  uint64_t hash, bound;
};

static unsigned elemBytes(int elem) {
  switch (elem) {
  case E_F64: case E_I64: return 8;
  case E_F32: case E_I32: return 4;
  case E_F16: case E_BF16: case E_I16: return 2;
  default: return 1;
  }
}

/* Rounds v once, to nearest even, to a binary format of `bits` significand
   bits and least normal exponent `minExp`. */
static double roundToFormat(double v, int bits, int minExp) {
  if (v == 0.0 || !isfinite(v))
    return v;
  int e;
  frexp(v, &e);
  int p = bits;
  if (e - 1 < minExp)
    p = bits - (minExp - (e - 1));
  return ldexp(nearbyint(ldexp(v, p - e)), e - p);
}

static void storeFloat(int elem, char *dst, double v) {
  if (elem == E_F64) { memcpy(dst, &v, 8); return; }
  if (elem == E_F32) { float f = (float)v; memcpy(dst, &f, 4); return; }
  uint16_t h;
  if (elem == E_BF16) {
    float f = (float)roundToFormat(v, 8, -126); /* exact in float */
    uint32_t u; memcpy(&u, &f, 4);
    h = (uint16_t)(u >> 16);
  } else {
    double r = roundToFormat(v, 11, -14);
    uint16_t sign = signbit(r) ? 0x8000 : 0;
    double a = fabs(r);
    if (a == 0.0) h = sign;
    else if (a >= 65520.0) h = sign | 0x7c00;
    else {
      int e; frexp(a, &e);
      if (e - 1 < -14) h = sign | (uint16_t)ldexp(a, 24);
      else h = sign | (uint16_t)((e - 1 + 15) << 10) |
               (uint16_t)(ldexp(a, 11 - e) - 1024.0);
    }
  }
  memcpy(dst, &h, 2);
}

static double loadFloat(int elem, const char *src) {
  if (elem == E_F64) { double d; memcpy(&d, src, 8); return d; }
  if (elem == E_F32) { float f; memcpy(&f, src, 4); return f; }
  uint16_t h; memcpy(&h, src, 2);
  if (elem == E_BF16) { uint32_t u = (uint32_t)h << 16; float f; memcpy(&f, &u, 4); return f; }
  double sign = (h & 0x8000) ? -1.0 : 1.0;
  int exp = (h >> 10) & 0x1f, mant = h & 0x3ff;
  if (exp == 0) return sign * ldexp(mant, -24);
  if (exp == 31) return mant ? NAN : sign * INFINITY;
  return sign * ldexp(mant + 1024, exp - 25);
}

static void storeInteger(int elem, char *dst, uint64_t v) { memcpy(dst, &v, elemBytes(elem)); }

static int64_t loadInteger(int elem, const char *src) {
  uint64_t bits = 0;
  unsigned n = elemBytes(elem);
  memcpy(&bits, src, n);
  if (elem == E_I1) return bits & 1;
  if (n < 8 && (bits >> (8 * n - 1)) & 1) bits |= ~(uint64_t)0 << (8 * n);
  return (int64_t)bits;
}

static int isFloat(int elem) { return elem <= E_BF16; }

static void fill(const struct Tensor *t) {
  unsigned n = elemBytes(t->elem);
  for (int64_t i = 0; i < t->count; ++i) {
    char *dst = t->data + i * n;
    if (t->kind == FLOAT_FORMULA) {
      double angle = 0.37 * (double)i;
      angle = angle + t->phase;
      storeFloat(t->elem, dst, t->amplitude * sin(angle));
    } else if (t->kind == INTEGER) {
      storeInteger(t->elem, dst, (t->hash + 7u * (uint64_t)i) % t->bound);
    } else {
      memset(dst, 0, n);
    }
  }
}

static void summarize(const struct Tensor *t, double *sum, double *sumsq) {
  unsigned n = elemBytes(t->elem);
  *sum = 0.0; *sumsq = 0.0;
  for (int64_t i = 0; i < t->count; ++i) {
    double v = isFloat(t->elem) ? loadFloat(t->elem, t->data + i * n)
                                : (double)loadInteger(t->elem, t->data + i * n);
    *sum += v;
    *sumsq += v * v;
  }
}

#ifdef MEMOPT_AOT_GPU
#include <time.h>
static double now(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return t.tv_sec + 1e-9 * t.tv_nsec;
}
void memopt_cuda_global_to_host(void *host);
void memopt_cuda_global_to_device(const void *host);
void memopt_cuda_mem_info(uint64_t *freeBytes, uint64_t *totalBytes);
void memopt_cuda_report(void);
void memopt_cuda_reset_peak(void);
uint64_t memopt_cuda_peak_bytes(void);
#define TO_HOST(p) memopt_cuda_global_to_host(p)
#define TO_DEVICE(p) memopt_cuda_global_to_device(p)
#else
#define TO_HOST(p) ((void)(p))
#define TO_DEVICE(p) ((void)(p))
#endif

void __memrun_entry(void);
)c";

static constexpr llvm::StringLiteral kAOTDriverMain = R"c(
int main(int argc, char **argv) {
  unsigned steps = DEFAULT_STEPS;
  if (argc > 1 && sscanf(argv[1], "%u", &steps) != 1) {
    fprintf(stderr, "usage: %s [steps]\n", argv[0]);
    return 2;
  }
  size_t numArgs = sizeof(args) / sizeof(args[0]) - 1; /* sentinel */
  size_t numResults = sizeof(results) / sizeof(results[0]) - 1; /* sentinel */
  size_t numParams = sizeof(params) / sizeof(params[0]) - 1; /* sentinel */
  size_t numStates = sizeof(states) / sizeof(states[0]) - 1; /* sentinel */
  for (size_t i = 0; i < numParams; ++i) fill(&params[i]);
  for (size_t i = 0; i < numStates; ++i) fill(&states[i]);
  for (size_t i = 0; i < numArgs; ++i) fill(&args[i]);
  if (seedData) memcpy(seedData, &seedValue, sizeof(int64_t));
#ifdef MEMOPT_AOT_GPU
  uint64_t freeBefore = 0, total = 0;
  memopt_cuda_mem_info(&freeBefore, &total);
  double stepSeconds[64] = {0};
#endif
  for (unsigned step = 1; step <= steps; ++step) {
    for (size_t i = 0; i < numArgs; ++i)
      if (args[i].kind == STEP_NUMBER) {
        if (isFloat(args[i].elem)) storeFloat(args[i].elem, args[i].data, step);
        else storeInteger(args[i].elem, args[i].data, step);
        TO_DEVICE(args[i].data);
      }
#ifdef MEMOPT_AOT_GPU
    double start = now();
    __memrun_entry();
    if (step <= 64) stepSeconds[step - 1] = now() - start;
#else
    __memrun_entry();
#endif
    printf("step %u:", step);
    int lossPrinted = 0;
    for (size_t i = 0; i < numResults; ++i) {
      TO_HOST(results[i].data);
      if (results[i].rank != 0) continue;
      if (!isFloat(results[i].elem)) {
        printf(" result%zu = %lld", i, (long long)loadInteger(results[i].elem, results[i].data));
        continue;
      }
      if (lossPrinted) printf(" result%zu = %.9e", i, loadFloat(results[i].elem, results[i].data));
      else printf(" loss = %.9e", loadFloat(results[i].elem, results[i].data));
      lossPrinted = 1;
    }
    printf("\n");
    fflush(stdout);
  }
  double checksum = 0.0, sum, sumsq;
  for (size_t i = 0; i < numResults; ++i) {
    if (steps == 0 || results[i].rank == 0) continue;
    summarize(&results[i], &sum, &sumsq);
    printf("result %s: sum = %.9e sumsq = %.9e\n", results[i].name, sum, sumsq);
  }
  for (size_t i = 0; i < numParams; ++i) {
    TO_HOST(params[i].data);
    summarize(&params[i], &sum, &sumsq);
    printf("param %s: sum = %.9e sumsq = %.9e\n", params[i].name, sum, sumsq);
    checksum += sum;
  }
  printf("params_checksum: %.9e\n", checksum);
#ifdef MEMOPT_AOT_GPU
  uint64_t freeAfter = 0;
  memopt_cuda_mem_info(&freeAfter, &total);
  printf("cuda_mem_used_before_steps_bytes: %llu\n", (unsigned long long)(total - freeBefore));
  printf("cuda_mem_used_after_steps_bytes: %llu\n", (unsigned long long)(total - freeAfter));
  printf("cuda_step_delta_bytes: %llu\n", (unsigned long long)(freeBefore - freeAfter));
  printf("step_seconds:");
  for (unsigned i = 0; i < steps && i < 64; ++i) printf(" %.6f", stepSeconds[i]);
  printf("\n");
  printf("predicted_transient_peak_bytes: %lld\n", (long long)PREDICTED_TRANSIENT_PEAK);
  printf("predicted_persistent_bytes: %lld\n", (long long)PREDICTED_PERSISTENT);
  printf("planned_arena_bytes: %lld\n", (long long)PLANNED_ARENA);
  memopt_cuda_report();
#endif
  return 0;
}
)c";

/// Element code of the driver's `enum Elem`, or -1.
static int getDriverElement(Type type) {
  if (type.isF64())
    return 0;
  if (type.isF32())
    return 1;
  if (type.isF16())
    return 2;
  if (type.isBF16())
    return 3;
  if (type.isInteger(1))
    return 4;
  if (type.isInteger(8))
    return 5;
  if (type.isInteger(16))
    return 6;
  if (type.isInteger(32))
    return 7;
  if (type.isInteger(64))
    return 8;
  return -1;
}

/// Writes DIR/main.c for `plan`.
static LogicalResult writeAOTDriver(const StepPlan &plan, StringRef path,
                                    unsigned steps) {
  AtomicOutputFile file;
  if (llvm::Error error = file.open(path))
    return fail(llvm::toString(std::move(error)));
  llvm::raw_ostream &os = file.os();
  os << kAOTDriverPrologue;
  unsigned symbolCount = 0;
  auto hex = [](double value) {
    return llvm::formatv("{0}", llvm::format("%a", value)).str();
  };
  // Declares the global and returns the table row of `tensor`.
  auto row = [&](const GlobalTensor &tensor, StringRef kind, double amplitude,
                 uint64_t bound) -> FailureOr<std::string> {
    int element = getDriverElement(tensor.type.getElementType());
    if (element < 0)
      return fail("--emit-aot cannot store " + tensor.name + " of type " +
                  llvm::formatv("{0}", tensor.type).str());
    std::string symbol = ("g" + Twine(symbolCount++)).str();
    os << "extern char " << symbol << "[] __asm__(\"" << tensor.symbol
       << "\");\n";
    std::string text;
    llvm::raw_string_ostream r(text);
    r << "  {\"" << tensor.name << "\", " << symbol << ", " << kind << ", "
      << element << ", " << tensor.type.getNumElements() << ", "
      << tensor.type.getRank() << ", " << hex(amplitude) << ", "
      << hex(run::initPhase(tensor.name)) << ", " << run::fnv1a32(tensor.name)
      << "u, " << bound << "u},\n";
    return text;
  };
  std::string argRows, resultRows, paramRows, stateRows;
  for (const StepArgument &arg : plan.arguments) {
    StringRef kind = arg.kind == ArgKind::Float     ? "FLOAT_FORMULA"
                     : arg.kind == ArgKind::Integer ? "INTEGER"
                                                    : "STEP_NUMBER";
    FailureOr<std::string> text = row(arg.tensor, kind, 1.0, arg.bound);
    if (failed(text))
      return failure();
    argRows += *text;
  }
  for (const GlobalTensor &result : plan.results) {
    FailureOr<std::string> text = row(result, "ZEROS", 0.0, 0);
    if (failed(text))
      return failure();
    resultRows += *text;
  }
  int64_t persistent = 0;
  for (const GlobalTensor &param : plan.params) {
    FailureOr<std::string> text =
        row(param, "FLOAT_FORMULA", run::paramAmplitude(param.type), 0);
    if (failed(text))
      return failure();
    paramRows += *text;
    persistent += getByteSize(param);
  }
  for (const GlobalTensor &state : plan.states) {
    FailureOr<std::string> text = row(state, "ZEROS", 0.0, 0);
    if (failed(text))
      return failure();
    stateRows += *text;
    persistent += getByteSize(state);
  }
  // C has no empty arrays: a zero row that nothing reads stands in.
  auto table = [&](StringRef name, const std::string &rows) {
    os << "static struct Tensor " << name << "[] = {\n"
       << rows << "  {0, 0, ZEROS, 0, 0, 0, 0.0, 0.0, 0u, 0u}};\n";
  };
  table("args", argRows);
  table("results", resultRows);
  table("params", paramRows);
  table("states", stateRows);
  if (plan.hasSeed)
    os << "extern char seed_global[] __asm__(\"" << kSeedGlobalName
       << "\");\nstatic char *seedData = seed_global;\n";
  else
    os << "static char *seedData = 0;\n";
  os << "static const int64_t seedValue = " << seed << ";\n"
     << "#define DEFAULT_STEPS " << steps << "\n"
     << "#define PREDICTED_TRANSIENT_PEAK " << plan.predictedPeak << "\n"
     << "#define PREDICTED_PERSISTENT " << persistent << "\n"
     << "#define PLANNED_ARENA " << plan.arenaBytes << "\n";
  os << kAOTDriverMain;
  if (llvm::Error error = file.commit())
    return fail(llvm::toString(std::move(error)));
  return success();
}

/// --emit-aot: writes DIR/step.mlir and DIR/main.c.
static LogicalResult emitAOTFiles(ModuleOp module, const StepPlan &plan) {
  if (std::error_code error = llvm::sys::fs::create_directories(emitAOT))
    return fail("cannot create " + emitAOT + ": " + error.message());
  SmallString<256> stepPath(emitAOT), mainPath(emitAOT);
  llvm::sys::path::append(stepPath, "step.mlir");
  llvm::sys::path::append(mainPath, "main.c");
  if (llvm::Error error = writeFileAtomically(
          stepPath, [&](raw_ostream &os) { module.print(os); }))
    return fail(llvm::toString(std::move(error)));
  return writeAOTDriver(plan, mainPath, numSteps);
}

//===----------------------------------------------------------------------===//
// Driver
//===----------------------------------------------------------------------===//

/// Whether `step` carries an arena plan (or part of one).
static bool isPlanned(func::FuncOp step) {
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

/// Everything after option parsing; fails after printing why.
static LogicalResult runMain() {
  if (checkGradients && measurePeak)
    return fail("--check-gradients and --measure-peak cannot be combined");
  if (measurePeak && numSteps == 0)
    return fail("--measure-peak needs at least one step (--steps >= 1)");
  if (!llvm::CodeGenOpt::getLevel(optLevel))
    return fail("--opt-level must be 0, 1, 2 or 3");
  if (target != "cpu" && target != "gpu" && target != "gpu-emulator")
    return fail("--target must be cpu, gpu or gpu-emulator, got '" + target +
                "'");
  if (target == "gpu-emulator" && !emitAOT.empty())
    return fail("--target=gpu-emulator runs in mem-run only; --emit-aot "
                "builds for cpu or gpu");
  if (target == "gpu" && emitAOT.empty())
    return fail("--target=gpu needs --emit-aot: mem-run runs steps on the "
                "CPU only; build a GPU binary with scripts/aot-build.sh, or "
                "run the GPU kernels on the CPU with --target=gpu-emulator");
  if (!emitAOT.empty() && checkGradients)
    return fail("--emit-aot and --check-gradients cannot be combined");

  DialectRegistry registry;
  registerAllDialects(registry);
  registerBuiltinDialectTranslation(registry);
  registerLLVMDialectTranslation(registry);
  // Kernel serialization for --target=gpu only: a CPU run keeps reporting
  // GPU ops as untranslatable.
  if (target == "gpu")
    registerGPUTargets(registry);
  MLIRContext context(registry);
  // The JIT and the steps run on this thread; compile-time threading buys
  // little for one step and makes diagnostics interleave.
  context.disableMultithreading();

  std::string errorMessage;
  std::unique_ptr<llvm::MemoryBuffer> file =
      openInputFile(inputFile, &errorMessage);
  if (!file)
    return fail(errorMessage);
  llvm::SourceMgr sourceMgr;
  sourceMgr.AddNewSourceBuffer(std::move(file), llvm::SMLoc());
  SourceMgrDiagnosticHandler diagnostics(sourceMgr, &context);

  // Verified only once ops named by their layer alone (`loc("fc2")`) also
  // carry where they are written, so that an error names both.
  OwningOpRef<ModuleOp> module = parseSourceFile<ModuleOp>(
      sourceMgr, ParserConfig(&context, /*verifyAfterParse=*/false));
  if (!module)
    return fail("cannot parse " + inputFile);
  const llvm::MemoryBuffer &buffer =
      *sourceMgr.getMemoryBuffer(sourceMgr.getMainFileID());
  if (FailureOr<OpPositions> positions = collectOpPositions(
          buffer, registry, /*allowUnregisteredDialects=*/false);
      succeeded(positions))
    attachOpPositions(*module, buffer.getBufferIdentifier(), *positions);
  if (failed(verify(*module)))
    return fail(inputFile + " does not verify (see above)");

  if (!userPipeline.empty()) {
    PassManager pm(&context);
    if (failed(applyPassManagerCLOptions(pm)))
      return failure();
    // The pipeline runs on the module: accept it with or without the
    // `builtin.module(...)` anchor.
    StringRef passes = StringRef(userPipeline).trim();
    if (passes.consume_front("builtin.module(") && passes.consume_back(")"))
      passes = passes.trim();
    else
      passes = StringRef(userPipeline).trim();
    std::string parseErrors;
    llvm::raw_string_ostream errorStream(parseErrors);
    if (failed(parsePassPipeline(passes, pm, errorStream)))
      return fail("invalid --pipeline '" + userPipeline +
                  "': " + errorStream.str());
    if (failed(pm.run(*module)))
      return fail("--pipeline '" + userPipeline + "' failed");
  }

  FailureOr<func::FuncOp> step = findStep(*module);
  if (failed(step))
    return failure();
  // Collectives lower to NCCL calls (memopt-shard-to-nccl) on the GPU only.
  if (target == "cpu") {
    Operation *collective = nullptr;
    module->walk([&](Operation *op) {
      if (!isa_and_nonnull<shard::ShardDialect>(op->getDialect()) ||
          isa<shard::GridOp>(op))
        return WalkResult::advance();
      collective = op;
      return WalkResult::interrupt();
    });
    if (collective) {
      collective->emitError()
          << "'" << collective->getName()
          << "' runs on the GPU target only (NCCL; scripts/aot-build.sh "
             "--target gpu, or --target=gpu-emulator for one process): the "
             "CPU path has no collectives yet";
      return failure();
    }
  }
  if (checkGradients) {
    PassManager pm(&context);
    OpPassManager &funcPM = pm.nest<func::FuncOp>();
    TrainAutodiffPassOptions options;
    options.optimizer = "none";
    funcPM.addPass(createTrainAutodiffPass(options));
    if (failed(pm.run(*module)))
      return fail("cannot differentiate @" + step->getSymName() +
                  " for --check-gradients (see above)");
  }
  // A planned step runs on its arena as the plan says; a hand-edited plan
  // with an offset past the arena or two live buffers overlapping would
  // corrupt memory or print wrong numbers. Verify every plan first.
  if (isPlanned(*step)) {
    PassManager pm(&context);
    pm.nest<func::FuncOp>().addPass(createTrainVerifyPlanPass());
    if (failed(pm.run(*module)))
      return fail("the arena plan of @" + step->getSymName() +
                  " is invalid (see above); plan it again with "
                  "--pipeline='func.func(train-plan-memory)'");
  }
  FailureOr<StepPlan> plan = planStep(*module, *step);
  if (failed(plan))
    return fail("cannot run @" + step->getSymName() + " (see above)");
  for (unsigned i = 0, e = step->getNumResults(); i < e; ++i) {
    auto gradOf = step->getResultAttrOfType<StringAttr>(i, "train.grad_of");
    plan->resultGradOf.push_back(gradOf ? gradOf.str() : std::string());
  }
  // The model's peak of what the lowered step allocates: parameters, states
  // and inputs live in globals; every buffer is padded to the alignment.
  plan->predictedPeak =
      TensorLiveness(*step, kCPUBufferAlignment).getTransientPeak();
  {
    TensorLiveness exact(*step);
    plan->predictedPersistent = exact.getPersistentBytes();
    for (const Buffer &buffer : exact.getBuffers())
      if (buffer.memoryClass == MemoryClass::Input)
        plan->predictedInputs += buffer.bytes;
  }
  if (auto arena = (*step)->getAttrOfType<IntegerAttr>(
          train::TrainDialect::kArenaBytesAttrName)) {
    int64_t persistent = 0;
    if (auto attr = (*step)->getAttrOfType<IntegerAttr>(
            train::TrainDialect::kPersistentBytesAttrName))
      persistent = attr.getInt();
    // The arena, plus the returned buffers, which the lowering allocates on
    // their own (the caller frees each).
    plan->arenaBytes = arena.getInt() - persistent +
                       getPlannedBytesOutsideArena(*step, kCPUBufferAlignment);
  }
  if (listInputs) {
    printInputs(*plan);
    return success();
  }
  if (failed(checkStepFits(*plan)))
    return failure();
  if (failed(addEntryFunction(*module, *plan)) || failed(verify(*module)))
    return fail("cannot build the entry function of @" + step->getSymName());
  if (failed(lowerToLLVM(*module)))
    return fail("cannot lower @" + step->getSymName() +
                " to LLVM (see the diagnostic above)");
  // The seed global exists when a train.dropout reads it, or when the step
  // declares it itself.
  plan->hasSeed = module->lookupSymbol(kSeedGlobalName) != nullptr;
  measureGlobals(*module, *plan);
  if (!emitAOT.empty())
    return emitAOTFiles(*module, *plan);
  return runSteps(*module, *plan);
}

int main(int argc, char **argv) {
  llvm::InitLLVM initLLVM(argc, argv);
  registerAsmPrinterCLOptions();
  registerMLIRContextCLOptions();
  registerPassManagerCLOptions();
  registerAllPasses();
  // libLLVM.so registers every backend's options; --help shows mem-run's.
  // MLIR's (--mlir-print-ir-after-all, ...) still work: see --help-hidden.
  cl::HideUnrelatedOptions(memRunCategory);
  cl::ParseCommandLineOptions(
      argc, argv,
      "mem-run: runs a training step on the CPU for N steps and prints its "
      "losses and parameter checksums\n");
  return failed(runMain()) ? 1 : 0;
}
