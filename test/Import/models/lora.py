"""LoRA in plain PyTorch, written as PEFT writes it (peft.tuners.lora.Linear;
PEFT itself is not installable for torch 1.13), on models/llama.py's Llama
(lora.test, predict-finetune.test, bench/import,
bench/pytorch).

LoRALinear wraps an nn.Linear: the base layer is frozen (requires_grad_(False)),
and two adapters train beside it, lora_A = Linear(in, r) initialised with
kaiming_uniform_(a=sqrt(5)) and lora_B = Linear(r, out) initialised to zero,
both without bias, in ModuleDicts keyed by the adapter's name ("default"), so
that parameter names are PEFT's (`q_proj.lora_A.default.weight`):

    forward(x) = base_layer(x) + lora_B(lora_A(dropout(x))) * (alpha / r)

lora_llama wraps the target modules of every attention block (q/k/v/o
projections by default) and freezes every other parameter, as PEFT's
mark_only_lora_as_trainable does with bias="none": embeddings, norms, MLPs
and the LM head stay as they are; only the adapters train.
"""

import math
import os
import sys

import torch.nn as nn

_HERE = os.path.dirname(os.path.abspath(__file__))
if _HERE not in sys.path:
    sys.path.insert(0, _HERE)

from llama import Llama  # noqa: E402  (the sibling model file)


class LoRALinear(nn.Module):
    """peft.tuners.lora.Linear with one adapter, "default"."""

    def __init__(self, base_layer, r=8, alpha=16, dropout=0.0, b_init_std=0.0):
        super().__init__()
        self.base_layer = base_layer
        self.base_layer.requires_grad_(False)
        self.r, self.scaling = r, alpha / r
        self.lora_dropout = nn.ModuleDict(
            {"default": nn.Dropout(dropout) if dropout > 0 else nn.Identity()})
        self.lora_A = nn.ModuleDict(
            {"default": nn.Linear(base_layer.in_features, r, bias=False)})
        self.lora_B = nn.ModuleDict(
            {"default": nn.Linear(r, base_layer.out_features, bias=False)})
        # PEFT's reset_lora_parameters: A as nn.Linear's own init, B zero, so
        # that the wrapped layer starts as the base layer. b_init_std > 0 (the
        # tests) draws B from N(0, b_init_std) instead, so that the adapter
        # path changes the loss from the first step on.
        nn.init.kaiming_uniform_(self.lora_A["default"].weight, a=math.sqrt(5))
        if b_init_std > 0:
            nn.init.normal_(self.lora_B["default"].weight, std=b_init_std)
        else:
            nn.init.zeros_(self.lora_B["default"].weight)

    def forward(self, x):
        result = self.base_layer(x)
        lora_A, lora_B = self.lora_A["default"], self.lora_B["default"]
        dropout = self.lora_dropout["default"]
        return result + lora_B(lora_A(dropout(x))) * self.scaling


def add_lora(model, targets, r=8, alpha=16, dropout=0.0, b_init_std=0.0):
    """Replaces every nn.Linear whose name ends in one of `targets` by a
    LoRALinear around it, then freezes every parameter that is not an
    adapter's (PEFT's mark_only_lora_as_trainable, bias="none"). Returns the
    model."""
    chosen = [(name, module) for name, module in model.named_modules()
              if isinstance(module, nn.Linear) and name.split(".")[-1] in targets]
    if not chosen:
        raise ValueError(f"no nn.Linear named {', '.join(targets)} in the model")
    for name, module in chosen:
        parent_name, _, child = name.rpartition(".")
        parent = model.get_submodule(parent_name) if parent_name else model
        setattr(parent, child, LoRALinear(module, r, alpha, dropout, b_init_std))
    for name, p in model.named_parameters():
        p.requires_grad_("lora_" in name)
    return model


def lora_llama(r=4, alpha=8, dropout=0.0, b_init_std=0.0,
               targets=("q_proj", "k_proj", "v_proj", "o_proj"), **config):
    """models/llama.py's Llama built from `config`, with LoRA adapters of
    rank r on the `targets` of every attention block, everything else
    frozen."""
    return add_lora(Llama(**config), tuple(targets), r, alpha, dropout, b_init_std)
