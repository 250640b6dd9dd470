#!/usr/bin/env python3
"""syncwatch-lint as CI uses it: exit codes, formats, SARIF validity, bad input.

Run by ctest with the paths of the built tools:
  cli_test.py <syncwatch-lint> <test_inputs dir> <sarif schema>
"""
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import unittest

LINT, INPUTS, SCHEMA = sys.argv[1:4]
TIDY = sys.argv[4] if len(sys.argv) > 4 else ""
PLUGIN = sys.argv[5] if len(sys.argv) > 5 else ""
NVCC = os.environ.get("NVCC", "/usr/local/cuda/bin/nvcc")
TIDY_FLAGS = ["--cuda-host-only", "-Wno-unknown-cuda-version", "--cuda-path=/usr/local/cuda",
              "--cuda-gpu-arch=sm_90", "-isystem", "/usr/local/cuda/include/cccl"]
STATIC = os.path.join(INPUTS, "static")


def lint(*args, cwd=None):
    p = subprocess.run([LINT, *args], capture_output=True, text=True, cwd=cwd, timeout=600)
    return p.returncode, p.stdout, p.stderr


def inputs():
    return sorted(os.path.join(STATIC, f) for f in os.listdir(STATIC) if f.endswith(".cu"))


def plain_inputs():
    """Inputs without per-file flags, so one command line fits them all."""
    out = []
    for f in inputs():
        with open(f) as fh:
            head = "".join(fh.readline() for _ in range(8))
        if "clang-flags:" not in head:
            out.append(f)
    return out


class SarifOutput(unittest.TestCase):
    def test_validates_against_the_official_schema(self):
        import jsonschema
        with open(SCHEMA) as fh:
            schema = json.load(fh)
        rc, out, err = lint("--format=sarif", "-j2", *plain_inputs(), "--")
        self.assertIn(rc, (0, 1), err)
        doc = json.loads(out)
        jsonschema.Draft7Validator(schema).validate(doc)
        run = doc["runs"][0]
        self.assertGreater(len(run["results"]), 10)
        ids = [r["id"] for r in run["tool"]["driver"]["rules"]]
        self.assertIn("syncwatch-default-stream", ids)
        self.assertIn("syncwatch-blocking-stream", ids)
        for r in run["results"]:
            region = r["locations"][0]["physicalLocation"]["region"]
            self.assertGreater(region["startLine"], 0)
            self.assertTrue(r["ruleId"].startswith("syncwatch-"))
        # blocking-stream results carry the suggested non-blocking edit
        fixes = [r for r in run["results"] if r["ruleId"] == "syncwatch-blocking-stream" and r.get("fixes")]
        self.assertTrue(fixes)

    def test_code_scanning_gets_repo_relative_uris_and_fingerprints(self):
        # GitHub code scanning places alerts by repo-relative URIs and keeps one alert per
        # partialFingerprint: the git top level is %SRCROOT% by default, and a result's URI
        # joined to it names the real file; its fingerprint is the baseline's.
        f = os.path.join(STATIC, "ds_pos_launch_zero_stream.cu")
        top = subprocess.run(["git", "rev-parse", "--show-toplevel"], cwd=STATIC, capture_output=True,
                             text=True).stdout.strip()
        with tempfile.TemporaryDirectory() as d:
            base = os.path.join(d, "baseline.json")
            rc, out, err = lint("--format=sarif", f"--write-baseline={base}", f, "--", cwd=STATIC)
            self.assertIn(rc, (0, 1), err)
            run = json.loads(out)["runs"][0]
            if top:
                self.assertEqual(run["originalUriBaseIds"]["%SRCROOT%"]["uri"], "file://" + top + "/")
            root = run["originalUriBaseIds"]["%SRCROOT%"]["uri"].removeprefix("file://")
            self.assertTrue(run["results"])
            for r in run["results"]:
                art = r["locations"][0]["physicalLocation"]["artifactLocation"]
                self.assertEqual(art.get("uriBaseId"), "%SRCROOT%", art)
                self.assertFalse(art["uri"].startswith(("/", "file:")), art)
                self.assertEqual(os.path.realpath(os.path.join(root, art["uri"])), os.path.realpath(f))
            with open(base) as fh:
                known = [x["fingerprint"] for x in json.load(fh)["findings"]]
            self.assertEqual(sorted(r["partialFingerprints"]["syncwatch/v1"] for r in run["results"]), sorted(known))
            # Files outside the root keep absolute URIs.
            rc, out, err = lint("--format=sarif", f"--source-root={d}", f, "--")
            run = json.loads(out)["runs"][0]
            for r in run["results"]:
                art = r["locations"][0]["physicalLocation"]["artifactLocation"]
                self.assertNotIn("uriBaseId", art)
                self.assertTrue(art["uri"].startswith("file:///"), art)
            rc, out, err = lint("--format=sarif", "--source-root=/nonexistent/root", f, "--")
            self.assertEqual(rc, 2)
            self.assertIn("--source-root '/nonexistent/root' is not a directory", err)

    def test_parse_failure_is_a_notification_and_still_valid(self):
        import jsonschema
        with open(SCHEMA) as fh:
            schema = json.load(fh)
        with tempfile.TemporaryDirectory() as d:
            bad = os.path.join(d, "broken.cu")
            with open(bad, "w") as fh:
                fh.write("#include <cuda_runtime.h>\nint main() { cudaStream_t s = undeclared_thing; }\n")
            good = os.path.join(STATIC, "ds_pos_launch_zero_stream.cu")
            rc, out, err = lint("--format=sarif", bad, good, "--")
            self.assertEqual(rc, 2, err)
            doc = json.loads(out)
            jsonschema.Draft7Validator(schema).validate(doc)
            inv = doc["runs"][0]["invocations"][0]
            self.assertFalse(inv["executionSuccessful"])
            self.assertIn("broken.cu", json.dumps(inv["toolExecutionNotifications"]))
            self.assertTrue(doc["runs"][0]["results"], "the good file's findings are kept")


