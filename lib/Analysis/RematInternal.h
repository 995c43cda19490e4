//===- RematInternal.h - shared by the remat solver files -------*- C++ -*-===//
//
// Internal to the analysis library: what the checker and greedy solver
// (Remat.cpp), the chain solvers (RematChain.cpp) and the MILP
// (RematMilp.cpp) share.
//
//===----------------------------------------------------------------------===//

#ifndef MEMOPT_LIB_ANALYSIS_REMATINTERNAL_H
#define MEMOPT_LIB_ANALYSIS_REMATINTERNAL_H

#include "memopt/Analysis/Remat.h"

#include <chrono>
#include <cstdint>
#include <limits>

namespace mlir::memopt::detail {

using Clock = std::chrono::steady_clock;
inline constexpr double kInf = std::numeric_limits<double>::infinity();

inline double secondsSince(Clock::time_point start) {
  return std::chrono::duration<double>(Clock::now() - start).count();
}

/// Fills schedule, cost and peak of `result` from `schedule` after checking
/// it; an Error result when the schedule is invalid or above the budget (a
/// solver bug, reported instead of returned).
void acceptSchedule(const RematGraph &graph, RematSchedule schedule,
                    int64_t budget, RematResult &result);

} // namespace mlir::memopt::detail

#endif // MEMOPT_LIB_ANALYSIS_REMATINTERNAL_H
