#!/usr/bin/env python3
"""Loads syncwatch's trace of the seed's recorded H200 runs with Holistic Trace Analysis
itself (installed by ci/setup.sh into its own folder) and checks that HTA sees the kernels
and copies, and that its computation/memory overlap agrees with syncwatch's figure.
Skips (77) when HTA is not installed.
Usage: hta_load_test.py <syncwatch> <test_inputs/runtime> <hta site dir>"""
import json, os, subprocess, sys, tempfile

sys.path[:0] = [os.path.dirname(os.path.abspath(__file__)),  # this folder, and tests/ (harness.py)
                os.path.dirname(os.path.dirname(os.path.abspath(__file__)))]
from harness import check, finish, skip  # noqa: E402

tool, folder, site = sys.argv[1:4]
sys.path.insert(0, site)
try:
    from hta.trace_analysis import TraceAnalysis
except Exception as e:  # not installed: say so, do not fail
    skip(f"HTA not available ({e})")

for rec in ("h200_seed_non_blocking_true.swrec", "h200_seed_non_blocking_false.swrec"):
    with tempfile.TemporaryDirectory() as d:
        out = os.path.join(d, "rank0.json")
        p = subprocess.run([tool, "replay", "--format", "json", "--trace", out, os.path.join(folder, rec)],
                           capture_output=True, text=True)
        figures = json.loads(p.stdout)["figures"]
        a = TraceAnalysis(trace_dir=d)
        kb = a.get_gpu_kernel_breakdown(visualize=False)[0]
        kinds = dict(zip(kb["kernel_type"], kb["sum"]))
        ok = kinds.get("MEMORY", 0) > 0 and kinds.get("COMPUTATION", 0) > 0
        # HTA's figure is overlap / all kernel time; syncwatch's is overlap / copy time:
        # both come from the same overlapped microseconds.
        hta_overlap_us = kinds.get("COMPUTATION overlapping MEMORY", 0)
        sw_overlap_us = float(figures["copyOverlappedByComputeMs"]) * 1000
        close = abs(hta_overlap_us - sw_overlap_us) <= max(50, 0.05 * sw_overlap_us)
        check(f"{rec}: HTA loads it, sees kernels and copies, its overlap agrees with syncwatch's", ok and close,
              f"kernel types {kinds}; overlap HTA {hta_overlap_us:.0f} us vs syncwatch {sw_overlap_us:.0f} us "
              f"({figures['copyOverlapPercent']}% of copy time)")
finish()
