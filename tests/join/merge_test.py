#!/usr/bin/env python3
"""`syncwatch merge` on the recordings of a real two-rank job (test_inputs/runtime/
multiprocess/, recorded on an H200 by tests/gpu/multiprocess_check.sh) and on bad input:
  - merged.expect's findings and figures (the planted rank and line, the straggler);
  - the same answer from the per-rank JSON reports as from the recordings, in text, JSON
    and SARIF; a merged trace with a host and a GPU process per rank;
  - reports of different jobs, two inputs for one rank, a recording cut short, an empty
    file, a report of another tool: a clear error, exit 2, no output file written;
  - one rank missing: merged, saying which.
  merge_test.py SYNCWATCH TEST_INPUTS/runtime/multiprocess"""
import json
import os
import subprocess
import sys
import tempfile

sys.path[:0] = [os.path.dirname(os.path.abspath(__file__)),  # this folder, and tests/ (harness.py)
                os.path.dirname(os.path.dirname(os.path.abspath(__file__)))]
from harness import check, finish  # noqa: E402

tool, folder = sys.argv[1:3]
recs = sorted(os.path.join(folder, f) for f in os.listdir(folder) if f.endswith(".swrec"))


def sw(*args):
    return subprocess.run([tool, *args], capture_output=True, text=True, timeout=120)


def at(f):
    return f"{os.path.basename(f['location']['file'])}:{f['location']['line']}"


check("two recordings", len(recs) == 2, recs)
r = sw("merge", "--format=json", *recs)
check("merge of the recordings: exit 1 (findings)", r.returncode == 1, r.stderr)
doc = json.loads(r.stdout)
for line in open(os.path.join(folder, "merged.expect")):
    line = line.strip()
    if not line or line.startswith("#"):
        continue
    words = line.split()
    if words[0] == "figure":
        got = doc["figures"].get(words[1])
        check(line, got == " ".join(words[2:]), got)
    elif words[0] == "evidence":
        hits = [f for f in doc["findings"] if f["rule"] == words[1] and at(f) == words[2]]
        got = hits[0]["evidence"].get(words[3], "") if hits else None
        check(line, hits and " ".join(words[4:]) in got, got)
    else:
        check(line, any(f["rule"] == words[0] and at(f) == words[1] for f in doc["findings"]),
              [at(f) + " " + f["rule"] for f in doc["findings"]])
check("one finding per (rule, site)", len({(f["rule"], at(f)) for f in doc["findings"]}) == len(doc["findings"]))
check("the job in the merged report", doc["process"].get("worldSize") == "2" and doc["process"].get("job", "").startswith("SYNCWATCH_JOB="),
      doc.get("process"))

