//===- KeepSetModel.h - a keep-set rewrite's peak, without rewriting -*- C++
//-*-===//
//
// What applyKeepSet followed by TensorLiveness reports for a keep-set (the
// peak, the recomputed FLOPs and the activations live at the peak), computed
// on flat arrays built once from the step: the rewritten op sequence
// (the step's ops and the recomputed copies placed before their backward
// readers, dead views dropped), its buffers' live ranges and the live bytes
// at every op. No IR is cloned or created, so an evaluation costs a linear
// sweep over small arrays where a rewrite of the IR clones the step and
// analyzes it twice; greedy's search evaluates hundreds of keep-sets.
//
//===----------------------------------------------------------------------===//

#ifndef MEMOPT_TRANSFORMS_KEEPSETMODEL_H
#define MEMOPT_TRANSFORMS_KEEPSETMODEL_H

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Support/LLVM.h"
#include "llvm/ADT/SmallBitVector.h"
#include "llvm/ADT/SmallVector.h"

#include <cstdint>

namespace mlir::memopt {

class KeepSetModel {
public:
  /// The outcome of a keep-set, as the rewritten step's analysis has it.
  struct Outcome {
    /// LOAD of the rewritten step.
    int64_t peak = 0;
    /// The FLOPs of the recomputed ops.
    int64_t flops = 0;
    /// The activations (getActivations indices) of the step's own ops live
    /// at the first point of the peak, largest first (ties: index order),
    /// as TensorLiveness::getLiveBuffers lists them.
    SmallVector<unsigned> liveAtPeak;

    bool operator==(const Outcome &other) const {
      return peak == other.peak && flops == other.flops &&
             liveAtPeak == other.liveAtPeak;
    }
  };

  /// Builds the model of `func`, a single-block step (its frees are
  /// ignored: rewrites place them anew). Fails on steps the model does not
  /// cover: ops with regions.
  static FailureOr<KeepSetModel> build(func::FuncOp func);

  /// The number of activations (the width of a keep-set).
  unsigned getNumActivations() const { return activationBytes.size(); }

  /// The outcome of applyKeepSet(func, keep).
  Outcome evaluate(const llvm::SmallBitVector &keep) const;

private:
  KeepSetModel() = default;

  /// What an op of the step does, for the rewrite.
  enum class Role : uint8_t {
    /// Computes the loss: recomputed when a backward op needs a value of it
    /// that is not kept.
    Forward,
    /// Reads recomputed copies of values that are not kept.
    Backward,
    /// Reads values as they are: the terminator, parameters, optimizer
    /// states and in-place updates.
    Other,
  };

  // Values: the block's arguments and the ops' results, numbered in
  // definition order. Ops: the body in program order, frees left out.
  SmallVector<int32_t> valueDef;   // op, or -1 for an argument
  SmallVector<int64_t> valueBytes; // -1: not a tensor
  /// Whether a rewrite recomputes the value unless its buffer is a kept
  /// activation (a forward op defines it); and that activation (-1: none).
  SmallVector<bool> valueRecomputable;
  SmallVector<int32_t> valueActivation;

  SmallVector<Role> opRole;
  SmallVector<bool> opPersistent; // param or opt_state
  SmallVector<bool> opIsView;     // every result a view of an operand
  SmallVector<int64_t> opWorkspace;
  SmallVector<int64_t> opFlops;
  /// Operands (value ids, in operand order) and results (value ids; the
  /// operand each view result aliases, or -1) of op i at
  /// [operandBegin[i], operandBegin[i+1]) and [resultBegin[i],
  /// resultBegin[i+1]).
  SmallVector<uint32_t> operandBegin;
  SmallVector<int32_t> operands;
  SmallVector<uint32_t> resultBegin;
  SmallVector<int32_t> results;
  SmallVector<int32_t> resultViewSource;
  /// The ops a rewrite may sink (side-effect-free backward ops the schedule
  /// placed before the last forward op), in program order, and the ops that
  /// read a result of op i (once each, in program order) at
  /// [userBegin[i], userBegin[i+1]).
  SmallVector<int32_t> sinkable;
  SmallVector<uint32_t> userBegin;
  SmallVector<int32_t> users;
  /// Per op, the first later op that updates in place a buffer it reads
  /// (a sunk op moves no further), or -1.
  SmallVector<int32_t> sinkLimit;

  /// Activation bytes, in getActivations order.
  SmallVector<int64_t> activationBytes;
};

} // namespace mlir::memopt

#endif // MEMOPT_TRANSFORMS_KEEPSETMODEL_H
