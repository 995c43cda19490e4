//===- Remat.h - rematerialization schedules and solvers --------*- C++ -*-===//
//
// The solver layer of rematerialization (train-remat): a training step seen
// as a graph of values, schedules that say which values are kept and which
// are recomputed when (the model of Checkmate, Jain et al., MLSys 2020), an
// exact checker of a schedule's validity, peak and cost, and solvers that
// choose a schedule under a peak budget. Pure C++, no MLIR IR types, so the
// pass, tools and tests drive it alike. docs/remat.md describes the model and
// the guarantees of each solver.
//
// The memory model (what simulateSchedule measures, and what every solver
// bounds by the budget):
//
//  * Stage t (0 <= t < n) computes node t, preceded by the recomputations the
//    schedule asks for; computations within a stage run in topological
//    (index) order. The evaluation points of stage t are its computations k
//    (R[t][k] = 1), in increasing k.
//  * Persistent nodes (graph inputs, parameters) are never computed; their
//    bytes are live at every point and they are always available.
//  * A non-persistent value i is present in stage t when stored into it
//    (S[t][i]) or computed in it (R[t][i]). It is live at point k of stage t
//    from its availability (the first point of the stage when stored, else
//    point i) through its end: the end of the stage when it is stored into
//    stage t+1 (S[t+1][i]; S[n][i] = 1 exactly for outputs) or when it is
//    stored but used by no computation of the stage; else its last use, the
//    largest computation of the stage having i as an operand, or point i
//    itself when no computation uses it. So at a computation, its operands and
//    its result are live together (the liveness of TensorLiveness), and a
//    value dies right after its last use.
//  * live(t, k) = persistent bytes + bytes of the values live at point k
//    + the workspace of node k;
//    peak = max over all points of all stages. A value stored and recomputed
//    in the same stage counts once.
//  * cost = sum over all computations R[t][i] of cost[i]; recompute cost =
//    cost - sum over non-persistent nodes of cost[i] (each node once).
//
//===----------------------------------------------------------------------===//

