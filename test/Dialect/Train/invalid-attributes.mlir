// The train dialect verifies the attributes passes write (train-plan-memory's
// plan, the step-counter marker).
// RUN: mem-opt %s -split-input-file -verify-diagnostics

func.func @offset_not_array(%x: tensor<4xf32>) {
  // expected-error @+1 {{'train.offset' must be an array<i64> of one offset per result}}
  %a = train.relu %x {train.offset = 0 : i64} : tensor<4xf32>
  return
}

// -----

func.func @offset_count(%x: tensor<4xf32>) {
  // expected-error @+1 {{'train.offset' has 2 offsets for 1 results}}
  %a = train.relu %x {train.offset = array<i64: 0, 256>} : tensor<4xf32>
  return
}

// -----

func.func @offset_negative(%x: tensor<4xf32>) {
  // expected-error @+1 {{'train.offset' offsets must be >= 0 (or -1 for a result without storage), got -2}}
  %a = train.relu %x {train.offset = array<i64: -2>} : tensor<4xf32>
  return
}

// -----

func.func @workspace_type(%x: tensor<4xf32>) {
  // expected-error @+1 {{'train.workspace_offset' must be an i64 integer}}
  %a = train.relu %x {train.workspace_offset = 1.0 : f32} : tensor<4xf32>
  return
}

// -----

// expected-error @+1 {{'train.arena_bytes' must not be negative, got -5}}
func.func @arena_negative() attributes {train.arena_bytes = -5 : i64} {
  return
}

// -----

// expected-error @+1 {{'train.plan_alignment' must be a power of two of at most 2097152 (2 MiB), got 96}}
func.func @alignment() attributes {train.plan_alignment = 96 : i64} {
  return
}

// -----

// A huge alignment would pad every buffer to terabytes.
// expected-error @+1 {{'train.plan_alignment' must be a power of two of at most 2097152 (2 MiB), got 1099511627776}}
func.func @alignment_huge() attributes {train.plan_alignment = 1099511627776 : i64} {
  return
}

// -----

// expected-error @+1 {{unknown train attribute 'train.arena'}}
func.func @unknown() attributes {train.arena = 5 : i64} {
  return
}

// -----

// expected-error @+1 {{'train.offset' must be an i64 integer}}
func.func @arg_offset(%x: tensor<4xf32> {train.offset = "zero"}) {
  return
}

// -----

// expected-error @+1 {{'train.step' on argument 0 must be a unit attribute}}
func.func @step(%t: tensor<i64> {train.step = 1 : i64}) {
  return
}

// -----

// expected-error @+1 {{unknown train attribute 'train.foo' on argument 0}}
func.func @arg_unknown(%x: tensor<4xf32> {train.foo}) {
  return
}

// -----

func.func @recomputed(%x: tensor<4xf32>) -> tensor<4xf32> {
  // expected-error @+1 {{'train.recomputed' must be a unit attribute}}
  %y = train.relu %x {train.recomputed = 1 : i64} : tensor<4xf32>
  return %y : tensor<4xf32>
}

// -----

// expected-error @+1 {{'train.step' on argument 0 must mark a 0-d integer or float tensor, got 'tensor<2xi64>'}}
func.func @step_shape(%t: tensor<2xi64> {train.step}) {
  return
}

// -----

// expected-error @+1 {{'train.step' on arguments 0 and 1: a step has one step counter}}
func.func @step_twice(%t: tensor<i64> {train.step}, %u: tensor<f32> {train.step}) {
  return
}

// -----

func.func @layer_empty(%x: tensor<4xf32>) -> tensor<4xf32> {
  // expected-error @+1 {{'train.layer' must be a non-empty string naming a layer}}
  %y = train.relu %x {train.layer = ""} : tensor<4xf32>
  return %y : tensor<4xf32>
}

// -----

func.func @layer_not_string(%x: tensor<4xf32>) -> tensor<4xf32> {
  // expected-error @+1 {{'train.layer' must be a non-empty string naming a layer}}
  %y = train.relu %x {train.layer = 3 : i64} : tensor<4xf32>
  return %y : tensor<4xf32>
}

// -----

// expected-error @+1 {{'train.remat' must be a dictionary {algorithm = "<name>", budget = <i64>}}}
func.func @remat_not_dictionary() attributes {train.remat = "greedy"} {
  return
}

