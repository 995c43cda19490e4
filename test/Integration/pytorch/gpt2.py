"""A small GPT-2-style model, written twice from one configuration: as a
forward + loss function in the train dialect (--emit-mlir, for mem-run with
train-autodiff) and in PyTorch (the reference), from mem-run's documented
initialization (memrun_init.py).

Each block: pre-LayerNorm, fused QKV projection, causal softmax attention
(unfused: scores, softmax with scale 1/sqrt(head dim), probs . V), output
projection, residual; LayerNorm, MLP with tanh-GeLU, residual. Then the final
LayerNorm, the LM head tied to the token embedding, and cross-entropy.
Weights are input-major ([in, out]) as in HuggingFace's Conv1D. Dropout is
off (the comparison needs identical randomness in both frameworks).

Step arguments: #0 token ids, #1 position ids, #2 labels (already shifted),
#3 the step number added by train-autodiff.
"""

import argparse
import math

CONFIG = dict(layers=2, batch=2, seq=16, hidden=32, heads=4, vocab=64,
              positions=16)


def params(cfg):
    """(name, shape) of every parameter in order of first appearance."""
    c, v, p = cfg["hidden"], cfg["vocab"], cfg["positions"]
    out = [("wte.weight", [v, c]), ("wpe.weight", [p, c])]
    for layer in range(cfg["layers"]):
        h = "h.%d." % layer
        out += [(h + "ln_1.weight", [c]), (h + "ln_1.bias", [c]),
                (h + "attn.c_attn.weight", [c, 3 * c]),
                (h + "attn.c_attn.bias", [3 * c]),
                (h + "attn.c_proj.weight", [c, c]),
                (h + "attn.c_proj.bias", [c]),
                (h + "ln_2.weight", [c]), (h + "ln_2.bias", [c]),
                (h + "mlp.c_fc.weight", [c, 4 * c]),
                (h + "mlp.c_fc.bias", [4 * c]),
                (h + "mlp.c_proj.weight", [4 * c, c]),
                (h + "mlp.c_proj.bias", [c])]
    out += [("ln_f.weight", [c]), ("ln_f.bias", [c])]
    return out


def tag_layer(line, layer):
    """`line` (one op) with {train.layer = "h.<layer>"} among its
    attributes, as mem-gen writes them (train-memory-report groups the saved
    activations by it)."""
    attr = 'train.layer = "h.%d"' % layer
    if "} : tensor" in line:
        return line.replace("} : tensor", ", %s} : tensor" % attr, 1)
    return line.replace(" : tensor", " {%s} : tensor" % attr, 1)


