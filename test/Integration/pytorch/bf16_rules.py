"""PyTorch replica of memopt's bf16-mixed step (train-precision
mode=bf16-mixed, grads=fp32) for gpt2.py's GPT and mlp_step.py's MLP.

Float32 arithmetic rounded to bf16 wherever the lowered step stores a bf16
value, and the gradient arriving for every bf16 value rounded too (a
gradient has its value's type), as mlp_lowp.py does for pure bf16 steps:

  * each parameter is cast to bf16 once per step (its low copy); every op
    reads the copy, LayerNorm's weight and bias as the copy widened back to
    f32; each master receives the gradient of its copy, widened (so rounded
    to bf16 once), and torch.optim.Adam steps the f32 masters;
  * matmul (LowPrecisionSafe) in bf16, summing the products in f32 and
    rounding once, forward and both gradient matmuls (memopt's CPU lowering,
    memopt-widen-contraction-accumulators, and cuBLAS; the default
    --accumulate f32); --accumulate bf16 rounds after every product,
    out = round(out + round(a[.., k] * b[k, ..])), k in order (memopt's CPU
    lowering before it accumulated in f32); --accumulate torch runs the
    installed PyTorch's own CPU bf16 kernels, which in Debian's torch 1.13
    accumulate in bf16 or in f32 depending on the shapes and layouts;
  * the embedding gathers from the bf16 copy; add and bias_add
    (PromoteToWidest) of bf16 operands round once to bf16, so the residual
    stream is bf16; GeLU and ReLU compute in f32 and round once;
  * layer_norm, softmax (scale and causal mask inside), cross_entropy and
    mse_loss (KeepFP32) compute in f32 from the f32 cast of their bf16
    input; softmax's f32 output is cast to bf16 for the context matmul.

    bf16_rules.py --model gpt2|mlp [--steps N | --grads]
        [--accumulate bf16|f32|torch] [--autocast-rule RULE ...]

--autocast-rule RULE swaps one of memopt's rules for torch 1.13's CPU
autocast's (see gpt2_model); --autocast-rule all swaps all of them and
reproduces gpt2.py / mlp_step.py --autocast bf16 digit for digit.

Prints mem-run's output lines; --grads prints the loss and the parameters'
gradients (as received by the optimizer) of one step, as mem-run prints a
step differentiated with train-autodiff{optimizer=none}.
"""

import argparse
import math
import os
import sys

import torch

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from memrun_init import (init_float_arg, init_int_arg, init_param,  # noqa
                         print_params, print_step, summarize)

F = torch.nn.functional


def print_grads(loss, named_params):
    """mem-run's lines for a step returning the loss and the gradients."""
    print_step(1, loss)
    # mem-run numbers the step's results from 0; 0 is the loss.
    for index, (name, tensor) in enumerate(named_params, start=1):
        total, squares = summarize(tensor.grad)
        print("result %d: sum = %.9e sumsq = %.9e" % (index, total, squares))
    print_params(named_params)


def bf16(t):
    return t.to(torch.bfloat16).float()


class Stored(torch.autograd.Function):
    """A bf16 value: its value and its gradient are rounded to bf16."""

    @staticmethod
    def forward(ctx, t):
        return bf16(t)

    @staticmethod
    def backward(ctx, grad):
        return bf16(grad)


R = Stored.apply


def contract(a, b, accumulate):
    """a [..., M, K] @ b [..., K, N] with a bf16 result."""
    if accumulate == "f32":
        return bf16(a @ b)
    shape = torch.broadcast_shapes(a.shape[:-2], b.shape[:-2]) + (
        a.shape[-2], b.shape[-1])
    out = torch.zeros(shape)
    for k in range(a.shape[-1]):
        out = bf16(out + bf16(a[..., :, k:k + 1] * b[..., k:k + 1, :]))
    return out


