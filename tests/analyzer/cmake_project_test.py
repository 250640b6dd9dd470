#!/usr/bin/env python3
"""The CMake + nvcc project in test_inputs/cmake_project, as a user's CI would run syncwatch.

  cmake_project_test.py lint <cmake> <nvcc> <syncwatch-lint> <project dir> <work dir> <schema>
      configures the project with CMake and nvcc (no build needed: CMake writes
      compile_commands.json at configure time), runs syncwatch-lint -p on that database
      exactly as CMake wrote it, and compares the findings with the `// expect:` annotations
      in the project's sources; then runs it in 3 shards and checks that
      `syncwatch-lint merge` gives the unsharded SARIF byte for byte.
  cmake_project_test.py tidy <cmake> <nvcc> <syncwatch-clang-tidy> <clang-tidy> <plugin>
                        <project dir> <work dir>
      builds the project with clang-tidy and syncwatch's plugin on every file: C++ targets
      through CMAKE_CXX_CLANG_TIDY, CUDA targets through CMAKE_CUDA_COMPILER_LAUNCHER (CMake
      runs <LANG>_CLANG_TIDY for C/C++/Objective-C only), both via syncwatch-clang-tidy,
      which translates the nvcc/g++ command; checks the build succeeds and clang-tidy
      reports exactly the annotated findings.
"""
import hashlib
import json
import urllib.parse
import os
import re
import shutil
import subprocess
import sys
import unittest

MODE = sys.argv[1] if len(sys.argv) > 1 else ""
ARGS = sys.argv[2:]
ITEM = re.compile(r"(warning|note|error)\s+(syncwatch-[a-z-]+)")
DIAG = re.compile(r"^(/[^:]*):(\d+):(\d+): (warning|remark|note|error): (.*) \[(syncwatch-[a-z-]+)\]$")
SOURCES = (".cu", ".cpp", ".h", ".cuh")


def expectations(project):
    want = set()
    for root, _, files in os.walk(project):
        for f in files:
            if not f.endswith(SOURCES):
                continue
            path = os.path.realpath(os.path.join(root, f))
            with open(path) as fh:
                for n, line in enumerate(fh, 1):
                    if "// expect:" in line:
                        for sev, rule in ITEM.findall(line.split("// expect:", 1)[1]):
                            want.add((path, n, sev, rule))
    return want


def describe(items, project):
    return "\n".join(f"    {os.path.relpath(p, project)}:{l}: {s} {r}" for p, l, s, r in sorted(items)) or "    (none)"


def run(cmd, cwd=None, timeout=900):
    return subprocess.run(cmd, cwd=cwd, capture_output=True, text=True, timeout=timeout)


def configure(cmake, nvcc, project, build, extra=()):
    shutil.rmtree(build, ignore_errors=True)
    p = run([cmake, "-S", project, "-B", build, "-G", "Ninja", "-DCMAKE_BUILD_TYPE=Release",
             "-DCMAKE_CUDA_ARCHITECTURES=90", f"-DCMAKE_CUDA_COMPILER={nvcc}",
             "-DCMAKE_EXPORT_COMPILE_COMMANDS=ON", *extra])
    if p.returncode != 0:
        raise AssertionError(f"cmake configure failed:\n{p.stdout}\n{p.stderr}")


