#!/usr/bin/env python3
"""syncwatch-lint as CI uses it: exit codes, formats, SARIF validity, bad input.

Run by ctest with the paths of the built tools:
  cli_test.py <syncwatch-lint> <test_inputs dir> <sarif schema>
"""
import json
import os
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


if __name__ == "__main__":
    unittest.main(argv=[sys.argv[0], "-v"])
