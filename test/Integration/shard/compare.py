"""Compares a multi-process run of a sharded step with the one-process run
of the whole step: compare.py WHOLE SHARDED [PARAM_RTOL] [--loss-rtol=R].

Checks, from mem-run's output:
  * the losses, to 1e-6 relative (R with --loss-rtol: a bf16 step, whose
    collectives round partial sums that one process never rounds);
  * every parameter's sum and sum of squares (mem-run sums a split
    parameter over the processes' parts), to 1e-5 relative; a sum
    relative to the larger of itself and the parameter's 2-norm, since a
    sum can be near zero;
  * when the sharded run measured its peak: on every rank, the measured
    peak equals the predicted one, or for a step planned by
    train-plan-memory its arena (the planned peak, with the buffers the
    step returns).
"""
import math
import re
import sys

LOSS = re.compile(r"step (\d+): loss = (\S+)")
PARAM = re.compile(r"param (\S+): sum = (\S+) sumsq = (\S+)")
RANK = re.compile(r"rank (\d+): measured_peak_bytes: (\d+) predicted_peak_bytes: (\d+)"
                  r"(?: arena_bytes: (\d+))?")


def read(path):
    losses, params, ranks = [], {}, []
    with open(path) as f:
        for line in f:
            line = line.strip()
            if m := LOSS.fullmatch(line):
                losses.append(float(m.group(2)))
            elif m := PARAM.fullmatch(line):
                params[m.group(1)] = (float(m.group(2)), float(m.group(3)))
            elif m := RANK.fullmatch(line):
                # A planned step's prediction is its arena.
                planned = m.group(4) is not None
                predicted = m.group(4) if planned else m.group(3)
                ranks.append((int(m.group(1)), int(m.group(2)), int(predicted),
                              planned))
    return losses, params, ranks


options = [a for a in sys.argv[1:] if a.startswith("--")]
arguments = [a for a in sys.argv[1:] if not a.startswith("--")]
loss_rtol = 1e-6
for option in options:
    if not option.startswith("--loss-rtol="):
        sys.exit(f"compare.py: unknown option {option}")
    loss_rtol = float(option[len("--loss-rtol="):])
whole, sharded = read(arguments[0]), read(arguments[1])
param_rtol = float(arguments[2]) if len(arguments) > 2 else 1e-5
errors = []
if not whole[0] or len(whole[0]) != len(sharded[0]):
    errors.append(f"expected as many losses: {len(whole[0])} vs {len(sharded[0])}")
worst_loss = 0.0
for step, (a, b) in enumerate(zip(whole[0], sharded[0]), 1):
    error = abs(a - b) / abs(a)
    worst_loss = max(worst_loss, error)
    if not error <= loss_rtol:
        errors.append(f"step {step}: loss {b:.9e} vs {a:.9e} ({error:.2e} relative)")
if set(whole[1]) != set(sharded[1]):
    errors.append(f"different parameters: {sorted(set(whole[1]) ^ set(sharded[1]))}")
worst_param = 0.0
for name, (sum_a, sq_a) in whole[1].items():
    if name not in sharded[1]:
        continue
    sum_b, sq_b = sharded[1][name]
    scale = max(abs(sum_a), math.sqrt(sq_a), 1e-30)
    errors_here = [abs(sq_a - sq_b) / max(sq_a, 1e-30), abs(sum_a - sum_b) / scale]
    worst_param = max(worst_param, *errors_here)
    if not max(errors_here) <= param_rtol:
        errors.append(f"param {name}: sum {sum_b:.9e} sumsq {sq_b:.9e} vs "
                      f"{sum_a:.9e} {sq_a:.9e}")
for rank, measured, predicted, _ in sharded[2]:
    if measured != predicted:
        errors.append(f"rank {rank}: measured peak {measured} != predicted "
                      f"(or planned) {predicted}")
for error in errors:
    print("error:", error)
if errors:
    sys.exit(1)
print(f"same training: {len(whole[0])} losses (worst {worst_loss:.1e} relative), "
      f"{len(whole[1])} parameters (worst {worst_param:.1e}), "
      f"{len(sharded[2])} ranks with measured == "
      + ("planned arena" if any(r[3] for r in sharded[2]) else "predicted peak"))
