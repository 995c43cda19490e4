// RUN: mem-opt %s -split-input-file -verify-diagnostics

// Every verifier rule of train.adam8bit / train.adamw8bit (and the ODS
// constraints on their state types): the codes are i8 tensors of the
// parameter's shape, the absmax values 1-d f32 tensors of one value per block
// of 2048 elements (64x64 = 4096 elements: 2 blocks), each of the four from
// its own train.opt_state, the parameter a trainable train.param.

func.func @codes_f32(%g: tensor<64x64xf32>, %t: tensor<i64>) {
  %w = train.param "w" : tensor<64x64xf32>
  %mc = train.opt_state "w.exp_avg.codes" : tensor<64x64xf32>
  %ma = train.opt_state "w.exp_avg.absmax" : tensor<2xf32>
  %vc = train.opt_state "w.exp_avg_sq.codes" : tensor<64x64xi8>
  %va = train.opt_state "w.exp_avg_sq.absmax" : tensor<2xf32>
  // expected-error @+1 {{operand #2 must be statically shaped tensor of 8-bit signless integer values, but got 'tensor<64x64xf32>'}}
  train.adam8bit %w, %g exp_avg(%mc, %ma) exp_avg_sq(%vc, %va) step(%t : tensor<i64>) {lr = 1.0e-3 : f64} : tensor<64x64xf32>, tensor<64x64xf32>, tensor<64x64xf32>, tensor<2xf32>, tensor<64x64xi8>, tensor<2xf32>
  return
}

// -----

func.func @codes_ui8(%g: tensor<64x64xf32>, %t: tensor<i64>) {
  %w = train.param "w" : tensor<64x64xf32>
  %mc = train.opt_state "w.exp_avg.codes" : tensor<64x64xi8>
  %ma = train.opt_state "w.exp_avg.absmax" : tensor<2xf32>
  %vc = train.opt_state "w.exp_avg_sq.codes" : tensor<64x64xui8>
  %va = train.opt_state "w.exp_avg_sq.absmax" : tensor<2xf32>
  // expected-error @+1 {{operand #4 must be statically shaped tensor of 8-bit signless integer values, but got 'tensor<64x64xui8>'}}
  train.adam8bit %w, %g exp_avg(%mc, %ma) exp_avg_sq(%vc, %va) step(%t : tensor<i64>) {lr = 1.0e-3 : f64} : tensor<64x64xf32>, tensor<64x64xf32>, tensor<64x64xi8>, tensor<2xf32>, tensor<64x64xui8>, tensor<2xf32>
  return
}

// -----

func.func @absmax_f16(%g: tensor<64x64xf32>, %t: tensor<i64>) {
  %w = train.param "w" : tensor<64x64xf32>
  %mc = train.opt_state "w.exp_avg.codes" : tensor<64x64xi8>
  %ma = train.opt_state "w.exp_avg.absmax" : tensor<2xf16>
  %vc = train.opt_state "w.exp_avg_sq.codes" : tensor<64x64xi8>
  %va = train.opt_state "w.exp_avg_sq.absmax" : tensor<2xf32>
  // expected-error @+1 {{operand #3 must be 1-d f32 tensor, but got 'tensor<2xf16>'}}
  train.adam8bit %w, %g exp_avg(%mc, %ma) exp_avg_sq(%vc, %va) step(%t : tensor<i64>) {lr = 1.0e-3 : f64} : tensor<64x64xf32>, tensor<64x64xf32>, tensor<64x64xi8>, tensor<2xf16>, tensor<64x64xi8>, tensor<2xf32>
  return
}

// -----

