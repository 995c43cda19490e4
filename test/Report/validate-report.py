"""Checks the structure of train-memory-report outputs for lit.

Usage: validate-report.py json|html|trace FILE
       validate-report.py liveness JSON_FILE LIVENESS_FILE

Each mode parses the file with the standard library (json, html.parser,
xml.etree), asserts the invariants the format promises, exits non-zero with a
message on the first violation, and prints the facts that the lit test then
checks with FileCheck (the numbers derived by hand).
"""

import html.parser
import json
import re
import sys
import xml.etree.ElementTree as ET

CLASSES = [
    "parameter",
    "gradient",
    "optimizer_state",
    "activation",
    "temporary",
    "input",
]
KEYS = [
    "schema",
    "function",
    "num_points",
    "num_buffers",
    "peak_bytes",
    "load_bytes",
    "arena_bytes",
    "fragmentation",
    "arena_source",
    "plan_alignment",
    "peak_point",
    "peak_op",
    "persistent_bytes",
    "parameter_count",
    "parameter_bytes",
    "total_flops",
    "remat",
    "model_states",
    "saved_activations",
    "communication",
    "by_class",
    "num_live_at_peak",
    "top_tensors",
    "timeline",
]
SVG = "{http://www.w3.org/2000/svg}"


def fail(message):
    print("error: " + message, file=sys.stderr)
    sys.exit(1)


def expect(condition, message):
    if not condition:
        fail(message)


def is_int(value):
    return isinstance(value, int) and not isinstance(value, bool)


def check_by_class(by_class, where):
    expect(list(by_class) == CLASSES, f"{where}: classes {list(by_class)}")
    for cls in CLASSES:
        expect(is_int(by_class[cls]) and by_class[cls] >= 0, f"{where}: {cls}")
    return sum(by_class.values())


