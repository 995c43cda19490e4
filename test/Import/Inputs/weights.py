"""Writes safetensors files for invalid.test without torch.

    weights.py OUT NAME:DTYPE:SHAPE [NAME:DTYPE:SHAPE...]

Each tensor (SHAPE like 8x4, or `scalar`) is filled with 0.01 * index.
`weights.py OUT --garbage` writes a file that is not safetensors.
"""
import json
import struct
import sys

FORMATS = {"F32": "<f", "F64": "<d", "I64": "<q"}

out = sys.argv[1]
if sys.argv[2] == "--garbage":
    open(out, "wb").write(struct.pack("<Q", 1 << 40) + b"{}")
    sys.exit(0)
header, blobs, offset = {}, [], 0
for spec in sys.argv[2:]:
    name, dtype, shape = spec.split(":")
    dims = [] if shape == "scalar" else [int(d) for d in shape.split("x")]
    count = 1
    for d in dims:
        count *= d
    values = [0.01 * i if dtype.startswith("F") else i % 3 for i in range(count)]
    blob = b"".join(struct.pack(FORMATS[dtype], v) for v in values)
    header[name] = {"dtype": dtype, "shape": dims, "data_offsets": [offset, offset + len(blob)]}
    blobs.append(blob)
    offset += len(blob)
text = json.dumps(header).encode()
with open(out, "wb") as f:
    f.write(struct.pack("<Q", len(text)) + text + b"".join(blobs))
