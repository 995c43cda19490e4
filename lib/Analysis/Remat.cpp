//===- Remat.cpp - rematerialization schedules and solvers ----------------===//
//
// The checker (simulateSchedule) is written from the model in Remat.h alone;
// every solver's schedule is passed through it before it is returned, so a
// solver can only err by missing the optimum, never by returning a schedule
// that breaks the budget.
//
//===----------------------------------------------------------------------===//

#include "memopt/Analysis/Remat.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/Support/FormatVariadic.h"

// The C interface: CBC's C++ headers throw, and LLVM code builds without
// exceptions.
#include "Cbc_C_Interface.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <limits>
#include <map>
#include <numeric>
#include <tuple>

using namespace mlir::memopt;

namespace {
using Clock = std::chrono::steady_clock;
constexpr int64_t kNoEnd = std::numeric_limits<int64_t>::max();
constexpr double kInf = std::numeric_limits<double>::infinity();

double secondsSince(Clock::time_point start) {
  return std::chrono::duration<double>(Clock::now() - start).count();
}
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
    os << "]\n";
  }
}

//===----------------------------------------------------------------------===//
// simulateSchedule
//===----------------------------------------------------------------------===//

namespace {
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
    for (int i = 0; i < n; ++i) {
      const RematNode &node = graph.node(i);
      if (node.persistent && (R[i] || S[i]))
        return fail(llvm::formatv("stage {0} computes or stores persistent "
                                  "node {1}",
                                  t, i)
                        .str());
      if (R[i] && i > t)
        return fail(
            llvm::formatv("stage {0} computes node {1}, a later node", t, i)
                .str());
      if (R[i] && i != t && !node.recomputable)
        return fail(llvm::formatv("stage {0} recomputes node {1}, which is "
                                  "not recomputable",
                                  t, i)
                        .str());
      if (S[i] && t == 0)
        return fail(llvm::formatv("node {0} is stored into stage 0", i).str());
      if (S[i] && t > 0 && !sched.S[t - 1][i] && !sched.R[t - 1][i])
        return fail(llvm::formatv("node {0} is stored into stage {1} but "
                                  "neither stored into nor computed in stage "
                                  "{2}",
                                  i, t, t - 1)
                        .str());
      if (t == n - 1 && node.output && !R[i] && !S[i])
        return fail(llvm::formatv("output {0} is not available in the last "
                                  "stage",
                                  i)
                        .str());
    }
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

RematSchedule
mlir::memopt::completeStorage(const RematGraph &graph,
                              std::vector<std::vector<uint8_t>> R) {
  int n = graph.size();
  RematSchedule schedule = RematSchedule::empty(n);
  schedule.R = std::move(R);
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
  return (recomputeCost - bound) / std::max(std::fabs(recomputeCost), 1e-9);
}

namespace {
/// Fills schedule, cost and peak of `result` from `schedule` after checking
/// it; an Error result when the schedule is invalid or above the budget (a
/// solver bug, reported instead of returned).
void acceptSchedule(const RematGraph &graph, RematSchedule schedule,
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
} // namespace

//===----------------------------------------------------------------------===//
// Chains
//===----------------------------------------------------------------------===//

int64_t mlir::memopt::solveChainRevolve(int64_t l, int64_t s) {
  if (l < 0 || s < 0)
    return -1;
  if (l <= 1)
    return 0;
  if (s == 0)
    return -1;
  // C(s + r, s) for r = 0, 1, ...; grows at least linearly in r for s >= 1.
  auto binomial = [](int64_t n, int64_t k) -> double {
    if (k < 0 || k > n)
      return 0.0;
    k = std::min(k, n - k);
    double value = 1.0;
    for (int64_t i = 1; i <= k; ++i)
      value = value * static_cast<double>(n - k + i) / static_cast<double>(i);
    return std::round(value);
  };
  int64_t r = 0;
  while (binomial(s + r, s) < static_cast<double>(l))
    ++r;
  return r * l - static_cast<int64_t>(binomial(s + r, s + 1));
}

RematGraph
mlir::memopt::buildChainAdjointGraph(llvm::ArrayRef<double> costs,
                                     llvm::ArrayRef<int64_t> bytes,
                                     llvm::ArrayRef<int64_t> gradBytes) {
  int l = static_cast<int>(bytes.size());
  auto grad = [&](int p) {
    return gradBytes.empty() ? bytes[std::min(p, l - 1)] : gradBytes[p];
  };
  RematGraph graph;
  graph.addPersistent(bytes[0]);
  for (int p = 1; p < l; ++p)
    graph.addNode(costs[p], bytes[p], {p - 1});
  int previous = graph.addNode(0.0, grad(l), {l - 1});
  for (int p = l - 1; p >= 0; --p)
    previous = graph.addNode(0.0, grad(p), {p, previous}, false, p == 0);
  return graph;
}

namespace {
/// The exact chain DP (see solveChainDP). Memory `m` of a subproblem counts
/// its base state, the gradient it holds and everything inside it; the
/// checkpoints of enclosing subproblems are already subtracted.
class ChainDP {
public:
  ChainDP(llvm::ArrayRef<double> c, llvm::ArrayRef<int64_t> a,
          llvm::ArrayRef<int64_t> g)
      : c(c), a(a), g(g), l(static_cast<int>(a.size())) {}