def check_json(path):
    with open(path) as f:
        report = json.load(f)
    keys = list(KEYS)
    # A report of a PyTorch eager step (mem-report): what the trace holds
    # after "function", no arena and no FLOPs, and each point's phase.
    eager = "eager_trace" in report
    if eager:
        keys.insert(keys.index("function") + 1, "eager_trace")
        check_eager_trace(report)
    if "plan_load_bytes" in report:
        # Only with a plan in the IR (train.load_bytes), after plan_alignment.
        keys.insert(keys.index("plan_alignment") + 1, "plan_load_bytes")
        expect(report["arena_source"] == "ir", "plan_load_bytes without a plan")
    if "pipeline" in report:
        # Only for a stage of a pipelined step, after communication.
        keys.insert(keys.index("communication") + 1, "pipeline")
    if "host" in report:
        # Only for a step with host memory (train-offload), after by_class.
        keys.insert(keys.index("by_class") + 1, "host")
        check_host(report["host"], report)
    expect(list(report) == keys, f"keys {list(report)}, expected {keys}")
    expect(report["schema"] == "memopt.memory-report/1", "schema")
    for key in keys:
        if eager and key in ("arena_bytes", "plan_alignment", "total_flops"):
            expect(report[key] is None, f"{key} is not null")
        elif key.endswith("_bytes") or key.startswith("num_") or key in (
            "plan_alignment",
            "peak_point",
            "parameter_count",
            "total_flops",
        ):
            expect(is_int(report[key]), f"{key} is not an integer")
    phase = ["phase"] if eager else []
    expect(list(report["peak_op"]) in (["name", "location"] + phase,
                                        ["name", "location", "source"] + phase),
           "peak_op keys")
    remat = report["remat"]
    if remat is not None:
        expect(
            list(remat)
            == [
                "recompute_flops",
                "overhead",
                "peak_before",
                "peak_after",
                "recomputed_ops",
                "by_op",
                "algorithm",
                "budget",
                "gap",
                "offloaded",
                "offloaded_bytes",
                "link_bytes_per_second",
                "device",
            ],
            f"remat keys {list(remat)}",
        )
        expect(all(list(o) == ["name", "bytes"] and is_int(o["bytes"]) and o["bytes"] > 0
                   for o in remat["offloaded"]), "remat offloaded entries")
        expect(sum(o["bytes"] for o in remat["offloaded"]) == remat["offloaded_bytes"],
               "remat offloaded_bytes sum")
        expect((remat["link_bytes_per_second"] is None) == (remat["device"] is None),
               "remat link and device recorded together")
        if remat["offloaded"]:
            host = report.get("host")
            expect(host is not None and
                   host["copied_to_host_bytes"] >= remat["offloaded_bytes"],
                   "offloaded bytes counted in the host's copies")
        expect(sum(remat["by_op"].values()) == remat["recomputed_ops"], "by_op sum")
        expect(remat["peak_after"] == report["load_bytes"], "remat peak_after")
        expect(remat["algorithm"] is None or isinstance(remat["algorithm"], str),
               "remat algorithm")
        expect(remat["budget"] is None or is_int(remat["budget"]), "remat budget")
        expect(remat["gap"] is None or
               (isinstance(remat["gap"], (int, float)) and remat["gap"] >= 0),
               "remat gap")
    check_model_states(report)
    check_saved_activations(report)
    timeline = report["timeline"]
    expect(len(timeline) == report["num_points"], "one timeline entry a point")
    for index, entry in enumerate(timeline):
        expect(
            list(entry) == ["point", "op"] + phase + ["live_bytes", "by_class"],
            f"timeline[{index}] keys {list(entry)}",
        )
        expect(entry["point"] == index, f"timeline[{index}] point")
        total = check_by_class(entry["by_class"], f"timeline[{index}]")
        expect(total == entry["live_bytes"], f"timeline[{index}] sum {total}")
    peak = report["peak_point"]
    load = max(entry["live_bytes"] for entry in timeline)
    expect(report["load_bytes"] == load, "load_bytes is not the timeline max")
    if eager:
        expect(report["arena_source"] == "none", "arena_source")
        expect(report["fragmentation"] is None, "fragmentation is not null")
        expect(report["peak_bytes"] == load, "peak is not LOAD")
        arena = alignment = None
    else:
        check_arena(report)
        arena = report["arena_bytes"]
        alignment = report["plan_alignment"]
    first = next(i for i, e in enumerate(timeline) if e["live_bytes"] == load)

    expect(peak == first, f"peak_point {peak}, first maximum at {first}")
    expect(timeline[peak]["op"] == report["peak_op"]["name"], "peak_op name")
    expect(report["by_class"] == timeline[peak]["by_class"], "by_class")
    check_by_class(report["by_class"], "by_class")
    tops = report["top_tensors"]
    expect(len(tops) == min(10, report["num_live_at_peak"]), "top count")
    for index, tensor in enumerate(tops):
        expect(
            list(tensor)
            == ["name", "bytes", "class", "live_range", "persistent", "defining_op"],
            f"top_tensors[{index}] keys {list(tensor)}",
        )
        start, end = tensor["live_range"]
        expect(start <= peak <= end, f"top_tensors[{index}] not live at peak")
        expect(tensor["class"] in CLASSES, f"top_tensors[{index}] class")
        expect(list(tensor["defining_op"]) in (["name", "location"],
                                               ["name", "location", "source"]),
               "defining_op")
        if index:
            expect(tops[index - 1]["bytes"] >= tensor["bytes"], "top order")
    for key in [
        "schema",
        "function",
        "num_points",
        "num_buffers",
        "peak_bytes",
        "load_bytes",
        "peak_point",
        "persistent_bytes",
        "parameter_count",
        "parameter_bytes",
        "total_flops",
    ]:
        print(f"{key}: {report[key]}")
    print(f"peak_op: {report['peak_op']['name']} at {report['peak_op']['location']}")
    print("by_class: " + " ".join(f"{c}={report['by_class'][c]}" for c in CLASSES))
    print(f"num_live_at_peak: {report['num_live_at_peak']}")
    for tensor in tops:
        print(
            "top: {name} {bytes} {class} [{0}, {1}] {2} at {3}".format(
                *tensor["live_range"],
                tensor["defining_op"]["name"],
                tensor["defining_op"]["location"],
                **tensor,
            )
        )
    for entry in timeline:
        print(f"point {entry['point']} {entry['op']}: {entry['live_bytes']}")
    if eager:
        print("arena_bytes: none (an eager step)")
    else:
        print(
            f"arena_bytes: {arena} ({report['arena_source']}, alignment "
            f"{alignment}, fragmentation {report['fragmentation']:.6f})"
        )
    if remat is not None:
        print(f"remat algorithm: {remat['algorithm']} budget: {remat['budget']}")
    states = report["model_states"]
    print(
        f"model_states: {states['precision']} grads {states['gradients_precision']}, "
        f"{states['parameter_count']} parameters"
    )
    if states["trainable_parameter_count"] != states["parameter_count"]:
        print(f"  trainable: {states['trainable_parameter_count']}")
    # In the report's order: the weights of each kind, then the states.
    for kind in STATE_KINDS[:1] + EXTRA_KINDS[:3] + STATE_KINDS[1:4] + EXTRA_KINDS[3:] + STATE_KINDS[4:]:
        entry = states[kind]
        if kind in EXTRA_KINDS and not entry["bytes"]:
            continue
        # repr: an exact figure prints as an integer (16), others in full.
        print(f"  {kind}: {entry['bytes']} B, {entry['per_parameter']!r} B/param")
    fp8 = states["fp8_amax_histories"]
    if fp8["count"]:
        print(f"  fp8_amax_histories: {fp8['count']}, {fp8['bytes']} B")
    for other in states["other_states"]:
        print(f"  other: {other['name']} {other['bytes']} B")
    saved = report["saved_activations"]
    print(
        f"saved_activations: {saved['bytes']} B in {saved['num_buffers']} buffers, "
        f"loss at {saved['loss_point']}, parameter copies "
        f"{saved['parameter_copy_bytes']} B in {saved['num_parameter_copies']}"
    )
    for layer in saved["by_layer"]:
        print(f"  layer {layer['layer']}: {layer['bytes']} B in {layer['num_buffers']}")
    if "pipeline" in report:
        check_pipeline(report)


