#!/usr/bin/env python3
"""Randomized check of train-shard by running: generated models of random
sizes, partitioned over random grids, run under mpiexec against one process.

Each case draws (from its seed) a model (mlp, gpt2 or llama), its sizes
(layers, hidden, heads, KV heads, sequence, batch, vocabulary), an optimizer
and a grid (tp, dp with tp * dp <= --max-processes, tp dividing the heads,
dp dividing the batch), a ZeRO stage when dp > 1 and, for transformers with
tp > 1, sequence parallelism or not, a vocabulary-parallel LM head or a
replicated one (asked for, or because tp does not divide the vocabulary),
for Llama fewer KV heads than tp or not (each then replicated), and for
GPT-2 dropout on (0.1) or off, then:

  1. mem-gen writes the whole step (fp32) and mem-run runs it in one
     process;
  2. train-shard partitions it and `mpiexec -n tp*dp mem-run` runs it;
  3. test/Integration/shard/compare.py checks the losses (1e-6 relative),
     the parameters and measured == predicted peak on every rank. The
     parameters to 1e-5 with SGD; with Adam to 1e-3: Adam divides each
     gradient by its own magnitude, so a gradient that is zero in exact
     arithmetic (a key bias's: softmax ignores it) updates its parameter by
     about the learning rate in a direction set by rounding noise, which
     the processes' summation order changes. With SGD the same cases agree
     to 1e-9.

A failure prints the case and the commands that reproduce it; the exit
status is 1 when any case failed.

  scripts/shard-campaign.py --bin build/bin --cases 20
  scripts/shard-campaign.py --bin build/bin --seed 7 -v
"""

import argparse
import os
import random
import shlex
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
COMPARE = os.path.join(HERE, "..", "test", "Integration", "shard", "compare.py")


def draw(seed, max_processes):
    """The case of `seed`: mem-gen arguments and the grid."""
    rng = random.Random(seed)
    model = rng.choice(["mlp", "gpt2", "llama"])
    optimizer = rng.choice(["adam", "adamw", "sgd"])
    grids = [(tp, dp) for tp in (1, 2, 4) for dp in (1, 2, 4)
             if 1 < tp * dp <= max_processes]
    tp, dp = rng.choice(grids)
    batch = dp * rng.choice([1, 2])
    # An MLP of one linear layer has nothing tensor-parallel (train-shard
    # rejects tp > 1 for it): at least two.
    layers = rng.choice([2, 3] if model == "mlp" else [1, 2])
    args = [model, "--train", f"--optimizer={optimizer}", f"--batch={batch}",
            f"--layers={layers}"]
    if model == "mlp":
        args += [f"--hidden={tp * rng.choice([4, 8])}", "--classes=10"]
    else:
        head_dim = rng.choice([4, 8])
        kv_heads = tp * rng.choice([1, 2])
        heads = kv_heads * (rng.choice([1, 2]) if model == "llama" else 1)
        args += [f"--heads={heads}", f"--hidden={heads * head_dim}",
                 f"--seq={rng.choice([4, 8])}", f"--vocab={rng.choice([32, 64])}",
                 f"--ffn={tp * rng.choice([8, 16])}"]
        if model == "llama":
            args.append(f"--kv-heads={kv_heads}")
        else:
            args.append("--dropout=0")
    # ZeRO over the data-parallel processes, and sequence parallelism over
    # the tensor-parallel ones (transformers only: an MLP has no sequence).
    options = [f"tp={tp}", f"dp={dp}"]
    if dp > 1:
        options.append(f"zero={rng.choice([0, 1, 2, 3])}")
    if tp > 1 and model != "mlp" and rng.choice([False, True]):
        options.append("sequence-parallel=true")
    # The LM head: vocabulary-parallel (the default), replicated on request,
    # or replicated because tp does not divide the vocabulary (drawn last,
    # so that the draws above stay those of earlier versions of the script).
    if tp > 1 and model != "mlp":
        head = rng.choice(["vocab", "vocab", "replicated", "indivisible"])
        if head == "replicated":
            options.append("vocab-parallel=false")
        elif head == "indivisible":
            vocab = next(i for i, a in enumerate(args) if a.startswith("--vocab="))
            args[vocab] = f"--vocab={tp * rng.choice([8, 16]) + 1}"
    # Llama's KV heads: often fewer than tp (a divisor of it), so that each
    # is replicated over tp / kv processes (drawn last for the same reason).
    if tp > 1 and model == "llama" and rng.choice([False, True]):
        kv = next(i for i, a in enumerate(args) if a.startswith("--kv-heads="))
        args[kv] = f"--kv-heads={rng.choice([d for d in (1, 2) if d < tp])}"
    # GPT-2's dropout: on or off (drawn last too).
    if model == "gpt2" and rng.choice([False, True]):
        args[args.index("--dropout=0")] = "--dropout=0.1"
    return args, tp, dp, " ".join(options)


def run(cmd, out=None):
    with open(out, "w") if out else open(os.devnull, "w") as sink:
        proc = subprocess.run(cmd, stdout=sink, stderr=subprocess.PIPE, text=True)
    return proc.returncode, proc.stderr


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--bin", required=True, help="memopt's build/bin")
    parser.add_argument("--cases", type=int, default=10)
    parser.add_argument("--first", type=int, default=0)
    parser.add_argument("--seed", type=int, action="append",
                        help="run only these seeds")
    parser.add_argument("--max-processes", type=int, default=4)
    parser.add_argument("--steps", type=int, default=3)
    parser.add_argument("-v", "--verbose", action="store_true")
    args = parser.parse_args()
    seeds = args.seed or range(args.first, args.first + args.cases)
    tool = lambda name: os.path.join(args.bin, name)
    failures = 0
    start = time.time()
    with tempfile.TemporaryDirectory(prefix="shard-campaign-") as work:
        for seed in seeds:
            gen, tp, dp, options = draw(seed, args.max_processes)
            step = os.path.join(work, f"{seed}.mlir")
            sharded = os.path.join(work, f"{seed}.shard.mlir")
            whole_out = os.path.join(work, f"{seed}.whole")
            shard_out = os.path.join(work, f"{seed}.shard")
            run_args = ["--steps", str(args.steps), "--measure-peak"]
            commands = [
                ([tool("mem-gen")] + gen + ["-o", step], None),
                ([tool("mem-run"), step] + run_args, whole_out),
                ([tool("mem-opt"), step, f"--train-shard={options}",
                  "-o", sharded], None),
                (["mpiexec", "-n", str(tp * dp), tool("mem-run"), sharded] +
                 run_args, shard_out),
                ([sys.executable, COMPARE, whole_out, shard_out,
                  "1e-5" if "--optimizer=sgd" in gen else "1e-3"], None),
            ]
            what = f"seed {seed}: {' '.join(gen)} {options}"
            for cmd, out in commands:
                code, err = run(cmd, out)
                if code != 0:
                    failures += 1
                    detail = err.strip().splitlines()
                    print(f"FAIL {what}\n  {shlex.join(cmd)}\n  " +
                          "\n  ".join(detail[-5:]))
                    if cmd[0] == sys.executable:
                        with open(os.devnull) as _:
                            subprocess.run(cmd)
                    break
            else:
                if args.verbose:
                    print(f"ok   {what}")
    print(f"{len(list(seeds))} cases, {failures} failed "
          f"({time.time() - start:.0f} s)")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
