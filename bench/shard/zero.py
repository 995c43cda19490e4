#!/usr/bin/env python3
"""Per-process model states and peak of ZeRO-partitioned GPT models, from
the IR, next to DeepSpeed's and Megatron-LM's estimates.

For the models of run.py at full depth, tensor-parallel degree t in
{1, 2, 4, 8} (where the heads divide) and data-parallel degree N = 8, mem-gen
writes the bf16-mixed Adam step (fp32 gradients, memopt's default) with a
global batch of 8 x the model's per-process batch, train-shard partitions it
with zero in {0, 1, 2, 3}, and the JSON memory report gives the model states
(model_states.total) and the peak per process. Next to them:

  * memopt's own formula for the stage, which the report must equal to the
    byte (the script exits 1 otherwise): 18P, 6P + 12P/N, 2P + 16P/N, 18P/N,
    P the parameters per tensor-parallel process (parameter_count);
  * Megatron-LM's report_theoretical_memory: 18 bytes per parameter, or
    6 + 12/N with its distributed optimizer (ZeRO-1);
  * DeepSpeed's estimate_zero2_model_states_mem_needs (no offload):
    4P + 16P/N, and estimate_zero3_model_states_mem_needs: 18P/N plus 4 bytes
    per parameter of the largest layer (here the tied embedding), the
    gathered parameters that DeepSpeed budgets for.

Nothing runs on a device. Usage:
  zero.py [--bin build/bin] [--vocab 50304] [--layers 0] [--models ...]
          [--out bench/shard/zero-results.json]
"""

import json
import os
import sys
import time
from fractions import Fraction

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from run import GIB, configurations, exact, parse_args, run  # noqa: E402

DP = 8
STAGES = [0, 1, 2, 3]
# memopt's model states per stage, bf16-mixed with fp32 gradients:
# (bytes per parameter kept whole, bytes per parameter split over N).
FORMULAS = {0: (18, 0), 1: (6, 12), 2: (2, 16), 3: (0, 18)}


def report(bindir, h, a, s, b, layers, vocab, t, zero, sp):
    gen = run([os.path.join(bindir, "mem-gen"), "gpt2", "--layers", str(layers),
               "--hidden", str(h), "--heads", str(a), "--seq", str(s),
               "--batch", str(b * DP), "--vocab", str(vocab), "--train",
               "--precision=bf16-mixed"])
    out = run([os.path.join(bindir, "mem-opt"),
               f"--train-shard=tp={t} dp={DP} zero={zero}"
               + (" sequence-parallel=true" if sp and t > 1 else ""),
               "--train-lifetimes", "--train-memory-report=format=json",
               "-o", "/dev/null"], stdin=gen)
    return json.loads(out)


def main():
    args = parse_args(__doc__.splitlines()[0], "zero-results.json")

    start = time.time()
    rows, errors = [], []
    for name, h, a, s, b, layers, t in configurations(
            args.models.split(","), args.layers):
        for zero in STAGES:
            began = time.time()
            r = report(args.bin, h, a, s, b, layers, args.vocab, t, zero,
                       args.sequence_parallel)
            states = r["model_states"]
            p = states["parameter_count"]
            got = states["total"]["bytes"]
            whole, split = FORMULAS[zero]
            formula = whole * p + Fraction(split * p, DP)
            if got != formula:
                errors.append(f"{name} tp={t} zero={zero}: model states "
                              f"{got}, formula {exact(formula)}")
            megatron = 18 * p if zero == 0 else (
                6 * p + Fraction(12 * p, DP) if zero == 1 else None)
            largest = Fraction(args.vocab * h, t)  # the embedding part
            deepspeed = {2: 4 * p + Fraction(16 * p, DP),
                         3: 4 * largest + Fraction(18 * p, DP)}.get(zero)
            rows.append({
                "model": name, "layers": layers, "tp": t, "dp": DP,
                "zero": zero, "parameters": p,
                "model_states_bytes": got,
                "formula_bytes": exact(formula),
                "megatron_bytes": exact(megatron) if megatron else None,
                "deepspeed_bytes": exact(deepspeed) if deepspeed else None,
                "peak_bytes": r["peak_bytes"],
                "sent_bytes": (r["communication"] or {}).get(
                    "total_sent_bytes", 0),
                "seconds": round(time.time() - began, 3),
            })
            print(f"{name} tp={t} zero={zero}: {rows[-1]['seconds']} s",
                  file=sys.stderr, flush=True)
    total = time.time() - start

    def gib(value):
        return "" if value is None else f"{value / GIB:.2f}"

    print(f"Per process, dp = {DP} (GiB = 2^30 bytes):\n")
    print("| model | t | zero | model states | memopt formula | Megatron "
          "| DeepSpeed estimate | peak | sent per step |")
    print("|---|---|---|---|---|---|---|---|---|")
    for r in rows:
        print(f"| {r['model']} | {r['tp']} | {r['zero']} "
              f"| {gib(r['model_states_bytes'])} | {gib(r['formula_bytes'])} "
              f"| {gib(r['megatron_bytes'])} | {gib(r['deepspeed_bytes'])} "
              f"| {gib(r['peak_bytes'])} | {gib(r['sent_bytes'])} |")
    print(f"\n{len(rows)} configurations, {total:.1f} s in all")
    with open(args.out, "w") as f:
        json.dump({"precision": "bf16-mixed", "gradients": "fp32",
                   "sequence_parallel": args.sequence_parallel,
                   "optimizer": "adam", "dp": DP, "vocab": args.vocab,
                   "seconds": round(total, 1), "configurations": rows,
                   "mismatches": errors}, f, indent=1)
        f.write("\n")
    if errors:
        print("\n".join(["MISMATCH:"] + errors), file=sys.stderr)
        sys.exit(1)
    print("every configuration's model states match memopt's formula")


if __name__ == "__main__":
    main()
