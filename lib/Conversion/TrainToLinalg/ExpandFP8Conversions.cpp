//===- ExpandFP8Conversions.cpp - fp8 conversions as integer operations ---===//
//
// memopt-expand-fp8-conversions rewrites `arith.truncf` and `arith.extf` to
// and from f8E4M3FN and f8E5M2 into integer operations on the bits, which
// every LLVM backend lowers (LLVM has no 8-bit float type; MLIR's LLVM type
// conversion stores those types as i8). memopt-check-fp8-conversions then
// reports any 8-bit float conversion or arithmetic left for LLVM.
//
// Rounding (truncf), in integers of the source's width W with m source
// mantissa bits, bias B, and an 8-bit format of d mantissa bits, bias b:
//
//   * normal results: the magnitude bits minus (B - b) << m are the target's
//     exponent and mantissa followed by m - d extra bits; shifting them out
//     with round to nearest even carries into the exponent by itself;
//   * subnormal results: the significand (with its implicit bit) shifted
//     right by the distance to the target's smallest subnormal, rounded the
//     same way (a carry into the smallest normal is its code);
//   * then saturation to the largest finite code, NaN, and the sign.
//
// Decoding (extf) builds f32 bits: normal codes by a shift and a bias add,
// subnormal codes as `uitofp(mantissa) * 2^(1 - b - d)` (exact, and a normal
// f32, so a flush-to-zero target cannot change it), and the specials.
//
//===----------------------------------------------------------------------===//

#include "memopt/Conversion/Passes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinTypes.h"

#include <cmath>
#include <optional>

namespace mlir::memopt {
#define GEN_PASS_DEF_MEMOPTEXPANDFP8CONVERSIONSPASS
#define GEN_PASS_DEF_MEMOPTCHECKFP8CONVERSIONSPASS
#include "memopt/Conversion/Passes.h.inc"
} // namespace mlir::memopt

using namespace mlir;

namespace {

/// An 8-bit float format of the OCP specification that the pass expands.
struct FP8Format {
  /// Explicit mantissa bits.
  unsigned mantissaBits;
  /// Exponent bias.
  int64_t bias;
  /// Code of the largest finite magnitude (positive sign).
  uint64_t maxFinite;
  /// Code of the canonical NaN (positive sign).
  uint64_t nan;
  /// Code of +infinity, if the format has one.
  std::optional<uint64_t> inf;
};

/// The format of `type` (E4M3FN: 448 = S.1111.110, NaN S.1111.111, no
/// infinity; E5M2: IEEE-like, 57344 = S.11110.11, +inf S.11111.00, quiet NaN
/// S.11111.10), or nullopt for a type the pass leaves alone.
static std::optional<FP8Format> getFP8Format(Type type) {
  if (isa<Float8E4M3FNType>(type))
    return FP8Format{3, 7, 0x7E, 0x7F, std::nullopt};
  if (isa<Float8E5M2Type>(type))
    return FP8Format{2, 15, 0x7B, 0x7E, 0x7C};
  return std::nullopt;
}

/// Whether the pass converts from or to `type` (the wide side).
static bool isSupportedWideType(Type type) {
  return type.isF16() || type.isBF16() || type.isF32() || type.isF64();
}

/// Builds the integer operations at one location, on scalars or on vectors
/// of one shape (constants are splats).
class BitBuilder {
public:
  BitBuilder(OpBuilder &builder, Location loc, Type shapeLike)
      : b(builder), loc(loc), shape(dyn_cast<VectorType>(shapeLike)) {}

  /// `elementType`, or a vector of it in the shape of the conversion.
  Type get(Type elementType) {
    return shape ? Type(shape.clone(elementType)) : elementType;
  }
  Type intType(unsigned width) { return get(b.getIntegerType(width)); }

  /// A constant of `width`-bit integers.
  Value constant(unsigned width, uint64_t value) {
    Type type = intType(width);
    APInt bits(width, value);
    if (shape)
      return arith::ConstantOp::create(
          b, loc, type, DenseElementsAttr::get(cast<ShapedType>(type), bits));
    return arith::ConstantOp::create(b, loc, type,
                                     b.getIntegerAttr(type, bits));
  }
  /// A constant of the float type `elementType`.
  Value floatConstant(FloatType elementType, double value) {
    Type type = get(elementType);
    if (shape)
      return arith::ConstantOp::create(
          b, loc, type,
          DenseElementsAttr::get(cast<ShapedType>(type),
                                 b.getFloatAttr(elementType, value)));
    return arith::ConstantOp::create(b, loc, type,
                                     b.getFloatAttr(elementType, value));
  }

