//===- Remat.cpp - rematerialization schedules and solvers ----------------===//
//
// The checker (simulateSchedule) is written from the model in Remat.h alone;
// every solver's schedule is passed through it before it is returned, so a
// solver can only err by missing the optimum, never by returning a schedule
// that breaks the budget.
//
//===----------------------------------------------------------------------===//

#include "memopt/Analysis/Remat.h"
#include "RematInternal.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/Support/FormatVariadic.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <limits>
#include <map>
#include <numeric>
#include <tuple>

using namespace mlir::memopt;
using namespace mlir::memopt::detail;

namespace {
constexpr int64_t kNoEnd = std::numeric_limits<int64_t>::max();
} // namespace

//===----------------------------------------------------------------------===//
// RematGraph and RematSchedule
//===----------------------------------------------------------------------===//

int RematGraph::addNode(double cost, int64_t bytes,
                        llvm::ArrayRef<int> operands, bool persistent,
                        bool output) {
  RematNode node;
  node.cost = persistent ? 0.0 : cost;
  node.bytes = bytes;
  node.operands.assign(operands.begin(), operands.end());
  node.persistent = persistent;
  node.output = output;
  nodes.push_back(std::move(node));
  return size() - 1;
}

int64_t RematGraph::persistentBytes() const {
  int64_t total = 0;
  for (const RematNode &node : nodes)
    if (node.persistent)
      total += node.bytes;
  return total;
}

double RematGraph::baseCost() const {
  double total = 0.0;
  for (const RematNode &node : nodes)
    if (!node.persistent)
      total += node.cost;
  return total;
}

std::string RematGraph::verify() {
  userLists.assign(nodes.size(), {});
  for (auto [i, node] : llvm::enumerate(nodes)) {
    int index = static_cast<int>(i);
    if (node.bytes < 0)
      return llvm::formatv("node {0} has negative bytes", index).str();
    if (!(node.cost >= 0.0) || !std::isfinite(node.cost))
      return llvm::formatv("node {0} has a negative or non-finite cost", index)
          .str();
    if (node.persistent && !node.operands.empty())
      return llvm::formatv("persistent node {0} has operands", index).str();
    if (node.persistent && node.output)
      return llvm::formatv("persistent node {0} is marked output", index).str();
    // Operands are a set: a value used twice is live once.
    llvm::sort(node.operands);
    node.operands.erase(llvm::unique(node.operands), node.operands.end());
    for (int op : node.operands) {
      if (op < 0 || op >= index)
        return llvm::formatv("node {0} has operand {1}, expected an index "
                             "in [0, {0})",
                             index, op)
            .str();
      userLists[op].push_back(index);
    }
  }
  return "";
}

void RematGraph::print(llvm::raw_ostream &os) const {
  for (auto [i, node] : llvm::enumerate(nodes)) {
    os << i << ": cost " << node.cost << " bytes " << node.bytes;
    if (node.persistent)
      os << " persistent";
    if (node.output)
      os << " output";
    if (node.workspace)
      os << " workspace " << node.workspace;
    if (!node.recomputable && !node.persistent)
      os << " fixed";
    os << " operands [";
    llvm::interleaveComma(node.operands, os);
    os << "]\n";
  }
}

RematSchedule RematSchedule::empty(int n) {
  RematSchedule schedule;
  schedule.R.assign(n, std::vector<uint8_t>(n, 0));
  schedule.S.assign(n, std::vector<uint8_t>(n, 0));
  return schedule;
}

int RematSchedule::computeCount(int i) const {
  int count = 0;
  for (const auto &row : R)
    count += row[i] ? 1 : 0;
  return count;
}

void RematSchedule::print(llvm::raw_ostream &os) const {
  for (size_t t = 0; t < R.size(); ++t) {
    os << "stage " << t << ": compute [";
    bool first = true;
    for (size_t i = 0; i < R[t].size(); ++i) {
      if (!R[t][i])
        continue;
      os << (first ? "" : ", ") << i;
      first = false;
    }
    os << "] stored [";
    first = true;
    for (size_t i = 0; i < S[t].size(); ++i) {
      if (!S[t][i])
        continue;
      os << (first ? "" : ", ") << i;
      first = false;
    }
    os << "]";
    first = true;
    for (size_t i = 0; i < restore.size(); ++i) {
      if (restore[i] != static_cast<int>(t))
        continue;
      os << (first ? " restored [" : ", ") << i;
      first = false;
    }
    os << (first ? "\n" : "]\n");
  }
}

