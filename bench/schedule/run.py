#!/usr/bin/env python3
"""train-schedule on published models and on small random steps.

Three tables (markdown, stdout):

1. Per model and optimizer: the step's peak (LOAD of the liveness analysis)
   before and after `--train-schedule`, the heuristic kept, the gradient and
   temporary (workspace included) bytes live at the peak before and after
   (the JSON report's `by_class`), and the median wall time of the pass
   (mem-opt with and without it, 3 runs each).
2. The largest batch whose peak fits 16 GiB and 80 GiB, before and after
   (binary search over the batch, SGD as in Checkmate's tables).
3. The gap of the best heuristic to the exact schedule (dynamic programming
   over all orders) on random steps small enough for it.

Usage: run.py --bin build/bin [--quick]
"""

import argparse
import json
import os
import statistics
import subprocess
import sys
import time

MODELS = {
    # name: mem-gen arguments (published shapes).
    "gpt2 (4 layers, batch 4)": ["gpt2", "--layers", "4", "--batch", "4"],
    "llama-2-7b (2 layers, seq 4096)": ["llama-2-7b", "--layers", "2", "--batch", "1"],
    "resnet18 (batch 32)": ["resnet18", "--batch", "32"],
    "resnet50 (batch 32)": ["resnet50", "--batch", "32"],
    "mobilenet_v2 (batch 32)": ["mobilenet_v2", "--batch", "32"],
    "unet (batch 4)": ["unet", "--batch", "4"],
    "vgg16 (batch 32)": ["vgg16", "--batch", "32"],
}
BATCH_MODELS = {
    # name: mem-gen arguments without the batch.
    "gpt2": ["gpt2"],
    "llama-2-7b (2 layers)": ["llama-2-7b", "--layers", "2"],
    "resnet18": ["resnet18"],
    "resnet50": ["resnet50"],
    "mobilenet_v2": ["mobilenet_v2"],
    "unet": ["unet"],
    "vgg16": ["vgg16"],
}
GIB = 1 << 30


def run(cmd, stdin=None):
    result = subprocess.run(cmd, input=stdin, capture_output=True, text=True)
    if result.returncode:
        sys.exit(f"{' '.join(cmd)} failed:\n{result.stderr}")
    return result


def generate(bindir, args, optimizer):
    return run([os.path.join(bindir, "mem-gen"), *args, "--train",
                f"--optimizer={optimizer}"]).stdout


def report(bindir, step, schedule):
    passes = ["--train-lifetimes"]
    if schedule:
        passes += ["--train-schedule", "--train-lifetimes"]
    out = run([os.path.join(bindir, "mem-opt"), *passes,
               "--train-memory-report=format=json", "-o", os.devnull], step)
    data = json.loads(out.stdout)
    heuristic = "program"
    for line in out.stderr.splitlines():
        if "train-schedule:" in line:
            heuristic = line.split("train-schedule: ")[1].split(":")[0]
    return data, heuristic


def pass_time(bindir, step, schedule, repeats):
    passes = ["--train-lifetimes"] + (["--train-schedule"] if schedule else [])
    times = []
    for _ in range(repeats):
        start = time.perf_counter()
        run([os.path.join(bindir, "mem-opt"), *passes, "-o", os.devnull], step)
        times.append(time.perf_counter() - start)
    return statistics.median(times)


def mib(n):
    return f"{n / (1 << 20):.1f}"


def models_table(bindir, quick):
    print("| model | optimizer | peak before (MiB) | after (MiB) | change | heuristic "
          "| gradients at peak before / after (MiB) | temporaries at peak before / after (MiB) "
          "| pass time (s) |")
    print("|---|---|---|---|---|---|---|---|---|")
    for name, args in MODELS.items():
        for optimizer in (["sgd"] if quick else ["sgd", "adam"]):
            step = generate(bindir, args, optimizer)
            before, _ = report(bindir, step, False)
            after, heuristic = report(bindir, step, True)
            repeats = 1 if quick else 3
            seconds = max(0.0, pass_time(bindir, step, True, repeats) -
                          pass_time(bindir, step, False, repeats))
            change = 100.0 * (after["load_bytes"] - before["load_bytes"]) / before["load_bytes"]
            print(f"| {name} | {optimizer} | {mib(before['load_bytes'])} | "
                  f"{mib(after['load_bytes'])} | {change:+.1f}% | {heuristic} | "
                  f"{mib(before['by_class']['gradient'])} / {mib(after['by_class']['gradient'])} | "
                  f"{mib(before['by_class']['temporary'])} / {mib(after['by_class']['temporary'])} | "
                  f"{seconds:.2f} |", flush=True)


def peak(bindir, args, batch, schedule):
    step = generate(bindir, [*args, "--batch", str(batch)], "sgd")
    data, _ = report(bindir, step, schedule)
    return data["load_bytes"]


def largest_batch(bindir, args, budget, schedule, high=4096):
    if peak(bindir, args, 1, schedule) > budget:
        return 0
    low = 1
    while low * 2 <= high and peak(bindir, args, low * 2, schedule) <= budget:
        low *= 2
    top = min(low * 2, high + 1)
    while low + 1 < top:
        mid = (low + top) // 2
        if peak(bindir, args, mid, schedule) <= budget:
            low = mid
        else:
            top = mid
    return low


def batch_table(bindir, quick):
    print()
    print("| model (SGD) | largest batch under 16 GiB: before / after | under 80 GiB: before / after |")
    print("|---|---|---|")
    models = list(BATCH_MODELS.items())[:2] if quick else BATCH_MODELS.items()
    for name, args in models:
        cells = []
        for budget in (16 * GIB, 80 * GIB):
            cells.append(f"{largest_batch(bindir, args, budget, False)} / "
                         f"{largest_batch(bindir, args, budget, True)}")
        print(f"| {name} | {cells[0]} | {cells[1]} |", flush=True)


def schedule_attr(bindir, step, options):
    out = run([os.path.join(bindir, "mem-opt"), f"--train-schedule={options}"], step)
    text = out.stdout
    key = "load_after = "
    return int(text[text.index(key) + len(key):].split(" ")[0])


def gap_table(bindir, quick):
    print()
    print("| random steps (mem-gen random) | steps | exact found lower | mean gap | max gap |")
    print("|---|---|---|---|---|")
    seeds = range(20 if quick else 100)
    for ops in (2, 3, 4):
        for optimizer in ("sgd", "adam"):
            gaps = []
            for seed in seeds:
                step = run([os.path.join(bindir, "mem-gen"), "random", "--ops", str(ops),
                            "--seed", str(seed), "--train", f"--optimizer={optimizer}"]).stdout
                count = step.count("\n    ")  # ops of the body, roughly
                if count > 22:
                    continue
                try:
                    exact = schedule_attr(bindir, step, "heuristic=exact exact-limit=22")
                except SystemExit:
                    continue  # more than 22 ops
                best = schedule_attr(bindir, step, "heuristic=best exact-limit=0")
                gaps.append((best - exact) / exact)
            if not gaps:
                continue
            lower = sum(1 for g in gaps if g > 0)
            print(f"| {ops} forward ops, {optimizer} | {len(gaps)} | {lower} | "
                  f"{100 * statistics.mean(gaps):.2f}% | {100 * max(gaps):.2f}% |", flush=True)


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--bin", required=True)
    parser.add_argument("--quick", action="store_true",
                        help="SGD only, one timing run, fewer batches and seeds")
    options = parser.parse_args()
    models_table(options.bin, options.quick)
    batch_table(options.bin, options.quick)
    gap_table(options.bin, options.quick)


if __name__ == "__main__":
    main()