PIPELINE_KEYS = ["schedule", "num_stages", "microbatches", "virtual_stages",
                 "bubble_fraction",
                 "reported_stage", "p2p_bytes", "stages"]
STAGE_KEYS = ["stage", "function", "layers", "chunks", "microbatches_in_flight",
              "peak_bytes", "by_class", "max_activation_bytes",
              "model_states_bytes", "peak_op",
              "sent_bytes"]


def check_pipeline(report):
    """The pipeline section of a stage's report: keys in order, one entry a
    stage in stage order, the reported stage is this report's, the p2p
    bytes are the stages' sum; prints one line per stage."""
    pipeline = report["pipeline"]
    expect(list(pipeline) == PIPELINE_KEYS, f"pipeline keys {list(pipeline)}")
    stages = pipeline["stages"]
    expect(pipeline["num_stages"] == len(stages), "one entry a stage")
    for index, stage in enumerate(stages):
        expect(list(stage) == STAGE_KEYS, f"stages[{index}] keys {list(stage)}")
        expect(stage["stage"] == index, f"stages[{index}] out of order")
        expect(len(stage["chunks"]) == pipeline["virtual_stages"]
               and sum(stage["chunks"], []) == stage["layers"],
               f"stages[{index}].chunks are not its layers in "
               f"{pipeline['virtual_stages']} chunks")
        expect(list(stage["peak_op"]) == ["name", "location"], "stage peak_op")
        load = check_by_class(stage["by_class"], f"stages[{index}].by_class")
        expect(load <= stage["peak_bytes"], f"stages[{index}] by_class sum")
        expect(stage["max_activation_bytes"] >= stage["by_class"]["activation"],
               f"stages[{index}].max_activation_bytes below the peak's")
        for key in ("microbatches_in_flight", "peak_bytes", "max_activation_bytes",
                    "model_states_bytes", "sent_bytes"):
            expect(is_int(stage[key]) and stage[key] >= 0, f"stages[{index}].{key}")
    expect(pipeline["p2p_bytes"] == sum(s["sent_bytes"] for s in stages),
           "p2p_bytes is not the stages' sum")
    reported = stages[pipeline["reported_stage"]]
    expect(reported["function"] == report["function"], "reported function")
    expect(reported["peak_bytes"] == report["peak_bytes"], "reported peak")
    expect(reported["by_class"] == report["by_class"], "reported by_class")
    expect(reported["model_states_bytes"]
           == report["model_states"]["total"]["bytes"], "reported model states")
    print(f"pipeline: {pipeline['schedule']}, {pipeline['num_stages']} stages, "
          f"{pipeline['microbatches']} micro-batches, bubble "
          f"{pipeline['bubble_fraction']:.6f}, reported stage "
          f"{pipeline['reported_stage']}, p2p {pipeline['p2p_bytes']} B")
    for stage in stages:
        print(f"  stage {stage['stage']} @{stage['function']} "
              f"[{','.join(stage['layers'])}]: in flight "
              f"{stage['microbatches_in_flight']}, peak {stage['peak_bytes']}, "
              f"activation {stage['by_class']['activation']} (at most "
              f"{stage['max_activation_bytes']}), model states "
              f"{stage['model_states_bytes']}, sent {stage['sent_bytes']}")


