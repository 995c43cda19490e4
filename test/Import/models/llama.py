"""A Llama decoder in plain PyTorch: RMSNorm, rotary position embedding
(rotate-half, cos/sin tables computed in forward), grouped-query attention
(K/V heads repeated to the query heads, scores by matmul, a causal mask by
masked_fill) and a SwiGLU MLP, without biases; an embedding, `n_layer`
blocks, a final RMSNorm and an untied LM head. forward(idx) returns logits.
"""

import math

import torch
import torch.nn as nn
import torch.nn.functional as F


class RMSNorm(nn.Module):
    def __init__(self, dim, eps=1e-6):
        super().__init__()
        self.eps = eps
        self.weight = nn.Parameter(torch.ones(dim))

    def forward(self, x):
        return x * torch.rsqrt(x.pow(2).mean(-1, keepdim=True) + self.eps) * self.weight


def rotate_half(x):
    half = x.shape[-1] // 2
    return torch.cat((-x[..., half:], x[..., :half]), dim=-1)


def repeat_kv(x, n_rep):
    if n_rep == 1:
        return x
    b, h, t, d = x.shape
    return x[:, :, None, :, :].expand(b, h, n_rep, t, d).reshape(b, h * n_rep, t, d)


class Attention(nn.Module):
    def __init__(self, dim, n_head, n_kv_head, theta):
        super().__init__()
        self.n_head, self.n_kv_head = n_head, n_kv_head
        self.head_dim = dim // n_head
        self.theta = theta
        self.q_proj = nn.Linear(dim, n_head * self.head_dim, bias=False)
        self.k_proj = nn.Linear(dim, n_kv_head * self.head_dim, bias=False)
        self.v_proj = nn.Linear(dim, n_kv_head * self.head_dim, bias=False)
        self.o_proj = nn.Linear(n_head * self.head_dim, dim, bias=False)

    def forward(self, x):
        b, t, _ = x.shape
        q = self.q_proj(x).view(b, t, self.n_head, self.head_dim).transpose(1, 2)
        k = self.k_proj(x).view(b, t, self.n_kv_head, self.head_dim).transpose(1, 2)
        v = self.v_proj(x).view(b, t, self.n_kv_head, self.head_dim).transpose(1, 2)
        inv_freq = 1.0 / (self.theta ** (torch.arange(0, self.head_dim, 2).float() / self.head_dim))
        freqs = torch.outer(torch.arange(t).float(), inv_freq)
        emb = torch.cat((freqs, freqs), dim=-1)
        cos, sin = emb.cos(), emb.sin()
        q = q * cos + rotate_half(q) * sin
        k = k * cos + rotate_half(k) * sin
        k = repeat_kv(k, self.n_head // self.n_kv_head)
        v = repeat_kv(v, self.n_head // self.n_kv_head)
        scores = (q @ k.transpose(-2, -1)) / math.sqrt(self.head_dim)
        mask = torch.ones(t, t, dtype=torch.bool).tril()
        scores = scores.masked_fill(~mask, float("-inf"))
        y = F.softmax(scores, dim=-1) @ v
        return self.o_proj(y.transpose(1, 2).reshape(b, t, -1))


class MLP(nn.Module):
    def __init__(self, dim, hidden):
        super().__init__()
        self.gate_proj = nn.Linear(dim, hidden, bias=False)
        self.up_proj = nn.Linear(dim, hidden, bias=False)
        self.down_proj = nn.Linear(hidden, dim, bias=False)

    def forward(self, x):
        return self.down_proj(F.silu(self.gate_proj(x)) * self.up_proj(x))


class Block(nn.Module):
    def __init__(self, dim, n_head, n_kv_head, hidden, theta, eps):
        super().__init__()
        self.input_layernorm = RMSNorm(dim, eps)
        self.self_attn = Attention(dim, n_head, n_kv_head, theta)
        self.post_attention_layernorm = RMSNorm(dim, eps)
        self.mlp = MLP(dim, hidden)

    def forward(self, x):
        x = x + self.self_attn(self.input_layernorm(x))
        return x + self.mlp(self.post_attention_layernorm(x))


class Llama(nn.Module):
    def __init__(self, vocab_size=32000, dim=4096, n_layer=32, n_head=32, n_kv_head=32,
                 hidden=11008, theta=10000.0, eps=1e-5):
        super().__init__()
        self.embed_tokens = nn.Embedding(vocab_size, dim)
        self.layers = nn.ModuleList([Block(dim, n_head, n_kv_head, hidden, theta, eps)
                                     for _ in range(n_layer)])
        self.norm = RMSNorm(dim, eps)
        self.lm_head = nn.Linear(dim, vocab_size, bias=False)

    def forward(self, idx):
        x = self.embed_tokens(idx)
        for layer in self.layers:
            x = layer(x)
        return self.lm_head(self.norm(x))
