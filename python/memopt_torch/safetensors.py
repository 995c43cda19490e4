"""Reads and writes the safetensors format (https://huggingface.co/docs/safetensors).

A file is an 8-byte little-endian header length N, N bytes of JSON
(`{name: {"dtype": "F32", "shape": [...], "data_offsets": [begin, end]}}`,
plus an optional `"__metadata__"` map of strings), then the tensors' bytes,
little-endian and row-major, at their offsets from the end of the header.
mem-run reads the same files (`--init-from`) and writes them
(`--save-params`); the `safetensors` package is not needed.
"""

import json
import struct

import torch

_DTYPES = {
    torch.float64: "F64",
    torch.float32: "F32",
    torch.float16: "F16",
    torch.bfloat16: "BF16",
    torch.int64: "I64",
    torch.int32: "I32",
    torch.int8: "I8",
    torch.uint8: "U8",
    torch.bool: "BOOL",
}
_TORCH_DTYPES = {name: dtype for dtype, name in _DTYPES.items()}


def save(tensors, path, metadata=None):
    """Writes the dict `tensors` (name -> tensor) to `path`, in key order."""
    header = {}
    blobs = []
    offset = 0
    for name, tensor in tensors.items():
        tensor = tensor.detach().contiguous().cpu()
        if tensor.dtype not in _DTYPES:
            raise ValueError(f"{name}: dtype {tensor.dtype} has no safetensors name")
        # Bytes through a byte view: numpy has no bfloat16.
        data = tensor.reshape(-1).view(torch.uint8).numpy().tobytes() if tensor.numel() else b""
        header[name] = {
            "dtype": _DTYPES[tensor.dtype],
            "shape": list(tensor.shape),
            "data_offsets": [offset, offset + len(data)],
        }
        blobs.append(data)
        offset += len(data)
    if metadata:
        header["__metadata__"] = {str(k): str(v) for k, v in metadata.items()}
    text = json.dumps(header, separators=(",", ":")).encode("utf-8")
    # The data starts 8-byte aligned.
    text += b" " * (-len(text) % 8)
    with open(path, "wb") as out:
        out.write(struct.pack("<Q", len(text)))
        out.write(text)
        for blob in blobs:
            out.write(blob)


def load(path):
    """Returns (tensors, metadata) of the file at `path`."""
    with open(path, "rb") as handle:
        raw = handle.read()
    (length,) = struct.unpack("<Q", raw[:8])
    header = json.loads(raw[8 : 8 + length].decode("utf-8"))
    metadata = header.pop("__metadata__", {})
    data = raw[8 + length :]
    tensors = {}
    for name, entry in header.items():
        begin, end = entry["data_offsets"]
        dtype = _TORCH_DTYPES[entry["dtype"]]
        flat = torch.frombuffer(bytearray(data[begin:end]), dtype=torch.uint8) if end > begin else torch.empty(0, dtype=torch.uint8)
        tensors[name] = flat.view(dtype).reshape(entry["shape"]).clone()
    return tensors, metadata
