"""Checks the report's per-rank model states of a ZeRO-partitioned step
against the published formulas: zero-model-states.py MODE N STAGE < report.json

MODE names the formula:
  bf16    mixed precision with bf16 gradients, the ZeRO paper's (K = 12):
          stage 1: 4P + 12P/N, stage 2: 2P + 14P/N, stage 3: 16P/N;
  fp32grads  bf16-mixed with fp32 gradients: stage 1: 6P + 12P/N
          (Megatron-LM's distributed optimizer), stage 2: 2P + 16P/N,
          stage 3: 18P/N;
  fp32    fp32 training; memopt holds the process's part of each parameter
          and, under stages 1 and 2, a gathered copy compute reads:
          stage 1: 8P + 12P/N, stage 2: 4P + 16P/N, stage 3: 16P/N.
P is the report's parameter_count (the whole model, per tensor-parallel
rank), N the data-parallel degree. Exact, in bytes.
"""
import json
import sys
from fractions import Fraction

mode, n, stage = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
formulas = {
    "bf16": {1: (4, 12), 2: (2, 14), 3: (0, 16)},
    "fp32grads": {1: (6, 12), 2: (2, 16), 3: (0, 18)},
    "fp32": {1: (8, 12), 2: (4, 16), 3: (0, 16)},
}
whole, parted = formulas[mode][stage]
states = json.load(sys.stdin)["model_states"]
p = states["parameter_count"]
expected = whole * p + Fraction(parted * p, n)
got = states["total"]["bytes"]
if got != expected:
    print(f"error: total {got} bytes, formula {whole}P + {parted}P/{n} = "
          f"{float(expected)} with P = {p}")
    sys.exit(1)
print(f"zero-{stage} model states match {whole}P + {parted}P/N: {got} bytes")
