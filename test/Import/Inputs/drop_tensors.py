"""drop_tensors.py IN OUT NAME...: copies the safetensors file IN to OUT
without the tensors NAME... (export-weights.test)."""
import json
import struct
import sys

source, target, dropped = sys.argv[1], sys.argv[2], set(sys.argv[3:])
data = open(source, "rb").read()
size = struct.unpack("<Q", data[:8])[0]
header = json.loads(data[8:8 + size])
body = data[8 + size:]
kept, blobs, offset = {}, b"", 0
for name, entry in header.items():
    if name in dropped:
        continue
    if name != "__metadata__":
        begin, end = entry["data_offsets"]
        entry = dict(entry, data_offsets=[offset, offset + end - begin])
        blobs += body[begin:end]
        offset += end - begin
    kept[name] = entry
text = json.dumps(kept).encode()
with open(target, "wb") as f:
    f.write(struct.pack("<Q", len(text)) + text + blobs)
