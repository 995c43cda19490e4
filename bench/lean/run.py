#!/usr/bin/env python3
"""Before and after the memory-lean work (attention in tiles of query rows,
gather-form pooling and convolution input gradients, train-schedule, the
faster greedy remat and `optimal` seeded by it): the peak, the temporaries
and scratch at the peak, what `auto` remat recomputes to meet a budget and
how long it takes, and the largest batch that fits 16 GiB and 80 GiB.

"Before" is a build of the commit before that work (f08c30a; build it with
bench/lean/build-before.sh), "after" is this tree's build. Both generate the
same mem-gen models (SGD, as in Checkmate's tables) and measure the peak the
way each version's pipeline gives it:

* peak: LOAD of the step as mem-gen writes it, with explicit lifetimes
  (before: program order; after: `--train-schedule` first, as
  memopt-pipeline runs it);
* remat: the largest batch `--train-remat='budget=B algorithm=greedy'`
  meets (after: on the scheduled step).

The first table takes each model at one batch: the peak and the
temporaries (scratch included) live at it, then `--train-remat` with the
default algorithm (`auto`) at 75% of the peak before: the recompute FLOPs as
a share of the step's and the pass time (median of --repeats runs). The
second searches the largest batch: it doubles the batch from 1, then
bisects, up to --max-batch.

Usage: run.py --before-bin /tmp/pre19/build/bin --bin build/bin [--quick]
Prints a markdown table.
"""

import argparse
import json
import os
import statistics
import subprocess
import sys
import time

STEPS = {
    # name: mem-gen arguments.
    "gpt2 (4 layers, batch 4)": ["gpt2", "--layers", "4", "--batch", "4"],
    "llama-2-7b (2 layers, seq 4096, batch 1)": ["llama-2-7b", "--layers", "2",
                                                 "--batch", "1"],
    "resnet18 (batch 32)": ["resnet18", "--batch", "32"],
    "resnet50 (batch 32)": ["resnet50", "--batch", "32"],
    "mobilenet_v2 (batch 32)": ["mobilenet_v2", "--batch", "32"],
    "unet (batch 4)": ["unet", "--batch", "4"],
    "vgg16 (batch 32)": ["vgg16", "--batch", "32"],
}
MODELS = {
    # name: mem-gen arguments without the batch (gpt2: 12 layers, sequence
    # 1024; llama-2-7b: 2 of its layers, sequence 4096).
    "gpt2": ["gpt2"],
    "llama-2-7b": ["llama-2-7b", "--layers", "2"],
    "resnet18": ["resnet18"],
    "resnet50": ["resnet50"],
    "mobilenet_v2": ["mobilenet_v2"],
    "unet": ["unet"],
    "vgg16": ["vgg16"],
}
GIB = 1 << 30


def run(cmd, stdin=None, check=True):
    result = subprocess.run(cmd, input=stdin, capture_output=True, text=True)
    if check and result.returncode:
        sys.exit(f"{' '.join(cmd)} failed:\n{result.stderr}")
    return result


def generate(bindir, args):
    return run([os.path.join(bindir, "mem-gen"), *args, "--train",
                "--optimizer=sgd"]).stdout


def step_text(bindir, args, batch):
    return generate(bindir, [*args, "--batch", str(batch)])


def passes(after):
    # As memopt-pipeline runs them: the schedule first, then the frees placed
    # in the scheduled order.
    return (["--train-schedule"] if after else []) + ["--train-lifetimes"]


def fits(bindir, after, args, batch, budget, remat):
    step = step_text(bindir, args, batch)
    if not remat:
        return report(bindir, after, step)["load_bytes"] <= budget
    out = run([os.path.join(bindir, "mem-opt"), *passes(after),
               f"--train-remat=budget={budget} algorithm=greedy", "-o", os.devnull],
              step, check=False)
    return out.returncode == 0


