#!/usr/bin/env python3
"""memopt's predicted peak beside PyTorch's measured peak, one training step.

For each model and optimizer (nanoGPT-style GPT and torchvision's ResNet-18,
each with SGD and with Adam) this script

1. exports the model with `python3 -m memopt_torch export` (graph, initial
   weights and the example batch),
2. builds the step with mem-import and `mem-opt --train-autodiff`, and reads
   memopt's prediction from `--train-lifetimes --train-memory-report`
   (format=json) and its buffers from `--test-print-tensor-liveness`,
3. runs the step on the CPU with `mem-run --steps 1 --measure-peak`,
4. runs the same model, weights, batch and optimizer in PyTorch eager (a
   child process, one thread) and measures the allocator's bytes of one
   step with torch.profiler, attributing every allocation to a component,

and prints Markdown: the peaks, the components at each peak, the peaks per
phase and the saved activations per layer (bench/import/README.md).

    python3 bench/import/memory.py [--bin build/bin] [--work DIR] [--json FILE]
                                   [--verbose]

How PyTorch is measured (README.md, "What is measured"):

* Step 2 of `zero_grad(set_to_none=True); forward; loss; backward;
  optimizer.step()` is profiled. Step 1 ran before, unprofiled, so Adam's
  exp_avg, exp_avg_sq and step exist before the step, as memopt's optimizer
  states persist; the .grad of every parameter is None when the step starts,
  so gradients are created in the step, as in memopt's model. The column
  ".grad kept" measures the same step after `zero_grad(set_to_none=False)`,
  torch 1.13's default, where the zeroed .grad tensors persist.
* Baseline: the unique storages live before the step that the step reads:
  parameters, optimizer states, module buffers (GPT's causal masks,
  BatchNorm's running statistics) and the batch (input, labels); .grad too
  under ".grad kept".
* c10's CPU allocator reports every allocation and free with its exact byte
  size to the profiler (profile_memory=True: `[memory]` events of
  kineto_results.experimental_event_tree(), ns timestamps). Summed in time
  order they give the bytes live at each moment; peak = baseline + the
  largest prefix sum.
* Saved tensors: torch.autograd.graph.saved_tensors_hooks' pack hook sees
  every tensor autograd saves and emits a profiler marker that allocates
  nothing; the marker ties the save to the live allocation of the tensor's
  storage (storage data_ptr), so a storage counts once and whole (a saved
  view keeps its whole base alive), as test/Integration/pytorch/
  saved_bytes.py counts. Parameters and the batch are saved too, but they
  are baseline, not allocations of the step.
"""

import argparse
import collections
import gc
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
PYTHON = "/usr/bin/python3" if os.path.exists("/usr/bin/python3") else sys.executable
MIB = 1 << 20
LR = 0.01
OPTIMIZERS = ["sgd", "adam"]
MODELS = [
    {"name": "GPT", "spec": os.path.join(ROOT, "test/Import/models/gpt.py") + ":GPT",
     "config": {"vocab_size": 512, "block_size": 64, "n_layer": 2, "n_head": 4,
                "n_embd": 64},
     "input": ["--input-ids", "4x64"], "loss": "model", "shape": "ids 4x64"},
    {"name": "ResNet-18", "spec": "torchvision.models:resnet18",
     "config": {"num_classes": 10},
     "input": ["--input", "8x3x64x64"], "loss": "cross_entropy", "shape": "8x3x64x64"},
]
# Run only when named in --models: torchvision models with squeeze-and-excitation
# gates (x * broadcast(scale)), dense and plain blocks.
for _name in ["regnet_y_400mf", "efficientnet_b0", "mobilenet_v3_small", "squeezenet1_0",
              "resnet34", "densenet121"]:
    MODELS.append({"name": _name, "spec": "torchvision.models:" + _name,
                   "config": {"num_classes": 10}, "input": ["--input", "8x3x64x64"],
                   "loss": "cross_entropy", "shape": "8x3x64x64", "extra": True})
# A plain-PyTorch Llama (RMSNorm, rotary, grouped-query attention with a
# masked_fill causal mask, SwiGLU), logits and cross-entropy; also only when named.
MODELS.append({"name": "Llama", "spec": os.path.join(ROOT, "test/Import/models/llama.py") + ":Llama",
               "config": {"vocab_size": 512, "dim": 256, "n_layer": 4, "n_head": 8,
                          "n_kv_head": 4, "hidden": 688},
               "input": ["--input-ids", "2x128"], "loss": "cross_entropy",
               "shape": "ids 2x128", "extra": True})
