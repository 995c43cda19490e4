"""Exact float32 replica of test/Integration/mem-run-optimizers.mlir.

Recomputes the toy step operation by operation in the order the lowered
code runs (sequential float32 reductions in row-major order, Adam and SGD as
lib/Conversion/TrainToLinalg/StateLowering.cpp writes them), so its output
must equal mem-run's digit for digit. Run with --steps N.
"""

import argparse
import math

import numpy as np
import torch

from memrun_init import init_float_arg, init_param, print_params, print_step

f32 = np.float32


def adam(p, g, m, v, t, lr, beta1=0.9, beta2=0.999, eps=1e-8):
    bc1 = 1.0 - math.pow(beta1, t)
    bc2 = 1.0 - math.pow(beta2, t)
    step_size = f32(lr / bc1)
    bc2_sqrt = f32(math.sqrt(bc2))
    m = m + f32(1.0 - beta1) * (g - m)
    v = v * f32(beta2) + (g * g) * f32(1.0 - beta2)
    denom = np.sqrt(v) / bc2_sqrt + f32(eps)
    p = p - step_size * (m / denom)
    return p, m, v


def sgd_momentum(p, g, buf, lr, momentum):
    buf = f32(momentum) * buf + g
    return p - f32(lr) * buf, buf


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--steps", type=int, default=3)
    steps = parser.parse_args().steps
    w = init_param("w", [4, 8]).numpy()
    b = init_param("b", [8]).numpy()
    x = init_float_arg(0, [4, 8]).numpy()
    m = np.zeros_like(w)
    v = np.zeros_like(w)
    buf = np.zeros_like(b)
    for t in range(1, steps + 1):
        a = np.maximum(w, f32(0))
        loss = f32(0)
        for ai, xi in zip(a.reshape(-1), x.reshape(-1)):
            loss = f32(loss + ai * xi)
        for bi in b:
            loss = f32(loss + (bi * bi) * f32(0.5))
        g = np.where(a > 0, x, f32(0)).astype(np.float32)
        print_step(t, loss)
        w, m, v = adam(w, g, m, v, t, lr=1e-2)
        b, buf = sgd_momentum(b, b, buf, lr=0.1, momentum=0.9)
    print_params([("w", torch.from_numpy(w)), ("b", torch.from_numpy(b))])


if __name__ == "__main__":
    main()
