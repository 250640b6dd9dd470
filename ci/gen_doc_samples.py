#!/usr/bin/env python3
"""Output samples in README.md and docs/ are generated, not typed (issue 25).

  ci/gen_doc_samples.py [--check] [--build BUILD_DIR] [PAGE.md...]

A sample is the fenced block (or the Markdown table) right under a marker line

  <!-- docs-sample: COMMAND [| FILTER]... [; COMMAND [| FILTER]...]... -->

This script runs each COMMAND from the repository root, passes its stdout through the
FILTERs, and writes the result into the block below the marker (the fence's first and last
lines stay as they are). --check writes nothing: it prints each sample that is not what its
command gives now and exits 1 (tests/project/docs_test.py runs it, so a stale sample fails CI).
Without --check it rewrites the pages; by default every page (README.md, docs/**/*.md).

COMMAND (split as a shell would, quotes allowed; `*` globs are expanded, relative to the
repository root):
  syncwatch SUB ARGS...       BUILD_DIR/interposer/syncwatch; exit 0 or 1 (1: findings)
  syncwatch-lint ARGS...      BUILD_DIR/analyzer/syncwatch-lint; exit 0 or 1
  demo-lint FILE...           ci/demo.sh's own syncwatch-lint command line (its first one,
                              read from the script), run on these FILEs instead of all of
                              test_inputs/static: the demo's real output, paths as its
                              user sees them
  figures-table LABEL REC.swrec [LABEL REC.swrec]...
                              a Markdown table of the recordings' GPU figures (replay's
                              JSON `figures`), one column per recording
FILTER:
  grep [-v] REGEX             keep the lines that match (-v: that do not); Python regex
  head N                      the first N lines
  relative                    this checkout's own path (ROOT/) dropped: repo-relative paths,
                              for the lint's output of files in this checkout
  map OLD=NEW                 OLD replaced by NEW wherever it starts a path; for commands
                              without --path-map (replay, merge and confirm have it)
  json EXPR                   the command's stdout is JSON: the value at EXPR, a dotted path
                              with [n] indices (`findings[0].evidence.variants`)
  quiet                       the command runs for the files it writes; its stdout is no
                              part of the sample (`syncwatch-lint --output=$TMP/lint.sarif
                              ... | quiet ; syncwatch confirm --static $TMP/lint.sarif ...`)
$TMP in a command is a scratch directory of the marker's own, removed afterwards.

Recordings were made on the H200 in /work/main: their paths are absolute there, so replay
samples use `--path-map /work/main/=`, which makes them repo-relative in any checkout."""
import glob
import json
import os
import re
import shlex
import shutil
import subprocess
import sys
import tempfile

