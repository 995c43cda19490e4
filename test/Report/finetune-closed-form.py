"""Checks a fine-tuning step's model states (the JSON report) against closed
forms computed from the model's shape alone, not from the IR:

    finetune-closed-form.py REPORT.json --family llama|gpt2 --layers L
        --hidden H --heads N [--kv-heads K] [--ffn F] --rank R
        --targets a,b,... [--precision fp32|bf16-mixed] [--optimizer adam|sgd]

trainable parameters = sum over the adapted layers of r * (in + out);
frozen weights = (all parameters - trainable) * (4 in fp32, 2 in bf16-mixed:
stored without a master); adapter weights = trainable * (4, or 2 for the
bf16 copy under bf16-mixed) and master weights = trainable * 4 under
bf16-mixed; gradients = trainable * 4; optimizer states = trainable * 8
(Adam) or 0 (SGD). Prints each figure and "closed form: ok", or the
mismatches and exits 1.
"""

import argparse
import json
import sys


def layer_shapes(args):
    """(module suffix, in, out) of one block's linear layers."""
    h = args.hidden
    if args.family == "gpt2":
        ffn = args.ffn or 4 * h
        return [("attn.c_attn", h, 3 * h), ("attn.c_proj", h, h),
                ("mlp.c_fc", h, ffn), ("mlp.c_proj", ffn, h)]
    kv = (args.kv_heads or args.heads) * (h // args.heads)
    ffn = args.ffn
    return [("self_attn.q_proj", h, h), ("self_attn.k_proj", h, kv),
            ("self_attn.v_proj", h, kv), ("self_attn.o_proj", h, h),
            ("mlp.gate_proj", h, ffn), ("mlp.up_proj", h, ffn),
            ("mlp.down_proj", ffn, h)]


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("report")
    parser.add_argument("--family", choices=["llama", "gpt2"], required=True)
    parser.add_argument("--layers", type=int, required=True)
    parser.add_argument("--hidden", type=int, required=True)
    parser.add_argument("--heads", type=int, required=True)
    parser.add_argument("--kv-heads", type=int)
    parser.add_argument("--ffn", type=int)
    parser.add_argument("--rank", type=int, required=True)
    parser.add_argument("--targets", required=True)
    parser.add_argument("--precision", default="fp32")
    parser.add_argument("--optimizer", default="adam")
    args = parser.parse_args()
    targets = args.targets.split(",")

    trainable = 0
    for module, n_in, n_out in layer_shapes(args):
        if any(module == t or module.endswith("." + t) for t in targets):
            trainable += args.layers * args.rank * (n_in + n_out)
    with open(args.report) as f:
        states = json.load(f)["model_states"]
    total = states["parameter_count"]
    low = args.precision == "bf16-mixed"
    expected = {
        "trainable_parameter_count": trainable,
        "frozen_weights": (total - trainable) * (2 if low else 4),
        "adapter_weights": trainable * (2 if low else 4),
        "master_weights": trainable * 4 if low else 0,
        "gradients": trainable * 4,
        "optimizer_states": trainable * 8 if args.optimizer == "adam" else 0,
        "weights": 0,
    }
    bad = 0
    for key, want in expected.items():
        got = states[key] if key == "trainable_parameter_count" else states[key]["bytes"]
        print("%s: %d (closed form %d)" % (key, got, want))
        if got != want:
            bad += 1
    per = states["total"]["per_trainable_parameter"]
    print("total per trainable parameter: %.4f" % per)
    if bad:
        print("closed form: %d mismatches" % bad)
        sys.exit(1)
    print("closed form: ok")


if __name__ == "__main__":
    main()