class ExitCodesAndErrors(unittest.TestCase):
    def test_clean_file_exits_zero(self):
        rc, out, err = lint(os.path.join(STATIC, "ds_neg_explicit_streams_everywhere.cu"), "--")
        self.assertEqual(rc, 0, out + err)
        self.assertEqual(out, "")
        self.assertIn("no findings", err)

    def test_findings_exit_one(self):
        rc, out, _ = lint(os.path.join(STATIC, "ds_pos_launch_zero_stream.cu"), "--")
        self.assertEqual(rc, 1)
        self.assertIn("warning:", out)
        self.assertIn("[syncwatch-default-stream]", out)
        self.assertIn(" | ", out)  # source line with caret

    def test_fail_on_threshold(self):
        note_only = os.path.join(STATIC, "ds_pos_event_timing_note.cu")
        rc, out, _ = lint(note_only, "--")
        self.assertIn("note:", out)
        self.assertEqual(rc, 0, "notes do not fail the default --fail-on=warning")
        rc, _, _ = lint("--fail-on=note", note_only, "--")
        self.assertEqual(rc, 1)
        rc, _, _ = lint("--fail-on=error", os.path.join(STATIC, "ds_pos_launch_zero_stream.cu"), "--")
        self.assertEqual(rc, 0)

    def test_unparseable_file_names_it_and_others_are_reported(self):
        with tempfile.TemporaryDirectory() as d:
            bad = os.path.join(d, "broken.cu")
            with open(bad, "w") as fh:
                fh.write("#include <cuda_runtime.h>\nvoid f() { launch_missing<<<1, 1>>>(); }\n")
            good = os.path.join(STATIC, "ds_pos_launch_zero_stream.cu")
            rc, out, err = lint(bad, good, "--")
            self.assertEqual(rc, 2)
            self.assertIn("broken.cu: could not be parsed", err)
            self.assertIn("launch_missing", err)
            self.assertIn("ds_pos_launch_zero_stream.cu", out)

    def test_missing_compile_database(self):
        rc, out, err = lint("-p", "/nonexistent/build")
        self.assertEqual(rc, 2)
        self.assertIn("cannot load the compilation database", err)
        with tempfile.TemporaryDirectory() as d:
            rc, _, err = lint("-p", d)
            self.assertEqual(rc, 2)
            self.assertIn("no compile_commands.json", err)

    def test_nothing_to_do(self):
        rc, _, err = lint()
        self.assertEqual(rc, 2)
        self.assertIn("nothing to analyze", err)

    def test_unwritable_output_keeps_the_report(self):
        rc, out, err = lint("--format=json", "--output=/nonexistent/dir/report.json",
                            os.path.join(STATIC, "ds_pos_launch_zero_stream.cu"), "--")
        self.assertEqual(rc, 2)
        self.assertIn("cannot write '/nonexistent/dir/report.json'", err)
        self.assertTrue(json.loads(out)["findings"])

    def test_output_file_and_json_format(self):
        with tempfile.TemporaryDirectory() as d:
            path = os.path.join(d, "r.json")
            rc, out, _ = lint("--format=json", "--output", path,
                              os.path.join(STATIC, "ds_pos_launch_zero_stream.cu"), "--")
            self.assertEqual(rc, 1)
            self.assertEqual(out, "")
            with open(path) as fh:
                doc = json.load(fh)
            self.assertEqual(doc["filesAnalyzed"], 1)
            rules = {f["rule"] for f in doc["findings"]}
            self.assertIn("syncwatch-default-stream", rules)
            self.assertTrue(all("evidence" in f and f["location"]["line"] > 0 for f in doc["findings"]))

    def test_bad_option_values(self):
        rc, _, err = lint("--format=xml", "x.cu", "--")
        self.assertEqual(rc, 2)
        self.assertIn("unknown --format", err)
        rc, _, err = lint("--fail-on=fatal", "x.cu", "--")
        self.assertEqual(rc, 2)
        rc, _, err = lint("--checks=-*", "x.cu", "--")
        self.assertEqual(rc, 2)
        self.assertIn("enables no syncwatch check", err)


