//===- TrainPipeline.cpp - the train-pipeline pass ------------------------===//
//
// Pipeline parallelism: checks that a step can be pipelined, partitions its
// forward pass into stages along its train.layer groups, and replaces the
// step with one program per stage (built by PipelineStages.cpp) on a new
// one-axis grid.
//
//===----------------------------------------------------------------------===//

#include "PipelineInternal.h"

#include "memopt/Dialect/Train/IR/TrainOps.h"
#include "memopt/Transforms/Autodiff.h"
#include "memopt/Transforms/PassOptions.h"
#include "memopt/Transforms/Passes.h"

#include "AutodiffInternal.h"

#include "mlir/Dialect/Shard/IR/ShardOps.h"
#include "mlir/IR/Builders.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"
#include "llvm/ADT/ScopeExit.h"
#include "llvm/ADT/StringMap.h"

namespace mlir::memopt {
#define GEN_PASS_DEF_TRAINPIPELINEPASS
#include "memopt/Transforms/Passes.h.inc"
} // namespace mlir::memopt

using namespace mlir;
using namespace mlir::memopt;
using namespace mlir::memopt::pipeline;

/// The grid train-pipeline adds.
static constexpr StringLiteral kGridName = "grid";

/// The FLOPs of `op` (0 for ops without a cost).
static int64_t getFlops(Operation *op) {
  if (auto cost = dyn_cast<train::CostOpInterface>(op))
    return cost.getFlops();
  return 0;
}

/// The train.layer name of `op`, or empty.
static StringRef getLayer(Operation *op) {
  if (auto layer =
          op->getAttrOfType<StringAttr>(train::TrainDialect::kLayerAttrName))
    return layer.getValue();
  return {};
}

/// Assigns each layer its chunk: from `split` (each chunk's first layer) or
/// balanced by FLOPs.
static LogicalResult assignLayers(func::FuncOp forward, ArrayRef<int64_t> split,
                                  StagePartition &partition) {
  Block &body = forward.getBody().front();
  llvm::StringMap<int64_t> index;
  SmallVector<int64_t> costs;
  int64_t before = 0, after = 0;
  bool seenLayer = false;
  for (Operation &op : body.without_terminator()) {
    StringRef layer = getLayer(&op);
    if (layer.empty()) {
      (seenLayer ? after : before) += getFlops(&op);
      continue;
    }
    seenLayer = true;
    // What ran after a layer and before the next belongs to the run.
    if (after != 0 && !costs.empty())
      costs.back() += after;
    after = 0;
    auto [it, inserted] = index.try_emplace(layer, costs.size());
    if (inserted) {
      partition.layers.push_back(layer.str());
      costs.push_back(0);
    } else if (it->second + 1 != static_cast<int64_t>(costs.size())) {
      return op.emitOpError()
             << "is in layer '" << layer
             << "' after another layer's ops: train-pipeline needs each "
                "train.layer's ops together, in layer order";
    }
    costs[it->second] += getFlops(&op);
  }
  int64_t chunks = partition.getNumChunks();
  int64_t layers = costs.size();
  if (layers < chunks) {
    InFlightDiagnostic diag =
        forward.emitOpError()
        << "has " << layers
        << " train.layer groups, fewer than stages=" << partition.stages;
    if (partition.virtualStages > 1)
      diag << " x virtual=" << partition.virtualStages;
    diag << ": every pipeline stage"
         << (partition.virtualStages > 1 ? "'s model chunk" : "")
         << " needs at least one layer";
    return diag;
  }
  SmallVector<int64_t> firsts;
  if (!split.empty()) {
    for (int64_t first : split)
      if (first >= layers)
        return forward.emitOpError()
               << "has " << layers << " train.layer groups, but split names "
               << "layer " << first;
    firsts.assign(split.begin(), split.end());
  } else {
    firsts = balanceStages(costs, before, after, chunks);
  }
  for (int64_t c = 0; c < chunks; ++c) {
    int64_t end = c + 1 < chunks ? firsts[c + 1] : layers;
    for (int64_t l = firsts[c]; l < end; ++l)
      partition.layerChunk.push_back(c);
  }
  return success();
}

