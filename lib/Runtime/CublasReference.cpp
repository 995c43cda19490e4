//===- CublasReference.cpp - memopt_cublas_gemm on the CPU ----------------===//

#include "memopt/Runtime/Cublas.h"

#include <cstdio>
#include <cstdlib>
#include <cstring>

namespace {

/// f16 bits to float (exact).
float halfToFloat(uint16_t h) {
  uint32_t sign = static_cast<uint32_t>(h & 0x8000) << 16;
  uint32_t exponent = (h >> 10) & 0x1f;
  uint32_t mantissa = h & 0x3ff;
  uint32_t bits;
  if (exponent == 0x1f) {
    bits = sign | 0x7f800000 | (mantissa << 13);
  } else if (exponent != 0) {
    bits = sign | ((exponent + 112) << 23) | (mantissa << 13);
  } else if (mantissa == 0) {
    bits = sign;
  } else {
    // Subnormal: normalize.
    int shift = 0;
    while (!(mantissa & 0x400)) {
      mantissa <<= 1;
      ++shift;
    }
    bits = sign | ((113 - shift) << 23) | ((mantissa & 0x3ff) << 13);
  }
  float f;
  std::memcpy(&f, &bits, sizeof(f));
  return f;
}

/// float to f16 bits, rounding to nearest even.
uint16_t floatToHalf(float f) {
  uint32_t bits;
  std::memcpy(&bits, &f, sizeof(bits));
  uint32_t sign = (bits >> 16) & 0x8000;
  uint32_t absBits = bits & 0x7fffffff;
  if (absBits > 0x7f800000) // NaN
    return static_cast<uint16_t>(sign | 0x7e00);
  if (absBits >= 0x477ff000) // Rounds to infinity (or is).
    return static_cast<uint16_t>(sign | 0x7c00);
  if (absBits < 0x38800000) {
    // Subnormal or zero in f16: value * 2^24 rounded to an integer.
    float magnitude;
    std::memcpy(&magnitude, &absBits, sizeof(magnitude));
    float scaled = magnitude * 16777216.0f; // exact (power of two)
    uint32_t integer = static_cast<uint32_t>(scaled);
    float rest = scaled - static_cast<float>(integer);
    if (rest > 0.5f || (rest == 0.5f && (integer & 1)))
      ++integer;
    return static_cast<uint16_t>(sign | integer);
  }
  uint32_t exponent = ((absBits >> 23) - 112) << 10;
  uint32_t mantissa = absBits & 0x7fffff;
  uint32_t result = exponent | (mantissa >> 13);
  uint32_t rest = mantissa & 0x1fff;
  if (rest > 0x1000 || (rest == 0x1000 && (result & 1)))
    ++result; // May carry into the exponent, which is right.
  return static_cast<uint16_t>(sign | result);
}

float bf16ToFloat(uint16_t h) {
  uint32_t bits = static_cast<uint32_t>(h) << 16;
  float f;
  std::memcpy(&f, &bits, sizeof(f));
  return f;
}

uint16_t floatToBf16(float f) {
  uint32_t bits;
  std::memcpy(&bits, &f, sizeof(bits));
  if ((bits & 0x7fffffff) > 0x7f800000)
    return static_cast<uint16_t>((bits >> 16) | 0x40);
  bits += 0x7fff + ((bits >> 16) & 1);
  return static_cast<uint16_t>(bits >> 16);
}

int64_t elementBytes(int32_t type) {
  switch (type) {
  case 0:
    return 4;
  case 1:
    return 8;
  case 2:
  case 3:
    return 2;
  default:
    std::fprintf(stderr, "memopt_cublas_gemm: unknown element type code %d\n",
                 type);
    std::exit(1);
  }
}

double load(const char *base, int32_t type, int64_t index) {
  switch (type) {
  case 0: {
    float v;
    std::memcpy(&v, base + index * 4, 4);
    return v;
  }
  case 1: {
    double v;
    std::memcpy(&v, base + index * 8, 8);
    return v;
  }
  case 2: {
    uint16_t v;
    std::memcpy(&v, base + index * 2, 2);
    return halfToFloat(v);
  }
  default: {
    uint16_t v;
    std::memcpy(&v, base + index * 2, 2);
    return bf16ToFloat(v);
  }
  }
}

void store(char *base, int32_t type, int64_t index, double value) {
  switch (type) {
  case 0: {
    float v = static_cast<float>(value);
    std::memcpy(base + index * 4, &v, 4);
    return;
  }
  case 1:
    std::memcpy(base + index * 8, &value, 8);
    return;
  case 2: {
    uint16_t v = floatToHalf(static_cast<float>(value));
    std::memcpy(base + index * 2, &v, 2);
    return;
  }
  default: {
    uint16_t v = floatToBf16(static_cast<float>(value));
    std::memcpy(base + index * 2, &v, 2);
    return;
  }
  }
}

} // namespace

extern "C" void
memopt_cublas_gemm(int32_t typeX, int32_t typeY, int32_t typeC, int32_t compute,
                   int32_t transX, int32_t transY, int64_t rows, int64_t cols,
                   int64_t depth, int64_t xBase, int64_t xOffset, int64_t ldx,
                   int64_t yBase, int64_t yOffset, int64_t ldy, int64_t cBase,
                   int64_t cOffset, int64_t ldc, int64_t outer, int64_t xOuter,
                   int64_t yOuter, int64_t cOuter, int64_t inner,
                   int64_t xInner, int64_t yInner, int64_t cInner) {
  auto *x =
      reinterpret_cast<const char *>(xBase) + xOffset * elementBytes(typeX);
  auto *y =
      reinterpret_cast<const char *>(yBase) + yOffset * elementBytes(typeY);
  auto *c = reinterpret_cast<char *>(cBase) + cOffset * elementBytes(typeC);
  for (int64_t b = 0; b < outer; ++b) {
    for (int64_t i = 0; i < inner; ++i) {
      int64_t xAt = b * xOuter + i * xInner;
      int64_t yAt = b * yOuter + i * yInner;
      int64_t cAt = b * cOuter + i * cInner;
      for (int64_t col = 0; col < cols; ++col) {
        for (int64_t row = 0; row < rows; ++row) {
          // op(X)[row][k]: X column-major rows x depth, or (T) depth x rows.
          // op(Y)[k][col]: Y depth x cols, or (T) cols x depth.
          float sumF = 0.0f;
          double sumD = 0.0;
          for (int64_t k = 0; k < depth; ++k) {
            int64_t xi = transX ? k + row * ldx : row + k * ldx;
            int64_t yi = transY ? col + k * ldy : k + col * ldy;
            double a = load(x, typeX, xAt + xi);
            double bv = load(y, typeY, yAt + yi);
            if (compute == 1)
              sumD += a * bv;
            else
              sumF += static_cast<float>(a) * static_cast<float>(bv);
          }
          int64_t ci = cAt + row + col * ldc;
          double previous = load(c, typeC, ci);
          double result =
              compute == 1
                  ? sumD + previous
                  : static_cast<double>(sumF + static_cast<float>(previous));
          store(c, typeC, ci, result);
        }
      }
    }
  }
}
