// RUN: not mem-opt %s --train-autodiff=optimizer=sgd --train-remat=algorithm=magic -o /dev/null 2>&1 | FileCheck %s --check-prefix=ALGO
// ALGO: error: train-remat: unknown algorithm 'magic'; expected one of auto, none, layers, sqrt, selective, greedy, optimal, chain
// RUN: not mem-opt %s --train-autodiff=optimizer=sgd --train-remat='algorithm=optimal segments=-5' -o /dev/null 2>&1 | FileCheck %s --check-prefix=SEGMENTS-NEG
// SEGMENTS-NEG: error: train-remat: segments must be 0 (refine automatically) or in [1, 4294967295], got -5
// RUN: not mem-opt %s --train-autodiff=optimizer=sgd --train-remat='algorithm=optimal segments=4294967296' -o /dev/null 2>&1 | FileCheck %s --check-prefix=SEGMENTS-BIG
// SEGMENTS-BIG: error: train-remat: segments must be 0 (refine automatically) or in [1, 4294967295], got 4294967296
// RUN: not mem-opt %s --train-autodiff=optimizer=sgd --train-remat='algorithm=optimal time-limit=-1' -o /dev/null 2>&1 | FileCheck %s --check-prefix=TIME
// TIME: error: train-remat: time-limit must be a positive number of seconds (or 0 for no wall-clock limit, with a node-limit), got -1
// time-limit=0 (no wall-clock limit) needs a work limit.
// RUN: not mem-opt %s --train-autodiff=optimizer=sgd --train-remat='algorithm=optimal time-limit=0' -o /dev/null 2>&1 | FileCheck %s --check-prefix=TIME-ZERO
// TIME-ZERO: error: train-remat: time-limit=0 (no wall-clock limit) needs a node-limit, else the solver may run forever
// RUN: not mem-opt %s --train-autodiff=optimizer=sgd --train-remat='algorithm=optimal node-limit=-1' -o /dev/null 2>&1 | FileCheck %s --check-prefix=NODES
// NODES: error: train-remat: node-limit must be a non-negative number of branch-and-bound nodes (0 = no limit), got -1
// RUN: not mem-opt %s --train-autodiff=optimizer=sgd --train-remat='node-limit=many' -o /dev/null 2>&1 | FileCheck %s --check-prefix=NODES-PARSE
// NODES-PARSE: for the --node-limit option: 'many' value invalid for long argument
// NODES-PARSE-NEXT: error: train-remat: cannot parse the options 'node-limit=many'
// A space between a budget's number and unit splits it into two options
// (spaces separate pass options): say so and how to write it.
// RUN: not mem-opt %s --train-autodiff=optimizer=sgd --train-remat='algorithm=greedy budget=1 KiB' -o /dev/null 2>&1 | FileCheck %s --check-prefix=SPACE
// RUN: not mem-opt %s --pass-pipeline='builtin.module(func.func(train-autodiff{optimizer=sgd},train-remat{budget=1 KiB}))' -o /dev/null 2>&1 | FileCheck %s --check-prefix=SPACE
// SPACE: error: train-remat: budget '1' is followed by a separate option 'KiB' (spaces separate pass options); did you mean budget=1KiB (or budget="1 KiB")?
// A budget of 0 bytes is a mistake, not a budget no candidate meets.
// RUN: not mem-opt %s --train-autodiff=optimizer=sgd --train-remat='budget=0' -o /dev/null 2>&1 | FileCheck %s --check-prefix=ZERO-BUDGET
// RUN: not mem-opt %s --train-autodiff=optimizer=sgd --train-remat='budget=0GiB' -o /dev/null 2>&1 | FileCheck %s --check-prefix=ZERO-BUDGET
// ZERO-BUDGET: error: train-remat: budget must be a positive number of bytes, got '0{{(GiB)?}}'
// Quoted, the space is part of the value and accepted.
// RUN: not mem-opt %s --train-autodiff=optimizer=sgd --train-lifetimes --train-remat='budget="1 KiB" algorithm=none' -o /dev/null 2>&1 | FileCheck %s --check-prefix=QUOTED
// QUOTED: error: train-remat: no candidate of algorithm 'none' meets the budget of 1024 bytes
// Activation offload: its options, and a budget to meet.
// RUN: not mem-opt %s --train-autodiff=optimizer=sgd --train-remat='offload=true' -o /dev/null 2>&1 | FileCheck %s --check-prefix=OFFLOAD-BUDGET
// OFFLOAD-BUDGET: error: train-remat: offload=true needs a budget (offloading lowers the peak to meet one)
// RUN: not mem-opt %s --train-autodiff=optimizer=sgd --train-remat='budget=1MiB offload=true link=usb3' -o /dev/null 2>&1 | FileCheck %s --check-prefix=OFFLOAD-LINK
// RUN: not mem-opt %s --train-autodiff=optimizer=sgd --train-remat='budget=1MiB offload=true link=-5' -o /dev/null 2>&1 | FileCheck %s --check-prefix=OFFLOAD-LINK
// OFFLOAD-LINK: error: train-remat: unknown link '{{usb3|-5}}'; expected pcie4, pcie5, nvlink-c2c or a positive number of bytes per second
// RUN: not mem-opt %s --train-autodiff=optimizer=sgd --train-remat='budget=1MiB offload=true device=tpu' -o /dev/null 2>&1 | FileCheck %s --check-prefix=OFFLOAD-DEVICE
// OFFLOAD-DEVICE: error: train-remat: unknown device 'tpu'; expected one of a100-80gb (a100), h100-sxm (h100), h200 (h200-sxm), or the path of a .json profile
// RUN: not mem-opt %s --train-autodiff=optimizer=sgd --train-remat='budget=1MiB link=pcie4' -o /dev/null 2>&1 | FileCheck %s --check-prefix=OFFLOAD-OFF
// RUN: not mem-opt %s --train-autodiff=optimizer=sgd --train-remat='budget=1MiB device=a100' -o /dev/null 2>&1 | FileCheck %s --check-prefix=OFFLOAD-OFF
// OFFLOAD-OFF: error: train-remat: device and link describe the offload's cost model; they need offload=true
// A profile without a host link needs link=.
// RUN: rm -rf %t && mkdir -p %t && sed -e '/host_link/d' %memopt_src_root/data/devices/a100-80gb.json > %t/nolink.json
// RUN: not mem-opt %s --train-autodiff=optimizer=sgd --train-remat="budget=1MiB offload=true device=%t/nolink.json" -o /dev/null 2>&1 | FileCheck %s --check-prefix=OFFLOAD-NOLINK
// OFFLOAD-NOLINK: error: train-remat: the device profile '{{.*}}nolink.json' has no host_link_bytes_per_second; give link=
// RUN: not mem-opt %s --train-autodiff=optimizer=sgd --train-remat="budget=1MiB offload=true device=%t/nolink.json link=3e10" -o /dev/null 2>&1 | FileCheck %s --check-prefix=OFFLOAD-LINKED
// OFFLOAD-LINKED: remark: train-remat: offload: 0 activations offloaded (0 bytes each way over the host link); estimated step time {{.*}} s on a100-80gb
// RUN: not mem-opt %s --train-autodiff=optimizer=sgd --train-remat='algorithm=optimal time-limit=soon' -o /dev/null 2>&1 | FileCheck %s --check-prefix=TIMEPARSE
// TIMEPARSE: for the --time-limit option: 'soon' value invalid for floating point argument
// TIMEPARSE-NEXT: error: train-remat: cannot parse the options 'algorithm=optimal time-limit=soon' (the line above says which value)
// optimal says what its model concluded when no schedule fits.
// RUN: not mem-opt %s --train-autodiff=optimizer=sgd --train-lifetimes --train-remat='budget=500B algorithm=optimal time-limit=0 node-limit=100000' -o /dev/null 2>&1 | FileCheck %s --check-prefix=OPTIMAL
// OPTIMAL: error: train-remat: algorithm 'optimal' found no schedule within the budget of 500 bytes: the solver's model of {{[0-9]+}} groups ({{[0-9]+}} forward) says infeasible at 500 model bytes: budget 500 is below the peak lower bound {{[0-9]+}}{{.*}}; parameters and optimizer states alone take 256 bytes
// RUN: not mem-opt %s --train-autodiff=optimizer=sgd --train-remat=budget=12XB -o /dev/null 2>&1 | FileCheck %s --check-prefix=PARSE
// PARSE: error: train-remat: cannot parse budget '12XB'; expected bytes with an optional unit, e.g. 40GiB, 512MiB or 1000000
// RUN: not mem-opt %s --train-autodiff=optimizer=sgd --train-remat=budget=-5 -o /dev/null 2>&1 | FileCheck %s --check-prefix=NEG
// NEG: error: train-remat: cannot parse budget '-5'
// An impossible budget names the smallest peak reached and the persistent
// state (w and its gradient's update: 256 bytes of parameters).
// RUN: not mem-opt %s --train-autodiff=optimizer=sgd --train-lifetimes --train-remat='budget=100 time-limit=0 node-limit=100000' -o /dev/null 2>&1 | FileCheck %s --check-prefix=BUDGET
// BUDGET: error: train-remat: no candidate of algorithm 'auto' meets the budget of 100 bytes: the smallest peak reached is 900 bytes, by '{{[a-z]+}}' (recomputing every activation peaks at 1028 bytes); parameters and optimizer states alone take 256 bytes
// RUN: not mem-opt %s --train-autodiff=optimizer=sgd --train-lifetimes --train-remat='budget=1KiB algorithm=none' -o /dev/null 2>&1 | FileCheck %s --check-prefix=NONE
// NONE: error: train-remat: no candidate of algorithm 'none' meets the budget of 1024 bytes: the smallest peak reached is 1028 bytes, by 'none'
// `selective` recomputes attention scores; a step without any is an error,
// with or without a budget, not a silent keep-everything.
// RUN: not mem-opt %s --train-autodiff=optimizer=sgd --train-lifetimes --train-remat=algorithm=selective -o /dev/null 2>&1 | FileCheck %s --check-prefix=SELECTIVE
// RUN: not mem-opt %s --train-autodiff=optimizer=sgd --train-lifetimes --train-remat='budget=2KiB algorithm=selective' -o /dev/null 2>&1 | FileCheck %s --check-prefix=SELECTIVE
// SELECTIVE: error: train-remat: no candidate of algorithm 'selective' for @chain: it recomputes attention scores (softmax outputs and the dropout applied to them) and the step has none
// A function without a loss is not a training step.
// RUN: not mem-opt %s --train-remat -o /dev/null 2>&1 | FileCheck %s --check-prefix=STEP
// STEP: error: train-remat: @nolos is not a training step: its first result is not a 0-d float loss

func.func @chain(%x: tensor<4x8xf32>) -> tensor<f32> {
  %w = train.param "w" : tensor<8x8xf32>
  %h = train.matmul %x, %w : tensor<4x8xf32>, tensor<8x8xf32> -> tensor<4x8xf32> loc("l.0.fc")
  %a = train.gelu %h : tensor<4x8xf32> loc("l.0.act")
  %b = train.gelu %a : tensor<4x8xf32> loc("l.1.act")
  %c = train.gelu %b : tensor<4x8xf32> loc("l.2.act")
  %loss = train.reduce_sum %c {dims = array<i64: 0, 1>} : tensor<4x8xf32> -> tensor<f32> loc("loss")
  return %loss : tensor<f32>
}

func.func @nolos(%x: tensor<4x8xf32>) -> tensor<4x8xf32> {
  %a = train.relu %x : tensor<4x8xf32>
  return %a : tensor<4x8xf32>
}