class Selection(unittest.TestCase):
    def test_checks_glob_selects_rules(self):
        f = os.path.join(STATIC, "bs_pos_stream_create_with_memcpy.cu")
        rc, out, _ = lint("--checks=-*,syncwatch-blocking-stream", "--no-source", f, "--")
        self.assertIn("[syncwatch-blocking-stream]", out)
        self.assertNotIn("[syncwatch-default-stream]", out)
        rc, out, _ = lint("--list-checks", "--checks=syncwatch-*,-syncwatch-blocking-stream")
        self.assertEqual(rc, 0)
        self.assertIn("syncwatch-default-stream", out)
        self.assertNotIn("syncwatch-blocking-stream", out)

    def test_parallel_run_is_deterministic(self):
        files = plain_inputs()[::4]
        rc1, one, err1 = lint("-j1", "--format=json", *files, "--")
        rc2, two, err2 = lint("-j", "2", "--format=json", *files, "--")
        self.assertEqual((rc1, rc2), (1, 1), err1 + err2)
        self.assertEqual(one, two)
        self.assertEqual(json.loads(one)["filesAnalyzed"], len(files))

    def test_progress_on_request(self):
        f = os.path.join(STATIC, "ds_pos_launch_zero_stream.cu")
        _, _, err = lint("--progress", f, "--")
        self.assertIn("[1/1]", err)

    def test_compile_commands_database(self):
        with tempfile.TemporaryDirectory() as d:
            src = os.path.join(STATIC, "ds_pos_launch_zero_stream.cu")
            db = [{"directory": d, "file": src,
                   "command": f"clang++ -x cuda -O2 -c {src} -o out.o"}]
            with open(os.path.join(d, "compile_commands.json"), "w") as fh:
                json.dump(db, fh)
            rc, out, err = lint("-p", d, "--no-source")
            self.assertEqual(rc, 1, err)
            self.assertIn("[syncwatch-default-stream]", out)
            # a file the database does not know is an error, not a silent skip
            other = os.path.join(STATIC, "ds_pos_macro_launch.cu")
            rc, out, err = lint("-p", d, other)
            self.assertEqual(rc, 2)
            self.assertIn("no compile command for this file", err)