class TorchMatmul(torch.autograd.Function):
    """a @ b by PyTorch's own CPU bf16 kernels, folded as torch.matmul
    folds its operands (a batched lhs times a rank-2 rhs: the lhs rows into
    one mm; otherwise bmm over the reshaped, if need be copied, operands),
    and differentiated as autograd's MmBackward / BmmBackward do (the other
    operand transposed as a view). Debian's torch 1.13 (generic BLAS)
    accumulates in bf16 when the rhs reaching mm/bmm is contiguous and in
    f32 when it is a transposed view (docs/precision-pytorch.md)."""

    @staticmethod
    def forward(ctx, a, b):
        if b.dim() == 2:
            a2 = a.reshape(-1, a.shape[-1]).bfloat16()
            b2 = b.bfloat16()
            ctx.save_for_backward(a2, b2)
            ctx.shapes = (a.shape, None)
            out = a2 @ b2
            return out.float().reshape(*a.shape[:-1], b.shape[-1])
        a3 = a.reshape(-1, *a.shape[-2:]).bfloat16()
        b3 = b.reshape(-1, *b.shape[-2:]).bfloat16()
        ctx.save_for_backward(a3, b3)
        ctx.shapes = (a.shape, b.shape)
        out = torch.bmm(a3, b3)
        return out.float().reshape(*a.shape[:-1], b.shape[-1])

    @staticmethod
    def backward(ctx, grad):
        a, b = ctx.saved_tensors
        a_shape, b_shape = ctx.shapes
        if b_shape is None:
            g = grad.reshape(-1, grad.shape[-1]).bfloat16()
            return ((g @ b.t()).float().reshape(a_shape),
                    (a.t() @ g).float())
        g = grad.reshape(-1, *grad.shape[-2:]).bfloat16()
        return (torch.bmm(g, b.transpose(1, 2)).float().reshape(a_shape),
                torch.bmm(a.transpose(1, 2), g).float().reshape(b_shape))


class TorchAddmm(torch.autograd.Function):
    """torch.addmm(bias, x, W) in bf16 as autocast runs a Conv1D / Linear
    layer: Debian's torch 1.13 starts the bf16 accumulator from the bias;
    the bias's gradient is the bf16 sum of the output's."""

    @staticmethod
    def forward(ctx, x, w, bias):
        x2 = x.reshape(-1, x.shape[-1]).bfloat16()
        w2 = w.bfloat16()
        ctx.save_for_backward(x2, w2)
        ctx.x_shape = x.shape
        out = torch.addmm(bias.bfloat16(), x2, w2)
        return out.float().reshape(*x.shape[:-1], w.shape[-1])

    @staticmethod
    def backward(ctx, grad):
        x2, w2 = ctx.saved_tensors
        g = grad.reshape(-1, grad.shape[-1]).bfloat16()
        return ((g @ w2.t()).float().reshape(ctx.x_shape),
                (x2.t() @ g).float(), g.sum(0).float())


class SoftmaxBF16(torch.autograd.Function):
    """softmax of a bf16 input in torch 1.13's CPU kernel: f32 inside, the
    output rounded to bf16; the gradient out * g - out * sum(g * out) from
    the rounded output, the sum rounded to bf16, then the result."""

    @staticmethod
    def forward(ctx, x):
        out = bf16(torch.softmax(x, -1))
        ctx.save_for_backward(out)
        return out

    @staticmethod
    def backward(ctx, grad):
        (out,) = ctx.saved_tensors
        grad = bf16(grad)
        total = bf16((grad * out).sum(-1, keepdim=True))
        return bf16(out * grad - out * total)


def _b(value):
    """A constant rounded to bf16, as a float32 tensor."""
    return bf16(torch.tensor(value))


GELU_BETA = math.sqrt(2.0) * (2.0 / math.sqrt(math.pi)) * 0.5
GELU_KAPPA = 0.044715


class GeluBF16Ops(torch.autograd.Function):
    """tanh-GeLU as torch 1.13's CPU kernel computes a bf16 tensor: in bf16
    arithmetic, every operation and constant rounded (its forward and its
    GeluBackward; memopt computes both in f32 and rounds once)."""

    @staticmethod
    def forward(ctx, x):
        ctx.save_for_backward(x)
        cube = bf16(bf16(x * x) * x)
        inner = bf16(_b(GELU_BETA) * bf16(x + bf16(_b(GELU_KAPPA) * cube)))
        return bf16(bf16(_b(0.5) * x) * bf16(1 + bf16(torch.tanh(inner))))

    @staticmethod
    def backward(ctx, grad):
        (x,) = ctx.saved_tensors
        grad = bf16(grad)
        square = bf16(x * x)
        cube = bf16(square * x)
        inner = bf16(_b(GELU_BETA) * bf16(x + bf16(_b(GELU_KAPPA) * cube)))
        tanh = bf16(torch.tanh(inner))
        left = bf16(_b(0.5) * x)
        left_derivative = bf16(_b(0.5) * bf16(1 + tanh))
        tanh_derivative = bf16(1 - bf16(tanh * tanh))
        inner_derivative = bf16(_b(GELU_BETA) * bf16(
            1 + bf16(_b(3 * GELU_KAPPA) * square)))
        right_derivative = bf16(bf16(left * tanh_derivative) * inner_derivative)
        return bf16(grad * bf16(left_derivative + right_derivative))


