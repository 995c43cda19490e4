#!/usr/bin/env python3
"""Emits a synthetic training-step-shaped function of about N train ops for
the liveness benchmark: a residual chain (relu, scale, add with a skip 3
back), a view every 16 ops, a free every 8 ops of a dead value, and a loss.
Usage: gen_chain.py N > step.mlir"""
import sys

n = int(sys.argv[1])
t = "tensor<64x64xf32>"
out = ["func.func @chain(%%x: %s) -> tensor<f32> {" % t,
       '  %w = train.param "w" : ' + t]
vals = ["%x"]
i = 0
ops = 1
while ops < n - 2:
    a = "%%v%d" % i
    prev = vals[-1]
    kind = i % 4
    if kind == 0:
        out.append("  %s = train.relu %s : %s" % (a, prev, t))
    elif kind == 1:
        out.append("  %s = train.mul %s, %%w : %s" % (a, prev, t))
    elif kind == 2:
        skip = vals[-3] if len(vals) >= 3 else prev
        out.append("  %s = train.add %s, %s : %s" % (a, prev, skip, t))
    else:
        out.append("  %s = train.reshape %s : %s -> tensor<4096xf32>" % (a + "f", prev, t))
        out.append("  %s = train.reshape %s : tensor<4096xf32> -> %s" % (a, a + "f", t))
        ops += 1
    vals.append(a)
    ops += 1
    i += 1
out.append("  %%l = train.reduce_sum %s {dims = array<i64: 0, 1>} : %s -> tensor<f32>" % (vals[-1], t))
out.append("  return %l : tensor<f32>")
out.append("}")
print("\n".join(out))