  /// Reverse b_{j-1}..b_i holding x_i and g_j.
  double reverse(int i, int j, int64_t m) {
    if (m < 0)
      return kInf;
    auto key = std::make_tuple(i, j, m);
    if (auto it = reverseMemo.find(key); it != reverseMemo.end())
      return it->second.first;
    double best = kInf;
    int bestK = -1;
    if (j == i + 1) {
      if (a[i] + g[j] + g[i] <= m)
        best = 0.0;
    } else {
      double advance = 0.0;
      for (int k = i + 1; k < j; ++k) {
        // Computing x_k from x_{k-1}, x_i held, g_j held.
        int64_t live = a[i] + (k - 1 > i ? a[k - 1] : 0) + a[k] + g[j];
        if (live > m)
          break;
        advance += c[k];
        double total = advance + reverse(k, j, m - a[i]);
        if (total < kInf)
          total += reverse(i, k, m);
        if (total < best) {
          best = total;
          bestK = k;
        }
      }
    }
    reverseMemo[key] = {best, bestK};
    return best;
  }

  /// Forward sweep from x_i (held) to x_{l-1}, the seed, then reverse down
  /// to b_i. The sweep's computations are each node's single computation.
  double sweep(int i, int64_t m) {
    if (m < 0)
      return kInf;
    auto key = std::make_pair(i, m);
    if (auto it = sweepMemo.find(key); it != sweepMemo.end())
      return it->second.first;
    double best = kInf;
    int bestK = -1;
    if (i == l - 1) {
      if (a[i] + g[l] <= m && a[i] + g[l] + g[i] <= m)
        best = 0.0;
    } else {
      for (int k = i + 1; k < l; ++k) {
        int64_t live = a[i] + (k - 1 > i ? a[k - 1] : 0) + a[k];
        if (live > m)
          break;
        double total = sweep(k, m - a[i]);
        if (total < kInf)
          total += reverse(i, k, m);
        if (total < best) {
          best = total;
          bestK = k;
        }
      }
    }
    sweepMemo[key] = {best, bestK};
    return best;
  }

  /// Marks the recomputations of reverse(i, j, m) in R.
  void emitReverse(int i, int j, int64_t m,
                   std::vector<std::vector<uint8_t>> &R) {
    if (j == i + 1)
      return;
    int k = reverseMemo.at(std::make_tuple(i, j, m)).second;
    int stage = chainReverseNode(l, j - 1);
    for (int p = i + 1; p <= k; ++p)
      R[stage][chainStateNode(l, p)] = 1;
    emitReverse(k, j, m - a[i], R);
    emitReverse(i, k, m, R);
  }

  void emitSweep(int i, int64_t m, std::vector<std::vector<uint8_t>> &R) {
    if (i == l - 1)
      return;
    int k = sweepMemo.at(std::make_pair(i, m)).second;
    emitSweep(k, m - a[i], R);
    emitReverse(i, k, m, R);
  }

