//===- Blockwise8bit.cpp - bitsandbytes' dynamic quantization maps --------===//
//
// bitsandbytes' `create_dynamic_map(signed, max_exponent_bits=7,
// total_bits=8)`, from its definition: for each decade i = 0..6 it takes
// the midpoints of `k` evenly spaced points of [0.1, 1] (`k = 2^i + 1`
// signed, `2^(i+1) + 1` unsigned), scales them by 10^(i-6) (and, signed,
// adds their negatives), then adds 0 and 1 and sorts: 2 * 127 + 2 = 256
// signed values, 254 + 2 unsigned.
//
// bitsandbytes computes this in PyTorch f32 arithmetic, so the values are
// those roundings: the points come from `torch.linspace(0.1, 1, k)`, the
// midpoints are `(a + b) / 2` in f32 and the scale is the f32 product of
// `f32(10^(i-6))` and the midpoint. This reproduces PyTorch's 8-lane (AVX2)
// CPU linspace kernel, as test/Integration/adam8bit-maps.test checks against
// torch.linspace: point `j` of the first half is `fma(step, j, 0.1)` and of
// the second half `fma(-step, k-1-j, 1)`, with `step = (1 - 0.1) / (k - 1)`
// in f32, except in the vector loop, which covers pairs of 8-point chunks
// from the start while 16 points remain and computes each chunk's first
// point so and the others as `first + l * step` (a rounded product, then a
// rounded sum). A PyTorch that takes another kernel (another vector width)
// may round some points, and so some map values, one ulp apart; these
// values are fixed.
//
//===----------------------------------------------------------------------===//

#include "memopt/Dialect/Train/IR/Blockwise8bit.h"
#include "memopt/Dialect/Train/IR/TrainOps.h"

#include "llvm/ADT/SmallVector.h"

#include <algorithm>
#include <array>
#include <cmath>

using namespace mlir;
using namespace mlir::memopt;

// One f32 operation each, correctly rounded: computed in f64 (exact for a
// product of two f32 values, and rounded once more to f32 without a
// double-rounding error for a sum), then rounded to f32. One operation per
// function, so that no compiler contracts two into a fused multiply-add.
static float addF32(float a, float b) {
  return static_cast<float>(static_cast<double>(a) + static_cast<double>(b));
}
static float subF32(float a, float b) {
  return static_cast<float>(static_cast<double>(a) - static_cast<double>(b));
}
static float mulF32(float a, float b) {
  return static_cast<float>(static_cast<double>(a) * static_cast<double>(b));
}

/// `torch.linspace(0.1, 1, steps)` in f32, rounded as PyTorch's 8-lane CPU
/// kernel rounds it (see the file comment).
static llvm::SmallVector<float> linspace(int64_t steps) {
  const float start = 0.1f, end = 1.0f;
  float step = subF32(end, start) / static_cast<float>(steps - 1);
  int64_t half = steps / 2;
  auto point = [&](int64_t j) {
    if (j < half)
      return std::fma(step, static_cast<float>(j), start);
    return std::fma(-step, static_cast<float>(steps - 1 - j), end);
  };
  constexpr int64_t kLanes = 8;
  llvm::SmallVector<float> points(steps);
  int64_t vectorPoints = steps / (2 * kLanes) * (2 * kLanes);
  for (int64_t chunk = 0; chunk < vectorPoints; chunk += kLanes) {
    float first = point(chunk);
    for (int64_t lane = 0; lane < kLanes; ++lane)
      points[chunk + lane] =
          addF32(first, mulF32(static_cast<float>(lane), step));
  }
  for (int64_t j = vectorPoints; j < steps; ++j)
    points[j] = point(j);
  return points;
}

static std::array<float, 256> createDynamicMap(bool isSigned) {
  // f32(10^(i - 6)): PyTorch rounds the Python scalar to the tensor's type.
  static constexpr double kScales[] = {1e-6, 1e-5, 1e-4, 1e-3, 1e-2, 1e-1, 1.0};
  llvm::SmallVector<float, 256> values;
  for (int64_t i = 0; i < 7; ++i) {
    int64_t steps = (int64_t(1) << (isSigned ? i : i + 1)) + 1;
    llvm::SmallVector<float> points = linspace(steps);
    float scale = static_cast<float>(kScales[i]);
    llvm::SmallVector<float> scaled;
    for (int64_t j = 0; j + 1 < steps; ++j)
      scaled.push_back(mulF32(scale, addF32(points[j], points[j + 1]) / 2.0f));
    values.append(scaled);
    if (isSigned)
      for (float value : scaled)
        values.push_back(-value);
  }
  values.push_back(0.0f);
  values.push_back(1.0f);
  std::array<float, 256> map;
  std::copy(values.begin(), values.end(), map.begin());
  std::sort(map.begin(), map.end());
  return map;
}

llvm::ArrayRef<float> train::getDynamicMap(bool isSigned) {
  static const std::array<float, 256> signedMap = createDynamicMap(true);
  static const std::array<float, 256> unsignedMap = createDynamicMap(false);
  return isSigned ? signedMap : unsignedMap;
}

void train::buildAdam8bitUpdate(OpBuilder &builder, Location loc,
                                StringRef name, Value param, Value grad,
                                Value step, Value gradScale,
                                Value foundNonfinite, Value skippedSteps,
                                double lr, double beta1, double beta2,
                                double epsilon, double weightDecay,
                                bool decoupled) {
  auto type = cast<RankedTensorType>(param.getType());
  auto codes = type.clone(builder.getI8Type());
  auto absmax = RankedTensorType::get(
      {getBlockwise8bitBlocks(type.getNumElements())}, builder.getF32Type());
  auto state = [&](StringRef suffix, Type stateType) -> Value {
    return OptStateOp::create(builder, loc, stateType,
                              (name + "." + suffix).str());
  };
  Value mCodes = state("exp_avg.codes", codes);
  Value mAbsmax = state("exp_avg.absmax", absmax);
  Value vCodes = state("exp_avg_sq.codes", codes);
  Value vAbsmax = state("exp_avg_sq.absmax", absmax);
  auto f64 = [&](double v) { return builder.getF64FloatAttr(v); };
  if (decoupled)
    AdamW8bitOp::create(builder, loc, param, grad, mCodes, mAbsmax, vCodes,
                        vAbsmax, step, gradScale, foundNonfinite, skippedSteps,
                        f64(lr), f64(beta1), f64(beta2), f64(epsilon),
                        f64(weightDecay));
  else
    Adam8bitOp::create(builder, loc, param, grad, mCodes, mAbsmax, vCodes,
                       vAbsmax, step, gradScale, foundNonfinite, skippedSteps,
                       f64(lr), f64(beta1), f64(beta2), f64(epsilon),
                       f64(weightDecay));
}
