//===- Quantization.cpp - NF4 and int8 storage of frozen weights ----------===//
//
// The arithmetic of Quantization.h. Every step is one f32 operation,
// correctly rounded (x86-64 computes float in SSE registers, without excess
// precision), and no product is followed by a sum that a compiler could
// fuse: test/Integration/pytorch/quant_ref.py computes the same values with
// NumPy's float32 operations and the tests compare them bit for bit.
//
//===----------------------------------------------------------------------===//

#include "memopt/Dialect/Train/IR/Quantization.h"

#include "memopt/Dialect/Train/IR/Blockwise8bit.h"

#include "llvm/ADT/StringSwitch.h"

#include <algorithm>
#include <cmath>

using namespace mlir::memopt;

llvm::ArrayRef<float> train::getNF4Values() {
  // bitsandbytes' table, which the construction of Quantization.h gives
  // bit for bit (checked by test/Integration/pytorch/qlora-init.test).
  static const float values[16] = {
      -0x1p+0f,        -0x1.647362p-1f, -0x1.0cd66p-1f,  -0x1.94654p-2f,
      -0x1.23449ap-2f, -0x1.7a6a7ep-3f, -0x1.74f0e2p-4f, 0.0f,
      0x1.45f5fep-4f,  0x1.4995c6p-3f,  0x1.f809bap-3f,  0x1.5a0674p-2f,
      0x1.c3497p-2f,   0x1.200f56p-1f,  0x1.722766p-1f,  0x1p+0f};
  return values;
}

unsigned train::getNearestCode(llvm::ArrayRef<float> map, float x) {
  // The first value greater than x; the one before it is map[i] <= x.
  const float *above = std::upper_bound(map.begin(), map.end(), x);
  unsigned i = above == map.begin() ? 0 : (above - map.begin()) - 1;
  unsigned j = std::min<unsigned>(i + 1, map.size() - 1);
  float below = x - map[i];
  float over = map[j] - x;
  return below <= over ? i : j;
}

/// `numerator / denominator` in f32, or 0 when the denominator is 0 (a
/// block of zeros).
static float normalize(float numerator, float denominator) {
  return denominator == 0.0f ? 0.0f : numerator / denominator;
}

/// The double quantization of `absmax` into `storage`.
static void quantizeAbsmax(llvm::ArrayRef<float> absmax,
                           train::NF4Storage &storage) {
  double sum = 0.0;
  for (float value : absmax)
    sum += static_cast<double>(value);
  storage.offset = static_cast<float>(sum / static_cast<double>(absmax.size()));
  llvm::SmallVector<float> centered;
  for (float value : absmax)
    centered.push_back(value - storage.offset);
  llvm::ArrayRef<float> map = train::getDynamicMap(/*isSigned=*/true);
  int64_t count = static_cast<int64_t>(centered.size());
  for (int64_t start = 0; start < count; start += train::kDoubleQuantBlock) {
    int64_t end = std::min(count, start + train::kDoubleQuantBlock);
    float scale = 0.0f;
    for (int64_t b = start; b < end; ++b)
      scale = std::max(scale, std::fabs(centered[b]));
    storage.absmaxScales.push_back(scale);
    for (int64_t b = start; b < end; ++b)
      storage.absmaxCodes.push_back(static_cast<uint8_t>(
          train::getNearestCode(map, normalize(centered[b], scale))));
  }
}

train::NF4Storage train::quantizeNF4(llvm::ArrayRef<float> values,
                                     int64_t block, bool doubleQuant) {
  NF4Storage storage;
  llvm::ArrayRef<float> nf4 = getNF4Values();
  int64_t count = static_cast<int64_t>(values.size());
  storage.codes.assign(getNF4CodeBytes(count), 0);
  llvm::SmallVector<float> absmax;
  for (int64_t start = 0; start < count; start += block) {
    int64_t end = std::min(count, start + block);
    float scale = 0.0f;
    for (int64_t i = start; i < end; ++i)
      scale = std::max(scale, std::fabs(values[i]));
    absmax.push_back(scale);
    for (int64_t i = start; i < end; ++i) {
      unsigned code = getNearestCode(nf4, normalize(values[i], scale));
      // The first element of a pair in the high nibble.
      storage.codes[i / 2] |= static_cast<uint8_t>(i % 2 ? code : code << 4);
    }
  }
  if (doubleQuant)
    quantizeAbsmax(absmax, storage);
  else
    storage.absmax = std::move(absmax);
  return storage;
}

train::Int8Storage train::quantizeInt8(llvm::ArrayRef<float> values,
                                       llvm::ArrayRef<int64_t> shape,
                                       int64_t axis) {
  int64_t stride = 1;
  for (int64_t dim : shape.drop_front(axis + 1))
    stride *= dim;
  int64_t extent = shape[axis];
  auto index = [&](int64_t i) { return (i / stride) % extent; };
  Int8Storage storage;
  storage.scales.assign(extent, 0.0f);
  int64_t count = static_cast<int64_t>(values.size());
  for (int64_t i = 0; i < count; ++i) {
    float &scale = storage.scales[index(i)];
    scale = std::max(scale, std::fabs(values[i]));
  }
  storage.codes.reserve(count);
  for (int64_t i = 0; i < count; ++i) {
    float scaled = normalize(values[i], storage.scales[index(i)]) * 127.0f;
    // |scaled| <= 127: the quotient's magnitude is at most 1.
    storage.codes.push_back(static_cast<int8_t>(std::nearbyint(scaled)));
  }
  return storage;
}

llvm::StringRef train::stringifyWeightFormat(WeightFormat format) {
  return format == WeightFormat::NF4 ? "nf4" : "int8";
}

std::optional<train::WeightFormat>
train::symbolizeWeightFormat(llvm::StringRef name) {
  return llvm::StringSwitch<std::optional<WeightFormat>>(name)
      .Case("nf4", WeightFormat::NF4)
      .Case("int8", WeightFormat::Int8)
      .Default(std::nullopt);
}
