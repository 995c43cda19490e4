#!/usr/bin/env python3
"""PyTorch eager's CPU allocator peak of a training step: measured and predicted.

    python3 bench/pytorch/cpu_table.py [--cases mlp,gpt] [--optimizers sgd,adam]
                                       [--precision fp32,bf16] [--json FILE] [--threads 1]

For every case (model, precision, optimizer, zero_grad's set_to_none) this runs, in a
child process each, `python3 -m memopt_torch predict ... --measure --json`:
the prediction (two steps under FakeTensorMode, allocations recorded at the
dispatcher plus the kernels' internal ones, predict.py) and the measurement
(the same two steps on real tensors, torch.profiler's [memory] events,
bench/import/memory.py's method), and prints a Markdown table: model,
optimizer, set_to_none, measured, predicted, difference, cause, and the
predicted peak's phase and op.

A difference is named in CAUSES (keyed by case) after reading the two
timelines; a case with a difference and no entry prints "unexplained".
"""

import argparse
import json
import os
import subprocess
import sys
import time

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
PYTHON = "/usr/bin/python3" if os.path.exists("/usr/bin/python3") else sys.executable
MODELS = os.path.join(ROOT, "test", "Import", "models")

CASES = {
    "mlp": ("MLP 64-256-256-10 (32x64)",
            [os.path.join(MODELS, "mlp.py") + ":MLP", "--config",
             '{"sizes": [64, 256, 256, 10]}', "--input", "32x64"]),
    "gpt": ("GPT nanoGPT 2x64 (ids 4x64)",
            [os.path.join(MODELS, "gpt.py") + ":GPT", "--config",
             '{"vocab_size": 512, "block_size": 64, "n_layer": 2, "n_head": 4, "n_embd": 64}',
             "--input-ids", "4x64", "--loss", "model"]),
    "llama": ("Llama 4x256, GQA (ids 2x128)",
              [os.path.join(MODELS, "llama.py") + ":Llama", "--config",
               '{"vocab_size": 1000, "dim": 256, "n_layer": 4, "n_head": 8, "n_kv_head": 4, '
               '"hidden": 688}', "--input-ids", "2x128"]),
    "resnet18": ("ResNet-18 (8x3x64x64)",
                 ["torchvision.models:resnet18", "--config", '{"num_classes": 10}',
                  "--input", "8x3x64x64"]),
    "mobilenet": ("MobileNetV3-small (8x3x64x64)",
                  ["torchvision.models:mobilenet_v3_small", "--config", '{"num_classes": 10}',
                   "--input", "8x3x64x64"]),
}

