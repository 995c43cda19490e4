"""Checks a dynamically loss-scaled run of mem-run against GradScaler's rules.

loss-scaling.py RUN SHIFTED INTERVAL [--fp32 FP32 --rtol RTOL]: RUN is the
output of mem-run --print-state=loss_scale.exponent,loss_scale.growth_tracker,
loss_scale.skipped_steps with growth interval INTERVAL. The test recomputes,
independently of
memopt's lowering, what torch.cuda.amp.GradScaler.update() does after each
step given whether the step found an inf/NaN gradient (a step is skipped
exactly when the skipped-step count grows):
  found inf: scale *= 0.5, growth tracker = 0 (the optimizer step is skipped)
  finite:    tracker += 1; at INTERVAL, scale *= 2 and tracker = 0
and checks the exponent and tracker memopt kept, that a skipped step changed
no parameter (the next loss equals its loss). With SHIFTED (a run started
at the scale the first finite step had; "-" for none), the run must start
with skipped steps and then train, and the losses from that step on must
equal SHIFTED's: skipped steps are exact no-ops, Adam's bias correction
included.

With --fp32 (mem-run's output for the fp32 step), each loss must stay within
RTOL (relative) of the fp32 run's loss after as many updates: a step that
follows s skipped steps has had s fewer updates, so step n is compared with
fp32 step n - s. With SGD the update is proportional to the unscaled
gradient, so a missing, doubled or stale unscale moves these losses."""
import argparse
import re
import sys

LINE = re.compile(r"step (\d+): loss = (\S+) loss_scale.exponent = (-?\d+) "
                  r"loss_scale.growth_tracker = (\d+) "
                  r"loss_scale.skipped_steps = (\d+)$")


def parse(path):
    steps = []
    with open(path) as f:
        for line in f:
            m = LINE.match(line.strip())
            if m:
                steps.append((float(m.group(2)), int(m.group(3)),
                              int(m.group(4)), int(m.group(5))))
    return steps


def fail(message):
    sys.exit("loss-scaling.py: " + message)


parser = argparse.ArgumentParser()
parser.add_argument("run")
parser.add_argument("shifted")
parser.add_argument("interval", type=int)
parser.add_argument("--fp32")
parser.add_argument("--rtol", type=float, default=0.0)
args = parser.parse_args()
run = parse(args.run)
interval = args.interval
if len(run) < 2:
    fail("no steps with loss-scale states in " + args.run)

exponent, tracker, skipped = 0, 0, 0
found_sequence = []
for n, (loss, kept_exponent, kept_tracker, kept_skipped) in enumerate(run, 1):
    if kept_skipped not in (skipped, skipped + 1):
        fail(f"step {n}: skipped count went from {skipped} to {kept_skipped}")
    found = kept_skipped == skipped + 1
    found_sequence.append(found)
    if found:
        exponent, tracker, skipped = exponent - 1, 0, skipped + 1
    else:
        tracker += 1
        if tracker == interval:
            exponent, tracker = exponent + 1, 0
    if (kept_exponent, kept_tracker) != (exponent, tracker):
        fail(f"step {n}: memopt kept exponent {kept_exponent} tracker "
             f"{kept_tracker}, GradScaler's rules give {exponent} {tracker}")
    if found and n < len(run) and run[n][0] != loss:
        fail(f"step {n} was skipped but the loss moved: {loss} -> {run[n][0]}")

skipped_steps = [n for n, found in enumerate(found_sequence, 1) if found]
print(f"skipped steps: {skipped_steps or 'none'}; final exponent {exponent}")

if args.fp32:
    reference = [float(m.group(1)) for m in
                 (re.match(r"step \d+: loss = (\S+)", line.strip())
                  for line in open(args.fp32)) if m]
    worst = 0.0
    for n, (loss, *_) in enumerate(run, 1):
        updates = n - 1 - sum(found_sequence[:n - 1])
        if updates >= len(reference):
            fail(f"step {n} follows {updates} updates, but {args.fp32} has "
                 f"only {len(reference)} steps")
        error = abs(loss - reference[updates]) / abs(reference[updates])
        print(f"step {n}: after {updates} updates, loss {loss:.6e}, fp32 "
              f"{reference[updates]:.6e}, relative error {error:.2e}")
        if not error <= args.rtol:
            fail(f"step {n}: relative error {error:.2e} from fp32 step "
                 f"{updates + 1} above {args.rtol}")
        worst = max(worst, error)
    print(f"within {args.rtol} of fp32 (at most {worst:.2e})")

if args.shifted != "-":
    first_finite = found_sequence.index(False) if False in found_sequence \
        else None
    if first_finite is None or first_finite == 0:
        fail("expected the run to start with skipped steps, then train")
    if not run[-1][0] < run[first_finite][0]:
        fail("the loss did not decrease after the skipped steps")
    print(f"skipped the first {first_finite} steps; "
          f"{sum(found_sequence)} skipped in all; final exponent {exponent}")
    shifted = parse(args.shifted)
    tail = [step[0] for step in run[first_finite:]]
    head = [step[0] for step in shifted[:len(tail)]]
    if len(head) != len(tail) or head != tail:
        fail(f"from step {first_finite + 1} on, the losses differ from the "
             f"run started at that scale: {tail} vs {head}")
    print(f"steps {first_finite + 1}..{len(run)} equal the shifted run")
