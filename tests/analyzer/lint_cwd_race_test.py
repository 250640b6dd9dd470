#!/usr/bin/env python3
"""syncwatch-lint -j4 over a database whose entries find their headers through relative -I
paths and name their files relatively, started from another directory (as CI runs
`syncwatch-lint -p build` from the source root), 20 times: every run parses every unit and
gives the same report. ClangTool used to chdir the whole process into each entry's
directory while other workers resolved paths (issue 11: 4 failures in 6 runs at -j2); each
worker now has a file system with a working directory of its own. Also: an entry whose
directory does not exist is a clear error, not a crash.
  lint_cwd_race_test.py SYNCWATCH-LINT [RUNS]"""
import json
import os
import subprocess
import sys
import tempfile

sys.path[:0] = [os.path.dirname(os.path.abspath(__file__)),  # this folder, and tests/ (harness.py)
                os.path.dirname(os.path.dirname(os.path.abspath(__file__)))]
from harness import check, finish  # noqa: E402

lint = sys.argv[1]
runs = int(sys.argv[2]) if len(sys.argv) > 2 else 20


UNIT = """// stage {n}: one tile of the pipeline
#include "tile_helpers.h"

void stage{n}(float *d_tile, const float *h_tile, int n, cudaStream_t stream) {{
  scale_tile<<<(n + 255) / 256, 256, 0, stream>>>(d_tile, n, {n}.0f);
  cudaMemcpy(d_tile, h_tile, n * sizeof(float), cudaMemcpyHostToDevice);
  cudaStreamSynchronize(stream);
}}
"""
HELPERS = """#pragma once
#include <cuda_runtime.h>
__global__ void scale_tile(float *t, int n, float f) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) t[i] *= f;
}
"""

with tempfile.TemporaryDirectory() as d:
    proj = os.path.join(d, "proj")
    os.makedirs(os.path.join(proj, "Common"))
    os.makedirs(os.path.join(proj, "stages"))
    open(os.path.join(proj, "Common", "tile_helpers.h"), "w").write(HELPERS)
    entries = []
    for n in range(12):
        # each entry in a directory of its own, its header found through a path relative to
        # it: a worker that resolves it from another worker's directory does not find it
        unit_dir = os.path.join(proj, "stages", f"s{n}")
        os.makedirs(unit_dir)
        open(os.path.join(unit_dir, f"stage{n}.cu"), "w").write(UNIT.format(n=n))
        entries.append({"directory": unit_dir, "file": f"stage{n}.cu",
                        "command": f"/usr/local/cuda/bin/nvcc -I ../../Common -O2 -arch=sm_90 -c stage{n}.cu -o stage{n}.o"})
    build = os.path.join(d, "build")
    os.makedirs(build)
    json.dump(entries, open(os.path.join(build, "compile_commands.json"), "w"), indent=1)
    other = os.path.join(d, "elsewhere")
    os.makedirs(other)
    outputs = set()
    bad = []
    for i in range(runs):
        r = subprocess.run([lint, "-p", build, "-j4", "--format=json", "--cuda-path=/usr/local/cuda"],
                           capture_output=True, text=True, cwd=other, timeout=300)
        doc = json.loads(r.stdout) if r.stdout.startswith("{") else {"errors": [r.stderr]}
        if r.returncode != 1 or doc.get("errors") or doc.get("filesAnalyzed") != 12:
            bad.append((i, r.returncode, (doc.get("errors") or [""])[0]))
        outputs.add(r.stdout)
    check(f"{runs} runs at -j4 from another directory: every unit parsed, findings in each", not bad, bad[:3])
    check(f"{runs} runs: byte-identical reports", len(outputs) == 1, f"{len(outputs)} different reports")

    # An entry whose directory is gone (a database from another machine).
    gone = [dict(entries[0], directory=os.path.join(d, "no-such-build-dir"))]
    json.dump(gone, open(os.path.join(build, "compile_commands.json"), "w"))
    r = subprocess.run([lint, "-p", build, "--cuda-path=/usr/local/cuda"], capture_output=True, text=True, cwd=other)
    check("an entry whose directory does not exist: exit 2, said, no crash", r.returncode == 2 and
          "does not exist" in r.stderr and "crash" not in r.stderr, r.stderr[-300:])

finish()
