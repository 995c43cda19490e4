//===- PipelineReport.cpp - the memory report of a pipelined step ---------===//
//
// A step that train-pipeline split into stages is one function per stage,
// each the program of one process: the report analyses every stage, reports
// on one (the highest peak, or the one `function=` names) and lists them all
// in its pipeline section (docs/report.md, "Pipeline stages"). The stages'
// train.p2p sends are also the communication section's `p2p` row.
//
//===----------------------------------------------------------------------===//

#include "memopt/Report/MemoryReport.h"

#include "memopt/Analysis/PipelineSchedule.h"
#include "memopt/Dialect/Train/IR/TrainOps.h"

#include "mlir/Dialect/Shard/IR/ShardOps.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/SymbolTable.h"
#include "llvm/ADT/STLExtras.h"

#include <algorithm>
#include <vector>

using namespace mlir;
using namespace mlir::memopt;

namespace {
/// What train-pipeline records on a stage (`train.pipeline`).
struct StageRecord {
  int64_t stage = 0;
  int64_t stages = 0;
  int64_t microBatches = 0;
  StringRef schedule;
  StringRef step;
  SmallVector<std::string> layers;
  /// Model chunks per stage (`virtual`, 1 when absent) and each chunk's
  /// layers (`chunks`; when absent, one chunk of all `layers`).
  int64_t virtualStages = 1;
  std::vector<std::vector<std::string>> chunks;
};
} // namespace

static DictionaryAttr getPipelineAttr(FunctionOpInterface func) {
  return func->getAttrOfType<DictionaryAttr>(
      train::TrainDialect::kPipelineAttrName);
}

/// Reads `train.pipeline` on `func`; a diagnostic at `func` when a key is
/// missing or of the wrong type, or a number is out of range.
static FailureOr<StageRecord> readStageRecord(FunctionOpInterface func) {
  DictionaryAttr config = getPipelineAttr(func);
  auto malformed = [&](StringRef key, StringRef expected) {
    return func->emitOpError()
           << "has a malformed " << train::TrainDialect::kPipelineAttrName
           << ": '" << key << "' must be " << expected;
  };
  StageRecord record;
  for (auto [key, value] :
       {std::pair{"stage", &record.stage}, std::pair{"stages", &record.stages},
        std::pair{"microbatches", &record.microBatches}}) {
    auto attr = dyn_cast_or_null<IntegerAttr>(config.get(key));
    if (!attr)
      return malformed(key, "an integer");
    *value = attr.getInt();
  }
  if (record.stages < 1 || record.microBatches < 1)
    return malformed(record.stages < 1 ? "stages" : "microbatches",
                     "at least 1");
  if (record.stage < 0 || record.stage >= record.stages)
    return malformed("stage", "in [0, stages)");
  auto schedule = dyn_cast_or_null<StringAttr>(config.get("schedule"));
  if (!schedule || !parsePipelineSchedule(schedule.getValue()))
    return malformed("schedule",
                     "\"1f1b\", \"gpipe\", \"interleaved\" or \"zb-h1\"");
  record.schedule = schedule.getValue();
  auto step = dyn_cast_or_null<StringAttr>(config.get("step"));
  if (!step)
    return malformed("step", "a string");
  record.step = step.getValue();
  auto layers = dyn_cast_or_null<ArrayAttr>(config.get("layers"));
  if (!layers)
    return malformed("layers", "an array of strings");
  for (Attribute layer : layers) {
    auto name = dyn_cast<StringAttr>(layer);
    if (!name)
      return malformed("layers", "an array of strings");
    record.layers.push_back(name.str());
  }
  if (Attribute attr = config.get("virtual")) {
    auto chunks = dyn_cast<IntegerAttr>(attr);
    if (!chunks || chunks.getInt() < 1 || chunks.getInt() > 1024)
      return malformed("virtual", "an integer from 1 to 1024");
    record.virtualStages = chunks.getInt();
  }
  if (std::optional<std::string> problem = checkScheduleShape(
          *parsePipelineSchedule(record.schedule), record.stages,
          record.microBatches, record.virtualStages))
    return func->emitOpError()
           << "has a malformed " << train::TrainDialect::kPipelineAttrName
           << ": " << *problem;
  auto chunks = dyn_cast_or_null<ArrayAttr>(config.get("chunks"));
  if (!chunks) {
    if (config.get("chunks") || record.virtualStages != 1)
      return malformed("chunks", "an array of `virtual` arrays of strings");
    record.chunks.emplace_back(record.layers.begin(), record.layers.end());
    return record;
  }
  for (Attribute chunk : chunks) {
    auto names = dyn_cast<ArrayAttr>(chunk);
    if (!names)
      return malformed("chunks", "an array of `virtual` arrays of strings");
    std::vector<std::string> &layers = record.chunks.emplace_back();
    for (Attribute layer : names) {
      auto name = dyn_cast<StringAttr>(layer);
      if (!name)
        return malformed("chunks", "an array of `virtual` arrays of strings");
      layers.push_back(name.str());
    }
  }
  if (static_cast<int64_t>(record.chunks.size()) != record.virtualStages)
    return malformed("chunks", "an array of `virtual` arrays of strings");
  return record;
}

