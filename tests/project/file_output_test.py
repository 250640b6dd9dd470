#!/usr/bin/env python3
"""Never lose a user's file (issue 20): every tool that writes a file writes a complete new
one or leaves the old one byte for byte, and exits 2 with the reason.

Without root: an output equal to an input is refused before anything runs; a write error on
stdout (/dev/full, a closed stdout) is exit 2 with a message. As root (CI): a small tmpfs is
mounted and filled, and --output, --write-baseline, --fix, --export-fixes, --run-stats-json,
`syncwatch-lint merge`, `syncwatch merge`, `syncwatch confirm` and `syncwatch replay --trace`
run there; then the same on a read-only mount.

Usage: file_output_test.py SYNCWATCH_LINT SYNCWATCH SOURCE_DIR"""
import hashlib, os, shutil, subprocess, sys, tempfile

sys.path[:0] = [os.path.dirname(os.path.abspath(__file__)),  # this folder, and tests/ (harness.py)
                os.path.dirname(os.path.dirname(os.path.abspath(__file__)))]
from harness import check, finish  # noqa: E402

LINT, SW, SRC = sys.argv[1:4]
STATIC = os.path.join(SRC, "test_inputs", "static")
RUNTIME = os.path.join(SRC, "test_inputs", "runtime")
FIXABLE = os.path.join(STATIC, "sm_pos_single_stream_fixable.cu")
RECORDING = os.path.join(RUNTIME, "h200_runtime_probe.swrec")
CUDA_FLAGS = ["--", "--cuda-path=/usr/local/cuda"]


def run(*args, stdout=subprocess.PIPE, **kw):
    p = subprocess.run(list(args), stdout=stdout, stderr=subprocess.PIPE, text=True, timeout=300, **kw)
    return p.returncode, p.stdout or "", p.stderr


def digest(path):
    with open(path, "rb") as f:
        return hashlib.sha256(f.read()).hexdigest()


