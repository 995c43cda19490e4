// One training step of a Llama-style model, written out by hand: one decoder
// layer, fp32, forward + loss, the complete backward and an AdamW update of
// every parameter.
//
//   batch B = 3, sequence S = 24, hidden C = 64, query heads Hq = 4,
//   key/value heads Hkv = 2 (grouped-query attention, 2 query heads per
//   key/value head), head dim D = 16, MLP width F = 160, vocabulary V = 128.
//   (B = 3 != Hkv = 2 and B*S = 72 != C, so most mix-ups fail to verify; the
//   square 64 x 64 q/o weights are pinned by test/Examples/examples.test.)
//
// Parameter names and layouts follow HuggingFace's LlamaForCausalLM state
// dict: `nn.Linear` weights are output-major, `[out, in]`, so a projection is
// y = x · Wᵀ = matmul(x, W){transpose_rhs}; its input gradient is
// dx = dy · W (no flag) and its weight gradient dW = dyᵀ · x
// (matmul(dy, x){transpose_lhs} on the 2-D views). No biases, no dropout;
// the LM head is untied. `labels` are already shifted. Rotary embeddings
// rotate by the position index along the sequence dimension (0 .. S-1).
//
// Every op carries a `loc` naming its place in the model (".grad" for the
// backward); `train.free` marks where each non-view buffer dies.
//
//   mem-opt --train-verify-step examples/llama_block_step.mlir

