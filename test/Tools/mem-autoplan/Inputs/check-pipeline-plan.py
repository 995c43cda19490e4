"""Checks a pipelined plan of `mem-autoplan --json` against mem-opt's report
of the same passes (pipeline.test): the built stages' peaks, the plan's peak
as the highest of them, and the 1F1B time relations of the cost model."""
import json
import sys

plan = json.load(open(sys.argv[1]))["plans"][0]
report = json.load(open(sys.argv[2]))
print(f"pp={plan['pp']} dp={plan['dp']} ga={plan['gradient_accumulation']} "
      f"peak stage {plan['peak_stage']}")
planned = {s["stage"]: s["peak_bytes"] for s in plan["stage_peaks"]}
direct = {s["stage"]: s["peak_bytes"] for s in report["pipeline"]["stages"]}
print("stage peaks equal mem-opt's:", planned == direct)
print("peak is the highest stage's:",
      plan["peak_bytes"] == max(planned.values()))
slot = plan["estimated_micro_batch_seconds"]
stages, ga = plan["pp"], plan["gradient_accumulation"]
print("bubble = (stages - 1) x micro-batch time:",
      abs(plan["estimated_bubble_seconds"] - (stages - 1) * slot) <= 1e-12)
updates = plan["estimated_step_seconds"] - (ga + stages - 1) * slot
print("step = (ga + stages - 1) x micro-batch time + updates:",
      0 <= updates < slot * ga)