work = tempfile.mkdtemp(prefix="syncwatch-files-")
try:
    # Inputs made once, on a disk with room: a SARIF, a runtime report, a recording's copy.
    sarif = os.path.join(work, "lint.sarif")
    rc, out, err = run(LINT, "--format=sarif", "--output=" + sarif, FIXABLE, *CUDA_FLAGS)
    check("the lint writes its SARIF", rc in (0, 1) and os.path.getsize(sarif) > 0, err)
    report = os.path.join(work, "probe.json")
    rc, out, err = run(SW, "replay", "--format", "json", RECORDING)
    open(report, "w").write(out)
    check("replay writes a runtime report", rc in (0, 1) and out.startswith("{"), err)
    rec = os.path.join(work, "p.swrec")
    shutil.copy(RECORDING, rec)
    rec2 = os.path.join(work, "r1.swrec")
    shutil.copy(os.path.join(RUNTIME, "h200_confirm_probe.swrec"), rec2)
    # confirm's inputs: the probe's source linted in a checkout of its own, its H200 recording.
    repo = os.path.join(work, "checkout")
    os.makedirs(os.path.join(repo, "tests", "gpu"))
    os.makedirs(os.path.join(repo, ".git"))
    shutil.copy(os.path.join(SRC, "tests", "gpu", "runtime_probe.cu"), os.path.join(repo, "tests", "gpu"))
    probe_sarif = os.path.join(work, "probe.sarif")
    p = subprocess.run([LINT, "--format=sarif", "--output=" + probe_sarif, "tests/gpu/runtime_probe.cu", *CUDA_FLAGS],
                       capture_output=True, text=True, cwd=repo, timeout=300)
    check("the lint writes the probe's SARIF", p.returncode == 1, p.stderr[-300:])

    # --- outputs that are not files: /dev/null and a named pipe are written as they are ----
    rc, out, err = run(LINT, "--format=json", "--output=/dev/null", FIXABLE, *CUDA_FLAGS)
    check("syncwatch-lint --output=/dev/null: the report goes there (exit 1: findings), nothing on stdout",
          rc == 1 and out == "" and os.path.exists("/dev/null") and not os.path.isfile("/dev/null"), f"rc={rc} {err[-300:]}")
    rc, out, err = run(SW, "merge", "--output", "/dev/null", rec, rec2)
    check("syncwatch merge --output /dev/null: written (exit 0 or 1: its findings), no error",
          rc in (0, 1) and "cannot" not in err and "error" not in err, f"rc={rc} {err[-300:]}")
    pipe = os.path.join(work, "report.pipe")
    os.mkfifo(pipe)
    reader = subprocess.Popen(["cat", pipe], stdout=subprocess.PIPE, text=True)
    rc, out, err = run(LINT, "--format=json", "--output=" + pipe, FIXABLE, *CUDA_FLAGS)
    read, _ = reader.communicate(timeout=120)
    check("syncwatch-lint --output=<a named pipe with a reader>: the reader gets the whole report",
          rc == 1 and read.startswith("{") and read.rstrip().endswith("}") and '"findings"' in read,
          f"rc={rc} {err[-300:]} read {len(read)} chars")
    lonely = os.path.join(work, "nobody.pipe")
    os.mkfifo(lonely)
    rc, out, err = run(LINT, "--format=json", "--output=" + lonely, FIXABLE, *CUDA_FLAGS)
    check("syncwatch-lint --output=<a named pipe nobody reads>: exit 2 at once, said, the report on stdout",
          rc == 2 and "no reader" in err and out.startswith("{"), f"rc={rc} {err[-300:]}")

    # --- an output that is an input: refused, the input untouched --------------------------
    before = digest(rec)
    rc, out, err = run(SW, "merge", "--output", rec, rec, rec2)
    check("syncwatch merge --output equal to an input: exit 2, input kept",
          rc == 2 and "refusing" in err and digest(rec) == before, f"rc={rc} {err}")
    rc, out, err = run(SW, "replay", "--trace", rec, rec)
    check("syncwatch replay --trace equal to its input: exit 2, input kept",
          rc == 2 and "refusing" in err and digest(rec) == before, f"rc={rc} {err}")
    s0 = digest(sarif)
    rc, out, err = run(LINT, "merge", "--output=" + sarif, sarif)
    check("syncwatch-lint merge --output equal to an input: exit 2, input kept",
          rc == 2 and "refusing" in err and digest(sarif) == s0, f"rc={rc} {err}")
    src_copy = os.path.join(work, "fixable.cu")
    shutil.copy(FIXABLE, src_copy)
    c0 = digest(src_copy)
    rc, out, err = run(LINT, "--output=" + src_copy, src_copy, *CUDA_FLAGS)
    check("syncwatch-lint --output equal to the source: exit 2, source kept",
          rc == 2 and "refusing" in err and digest(src_copy) == c0, f"rc={rc} {err}")
    rc, out, err = run(SW, "confirm", "--static", sarif, "--runtime", report, "--output", report)
    check("syncwatch confirm --output equal to an input: exit 2", rc == 2 and "refusing" in err, f"rc={rc} {err}")
    # A header the unit includes is an input too, known only after the analysis: nothing is
    # written (it was replaced by the report, 0 bytes with no findings), the report on stdout.
    hdir = os.path.join(work, "with_header")
    os.makedirs(hdir)
    header = os.path.join(hdir, "kernels.cuh")
    open(header, "w").write("#pragma once\n__global__ void scale(float *x) { x[threadIdx.x] *= 2; }\n")
    main_cu = os.path.join(hdir, "main.cu")
    open(main_cu, "w").write('#include "kernels.cuh"\nvoid run(float *d) { scale<<<1, 32>>>(d); }\n')
    h0 = digest(header)
    for extra in ([], ["--write-baseline=" + header], ["--export-fixes=" + header]):
        rc, out, err = run(LINT, "--output=" + header if not extra else "--format=text", *extra, main_cu, *CUDA_FLAGS)
        check(f"syncwatch-lint {' '.join(extra) or '--output'} naming a header the unit includes: exit 2, header kept, "
              "the report on stdout",
              rc == 2 and "a file the analysis read" in err and digest(header) == h0 and "syncwatch-default-stream" in out,
              f"rc={rc} {err} {out[:200]}")

    # --- stdout that cannot be written -----------------------------------------------------
    with open("/dev/full", "w") as full:
        rc, _, err = run(LINT, FIXABLE, *CUDA_FLAGS, stdout=full)
        check("syncwatch-lint > /dev/full: exit 2 with the reason", rc == 2 and "standard output" in err, f"rc={rc} {err}")
        rc, _, err = run(SW, "replay", RECORDING, stdout=full)
        check("syncwatch replay > /dev/full: exit 2 with the reason", rc == 2 and "standard output" in err, f"rc={rc} {err}")
        rc, _, err = run(SW, "merge", rec, stdout=full)
        check("syncwatch merge > /dev/full: exit 2", rc == 2 and "standard output" in err, f"rc={rc} {err}")
    p = subprocess.run(f"'{LINT}' '{FIXABLE}' -- --cuda-path=/usr/local/cuda >&-", shell=True, capture_output=True,
                       text=True, timeout=300)
    check("syncwatch-lint with stdout closed: exit 2", p.returncode == 2 and "standard output" in p.stderr,
          f"rc={p.returncode} {p.stderr}")

    # --- a full disk and a read-only one (root: mount a tmpfs) -------------------------------
    if os.geteuid() != 0:
        print("skip the full-disk and read-only cases: they mount a tmpfs (run as root, as CI does)")
    else:
        mnt = os.path.join(work, "small")
        os.mkdir(mnt)
        mounted = subprocess.run(["mount", "-t", "tmpfs", "-o", "size=512k", "tmpfs", mnt], capture_output=True).returncode == 0
        if not mounted:
            print("skip the full-disk cases: mount -t tmpfs failed here")
        else:
            try:
                olds = {}
                for name in ("old.sarif", "base.json", "fixes.yaml", "stats.json", "merged.sarif", "m.json",
                             "c.sarif", "t.json"):
                    path = os.path.join(mnt, name)
                    with open(path, "w") as f:
                        f.write('{"an old file": "that must survive"}\n' * 50)
                    olds[name] = digest(path)
                target_src = os.path.join(mnt, "fixable.cu")
                shutil.copy(FIXABLE, target_src)
                src_digest = digest(target_src)
                # fill the disk to the last byte
                fd = os.open(os.path.join(mnt, "filler"), os.O_WRONLY | os.O_CREAT, 0o644)
                try:
                    while os.write(fd, b"x" * 4096) > 0:
                        pass
                except OSError:
                    pass
                try:
                    while os.write(fd, b"x") > 0:  # the last bytes
                        pass
                except OSError:
                    pass
                os.close(fd)
                cases = [
                    ("syncwatch-lint --output", [LINT, "--format=sarif", "--output=" + os.path.join(mnt, "old.sarif"), FIXABLE, *CUDA_FLAGS], "old.sarif"),
                    ("syncwatch-lint --write-baseline", [LINT, "--write-baseline=" + os.path.join(mnt, "base.json"), FIXABLE, *CUDA_FLAGS], "base.json"),
                    ("syncwatch-lint --export-fixes", [LINT, "--export-fixes=" + os.path.join(mnt, "fixes.yaml"), FIXABLE, *CUDA_FLAGS], "fixes.yaml"),
                    ("syncwatch-lint --run-stats-json", [LINT, "--run-stats-json=" + os.path.join(mnt, "stats.json"), FIXABLE, *CUDA_FLAGS], "stats.json"),
                    ("syncwatch-lint merge --output", [LINT, "merge", "--output=" + os.path.join(mnt, "merged.sarif"), sarif], "merged.sarif"),
                    ("syncwatch merge --output", [SW, "merge", "--output", os.path.join(mnt, "m.json"), "--format", "json", rec], "m.json"),
                    ("syncwatch confirm --output", [SW, "confirm", "--static", probe_sarif, "--runtime", RECORDING, "--output", os.path.join(mnt, "c.sarif")], "c.sarif"),
                    ("syncwatch replay --trace", [SW, "replay", "--trace", os.path.join(mnt, "t.json"), rec], "t.json"),
                ]
                for name, argv, victim in cases:
                    rc, out, err = run(*argv)
                    kept = digest(os.path.join(mnt, victim)) == olds[victim]
                    leftovers = [f for f in os.listdir(mnt) if ".syncwatch-" in f]
                    check(f"full disk: {name}: exit 2, old file byte-identical, no temporary left",
                          rc == 2 and kept and not leftovers and "No space left" in err, f"rc={rc} kept={kept} {leftovers} {err[-300:]}")
                rc, out, err = run(LINT, "--fix", "--checks=-*,syncwatch-sync-memcpy", target_src, *CUDA_FLAGS)
                check("full disk: syncwatch-lint --fix: exit 2, the source byte-identical",
                      rc == 2 and digest(target_src) == src_digest and "No space left" in err, f"rc={rc} {err[-300:]}")
                # read-only
                os.remove(os.path.join(mnt, "filler"))
                subprocess.run(["mount", "-o", "remount,ro", mnt], check=True)
                rc, out, err = run(LINT, "--format=sarif", "--output=" + os.path.join(mnt, "old.sarif"), FIXABLE, *CUDA_FLAGS)
                check("read-only directory: syncwatch-lint --output: exit 2, the report on stdout, old file kept",
                      rc == 2 and "Read-only" in err and '"runs"' in out and digest(os.path.join(mnt, "old.sarif")) == olds["old.sarif"],
                      f"rc={rc} {err[-300:]}")
                rc, out, err = run(SW, "merge", "--output", os.path.join(mnt, "m.json"), rec)
                check("read-only directory: syncwatch merge --output: exit 2", rc == 2 and "Read-only" in err, f"rc={rc} {err}")
            finally:
                subprocess.run(["umount", mnt], capture_output=True)
finally:
    shutil.rmtree(work, ignore_errors=True)
finish()
