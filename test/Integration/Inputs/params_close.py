"""Compares the parameters of two safetensors files that mem-run --save-params
wrote: params_close.py A B RTOL ATOL. Every tensor of A must be in B with the
same dtype and shape, and every element must satisfy
|a - b| <= ATOL + RTOL * |b| (RTOL = ATOL = 0: bit for bit). Prints the
largest errors and 'close', or exits non-zero naming the first element out
of tolerance."""
import json
import struct
import sys

FORMATS = {"F32": "f", "F64": "d"}


def read(path):
    with open(path, "rb") as f:
        raw = f.read()
    (size,) = struct.unpack_from("<Q", raw, 0)
    header = json.loads(raw[8:8 + size])
    header.pop("__metadata__", None)
    tensors = {}
    for name, entry in header.items():
        if entry["dtype"] not in FORMATS:
            sys.exit(f"{path}: {name}: dtype {entry['dtype']} is not F32 or F64")
        begin, end = entry["data_offsets"]
        data = raw[8 + size + begin:8 + size + end]
        code = FORMATS[entry["dtype"]]
        count = len(data) // struct.calcsize(code)
        tensors[name] = (entry["dtype"], entry["shape"],
                         struct.unpack(f"<{count}{code}", data))
    return tensors


a, b = read(sys.argv[1]), read(sys.argv[2])
rtol, atol = float(sys.argv[3]), float(sys.argv[4])
if not a or sorted(a) != sorted(b):
    sys.exit(f"expected the same parameters: {sorted(a)} vs {sorted(b)}")
worst_abs = worst_rel = 0.0
for name in sorted(a):
    dtype, shape, values = a[name]
    if (dtype, shape) != b[name][:2]:
        sys.exit(f"{name}: {dtype} {shape} vs {b[name][0]} {b[name][1]}")
    for i, (x, y) in enumerate(zip(values, b[name][2])):
        error = abs(x - y)
        if not error <= atol + rtol * abs(y):
            sys.exit(f"{name}[{i}]: {x!r} vs {y!r}: error {error:.3e} above "
                     f"{atol} + {rtol} * |{y!r}|")
        worst_abs = max(worst_abs, error)
        if y != 0:
            worst_rel = max(worst_rel, error / abs(y))
print(f"{len(a)} parameters: max abs error {worst_abs:.3e}, "
      f"max rel error {worst_rel:.3e}")
print("close")