# Fine-tuning, also only when named: the GPT above with its embeddings (and
# so its tied LM head) and first block frozen, and LoRA adapters (rank 8) on
# the attention projections of the Llama above, every other parameter frozen.
MODELS.append({"name": "GPT-frozen",
               "spec": os.path.join(ROOT, "test/Import/models/finetune.py") + ":frozen_gpt",
               "config": MODELS[0]["config"], "input": ["--input-ids", "4x64"],
               "loss": "model", "shape": "ids 4x64", "extra": True})
MODELS.append({"name": "LoRA-Llama",
               "spec": os.path.join(ROOT, "test/Import/models/lora.py") + ":lora_llama",
               "config": dict(next(m for m in MODELS if m["name"] == "Llama")["config"],
                              r=8, alpha=16),
               "input": ["--input-ids", "2x128"], "loss": "cross_entropy",
               "shape": "ids 2x128", "extra": True})

# PyTorch's components of the step's allocations, then its baseline.
STEP_COMPONENTS = ["gradient", "activation", "output", "loss", "forward",
                   "backward", "optimizer"]
BASELINE = ["parameter", "optimizer_state", "gradient", "buffer", "input"]
WHAT = {"gradient": "the gradient", "activation": "an activation autograd saves",
        "output": "the model's output", "loss": "the loss",
        "forward": "a forward value autograd does not save",
        "backward": "a backward temporary", "optimizer": "an optimizer temporary"}


def mb(n):
    return "%.2f MiB" % (n / MIB)


def both(n):
    """`4365324 B (4.16 MiB)`."""
    return "%d B (%s)" % (n, mb(n))


def signed(n):
    return ("+" if n > 0 else "") + "%d B (%s%.2f MiB)" % (n, "+" if n > 0 else "",
                                                             n / MIB)


# --------------------------------------------------------------------------
# PyTorch side (a child process: `memory.py torch ...`, prints JSON)
# --------------------------------------------------------------------------

