"""Predicts the CPU allocator's peak of one PyTorch eager training step.

`python3 -m memopt_torch predict MODEL ...` answers: what does c10's CPU
allocator peak at during step 2 of

    for step in (1, 2):
        optimizer.zero_grad(set_to_none=...)
        output = model(input)              # model(input, labels) for --loss model
        loss = loss_fn(output, labels)
        loss.backward()
        optimizer.step()

with the peak reset just before step 2's zero_grad, the caller holding
`output` and `loss` as such a loop does (step 1's `output` is dropped when
step 2's forward returns, step 1's `loss` when step 2's loss is computed).

How. The model, its inputs and the optimizer are built under torch 1.13's
FakeTensorMode (tensors with shapes and no data) and the loop above runs
for real on them: the real autograd engine, the real optimizer code. A
TorchDispatchMode above the fake mode sees every ATen op at the Python
dispatch key. Each op's new output storages are its allocations (a view
shares its base's storage, an in-place op allocates nothing); a storage is
freed when its StorageImpl dies, found with StorageWeakRef.expired() before
every op. So the engine's and the optimizer's own lifetimes (saved tensors
released as each node runs, gradients stolen or accumulated, Adam's
temporaries) decide every free. What a kernel allocates inside itself,
which no mode sees, comes from `_kernels.extra` (wrapped scalars, dtype
casts, normalization buffers, oneDNN's reorders and scratchpads). The peak
is the baseline (parameters, module buffers, the batch, plus everything
step 1 left alive: gradients, optimizer states, output, loss) plus the
largest sum reached at any op.

`--device cuda` records the same trace with CUDA's allocation rules
(_cuda.py: 512-byte blocks, no CPU kernel buffers, cuBLAS workspaces) and
replays it through mem-plan's caching allocator for the reserved peak;
`--budget` predicts again with each setting that can lower the peak
(budget.py).

`measure_step` runs the same loop on real tensors and measures the peak as
bench/import/memory.py does (torch.profiler's [memory] events, summed in
time order, profiling both steps so that step 2's frees of step-1 storages
are seen).
"""

import collections
import contextlib
import gc
import json
import os
import re
import sys

import torch
from torch.multiprocessing.reductions import StorageWeakRef
from torch.utils._mode_utils import no_dispatch
from torch.utils._python_dispatch import TorchDispatchMode
from torch.utils._pytree import tree_flatten

from . import _cuda, _kernels, _trace, budget, exporter
from .exporter import ExportError

aten = torch.ops.aten

_PASS_THROUGH = {torch.ops.prim.device.default}
_PROFILER_OPS = {torch.ops.profiler._record_function_enter.default,
                 torch.ops.profiler._record_function_exit.default}


def _key(t):
    """(key, weak reference) of `t`'s StorageImpl: the key stays unique
    while the reference lives."""
    ref = StorageWeakRef(t.storage())
    return ref.cdata, ref


def _fake_conv_backward(grad_output, input, weight, bias_sizes, stride, padding, dilation,
                        transposed, output_padding, groups, output_mask):
    # torch 1.13 has no meta kernel for convolution_backward: FakeTensorMode
    # would run the real kernel on zeros (memory, time). Its outputs are
    # dense tensors of the input's, weight's and bias's shapes.
    return (torch.empty_like(input, memory_format=torch.contiguous_format)
            if output_mask[0] else None,
            torch.empty_like(weight, memory_format=torch.contiguous_format)
            if output_mask[1] else None,
            grad_output.new_empty([grad_output.shape[1]]) if output_mask[2] else None)


def _fake_lift_fresh(t):
    # FakeTensorMode keeps torch.tensor() results as constants in a memo that
    # never lets them die (the fake holds the real tensor, which keys the
    # memo); a plain fake of the same shape dies as the real one would.
    return torch.empty(t.shape, dtype=t.dtype)