# More models, run with --cases extra (Adam, set_to_none true): the
# torchvision families and memopt's small test models.
TV = "torchvision.models:"
TEN = '{"num_classes": 10}'
EXTRA = {
    "resnet50": ("ResNet-50 (2x3x64x64)", [TV + "resnet50", "--config", TEN, "--input", "2x3x64x64"]),
    "resnext50": ("ResNeXt-50 32x4d (2x3x64x64)",
                  [TV + "resnext50_32x4d", "--config", TEN, "--input", "2x3x64x64"]),
    "densenet121": ("DenseNet-121 (2x3x64x64)",
                    [TV + "densenet121", "--config", TEN, "--input", "2x3x64x64"]),
    "efficientnet_b0": ("EfficientNet-B0 (2x3x64x64)",
                        [TV + "efficientnet_b0", "--config", TEN, "--input", "2x3x64x64"]),
    "efficientnet_v2_s": ("EfficientNetV2-S (2x3x64x64)",
                          [TV + "efficientnet_v2_s", "--config", TEN, "--input", "2x3x64x64"]),
    "mobilenet_v2": ("MobileNetV2 (2x3x64x64)",
                     [TV + "mobilenet_v2", "--config", TEN, "--input", "2x3x64x64"]),
    "mnasnet": ("MNASNet 0.5 (2x3x64x64)", [TV + "mnasnet0_5", "--config", TEN, "--input", "2x3x64x64"]),
    "shufflenet": ("ShuffleNetV2 x0.5 (2x3x64x64)",
                   [TV + "shufflenet_v2_x0_5", "--config", TEN, "--input", "2x3x64x64"]),
    "squeezenet": ("SqueezeNet 1.0 (2x3x64x64)",
                   [TV + "squeezenet1_0", "--config", TEN, "--input", "2x3x64x64"]),
    "regnet": ("RegNetX-400MF (2x3x64x64)",
               [TV + "regnet_x_400mf", "--config", TEN, "--input", "2x3x64x64"]),
    "googlenet": ("GoogLeNet, aux heads (2x3x64x64)",
                  [TV + "googlenet", "--config", TEN, "--input", "2x3x64x64"]),
    "vgg11": ("VGG-11 (2x3x64x64)", [TV + "vgg11", "--config", TEN, "--input", "2x3x64x64"]),
    "alexnet": ("AlexNet (2x3x64x64)", [TV + "alexnet", "--config", TEN, "--input", "2x3x64x64"]),
    "convnext_tiny": ("ConvNeXt-T (2x3x64x64)",
                      [TV + "convnext_tiny", "--config", TEN, "--input", "2x3x64x64"]),
    "swin_t": ("Swin-T (1x3x64x64)", [TV + "swin_t", "--config", TEN, "--input", "1x3x64x64"]),
    "vit": ("ViT 2 layers, 64 wide (2x3x64x64)",
            ["torchvision.models.vision_transformer:VisionTransformer", "--config",
             '{"num_classes": 10, "image_size": 64, "patch_size": 16, "num_layers": 2, '
             '"num_heads": 4, "hidden_dim": 64, "mlp_dim": 128}', "--input", "2x3x64x64"]),
    "unet": ("U-Net, 3 levels, 16 wide, transposed convs (2x3x64x64, MSE)",
             [os.path.join(MODELS, "unet.py") + ":UNet", "--input", "2x3x64x64", "--loss", "mse"]),
    "unet_bilinear": ("U-Net, bilinear upsampling (2x3x64x64, MSE)",
                      [os.path.join(MODELS, "unet.py") + ":UNet", "--config", '{"bilinear": true}',
                       "--input", "2x3x64x64", "--loss", "mse"]),
    "smallcnn": ("SmallCNN (4x3x8x8)", [os.path.join(MODELS, "mlp.py") + ":SmallCNN",
                                       "--input", "4x3x8x8"]),
    "gatedcnn": ("GatedCNN (4x3x8x8)", [os.path.join(MODELS, "mlp.py") + ":GatedCNN",
                                       "--input", "4x3x8x8"]),
    "dropout": ("MLP, dropout 0.1 (8x16)", [os.path.join(MODELS, "mlp.py") + ":MLP", "--config",
                                           '{"dropout": 0.1}', "--input", "8x16"]),
    "mse": ("MLP, MSE loss (8x16)", [os.path.join(MODELS, "mlp.py") + ":MLP", "--input", "8x16",
                                    "--loss", "mse"]),
}

# Fine-tuning, run with --cases finetune (every optimizer, both set_to_none):
# frozen parameters (requires_grad=False) get no .grad and no optimizer state.
FINETUNE = {
    "frozen_gpt": ("GPT nanoGPT 2x64, embeddings and block 0 frozen (ids 4x64)",
                   [os.path.join(MODELS, "finetune.py") + ":frozen_gpt", "--config",
                    '{"vocab_size": 512, "block_size": 64, "n_layer": 2, "n_head": 4, '
                    '"n_embd": 64}', "--input-ids", "4x64", "--loss", "model"]),
    "lora_llama": ("Llama 4x256, LoRA r=8 on q/k/v/o (ids 2x128)",
                   [os.path.join(MODELS, "lora.py") + ":lora_llama", "--config",
                    '{"vocab_size": 1000, "dim": 256, "n_layer": 4, "n_head": 8, "n_kv_head": 4, '
                    '"hidden": 688, "r": 8, "alpha": 16}', "--input-ids", "2x128"]),
}


def _case(name):
    """(label, predict arguments) of a case of CASES, EXTRA or FINETUNE."""
    return CASES.get(name) or FINETUNE.get(name) or EXTRA[name]


# Named differences: (case, optimizer, set_to_none) -> cause.
CAUSES = {}


def run_case(name, optimizer, set_to_none, threads, lr, autocast):
    """`predict --measure --json` of one case in a child process."""
    env = dict(os.environ)
    env["PYTHONPATH"] = os.path.join(ROOT, "python") + (
        os.pathsep + env["PYTHONPATH"] if env.get("PYTHONPATH") else "")
    command = [PYTHON, "-m", "memopt_torch", "predict"] + _case(name)[1] + [
        "--optimizer", optimizer, "--lr", str(lr), "--set-to-none",
        "true" if set_to_none else "false", "--threads", str(threads), "--measure", "--json"] + (
        ["--autocast", autocast] if autocast != "fp32" else [])
    started = time.time()
    done = subprocess.run(command, env=env, capture_output=True, text=True)
    if done.returncode != 0:
        last = (done.stderr.strip().splitlines() or ["(no message)"])[-1]
        if "the measured run failed in PyTorch itself" in last:
            # PyTorch cannot run the step (a CPU kernel without a bfloat16
            # version, mixed dtypes under autocast): nothing to measure.
            return {"not_run": last.split("itself: ", 1)[1]}
        raise SystemExit("%s failed:\n%s" % (" ".join(command), done.stderr[-3000:]))
    result = json.loads(done.stdout)
    result["seconds"] = time.time() - started
    return result


