//===- ReshapeStridesTest.cpp - reshape-as-view against brute force -------===//
//
// computeReshapeStrides decides whether a reshape of a strided view can stay
// a view. The oracle here enumerates every element: the reshape is a view iff
// some strides for the new shape address, for every row-major position k, the
// same memory location as position k of the old view.
//
//===----------------------------------------------------------------------===//

#include "memopt/Dialect/Train/IR/TrainInterfaces.h"

#include "gtest/gtest.h"

using namespace mlir;
using namespace mlir::memopt::train;

namespace {

/// Memory offsets of every element of a view, in row-major element order.
std::vector<int64_t> offsets(ArrayRef<int64_t> shape,
                             ArrayRef<int64_t> strides) {
  std::vector<int64_t> result = {0};
  for (size_t d = 0; d < shape.size(); ++d) {
    std::vector<int64_t> next;
    for (int64_t base : result)
      for (int64_t i = 0; i < shape[d]; ++i)
        next.push_back(base + i * strides[d]);
    result = std::move(next);
  }
  return result;
}

/// Brute force: derive candidate strides from the unit steps and check them
/// on every element.
bool isViewByEnumeration(ArrayRef<int64_t> shape, ArrayRef<int64_t> strides,
                         ArrayRef<int64_t> newShape) {
  std::vector<int64_t> old = offsets(shape, strides);
  SmallVector<int64_t> candidate(newShape.size(), 0);
  int64_t step = 1;
  for (int64_t d = static_cast<int64_t>(newShape.size()) - 1; d >= 0; --d) {
    if (newShape[d] > 1)
      candidate[d] = old[step] - old[0];
    step *= newShape[d];
  }
  return offsets(newShape, candidate) == old;
}

SmallVector<int64_t> rowMajor(ArrayRef<int64_t> shape) {
  SmallVector<int64_t> strides(shape.size(), 1);
  for (int64_t d = static_cast<int64_t>(shape.size()) - 2; d >= 0; --d)
    strides[d] = strides[d + 1] * shape[d + 1];
  return strides;
}

/// All factorizations of n into `rank` factors.
void factorizations(int64_t n, int rank, SmallVector<int64_t> &prefix,
                    std::vector<SmallVector<int64_t>> &out) {
  if (rank == 1) {
    prefix.push_back(n);
    out.push_back(prefix);
    prefix.pop_back();
    return;
  }
  for (int64_t f = 1; f <= n; ++f) {
    if (n % f)
      continue;
    prefix.push_back(f);
    factorizations(n / f, rank - 1, prefix, out);
    prefix.pop_back();
  }
}

TEST(ReshapeStrides, ContiguousInputIsAlwaysAView) {
  SmallVector<int64_t> shape = {2, 3, 4};
  std::optional<SmallVector<int64_t>> strides =
      computeReshapeStrides(shape, rowMajor(shape), {6, 4});
  ASSERT_TRUE(strides);
  EXPECT_EQ(*strides, (SmallVector<int64_t>{4, 1}));
}

TEST(ReshapeStrides, MergingTransposedHeadsCopies) {
  // [B, H, S, D] transposed to [B, S, H, D], then merged to [B, S, H*D]: the
  // GPT-2 merge-heads step, a copy in PyTorch as well.
  SmallVector<int64_t> shape = {2, 16, 4, 8};
  SmallVector<int64_t> strides = {512, 8, 128, 1};
  EXPECT_FALSE(computeReshapeStrides(shape, strides, {2, 16, 32}));
  // Splitting the head dimension again stays a view.
  EXPECT_TRUE(computeReshapeStrides(shape, strides, {2, 16, 4, 2, 4}));
}

TEST(ReshapeStrides, AgreesWithEnumerationOnAllPermutedViews) {
  // Every permutation of every factorization of 24 into 3 dims, reshaped to
  // every factorization of 24 into 1 to 4 dims.
  std::vector<SmallVector<int64_t>> sources, targets;
  SmallVector<int64_t> prefix;
  factorizations(24, 3, prefix, sources);
  for (int rank = 1; rank <= 4; ++rank)
    factorizations(24, rank, prefix, targets);
  int checked = 0, views = 0;
  for (const SmallVector<int64_t> &base : sources) {
    SmallVector<int64_t> baseStrides = rowMajor(base);
    SmallVector<int64_t> perm = {0, 1, 2};
    do {
      SmallVector<int64_t> shape, strides;
      for (int64_t p : perm) {
        shape.push_back(base[p]);
        strides.push_back(baseStrides[p]);
      }
      for (const SmallVector<int64_t> &target : targets) {
        bool expected = isViewByEnumeration(shape, strides, target);
        std::optional<SmallVector<int64_t>> got =
            computeReshapeStrides(shape, strides, target);
        ASSERT_EQ(got.has_value(), expected);
        if (got) {
          EXPECT_EQ(offsets(target, *got), offsets(shape, strides));
          ++views;
        }
        ++checked;
      }
    } while (std::next_permutation(perm.begin(), perm.end()));
  }
  // Both outcomes must occur, or the comparison proves little.
  EXPECT_GT(views, 100);
  EXPECT_LT(views, checked);
}

TEST(ReshapeStrides, AgreesWithEnumerationOnSlicedViews) {
  // Strided slices (step 2 in one dimension) of a contiguous 4x6x2 tensor.
  SmallVector<int64_t> base = {4, 6, 2};
  SmallVector<int64_t> baseStrides = rowMajor(base);
  std::vector<SmallVector<int64_t>> targets;
  SmallVector<int64_t> prefix;
  for (int dim = 0; dim < 3; ++dim) {
    SmallVector<int64_t> shape(base), strides(baseStrides);
    shape[dim] = base[dim] / 2;
    strides[dim] *= 2;
    int64_t n = shape[0] * shape[1] * shape[2];
    targets.clear();
    for (int rank = 1; rank <= 3; ++rank)
      factorizations(n, rank, prefix, targets);
    for (const SmallVector<int64_t> &target : targets)
      EXPECT_EQ(computeReshapeStrides(shape, strides, target).has_value(),
                isViewByEnumeration(shape, strides, target));
  }
}

} // namespace
