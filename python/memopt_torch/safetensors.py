"""Reads and writes the safetensors format (https://huggingface.co/docs/safetensors).

A file is an 8-byte little-endian header length N, N bytes of JSON
(`{name: {"dtype": "F32", "shape": [...], "data_offsets": [begin, end]}}`,
plus an optional `"__metadata__"` map of strings), then the tensors' bytes,
little-endian and row-major, at their offsets from the end of the header.
mem-run reads the same files (`--init-from`) and writes them
(`--save-params`); the `safetensors` package is not needed.

`load` refuses exactly the files mem-run's reader (lib/Execution/Weights.cpp)
refuses, with the same messages: the header is parsed by `_json`, a port of
llvm::json::parse (its grammar, its errors and their positions) after the
nesting bound of memopt::parseJson (lib/Support/Json.cpp). `save` writes a
file whole or not at all, as mem-run does (lib/Support/AtomicFile.cpp).
"""

import errno
import json
import os
import struct
import tempfile

import torch

from . import _json
from .exporter import ExportError

_DTYPES = {
    torch.float64: "F64",
    torch.float32: "F32",
    torch.float16: "F16",
    torch.bfloat16: "BF16",
    torch.int64: "I64",
    torch.int32: "I32",
    torch.int16: "I16",
    torch.int8: "I8",
    torch.bool: "BOOL",
}
_TORCH_DTYPES = {name: dtype for dtype, name in _DTYPES.items()}
# The bytes of an element of each dtype mem-run reads.
_ELEMENT_BYTES = {"F64": 8, "F32": 4, "F16": 2, "BF16": 2, "I64": 8, "I32": 4,
                  "I16": 2, "I8": 1, "BOOL": 1}
_INT64_MAX = 2**63 - 1


class FormatError(ExportError):
    """A file that cannot be read or is not a safetensors file mem-run reads."""


def save(tensors, path, metadata=None):
    """Writes the dict `tensors` (name -> tensor) to `path`, in key order,
    whole or not at all."""
    header = {}
    blobs = []
    offset = 0
    for name, tensor in tensors.items():
        tensor = tensor.detach().contiguous().cpu()
        if tensor.dtype not in _DTYPES:
            raise ExportError(f"{name}: dtype {tensor.dtype} has no safetensors dtype "
                              f"mem-run reads")
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

    def write(out):
        out.write(struct.pack("<Q", len(text)))
        out.write(text)
        for blob in blobs:
            out.write(blob)

    write_atomically(path, write)


def _resolve_symlinks(path):
    """`path` with its symbolic links followed (a dangling link: the file it
    would create), as AtomicOutputFile resolves its destination."""
    current = path
    for _ in range(40):
        if not os.path.islink(current):
            return current
        link = os.readlink(current)
        current = link if os.path.isabs(link) else os.path.join(os.path.dirname(current), link)
    raise OSError(errno.ELOOP, "too many levels of symbolic links")


def write_atomically(path, write):
    """Calls `write(binary file)` and leaves at `path` what it wrote, or, when
    it raises, the file `path` was before: the bytes go to a temporary file
    beside the target (a symbolic link's target, so that the link stays),
    renamed over it at the end. A path that is not a regular file (a device,
    a pipe) is written in place, as mem-run does (lib/Support/AtomicFile.cpp).
    Raises ExportError (`cannot write 'PATH': REASON`) where the file cannot
    be written."""
    try:
        if os.path.exists(path) and not os.path.isfile(path):
            with open(path, "wb") as out:
                write(out)
            return
        target = _resolve_symlinks(path)
        descriptor, temporary = tempfile.mkstemp(
            prefix="." + os.path.basename(target) + ".tmp-",
            dir=os.path.dirname(target) or ".")
    except OSError as error:
        raise ExportError(f"cannot write '{path}': {error.strerror or error}")
    try:
        # mkstemp's 0600 would outlive the rename; mem-run's files are 0666
        # less the umask.
        umask = os.umask(0)
        os.umask(umask)
        os.fchmod(descriptor, 0o666 & ~umask)
        with os.fdopen(descriptor, "wb") as out:
            write(out)
        os.replace(temporary, target)
    except BaseException as error:
        try:
            os.unlink(temporary)
        except OSError:
            pass
        if isinstance(error, OSError):
            raise ExportError(f"cannot write '{path}': {error.strerror or error}")
        raise


