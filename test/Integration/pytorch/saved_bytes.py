"""Saved-activation bytes per transformer block, PyTorch against memopt.

    saved_bytes.py torch [--autocast bf16] [--verbose]
        Runs gpt2.py's model forward under torch.autograd.graph.
        saved_tensors_hooks and records every tensor autograd saves for the
        backward pass, attributed to the block whose forward saved it.
    saved_bytes.py memopt LIVENESS [--verbose]
        Reads `mem-opt --train-lifetimes --test-print-tensor-liveness` of
        the step and sums the buffers of class `activation` per layer.

Both print, per block h.L, `block h.L: activations = N bytes` and the bytes of
low-precision copies of parameters kept for the backward pass
(`param_copies = N bytes`). The rules, so that the two count the same thing:

PyTorch: a tensor saved twice, or a view of a tensor already saved (the
probs @ v matmul saves a reshaped view of the softmax output that softmax
saved), counts once: saved tensors are
keyed by their storage (storage data_ptr) and a storage counts its whole
size (what it keeps alive). Parameters (float32 masters, alive anyway) are
left out; autocast's bf16 copies of parameters, which its cast cache keeps
for the backward pass, are param_copies. Tensors without a gradient
function count as activations when they are floating-point and not 0-d
(LayerNorm's mean and rstd, outputs of an op that have no gradient);
the others are constants and left out (the token ids the embedding saves,
the causal mask, the 0-d scale of `scores * scale`), as are tensors saved by
a block that an earlier block already saved.

memopt: an activation buffer belongs to block h.L when its name (its
defining op's location) starts with `h.L.`. Buffers named after a parameter
(`<param>.bf16`, `<param>.bf16.f32`) are param_copies.

The tensor between two blocks: PyTorch's block h.L counts its input (saved
by its first LayerNorm) and not its output (saved by the next block's
LayerNorm, or the final one); memopt's block counts its output's f32 copy
(h.L.resid2.f32, which the next LayerNorm reads) and not its input
(`embed.f32` or h.(L-1).resid2.f32). Both are one [batch, seq, hidden] f32
tensor, so the per-block totals compare; only the block that is charged
with the boundary tensor differs.
"""

import argparse
import collections
import os
import re
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

LIVENESS_LINE = re.compile(
    r"^\s+(\S+): (\d+) bytes, (\w+), live \[(\d+), (\d+)\]")
LAYER = re.compile(r"^(h\.\d+)\.")


def memopt(path, verbose):
    params = set()
    activations = []
    with open(path) as f:
        for line in f:
            match = LIVENESS_LINE.match(line)
            if not match:
                continue
            name, size, cls = match.group(1), int(match.group(2)), match.group(3)
            if cls == "parameter":
                params.add(name)
            elif cls == "activation":
                activations.append((name, size))
    acts = collections.OrderedDict()
    copies = collections.OrderedDict()
    for name, size in activations:
        layer = LAYER.match(name)
        if not layer:
            if verbose:
                print("  (outside the blocks) %s: %d bytes" % (name, size))
            continue
        block = layer.group(1)
        base = re.sub(r"(\.bf16|\.f16|\.f32)+$", "", name)
        is_copy = base in params and base != name
        table = copies if is_copy else acts
        table[block] = table.get(block, 0) + size
        acts.setdefault(block, 0)
        copies.setdefault(block, 0)
        if verbose:
            print("  %s %s: %d bytes%s" % (block, name, size,
                                           " (param copy)" if is_copy else ""))
    for block in acts:
        print("block %s: activations = %d bytes param_copies = %d bytes"
              % (block, acts[block], copies[block]))


def describe(t):
    fn = type(t.grad_fn).__name__ if t.grad_fn is not None else "leaf"
    return "%s %s %s" % (fn, str(t.dtype).replace("torch.", ""),
                         list(t.shape))


def parameter_derived(t, param_fns):
    """True for a parameter or a cast/view of one: every path back from its
    grad_fn through single-input functions ends at a parameter."""
    fn = t.grad_fn
    while fn is not None:
        if fn in param_fns:
            return True
        nexts = [n for n, _ in fn.next_functions if n is not None]
        if len(nexts) != 1:
            return False
        fn = nexts[0]
    return False


def torch_blocks(autocast, verbose):
    import torch

    from gpt2 import CONFIG, build_torch

    torch.set_num_threads(1)
    p, forward = build_torch(dict(CONFIG), autocast)
    params = {t.data_ptr(): name for name, t in p.items()}
    # The AccumulateGrad node of each parameter: p.expand_as(p).grad_fn
    # .next_functions[0][0] is the parameter's accumulator.
    param_fns = set()
    for t in p.values():
        param_fns.add(t.expand_as(t).grad_fn.next_functions[0][0])
    state = {"block": None}
    seen = {}
    table = collections.OrderedDict()

    def on_layer(layer):
        state["block"] = None if layer is None else "h.%d" % layer

    def pack(t):
        block = state["block"]
        storage = t.storage()
        key = storage.data_ptr()
        size = storage.nbytes()
        if block is None:
            return t
        acts, copies, notes = table.setdefault(block, [0, 0, []])
        if key in seen:
            if verbose:
                notes.append("  %s again (saved in %s): %s" % (
                    block, seen[key], describe(t)))
            return t
        seen[key] = block
        if t.data_ptr() in params or (t.grad_fn is None and t.requires_grad):
            kind = "parameter"
        elif parameter_derived(t, param_fns):
            kind = "param copy"
            table[block][1] += size
        elif t.grad_fn is None and not (t.is_floating_point() and t.dim()):
            kind = "constant"
        else:
            kind = "activation"
            table[block][0] += size
        if verbose:
            notes.append("  %s %s: %d bytes%s (%s)" % (
                block, describe(t), size,
                "" if storage.nbytes() == t.numel() * t.element_size()
                else " storage of a view", kind))
        return t

    with torch.autograd.graph.saved_tensors_hooks(pack, lambda t: t):
        forward(on_layer)
    for block, (acts, copies, notes) in table.items():
        for note in notes:
            print(note)
        print("block %s: activations = %d bytes param_copies = %d bytes"
              % (block, acts, copies))


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    sub = parser.add_subparsers(dest="side", required=True)
    t = sub.add_parser("torch")
    t.add_argument("--autocast", choices=["bf16"], default=None)
    t.add_argument("--verbose", action="store_true")
    m = sub.add_parser("memopt")
    m.add_argument("liveness")
    m.add_argument("--verbose", action="store_true")
    args = parser.parse_args()
    if args.side == "torch":
        torch_blocks(args.autocast, args.verbose)
    else:
        memopt(args.liveness, args.verbose)


if __name__ == "__main__":
    main()
