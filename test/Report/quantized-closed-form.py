"""Checks the quantized weights of a QLoRA step's report (model_states in
the JSON report) against closed forms computed from the model's shape
alone, not from the IR:

    quantized-closed-form.py REPORT.json --family llama|gpt2 --layers L
        --hidden H --heads N [--kv-heads K] [--ffn F] [--vocab V]
        [--untied] --format nf4|int8 [--precision fp32|bf16-mixed]

The quantized weights are every block's linear layers (train-lora freezes
them all) and, with --untied, the LM head (hidden x vocab); the embeddings,
norms and biases stay. For a weight of n elements (o output features):

  NF4 with double quantization, QLoRA's closed form
      n/2 + n/64 + 4n/(64*256)   (4 bits, an 8-bit absmax per 64, an f32
                                  scale per 256 absmaxes)
  plus what it leaves out: the padding nibble of an odd n
  (ceil(n/2) - n/2), the partial last block (ceil(n/64) - n/64 absmax
  bytes), the partial last second-level block (4 ceil(ceil(n/64)/256) -
  4n/16384) and the per-tensor f32 offset (4);
  int8: n + 4 o.

The report's quantized_weights must be the exact sum; its frozen_weights
the other frozen parameters only (4 bytes each in fp32, 2 under
bf16-mixed), counted from parameter_count, which counts a quantized weight
by its n elements. Prints each figure and "closed form: ok", or the
mismatches and exits 1.
"""

import argparse
import importlib.util
import json
import math
import os
import sys
from fractions import Fraction


def layer_shapes(args):
    """(module, in, out) of one block's linear layers (finetune-closed-form.py's)."""
    path = os.path.join(os.path.dirname(__file__), "finetune-closed-form.py")
    spec = importlib.util.spec_from_file_location("finetune_closed_form", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module.layer_shapes(args)


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("report")
    parser.add_argument("--family", choices=["llama", "gpt2"], required=True)
    parser.add_argument("--layers", type=int, required=True)
    parser.add_argument("--hidden", type=int, required=True)
    parser.add_argument("--heads", type=int, required=True)
    parser.add_argument("--kv-heads", type=int)
    parser.add_argument("--ffn", type=int)
    parser.add_argument("--vocab", type=int)
    parser.add_argument("--untied", action="store_true")
    parser.add_argument("--format", choices=["nf4", "int8"], required=True)
    parser.add_argument("--precision", default="fp32")
    args = parser.parse_args()

    weights = [(n_in * n_out, n_out) for _, n_in, n_out in layer_shapes(args)]
    weights *= args.layers
    if args.untied:
        weights.append((args.hidden * args.vocab, args.vocab))

    closed = Fraction(0)
    parts = {"odd-count padding nibbles": Fraction(0),
             "partial last blocks": Fraction(0),
             "partial last second-level blocks": Fraction(0),
             "per-tensor offsets": Fraction(0)}
    exact = 0
    for n, out in weights:
        if args.format == "int8":
            exact += n + 4 * out
            closed += n + 4 * out
            continue
        blocks = math.ceil(n / 64)
        closed += Fraction(n, 2) + Fraction(n, 64) + Fraction(4 * n, 64 * 256)
        parts["odd-count padding nibbles"] += math.ceil(n / 2) - Fraction(n, 2)
        parts["partial last blocks"] += blocks - Fraction(n, 64)
        parts["partial last second-level blocks"] += (
            4 * math.ceil(blocks / 256) - Fraction(4 * n, 64 * 256))
        parts["per-tensor offsets"] += 4
        exact += math.ceil(n / 2) + blocks + 4 * math.ceil(blocks / 256) + 4
    assert closed + sum(parts.values()) == exact

    with open(args.report) as f:
        states = json.load(f)["model_states"]
    quantized = sum(n for n, _ in weights)
    other_frozen = (states["parameter_count"] - states["trainable_parameter_count"]
                    - quantized)
    bytes_each = 2 if args.precision == "bf16-mixed" else 4
    print("quantized weights: %d in %d tensors" % (quantized, len(weights)))
    print("closed form: %.3f bytes" % float(closed))
    for name, value in parts.items():
        if value:
            print("  + %s: %.3f bytes" % (name, float(value)))
    print("  = %d bytes, %.4f bits per weight" % (exact, 8 * exact / quantized))
    expected = {"quantized_weights": exact,
                "frozen_weights": other_frozen * bytes_each}
    bad = 0
    for key, want in expected.items():
        got = states[key]["bytes"]
        print("%s: %d (closed form %d)" % (key, got, want))
        if got != want:
            bad += 1
    if bad:
        print("closed form: %d mismatches" % bad)
        sys.exit(1)
    print("closed form: ok")


if __name__ == "__main__":
    main()
