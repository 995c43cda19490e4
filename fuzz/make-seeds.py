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
            small enough for the fuzzer's input bound.
Each seed is named after a hash of its content, so the corpus is the same on
every machine.
"""

import glob
import hashlib
import json
import os
import re
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

    for name in ["ir", "mem-plan-csv", "hf-config", "torch-graph"]:
        directory = os.path.join(out, name)
        print("%s: %d seeds" % (name, len(os.listdir(directory))))


if __name__ == "__main__":
    main()