func.func @absmax_rank2(%g: tensor<64x64xf32>, %t: tensor<i64>) {
  %w = train.param "w" : tensor<64x64xf32>
  %mc = train.opt_state "w.exp_avg.codes" : tensor<64x64xi8>
  %ma = train.opt_state "w.exp_avg.absmax" : tensor<2xf32>
  %vc = train.opt_state "w.exp_avg_sq.codes" : tensor<64x64xi8>
  %va = train.opt_state "w.exp_avg_sq.absmax" : tensor<2x1xf32>
  // expected-error @+1 {{operand #5 must be 1-d f32 tensor, but got 'tensor<2x1xf32>'}}
  train.adam8bit %w, %g exp_avg(%mc, %ma) exp_avg_sq(%vc, %va) step(%t : tensor<i64>) {lr = 1.0e-3 : f64} : tensor<64x64xf32>, tensor<64x64xf32>, tensor<64x64xi8>, tensor<2xf32>, tensor<64x64xi8>, tensor<2x1xf32>
  return
}

// -----

// One absmax per 4096 elements (the block size doubled) is not the format.
func.func @absmax_one_block(%g: tensor<64x64xf32>, %t: tensor<i64>) {
  %w = train.param "w" : tensor<64x64xf32>
  %mc = train.opt_state "w.exp_avg.codes" : tensor<64x64xi8>
  %ma = train.opt_state "w.exp_avg.absmax" : tensor<1xf32>
  %vc = train.opt_state "w.exp_avg_sq.codes" : tensor<64x64xi8>
  %va = train.opt_state "w.exp_avg_sq.absmax" : tensor<2xf32>
  // expected-error @+1 {{'train.adam8bit' op expected exp_avg absmax (one per block of 2048) of shape 2, got 1}}
  train.adam8bit %w, %g exp_avg(%mc, %ma) exp_avg_sq(%vc, %va) step(%t : tensor<i64>) {lr = 1.0e-3 : f64} : tensor<64x64xf32>, tensor<64x64xf32>, tensor<64x64xi8>, tensor<1xf32>, tensor<64x64xi8>, tensor<2xf32>
  return
}

// -----

// A partial last block has its absmax too: 4097 elements take 3.
func.func @absmax_partial_block(%g: tensor<4097xf32>, %t: tensor<i64>) {
  %w = train.param "w" : tensor<4097xf32>
  %mc = train.opt_state "w.exp_avg.codes" : tensor<4097xi8>
  %ma = train.opt_state "w.exp_avg.absmax" : tensor<3xf32>
  %vc = train.opt_state "w.exp_avg_sq.codes" : tensor<4097xi8>
  %va = train.opt_state "w.exp_avg_sq.absmax" : tensor<2xf32>
  // expected-error @+1 {{'train.adamw8bit' op expected exp_avg_sq absmax (one per block of 2048) of shape 3, got 2}}
  train.adamw8bit %w, %g exp_avg(%mc, %ma) exp_avg_sq(%vc, %va) step(%t : tensor<i64>) {lr = 1.0e-3 : f64} : tensor<4097xf32>, tensor<4097xf32>, tensor<4097xi8>, tensor<3xf32>, tensor<4097xi8>, tensor<2xf32>
  return
}

// -----

// The codes have the parameter's shape, not merely its element count.
func.func @codes_flat(%g: tensor<64x64xf32>, %t: tensor<i64>) {
  %w = train.param "w" : tensor<64x64xf32>
  %mc = train.opt_state "w.exp_avg.codes" : tensor<4096xi8>
  %ma = train.opt_state "w.exp_avg.absmax" : tensor<2xf32>
  %vc = train.opt_state "w.exp_avg_sq.codes" : tensor<64x64xi8>
  %va = train.opt_state "w.exp_avg_sq.absmax" : tensor<2xf32>
  // expected-error @+1 {{'train.adam8bit' op expected exp_avg codes of shape 64x64, got 4096}}
  train.adam8bit %w, %g exp_avg(%mc, %ma) exp_avg_sq(%vc, %va) step(%t : tensor<i64>) {lr = 1.0e-3 : f64} : tensor<64x64xf32>, tensor<64x64xf32>, tensor<4096xi8>, tensor<2xf32>, tensor<64x64xi8>, tensor<2xf32>
  return
}

// -----