class FixesAndBaselines(unittest.TestCase):
    FIXABLE = os.path.join(STATIC, "sm_pos_single_stream_fixable.cu")

    def nvcc_compiles(self, path):
        if not os.path.exists(NVCC):
            self.skipTest("nvcc not found")
        p = subprocess.run([NVCC, "-arch=sm_90", "-c", path, "-o", os.devnull],
                           capture_output=True, text=True)
        self.assertEqual(p.returncode, 0, p.stderr)

    def test_lint_fix_applies_certain_fixes_and_result_compiles(self):
        with tempfile.TemporaryDirectory() as d:
            work = os.path.join(d, "fixable.cu")
            with open(self.FIXABLE) as src, open(work, "w") as dst:
                original = src.read()
                dst.write(original)
            rc, out, err = lint("--fix", "--checks=-*,syncwatch-sync-memcpy", work, "--")
            self.assertIn("applied", err)
            with open(work) as fh:
                fixed = fh.read()
            self.assertNotEqual(fixed, original)
            self.assertIn("cudaMemsetAsync(", fixed)
            self.nvcc_compiles(work)
            # a second run has nothing left to fix for those lines
            rc, out, _ = lint("--checks=-*,syncwatch-sync-memcpy", "--no-source", work, "--")
            self.assertNotIn("cudaMemset'", out)

    def test_clang_tidy_fix_gives_the_same_edit(self):
        if not TIDY:
            self.skipTest("clang-tidy not configured")
        with tempfile.TemporaryDirectory() as d:
            a, b = os.path.join(d, "a.cu"), os.path.join(d, "b.cu")
            for path in (a, b):
                with open(self.FIXABLE) as src, open(path, "w") as dst:
                    dst.write(src.read())
            subprocess.run([TIDY, "--load=" + PLUGIN, "--checks=-*,syncwatch-sync-memcpy", "--fix",
                            "--quiet", a, "--", *TIDY_FLAGS], capture_output=True, text=True)
            lint("--fix", "--checks=-*,syncwatch-sync-memcpy", b, "--")
            with open(a) as fa, open(b) as fb:
                self.assertEqual(fa.read(), fb.read())
            self.nvcc_compiles(a)

    def test_export_fixes_yaml(self):
        with tempfile.TemporaryDirectory() as d:
            path = os.path.join(d, "fixes.yaml")
            lint("--export-fixes", path, self.FIXABLE, "--")
            with open(path) as fh:
                text = fh.read()
            self.assertIn("MainSourceFile:", text)
            self.assertIn("DiagnosticName:  syncwatch-sync-memcpy", text)
            self.assertIn("ReplacementText: cudaMemsetAsync", text)

    def test_suggested_edits_are_never_applied(self):
        # blocking-stream's non-blocking edit sits on a note: --fix leaves it alone
        with tempfile.TemporaryDirectory() as d:
            work = os.path.join(d, "b.cu")
            with open(os.path.join(STATIC, "bs_pos_stream_create_with_memcpy.cu")) as src, open(work, "w") as dst:
                original = src.read()
                dst.write(original)
            rc, out, err = lint("--fix", "--checks=-*,syncwatch-blocking-stream", work, "--")
            self.assertIn("suggested edit", out)
            with open(work) as fh:
                self.assertEqual(fh.read(), original)

    def test_baseline_survives_line_shifts_and_catches_new_findings(self):
        with tempfile.TemporaryDirectory() as d:
            work = os.path.join(d, "app.cu")
            with open(os.path.join(STATIC, "is_pos_training_loop_workspace.cu")) as src:
                original = src.read()
            with open(work, "w") as fh:
                fh.write(original)
            base = os.path.join(d, "baseline.json")
            rc, _, err = lint("--write-baseline", base, work, "--", cwd=d)
            self.assertEqual(rc, 0, err)
            with open(base) as fh:
                recorded = json.load(fh)["findings"]
            self.assertTrue(recorded)
            self.assertEqual(recorded[0]["file"], "app.cu")
            # unrelated edits: lines shift, indentation and comments change
            shifted = "// a licence header\n// added later\n\n" + original.replace("\n  ", "\n    ")
            with open(work, "w") as fh:
                fh.write(shifted)
            rc, out, err = lint("--baseline", base, "--no-source", work, "--", cwd=d)
            self.assertEqual(rc, 0, out + err)
            self.assertIn(f"{len(recorded)} known finding(s) suppressed", err)
            # a new finding still fails
            new = shifted + ("\n__global__ void extra_k() {}\n"
                             "void leak(float *p, cudaStream_t s) { extra_k<<<1, 1, 0, s>>>(); cudaFree(p); }\n")
            with open(work, "w") as fh:
                fh.write(new)
            rc, out, err = lint("--baseline", base, "--no-source", work, "--", cwd=d)
            self.assertEqual(rc, 1, out + err)
            self.assertIn("cudaFree", out)

    def test_bad_baseline_is_a_tool_error(self):
        with tempfile.TemporaryDirectory() as d:
            bad = os.path.join(d, "b.json")
            with open(bad, "w") as fh:
                fh.write("{not json")
            rc, _, err = lint("--baseline", bad, self.FIXABLE, "--")
            self.assertEqual(rc, 2)
            self.assertIn("is not JSON", err)
            rc, _, err = lint("--baseline", os.path.join(d, "missing.json"), self.FIXABLE, "--")
            self.assertEqual(rc, 2)
            self.assertIn("cannot read baseline", err)

    def test_report_unknown_notes_untraceable_memory(self):
        f = os.path.join(STATIC, "pa_neg_unknown_provenance.cu")
        rc, out, _ = lint("--checks=-*,syncwatch-pageable-async-copy", "--no-source", f, "--")
        self.assertNotIn("[syncwatch-pageable-async-copy]", out)
        rc, out, _ = lint("--report-unknown", "--checks=-*,syncwatch-pageable-async-copy", "--no-source", f, "--")
        self.assertIn("note:", out)
        self.assertIn("cannot trace", out)
        # The same option as .clang-tidy spells it: the check reads its own ReportUnknown.
        rc, same, _ = lint("--check-option=syncwatch-pageable-async-copy.ReportUnknown=true",
                           "--checks=-*,syncwatch-pageable-async-copy", "--no-source", f, "--")
        self.assertEqual(same, out)
        # Another check's option of that name is that check's, not this one's.
        rc, other, _ = lint("--check-option=syncwatch-default-stream.ReportUnknown=true",
                            "--checks=-*,syncwatch-pageable-async-copy", "--no-source", f, "--")
        self.assertNotIn("cannot trace", other)
        rc, _, err = lint("--check-option=ReportUnknown", f, "--")
        self.assertEqual(rc, 2)
        self.assertIn("expected syncwatch-<rule>.<Option>=<value>", err)


