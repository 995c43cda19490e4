//===- mem-run.cpp - run training steps on the CPU ------------------------===//
//
// Lowers a training step (train dialect) to LLVM, JIT-compiles it with
// MLIR's ExecutionEngine and runs it for N steps on parameters and inputs
// filled by a documented deterministic formula, printing the losses and a
// summary of every parameter. The formula, the output format and what
// --measure-peak counts are described in docs/execution.md.
//
// The work is the MemoptExecution library's (include/memopt/Execution):
// this tool parses the options and the input, calls the library in order
// and prints. Diagnostics without an op to point at (the library's, at
// getExecutionLoc()) print as `mem-run: error: ...`.
//
//===----------------------------------------------------------------------===//

#include "memopt/Conversion/Passes.h"
#include "memopt/Execution/AotDriver.h"
#include "memopt/Execution/CompiledStep.h"
#include "memopt/Execution/Init.h"
#include "memopt/Execution/PipelineStage.h"
#include "memopt/Execution/StepPlan.h"
#include "memopt/Execution/Weights.h"
#include "memopt/InitAll.h"
#include "memopt/Runtime/Collectives.h"
#include "memopt/Runtime/MpiCollectives.h"
#include "memopt/Support/SourcePositions.h"

#include "RunOutput.h"

#include "mlir/IR/AsmState.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/IR/Verifier.h"
#include "mlir/Parser/Parser.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Pass/PassRegistry.h"
#include "mlir/Support/FileUtilities.h"
#include "mlir/Support/Timing.h"
#include "llvm/Support/CodeGen.h"
#include "llvm/Support/CommandLine.h"
#include "llvm/Support/Format.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/InitLLVM.h"
#include "llvm/Support/SourceMgr.h"
#include "llvm/Support/WithColor.h"

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <fcntl.h>
#include <unistd.h>

using namespace mlir;
using namespace mlir::memopt;
using namespace mlir::memopt::execution;

namespace cl = llvm::cl;

//===----------------------------------------------------------------------===//
// Command line
//===----------------------------------------------------------------------===//

static cl::OptionCategory memRunCategory("mem-run options");

static cl::opt<std::string> inputFile(cl::Positional, cl::Required,
                                      cl::desc("<step.mlir>"),
                                      cl::cat(memRunCategory));

static cl::opt<unsigned> numSteps(
    "steps",
    cl::desc("Number of training steps to run (optimizer steps: a step that "
             "accumulates gradients over N micro-batches is called N times "
             "per step, on successive micro-batches of the batch)"),
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
                      "func.func with a body; in a pipelined module, the "
                      "stage of the process's rank)"),
             cl::init(""), cl::cat(memRunCategory));

static cl::opt<std::string> initFrom(
    "init-from",
    cl::desc("Fill the parameters (every one) and the arguments named argN "
             "from this safetensors file instead of the formula "
             "(docs/execution.md)"),
    cl::value_desc("file"), cl::init(""), cl::cat(memRunCategory));

static cl::opt<std::string> saveParamsFile(
    "save-params",
    cl::desc("Write the parameters after the last step to this safetensors "
             "file"),
    cl::value_desc("file"), cl::init(""), cl::cat(memRunCategory));

static cl::opt<std::string> saveResultsFile(
    "save-results",
    cl::desc("Write the step's results after the last step to this "
             "safetensors file, as result0, result1, ..."),
    cl::value_desc("file"), cl::init(""), cl::cat(memRunCategory));

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

static cl::opt<int64_t> pipelineStage(
    "pipeline-stage",
    cl::desc("With --target=gpu --emit-aot on a pipelined step "
             "(train-pipeline): the stage N whose GPU binary to build. Each "
             "stage is its own program, launched together: mpiexec -n 1 "
             "stage0.bin : -n 1 stage1.bin (one process per grid position, "
             "in rank order). Without it, each process of an mpiexec run "
             "runs the stage of its rank"),
    cl::value_desc("N"), cl::init(-1), cl::cat(memRunCategory));

