#!/usr/bin/env python3
"""The largest batch each train-remat algorithm fits under a fixed budget:
the analog of Checkmate's VGG19 table (Jain et al., MLSys 2020: on a 16 GB
V100, checkpoint-all 167, Chen sqrt(n) 197, Chen greedy 266, optimal 289).

For each batch size (binary search), mem-gen emits the training step (SGD, as
Checkmate's), train-lifetimes places the frees, and `mem-opt
--train-remat='budget=B algorithm=A'` either meets the budget or fails.
`none` keeps every activation (checkpoint-all). Peaks are the liveness
analysis' LOAD of the step, parameters and gradients included.

Usage: max_batch.py --bin build/bin [--model vgg19] [--budget 16GiB]
"""

import argparse
import os
import subprocess
import sys
import time

ALGORITHMS = ["none", "sqrt", "layers", "greedy", "optimal", "chain", "auto"]


def fits(bindir, model, batch, budget, algorithm, time_limit, image):
    gen = subprocess.run([os.path.join(bindir, "mem-gen"), model, "--batch", str(batch),
                          "--image", str(image), "--train", "--optimizer=sgd"],
                         capture_output=True, text=True)
    if gen.returncode:
        sys.exit(f"mem-gen failed: {gen.stderr}")
    options = f"budget={budget} algorithm={algorithm}"
    if algorithm in ("optimal", "auto"):
        options += f" time-limit={time_limit}"
    out = subprocess.run([os.path.join(bindir, "mem-opt"), "--train-lifetimes",
                          f"--train-remat={options}", "-o", "/dev/null"],
                         input=gen.stdout, capture_output=True, text=True)
    return out.returncode == 0


def largest(bindir, model, budget, algorithm, time_limit, image, high):
    low = 0  # fits (batch 0 is the empty claim)
    while low + 1 < high:
        mid = (low + high) // 2
        if fits(bindir, model, mid, budget, algorithm, time_limit, image):
            low = mid
        else:
            high = mid
    return low


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--bin", required=True)
    parser.add_argument("--model", default="vgg19")
    parser.add_argument("--image", type=int, default=224)
    parser.add_argument("--budget", default="16GiB")
    parser.add_argument("--max-batch", type=int, default=1024)
    parser.add_argument("--time-limit", type=float, default=30.0)
    parser.add_argument("--algorithms", default=",".join(ALGORITHMS))
    options = parser.parse_args()
    print(f"| algorithm | largest batch ({options.model}, {options.image} px, "
          f"budget {options.budget}) | search time |")
    print("|---|---|---|")
    for algorithm in options.algorithms.split(","):
        start = time.perf_counter()
        batch = largest(options.bin, options.model, options.budget, algorithm,
                        options.time_limit, options.image, options.max_batch)
        print(f"| {algorithm} | {batch} | {time.perf_counter() - start:.0f} s |",
              flush=True)


if __name__ == "__main__":
    main()
