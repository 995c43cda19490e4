//===- GradientCheck.cpp - analytic against numeric gradients -------------===//
//
// Runs a step differentiated by train-autodiff{optimizer=none} once for its
// analytic gradients, then perturbs sampled elements of every parameter by
// +-h and compares the central difference of the loss with them.
//
//===----------------------------------------------------------------------===//

#include "memopt/Execution/CompiledStep.h"
#include "memopt/Execution/Init.h"

#include <cmath>
#include <vector>

using namespace mlir;
using namespace mlir::memopt;
using namespace mlir::memopt::execution;

namespace {
/// The analytic gradient of one parameter, copied out of its result.
struct AnalyticGradient {
  GlobalTensor *param;
  std::vector<double> values;
};
} // namespace

/// Copies the gradients the step returned, before perturbed runs overwrite
/// them.
static FailureOr<SmallVector<AnalyticGradient>>
collectGradients(StepPlan &plan) {
  Location loc = getExecutionLoc(plan.context);
  SmallVector<AnalyticGradient> gradients;
  for (auto [index, result] : llvm::enumerate(plan.results)) {
    StringRef name = plan.resultGradOf[index];
    if (name.empty())
      continue;
    auto it = llvm::find_if(plan.params, [&](const GlobalTensor &param) {
      return param.name == name;
    });
    if (it == plan.params.end())
      return emitError(loc)
             << "gradient result " << index << " names parameter '" << name
             << "', which the step does not read";
    Type elementType = result.type.getElementType();
    unsigned bytes = getStorageBytes(elementType);
    std::vector<double> values;
    for (int64_t i = 0, e = result.type.getNumElements(); i < e; ++i)
      values.push_back(loadFloat(elementType, result.data + i * bytes));
    gradients.push_back({&*it, std::move(values)});
  }
  if (gradients.empty())
    return emitError(loc) << "the step returns no parameter gradient to check";
  return gradients;
}

/// Checks sampled elements of one parameter's gradient.
static FailureOr<ParamGradientCheck>
checkParameter(CompiledStep &step, const AnalyticGradient &gradient,
               const GradientCheckOptions &options) {
  auto loss = [&]() -> FailureOr<double> {
    if (failed(step.runStep(1)))
      return failure();
    return *step.getLoss();
  };
  GlobalTensor &param = *gradient.param;
  Type elementType = param.type.getElementType();
  bool isF64 = elementType.isF64();
  double h = options.step > 0 ? options.step : (isF64 ? 1e-6 : 1e-3);
  ParamGradientCheck check;
  check.name = param.name;
  check.rtol = options.rtol > 0 ? options.rtol : (isF64 ? 1e-6 : 2e-2);
  check.atol = options.atol > 0 ? options.atol : (isF64 ? 1e-8 : 1e-3);
  unsigned bytes = getStorageBytes(elementType);
  int64_t count = param.type.getNumElements();
  check.samples = std::min<int64_t>(count, options.samples);
  for (int64_t k = 0; k < check.samples; ++k) {
    int64_t i = check.samples == count ? k : k * count / check.samples;
    char *element = param.data + i * bytes;
    double original = loadFloat(elementType, element);
    storeFloat(elementType, element, original + h);
    double plusH = loadFloat(elementType, element) - original;
    FailureOr<double> plus = loss();
    storeFloat(elementType, element, original - h);
    double minusH = original - loadFloat(elementType, element);
    FailureOr<double> minus = loss();
    storeFloat(elementType, element, original);
    if (failed(plus) || failed(minus))
      return failure();
    // The perturbation actually stored (rounded to the element type).
    double numeric = (*plus - *minus) / (plusH + minusH);
    double analytic = gradient.values[i];
    double error = std::fabs(numeric - analytic);
    check.maxAbsError = std::max(check.maxAbsError, error);
    if (analytic != 0.0)
      check.maxRelError =
          std::max(check.maxRelError, error / std::fabs(analytic));
    if (error > check.atol + check.rtol * std::fabs(analytic) &&
        (!check.worst ||
         error > std::fabs(check.worstNumeric - check.worstAnalytic))) {
      check.worst = i;
      check.worstNumeric = numeric;
      check.worstAnalytic = analytic;
    }
  }
  return check;
}

FailureOr<SmallVector<ParamGradientCheck>>
execution::runGradientCheck(CompiledStep &step,
                            const GradientCheckOptions &options) {
  StepPlan &plan = step.getPlan();
  if (plan.results.empty() || plan.results.front().type.getRank() != 0 ||
      !isa<FloatType>(plan.results.front().type.getElementType()))
    return emitError(getExecutionLoc(plan.context))
           << "--check-gradients needs a step whose first result is a 0-d "
              "float loss";
  if (failed(step.runStep(1)))
    return failure();
  FailureOr<SmallVector<AnalyticGradient>> gradients = collectGradients(plan);
  if (failed(gradients))
    return failure();
  SmallVector<ParamGradientCheck> checks;
  for (const AnalyticGradient &gradient : *gradients) {
    FailureOr<ParamGradientCheck> check =
        checkParameter(step, gradient, options);
    if (failed(check))
      return failure();
    checks.push_back(std::move(*check));
  }
  return checks;
}
