"""`predict --device cuda`: CUDA's allocation rules applied to the step's trace.

torch here has no CUDA, so the step runs under FakeTensorMode on the CPU as
for `--device cpu`; the order of allocations and frees is decided by the same
Python scopes, autograd engine and optimizer code, whatever the device. What
differs on CUDA is applied to that trace:

- Every storage of n > 0 bytes is a block of the caching allocator: n rounded
  up to a multiple of 512 bytes (CUDACachingAllocator round_size); that is
  what `torch.cuda.memory_allocated()` counts.
- The CPU kernels' internal buffers (oneDNN reorders, TensorIterator casts,
  wrapped scalars, normalization partial sums, _kernels.py) do not exist; a
  Python scalar stays a CPU tensor, as does a tensor made by `torch.tensor()`
  from Python data (the optimizers' `step` counters among them).
- cuBLAS's workspace: PyTorch 2.x allocates one per cuBLAS handle and stream
  through the caching allocator at the first matrix product and keeps it
  (CublasHandlePool.cpp, getNewWorkspace). The forward, the loss and the
  optimizer run on the caller's thread; the backward runs on the autograd
  engine's device thread, which has a handle of its own: two workspaces.
  torch 1.13 leaves the workspace to cuBLAS itself (not counted). The size is
  `--cublas-workspace`.
- Not counted, so the numbers are a lower bound where they occur: cuDNN's
  convolution workspaces (the algorithm is chosen at run time), the staging
  buffers of multi-block reductions, the CUDA context (outside PyTorch's
  counters).

The reserved peak comes from replaying the whole sequence (model, batch,
both steps) through PyTorch's caching allocator rules in C++ (`mem-plan
--allocator=pytorch-cuda`, docs/allocator.md).
"""

import os
import re
import shutil
import subprocess
import tempfile

import torch

from .exporter import ExportError

aten = torch.ops.aten

BLOCK = 512
# CublasHandlePool.cpp (PyTorch 2.1 and later): ":4096:8" on Hopper (sm90),
# ":4096:2:16:8" elsewhere.
WORKSPACE_HOPPER = 4096 * 8 * 1024
WORKSPACE_OTHER = 4096 * 1024 * 2 + 16 * 1024 * 8

_CUBLAS = {aten.mm.default, aten.addmm.default, aten.bmm.default, aten.baddbmm.default,
           aten.addbmm.default, aten.mv.default, aten.addmv.default, aten.dot.default}

NOT_COUNTED = ["cuDNN convolution workspaces (chosen at run time)",
               "multi-block reduction staging buffers", "the CUDA context"]