def _fake_like_input(grad_output, input, *args):
    # Pooling backwards without a meta kernel in torch 1.13: the gradient
    # has the input's shape and memory format.
    return torch.empty_like(input)


_FAKE_OVERRIDES = {aten.convolution_backward.default: _fake_conv_backward,
                   aten.lift_fresh.default: _fake_lift_fresh,
                   aten._adaptive_avg_pool2d_backward.default: _fake_like_input,
                   aten._adaptive_avg_pool3d_backward.default: _fake_like_input,
                   aten.avg_pool2d_backward.default: _fake_like_input}

# A foreach op's element overload (ForeachOpsKernels.cpp, the CPU's slow
# path: one op per tensor, the outputs kept in a vector until it returns).
_FOREACH_OVERLOADS = {"Scalar": ("Scalar", "default"), "List": ("Tensor", "default"),
                      "ScalarList": ("Scalar", "default"), "": ("default",),
                      "Tensor": ("Tensor", "default")}


def _foreach_elements(func, args, kwargs):
    """[(op, args, kwargs)] of the per-tensor ops the CPU runs for a
    `_foreach_*` op (torch 1.13 has no meta kernels for them), else None."""
    name = func._schema.name.split("::")[-1]
    if not name.startswith("_foreach_"):
        return None
    packet = getattr(aten, name[len("_foreach_"):], None)
    overload = next((o for o in _FOREACH_OVERLOADS.get(func._schema.overload_name, ())
                     if packet is not None and hasattr(packet, o)), None)
    if overload is None:
        raise ExportError(f"{func}: no per-tensor op to run it as")
    lists = [i for i, a in enumerate(func._schema.arguments[:len(args)])
             if isinstance(a.type, torch._C.ListType)]
    op = getattr(packet, overload)
    positional = [a for a in op._schema.arguments if not a.kwarg_only]
    keywords = [a.name for a in op._schema.arguments if a.kwarg_only]
    elements = []
    for i in range(len(args[lists[0]]) if lists else 0):
        values = [a[i] if j in lists else a for j, a in enumerate(args)]
        # A trailing Scalar (addcmul's value) is keyword-only per tensor.
        extra = dict(zip(keywords, values[len(positional):]))
        elements.append((op, tuple(values[:len(positional)]), {**kwargs, **extra}))
    return elements


_LIBRARY_DIRS = tuple(os.path.dirname(m.__file__) + os.sep for m in (torch, exporter))


def _user_line():
    """'file:line' of the innermost frame outside torch and memopt_torch
    (the model's code), else ''."""
    frame = sys._getframe(2)
    while frame is not None:
        name = frame.f_code.co_filename
        if not name.startswith(_LIBRARY_DIRS) and not name.startswith("<"):
            here = os.getcwd() + os.sep
            return "%s:%d" % (name[len(here):] if name.startswith(here) else name,
                              frame.f_lineno)
        frame = frame.f_back
    return ""


class _Live:
    __slots__ = ("ref", "nbytes", "serial")

    def __init__(self, ref, nbytes, serial):
        self.ref, self.nbytes, self.serial = ref, nbytes, serial


