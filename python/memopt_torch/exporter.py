"""Captures a PyTorch model's forward pass and loss as an ATen graph.

The tracer is `make_fx` (torch.fx.experimental.proxy_tensor), in its "real"
mode: it records every ATen op the eager forward runs, with concrete shapes,
so Python that branches on shapes (shufflenet unpacks `x.size()`) traces as
it runs, where `torch.fx.symbolic_trace` fails. Branching on a tensor's
*value* stops the trace; `export` reports the user's line.

Three things make_fx does not record are added here:
- module paths: forward pre/post hooks on every submodule keep a stack of
  the modules being run; each node records the innermost;
- source lines: each node records the innermost Python frame outside torch
  and this package (the user's `x = self.conv1(x)`);
- parameter names, aliases included (a tied LM head reads the embedding's
  tensor under two names).

The graph written is the JSON of docs/import.md (`format`, `version`).

Without --weights all of it runs on fake tensors (on_fake_tensors: shapes
without data, _fake.ShadowMode), which give the same graph.
"""

import contextlib
import importlib
import importlib.util
import linecache
import math
import operator
import os
import re
import sys

import torch
import torch.fx
import torch.nn.functional as F
from torch._subclasses.fake_tensor import FakeTensor
from torch.fx.experimental.proxy_tensor import make_fx
from torch.nn.utils import stateless

from ._fake import NoRealValue, ShadowMode

FORMAT = "memopt-torch-graph"
VERSION = 1

_TORCH_DIR = os.path.dirname(torch.__file__)
_PACKAGE_DIR = os.path.dirname(os.path.abspath(__file__))

_DTYPE_NAMES = {
    torch.float64: "float64",
    torch.float32: "float32",
    torch.float16: "float16",
    torch.bfloat16: "bfloat16",
    torch.int64: "int64",
    torch.int32: "int32",
    torch.int8: "int8",
    torch.uint8: "uint8",
    torch.bool: "bool",
}

# ATen ops that return a view of their first argument: an in-place update
# of one of them would change the tensor it views, which the functional
# train dialect cannot express.
_VIEW_OPS = {"view", "_reshape_alias", "slice", "select", "as_strided",
             "transpose", "t", "permute", "expand", "unsqueeze", "squeeze",
             "diagonal", "alias", "unfold", "split", "chunk", "narrow"}

# ATen ops that draw random numbers. A value computed from constants alone is
# folded into the graph with its data, but one of these gives a new value
# every step, so neither it nor what is computed from it is folded: the op
# stays in the graph, where mem-import takes it (native_dropout) or reports
# it at its line.
_RANDOM_OPS = {"bernoulli", "bernoulli_", "rand", "rand_like", "randn", "randn_like",
               "randint", "randint_like", "randperm", "normal", "normal_", "uniform_",
               "exponential_", "geometric_", "log_normal_", "cauchy_", "random_",
               "multinomial", "native_dropout", "dropout", "poisson", "rrelu_with_noise"}


# ATen ops that read only the shape, dtype and device of their first
# argument (x.new_zeros(...), torch.zeros_like(x)): what they compute does not
# depend on its values, so a parameter or an input there does not make them
# dynamic (Swin builds its shifted-window mask from x.new_zeros).
_METADATA_ONLY_OPS = {"new_zeros", "new_ones", "new_empty", "new_full", "zeros_like",
                      "ones_like", "empty_like", "full_like"}


def _value_inputs(node):
    """The nodes whose values `node` reads."""
    inputs = node.all_input_nodes
    if hasattr(node.target, "overloadpacket") and \
            node.target.overloadpacket.__name__ in _METADATA_ONLY_OPS and node.args:
        inputs = [n for n in inputs if n is not node.args[0]]
    return inputs


def _is_random(node):
    return node.op == "call_function" and hasattr(node.target, "overloadpacket") and \
        node.target.overloadpacket.__name__ in _RANDOM_OPS


class ExportError(Exception):
    """A model that cannot be exported; `location` is (file, line) or None."""

    def __init__(self, message, location=None):
        super().__init__(message)
        self.location = location


def dtype_name(dtype):
    if dtype not in _DTYPE_NAMES:
        raise ExportError(f"tensors of dtype {dtype} are not supported")
    return _DTYPE_NAMES[dtype]


