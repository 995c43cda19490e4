// One training step of a GPT-2-style model, written out by hand: one
// transformer block, fp32, forward + loss, the complete backward and an Adam
// update of every parameter.
//
//   batch B = 2, sequence T = 24, hidden C = 64, heads H = 4, head dim D = 16,
//   vocabulary V = 128, MLP width 4C = 256, position table P = 32 rows.
//   (T != D and B*T = 48 != C, so most wrong transpose flags fail to verify;
//   the square cases -- T x T scores, the 64 x 64 c_proj weight -- are pinned
//   by test/Examples/examples.test.)
//
// Parameter names and layouts follow HuggingFace's GPT2Model state dict:
// `Conv1D` weights are input-major, `[in, out]` (y = x · W + b), and the LM
// head is tied to `wte.weight` (logits = ln_f(x) · wteᵀ), so `wte.weight`
// gets two gradient contributions that are added before its update.
// `labels` are already shifted (labels[b, t] is the token after ids[b, t]);
// `pos` are the position ids. Dropout (rate 0.1) has one `id` per site.
//
// Every op carries a `loc` naming its place in the model (".grad" for the
// backward); `train.free` marks where each non-view buffer dies (views --
// slice, reshape, transpose -- die with the buffer they alias).
//
//   mem-opt --train-verify-step examples/gpt2_step.mlir

