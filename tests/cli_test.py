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
            f = doc["findings"][0]
            self.assertEqual(f["rule"], "syncwatch-default-stream")
            self.assertIn("evidence", f)

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
        files = plain_inputs()
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


if __name__ == "__main__":
    unittest.main(argv=[sys.argv[0], "-v"])
