#!/usr/bin/env python3
"""Generates buffer lists for mem-plan in minimalloc's CSV format.

  gen.py train N [SEED]  -- a training step of about N buffers: parameters,
      optimizer state and their gradients; per forward op short-lived
      temporaries and a workspace, and a few activations saved for the
      backward pass (nested lifetimes, forward op i to backward op 2T - i).
  gen.py tiles N [SEED]  -- N tiles cut from a full time x memory rectangle
      by random guillotine cuts: every program point is covered exactly, so
      the optimal arena equals LOAD (minimalloc's instances of known optimum).

Python 3 standard library only; deterministic for a given seed.
"""

import random
import sys


def log_size(rng, lo, hi):
    """A size drawn log-uniformly from [2^lo, 2^hi), a multiple of 4 bytes."""
    return max(4, int(2 ** rng.uniform(lo, hi)) // 4 * 4)


def train(n, rng):
    rows = []
    # About 4 buffers per forward op and 4 per backward op; 2% of the
    # forward ops save an activation, 1% own a parameter.
    ops = max(4, int(n / 7.0) + 10)
    end = 2 * ops + 2
    for i in range(ops):
        t = i + 1
        if rng.random() < 0.01:
            size = log_size(rng, 12, 24)
            rows.append((0, end, size))  # parameter
            rows.append((0, end, size))  # optimizer state
            rows.append((end - 1 - i, end, size))  # its gradient
        for _ in range(2):
            rows.append((t, t + rng.choice((1, 1, 1, 2, 3)), log_size(rng, 10, 22)))
        rows.append((t, t + 1, log_size(rng, 8, 20)))  # workspace
        if rng.random() < 0.02:
            rows.append((t, 2 * ops + 1 - i, log_size(rng, 14, 23)))  # activation
    for j in range(ops):
        t = ops + 1 + j
        for _ in range(3):
            rows.append((t, t + rng.choice((1, 1, 2, 4)), log_size(rng, 10, 22)))
        rows.append((t, t + 1, log_size(rng, 8, 20)))
    return rows[:n] if len(rows) > n else rows


def tiles(n, rng):
    width, height = 4 * n, 1 << 20
    pending = [(0, width, 0, height)]
    done = []
    while pending and len(pending) + len(done) < n:
        # Split the largest pending tile (by a random measure) so the tiles
        # stay varied; cut along time or memory at random.
        index = rng.randrange(len(pending))
        t0, t1, m0, m1 = pending.pop(index)
        cuts = []
        if t1 - t0 >= 2:
            cuts.append("t")
        if m1 - m0 >= 2:
            cuts.append("m")
        if not cuts:
            done.append((t0, t1, m0, m1))
            continue
        if rng.choice(cuts) == "t":
            c = rng.randrange(t0 + 1, t1)
            pending += [(t0, c, m0, m1), (c, t1, m0, m1)]
        else:
            c = rng.randrange(m0 + 1, m1)
            pending += [(t0, t1, m0, c), (t0, t1, c, m1)]
    rects = pending + done
    rng.shuffle(rects)
    return [(t0, t1, m1 - m0) for t0, t1, m0, m1 in rects]


def main():
    if len(sys.argv) not in (3, 4) or sys.argv[1] not in ("train", "tiles"):
        sys.exit("usage: gen.py train|tiles N [SEED]")
    n = int(sys.argv[2])
    rng = random.Random(int(sys.argv[3]) if len(sys.argv) == 4 else 1)
    rows = train(n, rng) if sys.argv[1] == "train" else tiles(n, rng)
    out = ["id,lower,upper,size"]
    out += [f"{i},{lo},{hi},{size}" for i, (lo, hi, size) in enumerate(rows)]
    sys.stdout.write("\n".join(out) + "\n")


if __name__ == "__main__":
    main()