def _is_user_file(filename):
    path = os.path.abspath(filename)
    return not (path.startswith(_TORCH_DIR + os.sep)
                or path.startswith(_PACKAGE_DIR + os.sep) or filename.startswith("<"))


def _user_frame():
    """(file, line, code) of the innermost frame outside torch and here."""
    frame = sys._getframe(1)
    while frame is not None:
        if _is_user_file(frame.f_code.co_filename):
            code = linecache.getline(frame.f_code.co_filename, frame.f_lineno).strip()
            return frame.f_code.co_filename, frame.f_lineno, code
        frame = frame.f_back
    return None


def _user_frame_of_traceback(tb):
    import traceback
    for entry in reversed(traceback.extract_tb(tb)):
        if _is_user_file(entry.filename):
            return entry.filename, entry.lineno, (entry.line or "").strip()
    return None


def resolve_model(spec):
    """The class or function `spec` names: `package.module:Name` or
    `file.py:Name` (a file is executed anew each time)."""
    if ":" not in spec:
        raise ExportError(f"model '{spec}' is not of the form module:Name or file.py:Name")
    where, name = spec.rsplit(":", 1)
    if where.endswith(".py"):
        if not os.path.exists(where):
            raise ExportError(f"no such file: {where}")
        module_name = "memopt_user_" + os.path.splitext(os.path.basename(where))[0]
        loader_spec = importlib.util.spec_from_file_location(module_name, where)
        module = importlib.util.module_from_spec(loader_spec)
        sys.modules[module_name] = module
        loader_spec.loader.exec_module(module)
    else:
        try:
            module = importlib.import_module(where)
        except ImportError as error:
            raise ExportError(f"cannot import '{where}': {error}")
    if not hasattr(module, name):
        raise ExportError(f"'{where}' has no attribute '{name}'")
    return getattr(module, name)


def load_model(spec, config=None):
    """Builds the model `spec` names (resolve_model), an nn.Module class or
    a function returning a module, called with the keyword arguments of
    `config` (a dict)."""
    build = resolve_model(spec)
    try:
        model = build(**(config or {}))
    except Exception as error:  # the user's constructor: report, not crash
        raise ExportError(f"building '{spec}' failed: {type(error).__name__}: {error}",
                          _user_frame_of_traceback(error.__traceback__))
    if not isinstance(model, torch.nn.Module):
        raise ExportError(f"'{spec}' did not build an nn.Module (got {type(model).__name__})")
    return model


def _named_tensors(model, attribute):
    """[(name, tensor)] of every parameter or buffer under every name it has
    (tied tensors appear once per module that holds them)."""
    named = []
    for module_name, module in model.named_modules(remove_duplicate=False):
        for name, tensor in getattr(module, attribute).items():
            if tensor is not None:
                named.append((f"{module_name}.{name}" if module_name else name, tensor))
    return named


class _ModuleStack:
    """Keeps the path of the module being run, through forward hooks."""

    def __init__(self, model):
        self.stack = []
        self.handles = []
        self.has_children = {name: any(True for _ in module.children())
                             for name, module in model.named_modules()}
        for name, module in model.named_modules():
            # The class now: functional_call swaps in a subclass while it runs.
            kind = type(module).__module__ + "." + type(module).__qualname__
            self.handles.append(module.register_forward_pre_hook(self._enter(name, kind)))
            self.handles.append(module.register_forward_hook(self._leave()))

    def _enter(self, name, kind):
        def hook(module, inputs):
            self.stack.append((name, kind))
        return hook

    def _leave(self):
        def hook(module, inputs, outputs):
            self.stack.pop()
        return hook

    def current(self):
        """(module path, module class, layer): the layer is the innermost
        module with submodules below the root (a residual block, an
        attention), or the module itself when none is (a stem conv)."""
        if not self.stack:
            return ("", "", "")
        name, kind = self.stack[-1]
        layer = name
        for outer, _ in reversed(self.stack):
            if outer and self.has_children.get(outer):
                layer = outer
                break
        return (name, kind, layer)

    def remove(self):
        for handle in self.handles:
            handle.remove()


