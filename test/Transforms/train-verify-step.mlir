// RUN: mem-opt %s -split-input-file -verify-diagnostics --train-verify-step

// Every rule of --train-verify-step, the whole-step checks that no single op
// verifier can make. Each function is valid op by op.

// expected-error @+1 {{'func.func' op expected a training step with a single block (program order is the schedule), got 2 blocks}}
func.func @two_blocks(%x: tensor<4xf32>) -> tensor<4xf32> {
  %0 = train.relu %x : tensor<4xf32>
  return %0 : tensor<4xf32>
^bb1:
  return %x : tensor<4xf32>
}

// -----

// expected-error @+1 {{'func.func' op expected a training step with a single block (program order is the schedule), got 3 blocks}}
func.func @three_blocks() {
  return
^bb1:
  return
^bb2:
  return
}

// -----

func.func @param_and_opt_state() -> (tensor<4xf32>, tensor<4xf32>) {
  %w = train.param "fc.weight" : tensor<4xf32>
  // expected-error @+1 {{'train.opt_state' op state "fc.weight" is read as both 'train.param' and 'train.opt_state'; a name denotes one buffer}}
  %m = train.opt_state "fc.weight" : tensor<4xf32>
  return %w, %m : tensor<4xf32>, tensor<4xf32>
}

// -----

func.func @opt_state_and_param() -> (tensor<4xf32>, tensor<4xf32>) {
  %m = train.opt_state "fc.weight.exp_avg" : tensor<4xf32>
  // expected-error @+1 {{'train.param' op state "fc.weight.exp_avg" is read as both 'train.opt_state' and 'train.param'; a name denotes one buffer}}
  %w = train.param "fc.weight.exp_avg" : tensor<4xf32>
  return %w, %m : tensor<4xf32>, tensor<4xf32>
}

// -----

func.func @param_two_types() -> (tensor<4x8xf32>, tensor<4x8xbf16>) {
  %w = train.param "fc.weight" : tensor<4x8xf32>
  // expected-error @+1 {{'train.param' op state "fc.weight" is read with type 'tensor<4x8xbf16>', but earlier with type 'tensor<4x8xf32>'}}
  %h = train.param "fc.weight" : tensor<4x8xbf16>
  return %w, %h : tensor<4x8xf32>, tensor<4x8xbf16>
}

// -----

func.func @opt_state_two_shapes() -> (tensor<4x8xf32>, tensor<32xf32>) {
  %m = train.opt_state "fc.weight.exp_avg" : tensor<4x8xf32>
  // expected-error @+1 {{'train.opt_state' op state "fc.weight.exp_avg" is read with type 'tensor<32xf32>', but earlier with type 'tensor<4x8xf32>'}}
  %n = train.opt_state "fc.weight.exp_avg" : tensor<32xf32>
  return %m, %n : tensor<4x8xf32>, tensor<32xf32>
}

// -----

// Two updates of one parameter value.
func.func @sgd_twice(%g: tensor<4xf32>) {
  %w = train.param "w" : tensor<4xf32>
  train.sgd %w, %g {lr = 0.1 : f64} : tensor<4xf32>, tensor<4xf32>
  // expected-error @+1 {{'train.sgd' op state "w" is updated more than once in one step; first update at loc(}}
  train.sgd %w, %g {lr = 0.1 : f64} : tensor<4xf32>, tensor<4xf32>
  return
}

// -----

// Two reads of one name are one buffer: updating both is a double update.
// The message points at the first update.
func.func @adam_then_sgd_same_name(%g: tensor<4xf32>, %t: tensor<i64>) {
  %w1 = train.param "w" : tensor<4xf32>
  %w2 = train.param "w" : tensor<4xf32>
  %m = train.opt_state "w.exp_avg" : tensor<4xf32>
  %v = train.opt_state "w.exp_avg_sq" : tensor<4xf32>
  train.adam %w1, %g, %m, %v step(%t : tensor<i64>) {lr = 1.0e-3 : f64} : tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>
  // expected-error-re @+1 {{'train.sgd' op state "w" is updated more than once in one step; first update at loc("{{.*}}train-verify-step.mlir":{{[0-9]+}}:3)}}
  train.sgd %w2, %g {lr = 0.1 : f64} : tensor<4xf32>, tensor<4xf32>
  return
}

// -----

// An optimizer state shared by two parameters' updates.
func.func @shared_exp_avg(%g: tensor<4xf32>, %t: tensor<i64>) {
  %a = train.param "a" : tensor<4xf32>
  %b = train.param "b" : tensor<4xf32>
  %m = train.opt_state "m" : tensor<4xf32>
  %va = train.opt_state "a.v" : tensor<4xf32>
  %vb = train.opt_state "b.v" : tensor<4xf32>
  train.adamw %a, %g, %m, %va step(%t : tensor<i64>) {lr = 1.0e-3 : f64} : tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>
  // expected-error @+1 {{'train.adamw' op state "m" is updated more than once in one step}}
  train.adamw %b, %g, %m, %vb step(%t : tensor<i64>) {lr = 1.0e-3 : f64} : tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>
  return
}

// -----

// The momentum buffer (operand 2 of train.sgd) is updated in place too.
func.func @shared_momentum_buffer(%g: tensor<4xf32>) {
  %a = train.param "a" : tensor<4xf32>
  %b = train.param "b" : tensor<4xf32>
  %buf = train.opt_state "buf" : tensor<4xf32>
  train.sgd %a, %g momentum(%buf : tensor<4xf32>) {lr = 0.1 : f64, momentum = 0.9 : f64} : tensor<4xf32>, tensor<4xf32>
  // expected-error @+1 {{'train.sgd' op state "buf" is updated more than once in one step}}
  train.sgd %b, %g momentum(%buf : tensor<4xf32>) {lr = 0.1 : f64, momentum = 0.9 : f64} : tensor<4xf32>, tensor<4xf32>
  return
}

// -----

// One op updating the same state twice through two reads of its name.
func.func @adam_states_same_name(%g: tensor<4xf32>, %t: tensor<i64>) {
  %w = train.param "w" : tensor<4xf32>
  %m = train.opt_state "m" : tensor<4xf32>
  %n = train.opt_state "m" : tensor<4xf32>
  // expected-error @+1 {{'train.adam' op state "m" is updated more than once in one step}}
  train.adam %w, %g, %m, %n step(%t : tensor<i64>) {lr = 1.0e-3 : f64} : tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>
  return
}

// -----

// The pass reports every violation of a step, not only the first.
func.func @all_violations_reported(%g: tensor<4xf32>) {
  %w = train.param "w" : tensor<4xf32>
  // expected-error @+1 {{'train.opt_state' op state "w" is read as both 'train.param' and 'train.opt_state'}}
  %m = train.opt_state "w" : tensor<4xf32>
  // expected-error @+1 {{'train.param' op state "w" is read with type 'tensor<2x2xf32>', but earlier with type 'tensor<4xf32>'}}
  %w2 = train.param "w" : tensor<2x2xf32>
  train.sgd %w, %g {lr = 0.1 : f64} : tensor<4xf32>, tensor<4xf32>
  // expected-error @+1 {{'train.sgd' op state "w" is updated more than once in one step}}
  train.sgd %w, %g {lr = 0.2 : f64} : tensor<4xf32>, tensor<4xf32>
  return
}
