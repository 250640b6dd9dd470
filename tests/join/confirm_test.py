#!/usr/bin/env python3
"""`syncwatch confirm` joins syncwatch-lint's SARIF with what the runtime measured on an
H200. The two GPU programs (tests/gpu/runtime_probe.cu, confirm_probe.cu) are linted in a
checkout at another path than the one they were recorded in, then confirmed against their
committed recordings and the library's own JSON report:
  confirmed      the free, the pageable copies, the legacy launch, the per-iteration sync,
                 and the blocking stream whose work held the launch at :67 (causal link);
  not-observed   the per-tile sync that ran 64 times and never stalled;
  not-exercised  the verification copy the recorded run skipped;
  runtime-only   the registered-then-unregistered copy at runtime_probe.cu:88.
Also: SARIF with properties.syncwatch.status, ranks by cost, the lint's fingerprints; the
gate; --path-map; and bad input (exit 2, one line, nothing written).
  confirm_test.py SYNCWATCH SYNCWATCH-LINT REPO_ROOT SARIF_SCHEMA"""
import json
import os
import shutil
import sys
import tempfile

sys.path[:0] = [os.path.dirname(os.path.abspath(__file__)),  # this folder, and tests/ (harness.py)
                os.path.dirname(os.path.dirname(os.path.abspath(__file__)))]
from harness import check, finish, run  # noqa: E402

tool, lint, root, schema = sys.argv[1:5]
rt = os.path.join(root, "test_inputs", "runtime")
recs = [os.path.join(rt, "h200_runtime_probe.swrec"), os.path.join(rt, "h200_confirm_probe.swrec")]
report = os.path.join(rt, "confirm", "h200_confirm_probe.report.json")


def statuses(doc):
    return {(os.path.basename(f["location"]["file"]), f["location"]["line"]): f["evidence"]["syncwatch.status"]
            for f in doc["findings"]}