@contextlib.contextmanager
def _recording(modules):
    """Makes every fx node created record its module and user source line,
    and F.dropout and torchvision's stochastic depth trace as one
    aten.native_dropout (the composite dropout of 1.13 traces as
    bernoulli_/div_/mul on a fresh tensor)."""
    base = torch.fx.proxy.TracerBase.create_node
    dropout = F.dropout

    def create_node(self, *args, **kwargs):
        node = base(self, *args, **kwargs)
        node.meta["memopt_module"] = modules.current()
        node.meta["memopt_source"] = _user_frame()
        return node

    def traced_dropout(input, p=0.5, training=True, inplace=False):
        if not training or p == 0.0:
            return input
        return torch.native_dropout(input, p, True)[0]

    # torchvision's stochastic depth (EfficientNet, ConvNeXt, Swin) draws its
    # per-sample mask with bernoulli_ on a fresh tensor: the same mask as a
    # native_dropout of ones (1/(1-p) where kept, else 0).
    # (torchvision.ops exports the function under the module's name, so the
    # module is taken from importlib.)
    try:
        depth_module = importlib.import_module("torchvision.ops.stochastic_depth")
    except ImportError:
        depth_module = None
    stochastic_depth = depth_module.stochastic_depth if depth_module else None

    def traced_stochastic_depth(input, p, mode, training=True):
        if not training or p == 0.0 or p >= 1.0 or mode not in ("batch", "row"):
            return stochastic_depth(input, p, mode, training)
        size = [input.shape[0]] + [1] * (input.ndim - 1) if mode == "row" else [1] * input.ndim
        ones = torch.ones(size, dtype=input.dtype, device=input.device)
        return input * torch.native_dropout(ones, p, True)[0]

    torch.fx.proxy.TracerBase.create_node = create_node
    F.dropout = traced_dropout
    if depth_module:
        depth_module.stochastic_depth = traced_stochastic_depth
    try:
        yield
    finally:
        torch.fx.proxy.TracerBase.create_node = base
        F.dropout = dropout
        if depth_module:
            depth_module.stochastic_depth = stochastic_depth


def loss_of(output, loss, labels):
    """The training loss of the model's `output` (see export --loss)."""
    if loss == "model":
        # The model computed its loss (nanoGPT returns (logits, loss)).
        if isinstance(output, (tuple, list)):
            scalars = [o for o in output if isinstance(o, torch.Tensor) and o.dim() == 0]
            if not scalars:
                raise ExportError("--loss model: the model returned no 0-d tensor")
            return scalars[-1]
        if not isinstance(output, torch.Tensor) or output.dim() != 0:
            raise ExportError("--loss model: the model did not return a 0-d loss")
        return output
    if isinstance(output, (tuple, list)):
        output = output[0]
    if hasattr(output, "logits"):
        output = output.logits
    if loss == "cross_entropy":
        return F.cross_entropy(output.reshape(-1, output.shape[-1]), labels.reshape(-1))
    if loss == "mse":
        return F.mse_loss(output, labels)
    raise ExportError(f"unknown loss '{loss}' (expected cross_entropy, mse or model)")


def _describe_output(value):
    if not isinstance(value, torch.Tensor):
        return type(value).__name__
    if value.dim() == 0:
        return "0-d tensor"
    return "tensor " + "x".join(str(d) for d in value.shape)


def dropped_outputs_note(output, loss):
    """The note saying what loss_of leaves out of `output` (the eager
    forward's result) for --loss cross_entropy or mse, or None: of a tuple or
    list, every output but the first; of an object with .logits (a
    HuggingFace ModelOutput), every other field."""
    if loss == "model":
        return None
    if isinstance(output, (tuple, list)):
        if len(output) < 2:
            return None
        fields = getattr(output, "_fields", None)  # a namedtuple's names
        labels = [f"output {i} (" + (f"{fields[i]}, " if fields else "") +
                  f"{_describe_output(value)})" for i, value in enumerate(output)]
        return (f"the model returned {len(output)} outputs (as {type(output).__name__}); "
                f"the {loss} loss is computed from {labels[0]} alone; dropped, with the "
                f"ops only they need: {', '.join(labels[1:])}")
    if hasattr(output, "logits") and hasattr(output, "keys"):
        others = [k for k in output.keys() if k != "logits"]
        if others:
            return (f"the model returned {type(output).__name__} with fields "
                    f"{', '.join(output.keys())}; the {loss} loss is computed from its "
                    f"logits alone; dropped, with the ops only they need: "
                    f"{', '.join(others)}")
    return None


def _unique(named):
    seen = {}
    for name, tensor in named:
        seen.setdefault(id(tensor), (name, tensor))
    return list(seen.values())


