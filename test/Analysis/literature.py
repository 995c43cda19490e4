"""Sums TensorLiveness buffers of generated models by class, for
literature.test. Runs mem-gen and mem-opt from --bin (the build's bin/)."""
import argparse
import re
import subprocess

LINE = re.compile(r"^  (\S+): (\d+) bytes, (\w+), live")


def buffers(gen_args, passes=()):
    step = subprocess.run([args.bin + "/mem-gen"] + gen_args, check=True,
                          capture_output=True, text=True).stdout
    out = subprocess.run([args.bin + "/mem-opt"] + list(passes) +
                         ["--test-print-tensor-liveness", "-o", "/dev/null"],
                         input=step, check=True,
                         capture_output=True, text=True).stdout
    for line in out.splitlines():
        m = LINE.match(line)
        if m:
            yield m.group(1), int(m.group(2)), m.group(3)


def korthikanti(args):
    s, b, h, a = args.seq, args.batch, args.hidden, args.heads
    acts = stats = 0
    for name, size, cls in buffers(
            ["gpt2", "--layers", "1", "--hidden", str(h), "--heads", str(a),
             "--seq", str(s), "--batch", str(b), "--vocab", "128",
             "--dtype", "bf16", "--dropout", "0.1", "--train"],
            ["--train-remat=algorithm=" + args.remat] if args.remat else []):
        if cls != "activation" or not name.startswith("h.0."):
            continue
        if re.match(r"h\.0\.ln_\d#[12]$", name):
            stats += size
        else:
            acts += size
    if args.remat == "selective":
        formula, text = s * b * h * 34, "34sbh"
    elif args.remat == "layers":
        formula, text = 2 * s * b * h, "2sbh"
    else:
        formula, text = s * b * h * 34 + 5 * a * s * s * b, "sbh(34 + 5as/h)"
    print("s=%d b=%d h=%d a=%d: activations %d B = %s = %d B; "
          "layernorm statistics %d B" % (s, b, h, a, acts, text, formula, stats))


def states(args):
    by_class = {}
    params = 0
    for name, size, cls in buffers(["gpt2", "--layers", "2", "--hidden", "128",
                                    "--heads", "4", "--seq", "64",
                                    "--vocab", "2000", "--train"]):
        by_class[cls] = by_class.get(cls, 0) + size
        if cls == "parameter":
            params += size // 4
    total = (by_class["parameter"] + by_class["gradient"] +
             by_class["optimizer_state"])
    print("parameters %d: parameter %d B + gradient %d B + optimizer_state "
          "%d B = %s B/parameter" % (params, by_class["parameter"],
                                     by_class["gradient"],
                                     by_class["optimizer_state"],
                                     total / params if total % params else
                                     total // params))


parser = argparse.ArgumentParser()
parser.add_argument("what", choices=["korthikanti", "states"])
parser.add_argument("--bin", required=True)
parser.add_argument("--seq", type=int)
parser.add_argument("--batch", type=int)
parser.add_argument("--hidden", type=int)
parser.add_argument("--heads", type=int)
parser.add_argument("--remat", choices=["selective", "layers"],
                    help="run train-remat with this algorithm first")
args = parser.parse_args()
korthikanti(args) if args.what == "korthikanti" else states(args)
