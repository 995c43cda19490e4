"""PyTorch reference for a 16-bit `mem-gen mlp --dtype bf16|f16 --train` step
(mlp-lowp.test): Linear layers with [in, out] weights and bias, ReLU between
them, mean cross-entropy; Adam (lr 1e-3, PyTorch's defaults otherwise).

The arithmetic is float32 with a rounding to the 16-bit type wherever a
16-bit value is stored: after every forward op (x @ W, + b, relu, each an
op of its own), after every gradient op of the backward pass (the gradient
arriving for each stored value, and each parameter's gradient). The loss is
computed in float32 from the 16-bit logits and stays float32. Rounding
points that are memopt's semantics rather than PyTorch's:
  * a matmul sums its products in float32 and rounds once, as cuBLAS does
    (memopt's CPU lowering: memopt-widen-contraction-accumulators; the
    default, --accumulate f32); --accumulate 16 rounds every partial sum,
    k in order: out = round(out + round(a[:, k] * b[k, :])) (memopt's CPU
    lowering before it summed in float32);
  * train.adam runs in the parameter's type, with moments of that type (as
    mem-gen declares them), one rounding per arithmetic operation and the
    constants (1 - beta1, beta2, lr / (1 - beta1^t), ...) rounded to it,
    the first moment updated by torch 2's lerp.

Inputs from mem-run's documented initialization (memrun_init.py): step
argument #0 is x (16-bit, rounded once from double), #1 the labels in
[0, classes), #2 the step number.

    mlp_lowp.py --dtype bf16 --batch 16 --hidden 64 --layers 3 --classes 10
        [--steps N | --grads] [--accumulate 16|f32] [--no-round]

--grads prints the loss and the parameters' gradients of one step, as
mem-run prints a step made by `mem-gen --train --optimizer=none`.

--no-round leaves out the roundings (plain float32 from the same 16-bit
start): a wrong reference, which the test checks the comparison rejects.
"""

import argparse

import torch

from memrun_init import (init_float_arg, init_int_arg, init_param,
                         print_params, print_step, summarize)

BETA1, BETA2, EPS, LR = 0.9, 0.999, 1e-8, 1e-3

DTYPES = {"bf16": torch.bfloat16, "f16": torch.float16}


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--dtype", choices=sorted(DTYPES), required=True)
    parser.add_argument("--batch", type=int, required=True)
    parser.add_argument("--hidden", type=int, required=True)
    parser.add_argument("--layers", type=int, required=True)
    parser.add_argument("--classes", type=int, required=True)
    parser.add_argument("--steps", type=int, default=3)
    parser.add_argument("--grads", action="store_true")
    parser.add_argument("--accumulate", choices=["16", "f32"], default="f32")
    parser.add_argument("--no-round", action="store_true")
    args = parser.parse_args()
    torch.set_num_threads(1)
    dtype = DTYPES[args.dtype]

    def round16(t):
        if args.no_round:
            return t
        return t.to(dtype).float()

    class Stored(torch.autograd.Function):
        """A 16-bit tensor between two ops: its value, and the gradient that
        arrives for it, are rounded to the 16-bit type."""

        @staticmethod
        def forward(ctx, t):
            return round16(t)

        @staticmethod
        def backward(ctx, grad):
            return round16(grad)

    def matmul16(a, b):
        """a @ b accumulated in the 16-bit type: for k = 0, 1, ...:
        out = round(out + round(a[:, k] * b[k, :]))."""
        out = torch.zeros(a.shape[0], b.shape[1])
        for k in range(a.shape[1]):
            out = round16(out + round16(a[:, k:k + 1] * b[k:k + 1, :]))
        return out

    class Matmul16(torch.autograd.Function):
        """A matmul with both gradient matmuls accumulated the same way."""

        @staticmethod
        def forward(ctx, a, b):
            ctx.save_for_backward(a, b)
            return matmul16(a, b)

        @staticmethod
        def backward(ctx, grad):
            a, b = ctx.saved_tensors
            return matmul16(grad, b.t()), matmul16(a.t(), grad)

    matmul = Matmul16.apply if args.accumulate == "16" else torch.matmul

    def adam(p, m, v, step):
        """Adam in the parameter type, one rounding per operation (states
        of the parameter's type); the first moment by torch 2's lerp."""
        c = lambda value: round16(torch.tensor(value))
        bias1 = 1.0 - BETA1 ** step
        bias2 = 1.0 - BETA2 ** step
        step_size = c(LR / bias1)
        bias2_sqrt = c(bias2 ** 0.5)
        g = p.grad
        m = round16(m + round16(c(1.0 - BETA1) * round16(g - m)))
        v = round16(round16(v * c(BETA2))
                    + round16(round16(g * g) * c(1.0 - BETA2)))
        denom = round16(round16(round16(v.sqrt()) / bias2_sqrt) + c(EPS))
        update = round16(step_size * round16(m / denom))
        p.copy_(round16(p - update))
        return m, v

    order = []
    width = args.hidden
    for layer in range(1, args.layers + 1):
        out = args.classes if layer == args.layers else args.hidden
        order += [("fc%d.weight" % layer, [width, out]),
                  ("fc%d.bias" % layer, [out])]
        width = out
    params = {name: init_param(name, shape, dtype).float().requires_grad_()
              for name, shape in order}
    x = init_float_arg(0, [args.batch, args.hidden], dtype).float()
    labels = init_int_arg(1, [args.batch], args.classes)
    moments = {name: (torch.zeros(shape), torch.zeros(shape))
               for name, shape in order}

    def loss_and_grads():
        for p in params.values():
            p.grad = None
        h = x
        for layer in range(1, args.layers + 1):
            h = Stored.apply(matmul(h, params["fc%d.weight" % layer]))
            h = Stored.apply(h + params["fc%d.bias" % layer])
            if layer != args.layers:
                h = Stored.apply(torch.relu(h))
        loss = torch.nn.functional.cross_entropy(h, labels)
        loss.backward()
        with torch.no_grad():
            for p in params.values():
                p.grad = round16(p.grad)
        return loss

    if args.grads:
        print_step(1, loss_and_grads())
        # mem-run numbers the step's results from 0; 0 is the loss.
        for index, (name, _) in enumerate(order, start=1):
            total, squares = summarize(params[name].grad)
            print("result %d: sum = %.9e sumsq = %.9e" % (index, total,
                                                          squares))
        print_params([(name, params[name]) for name, _ in order])
        return

    for step in range(1, args.steps + 1):
        print_step(step, loss_and_grads())
        with torch.no_grad():
            for name, p in params.items():
                moments[name] = adam(p, *moments[name], step)
    print_params([(name, params[name]) for name, _ in order])


if __name__ == "__main__":
    main()