//===----------------------------------------------------------------------===//
// simulateSchedule
//===----------------------------------------------------------------------===//

namespace {
/// The error of stage `t` of `sched` if it breaks the model's rules for
/// what a stage computes and stores, or the empty string.
std::string checkStage(const RematGraph &graph, const RematSchedule &sched,
                       int t) {
  int n = graph.size();
  const auto &R = sched.R[t];
  const auto &S = sched.S[t];
  for (int i = 0; i < n; ++i) {
    const RematNode &node = graph.node(i);
    if (node.persistent && (R[i] || S[i]))
      return llvm::formatv("stage {0} computes or stores persistent "
                           "node {1}",
                           t, i)
          .str();
    if (R[i] && i > t)
      return llvm::formatv("stage {0} computes node {1}, a later node", t, i)
          .str();
    if (R[i] && i != t && !node.recomputable)
      return llvm::formatv("stage {0} recomputes node {1}, which is "
                           "not recomputable",
                           t, i)
          .str();
    if (S[i] && t == 0)
      return llvm::formatv("node {0} is stored into stage 0", i).str();
    if (S[i] && t > 0 && !sched.S[t - 1][i] && !sched.R[t - 1][i] &&
        sched.restoreStage(i) != t)
      return llvm::formatv("node {0} is stored into stage {1} but "
                           "neither stored into nor computed in stage "
                           "{2}",
                           i, t, t - 1)
          .str();
    if (t == n - 1 && node.output && !R[i] && !S[i])
      return llvm::formatv("output {0} is not available in the last "
                           "stage",
                           i)
          .str();
  }
  return "";
}

/// The checker. When `overflowOver` is given, also sums over all points the
/// live bytes above it (the greedy solver's measure of how far a schedule is
/// from a budget).
RematSimulation simulate(const RematGraph &graph, const RematSchedule &sched,
                         std::optional<int64_t> overflowOver = std::nullopt,
                         double *overflow = nullptr) {
  RematSimulation sim;
  int n = graph.size();
  auto fail = [&](std::string message) {
    sim.valid = false;
    sim.error = std::move(message);
    return sim;
  };
  if (static_cast<int>(sched.R.size()) != n ||
      static_cast<int>(sched.S.size()) != n)
    return fail("schedule does not have one stage per node");
  if (!sched.restore.empty() && static_cast<int>(sched.restore.size()) != n)
    return fail("schedule does not have one restore entry per node");
  for (int i = 0; i < n; ++i) {
    int restore = sched.restoreStage(i);
    if (restore >= 0 &&
        (restore <= i || restore >= n || graph.node(i).persistent))
      return fail(llvm::formatv("node {0} is restored into stage {1}, which "
                                "does not follow its computation",
                                i, restore)
                      .str());
  }
  for (int t = 0; t < n; ++t)
    if (static_cast<int>(sched.R[t].size()) != n ||
        static_cast<int>(sched.S[t].size()) != n)
      return fail(
          llvm::formatv("stage {0} does not have one entry per node", t).str());

  const int64_t persistent = graph.persistentBytes();
  double cost = 0.0;
  int64_t peak = std::numeric_limits<int64_t>::min();
  sim.stagePeak.assign(n, std::numeric_limits<int64_t>::min());
  double over = 0.0;
  std::vector<int> lastUse(n);
  std::vector<int64_t> delta(n + 1);
  for (int t = 0; t < n; ++t) {
    const auto &R = sched.R[t];
    const auto &S = sched.S[t];
    if (!graph.node(t).persistent && !R[t])
      return fail(
          llvm::formatv("stage {0} does not compute node {0}", t).str());
    if (std::string error = checkStage(graph, sched, t); !error.empty())
      return fail(std::move(error));
    // Operands, last uses and cost.
    std::fill(lastUse.begin(), lastUse.end(), -1);
    for (int k = 0; k <= t; ++k) {
      if (!R[k])
        continue;
      cost += graph.node(k).cost;
      for (int op : graph.node(k).operands) {
        if (graph.node(op).persistent)
          continue;
        if (!R[op] && !S[op])
          return fail(llvm::formatv("stage {0} computes node {1} but its "
                                    "operand {2} is neither computed before "
                                    "it nor stored",
                                    t, k, op)
                          .str());
        lastUse[op] = k;
      }
    }
    // Live intervals over the points of the stage, as a difference array
    // over node indices: value i is live at points [start, end].
    std::fill(delta.begin(), delta.end(), 0);
    for (int i = 0; i < n; ++i) {
      if (graph.node(i).persistent || (!R[i] && !S[i]))
        continue;
      bool storedNext =
          t + 1 < n ? sched.S[t + 1][i] != 0 : graph.node(i).output;
      int start = S[i] ? 0 : i;
      int64_t end;
      if (storedNext || (S[i] && lastUse[i] < 0))
        end = kNoEnd;
      else
        end = std::max<int64_t>(lastUse[i], R[i] ? i : -1);
      delta[start] += graph.node(i).bytes;
      if (end != kNoEnd)
        delta[end + 1] -= graph.node(i).bytes;
    }
    int64_t live = persistent;
    for (int k = 0; k <= t; ++k) {
      live += delta[k];
      if (!R[k])
        continue;
      int64_t at = live + graph.node(k).workspace;
      sim.stagePeak[t] = std::max(sim.stagePeak[t], at);
      if (at > peak) {
        peak = at;
        sim.peakStage = t;
        sim.peakNode = k;
      }
      if (overflowOver && at > *overflowOver)
        over += static_cast<double>(at - *overflowOver);
    }
  }
  sim.valid = true;
  sim.peakBytes =
      peak == std::numeric_limits<int64_t>::min() ? persistent : peak;
  sim.totalCost = cost;
  sim.recomputeCost = cost - graph.baseCost();
  if (overflow)
    *overflow = over;
  return sim;
}
} // namespace

