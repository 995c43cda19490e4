"""Budget sweep for train-remat (remat-execution.test): plans one step at
budgets from its unrematerialized peak down to where no candidate fits and
checks that every result meets its budget and that the peak never rises as
the budget falls. Prints one line per budget."""
import argparse
import re
import subprocess
import sys

parser = argparse.ArgumentParser()
parser.add_argument("--bin", required=True)
parser.add_argument("step")
parser.add_argument("--points", type=int, default=8)
# The guarantee is the keep-set algorithms' (auto picks the cheapest
# candidate within the budget, whose peak need not be monotone).
parser.add_argument("--algorithm", default="greedy")
args = parser.parse_args()


def remat(budget):
    run = subprocess.run([args.bin + "/mem-opt", args.step,
                          "--train-remat=budget=%d algorithm=%s" % (budget, args.algorithm)],
                         capture_output=True, text=True)
    if run.returncode:
        return None
    attrs = dict(re.findall(r"train\.remat_(\w+) = (\d+)", run.stdout))
    return int(attrs["peak_after"]), int(attrs["flops"]), int(attrs["peak_before"])


full = remat(2**62)
before = full[2]
previous = None
feasible = 0
for k in range(args.points):
    budget = before - (before * k) // (2 * args.points)
    result = remat(budget)
    if result is None:
        print("budget %d: infeasible" % budget)
        continue
    peak, flops, _ = result
    feasible += 1
    print("budget %d: peak %d, recompute %d FLOPs" % (budget, peak, flops))
    if peak > budget:
        sys.exit("peak %d above the budget %d" % (peak, budget))
    if previous is not None and peak > previous:
        sys.exit("peak rose from %d to %d as the budget fell" % (previous, peak))
    previous = peak
print("monotone over %d feasible budgets" % feasible)