// -----

// expected-error @+1 {{'train.remat' must name its 'algorithm' as a non-empty string}}
func.func @remat_no_algorithm() attributes {train.remat = {budget = 950 : i64}} {
  return
}

// -----

// expected-error @+1 {{'train.remat' must have a non-negative i64 'budget' (bytes)}}
func.func @remat_budget() attributes {train.remat = {algorithm = "greedy", budget = -1 : i64}} {
  return
}

// -----

// expected-error @+1 {{'train.remat' has an unknown key 'segments'}}
func.func @remat_key() attributes {train.remat = {algorithm = "optimal", segments = 5 : i64}} {
  return
}

// -----

// expected-error @+1 {{'train.grad_of' on result 0 must be a non-empty string naming a parameter}}
func.func @grad_of_type(%g: tensor<4xf32>) -> (tensor<4xf32> {train.grad_of = 1 : i64}) {
  return %g : tensor<4xf32>
}

// -----

// A gradient result names a parameter the function reads, of its shape.
// expected-error @+1 {{'train.grad_of' on result 1 names 'w', which no train.param of the function reads}}
func.func @grad_of_unknown(%x: tensor<4xf32>, %g: tensor<4xf32>) -> (tensor<f32>, tensor<4xf32> {train.grad_of = "w"}) {
  %u = train.param "u" : tensor<4xf32>
  %l = train.mse_loss %u, %x : tensor<4xf32>, tensor<4xf32> -> tensor<f32>
  return %l, %g : tensor<f32>, tensor<4xf32>
}

// -----

// expected-error @+1 {{'train.grad_of' on result 1: the result's type 'tensor<2x2xf32>' does not have the shape of parameter 'u' ('tensor<4xf32>')}}
func.func @grad_of_shape(%x: tensor<4xf32>, %g: tensor<2x2xf32>) -> (tensor<f32>, tensor<2x2xf32> {train.grad_of = "u"}) {
  %u = train.param "u" : tensor<4xf32>
  %l = train.mse_loss %u, %x : tensor<4xf32>, tensor<4xf32> -> tensor<f32>
  return %l, %g : tensor<f32>, tensor<2x2xf32>
}

// -----

// expected-error @+1 {{'train.precision' grads 'bf16' do not match mode 'fp16-mixed'}}
func.func @precision_grads() attributes {train.precision = {mode = "fp16-mixed", grads = "bf16"}} {
  return
}

// -----

// expected-error @+1 {{'train.precision' with dynamic loss scaling needs 'initial_scale' (f64) and 'growth_interval' (i64)}}
func.func @precision_dynamic() attributes {train.precision = {mode = "fp16-mixed", grads = "fp16", loss_scale = "dynamic"}} {
  return
}

// -----

// expected-error @+1 {{'train.precision' loss scale must be a positive finite number}}
func.func @precision_scale() attributes {train.precision = {mode = "fp16-mixed", grads = "fp16", loss_scale = -1.0 : f64}} {
  return
}

// -----

func.func @precision_on_op(%x: tensor<4xf32>) -> tensor<4xf32> {
  // expected-error @+1 {{'train.precision' must be a dictionary on a function}}
  %y = train.relu %x {train.precision = {mode = "fp32", grads = "fp32"}} : tensor<4xf32>
  return %y : tensor<4xf32>
}

// -----

// expected-error @+1 {{unknown train attribute 'train.gradient' on result 0}}
func.func @result_unknown(%g: tensor<4xf32>) -> (tensor<4xf32> {train.gradient = "w"}) {
  return %g : tensor<4xf32>
}

// -----

func.func @layer_on_argument(%x: tensor<4xf32> {train.layer = "h.0"}) {
  // expected-error @-1 {{unknown train attribute 'train.layer' on argument 0}}
  return
}

// -----

func.func @grad_of_on_op(%x: tensor<4xf32>) -> tensor<4xf32> {
  // expected-error @+1 {{unknown train attribute 'train.grad_of'}}
  %y = train.relu %x {train.grad_of = "w"} : tensor<4xf32>
  return %y : tensor<4xf32>
}

// -----

// expected-error @+1 {{'train.remat' must have a non-negative f64 'gap' (the solver's relative gap)}}
func.func @remat_gap() attributes {train.remat = {algorithm = "optimal", gap = -1.0 : f64}} {
  return
}