func.func @sq_codes_shape(%g: tensor<64x64xf32>, %t: tensor<i64>) {
  %w = train.param "w" : tensor<64x64xf32>
  %mc = train.opt_state "w.exp_avg.codes" : tensor<64x64xi8>
  %ma = train.opt_state "w.exp_avg.absmax" : tensor<2xf32>
  %vc = train.opt_state "w.exp_avg_sq.codes" : tensor<64x32xi8>
  %va = train.opt_state "w.exp_avg_sq.absmax" : tensor<2xf32>
  // expected-error @+1 {{'train.adam8bit' op expected exp_avg_sq codes of shape 64x64, got 64x32}}
  train.adam8bit %w, %g exp_avg(%mc, %ma) exp_avg_sq(%vc, %va) step(%t : tensor<i64>) {lr = 1.0e-3 : f64} : tensor<64x64xf32>, tensor<64x64xf32>, tensor<64x64xi8>, tensor<2xf32>, tensor<64x32xi8>, tensor<2xf32>
  return
}

// -----

func.func @grad_shape(%g: tensor<64x32xf32>, %t: tensor<i64>) {
  %w = train.param "w" : tensor<64x64xf32>
  %mc = train.opt_state "w.exp_avg.codes" : tensor<64x64xi8>
  %ma = train.opt_state "w.exp_avg.absmax" : tensor<2xf32>
  %vc = train.opt_state "w.exp_avg_sq.codes" : tensor<64x64xi8>
  %va = train.opt_state "w.exp_avg_sq.absmax" : tensor<2xf32>
  // expected-error @+1 {{'train.adam8bit' op expected grad of shape 64x64, got 64x32}}
  train.adam8bit %w, %g exp_avg(%mc, %ma) exp_avg_sq(%vc, %va) step(%t : tensor<i64>) {lr = 1.0e-3 : f64} : tensor<64x64xf32>, tensor<64x32xf32>, tensor<64x64xi8>, tensor<2xf32>, tensor<64x64xi8>, tensor<2xf32>
  return
}

// -----

// Codes must be persistent state, updated in place: not an argument.
func.func @codes_block_argument(%g: tensor<64x64xf32>, %t: tensor<i64>, %mc: tensor<64x64xi8>) {
  %w = train.param "w" : tensor<64x64xf32>
  %ma = train.opt_state "w.exp_avg.absmax" : tensor<2xf32>
  %vc = train.opt_state "w.exp_avg_sq.codes" : tensor<64x64xi8>
  %va = train.opt_state "w.exp_avg_sq.absmax" : tensor<2xf32>
  // expected-error @+1 {{'train.adam8bit' op expected exp_avg codes to be defined by 'train.opt_state', got a block argument}}
  train.adam8bit %w, %g exp_avg(%mc, %ma) exp_avg_sq(%vc, %va) step(%t : tensor<i64>) {lr = 1.0e-3 : f64} : tensor<64x64xf32>, tensor<64x64xf32>, tensor<64x64xi8>, tensor<2xf32>, tensor<64x64xi8>, tensor<2xf32>
  return
}

// -----

func.func @codes_from_param(%g: tensor<64x64xf32>, %t: tensor<i64>) {
  %w = train.param "w" : tensor<64x64xf32>
  %mc = train.opt_state "w.exp_avg.codes" : tensor<64x64xi8>
  %ma = train.opt_state "w.exp_avg.absmax" : tensor<2xf32>
  %vc = train.param "w.exp_avg_sq.codes" : tensor<64x64xi8>
  %va = train.opt_state "w.exp_avg_sq.absmax" : tensor<2xf32>
  // expected-error @+1 {{'train.adam8bit' op expected exp_avg_sq codes to be defined by 'train.opt_state', got 'train.param'}}
  train.adam8bit %w, %g exp_avg(%mc, %ma) exp_avg_sq(%vc, %va) step(%t : tensor<i64>) {lr = 1.0e-3 : f64} : tensor<64x64xf32>, tensor<64x64xf32>, tensor<64x64xi8>, tensor<2xf32>, tensor<64x64xi8>, tensor<2xf32>
  return
}