def torch_step(args):
    import torch
    from torch.profiler import ProfilerActivity, profile

    from memopt_torch import exporter, safetensors

    torch.set_num_threads(1)
    torch.manual_seed(0)
    model = exporter.load_model(args.model, json.loads(args.config))
    model.train()
    tensors, _ = safetensors.load(args.weights)
    params = exporter.unique_parameters(model)
    with torch.no_grad():
        for name, p in params:
            p.copy_(tensors[name])
    example, labels = tensors["arg0"], tensors["arg1"]
    del tensors
    weights = [p for _, p in params]
    names = {id(p): name for name, p in params}
    if args.optimizer == "sgd":
        optimizer = torch.optim.SGD(weights, lr=args.lr)
    else:
        # As `python3 -m memopt_torch train` builds it.
        optimizer = torch.optim.Adam(weights, lr=args.lr, foreach=False)
    modules = exporter._ModuleStack(model)  # the train.layer of the running op
    has_children = modules.has_children

    def forward():
        if args.loss == "model":
            output = model(example, labels)
        else:
            output = model(example)
        return output, exporter.loss_of(output, args.loss, labels)

    def mark(name):
        # A profiler event that allocates nothing (record_function's context
        # manager allocates a handle tensor in torch 1.13).
        handle = torch.ops.profiler._record_function_enter_new(name, None)
        torch.ops.profiler._record_function_exit._RecordFunction(handle)

    # Step 1, not measured: creates Adam's states.
    optimizer.zero_grad(set_to_none=True)
    output, loss = forward()
    loss.backward()
    optimizer.step()
    loss1 = float(loss)
    del output, loss
    optimizer.zero_grad(set_to_none=(args.zero_grad == "none"))
    gc.collect()

    baseline = collections.OrderedDict((k, 0) for k in BASELINE)
    seen = set()

    def count(kind, t):
        if not isinstance(t, torch.Tensor):
            return
        storage = t.storage()
        if storage.data_ptr() in seen or storage.nbytes() == 0:
            return
        seen.add(storage.data_ptr())
        baseline[kind] += storage.nbytes()

    for p in weights:
        count("parameter", p)
    for state in optimizer.state.values():
        for t in state.values():
            count("optimizer_state", t)
    for p in weights:
        count("gradient", p.grad)
    for _, b in model.named_buffers():
        count("buffer", b)
    count("input", example)
    count("input", labels)
    param_ptrs = {p.storage().data_ptr() for p in weights}

    saved = []  # every tensor autograd saves in the step's forward + loss

    def pack(t):
        storage = t.storage()
        module, _, layer = modules.current()
        fn = type(t.grad_fn).__name__ if t.grad_fn is not None else (
            "parameter" if storage.data_ptr() in param_ptrs else "no grad_fn")
        saved.append({"ptr": storage.data_ptr(), "bytes": storage.nbytes(),
                      "layer": layer or "(other)", "module": module or "(loss)",
                      "fn": fn, "dtype": str(t.dtype).replace("torch.", ""),
                      "shape": list(t.shape),
                      "view": storage.nbytes() != t.numel() * t.element_size()})
        mark("memopt.saved:%d" % (len(saved) - 1))
        return t

    # Zero-allocation markers when a module's forward starts and ends, so
    # that each allocation gets the layer of the op that made it (memopt's
    # rule: a buffer's layer is its defining op's train.layer).
    hooks = []
    for name, module in model.named_modules():
        hooks.append(module.register_forward_pre_hook(
            lambda m, i, name=name: mark("memopt.enter:" + name)))
        hooks.append(module.register_forward_hook(
            lambda m, i, o, name=name: mark("memopt.leave:" + name)))

    with profile(activities=[ProfilerActivity.CPU], profile_memory=True) as prof:
        mark("memopt.phase:forward")
        with torch.autograd.graph.saved_tensors_hooks(pack, lambda t: t):
            output, loss = forward()
        mark("memopt.phase:backward")
        loss.backward()
        mark("memopt.phase:optimizer")
        optimizer.step()
        mark("memopt.phase:end")
    loss2 = float(loss)
    for hook in hooks:
        hook.remove()

    # Every allocation, free and marker of the step, in time order.
    events = []

    def walk(nodes, parents):
        for node in nodes:
            if node.name == "[memory]":
                extra = node.extra_fields
                events.append((node.start_time_ns, len(events), "mem",
                               (extra.ptr, extra.alloc_size, parents)))
                continue
            if node.name.startswith("memopt."):
                events.append((node.start_time_ns, len(events), "mark", node.name))
            walk(node.children, parents + [node.name])

    walk(prof.profiler.kineto_results.experimental_event_tree(), [])
    events.sort(key=lambda e: (e[0], e[1]))

    # Pass 1: the allocations (records), what each holds at the end, and the
    # storage each saved tensor lives in.
    records = []
    live = {}
    phase = "before"
    unknown_frees = 0
    stack = []

    def layer_now():
        # exporter._ModuleStack.current()'s rule, on the marker stack.
        if not stack:
            return "(other)"
        for outer in reversed(stack):
            if outer and has_children.get(outer):
                return outer
        return stack[-1] or "(other)"

    for _, _, kind, payload in events:
        if kind == "mark":
            what, _, value = payload[len("memopt."):].partition(":")
            if what == "phase":
                phase = value
            elif what == "enter":
                stack.append(value)
            elif what == "leave":
                stack.pop()
            else:
                record = live.get(saved[int(value)]["ptr"])
                if record is not None:
                    record["saved"].append(int(value))
            continue
        ptr, size, parents = payload
        if size > 0:
            record = {"id": len(records), "bytes": size, "phase": phase,
                      "ops": parents, "saved": [], "tag": None, "layer": layer_now()}
            records.append(record)
            live[ptr] = record
        else:
            record = live.pop(ptr, None)
            if record is None:
                unknown_frees += 1  # allocated before the profile
            elif record["bytes"] != -size:
                raise SystemExit("free of %d B at an allocation of %d B" % (-size,
                                                                          record["bytes"]))
    end_live = sum(r["bytes"] for r in live.values())
    grad_bytes = 0
    for p in weights:
        if p.grad is None:
            continue
        grad_bytes += p.grad.storage().nbytes()
        record = live.get(p.grad.storage().data_ptr())
        if record is not None:
            record["tag"] = ("gradient", names[id(p)])
    outputs = list(output) if isinstance(output, (tuple, list)) else [output]
    for o in [loss] + outputs:
        if isinstance(o, torch.Tensor):
            record = live.get(o.storage().data_ptr())
            if record is not None and record["tag"] is None:
                record["tag"] = ("loss" if o.dim() == 0 else "output", None)
    expected_end = sum(r["bytes"] for r in live.values() if r["tag"] is not None)

    def component(record):
        if record["tag"] is not None:
            return record["tag"][0]
        if record["saved"]:
            return "activation"
        return record["phase"]  # forward, backward or optimizer: not kept

    # The gradients in the order they are allocated: the backward's progress.
    grad_order = [r["tag"][1] for r in records
                  if r["tag"] is not None and r["tag"][0] == "gradient"]

    # Pass 2: live bytes; the maximum with its components overall, per phase,
    # and per stretch of the step during which the first k gradients exist.
    def breakdown(live_records):
        counter = collections.Counter()
        for r in live_records:
            counter[component(r)] += r["bytes"]
        return {k: counter.get(k, 0) for k in STEP_COMPONENTS}

    def describe_moment(record, current, phase):
        return {"step_bytes": current, "phase": phase,
                "ops": record["ops"],
                "allocating": WHAT.get(component(record), component(record)) + (
                    " of " + record["tag"][1] if record["tag"] and
                    record["tag"][0] == "gradient" else ""),
                "gradients": grads_now,
                "components": breakdown(live.values()),
                "largest": [{"bytes": r["bytes"], "component": component(r),
                             "ops": " > ".join(r["ops"][:1] + r["ops"][-1:])}
                            for r in sorted(live.values(), key=lambda r: -r["bytes"])[:12]],
                "temporaries": [{"bytes": r["bytes"], "component": component(r),
                                 "ops": " > ".join(r["ops"][:1] + r["ops"][-1:])}
                                for r in sorted(live.values(), key=lambda r: -r["bytes"])
                                if component(r) not in ("gradient", "activation")]}

    live = {}
    current = 0
    grads_now = 0
    peak = None
    phases = {}
    stretches = {}
    by_id = iter(records)
    phase = "before"
    for _, _, kind, payload in events:
        if kind == "mark":
            if payload.startswith("memopt.phase:"):
                phase = payload[len("memopt.phase:"):]
            continue
        ptr, size, _ = payload
        if size > 0:
            record = next(by_id)
            live[ptr] = record
            current += size
            if record["tag"] is not None and record["tag"][0] == "gradient":
                grads_now += 1
            if peak is None or current > peak["step_bytes"]:
                peak = describe_moment(record, current, phase)
            if phase not in phases or current > phases[phase]["step_bytes"]:
                phases[phase] = describe_moment(record, current, phase)
            if grads_now not in stretches or current > stretches[grads_now]["step_bytes"]:
                stretches[grads_now] = describe_moment(record, current, phase)
        else:
            if live.pop(ptr, None) is not None:
                current += size

    # The saved storages allocated in the step, each once.
    saved_list = []
    for r in records:
        if not r["saved"]:
            continue
        first = saved[r["saved"][0]]
        saved_list.append({"layer": r["layer"], "saved_in": first["layer"],
                           "module": first["module"],
                           "fns": [saved[i]["fn"] for i in r["saved"]],
                           "dtype": first["dtype"], "shape": first["shape"],
                           "bytes": r["bytes"], "view": first["view"],
                           "tag": component(r)})
    by_layer = collections.OrderedDict()
    for entry in saved_list:
        by_layer[entry["layer"]] = by_layer.get(entry["layer"], 0) + entry["bytes"]

    print(json.dumps({
        "loss1": loss1, "loss2": loss2, "zero_grad": args.zero_grad,
        "baseline": baseline, "baseline_bytes": sum(baseline.values()),
        "peak": peak, "peak_bytes": sum(baseline.values()) + peak["step_bytes"],
        "phases": phases, "stretches": {str(k): v for k, v in stretches.items()},
        "grad_order": grad_order,
        "end_bytes": end_live, "end_expected": expected_end,
        "unknown_frees": unknown_frees,
        "allocations": len(records),
        "allocated_bytes": sum(r["bytes"] for r in records),
        "gradient_bytes": grad_bytes,
        "frozen_parameter_bytes": sum(p.storage().nbytes() for p in weights
                                      if not p.requires_grad),
        "saved_bytes": sum(e["bytes"] for e in saved_list),
        "saved_by_layer": by_layer,
        "saved": saved_list,
    }))
    return 0