with tempfile.TemporaryDirectory() as d:
    # Another checkout: same layout, another prefix than the recordings' (/work/main).
    repo = os.path.join(d, "ci-workspace", "syncwatch")
    os.makedirs(os.path.join(repo, "tests", "gpu"))
    os.makedirs(os.path.join(repo, ".git"))
    for f in ("runtime_probe.cu", "confirm_probe.cu"):
        shutil.copy(os.path.join(root, "tests", "gpu", f), os.path.join(repo, "tests", "gpu", f))
    sarif = os.path.join(d, "lint.sarif")
    r = run(lint, "--format=sarif", f"--output={sarif}", "tests/gpu/runtime_probe.cu", "tests/gpu/confirm_probe.cu",
            "--", "--cuda-path=/usr/local/cuda", cwd=repo)
    check("syncwatch-lint over the checkout: findings (exit 1)", r.returncode == 1, r.stderr[-300:])
    lint_fps = {(os.path.basename(x["locations"][0]["physicalLocation"]["artifactLocation"]["uri"]),
                 x["locations"][0]["physicalLocation"]["region"]["startLine"]): x["partialFingerprints"]["syncwatch/v1"]
                for x in json.load(open(sarif))["runs"][0]["results"]}

    r = run(tool, "confirm", "--static", sarif, "--runtime", *recs, "--format=json")
    check("confirm: exit 1 (confirmed stalls fail the default gate)", r.returncode == 1, r.stderr)
    doc = json.loads(r.stdout)
    st = statuses(doc)
    want = {("runtime_probe.cu", 37): "confirmed", ("runtime_probe.cu", 46): "confirmed",
            ("runtime_probe.cu", 47): "confirmed", ("runtime_probe.cu", 67): "confirmed",
            ("runtime_probe.cu", 74): "confirmed", ("runtime_probe.cu", 103): "confirmed",
            ("confirm_probe.cu", 56): "confirmed", ("confirm_probe.cu", 44): "not-observed",
            ("confirm_probe.cu", 48): "not-exercised", ("runtime_probe.cu", 88): "runtime-only"}
    for k, v in want.items():
        check(f"{k[0]}:{k[1]} {v}", st.get(k) == v, st.get(k))
    check("no other results", set(st) == set(want), sorted(set(st) - set(want)))
    by = {(os.path.basename(f["location"]["file"]), f["location"]["line"]): f for f in doc["findings"]}
    bs = by[("runtime_probe.cu", 103)]["evidence"]
    check("the blocking stream is confirmed through the launch it held", bs.get("syncwatch.runtimeLine") == "67"
          and "held" in bs.get("syncwatch.via", "") and float(bs.get("syncwatch.totalMs", 0)) > 40, bs)
    no = by[("confirm_probe.cu", 44)]["evidence"]
    check("not-observed says how often the line ran", no.get("syncwatch.count") == "64", no)
    fr = by[("confirm_probe.cu", 56)]["evidence"]
    check("confirmed carries the measured cost and the GPU", float(fr["syncwatch.totalMs"]) > 25 and
          fr.get("syncwatch.gpu", "").startswith("GPU-"), fr)
    costs = [float(f["evidence"].get("syncwatch.totalMs", f["evidence"].get("totalMs", 0)))
             if f["evidence"]["syncwatch.status"] in ("confirmed", "runtime-only") else 0 for f in doc["findings"]]
    check("results ranked by measured cost", costs == sorted(costs, reverse=True), costs)

    # The library's own JSON report (coverage written by libsyncwatch, not by a replay).
    r = run(tool, "confirm", "--static", sarif, "--runtime", report, "--format=json")
    st2 = statuses(json.loads(r.stdout))
    check("the library's JSON report: the same statuses for its program",
          st2.get(("confirm_probe.cu", 44)) == "not-observed" and st2.get(("confirm_probe.cu", 48)) == "not-exercised"
          and st2.get(("confirm_probe.cu", 56)) == "confirmed", st2)

    # A release build (nvcc -O3, no line tables): its sites are function+offset. The lint
    # names each result's function (SARIF logicalLocations), and confirm joins by it.
    res0 = json.load(open(sarif))["runs"][0]["results"]
    logical = {(os.path.basename(x["locations"][0]["physicalLocation"]["artifactLocation"]["uri"]),
                x["locations"][0]["physicalLocation"]["region"]["startLine"]):
               x["locations"][0].get("logicalLocations", [{}])[0] for x in res0}
    fl = logical.get(("runtime_probe.cu", 37), {})
    check("lint SARIF: logicalLocations name the enclosing function, qualified and mangled",
          fl.get("fullyQualifiedName") == "free_while_busy" and fl.get("kind") == "function"
          and fl.get("decoratedName", "").startswith("_Z15free_while_busy"), fl)
    cache = os.path.join(d, "cache")
    for i in range(2):
        cs = os.path.join(d, f"cached{i}.sarif")
        r = run(lint, "--format=sarif", f"--output={cs}", f"--cache-dir={cache}", "tests/gpu/runtime_probe.cu",
                "--", "--cuda-path=/usr/local/cuda", cwd=repo)
    cres = json.load(open(cs))["runs"][0]["results"]
    check("lint SARIF from the result cache keeps the functions",
          all(x["locations"][0].get("logicalLocations") for x in cres) and len(cres) == 6, cres[0]["locations"][0])
    release = os.path.join(rt, "h200_probe_release_build.swrec")
    r = run(tool, "confirm", "--static", sarif, "--runtime", release, "--format=json")
    check("release build: confirm joins (exit 1, no 'share no source file')", r.returncode == 1, r.stderr)
    rel = {}
    for f in json.loads(r.stdout or "{}").get("findings", []):
        rel[(os.path.basename(f["location"]["file"]), f["location"]["line"])] = f["evidence"]
    for line in (37, 67, 74):
        e = rel.get(("runtime_probe.cu", line), {})
        check(f"release build: runtime_probe.cu:{line} confirmed by function", e.get("syncwatch.status") == "confirmed"
              and e.get("syncwatch.matchedBy") == "function" and float(e.get("syncwatch.totalMs", 0)) > 40, e)
    h2d, d2h = rel.get(("runtime_probe.cu", 46), {}), rel.get(("runtime_probe.cu", 47), {})
    check("release build: two copies in one function are an ambiguous match, said so, paired in source order",
          "ambiguous: 2 calls of 'cudaMemcpyAsync' in pageable_async_copies()" in h2d.get("syncwatch.matchedBy", "")
          and "ambiguous" in d2h.get("syncwatch.matchedBy", "")
          and h2d.get("syncwatch.runtimeFunction", "").startswith("pageable_async_copies+0xc6")
          and d2h.get("syncwatch.runtimeFunction", "").startswith("pageable_async_copies+0xe8"), (h2d, d2h))
    only = [e for k, e in rel.items() if e.get("syncwatch.status") == "runtime-only"]
    check("release build: the unregistered copy (no static result in its function) is runtime-only",
          len(only) == 1 and "unregistered_is_pageable_again" in only[0].get("function", ""), only)
    msgs = [f["message"] for f in json.loads(r.stdout or "{}").get("findings", [])
            if f["evidence"].get("syncwatch.matchedBy")]
    check("release build: each message says the match was by function",
          len(msgs) == 5 and all("matched by function (no line table" in m for m in msgs), msgs[:1])

    # The sources each side read: a replay of the recording made here (--path-map into this
    # checkout) names the same files as the lint, with the same SHA-256: nothing said. After
    # an edit to one of them, confirm says that the checkout and the program disagree.
    rep = os.path.join(d, "here.json")
    r = run(tool, "replay", "--format", "json", "--path-map", "/work/main/=" + repo + "/", recs[0])
    open(rep, "w").write(r.stdout)
    arts = json.loads(r.stdout).get("artifacts", [])
    check("a runtime report lists the sources it names, with their SHA-256",
          any(a["file"].endswith("tests/gpu/runtime_probe.cu") and len(a.get("sha256", "")) == 64 for a in arts), arts)
    r = run(tool, "confirm", "--static", sarif, "--runtime", rep)
    check("same sources on both sides: no warning", r.returncode == 1 and "differs" not in r.stderr, r.stderr)
    probe = os.path.join(repo, "tests", "gpu", "runtime_probe.cu")
    kept = open(probe).read()
    open(probe, "a").write("// an edit after the lint ran\n")
    rep2 = os.path.join(d, "edited.json")
    open(rep2, "w").write(run(tool, "replay", "--format", "json", "--path-map", "/work/main/=" + repo + "/", recs[0]).stdout)
    open(probe, "w").write(kept)
    r = run(tool, "confirm", "--static", sarif, "--runtime", rep2)
    check("an edited source: confirm says the lint's checkout and the program's differ, and still joins",
          r.returncode == 1 and "tests/gpu/runtime_probe.cu differs between the checkout the lint analyzed" in r.stderr
          and "1 source file(s) differ" in r.stdout, (r.stderr, r.stdout[:300]))
    r = run(tool, "confirm", "--static", sarif, "--runtime", rep2, "--format", "json")
    figs = json.loads(r.stdout).get("figures", {})
    check("... and the JSON says which (figures.sourcesDiffer)", figs.get("sourcesDiffer", "").endswith("runtime_probe.cu"), figs)

    out = os.path.join(d, "confirm.sarif")
    r = run(tool, "confirm", "--static", sarif, "--runtime", *recs, "--format", "sarif", "--output", out)
    log = json.load(open(out))
    res = log["runs"][0]["results"]
    check("SARIF: every result has properties.syncwatch.status and a rank",
          all(x["properties"]["syncwatch"]["status"] and "rank" in x for x in res), res[0].get("properties"))
    ranks = [x["rank"] for x in res]
    check("SARIF: ranks 0-100, costliest first", ranks == sorted(ranks, reverse=True) and 0 <= min(ranks) and max(ranks) == 100, ranks)
    keep = all(x["partialFingerprints"]["syncwatch/v1"] ==
               lint_fps[(os.path.basename(x["locations"][0]["physicalLocation"]["artifactLocation"]["uri"]),
                         x["locations"][0]["physicalLocation"]["region"]["startLine"])]
               for x in res if x["properties"]["syncwatch"]["status"] != "runtime-only")
    check("SARIF: static results keep the lint's fingerprints", keep)
    uri = next(x for x in res)["locations"][0]["physicalLocation"]["artifactLocation"]
    check("SARIF: repo-relative URIs under %SRCROOT% (the lint's root)", uri.get("uriBaseId") == "%SRCROOT%"
          and os.path.exists(os.path.join(repo, uri["uri"])), uri)
    try:
        import jsonschema
        jsonschema.validate(log, json.load(open(schema)))
        check("SARIF: valid against the 2.1.0 schema", True)
    except ImportError:
        print("skip SARIF schema validation: no jsonschema")
    except Exception as e:  # noqa: BLE001
        check("SARIF: valid against the 2.1.0 schema", False, str(e)[:300])

    # The gate.
    def gate(*extra):
        return run(tool, "confirm", "--static", sarif, "--runtime", *recs, *extra).returncode
    check("--fail-on=confirmed: 1", gate("--fail-on=confirmed") == 1)
    check("--min-cost-ms above every stall: 0 (nothing confirmed)", gate("--min-cost-ms", "100000") == 0)
    check("--fail-on=runtime with only runtime-only above the bar: 1", gate("--fail-on=runtime", "--min-cost-ms=1") == 1)
    check("--fail-on=warning: 1", gate("--fail-on", "warning") == 1)
    text = run(tool, "confirm", "--static", sarif, "--runtime", *recs).stdout
    check("text: one line per result with its status", "confirmed     tests/gpu/runtime_probe.cu:37" in text and
          "not-exercised tests/gpu/confirm_probe.cu:48" in text and "runtime-only  tests/gpu/runtime_probe.cu:88" in text, text)

    # --path-map: a runtime path that shares no suffix with the checkout.
    moved = json.load(open(report))
    for f in moved["findings"]:
        f["location"]["file"] = f["location"]["file"].replace("/work/main/tests/gpu/confirm_probe.cu", "/gpu/build/cp.cu")
    for c in moved["coverage"]:
        for k in ("file", "nativeFile"):
            c[k] = c.get(k, "").replace("/work/main/tests/gpu/confirm_probe.cu", "/gpu/build/cp.cu")
    moved_path = os.path.join(d, "moved.json")
    json.dump(moved, open(moved_path, "w"))
    r = run(tool, "confirm", "--static", sarif, "--runtime", moved_path, "--format=json")
    check("a runtime path with no common suffix: not matched (an error: no shared file)", r.returncode == 2, r.stderr)
    target = os.path.join(repo, "tests", "gpu", "confirm_probe.cu")
    r = run(tool, "confirm", "--static", sarif, "--runtime", moved_path, "--format=json", f"--path-map=/gpu/build/cp.cu={target}")
    st3 = statuses(json.loads(r.stdout)) if r.stdout else {}
    check("--path-map OLD=NEW: matched", st3.get(("confirm_probe.cu", 56)) == "confirmed"
          and st3.get(("confirm_probe.cu", 44)) == "not-observed", r.stderr or st3)

    # A call written over two lines: the runtime's line table may name the second.
    two = json.load(open(report))
    for f in two["findings"]:
        if f["location"]["line"] == 56:
            f["location"]["line"] = 57
    for c in two["coverage"]:
        if c["line"] == 56:
            c["line"] = c["nativeLine"] = 57
    two_path = os.path.join(d, "two-lines.json")
    json.dump(two, open(two_path, "w"))
    spread = json.load(open(sarif))
    for x in spread["runs"][0]["results"]:
        reg = x["locations"][0]["physicalLocation"]["region"]
        if x["locations"][0]["physicalLocation"]["artifactLocation"]["uri"].endswith("confirm_probe.cu") and reg["startLine"] == 56:
            reg["endLine"] = 57
    spread_path = os.path.join(d, "spread.sarif")
    json.dump(spread, open(spread_path, "w"))
    st4 = statuses(json.loads(run(tool, "confirm", "--static", spread_path, "--runtime", two_path, "--format=json").stdout))
    st5 = statuses(json.loads(run(tool, "confirm", "--static", sarif, "--runtime", two_path, "--format=json").stdout))
    check("a call over two lines matches the runtime's second line", st4.get(("confirm_probe.cu", 56)) == "confirmed"
          and st5.get(("confirm_probe.cu", 56)) != "confirmed", f"{st4.get(('confirm_probe.cu', 56))} {st5.get(('confirm_probe.cu', 56))}")

    # Bad input.
    def bad(name, args, expect):
        target = os.path.join(d, "never.sarif")
        r = run(tool, "confirm", *args, "--output", target)
        lines = r.stderr.strip().splitlines()
        check(name + ": exit 2, one line, nothing written", r.returncode == 2 and len(lines) == 1 and expect in lines[0]
              and not os.path.exists(target), f"{r.returncode} {r.stderr!r}")
    bad("a missing static file", ["--static", os.path.join(d, "no.sarif"), "--runtime", *recs], "cannot read")
    runtime_sarif = os.path.join(d, "runtime.sarif")
    open(runtime_sarif, "w").write(run(tool, "replay", "--format=sarif", recs[0]).stdout)
    bad("SARIF from another tool as --static", ["--static", runtime_sarif, "--runtime", *recs], "not of syncwatch-lint")
    mp = os.path.join(rt, "multiprocess")
    other = [os.path.join(mp, f) for f in sorted(os.listdir(mp)) if f.endswith(".swrec")]
    bad("a report of a different program", ["--static", sarif, "--runtime", *other], "share no source file")
    empty = os.path.join(d, "empty.swrec")
    open(empty, "w").close()
    bad("an empty recording", ["--static", sarif, "--runtime", empty], "empty")
    bad("a missing runtime report", ["--static", sarif, "--runtime", os.path.join(d, "gone.json")], "cannot read")
    r = run(tool, "confirm", "--static", sarif, "--runtime", *recs, "--output", "/nonexistent/dir/c.sarif")
    check("an unwritable --output: exit 2", r.returncode == 2 and "/nonexistent/dir/c.sarif" in r.stderr, r.stderr)
    r = run(tool, "confirm", "--static", sarif)
    check("no --runtime: exit 2", r.returncode == 2, r.stderr)
    r = run(tool, "confirm", "--help")
    check("confirm --help: exit 0", r.returncode == 0 and "usage: syncwatch confirm" in r.stdout)
    r = run(tool, "confirm", "--static", sarif, "--runtime", *recs, "--fail-on=never")
    check("a bad --fail-on: exit 2, one line", r.returncode == 2 and len(r.stderr.strip().splitlines()) == 1, r.stderr)

