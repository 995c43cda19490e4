//===- RematMilp.cpp - the optimal rematerialization solver ---------------===//
//
// solveOptimal: the Checkmate MILP (Jain et al. 2020), solved by CBC.
//
//===----------------------------------------------------------------------===//

#include "RematInternal.h"
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
using namespace mlir::memopt::detail;

//===----------------------------------------------------------------------===//
// Optimal (Checkmate MILP, CBC)
//===----------------------------------------------------------------------===//

namespace {
/// The MILP's columns and rows, built as triplets.
class RematMilp {
public:
  RematMilp(const RematGraph &graph, int64_t budget,
            llvm::ArrayRef<RematOffloadOption> offloads)
      : graph(graph), n(graph.size()), budget(budget), offloads(offloads) {
    // Bytes in units of about budget/1e4 and costs in units of the costliest
    // node: coefficients near 1 instead of 1e9 bytes and 1e11 FLOPs, which
    // CBC's LPs solve many times faster (the same problem, scaled).
    byteUnit = std::max(1.0, static_cast<double>(budget) / 1e4);
    for (const RematNode &node : graph.getNodes())
      costUnit = std::max(costUnit, static_cast<double>(node.cost));
    build();
  }

  /// Solves within `timeLimit` seconds and `nodeLimit` nodes (0: none for
  /// either), for schedules of a recompute cost below `cutoff` when given;
  /// fills status, schedule, costs and bound of `result`.
  void solve(double timeLimit, int64_t nodeLimit, std::optional<double> cutoff,
             RematResult &result);

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
  /// Calls `fn(t, k)` for each computation R[t][k] (in stages t of
  /// non-persistent nodes), by stage and then by node.
  void forEachComputation(llvm::function_ref<void(int t, int k)> fn) const {
    for (int t = 0; t < n; ++t) {
      if (!isStage(t))
        continue;
      for (int k = 0; k <= t; ++k)
        if (rCol[t][k] >= 0)
          fn(t, k);
    }
  }
  /// The operands of node `k` that are values, in order.
  llvm::SmallVector<int, 8> valueOperands(int k) const {
    llvm::SmallVector<int, 8> operands;
    for (int op : graph.node(k).operands)
      if (isValue(op))
        operands.push_back(op);
    return operands;
  }
  void build();
  /// The R and S columns.
  void addComputeAndStoreColumns();
  /// S[t+1][i] <= S[t][i] + R[t][i].
  void addStorageRows();
  /// R[t][k] <= R[t][i] + S[t][i] for the operands i of k.
  void addOperandRows();
  /// The O columns of the offload options.
  void addOffloadColumns();
  /// The FREE columns and their upper bounds.
  void addFreeColumns();
  /// The U columns and the memory rows.
  void addMemoryRows();

  const RematGraph &graph;
  int n;
  int64_t budget;
  llvm::ArrayRef<RematOffloadOption> offloads;
  /// Column of O per offload option, and the option of each node (-1).
  std::vector<int> oCol, optionOf;
  /// The scales of the memory rows and the objective.
  double byteUnit = 1.0;
  double costUnit = 1.0;
  double bytesOf(int64_t bytes) const {
    return static_cast<double>(bytes) / byteUnit;
  }
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
  addComputeAndStoreColumns();
  addOffloadColumns();
  addStorageRows();
  addOperandRows();
  addFreeColumns();
  addMemoryRows();
}

void RematMilp::addComputeAndStoreColumns() {
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
      rCol[t][i] = addColumn(lower, upper, graph.node(i).cost / costUnit, true);
    }
  }
  for (int t = 1; t < n; ++t)
    for (int i = 0; i < t; ++i)
      if (isValue(i))
        sCol[t][i] = addColumn(0.0, 1.0, 0.0, false);
}

