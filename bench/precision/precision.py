#!/usr/bin/env python3
"""Memory per precision mode, from the IR: for GPT-2 small and Llama-2-7B
(their published shapes), every train-precision mode, AdamW.

For each model and mode, mem-gen writes the step (--precision=<mode>
--train), train-lifetimes places the frees, and the memory report gives:
the step's peak (LOAD: the most bytes live at once, parameters, gradients,
optimizer states and activations included), the model states in bytes per
parameter, the saved activations (forward values the backward pass reads),
and the step's FLOPs. Then the largest batch whose peak fits the device
(default 80 GiB), by binary search over the batch.

Nothing here runs a step: these are the liveness analysis' exact figures of
the programs train-precision writes (measured == predicted is checked by
the tests on small models).

Usage: precision.py --bin build/bin [--models gpt2,llama-2-7b]
                    [--seq 1024] [--device-memory 80GiB] [--batch 1]
"""

import argparse
import json
import os
import subprocess
import sys

MODES = ["fp32", "bf16-mixed", "fp16-mixed", "bf16-pure", "fp8"]
GIB = 1 << 30


def report(bindir, model, mode, batch, seq, layers):
    command = [os.path.join(bindir, "mem-gen"), model, "--batch", str(batch),
               "--seq", str(seq), "--train", "--optimizer=adamw",
               f"--precision={mode}"]
    if layers:
        command += ["--layers", str(layers)]
    gen = subprocess.run(command, capture_output=True, text=True)
    if gen.returncode:
        sys.exit(f"mem-gen failed: {gen.stderr}")
    out = subprocess.run([os.path.join(bindir, "mem-opt"), "--train-lifetimes",
                          "--train-memory-report=format=json", "-o", "/dev/null"],
                         input=gen.stdout, capture_output=True, text=True)
    if out.returncode:
        sys.exit(f"mem-opt failed: {out.stderr}")
    return json.loads(out.stdout)


def largest_batch(bindir, model, mode, seq, layers, budget):
    low, high = 0, 1
    while report(bindir, model, mode, high, seq, layers)["load_bytes"] <= budget:
        low, high = high, high * 2
        if high > 4096:
            return low
    while low + 1 < high:
        mid = (low + high) // 2
        if report(bindir, model, mode, mid, seq, layers)["load_bytes"] <= budget:
            low = mid
        else:
            high = mid
    return low


def parse_bytes(text):
    units = {"GiB": GIB, "MiB": 1 << 20, "GB": 10**9}
    for unit, scale in units.items():
        if text.endswith(unit):
            return int(float(text[:-len(unit)]) * scale)
    return int(text)


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--bin", default="build/bin")
    parser.add_argument("--models", default="gpt2,llama-2-7b")
    parser.add_argument("--seq", type=int, default=1024)
    parser.add_argument("--batch", type=int, default=1)
    parser.add_argument("--layers", type=int, default=0,
                        help="fewer layers than the preset (0: the preset's)")
    parser.add_argument("--device-memory", default="80GiB")
    parser.add_argument("--no-max-batch", action="store_true")
    args = parser.parse_args()
    budget = parse_bytes(args.device_memory)

    print(f"| model | mode | peak at batch {args.batch} (GiB) | model states "
          f"B/param (weights+master+grads+states) | saved activations (GiB) "
          f"| step TFLOPs | largest batch under {args.device_memory} |")
    print("|---|---|---|---|---|---|---|")
    for model in args.models.split(","):
        for mode in MODES:
            r = report(args.bin, model, mode, args.batch, args.seq, args.layers)
            states = r["model_states"]
            split = "+".join(f"{states[k]['per_parameter']:g}" for k in
                             ("weights", "master_weights", "gradients",
                              "optimizer_states"))
            best = "-" if args.no_max_batch else largest_batch(
                args.bin, model, mode, args.seq, args.layers, budget)
            print(f"| {model} | {mode} | {r['load_bytes'] / GIB:.2f} | "
                  f"{states['total']['per_parameter']:g} ({split}) | "
                  f"{r['saved_activations']['bytes'] / GIB:.2f} | "
                  f"{r['total_flops'] / 1e12:.2f} | {best} |", flush=True)


if __name__ == "__main__":
    main()
