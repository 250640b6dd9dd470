"""The editor snippets of docs/editor.md, as a user copies them: the fenced block right under
each `<!-- editor-snippet: NAME -->` marker (tests/lsp/nvim_lsp_test.py, tests/lsp/emacs_lsp_test.py
run them as written; tests/project/docs_test.py checks every lua and elisp block has a marker)."""
import os
import re

MARKER = re.compile(r"^\s*<!--\s*editor-snippet:\s*([\w.+-]+)\s*-->\s*$")
FENCE = re.compile(r"^\s*(`{3,})\s*(\w*)\s*$")


def snippets(repo_root):
    """{name: (language, text)} of docs/editor.md's marked blocks."""
    lines = open(os.path.join(repo_root, "docs", "editor.md"), encoding="utf-8").read().split("\n")
    out = {}
    for i, line in enumerate(lines):
        m = MARKER.match(line)
        f = FENCE.match(lines[i + 1]) if m and i + 1 < len(lines) else None
        if not f:
            continue
        end = next(k for k in range(i + 2, len(lines)) if lines[k].strip() == f.group(1))
        out[m.group(1)] = (f.group(2), "\n".join(lines[i + 2:end]) + "\n")
    return out


def write_snippet(repo_root, name, directory):
    """The snippet NAME in a file of its own under DIRECTORY; its path."""
    lang, text = snippets(repo_root)[name]
    path = os.path.join(directory, name + {"lua": ".lua", "elisp": ".el"}.get(lang, ".txt"))
    with open(path, "w", encoding="utf-8") as f:
        f.write(text)
    return path
