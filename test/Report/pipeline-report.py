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


def in_flight(schedule, stages, stage, microbatches):
    """Korthikanti et al.'s and Narayanan et al.'s counts: 1F1B holds
    min(m, p - s) micro-batches on stage s, GPipe all m."""
    if schedule == "1f1b":
        return min(microbatches, stages - stage)
    expect(schedule == "gpipe", f"unknown schedule {schedule}")
    return microbatches


def check_activations(step, pipeline):
    """Each stage holds, at most, its in-flight micro-batches' activations:
    per micro-batch, the activations the unpipelined step saves for the
    stage's layers, and on the last stage also those outside any layer (the
    embedding's output and the head and loss). The first stage saves the
    embedding's output instead of its last layer's output (sent on, not
    saved), the others save the received input instead: the same bytes, so
    the sums are exact."""
    saved = {entry["layer"]: entry["bytes"]
             for entry in step["saved_activations"]["by_layer"]}
    last = pipeline["num_stages"] - 1
    for stage in pipeline["stages"]:
        per_micro_batch = sum(saved[layer] for layer in stage["layers"])
        if stage["stage"] == last:
            per_micro_batch += saved.get("(other)", 0)
        expected = stage["microbatches_in_flight"] * per_micro_batch
        expect(stage["max_activation_bytes"] == expected,
               f"stage {stage['stage']}: {stage['max_activation_bytes']} B of "
               f"activations at most, expected {stage['microbatches_in_flight']}"
               f" x {per_micro_batch} = {expected}")


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
    expect(pipeline["bubble_fraction"] == (stages - 1) / (microbatches + stages - 1),
           "bubble fraction is not (p - 1) / (m + p - 1)")
    for stage in pipeline["stages"]:
        expected = in_flight(schedule, stages, stage["stage"], microbatches)
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