class StepRecorder(TorchDispatchMode):
    """Records allocations and frees of storages at the dispatch key and
    keeps the peak of step 2 (after `arm()`)."""

    def __init__(self, fake, threads, probe=True, rules=None):
        super().__init__()
        self.fake = fake
        self.threads = threads
        self.probe = probe
        self.rules = rules    # _cuda.CudaRules for --device cuda, else None
        self.host_copy = False  # recording a CPU-resident tensor (CUDA)
        self.workspace_bytes = 0
        self.born_in = {}     # serial -> index in self.ops of the op that made it
        self.origin = {}      # serial -> (module path, user source line)
        self.died_in = {}     # serial -> index of the first op it is dead at
        self.op_extra = []    # per op: bytes inside the kernel (its workspace)
        self.op_origin = []   # per op: (module path, source line) in the forward
        self.armed_at = None  # index of step 2's first op
        self.flops = collections.Counter()  # matrix-product FLOPs by phase
        self.modules = []     # the module stack of the forward (names)
        self.live = {}        # storage key -> _Live
        self.external = {}    # storages made before the loop: key -> ref
        self.cur = 0          # bytes of the live storages
        self.events = []      # (kind, serial, bytes): "a"lloc, "f"ree, "s"aved
        self.ops = []         # (op name, phase) per recorded op
        self.phase = "setup"
        self.armed = False
        self.peak = None      # dict, see _new_peak
        self.reset_bytes = 0

    # -- storages --------------------------------------------------------

    def set_external(self, tensors):
        for t in tensors:
            if isinstance(t, torch.Tensor):
                key, ref = _key(t)
                self.external[key] = ref

    def _add(self, key, ref, nbytes, origin=None):
        entry = _Live(ref, nbytes, len(self.events))
        self.born_in[entry.serial] = len(self.ops)  # the op being recorded
        if origin and any(origin):
            self.origin[entry.serial] = origin
        self.live[key] = entry
        self.cur += nbytes
        self.events.append(("a", entry.serial, nbytes))
        return entry

    def serial(self, t):
        """The allocation serial of the live storage of `t` (None if not
        recorded: a parameter, the batch)."""
        entry = self.live.get(_key(t)[0]) if isinstance(t, torch.Tensor) else None
        return entry.serial if entry is not None else None

    def sweep(self):
        expired = torch.Storage._expired
        dead = [k for k in self.live if expired(k)]
        for key in dead:
            entry = self.live.pop(key)
            self.cur -= entry.nbytes
            self.died_in[entry.serial] = len(self.ops)  # dead before this op
            self.events.append(("f", entry.serial, 0))

    def pack(self, t):
        """saved_tensors_hooks pack hook: marks saved storages; counts the
        wrapped numbers autograd saves (a Python scalar `x * 0.5` passes
        where a Tensor goes: MulBackward0 keeps the 8-byte tensor)."""
        key, ref = _key(t)
        entry = self.live.get(key)
        if entry is not None or key in self.external or t.storage().nbytes() == 0:
            if entry is not None:
                self.events.append(("s", entry.serial, 0))
            # Without hooks autograd keeps a saved output without its
            # grad_fn; the output itself here would be a reference cycle
            # (output -> grad_fn -> output) that outlives a graph no
            # backward releases (GoogLeNet's auxiliary heads).
            return t.detach()
        # torch 1.13 cannot unpack a saved wrapped number under a dispatch
        # mode (the Python fallback turns detach()'s result into a float),
        # so a plain 0-d copy is saved instead; it lives as long.
        if self.fake:
            # Recorded as an op; on CUDA the wrapped number stays on the host.
            self.host_copy = self.rules is not None
            copy = torch.empty(t.shape, dtype=t.dtype)
            self.host_copy = False
            entry = self.live.get(_key(copy)[0])
        else:
            with no_dispatch():
                copy = t.clone()
            entry = self._add(*_key(copy), copy.storage().nbytes())
        if entry is not None:
            self.events.append(("s", entry.serial, 0))
        return copy

    # -- phases ----------------------------------------------------------

    def mark(self, phase):
        self.sweep()
        self.phase = phase

    def arm(self):
        """The peak is reset here (before step 2)."""
        self.sweep()
        self.armed = True
        self.armed_at = len(self.ops)
        self.flops.clear()  # step 2's only
        self.reset_bytes = self.cur
        self._new_peak(self.cur, 0, None, "reset")

    def _new_peak(self, total, extra, rule, op):
        self.peak = {"bytes": total, "events": len(self.events), "extra": extra,
                     "rule": rule, "op": op, "phase": self.phase, "index": len(self.ops)}

    # -- ops -------------------------------------------------------------

    def _special(self, func, args, kwargs):
        """(handled, result) for ops the recorder answers itself."""
        if func in _PASS_THROUGH:
            return True, func(*args, **kwargs)
        if func in _PROFILER_OPS and self.fake:
            with no_dispatch():  # a real handle, not a fake constructor
                return True, func(*args, **kwargs)
        if func is aten._local_scalar_dense.default and self.fake:
            # .item(): Adam's step count, a loss printed by the model. The
            # value decides no allocation; 1 keeps Adam's bias corrections
            # finite.
            t = args[0]
            return True, (1.0 if t.dtype.is_floating_point else
                          True if t.dtype == torch.bool else 1)
        if (func is aten.detach.default and self.fake and isinstance(args[0], torch.Tensor)
                and not isinstance(args[0], torch._subclasses.FakeTensor)):
            with no_dispatch():  # autograd detaching a real wrapped number
                return True, args[0].detach()
        return False, None

    def __torch_dispatch__(self, func, types, args=(), kwargs=None):
        kwargs = kwargs or {}
        handled, result = self._special(func, args, kwargs)
        if handled and func not in _PROFILER_OPS:
            return result
        elements = _foreach_elements(func, args, kwargs)
        if elements is not None:
            results = [self._one(op, a, k, False, None) for op, a, k in elements]
            return results if func._schema.returns else None
        return self._one(func, args, kwargs, handled, result)

    def _one(self, func, args, kwargs, handled, result):
        self.sweep()
        if handled:
            out = result
        elif self.fake and func in _FAKE_OVERRIDES:
            out = _FAKE_OVERRIDES[func](*args, **kwargs)
        else:
            out = func(*args, **kwargs)
        self._record(func, args, kwargs, out)
        return out

    def _record(self, func, args, kwargs, out):
        aliasing = func is not aten.lift_fresh.default and any(
            r.alias_info is not None for r in func._schema.returns)
        # (module, source line) of a forward op, looked up once per op.
        origin = ((self.modules[-1] if self.modules else "", _user_line())
                  if self.phase in ("forward", "loss") else ("", ""))
        if func in _PROFILER_OPS or self.host_copy or (
                self.rules is not None and self.rules.host_resident(func)):
            flat = []
        else:
            flat = [t for t in tree_flatten(out)[0] if isinstance(t, torch.Tensor)]
        for t in flat:
            key, ref = _key(t)
            if key in self.live:
                if not torch.Storage._expired(key):
                    continue
                self.sweep()
            if aliasing or key in self.external:
                continue
            nbytes = t.storage().nbytes()
            if nbytes:
                self._add(key, ref, nbytes if self.rules is None else _cuda.round_block(nbytes),
                          origin)
        if self.rules is None:
            extra, rule = _kernels.extra(func, args, kwargs, self.threads, self.probe)
        else:
            extra, rule = 0, None
            workspace = self.rules.workspace(func, self.phase)
            if workspace:  # kept by its cuBLAS handle: never freed
                self.cur += workspace
                self.workspace_bytes += workspace
                self.born_in[-len(self.events) - 1] = len(self.ops)
                self.events.append(("a", -len(self.events) - 1, workspace))
        name = str(func)
        self.ops.append((name, self.phase))
        self.op_extra.append(extra)
        self.flops[self.phase] += _kernels.flops(func, args, out)
        self.op_origin.append(origin)
        if self.armed and self.cur + extra > self.peak["bytes"]:
            self._new_peak(self.cur + extra, extra, rule, name)

    # -- the live set at the peak -----------------------------------------

    def live_at_peak(self):
        """{serial: (bytes, saved)} of the storages live at the peak."""
        live, saved = {}, set()
        for kind, serial, nbytes in self.events[:self.peak["events"]]:
            if kind == "a":
                live[serial] = nbytes
            elif kind == "f":
                live.pop(serial, None)
            else:
                saved.add(serial)
        return {k: (n, k in saved) for k, n in live.items()}