def row(name, optimizer, set_to_none, autocast, r):
    """One Markdown row of the table."""
    label = _case(name)[0]
    if "not_run" in r:
        return "| %s | %s | %s | %s | - | - | - | PyTorch fails: `%s` | - |" % (
            label, autocast, optimizer, str(set_to_none).lower(), r["not_run"])
    measured = r["measured"]["measured_peak_bytes"]
    predicted = r["allocated_peak_bytes"]
    diff = measured - predicted
    cause = "exact" if diff == 0 else CAUSES.get((name, optimizer, set_to_none, autocast),
                                                 "unexplained")
    if r.get("kernels_probed"):
        cause += " (%d kernels probed on zeros)" % r["kernels_probed"]
    peak = r["peak"]
    return "| %s | %s | %s | %s | %d | %d | %+d (%.4f%%) | %s | %s `%s` |" % (
        label, autocast, optimizer, str(set_to_none).lower(), measured, predicted, diff,
        100.0 * diff / measured, cause, peak["phase"], peak["op"])


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--cases", default=",".join(CASES),
                        help="comma-separated subset of: %s; 'extra' for: %s (Adam, "
                        "set_to_none true); 'finetune' for: %s" % (
                            ", ".join(CASES), ", ".join(EXTRA), ", ".join(FINETUNE)))
    parser.add_argument("--optimizers", default="sgd,adam",
                        help="comma-separated subset of sgd, adam, adamw")
    parser.add_argument("--precision", default="fp32",
                        help="comma-separated subset of fp32, bf16 (forward and loss under "
                        "CPU autocast to bfloat16)")
    parser.add_argument("--threads", type=int, default=1,
                        help="torch.set_num_threads in both runs (default: 1)")
    parser.add_argument("--lr", type=float, default=0.01)
    parser.add_argument("--json", help="also write every result to this file")
    args = parser.parse_args()
    runs = []
    for name in args.cases.split(","):
        if name == "extra":
            runs += [(extra, "adam", True) for extra in EXTRA]
            continue
        for case in (FINETUNE if name == "finetune" else [name]):
            if case not in CASES and case not in EXTRA and case not in FINETUNE:
                raise SystemExit("unknown case '%s' (expected one of %s)" % (
                    case, ", ".join(list(CASES) + list(EXTRA) + list(FINETUNE) +
                                    ["extra", "finetune"])))
            both = case in CASES or case in FINETUNE
            runs += [(case, optimizer, set_to_none)
                     for optimizer in args.optimizers.split(",")
                     for set_to_none in ((True, False) if both else (True,))]
    precisions = args.precision.split(",")
    for p in precisions:
        if p not in ("fp32", "bf16"):
            raise SystemExit("unknown precision '%s' (expected fp32 or bf16)" % p)
    rows, results = [], []
    for name, optimizer, set_to_none in runs:
        for autocast in precisions:
            print("%s/%s/%s/%s" % (name, autocast, optimizer, set_to_none), file=sys.stderr)
            r = run_case(name, optimizer, set_to_none, args.threads, args.lr, autocast)
            r["case"] = [name, optimizer, set_to_none, autocast]
            results.append(r)
            rows.append(row(name, optimizer, set_to_none, autocast, r))
    ran = [r for r in results if "not_run" not in r]
    exact = sum(1 for r in ran if r["difference_bytes"] == 0)
    worst = max([abs(r["difference_bytes"]) / r["measured"]["measured_peak_bytes"]
                 for r in ran] or [0])
    print("%d of %d cases exact; largest difference %.4f%% of the measured peak%s.\n" % (
        exact, len(ran), 100.0 * worst,
        "; %d cases PyTorch cannot run" % (len(results) - len(ran)) if len(ran) < len(results)
        else ""))
    print("| model | precision | optimizer | set_to_none | measured (B) | predicted (B) | "
          "measured - predicted | cause | predicted peak at |")
    print("|---|---|---|---|---|---|---|---|---|")
    for line in rows:
        print(line)
    if args.json:
        with open(args.json, "w") as f:
            json.dump(results, f, indent=1)
    return 0


if __name__ == "__main__":
    sys.exit(main())
