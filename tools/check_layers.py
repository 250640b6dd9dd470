#!/usr/bin/env python3
"""The include graph of a source folder has no cycle, and its subfolders include one way.

  tools/check_layers.py FOLDER [--order A,B,C...]

A module is X.h and X.cpp (any of .h .hpp .cuh .cpp .cc .cu) with the same path under
FOLDER: one node, whose edges are the #include "..." lines of its files that name another
file under FOLDER (resolved next to the including file, then from FOLDER). Prints every
cycle between modules, each with the includes that close it.

--order lists FOLDER's subfolders top to bottom: a file may include only files of its own
subfolder or of one after it in the list (A may include B, B may not include A). Every
subfolder that holds a source file must be listed; files directly in FOLDER are not checked
for order. Prints each include that goes up.

--confine HEADER=SUB (repeatable): the system header <HEADER> may be included only by files
of subfolder SUB (interposer: <cupti.h> from cupti/ alone). Prints each include elsewhere.

Exit 0 when clean, 1 when there is a cycle, an include that goes up or one outside its
confinement, 2 on bad usage."""
import argparse
import os
import re
import sys

SOURCE_EXTS = (".h", ".hpp", ".cuh", ".cpp", ".cc", ".cu")
INCLUDE = re.compile(r'^\s*#\s*include\s*"([^"]+)"')
SYSTEM_INCLUDE = re.compile(r'^\s*#\s*include\s*<([^>]+)>')
MAX_CYCLES = 1000  # a tangled tree has too many to read anyway


def source_files(root):
    for dirpath, dirnames, filenames in os.walk(root):
        dirnames.sort()
        for name in sorted(filenames):
            if name.endswith(SOURCE_EXTS):
                yield os.path.relpath(os.path.join(dirpath, name), root)


def module_of(rel):
    return os.path.splitext(rel)[0]


def resolve(root, rel, included):
    """The included file's path under root, or None when it is outside (clang, llvm, rules)."""
    for base in (os.path.dirname(rel), ""):
        candidate = os.path.normpath(os.path.join(base, included))
        if not candidate.startswith("..") and os.path.isfile(os.path.join(root, candidate)):
            return candidate
    return None


def include_edges(root):
    """(from file, to file) for every #include "..." between two files under root."""
    edges = []
    for rel in source_files(root):
        with open(os.path.join(root, rel), encoding="utf-8", errors="replace") as f:
            for line in f:
                m = INCLUDE.match(line)
                if m:
                    target = resolve(root, rel, m.group(1))
                    if target:
                        edges.append((rel, target))
    return edges


def module_graph(edges):
    """Module -> {module it includes: the first include that says so}."""
    graph = {}
    for src, dst in edges:
        a, b = module_of(src), module_of(dst)
        graph.setdefault(a, {})
        graph.setdefault(b, {})
        if a != b:
            graph[a].setdefault(b, (src, dst))
    return graph


def cycles(graph):
    """Every elementary cycle, each once: it starts at its smallest module."""
    found = []
    for start in sorted(graph):
        path, on_path = [start], {start}

        def walk(node):
            for nxt in sorted(graph[node]):
                if len(found) >= MAX_CYCLES:
                    return
                if nxt == start:
                    found.append(list(path))
                elif nxt > start and nxt not in on_path:
                    path.append(nxt)
                    on_path.add(nxt)
                    walk(nxt)
                    on_path.discard(path.pop())

        walk(start)
    return found


def folder_of(rel):
    parts = rel.split(os.sep)
    return parts[0] if len(parts) > 1 else None


def order_violations(edges, order):
    """Includes that go up the order, and subfolders the order does not list."""
    rank = {name: i for i, name in enumerate(order)}
    ups, unlisted = [], set()
    for src, dst in edges:
        a, b = folder_of(src), folder_of(dst)
        for folder in (a, b):
            if folder is not None and folder not in rank:
                unlisted.add(folder)
        if a in rank and b in rank and rank[b] < rank[a]:
            ups.append((src, dst))
    return ups, unlisted


def confinement_violations(root, confine):
    """(file, header) for each #include <header> of a confined header outside its subfolder."""
    out = []
    for rel in source_files(root):
        with open(os.path.join(root, rel), encoding="utf-8", errors="replace") as f:
            for line in f:
                m = SYSTEM_INCLUDE.match(line)
                if m and m.group(1) in confine and folder_of(rel) != confine[m.group(1)]:
                    out.append((rel, m.group(1)))
    return out


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("folder")
    p.add_argument("--order", help="subfolders, top to bottom, comma-separated")
    p.add_argument("--confine", action="append", default=[], metavar="HEADER=SUB",
                   help="the system header <HEADER> only from subfolder SUB (repeatable)")
    args = p.parse_args()
    confine = {}
    for spec in args.confine:
        header, _, sub = spec.partition("=")
        if not header or not sub:
            print(f"check_layers: error: --confine '{spec}': expected HEADER=SUBFOLDER", file=sys.stderr)
            return 2
        confine[header] = sub.strip("/")
    root = args.folder
    if not os.path.isdir(root):
        print(f"check_layers: error: {root} is not a folder", file=sys.stderr)
        return 2
    edges = include_edges(root)
    graph = module_graph(edges)
    bad = False

    found = cycles(graph)
    for cycle in found:
        ring = cycle + [cycle[0]]
        print("cycle: " + " -> ".join(ring))
        for a, b in zip(ring, ring[1:]):
            src, dst = graph[a][b]
            print(f"  {src} includes {dst}")
    if len(found) >= MAX_CYCLES:
        print(f"(stopped after {MAX_CYCLES} cycles)")
    bad |= bool(found)

    summary = f"{root}: {len(graph)} modules, {sum(len(v) for v in graph.values())} module includes, {len(found)} cycles"
    if args.order:
        order = [name.strip().strip("/") for name in args.order.split(",") if name.strip()]
        ups, unlisted = order_violations(edges, order)
        for src, dst in ups:
            print(f"up: {src} includes {dst} ({folder_of(dst)} is above {folder_of(src)} in --order)")
        for folder in sorted(unlisted):
            print(f"unlisted: {folder}/ is not in --order")
        bad |= bool(ups or unlisted)
        summary += f", {len(ups)} includes up the order, {len(unlisted)} unlisted folders"
    if confine:
        outside = confinement_violations(root, confine)
        for rel, header in outside:
            print(f"confined: {rel} includes <{header}>, which only {confine[header]}/ may include")
        bad |= bool(outside)
        summary += f", {len(outside)} confined headers included elsewhere"
    print(summary)
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