# --------------------------------------------------------------------------
# The model, its batch, the optimizer, the loop
# --------------------------------------------------------------------------

def build(args):
    """(model, example, labels) as `export` builds them: MODEL from
    --config after torch.manual_seed(--seed), in --dtype, training mode; a
    standard-normal input or token ids; labels for --loss. Under a fake mode
    when one is active."""
    try:
        config = json.loads(args.config)
    except json.JSONDecodeError as error:
        raise ExportError(f"--config is not JSON: {error}")
    if not isinstance(config, dict):
        raise ExportError("--config must be a JSON object")
    dtype = getattr(torch, args.dtype)
    torch.manual_seed(args.seed)
    model = exporter.load_model(args.model, config).to(dtype)
    model.train()
    example = exporter.example_input(args, model, dtype)
    if args.loss == "model":
        labels = exporter.model_loss_labels(args, model, example)
    else:
        labels = _labels(args, model, example, dtype)
    args.checkpointed = budget.apply_checkpoint(model, getattr(args, "checkpoint", None))
    return model, example, labels


def _labels(args, model, example, dtype):
    """Labels for --loss cross_entropy or mse, shaped after the output of a
    forward under no_grad."""
    with torch.no_grad():
        try:
            output = model(example)
        except Exception as error:  # the user's forward: report, not crash
            raise ExportError(f"the model's forward failed on the example input: "
                              f"{type(error).__name__}: {error}",
                              exporter._user_frame_of_traceback(error.__traceback__))
    return exporter.labels_for_output(args, output, dtype)


