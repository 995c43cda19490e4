//===- FuzzDeviceProfile.cpp - mem-autoplan's device profile reader -------===//
//
// libFuzzer target: parses the input (its run-length escapes expanded,
// FuzzExpand.h) as a device profile (parseDeviceProfile, what
// `mem-autoplan --device=FILE` reads) and, when it is accepted, estimates
// with it the step cost of a small step of a 2 x 2 grid (data and tensor
// parallel: its collectives stay in a node or cross nodes by the profile's
// devices_per_node), as mem-autoplan ranks a candidate. A rejected profile
// (with a message) is a correct answer; a crash, a sanitizer report, an
// accepted profile with a field out of its documented range, or a cost that
// is negative or NaN is a finding.
//
//===----------------------------------------------------------------------===//

#include "FuzzExpand.h"

#include "memopt/Autoplan/Autoplan.h"
#include "memopt/Autoplan/DeviceProfile.h"
#include "memopt/InitAll.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/DialectRegistry.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/Parser/Parser.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Pass/PassRegistry.h"
#include "llvm/Support/raw_ostream.h"

#include <cmath>
#include <cstdint>
#include <cstdlib>

using namespace mlir;
using namespace mlir::memopt::autoplan;

[[noreturn]] static void finding(const llvm::Twine &message) {
  llvm::errs() << "memopt-fuzz-device-profile: " << message << "\n";
  std::abort();
}

// A 2-layer MLP (test/Transforms/train-shard.mlir), differentiated and
// partitioned over dp = 2 x tp = 2 once, at the first input.
static const char kStep[] = R"mlir(
func.func @mlp(%x: tensor<4x8xf32>, %labels: tensor<4xi64>) -> tensor<f32> {
  %w1 = train.param "fc1.weight" : tensor<8x16xf32>
  %h = train.matmul %x, %w1 : tensor<4x8xf32>, tensor<8x16xf32> -> tensor<4x16xf32>
  %a = train.relu %h : tensor<4x16xf32>
  %w2 = train.param "fc2.weight" : tensor<16x8xf32>
  %y = train.matmul %a, %w2 : tensor<4x16xf32>, tensor<16x8xf32> -> tensor<4x8xf32>
  %loss = train.cross_entropy %y, %labels : tensor<4x8xf32>, tensor<4xi64> -> tensor<f32>
  return %loss : tensor<f32>
}
)mlir";

static func::FuncOp getStep() {
  static func::FuncOp step = [] {
    DialectRegistry registry;
    mlir::memopt::registerAllDialects(registry);
    auto *context = new MLIRContext(registry, MLIRContext::Threading::DISABLED);
    context->loadAllAvailableDialects();
    mlir::memopt::registerAllPasses();
    OwningOpRef<ModuleOp> module =
        parseSourceString<ModuleOp>(kStep, ParserConfig(context));
    PassManager pm(context);
    if (!module ||
        failed(parsePassPipeline(
            "builtin.module(func.func(train-autodiff),train-shard{dp=2 tp=2})",
            pm)) ||
        failed(pm.run(*module)))
      finding("the step of the cost estimates does not build");
    func::FuncOp func = *module->getOps<func::FuncOp>().begin();
    module.release(); // Kept for every input.
    return func;
  }();
  return step;
}

/// Fails unless every field of an accepted profile is in its documented
/// range (DeviceProfile.h).
static void checkRanges(const DeviceProfile &profile) {
  if (profile.name.empty() || profile.sources.empty() ||
      profile.memoryBytes <= 0 || profile.devicesPerNode <= 0)
    finding("an accepted profile lacks a name, a source, memory or devices");
  for (double rate :
       {profile.fp32Flops, profile.hbmBytesPerSecond,
        profile.intraNodeBytesPerSecond, profile.interNodeBytesPerSecond})
    if (!(rate > 0) || !std::isfinite(rate))
      finding("an accepted profile has a rate that is not positive");
  for (double rate : {profile.bf16Flops, profile.fp16Flops, profile.fp8Flops})
    if (!(rate >= 0) || !std::isfinite(rate))
      finding("an accepted profile has a negative tensor-core rate");
}

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  std::optional<std::string> text =
      mlir::memopt::fuzz::expandJsonInput(data, size);
  if (!text)
    return -1;
  func::FuncOp step = getStep();
  llvm::Expected<DeviceProfile> profile =
      parseDeviceProfile(*text, "device.json");
  if (!profile) {
    llvm::consumeError(profile.takeError());
    return 0;
  }
  checkRanges(*profile);
  for (int64_t accumulation : {1, 8}) {
    StepCost cost = estimateStepCost(step, *profile, accumulation);
    for (double seconds : {cost.microBatchSeconds, cost.recomputeSeconds,
                           cost.tensorParallelSeconds, cost.dataParallelSeconds,
                           cost.optimizerSeconds, cost.stepSeconds})
      if (!(seconds >= 0))
        finding("a step cost is negative or NaN");
    if (cost.flops < 0 || cost.sentBytes < 0)
      finding("a step's FLOPs or bytes sent are negative");
  }
  return 0;
}
