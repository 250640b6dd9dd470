#!/usr/bin/env python3
"""Docs that are tested (issue 25): README.md and docs/**/*.md read as a new user reads them.

  docs_test.py BUILD_DIR [SOURCE_DIR]

BUILD_DIR holds analyzer/syncwatch-lint and interposer/syncwatch (the CMake build);
SOURCE_DIR defaults to this file's checkout. Checked:

1. YAML. Every ```yaml block parses with yaml.safe_load (GitHub Actions' `${{ }}` inside a
   `{ }` flow map does not). Blocks that are GitHub Actions workflows (a `jobs:` map) must
   run syncwatch on a GitHub-hosted runner whose glibc the .deb supports (ubuntu-24.04 or
   later: the .deb depends on libc6 >= 2.36) and install syncwatch (and, for the lint,
   LLVM 22 from apt.llvm.org) in an earlier step. pre-commit configs (`repo:` entries) must
   name `repo: local` or a placeholder URL, and a `rev:` that is a placeholder, a commit
   sha or a tag this repository has: a URL or tag the test cannot check is a failure.
2. Links. Every relative Markdown link `[text](path)` / `(path#anchor)` names an existing
   file (relative to the page) and, where it has an anchor, a heading of that page (GitHub's
   slugs). Every repository path named in prose or inline code (`docs/...`, `tests/...`,
   `test_inputs/...`, ...; `shared/` and `facts/`, which a user's checkout has not) exists
   (globs allowed, `:line` suffixes dropped), relative to the repository root.
3. Flags. A `--flag` is taken as syncwatch's when it appears (a) after `syncwatch-lint` or
   `syncwatch <subcommand>` on one command line - in any fenced block (lines joined at a
   trailing `\\` and at usage-style continuation lines that start with `[`) or in one
   inline code span - up to the end of that command (` -- `, which hands the rest to the
   job or the compiler, `|`, `||`, `&&`, `;`, or the next tool), or (b) in a row of an
   option table: docs/ci.md's `| option | ...` table (syncwatch-lint), a `syncwatch-lint
   flag` column (rule pages), or a table with an `option` and a `command` column (the
   command cell names the `syncwatch` subcommands). nvcc/clang/clang-tidy flags elsewhere
   (`--cuda-gpu-arch`, `--default-stream`, `--load`) are therefore never taken for
   syncwatch's. Each such flag must be in that tool's `--help` (syncwatch-lint --help;
   `syncwatch --help` and `syncwatch <sub> --help`), and each option that a `--help` lists
   must be in an option table for its tool - docs/ci.md's for syncwatch-lint, docs/runtime.md's
   for the subcommands: the reference a user looks options up in (LLVM's generic options
   excepted: the allow-list GENERIC below). Also: a page's `--baseline=FILE` comes after a
   `--write-baseline=` of that file in the page (a missing baseline is exit 2), and the
   install tree's `bin/syncwatch` row names every subcommand of `syncwatch --help`.
4. Runnable blocks. A ```sh fence right under `<!-- docs-test: run -->` or
   `<!-- docs-test: run, exit N -->` runs with `bash -e -o pipefail` and must exit N
   (default 0); one under `<!-- docs-test: gpu -->` needs a GPU: it is skipped and counted.
   A page's runnable blocks run in order in one scratch copy of the repository (its
   git-tracked and untracked-unignored files; no git worktree), where `build` is a symlink
   to BUILD_DIR, PATH starts with BUILD_DIR/analyzer and BUILD_DIR/interposer, and
   SYNCWATCH_BUILD is BUILD_DIR.
5. LD_PRELOAD / CUDA_INJECTION64_PATH values in the docs are absolute (`/...`, `$PWD/...`,
   `$VAR`) or a bare library name: a relative path breaks in every child that changes
   directory.
6. Samples. Every output sample under a `<!-- docs-sample: COMMAND -->` marker is what its
   command gives now: `ci/gen_doc_samples.py --check` (the runtime's samples are replays of
   the committed H200 recordings); a stale one fails, and `ci/gen_doc_samples.py` rewrites it.
7. Lint examples. A ```cuda block under `<!-- docs-test: lint -->` is a whole translation
   unit; syncwatch-lint runs on it (`FILE --`, JSON) and each of its diagnostics - a
   finding's line with its severity, a note's line as `note` - must be on a line whose
   comment says so (`// warning: ...`, `// note: ...`), and each such comment must get one.
   A rule page's example then says what the analyzer really says (issue 25, item 6).

8. CONTRIBUTING.md's runnable blocks (`<!-- docs-test: run -->`: tools/new_rule.py's example,
   a rule that does not exist yet) run as in 4, in a scratch copy of their own.
9. The install tree: `cmake --install BUILD_DIR --prefix TMP` and its install manifest
   against docs/install.md's install-tree table: every installed binary and library
   (bin/, lib/*.so, libexec/) is named in the table, and every path the table names was
   installed.
10. Editor snippets. Every lua and elisp block of docs/editor.md has an
   `<!-- editor-snippet: NAME -->` marker right above it: ctest nvim_lsp and emacs_* run the
   marked blocks as written (tests/lsp/editors/snippets.py), so an unmarked one would go untried.

Prints each failure as file:line, then "docs test: N files, B yaml blocks, R runnable
blocks run, G GPU blocks skipped, L links, F flags checked, S samples generated, E lint
examples"; exits 1 on any failure."""
import atexit
import glob
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile

try:
    import yaml
except ImportError:  # ci/setup.sh installs PyYAML; without it the YAML blocks cannot be checked
    print("docs test: FAIL: PyYAML is not installed (python3 -m pip install pyyaml)")
    sys.exit(1)

if len(sys.argv) < 2:
    print(__doc__)
    sys.exit(2)
BUILD = os.path.abspath(sys.argv[1])
ROOT = os.path.abspath(sys.argv[2] if len(sys.argv) > 2 else os.path.join(os.path.dirname(__file__), "..", ".."))
LINT = os.path.join(BUILD, "analyzer", "syncwatch-lint")
SW = os.path.join(BUILD, "interposer", "syncwatch")
SUBCOMMANDS = ("run", "replay", "merge", "confirm", "verify", "gate", "calibrate")
BLOCK_TIMEOUT_S = 300

# LLVM's cl:: library gives every tool these; they are not syncwatch's options, so they need
# no documentation, and a page may name them although `--help` lists only some of them.
GENERIC = {
    "syncwatch-lint": {"--help", "--help-list", "--help-hidden", "--help-list-hidden", "--version",
                       "--print-all-options", "--print-options"},
    "syncwatch": {"--help", "--version"},  # every subcommand also takes --help
}

failures = []
scratches = []  # the pages' scratch copies, removed at exit
atexit.register(lambda: [shutil.rmtree(d, ignore_errors=True) for d in scratches])


def fail(where, what):
    failures.append(f"{where}: {what}")


# --------------------------------------------------------------------------------------
# The tools' options, from their --help.
def help_text(*cmd):
    p = subprocess.run(list(cmd), capture_output=True, text=True, timeout=60)
    return p.stdout + p.stderr


def lint_options():
    opts = set()
    for line in help_text(LINT, "--help").splitlines():
        m = re.match(r"\s{2}(-{1,2}[A-Za-z][\w-]*)", line)  # "  --name=<x> - ..." or "  -j <uint> - ..."
        if m:
            opts.add(m.group(1))
        if "syncwatch-lint merge" in line:  # the OVERVIEW's usage of `merge`
            opts |= set(re.findall(r"(?<![\w-])--[A-Za-z][\w-]*", line))
    return opts


def syncwatch_usage_flags(text):
    """{subcommand: flags} from `usage: syncwatch SUB ...` lines and their `[...]` continuations."""
    out, sub = {}, None
    for line in text.splitlines():
        m = re.match(r"usage: syncwatch (\w+)", line)
        if m:
            sub = m.group(1)
        elif not line.lstrip().startswith("["):
            sub = None if not line.startswith(" ") else sub
            continue
        if sub:  # long options, and short ones (verify's -p)
            out.setdefault(sub, set()).update(re.findall(r"(?<![\w-])--?[A-Za-z][\w-]*", line))
    return out


def syncwatch_options():
    top = help_text(SW, "--help")
    per = syncwatch_usage_flags(top)
    for sub in SUBCOMMANDS:
        if sub not in per:
            fail("syncwatch --help", f"no usage line for '{sub}'")
        for s, flags in syncwatch_usage_flags(help_text(SW, sub, "--help")).items():
            if s == sub:
                per.setdefault(sub, set()).update(flags)
    return per


# --------------------------------------------------------------------------------------
# Markdown: fences, inline code, tables.
FENCE = re.compile(r"^(\s*)(`{3,}|~{3,})\s*([^\s`]*)")