def check_arena(report):
    """The arena of memopt's steps: planned here or read from the IR, at
    least LOAD, and the peak is the planned arena or else LOAD."""
    expect(report["arena_source"] in ("ir", "report"), "arena_source")
    arena = report["arena_bytes"]
    expect(arena >= report["load_bytes"], "arena below LOAD")
    alignment = report["plan_alignment"]
    expect(alignment > 0 and alignment & (alignment - 1) == 0, "alignment")
    expect(isinstance(report["fragmentation"], (int, float)), "fragmentation")
    expect(
        abs(report["fragmentation"] - (arena / report["load_bytes"] - 1)) < 1e-9,
        "fragmentation is not arena / LOAD - 1",
    )
    planned = report["arena_source"] == "ir"
    if "plan_load_bytes" in report:
        # Aligned sizes are at least the sizes; no arena beats its LOAD.
        plan_load = report["plan_load_bytes"]
        expect(report["load_bytes"] <= plan_load <= arena, "plan_load_bytes")
    expected_peak = arena if planned else report["load_bytes"]
    expect(report["peak_bytes"] == expected_peak, "peak is not arena or LOAD")


def check_eager_trace(report):
    """The trace's own facts: its keys, and phases that tile the points in
    order."""
    trace = report["eager_trace"]
    expect(list(trace) == ["schema", "model", "device", "allocated_peak_bytes", "phases"],
           f"eager_trace keys {list(trace)}")
    expect(trace["schema"] == "memopt.eager-trace/1", "eager_trace schema")
    expect(trace["model"] == report["function"], "eager_trace model")
    expect(is_int(trace["allocated_peak_bytes"]), "allocated_peak_bytes")
    following = 0
    for index, run in enumerate(trace["phases"]):
        expect(list(run) == ["phase", "first_point", "last_point"], "phases keys")
        expect(run["first_point"] == following <= run["last_point"], f"phases[{index}]")
        following = run["last_point"] + 1
    expect(following == report["num_points"], "the phases do not tile the points")
    for entry in report["timeline"]:
        run = next(r for r in trace["phases"]
                   if r["first_point"] <= entry["point"] <= r["last_point"])
        expect(entry["phase"] == run["phase"], f"timeline[{entry['point']}] phase")


STATE_KINDS = ["weights", "master_weights", "gradients", "optimizer_states", "total"]
# Printed only when non-zero (fine-tuning), checked always.
EXTRA_KINDS = ["frozen_weights", "quantized_weights", "adapter_weights",
               "optimizer_states_8bit"]


def check_host(host, report):
    """Host memory: its peak is the largest live total of the host, its
    classes at the peak sum to it, its arena (when planned) holds its peak."""
    expect(list(host) == ["peak_bytes", "peak_point", "peak_op", "persistent_bytes",
                          "arena_bytes", "by_class", "copied_to_host_bytes",
                          "copied_to_device_bytes"],
           f"host keys {list(host)}")
    expect(host["arena_bytes"] is None or
           (is_int(host["arena_bytes"]) and host["arena_bytes"] >= host["peak_bytes"]),
           "host arena_bytes below the host's peak")
    for key in ("peak_bytes", "peak_point", "persistent_bytes", "copied_to_host_bytes",
                "copied_to_device_bytes"):
        expect(is_int(host[key]) and host[key] >= 0, f"host {key}")
    expect(0 <= host["peak_point"] < report["num_points"], "host peak_point")
    expect(check_by_class(host["by_class"], "host by_class") == host["peak_bytes"],
           "host by_class does not sum to its peak")
    expect(host["persistent_bytes"] <= host["peak_bytes"], "host persistent above its peak")


