"""PyTorch version of test/Integration/mem-run-optimizers.mlir.

    loss = sum(relu(w) * x) + 0.5 * sum(b * b)

w (4x8) is trained with torch.optim.Adam (lr 1e-2), b (8) with torch.optim.SGD
(lr 0.1, momentum 0.9), from mem-run's initialization; prints mem-run's lines.
"""

import argparse

import torch

from memrun_init import (init_float_arg, init_param, print_params,
                         print_step)


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--steps", type=int, default=3)
    steps = parser.parse_args().steps
    torch.set_num_threads(1)
    w = init_param("w", [4, 8]).requires_grad_()
    b = init_param("b", [8]).requires_grad_()
    x = init_float_arg(0, [4, 8])
    adam = torch.optim.Adam([w], lr=1e-2, foreach=False)
    sgd = torch.optim.SGD([b], lr=0.1, momentum=0.9, foreach=False)
    for step in range(1, steps + 1):
        adam.zero_grad()
        sgd.zero_grad()
        loss = (torch.relu(w) * x).sum() + 0.5 * (b * b).sum()
        loss.backward()
        print_step(step, loss)
        adam.step()
        sgd.step()
    print_params([("w", w), ("b", b)])


if __name__ == "__main__":
    main()
