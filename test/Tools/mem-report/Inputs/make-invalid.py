"""Writes the bad traces of invalid.test into argv[2]: each is
small-step.json (argv[1]) with one change, named after it."""
import json
import os
import sys

base_path, out = sys.argv[1], sys.argv[2]
with open(base_path) as f:
    base = json.load(f)


def write(name, text):
    with open(os.path.join(out, name + ".json"), "w") as f:
        f.write(text)


def variant(name, change):
    doc = json.loads(json.dumps(base))
    change(doc)
    write(name, json.dumps(doc, indent=1))


DELETE = object()


def setter(path, value):
    """Sets doc[path[0]]...[path[-1]] to value (DELETE removes the key)."""
    def change(doc):
        for key in path[:-1]:
            doc = doc[key]
        if value is DELETE:
            del doc[path[-1]]
        else:
            doc[path[-1]] = value
    return change


# Not JSON: a value missing on line 3; not an object.
write("truncated", '{\n  "schema": "memopt.eager-trace/1",\n  "model": \n}\n')
write("array", "[1, 2]\n")
# A key given twice (on line 3, column 3).
write("duplicate", '{\n  "schema": "memopt.eager-trace/1",\n  "schema": "x"\n}\n')
variant("wrong-schema", setter(["schema"], "memopt.memory-report/1"))
variant("schema-number", setter(["schema"], 1))
variant("missing-points", setter(["points"], DELETE))
variant("missing-workspace", setter(["points", 2, "workspace_bytes"], DELETE))
variant("point-string", setter(["points", 1], "aten.relu.default"))
variant("empty-points", setter(["points"], []))
variant("negative-workspace", setter(["points", 5, "workspace_bytes"], -16))
variant("bytes-string", setter(["buffers", 3, "bytes"], "256"))
variant("bytes-fraction", setter(["buffers", 3, "bytes"], 1.5))
variant("bytes-huge", setter(["buffers", 3, "bytes"], 2.0 ** 63))
variant("negative-bytes", setter(["buffers", 2, "bytes"], -512))
variant("persistent-number", setter(["buffers", 0, "persistent"], 1))
variant("layer-null", setter(["buffers", 6, "layer"], None))
variant("start-after-end", setter(["buffers", 13, "start"], 7))
variant("end-beyond", setter(["buffers", 13, "end"], 8))
variant("unknown-class", setter(["buffers", 4, "class"], "state"))
# Two buffers of 2^62 bytes: the live bytes would pass 2^63 - 1.
variant("overflow", lambda doc: (setter(["buffers", 0, "bytes"], 2 ** 62)(doc),
                                 setter(["buffers", 1, "bytes"], 2 ** 62)(doc)))
# 100,000 nested arrays: refused before parsing, not a stack overflow.
write("deep", "[" * 100000 + "]" * 100000)