static cl::opt<std::string> target(
    "target",
    cl::desc(
        "Lowering: cpu (memopt-lower-to-cpu, the default); gpu "
        "(memopt-lower-to-gpu, with --emit-aot only: mem-run runs on the "
        "CPU); gpu-emulator (memopt-lower-to-gpu{emulate=true}: the GPU "
        "kernels and cuBLAS calls run as CPU code, and the NCCL calls on MPI "
        "under mpiexec, to check the GPU lowering's results without a "
        "GPU; not with --emit-aot)"),
    cl::init("cpu"), cl::cat(memRunCategory));

static cl::opt<std::string>
    gpuOptions("gpu-options",
               cl::desc("Options of memopt-lower-to-gpu for --target=gpu or "
                        "gpu-emulator, e.g. 'chip=sm_80 features=+ptx80' or "
                        "'reduction-min-extent=1'"),
               cl::init(""), cl::cat(memRunCategory));

static cl::list<std::string> printStates(
    "print-state",
    cl::desc("After each step, also print these persistent states "
             "(train.opt_state names, comma-separated), e.g. "
             "loss_scale.exponent,loss_scale.skipped_steps; one of rank 1 or "
             "more (an fp8 amax history) prints every element, [a, b, ...]"),
    cl::CommaSeparated, cl::value_desc("NAME"), cl::cat(memRunCategory));

static cl::opt<bool> allowNonfinite(
    "allow-nonfinite",
    cl::desc("Run on after a step whose loss is NaN or inf (by default the "
             "run stops there with an error and exit status 1)"),
    cl::init(false), cl::cat(memRunCategory));

static cl::opt<unsigned>
    optLevel("opt-level",
             cl::desc("LLVM optimization level of the compiled step (0-3)"),
             cl::init(2), cl::cat(memRunCategory));

static cl::opt<bool> shareCompilation(
    "share-compilation",
    cl::desc("Under mpiexec at --opt-level 1 to 3, compile the step in "
             "process 0 only and load its object code in the others, each of "
             "which checks that it lowered the same program (compiling its "
             "own otherwise); at --opt-level=0 every process compiles, which "
             "takes less than waiting"),
    cl::init(true), cl::cat(memRunCategory));

//===----------------------------------------------------------------------===//
// Processes
//===----------------------------------------------------------------------===//

/// The run's processes: one, or the MPI world of a sharded step.
static int64_t worldRank = 0, worldSize = 1;

/// This process's place as the launcher (mpiexec) set it in the
/// environment: rank 0 of 1 without one.
static ::memopt::runtime::ProcessPlace readLauncherPlace() {
  ::memopt::runtime::ProcessPlace place;
  std::string error;
  if (!::memopt::runtime::readProcessPlace(
          [](const char *name) { return std::getenv(name); }, place, error))
    place = ::memopt::runtime::ProcessPlace();
  return place;
}

/// The sum over every process of a value each holds: whole-tensor sums
/// from the processes' parts. `replicas` processes hold each part.
static double sumOverProcesses(double value, int64_t replicas) {
  if (worldSize == 1)
    return value;
  return ::memopt::runtime::mpiSumDouble(value) / static_cast<double>(replicas);
}

/// How many processes hold each part of `tensor`: all of them for a whole
/// tensor, fewer for a split one.
static int64_t getReplicas(const StepPlan &plan, const GlobalTensor &tensor) {
  int64_t parts = 1;
  for (size_t i = 0; i + 2 < tensor.split.size(); i += 3)
    parts *= plan.gridShape[tensor.split[i + 2]];
  return worldSize / parts;
}

/// The stages of a pipelined step (train-pipeline); `stages` is 0 otherwise.
static PipelineRun pipelineRun;

namespace {
/// One parameter of the step: this process's part (null where a pipeline
/// stage holds none of it) and how many processes hold each part.
struct ParamPart {
  StringRef name;
  const GlobalTensor *tensor;
  int64_t replicas;
};
} // namespace

