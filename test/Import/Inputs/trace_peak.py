"""Reads a `predict --trace` document and prints the largest live bytes at
any point (the buffers covering it plus its op's workspace) next to the
allocated_peak_bytes it records; checks every buffer's range and class."""

import json
import sys

CLASSES = {"parameter", "gradient", "optimizer_state", "activation", "temporary", "input"}

doc = json.load(open(sys.argv[1]))
assert doc["schema"] == "memopt.eager-trace/1", doc["schema"]
points = doc["points"]
live = [p["workspace_bytes"] for p in points]
for b in doc["buffers"]:
    assert 0 <= b["start"] <= b["end"] < len(points), b
    assert b["class"] in CLASSES and b["bytes"] > 0, b
    for i in range(b["start"], b["end"] + 1):
        live[i] += b["bytes"]
peak = max(live)
print("trace_peak_bytes: %d at %s `%s`" % (peak, points[live.index(peak)]["phase"],
                                          points[live.index(peak)]["op"]))
print("recorded_peak_bytes: %d" % doc["allocated_peak_bytes"])