# --------------------------------------------------------------------------
# memopt side
# --------------------------------------------------------------------------

BUFFER = re.compile(r"^\s+(\S+): (\d+) bytes, (\w+), live \[(\d+), (\d+)\]")
POINT = re.compile(r"^\s+(\d+) (\S+): (\d+)(?: \(workspace (\d+)\))?$")


def run(cmd, **kwargs):
    result = subprocess.run(cmd, capture_output=True, text=True, **kwargs)
    if result.returncode != 0:
        sys.exit("%s failed (%d):\n%s" % (" ".join(cmd), result.returncode,
                                          result.stderr))
    return result.stdout


def memopt_case(bindir, forward_mlir, weights, optimizer, work, stem):
    mem_opt = os.path.join(bindir, "mem-opt")
    step = os.path.join(work, "%s-%s.mlir" % (stem, optimizer))
    run([mem_opt, forward_mlir, "--train-autodiff=optimizer=%s lr=%g" % (optimizer, LR),
         "-o", step])
    report = json.loads(run([mem_opt, step, "--train-lifetimes",
                             "--train-memory-report=format=json", "-o", os.devnull]))
    liveness = run([mem_opt, step, "--train-lifetimes", "--test-print-tensor-liveness",
                    "-o", os.devnull])
    buffers, workspace = [], {}
    for line in liveness.splitlines():
        match = BUFFER.match(line)
        if match:
            buffers.append({"name": match.group(1), "bytes": int(match.group(2)),
                            "class": match.group(3), "start": int(match.group(4)),
                            "end": int(match.group(5))})
            continue
        match = POINT.match(line)
        if match and match.group(4):
            workspace[int(match.group(1))] = int(match.group(4))
    started = time.time()
    out = run([os.path.join(bindir, "mem-run"), step, "--steps", "1",
               "--init-from", weights, "--measure-peak"])
    memrun = {"seconds": time.time() - started}
    for line in out.splitlines():
        match = re.match(r"(step 1: loss|\w+_bytes)(?: =|:) (\S+)$", line)
        if match:
            key = "loss" if match.group(1).startswith("step") else match.group(1)
            memrun[key] = float(match.group(2)) if key == "loss" else int(match.group(2))
    timeline = report["timeline"]
    loss_point = report["saved_activations"]["loss_point"]
    first_update = min((p["point"] for p in timeline
                        if p["op"] in ("train.sgd", "train.adam", "train.adamw")),
                       default=len(timeline))

    def phase_of(point):
        if point <= loss_point:
            return "forward"
        return "backward" if point < first_update else "optimizer"

    phases = {}
    for p in timeline:
        ph = phase_of(p["point"])
        if ph not in phases or p["live_bytes"] > phases[ph]["live_bytes"]:
            phases[ph] = p
    return {"report": report, "buffers": buffers, "workspace": workspace,
            "memrun": memrun, "phases": phases, "loss_point": loss_point,
            "peak_phase": phase_of(report["peak_point"])}