def _size(value):
    """A size or an offset: a JSON integer in [0, 2^63), else None."""
    if type(value) is int and 0 <= value <= _INT64_MAX:
        return value
    return None


def _parse_entry(name, entry, data, bad):
    """(dtype, shape, bytes) of the header entry `name`, checked as
    parseEntry in lib/Execution/Weights.cpp checks it."""
    dtype = entry.get("dtype") if isinstance(entry, dict) else None
    shape = entry.get("shape") if isinstance(entry, dict) else None
    offsets = entry.get("data_offsets") if isinstance(entry, dict) else None
    if (not isinstance(dtype, str) or not isinstance(shape, list)
            or not isinstance(offsets, list) or len(offsets) != 2):
        raise bad(f"entry '{name}' lacks a dtype, a shape or two data_offsets")
    if dtype not in _ELEMENT_BYTES:
        raise bad(f"entry '{name}' has unsupported dtype {dtype}")
    if any(_size(dim) is None for dim in shape):
        raise bad(f"entry '{name}' has a malformed shape")
    size = _ELEMENT_BYTES[dtype]
    for dim in shape:
        size *= dim
    if size > _INT64_MAX:
        raise bad(f"entry '{name}' has shape [{', '.join(map(str, shape))}]: more than "
                  f"2^63 - 1 bytes of {dtype}")
    begin, end = _size(offsets[0]), _size(offsets[1])
    if begin is None or end is None or end < begin or end > len(data):
        raise bad(f"entry '{name}' has data offsets outside the file")
    if end - begin != size:
        raise bad(f"entry '{name}' holds {end - begin} bytes where its dtype and shape "
                  f"need {size}")
    return dtype, shape, data[begin:end]


def read_header(raw, path):
    """The entries {name: (dtype, shape, bytes)} of the file contents `raw`,
    named `path` in messages, and its metadata; raises FormatError for a file
    mem-run refuses (WeightsFile::parse), with its message."""
    def bad(why):
        return FormatError(f"'{path}' is not a safetensors file: {why}")

    if len(raw) < 8:
        raise bad("shorter than its 8-byte header length")
    (length,) = struct.unpack("<Q", raw[:8])
    if length > len(raw) - 8:
        raise bad(f"its header length {length} exceeds the file's size")
    try:
        header, duplicate = _json.parse(raw[8 : 8 + length])
    except _json.ParseError as error:
        raise bad(f"its header is not JSON: {error}")
    if duplicate:
        key, line, column = duplicate
        raise bad(f"its header has the key '{key}' twice (line {line}, column {column})")
    if not isinstance(header, dict):
        raise bad("its header is not a JSON object")
    data = raw[8 + length :]
    entries = {}
    # In name order, the order of mem-run's checks (bytes of UTF-8, as
    # llvm::StringRef compares).
    for name in sorted(header, key=lambda key: key.encode("utf-8")):
        if name != "__metadata__":
            entries[name] = _parse_entry(name, header[name], data, bad)
    metadata = header.get("__metadata__")
    return entries, metadata if isinstance(metadata, dict) else {}


def load(path):
    """Returns (tensors, metadata) of the file at `path`; raises FormatError
    where mem-run --init-from refuses the file, with mem-run's message."""
    try:
        with open(path, "rb") as handle:
            raw = handle.read()
    except OSError as error:
        raise FormatError(f"cannot read '{path}': {error.strerror}")
    entries, metadata = read_header(raw, path)
    tensors = {}
    for name, (dtype, shape, data) in entries.items():
        if data:
            flat = torch.frombuffer(bytearray(data), dtype=torch.uint8)
        else:
            flat = torch.empty(0, dtype=torch.uint8)
        tensors[name] = flat.view(_TORCH_DTYPES[dtype]).reshape(shape).clone()
    return tensors, metadata