void RematMilp::addOffloadColumns() {
  // O: the node's output restored into the option's stage from host memory.
  optionOf.assign(n, -1);
  for (auto [index, option] : llvm::enumerate(offloads)) {
    oCol.push_back(addColumn(0.0, 1.0, option.cost / costUnit, true));
    optionOf[option.node] = static_cast<int>(index);
  }
}

void RematMilp::addStorageRows() {
  // S[t+1][i] <= S[t][i] + R[t][i] (+ O when i is restored into t+1);
  // outputs into the virtual stage n.
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
      if (int option = optionOf[i];
          !last && option >= 0 && offloads[option].restoreStage == t + 1)
        add(row, oCol[option], -1.0);
    }
  }
}

void RematMilp::addOperandRows() {
  // Operands: R[t][k] <= R[t][i] + S[t][i].
  forEachComputation([&](int t, int k) {
    for (int op : valueOperands(k)) {
      int row = addRow(-kInf, 0.0);
      add(row, rCol[t][k], 1.0);
      add(row, rCol[t][op], -1.0);
      add(row, sCol[t][op], -1.0);
    }
  });
}

void RematMilp::addFreeColumns() {
  // FREE[t][i][k]: i (an operand of k, or k itself) may be freed after k
  // only if k is computed, i is not stored into t+1 and no later user of i
  // is computed in the stage. Only upper bounds: freeing less is merely
  // pessimistic, and the solver frees whatever the budget needs.
  forEachComputation([&](int t, int k) {
    llvm::SmallVector<int, 8> candidates = valueOperands(k);
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
  });
}

void RematMilp::addMemoryRows() {
  // Memory: U[t][k] = U[t][prev] - freed after prev + bytes[k] R[t][k],
  // U[t][first] = persistent + stored + bytes[first] R[t][first]; U <= budget.
  const double persistent = bytesOf(graph.persistentBytes());
  // The node's workspace counts at its own point only, and only points of
  // computations are bounded: U[t][k] + workspace[k] R[t][k] <= budget when
  // R[t][k] = 1. With a negative workspace (a correction) U alone may exceed
  // the budget by up to `slack` = -(least workspace); then every point gets
  // U + (workspace + slack) R <= budget + slack, which is the bound above
  // when R = 1 and U <= budget + slack (no bound) when R = 0.
  int64_t slack = 0;
  for (const RematNode &node : graph.getNodes())
    slack = std::max(slack, -node.workspace);
  const double top = bytesOf(budget) + bytesOf(slack);
  for (int t = 0; t < n; ++t) {
    if (!isStage(t))
      continue;
    int previous = -1, previousCol = -1;
    for (int k = 0; k <= t; ++k) {
      if (rCol[t][k] < 0)
        continue;
      int u = addColumn(-kInf, top, 0.0, false);
      uCols[t].emplace_back(k, u);
      double bytes = bytesOf(graph.node(k).bytes);
      if (int64_t extra = graph.node(k).workspace + slack) {
        int row = addRow(-kInf, top);
        add(row, u, 1.0);
        add(row, rCol[t][k], bytesOf(extra));
      }
      if (previous < 0) {
        int row = addRow(persistent, persistent);
        add(row, u, 1.0);
        add(row, rCol[t][k], -bytes);
        // What stays on the device of a node offloaded in part.
        for (auto [index, option] : llvm::enumerate(offloads))
          if (option.keptBytes > 0 && option.keptFrom <= t &&
              t < option.restoreStage)
            add(row, oCol[index], -bytesOf(option.keptBytes));
        for (int i = 0; i < t; ++i)
          if (sCol[t][i] >= 0 && graph.node(i).bytes != 0)
            add(row, sCol[t][i], -bytesOf(graph.node(i).bytes));
      } else {
        int row = addRow(0.0, 0.0);
        add(row, u, 1.0);
        add(row, previousCol, -1.0);
        add(row, rCol[t][k], -bytes);
        for (auto [i, at, col] : freeCols[t])
          if (at == previous && graph.node(i).bytes != 0)
            add(row, col, bytesOf(graph.node(i).bytes));
      }
      previous = k;
      previousCol = u;
    }
  }
}