  Value add(Value x, Value y) {
    return b.createOrFold<arith::AddIOp>(loc, x, y);
  }
  Value sub(Value x, Value y) {
    return b.createOrFold<arith::SubIOp>(loc, x, y);
  }
  Value andi(Value x, Value y) {
    return b.createOrFold<arith::AndIOp>(loc, x, y);
  }
  Value ori(Value x, Value y) {
    return b.createOrFold<arith::OrIOp>(loc, x, y);
  }
  Value shl(Value x, Value y) {
    return b.createOrFold<arith::ShLIOp>(loc, x, y);
  }
  Value shr(Value x, Value y) {
    return b.createOrFold<arith::ShRUIOp>(loc, x, y);
  }
  Value cmp(arith::CmpIPredicate predicate, Value x, Value y) {
    return arith::CmpIOp::create(b, loc, predicate, x, y);
  }
  Value select(Value condition, Value x, Value y) {
    return arith::SelectOp::create(b, loc, condition, x, y);
  }
  Value bitcast(Type elementType, Value x) {
    return arith::BitcastOp::create(b, loc, get(elementType), x);
  }

  /// `x >> shift` rounded to nearest, ties to even (unsigned; `shift` at
  /// least 1): adds half an ulp less one, plus one if the kept lowest bit is
  /// set, then truncates.
  Value shiftRightRoundEven(Value x, Value shift, unsigned width) {
    Value one = constant(width, 1);
    Value halfMinusOne =
        sub(shl(one, sub(shift, one)), one); // (1 << (shift - 1)) - 1
    Value odd = andi(shr(x, shift), one);
    return shr(add(add(x, halfMinusOne), odd), shift);
  }

