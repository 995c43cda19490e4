// RUN: mem-opt %s -split-input-file --train-verify-plan -verify-diagnostics

// A valid plan (what train-plan-memory writes for this step) passes; a
// function without a plan is an error (passing would claim a check that was
// never made).
func.func @valid(%x: tensor<64xf32> {train.offset = 256 : i64}) -> tensor<64xf32>
    attributes {train.arena_bytes = 768 : i64, train.load_bytes = 768 : i64,
                train.persistent_bytes = 256 : i64, train.plan_alignment = 256 : i64} {
  %w = train.param "w" {train.offset = array<i64: 0>} : tensor<64xf32>
  %a = train.add %x, %w {train.offset = array<i64: 512>} : tensor<64xf32>
  %b = train.relu %a {train.offset = array<i64: 256>} : tensor<64xf32>
  return %b : tensor<64xf32>
}

// expected-error @+1 {{'func.func' op has no arena plan to verify ('train.arena_bytes' is missing); run --train-plan-memory first}}
func.func @unplanned(%x: tensor<64xf32>) -> tensor<64xf32> {
  %a = train.relu %x : tensor<64xf32>
  return %a : tensor<64xf32>
}

// -----

// %a and %b are live together at the relu (operands and results live
// together), so they must not share bytes.
func.func @overlap(%x: tensor<64xf32> {train.offset = 256 : i64}) -> tensor<64xf32>
    attributes {train.arena_bytes = 768 : i64, train.persistent_bytes = 256 : i64,
                train.plan_alignment = 256 : i64} {
  %w = train.param "w" {train.offset = array<i64: 0>} : tensor<64xf32>
  // expected-note @+1 {{the other buffer is defined here}}
  %a = train.add %x, %w {train.offset = array<i64: 512>} : tensor<64xf32>
  // expected-error @+1 {{train-verify-plan: 'train.relu@2' (256 bytes, live [2, 3]) at bytes [512, 768) overlaps 'train.add@1' (256 bytes, live [1, 2]) at bytes [512, 768) while both are live}}
  %b = train.relu %a {train.offset = array<i64: 512>} : tensor<64xf32>
  return %b : tensor<64xf32>
}

// -----

// A buffer the plan does not know (the step changed after planning).
func.func @missing(%x: tensor<64xf32> {train.offset = 256 : i64}) -> tensor<64xf32>
    attributes {train.arena_bytes = 768 : i64, train.plan_alignment = 256 : i64} {
  %w = train.param "w" {train.offset = array<i64: 0>} : tensor<64xf32>
  %a = train.add %x, %w {train.offset = array<i64: 512>} : tensor<64xf32>
  // expected-error @+1 {{train-verify-plan: 'train.relu@2' (256 bytes, live [2, 3]) has no offset; plan the step again (--train-plan-memory) after changing it}}
  %b = train.relu %a : tensor<64xf32>
  return %b : tensor<64xf32>
}

// -----

// expected-error @+1 {{train-verify-plan: 'arg0' (256 bytes, live [0, 0]) is at offset 100, not a multiple of the plan's alignment 256}}
func.func @misaligned(%x: tensor<64xf32> {train.offset = 100 : i64}) -> tensor<64xf32>
    attributes {train.arena_bytes = 768 : i64, train.plan_alignment = 256 : i64} {
  %a = train.relu %x {train.offset = array<i64: 256>} : tensor<64xf32>
  return %a : tensor<64xf32>
}

// -----

func.func @outside(%x: tensor<64xf32> {train.offset = 0 : i64}) -> tensor<64xf32>
    attributes {train.arena_bytes = 512 : i64, train.plan_alignment = 256 : i64} {
  // expected-error @+1 {{train-verify-plan: 'train.relu@0' (256 bytes, live [0, 1]) at offset 512 ends at byte 768, past the arena of 512 bytes}}
  %a = train.relu %x {train.offset = array<i64: 512>} : tensor<64xf32>
  return %a : tensor<64xf32>
}

// -----

// expected-error @+1 {{'func.func' op expected a single-block training step (program order is the schedule)}}
func.func @two_blocks(%x: tensor<4xf32>) -> tensor<4xf32>
    attributes {train.arena_bytes = 0 : i64} {
  cf.br ^bb1
^bb1:
  return %x : tensor<4xf32>
}

// -----

