//===- Pipeline.h - memopt-pipeline: memopt's passes in order ---*- C++ -*-===//
//
// The whole optimization pipeline on a training step, as one registered
// pipeline (`--memopt-pipeline='...'`) and as a function another compiler
// calls among its own passes:
//
//   mlir::memopt::PipelineOptions options;
//   options.rematBudget = "40GiB";
//   options.plan = true;
//   mlir::memopt::buildPipeline(pm, options);   // pm anchored on
//   builtin.module
//
//===----------------------------------------------------------------------===//

#ifndef MEMOPT_PIPELINE_PIPELINE_H
#define MEMOPT_PIPELINE_PIPELINE_H

#include "memopt/Report/MemoryReport.h"
#include "memopt/Transforms/Passes.h"
#include "mlir/Pass/PassOptions.h"

namespace mlir {
class OpPassManager;

namespace memopt {

/// Where the pipeline ends: train IR, or lowered to the LLVM dialect for the
/// CPU (memopt-lower-to-cpu) or NVIDIA GPUs (memopt-lower-to-gpu).
enum class PipelineTarget { None, CPU, GPU };

/// Options of memopt-pipeline. The defaults verify the step, reorder it to
/// lower its peak and make its lifetimes explicit, and nothing else.
struct PipelineOptions : public PassPipelineOptions<PipelineOptions> {
  Option<train::PrecisionMode> precision{
      *this, "precision",
      llvm::cl::desc("Lower the fp32 step to this precision first "
                     "(train-precision with its defaults; docs/precision.md)"),
      llvm::cl::init(train::PrecisionMode::FP32),
      llvm::cl::values(
          clEnumValN(train::PrecisionMode::FP32, "fp32", "no change"),
          clEnumValN(train::PrecisionMode::BF16Mixed, "bf16-mixed",
                     "bf16 compute, fp32 master weights"),
          clEnumValN(train::PrecisionMode::FP16Mixed, "fp16-mixed",
                     "fp16 compute, fp32 master weights, loss scaling"),
          clEnumValN(train::PrecisionMode::BF16Pure, "bf16-pure",
                     "bf16 parameters, gradients and states"),
          clEnumValN(train::PrecisionMode::FP8, "fp8",
                     "bf16-mixed with fp8 linear layers"))};
  Option<bool> autodiff{
      *this, "autodiff",
      llvm::cl::desc("Differentiate a forward + loss function into a whole "
                     "step, after train-precision (train-autodiff; "
                     "docs/autodiff.md)"),
      llvm::cl::init(false)};
  Option<AutodiffOptimizer> optimizer{
      *this, "optimizer",
      llvm::cl::desc("The update autodiff appends per parameter"),
      llvm::cl::init(AutodiffOptimizer::Adam),
      llvm::cl::values(clEnumValN(AutodiffOptimizer::Adam, "adam", "Adam"),
                       clEnumValN(AutodiffOptimizer::AdamW, "adamw",
                                  "Adam with decoupled weight decay"),
                       clEnumValN(AutodiffOptimizer::Adam8bit, "adam8bit",
                                  "Adam with 8-bit block-wise states for "
                                  "parameters of 4096 elements or more"),
                       clEnumValN(AutodiffOptimizer::AdamW8bit, "adamw8bit",
                                  "AdamW with 8-bit block-wise states for "
                                  "parameters of 4096 elements or more"),
                       clEnumValN(AutodiffOptimizer::Sgd, "sgd", "SGD"),
                       clEnumValN(AutodiffOptimizer::None, "none",
                                  "return the parameter gradients"))};
  Option<int64_t> tp{
      *this, "tp",
      llvm::cl::desc("Partition the step for tensor parallelism over this "
                     "many processes (train-shard; docs/sharding.md)"),
      llvm::cl::init(1)};
  Option<int64_t> dp{
      *this, "dp",
      llvm::cl::desc("Partition the step for data parallelism over this many "
                     "processes (train-shard)"),
      llvm::cl::init(1)};
  Option<int64_t> zero{
      *this, "zero",
      llvm::cl::desc("ZeRO stage 0 to 3 over the data-parallel processes "
                     "(train-shard)"),
      llvm::cl::init(0)};
  Option<bool> sequenceParallel{
      *this, "sequence-parallel",
      llvm::cl::desc("Sequence parallelism over the tensor-parallel "
                     "processes (train-shard)"),
      llvm::cl::init(false)};
  Option<bool> vocabParallel{
      *this, "vocab-parallel",
      llvm::cl::desc("Split the LM head, its cross-entropy and the "
                     "vocabulary's embedding over the tensor-parallel "
                     "processes (train-shard)"),
      llvm::cl::init(true)};
  Option<int64_t> microBatches{
      *this, "micro-batches",
      llvm::cl::desc("Above 1: make the (partitioned) step one of this many "
                     "micro-batches of an optimizer step, accumulating their "
                     "gradients (train-accumulate-gradients; "
                     "docs/autoplan.md)"),
      llvm::cl::init(1)};
  Option<int64_t> pp{
      *this, "pp",
      llvm::cl::desc("Above 1: pipeline the (partitioned) step over this many "
                     "stages with the 1F1B schedule and micro-batches "
                     "micro-batches (train-pipeline; docs/pipeline.md)"),
      llvm::cl::init(1)};
  Option<bool> schedule{
      *this, "schedule",
      llvm::cl::desc("Reorder the step's ops to lower its peak, results "
                     "unchanged (train-schedule; docs/schedule.md)"),
      llvm::cl::init(true)};
  Option<bool> lifetimes{
      *this, "lifetimes",
      llvm::cl::desc("Insert train.free after each tensor's last use "
                     "(train-lifetimes)"),
      llvm::cl::init(true)};
  Option<std::string> rematBudget{
      *this, "remat-budget",
      llvm::cl::desc("Rematerialize to fit this peak (train-remat budget: "
                     "bytes with an optional unit such as 40GiB); empty: no "
                     "remat unless remat-algorithm names one"),
      llvm::cl::init("")};
  Option<RematAlgorithm> rematAlgorithm{
      *this, "remat-algorithm",
      llvm::cl::desc("train-remat's algorithm (docs/remat.md)"),
      llvm::cl::init(RematAlgorithm::Auto),
      llvm::cl::values(
          clEnumValN(RematAlgorithm::Auto, "auto",
                     "none if it fits, else the cheapest candidate that does"),
          clEnumValN(RematAlgorithm::None, "none", "keep every activation"),
          clEnumValN(RematAlgorithm::Layers, "layers",
                     "keep the layer boundaries"),
          clEnumValN(RematAlgorithm::Sqrt, "sqrt",
                     "keep every ceil(sqrt(n))-th activation"),
          clEnumValN(RematAlgorithm::Selective, "selective",
                     "recompute the attention scores"),
          clEnumValN(RematAlgorithm::Greedy, "greedy",
                     "drop the cheapest activations live at the peak"),
          clEnumValN(RematAlgorithm::Optimal, "optimal",
                     "Checkmate's MILP over groups of ops"),
          clEnumValN(RematAlgorithm::Chain, "chain",
                     "the rotor DP over a chain of layers"))};
  Option<bool> plan{*this, "plan",
                    llvm::cl::desc("Plan the static arena (train-plan-memory) "
                                   "and check it (train-verify-plan)"),
                    llvm::cl::init(false)};
  Option<bool> report{
      *this, "report",
      llvm::cl::desc("Write the memory report (train-memory-report) of the "
                     "optimized step"),
      llvm::cl::init(false)};
  Option<ReportFormat> reportFormat{
      *this, "report-format", llvm::cl::desc("The report's format"),
      llvm::cl::init(ReportFormat::Text),
      llvm::cl::values(
          clEnumValN(ReportFormat::Text, "text", "a summary table"),
          clEnumValN(ReportFormat::JSON, "json", "the whole report"),
          clEnumValN(ReportFormat::HTML, "html",
                     "a self-contained page with an SVG timeline"),
          clEnumValN(ReportFormat::Trace, "trace",
                     "Chrome/Perfetto trace JSON"))};
  Option<std::string> reportOutput{
      *this, "report-output",
      llvm::cl::desc("File to write the report to (default or '-': stdout)"),
      llvm::cl::init("")};
  Option<PipelineTarget> target{
      *this, "target", llvm::cl::desc("Lower the optimized step"),
      llvm::cl::init(PipelineTarget::None),
      llvm::cl::values(
          clEnumValN(PipelineTarget::None, "none", "keep the train IR"),
          clEnumValN(PipelineTarget::CPU, "cpu",
                     "convert-train-to-linalg, then memopt-lower-to-cpu"),
          clEnumValN(PipelineTarget::GPU, "gpu",
                     "convert-train-to-linalg, then memopt-lower-to-gpu with "
                     "its defaults (sm_90)"))};

