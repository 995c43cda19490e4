// RUN: mem-opt %s -split-input-file -verify-diagnostics --train-verify-step

// Every rule of --train-verify-step, the whole-step checks that no single op
// verifier can make: one block, one kind and one type per state name, one
// update per state, and optimizer states named "<param>.<state>". Each
// function is valid op by op.

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
  // expected-note @+1 {{first updated here}}
  train.sgd %w, %g {lr = 0.1 : f64} : tensor<4xf32>, tensor<4xf32>
  // expected-error @+1 {{'train.sgd' op state "w" is updated more than once in one step}}
  train.sgd %w, %g {lr = 0.1 : f64} : tensor<4xf32>, tensor<4xf32>
  return
}

// -----

// Two reads of one name are one buffer: updating both is a double update.
// A note points at the first update.
func.func @adam_then_sgd_same_name(%g: tensor<4xf32>, %t: tensor<i64>) {
  %w1 = train.param "w" : tensor<4xf32>
  %w2 = train.param "w" : tensor<4xf32>
  %m = train.opt_state "w.exp_avg" : tensor<4xf32>
  %v = train.opt_state "w.exp_avg_sq" : tensor<4xf32>
  // expected-note @+1 {{first updated here}}
  train.adam %w1, %g, %m, %v step(%t : tensor<i64>) {lr = 1.0e-3 : f64} : tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>
  // expected-error @+1 {{'train.sgd' op state "w" is updated more than once in one step}}
  train.sgd %w2, %g {lr = 0.1 : f64} : tensor<4xf32>, tensor<4xf32>
  return
}

// -----

// An optimizer state shared by two parameters' updates: the second update is
// both a double update and a state named after another parameter.
func.func @shared_exp_avg(%g: tensor<4xf32>, %t: tensor<i64>) {
  %a = train.param "a" : tensor<4xf32>
  %b = train.param "b" : tensor<4xf32>
  %m = train.opt_state "a.exp_avg" : tensor<4xf32>
  %va = train.opt_state "a.exp_avg_sq" : tensor<4xf32>
  %vb = train.opt_state "b.exp_avg_sq" : tensor<4xf32>
  // expected-note @+1 {{first updated here}}
  train.adamw %a, %g, %m, %va step(%t : tensor<i64>) {lr = 1.0e-3 : f64} : tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>
  // expected-error @+2 {{'train.adamw' op state "a.exp_avg" is updated more than once in one step}}
  // expected-error @+1 {{'train.adamw' op expected optimizer state "a.exp_avg" of parameter "b" to be named "b.<state>"; it names a state of parameter "a"}}
  train.adamw %b, %g, %m, %vb step(%t : tensor<i64>) {lr = 1.0e-3 : f64} : tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>
  return
}

// -----

// The momentum buffer (operand 2 of train.sgd) is updated in place too: a
// second update through another read of its name reports both states.
func.func @shared_momentum_buffer(%g: tensor<4xf32>) {
  %a = train.param "a" : tensor<4xf32>
  %buf = train.opt_state "a.momentum_buffer" : tensor<4xf32>
  // expected-note @+2 {{state "a" first updated here}}
  // expected-note @+1 {{state "a.momentum_buffer" first updated here}}
  train.sgd %a, %g momentum(%buf : tensor<4xf32>) {lr = 0.1 : f64, momentum = 0.9 : f64} : tensor<4xf32>, tensor<4xf32>
  %buf2 = train.opt_state "a.momentum_buffer" : tensor<4xf32>
  // expected-error @+2 {{'train.sgd' op state "a" is updated more than once in one step}}
  // expected-error @+1 {{'train.sgd' op state "a.momentum_buffer" is updated more than once in one step}}
  train.sgd %a, %g momentum(%buf2 : tensor<4xf32>) {lr = 0.1 : f64, momentum = 0.9 : f64} : tensor<4xf32>, tensor<4xf32>
  return
}

// -----

// One op updating the same state twice through two reads of its name (the
// op verifier only sees two distinct values).
func.func @adam_states_same_name(%g: tensor<4xf32>, %t: tensor<i64>) {
  %w = train.param "w" : tensor<4xf32>
  %m = train.opt_state "w.exp_avg" : tensor<4xf32>
  %n = train.opt_state "w.exp_avg" : tensor<4xf32>
  // expected-error @+2 {{'train.adam' op state "w.exp_avg" is updated more than once in one step}}
  // expected-note @+1 {{first updated here}}
  train.adam %w, %g, %m, %n step(%t : tensor<i64>) {lr = 1.0e-3 : f64} : tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>
  return
}