def make_optimizer(args, params):
    """torch.optim's SGD, Adam or AdamW with torch 1.13's defaults but lr
    (foreach=None: the single-tensor loop on the CPU)."""
    foreach = True if args.foreach else None
    if args.optimizer == "sgd":
        return torch.optim.SGD(params, lr=args.lr, momentum=args.momentum,
                               weight_decay=args.weight_decay or 0.0, foreach=foreach)
    kind = torch.optim.Adam if args.optimizer == "adam" else torch.optim.AdamW
    decay = args.weight_decay if args.weight_decay is not None else \
        (0.0 if args.optimizer == "adam" else 1e-2)
    return kind(params, lr=args.lr, weight_decay=decay, foreach=foreach)


def _tensors(value):
    return [t for t in tree_flatten(value)[0] if isinstance(t, torch.Tensor)]


def autocast_context(kind):
    """torch.autocast over the forward and the loss, as PyTorch's AMP recipe
    runs them (the backward and the step outside it); a no-op without
    --autocast."""
    if not kind:
        return contextlib.nullcontext()
    return torch.autocast("cpu", dtype=getattr(torch, {"bf16": "bfloat16"}[kind]))


def run_loop(model, optimizer, example, labels, loss_kind, set_to_none, mark, arm,
             after_step=None, autocast=None):
    """The two steps. `mark(phase)` before each phase, `arm()` just before
    step 2, `after_step(step, output, loss)` at the end of each; forward and
    loss under `autocast` ("bf16") when given."""
    output = loss = None
    for step in (1, 2):
        if step == 2:
            gc.collect()
            arm()
        mark("zero_grad")
        optimizer.zero_grad(set_to_none=set_to_none)
        with autocast_context(autocast):
            mark("forward")
            output = model(example, labels) if loss_kind == "model" else model(example)
            mark("loss")
            loss = exporter.loss_of(output, loss_kind, labels)
        mark("backward")
        loss.backward()
        mark("step")
        optimizer.step()
        mark("end")
        if after_step:
            after_step(step, output, loss)


def _unique_bytes(tensors, seen, size=lambda n: n):
    total = 0
    for t in tensors:
        if not isinstance(t, torch.Tensor):
            continue
        key, _ = _key(t)
        if key in seen or t.storage().nbytes() == 0:
            continue
        seen.add(key)
        total += size(t.storage().nbytes())
    return total


