"""Writes DIR/w.st whole, then fails in the middle of writing it again
(safetensors.save through write_atomically, as `export --weights` writes):
the file keeps its first contents and no temporary is left beside it.

    interrupted_save.py DIR
"""
import os
import sys

import torch

from memopt_torch import safetensors

directory = sys.argv[1]
path = os.path.join(directory, "w.st")
safetensors.save({"w": torch.arange(4, dtype=torch.float32)}, path)
before = open(path, "rb").read()


class Interrupted(Exception):
    pass


def write_half(out):
    out.write(before[: len(before) // 2])
    raise Interrupted()


try:
    safetensors.write_atomically(path, write_half)
except Interrupted:
    pass
assert open(path, "rb").read() == before, "the file was changed"
assert os.listdir(directory) == ["w.st"], os.listdir(directory)
tensors, _ = safetensors.load(path)
print("kept:", tensors["w"].tolist())