def check_model_states(report):
    """Keys in order, exact integers, the total is the sum of the kinds, and
    each per_parameter is bytes over the distinct parameter elements."""
    states = report["model_states"]
    host = states.get("host")
    expect(
        list(states)
        == [
            "precision",
            "gradients_precision",
            "parameter_count",
            "trainable_parameter_count",
            "weights",
            "frozen_weights",
            "quantized_weights",
            "adapter_weights",
            "master_weights",
            "gradients",
            "optimizer_states",
            "optimizer_states_8bit",
            "fp8_amax_histories",
            "other_states",
            "total",
        ] + (["host"] if host is not None else []),
        f"model_states keys {list(states)}",
    )
    if host is not None:
        # The host's part (train-offload): each kind within the whole's.
        kinds = ["master_weights", "gradients", "optimizer_states", "total"]
        expect(list(host) == kinds + ["deepspeed_estimate"],
               f"model_states host keys {list(host)}")
        estimate = host["deepspeed_estimate"]
        expect(list(estimate) == ["processes", "device_bytes", "host_bytes"],
               "deepspeed_estimate keys")
        psi, gpus = states["parameter_count"], estimate["processes"]
        expect(estimate["device_bytes"] == 2 * psi, "deepspeed_estimate device_bytes")
        expect(estimate["host_bytes"] == psi * max(4 * gpus, 16) * 3 // 2,
               "deepspeed_estimate host_bytes")
        count = states["parameter_count"]
        for kind in kinds:
            entry = host[kind]
            expect(list(entry) == ["bytes", "per_parameter"], f"host {kind} keys")
            expect(is_int(entry["bytes"]) and 0 <= entry["bytes"] <= states[kind]["bytes"],
                   f"host {kind} bytes")
            expected = entry["bytes"] / count if count else 0
            expect(abs(entry["per_parameter"] - expected) < 1e-9, f"host {kind} per_parameter")
        expect(host["total"]["bytes"] == sum(host[k]["bytes"] for k in kinds[:-1]),
               "model_states host total is not the sum")
    expect(states["precision"] in ("fp32", "bf16-mixed", "fp16-mixed", "bf16-pure", "fp8"),
           "model_states precision")
    expect(states["gradients_precision"] in ("fp32", "bf16", "fp16"),
           "model_states gradients_precision")
    count = states["parameter_count"]
    # Under ZeRO a partitioned parameter counts whole in model_states (its
    # data-parallel parts together), its part at the top level: between the
    # part and the whole of a data-parallel group.
    comm = report.get("communication")
    processes = comm["processes"] if comm else 1
    expect(report["parameter_count"] <= count <= report["parameter_count"] * processes,
           "model_states parameter_count")
    trainable = states["trainable_parameter_count"]
    expect(is_int(trainable) and 0 <= trainable <= count,
           "model_states trainable_parameter_count")
    for kind in STATE_KINDS + EXTRA_KINDS:
        entry = states[kind]
        keys = ["bytes", "per_parameter"]
        if kind == "total":
            keys.append("per_trainable_parameter")
            per = entry["bytes"] / trainable if trainable else 0
            expect(abs(entry["per_trainable_parameter"] - per) < 1e-9,
                   "total per_trainable_parameter")
        expect(list(entry) == keys, f"model_states {kind} keys")
        expect(is_int(entry["bytes"]) and entry["bytes"] >= 0, f"{kind} bytes")
        expected = entry["bytes"] / count if count else 0
        expect(abs(entry["per_parameter"] - expected) < 1e-9, f"{kind} per_parameter")
    for other in states["other_states"]:
        expect(list(other) == ["name", "bytes"], "other_states keys")
        expect(is_int(other["bytes"]), "other_states bytes")
    fp8 = states["fp8_amax_histories"]
    expect(list(fp8) == ["count", "bytes", "per_parameter"], "fp8_amax_histories keys")
    expect(is_int(fp8["count"]) and is_int(fp8["bytes"]), "fp8_amax_histories integers")
    summed = sum(states[k]["bytes"] for k in STATE_KINDS[:-1] + EXTRA_KINDS) + fp8["bytes"] + sum(
        other["bytes"] for other in states["other_states"])
    expect(states["total"]["bytes"] == summed, "model_states total is not the sum")


