//===- TensorLiveness.h - buffers, live ranges and live bytes ---*- C++ -*-===//
//
// The memory model (docs/architecture.md) of one training step: which values
// own storage (buffers), when each buffer is live, its memory class, and the
// live bytes at every program point, whose maximum (LOAD) is the lower bound of
// any allocator under the step's schedule.
//
//===----------------------------------------------------------------------===//

#ifndef MEMOPT_ANALYSIS_TENSORLIVENESS_H
#define MEMOPT_ANALYSIS_TENSORLIVENESS_H

#include "mlir/IR/Operation.h"
#include "mlir/IR/Value.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/DenseSet.h"
#include "llvm/ADT/SmallVector.h"

#include <array>

namespace mlir::memopt {

/// What a buffer holds; derived from the IR, never guessed.
enum class MemoryClass {
  /// A `train.param` result.
  Parameter,
  /// The gradient an optimizer op consumes.
  Gradient,
  /// A `train.opt_state` result.
  OptimizerState,
  /// A forward value (one the loss depends on; in a pipeline stage, one the
  /// loss or an activation sent to a later stage depends on) read by a
  /// backward op.
  Activation,
  /// Everything else the step allocates.
  Temporary,
  /// A function argument (batch data, the step counter) or a constant: data
  /// the step reads but does not allocate.
  Input,
};
inline constexpr unsigned kNumMemoryClasses = 6;

/// "parameter", "gradient", "optimizer_state", "activation", "temporary",
/// "input".
StringRef stringifyMemoryClass(MemoryClass cls);

/// A value that owns storage; views and in-place updates share their
/// source's buffer.
struct Buffer {
  /// The value that defines the storage (an op result or block argument);
  /// null in a step recorded outside the IR.
  Value value;
  /// n * ceil(bitwidth / 8) bytes, rounded up to the analysis' allocation
  /// granularity (1 by default: exact bytes). 0 for a constant of the type
  /// and value of an earlier one: the lowering keeps one global for both,
  /// which the earlier one's buffer counts.
  int64_t bytes = 0;
  /// Program points of the first and the last moment the buffer is live,
  /// inclusive: the defining op, and the last use of the value or of any view
  /// of it (or its `train.free`). Persistent buffers span the whole step.
  int64_t start = 0;
  int64_t end = 0;
  MemoryClass memoryClass = MemoryClass::Temporary;
  /// Parameters and optimizer states: live for the whole step.
  bool persistent = false;
  /// Whether a `train.free` ends the buffer explicitly.
  bool freed = false;
  /// Whether the function returns the buffer (or a view of it).
  bool returned = false;
  /// Whether it lives in host memory (train::getMemorySpace of its value:
  /// train-offload's states and updates, train.to_host's copies). Host
  /// buffers count in the host's live bytes only.
  bool host = false;
  /// A readable name: the state name, the location name, or "argN".
  std::string name;
};

/// Liveness of the buffers of a single-block function (a training step):
/// program point i is the i-th op of the body (the terminator included).
/// Construction is linear in the number of ops and uses.
class TensorLiveness {
public:
  /// Analyzes `op`, a function-like op with a single-block body. With a
  /// `granularity` above 1, every buffer counts its bytes rounded up to a
  /// multiple of it, as an allocator that pads each allocation to its
  /// alignment does (the CPU lowering pads to 64 bytes).
  explicit TensorLiveness(Operation *op, int64_t granularity = 1);

  /// A step recorded outside the IR (a PyTorch eager step read by
  /// MemoryReport::createFromTrace): `buffers` with their sizes, classes,
  /// flags and inclusive ranges (no values), and the workspace bytes of each
  /// point. There is no schedule: getSchedule() is empty, getNumPoints() is
  /// workspace.size(), no op is forward or a dead view, lookup finds
  /// nothing. A buffer is live over its range only, persistent or not; the
  /// persistent bytes are those of the parameter and optimizer-state
  /// buffers. Every range must lie within the points.
  TensorLiveness(SmallVector<Buffer> buffers, SmallVector<int64_t> workspace);

  /// The ops of the body in program order; point i is getSchedule()[i].
  /// Empty for a recorded step.
  ArrayRef<Operation *> getSchedule() const { return schedule; }
  int64_t getNumPoints() const { return workspace.size(); }

  /// Every buffer, in order of definition (arguments first).
  ArrayRef<Buffer> getBuffers() const { return buffers; }

  /// The buffer whose storage `value` uses (through views), or nullptr for
  /// values that are not tensors.
  const Buffer *lookup(Value value) const;

  /// Device memory. Live bytes at `point`: persistent buffers, every buffer
  /// whose range covers the point, and the op's workspace.
  int64_t getLiveBytes(int64_t point) const { return liveBytes[point]; }
  /// Live bytes at `point` per memory class (workspace counts as temporary).
  const std::array<int64_t, kNumMemoryClasses> &
  getLiveBytesByClass(int64_t point) const {
    return liveByClass[point];
  }
  /// Workspace bytes of the op at `point`: its workspace buffers, each
  /// rounded up to the granularity.
  int64_t getWorkspaceBytes(int64_t point) const { return workspace[point]; }

