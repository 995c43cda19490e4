#!/usr/bin/env python3
"""Differential test of memopt's exactness claims on random training steps.

For every case (a seed of `mem-gen random` with a shape: number of ops,
element type, optimizer) the step is generated once and run by `mem-run
--measure-peak --steps 2` in several variants:

  plain              the step as generated
  plan               train-plan-memory (+ train-verify-plan): runs on one arena
  remat-<alg>        train-remat{algorithm=<alg>} (+ train-verify-step), for
                     layers, sqrt, selective, greedy (no budget: down to its
                     floor), greedy-mid, optimal and chain (a budget halfway
                     between greedy's floor and the step's peak, so that they
                     have to recompute)
  remat-<alg>+plan   the same, then train-plan-memory

and checked:

  * every variant prints the losses, results and parameter checksums of
    `plain`, digit for digit (remat and planning must not change results);
  * unplanned variants: measured_peak_bytes == predicted_peak_bytes;
  * planned variants: measured_peak_bytes <= arena_bytes (the step allocates
    nothing outside its arena), and == unless --allow-below;
  * no variant leaks (mem-run's warning) or fails, except a remat algorithm
    that reports the budget infeasible or the step not a chain (skipped).

With --precision MODE every case is generated in fp32 and lowered by
train-precision{mode=MODE} (mem-gen --precision) before the variants run, so
the same checks hold for the mixed-precision step (fp8 included; fp16-mixed: returned
gradients become Adam, loss scaling needs an optimizer).

Each failure prints one line: seed, shape, variant, the numbers and a command
that reproduces it; the exit status is 1 when anything failed.

  scripts/differential.py --bin build/bin --ci          # the lit test's set
  scripts/differential.py --bin build/bin --ci --ci-cases 3  # its first 3
  scripts/differential.py --bin build/bin --seeds 1000  # seeds 0..999
  scripts/differential.py --bin build/bin --ci --precision bf16-mixed
"""

import argparse
import concurrent.futures
import os
import re
import shlex
import subprocess
import sys
import tempfile
import time

# Shapes: ops, element type, optimizer. A seed's shape is picked by its
# number (different moduli, so that the combinations vary).
OPS = [20, 8, 40, 20, 12]
DTYPES = ["f32", "bf16", "f32", "f16"]
OPTIMIZERS = ["adam", "sgd", "adamw", "none", "adam", "sgd", "adamw"]

# The CI set: the probe's seeds and shapes, plus seeds covering every element
# type and optimizer (see shape_of). (seed, ops or None for the seed's own).
# Seed 7 (ops 40, f16): cross_entropy on a transposed logits view (a copy
# outside the arena while the lowering collapsed the logits into rows).
# The first three (--ci-cases 3, the short test tier's subset) cover the
# three element types and three kinds of update: seed 30 f32 AdamW, seed 3
# f16 with returned gradients (Adam under fp16-mixed), seed 1 bf16 SGD.
CI_CASES = [(30, 20), (3, None), (1, None), (4, 40), (9, 40), (2, None),
            (5, None), (6, None), (7, None), (10, None)]

KEEP_SETS = ["layers", "sqrt", "selective", "greedy"]

# A run that has not exited after this long hangs (a crash handler stuck after
# memory corruption): a failure, not an outcome that depends on the machine's
# speed (a variant takes well under a second).
HANG_SECONDS = 300
BUDGETED = ["greedy-mid", "optimal", "chain"]


def run_tool(cmd, **kwargs):
    """subprocess.run, tried again a few times when the binary cannot be
    started (e.g. while a build relinks it)."""
    for attempt in range(5):
        try:
            return subprocess.run(cmd, capture_output=True, text=True,
                                  **kwargs)
        except OSError:
            if attempt == 4:
                raise
            time.sleep(10)


def shape_of(seed, ops=None, precision=None):
    shape = {
        "ops": ops if ops is not None else OPS[seed % len(OPS)],
        "dtype": DTYPES[seed % len(DTYPES)],
        "optimizer": OPTIMIZERS[seed % len(OPTIMIZERS)],
        "precision": precision,
    }
    if precision:
        shape["dtype"] = "f32"
        if precision == "fp16-mixed" and shape["optimizer"] == "none":
            shape["optimizer"] = "adam"
    return shape


def describe(shape):
    text = "ops=%d dtype=%s optimizer=%s" % (shape["ops"], shape["dtype"],
                                             shape["optimizer"])
    if shape["precision"]:
        text += " precision=" + shape["precision"]
    return text


