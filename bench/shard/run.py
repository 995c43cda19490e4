#!/usr/bin/env python3
"""Per-process memory and communication of tensor-parallel GPT models, from
the IR, next to Megatron-LM's formulas.

For GPT-2 small, a GPT-2 XL-like model, a GPT-3 13B-like model and GPT-3
175B, each at tensor-parallel degree t in {1, 2, 4, 8} (where the heads
divide), mem-gen writes the bf16-mixed AdamW training step at the model's
full depth, train-shard=tp=t partitions it into one process's program,
train-lifetimes places the frees, and the JSON memory report gives:

  * the saved activations of every layer (saved_activations.by_layer),
    next to Korthikanti et al. (2022), Table 2: sbh(10 + 24/t + 5as/(ht))
    bytes per layer (16-bit activations, dropout on), plus the three f32
    extras of memopt's bf16-mixed step: the LayerNorm inputs (+4sbh), the
    softmax output (+2as^2b/t) and the LayerNorm statistics (+16sb);
  * the tensor-parallel traffic per layer (the report's `tp` collectives,
    sent_bytes / L), next to Megatron's 8bsh(t-1)/t elements per layer
    (4 ring all-reduces of bsh elements, each process sending 2(t-1)/t of
    the tensor), times 2 bytes (bf16);
  * the model states per layer (from a second, 1-layer report: states(L) -
    states(1) over L - 1), next to 18 bytes x Megatron's per-process layer
    parameters (12h^2 + 7h)/t + 6h;
  * the whole step's peak per process (peak_bytes) and its model states,
    next to Megatron's 18 bytes x per-process parameters with a
    vocabulary-parallel embedding.

Nothing runs on a device: these are the liveness analysis' exact figures of
the programs train-shard writes. Exits 1 if a per-layer figure (every
layer's saved activations, the traffic or the states per layer) differs
from its formula, so the script doubles as a check.

Usage: run.py [--bin build/bin] [--vocab 50304] [--layers 0]
              [--models gpt2-small,...] [--out bench/shard/results.json]
"""

import argparse
import json
import os
import subprocess
import sys
import time
from fractions import Fraction

# name, hidden, heads, seq, batch, layers (full depth), note
MODELS = [
    ("gpt2-small", 768, 12, 1024, 8, 12, ""),
    ("gpt2-xl-like", 2048, 32, 1024, 8, 48,
     "GPT-2 XL's h=1600 a=25 does not split over 2/4/8: h=2048 a=32"),
    ("gpt3-13b-like", 5120, 40, 2048, 1, 40,
     "GPT-3 13B has h=5140; Megatron's 13B uses 5120"),
    ("gpt3-175b", 12288, 96, 2048, 1, 96, ""),
]
TPS = [1, 2, 4, 8]
MIB = 1 << 20
GIB = 1 << 30


def run(command, stdin=None):
    """Runs a command; retries while a concurrent build replaces the binary."""
    for attempt in range(10):
        try:
            result = subprocess.run(command, input=stdin, capture_output=True)
            break
        except OSError as error:  # binary missing or being written
            if attempt == 9:
                sys.exit(f"{command[0]}: {error}")
            time.sleep(30)
    if result.returncode:
        sys.exit(f"{' '.join(command)} failed:\n{result.stderr.decode()}")
    return result.stdout


def parse_args(description, results):
    """The options run.py and zero.py share; `results` names the JSON file
    written beside the scripts by default."""
    parser = argparse.ArgumentParser(description=description)
    parser.add_argument("--bin", default="build/bin")
    parser.add_argument("--vocab", type=int, default=50304)
    parser.add_argument("--layers", type=int, default=0,
                        help="layers of every model (0: each model's full depth)")
    parser.add_argument("--models", default=",".join(m[0] for m in MODELS))
    parser.add_argument("--sequence-parallel", action="store_true",
                        help="partition with sequence parallelism too (t > 1)")
    parser.add_argument("--out", default=None,
                        help=f"default: {results} beside the script, "
                        f"{results.replace('.json', '-sp.json')} with "
                        "--sequence-parallel")
    args = parser.parse_args()
    if args.out is None:
        name = results.replace(".json", "-sp.json") if args.sequence_parallel \
            else results
        args.out = os.path.join(os.path.dirname(os.path.abspath(__file__)), name)
    return args