COMPAT = os.path.join(INPUTS, "nvcc_compat")
NVCC_PATH = NVCC if os.path.isabs(NVCC) else (shutil.which(NVCC) or NVCC)
ITEM = re.compile(r"(warning|note|error)\s+(syncwatch-[a-z-]+)")


def directive(path, name):
    with open(path) as fh:
        for _ in range(8):
            m = re.match(r"//\s*" + name + r":\s*(.*)", fh.readline())
            if m:
                return m.group(1).split()
    return []


def annotations(path):
    want = set()
    with open(path) as fh:
        for n, line in enumerate(fh, 1):
            if "// expect:" in line:
                for sev, rule in ITEM.findall(line.split("// expect:", 1)[1]):
                    want.add((os.path.realpath(path), n, sev, rule))
    return want


def reported(json_report):
    return {(os.path.realpath(f["location"]["file"]), f["location"]["line"], f["severity"], f["rule"])
            for f in json.loads(json_report)["findings"]}


def nvcc_database(d, files, extra=()):
    db = []
    for f in files:
        cmd = [NVCC_PATH, "-forward-unknown-to-host-compiler", "-arch=sm_90", *directive(f, "nvcc-flags"),
               *extra, "-x", "cu", "-c", f, "-o", os.path.basename(f) + ".o"]
        db.append({"directory": d, "file": f, "arguments": cmd})
    with open(os.path.join(d, "compile_commands.json"), "w") as fh:
        json.dump(db, fh)