func.func @llama_block_step(%ids: tensor<3x24xi64>, %labels: tensor<3x24xi64>,
                            %step: tensor<i64>) -> tensor<f32> {
  //===--------------------------------------------------------------------===//
  // Parameters (12 tensors)
  //===--------------------------------------------------------------------===//
  %embed_w = train.param "model.embed_tokens.weight" : tensor<128x64xf32> loc("model.embed_tokens")
  %in_norm_g = train.param "model.layers.0.input_layernorm.weight" : tensor<64xf32> loc("model.layers.0.input_layernorm")
  %q_w = train.param "model.layers.0.self_attn.q_proj.weight" : tensor<64x64xf32> loc("model.layers.0.self_attn.q_proj")
  %k_w = train.param "model.layers.0.self_attn.k_proj.weight" : tensor<32x64xf32> loc("model.layers.0.self_attn.k_proj")
  %v_w = train.param "model.layers.0.self_attn.v_proj.weight" : tensor<32x64xf32> loc("model.layers.0.self_attn.v_proj")
  %o_w = train.param "model.layers.0.self_attn.o_proj.weight" : tensor<64x64xf32> loc("model.layers.0.self_attn.o_proj")
  %post_norm_g = train.param "model.layers.0.post_attention_layernorm.weight" : tensor<64xf32> loc("model.layers.0.post_attention_layernorm")
  %gate_w = train.param "model.layers.0.mlp.gate_proj.weight" : tensor<160x64xf32> loc("model.layers.0.mlp.gate_proj")
  %up_w = train.param "model.layers.0.mlp.up_proj.weight" : tensor<160x64xf32> loc("model.layers.0.mlp.up_proj")
  %down_w = train.param "model.layers.0.mlp.down_proj.weight" : tensor<64x160xf32> loc("model.layers.0.mlp.down_proj")
  %norm_g = train.param "model.norm.weight" : tensor<64xf32> loc("model.norm")
  %lm_w = train.param "lm_head.weight" : tensor<128x64xf32> loc("lm_head")

  //===--------------------------------------------------------------------===//
  // Forward: embedding, then attention: x1 = x0 + o_proj(attn(norm(x0)))
  //===--------------------------------------------------------------------===//
  %x0 = train.embedding %embed_w, %ids : tensor<128x64xf32>, tensor<3x24xi64> -> tensor<3x24x64xf32> loc("model.embed_tokens")
  %h1, %h1_rstd = train.rms_norm %x0, %in_norm_g {epsilon = 1.000000e-06 : f64}
      : tensor<3x24x64xf32>, tensor<64xf32> -> tensor<3x24x64xf32>, tensor<3x24xf32> loc("model.layers.0.input_layernorm")
  // Projections: Q [3,24,64], K and V [3,24,32] (Hkv * D = 32).
  %q = train.matmul %h1, %q_w {transpose_rhs} : tensor<3x24x64xf32>, tensor<64x64xf32> -> tensor<3x24x64xf32> loc("model.layers.0.self_attn.q_proj")
  %k = train.matmul %h1, %k_w {transpose_rhs} : tensor<3x24x64xf32>, tensor<32x64xf32> -> tensor<3x24x32xf32> loc("model.layers.0.self_attn.k_proj")
  %v = train.matmul %h1, %v_w {transpose_rhs} : tensor<3x24x64xf32>, tensor<32x64xf32> -> tensor<3x24x32xf32> loc("model.layers.0.self_attn.v_proj")
  // Heads: [B, S, H*D] -> [B, S, H, D] -> [B, H, S, D].
  %q4 = train.reshape %q : tensor<3x24x64xf32> -> tensor<3x24x4x16xf32> loc("model.layers.0.self_attn.split_heads")
  %qh = train.transpose %q4 {permutation = array<i64: 0, 2, 1, 3>} : tensor<3x24x4x16xf32> -> tensor<3x4x24x16xf32> loc("model.layers.0.self_attn.split_heads")
  %k4 = train.reshape %k : tensor<3x24x32xf32> -> tensor<3x24x2x16xf32> loc("model.layers.0.self_attn.split_heads")
  %kh = train.transpose %k4 {permutation = array<i64: 0, 2, 1, 3>} : tensor<3x24x2x16xf32> -> tensor<3x2x24x16xf32> loc("model.layers.0.self_attn.split_heads")
  %v4 = train.reshape %v : tensor<3x24x32xf32> -> tensor<3x24x2x16xf32> loc("model.layers.0.self_attn.split_heads")
  %vh = train.transpose %v4 {permutation = array<i64: 0, 2, 1, 3>} : tensor<3x24x2x16xf32> -> tensor<3x2x24x16xf32> loc("model.layers.0.self_attn.split_heads")
  // RoPE on queries and keys (nothing saved: the backward is the inverse
  // rotation).
  %qr = train.rotary %qh {theta = 1.000000e+04 : f64} : tensor<3x4x24x16xf32> loc("model.layers.0.self_attn.rotary_emb")
  %kr = train.rotary %kh {theta = 1.000000e+04 : f64} : tensor<3x2x24x16xf32> loc("model.layers.0.self_attn.rotary_emb")
  train.free %q : tensor<3x24x64xf32> loc("model.layers.0.self_attn.rotary_emb")
  train.free %k : tensor<3x24x32xf32> loc("model.layers.0.self_attn.rotary_emb")
  // Fused causal attention with scale 1/sqrt(16); it saves q, k, v, out
  // and the row log-sum-exp.
  %attn, %lse = train.attention %qr, %kr, %vh {causal, scale = 2.500000e-01 : f64}
      : tensor<3x4x24x16xf32>, tensor<3x2x24x16xf32>, tensor<3x2x24x16xf32> -> tensor<3x4x24x16xf32>, tensor<3x4x24xf32> loc("model.layers.0.self_attn.attention")
  // Merge heads: [B, Hq, S, D] -> [B, S, Hq, D] -> [B, S, C].
  %attn_t = train.transpose %attn {permutation = array<i64: 0, 2, 1, 3>} : tensor<3x4x24x16xf32> -> tensor<3x24x4x16xf32> loc("model.layers.0.self_attn.merge_heads")
  %merged = train.reshape %attn_t : tensor<3x24x4x16xf32> -> tensor<3x24x64xf32> loc("model.layers.0.self_attn.merge_heads")
  %o = train.matmul %merged, %o_w {transpose_rhs} : tensor<3x24x64xf32>, tensor<64x64xf32> -> tensor<3x24x64xf32> loc("model.layers.0.self_attn.o_proj")
  %x1 = train.add %x0, %o : tensor<3x24x64xf32> loc("model.layers.0.residual_attn")
  train.free %o : tensor<3x24x64xf32> loc("model.layers.0.residual_attn")

  //===--------------------------------------------------------------------===//
  // Forward: SwiGLU MLP, x2 = x1 + down(silu(gate(h2)) * up(h2)), h2 = norm(x1)
  //===--------------------------------------------------------------------===//
  %h2, %h2_rstd = train.rms_norm %x1, %post_norm_g {epsilon = 1.000000e-06 : f64}
      : tensor<3x24x64xf32>, tensor<64xf32> -> tensor<3x24x64xf32>, tensor<3x24xf32> loc("model.layers.0.post_attention_layernorm")
  %gate = train.matmul %h2, %gate_w {transpose_rhs} : tensor<3x24x64xf32>, tensor<160x64xf32> -> tensor<3x24x160xf32> loc("model.layers.0.mlp.gate_proj")
  %up = train.matmul %h2, %up_w {transpose_rhs} : tensor<3x24x64xf32>, tensor<160x64xf32> -> tensor<3x24x160xf32> loc("model.layers.0.mlp.up_proj")
  %act = train.swiglu %gate, %up : tensor<3x24x160xf32> loc("model.layers.0.mlp.act_fn")
  %down = train.matmul %act, %down_w {transpose_rhs} : tensor<3x24x160xf32>, tensor<64x160xf32> -> tensor<3x24x64xf32> loc("model.layers.0.mlp.down_proj")
  %x2 = train.add %x1, %down : tensor<3x24x64xf32> loc("model.layers.0.residual_mlp")
  train.free %down : tensor<3x24x64xf32> loc("model.layers.0.residual_mlp")

  //===--------------------------------------------------------------------===//
  // Forward: final norm, untied LM head, loss
  //===--------------------------------------------------------------------===//
  %hf, %hf_rstd = train.rms_norm %x2, %norm_g {epsilon = 1.000000e-06 : f64}
      : tensor<3x24x64xf32>, tensor<64xf32> -> tensor<3x24x64xf32>, tensor<3x24xf32> loc("model.norm")
  %logits = train.matmul %hf, %lm_w {transpose_rhs} : tensor<3x24x64xf32>, tensor<128x64xf32> -> tensor<3x24x128xf32> loc("lm_head")
  %loss = train.cross_entropy %logits, %labels : tensor<3x24x128xf32>, tensor<3x24xi64> -> tensor<f32> loc("loss")

  //===--------------------------------------------------------------------===//
  // Backward: loss, LM head, final norm. The loss gradient is seeded with 1.
  //===--------------------------------------------------------------------===//
  %dloss = arith.constant dense<1.000000e+00> : tensor<f32> loc("loss.grad")
  %dlogits = train.cross_entropy_grad %dloss, %logits, %labels : tensor<f32>, tensor<3x24x128xf32>, tensor<3x24xi64> -> tensor<3x24x128xf32> loc("loss.grad")
  train.free %logits : tensor<3x24x128xf32> loc("loss.grad")
  // logits = hf · Wᵀ: dhf = dlogits · W, dW = dlogitsᵀ · hf over 72 rows.
  %dhf = train.matmul %dlogits, %lm_w : tensor<3x24x128xf32>, tensor<128x64xf32> -> tensor<3x24x64xf32> loc("lm_head.grad")
  %dlogits_2d = train.reshape %dlogits : tensor<3x24x128xf32> -> tensor<72x128xf32> loc("lm_head.grad")
  %hf_2d = train.reshape %hf : tensor<3x24x64xf32> -> tensor<72x64xf32> loc("lm_head.grad")
  %dlm_w = train.matmul %dlogits_2d, %hf_2d {transpose_lhs} : tensor<72x128xf32>, tensor<72x64xf32> -> tensor<128x64xf32> loc("lm_head.grad")
  train.free %dlogits : tensor<3x24x128xf32> loc("lm_head.grad")
  train.free %hf : tensor<3x24x64xf32> loc("lm_head.grad")
  %dx2, %dnorm_g = train.rms_norm_grad %dhf, %x2, %norm_g, %hf_rstd
      : tensor<3x24x64xf32>, tensor<3x24x64xf32>, tensor<64xf32>, tensor<3x24xf32> -> tensor<3x24x64xf32>, tensor<64xf32> loc("model.norm.grad")
  train.free %dhf : tensor<3x24x64xf32> loc("model.norm.grad")
  train.free %x2 : tensor<3x24x64xf32> loc("model.norm.grad")
  train.free %hf_rstd : tensor<3x24xf32> loc("model.norm.grad")

  //===--------------------------------------------------------------------===//
  // Backward: MLP. x2 = x1 + down, so d(down) = dx2 and dx2 also flows
  // straight into dx1.
  //===--------------------------------------------------------------------===//
  // down = act · Wdᵀ, Wd [64,160].
  %dact = train.matmul %dx2, %down_w : tensor<3x24x64xf32>, tensor<64x160xf32> -> tensor<3x24x160xf32> loc("model.layers.0.mlp.down_proj.grad")
  %dx2_2d = train.reshape %dx2 : tensor<3x24x64xf32> -> tensor<72x64xf32> loc("model.layers.0.mlp.down_proj.grad")
  %act_2d = train.reshape %act : tensor<3x24x160xf32> -> tensor<72x160xf32> loc("model.layers.0.mlp.down_proj.grad")
  %ddown_w = train.matmul %dx2_2d, %act_2d {transpose_lhs} : tensor<72x64xf32>, tensor<72x160xf32> -> tensor<64x160xf32> loc("model.layers.0.mlp.down_proj.grad")
  train.free %act : tensor<3x24x160xf32> loc("model.layers.0.mlp.down_proj.grad")
  // SwiGLU from its saved inputs.
  %dgate, %dup = train.swiglu_grad %dact, %gate, %up
      : tensor<3x24x160xf32>, tensor<3x24x160xf32>, tensor<3x24x160xf32> -> tensor<3x24x160xf32>, tensor<3x24x160xf32> loc("model.layers.0.mlp.act_fn.grad")
  train.free %dact : tensor<3x24x160xf32> loc("model.layers.0.mlp.act_fn.grad")
  train.free %gate : tensor<3x24x160xf32> loc("model.layers.0.mlp.act_fn.grad")
  train.free %up : tensor<3x24x160xf32> loc("model.layers.0.mlp.act_fn.grad")
  // gate = h2 · Wgᵀ and up = h2 · Wuᵀ, Wg and Wu [160,64]; h2 feeds both, so
  // its gradient is the sum.
  %h2_2d = train.reshape %h2 : tensor<3x24x64xf32> -> tensor<72x64xf32> loc("model.layers.0.mlp.gate_proj.grad")
  %dh2_gate = train.matmul %dgate, %gate_w : tensor<3x24x160xf32>, tensor<160x64xf32> -> tensor<3x24x64xf32> loc("model.layers.0.mlp.gate_proj.grad")
  %dgate_2d = train.reshape %dgate : tensor<3x24x160xf32> -> tensor<72x160xf32> loc("model.layers.0.mlp.gate_proj.grad")
  %dgate_w = train.matmul %dgate_2d, %h2_2d {transpose_lhs} : tensor<72x160xf32>, tensor<72x64xf32> -> tensor<160x64xf32> loc("model.layers.0.mlp.gate_proj.grad")
  train.free %dgate : tensor<3x24x160xf32> loc("model.layers.0.mlp.gate_proj.grad")
  %dh2_up = train.matmul %dup, %up_w : tensor<3x24x160xf32>, tensor<160x64xf32> -> tensor<3x24x64xf32> loc("model.layers.0.mlp.up_proj.grad")
  %dup_2d = train.reshape %dup : tensor<3x24x160xf32> -> tensor<72x160xf32> loc("model.layers.0.mlp.up_proj.grad")
  %dup_w = train.matmul %dup_2d, %h2_2d {transpose_lhs} : tensor<72x160xf32>, tensor<72x64xf32> -> tensor<160x64xf32> loc("model.layers.0.mlp.up_proj.grad")
  train.free %dup : tensor<3x24x160xf32> loc("model.layers.0.mlp.up_proj.grad")
  train.free %h2 : tensor<3x24x64xf32> loc("model.layers.0.mlp.up_proj.grad")
  %dh2 = train.add %dh2_gate, %dh2_up : tensor<3x24x64xf32> loc("model.layers.0.mlp.grad")
  train.free %dh2_gate : tensor<3x24x64xf32> loc("model.layers.0.mlp.grad")
  train.free %dh2_up : tensor<3x24x64xf32> loc("model.layers.0.mlp.grad")
  %dx1_norm, %dpost_norm_g = train.rms_norm_grad %dh2, %x1, %post_norm_g, %h2_rstd
      : tensor<3x24x64xf32>, tensor<3x24x64xf32>, tensor<64xf32>, tensor<3x24xf32> -> tensor<3x24x64xf32>, tensor<64xf32> loc("model.layers.0.post_attention_layernorm.grad")
  train.free %dh2 : tensor<3x24x64xf32> loc("model.layers.0.post_attention_layernorm.grad")
  train.free %x1 : tensor<3x24x64xf32> loc("model.layers.0.post_attention_layernorm.grad")
  train.free %h2_rstd : tensor<3x24xf32> loc("model.layers.0.post_attention_layernorm.grad")
  // Residual: dx1 = dx2 (skip path) + the MLP branch's gradient.
  %dx1 = train.add %dx2, %dx1_norm : tensor<3x24x64xf32> loc("model.layers.0.residual_mlp.grad")
  train.free %dx2 : tensor<3x24x64xf32> loc("model.layers.0.residual_mlp.grad")
  train.free %dx1_norm : tensor<3x24x64xf32> loc("model.layers.0.residual_mlp.grad")

  //===--------------------------------------------------------------------===//
  // Backward: attention. x1 = x0 + o, so d(o) = dx1.
  //===--------------------------------------------------------------------===//
  // o = merged · Woᵀ, Wo [64,64].
  %dmerged = train.matmul %dx1, %o_w : tensor<3x24x64xf32>, tensor<64x64xf32> -> tensor<3x24x64xf32> loc("model.layers.0.self_attn.o_proj.grad")
  %dx1_2d = train.reshape %dx1 : tensor<3x24x64xf32> -> tensor<72x64xf32> loc("model.layers.0.self_attn.o_proj.grad")
  %merged_2d = train.reshape %merged : tensor<3x24x64xf32> -> tensor<72x64xf32> loc("model.layers.0.self_attn.o_proj.grad")
  %do_w = train.matmul %dx1_2d, %merged_2d {transpose_lhs} : tensor<72x64xf32>, tensor<72x64xf32> -> tensor<64x64xf32> loc("model.layers.0.self_attn.o_proj.grad")
  // Merge heads backward: [B, S, C] -> [B, S, Hq, D] -> [B, Hq, S, D].
  %dattn_t = train.reshape %dmerged : tensor<3x24x64xf32> -> tensor<3x24x4x16xf32> loc("model.layers.0.self_attn.merge_heads.grad")
  %dattn = train.transpose %dattn_t {permutation = array<i64: 0, 2, 1, 3>} : tensor<3x24x4x16xf32> -> tensor<3x4x24x16xf32> loc("model.layers.0.self_attn.merge_heads.grad")
  // Flash-style backward from the saved (rotated) q and k, v, out and lse;
  // dk and dv are summed over each key/value head's query group.
  %dqr, %dkr, %dvh = train.attention_grad %dattn, %qr, %kr, %vh, %attn, %lse {causal, scale = 2.500000e-01 : f64}
      : tensor<3x4x24x16xf32>, tensor<3x4x24x16xf32>, tensor<3x2x24x16xf32>, tensor<3x2x24x16xf32>, tensor<3x4x24x16xf32>, tensor<3x4x24xf32>
      -> tensor<3x4x24x16xf32>, tensor<3x2x24x16xf32>, tensor<3x2x24x16xf32> loc("model.layers.0.self_attn.attention.grad")
  train.free %dmerged : tensor<3x24x64xf32> loc("model.layers.0.self_attn.attention.grad")
  train.free %qr : tensor<3x4x24x16xf32> loc("model.layers.0.self_attn.attention.grad")
  train.free %kr : tensor<3x2x24x16xf32> loc("model.layers.0.self_attn.attention.grad")
  train.free %v : tensor<3x24x32xf32> loc("model.layers.0.self_attn.attention.grad")
  train.free %attn : tensor<3x4x24x16xf32> loc("model.layers.0.self_attn.attention.grad")
  train.free %lse : tensor<3x4x24xf32> loc("model.layers.0.self_attn.attention.grad")
  // RoPE backward: the inverse rotation.
  %dqh = train.rotary_grad %dqr {theta = 1.000000e+04 : f64} : tensor<3x4x24x16xf32> loc("model.layers.0.self_attn.rotary_emb.grad")
  %dkh = train.rotary_grad %dkr {theta = 1.000000e+04 : f64} : tensor<3x2x24x16xf32> loc("model.layers.0.self_attn.rotary_emb.grad")
  train.free %dqr : tensor<3x4x24x16xf32> loc("model.layers.0.self_attn.rotary_emb.grad")
  train.free %dkr : tensor<3x2x24x16xf32> loc("model.layers.0.self_attn.rotary_emb.grad")
  // Split heads backward: [B, H, S, D] -> [B, S, H, D] -> [B, S, H*D].
  %dq4 = train.transpose %dqh {permutation = array<i64: 0, 2, 1, 3>} : tensor<3x4x24x16xf32> -> tensor<3x24x4x16xf32> loc("model.layers.0.self_attn.split_heads.grad")
  %dq = train.reshape %dq4 : tensor<3x24x4x16xf32> -> tensor<3x24x64xf32> loc("model.layers.0.self_attn.split_heads.grad")
  %dk4 = train.transpose %dkh {permutation = array<i64: 0, 2, 1, 3>} : tensor<3x2x24x16xf32> -> tensor<3x24x2x16xf32> loc("model.layers.0.self_attn.split_heads.grad")
  %dk = train.reshape %dk4 : tensor<3x24x2x16xf32> -> tensor<3x24x32xf32> loc("model.layers.0.self_attn.split_heads.grad")
  %dv4 = train.transpose %dvh {permutation = array<i64: 0, 2, 1, 3>} : tensor<3x2x24x16xf32> -> tensor<3x24x2x16xf32> loc("model.layers.0.self_attn.split_heads.grad")
  %dv = train.reshape %dv4 : tensor<3x24x2x16xf32> -> tensor<3x24x32xf32> loc("model.layers.0.self_attn.split_heads.grad")
  // q/k/v projections: h1 feeds all three, so its gradient is the sum.
  %h1_2d = train.reshape %h1 : tensor<3x24x64xf32> -> tensor<72x64xf32> loc("model.layers.0.self_attn.q_proj.grad")
  %dh1_q = train.matmul %dq, %q_w : tensor<3x24x64xf32>, tensor<64x64xf32> -> tensor<3x24x64xf32> loc("model.layers.0.self_attn.q_proj.grad")
  %dq_2d = train.reshape %dq : tensor<3x24x64xf32> -> tensor<72x64xf32> loc("model.layers.0.self_attn.q_proj.grad")
  %dq_w = train.matmul %dq_2d, %h1_2d {transpose_lhs} : tensor<72x64xf32>, tensor<72x64xf32> -> tensor<64x64xf32> loc("model.layers.0.self_attn.q_proj.grad")
  train.free %dqh : tensor<3x4x24x16xf32> loc("model.layers.0.self_attn.q_proj.grad")
  %dh1_k = train.matmul %dk, %k_w : tensor<3x24x32xf32>, tensor<32x64xf32> -> tensor<3x24x64xf32> loc("model.layers.0.self_attn.k_proj.grad")
  %dk_2d = train.reshape %dk : tensor<3x24x32xf32> -> tensor<72x32xf32> loc("model.layers.0.self_attn.k_proj.grad")
  %dk_w = train.matmul %dk_2d, %h1_2d {transpose_lhs} : tensor<72x32xf32>, tensor<72x64xf32> -> tensor<32x64xf32> loc("model.layers.0.self_attn.k_proj.grad")
  train.free %dkh : tensor<3x2x24x16xf32> loc("model.layers.0.self_attn.k_proj.grad")
  %dh1_v = train.matmul %dv, %v_w : tensor<3x24x32xf32>, tensor<32x64xf32> -> tensor<3x24x64xf32> loc("model.layers.0.self_attn.v_proj.grad")
  %dv_2d = train.reshape %dv : tensor<3x24x32xf32> -> tensor<72x32xf32> loc("model.layers.0.self_attn.v_proj.grad")
  %dv_w = train.matmul %dv_2d, %h1_2d {transpose_lhs} : tensor<72x32xf32>, tensor<72x64xf32> -> tensor<32x64xf32> loc("model.layers.0.self_attn.v_proj.grad")
  train.free %dvh : tensor<3x2x24x16xf32> loc("model.layers.0.self_attn.v_proj.grad")
  train.free %h1 : tensor<3x24x64xf32> loc("model.layers.0.self_attn.v_proj.grad")
  %dh1_qk = train.add %dh1_q, %dh1_k : tensor<3x24x64xf32> loc("model.layers.0.self_attn.grad")
  train.free %dh1_q : tensor<3x24x64xf32> loc("model.layers.0.self_attn.grad")
  train.free %dh1_k : tensor<3x24x64xf32> loc("model.layers.0.self_attn.grad")
  %dh1 = train.add %dh1_qk, %dh1_v : tensor<3x24x64xf32> loc("model.layers.0.self_attn.grad")
  train.free %dh1_qk : tensor<3x24x64xf32> loc("model.layers.0.self_attn.grad")
  train.free %dh1_v : tensor<3x24x64xf32> loc("model.layers.0.self_attn.grad")
  %dx0_norm, %din_norm_g = train.rms_norm_grad %dh1, %x0, %in_norm_g, %h1_rstd
      : tensor<3x24x64xf32>, tensor<3x24x64xf32>, tensor<64xf32>, tensor<3x24xf32> -> tensor<3x24x64xf32>, tensor<64xf32> loc("model.layers.0.input_layernorm.grad")
  train.free %dh1 : tensor<3x24x64xf32> loc("model.layers.0.input_layernorm.grad")
  train.free %x0 : tensor<3x24x64xf32> loc("model.layers.0.input_layernorm.grad")
  train.free %h1_rstd : tensor<3x24xf32> loc("model.layers.0.input_layernorm.grad")
  // Residual: dx0 = dx1 (skip path) + the attention branch's gradient.
  %dx0 = train.add %dx1, %dx0_norm : tensor<3x24x64xf32> loc("model.layers.0.residual_attn.grad")
  train.free %dx1 : tensor<3x24x64xf32> loc("model.layers.0.residual_attn.grad")
  train.free %dx0_norm : tensor<3x24x64xf32> loc("model.layers.0.residual_attn.grad")
  %dembed_w = train.embedding_grad %dx0, %ids : tensor<3x24x64xf32>, tensor<3x24xi64> -> tensor<128x64xf32> loc("model.embed_tokens.grad")
  train.free %dx0 : tensor<3x24x64xf32> loc("model.embed_tokens.grad")

  //===--------------------------------------------------------------------===//
  // Optimizer: AdamW (lr 3e-4, betas 0.9/0.95), decoupled weight decay 0.1
  // on the matrices and none on the norm gains.
  //===--------------------------------------------------------------------===//
  %embed_w_m = train.opt_state "model.embed_tokens.weight.exp_avg" : tensor<128x64xf32> loc("optimizer")
  %embed_w_v = train.opt_state "model.embed_tokens.weight.exp_avg_sq" : tensor<128x64xf32> loc("optimizer")
  train.adamw %embed_w, %dembed_w, %embed_w_m, %embed_w_v step(%step : tensor<i64>) {beta2 = 9.500000e-01 : f64, lr = 3.000000e-04 : f64, weight_decay = 1.000000e-01 : f64} : tensor<128x64xf32>, tensor<128x64xf32>, tensor<128x64xf32>, tensor<128x64xf32> loc("optimizer")
  %in_norm_g_m = train.opt_state "model.layers.0.input_layernorm.weight.exp_avg" : tensor<64xf32> loc("optimizer")
  %in_norm_g_v = train.opt_state "model.layers.0.input_layernorm.weight.exp_avg_sq" : tensor<64xf32> loc("optimizer")
  train.adamw %in_norm_g, %din_norm_g, %in_norm_g_m, %in_norm_g_v step(%step : tensor<i64>) {beta2 = 9.500000e-01 : f64, lr = 3.000000e-04 : f64} : tensor<64xf32>, tensor<64xf32>, tensor<64xf32>, tensor<64xf32> loc("optimizer")
  %q_w_m = train.opt_state "model.layers.0.self_attn.q_proj.weight.exp_avg" : tensor<64x64xf32> loc("optimizer")
  %q_w_v = train.opt_state "model.layers.0.self_attn.q_proj.weight.exp_avg_sq" : tensor<64x64xf32> loc("optimizer")
  train.adamw %q_w, %dq_w, %q_w_m, %q_w_v step(%step : tensor<i64>) {beta2 = 9.500000e-01 : f64, lr = 3.000000e-04 : f64, weight_decay = 1.000000e-01 : f64} : tensor<64x64xf32>, tensor<64x64xf32>, tensor<64x64xf32>, tensor<64x64xf32> loc("optimizer")
  %k_w_m = train.opt_state "model.layers.0.self_attn.k_proj.weight.exp_avg" : tensor<32x64xf32> loc("optimizer")
  %k_w_v = train.opt_state "model.layers.0.self_attn.k_proj.weight.exp_avg_sq" : tensor<32x64xf32> loc("optimizer")
  train.adamw %k_w, %dk_w, %k_w_m, %k_w_v step(%step : tensor<i64>) {beta2 = 9.500000e-01 : f64, lr = 3.000000e-04 : f64, weight_decay = 1.000000e-01 : f64} : tensor<32x64xf32>, tensor<32x64xf32>, tensor<32x64xf32>, tensor<32x64xf32> loc("optimizer")
  %v_w_m = train.opt_state "model.layers.0.self_attn.v_proj.weight.exp_avg" : tensor<32x64xf32> loc("optimizer")
  %v_w_v = train.opt_state "model.layers.0.self_attn.v_proj.weight.exp_avg_sq" : tensor<32x64xf32> loc("optimizer")
  train.adamw %v_w, %dv_w, %v_w_m, %v_w_v step(%step : tensor<i64>) {beta2 = 9.500000e-01 : f64, lr = 3.000000e-04 : f64, weight_decay = 1.000000e-01 : f64} : tensor<32x64xf32>, tensor<32x64xf32>, tensor<32x64xf32>, tensor<32x64xf32> loc("optimizer")
  %o_w_m = train.opt_state "model.layers.0.self_attn.o_proj.weight.exp_avg" : tensor<64x64xf32> loc("optimizer")
  %o_w_v = train.opt_state "model.layers.0.self_attn.o_proj.weight.exp_avg_sq" : tensor<64x64xf32> loc("optimizer")
  train.adamw %o_w, %do_w, %o_w_m, %o_w_v step(%step : tensor<i64>) {beta2 = 9.500000e-01 : f64, lr = 3.000000e-04 : f64, weight_decay = 1.000000e-01 : f64} : tensor<64x64xf32>, tensor<64x64xf32>, tensor<64x64xf32>, tensor<64x64xf32> loc("optimizer")
  %post_norm_g_m = train.opt_state "model.layers.0.post_attention_layernorm.weight.exp_avg" : tensor<64xf32> loc("optimizer")
  %post_norm_g_v = train.opt_state "model.layers.0.post_attention_layernorm.weight.exp_avg_sq" : tensor<64xf32> loc("optimizer")
  train.adamw %post_norm_g, %dpost_norm_g, %post_norm_g_m, %post_norm_g_v step(%step : tensor<i64>) {beta2 = 9.500000e-01 : f64, lr = 3.000000e-04 : f64} : tensor<64xf32>, tensor<64xf32>, tensor<64xf32>, tensor<64xf32> loc("optimizer")
  %gate_w_m = train.opt_state "model.layers.0.mlp.gate_proj.weight.exp_avg" : tensor<160x64xf32> loc("optimizer")
  %gate_w_v = train.opt_state "model.layers.0.mlp.gate_proj.weight.exp_avg_sq" : tensor<160x64xf32> loc("optimizer")
  train.adamw %gate_w, %dgate_w, %gate_w_m, %gate_w_v step(%step : tensor<i64>) {beta2 = 9.500000e-01 : f64, lr = 3.000000e-04 : f64, weight_decay = 1.000000e-01 : f64} : tensor<160x64xf32>, tensor<160x64xf32>, tensor<160x64xf32>, tensor<160x64xf32> loc("optimizer")
  %up_w_m = train.opt_state "model.layers.0.mlp.up_proj.weight.exp_avg" : tensor<160x64xf32> loc("optimizer")
  %up_w_v = train.opt_state "model.layers.0.mlp.up_proj.weight.exp_avg_sq" : tensor<160x64xf32> loc("optimizer")
  train.adamw %up_w, %dup_w, %up_w_m, %up_w_v step(%step : tensor<i64>) {beta2 = 9.500000e-01 : f64, lr = 3.000000e-04 : f64, weight_decay = 1.000000e-01 : f64} : tensor<160x64xf32>, tensor<160x64xf32>, tensor<160x64xf32>, tensor<160x64xf32> loc("optimizer")
  %down_w_m = train.opt_state "model.layers.0.mlp.down_proj.weight.exp_avg" : tensor<64x160xf32> loc("optimizer")
  %down_w_v = train.opt_state "model.layers.0.mlp.down_proj.weight.exp_avg_sq" : tensor<64x160xf32> loc("optimizer")
  train.adamw %down_w, %ddown_w, %down_w_m, %down_w_v step(%step : tensor<i64>) {beta2 = 9.500000e-01 : f64, lr = 3.000000e-04 : f64, weight_decay = 1.000000e-01 : f64} : tensor<64x160xf32>, tensor<64x160xf32>, tensor<64x160xf32>, tensor<64x160xf32> loc("optimizer")
  %norm_g_m = train.opt_state "model.norm.weight.exp_avg" : tensor<64xf32> loc("optimizer")
  %norm_g_v = train.opt_state "model.norm.weight.exp_avg_sq" : tensor<64xf32> loc("optimizer")
  train.adamw %norm_g, %dnorm_g, %norm_g_m, %norm_g_v step(%step : tensor<i64>) {beta2 = 9.500000e-01 : f64, lr = 3.000000e-04 : f64} : tensor<64xf32>, tensor<64xf32>, tensor<64xf32>, tensor<64xf32> loc("optimizer")
  %lm_w_m = train.opt_state "lm_head.weight.exp_avg" : tensor<128x64xf32> loc("optimizer")
  %lm_w_v = train.opt_state "lm_head.weight.exp_avg_sq" : tensor<128x64xf32> loc("optimizer")
  train.adamw %lm_w, %dlm_w, %lm_w_m, %lm_w_v step(%step : tensor<i64>) {beta2 = 9.500000e-01 : f64, lr = 3.000000e-04 : f64, weight_decay = 1.000000e-01 : f64} : tensor<128x64xf32>, tensor<128x64xf32>, tensor<128x64xf32>, tensor<128x64xf32> loc("optimizer")

  return %loss : tensor<f32> loc("return")
}
