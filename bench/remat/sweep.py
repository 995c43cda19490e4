#!/usr/bin/env python3
"""Budget sweeps of train-remat on published models, every algorithm side by
side, and the largest batch each algorithm fits under a fixed budget.

For each model (a mem-gen training step with SGD, so activations matter):
the step's peak P (LOAD) and the floor are
measured; budgets run from 90% of the way between the floor (the least peak
any algorithm reaches) and P down to the floor. Each algorithm runs as
`mem-opt --train-remat='budget=B algorithm=A'`; the script records whether it
met the budget, the recomputed FLOPs as a share of the step's FLOPs (the
report's `remat.overhead`), the peak after, and the wall time of mem-opt.

Usage: sweep.py --bin build/bin [--models vgg16,...] [--quick] [--out FILE]
Writes a markdown table (stdout, and --out when given).
"""

import argparse
import json
import math
import os
import subprocess
import sys
import tempfile
import time

MODELS = {
    # name: mem-gen arguments. Published sizes (the analysis does not depend
    # on the batch's cost); batches where activations dominate the peak.
    "vgg16": ["vgg16", "--batch", "32"],
    "vgg19": ["vgg19", "--batch", "32"],
    "mobilenet_v2": ["mobilenet_v2", "--batch", "32"],
    "resnet50": ["resnet50", "--batch", "32"],
    "unet": ["unet", "--batch", "4"],
    "gpt2": ["gpt2", "--batch", "4"],
}
ALGORITHMS = ["layers", "sqrt", "selective", "greedy", "optimal", "chain"]


def run(cmd, stdin=None):
    return subprocess.run(cmd, input=stdin, capture_output=True, text=True)


def generate(bindir, args, path):
    gen = run([os.path.join(bindir, "mem-gen")] + args + ["--train", "--optimizer=sgd"])
    if gen.returncode:
        sys.exit(f"mem-gen failed: {gen.stderr}")
    # Keep locations: layers (and the optimal segments) read layer names.
    opt = run([os.path.join(bindir, "mem-opt"), "--train-lifetimes", "-mlir-print-debuginfo",
               "-o", path], gen.stdout)
    if opt.returncode:
        sys.exit(f"mem-opt failed: {opt.stderr}")


def proven(err):
    """Whether optimal's remark says its answer is proven for its model: the
    MILP's own plan proven optimal, or greedy's keep-set with the MILP's
    proof that no plan of its model is cheaper."""
    return ("train-remat: optimal: optimal over" in err or
            ("train-remat: optimal: greedy's keep-set" in err and
             "(proven)" in err))


def report(bindir, path, passes):
    """Runs passes then the JSON report; (report dict or None, stderr, seconds)."""
    start = time.perf_counter()
    out = run([os.path.join(bindir, "mem-opt"), path] + passes +
              ["--train-memory-report=format=json", "-o", "/dev/null"])
    seconds = time.perf_counter() - start
    if out.returncode:
        return None, out.stderr, seconds
    return json.loads(out.stdout), out.stderr, seconds


def sweep(bindir, name, args, steps, time_limit, algorithms):
    rows = []
    with tempfile.TemporaryDirectory() as tmp:
        path = os.path.join(tmp, name + ".mlir")
        generate(bindir, args, path)
        base, _, _ = report(bindir, path, [])
        peak = base["load_bytes"]
        # The floor: the least peak any algorithm reaches without a budget
        # (greedy then runs until no drop lowers the peak further).
        floor = peak
        for algorithm in ("greedy", "sqrt", "layers"):
            result, _, _ = report(bindir, path, [f"--train-remat=algorithm={algorithm}"])
            if result is not None:
                floor = min(floor, result["load_bytes"])
        for step in range(steps):
            fraction = 0.9 - step * 0.9 / max(1, steps - 1)
            budget = int(floor + fraction * (peak - floor))
            row = {"model": name, "budget": budget, "fraction": fraction,
                   "peak": peak, "floor": floor}
            for algorithm in algorithms:
                if algorithm == "selective" and name != "gpt2":
                    continue
                options = f"budget={budget} algorithm={algorithm}"
                if algorithm == "optimal":
                    options += f" time-limit={time_limit}"
                result, err, seconds = report(
                    bindir, path, [f"--train-remat={options}"])
                entry = {"seconds": seconds}
                if result is None:
                    entry["met"] = False
                else:
                    remat = result["remat"]
                    entry.update(met=True, overhead=remat["overhead"],
                                 peak=remat["peak_after"])
                    if algorithm == "optimal":
                        entry["optimal"] = proven(err)
                row[algorithm] = entry
            rows.append(row)
    return rows


