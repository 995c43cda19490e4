"""Models the importer rejects (export.test)."""

import torch
import torch.nn as nn


class Branchy(nn.Module):
    """Branches on a tensor's value: no trace with static shapes follows it."""

    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(4, 3)

    def forward(self, x):
        y = self.fc(x)
        if y.sum() > 0:
            y = y * 2
        return y


class Unsupported(nn.Module):
    """Ops the train dialect has no counterpart for: a random mask drawn with
    torch.rand (not dropout; it depends on no input, but a random draw is not
    folded into a constant) and a cumulative sum."""

    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(4, 3)

    def forward(self, x):
        y = self.fc(x)
        noise = torch.rand(x.shape[0], 1)
        return torch.cumsum(y * noise, dim=1)


class NotAModule:
    pass


class Strided(nn.Module):
    """Two as_strided views: one in the tensor's own layout (the same tensor:
    the exporter drops it) and one that transposes (refused)."""

    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(4, 3)

    def forward(self, x):
        y = self.fc(x)
        same = y.as_strided(y.shape, y.stride())
        return same.as_strided((3, 2), (1, 3))