  /// Not options of the registered pipeline (mem-autoplan sets them): with
  /// pp above 1, train-pipeline's schedule (its name), virtual, split and
  /// only-stages.
  std::string pipelineSchedule = "1f1b";
  int64_t pipelineVirtualStages = 1;
  SmallVector<int64_t> pipelineSplit;
  SmallVector<int64_t> pipelineOnlyStages;
  /// Also not registered (mem-autoplan sets them): the optimizer on the
  /// host (train-offload{optimizer=host}, after train-shard), and
  /// train-remat's activation offload with the device profile (name or
  /// path) of its cost model.
  bool offloadOptimizer = false;
  /// train-offload's `params` with offloadOptimizer: device or micro-batch.
  std::string offloadParams = "device";
  bool rematOffload = false;
  std::string rematDevice = "h100-sxm";
};

/// Adds memopt-pipeline to `pm` (anchored on builtin.module):
/// train-precision (when asked); train-autodiff (when asked); train-shard
/// (when tp, dp, zero or sequence-parallel ask for it); train-pipeline (when
/// pp > 1), else train-accumulate-gradients (when micro-batches > 1); then
/// train-offload (when offloadOptimizer: on each stage, or on the step with
/// its accumulation);
/// train-verify-step;
/// train-schedule; train-lifetimes;
/// train-remat (when a budget or an algorithm other than auto is given);
/// train-plan-memory and train-verify-plan; train-memory-report; then the
/// lowering of `target`. The train passes run on every func.func of the module.
void buildPipeline(OpPassManager &pm, const PipelineOptions &options);

/// Registers `memopt-pipeline`.
void registerPipeline();

} // namespace memopt
} // namespace mlir

#endif // MEMOPT_PIPELINE_PIPELINE_H
