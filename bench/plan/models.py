#!/usr/bin/env python3
"""Arena vs LOAD for every mem-gen model's training step.

For each model: mem-gen MODEL --train | mem-opt --train-lifetimes
--train-plan-memory[=alignment=A] and the JSON report; prints one row per
model (points, LOAD, the aligned LOAD the planner aims at, the arena, the
ratios and the planning time) and checks arena / LOAD <= --max-ratio.

  bench/plan/models.py --bin build/bin              # the table in README.md
  bench/plan/models.py --bin build/bin --check      # exit 1 above the limit
  bench/plan/models.py --bin build/bin --verify     # and run train-verify-plan
                                                    # on every plan (exit 1 if
                                                    # one is rejected)

The `random` graphs have tensors of a few bytes, which 256-byte alignment
would dominate; they are planned at alignment 1 (their row says so).
"""
import argparse
import json
import os
import re
import subprocess
import sys
import tempfile
import time

MODELS = [
    "mlp", "gpt2", "gpt2-medium", "gpt2-large", "gpt2-xl", "llama",
    "llama-2-7b", "llama-2-13b", "llama-2-70b", "llama-3-8b", "mistral-7b",
    "qwen2-0.5b", "vgg11", "vgg13", "vgg16", "vgg19", "resnet18", "resnet34",
    "resnet50", "resnet101", "resnet152", "mobilenet_v2", "unet",
    "random --seed 1", "random --seed 2", "random --seed 3",
]


def run(cmd, **kwargs):
    return subprocess.run(cmd, check=True, capture_output=True, **kwargs)


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--bin", required=True, help="directory of mem-gen, mem-opt")
    parser.add_argument("--max-ratio", type=float, default=1.01)
    parser.add_argument("--check", action="store_true")
    parser.add_argument("--verify", action="store_true",
                        help="check every plan with mem-opt --train-verify-plan")
    parser.add_argument("--models", nargs="*", default=MODELS)
    args = parser.parse_args()
    memgen = os.path.join(args.bin, "mem-gen")
    memopt = os.path.join(args.bin, "mem-opt")
    print("| model | points | LOAD | aligned LOAD | arena | arena/LOAD | arena/aligned | plan s |")
    print("|---|---|---|---|---|---|---|---|")
    worst = 0.0
    failures = []
    with tempfile.TemporaryDirectory() as tmp:
        step = os.path.join(tmp, "step.mlir")
        report = os.path.join(tmp, "report.json")
        for model in args.models:
            alignment = 1 if model.startswith("random") else 256
            with open(step, "wb") as f:
                gen = run([memgen] + model.split() + ["--train"]).stdout
                f.write(run([memopt, "--train-lifetimes"], input=gen).stdout)
            start = time.perf_counter()
            planned = run([memopt, step, f"--train-plan-memory=alignment={alignment}"]).stdout
            seconds = time.perf_counter() - start
            if args.verify:
                verified = subprocess.run(
                    [memopt, "-", "--train-verify-plan", "-o", os.devnull],
                    input=planned, capture_output=True)
                if verified.returncode != 0:
                    first = verified.stderr.decode(errors="replace").strip().splitlines()
                    failures.append(f"{model}: train-verify-plan rejects the plan: "
                                    + (first[0] if first else f"exit {verified.returncode}"))
            run([memopt, "-", f"--train-memory-report=format=json output={report}",
                 "-o", os.devnull], input=planned)
            with open(report) as f:
                data = json.load(f)
            aligned = int(re.search(rb"train.load_bytes = (\d+)", planned).group(1))
            load, arena = data["load_bytes"], data["arena_bytes"]
            ratio = arena / load
            worst = max(worst, ratio)
            name = model + (" (alignment 1)" if alignment == 1 else "")
            print(f"| {name} | {data['num_points']} | {load} | {aligned} | {arena} "
                  f"| {ratio:.5f} | {arena / aligned:.5f} | {seconds:.2f} |")
            if ratio > args.max_ratio:
                failures.append(f"above the limit: {model}: arena/LOAD {ratio:.5f}")
    print(f"\n{len(args.models)} models, worst arena/LOAD {worst:.5f}")
    for failure in failures:
        print(failure)
    if (args.check or args.verify) and failures:
        sys.exit(1)
    if args.check:
        print(f"all {len(args.models)} models within {args.max_ratio}")
    if args.verify:
        print(f"all {len(args.models)} plans pass train-verify-plan")


if __name__ == "__main__":
    main()
