//===- Passes.td - memopt's configuration search -----------*- tablegen -*-===//

#ifndef MEMOPT_AUTOPLAN_PASSES_TD
#define MEMOPT_AUTOPLAN_PASSES_TD

include "mlir/Pass/PassBase.td"

def TrainAutoplanPass : Pass<"train-autoplan", "::mlir::ModuleOp"> {
  let summary = "Replaces a step by the fastest configuration of it that "
                "fits the devices (mem-autoplan's search)";
  let description = [{
    Searches the configurations of the module's training step (a step, or a
    forward + loss function, of fixed batch) over precision, tensor
    parallelism with or without sequence parallelism, data parallelism with a
    ZeRO stage, and recomputation, as `mem-autoplan` does
    (docs/autoplan.md). Each candidate's per-process memory is the arena
    that train-plan-memory plans for its step, after train-precision,
    train-autodiff, train-shard, gradient accumulation, train-schedule,
    train-lifetimes and train-remat. Its time comes from the cost model over
    the device profile. The module is then replaced by the best candidate's
    planned step: the program of one process, with its `shard.grid` where it
    is partitioned. A remark names the configuration, its per-process peak,
    the budget and the estimated step time.

    The step's batch is fixed: the micro-batch of all data-parallel
    processes together. `global-batch` is the samples per optimizer step,
    so that a multiple of the step's batch gives gradient accumulation.

    Errors: a module without exactly one function with a body, or whose first
    argument is not a batch; a missing `global-batch`; an unknown device or
    option value; a `tp` that does not divide `devices`; and no
    configuration that fits, in which case the message gives the smallest
    per-process peak reached, its configuration and what holds it.

    Example:
    ```
    mem-opt forward.mlir --train-autoplan='devices=4 global-batch=64 device=h100 device-memory=64MiB'
    ```
  }];
  let options = [
    Option<"devices", "devices", "int64_t", /*default=*/"1",
           "Devices (processes) to use">,
    Option<"device", "device", "std::string", /*default=*/"\"h100\"",
           "Device profile: a built-in name (a100-80gb, h100-sxm, h200) or the "
           "path of a .json profile">,
    Option<"deviceMemory", "device-memory", "std::string", /*default=*/"\"\"",
           "Memory per device, e.g. 80GiB (default: the profile's)">,
    Option<"reserve", "reserve", "std::string", /*default=*/"\"1GiB\"",
           "Memory per device kept back for the CUDA context and libraries">,
    Option<"globalBatch", "global-batch", "int64_t", /*default=*/"0",
           "Samples per optimizer step over all devices (required)">,
    ListOption<"precision", "precision", "std::string",
               "Precision modes to try (default: bf16-mixed, and fp8 where "
               "the device has fp8 units)">,
    ListOption<"tp", "tp", "int64_t",
               "Tensor-parallel degrees to try (default: the divisors of "
               "devices up to a node's)">,
    ListOption<"zero", "zero", "int64_t", "ZeRO stages to try (default 0-3)">,
    ListOption<"sp", "sp", "std::string",
               "Sequence parallelism: off, on (default both where tp > 1)">,
    ListOption<"remat", "remat", "std::string",
               "Recomputation to try: none, selective, full, greedy (default "
               "all)">,
    Option<"optimizer", "optimizer", "std::string", /*default=*/"\"adamw\"",
           "Optimizer of a forward + loss function: adamw, adam or sgd">
  ];
}

#endif // MEMOPT_AUTOPLAN_PASSES_TD
