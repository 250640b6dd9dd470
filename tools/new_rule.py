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
                                      (tests/analyzer/front_ends_test.cpp) wants three of each
Then: write the check's judge(), the inputs and the page; build; run ctest. The tables are
checked against rules.def by tests/analyzer/rule_tables_test.py. CONTRIBUTING.md says more.
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
    ap.add_argument("--runtime-pass", metavar="Name", default="None",
                    help="libsyncwatch reports the rule too, from this pass of rules/runtime_passes.def (its "
                         "Runtime column); a new CamelCase name also writes the pass "
                         "(interposer/passes/<Name>Pass.{h,cpp}), registers it and adds its failing test "
                         "(default None: static only)")
    ap.add_argument("--root", default=os.path.dirname(os.path.dirname(os.path.abspath(__file__))),
                    help="the checkout to change (default: this one)")
    a = ap.parse_args()
    if not re.fullmatch(r"[a-z]+(-[a-z]+)*", a.name):
        die(f"'{a.name}': a rule name is lower-case words joined by '-' (redundant-sync)")
    if not re.fullmatch(r"[a-z]{2}", a.prefix):
        die(f"'{a.prefix}': a prefix is two lower-case letters")
    if not re.fullmatch(r"None|[A-Z][A-Za-z0-9]*", a.runtime_pass):
        die(f"'{a.runtime_pass}': a runtime pass is a CamelCase name (HostWait) or None")
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
        f'SYNCWATCH_RULE({enum}, "{rid}", {a.severity}, "{a.prefix}", {a.runtime_pass}, None, Time,\n' + \
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
    passes_def = open(path("rules", "runtime_passes.def")).read()
    new_pass = a.runtime_pass != "None" and not re.search(rf"^SYNCWATCH_RUNTIME_PASS\({a.runtime_pass},", passes_def, re.M)
    if new_pass:
        runtime_pass_edits(edits, path, a, rid, enum, passes_def)

    for p, text in edits.items():
        tmp = p + ".new_rule.tmp"
        with open(tmp, "w") as f:
            f.write(text)
        os.replace(tmp, p)
        print(f"new_rule: wrote {os.path.relpath(p, root)}")
    print(f"new_rule: next: write {cls}Check::judge, three positive and three negative inputs "
          f"(test_inputs/static/{a.prefix}_*.cu) and the page; build; ctest")
    if new_pass:
        print(f"new_rule: and {a.runtime_pass}Pass::run (interposer/passes/), until "
              f"tests/runtime/passes/{snake(a.runtime_pass)}_pass_test.cpp passes")


def snake(name):
    return re.sub(r"(?<!^)(?=[A-Z])", "_", name).lower()


def runtime_pass_edits(edits, path, a, rid, enum, passes_def):
    """A new runtime pass: its row in runtime_passes.def, its class (finding nothing yet), its
    registration and build line, and a test that fails until the pass reports the rule."""
    name, cls = a.runtime_pass, a.runtime_pass + "Pass"
    for p in (path("interposer", "passes", f"{cls}.h"), path("tests", "runtime", "passes", f"{snake(name)}_pass_test.cpp")):
        if os.path.exists(p):
            die(f"{os.path.relpath(p, path())} exists already")
    edits[path("rules", "runtime_passes.def")] = passes_def.rstrip("\n") + "\n\n" + \
        f"SYNCWATCH_RUNTIME_PASS({name},\n" + c_string(a.summary) + ")\n"

    registry = open(path("interposer", "passes", "PassRegistry.cpp")).read()
    includes = list(re.finditer(r'^#include "\w+Pass\.h"\n', registry, re.M))
    if not includes:
        die("interposer/passes/PassRegistry.cpp has changed shape; include the pass by hand")
    at = includes[-1].end()
    edits[path("interposer", "passes", "PassRegistry.cpp")] = registry[:at] + f'#include "{cls}.h"\n' + registry[at:]

    cmake = open(path("interposer", "CMakeLists.txt")).read()
    m = re.search(r"add_library\(syncwatch_passes STATIC\n((?:  passes/\w+\.cpp\n?)+)\)", cmake)
    if not m:
        die("interposer/CMakeLists.txt has changed shape; add the pass's source by hand")
    edits[path("interposer", "CMakeLists.txt")] = cmake[:m.end(1)] + f"\n  passes/{cls}.cpp" + cmake[m.end(1):]

    tests_cmake = open(path("tests", "runtime", "CMakeLists.txt")).read()
    anchor = "# One test a runtime pass (tools/new_rule.py --runtime-pass adds them).\n"
    if anchor not in tests_cmake:
        die("tests/runtime/CMakeLists.txt has changed shape; add the pass's test by hand")
    edits[path("tests", "runtime", "CMakeLists.txt")] = tests_cmake.replace(
        anchor, anchor + f"syncwatch_pass_test({snake(name)}_pass passes/{snake(name)}_pass_test.cpp)\n")

    edits[path("interposer", "passes", f"{cls}.h")] = f"""// The {name} pass: {a.summary} ({rid}).
#pragma once

#include "WindowPass.h"

namespace syncwatch::runtime {{

class {cls} final : public WindowPass {{
public:
  void run(const PassContext &Ctx, FindingSink &Sink) const override;
}};

}} // namespace syncwatch::runtime
"""
    edits[path("interposer", "passes", f"{cls}.cpp")] = f"""#include "{cls}.h"

namespace syncwatch::runtime {{

// Judge the window's in-scope calls (Ctx.Window.Calls[0, Ctx.Index.InScope)) and its GPU
// work (Ctx.Window.Work; Ctx.Index has them by correlation id, start and end): for each
// occurrence, Sink.record(RuleId::{enum}, Call, Cost, Cause, Waited) - or Sink.recordHostWait
// for a call that blocked its thread. Keep no state here: the sink's aggregates are the run's.
void {cls}::run(const PassContext &Ctx, FindingSink &Sink) const {{
  (void)Ctx;
  (void)Sink;
}}

}} // namespace syncwatch::runtime
"""
    edits[path("tests", "runtime", "passes", f"{snake(name)}_pass_test.cpp")] = f"""// The {name} pass on a hand-built window: {a.summary}.
// It fails until {cls}::run reports the case below; then add the look-alikes it must leave
// alone, as tests/runtime/engine_test.cpp does for the other passes.
#include "../../../interposer/engine/Engine.h"

#include <gtest/gtest.h>

using namespace syncwatch;
using namespace syncwatch::runtime;

namespace {{
constexpr std::uint64_t us = 1000;
}}

TEST({cls}, ReportsTheCaseItIsFor) {{
  EventLog Log;
  Log.Streams = {{{{7, StreamFlag::Legacy, 0}}}};
  Log.Sites[1] = {{"step", "/src/train.cu", 88}};
  // Replace with the calls and GPU work of a case the rule is about (times in us).
  Log.Calls.push_back({{1, 0, 1, "cudaStreamSynchronize", 100 * us, 5100 * us, 1}});
  Engine E;
  E.consume(Log);
  bool Reported = false;
  for (const Finding &F : E.findings())
    Reported = Reported || F.Rule == "{rid}";
  EXPECT_TRUE(Reported) << "{cls}::run reports nothing yet";
}}
"""


if __name__ == "__main__":
    main()
