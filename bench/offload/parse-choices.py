"""Turns train-remat's "choices" remark (offload=true) into one table row:
parse-choices.py BUDGET < mem-opt's stderr, or --header for the header.

Columns: the budget (MiB); recompute only: device peak (MiB, "*" when over
the budget), GFLOPs recomputed, estimated ms; with offload: device peak,
GFLOPs recomputed, MiB copied each way, host peak (MiB), estimated ms.
"""
import re
import sys

MIB = 2**20
ROW = "{:>10} | {:>10} {:>9} {:>8} | {:>10} {:>9} {:>9} {:>9} {:>8}"


def choice(text, kind):
    match = re.search(kind + r" \(\w+\): ([^;\n]*)", text)
    if not match:
        return None
    part = match.group(1)
    number = lambda pattern: int(m.group(1)) if (m := re.search(pattern, part)) else 0
    return {
        "peak": number(r"peak (\d+) bytes"),
        "over": " over)" in part,
        "flops": number(r"(\d+) FLOPs recomputed"),
        "moved": number(r"(\d+) bytes each way"),
        "host": number(r"host peak (\d+) bytes"),
        "seconds": float(re.search(r"([0-9.e+-]+) s$", part.strip()).group(1)),
    }


def main():
    if sys.argv[1] == "--header":
        print(ROW.format("budget MiB", "peak MiB", "GFLOPs", "ms", "peak MiB", "GFLOPs",
                         "moved MiB", "host MiB", "ms"))
        print(ROW.format("", "recompute", "", "", "offload", "", "", "", ""))
        return
    budget = int(sys.argv[1])
    text = sys.stdin.read()
    recompute, offload = choice(text, "recompute"), choice(text, "offload")
    cells = [f"{budget / MIB:.1f}"]
    for c, width in ((recompute, 3), (offload, 5)):
        if c is None:
            cells += ["-"] * width
            continue
        cells += [f"{c['peak'] / MIB:.1f}" + ("*" if c["over"] else ""), f"{c['flops'] / 1e9:.2f}"]
        if c is offload:
            cells += [f"{c['moved'] / MIB:.1f}", f"{c['host'] / MIB:.1f}"]
        cells.append(f"{c['seconds'] * 1e3:.3f}")
    print(ROW.format(*cells))


main()