  size_t states() const { return reverseMemo.size() + sweepMemo.size(); }

private:
  llvm::ArrayRef<double> c;
  llvm::ArrayRef<int64_t> a;
  llvm::ArrayRef<int64_t> g;
  int l;
  std::map<std::tuple<int, int, int64_t>, std::pair<double, int>> reverseMemo;
  std::map<std::pair<int, int64_t>, std::pair<double, int>> sweepMemo;
};
} // namespace

RematResult mlir::memopt::solveChainDP(llvm::ArrayRef<double> costs,
                                       llvm::ArrayRef<int64_t> bytes,
                                       int64_t budget,
                                       llvm::ArrayRef<int64_t> gradBytes) {
  auto start = Clock::now();
  RematResult result;
  int l = static_cast<int>(bytes.size());
  if (l < 1 || static_cast<int>(costs.size()) != l ||
      (!gradBytes.empty() && static_cast<int>(gradBytes.size()) != l + 1)) {
    result.error = "expected l >= 1 costs and bytes and l + 1 gradient bytes";
    return result;
  }
  RematGraph graph = buildChainAdjointGraph(costs, bytes, gradBytes);
  if (std::string error = graph.verify(); !error.empty()) {
    result.error = error;
    return result;
  }
  std::vector<int64_t> grads(l + 1);
  for (int p = 0; p <= l; ++p)
    grads[p] = gradBytes.empty() ? bytes[std::min(p, l - 1)] : gradBytes[p];

  ChainDP dp(costs, bytes, grads);
  double best = dp.sweep(0, budget);
  result.seconds = secondsSince(start);
  if (best == kInf) {
    result.status = RematStatus::Infeasible;
    result.minimalPeakBytes = peakLowerBound(graph);
    return result;
  }
  int n = graph.size();
  std::vector<std::vector<uint8_t>> R(n, std::vector<uint8_t>(n, 0));
  for (int t = 1; t < n; ++t)
    R[t][t] = 1;
  dp.emitSweep(0, budget, R);
  result.status = RematStatus::Optimal;
  acceptSchedule(graph, completeStorage(graph, std::move(R)), budget, result);
  if (result.status == RematStatus::Optimal &&
      std::fabs(result.recomputeCost - best) > 1e-6 * std::max(1.0, best)) {
    result.status = RematStatus::Error;
    result.error = llvm::formatv("internal error: DP cost {0} but schedule "
                                 "cost {1}",
                                 best, result.recomputeCost)
                       .str();
  }
  result.bound = best;
  result.seconds = secondsSince(start);
  return result;
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

//===----------------------------------------------------------------------===//
// Optimal (Checkmate MILP, CBC)
//===----------------------------------------------------------------------===//

namespace {
/// The MILP's columns and rows, built as triplets.
class RematMilp {
public:
  RematMilp(const RematGraph &graph, int64_t budget)
      : graph(graph), n(graph.size()), budget(budget) {
    build();
  }

  /// Solves within `timeLimit` seconds and `nodeLimit` nodes (0: none for
  /// either);
  /// fills status, schedule, costs and bound of `result`.
  void solve(double timeLimit, int64_t nodeLimit, RematResult &result);

private:
  int addColumn(double lower, double upper, double objective, bool integer) {
    colLower.push_back(lower);
    colUpper.push_back(upper);
    objectiveRow.push_back(objective);
    isInteger.push_back(integer);
    return static_cast<int>(colLower.size()) - 1;
  }
  int addRow(double lower, double upper) {
    rowLower.push_back(lower);
    rowUpper.push_back(upper);
    return static_cast<int>(rowLower.size()) - 1;
  }
  void add(int row, int col, double value) {
    rows.push_back(row);
    cols.push_back(col);
    values.push_back(value);
  }
  bool isStage(int t) const { return !graph.node(t).persistent; }
  bool isValue(int i) const { return !graph.node(i).persistent; }
  void build();

  const RematGraph &graph;
  int n;
  int64_t budget;
  /// Column of R[t][i] / S[t][i], -1 where the variable does not exist.
  std::vector<std::vector<int>> rCol, sCol;
  /// FREE[t][i][k] columns: per stage, (i, k, column).
  std::vector<std::vector<std::tuple<int, int, int>>> freeCols;
  /// U[t][k] columns: per stage, (k, column).
  std::vector<std::vector<std::pair<int, int>>> uCols;
  std::vector<double> colLower, colUpper, objectiveRow, rowLower, rowUpper;
  std::vector<bool> isInteger;
  std::vector<int> rows, cols;
  std::vector<double> values;
};

void RematMilp::build() {
  rCol.assign(n, std::vector<int>(n, -1));
  sCol.assign(n, std::vector<int>(n, -1));
  freeCols.assign(n, {});
  uCols.assign(n, {});
  // R only in stages of non-persistent nodes: a recomputation in a
  // persistent node's stage is never better than the same one in the next
  // stage (same cost, no less memory).
  for (int t = 0; t < n; ++t) {
    if (!isStage(t))
      continue;
    for (int i = 0; i <= t; ++i) {
      if (!isValue(i))
        continue;
      double lower = i == t ? 1.0 : 0.0;
      double upper = i == t || graph.node(i).recomputable ? 1.0 : 0.0;
      rCol[t][i] = addColumn(lower, upper, graph.node(i).cost, true);
    }
  }
  for (int t = 1; t < n; ++t)
    for (int i = 0; i < t; ++i)
      if (isValue(i))
        sCol[t][i] = addColumn(0.0, 1.0, 0.0, false);

  // S[t+1][i] <= S[t][i] + R[t][i]; outputs into the virtual stage n.
  for (int t = 0; t < n; ++t) {
    for (int i = 0; i <= t; ++i) {
      if (!isValue(i))
        continue;
      bool last = t + 1 == n;
      if (last && !graph.node(i).output)
        continue;
      int row = last ? addRow(-kInf, -1.0) : addRow(-kInf, 0.0);
      if (!last)
        add(row, sCol[t + 1][i], 1.0);
      if (sCol[t][i] >= 0)
        add(row, sCol[t][i], -1.0);
      if (rCol[t][i] >= 0)
        add(row, rCol[t][i], -1.0);
    }
  }
  // Operands: R[t][k] <= R[t][i] + S[t][i].
  for (int t = 0; t < n; ++t) {
    if (!isStage(t))
      continue;
    for (int k = 0; k <= t; ++k) {
      if (rCol[t][k] < 0)
        continue;
      for (int op : graph.node(k).operands) {
        if (!isValue(op))
          continue;
        int row = addRow(-kInf, 0.0);
        add(row, rCol[t][k], 1.0);
        add(row, rCol[t][op], -1.0);
        add(row, sCol[t][op], -1.0);
      }
    }
  }
  // FREE[t][i][k]: i (an operand of k, or k itself) may be freed after k
  // only if k is computed, i is not stored into t+1 and no later user of i
  // is computed in the stage. Only upper bounds: freeing less is merely
  // pessimistic, and the solver frees whatever the budget needs.
  for (int t = 0; t < n; ++t) {
    if (!isStage(t))
      continue;
    for (int k = 0; k <= t; ++k) {
      if (rCol[t][k] < 0)
        continue;
      llvm::SmallVector<int, 8> candidates;
      for (int op : graph.node(k).operands)
        if (isValue(op))
          candidates.push_back(op);
      candidates.push_back(k);
      for (int i : candidates) {
        bool storedOut = t + 1 == n && graph.node(i).output;
        if (storedOut)
          continue;
        int col = addColumn(0.0, 1.0, 0.0, false);
        freeCols[t].emplace_back(i, k, col);
        int row = addRow(-kInf, 0.0);
        add(row, col, 1.0);
        add(row, rCol[t][k], -1.0);
        if (t + 1 < n) {
          row = addRow(-kInf, 1.0);
          add(row, col, 1.0);
          add(row, sCol[t + 1][i], 1.0);
        }
        for (int user : graph.users(i)) {
          if (user <= k || user > t)
            continue;
          row = addRow(-kInf, 1.0);
          add(row, col, 1.0);
          add(row, rCol[t][user], 1.0);
        }
      }
    }
  }
  // Memory: U[t][k] = U[t][prev] - freed after prev + bytes[k] R[t][k],
  // U[t][first] = persistent + stored + bytes[first] R[t][first]; U <= budget.
  const double persistent = static_cast<double>(graph.persistentBytes());
  // The node's workspace counts at its own point only, and only points of
  // computations are bounded: U[t][k] + workspace[k] R[t][k] <= budget when
  // R[t][k] = 1. With a negative workspace (a correction) U alone may exceed
  // the budget by up to `slack` = -(least workspace); then every point gets
  // U + (workspace + slack) R <= budget + slack, which is the bound above
  // when R = 1 and U <= budget + slack (no bound) when R = 0.
  int64_t slack = 0;
  for (const RematNode &node : graph.getNodes())
    slack = std::max(slack, -node.workspace);
  const double top = static_cast<double>(budget) + static_cast<double>(slack);
  for (int t = 0; t < n; ++t) {
    if (!isStage(t))
      continue;
    int previous = -1, previousCol = -1;
    for (int k = 0; k <= t; ++k) {
      if (rCol[t][k] < 0)
        continue;
      int u = addColumn(-kInf, top, 0.0, false);
      uCols[t].emplace_back(k, u);
      double bytes = static_cast<double>(graph.node(k).bytes);
      if (int64_t extra = graph.node(k).workspace + slack) {
        int row = addRow(-kInf, top);
        add(row, u, 1.0);
        add(row, rCol[t][k], static_cast<double>(extra));
      }
      if (previous < 0) {
        int row = addRow(persistent, persistent);
        add(row, u, 1.0);
        add(row, rCol[t][k], -bytes);
        for (int i = 0; i < t; ++i)
          if (sCol[t][i] >= 0 && graph.node(i).bytes != 0)
            add(row, sCol[t][i], -static_cast<double>(graph.node(i).bytes));
      } else {
        int row = addRow(0.0, 0.0);
        add(row, u, 1.0);
        add(row, previousCol, -1.0);
        add(row, rCol[t][k], -bytes);
        for (auto [i, at, col] : freeCols[t])
          if (at == previous && graph.node(i).bytes != 0)
            add(row, col, static_cast<double>(graph.node(i).bytes));
      }
      previous = k;
      previousCol = u;
    }
  }
}

void RematMilp::solve(double timeLimit, int64_t nodeLimit,
                      RematResult &result) {
  int numCols = static_cast<int>(colLower.size());
  int numRows = static_cast<int>(rowLower.size());
  // Column-major matrix from the triplets.
  std::vector<CoinBigIndex> starts(numCols + 1, 0);
  for (int col : cols)
    ++starts[col + 1];
  for (int c = 0; c < numCols; ++c)
    starts[c + 1] += starts[c];
  std::vector<int> index(values.size());
  std::vector<double> elements(values.size());
  std::vector<CoinBigIndex> next(starts.begin(), starts.end() - 1);
  for (size_t e = 0; e < values.size(); ++e) {
    CoinBigIndex at = next[cols[e]]++;
    index[at] = rows[e];
    elements[at] = values[e];
  }
  // CBC takes infinities as std::numeric_limits<double>::max().
  auto finite = [](std::vector<double> bounds) {
    for (double &bound : bounds)
      if (std::isinf(bound))
        bound = bound > 0 ? std::numeric_limits<double>::max()
                          : -std::numeric_limits<double>::max();
    return bounds;
  };
  std::vector<double> cl = finite(colLower), cu = finite(colUpper),
                      rl = finite(rowLower), ru = finite(rowUpper);
  Cbc_Model *model = Cbc_newModel();
  Cbc_loadProblem(model, numCols, numRows, starts.data(), index.data(),
                  elements.data(), cl.data(), cu.data(), objectiveRow.data(),
                  rl.data(), ru.data());
  for (int c = 0; c < numCols; ++c)
    if (isInteger[c])
      Cbc_setInteger(model, c);
  Cbc_setLogLevel(model, 0);
  // CBC counts CPU seconds by default: on a loaded machine a 30 s limit
  // then lasted over 60 s of wall time.
  Cbc_setParameter(model, "timeMode", "elapsed");
  if (timeLimit > 0.0)
    Cbc_setMaximumSeconds(model, std::max(timeLimit, 0.01));
  if (nodeLimit > 0)
    Cbc_setMaximumNodes(model,
                        static_cast<int>(std::min<int64_t>(
                            nodeLimit, std::numeric_limits<int>::max())));
  Cbc_setParameter(model, "threads", "1");
  Cbc_solve(model);

  const double *best = Cbc_bestSolution(model);
  double base = graph.baseCost();
  double possible = Cbc_getBestPossibleObjValue(model);
  if (!best) {
    if (Cbc_isProvenInfeasible(model)) {
      result.status = RematStatus::Infeasible;
    } else {
      result.status = RematStatus::NoSolution;
      result.error = "time or node limit reached without a schedule";
      result.bound = std::max(0.0, possible - base);
    }
    Cbc_deleteModel(model);
    return;
  }
  std::vector<std::vector<uint8_t>> R(n, std::vector<uint8_t>(n, 0));
  for (int t = 0; t < n; ++t)
    for (int i = 0; i < n; ++i)
      if (rCol[t][i] >= 0 && best[rCol[t][i]] > 0.5)
        R[t][i] = 1;
  bool optimal = Cbc_isProvenOptimal(model);
  Cbc_deleteModel(model);
  result.status = optimal ? RematStatus::Optimal : RematStatus::Feasible;
  acceptSchedule(graph, completeStorage(graph, std::move(R)), budget, result);
  if (result.status == RematStatus::Error)
    return;
  result.bound =
      optimal ? result.recomputeCost
              : std::min(result.recomputeCost, std::max(0.0, possible - base));
}
} // namespace

RematResult mlir::memopt::solveOptimal(RematGraph graph, int64_t budget,
                                       const RematOptimalOptions &options) {
  auto start = Clock::now();
  RematResult result;
  if (std::string error = graph.verify(); !error.empty()) {
    result.error = error;
    return result;
  }
  int64_t lower = peakLowerBound(graph);
  if (budget < lower) {
    result.status = RematStatus::Infeasible;
    result.minimalPeakBytes = lower;
    result.error = llvm::formatv("budget {0} is below the peak lower bound "
                                 "{1}",
                                 budget, lower)
                       .str();
    return result;
  }
  // Keeping everything costs nothing extra: optimal when it fits.
  std::vector<bool> all(graph.size(), true);
  llvm::SmallVector<bool> keepAll(all.begin(), all.end());
  RematSchedule everything = scheduleFromKeepSet(graph, keepAll);
  if (simulateSchedule(graph, everything).peakBytes <= budget) {
    result.status = RematStatus::Optimal;
    acceptSchedule(graph, std::move(everything), budget, result);
    result.bound = 0.0;
    result.seconds = secondsSince(start);
    return result;
  }
  std::optional<RematSchedule> warm;
  if (options.warmStart) {
    RematResult greedy = solveGreedy(graph, budget);
    if (greedy.hasSchedule())
      warm = std::move(greedy.schedule);
  }
  // The time limit covers the greedy schedule and the model too: when they
  // used it up, the greedy schedule is the answer (or there is none).
  bool timed = options.timeLimitSeconds > 0.0;
  auto outOfTime = [&] {
    if (!timed || secondsSince(start) < options.timeLimitSeconds)
      return false;
    if (warm) {
      result.status = RematStatus::Feasible;
      acceptSchedule(graph, std::move(*warm), budget, result);
    } else {
      result.status = RematStatus::NoSolution;
      result.error = "time limit reached before the solve";
    }
    result.seconds = secondsSince(start);
    return true;
  };
  if (outOfTime())
    return result;
  RematMilp milp(graph, budget);
  if (outOfTime())
    return result;
  double left = timed ? options.timeLimitSeconds - secondsSince(start) : 0.0;
  // The greedy schedule is not given to CBC as a MIP start: CBC's handling
  // of one ("Reduced search") ignores the time limit (over 30 s past a 10 s
  // limit on U-Net's groups, where CBC alone proves optimality in 2 s). It
  // is the answer when CBC has none or a costlier one.
  milp.solve(left, options.nodeLimit, result);
  if (warm && result.status != RematStatus::Optimal &&
      result.status != RematStatus::Infeasible &&
      result.status != RematStatus::Error) {
    RematResult greedy;
    greedy.status = RematStatus::Feasible;
    acceptSchedule(graph, std::move(*warm), budget, greedy);
    if (greedy.status == RematStatus::Feasible &&
        (!result.hasSchedule() ||
         greedy.recomputeCost < result.recomputeCost)) {
      greedy.bound = std::min(result.bound, greedy.recomputeCost);
      greedy.error.clear();
      result = std::move(greedy);
    }
  }
  result.seconds = secondsSince(start);
  return result;
}

//===----------------------------------------------------------------------===//
// Heterogeneous chains (rotor)
//===----------------------------------------------------------------------===//

namespace {
/// The rotor recursion of solveChainRotor over sizes in units. Subproblem
/// (s, t, m, spine, free): reverse layers s..t with m units beyond what
/// outer parts hold (x_{s-1} among it); `spine` when its forward
/// computations are the original forward pass (t is the last layer and
/// nothing was reversed yet); `free` when no outer part reads x_{s-1} after
/// this one, so it dies with its last use here.
class ChainRotor {
public:
  ChainRotor(llvm::ArrayRef<RematChainLayer> layers, int64_t unit,
             int64_t units)
      : layers(layers), n(static_cast<int>(layers.size())), units(units) {
    // Nearest units: exact when `unit` divides every size.
    auto toUnits = [&](int64_t bytes) {
      return (std::max<int64_t>(bytes, 0) + unit / 2) / unit;
    };
    for (const RematChainLayer &layer : layers) {
      output.push_back(toUnits(layer.output));
      held.push_back(toUnits(layer.output + layer.tape));
      atBackward.push_back(toUnits(layer.backwardPeak));
      forward.push_back(toUnits(layer.forwardPeak));
      entry.push_back(toUnits(layer.backwardEntry));
    }
    // advance[s][k]: the most units an advance from x_{s-1} through layer
    // k-1 takes beside the backward values (the input of each layer but
    // the first is transient).
    advance.assign(n, std::vector<int64_t>(n + 1, 0));
    prefixCost.assign(n + 1, 0.0);
    for (int j = 0; j < n; ++j)
      prefixCost[j + 1] = prefixCost[j] + layers[j].cost;
    for (int s = 0; s < n; ++s) {
      int64_t most = 0;
      for (int k = s + 1; k <= n; ++k) {
        int j = k - 1;
        most = std::max(most, forward[j] + (j > s ? output[j - 1] : 0));
        advance[s][k] = most;
      }
    }
    memo.assign(static_cast<size_t>(4) * n * n * (units + 1), kUnknown);
    choice.assign(memo.size(), 0);
  }

  /// Units of x_{s-1} that are dead after layer s ran, when nobody after
  /// reads it: B_s does not and no outer part does.
  int64_t credit(int s, bool free) const {
    return free && s > 0 && !layers[s].backwardReadsInput ? output[s - 1] : 0;
  }

  double solve(int s, int t, int64_t m, bool spine, bool free) {
    if (m < 0)
      return kInf;
    size_t index = this->index(s, t, m, spine, free);
    if (memo[index] != kUnknown)
      return memo[index];
    int best = 0;
    double bestCost = kInf;
    int64_t beside = spine ? 0 : entry[t];
    const RematChainLayer &layer = layers[s];
    double own = spine ? 0.0 : layer.cost;
    int64_t backwardRoom = m + credit(s, free);
    if (s == t) {
      // Recompute the layer with its tape when B_s reads it (in the spine
      // it is the original computation); then B_s.
      bool computes = layer.backwardReadsLayer || spine;
      if ((!computes || m >= beside + forward[s]) &&
          backwardRoom >= atBackward[s])
        bestCost = layer.backwardReadsLayer ? own : 0.0;
    } else {
      // Layer s with its tape, s+1..t (without x_{s-1} when nothing reads
      // it any more), then B_s.
      if (m >= beside + forward[s] && backwardRoom >= atBackward[s]) {
        double cost = own + solve(s + 1, t, m - held[s] + credit(s, free),
                                  spine, !layer.backwardReadsOutput);
        if (cost < bestCost) {
          bestCost = cost;
          best = -1;
        }
      }
      // Advance to x_{k-1}, reverse k..t, then s..k-1 from x_{s-1}.
      for (int k = s + 1; k <= t; ++k) {
        if (m < beside + advance[s][k])
          continue;
        double cost = (spine ? 0.0 : prefixCost[k] - prefixCost[s]);
        if (cost >= bestCost)
          continue;
        cost += solve(k, t, m - output[k - 1], spine, /*free=*/true);
        if (cost >= bestCost)
          continue;
        cost += solve(s, k - 1, m, /*spine=*/false, free);
        if (cost < bestCost) {
          bestCost = cost;
          best = k;
        }
      }
    }
    memo[index] = bestCost;
    choice[index] = best;
    return bestCost;
  }

  /// Appends the actions of an optimal (s, t, m, spine, free) to `actions`.
  void emit(int s, int t, int64_t m, bool spine, bool free,
            std::vector<RematChainAction> &actions) {
    solve(s, t, m, spine, free);
    int best = choice[index(s, t, m, spine, free)];
    const RematChainLayer &layer = layers[s];
    if (s == t) {
      if (layer.backwardReadsLayer || spine)
        actions.push_back({true, s, spine});
      actions.push_back({false, s, false});
      return;
    }
    if (best < 0) {
      actions.push_back({true, s, spine});
      emit(s + 1, t, m - held[s] + credit(s, free), spine,
           !layer.backwardReadsOutput, actions);
      actions.push_back({false, s, false});
      return;
    }
    for (int j = s; j < best; ++j)
      actions.push_back({true, j, spine});
    emit(best, t, m - output[best - 1], spine, /*free=*/true, actions);
    emit(s, best - 1, m, /*spine=*/false, free, actions);
  }

private:
  size_t index(int s, int t, int64_t m, bool spine, bool free) const {
    size_t flags = (spine ? 2 : 0) + (free ? 1 : 0);
    return ((flags * n + s) * n + t) * (units + 1) + m;
  }

  static constexpr double kUnknown = -1.0;
  llvm::ArrayRef<RematChainLayer> layers;
  int n;
  int64_t units;
  std::vector<int64_t> output, held, atBackward, forward, entry;
  std::vector<std::vector<int64_t>> advance;
  std::vector<double> prefixCost;
  std::vector<double> memo;
  std::vector<int> choice;
};
} // namespace

RematChainResult
mlir::memopt::solveChainRotor(llvm::ArrayRef<RematChainLayer> layers,
                              int64_t memory, int64_t maxUnits) {
  RematChainResult result;
  if (layers.empty()) {
    result.error = "empty chain";
    return result;
  }
  for (const RematChainLayer &layer : layers)
    if (layer.cost < 0 || layer.output < 0 || layer.tape < 0 ||
        layer.forwardPeak < 0 || layer.backwardEntry < 0 ||
        layer.backwardPeak < 0) {
      result.error = "negative cost or size";
      return result;
    }
  if (memory < 0) {
    result.status = RematStatus::Infeasible;
    return result;
  }
  // The unit: the gcd of every size when that keeps the table small, else
  // memory / limit with sizes rounded to the nearest unit.
  int64_t l = static_cast<int64_t>(layers.size());
  int64_t limit = std::min<int64_t>(
      maxUnits, std::max<int64_t>(64, (int64_t(1) << 28) / (l * l * l)));
  int64_t unit = 0;
  auto addSize = [&](int64_t bytes) {
    if (bytes > 0)
      unit = std::gcd(unit, bytes);
  };
  for (const RematChainLayer &layer : layers) {
    addSize(layer.output);
    addSize(layer.tape);
    addSize(layer.forwardPeak);
    addSize(layer.backwardEntry);
    addSize(layer.backwardPeak);
    addSize(layer.output + layer.tape);
  }
  if (unit == 0)
    unit = 1;
  bool exact = memory / unit <= limit;
  if (!exact)
    unit = (memory + limit - 1) / limit;
  int64_t units = exact ? memory / unit : (memory + unit / 2) / unit;
  result.unit = unit;
  ChainRotor rotor(layers, unit, units);
  int last = static_cast<int>(layers.size()) - 1;
  double cost = rotor.solve(0, last, units, /*spine=*/true, /*free=*/true);
  if (cost == kInf) {
    result.status = RematStatus::Infeasible;
    return result;
  }
  result.status = RematStatus::Optimal;
  result.recomputeCost = cost;
  rotor.emit(0, last, units, /*spine=*/true, /*free=*/true, result.actions);
  return result;
}

int64_t
mlir::memopt::chainKeepAllMemory(llvm::ArrayRef<RematChainLayer> layers) {
  // solveChainRotor's spine with every layer kept: what the outer layers
  // hold, less the inputs nothing reads any more.
  int64_t held = 0, most = 0;
  bool free = true;
  for (auto [j, layer] : llvm::enumerate(layers)) {
    int64_t credit =
        free && j > 0 && !layer.backwardReadsInput ? layers[j - 1].output : 0;
    most = std::max(most, held + layer.forwardPeak);
    most = std::max(most, held + layer.backwardPeak - credit);
    held += layer.output + layer.tape - credit;
    free = !layer.backwardReadsOutput;
  }
  return most;
}
