//===- Passes.td - memopt transformation passes ------------*- tablegen -*-===//

#ifndef MEMOPT_TRANSFORMS_PASSES_TD
#define MEMOPT_TRANSFORMS_PASSES_TD

include "mlir/Pass/PassBase.td"

def TrainVerifyStepPass : Pass<"train-verify-step", "::mlir::func::FuncOp"> {
  let summary = "Checks that a function is a well-formed training step";
  let description = [{
    The op verifiers check each op alone; this pass checks the rules that
    span a whole step, so that later passes can rely on them:

    * the body is a single block (program order is the schedule);
    * every persistent state name is read by one `train.param` or
      `train.opt_state` op with one type (two reads of one name with
      different types would describe two different buffers);
    * a parameter or optimizer state is updated by at most one optimizer op;
    * the optimizer states an optimizer updates belong to the parameter it
      updates, by name: `"<param>.<state>"`, e.g. `"fc1.weight.exp_avg"`
      (this catches a state passed to the wrong parameter's update).

    It changes nothing and fails with a diagnostic at the offending op.

    Example:
    ```
    mem-opt --train-verify-step examples/gpt2_step.mlir
    ```
  }];
  let dependentDialects = ["::mlir::memopt::train::TrainDialect"];
}

#endif // MEMOPT_TRANSFORMS_PASSES_TD
