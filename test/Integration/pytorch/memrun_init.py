"""mem-run's deterministic initialization and output format, for PyTorch.

The formulas are those of docs/execution.md; everything here reproduces what
mem-run stores bit for bit (element values) and what it prints digit for
digit (sums are accumulated in double, one element at a time, in row-major
order, like mem-run does).
"""

import math
import struct

import torch

TWO_PI = 2.0 * math.pi


def fnv1a32(text):
    """32-bit FNV-1a hash of the UTF-8 bytes of `text`."""
    h = 2166136261
    for byte in text.encode("utf-8"):
        h ^= byte
        h = (h * 16777619) & 0xFFFFFFFF
    return h


def phase(name):
    """(fnv1a32(name) mod 1000) * (2 pi) / 1000, left to right in double."""
    return (fnv1a32(name) % 1000) * TWO_PI / 1000.0


def param_amplitude(shape, name=""):
    """1 / sqrt(fan_in): fan_in is the product of all dimensions but the last
    (rank >= 2), the only dimension (rank 1), or 1 (rank 0). LoRA adapters
    as PEFT starts them: "<module>.lora_B.weight" zero, "<module>.lora_A.weight"
    (rank x in) with fan_in = in."""
    if name.endswith(".lora_B.weight"):
        return 0.0
    if name.endswith(".lora_A.weight") and len(shape) == 2 and shape[1] > 0:
        return 1.0 / math.sqrt(shape[1])
    if len(shape) == 0:
        fan_in = 1
    elif len(shape) == 1:
        fan_in = shape[0]
    else:
        fan_in = math.prod(shape[:-1])
    if fan_in <= 0:
        return 1.0
    return 1.0 / math.sqrt(fan_in)


def formula_values(name, count, amplitude):
    """amplitude * sin(0.37 * i + phase(name)) in double for i < count.
    math.sin is the C library's sin, as in mem-run."""
    p = phase(name)
    return [amplitude * math.sin(0.37 * i + p) for i in range(count)]


def _round_to_bf16(value):
    """Rounds a double to bfloat16 once (to nearest, ties to even); returns
    the result as a double (exactly representable in float32)."""
    bits = struct.unpack("<Q", struct.pack("<d", value))[0]
    exponent = (bits >> 52) & 0x7FF
    if exponent == 0x7FF or value == 0.0:
        return value
    # bfloat16 keeps 8 significant bits (7 stored); double has 53.
    drop = 52 - 7
    lsb = (bits >> drop) & 1
    bits += (1 << (drop - 1)) - 1 + lsb
    bits &= ~((1 << drop) - 1)
    return struct.unpack("<d", struct.pack("<Q", bits))[0]


def to_tensor(values, shape, dtype):
    """A tensor of `dtype` holding `values` (doubles) rounded once."""
    if dtype == torch.bfloat16:
        # float64 -> bfloat16 in PyTorch rounds twice (through float32);
        # round once here, then the float32 -> bfloat16 step is exact.
        rounded = [_round_to_bf16(v) for v in values]
        return torch.tensor(rounded, dtype=torch.float32).to(dtype).reshape(shape)
    if dtype == torch.float16:
        # numpy rounds float64 -> float16 directly (once).
        import numpy

        array = numpy.array(values, dtype=numpy.float64).astype(numpy.float16)
        return torch.from_numpy(array).reshape(shape)
    return torch.tensor(values, dtype=torch.float64).to(dtype).reshape(shape)


def init_param(name, shape, dtype=torch.float32):
    """The value mem-run gives parameter `name`."""
    count = math.prod(shape)
    return to_tensor(formula_values(name, count, param_amplitude(shape, name)),
                     shape, dtype)


def init_float_arg(index, shape, dtype=torch.float32):
    """The value mem-run gives float step argument #index."""
    count = math.prod(shape)
    return to_tensor(formula_values("arg%d" % index, count, 1.0), shape, dtype)


def init_int_arg(index, shape, bound, dtype=torch.int64):
    """The value mem-run gives integer step argument #index whose values lie
    in [0, bound)."""
    h = fnv1a32("arg%d" % index)
    count = math.prod(shape)
    values = [(h + 7 * i) % bound for i in range(count)]
    return torch.tensor(values, dtype=dtype).reshape(shape)


def summarize(tensor):
    """(sum, sum of squares) in double, element by element, row-major."""
    total = 0.0
    squares = 0.0
    for value in tensor.detach().contiguous().reshape(-1).double().tolist():
        total += value
        squares += value * value
    return total, squares


def print_step(step, loss):
    print("step %d: loss = %.9e" % (step, float(loss)))


def print_params(named_params):
    """The closing lines of mem-run for `(name, tensor)` pairs in order of
    first appearance in the step."""
    checksum = 0.0
    for name, tensor in named_params:
        total, squares = summarize(tensor)
        print("param %s: sum = %.9e sumsq = %.9e" % (name, total, squares))
        checksum += total
    print("params_checksum: %.9e" % checksum)
