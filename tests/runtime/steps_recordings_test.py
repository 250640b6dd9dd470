#!/usr/bin/env python3
"""SYNCWATCH_STEP on the H200's recordings (tests/gpu/steps_check.sh):
  h200_step_loop.swrec               tests/gpu/step_loop.py under SYNCWATCH_STEP='*_step': 40
                                     train steps (range_push/pop, an inner 'loss' range) and 10
                                     eval steps (range_start/end), the odd eval steps with a
                                     pageable .cpu() copy of 1.4 ms;
  h200_step_loop_measure_steps.swrec the same with SYNCWATCH_MEASURE=steps;
  h200_manual_nvtx_steps.swrec       code-samples' manual_nvtx.cu (nvtxRangePushEx), its one
                                     'daxpy' range.
Each is replayed, and gated with --budget-ms-per-step on both sides of its worst step.
  steps_recordings_test.py SYNCWATCH REPO_ROOT"""
import json
import os
import subprocess
import sys

sys.path[:0] = [os.path.dirname(os.path.abspath(__file__)),  # this folder, and tests/ (harness.py)
                os.path.dirname(os.path.dirname(os.path.abspath(__file__)))]
from harness import check, finish  # noqa: E402

tool, root = sys.argv[1:3]
inputs = os.path.join(root, "test_inputs", "runtime")


def figures(name):
    r = subprocess.run([tool, "replay", "--format=json", os.path.join(inputs, name)], capture_output=True, text=True, timeout=120)
    return json.loads(r.stdout)["figures"] if r.returncode in (0, 1) and r.stdout else {}  # (1: it has findings)


def steps(name):
    return [l.rstrip("\n").split("\t") for l in open(os.path.join(inputs, name)) if l.startswith("W\t")]


for name in ("h200_step_loop.swrec", "h200_step_loop_measure_steps.swrec"):
    w = steps(name)
    check(f"{name}: 40 train and 10 eval steps recorded, the inner range not one",
          [x[4] for x in w].count("train_step") == 40 and [x[4] for x in w].count("eval_step") == 10
          and len(w) == 50, [x[4] for x in w][:5])
    f = figures(name)
    worst = float(f.get("steps.blockedWorstMs", 0))
    # The eval steps start after the train steps: #41-#50, the odd ones (#42, #44, ...) copy.
    check(f"{name}: the worst step is an eval step with its pageable copy",
          f.get("steps.name") == "train_step, eval_step" and f.get("steps.count") == "50"
          and int(f.get("steps.worstIndex", 0)) in (42, 44, 46, 48, 50) and 1.0 < worst < 3.0
          and f.get("steps.worst", "").startswith(f"#{f.get('steps.worstIndex')} of 50 (main, "), f)
    # Every wait of the run is inside a step: the steps' total is the run's host time lost.
    check(f"{name}: the steps hold the run's host time lost",
          abs(float(f.get("steps.blockedTotalMs", 0)) - float(f.get("hostTimeLostMs", -1))) < 0.05, f)
    r = subprocess.run([tool, "gate", "--fail-on=error", "--budget-ms-per-step", "1", os.path.join(inputs, name)],
                       capture_output=True, text=True, timeout=120)
    check(f"{name}: a 1 ms step budget fails on that step", r.returncode == 1
          and f"steps, #{f.get('steps.worstIndex')} of 50 (main" in r.stdout, r.stdout + r.stderr)
    r = subprocess.run([tool, "gate", "--fail-on=error", "--budget-ms-per-step", "5", os.path.join(inputs, name)],
                       capture_output=True, text=True, timeout=120)
    check(f"{name}: a 5 ms step budget passes", r.returncode == 0 and "within the per-step budget" in r.stdout,
          r.stdout + r.stderr)

f = figures("h200_manual_nvtx_steps.swrec")
check("manual_nvtx.cu: its nvtxRangePushEx range is one step", f.get("steps.name") == "daxpy"
      and f.get("steps.count") == "1" and f.get("steps.blockedWorstMs") == "0.000000", f)
finish()
