"""A Llama-style model in plain PyTorch, the reference for `mem-gen llama`
run by mem-run (llama-adam.test).

Written from HuggingFace's LlamaForCausalLM (modeling_llama.py), not from
memopt's lowering: token embedding; per layer, RMSNorm (x * rsqrt(mean(x^2)
+ eps) * weight), q/k/v projections (nn.Linear: x @ W^T, no bias), heads
split, rotary position embedding on q and k in HF's rotate-half form
(inv_freq = 1 / theta^(arange(0, D, 2) / D), angle = position * inv_freq,
q * cos + rotate_half(q) * sin with rotate_half(x) = cat(-x2, x1)),
grouped-query attention by repeating each key/value head Hq / Hkv times
(HF's repeat_kv), causal softmax(q k^T / sqrt(D)) v, heads merged, o_proj,
residual; RMSNorm, SwiGLU MLP down(silu(gate(x)) * up(x)), residual; final
RMSNorm, untied LM head, mean cross-entropy. Positions are 0..S-1.

Parameters and inputs come from mem-run's documented initialization
(memrun_init.py, docs/execution.md): step argument #0 is input_ids, #1 the
labels (both in [0, vocab)), #2 the step number.

    llama.py --steps N               Adam (lr 1e-3, PyTorch's defaults)
    llama.py --grads                 loss and every parameter's gradient
                                     once, as mem-run prints a step made by
                                     `mem-gen --train --optimizer=none`
    --rope-sign -1                   rotate the other way (a wrong reference:
                                     the test checks the comparison fails)
"""

import argparse
import math

import torch

from memrun_init import (init_int_arg, init_param, print_params, print_step,
                         summarize)


def param_shapes(cfg):
    """(name, shape) of every parameter in order of first appearance, with
    nn.Linear's [out, in] weights."""
    c, f, v = cfg["hidden"], cfg["ffn"], cfg["vocab"]
    d = c // cfg["heads"]
    kv = cfg["kv_heads"] * d
    out = [("model.embed_tokens.weight", [v, c])]
    for layer in range(cfg["layers"]):
        p = "model.layers.%d." % layer
        out += [(p + "input_layernorm.weight", [c]),
                (p + "self_attn.q_proj.weight", [c, c]),
                (p + "self_attn.k_proj.weight", [kv, c]),
                (p + "self_attn.v_proj.weight", [kv, c]),
                (p + "self_attn.o_proj.weight", [c, c]),
                (p + "post_attention_layernorm.weight", [c]),
                (p + "mlp.gate_proj.weight", [f, c]),
                (p + "mlp.up_proj.weight", [f, c]),
                (p + "mlp.down_proj.weight", [c, f])]
    out += [("model.norm.weight", [c]), ("lm_head.weight", [v, c])]
    return out


def rms_norm(x, weight, eps):
    variance = x.pow(2).mean(-1, keepdim=True)
    return x * torch.rsqrt(variance + eps) * weight


def rotate_half(x):
    half = x.shape[-1] // 2
    return torch.cat((-x[..., half:], x[..., :half]), dim=-1)


def rotary_tables(seq, dim, theta, sign):
    inv_freq = 1.0 / (theta ** (torch.arange(0, dim, 2, dtype=torch.float64)
                                / dim))
    angles = torch.arange(seq, dtype=torch.float64)[:, None] * inv_freq[None, :]
    emb = torch.cat((angles, angles), dim=-1)
    return emb.cos().float(), (sign * emb.sin()).float()


def repeat_kv(x, groups):
    """B x Hkv x S x D -> B x (Hkv * groups) x S x D, each head repeated
    `groups` times in a row (query head h reads key/value head h // groups)."""
    b, h, s, d = x.shape
    return x[:, :, None, :, :].expand(b, h, groups, s, d).reshape(
        b, h * groups, s, d)