def exact_comparison(bindir, seeds, ops, steps, time_limit):
    """greedy vs optimal at op granularity (segments above the op count) on
    small random training steps (mem-gen random), where the MILP proves
    optimality for its model."""
    rows = []
    with tempfile.TemporaryDirectory() as tmp:
        for seed in seeds:
            path = os.path.join(tmp, f"random{seed}.mlir")
            generate(bindir, ["random", "--seed", str(seed), "--ops", str(ops)], path)
            base, _, _ = report(bindir, path, [])
            peak = base["load_bytes"]
            greedy, _, _ = report(bindir, path, ["--train-remat=algorithm=greedy"])
            floor = greedy["load_bytes"] if greedy else peak
            for step in range(steps):
                fraction = 0.9 - step * 0.9 / max(1, steps - 1)
                budget = int(floor + fraction * (peak - floor))
                row = {"model": f"random seed {seed}", "budget": budget,
                       "fraction": fraction, "peak": peak, "floor": floor}
                for algorithm, extra in (("greedy", ""),
                                         ("optimal", f" segments=1000 time-limit={time_limit}")):
                    result, err, seconds = report(
                        bindir, path, [f"--train-remat=budget={budget} algorithm={algorithm}{extra}"])
                    entry = {"seconds": seconds, "met": result is not None}
                    if result is not None:
                        entry.update(overhead=result["remat"]["overhead"],
                                     peak=result["remat"]["peak_after"])
                        if algorithm == "optimal":
                            entry["optimal"] = proven(err)
                    row[algorithm] = entry
                rows.append(row)
    return rows


def geomean_ratio(rows):
    ratios = []
    for row in rows:
        g, o = row.get("greedy"), row.get("optimal")
        if g and o and g["met"] and o["met"] and o.get("optimal") and o["overhead"] > 0:
            ratios.append(g["overhead"] / o["overhead"])
    if not ratios:
        return None, 0
    return math.exp(sum(math.log(r) for r in ratios) / len(ratios)), len(ratios)


def fmt(entry):
    if entry is None:
        return "n/a"
    if not entry["met"]:
        return f"-- ({entry['seconds']:.1f} s)"
    tag = "" if entry.get("optimal", True) else "*"
    return f"{100 * entry['overhead']:.1f}%{tag} ({entry['seconds']:.1f} s)"


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--bin", required=True)
    parser.add_argument("--models", default=",".join(MODELS))
    parser.add_argument("--steps", type=int, default=5,
                        help="budgets per model, evenly from 90%% of the way from the floor "
                        "(the least peak any algorithm reaches) to the peak, down to the floor")
    parser.add_argument("--time-limit", type=float, default=30.0)
    parser.add_argument("--algorithms", default=",".join(ALGORITHMS),
                        help="the algorithms to run, comma-separated")
    parser.add_argument("--exact-seeds", default="1,2,3,4",
                        help="mem-gen random seeds for the op-granularity comparison ('' to skip)")
    parser.add_argument("--exact-ops", type=int, default=10)
    parser.add_argument("--out")
    parser.add_argument("--json")
    options = parser.parse_args()
    algorithms = options.algorithms.split(",")
    for algorithm in algorithms:
        if algorithm not in ALGORITHMS:
            parser.error(f"unknown algorithm '{algorithm}'; expected some of "
                         + ",".join(ALGORITHMS))

    lines = ["| model | budget (position between floor and peak) | " +
             " | ".join(algorithms) + " |",
             "|---|---|" + "---|" * len(algorithms)]
    all_rows = []
    for name in filter(None, options.models.split(",")):
        rows = sweep(options.bin, name, MODELS[name], options.steps, options.time_limit,
                     algorithms)
        all_rows += rows
        for row in rows:
            cells = [fmt(row.get(a)) for a in algorithms]
            lines.append(f"| {name} | {row['budget']} ({100 * row['fraction']:.0f}%) | " +
                         " | ".join(cells) + " |")
        print(f"{name}: peak {rows[0]['peak']}, floor {rows[0]['floor']}", file=sys.stderr)
        print("\n".join(lines[-len(rows):]), file=sys.stderr, flush=True)
    # greedy vs optimal where optimal proved optimality in its model and both met.
    summary = ""
    geo, count = geomean_ratio(all_rows)
    if geo is not None:
        summary = (f"\ngreedy / optimal (group models refined from 8 segments, segments=0) recompute overhead, "
                   f"geometric mean over {count} budgets where both met the budget and "
                   f"optimal was proven optimal in its model: {geo:.3f}\n")
    if options.exact_seeds:
        seeds = [int(x) for x in options.exact_seeds.split(",")]
        exact = exact_comparison(options.bin, seeds, options.exact_ops, options.steps,
                                 options.time_limit)
        all_rows += exact
        summary += ("\nAt op granularity (mem-gen random --ops "
                    f"{options.exact_ops}, optimal with segments=1000):\n\n"
                    "| step | budget (position between floor and peak) | greedy | optimal |\n"
                    "|---|---|---|---|\n")
        for row in exact:
            summary += (f"| {row['model']} | {row['budget']} ({100 * row['fraction']:.0f}%) | "
                        f"{fmt(row['greedy'])} | {fmt(row['optimal'])} |\n")
        geo, count = geomean_ratio(exact)
        if geo is not None:
            summary += (f"\ngreedy / optimal recompute overhead at op granularity, geometric "
                        f"mean over {count} budgets where both met the budget and optimal "
                        f"was proven optimal: {geo:.3f}\n")
    text = "\n".join(lines) + "\n" + summary
    print(text)
    if options.out:
        with open(options.out, "w") as f:
            f.write(text)
    if options.json:
        with open(options.json, "w") as f:
            json.dump(all_rows, f, indent=1)


if __name__ == "__main__":
    main()