# Public programs (NVIDIA/CUDALibrarySamples at 34377293 and NVIDIA-developer-blog/code-samples
# at 72d62ec, built with -O3 and host line tables and run on the H200: tests/gpu/public_programs.sh):
# the lint's SARIF over each build's compile database and the run's recording (or its report,
# where the recording is large) are committed with the statuses they give.
public = os.path.join(rt, "public")
for name in sorted(os.listdir(public)):
    d = os.path.join(public, name)
    want = sorted(l.split() for l in open(os.path.join(d, "expected.txt")) if l.strip())
    runtime = next(p for p in (os.path.join(d, "recording.swrec"), os.path.join(d, "report.json")) if os.path.exists(p))
    r = run(tool, "confirm", "--static", os.path.join(d, "lint.sarif"), "--runtime", runtime, "--format=json")
    got = sorted([f["evidence"]["syncwatch.status"], f"{os.path.basename(f['location']['file'])}:{f['location']['line']}",
                  f["rule"]] for f in json.loads(r.stdout)["findings"]) if r.stdout else []
    # (exit 1: --fail-on=confirmed, confirm's default, and a finding is confirmed)
    rc_want = 1 if any(w[0] == "confirmed" for w in want) else 0
    check(f"{name}: the committed statuses", r.returncode == rc_want and got == want, f"{r.returncode} {got} {r.stderr}")
    if not any(w[2] == "syncwatch-pageable-async-copy" and w[0] not in ("not-exercised", "runtime-only") for w in want):
        continue
    # Every pageable copy the program ran cost microseconds: under the default 1 ms they are
    # not-observed, with no threshold confirmed (cuSOLVER_getrf's are written in a checking
    # macro's argument on the line after CUDA_CHECK(, which is the line the runtime names).
    r0 = run(tool, "confirm", "--static", os.path.join(d, "lint.sarif"), "--runtime", runtime,
             "--format=json", "--min-cost-ms=0")
    st0 = [f["evidence"]["syncwatch.status"] for f in json.loads(r0.stdout)["findings"]
           if f["rule"] == "syncwatch-pageable-async-copy" and f["evidence"]["syncwatch.status"] not in ("not-exercised", "runtime-only")]
    check(f"{name}: with --min-cost-ms=0 its microsecond pageable copies are confirmed", st0 and all(x == "confirmed" for x in st0)
          and r0.returncode == 1, st0)
