"""Runs train-pipeline over a grid of schedules, stages, chunks and
micro-batches on one step, for lit: every module must build (train-pipeline
refuses one whose stages' transfers would wait on each other forever, by
running them under MPI's rules) and verify. Prints one line per schedule.

Usage: pipeline-grid.py MEM-OPT STEP.mlir LAYERS [--quick]
"""

import subprocess
import sys


def configs(layers, quick):
    stages = [2, 3] if quick else [2, 3, 4, 5, 6]
    for schedule in ["1f1b", "gpipe", "zb-h1"]:
        for p in stages:
            for m in ([1, p, p + 1] if quick else range(1, 2 * p + 2)):
                yield schedule, p, m, 1
    for p in ([2, 3] if quick else [2, 3, 4, 5]):
        for v in ([2] if quick else [2, 3]):
            if p * v > layers:
                continue
            for m in ([p, 2 * p] if quick else [p, 2 * p, 3 * p]):
                yield "interleaved", p, m, v


def main():
    mem_opt, step, layers = sys.argv[1], sys.argv[2], int(sys.argv[3])
    quick = "--quick" in sys.argv[4:]
    counts = {}
    for schedule, p, m, v in configs(layers, quick):
        options = f"stages={p} microbatches={m} schedule={schedule}"
        if v > 1:
            options += f" virtual={v}"
        result = subprocess.run(
            [mem_opt, step, "--mlir-print-op-on-diagnostic=false",
             f"--train-pipeline={options}", "-o", "/dev/null"],
            capture_output=True, text=True)
        if result.returncode != 0:
            print(f"error: {options}: {result.stderr.strip()}", file=sys.stderr)
            sys.exit(1)
        counts[schedule] = counts.get(schedule, 0) + 1
    for schedule, count in counts.items():
        print(f"{schedule}: {count} configurations build")


if __name__ == "__main__":
    main()