def unique_parameters(model):
    """[(name, parameter)]: each parameter once, under its first name."""
    return _unique(_named_tensors(model, "_parameters"))


def example_input(args, model, dtype):
    """The batch for --input (standard normal, in `dtype`) or --input-ids
    (token ids below --vocab or the first nn.Embedding's size)."""
    if args.input is not None:
        return torch.randn(args.input, dtype=dtype)
    vocab = args.vocab or first_embedding_size(model)
    if not vocab:
        raise ExportError("--input-ids needs --vocab: the model has no nn.Embedding")
    return torch.randint(0, vocab, args.input_ids)


def model_loss_labels(args, model, example):
    """Labels for --loss model: class ids shaped as --labels or the input."""
    classes = args.num_classes or args.vocab or first_embedding_size(model)
    if not classes:
        raise ExportError("--loss model needs --num-classes")
    return torch.randint(0, classes, args.labels or list(example.shape))


def labels_for_output(args, output, dtype):
    """Labels for --loss cross_entropy (class ids) or mse (standard normal),
    shaped after the model's `output` (its first element, or `.logits`)."""
    if isinstance(output, (tuple, list)):
        output = output[0]
    if hasattr(output, "logits"):
        output = output.logits
    if args.loss == "cross_entropy":
        classes = args.num_classes or output.shape[-1]
        return torch.randint(0, classes, args.labels or list(output.shape[:-1]))
    return torch.randn(args.labels or list(output.shape), dtype=dtype)


def first_embedding_size(model):
    """The vocabulary of the model's first nn.Embedding (the default of
    --vocab and, for token labels, --num-classes), or None."""
    for module in model.modules():
        if isinstance(module, torch.nn.Embedding):
            return module.num_embeddings
    return None


def trace(model, inputs, labels, loss):
    """Returns (graph module, params, buffers): the make_fx graph of
    `loss(model(*inputs), labels)` whose placeholders are the unique
    parameters, then the unique buffers, then inputs and labels."""
    all_params = _named_tensors(model, "_parameters")
    all_buffers = _named_tensors(model, "_buffers")
    params = _unique(all_params)
    buffers = _unique(all_buffers)
    for _, t in params:  # a parameter is never a constant (on_fake_tensors)
        if isinstance(t, FakeTensor):
            t.fake_mode.forget(t)
    slots = {id(t): i for i, (_, t) in enumerate(params + buffers)}
    state_names = [(name, slots[id(t)]) for name, t in all_params + all_buffers]
    nstate = len(params) + len(buffers)
    nin = len(inputs)

    def step(*flat):
        state = {name: flat[slot] for name, slot in state_names}
        args = list(flat[nstate:nstate + nin])
        target = flat[nstate + nin] if labels is not None else None
        if loss == "model":
            args.append(target)
        output = stateless.functional_call(model, state, tuple(args))
        # The loss computed here is the pseudo-module "loss".
        modules.stack.append(("loss", "memopt_torch.loss"))
        try:
            return loss_of(output, loss, target)
        finally:
            modules.stack.pop()

    modules = _ModuleStack(model)
    example = [t for _, t in params + buffers] + list(inputs)
    if labels is not None:
        example.append(labels)
    try:
        with _recording(modules):
            graph = make_fx(step)(*example)
    except ExportError:
        raise  # loss_of's own message (--loss model)
    except Exception as error:
        where = _user_frame_of_traceback(error.__traceback__)
        if isinstance(error, RuntimeError) and "data-dependent" in str(error):
            # Final on fake tensors too (on_fake_tensors): make_fx refuses the
            # read before any tensor sees it.
            raise data_dependent_error(where) from None
        raise ExportError(f"tracing failed: {type(error).__name__}: "
                          f"{str(error).splitlines()[0] if str(error) else ''}", where)
    finally:
        modules.remove()
    return graph, params, buffers


def data_dependent_error(where):
    """The refusal of a forward that reads a tensor's value, at `where`."""
    return ExportError("the model branches on a tensor's value (data-dependent control "
                       "flow); a trace with static shapes cannot follow it: compute the "
                       "branch from shapes or configuration, or move it out of forward",
                       where)


def reads_value(error):
    """Whether `error` is a fake tensor's refusal to give its value (x.item(),
    `if x > 0`: no shadow holds it)."""
    return isinstance(error, NotImplementedError) and \
        "'aten::_local_scalar_dense' with arguments from the 'Meta' backend" in str(error)


