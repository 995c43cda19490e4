//===- MemorySpace.h - host memory in lowered steps -------------*- C++ -*-===//
//
// A step with values in host memory (train-offload, train-remat offload)
// lowers with three marks that the CPU and GPU lowerings share:
//
//   * calls of `memopt_memory_space(i32)` bracket each run of host code
//     (1 before it, 0 after it): the runtime counts the allocations made in
//     between in the host's memory, and the GPU runtime takes them from
//     pinned host memory;
//   * the copies of train.to_host and train.to_device are linalg.copy ops
//     carrying `memopt.memory_copy = "to_host" | "to_device"`;
//   * the module's `memopt.host_globals` names the globals (parameters,
//     optimizer states) that live in host memory.
//
// HostCode finds the host code of a lowered function again, after
// bufferization, so that the GPU lowering leaves it on the CPU.
//
//===----------------------------------------------------------------------===//

#ifndef MEMOPT_CONVERSION_MEMORYSPACE_H
#define MEMOPT_CONVERSION_MEMORYSPACE_H

#include "mlir/IR/Operation.h"
#include "llvm/ADT/SmallPtrSet.h"
#include "llvm/ADT/StringRef.h"

namespace mlir::memopt {

/// The runtime function that sets the memory space the allocations that
/// follow count in: memopt_memory_space(i32 space), 0 device, 1 host.
inline constexpr llvm::StringLiteral kMemorySpaceFunction =
    "memopt_memory_space";

/// On a linalg.copy: the copy of a train.to_host ("to_host") or
/// train.to_device ("to_device").
inline constexpr llvm::StringLiteral kMemoryCopyAttrName = "memopt.memory_copy";

/// On the module: an array of the names of the globals in host memory.
inline constexpr llvm::StringLiteral kHostGlobalsAttrName =
    "memopt.host_globals";

/// The runtime function a copy between the spaces becomes on the GPU path:
/// memopt_memory_copy(i64 dst, i64 src, i64 bytes, i32 to_device).
inline constexpr llvm::StringLiteral kMemoryCopyFunction = "memopt_memory_copy";

/// The host code of the functions under a root operation: the ops of each
/// function's body between a call of memopt_memory_space(1) and the next
/// call of memopt_memory_space(0), found in the body's first block (the
/// lowering keeps a step in one block until its loops become branches).
class HostCode {
public:
  explicit HostCode(Operation *root);

  /// Whether `op`, or its ancestor in a function body, is host code.
  bool contains(Operation *op) const;
  bool empty() const { return ops.empty(); }

private:
  llvm::SmallPtrSet<Operation *, 32> ops;
};

} // namespace mlir::memopt

#endif // MEMOPT_CONVERSION_MEMORYSPACE_H
