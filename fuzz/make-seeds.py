#!/usr/bin/env python3
"""Writes the seed corpora of memopt's fuzzers from the repository's inputs.

    fuzz/make-seeds.py OUT_DIR

OUT_DIR/ir: examples/*.mlir and every test .mlir, split at `// -----` (as
            mem-opt --split-input-file does) and at split-file's `//--- name`;
OUT_DIR/mem-plan-csv: test/Tools/mem-plan/Inputs/*.csv and the CSVs the
            mem-plan tests pipe in (`printf '...' | mem-plan -`);
OUT_DIR/hf-config: examples/configs/*.json, test/Tools/mem-gen/Inputs/*.json
            and the configs the mem-gen tests write (`echo '{...}' > ...`);
OUT_DIR/torch-graph: the exported graphs of test/Import/Inputs/*.json
            small enough for the fuzzer's input bound;
OUT_DIR/safetensors: the malformed files of test/Import/Inputs/
            bad_safetensors.py and a few well-formed ones;
OUT_DIR/device-profile: data/devices/*.json and the edited profiles of
            the mem-autoplan tests.
Every JSON target also gets documents nested 100,000 levels deep, written
compactly with the run-length escape its harness expands (fuzz/FuzzExpand.h:
0xFF, a 3-byte little-endian count, the byte repeated).
Each seed is named after a hash of its content, so the corpus is the same on
every machine.
"""

import glob
import hashlib
import json
import os
import re
import struct
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def write(directory, data):
    os.makedirs(directory, exist_ok=True)
    name = hashlib.sha1(data).hexdigest()[:16]
    with open(os.path.join(directory, name), "wb") as f:
        f.write(data)


def sources(*patterns):
    for pattern in patterns:
        yield from sorted(glob.glob(os.path.join(ROOT, pattern), recursive=True))


def shell_literals(text, command):
    """The single-quoted argument of each `command '...'` in RUN lines."""
    for match in re.finditer(r"RUN:.*?\b%s '([^']*)'" % command, text):
        yield match.group(1)


def printf_decode(literal):
    """Decodes printf's escapes: newline, tab, return, backslash, octal, %%."""
    escapes = {b"n": b"\n", b"t": b"\t", b"r": b"\r", b"\\": b"\\"}

    def replace(match):
        if match.group(0) == b"%%":
            return b"%"
        escape = match.group(1)
        if escape in escapes:
            return escapes[escape]
        return bytes([int(escape, 8) & 0xFF])

    return re.sub(rb"\\([ntr\\]|[0-7]{1,3})|%%", replace, literal.encode())


def run(count, byte):
    """The run-length escape of FuzzExpand.h: `byte` repeated `count` times."""
    return b"\xff" + count.to_bytes(3, "little") + byte


def deep(depth, opening=b"[", closing=b"]"):
    """`depth` nested arrays (or objects' values), compactly."""
    return run(depth, opening) + run(depth, closing)


def write_deep_json(directory):
    """Documents nested 100,000 levels (memopt::parseJson's bound is 1000),
    and 1000 levels (the deepest accepted)."""
    for depth in (1000, 1001, 100000):
        write(directory, deep(depth))
    write(directory, b'{"a":' + deep(100000) + b"}")


def safetensors_seeds(directory):
    sys.path.insert(0, os.path.join(ROOT, "test", "Import", "Inputs"))
    import bad_safetensors

    for data in bad_safetensors.CASES.values():
        # The deepest files are in compact form below.
        if len(data) <= 16 * 1024:
            write(directory, data)
    good = {"w": {"dtype": "F32", "shape": [2, 2], "data_offsets": [0, 16]},
            "b": {"dtype": "BF16", "shape": [3], "data_offsets": [16, 22]},
            "i": {"dtype": "I64", "shape": [], "data_offsets": [22, 30]},
            "z": {"dtype": "BOOL", "shape": [0, 5], "data_offsets": [30, 30]},
            "__metadata__": {"format": "pt"}}
    for header in (good, {}, {"__metadata__": {}}):
        text = json.dumps(header, separators=(",", ":")).encode()
        write(directory, struct.pack("<Q", len(text)) + text + bytes(range(30)))
    # Headers 100,000 levels deep: the length counts the expanded header.
    write(directory, struct.pack("<Q", 200000) + deep(100000))
    write(directory, struct.pack("<Q", 200006) + b'{"a":' + deep(100000) + b"}")


