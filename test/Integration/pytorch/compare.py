"""Compares two outputs in mem-run's format within a relative tolerance.

    compare.py MEMRUN_OUTPUT REFERENCE_OUTPUT --rtol 1e-5 [--atol 0]

Every number of the form `key = value` on the `step`, `result`, `param` and
`params_checksum` lines of both files is paired by line and key; the files
must hold the same lines. Two values agree when
|a - b| <= atol + rtol * max(|a|, |b|); --rtol 0 --atol 0 demands equal
printed digits. `measured_peak_bytes` is compared only when both files have
it. --ignore REGEX (repeatable) leaves out the values whose `line key`
(e.g. `param fc1.bias sum`) matches. --sum-norm-tol K compares each `sum`
that has a `sumsq` on its line by |a - b| <= K * sqrt(max(sumsq_a, sumsq_b))
instead (the sum of a tensor can cancel to far below its elements, as the
gradients of most weights at initialization do, while its rounding error
scales with the elements' norm). Prints the largest relative difference and
exits 1 on any mismatch.
"""

import argparse
import math
import re
import sys

NUMBER = r"[-+]?(?:\d+\.?\d*(?:[eE][-+]?\d+)?|inf|nan)"
LINE = re.compile(r"^(step \d+|result \S+|param \S+|params_checksum|"
                  r"measured_peak_bytes):(.*)$")
PAIR = re.compile(r"(\w+) = (" + NUMBER + r")")


def parse(path):
    """Maps (line key, value key) to the printed value, in file order."""
    values = {}
    with open(path) as f:
        for line in f:
            match = LINE.match(line.strip())
            if not match:
                continue
            head, rest = match.groups()
            if head in ("params_checksum", "measured_peak_bytes"):
                values[(head, "value")] = float(rest.strip())
                continue
            for key, value in PAIR.findall(rest):
                values[(head, key)] = float(value)
            if not PAIR.findall(rest):
                values[(head, "")] = 0.0
    return values


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("actual")
    parser.add_argument("expected")
    parser.add_argument("--rtol", type=float, required=True)
    parser.add_argument("--atol", type=float, default=0.0)
    parser.add_argument("--ignore", action="append", default=[],
                        help="regex over 'line key' of values to leave out")
    parser.add_argument("--sum-norm-tol", type=float, default=None,
                        help="compare sums against K * sqrt(sumsq)")
    args = parser.parse_args()

    actual = parse(args.actual)
    expected = parse(args.expected)
    ignored = [re.compile(pattern) for pattern in args.ignore]
    for values in (actual, expected):
        for key in [k for k in values
                    if any(p.fullmatch("%s %s" % k) for p in ignored)]:
            del values[key]
    peak = ("measured_peak_bytes", "value")
    if (peak in actual) != (peak in expected):
        actual.pop(peak, None)
        expected.pop(peak, None)

    failures = []
    missing = sorted(set(expected) - set(actual))
    extra = sorted(set(actual) - set(expected))
    for key in missing:
        failures.append("missing in %s: %s %s" % (args.actual, *key))
    for key in extra:
        failures.append("missing in %s: %s %s" % (args.expected, *key))
    if not expected:
        failures.append("no values in %s" % args.expected)

    worst = (0.0, None)
    worst_norm = (0.0, None)
    for key in expected:
        if key not in actual:
            continue
        a, b = actual[key], expected[key]
        squares = (key[0], "sumsq")
        if (args.sum_norm_tol is not None and key[1] == "sum"
                and squares in actual and squares in expected):
            norm = math.sqrt(max(actual[squares], expected[squares], 0.0))
            relative = abs(a - b) / norm if norm else abs(a - b)
            if relative > worst_norm[0]:
                worst_norm = (relative, key)
            if not abs(a - b) <= args.sum_norm_tol * norm:
                failures.append("%s %s: %.9e vs %.9e (difference %.3e of the"
                                " norm)" % (key[0], key[1], a, b, relative))
            continue
        scale = max(abs(a), abs(b))
        difference = abs(a - b)
        relative = difference / scale if scale else 0.0
        if relative > worst[0]:
            worst = (relative, key)
        if not difference <= args.atol + args.rtol * scale:
            failures.append("%s %s: %.9e vs %.9e (relative difference %.3e)"
                            % (key[0], key[1], a, b, relative))

    if worst[1]:
        print("largest relative difference: %.3e (%s %s)"
              % (worst[0], *worst[1]))
    else:
        print("largest relative difference: 0")
    if worst_norm[1]:
        print("largest sum difference relative to the norm: %.3e (%s %s)"
              % (worst_norm[0], *worst_norm[1]))
    print("compared %d values, rtol %g, atol %g"
          % (len(expected), args.rtol, args.atol)
          + (", sums %g of the norm" % args.sum_norm_tol
             if args.sum_norm_tol is not None else ""))
    if failures:
        for failure in failures:
            print("MISMATCH " + failure)
        sys.exit(1)
    print("all values agree")


if __name__ == "__main__":
    main()
