#!/usr/bin/env python3
"""--format markdown (issue 21): what a CI job summary ($GITHUB_STEP_SUMMARY) or a merge-request
note shows, rendered by a real Markdown renderer (Python-Markdown with its tables extension, as
GitHub renders GFM tables) and checked as a reader would:
  - syncwatch confirm: one table, costliest first, the status counts in the heading, the
    runtime-only stalls in a table of their own; every link goes to a file of the checkout
    and to a line that file has (--link-base + path under the source root + #L<line>);
  - syncwatch-lint and syncwatch merge: the same, for their results;
  - a message with '|', '<script>' or '*' stays one cell's text;
  - the summary stays within 1 MiB, with a line that says how many rows were left out.
  markdown_test.py SYNCWATCH SYNCWATCH-LINT REPO_ROOT"""
import html.parser
import json
import os
import re
import shutil
import sys
import tempfile

import markdown

sys.path[:0] = [os.path.dirname(os.path.abspath(__file__)),  # this folder, and tests/ (harness.py)
                os.path.dirname(os.path.dirname(os.path.abspath(__file__)))]
import harness  # noqa: E402
from harness import finish, run  # noqa: E402

tool, lint, root = sys.argv[1:4]
rt = os.path.join(root, "test_inputs", "runtime")
BASE = "https://github.example/o/r/blob/0123abc"


def check(name, ok, detail=""):
    """harness.check, the detail cut at 600 characters (a page's whole text would not help)."""
    harness.check(name, ok, str(detail)[:600])


class Page(html.parser.HTMLParser):
    """The rendered page: tables as rows of cell texts, links, and any element a report must
    never produce (a script: an unescaped message)."""

    def __init__(self):
        super().__init__()
        self.tables, self.links, self.bad, self.headings = [], [], [], []
        self._cell = None
        self._row = None
        self._h = None

    def handle_starttag(self, tag, attrs):
        if tag == "table":
            self.tables.append([])
        elif tag == "tr":
            self._row = []
        elif tag in ("td", "th"):
            self._cell = ""
        elif tag == "a":
            self.links.append(dict(attrs).get("href", ""))
        elif tag == "h3":
            self._h = ""
        elif tag in ("script", "img", "iframe"):
            self.bad.append(tag)

    def handle_endtag(self, tag):
        if tag in ("td", "th") and self._row is not None:
            self._row.append(self._cell)
            self._cell = None
        elif tag == "tr" and self.tables:
            self.tables[-1].append(self._row)
            self._row = None
        elif tag == "h3":
            self.headings.append(self._h)
            self._h = None

    def handle_data(self, data):
        if self._cell is not None:
            self._cell += data
        if self._h is not None:
            self._h += data


def render(text):
    p = Page()
    p.feed(markdown.markdown(text, extensions=["tables"]))
    return p


def check_links(name, page, repo, base):
    bad = []
    for href in page.links:
        if base:
            if not href.startswith(base + "/"):
                bad.append(href)
                continue
            href = href[len(base) + 1:]
        m = re.fullmatch(r"([^#]+)(?:#L(\d+))?", href)
        path = os.path.join(repo, m.group(1)) if m else ""
        if not m or not os.path.isfile(path):
            bad.append(href)
        elif m.group(2) and int(m.group(2)) > sum(1 for _ in open(path, errors="replace")):
            bad.append(href)
    check(f"{name}: {len(page.links)} links, each to a file and line of the checkout", page.links and not bad, bad)


def ms(cell):
    m = re.match(r"([\d.]+) (us|ms|s)$", cell.strip())
    if not m:
        return 0.0
    return float(m.group(1)) * {"us": 1e-3, "ms": 1, "s": 1e3}[m.group(2)]


