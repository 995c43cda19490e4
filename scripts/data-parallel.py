#!/usr/bin/env python3
"""Makes a training step data-parallel in the simplest way, for testing the
NCCL path until train-shard exists: every gradient is averaged over a 1-D
grid `@dp` of --size processes (`shard.all_reduce ... reduction = average`)
right before the optimizer update that reads it. Inputs are not split: a
run of N processes with the same inputs computes what one process computes
(the average of N equal gradients), which is what bench/gpu/check.sh
compares.

Usage: scripts/data-parallel.py STEP.mlir [--size N] [-o OUT.mlir]
"""
import argparse
import re
import sys

# train.adam/adamw/sgd %param, %grad, ... : T_param, T_grad, ...
UPDATE = re.compile(
    r"^(?P<indent>\s*)train\.(?P<op>adam|adamw|sgd) (?P<param>%[\w.$-]+), "
    r"(?P<grad>%[\w.$-]+)(?P<rest>.*?) : (?P<ptype>tensor<[^>]*>), "
    r"(?P<gtype>tensor<[^>]*>)")


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("step")
    parser.add_argument("--size", type=int, default=1,
                        help="processes in the grid (default 1)")
    parser.add_argument("-o", "--output", default="-")
    args = parser.parse_args()
    if args.size < 1:
        parser.error("--size must be at least 1")
    try:
        with open(args.step) as f:
            lines = f.read().splitlines()
    except OSError as e:
        sys.exit(f"data-parallel.py: cannot read {args.step}: {e.strerror}")

    grid = f"shard.grid @dp(shape = {args.size})"
    # Inside an explicit module (as mem-gen writes), else at the top.
    has_module = any(re.match(r"^module\b.*\{\s*$", line) for line in lines)
    out = [] if has_module else [grid]
    count = 0
    for line in lines:
        if has_module and re.match(r"^module\b.*\{\s*$", line):
            out.append(line)
            out.append("  " + grid)
            has_module = False
            continue
        m = UPDATE.match(line)
        if m:
            grad = m["grad"]
            reduced = f"%dp_grad{count}"
            count += 1
            out.append(f"{m['indent']}{reduced} = shard.all_reduce {grad} on @dp "
                       f"grid_axes = [0] reduction = average : {m['gtype']} -> {m['gtype']}")
            start, end = m.span("grad")
            line = line[:start] + reduced + line[end:]
        out.append(line)
    if count == 0:
        sys.exit(f"data-parallel.py: {args.step} has no train.adam, train.adamw or "
                 "train.sgd update (run mem-gen with --train)")
    text = "\n".join(out) + "\n"
    if args.output == "-":
        sys.stdout.write(text)
    else:
        with open(args.output, "w") as f:
            f.write(text)


if __name__ == "__main__":
    main()
