"""Checks what mem-run stores for quantized frozen weights, and what the CPU
lowering of train.dequantize_nf4 / train.dequantize_int8 computes from it,
bit for bit against quant_ref.py (the formats from their definitions).

  qlora_init.py --emit-mlir            a function that reads every weight
                                       of WEIGHTS through its dequantize
                                       op and returns them
  qlora_init.py --check PARAMS RESULTS mem-run's --save-params and
                                       --save-results files of one call
  qlora_init.py --tables               the NF4 construction against
                                       bitsandbytes' published table

Every compared value must be equal in all its bits: the storage bytes (codes
and float32 scales) and the dequantized weights (f32 or bf16).
"""

import argparse
import math
import sys

import numpy
import torch

import quant_ref

# name, shape, format, block, double quantization, int8 axis, result type.
# Held-out shapes: none is a multiple of the block unless said.
WEIGHTS = [
    # 800 elements: 12 full blocks of 64 and a partial one of 32.
    ("a.weight", [8, 100], "nf4", 64, True, 0, "f32"),
    # 21 elements: an odd count (the last byte's low nibble is padding) in
    # blocks of 4, the last of 1; f32 absmaxes; bf16 result.
    ("b.weight", [3, 7], "nf4", 4, False, 0, "bf16"),
    # 16900 elements, 265 absmaxes: two second-level blocks, the second of
    # 9 absmaxes.
    ("e.weight", [130, 130], "nf4", 64, True, 0, "bf16"),
    # Element 2139 normalizes to 0.6427869, exactly halfway (in float32
    # differences) between the NF4 values 13 and 14: it must get code 13.
    ("tie116.weight", [64, 64], "nf4", 64, True, 0, "f32"),
    ("c.weight", [40, 20], "int8", 0, False, 1, "f32"),
    ("d.weight", [20, 40], "int8", 0, False, 0, "bf16"),
    # Element (44, 30) scales to exactly 22.5: code 22 (half to even), not
    # 23.
    ("half96.weight", [64, 64], "int8", 0, False, 1, "f32"),
]

NF4_PARTS = ["codes", "absmax", "absmax.scale", "absmax.offset"]
STORAGE_KEYS = {"codes": "codes", "absmax": "absmax",
                "absmax.scale": "absmax_scale", "absmax.offset": "absmax_offset",
                "scale": "scale"}


def ty(shape, elem):
    return "tensor<%s%s>" % ("".join("%dx" % d for d in shape), elem)


def nf4_storage_types(shape, block, double_quant):
    """(part, type) of a weight's NF4 storage, in operand order."""
    n = math.prod(shape)
    blocks = -(-n // block)
    parts = [("codes", ty([(n + 1) // 2], "i8")),
             ("absmax", ty([blocks], "i8" if double_quant else "f32"))]
    if double_quant:
        parts += [("absmax.scale", ty([-(-blocks // 256)], "f32")),
                  ("absmax.offset", ty([], "f32"))]
    return parts


def emit_mlir():
    lines, results, types = [], [], []
    for index, (name, shape, fmt, block, dq, axis, elem) in enumerate(WEIGHTS):
        if fmt == "int8":
            parts = [("codes", ty(shape, "i8")),
                     ("scale", ty([shape[axis]], "f32"))]
        else:
            parts = nf4_storage_types(shape, block, dq)
        values = []
        for part, part_type in parts:
            ssa = "%%w%d_%s" % (index, part.replace(".", "_"))
            lines.append('  %s = train.param "%s.%s.%s" {trainable = false} : %s'
                         % (ssa, name, fmt, part, part_type))
            values.append((ssa, part_type))
        out = ty(shape, elem)
        if fmt == "int8":
            lines.append('  %%r%d = train.dequantize_int8 %s, %s {axis = %d : i64, '
                         'weight = "%s"} : %s, %s -> %s'
                         % (index, values[0][0], values[1][0], axis, name,
                            values[0][1], values[1][1], out))
        else:
            extra = ""
            if dq:
                extra = " double_quant(%s, %s : %s, %s)" % (
                    values[2][0], values[3][0], values[2][1], values[3][1])
            lines.append('  %%r%d = train.dequantize_nf4 %s, %s%s {block = %d : i64, '
                         'weight = "%s"} : %s, %s -> %s'
                         % (index, values[0][0], values[1][0], extra, block,
                            name, values[0][1], values[1][1], out))
        results.append("%%r%d" % index)
        types.append(out)
    print("func.func @dequantize() -> (%s) {" % ", ".join(types))
    print("\n".join(lines))
    print("  return %s : %s" % (", ".join(results), ", ".join(types)))
    print("}")


def bits(tensor):
    """The raw bits of a tensor, as integers (NaN-safe, -0 != 0)."""
    view = {torch.float32: torch.int32, torch.bfloat16: torch.int16,
            torch.int8: torch.int8, torch.uint8: torch.uint8}
    return tensor.contiguous().view(view[tensor.dtype])


def check(params_path, results_path):
    from memopt_torch import safetensors

    params, _ = safetensors.load(params_path)
    results, _ = safetensors.load(results_path)
    compared = 0
    bad = []
    for index, (name, shape, fmt, block, dq, axis, elem) in enumerate(WEIGHTS):
        storage, weight = quant_ref.quantized_weight(
            name, shape, fmt, block, dq, axis)
        for part in (["codes", "scale"] if fmt == "int8"
                     else NF4_PARTS[:4 if dq else 2]):
            expected = storage[STORAGE_KEYS[part]]
            if expected.dtype == numpy.uint8:
                expected = expected.view(numpy.int8)
            expected = torch.from_numpy(numpy.array(expected))
            actual = params["%s.%s.%s" % (name, fmt, part)]
            compared += expected.numel()
            if actual.shape != expected.shape or not torch.equal(
                    bits(actual), bits(expected.reshape(actual.shape))):
                bad.append("%s.%s.%s" % (name, fmt, part))
        if elem == "bf16":
            weight = weight.to(torch.bfloat16)
        actual = results["result%d" % index]
        compared += weight.numel()
        if not torch.equal(bits(actual), bits(weight)):
            differ = (bits(actual) != bits(weight)).nonzero()
            bad.append("the dequantized %s (%d elements differ, first at %s)"
                       % (name, len(differ), differ[0].tolist()))
    print("compared %d values bit for bit" % compared)
    for what in bad:
        print("differs: %s" % what)
    if bad:
        sys.exit(1)
    print("all bits agree")


def tables():
    values = quant_ref.nf4_values()
    published = numpy.array(quant_ref.BNB_NF4_TABLE, dtype=numpy.float32)
    exact = quant_ref.nf4_values_exact()
    ulps = numpy.abs(values.view(numpy.int32) - exact.view(numpy.int32))
    print("nf4 values equal bitsandbytes' table: %s"
          % bool(numpy.array_equal(values.view(numpy.int32),
                                   published.view(numpy.int32))))
    print("nf4 construction in exact arithmetic differs by at most %d ulp"
          % ulps.max())
    print("nf4 zero is exact: %s, ends are -1 and 1: %s"
          % (values[7] == 0.0, values[0] == -1.0 and values[15] == 1.0))


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--emit-mlir", action="store_true")
    parser.add_argument("--check", nargs=2, metavar=("PARAMS", "RESULTS"))
    parser.add_argument("--tables", action="store_true")
    args = parser.parse_args()
    if args.emit_mlir:
        emit_mlir()
    if args.check:
        check(*args.check)
    if args.tables:
        tables()


if __name__ == "__main__":
    main()
