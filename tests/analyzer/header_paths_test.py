#!/usr/bin/env python3
"""One name per header in syncwatch-lint's reports, whichever unit's -I found it.

AMGX's src/ units find their headers through `-I<root>/src/../include` and its examples/
through `-I<root>/examples/../include`: a finding in a shared header was reported twice,
once under each spelling, and a baseline or a hand label written against include/x.h matched
neither (docs/field-test.md: four "lost" true positives were this). The places are now
named without `.` and `..` where that names the same file; after a symbolic link, where `..`
goes up from the link's target, the spelling is kept.
  header_paths_test.py SYNCWATCH-LINT"""
import json
import os
import subprocess
import sys
import tempfile

sys.path[:0] = [os.path.dirname(os.path.abspath(__file__)),  # this folder, and tests/ (harness.py)
                os.path.dirname(os.path.dirname(os.path.abspath(__file__)))]
from harness import check, finish  # noqa: E402

lint = sys.argv[1]

HALO = """#pragma once
#include <cuda_runtime.h>

__global__ void fill_halo(float *halo, int n, float v) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) halo[i] = v;
}

// Clears the halo before an exchange: launched with no stream, on the legacy one.
inline void reset_halo(float *d_halo, int n, cudaStream_t stream) {
  fill_halo<<<(n + 127) / 128, 128>>>(d_halo, n, 0.0f);
  cudaStreamSynchronize(stream);
}

void exchange_halo(float *d_halo, int n, cudaStream_t stream);  // in the communication library

// Fills the halo on the caller's stream and hands it on while the fill may still run.
inline void post_halo(float *d_halo, int n, cudaStream_t stream) {
  fill_halo<<<(n + 127) / 128, 128, 0, stream>>>(d_halo, n, 1.0f);
  exchange_halo(d_halo, n, stream);
}
"""
# A timer every unit includes: its legacy-stream event record serializes with the blocking
# stream demo.cu creates (a warning there) and is a note where no unit stream exists.
TIMER = """#pragma once
#include <cuda_runtime.h>
inline void mark(cudaEvent_t e) { cudaEventRecord(e); }
"""
SOLVER = """#include "halo.h"
#include "timer.h"

void solve_step(float *d_halo, int n, cudaStream_t stream) {
  reset_halo(d_halo, n, stream);
  post_halo(d_halo, n, stream);
}
"""
DEMO = """#include "halo.h"
#include "timer.h"

int main() {
  float *d_halo = nullptr;
  cudaStream_t stream;
  cudaStreamCreate(&stream);
  cudaMalloc(&d_halo, 1024 * sizeof(float));
  cudaEvent_t done;
  cudaEventCreate(&done);
  reset_halo(d_halo, 1024, stream);
  mark(done);
  cudaFree(d_halo);
  return 0;
}
"""
# A unit with no stream of its own that marks the timer: a note there.
STATS = """#include "timer.h"

void clear_stats(float *d_stats, int n, cudaEvent_t cleared) {
  cudaMemset(d_stats, 0, n * sizeof(float));
  mark(cleared);
}
"""
# A vendored package reached through a symbolic link: vendor/pkg -> third_party/pkg/inc, and
# its sibling headers through `vendor/pkg/../common`, which is third_party/pkg/common on disk.
# vendor/common/ is another directory, with a header of the same name and no CUDA call.
VENDOR_COMMON = """#pragma once
#include <cuda_runtime.h>
inline void vendor_sync_all() { cudaDeviceSynchronize(); }
inline void vendor_clear(float *d, int n) {
  cudaMemset(d, 0, n * sizeof(float));  // legacy stream
}
"""
DECOY = """#pragma once
inline void vendor_sync_all() {}
inline void vendor_clear(float *, int) {}
"""
VENDORED = """#include "halo_common.h"

void pack(float *d, int n, cudaStream_t s) {
  cudaMemsetAsync(d, 1, n * sizeof(float), s);
  vendor_clear(d, n);
}
"""


def write(path, text):
    os.makedirs(os.path.dirname(path), exist_ok=True)
    open(path, "w").write(text)


def lint_json(build, *extra):
    r = subprocess.run([lint, "-p", build, "--format=json", "--cuda-path=/usr/local/cuda", *extra],
                       capture_output=True, text=True, timeout=600)
    try:
        return r, json.loads(r.stdout)
    except json.JSONDecodeError:
        return r, {"findings": [], "errors": [r.stderr[-400:]]}