def configurations(wanted, layers_option):
    """(name, h, a, s, b, layers, t) of every model in `wanted` at every
    tensor-parallel degree its heads and hidden size divide by."""
    for name, h, a, s, b, depth, _ in MODELS:
        if name not in wanted:
            continue
        for t in TPS:
            if a % t == 0 and h % t == 0:
                yield name, h, a, s, b, layers_option or depth, t


def report(bindir, h, a, s, b, layers, vocab, t, sp=False):
    gen = run([os.path.join(bindir, "mem-gen"), "gpt2", "--layers", str(layers),
               "--hidden", str(h), "--heads", str(a), "--seq", str(s),
               "--batch", str(b), "--vocab", str(vocab), "--train",
               "--precision=bf16-mixed"])
    shard = f"--train-shard=tp={t}"
    if sp and t > 1:
        shard += " sequence-parallel=true"
    out = run([os.path.join(bindir, "mem-opt"), shard,
               "--train-lifetimes", "--train-memory-report=format=json",
               "-o", "/dev/null"], stdin=gen)
    return json.loads(out)


def exact(value):
    """An exact Fraction as an int when whole (all the shapes here are)."""
    return int(value) if value.denominator == 1 else float(value)


def measure(bindir, name, h, a, s, b, layers, vocab, t, sp=False):
    start = time.time()
    full = report(bindir, h, a, s, b, layers, vocab, t, sp)
    one = report(bindir, h, a, s, b, 1, vocab, t, sp)
    sp = sp and t > 1
    seconds = time.time() - start
    sbh = s * b * h
    errors = []

    # Saved activations per layer.
    korthikanti = Fraction(sbh) * (10 + Fraction(24, t) + Fraction(5 * a * s, h * t))
    extras = {"layernorm_f32_inputs": 4 * sbh,
              "softmax_f32_output": Fraction(2 * a * s * s * b, t),
              "layernorm_statistics": 16 * s * b}
    if sp:
        # Table 2's TP + SP row; memopt's extras split along the sequence.
        korthikanti = Fraction(sbh, t) * (34 + Fraction(5 * a * s, h))
        extras = {"layernorm_f32_inputs": Fraction(4 * sbh, t),
                  "softmax_f32_output": Fraction(2 * a * s * s * b, t),
                  "layernorm_statistics": Fraction(16 * s * b, t)}
    expected = korthikanti + sum(extras.values())
    by_layer = {row["layer"]: row["bytes"]
                for row in full["saved_activations"]["by_layer"]}
    for i in range(layers):
        got = by_layer.get(f"h.{i}")
        if got != expected:
            errors.append(f"h.{i} saves {got} bytes, formula + extras "
                          f"{exact(expected)}")
    layer_acts = by_layer.get(f"h.{min(1, layers - 1)}")

    # Tensor-parallel traffic per layer: the difference between the L-layer
    # and the 1-layer step, over L - 1 (what is left of the 1-layer step's is
    # the vocabulary-parallel embedding and head's).
    # The activations' collectives: all-reduces without sequence
    # parallelism; all-gathers and reduce-scatters with it (its all-reduces
    # are the per-token weights' gradients).
    activation_kinds = ("all_gather", "reduce_scatter") if sp else ("all_reduce",)

    def tp_traffic(result):
        comm = result["communication"]
        rows = [row for row in (comm["collectives"] if comm else [])
                if row["axes"] == "tp" and row["kind"] in activation_kinds]
        return (sum(row["sent_bytes"] for row in rows),
                sum(row["count"] for row in rows))

    comm = full["communication"]
    tp_sent, tp_count = tp_traffic(full)
    one_sent, one_count = tp_traffic(one)
    if layers > 1:
        layer_sent = Fraction(tp_sent - one_sent, layers - 1)
        layer_count = Fraction(tp_count - one_count, layers - 1)
    else:
        layer_sent, layer_count = None, None
    head_sent = one_sent - layer_sent if layer_sent is not None else None
    megatron_comm = 2 * Fraction(8 * sbh * (t - 1), t)  # bf16 bytes
    # With sequence parallelism: 4 all-gathers and 4 reduce-scatters, which
    # send what the 4 all-reduces send, plus memopt's 2 backward re-gathers.
    expected_comm = megatron_comm * Fraction(10, 8) if sp else megatron_comm
    if layer_sent is not None and layer_sent != expected_comm:
        errors.append(f"tp traffic {exact(layer_sent)} bytes per layer, "
                      f"expected {exact(expected_comm)}")
    expected_count = 10 if sp else 4
    if t > 1 and layer_count is not None and layer_count != expected_count:
        errors.append(f"{exact(layer_count)} tp collectives per layer, "
                      f"expected {expected_count}")
    other_comm = (comm["total_sent_bytes"] - tp_sent) if comm else 0

    # Model states.
    states = full["model_states"]["total"]["bytes"]
    states_one = one["model_states"]["total"]["bytes"]
    per_layer_states = Fraction(states - states_one, layers - 1) if layers > 1 \
        else None
    layer_params = Fraction(12 * h * h + 7 * h, t) + 6 * h
    bytes_per_param = full["model_states"]["total"]["per_parameter"]
    if per_layer_states is not None and per_layer_states != 18 * layer_params:
        errors.append(f"states per layer {exact(per_layer_states)}, "
                      f"Megatron 18 x {exact(layer_params)}")
    # Megatron: vocabulary-parallel word embedding (tied LM head), the
    # position embedding and the final LayerNorm whole on every process.
    megatron_params = layers * layer_params + Fraction(vocab * h, t) + s * h + 2 * h
    megatron_states = 18 * megatron_params

    row = {
        "model": name, "hidden": h, "heads": a, "seq": s, "batch": b,
        "layers": layers, "vocab": vocab, "tp": t, "seconds": round(seconds, 3),
        "per_layer": {
            "saved_activations": layer_acts,
            "korthikanti": exact(korthikanti),
            "extras": {k: exact(v) for k, v in extras.items()},
            "korthikanti_plus_extras": exact(expected),
            "tp_sent_bytes": exact(layer_sent) if layer_sent is not None
            else None,
            "megatron_tp_bytes": exact(megatron_comm),
            "model_states": exact(per_layer_states) if per_layer_states
            is not None else None,
            "megatron_model_states": exact(18 * layer_params),
        },
        "step": {
            "peak_bytes": full["peak_bytes"],
            "load_bytes": full["load_bytes"],
            "parameter_count": full["model_states"]["parameter_count"],
            "model_states_bytes": states,
            "model_states_per_parameter": bytes_per_param,
            "megatron_parameter_count": exact(megatron_params),
            "megatron_model_states_bytes": exact(megatron_states),
            "saved_activations_bytes": full["saved_activations"]["bytes"],
            "tp_collectives": tp_count,
            "tp_sent_bytes": tp_sent,
            "tp_head_sent_bytes": exact(head_sent) if head_sent is not None
            else None,
            "other_sent_bytes": other_comm,
        },
        "errors": errors,
    }
    return row


