"""Counts the parameters of a train-dialect module read from stdin, without
mem-gen's code: the sum of the element counts of the tensors read by the
distinct `train.param` names. Prints `param_sum: N (K tensors)`; fails if one
name is read with two types (two buffers under one name)."""

import re
import sys

# An attribute dictionary (`{train.layer = "h.0"}`) may sit between the name
# and the type.
PARAM = re.compile(r'train\.param "([^"]+)"(?: \{[^}]*\})? : tensor<([^>]*)>')


def main():
    types = {}
    for name, ty in PARAM.findall(sys.stdin.read()):
        if types.setdefault(name, ty) != ty:
            sys.exit("parameter %s is read as tensor<%s> and tensor<%s>"
                     % (name, types[name], ty))
    total = 0
    for ty in types.values():
        count = 1
        for dim in ty.split("x")[:-1]:
            count *= int(dim)
        total += count
    print("param_sum: %d (%d tensors)" % (total, len(types)))


if __name__ == "__main__":
    main()
