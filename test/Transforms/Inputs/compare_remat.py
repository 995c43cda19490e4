"""Compares train-remat's answers with and without offload=true at one
budget: compare_remat.py BUDGET RECOMPUTE.mlir OFFLOAD.mlir.

Reads train.remat_flops and train.remat_peak_after of each step; fails unless
both peaks meet the budget and the offloading answer recomputes no more
FLOPs than the recompute-only one. Prints one line.
"""
import re
import sys


def read(path):
    text = open(path).read()
    values = {}
    for key in ("remat_flops", "remat_peak_after"):
        match = re.search(r"train\.%s = (\d+)" % key, text)
        if not match:
            sys.exit(f"error: {path} has no train.{key}")
        values[key] = int(match.group(1))
    values["offloaded"] = len(
        re.findall(r"train\.to_host [^\n]*\{train\.offloaded\}", text))
    return values


def main():
    budget = int(sys.argv[1])
    recompute, offload = read(sys.argv[2]), read(sys.argv[3])
    for name, values in (("recompute", recompute), ("offload", offload)):
        if values["remat_peak_after"] > budget:
            sys.exit(f"error: {name}: peak {values['remat_peak_after']} over the budget {budget}")
    if offload["remat_flops"] > recompute["remat_flops"]:
        sys.exit(f"error: offload recomputes {offload['remat_flops']} FLOPs, "
                 f"more than {recompute['remat_flops']} without it")
    print(f"budget {budget}: recomputed FLOPs {recompute['remat_flops']} -> "
          f"{offload['remat_flops']} with {offload['offloaded']} offloaded")


main()
