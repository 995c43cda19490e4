"""Writes exported graphs whose integers sit at the edges of int64, for
integer-limits.test:

    overflow.py GRAPH.json MUTATION OUT.json

MUTATION is one of the names in MUTATIONS below. Each made mem-import
compute a product or a sum that overflows int64 (undefined behaviour), or
read a JSON number as an integer that does not fit one.
"""
import json
import sys

INT64_MAX = 2**63 - 1


def node(document, name):
    return next(n for n in document["nodes"] if n["name"] == name)


def constant(document, name):
    return next(c for c in document["constants"] if c["name"] == name)


def pool_padding_huge(d):
    # cnn.json: 2 * padding overflowed, and the window passed the check.
    node(d, "max_pool2d_with_indices")["args"][3] = [2**62, 1]


def pool_kernel_huge(d):
    # cnn.json: ceil_mode's partial-window test summed input + 2 * padding
    # (near INT64_MAX) before subtracting the kernel.
    node(d, "avg_pool2d")["args"][1:] = [[INT64_MAX, 2], [1, 2], [INT64_MAX // 2, 0], True]


def mask_shape_huge(d):
    # gpt.json: the causal mask's rows * cols (2^64) wrapped to 0, the size of
    # its data: the check then read 2^64 entries of an empty array.
    mask = constant(d, "const1")
    mask["shape"] = [1, 1, 2**32, 2**32]
    mask["data"] = []


def arange_start_huge(d):
    # gpt.json: the position ids INT64_MAX, INT64_MAX + 1, ...: the sum
    # overflowed.
    constant(d, "const0")["data"] = [INT64_MAX, -(2**63), 0, 1]


def arange_end_huge(d):
    # gpt.json: one position id INT64_MAX: start + count overflowed.
    ids = constant(d, "const0")
    ids["shape"] = [1]
    ids["data"] = [INT64_MAX]


def shape_double_2_63(d):
    # mlp.json: the double 2^63 as a dimension; llvm::json's getAsInteger
    # converts it to int64 (undefined behaviour).
    d["inputs"][0]["shape"][0] = 9223372036854775807.0


MUTATIONS = {f.__name__: f for f in [
    pool_padding_huge, pool_kernel_huge, mask_shape_huge, arange_start_huge,
    arange_end_huge, shape_double_2_63]}

document = json.load(open(sys.argv[1]))
MUTATIONS[sys.argv[2]](document)
with open(sys.argv[3], "w") as out:
    json.dump(document, out, indent=1)
