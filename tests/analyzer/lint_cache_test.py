#!/usr/bin/env python3
"""syncwatch-lint --cache-dir: a second run over an unchanged tree reads every unit from
the cache and writes the same report, byte for byte, as a run without it; a change to one
header re-lints exactly the units that include it; the cache survives parallel writers and
a damaged entry; an unusable cache directory is a warning, never a lost report.
  lint_cache_test.py SYNCWATCH-LINT"""
import json
import os
import subprocess
import sys
import tempfile
import threading
import time

sys.path[:0] = [os.path.dirname(os.path.abspath(__file__)),  # this folder, and tests/ (harness.py)
                os.path.dirname(os.path.dirname(os.path.abspath(__file__)))]
from harness import check, finish  # noqa: E402

lint = sys.argv[1]


COMMON = """#pragma once
#include <cuda_runtime.h>
__global__ void axpy(float *y, const float *x, float a, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) y[i] += a * x[i];
}
"""
OTHER = """#pragma once
#include <cuda_runtime.h>
static inline void release(float *p) { cudaFree(p); }
"""
UNITS = {
    "train.cu": """#include "common.h"
void step(float *y, const float *x, float *scratch, int n, cudaStream_t s) {
  axpy<<<(n + 255) / 256, 256, 0, s>>>(y, x, 0.5f, n);
  cudaFree(scratch);
}
""",
    "eval.cu": """#include "other.h"
__global__ void fill(float *y, int n) { if (threadIdx.x < n) y[threadIdx.x] = 1.f; }
void evaluate(float *y, int n, cudaStream_t s) {
  for (int k = 0; k < 4; ++k) {
    fill<<<1, 256, 0, s>>>(y, n);
    cudaStreamSynchronize(s);
  }
}
""",
    "infer.cu": """#include "common.h"
void infer(float *y, const float *x, int n, cudaStream_t s) {
  axpy<<<(n + 255) / 256, 256>>>(y, x, 2.f, n);
  cudaStreamSynchronize(s);
}
""",
}

with tempfile.TemporaryDirectory() as tmp:
    src = os.path.join(tmp, "src")
    os.makedirs(os.path.join(src, "include"))
    with open(os.path.join(src, "include", "common.h"), "w") as f:
        f.write(COMMON)
    with open(os.path.join(src, "include", "other.h"), "w") as f:
        f.write(OTHER)
    db = []
    for name, text in UNITS.items():
        with open(os.path.join(src, name), "w") as f:
            f.write(text)
        db.append({"directory": src, "file": name,
                   "arguments": ["clang++", "-x", "cuda", "-Iinclude", "-c", name]})
    with open(os.path.join(src, "compile_commands.json"), "w") as f:
        json.dump(db, f)
    cache = os.path.join(tmp, "cache")

    def run(tag, *extra, cache_dir=cache, fmt="sarif"):
        out = os.path.join(tmp, f"{tag}.{fmt}")
        stats = os.path.join(tmp, f"{tag}.stats.json")
        args = [lint, "-p", src, "--format=" + fmt, "--output=" + out, "--run-stats-json=" + stats, "-j2"]
        if cache_dir is not None:
            args.append("--cache-dir=" + cache_dir)
        start = time.monotonic()
        p = subprocess.run(args + list(extra), capture_output=True, text=True, cwd=tmp)
        wall = time.monotonic() - start
        with open(stats) as f:
            s = json.load(f)
        with open(out, "rb") as f:
            body = f.read()
        return p, body, s, wall

    p0, fresh, s0, t0 = run("fresh", cache_dir=None)
    check("a run without the cache finds something", p0.returncode == 1 and b"syncwatch-implicit-sync" in fresh, p0.stderr)
    p1, first, s1, t1 = run("first")
    check("first run: every unit is a miss", (s1["cacheHits"], s1["cacheMisses"]) == (0, 3), s1)
    check("first run: the report equals the run without the cache", first == fresh)
    p2, second, s2, t2 = run("second")
    check("second run: every unit is a hit", (s2["cacheHits"], s2["cacheMisses"]) == (3, 0), s2)
    check("second run: the same report byte for byte", second == fresh)
    check("second run: the same exit code", p2.returncode == p0.returncode, (p2.returncode, p0.returncode))
    print(f"info first run {t1:.2f} s, second run {t2:.2f} s, ratio {t2 / t1:.3f}")
    check("second run costs well under the first", t2 < 0.5 * t1, (t1, t2))
    for fmt in ("text", "json"):
        a = run("fresh-" + fmt, cache_dir=None, fmt=fmt)[1]
        b = run("cached-" + fmt, fmt=fmt)[1]
        check(f"{fmt} report from the cache equals a fresh one", a == b)

    # One header changes: exactly the two units that include it are analyzed again.
    with open(os.path.join(src, "include", "common.h"), "a") as f:
        f.write("__global__ void unused_kernel(float *p) { p[0] = 0.f; }\n")
    p3, third, s3, _ = run("third")
    check("a changed header re-lints exactly its two includers", (s3["cacheHits"], s3["cacheMisses"]) == (1, 2), s3)
    refreshed = run("fresh2", cache_dir=None)[1]
    check("after the change the report equals a fresh one", third == refreshed)
    # A changed flag is another key.
    p4, _, s4, _ = run("flags", "--extra-arg=-DSYNCWATCH_TEST_FLAG=1")
    check("a changed flag re-lints every unit", s4["cacheMisses"] == 3, s4)
    # Another set of checks is another key too.
    p5, _, s5, _ = run("checks", "--checks=syncwatch-implicit-sync")
    check("other checks re-lint every unit", s5["cacheMisses"] == 3, s5)

    # A damaged entry is a miss and is rewritten.
    entries = [os.path.join(d, f) for d, _, fs in os.walk(cache) for f in fs if f.endswith(".json")]
    for e in entries:
        with open(e, "w") as f:
            f.write("{not json")
    p6, damaged, s6, _ = run("damaged")
    check("damaged entries are misses, the report is intact", s6["cacheMisses"] == 3 and damaged == refreshed, s6)
    check("damaged entries were rewritten", run("after-damage")[2]["cacheHits"] == 3)

    # Parallel writers sharing one directory (CI shards): every report intact.
    shared = os.path.join(tmp, "shared-cache")
    results = {}

    def worker(i):
        results[i] = run(f"par{i}", cache_dir=shared)[1]

    threads = [threading.Thread(target=worker, args=(i,)) for i in range(3)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    check("three runs writing one cache at once give the fresh report", all(r == refreshed for r in results.values()))
    leftovers = [f for d, _, fs in os.walk(shared) for f in fs if ".tmp-" in f]
    check("no temporary files are left behind", not leftovers, leftovers)

    # An unusable cache directory: a warning, and the report as without it.
    blocker = os.path.join(tmp, "a-file")
    with open(blocker, "w") as f:
        f.write("x")
    p7, blocked, _, _ = run("blocked", cache_dir=os.path.join(blocker, "cache"))
    check("an unusable cache directory is one warning", "cache" in p7.stderr and "continuing without it" in p7.stderr, p7.stderr)
    check("... and the report is intact", blocked == refreshed and p7.returncode == p0.returncode)

finish()
