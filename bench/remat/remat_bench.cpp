//===- remat_bench.cpp - solve times of the remat solvers -----------------===//
//
// Prints solve times of solveOptimal (CBC), solveChainDP and solveGreedy on
// revolve's uniform chains and on random DAGs. Build and run with
// bench/remat/run.sh; figures are recorded in docs/remat.md.
//
//===----------------------------------------------------------------------===//

#include "memopt/Analysis/Remat.h"

#include <chrono>
#include <cstdio>
#include <random>

using namespace mlir::memopt;

static RematGraph randomDag(std::mt19937 &rng, int n) {
  RematGraph graph;
  std::uniform_int_distribution<int> bytes(1, 5), cost(1, 4), coin(0, 3);
  graph.addPersistent(bytes(rng));
  for (int i = 1; i < n; ++i) {
    std::uniform_int_distribution<int> pick(0, i - 1);
    llvm::SmallVector<int> ops = {pick(rng)};
    if (coin(rng) != 0)
      ops.push_back(pick(rng));
    if (coin(rng) != 0)
      ops.push_back(i - 1);
    graph.addNode(cost(rng), bytes(rng), ops, false, i == n - 1);
  }
  graph.verify();
  return graph;
}

int main() {
  std::setvbuf(stdout, nullptr, _IOLBF, 0);
  std::printf("chain l s budget revolve dp dp_s milp milp_status milp_s\n");
  for (int l : {4, 8, 12, 16}) {
    for (int s : {1, 2, 3}) {
      std::vector<double> costs(l, 1.0);
      std::vector<int64_t> bytes(l, 1);
      RematResult dp = solveChainDP(costs, bytes, s + 3);
      RematResult milp =
          solveOptimal(buildChainAdjointGraph(costs, bytes), s + 3, 20.0);
      std::printf("chain %d %d %d %lld %.0f %.4f %.0f %s %.3f\n", l, s, s + 3,
                  (long long)(solveChainRevolve(l, s) - (l - 1)),
                  dp.recomputeCost, dp.seconds, milp.recomputeCost,
                  stringifyRematStatus(milp.status).str().c_str(),
                  milp.seconds);
    }
  }
  std::printf("dag n budget greedy greedy_s milp milp_status bound milp_s\n");
  std::mt19937 rng(1);
  for (int n : {10, 20, 30}) {
    RematGraph graph = randomDag(rng, n);
    std::vector<bool> keep(n, true);
    llvm::SmallVector<bool> flags(keep.begin(), keep.end());
    int64_t high =
        simulateSchedule(graph, scheduleFromKeepSet(graph, flags)).peakBytes;
    int64_t low = peakLowerBound(graph);
    for (int64_t budget : {low + (high - low) / 4, low + (high - low) / 2}) {
      RematResult greedy = solveGreedy(graph, budget);
      RematResult milp = solveOptimal(graph, budget, 20.0);
      std::printf(
          "dag %d %lld %.0f %.3f %.0f %s %.1f %.3f\n", n, (long long)budget,
          greedy.hasSchedule() ? greedy.recomputeCost : -1.0, greedy.seconds,
          milp.hasSchedule() ? milp.recomputeCost : -1.0,
          stringifyRematStatus(milp.status).str().c_str(), milp.bound,
          milp.seconds);
    }
  }
}
