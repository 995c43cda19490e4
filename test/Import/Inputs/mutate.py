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


# Document-level refusals (invalid.test): each breaks one field of the
# graph that the exporter always writes well.


def dtype_not_string(d):
    d["inputs"][0]["dtype"] = 32


def type_not_object(d):
    node(d, "relu")["outputs"][0] = 5


def no_shape(d):
    del d["inputs"][0]["shape"]


def empty_tensor(d):
    d["inputs"][0]["shape"][0] = 0


def huge_tensor(d):
    d["inputs"][0]["shape"] = [2**25, 2**24]


def no_params(d):
    del d["params"]


def param_no_name(d):
    del d["params"][0]["name"]


def mixed_dtypes(d):
    d["params"][1]["dtype"] = "float64"


def input_no_name(d):
    del d["inputs"][0]["name"]


def boolean_input(d):
    d["inputs"][0]["dtype"] = "bool"


def constant_no_data(d):
    d["constants"].append({"name": "c", "shape": [1], "dtype": "float32"})


def node_no_target(d):
    del node(d, "relu")["target"]


def node_twice(d):
    d["nodes"].insert(1, dict(d["nodes"][0]))


def version_zero(d):
    d["version"] = 0


def node_not_object(d):
    d["nodes"].insert(0, 5)


def no_output(d):
    del d["output"]


def reference_not_name(d):
    node(d, "relu")["args"][0] = {"node": 5}


def reads_mask(d):
    # Result 1 of native_dropout is its mask: train.dropout has none.
    node(d, "_reshape_alias")["args"][0] = {"node": "native_dropout", "index": 1}


def argument_not_tensor(d):
    node(d, "relu")["args"][0] = 5


def undeclared_param(d):
    node(d, "relu")["args"][0] = {"param": "net.9.weight"}


def undeclared_input(d):
    node(d, "relu")["args"][0] = {"input": "pixels"}


def reads_buffer(d):
    node(d, "relu")["args"][0] = {"buffer": "running_mean"}


def argument_missing(d):
    node(d, "relu")["args"] = []


def argument_not_number(d):
    node(d, "native_dropout")["args"][1] = "half"


def not_a_list(d):
    # cnn.json
    node(d, "avg_pool2d")["args"][1] = "2x2"


def not_int_list(d):
    node(d, "avg_pool2d")["args"][1] = [2, 2.5]


def list_length(d):
    node(d, "convolution")["args"][3] = [1, 1, 1]


def adaptive_empty(d):
    # cnn.json: the last average pooling as an adaptive one to 0x0.
    pool = node(d, "avg_pool2d")
    pool["target"] = "aten._adaptive_avg_pool2d.default"
    pool["args"] = [pool["args"][0], [0, 0]]


def mean_dim_range(d):
    pool = node(d, "avg_pool2d")
    pool["target"] = "aten.mean.dim"
    pool["args"] = [pool["args"][0], [4], True]


def cat_empty(d):
    node(d, "cat")["args"][0] = []


def cat_ranks(d):
    node(d, "cat")["args"][0][1] = {"input": "labels"}


def addmm_vector(d):
    node(d, "addmm")["args"][1] = {"param": "net.0.bias"}


def nll_no_input(d):
    node(d, "nll_loss_forward")["args"] = []


def result_shape_missing(d):
    node(d, "convolution")["outputs"] = []


def mse_shapes(d):
    # An MLP exported with --loss mse: labels of another shape.
    d["inputs"][1]["shape"] = [3]


def gelu_approximation(d):
    # gpt.json
    node(d, "gelu")["args"].append("erf")


def gelu_keyword(d):
    node(d, "gelu")["kwargs"] = {"approximate": 1}


def undeclared_constant(d):
    node(d, "add")["args"][1] = {"constant": "const9"}


def constant_count(d):
    # The add reads the positions (const0) as a tensor: 3 values for 4.
    node(d, "add")["args"][1] = {"constant": "const0"}
    next(c for c in d["constants"] if c["name"] == "const0")["data"].pop()


def constant_not_number(d):
    next(c for c in d["constants"] if c["name"] == "const0")["dtype"] = "float32"
    next(c for c in d["constants"] if c["name"] == "const0")["data"][0] = "zero"


def constant_not_integer(d):
    next(c for c in d["constants"] if c["name"] == "const0")["data"][0] = 0.5


def mask_size(d):
    # A causal mask, 3x3 where the scores are 4x4.
    mask = next(c for c in d["constants"] if c["name"] == "const1")
    mask["shape"] = [1, 1, 3, 3]
    mask["data"] = [0, 1, 1, 0, 0, 1, 0, 0, 0]


def reads_masked(d):
    soft = node(d, "_softmax")
    soft["target"] = "aten.relu.default"
    soft["args"] = soft["args"][:1]


def split_shape_missing(d):
    node(d, "split")["outputs"][1] = None


def embedding_vector(d):
    node(d, "embedding")["args"][0] = {"param": "transformer.ln_f.bias"}


def permute_repeats(d):
    view = node(d, "transpose")
    view["target"] = "aten.permute.default"
    view["args"] = [view["args"][0], [0, 2, 2, 3]]


def mm_vector(d):
    node(d, "mm")["args"][0] = {"param": "transformer.ln_f.bias"}


def int32_index(d):
    # The relu becomes a gather of the first weight's rows by an int32
    # index (PyTorch 1.13 refuses int32 indices itself).
    d["constants"].append({"name": "rows", "shape": [2], "dtype": "int32", "data": [0, 1]})
    relu = node(d, "relu")
    relu["target"] = "aten.index.Tensor"
    relu["args"] = [{"param": "net.0.weight"}, [{"constant": "rows"}]]


def broadcast_rank(d):
    # The position embedding (4x8) added to a 2-D value of rank 2 where
    # the result is 2x4x8: an operand of rank 3 into rank 2.
    add = node(d, "add")
    add["outputs"][0]["shape"] = [4, 8]
    add["args"] = [add["args"][1], add["args"][0]]


def broadcast_shape(d):
    add = node(d, "add")
    add["args"][1] = {"param": "transformer.ln_f.bias"}
    add["outputs"][0]["shape"] = [2, 4, 16]


MUTATIONS = {f.__name__: f for f in [
    format_name, newer_version, dynamic_shape, two_unknown_ops, bad_arguments,
    dangling_reference, vector_output, duplicate_param, integer_param,
    unknown_dtype, wrong_output_shape, no_nodes, pool_padding_not_counted,
    pool_divisor, index_out_of_range, pad_nonzero,
    dtype_not_string, type_not_object, no_shape, empty_tensor, huge_tensor,
    no_params, param_no_name, mixed_dtypes, input_no_name, boolean_input,
    constant_no_data, node_no_target, node_twice, version_zero,
    node_not_object, no_output, reference_not_name, reads_mask,
    argument_not_tensor, undeclared_param, undeclared_input, reads_buffer,
    argument_missing, argument_not_number, not_a_list,
    not_int_list, list_length, adaptive_empty, mean_dim_range, cat_empty,
    cat_ranks, addmm_vector, nll_no_input, result_shape_missing, mse_shapes,
    gelu_approximation, gelu_keyword, undeclared_constant, constant_count,
    constant_not_number, constant_not_integer, mask_size, reads_masked,
    split_shape_missing, embedding_vector, permute_repeats, mm_vector,
    int32_index, broadcast_rank, broadcast_shape]}

document = json.load(open(sys.argv[1]))
MUTATIONS[sys.argv[2]](document)
with open(sys.argv[3], "w") as out:
    json.dump(document, out, indent=1)
