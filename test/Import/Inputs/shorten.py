"""Rewrites an exported graph for a checked-in test input: source file
paths relative to test/Import, the producer without a version."""
import json
import os
import sys

document = json.load(open(sys.argv[1]))
for node in document["nodes"]:
    if "loc" in node:
        node["loc"]["file"] = "models/" + os.path.basename(node["loc"]["file"])
document["producer"] = "memopt_torch"
with open(sys.argv[2], "w") as out:
    json.dump(document, out, indent=1)
    out.write("\n")