def emit_mlir(cfg, layer_attrs=False):
    b, t, c, nh = cfg["batch"], cfg["seq"], cfg["hidden"], cfg["heads"]
    v, d = cfg["vocab"], cfg["hidden"] // cfg["heads"]
    lines = []
    current = {"layer": None}

    def emit(line):
        if layer_attrs and current["layer"] is not None:
            line = tag_layer(line, current["layer"])
        lines.append(line)

    def ty(*shape, elem="f32"):
        return "tensor<%s%s>" % ("".join("%dx" % s for s in shape), elem)

    btc = ty(b, t, c)
    emit("func.func @gpt2(%%ids: %s, %%pos: %s, %%labels: %s) -> tensor<f32> {"
         % (ty(b, t, elem="i64"), ty(b, t, elem="i64"), ty(b, t, elem="i64")))
    names = {}
    for name, shape in params(cfg):
        ssa = "%" + name.replace(".", "_")
        names[name] = ssa
        if name.startswith("h."):
            current["layer"] = int(name.split(".")[1])
        emit('  %s = train.param "%s" : %s loc("%s")'
             % (ssa, name, ty(*shape), name))
        current["layer"] = None
    emit('  %%tok = train.embedding %s, %%ids : %s, %s -> %s loc("wte")'
         % (names["wte.weight"], ty(v, c), ty(b, t, elem="i64"), btc))
    emit('  %%posemb = train.embedding %s, %%pos : %s, %s -> %s loc("wpe")'
         % (names["wpe.weight"], ty(cfg["positions"], c),
            ty(b, t, elem="i64"), btc))
    emit('  %%x0 = train.add %%tok, %%posemb : %s loc("embed")' % btc)
    x = "%x0"

    def layer_norm(prefix, inp, out):
        stat = ty(b, t)
        emit('  %s, %s_mean, %s_rstd = train.layer_norm %s, %s, %s : %s, %s, %s'
             ' -> %s, %s, %s loc("%s")'
             % (out, out, out, inp, names[prefix + ".weight"],
                names[prefix + ".bias"], btc, ty(c), ty(c), btc, stat, stat,
                prefix))

    def linear(prefix, inp, n_in, n_out, out):
        emit('  %s_mm = train.matmul %s, %s : %s, %s -> %s loc("%s")'
             % (out, inp, names[prefix + ".weight"], ty(b, t, n_in),
                ty(n_in, n_out), ty(b, t, n_out), prefix))
        emit('  %s = train.bias_add %s_mm, %s : %s, %s -> %s loc("%s.bias")'
             % (out, out, names[prefix + ".bias"], ty(b, t, n_out), ty(n_out),
                ty(b, t, n_out), prefix))

    for layer in range(cfg["layers"]):
        current["layer"] = layer
        h = "h.%d." % layer
        s = "%%l%d_" % layer
        layer_norm(h + "ln_1", x, s + "ln1")
        linear(h + "attn.c_attn", s + "ln1", c, 3 * c, s + "qkv")
        heads = []
        for i, part in enumerate("qkv"):
            emit('  %s%s = train.slice %sqkv {offsets = array<i64: 0, 0, %d>} '
                 ': %s -> %s loc("%sattn.split")'
                 % (s, part, s, i * c, ty(b, t, 3 * c), btc, h))
            emit('  %s%s4 = train.reshape %s%s : %s -> %s'
                 % (s, part, s, part, btc, ty(b, t, nh, d)))
            emit('  %s%sh = train.transpose %s%s4 {permutation = '
                 'array<i64: 0, 2, 1, 3>} : %s -> %s'
                 % (s, part, s, part, ty(b, t, nh, d), ty(b, nh, t, d)))
            heads.append(s + part + "h")
        emit('  %sscores = train.matmul %s, %s {transpose_rhs} : %s, %s -> %s'
             ' loc("%sattn.scores")'
             % (s, heads[0], heads[1], ty(b, nh, t, d), ty(b, nh, t, d),
                ty(b, nh, t, t), h))
        emit('  %sprobs = train.softmax %sscores {causal, scale = %s : f64} : %s'
             ' loc("%sattn.softmax")'
             % (s, s, repr(1.0 / math.sqrt(d)), ty(b, nh, t, t), h))
        emit('  %sctx = train.matmul %sprobs, %s : %s, %s -> %s'
             ' loc("%sattn.context")'
             % (s, s, heads[2], ty(b, nh, t, t), ty(b, nh, t, d),
                ty(b, nh, t, d), h))
        emit('  %sctxt = train.transpose %sctx {permutation = '
             'array<i64: 0, 2, 1, 3>} : %s -> %s'
             % (s, s, ty(b, nh, t, d), ty(b, t, nh, d)))
        emit('  %smerged = train.reshape %sctxt : %s -> %s loc("%sattn.merge")'
             % (s, s, ty(b, t, nh, d), btc, h))
        linear(h + "attn.c_proj", s + "merged", c, c, s + "attn")
        emit('  %sx1 = train.add %s, %sattn : %s loc("%sresid1")'
             % (s, x, s, btc, h))
        layer_norm(h + "ln_2", s + "x1", s + "ln2")
        linear(h + "mlp.c_fc", s + "ln2", c, 4 * c, s + "fc")
        emit('  %sact = train.gelu %sfc {approximate} : %s loc("%smlp.act")'
             % (s, s, ty(b, t, 4 * c), h))
        linear(h + "mlp.c_proj", s + "act", 4 * c, c, s + "mlp")
        emit('  %sx2 = train.add %sx1, %smlp : %s loc("%sresid2")'
             % (s, s, s, btc, h))
        x = s + "x2"
    current["layer"] = None
    layer_norm("ln_f", x, "%lnf")
    emit('  %%logits = train.matmul %%lnf, %s {transpose_rhs} : %s, %s -> %s'
         ' loc("lm_head")' % (names["wte.weight"], btc, ty(v, c), ty(b, t, v)))
    emit('  %%loss = train.cross_entropy %%logits, %%labels : %s, %s -> '
         'tensor<f32> loc("loss")' % (ty(b, t, v), ty(b, t, elem="i64")))
    emit("  return %loss : tensor<f32>")
    emit("}")
    return "\n".join(lines)


def lora_sites(cfg, targets):
    """(module, in, out) of each linear layer train-lora adapts for
    `targets` (module-path suffixes), in program order."""
    c = cfg["hidden"]
    shapes = {"attn.c_attn": (c, 3 * c), "attn.c_proj": (c, c),
              "mlp.c_fc": (c, 4 * c), "mlp.c_proj": (4 * c, c)}
    sites = []
    for layer in range(cfg["layers"]):
        for module, (n_in, n_out) in shapes.items():
            path = "h.%d.%s" % (layer, module)
            if any(path == t or path.endswith("." + t) for t in targets):
                sites.append((path, n_in, n_out))
    return sites