def main():
    if len(sys.argv) != 2:
        sys.exit(__doc__)
    out = sys.argv[1]
    counts = {}

    ir = os.path.join(out, "ir")
    for path in sources("examples/*.mlir", "test/**/*.mlir"):
        with open(path, "rb") as f:
            # mem-opt --split-input-file's `// -----` and split-file's
            # `//--- name` both separate inputs.
            for piece in re.split(rb"(?m)^(?:// -----|//--- .*)\s*$", f.read()):
                if piece.strip():
                    write(ir, piece)

    csv = os.path.join(out, "mem-plan-csv")
    for path in sources("test/Tools/mem-plan/Inputs/*.csv"):
        with open(path, "rb") as f:
            write(csv, f.read())
    for path in sources("test/Tools/mem-plan/*.test"):
        with open(path) as f:
            for literal in shell_literals(f.read(), "printf"):
                write(csv, printf_decode(literal))

    hf = os.path.join(out, "hf-config")
    for path in sources("examples/configs/*.json", "test/Tools/mem-gen/Inputs/*.json"):
        with open(path, "rb") as f:
            write(hf, f.read())
    for path in sources("test/Tools/mem-gen/*.test"):
        with open(path) as f:
            for literal in shell_literals(f.read(), "echo"):
                write(hf, literal.encode() + b"\n")

    graphs = os.path.join(out, "torch-graph")
    os.makedirs(graphs, exist_ok=True)
    for path in sources("test/Import/Inputs/*.json"):
        with open(path, "rb") as f:
            # Without the indentation, to fit in the 16 KiB bound.
            compact = json.dumps(json.loads(f.read()), separators=(",", ":"))
        if len(compact) <= 16 * 1024:
            write(graphs, compact.encode())

    write_deep_json(hf)
    write_deep_json(graphs)

    safetensors_seeds(os.path.join(out, "safetensors"))

    devices = os.path.join(out, "device-profile")
    for path in sources("data/devices/*.json"):
        with open(path, "rb") as f:
            write(devices, f.read())
    with open(os.path.join(ROOT, "data", "devices", "h100-sxm.json"), "rb") as f:
        profile = f.read()
    # The edits of test/Tools/mem-autoplan/errors.test, and sizes at the
    # edges of int64 (9223372036854775807.0 is the double 2^63).
    for old, new in [(rb'"hbm_bytes_per_second"', rb'"hbm_bandwidth"'),
                     (rb'"devices_per_node": 8', rb'"devices_per_node": 8, "nvlink": 1'),
                     (rb'"bf16": [0-9.e]+', rb'"bf16": -1'),
                     (rb'"devices_per_node": 8', rb'"devices_per_node": 1'),
                     (rb'"memory_bytes": [0-9]+', rb'"memory_bytes": 9223372036854775807'),
                     (rb'"memory_bytes": [0-9]+', rb'"memory_bytes": 9223372036854775807.0'),
                     (rb'"fp32": [0-9.e]+', rb'"fp32": 5e-324')]:
        edited = re.sub(old, new, profile)
        assert edited != profile, old
        write(devices, edited)
    write(devices, b'{"schema": "memopt.device/1",\n')
    write_deep_json(devices)

    for name in ["ir", "mem-plan-csv", "hf-config", "torch-graph", "safetensors",
                 "device-profile"]:
        directory = os.path.join(out, name)
        print("%s: %d seeds" % (name, len(os.listdir(directory))))


if __name__ == "__main__":
    main()
