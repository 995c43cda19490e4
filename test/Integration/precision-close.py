"""Checks that the losses mem-run printed for a lowered step stay within a
relative tolerance of the fp32 losses: compare.py REFERENCE LOWERED RTOL."""
import re
import sys


def losses(path):
    with open(path) as f:
        return [float(m.group(1)) for m in
                (re.match(r"step \d+: loss = (\S+)", line.strip()) for line in f)
                if m]


reference, lowered, rtol = losses(sys.argv[1]), losses(sys.argv[2]), float(sys.argv[3])
if not reference or len(reference) != len(lowered):
    sys.exit(f"expected as many losses: {len(reference)} vs {len(lowered)}")
for step, (a, b) in enumerate(zip(reference, lowered), 1):
    error = abs(a - b) / abs(a)
    print(f"step {step}: fp32 {a:.6e} lowered {b:.6e} relative error {error:.2e}")
    if not error <= rtol:
        sys.exit(f"step {step}: relative error {error:.2e} above {rtol}")
print("close")
