#!/usr/bin/env python3
"""PyTorch's own CUDA memory numbers for one training step, and memopt's
replay of its caching allocator on the same allocations (the GPU harness of
docs/allocator.md; a measurement to report, not a test).

For each model and optimizer, in a child process of its own (so that
PYTORCH_CUDA_ALLOC_CONF takes effect before CUDA starts):

1. record the CUDA caching allocator's history from the start
   (torch.cuda.memory._record_memory_history, PyTorch 2.1 or later);
2. run steps 1 and 2 of `opt.zero_grad(set_to_none=True); loss =
   loss_fn(model(x), y); loss.backward(); opt.step()`, with
   torch.cuda.reset_peak_memory_stats() just before step 2;
3. read max_memory_allocated() and max_memory_reserved();
4. turn the recorded trace (every block's alloc, with its requested size,
   and free_completed, in order) into mem-plan's buffer CSV, one buffer per
   block, and replay it with `mem-plan --allocator=pytorch-cuda[:CONF]`: the
   replay's allocated, requested and reserved peaks should equal the run's
   (memory_stats before the reset and max_memory_* after it; reserved only
   grows here, so its peak is step 2's).

    python3 bench/gpu/pytorch_memory.py [--mem-plan build/bin/mem-plan]
        [--models resnet18,gpt,...] [--optimizers sgd,adamw]
        [--conf '' --conf expandable_segments:True] [--out DIR]

It prints a Markdown table and writes the traces' CSVs and a JSON of every
number to --out (default bench/gpu/results/pytorch-memory). Without a CUDA
device it says so and exits 2.
"""

import argparse
import json
import os
import re
import subprocess
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
MODELS = {
    # name: (builder, input kind, input shape)
    "resnet18": ("torchvision.models:resnet18", "image", [32, 3, 224, 224]),
    "resnet50": ("torchvision.models:resnet50", "image", [32, 3, 224, 224]),
    "mobilenet_v3_small": ("torchvision.models:mobilenet_v3_small", "image", [32, 3, 224, 224]),
    "efficientnet_b0": ("torchvision.models:efficientnet_b0", "image", [32, 3, 224, 224]),
    "vit_b_16": ("torchvision.models:vit_b_16", "image", [8, 3, 224, 224]),
    "gpt": ("test/Import/models/gpt.py:GPT", "tokens", [8, 256]),
}
GPT_CONFIG = {"vocab_size": 50304, "block_size": 256, "n_layer": 6, "n_head": 12,
              "n_embd": 768}


def build(name):
    import importlib
    import importlib.util
    spec, kind, shape = MODELS[name]
    module, cls = spec.split(":")
    if module.endswith(".py"):
        loader = importlib.util.spec_from_file_location("model", os.path.join(ROOT, module))
        mod = importlib.util.module_from_spec(loader)
        loader.loader.exec_module(mod)
        return getattr(mod, cls)(**GPT_CONFIG), kind, shape
    return getattr(importlib.import_module(module), cls)(num_classes=10), kind, shape


def run_case(args):
    """Child process: one model, one optimizer, one allocator configuration."""
    import torch
    import torch.nn.functional as F
    torch.cuda.memory._record_memory_history(max_entries=10_000_000)
    model, kind, shape = build(args.case_model)
    model = model.cuda()
    if kind == "image":
        x = torch.randn(shape, device="cuda")
        y = torch.randint(0, 10, (shape[0],), device="cuda")
    else:
        x = torch.randint(0, GPT_CONFIG["vocab_size"], shape, device="cuda")
        y = torch.randint(0, GPT_CONFIG["vocab_size"], shape, device="cuda")
    optimizer = {"sgd": torch.optim.SGD, "adam": torch.optim.Adam,
                 "adamw": torch.optim.AdamW}[args.case_optimizer](model.parameters(), lr=1e-3)
    loss = None
    step_start, before = None, None
    for step in (1, 2):
        if step == 2:
            torch.cuda.synchronize()
            before = torch.cuda.memory_stats()
            torch.cuda.reset_peak_memory_stats()
            step_start = len(torch.cuda.memory._snapshot()["device_traces"][0])
        optimizer.zero_grad(set_to_none=True)
        if kind == "image":
            loss = F.cross_entropy(model(x), y)
        else:
            _, loss = model(x, y)
        loss.backward()
        optimizer.step()
    torch.cuda.synchronize()
    after = torch.cuda.memory_stats()
    result = {
        # What a user reads after resetting the peaks before step 2.
        "allocated": torch.cuda.max_memory_allocated(),
        "reserved": torch.cuda.max_memory_reserved(),
        "requested": after["requested_bytes.all.peak"],
        # The whole run's peaks (model, batch, step 1, step 2), which the
        # replay of the whole trace gives.
        "run_allocated": max(before["allocated_bytes.all.peak"],
                             after["allocated_bytes.all.peak"]),
        "run_requested": max(before["requested_bytes.all.peak"],
                             after["requested_bytes.all.peak"]),
    }
    # Each alloc entry carries the requested size (orig_size); a block is
    # reusable at free_completed (one stream: right after free_requested).
    trace = torch.cuda.memory._snapshot()["device_traces"][0]
    blocks, live, current, step_peak = [], {}, 0, 0
    for index, entry in enumerate(trace):
        action, addr, size = entry["action"], entry["addr"], entry["size"]
        if action == "alloc":
            live[addr] = len(blocks)
            blocks.append([index, None, size])
            current += size
        elif action == "free_completed" and addr in live:
            blocks[live.pop(addr)][1] = index
            current -= size
        if index >= step_start:
            step_peak = max(step_peak, current)
    end = len(trace) + 1
    with open(args.case_csv, "w") as f:
        f.write("id,lower,upper,size\n")
        for i, (lower, upper, size) in enumerate(blocks):
            f.write(f"{i},{lower},{upper if upper is not None else end},{size}\n")
    result["trace_entries"] = len(trace)
    result["trace_step_requested_peak"] = step_peak
    print(json.dumps(result))