def main():
    args = parse_args(__doc__.splitlines()[0], "results.json")
    wanted = args.models.split(",")

    start = time.time()
    rows, skipped = [], []
    for name, h, a, s, b, depth, note in MODELS:
        if name not in wanted:
            continue
        layers = args.layers or depth
        for t in TPS:
            if a % t or h % t:
                skipped.append(f"{name} tp={t}: {a} heads do not split over {t}")
                continue
            rows.append(measure(args.bin, name, h, a, s, b, layers, args.vocab, t,
                                args.sequence_parallel))
            print(f"{name} tp={t}: {rows[-1]['seconds']} s", file=sys.stderr,
                  flush=True)
    total = time.time() - start

    print("Per layer (bytes per process; MiB = 2^20 bytes):\n")
    if args.sequence_parallel:
        print("With sequence parallelism (t > 1): Korthikanti's TP + SP row "
              "sbh/t (34 + 5as/h), extras /t; the sequence collectives send "
              "10/8 of Megatron's 8bsh(t−1)/t × 2 B.\n")
    formula, extras = ("sbh/t (34+5as/h)", "(4sbh + 2as²b + 16sb)/t") \
        if args.sequence_parallel else \
        ("sbh(10+24/t+5as/(ht))", "4sbh + 2as²b/t + 16sb")
    print(f"| model | t | saved activations (MiB) | Korthikanti {formula} "
          f"| + f32 extras {extras} | TP sent per step (MiB) "
          "| Megatron 8bsh(t−1)/t × 2 B | model states (MiB) "
          "| Megatron 18 × ((12h²+7h)/t + 6h) |")
    print("|---|---|---|---|---|---|---|---|---|")
    for r in rows:
        p = r["per_layer"]
        extras = sum(p["extras"].values())
        print(f"| {r['model']} | {r['tp']} | {p['saved_activations'] / MIB:.2f} "
              f"| {p['korthikanti'] / MIB:.2f} | {extras / MIB:.2f} "
              f"| {p['tp_sent_bytes'] / MIB:.2f} | {p['megatron_tp_bytes'] / MIB:.2f} "
              f"| {p['model_states'] / MIB:.2f} "
              f"| {p['megatron_model_states'] / MIB:.2f} |")
    print("\nWhole step, per process (GiB = 2^30 bytes):\n")
    print("| model | layers | t | parameters per process | model states (GiB) "
          "| Megatron, vocab-parallel embedding (GiB) | saved activations (GiB) "
          "| peak (GiB) | TP sent per step (GiB) "
          "| of it, embedding and LM head (MiB) |")
    print("|---|---|---|---|---|---|---|---|---|---|")
    for r in rows:
        q = r["step"]
        print(f"| {r['model']} | {r['layers']} | {r['tp']} "
              f"| {q['parameter_count'] / 1e9:.3f} B "
              f"| {q['model_states_bytes'] / GIB:.2f} "
              f"| {q['megatron_model_states_bytes'] / GIB:.2f} "
              f"| {q['saved_activations_bytes'] / GIB:.2f} "
              f"| {q['peak_bytes'] / GIB:.2f} | {q['tp_sent_bytes'] / GIB:.2f} "
              f"| {(q['tp_head_sent_bytes'] or 0) / MIB:.2f} |")
    for line in skipped:
        print(f"\nskipped: {line}", end="")
    print(f"\n\n{len(rows)} configurations, {2 * len(rows)} reports, "
          f"{total:.1f} s in all")

    errors = [f"{r['model']} tp={r['tp']}: {e}" for r in rows for e in r["errors"]]
    with open(args.out, "w") as f:
        json.dump({"precision": "bf16-mixed", "optimizer": "adam",
                   "sequence_parallel": args.sequence_parallel,
                   "vocab": args.vocab, "seconds": round(total, 1),
                   "skipped": skipped, "configurations": rows,
                   "mismatches": errors}, f, indent=1)
        f.write("\n")
    if errors:
        print("\n".join(["MISMATCH:"] + errors), file=sys.stderr)
        sys.exit(1)
    print("every per-layer figure matches its formula")


if __name__ == "__main__":
    main()