LINEAR_MODULES = ("attn.c_attn", "attn.c_proj", "mlp.c_fc", "mlp.c_proj")


def quantized_weights(cfg):
    """(name, shape) of the weights train-quantize-frozen quantizes when
    everything but the adapters is frozen: the linear layers' (wte, read by
    the embedding too, stays)."""
    return [(name, shape) for name, shape in params(cfg)
            if any(name.endswith("." + m + ".weight") for m in LINEAR_MODULES)]


def storage_params(name, shape, fmt):
    """(name, tensor) of the quantized storage of the weight `name`, in the
    order mem-run lists it (codes as the signed bytes mem-run sums)."""
    import numpy
    import torch
    from quant_ref import quantized_weight

    storage, _ = quantized_weight(name, shape, fmt)
    suffixes = {"codes": "codes", "absmax": "absmax",
                "absmax_scale": "absmax.scale", "absmax_offset": "absmax.offset",
                "scale": "scale"}
    out = []
    for key, array in storage.items():
        if array.dtype == numpy.uint8:
            array = array.view(numpy.int8)
        out.append(("%s.%s.%s" % (name, fmt, suffixes[key]),
                    torch.from_numpy(numpy.array(array))))
    return out


def build_torch(cfg, autocast=None, lora=None, quantize=None):
    """The PyTorch model: (parameters by name, forward() returning the loss).

    autocast=None is plain float32. autocast="bf16" runs forward() under
    torch.autocast("cpu", dtype=torch.bfloat16) with float32 parameters (the
    master weights; autocast casts each one to bf16 once per forward, its
    cast cache) and each linear layer written as HuggingFace's GPT-2 Conv1D
    writes it, torch.addmm(bias, x, weight), which autocast runs in bf16 with
    the bias (x @ W + b would add a float32 bias to a bf16 product, in
    float32)."""
    import torch
    from memrun_init import init_int_arg, init_param

    b, t, c, nh = cfg["batch"], cfg["seq"], cfg["hidden"], cfg["heads"]
    v, d = cfg["vocab"], c // nh
    order = params(cfg)
    p = {name: init_param(name, shape).requires_grad_(lora is None)
         for name, shape in order}
    # QLoRA: the frozen linear weights are what their quantized storage
    # dequantizes to (quant_ref.py, from the formats' definitions).
    if quantize is not None:
        from quant_ref import quantized_weight
        for name, shape in quantized_weights(cfg):
            p[name] = quantized_weight(name, shape, quantize)[1]
    # LoRA as PEFT writes it: the base layer frozen, A (rank x in) and B
    # (out x rank, zero at first) trainable, x W + b + (x A^T) B^T alpha/r.
    adapters = {}
    if lora is not None:
        for module, n_in, n_out in lora_sites(cfg, lora["targets"]):
            for name, shape in ((module + ".lora_A.weight", [lora["rank"], n_in]),
                                (module + ".lora_B.weight", [n_out, lora["rank"]])):
                p[name] = init_param(name, shape).requires_grad_()
            adapters[module] = lora["alpha"] / lora["rank"]
    ids = init_int_arg(0, [b, t], v)
    pos = init_int_arg(1, [b, t], cfg["positions"])
    labels = init_int_arg(2, [b, t], v)
    causal = torch.ones(t, t, dtype=torch.bool).triu(1)
    F = torch.nn.functional

    if autocast is None:
        def linear(x, prefix):
            out = x @ p[prefix + ".weight"] + p[prefix + ".bias"]
            if prefix in adapters:
                a = x @ p[prefix + ".lora_A.weight"].t()
                out = out + (a @ p[prefix + ".lora_B.weight"].t()) * adapters[prefix]
            return out
    else:
        def linear(x, prefix):
            w = p[prefix + ".weight"]
            out = torch.addmm(p[prefix + ".bias"], x.reshape(-1, w.shape[0]), w)
            return out.reshape(*x.shape[:-1], w.shape[1])

    def blocks():
        x = p["wte.weight"][ids] + p["wpe.weight"][pos]
        for layer in range(cfg["layers"]):
            h = "h.%d." % layer
            ln1 = F.layer_norm(x, (c,), p[h + "ln_1.weight"],
                               p[h + "ln_1.bias"], 1e-5)
            qkv = linear(ln1, h + "attn.c_attn")
            q, k, vv = [qkv[..., i * c:(i + 1) * c].reshape(b, t, nh, d)
                        .transpose(1, 2) for i in range(3)]
            scores = (q @ k.transpose(-1, -2)) * (1.0 / math.sqrt(d))
            probs = torch.softmax(scores.masked_fill(causal, float("-inf")), -1)
            ctx = (probs @ vv).transpose(1, 2).reshape(b, t, c)
            attn = linear(ctx, h + "attn.c_proj")
            x = x + attn
            ln2 = F.layer_norm(x, (c,), p[h + "ln_2.weight"],
                               p[h + "ln_2.bias"], 1e-5)
            fc = linear(ln2, h + "mlp.c_fc")
            act = F.gelu(fc, approximate="tanh")
            if autocast is None and h + "mlp.c_proj" not in adapters:
                x = x + act @ p[h + "mlp.c_proj.weight"] + p[h + "mlp.c_proj.bias"]
            else:
                x = x + linear(act, h + "mlp.c_proj")
            yield layer, x
        lnf = F.layer_norm(x, (c,), p["ln_f.weight"], p["ln_f.bias"], 1e-5)
        logits = lnf @ p["wte.weight"].t()
        yield None, F.cross_entropy(logits.reshape(-1, v), labels.reshape(-1))

    def forward(on_layer=None):
        """The loss; on_layer(layer) is called before each block runs and
        on_layer(None) before the head."""
        if on_layer:
            on_layer(0)
        for layer, out in blocks():
            if layer is None:
                return out
            if on_layer:
                on_layer(layer + 1 if layer + 1 < cfg["layers"] else None)

    if lora is not None and autocast is not None:
        raise SystemExit("gpt2.py: --lora runs in float32 only")
    if autocast is None:
        return p, forward

    def autocast_forward(on_layer=None):
        with torch.autocast("cpu", dtype=torch.bfloat16):
            return forward(on_layer)

    return p, autocast_forward


