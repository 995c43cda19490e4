"""python3 -m memopt_torch export MODEL [options] -o graph.json

Traces a PyTorch model's forward pass and loss at the ATen level and writes
the graph mem-import reads (docs/import.md); `predict` tells PyTorch eager's
own CPU allocator peak for a training step without running the model on
data (predict.py). Examples:

  python3 -m memopt_torch export torchvision.models:resnet18 \\
      --input 8x3x224x224 --loss cross_entropy -o resnet18.json
  python3 -m memopt_torch export gpt.py:GPT --config '{"n_layer": 4}' \\
      --input-ids 8x128 --loss model -o gpt.json --weights gpt.safetensors
  python3 -m memopt_torch predict torchvision.models:resnet18 \\
      --config '{"num_classes": 10}' --input 8x3x64x64 --optimizer adam
"""

import argparse
import json
import os
import re
import sys

from . import exporter
from .exporter import ExportError


def _shape(text):
    try:
        shape = [int(d) for d in text.lower().split("x")]
    except ValueError:
        raise argparse.ArgumentTypeError(f"'{text}' is not a shape like 8x3x224x224")
    if not shape or any(d <= 0 for d in shape):
        raise argparse.ArgumentTypeError(f"'{text}': every dimension must be positive")
    return shape


def _parser():
    parser = argparse.ArgumentParser(
        prog="python3 -m memopt_torch",
        description="Export a PyTorch model's training forward pass (forward + loss) "
                    "for mem-import.")
    commands = parser.add_subparsers(dest="command", required=True)
    export = commands.add_parser(
        "export", help="trace a model and write its graph (JSON) and weights",
        description="Trace MODEL in training mode with make_fx and write the ATen graph "
                    "of its forward pass and loss as JSON (docs/import.md).")
    export.add_argument("model", help="module:Name or file.py:Name; Name is an nn.Module "
                        "class or a function returning one (torchvision.models:resnet18)")
    export.add_argument("--config", default="{}",
                        help="JSON object of keyword arguments for Name (default: {})")
    inputs = export.add_mutually_exclusive_group(required=True)
    inputs.add_argument("--input", type=_shape, metavar="SHAPE",
                        help="a float32 input of SHAPE (e.g. 8x3x224x224), standard normal")
    inputs.add_argument("--input-ids", type=_shape, metavar="SHAPE",
                        help="an int64 input of SHAPE with token ids below --vocab")
    export.add_argument("--vocab", type=int,
                        help="token ids lie below this (default: the first nn.Embedding's size)")
    export.add_argument("--loss", default="cross_entropy",
                        choices=["cross_entropy", "mse", "model"],
                        help="cross_entropy over the output's last dimension (default), mse "
                             "against a float target of the output's shape, or model: "
                             "forward(input, labels) returns the loss (or a tuple holding it)")
    export.add_argument("--labels", type=_shape, metavar="SHAPE",
                        help="shape of the labels (default: the output's shape without its "
                             "last dimension for cross_entropy, the input ids' for model)")
    export.add_argument("--num-classes", type=int,
                        help="labels lie below this (default: the output's last dimension; "
                             "for --loss model, --vocab)")
    export.add_argument("--dtype", default="float32", choices=["float32", "float64"],
                        help="the parameters' and float inputs' dtype (default: float32; "
                             "float64 for gradient checks and exact comparisons)")
    export.add_argument("--seed", type=int, default=0,
                        help="torch.manual_seed before building the model and its inputs")
    export.add_argument("-o", "--output", required=True, help="the graph (JSON)")
    export.add_argument("--weights",
                        help="also write the initial parameters and the example inputs "
                             "(safetensors; mem-run --init-from reads it)")
    export.add_argument("--tensors", default="auto", choices=["auto", "fake", "real"],
                        help="what the model is built and traced on: fake tensors (shapes "
                             "without data: no parameter memory, no compute; the same graph) "
                             "or real ones. auto (default): fake without --weights, falling "
                             "back to real with a note where fake tensors cannot run the "
                             "model; fake: fail instead; real: always real")
    train = commands.add_parser(
        "train", help="run training steps in PyTorch eager (the reference for mem-run)",
        description="Build MODEL as export does, load the parameters and the batch "
                    "(arg0, arg1) from --weights, and run --steps steps of SGD or Adam "
                    "in PyTorch eager, printing the losses as mem-run does "
                    "(step N: loss = ...). mem-run --init-from with the same file and "
                    "train-autodiff with the same optimizer runs the same steps.")
    train.add_argument("model", help="as for export")
    train.add_argument("--config", default="{}", help="as for export")
    train.add_argument("--loss", default="cross_entropy",
                       choices=["cross_entropy", "mse", "model"], help="as for export")
    train.add_argument("--weights", required=True,
                       help="safetensors file written by export --weights")
    train.add_argument("--optimizer", default="sgd", choices=["sgd", "adam", "adamw"],
                       help="torch.optim.SGD (no momentum), Adam or AdamW (betas "
                            "0.9/0.999, eps 1e-8), over every parameter: a frozen one "
                            "(requires_grad=False) keeps .grad None, which all three "
                            "skip, weight decay included (default: sgd)")
    train.add_argument("--weight-decay", type=float, default=0.0,
                       help="weight decay: L2 for sgd and adam, decoupled for adamw, as "
                            "train-autodiff's weight-decay (default: 0, train-autodiff's "
                            "default; torch's AdamW default is 1e-2)")
    train.add_argument("--dtype", default="float32", choices=["float32", "float64"],
                       help="as for export")
    train.add_argument("--lr", type=float, default=1e-3, help="learning rate (default: 1e-3)")
    train.add_argument("--steps", type=int, default=3, help="steps to run (default: 3)")
    train.add_argument("--save-params",
                       help="write the parameters after the last step (safetensors)")

    _predict_parser(commands)

    compare = commands.add_parser(
        "compare", help="compare the tensors of two safetensors files",
        description="Pair the tensors of two safetensors files by name and check "
                    "|a - b| <= atol + rtol * |b| element by element (or, with --norm, "
                    "tensor by tensor in 2-norm); exits 1 on a mismatch or a tensor "
                    "present in one file only.")
    compare.add_argument("actual")
    compare.add_argument("expected")
    compare.add_argument("--rtol", type=float, default=1e-4)
    compare.add_argument("--atol", type=float, default=0.0)
    compare.add_argument("--norm", action="store_true",
                         help="compare each tensor as a whole: ||a - b|| <= atol + rtol * ||b|| "
                              "(2-norms) instead of element by element")
    compare.add_argument("--only", metavar="REGEX",
                         help="compare only the tensors whose names REGEX matches "
                              "(re.search); the others may be in one file only")
    compare.add_argument("--exact", metavar="REGEX",
                         help="the tensors whose names REGEX matches (re.search) must be "
                              "bit-identical: the same dtype, shape and bytes (frozen "
                              "parameters); the others are compared by the tolerances")
    compare.add_argument("--from", dest="start", metavar="BEFORE",
                         help="compare the changes a - BEFORE and b - BEFORE, where BEFORE holds "
                              "the tensors both runs started from (export --weights): the "
                              "training steps' updates, which a wrong gradient changes by its "
                              "own relative error whatever the learning rate")
    return parser


