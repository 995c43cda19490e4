"""Prints what `mem-run --steps 1` prints for a step without optimizer that
returns copies of its float arguments: one `result` line per argument, then
the parameters, computed from memrun_init.py alone.

    init_reference.py --arg 0:3x5:f32 --param fc1.weight:16x32:bf16 ...

Shapes are `AxB...` (empty for a 0-d tensor: `scale:f64`); types f32, bf16,
f16, f64. Arguments are listed in result order.
"""

import argparse

import torch

from memrun_init import (init_float_arg, init_param, print_params,
                         summarize)

DTYPES = {"f32": torch.float32, "bf16": torch.bfloat16,
          "f16": torch.float16, "f64": torch.float64}


def parse_spec(spec):
    parts = spec.split(":")
    name, dtype = parts[0], DTYPES[parts[-1]]
    shape = [int(d) for d in parts[1].split("x")] if len(parts) == 3 else []
    return name, shape, dtype


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--arg", action="append", default=[])
    parser.add_argument("--param", action="append", default=[])
    args = parser.parse_args()
    print("step 1:")
    for result, spec in enumerate(args.arg):
        index, shape, dtype = parse_spec(spec)
        total, squares = summarize(init_float_arg(int(index), shape, dtype))
        print("result %d: sum = %.9e sumsq = %.9e" % (result, total, squares))
    params = []
    for spec in args.param:
        name, shape, dtype = parse_spec(spec)
        params.append((name, init_param(name, shape, dtype)))
    print_params(params)


if __name__ == "__main__":
    main()