/// Every parameter of the step, in the same order on every process.
static SmallVector<ParamPart> getParamParts(const StepPlan &plan) {
  SmallVector<ParamPart> parts;
  if (pipelineRun.stages == 0) {
    for (const GlobalTensor &param : plan.params)
      parts.push_back({param.name, &param, getReplicas(plan, param)});
    return parts;
  }
  for (const PipelineRun::Param &param : pipelineRun.params) {
    const GlobalTensor *held = nullptr;
    for (const GlobalTensor &tensor : plan.params)
      if (tensor.name == param.name)
        held = &tensor;
    // The stages that hold it, times the processes of the other axes that
    // hold each part (train-shard's splits).
    int64_t split = 1;
    for (size_t i = 0; i + 2 < param.split.size(); i += 3)
      split *= plan.gridShape[param.split[i + 2]];
    parts.push_back({param.name, held,
                     param.holders * worldSize / pipelineRun.stages / split});
  }
  return parts;
}

//===----------------------------------------------------------------------===//
// Output
//===----------------------------------------------------------------------===//

/// Prints `mem-run: error: message` and fails.
static LogicalResult fail(const Twine &message) {
  llvm::WithColor::error(llvm::errs(), "mem-run") << message << "\n";
  return failure();
}

/// Prints the library's diagnostics that have no op to point at (at
/// getExecutionLoc()) as mem-run's own errors and warnings; the others go on
/// to the source manager's handler.
static LogicalResult printExecutionDiagnostic(Diagnostic &diag) {
  if (diag.getLocation() != getExecutionLoc(diag.getLocation()->getContext()))
    return failure();
  if (diag.getSeverity() == DiagnosticSeverity::Warning)
    llvm::WithColor::warning(llvm::errs(), "mem-run") << diag.str() << "\n";
  else
    (void)fail(diag.str());
  return success();
}

/// The states --print-state names, in its order; fails on a name that is
/// not a state of the step, or one split across processes.
static FailureOr<SmallVector<const GlobalTensor *>>
findPrintedStates(const StepPlan &plan) {
  SmallVector<const GlobalTensor *> found;
  for (const std::string &name : printStates) {
    const GlobalTensor *state = nullptr;
    for (const GlobalTensor &candidate : plan.states)
      if (candidate.name == name)
        state = &candidate;
    if (!state || !state->split.empty()) {
      (void)fail("--print-state: the step has no " +
                 Twine(state ? "whole (not split) " : "") +
                 "train.opt_state '" + name + "'");
      return failure();
    }
    found.push_back(state);
  }
  return found;
}

/// Warns about parameters that are not finite before the first step (a
/// --init-from file can hold NaN or inf): the run would diverge at once.
/// Every process takes part, each counting its own parts.
static void warnAboutNonfiniteParams(const StepPlan &plan) {
  for (const ParamPart &param : getParamParts(plan)) {
    double count = sumOverProcesses(
        param.tensor
            ? static_cast<double>(memrun::countNonfinite(*param.tensor))
            : 0.0,
        param.replicas);
    if (count > 0 && worldRank == 0)
      llvm::WithColor::warning(llvm::errs(), "mem-run")
          << "parameter '" << param.name << "' holds "
          << static_cast<int64_t>(count)
          << (count == 1 ? " non-finite value" : " non-finite values")
          << " (NaN or inf) before the first step"
          << (initFrom.empty() ? ""
                               : " (read from --init-from " + initFrom + ")")
          << "\n";
  }
}