def parse_page(text):
    """Returns (blocks, prose): blocks are dicts (lang, start line, lines, marker); prose is
    [(line number, text)] of the lines outside fences."""
    lines = text.split("\n")
    blocks, prose, i = [], [], 0
    while i < len(lines):
        m = FENCE.match(lines[i])
        if not m:
            prose.append((i + 1, lines[i]))
            i += 1
            continue
        indent, fence, lang = len(m.group(1)), m.group(2), m.group(3).lower()
        start, body = i + 1, []
        i += 1
        while i < len(lines) and not re.match(r"^\s*" + re.escape(fence[0]) + "{%d,}\\s*$" % len(fence), lines[i]):
            line = lines[i]
            body.append(line[indent:] if line[:indent].strip() == "" else line.lstrip())
            i += 1
        i += 1  # the closing fence
        marker = None
        if start >= 2:
            mm = re.match(r"^\s*<!--\s*docs-test:\s*(.*?)\s*-->\s*$", lines[start - 2])
            if mm:
                marker = mm.group(1)
        blocks.append({"lang": lang, "line": start, "lines": body, "marker": marker})
    return blocks, prose


def code_spans(line):
    return [m.group(2) for m in re.finditer(r"(`+)(.+?)\1", line)]


def strip_code(line):
    return re.sub(r"(`+)(.+?)\1", " ", line)


def table_cells(line):
    s = line.strip()
    if not s.startswith("|"):
        return None
    s = s.strip("|")
    return [c.strip().replace("\\|", "|") for c in re.split(r"(?<!\\)\|", s)]


def tables(prose):
    """[(header cells, [(line number, cells)])] of the Markdown tables among the prose lines."""
    out, i = [], 0
    while i + 1 < len(prose):
        head, sep = table_cells(prose[i][1]), table_cells(prose[i + 1][1])
        if head and sep and all(re.fullmatch(r":?-{3,}:?", c) for c in sep if c):
            rows, j = [], i + 2
            while j < len(prose) and table_cells(prose[j][1]) is not None:
                rows.append((prose[j][0], table_cells(prose[j][1])))
                j += 1
            out.append(([h.lower().strip("`* ") for h in head], rows))
            i = j
        else:
            i += 1
    return out


# --------------------------------------------------------------------------------------
# Command lines that invoke a syncwatch tool. How a flag is told from nvcc's, clang's or the
# job's: only the text after the tool's name counts, and only up to the end of that command.
# `--` ends it (after it come the compile flags of `syncwatch-lint file.cu -- ...` or the job
# of `syncwatch run -- torchrun --nproc-per-node=8 ...`), so do shell separators (` | `, `||`,
# `&&`, `;`; a lone `|` is not one: usage text writes `text|json|sarif`) and the next tool.
# `syncwatch-clang-tidy` (its arguments are clang-tidy's) and `syncwatch_lint(` (CMake) are
# not matched. A comment on the same line counts: it is about that command.
TOOL = re.compile(r"(?<![\w.-])(?:[\w.${}/-]*/)?(?:(syncwatch-lint)|(?:python3?\s+-m\s+)?syncwatch\s+("
                  + "|".join(SUBCOMMANDS) + r"))(?![\w-])")
END = re.compile(r"\s--(?=\s|$)|\s\|\s|\|\||&&|;\s|;$")
LONG_FLAG = re.compile(r"(?<![\w-])--[A-Za-z][\w-]*")
ANY_FLAG = re.compile(r"(?<![\w-])--?[A-Za-z][\w-]*")


def invocations(text):
    """[(tool key, text of its arguments)] for each syncwatch command in one command line."""
    out = []
    matches = list(TOOL.finditer(text))
    for k, m in enumerate(matches):
        stop = matches[k + 1].start() if k + 1 < len(matches) else len(text)
        seg = text[m.end():stop]
        e = END.search(seg)
        if e:
            seg = seg[:e.start()]
        key = "syncwatch-lint" if m.group(1) else ("syncwatch", m.group(2))
        out.append((key, seg))
    return out


def logical_lines(block_lines, first_line):
    """Fenced lines joined at a trailing backslash and at usage continuations (`   [--x]`)."""
    out = []
    for n, line in enumerate(block_lines):
        if out and (out[-1][1].endswith("\\") or re.match(r"^\s+\[", line)):
            out[-1] = (out[-1][0], out[-1][1].rstrip("\\") + " " + line.strip())
        else:
            out.append((first_line + 1 + n, line))
    return out


def option_tokens(text):
    """Long flags as written; short ones as their letter (`-j2` -> `-j`)."""
    toks = set()
    for t in ANY_FLAG.findall(text):
        toks.add(t if t.startswith("--") else t[:2])
    return toks