// -----

// Optimizer states are named "<param>.<state>" after the parameter they
// belong to; a state of another parameter is rejected.
func.func @adam_exp_avg_of_other_param(%g: tensor<4xf32>, %t: tensor<i64>) {
  %w = train.param "fc1.weight" : tensor<4xf32>
  %m = train.opt_state "fc2.weight.exp_avg" : tensor<4xf32>
  %v = train.opt_state "fc1.weight.exp_avg_sq" : tensor<4xf32>
  // expected-error @+1 {{'train.adam' op expected optimizer state "fc2.weight.exp_avg" of parameter "fc1.weight" to be named "fc1.weight.<state>"}}
  train.adam %w, %g, %m, %v step(%t : tensor<i64>) {lr = 1.0e-3 : f64} : tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>
  return
}

// -----

func.func @adamw_exp_avg_sq_of_other_param(%g: tensor<4xf32>, %t: tensor<i64>) {
  %w = train.param "fc1.weight" : tensor<4xf32>
  %m = train.opt_state "fc1.weight.exp_avg" : tensor<4xf32>
  %v = train.opt_state "fc1.bias.exp_avg_sq" : tensor<4xf32>
  // expected-error @+1 {{'train.adamw' op expected optimizer state "fc1.bias.exp_avg_sq" of parameter "fc1.weight" to be named "fc1.weight.<state>"}}
  train.adamw %w, %g, %m, %v step(%t : tensor<i64>) {lr = 1.0e-3 : f64} : tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>
  return
}

// -----

// The separator is part of the rule: "fc10.momentum" is not a state of "fc1".
func.func @sgd_buffer_name_prefix_without_dot(%g: tensor<4xf32>) {
  %w = train.param "fc1" : tensor<4xf32>
  %buf = train.opt_state "fc10.momentum" : tensor<4xf32>
  // expected-error @+1 {{'train.sgd' op expected optimizer state "fc10.momentum" of parameter "fc1" to be named "fc1.<state>"}}
  train.sgd %w, %g momentum(%buf : tensor<4xf32>) {lr = 0.1 : f64, momentum = 0.9 : f64} : tensor<4xf32>, tensor<4xf32>
  return
}

// -----

// The pass reports every violation of a step, not only the first.
func.func @all_violations_reported(%g: tensor<4xf32>, %t: tensor<i64>) {
  %w = train.param "w" : tensor<4xf32>
  // expected-error @+1 {{'train.opt_state' op state "w" is read as both 'train.param' and 'train.opt_state'}}
  %m = train.opt_state "w" : tensor<4xf32>
  // expected-error @+1 {{'train.param' op state "w" is read with type 'tensor<2x2xf32>', but earlier with type 'tensor<4xf32>'}}
  %w2 = train.param "w" : tensor<2x2xf32>
  // expected-note @+1 {{first updated here}}
  train.sgd %w, %g {lr = 0.1 : f64} : tensor<4xf32>, tensor<4xf32>
  // expected-error @+1 {{'train.sgd' op state "w" is updated more than once in one step}}
  train.sgd %w, %g {lr = 0.2 : f64} : tensor<4xf32>, tensor<4xf32>
  %b = train.param "b" : tensor<4xf32>
  %bm = train.opt_state "b.exp_avg" : tensor<4xf32>
  %bv = train.opt_state "v" : tensor<4xf32>
  // expected-error @+1 {{'train.adam' op expected optimizer state "v" of parameter "b" to be named "b.<state>"}}
  train.adam %b, %g, %bm, %bv step(%t : tensor<i64>) {lr = 1.0e-3 : f64} : tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>
  return
}

// -----

// A state belongs to the parameter with the longest matching name: with
// parameters "fc" and "fc.bias", "fc.bias.exp_avg" is a state of "fc.bias",
// not of "fc".
func.func @state_of_longer_param_name(%g: tensor<4xf32>, %t: tensor<i64>) {
  %fc = train.param "fc" : tensor<4xf32>
  %bias = train.param "fc.bias" : tensor<4xf32>
  %m = train.opt_state "fc.bias.exp_avg" : tensor<4xf32>
  %v = train.opt_state "fc.exp_avg_sq" : tensor<4xf32>
  // expected-error @+1 {{'train.adam' op expected optimizer state "fc.bias.exp_avg" of parameter "fc" to be named "fc.<state>"; it names a state of parameter "fc.bias"}}
  train.adam %fc, %g, %m, %v step(%t : tensor<i64>) {lr = 1.0e-3 : f64} : tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>
  return
}

