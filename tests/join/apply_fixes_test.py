#!/usr/bin/env python3
"""`syncwatch verify --apply-fixes`, up to the GPU run (--no-run): in a git checkout of a CUDA
file with a certain fix-it (test_inputs/static/sm_pos_single_stream_fixable.cu: a cudaMemcpy
that becomes cudaMemcpyAsync on the stream in scope) and an uncommitted edit,
  - a scratch worktree is made under --out; the user's file is byte for byte as it was, and
    `git status` in the checkout says what it said before;
  - the worktree has the uncommitted edit and the fix-it; fixes.diff is the fix-it alone;
  - the build command ran in the worktree (its object file is there, not in the checkout);
the same with the fix-its of a lint SARIF made beforehand (--fixes: a GPU runner has no LLVM),
and the errors: not a git checkout, a report of another commit, no compile database, a failing build (its log named), an
--out whose worktree exists, missing options. tests/gpu/apply_fixes_check.sh runs the rest
(the runs before and after) on the GPU.
  apply_fixes_test.py SYNCWATCH SYNCWATCH-LINT REPO_ROOT"""
import json
import os
import shutil
import subprocess
import sys
import tempfile

sys.path[:0] = [os.path.dirname(os.path.abspath(__file__)),  # this folder, and tests/ (harness.py)
                os.path.dirname(os.path.dirname(os.path.abspath(__file__)))]
from harness import check, finish  # noqa: E402

tool, lint, root = sys.argv[1:4]


def git(cwd, *args):
    return subprocess.run(["git", "-c", "user.name=t", "-c", "user.email=t@t", *args], cwd=cwd,
                          capture_output=True, text=True, check=True).stdout


clang = shutil.which("clang++-22") or shutil.which("clang++")
host_only = "-x cuda --cuda-host-only -Wno-unknown-cuda-version --cuda-path=/usr/local/cuda -std=c++17"