/// Fails when the loss of the step just run (`loss`: its first 0-d float
/// result, under gradient accumulation the mean over the micro-batches, so
/// NaN in any of them) is NaN or inf in any process, unless
/// --allow-nonfinite: a diverged run must not end with status 0. Every
/// process decides alike.
static LogicalResult checkLossIsFinite(std::optional<double> loss,
                                       unsigned stepNumber) {
  if (allowNonfinite || !loss)
    return success();
  double nonfinite = std::isfinite(*loss) ? 0.0 : 1.0;
  if (worldSize > 1)
    nonfinite = ::memopt::runtime::mpiSumDouble(nonfinite);
  if (nonfinite == 0.0)
    return success();
  if (worldRank == 0)
    (void)fail(llvm::formatv(
        "step {0}: the loss is {1}: the run diverged (or its inputs or "
        "initial parameters are not finite); stopping here (pass "
        "--allow-nonfinite to run on)",
        stepNumber,
        std::isfinite(*loss) ? "not finite in another process"
        : std::isnan(*loss)  ? "nan"
                             : (*loss > 0 ? "inf" : "-inf")));
  return failure();
}

/// Prints `<kind> <name>: sum = ... sumsq = ...` of the whole tensor (for a
/// split tensor, summed over the processes' parts); returns the sum.
static double printSummary(StringRef kind, StringRef name,
                           const GlobalTensor *tensor, int64_t replicas) {
  TensorSummary summary = tensor ? summarize(*tensor) : TensorSummary();
  double sum = sumOverProcesses(summary.sum, replicas);
  double sumSquares = sumOverProcesses(summary.sumSquares, replicas);
  llvm::outs() << kind << " " << name << ": sum = " << llvm::format("%.9e", sum)
               << " sumsq = " << llvm::format("%.9e", sumSquares) << "\n";
  return sum;
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
  for (const GlobalTensor &param : plan.params) {
    os << "param " << param.name << ": " << param.type << " = ";
    printParamInit(os, plan, param);
  }
  for (const GlobalTensor &state : plan.states)
    os << "opt_state " << state.name << ": " << state.type << " = zeros\n";
  if (plan.hasSeed)
    os << "seed: " << seed << "\n";
  if (plan.microBatches > 1)
    os << "micro_batches: " << plan.microBatches
       << " (calls per step, on successive micro-batches of the arguments)\n";
}

//===----------------------------------------------------------------------===//
// Driver
//===----------------------------------------------------------------------===//

/// Compiles the lowered module (once for every process of a sharded run),
/// timed under `timing`.
static FailureOr<std::unique_ptr<CompiledStep>>
compileStep(ModuleOp module, StepPlan &plan, TimingScope &timing) {
  CompileOptions options;
  options.optLevel = optLevel;
  options.timing = &timing;
  SharedCompilation sharing;
  // Unoptimized code compiles in less time than a broadcast and the
  // fingerprints take (bench/run/README.md).
  // The stages of a pipeline are different programs.
  if (worldSize > 1 && shareCompilation && optLevel > 0 &&
      pipelineRun.stages == 0) {
    sharing.isSender = worldRank == 0;
    sharing.broadcast = [](std::string &message) {
      ::memopt::runtime::mpiBroadcastBytes(message, /*root=*/0);
    };
    options.sharing = &sharing;
  }
  return CompiledStep::create(module, plan, options);
}

