"""Drives test/Integration/fp8-conversions.test from fp8-table.txt.

    fp8-conversions.py gen TABLE > step.mlir
    fp8-conversions.py check TABLE RUNNER_OUTPUT

`gen` writes a module whose @main runs, per format, linalg.generic ops that
convert table inputs with arith.truncf / arith.extf (through fp8 tensors, so
fp8 buffers are exercised too) and prints the results' bits with
printMemrefI32 / printMemrefI64:

  * the 256 codes decoded to f32, f64, f16 and bf16;
  * the f32 rounding inputs, the f64 ones, and those of the f32 inputs that
    f16 and bf16 represent exactly (NaNs as those types' quiet NaN of the
    same sign), rounded to the format.

`check` compares every printed value with the table (decoded NaNs: any NaN;
codes: exactly), prints one summary line per format with the counts, lists
mismatches and exits 1 if there are any. Only the standard library is used.
"""

import math
import re
import struct
import sys

TYPES = {"e4m3fn": "f8E4M3FN", "e5m2": "f8E5M2"}


def read_table(path):
    decode = {f: {} for f in TYPES}
    round32 = {f: [] for f in TYPES}
    round64 = {f: [] for f in TYPES}
    with open(path) as f:
        for line in f:
            line = line.split("#", 1)[0].split()
            if not line:
                continue
            kind, fmt = line[0], line[1]
            if kind == "decode":
                decode[fmt][int(line[2], 16)] = (
                    None if line[3] == "nan" else int(line[3], 16))
            elif kind == "round":
                round32[fmt].append((int(line[2], 16), int(line[3], 16)))
            elif kind == "round64":
                round64[fmt].append((int(line[2], 16), int(line[3], 16)))
            else:
                sys.exit(f"{path}: unknown line kind '{kind}'")
    for fmt in TYPES:
        if sorted(decode[fmt]) != list(range(256)):
            sys.exit(f"{path}: {fmt} does not decode all 256 codes")
    return decode, round32, round64


def f32_value(bits):
    return struct.unpack("<f", struct.pack("<I", bits))[0]


def f16_bits_of_f32(bits):
    """The f16 bits of the f32 `bits` if f16 holds it exactly, else None."""
    value = f32_value(bits)
    sign = (bits >> 31) << 15
    if math.isnan(value):
        return 0x7E00 | sign
    try:
        half = struct.unpack("<H", struct.pack("<e", value))[0]
    except OverflowError:
        return None
    back = struct.unpack("<e", struct.pack("<H", half))[0]
    return half if back == value and (half >> 15) << 15 == sign else None


def bf16_bits_of_f32(bits):
    if math.isnan(f32_value(bits)):
        return 0x7FC0 | ((bits >> 31) << 15)
    return bits >> 16 if bits & 0xFFFF == 0 else None


def cases(table):
    """The printed arrays in order: (format, what, expected values, checker)."""
    decode, round32, round64 = table
    result = []
    for fmt in TYPES:
        codes = [decode[fmt][c] for c in range(256)]
        result.append((fmt, "decode f32", codes))
        result.append((fmt, "decode f64", codes))
        result.append((fmt, "decode f16", codes))
        result.append((fmt, "decode bf16", codes))
        result.append((fmt, "round f32", round32[fmt]))
        result.append((fmt, "round f64", round64[fmt]))
        f16 = [(f16_bits_of_f32(b), c) for b, c in round32[fmt]]
        result.append((fmt, "round f16", [(b, c) for b, c in f16 if b is not None]))
        bf16 = [(bf16_bits_of_f32(b), c) for b, c in round32[fmt]]
        result.append(
            (fmt, "round bf16", [(b, c) for b, c in bf16 if b is not None]))
    return result


WIDE = {"f32": (32, "i32"), "f64": (64, "i64"), "f16": (16, "i16"),
        "bf16": (16, "i16")}


def generic(name, inputs, in_type, out_type, body):
    """A func.func @name applying `body` (lines using %a, yielding %r)."""
    n = len(inputs)
    return f"""
func.func @{name}(%x: tensor<{n}x{in_type}>) -> tensor<{n}x{out_type}> {{
  %e = tensor.empty() : tensor<{n}x{out_type}>
  %y = linalg.generic {{indexing_maps = [affine_map<(i) -> (i)>,
                                        affine_map<(i) -> (i)>],
                       iterator_types = ["parallel"]}}
      ins(%x : tensor<{n}x{in_type}>) outs(%e : tensor<{n}x{out_type}>) {{
  ^bb0(%a: {in_type}, %o: {out_type}):
{body}
    linalg.yield %r : {out_type}
  }} -> tensor<{n}x{out_type}>
  return %y : tensor<{n}x{out_type}>
}}"""