def _is_identity_restride(node, values):
    """Whether `node` is an as_strided that views its input exactly as the
    input's own layout does (make_fx writes one after an adaptive average
    pool of a channels-last tensor): the same logical tensor. The input's
    real strides are those of the traced run."""
    if node.op != "call_function" or \
            str(node.target) not in ("aten.as_strided.default", "aten.as_strided_.default"):
        return False
    source = node.args[0]
    if not isinstance(source, torch.fx.Node) or not isinstance(values.get(source), torch.Tensor):
        return False
    value = values[source]
    size = list(node.args[1])
    stride = list(node.args[2])
    offset = node.args[3] if len(node.args) > 3 and node.args[3] is not None else \
        node.kwargs.get("storage_offset", value.storage_offset())
    if size != list(value.shape) or offset != value.storage_offset():
        return False
    # A dimension of size 1 is never stepped along: its stride is irrelevant.
    return all(n == 1 or s == t for n, s, t in zip(size, stride, value.stride()))


def _tensor_info(value):
    if isinstance(value, torch.Tensor):
        return {"shape": list(value.shape), "dtype": dtype_name(value.dtype)}
    return None


class _Values(torch.fx.Interpreter):
    """Runs the graph on the example tensors, keeping every node's value."""

    def __init__(self, graph):
        super().__init__(graph)
        self.values = {}

    def run_node(self, node):
        value = super().run_node(node)
        self.values[node] = value
        return value


def _real_value(value, name):
    """`value` with its data: a fake tensor's shadow (on_fake_tensors)."""
    return value.fake_mode.value_of(value, name) if isinstance(value, FakeTensor) else value


def _encode_float(value):
    if math.isfinite(value):
        return value
    return {"float": "nan" if math.isnan(value) else ("inf" if value > 0 else "-inf")}


def _placeholder_kinds(placeholders, params, buffers, input_names):
    """({placeholder: "param" | "buffer" | "input"}, {placeholder: name}):
    the graph takes the parameters, then the buffers, then the inputs."""
    kinds = {}
    names = {}
    nparams, nbuffers = len(params), len(buffers)
    for i, node in enumerate(placeholders):
        if i < nparams:
            kinds[node], names[node] = "param", params[i][0]
        elif i < nparams + nbuffers:
            kinds[node], names[node] = "buffer", buffers[i - nparams][0]
        else:
            kinds[node], names[node] = "input", input_names[i - nparams - nbuffers]
    return kinds, names


def _buffer_updates(gm_graph, kinds, names, dynamic):
    """(dropped, updated): the in-place updates of buffers, which the step
    does not carry, and their descriptions for the notes. An in-place update
    of a view of a value the step computes is an ExportError."""
    dropped = set()
    updated = set()
    for node in gm_graph.nodes:
        if node.op != "call_function" or not hasattr(node.target, "overloadpacket"):
            continue
        packet = node.target.overloadpacket.__name__
        if not packet.endswith("_") or packet.startswith("_"):
            continue
        first = node.args[0]
        if not isinstance(first, torch.fx.Node):
            continue
        if first.op == "placeholder" and kinds[first] == "buffer":
            # num_batches_tracked += 1: state the step does not carry
            # (docs/import.md).
            dropped.add(node)
            updated.add(f"{names[first].rsplit('.', 1)[-1]} ({node.target})")
            continue
        # On a view of a value the step computes (constants are folded from
        # their real values, in-place updates included).
        if node in dynamic and first.op == "call_function" and \
                hasattr(first.target, "overloadpacket") and \
                first.target.overloadpacket.__name__ in _VIEW_OPS:
            raise ExportError(f"in-place {packet} on a view ({first.target}) is not supported",
                              node.meta.get("memopt_source"))
    return dropped, updated


def _live_nodes(output_node, dropped):
    """The nodes the loss depends on (through no dropped buffer update)."""
    live = set()
    work = [output_node]
    while work:
        node = work.pop()
        if node in live:
            continue
        live.add(node)
        for arg in node.all_input_nodes:
            if arg not in dropped:
                work.append(arg)
    return live