def forward(p, ids, labels, cfg, cos, sin):
    b, s = ids.shape
    c, nh, nkv = cfg["hidden"], cfg["heads"], cfg["kv_heads"]
    d, eps = c // nh, cfg["eps"]
    causal = torch.ones(s, s, dtype=torch.bool).triu(1)
    x = p["model.embed_tokens.weight"][ids]
    for layer in range(cfg["layers"]):
        pre = "model.layers.%d." % layer
        h = rms_norm(x, p[pre + "input_layernorm.weight"], eps)
        q = (h @ p[pre + "self_attn.q_proj.weight"].t()).view(b, s, nh, d)
        k = (h @ p[pre + "self_attn.k_proj.weight"].t()).view(b, s, nkv, d)
        v = (h @ p[pre + "self_attn.v_proj.weight"].t()).view(b, s, nkv, d)
        q, k, v = q.transpose(1, 2), k.transpose(1, 2), v.transpose(1, 2)
        q = q * cos + rotate_half(q) * sin
        k = k * cos + rotate_half(k) * sin
        k, v = repeat_kv(k, nh // nkv), repeat_kv(v, nh // nkv)
        scores = (q @ k.transpose(-1, -2)) / math.sqrt(d)
        probs = torch.softmax(scores.masked_fill(causal, float("-inf")), -1)
        attn = (probs @ v).transpose(1, 2).reshape(b, s, c)
        x = x + attn @ p[pre + "self_attn.o_proj.weight"].t()
        h = rms_norm(x, p[pre + "post_attention_layernorm.weight"], eps)
        gate = h @ p[pre + "mlp.gate_proj.weight"].t()
        up = h @ p[pre + "mlp.up_proj.weight"].t()
        act = torch.nn.functional.silu(gate) * up
        x = x + act @ p[pre + "mlp.down_proj.weight"].t()
    h = rms_norm(x, p["model.norm.weight"], eps)
    logits = h @ p["lm_head.weight"].t()
    return torch.nn.functional.cross_entropy(
        logits.reshape(-1, cfg["vocab"]), labels.reshape(-1))


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--layers", type=int, required=True)
    parser.add_argument("--hidden", type=int, required=True)
    parser.add_argument("--heads", type=int, required=True)
    parser.add_argument("--kv-heads", type=int, required=True)
    parser.add_argument("--ffn", type=int, required=True)
    parser.add_argument("--vocab", type=int, required=True)
    parser.add_argument("--seq", type=int, required=True)
    parser.add_argument("--batch", type=int, required=True)
    parser.add_argument("--theta", type=float, default=10000.0)
    parser.add_argument("--eps", type=float, default=1e-5)
    parser.add_argument("--steps", type=int, default=3)
    parser.add_argument("--grads", action="store_true")
    parser.add_argument("--rope-sign", type=float, default=1.0)
    args = parser.parse_args()
    cfg = dict(layers=args.layers, hidden=args.hidden, heads=args.heads,
               kv_heads=args.kv_heads, ffn=args.ffn, vocab=args.vocab,
               eps=args.eps)

    torch.set_num_threads(1)
    order = param_shapes(cfg)
    p = {name: init_param(name, shape).requires_grad_()
         for name, shape in order}
    ids = init_int_arg(0, [args.batch, args.seq], args.vocab)
    labels = init_int_arg(1, [args.batch, args.seq], args.vocab)
    cos, sin = rotary_tables(args.seq, args.hidden // args.heads, args.theta,
                             args.rope_sign)

    if args.grads:
        loss = forward(p, ids, labels, cfg, cos, sin)
        loss.backward()
        print_step(1, loss)
        # mem-run numbers the step's results from 0; 0 is the loss.
        for index, (name, _) in enumerate(order, start=1):
            total, squares = summarize(p[name].grad)
            print("result %d: sum = %.9e sumsq = %.9e" % (index, total,
                                                          squares))
        print_params([(name, p[name]) for name, _ in order])
        return

    optimizer = torch.optim.Adam(p.values(), lr=1e-3, foreach=False)
    for step in range(1, args.steps + 1):
        optimizer.zero_grad()
        loss = forward(p, ids, labels, cfg, cos, sin)
        loss.backward()
        print_step(step, loss)
        optimizer.step()
    print_params([(name, p[name]) for name, _ in order])


if __name__ == "__main__":
    main()
