"""Checks memopt_torch's kernel rules (_kernels.extra: what a CPU kernel
allocates inside itself beyond its outputs) against the same op run once on
zero tensors under torch.profiler (_kernels.probe_op), one thread, on shapes
that reach every branch of the rules. Prints one line per case and exits 1
if a rule and the measurement differ by a byte."""

import sys

import torch

from memopt_torch import _kernels

aten = torch.ops.aten
torch.set_num_threads(1)
z = torch.zeros


def conv(n, c, hw, o, k, stride=1, padding=0, groups=1, bias=True, transposed=False,
         output_padding=0, dtype=torch.float32):
    x = z(n, c, hw, hw, dtype=dtype)
    shape = (c, o // groups, k, k) if transposed else (o, c // groups, k, k)
    w = z(*shape, dtype=dtype)
    b = z(o, dtype=dtype) if bias else None
    return (x, w, b, [stride] * 2, [padding] * 2, [1, 1], transposed, [output_padding] * 2,
            groups)


def conv_backward(forward_args, mask=(True, True, True)):
    x, w, b, stride, padding, dilation, transposed, output_padding, groups = forward_args
    y = aten.convolution.default(*forward_args)
    return (z(y.shape), x, w, [y.shape[1]] if b is not None else None, stride, padding,
            dilation, transposed, output_padding, groups, list(mask))


CONVS = {
    "3x3 conv, blocked channels": conv(2, 32, 8, 48, 3, padding=1),
    "first conv (3 channels, 7x7, stride 2)": conv(2, 3, 16, 24, 7, stride=2, padding=3),
    "1x1 conv, stride 2 (reduce-to-unit-stride copy)": conv(2, 32, 8, 64, 1, stride=2),
    "1x1 conv, batch 1 (THNN)": conv(1, 16, 8, 24, 1),
    "depthwise 3x3": conv(2, 32, 8, 32, 3, padding=1, groups=32),
    "depthwise 5x5, stride 2 (gemm weights)": conv(2, 24, 9, 24, 5, stride=2, padding=2,
                                                   groups=24),
    "grouped 3x3, 8 channels per group": conv(2, 32, 8, 32, 3, padding=1, groups=4, bias=False),
    "grouped 3x3, 8 in, 16 out per group": conv(2, 32, 8, 64, 3, padding=1, groups=4),
    "grouped 3x3, 16 per group": conv(2, 64, 8, 64, 3, padding=1, groups=4),
    "bias of 20 channels (padded)": conv(2, 16, 6, 20, 3, padding=1),
    "transposed 2x2, stride 2": conv(2, 32, 8, 16, 2, stride=2, transposed=True),
    "transposed 3x3, stride 2, output padding 1": conv(2, 16, 7, 8, 3, stride=2, padding=1,
                                                       transposed=True, output_padding=1),
    "transposed 4x4, no bias": conv(2, 24, 5, 12, 4, stride=2, padding=1, transposed=True,
                                    bias=False),
}


def cases():
    for name, args in CONVS.items():
        yield "convolution: " + name, aten.convolution.default, args, {}
        yield "convolution backward: " + name, aten.convolution_backward.default, \
            conv_backward(args), {}
    args = CONVS["3x3 conv, blocked channels"]
    yield "convolution backward, weights only", aten.convolution_backward.default, \
        conv_backward(args, (False, True, False)), {}
    yield "convolution backward, input only", aten.convolution_backward.default, \
        conv_backward(args, (True, False, False)), {}
    x = z(4, 24, 6, 6)
    c = z(24)
    yield "batch norm, training", aten.native_batch_norm.default, \
        (x, c, c, c.clone(), c.clone(), True, 0.1, 1e-5), {}
    yield "batch norm, NC11 input", aten.native_batch_norm.default, \
        (z(4, 24, 1, 1), c, c, c.clone(), c.clone(), True, 0.1, 1e-5), {}
    y, mean, invstd = aten.native_batch_norm.default(x, c, c, c.clone(), c.clone(), True,
                                                     0.1, 1e-5)
    yield "batch norm backward", aten.native_batch_norm_backward.default, \
        (z(x.shape), x, c, c.clone(), c.clone(), mean, invstd, True, 1e-5,
         [True, True, True]), {}
    h = z(8, 40)
    yield "layer norm, permuted input", aten.native_layer_norm.default, \
        (z(40, 8).t(), [40], z(40), z(40), 1e-5), {}
    out, mean, rstd = aten.native_layer_norm.default(h, [40], z(40), z(40), 1e-5)
    yield "layer norm backward", aten.native_layer_norm_backward.default, \
        (z(8, 40), h, [40], mean, rstd, z(40), z(40), [True, True, True]), {}
    yield "dropout", aten.native_dropout.default, (z(8, 40), 0.1, True), {}
    yield "mean", aten.mean.dim, (z(8, 40), [1]), {}
    yield "add of a Python scalar", aten.add.Tensor, (z(8, 40), 2.5), {}


def unmodeled():
    """Kernels no rule models: extra() must say so (predict then probes
    them), never return a guess."""
    grouped4 = conv(2, 32, 8, 32, 3, padding=1, groups=8)
    yield "convolution backward, 4 channels per group (gemm weights)", \
        aten.convolution_backward.default, conv_backward(grouped4), {}
    bf16 = conv(2, 32, 8, 48, 3, padding=1, dtype=torch.bfloat16)
    yield "convolution, bfloat16", aten.convolution.default, bf16, {}
    yield "convolution backward, bfloat16", aten.convolution_backward.default, \
        conv_backward(bf16), {}
    last = list(CONVS["3x3 conv, blocked channels"])
    last[0] = last[0].contiguous(memory_format=torch.channels_last)
    yield "convolution, channels-last", aten.convolution.default, tuple(last), {}
    yield "convolution, 16x16 patches (gemm)", aten.convolution.default, \
        conv(2, 3, 32, 64, 16, stride=16), {}


def main():
    failures = 0
    for name, func, args, kwargs in unmodeled():
        rule, label = _kernels.extra(func, args, kwargs, 1, probe=False)
        ok = "not modeled" in label
        failures += not ok
        print("%s %s: %s" % ("ok" if ok else "MODELED", name, label))
    for name, func, args, kwargs in cases():
        rule, label = _kernels.extra(func, args, kwargs, 1, probe=False)
        measured = _kernels.probe_op(func, args, kwargs)
        ok = rule == measured
        failures += not ok
        print("%s %s: rule %d B (%s), measured %d B" % (
            "ok" if ok else "MISMATCH", name, rule, label, measured))
    print("%d mismatches" % failures)
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
