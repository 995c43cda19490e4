//===- Init.h - deterministic initialization of step tensors ----*- C++ -*-===//
//
// The formulas mem-run fills parameters and step arguments with. They are
// documented in docs/execution.md so that NumPy or PyTorch can rebuild the
// same tensors bit for bit (test/Integration/pytorch/memrun_init.py does).
//
//===----------------------------------------------------------------------===//

#ifndef MEMOPT_EXECUTION_INIT_H
#define MEMOPT_EXECUTION_INIT_H

#include "mlir/IR/BuiltinTypes.h"
#include "llvm/ADT/StringRef.h"

#include <cstdint>

namespace mlir::memopt::execution {

/// 32-bit FNV-1a hash of the bytes of `text`.
uint32_t fnv1a32(llvm::StringRef text);

/// `(fnv1a32(name) mod 1000) * (2 * pi) / 1000`, evaluated left to right in
/// double.
double initPhase(llvm::StringRef name);

/// Amplitude of the parameter `name` of `type`: `1 / sqrt(fanIn)` where
/// fanIn is the product of all dimensions but the last for rank >= 2, the
/// only dimension for rank 1, and 1 for rank 0. LoRA adapters (train-lora's
/// names) start as PEFT's do: `<module>.lora_B.weight` at zero (amplitude
/// 0), and `<module>.lora_A.weight` (rank x in) with fanIn = in, the bound
/// of PyTorch's kaiming_uniform_(a=sqrt(5)) that PEFT uses.
double paramAmplitude(llvm::StringRef name, RankedTensorType type);

/// `amplitude * sin(0.37 * index + phase)` in double (no fused operations).
double initValue(double amplitude, double phase, int64_t index);

/// `(fnv1a32(name) + 7 * index) mod bound`, in unsigned 64-bit arithmetic.
uint64_t initInteger(llvm::StringRef name, int64_t index, uint64_t bound);

/// Bytes one element of `elementType` occupies in a lowered memref, or 0
/// when mem-run cannot store that type (sub-byte other than i1, wider than
/// 64 bits, or neither float nor integer).
unsigned getStorageBytes(Type elementType);

/// Writes `value` rounded once (to nearest, ties to even) to the float type
/// `elementType` at `dst`.
void storeFloat(Type elementType, void *dst, double value);

/// Reads a float of `elementType` at `src`, widened exactly to double.
double loadFloat(Type elementType, const void *src);

/// Writes the low bytes of `value` as an integer of `elementType` at `dst`.
void storeInteger(Type elementType, void *dst, uint64_t value);

/// Reads a signless integer of `elementType` at `src`, sign-extended (an i1
/// reads as 0 or 1).
int64_t loadInteger(Type elementType, const void *src);

} // namespace mlir::memopt::execution

#endif // MEMOPT_EXECUTION_INIT_H
