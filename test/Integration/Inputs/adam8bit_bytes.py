"""Checks the optimizer-state bytes of a step that train-autodiff built with
optimizer=adam8bit (or adamw8bit) against the closed form, from the memory
model's buffers (mem-opt --test-print-tensor-liveness, on stdin): per
parameter of n f32 elements, 2n + 8 ceil(n / 2048) bytes in four states
(codes of n bytes and ceil(n / 2048) f32 absmax values, for each moment)
when n >= 4096, else 8n in exp_avg and exp_avg_sq. Prints one line per
parameter and the total; exits non-zero on a difference."""

import re
import sys

BLOCK, MIN_8BIT = 2048, 4096

params, states = {}, {}
for line in sys.stdin:
    match = re.match(r"\s+(\S+): (\d+) bytes, (parameter|optimizer_state),", line)
    if not match:
        continue
    name, size, kind = match.group(1), int(match.group(2)), match.group(3)
    (params if kind == "parameter" else states)[name] = size

total = 0
for name, size in params.items():
    n = size // 4
    blocks = -(-n // BLOCK)
    if n >= MIN_8BIT:
        expected = {name + ".exp_avg.codes": n, name + ".exp_avg.absmax": 4 * blocks,
                    name + ".exp_avg_sq.codes": n, name + ".exp_avg_sq.absmax": 4 * blocks}
        rule = f"8-bit, 2n + 8 ceil(n/2048) = {2 * n + 8 * blocks}"
    else:
        expected = {name + ".exp_avg": 4 * n, name + ".exp_avg_sq": 4 * n}
        rule = f"32-bit, 8n = {8 * n}"
    got = {k: v for k, v in states.items() if k.startswith(name + ".")}
    if got != expected:
        sys.exit(f"{name} (n = {n}): states {got}, expected {expected}")
    total += sum(got.values())
    print(f"{name}: n = {n}, {rule} bytes: matches")
if total != sum(states.values()):
    sys.exit(f"states of no parameter: {sorted(set(states))}")
print(f"optimizer states: {total} bytes")