  OpBuilder &b;
  Location loc;
  VectorType shape;
};

/// Rounds `input` (f16, bf16, f32 or f64, or vectors of them) to `format`;
/// returns its codes as i8.
static Value buildRoundToFP8(BitBuilder &bb, Value input,
                             const FP8Format &format) {
  auto source = cast<FloatType>(getElementTypeOrSelf(input.getType()));
  const unsigned width = source.getWidth();
  const unsigned mantissa = source.getFPMantissaWidth() - 1;
  const unsigned exponentBits = width - 1 - mantissa;
  const int64_t bias = (int64_t(1) << (exponentBits - 1)) - 1;
  const unsigned d = format.mantissaBits;
  const int64_t biasShift = bias - format.bias;
  using Pred = arith::CmpIPredicate;
  auto c = [&](uint64_t value) { return bb.constant(width, value); };

  Value bits = bb.bitcast(bb.b.getIntegerType(width), input);
  Value magnitude = bb.andi(bits, c((uint64_t(1) << (width - 1)) - 1));
  Value exponent = bb.shr(magnitude, c(mantissa));
  const uint64_t infBits = ((uint64_t(1) << exponentBits) - 1) << mantissa;
  Value isNaN = bb.cmp(Pred::ugt, magnitude, c(infBits));

  // Normal results: rebias, then drop mantissa - d bits. Values too small
  // wrap around here; they take the subnormal path below.
  Value rebiased = bb.sub(magnitude, c(uint64_t(biasShift) << mantissa));
  Value normal = bb.shiftRightRoundEven(rebiased, c(mantissa - d), width);

  // Subnormal results: the significand scaled to units of the smallest
  // subnormal, i.e. shifted right by mantissa - d + 1 - (exponent - bias +
  // format.bias), with a source subnormal's exponent taken as 1. Shifts past
  // mantissa + 2 give 0 as well (the value is below half the smallest
  // subnormal), so the shift is clamped into [1, mantissa + 2].
  Value isSourceNormal = bb.cmp(Pred::ne, exponent, c(0));
  // Each operation built in its own statement: the order in which a call's
  // arguments are evaluated (and so the order of the ops they create)
  // differs between compilers.
  Value fraction = bb.andi(magnitude, c((uint64_t(1) << mantissa) - 1));
  Value implicitOne = c(uint64_t(1) << mantissa);
  Value zero = c(0);
  Value leading = bb.select(isSourceNormal, implicitOne, zero);
  Value significand = bb.ori(fraction, leading);
  Value effectiveExponent =
      arith::MaxUIOp::create(bb.b, bb.loc, exponent, c(1));
  Value shift =
      bb.sub(c(uint64_t(mantissa - d + 1 + biasShift)), effectiveExponent);
  shift = arith::MaxSIOp::create(bb.b, bb.loc, shift, c(1));
  shift = arith::MinSIOp::create(bb.b, bb.loc, shift, c(mantissa + 2));
  Value subnormal = bb.shiftRightRoundEven(significand, shift, width);

  Value isNormal = bb.cmp(Pred::uge, exponent, c(uint64_t(biasShift + 1)));
  Value rounded = bb.select(isNormal, normal, subnormal);
  // Saturation: finite values past the largest finite one, the rounding up
  // into E4M3FN's NaN code or E5M2's infinity, and infinities.
  rounded = arith::MinUIOp::create(bb.b, bb.loc, rounded, c(format.maxFinite));
  rounded = bb.select(isNaN, c(format.nan), rounded);

  Type i8 = bb.b.getIntegerType(8);
  Value code = arith::TruncIOp::create(bb.b, bb.loc, bb.get(i8), rounded);
  Value sign = arith::TruncIOp::create(bb.b, bb.loc, bb.get(i8),
                                       bb.shr(bits, c(width - 8)));
  sign = bb.andi(sign, bb.constant(8, 0x80));
  return bb.ori(code, sign);
}

/// Decodes the codes `code` (i8) of `format` into f32, exactly.
static Value buildDecodeFP8(BitBuilder &bb, Value code,
                            const FP8Format &format) {
  using Pred = arith::CmpIPredicate;
  auto c = [&](uint64_t value) { return bb.constant(32, value); };
  const unsigned d = format.mantissaBits;

  Value bits = arith::ExtUIOp::create(bb.b, bb.loc, bb.intType(32), code);
  Value signBit = bb.andi(bits, c(0x80));
  Value sign = bb.shl(signBit, c(24));
  Value magnitude = bb.andi(bits, c(0x7F));
  Value exponent = bb.shr(magnitude, c(d));
  Value mantissa = bb.andi(magnitude, c((1u << d) - 1));

  // Normal codes: move exponent and mantissa into place and rebias.
  Value moved = bb.shl(magnitude, c(23 - d));
  Value normal = bb.add(moved, c(uint64_t(127 - format.bias) << 23));
  // Subnormal codes (and zero): mantissa * 2^(1 - bias - d).
  FloatType f32 = bb.b.getF32Type();
  // (Sequenced, as in buildRoundToFP8.)
  Value scale =
      bb.floatConstant(f32, std::ldexp(1.0, 1 - int(format.bias) - int(d)));
  Value mantissaValue =
      arith::UIToFPOp::create(bb.b, bb.loc, bb.get(f32), mantissa);
  Value subnormalValue =
      arith::MulFOp::create(bb.b, bb.loc, mantissaValue, scale);
  Value subnormal = bb.bitcast(bb.b.getIntegerType(32), subnormalValue);
  Value result = bb.select(bb.cmp(Pred::eq, exponent, c(0)), subnormal, normal);

  if (format.inf) {
    // E5M2: S.11111.00 is infinity, S.11111.xx a NaN (made quiet, payload
    // kept).
    Value isSpecial = bb.cmp(Pred::uge, magnitude, c(*format.inf));
    Value hasPayload = bb.cmp(Pred::ne, mantissa, c(0));
    Value quietBit = c(0x00400000);
    Value zero = c(0);
    Value quiet = bb.select(hasPayload, quietBit, zero);
    Value infinity = c(0x7F800000);
    Value payload = bb.shl(mantissa, c(23 - d));
    Value special = bb.ori(infinity, bb.ori(payload, quiet));
    result = bb.select(isSpecial, special, result);
  } else {
    // E4M3FN: S.1111.111 is its only NaN.
    Value isNaN = bb.cmp(Pred::eq, magnitude, c(format.nan));
    result = bb.select(isNaN, c(0x7FC00000), result);
  }
  return bb.bitcast(f32, bb.ori(result, sign));
}

/// Replaces `op` (a truncf or extf) after checking it can be expanded.
static LogicalResult expand(Operation *op) {
  Type inType = op->getOperand(0).getType();
  Type outType = op->getResult(0).getType();
  Type inElement = getElementTypeOrSelf(inType);
  Type outElement = getElementTypeOrSelf(outType);
  bool isTrunc = isa<arith::TruncFOp>(op);
  std::optional<FP8Format> format =
      getFP8Format(isTrunc ? outElement : inElement);
  if (!format)
    return success(); // Not a conversion of ours.
  Type wide = isTrunc ? inElement : outElement;
  if (!isSupportedWideType(wide))
    return op->emitOpError()
           << "converts " << inElement << " to " << outElement
           << "; memopt-expand-fp8-conversions converts between f8E4M3FN or "
              "f8E5M2 and f16, bf16, f32 or f64 only";
  if (!isa<VectorType>(inType) && isa<ShapedType>(inType))
    return op->emitOpError()
           << "converts a " << inType
           << "; memopt-expand-fp8-conversions expands scalars and vectors "
              "only: run it after bufferization and loop formation";
  if (auto trunc = dyn_cast<arith::TruncFOp>(op)) {
    std::optional<arith::RoundingMode> mode = trunc.getRoundingmode();
    if (mode && *mode != arith::RoundingMode::to_nearest_even)
      return op->emitOpError()
             << "rounds " << arith::stringifyRoundingMode(*mode)
             << "; memopt-expand-fp8-conversions implements to_nearest_even "
                "only";
  }

  OpBuilder builder(op);
  BitBuilder bb(builder, op->getLoc(), inType);
  Value result;
  if (isTrunc) {
    Value code = buildRoundToFP8(bb, op->getOperand(0), *format);
    result = bb.bitcast(outElement, code);
  } else {
    Value code = bb.bitcast(builder.getIntegerType(8), op->getOperand(0));
    result = buildDecodeFP8(bb, code, *format);
    // Every fp8 value is exact in f16, bf16 and f64.
    if (wide.isF64())
      result = arith::ExtFOp::create(builder, op->getLoc(), outType, result);
    else if (!wide.isF32())
      result = arith::TruncFOp::create(builder, op->getLoc(), outType, result);
  }
  op->getResult(0).replaceAllUsesWith(result);
  op->erase();
  return success();
}

struct ExpandFP8ConversionsPass
    : public memopt::impl::MemoptExpandFP8ConversionsPassBase<
          ExpandFP8ConversionsPass> {
  using Base::Base;

  void runOnOperation() override {
    SmallVector<Operation *> conversions;
    getOperation()->walk([&](Operation *op) {
      if (isa<arith::TruncFOp, arith::ExtFOp>(op))
        conversions.push_back(op);
    });
    bool failed = false;
    for (Operation *op : conversions)
      failed |= llvm::failed(expand(op));
    if (failed)
      signalPassFailure();
  }
};

/// Whether `type` is, or holds, a float of at most 8 bits.
static bool isNarrowFloat(Type type) {
  auto element = dyn_cast<FloatType>(getElementTypeOrSelf(type));
  return element && element.getWidth() <= 8;
}

struct CheckFP8ConversionsPass
    : public memopt::impl::MemoptCheckFP8ConversionsPassBase<
          CheckFP8ConversionsPass> {
  using Base::Base;

  void runOnOperation() override {
    markAllAnalysesPreserved();
    bool failed = false;
    getOperation()->walk(
        [&](Operation *op) {
          if (!isa_and_present<arith::ArithDialect, math::MathDialect>(
                  op->getDialect()) ||
              isa<arith::ConstantOp, arith::BitcastOp, arith::SelectOp>(op))
            return;
          if (!llvm::any_of(op->getOperandTypes(), isNarrowFloat) &&
              !llvm::any_of(op->getResultTypes(), isNarrowFloat))
            return;
          failed = true;
          if (isa<arith::TruncFOp, arith::ExtFOp>(op)) {
            op->emitOpError()
                << "converts " << getElementTypeOrSelf(op->getOperand(0))
                << " to " << getElementTypeOrSelf(op->getResult(0))
                << ", which the LLVM lowering cannot do: "
                   "memopt-expand-fp8-conversions expands conversions to and "
                   "from f8E4M3FN and f8E5M2 and arith-expand those of "
                   "f8E8M0FNU";
            return;
          }
          op->emitOpError()
              << "computes on a float type of at most 8 bits, "
                 "which LLVM has no type for; convert the operands "
                 "to f32 with arith.extf first";
        });
    if (failed)
      signalPassFailure();
  }
};

} // namespace