# The join's headline cases from those programs, by hand: a cudaFree in the main thread that
# waited 6.3 s for other threads' kernels, which no static rule can see (the work is in
# another thread), and a synchronous copy that waited 307 ms for a kernel.
for name, line, rule, least_ms in (("cs_vmm_sync", 148, "syncwatch-implicit-sync", 1000),
                                   ("cs_gups", 589, "syncwatch-sync-memcpy", 100)):
    d = os.path.join(public, name)
    runtime = next(p for p in (os.path.join(d, "recording.swrec"), os.path.join(d, "report.json")) if os.path.exists(p))
    r = run(tool, "confirm", "--static", os.path.join(d, "lint.sarif"), "--runtime", runtime, "--format=json")
    hit = [f for f in json.loads(r.stdout)["findings"] if f["location"]["line"] == line and f["rule"] == rule]
    check(f"{name}: the stall at line {line} is runtime-only, with its cost", len(hit) == 1
          and hit[0]["evidence"]["syncwatch.status"] == "runtime-only"
          and float(hit[0]["evidence"].get("totalMs", 0)) >= least_ms, hit)

# A program whose files the lint analyzed and found clean (issue 21: three public programs got
# "share no source file" and no table): the lint's SARIF lists every file it read under the
# source root (run.artifacts, with SHA-256), and confirm places the program's runtime findings
# there as runtime-only. Here the lint runs one check only, which finds nothing in
# runtime_probe.cu and two results in another file of the checkout.
with tempfile.TemporaryDirectory() as d:
    repo = os.path.join(d, "ws", "proj")
    os.makedirs(os.path.join(repo, "tests", "gpu"))
    os.makedirs(os.path.join(repo, ".git"))
    shutil.copy(os.path.join(root, "tests", "gpu", "runtime_probe.cu"), os.path.join(repo, "tests", "gpu"))
    shutil.copy(os.path.join(root, "test_inputs", "static", "sm_pos_single_stream_fixable.cu"), os.path.join(repo, "other.cu"))
    sarif = os.path.join(d, "clean.sarif")
    r = run(lint, "--checks=-*,syncwatch-sync-memcpy", "--format=sarif", f"--output={sarif}", "other.cu",
            "tests/gpu/runtime_probe.cu", "--", "--cuda-path=/usr/local/cuda", cwd=repo)
    log = json.load(open(sarif))["runs"][0]
    uris = {a["location"]["uri"]: a for a in log.get("artifacts", [])}
    files = {x["locations"][0]["physicalLocation"]["artifactLocation"]["uri"] for x in log["results"]}
    check("the lint's SARIF lists the clean file among its artifacts, with a SHA-256",
          "tests/gpu/runtime_probe.cu" in uris and len(uris["tests/gpu/runtime_probe.cu"]["hashes"]["sha-256"]) == 64
          and files == {"other.cu"}, (sorted(uris), files))
    r = run(tool, "confirm", "--static", sarif, "--runtime", recs[0], "--format=json")
    doc = json.loads(r.stdout) if r.stdout else {"findings": []}
    rt_only = sorted(f["location"]["line"] for f in doc["findings"] if f["evidence"]["syncwatch.status"] == "runtime-only"
                     and f["location"]["file"].endswith("tests/gpu/runtime_probe.cu"))
    check("confirm over a clean program: a table (not exit 2), its stalls runtime-only in the analyzed file",
          r.returncode in (0, 1) and {37, 46, 47, 67, 74}.issubset(rt_only), f"rc={r.returncode} {rt_only} {r.stderr}")
    # Only a report of a program none of whose files were analyzed is still an error.
    os.remove(os.path.join(repo, "tests", "gpu", "runtime_probe.cu"))
    r = run(lint, "--checks=-*,syncwatch-sync-memcpy", "--format=sarif", f"--output={sarif}", "other.cu",
            "--", "--cuda-path=/usr/local/cuda", cwd=repo)
    r = run(tool, "confirm", "--static", sarif, "--runtime", recs[0])
    check("confirm with a program none of whose files were analyzed: exit 2, said", r.returncode == 2
          and "share no source file" in r.stderr, r.stderr)
    # A merged SARIF (shards) keeps the artifacts.
    merged = os.path.join(d, "merged.sarif")
    r = run(lint, "merge", f"--output={merged}", sarif, sarif)
    check("syncwatch-lint merge keeps run.artifacts (once each)",
          [a["location"]["uri"] for a in json.load(open(merged))["runs"][0].get("artifacts", [])] == ["other.cu"], r.stderr)