def replay(mem_plan, csv, conf):
    allocator = "pytorch-cuda" + (":" + conf if conf else "")
    out = subprocess.run([mem_plan, "--time-limit=0", csv, f"--allocator={allocator}"],
                         check=True, capture_output=True, text=True).stdout
    return {k: int(v) for k, v in re.findall(r"^(\w+_bytes): (\d+)$", out, re.M)}


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--mem-plan", default=os.path.join(ROOT, "build", "bin", "mem-plan"))
    parser.add_argument("--models", default="resnet18,mobilenet_v3_small,gpt")
    parser.add_argument("--optimizers", default="sgd,adamw")
    parser.add_argument("--conf", action="append",
                        help="PYTORCH_CUDA_ALLOC_CONF values to run (default: '' and "
                             "expandable_segments:True)")
    parser.add_argument("--out", default=os.path.join(ROOT, "bench", "gpu", "results",
                                                      "pytorch-memory"))
    parser.add_argument("--case-model", help=argparse.SUPPRESS)
    parser.add_argument("--case-optimizer", help=argparse.SUPPRESS)
    parser.add_argument("--case-csv", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.case_model:
        return run_case(args)
    import torch
    if not torch.cuda.is_available():
        print("pytorch_memory.py: error: no CUDA device", file=sys.stderr)
        return 2
    os.makedirs(args.out, exist_ok=True)
    confs = args.conf if args.conf else ["", "expandable_segments:True"]
    rows, numbers = [], []
    for name in args.models.split(","):
        for optimizer in args.optimizers.split(","):
            for conf in confs:
                tag = f"{name}-{optimizer}-{conf.replace(':', '_') or 'default'}"
                csv = os.path.join(args.out, tag + ".csv")
                env = dict(os.environ, PYTORCH_CUDA_ALLOC_CONF=conf)
                child = subprocess.run(
                    [sys.executable, __file__, "--case-model", name, "--case-optimizer",
                     optimizer, "--case-csv", csv], env=env, capture_output=True, text=True)
                if child.returncode != 0:
                    rows.append(f"| {name} | {optimizer} | {conf or 'default'} | failed: "
                                f"{child.stderr.strip().splitlines()[-1:]} |")
                    continue
                measured = json.loads(child.stdout.strip().splitlines()[-1])
                replayed = replay(args.mem_plan, csv, conf)
                numbers.append({"model": name, "optimizer": optimizer, "conf": conf,
                                "measured": measured, "replayed": replayed})
                rows.append(
                    f"| {name} | {optimizer} | {conf or 'default'} | {measured['allocated']} | "
                    f"{measured['reserved']} | {measured['run_allocated']} / "
                    f"{replayed.get('allocated_peak_bytes')} | {measured['run_requested']} / "
                    f"{replayed.get('requested_peak_bytes')} | {measured['reserved']} / "
                    f"{replayed.get('reserved_peak_bytes')} | {measured['requested']} / "
                    f"{measured['trace_step_requested_peak']} |")
    print(f"torch {torch.__version__}, {torch.cuda.get_device_name()}\n")
    print("| model | optimizer | PYTORCH_CUDA_ALLOC_CONF | max_memory_allocated (step 2) | "
          "max_memory_reserved (step 2) | run's allocated peak: measured / replayed | "
          "requested: measured / replayed | reserved: measured / replayed | step 2's "
          "requested peak: memory_stats / trace |")
    print("|---|---|---|---|---|---|---|---|---|")
    print("\n".join(rows))
    with open(os.path.join(args.out, "numbers.json"), "w") as f:
        json.dump(numbers, f, indent=1)
    return 0


if __name__ == "__main__":
    sys.exit(main())