def make_matmul(accumulate):
    if accumulate == "torch":
        return TorchMatmul.apply

    class Matmul(torch.autograd.Function):
        """a @ b with a bf16 result; the gradient matmuls are bf16 matmuls
        too. A rank-2 rhs shared by a batched lhs gets its gradient from
        the lhs rows collapsed into one contraction, as the lowering does."""

        @staticmethod
        def forward(ctx, a, b):
            ctx.save_for_backward(a, b)
            return contract(a, b, accumulate)

        @staticmethod
        def backward(ctx, grad):
            a, b = ctx.saved_tensors
            grad = bf16(grad)
            da = contract(grad, b.transpose(-1, -2), accumulate)
            if b.dim() == 2 and a.dim() > 2:
                db = contract(a.reshape(-1, a.shape[-1]).t(),
                              grad.reshape(-1, grad.shape[-1]), accumulate)
            else:
                db = contract(a.transpose(-1, -2), grad, accumulate)
            return da, db

    return Matmul.apply


AUTOCAST_RULES = ["torch-gemm", "residual-f32", "norm-master", "softmax-bf16",
                  "bias-fused", "gelu-bf16-ops"]


def gpt2_model(accumulate, rules=()):
    """rules: the rules of torch 1.13's CPU autocast that replace memopt's
    (docs/precision-pytorch.md): torch-gemm, PyTorch's own bf16 matmul
    kernels (--accumulate torch); residual-f32, the embeddings read the f32
    masters and the residual adds stay f32 (autocast runs embedding and add
    in their inputs' type); norm-master, LayerNorm reads the f32 master weight
    and bias; softmax-bf16, scores * scale rounded to bf16 and softmax (and
    its gradient) in the bf16 input's type; bias-fused, each linear layer is
    one bf16 torch.addmm (with torch-gemm); gelu-bf16-ops, tanh-GeLU and
    its gradient in bf16 arithmetic, every operation rounded."""
    from gpt2 import CONFIG, params

    cfg = dict(CONFIG)
    b, t, c, nh = cfg["batch"], cfg["seq"], cfg["hidden"], cfg["heads"]
    v, d = cfg["vocab"], c // nh
    order = params(cfg)
    p = {name: init_param(name, shape).requires_grad_()
         for name, shape in order}
    ids = init_int_arg(0, [b, t], v)
    pos = init_int_arg(1, [b, t], cfg["positions"])
    labels = init_int_arg(2, [b, t], v)
    causal = torch.ones(t, t, dtype=torch.bool).triu(1)
    mm = make_matmul(accumulate)
    scale = 1.0 / math.sqrt(d)

    residual = (lambda t: t) if "residual-f32" in rules else R

    def forward():
        low = {name: R(tensor) for name, tensor in p.items()}
        norm = p if "norm-master" in rules else low

        def layer_norm(x, prefix):
            # residual(x): the f32 cast of the bf16 stream, whose gradient
            # is rounded to bf16 before it joins the residual branch's.
            out = F.layer_norm(residual(x), (c,), norm[prefix + ".weight"],
                               norm[prefix + ".bias"], 1e-5)
            return R(out)

        def linear(x, prefix):
            if "bias-fused" in rules:
                return TorchAddmm.apply(x, low[prefix + ".weight"],
                                        low[prefix + ".bias"])
            return R(mm(x, low[prefix + ".weight"]) + low[prefix + ".bias"])

        if "residual-f32" in rules:
            x = p["wte.weight"][ids] + p["wpe.weight"][pos]
        else:
            # The embedding's gradient of the shared bf16 table is a bf16
            # tensor of its own, then added to the LM head's.
            x = R(R(low["wte.weight"])[ids] + low["wpe.weight"][pos])
        for layer in range(cfg["layers"]):
            h = "h.%d." % layer
            qkv = linear(layer_norm(x, h + "ln_1"), h + "attn.c_attn")
            q, k, vv = [qkv[..., i * c:(i + 1) * c].reshape(b, t, nh, d)
                        .transpose(1, 2) for i in range(3)]
            scores = mm(q, k.transpose(-1, -2))
            if "softmax-bf16" in rules:
                # A bf16 tensor times a Python float: torch 1.13's CPU
                # kernel rounds the scalar to bf16 first.
                scale16 = float(bf16(torch.tensor(scale)))
                probs = SoftmaxBF16.apply(R(scores * scale16).masked_fill(
                    causal, float("-inf")))
            else:
                probs = R(torch.softmax(
                    (scores * scale).masked_fill(causal, float("-inf")), -1))
            ctx = mm(probs, vv).transpose(1, 2).reshape(b, t, c)
            x = residual(x + linear(ctx, h + "attn.c_proj"))
            fc = linear(layer_norm(x, h + "ln_2"), h + "mlp.c_fc")
            if "gelu-bf16-ops" in rules:
                act = GeluBF16Ops.apply(fc)
            else:
                act = R(F.gelu(fc, approximate="tanh"))
            x = residual(x + linear(act, h + "mlp.c_proj"))
        logits = mm(layer_norm(x, "ln_f"), low["wte.weight"].t())
        return F.cross_entropy(logits.reshape(-1, v), labels.reshape(-1))

    return p, order, forward


