"""Checks the pipeline section of train-memory-report against the schedule,
the other stages and the unpipelined step, for lit.

Usage: pipeline-report.py STEP.json PIPELINED.json [STAGE.json ...]

STEP.json is the JSON report of the step before train-pipeline;
PIPELINED.json the report of the pipelined module without `function=`;
each STAGE.json the report of the same module with `function=<a stage>`.
Exits non-zero with a message on the first violation, and prints one line
per stage for FileCheck.
"""

import json
import sys


def fail(message):
    print("error: " + message, file=sys.stderr)
    sys.exit(1)


def expect(condition, message):
    if not condition:
        fail(message)


def load(path):
    with open(path) as f:
        try:
            return json.load(f)
        except json.JSONDecodeError as error:
            fail(f"{path}: not valid JSON: {error}")


def interleaved_passes(stages, stage, microbatches, chunks):
    """Megatron-LM's interleaved 1F1B on one stage, written from Narayanan
    et al. (2021) and Megatron-LM's forward_backward_pipelining_with_
    interleaving: ("F" or "B", chunk, micro-batch) in order. Forward passes
    take groups of p micro-batches through chunk 0, 1, ...; backward passes
    through the chunks in reverse."""
    total = microbatches * chunks

    def which(i, forward):
        chunk = (i // stages) % chunks
        return (chunk if forward else chunks - 1 - chunk,
                (i // (stages * chunks)) * stages + i % stages)

    if microbatches == stages:
        warmup = total
    else:
        warmup = min(total, 2 * (stages - stage - 1) + (chunks - 1) * stages)
    order = [("F",) + which(i, True) for i in range(warmup)]
    for i in range(total - warmup):
        order += [("F",) + which(warmup + i, True), ("B",) + which(i, False)]
    order += [("B",) + which(i, False) for i in range(total - warmup, total)]
    return order


def in_flight(pipeline, stage):
    """Korthikanti et al.'s and Narayanan et al.'s counts: 1F1B holds
    min(m, p - s) micro-batches on stage s, GPipe all m; ZB-H1 (Qi et al.)
    min(m, p) on every stage until their weight passes (1F1B's, plus the s
    backward passes stage s runs before their weight passes); the
    interleaved schedule's passes through chunks, from the simulated order:
    on the first stage 2 (p - 1) + (v - 1) p + 1 when m > p, i.e. 1F1B's p
    micro-batches times 1 + (p - 1) / (p v) in whole-stage units."""
    schedule = pipeline["schedule"]
    p, m = pipeline["num_stages"], pipeline["microbatches"]
    if schedule == "1f1b":
        return min(m, p - stage)
    if schedule == "zb-h1":
        return min(m, p)
    if schedule == "interleaved":
        v = pipeline["virtual_stages"]
        live = most = 0
        for kind, _, _ in interleaved_passes(p, stage, m, v):
            live += 1 if kind == "F" else -1
            most = max(most, live)
        if stage == 0 and m > p:
            expect(most == 2 * (p - 1) + (v - 1) * p + 1,
                   f"interleaved first stage holds {most} chunk passes")
        return most
    expect(schedule == "gpipe", f"unknown schedule {schedule}")
    return m


def bubble(pipeline):
    """(p - 1) / (m + p - 1) for 1F1B and GPipe; a chunk's pass is 1/v of a
    stage's under interleaving, (p - 1) / (v m + p - 1); ZB-H1 with equal
    forward, input-gradient and weight-gradient times, (p - 1) / (3 m + p
    - 1)."""
    p, m = pipeline["num_stages"], pipeline["microbatches"]
    work = {"interleaved": pipeline["virtual_stages"], "zb-h1": 3}.get(
        pipeline["schedule"], 1) * m
    return (p - 1) / (work + p - 1)


def check_activations(step, pipeline):
    """Each stage holds, at most, its in-flight micro-batches' activations:
    per micro-batch, the activations the unpipelined step saves for the
    stage's layers, and on the last stage also those outside any layer (the
    embedding's output and the head and loss). The first stage saves the
    embedding's output instead of its last layer's output (sent on, not
    saved), the others save the received input instead: the same bytes, so
    the sums are exact. Interleaved: the most, over its order, of what the
    chunk passes in flight save. ZB-H1: between 1F1B's min(m, p - s)
    micro-batches and min(m, p) (a pass whose input gradient is done and
    whose weight gradient is not holds only what the weight gradient
    reads)."""
    saved = {entry["layer"]: entry["bytes"]
             for entry in step["saved_activations"]["by_layer"]}
    p, m = pipeline["num_stages"], pipeline["microbatches"]
    last = p - 1
    for stage in pipeline["stages"]:
        s = stage["stage"]
        per_chunk = [sum(saved[layer] for layer in chunk)
                     for chunk in stage["chunks"]]
        if s == last:
            per_chunk[-1] += saved.get("(other)", 0)
        got = stage["max_activation_bytes"]
        if pipeline["schedule"] == "interleaved":
            live = expected = 0
            for kind, chunk, _ in interleaved_passes(
                    p, s, m, pipeline["virtual_stages"]):
                live += per_chunk[chunk] if kind == "F" else -per_chunk[chunk]
                expected = max(expected, live)
            expect(got == expected,
                   f"stage {s}: {got} B of activations at most, the chunk "
                   f"passes in flight save {expected}")
            continue
        if pipeline["schedule"] == "zb-h1":
            low, high = min(m, p - s) * per_chunk[0], min(m, p) * per_chunk[0]
            expect(low <= got <= high,
                   f"stage {s}: {got} B of activations at most, not within "
                   f"[{low}, {high}]")
            continue
        expected = stage["microbatches_in_flight"] * per_chunk[0]
        expect(got == expected,
               f"stage {s}: {got} B of activations at most, expected "
               f"{stage['microbatches_in_flight']} x {per_chunk[0]} = {expected}")


def check_stage_report(pipeline, path):
    """A report with function=<stage> is that stage's, with the same
    pipeline section; its numbers are the ones the whole report lists."""
    report = load(path)
    section = report.get("pipeline")
    expect(section is not None, f"{path}: no pipeline section")
    stage = section["reported_stage"]
    row = pipeline["stages"][stage]
    expect(report["function"] == row["function"],
           f"{path}: reports @{report['function']}, stage {stage} is "
           f"@{row['function']}")
    expect(report["peak_bytes"] == row["peak_bytes"],
           f"{path}: peak {report['peak_bytes']}, the pipeline lists "
           f"{row['peak_bytes']}")
    expect(report["by_class"] == row["by_class"], f"{path}: by_class")
    expect(report["model_states"]["total"]["bytes"] == row["model_states_bytes"],
           f"{path}: model states")
    p2p = [c for c in report["communication"]["collectives"] if c["kind"] == "p2p"]
    expect(len(p2p) == 1 and p2p[0]["sent_bytes"] == row["sent_bytes"],
           f"{path}: communication's p2p row {p2p}, sent_bytes {row['sent_bytes']}")
    expect(report["communication"]["total_sent_bytes"] == row["sent_bytes"],
           f"{path}: total_sent_bytes")
    same = dict(section, reported_stage=pipeline["reported_stage"])
    expect(same == pipeline, f"{path}: another pipeline section")
    print(f"function={row['function']}: stage {stage}, peak {report['peak_bytes']}"
          " as listed")


def main():
    step = load(sys.argv[1])
    report = load(sys.argv[2])
    pipeline = report["pipeline"]
    stages, microbatches = pipeline["num_stages"], pipeline["microbatches"]
    schedule = pipeline["schedule"]
    expect(abs(pipeline["bubble_fraction"] - bubble(pipeline)) < 1e-12,
           f"bubble fraction {pipeline['bubble_fraction']}, expected "
           f"{bubble(pipeline)}")
    for stage in pipeline["stages"]:
        expected = in_flight(pipeline, stage["stage"])
        expect(stage["microbatches_in_flight"] == expected,
               f"stage {stage['stage']}: {stage['microbatches_in_flight']} in "
               f"flight, expected {expected}")
    # The stage of the highest peak, the lowest one on a tie.
    peaks = [stage["peak_bytes"] for stage in pipeline["stages"]]
    highest = peaks.index(max(peaks))
    expect(pipeline["reported_stage"] == highest,
           f"reported stage {pipeline['reported_stage']}, the highest peak is "
           f"stage {highest}'s ({peaks})")
    expect(report["peak_bytes"] == max(peaks), "the report's peak")
    check_activations(step, pipeline)
    for path in sys.argv[3:]:
        check_stage_report(pipeline, path)
    print(f"{schedule} p={stages} m={microbatches}: reported stage {highest}")
    for stage in pipeline["stages"]:
        print(f"stage {stage['stage']}: in flight {stage['microbatches_in_flight']},"
              f" activations {stage['max_activation_bytes']} at most,"
              f" {stage['by_class']['activation']} at the peak,"
              f" peak {stage['peak_bytes']}, sent {stage['sent_bytes']}")


if __name__ == "__main__":
    main()