# --------------------------------------------------------------------------------------
# Link helpers.
def slugs(path):
    """GitHub's heading anchors of a Markdown page."""
    seen, out = {}, set()
    blocks, prose = parse_page(open(path, encoding="utf-8").read())
    for _, line in prose:
        m = re.match(r"^#{1,6}\s+(.*?)\s*#*\s*$", line)
        if not m:
            continue
        s = re.sub(r"[^\w\- ]", "", m.group(1).strip().lower()).replace(" ", "-")
        n = seen.get(s, 0)
        seen[s] = n + 1
        out.add(s if n == 0 else f"{s}-{n}")
    return out


REPO_PATH = re.compile(r"(?<![\w./<$-])((?:docs|tests|test_inputs|rules|analyzer|interposer|ci|bench|cmake|python"
                       r"|shared|facts)/[\w./*-]*)")


# --------------------------------------------------------------------------------------
# YAML content checks.
HOSTED_UBUNTU = re.compile(r"ubuntu-(\d+)\.(\d+)$")


def step_text(step):
    return "\n".join(str(step.get(k, "")) for k in ("run", "uses", "with", "name")) if isinstance(step, dict) else ""


SCHEMA_CHECKER = shutil.which("check-jsonschema")
n_schema = 0


def check_workflow_schema(where, body):
    """A whole GitHub workflow (it has `on:` and `jobs:`) against GitHub's workflow schema,
    as vendored by check-jsonschema (offline); skipped, and said, where it is not installed."""
    global n_schema
    if not SCHEMA_CHECKER:
        return
    with tempfile.NamedTemporaryFile("w", suffix=".yml", delete=False) as f:
        f.write(body)
    try:
        r = subprocess.run([SCHEMA_CHECKER, "--builtin-schema", "vendor.github-workflows", f.name],
                           capture_output=True, text=True, timeout=120)
        n_schema += 1
        if r.returncode != 0:
            fail(where, "the workflow is not valid against GitHub's workflow schema: " +
                 " ".join((r.stdout + r.stderr).split())[-400:])
    finally:
        os.unlink(f.name)


def check_workflow(where, doc):
    jobs = doc.get("jobs") if isinstance(doc, dict) else None
    if not isinstance(jobs, dict):
        return
    for name, job in jobs.items():
        if not isinstance(job, dict):
            continue
        runs_on = job.get("runs-on")
        steps = job.get("steps") or []
        texts = [step_text(s) for s in steps]
        uses_tool = [i for i, t in enumerate(texts) if TOOL.search(t)]
        hosted = isinstance(runs_on, str) and runs_on.startswith("ubuntu-")
        if not hosted or not uses_tool:
            continue  # a self-hosted runner's glibc and installs are its owner's
        m = HOSTED_UBUNTU.match(runs_on)
        if not m or (int(m.group(1)), int(m.group(2))) < (24, 4):
            fail(where, f"job '{name}' runs syncwatch on runs-on: {runs_on}: the .deb needs glibc >= 2.36 "
                 "(Debian 12 / Ubuntu 24.04): name ubuntu-24.04 or later")
        first = uses_tool[0]
        before = "\n".join(texts[:first])
        if not re.search(r"(apt(-get)?\s+install|dpkg\s+-i)[^\n]*syncwatch[^\n]*\.deb|pip3?\s+install[^\n]*syncwatch",
                         before):
            fail(where, f"job '{name}' runs syncwatch before any step installs it (the .deb or the wheel)")
        if any("syncwatch-lint" in texts[i] for i in uses_tool) and "apt.llvm.org" not in before:
            fail(where, f"job '{name}' runs syncwatch-lint without installing LLVM 22 (apt.llvm.org): "
                 "Ubuntu's archive has no LLVM 22")


def git_tags():
    p = subprocess.run(["git", "-C", ROOT, "tag", "-l"], capture_output=True, text=True)
    return set(p.stdout.split()) if p.returncode == 0 else set()


def check_pre_commit(where, doc):
    entries = doc.get("repos") if isinstance(doc, dict) else doc
    if not isinstance(entries, list):
        return
    for e in entries:
        if not isinstance(e, dict) or "repo" not in e:
            continue
        repo, rev = str(e["repo"]), e.get("rev")
        if repo == "local":
            continue
        if "<" not in repo:
            fail(where, f"pre-commit repo: {repo}: no such repository can be checked here; "
                 "use 'repo: local' or a placeholder for your fork's URL")
        if rev is None:
            fail(where, "pre-commit repo without rev:")
        elif not (str(rev).startswith("<") or re.fullmatch(r"[0-9a-f]{40}", str(rev)) or str(rev) in git_tags()):
            fail(where, f"pre-commit rev: {rev}: this repository has no such tag; use a commit sha")


