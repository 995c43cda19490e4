//===- TrainOpUtils.h - helpers of the op files -*- C++ -*-===//
//
// Internal to the dialect library: the accessors and verifier helpers that
// the op files (TrainOps.cpp, TrainConvOps.cpp, TrainGradOps.cpp,
// TrainGradients.cpp, TrainParallelOps.cpp) and
// TrainCosts.cpp (FLOPs, bytes, workspaces) share.
//
//===----------------------------------------------------------------------===//

#ifndef MEMOPT_DIALECTS_TRAIN_IR_TRAINOPUTILS_H
#define MEMOPT_DIALECTS_TRAIN_IR_TRAINOPUTILS_H

#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/Location.h"
#include "mlir/IR/Operation.h"
#include "mlir/IR/Value.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/SmallVector.h"
#include "llvm/Support/CheckedArithmetic.h"
#include <limits>

#include <optional>

#include <string>

namespace mlir::memopt::train::detail {

/// The location of the ops that compute `op`'s gradients: its name with
/// ".grad" appended (any other location unchanged).
inline Location gradLoc(Operation *op) {
  Location loc = op->getLoc();
  if (auto name = dyn_cast<NameLoc>(loc))
    return NameLoc::get(
        StringAttr::get(op->getContext(), name.getName().str() + ".grad"),
        name.getChildLoc());
  return loc;
}

inline RankedTensorType tensorType(Value v) {
  return cast<RankedTensorType>(v.getType());
}

inline ArrayRef<int64_t> shapeOf(Value v) { return tensorType(v).getShape(); }

inline Type elementTypeOf(Value v) { return tensorType(v).getElementType(); }

inline int64_t numElements(Value v) { return tensorType(v).getNumElements(); }

/// Formats a shape as in MLIR types ("8x16"); a 0-d shape prints as "scalar".
inline std::string formatShape(ArrayRef<int64_t> shape) {
  if (shape.empty())
    return "scalar";
  std::string s;
  llvm::raw_string_ostream os(s);
  llvm::interleave(shape, os, "x");
  return s;
}

/// Emits "expected <what> of shape E, got A" unless the shapes agree.
inline LogicalResult checkShape(Operation *op, StringRef what,
                                ArrayRef<int64_t> expected,
                                ArrayRef<int64_t> actual) {
  if (expected == actual)
    return success();
  return op->emitOpError() << "expected " << what << " of shape "
                           << formatShape(expected) << ", got "
                           << formatShape(actual);
}

/// Emits "expected <what> element type E, got A" unless the types agree.
inline LogicalResult checkElementType(Operation *op, StringRef what,
                                      Type expected, Type actual) {
  if (expected == actual)
    return success();
  return op->emitOpError() << "expected " << what << " element type "
                           << expected << ", got " << actual;
}

/// Checks that `actual` has the shape and element type of `expected`.
inline LogicalResult checkSameType(Operation *op, StringRef what,
                                   Value expected, Value actual) {
  if (failed(checkShape(op, what, shapeOf(expected), shapeOf(actual))))
    return failure();
  return checkElementType(op, what, elementTypeOf(expected),
                          elementTypeOf(actual));
}

/// Checks the rank of `v`.
inline LogicalResult checkRank(Operation *op, StringRef what, Value v,
                               int64_t rank) {
  if (tensorType(v).getRank() == rank)
    return success();
  return op->emitOpError() << "expected " << what << " of rank " << rank
                           << ", got rank " << tensorType(v).getRank() << " ("
                           << formatShape(shapeOf(v)) << ")";
}

inline LogicalResult checkMinRank(Operation *op, StringRef what, Value v,
                                  int64_t minRank) {
  if (tensorType(v).getRank() >= minRank)
    return success();
  return op->emitOpError() << "expected " << what << " of rank >= " << minRank
                           << ", got rank " << tensorType(v).getRank() << " ("
                           << formatShape(shapeOf(v)) << ")";
}

/// Checks a vocabulary part `part of parts` (the vocabulary-parallel ops):
/// both present or both absent, and at least one part; the parts of a
/// `rows`-row table (or logits' columns) must total at most INT64_MAX rows.
inline LogicalResult checkVocabParts(Operation *op, Value part,
                                     std::optional<int64_t> parts,
                                     int64_t rows) {
  if (static_cast<bool>(part) != parts.has_value())
    return op->emitOpError("expected both a vocabulary part and a part "
                           "count, or neither");
  if (!parts)
    return success();
  if (*parts < 1)
    return op->emitOpError()
           << "expected at least one vocabulary part, got " << *parts;
  if (rows > 0 && *parts > std::numeric_limits<int64_t>::max() / rows)
    return op->emitOpError() << "expected " << *parts << " parts of " << rows
                             << " rows to total at most 2^63 - 1";
  return success();
}

/// Normalizes a possibly negative dimension index; fails with a diagnostic if
/// it is outside [-rank, rank).
inline FailureOr<int64_t> normalizeDim(Operation *op, StringRef what,
                                       int64_t dim, int64_t rank) {
  if (dim < -rank || dim >= rank) {
    op->emitOpError() << what << " " << dim << " is out of range for rank "
                      << rank;
    return failure();
  }
  return dim < 0 ? dim + rank : dim;
}

/// The shape without its last dimension (statistics of normalizations).
inline SmallVector<int64_t> dropLast(ArrayRef<int64_t> shape) {
  return SmallVector<int64_t>(shape.drop_back());
}

inline LogicalResult checkPositive(Operation *op, StringRef what,
                                   double value) {
  if (value > 0.0)
    return success();
  return op->emitOpError() << "expected " << what << " > 0, got " << value;
}

inline LogicalResult checkNonNegative(Operation *op, StringRef what,
                                      double value) {
  if (value >= 0.0)
    return success();
  return op->emitOpError() << "expected " << what << " >= 0, got " << value;
}

inline LogicalResult checkProbability(Operation *op, StringRef what,
                                      double value) {
  if (value >= 0.0 && value < 1.0)
    return success();
  return op->emitOpError() << "expected " << what << " in [0, 1), got "
                           << value;
}

/// Checks that a list attribute has `size` entries, each >= `minValue`.
inline LogicalResult checkIntList(Operation *op, StringRef what,
                                  ArrayRef<int64_t> values, size_t size,
                                  int64_t minValue) {
  if (values.size() != size)
    return op->emitOpError() << "expected " << size << " " << what
                             << " values, got " << values.size();
  for (int64_t v : values)
    if (v < minValue)
      return op->emitOpError() << "expected every " << what
                               << " value >= " << minValue << ", got " << v;
  return success();
}

// Verifiers that forward ops and their gradient ops share (TrainOps.cpp).

/// Shared by softmax and softmax_grad: a valid axis and a positive scale.
LogicalResult verifySoftmaxAttrs(Operation *op, Value input, int64_t axis,
                                 double scale, bool causal);

/// Normalization over the last dimension: affine parameters of shape [h] and
/// statistics of the input shape without its last dimension.
LogicalResult verifyLastDimNorm(Operation *op, Value input,
                                ArrayRef<std::pair<StringRef, Value>> affine,
                                ArrayRef<std::pair<StringRef, Value>> stats,
                                std::optional<double> epsilon);

/// Batch normalization: NCHW input, per-channel parameters and statistics.
LogicalResult verifyChannelNorm(Operation *op, Value input,
                                ArrayRef<std::pair<StringRef, Value>> affine,
                                ArrayRef<std::pair<StringRef, Value>> stats,
                                std::optional<double> epsilon);

/// Shapes of attention: q is B x Hq x Sq x D, k and v are B x Hkv x Sk x D
/// with Hq a multiple of Hkv; lse is an fp32 B x Hq x Sq; block_rows >= 1.
LogicalResult verifyAttentionShapes(Operation *op, Value q, Value k, Value v,
                                    Value lse, double scale, int64_t blockRows);

/// The rows of one query tile of attention's lowering: the largest divisor
/// of `queryLen` not above `blockRows` (at least 1).
int64_t getAttentionTileRows(int64_t queryLen, int64_t blockRows);

/// vocab_parallel_stats and its gradient: logits `P... x V` (part of
/// `parts`), the whole-row maximum and labels `P...`, statistics `2 x P...`
/// of the maximum's type (f32 or f64).
LogicalResult verifyVocabParallelStats(Operation *op, Value logits, Value max,
                                       Value labels, Value stats, Value part,
                                       int64_t parts);

/// cross_entropy_from_stats and its gradient: statistics `2 x P...` for
/// labels `P...`.
LogicalResult verifyCrossEntropyStats(Operation *op, Value stats, Value labels);

/// A window of `full` at `offsets` with `strides`, of the shape of `window`;
/// `windowName` names the window operand or result in diagnostics.
LogicalResult verifyWindow(Operation *op, Value full, Value window,
                           StringRef windowName, ArrayRef<int64_t> offsets,
                           std::optional<ArrayRef<int64_t>> strides);

/// The loss-scaling operands of an optimizer op: `skippedSteps` (Adam's
/// count of skipped steps, a train.opt_state) only with `foundNonfinite`.
LogicalResult verifyLossScaledUpdate(Operation *op, Value foundNonfinite,
                                     Value skippedSteps);

/// The shapes of a (batched) matmul: `B... x M x K` times `K x N` or
/// `B... x K x N`, with optional transposes of the last two dimensions,
/// gives `B... x M x N` (train.matmul, train.scaled_matmul).
LogicalResult verifyMatmulShapes(Operation *op, Value lhs, Value rhs,
                                 Value result, bool transposeLhs,
                                 bool transposeRhs);

} // namespace mlir::memopt::train::detail

#endif // MEMOPT_DIALECTS_TRAIN_IR_TRAINOPUTILS_H