// -----

func.func @absmax_computed(%g: tensor<64x64xf32>, %t: tensor<i64>) {
  %w = train.param "w" : tensor<64x64xf32>
  %mc = train.opt_state "w.exp_avg.codes" : tensor<64x64xi8>
  %ma = arith.constant dense<1.0> : tensor<2xf32>
  %vc = train.opt_state "w.exp_avg_sq.codes" : tensor<64x64xi8>
  %va = train.opt_state "w.exp_avg_sq.absmax" : tensor<2xf32>
  // expected-error @+1 {{'train.adam8bit' op expected exp_avg absmax to be defined by 'train.opt_state', got 'arith.constant'}}
  train.adam8bit %w, %g exp_avg(%mc, %ma) exp_avg_sq(%vc, %va) step(%t : tensor<i64>) {lr = 1.0e-3 : f64} : tensor<64x64xf32>, tensor<64x64xf32>, tensor<64x64xi8>, tensor<2xf32>, tensor<64x64xi8>, tensor<2xf32>
  return
}

// -----

// The two moments' absmax values in one state would overwrite each other.
func.func @same_state_twice(%g: tensor<64x64xf32>, %t: tensor<i64>) {
  %w = train.param "w" : tensor<64x64xf32>
  %mc = train.opt_state "w.exp_avg.codes" : tensor<64x64xi8>
  %ma = train.opt_state "w.absmax" : tensor<2xf32>
  %vc = train.opt_state "w.exp_avg_sq.codes" : tensor<64x64xi8>
  %va = train.opt_state "w.absmax" : tensor<2xf32>
  // expected-error @+1 {{'train.adam8bit' op expected distinct states, got the train.opt_state "w.absmax" as both exp_avg absmax and exp_avg_sq absmax}}
  train.adam8bit %w, %g exp_avg(%mc, %ma) exp_avg_sq(%vc, %va) step(%t : tensor<i64>) {lr = 1.0e-3 : f64} : tensor<64x64xf32>, tensor<64x64xf32>, tensor<64x64xi8>, tensor<2xf32>, tensor<64x64xi8>, tensor<2xf32>
  return
}

// -----

func.func @param_block_argument(%w: tensor<64x64xf32>, %g: tensor<64x64xf32>, %t: tensor<i64>) {
  %mc = train.opt_state "w.exp_avg.codes" : tensor<64x64xi8>
  %ma = train.opt_state "w.exp_avg.absmax" : tensor<2xf32>
  %vc = train.opt_state "w.exp_avg_sq.codes" : tensor<64x64xi8>
  %va = train.opt_state "w.exp_avg_sq.absmax" : tensor<2xf32>
  // expected-error @+1 {{'train.adam8bit' op expected param to be defined by 'train.param', got a block argument}}
  train.adam8bit %w, %g exp_avg(%mc, %ma) exp_avg_sq(%vc, %va) step(%t : tensor<i64>) {lr = 1.0e-3 : f64} : tensor<64x64xf32>, tensor<64x64xf32>, tensor<64x64xi8>, tensor<2xf32>, tensor<64x64xi8>, tensor<2xf32>
  return
}

// -----

func.func @frozen_param(%g: tensor<64x64xf32>, %t: tensor<i64>) {
  %w = train.param "w" {trainable = false} : tensor<64x64xf32>
  %mc = train.opt_state "w.exp_avg.codes" : tensor<64x64xi8>
  %ma = train.opt_state "w.exp_avg.absmax" : tensor<2xf32>
  %vc = train.opt_state "w.exp_avg_sq.codes" : tensor<64x64xi8>
  %va = train.opt_state "w.exp_avg_sq.absmax" : tensor<2xf32>
  // expected-error @+1 {{'train.adamw8bit' op updates the frozen parameter 'w' (trainable = false)}}
  train.adamw8bit %w, %g exp_avg(%mc, %ma) exp_avg_sq(%vc, %va) step(%t : tensor<i64>) {lr = 1.0e-3 : f64} : tensor<64x64xf32>, tensor<64x64xf32>, tensor<64x64xi8>, tensor<2xf32>, tensor<64x64xi8>, tensor<2xf32>
  return
}