# --------------------------------------------------------------------------
# Prediction (fake tensors) and measurement (real tensors)
# --------------------------------------------------------------------------

def _fake_mode():
    from torch._subclasses import FakeTensorMode
    # No fallback: an op without a meta kernel would run the real CPU kernel
    # on zero tensors (the memory this is meant to avoid) and is reported.
    return FakeTensorMode(allow_fallback_kernels=False)


def _fake_build(args, fake):
    """build() under the fake mode; a model whose construction reads tensor
    values (RegNet's `.tolist()` of its widths) is built on real tensors
    and its parameters, buffers and batch are converted to fake ones (the
    real model's memory is then needed, once)."""
    try:
        with fake:
            return build(args) + (None,)
    except ExportError as error:
        if "tensor subclass" not in str(error) and "data-dependent" not in str(error):
            raise
        note = str(error).splitlines()[0]
    model, example, labels = build(args)
    made = {}
    for module in model.modules():
        for name, p in list(module._parameters.items()):
            if p is not None:
                if id(p) not in made:
                    made[id(p)] = torch.nn.Parameter(fake.from_tensor(p.detach()),
                                                     p.requires_grad)
                module._parameters[name] = made[id(p)]
        for name, b in list(module._buffers.items()):
            if b is not None:
                module._buffers[name] = fake.from_tensor(b)
    return model, fake.from_tensor(example), fake.from_tensor(labels), \
        "built on real tensors (" + note + ")"


def _run_trace(args, rules):
    """Runs the two steps under the fake mode; (recorder, model, optimizer,
    params, buffers, example, labels, held, note)."""
    fake = _fake_mode()
    model, example, labels, note = _fake_build(args, fake)
    params = [p for _, p in exporter.unique_parameters(model)]
    optimizer = make_optimizer(args, params)
    recorder = StepRecorder(fake=True, threads=torch.get_num_threads(), probe=args.probe,
                            rules=rules)
    buffers = [b for _, b in model.named_buffers()]
    recorder.set_external(params + buffers + [example, labels])
    held = {}

    def after_step(step, output, loss):
        held[step] = {recorder.serial(t) for t in _tensors(output) + [loss]} - {None}

    names = {id(m): n or "(model)" for n, m in model.named_modules()}

    def enter(module, inputs):  # hooks return None: outputs unchanged
        recorder.modules.append(names.get(id(module), type(module).__name__))

    def leave(module, inputs, output):
        if recorder.modules:
            recorder.modules.pop()

    hooks = [torch.nn.modules.module.register_module_forward_pre_hook(enter),
             torch.nn.modules.module.register_module_forward_hook(leave)]
    try:
        with fake, recorder, torch.autograd.graph.saved_tensors_hooks(recorder.pack,
                                                                      lambda t: t):
            run_loop(model, optimizer, example, labels, args.loss, args.set_to_none,
                     recorder.mark, recorder.arm, after_step, args.autocast)
    except NotImplementedError as error:
        raise ExportError(f"torch {torch.__version__}'s FakeTensorMode cannot run an op of "
                          f"this model (no meta kernel): {error}".splitlines()[0])
    except ExportError:
        raise
    except Exception as error:  # the user's model on fake tensors: report, not crash
        raise ExportError(f"the training step failed on fake tensors: {type(error).__name__}: "
                          f"{error}".splitlines()[0],
                          exporter._user_frame_of_traceback(error.__traceback__))
    finally:
        for hook in hooks:
            hook.remove()
    return recorder, model, optimizer, params, buffers, example, labels, held, note


def _name_oom(text, recorder):
    """The replay's out-of-memory message with the op that allocated instead
    of the trace's buffer id."""
    match = re.match(r"buffer 's(-?\d+)' at \d+: (.*)", text)
    if not match or int(match.group(1)) not in recorder.born_in:
        return re.sub(r"^buffer 'p\d+' at \d+: ", "moving the model to the device: ", text)
    index = recorder.born_in[int(match.group(1))]
    name, phase = recorder.ops[index] if index < len(recorder.ops) else ("?", "?")
    what = "the cuBLAS workspace of " if int(match.group(1)) < 0 else ""
    return "%s%s `%s` (op %d): %s" % (what, phase, name, index, match.group(2))


