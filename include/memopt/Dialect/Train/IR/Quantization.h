//===- Quantization.h - quantized storage of frozen weights -----*- C++ -*-===//
//
// The formats train-quantize-frozen stores frozen linear weights in, and
// their exact arithmetic: QLoRA's NF4 (Dettmers et al., "QLoRA: Efficient
// Finetuning of Quantized LLMs", 2023), block-wise with optional double
// quantization of the block absmaxes, and LLM.int8-style row-wise int8. The
// dequantize ops' verifiers, the pass, the CPU lowering and mem-run's
// initialization read these definitions (docs/finetune.md).
//
//===----------------------------------------------------------------------===//

#ifndef MEMOPT_DIALECT_TRAIN_IR_QUANTIZATION_H
#define MEMOPT_DIALECT_TRAIN_IR_QUANTIZATION_H

#include "mlir/IR/Value.h"
#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/SmallVector.h"
#include "llvm/ADT/StringRef.h"

#include <cstdint>
#include <optional>

namespace mlir::memopt::train {

/// The storage formats of train-quantize-frozen.
enum class WeightFormat {
  /// 4-bit NormalFloat codes, block-wise absmax (train.dequantize_nf4).
  NF4,
  /// int8 codes, one absmax per output feature (train.dequantize_int8).
  Int8,
};

/// Default elements per NF4 block (QLoRA's and bitsandbytes' 64).
inline constexpr int64_t kDefaultNF4Block = 64;
/// The smallest and largest NF4 block: a power of two of at least 2, so
/// that a byte's two codes belong to one block, and at most 2^16.
inline constexpr int64_t kMinNF4Block = 2;
inline constexpr int64_t kMaxNF4Block = int64_t(1) << 16;
/// Block absmaxes per second-level block under double quantization (one
/// f32 scale each; bitsandbytes' 256).
inline constexpr int64_t kDoubleQuantBlock = 256;

/// The 16 NF4 values in ascending order (code i is value i). QLoRA's
/// construction as bitsandbytes evaluates it (`create_normal_map(offset =
/// 0.9677083, use_extra_value = True)`): p = torch.linspace(0.9677083, 0.5,
/// 9)[:-1] and torch.linspace(0.9677083, 0.5, 8)[:-1] in f32, q = the
/// standard normal's quantile of each p in double (and -q for the 7 of the
/// second list), with an exact 0; the 16 values rounded to f32, sorted, and
/// divided by the largest in f32. This is bitsandbytes' published table bit
/// for bit (the same construction in exact arithmetic differs from it by up
/// to 6 units in the last place).
llvm::ArrayRef<float> getNF4Values();

/// The index of the value of the ascending `map` nearest to `x`: with `i`
/// the largest index such that `map[i] <= x` (0 when `x < map[0]`) and
/// `j = min(i + 1, size - 1)`, `i` when `x - map[i] <= map[j] - x` (both
/// differences rounded to f32), else `j`: a tie goes to the lower value.
unsigned getNearestCode(llvm::ArrayRef<float> map, float x);

/// The number of NF4 blocks of a weight of `numElements`:
/// `ceil(numElements / block)` (the last block may be partial).
inline int64_t getNF4Blocks(int64_t numElements, int64_t block) {
  return (numElements + block - 1) / block;
}

/// The bytes of NF4 codes of `numElements`: two codes per byte, the first
/// element in the high nibble; an odd count pads the last low nibble with 0.
inline int64_t getNF4CodeBytes(int64_t numElements) {
  return (numElements + 1) / 2;
}

/// The number of second-level blocks (f32 scales) of `blocks` absmaxes.
inline int64_t getDoubleQuantBlocks(int64_t blocks) {
  return (blocks + kDoubleQuantBlock - 1) / kDoubleQuantBlock;
}

/// What NF4 stores for one weight.
struct NF4Storage {
  /// getNF4CodeBytes(n) bytes of packed codes.
  llvm::SmallVector<uint8_t> codes;
  /// Without double quantization: the f32 absmax of each block.
  llvm::SmallVector<float> absmax;
  /// With double quantization: the 8-bit code of each block's absmax into
  /// the signed dynamic map (getDynamicMap(true)), one f32 scale per
  /// kDoubleQuantBlock absmaxes, and the f32 offset (their mean).
  llvm::SmallVector<uint8_t> absmaxCodes;
  llvm::SmallVector<float> absmaxScales;
  float offset = 0.0f;
};

/// Quantizes `values` (a weight, row-major) to NF4 in blocks of `block`:
///  1. absmax[b] = max |w| over block b (exact);
///  2. each element's code is getNearestCode(NF4, w / absmax[b]) (the
///     quotient rounded to f32; 0 when absmax[b] is 0);
///  3. with `doubleQuant`: offset = the mean of the absmaxes (their sum in
///     double, element by element, divided by their count in double, then
///     rounded to f32); c[b] = absmax[b] - offset (f32); scale[k] =
///     max |c| over second-level block k; code[b] =
///     getNearestCode(dynamic map, c[b] / scale[k]) (f32; 0 when the scale
///     is 0).
/// The weight an element dequantizes to is `NF4[code] * A[b]` in f32, with
/// `A[b] = absmax[b]`, or under double quantization
/// `A[b] = dynamic[code[b]] * scale[k] + offset` (each operation rounded to
/// f32), then rounded to the compute type.
NF4Storage quantizeNF4(llvm::ArrayRef<float> values, int64_t block,
                       bool doubleQuant);

/// What int8 stores for one weight.
struct Int8Storage {
  /// One code in [-127, 127] per element, row-major.
  llvm::SmallVector<int8_t> codes;
  /// One f32 absmax per index of dimension `axis` (per output feature).
  llvm::SmallVector<float> scales;
};

/// Quantizes `values` (a weight of `shape`, row-major) to int8 with one
/// absmax per index of dimension `axis` (LLM.int8's row-wise absmax):
/// scale[r] = max |w| over the elements with index r along `axis`; code =
/// round-half-to-even((w / scale[r]) * 127), each operation rounded to f32
/// (0 when the scale is 0). An element dequantizes to
/// `(code * scale[r]) / 127`, each operation rounded to f32.
Int8Storage quantizeInt8(llvm::ArrayRef<float> values,
                         llvm::ArrayRef<int64_t> shape, int64_t axis);

/// Whether `value` (a train.param's result) is quantized storage: a
/// dequantize op reads it. train-precision keeps such parameters' types,
/// and mem-run fills them by quantizing the weight they store.
bool isQuantizedStorage(Value value);

/// The name of a format ("nf4", "int8") and the format a name names.
llvm::StringRef stringifyWeightFormat(WeightFormat format);
std::optional<WeightFormat> symbolizeWeightFormat(llvm::StringRef name);

} // namespace mlir::memopt::train

#endif // MEMOPT_DIALECT_TRAIN_IR_QUANTIZATION_H