def run_torch(cfg, steps, autocast=None, grads=False, lora=None, sgd=None,
              quantize=None):
    import torch
    from memrun_init import print_params, print_step, summarize

    torch.set_num_threads(1)
    p, forward = build_torch(cfg, autocast, lora, quantize)
    if grads:
        # The loss and each parameter's gradient of one step, as mem-run
        # prints a step differentiated with train-autodiff{optimizer=none}
        # (results numbered from 0, the loss).
        loss = forward()
        loss.backward()
        print_step(1, loss)
        for index, (name, _) in enumerate(params(cfg), start=1):
            total, squares = summarize(p[name].grad)
            print("result %d: sum = %.9e sumsq = %.9e"
                  % (index, total, squares))
        print_params([(name, p[name]) for name, _ in params(cfg)])
        return
    trainable = [t for t in p.values() if t.requires_grad]
    if sgd is not None:
        optimizer = torch.optim.SGD(trainable, lr=sgd, foreach=False)
    else:
        optimizer = torch.optim.Adam(trainable, lr=1e-3, foreach=False)
    for step in range(1, steps + 1):
        optimizer.zero_grad()
        loss = forward()
        loss.backward()
        print_step(step, loss)
        optimizer.step()
    # mem-run's order: the model's parameters (a quantized weight's storage
    # in its place), then the adapters train-lora added, in program order.
    shapes = dict(quantized_weights(cfg)) if quantize else {}
    listed = []
    for name in p:
        if name in shapes:
            listed += storage_params(name, shapes[name], quantize)
        else:
            listed.append((name, p[name]))
    print_params(listed)


def main():
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--emit-mlir", action="store_true")
    parser.add_argument("--layer-attrs", action="store_true",
                        help="with --emit-mlir: train.layer on each block's "
                        "ops and parameters")
    parser.add_argument("--steps", type=int, default=3)
    parser.add_argument("--layers", type=int, default=CONFIG["layers"])
    parser.add_argument("--autocast", choices=["bf16"], default=None,
                        help="run the forward pass under CPU autocast")
    parser.add_argument("--grads", action="store_true",
                        help="print the loss and gradients of one step")
    parser.add_argument("--lora", metavar="RANK,ALPHA,TARGET[,TARGET...]",
                        help="LoRA adapters on the target linear layers, "
                        "the rest frozen (train-lora's program)")
    parser.add_argument("--quantize", choices=["nf4", "int8"],
                        help="with --lora: the frozen linear weights as "
                        "train-quantize-frozen stores them (nf4: blocks of "
                        "64, double quantization; int8: one scale per "
                        "output feature)")
    parser.add_argument("--sgd", type=float, metavar="LR",
                        help="train with SGD at this rate instead of Adam")
    args = parser.parse_args()
    cfg = dict(CONFIG, layers=args.layers)
    lora = None
    if args.lora:
        rank, alpha, *targets = args.lora.split(",")
        lora = dict(rank=int(rank), alpha=float(alpha), targets=targets)
    if args.emit_mlir:
        print(emit_mlir(cfg, args.layer_attrs))
    else:
        run_torch(cfg, args.steps, args.autocast, args.grads, lora, args.sgd,
                  args.quantize)


if __name__ == "__main__":
    main()
