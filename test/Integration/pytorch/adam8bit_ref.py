"""Reference of memopt's 8-bit block-wise Adam and AdamW (train.adam8bit,
train.adamw8bit), written from the definitions in the ops' descriptions and
bitsandbytes' (Dettmers et al., "8-bit Optimizers via Block-wise
Quantization"), independently of the C++ (dialects/Train/IR/Blockwise8bit.cpp,
lib/Conversion/TrainToLinalg/Adam8bitLowering.cpp):

* dynamic_map(signed): bitsandbytes' create_dynamic_map(signed), 256 f32
  values, computed with exact rational arithmetic for every f32 operation
  PyTorch performs (linspace as its AVX2 CPU kernel rounds it);
* quantize / dequantize: block-wise, blocks of 2048 flattened elements;
* adam8bit_step: one update in NumPy float32, operation by operation as the
  32-bit train.adam lowering computes it (test/Integration/pytorch/
  toy_step_exact.py), with the moments dequantized before and requantized
  after.
"""

import math
from fractions import Fraction

import numpy as np

f32 = np.float32
BLOCK = 2048
MIN_8BIT_ELEMENTS = 4096


def round_f32(x):
    """The f32 nearest the rational `x`, ties to even."""
    guess = f32(float(x))  # within one f32 step of the answer
    candidates = [np.nextafter(guess, f32(-np.inf)), guess,
                  np.nextafter(guess, f32(np.inf))]

    def key(c):
        bits = int(np.array(c, dtype=f32).view(np.uint32))
        return (abs(Fraction(float(c)) - x), bits & 1)

    return min(candidates, key=key)


def op_f32(a, op, b):
    """One f32 operation of two f32 values, rounded once."""
    x, y = Fraction(float(a)), Fraction(float(b))
    if op == "+":
        return round_f32(x + y)
    if op == "-":
        return round_f32(x - y)
    if op == "*":
        return round_f32(x * y)
    return round_f32(x / y)


def fma_f32(a, b, c):
    """a * b + c rounded once (a fused multiply-add)."""
    return round_f32(Fraction(float(a)) * Fraction(float(b)) +
                     Fraction(float(c)))


def torch_linspace(steps, lanes=8):
    """torch.linspace(0.1, 1, steps) in f32 as PyTorch's CPU kernel computes
    it: step = (1 - 0.1) / (steps - 1); point j is 0.1 + step * j (first
    half) or 1 - step * (steps - 1 - j) (second half), each a fused
    multiply-add; but the vector loop, which runs over pairs of `lanes`-point
    chunks while 2 * lanes points remain, computes a chunk's first point so
    and its others as first + l * step (product and sum rounded apart)."""
    start, end = f32(0.1), f32(1.0)
    step = op_f32(op_f32(end, "-", start), "/", f32(steps - 1))
    half = steps // 2

    def point(j):
        if j < half:
            return fma_f32(step, f32(j), start)
        return fma_f32(-step, f32(steps - 1 - j), end)

    points = [None] * steps
    vector_points = steps // (2 * lanes) * (2 * lanes)
    for chunk in range(0, vector_points, lanes):
        first = point(chunk)
        for lane in range(lanes):
            points[chunk + lane] = op_f32(first, "+",
                                          op_f32(f32(lane), "*", step))
    for j in range(vector_points, steps):
        points[j] = point(j)
    return points


def dynamic_map(signed, linspace=torch_linspace):
    """create_dynamic_map(signed, max_exponent_bits=7, total_bits=8): per
    decade i = 0..6, the midpoints of linspace(0.1, 1, k) (k = 2^i + 1
    signed, 2^(i+1) + 1 unsigned) times f32(10^(i-6)), negated too when
    signed; then 0 and 1; sorted."""
    values = []
    for i in range(7):
        steps = 2 ** i + 1 if signed else 2 ** (i + 1) + 1
        points = linspace(steps)
        scale = f32(10.0 ** (i - 6))
        for a, b in zip(points[:-1], points[1:]):
            mid = op_f32(op_f32(a, "+", b), "/", f32(2))
            values.append(op_f32(scale, "*", mid))
            if signed:
                values.append(-values[-1])
    values += [f32(0.0), f32(1.0)]
    assert len(values) == 256
    return np.array(sorted(values), dtype=f32)


def ideal_map(signed):
    """The same values in exact arithmetic (no rounding), as Fractions."""
    values = []
    for i in range(7):
        steps = 2 ** i + 1 if signed else 2 ** (i + 1) + 1
        scale = Fraction(10) ** (i - 6)
        for j in range(steps - 1):
            mid = Fraction(1, 10) + Fraction(9, 10) * Fraction(2 * j + 1,
                                                               2 * (steps - 1))
            values.append(scale * mid)
            if signed:
                values.append(-scale * mid)
    values += [Fraction(0), Fraction(1)]
    return sorted(values)