/// Compiles the lowered module, initializes its state and runs the steps (or
/// the gradient check).
static LogicalResult runSteps(ModuleOp module, StepPlan &plan,
                              TimingScope &timing) {
  FailureOr<std::unique_ptr<CompiledStep>> compiled =
      compileStep(module, plan, timing);
  if (failed(compiled))
    return failure();
  CompiledStep &step = **compiled;
  if (pipelineRun.stages > 0 &&
      (!saveParamsFile.empty() || !saveResultsFile.empty()))
    return fail("--save-params and --save-results write one process's "
                "tensors; each process of a pipelined step holds only its "
                "stage's");
  TimingScope runTiming = timing.nest("run");
  step.initialize(seed);
  if (!initFrom.empty()) {
    llvm::Expected<WeightsFile> weights =
        WeightsFile::read(initFrom, plan.context);
    if (!weights)
      return fail(llvm::toString(weights.takeError()));
    // Each micro-batch's arguments are filled before its call.
    for (const StepArgument &arg : plan.arguments)
      if (plan.microBatches > 1 && weights->getEntries().count(arg.tensor.name))
        return fail(llvm::formatv("--init-from {0}: cannot read '{1}' for a "
                                  "step that accumulates gradients over {2} "
                                  "micro-batches: mem-run fills its "
                                  "arguments by the formula, micro-batch "
                                  "after micro-batch",
                                  initFrom, arg.tensor.name, plan.microBatches)
                        .str());
    if (llvm::Error error = loadWeights(*weights, plan))
      return fail("--init-from " + initFrom + ": " +
                  llvm::toString(std::move(error)));
  }
  FailureOr<SmallVector<const GlobalTensor *>> states = findPrintedStates(plan);
  if (failed(states))
    return failure();
  warnAboutNonfiniteParams(plan);
  if (checkGradients) {
    GradientCheckOptions options;
    options.samples = gradcheckSamples;
    options.step = gradcheckStep;
    options.rtol = gradcheckRtol;
    options.atol = gradcheckAtol;
    FailureOr<SmallVector<ParamGradientCheck>> checks =
        runGradientCheck(step, options);
    if (failed(checks))
      return failure();
    if (!memrun::printGradientChecks(*checks))
      return fail("gradient check failed");
    return success();
  }

  for (unsigned stepNumber = 1; stepNumber <= numSteps; ++stepNumber) {
    bool measured = measurePeak && stepNumber == numSteps;
    FailureOr<StepStats> stats = step.runStep(stepNumber, measured);
    if (failed(stats))
      return failure();
    memrun::printStepLine(plan, stepNumber, *states, step.getLoss());
    // A failed allocation in a later step ends the process with _Exit:
    // what was printed so far must be out.
    llvm::outs().flush();
    if (measured)
      memrun::printPeak(plan, *stats, worldSize);
    if (failed(checkLossIsFinite(step.getLoss(), stepNumber)))
      return failure();
  }
  for (const GlobalTensor &result : plan.results)
    if (numSteps > 0 && result.type.getRank() != 0)
      printSummary("result", result.name, &result, getReplicas(plan, result));
  double checksum = 0.0;
  for (const ParamPart &param : getParamParts(plan))
    checksum += printSummary("param", param.name, param.tensor, param.replicas);
  llvm::outs() << "params_checksum: " << llvm::format("%.9e", checksum) << "\n";
  llvm::outs().flush();
  if (!saveParamsFile.empty())
    if (llvm::Error error = saveParams(plan, saveParamsFile))
      return fail(llvm::toString(std::move(error)));
  if (!saveResultsFile.empty())
    if (llvm::Error error = saveResults(plan, saveResultsFile))
      return fail(llvm::toString(std::move(error)));
  return success();
}

/// Parses the input, gives ops named by their layer alone (`loc("fc2")`)
/// the position where they are written, and verifies it, so that an error
/// names both.
static OwningOpRef<ModuleOp> loadModule(llvm::SourceMgr &sourceMgr,
                                        MLIRContext &context,
                                        DialectRegistry &registry) {
  OwningOpRef<ModuleOp> module = parseSourceFile<ModuleOp>(
      sourceMgr, ParserConfig(&context, /*verifyAfterParse=*/false));
  if (!module) {
    (void)fail("cannot parse " + inputFile);
    return nullptr;
  }
  const llvm::MemoryBuffer &buffer =
      *sourceMgr.getMemoryBuffer(sourceMgr.getMainFileID());
  if (FailureOr<OpPositions> positions = collectOpPositions(
          buffer, registry, /*allowUnregisteredDialects=*/false);
      succeeded(positions))
    attachOpPositions(*module, buffer.getBufferIdentifier(), *positions);
  if (failed(verify(*module))) {
    (void)fail(inputFile + " does not verify (see above)");
    return nullptr;
  }
  return module;
}

/// Runs --pipeline on the module, with or without a `builtin.module(...)`
/// anchor.
static LogicalResult runUserPipeline(ModuleOp module) {
  PassManager pm(module.getContext());
  if (failed(applyPassManagerCLOptions(pm)))
    return failure();
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
  if (failed(pm.run(module)))
    return fail("--pipeline '" + userPipeline + "' failed");
  return success();
}

