//===- Init.cpp - deterministic initialization of step tensors ------------===//
//
// Compiled with -ffp-contract=off: the documented formulas round after every
// operation, and a fused multiply-add would change the last bit.
//
//===----------------------------------------------------------------------===//

#include "memopt/Execution/Init.h"

#include "llvm/ADT/APFloat.h"
#include "llvm/ADT/APInt.h"

#include <cmath>
#include <cstring>

using namespace mlir;
using namespace mlir::memopt;

uint32_t execution::fnv1a32(llvm::StringRef text) {
  uint32_t hash = 2166136261u;
  for (unsigned char c : text.bytes()) {
    hash ^= c;
    hash *= 16777619u;
  }
  return hash;
}

double execution::initPhase(llvm::StringRef name) {
  double twoPi = 2.0 * 3.14159265358979323846;
  return static_cast<double>(fnv1a32(name) % 1000u) * twoPi / 1000.0;
}

double execution::paramAmplitude(llvm::StringRef name, RankedTensorType type) {
  ArrayRef<int64_t> shape = type.getShape();
  if (name.ends_with(".lora_B.weight"))
    return 0.0;
  if (name.ends_with(".lora_A.weight") && shape.size() == 2 && shape[1] > 0)
    return 1.0 / std::sqrt(static_cast<double>(shape[1]));
  int64_t fanIn = 1;
  if (shape.size() == 1)
    fanIn = shape[0];
  else if (shape.size() >= 2)
    for (int64_t dim : shape.drop_back())
      fanIn *= dim;
  if (fanIn <= 0)
    return 1.0;
  return 1.0 / std::sqrt(static_cast<double>(fanIn));
}

double execution::initValue(double amplitude, double phase, int64_t index) {
  double angle = 0.37 * static_cast<double>(index);
  angle = angle + phase;
  return amplitude * std::sin(angle);
}

uint64_t execution::initInteger(llvm::StringRef name, int64_t index,
                                uint64_t bound) {
  uint64_t value =
      static_cast<uint64_t>(fnv1a32(name)) + 7u * static_cast<uint64_t>(index);
  return value % bound;
}

unsigned execution::getStorageBytes(Type elementType) {
  if (!isa<FloatType, IntegerType>(elementType))
    return 0;
  unsigned width = elementType.getIntOrFloatBitWidth();
  // LLVM stores an i1 element in a byte.
  if (width == 1 && isa<IntegerType>(elementType))
    return 1;
  if (width != 8 && width != 16 && width != 32 && width != 64)
    return 0;
  // x86's 80-bit and other padded float formats are not plain `width` bits.
  if (auto floatType = dyn_cast<FloatType>(elementType))
    if (llvm::APFloat::getSizeInBits(floatType.getFloatSemantics()) != width)
      return 0;
  return width / 8;
}

void execution::storeFloat(Type elementType, void *dst, double value) {
  if (elementType.isF64()) {
    std::memcpy(dst, &value, sizeof(double));
    return;
  }
  if (elementType.isF32()) {
    float narrow = static_cast<float>(value);
    std::memcpy(dst, &narrow, sizeof(float));
    return;
  }
  llvm::APFloat converted(value);
  bool losesInfo = false;
  converted.convert(cast<FloatType>(elementType).getFloatSemantics(),
                    llvm::APFloat::rmNearestTiesToEven, &losesInfo);
  uint64_t bits = converted.bitcastToAPInt().getZExtValue();
  std::memcpy(dst, &bits, getStorageBytes(elementType)); // Little-endian.
}

double execution::loadFloat(Type elementType, const void *src) {
  if (elementType.isF64()) {
    double value;
    std::memcpy(&value, src, sizeof(double));
    return value;
  }
  if (elementType.isF32()) {
    float value;
    std::memcpy(&value, src, sizeof(float));
    return value;
  }
  uint64_t bits = 0;
  unsigned bytes = getStorageBytes(elementType);
  std::memcpy(&bits, src, bytes);
  llvm::APFloat value(cast<FloatType>(elementType).getFloatSemantics(),
                      llvm::APInt(bytes * 8, bits));
  bool losesInfo = false;
  value.convert(llvm::APFloat::IEEEdouble(), llvm::APFloat::rmNearestTiesToEven,
                &losesInfo);
  return value.convertToDouble();
}

void execution::storeInteger(Type elementType, void *dst, uint64_t value) {
  std::memcpy(dst, &value, getStorageBytes(elementType)); // Little-endian.
}

int64_t execution::loadInteger(Type elementType, const void *src) {
  uint64_t bits = 0;
  unsigned bytes = getStorageBytes(elementType);
  std::memcpy(&bits, src, bytes);
  if (elementType.isInteger(1))
    return bits & 1;
  return llvm::APInt(bytes * 8, bits).getSExtValue();
}
