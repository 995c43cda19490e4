"""`predict --budget SIZE`: which settings bring the step under a budget.

The number held against the budget is the one an out-of-memory error
depends on: `reserved_peak_bytes` on CUDA (what the caching allocator holds),
`allocated_peak_bytes` on the CPU. Each setting is tried by predicting the
step again with it (the same trace, not an estimate):

- `--set-to-none true`, when it was false: step 1's gradients are freed
  before step 2's backward instead of kept;
- the single-tensor optimizer loop, when `--foreach` was given: foreach ops
  hold every parameter's temporary at once;
- `--allocator-conf expandable_segments:True` on CUDA: segments that grow
  instead of one per large request;
- `--checkpoint`: torch.utils.checkpoint around the model's repeated blocks
  (the members of an nn.Sequential or nn.ModuleList that are of one class,
  have parameters and come at least twice: transformer layers, residual
  blocks), all of them, then every second one; its cost is the matrix
  products' and convolutions' FLOPs the backward runs again, as a share of
  the forward's;
- the largest batch (the first dimension of --input or --input-ids, and of
  the labels) that fits with the settings given, found by bisection.
"""

import copy

import torch
import torch.utils.checkpoint

from .exporter import ExportError


def repeated_blocks(model):
    """Names of the model's repeated blocks, in order (see the docstring)."""
    names = []
    for prefix, module in model.named_modules():
        if not isinstance(module, (torch.nn.Sequential, torch.nn.ModuleList)):
            continue
        children = list(module.named_children())
        kinds = {}
        for _, child in children:
            kinds[type(child)] = kinds.get(type(child), 0) + 1
        for name, child in children:
            if kinds[type(child)] >= 2 and any(True for _ in child.parameters()):
                names.append(prefix + "." + name if prefix else name)
    # An outer block that contains blocks of its own is kept; its inner ones
    # are dropped (checkpointing the outer one covers them).
    return [n for n in names if not any(n.startswith(o + ".") for o in names if o != n)]


def apply_checkpoint(model, spec):
    """Wraps the forward of each module named in `spec` (comma-separated
    names as in model.named_modules(), or 'blocks' for repeated_blocks,
    'blocks/2' for every second one) in torch.utils.checkpoint; returns the
    names."""
    if not spec:
        return []
    if spec in ("blocks", "blocks/2"):
        names = repeated_blocks(model)
        if spec == "blocks/2":
            names = names[::2]
        if not names:
            raise ExportError("--checkpoint %s: the model has no repeated blocks (give "
                              "module names instead)" % spec)
    else:
        names = [n.strip() for n in spec.split(",") if n.strip()]
    modules = dict(model.named_modules())
    for name in names:
        if name not in modules or not name:
            raise ExportError(f"--checkpoint: the model has no module '{name}'")
        module = modules[name]

        def forward(*inputs, _forward=module.forward):
            # The reentrant variant of torch 1.13 (the non-reentrant one
            # would replace predict's saved-tensor hooks); RNG state not
            # saved: the recomputed dropout masks differ, their memory not.
            # A block none of whose inputs needs a gradient (the first one,
            # on the data) runs as it is: the reentrant checkpoint would
            # leave its parameters without gradients.
            if not torch.is_grad_enabled() or not any(
                    isinstance(x, torch.Tensor) and x.requires_grad for x in inputs):
                return _forward(*inputs)
            return torch.utils.checkpoint.checkpoint(_forward, *inputs, use_reentrant=True,
                                                     preserve_rng_state=False)
        module.forward = forward
    return names


def _held(result):
    return result.get("reserved_peak_bytes", result["allocated_peak_bytes"])


def _with(args, **changes):
    changed = copy.copy(args)
    for key, value in changes.items():
        setattr(changed, key, value)
    changed.budget = None
    return changed


def _batch_args(args, batch):
    shape = list(args.input if args.input is not None else args.input_ids)
    shape[0] = batch
    changes = {"input" if args.input is not None else "input_ids": shape}
    if args.labels:
        changes["labels"] = [batch] + list(args.labels[1:])
    return _with(args, **changes)


def _largest_batch(args, predict, budget):
    """(batch, held bytes) of the largest batch that fits, or (0, None)."""
    batch = (args.input if args.input is not None else args.input_ids)[0]
    low, high, held = 0, None, None
    size = batch
    while high is None:  # grow until a batch does not fit
        result = predict(_batch_args(args, size))
        if _held(result) <= budget:
            low, held = size, _held(result)
            size *= 2
            if size > 1 << 20:
                return low, held
        else:
            high = size
    while high - low > 1:
        mid = (low + high) // 2
        result = predict(_batch_args(args, mid))
        if _held(result) <= budget:
            low, held = mid, _held(result)
        else:
            high = mid
    return low, held


def recommend(args, predict, base):
    """[{setting, held_bytes, fits, ...}] for the settings that apply."""
    budget = args.budget
    tries = []
    if not args.set_to_none:
        tries.append(("--set-to-none true", _with(args, set_to_none=True), None))
    if args.foreach:
        tries.append(("no --foreach", _with(args, foreach=False), None))
    if args.device == "cuda" and "expandable_segments" not in (args.allocator_conf or ""):
        conf = ",".join(c for c in (args.allocator_conf, "expandable_segments:True") if c)
        tries.append(("--allocator-conf " + conf, _with(args, allocator_conf=conf), None))
    if not args.checkpoint:
        for spec in ("blocks", "blocks/2"):
            tries.append(("--checkpoint " + spec, _with(args, checkpoint=spec), spec))
    rows = []
    base_forward = base["flops_by_phase"].get("forward", 0) + \
        base["flops_by_phase"].get("loss", 0)
    for label, changed, spec in tries:
        try:
            result = predict(changed)
        except ExportError as error:
            rows.append({"setting": label, "error": str(error)})
            continue
        row = {"setting": label, "held_bytes": _held(result),
               "fits": _held(result) <= budget}
        if spec:
            extra = result["flops_by_phase"].get("backward", 0) - \
                base["flops_by_phase"].get("backward", 0)
            row["modules"] = result.get("checkpointed", [])
            row["recompute_flops"] = max(0, extra)
            row["recompute_share"] = round(max(0, extra) / max(1, base_forward), 3)
        rows.append(row)
    batch, held = _largest_batch(args, predict, budget)
    rows.append({"setting": "largest batch that fits", "batch": batch, "held_bytes": held,
                 "fits": batch > 0})
    return rows