with tempfile.TemporaryDirectory() as d:
    repo = os.path.join(d, "ws", "syncwatch")
    os.makedirs(os.path.join(repo, "tests", "gpu"))
    os.makedirs(os.path.join(repo, ".git"))
    for f in ("runtime_probe.cu", "confirm_probe.cu"):
        shutil.copy(os.path.join(root, "tests", "gpu", f), os.path.join(repo, "tests", "gpu", f))
    sarif = os.path.join(d, "lint.sarif")
    run(lint, "--format=sarif", f"--output={sarif}", "tests/gpu/runtime_probe.cu", "tests/gpu/confirm_probe.cu",
        "--", "--cuda-path=/usr/local/cuda", cwd=repo)
    recs = [os.path.join(rt, "h200_runtime_probe.swrec"), os.path.join(rt, "h200_confirm_probe.swrec")]

    # syncwatch confirm
    r = run(tool, "confirm", "--static", sarif, "--runtime", *recs, "--format", "markdown", "--link-base", BASE)
    check("confirm --format markdown: exit 1 as the other formats (the gate)", r.returncode == 1, r.stderr)
    page = render(r.stdout)
    check("confirm: the heading counts the statuses",
          page.headings and re.search(r"7 confirmed, 1 not observed, 0 not measured, 1 not exercised, 1 runtime-only", page.headings[0]),
          page.headings)
    check("confirm: two tables (the join, the runtime-only stalls)", len(page.tables) == 2, len(page.tables))
    main = page.tables[0] if page.tables else [[]]
    check("confirm: the header row", main[0] == ["Status", "Cost", "Calls", "Rule", "Where", "What"], main[0])
    rows = main[1:]
    check("confirm: a row per static result", len(rows) == 9, len(rows))
    costs = [ms(x[1]) for x in rows]
    check("confirm: costliest first", costs == sorted(costs, reverse=True) and costs[0] > 40, costs)
    check("confirm: rows say their status", [x[0] for x in rows].count("confirmed") == 7, [x[0] for x in rows])
    only = page.tables[1][1:] if len(page.tables) > 1 else []
    check("confirm: the runtime-only stall at runtime_probe.cu:88",
          len(only) == 1 and only[0][4] == "tests/gpu/runtime_probe.cu:88", only)
    check_links("confirm", page, repo, BASE)
    check("confirm: nothing but tables, text and links", not page.bad, page.bad)

    # syncwatch-lint, relative links (no --link-base)
    r = run(lint, "--format=markdown", "tests/gpu/runtime_probe.cu", "--", "--cuda-path=/usr/local/cuda", cwd=repo)
    check("lint --format=markdown: exit 1 (findings)", r.returncode == 1, r.stderr[-300:])
    page = render(r.stdout)
    check("lint: heading with the count", page.headings and "6 result(s) in 1 file(s) analyzed" in page.headings[0],
          page.headings)
    lrows = page.tables[0][1:] if page.tables else []
    check("lint: a row per result, severity and rule", len(lrows) == 6 and lrows[0][0] == "warning"
          and lrows[0][1].startswith("syncwatch-"), lrows[:1])
    check_links("lint", page, repo, "")
    r = run(lint, "--format=markdown", "tests/gpu/missing.cu", "--", "--cuda-path=/usr/local/cuda", cwd=repo)
    page = render(r.stdout)
    check("lint: a file that could not be analyzed is listed, never silent", r.returncode == 2 and
          any(t[0] == ["File", "Why"] for t in page.tables), r.stdout[-400:])

    # syncwatch merge over a recording, and hostile text
    r = run(tool, "merge", "--format", "markdown", os.path.join(rt, "h200_seed_non_blocking_false.swrec"))
    page = render(r.stdout)
    mrows = page.tables[0][1:] if page.tables else []
    check("merge --format markdown: the seed's two stalls, costliest first", len(mrows) == 2
          and ms(mrows[0][0]) >= ms(mrows[1][0]) > 50, mrows)
    report = {"tool": "libsyncwatch", "version": "0.1.0", "filesAnalyzed": 0, "findings": [], "errors": []}
    msg = "cost | with a pipe <script>alert(1)</script> *bold* [x](javascript:1) " + "word " * 60
    for i in range(4000):
        report["findings"].append({
            "rule": "syncwatch-sync-in-loop", "severity": "warning",
            "location": {"file": os.path.join(repo, "tests", "gpu", "runtime_probe.cu"), "line": 1 + i,
                         "column": 1, "endLine": 0, "endColumn": 0},
            "message": msg, "notes": [], "fixes": [],
            "evidence": {"api": "cudaStreamSynchronize", "count": "1", "totalMs": str(1 + i), "maxMs": "1"}})
    big = os.path.join(d, "big.json")
    json.dump(report, open(big, "w"))
    out = os.path.join(d, "summary.md")
    r = run(tool, "merge", "--format", "markdown", "--source-root", repo, "--output", out, big)
    text = open(out, encoding="utf-8").read() if os.path.exists(out) else ""
    size = len(text.encode())
    check("a summary of 4000 stalls stays within 1 MiB", 0 < size <= 1 << 20, size)
    check("... and says how many rows it left out",
          re.search(r"\*\d+ more row\(s\) not shown: this summary is kept within 1024 KiB", text), text[-300:])
    page = render(text)
    cells = page.tables[0][1:] if page.tables else []
    check("hostile text stays one cell: 6 cells a row, no script, no link of its own",
          cells and all(len(c) == 6 for c in cells) and not page.bad
          and all(not h.startswith("javascript") for h in page.links), (cells[:1], page.bad))
    check("... and reads as written", cells and "cost | with a pipe <script>alert(1)</script> *bold*" in cells[0][5],
          cells[:1])
    kept = [ms(c[0]) for c in cells]
    check("... the rows kept are the costliest", kept and kept == sorted(kept, reverse=True) and kept[0] == 4000, kept[:3])

finish()
