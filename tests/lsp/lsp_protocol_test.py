#!/usr/bin/env python3
"""syncwatch-lsp against the protocol's rules and an editor's habits (issue 42), on a small
C++ file (a quick parse): a message with neither id nor method is answered with
InvalidRequest and a null id; documents that are not C, C++ or CUDA (a Python file, a
binary) are not analyzed and get no diagnostics; the server's log is window/logMessage at
Info, not stderr (Neovim logs every stderr line at [ERROR]); requests after shutdown are
refused with InvalidRequest; a server stopped with SIGTERM, as editors stop it, removes its
PCH folder ($TMPDIR/syncwatch-pch-*).
  lsp_protocol_test.py SYNCWATCH-LSP"""
import glob
import json
import os
import signal
import sys
import tempfile
import time

sys.path[:0] = [os.path.dirname(os.path.abspath(__file__)),  # this folder, and tests/ (harness.py)
                os.path.dirname(os.path.dirname(os.path.abspath(__file__)))]
from harness import check, finish  # noqa: E402
from lsp_client import Client, uri  # noqa: E402

server = sys.argv[1]
TIMEOUT = 300


def published(c, u):
    """Every publishDiagnostics for u the client has seen and not consumed."""
    return [m for m in c.seen if m.get("method") == "textDocument/publishDiagnostics" and m["params"]["uri"] == u]


with tempfile.TemporaryDirectory() as d:
    project = os.path.join(d, "project")
    tmp = os.path.join(d, "tmp")  # the server's TMPDIR: its PCH folder is the only one there
    os.makedirs(os.path.join(project, "src"))
    os.makedirs(tmp)
    main = os.path.join(project, "src", "main.cpp")
    with open(main, "w") as f:
        f.write("#include <vector>\n\nint main() {\n  std::vector<int> v(4);\n  return v[0];\n}\n")
    with open(os.path.join(project, "compile_commands.json"), "w") as f:
        json.dump([{"directory": project, "command": f"clang++ -std=c++17 -c {main}", "file": main}], f)
    # What an editor may open beside it: the nearest file's command would parse them as C++.
    notes = os.path.join(project, "src", "notes.py")
    blob = os.path.join(project, "src", "model.bin")
    with open(notes, "w") as f:
        f.write("import torch\nx = torch.ones(4).cuda()\n")
    with open(blob, "wb") as f:
        f.write(bytes(range(256)))
    env = dict(os.environ, TMPDIR=tmp)

    c = Client([server], cwd=d, timeout=TIMEOUT, env=env)
    c.request("initialize", {"processId": os.getpid(), "rootUri": uri(project), "capabilities": {}})
    c.notify("initialized", {})

    # Neither id nor method: not JSON-RPC; the answer is InvalidRequest with id null.
    c.send({"params": {"x": 1}})
    m = c.wait(lambda m: "error" in m and m.get("id", "absent") is None, timeout=30)
    check("neither id nor method: InvalidRequest (-32600), id null",
          m is not None and m["error"]["code"] == -32600, m)
    # A response to a request of the server's is not answered (it has an id and a result).
    c.send({"id": "syncwatch-7", "result": None})

    # Not C, C++ or CUDA: opened, edited, saved, closed - never analyzed, nothing published.
    c.notify("textDocument/didOpen", {"textDocument": {"uri": uri(notes), "languageId": "python", "version": 1,
                                                       "text": open(notes).read()}})
    c.notify("textDocument/didOpen", {"textDocument": {"uri": uri(blob), "languageId": "plaintext", "version": 1,
                                                       "text": bytes(range(256)).decode("latin-1")}})
    c.notify("textDocument/didChange", {"textDocument": {"uri": uri(notes), "version": 2},
                                        "contentChanges": [{"text": "import numpy\n"}]})
    c.notify("textDocument/didSave", {"textDocument": {"uri": uri(notes)}})
    c.notify("textDocument/didClose", {"textDocument": {"uri": uri(blob)}})
    # Then the C++ file: the worker analyzes in due order, so what the others would have
    # got is published before its diagnostics.
    c.notify("textDocument/didOpen", {"textDocument": {"uri": uri(main), "languageId": "cpp", "version": 1,
                                                       "text": open(main).read()}})
    diags = c.diagnostics(uri(main), 1)
    check("a C++ file: analyzed, no error", diags is not None and not any(x["severity"] == 1 for x in diags), diags)
    check("a Python file (languageId python): no diagnostics published", published(c, uri(notes)) == [],
          published(c, uri(notes)))
    check("a binary (languageId plaintext, .bin): no diagnostics published", published(c, uri(blob)) == [],
          published(c, uri(blob)))

    # The log: each analysis as window/logMessage, type Info (3).
    logged = [x for x in c.log_messages if x["message"].startswith(f"syncwatch-lsp: {main}: ")]
    check("the analysis's log line is a window/logMessage of type Info (3)",
          len(logged) == 1 and logged[0]["type"] == 3 and "finding(s)" in logged[0]["message"], c.log_messages)
    check("the PCH of the file's preamble is in $TMPDIR", len(glob.glob(os.path.join(tmp, "syncwatch-pch-*"))) == 1,
          os.listdir(tmp))

    # After shutdown: requests refused (InvalidRequest), the server still waits for exit.
    r = c.request("shutdown")
    check("shutdown: null", r is not None and "result" in r and r["result"] is None, r)
    r = c.request("textDocument/hover", {"textDocument": {"uri": uri(main)}, "position": {"line": 3, "character": 2}})
    check("a request after shutdown: InvalidRequest (-32600)", r is not None and r.get("error", {}).get("code") == -32600, r)
    r = c.request("shutdown")
    check("a second shutdown: InvalidRequest (-32600)", r is not None and r.get("error", {}).get("code") == -32600, r)
    c.notify("exit", {})
    code = c.exit_code()
    check("exit after shutdown: 0", code == 0, code)
    check("exit: the PCH folder removed", glob.glob(os.path.join(tmp, "syncwatch-pch-*")) == [], os.listdir(tmp))
    time.sleep(0.2)  # (the stderr reader's last lines; the pipe is closed)
    check("nothing on stderr (editors log it as errors)", c.stderr == [], c.stderr)

    # SIGTERM, as editors stop a server (VS Code, Neovim on exit): the PCH folder goes too.
    c = Client([server], cwd=d, timeout=TIMEOUT, env=env)
    c.request("initialize", {"processId": os.getpid(), "rootUri": uri(project), "capabilities": {}})
    c.notify("textDocument/didOpen", {"textDocument": {"uri": uri(main), "languageId": "cpp", "version": 1,
                                                       "text": open(main).read()}})
    diags = c.diagnostics(uri(main), 1)
    pch = glob.glob(os.path.join(tmp, "syncwatch-pch-*"))
    check("SIGTERM: a PCH folder before", diags is not None and len(pch) == 1, (diags, os.listdir(tmp)))
    c.p.send_signal(signal.SIGTERM)
    code = c.exit_code()
    check("SIGTERM: the server ends by the signal", code == -signal.SIGTERM, code)
    check("SIGTERM: the PCH folder removed", glob.glob(os.path.join(tmp, "syncwatch-pch-*")) == [], os.listdir(tmp))

finish()
