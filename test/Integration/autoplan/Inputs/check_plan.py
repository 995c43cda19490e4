"""Checks that a plan mem-autoplan chose fits when run.

Usage: check_plan.py PLAN.json STEP.mlir MEMRUN.txt

PLAN.json is `mem-autoplan --json` (its first plan is the one written with
-o to STEP.mlir); MEMRUN.txt is `mem-run STEP.mlir --measure-peak` (under
mpiexec for several processes). For every process:
  * the measured peak of the step's own allocations equals what the plan
    predicts for them: the arena less the parameters and states (which live
    in globals), plus the 64-byte loss the step returns;
  * that peak plus the measured parameters and optimizer states stays
    within the plan's per-device peak (plus the returned loss), and that
    peak within the budget. (The plan places the step's inputs in its arena
    too; mem-run also keeps its own copy of them in globals, which the
    check leaves out.)
A pipelined plan (`pp` above 1) has one function, and arena, per stage;
process r runs stage r mod pp, and is checked against that stage's arena.
With the optimizer on the host, each process's measured host peak equals
its host arena. Prints one `ok` line per process (and one `host ok` line
per process with host memory).
"""
import json
import re
import sys

plan_path, step_path, run_path = sys.argv[1:4]
document = json.load(open(plan_path))
plan = document["plans"][0]
budget = document["budget_bytes"]
step = open(step_path).read()
# One arena per function: a pipelined plan has one function per stage, and
# process r runs stage r mod pp (the stages are the grid's last axis).
arenas = [int(a) for a in re.findall(r"train\.arena_bytes = (\d+)", step)]
persistents = [int(p) for p in re.findall(r"train\.persistent_bytes = (\d+)", step)]
arena, persistent = max(arenas), persistents[arenas.index(max(arenas))]
stages = plan.get("pp", 1)
run = open(run_path).read()


def fail(message):
    sys.exit("check_plan.py: " + message)


if plan["peak_bytes"] != arena:
    fail("the plan's peak %d is not the step's arena %d" % (plan["peak_bytes"], arena))
if arena > budget:
    fail("the arena %d exceeds the budget %d" % (arena, budget))

ranks = re.findall(r"rank (\d+): measured_peak_bytes: (\d+) predicted_peak_bytes: \d+ arena_bytes: (\d+)", run)
if not ranks:
    # One process: mem-run prints the numbers without a rank prefix.
    peak = re.search(r"^measured_peak_bytes: (\d+)$", run, re.M).group(1)
    lowered = re.search(r"^arena_bytes: (\d+)$", run, re.M).group(1)
    ranks = [("0", peak, lowered)]
persistent_measured = int(re.search(r"^measured_persistent_bytes: (\d+)$", run, re.M).group(1))
for rank, peak, lowered in ranks:
    peak, lowered = int(peak), int(lowered)
    stage = int(rank) % stages if stages > 1 else 0
    arena, persistent = arenas[stage], persistents[stage]
    # The loss the step returns is allocated on its own: 64 bytes above the
    # arena, or none where it arrives after the arena is freed (the first
    # stage of a pipeline receives it last).
    expected = arena - persistent + 64
    if peak != lowered or peak not in (expected, expected - 64):
        fail("rank %s: measured %d, lowered arena %d, predicted %d" % (rank, peak, lowered, expected))
    # mem-run measures the persistent bytes of rank 0's program; another
    # stage's are its IR's (train.persistent_bytes).
    total = peak + (persistent_measured if stage == 0 else persistent)
    if total > arena + 64:
        fail("rank %s: %d bytes measured in all, above the plan's %d" % (rank, total, arena))
    print("rank %s ok: measured %d == predicted %d; %d in all <= plan %d (+ 64-byte loss) <= budget %d"
          % (rank, peak, lowered, total, arena, budget))

# The host (the optimizer on the host): each process's measured host peak is
# its host arena.
hosts = re.findall(r"rank (\d+): measured_host_peak_bytes: (\d+) predicted_host_peak_bytes: \d+ host_arena_bytes: (\d+)", run)
if not hosts:
    peak = re.search(r"^measured_host_peak_bytes: (\d+)$", run, re.M)
    lowered = re.search(r"^host_arena_bytes: (\d+)$", run, re.M)
    hosts = [("0", peak.group(1), lowered.group(1))] if peak and lowered else []
for rank, peak, lowered in hosts:
    if int(peak) != int(lowered):
        fail("rank %s: measured host peak %s, host arena %s" % (rank, peak, lowered))
    print("rank %s host ok: measured %s == host arena %s" % (rank, peak, lowered))