#ifndef MEMOPT_ANALYSIS_REMAT_H
#define MEMOPT_ANALYSIS_REMAT_H

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/SmallVector.h"
#include "llvm/Support/raw_ostream.h"

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace mlir::memopt {

/// One value of the step: the op producing it and its output.
struct RematNode {
  /// Cost of computing the node once (e.g. FLOPs). Ignored for persistent
  /// nodes, which are never computed.
  double cost = 0.0;
  /// Bytes of the node's output.
  int64_t bytes = 0;
  /// Operand nodes, each with a smaller index than this node.
  llvm::SmallVector<int, 4> operands;
  /// Always available, live everywhere, never computed (inputs, parameters).
  bool persistent = false;
  /// Must be available at the end of the schedule (stored into the virtual
  /// stage n): step results such as the loss or updated parameters.
  bool output = false;
  /// Whether the node may be computed outside its own stage. Nodes with side
  /// effects (an optimizer's in-place update) are computed exactly once.
  bool recomputable = true;
  /// Bytes live only while the node computes, beyond its output and its
  /// operands: scratch, or the temporaries inside a node that stands for a
  /// group of ops. May be negative: a correction where the node's output and
  /// operands overstate what is live (a group whose outputs die early).
  int64_t workspace = 0;
};

/// A step as a graph in topological (program) order.
class RematGraph {
public:
  /// Appends a node and returns its index. Operands must be smaller indices.
  int addNode(double cost, int64_t bytes, llvm::ArrayRef<int> operands = {},
              bool persistent = false, bool output = false);
  /// Appends a persistent node (cost 0).
  int addPersistent(int64_t bytes) { return addNode(0.0, bytes, {}, true); }

  int size() const { return static_cast<int>(nodes.size()); }
  const RematNode &node(int i) const { return nodes[i]; }
  RematNode &node(int i) { return nodes[i]; }
  llvm::ArrayRef<RematNode> getNodes() const { return nodes; }

  /// The nodes having `i` as an operand, increasing (filled by verify).
  llvm::ArrayRef<int> users(int i) const { return userLists[i]; }
  /// Sum of the bytes of persistent nodes.
  int64_t persistentBytes() const;
  /// Sum of cost over non-persistent nodes: the cost of computing each once.
  double baseCost() const;

  /// Checks the graph (operands in range and smaller, sizes and costs
  /// non-negative, no persistent output) and builds the user lists; an empty
  /// string when valid, else what is wrong. Every solver calls it.
  std::string verify();

  void print(llvm::raw_ostream &os) const;

private:
  std::vector<RematNode> nodes;
  std::vector<llvm::SmallVector<int, 4>> userLists;
};

/// A schedule: n stages, R[t][i] = node i is computed in stage t, S[t][i] =
/// node i's output is kept from stage t-1 into stage t. Both are n x n.
/// With offload (host memory), `restore[i]` = r > i says that node i's
/// output is copied to host memory and back into stage r: S[r][i] may be 1
/// without S[r-1][i] or R[r-1][i] (the copy out costs no device memory).
/// Empty `restore`, or -1 for a node: no offload.
struct RematSchedule {
  std::vector<std::vector<uint8_t>> R;
  std::vector<std::vector<uint8_t>> S;
  std::vector<int> restore;

  /// An all-zero n x n schedule.
  static RematSchedule empty(int n);
  /// Number of (re)computations of node i.
  int computeCount(int i) const;
  /// The stage node i is restored into from host memory, or -1.
  int restoreStage(int i) const { return restore.empty() ? -1 : restore[i]; }
  void print(llvm::raw_ostream &os) const;
};

/// What simulateSchedule found.
struct RematSimulation {
  bool valid = false;
  /// Why the schedule is invalid (empty when valid).
  std::string error;
  /// Peak live bytes (model above). Meaningful only when valid.
  int64_t peakBytes = 0;
  /// Sum of the cost of every computation.
  double totalCost = 0.0;
  /// totalCost minus the graph's baseCost.
  double recomputeCost = 0.0;
  /// Per stage, the most live bytes at one of its points (the minimum int64
  /// for stages without computations).
  std::vector<int64_t> stagePeak;
  /// Stage and node of the (first) point where the peak occurs.
  int peakStage = -1;
  int peakNode = -1;
};

/// The independent checker. Validity (Checkmate's constraints): R[t][t] = 1
/// for non-persistent t; R[t][i] = 0 for i > t and, for nodes that are not
/// recomputable, for i != t; nothing stored into stage 0;
/// persistent nodes neither computed nor stored; every operand of a
/// computation of stage t is persistent, computed earlier in stage t or
/// stored into stage t; S[t+1][i] <= S[t][i] + R[t][i]; every output computed
/// in or stored into the last stage. Peak and cost per the header comment.
/// `graph` must have been verified.
RematSimulation simulateSchedule(const RematGraph &graph,
                                 const RematSchedule &schedule);

/// The cheapest storage for the computations `R`: S[t][i] = 1 exactly when a
/// computation of stage t uses i and stage t does not compute it, or when i
/// must reach stage t+1 (S[t+1][i], outputs into stage n) and stage t does
/// not compute it -- unless i is restored into stage t+1 (`restore`, see
/// RematSchedule; empty: none). It never adds memory compared with any
/// other valid S for the same R and restores. Returns the completed
/// schedule (R and restore copied).
RematSchedule completeStorage(const RematGraph &graph,
                              std::vector<std::vector<uint8_t>> R,
                              std::vector<int> restore = {});

/// Checkpointing: node i with keep[i] is computed once in its own stage and
/// kept until its last use; any other non-persistent node is recomputed in
/// each stage that needs it, right before its use (recursively through
/// other unkept nodes); unkept outputs are recomputed in the last stage.
/// keep has one entry per node; entries of persistent nodes are ignored, and
/// nodes that are not recomputable are always kept.
RematSchedule scheduleFromKeepSet(const RematGraph &graph,
                                  llvm::ArrayRef<bool> keep);

/// A lower bound of the peak of every schedule: persistent bytes plus, at the
/// worst node, its bytes, its workspace and its operands' bytes.
int64_t peakLowerBound(const RematGraph &graph);

//===----------------------------------------------------------------------===//
// Solvers
//===----------------------------------------------------------------------===//

/// How a solver ended.
enum class RematStatus {
  /// Proven minimal recompute cost under the budget.
  Optimal,
  /// A schedule within the budget, not proven minimal.
  Feasible,
  /// Proven: no schedule meets the budget.
  Infeasible,
  /// No schedule found and infeasibility not proven (time limit, a
  /// heuristic giving up).
  NoSolution,
  /// Invalid input (see error).
  Error,
};

llvm::StringRef stringifyRematStatus(RematStatus status);

/// A solver's answer.
struct RematResult {
  RematStatus status = RematStatus::Error;
  std::string error;
  /// Valid and within budget when status is Optimal or Feasible.
  RematSchedule schedule;
  /// Recompute cost of the schedule (cost beyond computing each node once).
  double recomputeCost = 0.0;
  /// Peak of the schedule per simulateSchedule.
  int64_t peakBytes = 0;
  /// Lower bound of the minimal recompute cost (the MILP's best bound; equal
  /// to recomputeCost when Optimal; 0 when unknown).
  double bound = 0.0;
  /// The smallest peak the solver knows to be reachable (greedy: the least it
  /// reached; others: when known), or a proven lower bound of every peak when
  /// the budget is below it; -1 when unknown.
  int64_t minimalPeakBytes = -1;
  /// Seconds spent (informative only).
  double seconds = 0.0;
  /// With a cost cutoff and no schedule: the search proved that no schedule
  /// within the budget is cheaper than the cutoff.
  bool cutoffProven = false;
  /// With offload options (RematOptimalOptions::offloads): the options the
  /// schedule takes (indices), and their summed cost, which the objective,
  /// the bound and the gap include beside recomputeCost.
  std::vector<int> offloads;
  double offloadCost = 0.0;

  bool hasSchedule() const {
    return status == RematStatus::Optimal || status == RematStatus::Feasible;
  }
  /// (cost - bound) / max(|cost|, 1e-9) with cost = recomputeCost +
  /// offloadCost; 0 when Optimal.
  double gap() const;
};

/// Revolve (Griewank & Walther): the minimal number of forward steps to
/// reverse a uniform chain of l steps with s checkpoints, t(l, s) =
/// r*l - C(s+r, s+1), r the smallest integer with C(s+r, s) >= l. Returns -1
/// when l >= 2 and s == 0 (impossible) or for negative arguments.
int64_t solveChainRevolve(int64_t l, int64_t s);

/// The chain adjoint of l steps (l >= 1) in this model, as solveChainDP and
/// the revolve mapping use it. Nodes, in program order:
///   x_0 (persistent, bytes[0]), x_p = F_p(x_{p-1}) for p = 1..l-1 (cost
///   costs[p], bytes[p]), the seed gradient g_l (operand x_{l-1}, cost 0,
///   gradBytes[l]), then b_p for p = l-1..0 (operands x_p and g_{p+1}, cost
///   0, result g_p of gradBytes[p]); g_0 is the output.
/// b_p is the reversal of step p: it consumes the step's input x_p (the
/// step's forward is redone inside it, as revolve's "taped" step). costs and
/// bytes have l entries (costs[0] is ignored); gradBytes has l+1 entries or
/// is empty, meaning gradBytes[p] = bytes[min(p, l-1)].
/// Revolve's uniform chain with s checkpoints is costs = bytes = 1 and a
/// budget of s + 3 bytes: s states held as checkpoints (x_0 among them) plus
/// the working state and the two gradients of a reversal; revolve's in-place
/// advance needs one state more here (operands and results are live
/// together) and gets it from the outgoing gradient, which does not exist
/// yet during an advance. Then the minimal recompute cost is t(l, s) - (l-1).
RematGraph buildChainAdjointGraph(llvm::ArrayRef<double> costs,
                                  llvm::ArrayRef<int64_t> bytes,
                                  llvm::ArrayRef<int64_t> gradBytes = {});

/// Node indices in buildChainAdjointGraph's graph.
inline int chainStateNode(int l, int p) {
  (void)l;
  return p;
}
inline int chainSeedNode(int l) { return l; }
inline int chainReverseNode(int l, int p) { return l + 1 + (l - 1 - p); }

/// Dynamic program for the chain adjoint of buildChainAdjointGraph: the
/// minimal recompute cost under `budget` bytes of peak over revolve-structured
/// strategies, and a schedule reaching it (status Optimal), or Infeasible.
/// Recursion in the style of revolve / Beaumont et al. (heterogeneous
/// chains): from a held state x_i, advance to x_k and hold it, reverse the
/// part after k with the memory left, then the part from i to k; every
/// checkpoint is held until the reversal reaches it.
/// Guarantees: exact (equal to the MILP's optimum) when all states x_p have
/// one size, for any costs and gradient sizes; in particular t(l, s) -
/// (l-1) on revolve's uniform chain. With states of different sizes it is an
/// upper bound: dropping a small checkpoint after advancing from it and
/// recomputing it later can fit a larger state, which the MILP finds and
/// this DP does not. Memoized on (segment, memory left): O(l^3) states for
/// one state size.
RematResult solveChainDP(llvm::ArrayRef<double> costs,
                         llvm::ArrayRef<int64_t> bytes, int64_t budget,
                         llvm::ArrayRef<int64_t> gradBytes = {});

/// One layer of a chain for solveChainRotor. Layer j reads the output of
/// layer j-1 (layer 0 reads only persistent values); its backward part B_j
/// reads values of layer j and the output of layer j-1. Sizes are bytes.
struct RematChainLayer {
  /// Forward cost of the layer (e.g. FLOPs).
  double cost = 0.0;
  /// The layer's output: what layer j+1 reads (x_j).
  int64_t output = 0;
  /// The layer's other values that B_j reads (the tape).
  int64_t tape = 0;
  /// Whether B_j reads a value of the layer (its tape or its output). When
  /// it does not, reversing the layer needs only its input.
  bool backwardReadsLayer = false;
  /// Whether B_j reads the layer's output (then it is held until B_j).
  bool backwardReadsOutput = false;
  /// Whether B_j reads the layer's input (the output of layer j-1); when it
  /// does not, and nothing later reads it, the input is dead once the layer
  /// ran.
  bool backwardReadsInput = true;
  /// Most bytes the layer's own values (outputs and temporaries) and
  /// scratch take at one point while the layer runs.
  int64_t forwardPeak = 0;
  /// Bytes of the backward's own values (gradients) live when B_j starts:
  /// what recomputations between B_{j+1} and B_j run beside.
  int64_t backwardEntry = 0;
  /// Most bytes at one point of B_j of the backward's own values and of the
  /// layer's values B_j reads (which die as B_j consumes them).
  int64_t backwardPeak = 0;
};

/// One action of a chain schedule, in execution order.
struct RematChainAction {
  /// A forward computation of `layer`, or B_layer.
  bool forward = true;
  int layer = 0;
  /// A forward computation of the original forward pass (not a
  /// recomputation).
  bool original = false;
};

/// solveChainRotor's answer.
struct RematChainResult {
  /// Optimal (minimal in the model) or Infeasible.
  RematStatus status = RematStatus::Error;
  std::string error;
  /// Sum of the costs of the recomputations.
  double recomputeCost = 0.0;
  std::vector<RematChainAction> actions;
  /// The memory unit the sizes were rounded up to (1 when exact).
  int64_t unit = 1;
};

/// The optimal checkpointing dynamic program for heterogeneous chains
/// (revolve, Griewank & Walther 2000; rotor, Beaumont et al. 2019): the
/// least recompute cost to run the forward pass, then B_{L-1}, ..., B_0,
/// within `memory` bytes (beyond persistent values). From a held input
/// x_{s-1}, a part s..t is reversed either by recomputing layer s with its
/// tape, reversing s+1..t and then B_s, or by advancing to a checkpoint
/// x_{k-1} (k in s+1..t, keeping only that output), reversing k..t and then
/// s..k-1 from x_{s-1} again. The first advances are the original forward
/// pass and cost nothing. Memory model: a layer runs beside what is held
/// (checkpoints and tapes), the backward values live at that time
/// (backwardEntry of the next B, or none during the forward pass) and, when
/// advancing past it, its input; B_j takes its backwardPeak beside what is
/// held. A layer input is held until its last reader: it is released once
/// the layer ran when neither B_j nor an outer part reads it. Exact for this
/// model when every size is a multiple of a unit with at most U units in
/// `memory`, U = min(maxUnits, max(64, 2^28 / L^3)); otherwise sizes and memory
/// are rounded to the nearest of U units of memory / U, so the answer may
/// exceed the model's memory by a few units (callers measure). O(L^3 * U)
/// time.
RematChainResult solveChainRotor(llvm::ArrayRef<RematChainLayer> layers,
                                 int64_t memory, int64_t maxUnits = 4096);

/// The least memory (bytes, beyond persistent values) at which
/// solveChainRotor's model runs the chain without recomputing: every layer
/// kept from the forward pass with its tape (its output alone when its
/// backward reads no value of it).
int64_t chainKeepAllMemory(llvm::ArrayRef<RematChainLayer> layers);

/// Options of solveOptimal.
/// An offload solveOptimal may choose: node `node`'s output copied to host
/// memory after its computation and back into stage `restoreStage` (>
/// node) instead of being kept or recomputed, for `cost` (in the nodes'
/// cost units: the copies' time as FLOPs). Where only part of a node (a
/// group of ops) can be offloaded, `keptBytes` of it stay on the device
/// through stages keptFrom .. restoreStage-1 (counted there whenever the
/// option is taken).
struct RematOffloadOption {
  int node = -1;
  int restoreStage = -1;
  double cost = 0.0;
  int64_t keptBytes = 0;
  int keptFrom = -1;
};

struct RematOptimalOptions {
  /// Wall-clock limit of the whole call (greedy warm start, model, CBC),
  /// seconds; CBC may overshoot it in its root node. 0 or less: none (then
  /// set nodeLimit).
  double timeLimitSeconds = 60.0;
  /// The most branch-and-bound nodes CBC explores (0: no limit). A work
  /// limit: the same limit gives the same result on any machine.
  int64_t nodeLimit = 0;
  /// Also run solveGreedy: its schedule, when it meets the budget, is the
  /// answer (Feasible) when CBC finds none or a costlier one within its
  /// limits. (It is not given to CBC as a MIP start: CBC's processing of one
  /// ignores the time limit.)
  bool warmStart = true;
  /// A recompute cost to beat (a known schedule's, e.g. another algorithm's
  /// answer): CBC looks only for schedules cheaper than this and prunes every
  /// branch whose bound reaches it, as an incumbent of that cost would. When
  /// no schedule is cheaper the status is NoSolution, and `cutoffProven`
  /// says whether the search proved that.
  std::optional<double> costCutoff;
  /// Offloads the solver may choose beside recomputation (train-remat
  /// offload=true): each a third choice for one node's output.
  std::vector<RematOffloadOption> offloads;
};

/// Checkmate's MILP solved with CBC: binary R, continuous S and FREE (S and
/// FREE are integral at an optimum once R is; the returned S is rebuilt by
/// completeStorage), memory U per (stage, point) bounded by the budget.
/// With offload options, a binary O per option lets S[restore][node] be 1
/// without the node in the stage before, at the option's cost in the
/// objective (the cutoff compares that objective).
/// Optimal with a proven minimal recompute cost, Feasible with a bound when
/// the time limit hit after a schedule was found, Infeasible when proven
/// (or the budget is below peakLowerBound), NoSolution on a time out without
/// a schedule. Every returned schedule is checked with simulateSchedule.
RematResult solveOptimal(RematGraph graph, int64_t budget,
                         const RematOptimalOptions &options = {});
inline RematResult solveOptimal(RematGraph graph, int64_t budget,
                                double timeLimitSeconds) {
  RematOptimalOptions options;
  options.timeLimitSeconds = timeLimitSeconds;
  return solveOptimal(std::move(graph), budget, options);
}

/// Greedy checkpointing: starts from keeping every value and, while the peak
/// exceeds the budget, stops keeping the value with the least added
/// recompute cost per byte of overflow removed (overflow = sum over points of
/// the live bytes above the budget), evaluated exactly with simulateSchedule.
/// Polynomial (O(n^2) simulations). Feasible when it meets the budget,
/// NoSolution otherwise with minimalPeakBytes = the least peak it reached;
/// never a schedule above the budget.
RematResult solveGreedy(RematGraph graph, int64_t budget);

} // namespace mlir::memopt

#endif // MEMOPT_ANALYSIS_REMAT_H
