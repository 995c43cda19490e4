"""train-quantize-frozen's storage formats, from their definitions
(include/memopt/Dialect/Train/IR/Quantization.h, docs/finetune.md), in NumPy
float32 arithmetic: every operation below is one IEEE float32 operation,
rounded to nearest even, as the C++ quantizer (mem-run's initialization) and
the CPU lowering of the dequantize ops compute them, so the results can be
compared bit for bit.

* NF4 (QLoRA, Dettmers et al. 2023): 16 values, the standard normal's
  quantiles normalized to [-1, 1] with an exact zero; 4-bit codes, two per
  byte (the first element in the high nibble); one absmax per block.
* Double quantization: the block absmaxes less their mean, coded in 8 bits
  into bitsandbytes' signed dynamic map, one scale per 256.
* int8 (LLM.int8's row-wise absmax): one absmax per output feature.

The nearest value of a table: i = the largest index with table[i] <= x (0
when none), j = min(i + 1, last); i when x - table[i] <= table[j] - x (float32
differences), else j. A tie goes to the lower value.
"""

import math

import numpy
import torch

F32 = numpy.float32

# QLoRA's offset: the quantiles run from 1 - delta, delta = (1/30 + 1/32) / 2,
# to 1/2 (bitsandbytes' create_normal_map(offset=0.9677083)).
NF4_OFFSET = 0.9677083

# bitsandbytes' published NF4 table (its dequantization kernel's constants),
# for checking the construction only.
BNB_NF4_TABLE = [
    -1.0, -0.6961928009986877, -0.5250730514526367, -0.39491748809814453,
    -0.28444138169288635, -0.18477343022823334, -0.09105003625154495, 0.0,
    0.07958029955625534, 0.16093020141124725, 0.24611230194568634,
    0.33791524171829224, 0.44070982933044434, 0.5626170039176941,
    0.7229568362236023, 1.0]

DOUBLE_QUANT_BLOCK = 256


def nf4_values():
    """The 16 NF4 values, ascending: the quantile function of N(0, 1) (in
    double) at torch.linspace(offset, 0.5, 9)[:-1] (8 positive values) and
    at torch.linspace(offset, 0.5, 8)[:-1] (7 negative ones, negated), and
    an exact 0; rounded to float32, sorted, divided by the largest in
    float32 (QLoRA's construction as bitsandbytes evaluates it)."""
    positive = torch.linspace(NF4_OFFSET, 0.5, 9)[:-1]
    negative = torch.linspace(NF4_OFFSET, 0.5, 8)[:-1]
    quantile = lambda p: torch.special.ndtri(p.double())
    values = torch.cat([quantile(positive), torch.zeros(1, dtype=torch.float64),
                        -quantile(negative)]).float().sort().values
    return (values / values.max()).numpy()


def nf4_values_exact():
    """The same construction in exact arithmetic (the quantile points in
    double), rounded to float32 once at the end: differs from bitsandbytes'
    table in the last bits."""
    points = lambda k: [NF4_OFFSET + (0.5 - NF4_OFFSET) * i / (k - 1)
                        for i in range(k - 1)]
    quantile = lambda p: torch.special.ndtri(
        torch.tensor(p, dtype=torch.float64))
    values = torch.cat([quantile(points(9)), torch.zeros(1, dtype=torch.float64),
                        -quantile(points(8))]).sort().values
    return (values / values.max()).float().numpy()


def dynamic_map():
    """bitsandbytes' create_dynamic_map(signed=True): for i = 0..6 the
    midpoints of torch.linspace(0.1, 1, 2^i + 1) (float32), times
    10^(i - 6) (a float32 product), and their negatives; then 0 and 1;
    sorted. 256 float32 values in [-1, 1]."""
    data = []
    for i in range(7):
        bounds = torch.linspace(0.1, 1, 2 ** i + 1)
        means = (bounds[:-1] + bounds[1:]) / 2.0
        data += ((10 ** (i - 6)) * means).tolist()
        data += (-(10 ** (i - 6)) * means).tolist()
    data += [0.0, 1.0]
    assert len(data) == 256
    return numpy.sort(numpy.array(data, dtype=F32))


def nearest_code(table, x):
    """The code of each element of x (float32) in the ascending table."""
    i = numpy.clip(numpy.searchsorted(table, x, side="right") - 1, 0,
                   len(table) - 1)
    j = numpy.minimum(i + 1, len(table) - 1)
    below = x - table[i]
    over = table[j] - x
    return numpy.where(below <= over, i, j)


