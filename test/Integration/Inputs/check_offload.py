"""Checks a mem-run of an offloaded step against the same step without
offload: check_offload.py [--activations | --accumulation] BASE OFFLOADED.

  * every line but the byte counts is identical (losses and parameter sums
    digit for digit: the copies move values, they do not change them);
  * in the offloaded run, each measured byte count equals its prediction:
    the device's peak and persistent bytes, the host's peak and persistent
    bytes, on every rank (for a planned step, the device's peak is its
    arena, arena_bytes, and the host's its host arena, host_arena_bytes);
  * the host holds something, and the device's persistent bytes went down
    by what the host's persistent bytes hold (with --accumulation, gradient
    accumulation's steps, by at most that: the device keeps its copies of
    the weights across micro-batches, and the host their masters); with --activations (train-remat
    offloading activations), nothing persists on the host, the device's
    persistent bytes are unchanged, and the host's peak is above 0 and the
    device's peak below the base's.
Prints one summary line.
"""
import re
import sys

BYTES = re.compile(r"(?:rank \d+: )?(measured|predicted)_(\w+)_bytes: (\d+)")
ARENA = re.compile(r"(?:^| )(host_)?arena_bytes: (\d+)")


def split(path):
    results, measured, predicted = [], {}, {}
    with open(path) as f:
        for line in f:
            line = line.rstrip("\n")
            if "_bytes: " not in line:
                results.append(line)
                continue
            rank = line.split(":")[0] if line.startswith("rank ") else "all"
            for kind, what, value in BYTES.findall(line):
                (measured if kind == "measured" else predicted)[(rank, what)] = int(value)
            # A planned step (train-plan-memory): the device allocates its
            # arena, and the host its host arena (printed after the
            # liveness' predictions, which they replace): that is what each
            # peak must measure.
            for host, value in ARENA.findall(line):
                predicted[(rank, "host_peak" if host else "peak")] = int(value)
    return results, measured, predicted


def check_activations(base_measured, measured, lines):
    """The checks of --activations; prints the summary line."""
    if measured.get(("all", "host_persistent"), 0) != 0:
        sys.exit("error: activation offload left something persistent on the host")
    if measured[("all", "persistent")] != base_measured[("all", "persistent")]:
        sys.exit("error: the device's persistent bytes changed")
    host_peak = measured.get(("all", "host_peak"), 0)
    if host_peak <= 0:
        sys.exit("error: nothing was offloaded to the host")
    peak, base_peak = measured[("all", "peak")], base_measured[("all", "peak")]
    if peak >= base_peak:
        sys.exit(f"error: the device peak did not go down: {base_peak} -> {peak}")
    print(f"identical results ({lines} lines); measured == predicted: device peak "
          f"{base_peak} -> {peak}, host peak {host_peak}")


def main():
    args = sys.argv[1:]
    activations = args[0] == "--activations"
    if activations:
        args = args[1:]
    accumulation = args[0] == "--accumulation"
    if accumulation:
        args = args[1:]
    base, base_measured, _ = split(args[0])
    off, measured, predicted = split(args[1])
    if base != off:
        for a, b in zip(base, off):
            if a != b:
                sys.exit(f"error: results differ: '{a}' vs '{b}'")
        sys.exit(f"error: results differ in length: {len(base)} vs {len(off)} lines")
    for key, value in measured.items():
        if key not in predicted:
            continue
        if predicted[key] != value:
            sys.exit(f"error: {key[0]} {key[1]}: measured {value}, predicted {predicted[key]}")
    if activations:
        check_activations(base_measured, measured, len(off))
        return
    host = measured.get(("all", "host_persistent"), 0)
    if host <= 0:
        sys.exit("error: nothing persists in host memory")
    moved = base_measured[("all", "persistent")] - measured[("all", "persistent")]
    # Under gradient accumulation the device keeps its copies of the weights
    # across micro-batches (train.refresh): the host holds what left the
    # device and those copies' masters, the device those copies and what
    # never left (a loss scaler's state).
    kept = measured[("all", "persistent")] if accumulation else 0
    if not moved <= host <= moved + kept:
        sys.exit(f"error: the device's persistent bytes went down by {moved}"
                 + (f" (it keeps {kept})" if accumulation else "")
                 + f", the host holds {host}")
    ranks = {key[0] for key in measured if key[0] != "all"}
    print(f"identical results ({len(off)} lines); measured == predicted: device peak "
          f"{measured[('all', 'peak')]}, host peak {measured[('all', 'host_peak')]}, "
          f"host persistent {host}" + (f", on {len(ranks)} ranks" if ranks else ""))


main()