/// The chunks that read each parameter (through replicated ops too): a
/// parameter is held by every stage of them. Fails where two chunks of one
/// stage read a parameter.
static LogicalResult findHolders(Block &body, StagePartition &partition) {
  // The chunks that compute each replicated op: those of its users, and
  // those that compute a replicated user.
  llvm::DenseMap<Operation *, std::set<int64_t>> replicatedIn;
  for (Operation &op : llvm::reverse(body.without_terminator())) {
    if (!partition.replicated.contains(&op))
      continue;
    std::set<int64_t> &chunks = replicatedIn[&op];
    for (Operation *user : op.getUsers()) {
      if (auto it = partition.chunkOf.find(user); it != partition.chunkOf.end())
        chunks.insert(it->second);
      else if (auto in = replicatedIn.find(user); in != replicatedIn.end())
        chunks.insert(in->second.begin(), in->second.end());
    }
  }
  // Each parameter is read by the chunks of its users.
  for (auto param : body.getOps<train::ParamOp>()) {
    partition.paramIndex.try_emplace(param.getName(),
                                     partition.paramIndex.size());
    std::set<int64_t> &chunks = partition.holders[param.getName()];
    for (Operation *user : param->getUsers()) {
      if (auto it = partition.chunkOf.find(user); it != partition.chunkOf.end())
        chunks.insert(it->second);
      else if (auto in = replicatedIn.find(user); in != replicatedIn.end())
        chunks.insert(in->second.begin(), in->second.end());
    }
    // A stage sums a parameter's gradient over its micro-batches in one
    // chunk's order; two chunks of one stage would interleave the sums.
    std::set<int64_t> stages;
    for (int64_t chunk : chunks)
      if (!stages.insert(partition.getStageOfChunk(chunk)).second)
        return param.emitOpError()
               << "is read by two model chunks of stage "
               << partition.getStageOfChunk(chunk)
               << " (virtual=" << partition.virtualStages
               << "): the interleaved schedule needs each parameter read by "
                  "one chunk per stage";
  }
  return success();
}

/// Assigns every forward op a chunk (or marks it replicated), and finds the
/// values that cross each boundary between chunks.
static LogicalResult assignOps(func::FuncOp forward,
                               StagePartition &partition) {
  Block &body = forward.getBody().front();
  auto describeChunk = [&](int64_t chunk) {
    std::string text =
        "stage " + std::to_string(partition.getStageOfChunk(chunk));
    if (partition.virtualStages > 1)
      text += " chunk " + std::to_string(chunk / partition.stages);
    return text;
  };
  llvm::StringMap<int64_t> layerChunk;
  for (auto [name, chunk] :
       llvm::zip_equal(partition.layers, partition.layerChunk))
    layerChunk[name] = chunk;
  Operation *lastLayerOp = nullptr;
  for (Operation &op : body.without_terminator())
    if (!getLayer(&op).empty())
      lastLayerOp = &op;
  int64_t last = partition.getNumChunks() - 1;
  bool afterLayers = false;
  for (Operation &op : body.without_terminator()) {
    if (isa<train::ParamOp>(op))
      continue;
    int64_t operandStage = 0;
    // Ops outside the layers that read only arguments, constants and
    // parameters (position ids, the embedding lookups, the 16-bit copy of
    // a tied embedding, ZeRO's gathers of parameter parts) are computed by
    // each stage that needs them: a stage never receives a weight.
    bool onlyInputs = isPure(&op) || isa<shard::AllGatherOp>(op);
    for (Value operand : op.getOperands()) {
      Operation *def = operand.getDefiningOp();
      if (!def || partition.replicated.contains(def) ||
          isa<train::ParamOp>(def))
        continue;
      onlyInputs = false;
      if (auto it = partition.chunkOf.find(def); it != partition.chunkOf.end())
        operandStage = std::max(operandStage, it->second);
    }
    StringRef layer = getLayer(&op);
    if (onlyInputs && layer.empty()) {
      partition.replicated.insert(&op);
      continue;
    }
    int64_t stage = operandStage;
    if (!layer.empty()) {
      stage = layerChunk.lookup(layer);
      if (operandStage > stage)
        return op.emitOpError()
               << "in layer '" << layer << "' (" << describeChunk(stage)
               << ") reads a value computed on " << describeChunk(operandStage)
               << ": train-pipeline needs a step whose layers run in order";
    } else if (afterLayers) {
      stage = last;
    }
    if (&op == lastLayerOp)
      afterLayers = true;
    partition.chunkOf[&op] = stage;
  }
  partition.loss = body.getTerminator()->getOperand(0);
  Operation *lossOp = partition.loss.getDefiningOp();
  if (!lossOp || !partition.chunkOf.contains(lossOp))
    return forward.emitOpError("its loss does not depend on the layers");
  partition.chunkOf[lossOp] = last;

  if (failed(findHolders(body, partition)))
    return failure();

  // Each value crosses every boundary between its chunk and its last
  // reader's.
  partition.boundary.assign(last, {});
  for (Operation &op : body.without_terminator()) {
    auto it = partition.chunkOf.find(&op);
    if (it == partition.chunkOf.end())
      continue;
    for (Value result : op.getResults()) {
      int64_t lastUse = it->second;
      for (Operation *user : result.getUsers())
        if (auto use = partition.chunkOf.find(user);
            use != partition.chunkOf.end())
          lastUse = std::max(lastUse, use->second);
      for (int64_t b = it->second; b < lastUse; ++b)
        partition.boundary[b].push_back(result);
    }
  }
  for (auto [b, values] : llvm::enumerate(partition.boundary)) {
    if (!values.empty())
      continue;
    int64_t lastLayer = 0;
    for (auto [l, chunk] : llvm::enumerate(partition.layerChunk))
      if (chunk == static_cast<int64_t>(b))
        lastLayer = l;
    return forward.emitOpError()
           << describeChunk(b + 1)
           << " reads nothing that earlier stages compute: the layers "
              "after '"
           << partition.layers[lastLayer] << "' do not depend on those before";
  }
  return success();
}

