//===- RematChain.cpp - rematerialization of chains -----------------------===//
//
// The chain solvers of Remat.h: Revolve, the exact chain DP and the rotor
// recursion over heterogeneous chains.
//
//===----------------------------------------------------------------------===//

#include "RematInternal.h"
#include "memopt/Analysis/Remat.h"

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
