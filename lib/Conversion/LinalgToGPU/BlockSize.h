//===- BlockSize.h - the block-size option of the GPU loop passes -*- C++ -*-=//

#ifndef MEMOPT_LIB_CONVERSION_LINALGTOGPU_BLOCKSIZE_H
#define MEMOPT_LIB_CONVERSION_LINALGTOGPU_BLOCKSIZE_H

#include "mlir/IR/Operation.h"

namespace mlir::memopt {

/// Checks a `block-size` option (threads per block: a multiple of a warp
/// within CUDA's 1024); reports the error on `op` when it is not.
inline LogicalResult checkBlockSize(Operation *op, int64_t blockSize) {
  if (blockSize >= 32 && blockSize <= 1024 && blockSize % 32 == 0)
    return success();
  return op->emitError()
         << "block-size must be a multiple of 32 between 32 and 1024, got "
         << blockSize;
}

} // namespace mlir::memopt

#endif // MEMOPT_LIB_CONVERSION_LINALGTOGPU_BLOCKSIZE_H