class NvccDatabases(unittest.TestCase):
    """compile_commands.json entries written by nvcc, analyzed without edits."""

    def compat_inputs(self):
        return sorted(os.path.join(COMPAT, f) for f in os.listdir(COMPAT) if f.endswith(".cu"))

    def test_compat_inputs_report_exactly_their_annotations(self):
        files = self.compat_inputs()
        self.assertGreaterEqual(len(files), 7)
        with tempfile.TemporaryDirectory() as d:
            nvcc_database(d, files)
            rc, out, err = lint("-p", d, "--format=json")
            self.assertEqual(rc, 1, err)
            doc = json.loads(out)
            self.assertEqual(doc["errors"], [], err)
            self.assertEqual(doc["filesAnalyzed"], len(files))
            want = set().union(*(annotations(f) for f in files))
            self.assertEqual(reported(out), want)

    def test_every_documented_item_has_its_test_input(self):
        # docs/nvcc-compat.md's table: each item's last column names its file(s) here, which
        # the two tests above then check (item 10 once named only a corpus file).
        page = os.path.join(INPUTS, "..", "docs", "nvcc-compat.md")
        if not os.path.exists(page):
            self.skipTest("docs/nvcc-compat.md is not next to the test inputs")
        rows = [l for l in open(page) if re.match(r"\|\s*\d+\s*\|", l)]
        self.assertGreaterEqual(len(rows), 10)
        for row in rows:
            item, inputs = row.split("|")[1].strip(), row.rstrip().rstrip("|").split("|")[-1]
            named = [f for f in re.findall(r"`([\w./-]+\.cu)`", inputs) if "/" not in f]
            self.assertTrue(named, f"item {item} of docs/nvcc-compat.md names no file of test_inputs/nvcc_compat/")
            for f in named:
                self.assertTrue(os.path.exists(os.path.join(COMPAT, f)), f"item {item}: {f} is not in test_inputs/nvcc_compat/")

    def test_plain_clang_rejects_every_compat_input(self):
        # Each compat item exists because clang's host-side parse fails without it.
        clangxx = shutil.which("clang++-22")
        if not clangxx:
            self.skipTest("clang++-22 not found")
        for f in self.compat_inputs():
            p = subprocess.run([clangxx, "-fsyntax-only", "-x", "cuda", *TIDY_FLAGS,
                                *directive(f, "plain-clang-flags"), f], capture_output=True, text=True)
            self.assertNotEqual(p.returncode, 0, f"{f} parses without syncwatch's nvcc compatibility")

    def test_per_thread_default_stream_from_nvcc_flag(self):
        f = os.path.join(STATIC, "ds_neg_per_thread_flags.cu")
        with tempfile.TemporaryDirectory() as d:
            nvcc_database(d, [f])  # its nvcc-flags: --default-stream per-thread
            self.assertIn("per-thread", " ".join(directive(f, "nvcc-flags")))
            rc, out, err = lint("-p", d, "--no-source")
            self.assertEqual(rc, 0, out + err)
            # the same file as a legacy-stream build does report
            nvcc_database(d, [f], extra=["--default-stream", "legacy"])
            rc, out, err = lint("-p", d, "--no-source", "--fail-on=note")
            self.assertEqual(rc, 1, out + err)
            self.assertIn("[syncwatch-default-stream]", out)

    def test_print_commands_shows_the_translation(self):
        f = os.path.join(COMPAT, "relaxed_constexpr_rdc.cu")
        with tempfile.TemporaryDirectory() as d:
            nvcc_database(d, [f], extra=["-ccbin", "/usr/bin/g++", "--use_fast_math", "-t", "2"])
            rc, out, err = lint("-p", d, "--print-commands")
            self.assertEqual(rc, 0, err)
            self.assertIn("--cuda-host-only", out)
            self.assertIn("--cuda-gpu-arch=sm_90", out)
            self.assertIn("-fgpu-rdc", out)
            self.assertIn("-D__CUDACC_RELAXED_CONSTEXPR__", out)
            self.assertIn("syncwatch_nvcc_compat.h", out)
            for gone in ("-ccbin", "--use_fast_math", "-rdc=true", "-forward-unknown", " -t "):
                self.assertNotIn(gone, out)

    def test_broken_nvcc_entry_is_a_tool_error_others_reported(self):
        with tempfile.TemporaryDirectory() as d:
            bad = os.path.join(d, "broken.cu")
            with open(bad, "w") as fh:
                fh.write("__global__ void k() {}\nvoid f() { k<<<1, 1>>>(undeclared_stream_var); }\n")
            good = os.path.join(COMPAT, "host_min_max.cu")
            nvcc_database(d, [bad, good])
            rc, out, err = lint("-p", d, "--no-source")
            self.assertEqual(rc, 2)
            self.assertIn("broken.cu: could not be parsed", err)
            self.assertIn("undeclared_stream_var", err)
            self.assertIn("host_min_max.cu", out)

    def test_missing_response_file_is_a_tool_error(self):
        with tempfile.TemporaryDirectory() as d:
            f = os.path.join(COMPAT, "host_min_max.cu")
            db = [{"directory": d, "file": f,
                   "command": f"{NVCC_PATH} @includes.rsp -arch=sm_90 -x cu -c {f} -o a.o"}]
            with open(os.path.join(d, "compile_commands.json"), "w") as fh:
                json.dump(db, fh)
            rc, _, err = lint("-p", d)
            self.assertEqual(rc, 2)
            self.assertIn("includes.rsp", err)
            with open(os.path.join(d, "includes.rsp"), "w") as fh:
                fh.write("-DFROM_RSP=1 --default-stream legacy\n")
            rc, out, err = lint("-p", d, "--no-source")
            self.assertEqual(rc, 1, err)