def _size(text):
    from .exporter import ExportError
    from ._cuda import parse_size
    try:
        value = parse_size(text, "size")
    except ExportError as error:
        raise argparse.ArgumentTypeError(str(error).replace("size: ", ""))
    if value <= 0:
        raise argparse.ArgumentTypeError(f"'{text}' is not a positive size")
    return value


def _flag(text):
    if text.lower() in ("true", "1", "yes"):
        return True
    if text.lower() in ("false", "0", "no"):
        return False
    raise argparse.ArgumentTypeError(f"'{text}' is not true or false")


def _predict_parser(commands):
    predict = commands.add_parser(
        "predict", help="predict PyTorch eager's allocator peaks of a training step",
        description="Run two training steps of MODEL (zero_grad, forward, loss, backward, "
                    "optimizer step) under torch's FakeTensorMode, recording every "
                    "allocation and free at the dispatcher, and print the peak of the "
                    "allocator during step 2 (the peak reset just before it) as "
                    "allocated_peak_bytes: c10's CPU allocator, or with --device cuda the "
                    "CUDA caching allocator, with reserved_peak_bytes from its replay. "
                    "--budget says whether the step fits and which settings make it fit; "
                    "--breakdown what is live at the peak and where it came from "
                    "(docs/pytorch.md).")
    predict.add_argument("model", help="as for export")
    predict.add_argument("--config", default="{}", help="as for export")
    inputs = predict.add_mutually_exclusive_group(required=True)
    inputs.add_argument("--input", type=_shape, metavar="SHAPE", help="as for export")
    inputs.add_argument("--input-ids", type=_shape, metavar="SHAPE", help="as for export")
    predict.add_argument("--vocab", type=int, help="as for export")
    predict.add_argument("--loss", default="cross_entropy",
                         choices=["cross_entropy", "mse", "model"], help="as for export")
    predict.add_argument("--labels", type=_shape, metavar="SHAPE", help="as for export")
    predict.add_argument("--num-classes", type=int, help="as for export")
    predict.add_argument("--dtype", default="float32", choices=["float32", "float64"],
                         help="as for export")
    predict.add_argument("--seed", type=int, default=0, help="as for export")
    predict.add_argument("--optimizer", default="sgd", choices=["sgd", "adam", "adamw"],
                         help="torch.optim.SGD, Adam or AdamW, torch's defaults (default: sgd)")
    predict.add_argument("--lr", type=float, default=1e-3, help="learning rate (default: 1e-3)")
    predict.add_argument("--momentum", type=float, default=0.0, help="SGD's (default: 0)")
    predict.add_argument("--weight-decay", type=float,
                         help="default: torch's (0; AdamW 1e-2)")
    predict.add_argument("--foreach", action="store_true",
                         help="the optimizer's foreach implementation (default: the "
                              "single-tensor loop, torch 1.13's default on the CPU)")
    predict.add_argument("--set-to-none", type=_flag, default=True, metavar="BOOL",
                         help="zero_grad(set_to_none=BOOL) (default: true)")
    predict.add_argument("--autocast", choices=["bf16"],
                         help="run the forward and the loss under torch.autocast('cpu', "
                              "dtype=torch.bfloat16), the backward and the step outside it "
                              "(default: none, everything in --dtype)")
    predict.add_argument("--checkpoint", metavar="MODULES",
                         help="wrap these modules' forward in torch.utils.checkpoint: "
                              "comma-separated names as in model.named_modules(), 'blocks' "
                              "(every repeated block: transformer layers, residual blocks) "
                              "or 'blocks/2' (every second one)")
    predict.add_argument("--budget", type=_size, metavar="SIZE",
                         help="also say whether the step fits SIZE (e.g. 24GiB; the reserved "
                              "peak on cuda, the allocated peak on cpu) and predict it again "
                              "with each setting that lowers it: set_to_none, no foreach, "
                              "expandable segments, checkpointing, the largest batch")
    predict.add_argument("--device", default="cpu", choices=["cpu", "cuda"],
                         help="the allocator predicted: cpu (c10's CPU allocator, checked "
                              "byte for byte against a measured run) or cuda (the same "
                              "trace under the CUDA caching allocator's rules, with "
                              "reserved_peak_bytes from its replay; see docs/pytorch.md "
                              "for what is and is not counted) (default: cpu)")
    predict.add_argument("--cublas-workspace", default="none", metavar="SIZE",
                         help="with --device cuda: bytes of the workspace each cuBLAS "
                              "handle takes from the caching allocator at its first matrix "
                              "product: 'hopper' (32 MiB, PyTorch 2.1 and later on sm90), "
                              "'other' (8 MiB + 128 KiB, PyTorch 2.1 and later elsewhere), "
                              "'none' (torch 1.13, whose cuBLAS allocates its own), or a "
                              "size (default: none)")
    predict.add_argument("--allocator-conf", metavar="CONF",
                         help="with --device cuda: PYTORCH_CUDA_ALLOC_CONF for the replay, "
                              "e.g. expandable_segments:True")
    predict.add_argument("--device-memory", metavar="SIZE",
                         help="with --device cuda: what the allocator may reserve (e.g. "
                              "24GiB); the replay reports where it would run out")
    predict.add_argument("--threads", type=int,
                         help="torch.set_num_threads first (default: torch's; kernels' "
                              "buffers and oneDNN's choices depend on it)")
    predict.add_argument("--no-probe", dest="probe", action="store_false",
                         help="count 0 B for the internal buffers of kernels no rule models "
                              "(channels-last convolutions) instead of running each such "
                              "kernel once on zero tensors of its shapes")
    predict.add_argument("--breakdown", action="store_true",
                         help="also print what is live at the peak: bytes by component, "
                              "the largest tensors with the op, module and source line that "
                              "made them, saved activations by module, temporaries by op")
    predict.add_argument("--trace", metavar="FILE",
                         help="also write step 2 as a trace document (JSON, schema "
                              "memopt.eager-trace/1): its ops, and every storage with its "
                              "bytes, live range and memory class; `mem-report` prints it "
                              "as memopt's report (text, JSON, HTML)")
    predict.add_argument("--json", action="store_true",
                         help="print a JSON object: allocated_peak_bytes and the breakdown "
                              "at the peak")
    predict.add_argument("--measure", action="store_true",
                         help="also run the two steps on real tensors and measure the peak "
                              "with torch.profiler (measured_peak_bytes)")