class Runner:
    def __init__(self, args):
        self.bin = args.bin
        self.steps = args.steps
        self.opt_level = args.opt_level
        self.allow_below = args.allow_below
        self.workdir = args.workdir
        self.precision = args.precision

    def tool(self, name):
        return os.path.join(self.bin, name)

    def gen_command(self, seed, shape, out):
        cmd = [self.tool("mem-gen"), "random", "--seed", str(seed), "--ops",
               str(shape["ops"]), "--dtype", shape["dtype"], "--optimizer",
               shape["optimizer"], "--train", "-o", out]
        if shape["precision"]:
            cmd.append("--precision=" + shape["precision"])
        return cmd

    def run_command(self, step, pipeline):
        # Random f16 steps can overflow to NaN; the variants must still
        # print the same digits (NaN included), so they run on.
        cmd = [self.tool("mem-run"), step, "--steps", str(self.steps),
               "--measure-peak", "--opt-level=%d" % self.opt_level,
               "--allow-nonfinite"]
        if pipeline:
            cmd.append("--pipeline=" + pipeline)
        return cmd

    def repro(self, seed, shape, pipeline):
        step = "/tmp/random-%d.mlir" % seed
        gen = " ".join(shlex.quote(a)
                       for a in self.gen_command(seed, shape, step))
        run = " ".join(shlex.quote(a)
                       for a in self.run_command(step, pipeline))
        return gen + " && " + run

    def remat_peaks(self, step, options):
        """(peak_before, peak_after) of train-remat{options}, or the error."""
        run = run_tool(
            [self.tool("mem-opt"), step, "--train-remat=" + options])
        if run.returncode:
            return None, run.stderr.strip().splitlines()[-1:] or ["failed"]
        attrs = dict(re.findall(r"train\.remat_(\w+) = (\d+)", run.stdout))
        return (int(attrs["peak_before"]), int(attrs["peak_after"])), None

    def variants(self, step):
        """[(name, pipeline, planned)] and the variants left out: no budget
        below the step's peak that the algorithm meets (or not a chain)."""
        verify = "train-verify-step"
        plan = "train-plan-memory,train-verify-plan"
        out = [("plain", "", False),
               ("plan", "func.func(%s)" % plan, True)]
        remats = [(alg, "algorithm=" + alg) for alg in KEEP_SETS]
        skipped = []
        peaks, _ = self.remat_peaks(step, "algorithm=greedy")
        if peaks and peaks[1] < peaks[0]:
            before, floor = peaks
            # Budgets below the step's peak, tightest first: the first one
            # the algorithm meets by recomputing something is used.
            budgets = [(before + floor) // 2,
                       before - max(1, (before - floor) // 8), before - 1]
            remats.append(("greedy-mid",
                           "algorithm=greedy budget=%d" % budgets[0]))
            # optimal under a work limit, never the wall clock, so that a
            # loaded machine picks the same schedule.
            for name, extra in (("optimal", " segments=6 time-limit=0 "
                                 "node-limit=100000"), ("chain", "")):
                for budget in budgets:
                    options = "algorithm=%s budget=%d%s" % (name, budget,
                                                            extra)
                    peaks, _ = self.remat_peaks(step, options)
                    if peaks and peaks[1] < peaks[0]:
                        remats.append((name, options))
                        break
                else:
                    skipped.append("remat-" + name)
        for name, options in remats:
            remat = "train-remat{%s}" % options
            out.append(("remat-" + name,
                        "func.func(%s,%s)" % (remat, verify), False))
            out.append(("remat-%s+plan" % name,
                        "func.func(%s,%s)" % (remat, plan), True))
        return out, skipped

    def run_case(self, case):
        seed, ops = case
        shape = shape_of(seed, ops, self.precision)
        failures, skipped = [], []
        with tempfile.TemporaryDirectory(dir=self.workdir) as tmp:
            step = os.path.join(tmp, "step.mlir")
            gen = run_tool(self.gen_command(seed, shape, step))
            if gen.returncode:
                failures.append(self.failure(
                    seed, shape, "mem-gen", "mem-gen failed: " +
                    gen.stderr.strip(), ""))
                return seed, shape, failures, skipped, 0
            reference = None
            ran = 0
            variants, skipped = self.variants(step)
            for name, pipeline, planned in variants:
                try:
                    run = run_tool(self.run_command(step, pipeline),
                                   timeout=HANG_SECONDS)
                except subprocess.TimeoutExpired:
                    failures.append(self.failure(
                        seed, shape, name, "mem-run hung (no exit in %d s)" %
                        HANG_SECONDS, pipeline))
                    continue
                if run.returncode:
                    if re.search(r"found no schedule within the budget|"
                                 r"not a chain|no candidate", run.stderr):
                        skipped.append(name)
                        continue
                    lines = run.stderr.strip().splitlines() or ["?"]
                    first = next((l for l in lines if "error" in l or
                                  "Assertion" in l or "free" in l), lines[-1])
                    failures.append(self.failure(
                        seed, shape, name, "mem-run failed (status %d): %s" %
                        (run.returncode, first.strip()), pipeline))
                    continue
                ran += 1
                numbers = dict(
                    (k, int(v)) for k, v in re.findall(
                        r"^(measured_peak_bytes|predicted_peak_bytes|"
                        r"arena_bytes): (\d+)$", run.stdout, re.M))
                results = [line for line in run.stdout.splitlines()
                           if "_bytes:" not in line]
                if reference is None:
                    reference = results
                elif results != reference:
                    diff = next((f"'{a}' vs '{b}'" for a, b in
                                 zip(reference, results) if a != b),
                                "%d vs %d lines" % (len(reference),
                                                    len(results)))
                    failures.append(self.failure(
                        seed, shape, name, "results differ from plain: " +
                        diff, pipeline))
                if "warning" in run.stderr or "leak" in run.stderr:
                    failures.append(self.failure(
                        seed, shape, name, "stderr: " +
                        run.stderr.strip().replace("\n", " | "), pipeline))
                measured = numbers.get("measured_peak_bytes")
                if planned:
                    arena = numbers.get("arena_bytes")
                    if arena is None or measured is None:
                        failures.append(self.failure(
                            seed, shape, name, "no arena_bytes / measured "
                            "peak printed", pipeline))
                    elif measured > arena or (measured != arena and
                                              not self.allow_below):
                        failures.append(self.failure(
                            seed, shape, name,
                            "measured %d %s arena %d (%+d)" %
                            (measured, ">" if measured > arena else "<",
                             arena, measured - arena), pipeline))
                else:
                    predicted = numbers.get("predicted_peak_bytes")
                    if measured is None or predicted is None:
                        failures.append(self.failure(
                            seed, shape, name, "no peaks printed", pipeline))
                    elif measured != predicted:
                        failures.append(self.failure(
                            seed, shape, name,
                            "measured %d != predicted %d (%+d)" %
                            (measured, predicted, measured - predicted),
                            pipeline))
        return seed, shape, failures, skipped, ran

    def failure(self, seed, shape, variant, what, pipeline):
        return "FAIL seed=%d %s variant=%s: %s\n  repro: %s" % (
            seed, describe(shape), variant, what,
            self.repro(seed, shape, pipeline))


def main():
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--bin", required=True,
                        help="directory of mem-gen, mem-opt and mem-run")
    mode = parser.add_mutually_exclusive_group(required=True)
    mode.add_argument("--ci", action="store_true",
                      help="the fixed CI set (CI_CASES)")
    mode.add_argument("--seeds", type=int,
                      help="seeds --first .. --first + N - 1, each with its "
                           "own shape")
    mode.add_argument("--seed", type=int, action="append",
                      help="one seed (repeatable)")
    parser.add_argument("--ci-cases", type=int, default=None, metavar="N",
                        help="with --ci: the first N cases of the CI set only "
                             "(a small deterministic subset)")
    parser.add_argument("--first", type=int, default=0)
    parser.add_argument("--ops", type=int,
                        help="with --seed/--seeds: this many ops instead of "
                             "the seed's")
    parser.add_argument("--steps", type=int, default=2)
    parser.add_argument("--jobs", type=int, default=2)
    parser.add_argument("--opt-level", type=int, default=0,
                        help="mem-run's LLVM optimization level (results do "
                             "not depend on it; 0 compiles fastest)")
    parser.add_argument("--allow-below", action="store_true",
                        help="planned: accept measured < arena")
    parser.add_argument("--workdir", default=None,
                        help="where the temporary steps go")
    parser.add_argument("--precision", default=None,
                        choices=["bf16-mixed", "fp16-mixed", "bf16-pure", "fp8"],
                        help="generate in fp32 and lower every case with "
                             "train-precision{mode=...}")
    parser.add_argument("-v", "--verbose", action="store_true",
                        help="one line per case")
    args = parser.parse_args()
    if args.workdir:
        os.makedirs(args.workdir, exist_ok=True)

    if args.ci_cases is not None and not args.ci:
        parser.error("--ci-cases needs --ci")
    if args.ci_cases is not None and not 1 <= args.ci_cases <= len(CI_CASES):
        parser.error("--ci-cases must be between 1 and %d" % len(CI_CASES))
    if args.ci:
        cases = CI_CASES[:args.ci_cases]
    elif args.seed:
        cases = [(s, args.ops) for s in args.seed]
    else:
        cases = [(s, args.ops) for s in range(args.first,
                                               args.first + args.seeds)]
    runner = Runner(args)
    failed_cases = 0
    failures_total = 0
    runs = 0
    skipped_total = 0
    with concurrent.futures.ThreadPoolExecutor(max_workers=args.jobs) as pool:
        for seed, shape, failures, skipped, ran in pool.map(
                runner.run_case, cases):
            runs += ran
            skipped_total += len(skipped)
            if failures:
                failed_cases += 1
                failures_total += len(failures)
                for line in failures:
                    print(line, flush=True)
            if args.verbose:
                print("seed=%d %s: %d variants ran, %d failed%s" % (
                    seed, describe(shape), ran, len(failures),
                    ", skipped " + " ".join(skipped) if skipped else ""),
                    flush=True)
    print("differential: %d cases, %d runs, %d skipped (infeasible budget or "
          "not a chain), %d failures in %d cases" %
          (len(cases), runs, skipped_total, failures_total, failed_cases))
    return 1 if failures_total else 0


if __name__ == "__main__":
    sys.exit(main())