# --------------------------------------------------------------------------------------
def scratch_copy(dest):
    p = subprocess.run(["git", "-C", ROOT, "ls-files", "-z", "--cached", "--others", "--exclude-standard"],
                       capture_output=True)
    if p.returncode == 0:
        for rel in filter(None, p.stdout.decode().split("\0")):
            src = os.path.join(ROOT, rel)
            if os.path.isfile(src) and not rel.startswith("build/"):
                os.makedirs(os.path.dirname(os.path.join(dest, rel)) or dest, exist_ok=True)
                shutil.copy2(src, os.path.join(dest, rel))
    else:  # not a git checkout: everything but build trees
        shutil.copytree(ROOT, dest, dirs_exist_ok=True, symlinks=True,
                        ignore=shutil.ignore_patterns(".git", "build", "build-*", "__pycache__"))
    link = os.path.join(dest, "build")
    if os.path.islink(link) or os.path.isfile(link):
        os.unlink(link)
    elif os.path.isdir(link):
        shutil.rmtree(link)
    os.symlink(BUILD, link)


COMMENT_KIND = re.compile(r"//\s*(warning|note)\s*:")


def lint_example(where, body):
    """Item 7: the lint's diagnostics of a cuda block against its `// warning:` / `// note:` comments."""
    d = tempfile.mkdtemp(prefix="syncwatch-docs-lint-")
    scratches.append(d)
    path = os.path.join(d, "example.cu")
    with open(path, "w") as f:
        f.write(body + "\n")
    p = subprocess.run([LINT, "--format=json", "--fail-on=note", path, "--"], capture_output=True, text=True,
                       timeout=BLOCK_TIMEOUT_S)
    if p.returncode not in (0, 1):
        fail(where, f"syncwatch-lint could not analyze the example (exit {p.returncode}): {p.stderr.strip()[-300:]}")
        return
    got = set()
    for f in json.loads(p.stdout)["findings"]:
        got.add((f["location"]["line"], f["severity"]))
        for n in f.get("notes", []):
            if os.path.realpath(n["location"]["file"]) == os.path.realpath(path):
                got.add((n["location"]["line"], "note"))
    want = set()
    for n, line in enumerate(body.split("\n"), 1):
        for m in COMMENT_KIND.finditer(line):
            want.add((n, m.group(1)))
    for n, kind in sorted(want - got):
        fail(f"{where.rsplit(':', 1)[0]}:{int(where.rsplit(':', 1)[1]) + n}",
             f"the example promises a {kind} here; syncwatch-lint gives none")
    for n, kind in sorted(got - want):
        fail(f"{where.rsplit(':', 1)[0]}:{int(where.rsplit(':', 1)[1]) + n}",
             f"syncwatch-lint gives a {kind} here that the example's comments do not show ('// {kind}: ...')")


def run_block(where, script, want, workdir):
    env = dict(os.environ)
    env["PATH"] = os.pathsep.join([os.path.join(BUILD, "analyzer"), os.path.join(BUILD, "interposer"), env["PATH"]])
    env["SYNCWATCH_BUILD"] = BUILD
    path = os.path.join(workdir, ".docs-test-block.sh")
    with open(path, "w") as f:
        f.write(script + "\n")
    try:
        p = subprocess.run(["bash", "-e", "-o", "pipefail", path], cwd=workdir, env=env, capture_output=True,
                           text=True, timeout=BLOCK_TIMEOUT_S)
    except subprocess.TimeoutExpired:
        fail(where, f"runnable block did not finish in {BLOCK_TIMEOUT_S} s")
        return
    finally:
        os.unlink(path)
    if p.returncode != want:
        tail = (p.stdout + p.stderr).strip().splitlines()[-8:]
        fail(where, f"runnable block exited {p.returncode}, the page says {want}:\n      " + "\n      ".join(tail))


def run_contributing_blocks():
    """Item 8: the runnable sh blocks of CONTRIBUTING.md, in a scratch copy; their number."""
    rel = "CONTRIBUTING.md"
    blocks, _ = parse_page(open(os.path.join(ROOT, rel), encoding="utf-8").read())
    workdir, n = None, 0
    for b in blocks:
        mm = re.fullmatch(r"run(?:\s*,\s*exit\s+(\d+))?", b["marker"] or "")
        if not mm or b["lang"] not in ("sh", "bash"):
            if b["marker"]:
                fail(f"{rel}:{b['line']}", f"docs-test marker '{b['marker']}': only run blocks are run here")
            continue
        if workdir is None:
            workdir = tempfile.mkdtemp(prefix="syncwatch-docs-")
            scratches.append(workdir)
            scratch_copy(workdir)
        n += 1
        run_block(f"{rel}:{b['line']}", "\n".join(b["lines"]), int(mm.group(1) or 0), workdir)
    if n == 0:
        fail(rel, "no runnable block: tools/new_rule.py's example is marked <!-- docs-test: run -->")
    return n


