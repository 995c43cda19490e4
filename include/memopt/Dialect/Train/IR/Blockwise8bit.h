//===- Blockwise8bit.h - 8-bit block-wise optimizer states ------*- C++ -*-===//
//
// The format of the 8-bit optimizer states of `train.adam8bit` /
// `train.adamw8bit` (Dettmers et al., "8-bit Optimizers via Block-wise
// Quantization", bitsandbytes' 8-bit block-wise optimizers): one byte code
// per element into a 256-value dynamic map and one f32 absmax per block of
// `kBlockwise8bitBlockSize` elements. The verifiers, train-autodiff, the
// CPU lowering and the memory report read these definitions here.
//
//===----------------------------------------------------------------------===//

#ifndef MEMOPT_DIALECT_TRAIN_IR_BLOCKWISE8BIT_H
#define MEMOPT_DIALECT_TRAIN_IR_BLOCKWISE8BIT_H

#include "mlir/IR/Builders.h"
#include "llvm/ADT/ArrayRef.h"

#include <cstdint>

namespace mlir::memopt::train {

/// Elements per quantization block: a state of `n` elements has
/// `ceil(n / kBlockwise8bitBlockSize)` absmax values (the last block may be
/// partial). bitsandbytes' block size of its 8-bit block-wise optimizers
/// before it moved to 256.
inline constexpr int64_t kBlockwise8bitBlockSize = 2048;

/// The smallest parameter, in elements, that train-autodiff gives 8-bit
/// states; smaller ones keep 32-bit Adam (bitsandbytes' `min_8bit_size`).
inline constexpr int64_t kMin8bitStateElements = 4096;

/// The number of blocks (absmax values) of an 8-bit state of `numElements`.
inline int64_t getBlockwise8bitBlocks(int64_t numElements) {
  return (numElements + kBlockwise8bitBlockSize - 1) / kBlockwise8bitBlockSize;
}

/// The bytes of one 8-bit state of `numElements`: a byte per element and 4
/// per block.
inline int64_t getBlockwise8bitStateBytes(int64_t numElements) {
  return numElements + 4 * getBlockwise8bitBlocks(numElements);
}

/// bitsandbytes' `create_dynamic_map(signed)` (dynamic tree quantization,
/// 7 exponent bits, 8 bits in all): 256 f32 values in ascending order, in
/// [-1, 1] (signed: 127 negative, 0, 127 positive and 1) or [0, 1]
/// (unsigned: 0, 254 positive and 1). The definition, and the one PyTorch
/// rounding it reproduces, are in Blockwise8bit.cpp.
llvm::ArrayRef<float> getDynamicMap(bool isSigned);

/// Builds the four 8-bit states of the parameter `param` named `name`
/// (`"<name>.exp_avg.codes"`, `".exp_avg.absmax"`, `".exp_avg_sq.codes"`,
/// `".exp_avg_sq.absmax"`) and its `train.adam8bit` update (with
/// `decoupled`, `train.adamw8bit`) at the builder's insertion point.
/// `gradScale`, `foundNonfinite` and `skippedSteps` may be null.
void buildAdam8bitUpdate(OpBuilder &builder, Location loc, llvm::StringRef name,
                         Value param, Value grad, Value step, Value gradScale,
                         Value foundNonfinite, Value skippedSteps, double lr,
                         double beta1, double beta2, double epsilon,
                         double weightDecay, bool decoupled);

} // namespace mlir::memopt::train

#endif // MEMOPT_DIALECT_TRAIN_IR_BLOCKWISE8BIT_H