FailureOr<SmallVector<FunctionOpInterface>>
mlir::memopt::findPipelineStages(ModuleOp module, FunctionOpInterface of) {
  SmallVector<FunctionOpInterface> all;
  for (auto func : module.getOps<FunctionOpInterface>())
    if (getPipelineAttr(func))
      all.push_back(func);
  if (all.empty() || (of && !getPipelineAttr(of)))
    return SmallVector<FunctionOpInterface>();
  std::vector<StageRecord> records;
  for (FunctionOpInterface func : all) {
    FailureOr<StageRecord> record = readStageRecord(func);
    if (failed(record))
      return failure();
    records.push_back(std::move(*record));
  }
  // The step whose stages to return: `of`'s, else the only one.
  StringRef step = records.front().step;
  if (of) {
    step = records[llvm::find(all, of) - all.begin()].step;
  } else if (auto other = llvm::find_if(
                 records, [&](const StageRecord &r) { return r.step != step; });
             other != records.end()) {
    return emitError(module.getLoc())
           << "the module holds the pipeline stages of two steps, '" << step
           << "' and '" << other->step
           << "'; choose the stage to report on with function=NAME";
  }
  std::optional<size_t> first;
  SmallVector<FunctionOpInterface> stages;
  for (size_t i = 0; i < all.size(); ++i) {
    const StageRecord &record = records[i];
    if (record.step != step)
      continue;
    if (!first) {
      first = i;
      stages.assign(record.stages, nullptr);
    }
    const StageRecord &reference = records[*first];
    if (record.stages != reference.stages ||
        record.microBatches != reference.microBatches ||
        record.schedule != reference.schedule ||
        record.virtualStages != reference.virtualStages)
      return all[i]->emitOpError()
             << "is a pipeline stage of step '" << step
             << "' whose stages, micro-batches or schedule differ from @"
             << SymbolTable::getSymbolName(all[*first]).getValue() << "'s"
             << " (train.pipeline)";
    if (stages[record.stage])
      return all[i]->emitOpError()
             << "is stage " << record.stage << " of step '" << step
             << "', as is @"
             << SymbolTable::getSymbolName(stages[record.stage]).getValue();
    stages[record.stage] = all[i];
  }
  // train-pipeline's only-stages builds some stages of a long pipeline:
  // the report covers those.
  llvm::erase(stages, nullptr);
  return stages;
}

/// The bytes of the tensors `func` sends with train.p2p, and how many.
static std::pair<int64_t, int64_t> getSentBytes(FunctionOpInterface func) {
  int64_t bytes = 0, count = 0;
  func->walk([&](train::P2POp op) {
    for (Value sent : op.getSends()) {
      bytes += train::getTensorBytes(sent.getType());
      ++count;
    }
  });
  return {bytes, count};
}