def _build_model(args, seed):
    """(model, config): MODEL built from --config after torch.manual_seed(seed),
    in --dtype, in training mode."""
    import torch

    try:
        config = json.loads(args.config)
    except json.JSONDecodeError as error:
        raise ExportError(f"--config is not JSON: {error}")
    if not isinstance(config, dict):
        raise ExportError("--config must be a JSON object")
    torch.manual_seed(seed)
    model = exporter.load_model(args.model, config).to(getattr(torch, args.dtype))
    model.train()
    return model, config


def _train(args):
    import torch
    from . import safetensors

    model, _ = _build_model(args, 0)
    tensors, _ = safetensors.load(args.weights)
    params = exporter.unique_parameters(model)
    names = {name for name, _ in params}
    for name, tensor in params:
        if name not in tensors:
            raise ExportError(f"{args.weights} has no tensor '{name}'")
        if list(tensors[name].shape) != list(tensor.shape):
            raise ExportError(f"'{name}' has shape {list(tensors[name].shape)} in "
                              f"{args.weights} but {list(tensor.shape)} in the model")
        with torch.no_grad():
            tensor.copy_(tensors[name])
    extra = sorted(set(tensors) - names - {"arg0", "arg1"})
    if extra:
        raise ExportError(f"{args.weights} has tensors the model lacks: {', '.join(extra)}")
    missing = [name for name in ("arg0", "arg1") if name not in tensors]
    if missing:
        raise ExportError(f"{args.weights} has no tensor {' or '.join(missing)} "
                          "(the example input and labels that export --weights "
                          "writes)")
    example, labels = tensors["arg0"], tensors["arg1"]
    dtype = getattr(torch, args.dtype)
    if example.is_floating_point():
        example = example.to(dtype)
    if labels.is_floating_point():
        labels = labels.to(dtype)
    # Every parameter, frozen ones included: torch's optimizers skip a
    # parameter whose .grad is None (weight decay too), and a frozen one's
    # stays None, since zero_grad() only zeroes gradients that exist.
    weights = [t for _, t in params]
    if args.optimizer == "sgd":
        optimizer = torch.optim.SGD(weights, lr=args.lr, weight_decay=args.weight_decay)
    else:
        kind = torch.optim.Adam if args.optimizer == "adam" else torch.optim.AdamW
        optimizer = kind(weights, lr=args.lr, weight_decay=args.weight_decay,
                         foreach=False)
    for step in range(1, args.steps + 1):
        optimizer.zero_grad()
        if args.loss == "model":
            output = model(example, labels)
        else:
            output = model(example)
        loss = exporter.loss_of(output, args.loss, labels)
        print("step %d: loss = %.9e" % (step, float(loss)))
        loss.backward()
        optimizer.step()
    if args.save_params:
        safetensors.save({name: t for name, t in params}, args.save_params)
    return 0


