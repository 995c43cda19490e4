"""Models at the limits of the export path (limits.test): what export or
mem-import says about them instead of importing them silently wrong."""

import torch
import torch.nn as nn


class Frozen(nn.Module):
    """A frozen first layer (requires_grad=False, as when fine-tuning a
    head): PyTorch's optimizer leaves it alone, but a step that trained every
    parameter would not."""

    def __init__(self):
        super().__init__()
        self.body = nn.Linear(4, 8)
        self.body.weight.requires_grad_(False)
        self.head = nn.Linear(8, 3)

    def forward(self, x):
        return self.head(torch.relu(self.body(x)))


class TwoHeads(nn.Module):
    """Returns (logits, aux, features), as Inception's auxiliary classifier
    does: the loss is computed from the first output only."""

    def __init__(self):
        super().__init__()
        self.body = nn.Linear(4, 8)
        self.head = nn.Linear(8, 3)
        self.aux = nn.Linear(8, 3)

    def forward(self, x):
        features = torch.relu(self.body(x))
        return self.head(features), self.aux(features), features


class TwinTables(nn.Module):
    """Two layers that each compute the same table from no input (as each
    Llama attention computes its rotary cos/sin tables): the exporter folds
    each into a constant of its own, with the same values."""

    def __init__(self, layers=2):
        super().__init__()
        self.layers = nn.ModuleList(nn.Linear(8, 8) for _ in range(layers))

    def forward(self, x):
        for layer in self.layers:
            table = torch.cos(torch.arange(x.shape[-1] * x.shape[-2]).float()
                              ).reshape(x.shape[-2], x.shape[-1])
            x = layer(x) * table
        return x
