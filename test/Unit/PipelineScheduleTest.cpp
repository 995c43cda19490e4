//===- PipelineScheduleTest.cpp - train-pipeline's schedules --------------===//
//
// The orders getStageSchedule gives every stage, over a grid of stages,
// chunks and micro-batches: every pass runs once, after the passes it
// needs on the same stage, and the in-flight counts are the published ones
// (Narayanan et al. 2021 for 1F1B and the interleaved schedule, Qi et al.
// 2024 for ZB-H1). That the stages' transfers complete in these orders is
// checked by train-pipeline itself on every module it builds (its lit tests
// cover each schedule).
//
//===----------------------------------------------------------------------===//

#include "memopt/Analysis/PipelineSchedule.h"

#include "gtest/gtest.h"

#include <map>
#include <tuple>

using namespace mlir;
using namespace mlir::memopt;

namespace {

struct Shape {
  PipelineSchedule schedule;
  int64_t stages, microBatches, chunks;
};

/// Every shape checkScheduleShape accepts on a small grid.
std::vector<Shape> getShapes() {
  std::vector<Shape> shapes;
  for (PipelineSchedule schedule :
       {PipelineSchedule::OneFOneB, PipelineSchedule::GPipe,
        PipelineSchedule::Interleaved, PipelineSchedule::ZeroBubbleH1})
    for (int64_t p = 1; p <= 8; ++p)
      for (int64_t m = 1; m <= 3 * p + 1; ++m)
        for (int64_t v = 1; v <= 4; ++v)
          if (!checkScheduleShape(schedule, p, m, v))
            shapes.push_back({schedule, p, m, v});
  return shapes;
}

TEST(PipelineScheduleTest, EveryPassOnceInDependenceOrder) {
  for (const Shape &shape : getShapes()) {
    bool split = shape.schedule == PipelineSchedule::ZeroBubbleH1;
    for (int64_t s = 0; s < shape.stages; ++s) {
      SmallVector<PipelineAction> actions = getStageSchedule(
          shape.schedule, shape.stages, s, shape.microBatches, shape.chunks);
      std::map<std::tuple<int, int64_t, int64_t>, int64_t> position;
      for (auto [index, action] : llvm::enumerate(actions)) {
        ASSERT_GE(action.chunk, 0);
        ASSERT_LT(action.chunk, shape.chunks);
        ASSERT_GE(action.microBatch, 0);
        ASSERT_LT(action.microBatch, shape.microBatches);
        auto key = std::make_tuple(static_cast<int>(action.pass), action.chunk,
                                   action.microBatch);
        ASSERT_TRUE(position.try_emplace(key, index).second)
            << "a pass twice on stage " << s;
      }
      int64_t passes = shape.microBatches * shape.chunks;
      ASSERT_EQ(static_cast<int64_t>(actions.size()), passes * (split ? 3 : 2));
      for (int64_t c = 0; c < shape.chunks; ++c) {
        int64_t lastBackward = -1;
        for (int64_t k = 0; k < shape.microBatches; ++k) {
          int64_t f = position.at({0, c, k}), b = position.at({1, c, k});
          EXPECT_LT(f, b) << "backward before forward on stage " << s;
          // Each chunk's backward passes run in micro-batch order, so that
          // its gradient sums are built in order.
          EXPECT_LT(lastBackward, b);
          lastBackward = b;
          if (split)
            EXPECT_LT(b, position.at({2, c, k}));
        }
      }
    }
  }
}

TEST(PipelineScheduleTest, InFlightCounts) {
  for (const Shape &shape : getShapes()) {
    int64_t p = shape.stages, m = shape.microBatches, v = shape.chunks;
    for (int64_t s = 0; s < p; ++s) {
      int64_t inFlight =
          getMicroBatchesInFlight(getStageSchedule(shape.schedule, p, s, m, v));
      switch (shape.schedule) {
      case PipelineSchedule::OneFOneB:
        EXPECT_EQ(inFlight, std::min(m, p - s));
        break;
      case PipelineSchedule::GPipe:
        EXPECT_EQ(inFlight, m);
        break;
      case PipelineSchedule::ZeroBubbleH1:
        // Until their weight passes: 1F1B's p - s, and the s backward
        // passes stage s runs before their weight passes.
        EXPECT_EQ(inFlight, std::min(m, p));
        break;
      case PipelineSchedule::Interleaved:
        // Megatron-LM's warm-up plus the first steady forward: 1F1B's p
        // micro-batches times 1 + (p - 1) / (p v), in chunk passes; with as
        // many micro-batches as stages, every forward pass first.
        if (m == p)
          EXPECT_EQ(inFlight, m * v);
        else
          EXPECT_EQ(inFlight,
                    std::min(m * v, 2 * (p - 1 - s) + (v - 1) * p + 1));
        if (s == 0 && m > p)
          EXPECT_EQ(inFlight * p, p * v * p + p * (p - 1));
        break;
      }
    }
  }
}

TEST(PipelineScheduleTest, ShapesAndBubbles) {
  EXPECT_TRUE(checkScheduleShape(PipelineSchedule::OneFOneB, 4, 8, 2));
  EXPECT_TRUE(checkScheduleShape(PipelineSchedule::Interleaved, 4, 8, 1));
  EXPECT_TRUE(checkScheduleShape(PipelineSchedule::Interleaved, 4, 6, 2));
  EXPECT_FALSE(checkScheduleShape(PipelineSchedule::Interleaved, 4, 8, 2));
  EXPECT_DOUBLE_EQ(getBubbleFraction(PipelineSchedule::OneFOneB, 4, 8),
                   3.0 / 11.0);
  EXPECT_DOUBLE_EQ(getBubbleFraction(PipelineSchedule::Interleaved, 4, 8, 2),
                   3.0 / 19.0);
  EXPECT_DOUBLE_EQ(getBubbleFraction(PipelineSchedule::ZeroBubbleH1, 4, 8),
                   3.0 / 27.0);
  for (StringRef name : {"1f1b", "gpipe", "interleaved", "zb-h1"})
    EXPECT_EQ(getPipelineScheduleName(*parsePipelineSchedule(name)), name);
  EXPECT_FALSE(parsePipelineSchedule("zb-h2"));
}

} // namespace