SIGNED = None
UNSIGNED = None


def maps():
    """(signed map, unsigned map), computed once."""
    global SIGNED, UNSIGNED
    if SIGNED is None:
        SIGNED, UNSIGNED = dynamic_map(True), dynamic_map(False)
    return SIGNED, UNSIGNED


def blocks_of(n):
    return (n + BLOCK - 1) // BLOCK


def block_index(n):
    return np.arange(n) // BLOCK


def dequantize(codes, absmax, qmap):
    """qmap[code] * absmax of the element's block, f32 (codes: uint8)."""
    return qmap[codes.astype(np.int64)] * absmax[block_index(codes.size)]


def quantize(values, qmap):
    """(codes as uint8, absmax per block): absmax = the largest |value| of
    the block; code = the index of the map value nearest value / absmax
    (0 / 0 taken as 0), with i the largest index whose value is <= x (0 when
    none is) and j = min(i + 1, 255), i when x - map[i] <= map[j] - x."""
    n = values.size
    absmax = np.maximum.reduceat(np.abs(values), np.arange(0, n, BLOCK))
    absmax = absmax.astype(f32)
    per_element = absmax[block_index(n)]
    safe = np.where(per_element == 0, f32(1), per_element)
    x = np.where(per_element == 0, f32(0), values / safe).astype(f32)
    lo = np.maximum(np.searchsorted(qmap, x, side="right") - 1, 0)
    hi = np.minimum(lo + 1, 255)
    codes = np.where((x - qmap[lo]) <= (qmap[hi] - x), lo, hi)
    return codes.astype(np.uint8), absmax


def adam_scalars(t, lr, beta1, beta2):
    """step_size and sqrt(1 - beta2^t): f64 (the C library's pow), then
    f32."""
    bc1 = 1.0 - math.pow(beta1, t)
    bc2 = 1.0 - math.pow(beta2, t)
    return f32(lr / bc1), f32(math.sqrt(bc2))


def adam_moments(p, g, m, v, t, lr, beta1, beta2, eps, weight_decay,
                 decoupled):
    """The 32-bit Adam(W) arithmetic of the lowering: returns the new
    parameter, m and v (f32 arrays)."""
    step_size, bc2_sqrt = adam_scalars(t, lr, beta1, beta2)
    if weight_decay != 0.0:
        if decoupled:
            p = p * f32(1.0 - lr * weight_decay)
        else:
            g = g + p * f32(weight_decay)
    m = m + f32(1.0 - beta1) * (g - m)
    v = v * f32(beta2) + (g * g) * f32(1.0 - beta2)
    denom = np.sqrt(v) / bc2_sqrt + f32(eps)
    p = p - step_size * (m / denom)
    return p.astype(f32), m.astype(f32), v.astype(f32)


class State8bit:
    """The four 8-bit states of one parameter of `n` elements (zeros)."""

    def __init__(self, n):
        self.m_codes = np.zeros(n, dtype=np.uint8)
        self.m_absmax = np.zeros(blocks_of(n), dtype=f32)
        self.v_codes = np.zeros(n, dtype=np.uint8)
        self.v_absmax = np.zeros(blocks_of(n), dtype=f32)

    def nbytes(self):
        return (self.m_codes.nbytes + self.m_absmax.nbytes +
                self.v_codes.nbytes + self.v_absmax.nbytes)


def adam8bit_step(param, grad, state, t, lr, beta1=0.9, beta2=0.999,
                  eps=1e-8, weight_decay=0.0, decoupled=False):
    """One train.adam8bit (decoupled: adamw8bit) update of the f32 array
    `param` (any shape) with `grad`; updates `state` in place and returns the
    new parameter."""
    signed_map, unsigned_map = maps()
    shape = param.shape
    p = param.reshape(-1).astype(f32)
    g = grad.reshape(-1).astype(f32)
    m = dequantize(state.m_codes, state.m_absmax, signed_map)
    v = dequantize(state.v_codes, state.v_absmax, unsigned_map)
    p, m, v = adam_moments(p, g, m, v, t, lr, beta1, beta2, eps, weight_decay,
                           decoupled)
    state.m_codes, state.m_absmax = quantize(m, signed_map)
    state.v_codes, state.v_absmax = quantize(v, unsigned_map)
    return p.reshape(shape)
