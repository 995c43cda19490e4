"""PyTorch version of examples/mlp_step.mlir, from mem-run's initialization.

    out  = relu(x @ W1 + b1) @ W2 + b2      x: 8x16, hidden 32, out: 8x4
    loss = mean((out - y)^2)

Weights are stored input-major ([in, out]) as in the MLIR step, so the model
multiplies by them directly (an nn.Linear weight would be their transpose).
x and y are step arguments #0 and #1, #2 is the step number. Every parameter
is trained with torch.optim.Adam (lr 1e-3, PyTorch's defaults otherwise).
Prints mem-run's output lines for --steps N.
"""

import argparse

import torch

from memrun_init import (init_float_arg, init_param, print_params,
                         print_step)

PARAMS = [
    ("fc1.weight", [16, 32]),
    ("fc1.bias", [32]),
    ("fc2.weight", [32, 4]),
    ("fc2.bias", [4]),
]


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--steps", type=int, default=3)
    steps = parser.parse_args().steps
    torch.set_num_threads(1)
    params = {name: init_param(name, shape).requires_grad_()
              for name, shape in PARAMS}
    x = init_float_arg(0, [8, 16])
    y = init_float_arg(1, [8, 4])
    optimizer = torch.optim.Adam(params.values(), lr=1e-3, foreach=False)
    for step in range(1, steps + 1):
        optimizer.zero_grad()
        hidden = torch.relu(x @ params["fc1.weight"] + params["fc1.bias"])
        out = hidden @ params["fc2.weight"] + params["fc2.bias"]
        loss = torch.nn.functional.mse_loss(out, y)
        loss.backward()
        print_step(step, loss)
        optimizer.step()
    print_params([(name, params[name]) for name, _ in PARAMS])


if __name__ == "__main__":
    main()
