"""Models the importer rejects (export.test, refusals.test)."""

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


# Models each refused at one place of the export path (refusals.test): by
# the exporter, or exported and then refused by mem-import at the user's
# line. (Appended below the models above, whose line numbers export.test
# and docs/import.md quote.)

import torch.nn.functional as F  # noqa: E402


class _Head(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(4, 3)


class Int16Buffer(_Head):
    """A buffer of a dtype the graph format has no name for."""

    def __init__(self):
        super().__init__()
        self.register_buffer("steps", torch.zeros(3, dtype=torch.int16))

    def forward(self, x):
        return self.fc(x)


class InPlaceView(_Head):
    """An in-place update of a view of a computed tensor."""

    def forward(self, x):
        y = self.fc(x)
        y[:, 0].mul_(2)
        return y


class NoScalarLoss(_Head):
    """--loss model, but forward returns no 0-d tensor among its outputs."""

    def forward(self, x, labels):
        y = self.fc(x)
        return y, y


class VectorLoss(_Head):
    """--loss model, but forward returns a tensor that is not 0-d."""

    def forward(self, x, labels):
        return self.fc(x)


class Losses(_Head):
    """--loss model with a loss mem-import does not take; `kind` picks it."""

    def __init__(self, kind):
        super().__init__()
        self.kind = kind
        self.register_buffer("weight", torch.ones(3))
        self.register_buffer("target", torch.zeros(2, 3))

    def forward(self, x, labels):
        y = self.fc(x)
        if self.kind == "nll":
            return F.nll_loss(y, labels)
        if self.kind == "class_weights":
            return F.cross_entropy(y, labels, weight=self.weight)
        if self.kind == "sum":
            return F.cross_entropy(y, labels, reduction="sum")
        return F.mse_loss(y, self.target, reduction="sum")


class Layers(nn.Module):
    """A Linear to 18 features, then one layer mem-import does not take
    (`kind` picks it), reading those features as 2x2x3x3 maps where it needs
    images."""

    def __init__(self, kind):
        super().__init__()
        self.kind = kind
        self.fc = nn.Linear(4, 18)
        layers = {
            "conv_transpose": nn.ConvTranspose2d(2, 2, 2),
            "conv1d": nn.Conv1d(2, 2, 1),
            "dilated_max_pool": nn.MaxPool2d(1, dilation=2),
            "avg_pool_ceil": nn.AvgPool2d(2, ceil_mode=True),
            "adaptive_uneven": nn.AdaptiveAvgPool2d((2, 2)),
            "batch_norm_no_affine": nn.BatchNorm2d(2, affine=False),
            "hardtanh": nn.Hardtanh(-1.0, 1.0),
            "batch_norm_1d": nn.BatchNorm1d(18),
            "layer_norm_2d": nn.LayerNorm([2, 9]),
            "layer_norm_no_affine": nn.LayerNorm(9, elementwise_affine=False),
        }
        if kind in layers:
            self.layer = layers[kind]
        self.register_buffer("running_mean", torch.zeros(2))
        self.register_buffer("running_var", torch.ones(2))
        self.register_buffer("index", torch.tensor([1, 0]))
        self.register_buffer("mask", torch.arange(18) % 2 == 0)
        self.table = nn.Parameter(torch.ones(3, 2, 4))
        self.norm_weight = nn.Parameter(torch.ones(2, 18))

    def forward(self, x):
        y = self.fc(x)
        kind = self.kind
        if kind in ("conv_transpose", "dilated_max_pool", "avg_pool_ceil",
                    "adaptive_uneven", "batch_norm_no_affine"):
            # 3x3 maps: a partial window of 2 with ceil_mode, windows of
            # different sizes from 3 to 2.
            return self.layer(y.reshape(2, 2, 3, 3)).flatten(1)
        if kind in ("conv1d", "layer_norm_2d", "layer_norm_no_affine"):
            return self.layer(y.reshape(2, 2, 9)).flatten(1)
        if kind in ("hardtanh", "batch_norm_1d"):
            return self.layer(y)
        if kind == "max_pool_3d":  # an unbatched (C, H, W) image
            return F.max_pool2d(y.reshape(4, 3, 3), 2).flatten()
        if kind == "avg_pool_3d":
            return F.avg_pool2d(y.reshape(4, 3, 3), 2).flatten()
        if kind == "adaptive_3d":
            return F.adaptive_avg_pool2d(y.reshape(1, 6, 6), 3).flatten()
        if kind == "batch_norm_eval":
            return F.batch_norm(y.reshape(2, 2, 3, 3), self.running_mean, self.running_var,
                                training=False).flatten(1)
        if kind == "mean_dtype":
            return y.mean(-1, keepdim=True, dtype=torch.float32) * y
        if kind == "to_double":
            return y.double()
        if kind == "add_number":
            return (y + 1) * (y - 1)
        if kind == "div_tensor":
            return y / (y * 2)
        if kind == "dropout_one":
            return F.dropout(y, p=1.0)
        if kind == "softmax_dim0":
            return F.softmax(y, dim=0)
        if kind == "log_softmax_dim0":
            return F.log_softmax(y, dim=0)
        if kind == "log_softmax_read":  # other than by nll_loss
            return F.log_softmax(y, dim=-1) * 2
        if kind == "square_read":  # other than by an RMSNorm's mean
            return y.pow(2) * 2
        if kind == "pow3":
            return y.pow(3)
        if kind == "mean_square_dim0":
            return y * torch.rsqrt(y.pow(2).mean(0, keepdim=True) + 1e-6)
        if kind == "rsqrt":
            return torch.rsqrt(torch.sigmoid(y))
        if kind == "rms_other":
            return (y * 2) * torch.rsqrt(y.pow(2).mean(-1, keepdim=True) + 1e-6)
        if kind == "rms_weight":
            return y * torch.rsqrt(y.pow(2).mean(-1, keepdim=True) + 1e-6) * self.norm_weight
        if kind == "index_columns":
            return y[:, self.index]
        if kind == "index_3d":
            return torch.cat([y, self.table[self.index].flatten(1)], 1)
        if kind == "slice_step":
            return y[:, ::2]
        if kind == "bool_constant":
            return y * self.mask
        raise ValueError(kind)


class PaddedEmbedding(nn.Module):
    """nn.Embedding with a padding index (its row gets no gradient)."""

    def __init__(self):
        super().__init__()
        self.embed = nn.Embedding(8, 4, padding_idx=0)

    def forward(self, ids):
        return self.embed(ids)
