"""Checks test/Integration/adam8bit-exact.mlir's mem-run output against the
NumPy reference of adam8bit_ref.py, bit for bit:

  adam8bit_check.py RUN PARAMS STEPS

RUN is mem-run's output of STEPS steps with --print-state of every state;
PARAMS.<k>.st the parameters after step k (--save-params), compared where
the file exists. The reference
replays the step (row-major f32 reductions for the loss, the gradients, then
train.adam8bit with L2 weight decay 0.05 on w, train.adamw8bit with decoupled
weight decay 0.1 on u, train.adam on b) from mem-run's
initial values (memrun_init.py). Prints one line per step and parameter;
exits non-zero at the first difference, naming the element.
"""

import os
import re
import sys

import numpy as np

import adam8bit_ref as ref
from memrun_init import init_float_arg, init_param

f32 = np.float32
LR = 1e-2


def read_safetensors(path):
    """The f32 tensors mem-run --save-params wrote, as numpy arrays."""
    from memopt_torch import safetensors

    tensors, _ = safetensors.load(path)
    return {name: tensor.numpy() for name, tensor in tensors.items()}


def parse_run(path, steps):
    """{step: (loss text, {state: list of value texts})}."""
    result = {}
    pattern = re.compile(r"(\S+) = (\[[^\]]*\]|\S+)")
    with open(path) as f:
        for line in f:
            if not line.startswith("step "):
                continue
            head, rest = line.split(":", 1)
            step = int(head.split()[1])
            fields = dict(pattern.findall(rest))
            states = {k: v.strip("[]").split(", ") for k, v in fields.items()
                      if k != "loss"}
            result[step] = (fields["loss"], states)
    if sorted(result) != list(range(1, steps + 1)):
        sys.exit(f"{path}: expected steps 1..{steps}, got {sorted(result)}")
    return result


def fail(message):
    print("MISMATCH " + message)
    sys.exit(1)


def compare(step, what, got, expected):
    """Exact comparison of two arrays of one dtype."""
    got = np.asarray(got).reshape(-1)
    expected = np.asarray(expected).reshape(-1)
    if got.shape != expected.shape:
        fail(f"step {step}: {what}: {got.size} elements, expected "
             f"{expected.size}")
    if got.dtype.kind == "f":
        differ = got.view(np.uint32) != expected.view(np.uint32)
    else:
        differ = got != expected
    if differ.any():
        first = int(np.argmax(differ))
        fail(f"step {step}: {what}: {int(differ.sum())} of {got.size} "
             f"differ, first at {first}: memopt {got[first]!r}, reference "
             f"{expected[first]!r}")


def floats(texts):
    return np.array([float(t) for t in texts], dtype=np.float64).astype(f32)


def codes(texts):
    return (np.array([int(t) for t in texts]) & 0xFF).astype(np.uint8)


def loss_of(w, x, u, y, b):
    """The step's loss, accumulated in f32 in row-major order."""
    acc = f32(0)
    half = f32(0.5)
    for a, c in ((w.reshape(-1), x.reshape(-1)), (u, y)):
        d = a - c
        terms = (d * d) * half
        for term in terms:
            acc = f32(acc + term)
    for term in (b * b) * half:
        acc = f32(acc + term)
    return acc


def main():
    run_path, params_prefix, steps = sys.argv[1], sys.argv[2], int(sys.argv[3])
    run = parse_run(run_path, steps)
    w = init_param("w", [3, 1700]).numpy()
    u = init_param("u", [4096]).numpy()
    b = init_param("b", [64]).numpy()
    x = init_float_arg(0, [3, 1700]).numpy()
    y = init_float_arg(1, [4096]).numpy()
    u0 = u.copy()
    sw, su = ref.State8bit(w.size), ref.State8bit(u.size)
    bm, bv = np.zeros_like(b), np.zeros_like(b)
    for t in range(1, steps + 1):
        loss_text, states = run[t]
        if loss_text != "%.9e" % loss_of(w, x, u, y, b):
            fail(f"step {t}: loss {loss_text}, reference "
                 f"{'%.9e' % loss_of(w, x, u, y, b)}")
        print(f"step {t}: loss identical")
        gw = (w - x).astype(f32)
        gu = np.where(np.arange(u.size) < ref.BLOCK, u - y, f32(0)).astype(f32)
        w = ref.adam8bit_step(w, gw, sw, t, LR, weight_decay=0.05)
        u = ref.adam8bit_step(u, gu, su, t, LR, weight_decay=0.1,
                              decoupled=True)
        p_b, bm, bv = ref.adam_moments(b, b, bm, bv, t, LR, 0.9, 0.999, 1e-8,
                                       0.0, False)
        b = p_b
        path = f"{params_prefix}.{t}.st"
        params = read_safetensors(path) if os.path.exists(path) else None
        for name, state, value in (("w", sw, w), ("u", su, u)):
            compare(t, f"{name}.exp_avg.codes",
                    codes(states[f"{name}.exp_avg.codes"]), state.m_codes)
            compare(t, f"{name}.exp_avg_sq.codes",
                    codes(states[f"{name}.exp_avg_sq.codes"]), state.v_codes)
            compare(t, f"{name}.exp_avg.absmax",
                    floats(states[f"{name}.exp_avg.absmax"]), state.m_absmax)
            compare(t, f"{name}.exp_avg_sq.absmax",
                    floats(states[f"{name}.exp_avg_sq.absmax"]),
                    state.v_absmax)
            if params is not None:
                compare(t, f"param {name}", params[name], value)
            print(f"step {t}: {name}: {ref.blocks_of(value.size)} blocks, "
                  "codes (exp_avg, exp_avg_sq) identical, absmax identical"
                  + (", param identical" if params is not None else ""))
        compare(t, "b.exp_avg", floats(states["b.exp_avg"]), bm)
        compare(t, "b.exp_avg_sq", floats(states["b.exp_avg_sq"]), bv)
        if params is not None:
            compare(t, "param b", params["b"], b)
        print(f"step {t}: b: exp_avg, exp_avg_sq identical"
              + (", param identical" if params is not None else ""))
    print(f"w.exp_avg codes: {len(set(sw.m_codes.tolist()))} distinct values")
    print(f"w.exp_avg_sq codes: {len(set(sw.v_codes.tolist()))} distinct "
          "values")
    tail = slice(ref.BLOCK, None)
    print(f"u block 1: absmax {su.m_absmax[1]:g} {su.v_absmax[1]:g}, codes "
          f"{set(su.m_codes[tail].tolist())} {set(su.v_codes[tail].tolist())}, "
          f"param {'changed' if (u[tail] != u0[tail]).all() else 'unchanged'}")


if __name__ == "__main__":
    main()