def check_editor_snippets():
    """Item 10: docs/editor.md's lua and elisp blocks are all marked for the editor tests."""
    rel = os.path.join("docs", "editor.md")
    lines = open(os.path.join(ROOT, rel), encoding="utf-8").read().split("\n")
    blocks, _ = parse_page("\n".join(lines))
    for b in blocks:
        if b["lang"] in ("lua", "elisp", "emacs-lisp") and not (
                b["line"] >= 2 and re.match(r"^\s*<!--\s*editor-snippet:\s*[\w.+-]+\s*-->\s*$", lines[b["line"] - 2])):
            fail(f"{rel}:{b['line']}", f"a {b['lang']} snippet without an <!-- editor-snippet: NAME --> marker: "
                 "no editor test runs it")


def cmake_command():
    for line in open(os.path.join(BUILD, "CMakeCache.txt"), encoding="utf-8"):
        if line.startswith("CMAKE_COMMAND:INTERNAL="):
            return line.split("=", 1)[1].strip()
    return shutil.which("cmake")


def check_install_table():
    """Item 9: docs/install.md's install-tree table names what `cmake --install` installs."""
    rel = os.path.join("docs", "install.md")
    _, prose = parse_page(open(os.path.join(ROOT, rel), encoding="utf-8").read())
    table = next(((rows) for head, rows in tables(prose) if head[:2] == ["path", "what"]), None)
    if table is None:
        fail(rel, "no install-tree table (| path | what |)")
        return
    named = {}  # path in the table -> its line
    for n, cells in table:
        for p in code_spans(cells[0]):
            named[p.rstrip("/")] = n
    prefix = tempfile.mkdtemp(prefix="syncwatch-docs-install-")
    scratches.append(prefix)
    p = subprocess.run([cmake_command(), "--install", BUILD, "--prefix", prefix], capture_output=True, text=True,
                       timeout=BLOCK_TIMEOUT_S)
    manifest = os.path.join(BUILD, "install_manifest.txt")
    if p.returncode != 0 or not os.path.exists(manifest):
        fail(rel, f"cmake --install {BUILD} --prefix TMP failed (exit {p.returncode}): {p.stderr.strip()[-300:]}")
        return
    installed = [os.path.relpath(l.strip(), prefix) for l in open(manifest, encoding="utf-8") if l.strip()]
    for path in installed:
        top = path.split("/")[0]
        binary = top in ("bin", "libexec") or (top == "lib" and path.count("/") == 1 and ".so" in path)
        if binary and path not in named:
            fail(rel, f"{path} is installed (install_manifest.txt) but the install-tree table does not name it")
    for path, n in named.items():
        if not any(i == path or i.startswith(path + "/") for i in installed):
            fail(f"{rel}:{n}", f"{path} is in the install-tree table but `cmake --install` installs nothing there")