// -----

// A step's first result is its loss, a 0-d float tensor (checked once every
// op passes the other rules).
// expected-error @+1 {{'func.func' op is not a training step: its first result must be the loss, a 0-d float tensor, but it returns nothing}}
func.func @no_loss(%g: tensor<4xf32>) {
  %w = train.param "fc.bias" : tensor<4xf32>
  train.sgd %w, %g {lr = 0.1 : f64} : tensor<4xf32>, tensor<4xf32>
  return
}

// -----

// expected-error @+1 {{'func.func' op is not a training step: its first result must be the loss, a 0-d float tensor, but it is 'tensor<4xf32>'}}
func.func @vector_first(%x: tensor<4xf32>) -> (tensor<4xf32>, tensor<f32>) {
  %l = train.reduce_sum %x {dims = array<i64: 0>} : tensor<4xf32> -> tensor<f32>
  return %x, %l : tensor<4xf32>, tensor<f32>
}

// -----

// expected-error @+1 {{'func.func' op is not a training step: its first result must be the loss, a 0-d float tensor, but it is 'tensor<i64>'}}
func.func @integer_first(%t: tensor<i64>) -> tensor<i64> {
  return %t : tensor<i64>
}

// -----

// Two dropouts with one id would draw the same mask.
func.func @dropout_same_id(%x: tensor<8xf32>) -> tensor<f32> {
  // expected-note @+1 {{the other dropout is here}}
  %a, %ma = train.dropout %x {rate = 0.5 : f64, id = 3 : i64} : tensor<8xf32> -> tensor<8xf32>, tensor<8xi1>
  // expected-error @+1 {{'train.dropout' op has id 3, which another dropout of the step already has at the same offsets: the two would draw the same mask}}
  %b, %mb = train.dropout %a {rate = 0.5 : f64, id = 3 : i64} : tensor<8xf32> -> tensor<8xf32>, tensor<8xi1>
  %l = train.reduce_sum %b {dims = array<i64: 0>} : tensor<8xf32> -> tensor<f32>
  return %l : tensor<f32>
}

// -----

// Slices of one larger tensor (train-pipeline's micro-batches, train-shard's
// partitions) share the id and draw different masks: their rows differ. No
// error.
func.func @dropout_slices(%x: tensor<4xf32>) -> tensor<f32> {
  %c0 = arith.constant 0 : index
  %c4 = arith.constant 4 : index
  %a, %ma = train.dropout %x at [%c0] in [8] {rate = 0.5 : f64, id = 3 : i64} : tensor<4xf32> -> tensor<4xf32>, tensor<4xi1>
  %b, %mb = train.dropout %a at [%c4] in [8] {rate = 0.5 : f64, id = 3 : i64} : tensor<4xf32> -> tensor<4xf32>, tensor<4xi1>
  %l = train.reduce_sum %b {dims = array<i64: 0>} : tensor<4xf32> -> tensor<f32>
  return %l : tensor<f32>
}

// -----

// The same rows twice (another constant of the same value) draw one mask.
func.func @dropout_same_slice(%x: tensor<4xf32>) -> tensor<f32> {
  %c4 = arith.constant 4 : index
  %d4 = arith.constant 4 : index
  // expected-note @+1 {{the other dropout is here}}
  %a, %ma = train.dropout %x at [%c4] in [8] {rate = 0.5 : f64, id = 3 : i64} : tensor<4xf32> -> tensor<4xf32>, tensor<4xi1>
  // expected-error @+1 {{'train.dropout' op has id 3, which another dropout of the step already has at the same offsets}}
  %b, %mb = train.dropout %a at [%d4] in [8] {rate = 0.5 : f64, id = 3 : i64} : tensor<4xf32> -> tensor<4xf32>, tensor<4xi1>
  %l = train.reduce_sum %b {dims = array<i64: 0>} : tensor<4xf32> -> tensor<f32>
  return %l : tensor<f32>
}

// -----