def _node_entries(gm_graph, live, dynamic, restrides, values, encode, node_names):
    """(the JSON entries of the ops the step computes, whether batch norm's
    running statistics were dropped); records each op's name in
    `node_names`, which `encode` reads for the ops after it."""
    nodes = []
    running_stats_dropped = False
    for node in gm_graph.nodes:
        if node.op != "call_function" or node not in live or node not in dynamic:
            continue
        target = str(node.target)
        if node.target is operator.getitem or target == "aten.detach.default" or \
                node in restrides:
            continue
        if target.startswith("aten.") and hasattr(node.target, "overloadpacket"):
            packet = node.target.overloadpacket.__name__
            if packet.endswith("_") and not packet.startswith("_"):
                # x.relu_() is relu(x): later readers of x read this node.
                target = "aten." + packet[:-1] + "." + node.target._overloadname
        node_names[node] = node.name
        value = values.get(node)
        if isinstance(value, (tuple, list)):
            outputs = [_tensor_info(v) for v in value]
        else:
            outputs = [_tensor_info(value)]
        args = list(node.args)
        if target == "aten.native_batch_norm.default" and not args[5]:
            # Evaluation mode (F.batch_norm(..., training=False)) saves no
            # statistics: its empty results, which nothing reads, are not
            # written, so that mem-import reaches its message on evaluation
            # mode rather than one on empty tensors.
            outputs[1:] = [None] * (len(outputs) - 1)
        if target == "aten.native_batch_norm.default" and args[5]:
            # Training mode normalizes with the batch's statistics; the
            # running mean and variance it would update are not state of
            # the step (docs/import.md).
            args[3] = args[4] = None
            running_stats_dropped = True
        entry = {
            "name": node.name,
            "target": target,
            "args": [encode(a) for a in args],
            "kwargs": {k: encode(v) for k, v in node.kwargs.items()},
            "outputs": outputs,
        }
        module, module_type, layer = node.meta.get("memopt_module", ("", "", ""))
        if module:
            entry["module"] = module
            entry["module_type"] = module_type
            entry["layer"] = layer
        source = node.meta.get("memopt_source")
        if source:
            entry["loc"] = {"file": source[0], "line": source[1], "code": source[2]}
        nodes.append(entry)
    return nodes, running_stats_dropped


def _frozen_note(params):
    """The note on the frozen parameters (requires_grad=False) among
    `params`, or None where every one is trained."""
    frozen = [t for _, t in params if not t.requires_grad]
    if not frozen:
        return None
    if len(frozen) == len(params):
        return ("every parameter is frozen (requires_grad=False): the step has "
                "nothing to train (train-autodiff refuses it)")
    return (f"{len(frozen)} of {len(params)} parameters ({sum(t.numel() for t in frozen)} "
            f"of {sum(t.numel() for _, t in params)} elements) are frozen "
            "(requires_grad=False): mem-import reads them as train.param "
            "{trainable = false}, with no gradient and no optimizer state")


