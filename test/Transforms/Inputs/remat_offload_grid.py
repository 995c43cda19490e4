"""train-remat with and without offload over a grid of budgets:
remat_offload_grid.py MEM-OPT STEP.mlir N.

The budgets: N from the step's peak down to recomputation's floor (greedy's
lowest peak), then 1, 2 and 3% under the floor. At each budget, greedy alone
and greedy with offload=true. Fails unless, at every budget:
  * a run that succeeds meets the budget (train.remat_peak_after);
  * offload meets every budget greedy alone meets;
  * where both meet it, offload recomputes no more FLOPs.
Prints one summary line: budgets met by each, and those only offload met.
"""
import re
import subprocess
import sys

mem_opt, step, n = sys.argv[1], sys.argv[2], int(sys.argv[3])


def remat(budget, offload):
    """(peak, flops) of the rewrite, or None when the pass fails."""
    options = f"budget={budget} algorithm=greedy" + (" offload=true" if offload else "")
    run = subprocess.run([mem_opt, step, f"--train-remat={options}", "-o", "-"],
                         capture_output=True, text=True)
    if run.returncode != 0:
        if "no candidate" not in run.stderr:
            sys.exit(f"error: budget {budget}: {run.stderr.strip()}")
        return None, run.stderr
    peak = int(re.search(r"train\.remat_peak_after = (\d+)", run.stdout).group(1))
    flops = int(re.search(r"train\.remat_flops = (\d+)", run.stdout).group(1))
    return (peak, flops), run.stderr


_, text = remat(1, True)
keep = int(re.search(r"keep: peak (\d+)", text).group(1))
floor = int(re.search(r"recompute \(greedy\): peak (\d+)", text).group(1))
budgets = [keep - (keep - floor) * k // n for k in range(1, n + 1)]
budgets += [floor * p // 100 for p in (99, 98, 97)]
met = {False: 0, True: 0}
only_offload = 0
for budget in budgets:
    alone, _ = remat(budget, False)
    offloaded, _ = remat(budget, True)
    for name, result in (("greedy", alone), ("offload", offloaded)):
        if result and result[0] > budget:
            sys.exit(f"error: {name} at {budget}: peak {result[0]} over the budget")
    if alone and not offloaded:
        sys.exit(f"error: at {budget} greedy meets the budget and offload does not")
    if alone and offloaded and offloaded[1] > alone[1]:
        sys.exit(f"error: at {budget} offload recomputes {offloaded[1]} FLOPs, greedy {alone[1]}")
    met[False] += alone is not None
    met[True] += offloaded is not None
    only_offload += offloaded is not None and alone is None
print(f"{len(budgets)} budgets: greedy met {met[False]}, offload met {met[True]} "
      f"({only_offload} below what greedy reaches); offload never recomputed more")
