//===- TrainTraits.h - train op traits and resources ------------*- C++ -*-===//

#ifndef MEMOPT_DIALECT_TRAIN_IR_TRAINTRAITS_H
#define MEMOPT_DIALECT_TRAIN_IR_TRAINTRAITS_H

#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/Diagnostics.h"
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

/// The largest tensor memopt accepts, in bytes (16 TiB, about a hundred times
/// the largest accelerator memory): a step sums the sizes of up to millions
/// of buffers in 64-bit integers, which must never wrap around.
inline constexpr int64_t kMaxTensorBytes = int64_t(1) << 44;

/// The bytes of `type` (a statically shaped ranked tensor: elements times
/// ceil(bitwidth / 8)) if they are at most kMaxTensorBytes, computed without
/// overflow; std::nullopt if they are more. Other types take 0 bytes.
std::optional<int64_t> getBoundedTensorBytes(Type type);

/// Emits an error at `loc` if `type` is a tensor larger than
/// kMaxTensorBytes; `what` names it ("operand #1", "argument #0").
LogicalResult verifyTensorSize(Location loc, Type type, const Twine &what);

/// Every tensor operand and result is at most kMaxTensorBytes.
template <typename ConcreteType>
class BoundedTensorSizes
    : public OpTrait::TraitBase<ConcreteType, BoundedTensorSizes> {
public:
  static LogicalResult verifyTrait(Operation *op) {
    for (auto [i, type] : llvm::enumerate(op->getOperandTypes()))
      if (failed(verifyTensorSize(op->getLoc(), type, "operand #" + Twine(i))))
        return failure();
    for (auto [i, type] : llvm::enumerate(op->getResultTypes()))
      if (failed(verifyTensorSize(op->getLoc(), type, "result #" + Twine(i))))
        return failure();
    return success();
  }
};

/// Every float attribute of the op is finite (no inf, no NaN).
template <typename ConcreteType>
class FiniteFloatAttributes
    : public OpTrait::TraitBase<ConcreteType, FiniteFloatAttributes> {
public:
  static LogicalResult verifyTrait(Operation *op) {
    for (NamedAttribute attr : op->getAttrs())
      if (auto value = dyn_cast<FloatAttr>(attr.getValue()))
        if (!value.getValue().isFinite())
          return op->emitOpError() << "attribute '" << attr.getName().getValue()
                                   << "' must be finite, got "
                                   << (value.getValue().isNaN()        ? "nan"
                                       : value.getValue().isNegative() ? "-inf"
                                                                       : "inf");
    return success();
  }
};

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

/// The host link (train.to_host, train.to_device).
struct HostLinkResource : public SideEffects::Resource::Base<HostLinkResource> {
  llvm::StringRef getName() final { return "train::HostLink"; }
};

/// Tensor lifetime markers (`train.free`).
struct LifetimeResource : public SideEffects::Resource::Base<LifetimeResource> {
  llvm::StringRef getName() final { return "train::Lifetime"; }
};

} // namespace mlir::memopt::train

#endif // MEMOPT_DIALECT_TRAIN_IR_TRAINTRAITS_H