/// Picks the step and plans how to feed it: the checks and rewrites before
/// lowering.
static FailureOr<StepPlan> prepareStep(ModuleOp module, Target target) {
  std::string name = stepName;
  std::optional<int64_t> chosenStage;
  if (pipelineStage >= 0)
    chosenStage = pipelineStage;
  FailureOr<PipelineRun> pipeline = selectPipelineStage(
      module, readLauncherPlace().rank, stepName, name, chosenStage);
  if (failed(pipeline))
    return failure();
  pipelineRun = *pipeline;
  if (chosenStage && pipelineRun.stages == 0)
    return fail("--pipeline-stage: " + inputFile +
                " is not a pipelined step (train-pipeline builds one)");
  if (!chosenStage && pipelineRun.stages > 0 && target == Target::GPU)
    return fail("a pipelined step's GPU binaries are built one stage at a "
                "time: --pipeline-stage=0 to " +
                std::to_string(pipelineRun.stages - 1) +
                ", each launched as its own program (mpiexec -n 1 "
                "stage0.bin : -n 1 stage1.bin ...)");
  FailureOr<func::FuncOp> step = findStep(module, name, inputFile);
  if (failed(step) || failed(checkTargetSupportsStep(module, target)))
    return failure();
  if (checkGradients && failed(differentiateStep(module)))
    return fail("cannot differentiate @" + step->getSymName() +
                " for --check-gradients (see above)");
  // A planned step runs on its arena as the plan says: verify it first.
  if (failed(verifyArenaPlan(module, *step)))
    return fail("the arena plan of @" + step->getSymName() +
                " is invalid (see above); plan it again with "
                "--pipeline='func.func(train-plan-memory)'");
  FailureOr<StepPlan> plan = planStep(module, *step);
  if (failed(plan))
    return fail("cannot run @" + step->getSymName() + " (see above)");
  return plan;
}

/// Starts MPI for a step with a grid on the CPU (or a process mpiexec
/// started) and checks that the processes match the grid. Every process
/// reaches the same verdict, so none waits for another that gave up.
static LogicalResult startProcesses(StepPlan &plan, Target target) {
  int64_t gridSize = getGridSize(plan);
  // The launcher's count decides before MPI starts: a run that cannot go on
  // stops without initializing MPI, on every process alike.
  ::memopt::runtime::ProcessPlace place = readLauncherPlace();
  if (!plan.gridShape.empty() && target != Target::GPU) {
    if (!emitAOT.empty())
      return fail("--emit-aot builds one process; a sharded step runs on "
                  "the CPU under mpiexec: mpiexec -n " +
                  std::to_string(gridSize) + " mem-run " + inputFile);
    if (checkGradients && gridSize > 1)
      return fail("--check-gradients runs one process; check the gradients "
                  "of the step before train-shard partitions it");
  }
  // A GPU binary (--emit-aot) runs under its own launcher. The emulator
  // runs as the CPU does: one process, or one per grid position under
  // mpiexec, its NCCL calls served by MPI (RuntimeSymbols.h).
  if (target == Target::GPU) {
    auto isSplit = [](const GlobalTensor &tensor) {
      return !tensor.split.empty();
    };
    if (llvm::any_of(plan.params, isSplit) ||
        llvm::any_of(plan.arguments, [&](const StepArgument &arg) {
          return isSplit(arg.tensor);
        }))
      llvm::WithColor::warning(llvm::errs(), "mem-run")
          << "the AOT driver fills each process's part of a split tensor "
             "from the part's own indices, not the whole tensor's: a sharded "
             "GPU run trains from other initial values and inputs than one "
             "process of the whole step\n";
    return success();
  }
  if (place.worldSize != gridSize) {
    if (place.rank != 0) {
      // Rank 0 says why.
      llvm::outs().flush();
      return failure();
    }
    std::string shape;
    for (int64_t extent : plan.gridShape)
      shape += (shape.empty() ? "" : "x") + std::to_string(extent);
    if (plan.gridShape.empty())
      return fail("mpiexec started " + std::to_string(place.worldSize) +
                  " processes, but @" + plan.stepName +
                  " has no shard.grid: it runs as one process (partition it "
                  "with train-shard first)");
    return fail("@" + plan.stepName + " runs on a grid of " +
                std::to_string(gridSize) + " processes (" + shape + "), but " +
                std::to_string(place.worldSize) +
                (place.worldSize == 1
                     ? " process was started: run it with mpiexec -n "
                     : " processes were started: run it with mpiexec -n ") +
                std::to_string(gridSize));
  }
  if (plan.gridShape.empty())
    return success();
  ::memopt::runtime::mpiInitialize(nullptr, nullptr);
  worldRank = ::memopt::runtime::mpiWorldRank();
  worldSize = ::memopt::runtime::mpiWorldSize();
  if (worldSize != gridSize)
    return fail("MPI's world has " + std::to_string(worldSize) +
                " processes, but the launcher's environment (" + place.source +
                ") says " + std::to_string(place.worldSize));
  if (worldRank != 0) {
    // Rank 0 prints; the others' output would repeat it.
    int null = open("/dev/null", O_WRONLY);
    if (null >= 0) {
      llvm::outs().flush();
      dup2(null, STDOUT_FILENO);
      close(null);
    }
  }
  return success();
}