# A call in a checking macro's argument, written on the line after the macro's name: the lint
# reports the call's own line and gives the invocation's lines as the result's contextRegion,
# and confirm joins a runtime site at the invocation's first line (what nvcc's and gcc's line
# tables name) to it: no runtime-only twin.
with tempfile.TemporaryDirectory() as d:
    src = os.path.join(d, "upload.cu")
    with open(src, "w") as f:
        f.write("""#include <cuda_runtime.h>
#include <cstdio>
#include <cstdlib>
#include <vector>
#define CUDA_CHECK(call) do { cudaError_t e_ = (call); if (e_ != cudaSuccess) { std::printf("%s\\n", cudaGetErrorString(e_)); std::exit(1); } } while (0)

void upload(double *d_A, const std::vector<double> &A, cudaStream_t stream) {
    CUDA_CHECK(
        cudaMemcpyAsync(d_A, A.data(), sizeof(double) * A.size(), cudaMemcpyHostToDevice, stream));
    CUDA_CHECK(cudaMemcpyAsync(d_A, A.data(), sizeof(double) * A.size(), cudaMemcpyHostToDevice, stream));
}
""")
    sarif = os.path.join(d, "lint.sarif")
    r = run(lint, "--checks=-*,syncwatch-pageable-async-copy", "--format=sarif", f"--output={sarif}", src, "--",
            "--cuda-path=/usr/local/cuda", cwd=d)
    got = {x["locations"][0]["physicalLocation"]["region"]["startLine"]:
           x["locations"][0]["physicalLocation"].get("contextRegion") for x in json.load(open(sarif))["runs"][0]["results"]}
    check("a call on the line after CUDA_CHECK(: its result at its own line, the invocation as contextRegion",
          got == {9: {"startLine": 8, "endLine": 9}, 10: None}, (got, r.stderr))
    report = os.path.join(d, "runtime.json")
    with open(report, "w") as f:
        json.dump({"tool": "libsyncwatch", "version": "0.1.0", "process": {"gpu": "GPU-test"}, "findings": [
            {"rule": "syncwatch-pageable-async-copy", "severity": "warning",
             "location": {"file": src, "line": line, "column": 1, "endLine": 0, "endColumn": 0},
             "message": "'cudaMemcpyAsync' copied 8 MB from pageable memory", "evidence": {
                 "api": "cudaMemcpyAsync", "count": "1", "totalMs": "4.5", "maxMs": "4.5"}} for line in (8, 10)]}, f)
    r = run(tool, "confirm", "--static", sarif, "--runtime", report, "--format=json")
    st = sorted((f["location"]["line"], f["evidence"]["syncwatch.status"]) for f in json.loads(r.stdout)["findings"]) if r.stdout else r.stderr
    check("confirm joins the invocation's line to the call in its argument", st == [(9, "confirmed"), (10, "confirmed")], st)