def report(bindir, after, step):
    """The JSON report of the step after the passes."""
    out = run([os.path.join(bindir, "mem-opt"), *passes(after),
               "--train-memory-report=format=json", "-o", os.devnull], step)
    return json.loads(out.stdout)


def mib(n):
    return f"{n / (1 << 20):.1f}"


def steps_table(options):
    print("| model (SGD) | peak before / after (MiB) | temporaries at the peak "
          "before / after (MiB) | auto remat at 75% of the peak before: "
          "recompute before / after | remat time before / after (s) |")
    print("|---|---|---|---|---|")
    for name, args in STEPS.items():
        cells = []
        data = {}
        for after in (False, True):
            bindir = options.bin if after else options.before_bin
            step = generate(bindir, args)
            data[after] = (step, report(bindir, after, step))
        budget = data[False][1]["load_bytes"] * 3 // 4
        cells.append(f"{mib(data[False][1]['load_bytes'])} / "
                     f"{mib(data[True][1]['load_bytes'])}")
        cells.append(f"{mib(data[False][1]['by_class']['temporary'])} / "
                     f"{mib(data[True][1]['by_class']['temporary'])}")
        recompute = []
        seconds = []
        for after in (False, True):
            bindir = options.bin if after else options.before_bin
            times = []
            overhead = None
            for _ in range(options.repeats):
                start = time.perf_counter()
                out = run([os.path.join(bindir, "mem-opt"), *passes(after),
                           f"--train-remat=budget={budget}",
                           "--train-memory-report=format=json", "-o", os.devnull],
                          data[after][0], check=False)
                times.append(time.perf_counter() - start)
                if out.returncode == 0:
                    remat = json.loads(out.stdout)["remat"]
                    overhead = f"{100.0 * remat['overhead']:.1f}% ({remat['algorithm']})"
                else:
                    overhead = "no fit"
            recompute.append(overhead)
            seconds.append(f"{statistics.median(times):.2f}")
        cells.append(" / ".join(recompute))
        cells.append(" / ".join(seconds))
        print(f"| {name} | " + " | ".join(cells) + " |", flush=True)
    print()


def largest_batch(bindir, after, args, budget, remat, high):
    if not fits(bindir, after, args, 1, budget, remat):
        return 0
    low = 1
    while low * 2 <= high and fits(bindir, after, args, low * 2, budget, remat):
        low *= 2
    top = min(low * 2, high + 1)
    while low + 1 < top:
        mid = (low + top) // 2
        if fits(bindir, after, args, mid, budget, remat):
            low = mid
        else:
            top = mid
    return low


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--before-bin", required=True,
                        help="bin directory of the build before the work")
    parser.add_argument("--bin", required=True, help="bin directory of this build")
    parser.add_argument("--models", default=",".join(MODELS))
    parser.add_argument("--max-batch", type=int, default=4096)
    parser.add_argument("--repeats", type=int, default=3,
                        help="runs per remat timing (the median is printed)")
    parser.add_argument("--quick", action="store_true",
                        help="no step table; 16 GiB only, no remat columns")
    options = parser.parse_args()
    if not options.quick:
        steps_table(options)
    budgets = [16 * GIB] if options.quick else [16 * GIB, 80 * GIB]
    header = "| model (SGD) |"
    rule = "|---|"
    for budget in budgets:
        gib = budget // GIB
        header += f" peak <= {gib} GiB: before / after |"
        rule += "---|"
        if not options.quick:
            header += f" greedy remat, {gib} GiB: before / after |"
            rule += "---|"
    print(header)
    print(rule)
    for name in options.models.split(","):
        args = MODELS[name]
        cells = []
        for budget in budgets:
            for remat in ([False] if options.quick else [False, True]):
                before = largest_batch(options.before_bin, False, args, budget, remat,
                                       options.max_batch)
                after = largest_batch(options.bin, True, args, budget, remat,
                                      options.max_batch)
                cells.append(f"{before} / {after}")
        print(f"| {name} | " + " | ".join(cells) + " |", flush=True)


if __name__ == "__main__":
    main()
