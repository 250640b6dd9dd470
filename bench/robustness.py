#!/usr/bin/env python3
"""syncwatch-lint on a large generated build: no crash, no hang, every broken file named.

    bench/robustness.py [-n 2000] [--workers 2] [--broken-every 40] [--cpp-every 16]
                        [--baseline] [--no-pch-run] [--summary out.json] [--keep DIR]

Generates a corpus with bench/gen_corpus.py --database (realistic CUDA files with the nvcc
flag profiles of real CMake targets, host-only .cpp files built by g++, and deliberately
broken files), then:
  1. runs syncwatch-lint -p on its compile_commands.json as WORKERS processes at once, one
     shard each (--shard=K/WORKERS -j1), each with a time limit, recording every
     process's wall time and peak resident memory (--run-stats-json): the memory of one
     worker;
  2. merges the shards' SARIF (syncwatch-lint merge) and checks: every process exited 0, 1
     or 2 (no signal, no time-out); every broken_* file is a tool error; no other file is;
     no crash had to be recovered;
  3. with --baseline, runs clang++-22 -fsyntax-only on every file with exactly the command
     syncwatch-lint parses it with (--print-commands), WORKERS at a time, and reports the
     ratio of the wall times;
  4. with --no-pch-run, repeats step 1 with --no-pch (the precompiled-prelude figure).
Prints a summary (also written as JSON with --summary). Exit 0 when every check holds.
"""
import argparse
import concurrent.futures
import json
import urllib.parse
import os
import shlex
import subprocess
import sys
import tempfile
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def lint_shards(lint, db_dir, workers, out_dir, tag, extra, timeout):
    procs, started = [], time.monotonic()
    for k in range(1, workers + 1):
        sarif = os.path.join(out_dir, f"{tag}.shard{k}.sarif")
        stats = os.path.join(out_dir, f"{tag}.shard{k}.stats.json")
        log = open(os.path.join(out_dir, f"{tag}.shard{k}.log"), "w")
        cmd = [lint, "-p", db_dir, f"--shard={k}/{workers}", "-j1", "--format=sarif", "--output", sarif,
               "--run-stats-json", stats, *extra]
        procs.append((subprocess.Popen(cmd, stdout=log, stderr=subprocess.STDOUT), sarif, stats, log))
    results = []
    for p, sarif, stats, log in procs:
        try:
            rc = p.wait(timeout=max(1, timeout - (time.monotonic() - started)))
        except subprocess.TimeoutExpired:
            p.kill()
            rc = "timeout"
        log.close()
        st = {}
        if os.path.exists(stats):
            with open(stats) as fh:
                st = json.load(fh)
        results.append({"rc": rc, "sarif": sarif, "stats": st})
    return time.monotonic() - started, results


def final_commands(lint, db_dir):
    p = subprocess.run([lint, "-p", db_dir, "--print-commands"], capture_output=True, text=True, check=True)
    cmds = []
    for line in p.stdout.splitlines():
        head, _, rest = line.partition(") ")
        file = head.split(": (in ")[0]
        directory = head.split(": (in ", 1)[1]
        cmds.append((file, directory, shlex.split(rest)))
    return cmds


