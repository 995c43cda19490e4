"""Counts, in a lowered step printed after memopt-gpu-map-loops, the GPU
launches and the loops of its host code (the top-level ops between
memopt_memory_space(1) and memopt_memory_space(0)) and of its device code,
and the copies between the memories (memopt_memory_copy calls, and the
marked linalg.copy ops left as loops).

Usage: host_code_launches.py LOWERED.mlir
"""

import re
import sys

SPACE = re.compile(r"call @memopt_memory_space\(%c(\d)_i32")


def main(path):
    counts = {"host": {"gpu.launch": 0, "scf.parallel": 0},
              "device": {"gpu.launch": 0, "scf.parallel": 0}}
    copies = loops = 0
    space = "device"
    with open(path) as f:
        for line in f:
            match = SPACE.search(line)
            if match:
                space = "host" if match.group(1) == "1" else "device"
                continue
            for op in ("gpu.launch", "scf.parallel"):
                if re.match(r"\s*" + re.escape(op) + r"\b", line):
                    counts[space][op] += 1
            copies += "call @memopt_memory_copy(" in line
            loops += "memopt.memory_copy =" in line
    print(f"host code: {counts['host']['gpu.launch']} launches, "
          f"{counts['host']['scf.parallel']} loops; device code: "
          f"{counts['device']['gpu.launch']} launches; copies: {copies} "
          f"calls, {loops} loops")


if __name__ == "__main__":
    if len(sys.argv) != 2:
        sys.exit(__doc__)
    main(sys.argv[1])
