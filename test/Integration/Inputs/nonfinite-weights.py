"""Writes the weights of Import/Inputs/mlp.json's MLP as safetensors, with
inf and -inf in net.0.weight and a NaN in net.3.bias (nonfinite.test)."""
import json
import struct
import sys

shapes = {"net.0.weight": [8, 4], "net.0.bias": [8], "net.3.weight": [3, 8],
          "net.3.bias": [3]}
header, blobs, offset = {}, b"", 0
for name, shape in shapes.items():
    values = [0.01 * i for i in range(shape[0] * (shape[1:] or [1])[0])]
    if name == "net.0.weight":
        values[0], values[5] = float("inf"), float("-inf")
    if name == "net.3.bias":
        values[1] = float("nan")
    blob = b"".join(struct.pack("<f", v) for v in values)
    header[name] = {"dtype": "F32", "shape": shape,
                    "data_offsets": [offset, offset + len(blob)]}
    blobs += blob
    offset += len(blob)
text = json.dumps(header).encode()
with open(sys.argv[1], "wb") as f:
    f.write(struct.pack("<Q", len(text)) + text + blobs)
