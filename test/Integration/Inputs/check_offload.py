"""Checks a mem-run of an offloaded step against the same step without
offload: check_offload.py BASE OFFLOADED.

  * every line but the byte counts is identical (losses and parameter sums
    digit for digit: the copies move values, they do not change them);
  * in the offloaded run, each measured byte count equals its prediction:
    the device's peak and persistent bytes, the host's peak and persistent
    bytes, on every rank;
  * the host holds something, and the device's persistent bytes went down
    by what the host's persistent bytes hold.
Prints one summary line.
"""
import re
import sys

BYTES = re.compile(r"(?:rank \d+: )?(measured|predicted)_(\w+)_bytes: (\d+)")


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
    return results, measured, predicted


def main():
    base, base_measured, _ = split(sys.argv[1])
    off, measured, predicted = split(sys.argv[2])
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
    host = measured.get(("all", "host_persistent"), 0)
    if host <= 0:
        sys.exit("error: nothing persists in host memory")
    moved = base_measured[("all", "persistent")] - measured[("all", "persistent")]
    if moved != host:
        sys.exit(f"error: the device's persistent bytes went down by {moved}, "
                 f"the host holds {host}")
    ranks = {key[0] for key in measured if key[0] != "all"}
    print(f"identical results ({len(off)} lines); measured == predicted: device peak "
          f"{measured[('all', 'peak')]}, host peak {measured[('all', 'host_peak')]}, "
          f"host persistent {host}" + (f", on {len(ranks)} ranks" if ranks else ""))


main()