class ShardsAndMerge(unittest.TestCase):
    """--shard=K/N and merge: the shards' SARIF merges into the unsharded run's, byte for byte."""

    def make_db(self, d):
        files = plain_inputs()[::5]
        # a header with a finding, included by two files that may land in different shards
        hdr = os.path.join(d, "launch_helpers.cuh")
        with open(hdr, "w") as fh:
            fh.write("#pragma once\n__global__ void helper_k(float *p) { p[0] = 1.f; }\n"
                     "inline void helper_launch(float *p, cudaStream_t s) {\n"
                     "  helper_k<<<1, 1, 0, s>>>(p);\n  helper_k<<<1, 1, 0, 0>>>(p);\n}\n")
        for name in ("user_a.cu", "user_b.cu"):
            with open(os.path.join(d, name), "w") as fh:
                fh.write('#include "launch_helpers.cuh"\nvoid go_%s(float *p, cudaStream_t s) '
                         '{ helper_launch(p, s); }\n' % name[5])
            files.append(os.path.join(d, name))
        broken = os.path.join(d, "broken.cu")
        with open(broken, "w") as fh:
            fh.write("void f() { this_is_not_declared(); }\n")
        files.append(broken)
        db = [{"directory": d, "file": f, "command": f"clang++ -x cuda -O2 -c {f} -o x.o"} for f in files]
        with open(os.path.join(d, "compile_commands.json"), "w") as fh:
            json.dump(db, fh)
        return files

    def test_sharded_runs_merge_into_the_unsharded_sarif(self):
        with tempfile.TemporaryDirectory() as d:
            files = self.make_db(d)
            full = os.path.join(d, "full.sarif")
            rc, _, err = lint("-p", d, "--format=sarif", "-o", full, "-j2")
            self.assertEqual(rc, 2, err)  # broken.cu
            for n in (2, 3, 5):
                parts, seen = [], 0
                for k in range(1, n + 1):
                    out = os.path.join(d, f"s{k}of{n}.sarif")
                    rc, _, err = lint("-p", d, f"--shard={k}/{n}", "--format=sarif", "-o", out, "-j1")
                    self.assertIn(rc, (0, 1, 2), err)
                    seen += int(re.search(r"shard \d+/\d+: (\d+) of", err).group(1))
                    parts.append(out)
                self.assertEqual(seen, len(files))
                merged = os.path.join(d, f"merged{n}.sarif")
                rc, _, err = lint("merge", *parts, "-o", merged)
                self.assertEqual(rc, 2, err)  # the broken file's tool error survives the merge
                with open(full, "rb") as a, open(merged, "rb") as b:
                    self.assertEqual(a.read(), b.read(), f"{n} shards")
            with open(full) as fh:
                doc = json.load(fh)
            header = [r for r in doc["runs"][0]["results"]
                      if r["locations"][0]["physicalLocation"]["artifactLocation"]["uri"].endswith("launch_helpers.cuh")]
            self.assertEqual(len(header), 1, "the header's finding is reported once")

    def test_merge_text_and_bad_inputs(self):
        with tempfile.TemporaryDirectory() as d:
            f = os.path.join(STATIC, "ds_pos_launch_zero_stream.cu")
            a = os.path.join(d, "a.sarif")
            lint("--format=sarif", "-o", a, f, "--")
            rc, out, err = lint("merge", a, a, "--format=text", "--no-source")
            self.assertEqual(rc, 1, err)
            self.assertIn("[syncwatch-default-stream]", out)
            bad = os.path.join(d, "bad.sarif")
            with open(bad, "w") as fh:
                fh.write("{}")
            rc, _, err = lint("merge", a, bad)
            self.assertEqual(rc, 2)
            self.assertIn("bad.sarif", err)
            with open(a) as fh:
                other = json.load(fh)
            other["runs"][0]["tool"]["driver"]["version"] = "0.0.0-other"
            b = os.path.join(d, "b.sarif")
            with open(b, "w") as fh:
                json.dump(other, fh)
            rc, _, err = lint("merge", a, b)
            self.assertEqual(rc, 2)
            self.assertIn("different tools", err)
            rc, _, err = lint("merge")
            self.assertEqual(rc, 2)

    def test_bad_shard_values(self):
        for bad in ("0/2", "3/2", "x", "1/0", "2"):
            rc, _, err = lint(f"--shard={bad}", "x.cu", "--")
            self.assertEqual(rc, 2, bad)
            self.assertIn("--shard", err)