with tempfile.TemporaryDirectory() as d:
    root = os.path.join(d, "proj")
    write(os.path.join(root, "include", "halo.h"), HALO)
    write(os.path.join(root, "include", "timer.h"), TIMER)
    write(os.path.join(root, "src", "solver.cu"), SOLVER)
    write(os.path.join(root, "examples", "demo.cu"), DEMO)
    write(os.path.join(root, "tools", "relative.cu"), SOLVER.replace("solve_step", "tool_step"))
    write(os.path.join(root, "tools", "stats.cu"), STATS)
    write(os.path.join(root, "third_party", "pkg", "common", "halo_common.h"), VENDOR_COMMON)
    os.makedirs(os.path.join(root, "third_party", "pkg", "inc"))
    os.makedirs(os.path.join(root, "vendor"))
    os.symlink(os.path.join(root, "third_party", "pkg", "inc"), os.path.join(root, "vendor", "pkg"))
    write(os.path.join(root, "vendor", "common", "halo_common.h"), DECOY)
    write(os.path.join(root, "src", "pack.cu"), VENDORED)
    nvcc = "/usr/local/cuda/bin/nvcc -arch=sm_90 -O2"
    entries = [
        {"directory": f"{root}/src", "file": "solver.cu", "command": f"{nvcc} -I{root}/src/../include -c solver.cu"},
        {"directory": f"{root}/examples", "file": "demo.cu",
         "command": f"{nvcc} -I{root}/examples/./../include -c demo.cu"},
        {"directory": f"{root}/tools", "file": "relative.cu", "command": f"{nvcc} -I../include -c relative.cu"},
        {"directory": f"{root}/tools", "file": "stats.cu", "command": f"{nvcc} -I../include -c stats.cu"},
        {"directory": f"{root}/src", "file": "pack.cu", "command": f"{nvcc} -I{root}/vendor/pkg/../common -c pack.cu"},
    ]
    build = os.path.join(d, "build")
    os.makedirs(build)
    json.dump(entries, open(os.path.join(build, "compile_commands.json"), "w"), indent=1)

    r, doc = lint_json(build)
    check("5 units, no tool error", doc.get("filesAnalyzed") == 5 and not doc.get("errors"), doc.get("errors"))
    files = [f["location"]["file"] for f in doc["findings"]]
    halo = [f for f in doc["findings"] if f["location"]["file"].endswith("halo.h") and
            f["rule"] == "syncwatch-default-stream"]
    want = os.path.join(root, "include", "halo.h")
    check("the shared header's launch, found by three units through three spellings, is reported once",
          len(halo) == 1 and halo[0]["location"]["line"] == 11,
          [(f["location"]["file"], f["location"]["line"], f["rule"]) for f in halo])
    check("... under the header's own name", [f["location"]["file"] for f in halo] == [want], files)
    timer = [(f["severity"], f["location"]["line"]) for f in doc["findings"]
             if f["location"]["file"].endswith("timer.h") and f["rule"] == "syncwatch-default-stream"]
    check("the timer's event record: a warning where a blocking stream exists, a note elsewhere - one "
          "place, reported once, as the warning", timer == [("warning", 3)], timer)
    # Through the link, `..` is third_party/pkg (where the memset is), not vendor/ (the decoy).
    vendored = [f for f in doc["findings"] if f["location"]["file"].endswith("halo_common.h")]
    spelled = f"{root}/vendor/pkg/../common/halo_common.h"
    check("after a symbolic link the spelling is kept: vendor/common/ is another file",
          vendored and all(f["location"]["file"] == spelled for f in vendored),
          [(f["location"]["file"], f["location"]["line"]) for f in vendored])
    check("the vendored header's legacy memset is found (the file the unit really read)",
          any(f["location"]["line"] == 5 for f in vendored), [f["location"]["line"] for f in vendored])
    evidence = [e["location"]["file"] for f in doc["findings"] for e in f.get("evidence", []) if "location" in e]
    check("no evidence place keeps a `..` that names the same file",
          all("/../" not in p and "/./" not in p for p in evidence + files if p != spelled), evidence + files)

    # SARIF: the artifact is named once, without `..`.
    r = subprocess.run([lint, "-p", build, "--format=sarif", "--cuda-path=/usr/local/cuda"],
                       capture_output=True, text=True, timeout=600)
    uris = [loc["physicalLocation"]["artifactLocation"]["uri"] for run in json.loads(r.stdout)["runs"]
            for res in run["results"] for loc in res["locations"]]
    check("SARIF names the shared header once, without `..`",
          sum(u.endswith("include/halo.h") for u in uris) == 1 and not any("include/../" in u or "src/../" in u
                                                                          for u in uris), uris)

    # The cross-unit summaries name places the same way: post_halo's call of exchange_halo,
    # with the fill in flight, is a place in the header.
    summaries = os.path.join(d, "summaries.json")
    r, _ = lint_json(build, f"--write-summaries={summaries}")
    text = open(summaries).read() if os.path.exists(summaries) else ""
    check("the summaries name the header without `..`", "include/halo.h" in text and "/../include" not in text,
          text[:400])

finish()