  /// LOAD: the maximum of getLiveBytes over all points, and the first point
  /// where it occurs.
  int64_t getLoad() const { return load; }
  int64_t getPeakPoint() const { return peakPoint; }

  /// Whether the loss (the first returned value, a 0-d float tensor) depends
  /// on `op`: a forward op, or a state read the forward pass makes. In a
  /// stage of a pipelined step (a function with `train.pipeline`): whether
  /// the loss or a value the stage sends to a later stage depends on `op`,
  /// and no value received from a later stage does (a gradient, or the loss
  /// the last stage sends back). Its train.p2p ops are never forward; the
  /// activations they receive from an earlier stage are forward values.
  bool isForward(Operation *op) const { return forward.contains(op); }

  /// Whether `op` is a view (reshape, transpose, slice) whose results
  /// nothing but other such dead views reads: it allocates nothing and, once
  /// lowered, is erased as dead code, so its operands' live ranges ignore it.
  bool isDeadView(Operation *op) const { return deadViews.contains(op); }
  /// Bytes of parameters plus optimizer states (in device memory).
  int64_t getPersistentBytes() const { return persistentBytes; }
  /// The maximum over all points of the device's live bytes outside
  /// persistent buffers (parameters, optimizer states) and inputs: what a
  /// runtime that keeps those in storage of their own (mem-run's globals)
  /// allocates at its peak.
  int64_t getTransientPeak() const;

  /// Host memory, as the device's above: whether any buffer lives there,
  /// live bytes per point (in total and per class), the load and its first
  /// point, the persistent bytes, and the transient peak.
  bool hasHostBuffers() const { return hostBuffers; }
  int64_t getHostLiveBytes(int64_t point) const { return hostLive[point]; }
  const std::array<int64_t, kNumMemoryClasses> &
  getHostLiveBytesByClass(int64_t point) const {
    return hostLiveByClass[point];
  }
  int64_t getHostLoad() const { return hostLoad; }
  int64_t getHostPeakPoint() const { return hostPeakPoint; }
  int64_t getHostPersistentBytes() const { return hostPersistentBytes; }
  int64_t getHostTransientPeak() const { return hostTransientPeak; }

  /// The device's buffers live at `point`, largest first (ties in
  /// definition order).
  SmallVector<const Buffer *> getLiveBuffers(int64_t point) const;

  /// Prints every buffer and the live bytes at every point, for lit tests.
  void print(raw_ostream &os) const;

private:
  /// The steps of the constructor, in order, on the schedule of `block`.
  void findForwardOps(Block &block);
  /// findForwardOps in stage `stage` of a pipelined step.
  void findStageForwardOps(Block &block, int64_t stage, bool chunked);
  void findDeadViews();
  void addBuffer(Value value, MemoryClass cls, int64_t start, std::string name,
                 int64_t granularity);
  /// Creates the buffers and their live ranges, and the workspace per point;
  /// records which buffers backward ops read and which optimizers consume.
  void collectBuffers(Block &block, int64_t granularity,
                      SmallVectorImpl<bool> &usedByBackward,
                      SmallVectorImpl<bool> &consumedByOptimizer);
  /// Persistent ranges, gradients and activations.
  void classifyBuffers(ArrayRef<bool> usedByBackward,
                       ArrayRef<bool> consumedByOptimizer);
  /// Live bytes per point and class, the load and the peak point, per space.
  void computeLiveBytes();

  SmallVector<Operation *> schedule;
  llvm::DenseSet<Operation *> forward;
  /// In a pipeline stage: the activations its train.p2p ops receive from
  /// earlier stages that forward ops read.
  llvm::DenseSet<Value> forwardReceived;
  bool pipelineStage = false;
  llvm::DenseSet<Operation *> deadViews;
  SmallVector<Buffer> buffers;
  llvm::DenseMap<Value, unsigned> bufferOf;
  SmallVector<int64_t> liveBytes;
  SmallVector<std::array<int64_t, kNumMemoryClasses>> liveByClass;
  SmallVector<int64_t> workspace;
  int64_t load = 0;
  int64_t peakPoint = 0;
  int64_t persistentBytes = 0;
  int64_t transientPeak = 0;
  /// The host's counterparts (hostWorkspace: that of the host ops).
  bool hostBuffers = false;
  SmallVector<int64_t> hostLive, hostWorkspace;
  SmallVector<std::array<int64_t, kNumMemoryClasses>> hostLiveByClass;
  int64_t hostLoad = 0, hostPeakPoint = 0, hostPersistentBytes = 0,
          hostTransientPeak = 0;
};

} // namespace mlir::memopt

#endif // MEMOPT_ANALYSIS_TENSORLIVENESS_H
