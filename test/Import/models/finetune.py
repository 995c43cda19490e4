"""Models with frozen parameters (requires_grad=False), as fine-tuning leaves
them (finetune.test, finetune-long.test, bench/import): models/mlp.py's MLP
and models/gpt.py's GPT built from their usual configs, then the parameters
under the named modules frozen."""

import os
import sys

_HERE = os.path.dirname(os.path.abspath(__file__))
if _HERE not in sys.path:
    sys.path.insert(0, _HERE)

from gpt import GPT  # noqa: E402  (the sibling model files)
from mlp import MLP  # noqa: E402


def freeze(model, modules):
    """requires_grad_(False) on every parameter under each module named in
    `modules` (names as in model.named_modules(); "" is the whole model).
    Returns the model."""
    for name in modules:
        try:
            model.get_submodule(name).requires_grad_(False)
        except AttributeError:
            raise ValueError(f"the model has no module '{name}'") from None
    return model


def frozen_mlp(frozen=("net.0",), **config):
    """The MLP (Linear 16->32, ReLU, Linear 32->32, ReLU, Linear 32->10 by
    default) with the `frozen` modules frozen: by default its first layer."""
    return freeze(MLP(**config), frozen)


def frozen_gpt(frozen=("transformer.wte", "transformer.wpe", "transformer.h.0"), **config):
    """nanoGPT with the `frozen` modules frozen: by default the token and
    position embeddings and the first block. The LM head is tied to the token
    embedding (one parameter), so it is frozen with it, as in PyTorch."""
    return freeze(GPT(**config), frozen)
