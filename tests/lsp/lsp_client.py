"""A Language Server Protocol client over a server's stdio, as an editor is one: framed
JSON-RPC, requests matched to their responses, notifications kept until asked for. The
server's log - its window/logMessage notifications, and any line on its stderr - is in
`log`, in arrival order; the logMessage notifications themselves in `log_messages`.
Used by tests/lsp/lsp_test.py and bench/lsp_latency.py."""
import json
import queue
import subprocess
import threading
import time


def uri(path):
    """A file URI, as editors send it (the tests' paths are absolute and need no escaping)."""
    return "file://" + path


class Client:
    def __init__(self, command, cwd=None, timeout=300, env=None):
        self.timeout = timeout
        self.p = subprocess.Popen(command, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                  stderr=subprocess.PIPE, cwd=cwd, env=env)
        self.inbox = queue.Queue()
        self.seen = []
        self.next_id = 1
        threading.Thread(target=self._read, daemon=True).start()
        self.log = []  # the server's log: its logMessage texts and its stderr, line by line
        self.log_messages = []  # the window/logMessage notifications' params
        self.stderr = []  # the server's stderr alone (editors log it as errors)
        threading.Thread(target=self._read_stderr, daemon=True).start()

    def _read_stderr(self):
        for l in self.p.stderr:
            line = l.decode(errors="replace")
            self.stderr.append(line)
            self.log.append(line)

    def _read(self):
        out = self.p.stdout
        while True:
            length = None
            while True:
                line = out.readline()
                if not line:
                    self.inbox.put(None)
                    return
                line = line.strip()
                if not line:
                    break
                if line.lower().startswith(b"content-length:"):
                    length = int(line.split(b":")[1])
            m = json.loads(out.read(length))
            if m.get("method") == "window/logMessage":
                self.log_messages.append(m["params"])
                self.log.append(m["params"]["message"])
                continue
            self.inbox.put(m)

    def raw(self, body: bytes):
        self.p.stdin.write(b"Content-Length: %d\r\n\r\n" % len(body) + body)
        self.p.stdin.flush()

    def send(self, msg):
        msg["jsonrpc"] = "2.0"
        self.raw(json.dumps(msg).encode())

    def request(self, method, params=None):
        rid = self.next_id
        self.next_id += 1
        self.send({"id": rid, "method": method, "params": params or {}})
        return self.wait(lambda m: m.get("id") == rid and ("result" in m or "error" in m))

    def notify(self, method, params):
        self.send({"method": method, "params": params})

    def exit_code(self, timeout=60):
        """The server's exit status once it ends (negative: the signal), or None when it has
        not ended within timeout seconds (it is then killed)."""
        try:
            return self.p.wait(timeout=timeout)
        except subprocess.TimeoutExpired:
            self.p.kill()
            return None

    def wait(self, pred, timeout=None):
        """The first message (seen before or arriving) that pred accepts, consumed."""
        for m in self.seen:
            if pred(m):
                self.seen.remove(m)
                return m
        end = time.time() + (timeout or self.timeout)
        while time.time() < end:
            try:
                m = self.inbox.get(timeout=max(0.1, end - time.time()))
            except queue.Empty:
                break
            if m is None:
                return None
            if pred(m):
                return m
            self.seen.append(m)
        return None

    def wait_log(self, pred, timeout=None):
        """The first line of the server's stderr that pred accepts, waiting for it: the log is
        read on a thread of its own, and may come after a message the server sent later."""
        end = time.time() + (timeout or self.timeout)
        while True:
            for line in list(self.log):
                if pred(line):
                    return line
            if time.time() >= end:
                return None
            time.sleep(0.05)

    def diagnostics(self, uri, version=None):
        m = self.wait(lambda m: m.get("method") == "textDocument/publishDiagnostics" and m["params"]["uri"] == uri
                      and (version is None or m["params"].get("version") == version))
        return m["params"]["diagnostics"] if m else None