def _compare(args):
    import torch
    from . import safetensors

    actual, _ = safetensors.load(args.actual)
    expected, _ = safetensors.load(args.expected)
    selected, exact = _regex(args.only, "--only"), _regex(args.exact, "--exact")
    if selected:
        actual = {k: v for k, v in actual.items() if selected.search(k)}
        expected = {k: v for k, v in expected.items() if selected.search(k)}
        if not actual and not expected:
            print(f"no tensor name matches --only '{args.only}'", file=sys.stderr)
            return 1
    if set(actual) != set(expected):
        only = sorted(set(actual) ^ set(expected))
        print(f"tensors in one file only: {', '.join(only)}", file=sys.stderr)
        return 1
    if args.start:
        start, _ = safetensors.load(args.start)
        for name in sorted(actual):
            if exact and exact.search(name):
                continue
            if name not in start or start[name].shape != actual[name].shape or \
                    start[name].shape != expected[name].shape:
                print(f"{args.start} has no tensor '{name}' of the compared files' shape",
                      file=sys.stderr)
                return 1
            actual[name] = actual[name].double() - start[name].double()
            expected[name] = expected[name].double() - start[name].double()
    # Bit for bit, before --from turns the tensors into changes.
    identical = sorted(name for name in actual if exact and exact.search(name))
    failed = [f"{name}: not bit-identical ({_difference(actual[name], expected[name])})"
              for name in identical if not _bitwise_equal(actual[name], expected[name])]
    if exact and not identical:
        failed.append(f"no tensor name matches --exact '{args.exact}'")
    worst = (0.0, None)
    for name in sorted(actual):
        if name in identical:
            continue
        a = actual[name].double()
        b = expected[name].double()
        if a.shape != b.shape:
            failed.append(f"{name}: shape {list(a.shape)} vs {list(b.shape)}")
            continue
        if args.norm:
            distance, size = float((a - b).norm()), float(b.norm())
            if distance > args.atol + args.rtol * size:
                failed.append(f"{name}: ||a - b|| = {distance:.3e}, ||b|| = {size:.3e}")
            continue
        excess = (a - b).abs() - (args.atol + args.rtol * b.abs())
        if excess.numel() and float(excess.max()) > 0:
            index = int(excess.argmax())
            failed.append(f"{name}[{index}]: {float(a.reshape(-1)[index]):.9e} vs "
                          f"{float(b.reshape(-1)[index]):.9e}")
        denominator = b.abs().clamp_min(1e-30)
        relative = float(((a - b).abs() / denominator).max()) if a.numel() else 0.0
        if relative > worst[0]:
            worst = (relative, name)
    print(f"compared {len(actual) - len(identical)} tensors"
          f"{' in 2-norm' if args.norm else ''}"
          f"{' (their changes from ' + args.start + ')' if args.start else ''}, "
          f"rtol {args.rtol:g}, atol {args.atol:g}"
          f"{f', and {len(identical)} bit for bit' if exact else ''}")
    for line in failed:
        print(f"mismatch: {line}")
    if failed:
        return 1
    print("all tensors agree")
    return 0


