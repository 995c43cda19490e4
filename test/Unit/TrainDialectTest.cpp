//===- TrainDialectTest.cpp - unit tests of the train dialect -------------===//

#include "memopt/Dialect/Train/IR/ComputeTypes.h"
#include "memopt/Dialect/Train/IR/TrainOps.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/Parser/Parser.h"

#include "gtest/gtest.h"

using namespace mlir;
using namespace mlir::memopt::train;

namespace {

class TrainDialectTest : public ::testing::Test {
protected:
  TrainDialectTest() { context.loadDialect<TrainDialect, func::FuncDialect>(); }

  OwningOpRef<ModuleOp> parse(StringRef source) {
    return parseSourceString<ModuleOp>(source, &context);
  }

  /// The first op of type OpTy in `module`.
  template <typename OpTy> OpTy first(ModuleOp module) {
    OpTy found;
    module.walk([&](OpTy op) {
      if (!found)
        found = op;
    });
    return found;
  }

  MLIRContext context;
};

TEST_F(TrainDialectTest, EveryOpImplementsTheInterfaces) {
  Dialect *dialect = context.getLoadedDialect<TrainDialect>();
  ASSERT_NE(dialect, nullptr);
  int count = 0;
  for (RegisteredOperationName name : context.getRegisteredOperations()) {
    if (&name.getDialect() != dialect)
      continue;
    ++count;
    EXPECT_TRUE(name.hasInterface<CostOpInterface>())
        << name.getStringRef().str();
    EXPECT_TRUE(name.hasInterface<AliasingOpInterface>())
        << name.getStringRef().str();
    int classes = name.hasTrait<LowPrecisionSafe>() +
                  name.hasTrait<KeepFP32>() + name.hasTrait<PromoteToWidest>();
    EXPECT_EQ(classes, 1) << name.getStringRef().str()
                          << " must have exactly one precision class";
  }
  // The dialect covers MLPs, GPT-2, Llama and CNNs; a sudden drop means ops
  // were lost from registration.
  EXPECT_GE(count, 55);
}

TEST_F(TrainDialectTest, ElementBytesFollowTheMemoryModel) {
  Builder b(&context);
  EXPECT_EQ(getElementBytes(b.getF32Type()), 4);
  EXPECT_EQ(getElementBytes(b.getBF16Type()), 2);
  EXPECT_EQ(getElementBytes(b.getF16Type()), 2);
  EXPECT_EQ(getElementBytes(b.getType<Float8E4M3FNType>()), 1);
  EXPECT_EQ(getElementBytes(b.getI1Type()), 1);
  EXPECT_EQ(getElementBytes(b.getI64Type()), 8);
  EXPECT_EQ(
      getTensorBytes(RankedTensorType::get({8, 1024, 768}, b.getBF16Type())),
      8 * 1024 * 768 * 2);
  EXPECT_EQ(getTensorBytes(RankedTensorType::get({}, b.getF32Type())), 4);
  EXPECT_EQ(getTensorBytes(UnrankedTensorType::get(b.getF32Type())), 0);
}

TEST_F(TrainDialectTest, ComputeTypePolicy) {
  Builder b(&context);
  Type f16 = b.getF16Type(), bf16 = b.getBF16Type(), f32 = b.getF32Type(),
       f64 = b.getF64Type(), fp8 = b.getType<Float8E4M3FNType>(),
       fp8e5 = b.getType<Float8E5M2Type>();
  // Narrow floats accumulate in f32; f32 and f64 in themselves.
  EXPECT_EQ(getAccumulatorType(bf16), f32);
  EXPECT_EQ(getAccumulatorType(f16), f32);
  EXPECT_EQ(getAccumulatorType(fp8), f32);
  EXPECT_EQ(getAccumulatorType(f32), f32);
  EXPECT_EQ(getAccumulatorType(f64), f64);
  // Statistics: f32, or the widest operand when wider.
  EXPECT_EQ(getComputeType({bf16}), f32);
  EXPECT_EQ(getComputeType({bf16, f16, fp8}), f32);
  EXPECT_EQ(getComputeType({bf16, f64}), f64);
  // Promotion: the wider type; two of one width meet in f32.
  EXPECT_EQ(getWiderFloatType(bf16, bf16), bf16);
  EXPECT_EQ(getWiderFloatType(bf16, f32), f32);
  EXPECT_EQ(getWiderFloatType(f64, f16), f64);
  EXPECT_EQ(getWiderFloatType(bf16, f16), f32);
  EXPECT_EQ(getWiderFloatType(fp8, fp8e5), f32);
}

TEST_F(TrainDialectTest, MatmulCost) {
  OwningOpRef<ModuleOp> module = parse(R"mlir(
    func.func @f(%x: tensor<2x64x128xbf16>, %w: tensor<256x128xbf16>) -> tensor<2x64x256xf32> {
      %y = train.matmul %x, %w {transpose_rhs}
          : tensor<2x64x128xbf16>, tensor<256x128xbf16> -> tensor<2x64x256xf32>
      return %y : tensor<2x64x256xf32>
    }
  )mlir");
  ASSERT_TRUE(module);
  auto matmul = first<MatmulOp>(*module);
  auto cost = cast<CostOpInterface>(matmul.getOperation());
  EXPECT_EQ(cost.getFlops(), 2LL * 2 * 64 * 256 * 128);
  EXPECT_EQ(cost.getBytesRead(), 2 * 64 * 128 * 2 + 256 * 128 * 2);
  EXPECT_EQ(cost.getBytesWritten(), 2 * 64 * 256 * 4);
  EXPECT_EQ(cost.getWorkspaceBytes(), 0);
  EXPECT_EQ(getPrecisionClass(matmul), PrecisionClass::LowPrecisionSafe);
}

TEST_F(TrainDialectTest, ViewsAndInPlaceUpdatesAllocateNothing) {
  OwningOpRef<ModuleOp> module = parse(R"mlir(
    func.func @f(%g: tensor<4x8xf32>, %t: tensor<i64>) {
      %w = train.param "w" : tensor<4x8xf32>
      %m = train.opt_state "w.m" : tensor<4x8xf32>
      %v = train.opt_state "w.v" : tensor<4x8xf32>
      %r = train.reshape %w : tensor<4x8xf32> -> tensor<32xf32>
      train.adam %w, %g, %m, %v step(%t : tensor<i64>) {lr = 1.0e-3 : f64}
          : tensor<4x8xf32>, tensor<4x8xf32>, tensor<4x8xf32>, tensor<4x8xf32>
      return
    }
  )mlir");
  ASSERT_TRUE(module);
  auto reshape =
      cast<AliasingOpInterface>(first<ReshapeOp>(*module).getOperation());
  EXPECT_EQ(reshape.getViewSource(0), std::optional<unsigned>(0));
  auto reshapeCost = cast<CostOpInterface>(reshape.getOperation());
  EXPECT_EQ(reshapeCost.getBytesRead(), 0);
  EXPECT_EQ(reshapeCost.getBytesWritten(), 0);

  auto adam = first<AdamOp>(*module);
  auto aliasing = cast<AliasingOpInterface>(adam.getOperation());
  EXPECT_TRUE(aliasing.isUpdatedInPlace(0));
  EXPECT_FALSE(aliasing.isUpdatedInPlace(1));
  EXPECT_TRUE(aliasing.isUpdatedInPlace(2));
  EXPECT_TRUE(aliasing.isUpdatedInPlace(3));
  EXPECT_FALSE(aliasing.isUpdatedInPlace(4));
  auto cost = cast<CostOpInterface>(adam.getOperation());
  // Writes param, exp_avg and exp_avg_sq in place; reads those, the gradient
  // and the 8-byte step counter.
  EXPECT_EQ(cost.getBytesWritten(), 3 * 32 * 4);
  EXPECT_EQ(cost.getBytesRead(), 4 * 32 * 4 + 8);
  EXPECT_EQ(getPrecisionClass(adam), PrecisionClass::KeepFP32);
}

TEST_F(TrainDialectTest, VerifierNamesExpectedAndActualShapes) {
  std::string message;
  ScopedDiagnosticHandler handler(&context, [&](Diagnostic &diag) {
    message = diag.str();
    return success();
  });
  OwningOpRef<ModuleOp> module = parse(R"mlir(
    func.func @f(%x: tensor<4x8xf32>, %w: tensor<16x32xf32>) -> tensor<4x32xf32> {
      %y = train.matmul %x, %w : tensor<4x8xf32>, tensor<16x32xf32> -> tensor<4x32xf32>
      return %y : tensor<4x32xf32>
    }
  )mlir");
  EXPECT_FALSE(module);
  EXPECT_NE(message.find("contraction dimension mismatch"), std::string::npos)
      << message;
  EXPECT_NE(message.find("4x8"), std::string::npos) << message;
  EXPECT_NE(message.find("16x32"), std::string::npos) << message;
}

} // namespace