def check_saved_activations(report):
    """The layers sum to the total; "(other)" comes last; no loss, nothing."""
    saved = report["saved_activations"]
    expect(
        list(saved)
        == ["loss_point", "bytes", "num_buffers", "by_layer",
            "parameter_copy_bytes", "num_parameter_copies"],
        f"saved_activations keys {list(saved)}",
    )
    layers = saved["by_layer"]
    for layer in layers:
        expect(list(layer) == ["layer", "bytes", "num_buffers"], "by_layer keys")
        expect(layer["bytes"] > 0 and layer["num_buffers"] > 0, "empty layer")
    names = [layer["layer"] for layer in layers]
    expect(len(set(names)) == len(names), "a layer listed twice")
    expect("(other)" not in names[:-1], "(other) is not last")
    expect(sum(l["bytes"] for l in layers) == saved["bytes"], "by_layer bytes sum")
    expect(sum(l["num_buffers"] for l in layers) == saved["num_buffers"],
           "by_layer buffers sum")
    if saved["loss_point"] is None:
        expect(saved["bytes"] == 0 and saved["parameter_copy_bytes"] == 0,
               "saved activations without a loss")
    else:
        expect(0 <= saved["loss_point"] < report["num_points"], "loss_point")


class HTMLChecker(html.parser.HTMLParser):
    """Tracks that non-void elements nest and close properly."""

    VOID = {"meta", "br", "hr", "img", "input", "link", "col", "area", "wbr"}

    def __init__(self):
        super().__init__()
        self.stack = []
        self.title = ""
        self.tables = []
        self.in_title = False
        self.scripts = 0

    def handle_starttag(self, tag, attrs):
        if tag == "script":
            self.scripts += 1
        for name, value in attrs:
            if name in ("src", "href") and value and "//" in value:
                fail(f"external reference {value}")
        if tag == "table":
            self.tables.append(dict(attrs).get("id"))
        if tag == "title" and "svg" not in self.stack:
            self.in_title = True
        if tag not in self.VOID:
            self.stack.append(tag)

    def handle_startendtag(self, tag, attrs):
        pass

    def handle_endtag(self, tag):
        expect(self.stack and self.stack[-1] == tag, f"</{tag}> closes {self.stack[-1:]}")
        self.stack.pop()
        if tag == "title":
            self.in_title = False

    def handle_data(self, data):
        if self.in_title:
            self.title += data


def check_html(path):
    with open(path) as f:
        text = f.read()
    expect(text.startswith("<!DOCTYPE html>"), "no HTML5 doctype")
    checker = HTMLChecker()
    checker.feed(text)
    checker.close()
    expect(not checker.stack, f"unclosed elements {checker.stack}")
    expect(checker.scripts == 0, "the page has scripts")
    expect(re.search(r"https?:", text.replace("http://www.w3.org/2000/svg", "")) is None,
           "the page references the network")
    print(f"title: {checker.title}")
    print("tables: " + " ".join(checker.tables))
    begin, end = text.index("<svg"), text.index("</svg>") + len("</svg>")
    check_svg(ET.fromstring(text[begin:end]), "")
    # A step with host values: the host's timeline follows the device's.
    host = text.find('<svg xmlns="http://www.w3.org/2000/svg" id="host-timeline"')
    if host >= 0:
        end = text.index("</svg>", host) + len("</svg>")
        print("host timeline:")
        check_svg(ET.fromstring(text[host:end]), "host-")


def check_svg(svg, prefix):
    """One timeline: a path a class, closed; the legend; the peak marker
    (id PREFIX + "peak-marker") over the highest column."""
    expect(svg.tag == SVG + "svg", "svg root")
    paths = [p for p in svg.iter(SVG + "path") if p.get("class") == "area"]
    expect([p.get("data-class") for p in paths] == CLASSES, "one path a class")
    for path_element in paths:
        expect(path_element.get("d", "").startswith("M"), "empty path")
        expect(path_element.get("d").endswith("Z"), "open path")
    legend = [r.get("data-class") for r in svg.iter(SVG + "rect")]
    expect(legend == CLASSES, f"legend {legend}")
    labels = [t.text for t in svg.iter(SVG + "text") if t.get("class") == "axis-label"]
    print("paths: " + " ".join(p.get("data-class") for p in paths))
    print("axis labels: " + " | ".join(labels))
    markers = [e for e in svg.iter() if e.get("id") == prefix + "peak-marker"]
    expect(len(markers) == 1, "one peak marker")
    marker = markers[0]
    expect(marker.get("x1") == marker.get("x2"), "vertical peak marker")
    # The top of the stack reaches its highest point (the peak) in the
    # column under the marker: walk the top path's rightward segments.
    x = y = 0.0
    segments = []
    for command, first, second in re.findall(
        r"([MHVZ])\s*([-0-9.]+)?(?:,([-0-9.]+))?", paths[-1].get("d")
    ):
        if command == "M":
            x, y = float(first), float(second)
        elif command == "H":
            if float(first) > x:
                segments.append((x, float(first), y))
            x = float(first)
        elif command == "V":
            y = float(first)
    marker_x = float(marker.get("x1"))
    under = [s for s in segments if s[0] <= marker_x <= s[1]]
    expect(len(under) == 1, f"marker x {marker_x} not over one column")
    highest = min(s[2] for s in segments)
    expect(under[0][2] == highest, "the marker is not at the highest column")
    print(f"peak marker x: {marker.get('x1')}, column top y: {under[0][2]:.2f}")
    peak_label = "".join(svg.find(f"{SVG}g[@id='{prefix}peak']/{SVG}text").itertext())
    print(f"peak label: {peak_label}")