def _regex(text, option):
    """The compiled REGEX of --only or --exact; None without one."""
    if text is None:
        return None
    try:
        return re.compile(text)
    except re.error as error:
        raise ExportError(f"{option} '{text}' is not a regular expression: {error}")


def _bits(t):
    """The elements of `t` as integers of their width: equal bits, equal
    integers (NaN equal to itself, -0 not to 0)."""
    import torch
    width = {1: torch.uint8, 2: torch.int16, 4: torch.int32, 8: torch.int64}
    return t.contiguous().reshape(-1).view(width[t.element_size()])


def _bitwise_equal(a, b):
    """The same dtype, shape and bytes."""
    import torch
    return a.dtype == b.dtype and a.shape == b.shape and torch.equal(_bits(a), _bits(b))


def _difference(a, b):
    """What differs between two tensors that are not bit-identical."""
    if a.dtype != b.dtype or a.shape != b.shape:
        return f"{a.dtype} {list(a.shape)} vs {b.dtype} {list(b.shape)}"
    differ = _bits(a) != _bits(b)
    index = int(differ.int().argmax())
    return (f"{int(differ.sum())} of {a.numel()} elements differ, the first at [{index}]: "
            f"{float(a.reshape(-1)[index]):.9e} vs {float(b.reshape(-1)[index]):.9e}")


