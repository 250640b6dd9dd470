"""PyTorch's CUDA graph captures, as a training script meets them: a .item() inside
torch.cuda.graph, a loader thread that pins memory while the main thread captures (the
global-mode capture PyTorch uses by default), and a capture that works and is replayed.
The recording it makes under syncwatch is what tests/runtime/capture_pass_test.py holds the
capture pass to: each failure named at its Python line and thread. Lines to be named carry
a marker comment (BREAKS: <class>).

Usage: python capture_failures_torch.py [replays]
"""
import sys
import threading

import torch


def item_in_capture(x):
    g = torch.cuda.CUDAGraph()
    try:
        with torch.cuda.graph(g):
            y = x * 2
            total = y.sum().item()  # BREAKS: item
        print("item capture: made", total)
    except RuntimeError as e:
        print("item capture failed:", str(e).splitlines()[0])


def loader_pins_while_capturing(x):
    capturing, done = threading.Event(), threading.Event()

    def loader():
        capturing.wait()
        try:
            batch = torch.empty(1 << 20, pin_memory=True)  # BREAKS: pin
            print("loader pinned", batch.numel())
        except RuntimeError as e:
            print("loader failed:", str(e).splitlines()[0])
        done.set()

    t = threading.Thread(target=loader, name="loader")
    t.start()
    g = torch.cuda.CUDAGraph()
    try:
        with torch.cuda.graph(g):  # BEGINS: pin
            y = x * 3
            capturing.set()
            done.wait()
            y += 1
        print("pin capture: made")
    except RuntimeError as e:
        print("pin capture failed:", str(e).splitlines()[0])
    capturing.set()
    t.join()


def good_capture(x, replays):
    static_in = x.clone()
    g = torch.cuda.CUDAGraph()
    s = torch.cuda.Stream()
    s.wait_stream(torch.cuda.current_stream())
    with torch.cuda.stream(s):  # warm up outside the capture, as PyTorch's docs do
        for _ in range(2):
            out = torch.relu(static_in @ static_in.T).sum(dim=1)
    torch.cuda.current_stream().wait_stream(s)
    with torch.cuda.graph(g):
        out = torch.relu(static_in @ static_in.T).sum(dim=1)
    for _ in range(replays):
        g.replay()
    torch.cuda.synchronize()
    print("good capture replayed", replays, "times:", float(out[0]) >= 0)


def main():
    replays = int(sys.argv[1]) if len(sys.argv) > 1 else 20
    x = torch.randn(256, 256, device="cuda")
    torch.cuda.synchronize()
    item_in_capture(x)
    loader_pins_while_capturing(x)
    good_capture(x, replays)


if __name__ == "__main__":
    main()
