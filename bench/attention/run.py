#!/usr/bin/env python3
"""Attention in tiles of query rows against one tile (the whole score matrix).

Two tables (markdown, stdout):

1. Per model, sequence length and optimizer: the workspace of train.attention
   and train.attention_grad and the step's peak (LOAD, `train-lifetimes`),
   with the default tiles (`block_rows` = 64) and with one tile per op
   (`block_rows` = the sequence length, which materializes every head's score
   matrix), and the op at the peak.
2. On a small Llama step run on the CPU by `mem-run --measure-peak` (3 steps):
   the measured and predicted peaks, the last loss, and the median wall time
   of 3 runs, for several `block_rows`.

Usage: run.py --bin build/bin [--quick]
"""

import argparse
import json
import os
import re
import statistics
import subprocess
import sys
import tempfile
import time

MODELS = [
    # (name, mem-gen arguments without --seq)
    ("llama-2-7b, 2 layers", ["llama-2-7b", "--layers", "2", "--batch", "1"]),
    ("llama-3-8b, 2 layers (GQA 32/8)", ["llama-3-8b", "--layers", "2", "--batch", "1"]),
]
SEQS = [1024, 2048, 4096, 8192]
SMALL = ["llama", "--layers", "2", "--hidden", "128", "--heads", "4", "--kv-heads", "2",
         "--seq", "512", "--vocab", "256", "--ffn", "256", "--batch", "1"]
MIB = 1 << 20


def run(cmd, stdin=None):
    result = subprocess.run(cmd, input=stdin, capture_output=True, text=True)
    if result.returncode != 0:
        sys.exit(f"{' '.join(cmd)} failed:\n{result.stderr}")
    return result


def with_block_rows(step, rows):
    """`step` with block_rows = rows on every attention and attention_grad."""
    return re.sub(r"(train\.attention(?:_grad)? [^{]*\{)",
                  lambda m: f"{m.group(1)}block_rows = {rows} : i64, ", step)


def measure(bindir, step):
    mem_opt = os.path.join(bindir, "mem-opt")
    lived = run([mem_opt, "--train-lifetimes"], step).stdout
    report = json.loads(run([mem_opt, "--train-memory-report=format=json", "-o", os.devnull],
                            lived).stdout)
    ratios = run([mem_opt, "--test-print-workspace-ratios", "-o", os.devnull], step).stdout
    workspace = {}
    for line in ratios.splitlines():
        match = re.match(r"(train\.attention(?:_grad)?) .*workspace=(\d+)", line)
        if match:
            workspace[match.group(1)] = int(match.group(2))
    return report, workspace


def models_table(bindir, quick):
    print("| model | seq | optimizer | attention workspace: one tile / tiles (MiB) | "
          "attention_grad workspace (MiB) | peak: one tile / tiles (MiB) | change | "
          "peak op with tiles |")
    print("|---|---|---|---|---|---|---|---|")
    seqs = [4096] if quick else SEQS
    for name, args in MODELS:
        for seq in seqs:
            for optimizer in ("sgd",) if quick else ("sgd", "adam"):
                step = run([os.path.join(bindir, "mem-gen"), *args, "--seq", str(seq),
                            "--train", f"--optimizer={optimizer}"]).stdout
                whole, whole_ws = measure(bindir, with_block_rows(step, seq))
                tiled, tiled_ws = measure(bindir, step)
                before, after = whole["peak_bytes"], tiled["peak_bytes"]
                op = tiled["peak_op"]
                print(f"| {name} | {seq} | {optimizer} | "
                      f"{whole_ws['train.attention'] / MIB:.1f} / "
                      f"{tiled_ws['train.attention'] / MIB:.1f} | "
                      f"{whole_ws['train.attention_grad'] / MIB:.1f} / "
                      f"{tiled_ws['train.attention_grad'] / MIB:.1f} | "
                      f"{before / MIB:.1f} / {after / MIB:.1f} | "
                      f"{100 * (after - before) / before:+.1f}% | "
                      f"{op['name']} ({op['location']}) |", flush=True)


def runtime_table(bindir, quick):
    print()
    print("| small Llama step (seq 512), block_rows | tiles | measured peak (B) | "
          "predicted (B) | loss after 3 steps | median wall (s) |")
    print("|---|---|---|---|---|---|")
    step = run([os.path.join(bindir, "mem-gen"), *SMALL, "--train"]).stdout
    step = run([os.path.join(bindir, "mem-opt"), "--train-lifetimes"], step).stdout
    repeats = 1 if quick else 3
    for rows in (512, 64, 16):
        times, out = [], None
        with tempfile.NamedTemporaryFile("w", suffix=".mlir") as file:
            file.write(with_block_rows(step, rows))
            file.flush()
            for _ in range(repeats):
                start = time.perf_counter()
                out = run([os.path.join(bindir, "mem-run"), file.name, "--steps", "3",
                           "--measure-peak"]).stdout
                times.append(time.perf_counter() - start)
        fields = dict(re.findall(r"^(\w+): (\S+)$", out, re.M))
        loss = re.findall(r"step 3: loss = (\S+)", out)[0]
        print(f"| {rows} | {512 // rows} | {fields['measured_peak_bytes']} | "
              f"{fields['predicted_peak_bytes']} | {loss} | "
              f"{statistics.median(times):.2f} |", flush=True)


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--bin", required=True)
    parser.add_argument("--quick", action="store_true",
                        help="sequence 4096 and SGD only, one timing run")
    options = parser.parse_args()
    models_table(options.bin, options.quick)
    runtime_table(options.bin, options.quick)


if __name__ == "__main__":
    main()