/// Refuses what train-pipeline does not build yet, and steps it cannot
/// pipeline.
static LogicalResult checkStep(func::FuncOp step) {
  WalkResult walk = step.walk([&](Operation *op) {
    if (isa<train::MicroBatchAdvanceOp>(op)) {
      op->emitOpError("accumulates gradients (train-accumulate-gradients); "
                      "train-pipeline runs its micro-batches itself: pipeline "
                      "the step of one micro-batch");
      return WalkResult::interrupt();
    }
    return WalkResult::advance();
  });
  if (walk.wasInterrupted())
    return failure();
  if (std::optional<train::PrecisionConfig> precision =
          train::getPrecisionConfig(step)) {
    if (precision->lossScaling != train::LossScaling::None)
      return step.emitOpError()
             << "uses loss scaling (train.precision), which train-pipeline "
                "does not support yet (the stages would have to agree on "
                "skipped steps); use bf16-mixed or fp32";
    if (precision->mode == train::PrecisionMode::FP8)
      return step.emitOpError("is fp8 (train.precision), which "
                              "train-pipeline does not support yet");
  }
  return success();
}

namespace {
struct TrainPipelinePass
    : public memopt::impl::TrainPipelinePassBase<TrainPipelinePass> {
  using Base::Base;

  /// The micro-batches per step: `microbatches`, by default `stages`.
  int64_t getMicroBatches() const {
    return microBatches == 0 ? static_cast<int64_t>(stages)
                             : static_cast<int64_t>(microBatches);
  }

  /// Fails through `fail` on options out of range.
  LogicalResult checkOptions(function_ref<LogicalResult(const Twine &)> fail) {
    if (stages < 1 || stages > 65536)
      return fail("train-pipeline: stages must be from 1 to 65536, got " +
                  Twine(stages));
    if (microBatches < 0 || microBatches > (int64_t(1) << 20))
      return fail("train-pipeline: microbatches must be from 1 to 2^20, got " +
                  Twine(microBatches));
    std::optional<PipelineSchedule> parsed = parsePipelineSchedule(schedule);
    if (!parsed)
      return fail("train-pipeline: unknown schedule '" + schedule +
                  "'; expected 1f1b, gpipe, interleaved or zb-h1");
    if (virtualStages < 1 || virtualStages > 1024)
      return fail("train-pipeline: virtual must be from 1 to 1024, got " +
                  Twine(virtualStages));
    if (std::optional<std::string> problem = checkScheduleShape(
            *parsed, stages, getMicroBatches(), virtualStages))
      return fail("train-pipeline: " + *problem);
    for (size_t i = 0; i < onlyStages.size(); ++i) {
      if (onlyStages[i] < 0 || onlyStages[i] >= stages)
        return fail("train-pipeline: only-stages names stage " +
                    Twine(onlyStages[i]) + ", but the stages are 0 to " +
                    Twine(stages - 1));
      if (i > 0 && onlyStages[i] <= onlyStages[i - 1])
        return fail("train-pipeline: only-stages must increase");
    }
    if (split.empty())
      return success();
    if (static_cast<int64_t>(split.size()) != stages * virtualStages) {
      if (virtualStages == 1)
        return fail("train-pipeline: split lists " + Twine(split.size()) +
                    " layers, but there are " + Twine(stages) +
                    " stages: give each stage's first layer");
      return fail("train-pipeline: split lists " + Twine(split.size()) +
                  " layers, but there are " + Twine(stages * virtualStages) +
                  " model chunks (stages x virtual): give each chunk's first "
                  "layer");
    }
    if (split[0] != 0)
      return fail("train-pipeline: split must start at layer 0, got " +
                  Twine(split[0]));
    for (size_t i = 1; i < split.size(); ++i)
      if (split[i] <= split[i - 1])
        return fail("train-pipeline: split must increase: every stage needs "
                    "a layer");
    return success();
  }

  LogicalResult initializeOptions(
      StringRef options,
      function_ref<LogicalResult(const Twine &)> errorHandler) override {
    if (failed(parseOptionsNamingPass(
            "train-pipeline", options, errorHandler,
            [&](StringRef text,
                function_ref<LogicalResult(const Twine &)> handler) {
              return Base::initializeOptions(text, handler);
            })))
      return failure();
    return checkOptions(errorHandler);
  }

  /// The step to pipeline: the module's only whole training step.
  FailureOr<func::FuncOp> findStep(ModuleOp module) {
    func::FuncOp step;
    for (auto func : module.getOps<func::FuncOp>()) {
      if (func.isExternal() || !isTrainingStep(func))
        continue;
      if (step)
        return func.emitOpError("is a second training step; train-pipeline "
                                "pipelines a module's only step");
      step = func;
    }
    if (!step)
      return emitError(module.getLoc())
             << "train-pipeline: the module has no training step (a function "
                "with optimizer updates, as train-autodiff appends them)";
    return step;
  }

  /// Builds the stages (all, or `only-stages`) of `step` into `module`
  /// after it, in stage order; between all stages, numbers and checks their
  /// transfers. Erases what it built when it fails.
  LogicalResult buildStages(ModuleOp module, func::FuncOp step,
                            func::FuncOp forward,
                            const StagePartition &partition,
                            const StageOptions &options) {
    SmallVector<func::FuncOp> stageFuncs;
    for (int64_t s = 0; s < stages; ++s) {
      if (!onlyStages.empty() && !llvm::is_contained(onlyStages, s))
        continue;
      FailureOr<func::FuncOp> stage =
          buildStage(forward, partition, s, options);
      if (failed(stage)) {
        for (func::FuncOp built : stageFuncs)
          built.erase();
        return failure();
      }
      // After the step, in stage order.
      Operation *after = stageFuncs.empty() ? step.getOperation()
                                            : stageFuncs.back().getOperation();
      module.getBody()->getOperations().insert(
          std::next(Block::iterator(after)), stage->getOperation());
      stageFuncs.push_back(*stage);
    }
    // The transfers are numbered and checked between all stages only.
    std::optional<std::string> problem;
    if (onlyStages.empty()) {
      numberMessagesInSendOrder(stageFuncs);
      SmallVector<StageExchanges> exchanges;
      for (func::FuncOp stage : stageFuncs)
        exchanges.push_back(collectExchanges(stage));
      problem = checkExchanges(exchanges);
    }
    if (problem) {
      for (func::FuncOp built : stageFuncs)
        built.erase();
      return step.emitOpError()
             << "cannot be pipelined: the stages' transfers do not complete ("
             << *problem << ")";
    }
    return success();
  }

  LogicalResult run(ModuleOp module) {
    // Checked again for a pass built from TrainPipelinePassOptions.
    if (failed(checkOptions([&](const Twine &message) -> LogicalResult {
          return emitError(module.getLoc()) << message;
        })))
      return failure();
    if (stages == 1)
      return success();
    for (auto func : module.getOps<func::FuncOp>())
      if (func->hasAttr(train::TrainDialect::kPipelineAttrName))
        return func.emitOpError("is already a pipeline stage "
                                "(train.pipeline); apply train-pipeline once");
    FailureOr<func::FuncOp> step = findStep(module);
    if (failed(step) || failed(checkStep(*step)))
      return failure();
    // A step train-shard partitioned keeps its grid's axes; the stages are
    // a new last axis.
    shard::GridOp grid;
    SmallVector<int64_t> shape;
    if (auto config = (*step)->getAttrOfType<DictionaryAttr>(
            train::TrainDialect::kShardAttrName)) {
      auto name = dyn_cast_or_null<FlatSymbolRefAttr>(config.get("grid"));
      grid = name ? module.lookupSymbol<shard::GridOp>(name.getAttr())
                  : shard::GridOp();
      if (!grid || ShapedType::isDynamicShape(grid.getShape()))
        return step->emitOpError("is partitioned by train-shard, but its "
                                 "grid is not a static shard.grid");
      shape.assign(grid.getShape().begin(), grid.getShape().end());
    } else if (module.lookupSymbol(kGridName)) {
      return emitError(module.getLoc())
             << "train-pipeline: the module already has a symbol @" << kGridName
             << " (apply train-pipeline once)";
    }
    FailureOr<AutodiffOptions> autodiff = inferAutodiffOptions(*step);
    if (failed(autodiff))
      return failure();
    if (autodiff->optimizer == AutodiffOptimizer::None)
      return step->emitOpError("returns gradients (optimizer=none); "
                               "train-pipeline needs a step with optimizer "
                               "updates");
    auto forward = cast<func::FuncOp>((*step)->clone());
    llvm::scope_exit eraseForward([&] { forward->erase(); });
    eraseBackward(forward);
    FailureOr<bool> derived = isDerivedFrom(*step, forward, *autodiff);
    if (failed(derived))
      return failure();
    if (!*derived)
      return step->emitOpError()
             << "is not the step train-autodiff derives from its forward "
                "pass (another pass, such as train-lifetimes or train-remat, "
                "or a hand edit changed it); apply train-pipeline to the step "
                "train-autodiff produced, before other passes";
    if (forward.getNumResults() != 1)
      return step->emitOpError()
             << "returns " << forward.getNumResults()
             << " values besides gradients; train-pipeline pipelines a step "
                "that returns only its loss";

    StagePartition partition;
    partition.stages = stages;
    partition.virtualStages = virtualStages;
    if (failed(assignLayers(forward, split, partition)) ||
        failed(assignOps(forward, partition)))
      return failure();
    partition.active = autodiff::getActiveValues(
        llvm::to_vector(
            llvm::map_range(forward.getBody().front().without_terminator(),
                            [](Operation &op) { return &op; })),
        {}, partition.loss);

    StageOptions options;
    options.schedule = *parsePipelineSchedule(schedule);
    options.microBatches = getMicroBatches();
    options.virtualStages = virtualStages;
    if (auto config = (*step)->getAttrOfType<DictionaryAttr>(
            train::TrainDialect::kShardAttrName))
      if (auto zero = dyn_cast_or_null<IntegerAttr>(config.get("zero")))
        options.zero = zero.getInt();
    options.autodiff = *autodiff;
    options.precision = train::getPrecisionConfig(*step);
    options.stepName = step->getSymName().str();
    options.axis = shape.size();
    options.gridName = grid ? grid.getSymName().str() : kGridName.str();
    if (failed(buildStages(module, *step, forward, partition, options)))
      return failure();
    OpBuilder builder(module.getBodyRegion());
    if (grid)
      builder.setInsertionPoint(grid);
    shape.push_back(stages);
    shard::GridOp::create(builder, grid ? grid.getLoc() : step->getLoc(),
                          options.gridName, shape);
    if (grid)
      grid.erase();
    step->erase();
    return success();
  }

  void runOnOperation() override {
    if (failed(run(getOperation())))
      signalPassFailure();
  }
};
} // namespace
