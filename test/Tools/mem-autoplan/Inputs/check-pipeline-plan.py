"""Checks a pipelined plan of `mem-autoplan --json` against mem-opt's report
of the same passes (pipeline.test): the built stages' peaks, the plan's peak
as the highest of them, and the time relations of the cost model for its schedule."""
import json
import sys

plan = json.load(open(sys.argv[1]))["plans"][0]
report = json.load(open(sys.argv[2]))
print(f"pp={plan['pp']} {plan['pp_schedule']} v={plan['virtual_stages']} "
      f"dp={plan['dp']} ga={plan['gradient_accumulation']} "
      f"peak stage {plan['peak_stage']}")
planned = {s["stage"]: s["peak_bytes"] for s in plan["stage_peaks"]}
direct = {s["stage"]: s["peak_bytes"] for s in report["pipeline"]["stages"]}
print("stage peaks equal mem-opt's:", planned == direct)
print("peak is the highest stage's:",
      plan["peak_bytes"] == max(planned.values()))
slot = plan["estimated_micro_batch_seconds"]
stages, ga = plan["pp"], plan["gradient_accumulation"]
schedule, chunks = plan["pp_schedule"], plan["virtual_stages"]
bubble = plan["estimated_bubble_seconds"]
if schedule == "1f1b":
    print("bubble = (stages - 1) x micro-batch time:",
          abs(bubble - (stages - 1) * slot) <= 1e-12)
elif schedule == "interleaved":
    print("bubble = (stages - 1) / v x micro-batch time:",
          abs(bubble - (stages - 1) * slot / chunks) <= 1e-12)
else:
    # ZB-H1: the weight-gradient parts fill the cool-down, below 1F1B's.
    print("bubble below (stages - 1) x micro-batch time:",
          0 <= bubble < (stages - 1) * slot)
updates = plan["estimated_step_seconds"] - ga * slot - bubble
print("step = ga x micro-batch time + bubble + updates:",
      0 <= updates < slot * ga)