class Robustness(unittest.TestCase):
    def test_deep_nesting_is_an_error_not_a_crash(self):
        # Found by bench/robustness.py (broken_nesting inputs): clang++-22 -fsyntax-only dies of
        # a stack overflow on 5,000 nested parentheses; syncwatch-lint parses on a large
        # stack and reports clang's nesting-limit error for that file only.
        with tempfile.TemporaryDirectory() as d:
            deep = os.path.join(d, "deep_nesting.cu")
            with open(deep, "w") as fh:
                fh.write("static int nested = " + "(" * 5000 + "1" + ")" * 5000 + ";\n")
            good = os.path.join(STATIC, "ds_pos_launch_zero_stream.cu")
            rc, out, err = lint("--no-source", deep, good, "--")
            self.assertEqual(rc, 2, err)
            self.assertIn("deep_nesting.cu: could not be parsed", err)
            self.assertIn("bracket nesting level", err)
            self.assertIn("ds_pos_launch_zero_stream.cu", out)

    def test_a_crash_costs_one_file(self):
        with tempfile.TemporaryDirectory() as d:
            crash = os.path.join(d, "crash.cu")
            with open(crash, "w") as fh:
                fh.write("#pragma clang __debug crash\nint x;\n")
            good = os.path.join(STATIC, "ds_pos_launch_zero_stream.cu")
            stats = os.path.join(d, "stats.json")
            rc, out, err = lint("--no-source", "--run-stats", "--run-stats-json", stats, crash, good, "--")
            self.assertEqual(rc, 2, err)
            self.assertIn("crash.cu: the analysis crashed", err)
            self.assertIn("ds_pos_launch_zero_stream.cu", out)
            self.assertIn("peak RSS", err)
            with open(stats) as fh:
                s = json.load(fh)
            self.assertEqual(s["crashesRecovered"], 1)
            self.assertEqual(s["analyzed"], 1)
            self.assertGreater(s["peakRssKiB"], 0)


class MeasuredProfile(unittest.TestCase):
    """--profile: severities from `syncwatch calibrate`'s measurements on the user's GPU."""
    PROFILE = os.path.join(INPUTS, "profiles", "frees_do_not_block.json")

    def findings(self, *extra):
        files = [os.path.join(STATIC, "is_pos_free_after_launch.cu"), os.path.join(STATIC, "ds_pos_launch_zero_stream.cu")]
        rc, out, err = lint("--format=json", *extra, *files, "--", *TIDY_FLAGS)
        self.assertIn(rc, (0, 1), err)
        return json.loads(out)["findings"], err

    def test_a_profile_where_frees_do_not_block_turns_their_findings_into_notes(self):
        before, _ = self.findings()
        after, err = self.findings("--profile", self.PROFILE)
        self.assertIn("profile of Example GPU (9.0), driver 13000", err)
        frees = [f for f in after if f["rule"] == "syncwatch-implicit-sync" and dict(f["evidence"])["api"] == "cudaFree"]
        self.assertTrue(frees)
        for f in frees:
            self.assertEqual(f["severity"], "note")
            self.assertIn("cudaFree did not block the host on Example GPU", dict(f["evidence"])["profile"])
        legacy = [f for f in after if f["rule"] == "syncwatch-default-stream"]
        self.assertTrue(legacy and all(f["severity"] == "note" for f in legacy))
        # Without the profile the catalogue's H200 measurements stand: warnings.
        self.assertTrue(all(f["severity"] == "warning" for f in before
                            if f["rule"] in ("syncwatch-implicit-sync", "syncwatch-default-stream")
                            and dict(f["evidence"]).get("api") in ("cudaFree", "<<<>>>", "cudaLaunchKernel")))
        self.assertEqual(len(before), len(after))

    def test_a_bad_profile_is_a_tool_error(self):
        rc, _, err = lint("--profile", "/nonexistent/profile.json", os.path.join(STATIC, "ds_pos_launch_zero_stream.cu"), "--")
        self.assertEqual(rc, 2)
        self.assertIn("cannot read profile '/nonexistent/profile.json'", err)
        with tempfile.TemporaryDirectory() as d:
            other = os.path.join(d, "other.json")
            with open(other, "w") as fh:
                fh.write('{"schema": "something-else"}')
            rc, _, err = lint("--profile", other, os.path.join(STATIC, "ds_pos_launch_zero_stream.cu"), "--")
            self.assertEqual(rc, 2)
            self.assertIn("is not a syncwatch profile", err)


if __name__ == "__main__":
    unittest.main(argv=[sys.argv[0], "-v"])
