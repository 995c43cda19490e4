"""PyTorch replica of memopt's fp8 step (train-precision mode=fp8) for
mlp_step.py's MLP.

It is bf16_rules.py's bf16-mixed step (imported from there: the model's
parameters and inputs as mem-run initializes them, the bf16 roundings of
every stored value and of its gradient, Adam on the f32 masters) except for
the linear layers, the matmuls reading a parameter (fc1 and fc2):

  * the lhs activation x, in the type the program has there (fc1: the f32
    input; fc2: the bf16 ReLU output), and the weight's f32 master (no bf16
    copy) are quantized to E4M3FN, q = e4m3(f32(v * s)): round to nearest,
    ties to even, 3 mantissa bits, normals from 2^-6, subnormals down to
    2^-9, saturating at +-448 (round_to_format, written from the format's
    definition, not torch's float8 types, which torch 1.13 lacks);
  * y = bf16(sum_k f32(qx) * f32(qw)), the products summed in f32 and
    rounded once, then times (1 / sx) * (1 / sw) (powers of two: exact),
    still bf16; the bias_add, ReLU, ... as bf16-mixed;
  * backward: the bf16 output gradient g is quantized to E5M2 (2 mantissa
    bits, normals from 2^-14, subnormals to 2^-16, saturating at +-57344)
    with the scale of the layer's grad_output history;
    dX = bf16(qg @ qw^T) / (sg sw), the gradient of x (straight through the
    quantization); dW = bf16(qx^T @ qg) / (sx sg), widened to f32, the
    master's gradient for Adam;
  * delayed scaling: every quantized tensor (per layer: lhs, rhs,
    grad_output) has an amax history of 16 f32 values, zero at the start;
    its scale is the largest power of two s with max(h) * s <= 448 (E4M3) or
    57344 (E5M2) when max(h) is positive and finite, else 1 (margin 0); the
    quantization reports amax = max |v|, and after the optimizer step each
    history rolls, h = [amax] + h[:15].

    fp8_rules.py --model mlp [--steps N] [--grads] [--variant VARIANT]
        [--print-scales]

--grads prints the losses of N steps (default 1) without an optimizer (the
histories still roll) and the gradients of the last step, as mem-run prints
a step differentiated with train-autodiff{optimizer=none}. --variant breaks
one rule, for the tests to show that the comparison can fail: no-e5m2 (the
bf16 output gradient used as it is, unquantized, in both gradient matmuls),
scale-one (every scale 1: no delayed scaling), current-scaling (the scale
from this step's own amax instead of the history). --print-scales prints
each step's scales (log2) to stderr.
"""

import argparse
import math
import os
import sys

import torch

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from bf16_rules import R, bf16  # noqa: E402
from memrun_init import (init_float_arg, init_param,  # noqa: E402
                         print_params, print_step, summarize)

F = torch.nn.functional

HISTORY = 16

# (mantissa bits, smallest normal exponent, largest finite value)
E4M3FN = (3, -6, 448.0)
E5M2 = (2, -14, 57344.0)


def round_to_format(v, fmt):
    """Rounds the f32 tensor v to the fp8 format fmt (to nearest, ties to
    even, saturating at the largest finite value); returns f32 values.
    Computed in double, where every step below is exact."""
    mantissa, min_exponent, largest = fmt
    a = v.double().abs()
    # a = m * 2^e, 0.5 <= m < 1: a's binade is [2^(e-1), 2^e).
    _, e = torch.frexp(a)
    exponent = torch.clamp(e.double() - 1, min=min_exponent)
    quantum = torch.pow(2.0, exponent - mantissa)
    rounded = torch.round(a / quantum) * quantum  # torch.round: ties to even
    rounded = torch.clamp(rounded, max=largest)
    return (torch.sign(v.double()) * rounded).float()


def scale_from(history, fmt):
    """The largest power of two s with max(history) * s <= the format's
    largest value; 1 if max(history) is not positive and finite."""
    largest = fmt[2]
    amax = max(history)
    if not (amax > 0 and math.isfinite(amax)):
        return 1.0
    k = math.floor(math.log2(largest / amax))
    while amax * 2.0 ** (k + 1) <= largest:
        k += 1
    while amax * 2.0 ** k > largest:
        k -= 1
    return 2.0 ** k


def amax_of(v):
    return float(v.abs().max())