def gen(table):
    funcs, main = [], []
    for index, (fmt, what, values) in enumerate(cases(table)):
        t8 = TYPES[fmt]
        kind, wide = what.split()
        width, itype = WIDE[wide]
        printed = "i64" if width == 64 else "i32"
        if width == 16:
            ext = (f"%b = arith.bitcast %w : {wide} to i16\n"
                   f"    %r = arith.extui %b : i16 to i32")
        else:
            ext = f"%r = arith.bitcast %w : {wide} to {printed}"
        if kind == "decode":
            inputs = list(range(256))
            in_type = "i8"
            first = generic(f"to_fp8_{index}", inputs, "i8", t8,
                            f"    %r = arith.bitcast %a : i8 to {t8}")
            second = generic(
                f"convert_{index}", inputs, t8, printed,
                f"    %w = arith.extf %a : {t8} to {wide}\n    {ext}")
        else:
            inputs = [b for b, _ in values]
            in_type = itype
            first = generic(
                f"to_fp8_{index}", inputs, itype, t8,
                f"    %w = arith.bitcast %a : {itype} to {wide}\n"
                f"    %r = arith.truncf %w : {wide} to {t8}")
            second = generic(
                f"convert_{index}", inputs, t8, printed,
                f"    %b = arith.bitcast %a : {t8} to i8\n"
                f"    %r = arith.extui %b : i8 to {printed}")
        funcs += [first, second]
        n = len(inputs)
        # Bits as signed decimals, so that the constants parse in any width.
        bits = int(in_type[1:])
        signed = [b - (1 << bits) if b >> (bits - 1) else b for b in inputs]
        main.append(f"""
  %in{index} = arith.constant dense<[{", ".join(map(str, signed))}]> : tensor<{n}x{in_type}>
  %f{index} = call @to_fp8_{index}(%in{index}) : (tensor<{n}x{in_type}>) -> tensor<{n}x{t8}>
  %out{index} = call @convert_{index}(%f{index}) : (tensor<{n}x{t8}>) -> tensor<{n}x{printed}>
  %u{index} = tensor.cast %out{index} : tensor<{n}x{printed}> to tensor<*x{printed}>
  call @printMemref{printed.upper()}(%u{index}) : (tensor<*x{printed}>) -> ()""")
    print("// Generated by fp8-conversions.py from fp8-table.txt.")
    print("\n".join(funcs))
    print("func.func private @printMemrefI32(tensor<*xi32>)")
    print("func.func private @printMemrefI64(tensor<*xi64>)")
    print("func.func @main() {" + "".join(main) + "\n  return\n}")


def is_nan(bits, wide):
    if wide == "f32":
        return math.isnan(f32_value(bits))
    if wide == "f64":
        return math.isnan(struct.unpack("<d", struct.pack("<Q", bits))[0])
    if wide == "f16":
        return (bits & 0x7C00) == 0x7C00 and bits & 0x3FF != 0
    return math.isnan(f32_value(bits << 16))


def expected_decoded(f32_bits, wide):
    """The bits of the f32 `f32_bits` in `wide` (exact for every fp8 value)."""
    value = f32_value(f32_bits)
    if wide == "f32":
        return f32_bits
    if wide == "f64":
        return struct.unpack("<Q", struct.pack("<d", value))[0]
    if wide == "f16":
        return struct.unpack("<H", struct.pack("<e", value))[0]
    # A value bf16 cannot hold (a wrong table) matches nothing.
    return f32_bits >> 16 if f32_bits & 0xFFFF == 0 else -1


def check(table, output_path):
    with open(output_path) as f:
        text = f.read()
    arrays = [[int(v) for v in m.split(",")]
              for m in re.findall(r"data =\s*\[([^\]]*)\]", text)]
    all_cases = cases(table)
    if len(arrays) != len(all_cases):
        sys.exit(f"expected {len(all_cases)} printed arrays, got {len(arrays)}")
    mismatches = []
    counts = {}
    for (fmt, what, values), got in zip(all_cases, arrays):
        kind, wide = what.split()
        if len(got) != len(values):
            sys.exit(f"{fmt} {what}: expected {len(values)} values, got {len(got)}")
        mask = (1 << WIDE[wide][0]) - 1
        for i, (want, value) in enumerate(zip(values, got)):
            value &= mask
            if kind == "decode":
                ok = (is_nan(value, wide) if want is None
                      else value == expected_decoded(want, wide))
                label = f"code {i:02x}"
            else:
                ok = value == want[1]
                label = f"input {want[0]:x}"
                want = want[1]
            if not ok:
                mismatches.append(
                    f"{fmt} {what}: {label}: got {value:x}, expected "
                    f"{'nan' if want is None else format(want, 'x')}")
        counts[(fmt, what)] = len(values)
    for fmt in TYPES:
        c = lambda what: counts[(fmt, what)]
        print(f"{fmt}: decoded {c('decode f32')} codes to f32, "
              f"{c('decode f64')} to f64, {c('decode f16')} to f16, "
              f"{c('decode bf16')} to bf16; rounded {c('round f32')} f32, "
              f"{c('round f64')} f64, {c('round f16')} f16, "
              f"{c('round bf16')} bf16 inputs")
    for line in mismatches[:50]:
        print("MISMATCH", line)
    print(f"{len(mismatches)} mismatches")
    return 1 if mismatches else 0


def main():
    if len(sys.argv) >= 3 and sys.argv[1] == "gen":
        gen(read_table(sys.argv[2]))
        return 0
    if len(sys.argv) == 4 and sys.argv[1] == "check":
        return check(read_table(sys.argv[2]), sys.argv[3])
    sys.exit(__doc__)


if __name__ == "__main__":
    sys.exit(main())