def to_json(graph, params, buffers, input_names, example, spec, loss):
    """The versioned JSON document of the traced graph (docs/import.md)."""
    gm_graph = graph.graph
    placeholders = [n for n in gm_graph.nodes if n.op == "placeholder"]
    interpreter = _Values(graph)
    with torch.no_grad():
        interpreter.run(*example)
    values = interpreter.values

    nparams, nbuffers = len(params), len(buffers)
    kinds, names = _placeholder_kinds(placeholders, params, buffers, input_names)

    # Dynamic nodes depend on a parameter, an input or a random draw; the
    # others are constants (buffers and what the forward computes from them).
    dynamic = set()
    for node in gm_graph.nodes:
        if node.op == "placeholder":
            if kinds[node] != "buffer":
                dynamic.add(node)
        elif node.op == "call_function" and \
                (_is_random(node) or any(a in dynamic for a in _value_inputs(node))):
            dynamic.add(node)

    output_node = next(n for n in gm_graph.nodes if n.op == "output")
    dropped, updated = _buffer_updates(gm_graph, kinds, names, dynamic)
    live = _live_nodes(output_node, dropped)

    constants = {}
    node_names = {}
    restrides = {node for node in gm_graph.nodes if _is_identity_restride(node, values)}

    # Aliases: getitem picks a result, detach is the identity, an in-place
    # update returns its (updated) first argument.
    def ref(node, index=None):
        if node.op == "call_function" and node.target is operator.getitem:
            return ref(node.args[0], node.args[1])
        if node.op == "call_function" and str(node.target) == "aten.detach.default":
            return ref(node.args[0], index)
        if node in restrides:
            return ref(node.args[0], index)
        if node not in dynamic:
            # A constant: the buffer or folded value, written with its data.
            value = values[node]
            if index is not None:
                value = value[index]
            key = (node.name, index)
            if key not in constants:
                name = f"{names[node]}" if node.op == "placeholder" else \
                    f"const{len(constants)}"
                value = _real_value(value, name)
                constants[key] = {
                    "name": name,
                    "shape": list(value.shape),
                    "dtype": dtype_name(value.dtype),
                    "data": [_encode_float(float(v)) if value.is_floating_point() else int(v)
                             for v in value.detach().reshape(-1).tolist()],
                }
            return {"constant": constants[key]["name"]}
        if node.op == "placeholder":
            return {kinds[node]: names[node]}
        result = {"node": node_names[node]}
        if index is not None:
            result["index"] = index
        return result

    def encode(arg):
        if isinstance(arg, torch.fx.Node):
            return ref(arg)
        if isinstance(arg, (list, tuple)):
            return [encode(a) for a in arg]
        if isinstance(arg, bool) or arg is None or isinstance(arg, (int, str)):
            return arg
        if isinstance(arg, float):
            return _encode_float(arg)
        if isinstance(arg, torch.dtype):
            return {"dtype": dtype_name(arg)}
        return str(arg)

    nodes, running_stats_dropped = _node_entries(gm_graph, live, dynamic, restrides, values,
                                                 encode, node_names)

    notes = []
    # A parameter the loss does not read (one only a dropped output reads)
    # gets no gradient in PyTorch and is not part of the imported step.
    unread = [names[n] for n in placeholders if kinds[n] == "param" and n not in live]
    if unread:
        notes.append(f"parameters the loss does not read are not part of the step: "
                     f"{', '.join(unread)}")
    for update in sorted(updated):
        notes.append(f"in-place updates of buffers {update} are not part of the step")
    if running_stats_dropped:
        notes.append("batch norm in training mode: normalized with batch statistics; "
                     "running_mean/running_var are not updated by the step")
    frozen = _frozen_note(params)
    if frozen:
        notes.append(frozen)
    result = output_node.args[0]
    document = {
        "format": FORMAT,
        "version": VERSION,
        "producer": f"memopt_torch (torch {torch.__version__})",
        "model": spec,
        "loss": loss,
        # requires_grad=False (a frozen parameter): mem-import reads it as
        # train.param {trainable = false} (docs/import.md).
        "params": [{"name": name, "shape": list(t.shape), "dtype": dtype_name(t.dtype),
                    "requires_grad": bool(t.requires_grad)}
                   for name, t in params],
        "buffers": [{"name": name, "shape": list(t.shape), "dtype": dtype_name(t.dtype)}
                    for name, t in buffers],
        "inputs": [{"name": name, **_tensor_info(t)}
                   for name, t in zip(input_names, example[nparams + nbuffers:])],
        "constants": list(constants.values()),
        "nodes": nodes,
        "output": encode(result),
        "notes": notes,
    }
    return document


# --------------------------------------------------------------------------
# Exporting without data (_fake.ShadowMode)
# --------------------------------------------------------------------------

def on_fake_tensors(run):
    """(result, None): `run()` (which builds, traces and writes the graph)
    run under a ShadowMode, or (None, why) where it could not run there and
    the real path must: an op without a meta kernel in torch 1.13, a value
    read that no shadow holds, or any failure of the model's own code,
    whose message on real tensors is then the one reported. An ExportError
    that shows no underlying exception (this package's own checks, or one
    raised `from None`: the same on real tensors) is raised."""
    mode = ShadowMode(_METADATA_ONLY_OPS)
    try:
        with mode, mode.tolist():
            return run(), None
    except ExportError as error:
        if error.__cause__ is None and \
                (error.__context__ is None or error.__suppress_context__):
            raise
        why = str(error)
    except NoRealValue as error:
        why = str(error)
    except Exception as error:  # the model's code or torch on fake tensors
        why = f"{type(error).__name__}: {error}"
    kernel = re.search(r"Could not run '([^']+)' with arguments from the 'Meta' backend", why)
    if kernel and kernel.group(1) == "aten::_local_scalar_dense":
        why = "the model reads the value of a tensor computed from its parameters or input"
    elif kernel:
        why = f"torch {torch.__version__} has no meta kernel for {kernel.group(1)}"
    why = why.splitlines()[0] if why else "unknown error"
    return None, why[:300]