def memopt_gradients(buffers, params):
    """{param name: the point memopt defines its gradient}, by the module and
    byte size of the gradient buffers (`layer4.1.conv2.grad`, `...grad#1`)."""
    pool = collections.defaultdict(list)
    for b in buffers:
        if b["class"] == "gradient":
            module = re.sub(r"\.grad(#\d+)?$", "", b["name"])
            pool[(module, b["bytes"])].append(b["start"])
    for starts in pool.values():
        starts.sort()
    points = {}
    for name, nbytes in params:
        starts = pool.get((name.rsplit(".", 1)[0], nbytes))
        if starts:
            points[name] = starts.pop(0)
    return points


# --------------------------------------------------------------------------
# The comparison
# --------------------------------------------------------------------------

ROWS = [
    # (row, memopt class, PyTorch baseline keys, PyTorch step components)
    ("parameters", "parameter", ["parameter"], []),
    ("optimizer states", "optimizer_state", ["optimizer_state"], []),
    ("gradients", "gradient", ["gradient"], ["gradient"]),
    ("saved activations", "activation", [], ["activation"]),
    ("model output held by the caller", None, [], ["output"]),
    ("temporaries", "temporary", [], ["backward", "optimizer", "forward", "loss"]),
    ("inputs (batch, constants)", "input", ["input"], []),
    ("module buffers", None, ["buffer"], []),
]


def torch_rows(baseline, components):
    values = []
    for _, _, base, step in ROWS:
        values.append(sum(baseline.get(k, 0) for k in base) +
                      sum(components.get(k, 0) for k in step))
    return values


def memopt_rows(by_class):
    return [by_class.get(cls, 0) if cls else 0 for _, cls, _, _ in ROWS]


def compare(case):
    """The same moment in both: memopt's stretch of the step that holds the
    gradients PyTorch holds at its peak, and PyTorch's that holds those
    memopt holds at its peak (each only where it is not the peak itself)."""
    mo, pt = case["memopt"], case["torch"]
    report = mo["report"]
    params = case["params"]
    grad_points = memopt_gradients(mo["buffers"], params)
    order = pt["grad_order"]
    aligned = {}
    k = pt["peak"]["gradients"]
    have = set(order[:k])
    if all(n in grad_points for n in order):
        timeline = report["timeline"]
        lo = max([grad_points[n] for n in have], default=0)
        later = [grad_points[n] for n in grad_points if n not in have]
        hi = min(later) - 1 if later else len(timeline) - 1
        if all(grad_points[n] <= lo for n in have) and lo <= hi:
            best = max(timeline[lo:hi + 1], key=lambda p: p["live_bytes"])
            if best["point"] != report["peak_point"]:
                aligned["memopt_at_torch_peak"] = best
        peak_point = report["peak_point"]
        held = {n for n, point in grad_points.items() if point <= peak_point}
        kk = len(held)
        if held == set(order[:kk]) and str(kk) in pt["stretches"] and kk != k:
            aligned["torch_at_memopt_peak"] = pt["stretches"][str(kk)]
    return aligned


def run_torch(model, weights, optimizer, zero_grad):
    env = dict(os.environ)
    env["PYTHONPATH"] = os.path.join(ROOT, "python") + (
        os.pathsep + env["PYTHONPATH"] if env.get("PYTHONPATH") else "")
    out = run([PYTHON, os.path.abspath(__file__), "torch", model["spec"],
               "--config", json.dumps(model["config"]), "--loss", model["loss"],
               "--weights", weights, "--optimizer", optimizer, "--zero-grad", zero_grad],
              env=env)
    return json.loads(out)


