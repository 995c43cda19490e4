"""torchvision's classification models for comparisons with PyTorch
(torchvision-training*.test): dropout off, and optionally batch norm as
memopt computes it.

Dropout: a mask is drawn by memopt's counter-based generator in mem-run and
by PyTorch's generator in eager mode; the two never draw the same mask, so
a step with dropout cannot be compared value for value. `build` constructs
the unmodified torchvision model and sets the rate of every nn.Dropout and
torchvision StochasticDepth module to 0 (some builders, efficientnet_b0's
and maxvit_t's, fix their rates and take no argument for them); the
exporter then traces no dropout at all. Every other op is torchvision's.

Batch norm (`memopt_batch_norm=True`, for `memopt_torch train` only; the
export traces the stock model): train.batch_norm saves its per-channel mean
and 1/sqrt(var + eps) for the backward pass in f32 whatever the model's
dtype (the dialect requires it). In a float64 model that rounding, 6e-8
relative, reaches the gradients, where sums that cancel scale it up: one
SGD step of shufflenet_v2_x0_5 moves its batch-norm weights by up to 5e-4
relative from float64 PyTorch's. With the statistics rounded the same way
here, the same step agrees to 5e-10: what remains to compare is every op
of the model, which is what these tests are for. The forward pass and the
backward formulas are those of BatchNormGradLowering
(lib/Conversion/TrainToLinalg/BatchNormLowering.cpp), which are PyTorch's.
"""

import torch
import torch.nn as nn
import torchvision.models
from torchvision.ops import StochasticDepth


class _BatchNormF32Statistics(torch.autograd.Function):
    """Training-mode batch norm over (N, H, W) whose backward pass reads
    the mean and rstd rounded to f32, as mem-run's does."""

    @staticmethod
    def forward(ctx, x, gamma, beta, eps):
        dims = (0, 2, 3)
        mean = x.mean(dims)
        centered = x - mean[None, :, None, None]
        rstd = torch.rsqrt((centered * centered).mean(dims) + eps)
        ctx.save_for_backward(x, mean.float().to(x.dtype), rstd.float().to(x.dtype), gamma)
        return centered * (rstd * gamma)[None, :, None, None] + beta[None, :, None, None]

    @staticmethod
    def backward(ctx, grad):
        x, mean, rstd, gamma = ctx.saved_tensors
        count = x.numel() // x.shape[1]
        centered = x - mean[None, :, None, None]
        grad_beta = grad.sum((0, 2, 3))
        grad_gamma = (grad * centered).sum((0, 2, 3)) * rstd
        scale = grad_gamma * rstd / count
        grad_input = (grad - centered * scale[None, :, None, None]
                      - (grad_beta / count)[None, :, None, None]) \
            * (rstd * gamma)[None, :, None, None]
        return grad_input, grad_gamma, grad_beta, None


class _MemoptBatchNorm2d(nn.BatchNorm2d):
    """nn.BatchNorm2d (training mode, affine) with the f32 statistics."""

    def forward(self, x):
        if not self.training or x.dim() != 4 or self.weight is None:
            return super().forward(x)
        return _BatchNormF32Statistics.apply(x, self.weight, self.bias, self.eps)


def build(name, memopt_batch_norm=False, **config):
    """torchvision.models.<name>(**config) without dropout; with
    memopt_batch_norm, its BatchNorm2d modules save f32 statistics."""
    model = getattr(torchvision.models, name)(**config)
    for module in model.modules():
        if isinstance(module, (nn.Dropout, StochasticDepth)):
            module.p = 0.0
        if memopt_batch_norm and type(module) is nn.BatchNorm2d:
            module.__class__ = _MemoptBatchNorm2d
    return model