def mlp_model(accumulate, rules=()):
    """rules: torch-gemm and bias-fused as for the GPT (the MLP has no
    residual, LayerNorm, softmax or GeLU)."""
    from mlp_step import PARAMS

    p = {name: init_param(name, shape).requires_grad_()
         for name, shape in PARAMS}
    x = init_float_arg(0, [8, 16])
    y = init_float_arg(1, [8, 4])
    mm = make_matmul(accumulate)

    def linear(inp, low, prefix):
        if "bias-fused" in rules:
            return TorchAddmm.apply(inp, low[prefix + ".weight"],
                                    low[prefix + ".bias"])
        return R(mm(inp, low[prefix + ".weight"]) + low[prefix + ".bias"])

    def forward():
        low = {name: R(tensor) for name, tensor in p.items()}
        hidden = R(torch.relu(linear(R(x), low, "fc1")))
        out = linear(hidden, low, "fc2")
        return F.mse_loss(out, y)

    return p, PARAMS, forward


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--model", choices=["gpt2", "mlp"], required=True)
    parser.add_argument("--steps", type=int, default=3)
    parser.add_argument("--grads", action="store_true")
    parser.add_argument("--accumulate", choices=["bf16", "f32", "torch"],
                        default="f32")
    parser.add_argument("--autocast-rule", action="append", default=[],
                        choices=AUTOCAST_RULES + ["all"],
                        help="replace one of memopt's rules by torch "
                        "1.13's CPU autocast's (repeatable; all: every one, "
                        "which reproduces gpt2.py / mlp_step.py --autocast "
                        "bf16)")
    args = parser.parse_args()
    rules = set(AUTOCAST_RULES if "all" in args.autocast_rule
                else args.autocast_rule)
    if "torch-gemm" in rules:
        args.accumulate = "torch"
    if "bias-fused" in rules and args.accumulate != "torch":
        parser.error("bias-fused needs torch-gemm")
    torch.set_num_threads(1)
    p, order, forward = (gpt2_model(args.accumulate, rules)
                         if args.model == "gpt2"
                         else mlp_model(args.accumulate, rules))
    if args.grads:
        loss = forward()
        loss.backward()
        print_grads(loss, [(name, p[name]) for name, _ in order])
        return
    optimizer = torch.optim.Adam(p.values(), lr=1e-3, foreach=False)
    for step in range(1, args.steps + 1):
        optimizer.zero_grad()
        loss = forward()
        loss.backward()
        print_step(step, loss)
        optimizer.step()
    print_params([(name, p[name]) for name, _ in order])


if __name__ == "__main__":
    main()
