//===- StepSchedule.h - peak-aware op orders of a training step -*- C++ -*-===//
//
// A step's program order is its schedule (docs/architecture.md), and any
// other order that respects the step's dependences computes the same
// results. ScheduleGraph holds those dependences and the memory model of
// TensorLiveness per op; the schedulers below propose orders, and
// ScheduleGraph::simulateLoad gives each order's LOAD exactly as
// TensorLiveness would measure it once the ops are moved.
//
// Dependences, beyond SSA def-use edges:
// * an op that updates a buffer in place (an optimizer, a loss-scale update)
//   or frees it keeps its place relative to every other op that reads the
//   buffer, through any view;
// * ops outside the train, arith and tensor dialects (collectives, calls)
//   and ops with unknown side effects keep their relative order;
// * the terminator stays last.
//
//===----------------------------------------------------------------------===//

#ifndef MEMOPT_ANALYSIS_STEPSCHEDULE_H
#define MEMOPT_ANALYSIS_STEPSCHEDULE_H

#include "memopt/Analysis/TensorLiveness.h"

#include "llvm/ADT/SmallVector.h"
#include "llvm/ADT/StringRef.h"

#include <optional>
#include <string>

namespace mlir::memopt {

/// The dependence graph and per-op memory model of a single-block step.
/// Ops are numbered in program order; the terminator is the last.
class ScheduleGraph {
public:
  /// Builds the graph of `func`'s body, with `liveness` its analysis.
  ScheduleGraph(Operation *func, const TensorLiveness &liveness);

  unsigned size() const { return ops.size(); }
  ArrayRef<Operation *> getOps() const { return ops; }
  ArrayRef<unsigned> getPredecessors(unsigned op) const { return preds[op]; }
  ArrayRef<unsigned> getSuccessors(unsigned op) const { return succs[op]; }

  /// LOAD of the order `order` (a permutation of the op numbers that
  /// respects the dependences), as TensorLiveness computes it once the ops
  /// are in that order.
  int64_t simulateLoad(ArrayRef<unsigned> order) const;

  /// The program point at which `order` reaches its LOAD (the first).
  unsigned findPeakPoint(ArrayRef<unsigned> order) const;

  /// Whether `order` is a permutation that respects every dependence.
  bool isValidOrder(ArrayRef<unsigned> order) const;

  /// Moves the ops of the body into `order`.
  void apply(ArrayRef<unsigned> order) const;

  // The memory model, per op and per buffer (TensorLiveness's buffers that
  // are not persistent).
  struct BufferInfo {
    int64_t bytes = 0;
    /// The defining op, or -1 for a block argument (live from point 0).
    int64_t def = -1;
    /// The ops whose point the buffer's live range must reach.
    SmallVector<unsigned, 4> users;
  };
  ArrayRef<BufferInfo> getBuffers() const { return buffers; }
  /// Buffers op `op` defines, and buffers whose range it extends.
  ArrayRef<unsigned> getDefined(unsigned op) const { return defined[op]; }
  ArrayRef<unsigned> getUsed(unsigned op) const { return used[op]; }
  int64_t getWorkspace(unsigned op) const { return workspace[op]; }
  /// Bytes live at every point: persistent buffers.
  int64_t getPersistentBytes() const { return persistent; }
  /// Block arguments nothing reads: live at point 0 only.
  int64_t getUnusedArgumentBytes() const { return unusedArguments; }

private:
  void addEdge(unsigned from, unsigned to);

  Operation *func;
  SmallVector<Operation *> ops;
  SmallVector<SmallVector<unsigned, 4>> preds, succs;
  SmallVector<BufferInfo> buffers;
  SmallVector<SmallVector<unsigned, 2>> defined, used;
  SmallVector<int64_t> workspace;
  int64_t persistent = 0;
  int64_t unusedArguments = 0;
};

/// One proposed order and its LOAD.
struct ScheduleCandidate {
  std::string heuristic;
  SmallVector<unsigned> order;
  int64_t load = 0;
};

/// The program order itself ("program").
ScheduleCandidate scheduleProgramOrder(const ScheduleGraph &graph);

/// "eager": the program order, except that whenever a ready op releases at
/// least as many bytes as it allocates (a free, an optimizer update whose
/// gradient dies, an op whose inputs die with it) it runs first. This moves
/// each optimizer update right behind its gradient's last backward use
/// (optimizer in backward) and every release as early as the dependences
/// allow.
ScheduleCandidate scheduleEager(const ScheduleGraph &graph);

/// "greedy": list scheduling that always runs the ready op with the lowest
/// net allocation (bytes allocated minus bytes released), program order on
/// ties.
ScheduleCandidate scheduleGreedy(const ScheduleGraph &graph);

/// "<heuristic>+sink": `start` improved by sinking. Repeatedly, at the
/// order's peak, an op that runs before the peak and whose every successor
/// runs after it is moved right before its first successor, when that
/// lowers LOAD (the largest such allocations tried first); at most
/// `maxMoves` moves. Returns `start` unchanged when no move helps.
ScheduleCandidate improveBySinking(const ScheduleGraph &graph,
                                   const ScheduleCandidate &start,
                                   unsigned maxMoves = 64);

/// "exact": the order of lowest LOAD, by dynamic programming over the
/// step's down-closed op sets, for steps of at most `maxOps` ops (the
/// terminator included); nothing for larger steps. maxOps is at most 24.
std::optional<ScheduleCandidate> scheduleExact(const ScheduleGraph &graph,
                                               unsigned maxOps);

/// train-schedule's default `exact-limit`.
inline constexpr unsigned kDefaultExactLimit = 16;

/// The orders train-schedule measures for `heuristic` (best, program,
/// eager, greedy or exact), the program order first. With `best`: every
/// heuristic's order, the lowest of them improved by sinking (when that
/// lowers it), and the exact order when the step has at most `exactLimit`
/// ops. `exact` on a larger step gives the program order only.
SmallVector<ScheduleCandidate> proposeSchedules(const ScheduleGraph &graph,
                                                StringRef heuristic,
                                                unsigned exactLimit);

/// The order train-schedule applies of `candidates` (proposeSchedules'):
/// with `best` the lowest LOAD (the first on ties), else the last.
const ScheduleCandidate &pickSchedule(ArrayRef<ScheduleCandidate> candidates,
                                      StringRef heuristic);

} // namespace mlir::memopt

#endif // MEMOPT_ANALYSIS_STEPSCHEDULE_H
