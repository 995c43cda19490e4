"""Writes a broken copy of an exported graph for invalid.test.

    mutate.py GRAPH.json MUTATION OUT.json

MUTATION is one of the names in MUTATIONS below.
"""
import json
import sys


def node(document, name):
    return next(n for n in document["nodes"] if n["name"] == name)


def format_name(d):
    d["format"] = "torch-export"


def newer_version(d):
    d["version"] = 2


def dynamic_shape(d):
    d["inputs"][0]["shape"][0] = "s0"


def two_unknown_ops(d):
    node(d, "relu")["target"] = "aten.frobnicate.default"
    node(d, "native_dropout")["target"] = "aten.sparkle.default"


def bad_arguments(d):
    # Two ops whose arguments mem-import rejects, one unknown op: all three
    # are reported.
    node(d, "native_dropout")["args"][1] = 1.5
    node(d, "addmm")["args"].extend([2.0, 1.0])
    node(d, "t_1")["target"] = "aten.sparkle.default"


def dangling_reference(d):
    node(d, "relu")["args"][0] = {"node": "nonexistent"}


def vector_output(d):
    d["output"] = {"node": "relu"}


def duplicate_param(d):
    d["params"].append(dict(d["params"][0]))


def integer_param(d):
    d["params"][0]["dtype"] = "int64"


def unknown_dtype(d):
    d["inputs"][0]["dtype"] = "complex64"


def wrong_output_shape(d):
    node(d, "relu")["outputs"][0]["shape"] = [2, 9]


def no_nodes(d):
    del d["nodes"]


def pool_padding_not_counted(d):
    # cnn.json: padded average pooling that excludes the padding from the
    # count.
    node(d, "avg_pool2d")["args"].extend([[1, 1], False, False])


def index_out_of_range(d):
    # An export of models/mlp.py:TableBias: its gather reads row 5 of 5.
    next(c for c in d["constants"] if c["name"] == "index")["data"][1] = 5


def pad_nonzero(d):
    # An export of models/mlp.py:TableBias: F.pad by one column.
    node(d, "constant_pad_nd")["args"][1] = [0, 1]


def pool_divisor(d):
    node(d, "avg_pool2d")["args"].extend([[0, 0], False, True, 3])


MUTATIONS = {f.__name__: f for f in [
    format_name, newer_version, dynamic_shape, two_unknown_ops, bad_arguments,
    dangling_reference, vector_output, duplicate_param, integer_param,
    unknown_dtype, wrong_output_shape, no_nodes, pool_padding_not_counted,
    pool_divisor, index_out_of_range, pad_nonzero]}

document = json.load(open(sys.argv[1]))
MUTATIONS[sys.argv[2]](document)
with open(sys.argv[3], "w") as out:
    json.dump(document, out, indent=1)