// -----

func.func @negative_lr(%g: tensor<64x64xf32>, %t: tensor<i64>) {
  %w = train.param "w" : tensor<64x64xf32>
  %mc = train.opt_state "w.exp_avg.codes" : tensor<64x64xi8>
  %ma = train.opt_state "w.exp_avg.absmax" : tensor<2xf32>
  %vc = train.opt_state "w.exp_avg_sq.codes" : tensor<64x64xi8>
  %va = train.opt_state "w.exp_avg_sq.absmax" : tensor<2xf32>
  // expected-error @+1 {{'train.adam8bit' op expected lr >= 0, got -1.000000e-03}}
  train.adam8bit %w, %g exp_avg(%mc, %ma) exp_avg_sq(%vc, %va) step(%t : tensor<i64>) {lr = -1.0e-3 : f64} : tensor<64x64xf32>, tensor<64x64xf32>, tensor<64x64xi8>, tensor<2xf32>, tensor<64x64xi8>, tensor<2xf32>
  return
}

// -----

func.func @beta1_one(%g: tensor<64x64xf32>, %t: tensor<i64>) {
  %w = train.param "w" : tensor<64x64xf32>
  %mc = train.opt_state "w.exp_avg.codes" : tensor<64x64xi8>
  %ma = train.opt_state "w.exp_avg.absmax" : tensor<2xf32>
  %vc = train.opt_state "w.exp_avg_sq.codes" : tensor<64x64xi8>
  %va = train.opt_state "w.exp_avg_sq.absmax" : tensor<2xf32>
  // expected-error @+1 {{'train.adam8bit' op expected beta1 in [0, 1), got 1}}
  train.adam8bit %w, %g exp_avg(%mc, %ma) exp_avg_sq(%vc, %va) step(%t : tensor<i64>) {lr = 1.0e-3 : f64, beta1 = 1.0 : f64} : tensor<64x64xf32>, tensor<64x64xf32>, tensor<64x64xi8>, tensor<2xf32>, tensor<64x64xi8>, tensor<2xf32>
  return
}

// -----

func.func @beta2_negative(%g: tensor<64x64xf32>, %t: tensor<i64>) {
  %w = train.param "w" : tensor<64x64xf32>
  %mc = train.opt_state "w.exp_avg.codes" : tensor<64x64xi8>
  %ma = train.opt_state "w.exp_avg.absmax" : tensor<2xf32>
  %vc = train.opt_state "w.exp_avg_sq.codes" : tensor<64x64xi8>
  %va = train.opt_state "w.exp_avg_sq.absmax" : tensor<2xf32>
  // expected-error @+1 {{'train.adam8bit' op expected beta2 in [0, 1), got -5.000000e-01}}
  train.adam8bit %w, %g exp_avg(%mc, %ma) exp_avg_sq(%vc, %va) step(%t : tensor<i64>) {lr = 1.0e-3 : f64, beta2 = -0.5 : f64} : tensor<64x64xf32>, tensor<64x64xf32>, tensor<64x64xi8>, tensor<2xf32>, tensor<64x64xi8>, tensor<2xf32>
  return
}

// -----

func.func @epsilon_zero(%g: tensor<64x64xf32>, %t: tensor<i64>) {
  %w = train.param "w" : tensor<64x64xf32>
  %mc = train.opt_state "w.exp_avg.codes" : tensor<64x64xi8>
  %ma = train.opt_state "w.exp_avg.absmax" : tensor<2xf32>
  %vc = train.opt_state "w.exp_avg_sq.codes" : tensor<64x64xi8>
  %va = train.opt_state "w.exp_avg_sq.absmax" : tensor<2xf32>
  // expected-error @+1 {{'train.adam8bit' op expected epsilon > 0, got 0}}
  train.adam8bit %w, %g exp_avg(%mc, %ma) exp_avg_sq(%vc, %va) step(%t : tensor<i64>) {lr = 1.0e-3 : f64, epsilon = 0.0 : f64} : tensor<64x64xf32>, tensor<64x64xf32>, tensor<64x64xi8>, tensor<2xf32>, tensor<64x64xi8>, tensor<2xf32>
  return
}