def export(model, work):
    stem = model["name"].lower().replace("-", "")
    graph = os.path.join(work, stem + ".json")
    weights = os.path.join(work, stem + ".safetensors")
    env = dict(os.environ)
    env["PYTHONPATH"] = os.path.join(ROOT, "python") + (
        os.pathsep + env["PYTHONPATH"] if env.get("PYTHONPATH") else "")
    run([PYTHON, "-m", "memopt_torch", "export", model["spec"],
         "--config", json.dumps(model["config"])] + model["input"] +
        ["--loss", model["loss"], "-o", graph, "--weights", weights], env=env)
    return stem, graph, weights


def print_tables(cases, verbose):
    print("## memopt's predicted peak and PyTorch's measured peak, one step\n")
    print("| model | optimizer | memopt predicted peak | mem-run measured peak | "
          "PyTorch measured peak | PyTorch / memopt | PyTorch, .grad kept "
          "(zero_grad() default) |")
    print("|---|---|---|---|---|---|---|")
    for c in cases:
        mo, pt, kept = c["memopt"], c["torch"], c["torch_kept"]
        load = mo["report"]["load_bytes"]
        r = mo["memrun"]
        memrun_total = (r["measured_peak_bytes"] + r["measured_persistent_bytes"] +
                        r["measured_input_bytes"])
        print("| %s (%s) | %s | %s | %s | %s | %.3f | %s (%.3f) |" % (
            c["model"]["name"], c["model"]["shape"], c["optimizer"], both(load),
            both(memrun_total), both(pt["peak_bytes"]), pt["peak_bytes"] / load,
            both(kept["peak_bytes"]), kept["peak_bytes"] / load))
    print()
    print("memopt predicted peak: LOAD of `mem-opt --train-autodiff --train-lifetimes "
          "--train-memory-report` (exact bytes, unpadded).  mem-run measured peak: "
          "`measured_peak_bytes + measured_persistent_bytes + measured_input_bytes` of "
          "`mem-run --steps 1 --measure-peak` (each buffer rounded up to 64 B).  "
          "PyTorch: baseline + the largest sum of the step's allocations (profiler), "
          "step 2, .grad None at its start; last column: .grad tensors kept between "
          "steps (baseline + gradients).\n")
    print("| model | optimizer | mem-run step allocations: measured / predicted | "
          "persistent measured / predicted | inputs measured / predicted | mem-run time |"
          " loss step 1: mem-run / PyTorch |")
    print("|---|---|---|---|---|---|---|")
    for c in cases:
        r = c["memopt"]["memrun"]
        print("| %s | %s | %d / %d | %d / %d | %d / %d | %.1f s | %.9e / %.9e |" % (
            c["model"]["name"], c["optimizer"], r["measured_peak_bytes"],
            r["predicted_peak_bytes"], r["measured_persistent_bytes"],
            r["predicted_persistent_bytes"], r["measured_input_bytes"],
            r["predicted_input_bytes"], r["seconds"], r["loss"], c["torch"]["loss1"]))
    print()

    for c in cases:
        mo, pt = c["memopt"], c["torch"]
        report = mo["report"]
        aligned = compare(c)
        print("### %s, %s\n" % (c["model"]["name"], c["optimizer"].upper()))
        peak = pt["peak"]
        ngrads = len(c["params"])
        print("- memopt's peak: point %d of %d, `%s` at `%s`, in the %s." % (
            report["peak_point"], report["num_points"], report["peak_op"]["name"],
            report["peak_op"]["location"],
            mo["peak_phase"] if mo["peak_phase"] != "optimizer" else "optimizer step"))
        print("- PyTorch's peak: in the %s, allocating %s in `%s`, %d of %d "
              "gradients allocated." % (
                  peak["phase"] if peak["phase"] != "optimizer" else "optimizer step",
                  peak["allocating"], " > ".join(peak["ops"][:1] + peak["ops"][-1:]),
                  peak["gradients"], ngrads))
        cols = ["memopt at its peak", "PyTorch at its peak", "PyTorch - memopt"]
        mrows = memopt_rows(report["by_class"])
        trows = torch_rows(pt["baseline"], peak["components"])
        extra = []
        if "memopt_at_torch_peak" in aligned:
            p = aligned["memopt_at_torch_peak"]
            cols.append("memopt holding PyTorch's peak gradients (max at point %d, %s)"
                        % (p["point"], p["op"]))
            extra.append(memopt_rows(p["by_class"]))
        if "torch_at_memopt_peak" in aligned:
            s = aligned["torch_at_memopt_peak"]
            cols.append("PyTorch holding memopt's peak gradients (%d; max in %s)" % (
                s["gradients"], " > ".join(s["ops"][:1] + s["ops"][-1:])))
            extra.append(torch_rows(pt["baseline"], s["components"]))
        print()
        print("| component | " + " | ".join(cols) + " |")
        print("|---" * (len(cols) + 1) + "|")
        for i, (row, _, _, _) in enumerate(ROWS):
            cells = [both(mrows[i]), both(trows[i]), signed(trows[i] - mrows[i])]
            cells += [both(e[i]) for e in extra]
            print("| %s | %s |" % (row, " | ".join(cells)))
        cells = [both(sum(mrows)), both(sum(trows)), signed(sum(trows) - sum(mrows))]
        cells += [both(sum(e)) for e in extra]
        print("| **total** | %s |" % " | ".join(cells))
        point = report["peak_point"]
        temps = ["`%s` %d B" % (b["name"], b["bytes"]) for b in
                 sorted(mo["buffers"], key=lambda b: -b["bytes"])
                 if b["class"] == "temporary" and b["start"] <= point <= b["end"]]
        if mo["workspace"].get(point):
            temps.append("workspace of `%s` %d B" % (report["peak_op"]["name"],
                                                     mo["workspace"][point]))
        print("\nTemporaries at the peaks. memopt: %s. PyTorch (and what else the step "
              "allocated that is neither a gradient nor saved): %s.\n" % (
                  ", ".join(temps) or "none",
                  ", ".join("%d B %s in `%s`" % (t["bytes"], t["component"], t["ops"])
                            for t in peak["temporaries"]) or "none"))
        print("| phase | memopt max | PyTorch max | PyTorch / memopt |")
        print("|---|---|---|---|")
        for ph in ["forward", "backward", "optimizer"]:
            m = mo["phases"].get(ph)
            t = pt["phases"].get(ph)
            if not m or not t:
                continue
            tb = pt["baseline_bytes"] + t["step_bytes"]
            print("| %s | %s at %s | %s in %s | %.3f |" % (
                ph, both(m["live_bytes"]), m["op"], both(tb),
                " > ".join(t["ops"][:1] + t["ops"][-1:]) or "-", tb / m["live_bytes"]))
        print()
        if verbose:
            print("PyTorch at its peak, step components: %s" % json.dumps(
                peak["components"]))
            print("PyTorch baseline: %s\n" % json.dumps(pt["baseline"]))

    print("## Saved activations over the step, per layer\n")
    print("memopt: the report's \"activations saved for backward\" (class `activation`, "
          "defined before the loss and live after it), by `train.layer`.  PyTorch: the "
          "storages its saved_tensors_hooks see that the step allocated, each once, by "
          "the same layer rule (memopt_torch's module stack).\n")
    done = set()
    for c in cases:
        if c["model"]["name"] in done:
            continue
        done.add(c["model"]["name"])
        mo, pt = c["memopt"], c["torch"]
        sa = mo["report"]["saved_activations"]
        mlayers = collections.OrderedDict((e["layer"], e["bytes"]) for e in sa["by_layer"])
        tlayers = pt["saved_by_layer"]
        print("### %s\n" % c["model"]["name"])
        print("| layer | memopt | PyTorch | PyTorch - memopt |")
        print("|---|---|---|---|")
        layers = list(mlayers) + [k for k in tlayers if k not in mlayers]
        for layer in layers:
            m, t = mlayers.get(layer, 0), tlayers.get(layer, 0)
            print("| %s | %d | %d | %+d |" % (layer, m, t, t - m))
        print("| **total** | %s | %s | %s |\n" % (both(sa["bytes"]), both(pt["saved_bytes"]),
                                                   signed(pt["saved_bytes"] - sa["bytes"])))
        if verbose:
            for e in pt["saved"]:
                print("    PyTorch saved: %-22s (saved in %-23s %-34s %-8s %-14s %8d B%s" % (
                    e["layer"], e["saved_in"] + ")", ",".join(sorted(set(e["fns"]))),
                    e["dtype"], "x".join(map(str, e["shape"])), e["bytes"],
                    " (a view)" if e["view"] else ""))
            for b in mo["buffers"]:
                if (b["class"] == "activation" and b["start"] < mo["loss_point"] < b["end"]):
                    print("    memopt saved:  %-40s %8d B live [%d, %d]" % (
                        b["name"], b["bytes"], b["start"], b["end"]))
            print()

    print("## Model states\n")
    print("| model | optimizer | parameters memopt / PyTorch | of which frozen "
          "(requires_grad=False) | gradients memopt / PyTorch "
          "| optimizer states memopt / PyTorch |")
    print("|---|---|---|---|---|---|")
    for c in cases:
        ms = c["memopt"]["report"]["model_states"]
        pt = c["torch"]
        # The report splits the weights into trained, frozen and LoRA
        # adapters' (the last two absent from older reports).
        weights = sum(ms.get(k, {}).get("bytes", 0)
                      for k in ("weights", "frozen_weights", "adapter_weights"))
        print("| %s | %s | %d / %d | %d / %d | %d / %d | %d / %d |" % (
            c["model"]["name"], c["optimizer"], weights, pt["baseline"]["parameter"],
            ms.get("frozen_weights", {}).get("bytes", 0), pt["frozen_parameter_bytes"],
            ms["gradients"]["bytes"], pt["gradient_bytes"],
            ms["optimizer_states"]["bytes"], pt["baseline"]["optimizer_state"]))
    print()