# --------------------------------------------------------------------------------------
def main():
    for tool in (LINT, SW):
        if not os.access(tool, os.X_OK):
            print(f"docs test: FAIL: {tool} not built")
            return 1
    known = {"syncwatch-lint": lint_options()}
    for sub, flags in syncwatch_options().items():
        known[("syncwatch", sub)] = flags | {"--help"}
    known_subs = [k[1] for k in known if k != "syncwatch-lint"]
    seen = {key: set() for key in known}  # option tokens each tool's option tables name
    pages = [os.path.join(ROOT, "README.md")] + sorted(glob.glob(os.path.join(ROOT, "docs", "**", "*.md"),
                                                                 recursive=True))
    n_yaml = n_run = n_gpu = n_links = n_paths = n_flag_mentions = n_lint = 0
    slug_cache = {}

    def check_flags(where, key, text, table=False):
        nonlocal n_flag_mentions
        if key not in known:
            fail(where, f"unknown command {key}")
            return
        if table:
            seen[key] |= option_tokens(text)
        generic = GENERIC["syncwatch-lint" if key == "syncwatch-lint" else "syncwatch"]
        name = key if isinstance(key, str) else f"syncwatch {key[1]}"
        for flag in LONG_FLAG.findall(text):
            n_flag_mentions += 1
            if flag not in known[key] and flag not in generic:
                fail(where, f"{flag} is not an option of {name} (its --help)")
        if table:  # an option table's short options too (`-p`, `-j`): each must be in --help
            for flag in sorted(t for t in option_tokens(text) if not t.startswith("--")):
                n_flag_mentions += 1
                if flag not in known[key] and flag != "-h":
                    fail(where, f"{flag} is not an option of {name} (its --help lists no {flag})")

    for page in pages:
        rel = os.path.relpath(page, ROOT)
        text = open(page, encoding="utf-8").read()
        blocks, prose = parse_page(text)
        workdir = None
        written = set()  # baselines this page's blocks wrote so far

        # 1, 3, 4: fenced blocks
        for b in blocks:
            where = f"{rel}:{b['line']}"
            body = "\n".join(b["lines"])
            for n, line in logical_lines(b["lines"], b["line"]):
                for key, seg in invocations(line):
                    check_flags(f"{rel}:{n}", key, seg)
            for n, line in enumerate(b["lines"]):
                for m in re.finditer(r"--(write-)?baseline=([^\s)\]`'\"]+)", line):
                    name = os.path.basename(m.group(2))
                    if m.group(1):
                        written.add(name)
                    elif not name.startswith("<") and name not in written:
                        fail(f"{rel}:{b['line'] + 1 + n}", f"--baseline={m.group(2)} is used before the page "
                             f"writes it (a --write-baseline= of {name}): a missing baseline is exit 2")
            if b["lang"] in ("yaml", "yml"):
                n_yaml += 1
                try:
                    doc = yaml.safe_load(body)
                except yaml.YAMLError as e:
                    mark = getattr(e, "problem_mark", None)
                    at = f"{rel}:{b['line'] + 1 + mark.line}" if mark else where
                    fail(at, f"yaml block does not parse: {getattr(e, 'problem', None) or e}")
                    doc = None
                if doc is not None:
                    check_workflow(where, doc)
                    # (PyYAML reads the key `on` as True)
                    if isinstance(doc, dict) and "jobs" in doc and (True in doc or "on" in doc):
                        check_workflow_schema(where, body)
                    check_pre_commit(where, doc)
            marker = b["marker"]
            if marker is None:
                continue
            if marker == "lint":
                if b["lang"] not in ("cuda", "cu", "cpp", "c++"):
                    fail(where, f"docs-test lint marker on a '{b['lang']}' block: only cuda/cpp blocks are linted")
                else:
                    n_lint += 1
                    lint_example(where, body)
                continue
            mm = re.fullmatch(r"(run|gpu)(?:\s*,\s*exit\s+(\d+))?", marker)
            if not mm:
                fail(where, f"unknown docs-test marker '{marker}' (run, 'run, exit N' or gpu)")
                continue
            if b["lang"] not in ("sh", "bash", "shell", "console"):
                fail(where, f"docs-test marker on a '{b['lang']}' block: only sh blocks run")
                continue
            if mm.group(1) == "gpu":
                n_gpu += 1
                continue
            if workdir is None:
                workdir = tempfile.mkdtemp(prefix="syncwatch-docs-")
                scratches.append(workdir)
                scratch_copy(workdir)
            n_run += 1
            run_block(where, body, int(mm.group(2) or 0), workdir)

        # 2, 3, 5: prose
        for n, line in prose:
            where = f"{rel}:{n}"
            for span in code_spans(line):
                for key, seg in invocations(span):
                    check_flags(where, key, seg)
            for m in re.finditer(r"\[[^\]]*\]\(([^)\s]+)(?:\s+\"[^\"]*\")?\)", strip_code(line)):
                target = m.group(1)
                if re.match(r"[a-z][\w+.-]*:", target):  # http:, https:, mailto:
                    continue
                n_links += 1
                path, _, anchor = target.partition("#")
                full = os.path.normpath(os.path.join(os.path.dirname(page), path)) if path else page
                if not os.path.exists(full):
                    fail(where, f"link target {target} does not exist")
                elif anchor and full.endswith(".md"):
                    if full not in slug_cache:
                        slug_cache[full] = slugs(full)
                    if anchor not in slug_cache[full]:
                        fail(where, f"link {target}: no heading with anchor #{anchor}")
            for m in REPO_PATH.finditer(line):
                p = m.group(1).rstrip(".")
                n_paths += 1
                hits = glob.glob(os.path.join(ROOT, p)) if "*" in p else [os.path.join(ROOT, p)]
                if not any(os.path.exists(h) for h in hits):
                    fail(where, f"{p} is not in the repository")
            for m in re.finditer(r"(?:LD_PRELOAD|CUDA_INJECTION64_PATH)=([^\s`'\"]+)", line):
                v = m.group(1)
                if "/" in v and not v.startswith(("/", "$")):
                    fail(where, f"relative {m.group(0)}: breaks in a child that changes directory; use $PWD/{v}")
        for b in blocks:
            for n, line in enumerate(b["lines"]):
                for m in re.finditer(r"(?:LD_PRELOAD|CUDA_INJECTION64_PATH)=([^\s`'\"]+)", line):
                    v = m.group(1)
                    if "/" in v and not v.startswith(("/", "$")):
                        fail(f"{rel}:{b['line'] + 1 + n}",
                             f"relative {m.group(0)}: breaks in a child that changes directory; use $PWD/{v}")

        # 3: option tables
        for head, rows in tables(prose):
            if "command" in head and "option" in head:
                ci = head.index("command")
                for n, cells in rows:
                    subs = re.findall(r"\b(" + "|".join(SUBCOMMANDS) + r")\b", cells[ci] if ci < len(cells) else "")
                    if not subs:
                        fail(f"{rel}:{n}", "option table row names no syncwatch subcommand in its command column")
                    rest = " ".join(c for k, c in enumerate(cells) if k != ci)
                    for sub in subs:
                        check_flags(f"{rel}:{n}", ("syncwatch", sub), rest, table=True)
            elif (rel == os.path.join("docs", "ci.md") and head and head[0] == "option") or "syncwatch-lint flag" in head:
                for n, cells in rows:
                    check_flags(f"{rel}:{n}", "syncwatch-lint", " ".join(cells), table=True)
            if head and head[0] == "path":  # an install tree's table: bin/syncwatch names every subcommand
                for n, cells in rows:
                    if re.search(r"`bin/syncwatch`", cells[0]):
                        missing = [c for c in known_subs if not re.search(r"`%s`" % c, " ".join(cells[1:]))]
                        if missing:
                            fail(f"{rel}:{n}", "bin/syncwatch's row does not name its subcommand(s) "
                                 + ", ".join(missing) + " (syncwatch --help)")

    # 8: CONTRIBUTING.md's runnable examples
    n_run += run_contributing_blocks()
    # 9: the install tree's table against the install manifest
    check_install_table()
    # 10: every editor snippet is one the editor tests run
    check_editor_snippets()

    # 3: every option of every --help is documented
    n_help = 0
    for key, opts in known.items():
        generic = GENERIC["syncwatch-lint" if key == "syncwatch-lint" else "syncwatch"]
        name = key if isinstance(key, str) else f"syncwatch {key[1]}"
        for opt in sorted(opts - generic):
            n_help += 1
            if opt not in seen[key]:
                fail(f"{name} --help", f"{opt} is not documented: no option table for {name} names it "
                     "(docs/ci.md's for syncwatch-lint, docs/runtime.md's for syncwatch's subcommands)")

    # 6: the generated samples are what their commands give now
    n_samples = 0
    gen = os.path.join(ROOT, "ci", "gen_doc_samples.py")
    p = subprocess.run([sys.executable, gen, "--check", "--build", BUILD], capture_output=True, text=True, timeout=900)
    for line in p.stdout.splitlines():
        if line.startswith("FAIL "):
            failures.append(line[5:])
        elif line.startswith("      ") and failures:
            failures[-1] += "\n" + line
    m = re.search(r"gen_doc_samples: (\d+) sample", p.stdout)
    if m:
        n_samples = int(m.group(1))
    if p.returncode not in (0, 1) or not m:
        fail("ci/gen_doc_samples.py --check", f"exit {p.returncode}: {(p.stdout + p.stderr).strip()[-400:]}")
    elif p.returncode == 1 and not any(l.startswith("FAIL ") for l in p.stdout.splitlines()):
        fail("ci/gen_doc_samples.py --check", "failed without saying why")

    for f in failures:
        print("FAIL " + f)
    links = n_links + n_paths
    flags = n_flag_mentions + n_help
    print(f"docs test: {len(pages)} files, {n_yaml} yaml blocks, {n_run} runnable blocks run, {n_gpu} GPU blocks "
          f"skipped, {links} links, {flags} flags checked, {n_samples} samples generated, {n_lint} lint examples")
    print(f"  (links: {n_links} Markdown links, {n_paths} repository paths; flags: {n_flag_mentions} mentions "
          f"against --help, {n_help} --help options documented; {len(failures)} failure(s))")
    print(f"  (GitHub workflows validated against the workflow schema: {n_schema}" +
          ("" if SCHEMA_CHECKER else "; skipped: check-jsonschema is not installed") + ")")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
