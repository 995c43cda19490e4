//===- PipelineStage.cpp - the stage of a pipelined step a process runs ---===//

#include "memopt/Execution/PipelineStage.h"
#include "memopt/Execution/StepPlan.h"

#include "memopt/Dialect/Train/IR/TrainOps.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Shard/IR/ShardOps.h"
#include "llvm/ADT/StringMap.h"

using namespace mlir;
using namespace mlir::memopt;
using namespace mlir::memopt::execution;

FailureOr<PipelineRun>
execution::selectPipelineStage(ModuleOp module, int64_t rank,
                               StringRef requested, std::string &stepName,
                               std::optional<int64_t> chosenStage) {
  PipelineRun run;
  SmallVector<std::pair<int64_t, func::FuncOp>> stages;
  Location loc = getExecutionLoc(module.getContext());
  int64_t axis = 0, size = 0, stride = 1;
  for (auto func : module.getOps<func::FuncOp>()) {
    auto config = func->getAttrOfType<DictionaryAttr>(
        train::TrainDialect::kPipelineAttrName);
    if (!config)
      continue;
    int64_t stage = cast<IntegerAttr>(config.get("stage")).getInt();
    run.stages = cast<IntegerAttr>(config.get("stages")).getInt();
    axis = cast<IntegerAttr>(config.get("axis")).getInt();
    auto grid = module.lookupSymbol<shard::GridOp>(
        cast<FlatSymbolRefAttr>(config.get("grid")).getAttr());
    if (!grid || ShapedType::isDynamicShape(grid.getShape()) ||
        axis >= grid.getRank() || grid.getShape()[axis] != run.stages)
      return emitError(loc) << "@" << func.getSymName()
                            << " is a pipeline stage, but its grid is not a "
                               "static grid with the stages on axis "
                            << axis;
    size = 1;
    for (int64_t extent : grid.getShape())
      size *= extent;
    stride = 1;
    for (int64_t extent : grid.getShape().drop_front(axis + 1))
      stride *= extent;
    stages.push_back({stage, func});
  }
  if (stages.empty())
    return run;
  if (!requested.empty())
    return emitError(loc) << "--func " << requested
                          << ": the module is a pipelined step, whose "
                             "processes each run their own stage";
  if (static_cast<int64_t>(stages.size()) != run.stages)
    return emitError(loc) << "the module holds " << stages.size()
                          << " stages of a pipeline of " << run.stages;
  llvm::sort(stages, [](auto &a, auto &b) { return a.first < b.first; });
  // A process outside the grid (a run of the wrong size) runs stage 0 and
  // is stopped by the size check.
  run.stage = rank < size ? (rank / stride) % run.stages : 0;
  if (chosenStage) {
    if (*chosenStage < 0 || *chosenStage >= run.stages)
      return emitError(loc) << "stage " << *chosenStage
                            << " is not a stage of this pipeline of "
                            << run.stages << " (0 to " << run.stages - 1 << ")";
    run.stage = *chosenStage;
  }
  llvm::StringMap<size_t> index;
  for (auto [stage, func] : stages)
    func.walk([&](train::ParamOp param) {
      auto [it, inserted] =
          index.try_emplace(param.getName(), run.params.size());
      if (!inserted)
        return;
      PipelineRun::Param entry{param.getName().str(),
                               cast<RankedTensorType>(param.getType()),
                               0,
                               {}};
      if (auto split = param->getAttrOfType<DenseI64ArrayAttr>(
              train::TrainDialect::kSplitAttrName))
        entry.split.assign(split.asArrayRef().begin(),
                           split.asArrayRef().end());
      run.params.push_back(std::move(entry));
    });
  for (auto [stage, func] : stages) {
    llvm::StringMap<bool> seen;
    func.walk([&](train::ParamOp param) {
      if (seen.try_emplace(param.getName(), true).second)
        ++run.params[index[param.getName()]].holders;
    });
  }
  for (auto [stage, func] : stages) {
    if (stage == run.stage)
      stepName = func.getSymName().str();
    else
      func.erase();
  }
  return run;
}
