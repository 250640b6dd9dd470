#!/usr/bin/env python3
"""A new syncwatch rule in one command: everything but the rule's own logic, tests and prose.

  tools/new_rule.py NAME --prefix XX --summary "one line" --help-text "a paragraph"
                    [--severity Warning|Note|Error] [--runtime] [--root DIR]

NAME is the rule id without "syncwatch-" (redundant-sync); XX the two-letter prefix of its
test inputs. It writes, and says it did:
  rules/rules.def                     the rule's row (id, severity, prefix, summary, help)
  analyzer/checks/<Name>Check.{h,cpp} a check that judges the unit's facts and finds nothing yet
  analyzer/checks/CheckRegistry.cpp   its registration
  analyzer/CMakeLists.txt             its source
  docs/rules/syncwatch-NAME.md        its page, with the sections every rule page has
  README.md                           its row in the rules table
  test_inputs/static/README.md        its line in the list of checks
  test_inputs/static/XX_pos_*.cu, XX_neg_*.cu
                                      one input of each kind to start from; the corpus test
                                      (tests/front_ends_test.cpp) wants three of each
Then: write the check's judge(), the inputs and the page; build; run ctest. The tables are
checked against rules.def by tests/rule_tables_test.py. CONTRIBUTING.md says more.
Exit 2, with the reason and nothing written, when the rule or the prefix exists already."""
import argparse
import os
import re
import sys


def die(msg):
    print(f"new_rule: error: {msg}", file=sys.stderr)
    sys.exit(2)


def camel(name):
    return "".join(p.capitalize() for p in name.split("-"))


def c_string(text, indent="  "):
    """A C string literal over lines of at most ~90 columns."""
    words, lines, cur = text.split(), [], ""
    for w in words:
        if cur and len(cur) + len(w) + 1 > 84:
            lines.append(cur + " ")
            cur = w
        else:
            cur = f"{cur} {w}" if cur else w
    lines.append(cur)
    return "\n".join(indent + '"' + l.replace("\\", "\\\\").replace('"', '\\"') + '"' for l in lines)


