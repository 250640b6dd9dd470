#!/usr/bin/env python3
"""No function of the given folders runs over a number of lines (issue 39: 120).

  tools/check_function_lengths.py [--max N] FOLDER...

A function's length is its lines from the signature's first to the closing brace, comments
and blank lines included, as lizard (the code-complexity analyzer, `pip install lizard`)
measures them. Prints every function over N, longest first, and the longest one within it.
Exit 0 when none is over, 1 when one is, 2 on bad usage, 77 when lizard is not installed."""
import argparse
import os
import sys

SOURCE_EXTS = (".h", ".hpp", ".cuh", ".cpp", ".cc", ".cu", ".c")


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--max", type=int, default=120, help="the most lines a function may have (default 120)")
    ap.add_argument("folders", nargs="+")
    a = ap.parse_args()
    try:
        import lizard
    except ImportError:
        print("check_function_lengths: lizard is not installed (pip install lizard): not checked", file=sys.stderr)
        return 77
    files = []
    for folder in a.folders:
        if not os.path.isdir(folder):
            print(f"check_function_lengths: {folder}: not a folder", file=sys.stderr)
            return 2
        for dirpath, dirnames, names in os.walk(folder):
            dirnames.sort()
            files += [os.path.join(dirpath, n) for n in sorted(names) if n.endswith(SOURCE_EXTS)]
    functions = []
    for path in files:
        for f in lizard.analyze_file(path).function_list:
            functions.append((f.end_line - f.start_line + 1, f.long_name.split("(")[0], path, f.start_line))
    functions.sort(key=lambda f: (-f[0], f[2], f[3]))
    over = [f for f in functions if f[0] > a.max]
    for n, name, path, line in over:
        print(f"{path}:{line}: {name}: {n} lines (over {a.max})")
    within = next((f for f in functions if f[0] <= a.max), None)
    print(f"{len(functions)} functions in {len(files)} files; {len(over)} over {a.max} lines"
          + (f"; the longest within: {within[1]} ({within[2]}:{within[3]}), {within[0]} lines" if within else ""))
    return 1 if over else 0


if __name__ == "__main__":
    sys.exit(main())
