//===- TrainTraits.h - train op traits and resources ------------*- C++ -*-===//

#ifndef MEMOPT_DIALECT_TRAIN_IR_TRAINTRAITS_H
#define MEMOPT_DIALECT_TRAIN_IR_TRAINTRAITS_H

#include "mlir/IR/OpDefinition.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"

namespace mlir::memopt::train {

/// Precision class: the op is correct in 16-bit or 8-bit floating point.
template <typename ConcreteType>
class LowPrecisionSafe
    : public OpTrait::TraitBase<ConcreteType, LowPrecisionSafe> {};

/// Precision class: the op computes in fp32 under any mixed-precision policy.
template <typename ConcreteType>
class KeepFP32 : public OpTrait::TraitBase<ConcreteType, KeepFP32> {};

/// Precision class: mixed inputs are computed in the widest input type.
template <typename ConcreteType>
class PromoteToWidest
    : public OpTrait::TraitBase<ConcreteType, PromoteToWidest> {};

/// The single result is a view of operand 0 (no new bytes).
template <typename ConcreteType>
class ViewOp : public OpTrait::TraitBase<ConcreteType, ViewOp> {};

/// The precision class of an op; every train op has exactly one.
enum class PrecisionClass { LowPrecisionSafe, KeepFP32, PromoteToWidest };

/// Returns the precision class of `op`, or std::nullopt for ops outside the
/// train dialect that carry none of the precision traits.
std::optional<PrecisionClass> getPrecisionClass(Operation *op);

/// Returns the trait name of a precision class ("low-precision-safe", ...).
llvm::StringRef stringifyPrecisionClass(PrecisionClass cls);

/// Persistent parameters and optimizer states.
struct StateResource : public SideEffects::Resource::Base<StateResource> {
  llvm::StringRef getName() final { return "train::State"; }
};

/// Tensor lifetime markers (`train.free`).
struct LifetimeResource : public SideEffects::Resource::Base<LifetimeResource> {
  llvm::StringRef getName() final { return "train::Lifetime"; }
};

} // namespace mlir::memopt::train

#endif // MEMOPT_DIALECT_TRAIN_IR_TRAINTRAITS_H
