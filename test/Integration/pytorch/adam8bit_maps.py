"""Checks the dynamic maps the 8-bit Adam lowering embeds (read from the
lowered IR on stdin: the two `dense<"0x...">: tensor<256xf32>` constants)
against adam8bit_ref.dynamic_map, bitsandbytes' create_dynamic_map in exact
rational arithmetic, bit for bit; against the real-number values of the
definition (within 2 f32 ulps: the f32 roundings of linspace, the midpoint
and the scaling add up to 1.9 ulps at most); and against the definition
evaluated with PyTorch's own torch.linspace on this machine."""

import re
import sys
from fractions import Fraction

import numpy as np
import torch

import adam8bit_ref as ref

f32 = np.float32


def lowered_maps(text):
    found = []
    for blob in re.findall(r'dense<"0x([0-9A-F]+)">\s*:\s*tensor<256xf32>', text):
        values = np.frombuffer(bytes.fromhex(blob), dtype="<f4")
        if not any((values == f).all() for f in found):
            found.append(values)
    if len(found) != 2:
        sys.exit(f"expected 2 distinct tensor<256xf32> maps, found {len(found)}")
    signed = [m for m in found if (m < 0).any()]
    unsigned = [m for m in found if not (m < 0).any()]
    return signed[0], unsigned[0]


def torch_map(signed):
    """The definition with PyTorch's f32 operations (as bitsandbytes runs)."""
    data = []
    for i in range(7):
        steps = 2 ** i + 1 if signed else 2 ** (i + 1) + 1
        points = torch.linspace(0.1, 1, steps)
        means = (points[:-1] + points[1:]) / 2.0
        data += (10.0 ** (i - 6) * means).tolist()
        if signed:
            data += (-(10.0 ** (i - 6)) * means).tolist()
    data += [0.0, 1.0]
    return torch.tensor(sorted(data), dtype=torch.float32).numpy()


def max_ulps(values, ideal):
    worst = Fraction(0)
    for value, exact in zip(values, ideal):
        if exact == 0:
            assert value == 0
            continue
        ulp = Fraction(float(np.spacing(f32(abs(value)))))
        worst = max(worst, abs(Fraction(float(value)) - exact) / ulp)
    return float(worst)


def bits(a):
    return np.asarray(a, dtype=f32).view(np.uint32)


def main():
    lowered = lowered_maps(sys.stdin.read())
    for name, signed, values in (("signed", True, lowered[0]),
                                 ("unsigned", False, lowered[1])):
        reference = ref.dynamic_map(signed)
        same = int((bits(values) == bits(reference)).sum())
        print(f"{name}: lowered vs reference: {same} of 256 identical")
        ascending = bool((np.diff(values) > 0).all())
        print(f"{name}: ascending and distinct: {ascending}; "
              f"[0] = {values[0]!r}, [127] = {values[127]!r}, "
              f"[128] = {values[128]!r}, [255] = {values[255]!r}")
        worst = max_ulps(values, ref.ideal_map(signed))
        print(f"{name}: within 2 ulps of the exact values: {worst <= 2.0} "
              f"(largest {worst:.2f})")
        same = int((bits(values) == bits(torch_map(signed))).sum())
        print(f"{name}: torch.linspace definition: {same} of 256 identical")


if __name__ == "__main__":
    main()
