//===- Precision.h - the mixed-precision configuration of a step -*- C++
//-*-===//
//
// train-precision records what it did on the function as `train.precision`
// (a dictionary). train-autodiff reads it to give the gradients their
// precision and to scale the loss; the memory report reads it to name the
// mode. This header is the one reader and writer of that attribute.
//
//===----------------------------------------------------------------------===//

#ifndef MEMOPT_DIALECT_TRAIN_IR_PRECISION_H
#define MEMOPT_DIALECT_TRAIN_IR_PRECISION_H

#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/Interfaces/FunctionInterfaces.h"
#include "llvm/ADT/StringRef.h"

#include <optional>

namespace mlir::memopt::train {

/// The precision modes of train-precision.
enum class PrecisionMode {
  /// Unchanged: every float tensor f32.
  FP32,
  /// fp32 master weights; a bf16 copy of every parameter per step; ops of
  /// the LowPrecisionSafe class in bf16, KeepFP32 ops in f32.
  BF16Mixed,
  /// As BF16Mixed in f16, with loss scaling.
  FP16Mixed,
  /// Parameters, gradients and optimizer states in bf16 (no master copy);
  /// KeepFP32 ops still compute in f32.
  BF16Pure,
  /// As BF16Mixed, with the matmuls that read a parameter (linear layers)
  /// in fp8: E4M3 operands in the forward pass, E5M2 output gradients in
  /// the backward pass, each scaled by delayed scaling.
  FP8,
};

/// The option spelling of `mode` ("bf16-mixed").
llvm::StringRef stringifyPrecisionMode(PrecisionMode mode);
std::optional<PrecisionMode> symbolizePrecisionMode(llvm::StringRef text);

/// How the loss is scaled before the backward pass.
enum class LossScaling { None, Static, Dynamic };

/// The contents of `train.precision`.
struct PrecisionConfig {
  PrecisionMode mode = PrecisionMode::FP32;
  /// The gradients handed to the optimizer are in the low type (bf16/f16)
  /// rather than f32.
  bool lowPrecisionGradients = false;
  LossScaling lossScaling = LossScaling::None;
  /// The static scale, or the initial scale of dynamic scaling.
  double scale = 1.0;
  /// Dynamic scaling: finite steps before the scale doubles.
  int64_t growthInterval = 2000;
  /// fp8: the amax steps each history keeps.
  int64_t amaxHistory = 16;
  /// fp8: powers of two of headroom below the format's largest value.
  int64_t margin = 0;

  /// bf16 or f16; null for FP32.
  Type getLowType(MLIRContext *ctx) const;
  /// The type the optimizer receives gradients in.
  Type getGradientType(MLIRContext *ctx) const;
  DictionaryAttr toAttr(MLIRContext *ctx) const;
  /// Parses `attr`, reporting what is wrong through `emitError`.
  static FailureOr<PrecisionConfig>
  fromAttr(DictionaryAttr attr, function_ref<InFlightDiagnostic()> emitError);
};

/// The configuration recorded on `func`, if train-precision lowered it.
std::optional<PrecisionConfig> getPrecisionConfig(FunctionOpInterface func);

/// The largest finite value of an fp8 format train.fp8_scale accepts
/// (f8E4M3FN: 448, f8E5M2: 57344); nullopt for other types.
std::optional<double> getFP8MaxFinite(Type type);

/// The names of the persistent states dynamic loss scaling keeps. The scale
/// is `initial_scale * 2^exponent`: growth doubles it and backoff halves it,
/// so an i64 exponent that starts at 0 (every state starts at zero) holds it
/// exactly.
inline constexpr llvm::StringLiteral kLossScaleExponentState =
    "loss_scale.exponent";
inline constexpr llvm::StringLiteral kLossScaleGrowthTrackerState =
    "loss_scale.growth_tracker";
/// The steps skipped for non-finite gradients: Adam's step count for bias
/// correction excludes them, as PyTorch's does (GradScaler does not call
/// optimizer.step() on them).
inline constexpr llvm::StringLiteral kLossScaleSkippedState =
    "loss_scale.skipped_steps";

} // namespace mlir::memopt::train

#endif // MEMOPT_DIALECT_TRAIN_IR_PRECISION_H
