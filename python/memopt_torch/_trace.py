"""What `predict` says about a traced step beyond its peak: the breakdown at
the peak and where each piece came from (--breakdown), the budget's verdict
(--budget), and the step as a trace document for memopt's report writers
(--trace, schema memopt.eager-trace/1, docs/pytorch.md)."""

import collections
import json
import os
import tempfile

import torch
from torch.multiprocessing.reductions import StorageWeakRef

from . import exporter

COMPONENTS = ["parameters", "buffers", "inputs", "gradients", "optimizer_states",
              "output_and_loss", "saved_activations", "temporaries", "kernel_workspace"]


def breakdown(recorder, optimizer, params, base, held):
    """(bytes live at the peak by COMPONENTS, the live storages at the peak
    as [(bytes, component, serial)])."""
    sets = {"gradients": {recorder.serial(p.grad) for p in params},
            "optimizer_states": {recorder.serial(t) for state in optimizer.state.values()
                                 for t in state.values() if isinstance(t, torch.Tensor)},
            "output_and_loss": held.get(1, set()) | held.get(2, set())}
    breakdown = collections.OrderedDict((c, base.get(c, 0)) for c in COMPONENTS)
    live = []
    for serial, (nbytes, saved) in recorder.live_at_peak().items():
        if serial < 0:  # a cuBLAS workspace (CUDA)
            component = "kernel_workspace"
        else:
            component = next((name for name in ("gradients", "optimizer_states",
                                                "output_and_loss") if serial in sets[name]),
                             "saved_activations" if saved else "temporaries")
        breakdown[component] += nbytes
        live.append((nbytes, component, serial))
    breakdown["kernel_workspace"] += recorder.peak["extra"]
    return breakdown, live


def state_names(recorder, model, optimizer):
    """{serial: name} of the gradients ("<param>.grad") and optimizer states
    ("<param>.<state>")."""
    names = {}
    for name, p in exporter.unique_parameters(model):
        if p.grad is not None:
            names[recorder.serial(p.grad)] = name + ".grad"
        for key, t in optimizer.state.get(p, {}).items():
            if isinstance(t, torch.Tensor):
                names[recorder.serial(t)] = name + "." + key
    names.pop(None, None)
    return names


def attribution(recorder, live, names):
    """The largest storages live at the peak with where they were made, and
    the saved activations and temporaries at the peak by module and by op."""
    top = []
    by_module = collections.Counter()
    by_op = collections.Counter()
    for nbytes, component, serial in live:
        index = recorder.born_in.get(serial)
        op, phase = recorder.ops[index] if index is not None and index < len(
            recorder.ops) else ("?", "?")
        module, source = recorder.origin.get(serial, ("", ""))
        if component == "saved_activations":
            by_module[module or "(outside any module)"] += nbytes
        elif component == "temporaries":
            by_op["%s %s" % (phase, op)] += nbytes
        top.append({"bytes": nbytes, "component": component, "op": op, "phase": phase,
                    "module": module, "source": source, "tensor": names.get(serial, "")})
    top.sort(key=lambda t: -t["bytes"])
    return {"largest_at_peak": top[:10],
            "saved_activations_by_module": dict(by_module.most_common()),
            "temporaries_by_op": dict(by_op.most_common())}


def print_breakdown(result):
    peak = result["peak"]
    print("\nat the peak: %s `%s` (op %d)" % (peak["phase"], peak["op"], peak["op_index"]))
    for name, nbytes in result["breakdown"].items():
        print("  %-18s %14d" % (name, nbytes))
    print("\nlargest at the peak:")
    for t in result["largest_at_peak"]:
        where = t["tensor"] or " ".join(x for x in (t["module"], t["source"]) if x)
        print("  %14d  %-17s %s `%s`%s" % (t["bytes"], t["component"], t["phase"], t["op"],
                                          "  " + where if where else ""))
    for title, key in (("saved activations at the peak by module", "saved_activations_by_module"),
                       ("temporaries at the peak by op", "temporaries_by_op")):
        if result[key]:
            print("\n%s:" % title)
            for name, nbytes in list(result[key].items())[:10]:
                print("  %14d  %s" % (nbytes, name))