class Layer:
    """One linear layer's delayed-scaling state."""

    def __init__(self, name, variant):
        self.name = name
        self.variant = variant
        self.history = {role: [0.0] * HISTORY
                        for role in ("lhs", "rhs", "grad_output")}
        self.amax = {}
        self.scales = {}

    def scale(self, role, fmt, value):
        if self.variant == "scale-one":
            s = 1.0
        elif self.variant == "current-scaling":
            s = scale_from([amax_of(value)], fmt)
        else:
            s = scale_from(self.history[role], fmt)
        self.scales[role] = s
        return s

    def quantize(self, role, fmt, value):
        s = self.scale(role, fmt, value)
        self.amax[role] = amax_of(value)
        # v * s in f32 (exact: s is a power of two), then rounded.
        return round_to_format(value.float() * s, fmt), s

    def roll(self):
        for role, h in self.history.items():
            h[:] = [self.amax[role]] + h[:-1]


class FP8Linear(torch.autograd.Function):
    """x @ W with x and W in E4M3, g in E5M2, results bf16 (see above)."""

    @staticmethod
    def forward(ctx, x, w, layer):
        qx, sx = layer.quantize("lhs", E4M3FN, x)
        qw, sw = layer.quantize("rhs", E4M3FN, w)
        ctx.save_for_backward(qx, qw)
        ctx.layer, ctx.sx, ctx.sw = layer, sx, sw
        return bf16(qx @ qw) * ((1.0 / sx) * (1.0 / sw))

    @staticmethod
    def backward(ctx, grad):
        qx, qw = ctx.saved_tensors
        layer, sx, sw = ctx.layer, ctx.sx, ctx.sw
        g = bf16(grad)
        if layer.variant == "no-e5m2":
            layer.amax["grad_output"] = amax_of(g)
            qg, sg = g, 1.0
        else:
            qg, sg = layer.quantize("grad_output", E5M2, g)
        dx = None
        if ctx.needs_input_grad[0]:
            dx = bf16(qg @ qw.t()) * ((1.0 / sg) * (1.0 / sw))
        dw = bf16(qx.t() @ qg) * ((1.0 / sx) * (1.0 / sg))
        return dx, dw, None


def mlp_model(variant):
    from mlp_step import PARAMS

    p = {name: init_param(name, shape).requires_grad_()
         for name, shape in PARAMS}
    x = init_float_arg(0, [8, 16])
    y = init_float_arg(1, [8, 4])
    layers = [Layer("fc1", variant), Layer("fc2", variant)]

    def forward():
        # Only the biases get bf16 copies; the weights are quantized from
        # their masters. fc1 quantizes the f32 input itself.
        b1, b2 = R(p["fc1.bias"]), R(p["fc2.bias"])
        h = R(FP8Linear.apply(x, p["fc1.weight"], layers[0]) + b1)
        hidden = R(torch.relu(h))
        out = R(FP8Linear.apply(hidden, p["fc2.weight"], layers[1]) + b2)
        return F.mse_loss(out, y)

    return p, PARAMS, forward, layers


def print_grads(named_params):
    """mem-run's result lines for the gradients of the last step (result
    0 is the loss, printed as the step's line)."""
    for index, (name, tensor) in enumerate(named_params, start=1):
        total, squares = summarize(tensor.grad)
        print("result %d: sum = %.9e sumsq = %.9e" % (index, total, squares))


def print_scales(step, layers):
    print("step %d scales (log2): %s" % (step, "  ".join(
        "%s %s" % (layer.name, " ".join(
            "%s=%d" % (role, round(math.log2(layer.scales[role])))
            for role in ("lhs", "rhs", "grad_output")))
        for layer in layers)), file=sys.stderr)


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--model", choices=["mlp"], required=True)
    parser.add_argument("--steps", type=int, default=None)
    parser.add_argument("--grads", action="store_true")
    parser.add_argument("--variant", default="memopt",
                        choices=["memopt", "no-e5m2", "scale-one",
                                 "current-scaling"])
    parser.add_argument("--print-scales", action="store_true")
    args = parser.parse_args()
    steps = args.steps or (1 if args.grads else 3)
    torch.set_num_threads(1)
    p, order, forward, layers = mlp_model(args.variant)
    named = [(name, p[name]) for name, _ in order]
    optimizer = torch.optim.Adam(p.values(), lr=1e-3, foreach=False)
    for step in range(1, steps + 1):
        optimizer.zero_grad()
        loss = forward()
        loss.backward()
        if args.print_scales:
            print_scales(step, layers)
        if args.grads:
            print_step(step, loss)
            if step == steps:
                print_grads(named)
        else:
            print_step(step, loss)
            optimizer.step()
        for layer in layers:
            layer.roll()
    print_params(named)


if __name__ == "__main__":
    main()