def predict(args):
    """The prediction as a dict (see _trace.COMPONENTS for the breakdown)."""
    cuda = args.device == "cuda"
    rules = None
    if cuda:
        rules = _cuda.CudaRules(_cuda.workspace_bytes(args.cublas_workspace))
        _cuda.check_options(args.allocator_conf, args.device_memory)
    elif args.allocator_conf or args.device_memory or args.cublas_workspace != "none":
        raise ExportError("--allocator-conf, --device-memory and --cublas-workspace "
                          "need --device cuda")
    recorder, model, optimizer, params, buffers, example, labels, held, note = \
        _run_trace(args, rules)
    size = _cuda.round_block if cuda else (lambda n: n)
    seen = set()
    base = {"parameters": _unique_bytes(params, seen, size),
            "buffers": _unique_bytes(buffers, seen, size),
            "inputs": _unique_bytes([example, labels], seen, size)}
    peak = recorder.peak
    external = sum(base.values())
    breakdown, live = _trace.breakdown(recorder, optimizer, params, base, held)
    result = {"device": args.device,
              "allocated_peak_bytes": external + peak["bytes"],
              "breakdown": breakdown,
              "peak": {"phase": peak["phase"], "op": peak["op"], "op_index": peak["index"],
                       "kernel_rule": peak["rule"]},
              "baseline_bytes": external + recorder.reset_bytes,
              "ops_recorded": len(recorder.ops), "threads": recorder.threads,
              "kernels_probed": len(_kernels._PROBED),
              "flops_by_phase": dict(recorder.flops),
              **({"checkpointed": args.checkpointed} if args.checkpointed else {}),
              **_trace.attribution(recorder, live, _trace.state_names(recorder, model, optimizer)),
              **({"note": note} if note else {})}
    if getattr(args, "trace", None):
        _trace.write(args.trace, _trace.document(
            recorder, model, optimizer, params, buffers, [example, labels], held, size,
            {"model": args.model, "device": args.device,
             "allocated_peak_bytes": result["allocated_peak_bytes"]}))
    if cuda:
        setup = []
        seen = set()
        for t in _cuda.setup_order(model, example, labels):
            setup.append(_unique_bytes([t], seen))
        replayed, why = _cuda.replay(setup, recorder.events, args.allocator_conf,
                                     args.device_memory)
        if replayed is not None:
            result["reserved_peak_bytes"] = replayed["reserved_peak_bytes"]
            replayed["oom"] = _name_oom(replayed["oom"], recorder)
        result["cuda"] = {"cublas_workspace_bytes": recorder.workspace_bytes,
                          "not_counted": _cuda.NOT_COUNTED,
                          "replay": replayed if replayed is not None else why}
    return result


def _profiler_mark(name):
    # A profiler event that allocates nothing (record_function's context
    # manager allocates a handle tensor in torch 1.13).
    handle = torch.ops.profiler._record_function_enter_new(name, None)
    torch.ops.profiler._record_function_exit._RecordFunction(handle)