LogicalResult MemoryReport::collectPointToPoint(FunctionOpInterface func,
                                                Communication &result) {
  DictionaryAttr config = getPipelineAttr(func);
  if (!config) {
    WalkResult walk = func->walk([](train::P2POp op) {
      op.emitOpError("is not in a pipeline stage (its function has no "
                     "train.pipeline); the report counts the point-to-point "
                     "traffic of train-pipeline's stages only");
      return WalkResult::interrupt();
    });
    return failure(walk.wasInterrupted());
  }
  auto [bytes, count] = getSentBytes(func);
  auto gridAttr = dyn_cast_or_null<FlatSymbolRefAttr>(config.get("grid"));
  auto axis = dyn_cast_or_null<IntegerAttr>(config.get("axis"));
  auto stage = dyn_cast_or_null<IntegerAttr>(config.get("stage"));
  auto grid = gridAttr ? SymbolTable::lookupNearestSymbolFrom<shard::GridOp>(
                             func, gridAttr.getAttr())
                       : shard::GridOp();
  if (!grid || ShapedType::isDynamicShape(grid.getShape()) || !axis || !stage ||
      axis.getInt() < 0 || axis.getInt() >= grid.getRank())
    return func->emitOpError()
           << "is a pipeline stage without a shard.grid of static shape and "
              "an axis of it in train.pipeline; the report counts "
              "communication on static grids only";
  if (!result.grid.empty() && result.grid != grid.getSymName())
    return func->emitOpError()
           << "is a pipeline stage on grid @" << grid.getSymName()
           << ", but its collectives are on @" << result.grid
           << "; the report counts one grid";
  result.grid = grid.getSymName().str();
  result.gridShape.assign(grid.getShape().begin(), grid.getShape().end());
  result.pipelineStage = stage.getInt();
  if (count == 0)
    return success();
  // A message goes from one process to one other: a group of 2, each
  // tensor sent once.
  result.collectives.push_back({"p2p", "pp", 2, count, bytes, bytes});
  result.totalSentBytes += bytes;
  return success();
}

/// The row of the pipeline section for a stage whose report is `report`.
static PipelineStageSummary summarizeStage(const MemoryReport &report,
                                           FunctionOpInterface func,
                                           const StageRecord &record,
                                           PipelineSchedule schedule) {
  PipelineStageSummary row;
  row.stage = record.stage;
  row.function = report.getFunctionName().str();
  row.layers = record.layers;
  row.chunks = record.chunks;
  row.microBatchesInFlight = getMicroBatchesInFlight(
      getStageSchedule(schedule, record.stages, record.stage,
                       record.microBatches, record.virtualStages));
  row.peakBytes = report.getPeakBytes();
  const TensorLiveness &live = report.getLiveness();
  row.byClass = live.getLiveBytesByClass(live.getPeakPoint());
  unsigned activation = static_cast<unsigned>(MemoryClass::Activation);
  for (int64_t point = 0, e = live.getNumPoints(); point < e; ++point)
    row.maxActivationBytes = std::max(
        row.maxActivationBytes, live.getLiveBytesByClass(point)[activation]);
  row.modelStatesBytes = report.getModelStates().getTotalBytes();
  row.peakOpName = report.getPeakOpName().str();
  row.peakLocation = report.getPeakLocation().str();
  row.sentBytes = getSentBytes(func).first;
  return row;
}

FailureOr<MemoryReport>
MemoryReport::createForPipeline(ArrayRef<FunctionOpInterface> stages,
                                FunctionOpInterface chosen) {
  assert(!stages.empty() && "a pipeline has at least one stage");
  PipelineSummary summary;
  summary.chosenByName = static_cast<bool>(chosen);
  FunctionOpInterface reported;
  int64_t reportedPeak = 0;
  for (FunctionOpInterface func : stages) {
    FailureOr<StageRecord> record = readStageRecord(func);
    if (failed(record))
      return failure();
    PipelineSchedule schedule = *parsePipelineSchedule(record->schedule);
    if (summary.stages.empty()) {
      summary.schedule = record->schedule.str();
      summary.numStages = record->stages;
      summary.microBatches = record->microBatches;
      summary.virtualStages = record->virtualStages;
      summary.bubbleFraction =
          getBubbleFraction(schedule, record->stages, record->microBatches,
                            record->virtualStages);
    }
    // The peak needs no arena (it is LOAD, or the arena the IR records):
    // only the reported stage's is planned, below.
    FailureOr<MemoryReport> report = create(func, /*planArena=*/false);
    if (failed(report))
      return failure();
    PipelineStageSummary row = summarizeStage(*report, func, *record, schedule);
    summary.p2pBytes += row.sentBytes;
    bool take =
        chosen ? func == chosen : !reported || row.peakBytes > reportedPeak;
    if (take) {
      summary.reportedStage = row.stage;
      reportedPeak = row.peakBytes;
      reported = func;
    }
    summary.stages.push_back(std::move(row));
  }
  assert(reported && "the chosen function is one of the stages");
  FailureOr<MemoryReport> report = create(reported);
  if (failed(report))
    return failure();
  report->pipeline = std::move(summary);
  return report;
}