with tempfile.TemporaryDirectory() as d:
    repo = os.path.join(d, "flowlib")
    os.makedirs(os.path.join(repo, "src"))
    flow = os.path.join(repo, "src", "flow.cu")
    shutil.copy(os.path.join(root, "test_inputs", "static", "sm_pos_single_stream_fixable.cu"), flow)
    with open(os.path.join(repo, ".gitignore"), "w") as f:
        f.write("build/\nbuild-fixed/\n")
    git(repo, "init", "-q")
    git(repo, "add", "-A")
    git(repo, "commit", "-q", "-m", "flow")
    with open(flow, "a") as f:  # uncommitted: it must reach the worktree too
        f.write("// tuned block size: 16x16 (uncommitted)\n")
    os.makedirs(os.path.join(repo, "build"))
    with open(os.path.join(repo, "build", "compile_commands.json"), "w") as f:
        json.dump([{"directory": repo, "command": f"{clang} {host_only} -c {flow} -o build/flow.o", "file": flow}], f)
    before_text = open(flow).read()
    before_status = git(repo, "status", "--porcelain")
    build_cmd = f"mkdir -p build-fixed && {clang} {host_only} -c src/flow.cu -o build-fixed/flow.o"

    def verify(*args, cwd=repo):
        return subprocess.run([tool, "verify", *args], cwd=cwd, capture_output=True, text=True, timeout=600)

    out = os.path.join(d, "sv")
    r = verify("--apply-fixes", "-p", "build", "--build-cmd", build_cmd, "--no-run", "--lint", lint, "--out", out)
    check("--apply-fixes --no-run: exit 0", r.returncode == 0, r.stdout + r.stderr)
    wt = os.path.join(out, "worktree")
    wflow = os.path.join(wt, "src", "flow.cu")
    check("the user's file is untouched", open(flow).read() == before_text)
    check("the checkout's git status is what it was", git(repo, "status", "--porcelain") == before_status,
          git(repo, "status", "--porcelain"))
    wtext = open(wflow).read() if os.path.exists(wflow) else ""
    check("the worktree has the fix-it (cudaMemcpyAsync on `stream`)",
          "cudaMemcpyAsync(d_prev_saved, d_prev, pixels * sizeof(float), cudaMemcpyDeviceToDevice, stream)" in wtext, wtext[:200])
    check("the worktree has the uncommitted edit", "tuned block size: 16x16 (uncommitted)" in wtext)
    diff = open(os.path.join(out, "fixes.diff")).read() if os.path.exists(os.path.join(out, "fixes.diff")) else ""
    check("fixes.diff is the fix-its alone", "+  cudaMemcpyAsync(" in diff and "uncommitted" not in diff, diff)
    check("the build ran in the worktree", os.path.exists(os.path.join(wt, "build-fixed", "flow.o"))
          and not os.path.exists(os.path.join(repo, "build-fixed")), r.stderr)
    check("it says what it applied, where, and that it stopped before the runs",
          "applied" in r.stderr and wt in r.stderr and "--no-run: stopped before the runs" in r.stderr, r.stderr)
    check("the worktree is a worktree of the checkout", wt in git(repo, "worktree", "list"))

    r = verify("--apply-fixes", "-p", "build", "--build-cmd", build_cmd, "--no-run", "--lint", lint, "--out", out)
    check("the same --out again: exit 2, says how to remove it",
          r.returncode == 2 and "git worktree remove" in r.stderr, r.stderr)
    r = verify("--apply-fixes", "-p", "build", "--build-cmd", "echo compiling; exit 3", "--no-run", "--lint", lint,
               "--out", os.path.join(d, "sv-broken"))
    check("a failing build: exit 2, its log named and quoted",
          r.returncode == 2 and "the build failed" in r.stderr and "build.log" in r.stderr and "compiling" in r.stderr, r.stderr)
    check("a failing build: the user's file is still untouched", open(flow).read() == before_text)
    r = verify("--apply-fixes", "-p", "nowhere", "--build-cmd", build_cmd, "--no-run", "--lint", lint,
               "--out", os.path.join(d, "sv-nodb"))
    check("no compile database: exit 2, named", r.returncode == 2 and "no compile database" in r.stderr, r.stderr)
    plain = os.path.join(d, "not-a-repo")
    os.makedirs(plain)
    r = verify("--apply-fixes", "-p", os.path.join(repo, "build"), "--build-cmd", build_cmd, "--no-run", "--lint", lint,
               "--out", os.path.join(d, "sv-plain"), cwd=plain)
    check("not a git checkout: exit 2, says so", r.returncode == 2 and "needs a git checkout" in r.stderr, r.stderr)
    r = verify("--apply-fixes", "-p", "build", "--build-cmd", build_cmd, "--lint", lint)
    check("neither --run-cmd nor --no-run: exit 2", r.returncode == 2 and "--run-cmd" in r.stderr, r.stderr)
    r = verify("--build-cmd", build_cmd)
    check("--build-cmd without --apply-fixes: exit 2", r.returncode == 2 and "goes with --apply-fixes" in r.stderr, r.stderr)

    # The fix-its from a lint report made elsewhere (a GPU runner has no LLVM): the same tree.
    sarif = os.path.join(d, "lint.sarif")
    subprocess.run([lint, "-p", "build", "--format=sarif", "--output=" + sarif], cwd=repo, capture_output=True, timeout=600)
    out2 = os.path.join(d, "sv-sarif")
    r = verify("--apply-fixes", "--fixes", sarif, "--build-cmd", build_cmd, "--no-run", "--out", out2)
    wtext2 = open(os.path.join(out2, "worktree", "src", "flow.cu")).read() if r.returncode == 0 else ""
    check("--fixes lint.sarif: the same fixed file as the lint's own --fix", r.returncode == 0 and wtext2 == wtext
          and "of " + sarif in r.stderr, r.stderr)
    check("--fixes: the user's file still untouched", open(flow).read() == before_text)
    doc = json.load(open(sarif))
    for res in doc["runs"][0]["results"]:
        for fx in res.get("fixes", []):
            for ch in fx["artifactChanges"]:
                for rep in ch["replacements"]:
                    rep["deletedRegion"]["startLine"] = rep["deletedRegion"]["endLine"] = 999
    stale = os.path.join(d, "stale.sarif")
    json.dump(doc, open(stale, "w"))
    r = verify("--apply-fixes", "--fixes", stale, "--build-cmd", build_cmd, "--no-run", "--out", os.path.join(d, "sv-stale"))
    check("--fixes of another commit (a fix-it past the file's end): exit 2, says so",
          r.returncode == 2 and "a report of another commit?" in r.stderr, r.stderr)
    r = verify("--apply-fixes", "--fixes", sarif, "-p", "build", "--build-cmd", build_cmd, "--no-run")
    check("-p and --fixes together: exit 2", r.returncode == 2 and "one of the two" in r.stderr, r.stderr)
    for w in (wt, os.path.join(out2, "worktree"), os.path.join(d, "sv-stale", "worktree")):
        if os.path.exists(w):
            git(repo, "worktree", "remove", "--force", w)

finish()