def measure_step(args):
    """Runs the loop on real tensors under torch.profiler (memory.py's
    method): peak = the bytes live when the peak is reset (parameters,
    buffers and batch from before the profile, plus the sum of steps 1's
    events) + the largest prefix sum of step 2's [memory] events. The whole
    loop is profiled: the allocator does not report a free of memory
    allocated before the profile began."""
    from torch.profiler import ProfilerActivity, profile

    model, example, labels = build(args)
    params = [p for _, p in exporter.unique_parameters(model)]
    optimizer = make_optimizer(args, params)
    buffers = [b for _, b in model.named_buffers()]
    before = _unique_bytes(params + buffers + [example, labels], set())
    check = {}

    def arm():
        _profiler_mark("memopt.arm")

    def after_step(step, output, loss):
        if step == 1:  # every storage the reset moment holds, for a check
            tensors = params + [p.grad for p in params] + buffers + [example, labels]
            tensors += [t for s in optimizer.state.values() for t in s.values()]
            check["storages"] = _unique_bytes(tensors + _tensors(output) + [loss], set())

    with profile(activities=[ProfilerActivity.CPU], profile_memory=True) as prof:
        run_loop(model, optimizer, example, labels, args.loss, args.set_to_none,
                 lambda phase: _profiler_mark("memopt.phase:" + phase), arm, after_step,
                 args.autocast)
    return _replay_profile(prof, before, check.get("storages"))


def _replay_profile(prof, before, storages_at_reset):
    events = []

    def walk(nodes, parents):
        for node in nodes:
            if node.name == "[memory]":
                events.append((node.start_time_ns, len(events),
                               node.extra_fields.alloc_size, parents))
                continue
            if node.name.startswith("memopt."):
                events.append((node.start_time_ns, len(events), node.name, parents))
            walk(node.children, parents + [node.name])

    walk(prof.profiler.kineto_results.experimental_event_tree(), [])
    events.sort(key=lambda e: (e[0], e[1]))
    current, base, peak, where, phase = 0, None, 0, None, None
    for _, _, what, parents in events:
        if isinstance(what, str):
            if what == "memopt.arm":
                base, current, peak, where = before + current, 0, 0, "reset"
            elif what.startswith("memopt.phase:"):
                phase = what.split(":", 1)[1]
            continue
        current += what
        if base is not None and current > peak:
            peak, where = current, (phase, " > ".join(parents[-2:]))
    return {"measured_peak_bytes": base + peak, "baseline_bytes": base,
            "baseline_storages_bytes": storages_at_reset,
            "peak": {"phase": where[0], "op": where[1]} if where != "reset" else "reset"}


def main(args):
    """`predict`: prints the prediction (text or --json); with --measure
    also the measurement. Returns the exit status."""
    if args.threads:
        torch.set_num_threads(args.threads)
    result = predict(args)
    if args.budget is not None:
        result["budget"] = {"budget_bytes": args.budget,
                            "held": "reserved_peak_bytes" if args.device == "cuda" else
                            "allocated_peak_bytes",
                            "fits": budget._held(result) <= args.budget,
                            "recommendations": budget.recommend(args, predict, result)}
    if args.measure:
        gc.collect()
        try:
            measured = measure_step(args)
        except RuntimeError as error:  # PyTorch's own kernels refuse the step
            raise ExportError("the measured run failed in PyTorch itself: %s" %
                              str(error).splitlines()[0])
        result["measured"] = measured
        result["difference_bytes"] = (measured["measured_peak_bytes"] -
                                      result["allocated_peak_bytes"])
    if args.json:
        print(json.dumps(result, indent=1))
        return 0
    print("allocated_peak_bytes: %d" % result["allocated_peak_bytes"])
    if "cuda" in result:
        replay = result["cuda"]["replay"]
        if isinstance(replay, dict):
            print("reserved_peak_bytes: %d" % result["reserved_peak_bytes"])
            if replay["oom"] != "none":
                print("out_of_memory: %s" % replay["oom"])
        else:
            print("note: " + replay)
        print("cublas_workspace_bytes: %d" % result["cuda"]["cublas_workspace_bytes"])
        print("not counted: " + "; ".join(result["cuda"]["not_counted"]))
    if args.breakdown:
        _trace.print_breakdown(result)
    if "budget" in result:
        _trace.print_budget(result["budget"])
    if args.measure:
        print("measured_peak_bytes: %d" % result["measured"]["measured_peak_bytes"])
        print("difference_bytes: %d" % result["difference_bytes"])
    return 0