def main():
    ap = argparse.ArgumentParser(description="Adds a syncwatch rule: its row, check, registration, page and tables.")
    ap.add_argument("name", help="the rule id without 'syncwatch-', in lower-case words joined by '-'")
    ap.add_argument("--prefix", required=True, help="two letters: test_inputs/static/<prefix>_pos_*.cu")
    ap.add_argument("--summary", required=True, help="one line: SARIF shortDescription, --list-checks")
    ap.add_argument("--help-text", required=True, help="a paragraph: SARIF fullDescription")
    ap.add_argument("--severity", default="Warning", choices=["Warning", "Note", "Error"])
    ap.add_argument("--runtime", action="store_true",
                    help="libsyncwatch reports the rule too (its Runtime column; default: static only)")
    ap.add_argument("--root", default=os.path.dirname(os.path.dirname(os.path.abspath(__file__))),
                    help="the checkout to change (default: this one)")
    a = ap.parse_args()
    if not re.fullmatch(r"[a-z]+(-[a-z]+)*", a.name):
        die(f"'{a.name}': a rule name is lower-case words joined by '-' (redundant-sync)")
    if not re.fullmatch(r"[a-z]{2}", a.prefix):
        die(f"'{a.prefix}': a prefix is two lower-case letters")
    root, rid, cls = a.root, f"syncwatch-{a.name}", camel(a.name)
    enum = cls
    path = lambda *p: os.path.join(root, *p)
    rules_def = open(path("rules", "rules.def")).read()
    if f'"{rid}"' in rules_def:
        die(f"{rid} is in rules/rules.def already")
    if re.search(rf'SYNCWATCH_RULE\(\w+, "[^"]+", \w+, "{a.prefix}"', rules_def):
        die(f"the prefix '{a.prefix}' belongs to another rule in rules/rules.def")
    check_h = path("analyzer", "checks", f"{cls}Check.h")
    page = path("docs", "rules", f"{rid}.md")
    for p in (check_h, page):
        if os.path.exists(p):
            die(f"{os.path.relpath(p, root)} exists already")

    edits = {}  # path -> new text; written only once every edit is known to apply

    edits[path("rules", "rules.def")] = rules_def.rstrip("\n") + "\n\n" + \
        f'SYNCWATCH_RULE({enum}, "{rid}", {a.severity}, "{a.prefix}", {"true" if a.runtime else "false"}, None, Time,\n' + \
        c_string(a.summary) + ",\n" + c_string(a.help_text) + ")\n"

    registry = open(path("analyzer", "checks", "CheckRegistry.cpp")).read()
    anchor = "  };\n  return Checks;"
    if anchor not in registry or "\nnamespace syncwatch {" not in registry:
        die("analyzer/checks/CheckRegistry.cpp has changed shape; register the check by hand")
    registry = registry.replace(anchor, f"      factory<{cls}Check>(RuleId::{enum}),\n{anchor}")
    registry = registry.replace("\nnamespace syncwatch {", f'#include "{cls}Check.h"\n\nnamespace syncwatch {{', 1)
    registry = re.sub(r"(#include \"\w+Check\.h\"\n)\n(#include)", r"\1\2", registry)
    edits[path("analyzer", "checks", "CheckRegistry.cpp")] = registry

    cmake = open(path("analyzer", "CMakeLists.txt")).read()
    if "  checks/CheckRegistry.cpp)" not in cmake:
        die("analyzer/CMakeLists.txt has changed shape; add the check's source by hand")
    edits[path("analyzer", "CMakeLists.txt")] = cmake.replace(
        "  checks/CheckRegistry.cpp)", f"  checks/{cls}Check.cpp\n  checks/CheckRegistry.cpp)")

    readme = open(path("README.md")).read()
    rows = re.search(r"\n## Rules\n\| rule \| what \| page \|\n\|---\|---\|---\|\n((?:\|.*\|\n)+)", readme)
    if not rows:
        die("README.md has no rules table under '## Rules'")
    end = rows.end(1)
    readme = readme[:end] + f"| `{rid}` | {a.summary} | docs/rules/{rid}.md |\n" + readme[end:]
    edits[path("README.md")] = readme

    inputs_readme = open(path("test_inputs", "static", "README.md")).read()
    bullets = list(re.finditer(r"^\* `syncwatch-[a-z-]+`:.*(?:\n  .*)*\n", inputs_readme, re.M))
    if not bullets:
        die("test_inputs/static/README.md has no list of checks")
    end = bullets[-1].end()
    edits[path("test_inputs", "static", "README.md")] = inputs_readme[:end] + f"* `{rid}`: {a.summary}.\n" + inputs_readme[end:]

    edits[check_h] = f"""// {rid}: {a.summary}.
// docs/rules/{rid}.md
#pragma once

#include "../core/SyncwatchCheck.h"

namespace syncwatch {{

class {cls}Check : public SyncwatchCheck {{
public:
  using SyncwatchCheck::SyncwatchCheck;
  void judge(const UnitFacts &Facts, DiagnosticSink &Sink) override;
}};

}} // namespace syncwatch
"""
    edits[path("analyzer", "checks", f"{cls}Check.cpp")] = f"""#include "{cls}Check.h"

#include "clang/AST/ASTContext.h"

using namespace clang;

namespace syncwatch {{

// The facts of the unit (core/UnitFacts.h): Facts.functions() and Facts.flow() for the work in
// flight at each call, Facts.streams() for stream use, Facts.apiCalls() for every catalogued
// call, Facts.hostMemory() for where host buffers come from. Emit a CheckDiagnostic with
// Rule = RuleId::{enum} for each finding; template instantiations repeat calls (ReportedOnce).
void {cls}Check::judge(const UnitFacts &Facts, DiagnosticSink &Sink) {{
  ASTContext *Ctx = Facts.context();
  if (!Ctx)
    return;
  (void)Sink;
}}

}} // namespace syncwatch
"""
    edits[page] = f"""# {rid}

{a.help_text}

## When it reports

## Silent look-alikes

## Why it matters

## How to fix

## At run time
"""
    for kind in ("pos", "neg"):
        p = path("test_inputs", "static", f"{a.prefix}_{kind}_first.cu")
        if os.path.exists(p):
            die(f"{os.path.relpath(p, root)} exists already")
        expect = f"  // expect: {a.severity.lower()} {rid}" if kind == "pos" else ""
        edits[p] = f"""// {rid}: {"a case it reports" if kind == "pos" else "a look-alike it must leave alone"}.
#include <cuda_runtime.h>

int main() {{
  cudaStream_t s;
  cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking);
  cudaStreamSynchronize(s);{expect}
  return 0;
}}
"""
    for p, text in edits.items():
        tmp = p + ".new_rule.tmp"
        with open(tmp, "w") as f:
            f.write(text)
        os.replace(tmp, p)
        print(f"new_rule: wrote {os.path.relpath(p, root)}")
    print(f"new_rule: next: write {cls}Check::judge, three positive and three negative inputs "
          f"(test_inputs/static/{a.prefix}_*.cu) and the page; build; ctest")


if __name__ == "__main__":
    main()