def print_budget(verdict):
    held = verdict["held"]
    print("budget_bytes: %d" % verdict["budget_bytes"])
    print("fits: %s" % ("yes" if verdict["fits"] else "no"))
    for row in verdict["recommendations"]:
        if "error" in row:
            print("with %s: %s" % (row["setting"], row["error"]))
        elif "batch" in row:
            print("largest batch that fits: %d (%s %d)" % (row["batch"], held, row["held_bytes"])
                  if row["batch"] else
                  "largest batch that fits: none (batch 1 does not, with the settings given)")
        else:
            line = "with %s: %s %d (%s)" % (row["setting"], held, row["held_bytes"],
                                            "fits" if row["fits"] else "does not fit")
            if "modules" in row:
                line += "; %d modules; recomputes %d FLOPs (%.2f of the forward's)" % (
                    len(row["modules"]), row["recompute_flops"], row["recompute_share"])
            print(line)




SCHEMA = "memopt.eager-trace/1"


def document(recorder, model, optimizer, params, buffers, inputs, held, size, header):
    """Step 2 as a trace document (schema SCHEMA): its ops as points, every
    storage live during it as a buffer over the points it is live at
    (inclusive), with memopt's memory classes. The live bytes at a point,
    the buffers covering it plus its op's workspace, peak at exactly
    allocated_peak_bytes."""
    first = recorder.armed_at
    last = len(recorder.ops) - 1
    points = []
    for index in range(first, last + 1):
        op, phase = recorder.ops[index]
        module, source = recorder.op_origin[index]
        points.append({"op": op, "phase": phase, "module": module, "source": source,
                       "workspace_bytes": recorder.op_extra[index]})
    names = state_names(recorder, model, optimizer)
    out = []

    def add(name, nbytes, start, end, cls, persistent=False, layer="", op="", source=""):
        out.append({"name": name, "bytes": nbytes, "start": start, "end": end, "class": cls,
                    "persistent": persistent, "layer": layer, "op": op, "source": source})

    seen = set()
    named = dict((id(p), n) for n, p in exporter.unique_parameters(model))
    for group, cls in ((params, "parameter"), (buffers, "input"), (inputs, "input")):
        for t in group:
            key = StorageWeakRef(t.storage()).cdata
            if key in seen or t.storage().nbytes() == 0:
                continue
            seen.add(key)
            add(named.get(id(t), "buffer" if group is buffers else "input"),
                size(t.storage().nbytes()), 0, last - first, cls, persistent=True)
    sets = _sets(recorder, optimizer, params, held)
    for serial, (nbytes, saved, born, died) in _lifetimes(recorder).items():
        if died is not None and died <= first:
            continue
        start = max(born, first) - first
        end = (last if died is None else died - 1) - first
        if serial < 0:
            add("cuBLAS workspace", nbytes, start, end, "temporary", op=recorder.ops[born][0])
            continue
        cls = next((c for c, members in sets.items() if serial in members),
                   "activation" if saved else "temporary")
        module, source = recorder.origin.get(serial, ("", ""))
        op = recorder.ops[born][0] if born < len(recorder.ops) else ""
        add(names.get(serial) or op, nbytes, start, end, cls, layer=module, op=op,
            source=source)
    return {"schema": SCHEMA, **header, "points": points, "buffers": out}


def _sets(recorder, optimizer, params, held):
    return {"gradient": {recorder.serial(p.grad) for p in params} - {None},
            "optimizer_state": {recorder.serial(t) for state in optimizer.state.values()
                                for t in state.values() if isinstance(t, torch.Tensor)} - {None},
            "temporary": held.get(1, set()) | held.get(2, set())}


def _lifetimes(recorder):
    """{serial: (bytes, saved, index of the op that made it, index of the
    first op it is dead at or None)} of every storage the recorder saw."""
    out, saved = {}, set()
    for kind, serial, nbytes in recorder.events:
        if kind == "a":
            out[serial] = nbytes
        elif kind == "s":
            saved.add(serial)
    return {s: (n, s in saved, recorder.born_in.get(s, 0), recorder.died_in.get(s))
            for s, n in out.items()}


def write(path, doc):
    """Writes `doc` to `path` whole or not at all."""
    directory = os.path.dirname(os.path.abspath(path))
    with tempfile.NamedTemporaryFile("w", dir=directory, delete=False, suffix=".tmp") as f:
        json.dump(doc, f, indent=1)
        f.write("\n")
    os.replace(f.name, path)