ROOT = os.path.abspath(os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
MARKER = re.compile(r"^\s*<!--\s*docs-sample:\s*(.*?)\s*-->\s*$")
FENCE = re.compile(r"^(\s*)(`{3,}|~{3,})")


class SampleError(Exception):
    pass


def expand(args):
    out = []
    for a in args:
        if "*" in a:
            hits = sorted(glob.glob(os.path.join(ROOT, a)))
            if not hits:
                raise SampleError(f"'{a}' matches no file")
            out += [os.path.relpath(h, ROOT) for h in hits]
        else:
            out.append(a)
    return out


def run_tool(exe, args):
    if not os.access(exe, os.X_OK):
        raise SampleError(f"{exe} is not built")
    p = subprocess.run([exe, *expand(args)], cwd=ROOT, capture_output=True, text=True, timeout=300)
    if p.returncode not in (0, 1):
        raise SampleError(f"{os.path.basename(exe)} {' '.join(args)}: exit {p.returncode}: {p.stderr.strip()[-400:]}")
    return p.stdout


def demo_lint(build, files):
    """ci/demo.sh's first `build/analyzer/syncwatch-lint ... "${files[@]}" ...` line, as the
    demo runs it, with FILEs for the demo's list: a change to the demo's command changes the
    README's excerpt of its output."""
    demo = open(os.path.join(ROOT, "ci", "demo.sh"), encoding="utf-8").read()
    m = re.search(r'^build/analyzer/syncwatch-lint (.*)"\$\{files\[@\]\}"(.*)$', demo, re.M)
    if not m:
        raise SampleError('ci/demo.sh has no `build/analyzer/syncwatch-lint ... "${files[@]}" ...` line')
    if not files:
        raise SampleError("demo-lint takes the files to run the demo's command on")
    before, after = shlex.split(m.group(1)), shlex.split(m.group(2))
    return run_tool(os.path.join(build, "analyzer", "syncwatch-lint"), before + files + after)


def json_at(text, expr):
    value = json.loads(text)
    for part in re.findall(r"[^.\[\]]+|\[\d+\]", expr):
        value = value[int(part[1:-1])] if part.startswith("[") else value[part]
    return value if isinstance(value, str) else json.dumps(value)


def map_paths(text, old, new):
    return re.sub(r"(?<![\w./~-])" + re.escape(old), lambda _: new, text)


def figures_table(build, args):
    if len(args) < 2 or len(args) % 2:
        raise SampleError("figures-table takes LABEL RECORDING pairs")
    cols = []
    for label, rec in zip(args[0::2], args[1::2]):
        doc = json.loads(run_tool(os.path.join(build, "interposer", "syncwatch"), ["replay", "--format=json", rec]))
        f = doc["figures"]
        sites = ", ".join(f"`{os.path.basename(x['location']['file'])}:{x['location']['line']}` "
                          f"x {x['evidence'].get('count', '?')}" for x in doc["findings"]) or "none"
        cols.append((label, f, sites))
    rows = [
        ("copy time overlapped by compute",
         lambda f, s: f"**{f['copyOverlapPercent']}%** ({f['copyOverlappedByComputeMs']} of {f['copyMs']} ms)"),
        ("GPU compute / copies", lambda f, s: f"{f['computeMs']} / {f['copyMs']} ms"),
        ("GPU span / busy", lambda f, s: f"{f['gpuSpanMs']} / {f['gpuBusyMs']} ms"),
        ("host time lost to findings", lambda f, s: f"{f['hostTimeLostMs']} ms"),
        ("findings (site x occurrences)", lambda f, s: s),
    ]
    lines = ["| | " + " | ".join(c[0] for c in cols) + " |", "|---" * (len(cols) + 1) + "|"]
    for name, cell in rows:
        lines.append(f"| {name} | " + " | ".join(cell(f, s) for _, f, s in cols) + " |")
    return "\n".join(lines) + "\n"


def generate(build, command):
    """The text a marker's command gives (no trailing newline)."""
    try:
        tokens = shlex.split(command)
    except ValueError as e:
        raise SampleError(f"cannot split the command: {e}")
    scratch = tempfile.mkdtemp(prefix="syncwatch-doc-sample-")
    try:
        return run_commands(build, [t.replace("$TMP", scratch) for t in tokens])
    finally:
        shutil.rmtree(scratch, ignore_errors=True)


def run_commands(build, tokens):
    """The sample of a marker's commands (split into tokens, $TMP replaced)."""
    commands, cur = [], []
    for t in tokens + [";"]:
        if t == ";":
            if cur:
                commands.append(cur)
            cur = []
        else:
            cur.append(t)
    out = []
    for cmd in commands:
        stages, stage = [], []
        for t in cmd + ["|"]:
            if t == "|":
                stages.append(stage)
                stage = []
            else:
                stage.append(t)
        head, filters = stages[0], stages[1:]
        if not head:
            raise SampleError("empty command")
        if head[0] == "syncwatch":
            text = run_tool(os.path.join(build, "interposer", "syncwatch"), head[1:])
        elif head[0] == "syncwatch-lint":
            text = run_tool(os.path.join(build, "analyzer", "syncwatch-lint"), head[1:])
        elif head[0] == "demo-lint":
            text = demo_lint(build, expand(head[1:]))
        elif head[0] == "figures-table":
            text = figures_table(build, expand(head[1:]))
        else:
            raise SampleError(f"unknown command '{head[0]}' (syncwatch, syncwatch-lint, demo-lint, figures-table)")
        quiet = False
        for f in filters:
            if not f:
                raise SampleError("empty filter")
            name, fargs = f[0], f[1:]
            lines = text.splitlines()
            if name == "quiet" and not fargs:
                quiet, text = True, ""
            elif name == "grep" and fargs and (len(fargs) == 1 or (len(fargs) == 2 and fargs[0] == "-v")):
                rx, keep = re.compile(fargs[-1]), len(fargs) == 1
                text = "".join(l + "\n" for l in lines if bool(rx.search(l)) == keep)
            elif name == "head" and len(fargs) == 1 and fargs[0].isdigit():
                text = "".join(l + "\n" for l in lines[:int(fargs[0])])
            elif name == "relative" and not fargs:
                text = map_paths(text, ROOT + "/", "")
            elif name == "map" and len(fargs) == 1 and "=" in fargs[0] and not fargs[0].startswith("="):
                old, new = fargs[0].split("=", 1)
                text = map_paths(text, old, new)
            elif name == "json" and len(fargs) == 1:
                try:
                    text = json_at(text, fargs[0]) + "\n"
                except (ValueError, KeyError, IndexError, TypeError) as e:
                    raise SampleError(f"json {fargs[0]}: {type(e).__name__}: {e}")
            else:
                raise SampleError(f"bad filter '{' '.join(f)}' (grep [-v] RE, head N, relative, map OLD=NEW, json EXPR, quiet)")
        if quiet:
            continue
        if not text.strip():
            raise SampleError(f"'{' '.join(cmd)}' gives nothing: a sample would be empty")
        out.append(text.rstrip("\n"))
    return "\n".join(out)


def samples(lines):
    """[(marker index, command, first body index, end index (exclusive), kind)] of a page."""
    found, i = [], 0
    while i < len(lines):
        m = MARKER.match(lines[i])
        if not m:
            i += 1
            continue
        j = i + 1
        f = FENCE.match(lines[j]) if j < len(lines) else None
        if f:
            close = re.compile(r"^\s*" + re.escape(f.group(2)[0]) + "{%d,}\\s*$" % len(f.group(2)))
            k = j + 1
            while k < len(lines) and not close.match(lines[k]):
                k += 1
            if k == len(lines):
                found.append((i, m.group(1), None, None, "unclosed fence"))
                break
            found.append((i, m.group(1), j + 1, k, "fence"))
            i = k + 1
        elif j < len(lines) and lines[j].lstrip().startswith("|"):
            k = j
            while k < len(lines) and lines[k].lstrip().startswith("|"):
                k += 1
            found.append((i, m.group(1), j, k, "table"))
            i = k
        else:
            found.append((i, m.group(1), None, None, "no fenced block or table under the marker"))
            i = j
    return found


def process(page, build, check):
    """Returns (number of samples, [problems]); rewrites the page unless check."""
    text = open(page, encoding="utf-8").read()
    lines = text.split("\n")
    rel = os.path.relpath(page, ROOT)
    problems, count, new_lines, last = [], 0, [], 0
    for marker, command, start, end, kind in samples(lines):
        where = f"{rel}:{marker + 1}"
        if start is None:
            problems.append(f"{where}: docs-sample marker: {kind}")
            continue
        count += 1
        try:
            body = generate(build, command)
        except SampleError as e:
            problems.append(f"{where}: docs-sample '{command}': {e}")
            continue
        if kind == "fence" and re.search(r"^\s*(```|~~~)", body, re.M):
            problems.append(f"{where}: the output has a fence line; it cannot be a sample")
            continue
        if kind == "table" and not all(l.lstrip().startswith("|") for l in body.split("\n")):
            problems.append(f"{where}: a table sample's command must give a Markdown table")
            continue
        if kind == "fence":  # a fence inside a list item: its lines keep the item's indent
            indent = FENCE.match(lines[start - 1]).group(1)
            body = "\n".join(indent + l if l else l for l in body.split("\n"))
        old = "\n".join(lines[start:end])
        if old != body:
            if check:
                old_l, new_l = old.split("\n"), body.split("\n")
                n = next((k for k in range(max(len(old_l), len(new_l)))
                          if k >= len(old_l) or k >= len(new_l) or old_l[k] != new_l[k]), 0)
                problems.append(f"{rel}:{start + 1 + n}: sample is stale (ci/gen_doc_samples.py rewrites it): "
                                f"'{command}'\n      page:      {(old_l[n] if n < len(old_l) else '<end>')[:160]}"
                                f"\n      generated: {(new_l[n] if n < len(new_l) else '<end>')[:160]}")
            new_lines += lines[last:start] + body.split("\n")
            last = end
    new_lines += lines[last:]
    if not check and new_lines != lines:
        with open(page, "w", encoding="utf-8") as f:
            f.write("\n".join(new_lines))
        print(f"gen_doc_samples: rewrote {rel}")
    return count, problems


def main(argv):
    check = "--check" in argv
    args = [a for a in argv if a != "--check"]
    build = os.path.join(ROOT, "build")
    if "--build" in args:
        k = args.index("--build")
        if k + 1 >= len(args):
            print(__doc__)
            return 2
        build = os.path.abspath(args[k + 1])
        del args[k:k + 2]
    if any(a.startswith("-") for a in args):
        print(__doc__)
        return 2
    pages = [os.path.abspath(a) for a in args] or (
        [os.path.join(ROOT, "README.md")] + sorted(glob.glob(os.path.join(ROOT, "docs", "**", "*.md"), recursive=True)))
    total, problems = 0, []
    for page in pages:
        n, p = process(page, build, check)
        total += n
        problems += p
    for p in problems:
        print("FAIL " + p)
    print(f"gen_doc_samples: {total} sample(s) in {len(pages)} page(s), "
          f"{len(problems)} {'stale or failing' if check else 'failing'}")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
