#!/usr/bin/env python3
"""Writes the corpus of malformed safetensors files that mem-run --init-from
and python/memopt_torch's reader must both refuse, with the same message
(test/Import/safetensors-invalid.test); fuzz/make-seeds.py seeds the
safetensors fuzzer with them.

    bad_safetensors.py OUT_DIR

Each file is OUT_DIR/NAME.safetensors. Without torch.
"""

import os
import struct
import sys


def framed(header, data=b""):
    """An 8-byte little-endian length, `header` (bytes or str), `data`."""
    if isinstance(header, str):
        header = header.encode("utf-8")
    return struct.pack("<Q", len(header)) + header + data


def entry(dtype="F32", shape="[2]", offsets="[0, 8]"):
    return '{"dtype": "%s", "shape": %s, "data_offsets": %s}' % (dtype, shape, offsets)


def one(name="w", **fields):
    return '{"%s": %s}' % (name, entry(**fields))


# name -> bytes of the file. Every one is refused; the comments say why.
CASES = {
    # Shorter than the 8-byte length.
    "empty": b"",
    "truncated": b"\x10\x00\x00",
    # A header length past the end of the file (1 GiB; 2^64 - 1).
    "header-1gib": struct.pack("<Q", 1 << 30) + b"{}",
    "header-max": b"\xff" * 8 + b"{}",
    # Headers that are not JSON.
    "not-json": framed("{not json}"),
    "empty-header": framed(""),
    "nan": framed('{"w": NaN}'),
    "trailing-text": framed("{} {}"),
    "invalid-utf8": framed(b'{"w\xff": 1}'),
    "control-character": framed('{"w\x01": 1}'),
    "unterminated-string": framed('{"w'),
    "bad-escape": framed('{"\\q": 1}'),
    "bad-unicode-escape": framed('{"\\u12G4": 1}'),
    "exponent-without-digits": framed('{"w": 1e}'),
    "deep-1001": framed("[" * 1001 + "]" * 1001),
    "deep-100000": framed("[" * 100000 + "]" * 100000),
    # JSON, but not a safetensors header.
    "array": framed("[]"),
    "string": framed('"w"'),
    "entry-not-object": framed('{"w": 1}'),
    "missing-offsets": framed('{"w": {"dtype": "F32", "shape": [2]}}'),
    "three-offsets": framed(one(offsets="[0, 4, 8]"), b"\0" * 8),
    "dtype-not-string": framed('{"w": {"dtype": 1, "shape": [2], "data_offsets": [0, 8]}}',
                               b"\0" * 8),
    "unknown-dtype": framed(one(dtype="F8_E4M3", offsets="[0, 2]"), b"\0" * 2),
    "unsigned-dtype": framed(one(dtype="U8", offsets="[0, 2]"), b"\0" * 2),
    # Shapes.
    "negative-dim": framed(one(shape="[-1, 8]", offsets="[0, 32]"), b"\0" * 32),
    "float-dim": framed(one(shape="[2.0]"), b"\0" * 8),
    "exponent-dim": framed(one(shape="[2e0]"), b"\0" * 8),
    "bool-dim": framed(one(shape="[true]"), b"\0" * 8),
    "dim-2^63": framed(one(shape="[9223372036854775808]"), b"\0" * 8),
    "shape-2^62x4": framed(one(shape="[4611686018427387904, 4]", offsets="[0, 0]")),
    "shape-2^61-bytes": framed(one(dtype="F64", shape="[1152921504606846976]",
                                   offsets="[0, 0]")),
    "shape-rank-64": framed(one(shape="[" + ", ".join(["2"] * 64) + "]", offsets="[0, 0]")),
    # Offsets.
    "negative-offset": framed(one(offsets="[-4, 4]"), b"\0" * 8),
    "offset-past-end": framed(one(offsets="[0, 1000]"), b"\0" * 8),
    "offsets-reversed": framed(one(offsets="[8, 0]"), b"\0" * 8),
    "offset-2^64": framed(one(offsets="[0, 18446744073709551616]"), b"\0" * 8),
    "offset-float": framed(one(offsets="[0.0, 8]"), b"\0" * 8),
    "size-mismatch": framed(one(offsets="[0, 4]"), b"\0" * 8),
    # Repeated keys: mem-run and Python would keep different values.
    "duplicate-tensor": framed('{"w": %s, "w": %s}' % (entry(), entry(offsets="[8, 16]")),
                               b"\0" * 16),
    "duplicate-field": framed('{"w": {"dtype": "F32", "dtype": "F64", "shape": [2], '
                              '"data_offsets": [0, 8]}}', b"\0" * 8),
    # Unpaired surrogates both read as U+FFFD: the same key.
    "duplicate-surrogates": framed('{"\\ud800": %s, "\\udbff": %s}' % (entry(), entry()),
                                   b"\0" * 8),
    # Several defects: the first in name order is reported ("a" before "b").
    "two-bad-entries": framed('{"b": %s, "a": %s}' % (entry(shape="[-1]"),
                                                      entry(dtype="X"))),
}


def main():
    if len(sys.argv) != 2:
        sys.exit(__doc__)
    os.makedirs(sys.argv[1], exist_ok=True)
    for name, data in CASES.items():
        with open(os.path.join(sys.argv[1], name + ".safetensors"), "wb") as f:
            f.write(data)


if __name__ == "__main__":
    main()