def check_trace(path):
    with open(path) as f:
        trace = json.load(f)
    expect(trace.get("displayTimeUnit") == "ns", "displayTimeUnit")
    events = trace["traceEvents"]
    for event in events:
        expect("ph" in event and "name" in event, f"event {event}")
    by_class = [e for e in events if e["ph"] == "C" and e["name"] == "live_bytes"]
    totals = [e for e in events if e["ph"] == "C" and e["name"] == "live_bytes_total"]
    ops = [e for e in events if e["ph"] == "X"]
    instants = [e for e in events if e["ph"] == "i"]
    expect(len(by_class) == len(totals) == len(ops), "one counter of each a point")
    for point, (counter, total, op) in enumerate(zip(by_class, totals, ops)):
        expect(counter["ts"] == total["ts"] == op["ts"] == point, f"ts at {point}")
        expect(op["dur"] == 1, "op duration")
        expect(list(total["args"]) == ["total"], "total series args")
        summed = check_by_class(counter["args"], f"counter {point}")
        expect(summed == total["args"]["total"], f"total at {point}")
        print(f"point {point} {op['name']}: {total['args']['total']}")
    expect(len(instants) == 1, "one instant event")
    peak = instants[0]
    expect(peak["name"] == "peak", "peak event name")
    maximum = max(t["args"]["total"] for t in totals)
    expect(peak["args"]["bytes"] == maximum, "peak bytes != maximum total")
    expect(totals[peak["ts"]]["args"]["total"] == maximum, "peak ts")
    print(f"peak: ts={peak['ts']} bytes={peak['args']['bytes']} op={peak['args']['op']}")
    print("peak classes: " + " ".join(
        f"{c}={by_class[peak['ts']]['args'][c]}" for c in CLASSES))


def check_liveness(json_path, liveness_path):
    """The JSON agrees with -test-print-tensor-liveness point by point."""
    with open(json_path) as f:
        report = json.load(f)
    with open(liveness_path) as f:
        text = f.read()
    points = [(int(m[1]), m[2], int(m[3]))
              for m in re.finditer(r"^  (\d+) (\S+): (\d+)", text, re.M)]
    load = re.search(r"^load: (\d+) at point (\d+) \((\S+)\)", text, re.M)
    persistent = re.search(r"^persistent: (\d+)", text, re.M)
    expect(load and persistent, "no load line in the liveness output")
    timeline = [(e["point"], e["op"], e["live_bytes"]) for e in report["timeline"]]
    expect(timeline == points, "timeline differs from the liveness output")
    expect(report["load_bytes"] == int(load[1]), "load_bytes")
    expect(report["peak_bytes"] == int(load[1]), "peak_bytes")
    expect(report["peak_point"] == int(load[2]), "peak_point")
    expect(report["peak_op"]["name"] == load[3], "peak_op")
    expect(report["persistent_bytes"] == int(persistent[1]), "persistent_bytes")
    print(f"agree: {len(points)} points, peak {report['peak_bytes']} at "
          f"{report['peak_point']} ({report['peak_op']['name']})")


def main():
    mode = sys.argv[1]
    if mode == "json":
        check_json(sys.argv[2])
    elif mode == "html":
        check_html(sys.argv[2])
    elif mode == "trace":
        check_trace(sys.argv[2])
    elif mode == "liveness":
        check_liveness(sys.argv[2], sys.argv[3])
    else:
        fail(f"unknown mode {mode}")


if __name__ == "__main__":
    main()