// A recomputed clone (train-remat) shares its original's id on purpose: it
// reproduces the mask. No error.
func.func @dropout_recomputed(%x: tensor<8xf32>) -> tensor<f32> {
  %a, %ma = train.dropout %x {rate = 0.5 : f64, id = 3 : i64} : tensor<8xf32> -> tensor<8xf32>, tensor<8xi1>
  %b, %mb = train.dropout %x {rate = 0.5 : f64, id = 3 : i64, train.recomputed} : tensor<8xf32> -> tensor<8xf32>, tensor<8xi1>
  %s = train.add %a, %b : tensor<8xf32>
  %l = train.reduce_sum %s {dims = array<i64: 0>} : tensor<8xf32> -> tensor<f32>
  return %l : tensor<f32>
}

// -----

// Gradient accumulation: the ops agree on the micro-batches per step.
func.func @micro_batches_disagree(%dw: tensor<4xf32>) -> tensor<f32> {
  %w = train.param "w" : tensor<4xf32>
  %i = train.opt_state "grad_accumulation.micro_batch" : tensor<i64>
  // expected-note @+1 {{the other op is here}}
  %skip = train.micro_batch_skip %i {micro_batches = 2 : i64} : tensor<i64> -> tensor<i1>
  train.sgd %w, %dw skip_if(%skip : tensor<i1>) {lr = 1.000000e-02 : f64} : tensor<4xf32>, tensor<4xf32>
  // expected-error @+1 {{'train.micro_batch_advance' op accumulates over 4 micro-batches, but another op of the step over 2}}
  train.micro_batch_advance %i {micro_batches = 4 : i64} : tensor<i64>
  %loss = arith.constant dense<0.000000e+00> : tensor<f32>
  return %loss : tensor<f32>
}

// -----

// A step that reads the micro-batch index must advance it.
func.func @micro_batch_not_advanced(%dw: tensor<4xf32>) -> tensor<f32> {
  %w = train.param "w" : tensor<4xf32>
  %i = train.opt_state "grad_accumulation.micro_batch" : tensor<i64>
  %acc = train.opt_state "w.grad_accumulator" : tensor<4xf32>
  // expected-error @+1 {{'train.accumulate' op reads the micro-batch index, but no train.micro_batch_advance moves it on after it: every call would run the same micro-batch}}
  train.accumulate %acc, %dw micro_batch(%i : tensor<i64>) {scale = 5.000000e-01 : f64} : tensor<4xf32>, tensor<4xf32>
  train.sgd %w, %acc {lr = 1.000000e-02 : f64} : tensor<4xf32>, tensor<4xf32>
  %loss = arith.constant dense<0.000000e+00> : tensor<f32>
  return %loss : tensor<f32>
}

// -----

// ... after every read.
func.func @micro_batch_read_after_advance(%dw: tensor<4xf32>) -> tensor<f32> {
  %w = train.param "w" : tensor<4xf32>
  %i = train.opt_state "grad_accumulation.micro_batch" : tensor<i64>
  // expected-note @+1 {{advanced here}}
  train.micro_batch_advance %i {micro_batches = 2 : i64} : tensor<i64>
  // expected-error @+1 {{'train.micro_batch_skip' op reads the micro-batch index after train.micro_batch_advance moved it on}}
  %skip = train.micro_batch_skip %i {micro_batches = 2 : i64} : tensor<i64> -> tensor<i1>
  train.sgd %w, %dw skip_if(%skip : tensor<i1>) {lr = 1.000000e-02 : f64} : tensor<4xf32>, tensor<4xf32>
  %loss = arith.constant dense<0.000000e+00> : tensor<f32>
  return %loss : tensor<f32>
}

// -----

// Host memory (train-offload): a device op reads host values only through
// train.to_device.
func.func @device_reads_host(%x: tensor<2x4xf32>) -> tensor<f32> {
  %w = train.param "w" {train.space = "host"} : tensor<4x4xf32>
  // expected-error @+1 {{'train.matmul' op runs on the device but reads operand #1, a host value: copy it with train.to_device first}}
  %y = train.matmul %x, %w : tensor<2x4xf32>, tensor<4x4xf32> -> tensor<2x4xf32>
  %loss = arith.constant dense<0.000000e+00> : tensor<f32>
  return %loss : tensor<f32>
}

// -----

// A state lives in one memory: every read of its name is in the same one.
func.func @state_in_two_spaces(%dw: tensor<4xf32>) -> tensor<f32> {
  %w = train.param "w" {train.space = "host"} : tensor<4xf32>
  // expected-error @+1 {{'train.param' op reads 'w' in another memory space than its first read: a state lives in one memory}}
  %w2 = train.param "w" : tensor<4xf32>
  %loss = arith.constant dense<0.000000e+00> : tensor<f32>
  return %loss : tensor<f32>
}
