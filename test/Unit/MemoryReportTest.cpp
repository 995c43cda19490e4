//===- MemoryReportTest.cpp - unit tests of the memory report model -------===//
//
// MemoryReport's model states, saved activations and remat record on small
// steps whose numbers are counted by hand (docs/report.md defines them).
//
//===----------------------------------------------------------------------===//

#include "memopt/Report/MemoryReport.h"
#include "memopt/Dialect/Train/IR/TrainOps.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/Parser/Parser.h"

#include "gtest/gtest.h"

using namespace mlir;
using namespace mlir::memopt;

namespace {

class MemoryReportTest : public ::testing::Test {
protected:
  MemoryReportTest() {
    context.loadDialect<train::TrainDialect, func::FuncDialect>();
  }

  /// The report of the only function of `source`.
  FailureOr<MemoryReport> report(StringRef source) {
    module = parseSourceString<ModuleOp>(source, &context);
    if (!module)
      return failure();
    auto func = cast<FunctionOpInterface>(&module->getBody()->front());
    return MemoryReport::create(func);
  }

  MLIRContext context;
  OwningOpRef<ModuleOp> module;
};

/// A state belongs to the parameter named by its longest prefix that ends
/// before a '.': "h.w.exp_avg" is h.w's, "h.exp_avg" is h's, "h..v" is h's
/// (no parameter "h."), and "hw.m" (no parameter "hw") is tied to none.
TEST_F(MemoryReportTest, StatesBelongToTheLongestParameterPrefix) {
  FailureOr<MemoryReport> result = report(R"mlir(
    func.func @step(%x: tensor<4xf32>) -> tensor<f32> {
      %h = train.param "h" : tensor<4xf32>
      %hw = train.param "h.w" : tensor<2xf32>
      %a = train.add %x, %h : tensor<4xf32>
      %l = train.reduce_sum %a {dims = array<i64: 0>} : tensor<4xf32> -> tensor<f32>
      %s1 = train.opt_state "h.w.exp_avg" : tensor<2xf32>
      %s2 = train.opt_state "h.exp_avg" : tensor<4xf32>
      %s3 = train.opt_state "hw.m" : tensor<3xf32>
      %s4 = train.opt_state "h..v" : tensor<1xf32>
      return %l : tensor<f32>
    }
  )mlir");
  ASSERT_TRUE(succeeded(result));
  const ModelStates &states = result->getModelStates();
  EXPECT_EQ(states.parameterCount, 6);
  EXPECT_EQ(states.weightBytes, 24);
  EXPECT_EQ(states.masterWeightBytes, 0);
  EXPECT_EQ(states.gradientBytes, 0);
  EXPECT_EQ(states.optimizerStateBytes, 8 + 16 + 4);
  ASSERT_EQ(states.otherStates.size(), 1u);
  EXPECT_EQ(states.otherStates[0].first, "hw.m");
  EXPECT_EQ(states.otherStates[0].second, 12);
  EXPECT_EQ(states.getTotalBytes(), 24 + 28 + 12);
  EXPECT_DOUBLE_EQ(states.perParameter(states.getTotalBytes()), 64.0 / 6);
  EXPECT_EQ(states.precision, "fp32");
  EXPECT_EQ(states.gradients, "fp32");
}

/// A widening cast is no low copy; the mode and the gradient type come from
/// train.precision.
TEST_F(MemoryReportTest, OnlyANarrowingCastIsALowCopy) {
  FailureOr<MemoryReport> result = report(R"mlir(
    func.func @step(%x: tensor<4xf32>) -> tensor<f32>
        attributes {train.precision = {grads = "bf16", mode = "bf16-pure"}} {
      %w = train.param "w" : tensor<4xbf16>
      %wf = train.cast %w : tensor<4xbf16> -> tensor<4xf32>
      %a = train.add %x, %wf : tensor<4xf32>
      %l = train.reduce_sum %a {dims = array<i64: 0>} : tensor<4xf32> -> tensor<f32>
      %g = train.cast %a : tensor<4xf32> -> tensor<4xbf16>
      %m = train.opt_state "w.momentum_buffer" : tensor<4xbf16>
      train.sgd %w, %g momentum(%m : tensor<4xbf16>) {lr = 0.1 : f64, momentum = 0.9 : f64} : tensor<4xbf16>, tensor<4xbf16>
      return %l : tensor<f32>
    }
  )mlir");
  ASSERT_TRUE(succeeded(result));
  const ModelStates &states = result->getModelStates();
  EXPECT_EQ(states.precision, "bf16-pure");
  EXPECT_EQ(states.gradients, "bf16");
  EXPECT_EQ(states.weightBytes, 8);
  EXPECT_EQ(states.masterWeightBytes, 0);
  EXPECT_EQ(states.gradientBytes, 8);
  EXPECT_EQ(states.optimizerStateBytes, 8);
  EXPECT_DOUBLE_EQ(states.perParameter(states.getTotalBytes()), 6.0);
}

/// Layers in order of their first saved value, "(other)" last even when its
/// value comes first; values dead before the loss or born after it are not
/// saved.
TEST_F(MemoryReportTest, SavedActivationsByLayer) {
  FailureOr<MemoryReport> result = report(R"mlir(
    func.func @step(%x: tensor<4xf32>) -> tensor<f32> {
      %e = train.relu %x : tensor<4xf32>
      %a = train.relu %e {train.layer = "b"} : tensor<4xf32>
      %b = train.gelu %a {train.layer = "a"} : tensor<4xf32>
      %c = train.gelu %b {train.layer = "a"} : tensor<4xf32>
      %l = train.reduce_sum %c {dims = array<i64: 0>} : tensor<4xf32> -> tensor<f32>
      %d1 = train.gelu_grad %x, %b : tensor<4xf32>
      %d2 = train.relu_grad %d1, %a : tensor<4xf32>
      %d3 = train.relu_grad %d2, %e : tensor<4xf32>
      return %l : tensor<f32>
    }
  )mlir");
  ASSERT_TRUE(succeeded(result));
  const SavedActivations &saved = result->getSavedActivations();
  ASSERT_TRUE(saved.lossPoint.has_value());
  EXPECT_EQ(*saved.lossPoint, 4);
  ASSERT_EQ(saved.byLayer.size(), 3u);
  EXPECT_EQ(saved.byLayer[0].layer, "b");
  EXPECT_EQ(saved.byLayer[0].bytes, 16);
  EXPECT_EQ(saved.byLayer[1].layer, "a");
  EXPECT_EQ(saved.byLayer[1].bytes, 16);
  EXPECT_EQ(saved.byLayer[1].numBuffers, 1);
  EXPECT_EQ(saved.byLayer[2].layer, SavedActivations::kOtherLayer);
  EXPECT_EQ(saved.totalBytes, 48);
  EXPECT_EQ(saved.numBuffers, 3);
  EXPECT_EQ(saved.parameterCopyBytes, 0);
}

/// train.remat's algorithm and budget are read with the other remat
/// attributes.
TEST_F(MemoryReportTest, RematRecord) {
  FailureOr<MemoryReport> result = report(R"mlir(
    func.func @step(%x: tensor<4xf32>) -> tensor<f32>
        attributes {train.remat = {algorithm = "chain", budget = 4096 : i64},
                    train.remat_flops = 8 : i64} {
      %l = train.reduce_sum %x {dims = array<i64: 0>} : tensor<4xf32> -> tensor<f32>
      return %l : tensor<f32>
    }
  )mlir");
  ASSERT_TRUE(succeeded(result));
  const std::optional<RematSummary> &remat = result->getRemat();
  ASSERT_TRUE(remat.has_value());
  EXPECT_EQ(remat->algorithm, "chain");
  ASSERT_TRUE(remat->budget.has_value());
  EXPECT_EQ(*remat->budget, 4096);
  EXPECT_EQ(remat->flops, 8);
}

} // namespace