/// Adds the entry function and lowers the module for `target`, with the
/// passes timed under `timing`.
static LogicalResult lowerForTarget(ModuleOp module, StepPlan &plan,
                                    Target target, TimingScope &timing) {
  StringRef name = plan.stepName;
  if (failed(addStepEntry(module, plan)))
    return fail("cannot build the entry function of @" + name);
  LowerToGPUOptions options;
  LogicalResult lowered = success();
  if (target != Target::CPU) {
    std::string errors;
    llvm::raw_string_ostream errorStream(errors);
    if (failed(options.parseFromString(gpuOptions, errorStream)))
      lowered = fail("invalid --gpu-options '" + gpuOptions + "': " + errors);
    else if (target == Target::GPU && options.emulate)
      lowered = fail("--gpu-options emulate=true: use --target=gpu-emulator");
  }
  auto configure = [&](PassManager &pm) {
    if (failed(applyPassManagerCLOptions(pm)))
      return failure();
    pm.enableTiming(timing);
    return success();
  };
  if (succeeded(lowered))
    lowered = lowerStep(module, plan, target, &options, configure);
  if (failed(lowered))
    return fail("cannot lower @" + name +
                " to LLVM (see the diagnostic above)");
  return success();
}

/// Validates the combinations of options; fails after printing why.
static FailureOr<Target> checkOptions() {
  if (checkGradients && measurePeak)
    return fail("--check-gradients and --measure-peak cannot be combined");
  if (measurePeak && numSteps == 0)
    return fail("--measure-peak needs at least one step (--steps >= 1)");
  if (!llvm::CodeGenOpt::getLevel(optLevel))
    return fail("--opt-level must be 0, 1, 2 or 3");
  std::optional<Target> parsed = parseTarget(target);
  if (!parsed)
    return fail("--target must be cpu, gpu or gpu-emulator, got '" + target +
                "'");
  if (*parsed == Target::GPUEmulator && !emitAOT.empty())
    return fail("--target=gpu-emulator runs in mem-run only; --emit-aot "
                "builds for cpu or gpu");
  if (*parsed == Target::GPU && emitAOT.empty())
    return fail("--target=gpu needs --emit-aot: mem-run runs steps on the "
                "CPU only; build a GPU binary with scripts/aot-build.sh, or "
                "run the GPU kernels on the CPU with --target=gpu-emulator");
  if (pipelineStage < -1)
    return fail("--pipeline-stage must be a stage index (0 or more), got " +
                std::to_string(pipelineStage));
  if (pipelineStage >= 0 && (*parsed != Target::GPU || emitAOT.empty()))
    return fail("--pipeline-stage selects the stage of a GPU binary "
                "(--target=gpu --emit-aot); a run under mpiexec runs the "
                "stage of each process's rank");
  if (!emitAOT.empty() && checkGradients)
    return fail("--emit-aot and --check-gradients cannot be combined");
  if (!emitAOT.empty() && !printStates.empty())
    return fail("--emit-aot and --print-state cannot be combined");
  return *parsed;
}