func.func @gpt2_step(%ids: tensor<2x24xi64>, %pos: tensor<2x24xi64>,
                     %labels: tensor<2x24xi64>, %step: tensor<i64>) -> tensor<f32> {
  //===--------------------------------------------------------------------===//
  // Parameters (16 tensors)
  //===--------------------------------------------------------------------===//
  %wte = train.param "wte.weight" : tensor<128x64xf32> loc("wte")
  %wpe = train.param "wpe.weight" : tensor<32x64xf32> loc("wpe")
  %ln1_g = train.param "h.0.ln_1.weight" : tensor<64xf32> loc("h.0.ln_1")
  %ln1_b = train.param "h.0.ln_1.bias" : tensor<64xf32> loc("h.0.ln_1")
  %attn_w = train.param "h.0.attn.c_attn.weight" : tensor<64x192xf32> loc("h.0.attn.c_attn")
  %attn_b = train.param "h.0.attn.c_attn.bias" : tensor<192xf32> loc("h.0.attn.c_attn")
  %aproj_w = train.param "h.0.attn.c_proj.weight" : tensor<64x64xf32> loc("h.0.attn.c_proj")
  %aproj_b = train.param "h.0.attn.c_proj.bias" : tensor<64xf32> loc("h.0.attn.c_proj")
  %ln2_g = train.param "h.0.ln_2.weight" : tensor<64xf32> loc("h.0.ln_2")
  %ln2_b = train.param "h.0.ln_2.bias" : tensor<64xf32> loc("h.0.ln_2")
  %fc_w = train.param "h.0.mlp.c_fc.weight" : tensor<64x256xf32> loc("h.0.mlp.c_fc")
  %fc_b = train.param "h.0.mlp.c_fc.bias" : tensor<256xf32> loc("h.0.mlp.c_fc")
  %mproj_w = train.param "h.0.mlp.c_proj.weight" : tensor<256x64xf32> loc("h.0.mlp.c_proj")
  %mproj_b = train.param "h.0.mlp.c_proj.bias" : tensor<64xf32> loc("h.0.mlp.c_proj")
  %lnf_g = train.param "ln_f.weight" : tensor<64xf32> loc("ln_f")
  %lnf_b = train.param "ln_f.bias" : tensor<64xf32> loc("ln_f")

  //===--------------------------------------------------------------------===//
  // Forward: embeddings
  //===--------------------------------------------------------------------===//
  %tok = train.embedding %wte, %ids : tensor<128x64xf32>, tensor<2x24xi64> -> tensor<2x24x64xf32> loc("wte")
  %posemb = train.embedding %wpe, %pos : tensor<32x64xf32>, tensor<2x24xi64> -> tensor<2x24x64xf32> loc("wpe")
  %emb = train.add %tok, %posemb : tensor<2x24x64xf32> loc("embed")
  train.free %tok : tensor<2x24x64xf32> loc("embed")
  train.free %posemb : tensor<2x24x64xf32> loc("embed")
  %x0, %x0_mask = train.dropout %emb {id = 0 : i64, rate = 1.000000e-01 : f64} : tensor<2x24x64xf32> -> tensor<2x24x64xf32>, tensor<2x24x64xi8> loc("drop")
  train.free %emb : tensor<2x24x64xf32> loc("drop")

  //===--------------------------------------------------------------------===//
  // Forward: h.0 attention, x1 = x0 + dropout(c_proj(attn(ln_1(x0))))
  //===--------------------------------------------------------------------===//
  %ln1, %ln1_mean, %ln1_rstd = train.layer_norm %x0, %ln1_g, %ln1_b {epsilon = 1.000000e-05 : f64}
      : tensor<2x24x64xf32>, tensor<64xf32>, tensor<64xf32> -> tensor<2x24x64xf32>, tensor<2x24xf32>, tensor<2x24xf32> loc("h.0.ln_1")
  // Fused QKV projection: [2,24,64] · [64,192] + b.
  %qkv_mm = train.matmul %ln1, %attn_w : tensor<2x24x64xf32>, tensor<64x192xf32> -> tensor<2x24x192xf32> loc("h.0.attn.c_attn")
  %qkv = train.bias_add %qkv_mm, %attn_b : tensor<2x24x192xf32>, tensor<192xf32> -> tensor<2x24x192xf32> loc("h.0.attn.c_attn")
  train.free %qkv_mm : tensor<2x24x192xf32> loc("h.0.attn.c_attn")
  // Split the last dimension into Q, K, V (views of %qkv) ...
  %q = train.slice %qkv {offsets = array<i64: 0, 0, 0>} : tensor<2x24x192xf32> -> tensor<2x24x64xf32> loc("h.0.attn.split_qkv")
  %k = train.slice %qkv {offsets = array<i64: 0, 0, 64>} : tensor<2x24x192xf32> -> tensor<2x24x64xf32> loc("h.0.attn.split_qkv")
  %v = train.slice %qkv {offsets = array<i64: 0, 0, 128>} : tensor<2x24x192xf32> -> tensor<2x24x64xf32> loc("h.0.attn.split_qkv")
  // ... and each into heads: [B, T, C] -> [B, T, H, D] -> [B, H, T, D].
  %q4 = train.reshape %q : tensor<2x24x64xf32> -> tensor<2x24x4x16xf32> loc("h.0.attn.split_heads")
  %qh = train.transpose %q4 {permutation = array<i64: 0, 2, 1, 3>} : tensor<2x24x4x16xf32> -> tensor<2x4x24x16xf32> loc("h.0.attn.split_heads")
  %k4 = train.reshape %k : tensor<2x24x64xf32> -> tensor<2x24x4x16xf32> loc("h.0.attn.split_heads")
  %kh = train.transpose %k4 {permutation = array<i64: 0, 2, 1, 3>} : tensor<2x24x4x16xf32> -> tensor<2x4x24x16xf32> loc("h.0.attn.split_heads")
  %v4 = train.reshape %v : tensor<2x24x64xf32> -> tensor<2x24x4x16xf32> loc("h.0.attn.split_heads")
  %vh = train.transpose %v4 {permutation = array<i64: 0, 2, 1, 3>} : tensor<2x24x4x16xf32> -> tensor<2x4x24x16xf32> loc("h.0.attn.split_heads")
  // scores = Q · Kᵀ per (batch, head): [24,16] · [16,24] -> [24,24].
  %scores = train.matmul %qh, %kh {transpose_rhs} : tensor<2x4x24x16xf32>, tensor<2x4x24x16xf32> -> tensor<2x4x24x24xf32> loc("h.0.attn.scores")
  // probs = causal softmax(scores / sqrt(16)); it saves its output.
  %probs = train.softmax %scores {causal, scale = 2.500000e-01 : f64} : tensor<2x4x24x24xf32> loc("h.0.attn.softmax")
  train.free %scores : tensor<2x4x24x24xf32> loc("h.0.attn.softmax")
  %probs_d, %probs_mask = train.dropout %probs {id = 1 : i64, rate = 1.000000e-01 : f64} : tensor<2x4x24x24xf32> -> tensor<2x4x24x24xf32>, tensor<2x4x24x24xi8> loc("h.0.attn.attn_dropout")
  // context = probs · V: [24,24] · [24,16] -> [24,16].
  %ctx = train.matmul %probs_d, %vh : tensor<2x4x24x24xf32>, tensor<2x4x24x16xf32> -> tensor<2x4x24x16xf32> loc("h.0.attn.context")
  // Merge heads: [B, H, T, D] -> [B, T, H, D] -> [B, T, C].
  %ctx_t = train.transpose %ctx {permutation = array<i64: 0, 2, 1, 3>} : tensor<2x4x24x16xf32> -> tensor<2x24x4x16xf32> loc("h.0.attn.merge_heads")
  %merged = train.reshape %ctx_t : tensor<2x24x4x16xf32> -> tensor<2x24x64xf32> loc("h.0.attn.merge_heads")
  // The transposed heads are not contiguous, so the reshape copies: %merged
  // is a buffer of its own (saved for c_proj's backward) and %ctx dies here.
  train.free %ctx : tensor<2x4x24x16xf32> loc("h.0.attn.merge_heads")
  %aproj_mm = train.matmul %merged, %aproj_w : tensor<2x24x64xf32>, tensor<64x64xf32> -> tensor<2x24x64xf32> loc("h.0.attn.c_proj")
  %aproj = train.bias_add %aproj_mm, %aproj_b : tensor<2x24x64xf32>, tensor<64xf32> -> tensor<2x24x64xf32> loc("h.0.attn.c_proj")
  train.free %aproj_mm : tensor<2x24x64xf32> loc("h.0.attn.c_proj")
  %attn_out, %attn_mask = train.dropout %aproj {id = 2 : i64, rate = 1.000000e-01 : f64} : tensor<2x24x64xf32> -> tensor<2x24x64xf32>, tensor<2x24x64xi8> loc("h.0.attn.resid_dropout")
  train.free %aproj : tensor<2x24x64xf32> loc("h.0.attn.resid_dropout")
  %x1 = train.add %x0, %attn_out : tensor<2x24x64xf32> loc("h.0.attn.residual")
  train.free %attn_out : tensor<2x24x64xf32> loc("h.0.attn.residual")

  //===--------------------------------------------------------------------===//
  // Forward: h.0 MLP, x2 = x1 + dropout(c_proj(gelu(c_fc(ln_2(x1)))))
  //===--------------------------------------------------------------------===//
  %ln2, %ln2_mean, %ln2_rstd = train.layer_norm %x1, %ln2_g, %ln2_b {epsilon = 1.000000e-05 : f64}
      : tensor<2x24x64xf32>, tensor<64xf32>, tensor<64xf32> -> tensor<2x24x64xf32>, tensor<2x24xf32>, tensor<2x24xf32> loc("h.0.ln_2")
  %fc_mm = train.matmul %ln2, %fc_w : tensor<2x24x64xf32>, tensor<64x256xf32> -> tensor<2x24x256xf32> loc("h.0.mlp.c_fc")
  %fc = train.bias_add %fc_mm, %fc_b : tensor<2x24x256xf32>, tensor<256xf32> -> tensor<2x24x256xf32> loc("h.0.mlp.c_fc")
  train.free %fc_mm : tensor<2x24x256xf32> loc("h.0.mlp.c_fc")
  // GPT-2's gelu_new (tanh approximation); it saves its input %fc.
  %act = train.gelu %fc {approximate} : tensor<2x24x256xf32> loc("h.0.mlp.act")
  %mproj_mm = train.matmul %act, %mproj_w : tensor<2x24x256xf32>, tensor<256x64xf32> -> tensor<2x24x64xf32> loc("h.0.mlp.c_proj")
  %mproj = train.bias_add %mproj_mm, %mproj_b : tensor<2x24x64xf32>, tensor<64xf32> -> tensor<2x24x64xf32> loc("h.0.mlp.c_proj")
  train.free %mproj_mm : tensor<2x24x64xf32> loc("h.0.mlp.c_proj")
  %mlp_out, %mlp_mask = train.dropout %mproj {id = 3 : i64, rate = 1.000000e-01 : f64} : tensor<2x24x64xf32> -> tensor<2x24x64xf32>, tensor<2x24x64xi8> loc("h.0.mlp.dropout")
  train.free %mproj : tensor<2x24x64xf32> loc("h.0.mlp.dropout")
  %x2 = train.add %x1, %mlp_out : tensor<2x24x64xf32> loc("h.0.mlp.residual")
  train.free %mlp_out : tensor<2x24x64xf32> loc("h.0.mlp.residual")

  //===--------------------------------------------------------------------===//
  // Forward: final norm, tied LM head, loss
  //===--------------------------------------------------------------------===//
  %lnf, %lnf_mean, %lnf_rstd = train.layer_norm %x2, %lnf_g, %lnf_b {epsilon = 1.000000e-05 : f64}
      : tensor<2x24x64xf32>, tensor<64xf32>, tensor<64xf32> -> tensor<2x24x64xf32>, tensor<2x24xf32>, tensor<2x24xf32> loc("ln_f")
  // logits = ln_f · wteᵀ: [2,24,64] · [64,128] -> [2,24,128].
  %logits = train.matmul %lnf, %wte {transpose_rhs} : tensor<2x24x64xf32>, tensor<128x64xf32> -> tensor<2x24x128xf32> loc("lm_head")
  %loss = train.cross_entropy %logits, %labels : tensor<2x24x128xf32>, tensor<2x24xi64> -> tensor<f32> loc("loss")

  //===--------------------------------------------------------------------===//
  // Backward: loss and LM head. The loss gradient is seeded with 1.
  //===--------------------------------------------------------------------===//
  %dloss = arith.constant dense<1.000000e+00> : tensor<f32> loc("loss.grad")
  %dlogits = train.cross_entropy_grad %dloss, %logits, %labels : tensor<f32>, tensor<2x24x128xf32>, tensor<2x24xi64> -> tensor<2x24x128xf32> loc("loss.grad")
  train.free %logits : tensor<2x24x128xf32> loc("loss.grad")
  // dlnf = dlogits · wte: [2,24,128] · [128,64] -> [2,24,64].
  %dlnf = train.matmul %dlogits, %wte : tensor<2x24x128xf32>, tensor<128x64xf32> -> tensor<2x24x64xf32> loc("lm_head.grad")
  // The head's share of dwte = dlogitsᵀ · lnf over all 48 positions:
  // [128,48] · [48,64] -> [128,64].
  %dlogits_2d = train.reshape %dlogits : tensor<2x24x128xf32> -> tensor<48x128xf32> loc("lm_head.grad")
  %lnf_2d = train.reshape %lnf : tensor<2x24x64xf32> -> tensor<48x64xf32> loc("lm_head.grad")
  %dwte_head = train.matmul %dlogits_2d, %lnf_2d {transpose_lhs} : tensor<48x128xf32>, tensor<48x64xf32> -> tensor<128x64xf32> loc("lm_head.grad")
  train.free %dlogits : tensor<2x24x128xf32> loc("lm_head.grad")
  train.free %lnf : tensor<2x24x64xf32> loc("lm_head.grad")
  %dx2, %dlnf_g, %dlnf_b = train.layer_norm_grad %dlnf, %x2, %lnf_g, %lnf_mean, %lnf_rstd
      : tensor<2x24x64xf32>, tensor<2x24x64xf32>, tensor<64xf32>, tensor<2x24xf32>, tensor<2x24xf32>
      -> tensor<2x24x64xf32>, tensor<64xf32>, tensor<64xf32> loc("ln_f.grad")
  train.free %dlnf : tensor<2x24x64xf32> loc("ln_f.grad")
  train.free %x2 : tensor<2x24x64xf32> loc("ln_f.grad")
  train.free %lnf_mean : tensor<2x24xf32> loc("ln_f.grad")
  train.free %lnf_rstd : tensor<2x24xf32> loc("ln_f.grad")

  //===--------------------------------------------------------------------===//
  // Backward: h.0 MLP. x2 = x1 + mlp_out, so d(mlp_out) = dx2 and dx2 also
  // flows straight into dx1.
  //===--------------------------------------------------------------------===//
  %dmproj = train.dropout_grad %dx2, %mlp_mask {rate = 1.000000e-01 : f64} : tensor<2x24x64xf32>, tensor<2x24x64xi8> -> tensor<2x24x64xf32> loc("h.0.mlp.dropout.grad")
  train.free %mlp_mask : tensor<2x24x64xi8> loc("h.0.mlp.dropout.grad")
  // c_proj: mproj = act · Wp + bp, Wp [256,64].
  %dmproj_b = train.reduce_sum %dmproj {dims = array<i64: 0, 1>} : tensor<2x24x64xf32> -> tensor<64xf32> loc("h.0.mlp.c_proj.grad")
  %dact = train.matmul %dmproj, %mproj_w {transpose_rhs} : tensor<2x24x64xf32>, tensor<256x64xf32> -> tensor<2x24x256xf32> loc("h.0.mlp.c_proj.grad")
  %act_2d = train.reshape %act : tensor<2x24x256xf32> -> tensor<48x256xf32> loc("h.0.mlp.c_proj.grad")
  %dmproj_2d = train.reshape %dmproj : tensor<2x24x64xf32> -> tensor<48x64xf32> loc("h.0.mlp.c_proj.grad")
  %dmproj_w = train.matmul %act_2d, %dmproj_2d {transpose_lhs} : tensor<48x256xf32>, tensor<48x64xf32> -> tensor<256x64xf32> loc("h.0.mlp.c_proj.grad")
  train.free %dmproj : tensor<2x24x64xf32> loc("h.0.mlp.c_proj.grad")
  train.free %act : tensor<2x24x256xf32> loc("h.0.mlp.c_proj.grad")
  // gelu from its saved input.
  %dfc = train.gelu_grad %dact, %fc {approximate} : tensor<2x24x256xf32> loc("h.0.mlp.act.grad")
  train.free %dact : tensor<2x24x256xf32> loc("h.0.mlp.act.grad")
  train.free %fc : tensor<2x24x256xf32> loc("h.0.mlp.act.grad")
  // c_fc: fc = ln2 · Wfc + bfc, Wfc [64,256].
  %dfc_b = train.reduce_sum %dfc {dims = array<i64: 0, 1>} : tensor<2x24x256xf32> -> tensor<256xf32> loc("h.0.mlp.c_fc.grad")
  %dln2 = train.matmul %dfc, %fc_w {transpose_rhs} : tensor<2x24x256xf32>, tensor<64x256xf32> -> tensor<2x24x64xf32> loc("h.0.mlp.c_fc.grad")
  %ln2_2d = train.reshape %ln2 : tensor<2x24x64xf32> -> tensor<48x64xf32> loc("h.0.mlp.c_fc.grad")
  %dfc_2d = train.reshape %dfc : tensor<2x24x256xf32> -> tensor<48x256xf32> loc("h.0.mlp.c_fc.grad")
  %dfc_w = train.matmul %ln2_2d, %dfc_2d {transpose_lhs} : tensor<48x64xf32>, tensor<48x256xf32> -> tensor<64x256xf32> loc("h.0.mlp.c_fc.grad")
  train.free %dfc : tensor<2x24x256xf32> loc("h.0.mlp.c_fc.grad")
  train.free %ln2 : tensor<2x24x64xf32> loc("h.0.mlp.c_fc.grad")
  %dx1_ln, %dln2_g, %dln2_b = train.layer_norm_grad %dln2, %x1, %ln2_g, %ln2_mean, %ln2_rstd
      : tensor<2x24x64xf32>, tensor<2x24x64xf32>, tensor<64xf32>, tensor<2x24xf32>, tensor<2x24xf32>
      -> tensor<2x24x64xf32>, tensor<64xf32>, tensor<64xf32> loc("h.0.ln_2.grad")
  train.free %dln2 : tensor<2x24x64xf32> loc("h.0.ln_2.grad")
  train.free %x1 : tensor<2x24x64xf32> loc("h.0.ln_2.grad")
  train.free %ln2_mean : tensor<2x24xf32> loc("h.0.ln_2.grad")
  train.free %ln2_rstd : tensor<2x24xf32> loc("h.0.ln_2.grad")
  // Residual: dx1 = dx2 (skip path) + the MLP branch's gradient.
  %dx1 = train.add %dx2, %dx1_ln : tensor<2x24x64xf32> loc("h.0.mlp.residual.grad")
  train.free %dx2 : tensor<2x24x64xf32> loc("h.0.mlp.residual.grad")
  train.free %dx1_ln : tensor<2x24x64xf32> loc("h.0.mlp.residual.grad")

  //===--------------------------------------------------------------------===//
  // Backward: h.0 attention. x1 = x0 + attn_out.
  //===--------------------------------------------------------------------===//
  %daproj = train.dropout_grad %dx1, %attn_mask {rate = 1.000000e-01 : f64} : tensor<2x24x64xf32>, tensor<2x24x64xi8> -> tensor<2x24x64xf32> loc("h.0.attn.resid_dropout.grad")
  train.free %attn_mask : tensor<2x24x64xi8> loc("h.0.attn.resid_dropout.grad")
  // c_proj: aproj = merged · Wo + bo, Wo [64,64].
  %daproj_b = train.reduce_sum %daproj {dims = array<i64: 0, 1>} : tensor<2x24x64xf32> -> tensor<64xf32> loc("h.0.attn.c_proj.grad")
  %dmerged = train.matmul %daproj, %aproj_w {transpose_rhs} : tensor<2x24x64xf32>, tensor<64x64xf32> -> tensor<2x24x64xf32> loc("h.0.attn.c_proj.grad")
  %merged_2d = train.reshape %merged : tensor<2x24x64xf32> -> tensor<48x64xf32> loc("h.0.attn.c_proj.grad")
  %daproj_2d = train.reshape %daproj : tensor<2x24x64xf32> -> tensor<48x64xf32> loc("h.0.attn.c_proj.grad")
  %daproj_w = train.matmul %merged_2d, %daproj_2d {transpose_lhs} : tensor<48x64xf32>, tensor<48x64xf32> -> tensor<64x64xf32> loc("h.0.attn.c_proj.grad")
  train.free %daproj : tensor<2x24x64xf32> loc("h.0.attn.c_proj.grad")
  train.free %merged : tensor<2x24x64xf32> loc("h.0.attn.c_proj.grad")
  // Merge heads backward: [B, T, C] -> [B, T, H, D] -> [B, H, T, D].
  %dctx_t = train.reshape %dmerged : tensor<2x24x64xf32> -> tensor<2x24x4x16xf32> loc("h.0.attn.merge_heads.grad")
  %dctx = train.transpose %dctx_t {permutation = array<i64: 0, 2, 1, 3>} : tensor<2x24x4x16xf32> -> tensor<2x4x24x16xf32> loc("h.0.attn.merge_heads.grad")
  // context = probs_d · V:
  //   dprobs_d = dctx · Vᵀ      [24,16] · [16,24] -> [24,24]
  //   dV       = probs_dᵀ · dctx [24,24] · [24,16] -> [24,16]
  %dprobs_d = train.matmul %dctx, %vh {transpose_rhs} : tensor<2x4x24x16xf32>, tensor<2x4x24x16xf32> -> tensor<2x4x24x24xf32> loc("h.0.attn.context.grad")
  %dvh = train.matmul %probs_d, %dctx {transpose_lhs} : tensor<2x4x24x24xf32>, tensor<2x4x24x16xf32> -> tensor<2x4x24x16xf32> loc("h.0.attn.context.grad")
  train.free %dmerged : tensor<2x24x64xf32> loc("h.0.attn.context.grad")
  train.free %probs_d : tensor<2x4x24x24xf32> loc("h.0.attn.context.grad")
  %dprobs = train.dropout_grad %dprobs_d, %probs_mask {rate = 1.000000e-01 : f64} : tensor<2x4x24x24xf32>, tensor<2x4x24x24xi8> -> tensor<2x4x24x24xf32> loc("h.0.attn.attn_dropout.grad")
  train.free %dprobs_d : tensor<2x4x24x24xf32> loc("h.0.attn.attn_dropout.grad")
  train.free %probs_mask : tensor<2x4x24x24xi8> loc("h.0.attn.attn_dropout.grad")
  // softmax from its saved output, with the forward's scale (masked
  // positions have probability 0 and get no gradient).
  %dscores = train.softmax_grad %dprobs, %probs {scale = 2.500000e-01 : f64} : tensor<2x4x24x24xf32> loc("h.0.attn.softmax.grad")
  train.free %dprobs : tensor<2x4x24x24xf32> loc("h.0.attn.softmax.grad")
  train.free %probs : tensor<2x4x24x24xf32> loc("h.0.attn.softmax.grad")
  // scores = Q · Kᵀ:
  //   dQ = dscores · K          [24,24] · [24,16] -> [24,16]
  //   dK = dscoresᵀ · Q         [24,24] · [24,16] -> [24,16]
  %dqh = train.matmul %dscores, %kh : tensor<2x4x24x24xf32>, tensor<2x4x24x16xf32> -> tensor<2x4x24x16xf32> loc("h.0.attn.scores.grad")
  %dkh = train.matmul %dscores, %qh {transpose_lhs} : tensor<2x4x24x24xf32>, tensor<2x4x24x16xf32> -> tensor<2x4x24x16xf32> loc("h.0.attn.scores.grad")
  train.free %dscores : tensor<2x4x24x24xf32> loc("h.0.attn.scores.grad")
  // %qh, %kh and %vh are views of %qkv.
  train.free %qkv : tensor<2x24x192xf32> loc("h.0.attn.scores.grad")
  // Split heads backward: [B, H, T, D] -> [B, T, H, D] -> [B, T, C].
  %dq4 = train.transpose %dqh {permutation = array<i64: 0, 2, 1, 3>} : tensor<2x4x24x16xf32> -> tensor<2x24x4x16xf32> loc("h.0.attn.split_heads.grad")
  %dq = train.reshape %dq4 : tensor<2x24x4x16xf32> -> tensor<2x24x64xf32> loc("h.0.attn.split_heads.grad")
  %dk4 = train.transpose %dkh {permutation = array<i64: 0, 2, 1, 3>} : tensor<2x4x24x16xf32> -> tensor<2x24x4x16xf32> loc("h.0.attn.split_heads.grad")
  %dk = train.reshape %dk4 : tensor<2x24x4x16xf32> -> tensor<2x24x64xf32> loc("h.0.attn.split_heads.grad")
  %dv4 = train.transpose %dvh {permutation = array<i64: 0, 2, 1, 3>} : tensor<2x4x24x16xf32> -> tensor<2x24x4x16xf32> loc("h.0.attn.split_heads.grad")
  %dv = train.reshape %dv4 : tensor<2x24x4x16xf32> -> tensor<2x24x64xf32> loc("h.0.attn.split_heads.grad")
  // Split QKV backward: place each gradient at its slice and sum.
  %dqkv_q = train.slice_grad %dq {offsets = array<i64: 0, 0, 0>} : tensor<2x24x64xf32> -> tensor<2x24x192xf32> loc("h.0.attn.split_qkv.grad")
  %dqkv_k = train.slice_grad %dk {offsets = array<i64: 0, 0, 64>} : tensor<2x24x64xf32> -> tensor<2x24x192xf32> loc("h.0.attn.split_qkv.grad")
  %dqkv_qk = train.add %dqkv_q, %dqkv_k : tensor<2x24x192xf32> loc("h.0.attn.split_qkv.grad")
  train.free %dqkv_q : tensor<2x24x192xf32> loc("h.0.attn.split_qkv.grad")
  train.free %dqkv_k : tensor<2x24x192xf32> loc("h.0.attn.split_qkv.grad")
  %dqkv_v = train.slice_grad %dv {offsets = array<i64: 0, 0, 128>} : tensor<2x24x64xf32> -> tensor<2x24x192xf32> loc("h.0.attn.split_qkv.grad")
  %dqkv = train.add %dqkv_qk, %dqkv_v : tensor<2x24x192xf32> loc("h.0.attn.split_qkv.grad")
  train.free %dqkv_qk : tensor<2x24x192xf32> loc("h.0.attn.split_qkv.grad")
  train.free %dqkv_v : tensor<2x24x192xf32> loc("h.0.attn.split_qkv.grad")
  train.free %dqh : tensor<2x4x24x16xf32> loc("h.0.attn.split_qkv.grad")
  train.free %dkh : tensor<2x4x24x16xf32> loc("h.0.attn.split_qkv.grad")
  train.free %dvh : tensor<2x4x24x16xf32> loc("h.0.attn.split_qkv.grad")
  // c_attn: qkv = ln1 · Wqkv + bqkv, Wqkv [64,192].
  %dattn_b = train.reduce_sum %dqkv {dims = array<i64: 0, 1>} : tensor<2x24x192xf32> -> tensor<192xf32> loc("h.0.attn.c_attn.grad")
  %dln1 = train.matmul %dqkv, %attn_w {transpose_rhs} : tensor<2x24x192xf32>, tensor<64x192xf32> -> tensor<2x24x64xf32> loc("h.0.attn.c_attn.grad")
  %ln1_2d = train.reshape %ln1 : tensor<2x24x64xf32> -> tensor<48x64xf32> loc("h.0.attn.c_attn.grad")
  %dqkv_2d = train.reshape %dqkv : tensor<2x24x192xf32> -> tensor<48x192xf32> loc("h.0.attn.c_attn.grad")
  %dattn_w = train.matmul %ln1_2d, %dqkv_2d {transpose_lhs} : tensor<48x64xf32>, tensor<48x192xf32> -> tensor<64x192xf32> loc("h.0.attn.c_attn.grad")
  train.free %dqkv : tensor<2x24x192xf32> loc("h.0.attn.c_attn.grad")
  train.free %ln1 : tensor<2x24x64xf32> loc("h.0.attn.c_attn.grad")
  %dx0_ln, %dln1_g, %dln1_b = train.layer_norm_grad %dln1, %x0, %ln1_g, %ln1_mean, %ln1_rstd
      : tensor<2x24x64xf32>, tensor<2x24x64xf32>, tensor<64xf32>, tensor<2x24xf32>, tensor<2x24xf32>
      -> tensor<2x24x64xf32>, tensor<64xf32>, tensor<64xf32> loc("h.0.ln_1.grad")
  train.free %dln1 : tensor<2x24x64xf32> loc("h.0.ln_1.grad")
  train.free %x0 : tensor<2x24x64xf32> loc("h.0.ln_1.grad")
  train.free %ln1_mean : tensor<2x24xf32> loc("h.0.ln_1.grad")
  train.free %ln1_rstd : tensor<2x24xf32> loc("h.0.ln_1.grad")
  // Residual: dx0 = dx1 (skip path) + the attention branch's gradient.
  %dx0 = train.add %dx1, %dx0_ln : tensor<2x24x64xf32> loc("h.0.attn.residual.grad")
  train.free %dx1 : tensor<2x24x64xf32> loc("h.0.attn.residual.grad")
  train.free %dx0_ln : tensor<2x24x64xf32> loc("h.0.attn.residual.grad")

  //===--------------------------------------------------------------------===//
  // Backward: embeddings. emb = tok + posemb, so both get demb.
  //===--------------------------------------------------------------------===//
  %demb = train.dropout_grad %dx0, %x0_mask {rate = 1.000000e-01 : f64} : tensor<2x24x64xf32>, tensor<2x24x64xi8> -> tensor<2x24x64xf32> loc("drop.grad")
  train.free %dx0 : tensor<2x24x64xf32> loc("drop.grad")
  train.free %x0_mask : tensor<2x24x64xi8> loc("drop.grad")
  %dwte_emb = train.embedding_grad %demb, %ids : tensor<2x24x64xf32>, tensor<2x24xi64> -> tensor<128x64xf32> loc("wte.grad")
  %dwpe = train.embedding_grad %demb, %pos : tensor<2x24x64xf32>, tensor<2x24xi64> -> tensor<32x64xf32> loc("wpe.grad")
  train.free %demb : tensor<2x24x64xf32> loc("wpe.grad")
  // Tied embedding: the input lookup's and the LM head's contributions.
  %dwte = train.add %dwte_head, %dwte_emb : tensor<128x64xf32> loc("wte.grad")
  train.free %dwte_head : tensor<128x64xf32> loc("wte.grad")
  train.free %dwte_emb : tensor<128x64xf32> loc("wte.grad")

  //===--------------------------------------------------------------------===//
  // Optimizer: Adam (lr 6e-4, PyTorch's other defaults), one update per
  // parameter, moments named "<param>.exp_avg" / "<param>.exp_avg_sq".
  //===--------------------------------------------------------------------===//
  %wte_m = train.opt_state "wte.weight.exp_avg" : tensor<128x64xf32> loc("optimizer")
  %wte_v = train.opt_state "wte.weight.exp_avg_sq" : tensor<128x64xf32> loc("optimizer")
  train.adam %wte, %dwte, %wte_m, %wte_v step(%step : tensor<i64>) {lr = 6.000000e-04 : f64} : tensor<128x64xf32>, tensor<128x64xf32>, tensor<128x64xf32>, tensor<128x64xf32> loc("optimizer")
  %wpe_m = train.opt_state "wpe.weight.exp_avg" : tensor<32x64xf32> loc("optimizer")
  %wpe_v = train.opt_state "wpe.weight.exp_avg_sq" : tensor<32x64xf32> loc("optimizer")
  train.adam %wpe, %dwpe, %wpe_m, %wpe_v step(%step : tensor<i64>) {lr = 6.000000e-04 : f64} : tensor<32x64xf32>, tensor<32x64xf32>, tensor<32x64xf32>, tensor<32x64xf32> loc("optimizer")
  %ln1_g_m = train.opt_state "h.0.ln_1.weight.exp_avg" : tensor<64xf32> loc("optimizer")
  %ln1_g_v = train.opt_state "h.0.ln_1.weight.exp_avg_sq" : tensor<64xf32> loc("optimizer")
  train.adam %ln1_g, %dln1_g, %ln1_g_m, %ln1_g_v step(%step : tensor<i64>) {lr = 6.000000e-04 : f64} : tensor<64xf32>, tensor<64xf32>, tensor<64xf32>, tensor<64xf32> loc("optimizer")
  %ln1_b_m = train.opt_state "h.0.ln_1.bias.exp_avg" : tensor<64xf32> loc("optimizer")
  %ln1_b_v = train.opt_state "h.0.ln_1.bias.exp_avg_sq" : tensor<64xf32> loc("optimizer")
  train.adam %ln1_b, %dln1_b, %ln1_b_m, %ln1_b_v step(%step : tensor<i64>) {lr = 6.000000e-04 : f64} : tensor<64xf32>, tensor<64xf32>, tensor<64xf32>, tensor<64xf32> loc("optimizer")
  %attn_w_m = train.opt_state "h.0.attn.c_attn.weight.exp_avg" : tensor<64x192xf32> loc("optimizer")
  %attn_w_v = train.opt_state "h.0.attn.c_attn.weight.exp_avg_sq" : tensor<64x192xf32> loc("optimizer")
  train.adam %attn_w, %dattn_w, %attn_w_m, %attn_w_v step(%step : tensor<i64>) {lr = 6.000000e-04 : f64} : tensor<64x192xf32>, tensor<64x192xf32>, tensor<64x192xf32>, tensor<64x192xf32> loc("optimizer")
  %attn_b_m = train.opt_state "h.0.attn.c_attn.bias.exp_avg" : tensor<192xf32> loc("optimizer")
  %attn_b_v = train.opt_state "h.0.attn.c_attn.bias.exp_avg_sq" : tensor<192xf32> loc("optimizer")
  train.adam %attn_b, %dattn_b, %attn_b_m, %attn_b_v step(%step : tensor<i64>) {lr = 6.000000e-04 : f64} : tensor<192xf32>, tensor<192xf32>, tensor<192xf32>, tensor<192xf32> loc("optimizer")
  %aproj_w_m = train.opt_state "h.0.attn.c_proj.weight.exp_avg" : tensor<64x64xf32> loc("optimizer")
  %aproj_w_v = train.opt_state "h.0.attn.c_proj.weight.exp_avg_sq" : tensor<64x64xf32> loc("optimizer")
  train.adam %aproj_w, %daproj_w, %aproj_w_m, %aproj_w_v step(%step : tensor<i64>) {lr = 6.000000e-04 : f64} : tensor<64x64xf32>, tensor<64x64xf32>, tensor<64x64xf32>, tensor<64x64xf32> loc("optimizer")
  %aproj_b_m = train.opt_state "h.0.attn.c_proj.bias.exp_avg" : tensor<64xf32> loc("optimizer")
  %aproj_b_v = train.opt_state "h.0.attn.c_proj.bias.exp_avg_sq" : tensor<64xf32> loc("optimizer")
  train.adam %aproj_b, %daproj_b, %aproj_b_m, %aproj_b_v step(%step : tensor<i64>) {lr = 6.000000e-04 : f64} : tensor<64xf32>, tensor<64xf32>, tensor<64xf32>, tensor<64xf32> loc("optimizer")
  %ln2_g_m = train.opt_state "h.0.ln_2.weight.exp_avg" : tensor<64xf32> loc("optimizer")
  %ln2_g_v = train.opt_state "h.0.ln_2.weight.exp_avg_sq" : tensor<64xf32> loc("optimizer")
  train.adam %ln2_g, %dln2_g, %ln2_g_m, %ln2_g_v step(%step : tensor<i64>) {lr = 6.000000e-04 : f64} : tensor<64xf32>, tensor<64xf32>, tensor<64xf32>, tensor<64xf32> loc("optimizer")
  %ln2_b_m = train.opt_state "h.0.ln_2.bias.exp_avg" : tensor<64xf32> loc("optimizer")
  %ln2_b_v = train.opt_state "h.0.ln_2.bias.exp_avg_sq" : tensor<64xf32> loc("optimizer")
  train.adam %ln2_b, %dln2_b, %ln2_b_m, %ln2_b_v step(%step : tensor<i64>) {lr = 6.000000e-04 : f64} : tensor<64xf32>, tensor<64xf32>, tensor<64xf32>, tensor<64xf32> loc("optimizer")
  %fc_w_m = train.opt_state "h.0.mlp.c_fc.weight.exp_avg" : tensor<64x256xf32> loc("optimizer")
  %fc_w_v = train.opt_state "h.0.mlp.c_fc.weight.exp_avg_sq" : tensor<64x256xf32> loc("optimizer")
  train.adam %fc_w, %dfc_w, %fc_w_m, %fc_w_v step(%step : tensor<i64>) {lr = 6.000000e-04 : f64} : tensor<64x256xf32>, tensor<64x256xf32>, tensor<64x256xf32>, tensor<64x256xf32> loc("optimizer")
  %fc_b_m = train.opt_state "h.0.mlp.c_fc.bias.exp_avg" : tensor<256xf32> loc("optimizer")
  %fc_b_v = train.opt_state "h.0.mlp.c_fc.bias.exp_avg_sq" : tensor<256xf32> loc("optimizer")
  train.adam %fc_b, %dfc_b, %fc_b_m, %fc_b_v step(%step : tensor<i64>) {lr = 6.000000e-04 : f64} : tensor<256xf32>, tensor<256xf32>, tensor<256xf32>, tensor<256xf32> loc("optimizer")
  %mproj_w_m = train.opt_state "h.0.mlp.c_proj.weight.exp_avg" : tensor<256x64xf32> loc("optimizer")
  %mproj_w_v = train.opt_state "h.0.mlp.c_proj.weight.exp_avg_sq" : tensor<256x64xf32> loc("optimizer")
  train.adam %mproj_w, %dmproj_w, %mproj_w_m, %mproj_w_v step(%step : tensor<i64>) {lr = 6.000000e-04 : f64} : tensor<256x64xf32>, tensor<256x64xf32>, tensor<256x64xf32>, tensor<256x64xf32> loc("optimizer")
  %mproj_b_m = train.opt_state "h.0.mlp.c_proj.bias.exp_avg" : tensor<64xf32> loc("optimizer")
  %mproj_b_v = train.opt_state "h.0.mlp.c_proj.bias.exp_avg_sq" : tensor<64xf32> loc("optimizer")
  train.adam %mproj_b, %dmproj_b, %mproj_b_m, %mproj_b_v step(%step : tensor<i64>) {lr = 6.000000e-04 : f64} : tensor<64xf32>, tensor<64xf32>, tensor<64xf32>, tensor<64xf32> loc("optimizer")
  %lnf_g_m = train.opt_state "ln_f.weight.exp_avg" : tensor<64xf32> loc("optimizer")
  %lnf_g_v = train.opt_state "ln_f.weight.exp_avg_sq" : tensor<64xf32> loc("optimizer")
  train.adam %lnf_g, %dlnf_g, %lnf_g_m, %lnf_g_v step(%step : tensor<i64>) {lr = 6.000000e-04 : f64} : tensor<64xf32>, tensor<64xf32>, tensor<64xf32>, tensor<64xf32> loc("optimizer")
  %lnf_b_m = train.opt_state "ln_f.bias.exp_avg" : tensor<64xf32> loc("optimizer")
  %lnf_b_v = train.opt_state "ln_f.bias.exp_avg_sq" : tensor<64xf32> loc("optimizer")
  train.adam %lnf_b, %dlnf_b, %lnf_b_m, %lnf_b_v step(%step : tensor<i64>) {lr = 6.000000e-04 : f64} : tensor<64xf32>, tensor<64xf32>, tensor<64xf32>, tensor<64xf32> loc("optimizer")

  return %loss : tensor<f32> loc("return")
}