// The host's arena (train.host_arena_bytes) is checked apart from the
// device's: a host value may take the offset of a device value live at the
// same time (%ah and %a at 256), not that of a host value live with it.
func.func @host_valid(%x: tensor<64xf32> {train.offset = 0 : i64}) -> tensor<64xf32>
    attributes {train.arena_bytes = 768 : i64, train.persistent_bytes = 0 : i64,
                train.host_arena_bytes = 768 : i64, train.host_persistent_bytes = 256 : i64,
                train.plan_alignment = 256 : i64} {
  %w = train.param "w" {train.offset = array<i64: 0>, train.space = "host"} : tensor<64xf32>
  %wd = train.to_device %w {train.offset = array<i64: 512>} : tensor<64xf32>
  %a = train.add %x, %wd {train.offset = array<i64: 256>} : tensor<64xf32>
  %ah = train.to_host %a {train.offset = array<i64: 256>} : tensor<64xf32>
  %b = train.relu %ah {train.offset = array<i64: 512>, train.space = "host"} : tensor<64xf32>
  %bd = train.to_device %b {train.offset = array<i64: 0>} : tensor<64xf32>
  return %bd : tensor<64xf32>
}

// -----

func.func @host_overlap(%x: tensor<64xf32> {train.offset = 0 : i64}) -> tensor<64xf32>
    attributes {train.arena_bytes = 768 : i64, train.persistent_bytes = 0 : i64,
                train.host_arena_bytes = 768 : i64, train.host_persistent_bytes = 256 : i64,
                train.plan_alignment = 256 : i64} {
  %w = train.param "w" {train.offset = array<i64: 0>, train.space = "host"} : tensor<64xf32>
  %wd = train.to_device %w {train.offset = array<i64: 512>} : tensor<64xf32>
  %a = train.add %x, %wd {train.offset = array<i64: 256>} : tensor<64xf32>
  // expected-note @+1 {{the other buffer is defined here}}
  %ah = train.to_host %a {train.offset = array<i64: 256>} : tensor<64xf32>
  // expected-error @+1 {{train-verify-plan: 'train.relu@4' (256 bytes, live [4, 5]) at bytes [256, 512) overlaps 'train.to_host@3' (256 bytes, live [3, 4]) at bytes [256, 512) while both are live}}
  %b = train.relu %ah {train.offset = array<i64: 256>, train.space = "host"} : tensor<64xf32>
  %bd = train.to_device %b {train.offset = array<i64: 0>} : tensor<64xf32>
  return %bd : tensor<64xf32>
}

// -----

func.func @host_past_arena(%x: tensor<64xf32> {train.offset = 0 : i64}) -> tensor<64xf32>
    attributes {train.arena_bytes = 768 : i64, train.persistent_bytes = 0 : i64,
                train.host_arena_bytes = 512 : i64, train.host_persistent_bytes = 256 : i64,
                train.plan_alignment = 256 : i64} {
  %w = train.param "w" {train.offset = array<i64: 0>, train.space = "host"} : tensor<64xf32>
  %wd = train.to_device %w {train.offset = array<i64: 512>} : tensor<64xf32>
  %a = train.add %x, %wd {train.offset = array<i64: 256>} : tensor<64xf32>
  %ah = train.to_host %a {train.offset = array<i64: 256>} : tensor<64xf32>
  // expected-error @+1 {{train-verify-plan: 'train.relu@4' (256 bytes, live [4, 5]) at offset 512 ends at byte 768, past the host arena of 512 bytes}}
  %b = train.relu %ah {train.offset = array<i64: 512>, train.space = "host"} : tensor<64xf32>
  %bd = train.to_device %b {train.offset = array<i64: 0>} : tensor<64xf32>
  return %bd : tensor<64xf32>
}

// -----

// A plan made before train-offload: the host's values have no arena.
// expected-error @+1 {{'func.func' op keeps values in host memory but its plan has no host arena ('train.host_arena_bytes' is missing); plan the step again (--train-plan-memory)}}
func.func @host_unplanned(%x: tensor<64xf32> {train.offset = 0 : i64}) -> tensor<64xf32>
    attributes {train.arena_bytes = 768 : i64, train.persistent_bytes = 0 : i64,
                train.plan_alignment = 256 : i64} {
  %ah = train.to_host %x : tensor<64xf32>
  %bd = train.to_device %ah {train.offset = array<i64: 256>} : tensor<64xf32>
  return %bd : tensor<64xf32>
}

// -----

// A host arena left over on a step without host values.
// expected-error @+1 {{'func.func' op has a host arena ('train.host_arena_bytes') but no value in host memory; plan the step again (--train-plan-memory)}}
func.func @host_stale(%x: tensor<64xf32> {train.offset = 0 : i64}) -> tensor<64xf32>
    attributes {train.arena_bytes = 512 : i64, train.persistent_bytes = 0 : i64,
                train.host_arena_bytes = 256 : i64, train.plan_alignment = 256 : i64} {
  %a = train.relu %x {train.offset = array<i64: 256>} : tensor<64xf32>
  return %a : tensor<64xf32>
}