class LintOnCMakeDatabase(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.cmake, cls.nvcc, cls.lint, cls.project, cls.work, cls.schema = ARGS
        cls.project = os.path.realpath(cls.project)
        cls.build = os.path.join(cls.work, "build")
        configure(cls.cmake, cls.nvcc, cls.project, cls.build)
        cls.db_path = os.path.join(cls.build, "compile_commands.json")
        with open(cls.db_path, "rb") as fh:
            cls.db_bytes = fh.read()
        cls.db = json.loads(cls.db_bytes)
        cls.full = os.path.join(cls.work, "full.sarif")
        p = run([cls.lint, "-p", cls.build, "--format=sarif", "--output", cls.full])
        cls.rc, cls.err = p.returncode, p.stderr
        with open(cls.full) as fh:
            cls.sarif = json.load(fh)

    def entry(self, suffix):
        for e in self.db:
            if e["file"].endswith(suffix):
                return e
        self.fail(f"no database entry for {suffix}")

    def test_database_is_what_cmake_and_nvcc_write(self):
        # The point of the test: real nvcc commands, nothing edited by hand.
        files = sorted(os.path.relpath(e["file"], self.project) for e in self.db)
        self.assertEqual(len(files), 8, files)
        cu = self.entry("streams_pt/worker.cu")["command"]
        self.assertRegex(cu, r"^\S*nvcc ")
        self.assertIn("-forward-unknown-to-host-compiler", cu)
        self.assertIn("--default-stream per-thread", cu)
        self.assertIn("-rdc=true", cu)
        self.assertIn("-x cu", cu)
        self.assertRegex(cu, r"--generate-code=arch=compute_90|-arch=sm_90|-gencode")
        self.assertIn("-Xcompiler=-fopenmp", self.entry("omp_stage/stage.cu")["command"])
        self.assertIn("--extended-lambda", self.entry("imaging/resize.cu")["command"])
        cpp = self.entry("omp_stage/host_pool.cpp")["command"]
        self.assertNotIn("nvcc", cpp.split()[0])
        self.assertIn("-fopenmp", cpp)
        with open(self.db_path, "rb") as fh:
            self.assertEqual(hashlib.sha256(fh.read()).hexdigest(),
                             hashlib.sha256(self.db_bytes).hexdigest(), "the database was modified")

    def test_findings_match_the_annotations(self):
        self.assertEqual(self.rc, 1, self.err)
        run0 = self.sarif["runs"][0]
        self.assertTrue(run0["invocations"][0]["executionSuccessful"],
                        json.dumps(run0["invocations"][0]["toolExecutionNotifications"], indent=1))
        have = set()
        for r in run0["results"]:
            loc = r["locations"][0]["physicalLocation"]
            art = loc["artifactLocation"]  # repo-relative URIs resolve against the run's %SRCROOT%
            root = run0.get("originalUriBaseIds", {}).get(art.get("uriBaseId", ""), {}).get("uri", "")
            path = urllib.parse.unquote((root + art["uri"]).removeprefix("file://"))
            have.add((os.path.realpath(path), loc["region"]["startLine"], r["level"], r["ruleId"]))
        want = expectations(self.project)
        self.assertTrue(want)
        self.assertEqual(have, want,
                         f"\n  missing (annotated, not reported):\n{describe(want - have, self.project)}"
                         f"\n  extra (reported, not annotated):\n{describe(have - want, self.project)}")

    def test_sarif_is_valid(self):
        import jsonschema
        with open(self.schema) as fh:
            jsonschema.Draft7Validator(json.load(fh)).validate(self.sarif)

    def test_shards_merge_into_the_unsharded_report(self):
        parts = []
        for k in (1, 2, 3):
            out = os.path.join(self.work, f"shard{k}.sarif")
            p = run([self.lint, "-p", self.build, f"--shard={k}/3", "--format=sarif", "--output", out])
            self.assertIn(p.returncode, (0, 1), p.stderr)
            self.assertIn(f"shard {k}/3", p.stderr)
            parts.append(out)
        merged = os.path.join(self.work, "merged.sarif")
        p = run([self.lint, "merge", *parts, "--output", merged])
        self.assertEqual(p.returncode, 1, p.stderr)
        with open(merged, "rb") as a, open(self.full, "rb") as b:
            self.assertEqual(a.read(), b.read(), "merged shards differ from the unsharded run")


class TidyInTheBuild(unittest.TestCase):
    def test_build_with_clang_tidy_reports_the_annotated_findings(self):
        cmake, nvcc, wrapper, tidy, plugin, project, work = ARGS
        project = os.path.realpath(project)
        build = os.path.join(work, "build")
        checks = "--checks=-*,syncwatch-*"
        configure(cmake, nvcc, project, build, [
            f"-DCMAKE_CXX_CLANG_TIDY={wrapper};{tidy};--load={plugin};{checks}",
            f"-DCMAKE_CUDA_COMPILER_LAUNCHER={wrapper};--launcher;{tidy};--load={plugin};{checks};--",
        ])
        p = run([cmake, "--build", build, "-j", "2"], timeout=1500)
        log = p.stdout + p.stderr
        self.assertEqual(p.returncode, 0, log[-6000:])
        for exe in ("pipeline_app", "omp_tool"):
            self.assertTrue(os.path.exists(os.path.join(build, exe)), f"{exe} was not built")
        have = set()
        for line in log.splitlines():
            m = DIAG.match(line.strip())
            if m:
                sev = "note" if m.group(4) == "remark" else m.group(4)
                have.add((os.path.realpath(m.group(1)), int(m.group(2)), sev, m.group(6)))
        want = expectations(project)
        self.assertEqual(have, want,
                         f"\n  missing (annotated, not reported):\n{describe(want - have, project)}"
                         f"\n  extra (reported, not annotated):\n{describe(have - want, project)}"
                         f"\n  build log tail:\n{log[-4000:]}")


if __name__ == "__main__":
    suite = {"lint": LintOnCMakeDatabase, "tidy": TidyInTheBuild}.get(MODE)
    if suite is None:
        sys.exit(__doc__)
    os.makedirs(ARGS[-1] if MODE == "tidy" else ARGS[4], exist_ok=True)
    result = unittest.TextTestRunner(verbosity=2).run(unittest.defaultTestLoader.loadTestsFromTestCase(suite))
    sys.exit(0 if result.wasSuccessful() else 1)
