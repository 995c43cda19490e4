"""Checks the memory report of offloaded steps against ZeRO-Offload's
formulas: offload-model-states.py PARAMS GRAD_BYTES DP REPORT.json.

With Psi the parameter count, each process of DP holds on the host its part
of: the fp32 master weights (4 Psi / DP), the Adam moments (8 Psi / DP) and
the gradients the update reads (GRAD_BYTES Psi / DP, 4 for fp32 gradients,
2 for bf16 ones); the device keeps the 16-bit weights (2 Psi) and no
persistent bytes. The host's live bytes at its peak are its persistent
bytes plus the gradients copied by then; every byte copied to the host is
a gradient (or the step number and a scale), every byte copied to the
device a weight.
"""
import json
import sys


def main():
    psi, grad_bytes, dp = (int(a) for a in sys.argv[1:4])
    with open(sys.argv[4]) as f:
        report = json.load(f)
    states, host = report["model_states"], report["host"]
    expect = {
        "master_weights": 4 * psi // dp,
        "optimizer_states": 8 * psi // dp,
        "gradients": grad_bytes * psi // dp,
    }
    for kind, value in expect.items():
        got = states["host"][kind]["bytes"]
        if got != value:
            sys.exit(f"error: host {kind}: {got} bytes, the formula says {value}")
    if states["weights"]["bytes"] != 2 * psi:
        sys.exit(f"error: device weights {states['weights']['bytes']}, expected {2 * psi}")
    if report["persistent_bytes"] != 0:
        sys.exit("error: the device keeps persistent bytes")
    if host["persistent_bytes"] != expect["master_weights"] + expect["optimizer_states"]:
        sys.exit(f"error: host persistent {host['persistent_bytes']}")
    total = sum(expect.values())
    print(f"host: {total} B = {total * dp / psi:g} B per parameter over {dp} process(es); "
          f"device weights 2 B per parameter; host peak {host['peak_bytes']} B, "
          f"{host['copied_to_host_bytes']} B to the host and "
          f"{host['copied_to_device_bytes']} B to the device per step")


main()
