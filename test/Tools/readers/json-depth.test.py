"""Writes the deeply nested documents of json-depth.test into argv[1]."""
import json
import os
import struct
import sys

out = sys.argv[1]
depth = 100_000
deep = "[" * depth + "]" * depth


def write(name, text):
    with open(os.path.join(out, name), "w") as f:
        f.write(text)


write("deep.json", deep)
# An object whose third line nests (the error gives line and column).
write("deep-object.json", '{\n  "model_type": "gpt2",\n  "n_layer": ' +
      deep + "\n}\n")
header = ('{"a":' + deep + "}").encode()
with open(os.path.join(out, "deep.safetensors"), "wb") as f:
    f.write(struct.pack("<Q", len(header)) + header)
write("in-strings.json", json.dumps({"format": "[" * depth + "{" * depth}))
write("limit.json", "[" * 1000 + "]" * 1000)