RematSimulation mlir::memopt::simulateSchedule(const RematGraph &graph,
                                               const RematSchedule &schedule) {
  return simulate(graph, schedule);
}

RematSchedule mlir::memopt::completeStorage(const RematGraph &graph,
                                            std::vector<std::vector<uint8_t>> R,
                                            std::vector<int> restore) {
  int n = graph.size();
  RematSchedule schedule = RematSchedule::empty(n);
  schedule.R = std::move(R);
  schedule.restore = std::move(restore);
  std::vector<uint8_t> needed(n);
  for (int t = n - 1; t >= 1; --t) {
    const auto &Rt = schedule.R[t];
    std::fill(needed.begin(), needed.end(), 0);
    for (int k = 0; k <= t; ++k) {
      if (!Rt[k])
        continue;
      for (int op : graph.node(k).operands)
        needed[op] = 1;
    }
    for (int i = 0; i < t; ++i) {
      if (graph.node(i).persistent || Rt[i])
        continue;
      bool next = t + 1 < n ? schedule.S[t + 1][i] != 0 : graph.node(i).output;
      // Restored into stage t+1: not kept through stage t for it.
      if (next && schedule.restoreStage(i) == t + 1)
        next = false;
      schedule.S[t][i] = needed[i] || next;
    }
  }
  return schedule;
}

RematSchedule mlir::memopt::scheduleFromKeepSet(const RematGraph &graph,
                                                llvm::ArrayRef<bool> keep) {
  int n = graph.size();
  std::vector<std::vector<uint8_t>> R(n, std::vector<uint8_t>(n, 0));
  for (int t = 0; t < n; ++t) {
    auto &row = R[t];
    if (!graph.node(t).persistent)
      row[t] = 1;
    if (t == n - 1)
      for (int i = 0; i < n; ++i)
        if (graph.node(i).output && !keep[i] && graph.node(i).recomputable)
          row[i] = 1;
    // Close over unkept operands, from the latest computation down, so that
    // each added node's own operands are visited after it.
    for (int k = t; k >= 0; --k) {
      if (!row[k])
        continue;
      for (int op : graph.node(k).operands)
        if (!graph.node(op).persistent && !keep[op] &&
            graph.node(op).recomputable)
          row[op] = 1;
    }
  }
  return completeStorage(graph, std::move(R));
}

int64_t mlir::memopt::peakLowerBound(const RematGraph &graph) {
  int n = graph.size();
  int64_t persistent = graph.persistentBytes();
  int64_t worst = persistent;
  for (int t = 0; t < n; ++t) {
    const RematNode &node = graph.node(t);
    if (node.persistent)
      continue;
    int64_t live = persistent + node.bytes + node.workspace;
    for (int op : node.operands)
      if (!graph.node(op).persistent)
        live += graph.node(op).bytes;
    worst = std::max(worst, live);
  }
  // At the last point of the schedule every output is live, together with
  // the last node and its operands.
  if (n > 0) {
    std::vector<uint8_t> live(n, 0);
    for (int i = 0; i < n; ++i)
      live[i] = graph.node(i).output;
    if (!graph.node(n - 1).persistent) {
      live[n - 1] = 1;
      for (int op : graph.node(n - 1).operands)
        live[op] = 1;
    }
    // The last node's point: its workspace counts there.
    int64_t end =
        persistent +
        (graph.node(n - 1).persistent ? 0 : graph.node(n - 1).workspace);
    for (int i = 0; i < n; ++i)
      if (live[i] && !graph.node(i).persistent)
        end += graph.node(i).bytes;
    worst = std::max(worst, end);
  }
  return worst;
}