with tempfile.TemporaryDirectory() as d:
    # The per-rank JSON reports (as a job writes them) merge to the same findings.
    reports = []
    for rec in recs:
        rep = sw("replay", "--format=json", rec)
        path = os.path.join(d, os.path.basename(rec).replace(".swrec", ".json"))
        report = json.loads(rep.stdout)
        check(f"{os.path.basename(rec)}: the recording carries its rank", report.get("tool") and
              json.loads(sw("merge", "--format=json", rec).stdout)["process"].get("worldSize") == "2")
        # a replayed report has no "process": give it the recording's, as libsyncwatch writes it
        first = [l.split("\t") for l in open(rec) if l.startswith("I\t")]
        report["process"] = {k: v.rstrip("\n") for _, k, v in first}
        report["tool"] = "libsyncwatch"
        json.dump(report, open(path, "w"))
        reports.append(path)
    rj = sw("merge", "--format=json", *reports)
    check("the JSON reports merge to the same findings", rj.returncode == 1 and
          [(f["rule"], at(f), f["evidence"].get("ranks")) for f in json.loads(rj.stdout)["findings"]] ==
          [(f["rule"], at(f), f["evidence"].get("ranks")) for f in doc["findings"]], rj.stderr)
    text = sw("merge", *recs).stdout
    check("text: a line per rank, the straggler and its site", "  rank 0:" in text and "  rank 1:" in text and
          "straggler: rank 1" in text and "two_ranks.py:29" in text.split("straggler:")[1].splitlines()[0], text[:600])
    check("text: the finding says on which rank", "warning: on rank 1 only:" in text, text[-400:])
    out = os.path.join(d, "merged.sarif")
    rs = sw("merge", "--format", "sarif", "--output", out, *recs)
    sarif = json.load(open(out))
    res = sarif["runs"][0]["results"]
    check("SARIF: the merged finding, a fingerprint, the rank in its properties", rs.returncode == 1 and len(res) == 1 and
          res[0].get("partialFingerprints") and "rank 1" in json.dumps(res[0]), rs.stderr)
    trace = os.path.join(d, "merged.trace.json")
    rt = sw("merge", "--trace", trace, *recs)
    events = json.load(open(trace))["traceEvents"]
    names = sorted(e["args"]["name"] for e in events if e.get("name") == "process_name")
    check("trace: a host and a GPU process per rank", len(names) == 4 and sum(n.startswith("rank 0") for n in names) == 2
          and sum(n.startswith("rank 1") for n in names) == 2, names)
    pids = {e["pid"] for e in events}
    check("trace: ranks' events on their own processes", len(pids) == 4, pids)
    check("trace: both ranks' GPU work", sum(1 for e in events if e.get("cat") == "gpu_memcpy" and e["pid"] == 2) > 0 and
          sum(1 for e in events if e.get("cat") == "gpu_memcpy" and e["pid"] == 4) > 0)

    # One rank missing: merged, saying which.
    r1 = sw("merge", recs[1])
    check("one rank missing: merged, saying which", r1.returncode == 1 and "missing: rank(s) 0 of 2" in r1.stdout, r1.stdout[:300])
    rj1 = sw("merge", "--format=json", recs[1])
    check("one rank missing: in the JSON figures", json.loads(rj1.stdout)["figures"].get("ranksMissing") == "0")

    def bad(name, inputs, expect):
        target = os.path.join(d, "never-written.json")
        r = sw("merge", "--format=json", "--output", target, *inputs)
        lines = r.stderr.strip().splitlines()
        check(name + ": exit 2, one clear line, no output", r.returncode == 2 and len(lines) == 1 and expect in lines[0]
              and not os.path.exists(target), f"{r.returncode} {r.stderr!r}")

    other = os.path.join(d, "other-job.swrec")
    open(other, "w").write("".join(l.replace("SYNCWATCH_JOB=", "SYNCWATCH_JOB=another-") if l.startswith("I\tjob") else l
                                   for l in open(recs[1])))
    bad("reports of different jobs", [recs[0], other], "different jobs")
    bad("two inputs for one rank", [recs[1], reports[1]], "two inputs for rank 1")
    text = open(recs[1]).read()
    cut = os.path.join(d, "cut.swrec")
    open(cut, "w").write(text[: len(text) // 2])
    bad("a recording cut mid-line", [recs[0], cut], "cut.swrec")
    cut2 = os.path.join(d, "cut2.swrec")
    open(cut2, "w").write("".join(text.splitlines(True)[:-1]))  # the end record lost
    bad("a recording cut at a line end", [recs[0], cut2], "cut short")
    empty = os.path.join(d, "empty.json")
    open(empty, "w").close()
    bad("an empty report", [recs[0], empty], "empty")
    lint = os.path.join(d, "lint.json")
    json.dump({"tool": "syncwatch-lint", "version": "0.1.0", "filesAnalyzed": 1, "findings": [], "errors": []}, open(lint, "w"))
    bad("a syncwatch-lint report", [recs[0], lint], "not of the runtime")
    bad("a missing file", [recs[0], os.path.join(d, "nope.json")], "cannot read")
    r = sw("merge", "--format=json", "--output", "/nonexistent/dir/m.json", *recs)
    check("an unwritable --output: exit 2, said", r.returncode == 2 and "/nonexistent/dir/m.json" in r.stderr, r.stderr)
    r = sw("merge")
    check("no inputs: exit 2", r.returncode == 2 and "no reports" in r.stderr, r.stderr)
    r = sw("merge", "--help")
    check("merge --help: exit 0", r.returncode == 0 and "usage: syncwatch merge" in r.stdout)

# --path-map OLD=NEW: the recordings were made in another checkout; merged, their paths read
# as in this one (every format), as replay and confirm take them.
old = os.path.dirname(json.loads(sw("merge", "--format=json", *recs).stdout)["findings"][0]["location"]["file"])
r = sw("merge", "--format=json", f"--path-map={old}/=/elsewhere/src/", *recs)
files = {f["location"]["file"] for f in json.loads(r.stdout)["findings"]} if r.stdout else set()
check("merge --path-map: every finding's file under the new root", r.returncode == 1 and files
      and all(f.startswith("/elsewhere/src/") for f in files), (files, r.stderr))
r = sw("merge", f"--path-map={old}/=/elsewhere/src/", *recs)
check("merge --path-map: the text report names the new paths", "/elsewhere/src/" in r.stdout and old + "/" not in r.stdout,
      r.stdout[:300])
r = sw("merge", "--path-map=nonsense", *recs)
check("merge --path-map without '=': exit 2, said", r.returncode == 2 and "OLD=NEW" in r.stderr, r.stderr)

finish()