def round_block(nbytes):
    """The caching allocator's block size for a request of `nbytes`."""
    return 0 if nbytes == 0 else -(-nbytes // BLOCK) * BLOCK


class CudaRules:
    """What StepRecorder asks when predicting for CUDA."""

    def __init__(self, cublas_workspace):
        self.cublas_workspace = cublas_workspace
        self.handles = set()  # threads that have made their cuBLAS workspace

    @staticmethod
    def host_resident(func):
        return func is aten.lift_fresh.default

    def workspace(self, func, phase):
        """Bytes of a cuBLAS workspace `func` allocates (and keeps) now."""
        if func not in _CUBLAS or not self.cublas_workspace:
            return 0
        thread = "autograd" if phase == "backward" else "caller"
        if thread in self.handles:
            return 0
        self.handles.add(thread)
        return round_block(self.cublas_workspace)


def setup_order(model, example, labels):
    """The tensors `model.to("cuda")` and the batch's `.to("cuda")` allocate,
    in their order: Module._apply visits the children first, then the
    module's own parameters, then its buffers; a tensor shared by two
    modules is moved once."""
    order, seen = [], set()

    def visit(module):
        for child in module.children():
            visit(child)
        for t in list(module._parameters.values()) + list(module._buffers.values()):
            if t is not None and id(t) not in seen:
                seen.add(id(t))
                order.append(t)

    visit(model)
    return order + [example, labels]


def _mem_plan():
    here = os.path.dirname(os.path.abspath(__file__))
    candidates = [os.environ.get("MEMOPT_MEM_PLAN"),
                  os.path.join(here, "..", "..", "build", "bin", "mem-plan"),
                  shutil.which("mem-plan")]
    return next((c for c in candidates if c and os.path.isfile(c) and os.access(c, os.X_OK)),
                None)


def replay(setup_bytes, events, conf, device_memory):
    """Replays setup tensors (never freed) then the recorded events through
    mem-plan's PyTorch CUDA allocator; returns its numbers as a dict, or
    None (with the reason) when mem-plan is not found."""
    tool = _mem_plan()
    if tool is None:
        return None, ("mem-plan not found (build it, or set MEMOPT_MEM_PLAN to its path): "
                      "reserved_peak_bytes not predicted")
    rows, born = [], {}
    end = len(setup_bytes) + len(events) + 1
    for i, nbytes in enumerate(setup_bytes):
        if nbytes:
            rows.append(("p%d" % i, i, end, nbytes))
    start = len(setup_bytes)
    for i, (kind, serial, nbytes) in enumerate(events):
        if kind == "a":
            born[serial] = (start + i, nbytes)
        elif kind == "f" and serial in born:
            lower, size = born.pop(serial)
            rows.append(("s%d" % serial, lower, start + i, size))
    rows += [("s%d" % s, lower, end, size) for s, (lower, size) in born.items()]
    with tempfile.TemporaryDirectory(prefix="memopt-predict-") as work:
        path = os.path.join(work, "trace.csv")
        with open(path, "w") as f:
            f.write("id,lower,upper,size\n")
            f.writelines("%s,%d,%d,%d\n" % row for row in rows)
        command = [tool, path, "--allocator=pytorch-cuda" + (":" + conf if conf else ""),
                   "--budget=0", "--exact-budget=0", "--time-limit=0"]
        if device_memory:
            command.append("--device-memory=" + device_memory)
        done = subprocess.run(command, capture_output=True, text=True)
    if done.returncode != 0:
        message = done.stderr.strip().splitlines()[-1] if done.stderr.strip() else ""
        message = re.sub(r"^mem-plan: error: --allocator=pytorch-cuda:?", "--allocator-conf ",
                         message)
        message = re.sub(r"^mem-plan: error: --device-memory=", "--device-memory ", message)
        raise ExportError(message or "the allocator replay failed")
    values = dict(re.findall(r"^(\w+): (.*)$", done.stdout, re.M))
    result = {k: int(values[k]) for k in ("reserved_peak_bytes", "allocated_peak_bytes",
                                          "segments_peak", "alloc_retries") if k in values}
    result["oom"] = values.get("oom", "none")
    result["allocator_config"] = values.get("allocator_config", "default")
    return result, None


def check_options(conf, device_memory):
    """Refuses a bad --allocator-conf or --device-memory before the trace
    (the replay of nothing reads them as the real one will)."""
    replay([], [], conf, device_memory)


def workspace_bytes(text):
    """--cublas-workspace: 'hopper', 'other', 'none', or a byte count with
    an optional unit (KiB, MiB, GiB)."""
    named = {"hopper": WORKSPACE_HOPPER, "other": WORKSPACE_OTHER, "none": 0}
    if text in named:
        return named[text]
    return parse_size(text, "--cublas-workspace")


def parse_size(text, what):
    """Bytes of '24GiB', '40000MB', '1.5GiB' or '1073741824'."""
    match = re.fullmatch(r"\s*(\d+(?:\.\d+)?)\s*([KMGT]i?B|B)?\s*", text or "")
    if not match:
        raise ExportError(f"{what}: '{text}' is not a size (a number of bytes, optionally "
                          f"followed by a unit: KB, MB, GB, TB or KiB, MiB, GiB, TiB)")
    unit = match.group(2) or "B"
    scale = 1 if unit == "B" else (1024 if "i" in unit else 1000) ** ("KMGT".index(unit[0]) + 1)
    return int(float(match.group(1)) * scale)
