//===- RunOutput.cpp - what mem-run prints --------------------------------===//

#include "RunOutput.h"

#include "memopt/Execution/Init.h"
#include "memopt/Runtime/MpiCollectives.h"

#include "llvm/Support/Format.h"
#include "llvm/Support/WithColor.h"
#include "llvm/Support/raw_ostream.h"

#include <cmath>

using namespace mlir;
using namespace mlir::memopt;
using namespace mlir::memopt::execution;

void memrun::printStepLine(const StepPlan &plan, unsigned stepNumber,
                           ArrayRef<const GlobalTensor *> states,
                           std::optional<double> loss) {
  llvm::raw_ostream &os = llvm::outs();
  os << "step " << stepNumber << ":";
  bool lossPrinted = false;
  for (auto [index, result] : llvm::enumerate(plan.results)) {
    if (result.type.getRank() != 0)
      continue;
    Type elementType = result.type.getElementType();
    if (!isa<FloatType>(elementType)) {
      os << " result" << index << " = "
         << loadInteger(elementType, result.data);
      continue;
    }
    double value = loadFloat(elementType, result.data);
    if (!lossPrinted && loss)
      value = *loss;
    os << (lossPrinted ? " result" + std::to_string(index) : " loss") << " = "
       << llvm::format("%.9e", value);
    lossPrinted = true;
  }
  for (const GlobalTensor *state : states) {
    Type elementType = state->type.getElementType();
    unsigned bytes = getStorageBytes(elementType);
    os << " " << state->name << " = " << (state->type.getRank() ? "[" : "");
    for (int64_t i = 0, e = state->type.getNumElements(); i < e; ++i) {
      const char *element = state->data + i * bytes;
      os << (i ? ", " : "");
      if (isa<FloatType>(elementType))
        os << llvm::format("%.9e", loadFloat(elementType, element));
      else
        os << loadInteger(elementType, element);
    }
    os << (state->type.getRank() ? "]" : "");
  }
  os << "\n";
}

int64_t memrun::countNonfinite(const GlobalTensor &tensor) {
  Type elementType = tensor.type.getElementType();
  if (!isa<FloatType>(elementType))
    return 0;
  unsigned bytes = getStorageBytes(elementType);
  int64_t count = 0;
  for (int64_t i = 0, e = tensor.type.getNumElements(); i < e; ++i)
    if (!std::isfinite(loadFloat(elementType, tensor.data + i * bytes)))
      ++count;
  return count;
}

void memrun::printPeak(const StepPlan &plan, const StepStats &stats,
                       int64_t worldSize) {
  llvm::raw_ostream &os = llvm::outs();
  os << "measured_peak_bytes: " << stats.peakBytes << "\n";
  os << "predicted_peak_bytes: " << plan.predictedPeak << "\n";
  if (plan.arenaBytes >= 0)
    os << "arena_bytes: " << plan.arenaBytes << "\n";
  if (worldSize > 1) {
    // Every process's, gathered (each runs its own part of the step).
    std::vector<int64_t> measured =
        ::memopt::runtime::mpiGatherInt64(stats.peakBytes);
    std::vector<int64_t> predicted =
        ::memopt::runtime::mpiGatherInt64(plan.predictedPeak);
    std::vector<int64_t> arenas =
        ::memopt::runtime::mpiGatherInt64(plan.arenaBytes);
    for (int64_t rank = 0; rank < worldSize; ++rank) {
      os << "rank " << rank << ": measured_peak_bytes: " << measured[rank]
         << " predicted_peak_bytes: " << predicted[rank];
      // A planned step's peak is its arena (and the buffers it returns).
      if (arenas[rank] >= 0)
        os << " arena_bytes: " << arenas[rank];
      os << "\n";
    }
  }
  // The state and inputs live in globals, not in allocations: their
  // measured bytes are the globals' sizes in the compiled program.
  os << "measured_persistent_bytes: " << plan.measuredPersistent << "\n";
  os << "predicted_persistent_bytes: " << plan.predictedPersistent << "\n";
  os << "measured_input_bytes: " << plan.measuredInputs << "\n";
  os << "predicted_input_bytes: " << plan.predictedInputs << "\n";
  // Host memory (train-offload): its allocations and its globals. Every
  // process prints them when one has host values (a pipeline's stages may
  // differ), so that all take part in the gathers.
  bool anyHost = plan.hasHost;
  if (worldSize > 1)
    anyHost = llvm::is_contained(
        ::memopt::runtime::mpiGatherInt64(plan.hasHost ? 1 : 0), 1);
  if (anyHost) {
    os << "measured_host_peak_bytes: " << stats.hostPeakBytes << "\n";
    os << "predicted_host_peak_bytes: " << plan.predictedHostPeak << "\n";
    // A planned step's host peak is its host arena.
    if (plan.hostArenaBytes >= 0)
      os << "host_arena_bytes: " << plan.hostArenaBytes << "\n";
    if (worldSize > 1) {
      std::vector<int64_t> measured =
          ::memopt::runtime::mpiGatherInt64(stats.hostPeakBytes);
      std::vector<int64_t> predicted =
          ::memopt::runtime::mpiGatherInt64(plan.predictedHostPeak);
      std::vector<int64_t> arenas =
          ::memopt::runtime::mpiGatherInt64(plan.hostArenaBytes);
      for (int64_t rank = 0; rank < worldSize; ++rank) {
        os << "rank " << rank
           << ": measured_host_peak_bytes: " << measured[rank]
           << " predicted_host_peak_bytes: " << predicted[rank];
        if (arenas[rank] >= 0)
          os << " host_arena_bytes: " << arenas[rank];
        os << "\n";
      }
    }
    os << "measured_host_persistent_bytes: " << plan.measuredHostPersistent
       << "\n";
    os << "predicted_host_persistent_bytes: " << plan.predictedHostPersistent
       << "\n";
  }
  if (stats.leakedBytes != 0)
    llvm::WithColor::warning(llvm::errs(), "mem-run")
        << "the last step left " << static_cast<uint64_t>(stats.leakedBytes)
        << " bytes allocated (a leak in the lowered code)\n";
}

bool memrun::printGradientChecks(ArrayRef<ParamGradientCheck> checks) {
  llvm::raw_ostream &os = llvm::outs();
  bool allPassed = true;
  int64_t checkedElements = 0;
  for (const ParamGradientCheck &check : checks) {
    checkedElements += check.samples;
    os << "gradcheck " << check.name << ": " << check.samples
       << " elements, max abs err " << llvm::format("%.3e", check.maxAbsError)
       << ", max rel err " << llvm::format("%.3e", check.maxRelError) << "\n";
    if (!check.worst)
      continue;
    allPassed = false;
    os << "gradcheck " << check.name << "[" << *check.worst << "]: analytic "
       << llvm::format("%.9e", check.worstAnalytic) << " numeric "
       << llvm::format("%.9e", check.worstNumeric) << " (rtol " << check.rtol
       << ", atol " << check.atol << ")\n";
  }
  os << "gradcheck: " << (allPassed ? "passed" : "FAILED") << ", "
     << checks.size() << " parameters, " << checkedElements << " elements\n";
  os.flush();
  return allPassed;
}