/// Everything after option parsing; fails after printing why.
static LogicalResult runMain() {
  FailureOr<Target> stepTarget = checkOptions();
  if (failed(stepTarget))
    return failure();
  DialectRegistry registry;
  registerExecutionDialects(registry, *stepTarget);
  MLIRContext context(registry);
  // The JIT and the steps run on this thread; compile-time threading buys
  // little for one step and makes diagnostics interleave.
  context.disableMultithreading();
  // --mlir-timing: where the time goes, from parsing to the last step.
  DefaultTimingManager timingManager;
  applyDefaultTimingManagerCLOptions(timingManager);
  TimingScope timing = timingManager.getRootScope();

  std::string errorMessage;
  std::unique_ptr<llvm::MemoryBuffer> file =
      openInputFile(inputFile, &errorMessage);
  if (!file)
    return fail(errorMessage);
  llvm::SourceMgr sourceMgr;
  sourceMgr.AddNewSourceBuffer(std::move(file), llvm::SMLoc());
  SourceMgrDiagnosticHandler diagnostics(sourceMgr, &context);
  // Registered last, so it sees every diagnostic first.
  ScopedDiagnosticHandler executionDiagnostics(&context,
                                               printExecutionDiagnostic);

  TimingScope parseTiming = timing.nest("parse");
  OwningOpRef<ModuleOp> module = loadModule(sourceMgr, context, registry);
  parseTiming.stop();
  if (!module)
    return failure();
  if (!userPipeline.empty()) {
    TimingScope pipelineTiming = timing.nest("--pipeline");
    if (failed(runUserPipeline(*module)))
      return failure();
  }
  TimingScope prepareTiming = timing.nest("prepare");
  FailureOr<StepPlan> plan = prepareStep(*module, *stepTarget);
  prepareTiming.stop();
  if (failed(plan) || failed(startProcesses(*plan, *stepTarget)))
    return failure();
  if (listInputs) {
    printInputs(*plan);
    return success();
  }
  TimingScope lowerTiming = timing.nest("lower");
  if (failed(checkStepFits(*plan, &context)) ||
      failed(lowerForTarget(*module, *plan, *stepTarget, lowerTiming)))
    return failure();
  lowerTiming.stop();
  if (!emitAOT.empty())
    return writeAotFiles(*module, *plan, emitAOT, numSteps, seed);
  plan->processRank = worldRank;
  return runSteps(*module, *plan, timing);
}

int main(int argc, char **argv) {
  llvm::InitLLVM initLLVM(argc, argv);
  registerAsmPrinterCLOptions();
  registerMLIRContextCLOptions();
  registerPassManagerCLOptions();
  registerDefaultTimingManagerCLOptions();
  registerAllPasses();
  // libLLVM.so registers every backend's options; --help shows mem-run's.
  // MLIR's (--mlir-print-ir-after-all, ...) still work: see --help-hidden.
  cl::HideUnrelatedOptions(memRunCategory);
  cl::ParseCommandLineOptions(
      argc, argv,
      "mem-run: runs a training step on the CPU for N steps and prints its "
      "losses and parameter checksums\n");
  int status = failed(runMain()) ? 1 : 0;
  // A process that failed alone (its own error) ends the run: mpiexec stops
  // the others rather than leaving them waiting in a collective.
  if (status == 0)
    ::memopt::runtime::mpiFinalize();
  llvm::outs().flush();
  return status;
}