def check(cases):
    """Consistency checks; prints what fails (to stderr) and returns the count."""
    failures = 0
    for c in cases:
        label = "%s/%s" % (c["model"]["name"], c["optimizer"])
        r = c["memopt"]["memrun"]
        for key in ["peak", "persistent", "input"]:
            if r["measured_%s_bytes" % key] != r["predicted_%s_bytes" % key]:
                print("%s: mem-run measured_%s_bytes %d != predicted %d" % (
                    label, key, r["measured_%s_bytes" % key],
                    r["predicted_%s_bytes" % key]), file=sys.stderr)
                failures += 1
        for which in ["torch", "torch_kept"]:
            pt = c[which]
            if pt["unknown_frees"]:
                print("%s (%s): %d frees of memory allocated before the profile" % (
                    label, which, pt["unknown_frees"]), file=sys.stderr)
                failures += 1
            if pt["end_bytes"] != pt["end_expected"]:
                print("%s (%s): %d B live after the step, %d B of them gradients, "
                      "output and loss" % (label, which, pt["end_bytes"],
                                           pt["end_expected"]), file=sys.stderr)
                failures += 1
    return failures


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--bin", default=os.path.join(ROOT, "build", "bin"),
                        help="directory of mem-import, mem-opt, mem-run")
    parser.add_argument("--work", help="keep the exported and generated files here "
                        "(default: a temporary directory)")
    parser.add_argument("--json", help="also write every number to this file")
    parser.add_argument("--verbose", action="store_true",
                        help="also list every saved tensor / activation buffer")
    parser.add_argument("--models",
                        default=",".join(m["name"] for m in MODELS if not m.get("extra")),
                        help="comma-separated subset of: %s" % ", ".join(
                            m["name"] for m in MODELS))
    sub = parser.add_subparsers(dest="command")
    t = sub.add_parser("torch", help="(internal) measure one PyTorch step, print JSON")
    t.add_argument("model")
    t.add_argument("--config", default="{}")
    t.add_argument("--loss", required=True)
    t.add_argument("--weights", required=True)
    t.add_argument("--optimizer", choices=OPTIMIZERS, required=True)
    t.add_argument("--lr", type=float, default=LR)
    t.add_argument("--zero-grad", choices=["none", "zero"], default="none")
    args = parser.parse_args()
    if args.command == "torch":
        return torch_step(args)

    work = args.work or tempfile.mkdtemp(prefix="memopt-bench-import-")
    os.makedirs(work, exist_ok=True)
    wanted = args.models.split(",")
    cases = []
    started = time.time()
    for model in MODELS:
        if model["name"] not in wanted:
            continue
        print("%s: export" % model["name"], file=sys.stderr)
        stem, graph, weights = export(model, work)
        forward_mlir = os.path.join(work, stem + ".mlir")
        run([os.path.join(args.bin, "mem-import"), graph, "-o", forward_mlir])
        with open(graph) as f:
            params = [(p["name"], 4 * _numel(p["shape"])) for p in json.load(f)["params"]]
        for optimizer in OPTIMIZERS:
            print("%s/%s: mem-opt, mem-run" % (model["name"], optimizer), file=sys.stderr)
            mo = memopt_case(args.bin, forward_mlir, weights, optimizer, work, stem)
            print("%s/%s: PyTorch" % (model["name"], optimizer), file=sys.stderr)
            pt = run_torch(model, weights, optimizer, "none")
            kept = run_torch(model, weights, optimizer, "zero")
            cases.append({"model": model, "optimizer": optimizer, "memopt": mo,
                          "torch": pt, "torch_kept": kept, "params": params})
    print("done in %.0f s" % (time.time() - started), file=sys.stderr)
    if not args.work:
        shutil.rmtree(work)
    print_tables(cases, args.verbose)
    if args.json:
        with open(args.json, "w") as f:
            json.dump([{k: v for k, v in c.items() if k != "memopt"} |
                       {"memopt": {k: v for k, v in c["memopt"].items() if k != "report"} |
                        {"report": {k: v for k, v in c["memopt"]["report"].items()
                                    if k != "timeline"}}} for c in cases], f, indent=1)
    return 1 if check(cases) else 0


def _numel(shape):
    n = 1
    for d in shape:
        n *= d
    return n


if __name__ == "__main__":
    sys.exit(main())