// -----

func.func @negative_weight_decay(%g: tensor<64x64xf32>, %t: tensor<i64>) {
  %w = train.param "w" : tensor<64x64xf32>
  %mc = train.opt_state "w.exp_avg.codes" : tensor<64x64xi8>
  %ma = train.opt_state "w.exp_avg.absmax" : tensor<2xf32>
  %vc = train.opt_state "w.exp_avg_sq.codes" : tensor<64x64xi8>
  %va = train.opt_state "w.exp_avg_sq.absmax" : tensor<2xf32>
  // expected-error @+1 {{'train.adamw8bit' op expected weight_decay >= 0, got -1.000000e-02}}
  train.adamw8bit %w, %g exp_avg(%mc, %ma) exp_avg_sq(%vc, %va) step(%t : tensor<i64>) {lr = 1.0e-3 : f64, weight_decay = -1.0e-2 : f64} : tensor<64x64xf32>, tensor<64x64xf32>, tensor<64x64xi8>, tensor<2xf32>, tensor<64x64xi8>, tensor<2xf32>
  return
}

// -----

// The skipped-step count exists only under loss scaling (with skip_if).
func.func @skipped_without_skip_if(%g: tensor<64x64xf32>, %t: tensor<i64>) {
  %w = train.param "w" : tensor<64x64xf32>
  %mc = train.opt_state "w.exp_avg.codes" : tensor<64x64xi8>
  %ma = train.opt_state "w.exp_avg.absmax" : tensor<2xf32>
  %vc = train.opt_state "w.exp_avg_sq.codes" : tensor<64x64xi8>
  %va = train.opt_state "w.exp_avg_sq.absmax" : tensor<2xf32>
  %n = train.opt_state "loss_scale.skipped_steps" : tensor<i64>
  // expected-error @+1 {{'train.adam8bit' op expected skip_if with skipped: the skipped steps are counted only under loss scaling}}
  train.adam8bit %w, %g exp_avg(%mc, %ma) exp_avg_sq(%vc, %va) step(%t : tensor<i64>) skipped(%n : tensor<i64>) {lr = 1.0e-3 : f64} : tensor<64x64xf32>, tensor<64x64xf32>, tensor<64x64xi8>, tensor<2xf32>, tensor<64x64xi8>, tensor<2xf32>
  return
}

// -----

func.func @skipped_wrong_state(%g: tensor<64x64xf32>, %t: tensor<i64>, %found: tensor<i1>) {
  %w = train.param "w" : tensor<64x64xf32>
  %mc = train.opt_state "w.exp_avg.codes" : tensor<64x64xi8>
  %ma = train.opt_state "w.exp_avg.absmax" : tensor<2xf32>
  %vc = train.opt_state "w.exp_avg_sq.codes" : tensor<64x64xi8>
  %va = train.opt_state "w.exp_avg_sq.absmax" : tensor<2xf32>
  %n = train.opt_state "skipped" : tensor<i64>
  // expected-error @+1 {{'train.adam8bit' op expected the skipped-step count to be the train.opt_state "loss_scale.skipped_steps"}}
  train.adam8bit %w, %g exp_avg(%mc, %ma) exp_avg_sq(%vc, %va) step(%t : tensor<i64>) skip_if(%found : tensor<i1>) skipped(%n : tensor<i64>) {lr = 1.0e-3 : f64} : tensor<64x64xf32>, tensor<64x64xf32>, tensor<64x64xi8>, tensor<2xf32>, tensor<64x64xi8>, tensor<2xf32>
  return
}
