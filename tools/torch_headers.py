#!/usr/bin/env python3
"""Fetches the C++ headers of a PyTorch wheel from PyPI into a cache folder.

syncwatch parses PyTorch extensions with the headers of the `torch` wheel their build used
(torch/include: ATen, c10, torch/csrc, pybind11). Neither the CUDA libraries nor a GPU are
needed for that, and a 530 MB wheel is too much to download for every CI run: so this reads
only the wheel's zip directory and its torch/include/ members, through HTTP Range requests
(PyPI's file host answers them), about 20 MB of a 530 MB wheel. Every file is checked against
the wheel's RECORD (sha256). Where a server does not answer Range requests, it falls back to
`pip download --no-deps` of the whole wheel.

    tools/torch_headers.py [--version 2.11.0] [--cache DIR] [--print-include]

prints the folder holding torch/include (or, with --print-include, torch/include itself).
Run it again: a complete cache is reused and nothing is downloaded.
"""
import argparse
import base64
import csv
import hashlib
import io
import json
import os
import shutil
import subprocess
import sys
import tempfile
import urllib.request
import zipfile

DEFAULT_VERSION = "2.11.0"  # the torch of the H200 image (2.11.0+cu130), so tests match it
INDEX = "https://pypi.org/simple/torch/"
PREFIX = "torch/include/"


def default_cache():
    base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    return os.path.join(base, "syncwatch")


class RangeReader(io.RawIOBase):
    """A seekable file over HTTP Range requests, with a read-ahead block cache: zipfile reads
    the central directory in small pieces, then each member's local header and data."""

    BLOCK = 1 << 20

    def __init__(self, url, size):
        self.url, self.size, self.pos, self.blocks, self.fetched = url, size, 0, {}, 0

    def readable(self):
        return True

    def seekable(self):
        return True

    def tell(self):
        return self.pos

    def seek(self, off, whence=0):
        self.pos = off if whence == 0 else self.pos + off if whence == 1 else self.size + off
        return self.pos

    def _block(self, n):
        if n not in self.blocks:
            start = n * self.BLOCK
            end = min(self.size, start + self.BLOCK) - 1
            req = urllib.request.Request(self.url, headers={"Range": f"bytes={start}-{end}"})
            with urllib.request.urlopen(req, timeout=60) as r:
                if r.status != 206:
                    raise OSError(f"no Range support (HTTP {r.status})")
                self.blocks[n] = r.read()
            self.fetched += len(self.blocks[n])
            if len(self.blocks) > 64:  # members are read in order: old blocks are done
                self.blocks.pop(min(self.blocks))
        return self.blocks[n]

    def readinto(self, b):
        if self.pos >= self.size:
            return 0
        n = self.pos // self.BLOCK
        data = self._block(n)
        off = self.pos - n * self.BLOCK
        chunk = data[off:off + len(b)]
        b[:len(chunk)] = chunk
        self.pos += len(chunk)
        return len(chunk)


def wheel_file(version):
    req = urllib.request.Request(INDEX, headers={"Accept": "application/vnd.pypi.simple.v1+json"})
    with urllib.request.urlopen(req, timeout=60) as r:
        index = json.load(r)
    py = f"cp{sys.version_info.major}{sys.version_info.minor}"
    names = [f"torch-{version}-{t}-{t}-manylinux_2_28_x86_64.whl" for t in (py, "cp312", "cp311")]
    files = {f["filename"]: f for f in index["files"]}
    for name in names:
        if name in files:
            return files[name]
    raise SystemExit(f"torch_headers: no manylinux x86_64 wheel of torch {version} on PyPI")


def record_hashes(zf):
    record = next(n for n in zf.namelist() if n.endswith(".dist-info/RECORD"))
    out = {}
    for row in csv.reader(io.StringIO(zf.read(record).decode())):
        if len(row) >= 2 and row[1].startswith("sha256="):
            out[row[0]] = row[1][len("sha256="):]
    return out


def extract(zf, dest):
    hashes = record_hashes(zf)
    count = size = 0
    for info in zf.infolist():
        if not info.filename.startswith(PREFIX) or info.is_dir():
            continue
        data = zf.read(info)
        digest = base64.urlsafe_b64encode(hashlib.sha256(data).digest()).rstrip(b"=").decode()
        if hashes.get(info.filename) != digest:
            raise SystemExit(f"torch_headers: {info.filename} does not match the wheel's RECORD")
        path = os.path.join(dest, info.filename)
        os.makedirs(os.path.dirname(path), exist_ok=True)
        with open(path, "wb") as f:
            f.write(data)
        count += 1
        size += len(data)
    return count, size


def fetch(version, cache):
    root = os.path.join(cache, f"torch-{version}")
    stamp = os.path.join(root, "COMPLETE")
    if os.path.exists(stamp):
        return root
    os.makedirs(cache, exist_ok=True)
    wheel = wheel_file(version)
    tmp = tempfile.mkdtemp(prefix=f"torch-{version}.", dir=cache)
    try:
        try:
            reader = RangeReader(wheel["url"], wheel["size"])
            with zipfile.ZipFile(io.BufferedReader(reader, 1 << 16)) as zf:
                count, size = extract(zf, tmp)
            how = f"{reader.fetched / 2**20:.1f} MB read of the {wheel['size'] / 2**20:.0f} MB wheel"
        except OSError as e:
            print(f"torch_headers: ranged read failed ({e}); downloading the whole wheel", file=sys.stderr)
            dl = os.path.join(tmp, "wheel")
            subprocess.run([sys.executable, "-m", "pip", "download", "-q", "--no-deps", "-d", dl,
                            f"torch=={version}"], check=True)
            whl = os.path.join(dl, os.listdir(dl)[0])
            with zipfile.ZipFile(whl) as zf:
                count, size = extract(zf, tmp)
            shutil.rmtree(dl)
            how = "whole wheel downloaded"
        with open(os.path.join(tmp, "COMPLETE"), "w") as f:
            f.write(f"{wheel['filename']}\n{count} headers, {size} bytes\n")
        if os.path.exists(root):  # an incomplete earlier attempt
            shutil.rmtree(root)
        os.rename(tmp, root)  # the cache appears complete or not at all
    except BaseException:
        shutil.rmtree(tmp, ignore_errors=True)
        raise
    print(f"torch_headers: {count} headers ({size / 2**20:.1f} MB) of {wheel['filename']} "
          f"in {root} ({how})", file=sys.stderr)
    return root


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--version", default=DEFAULT_VERSION)
    ap.add_argument("--cache", default=default_cache())
    ap.add_argument("--print-include", action="store_true",
                    help="print torch/include instead of the folder that holds it")
    a = ap.parse_args()
    root = fetch(a.version, a.cache)
    print(os.path.join(root, "torch", "include") if a.print_include else root)


if __name__ == "__main__":
    main()