def baseline(clangxx, cmds, workers):
    def one(item):
        file, directory, argv = item
        r = subprocess.run([clangxx, *argv[1:]], cwd=directory, capture_output=True, timeout=600)
        return file, r.returncode
    started = time.monotonic()
    with concurrent.futures.ThreadPoolExecutor(workers) as pool:
        rcs = dict(pool.map(one, cmds))
    return time.monotonic() - started, rcs


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("-n", "--files", type=int, default=2000)
    ap.add_argument("--workers", type=int, default=2)
    ap.add_argument("--broken-every", type=int, default=40)
    ap.add_argument("--cpp-every", type=int, default=16)
    ap.add_argument("--seed", default="1")
    ap.add_argument("--lint", default=os.environ.get("SYNCWATCH_LINT", os.path.join(ROOT, "build/analyzer/syncwatch-lint")))
    ap.add_argument("--clangxx", default=os.environ.get("CLANGXX", "clang++-22"))
    ap.add_argument("--baseline", action="store_true", help="also time clang++ -fsyntax-only")
    ap.add_argument("--no-pch-run", action="store_true", help="also run syncwatch-lint --no-pch")
    ap.add_argument("--timeout", type=int, default=4 * 3600, help="seconds for one lint run (all shards)")
    ap.add_argument("--summary", help="write the summary as JSON here")
    ap.add_argument("--keep", help="work in this directory and keep it")
    args = ap.parse_args()

    work = args.keep or tempfile.mkdtemp(prefix="syncwatch-robustness.")
    os.makedirs(work, exist_ok=True)
    corpus = os.path.join(work, "corpus")
    subprocess.run([sys.executable, os.path.join(ROOT, "bench/gen_corpus.py"), corpus, "-n", str(args.files),
                    "--seed", args.seed, "--database", "--broken-every", str(args.broken_every),
                    "--cpp-every", str(args.cpp_every)], check=True)
    with open(os.path.join(corpus, "compile_commands.json")) as fh:
        files = [e["file"] for e in json.load(fh)]
    broken = {f for f in files if os.path.basename(f).startswith("broken_")}
    lines = 0
    for f in files:
        with open(f, "rb") as fh:
            lines += fh.read().count(b"\n")
    print(f"robustness: {len(files)} files ({len(broken)} broken, "
          f"{sum(f.endswith('.cpp') for f in files)} .cpp), {lines} lines, {args.workers} worker processes",
          flush=True)

    summary = {"files": len(files), "broken": len(broken), "lines": lines, "workers": args.workers}
    problems = []
    wall, shards = lint_shards(args.lint, corpus, args.workers, work, "pch", [], args.timeout)
    summary["lint_wall_s"] = round(wall, 1)
    summary["per_worker"] = [{"rc": s["rc"], "files": s["stats"].get("files"),
                              "wall_s": round(s["stats"].get("wallSeconds", 0), 1),
                              "peak_rss_mib": round(s["stats"].get("peakRssKiB", 0) / 1024, 1),
                              "slowest_s": round(s["stats"].get("slowestSeconds", 0), 1),
                              "slowest_file": os.path.basename(s["stats"].get("slowestFile", "")),
                              "crashes_recovered": s["stats"].get("crashesRecovered"),
                              "prelude_pchs": s["stats"].get("preludePchs"),
                              "pch_fallbacks": s["stats"].get("pchFallbacks")} for s in shards]
    for i, s in enumerate(shards, 1):
        if s["rc"] not in (0, 1, 2):
            problems.append(f"shard {i}: exit {s['rc']} (crash or time-out)")
        if s["stats"].get("crashesRecovered"):
            problems.append(f"shard {i}: {s['stats']['crashesRecovered']} crash(es) recovered")
    merged = os.path.join(work, "merged.sarif")
    m = subprocess.run([args.lint, "merge", *[s["sarif"] for s in shards], "--output", merged],
                       capture_output=True, text=True)
    if m.returncode not in (0, 1, 2) or not os.path.exists(merged):
        problems.append(f"merge failed: {m.stderr[-500:]}")
    else:
        with open(merged) as fh:
            run = json.load(fh)["runs"][0]
        errored = set()
        for n in run["invocations"][0]["toolExecutionNotifications"]:
            loc = n["locations"][0]["physicalLocation"]["artifactLocation"]
            # repo-relative URIs resolve against the run's %SRCROOT%
            root = run.get("originalUriBaseIds", {}).get(loc.get("uriBaseId", ""), {}).get("uri", "")
            errored.add(urllib.parse.unquote((root + loc["uri"]).removeprefix("file://")))
        summary["findings"] = len(run["results"])
        summary["tool_errors"] = len(errored)
        if broken - errored:
            problems.append(f"broken files not reported: {sorted(broken - errored)[:5]}")
        if errored - broken:
            problems.append(f"good files reported as errors: {sorted(errored - broken)[:5]}")

    if args.no_pch_run:
        wall2, shards2 = lint_shards(args.lint, corpus, args.workers, work, "nopch", ["--no-pch"], args.timeout)
        summary["lint_no_pch_wall_s"] = round(wall2, 1)
        summary["no_pch_peak_rss_mib"] = [round(s["stats"].get("peakRssKiB", 0) / 1024, 1) for s in shards2]
        with open(merged, "rb") as a:
            m2 = subprocess.run([args.lint, "merge", *[s["sarif"] for s in shards2]], capture_output=True)
            summary["pch_and_no_pch_reports_identical"] = m2.stdout == a.read()
        if not summary["pch_and_no_pch_reports_identical"]:
            problems.append("--no-pch gives a different report")

    if args.baseline:
        cmds = final_commands(args.lint, corpus)
        bwall, rcs = baseline(args.clangxx, cmds, args.workers)
        summary["clang_fsyntax_only_wall_s"] = round(bwall, 1)
        summary["ratio_lint_to_fsyntax_only"] = round(wall / bwall, 3)
        if args.no_pch_run:
            summary["ratio_no_pch_to_fsyntax_only"] = round(summary["lint_no_pch_wall_s"] / bwall, 3)
        failing = {f for f, rc in rcs.items() if rc != 0}
        summary["clang_failures"] = len(failing)
        if failing != broken:
            problems.append(f"clang++ -fsyntax-only disagrees on which files are broken: "
                            f"{sorted(failing ^ broken)[:5]}")

    summary["problems"] = problems
    print(json.dumps(summary, indent=1))
    if args.summary:
        with open(args.summary, "w") as fh:
            json.dump(summary, fh, indent=1)
    print("robustness: " + ("OK" if not problems else "FAILED: " + "; ".join(problems)))
    return 0 if not problems else 1


if __name__ == "__main__":
    sys.exit(main())
