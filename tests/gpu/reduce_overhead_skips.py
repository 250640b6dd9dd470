"""A script that torch.compile(mode="reduce-overhead") runs partly without CUDA graphs, as
users meet it: a compiled step that mutates its input, one that reads a CPU tensor (torch 2.11
runs it with CUDA graphs and a pageable copy, and says nothing), one
called with ever new input sizes (a graph recorded for each), and one that is captured and
replayed as intended. torch says why only on its perf_hints logger; syncwatch names the reason
at the line that called the compiled function. Lines to be named carry a marker comment
(SKIPS: <reason word> - no CUDA graph; HINT: <word> - graphs, at a cost).

Usage: python reduce_overhead_skips.py [rounds]
"""
import sys

import torch


@torch.compile(mode="reduce-overhead")
def bump(x):
    x.add_(1)
    return x * 2


@torch.compile(mode="reduce-overhead")
def scale(x, w):
    return x * w.to(x.device)


@torch.compile(mode="reduce-overhead", dynamic=True)
def normalize(x):
    return x / x.norm()


@torch.compile(mode="reduce-overhead")
def mlp(a):
    return torch.relu(a @ a.T).sum(dim=0)


def main():
    rounds = int(sys.argv[1]) if len(sys.argv) > 1 else 3
    x, w = torch.ones(1024, device="cuda"), torch.ones(1024)
    a = torch.ones(64, 64, device="cuda")
    for _ in range(rounds):
        torch.compiler.cudagraph_mark_step_begin()  # (a replay overwrites the last outputs)
        y = bump(x)  # SKIPS: mutated
        z = scale(x, w)  # (torch 2.11: w is copied to the GPU in the graph - no skip said)
        m = mlp(a).clone()
    for n in range(1, 61):
        normalize(torch.ones(n * 8, device="cuda"))  # HINT: sizes
    torch.cuda.synchronize()
    print("done", float(y.sum()), float(z.sum()), float(m.sum()))


if __name__ == "__main__":
    main()
