//===- MemoryPlan.h - static offsets for buffers of known lifetime -*- C++ -*-//
//
// The static memory planner: given buffers with known lifetimes (half-open
// intervals of program points) and sizes, assigns every buffer a fixed offset
// in one arena so that no two buffers live at the same time overlap in memory.
// LOAD (the maximum over program points of the live bytes) is the lower bound
// of any such plan; the planner aims at it. Pure C++, no MLIR IR types, so the
// planner can be driven by the liveness analysis, the mem-plan tool and tests
// alike. docs/mem-plan.md describes the algorithm.
//
//===----------------------------------------------------------------------===//

#ifndef MEMOPT_ANALYSIS_MEMORYPLAN_H
#define MEMOPT_ANALYSIS_MEMORYPLAN_H

#include "llvm/ADT/ArrayRef.h"
#include "llvm/Support/Error.h"

#include <chrono>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace mlir::memopt {

/// One buffer: live over the half-open interval [lower, upper) of program
/// points, `size` bytes. A buffer defined at op d and last used at op u is
/// live over [d, u + 1); an op's workspace over [i, i + 1).
struct PlanBuffer {
  int64_t lower = 0;
  int64_t upper = 0;
  int64_t size = 0;
};

/// How hard and how finely to plan.
struct MemoryPlanOptions {
  /// Every offset is a multiple of this; sizes are rounded up to it for
  /// placement. Must be a positive power of two.
  int64_t alignment = 256;
  /// Work units of the improvement phase (one unit per buffer placed or per
  /// placed buffer examined while placing another); the phase stops when they
  /// are spent, so results do not depend on the machine. 0 = the greedy
  /// portfolio only.
  int64_t searchBudget = 2'000'000;
  /// Work units of the exact search (one unit per candidate examined, per
  /// buffer placed and per neighbour whose floor it raises), shared among
  /// the components small enough for it, smallest first. Deterministic like
  /// searchBudget. 0 = no exact search.
  int64_t exactBudget = 20'000'000;
  /// An optional safety cap on the searches, wall-clock seconds; 0 or less
  /// (the default): none, so the budgets alone bound the work and the plan
  /// never depends on the machine's speed or load. When it does trigger, the
  /// best plan so far is returned.
  double timeLimitSeconds = 0.0;
};

/// The result of planning.
struct MemoryPlan {
  /// One offset per input buffer, in input order.
  std::vector<int64_t> offsets;
  /// Max over buffers of offset + aligned size (0 if there are no buffers).
  int64_t arenaBytes = 0;
  /// LOAD of the aligned sizes: the lower bound the planner aims at.
  int64_t loadBytes = 0;
  /// Which portfolio member or phase produced the result: "trivial",
  /// "greedy-size", "greedy-length", "greedy-area", "greedy-lower",
  /// "sweep-length", "sweep-size", "search" or "exact".
  std::string strategy;
  /// True when arenaBytes == loadBytes or an exhaustive search proved that no
  /// smaller arena exists.
  bool provedOptimal = false;
};

/// Plans `buffers`. Fails for invalid input: a negative size, an empty
/// lifetime (lower >= upper), an alignment that is not a positive power of
/// two, or sizes whose aligned sum overflows int64_t. Deterministic: the same
/// buffers and options give the same offsets.
llvm::Expected<MemoryPlan> planMemory(llvm::ArrayRef<PlanBuffer> buffers,
                                      const MemoryPlanOptions &options = {});

/// LOAD: the maximum over program points of the sum of the sizes (each rounded
/// up to `alignment`) of the buffers live there. O(n log n). The caller
/// guarantees that the aligned sizes do not overflow (planMemory checks it).
int64_t computeLoad(llvm::ArrayRef<PlanBuffer> buffers, int64_t alignment = 1);

/// Checks a plan independently of the planner: one offset per buffer, every
/// offset a non-negative multiple of `alignment`, offset + aligned size <=
/// arenaBytes, and no two buffers with overlapping lifetimes overlapping in
/// memory (zero-size buffers never conflict). The error names the first
/// conflict found (indices, lifetimes, byte ranges). O(n log n): a sweep over
/// time with an ordered set of the live byte ranges.
llvm::Error verifyMemoryPlan(llvm::ArrayRef<PlanBuffer> buffers,
                             llvm::ArrayRef<int64_t> offsets,
                             int64_t arenaBytes, int64_t alignment = 1);

/// The baseline (TFLite's and XLA's greedy by size): buffers in one order
/// (size descending; ties by longer lifetime, then index), each placed at the
/// start of the smallest gap that fits it among the already placed buffers
/// whose lifetimes overlap its own, else on top of them. Also a member of
/// planMemory's portfolio. The input must be valid (see planMemory); the
/// strategy is "greedy-size".
MemoryPlan planGreedyBySize(llvm::ArrayRef<PlanBuffer> buffers,
                            int64_t alignment);

/// planGreedyBySize with a wall-clock cap: gives up, returning std::nullopt,
/// once `deadline` has passed (checked before the first placement and every
/// 4096 after). `placed` receives the number of buffers placed. A
/// placement's cost grows with how fragmented the bytes live during its
/// lifetime are, so the baseline is quadratic on large fragmented inputs
/// (about 3 minutes for a million buffers of a training step).
std::optional<MemoryPlan>
planGreedyBySize(llvm::ArrayRef<PlanBuffer> buffers, int64_t alignment,
                 std::chrono::steady_clock::time_point deadline,
                 size_t &placed);

/// Checks the input as planMemory does; success for a valid one.
llvm::Error validatePlanInput(llvm::ArrayRef<PlanBuffer> buffers,
                              int64_t alignment);

} // namespace mlir::memopt

#endif // MEMOPT_ANALYSIS_MEMORYPLAN_H
