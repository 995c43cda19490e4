#!/usr/bin/env python3
"""Prints the slowest tests of the last lit run in a build directory.

lit records each test's time (in seconds; negative when the test failed) in
`.lit_test_times.txt` under each suite's execution root. This reads every such
file under BUILD_DIR and prints the N slowest tests, then the total.

  scripts/slowest-tests.py build            # the ten slowest of the last run
  scripts/slowest-tests.py build -n 30
"""

import argparse
import os
import sys


def read_times(root):
    times = []
    for dirpath, _, filenames in os.walk(root):
        if ".lit_test_times.txt" not in filenames:
            continue
        suite = os.path.relpath(dirpath, root)
        with open(os.path.join(dirpath, ".lit_test_times.txt")) as f:
            for line in f:
                parts = line.split(maxsplit=1)
                if len(parts) != 2:
                    continue
                try:
                    seconds = float(parts[0])
                except ValueError:
                    continue
                name = parts[1].strip()
                times.append((abs(seconds), seconds < 0, os.path.join(suite, name)))
    return times


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("build_dir")
    parser.add_argument("-n", type=int, default=10, help="how many tests (default 10)")
    args = parser.parse_args()
    root = os.path.join(args.build_dir, "test")
    if not os.path.isdir(root):
        sys.exit(f"slowest-tests: no test directory in {args.build_dir}")
    times = read_times(root)
    if not times:
        sys.exit(f"slowest-tests: no lit timing records under {root} (run the tests first)")
    times.sort(reverse=True)
    print(f"{'seconds':>8}  test (the {min(args.n, len(times))} slowest of {len(times)})")
    for seconds, failed, name in times[: args.n]:
        print(f"{seconds:8.1f}  {name}{'  (failed)' if failed else ''}")
    print(f"{sum(t for t, _, _ in times):8.1f}  all {len(times)} tests, summed over both workers")


if __name__ == "__main__":
    main()