# A rule the runtime does not report (syncwatch-redundant-sync): its result is judged by whether
# its line ran, never confirmed with another rule's cost at the line. The sync-in-loop result
# at the same sync takes the measured wait.
with tempfile.TemporaryDirectory() as d:
    src = os.path.join(d, "train.cu")
    shutil.copy(os.path.join(root, "test_inputs", "static", "rs_pos_loss_readback.cu"), src)
    sarif = os.path.join(d, "lint.sarif")
    run(lint, "--format=sarif", f"--output={sarif}", src, "--", "--cuda-path=/usr/local/cuda", cwd=d)
    line = next(i for i, l in enumerate(open(src), 1) if "CUDA_CHECK(cudaDeviceSynchronize())" in l)
    report = os.path.join(d, "runtime.json")
    with open(report, "w") as f:
        json.dump({"tool": "libsyncwatch", "version": "0.1.0", "process": {"gpu": "GPU-test"},
                   "findings": [{"rule": "syncwatch-sync-in-loop", "severity": "warning",
                                 "location": {"file": src, "line": line, "column": 1, "endLine": 0, "endColumn": 0},
                                 "message": "'cudaDeviceSynchronize' stalled the host 40 ms over 100 calls",
                                 "evidence": {"api": "cudaDeviceSynchronize", "count": "100", "totalMs": "40", "maxMs": "0.6"}}],
                   "coverage": [{"api": "cudaDeviceSynchronize", "file": src, "line": line, "count": 100, "totalMs": 40, "maxMs": 0.6}]}, f)
    r = run(tool, "confirm", "--static", sarif, "--runtime", report, "--format=json")
    at = {f["rule"]: f for f in json.loads(r.stdout)["findings"] if f["location"]["line"] == line} if r.stdout else {}
    rs, sl = at.get("syncwatch-redundant-sync"), at.get("syncwatch-sync-in-loop")
    check("redundant-sync is not confirmed with the sync's wait: not-observed, ran 100 times, unmeasured",
          rs is not None and rs["evidence"]["syncwatch.status"] == "not-observed" and rs["evidence"].get("syncwatch.count") == "100"
          and "syncwatch.unmeasured" in rs["evidence"], rs or r.stderr)
    check("the sync-in-loop result at the same line is confirmed with it",
          sl is not None and sl["evidence"]["syncwatch.status"] == "confirmed", sl or r.stderr)

finish()