void RematMilp::solve(double timeLimit, int64_t nodeLimit,
                      std::optional<double> cutoff, RematResult &result) {
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
  double base = graph.baseCost();
  if (cutoff) {
    // Strictly cheaper: a schedule of the cutoff's cost is not wanted.
    double objective = (base + *cutoff) / costUnit;
    Cbc_setCutoff(model, objective - 1e-9 * std::max(1.0, objective));
  }
  Cbc_solve(model);

  const double *best = Cbc_bestSolution(model);
  double possible = Cbc_getBestPossibleObjValue(model) * costUnit;
  if (!best && cutoff) {
    // Infeasible under a cutoff: nothing within the budget is cheaper.
    result.status = RematStatus::NoSolution;
    result.cutoffProven = Cbc_isProvenInfeasible(model);
    result.error = result.cutoffProven
                       ? "no schedule cheaper than the cutoff (proven)"
                       : "no schedule cheaper than the cutoff found within "
                         "the limits";
    result.bound = std::max(0.0, possible - base);
    Cbc_deleteModel(model);
    return;
  }
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
  std::vector<int> restore;
  double offloadCost = 0.0;
  std::vector<int> taken;
  for (auto [index, option] : llvm::enumerate(offloads)) {
    if (best[oCol[index]] <= 0.5)
      continue;
    if (restore.empty())
      restore.assign(n, -1);
    restore[option.node] = option.restoreStage;
    offloadCost += option.cost;
    taken.push_back(static_cast<int>(index));
  }
  bool optimal = Cbc_isProvenOptimal(model);
  Cbc_deleteModel(model);
  result.status = optimal ? RematStatus::Optimal : RematStatus::Feasible;
  acceptSchedule(graph,
                 completeStorage(graph, std::move(R), std::move(restore)),
                 budget, result);
  if (result.status == RematStatus::Error)
    return;
  result.offloads = std::move(taken);
  result.offloadCost = offloadCost;
  double cost = result.recomputeCost + offloadCost;
  result.bound =
      optimal ? cost : std::min(cost, std::max(0.0, possible - base));
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
  for (const RematOffloadOption &option : options.offloads)
    if (option.node < 0 || option.node >= graph.size() ||
        graph.node(option.node).persistent ||
        option.restoreStage <= option.node ||
        option.restoreStage >= graph.size() || option.cost < 0) {
      result.error = llvm::formatv("offload option of node {0} (restored "
                                   "into stage {1}) is invalid",
                                   option.node, option.restoreStage)
                         .str();
      return result;
    }
  RematMilp milp(graph, budget, options.offloads);
  if (outOfTime())
    return result;
  double left = timed ? options.timeLimitSeconds - secondsSince(start) : 0.0;
  // The greedy schedule is not given to CBC as a MIP start: CBC's handling
  // of one ("Reduced search") ignores the time limit (over 30 s past a 10 s
  // limit on U-Net's groups, where CBC alone proves optimality in 2 s). It
  // is the answer when CBC has none or a costlier one.
  milp.solve(left, options.nodeLimit, options.costCutoff, result);
  if (warm && options.costCutoff &&
      simulateSchedule(graph, *warm).recomputeCost >= *options.costCutoff)
    warm.reset();
  if (warm && result.status != RematStatus::Optimal &&
      result.status != RematStatus::Infeasible &&
      result.status != RematStatus::Error) {
    RematResult greedy;
    greedy.status = RematStatus::Feasible;
    acceptSchedule(graph, std::move(*warm), budget, greedy);
    if (greedy.status == RematStatus::Feasible &&
        (!result.hasSchedule() ||
         greedy.recomputeCost < result.recomputeCost + result.offloadCost)) {
      greedy.bound = std::min(result.bound, greedy.recomputeCost);
      greedy.error.clear();
      result = std::move(greedy);
    }
  }
  result.seconds = secondsSince(start);
  return result;
}
