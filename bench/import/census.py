"""Which torchvision 0.14 classification models mem-import takes.

    python3 bench/import/census.py [--build build] [--models resnet18,vgg11]

For every classification model builder of torchvision.models: export it
(python3 -m memopt_torch export, training mode, 10 classes, batch 2) at the
smallest input its architecture accepts here, import it with mem-import and
compare the parameter count of the train-dialect function with
sum(p.numel()). Prints a Markdown table (docs/import.md holds its output):
the model, its parameters, whether it imports, and otherwise the ops or the
reason that stop it.
"""

import argparse
import collections
import json
import os
import re
import subprocess
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

# Inputs: 64x64 where the network's downsampling allows, else what the
# architecture needs (fixed-size position embeddings, Inception's stem;
# VGG's AdaptiveAvgPool2d((7, 7)) gets a 2x2 map at 64x64, whose windows
# differ in size, and the 7x7 it expects at 224x224).
INPUT = {
    "vgg11": 224, "vgg11_bn": 224, "vgg13": 224, "vgg13_bn": 224,
    "vgg16": 224, "vgg16_bn": 224, "vgg19": 224, "vgg19_bn": 224,
    "inception_v3": 299, "googlenet": 224,
    "vit_b_16": 224, "vit_b_32": 224, "vit_l_16": 224, "vit_l_32": 224, "vit_h_14": 224,
    "swin_t": 224, "swin_s": 224, "swin_b": 224, "swin_v2_t": 256, "swin_v2_s": 256,
    "swin_v2_b": 256, "maxvit_t": 224,
}
SKIP = {"get_model", "get_model_builder", "get_model_weights", "get_weight", "list_models"}


def classification_models():
    import torchvision.models as models
    names = []
    for name in sorted(dir(models)):
        if name.startswith("_") or name in SKIP or not name.islower():
            continue
        builder = getattr(models, name)
        if callable(builder) and getattr(builder, "__module__", "").startswith("torchvision.models.") \
                and builder.__module__.count(".") == 2:
            names.append(name)
    return names


def run(name, build, workdir):
    import torch
    import torchvision.models as models
    size = INPUT.get(name, 64)
    config = {"num_classes": 10}
    if name in ("inception_v3", "googlenet"):
        config["aux_logits"] = False
        config["init_weights"] = False
    model = getattr(models, name)(**config)
    count = sum(p.numel() for p in model.parameters())
    graph = os.path.join(workdir, name + ".json")
    env = dict(os.environ, PYTHONPATH=os.path.join(ROOT, "python"))
    export = subprocess.run(
        [sys.executable, "-m", "memopt_torch", "export", "torchvision.models:" + name,
         "--config", json.dumps(config), "--input", f"2x3x{size}x{size}", "-o", graph],
        capture_output=True, text=True, env=env)
    if export.returncode != 0:
        errors = [l for l in export.stderr.splitlines() if "error:" in l]
        reason = errors[-1].split("error:", 1)[1].strip() if errors else \
            export.stderr.strip().splitlines()[-1]
        return count, size, "export fails", reason
    imported = subprocess.run(
        [os.path.join(build, "bin", "mem-import"), graph, "--print-param-count"],
        capture_output=True, text=True)
    if imported.returncode != 0:
        ops = collections.Counter(re.findall(r"unsupported op (\S+)", imported.stderr))
        if ops:
            return count, size, "no", "unsupported: " + ", ".join(
                f"`{op}`" for op in sorted(ops))
        lines = [l for l in imported.stderr.splitlines() if "error:" in l]
        reason = lines[0].split("error:", 1)[1].strip() if lines else imported.stderr.strip()
        return count, size, "no", re.sub(r" \[.*\]$", "", reason)
    found = int(re.search(r"param_count: (\d+)", imported.stdout).group(1))
    if found != count:
        return count, size, "no", f"parameter count {found} != {count}"
    return count, size, "yes", ""


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--build", default=os.path.join(ROOT, "build"))
    parser.add_argument("--models", help="comma-separated subset")
    args = parser.parse_args()
    names = args.models.split(",") if args.models else classification_models()
    rows = []
    with tempfile.TemporaryDirectory() as workdir:
        for name in names:
            count, size, status, reason = run(name, args.build, workdir)
            rows.append((name, count, size, status, reason))
            print(f"{name}: {status} {reason}", file=sys.stderr, flush=True)
    imported = sum(1 for row in rows if row[3] == "yes")
    print(f"{imported} of {len(rows)} models import.\n")
    print("| model | parameters | input | imports | why not |")
    print("|---|---:|---:|---|---|")
    for name, count, size, status, reason in rows:
        print(f"| {name} | {count:,} | {size}x{size} | {status} | {reason} |")


if __name__ == "__main__":
    main()
