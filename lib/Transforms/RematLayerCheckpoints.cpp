//===- RematLayerCheckpoints.cpp - train-remat's layers strategy ----------===//
//
// The layer-checkpoint family of train-remat (`layers`, full recomputation as
// Megatron's): the forward buffers at layer boundaries it keeps
// (getLayerCheckpoints) and the rewrite that recomputes every other forward
// value from them (applyLayerCheckpoints).
//
//===----------------------------------------------------------------------===//

#include "RematStrategiesInternal.h"

#include "memopt/Dialect/Train/IR/TrainOps.h"
#include "memopt/Transforms/Passes.h"
#include "memopt/Transforms/RematStrategies.h"

#include "llvm/ADT/DenseSet.h"

using namespace mlir;
using namespace mlir::memopt;
using namespace mlir::memopt::remat;

/// Whether a forward op of a layer other than `key` (or of no layer) reads
/// `value`, directly or through views.
static bool leavesLayer(const TensorLiveness &liveness, Value value,
                        StringRef key) {
  SmallVector<Value> worklist = {value};
  while (!worklist.empty()) {
    Value current = worklist.pop_back_val();
    for (Operation *user : current.getUsers()) {
      if (!computesForward(liveness, user))
        continue;
      if (getLayerKey(user) != key)
        return true;
      auto aliasing = dyn_cast<train::AliasingOpInterface>(user);
      for (OpResult result : user->getResults())
        if (aliasing && aliasing.getViewSource(result.getResultNumber()))
          worklist.push_back(result);
    }
  }
  return false;
}

SmallVector<const Buffer *>
mlir::memopt::getLayerCheckpoints(const TensorLiveness &liveness) {
  SmallVector<const Buffer *> checkpoints;
  for (const Buffer &buffer : liveness.getBuffers()) {
    if (buffer.memoryClass != MemoryClass::Activation &&
        buffer.memoryClass != MemoryClass::Temporary)
      continue;
    Operation *def = buffer.value.getDefiningOp();
    if (!def || !computesForward(liveness, def))
      continue;
    std::string key = getLayerKey(def);
    // Activations outside layers are kept; a value that crosses into
    // another layer (or out of one) is a boundary, whether or not the
    // backward pass reads it: under mixed precision a layer reads the
    // low-precision residual stream only through a cast of it.
    if ((key.empty() && buffer.memoryClass == MemoryClass::Activation) ||
        leavesLayer(liveness, buffer.value, key))
      checkpoints.push_back(&buffer);
  }
  return checkpoints;
}

int64_t mlir::memopt::applyLayerCheckpoints(func::FuncOp func) {
  removeMemoryPlan(func);
  eraseFrees(func);
  TensorLiveness liveness(func);
  // getNeverRecomputed's boundaries are among the checkpoints.
  llvm::DenseSet<Value> kept;
  for (const Buffer *buffer : getLayerCheckpoints(liveness))
    kept.insert(buffer->value);
  addStateReaders(func, liveness, kept);
  sinkEarlyBackwardOps(func, liveness, kept);
  return recomputeUnkept(func, liveness, kept);
}