def _export(args):
    from . import safetensors

    if args.weights and args.tensors == "fake":
        raise ExportError("--weights needs real tensors (it writes their values): "
                          "--tensors fake cannot write it")
    traced = None
    if not args.weights and args.tensors != "real" and _fake_ready(args):
        # No values are written: build and trace on fake tensors (shapes, no
        # data); the graph is the one real tensors give (exporter.ShadowMode).
        traced, why = exporter.on_fake_tensors(lambda: _traced(args))
        if why and args.tensors == "fake":
            raise ExportError(f"cannot export on fake tensors: {why} (--tensors auto "
                              "exports on real tensors then)")
        if why:
            print(f"memopt_torch: note: exporting on fake tensors failed ({why}); "
                  "exporting on real tensors", file=sys.stderr)
    document, params, example, labels = traced or _traced(args)

    # Each file is written whole or not at all, beside a symbolic link's
    # target (as mem-run writes its files); the weights first, so that a
    # failure there leaves the graph as it was.
    text = (json.dumps(document, indent=1) + "\n").encode()
    if args.weights:
        tensors = dict(params)
        tensors["arg0"] = example
        tensors["arg1"] = labels
        safetensors.save(tensors, args.weights,
                         {"format": "memopt-weights", "model": args.model})
    safetensors.write_atomically(args.output, lambda out: out.write(text))
    count = sum(t.numel() for _, t in params)
    print(f"memopt_torch: {args.model}: {len(document['nodes'])} ops, "
          f"{len(params)} parameters ({count} elements) -> {args.output}", file=sys.stderr)
    for note in document["notes"]:
        print(f"memopt_torch: note: {note}", file=sys.stderr)
    return 0


def _fake_ready(args):
    """Whether the fake path may start: --config is a JSON object and the
    model's module imports. Imports happen here, on real tensors (a module's
    own tensors must not be fake); a mistake is left to the real path,
    which reports it as it always has."""
    try:
        config = json.loads(args.config)
        exporter.resolve_model(args.model)
    except (ExportError, json.JSONDecodeError):
        return False
    return isinstance(config, dict)


def _traced(args):
    """(document, params, example, labels): MODEL built, its batch, and the
    graph of its forward and loss."""
    import torch

    model, config = _build_model(args, args.seed)
    dtype = getattr(torch, args.dtype)

    example = exporter.example_input(args, model, dtype)

    labels = None
    dropped_note = None
    if args.loss == "model":
        labels = exporter.model_loss_labels(args, model, example)
    else:
        # One eager forward tells the output's shape.
        with torch.no_grad():
            rng = torch.get_rng_state()
            try:
                output = model(example)
            except Exception as error:  # the user's forward: report, not crash
                if exporter.reads_value(error):
                    # On fake tensors: the trace on real ones would stop there.
                    raise exporter.data_dependent_error(
                        exporter._user_frame_of_traceback(error.__traceback__)) from None
                raise ExportError(f"the model's forward failed on the example input: "
                                  f"{type(error).__name__}: {error}",
                                  exporter._user_frame_of_traceback(error.__traceback__))
            torch.set_rng_state(rng)
        dropped_note = exporter.dropped_outputs_note(output, args.loss)
        labels = exporter.labels_for_output(args, output, dtype)

    graph, params, buffers = exporter.trace(model, [example], labels, args.loss)
    input_names = ["input_ids" if args.input_ids is not None else "input", "labels"]
    flat = [t for _, t in params + buffers] + [example, labels]
    document = exporter.to_json(graph, params, buffers, input_names, flat,
                                args.model, args.loss)
    document["config"] = config
    if dropped_note:
        document["notes"].insert(0, dropped_note)
    return document, params, example, labels


def main(argv=None):
    args = _parser().parse_args(argv)
    try:
        if args.command == "train":
            return _train(args)
        if args.command == "compare":
            return _compare(args)
        if args.command == "predict":
            from . import predict
            if args.threads is not None and args.threads <= 0:
                raise ExportError("--threads must be positive")
            return predict.main(args)
        return _export(args)
    except ExportError as error:
        where = ""
        if error.location:
            where = f"{error.location[0]}:{error.location[1]}: "
        print(f"{where}error: {error}" if where else f"memopt_torch: error: {error}",
              file=sys.stderr)
        if error.location and error.location[2]:
            print(f"    {error.location[2]}", file=sys.stderr)
        return 1


if __name__ == "__main__":
    sys.exit(main())
