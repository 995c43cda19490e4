//===- MemoryReport.cpp - the memory report of a training step ------------===//
//
// The report model: the numbers of one training step, collected from the
// TensorLiveness analysis and from what passes recorded in the IR. The
// formats are printed by the writers (ReportWriters.h).
//
//===----------------------------------------------------------------------===//

#include "memopt/Report/MemoryReport.h"

#include "memopt/Analysis/StepMemoryPlan.h"
#include "memopt/Dialect/Train/IR/TrainOps.h"
#include "memopt/Dialect/Train/IR/TrainStep.h"
#include "memopt/Report/ReportWriters.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/StringMap.h"
#include "llvm/ADT/StringSwitch.h"

#include <algorithm>

using namespace mlir;
using namespace mlir::memopt;

std::optional<ReportFormat> mlir::memopt::parseReportFormat(StringRef name) {
  return llvm::StringSwitch<std::optional<ReportFormat>>(name)
      .Case("text", ReportFormat::Text)
      .Case("json", ReportFormat::JSON)
      .Case("html", ReportFormat::HTML)
      .Case("trace", ReportFormat::Trace)
      .Default(std::nullopt);
}

StringRef mlir::memopt::getReportFormatNames() {
  return "text, json, html, trace";
}

std::string mlir::memopt::formatLocation(Location loc) {
  if (auto name = dyn_cast<NameLoc>(loc))
    return name.getName().str();
  if (auto file = dyn_cast<FileLineColRange>(loc))
    return (file.getFilename().getValue() + ":" + Twine(file.getStartLine()) +
            ":" + Twine(file.getStartColumn()))
        .str();
  if (auto call = dyn_cast<CallSiteLoc>(loc))
    return formatLocation(call.getCallee());
  if (auto fused = dyn_cast<FusedLoc>(loc)) {
    for (Location part : fused.getLocations()) {
      std::string text = formatLocation(part);
      if (text != "unknown")
        return text;
    }
  }
  return "unknown";
}

//===----------------------------------------------------------------------===//
// MemoryReport
//===----------------------------------------------------------------------===//

void MemoryReport::collectRemat(FunctionOpInterface func) {
  auto flops = func->getAttrOfType<IntegerAttr>(
      train::TrainDialect::kRematFlopsAttrName);
  if (!flops)
    return;
  RematSummary summary;
  summary.flops = flops.getInt();
  if (auto before = func->getAttrOfType<IntegerAttr>(
          train::TrainDialect::kRematPeakBeforeAttrName))
    summary.peakBefore = before.getInt();
  if (auto after = func->getAttrOfType<IntegerAttr>(
          train::TrainDialect::kRematPeakAfterAttrName))
    summary.peakAfter = after.getInt();
  func->walk([&](Operation *op) {
    if (!op->hasAttr(train::TrainDialect::kRecomputedAttrName))
      return;
    ++summary.numOps;
    StringRef name = op->getName().getStringRef();
    auto it = llvm::find_if(summary.opsByName, [&](const auto &entry) {
      return entry.first == name;
    });
    if (it == summary.opsByName.end())
      summary.opsByName.push_back({name.str(), 1});
    else
      ++it->second;
  });
  remat = std::move(summary);
}

LogicalResult MemoryReport::collectArena(FunctionOpInterface func) {
  if (auto arena = func->getAttrOfType<IntegerAttr>(
          train::TrainDialect::kArenaBytesAttrName)) {
    // Read, not planned again: the step runs on this plan.
    arenaFromIR = true;
    arenaBytes = arena.getInt();
    if (auto alignment = func->getAttrOfType<IntegerAttr>(
            train::TrainDialect::kPlanAlignmentAttrName))
      planAlignment = alignment.getInt();
    if (auto load = func->getAttrOfType<IntegerAttr>(
            train::TrainDialect::kLoadBytesAttrName))
      planLoadBytes = load.getInt();
    return success();
  }
  StepPlanOptions options;
  llvm::Expected<StepMemoryPlan> plan = planStepMemory(*liveness, options);
  if (!plan)
    return func->emitOpError()
           << "cannot plan an arena: " << llvm::toString(plan.takeError());
  arenaBytes = plan->arenaBytes;
  planAlignment = options.alignment;
  return success();
}

FailureOr<MemoryReport> MemoryReport::create(FunctionOpInterface func) {
  if (func.isExternal())
    return func->emitOpError("has no body; expected a training step");
  Region &body = func.getFunctionBody();
  if (!body.hasOneBlock())
    return func->emitOpError()
           << "is not a training step: its body has "
           << llvm::range_size(body.getBlocks())
           << " blocks, expected one (program order is the schedule)";
  if (failed(train::verifyNotLowered(func, "train-memory-report")))
    return failure();

  MemoryReport report;
  report.functionName = SymbolTable::getSymbolName(func).str();
  report.liveness = std::make_unique<TensorLiveness>(func);
  const TensorLiveness &liveness = *report.liveness;

  // Distinct parameters by name: a tied parameter read twice is one tensor.
  llvm::StringMap<bool> seen;
  func->walk([&](Operation *op) {
    if (auto cost = dyn_cast<train::CostOpInterface>(op))
      report.totalFlops += cost.getFlops();
    auto param = dyn_cast<train::ParamOp>(op);
    if (!param || !seen.try_emplace(param.getName(), true).second)
      return;
    if (auto type = dyn_cast<RankedTensorType>(param.getType());
        type && type.hasStaticShape())
      report.parameterCount += type.getNumElements();
    report.parameterBytes += train::getTensorBytes(param.getType());
  });

  report.collectRemat(func);
  if (failed(report.collectArena(func)))
    return failure();

  int64_t peak = liveness.getPeakPoint();
  Operation *peakOp = liveness.getSchedule()[peak];
  report.peakOpName = peakOp->getName().getStringRef().str();
  report.peakLocation = formatLocation(peakOp->getLoc());

  SmallVector<const Buffer *> live = liveness.getLiveBuffers(peak);
  report.numLiveAtPeak = live.size();
  for (const Buffer *buffer : llvm::make_range(
           live.begin(),
           live.begin() + std::min<size_t>(live.size(), kNumTopTensors))) {
    ReportTensor tensor;
    tensor.buffer = buffer;
    if (Operation *def = buffer->value.getDefiningOp()) {
      tensor.opName = def->getName().getStringRef().str();
      tensor.location = formatLocation(def->getLoc());
    } else {
      tensor.opName = "argument";
      tensor.location = formatLocation(buffer->value.getLoc());
    }
    report.topTensors.push_back(std::move(tensor));
  }
  return report;
}

void MemoryReport::print(raw_ostream &os, ReportFormat format) const {
  switch (format) {
  case ReportFormat::Text:
    return printTextReport(*this, os);
  case ReportFormat::JSON:
    return printJSONReport(*this, os);
  case ReportFormat::HTML:
    return printHTMLReport(*this, os);
  case ReportFormat::Trace:
    return printTraceReport(*this, os);
  }
}