def _normalize(values, scales):
    """values / scales in float32, 0 where the scale is 0."""
    safe = numpy.where(scales == 0, F32(1), scales)
    return numpy.where(scales == 0, F32(0), values / safe).astype(F32)


def _block_absmax(values, block):
    count = len(values)
    blocks = -(-count // block)
    padded = numpy.zeros(blocks * block, dtype=F32)
    padded[:count] = numpy.abs(values)
    return padded.reshape(blocks, block).max(axis=1)


def quantize_nf4(values, block=64, double_quant=True):
    """The storage of a weight (float32 values, row-major) as a dict of
    numpy arrays, in the order of train.dequantize_nf4's operands: codes
    (uint8, packed), absmax (float32, or uint8 codes), and with double
    quantization absmax_scale (float32) and absmax_offset (float32)."""
    values = numpy.asarray(values, dtype=F32).reshape(-1)
    count = len(values)
    absmax = _block_absmax(values, block)
    blocks = numpy.arange(count) // block
    codes = nearest_code(nf4_values(), _normalize(values, absmax[blocks]))
    if count % 2:
        codes = numpy.append(codes, 0)
    packed = ((codes[0::2] << 4) | codes[1::2]).astype(numpy.uint8)
    storage = {"codes": packed}
    if not double_quant:
        storage["absmax"] = absmax
        return storage
    # The mean: a sum in double, element by element, over the count in
    # double, rounded to float32.
    total = 0.0
    for value in absmax.tolist():
        total += value
    offset = F32(total / len(absmax))
    centered = (absmax - offset).astype(F32)
    scales = _block_absmax(centered, DOUBLE_QUANT_BLOCK)
    groups = numpy.arange(len(absmax)) // DOUBLE_QUANT_BLOCK
    storage["absmax"] = nearest_code(
        dynamic_map(), _normalize(centered, scales[groups])).astype(numpy.uint8)
    storage["absmax_scale"] = scales
    storage["absmax_offset"] = numpy.array(offset, dtype=F32)
    return storage


def dequantize_nf4(storage, count, block=64):
    """The float32 weight (flat) `storage` holds: NF4[code] * A[block], A
    the absmax or dynamic[code] * scale + offset."""
    packed = storage["codes"].astype(numpy.int64)
    codes = numpy.stack([packed >> 4, packed & 15], axis=1).reshape(-1)[:count]
    absmax = storage["absmax"]
    if "absmax_scale" in storage:
        groups = numpy.arange(len(absmax)) // DOUBLE_QUANT_BLOCK
        product = (dynamic_map()[absmax.astype(numpy.int64)] *
                   storage["absmax_scale"][groups]).astype(F32)
        absmax = (product + storage["absmax_offset"]).astype(F32)
    blocks = numpy.arange(count) // block
    return (nf4_values()[codes] * absmax[blocks]).astype(F32)


def quantize_int8(values, axis):
    """codes (int8) and scale (float32, one per index of `axis`) of a
    weight (a float32 array of its shape)."""
    values = numpy.asarray(values, dtype=F32)
    scale = numpy.abs(values).max(axis=1 - axis).astype(F32)
    shape = [1, 1]
    shape[axis] = -1
    scaled = (_normalize(values, scale.reshape(shape)) * F32(127)).astype(F32)
    # numpy.rint rounds half to even.
    return {"codes": numpy.rint(scaled).astype(numpy.int8), "scale": scale}


def dequantize_int8(storage, axis):
    """(code * scale) / 127 in float32."""
    shape = [1, 1]
    shape[axis] = -1
    product = (storage["codes"].astype(F32) *
               storage["scale"].reshape(shape)).astype(F32)
    return (product / F32(127)).astype(F32)


def quantized_weight(name, shape, fmt, block=64, double_quant=True,
                     axis=1):
    """(storage, dequantized float32 tensor of `shape`) of the weight
    `name` as mem-run initializes it: the quantization of the float32
    values its formula gives it (memrun_init.init_param)."""
    from memrun_init import init_param

    values = init_param(name, shape).numpy()
    if fmt == "int8":
        storage = quantize_int8(values, axis)
        weight = dequantize_int8(storage, axis)
    else:
        storage = quantize_nf4(values, block, double_quant)
        weight = dequantize_nf4(storage, math.prod(shape), block).reshape(shape)
    return storage, torch.from_numpy(weight)
