#!/usr/bin/env python3
"""Developer aid: runs syncwatch-lint over annotated inputs and prints, per file, the
findings that are missing or extra compared with the `// expect:` annotations.
  tests/analyzer/tools/annotation_diff.py build/analyzer/syncwatch-lint test_inputs/static/*.cu
With --show, prints the reported line's source and message for extra findings."""
import re, subprocess, sys

args = [a for a in sys.argv[1:] if a != "--show"]
show = "--show" in sys.argv
lint, files = args[0], args[1:]
item = re.compile(r"(warning|note|error)\s+(syncwatch-[a-z-]+)")
diag = re.compile(r"^(.*):(\d+):(\d+): (warning|note|error): (.*) \[(syncwatch-[a-z-]+)\]$")
for f in files:
    text = open(f).read().split("\n")
    flags = ""
    for l in text[:8]:
        m = re.search(r"//\s*clang-flags:\s*(.*)", l)
        if m:
            flags = m.group(1)
    want = []
    for n, l in enumerate(text, 1):
        if "// expect:" in l:
            want += [(n, s, r) for s, r in item.findall(l.split("// expect:", 1)[1])]
    p = subprocess.run([lint, "--no-source", "--fail-on=error", f, "--", *flags.split()],
                       capture_output=True, text=True)
    have, msgs = [], {}
    for l in p.stdout.split("\n"):
        m = diag.match(l)
        if m and m.group(1).endswith(f.split("/")[-1]):
            k = (int(m.group(2)), m.group(4), m.group(6))
            have.append(k)
            msgs[k] = m.group(5)
    missing = sorted(set(want) - set(have))
    extra = sorted(set(have) - set(want))
    if p.returncode == 2:
        print(f"{f}: TOOL ERROR {p.stderr.strip()[:300]}")
    if missing or extra:
        print(f"{f}:")
        for k in missing:
            print(f"   missing {k[0]}: {k[1]} {k[2]}")
        for k in extra:
            print(f"   extra   {k[0]}: {k[1]} {k[2]}" + (f"\n        | {text[k[0]-1].strip()}\n        > {msgs[k][:160]}" if show else ""))
