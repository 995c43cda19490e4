"""Models for export-fake.test: `export` without --weights builds and traces
on fake tensors (shapes, no data), falling back to real tensors where it
cannot. Each model says on stderr when it is built or run on real tensors.
"""

import sys

import torch
import torch.nn as nn


def _tell(what, tensor):
    """Prints a line when `tensor` is a real tensor (a parameter or plain
    tensor; on the fake path it is a FakeTensor)."""
    if type(tensor) in (torch.Tensor, nn.Parameter):
        print(f"fake.py: {what} on real tensors", file=sys.stderr)


class Probe(nn.Module):
    """What the fake path must know the values of, as constants of the
    graph written with their data: a causal mask buffer built in __init__,
    torch.arange and a torch.tensor in forward; a width computed from
    tensors and read back with .tolist() while building (RegNet builds its
    stages so); a batch norm's in-place update of num_batches_tracked.
    And a layer norm of a transposed tensor, whose CPU kernel returns a
    contiguous tensor where torch 1.13's meta kernel keeps the transposed
    layout at batch 1: the flatten after it traces as a view with the
    output's strides. And a batch norm in evaluation mode over statistics
    buffers, which it reads and does not update. Input: batch x seq x
    width."""

    def __init__(self, width=8, seq=4):
        super().__init__()
        self.fc = nn.Linear(width, width)
        self.norm = nn.BatchNorm1d(seq)
        self.register_buffer("mask", torch.tril(torch.ones(seq, seq)))
        widths = (torch.arange(2) * 2 + width).tolist()  # [width, width + 2]
        self.proj = nn.Linear(width, widths[1])
        self.shift = nn.Parameter(torch.zeros(widths[1]))
        self.norm2 = nn.LayerNorm(seq)
        self.gate = nn.Linear(width * seq, width)
        self.register_buffer("mean", torch.linspace(-1.0, 1.0, seq))
        self.register_buffer("var", torch.full((seq,), 2.0))
        _tell("built", self.fc.weight)

    def forward(self, x):
        _tell("forward", x)
        y = self.norm(self.fc(x))
        y = nn.functional.batch_norm(y, self.mean, self.var, training=False)
        scores = (y @ y.transpose(1, 2)).masked_fill(self.mask == 0, float("-inf"))
        y = scores.softmax(-1) @ y
        y = y * self.gate(self.norm2(y.transpose(1, 2)).flatten(1)).unsqueeze(1)
        position = torch.arange(x.shape[1]).float().unsqueeze(-1) / x.shape[1]
        scale = torch.tensor([0.5, 2.0]).repeat(x.shape[-1] // 2)
        return self.proj(y * scale + position) + self.shift


class NoMeta(nn.Module):
    """torch.median over a dimension: torch 1.13 has no meta kernel for it,
    so the fake path cannot run the forward."""

    def __init__(self, width=8):
        super().__init__()
        self.fc = nn.Linear(width, width)

    def forward(self, x):
        _tell("forward", x)
        y = self.fc(x)
        return y - y.median(dim=-1, keepdim=True).values


class RandomBuffer(nn.Module):
    """A fixed projection drawn at random into a buffer: a constant of the
    graph whose values the fake tensors do not hold."""

    def __init__(self, width=8):
        super().__init__()
        self.fc = nn.Linear(width, width)
        self.register_buffer("projection", torch.randn(width, width))

    def forward(self, x):
        _tell("forward", x)
        return self.fc(x) @ self.projection


class RunningStats(nn.Module):
    """Reads a training-mode batch norm's running mean, which that batch
    norm updates from the batch (its values depend on data): a constant the
    fake tensors cannot know."""

    def __init__(self, width=8):
        super().__init__()
        self.fc = nn.Linear(width, width)
        self.norm = nn.BatchNorm1d(width)

    def forward(self, x):
        _tell("forward", x)
        return self.norm(self.fc(x)) - self.norm.running_mean