//===----------------------------------------------------------------------===//
// Results
//===----------------------------------------------------------------------===//

llvm::StringRef mlir::memopt::stringifyRematStatus(RematStatus status) {
  switch (status) {
  case RematStatus::Optimal:
    return "optimal";
  case RematStatus::Feasible:
    return "feasible";
  case RematStatus::Infeasible:
    return "infeasible";
  case RematStatus::NoSolution:
    return "no-solution";
  case RematStatus::Error:
    return "error";
  }
  return "error";
}

double RematResult::gap() const {
  if (status == RematStatus::Optimal)
    return 0.0;
  double cost = recomputeCost + offloadCost;
  return (cost - bound) / std::max(std::fabs(cost), 1e-9);
}

void mlir::memopt::detail::acceptSchedule(const RematGraph &graph,
                                          RematSchedule schedule,
                                          int64_t budget, RematResult &result) {
  RematSimulation sim = simulateSchedule(graph, schedule);
  if (!sim.valid || sim.peakBytes > budget) {
    result.status = RematStatus::Error;
    result.error = sim.valid ? llvm::formatv("internal error: schedule peak "
                                             "{0} exceeds budget {1}",
                                             sim.peakBytes, budget)
                                   .str()
                             : "internal error: invalid schedule: " + sim.error;
    return;
  }
  result.schedule = std::move(schedule);
  result.recomputeCost = sim.recomputeCost;
  result.peakBytes = sim.peakBytes;
}

//===----------------------------------------------------------------------===//
// Greedy
//===----------------------------------------------------------------------===//

RematResult mlir::memopt::solveGreedy(RematGraph graph, int64_t budget) {
  auto start = Clock::now();
  RematResult result;
  if (std::string error = graph.verify(); !error.empty()) {
    result.error = error;
    return result;
  }
  int n = graph.size();
  std::vector<bool> keepVector(n, true);
  auto evaluate = [&](const std::vector<bool> &keep, double &overflow) {
    llvm::SmallVector<bool> flags(keep.begin(), keep.end());
    RematSchedule schedule = scheduleFromKeepSet(graph, flags);
    RematSimulation sim = simulate(graph, schedule, budget, &overflow);
    return std::make_pair(std::move(schedule), sim);
  };
  double overflow = 0.0;
  auto [schedule, sim] = evaluate(keepVector, overflow);
  int64_t leastPeak = sim.peakBytes;
  while (sim.peakBytes > budget) {
    int bestNode = -1;
    double bestRatio = kInf, bestDrop = 0.0;
    for (int i = 0; i < n; ++i) {
      if (graph.node(i).persistent || !keepVector[i] ||
          !graph.node(i).recomputable)
        continue;
      keepVector[i] = false;
      double candidateOverflow = 0.0;
      auto [candidateSchedule, candidate] =
          evaluate(keepVector, candidateOverflow);
      keepVector[i] = true;
      double drop = overflow - candidateOverflow;
      if (!candidate.valid || drop <= 0.0)
        continue;
      double ratio = std::max(0.0, candidate.totalCost - sim.totalCost) / drop;
      if (ratio < bestRatio || (ratio == bestRatio && drop > bestDrop)) {
        bestRatio = ratio;
        bestDrop = drop;
        bestNode = i;
      }
    }
    if (bestNode < 0)
      break;
    keepVector[bestNode] = false;
    std::tie(schedule, sim) = evaluate(keepVector, overflow);
    leastPeak = std::min(leastPeak, sim.peakBytes);
  }
  result.minimalPeakBytes = leastPeak;
  result.seconds = secondsSince(start);
  if (sim.peakBytes > budget) {
    int64_t lower = peakLowerBound(graph);
    result.status =
        budget < lower ? RematStatus::Infeasible : RematStatus::NoSolution;
    result.error = llvm::formatv("greedy cannot reduce the peak below {0} "
                                 "bytes (budget {1})",
                                 leastPeak, budget)
                       .str();
    return result;
  }
  result.status = RematStatus::Feasible;
  acceptSchedule(graph, std::move(schedule), budget, result);
  return result;
}
